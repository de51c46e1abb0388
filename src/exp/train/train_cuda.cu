/* train_cuda.cu: the CUDA backend of the training experiment: the tensors net_act_tensor() lists
 * in device memory (the logits' rows padded to train_vocab_ld), the op kinds of the plan as table
 * entries, matmuls (train_gemm.h's products, bound here to device memory) through cuBLASLt, every
 * one planned when a configuration opens, before any step (a refused one declines the
 * configuration: "not measured: ..."), the rest through train_cuda_kernels.cu, time marks as CUDA
 * events. FP32 matmuls compute in FP32 (no TF32); BF16 matmuls read BF16 operands and accumulate
 * and write FP32; FP8 forward matmuls read E4M3 operands with one dequantisation scale per tensor.
 * Initial weights come from train_init_params(), the CPU backend's, so both devices start from
 * the same bits. */
#include <cublasLt.h>
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/blaslt.h"
#include "exp/train/train_cuda.h"
#include "exp/train/train_reduce.h"
extern "C" {
#include "exp/train/train.h"
#include "exp/train/train_gemm.h"
#include "util/error.h"
#include "util/units.h"
}

#define GEMM_CACHE 512             /* matmul shapes x alignments of one step */
#define PAD 1                      /* logits rows train_vocab_ld(V) long: GPT-2's odd vocabulary aligned */

static_assert((int)TRAIN_GEMM_OK == (int)BLASLT_OK && (int)TRAIN_GEMM_REFUSED == (int)BLASLT_REFUSED
              && (int)TRAIN_GEMM_ERROR == (int)BLASLT_ERROR, "train_gemm.h speaks blaslt.h's codes");

enum { S_NORM = 0, S_XAMAX, S_XINV, S_WAMAX, S_WINV };     /* device scalars; S_WINV + 4 l + layer */

struct gemm_key {
    int ta, tb, batch, scaled;
    uint64_t M, N, K;
    int64_t lda, ldb, ldc, sa, sb, sc;
    cudaDataType at, bt;
    uint32_t aa, ab, ac;            /* byte alignment of A, B and C (and of each batch's), <= 256 */
};

struct gemm_plan {
    struct gemm_key key;
    struct blaslt_matmul mm;        /* descriptor, layouts, the heuristic's algorithm */
    int rc;                         /* BLASLT_* of making it */
    char why[240];                  /* when rc is not BLASLT_OK */
};

struct train_ctx {
    struct net_shape s;
    enum net_prec p;
    uint64_t seed;
    size_t N, T;
    cudaStream_t st;
    struct blaslt lt;               /* its workspace is the NET_A_GEMM_WS tensor */
    float *w, *g, *m, *v;           /* [N] FP32 master weights, gradients, AdamW moments */
    uint16_t *w16;                  /* [net_low_count] BF16 copies of the linears' weights */
    uint8_t *w8;                    /* [net_fp8_count] E4M3 copies of the blocks' linears */
    float *scal;                    /* S_NORM, S_XAMAX, S_XINV, S_WAMAX, then 4L weight scales */
    float *amax_part;               /* partial maxima of the FP8 absolute-maximum passes */
    double *norm_part;              /* partial sums of the gradient norm */
    float *red_part;                /* [train_red_slices(T)][max(2h, widest bias)] column-sum partials */
    int32_t *groups;                /* [accum][2T + 1]: train_embed_groups' order, then its starts */
    int32_t *h_groups;              /* host copy of groups */
    int *ngroups;                   /* host [accum]: token groups of each micro-batch */
    char *act[NET_NACTS];
    struct net_tensor t[NET_NACTS];
    struct gemm_plan cache[GEMM_CACHE];
    int ncache;
    struct train_adam adam;
    float clip;
    cudaEvent_t *ev;                /* [nops + 1] time marks of one step */
    int nev;
    float *h_w, *h_losses;          /* host: initial weights [N], losses [T accum] */
    double bytes;                   /* device bytes open() allocated */
    char err[512];                  /* the first failed call since open ("FILE:LINE: CALL: words");
                                       once set, the ops do nothing until close */
};

/* The one CUDA check (cuda_check.h) into the context's error. */
#define CK(call) CUDA_CHECK(call, c->err, sizeof c->err)

/* ---- memory ---- */

static int dalloc(struct train_ctx *c, void **p, double bytes)
{
    *p = NULL;
    if (bytes <= 0)
        return 0;
    CK(cudaMalloc(p, (size_t)bytes));
    c->bytes += bytes;
    CK(cudaMemset(*p, 0, (size_t)bytes));
    return 0;
fail:
    return -1;
}

static void *act(struct train_ctx *c, enum net_act a, int copy)
{
    return c->act[a] + (size_t)copy * (size_t)c->t[a].elems * (size_t)net_dtype_bytes[c->t[a].dtype];
}

static int slot(const struct train_ctx *c, int layer) { return c->s.checkpoint ? 0 : layer; }
static float *W(struct train_ctx *c, enum net_param p, int layer) { return c->w + net_param_offset(&c->s, p, layer); }
static float *G(struct train_ctx *c, enum net_param p, int layer) { return c->g + net_param_offset(&c->s, p, layer); }

/* ---- matmuls: row-major C = alpha op(A) op(B) + beta C through column-major cuBLASLt ----
 * Row-major C[M,N] is column-major C^T[N,M] = op(B)^T op(A)^T: cuBLASLt's first operand is
 * our B, its second our A. FP8 needs cuBLASLt's "TN" form: ta = 0, tb = 1 (Y = X W^T). */

static int same_key(const struct gemm_key *a, const struct gemm_key *b) { return memcmp(a, b, sizeof *a) == 0; }

