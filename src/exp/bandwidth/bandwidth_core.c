/* bandwidth_core.c: what the bandwidth family's parts share: the kernel, precision and path
 * tables, the parameter table and its checks, the plan (sizes, kernels, thread counts), and the
 * measuring of one configuration into records (validation before timing, repetitions until the
 * times settle, bytes per kernel computed in one place from the kernel table). The coordinator
 * (bandwidth.c), the GPU part (bandwidth_gpu.c) and the DRAM figure (bandwidth_dram.c) call down
 * into it; it calls none of them. The kernels are the backends' (bandwidth_cpu.c). */
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

const struct bw_kernel_info bw_kernels[BW_NKERNELS] = {
    [BW_COPY] = { "copy", "c[i] = a[i]", 1, 1, 0 },
    [BW_SCALE] = { "scale", "c[i] = s*a[i]", 1, 1, 1 },
    [BW_ADD] = { "add", "c[i] = a[i] + b[i]", 2, 1, 1 },
    [BW_TRIAD] = { "triad", "c[i] = a[i] + s*b[i]", 2, 1, 2 },
    [BW_READ] = { "read", "sum += a[i]", 1, 0, 1 },
    [BW_FILL] = { "fill", "c[i] = s", 0, 1, 0 },
};
const char *const bw_prec_names[BW_NPREC] = { "fp64", "fp32" };
const char *const bw_store_names[BW_NSTORES] = { "cached", "non-temporal" };
const size_t bw_prec_size[BW_NPREC] = { 8, 4 };

#define KiB 1024.0
#define TiB (1024.0 * 1024 * 1024 * 1024)

const struct param bw_params[] = {
    { "device", PARAM_ENUM, PARAM_NOT_KEY, NULL, "cpu|gpu", "cpu", 0, 0,
      "what streams the arrays: the CPU cores (OpenMP) or the first CUDA device" },
    { "kernels", PARAM_ENUM, PARAM_LIST | PARAM_NOT_KEY, "all", "copy|scale|add|triad|read|fill", "all", 0, 0,
      "kernels to run" },
    { "precisions", PARAM_ENUM, PARAM_LIST | PARAM_NOT_KEY, "all", "fp64|fp32", "all", 0, 0,
      "element types" },
    { "sizes", PARAM_SIZE, PARAM_LIST | PARAM_NOT_KEY, "sweep", NULL, "sweep", 3 * KiB, TiB,
      "working sets (the three arrays together), or a sweep from min_size to max_size" },
    { "min_size", PARAM_SIZE, PARAM_NOT_KEY, NULL, NULL, "16KiB", 3 * KiB, TiB,
      "smallest working set of the sweep (inside L1)" },
    { "max_size", PARAM_SIZE, PARAM_NOT_KEY, "auto", NULL, "auto", 3 * KiB, TiB,
      "largest working set; auto: each of the three arrays DRAM-sized (4x all caches, 256 MiB at least)" },
    { "points_per_octave", PARAM_INT, PARAM_NOT_KEY, NULL, NULL, "2", 1, 8,
      "sweep points per doubling of size" },
    { "threads", PARAM_INT, PARAM_LIST | PARAM_NOT_KEY, "sweep|max", NULL, "sweep", 1, 4096,
      "thread counts of the scaling run at the largest size; sweep: 1, 2, 4, ... and all" },
    { "clusters", PARAM_BOOL, PARAM_NOT_KEY, NULL, NULL, "true", 0, 0,
      "also scale threads pinned inside each CPU cluster sysfs reports" },
    { "first_touch", PARAM_BOOL, 0, NULL, NULL, "true", 0, 0,
      "the timing threads initialise the arrays (NUMA placement); false: the main thread" },
    MEASURE_PARAMS("0.025", "5", "100", "1", "0.002"),
    MEASURE_BUDGET_PARAM("seconds for this experiment; auto: its share of the scenario budget"),
    { "alloc", PARAM_ENUM, PARAM_LIST | PARAM_NOT_KEY, "all", "device|managed|managed-prefetch|pinned|malloc", "all", 0, 0,
      "gpu: allocation paths; the size sweep runs on device memory, the others at the largest size" },
    { "transfers", PARAM_BOOL, PARAM_NOT_KEY, NULL, NULL, "true", 0, 0,
      "gpu: host<->device copies through copy engines and SM kernels, pinned and pageable" },
    { "transfer_size", PARAM_SIZE, PARAM_NOT_KEY, NULL, NULL, "256MiB", 1024 * KiB, TiB, "gpu: bytes per copy" },
    { "contention", PARAM_BOOL, PARAM_NOT_KEY, NULL, NULL, "true", 0, 0,
      "gpu: CPU triad and GPU triad alone and at the same time" },
    { "contention_s", PARAM_NUM, 0, NULL, NULL, "2", 0.2, 600, "gpu: seconds each side streams in the contention test" },
    { NULL, 0, 0, NULL, NULL, NULL, 0, 0, NULL },
};

