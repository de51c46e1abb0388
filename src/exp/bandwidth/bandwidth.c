/* bandwidth.c: the bandwidth experiment's run: the CPU plan measured size by size and thread
 * count by count, the GPU part after it, the experiment's info, and the DRAM figure chosen from its
 * records. What the parts share (tables, plan, measuring) is bandwidth_core.c's. */
#include "exp/bandwidth/bandwidth.h"
#include "exp/bandwidth/bandwidth_int.h"

#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/cuda.h"
#include "exp/experiment.h"
#include "measure/backend.h"
#include "measure/measure.h"
#include "util/machine.h"
#include "util/error.h"
#include "util/json.h"
#include "util/progress.h"
#include "util/timing.h"
#include "util/units.h"

static cJSON *info_json(const struct bw_plan *pl, const struct machine_cpu *cpu, double max_size)
{
    double levels[8];
    int top = machine_cache_levels(cpu, levels);
    cJSON *info = cJSON_CreateObject();
    cJSON_AddStringToObject(info, "device", "cpu");
    cJSON_AddNumberToObject(info, "threads_max", pl->tmax);
    cJSON_AddNumberToObject(info, "timer_tick_s", pl->tick);
    cJSON_AddNumberToObject(info, "sample_s", pl->rule.sample_s);
    cJSON_AddNumberToObject(info, "caches_total_bytes", pl->cache_total);
    cJSON_AddStringToObject(info, "caches_source", cpu->cache_source);
    cJSON_AddItemToObject(info, "cache_levels_bytes", cJSON_CreateDoubleArray(levels, top));
    cJSON_AddNumberToObject(info, "dram_threshold_bytes", pl->auto_max);
    cJSON_AddNumberToObject(info, "largest_bytes", max_size);
    cJSON_AddStringToObject(info, "byte_convention",
        "bytes = arrays the kernel names x n x element size, as STREAM counts; the write-allocate "
        "view adds one read of each array written with cached stores (non-temporal stores allocate "
        "nothing); beyond the caches the headline uses non-temporal stores, series \"stores\" "
        "holds the same points with cached stores");
    cJSON *ks = cJSON_AddArrayToObject(info, "kernels");
    for (int k = 0; k < BW_NKERNELS; k++) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "name", bw_kernels[k].name);
        cJSON_AddStringToObject(o, "formula", bw_kernels[k].formula);
        cJSON_AddNumberToObject(o, "arrays_read", bw_kernels[k].reads);
        cJSON_AddNumberToObject(o, "arrays_written", bw_kernels[k].writes);
        cJSON_AddNumberToObject(o, "flops_per_element", bw_kernels[k].flops);
        cJSON_AddItemToArray(ks, o);
    }
    return info;
}

/* The thread-scaling point at all threads is the sweep's largest point: its records again,
 * marked as the same measurement, rather than a second allocation and timing. */
static void reuse_top(struct bw_run_state *rs, int first, int end)
{
    for (int i = first; i < end; i++) {
        const cJSON *rec = cJSON_GetArrayItem(rs->results, i);
        if (strcmp(json_str(rec, "series", ""), "size") != 0)
            continue;                       /* the cached-store twins are the size series' own */
        cJSON *dup = cJSON_Duplicate(rec, 1);
        cJSON_ReplaceItemInObjectCaseSensitive(dup, "series", cJSON_CreateString("threads"));
        cJSON_AddStringToObject(dup, "same_as", "size");
        cJSON_AddItemToArray(rs->results, dup);
    }
    rs->done += rs->pl->nk;
}

/* The largest working set at all threads, then the thread-scaling runs at that size. */
static void measure_top(struct bw_run_state *rs, enum bw_prec p)
{
    struct bw_plan *pl = rs->pl;
    int top_first = cJSON_GetArraySize(rs->results);
    bw_measure_config(rs, p, pl->sizes[pl->ns - 1], BW_PATH_HOST, pl->tmax, NULL, "size", NULL,
                      BW_MEM_SHARE * machine_mem_available());
    int top_end = cJSON_GetArraySize(rs->results);
    for (int s = 0; s < pl->nscale; s++) {
        const struct bw_scaling *sc = &pl->scale[s];
        for (int t = 0; t < sc->ncounts && !progress_stopping(); t++) {
            char first[128];
            int pin = sc->cpulist[0] || sc->pinned >= sc->counts[t];    /* more threads than the order: unpinned */
            if (!sc->cpulist[0] && sc->counts[t] == pl->tmax)
                reuse_top(rs, top_first, top_end);     /* the sweep's largest point is this one */
            else
                bw_measure_config(rs, p, pl->sizes[pl->ns - 1], BW_PATH_HOST, sc->counts[t],
                                  pin ? sc->cpus : NULL, sc->series,
                                  sc->cpulist[0] ? sc->cpulist
                                  : pin ? bw_first_cpus(sc->cpus, sc->counts[t], first, sizeof first) : NULL,
                                  BW_MEM_SHARE * machine_mem_available());
        }
    }
}

