/* precision_parts.c: what each part of the precision experiment measures, on whichever
 * device's ops it is handed: fixed costs per call, FMA peaks (CPU), the GEMM sweep, the
 * intensity sweep and its knee, and the numerics against FP64. Validation always comes before
 * timing; statistics, records and the plan are precision.c's. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exp/precision/precision_int.h"
#include "measure/compute.h"
#include "util/error.h"
#include "util/param.h"
#include "util/progress.h"
#include "util/timing.h"

#define CHECK_ITERS 1000                /* rounds of a peak kernel's validation run */
#define SAMPLED 64                      /* entries of a GEMM checked against the twin */
#define MAX_POINTS 40

static int is_gpu(const struct prec_ops *ops) { return strcmp(ops->device, "gpu") == 0; }
static const char *upper(const struct prec_ops *ops) { return is_gpu(ops) ? "GPU" : "CPU"; }

static int block_of(enum prec_fmt f) { return f == PREC_NVFP4 ? 16 : f == PREC_MXFP4 ? 32 : f == PREC_FP8 || f == PREC_FP8_FAST ? 16 : 1; }

/* Bits each element takes in memory, scales aside (prec_fmts' in_bytes counts them). */
static const int storage_bits[PREC_NFMT] = { 64, 32, 32, 16, 16, 16, 8, 8, 4, 4 };

long prec_sweep_start_k(enum prec_fmt f)
{
    long k = PREC_ROW_ALIGN * 8 / storage_bits[f];
    return k > block_of(f) ? k : block_of(f);
}

/* A refusal after the format's probe ran is a limit of this shape, not of the format. */
static void shape_refused(struct prec_run *r, const char *item, const char *shape, const char *why)
{
    char msg[768];
    snprintf(msg, sizeof msg, "shape not supported: %s (the format's probe at 128 x 128 x 128 ran): %s", shape, why);
    measure_skip(r->skipped, item, msg);
}

