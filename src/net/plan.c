/* plan.c: the op plan of one training step and the tensors it holds, with closed-form FLOPs
 * and bytes per op. Costs are table entries, one function per op kind, so the plan a backend
 * executes and the figures the model reads come from the same place. Nothing here runs. */
#include "net/plan.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "util/error.h"

const char *const net_class_names[NET_NCLASSES] = {
    "matmul", "attention", "norm", "elementwise", "loss", "optimizer", "other",
};
const char *const net_prec_names[NET_NPRECS] = { "fp32", "bf16", "fp8" };
const char *const net_dtype_names[NET_NDTYPES] = { "fp32", "bf16", "e4m3", "int32", "nf4" };
const double net_dtype_bytes[NET_NDTYPES] = { 4, 2, 1, 4, 4.127 / 8 };  /* NF4: see plan.h */
const char *const net_phase_names[NET_NPHASES] = { "forward", "backward", "recompute", "update" };
const char *const net_linear_names[NET_NLINEARS] = { "qkv", "attproj", "fc", "fcproj", "lmhead" };
const char *const net_norm_names[NET_NNORMS] = { "ln1", "ln2", "lnf" };
const char *const net_mem_names[NET_NMEM] = {
    "weights", "low_precision_weights", "gradients", "optimizer", "activations", "scratch",
};

const struct net_kind_info net_kinds[NET_NKINDS] = {
    [NET_OP_ZERO_GRAD] = { "zero_grad", NET_OPTIMIZER, "gradients set to zero: writes 4N bytes" },
    [NET_OP_EMBED] = { "embed", NET_OTHER, "x = wte[token] + wpe[position]: T h adds" },
    [NET_OP_LAYERNORM] = { "layernorm", NET_NORM, "LayerNorm forward: 8 FLOPs per element" },
    [NET_OP_QUANTIZE] = { "quantize", NET_ELEMENTWISE,
        "FP8: a matmul input's absolute maximum, then BF16 -> E4M3 with that scale: two passes" },
    [NET_OP_MATMUL] = { "matmul", NET_MATMUL,
        "Y = X W^T + b: 2mnk FLOPs (the bias is not counted); Y FP32, BF16 under AMP; the LM head fused "
        "with the loss writes no logits" },
    [NET_OP_ATTENTION] = { "attention", NET_ATTENTION,
        "causal softmax(Q K^T / sqrt(d)) V per head: 4 B s^2 h FLOPs, Megatron's count of the full "
        "s x s products; causal: 2 B s (s + 1) h, the s (s + 1) / 2 scores on and below the diagonal" },
    [NET_OP_RESIDUAL] = { "residual", NET_ELEMENTWISE, "y += x: 1 FLOP per element" },
    [NET_OP_GELU] = { "gelu", NET_ELEMENTWISE, "GELU (tanh form): 8 FLOPs per element" },
    [NET_OP_XENT] = { "cross_entropy", NET_LOSS,
        "softmax over the vocabulary and -log p: 5 FLOPs per logit; FP32 writes the probabilities, AMP "
        "(fused classifier) the loss and row log-sum-exp only; fused with the head: no logit read" },
    [NET_OP_XENT_BWD] = { "cross_entropy_bwd", NET_LOSS,
        "dlogits = (p - onehot) / tokens: 2 FLOPs per logit, written over the logits; fused with the "
        "head: on chip, no bytes of [T, V]" },
    [NET_OP_CAST_GRAD] = { "cast_grad", NET_ELEMENTWISE, "a matmul's output gradient FP32 -> BF16 (RNE)" },
    [NET_OP_MATMUL_DGRAD] = { "matmul_dgrad", NET_MATMUL, "dX = dY W: 2mnk FLOPs" },
    [NET_OP_MATMUL_WGRAD] = { "matmul_wgrad", NET_MATMUL,
        "dW += dY^T X, db += column sums of dY: 2mnk FLOPs (the bias gradient is not counted)" },
    [NET_OP_GELU_BWD] = { "gelu_bwd", NET_ELEMENTWISE, "GELU backward: 13 FLOPs per element" },
    [NET_OP_ATTENTION_BWD] = { "attention_bwd", NET_ATTENTION,
        "attention backward: 8 B s^2 h FLOPs (2x forward; causal: 4 B s (s + 1) h)" },
    [NET_OP_LAYERNORM_BWD] = { "layernorm_bwd", NET_NORM,
        "LayerNorm backward, input gradient added to the residual stream's: 14 FLOPs per element" },
    [NET_OP_EMBED_BWD] = { "embed_bwd", NET_OTHER, "dwte[token] += dx, dwpe[position] += dx" },
    [NET_OP_GRAD_NORM] = { "grad_norm", NET_OPTIMIZER, "global L2 norm of the gradients: 2 FLOPs per parameter" },
    [NET_OP_ADAMW] = { "adamw", NET_OPTIMIZER,
        "AdamW with bias correction, decoupled weight decay and global-norm clipping: 16 FLOPs per "
        "parameter; reads w, m, v, g and writes w, m, v at the optimizer recipe's bytes (FP32 AdamW: 16 B "
        "and 12 B; BF16 AdamW: 8 B and 6 B; 8-bit Adam: 10.004 B and 6.004 B, (de)quantization FLOPs "
        "not counted), and the BF16 copy of matmul weights where the recipe keeps one" },
    [NET_OP_QUANTIZE_WEIGHTS] = { "quantize_weights", NET_ELEMENTWISE,
        "FP8: each block weight's absolute maximum, then BF16 -> E4M3: two passes" },
    [NET_OP_RMSNORM] = { "rmsnorm", NET_NORM, "RMSNorm forward: 4 FLOPs per element" },
    [NET_OP_RMSNORM_BWD] = { "rmsnorm_bwd", NET_NORM,
        "RMSNorm backward, input gradient added to the residual stream's: 10 FLOPs per element" },
    [NET_OP_SWIGLU] = { "swiglu", NET_ELEMENTWISE,
        "silu(gate) * up: 6 FLOPs per output element; reads gate and up, writes T f" },
    [NET_OP_SWIGLU_BWD] = { "swiglu_bwd", NET_ELEMENTWISE,
        "SwiGLU backward: 12 FLOPs per output element; writes the gradients of gate and up" },
    [NET_OP_ROPE] = { "rope", NET_ELEMENTWISE,
        "rotary embedding of q and k in place: a 2 x 2 rotation per pair, 3 FLOPs per element" },
    [NET_OP_ROPE_BWD] = { "rope_bwd", NET_ELEMENTWISE,
        "the inverse rotation of dq and dk in place: 3 FLOPs per element" },
    [NET_OP_FLASH_ATTENTION] = { "flash_attention", NET_ATTENTION,
        "fused causal attention (FlashAttention): 4 B s^2 h FLOPs as the unfused op (causal: 2 B s (s + 1) h, "
        "the masked blocks skipped; packed documents of D tokens with varlen attention: 2 T (D + 1) h, h the "
        "query width a d); reads q, k, v, writes the output and the row log-sum-exp, no s x s tensor" },
    [NET_OP_FLASH_ATTENTION_BWD] = { "flash_attention_bwd", NET_ATTENTION,
        "fused attention backward recomputing the scores: 5 products, 10 B s^2 h FLOPs (2.5x forward; "
        "causal: 5 B s (s + 1) h; varlen: 5 T (D + 1) h)" },
    [NET_OP_LORA_A] = { "lora_a", NET_MATMUL,
        "LoRA U = X A^T, A [parts r, in]: 2 T (parts r) in FLOPs" },
    [NET_OP_LORA_B] = { "lora_b", NET_MATMUL,
        "LoRA Y += (alpha/r) U B^T, B [out, r] per part: 2 T out r FLOPs; reads and writes Y" },
    [NET_OP_LORA_B_DGRAD] = { "lora_b_dgrad", NET_MATMUL, "LoRA dU = dY B: 2 T out r FLOPs" },
    [NET_OP_LORA_A_DGRAD] = { "lora_a_dgrad", NET_MATMUL,
        "LoRA dX += dU A: 2 T (parts r) in FLOPs" },
    [NET_OP_LORA_B_WGRAD] = { "lora_b_wgrad", NET_MATMUL, "LoRA dB += dY^T U: 2 T out r FLOPs" },
    [NET_OP_LORA_A_WGRAD] = { "lora_a_wgrad", NET_MATMUL,
        "LoRA dA += dU^T X: 2 T (parts r) in FLOPs" },
    [NET_OP_DEQUANTIZE] = { "dequantize", NET_ELEMENTWISE,
        "4-bit base: a frozen linear's weight to BF16 before each use (forward, recompute, dgrad): "
        "2 FLOPs per weight (code lookup, scale)" },
};

