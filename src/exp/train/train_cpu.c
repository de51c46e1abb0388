/* train_cpu.c: the CPU backend of the training experiment: the tensors net_act_tensor()
 * lists, initial weights from the seed, the op kinds of the plan as table entries (matmuls
 * through cblas_sgemm, the rest through train_cpu_kernels.c), and AdamW. BF16 here means
 * BF16 storage of the matmul operands (weight copies, the activations and gradients that
 * feed matmuls, rounded to nearest even); this OpenBLAS has no BF16 GEMM, so each BF16
 * operand is widened to FP32 just before cblas_sgemm, and compute, accumulation, master
 * weights, optimizer state and loss are FP32. FP8 is refused: it needs a GPU. */
#include "exp/train/train.h"

#include <cblas.h>
#include <errno.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exp/train/train_cpu.h"
#include "util/error.h"
#include "util/timing.h"
#include "util/units.h"
#include "util/vmlimit.h"

#define ALIGN 64

struct train_ctx {
    struct net_shape s;
    enum net_prec p;
    uint64_t seed;
    size_t N, T;                    /* parameters; tokens per micro-batch (B x S) */
    float *w, *g, *m, *v;           /* [N] FP32 master weights, gradients, AdamW moments */
    uint16_t *w16;                  /* [net_low_count] BF16 copies of the linears' weights */
    char *act[NET_NACTS];         /* net_acts' tensors, their copies back to back */
    struct net_tensor t[NET_NACTS];
    struct train_adam adam;
    float clip;
    double norm;                    /* global gradient norm of the last grad_norm op */
    double *marks;                  /* [nops + 1] timing marks of one step, seconds */
    double bytes;                   /* allocated by open() */
};

/* ---- tensors ---- */

static void *act(struct train_ctx *c, enum net_act a, int copy)
{
    return c->act[a] + (size_t)copy * (size_t)c->t[a].elems * (size_t)net_dtype_bytes[c->t[a].dtype];
}

static int slot(const struct train_ctx *c, int layer) { return c->s.checkpoint ? 0 : layer; }

static float *W(struct train_ctx *c, enum net_param p, int layer) { return c->w + net_param_offset(&c->s, p, layer); }
static float *G(struct train_ctx *c, enum net_param p, int layer) { return c->g + net_param_offset(&c->s, p, layer); }

/* Zeroed, 64-byte aligned, first touched by the OpenMP team that uses it; NULL on failure. */
static void *alloc_zero(struct train_ctx *c, double bytes)
{
    void *p = NULL;
    size_t n = (size_t)bytes;
    if (n == 0)
        return NULL;
    if (posix_memalign(&p, ALIGN, (n + ALIGN - 1) / ALIGN * ALIGN) != 0)
        return NULL;
    char *q = p;
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i += 4096)
        memset(q + i, 0, n - i < 4096 ? n - i : 4096);
    c->bytes += bytes;
    return p;
}

/* ---- the linears: which arrays a matmul of linear l in block `layer` names ---- */

struct lin {
    size_t in, out;
    const void *x;                  /* forward input [T,in], BF16 when the recipe is not FP32 */
    float *y;                       /* forward output [T,out] */
    float *w, *b;                   /* master weight [out,in], bias [out] or NULL */
    const uint16_t *w16;            /* BF16 copy of w */
    float *dw, *db;                 /* their gradients */
    float *dy;                      /* gradient of y [T,out], FP32 */
    float *dx;                      /* gradient of x [T,in] */
};