static double num(const cJSON *rec, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(rec, key);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

/* Seconds of repetitions the next of `left` measurements may take: an equal part of what is left
 * of the share, so time one of them overran comes out of the ones after it. */
static double slot(const struct prec_run *r, int left)
{
    double t = r->deadline - timing_now();
    return t > 0 ? t / (left > 0 ? left : 1) : 0;
}

/* Whether a measurement expected to take `each` seconds per run (validation, warm-up and the
 * minimum repetitions) fits in the share left; if not, it is skipped with the estimate. */
static int fits(struct prec_run *r, const char *item, double each)
{
    int warm = each >= r->rule.sample_s ? (r->rule.warmup > 1 ? r->rule.warmup - 1 : 0) : r->rule.warmup;
    double need = each * (1 + warm + r->rule.min_reps), left = r->deadline - timing_now();
    char msg[160];
    if (!(need > left))
        return 1;
    snprintf(msg, sizeof msg, "would take about %.1f s at the rate measured so far; %.1f s of its time share was left",
             need, left > 0 ? left : 0);
    measure_skip(r->skipped, item, msg);
    return 0;
}

/* Why a measurement a cut abandoned (progress_cut) is skipped. */
static const char *cut_reason(void)
{
    return progress_stopping() ? "stopped during it: the run was asked to stop"
                               : "stopped during it: the experiment's time budget ran out (its estimate was short)";
}

/* ---- fixed costs per call ------------------------------------------------------------------- */

struct overhead_ud {
    const struct prec_ops *ops;
    int threads;
    char why[256];
};

static double overhead_op(void *ud, long iters)
{
    struct overhead_ud *o = ud;
    return o->ops->overhead(o->threads, iters, o->why, sizeof o->why);
}

void prec_overheads(struct prec_run *r, const struct prec_ops *ops)
{
    struct overhead_ud o = { ops, r->tmax, "" };
    char item[96];
    snprintf(item, sizeof item, "%s %s", upper(ops), is_gpu(ops) ? "kernel launch cost" : "OpenMP parallel region cost");
    if (prec_out_of_time(r, item))
        return;
    if (!isfinite(overhead_op(&o, 10))) {
        measure_skip(r->skipped, item, o.why);
        return;
    }
    struct prec_op op = { overhead_op, &o, 0, 0 };
    cJSON *rec = cJSON_CreateObject();
    cJSON_AddStringToObject(rec, "series", "overhead");
    cJSON_AddStringToObject(rec, "device", ops->device);
    cJSON_AddStringToObject(rec, "what", ops->overhead_what);
    if (!is_gpu(ops))
        cJSON_AddNumberToObject(rec, "threads", r->tmax);
    double med = prec_time(r, &op, slot(r, 1), rec);
    cJSON_AddNumberToObject(rec, "seconds_median", med);    /* per call */
    cJSON_AddItemToArray(r->results, rec);
}

/* ---- FMA peaks (CPU) ------------------------------------------------------------------------- */

struct peak_ud {
    const struct prec_kernel *pk;
    int threads;
};

static double peak_op(void *ud, long iters)
{
    struct peak_ud *p = ud;
    return prec_cpu_peak_run(p->pk, p->threads, iters, NULL);
}

/* Largest relative error of thread 0's lanes after CHECK_ITERS rounds against x0 + rounds a. */
static double peak_check(const struct prec_kernel *pk, int threads)
{
    double out[512], worst = 0;
    prec_cpu_peak_run(pk, threads, CHECK_ITERS, out);
    for (int j = 0; j < prec_kernel_lanes(pk); j++) {
        double want = prec_chain_init((size_t)j) + CHECK_ITERS * PREC_CHAIN_ADD;
        double e = fabs(out[j] - want) / want;
        if (!(e <= worst))
            worst = isnan(e) ? INFINITY : e;
    }
    return worst;
}

static void peak_one(struct prec_run *r, enum prec_fmt f, int threads, int left)
{
    const struct prec_kernel *pk = prec_kernel_find(f);
    cJSON *rec = prec_record("peak", "cpu", f);
    cJSON_AddStringToObject(rec, "kernel", "fma-chains");
    cJSON_AddStringToObject(rec, "isa", pk->isa);
    cJSON_AddNumberToObject(rec, "vector_bytes", pk->vector_bytes);
    cJSON_AddNumberToObject(rec, "chains", pk->chains);
    cJSON_AddNumberToObject(rec, "threads", threads);
    double err = peak_check(pk, threads);
    prec_add_validation(rec, err, prec_fmts[f].tolerance);
    if (err <= prec_fmts[f].tolerance) {
        struct peak_ud ud = { pk, threads };
        struct prec_op op = { peak_op, &ud, 0, 0 };
        prec_time(r, &op, slot(r, left), rec);
        prec_add_rates(rec, prec_peak_flops(pk, 1) * threads, 0);
    }
    cJSON_AddItemToArray(r->results, rec);
}

void prec_peaks(struct prec_run *r)
{
    int counts[2] = { 1, r->tmax }, nc = r->tmax > 1 ? 2 : 1, left = 0;
    for (int f = PREC_FP64; f <= PREC_FP32; f++)
        left += r->fmt_on[f] ? nc : 0;
    for (int f = PREC_FP64; f <= PREC_FP32; f++) {
        for (int c = 0; c < nc && r->fmt_on[f]; c++) {
            char item[64];
            snprintf(item, sizeof item, "CPU FMA peak %s, %d thread%s", prec_fmts[f].name, counts[c],
                     counts[c] > 1 ? "s" : "");
            if (prec_out_of_time(r, item))
                return;
            peak_one(r, f, counts[c], left--);
        }
    }
}

/* ---- GEMM -------------------------------------------------------------------------------------- */

struct gemm_ud {
    const struct prec_ops *ops;
    struct prec_gemm *g;
};

static double gemm_op(void *ud, long iters)
{
    struct gemm_ud *u = ud;
    return u->ops->gemm_run(u->g, iters);
}

/* D(i, j) and |A||B|(i, j) in FP64 from the values the backend was given. */
static void gemm_twin(const struct prec_gemm *g, size_t i, size_t j, double *ref, double *scale)
{
    uint64_t k = (uint64_t)g->k;
    double s = 0, a = 0;
    for (uint64_t p = 0; p < k; p++) {
        double x = prec_input_as(g->fmt, g->seed_a, i * k + p, k), y = prec_input_as(g->fmt, g->seed_b, j * k + p, k);
        s += x * y;
        a += fabs(x * y);
    }
    *ref = s;
    *scale = a;
}

/* Largest error, relative to (|A||B|)_ij, of SAMPLED entries (the corners among them) of the
 * last product against the twin. */
static double gemm_check(const struct prec_ops *ops, struct prec_gemm *g, uint64_t salt)
{
    size_t mn = (size_t)g->m * (size_t)g->n, idx[SAMPLED] = { 0 };
    int count = mn < SAMPLED ? (int)mn : SAMPLED;
    double got[SAMPLED], worst = 0;
    for (int t = 0; t < count; t++)
        idx[t] = count == (int)mn ? (size_t)t : t == 0 ? 0 : t == 1 ? mn - 1 : prec_mix(salt + (uint64_t)t) % mn;
    if (ops->gemm_fetch(g, idx, count, got) != 0)
        return INFINITY;
    for (int t = 0; t < count; t++) {
        double ref, scale;
        gemm_twin(g, idx[t] % (size_t)g->m, idx[t] / (size_t)g->m, &ref, &scale);
        double e = fabs(got[t] - ref) / scale;
        if (!(e <= worst))
            worst = isnan(e) ? INFINITY : e;
    }
    return worst;
}

static void gemm_init(struct prec_gemm *g, const struct prec_run *r, enum prec_fmt f, int m, int n, int k)
{
    memset(g, 0, sizeof *g);
    g->fmt = f;
    g->m = m;
    g->n = n;
    g->k = k;
    g->seed_a = prec_mix(r->seed * 2 + 1);
    g->seed_b = prec_mix(r->seed * 2 + 2);
}

/* A GEMM measured here is one of the run's: offered to the run's GEMM rate (measure/compute.h),
 * which the families after this one quote (the model's matmul ceiling). */
static void offer_gemm(const struct prec_ops *ops, const struct prec_gemm *g, const cJSON *rec)
{
    struct measure_gemm o = { num(rec, "gflops_best"), g->m, g->n, g->k, "", "precision" };
    snprintf(o.routine, sizeof o.routine, "%s", g->algo);
    if (!g->emulate && o.gflops > 0)
        measure_gemm_offer(ops->device, prec_fmts[g->fmt].name, &o);
}

/* Validates, then times one GEMM into rec (added to the results). PREC_OK, or the setup's
 * refusal with why and nothing recorded. */
static int gemm_measure(struct prec_run *r, const struct prec_ops *ops, struct prec_gemm *g, cJSON *rec,
                        double budget, char *why, size_t whylen)
{
    int rc = ops->gemm_setup(g, why, whylen);
    if (rc != PREC_OK) {
        ops->gemm_release(g);
        cJSON_Delete(rec);
        return rc;
    }
    const struct prec_fmt_info *fi = &prec_fmts[g->fmt];
    cJSON_AddNumberToObject(rec, "m", g->m);
    cJSON_AddNumberToObject(rec, "n", g->n);
    cJSON_AddNumberToObject(rec, "k", g->k);
    double first = ops->gemm_run(g, 1), err = isfinite(first) || !progress_cut() ? gemm_check(ops, g, r->seed) : NAN;
    if (!isnan(err))
        prec_add_validation(rec, err, fi->tolerance);
    if (err <= fi->tolerance) {
        struct gemm_ud u = { ops, g };
        struct prec_op op = { gemm_op, &u, 0, first };
        prec_time(r, &op, budget, rec);
        if (cJSON_HasObjectItem(rec, "time_s")) {
            prec_add_rates(rec, prec_gemm_flops(g->m, g->n, g->k),
                           prec_gemm_bytes(g->m, g->n, g->k, fi->in_bytes, fi->out_bytes));
            offer_gemm(ops, g, rec);
        } else
            err = NAN;                          /* no time taken: the only sample was abandoned */
    }
    if (isnan(err) && progress_cut()) {         /* abandoned half-way: nothing to record */
        snprintf(why, whylen, "%s", cut_reason());
        ops->gemm_release(g);
        cJSON_Delete(rec);
        return PREC_ERROR;
    }
    cJSON_AddStringToObject(rec, "algo", g->algo);
    cJSON_AddItemToArray(r->results, rec);
    ops->gemm_release(g);
    return PREC_OK;
}

/* FLOP/s of one PROBE_N^3 product after a warm-up run, or 0: the rate that sizes the first
 * shape of a format, so a GEMM that cannot finish in the time left is never started. */
#define PROBE_N 512

static double probe_rate(struct prec_run *r, const struct prec_ops *ops, enum prec_fmt f)
{
    struct prec_gemm g;
    char why[512];
    double t = NAN;
    gemm_init(&g, r, f, PROBE_N, PROBE_N, PROBE_N);
    if (ops->gemm_setup(&g, why, sizeof why) == PREC_OK) {
        ops->gemm_run(&g, 1);
        t = ops->gemm_run(&g, 1);
    }
    ops->gemm_release(&g);
    return t > 0 ? prec_gemm_flops(PROBE_N, PROBE_N, PROBE_N) / t : 0;
}

static void gemm_format(struct prec_run *r, const struct prec_ops *ops, enum prec_fmt f,
                        const struct prec_shape *shapes, int ns)
{
    char item[160], why[512], shape[64];
    double rate = 0;                    /* FLOP/s of the last shape measured */
    for (int i = 0; i < ns; i++) {
        const struct prec_shape *s = &shapes[i];
        snprintf(item, sizeof item, "%s GEMM %s %s %dx%dx%d", upper(ops), prec_fmts[f].name, s->name, s->m, s->n, s->k);
        if (s->k % block_of(f) != 0) {
            snprintf(why, sizeof why, "k = %d is not a multiple of %d, the format's block along K", s->k, block_of(f));
            measure_skip(r->skipped, item, why);
            continue;
        }
        if (prec_out_of_time(r, item))
            return;
        if (rate == 0 && prec_gemm_flops(s->m, s->n, s->k) > 8 * prec_gemm_flops(PROBE_N, PROBE_N, PROBE_N))
            rate = probe_rate(r, ops, f);
        if (rate > 0 && !fits(r, item, prec_gemm_flops(s->m, s->n, s->k) / rate))
            continue;
        struct prec_gemm g;
        gemm_init(&g, r, f, s->m, s->n, s->k);
        cJSON *rec = prec_record("gemm", ops->device, f);
        cJSON_AddStringToObject(rec, "shape", s->name);
        int rc = gemm_measure(r, ops, &g, rec, slot(r, ns - i), why, sizeof why);
        snprintf(shape, sizeof shape, "m x n x k = %d x %d x %d", s->m, s->n, s->k);
        if (rc == PREC_UNSUPPORTED)                     /* prec_gemms probed the format */
            shape_refused(r, item, shape, why);
        else if (rc != PREC_OK)
            measure_skip(r->skipped, item, why);
        else
            rate = fmax(rate, 1e9 * num(cJSON_GetArrayItem(r->results, cJSON_GetArraySize(r->results) - 1), "gflops_median"));
    }
}

/* Whether the device has format f at all: a setup at 128 x 128 x 128, nothing timed. */
static int probe(struct prec_run *r, const struct prec_ops *ops, enum prec_fmt f, char *why, size_t whylen)
{
    struct prec_gemm g;
    gemm_init(&g, r, f, 128, 128, 128);
    int rc = ops->gemm_setup(&g, why, whylen);
    ops->gemm_release(&g);
    return rc;
}

/* Each format a share of the part in proportion to its element size (a proxy for its cost: FP64
 * runs at half the FP32 rate on most CPUs), so none starves the next; formats the device does
 * not have are recorded once and take none. Training shapes first, then squares by size. */
void prec_gemms(struct prec_run *r, const struct prec_ops *ops, const struct prec_shape *shapes, int ns)
{
    int ok[PREC_NFMT];
    double total = 0, until = r->deadline;
    char item[64], why[512];
    for (int f = 0; f < PREC_NFMT; f++) {
        ok[f] = r->fmt_on[f] && (ops->gemm_formats >> f & 1u);
        if (ok[f] && probe(r, ops, f, why, sizeof why) != PREC_OK) {
            snprintf(item, sizeof item, "%s GEMM %s", upper(ops), prec_fmts[f].name);
            measure_skip(r->skipped, item, why);
            ok[f] = 0;
        }
        total += ok[f] ? prec_fmts[f].in_bytes : 0;
    }
    for (int f = 0; f < PREC_NFMT; f++) {
        if (!ok[f])
            continue;
        prec_share(r, until, prec_fmts[f].in_bytes, total);
        total -= prec_fmts[f].in_bytes;
        gemm_format(r, ops, f, shapes, ns);
    }
    r->deadline = until;
}

/* ---- intensity sweep ---------------------------------------------------------------------------- */

struct sweep_ud {
    const struct prec_ops *ops;
    struct prec_sweep *s;
    long k;
};

static double sweep_op(void *ud, long iters)
{
    struct sweep_ud *u = ud;
    return u->ops->sweep_run(u->s, u->k, iters);
}

/* 0, 1, 2, 4, ... up to max (included). */
static int ladder(long lo, long max, long *out, int cap)
{
    int n = 0;
    if (lo == 0)
        out[n++] = 0;
    for (long k = lo ? lo : 1; k < max && n < cap - 1; k *= 2)
        out[n++] = k;
    out[n++] = max;
    return n;
}

static void sweep_point(struct prec_run *r, const struct prec_ops *ops, struct prec_sweep *s, long k,
                        int left, double *fpb, double *gf, int *np)
{
    double es = s->fmt == PREC_FP64 ? 8 : 4, n = (double)s->n;
    cJSON *rec = prec_record("sweep", ops->device, s->fmt);
    cJSON_AddStringToObject(rec, "method", "fma-chain");
    cJSON_AddStringToObject(rec, "isa", s->isa);
    cJSON_AddNumberToObject(rec, "k", (double)k);
    cJSON_AddNumberToObject(rec, "n", n);
    cJSON_AddNumberToObject(rec, "array_bytes", n * es);
    double first = ops->sweep_run(s, k, 1), want = prec_chain_sum(s->n, k);
    double err = fabs(s->sum - want) / want;
    prec_add_validation(rec, err, prec_fmts[s->fmt].tolerance);
    if (err <= prec_fmts[s->fmt].tolerance) {
        struct sweep_ud u = { ops, s, k };
        struct prec_op op = { sweep_op, &u, 0, first };
        prec_time(r, &op, slot(r, left), rec);
        prec_add_rates(rec, n * prec_chain_flops(k), n * es);
        fpb[*np] = num(rec, "flops_per_byte");
        gf[(*np)++] = num(rec, "gflops_best");
    }
    cJSON_AddItemToArray(r->results, rec);
}

static void chain_sweep(struct prec_run *r, const struct prec_ops *ops, enum prec_fmt f, double bytes,
                        const long *ks, int nk)
{
    size_t es = f == PREC_FP64 ? 8 : 4;
    struct prec_sweep s = { .fmt = f, .n = (size_t)(bytes / (double)es) / 4096 * 4096, .threads = r->tmax };
    char item[96], why[256];
    double fpb[MAX_POINTS], gf[MAX_POINTS];
    int np = 0;
    snprintf(item, sizeof item, "%s intensity sweep %s", upper(ops), prec_fmts[f].name);
    if (prec_out_of_time(r, item))
        return;
    if (ops->sweep_setup(&s, why, sizeof why) != PREC_OK) {
        measure_skip(r->skipped, item, why);
        ops->sweep_release(&s);
        return;
    }
    for (int i = 0; i < nk; i++) {
        snprintf(item, sizeof item, "%s intensity sweep %s, k = %ld", upper(ops), prec_fmts[f].name, ks[i]);
        if (prec_out_of_time(r, item))
            break;
        /* past the knee the time grows with k: the last point's time scaled by the FLOPs */
        if (np > 0 && !fits(r, item, (double)s.n * prec_chain_flops(ks[i]) / (gf[np - 1] * 1e9)))
            break;
        sweep_point(r, ops, &s, ks[i], nk - i, fpb, gf, &np);
    }
    prec_knee_record(r, ops->device, f, "fma-chain", fpb, gf, np);
    ops->sweep_release(&s);
}

/* Tensor cores: GEMMs of m = n = mn whose k sets the intensity, from the smallest k the format's
 * alignment allows. prec_sweeps probed the format: a refusal here is this k's. */
static void gemm_k_sweep(struct prec_run *r, const struct prec_ops *ops, enum prec_fmt f, int mn)
{
    long ks[MAX_POINTS];
    int nk = ladder(prec_sweep_start_k(f), mn, ks, MAX_POINTS), np = 0;
    double fpb[MAX_POINTS], gf[MAX_POINTS];
    char item[128], why[512], shape[64];
    for (int i = 0; i < nk; i++) {
        snprintf(item, sizeof item, "%s GEMM k-sweep %s, k = %ld", upper(ops), prec_fmts[f].name, ks[i]);
        if (prec_out_of_time(r, item))
            break;
        struct prec_gemm g;
        gemm_init(&g, r, f, mn, mn, (int)ks[i]);
        cJSON *rec = prec_record("sweep", ops->device, f);
        cJSON_AddStringToObject(rec, "method", "gemm-k");
        int rc = gemm_measure(r, ops, &g, rec, slot(r, nk - i), why, sizeof why);
        snprintf(shape, sizeof shape, "k = %ld (m = n = %d)", ks[i], mn);
        if (rc == PREC_UNSUPPORTED)
            shape_refused(r, item, shape, why);
        else if (rc != PREC_OK)
            measure_skip(r->skipped, item, why);
        if (rc != PREC_OK)
            continue;
        const cJSON *rec_in = cJSON_GetArrayItem(r->results, cJSON_GetArraySize(r->results) - 1);
        if (isfinite(num(rec_in, "gflops_best"))) {
            fpb[np] = num(rec_in, "flops_per_byte");
            gf[np++] = num(rec_in, "gflops_best");
        }
    }
    prec_knee_record(r, ops->device, f, "gemm-k", fpb, gf, np);
}

void prec_sweeps(struct prec_run *r, const struct prec_ops *ops, double bytes)
{
    long ks[MAX_POINTS];
    int nk = ladder(0, (long)param_num(r->params, is_gpu(ops) ? "gpu_sweep_max_k" : "sweep_max_k"), ks, MAX_POINTS);
    int mn = (int)param_num(r->params, "sweep_gemm_mn"), gk[PREC_NFMT];
    double until = r->deadline, total = 0;
    char why[512], item[64];
    for (int f = 0; f < PREC_NFMT; f++) {
        gk[f] = ops->gemm_sweep && r->fmt_on[f] && (ops->gemm_formats >> f & 1u);
        if (gk[f] && probe(r, ops, f, why, sizeof why) != PREC_OK) {
            snprintf(item, sizeof item, "%s GEMM k-sweep %s", upper(ops), prec_fmts[f].name);
            measure_skip(r->skipped, item, why);
            gk[f] = 0;
        }
        total += (f <= PREC_FP32 && r->fmt_on[f]) + gk[f];
    }
    for (int f = PREC_FP64; f <= PREC_FP32; f++)
        if (r->fmt_on[f]) {
            prec_share(r, until, 1, total--);
            chain_sweep(r, ops, f, bytes, ks, nk);
        }
    for (int f = 0; f < PREC_NFMT; f++)
        if (gk[f]) {
            prec_share(r, until, 1, total--);
            gemm_k_sweep(r, ops, f, mn);
        }
    r->deadline = until;
}

/* ---- numerics ------------------------------------------------------------------------------------ */

/* FP64 D of the unquantized inputs and |A||B|, once per run (every format and device is
 * compared with the same). */
static void reference(struct prec_run *r, const struct prec_gemm *shape)
{
    if (r->ref64)
        return;
    size_t m = (size_t)shape->m, n = (size_t)shape->n, k = (size_t)shape->k;
    double *a = xmalloc(m * k * sizeof *a), *b = xmalloc(n * k * sizeof *b);
    for (size_t i = 0; i < m * k; i++)
        a[i] = prec_input(shape->seed_a, i);
    for (size_t i = 0; i < n * k; i++)
        b[i] = prec_input(shape->seed_b, i);
    r->ref64 = xmalloc(m * n * sizeof *r->ref64);
    r->absref = xmalloc(m * n * sizeof *r->absref);
    prec_ref_gemm(shape, a, b, r->ref64);
    for (size_t i = 0; i < m * k; i++)
        a[i] = fabs(a[i]);
    for (size_t i = 0; i < n * k; i++)
        b[i] = fabs(b[i]);
    prec_ref_gemm(shape, a, b, r->absref);
    free(a);
    free(b);
}

void prec_free_reference(struct prec_run *r)
{
    free(r->ref64);
    free(r->absref);
    r->ref64 = r->absref = NULL;
}

static void numerics_record(struct prec_run *r, const struct prec_ops *ops, const struct prec_gemm *g, const double *d)
{
    size_t mn = (size_t)g->m * (size_t)g->n;
    double num2 = 0, den2 = 0, worst = 0;
    for (size_t i = 0; i < mn; i++) {
        double e = d[i] - r->ref64[i];
        num2 += e * e;
        den2 += r->ref64[i] * r->ref64[i];
        double c = fabs(e) / r->absref[i];
        if (!(c <= worst))
            worst = isnan(c) ? INFINITY : c;
    }
    const struct prec_fmt_info *fi = &prec_fmts[g->fmt];
    double fro = isfinite(num2) ? sqrt(num2 / den2) : INFINITY;
    int emulated = g->emulate && g->fmt != PREC_FP64 && g->fmt != PREC_FP32;
    cJSON *rec = prec_record("numerics", ops->device, g->fmt);
    cJSON_AddStringToObject(rec, "method", emulated ? "emulated: inputs rounded in software, FP32 accumulate (SGEMM)"
                                                    : is_gpu(ops) ? "cuBLASLt" : "CBLAS");
    cJSON_AddStringToObject(rec, "algo", g->algo);      /* what the library chose: a result, not a key */
    cJSON_AddBoolToObject(rec, "emulated", emulated);
    cJSON_AddNumberToObject(rec, "m", g->m);
    cJSON_AddNumberToObject(rec, "n", g->n);
    cJSON_AddNumberToObject(rec, "k", g->k);
    cJSON_AddNumberToObject(rec, "rel_error_fro", isfinite(fro) ? fro : 1e308);
    cJSON_AddNumberToObject(rec, "rel_error_max", isfinite(worst) ? worst : 1e308);
    cJSON_AddNumberToObject(rec, "error_bound", fi->error_bound);
    cJSON_AddBoolToObject(rec, "within_bound", fro <= fi->error_bound);
    cJSON_AddStringToObject(rec, "scaling", fi->scaling);
    cJSON_AddItemToArray(r->results, rec);
}

void prec_numerics(struct prec_run *r, const struct prec_ops *ops)
{
    const cJSON *sh = param_get(r->params, "numerics_shape");
    int m = (int)cJSON_GetArrayItem(sh, 0)->valuedouble, n = (int)cJSON_GetArrayItem(sh, 1)->valuedouble;
    int k = (int)cJSON_GetArrayItem(sh, 2)->valuedouble;
    char item[96], why[512];
    for (int f = 0; f < PREC_NFMT; f++) {
        if (!r->fmt_on[f])
            continue;
        snprintf(item, sizeof item, "%s numerics %s", upper(ops), prec_fmts[f].name);
        if (prec_out_of_time(r, item))
            return;
        struct prec_gemm g;
        gemm_init(&g, r, f, m, n, k);
        g.emulate = !is_gpu(ops);       /* the CPU rounds the inputs to the format in software */
        reference(r, &g);
        if (ops->gemm_setup(&g, why, sizeof why) != PREC_OK) {
            measure_skip(r->skipped, item, why);
            ops->gemm_release(&g);
            continue;
        }
        double *d = xmalloc((size_t)m * (size_t)n * sizeof *d);
        if (isnan(ops->gemm_run(&g, 1)) && progress_cut())
            measure_skip(r->skipped, item, cut_reason());
        else if (ops->gemm_fetch(&g, NULL, m * n, d) == 0)
            numerics_record(r, ops, &g, d);
        else
            measure_skip(r->skipped, item, "the result could not be read back");
        free(d);
        ops->gemm_release(&g);
    }
}
