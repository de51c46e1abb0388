/* ops.c: the op plan of one training step and the tensors it holds, with closed-form FLOPs
 * and bytes per op. Costs are table entries, one function per op kind, so the plan a backend
 * executes and the figures the model reads come from the same place. Nothing here runs. */
#include "model/ops.h"

#include <math.h>
#include <stdio.h>

const char *const model_class_names[MODEL_NCLASSES] = {
    "matmul", "attention", "norm", "elementwise", "loss", "optimizer", "other",
};
const char *const model_prec_names[MODEL_NPRECS] = { "fp32", "bf16", "fp8" };
const char *const model_dtype_names[MODEL_NDTYPES] = { "fp32", "bf16", "e4m3", "int32" };
const double model_dtype_bytes[MODEL_NDTYPES] = { 4, 2, 1, 4 };
const char *const model_phase_names[MODEL_NPHASES] = { "forward", "backward", "recompute", "update" };
const char *const model_linear_names[MODEL_NLINEARS] = { "qkv", "attproj", "fc", "fcproj", "lmhead" };
const char *const model_norm_names[MODEL_NNORMS] = { "ln1", "ln2", "lnf" };
const char *const model_mem_names[MODEL_NMEM] = {
    "weights", "low_precision_weights", "gradients", "optimizer", "activations", "scratch",
};

const struct model_kind_info model_kinds[MODEL_NKINDS] = {
    [MODEL_OP_ZERO_GRAD] = { "zero_grad", MODEL_OPTIMIZER, "gradients set to zero: writes 4N bytes" },
    [MODEL_OP_EMBED] = { "embed", MODEL_OTHER, "x = wte[token] + wpe[position]: T h adds" },
    [MODEL_OP_LAYERNORM] = { "layernorm", MODEL_NORM, "LayerNorm forward: 8 FLOPs per element" },
    [MODEL_OP_QUANTIZE] = { "quantize", MODEL_ELEMENTWISE,
        "FP8: a matmul input's absolute maximum, then BF16 -> E4M3 with that scale: two passes" },
    [MODEL_OP_MATMUL] = { "matmul", MODEL_MATMUL, "Y = X W^T + b: 2mnk FLOPs (the bias is not counted)" },
    [MODEL_OP_ATTENTION] = { "attention", MODEL_ATTENTION,
        "causal softmax(Q K^T / sqrt(d)) V per head: 4 B s^2 h FLOPs, Megatron's count of the full "
        "s x s products" },
    [MODEL_OP_RESIDUAL] = { "residual", MODEL_ELEMENTWISE, "y += x: 1 FLOP per element" },
    [MODEL_OP_GELU] = { "gelu", MODEL_ELEMENTWISE, "GELU (tanh form): 8 FLOPs per element" },
    [MODEL_OP_XENT] = { "cross_entropy", MODEL_LOSS, "softmax over the vocabulary and -log p: 5 FLOPs per logit" },
    [MODEL_OP_XENT_BWD] = { "cross_entropy_bwd", MODEL_LOSS, "dlogits = (p - onehot) / tokens: 2 FLOPs per logit" },
    [MODEL_OP_CAST_GRAD] = { "cast_grad", MODEL_ELEMENTWISE, "a matmul's output gradient FP32 -> BF16 (RNE)" },
    [MODEL_OP_MATMUL_DGRAD] = { "matmul_dgrad", MODEL_MATMUL, "dX = dY W: 2mnk FLOPs" },
    [MODEL_OP_MATMUL_WGRAD] = { "matmul_wgrad", MODEL_MATMUL,
        "dW += dY^T X, db += column sums of dY: 2mnk FLOPs (the bias gradient is not counted)" },
    [MODEL_OP_GELU_BWD] = { "gelu_bwd", MODEL_ELEMENTWISE, "GELU backward: 13 FLOPs per element" },
    [MODEL_OP_ATTENTION_BWD] = { "attention_bwd", MODEL_ATTENTION, "attention backward: 8 B s^2 h FLOPs (2x forward)" },
    [MODEL_OP_LAYERNORM_BWD] = { "layernorm_bwd", MODEL_NORM,
        "LayerNorm backward, input gradient added to the residual stream's: 14 FLOPs per element" },
    [MODEL_OP_EMBED_BWD] = { "embed_bwd", MODEL_OTHER, "dwte[token] += dx, dwpe[position] += dx" },
    [MODEL_OP_GRAD_NORM] = { "grad_norm", MODEL_OPTIMIZER, "global L2 norm of the gradients: 2 FLOPs per parameter" },
    [MODEL_OP_ADAMW] = { "adamw", MODEL_OPTIMIZER,
        "AdamW with bias correction, decoupled weight decay and global-norm clipping: 16 FLOPs per "
        "parameter; reads w, m, v, g (16 B), writes w, m, v (12 B) and the BF16 copy of matmul weights" },
    [MODEL_OP_QUANTIZE_WEIGHTS] = { "quantize_weights", MODEL_ELEMENTWISE,
        "FP8: each block weight's absolute maximum, then BF16 -> E4M3: two passes" },
};

