/* stack.c: the GPU software-stack profiles (efficiency per op class against size), their fit on
 * the published runs of data/gpu-runs.csv by least squares in log(predicted / published), and
 * the leave-one-out check that tells how far a profile can be trusted on a run it never saw. */
#include "predict/stack.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"

const char *const predict_stack_param_names[PREDICT_NSTACKP] = {
    "matmul_eta_ampere", "matmul_eta_hopper", "matmul_half_s", "attention_eta_ampere", "attention_eta_hopper",
    "memory_eta", "op_s" };

/* Start of every fit and the bounds the parameters are held in (efficiencies at most 1). */
static const double p_start[PREDICT_NSTACKP] = { 0.7, 0.7, 1e-4, 0.5, 0.5, 0.7, 1e-5 };
static const double p_min[PREDICT_NSTACKP] = { 0.05, 0.05, 1e-7, 0.05, 0.05, 0.05, 1e-7 };
static const double p_max[PREDICT_NSTACKP] = { 1, 1, 1e-2, 1, 1, 1, 1e-2 };

/* Catalog systems by generation: the A100 and the Hopper parts (H100, H200 and GH200 carry the
 * same GPU die, NVIDIA datasheets). */
static const struct { const char *id; int gen; } gens[] = {
    { "a100-80g-sxm", PREDICT_AMPERE }, { "h100-sxm", PREDICT_HOPPER }, { "h100-pcie", PREDICT_HOPPER },
    { "h200-sxm", PREDICT_HOPPER }, { "gh200-96g", PREDICT_HOPPER }, { "gh200-144g", PREDICT_HOPPER },
};

int predict_stack_gen(const char *system_id)
{
    for (size_t i = 0; i < sizeof gens / sizeof gens[0]; i++)
        if (strcmp(gens[i].id, system_id) == 0)
            return gens[i].gen;
    return -1;
}

/* Kernel launch gap of a stack that launches its own kernels back to back on one stream (the
 * research note's 2-6 us, central). */
#define FUSED_OP_S 4e-6
/* DRAM efficiency of kernels written to stream at bandwidth: cuBLAS and FlashAttention reading
 * their operands, a fused stack's own elementwise kernels (research note 4.5: "a DRAM-level eta_m
 * of about 0.8-0.9 on HBM parts"; large copies reach 88-94 % of the HBM roof). The fitted
 * memory_eta is what a framework's elementwise ops reach, its extra passes included. */
#define STREAM_ETA 0.85

static struct predict_stack stacks[] = {
    { .id = "pytorch", .name = "PyTorch with FSDP (MosaicML llm-foundry, Composer, FlashAttention)",
      .fitted_on = "pytorch",
      .basis = "fitted on MosaicML llm-foundry's published throughput tables (A100 80GB and H100 80GB, BF16): "
               "PyTorch eager kernels under autocast, FlashAttention, FSDP" },
    { .id = "fused-cuda", .name = "fused CUDA training code (llm.c)", .fitted_on = "pytorch",
      .fused = { [NET_OP_RESIDUAL] = 1, [NET_OP_CAST_GRAD] = 1, [NET_OP_QUANTIZE] = 1 },
      .op_s_override = FUSED_OP_S, .mem_eta_override = STREAM_ETA,
      .basis = "the PyTorch profile's matmul and attention efficiencies (the same cuBLAS and "
               "FlashAttention-class kernels) with llm.c's fusions (karpathy/llm.c train_gpt2.cu: the residual "
               "add fused into the next layernorm, BF16 outputs written by the kernels that produce them, "
               "softmax, loss and its gradient in one classifier kernel), one kernel launch (4 us) per op "
               "instead of the framework's fitted per-op cost, and its own elementwise kernels streaming at "
               "0.85 of the bandwidth (research note 4.5) instead of PyTorch's fitted share" },
};
#define NSTACKS ((int)(sizeof stacks / sizeof stacks[0]))

const struct predict_stack *predict_stack_find(const char *id)
{
    for (int i = 0; id && i < NSTACKS; i++)
        if (strcmp(stacks[i].id, id) == 0)
            return &stacks[i];
    return NULL;
}

