/* ops.h: one training step of a GPT-style decoder as data: every op in execution order with
 * its class, shape, dtypes and closed-form FLOPs and bytes, every parameter tensor with its
 * place in the flat parameter array, and every activation and scratch tensor with its size.
 * The training experiment allocates these tensors and executes this plan op by op; the
 * training-time model evaluates the same plan without running anything. How an op is
 * computed is the backends' business (src/exp/train_cpu.c, src/cuda/train.cu). Architecture
 * options (GQA, SwiGLU, RMSNorm, RoPE, flash attention, LoRA, a 4-bit base) exist for the
 * model's projections; the backends run only the GPT-2 shape (model_shape_extension). */
#ifndef SR_MODEL_OPS_H
#define SR_MODEL_OPS_H

#include <stddef.h>

enum model_class {
    MODEL_MATMUL = 0, MODEL_ATTENTION, MODEL_NORM, MODEL_ELEMENTWISE, MODEL_LOSS,
    MODEL_OPTIMIZER, MODEL_OTHER, MODEL_NCLASSES
};
extern const char *const model_class_names[MODEL_NCLASSES];

/* Precision recipes. FP32: everything FP32. BF16: matmul operands BF16 (weights as a copy of
 * the FP32 master, activations that feed matmuls, gradients that feed matmuls), FP32
 * accumulation, master weights, gradients, optimizer state, loss. FP8: BF16, and the forward
 * matmuls of the blocks take E4M3 operands with one scale per tensor (the LM head stays BF16). */
enum model_prec { MODEL_FP32 = 0, MODEL_BF16, MODEL_FP8, MODEL_NPRECS };
extern const char *const model_prec_names[MODEL_NPRECS];

/* MODEL_DT_NF4: QLoRA's 4-bit NormalFloat with one scale per 64 weights, the scales themselves
 * 8-bit with one FP32 scale per 256 of them: 4 + 8/64 + 32/(64*256) = 4.127 bits per weight
 * (Dettmers et al. 2023, "QLoRA", section 3, Double Quantization). */
enum model_dtype { MODEL_DT_F32 = 0, MODEL_DT_BF16, MODEL_DT_E4M3, MODEL_DT_I32, MODEL_DT_NF4,
                   MODEL_NDTYPES };
extern const char *const model_dtype_names[MODEL_NDTYPES];
extern const double model_dtype_bytes[MODEL_NDTYPES];

enum model_mlp { MODEL_MLP_GELU = 0, MODEL_MLP_SWIGLU };        /* SwiGLU: gate, up, down */
enum model_normtype { MODEL_NORM_LAYER = 0, MODEL_NORM_RMS };
enum model_att { MODEL_ATT_UNFUSED = 0, MODEL_ATT_FLASH };      /* flash: no s x s tensors */

struct model_shape {
    int layers, hidden, heads, seq, vocab;  /* L, h, a, s, V; head size d = h / a */
    int batch;                              /* B: sequences per micro-batch */
    int accum;                              /* G: micro-batches per optimizer step */
    int checkpoint;                         /* recompute each block's forward in backward */
    int tied;                               /* LM head is the token embedding */
    /* architecture options: all zero is GPT-2, the only shape the training backends run (a
     * GPT-2 shape written positionally ends with a designator, `..., .tied = 0 }`, so that
     * -Wextra does not ask for these) */
    int kv_heads;       /* k: key/value heads, dividing heads (GQA: q h, k and v k d wide); 0: a */
    int ffn;            /* f: MLP inner size; 0: 4h */
    int mlp;            /* enum model_mlp; SwiGLU's gate and up are one [2f, h] matrix "fc" */
    int norm;           /* enum model_normtype (RMSNorm: a gain, no bias) */
    int nobias;         /* no biases in the linears and norms (Llama) */
    int rope;           /* rotary position embedding on q and k; no learned wpe */
    int attention;      /* enum model_att */
    int lora_rank;      /* r > 0: base weights frozen, LoRA adapters on the blocks' linears */
    int base_dtype;     /* LoRA: enum model_dtype of the frozen block linears; 0: the recipe's
                           matmul dtype (BF16 under the BF16 and FP8 recipes) */
    int sparse24;       /* the blocks' linear weights 2:4 sparse: their forward matmuls run on
                           sparse matrix units (half the products executed) and read half the
                           values plus a 2-bit index each; backward and memory stay dense */
};