static void lin_of(struct train_ctx *c, int l, int layer, struct lin *o)
{
    struct net_linear_io io;
    enum net_param wp, bp;
    int k = l == NET_LIN_LMHEAD ? 0 : slot(c, layer);
    net_linear_io(l, &io);
    net_linear_params(&c->s, l, &wp, &bp, &o->in, &o->out);
    o->x = act(c, io.x, k);
    o->y = act(c, io.y, l == NET_LIN_FCPROJ ? layer + 1 : k);
    int pl = l == NET_LIN_LMHEAD ? 0 : layer;
    o->w = W(c, wp, pl);
    o->dw = G(c, wp, pl);
    o->b = bp == NET_NPARAMS ? NULL : W(c, bp, pl);
    o->db = bp == NET_NPARAMS ? NULL : G(c, bp, pl);
    o->w16 = c->w16 ? c->w16 + net_low_offset(&c->s, l, pl) : NULL;
    o->dy = act(c, io.dy, 0);
    o->dx = act(c, io.dx, 0);
}

/* C[M,N] = op(A) op(B) + beta C, row-major FP32. Matmuls below GEMM_PAR_MIN FLOPs run on one
 * thread (OpenBLAS's OpenMP build takes its thread count from omp_get_max_threads()): small
 * products gain little from a second thread and lose milliseconds when a core is busy. */
#define GEMM_PAR_MIN 32e6

static void sgemm(int ta, int tb, size_t M, size_t N, size_t K, const float *A, const float *B, float beta, float *C)
{
    int small = 2.0 * (double)M * (double)N * (double)K < GEMM_PAR_MIN, threads = omp_get_max_threads();
    if (small)
        omp_set_num_threads(1);
    cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, (int)M, (int)N,
                (int)K, 1.0f, A, ta ? (int)M : (int)K, B, tb ? (int)K : (int)N, beta, C, (int)N);
    if (small)
        omp_set_num_threads(threads);
    vmlimit_blas_done();
}

/* A BF16 operand widened into scratch tensor `into`, or the FP32 array as it is. */
static const float *operand(struct train_ctx *c, const void *x, int low, size_t n, enum net_act into)
{
    if (!low)
        return x;
    float *s = act(c, into, 0);
    train_cpu_widen(s, x, n);
    return s;
}

static void ex_matmul(struct train_ctx *c, const struct net_op *op)
{
    struct lin L;
    int low = c->p != NET_FP32;
    lin_of(c, op->which, op->layer, &L);
    const float *x = operand(c, L.x, low, c->T * L.in, NET_A_WIDEN_X);
    const float *w = low ? operand(c, L.w16, 1, L.in * L.out, NET_A_WIDEN_W) : L.w;
    sgemm(0, 1, c->T, L.out, L.in, x, w, 0.0f, L.y);
    if (!L.b)
        return;
#pragma omp parallel for schedule(static) if (c->T * L.out >= TRAIN_PAR_MIN)
    for (size_t t = 0; t < c->T; t++)
        for (size_t o = 0; o < L.out; o++)
            L.y[t * L.out + o] += L.b[o];
}

static void ex_cast_grad(struct train_ctx *c, const struct net_op *op)
{
    struct lin L;
    lin_of(c, op->which, op->layer, &L);
    train_cpu_bf16(act(c, NET_A_DLOW, 0), L.dy, c->T * L.out);
}

static void ex_dgrad(struct train_ctx *c, const struct net_op *op)
{
    struct lin L;
    int low = c->p != NET_FP32;
    lin_of(c, op->which, op->layer, &L);
    const float *dy = low ? operand(c, act(c, NET_A_DLOW, 0), 1, c->T * L.out, NET_A_WIDEN_X) : L.dy;
    const float *w = low ? operand(c, L.w16, 1, L.in * L.out, NET_A_WIDEN_W) : L.w;
    sgemm(0, 0, c->T, L.in, L.out, dy, w, 0.0f, L.dx);
}

static void ex_wgrad(struct train_ctx *c, const struct net_op *op)
{
    struct lin L;
    int low = c->p != NET_FP32;
    lin_of(c, op->which, op->layer, &L);
    const float *dy = low ? operand(c, act(c, NET_A_DLOW, 0), 1, c->T * L.out, NET_A_WIDEN_X) : L.dy;
    const float *x = operand(c, L.x, low, c->T * L.in, NET_A_WIDEN_W);
    sgemm(1, 0, L.out, L.in, c->T, dy, x, 1.0f, L.dw);
    if (L.db)
        train_cpu_colsum(L.db, L.dy, c->T, L.out);
}