static int make_plan(struct train_ctx *c, struct gemm_plan *pl)
{
    const struct gemm_key *k = &pl->key;
    const float *sp = c->scal + S_XINV;     /* any device pointer, so the heuristic sees a scaled matmul */
    struct blaslt_desc d = {
        CUBLAS_COMPUTE_32F, CUDA_R_32F, k->tb ? CUBLAS_OP_T : CUBLAS_OP_N, k->ta ? CUBLAS_OP_T : CUBLAS_OP_N,
        { k->bt, k->tb ? k->K : k->N, k->tb ? k->N : k->K, k->ldb, k->batch, k->sb },     /* its A is our B */
        { k->at, k->ta ? k->M : k->K, k->ta ? k->K : k->M, k->lda, k->batch, k->sa },
        { CUDA_R_32F, k->N, k->M, k->ldc, k->batch, k->sc },
        k->scaled ? BLASLT_SCALE_TENSOR : BLASLT_SCALE_NONE, sp, sp,
        /* cuBLASLt assumes 256-byte aligned matrices unless told; ours start wherever a
         * tensor of a block does in the flat arrays */
        k->ab, k->aa, k->ac,
        0 };                        /* full FP32 accumulation (the precision family measures fast accumulation too) */
    int rc = blaslt_matmul_open(&pl->mm, &d, pl->why, sizeof pl->why);
    return rc == BLASLT_OK ? blaslt_choose(&c->lt, &pl->mm, pl->why, sizeof pl->why) : rc;
}

/* The plan of a matmul key, made the first time it is asked for; NULL when the cache is full
 * (c->err says so). */
static struct gemm_plan *plan_for(struct train_ctx *c, const struct gemm_key *k)
{
    for (int i = 0; i < c->ncache; i++)
        if (same_key(&c->cache[i].key, k))
            return &c->cache[i];
    if (c->ncache == GEMM_CACHE) {
        snprintf(c->err, sizeof c->err, "more than %d matmul shapes in one training step", GEMM_CACHE);
        return NULL;
    }
    struct gemm_plan *pl = &c->cache[c->ncache++];
    memset(pl, 0, sizeof *pl);
    pl->key = *k;
    pl->rc = make_plan(c, pl);
    return pl;
}

/* One product with its device operands: train_gemm.h's description bound to this context. */
struct mm {
    int ta, tb;
    uint64_t M, N, K;
    const void *A, *B;
    cudaDataType at, bt;
    int64_t lda, ldb;
    float alpha, beta;
    float *C;
    int64_t ldc;
    int batch;
    int64_t sa, sb, sc;
    const float *scale_a, *scale_b;     /* FP8: dequantisation factors of A and B (device) */
};

static int64_t dt_bytes(cudaDataType t) { return t == CUDA_R_32F ? 4 : t == CUDA_R_16BF ? 2 : 1; }

static cudaDataType cuda_type(enum net_dtype t)
{
    return t == NET_DT_BF16 ? CUDA_R_16BF : t == NET_DT_E4M3 ? CUDA_R_8F_E4M3 : CUDA_R_32F;
}

/* The largest power of two (up to 256) dividing the address and, when batched, the stride. */
static uint32_t align_of(const void *p, int64_t stride_bytes, int batch)
{
    uintptr_t a = (uintptr_t)p | (uintptr_t)256 | (batch > 1 ? (uintptr_t)stride_bytes : 0);
    return (uint32_t)(a & (~a + 1));
}

static struct gemm_key key_of(const struct mm *x)
{
    struct gemm_key k;
    memset(&k, 0, sizeof k);            /* padding too: keys are compared bytewise */
    k.ta = x->ta; k.tb = x->tb; k.batch = x->batch > 1 ? x->batch : 1; k.scaled = x->scale_a != NULL;
    k.M = x->M; k.N = x->N; k.K = x->K; k.lda = x->lda; k.ldb = x->ldb; k.ldc = x->ldc;
    k.sa = x->sa; k.sb = x->sb; k.sc = x->sc; k.at = x->at; k.bt = x->bt;
    k.aa = align_of(x->A, x->sa * dt_bytes(x->at), k.batch);
    k.ab = align_of(x->B, x->sb * dt_bytes(x->bt), k.batch);
    k.ac = align_of(x->C, x->sc * 4, k.batch);
    return k;
}

/* 0, or -1 with c->err. Every product was planned when the configuration opened. */
static int gemm(struct train_ctx *c, const struct mm *x)
{
    struct gemm_key k = key_of(x);
    struct gemm_plan *pl = plan_for(c, &k);
    if (!pl)
        return -1;
    if (pl->rc != BLASLT_OK) {
        snprintf(c->err, sizeof c->err, "cuBLASLt has no algorithm for a %llux%llux%llu matmul: %s",
                 (unsigned long long)x->M, (unsigned long long)x->N, (unsigned long long)x->K, pl->why);
        return -1;
    }
    if (x->scale_a && blaslt_set_scales(&pl->mm, x->scale_b, x->scale_a, c->err, sizeof c->err) != BLASLT_OK)
        return -1;
    return blaslt_run(&c->lt, &pl->mm, NULL, &x->alpha, x->B, x->A, &x->beta, x->C, x->C, c->err, sizeof c->err)
           == BLASLT_OK ? 0 : -1;
}

/* ---- the linears ---- */

struct lin {
    size_t in, out;
    size_t ldy;                     /* elements per row of y and dy: out, or the LM head's padded vocabulary */
    void *x;                        /* [T,in], BF16 unless FP32 */
    float *y, *w, *b, *dw, *db, *dy, *dx;
    uint16_t *w16;
    uint8_t *w8;
    float *winv;                    /* FP8: the weight's dequantisation factor */
};

