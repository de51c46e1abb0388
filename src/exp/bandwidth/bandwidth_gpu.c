/* bandwidth_gpu.c: the GPU half of the bandwidth experiment: the size sweep in device memory
 * (inside L2 to many times L2), every allocation path at the largest size, host<->device
 * transfers, and CPU/GPU contention. Plain C over the ops backend_for() gives ("bandwidth" and
 * "bandwidth-transfers" on the gpu; the kernels are in bandwidth_cuda.cu); without CUDA in the
 * build or without a device, every item is recorded as not measured with the exact reason. */
#include <math.h>
#include <omp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "cuda/cuda.h"
#include "exp/bandwidth/bandwidth.h"
#include "exp/bandwidth/bandwidth_int.h"
#include "measure/backend.h"
#include "util/machine.h"
#include "util/error.h"
#include "util/json.h"
#include "util/progress.h"
#include "util/timing.h"
#include "util/units.h"

#define GPU_FLOOR (1024.0 * 1024 * 1024)    /* each array at least 1 GiB at the largest size */
#define L2_FACTOR 8.0                       /* ... and at least 8x the L2 */

static int path_wanted(const cJSON *params, enum bw_path p)
{
    const cJSON *a = param_get(params, "alloc");
    if (cJSON_IsString(a))
        return 1;                           /* "all" */
    for (const cJSON *e = a->child; e; e = e->next)
        if (strcmp(e->valuestring, bw_path_names[p]) == 0)
            return 1;
    return 0;
}

/* Every item this run would have measured, as not measured, with one reason. */
static void skip_all(struct bw_plan *pl, const cJSON *params, const char *reason)
{
    char item[128];
    for (int p = BW_PATH_DEVICE; p < BW_NPATHS; p++) {
        if (!path_wanted(params, p))
            continue;
        snprintf(item, sizeof item, "GPU bandwidth, %s memory%s", bw_path_names[p],
                 p == BW_PATH_DEVICE ? " (working-set sweep)" : "");
        bw_skip(pl, item, reason);
    }
    if (param_bool(params, "transfers"))
        bw_skip(pl, "host<->device transfers (copy engines and SM kernels, pinned and pageable)", reason);
    if (param_bool(params, "contention"))
        bw_skip(pl, "CPU/GPU contention (triad on both at once)", reason);
}

static cJSON *gpu_info(const struct cuda_info *ci, double largest)
{
    cJSON *info = cJSON_CreateObject();
    cJSON_AddStringToObject(info, "device", "gpu");
    cJSON_AddStringToObject(info, "transfer_byte_convention",
        "a transfer of N bytes counts N bytes once per direction (nvbandwidth's convention); "
        "bidirectional counts both directions; kernels count the arrays they name, as STREAM");
    cJSON_AddStringToObject(info, "byte_convention",
        "bytes = arrays the kernel names x n x element size, as STREAM counts; these are the bytes a GPU "
        "kernel moves: its stores fill whole L2 sectors, which are written without being read first, so "
        "there is no write-allocate view");
    if (ci->ndev > 0) {
        cJSON_AddStringToObject(info, "gpu_name", ci->dev[0].name);
        cJSON_AddNumberToObject(info, "l2_bytes", ci->dev[0].l2_bytes);
        cJSON_AddNumberToObject(info, "largest_bytes", largest);
    } else {
        cJSON_AddStringToObject(info, "reason", ci->reason);
    }
    return info;
}

struct xfer_call {
    const struct bw_xfer_ops *ops;
    struct bw_xfer *t;
    enum bw_dir d;
    enum bw_engine e;
};

static double one_transfer(void *ud)
{
    struct xfer_call *c = ud;
    return c->ops->run(c->t, c->d, c->e);
}