/* ---- the other op kinds ---- */

struct norm_io {
    const float *x;
    void *out;
    float *stats, *w, *b, *dw, *db;
};

static void norm_of(struct train_ctx *c, const struct net_op *op, struct norm_io *n)
{
    int k = slot(c, op->layer), L = c->s.layers;
    if (op->which == NET_LNF) {
        *n = (struct norm_io){ act(c, NET_A_RES, L), act(c, NET_A_LNF, 0), act(c, NET_A_LNF_STATS, 0),
                               W(c, NET_P_LNFW, 0), W(c, NET_P_LNFB, 0), G(c, NET_P_LNFW, 0), G(c, NET_P_LNFB, 0) };
    } else if (op->which == NET_LN1) {
        *n = (struct norm_io){ act(c, NET_A_RES, op->layer), act(c, NET_A_LN1, k), act(c, NET_A_LN1_STATS, k),
                               W(c, NET_P_LN1W, op->layer), W(c, NET_P_LN1B, op->layer),
                               G(c, NET_P_LN1W, op->layer), G(c, NET_P_LN1B, op->layer) };
    } else {
        *n = (struct norm_io){ act(c, NET_A_RES2, k), act(c, NET_A_LN2, k), act(c, NET_A_LN2_STATS, k),
                               W(c, NET_P_LN2W, op->layer), W(c, NET_P_LN2B, op->layer),
                               G(c, NET_P_LN2W, op->layer), G(c, NET_P_LN2B, op->layer) };
    }
}

static void ex_layernorm(struct train_ctx *c, const struct net_op *op)
{
    struct norm_io n;
    norm_of(c, op, &n);
    train_cpu_layernorm(n.out, c->p != NET_FP32, n.stats, n.x, n.w, n.b, c->T, c->s.hidden);
}

static void ex_layernorm_bwd(struct train_ctx *c, const struct net_op *op)
{
    struct norm_io n;
    norm_of(c, op, &n);
    train_cpu_layernorm_bwd(act(c, NET_A_DRES, 0), op->which == NET_LNF, n.dw, n.db, act(c, NET_A_DLN, 0),
                            n.x, n.stats, n.w, c->T, c->s.hidden);
}

static void ex_attention(struct train_ctx *c, const struct net_op *op)
{
    int k = slot(c, op->layer);
    train_cpu_attention(act(c, NET_A_ATTY, k), c->p != NET_FP32, act(c, NET_A_ATT, k), act(c, NET_A_QKV, k),
                        c->s.batch, c->s.seq, c->s.hidden, c->s.heads);
}

static void ex_attention_bwd(struct train_ctx *c, const struct net_op *op)
{
    int k = slot(c, op->layer);
    train_cpu_attention_bwd(act(c, NET_A_DQKV, 0), act(c, NET_A_DATTY, 0), act(c, NET_A_QKV, k),
                            act(c, NET_A_ATT, k), c->s.batch, c->s.seq, c->s.hidden, c->s.heads);
}

static void ex_residual(struct train_ctx *c, const struct net_op *op)
{
    int k = slot(c, op->layer);
    size_t n = c->T * (size_t)c->s.hidden;
    if (op->which == 0)
        train_cpu_add(act(c, NET_A_RES2, k), act(c, NET_A_RES, op->layer), n);
    else
        train_cpu_add(act(c, NET_A_RES, op->layer + 1), act(c, NET_A_RES2, k), n);
}

static void ex_gelu(struct train_ctx *c, const struct net_op *op)
{
    int k = slot(c, op->layer);
    train_cpu_gelu(act(c, NET_A_GELU, k), c->p != NET_FP32, act(c, NET_A_FC, k), 4 * c->T * (size_t)c->s.hidden);
}

