/* plan.h: the GPT network (not the time predictor, src/predict): one training step of a GPT-style decoder as data: every op in execution order with
 * its class, shape, dtypes and closed-form FLOPs and bytes, every parameter tensor with its
 * place in the flat parameter array, and every activation and scratch tensor with its size.
 * The training experiment allocates these tensors and executes this plan op by op; the
 * training-time model evaluates the same plan without running anything. How an op is
 * computed is the backends' business (src/exp/train/train_cpu.c, src/exp/train/train_cuda.cu). Architecture
 * options (GQA, SwiGLU, RMSNorm, RoPE, flash attention, LoRA, a 4-bit base) exist for the
 * model's projections; the backends run only the GPT-2 shape (net_shape_extension). */
#ifndef SR_NET_PLAN_H
#define SR_NET_PLAN_H

#include <stddef.h>

enum net_class {
    NET_MATMUL = 0, NET_ATTENTION, NET_NORM, NET_ELEMENTWISE, NET_LOSS,
    NET_OPTIMIZER, NET_OTHER, NET_NCLASSES
};
extern const char *const net_class_names[NET_NCLASSES];

/* Precision recipes. FP32: everything FP32. BF16: matmul operands BF16 (weights as a copy of
 * the FP32 master, activations that feed matmuls, gradients that feed matmuls), FP32
 * accumulation, master weights, gradients, optimizer state, loss. FP8: BF16, and the forward
 * matmuls of the blocks take E4M3 operands with one scale per tensor (the LM head stays BF16). */
enum net_prec { NET_FP32 = 0, NET_BF16, NET_FP8, NET_NPRECS };
extern const char *const net_prec_names[NET_NPRECS];

/* NET_DT_NF4: QLoRA's 4-bit NormalFloat with one scale per 64 weights, the scales themselves
 * 8-bit with one FP32 scale per 256 of them: 4 + 8/64 + 32/(64*256) = 4.127 bits per weight
 * (Dettmers et al. 2023, "QLoRA", section 3, Double Quantization). */
enum net_dtype { NET_DT_F32 = 0, NET_DT_BF16, NET_DT_E4M3, NET_DT_I32, NET_DT_NF4,
                   NET_NDTYPES };
extern const char *const net_dtype_names[NET_NDTYPES];
extern const double net_dtype_bytes[NET_NDTYPES];

#define NET_CKPT_SELECTIVE 2

enum net_mlp { NET_MLP_GELU = 0, NET_MLP_SWIGLU };        /* SwiGLU: gate, up, down */
enum net_normtype { NET_NORM_LAYER = 0, NET_NORM_RMS };
enum net_att { NET_ATT_UNFUSED = 0, NET_ATT_FLASH };      /* flash: no s x s tensors */
/* LoRA's targets: every block linear (PEFT's "all-linear": q, k, v, o, and the MLP's), or the query
 * and value projections only (PEFT's default for the Llama, Qwen, Mistral and Gemma families when no
 * target is named: TRANSFORMERS_MODELS_TO_LORA_TARGET_MODULES_MAPPING). */
enum net_lora_targets { NET_LORA_ALL = 0, NET_LORA_QV };

/* Optimizer recipes, with the bytes per trained parameter each holds (research note section 3):
 * ADAMW: FP32 master weights, FP32 gradients, two FP32 moments (4 + 4 + 8 = 16, + the recipe's
 * BF16 matmul copy 2 = 18). ADAMW_BF16: pure BF16 weights, gradients and moments, no FP32
 * master and no separate BF16 copy (2 + 2 + 4 = 8). ADAM8: 8-bit Adam (Dettmers et al. 2022,
 * "8-bit Optimizers via Block-wise Quantization", bitsandbytes): FP32 master and gradients, two
 * 1-byte moments with one FP32 absmax per block of 2048 (2 (1 + 4/2048) = 2.0039; + 4 + 4 + the
 * BF16 copy 2 = 12.004). Under the FP32 recipe ADAMW_BF16 is ADAMW (there is no BF16 anywhere). */