static void transfer_rec(struct bw_run_state *rs, struct xfer_call *c, size_t bytes, int pinned)
{
    cJSON *rec = cJSON_CreateObject();
    char step[128];
    const char *host = pinned ? "pinned" : "pageable";
    snprintf(step, sizeof step, "%s via %s, %s host memory", bw_dir_names[c->d], bw_engine_names[c->e], host);
    progress_step(rs->done++, step);
    cJSON_AddStringToObject(rec, "series", "transfer");
    cJSON_AddStringToObject(rec, "direction", bw_dir_names[c->d]);
    cJSON_AddStringToObject(rec, "engine", bw_engine_names[c->e]);
    cJSON_AddStringToObject(rec, "host_memory", host);
    cJSON_AddNumberToObject(rec, "bytes", (double)bytes);
    double first = one_transfer(c);
    int ok = first >= 0 && c->ops->check(c->t, c->d) == 0;
    cJSON_AddBoolToObject(rec, "valid", ok);
    if (!ok) {
        cJSON_AddStringToObject(rec, "error", first < 0 ? "the copy failed" : "copied data differs from the source");
    } else {
        cJSON_AddNumberToObject(rec, "first_pass_s", first);
        struct measure_rule rule = rs->pl->rule;
        rule.budget_s = rs->per_point;
        measure_repeat(rec, &rule, one_transfer, c);
        bw_add_rates(rec, (double)bytes * (c->d == BW_BIDIR ? 2 : 1), 0);
    }
    cJSON_AddItemToArray(rs->results, rec);
}

static void transfers(struct bw_run_state *rs, const struct bw_xfer_ops *xo, const cJSON *params)
{
    size_t bytes = (size_t)param_num(params, "transfer_size") / 16 * 16;
    char err[256], item[160];
    for (int pinned = 1; pinned >= 0; pinned--) {
        struct bw_xfer *t = xo->open(bytes, pinned, err, sizeof err);
        if (!t) {
            snprintf(item, sizeof item, "transfers with %s host memory", pinned ? "pinned" : "pageable");
            bw_skip(rs->pl, item, err);
            rs->done += BW_NENGINES * BW_NDIRS;
            continue;
        }
        for (int e = 0; e < BW_NENGINES; e++) {
            if (xo->supports(t, e, err, sizeof err) != 0) {
                snprintf(item, sizeof item, "transfers via %s, %s host memory", bw_engine_names[e],
                         pinned ? "pinned" : "pageable");
                bw_skip(rs->pl, item, err);
                rs->done += BW_NDIRS;
                continue;
            }
            for (int d = 0; d < BW_NDIRS && !progress_stopping(); d++) {
                struct xfer_call c = { xo, t, d, e };
                transfer_rec(rs, &c, bytes, pinned);
            }
        }
        xo->close(t);
    }
}

/* ---- SM rates over host memory against the copy engines ---- */

int bw_sm_beyond_link(double sm_gbps, double ce_gbps, int integrated)
{
    return !integrated && ce_gbps > 0 && sm_gbps > BW_SM_LINK_FACTOR * ce_gbps;
}

static int is(const cJSON *rec, const char *key, const char *value)
{
    return strcmp(json_str(rec, key, ""), value) == 0;
}

/* The link's rate: the best copy-engine transfer in direction dir (NULL: any, the bidirectional
 * included), pinned or pageable (pageable copies are staged and may be slower than the link an
 * SM kernel reaches); 0 when none was measured. */
static double ce_gbps(const cJSON *results, const char *dir)
{
    double best = 0;
    for (const cJSON *r = results->child; r; r = r->next)
        if (is(r, "series", "transfer") && is(r, "engine", bw_engine_names[BW_CE]) && (!dir || is(r, "direction", dir)))
            best = fmax(best, json_num(r, "gbps_best", 0));
    return best;
}

/* Flags each SM rate over host memory that beats the copy engines by more than the factor:
 * gbps_ce and gbps_beyond_link in the record, and a line in skipped saying what it means. */