const struct model_param_info model_params[MODEL_NPARAMS] = {
    [MODEL_P_WTE] = { "wte", 0, 1, 2 },           [MODEL_P_WPE] = { "wpe", 0, 1, 2 },
    [MODEL_P_LN1W] = { "ln1w", 1, 0, 1 },         [MODEL_P_LN1B] = { "ln1b", 1, 0, 0 },
    [MODEL_P_QKVW] = { "qkvw", 1, 1, 2 },         [MODEL_P_QKVB] = { "qkvb", 1, 0, 0 },
    [MODEL_P_ATTPROJW] = { "attprojw", 1, 1, 3 }, [MODEL_P_ATTPROJB] = { "attprojb", 1, 0, 0 },
    [MODEL_P_LN2W] = { "ln2w", 1, 0, 1 },         [MODEL_P_LN2B] = { "ln2b", 1, 0, 0 },
    [MODEL_P_FCW] = { "fcw", 1, 1, 2 },           [MODEL_P_FCB] = { "fcb", 1, 0, 0 },
    [MODEL_P_FCPROJW] = { "fcprojw", 1, 1, 3 },   [MODEL_P_FCPROJB] = { "fcprojb", 1, 0, 0 },
    [MODEL_P_LNFW] = { "lnfw", 0, 0, 1 },         [MODEL_P_LNFB] = { "lnfb", 0, 0, 0 },
    [MODEL_P_LMHEAD] = { "lmhead", 0, 1, 2 },
};

const struct model_act_info model_acts[MODEL_NACTS] = {
    [MODEL_A_TOKENS] = { "tokens", MODEL_MEM_ACTIVATIONS, 0, 3 },
    [MODEL_A_TARGETS] = { "targets", MODEL_MEM_ACTIVATIONS, 0, 3 },
    [MODEL_A_RES] = { "residual", MODEL_MEM_ACTIVATIONS, 0, 3 },
    [MODEL_A_LN1] = { "ln1", MODEL_MEM_ACTIVATIONS, 1, 3 },
    [MODEL_A_LN1_STATS] = { "ln1_stats", MODEL_MEM_ACTIVATIONS, 1, 3 },
    [MODEL_A_QKV] = { "qkv", MODEL_MEM_ACTIVATIONS, 1, 3 },
    [MODEL_A_ATT] = { "att", MODEL_MEM_ACTIVATIONS, 1, 3 },
    [MODEL_A_ATTY] = { "atty", MODEL_MEM_ACTIVATIONS, 1, 3 },
    [MODEL_A_RES2] = { "residual2", MODEL_MEM_ACTIVATIONS, 1, 3 },
    [MODEL_A_LN2] = { "ln2", MODEL_MEM_ACTIVATIONS, 1, 3 },
    [MODEL_A_LN2_STATS] = { "ln2_stats", MODEL_MEM_ACTIVATIONS, 1, 3 },
    [MODEL_A_FC] = { "fc", MODEL_MEM_ACTIVATIONS, 1, 3 },
    [MODEL_A_GELU] = { "gelu", MODEL_MEM_ACTIVATIONS, 1, 3 },
    [MODEL_A_LNF] = { "lnf", MODEL_MEM_ACTIVATIONS, 0, 3 },
    [MODEL_A_LNF_STATS] = { "lnf_stats", MODEL_MEM_ACTIVATIONS, 0, 3 },
    [MODEL_A_LOGITS] = { "logits", MODEL_MEM_ACTIVATIONS, 0, 3 },
    [MODEL_A_LOSSES] = { "losses", MODEL_MEM_ACTIVATIONS, 0, 3 },
    [MODEL_A_DRES] = { "dresidual", MODEL_MEM_SCRATCH, 0, 3 },
    [MODEL_A_DLN] = { "dln", MODEL_MEM_SCRATCH, 0, 3 },
    [MODEL_A_DATTY] = { "datty", MODEL_MEM_SCRATCH, 0, 3 },
    [MODEL_A_DQKV] = { "dqkv", MODEL_MEM_SCRATCH, 0, 3 },
    [MODEL_A_DFC] = { "dfc", MODEL_MEM_SCRATCH, 0, 3 },
    [MODEL_A_DLOW] = { "dlow", MODEL_MEM_SCRATCH, 0, 3 },
    [MODEL_A_XQ] = { "xq", MODEL_MEM_SCRATCH, 0, 3 },
    [MODEL_A_WIDEN_X] = { "widen_x", MODEL_MEM_SCRATCH, 0, MODEL_IMPL_CPU },
    [MODEL_A_WIDEN_W] = { "widen_w", MODEL_MEM_SCRATCH, 0, MODEL_IMPL_CPU },
    [MODEL_A_HEADS] = { "heads", MODEL_MEM_SCRATCH, 0, MODEL_IMPL_GPU },
    [MODEL_A_DHEADS] = { "dheads", MODEL_MEM_SCRATCH, 0, MODEL_IMPL_GPU },
    [MODEL_A_DATT] = { "datt", MODEL_MEM_SCRATCH, 0, MODEL_IMPL_GPU },
    [MODEL_A_GEMM_WS] = { "gemm_workspace", MODEL_MEM_SCRATCH, 0, MODEL_IMPL_GPU },
};

