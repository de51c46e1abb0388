/* tenants.c: the tenants experiment's run (tenants.h): its parameters, the plan (tenant counts,
 * jobs, each tenant's threads and working set, from the machine and the time budget), one group
 * of N tenant processes per job and count (tenants_spawn.c), the records they write, and what the
 * records of one job mean together (tenants_derive: slowdown, share, the CPUs' bound). Why
 * processes: separate users' jobs are separate processes, each with its own address space, its
 * own OpenMP team and BLAS threads (or its own CUDA context, which the GPU time-slices), none of
 * which threads in one process would have. */
#include "exp/tenants/tenants.h"
#include "exp/tenants/tenants_int.h"

#include <math.h>
#include <omp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cuda/cuda.h"
#include "exp/bandwidth/bandwidth.h"
#include "exp/train/train.h"
#include "measure/backend.h"
#include "measure/dram.h"
#include "measure/measure.h"
#include "util/error.h"
#include "util/json.h"
#include "util/machine.h"
#include "util/progress.h"
#include "util/timing.h"
#include "util/units.h"

#define KiB 1024.0
#define TiB (1024.0 * 1024 * 1024 * 1024)
#define MAX_COUNTS 16
#define MEM_SHARE 0.6           /* of the free memory all tenants' arrays together may take, as the
                                   bandwidth family's arrays may */
#define TIME_FLOOR (48.0 * 1024 * 1024)     /* the least working set the time budget may leave a tenant */
#define SETUP_SHARE 0.4         /* of the stream's budget its tenants may take to first-touch their arrays */
#define TIME_SHARE 0.5          /* of the stream's budget its passes may take by the DRAM figure's
                                   arithmetic; the rest starts processes and absorbs noise */
#define REPEAT_SHARE 0.5        /* of a group's share of the budget its repetitions may take */
#define HANG_S 60.0             /* the longest a group may take beyond its budget before it is
                                   given up (set-up, and the records): a guard, not a budget */

const struct param tenants_params[] = {
    { "device", PARAM_ENUM, 0, NULL, "cpu|gpu", "cpu", 0, 0,
      "where the tenants run: the CPU cores, or the first CUDA device (N processes on one GPU, which "
      "time-slices them)" },
    { "jobs", PARAM_ENUM, PARAM_LIST | PARAM_NOT_KEY, "all", "stream|train", "all", 0, 0,
      "each tenant's job: a bandwidth stream (the bandwidth family's kernel), a training step (the train "
      "family's)" },
    { "tenants", PARAM_INT, PARAM_LIST | PARAM_NOT_KEY, NULL, NULL, "1,2,4", 1, 64,
      "tenant counts, each a group of that many processes at once; 1 is always run (the alone figure every "
      "slowdown divides by)" },
    { "threads", PARAM_INT, PARAM_NOT_KEY, "share|all", NULL, "share", 1, 4096,
      "CPU: OpenMP threads of each tenant; share: the run's threads split evenly among the N tenants (one at "
      "least), as a scheduler that gives each job its share of the cores would; all: each tenant the run's "
      "threads, as users who do not know of each other would (N-fold oversubscribed)" },
    { "kernel", PARAM_ENUM, PARAM_NOT_KEY, NULL, "triad|read", "triad", 0, 0, "the stream's bandwidth kernel" },
    { "precision", PARAM_ENUM, PARAM_NOT_KEY, NULL, "fp64|fp32", "fp64", 0, 0, "the stream's elements" },
    { "size", PARAM_SIZE, PARAM_NOT_KEY, "auto", NULL, "auto", 3 * KiB, TiB,
      "working set of one tenant's three stream arrays; auto: the DRAM rule (each array 4x all caches), "
      "within the free memory all tenants share and the time budget, never below twice all caches" },
    { "shape", PARAM_ENUM, PARAM_NOT_KEY, NULL, "tiny|small|medium|gpt2-small", "small", 0, 0,
      "the training step's model (the train experiment's presets)" },
    { "train_precision", PARAM_ENUM, PARAM_NOT_KEY, NULL, "fp32|bf16|fp8", "fp32", 0, 0,
      "the training step's precision (fp8: GPU only)" },
    /* no warm-up by default: every tenant runs its job untimed until all of its round do, which warms it */
    MEASURE_PARAMS("0.05", "3", "20", "0", "0.002"),
    MEASURE_BUDGET_PARAM("seconds for this experiment; auto: its share of the scenario budget"),
    { NULL, 0, 0, NULL, NULL, NULL, 0, 0, NULL },
};