/* bitsandbytes' blockwise 8-bit states: one FP32 absmax per 2048 values of each moment
 * (Dettmers et al. 2022, section 2.1; tensors under 4096 elements keep 32-bit states there,
 * which this count ignores: norms and biases, a negligible share) */
#define ADAM8_BLOCK 2048.0

const struct net_optim_info net_optims[NET_NOPTIMS] = {
    [NET_OPT_ADAMW] = { "adamw", 4, 4, 8, 1,
        "AdamW, FP32 master weights, gradients and two moments: 16 B per parameter, 18 with the BF16 "
        "matmul copy (ZeRO paper's 16 psi; DeepSpeed's estimator)" },
    [NET_OPT_ADAMW_BF16] = { "adamw-bf16", 2, 2, 4, 0,
        "AdamW in pure BF16: weights, gradients and both moments BF16, no FP32 master: 8 B per parameter" },
    [NET_OPT_ADAM8] = { "adam8bit", 4, 4, 2 * (1 + 4 / ADAM8_BLOCK), 1,
        "8-bit Adam (Dettmers et al. 2022, bitsandbytes): FP32 master and gradients, two 1-byte moments "
        "with an FP32 absmax per block of 2048: 10.004 B per parameter, 12.004 with the BF16 matmul copy" },
};

const struct net_param_info net_params[NET_NPARAMS] = {
    [NET_P_WTE] = { "wte", 0, 1, 2 },           [NET_P_WPE] = { "wpe", 0, 1, 2 },
    [NET_P_LN1W] = { "ln1w", 1, 0, 1 },         [NET_P_LN1B] = { "ln1b", 1, 0, 0 },
    [NET_P_QKVW] = { "qkvw", 1, 1, 2 },         [NET_P_QKVB] = { "qkvb", 1, 0, 0 },
    [NET_P_ATTPROJW] = { "attprojw", 1, 1, 3 }, [NET_P_ATTPROJB] = { "attprojb", 1, 0, 0 },
    [NET_P_LN2W] = { "ln2w", 1, 0, 1 },         [NET_P_LN2B] = { "ln2b", 1, 0, 0 },
    [NET_P_FCW] = { "fcw", 1, 1, 2 },           [NET_P_FCB] = { "fcb", 1, 0, 0 },
    [NET_P_FCPROJW] = { "fcprojw", 1, 1, 3 },   [NET_P_FCPROJB] = { "fcprojb", 1, 0, 0 },
    [NET_P_LNFW] = { "lnfw", 0, 0, 1 },         [NET_P_LNFB] = { "lnfb", 0, 0, 0 },
    [NET_P_LMHEAD] = { "lmhead", 0, 1, 2 },
};

const struct net_act_info net_acts[NET_NACTS] = {
    [NET_A_TOKENS] = { "tokens", NET_MEM_ACTIVATIONS, 0, 3 },
    [NET_A_TARGETS] = { "targets", NET_MEM_ACTIVATIONS, 0, 3 },
    [NET_A_RES] = { "residual", NET_MEM_ACTIVATIONS, 0, 3 },
    [NET_A_LN1] = { "ln1", NET_MEM_ACTIVATIONS, 1, 3 },
    [NET_A_LN1_STATS] = { "ln1_stats", NET_MEM_ACTIVATIONS, 1, 3 },
    [NET_A_QKV] = { "qkv", NET_MEM_ACTIVATIONS, 1, 3 },
    [NET_A_ATT] = { "att", NET_MEM_ACTIVATIONS, 1, 3 },
    [NET_A_ATTY] = { "atty", NET_MEM_ACTIVATIONS, 1, 3 },
    [NET_A_RES2] = { "residual2", NET_MEM_ACTIVATIONS, 1, 3 },
    [NET_A_LN2] = { "ln2", NET_MEM_ACTIVATIONS, 1, 3 },
    [NET_A_LN2_STATS] = { "ln2_stats", NET_MEM_ACTIVATIONS, 1, 3 },
    [NET_A_FC] = { "fc", NET_MEM_ACTIVATIONS, 1, 3 },
    [NET_A_GELU] = { "gelu", NET_MEM_ACTIVATIONS, 1, 3 },
    [NET_A_LNF] = { "lnf", NET_MEM_ACTIVATIONS, 0, 3 },
    [NET_A_LNF_STATS] = { "lnf_stats", NET_MEM_ACTIVATIONS, 0, 3 },
    [NET_A_LOGITS] = { "logits", NET_MEM_ACTIVATIONS, 0, 3 },
    [NET_A_LOSSES] = { "losses", NET_MEM_ACTIVATIONS, 0, 3 },
    [NET_A_DRES] = { "dresidual", NET_MEM_SCRATCH, 0, 3 },
    [NET_A_DLN] = { "dln", NET_MEM_SCRATCH, 0, 3 },
    [NET_A_DATTY] = { "datty", NET_MEM_SCRATCH, 0, 3 },
    [NET_A_DQKV] = { "dqkv", NET_MEM_SCRATCH, 0, 3 },
    [NET_A_DFC] = { "dfc", NET_MEM_SCRATCH, 0, 3 },
    [NET_A_DLOW] = { "dlow", NET_MEM_SCRATCH, 0, 3 },
    [NET_A_XQ] = { "xq", NET_MEM_SCRATCH, 0, 3 },
    [NET_A_WIDEN_X] = { "widen_x", NET_MEM_SCRATCH, 0, NET_IMPL_CPU },
    [NET_A_WIDEN_W] = { "widen_w", NET_MEM_SCRATCH, 0, NET_IMPL_CPU },
    [NET_A_HEADS] = { "heads", NET_MEM_SCRATCH, 0, NET_IMPL_GPU },
    [NET_A_DHEADS] = { "dheads", NET_MEM_SCRATCH, 0, NET_IMPL_GPU },
    [NET_A_DATT] = { "datt", NET_MEM_SCRATCH, 0, NET_IMPL_GPU },
    [NET_A_GEMM_WS] = { "gemm_workspace", NET_MEM_SCRATCH, 0, NET_IMPL_GPU },
    [NET_A_LORA_U] = { "lora_u", NET_MEM_ACTIVATIONS, 1, 3 },
    [NET_A_DLORA_U] = { "dlora_u", NET_MEM_SCRATCH, 0, 3 },
    [NET_A_DEQUANT] = { "dequantized_weight", NET_MEM_SCRATCH, 0, 3 },
};

#define GEMM_WORKSPACE_BYTES (32.0 * 1024 * 1024)

const char *net_shape_problem(const struct net_shape *s)
{
    if (s->layers < 1 || s->hidden < 1 || s->heads < 1 || s->seq < 1 || s->vocab < 2 || s->batch < 1
        || s->accum < 1)
        return "layers, hidden, heads, seq, batch and accum must be at least 1, vocab at least 2";
    if (s->head_dim == 0 && s->hidden % s->heads != 0)
        return "heads must divide hidden (the head size is hidden / heads)";
    if (s->kv_heads < 0 || s->ffn < 0 || s->lora_rank < 0 || s->head_dim < 0 || s->doc_tokens < 0 || s->window < 0
        || s->window_layers < 0 || s->window_layers > s->layers)
        return "kv_heads, ffn, lora_rank, head_dim, doc_tokens and window must not be negative, window_layers at most "
               "layers";
    if (s->lora_targets != NET_LORA_ALL && s->lora_targets != NET_LORA_QV)
        return "lora_targets must be all or qv";
    if (s->kv_heads > 0 && s->heads % s->kv_heads != 0)
        return "kv_heads must divide heads (each key/value head serves heads / kv_heads query heads)";
    if ((unsigned)s->mlp > NET_MLP_SWIGLU || (unsigned)s->norm > NET_NORM_RMS
        || (unsigned)s->attention > NET_ATT_FLASH || (unsigned)s->optimizer >= NET_NOPTIMS)
        return "mlp, norm, attention or optimizer is not one of its enum's values";
    if (s->base_dtype != 0 && (s->lora_rank == 0 || (s->base_dtype != NET_DT_BF16
                                                     && s->base_dtype != NET_DT_NF4)))
        return "base_dtype applies to a LoRA shape's frozen base only, and is BF16 or NF4";
    return NULL;
}