#define GEMM_WORKSPACE_BYTES (32.0 * 1024 * 1024)

const char *model_shape_problem(const struct model_shape *s)
{
    if (s->layers < 1 || s->hidden < 1 || s->heads < 1 || s->seq < 1 || s->vocab < 2 || s->batch < 1
        || s->accum < 1)
        return "layers, hidden, heads, seq, batch and accum must be at least 1, vocab at least 2";
    if (s->hidden % s->heads != 0)
        return "heads must divide hidden (the head size is hidden / heads)";
    return NULL;
}

/* ---- parameters ---- */

void model_param_dims(const struct model_shape *s, enum model_param p, size_t *rows, size_t *cols)
{
    size_t h = (size_t)s->hidden, V = (size_t)s->vocab;
    static const int in4[MODEL_NPARAMS] = { [MODEL_P_FCPROJW] = 1 };
    static const int out_mult[MODEL_NPARAMS] = {   /* rows in units of h for per-block tensors */
        [MODEL_P_QKVW] = 3, [MODEL_P_QKVB] = 3, [MODEL_P_ATTPROJW] = 1, [MODEL_P_ATTPROJB] = 1,
        [MODEL_P_FCW] = 4, [MODEL_P_FCB] = 4, [MODEL_P_FCPROJW] = 1, [MODEL_P_FCPROJB] = 1,
    };
    switch (p) {
    case MODEL_P_WTE: *rows = V; *cols = h; return;
    case MODEL_P_WPE: *rows = (size_t)s->seq; *cols = h; return;
    case MODEL_P_LMHEAD: *rows = s->tied ? 0 : V; *cols = s->tied ? 0 : h; return;
    case MODEL_P_LN1W: case MODEL_P_LN1B: case MODEL_P_LN2W: case MODEL_P_LN2B:
    case MODEL_P_LNFW: case MODEL_P_LNFB: *rows = 1; *cols = h; return;
    case MODEL_P_QKVB: case MODEL_P_ATTPROJB: case MODEL_P_FCB: case MODEL_P_FCPROJB:
        *rows = 1; *cols = (size_t)out_mult[p] * h; return;
    default:                /* the four block weights [out, in] */
        *rows = (size_t)out_mult[p] * h;
        *cols = in4[p] ? 4 * h : h;
        return;
    }
}

static size_t param_size(const struct model_shape *s, enum model_param p)
{
    size_t r, c;
    model_param_dims(s, p, &r, &c);
    return r * c;
}

size_t model_param_offset(const struct model_shape *s, enum model_param p, int layer)
{
    size_t off = 0;
    for (int q = 0; q < (int)p; q++)
        off += param_size(s, q) * (model_params[q].per_block ? (size_t)s->layers : 1);
    return off + (model_params[p].per_block ? (size_t)layer * param_size(s, p) : 0);
}

size_t model_param_count(const struct model_shape *s)
{
    return model_param_offset(s, MODEL_NPARAMS - 1, 0) + param_size(s, MODEL_NPARAMS - 1);
}

void model_linear_params(const struct model_shape *s, enum model_linear l, enum model_param *w,
                         enum model_param *b, size_t *in, size_t *out)
{
    static const enum model_param W[MODEL_NLINEARS] = { MODEL_P_QKVW, MODEL_P_ATTPROJW, MODEL_P_FCW,
                                                        MODEL_P_FCPROJW, MODEL_P_LMHEAD };
    static const enum model_param Bs[MODEL_NLINEARS] = { MODEL_P_QKVB, MODEL_P_ATTPROJB, MODEL_P_FCB,
                                                         MODEL_P_FCPROJB, MODEL_NPARAMS };
    size_t r, c;
    *w = l == MODEL_LIN_LMHEAD && s->tied ? MODEL_P_WTE : W[l];
    *b = Bs[l];
    model_param_dims(s, *w, &r, &c);
    *out = r;
    *in = c;
}

