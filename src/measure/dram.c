/* dram.c: the run's one DRAM figure (dram.h): kept once chosen or measured, picked from
 * bandwidth records by the one rule, written as info.dram. */
#include "measure/dram.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "measure/backend.h"
#include "util/json.h"

static struct {
    int set;
    struct measure_dram d;               /* its strings point into the buffers below */
    char kernel[32], precision[16], stores[16], source[64];
} kept;

struct measure_dram measure_dram_set(const struct measure_dram *d)
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
    return kept.d;
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

int measure_dram_pick(const cJSON *results, int threads, struct measure_dram *out)
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
        *out = (struct measure_dram){ g, json_str(r, "kernel", "?"), json_str(r, "precision", "?"), stores,
                                 json_num(r, "working_set_bytes", NAN), threads, "bandwidth experiment" };
    }
    return best > 0 ? 0 : -1;
}

cJSON *measure_dram_json(const struct measure_dram *d)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "gbps", d->gbps);
    cJSON_AddStringToObject(o, "kernel", d->kernel);
    cJSON_AddStringToObject(o, "precision", d->precision);
    cJSON_AddStringToObject(o, "stores", d->stores);
    cJSON_AddNumberToObject(o, "working_set_bytes", d->working_set_bytes);
    cJSON_AddNumberToObject(o, "threads", d->threads);
    cJSON_AddStringToObject(o, "source", d->source);
    cJSON_AddStringToObject(o, "rule", MEASURE_DRAM_RULE);
    return o;
}

int measure_dram(const char *family, struct measure_dram *out, char *err, size_t errlen)
{
    if (kept.set) {
        *out = kept.d;
        return 0;
    }
    char why[256];
    const struct measure_dram_ops *ops = backend_for("dram", "cpu", why, sizeof why);
    if (!ops) {
        snprintf(err, errlen, "the DRAM bandwidth could not be measured: %s", why);
        return -1;
    }
    return ops->measure(family ? family : "another experiment", out, err, errlen);
}