static void lin_of(struct train_ctx *c, int l, int layer, struct lin *o)
{
    struct net_linear_io io;
    enum net_param wp, bp;
    int k = l == NET_LIN_LMHEAD ? 0 : slot(c, layer), pl = l == NET_LIN_LMHEAD ? 0 : layer;
    net_linear_io((enum net_linear)l, &io);
    net_linear_params(&c->s, (enum net_linear)l, &wp, &bp, &o->in, &o->out);
    o->ldy = l == NET_LIN_LMHEAD ? (size_t)train_vocab_ld(c->s.vocab, PAD) : o->out;
    o->x = act(c, io.x, k);
    o->y = (float *)act(c, io.y, l == NET_LIN_FCPROJ ? layer + 1 : k);
    o->w = W(c, wp, pl);
    o->dw = G(c, wp, pl);
    o->b = bp == NET_NPARAMS ? NULL : W(c, bp, pl);
    o->db = bp == NET_NPARAMS ? NULL : G(c, bp, pl);
    size_t lo = net_low_offset(&c->s, (enum net_linear)l, pl);
    o->w16 = c->w16 ? c->w16 + lo : NULL;
    o->w8 = c->w8 && l != NET_LIN_LMHEAD ? c->w8 + lo : NULL;
    o->winv = l != NET_LIN_LMHEAD ? c->scal + S_WINV + 4 * layer + l : NULL;
    o->dy = (float *)act(c, io.dy, 0);
    o->dx = (float *)act(c, io.dx, 0);
}

/* The operands of a linear's product: Y = X W^T, dX = dY W, dW += dY^T X, each at the dtypes
 * the plan gives (FP8: E4M3 X and W with their factors). */
static void bind_linear(struct train_ctx *c, const struct net_op *op, const struct train_gemm *g, struct mm *x)
{
    struct lin L;
    int low = g->at != NET_DT_F32;
    lin_of(c, op->which, op->layer, &L);
    const void *dy = low ? act(c, NET_A_DLOW, 0) : (const void *)L.dy;
    const void *w = g->bt == NET_DT_E4M3 ? (const void *)L.w8 : low ? (const void *)L.w16 : (const void *)L.w;
    if (op->kind == NET_OP_MATMUL) {
        x->A = g->at == NET_DT_E4M3 ? act(c, NET_A_XQ, 0) : L.x;
        x->B = w;
        x->C = L.y;
        if (g->scaled) {
            x->scale_a = c->scal + S_XINV;
            x->scale_b = L.winv;
        }
    } else {
        x->A = dy;
        x->B = op->kind == NET_OP_MATMUL_DGRAD ? w : L.x;
        x->C = op->kind == NET_OP_MATMUL_DGRAD ? L.dx : L.dw;
    }
}

/* ---- attention: per (sequence, head) matrices [S,d] and [S,S], batched over B a ---- */

static void heads(struct train_ctx *c, enum net_act a, float **q, float **k, float **v, float **y)
{
    float *base = (float *)act(c, a, 0);
    size_t n = c->T * (size_t)c->s.hidden;
    *q = base; *k = base + n; *v = base + 2 * n; *y = base + 3 * n;
}

/* A, B and C of each attention product (train_gemm.h's order) among q k v y, their gradients,
 * the probabilities P and their gradient dP. */
enum { M_Q, M_K, M_V, M_Y, M_DQ, M_DK, M_DV, M_DY, M_P, M_DP, M_N };
static const int att_operands[TRAIN_ATT_NMM][3] = {
    [TRAIN_ATT_SCORES] = { M_Q, M_K, M_P }, [TRAIN_ATT_VALUES] = { M_P, M_V, M_Y },
    [TRAIN_ATT_DPROBS] = { M_DY, M_V, M_DP }, [TRAIN_ATT_DV] = { M_P, M_DY, M_DV },
    [TRAIN_ATT_DQ] = { M_DP, M_K, M_DQ }, [TRAIN_ATT_DK] = { M_DP, M_Q, M_DK },
};

static void bind_attention(struct train_ctx *c, const struct net_op *op, int which, struct mm *x)
{
    float *m[M_N];
    heads(c, NET_A_HEADS, &m[M_Q], &m[M_K], &m[M_V], &m[M_Y]);
    heads(c, NET_A_DHEADS, &m[M_DQ], &m[M_DK], &m[M_DV], &m[M_DY]);
    m[M_P] = (float *)act(c, NET_A_ATT, slot(c, op->layer));
    m[M_DP] = (float *)act(c, NET_A_DATT, 0);
    x->A = m[att_operands[which][0]];
    x->B = m[att_operands[which][1]];
    x->C = m[att_operands[which][2]];
}

/* Product g of op with this context's device operands. */
static void bind(struct train_ctx *c, const struct net_op *op, const struct train_gemm *g, struct mm *x)
{
    memset(x, 0, sizeof *x);
    x->ta = g->ta; x->tb = g->tb; x->M = (uint64_t)g->m; x->N = (uint64_t)g->n; x->K = (uint64_t)g->k;
    x->at = cuda_type(g->at); x->bt = cuda_type(g->bt); x->lda = g->lda; x->ldb = g->ldb; x->ldc = g->ldc;
    x->alpha = g->alpha; x->beta = g->beta; x->batch = g->batch; x->sa = g->sa; x->sb = g->sb; x->sc = g->sc;
    if (op->kind == NET_OP_ATTENTION || op->kind == NET_OP_ATTENTION_BWD)
        bind_attention(c, op, g->which, x);
    else
        bind_linear(c, op, g, x);
}