static size_t linear_size(const struct model_shape *s, enum model_linear l)
{
    enum model_param w, b;
    size_t in, out;
    model_linear_params(s, l, &w, &b, &in, &out);
    return in * out;
}

size_t model_low_offset(const struct model_shape *s, enum model_linear l, int layer)
{
    size_t off = 0;
    for (int q = 0; q < (int)l; q++)
        off += linear_size(s, q) * (size_t)s->layers;
    return off + (l == MODEL_LIN_LMHEAD ? 0 : (size_t)layer * linear_size(s, l));
}

size_t model_low_count(const struct model_shape *s)
{
    return model_low_offset(s, MODEL_LIN_LMHEAD, 0) + linear_size(s, MODEL_LIN_LMHEAD);
}

size_t model_fp8_count(const struct model_shape *s)
{
    return model_low_offset(s, MODEL_LIN_LMHEAD, 0);
}

/* ---- activations ---- */

void model_linear_io(enum model_linear l, struct model_linear_io *io)
{
    static const struct model_linear_io io_of[MODEL_NLINEARS] = {
        [MODEL_LIN_QKV] = { MODEL_A_LN1, MODEL_A_QKV, MODEL_A_DQKV, MODEL_A_DLN },
        [MODEL_LIN_ATTPROJ] = { MODEL_A_ATTY, MODEL_A_RES2, MODEL_A_DRES, MODEL_A_DATTY },
        [MODEL_LIN_FC] = { MODEL_A_LN2, MODEL_A_FC, MODEL_A_DFC, MODEL_A_DLN },
        [MODEL_LIN_FCPROJ] = { MODEL_A_GELU, MODEL_A_RES, MODEL_A_DRES, MODEL_A_DFC },
        [MODEL_LIN_LMHEAD] = { MODEL_A_LNF, MODEL_A_LOGITS, MODEL_A_LOGITS, MODEL_A_DLN },
    };
    *io = io_of[l];
}

static enum model_dtype act_low(enum model_prec p) { return p == MODEL_FP32 ? MODEL_DT_F32 : MODEL_DT_BF16; }

static double dmax(double a, double b) { return a > b ? a : b; }

/* Elements of one copy of activation a, and its dtype; 0 when not held. */
static double act_elems(const struct model_shape *s, enum model_prec p, enum model_act a,
                        enum model_dtype *dt)
{
    double T = (double)s->batch * s->seq, h = s->hidden, V = s->vocab;
    double att = (double)s->batch * s->heads * s->seq * s->seq;
    *dt = MODEL_DT_F32;
    switch (a) {
    case MODEL_A_TOKENS: case MODEL_A_TARGETS: *dt = MODEL_DT_I32; return T * s->accum;
    case MODEL_A_LOSSES: return T * s->accum;
    case MODEL_A_LN1: case MODEL_A_ATTY: case MODEL_A_LN2: case MODEL_A_LNF:
        *dt = act_low(p); return T * h;
    case MODEL_A_GELU: *dt = act_low(p); return 4 * T * h;
    case MODEL_A_RES: case MODEL_A_RES2: case MODEL_A_DRES: case MODEL_A_DLN: case MODEL_A_DATTY:
        return T * h;
    case MODEL_A_LN1_STATS: case MODEL_A_LN2_STATS: case MODEL_A_LNF_STATS: return 2 * T;
    case MODEL_A_QKV: case MODEL_A_DQKV: return 3 * T * h;
    case MODEL_A_FC: case MODEL_A_DFC: return 4 * T * h;
    case MODEL_A_ATT: case MODEL_A_DATT: return att;
    case MODEL_A_LOGITS: return T * V;
    case MODEL_A_DLOW: *dt = MODEL_DT_BF16; return p == MODEL_FP32 ? 0 : T * dmax(4 * h, V);
    case MODEL_A_XQ: *dt = MODEL_DT_E4M3; return p == MODEL_FP8 ? 4 * T * h : 0;
    case MODEL_A_WIDEN_X: return p == MODEL_BF16 ? T * dmax(4 * h, V) : 0;
    case MODEL_A_WIDEN_W: return p == MODEL_BF16 ? dmax(dmax(4 * h * h, V * h), 4 * T * h) : 0;
    case MODEL_A_HEADS: case MODEL_A_DHEADS: return 4 * T * h;
    case MODEL_A_GEMM_WS: return GEMM_WORKSPACE_BYTES / 4;
    default: return 0;
    }
}