enum { JOB_STREAM = 0, JOB_TRAIN, NJOBS };
static const char *const job_names[NJOBS] = { "stream", "train" };

struct plan {
    const char *device;
    int counts[MAX_COUNTS], nc, sum;    /* ascending, 1 first; sum: tenants over all groups */
    int jobs[NJOBS], nj;
    int threads_max, cpus;              /* the run's OpenMP threads; CPUs this process may run on */
    int share;                          /* threads = share: threads_max / N per tenant */
    double caches;                      /* bytes: all caches (CPU), L2 (GPU) */
    double size;                        /* one tenant's three stream arrays, bytes */
    double touch_gbps;                  /* the first-touch rate that made the stream smaller; 0: none */
    int size_auto;                      /* size is the rule's, not the scenario's */
    char size_rule[600];                /* how size was chosen, in words */
    cJSON *dram;                        /* the DRAM figure the time limit used, or NULL */
    cJSON *skipped;
};

static int job_wanted(const cJSON *params, int j)
{
    const cJSON *list = param_get(params, "jobs"), *e;
    if (cJSON_IsString(list))
        return 1;
    cJSON_ArrayForEach(e, list)
        if (strcmp(e->valuestring, job_names[j]) == 0)
            return 1;
    return 0;
}

static int cmp_int(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }

/* The counts asked for, 1 added, ascending, each once. */
static void plan_counts(struct plan *pl, const cJSON *params)
{
    const cJSON *e;
    pl->nc = 0;
    pl->counts[pl->nc++] = 1;
    cJSON_ArrayForEach(e, param_get(params, "tenants")) {
        int n = (int)e->valuedouble, seen = 0;
        for (int i = 0; i < pl->nc; i++)
            seen |= pl->counts[i] == n;
        if (!seen && pl->nc < MAX_COUNTS)
            pl->counts[pl->nc++] = n;
    }
    qsort(pl->counts, (size_t)pl->nc, sizeof pl->counts[0], cmp_int);
    pl->sum = 0;
    for (int i = 0; i < pl->nc; i++)
        pl->sum += pl->counts[i];
}

static int run_cpus(void)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
        return CPU_COUNT(&set);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

/* Free bytes all tenants' arrays may share: MemAvailable, or the GPU's free memory. */
static double free_bytes(const char *device)
{
    if (strcmp(device, "cpu") == 0)
        return machine_mem_available();
    struct cuda_info ci;
    cuda_probe(&ci);
    return ci.ndev > 0 ? ci.dev[CUDA_DEVICE].mem_free_bytes : NAN;
}

static double stream_fraction(const cJSON *params)
{
    const struct bw_kernel_info *k = &bw_kernels[strcmp(param_str(params, "kernel"), "read") == 0 ? BW_READ : BW_TRIAD];
    return (k->reads + k->writes) / 3.0;
}

/* One tenant's working set when size is auto: the DRAM rule, within the memory the tenants share and
 * (on the CPU) the time the stream's passes may take at the DRAM figure: every tenant of the pool
 * validates with one pass, then each round's tenants warm up and repeat. What first-touching it
 * costs is watched while the tenants set up (run_job). The rule text says whether the result is
 * beyond all caches the machine reports; it is measured either way. */
