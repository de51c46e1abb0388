/* bandwidth.c: the bandwidth experiment, device-independent: which sizes, kernels,
 * precisions and thread counts to measure, validation before timing, repetitions until the
 * times settle, and the results records. Bytes per kernel are computed here, in one place,
 * from the kernel table. The kernels themselves are the backends' (bandwidth_cpu.c). */
#include "exp/bandwidth.h"

#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/env.h"
#include "util/error.h"
#include "util/json.h"
#include "util/progress.h"
#include "util/stats.h"
#include "util/timing.h"
#include "util/units.h"

const struct bw_kernel_info bw_kernels[BW_NKERNELS] = {
    [BW_COPY] = { "copy", "c[i] = a[i]", 1, 1, 0 },
    [BW_SCALE] = { "scale", "c[i] = s*a[i]", 1, 1, 1 },
    [BW_ADD] = { "add", "c[i] = a[i] + b[i]", 2, 1, 1 },
    [BW_TRIAD] = { "triad", "c[i] = a[i] + s*b[i]", 2, 1, 2 },
    [BW_READ] = { "read", "sum += a[i]", 1, 0, 1 },
    [BW_FILL] = { "fill", "c[i] = s", 0, 1, 0 },
};
const char *const bw_prec_names[BW_NPREC] = { "fp64", "fp32" };
const size_t bw_prec_size[BW_NPREC] = { 8, 4 };

#define KiB 1024.0
#define TiB (1024.0 * 1024 * 1024 * 1024)
#define DRAM_FLOOR (256.0 * 1024 * 1024)    /* the largest working set is never below this */
#define MEM_SHARE 0.6                       /* of MemAvailable the arrays may take */

const struct param bw_params[] = {
    { "device", PARAM_ENUM, 0, NULL, "cpu", "cpu", 0, 0,
      "where the arrays live and what streams them" },
    { "kernels", PARAM_ENUM, PARAM_LIST, "all", "copy|scale|add|triad|read|fill", "all", 0, 0,
      "kernels to run" },
    { "precisions", PARAM_ENUM, PARAM_LIST, "all", "fp64|fp32", "all", 0, 0,
      "element types" },
    { "sizes", PARAM_SIZE, PARAM_LIST, "sweep", NULL, "sweep", 3 * KiB, TiB,
      "working sets (the three arrays together), or a sweep from min_size to max_size" },
    { "min_size", PARAM_SIZE, 0, NULL, NULL, "16KiB", 3 * KiB, TiB,
      "smallest working set of the sweep (inside L1)" },
    { "max_size", PARAM_SIZE, 0, "auto", NULL, "auto", 3 * KiB, TiB,
      "largest working set; auto: each array 4x all caches, and 256 MiB at least" },
    { "points_per_octave", PARAM_INT, 0, NULL, NULL, "2", 1, 8,
      "sweep points per doubling of size" },
    { "threads", PARAM_INT, PARAM_LIST, "sweep|max", NULL, "sweep", 1, 4096,
      "thread counts of the scaling run at the largest size; sweep: 1, 2, 4, ... and all" },
    { "clusters", PARAM_BOOL, 0, NULL, NULL, "true", 0, 0,
      "also scale threads pinned inside each CPU cluster sysfs reports" },
    { "first_touch", PARAM_BOOL, 0, NULL, NULL, "true", 0, 0,
      "the timing threads initialise the arrays (NUMA placement); false: the main thread" },
    { "cv", PARAM_NUM, 0, NULL, NULL, "0.025", 0.001, 0.5,
      "repeat until the coefficient of variation of the times is below this" },
    { "min_reps", PARAM_INT, 0, NULL, NULL, "5", 2, 1000, "repetitions at least (after warm-up)" },
    { "max_reps", PARAM_INT, 0, NULL, NULL, "100", 2, 100000, "repetitions at most" },
    { "warmup", PARAM_INT, 0, NULL, NULL, "1", 0, 100, "repetitions run first and dropped" },
    { "sample_s", PARAM_NUM, 0, NULL, NULL, "0.002", 1e-5, 10,
      "shortest timed sample; small sizes repeat the kernel inside one sample" },
    { "budget_s", PARAM_NUM, 0, "auto", NULL, "auto", 0.1, 86400,
      "seconds for this experiment; auto: its share of the scenario budget" },
    { NULL, 0, 0, NULL, NULL, NULL, 0, 0, NULL },
};

