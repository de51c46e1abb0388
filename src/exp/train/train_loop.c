/* train_loop.c: one training configuration on one backend: validate the first step (the
 * gradient against a finite difference of the loss; the loss against the CPU FP32 reference
 * for other precisions and devices), then train step after step, each step walking the op
 * plan with a time mark between ops, and turn losses, step times and per-op times into the
 * result record; a backend's failure makes the record invalid, and one declined at open
 * (TRAIN_NOT_MEASURED) is listed as skipped. Which configurations to run is train.c's business. */
#include "exp/train/train.h"

#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measure/compute.h"
#include "measure/measure.h"
#include "measure/trained.h"
#include "exp/train/train_data.h"
#include "exp/train/train_gemm.h"
#include "util/error.h"
#include "util/progress.h"
#include "util/timing.h"

#define FD_EPS 1e-3             /* length of the finite-difference step in parameter space */
#define FD_TOL 2e-2             /* |finite difference - |g|| / |g| */
#define FINAL_SHARE 0.1         /* the final loss: mean of the last 10 % of steps (at least 1) */

/* Loss tolerances against the CPU FP32 reference, relative, for steps 0 and 1. Step 1 comes
 * after one AdamW update, whose first step is sign-like, so rounding differences in small
 * gradients are amplified: its tolerance is wider. */
static const double REF_TOL[NET_NPRECS][TRAIN_REF_STEPS] = {
    [NET_FP32] = { 1e-4, 1e-3 }, [NET_BF16] = { 1e-2, 2e-2 }, [NET_FP8] = { 5e-2, 1e-1 },
};

double train_lr(const struct train_config *cfg, int t)
{
    if (t < cfg->lr_warmup)
        return cfg->lr * (t + 1) / cfg->lr_warmup;
    double span = cfg->steps - cfg->lr_warmup;
    if (span <= 1)
        return cfg->lr;
    double q = (t - cfg->lr_warmup) / (span - 1);
    return cfg->lr_min + 0.5 * (cfg->lr - cfg->lr_min) * (1 + cos(M_PI * q));
}

struct runner {
    const struct train_ops *ops;
    const struct train_config *cfg;
    struct train_ctx *c;
    struct net_op *plan;
    int nops;
    struct train_data data;
    int32_t *tok, *tgt;         /* [accum][batch][seq] of the current step */
};

static int runner_open(struct runner *r, const struct train_ops *ops, const struct train_config *cfg,
                       char *err, size_t errlen)
{
    memset(r, 0, sizeof *r);
    r->ops = ops;
    r->cfg = cfg;
    if (train_data_init(&r->data, cfg->shape.vocab, cfg->order, cfg->branching, cfg->seed, err, errlen) != 0)
        return -1;
    if (!(r->c = ops->open(&cfg->shape, cfg->prec, cfg->seed, err, errlen)))
        return -1;
    r->plan = net_plan_new(&cfg->shape, cfg->prec, &r->nops);
    size_t n = (size_t)cfg->shape.batch * cfg->shape.seq * cfg->shape.accum;
    r->tok = xmalloc(n * sizeof *r->tok);
    r->tgt = xmalloc(n * sizeof *r->tgt);
    return 0;
}

/* The backend's first failed call since open ("FILE:LINE: CALL: words"), or NULL. */
static const char *backend_error(const struct runner *r)
{
    return r->c && r->ops->error ? r->ops->error(r->c) : NULL;
}

static void runner_close(struct runner *r)
{
    if (r->c)
        r->ops->close(r->c);
    free(r->plan);
    free(r->tok);
    free(r->tgt);
    r->c = NULL;
}

static void prepare(struct runner *r, int step)
{
    const struct net_shape *s = &r->cfg->shape;
    size_t T = (size_t)s->batch * s->seq;
    struct train_adam a = { (float)train_lr(r->cfg, step), (float)TRAIN_BETA1, (float)TRAIN_BETA2, (float)TRAIN_EPS,
                            (float)r->cfg->weight_decay, (float)(1 - pow(TRAIN_BETA1, step + 1)),
                            (float)(1 - pow(TRAIN_BETA2, step + 1)), 1.0f };
    for (int mb = 0; mb < s->accum; mb++)
        train_data_batch(&r->data, (uint64_t)step, mb, s->batch, s->seq, r->tok + mb * T, r->tgt + mb * T);
    r->ops->load(r->c, r->tok, r->tgt);
    r->ops->set_step(r->c, &a, (float)r->cfg->clip);
}