static void plan_size(struct plan *pl, const cJSON *params, double stream_budget)
{
    char a[32], b[32];
    int top = pl->counts[pl->nc - 1];
    if (cJSON_IsNumber(param_get(params, "size"))) {
        pl->size = param_num(params, "size");
        snprintf(pl->size_rule, sizeof pl->size_rule, "as the scenario set it: %s per tenant",
                 units_format_bytes(pl->size, a, sizeof a));
        return;
    }
    double want = bw_dram_working_set(pl->caches), room = MEM_SHARE * free_bytes(pl->device) / top, size = want;
    const char *by = "the DRAM rule (each array 4x all caches, 256 MiB at least)";
    pl->size_auto = 1;
    if (isfinite(room) && room < size) {
        size = room;
        by = "the free memory all tenants share";
    }
    struct measure_dram d;
    char err[300];
    if (strcmp(pl->device, "cpu") == 0 && measure_dram("tenants", &d, err, sizeof err) == 0) {
        double f = stream_fraction(params), rounds = param_num(params, "warmup") + param_num(params, "min_reps");
        double timed = TIME_SHARE * stream_budget * d.gbps * 1e9 / ((top + pl->sum * rounds) * f);
        pl->dram = measure_dram_json(&d);
        if (timed < size) {
            size = fmax(timed, TIME_FLOOR);
            by = "the time its passes may take at the DRAM figure";
        }
    }
    pl->size = size;
    snprintf(pl->size_rule, sizeof pl->size_rule, "%s per tenant (its three arrays), set by %s; the DRAM rule asks %s",
             units_format_bytes(size, a, sizeof a), by, units_format_bytes(want, b, sizeof b));
}

static void plan_make(struct plan *pl, const cJSON *params, double budget_s)
{
    memset(pl, 0, sizeof *pl);
    pl->device = param_str(params, "device");
    pl->skipped = cJSON_CreateArray();
    pl->cpus = run_cpus();
    pl->threads_max = cJSON_IsNumber(param_get(params, "threads")) ? (int)param_num(params, "threads") : omp_get_max_threads();
    pl->share = cJSON_IsString(param_get(params, "threads")) && strcmp(param_str(params, "threads"), "share") == 0;
    plan_counts(pl, params);
    for (int j = 0; j < NJOBS; j++)
        if (job_wanted(params, j))
            pl->jobs[pl->nj++] = j;
    if (strcmp(pl->device, "cpu") == 0) {
        struct machine_cpu cpu;
        machine_cpu(&cpu);
        pl->caches = machine_cache_total(&cpu);
    } else {
        struct cuda_info ci;
        cuda_probe(&ci);
        pl->caches = ci.ndev > 0 ? ci.dev[CUDA_DEVICE].l2_bytes : 0;
    }
    char why[300];
    if (job_wanted(params, JOB_STREAM) && backend_for("bandwidth", pl->device, why, sizeof why))
        plan_size(pl, params, budget_s / pl->nj);
}

/* ---- the spec each tenant gets ---- */

static int threads_for(const struct plan *pl, int n)
{
    return !pl->share ? pl->threads_max : pl->threads_max / n > 1 ? pl->threads_max / n : 1;
}

/* Elements of each of a tenant's three arrays for its working set pl->size. */
static double stream_n(const struct plan *pl, const cJSON *spec)
{
    double es = strcmp(json_str(spec, "precision", "fp64"), "fp32") == 0 ? 4 : 8;
    return fmax(16, floor(pl->size / (3 * es) / 16) * 16);
}