/* ---- the plain twin ---- */

double bw_init_a(size_t i) { return 1.0 + (double)(i % 8) / 8.0; }
double bw_init_b(size_t i) { return 2.0 + (double)(i % 4) / 4.0; }

double bw_expected(enum bw_kernel k, size_t i)
{
    double a = bw_init_a(i), b = bw_init_b(i);
    switch (k) {
    case BW_COPY: return a;
    case BW_SCALE: return BW_SCALAR * a;
    case BW_ADD: return a + b;
    case BW_TRIAD: return a + BW_SCALAR * b;
    case BW_FILL: return BW_SCALAR;
    default: return NAN;
    }
}

double bw_expected_sum(size_t n)
{
    double full = (double)(n / 8), rem = (double)(n % 8);
    return full * 11.5 + rem + rem * (rem - 1) / 16.0;   /* sum of 1 + j/8, j = 0..7, is 11.5 */
}

double bw_tolerance(enum bw_prec p) { return p == BW_FP64 ? 1e-12 : 1e-5; }

/* ---- the plan: what to measure ---- */

#define MAX_SIZES 160
#define MAX_THREADS 64
#define MAX_CLUSTERS 8

struct scaling {                    /* one thread-scaling run at the largest size */
    const char *series;             /* "threads" or "cluster" */
    char cpulist[128];              /* cluster CPUs, "" when not pinned */
    int cpus[MAX_THREADS];          /* pinning order */
    int counts[MAX_THREADS];
    int ncounts;
};

struct plan {
    int kernels[BW_NKERNELS], nk;
    int precs[BW_NPREC], np;
    double sizes[MAX_SIZES];        /* working sets of the three arrays, bytes, ascending */
    int ns;
    int tmax;
    struct scaling scale[1 + MAX_CLUSTERS];
    int nscale;
    struct stats_rule rule;
    int warmup, first_touch;
    double sample_s, tick;
    double cache_total, auto_max;
    cJSON *skipped;
};

static void skip(struct plan *pl, const char *item, const char *reason)
{
    cJSON *s = cJSON_CreateObject();
    cJSON_AddStringToObject(s, "item", item);
    cJSON_AddStringToObject(s, "reason", reason);
    cJSON_AddItemToArray(pl->skipped, s);
}

static int index_of(const char *name, const char *const *names, int n)
{
    for (int i = 0; i < n; i++)
        if (strcmp(name, names[i]) == 0)
            return i;
    return -1;
}