const char *net_shape_extension(const struct net_shape *s)
{
    if (net_kv_heads(s) != s->heads)
        return "grouped-query attention (kv_heads)";
    if (net_ffn(s) != 4 * s->hidden)
        return "an MLP size other than 4 x hidden (ffn)";
    if (s->mlp == NET_MLP_SWIGLU)
        return "a SwiGLU MLP";
    if (s->norm == NET_NORM_RMS)
        return "RMSNorm";
    if (s->nobias)
        return "linears and norms without biases";
    if (s->rope)
        return "rotary position embedding";
    if (s->attention == NET_ATT_FLASH)
        return "fused (flash) attention";
    if (s->lora_rank > 0)
        return "LoRA adapters on a frozen base";
    if (s->sparse24)
        return "2:4 sparse weights";
    if (net_q_width(s) != s->hidden)
        return "a head size other than hidden / heads (head_dim)";
    if (s->doc_tokens > 0)
        return "attention within packed documents (varlen)";
    if (s->window > 0)
        return "sliding-window attention";
    return NULL;
}

int net_kv_heads(const struct net_shape *s) { return s->kv_heads > 0 ? s->kv_heads : s->heads; }
int net_ffn(const struct net_shape *s) { return s->ffn > 0 ? s->ffn : 4 * s->hidden; }
int net_head_dim(const struct net_shape *s) { return s->head_dim > 0 ? s->head_dim : s->hidden / s->heads; }
int net_q_width(const struct net_shape *s) { return s->heads * net_head_dim(s); }

enum net_optim net_optim_of(const struct net_shape *s, enum net_prec p)
{
    if (s->optimizer == NET_OPT_ADAMW_BF16 && p == NET_FP32)
        return NET_OPT_ADAMW;
    return (enum net_optim)s->optimizer;
}

static size_t qkv_out(const struct net_shape *s)     /* a d + 2 k d (h + 2 k d when d = h / a) */
{
    return (size_t)net_q_width(s) + 2 * (size_t)net_kv_heads(s) * (size_t)net_head_dim(s);
}

static size_t fc_out(const struct net_shape *s)      /* f, or gate and up: 2f */
{
    return (size_t)net_ffn(s) * (s->mlp == NET_MLP_SWIGLU ? 2 : 1);
}

static int has_norm_bias(const struct net_shape *s) { return !s->nobias && s->norm == NET_NORM_LAYER; }

/* ---- parameters ---- */

static void dims2(size_t *rows, size_t *cols, size_t r, size_t c, int present)
{
    *rows = present ? r : 0;
    *cols = present ? c : 0;
}

void net_param_dims(const struct net_shape *s, enum net_param p, size_t *rows, size_t *cols)
{
    size_t h = (size_t)s->hidden, V = (size_t)s->vocab, f = (size_t)net_ffn(s);
    int bias = !s->nobias;
    switch (p) {
    case NET_P_WTE: dims2(rows, cols, V, h, 1); return;
    case NET_P_WPE: dims2(rows, cols, (size_t)s->seq, h, !s->rope); return;
    case NET_P_LMHEAD: dims2(rows, cols, V, h, !s->tied); return;
    case NET_P_LN1W: case NET_P_LN2W: case NET_P_LNFW: dims2(rows, cols, 1, h, 1); return;
    case NET_P_LN1B: case NET_P_LN2B: case NET_P_LNFB: dims2(rows, cols, 1, h, has_norm_bias(s)); return;
    case NET_P_QKVW: dims2(rows, cols, qkv_out(s), h, 1); return;
    case NET_P_QKVB: dims2(rows, cols, 1, qkv_out(s), bias); return;
    case NET_P_ATTPROJW: dims2(rows, cols, h, (size_t)net_q_width(s), 1); return;
    case NET_P_ATTPROJB: case NET_P_FCPROJB: dims2(rows, cols, 1, h, bias); return;
    case NET_P_FCW: dims2(rows, cols, fc_out(s), h, 1); return;
    case NET_P_FCB: dims2(rows, cols, 1, fc_out(s), bias); return;
    case NET_P_FCPROJW: dims2(rows, cols, h, f, 1); return;
    default: dims2(rows, cols, 0, 0, 0); return;
    }
}

static size_t param_size(const struct net_shape *s, enum net_param p)
{
    size_t r, c;
    net_param_dims(s, p, &r, &c);
    return r * c;
}

size_t net_param_offset(const struct net_shape *s, enum net_param p, int layer)
{
    size_t off = 0;
    for (int q = 0; q < (int)p; q++)
        off += param_size(s, q) * (net_params[q].per_block ? (size_t)s->layers : 1);
    return off + (net_params[p].per_block ? (size_t)layer * param_size(s, p) : 0);
}

size_t net_param_count(const struct net_shape *s)
{
    return net_param_offset(s, NET_NPARAMS - 1, 0) + param_size(s, NET_NPARAMS - 1);
}

void net_linear_params(const struct net_shape *s, enum net_linear l, enum net_param *w,
                         enum net_param *b, size_t *in, size_t *out)
{
    static const enum net_param W[NET_NLINEARS] = { NET_P_QKVW, NET_P_ATTPROJW, NET_P_FCW,
                                                        NET_P_FCPROJW, NET_P_LMHEAD };
    static const enum net_param Bs[NET_NLINEARS] = { NET_P_QKVB, NET_P_ATTPROJB, NET_P_FCB,
                                                         NET_P_FCPROJB, NET_NPARAMS };
    size_t r, c;
    *w = l == NET_LIN_LMHEAD && s->tied ? NET_P_WTE : W[l];
    *b = s->nobias ? NET_NPARAMS : Bs[l];
    net_param_dims(s, *w, &r, &c);
    *out = r;
    *in = c;
}

static size_t linear_size(const struct net_shape *s, enum net_linear l)
{
    enum net_param w, b;
    size_t in, out;
    net_linear_params(s, l, &w, &b, &in, &out);
    return in * out;
}

size_t net_low_offset(const struct net_shape *s, enum net_linear l, int layer)
{
    size_t off = 0;
    for (int q = 0; q < (int)l; q++)
        off += linear_size(s, q) * (size_t)s->layers;
    return off + (l == NET_LIN_LMHEAD ? 0 : (size_t)layer * linear_size(s, l));
}

size_t net_low_count(const struct net_shape *s)
{
    return net_low_offset(s, NET_LIN_LMHEAD, 0) + linear_size(s, NET_LIN_LMHEAD);
}

size_t net_fp8_count(const struct net_shape *s)
{
    return net_low_offset(s, NET_LIN_LMHEAD, 0);
}

static int net_lora_parts(const struct net_shape *s, enum net_linear l)
{
    if (l == NET_LIN_QKV)
        return s->lora_targets == NET_LORA_QV ? 2 : 3;
    if (l == NET_LIN_LMHEAD || s->lora_targets == NET_LORA_QV)
        return 0;
    return l == NET_LIN_FC && s->mlp == NET_MLP_SWIGLU ? 2 : 1;
}

/* The output width of linear l's adapters: the linear's, or for q and v alone their widths (a d + k d). */
static size_t lora_out(const struct net_shape *s, enum net_linear l, size_t out)
{
    if (net_lora_parts(s, l) == 0)
        return 0;
    if (l == NET_LIN_QKV && s->lora_targets == NET_LORA_QV)
        return (size_t)net_q_width(s) + (size_t)net_kv_heads(s) * (size_t)net_head_dim(s);
    return out;
}

size_t net_lora_count(const struct net_shape *s)
{
    size_t n = 0, r = (size_t)(s->lora_rank > 0 ? s->lora_rank : 0);
    for (int l = 0; l < NET_LIN_LMHEAD; l++) {
        enum net_param w, b;
        size_t in, out;
        net_linear_params(s, l, &w, &b, &in, &out);
        n += r * ((size_t)net_lora_parts(s, l) * in + lora_out(s, l, out));
    }
    return n * (size_t)s->layers;
}

size_t net_trainable_count(const struct net_shape *s)
{
    return s->lora_rank > 0 ? net_lora_count(s) : net_param_count(s);
}

/* ---- activations ---- */