static cJSON *spec_new(const struct plan *pl, const cJSON *params, int job)
{
    static const char *const timing[] = { "cv", "min_reps", "max_reps", "warmup", "sample_s" };
    cJSON *s = cJSON_CreateObject();
    cJSON_AddStringToObject(s, "job", job_names[job]);
    cJSON_AddStringToObject(s, "device", pl->device);
    cJSON_AddNumberToObject(s, "tenant", 1);
    cJSON_AddNumberToObject(s, "threads", threads_for(pl, pl->counts[pl->nc - 1]));    /* all set up at once */
    for (size_t i = 0; i < sizeof timing / sizeof timing[0]; i++)
        cJSON_AddNumberToObject(s, timing[i], param_num(params, timing[i]));
    if (job == JOB_STREAM) {
        cJSON_AddStringToObject(s, "kernel", param_str(params, "kernel"));
        cJSON_AddStringToObject(s, "precision", param_str(params, "precision"));
        cJSON_AddNumberToObject(s, "n", stream_n(pl, s));
        cJSON_AddStringToObject(s, "stores", pl->size > pl->caches ? "non-temporal" : "cached");
    } else {
        cJSON_AddStringToObject(s, "shape", param_str(params, "shape"));
        cJSON_AddStringToObject(s, "precision", param_str(params, "train_precision"));
    }
    return s;
}

/* The reference losses of the training job: the first steps of its configuration in CPU FP32, run
 * here once (the train experiment checks other precisions and devices against the same). */
static int train_reference(const cJSON *params, double *loss, char *err, size_t n)
{
    struct train_config cfg;
    char why[512];
    cJSON *given = cJSON_CreateObject();
    cJSON_AddStringToObject(given, "shapes", param_str(params, "shape"));
    cJSON_AddStringToObject(given, "precisions", "fp32");
    cJSON *norm = param_check("train", train_params, given, why, sizeof why);
    cJSON_Delete(given);
    int rc = norm && train_configs(norm, &cfg, 1, why, sizeof why) == 1 ? 0 : -1;
    cJSON_Delete(norm);
    if (rc == 0)
        rc = train_losses(&train_cpu_ops, &cfg, TRAIN_REF_STEPS, loss, why, sizeof why);
    if (rc != 0)
        snprintf(err, n, "the reference run of the training step failed: %s", why);
    return rc;
}

/* ---- checks before any run folder exists ---- */

int tenants_precheck(const cJSON *params, char *err, size_t errlen)
{
    char a[32], b[32];
    struct plan pl;
    const char *device = param_str(params, "device");
    if (strcmp(device, "cpu") == 0 && strcmp(param_str(params, "train_precision"), "fp8") == 0 && job_wanted(params, JOB_TRAIN)) {
        snprintf(err, errlen, "tenants: train_precision fp8 needs device = \"gpu\" (FP8 matmuls are cuBLASLt's; the "
                 "CPU has none)");
        return -1;
    }
    memset(&pl, 0, sizeof pl);
    plan_counts(&pl, params);
    double top = pl.counts[pl.nc - 1], room = MEM_SHARE * free_bytes(device);
    if (cJSON_IsNumber(param_get(params, "size")) && job_wanted(params, JOB_STREAM) && isfinite(room)
        && top * param_num(params, "size") > room) {
        snprintf(err, errlen, "tenants: %d tenants with a working set of %s each do not fit: %s may be used (%.0f %% of "
                 "what is free)", (int)top, units_format_bytes(param_num(params, "size"), a, sizeof a),
                 units_format_bytes(room, b, sizeof b), MEM_SHARE * 100);
        return -1;
    }
    return 0;
}

/* ---- the run ---- */

static const char *exe_path(char *buf, size_t n)
{
    ssize_t len = readlink("/proc/self/exe", buf, n - 1);
    if (len <= 0)
        return NULL;
    buf[len] = '\0';
    return buf;
}

static void skip_job(struct plan *pl, int job, const char *why)
{
    char item[160], list[64] = "";
    size_t o = 0;
    for (int i = 0; i < pl->nc; i++)
        o += (size_t)snprintf(list + o, sizeof list - o, "%s%d", i ? (i == pl->nc - 1 ? " and " : ", ") : "", pl->counts[i]);
    snprintf(item, sizeof item, "%s on the %s, %s tenants", job_names[job], strcmp(pl->device, "gpu") == 0 ? "GPU" : "CPU",
             list);
    measure_skip(pl->skipped, item, why);
}