/* Why a shape cannot be built (heads do not divide hidden...): NULL when it can. */
const char *model_shape_problem(const struct model_shape *s);
/* The first architecture option that is not GPT-2's ("a SwiGLU MLP", ...): what a training
 * backend names when it refuses a shape; NULL for GPT-2. */
const char *model_shape_extension(const struct model_shape *s);
int model_kv_heads(const struct model_shape *s);     /* k */
int model_ffn(const struct model_shape *s);          /* f */

enum model_phase { MODEL_FWD = 0, MODEL_BWD, MODEL_RECOMPUTE, MODEL_UPDATE, MODEL_NPHASES };
extern const char *const model_phase_names[MODEL_NPHASES];

enum model_kind {
    MODEL_OP_ZERO_GRAD = 0, MODEL_OP_EMBED, MODEL_OP_LAYERNORM, MODEL_OP_QUANTIZE, MODEL_OP_MATMUL,
    MODEL_OP_ATTENTION, MODEL_OP_RESIDUAL, MODEL_OP_GELU, MODEL_OP_XENT, MODEL_OP_XENT_BWD,
    MODEL_OP_CAST_GRAD, MODEL_OP_MATMUL_DGRAD, MODEL_OP_MATMUL_WGRAD, MODEL_OP_GELU_BWD,
    MODEL_OP_ATTENTION_BWD, MODEL_OP_LAYERNORM_BWD, MODEL_OP_EMBED_BWD, MODEL_OP_GRAD_NORM,
    MODEL_OP_ADAMW, MODEL_OP_QUANTIZE_WEIGHTS,
    MODEL_OP_RMSNORM, MODEL_OP_RMSNORM_BWD, MODEL_OP_SWIGLU, MODEL_OP_SWIGLU_BWD, MODEL_OP_ROPE,
    MODEL_OP_ROPE_BWD, MODEL_OP_FLASH_ATTENTION, MODEL_OP_FLASH_ATTENTION_BWD,
    MODEL_OP_LORA_A, MODEL_OP_LORA_B, MODEL_OP_LORA_B_DGRAD, MODEL_OP_LORA_A_DGRAD,
    MODEL_OP_LORA_B_WGRAD, MODEL_OP_LORA_A_WGRAD, MODEL_OP_DEQUANTIZE, MODEL_NKINDS
};

struct model_kind_info {
    const char *name;           /* "matmul_dgrad" */
    enum model_class cls;
    const char *what;           /* one line: what it computes and how its cost is counted */
};
extern const struct model_kind_info model_kinds[MODEL_NKINDS];

/* The matmuls of the model: Y[T, out] = X[T, in] W[out, in]^T (+ bias). */
enum model_linear { MODEL_LIN_QKV = 0, MODEL_LIN_ATTPROJ, MODEL_LIN_FC, MODEL_LIN_FCPROJ,
                    MODEL_LIN_LMHEAD, MODEL_NLINEARS };
extern const char *const model_linear_names[MODEL_NLINEARS];
enum model_norm { MODEL_LN1 = 0, MODEL_LN2, MODEL_LNF, MODEL_NNORMS };
extern const char *const model_norm_names[MODEL_NNORMS];

struct model_op {
    enum model_kind kind;
    enum model_phase phase;
    int layer;                  /* block 0..L-1; -1 outside the blocks */
    int micro;                  /* micro-batch 0..G-1; -1 in the update */
    int which;                  /* matmuls (LoRA's too), casts, quantize, dequantize: enum
                                   model_linear; norms: enum model_norm; residual: 0 after
                                   attention, 1 after the MLP */
    double m, n, k;             /* matmuls: Y[m,n] = X[m,k] W[n,k]^T; others: rows x columns
                                   of the tensor that sets the cost, k = 1 */
    enum model_dtype dtype;     /* of the inputs that set the cost */
    enum model_dtype dtype_out;
    double flops;               /* closed form (model_kinds[].what says how) */
    double bytes_read;          /* each tensor the op names, once, at its dtype */
    double bytes_written;
};