const char *const bw_path_names[BW_NPATHS] = { "host", "device", "managed", "managed-prefetch", "pinned", "malloc" };
const char *const bw_dir_names[BW_NDIRS] = { "h2d", "d2h", "bidirectional" };
const char *const bw_engine_names[BW_NENGINES] = { "copy engine", "SM kernel" };

double bw_tolerance(enum bw_prec p) { return p == BW_FP64 ? 1e-12 : 1e-5; }

/* ---- the plan: what to measure ---- */

void bw_skip(struct bw_plan *pl, const char *item, const char *reason)
{
    measure_skip(pl->skipped, item, reason);
}

static int index_of(const char *name, const char *const *names, int n)
{
    for (int i = 0; i < n; i++)
        if (strcmp(name, names[i]) == 0)
            return i;
    return -1;
}

static void bw_plan_kernels(struct bw_plan *pl, const cJSON *params)
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

void bw_plan_sizes(struct bw_plan *pl, const cJSON *params, double max_size)
{
    const cJSON *sz = param_get(params, "sizes");
    pl->ns = 0;
    if (cJSON_IsArray(sz)) {
        for (const cJSON *e = sz->child; e && pl->ns < BW_MAX_SIZES; e = e->next)
            pl->sizes[pl->ns++] = e->valuedouble;
        qsort(pl->sizes, (size_t)pl->ns, sizeof pl->sizes[0], cmp_double);
        return;
    }
    double lo = param_num(params, "min_size"), step = pow(2.0, 1.0 / param_num(params, "points_per_octave"));
    for (double s = lo; s < max_size * 0.999 && pl->ns < BW_MAX_SIZES - 1; s *= step)
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
    for (int t = 1; t < max && n < BW_MAX_THREADS - 1; t *= 2)
        out[n++] = t;
    out[n++] = max;
    return n;
}

const char *bw_first_cpus(const int *cpus, int n, char *out, size_t len)
{
    int sorted[BW_MAX_THREADS];
    n = n < BW_MAX_THREADS ? n : BW_MAX_THREADS;
    memcpy(sorted, cpus, (size_t)n * sizeof *sorted);
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && sorted[j] < sorted[j - 1]; j--) {
            int t = sorted[j];
            sorted[j] = sorted[j - 1];
            sorted[j - 1] = t;
        }
    machine_cpulist_format(sorted, n, out, len);
    return out;
}

/* Position of cpu in the pinning order (machine_cpu's place); CPUs not in it last. */
static int place_of(const struct machine_cpu *cpu, int c)
{
    for (int i = 0; i < cpu->nplace; i++)
        if (cpu->place[i] == c)
            return i;
    return cpu->nplace + c;
}

/* Sorts cpus by place_of: on a heterogeneous CPU a cluster's fast cores come first. */
static void by_place(const struct machine_cpu *cpu, int *cpus, int n)
{
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && place_of(cpu, cpus[j]) < place_of(cpu, cpus[j - 1]); j--) {
            int t = cpus[j];
            cpus[j] = cpus[j - 1];
            cpus[j - 1] = t;
        }
}

/* One series per kind of core (GB10: Cortex-X925, Cortex-A725), its threads pinned on its own
 * cores one per cluster in turn; returns how many it added. */
static int plan_kinds(struct bw_plan *pl, const struct machine_cpu *cpu)
{
    int added = 0;
    for (int k = 0; k < cpu->nkinds && cpu->nkinds >= 2 && pl->nscale < 1 + BW_MAX_CLUSTERS + MACHINE_MAX_KINDS; k++) {
        struct bw_scaling *c = &pl->scale[pl->nscale];
        memset(c, 0, sizeof *c);
        int n = expand_cpulist(cpu->kinds[k].cpus, c->cpus, BW_MAX_THREADS);
        if (n < 2)
            continue;
        by_place(cpu, c->cpus, n);
        c->series = "cluster";
        snprintf(c->cpulist, sizeof c->cpulist, "%s", cpu->kinds[k].cpus);
        c->ncounts = doubling(n, c->counts);
        pl->nscale++;
        added++;
    }
    return added;
}

