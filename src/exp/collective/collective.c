/* collective.c: the collective experiment on rank 0: which operations and sizes, the check of
 * every result before any time counts, repetitions through the one measuring loop (each sample
 * is one command all ranks run; the slowest rank's time counts), the records with nccl-tests'
 * algorithm and bus bandwidth, and what is not measured and why. The transport is
 * collective_mpi.c's; what the scale-out projection reads from here is predict/scale.c's. */
#include "exp/collective/collective.h"
#include "exp/collective/collective_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "job/job.h"
#include "measure/backend.h"
#include "measure/measure.h"
#include "util/machine.h"
#include "util/error.h"
#include "util/json.h"
#include "util/progress.h"
#include "util/timing.h"
#include "util/units.h"

#define MEM_SHARE 0.5               /* of this host's available memory the buffers of its ranks may take */
#define EST_FACTOR 6.0              /* a size's estimated cost: this many samples at the previous size's rate */

static double bus_reduce(int n) { return 2.0 * (n - 1) / n; }
static double bus_gather(int n) { return (double)(n - 1) / n; }
static double bus_one(int n) { (void)n; return 1.0; }

const struct coll_op_info coll_ops[COLL_NOPS] = {
    { "ping-pong", "message bytes / one-way time (half the round trip)", "busbw = algbw (one link, one direction)",
      bus_one },
    { "all-reduce", "buffer bytes / time", "busbw = algbw x 2(n-1)/n", bus_reduce },
    { "all-gather", "received bytes (n x each rank's part) / time", "busbw = algbw x (n-1)/n", bus_gather },
    { "reduce-scatter", "sent bytes (n x each rank's result) / time", "busbw = algbw x (n-1)/n", bus_gather },
};

const struct param coll_params[] = {
    { "ops", PARAM_ENUM, PARAM_LIST | PARAM_NOT_KEY, "all", "ping-pong|all-reduce|all-gather|reduce-scatter", "all", 0, 0,
      "operations: ping-pong between rank 0 and each other rank, and the collectives of a data-parallel step" },
    { "buffers", PARAM_ENUM, PARAM_LIST | PARAM_NOT_KEY, NULL, "host|device", "host,device", 0, 0,
      "host: buffers in host memory through MPI; device: GPU memory through NCCL (CUDA builds with a device per rank)" },
    { "min_bytes", PARAM_SIZE, PARAM_NOT_KEY, NULL, NULL, "8", 4, 1 << 20, "smallest message or buffer (nccl-tests -b)" },
    { "max_bytes", PARAM_SIZE, PARAM_NOT_KEY, NULL, NULL, "1GiB", 4, 64.0 * (1 << 30),
      "largest message or buffer (nccl-tests -e); 1 GiB holds GPT-2 124M's FP32 gradients twice" },
    { "step_factor", PARAM_INT, PARAM_NOT_KEY, NULL, NULL, "8", 2, 1024, "each size is this many times the last (nccl-tests -f)" },
    MEASURE_PARAMS("0.05", "3", "50", "1", "0.01"),
    MEASURE_BUDGET_PARAM("seconds for this experiment; auto: its share of the scenario budget"),
    { NULL, 0, 0, NULL, NULL, NULL, 0, 0, NULL },
};

int coll_precheck(const cJSON *params, char *err, size_t errlen)
{
    if (param_num(params, "min_bytes") > param_num(params, "max_bytes")) {
        snprintf(err, errlen, "collective: min_bytes (%.0f) is above max_bytes (%.0f)", param_num(params, "min_bytes"),
                 param_num(params, "max_bytes"));
        return -1;
    }
    return 0;
}

static int listed(const cJSON *list, const char *name)
{
    const cJSON *e;
    if (cJSON_IsString(list))
        return strcmp(list->valuestring, "all") == 0 || strcmp(list->valuestring, name) == 0;
    cJSON_ArrayForEach(e, list)
        if (cJSON_IsString(e) && strcmp(e->valuestring, name) == 0)
            return 1;
    return 0;
}