/* One op's seconds under parameters p. */
static double op_seconds(const struct predict_stack *st, const double *p, const struct predict_target *t,
                         const struct net_op *op, int *mem_bound)
{
    enum net_class cls = net_kinds[op->kind].cls;
    double tc = 0, tm, op_s = st->op_s_override > 0 ? st->op_s_override : p[PREDICT_OP_S];
    if (mem_bound)
        *mem_bound = 0;
    if (st->fused[op->kind])
        return 0;
    if (cls == NET_MATMUL) {
        double x = op->flops / t->peak;
        tc = op->flops / ((t->sustained ? 1 : p[PREDICT_MM_ETA + t->gen]) * x / (x + p[PREDICT_MM_HALF]) * t->peak);
    } else if (cls == NET_ATTENTION) {
        tc = op->flops / ((t->sustained ? 1 : p[PREDICT_ATT_ETA + t->gen]) * t->peak);
    }
    double mem_eta = cls == NET_MATMUL || cls == NET_ATTENTION ? STREAM_ETA
                     : st->mem_eta_override > 0 ? st->mem_eta_override : p[PREDICT_MEM_ETA];
    tm = (op->bytes_read + op->bytes_written) / (mem_eta * t->bw);
    if (mem_bound)              /* its bytes, not its FLOPs or its fixed cost, take the most time */
        *mem_bound = tm > tc && tm > op_s;
    return fmax(tc, tm) + op_s;
}

double predict_stack_op_seconds(const struct predict_stack *st, const struct predict_target *t,
                                const struct net_op *op, int *mem_bound)
{
    return op_seconds(st, st->p, t, op, mem_bound);
}

/* ---- the runs ---- */

static const char *text(const cJSON *row, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(row, name);
    return cJSON_IsString(v) ? v->valuestring : "";
}

static double number(const cJSON *row, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(row, name);
    if (cJSON_IsNumber(v))
        return v->valuedouble;
    char *end;
    double x = cJSON_IsString(v) ? strtod(v->valuestring, &end) : NAN;
    return cJSON_IsString(v) && end != v->valuestring && *end == '\0' ? x : NAN;
}

static const cJSON *catalog_row(const cJSON *catalog, const char *id)
{
    const cJSON *row;
    cJSON_ArrayForEach(row, catalog) {
        if (strcmp(text(row, "id"), id) == 0)
            return row;
    }
    return NULL;
}

/* The plan of one micro-batch, layers after the first folded into the first (identical ops),
 * with the weight each op counts: L for a block's op, 1 otherwise; the update's ops carry
 * micro -1. */
static void run_ops(struct predict_run *r)
{
    struct net_shape one = r->shape;
    one.accum = 1;
    int n, k = 0;
    struct net_op *all = net_plan_new(&one, r->prec, &n);
    r->ops = xmalloc((size_t)n * sizeof *r->ops);
    r->weight = xmalloc((size_t)n * sizeof *r->weight);
    for (int i = 0; i < n; i++) {
        if (all[i].layer > 0)
            continue;
        r->ops[k] = all[i];
        r->weight[k++] = all[i].layer == 0 ? one.layers : 1;
    }
    r->nops = k;
    free(all);
}

static int run_from_row(const cJSON *row, const cJSON *catalog, struct predict_run *r, char *err, size_t errlen)
{
    memset(r, 0, sizeof *r);
    snprintf(r->id, sizeof r->id, "%s", text(row, "id"));
    snprintf(r->system, sizeof r->system, "%s", text(row, "system"));
    snprintf(r->stack, sizeof r->stack, "%s", text(row, "stack"));
    snprintf(r->model, sizeof r->model, "%s", text(row, "model"));
    snprintf(r->source, sizeof r->source, "%s", text(row, "source"));
    const cJSON *sys = catalog_row(catalog, r->system);
    const char *prec = text(row, "precision");
    r->shape = (struct net_shape){ .layers = (int)number(row, "layers"), .hidden = (int)number(row, "hidden"),
        .heads = (int)number(row, "heads"), .seq = (int)number(row, "seq"), .vocab = (int)number(row, "vocab"),
        .batch = (int)number(row, "micro_batch"), .accum = (int)number(row, "accum"),
        .checkpoint = (int)number(row, "checkpoint"), .tied = 1, .nobias = number(row, "biases") == 0,
        .attention = NET_ATT_FLASH, .amp = 1, .causal = 1 };     /* as both stacks run it: BF16 activations */
    r->prec = strcmp(prec, "fp8") == 0 ? NET_FP8 : NET_BF16;
    r->gpus = (int)number(row, "gpus");
    r->sharded = strcmp(text(row, "sharding"), "NO_SHARD") != 0;
    r->published = number(row, "tokens_per_s_per_gpu");
    r->peak = number(sys, r->prec == NET_FP8 ? "fp8_tflops" : "bf16_tflops") * 1e12;
    r->bw = number(sys, "mem_bw_gbs") * 1e9;
    r->gen = predict_stack_gen(r->system);
    const char *why = !sys ? "names a system the catalog lacks" : !predict_stack_find(r->stack) ? "names an unknown stack"
                      : net_shape_problem(&r->shape) ? net_shape_problem(&r->shape)
                      : !(r->published > 0) || !(r->gpus > 0) ? "has no tokens_per_s_per_gpu or gpus above 0"
                      : !(r->peak > 0 && r->bw > 0) ? "names a system without a dense peak or bandwidth"
                      : r->gen < 0 ? "names a system of a GPU generation the profiles do not fit" : NULL;
    if (why) {
        snprintf(err, errlen, "data/gpu-runs.csv: run '%.60s' %s", r->id, why);
        return -1;
    }
    run_ops(r);
    return 0;
}

