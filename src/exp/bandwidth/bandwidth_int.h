/* bandwidth_int.h: what the two halves of the bandwidth experiment share: the plan (what to
 * measure and how often) and the measuring of one configuration, used by the CPU flow
 * (bandwidth.c) and the GPU flow (bandwidth_gpu.c). Not for other families. */
#ifndef SR_BANDWIDTH_INT_H
#define SR_BANDWIDTH_INT_H

#include <cjson/cJSON.h>

#include "exp/bandwidth/bandwidth.h"
#include "measure/measure.h"
#include "util/machine.h"

#define BW_MEM_SHARE 0.6            /* of the free memory the arrays may take */
#define BW_MAX_SIZES 160
#define BW_MAX_THREADS 64
#define BW_MAX_CLUSTERS 8

struct bw_scaling {                 /* one thread-scaling run at the largest size */
    const char *series;             /* "threads" or "cluster" (a sysfs cluster, or one kind of core) */
    char cpulist[128];              /* cluster CPUs, "" for the threads series */
    int pinned;                     /* threads series on a heterogeneous CPU: the CPUs in cpus[],
                                       t threads on cpus[0..t); 0: unpinned */
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
    struct bw_scaling scale[1 + BW_MAX_CLUSTERS + MACHINE_MAX_KINDS];
    int nscale;
    struct measure_rule rule;       /* budget_s set per measurement */
    int first_touch;
    double tick;
    double cache_total, auto_max;   /* bytes; auto_max: the DRAM-sized working set */
    cJSON *skipped;                 /* [{item, reason}] */
};

struct bw_run_state {
    const struct bw_ops *ops;
    struct bw_plan *pl;
    cJSON *results;
    int done, total;
    double per_point;               /* seconds of repetitions per measurement */
    struct measure_counters hw;     /* what the hardware counters showed at the DRAM-sized point */
    int hw_tried;
};

/* The parts of a plan every device shares: kernels, precisions, repetition rule, timer. */
void bw_plan_common(struct bw_plan *pl, const cJSON *params);
/* A new CPU plan: the common parts, all threads, the caches (cpu filled in) and the DRAM-sized
 * working set; free() it. */
struct machine_cpu;
struct bw_plan *bw_plan_cpu(const cJSON *params, struct machine_cpu *cpu);
void bw_plan_sizes(struct bw_plan *pl, const cJSON *params, double max_size);
void bw_skip(struct bw_plan *pl, const char *item, const char *reason);
/* The largest working set of the sweep: as asked, or auto (pl->auto_max) within memory. */
double bw_plan_max_size(struct bw_plan *pl, const cJSON *params);

/* Allocates one configuration (n from the working set `size`), validates and times every
 * planned kernel on it, appends the records; refuses sizes above mem_limit bytes. */
void bw_measure_config(struct bw_run_state *rs, enum bw_prec p, double size, enum bw_path path,
                       int threads, const int *cpus, const char *series, const char *cpulist,
                       double mem_limit);

/* The measurements a configuration of `size` counts for progress (series "size" beyond the
 * caches also times each writing kernel's cached-store twin). */
int bw_config_slots(const struct bw_plan *pl, double size, const char *series);

/* Adds gbps_best/gbps_median (bytes / time) from rec's time_s. */
void bw_add_rates(cJSON *rec, double bytes, double bytes_wa);

/* Whether an SM kernel's rate over host memory (a pinned or malloc path, an SM transfer) beats
 * the copy engines' over the same link by more than BW_SM_LINK_FACTOR: then it measured pages
 * that migrated into device memory, not the link. Never on an integrated device (host memory
 * is its memory) or without a copy-engine rate. */
#define BW_SM_LINK_FACTOR 2.0
int bw_sm_beyond_link(double sm_gbps, double ce_gbps, int integrated);

/* The contention record's error: NULL (valid) when the GPU thread started and neither side's
 * window stopped on an error, else why the record is not valid. */
const char *bw_contention_error(int threaded, int cpu_failed, int gpu_failed);

/* The GPU flow; without a device every item is skipped with the driver's reason. */
cJSON *bw_gpu_run(const cJSON *params, double budget_s, char *err, size_t errlen);

/* The thread-scaling series (pl->scale): all threads, unpinned, or on a heterogeneous CPU pinned
 * in machine_cpu's order (fastest kind first, one per cluster in turn); with `clusters`, one series
 * per kind of core and one per sysfs cluster (its fast cores first). */
void bw_plan_threads(struct bw_plan *pl, const cJSON *params, const struct machine_cpu *cpu);
/* "0-1,10" for the first n CPUs of a pinning order (their numbers in ascending order). */
const char *bw_first_cpus(const int *cpus, int n, char *out, size_t len);

#endif