/* The sweep points from index `from` (below the largest) that the time budget left out. */
static void skip_rest(struct bw_run_state *rs, enum bw_prec p, int from, double spent, double budget)
{
    struct bw_plan *pl = rs->pl;
    char item[128], why[128], lo[32], hi[32];
    snprintf(item, sizeof item, "%s sweep, working sets %s .. %s (%d points)", bw_prec_names[p],
             units_format_bytes(pl->sizes[from], lo, sizeof lo), units_format_bytes(pl->sizes[pl->ns - 2], hi, sizeof hi),
             pl->ns - 1 - from);
    snprintf(why, sizeof why, "the time budget was spent: %.0f s of %.0f s", spent, budget);
    bw_skip(pl, item, why);
    for (int s = from; s < pl->ns - 1; s++)
        rs->done += bw_config_slots(pl, pl->sizes[s], "size");
}

/* The machine's one DRAM figure, when this run's largest point is DRAM-sized (the automatic
 * size, or one at least as large): kept for the families after this one, and in info.dram. */
static void choose_dram(const struct bw_run_state *rs, const cJSON *params, cJSON *info)
{
    struct measure_dram d;
    const struct bw_plan *pl = rs->pl;
    int automatic = cJSON_IsString(param_get(params, "max_size")) && !cJSON_IsArray(param_get(params, "sizes"));
    if (!(automatic || pl->sizes[pl->ns - 1] >= 0.999 * pl->auto_max)
        || measure_dram_pick(rs->results, pl->tmax, rs->hw_tried ? &rs->hw : NULL, &d) != 0)
        return;
    d = measure_dram_set(&d);
    cJSON_AddItemToObject(info, "dram", measure_dram_json(&d));
}

cJSON *bw_run(const cJSON *params, double budget_s, char *err, size_t errlen)
{
    struct machine_cpu cpu;
    budget_s = measure_budget(params, budget_s);
    if (strcmp(param_str(params, "device"), "gpu") == 0)
        return bw_gpu_run(params, budget_s, err, errlen);
    struct bw_plan *pl = bw_plan_cpu(params, &cpu);
    double max_size = bw_plan_max_size(pl, params);
    bw_plan_sizes(pl, params, max_size);
    bw_plan_threads(pl, params, &cpu);

    int per_prec = 0;
    for (int s = 0; s < pl->ns; s++)
        per_prec += bw_config_slots(pl, pl->sizes[s], "size");
    for (int s = 0; s < pl->nscale; s++)
        per_prec += pl->scale[s].ncounts * pl->nk;
    struct bw_run_state rs = { .ops = backend_for("bandwidth", "cpu", NULL, 0), .pl = pl, .results = cJSON_CreateArray(),
                               .total = per_prec * pl->np };
    rs.per_point = 0.7 * budget_s / (rs.total > 0 ? rs.total : 1);
    progress_begin("bandwidth cpu", rs.total, budget_s);
    double t0 = timing_now();
    /* The DRAM-sized point and thread scaling of every precision first: they are what the
     * report is for, so when time runs short it is the sweep below them that gets thinner. */
    for (int i = 0; i < pl->np && !progress_stopping(); i++)
        measure_top(&rs, pl->precs[i]);
    double left = budget_s - (timing_now() - t0);
    for (int i = 0; i < pl->np && !progress_stopping(); i++) {
        double until = budget_s - left + left * (i + 1) / pl->np;     /* this precision's share */
        for (int s = 0; s < pl->ns - 1 && !progress_stopping(); s++) {
            if (timing_now() - t0 > until) {
                skip_rest(&rs, pl->precs[i], s, timing_now() - t0, budget_s);
                break;
            }
            bw_measure_config(&rs, pl->precs[i], pl->sizes[s], BW_PATH_HOST, pl->tmax, NULL, "size", NULL,
                              BW_MEM_SHARE * machine_mem_available());
        }
    }
    progress_step(rs.done, "done");
    progress_end();

    cJSON *out = cJSON_CreateObject(), *info = info_json(pl, &cpu, pl->sizes[pl->ns - 1]);
    choose_dram(&rs, params, info);
    cJSON_AddItemToObject(out, "results", rs.results);
    cJSON_AddItemToObject(out, "skipped", pl->skipped);
    cJSON_AddItemToObject(out, "info", info);
    free(pl);
    return out;
}