enum net_optim { NET_OPT_ADAMW = 0, NET_OPT_ADAMW_BF16, NET_OPT_ADAM8, NET_NOPTIMS };
struct net_optim_info {
    const char *name;           /* "adamw", "adamw-bf16", "adam8bit" */
    double weights;             /* bytes per trained parameter: the weights the optimizer updates */
    double grads;               /* the gradients it reads */
    double moments;             /* both moments, with their quantization scales */
    int low_copy;               /* a separate BF16 copy of the matmul weights (BF16, FP8 recipes) */
    const char *basis;
};
extern const struct net_optim_info net_optims[NET_NOPTIMS];

struct net_shape {
    int layers, hidden, heads, seq, vocab;  /* L, h, a, s, V; head size d = h / a */
    int batch;                              /* B: sequences per micro-batch */
    int accum;                              /* G: micro-batches per optimizer step */
    int checkpoint;                         /* 1: recompute each block's forward in backward;
                                               NET_CKPT_SELECTIVE: torchtitan's op-level policy
                                               (plan.c), its memory counted as without */
    int tied;                               /* LM head is the token embedding */
    /* architecture options: all zero is GPT-2, the only shape the training backends run (a
     * GPT-2 shape written positionally ends with a designator, `..., .tied = 0 }`, so that
     * -Wextra does not ask for these) */
    int kv_heads;       /* k: key/value heads, dividing heads (GQA: q h, k and v k d wide); 0: a */
    int ffn;            /* f: MLP inner size; 0: 4h */
    int mlp;            /* enum net_mlp; SwiGLU's gate and up are one [2f, h] matrix "fc" */
    int norm;           /* enum net_normtype (RMSNorm: a gain, no bias) */
    int nobias;         /* no biases in the linears and norms (Llama) */
    int rope;           /* rotary position embedding on q and k; no learned wpe */
    int attention;      /* enum net_att */
    int lora_rank;      /* r > 0: base weights frozen, LoRA adapters on the blocks' linears */
    int lora_targets;   /* enum net_lora_targets: which of the blocks' linears carry adapters */
    int base_dtype;     /* LoRA: enum net_dtype of the frozen block linears; 0: the recipe's
                           matmul dtype (BF16 under the BF16 and FP8 recipes) */
    int sparse24;       /* the blocks' linear weights 2:4 sparse: their forward matmuls run on
                           sparse matrix units (half the products executed) and read half the
                           values plus a 2-bit index each; backward and memory stay dense */
    /* how it is run (all zero: the training backends' own plan, FP32 activations) */
    int amp;            /* BF16 and FP8 recipes: activations, their gradients and matmul outputs
                           in BF16 (residual stream, norm outputs, qkv, attention output, fc,
                           GELU, logits), as llm.c and PyTorch AMP hold them; no cast ops */
    int causal;         /* attention FLOPs of the causal half: s (s + 1) / 2 of the s^2 scores */
    int fused_loss;     /* LM head and cross-entropy fused: no [T, V] logits tensor in memory */
    int optimizer;      /* enum net_optim */
    /* options of the projections only (all zero: as above) */
    int head_dim;       /* d: the head size when it is not hidden / heads (Qwen3: 128 at any width,
                           so q is heads x d wide and the attention projection maps it back to h) */
    int doc_tokens;     /* > 0: the sequence packs documents of this many tokens and attention runs
                           within each (FlashAttention's varlen: block-diagonal), keys per query
                           (D + 1) / 2 causal instead of (s + 1) / 2; 0: over the whole sequence */
    int window;         /* > 0: sliding-window attention of W keys (Mistral, Gemma 2 and 3) on
                           window_layers of the layers (fused attention skips the keys outside the
                           window: the keys per query averaged over the layers); 0: none */
    int window_layers;  /* how many of the layers use the window; 0 with window: all of them */
};

/* The optimizer recipe a shape trains with in recipe p (ADAMW_BF16 is ADAMW under FP32). */
enum net_optim net_optim_of(const struct net_shape *s, enum net_prec p);