/* One whole step, a time mark before each op and after the last. */
static void step(struct runner *r)
{
    for (int i = 0; i < r->nops; i++) {
        r->ops->mark(r->c, i);
        r->ops->run(r->c, &r->plan[i]);
    }
    r->ops->mark(r->c, r->nops);
}

/* Only the ops of one phase, or everything but the weight update (phase < 0). */
static void run_part(struct runner *r, int phase)
{
    for (int i = 0; i < r->nops; i++) {
        const struct net_op *op = &r->plan[i];
        int update = op->kind == NET_OP_ADAMW || op->kind == NET_OP_QUANTIZE_WEIGHTS;
        if (phase < 0 ? !update : (int)op->phase == phase)
            r->ops->run(r->c, op);
    }
}

int train_losses(const struct train_ops *ops, const struct train_config *cfg, int steps,
                 double *losses, char *err, size_t errlen)
{
    struct runner r;
    if (runner_open(&r, ops, cfg, err, errlen) != 0) {
        runner_close(&r);
        return -1;
    }
    for (int t = 0; t < steps; t++) {
        prepare(&r, t);
        step(&r);
        losses[t] = ops->loss(r.c);
    }
    const char *why = backend_error(&r);
    if (why)
        snprintf(err, errlen, "%s", why);
    runner_close(&r);
    return why ? -1 : 0;
}

/* ---- validation ---- */

static void add_check(cJSON *checks, const char *name, double value, double want, double tol, const char *note)
{
    cJSON *c = cJSON_CreateObject();
    double rel = fabs(value - want) / fmax(fabs(want), 1e-30);
    cJSON_AddStringToObject(c, "check", name);
    cJSON_AddNumberToObject(c, "value", isfinite(value) ? value : 1e308);
    cJSON_AddNumberToObject(c, "reference", want);
    cJSON_AddNumberToObject(c, "relative_error", isfinite(rel) ? rel : 1e308);
    cJSON_AddNumberToObject(c, "tolerance", tol);
    cJSON_AddBoolToObject(c, "pass", rel <= tol);
    cJSON_AddStringToObject(c, "note", note);
    cJSON_AddItemToArray(checks, c);
}

/* The directional derivative of the loss along g/|g| by central differences must be |g|.
 * Leaves the weights at their initial values. */
static void gradient_check(struct runner *r, cJSON *checks)
{
    const struct train_ops *o = r->ops;
    prepare(r, 0);
    run_part(r, -1);
    double norm = o->grad_norm(r->c), lp, lm;
    o->perturb(r->c, FD_EPS);
    run_part(r, NET_FWD);
    lp = o->loss(r->c);
    o->perturb(r->c, -2 * FD_EPS);
    run_part(r, NET_FWD);
    lm = o->loss(r->c);
    o->reset(r->c);
    char note[160];
    snprintf(note, sizeof note, "(L(w + e u) - L(w - e u)) / 2e with u = g/|g|, e = %g, against |g| on the first "
             "batch", FD_EPS);
    add_check(checks, "gradient vs finite difference", (lp - lm) / (2 * FD_EPS), norm, FD_TOL, note);
}

static void reference_checks(const struct train_config *cfg, const double *loss, int n,
                             const struct train_reference *ref, cJSON *checks)
{
    for (int t = 0; t < TRAIN_REF_STEPS && t < n; t++) {
        char name[64], note[160];
        snprintf(name, sizeof name, "step %d loss vs CPU FP32", t);
        snprintf(note, sizeof note, "same seed, weights and batch; reference: %s", ref->source);
        add_check(checks, name, loss[t], ref->loss[t], REF_TOL[cfg->prec][t], note);
    }
}

/* ---- the record ---- */