/* What one item is while it is measured. */
struct item {
    enum coll_op op;
    int peer;                   /* ping-pong */
    int device;                 /* 1: device buffers through NCCL; 0: host buffers through MPI */
    int64_t bytes;
    long iters;                 /* operations per sample */
    char err[512];
};

/* An MPI failure on rank 0 means a rank is gone or the fabric broke: the job cannot go on, and
 * no run folder is written (the exit removes the unfinished one). */
static void job_lost(const char *why)
{
    fprintf(stderr, "sparkreport: the MPI job failed: %s; ending the run without writing its folder\n", why);
    exit(SR_EXIT_FAILURE);
}

static double calib_run(void *ud, long iters)
{
    struct item *it = ud;
    double t = coll_rank0_time(iters, it->err, sizeof it->err);
    if (isnan(t))
        job_lost(it->err);
    return t;
}

static double sample(void *ud)
{
    struct item *it = ud;
    return calib_run(ud, it->iters) / (double)it->iters;
}

/* nccl-tests' size rounded so each rank's part is whole float32 elements. */
static int64_t op_bytes(enum coll_op op, double want, int n)
{
    int64_t unit = op == COLL_PINGPONG || op == COLL_ALLREDUCE ? 4 : 4 * (int64_t)n;
    int64_t b = (int64_t)want / unit * unit;
    return b < unit ? unit : b;
}

static void add_rates(cJSON *rec, const struct item *it, int n)
{
    double med = measure_time(rec, "median"), best = measure_time(rec, "min");
    if (isnan(med) || isnan(best))
        return;
    double f = coll_ops[it->op].bus_factor(n);
    if (it->op == COLL_PINGPONG) {
        med /= 2;                   /* one way: half the round trip */
        best /= 2;
        cJSON_AddNumberToObject(rec, "latency_s", med);
    }
    cJSON_AddNumberToObject(rec, "gbps_alg", (double)it->bytes / med / 1e9);
    cJSON_AddNumberToObject(rec, "gbps_bus", (double)it->bytes / med / 1e9 * f);
    cJSON_AddNumberToObject(rec, "gbps_bus_best", (double)it->bytes / best / 1e9 * f);
}

/* The device buffers' transport, "NCCL 2.28.9"; set when they are measured. */
static char nccl_transport[64];

static cJSON *new_record(const struct item *it, int n)
{
    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "series", it->op == COLL_PINGPONG ? "p2p" : "collective");
    cJSON_AddStringToObject(r, "op", coll_ops[it->op].name);
    cJSON_AddStringToObject(r, "buffers", it->device ? "device" : "host");
    cJSON_AddStringToObject(r, "transport", it->device ? nccl_transport : "MPI");
    cJSON_AddNumberToObject(r, "ranks", n);
    if (it->op == COLL_PINGPONG)
        cJSON_AddNumberToObject(r, "peer", it->peer);
    cJSON_AddNumberToObject(r, "bytes", (double)it->bytes);
    cJSON_AddStringToObject(r, "dtype", "float32");
    if (it->op != COLL_PINGPONG && it->op != COLL_ALLGATHER)
        cJSON_AddStringToObject(r, "redop", "sum");
    return r;
}