static void plan_kernels(struct plan *pl, const cJSON *params)
{
    const char *knames[BW_NKERNELS];
    for (int k = 0; k < BW_NKERNELS; k++)
        knames[k] = bw_kernels[k].name;
    const cJSON *ks = param_get(params, "kernels"), *ps = param_get(params, "precisions");
    pl->nk = pl->np = 0;
    if (cJSON_IsString(ks))         /* "all" */
        for (int k = 0; k < BW_NKERNELS; k++)
            pl->kernels[pl->nk++] = k;
    for (const cJSON *e = cJSON_IsArray(ks) ? ks->child : NULL; e; e = e->next) {
        int k = index_of(e->valuestring, knames, BW_NKERNELS);
        if (k >= 0 && pl->nk < BW_NKERNELS)
            pl->kernels[pl->nk++] = k;
    }
    if (cJSON_IsString(ps))
        for (int p = 0; p < BW_NPREC; p++)
            pl->precs[pl->np++] = p;
    for (const cJSON *e = cJSON_IsArray(ps) ? ps->child : NULL; e; e = e->next) {
        int p = index_of(e->valuestring, bw_prec_names, BW_NPREC);
        if (p >= 0 && pl->np < BW_NPREC)
            pl->precs[pl->np++] = p;
    }
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void plan_sizes(struct plan *pl, const cJSON *params, double max_size)
{
    const cJSON *sz = param_get(params, "sizes");
    pl->ns = 0;
    if (cJSON_IsArray(sz)) {
        for (const cJSON *e = sz->child; e && pl->ns < MAX_SIZES; e = e->next)
            pl->sizes[pl->ns++] = e->valuedouble;
        qsort(pl->sizes, (size_t)pl->ns, sizeof pl->sizes[0], cmp_double);
        return;
    }
    double lo = param_num(params, "min_size"), step = pow(2.0, 1.0 / param_num(params, "points_per_octave"));
    for (double s = lo; s < max_size * 0.999 && pl->ns < MAX_SIZES - 1; s *= step)
        pl->sizes[pl->ns++] = s;
    pl->sizes[pl->ns++] = max_size;
}

/* "0-3,8" -> {0,1,2,3,8}; returns the count (at most max). */
static int expand_cpulist(const char *s, int *out, int max)
{
    int n = 0;
    while (*s && n < max) {
        char *end;
        long a = strtol(s, &end, 10), b = a;
        if (end == s)
            break;
        if (*end == '-')
            b = strtol(end + 1, &end, 10);
        for (long i = a; i <= b && n < max; i++)
            out[n++] = (int)i;
        s = *end == ',' ? end + 1 : end;
        if (*end != ',')
            break;
    }
    return n;
}

/* 1, 2, 4, ... below max, then max. */
static int doubling(int max, int *out)
{
    int n = 0;
    for (int t = 1; t < max && n < MAX_THREADS - 1; t *= 2)
        out[n++] = t;
    out[n++] = max;
    return n;
}

static void plan_threads(struct plan *pl, const cJSON *params, const struct env_cpu *cpu)
{
    const cJSON *th = param_get(params, "threads");
    struct scaling *s = &pl->scale[0];
    pl->nscale = 0;
    memset(s, 0, sizeof *s);
    s->series = "threads";
    if (cJSON_IsArray(th)) {
        for (const cJSON *e = th->child; e && s->ncounts < MAX_THREADS; e = e->next)
            s->counts[s->ncounts++] = (int)e->valuedouble;
        pl->nscale = 1;
    } else if (strcmp(th->valuestring, "sweep") == 0) {
        s->ncounts = doubling(pl->tmax, s->counts);
        pl->nscale = 1;
    }
    if (!param_bool(params, "clusters"))
        return;
    int multi = 0;
    for (int i = 0; i < cpu->nclusters; i++)
        multi += env_cpulist_count(cpu->clusters[i]) >= 2;
    if (cpu->nclusters < 2 || multi < 2) {
        skip(pl, "per-cluster thread scaling",
             cpu->nclusters == 0 ? "sysfs reports no CPU clusters"
                                 : "sysfs reports no two clusters of several CPUs (nothing to compare)");
        return;
    }
    for (int i = 0; i < cpu->nclusters && pl->nscale < 1 + MAX_CLUSTERS; i++) {
        struct scaling *c = &pl->scale[pl->nscale];
        memset(c, 0, sizeof *c);
        int n = expand_cpulist(cpu->clusters[i], c->cpus, MAX_THREADS);
        if (n < 2)
            continue;
        c->series = "cluster";
        snprintf(c->cpulist, sizeof c->cpulist, "%s", cpu->clusters[i]);
        c->ncounts = doubling(n, c->counts);
        pl->nscale++;
    }
}

static double auto_max_size(double cache_total)
{
    double s = 3.0 * 4.0 * cache_total;      /* each of the three arrays 4x all caches */
    return s > DRAM_FLOOR ? s : DRAM_FLOOR;
}

static double largest_size(const cJSON *params, double auto_max)
{
    const cJSON *sz = param_get(params, "sizes");
    double m = 0;
    if (cJSON_IsArray(sz)) {
        for (const cJSON *e = sz->child; e; e = e->next)
            m = fmax(m, e->valuedouble);
        return m;
    }
    return cJSON_IsNumber(param_get(params, "max_size")) ? param_num(params, "max_size") : auto_max;
}

int bw_precheck(const cJSON *params, char *err, size_t errlen)
{
    struct env_cpu cpu;
    char want[32], have[32];
    env_cpu(&cpu);
    const cJSON *sz = param_get(params, "sizes");
    double top = largest_size(params, 0);
    double avail = env_mem_available();
    if (!cJSON_IsArray(sz) && cJSON_IsNumber(param_get(params, "max_size"))
        && param_num(params, "min_size") > param_num(params, "max_size")) {
        snprintf(err, errlen, "bandwidth: min_size (%s) is larger than max_size (%s)",
                 units_format_bytes(param_num(params, "min_size"), want, sizeof want),
                 units_format_bytes(param_num(params, "max_size"), have, sizeof have));
        return -1;
    }
    if (top > 0 && isfinite(avail) && top > MEM_SHARE * avail) {
        snprintf(err, errlen, "bandwidth: a working set of %s does not fit in memory: %s available "
                 "(MemAvailable), of which the arrays may use %.0f %%",
                 units_format_bytes(top, want, sizeof want), units_format_bytes(avail, have, sizeof have),
                 MEM_SHARE * 100);
        return -1;
    }
    return 0;
}

/* ---- measuring ---- */

static void add_stats(cJSON *rec, const double *x, int n, double bytes, double bytes_wa)
{
    struct stats s;
    stats_compute(x, n, &s);
    cJSON *t = cJSON_AddObjectToObject(rec, "time_s");
    cJSON_AddNumberToObject(t, "min", s.min);
    cJSON_AddNumberToObject(t, "median", s.median);
    cJSON_AddNumberToObject(t, "max", s.max);
    cJSON_AddNumberToObject(t, "mean", s.mean);
    cJSON_AddNumberToObject(t, "sd", s.sd);
    cJSON_AddNumberToObject(t, "cv", s.cv);
    cJSON_AddNumberToObject(t, "ci95_lo", s.ci_lo);
    cJSON_AddNumberToObject(t, "ci95_hi", s.ci_hi);
    cJSON_AddNumberToObject(rec, "gbps_best", bytes / s.min / 1e9);
    cJSON_AddNumberToObject(rec, "gbps_median", bytes / s.median / 1e9);
    cJSON_AddNumberToObject(rec, "gbps_best_wa", bytes_wa / s.min / 1e9);
}

static cJSON *new_record(const struct bw_arrays *x, enum bw_kernel k, const char *series)
{
    const struct bw_kernel_info *ki = &bw_kernels[k];
    double es = (double)bw_prec_size[x->prec], n = (double)x->n;
    cJSON *rec = cJSON_CreateObject();
    cJSON_AddStringToObject(rec, "kernel", ki->name);
    cJSON_AddStringToObject(rec, "precision", bw_prec_names[x->prec]);
    cJSON_AddStringToObject(rec, "series", series);
    cJSON_AddNumberToObject(rec, "threads", x->threads);
    cJSON_AddNumberToObject(rec, "n", n);
    cJSON_AddNumberToObject(rec, "array_bytes", n * es);
    cJSON_AddNumberToObject(rec, "working_set_bytes", (ki->reads + ki->writes) * n * es);
    cJSON_AddNumberToObject(rec, "bytes_per_pass", (ki->reads + ki->writes) * n * es);
    cJSON_AddNumberToObject(rec, "bytes_per_pass_wa", (ki->reads + 2 * ki->writes) * n * es);
    cJSON_AddNumberToObject(rec, "flops_per_pass", ki->flops * n);
    return rec;
}

/* Passes per sample so that one sample lasts at least sample_s. The pass time is the fastest
 * of a few tries, so one preempted try on a busy machine does not fix the count at 1. */
static long calibrate(const struct bw_ops *ops, struct bw_arrays *x, enum bw_kernel k, double sample_s)
{
    long iters = 1;
    for (int round = 0; round < 30; round++) {
        double t = INFINITY;
        for (int tries = 0; tries < 3; tries++)
            t = fmin(t, ops->run(x, k, iters));
        if (t >= sample_s)
            break;
        double grow = t > 0 ? 1.2 * sample_s / t : 10.0;
        iters = (long)ceil((double)iters * fmin(fmax(grow, 1.5), 1000.0));
        if (iters > 1000000000L)
            break;
    }
    return iters;
}

static cJSON *measure(const struct bw_ops *ops, struct bw_arrays *x, enum bw_kernel k,
                      const struct plan *pl, double budget_s, const char *series)
{
    cJSON *rec = new_record(x, k, series);
    ops->run(x, k, 1);
    double err = ops->check(x, k), tol = bw_tolerance(x->prec);
    cJSON_AddNumberToObject(rec, "max_rel_error", isfinite(err) ? err : 1e308);
    cJSON_AddNumberToObject(rec, "tolerance", tol);
    cJSON_AddBoolToObject(rec, "valid", err <= tol);
    if (!(err <= tol)) {
        char msg[160];
        snprintf(msg, sizeof msg, "validation failed: relative error %.3g exceeds %.0e; not timed", err, tol);
        cJSON_AddStringToObject(rec, "error", msg);
        return rec;
    }
    long iters = calibrate(ops, x, k, pl->sample_s);
    for (int w = 0; w < pl->warmup; w++)
        ops->run(x, k, iters);
    struct stats_rule rule = pl->rule;
    rule.budget_s = budget_s;
    double *samples = xmalloc((size_t)rule.max_reps * sizeof *samples), t0 = timing_now();
    int n = 0;
    enum stats_stop stop;
    do {
        samples[n++] = ops->run(x, k, iters) / (double)iters;
    } while ((stop = stats_should_stop(&rule, samples, n, timing_now() - t0)) == STATS_GO_ON);
    cJSON_AddNumberToObject(rec, "iters_per_sample", (double)iters);
    cJSON_AddNumberToObject(rec, "warmup", pl->warmup);
    cJSON_AddStringToObject(rec, "stop", stats_stop_name(stop));
    cJSON_AddItemToObject(rec, "samples_s", cJSON_CreateDoubleArray(samples, n));
    add_stats(rec, samples, n, json_num(rec, "bytes_per_pass", NAN), json_num(rec, "bytes_per_pass_wa", NAN));
    free(samples);
    return rec;
}

/* ---- the run ---- */

struct run_state {
    const struct bw_ops *ops;
    struct plan *pl;
    cJSON *results;
    int done, total;
    double per_point;               /* seconds of repetitions per measurement */
};

static void measure_config(struct run_state *rs, enum bw_prec p, double size, int threads,
                           const int *cpus, const char *series, const char *cpulist)
{
    struct plan *pl = rs->pl;
    struct bw_arrays x;
    char err[256], item[128], sz[32], avail[32];
    double es = (double)bw_prec_size[p];
    size_t n = (size_t)(size / (3.0 * es)) / 16 * 16;
    if (n < 16)
        n = 16;
    units_format_bytes(3.0 * (double)n * es, sz, sizeof sz);
    snprintf(item, sizeof item, "%s %s, %d threads%s%s", bw_prec_names[p], sz, threads,
             cpulist ? " on CPUs " : "", cpulist ? cpulist : "");
    double have = env_mem_available();
    if (isfinite(have) && 3.0 * (double)n * es > MEM_SHARE * have) {
        snprintf(err, sizeof err, "needs %s of arrays; only %s available now", sz,
                 units_format_bytes(have, avail, sizeof avail));
        skip(pl, item, err);
        rs->done += pl->nk;
        return;
    }
    if (rs->ops->alloc(&x, n, p, threads, cpus, pl->first_touch, err, sizeof err) != 0) {
        skip(pl, item, err);
        rs->done += pl->nk;
        return;
    }
    for (int i = 0; i < pl->nk; i++) {
        enum bw_kernel k = pl->kernels[i];
        char step[160];
        snprintf(step, sizeof step, "%s %s", bw_kernels[k].name, item);
        progress_step(rs->done, step);
        cJSON *rec = measure(rs->ops, &x, k, pl, rs->per_point, series);
        if (cpulist)
            cJSON_AddStringToObject(rec, "cpus", cpulist);
        cJSON_AddItemToArray(rs->results, rec);
        rs->done++;
    }
    rs->ops->release(&x);
}

static cJSON *info_json(const struct plan *pl, const struct env_cpu *cpu, double max_size)
{
    double levels[8];
    int top = env_cache_levels(cpu, levels);
    cJSON *info = cJSON_CreateObject();
    cJSON_AddStringToObject(info, "device", "cpu");
    cJSON_AddNumberToObject(info, "threads_max", pl->tmax);
    cJSON_AddNumberToObject(info, "timer_tick_s", pl->tick);
    cJSON_AddNumberToObject(info, "sample_s", pl->sample_s);
    cJSON_AddNumberToObject(info, "caches_total_bytes", pl->cache_total);
    cJSON_AddStringToObject(info, "caches_source", cpu->cache_source);
    cJSON_AddItemToObject(info, "cache_levels_bytes", cJSON_CreateDoubleArray(levels, top));
    cJSON_AddNumberToObject(info, "dram_threshold_bytes", pl->auto_max);
    cJSON_AddNumberToObject(info, "largest_bytes", max_size);
    cJSON_AddStringToObject(info, "byte_convention",
        "bytes = arrays the kernel names x n x element size, as STREAM counts; the write-allocate "
        "view adds one read of each written array");
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

static double plan_max_size(struct plan *pl, const cJSON *params)
{
    double max_size = largest_size(params, pl->auto_max), avail = env_mem_available();
    if (!cJSON_IsString(param_get(params, "max_size")) || cJSON_IsArray(param_get(params, "sizes")))
        return max_size;
    if (isfinite(avail) && max_size > MEM_SHARE * avail) {
        char a[32], b[32], c[32], msg[256];
        double capped = pow(2.0, floor(log2(MEM_SHARE * avail)));
        snprintf(msg, sizeof msg, "4x all caches per array needs %s; limited to %s by available memory (%s)",
                 units_format_bytes(max_size, a, sizeof a), units_format_bytes(capped, b, sizeof b),
                 units_format_bytes(avail, c, sizeof c));
        skip(pl, "largest working set", msg);
        max_size = capped;
    }
    return max_size;
}

cJSON *bw_run(const cJSON *params, double budget_s, char *err, size_t errlen)
{
    struct env_cpu cpu;
    struct plan *pl = xcalloc(1, sizeof *pl);
    (void)err;
    (void)errlen;
    env_cpu(&cpu);
    pl->skipped = cJSON_CreateArray();
    pl->tmax = omp_get_max_threads();
    pl->cache_total = env_cache_total(&cpu);
    pl->auto_max = auto_max_size(pl->cache_total);
    pl->tick = timing_tick();
    pl->sample_s = fmax(param_num(params, "sample_s"), 20.0 * pl->tick);
    pl->warmup = (int)param_num(params, "warmup");
    pl->first_touch = param_bool(params, "first_touch");
    pl->rule = (struct stats_rule){ (int)param_num(params, "min_reps"), (int)param_num(params, "max_reps"),
                                    param_num(params, "cv"), 0 };
    if (pl->rule.max_reps < pl->rule.min_reps)
        pl->rule.max_reps = pl->rule.min_reps;
    if (cJSON_IsNumber(param_get(params, "budget_s")))
        budget_s = param_num(params, "budget_s");
    double max_size = plan_max_size(pl, params);
    plan_kernels(pl, params);
    plan_sizes(pl, params, max_size);
    plan_threads(pl, params, &cpu);

    int per_prec = pl->ns;
    for (int s = 0; s < pl->nscale; s++)
        per_prec += pl->scale[s].ncounts;
    struct run_state rs = { &bw_cpu_ops, pl, cJSON_CreateArray(), 0, per_prec * pl->np * pl->nk, 0 };
    rs.per_point = 0.7 * budget_s / (rs.total > 0 ? rs.total : 1);
    progress_begin("bandwidth cpu", rs.total, budget_s);
    for (int i = 0; i < pl->np; i++) {
        enum bw_prec p = pl->precs[i];
        for (int s = 0; s < pl->ns; s++)
            measure_config(&rs, p, pl->sizes[s], pl->tmax, NULL, "size", NULL);
        for (int s = 0; s < pl->nscale; s++) {
            const struct scaling *sc = &pl->scale[s];
            for (int t = 0; t < sc->ncounts; t++)
                measure_config(&rs, p, pl->sizes[pl->ns - 1], sc->counts[t], sc->cpulist[0] ? sc->cpus : NULL,
                               sc->series, sc->cpulist[0] ? sc->cpulist : NULL);
        }
    }
    progress_step(rs.done, "done");
    progress_end();

    cJSON *out = cJSON_CreateObject();
    cJSON_AddItemToObject(out, "results", rs.results);
    cJSON_AddItemToObject(out, "skipped", pl->skipped);
    cJSON_AddItemToObject(out, "info", info_json(pl, &cpu, pl->sizes[pl->ns - 1]));
    free(pl);
    return out;
}