void model_act_tensor(const struct model_shape *s, enum model_prec p, enum model_impl impl,
                      enum model_act a, struct model_tensor *t)
{
    t->elems = (model_acts[a].impl & impl) ? act_elems(s, p, a, &t->dtype) : 0;
    if (t->elems == 0)
        t->dtype = MODEL_DT_F32;
    t->copies = a == MODEL_A_RES ? s->layers + 1
              : model_acts[a].per_block && !s->checkpoint ? s->layers : 1;
}

void model_memory(const struct model_shape *s, enum model_prec p, enum model_impl impl,
                  struct model_memory *m)
{
    double N = (double)model_param_count(s);
    for (int i = 0; i < MODEL_NMEM; i++)
        m->bytes[i] = 0;
    m->params = N;
    m->bytes[MODEL_MEM_WEIGHTS] = 4 * N;
    m->bytes[MODEL_MEM_GRADS] = 4 * N;
    m->bytes[MODEL_MEM_OPTIMIZER] = 8 * N;
    if (p != MODEL_FP32)
        m->bytes[MODEL_MEM_LOW] += 2 * (double)model_low_count(s);
    if (p == MODEL_FP8)
        m->bytes[MODEL_MEM_LOW] += (double)model_fp8_count(s);
    for (int a = 0; a < MODEL_NACTS; a++) {
        struct model_tensor t;
        model_act_tensor(s, p, impl, a, &t);
        m->bytes[model_acts[a].mem] += t.elems * t.copies * model_dtype_bytes[t.dtype];
    }
    m->total = 0;
    for (int i = 0; i < MODEL_NMEM; i++)
        m->total += m->bytes[i];
}

/* ---- op costs: one function per kind ---- */

struct dims {
    double T, h, s, V, B, a, N;
    double lo;                  /* bytes of a BF16-or-FP32 matmul operand in this recipe */
};

static void dims_of(const struct model_shape *s, enum model_prec p, struct dims *d)
{
    d->B = s->batch; d->s = s->seq; d->T = d->B * d->s; d->h = s->hidden; d->V = s->vocab;
    d->a = s->heads; d->N = (double)model_param_count(s);
    d->lo = model_dtype_bytes[act_low(p)];
}

static void set(struct model_op *op, double m, double n, double k, double flops, double rd, double wr)
{
    op->m = m; op->n = n; op->k = k;
    op->flops = flops; op->bytes_read = rd; op->bytes_written = wr;
}

static void linear_dims(const struct model_shape *s, int l, double *in, double *out, int *bias)
{
    enum model_param w, b;
    size_t i, o;
    model_linear_params(s, l, &w, &b, &i, &o);
    *in = (double)i; *out = (double)o; *bias = b != MODEL_NPARAMS;
}

typedef void (*cost_fn)(const struct model_shape *, enum model_prec, const struct dims *, struct model_op *);

static void c_zero(const struct model_shape *s, enum model_prec p, const struct dims *d, struct model_op *op)
{
    (void)s; (void)p;
    set(op, d->N, 1, 1, 0, 0, 4 * d->N);
}

static void c_embed(const struct model_shape *s, enum model_prec p, const struct dims *d, struct model_op *op)
{
    (void)s; (void)p;
    set(op, d->T, d->h, 1, d->T * d->h, 4 * d->T + 8 * d->T * d->h, 4 * d->T * d->h);
}

static void c_embed_bwd(const struct model_shape *s, enum model_prec p, const struct dims *d, struct model_op *op)
{
    (void)s; (void)p;
    set(op, d->T, d->h, 1, 2 * d->T * d->h, 4 * d->T + 12 * d->T * d->h, 8 * d->T * d->h);
}

static void c_layernorm(const struct model_shape *s, enum model_prec p, const struct dims *d, struct model_op *op)
{
    (void)s;
    op->dtype_out = act_low(p);
    set(op, d->T, d->h, 1, 8 * d->T * d->h, 4 * d->T * d->h + 8 * d->h, d->lo * d->T * d->h + 8 * d->T);
}

static void c_layernorm_bwd(const struct model_shape *s, enum model_prec p, const struct dims *d, struct model_op *op)
{
    (void)s; (void)p;
    double dres = op->which == MODEL_LNF ? 0 : 4 * d->T * d->h;     /* the final norm writes dres */
    set(op, d->T, d->h, 1, 14 * d->T * d->h, 8 * d->T * d->h + 8 * d->T + 12 * d->h + dres,
        4 * d->T * d->h + 8 * d->h);
}

/* The dtype of a forward matmul's operands: E4M3 for the blocks' linears in the FP8 recipe. */
static enum model_dtype fwd_dtype(enum model_prec p, int linear)
{
    return p == MODEL_FP8 && linear != MODEL_LIN_LMHEAD ? MODEL_DT_E4M3 : act_low(p);
}

