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
const char *const model_dtype_names[MODEL_NDTYPES] = { "fp32", "bf16", "e4m3", "int32", "nf4" };
const double model_dtype_bytes[MODEL_NDTYPES] = { 4, 2, 1, 4, 4.127 / 8 };  /* NF4: see ops.h */
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
    [MODEL_OP_RMSNORM] = { "rmsnorm", MODEL_NORM, "RMSNorm forward: 4 FLOPs per element" },
    [MODEL_OP_RMSNORM_BWD] = { "rmsnorm_bwd", MODEL_NORM,
        "RMSNorm backward, input gradient added to the residual stream's: 10 FLOPs per element" },
    [MODEL_OP_SWIGLU] = { "swiglu", MODEL_ELEMENTWISE,
        "silu(gate) * up: 6 FLOPs per output element; reads gate and up, writes T f" },
    [MODEL_OP_SWIGLU_BWD] = { "swiglu_bwd", MODEL_ELEMENTWISE,
        "SwiGLU backward: 12 FLOPs per output element; writes the gradients of gate and up" },
    [MODEL_OP_ROPE] = { "rope", MODEL_ELEMENTWISE,
        "rotary embedding of q and k in place: a 2 x 2 rotation per pair, 3 FLOPs per element" },
    [MODEL_OP_ROPE_BWD] = { "rope_bwd", MODEL_ELEMENTWISE,
        "the inverse rotation of dq and dk in place: 3 FLOPs per element" },
    [MODEL_OP_FLASH_ATTENTION] = { "flash_attention", MODEL_ATTENTION,
        "fused causal attention (FlashAttention): 4 B s^2 h FLOPs as the unfused op; reads q, k, v, "
        "writes the output and the row log-sum-exp, no s x s tensor" },
    [MODEL_OP_FLASH_ATTENTION_BWD] = { "flash_attention_bwd", MODEL_ATTENTION,
        "fused attention backward recomputing the scores: 5 products, 10 B s^2 h FLOPs (2.5x forward)" },
    [MODEL_OP_LORA_A] = { "lora_a", MODEL_MATMUL,
        "LoRA U = X A^T, A [parts r, in]: 2 T (parts r) in FLOPs" },
    [MODEL_OP_LORA_B] = { "lora_b", MODEL_MATMUL,
        "LoRA Y += (alpha/r) U B^T, B [out, r] per part: 2 T out r FLOPs; reads and writes Y" },
    [MODEL_OP_LORA_B_DGRAD] = { "lora_b_dgrad", MODEL_MATMUL, "LoRA dU = dY B: 2 T out r FLOPs" },
    [MODEL_OP_LORA_A_DGRAD] = { "lora_a_dgrad", MODEL_MATMUL,
        "LoRA dX += dU A: 2 T (parts r) in FLOPs" },
    [MODEL_OP_LORA_B_WGRAD] = { "lora_b_wgrad", MODEL_MATMUL, "LoRA dB += dY^T U: 2 T out r FLOPs" },
    [MODEL_OP_LORA_A_WGRAD] = { "lora_a_wgrad", MODEL_MATMUL,
        "LoRA dA += dU^T X: 2 T (parts r) in FLOPs" },
    [MODEL_OP_DEQUANTIZE] = { "dequantize", MODEL_ELEMENTWISE,
        "4-bit base: a frozen linear's weight to BF16 before each use (forward, recompute, dgrad): "
        "2 FLOPs per weight (code lookup, scale)" },
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
    [MODEL_A_LORA_U] = { "lora_u", MODEL_MEM_ACTIVATIONS, 1, 3 },
    [MODEL_A_DLORA_U] = { "dlora_u", MODEL_MEM_SCRATCH, 0, 3 },
    [MODEL_A_DEQUANT] = { "dequantized_weight", MODEL_MEM_SCRATCH, 0, 3 },
};

#define GEMM_WORKSPACE_BYTES (32.0 * 1024 * 1024)