static void flag_sm_rates(struct bw_run_state *rs, int integrated)
{
    char item[160], msg[320];
    for (cJSON *r = rs->results->child; r; r = r->next) {
        const char *alloc = json_str(r, "alloc", ""), *dir = json_str(r, "direction", "");
        int xfer = is(r, "series", "transfer") && is(r, "engine", bw_engine_names[BW_SM]);
        int host = is(r, "series", "alloc") && (is(r, "alloc", bw_path_names[BW_PATH_PINNED])
                                                || is(r, "alloc", bw_path_names[BW_PATH_MALLOC]));
        double sm = json_num(r, "gbps_best", 0), ce = ce_gbps(rs->results, xfer ? dir : NULL);
        if (!(xfer || host) || !bw_sm_beyond_link(sm, ce, integrated))
            continue;
        cJSON_AddNumberToObject(r, "gbps_ce", ce);
        cJSON_AddBoolToObject(r, "gbps_beyond_link", 1);
        if (xfer)
            snprintf(item, sizeof item, "%s via SM kernel, %s host memory", dir, json_str(r, "host_memory", ""));
        else
            snprintf(item, sizeof item, "GPU bandwidth, %s memory, %s %s", alloc, json_str(r, "kernel", ""),
                     json_str(r, "precision", ""));
        snprintf(msg, sizeof msg, "measured %.0f GB/s, more than %.0fx the copy engines' %.1f GB/s over the same "
                 "link: pages likely migrated into device memory; not a host-memory figure", sm, BW_SM_LINK_FACTOR, ce);
        bw_skip(rs->pl, item, msg);
    }
}

/* ---- contention: CPU triad and GPU triad alone and at the same time ---- */

struct side {
    const struct bw_ops *ops;
    struct bw_arrays x;
    long iters;                     /* passes per call */
    double window;                  /* seconds to stream */
    double bytes_per_pass;
    double passes, seconds;         /* what the last window did */
    int failed;                     /* a window stopped on an error (sticks until side_open) */
};

static void *stream_window(void *ud)
{
    struct side *s = ud;
    double t0 = timing_now();
    s->passes = 0;
    while (timing_now() - t0 < s->window) {
        if (s->ops->run(&s->x, BW_TRIAD, s->iters) < 0) {
            s->failed = 1;
            break;
        }
        s->passes += (double)s->iters;
    }
    s->seconds = timing_now() - t0;
    return NULL;
}

/* The GPU side's thread: a new thread starts on device 0, not necessarily the one measured. */
static void *gpu_window(void *ud)
{
    struct side *s = ud;
    char err[256];
    if (cuda_use_device(err, sizeof err) != 0) {
        s->failed = 1;
        return NULL;
    }
    return stream_window(s);
}

const char *bw_contention_error(int threaded, int cpu_failed, int gpu_failed)
{
    if (!threaded)
        return "cannot start the GPU thread";
    if (cpu_failed && gpu_failed)
        return "the CPU and the GPU triad both failed while streaming";
    if (cpu_failed || gpu_failed)
        return cpu_failed ? "the CPU triad failed while streaming" : "the GPU triad failed while streaming";
    return NULL;
}

static double side_gbps(const struct side *s) { return s->bytes_per_pass * s->passes / s->seconds / 1e9; }

static int side_open(struct side *s, const struct bw_ops *ops, const struct bw_layout *l, double window,
                     char *err, size_t errlen)
{
    memset(s, 0, sizeof *s);
    s->ops = ops;
    s->window = window;
    s->iters = 1;
    s->bytes_per_pass = 3.0 * (double)l->n * (double)bw_prec_size[l->prec];
    if (ops->alloc(&s->x, l, err, errlen) != 0)
        return -1;
    double t = ops->run(&s->x, BW_TRIAD, 1);
    if (t < 0 || !(ops->check(&s->x, BW_TRIAD) <= bw_tolerance(l->prec))) {
        snprintf(err, errlen, "the %s triad failed validation", ops->device);
        ops->release(&s->x);
        return -1;
    }
    while (t > 0 && t * (double)s->iters < 0.01)    /* calls of 10 ms at least */
        s->iters *= 2;
    return 0;
}