static cJSON *config_json(const struct train_config *cfg)
{
    const struct net_shape *s = &cfg->shape;
    cJSON *rec = cJSON_CreateObject();
    cJSON_AddStringToObject(rec, "shape", cfg->shape_name);
    cJSON_AddStringToObject(rec, "precision", net_prec_names[cfg->prec]);
    cJSON_AddNumberToObject(rec, "layers", s->layers);
    cJSON_AddNumberToObject(rec, "hidden", s->hidden);
    cJSON_AddNumberToObject(rec, "heads", s->heads);
    cJSON_AddNumberToObject(rec, "seq", s->seq);
    cJSON_AddNumberToObject(rec, "vocab", s->vocab);
    cJSON_AddNumberToObject(rec, "batch", s->batch);
    cJSON_AddNumberToObject(rec, "accum", s->accum);
    cJSON_AddBoolToObject(rec, "checkpoint", s->checkpoint);
    cJSON_AddBoolToObject(rec, "tied", s->tied);
    cJSON_AddNumberToObject(rec, "params", (double)net_param_count(s));
    cJSON_AddNumberToObject(rec, "tokens_per_step", (double)s->batch * s->seq * s->accum);
    cJSON_AddNumberToObject(rec, "steps", cfg->steps);
    cJSON_AddNumberToObject(rec, "warmup", cfg->warmup);
    cJSON_AddNumberToObject(rec, "lr", cfg->lr);
    cJSON_AddNumberToObject(rec, "lr_min", cfg->lr_min);
    cJSON_AddNumberToObject(rec, "lr_warmup", cfg->lr_warmup);
    cJSON_AddNumberToObject(rec, "weight_decay", cfg->weight_decay);
    cJSON_AddNumberToObject(rec, "clip", cfg->clip);
    cJSON_AddNumberToObject(rec, "seed", (double)cfg->seed);
    cJSON_AddNumberToObject(rec, "ngram_order", cfg->order);
    cJSON_AddNumberToObject(rec, "ngram_branching", cfg->branching);
    return rec;
}

static void memory_json(cJSON *rec, const struct train_config *cfg, enum net_impl impl, double allocated,
                        double rss_peak)
{
    struct net_memory mm;
    net_memory(&cfg->shape, cfg->prec, impl, &mm);
    cJSON *m = cJSON_AddObjectToObject(rec, "memory");
    cJSON_AddNumberToObject(m, "planned_bytes", mm.total);
    cJSON_AddNumberToObject(m, "allocated_bytes", allocated);
    if (rss_peak > 0)
        cJSON_AddNumberToObject(m, "peak_rss_bytes", rss_peak);
    for (int i = 0; i < NET_NMEM; i++)
        cJSON_AddNumberToObject(m, net_mem_names[i], mm.bytes[i]);
    cJSON_AddNumberToObject(m, "static_bytes_per_param",
                            (mm.bytes[NET_MEM_WEIGHTS] + mm.bytes[NET_MEM_LOW] + mm.bytes[NET_MEM_GRADS]
                             + mm.bytes[NET_MEM_OPTIMIZER]) / mm.params);
}

static cJSON *op_json(const struct net_op *op, int i, double t)
{
    char label[128];
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "index", i);
    cJSON_AddStringToObject(o, "op", net_kinds[op->kind].name);
    cJSON_AddStringToObject(o, "label", net_op_label(op, label, sizeof label));
    cJSON_AddStringToObject(o, "class", net_class_names[net_kinds[op->kind].cls]);
    cJSON_AddStringToObject(o, "phase", net_phase_names[op->phase]);
    cJSON_AddNumberToObject(o, "layer", op->layer);
    cJSON_AddNumberToObject(o, "micro", op->micro);
    cJSON_AddNumberToObject(o, "m", op->m);
    cJSON_AddNumberToObject(o, "n", op->n);
    cJSON_AddNumberToObject(o, "k", op->k);
    cJSON_AddStringToObject(o, "dtype", net_dtype_names[op->dtype]);
    cJSON_AddStringToObject(o, "dtype_out", net_dtype_names[op->dtype_out]);
    cJSON_AddNumberToObject(o, "flops", op->flops);
    cJSON_AddNumberToObject(o, "bytes_read", op->bytes_read);
    cJSON_AddNumberToObject(o, "bytes_written", op->bytes_written);
    if (isfinite(t))
        cJSON_AddNumberToObject(o, "time_s", t);
    return o;
}

