/* bandwidth_int.h: what the two halves of the bandwidth experiment share: the plan (what to
 * measure and how often) and the measuring of one configuration, used by the CPU flow
 * (bandwidth.c) and the GPU flow (bandwidth_gpu.c). Not for other families. */
#ifndef SR_BANDWIDTH_INT_H
#define SR_BANDWIDTH_INT_H

#include <cjson/cJSON.h>

#include "exp/bandwidth/bandwidth.h"
#include "util/stats.h"

#define BW_MEM_SHARE 0.6            /* of the free memory the arrays may take */
#define BW_MAX_SIZES 160
#define BW_MAX_THREADS 64
#define BW_MAX_CLUSTERS 8

struct bw_scaling {                 /* one thread-scaling run at the largest size */
    const char *series;             /* "threads" or "cluster" */
    char cpulist[128];              /* cluster CPUs, "" when not pinned */
    int cpus[BW_MAX_THREADS];       /* pinning order */
    int counts[BW_MAX_THREADS];
    int ncounts;
};

struct bw_plan {
    int kernels[BW_NKERNELS], nk;
    int precs[BW_NPREC], np;
    double sizes[BW_MAX_SIZES];     /* working sets of the three arrays, bytes, ascending */
    int ns;
    int tmax;
    struct bw_scaling scale[1 + BW_MAX_CLUSTERS];
    int nscale;
    struct stats_rule rule;
    int warmup, first_touch;
    double sample_s, tick;
    double cache_total, auto_max;   /* bytes; auto_max: the DRAM-sized working set */
    cJSON *skipped;                 /* [{item, reason}] */
};

struct bw_run_state {
    const struct bw_ops *ops;
    struct bw_plan *pl;
    cJSON *results;
    int done, total;
    double per_point;               /* seconds of repetitions per measurement */
};

/* The parts of a plan every device shares: kernels, precisions, repetition rule, timer. */
void bw_plan_common(struct bw_plan *pl, const cJSON *params);
void bw_plan_kernels(struct bw_plan *pl, const cJSON *params);
void bw_plan_sizes(struct bw_plan *pl, const cJSON *params, double max_size);
void bw_skip(struct bw_plan *pl, const char *item, const char *reason);

/* Allocates one configuration (n from the working set `size`), validates and times every
 * planned kernel on it, appends the records; refuses sizes above mem_limit bytes. */
void bw_measure_config(struct bw_run_state *rs, enum bw_prec p, double size, enum bw_path path,
                       int threads, const int *cpus, const char *series, const char *cpulist,
                       double mem_limit);

/* One timed sample series of `fn` (returns seconds of one repetition) under the plan's rule:
 * warm-up dropped, repetitions until the CV settles or the budget is spent. Adds samples_s,
 * time_s statistics and stop to rec; returns the number of samples. */
int bw_repeat(cJSON *rec, const struct bw_plan *pl, double budget_s, double (*fn)(void *), void *ud);

/* Adds gbps_best/gbps_median (bytes / time) from rec's time_s. */
void bw_add_rates(cJSON *rec, double bytes, double bytes_wa);

/* The GPU flow; without a device every item is skipped with the driver's reason. */
cJSON *bw_gpu_run(const cJSON *params, double budget_s, char *err, size_t errlen);

#endif