void net_linear_io(enum net_linear l, struct net_linear_io *io)
{
    static const struct net_linear_io io_of[NET_NLINEARS] = {
        [NET_LIN_QKV] = { NET_A_LN1, NET_A_QKV, NET_A_DQKV, NET_A_DLN },
        [NET_LIN_ATTPROJ] = { NET_A_ATTY, NET_A_RES2, NET_A_DRES, NET_A_DATTY },
        [NET_LIN_FC] = { NET_A_LN2, NET_A_FC, NET_A_DFC, NET_A_DLN },
        [NET_LIN_FCPROJ] = { NET_A_GELU, NET_A_RES, NET_A_DRES, NET_A_DFC },
        [NET_LIN_LMHEAD] = { NET_A_LNF, NET_A_LOGITS, NET_A_LOGITS, NET_A_DLN },
    };
    *io = io_of[l];
}

static enum net_dtype act_low(enum net_prec p) { return p == NET_FP32 ? NET_DT_F32 : NET_DT_BF16; }

static double dmax(double a, double b) { return a > b ? a : b; }

/* The dtype a LoRA shape's frozen block linears are held in. */
static enum net_dtype base_dtype(const struct net_shape *s, enum net_prec p)
{
    return s->base_dtype ? (enum net_dtype)s->base_dtype : act_low(p);
}

static int nf4_base(const struct net_shape *s) { return s->lora_rank > 0 && s->base_dtype == NET_DT_NF4; }

/* Mixed precision as it is run: activations in BF16 (only under the BF16 and FP8 recipes). */
static int amp_on(const struct net_shape *s, enum net_prec p) { return s->amp && p != NET_FP32; }

/* Widest input, widest output and largest weight of the linears (blocks only: up to the head). */
struct widths { double in, out, w, lora_u, lora_parts; };

static void widths_of(const struct net_shape *s, int with_head, struct widths *wd)
{
    wd->in = wd->out = wd->w = wd->lora_u = wd->lora_parts = 0;
    for (int l = 0; l < (with_head ? NET_NLINEARS : NET_LIN_LMHEAD); l++) {
        enum net_param w, b;
        size_t in, out;
        net_linear_params(s, l, &w, &b, &in, &out);
        wd->in = dmax(wd->in, (double)in);
        wd->out = dmax(wd->out, (double)out);
        wd->w = dmax(wd->w, (double)in * (double)out);
        wd->lora_u += net_lora_parts(s, l);
        wd->lora_parts = dmax(wd->lora_parts, net_lora_parts(s, l));
    }
}

/* Elements of one copy of activation a, and its dtype; 0 when not held. */
static double act_elems(const struct net_shape *s, enum net_prec p, enum net_act a,
                        enum net_dtype *dt)
{
    double T = (double)s->batch * s->seq, h = s->hidden, V = s->vocab, f = net_ffn(s);
    double att = (double)s->batch * s->heads * s->seq * s->seq, r = s->lora_rank > 0 ? s->lora_rank : 0;
    double qkv = (double)qkv_out(s), q = net_q_width(s), flash = s->attention == NET_ATT_FLASH;
    double stats = s->norm == NET_NORM_RMS ? 1 : 2;
    int amp = amp_on(s, p);
    enum net_dtype av = amp ? NET_DT_BF16 : NET_DT_F32;    /* activations and their gradients */
    struct widths all, blk;
    widths_of(s, 1, &all);
    widths_of(s, 0, &blk);
    *dt = NET_DT_F32;
    switch (a) {
    case NET_A_TOKENS: case NET_A_TARGETS: *dt = NET_DT_I32; return T * s->accum;
    case NET_A_LOSSES: return T * s->accum;
    case NET_A_LN1: case NET_A_LN2: case NET_A_LNF:
        *dt = act_low(p); return T * h;
    case NET_A_ATTY: *dt = act_low(p); return T * q;
    case NET_A_DATTY: *dt = av; return T * q;
    case NET_A_GELU: *dt = act_low(p); return T * f;
    case NET_A_RES: case NET_A_RES2: case NET_A_DRES: case NET_A_DLN:
        *dt = av; return T * h;
    case NET_A_LN1_STATS: case NET_A_LN2_STATS: case NET_A_LNF_STATS: return stats * T;
    case NET_A_QKV: case NET_A_DQKV: *dt = av; return T * qkv;
    case NET_A_FC: case NET_A_DFC: *dt = av; return T * (double)fc_out(s);
    /* the scores stay FP32 under AMP (autocast runs softmax in FP32); flash: the row LSE */
    case NET_A_ATT: return flash ? att / s->seq : att;
    case NET_A_DATT: return flash ? 0 : att;
    case NET_A_LOGITS: *dt = av; return s->fused_loss ? 0 : T * V;    /* fused: chunks on chip */
    case NET_A_DLOW:      /* no casts under AMP; the fused loss's head gradient is never held */
        *dt = NET_DT_BF16; return p == NET_FP32 || amp ? 0 : T * (s->fused_loss ? blk.out : all.out);
    case NET_A_XQ: *dt = NET_DT_E4M3; return p == NET_FP8 && !nf4_base(s) ? T * blk.in : 0;
    case NET_A_WIDEN_X: return p == NET_BF16 ? T * dmax(all.in, all.out) : 0;
    case NET_A_WIDEN_W: return p == NET_BF16 ? dmax(all.w, T * blk.in) : 0;
    case NET_A_HEADS: case NET_A_DHEADS: *dt = av; return T * (q + qkv);
    case NET_A_GEMM_WS: return GEMM_WORKSPACE_BYTES / 4;
    case NET_A_LORA_U: *dt = act_low(p); return T * r * blk.lora_u;
    case NET_A_DLORA_U: *dt = act_low(p); return T * r * blk.lora_parts;
    case NET_A_DEQUANT: *dt = NET_DT_BF16; return nf4_base(s) ? blk.w : 0;
    default: return 0;
    }
}

void net_act_tensor(const struct net_shape *s, enum net_prec p, enum net_impl impl,
                      enum net_act a, struct net_tensor *t)
{
    t->elems = (net_acts[a].impl & impl) ? act_elems(s, p, a, &t->dtype) : 0;
    if (t->elems == 0)
        t->dtype = NET_DT_F32;
    t->copies = a == NET_A_RES ? s->layers + 1
              : net_acts[a].per_block && s->checkpoint != 1 ? s->layers : 1;
}

void net_memory(const struct net_shape *s, enum net_prec p, enum net_impl impl,
                  struct net_memory *m)
{
    double N = (double)net_param_count(s), Nt = (double)net_trainable_count(s);
    double blin = (double)net_fp8_count(s);      /* the blocks' linear weights */
    for (int i = 0; i < NET_NMEM; i++)
        m->bytes[i] = 0;
    m->params = N;
    m->trainable = Nt;
    m->frozen = m->frozen_linears = 0;
    const struct net_optim_info *o = &net_optims[net_optim_of(s, p)];
    int low = p != NET_FP32 && o->low_copy;
    m->bytes[NET_MEM_WEIGHTS] = o->weights * Nt;
    m->bytes[NET_MEM_GRADS] = o->grads * Nt;
    m->bytes[NET_MEM_OPTIMIZER] = o->moments * Nt;
    if (s->lora_rank > 0) {
        /* the frozen base: its block linears at base_dtype, the rest at the matmul dtype; FP8
         * adds an E4M3 copy of the block linears made once; the adapters have BF16 copies */
        enum net_dtype bd = base_dtype(s, p);
        m->frozen_linears = blin * net_dtype_bytes[bd];
        m->frozen = m->frozen_linears + (N - blin) * net_dtype_bytes[act_low(p)];
        m->bytes[NET_MEM_WEIGHTS] += m->frozen;
        if (low)
            m->bytes[NET_MEM_LOW] += 2 * Nt;
        if (p == NET_FP8 && bd != NET_DT_NF4)
            m->bytes[NET_MEM_LOW] += blin;
    } else {
        if (low)
            m->bytes[NET_MEM_LOW] += 2 * (double)net_low_count(s);
        if (p == NET_FP8)
            m->bytes[NET_MEM_LOW] += (double)net_fp8_count(s);
    }
    for (int a = 0; a < NET_NACTS; a++) {
        struct net_tensor t;
        net_act_tensor(s, p, impl, a, &t);
        m->bytes[net_acts[a].mem] += t.elems * t.copies * net_dtype_bytes[t.dtype];
    }
    m->total = 0;
    for (int i = 0; i < NET_NMEM; i++)
        m->total += m->bytes[i];
}

/* ---- op costs: one function per kind ---- */