/* FLOPs of the plan: model FLOPs (matmuls and attention products of forward and backward,
 * what MFU counts) and every FLOP executed (recomputation and the other ops included). */
static void plan_flops(const struct runner *r, double *model, double *all)
{
    *model = *all = 0;
    for (int i = 0; i < r->nops; i++) {
        const struct net_op *op = &r->plan[i];
        enum net_class c = net_kinds[op->kind].cls;
        *all += op->flops;
        if ((c == NET_MATMUL || c == NET_ATTENTION) && op->phase != NET_RECOMPUTE)
            *model += op->flops;
    }
}

/* Per-op medians, per-class medians of per-step sums, and the op records. op_s: [n][nops]. */
static void times_json(cJSON *rec, const struct runner *r, double *op_s, int n)
{
    double *col = xmalloc((size_t)(n > 0 ? n : 1) * sizeof *col), cls[NET_NCLASSES] = { 0 };
    cJSON *ops = cJSON_AddArrayToObject(rec, "ops");
    for (int i = 0; i < r->nops; i++) {
        for (int k = 0; k < n; k++)
            col[k] = op_s[(size_t)k * r->nops + i];
        cJSON_AddItemToArray(ops, op_json(&r->plan[i], i, n > 0 ? measure_median(col, n) : NAN));
    }
    cJSON_AddItemToObject(rec, "time_by_class_s", measure_class_medians(r->plan, r->nops, op_s, n));
    cJSON *fc = cJSON_AddObjectToObject(rec, "flops_by_class");
    for (int i = 0; i < r->nops; i++)
        cls[net_kinds[r->plan[i].kind].cls] += r->plan[i].flops;
    for (int c = 0; c < NET_NCLASSES; c++)
        cJSON_AddNumberToObject(fc, net_class_names[c], cls[c]);
    free(col);
}

/* Each matmul op of the step is a GEMM measured in this run: its median rate is offered to the
 * run's GEMM rate (measure/compute.h), which no later ceiling may be below. A CPU's matmuls all
 * compute in FP32 (BF16 operands are widened); a GPU's in their operands' dtype. */
static void offer_gemms(const struct runner *r, const double *op_s, int n)
{
    static const char *const prec[NET_NDTYPES] = { [NET_DT_F32] = "fp32", [NET_DT_BF16] = "bf16", [NET_DT_E4M3] = "fp8" };
    double *col = xmalloc((size_t)(n > 0 ? n : 1) * sizeof *col);
    int cpu = strcmp(r->ops->device, "cpu") == 0;
    for (int i = 0; i < r->nops && n > 0; i++) {
        const struct net_op *op = &r->plan[i];
        const char *p = cpu ? "fp32" : prec[op->dtype];
        if (net_kinds[op->kind].cls != NET_MATMUL || !p || !(op->flops > 0))
            continue;
        for (int k = 0; k < n; k++)
            col[k] = op_s[(size_t)k * r->nops + i];
        struct measure_gemm g = { op->flops / measure_median(col, n) / 1e9, (int)op->m, (int)op->n, (int)op->k, "", "train" };
        snprintf(g.routine, sizeof g.routine, "%s op of the training step", net_kinds[op->kind].name);
        measure_gemm_offer(r->ops->device, p, &g);
    }
    free(col);
}

/* The final loss: the mean of the last FINAL_SHARE of n steps (one at least). */
static double final_loss(const double *loss, int n)
{
    int k = (int)ceil(n * FINAL_SHARE);
    double fin = 0;
    for (int i = n - k; i < n; i++)
        fin += loss[i] / k;
    return fin;
}