/* Prepares (checks) then times one item; NULL with *why when a rank could not allocate. */
static cJSON *measure_one(struct item *it, struct measure_rule *rule, int n, double *per_op_s, char *why, size_t wn)
{
    it->err[0] = '\0';
    int bad, rc = coll_rank0_prepare(it->op, it->bytes, it->peer, it->device, &bad, it->err, sizeof it->err);
    if (rc < 0)
        job_lost(it->err);
    if (rc == 1 && it->device) {
        snprintf(why, wn, "not measured: rank %d has no NCCL device or could not allocate its device buffers (%.0f bytes "
                 "each side)%s%s", bad, (double)it->bytes, it->err[0] ? ": " : "", it->err);
        return NULL;
    }
    if (rc == 1) {
        snprintf(why, wn, "rank %d could not allocate its buffers (%.0f bytes each side)", bad, (double)it->bytes);
        return NULL;
    }
    cJSON *rec = new_record(it, n);
    if (bad < n) {
        cJSON_AddBoolToObject(rec, "valid", 0);
        cJSON_AddStringToObject(rec, "error", "rank's received values differ from the expected pattern or sums");
        cJSON_AddNumberToObject(rec, "bad_rank", bad);
        coll_rank0_release();
        return rec;
    }
    cJSON_AddBoolToObject(rec, "valid", 1);
    double first = calib_run(it, 1);
    it->iters = measure_iterations(calib_run, it, rule->sample_s, first);
    cJSON_AddNumberToObject(rec, "iters_per_sample", (double)it->iters);
    int got = measure_repeat(rec, rule, sample, it);
    if (coll_rank0_check(&bad, it->err, sizeof it->err) != 0)
        job_lost(it->err);
    coll_rank0_release();
    if (bad < n) {                  /* the values changed while timed */
        cJSON_ReplaceItemInObject(rec, "valid", cJSON_CreateBool(0));
        cJSON_AddStringToObject(rec, "error", "the received values changed while the operation was timed");
        cJSON_AddNumberToObject(rec, "bad_rank", bad);
    }
    if (got > 0) {
        add_rates(rec, it, n);
        *per_op_s = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(rec, "time_s"), "median")->valuedouble;
    }
    return rec;
}

/* The sizes of the sweep: min_bytes x step_factor^k up to max_bytes. */
static int sweep(const cJSON *params, double *sizes, int max)
{
    int n = 0;
    double f = param_num(params, "step_factor");
    for (double s = param_num(params, "min_bytes"); s <= param_num(params, "max_bytes") && n < max; s *= f)
        sizes[n++] = s;
    return n;
}

static char *item_name(const struct item *it, char *buf, size_t n)
{
    char b[32];
    units_format_bytes((double)it->bytes, b, sizeof b);
    const char *where = it->device ? "device" : "host";
    if (it->op == COLL_PINGPONG)
        snprintf(buf, n, "ping-pong 0-%d %s %s", it->peer, b, where);
    else
        snprintf(buf, n, "%s %s %s", coll_ops[it->op].name, b, where);
    return buf;
}

/* Why an item is not timed now (memory of this host, the budget), or NULL. */
static const char *refuse(const struct item *it, double prev_op_s, double prev_bytes, double left_s,
                          const struct measure_rule *rule, char *why, size_t wn)
{
    const char *local = getenv("OMPI_COMM_WORLD_LOCAL_SIZE");
    double ranks_here = local && atoi(local) > 0 ? atoi(local) : job_nranks();
    double need = ranks_here * 2.0 * (double)it->bytes, avail = machine_mem_available();
    char a[32], b[32];
    if (avail > 0 && need > MEM_SHARE * avail) {
        snprintf(why, wn, "not measured: the %.0f ranks on this host need %s of buffers; %.0f %% of the %s available is "
                 "the limit", ranks_here, units_format_bytes(need, a, sizeof a), 100 * MEM_SHARE,
                 units_format_bytes(avail, b, sizeof b));
        return why;
    }
    double est = prev_op_s > 0 ? prev_op_s * (double)it->bytes / prev_bytes * (rule->warmup + rule->min_reps + EST_FACTOR) : 0;
    if (left_s <= 0) {
        snprintf(why, wn, "not measured: this operation's share of the budget was spent on the sizes before it");
        return why;
    }
    if (est > left_s) {
        snprintf(why, wn, "not measured: about %.1f s at the rate of the %s size before it, %.1f s of the budget left", est,
                 units_format_bytes(prev_bytes, a, sizeof a), left_s);
        return why;
    }
    return NULL;
}