static void ex_gelu_bwd(struct train_ctx *c, const struct net_op *op)
{
    train_cpu_gelu_bwd(act(c, NET_A_DFC, 0), act(c, NET_A_FC, slot(c, op->layer)), 4 * c->T * (size_t)c->s.hidden);
}

static const int32_t *micro_ids(struct train_ctx *c, enum net_act a, int mb)
{
    return (const int32_t *)act(c, a, 0) + (size_t)mb * c->T;
}

static void ex_embed(struct train_ctx *c, const struct net_op *op)
{
    train_cpu_embed(act(c, NET_A_RES, 0), micro_ids(c, NET_A_TOKENS, op->micro), W(c, NET_P_WTE, 0),
                    W(c, NET_P_WPE, 0), c->s.batch, c->s.seq, c->s.hidden);
}

static void ex_embed_bwd(struct train_ctx *c, const struct net_op *op)
{
    train_cpu_embed_bwd(G(c, NET_P_WTE, 0), G(c, NET_P_WPE, 0), act(c, NET_A_DRES, 0),
                        micro_ids(c, NET_A_TOKENS, op->micro), c->s.batch, c->s.seq, c->s.hidden);
}

static void ex_xent(struct train_ctx *c, const struct net_op *op)
{
    float *losses = (float *)act(c, NET_A_LOSSES, 0) + (size_t)op->micro * c->T;
    train_cpu_xent(losses, act(c, NET_A_LOGITS, 0), micro_ids(c, NET_A_TARGETS, op->micro), c->T, c->s.vocab);
}

static void ex_xent_bwd(struct train_ctx *c, const struct net_op *op)
{
    float scale = (float)(1.0 / ((double)c->T * c->s.accum));     /* the loss is the step's mean */
    train_cpu_xent_bwd(act(c, NET_A_LOGITS, 0), micro_ids(c, NET_A_TARGETS, op->micro), c->T, c->s.vocab, scale);
}

static void ex_zero_grad(struct train_ctx *c, const struct net_op *op)
{
    (void)op;
#pragma omp parallel for simd schedule(static) if (c->N >= TRAIN_PAR_MIN)
    for (size_t i = 0; i < c->N; i++)
        c->g[i] = 0;
}

static void ex_grad_norm(struct train_ctx *c, const struct net_op *op)
{
    (void)op;
    c->norm = sqrt(train_cpu_sumsq(c->g, c->N));
}

/* The BF16 copies of the linears' weights, from the master weights. */
static void refresh(struct train_ctx *c)
{
    if (!c->w16)
        return;
    for (int l = 0; l < NET_NLINEARS; l++)
        for (int layer = 0; layer < (l == NET_LIN_LMHEAD ? 1 : c->s.layers); layer++) {
            struct lin L;
            lin_of(c, l, layer, &L);
            train_cpu_bf16(c->w16 + net_low_offset(&c->s, l, layer), L.w, L.in * L.out);
        }
}

static void ex_adamw(struct train_ctx *c, const struct net_op *op)
{
    struct train_adam a = c->adam;
    (void)op;
    a.grad_scale = c->clip > 0 && c->norm > c->clip ? (float)(c->clip / c->norm) : 1.0f;
    for (int p = 0; p < NET_NPARAMS; p++) {
        size_t r, cols, off = net_param_offset(&c->s, p, 0);
        net_param_dims(&c->s, p, &r, &cols);
        size_t n = r * cols * (net_params[p].per_block ? (size_t)c->s.layers : 1);
        train_cpu_adamw(c->w + off, c->m + off, c->v + off, c->g + off, n, &a, net_params[p].decay);
    }
    refresh(c);
}

typedef void (*exec_fn)(struct train_ctx *, const struct net_op *);