/* Why a job cannot run here at all (no backend for it on the device; for the training step, its
 * reference run failed), or NULL; the training step's reference losses into ref. */
static const char *job_problem(struct plan *pl, const cJSON *params, int job, double *ref, char *why, size_t n)
{
    if (!backend_for(job == JOB_STREAM ? "bandwidth" : "train", pl->device, why, n))
        return why;
    if (job == JOB_TRAIN && train_reference(params, ref, why, n) != 0)
        return why;
    return NULL;
}

/* The machine's load average over the last minute (/proc/loadavg), NAN when unknown: the processes
 * outside the experiment that shared the machine with a round. */
static double load_avg(void)
{
    double v = NAN;
    FILE *f = fopen("/proc/loadavg", "r");
    if (f && fscanf(f, "%lf", &v) != 1)
        v = NAN;
    if (f)
        fclose(f);
    return v;
}

static void round_json(cJSON *rounds, int job, int n, double load, double seconds)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "series", job_names[job]);
    cJSON_AddNumberToObject(o, "tenants", n);
    if (isfinite(load))
        cJSON_AddNumberToObject(o, "load_avg", load);
    cJSON_AddNumberToObject(o, "elapsed_s", seconds);
    cJSON_AddItemToArray(rounds, o);
}

/* The job's pool, set up: the stream's first touch watched, and when it would take more than its
 * share of the stream's budget the pool is started again with the working set that rate allows
 * (said in the size rule), never below TIME_FLOOR. */
static struct tenants_pool *start_pool(struct plan *pl, const char *exe, cJSON *spec, int job, int top, double budget_s)
{
    char a[32], more[160];
    if (job != JOB_STREAM || strcmp(pl->device, "cpu") != 0 || !pl->size_auto)
        return tenants_pool_start(exe, spec, top, HANG_S + budget_s, 0);
    double setup = SETUP_SHARE * budget_s, t0 = timing_now();
    struct tenants_pool *pool = tenants_pool_start(exe, spec, top, setup, pl->size);
    double rate = tenants_pool_touch_Bps(pool);
    if (rate <= 0 || progress_cut())
        return pool;
    tenants_pool_stop(pool);
    double left = fmax(setup - (timing_now() - t0), 0.5 * setup), size = fmax(rate * left / top, TIME_FLOOR);
    snprintf(more, sizeof more, "; then %s, as its tenants first-touched their arrays at %.2g GB/s together",
             units_format_bytes(size, a, sizeof a), rate / 1e9);
    size_t len = strlen(pl->size_rule);
    snprintf(pl->size_rule + len, sizeof pl->size_rule - len, "%s", more);
    pl->size = size;
    pl->touch_gbps = rate / 1e9;
    cJSON_ReplaceItemInObjectCaseSensitive(spec, "n", cJSON_CreateNumber(stream_n(pl, spec)));
    cJSON_ReplaceItemInObjectCaseSensitive(spec, "stores", cJSON_CreateString(pl->size > pl->caches ? "non-temporal"
                                                                                                    : "cached"));
    return tenants_pool_start(exe, spec, top, HANG_S + budget_s, 0);
}

/* 1 when every two tenants of a round measured at the same time (each started before the other
 * ended, on the one monotonic clock), or when a record has no window (it failed: its error says
 * why). On a loaded machine a tenant held up by the scheduler can start after another has finished:
 * that round did not measure N at once. */
static int at_once(const cJSON *recs)
{
    for (const cJSON *a = recs->child; a; a = a->next)
        for (const cJSON *b = recs->child; b; b = b->next)
            if (a != b && cJSON_GetObjectItemCaseSensitive(a, "started_s") && cJSON_GetObjectItemCaseSensitive(b, "ended_s")
                && !(json_num(a, "started_s", 0) < json_num(b, "ended_s", 0)))
                return 0;
    return 1;
}