struct dims {
    double T, h, s, V, B, a, N;
    double lo;                  /* bytes of a BF16-or-FP32 matmul operand in this recipe */
    double qkv, kd, f;          /* a d + 2 k d, k d, MLP inner size */
    double q;                   /* a d: the query and attention output width (h unless head_dim) */
    double keys;                /* keys each query attends to: the causal (s + 1) / 2, or within a
                                   packed document of D tokens (varlen, fused attention only) */
    double r;                   /* LoRA rank, 0 without */
    double ao;                  /* bytes of an activation or activation gradient: 4, 2 under AMP */
    double lb;                  /* bytes of a logit (and its gradient) in memory: ao, 0 fused */
    double wb, gb;              /* bytes of a weight (embedding rows) and of a gradient (optimizer) */
    double cz;                  /* share of the s x s scores computed: 1, causal (s + 1) / 2s */
    int amp, fused;
};

static void dims_of(const struct net_shape *s, enum net_prec p, struct dims *d)
{
    d->B = s->batch; d->s = s->seq; d->T = d->B * d->s; d->h = s->hidden; d->V = s->vocab;
    d->a = s->heads; d->N = (double)net_trainable_count(s);
    d->lo = net_dtype_bytes[act_low(p)];
    d->q = net_q_width(s);
    d->qkv = (double)qkv_out(s); d->kd = (d->qkv - d->q) / 2; d->f = net_ffn(s);
    d->r = s->lora_rank > 0 ? s->lora_rank : 0;
    d->amp = amp_on(s, p);
    d->fused = s->fused_loss != 0;
    d->ao = d->amp ? 2 : 4;
    d->lb = d->fused ? 0 : d->ao;
    d->wb = net_optims[net_optim_of(s, p)].weights;
    d->gb = net_optims[net_optim_of(s, p)].grads;
    d->cz = s->causal ? (d->s + 1) / (2 * d->s) : 1;
    double D = s->doc_tokens > 0 && s->doc_tokens < s->seq && s->attention == NET_ATT_FLASH ? s->doc_tokens : d->s;
    d->keys = s->causal ? (D + 1) / 2 : D;
    if (s->window > 0 && s->window < D && s->attention == NET_ATT_FLASH) {
        /* a causal query i attends min(i + 1, W) keys: on average W - W (W - 1) / 2D; a layer without the
           window the whole span; the plan's layers are one, so the keys per query are their mean */
        double W = s->window, share = s->window_layers > 0 ? (double)s->window_layers / s->layers : 1;
        double windowed = s->causal ? W - W * (W - 1) / (2 * D) : W;
        d->keys = share * windowed + (1 - share) * d->keys;
    }
}

/* Bytes per element of a linear's output and of its gradient: the logits' for the LM head. */
static double y_bytes(const struct dims *d, int linear) { return linear == NET_LIN_LMHEAD ? d->lb : d->ao; }

static void set(struct net_op *op, double m, double n, double k, double flops, double rd, double wr)
{
    op->m = m; op->n = n; op->k = k;
    op->flops = flops; op->bytes_read = rd; op->bytes_written = wr;
}

static void linear_dims(const struct net_shape *s, int l, double *in, double *out, int *bias)
{
    enum net_param w, b;
    size_t i, o;
    net_linear_params(s, l, &w, &b, &i, &o);
    *in = (double)i; *out = (double)o; *bias = b != NET_NPARAMS;
}

typedef void (*cost_fn)(const struct net_shape *, enum net_prec, const struct dims *, struct net_op *);

static void c_zero(const struct net_shape *s, enum net_prec p, const struct dims *d, struct net_op *op)
{
    (void)s; (void)p;
    set(op, d->N, 1, 1, 0, 0, d->gb * d->N);
}

static void c_embed(const struct net_shape *s, enum net_prec p, const struct dims *d, struct net_op *op)
{
    (void)p;
    if (s->rope)            /* no wpe: a row copy */
        set(op, d->T, d->h, 1, 0, 4 * d->T + d->wb * d->T * d->h, d->ao * d->T * d->h);
    else
        set(op, d->T, d->h, 1, d->T * d->h, 4 * d->T + 2 * d->wb * d->T * d->h, d->ao * d->T * d->h);
}

static void c_embed_bwd(const struct net_shape *s, enum net_prec p, const struct dims *d, struct net_op *op)
{
    (void)p;
    double g = d->gb * d->T * d->h, dx = d->ao * d->T * d->h;   /* rows of dwte (and dwpe), dx */
    if (s->rope)
        set(op, d->T, d->h, 1, d->T * d->h, 4 * d->T + dx + g, g);
    else
        set(op, d->T, d->h, 1, 2 * d->T * d->h, 4 * d->T + dx + 2 * g, 2 * g);
}

static void c_layernorm(const struct net_shape *s, enum net_prec p, const struct dims *d, struct net_op *op)
{
    (void)s;
    op->dtype_out = act_low(p);
    set(op, d->T, d->h, 1, 8 * d->T * d->h, d->ao * d->T * d->h + 8 * d->h, d->lo * d->T * d->h + 8 * d->T);
}

static void c_layernorm_bwd(const struct net_shape *s, enum net_prec p, const struct dims *d, struct net_op *op)
{
    (void)s; (void)p;
    double dres = op->which == NET_LNF ? 0 : d->ao * d->T * d->h;     /* the final norm writes dres */
    set(op, d->T, d->h, 1, 14 * d->T * d->h, 2 * d->ao * d->T * d->h + 8 * d->T + 12 * d->h + dres,
        d->ao * d->T * d->h + 8 * d->h);
}

/* RMSNorm: one statistic per row (1 / rms) and a gain; as LayerNorm otherwise. */
static void c_rmsnorm(const struct net_shape *s, enum net_prec p, const struct dims *d, struct net_op *op)
{
    (void)s;
    op->dtype_out = act_low(p);
    set(op, d->T, d->h, 1, 4 * d->T * d->h, d->ao * d->T * d->h + 4 * d->h, d->lo * d->T * d->h + 4 * d->T);
}

static void c_rmsnorm_bwd(const struct net_shape *s, enum net_prec p, const struct dims *d, struct net_op *op)
{
    (void)s; (void)p;
    double dres = op->which == NET_LNF ? 0 : d->ao * d->T * d->h;
    set(op, d->T, d->h, 1, 10 * d->T * d->h, 2 * d->ao * d->T * d->h + 4 * d->T + 8 * d->h + dres,
        d->ao * d->T * d->h + 4 * d->h);
}

/* The dtype of a forward matmul's operands: E4M3 for the blocks' linears in the FP8 recipe
 * (not over a 4-bit base, which is dequantized to BF16). */
static enum net_dtype fwd_dtype(const struct net_shape *s, enum net_prec p, int linear)
{
    return p == NET_FP8 && linear != NET_LIN_LMHEAD && !nf4_base(s) ? NET_DT_E4M3 : act_low(p);
}

static void c_matmul(const struct net_shape *s, enum net_prec p, const struct dims *d, struct net_op *op)
{
    double in, out, x;
    int bias;
    linear_dims(s, op->which, &in, &out, &bias);
    op->dtype = fwd_dtype(s, p, op->which);
    x = net_dtype_bytes[op->dtype];
    double T = (double)s->batch * s->seq;
    /* 2:4: half the products; per weight half a value and a quarter of a byte of index (NVIDIA's
     * sparse tensor-core format: 2 bits per kept value) */
    int sparse = s->sparse24 && op->which != NET_LIN_LMHEAD;
    double w = sparse ? 0.5 * x + 0.125 : x;
    set(op, T, out, in, (sparse ? 1 : 2) * T * out * in, x * T * in + w * out * in + (bias ? 4 * out : 0),
        y_bytes(d, op->which) * T * out);
}

static void c_dgrad(const struct net_shape *s, enum net_prec p, const struct dims *d, struct net_op *op)
{
    double in, out;
    int bias;
    linear_dims(s, op->which, &in, &out, &bias);
    op->dtype = act_low(p);
    double dy = op->which == NET_LIN_LMHEAD && d->fused ? 0 : d->lo;     /* fused: dlogits on chip */
    set(op, d->T, out, in, 2 * d->T * out * in, dy * d->T * out + d->lo * out * in, d->ao * d->T * in);
}