static const exec_fn execs[NET_NKINDS] = {
    [NET_OP_ZERO_GRAD] = ex_zero_grad, [NET_OP_EMBED] = ex_embed, [NET_OP_LAYERNORM] = ex_layernorm,
    [NET_OP_MATMUL] = ex_matmul, [NET_OP_ATTENTION] = ex_attention, [NET_OP_RESIDUAL] = ex_residual,
    [NET_OP_GELU] = ex_gelu, [NET_OP_XENT] = ex_xent, [NET_OP_XENT_BWD] = ex_xent_bwd,
    [NET_OP_CAST_GRAD] = ex_cast_grad, [NET_OP_MATMUL_DGRAD] = ex_dgrad, [NET_OP_MATMUL_WGRAD] = ex_wgrad,
    [NET_OP_GELU_BWD] = ex_gelu_bwd, [NET_OP_ATTENTION_BWD] = ex_attention_bwd,
    [NET_OP_LAYERNORM_BWD] = ex_layernorm_bwd, [NET_OP_EMBED_BWD] = ex_embed_bwd,
    [NET_OP_GRAD_NORM] = ex_grad_norm, [NET_OP_ADAMW] = ex_adamw,
};

static void cpu_run(struct train_ctx *c, const struct net_op *op)
{
    CHECK(execs[op->kind] != NULL);
    execs[op->kind](c, op);
}

/* ---- life cycle ---- */

/* GPT-2's initialisation: N(0, 0.02), residual projections N(0, 0.02 / sqrt(2L)), norms'
 * gains 1, biases 0; each tensor of each block from its own random stream of the seed. */
void train_init_params(const struct net_shape *s, uint64_t seed, float *params)
{
    for (int p = 0; p < NET_NPARAMS; p++) {
        size_t r, cols;
        net_param_dims(s, p, &r, &cols);
        double sd = net_params[p].init == 3 ? 0.02 / sqrt(2.0 * s->layers) : 0.02;
        for (int layer = 0; layer < (net_params[p].per_block ? s->layers : 1); layer++) {
            float *w = params + net_param_offset(s, p, layer);
            uint64_t key = train_rand(seed, (uint64_t)p * 65536u + (uint64_t)layer);
            int init = net_params[p].init;
#pragma omp parallel for schedule(static)
            for (size_t i = 0; i < r * cols; i++)
                w[i] = init == 0 ? 0.0f : init == 1 ? 1.0f : (float)(sd * train_normal(key, i));
        }
    }
}

static void cpu_reset(struct train_ctx *c)
{
    train_init_params(&c->s, c->seed, c->w);
    memset(c->m, 0, c->N * sizeof *c->m);
    memset(c->v, 0, c->N * sizeof *c->v);
    refresh(c);
}

static void cpu_close(struct train_ctx *c)
{
    if (!c)
        return;
    free(c->w); free(c->g); free(c->m); free(c->v); free(c->w16); free(c->marks);
    for (int a = 0; a < NET_NACTS; a++)
        free(c->act[a]);
    free(c);
}

static int cpu_alloc(struct train_ctx *c)
{
    double N = (double)c->N;
    c->w = alloc_zero(c, 4 * N); c->g = alloc_zero(c, 4 * N);
    c->m = alloc_zero(c, 4 * N); c->v = alloc_zero(c, 4 * N);
    int ok = c->w && c->g && c->m && c->v;
    if (c->p == NET_BF16)
        ok = ok && (c->w16 = alloc_zero(c, 2 * (double)net_low_count(&c->s))) != NULL;
    for (int a = 0; a < NET_NACTS && ok; a++) {
        net_act_tensor(&c->s, c->p, NET_IMPL_CPU, a, &c->t[a]);
        double bytes = c->t[a].elems * c->t[a].copies * net_dtype_bytes[c->t[a].dtype];
        ok = bytes == 0 || (c->act[a] = alloc_zero(c, bytes)) != NULL;
    }
    return ok ? 0 : -1;
}