const char *model_shape_problem(const struct model_shape *s)
{
    if (s->layers < 1 || s->hidden < 1 || s->heads < 1 || s->seq < 1 || s->vocab < 2 || s->batch < 1
        || s->accum < 1)
        return "layers, hidden, heads, seq, batch and accum must be at least 1, vocab at least 2";
    if (s->hidden % s->heads != 0)
        return "heads must divide hidden (the head size is hidden / heads)";
    if (s->kv_heads < 0 || s->ffn < 0 || s->lora_rank < 0)
        return "kv_heads, ffn and lora_rank must not be negative";
    if (s->kv_heads > 0 && s->heads % s->kv_heads != 0)
        return "kv_heads must divide heads (each key/value head serves heads / kv_heads query heads)";
    if ((unsigned)s->mlp > MODEL_MLP_SWIGLU || (unsigned)s->norm > MODEL_NORM_RMS
        || (unsigned)s->attention > MODEL_ATT_FLASH)
        return "mlp, norm or attention is not one of its enum's values";
    if (s->base_dtype != 0 && (s->lora_rank == 0 || (s->base_dtype != MODEL_DT_BF16
                                                     && s->base_dtype != MODEL_DT_NF4)))
        return "base_dtype applies to a LoRA shape's frozen base only, and is BF16 or NF4";
    return NULL;
}

const char *model_shape_extension(const struct model_shape *s)
{
    if (model_kv_heads(s) != s->heads)
        return "grouped-query attention (kv_heads)";
    if (model_ffn(s) != 4 * s->hidden)
        return "an MLP size other than 4 x hidden (ffn)";
    if (s->mlp == MODEL_MLP_SWIGLU)
        return "a SwiGLU MLP";
    if (s->norm == MODEL_NORM_RMS)
        return "RMSNorm";
    if (s->nobias)
        return "linears and norms without biases";
    if (s->rope)
        return "rotary position embedding";
    if (s->attention == MODEL_ATT_FLASH)
        return "fused (flash) attention";
    if (s->lora_rank > 0)
        return "LoRA adapters on a frozen base";
    if (s->sparse24)
        return "2:4 sparse weights";
    return NULL;
}

int model_kv_heads(const struct model_shape *s) { return s->kv_heads > 0 ? s->kv_heads : s->heads; }
int model_ffn(const struct model_shape *s) { return s->ffn > 0 ? s->ffn : 4 * s->hidden; }

static size_t qkv_out(const struct model_shape *s)     /* h + 2 k d */
{
    return (size_t)s->hidden + 2 * (size_t)model_kv_heads(s) * (size_t)(s->hidden / s->heads);
}

static size_t fc_out(const struct model_shape *s)      /* f, or gate and up: 2f */
{
    return (size_t)model_ffn(s) * (s->mlp == MODEL_MLP_SWIGLU ? 2 : 1);
}

static int has_norm_bias(const struct model_shape *s) { return !s->nobias && s->norm == MODEL_NORM_LAYER; }

/* ---- parameters ---- */

static void dims2(size_t *rows, size_t *cols, size_t r, size_t c, int present)
{
    *rows = present ? r : 0;
    *cols = present ? c : 0;
}