static void loss_json(cJSON *rec, const struct runner *r, const double *loss, const double *gnorm, int n)
{
    int k = (int)ceil(n * FINAL_SHARE);
    double fin = final_loss(loss, n), bound = r->data.entropy;
    cJSON_AddItemToObject(rec, "loss", cJSON_CreateDoubleArray(loss, n));
    cJSON_AddItemToObject(rec, "grad_norm", cJSON_CreateDoubleArray(gnorm, n));
    cJSON_AddNumberToObject(rec, "entropy_bound_nats", bound);
    cJSON_AddNumberToObject(rec, "uniform_loss_nats", log((double)r->cfg->shape.vocab));
    if (n == 0)
        return;
    cJSON_AddNumberToObject(rec, "loss_first", loss[0]);
    cJSON_AddNumberToObject(rec, "loss_final", fin);
    cJSON_AddNumberToObject(rec, "loss_final_steps", k);
    cJSON_AddNumberToObject(rec, "excess_loss_nats", fin - bound);
    cJSON_AddNumberToObject(rec, "gap_closed", (loss[0] - fin) / (loss[0] - bound));
}

/* ---- peak resident memory: reset, then read, the high-water mark (Linux >= 4.0) ---- */

static int rss_reset(void)
{
    FILE *f = fopen("/proc/self/clear_refs", "w");
    if (!f)
        return -1;
    int ok = fputs("5", f) >= 0;
    return fclose(f) == 0 && ok ? 0 : -1;
}

static double rss_peak(void)
{
    char line[256];
    double kb = -1;
    FILE *f = fopen("/proc/self/status", "r");
    if (!f)
        return -1;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "VmHWM: %lf kB", &kb) == 1)
            break;
    fclose(f);
    return kb > 0 ? kb * 1024 : -1;
}

/* ---- one configuration ---- */

struct outcome {
    double *loss, *gnorm, *step_s, *op_s;   /* [steps], [steps], [steps], [steps][nops] */
    int done, timed;
    const char *stop;
};

#define PROGRESS_EVERY_S 5.0

static void train_steps(struct runner *r, struct outcome *o, double t0)
{
    const struct train_config *cfg = r->cfg;
    double said = timing_now();
    o->stop = "done";
    for (int t = 0; t < cfg->steps; t++) {
        if (progress_stopping()) { o->stop = "interrupted"; break; }
        if (t > 0 && timing_now() - t0 > cfg->budget_s) { o->stop = "budget"; break; }
        if (timing_now() - said > PROGRESS_EVERY_S) {
            char item[96];
            snprintf(item, sizeof item, "%s %s: step %d of %d", cfg->shape_name, net_prec_names[cfg->prec], t,
                     cfg->steps);
            progress_step(cfg->progress, item);
            said = timing_now();
        }
        prepare(r, t);
        step(r);
        double *row = o->op_s + (size_t)(t >= cfg->warmup ? o->timed : 0) * r->nops, sum = 0;
        r->ops->elapsed(r->c, r->nops, row);
        for (int i = 0; i < r->nops; i++)
            sum += row[i];
        o->loss[t] = r->ops->loss(r->c);
        o->gnorm[t] = r->ops->grad_norm(r->c);
        if (backend_error(r)) { o->stop = "error"; break; }
        if (t >= cfg->warmup)
            o->step_s[o->timed++] = sum;
        o->done = t + 1;
    }
}

static void outcome_json(cJSON *rec, struct runner *r, struct outcome *o)
{
    const struct train_config *cfg = r->cfg;
    double model, all, tokens = (double)cfg->shape.batch * cfg->shape.seq * cfg->shape.accum;
    plan_flops(r, &model, &all);
    cJSON_AddNumberToObject(rec, "steps_done", o->done);
    cJSON_AddStringToObject(rec, "stop", o->stop);
    cJSON_AddNumberToObject(rec, "model_flops_per_step", model);
    cJSON_AddNumberToObject(rec, "executed_flops_per_step", all);
    cJSON_AddNumberToObject(rec, "megatron_flops_per_step", net_megatron_flops(&cfg->shape, 0));
    loss_json(rec, r, o->loss, o->gnorm, o->done);
    if (o->timed > 0) {
        double med = measure_median(o->step_s, o->timed);
        cJSON_AddItemToObject(rec, "time_s", measure_stats(o->step_s, o->timed));
        cJSON_AddItemToObject(rec, "samples_s", cJSON_CreateDoubleArray(o->step_s, o->timed));
        cJSON_AddNumberToObject(rec, "tokens_per_s", tokens / med);
        cJSON_AddNumberToObject(rec, "achieved_flops", model / med);
    } else {
        cJSON_AddStringToObject(rec, "not_timed", "no step after the warm-up steps ran");
    }
    times_json(rec, r, o->op_s, o->timed);
    if (!backend_error(r))
        offer_gemms(r, o->op_s, o->timed);
}