/* Why a shape cannot be built (heads do not divide hidden...): NULL when it can. */
const char *net_shape_problem(const struct net_shape *s);
/* The first architecture option that is not GPT-2's ("a SwiGLU MLP", ...): what a training
 * backend names when it refuses a shape; NULL for GPT-2. */
const char *net_shape_extension(const struct net_shape *s);
int net_kv_heads(const struct net_shape *s);     /* k */
int net_ffn(const struct net_shape *s);          /* f */
int net_head_dim(const struct net_shape *s);     /* d: head_dim, or hidden / heads */
int net_q_width(const struct net_shape *s);      /* heads x d: the query (and attention output) width */

enum net_phase { NET_FWD = 0, NET_BWD, NET_RECOMPUTE, NET_UPDATE, NET_NPHASES };
extern const char *const net_phase_names[NET_NPHASES];

enum net_kind {
    NET_OP_ZERO_GRAD = 0, NET_OP_EMBED, NET_OP_LAYERNORM, NET_OP_QUANTIZE, NET_OP_MATMUL,
    NET_OP_ATTENTION, NET_OP_RESIDUAL, NET_OP_GELU, NET_OP_XENT, NET_OP_XENT_BWD,
    NET_OP_CAST_GRAD, NET_OP_MATMUL_DGRAD, NET_OP_MATMUL_WGRAD, NET_OP_GELU_BWD,
    NET_OP_ATTENTION_BWD, NET_OP_LAYERNORM_BWD, NET_OP_EMBED_BWD, NET_OP_GRAD_NORM,
    NET_OP_ADAMW, NET_OP_QUANTIZE_WEIGHTS,
    NET_OP_RMSNORM, NET_OP_RMSNORM_BWD, NET_OP_SWIGLU, NET_OP_SWIGLU_BWD, NET_OP_ROPE,
    NET_OP_ROPE_BWD, NET_OP_FLASH_ATTENTION, NET_OP_FLASH_ATTENTION_BWD,
    NET_OP_LORA_A, NET_OP_LORA_B, NET_OP_LORA_B_DGRAD, NET_OP_LORA_A_DGRAD,
    NET_OP_LORA_B_WGRAD, NET_OP_LORA_A_WGRAD, NET_OP_DEQUANTIZE, NET_NKINDS
};

struct net_kind_info {
    const char *name;           /* "matmul_dgrad" */
    enum net_class cls;
    const char *what;           /* one line: what it computes and how its cost is counted */
};
extern const struct net_kind_info net_kinds[NET_NKINDS];

/* The matmuls of the model: Y[T, out] = X[T, in] W[out, in]^T (+ bias). */
enum net_linear { NET_LIN_QKV = 0, NET_LIN_ATTPROJ, NET_LIN_FC, NET_LIN_FCPROJ,
                    NET_LIN_LMHEAD, NET_NLINEARS };
extern const char *const net_linear_names[NET_NLINEARS];
enum net_norm { NET_LN1 = 0, NET_LN2, NET_LNF, NET_NNORMS };
extern const char *const net_norm_names[NET_NNORMS];

struct net_op {
    enum net_kind kind;
    enum net_phase phase;
    int layer;                  /* block 0..L-1; -1 outside the blocks */
    int micro;                  /* micro-batch 0..G-1; -1 in the update */
    int which;                  /* matmuls (LoRA's too), casts, quantize, dequantize: enum
                                   net_linear; norms: enum net_norm; residual: 0 after
                                   attention, 1 after the MLP */
    double m, n, k;             /* matmuls: Y[m,n] = X[m,k] W[n,k]^T; others: rows x columns
                                   of the tensor that sets the cost, k = 1 */
    enum net_dtype dtype;     /* of the inputs that set the cost */
    enum net_dtype dtype_out;
    double flops;               /* closed form (net_kinds[].what says how) */
    double bytes_read;          /* each tensor the op names, once, at its dtype */
    double bytes_written;
};

/* Fills ops (up to cap; ops may be NULL) with one optimizer step in execution order; returns
 * how many ops the step has. */