static int cpu_supports(const struct net_shape *s, enum net_prec p, char *why, size_t n)
{
    const char *x = net_shape_extension(s);
    if (x) {
        snprintf(why, n, "the CPU training backend runs GPT-2 blocks only; this shape asks for %s", x);
        return 0;
    }
    if (p != NET_FP8)
        return 1;
    snprintf(why, n, "FP8 training needs FP8 matmuls (cuBLASLt on a GPU); the CPU has none here");
    return 0;
}

static struct train_ctx *cpu_open(const struct net_shape *s, enum net_prec p, uint64_t seed,
                                  char *err, size_t errlen)
{
    const char *why = net_shape_problem(s);
    if (why) {
        snprintf(err, errlen, "%s", why);
        return NULL;
    }
    if (!cpu_supports(s, p, err, errlen))
        return NULL;
    if (vmlimit_blas_refusal()) {       /* its matmuls are CBLAS calls */
        snprintf(err, errlen, "%s", vmlimit_blas_refusal());
        return NULL;
    }
    struct train_ctx *c = xcalloc(1, sizeof *c);
    c->s = *s;
    c->p = p;
    c->seed = seed;
    c->N = net_param_count(s);
    c->T = (size_t)s->batch * s->seq;
    c->marks = xcalloc((size_t)net_plan(s, p, NULL, 0) + 1, sizeof *c->marks);
    if (cpu_alloc(c) != 0) {
        struct net_memory mm;
        char need[32];
        net_memory(s, p, NET_IMPL_CPU, &mm);
        snprintf(err, errlen, "cannot allocate the %s the shape needs: %s", units_format_bytes(mm.total, need, sizeof need),
                 strerror(ENOMEM));
        cpu_close(c);
        return NULL;
    }
    cpu_reset(c);
    return c;
}

static void cpu_load(struct train_ctx *c, const int32_t *tokens, const int32_t *targets)
{
    size_t n = c->T * (size_t)c->s.accum * sizeof(int32_t);
    memcpy(act(c, NET_A_TOKENS, 0), tokens, n);
    memcpy(act(c, NET_A_TARGETS, 0), targets, n);
}

static void cpu_set_step(struct train_ctx *c, const struct train_adam *a, float clip)
{
    c->adam = *a;
    c->clip = clip;
}

static void cpu_mark(struct train_ctx *c, int i) { c->marks[i] = timing_now(); }

static void cpu_elapsed(struct train_ctx *c, int n, double *s)
{
    for (int i = 0; i < n; i++)
        s[i] = c->marks[i + 1] - c->marks[i];
}

static double cpu_loss(struct train_ctx *c)
{
    const float *l = act(c, NET_A_LOSSES, 0);
    size_t n = c->T * (size_t)c->s.accum;
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += l[i];
    return sum / (double)n;
}

static double cpu_grad_norm(struct train_ctx *c) { return c->norm; }

static void cpu_perturb(struct train_ctx *c, double eps)
{
    float f = c->norm > 0 ? (float)(eps / c->norm) : 0.0f;
#pragma omp parallel for simd schedule(static)
    for (size_t i = 0; i < c->N; i++)
        c->w[i] += f * c->g[i];
    refresh(c);
}

static double cpu_allocated(struct train_ctx *c) { return c->bytes; }

float *train_cpu_params(struct train_ctx *c) { return c->w; }
float *train_cpu_grads(struct train_ctx *c) { return c->g; }
void train_cpu_refresh(struct train_ctx *c) { refresh(c); }

const struct train_ops train_cpu_ops = {
    .device = "cpu",
    .impl = NET_IMPL_CPU,
    .open = cpu_open,
    .load = cpu_load,
    .set_step = cpu_set_step,
    .run = cpu_run,
    .mark = cpu_mark,
    .elapsed = cpu_elapsed,
    .loss = cpu_loss,
    .grad_norm = cpu_grad_norm,
    .perturb = cpu_perturb,
    .reset = cpu_reset,
    .allocated = cpu_allocated,
    .close = cpu_close,
    .supports = cpu_supports,
};