/* One job: its pool of tenants set up once, then a round per count, each round's records (with the
 * count) into results, the round's load average and length into rounds; what the time budget left
 * out into skipped. */
static void run_job(struct plan *pl, const cJSON *params, int job, const char *exe, const double *ref, double budget_s,
                    cJSON *results, cJSON *rounds, int *done)
{
    char item[96], why[160];
    int top = pl->counts[pl->nc - 1];
    double t0 = timing_now();
    cJSON *spec = spec_new(pl, params, job);
    if (job == JOB_TRAIN)
        cJSON_AddItemToObject(spec, "ref_loss", cJSON_CreateDoubleArray(ref, TRAIN_REF_STEPS));
    snprintf(item, sizeof item, "%s: %d tenants set up", job_names[job], top);
    progress_step(*done, item);
    struct tenants_pool *pool = start_pool(pl, exe, spec, job, top, budget_s);
    double left = budget_s - (timing_now() - t0);
    for (int c = 0; c < pl->nc; c++, (*done)++) {
        int n = pl->counts[c];
        double share = fmax(left, 0) * n / pl->sum;
        snprintf(item, sizeof item, "%s, %d tenant%s at once", job_names[job], n, n > 1 ? "s" : "");
        if (progress_cut()) {               /* short of time, a round still runs, at the fewest repetitions */
            snprintf(why, sizeof why, progress_stopping() ? "not measured: the run was stopped"
                     : "not measured: the run's deadline passed");
            measure_skip(pl->skipped, item, why);
            continue;
        }
        progress_step(*done, item);
        double load = load_avg(), r0 = timing_now();
        cJSON *recs = tenants_pool_round(pool, n, threads_for(pl, n), fmax(REPEAT_SHARE * share, 0.1), HANG_S + 2 * share);
        for (int again = 0; again < 2 && n > 1 && !at_once(recs) && !progress_cut(); again++) {
            cJSON_Delete(recs);             /* not at once: the round again, said in its records */
            recs = tenants_pool_round(pool, n, threads_for(pl, n), fmax(REPEAT_SHARE * share, 0.1), HANG_S + 2 * share);
            for (cJSON *x = recs->child; x; x = x->next)
                cJSON_AddStringToObject(x, "rerun", "a tenant of the round before started after another had finished: "
                                        "measured again");
        }
        cJSON *r;
        round_json(rounds, job, n, load, timing_now() - r0);
        for (int i = 1; (r = cJSON_DetachItemFromArray(recs, 0)); i++) {
            if (!cJSON_GetObjectItemCaseSensitive(r, "series")) {       /* no line from it: what went wrong */
                cJSON_AddStringToObject(r, "series", job_names[job]);
                cJSON_AddStringToObject(r, "device", pl->device);
                cJSON_AddNumberToObject(r, "tenant", i);
            }
            cJSON_AddNumberToObject(r, "tenants", n);
            cJSON_AddItemToArray(results, r);
        }
        cJSON_Delete(recs);
    }
    tenants_pool_stop(pool);
    cJSON_Delete(spec);
}