/* Offers the trained weights to the run's service (measure/trained.h), for the families that
 * measure on the largest model the run trained; only the CPU backend can hand its weights over. */
static void offer_trained(struct runner *r, const struct outcome *o)
{
    const struct train_config *cfg = r->cfg;
    if (r->ops != &train_cpu_ops || o->done == 0 || backend_error(r))
        return;
    struct measure_trained m = { cfg->shape, cfg->shape_name, net_prec_names[cfg->prec], r->ops->device,
                                 (double)net_param_count(&cfg->shape), cfg->steps, o->done, final_loss(o->loss, o->done),
                                 r->data.entropy, cfg->seed, cfg->order, cfg->branching, train_cpu_params(r->c) };
    measure_trained_offer(&m);
}

static int all_pass(const cJSON *checks)
{
    for (const cJSON *c = checks->child; c; c = c->next)
        if (!cJSON_IsTrue(cJSON_GetObjectItem(c, "pass")))
            return 0;
    return 1;
}

static void validate(struct runner *r, struct train_reference *ref, cJSON *checks)
{
    const struct train_config *cfg = r->cfg;
    if (cfg->prec == NET_FP32)
        gradient_check(r, checks);
    if (r->ops == &train_cpu_ops && cfg->prec == NET_FP32)
        return;                 /* this run is the reference */
    if (ref && !ref->have) {
        struct train_config rc = *cfg;
        char err[256];
        rc.prec = NET_FP32;
        if (train_losses(&train_cpu_ops, &rc, TRAIN_REF_STEPS, ref->loss, err, sizeof err) == 0) {
            ref->have = 1;
            snprintf(ref->source, sizeof ref->source, "a %d-step CPU FP32 run of the same shape and seed", TRAIN_REF_STEPS);
        }
    }
    if (!ref || !ref->have)
        return;
    double loss[TRAIN_REF_STEPS];
    for (int t = 0; t < TRAIN_REF_STEPS && t < cfg->steps; t++) {
        prepare(r, t);
        step(r);
        loss[t] = r->ops->loss(r->c);
    }
    r->ops->reset(r->c);
    reference_checks(cfg, loss, cfg->steps < TRAIN_REF_STEPS ? cfg->steps : TRAIN_REF_STEPS, ref, checks);
}

/* Trains and times one opened configuration into rec; valid only when validation passed and the
 * backend did not fail, during validation or any step. */
static void config_train(struct runner *r, struct train_reference *ref, cJSON *rec, double t0)
{
    const struct train_config *cfg = r->cfg;
    const struct train_ops *ops = r->ops;
    cJSON *checks = cJSON_AddArrayToObject(rec, "checks");
    if (cfg->validate)
        validate(r, ref, checks);
    int ok = all_pass(checks) && !backend_error(r);
    if (!ok) {
        cJSON_AddBoolToObject(rec, "valid", 0);
        cJSON_AddStringToObject(rec, "error", backend_error(r) ? backend_error(r) : "validation failed: not trained or timed");
        return;
    }
    struct outcome o = { 0 };
    o.loss = xcalloc((size_t)cfg->steps, sizeof *o.loss);
    o.gnorm = xcalloc((size_t)cfg->steps, sizeof *o.gnorm);
    o.step_s = xcalloc((size_t)cfg->steps, sizeof *o.step_s);
    o.op_s = xcalloc((size_t)cfg->steps * (size_t)r->nops, sizeof *o.op_s);
    train_steps(r, &o, t0);
    cJSON_AddBoolToObject(rec, "valid", !backend_error(r));   /* a failed step fails the configuration */
    outcome_json(rec, r, &o);
    offer_trained(r, &o);
    if (backend_error(r))
        cJSON_AddStringToObject(rec, "error", backend_error(r));
    if (ref && ops == &train_cpu_ops && cfg->prec == NET_FP32 && o.done >= TRAIN_REF_STEPS && !ref->have) {
        memcpy(ref->loss, o.loss, sizeof ref->loss);
        ref->have = 1;
        snprintf(ref->source, sizeof ref->source, "the CPU FP32 configuration of this run");
    }
    free(o.loss); free(o.gnorm); free(o.step_s); free(o.op_s);
}