static void c_wgrad(const struct net_shape *s, enum net_prec p, const struct dims *d, struct net_op *op)
{
    double in, out;
    int bias;
    linear_dims(s, op->which, &in, &out, &bias);
    op->dtype = act_low(p);
    double b = bias ? d->gb * out : 0, dy = op->which == NET_LIN_LMHEAD && d->fused ? 0 : d->lo;
    set(op, d->T, out, in, 2 * d->T * out * in, d->lo * d->T * in + dy * d->T * out + d->gb * out * in + b,
        d->gb * out * in + b);
}

static void c_cast_grad(const struct net_shape *s, enum net_prec p, const struct dims *d, struct net_op *op)
{
    double in, out;
    int bias;
    (void)p;
    linear_dims(s, op->which, &in, &out, &bias);
    op->dtype_out = NET_DT_BF16;
    set(op, d->T, out, 1, 0, 4 * d->T * out, 2 * d->T * out);
}

static void c_quantize(const struct net_shape *s, enum net_prec p, const struct dims *d, struct net_op *op)
{
    double in, out;
    int bias;
    (void)p;
    linear_dims(s, op->which, &in, &out, &bias);
    op->dtype = NET_DT_BF16;
    op->dtype_out = NET_DT_E4M3;
    set(op, d->T, in, 1, 2 * d->T * in, 4 * d->T * in, d->T * in);
}

static void c_quantize_weights(const struct net_shape *s, enum net_prec p, const struct dims *d,
                               struct net_op *op)
{
    double n = (double)net_fp8_count(s);
    (void)p; (void)d;
    op->dtype = NET_DT_BF16;
    op->dtype_out = NET_DT_E4M3;
    set(op, n, 1, 1, 2 * n, 4 * n, n);
}

/* Attention reads q, k, v (FP32, h + 2 k d per token); GQA changes bytes, not FLOPs. */
static void c_attention(const struct net_shape *s, enum net_prec p, const struct dims *d, struct net_op *op)
{
    (void)s;
    op->dtype_out = act_low(p);
    set(op, d->T, d->q, 1, d->cz * 4 * d->T * d->s * d->q, d->ao * d->T * d->qkv,
        4 * d->B * d->a * d->s * d->s + d->lo * d->T * d->q);
}

static void c_attention_bwd(const struct net_shape *s, enum net_prec p, const struct dims *d, struct net_op *op)
{
    (void)s; (void)p;
    set(op, d->T, d->q, 1, d->cz * 8 * d->T * d->s * d->q,
        d->ao * d->T * (d->qkv + d->q) + 4 * d->B * d->a * d->s * d->s, d->ao * d->T * d->qkv);
}

/* Fused: reads q, k, v once (ideal on-chip reuse), writes the output and 4 B a s bytes of row
 * log-sum-exp; backward reads q, k, v, the output, its gradient and the LSE. */
static void c_flash(const struct net_shape *s, enum net_prec p, const struct dims *d, struct net_op *op)
{
    (void)s;
    op->dtype_out = act_low(p);
    set(op, d->T, d->q, 1, 4 * d->T * d->keys * d->q, d->ao * d->T * d->qkv,
        d->lo * d->T * d->q + 4 * d->B * d->a * d->s);
}

static void c_flash_bwd(const struct net_shape *s, enum net_prec p, const struct dims *d, struct net_op *op)
{
    (void)s; (void)p;
    set(op, d->T, d->q, 1, 2.5 * 4 * d->T * d->keys * d->q,
        d->ao * d->T * d->qkv + d->lo * d->T * d->q + d->ao * d->T * d->q + 4 * d->B * d->a * d->s,
        d->ao * d->T * d->qkv);
}

/* q and k rotated in place (FP32), cos and sin tables [s, d/2] each. */
static void c_rope(const struct net_shape *s, enum net_prec p, const struct dims *d, struct net_op *op)
{
    (void)s; (void)p;
    double n = d->T * (d->q + d->kd), tables = 4 * d->s * (d->q / d->a);
    set(op, d->T, d->q + d->kd, 1, 3 * n, d->ao * n + tables, d->ao * n);
}

static void c_residual(const struct net_shape *s, enum net_prec p, const struct dims *d, struct net_op *op)
{
    (void)s; (void)p;
    set(op, d->T, d->h, 1, d->T * d->h, 2 * d->ao * d->T * d->h, d->ao * d->T * d->h);
}

static void c_gelu(const struct net_shape *s, enum net_prec p, const struct dims *d, struct net_op *op)
{
    (void)s;
    op->dtype_out = act_low(p);
    set(op, d->T, d->f, 1, 8 * d->T * d->f, d->ao * d->T * d->f, d->lo * d->T * d->f);
}

static void c_gelu_bwd(const struct net_shape *s, enum net_prec p, const struct dims *d, struct net_op *op)
{
    (void)s; (void)p;
    set(op, d->T, d->f, 1, 13 * d->T * d->f, 2 * d->ao * d->T * d->f, d->ao * d->T * d->f);
}

static void c_swiglu(const struct net_shape *s, enum net_prec p, const struct dims *d, struct net_op *op)
{
    (void)s;
    op->dtype_out = act_low(p);
    set(op, d->T, d->f, 1, 6 * d->T * d->f, 2 * d->ao * d->T * d->f, d->lo * d->T * d->f);
}

static void c_swiglu_bwd(const struct net_shape *s, enum net_prec p, const struct dims *d, struct net_op *op)
{
    (void)s; (void)p;
    set(op, d->T, d->f, 1, 12 * d->T * d->f, 3 * d->ao * d->T * d->f, 2 * d->ao * d->T * d->f);
}

/* ---- LoRA: per block linear, A [parts r, in] and B [out, r] per part (block diagonal);
 * U = X A^T is saved at the matmul dtype, the adapters' gradients are FP32 ---- */

static void lora_dims(const struct net_shape *s, const struct dims *d, int l, double *in, double *out, double *pr)
{
    int bias;
    linear_dims(s, l, in, out, &bias);
    *out = (double)lora_out(s, l, (size_t)*out);
    *pr = net_lora_parts(s, l) * d->r;
}

static void c_lora_a(const struct net_shape *s, enum net_prec p, const struct dims *d, struct net_op *op)
{
    double in, out, pr;
    lora_dims(s, d, op->which, &in, &out, &pr);
    op->dtype = op->dtype_out = act_low(p);
    set(op, d->T, pr, in, 2 * d->T * pr * in, d->lo * (d->T * in + pr * in), d->lo * d->T * pr);
}

static void c_lora_b(const struct net_shape *s, enum net_prec p, const struct dims *d, struct net_op *op)
{
    double in, out, pr;
    lora_dims(s, d, op->which, &in, &out, &pr);
    op->dtype = act_low(p);
    set(op, d->T, out, d->r, 2 * d->T * out * d->r, d->lo * (d->T * pr + out * d->r) + d->ao * d->T * out,
        d->ao * d->T * out);
}

static void c_lora_b_dgrad(const struct net_shape *s, enum net_prec p, const struct dims *d, struct net_op *op)
{
    double in, out, pr;
    lora_dims(s, d, op->which, &in, &out, &pr);
    op->dtype = op->dtype_out = act_low(p);
    set(op, d->T, out, d->r, 2 * d->T * out * d->r, d->lo * (d->T * out + out * d->r), d->lo * d->T * pr);
}

static void c_lora_a_dgrad(const struct net_shape *s, enum net_prec p, const struct dims *d, struct net_op *op)
{
    double in, out, pr;
    lora_dims(s, d, op->which, &in, &out, &pr);
    op->dtype = act_low(p);
    set(op, d->T, pr, in, 2 * d->T * pr * in, d->lo * (d->T * pr + pr * in) + d->ao * d->T * in,
        d->ao * d->T * in);
}

static void c_lora_b_wgrad(const struct net_shape *s, enum net_prec p, const struct dims *d, struct net_op *op)
{
    double in, out, pr;
    lora_dims(s, d, op->which, &in, &out, &pr);
    op->dtype = act_low(p);
    set(op, d->T, out, d->r, 2 * d->T * out * d->r, d->lo * (d->T * out + d->T * pr) + 4 * out * d->r,
        4 * out * d->r);
}

static void c_lora_a_wgrad(const struct net_shape *s, enum net_prec p, const struct dims *d, struct net_op *op)
{
    double in, out, pr;
    lora_dims(s, d, op->which, &in, &out, &pr);
    op->dtype = act_low(p);
    set(op, d->T, pr, in, 2 * d->T * pr * in, d->lo * (d->T * pr + d->T * in) + 4 * pr * in, 4 * pr * in);
}