void bw_plan_threads(struct bw_plan *pl, const cJSON *params, const struct machine_cpu *cpu)
{
    const cJSON *th = param_get(params, "threads");
    struct bw_scaling *s = &pl->scale[0];
    pl->nscale = 0;
    memset(s, 0, sizeof *s);
    s->series = "threads";
    if (cpu->nplace >= 2) {         /* heterogeneous: t threads on the first t CPUs of the order */
        for (int i = 0; i < cpu->nplace && i < BW_MAX_THREADS; i++)
            s->cpus[s->pinned++] = cpu->place[i];
    }
    if (cJSON_IsArray(th)) {
        for (const cJSON *e = th->child; e && s->ncounts < BW_MAX_THREADS; e = e->next)
            s->counts[s->ncounts++] = (int)e->valuedouble;
        pl->nscale = 1;
    } else if (strcmp(th->valuestring, "sweep") == 0) {
        s->ncounts = doubling(pl->tmax, s->counts);
        pl->nscale = 1;
    }
    if (!param_bool(params, "clusters"))
        return;
    int kinds = plan_kinds(pl, cpu);
    int multi = 0;
    for (int i = 0; i < cpu->nclusters; i++)
        multi += machine_cpulist_count(cpu->clusters[i]) >= 2;
    if (cpu->nclusters < 2 || multi < 2) {
        if (!kinds)
            bw_skip(pl, "per-cluster thread scaling",
                 cpu->nclusters == 0 ? "sysfs reports no CPU clusters"
                                     : "sysfs reports no two clusters of several CPUs (nothing to compare)");
        return;
    }
    for (int i = 0; i < cpu->nclusters && pl->nscale < 1 + BW_MAX_CLUSTERS + kinds; i++) {
        struct bw_scaling *c = &pl->scale[pl->nscale];
        memset(c, 0, sizeof *c);
        int n = expand_cpulist(cpu->clusters[i], c->cpus, BW_MAX_THREADS);
        by_place(cpu, c->cpus, n);          /* a mixed cluster: its fast cores first */
        if (n < 2)
            continue;
        c->series = "cluster";
        snprintf(c->cpulist, sizeof c->cpulist, "%s", cpu->clusters[i]);
        c->ncounts = doubling(n, c->counts);
        pl->nscale++;
    }
}

double bw_dram_working_set(double cache_total)
{
    return 3.0 * measure_dram_bytes(cache_total);     /* each of the three arrays DRAM-sized */
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
    char want[32], have[32];
    const cJSON *sz = param_get(params, "sizes");
    double top = largest_size(params, 0);
    double avail = machine_mem_available();
    const char *where = "(MemAvailable)";
    if (strcmp(param_str(params, "device"), "gpu") == 0) {
        struct cuda_info ci;
        cuda_probe(&ci);
        if (ci.ndev == 0)
            return 0;           /* the run records every GPU item as not measured, with the reason */
        avail = ci.dev[0].mem_free_bytes;
        where = "(free device memory)";
    }
    if (!cJSON_IsArray(sz) && cJSON_IsNumber(param_get(params, "max_size"))
        && param_num(params, "min_size") > param_num(params, "max_size")) {
        snprintf(err, errlen, "bandwidth: min_size (%s) is larger than max_size (%s)",
                 units_format_bytes(param_num(params, "min_size"), want, sizeof want),
                 units_format_bytes(param_num(params, "max_size"), have, sizeof have));
        return -1;
    }
    if (top > 0 && isfinite(avail) && top > BW_MEM_SHARE * avail) {
        snprintf(err, errlen, "bandwidth: a working set of %s does not fit in memory: %s available "
                 "%s, of which the arrays may use %.0f %%",
                 units_format_bytes(top, want, sizeof want), units_format_bytes(avail, have, sizeof have),
                 where, BW_MEM_SHARE * 100);
        return -1;
    }
    return 0;
}

/* ---- measuring ---- */

void bw_add_rates(cJSON *rec, double bytes, double bytes_wa)
{
    if (measure_rates(rec, "gbps", bytes) == 0 && bytes_wa > 0)
        cJSON_AddNumberToObject(rec, "gbps_best_wa", bytes_wa / measure_time(rec, "min") / 1e9);
}

double bw_bytes_moved(const struct bw_kernel_info *ki, double n, double es, int stores_allocate)
{
    return (ki->reads + (stores_allocate ? 2 : 1) * ki->writes) * n * es;
}