static void c_matmul(const struct model_shape *s, enum model_prec p, const struct dims *d, struct model_op *op)
{
    double in, out, x;
    int bias;
    (void)d;
    linear_dims(s, op->which, &in, &out, &bias);
    op->dtype = fwd_dtype(p, op->which);
    x = model_dtype_bytes[op->dtype];
    double T = (double)s->batch * s->seq;
    set(op, T, out, in, 2 * T * out * in, x * (T * in + out * in) + (bias ? 4 * out : 0), 4 * T * out);
}

static void c_dgrad(const struct model_shape *s, enum model_prec p, const struct dims *d, struct model_op *op)
{
    double in, out;
    int bias;
    linear_dims(s, op->which, &in, &out, &bias);
    op->dtype = act_low(p);
    set(op, d->T, out, in, 2 * d->T * out * in, d->lo * (d->T * out + out * in), 4 * d->T * in);
}

static void c_wgrad(const struct model_shape *s, enum model_prec p, const struct dims *d, struct model_op *op)
{
    double in, out;
    int bias;
    linear_dims(s, op->which, &in, &out, &bias);
    op->dtype = act_low(p);
    double b = bias ? 4 * out : 0;
    set(op, d->T, out, in, 2 * d->T * out * in, d->lo * (d->T * in + d->T * out) + 4 * out * in + b,
        4 * out * in + b);
}

static void c_cast_grad(const struct model_shape *s, enum model_prec p, const struct dims *d, struct model_op *op)
{
    double in, out;
    int bias;
    (void)p;
    linear_dims(s, op->which, &in, &out, &bias);
    op->dtype_out = MODEL_DT_BF16;
    set(op, d->T, out, 1, 0, 4 * d->T * out, 2 * d->T * out);
}

static void c_quantize(const struct model_shape *s, enum model_prec p, const struct dims *d, struct model_op *op)
{
    double in, out;
    int bias;
    (void)p;
    linear_dims(s, op->which, &in, &out, &bias);
    op->dtype = MODEL_DT_BF16;
    op->dtype_out = MODEL_DT_E4M3;
    set(op, d->T, in, 1, 2 * d->T * in, 4 * d->T * in, d->T * in);
}

static void c_quantize_weights(const struct model_shape *s, enum model_prec p, const struct dims *d,
                               struct model_op *op)
{
    double n = (double)model_fp8_count(s);
    (void)p; (void)d;
    op->dtype = MODEL_DT_BF16;
    op->dtype_out = MODEL_DT_E4M3;
    set(op, n, 1, 1, 2 * n, 4 * n, n);
}

static void c_attention(const struct model_shape *s, enum model_prec p, const struct dims *d, struct model_op *op)
{
    (void)s;
    op->dtype_out = act_low(p);
    set(op, d->T, d->h, 1, 4 * d->T * d->s * d->h, 12 * d->T * d->h,
        4 * d->B * d->a * d->s * d->s + d->lo * d->T * d->h);
}

static void c_attention_bwd(const struct model_shape *s, enum model_prec p, const struct dims *d, struct model_op *op)
{
    (void)s; (void)p;
    set(op, d->T, d->h, 1, 8 * d->T * d->s * d->h, 16 * d->T * d->h + 4 * d->B * d->a * d->s * d->s,
        12 * d->T * d->h);
}

static void c_residual(const struct model_shape *s, enum model_prec p, const struct dims *d, struct model_op *op)
{
    (void)s; (void)p;
    set(op, d->T, d->h, 1, d->T * d->h, 8 * d->T * d->h, 4 * d->T * d->h);
}

static void c_gelu(const struct model_shape *s, enum model_prec p, const struct dims *d, struct model_op *op)
{
    (void)s;
    op->dtype_out = act_low(p);
    set(op, d->T, 4 * d->h, 1, 32 * d->T * d->h, 16 * d->T * d->h, d->lo * 4 * d->T * d->h);
}

static void c_gelu_bwd(const struct model_shape *s, enum model_prec p, const struct dims *d, struct model_op *op)
{
    (void)s; (void)p;
    set(op, d->T, 4 * d->h, 1, 52 * d->T * d->h, 32 * d->T * d->h, 16 * d->T * d->h);
}

static void c_xent(const struct model_shape *s, enum model_prec p, const struct dims *d, struct model_op *op)
{
    (void)s; (void)p;
    set(op, d->T, d->V, 1, 5 * d->T * d->V, 4 * d->T * d->V + 4 * d->T, 4 * d->T * d->V + 4 * d->T);
}