static cJSON *info_json(int n)
{
    cJSON *info = cJSON_CreateObject(), *f = cJSON_CreateObject();
    cJSON_AddNumberToObject(info, "ranks", n);
    cJSON_AddStringToObject(info, "convention",
        "nccl-tests (PERFORMANCE.md): algbw = bytes / time of the slowest rank; busbw = algbw x a factor that makes "
        "it comparable with the link's bandwidth whatever the rank count; every result checked against the expected "
        "float32 values before any time counts and again after");
    for (int i = 0; i < COLL_NOPS; i++) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "algbw", coll_ops[i].algbw);
        cJSON_AddStringToObject(o, "busbw", coll_ops[i].busbw);
        cJSON_AddItemToObject(f, coll_ops[i].name, o);
    }
    cJSON_AddItemToObject(info, "formulas", f);
    char version[64];
    cJSON *ctx = job_context(coll_device_transport(version, sizeof version));
    if (ctx)
        cJSON_AddItemToObject(info, "job", ctx);
    return info;
}

/* One rank: every operation is "not measured", with why, and the run goes on. */
static void one_rank(const cJSON *params, cJSON *skipped)
{
    char why[512];
#ifdef HAVE_MPI
    snprintf(why, sizeof why, "not measured: one rank: this process is the job's only rank; a collective needs two or "
             "more (start it with mpirun -np 2 sparkreport run SCENARIO, or across machines with a hostfile)");
#else
    snprintf(why, sizeof why, "not measured: one rank: this build has no MPI (%s), so it runs alone", SR_NO_MPI_REASON);
#endif
    for (int i = 0; i < COLL_NOPS; i++)
        if (listed(param_get(params, "ops"), coll_ops[i].name))
            measure_skip(skipped, coll_ops[i].name, why);
}

static int is_device(const cJSON *r)
{
    const cJSON *b = cJSON_GetObjectItemCaseSensitive(r, "buffers");
    return cJSON_IsString(b) && strcmp(b->valuestring, "device") == 0;
}

/* > 0 when record a is the better link figure than b: device buffers first, then the larger size. */
static int device_first(const cJSON *a, const cJSON *b)
{
    if (is_device(a) != is_device(b))
        return is_device(a) - is_device(b);
    return json_num(a, "bytes", 0) > json_num(b, "bytes", 0);
}

/* A skip whose reason says "not measured: " first (the driver's words do not). */
static void not_measured(cJSON *skipped, const char *item, const char *why)
{
    char msg[600];
    snprintf(msg, sizeof msg, "%s%s", strncmp(why, "not measured", 12) == 0 ? "" : "not measured: ", why);
    measure_skip(skipped, item, msg);
}

/* The largest all-reduce measured, through NCCL when device buffers were measured (what a
 * data-parallel step's gradients take): what the scale-out projection reads as the link (info.link_*, src/predict/project.h). */
static void publish_link(const cJSON *results, cJSON *info)
{
    const cJSON *r, *best = NULL;
    cJSON_ArrayForEach(r, results) {
        const cJSON *op = cJSON_GetObjectItemCaseSensitive(r, "op"), *bus = cJSON_GetObjectItemCaseSensitive(r, "gbps_bus");
        if (cJSON_IsString(op) && strcmp(op->valuestring, "all-reduce") == 0 && cJSON_IsNumber(bus)
            && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "valid"))
            && (!best || device_first(r, best) > 0))
            best = r;
    }
    if (!best)
        return;
    const cJSON *job = cJSON_GetObjectItemCaseSensitive(info, "job");
    int hosts = (int)json_num(job, "hosts_count", 1);
    cJSON_AddNumberToObject(info, "link_gbps_bus", json_num(best, "gbps_bus", 0));
    cJSON_AddNumberToObject(info, "link_bytes", json_num(best, "bytes", 0));
    cJSON_AddStringToObject(info, "link_buffers", is_device(best) ? "device" : "host");
    cJSON_AddNumberToObject(info, "link_ranks", json_num(best, "ranks", 2));
    cJSON_AddNumberToObject(info, "link_hosts", hosts);
}