int predict_runs_load(const cJSON *runs, const cJSON *catalog, struct predict_run **out, char *err, size_t errlen)
{
    int n = 0, cap = cJSON_GetArraySize(runs);
    const cJSON *row;
    *out = cap ? xmalloc((size_t)cap * sizeof **out) : NULL;
    cJSON_ArrayForEach(row, runs) {
        if (run_from_row(row, catalog, &(*out)[n], err, errlen) < 0) {
            predict_runs_free(*out, n);
            *out = NULL;
            return -1;
        }
        n++;
    }
    return n;
}

void predict_runs_free(struct predict_run *runs, int n)
{
    for (int i = 0; i < n; i++) {
        free(runs[i].ops);
        free(runs[i].weight);
    }
    free(runs);
}

double predict_run_tokens(const struct predict_stack *st, const double *p, const struct predict_run *r)
{
    double micro = 0, update = 0;
    struct predict_target tg = { r->peak, r->bw, r->gen, 0 };
    for (int i = 0; i < r->nops; i++) {
        double t = r->weight[i] * op_seconds(st, p, &tg, &r->ops[i], NULL);
        if (r->ops[i].micro < 0)
            update += t;
        else
            micro += t;
    }
    if (r->sharded)
        update /= r->gpus;
    double tokens = (double)r->shape.batch * r->shape.seq * r->shape.accum;
    return tokens / (r->shape.accum * micro + update);
}

/* ---- the fit ---- */

struct fit_set {
    const struct predict_stack *st;
    const struct predict_run *runs;
    int n, skip;                /* fit on runs[0..n) of st's fitted_on stack, except runs[skip] */
};

static int in_fit(const struct fit_set *f, int i)
{
    return i != f->skip && strcmp(f->runs[i].stack, f->st->fitted_on) == 0;
}

/* Parameters from the search's coordinates: a logistic map onto [log min, log max], smooth
 * everywhere, so that the simplex never lies on a flat clamp. */
static void params_of(const double *theta, double *p)
{
    for (int j = 0; j < PREDICT_NSTACKP; j++)
        p[j] = exp(log(p_min[j]) + log(p_max[j] / p_min[j]) / (1 + exp(-theta[j])));
}

static double coordinate_of(int j, double p)
{
    double f = log(p / p_min[j]) / log(p_max[j] / p_min[j]);
    return log(f / (1 - f));
}

static double cost(const struct fit_set *f, const double *theta)
{
    double p[PREDICT_NSTACKP], c = 0;
    params_of(theta, p);
    for (int i = 0; i < f->n; i++) {
        if (!in_fit(f, i))
            continue;
        double r = log(predict_run_tokens(f->st, p, &f->runs[i]) / f->runs[i].published);
        c += r * r;
    }
    return c;
}