cJSON *tenants_run(const cJSON *params, double budget_s, char *err, size_t errlen)
{
    struct plan pl;
    char exe[4096], why[600];
    double ref[TRAIN_REF_STEPS] = { 0 };
    (void)err, (void)errlen;
    budget_s = measure_budget(params, budget_s);
    plan_make(&pl, params, budget_s);
    cJSON *out = cJSON_CreateObject(), *results = cJSON_AddArrayToObject(out, "results");
    if (!exe_path(exe, sizeof exe)) {
        for (int j = 0; j < pl.nj; j++)
            skip_job(&pl, pl.jobs[j], "not measured: this system has no /proc/self/exe to start the tenants from");
        pl.nj = 0;
    }
    cJSON *info = cJSON_AddObjectToObject(out, "info"), *rounds = cJSON_AddArrayToObject(info, "rounds");
    progress_begin(strcmp(pl.device, "cpu") == 0 ? "tenants cpu" : "tenants gpu", pl.nj * pl.nc, budget_s);
    for (int j = 0, done = 0; j < pl.nj; j++) {
        if (job_problem(&pl, params, pl.jobs[j], ref, why, sizeof why)) {
            skip_job(&pl, pl.jobs[j], why);
            done += pl.nc;
            continue;
        }
        run_job(&pl, params, pl.jobs[j], exe, ref, budget_s / pl.nj, results, rounds, &done);
    }
    progress_step(pl.nj * pl.nc, "done");
    progress_end();
    cJSON_AddItemToObject(out, "skipped", pl.skipped);
    tenants_derive(results, cJSON_AddArrayToObject(info, "totals"));
    cJSON_AddStringToObject(info, "device", pl.device);
    cJSON_AddNumberToObject(info, "cpus", pl.cpus);
    cJSON_AddNumberToObject(info, "threads_max", pl.threads_max);
    cJSON_AddStringToObject(info, "threads_rule", pl.share
        ? "Each tenant gets the run's threads divided by N (one at least): the cores are split among the jobs, so "
          "a tenant's slowdown is the cores it lost plus what the others take of the memory system"
        : "Each tenant runs with the run's threads, as alone: N tenants oversubscribe the cores N-fold and the "
          "operating system time-slices their threads");
    cJSON_AddNumberToObject(info, "caches_total_bytes", pl.caches);
    if (pl.size > 0)
        cJSON_AddNumberToObject(info, "working_set_bytes", pl.size);
    if (pl.size > 0) {
        char a[32];
        size_t len = strlen(pl.size_rule);
        snprintf(pl.size_rule + len, sizeof pl.size_rule - len, "; %s all caches the machine reports (%s)",
                 pl.size > pl.caches ? "beyond" : "within", units_format_bytes(pl.caches, a, sizeof a));
    }
    cJSON_AddStringToObject(info, "size_rule", pl.size_rule);
    if (pl.dram)
        cJSON_AddItemToObject(info, "dram", pl.dram);
    if (pl.touch_gbps > 0)
        cJSON_AddNumberToObject(info, "first_touch_gbps", pl.touch_gbps);
    cJSON_AddStringToObject(info, "isolation",
        "each tenant is a separate process, started by the run as a separate user's job would be: its own "
        "address space, arrays and OpenMP team (or its own CUDA context on the one GPU), no pinning; the "
        "operating system (or the GPU's time-slicing) shares the machine among them, and the machine's other "
        "processes are not stopped (rounds: the load average before each). A job's tenants start once, set up "
        "and validate; then a round per count: N = 1 is tenant 1 alone, N = 2 tenants 1 and 2 at once, and so on, "
        "on the same processes and arrays; in a round all start together and each keeps running its job after "
        "its record until every record is in, so each tenant's samples are taken while all N run");
    cJSON_AddStringToObject(info, "jobs",
        "stream: the bandwidth experiment's kernel over the tenant's three arrays, validated against the plain "
        "reference before it is timed; bytes as STREAM counts them (arrays named x n x element size). train: one "
        "optimizer step of the train experiment's GPT-style decoder (the shape named), its first two losses "
        "checked against the experiment's own CPU FP32 run of the same configuration before it is timed");
    cJSON_AddStringToObject(info, "derived",
        "slowdown: a tenant's median time over the alone tenant's (N = 1, the same job); share: the alone median "
        "over the tenant's, what it keeps of the alone throughput (for the stream, of the alone bandwidth); "
        "share_sum: the shares of the N tenants added (1: together they do what one does alone); cores: a "
        "tenant's CPU seconds per second over its repetitions; cores_sum: the round's CPU seconds over its span, first "
        "start to last end (N tenants together cannot exceed the run's CPUs)");
    return out;
}