static cJSON *new_record(const struct bw_ops *ops, const struct bw_arrays *x, enum bw_kernel k, const char *series)
{
    const struct bw_kernel_info *ki = &bw_kernels[k];
    double es = (double)bw_prec_size[x->prec], n = (double)x->n;
    int nt = ki->writes > 0 && x->stores == BW_STORES_NT && x->nontemporal;
    cJSON *rec = cJSON_CreateObject();
    cJSON_AddStringToObject(rec, "kernel", ki->name);
    cJSON_AddStringToObject(rec, "alloc", bw_path_names[x->path]);
    cJSON_AddStringToObject(rec, "precision", bw_prec_names[x->prec]);
    cJSON_AddStringToObject(rec, "series", series);
    cJSON_AddStringToObject(rec, "stores", ki->writes == 0 ? "none" : bw_store_names[nt]);
    cJSON_AddNumberToObject(rec, "threads", x->threads);
    cJSON_AddNumberToObject(rec, "n", n);
    cJSON_AddNumberToObject(rec, "array_bytes", n * es);
    cJSON_AddNumberToObject(rec, "working_set_bytes", (ki->reads + ki->writes) * n * es);
    cJSON_AddNumberToObject(rec, "bytes_per_pass", (ki->reads + ki->writes) * n * es);
    /* streaming stores allocate no line, so nothing is read before it is written; a GPU's stores
     * never do, and its records have no write-allocate view at all */
    if (ops->store_allocates)
        cJSON_AddNumberToObject(rec, "bytes_per_pass_wa", bw_bytes_moved(ki, n, es, !nt));
    cJSON_AddNumberToObject(rec, "flops_per_pass", ki->flops * n);
    return rec;
}

struct pass {
    const struct bw_ops *ops;
    struct bw_arrays *x;
    enum bw_kernel k;
    long iters;
};

static double run_passes(void *ud, long iters)
{
    struct pass *p = ud;
    return p->ops->run(p->x, p->k, iters);
}

/* Seconds of one pass, from a sample of `iters` passes. */
static double timed_pass(void *ud)
{
    struct pass *p = ud;
    return run_passes(p, p->iters) / (double)p->iters;
}

static cJSON *measure(const struct bw_ops *ops, struct bw_arrays *x, enum bw_kernel k,
                      const struct bw_plan *pl, double budget_s, const char *series)
{
    cJSON *rec = new_record(ops, x, k, series);
    double first = ops->run(x, k, 1);
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
    struct pass p = { ops, x, k, 1 };
    struct measure_rule rule = pl->rule;
    p.iters = measure_iterations(run_passes, &p, rule.sample_s, first);
    cJSON_AddNumberToObject(rec, "first_pass_s", first);
    cJSON_AddNumberToObject(rec, "iters_per_sample", (double)p.iters);
    rule.budget_s = budget_s;
    measure_repeat(rec, &rule, timed_pass, &p);
    bw_add_rates(rec, json_num(rec, "bytes_per_pass", NAN), json_num(rec, "bytes_per_pass_wa", NAN));
    return rec;
}

/* ---- the run ---- */

/* Beyond the caches (the three arrays together exceed all caches), kernels that write use
 * non-temporal stores where the backend has them, and each size point also records the same
 * kernel with cached stores (series "stores"): both kinds are measured, the headline says
 * which it is. */
static int beyond_caches(const struct bw_plan *pl, double size)
{
    return pl->cache_total > 0 && size > pl->cache_total;
}

/* The measurements a configuration counts for progress. */
int bw_config_slots(const struct bw_plan *pl, double size, const char *series)
{
    int n = pl->nk;
    if (beyond_caches(pl, size) && strcmp(series, "size") == 0)
        for (int i = 0; i < pl->nk; i++)
            n += bw_kernels[pl->kernels[i]].writes > 0;
    return n;
}

static void measure_one(struct bw_run_state *rs, struct bw_arrays *x, enum bw_kernel k, const char *item,
                        const char *series, const char *cpulist)
{
    char step[200];
    snprintf(step, sizeof step, "%s %s%s", bw_kernels[k].name, item,
             x->stores == BW_STORES_NT && x->nontemporal && bw_kernels[k].writes ? ", non-temporal stores" : "");
    progress_step(rs->done, step);
    cJSON *rec = measure(rs->ops, x, k, rs->pl, rs->per_point, series);
    if (cpulist)
        cJSON_AddStringToObject(rec, "cpus", cpulist);
    cJSON_AddItemToArray(rs->results, rec);
    rs->done++;
}

/* The hardware counters at the DRAM-sized point (once a run): a cached fill's last-level misses per
 * line it writes against the read's per line it reads (dram.h's measure_counters). */