static void c_xent_bwd(const struct model_shape *s, enum model_prec p, const struct dims *d, struct model_op *op)
{
    (void)s; (void)p;
    set(op, d->T, d->V, 1, 2 * d->T * d->V, 4 * d->T * d->V + 4 * d->T, 4 * d->T * d->V);
}

static void c_grad_norm(const struct model_shape *s, enum model_prec p, const struct dims *d, struct model_op *op)
{
    (void)s; (void)p;
    set(op, d->N, 1, 1, 2 * d->N, 4 * d->N, 0);
}

static void c_adamw(const struct model_shape *s, enum model_prec p, const struct dims *d, struct model_op *op)
{
    double low = p == MODEL_FP32 ? 0 : 2 * (double)model_low_count(s);
    set(op, d->N, 1, 1, 16 * d->N, 16 * d->N, 12 * d->N + low);
}

static const cost_fn costs[MODEL_NKINDS] = {
    [MODEL_OP_ZERO_GRAD] = c_zero, [MODEL_OP_EMBED] = c_embed, [MODEL_OP_LAYERNORM] = c_layernorm,
    [MODEL_OP_QUANTIZE] = c_quantize, [MODEL_OP_MATMUL] = c_matmul, [MODEL_OP_ATTENTION] = c_attention,
    [MODEL_OP_RESIDUAL] = c_residual, [MODEL_OP_GELU] = c_gelu, [MODEL_OP_XENT] = c_xent,
    [MODEL_OP_XENT_BWD] = c_xent_bwd, [MODEL_OP_CAST_GRAD] = c_cast_grad,
    [MODEL_OP_MATMUL_DGRAD] = c_dgrad, [MODEL_OP_MATMUL_WGRAD] = c_wgrad,
    [MODEL_OP_GELU_BWD] = c_gelu_bwd, [MODEL_OP_ATTENTION_BWD] = c_attention_bwd,
    [MODEL_OP_LAYERNORM_BWD] = c_layernorm_bwd, [MODEL_OP_EMBED_BWD] = c_embed_bwd,
    [MODEL_OP_GRAD_NORM] = c_grad_norm, [MODEL_OP_ADAMW] = c_adamw,
    [MODEL_OP_QUANTIZE_WEIGHTS] = c_quantize_weights,
};

/* ---- the plan ---- */

struct emitter {
    const struct model_shape *s;
    enum model_prec p;
    struct dims d;
    struct model_op *ops;
    int cap, n;
};

static void emit(struct emitter *e, enum model_kind k, enum model_phase ph, int layer, int micro, int which)
{
    struct model_op op = { .kind = k, .phase = ph, .layer = layer, .micro = micro, .which = which,
                           .dtype = MODEL_DT_F32, .dtype_out = MODEL_DT_F32 };
    costs[k](e->s, e->p, &e->d, &op);
    if (k == MODEL_OP_MATMUL || k == MODEL_OP_MATMUL_DGRAD || k == MODEL_OP_MATMUL_WGRAD)
        op.dtype_out = MODEL_DT_F32;
    if (e->ops && e->n < e->cap)
        e->ops[e->n] = op;
    e->n++;
}

static void linear_fwd(struct emitter *e, enum model_phase ph, int l, int mb, int lin)
{
    if (e->p == MODEL_FP8 && lin != MODEL_LIN_LMHEAD)
        emit(e, MODEL_OP_QUANTIZE, ph, l, mb, lin);
    emit(e, MODEL_OP_MATMUL, ph, l, mb, lin);
}

static void linear_bwd(struct emitter *e, int l, int mb, int lin)
{
    if (e->p != MODEL_FP32)
        emit(e, MODEL_OP_CAST_GRAD, MODEL_BWD, l, mb, lin);
    emit(e, MODEL_OP_MATMUL_DGRAD, MODEL_BWD, l, mb, lin);
    emit(e, MODEL_OP_MATMUL_WGRAD, MODEL_BWD, l, mb, lin);
}

static void block_fwd(struct emitter *e, enum model_phase ph, int l, int mb)
{
    emit(e, MODEL_OP_LAYERNORM, ph, l, mb, MODEL_LN1);
    linear_fwd(e, ph, l, mb, MODEL_LIN_QKV);
    emit(e, MODEL_OP_ATTENTION, ph, l, mb, 0);
    linear_fwd(e, ph, l, mb, MODEL_LIN_ATTPROJ);
    emit(e, MODEL_OP_RESIDUAL, ph, l, mb, 0);
    emit(e, MODEL_OP_LAYERNORM, ph, l, mb, MODEL_LN2);
    linear_fwd(e, ph, l, mb, MODEL_LIN_FC);
    emit(e, MODEL_OP_GELU, ph, l, mb, 0);
    linear_fwd(e, ph, l, mb, MODEL_LIN_FCPROJ);
    emit(e, MODEL_OP_RESIDUAL, ph, l, mb, 1);
}