/* Runs product i of op (train_gemms_of's order); 0, or -1 with c->err. */
static int op_gemm(struct train_ctx *c, const struct net_op *op, int i)
{
    struct train_gemm g[TRAIN_GEMMS_PER_OP];
    struct mm x;
    if (i >= train_gemms_of(&c->s, c->p, PAD, op, g)) {
        snprintf(c->err, sizeof c->err, "op kind %d has no product %d", (int)op->kind, i);
        return -1;
    }
    bind(c, op, &g[i], &x);
    return gemm(c, &x);
}

/* train_gemm_walk's question for one product: plans it (cached) with this context's operands. */
static int plan_product(void *arg, const struct net_op *op, const struct train_gemm *g, char *why, size_t n)
{
    struct train_ctx *c = (struct train_ctx *)arg;
    struct mm x;
    bind(c, op, g, &x);
    struct gemm_key k = key_of(&x);
    const struct gemm_plan *pl = plan_for(c, &k);
    if (!pl) {
        snprintf(why, n, "%s", c->err);
        return BLASLT_ERROR;
    }
    if (pl->rc != BLASLT_OK)
        snprintf(why, n, "%s", pl->why);
    return pl->rc;
}

static int ex_matmul(struct train_ctx *c, const struct net_op *op)
{
    struct lin L;
    lin_of(c, op->which, op->layer, &L);
    if (op_gemm(c, op, 0) != 0)
        goto fail;
    if (L.b)
        CK(train_gpu_add_bias(c->st, L.y, L.b, c->T, L.out));
    return 0;
fail:
    return -1;
}

static int ex_quantize(struct train_ctx *c, const struct net_op *op)
{
    struct lin L;
    lin_of(c, op->which, op->layer, &L);
    size_t n = c->T * L.in;
    CK(train_gpu_absmax(c->st, c->scal + S_XAMAX, c->amax_part, (const uint16_t *)L.x, n));
    CK(train_gpu_quantize(c->st, (uint8_t *)act(c, NET_A_XQ, 0), c->scal + S_XINV, (const uint16_t *)L.x, n, c->scal + S_XAMAX));
    return 0;
fail:
    return -1;
}

/* The padded columns of the LM head's gradient are zeros (never written), and stay zeros. */
static int ex_cast_grad(struct train_ctx *c, const struct net_op *op)
{
    struct lin L;
    lin_of(c, op->which, op->layer, &L);
    CK(train_gpu_bf16(c->st, (uint16_t *)act(c, NET_A_DLOW, 0), L.dy, c->T * L.ldy));
    return 0;
fail:
    return -1;
}

static int ex_dgrad(struct train_ctx *c, const struct net_op *op) { return op_gemm(c, op, 0); }

/* dW, then the bias gradient: the column sums of dY in two fixed stages, its own kernels. */
static int ex_wgrad(struct train_ctx *c, const struct net_op *op)
{
    struct lin L;
    lin_of(c, op->which, op->layer, &L);
    if (op_gemm(c, op, 0) != 0)
        goto fail;
    if (L.db)
        CK(train_gpu_colsum(c->st, L.db, c->red_part, L.dy, c->T, L.out));
    return 0;
fail:
    return -1;
}

static int ex_attention(struct train_ctx *c, const struct net_op *op)
{
    int S = c->s.seq, h = c->s.hidden, a = c->s.heads, k = slot(c, op->layer);
    float *q, *kk, *v, *y, *att = (float *)act(c, NET_A_ATT, k);
    heads(c, NET_A_HEADS, &q, &kk, &v, &y);
    CK(train_gpu_split_qkv(c->st, q, kk, v, (const float *)act(c, NET_A_QKV, k), c->s.batch, S, h, a));
    if (op_gemm(c, op, 0) != 0)
        goto fail;
    CK(train_gpu_softmax_causal(c->st, att, (size_t)c->s.batch * a * S, S));
    if (op_gemm(c, op, 1) != 0)
        goto fail;
    CK(train_gpu_merge_heads(c->st, act(c, NET_A_ATTY, k), c->p != NET_FP32, y, c->s.batch, S, h, a));
    return 0;
fail:
    return -1;
}

static int ex_attention_bwd(struct train_ctx *c, const struct net_op *op)
{
    int S = c->s.seq, h = c->s.hidden, a = c->s.heads, d = h / a, k = slot(c, op->layer);
    float *q, *kk, *v, *y, *dq, *dk, *dv, *dy, *att = (float *)act(c, NET_A_ATT, k);
    float *datt = (float *)act(c, NET_A_DATT, 0);
    heads(c, NET_A_HEADS, &q, &kk, &v, &y);
    heads(c, NET_A_DHEADS, &dq, &dk, &dv, &dy);
    CK(train_gpu_split_qkv(c->st, q, kk, v, (const float *)act(c, NET_A_QKV, k), c->s.batch, S, h, a));
    CK(train_gpu_split_heads(c->st, dy, (const float *)act(c, NET_A_DATTY, 0), c->s.batch, S, h, a));
    if (op_gemm(c, op, 0) != 0 || op_gemm(c, op, 1) != 0)           /* dP = dY V^T, dV = P^T dY */
        goto fail;
    CK(train_gpu_softmax_causal_bwd(c->st, datt, att, (size_t)c->s.batch * a * S, S, 1.0f / sqrtf((float)d)));
    if (op_gemm(c, op, 2) != 0 || op_gemm(c, op, 3) != 0)           /* dQ = dS K, dK = dS^T Q */
        goto fail;
    CK(train_gpu_merge_qkv(c->st, (float *)act(c, NET_A_DQKV, 0), dq, dk, dv, c->s.batch, S, h, a));
    return 0;
fail:
    return -1;
}