void model_param_dims(const struct model_shape *s, enum model_param p, size_t *rows, size_t *cols)
{
    size_t h = (size_t)s->hidden, V = (size_t)s->vocab, f = (size_t)model_ffn(s);
    int bias = !s->nobias;
    switch (p) {
    case MODEL_P_WTE: dims2(rows, cols, V, h, 1); return;
    case MODEL_P_WPE: dims2(rows, cols, (size_t)s->seq, h, !s->rope); return;
    case MODEL_P_LMHEAD: dims2(rows, cols, V, h, !s->tied); return;
    case MODEL_P_LN1W: case MODEL_P_LN2W: case MODEL_P_LNFW: dims2(rows, cols, 1, h, 1); return;
    case MODEL_P_LN1B: case MODEL_P_LN2B: case MODEL_P_LNFB: dims2(rows, cols, 1, h, has_norm_bias(s)); return;
    case MODEL_P_QKVW: dims2(rows, cols, qkv_out(s), h, 1); return;
    case MODEL_P_QKVB: dims2(rows, cols, 1, qkv_out(s), bias); return;
    case MODEL_P_ATTPROJW: dims2(rows, cols, h, h, 1); return;
    case MODEL_P_ATTPROJB: case MODEL_P_FCPROJB: dims2(rows, cols, 1, h, bias); return;
    case MODEL_P_FCW: dims2(rows, cols, fc_out(s), h, 1); return;
    case MODEL_P_FCB: dims2(rows, cols, 1, fc_out(s), bias); return;
    case MODEL_P_FCPROJW: dims2(rows, cols, h, f, 1); return;
    default: dims2(rows, cols, 0, 0, 0); return;
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
    *b = s->nobias ? MODEL_NPARAMS : Bs[l];
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

int model_lora_parts(const struct model_shape *s, enum model_linear l)
{
    if (l == MODEL_LIN_QKV)
        return 3;
    if (l == MODEL_LIN_FC && s->mlp == MODEL_MLP_SWIGLU)
        return 2;
    return l == MODEL_LIN_LMHEAD ? 0 : 1;
}

size_t model_lora_count(const struct model_shape *s)
{
    size_t n = 0, r = (size_t)(s->lora_rank > 0 ? s->lora_rank : 0);
    for (int l = 0; l < MODEL_LIN_LMHEAD; l++) {
        enum model_param w, b;
        size_t in, out;
        model_linear_params(s, l, &w, &b, &in, &out);
        n += r * ((size_t)model_lora_parts(s, l) * in + out);
    }
    return n * (size_t)s->layers;
}

size_t model_trainable_count(const struct model_shape *s)
{
    return s->lora_rank > 0 ? model_lora_count(s) : model_param_count(s);
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

/* The dtype a LoRA shape's frozen block linears are held in. */
static enum model_dtype base_dtype(const struct model_shape *s, enum model_prec p)
{
    return s->base_dtype ? (enum model_dtype)s->base_dtype : act_low(p);
}

static int nf4_base(const struct model_shape *s) { return s->lora_rank > 0 && s->base_dtype == MODEL_DT_NF4; }

/* Widest input, widest output and largest weight of the linears (blocks only: up to the head). */
struct widths { double in, out, w, lora_u, lora_parts; };

static void widths_of(const struct model_shape *s, int with_head, struct widths *wd)
{
    wd->in = wd->out = wd->w = wd->lora_u = wd->lora_parts = 0;
    for (int l = 0; l < (with_head ? MODEL_NLINEARS : MODEL_LIN_LMHEAD); l++) {
        enum model_param w, b;
        size_t in, out;
        model_linear_params(s, l, &w, &b, &in, &out);
        wd->in = dmax(wd->in, (double)in);
        wd->out = dmax(wd->out, (double)out);
        wd->w = dmax(wd->w, (double)in * (double)out);
        wd->lora_u += model_lora_parts(s, l);
        wd->lora_parts = dmax(wd->lora_parts, model_lora_parts(s, l));
    }
}

/* Elements of one copy of activation a, and its dtype; 0 when not held. */
static double act_elems(const struct model_shape *s, enum model_prec p, enum model_act a,
                        enum model_dtype *dt)
{
    double T = (double)s->batch * s->seq, h = s->hidden, V = s->vocab, f = model_ffn(s);
    double att = (double)s->batch * s->heads * s->seq * s->seq, r = s->lora_rank > 0 ? s->lora_rank : 0;
    double qkv = (double)qkv_out(s), flash = s->attention == MODEL_ATT_FLASH;
    double stats = s->norm == MODEL_NORM_RMS ? 1 : 2;
    struct widths all, blk;
    widths_of(s, 1, &all);
    widths_of(s, 0, &blk);
    *dt = MODEL_DT_F32;
    switch (a) {
    case MODEL_A_TOKENS: case MODEL_A_TARGETS: *dt = MODEL_DT_I32; return T * s->accum;
    case MODEL_A_LOSSES: return T * s->accum;
    case MODEL_A_LN1: case MODEL_A_ATTY: case MODEL_A_LN2: case MODEL_A_LNF:
        *dt = act_low(p); return T * h;
    case MODEL_A_GELU: *dt = act_low(p); return T * f;
    case MODEL_A_RES: case MODEL_A_RES2: case MODEL_A_DRES: case MODEL_A_DLN: case MODEL_A_DATTY:
        return T * h;
    case MODEL_A_LN1_STATS: case MODEL_A_LN2_STATS: case MODEL_A_LNF_STATS: return stats * T;
    case MODEL_A_QKV: case MODEL_A_DQKV: return T * qkv;
    case MODEL_A_FC: case MODEL_A_DFC: return T * (double)fc_out(s);
    case MODEL_A_ATT: return flash ? att / s->seq : att;       /* flash: the row log-sum-exp */
    case MODEL_A_DATT: return flash ? 0 : att;
    case MODEL_A_LOGITS: return T * V;
    case MODEL_A_DLOW: *dt = MODEL_DT_BF16; return p == MODEL_FP32 ? 0 : T * all.out;
    case MODEL_A_XQ: *dt = MODEL_DT_E4M3; return p == MODEL_FP8 && !nf4_base(s) ? T * blk.in : 0;
    case MODEL_A_WIDEN_X: return p == MODEL_BF16 ? T * dmax(all.in, all.out) : 0;
    case MODEL_A_WIDEN_W: return p == MODEL_BF16 ? dmax(all.w, T * blk.in) : 0;
    case MODEL_A_HEADS: case MODEL_A_DHEADS: return T * (h + qkv);
    case MODEL_A_GEMM_WS: return GEMM_WORKSPACE_BYTES / 4;
    case MODEL_A_LORA_U: *dt = act_low(p); return T * r * blk.lora_u;
    case MODEL_A_DLORA_U: *dt = act_low(p); return T * r * blk.lora_parts;
    case MODEL_A_DEQUANT: *dt = MODEL_DT_BF16; return nf4_base(s) ? blk.w : 0;
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
    double N = (double)model_param_count(s), Nt = (double)model_trainable_count(s);
    double blin = (double)model_fp8_count(s);      /* the blocks' linear weights */
    for (int i = 0; i < MODEL_NMEM; i++)
        m->bytes[i] = 0;
    m->params = N;
    m->trainable = Nt;
    m->frozen = m->frozen_linears = 0;
    m->bytes[MODEL_MEM_WEIGHTS] = 4 * Nt;
    m->bytes[MODEL_MEM_GRADS] = 4 * Nt;
    m->bytes[MODEL_MEM_OPTIMIZER] = 8 * Nt;
    if (s->lora_rank > 0) {
        /* the frozen base: its block linears at base_dtype, the rest at the matmul dtype; FP8
         * adds an E4M3 copy of the block linears made once; the adapters have BF16 copies */
        enum model_dtype bd = base_dtype(s, p);
        m->frozen_linears = blin * model_dtype_bytes[bd];
        m->frozen = m->frozen_linears + (N - blin) * model_dtype_bytes[act_low(p)];
        m->bytes[MODEL_MEM_WEIGHTS] += m->frozen;
        if (p != MODEL_FP32)
            m->bytes[MODEL_MEM_LOW] += 2 * Nt;
        if (p == MODEL_FP8 && bd != MODEL_DT_NF4)
            m->bytes[MODEL_MEM_LOW] += blin;
    } else {
        if (p != MODEL_FP32)
            m->bytes[MODEL_MEM_LOW] += 2 * (double)model_low_count(s);
        if (p == MODEL_FP8)
            m->bytes[MODEL_MEM_LOW] += (double)model_fp8_count(s);
    }
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
    double qkv, kd, f;          /* h + 2 k d, k d, MLP inner size */
    double r;                   /* LoRA rank, 0 without */
};

static void dims_of(const struct model_shape *s, enum model_prec p, struct dims *d)
{
    d->B = s->batch; d->s = s->seq; d->T = d->B * d->s; d->h = s->hidden; d->V = s->vocab;
    d->a = s->heads; d->N = (double)model_trainable_count(s);
    d->lo = model_dtype_bytes[act_low(p)];
    d->qkv = (double)qkv_out(s); d->kd = (d->qkv - d->h) / 2; d->f = model_ffn(s);
    d->r = s->lora_rank > 0 ? s->lora_rank : 0;
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
    (void)p;
    if (s->rope)            /* no wpe: a row copy */
        set(op, d->T, d->h, 1, 0, 4 * d->T + 4 * d->T * d->h, 4 * d->T * d->h);
    else
        set(op, d->T, d->h, 1, d->T * d->h, 4 * d->T + 8 * d->T * d->h, 4 * d->T * d->h);
}

static void c_embed_bwd(const struct model_shape *s, enum model_prec p, const struct dims *d, struct model_op *op)
{
    (void)p;
    if (s->rope)
        set(op, d->T, d->h, 1, d->T * d->h, 4 * d->T + 8 * d->T * d->h, 4 * d->T * d->h);
    else
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

/* RMSNorm: one statistic per row (1 / rms) and a gain; as LayerNorm otherwise. */
static void c_rmsnorm(const struct model_shape *s, enum model_prec p, const struct dims *d, struct model_op *op)
{
    (void)s;
    op->dtype_out = act_low(p);
    set(op, d->T, d->h, 1, 4 * d->T * d->h, 4 * d->T * d->h + 4 * d->h, d->lo * d->T * d->h + 4 * d->T);
}

static void c_rmsnorm_bwd(const struct model_shape *s, enum model_prec p, const struct dims *d, struct model_op *op)
{
    (void)s; (void)p;
    double dres = op->which == MODEL_LNF ? 0 : 4 * d->T * d->h;
    set(op, d->T, d->h, 1, 10 * d->T * d->h, 8 * d->T * d->h + 4 * d->T + 8 * d->h + dres,
        4 * d->T * d->h + 4 * d->h);
}

/* The dtype of a forward matmul's operands: E4M3 for the blocks' linears in the FP8 recipe
 * (not over a 4-bit base, which is dequantized to BF16). */
static enum model_dtype fwd_dtype(const struct model_shape *s, enum model_prec p, int linear)
{
    return p == MODEL_FP8 && linear != MODEL_LIN_LMHEAD && !nf4_base(s) ? MODEL_DT_E4M3 : act_low(p);
}

static void c_matmul(const struct model_shape *s, enum model_prec p, const struct dims *d, struct model_op *op)
{
    double in, out, x;
    int bias;
    (void)d;
    linear_dims(s, op->which, &in, &out, &bias);
    op->dtype = fwd_dtype(s, p, op->which);
    x = model_dtype_bytes[op->dtype];
    double T = (double)s->batch * s->seq;
    /* 2:4: half the products; per weight half a value and a quarter of a byte of index (NVIDIA's
     * sparse tensor-core format: 2 bits per kept value) */
    int sparse = s->sparse24 && op->which != MODEL_LIN_LMHEAD;
    double w = sparse ? 0.5 * x + 0.125 : x;
    set(op, T, out, in, (sparse ? 1 : 2) * T * out * in, x * T * in + w * out * in + (bias ? 4 * out : 0),
        4 * T * out);
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

/* Attention reads q, k, v (FP32, h + 2 k d per token); GQA changes bytes, not FLOPs. */
static void c_attention(const struct model_shape *s, enum model_prec p, const struct dims *d, struct model_op *op)
{
    (void)s;
    op->dtype_out = act_low(p);
    set(op, d->T, d->h, 1, 4 * d->T * d->s * d->h, 4 * d->T * d->qkv,
        4 * d->B * d->a * d->s * d->s + d->lo * d->T * d->h);
}

static void c_attention_bwd(const struct model_shape *s, enum model_prec p, const struct dims *d, struct model_op *op)
{
    (void)s; (void)p;
    set(op, d->T, d->h, 1, 8 * d->T * d->s * d->h, 4 * d->T * (d->qkv + d->h) + 4 * d->B * d->a * d->s * d->s,
        4 * d->T * d->qkv);
}

/* Fused: reads q, k, v once (ideal on-chip reuse), writes the output and 4 B a s bytes of row
 * log-sum-exp; backward reads q, k, v, the output, its gradient and the LSE. */
static void c_flash(const struct model_shape *s, enum model_prec p, const struct dims *d, struct model_op *op)
{
    (void)s;
    op->dtype_out = act_low(p);
    set(op, d->T, d->h, 1, 4 * d->T * d->s * d->h, 4 * d->T * d->qkv,
        d->lo * d->T * d->h + 4 * d->B * d->a * d->s);
}

static void c_flash_bwd(const struct model_shape *s, enum model_prec p, const struct dims *d, struct model_op *op)
{
    (void)s; (void)p;
    set(op, d->T, d->h, 1, 2.5 * 4 * d->T * d->s * d->h,
        4 * d->T * d->qkv + d->lo * d->T * d->h + 4 * d->T * d->h + 4 * d->B * d->a * d->s, 4 * d->T * d->qkv);
}

/* q and k rotated in place (FP32), cos and sin tables [s, d/2] each. */
static void c_rope(const struct model_shape *s, enum model_prec p, const struct dims *d, struct model_op *op)
{
    (void)s; (void)p;
    double n = d->T * (d->h + d->kd), tables = 4 * d->s * (d->h / d->a);
    set(op, d->T, d->h + d->kd, 1, 3 * n, 4 * n + tables, 4 * n);
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
    set(op, d->T, d->f, 1, 8 * d->T * d->f, 4 * d->T * d->f, d->lo * d->T * d->f);
}

static void c_gelu_bwd(const struct model_shape *s, enum model_prec p, const struct dims *d, struct model_op *op)
{
    (void)s; (void)p;
    set(op, d->T, d->f, 1, 13 * d->T * d->f, 8 * d->T * d->f, 4 * d->T * d->f);
}

static void c_swiglu(const struct model_shape *s, enum model_prec p, const struct dims *d, struct model_op *op)
{
    (void)s;
    op->dtype_out = act_low(p);
    set(op, d->T, d->f, 1, 6 * d->T * d->f, 8 * d->T * d->f, d->lo * d->T * d->f);
}

static void c_swiglu_bwd(const struct model_shape *s, enum model_prec p, const struct dims *d, struct model_op *op)
{
    (void)s; (void)p;
    set(op, d->T, d->f, 1, 12 * d->T * d->f, 12 * d->T * d->f, 8 * d->T * d->f);
}

/* ---- LoRA: per block linear, A [parts r, in] and B [out, r] per part (block diagonal);
 * U = X A^T is saved at the matmul dtype, the adapters' gradients are FP32 ---- */

static void lora_dims(const struct model_shape *s, const struct dims *d, int l, double *in, double *out, double *pr)
{
    int bias;
    linear_dims(s, l, in, out, &bias);
    *pr = model_lora_parts(s, l) * d->r;
}

static void c_lora_a(const struct model_shape *s, enum model_prec p, const struct dims *d, struct model_op *op)
{
    double in, out, pr;
    lora_dims(s, d, op->which, &in, &out, &pr);
    op->dtype = op->dtype_out = act_low(p);
    set(op, d->T, pr, in, 2 * d->T * pr * in, d->lo * (d->T * in + pr * in), d->lo * d->T * pr);
}

static void c_lora_b(const struct model_shape *s, enum model_prec p, const struct dims *d, struct model_op *op)
{
    double in, out, pr;
    lora_dims(s, d, op->which, &in, &out, &pr);
    op->dtype = act_low(p);
    set(op, d->T, out, d->r, 2 * d->T * out * d->r, d->lo * (d->T * pr + out * d->r) + 4 * d->T * out,
        4 * d->T * out);
}

static void c_lora_b_dgrad(const struct model_shape *s, enum model_prec p, const struct dims *d, struct model_op *op)
{
    double in, out, pr;
    lora_dims(s, d, op->which, &in, &out, &pr);
    op->dtype = op->dtype_out = act_low(p);
    set(op, d->T, out, d->r, 2 * d->T * out * d->r, d->lo * (d->T * out + out * d->r), d->lo * d->T * pr);
}

static void c_lora_a_dgrad(const struct model_shape *s, enum model_prec p, const struct dims *d, struct model_op *op)
{
    double in, out, pr;
    lora_dims(s, d, op->which, &in, &out, &pr);
    op->dtype = act_low(p);
    set(op, d->T, pr, in, 2 * d->T * pr * in, d->lo * (d->T * pr + pr * in) + 4 * d->T * in, 4 * d->T * in);
}

static void c_lora_b_wgrad(const struct model_shape *s, enum model_prec p, const struct dims *d, struct model_op *op)
{
    double in, out, pr;
    lora_dims(s, d, op->which, &in, &out, &pr);
    op->dtype = act_low(p);
    set(op, d->T, out, d->r, 2 * d->T * out * d->r, d->lo * (d->T * out + d->T * pr) + 4 * out * d->r,
        4 * out * d->r);
}

static void c_lora_a_wgrad(const struct model_shape *s, enum model_prec p, const struct dims *d, struct model_op *op)
{
    double in, out, pr;
    lora_dims(s, d, op->which, &in, &out, &pr);
    op->dtype = act_low(p);
    set(op, d->T, pr, in, 2 * d->T * pr * in, d->lo * (d->T * pr + d->T * in) + 4 * pr * in, 4 * pr * in);
}

static void c_dequantize(const struct model_shape *s, enum model_prec p, const struct dims *d, struct model_op *op)
{
    double in, out;
    int bias;
    (void)p; (void)d;
    linear_dims(s, op->which, &in, &out, &bias);
    op->dtype = MODEL_DT_NF4;
    op->dtype_out = MODEL_DT_BF16;
    set(op, out, in, 1, 2 * out * in, model_dtype_bytes[MODEL_DT_NF4] * out * in, 2 * out * in);
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
    double low = p == MODEL_FP32 ? 0 : 2 * (s->lora_rank > 0 ? d->N : (double)model_low_count(s));
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
    [MODEL_OP_RMSNORM] = c_rmsnorm, [MODEL_OP_RMSNORM_BWD] = c_rmsnorm_bwd,
    [MODEL_OP_SWIGLU] = c_swiglu, [MODEL_OP_SWIGLU_BWD] = c_swiglu_bwd,
    [MODEL_OP_ROPE] = c_rope, [MODEL_OP_ROPE_BWD] = c_rope,
    [MODEL_OP_FLASH_ATTENTION] = c_flash, [MODEL_OP_FLASH_ATTENTION_BWD] = c_flash_bwd,
    [MODEL_OP_LORA_A] = c_lora_a, [MODEL_OP_LORA_B] = c_lora_b,
    [MODEL_OP_LORA_B_DGRAD] = c_lora_b_dgrad, [MODEL_OP_LORA_A_DGRAD] = c_lora_a_dgrad,
    [MODEL_OP_LORA_B_WGRAD] = c_lora_b_wgrad, [MODEL_OP_LORA_A_WGRAD] = c_lora_a_wgrad,
    [MODEL_OP_DEQUANTIZE] = c_dequantize,
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

/* A block linear under LoRA: the frozen base's matmul, then the adapter's two. */
static void linear_fwd(struct emitter *e, enum model_phase ph, int l, int mb, int lin)
{
    int block = lin != MODEL_LIN_LMHEAD;
    if (block && nf4_base(e->s))
        emit(e, MODEL_OP_DEQUANTIZE, ph, l, mb, lin);
    if (fwd_dtype(e->s, e->p, lin) == MODEL_DT_E4M3)
        emit(e, MODEL_OP_QUANTIZE, ph, l, mb, lin);
    emit(e, MODEL_OP_MATMUL, ph, l, mb, lin);
    if (block && e->s->lora_rank > 0) {
        emit(e, MODEL_OP_LORA_A, ph, l, mb, lin);
        emit(e, MODEL_OP_LORA_B, ph, l, mb, lin);
    }
}

/* A frozen weight gets no gradient: LoRA keeps the base's dgrad and drops its wgrad. */
static void linear_bwd(struct emitter *e, int l, int mb, int lin)
{
    int block = lin != MODEL_LIN_LMHEAD;
    if (e->p != MODEL_FP32)
        emit(e, MODEL_OP_CAST_GRAD, MODEL_BWD, l, mb, lin);
    if (block && nf4_base(e->s))
        emit(e, MODEL_OP_DEQUANTIZE, MODEL_BWD, l, mb, lin);
    emit(e, MODEL_OP_MATMUL_DGRAD, MODEL_BWD, l, mb, lin);
    if (e->s->lora_rank > 0) {
        if (!block)
            return;
        emit(e, MODEL_OP_LORA_B_DGRAD, MODEL_BWD, l, mb, lin);
        emit(e, MODEL_OP_LORA_A_DGRAD, MODEL_BWD, l, mb, lin);
        emit(e, MODEL_OP_LORA_B_WGRAD, MODEL_BWD, l, mb, lin);
        emit(e, MODEL_OP_LORA_A_WGRAD, MODEL_BWD, l, mb, lin);
        return;
    }
    emit(e, MODEL_OP_MATMUL_WGRAD, MODEL_BWD, l, mb, lin);
}

static enum model_kind norm_kind(const struct model_shape *s, int bwd)
{
    if (s->norm == MODEL_NORM_RMS)
        return bwd ? MODEL_OP_RMSNORM_BWD : MODEL_OP_RMSNORM;
    return bwd ? MODEL_OP_LAYERNORM_BWD : MODEL_OP_LAYERNORM;
}

static void block_fwd(struct emitter *e, enum model_phase ph, int l, int mb)
{
    const struct model_shape *s = e->s;
    emit(e, norm_kind(s, 0), ph, l, mb, MODEL_LN1);
    linear_fwd(e, ph, l, mb, MODEL_LIN_QKV);
    if (s->rope)
        emit(e, MODEL_OP_ROPE, ph, l, mb, 0);
    emit(e, s->attention == MODEL_ATT_FLASH ? MODEL_OP_FLASH_ATTENTION : MODEL_OP_ATTENTION, ph, l, mb, 0);
    linear_fwd(e, ph, l, mb, MODEL_LIN_ATTPROJ);
    emit(e, MODEL_OP_RESIDUAL, ph, l, mb, 0);
    emit(e, norm_kind(s, 0), ph, l, mb, MODEL_LN2);
    linear_fwd(e, ph, l, mb, MODEL_LIN_FC);
    emit(e, s->mlp == MODEL_MLP_SWIGLU ? MODEL_OP_SWIGLU : MODEL_OP_GELU, ph, l, mb, 0);
    linear_fwd(e, ph, l, mb, MODEL_LIN_FCPROJ);
    emit(e, MODEL_OP_RESIDUAL, ph, l, mb, 1);
}

static void block_bwd(struct emitter *e, int l, int mb)
{
    const struct model_shape *s = e->s;
    linear_bwd(e, l, mb, MODEL_LIN_FCPROJ);
    emit(e, s->mlp == MODEL_MLP_SWIGLU ? MODEL_OP_SWIGLU_BWD : MODEL_OP_GELU_BWD, MODEL_BWD, l, mb, 0);
    linear_bwd(e, l, mb, MODEL_LIN_FC);
    emit(e, norm_kind(s, 1), MODEL_BWD, l, mb, MODEL_LN2);
    linear_bwd(e, l, mb, MODEL_LIN_ATTPROJ);
    emit(e, s->attention == MODEL_ATT_FLASH ? MODEL_OP_FLASH_ATTENTION_BWD : MODEL_OP_ATTENTION_BWD,
         MODEL_BWD, l, mb, 0);
    if (s->rope)
        emit(e, MODEL_OP_ROPE_BWD, MODEL_BWD, l, mb, 0);
    linear_bwd(e, l, mb, MODEL_LIN_QKV);
    emit(e, norm_kind(s, 1), MODEL_BWD, l, mb, MODEL_LN1);
}

static void micro_batch(struct emitter *e, int mb)
{
    int L = e->s->layers;
    emit(e, MODEL_OP_EMBED, MODEL_FWD, -1, mb, 0);
    for (int l = 0; l < L; l++)
        block_fwd(e, MODEL_FWD, l, mb);
    emit(e, norm_kind(e->s, 0), MODEL_FWD, -1, mb, MODEL_LNF);
    linear_fwd(e, MODEL_FWD, -1, mb, MODEL_LIN_LMHEAD);
    emit(e, MODEL_OP_XENT, MODEL_FWD, -1, mb, 0);
    emit(e, MODEL_OP_XENT_BWD, MODEL_BWD, -1, mb, 0);
    linear_bwd(e, -1, mb, MODEL_LIN_LMHEAD);
    emit(e, norm_kind(e->s, 1), MODEL_BWD, -1, mb, MODEL_LNF);
    for (int l = L - 1; l >= 0; l--) {
        if (e->s->checkpoint)
            block_fwd(e, MODEL_RECOMPUTE, l, mb);
        block_bwd(e, l, mb);
    }
    if (e->s->lora_rank == 0)         /* LoRA: the embedding is frozen */
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
    if (p == MODEL_FP8 && s->lora_rank == 0)
        emit(&e, MODEL_OP_QUANTIZE_WEIGHTS, MODEL_UPDATE, -1, -1, 0);
    return e.n;
}

char *model_op_label(const struct model_op *op, char *buf, size_t n)
{
    const char *what = "";
    if (op->kind == MODEL_OP_MATMUL || op->kind == MODEL_OP_MATMUL_DGRAD || op->kind == MODEL_OP_MATMUL_WGRAD
        || op->kind == MODEL_OP_CAST_GRAD || op->kind == MODEL_OP_QUANTIZE || op->kind == MODEL_OP_DEQUANTIZE
        || (op->kind >= MODEL_OP_LORA_A && op->kind <= MODEL_OP_LORA_A_WGRAD))
        what = model_linear_names[op->which];
    else if (op->kind == MODEL_OP_LAYERNORM || op->kind == MODEL_OP_LAYERNORM_BWD
             || op->kind == MODEL_OP_RMSNORM || op->kind == MODEL_OP_RMSNORM_BWD)
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