/* The record of one configuration; NULL with the reason in declined when the backend declined
 * it at open (TRAIN_NOT_MEASURED) and declined is not NULL. */
static cJSON *config_run(const struct train_ops *ops, const struct train_config *cfg, struct train_reference *ref,
                         char *declined, size_t n)
{
    struct runner r;
    char err[512];
    double t0 = timing_now();
    int have_rss = rss_reset() == 0;
    cJSON *rec = config_json(cfg);
    cJSON_AddStringToObject(rec, "device", ops->device);
    if (runner_open(&r, ops, cfg, err, sizeof err) != 0) {
        runner_close(&r);
        if (declined && strncmp(err, TRAIN_NOT_MEASURED, strlen(TRAIN_NOT_MEASURED)) == 0) {
            snprintf(declined, n, "%s", err);
            cJSON_Delete(rec);
            return NULL;
        }
        cJSON_AddBoolToObject(rec, "valid", 0);
        cJSON_AddStringToObject(rec, "error", err);
        return rec;
    }
    config_train(&r, ref, rec, t0);
    memory_json(rec, cfg, ops->impl, ops->allocated(r.c), have_rss ? rss_peak() : -1);
    cJSON_AddNumberToObject(rec, "threads", omp_get_max_threads());
    cJSON_AddNumberToObject(rec, "elapsed_s", timing_now() - t0);
    runner_close(&r);
    return rec;
}

cJSON *train_config_run(const struct train_ops *ops, const struct train_config *cfg, struct train_reference *ref)
{
    return config_run(ops, cfg, ref, NULL, 0);
}

void train_config_add(const struct train_ops *ops, const struct train_config *cfg, struct train_reference *ref,
                      const char *item, cJSON *results, cJSON *skipped)
{
    char why[512];
    cJSON *rec = config_run(ops, cfg, ref, why, sizeof why);
    if (rec)
        cJSON_AddItemToArray(results, rec);
    else
        measure_skip(skipped, item, why);
}

double train_ref_tolerance(enum net_prec p, int t)
{
    return REF_TOL[p][t < TRAIN_REF_STEPS ? t : TRAIN_REF_STEPS - 1];
}

/* ---- stepping for another experiment (train.h) ---- */

struct train_stepper {
    struct runner r;
    double *op_s;               /* [nops]: the last step's ops */
};

struct train_stepper *train_stepper_open(const struct train_ops *ops, const struct train_config *cfg, char *err,
                                         size_t errlen)
{
    struct train_stepper *s = xcalloc(1, sizeof *s);
    if (runner_open(&s->r, ops, cfg, err, errlen) != 0) {
        runner_close(&s->r);
        free(s);
        return NULL;
    }
    s->op_s = xcalloc((size_t)s->r.nops, sizeof *s->op_s);
    return s;
}

double train_stepper_step(struct train_stepper *s, int t)
{
    double sum = 0;
    prepare(&s->r, t);
    step(&s->r);
    s->r.ops->elapsed(s->r.c, s->r.nops, s->op_s);
    for (int i = 0; i < s->r.nops; i++)
        sum += s->op_s[i];
    return backend_error(&s->r) ? NAN : sum;
}

double train_stepper_loss(struct train_stepper *s) { return s->r.ops->loss(s->r.c); }

const char *train_stepper_error(struct train_stepper *s) { return backend_error(&s->r); }

void train_stepper_close(struct train_stepper *s)
{
    if (!s)
        return;
    runner_close(&s->r);
    free(s->op_s);
    free(s);
}