static void contention(struct bw_run_state *rs, double gpu_size, double window)
{
    struct machine_cpu cpu;
    char err[256];
    struct side c, g;
    machine_cpu(&cpu);
    int threads = omp_get_max_threads() > 1 ? omp_get_max_threads() - 1 : 1;   /* one core feeds the GPU */
    double cpu_size = bw_dram_working_set(machine_cache_total(&cpu));
    struct bw_layout lc = { (size_t)(cpu_size / 24) / 16 * 16, BW_FP64, BW_PATH_HOST, threads, NULL, 1 };
    struct bw_layout lg = { (size_t)(gpu_size / 24) / 16 * 16, BW_FP64, BW_PATH_DEVICE, 0, NULL, 0 };
    progress_step(rs->done++, "contention: CPU and GPU triad");
    if (cpu_size > BW_MEM_SHARE * machine_mem_available()) {
        bw_skip(rs->pl, "CPU/GPU contention", "the CPU arrays do not fit in available memory next to the GPU's");
        return;
    }
    const struct bw_ops *cpu_ops = backend_for("bandwidth", "cpu", err, sizeof err);
    if (side_open(&c, cpu_ops, &lc, window, err, sizeof err) != 0) {
        bw_skip(rs->pl, "CPU/GPU contention", err);
        return;
    }
    if (side_open(&g, rs->ops, &lg, c.window, err, sizeof err) != 0) {
        bw_skip(rs->pl, "CPU/GPU contention", err);
        cpu_ops->release(&c.x);
        return;
    }
    cJSON *rec = cJSON_CreateObject();
    cJSON_AddStringToObject(rec, "series", "contention");
    cJSON_AddStringToObject(rec, "kernel", "triad");
    cJSON_AddStringToObject(rec, "precision", "fp64");
    cJSON_AddNumberToObject(rec, "cpu_threads", threads);
    cJSON_AddNumberToObject(rec, "cpu_working_set_bytes", c.bytes_per_pass);
    cJSON_AddNumberToObject(rec, "gpu_working_set_bytes", g.bytes_per_pass);
    cJSON_AddNumberToObject(rec, "window_s", c.window);
    stream_window(&c);
    cJSON_AddNumberToObject(rec, "cpu_alone_gbps", side_gbps(&c));
    stream_window(&g);
    cJSON_AddNumberToObject(rec, "gpu_alone_gbps", side_gbps(&g));
    pthread_t th;
    int threaded = pthread_create(&th, NULL, gpu_window, &g) == 0;
    stream_window(&c);
    if (threaded)
        pthread_join(th, NULL);
    const char *why = bw_contention_error(threaded, c.failed, g.failed);
    cJSON_AddBoolToObject(rec, "valid", !why);
    if (!why) {
        cJSON_AddNumberToObject(rec, "cpu_together_gbps", side_gbps(&c));
        cJSON_AddNumberToObject(rec, "gpu_together_gbps", side_gbps(&g));
        cJSON_AddNumberToObject(rec, "sum_together_gbps", side_gbps(&c) + side_gbps(&g));
    } else {
        cJSON_AddStringToObject(rec, "error", why);
    }
    cJSON_AddItemToArray(rs->results, rec);
    cpu_ops->release(&c.x);
    rs->ops->release(&g.x);
}

/* ---- the GPU flow ---- */

static double gpu_max_size(struct bw_plan *pl, const cJSON *params, const struct cuda_device *d)
{
    double want = 3.0 * fmax(L2_FACTOR * d->l2_bytes, GPU_FLOOR);
    const cJSON *sz = param_get(params, "sizes");
    if (cJSON_IsArray(sz)) {
        double m = 0;
        for (const cJSON *e = sz->child; e; e = e->next)
            m = fmax(m, e->valuedouble);
        return m;
    }
    if (cJSON_IsNumber(param_get(params, "max_size")))
        return param_num(params, "max_size");
    double room = BW_MEM_SHARE * d->mem_free_bytes;
    if (isfinite(room) && want > room) {
        char a[32], b[32], msg[160];
        snprintf(msg, sizeof msg, "8x L2 and 1 GiB per array needs %s; limited to %s of free device memory",
                 units_format_bytes(want, a, sizeof a), units_format_bytes(room, b, sizeof b));
        bw_skip(pl, "largest GPU working set", msg);
        want = room;
    }
    return want;
}