/* Nelder-Mead (reflection 1, expansion 2, contraction 0.5, shrink 0.5) from theta. */
#define NM (PREDICT_NSTACKP + 1)
static void minimise(const struct fit_set *f, double *theta, int iterations)
{
    double x[NM][PREDICT_NSTACKP], c[NM];
    for (int i = 0; i < NM; i++) {
        memcpy(x[i], theta, sizeof x[i]);
        if (i > 0)
            x[i][i - 1] += 0.5;
        c[i] = cost(f, x[i]);
    }
    for (int it = 0; it < iterations; it++) {
        int hi = 0, lo = 0;
        for (int i = 1; i < NM; i++) {
            hi = c[i] > c[hi] ? i : hi;
            lo = c[i] < c[lo] ? i : lo;
        }
        int second = lo;
        for (int i = 0; i < NM; i++)
            second = i != hi && c[i] > c[second] ? i : second;
        double mid[PREDICT_NSTACKP] = { 0 }, r[PREDICT_NSTACKP], e[PREDICT_NSTACKP];
        for (int i = 0; i < NM; i++)
            for (int j = 0; i != hi && j < PREDICT_NSTACKP; j++)
                mid[j] += x[i][j] / (NM - 1);
        for (int j = 0; j < PREDICT_NSTACKP; j++)
            r[j] = 2 * mid[j] - x[hi][j];
        double cr = cost(f, r);
        if (cr < c[lo]) {
            for (int j = 0; j < PREDICT_NSTACKP; j++)
                e[j] = 3 * mid[j] - 2 * x[hi][j];
            double ce = cost(f, e);
            memcpy(x[hi], ce < cr ? e : r, sizeof x[hi]);
            c[hi] = fmin(ce, cr);
        } else if (cr < c[second]) {
            memcpy(x[hi], r, sizeof x[hi]);
            c[hi] = cr;
        } else {
            for (int j = 0; j < PREDICT_NSTACKP; j++)
                e[j] = 0.5 * (mid[j] + x[hi][j]);
            double ce = cost(f, e);
            if (ce < c[hi]) {
                memcpy(x[hi], e, sizeof x[hi]);
                c[hi] = ce;
            } else {
                for (int i = 0; i < NM; i++)
                    for (int j = 0; i != lo && j < PREDICT_NSTACKP; j++)
                        x[i][j] = 0.5 * (x[i][j] + x[lo][j]);
                for (int i = 0; i < NM; i++)
                    c[i] = i == lo ? c[i] : cost(f, x[i]);
            }
        }
    }
    int best = 0;
    for (int i = 1; i < NM; i++)
        best = c[i] < c[best] ? i : best;
    memcpy(theta, x[best], sizeof x[best]);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The q-quantile (linear between order statistics) of v[0..n). Sorts v. */
static double quantile(double *v, int n, double q)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    double k = q * (n - 1);
    int i = (int)floor(k);
    return i + 1 < n ? v[i] + (k - i) * (v[i + 1] - v[i]) : v[n - 1];
}

/* One profile: the fit on all its runs, then one fit per run left out (started from the full
 * fit), each run's predictions, and the band from the left-out errors. */
static void fit_stack(struct predict_stack *st, struct predict_run *runs, int n)
{
    struct fit_set f = { st, runs, n, -1 };
    double theta[PREDICT_NSTACKP], full[PREDICT_NSTACKP], *err = xmalloc((size_t)(n + 1) * sizeof *err);
    int m = 0;
    for (int j = 0; j < PREDICT_NSTACKP; j++)
        theta[j] = coordinate_of(j, p_start[j]);
    for (int round = 0; round < 4; round++)      /* restarts: the simplex collapses early otherwise */
        minimise(&f, theta, 300);
    params_of(theta, st->p);
    memcpy(full, theta, sizeof full);
    for (int i = 0; i < n; i++) {
        if (!in_fit(&f, i))
            continue;
        struct fit_set g = { st, runs, n, i };
        double t[PREDICT_NSTACKP], p[PREDICT_NSTACKP];
        memcpy(t, full, sizeof t);
        minimise(&g, t, 150);
        params_of(t, p);
        if (strcmp(runs[i].stack, st->id) == 0) {
            runs[i].predicted = predict_run_tokens(st, st->p, &runs[i]);
            runs[i].loo = predict_run_tokens(st, p, &runs[i]);
        }
        err[m++] = log(predict_run_tokens(st, p, &runs[i]) / runs[i].published);
    }
    st->nfit = m;
    st->loo_lo = m ? quantile(err, m, 0.10) : 0;
    st->loo_hi = m ? quantile(err, m, 0.90) : 0;
    free(err);
}