static void count_misses(struct bw_run_state *rs, struct bw_arrays *x)
{
    struct measure_counters *hw = &rs->hw;
    rs->hw_tried = 1;
    hw->readable = 0;
    if (!rs->ops->count_misses) {
        snprintf(hw->why, sizeof hw->why, "this backend has no counters");
        return;
    }
    if (rs->ops->count_misses(x, BW_FILL, &hw->fill_per_line, hw->why, sizeof hw->why) == 0
        && rs->ops->count_misses(x, BW_READ, &hw->read_per_line, hw->why, sizeof hw->why) == 0)
        hw->readable = hw->read_per_line > 0;
    if (!hw->readable && !hw->why[0])
        snprintf(hw->why, sizeof hw->why, "the read counted no misses");
}

void bw_measure_config(struct bw_run_state *rs, enum bw_prec p, double size, enum bw_path path,
                       int threads, const int *cpus, const char *series, const char *cpulist,
                       double mem_limit)
{
    struct bw_plan *pl = rs->pl;
    struct bw_arrays x;
    char err[256], item[160], sz[32], avail[32];
    double es = (double)bw_prec_size[p];
    size_t n = (size_t)(size / (3.0 * es)) / 16 * 16;
    if (n < 16)
        n = 16;
    units_format_bytes(3.0 * (double)n * es, sz, sizeof sz);
    if (path == BW_PATH_HOST)
        snprintf(item, sizeof item, "%s %s, %d threads%s%s", bw_prec_names[p], sz, threads,
                 cpulist ? " on CPUs " : "", cpulist ? cpulist : "");
    else
        snprintf(item, sizeof item, "%s %s, %s memory", bw_prec_names[p], sz, bw_path_names[path]);
    if (isfinite(mem_limit) && 3.0 * (double)n * es > mem_limit) {
        snprintf(err, sizeof err, "needs %s of arrays; only %s may be used now", sz,
                 units_format_bytes(mem_limit, avail, sizeof avail));
        bw_skip(pl, item, err);
        rs->done += bw_config_slots(pl, size, series);
        return;
    }
    struct bw_layout l = { n, p, path, threads, cpus, pl->first_touch };
    int end = rs->done + bw_config_slots(pl, size, series);
    if (rs->ops->alloc(&x, &l, err, sizeof err) != 0) {
        bw_skip(pl, item, err);
        rs->done = end;
        return;
    }
    int beyond = x.nontemporal && beyond_caches(pl, size);
    for (int i = 0; i < pl->nk && !progress_stopping(); i++) {    /* a signal: keep what we have */
        enum bw_kernel k = pl->kernels[i];
        x.stores = beyond ? BW_STORES_NT : BW_STORES_CACHED;
        measure_one(rs, &x, k, item, series, cpulist);
        if (beyond && bw_kernels[k].writes > 0 && strcmp(series, "size") == 0 && !progress_stopping()) {
            x.stores = BW_STORES_CACHED;
            measure_one(rs, &x, k, item, "stores", cpulist);
        }
    }
    if (!progress_stopping())
        rs->done = end;             /* a backend without streaming stores measured no twins */
    if (beyond && strcmp(series, "size") == 0 && threads == pl->tmax && !rs->hw_tried && !progress_stopping())
        count_misses(rs, &x);
    rs->ops->release(&x);
}

double bw_plan_max_size(struct bw_plan *pl, const cJSON *params)
{
    double max_size = largest_size(params, pl->auto_max), avail = machine_mem_available();
    if (!cJSON_IsString(param_get(params, "max_size")) || cJSON_IsArray(param_get(params, "sizes")))
        return max_size;
    if (isfinite(avail) && max_size > BW_MEM_SHARE * avail) {
        char a[32], b[32], c[32], msg[256];
        double capped = pow(2.0, floor(log2(BW_MEM_SHARE * avail)));
        snprintf(msg, sizeof msg, "4x all caches per array needs %s; limited to %s by available memory (%s)",
                 units_format_bytes(max_size, a, sizeof a), units_format_bytes(capped, b, sizeof b),
                 units_format_bytes(avail, c, sizeof c));
        bw_skip(pl, "largest working set", msg);
        max_size = capped;
    }
    return max_size;
}

void bw_plan_common(struct bw_plan *pl, const cJSON *params)
{
    pl->skipped = cJSON_CreateArray();
    pl->tick = timing_tick();
    measure_rule_from(&pl->rule, params);
    pl->first_touch = param_bool(params, "first_touch");
    bw_plan_kernels(pl, params);
}

struct bw_plan *bw_plan_cpu(const cJSON *params, struct machine_cpu *cpu)
{
    struct bw_plan *pl = xcalloc(1, sizeof *pl);
    machine_cpu(cpu);
    bw_plan_common(pl, params);
    pl->tmax = omp_get_max_threads();
    pl->cache_total = machine_cache_total(cpu);
    pl->auto_max = bw_dram_working_set(pl->cache_total);
    return pl;
}