/* Fills ops (up to cap; ops may be NULL) with one optimizer step in execution order; returns
 * how many ops the step has. */
int model_plan(const struct model_shape *s, enum model_prec p, struct model_op *ops, int cap);

/* "matmul_dgrad fcproj, block 3, micro-batch 0" */
char *model_op_label(const struct model_op *op, char *buf, size_t n);

/* ---- parameters: one flat FP32 array; per-block tensors repeat L times ---- */

enum model_param {
    MODEL_P_WTE = 0, MODEL_P_WPE,                                       /* [V,h], [s,h] */
    MODEL_P_LN1W, MODEL_P_LN1B, MODEL_P_QKVW, MODEL_P_QKVB, MODEL_P_ATTPROJW, MODEL_P_ATTPROJB,
    MODEL_P_LN2W, MODEL_P_LN2B, MODEL_P_FCW, MODEL_P_FCB, MODEL_P_FCPROJW, MODEL_P_FCPROJB,
    MODEL_P_LNFW, MODEL_P_LNFB, MODEL_P_LMHEAD,                         /* [h], [h], [V,h] */
    MODEL_NPARAMS
};

struct model_param_info {
    const char *name;           /* "fcw" */
    int per_block;              /* repeated for each of the L blocks */
    int decay;                  /* AdamW weight decay applies (matrices, not biases or norms) */
    int init;                   /* 0: zeros, 1: ones, 2: N(0, 0.02), 3: N(0, 0.02 / sqrt(2L)) */
};
extern const struct model_param_info model_params[MODEL_NPARAMS];

/* Rows x cols of one tensor (of one block); 0 x 0 for the LM head when tied. */
void model_param_dims(const struct model_shape *s, enum model_param p, size_t *rows, size_t *cols);
/* Offset of tensor p of block `layer` (0 for tensors outside the blocks) in the flat array. */
size_t model_param_offset(const struct model_shape *s, enum model_param p, int layer);
size_t model_param_count(const struct model_shape *s);     /* N, every element */
/* LoRA: adapter parameters, r (parts x in + out) per block linear, where q, k, v and SwiGLU's
 * gate and up are separate projections (parts 3 for qkv, 2 for fc), as PEFT adapts them. */
size_t model_lora_count(const struct model_shape *s);
size_t model_trainable_count(const struct model_shape *s);   /* LoRA's adapters, or N */
int model_lora_parts(const struct model_shape *s, enum model_linear l);

/* Weight and bias of a linear (bias MODEL_NPARAMS when it has none; the LM head's weight is
 * the token embedding when tied), and its in/out sizes. */
void model_linear_params(const struct model_shape *s, enum model_linear l, enum model_param *w,
                         enum model_param *b, size_t *in, size_t *out);
/* Low-precision weight copies (BF16, and E4M3 for the FP8 recipe) hold only the linears'
 * weights: the offset of linear l of block `layer` in them, and their total elements. */
size_t model_low_offset(const struct model_shape *s, enum model_linear l, int layer);
size_t model_low_count(const struct model_shape *s);
size_t model_fp8_count(const struct model_shape *s);         /* the blocks' four linears */

/* ---- activations and scratch ---- */

enum model_mem { MODEL_MEM_WEIGHTS = 0, MODEL_MEM_LOW, MODEL_MEM_GRADS, MODEL_MEM_OPTIMIZER,
                 MODEL_MEM_ACTIVATIONS, MODEL_MEM_SCRATCH, MODEL_NMEM };
extern const char *const model_mem_names[MODEL_NMEM];