void predict_stacks_fit(struct predict_run *runs, int n)
{
    for (int i = 0; i < NSTACKS; i++)
        if (strcmp(stacks[i].fitted_on, stacks[i].id) == 0)
            fit_stack(&stacks[i], runs, n);
    for (int i = 0; i < NSTACKS; i++) {
        const struct predict_stack *from = predict_stack_find(stacks[i].fitted_on);
        if (!from || from == &stacks[i])
            continue;
        memcpy(stacks[i].p, from->p, sizeof stacks[i].p);
        stacks[i].loo_lo = from->loo_lo;
        stacks[i].loo_hi = from->loo_hi;
        stacks[i].nfit = 0;
        for (int j = 0; j < n; j++) {   /* runs of a derived stack: predicted, never fitted on; the band
                                           reaches their errors too */
            if (strcmp(runs[j].stack, stacks[i].id) != 0)
                continue;
            runs[j].predicted = runs[j].loo = predict_run_tokens(&stacks[i], stacks[i].p, &runs[j]);
            stacks[i].loo_lo = fmin(stacks[i].loo_lo, log(runs[j].loo / runs[j].published));
            stacks[i].loo_hi = fmax(stacks[i].loo_hi, log(runs[j].loo / runs[j].published));
        }
    }
}

/* ---- results ---- */

static cJSON *profile_json(const struct predict_stack *st, const struct predict_run *runs, int n)
{
    cJSON *o = cJSON_CreateObject(), *p = cJSON_AddObjectToObject(o, "params");
    cJSON_AddStringToObject(o, "id", st->id);
    cJSON_AddStringToObject(o, "name", st->name);
    cJSON_AddStringToObject(o, "fitted_on", st->fitted_on);
    cJSON_AddStringToObject(o, "basis", st->basis);
    for (int j = 0; j < PREDICT_NSTACKP; j++)
        cJSON_AddNumberToObject(p, predict_stack_param_names[j], j == PREDICT_OP_S && st->op_s_override > 0
                                ? st->op_s_override : j == PREDICT_MEM_ETA && st->mem_eta_override > 0
                                ? st->mem_eta_override : st->p[j]);
    cJSON_AddNumberToObject(p, "stream_eta", STREAM_ETA);
    double mean = 0, mx = 0, lg = 0;
    int m = 0;
    for (int i = 0; i < n; i++) {
        if (strcmp(runs[i].stack, st->id) != 0 || !(runs[i].loo > 0))
            continue;
        double r = runs[i].loo / runs[i].published;
        mean += fabs(r - 1);
        mx = fmax(mx, fabs(r - 1));
        lg += log(r);
        m++;
    }
    cJSON_AddNumberToObject(o, "runs", m);
    cJSON_AddNumberToObject(o, "fitted_runs", st->nfit);
    if (m > 0) {
        cJSON *l = cJSON_AddObjectToObject(o, st->nfit ? "leave_one_out" : "check");
        cJSON_AddNumberToObject(l, "mean_abs_error", mean / m);
        cJSON_AddNumberToObject(l, "max_abs_error", mx);
        cJSON_AddNumberToObject(l, "bias", exp(lg / m));
    }
    cJSON_AddNumberToObject(o, "band_low", exp(st->loo_lo));
    cJSON_AddNumberToObject(o, "band_high", exp(st->loo_hi));
    return o;
}

static cJSON *run_json(const struct predict_run *r, const struct predict_stack *st)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "series", "stack_fit");
    cJSON_AddStringToObject(o, "run", r->id);
    cJSON_AddStringToObject(o, "stack", r->stack);
    cJSON_AddStringToObject(o, "system", r->system);
    cJSON_AddStringToObject(o, "model", r->model);
    cJSON_AddNumberToObject(o, "gpus", r->gpus);
    cJSON_AddNumberToObject(o, "seq", r->shape.seq);
    cJSON_AddNumberToObject(o, "micro_batch", r->shape.batch);
    cJSON_AddNumberToObject(o, "accum", r->shape.accum);
    cJSON_AddBoolToObject(o, "checkpoint", r->shape.checkpoint);
    cJSON_AddNumberToObject(o, "published_tokens_per_s_per_gpu", r->published);
    cJSON_AddNumberToObject(o, "predicted_tokens_per_s_per_gpu", r->loo);
    cJSON_AddNumberToObject(o, "error", r->loo / r->published - 1);
    cJSON_AddBoolToObject(o, "left_out", st->nfit > 0);
    cJSON_AddStringToObject(o, "source", r->source);
    return o;
}

void predict_stacks_json(const struct predict_run *runs, int n, cJSON *results, cJSON *info)
{
    cJSON *a = cJSON_AddArrayToObject(info, "stack_profiles");
    for (int i = 0; i < NSTACKS; i++)
        cJSON_AddItemToArray(a, profile_json(&stacks[i], runs, n));
    for (int i = 0; i < n; i++)
        cJSON_AddItemToArray(results, run_json(&runs[i], predict_stack_find(runs[i].stack)));
}