static void c_dequantize(const struct net_shape *s, enum net_prec p, const struct dims *d, struct net_op *op)
{
    double in, out;
    int bias;
    (void)p; (void)d;
    linear_dims(s, op->which, &in, &out, &bias);
    op->dtype = NET_DT_NF4;
    op->dtype_out = NET_DT_BF16;
    set(op, out, in, 1, 2 * out * in, net_dtype_bytes[NET_DT_NF4] * out * in, 2 * out * in);
}

/* FP32: the probabilities written over the logits. AMP and fused: llm.c's fused classifier
 * (reads the logits, writes the loss and the row log-sum-exp; its backward reads the logits
 * again and writes dlogits over them); fused with the LM head no logit reaches memory. */
static void c_xent(const struct net_shape *s, enum net_prec p, const struct dims *d, struct net_op *op)
{
    (void)s; (void)p;
    if (d->amp || d->fused)
        set(op, d->T, d->V, 1, 5 * d->T * d->V, d->lb * d->T * d->V + 4 * d->T, 8 * d->T);
    else
        set(op, d->T, d->V, 1, 5 * d->T * d->V, 4 * d->T * d->V + 4 * d->T, 4 * d->T * d->V + 4 * d->T);
}

static void c_xent_bwd(const struct net_shape *s, enum net_prec p, const struct dims *d, struct net_op *op)
{
    (void)s; (void)p;
    if (d->amp || d->fused)
        set(op, d->T, d->V, 1, 2 * d->T * d->V, d->lb * d->T * d->V + 8 * d->T, d->lb * d->T * d->V);
    else
        set(op, d->T, d->V, 1, 2 * d->T * d->V, 4 * d->T * d->V + 4 * d->T, 4 * d->T * d->V);
}

static void c_grad_norm(const struct net_shape *s, enum net_prec p, const struct dims *d, struct net_op *op)
{
    (void)s; (void)p;
    set(op, d->N, 1, 1, 2 * d->N, d->gb * d->N, 0);
}

/* Reads weights, moments and gradients and writes weights and moments at the recipe's bytes
 * (net_optims), and the BF16 matmul copy where the recipe keeps one. */
static void c_adamw(const struct net_shape *s, enum net_prec p, const struct dims *d, struct net_op *op)
{
    const struct net_optim_info *o = &net_optims[net_optim_of(s, p)];
    double low = p == NET_FP32 || !o->low_copy ? 0 : 2 * (s->lora_rank > 0 ? d->N : (double)net_low_count(s));
    set(op, d->N, 1, 1, 16 * d->N, (o->weights + o->moments + o->grads) * d->N,
        (o->weights + o->moments) * d->N + low);
}

static const cost_fn costs[NET_NKINDS] = {
    [NET_OP_ZERO_GRAD] = c_zero, [NET_OP_EMBED] = c_embed, [NET_OP_LAYERNORM] = c_layernorm,
    [NET_OP_QUANTIZE] = c_quantize, [NET_OP_MATMUL] = c_matmul, [NET_OP_ATTENTION] = c_attention,
    [NET_OP_RESIDUAL] = c_residual, [NET_OP_GELU] = c_gelu, [NET_OP_XENT] = c_xent,
    [NET_OP_XENT_BWD] = c_xent_bwd, [NET_OP_CAST_GRAD] = c_cast_grad,
    [NET_OP_MATMUL_DGRAD] = c_dgrad, [NET_OP_MATMUL_WGRAD] = c_wgrad,
    [NET_OP_GELU_BWD] = c_gelu_bwd, [NET_OP_ATTENTION_BWD] = c_attention_bwd,
    [NET_OP_LAYERNORM_BWD] = c_layernorm_bwd, [NET_OP_EMBED_BWD] = c_embed_bwd,
    [NET_OP_GRAD_NORM] = c_grad_norm, [NET_OP_ADAMW] = c_adamw,
    [NET_OP_QUANTIZE_WEIGHTS] = c_quantize_weights,
    [NET_OP_RMSNORM] = c_rmsnorm, [NET_OP_RMSNORM_BWD] = c_rmsnorm_bwd,
    [NET_OP_SWIGLU] = c_swiglu, [NET_OP_SWIGLU_BWD] = c_swiglu_bwd,
    [NET_OP_ROPE] = c_rope, [NET_OP_ROPE_BWD] = c_rope,
    [NET_OP_FLASH_ATTENTION] = c_flash, [NET_OP_FLASH_ATTENTION_BWD] = c_flash_bwd,
    [NET_OP_LORA_A] = c_lora_a, [NET_OP_LORA_B] = c_lora_b,
    [NET_OP_LORA_B_DGRAD] = c_lora_b_dgrad, [NET_OP_LORA_A_DGRAD] = c_lora_a_dgrad,
    [NET_OP_LORA_B_WGRAD] = c_lora_b_wgrad, [NET_OP_LORA_A_WGRAD] = c_lora_a_wgrad,
    [NET_OP_DEQUANTIZE] = c_dequantize,
};

/* ---- the plan ---- */

struct emitter {
    const struct net_shape *s;
    enum net_prec p;
    struct dims d;
    struct net_op *ops;
    int cap, n;
};

static void emit(struct emitter *e, enum net_kind k, enum net_phase ph, int layer, int micro, int which)
{
    struct net_op op = { .kind = k, .phase = ph, .layer = layer, .micro = micro, .which = which,
                           .dtype = NET_DT_F32, .dtype_out = NET_DT_F32 };
    costs[k](e->s, e->p, &e->d, &op);
    enum net_class c = net_kinds[k].cls;
    if (e->d.amp && (c == NET_NORM || c == NET_ELEMENTWISE || c == NET_ATTENTION || c == NET_LOSS)) {
        op.dtype = op.dtype == NET_DT_F32 ? NET_DT_BF16 : op.dtype;     /* BF16 activations in */
        if (c != NET_LOSS && op.dtype_out == NET_DT_F32)
            op.dtype_out = NET_DT_BF16;
    }
    if (k == NET_OP_MATMUL || k == NET_OP_MATMUL_DGRAD)
        op.dtype_out = e->d.amp ? NET_DT_BF16 : NET_DT_F32;
    else if (k == NET_OP_MATMUL_WGRAD)
        op.dtype_out = e->d.gb == 2 ? NET_DT_BF16 : NET_DT_F32;
    if (e->ops && e->n < e->cap)
        e->ops[e->n] = op;
    e->n++;
}

/* A block linear under LoRA: the frozen base's matmul, then the adapter's two. */
static void linear_fwd(struct emitter *e, enum net_phase ph, int l, int mb, int lin)
{
    int block = lin != NET_LIN_LMHEAD;
    if (block && nf4_base(e->s))
        emit(e, NET_OP_DEQUANTIZE, ph, l, mb, lin);
    if (fwd_dtype(e->s, e->p, lin) == NET_DT_E4M3)
        emit(e, NET_OP_QUANTIZE, ph, l, mb, lin);
    emit(e, NET_OP_MATMUL, ph, l, mb, lin);
    if (block && e->s->lora_rank > 0 && net_lora_parts(e->s, lin) > 0) {
        emit(e, NET_OP_LORA_A, ph, l, mb, lin);
        emit(e, NET_OP_LORA_B, ph, l, mb, lin);
    }
}

/* A frozen weight gets no gradient: LoRA keeps the base's dgrad and drops its wgrad. */
static void linear_bwd(struct emitter *e, int l, int mb, int lin)
{
    int block = lin != NET_LIN_LMHEAD;
    if (e->p != NET_FP32 && !e->d.amp && (block || !e->d.fused))   /* AMP: dY is BF16 already */
        emit(e, NET_OP_CAST_GRAD, NET_BWD, l, mb, lin);
    if (block && nf4_base(e->s))
        emit(e, NET_OP_DEQUANTIZE, NET_BWD, l, mb, lin);
    emit(e, NET_OP_MATMUL_DGRAD, NET_BWD, l, mb, lin);
    if (e->s->lora_rank > 0) {
        if (!block || net_lora_parts(e->s, lin) == 0)
            return;
        emit(e, NET_OP_LORA_B_DGRAD, NET_BWD, l, mb, lin);
        emit(e, NET_OP_LORA_A_DGRAD, NET_BWD, l, mb, lin);
        emit(e, NET_OP_LORA_B_WGRAD, NET_BWD, l, mb, lin);
        emit(e, NET_OP_LORA_A_WGRAD, NET_BWD, l, mb, lin);
        return;
    }
    emit(e, NET_OP_MATMUL_WGRAD, NET_BWD, l, mb, lin);
}

