/* bandwidth_dram.c: the one DRAM bandwidth of this machine (BW_DRAM_RULE in bandwidth.h):
 * chosen from the bandwidth experiment's records when it ran in this process, else measured
 * here the same way for the family that asks, and kept for the rest of the run. Dividing by it
 * is the asking family's job. */
#include "exp/bandwidth/bandwidth.h"
#include "exp/bandwidth/bandwidth_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/env.h"
#include "util/error.h"
#include "util/json.h"
#include "util/progress.h"

#define MEASURE_S 2.0               /* seconds of repetitions when measured for another family */

static struct {
    int set;
    struct bw_dram d;               /* its strings point into the buffers below */
    char kernel[32], precision[16], stores[16], source[64];
} kept;

void bw_dram_set(const struct bw_dram *d)
{
    snprintf(kept.kernel, sizeof kept.kernel, "%s", d->kernel);
    snprintf(kept.precision, sizeof kept.precision, "%s", d->precision);
    snprintf(kept.stores, sizeof kept.stores, "%s", d->stores);
    snprintf(kept.source, sizeof kept.source, "%s", d->source);
    kept.d = *d;
    kept.d.kernel = kept.kernel;
    kept.d.precision = kept.precision;
    kept.d.stores = kept.stores;
    kept.d.source = kept.source;
    kept.set = 1;
}

/* Bytes actually moved per second, best repetition: cached stores also read each written line
 * first (the write-allocate view); non-temporal stores and the read kernel move what STREAM counts. */
static double moved_gbps(const cJSON *r, const char *stores)
{
    double wa = json_num(r, "gbps_best_wa", NAN);
    return strcmp(stores, "non-temporal") == 0 || !isfinite(wa) ? json_num(r, "gbps_best", NAN) : wa;
}

static int candidate(const cJSON *r, int threads)
{
    const char *series = json_str(r, "series", "");
    return (strcmp(series, "size") == 0 || strcmp(series, "stores") == 0)    /* both store kinds */
           && strcmp(json_str(r, "alloc", ""), "host") == 0
           && (int)json_num(r, "threads", -1) == threads
           && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "valid"))
           && isfinite(json_num(r, "gbps_best", NAN));
}

int bw_dram_pick(const cJSON *results, int threads, struct bw_dram *out)
{
    double top = 0, best = 0;
    const cJSON *r;
    cJSON_ArrayForEach(r, results)
        if (candidate(r, threads))
            top = fmax(top, json_num(r, "array_bytes", 0));
    cJSON_ArrayForEach(r, results) {
        if (!candidate(r, threads) || json_num(r, "array_bytes", 0) < top)
            continue;
        const char *stores = json_str(r, "stores", "cached");
        double g = moved_gbps(r, stores);
        if (!(g > best))
            continue;
        best = g;
        *out = (struct bw_dram){ g, json_str(r, "kernel", "?"), json_str(r, "precision", "?"), stores,
                                 json_num(r, "working_set_bytes", NAN), threads, "bandwidth experiment" };
    }
    return best > 0 ? 0 : -1;
}

cJSON *bw_dram_json(const struct bw_dram *d)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "gbps", d->gbps);
    cJSON_AddStringToObject(o, "kernel", d->kernel);
    cJSON_AddStringToObject(o, "precision", d->precision);
    cJSON_AddStringToObject(o, "stores", d->stores);
    cJSON_AddNumberToObject(o, "working_set_bytes", d->working_set_bytes);
    cJSON_AddNumberToObject(o, "threads", d->threads);
    cJSON_AddStringToObject(o, "source", d->source);
    cJSON_AddStringToObject(o, "rule", BW_DRAM_RULE);
    return o;
}

/* The bandwidth experiment's plan cut down to the DRAM-sized point: every kernel, FP64, all
 * threads, its default repetition rule with two samples at least and the validated first pass
 * as the warm-up. */
static int measure_here(const char *family, struct bw_dram *out, char *err, size_t errlen)
{
    struct env_cpu cpu;
    cJSON *given = cJSON_Parse("{\"precisions\": \"fp64\", \"clusters\": false, \"min_reps\": 2, \"warmup\": 0}");
    cJSON *params = param_check("bandwidth", bw_params, given, err, errlen);
    cJSON_Delete(given);
    if (!params)
        return -1;
    struct bw_plan *pl = bw_plan_cpu(params, &cpu);
    double size = bw_plan_max_size(pl, params);
    struct bw_run_state rs = { &bw_cpu_ops, pl, cJSON_CreateArray(), 0, pl->nk, MEASURE_S / pl->nk };
    progress_note("%s: measuring this machine's DRAM bandwidth (the bandwidth experiment did not, in this run)",
                  family);
    bw_measure_config(&rs, BW_FP64, size, BW_PATH_HOST, pl->tmax, NULL, "size", NULL,
                      BW_MEM_SHARE * env_mem_available());
    int rc = bw_dram_pick(rs.results, pl->tmax, out);
    if (rc == 0) {
        char source[64];
        snprintf(source, sizeof source, "measured by %s", family);
        out->source = source;
        bw_dram_set(out);
        *out = kept.d;
    } else {
        const cJSON *why = cJSON_GetArrayItem(pl->skipped, 0);
        snprintf(err, errlen, "the DRAM bandwidth could not be measured: %s",
                 why ? json_str(why, "reason", "?") : "no kernel validated");
    }
    cJSON_Delete(rs.results);
    cJSON_Delete(pl->skipped);
    cJSON_Delete(params);
    free(pl);
    return rc;
}

int bw_dram_by(const char *family, struct bw_dram *out, char *err, size_t errlen)
{
    if (kept.set) {
        *out = kept.d;
        return 0;
    }
    return measure_here(family ? family : "another experiment", out, err, errlen);
}

int bw_dram(struct bw_dram *out, char *err, size_t errlen)
{
    return bw_dram_by(NULL, out, err, errlen);
}