/* ---- the other op kinds ---- */

struct norm_io {
    const float *x;
    void *out;
    float *stats, *w, *b, *dw, *db;
};

static void norm_of(struct train_ctx *c, const struct net_op *op, struct norm_io *n)
{
    int k = slot(c, op->layer), l = op->layer;
    if (op->which == NET_LNF) {
        n->x = (const float *)act(c, NET_A_RES, c->s.layers); n->out = act(c, NET_A_LNF, 0);
        n->stats = (float *)act(c, NET_A_LNF_STATS, 0);
        n->w = W(c, NET_P_LNFW, 0); n->b = W(c, NET_P_LNFB, 0); n->dw = G(c, NET_P_LNFW, 0); n->db = G(c, NET_P_LNFB, 0);
    } else if (op->which == NET_LN1) {
        n->x = (const float *)act(c, NET_A_RES, l); n->out = act(c, NET_A_LN1, k);
        n->stats = (float *)act(c, NET_A_LN1_STATS, k);
        n->w = W(c, NET_P_LN1W, l); n->b = W(c, NET_P_LN1B, l); n->dw = G(c, NET_P_LN1W, l); n->db = G(c, NET_P_LN1B, l);
    } else {
        n->x = (const float *)act(c, NET_A_RES2, k); n->out = act(c, NET_A_LN2, k);
        n->stats = (float *)act(c, NET_A_LN2_STATS, k);
        n->w = W(c, NET_P_LN2W, l); n->b = W(c, NET_P_LN2B, l); n->dw = G(c, NET_P_LN2W, l); n->db = G(c, NET_P_LN2B, l);
    }
}

static int ex_layernorm(struct train_ctx *c, const struct net_op *op)
{
    struct norm_io n;
    norm_of(c, op, &n);
    CK(train_gpu_layernorm(c->st, n.out, c->p != NET_FP32, n.stats, n.x, n.w, n.b, c->T, c->s.hidden));
    return 0;
fail:
    return -1;
}

static int ex_layernorm_bwd(struct train_ctx *c, const struct net_op *op)
{
    struct norm_io n;
    norm_of(c, op, &n);
    CK(train_gpu_layernorm_bwd(c->st, (float *)act(c, NET_A_DRES, 0), op->which == NET_LNF, n.dw, n.db, c->red_part,
                               (const float *)act(c, NET_A_DLN, 0), n.x, n.stats, n.w, c->T, c->s.hidden));
    return 0;
fail:
    return -1;
}

static int ex_residual(struct train_ctx *c, const struct net_op *op)
{
    int k = slot(c, op->layer);
    size_t n = c->T * (size_t)c->s.hidden;
    if (op->which == 0)
        CK(train_gpu_add(c->st, (float *)act(c, NET_A_RES2, k), (const float *)act(c, NET_A_RES, op->layer), n));
    else
        CK(train_gpu_add(c->st, (float *)act(c, NET_A_RES, op->layer + 1), (const float *)act(c, NET_A_RES2, k), n));
    return 0;
fail:
    return -1;
}

static int ex_gelu(struct train_ctx *c, const struct net_op *op)
{
    int k = slot(c, op->layer);
    CK(train_gpu_gelu(c->st, act(c, NET_A_GELU, k), c->p != NET_FP32, (const float *)act(c, NET_A_FC, k),
            4 * c->T * (size_t)c->s.hidden));
    return 0;
fail:
    return -1;
}

static int ex_gelu_bwd(struct train_ctx *c, const struct net_op *op)
{
    CK(train_gpu_gelu_bwd(c->st, (float *)act(c, NET_A_DFC, 0), (const float *)act(c, NET_A_FC, slot(c, op->layer)),
                4 * c->T * (size_t)c->s.hidden));
    return 0;
fail:
    return -1;
}

static const int32_t *ids(struct train_ctx *c, enum net_act a, int mb)
{
    return (const int32_t *)act(c, a, 0) + (size_t)mb * c->T;
}

static int ex_embed(struct train_ctx *c, const struct net_op *op)
{
    CK(train_gpu_embed(c->st, (float *)act(c, NET_A_RES, 0), ids(c, NET_A_TOKENS, op->micro), W(c, NET_P_WTE, 0),
             W(c, NET_P_WPE, 0), c->s.batch, c->s.seq, c->s.hidden));
    return 0;
fail:
    return -1;
}

static int ex_embed_bwd(struct train_ctx *c, const struct net_op *op)
{
    const int32_t *order = c->groups + (size_t)op->micro * (2 * c->T + 1);
    CK(train_gpu_embed_bwd(c->st, G(c, NET_P_WTE, 0), G(c, NET_P_WPE, 0), (const float *)act(c, NET_A_DRES, 0),
                           ids(c, NET_A_TOKENS, op->micro), order, order + c->T, c->ngroups[op->micro], c->s.batch,
                           c->s.seq, c->s.hidden));
    return 0;
fail:
    return -1;
}

static int ex_xent(struct train_ctx *c, const struct net_op *op)
{
    CK(train_gpu_xent(c->st, (float *)act(c, NET_A_LOSSES, 0) + (size_t)op->micro * c->T, (float *)act(c, NET_A_LOGITS, 0),
                      ids(c, NET_A_TARGETS, op->micro), c->T, c->s.vocab, (size_t)train_vocab_ld(c->s.vocab, PAD)));
    return 0;
fail:
    return -1;
}