static enum net_kind norm_kind(const struct net_shape *s, int bwd)
{
    if (s->norm == NET_NORM_RMS)
        return bwd ? NET_OP_RMSNORM_BWD : NET_OP_RMSNORM;
    return bwd ? NET_OP_LAYERNORM_BWD : NET_OP_LAYERNORM;
}

static void block_fwd(struct emitter *e, enum net_phase ph, int l, int mb)
{
    const struct net_shape *s = e->s;
    emit(e, norm_kind(s, 0), ph, l, mb, NET_LN1);
    linear_fwd(e, ph, l, mb, NET_LIN_QKV);
    if (s->rope)
        emit(e, NET_OP_ROPE, ph, l, mb, 0);
    emit(e, s->attention == NET_ATT_FLASH ? NET_OP_FLASH_ATTENTION : NET_OP_ATTENTION, ph, l, mb, 0);
    linear_fwd(e, ph, l, mb, NET_LIN_ATTPROJ);
    emit(e, NET_OP_RESIDUAL, ph, l, mb, 0);
    emit(e, norm_kind(s, 0), ph, l, mb, NET_LN2);
    linear_fwd(e, ph, l, mb, NET_LIN_FC);
    emit(e, s->mlp == NET_MLP_SWIGLU ? NET_OP_SWIGLU : NET_OP_GELU, ph, l, mb, 0);
    linear_fwd(e, ph, l, mb, NET_LIN_FCPROJ);
    emit(e, NET_OP_RESIDUAL, ph, l, mb, 1);
}

/* Selective recomputation as torchtitan's op-level policy runs it: the outputs of every other
 * matmul and of the attention kernel are saved, the rest is recomputed in the backward: the
 * block's norms, rotary embedding, MLP activation and residual adds, and its attention and MLP
 * output projections (half the block's matmuls, in FLOPs about half of them). */
static void block_recompute_selective(struct emitter *e, int l, int mb)
{
    const struct net_shape *s = e->s;
    emit(e, norm_kind(s, 0), NET_RECOMPUTE, l, mb, NET_LN1);
    if (s->rope)
        emit(e, NET_OP_ROPE, NET_RECOMPUTE, l, mb, 0);
    linear_fwd(e, NET_RECOMPUTE, l, mb, NET_LIN_ATTPROJ);
    emit(e, NET_OP_RESIDUAL, NET_RECOMPUTE, l, mb, 0);
    emit(e, norm_kind(s, 0), NET_RECOMPUTE, l, mb, NET_LN2);
    emit(e, s->mlp == NET_MLP_SWIGLU ? NET_OP_SWIGLU : NET_OP_GELU, NET_RECOMPUTE, l, mb, 0);
    linear_fwd(e, NET_RECOMPUTE, l, mb, NET_LIN_FCPROJ);
    emit(e, NET_OP_RESIDUAL, NET_RECOMPUTE, l, mb, 1);
}

static void block_bwd(struct emitter *e, int l, int mb)
{
    const struct net_shape *s = e->s;
    linear_bwd(e, l, mb, NET_LIN_FCPROJ);
    emit(e, s->mlp == NET_MLP_SWIGLU ? NET_OP_SWIGLU_BWD : NET_OP_GELU_BWD, NET_BWD, l, mb, 0);
    linear_bwd(e, l, mb, NET_LIN_FC);
    emit(e, norm_kind(s, 1), NET_BWD, l, mb, NET_LN2);
    linear_bwd(e, l, mb, NET_LIN_ATTPROJ);
    emit(e, s->attention == NET_ATT_FLASH ? NET_OP_FLASH_ATTENTION_BWD : NET_OP_ATTENTION_BWD,
         NET_BWD, l, mb, 0);
    if (s->rope)
        emit(e, NET_OP_ROPE_BWD, NET_BWD, l, mb, 0);
    linear_bwd(e, l, mb, NET_LIN_QKV);
    emit(e, norm_kind(s, 1), NET_BWD, l, mb, NET_LN1);
}

static void micro_batch(struct emitter *e, int mb)
{
    int L = e->s->layers;
    emit(e, NET_OP_EMBED, NET_FWD, -1, mb, 0);
    for (int l = 0; l < L; l++)
        block_fwd(e, NET_FWD, l, mb);
    emit(e, norm_kind(e->s, 0), NET_FWD, -1, mb, NET_LNF);
    linear_fwd(e, NET_FWD, -1, mb, NET_LIN_LMHEAD);
    emit(e, NET_OP_XENT, NET_FWD, -1, mb, 0);
    emit(e, NET_OP_XENT_BWD, NET_BWD, -1, mb, 0);
    linear_bwd(e, -1, mb, NET_LIN_LMHEAD);
    emit(e, norm_kind(e->s, 1), NET_BWD, -1, mb, NET_LNF);
    for (int l = L - 1; l >= 0; l--) {
        if (e->s->checkpoint == NET_CKPT_SELECTIVE)
            block_recompute_selective(e, l, mb);
        else if (e->s->checkpoint)
            block_fwd(e, NET_RECOMPUTE, l, mb);
        block_bwd(e, l, mb);
    }
    if (e->s->lora_rank == 0)         /* LoRA: the embedding is frozen */
        emit(e, NET_OP_EMBED_BWD, NET_BWD, -1, mb, 0);
}

int net_plan(const struct net_shape *s, enum net_prec p, struct net_op *ops, int cap)
{
    struct emitter e = { .s = s, .p = p, .ops = ops, .cap = cap };
    dims_of(s, p, &e.d);
    emit(&e, NET_OP_ZERO_GRAD, NET_UPDATE, -1, -1, 0);
    for (int mb = 0; mb < s->accum; mb++)
        micro_batch(&e, mb);
    emit(&e, NET_OP_GRAD_NORM, NET_UPDATE, -1, -1, 0);
    emit(&e, NET_OP_ADAMW, NET_UPDATE, -1, -1, 0);
    if (p == NET_FP8 && s->lora_rank == 0)
        emit(&e, NET_OP_QUANTIZE_WEIGHTS, NET_UPDATE, -1, -1, 0);
    return e.n;
}

struct net_op *net_plan_new(const struct net_shape *s, enum net_prec p, int *n)
{
    *n = net_plan(s, p, NULL, 0);
    struct net_op *ops = xmalloc((size_t)(*n > 0 ? *n : 1) * sizeof *ops);
    net_plan(s, p, ops, *n);
    return ops;
}

char *net_op_label(const struct net_op *op, char *buf, size_t n)
{
    const char *what = "";
    if (op->kind == NET_OP_MATMUL || op->kind == NET_OP_MATMUL_DGRAD || op->kind == NET_OP_MATMUL_WGRAD
        || op->kind == NET_OP_CAST_GRAD || op->kind == NET_OP_QUANTIZE || op->kind == NET_OP_DEQUANTIZE
        || (op->kind >= NET_OP_LORA_A && op->kind <= NET_OP_LORA_A_WGRAD))
        what = net_linear_names[op->which];
    else if (op->kind == NET_OP_LAYERNORM || op->kind == NET_OP_LAYERNORM_BWD
             || op->kind == NET_OP_RMSNORM || op->kind == NET_OP_RMSNORM_BWD)
        what = net_norm_names[op->which];
    else if (op->kind == NET_OP_RESIDUAL)
        what = op->which ? "mlp" : "attention";
    char where[48] = "";
    if (op->layer >= 0)
        snprintf(where, sizeof where, ", block %d", op->layer);
    snprintf(buf, n, "%s%s%s%s%s", net_kinds[op->kind].name, *what ? " " : "", what, where,
             op->phase == NET_RECOMPUTE ? " (recompute)" : "");
    return buf;
}

double net_megatron_flops(const struct net_shape *s, int recompute)
{
    double B = (double)s->batch * s->accum, sq = s->seq, L = s->layers, h = s->hidden, V = s->vocab;
    double cz = s->causal ? (sq + 1) / (2 * sq) : 1;        /* the share of the s x s scores computed */
    if (recompute)
        return 96 * B * sq * L * h * h * (1 + cz * sq / (6 * h) + V / (16 * L * h));
    return 72 * B * sq * L * h * h * (1 + cz * sq / (6 * h) + V / (12 * L * h));
}