int net_plan(const struct net_shape *s, enum net_prec p, struct net_op *ops, int cap);
/* The step's ops in a new array (free() it), their count in *n. */
struct net_op *net_plan_new(const struct net_shape *s, enum net_prec p, int *n);

/* "matmul_dgrad fcproj, block 3, micro-batch 0" */
char *net_op_label(const struct net_op *op, char *buf, size_t n);

/* ---- parameters: one flat FP32 array; per-block tensors repeat L times ---- */

enum net_param {
    NET_P_WTE = 0, NET_P_WPE,                                       /* [V,h], [s,h] */
    NET_P_LN1W, NET_P_LN1B, NET_P_QKVW, NET_P_QKVB, NET_P_ATTPROJW, NET_P_ATTPROJB,
    NET_P_LN2W, NET_P_LN2B, NET_P_FCW, NET_P_FCB, NET_P_FCPROJW, NET_P_FCPROJB,
    NET_P_LNFW, NET_P_LNFB, NET_P_LMHEAD,                         /* [h], [h], [V,h] */
    NET_NPARAMS
};

struct net_param_info {
    const char *name;           /* "fcw" */
    int per_block;              /* repeated for each of the L blocks */
    int decay;                  /* AdamW weight decay applies (matrices, not biases or norms) */
    int init;                   /* 0: zeros, 1: ones, 2: N(0, 0.02), 3: N(0, 0.02 / sqrt(2L)) */
};
extern const struct net_param_info net_params[NET_NPARAMS];

/* Rows x cols of one tensor (of one block); 0 x 0 for the LM head when tied. */
void net_param_dims(const struct net_shape *s, enum net_param p, size_t *rows, size_t *cols);
/* Offset of tensor p of block `layer` (0 for tensors outside the blocks) in the flat array. */
size_t net_param_offset(const struct net_shape *s, enum net_param p, int layer);
size_t net_param_count(const struct net_shape *s);     /* N, every element */
/* LoRA: adapter parameters, r (parts x in + out) per block linear, where q, k, v and SwiGLU's
 * gate and up are separate projections (parts 3 for qkv, 2 for fc), as PEFT adapts them. */
size_t net_lora_count(const struct net_shape *s);
size_t net_trainable_count(const struct net_shape *s);   /* LoRA's adapters, or N */

/* Weight and bias of a linear (bias NET_NPARAMS when it has none; the LM head's weight is
 * the token embedding when tied), and its in/out sizes. */
void net_linear_params(const struct net_shape *s, enum net_linear l, enum net_param *w,
                         enum net_param *b, size_t *in, size_t *out);
/* Low-precision weight copies (BF16, and E4M3 for the FP8 recipe) hold only the linears'
 * weights: the offset of linear l of block `layer` in them, and their total elements. */
size_t net_low_offset(const struct net_shape *s, enum net_linear l, int layer);
size_t net_low_count(const struct net_shape *s);
size_t net_fp8_count(const struct net_shape *s);         /* the blocks' four linears */

/* ---- activations and scratch ---- */

enum net_mem { NET_MEM_WEIGHTS = 0, NET_MEM_LOW, NET_MEM_GRADS, NET_MEM_OPTIMIZER,
                 NET_MEM_ACTIVATIONS, NET_MEM_SCRATCH, NET_NMEM };
extern const char *const net_mem_names[NET_NMEM];