/* ---- what the records mean together ---- */

static const cJSON *alone(const cJSON *results, const cJSON *r)
{
    const cJSON *a;
    cJSON_ArrayForEach(a, results)
        if (json_num(a, "tenants", 0) == 1 && strcmp(json_str(a, "series", ""), json_str(r, "series", "?")) == 0
            && strcmp(json_str(a, "device", ""), json_str(r, "device", "?")) == 0
            && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(a, "valid")) && !isnan(measure_time(a, "median")))
            return a;
    return NULL;
}

static double cores(const cJSON *r)
{
    double cpu = json_num(r, "cpu_s", NAN), wall = json_num(r, "window_s", NAN);
    return wall > 0 ? cpu / wall : NAN;
}

struct total {
    const char *series, *device;
    int tenants, timed;
    double share_sum, slowdown_sum, slowdown_max, gbps_sum;
    double cpu_sum, first_s, last_s;            /* CPU seconds added; the round's span: first start, last end */
};

static void total_json(cJSON *totals, const struct total *t)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "series", t->series);
    cJSON_AddStringToObject(o, "device", t->device);
    cJSON_AddNumberToObject(o, "tenants", t->tenants);
    cJSON_AddNumberToObject(o, "timed", t->timed);
    cJSON_AddNumberToObject(o, "share_sum", t->share_sum);
    cJSON_AddNumberToObject(o, "slowdown_mean", t->slowdown_sum / t->timed);
    cJSON_AddNumberToObject(o, "slowdown_max", t->slowdown_max);
    if (t->gbps_sum > 0)
        cJSON_AddNumberToObject(o, "gbps_sum", t->gbps_sum);
    if (t->cpu_sum > 0 && t->last_s > t->first_s)
        cJSON_AddNumberToObject(o, "cores_sum", t->cpu_sum / (t->last_s - t->first_s));
    cJSON_AddItemToArray(totals, o);
}

void tenants_derive(cJSON *results, cJSON *totals)
{
    struct total ts[2 * 2 * MAX_COUNTS];
    int nt = 0;
    cJSON *r;
    cJSON_ArrayForEach(r, results) {
        const cJSON *one = alone(results, r);
        double med = measure_time(r, "median");
        if (!one || isnan(med) || !cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "valid")))
            continue;
        double s = med / measure_time(one, "median");
        cJSON_AddNumberToObject(r, "slowdown", s);
        cJSON_AddNumberToObject(r, "share", 1 / s);
        if (!isnan(cores(r)))
            cJSON_AddNumberToObject(r, "cores", cores(r));
        int n = (int)json_num(r, "tenants", 1), k = 0;
        while (k < nt && !(ts[k].tenants == n && strcmp(ts[k].series, json_str(r, "series", "")) == 0
                           && strcmp(ts[k].device, json_str(r, "device", "")) == 0))
            k++;
        if (k == nt) {
            if (nt == (int)(sizeof ts / sizeof ts[0]))
                continue;
            ts[nt] = (struct total){ json_str(r, "series", ""), json_str(r, "device", ""), n, 0, 0, 0, 0, 0,
                                     0, INFINITY, -INFINITY };
            nt++;
        }
        ts[k].timed++;
        ts[k].share_sum += 1 / s;
        ts[k].slowdown_sum += s;
        ts[k].slowdown_max = fmax(ts[k].slowdown_max, s);
        ts[k].gbps_sum += json_num(r, "gbps_median", 0);
        if (!isnan(cores(r))) {                  /* the round's CPU seconds over its whole span, not each one's */
            ts[k].cpu_sum += json_num(r, "cpu_s", 0);
            ts[k].first_s = fmin(ts[k].first_s, json_num(r, "started_s", NAN));
            ts[k].last_s = fmax(ts[k].last_s, json_num(r, "ended_s", NAN));
        }
    }
    for (int k = 0; k < nt; k++)
        total_json(totals, &ts[k]);
}