static int ex_xent_bwd(struct train_ctx *c, const struct net_op *op)
{
    CK(train_gpu_xent_bwd(c->st, (float *)act(c, NET_A_LOGITS, 0), ids(c, NET_A_TARGETS, op->micro), c->T, c->s.vocab,
                          (size_t)train_vocab_ld(c->s.vocab, PAD), (float)(1.0 / ((double)c->T * c->s.accum))));
    return 0;
fail:
    return -1;
}

static int ex_zero_grad(struct train_ctx *c, const struct net_op *op)
{
    (void)op;
    CK(cudaMemsetAsync(c->g, 0, c->N * sizeof *c->g, c->st));
    return 0;
fail:
    return -1;
}

static int ex_grad_norm(struct train_ctx *c, const struct net_op *op)
{
    (void)op;
    CK(train_gpu_norm(c->st, c->scal + S_NORM, c->norm_part, c->g, c->N));
    return 0;
fail:
    return -1;
}

/* BF16 copies of the linears' weights from the master weights. */
static int refresh(struct train_ctx *c)
{
    if (!c->w16)
        return 0;
    for (int l = 0; l < NET_NLINEARS; l++)
        for (int layer = 0; layer < (l == NET_LIN_LMHEAD ? 1 : c->s.layers); layer++) {
            struct lin L;
            lin_of(c, l, layer, &L);
            CK(train_gpu_bf16(c->st, L.w16, L.w, L.in * L.out));
        }
    return 0;
fail:
    return -1;
}

static int ex_quantize_weights(struct train_ctx *c, const struct net_op *op)
{
    (void)op;
    for (int l = 0; l < NET_LIN_LMHEAD; l++)
        for (int layer = 0; layer < c->s.layers; layer++) {
            struct lin L;
            lin_of(c, l, layer, &L);
            CK(train_gpu_absmax(c->st, c->scal + S_WAMAX, c->amax_part, L.w16, L.in * L.out));
            CK(train_gpu_quantize(c->st, L.w8, L.winv, L.w16, L.in * L.out, c->scal + S_WAMAX));
        }
    return 0;
fail:
    return -1;
}

static int ex_adamw(struct train_ctx *c, const struct net_op *op)
{
    (void)op;
    for (int p = 0; p < NET_NPARAMS; p++) {
        size_t r, cols;
        net_param_dims(&c->s, (enum net_param)p, &r, &cols);
        size_t n = r * cols * (net_params[p].per_block ? (size_t)c->s.layers : 1);
        CK(train_gpu_adamw(c->st, W(c, (enum net_param)p, 0), c->m + net_param_offset(&c->s, (enum net_param)p, 0),
                 c->v + net_param_offset(&c->s, (enum net_param)p, 0), G(c, (enum net_param)p, 0), n, c->adam,
                 c->clip, c->scal + S_NORM, net_params[p].decay));
    }
    return refresh(c);
fail:
    return -1;
}

typedef int (*exec_fn)(struct train_ctx *, const struct net_op *);   /* 0, or -1 with c->err */

static exec_fn exec_of(enum net_kind k)
{
    static exec_fn table[NET_NKINDS];
    if (!table[NET_OP_MATMUL]) {
        table[NET_OP_ZERO_GRAD] = ex_zero_grad; table[NET_OP_EMBED] = ex_embed;
        table[NET_OP_LAYERNORM] = ex_layernorm; table[NET_OP_QUANTIZE] = ex_quantize;
        table[NET_OP_ATTENTION] = ex_attention; table[NET_OP_RESIDUAL] = ex_residual;
        table[NET_OP_GELU] = ex_gelu; table[NET_OP_XENT] = ex_xent; table[NET_OP_XENT_BWD] = ex_xent_bwd;
        table[NET_OP_CAST_GRAD] = ex_cast_grad; table[NET_OP_MATMUL_DGRAD] = ex_dgrad;
        table[NET_OP_MATMUL_WGRAD] = ex_wgrad; table[NET_OP_GELU_BWD] = ex_gelu_bwd;
        table[NET_OP_ATTENTION_BWD] = ex_attention_bwd; table[NET_OP_LAYERNORM_BWD] = ex_layernorm_bwd;
        table[NET_OP_EMBED_BWD] = ex_embed_bwd; table[NET_OP_GRAD_NORM] = ex_grad_norm;
        table[NET_OP_ADAMW] = ex_adamw; table[NET_OP_QUANTIZE_WEIGHTS] = ex_quantize_weights;
        table[NET_OP_MATMUL] = ex_matmul;
    }
    return table[k];
}

/* Runs one op unless an earlier call failed: the configuration stops, gpu_error() says why. */
static void gpu_run(struct train_ctx *c, const struct net_op *op)
{
    exec_fn f = exec_of(op->kind);
    if (c->err[0])
        return;
    if (!f)
        snprintf(c->err, sizeof c->err, "no CUDA kernel for op kind %d", (int)op->kind);
    else
        f(c, op);
}

/* ---- life cycle ---- */

static int gpu_supports(const struct net_shape *s, enum net_prec p, char *why, size_t n)
{
    cudaDeviceProp prop;
    const char *x = net_shape_extension(s);
    if (x) {
        snprintf(why, n, "the CUDA training backend runs GPT-2 blocks only; this shape asks for %s", x);
        return 0;
    }
    if (p != NET_FP8)
        return 1;
    CUDA_CHECK(cudaGetDeviceProperties(&prop, 0), why, n);
    if (prop.major * 10 + prop.minor < 89) {
        snprintf(why, n, "FP8 matmuls need compute capability 8.9 or later; %s is %d.%d", prop.name, prop.major, prop.minor);
        return 0;
    }
    if ((s->batch * s->seq) % 16 != 0 || s->hidden % 16 != 0) {
        snprintf(why, n, "cuBLASLt's FP8 matmuls need tokens per micro-batch (%d) and hidden (%d) to be multiples of 16",
                 s->batch * s->seq, s->hidden);
        return 0;
    }
    return 1;
fail:
    return 0;
}