enum net_act {
    NET_A_TOKENS = 0, NET_A_TARGETS,                    /* [T] int32 each */
    NET_A_RES,            /* [T,h] residual stream entering block l; L+1 copies (checkpoints) */
    NET_A_LN1, NET_A_LN1_STATS, NET_A_QKV, NET_A_ATT, NET_A_ATTY, NET_A_RES2,
    NET_A_LN2, NET_A_LN2_STATS, NET_A_FC, NET_A_GELU,   /* one copy per block */
    NET_A_LNF, NET_A_LNF_STATS, NET_A_LOGITS, NET_A_LOSSES,
    NET_A_DRES, NET_A_DLN, NET_A_DATTY, NET_A_DQKV, NET_A_DFC,  /* backward, one each */
    NET_A_DLOW,           /* BF16 copy of the gradient a matmul's backward reads */
    NET_A_XQ,             /* FP8: E4M3 copy of a forward matmul's input */
    NET_A_WIDEN_X, NET_A_WIDEN_W,   /* CPU BF16: operands widened to FP32 for cblas_sgemm */
    NET_A_HEADS,          /* GPU: q, k, v, y permuted to [B, a, s, d] (4 x T x h) */
    NET_A_DHEADS,         /* GPU: their gradients in the same layout */
    NET_A_DATT,           /* GPU: gradient of the attention scores [B, a, s, s] */
    NET_A_GEMM_WS,        /* GPU: cuBLASLt workspace */
    NET_A_LORA_U,         /* LoRA: X A^T of the block's linears, [T, parts r] each */
    NET_A_DLORA_U,        /* LoRA: its gradient for one linear */
    NET_A_DEQUANT,        /* 4-bit base: one block linear's weight dequantized to BF16 */
    NET_NACTS
};

enum net_impl { NET_IMPL_CPU = 1, NET_IMPL_GPU = 2 };

/* The activations a linear names: its input (a BF16 tensor in the BF16 and FP8 recipes), its
 * output (for the blocks' MLP projection: NET_A_RES of the next block), the gradient of
 * its output (FP32) and the gradient of its input its dgrad writes. */
struct net_linear_io {
    enum net_act x, y, dy, dx;
};
void net_linear_io(enum net_linear l, struct net_linear_io *io);

struct net_act_info {
    const char *name;
    enum net_mem mem;         /* activations (saved for backward) or scratch */
    int per_block;              /* one copy per block, or one in all when checkpointing */
    unsigned impl;              /* NET_IMPL_* bits of the backends that hold it */
};
extern const struct net_act_info net_acts[NET_NACTS];

struct net_tensor {
    double elems;               /* per copy; 0 when this recipe and backend do not hold it */
    int copies;
    enum net_dtype dtype;
};
void net_act_tensor(const struct net_shape *s, enum net_prec p, enum net_impl impl,
                      enum net_act a, struct net_tensor *t);

/* Every byte a training run of this shape holds, by category. */
struct net_memory {
    double bytes[NET_NMEM];   /* LoRA: weights = the frozen base at its dtypes + the adapters'
                                   FP32 master; gradients and optimizer: the adapters' */
    double total;
    double params;              /* N */
    double trainable;           /* parameters the optimizer updates: N, or LoRA's adapters */
    double frozen;              /* LoRA: bytes of the frozen base weights (in weights) */
    double frozen_linears;      /* LoRA: of those, the blocks' linears (at base_dtype) */
};
void net_memory(const struct net_shape *s, enum net_prec p, enum net_impl impl,
                  struct net_memory *m);

/* ---- closed forms the plan is checked against ---- */

/* Narayanan et al. 2021 (Megatron-LM), FLOPs of the matmuls (attention products included) of
 * one step of B = batch x accum sequences: 72 B s L h^2 (1 + s/6h + V/12Lh) without
 * recomputation, 96 B s L h^2 (1 + s/6h + V/16Lh) with full recomputation; with s->causal the
 * attention term s/6h counts the causal half, (s + 1)/12h. */
double net_megatron_flops(const struct net_shape *s, int recompute);

/* The one FLOP convention of model FLOPs and MFU, for the CPU and GPU trainers and the
 * projections alike (every shape they run or project is causal). */
#define NET_FLOP_CONVENTION "model FLOPs (MFU's numerator) are the matmul and attention FLOPs of forward and " \
    "backward without recomputation: matmuls 2mnk (biases not counted); attention the causal half, the s (s + 1) / 2 " \
    "scores on and below the diagonal that a causal decoder computes (forward 2 B s (s + 1) h, backward twice that), " \
    "for the trainers on this machine and the projections alike; equal to 72 B s L h^2 (1 + (s + 1)/12h + V/12Lh) " \
    "(Narayanan et al. 2021, whose s/6h counts the full s x s products), tied head or not"

#endif