static void measure_paths(struct bw_run_state *rs, const cJSON *params, const struct cuda_device *d)
{
    struct bw_plan *pl = rs->pl;
    double top = pl->sizes[pl->ns - 1];
    char why[256], item[96];
    for (int i = 0; i < pl->np && !progress_stopping(); i++)
        for (int s = 0; s < pl->ns && !progress_stopping(); s++)
            bw_measure_config(rs, pl->precs[i], pl->sizes[s], BW_PATH_DEVICE, 0, NULL, "size", NULL,
                              BW_MEM_SHARE * d->mem_free_bytes);
    for (int p = BW_PATH_MANAGED; p < BW_NPATHS; p++) {
        if (!path_wanted(params, p))
            continue;
        if (rs->ops->supports(p, why, sizeof why) != 0) {
            snprintf(item, sizeof item, "GPU bandwidth, %s memory", bw_path_names[p]);
            bw_skip(pl, item, why);
            rs->done += pl->np * pl->nk;
            continue;
        }
        double room = p == BW_PATH_PINNED || p == BW_PATH_MALLOC ? machine_mem_available() : d->mem_free_bytes;
        for (int i = 0; i < pl->np && !progress_stopping(); i++)
            bw_measure_config(rs, pl->precs[i], top, p, 0, NULL, "alloc", NULL, BW_MEM_SHARE * room);
    }
}

/* The GPU flow over the backends backend_for() gives; without them (no device, or no CUDA in
 * this build) every item is recorded as not measured with its reason. */
cJSON *bw_gpu_run(const cJSON *params, double budget_s, char *err, size_t errlen)
{
    struct cuda_info ci;
    struct bw_plan *pl = xcalloc(1, sizeof *pl);
    cJSON *out = cJSON_CreateObject(), *results = cJSON_CreateArray();
    char why[256];
    (void)err;
    (void)errlen;
    bw_plan_common(pl, params);
    const struct bw_ops *ops = backend_for("bandwidth", "gpu", why, sizeof why);
    const struct bw_xfer_ops *xo = backend_for("bandwidth-transfers", "gpu", why, sizeof why);
    cuda_probe(&ci);                /* the device's caches and free memory size the plan */
    double top = 0;
    if (!ops || !xo) {
        skip_all(pl, params, why);
    } else {
        const struct cuda_device *d = &ci.dev[0];
        top = gpu_max_size(pl, params, d);
        bw_plan_sizes(pl, params, top);
        int paths = 0;
        for (int p = BW_PATH_MANAGED; p < BW_NPATHS; p++)
            paths += path_wanted(params, p);
        int total = (pl->ns + paths) * pl->np * pl->nk + (param_bool(params, "transfers") ? 2 * BW_NENGINES * BW_NDIRS : 0)
                    + param_bool(params, "contention");
        struct bw_run_state rs = { .ops = ops, .pl = pl, .results = results, .total = total };
        rs.per_point = 0.7 * budget_s / total;
        progress_begin("bandwidth gpu", total, budget_s);
        if (path_wanted(params, BW_PATH_DEVICE) || paths > 0)
            measure_paths(&rs, params, d);
        if (param_bool(params, "transfers") && !progress_stopping())
            transfers(&rs, xo, params);
        flag_sm_rates(&rs, d->integrated);
        if (param_bool(params, "contention") && !progress_stopping())
            contention(&rs, top, param_num(params, "contention_s"));
        progress_step(rs.done, "done");
        progress_end();
    }
    cJSON_AddItemToObject(out, "results", results);
    cJSON_AddItemToObject(out, "skipped", pl->skipped);
    cJSON_AddItemToObject(out, "info", gpu_info(&ci, top));
    free(pl);
    return out;
}