static void block_bwd(struct emitter *e, int l, int mb)
{
    linear_bwd(e, l, mb, MODEL_LIN_FCPROJ);
    emit(e, MODEL_OP_GELU_BWD, MODEL_BWD, l, mb, 0);
    linear_bwd(e, l, mb, MODEL_LIN_FC);
    emit(e, MODEL_OP_LAYERNORM_BWD, MODEL_BWD, l, mb, MODEL_LN2);
    linear_bwd(e, l, mb, MODEL_LIN_ATTPROJ);
    emit(e, MODEL_OP_ATTENTION_BWD, MODEL_BWD, l, mb, 0);
    linear_bwd(e, l, mb, MODEL_LIN_QKV);
    emit(e, MODEL_OP_LAYERNORM_BWD, MODEL_BWD, l, mb, MODEL_LN1);
}

static void micro_batch(struct emitter *e, int mb)
{
    int L = e->s->layers;
    emit(e, MODEL_OP_EMBED, MODEL_FWD, -1, mb, 0);
    for (int l = 0; l < L; l++)
        block_fwd(e, MODEL_FWD, l, mb);
    emit(e, MODEL_OP_LAYERNORM, MODEL_FWD, -1, mb, MODEL_LNF);
    linear_fwd(e, MODEL_FWD, -1, mb, MODEL_LIN_LMHEAD);
    emit(e, MODEL_OP_XENT, MODEL_FWD, -1, mb, 0);
    emit(e, MODEL_OP_XENT_BWD, MODEL_BWD, -1, mb, 0);
    linear_bwd(e, -1, mb, MODEL_LIN_LMHEAD);
    emit(e, MODEL_OP_LAYERNORM_BWD, MODEL_BWD, -1, mb, MODEL_LNF);
    for (int l = L - 1; l >= 0; l--) {
        if (e->s->checkpoint)
            block_fwd(e, MODEL_RECOMPUTE, l, mb);
        block_bwd(e, l, mb);
    }
    emit(e, MODEL_OP_EMBED_BWD, MODEL_BWD, -1, mb, 0);
}

int model_plan(const struct model_shape *s, enum model_prec p, struct model_op *ops, int cap)
{
    struct emitter e = { .s = s, .p = p, .ops = ops, .cap = cap };
    dims_of(s, p, &e.d);
    emit(&e, MODEL_OP_ZERO_GRAD, MODEL_UPDATE, -1, -1, 0);
    for (int mb = 0; mb < s->accum; mb++)
        micro_batch(&e, mb);
    emit(&e, MODEL_OP_GRAD_NORM, MODEL_UPDATE, -1, -1, 0);
    emit(&e, MODEL_OP_ADAMW, MODEL_UPDATE, -1, -1, 0);
    if (p == MODEL_FP8)
        emit(&e, MODEL_OP_QUANTIZE_WEIGHTS, MODEL_UPDATE, -1, -1, 0);
    return e.n;
}

char *model_op_label(const struct model_op *op, char *buf, size_t n)
{
    const char *what = "";
    if (op->kind == MODEL_OP_MATMUL || op->kind == MODEL_OP_MATMUL_DGRAD || op->kind == MODEL_OP_MATMUL_WGRAD
        || op->kind == MODEL_OP_CAST_GRAD || op->kind == MODEL_OP_QUANTIZE)
        what = model_linear_names[op->which];
    else if (op->kind == MODEL_OP_LAYERNORM || op->kind == MODEL_OP_LAYERNORM_BWD)
        what = model_norm_names[op->which];
    else if (op->kind == MODEL_OP_RESIDUAL)
        what = op->which ? "mlp" : "attention";
    char where[48] = "";
    if (op->layer >= 0)
        snprintf(where, sizeof where, ", block %d", op->layer);
    snprintf(buf, n, "%s%s%s%s%s", model_kinds[op->kind].name, *what ? " " : "", what, where,
             op->phase == MODEL_RECOMPUTE ? " (recompute)" : "");
    return buf;
}

double model_megatron_flops(const struct model_shape *s, int recompute)
{
    double B = (double)s->batch * s->accum, sq = s->seq, L = s->layers, h = s->hidden, V = s->vocab;
    if (recompute)
        return 96 * B * sq * L * h * h * (1 + sq / (6 * h) + V / (16 * L * h));
    return 72 * B * sq * L * h * h * (1 + sq / (6 * h) + V / (12 * L * h));
}