static void gpu_reset(struct train_ctx *c)
{
    if (c->err[0])
        return;
    train_init_params(&c->s, c->seed, c->h_w);
    CK(cudaMemcpy(c->w, c->h_w, c->N * sizeof *c->w, cudaMemcpyHostToDevice));
    CK(cudaMemset(c->m, 0, c->N * sizeof *c->m));
    CK(cudaMemset(c->v, 0, c->N * sizeof *c->v));
    if (refresh(c) != 0 || (c->w8 && ex_quantize_weights(c, NULL) != 0))
        return;
    CK(cudaStreamSynchronize(c->st));
fail:
    return;
}

/* Frees everything open() made; errors of the frees are of no use to anyone and are cleared. */
static void gpu_close(struct train_ctx *c)
{
    if (!c)
        return;
    if (c->st)
        cudaStreamSynchronize(c->st);
    for (int i = 0; i < c->ncache; i++)
        blaslt_matmul_close(&c->cache[i].mm);
    for (int i = 0; i < c->nev; i++)
        cudaEventDestroy(c->ev[i]);
    void *dev[] = { c->w, c->g, c->m, c->v, c->w16, c->w8, c->scal, c->amax_part, c->norm_part, c->red_part, c->groups };
    for (size_t i = 0; i < sizeof dev / sizeof dev[0]; i++)
        cudaFree(dev[i]);
    for (int a = 0; a < NET_NACTS; a++)
        cudaFree(c->act[a]);
    blaslt_close(&c->lt);
    if (c->st)
        cudaStreamDestroy(c->st);
    cudaGetLastError();
    free(c->ev);
    free(c->h_w);
    free(c->h_losses);
    free(c->h_groups);
    free(c->ngroups);
    free(c);
}

/* The logits and the BF16 gradient copy the LM head's backward reads hold rows of
 * train_vocab_ld(V) on the GPU, more than the plan's V. */
static void pad_rows(struct train_ctx *c, enum net_act a)
{
    double padded = (double)c->T * (double)train_vocab_ld(c->s.vocab, PAD);
    if ((a == NET_A_LOGITS || a == NET_A_DLOW) && c->t[a].elems > 0 && c->t[a].elems < padded)
        c->t[a].elems = padded;
}

/* Floats of column-sum partials: slices x the widest column sum (LayerNorm's two sums of h side by
 * side, or a bias). */
static double red_floats(const struct train_ctx *c)
{
    double cols = 2.0 * c->s.hidden;
    for (int l = 0; l < NET_NLINEARS; l++) {
        enum net_param w, b;
        size_t in, out;
        net_linear_params(&c->s, (enum net_linear)l, &w, &b, &in, &out);
        if (b != NET_NPARAMS && (double)out > cols)
            cols = (double)out;
    }
    return (double)train_red_slices(c->T) * cols;
}

static int gpu_alloc(struct train_ctx *c)
{
    double N = (double)c->N, nb = N / TRAIN_SUMSQ_BLOCK + 2;
    int bad = dalloc(c, (void **)&c->w, 4 * N) | dalloc(c, (void **)&c->g, 4 * N) | dalloc(c, (void **)&c->m, 4 * N)
            | dalloc(c, (void **)&c->v, 4 * N) | dalloc(c, (void **)&c->scal, 4.0 * (S_WINV + 4 * c->s.layers))
            | dalloc(c, (void **)&c->norm_part, 8 * nb) | dalloc(c, (void **)&c->red_part, 4 * red_floats(c))
            | dalloc(c, (void **)&c->groups, 4.0 * c->s.accum * (2.0 * c->T + 1));
    if (c->p != NET_FP32)
        bad |= dalloc(c, (void **)&c->w16, 2 * (double)net_low_count(&c->s));
    if (c->p == NET_FP8) {
        double most = (double)net_fp8_count(&c->s) > 4.0 * c->T * c->s.hidden ? (double)net_fp8_count(&c->s)
                                                                              : 4.0 * c->T * c->s.hidden;
        bad |= dalloc(c, (void **)&c->w8, (double)net_fp8_count(&c->s));
        bad |= dalloc(c, (void **)&c->amax_part, 4 * (most / TRAIN_AMAX_BLOCK + 2));
    }
    for (int a = 0; a < NET_NACTS && !bad; a++) {
        net_act_tensor(&c->s, c->p, NET_IMPL_GPU, (enum net_act)a, &c->t[a]);
        pad_rows(c, (enum net_act)a);
        bad |= dalloc(c, (void **)&c->act[a], c->t[a].elems * c->t[a].copies * net_dtype_bytes[c->t[a].dtype]);
    }
    return bad ? -1 : 0;
}

/* Stream, tensors, the cuBLASLt handle on the GEMM workspace tensor, events, initial weights;
 * 0, or -1 with c->err. */
static int gpu_start(struct train_ctx *c)
{
    CK(cudaSetDevice(0));
    CK(cudaStreamCreate(&c->st));
    if (gpu_alloc(c) != 0)
        return -1;
    if (blaslt_open(&c->lt, c->st, act(c, NET_A_GEMM_WS, 0), (size_t)(c->t[NET_A_GEMM_WS].elems * 4), c->err,
                    sizeof c->err) != BLASLT_OK)
        return -1;
    c->nev = net_plan(&c->s, c->p, NULL, 0) + 1;
    c->ev = (cudaEvent_t *)xcalloc((size_t)c->nev, sizeof *c->ev);
    for (int i = 0; i < c->nev; i++)
        CK(cudaEventCreate(&c->ev[i]));
    return 0;
fail:
    return -1;
}

