/* workloads.h: the reference training workloads the model projects onto each system: the
 * published architecture of each model, the precision and batch it is trained with, and how
 * many tokens, with the basis of each figure. Timing them is the projection's business. */
#ifndef SR_PREDICT_WORKLOADS_H
#define SR_PREDICT_WORKLOADS_H

#include "net/plan.h"

struct predict_workload {
    const char *id;             /* "llama-3.1-8b-lora" */
    const char *name;           /* "Llama-3.1 8B LoRA fine-tune (rank 16)" */
    const char *kind;           /* "pretrain", "full fine-tune", "LoRA", "QLoRA" */
    struct net_shape shape;   /* batch = micro-batch (sequences), accum = micro-batches per
                                   step: global batch = batch x accum sequences of seq tokens
                                   over all gpus; amp, causal, fused_loss and optimizer: how the
                                   run is done */
    enum net_prec prec;
    double tokens;              /* tokens to train */
    const char *basis;          /* why these tokens and this batch */
    const char *source;         /* where the architecture comes from */
    int gpus;                   /* data-parallel GPUs of the run (llm.c's published runs: 8; a
                                   fine-tune: 1); the global batch is split over them */
    const char *stack;          /* the software stack it is run with: "fused-cuda" (llm.c), "pytorch"
                                   (PyTorch with FSDP), "megatron-te" (NeMo / Megatron-Core with Transformer
                                   Engine), "hf-peft" (Hugging Face Trainer and PEFT); the profile reads it */
    /* how the scenario's own job is run (all zero for the reference workloads: as above) */
    int nodes;                  /* > 0: a job of gpus x nodes devices on every catalog system, Sparks
                                   included (one GPU per node), over data/fabric.csv's links */
    int zero;                   /* ZeRO stage + 1 (1: DDP, 2-4: ZeRO-1 to ZeRO-3/FSDP); 0: the lowest
                                   stage that fits */
    int ckpt;                   /* enum predict_ckpt */
    int fp4;                    /* the FP8 recipe's plan with the blocks' FP8 GEMMs at the FP4 (NVFP4)
                                   peak, on a part that has one */
    double fill;                /* without sequence packing: the share of a sequence's positions that hold
                                   tokens (hours divided by it); 0: packed (every position a token) */
    int micro;                  /* the job's micro-batch per device (a trainer's per_device_train_batch_size),
                                   kept by the fit; 0: the fit chooses the largest that fits */
    double sample_tokens;       /* without packing: the mean tokens of a training sample (each micro-batch
                                   padded as `padding` says); 0: every sample fills the sequence */
    int padding;                /* enum predict_padding */
    int attention;              /* enum predict_attention */
    int loss;                   /* enum predict_loss */
    int optimizer_auto;         /* the optimizer recipe is the stack's (shape.optimizer set from it) */
    /* calibrated on the team's own measured rate (sr.measured): every system's time divided by speed, the
       measured system's band the measurement's spread */
    double speed;               /* measured rate over the projected one on calibrated_on; 0: not calibrated */
    const char *calibrated_on;  /* the catalog system the rate was measured on */
    double calibrated_rate, calibrated_spread;  /* tokens/s per GPU measured there, and how well known */
    const char *calibrated_source, *calibrated_from;    /* whose run, and how the rate was had */
    int tp;                     /* tensor parallelism with sequence parallelism over the node's link
                                   (Megatron): 0 or 1: none */
    const char *tokens_basis;   /* what the tokens are: "published" (a published run's, the default),
                                   "assumed" (this tool's round figure for every fine-tune), "scenario" */
};

/* Activation checkpointing: as the stack runs it by default, the fit adding it when memory needs it
 * (auto), never (none), always (full). */
enum predict_ckpt { PREDICT_CKPT_AUTO = 0, PREDICT_CKPT_NONE, PREDICT_CKPT_FULL };
/* Samples that are not packed: each micro-batch padded to its longest sample (the Hugging Face
 * collators' default, "longest"; auto), or every sample padded to the sequence length (max_length). */
enum predict_padding { PREDICT_PAD_AUTO = 0, PREDICT_PAD_LONGEST, PREDICT_PAD_MAX_LENGTH };
/* The attention kernel: the stack's (auto), a fused FlashAttention-class kernel (flash: FlashAttention 2
 * or 3, or PyTorch's scaled_dot_product_attention, which dispatches to a fused flash or cuDNN kernel), or
 * eager attention (the s x s scores written to memory and read back by the softmax and its backward). */
enum predict_attention { PREDICT_ATT_AUTO = 0, PREDICT_ATT_FLASH, PREDICT_ATT_SDPA, PREDICT_ATT_EAGER };
/* The loss: the stack's (auto), unfused (the [tokens, vocabulary] logits written, read by the
 * cross-entropy and its backward), or fused / chunked with the LM head (Liger's fused linear
 * cross-entropy, torchtune's chunked loss, Unsloth's, Cut Cross-Entropy: no logits in memory). */
enum predict_loss { PREDICT_LOSS_AUTO = 0, PREDICT_LOSS_UNFUSED, PREDICT_LOSS_FUSED };

extern const struct predict_workload predict_workloads[];
extern const int predict_nworkloads;

/* The workload with this id, or NULL. */
const struct predict_workload *predict_workload_find(const char *id);

#endif