/* Each operation (each ping-pong peer) gets an equal share of what is left; its sizes run in
 * order, each refused when the rate of the one before says it cannot finish in the share. */
static void run_op(const cJSON *params, struct item *proto, double share_s, int n, cJSON *results, cJSON *skipped,
                   int *done)
{
    struct measure_rule rule;
    double sizes[64], t0 = timing_now(), prev_s = 0, prev_b = 0;
    int ns = sweep(params, sizes, 64);
    measure_rule_from(&rule, params);
    for (int s = 0; s < ns && !progress_stopping(); s++) {
        struct item it = *proto;
        char name[96], why[512];
        double left = share_s - (timing_now() - t0), per = 0;
        it.bytes = op_bytes(it.op, sizes[s], n);
        item_name(&it, name, sizeof name);
        progress_step((*done)++, name);
        rule.budget_s = left / (ns - s);
        cJSON *rec = refuse(&it, prev_s, prev_b, left, &rule, why, sizeof why) ? NULL
                     : measure_one(&it, &rule, n, &per, why, sizeof why);
        if (!rec) {
            measure_skip(skipped, name, why);
            continue;
        }
        cJSON_AddItemToArray(results, rec);
        prev_s = per;
        prev_b = (double)it.bytes;
    }
}

/* The items of the buffers asked for: host (MPI) first, then device (NCCL). */
static void run_items(const cJSON *params, double budget_s, int n, const int use[2], cJSON *results, cJSON *skipped)
{
    struct item todo[2 * (COLL_NOPS + 256)];
    double sizes[64], t0 = timing_now();
    int ns = sweep(params, sizes, 64), k = 0, done = 0;
    for (int d = 0; d < 2; d++)
        for (int o = 0; o < COLL_NOPS && use[d]; o++)
            for (int peer = 1; peer < (o == COLL_PINGPONG ? n : 2) && peer <= 256; peer++)
                if (listed(param_get(params, "ops"), coll_ops[o].name))
                    todo[k++] = (struct item){ .op = (enum coll_op)o, .peer = peer, .device = d };
    progress_begin("collective", k * ns, budget_s);
    for (int i = 0; i < k && !progress_stopping(); i++)
        run_op(params, &todo[i], (budget_s - (timing_now() - t0)) / (k - i), n, results, skipped, &done);
    progress_end();
}

cJSON *coll_run(const cJSON *params, double budget_s, char *err, size_t errlen)
{
    char why[512];
    int n = job_nranks();
    cJSON *out = cJSON_CreateObject(), *results = cJSON_AddArrayToObject(out, "results");
    cJSON *skipped = cJSON_AddArrayToObject(out, "skipped");
    cJSON *info = info_json(n);
    (void)err;
    (void)errlen;
    cJSON_AddItemToObject(out, "info", info);
    budget_s = measure_budget(params, budget_s);
    int use[2] = { listed(param_get(params, "buffers"), "host"), listed(param_get(params, "buffers"), "device") };
    const struct coll_dev_ops *dev = use[1] ? backend_for("collective", "gpu", why, sizeof why) : NULL;
    if (use[1] && !dev)
        not_measured(skipped, "device buffers (NCCL)", why);
    use[1] = dev != NULL;
    if (!use[0] && !use[1])
        return out;
    if (n < 2) {
        one_rank(params, skipped);
        return out;
    }
    if (dev)                        /* the job's context says it too (job_context: transport_device) */
        dev->version(nccl_transport, sizeof nccl_transport);
    coll_job_budget(budget_s);     /* a rank that stops cannot hold the run past this */
    run_items(params, budget_s, n, use, results, skipped);
    coll_job_idle();                /* the other ranks wait without a deadline until the next command */
    publish_link(results, info);
    return out;
}

const char *coll_device_transport(char *buf, size_t n)
{
    char why[256];
    const struct coll_dev_ops *d = backend_for("collective", "gpu", why, sizeof why);
    return d ? d->version(buf, n) : NULL;
}