static struct train_ctx *gpu_open(const struct net_shape *s, enum net_prec p, uint64_t seed, char *err, size_t errlen)
{
    const char *why = net_shape_problem(s);
    if (why) {
        snprintf(err, errlen, "%s", why);
        return NULL;
    }
    if (!gpu_supports(s, p, err, errlen))
        return NULL;
    struct train_ctx *c = (struct train_ctx *)xcalloc(1, sizeof *c);
    c->s = *s;
    c->p = p;
    c->seed = seed;
    c->N = net_param_count(s);
    c->T = (size_t)s->batch * s->seq;
    c->h_w = (float *)xmalloc(c->N * sizeof *c->h_w);
    c->h_losses = (float *)xmalloc(c->T * s->accum * sizeof *c->h_losses);
    c->h_groups = (int32_t *)xmalloc((2 * c->T + 1) * s->accum * sizeof *c->h_groups);
    c->ngroups = (int *)xcalloc((size_t)s->accum, sizeof *c->ngroups);
    if (gpu_start(c) != 0) {
        struct net_memory mm;
        char need[32];
        net_memory(s, p, NET_IMPL_GPU, &mm);
        snprintf(err, errlen, "cannot start the shape on the GPU (it needs %s of device memory): %s",
                 units_format_bytes(mm.total, need, sizeof need), c->err);
        gpu_close(c);
        return NULL;
    }
    /* every product of the step, before any runs: a refused one declines the configuration */
    if (train_gemm_walk(s, p, PAD, plan_product, c, err, errlen) != TRAIN_GEMM_OK) {
        gpu_close(c);
        return NULL;
    }
    gpu_reset(c);
    if (c->err[0]) {
        snprintf(err, errlen, "%s", c->err);
        gpu_close(c);
        return NULL;
    }
    return c;
}

static void gpu_load(struct train_ctx *c, const int32_t *tokens, const int32_t *targets)
{
    size_t n = c->T * (size_t)c->s.accum * sizeof(int32_t);
    if (c->err[0])
        return;
    CK(cudaStreamSynchronize(c->st));
    CK(cudaMemcpy(act(c, NET_A_TOKENS, 0), tokens, n, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(act(c, NET_A_TARGETS, 0), targets, n, cudaMemcpyHostToDevice));
    for (int mb = 0; mb < c->s.accum; mb++) {       /* the embedding backward's token groups */
        int32_t *order = c->h_groups + (size_t)mb * (2 * c->T + 1);
        c->ngroups[mb] = train_embed_groups(tokens + (size_t)mb * c->T, (int)c->T, order, order + c->T);
    }
    CK(cudaMemcpy(c->groups, c->h_groups, (2 * c->T + 1) * c->s.accum * sizeof *c->h_groups, cudaMemcpyHostToDevice));
fail:
    return;
}

static void gpu_set_step(struct train_ctx *c, const struct train_adam *a, float clip)
{
    c->adam = *a;
    c->clip = clip;
}

static void gpu_mark(struct train_ctx *c, int i)
{
    if (c->err[0])
        return;
    CK(cudaEventRecord(c->ev[i], c->st));
fail:
    return;
}

/* NAN for every op once a call has failed. */
static void gpu_elapsed(struct train_ctx *c, int n, double *s)
{
    for (int i = 0; i < n; i++)
        s[i] = NAN;
    if (c->err[0])
        return;
    CK(cudaEventSynchronize(c->ev[n]));
    for (int i = 0; i < n; i++) {
        float ms = 0;
        CK(cudaEventElapsedTime(&ms, c->ev[i], c->ev[i + 1]));
        s[i] = ms * 1e-3;
    }
fail:
    return;
}

static double gpu_loss(struct train_ctx *c)
{
    size_t n = c->T * (size_t)c->s.accum;
    double sum = 0;
    if (c->err[0])
        return NAN;
    CK(cudaStreamSynchronize(c->st));
    CK(cudaMemcpy(c->h_losses, act(c, NET_A_LOSSES, 0), n * sizeof *c->h_losses, cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < n; i++)
        sum += c->h_losses[i];
    return sum / (double)n;
fail:
    return NAN;
}

static double gpu_grad_norm(struct train_ctx *c)
{
    float norm = 0;
    if (c->err[0])
        return NAN;
    CK(cudaStreamSynchronize(c->st));
    CK(cudaMemcpy(&norm, c->scal + S_NORM, sizeof norm, cudaMemcpyDeviceToHost));
    return norm;
fail:
    return NAN;
}

static void gpu_perturb(struct train_ctx *c, double eps)
{
    if (c->err[0])
        return;
    CK(train_gpu_perturb(c->st, c->w, c->g, c->N, (float)eps, c->scal + S_NORM));
    if (refresh(c) == 0 && c->w8)
        ex_quantize_weights(c, NULL);
fail:
    return;
}

static double gpu_allocated(struct train_ctx *c) { return c->bytes; }

static const char *gpu_error(struct train_ctx *c) { return c->err[0] ? c->err : NULL; }

extern "C" const struct train_ops train_cuda_ops = {
    "gpu", NET_IMPL_GPU, gpu_open, gpu_load, gpu_set_step, gpu_run, gpu_mark, gpu_elapsed, gpu_loss,
    gpu_grad_norm, gpu_perturb, gpu_reset, gpu_allocated, gpu_close, gpu_supports, gpu_error,
};