enum model_act {
    MODEL_A_TOKENS = 0, MODEL_A_TARGETS,                    /* [T] int32 each */
    MODEL_A_RES,            /* [T,h] residual stream entering block l; L+1 copies (checkpoints) */
    MODEL_A_LN1, MODEL_A_LN1_STATS, MODEL_A_QKV, MODEL_A_ATT, MODEL_A_ATTY, MODEL_A_RES2,
    MODEL_A_LN2, MODEL_A_LN2_STATS, MODEL_A_FC, MODEL_A_GELU,   /* one copy per block */
    MODEL_A_LNF, MODEL_A_LNF_STATS, MODEL_A_LOGITS, MODEL_A_LOSSES,
    MODEL_A_DRES, MODEL_A_DLN, MODEL_A_DATTY, MODEL_A_DQKV, MODEL_A_DFC,  /* backward, one each */
    MODEL_A_DLOW,           /* BF16 copy of the gradient a matmul's backward reads */
    MODEL_A_XQ,             /* FP8: E4M3 copy of a forward matmul's input */
    MODEL_A_WIDEN_X, MODEL_A_WIDEN_W,   /* CPU BF16: operands widened to FP32 for cblas_sgemm */
    MODEL_A_HEADS,          /* GPU: q, k, v, y permuted to [B, a, s, d] (4 x T x h) */
    MODEL_A_DHEADS,         /* GPU: their gradients in the same layout */
    MODEL_A_DATT,           /* GPU: gradient of the attention scores [B, a, s, s] */
    MODEL_A_GEMM_WS,        /* GPU: cuBLASLt workspace */
    MODEL_A_LORA_U,         /* LoRA: X A^T of the block's linears, [T, parts r] each */
    MODEL_A_DLORA_U,        /* LoRA: its gradient for one linear */
    MODEL_A_DEQUANT,        /* 4-bit base: one block linear's weight dequantized to BF16 */
    MODEL_NACTS
};

enum model_impl { MODEL_IMPL_CPU = 1, MODEL_IMPL_GPU = 2 };

/* The activations a linear names: its input (a BF16 tensor in the BF16 and FP8 recipes), its
 * output (for the blocks' MLP projection: MODEL_A_RES of the next block), the gradient of
 * its output (FP32) and the gradient of its input its dgrad writes. */
struct model_linear_io {
    enum model_act x, y, dy, dx;
};
void model_linear_io(enum model_linear l, struct model_linear_io *io);

struct model_act_info {
    const char *name;
    enum model_mem mem;         /* activations (saved for backward) or scratch */
    int per_block;              /* one copy per block, or one in all when checkpointing */
    unsigned impl;              /* MODEL_IMPL_* bits of the backends that hold it */
};
extern const struct model_act_info model_acts[MODEL_NACTS];

struct model_tensor {
    double elems;               /* per copy; 0 when this recipe and backend do not hold it */
    int copies;
    enum model_dtype dtype;
};
void model_act_tensor(const struct model_shape *s, enum model_prec p, enum model_impl impl,
                      enum model_act a, struct model_tensor *t);

/* Every byte a training run of this shape holds, by category. */
struct model_memory {
    double bytes[MODEL_NMEM];   /* LoRA: weights = the frozen base at its dtypes + the adapters'
                                   FP32 master; gradients and optimizer: the adapters' */
    double total;
    double params;              /* N */
    double trainable;           /* parameters the optimizer updates: N, or LoRA's adapters */
    double frozen;              /* LoRA: bytes of the frozen base weights (in weights) */
    double frozen_linears;      /* LoRA: of those, the blocks' linears (at base_dtype) */
};
void model_memory(const struct model_shape *s, enum model_prec p, enum model_impl impl,
                  struct model_memory *m);

/* ---- closed forms the plan is checked against ---- */

/* Narayanan et al. 2021 (Megatron-LM), FLOPs of the matmuls (attention products included) of
 * one step of B = batch x accum sequences: 72 B s L h^2 (1 + s/6h + V/12Lh) without
 * recomputation, 96 B s L h^2 (1 + s/6h + V/16Lh) with full recomputation. */
double model_megatron_flops(const struct model_shape *s, int recompute);

#endif
