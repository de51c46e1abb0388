/* workloads.c: the reference workloads as a table. Architectures are the published configs;
 * token counts, batches and GPU counts are llm.c's GPT-2 runs for pre-training and one round
 * figure for every fine-tune (on one GPU), so that rows compare. Every run is mixed precision as
 * people run it (BF16 activations; FP32 master weights unless its optimizer recipe keeps none)
 * with causal attention. Nothing here is measured. */
#include "predict/workloads.h"

#include <string.h>

/* llm.c (karpathy/llm.c train_gpt2.cu): BF16 activations and weights, FP32 master weights and
 * AdamW moments, and a fused classifier (softmax, loss and dlogits in one kernel that writes the
 * dlogits over the BF16 logits): the logits are still held, so fused_loss is 0 and the AMP
 * cross-entropy ops count that kernel. llm.c keeps gradients in BF16 where the AdamW recipe
 * counts FP32: 2 B per parameter more here. */
#define GPT2(L, h, a, B, G) { .layers = L, .hidden = h, .heads = a, .seq = 1024, .vocab = 50257, \
    .batch = B, .accum = G, .tied = 1, .attention = NET_ATT_FLASH, .amp = 1, .causal = 1, \
    .optimizer = NET_OPT_ADAMW }
/* PyTorch fine-tunes (torchtune, or the Hugging Face Trainer): autocast BF16 with FP32 master
 * weights (or the recipe's), FlashAttention, the loss not fused with the head; full fine-tunes timed
 * with the PyTorch profile (FSDP), LoRA and QLoRA with the Hugging Face Trainer and PEFT one, the
 * stack people run them on (QLoRA's NF4 base is bitsandbytes', which PEFT drives) */
#define LLAMA(L, h, a, f, tie, B, G, r, base, opt) { .layers = L, .hidden = h, .heads = a, .seq = 4096, \
    .vocab = 128256, .batch = B, .accum = G, .tied = tie, .kv_heads = 8, .ffn = f, .mlp = NET_MLP_SWIGLU, \
    .norm = NET_NORM_RMS, .nobias = 1, .rope = 1, .attention = NET_ATT_FLASH, .lora_rank = r, \
    .base_dtype = base, .amp = 1, .causal = 1, .optimizer = opt }

#define LLMC "llm.c (karpathy/llm.c, scripts/run_gpt2_"
#define FT_BASIS "100M tokens: one round figure for every fine-tune so that rows compare (about 24k " \
    "sequences of 4096 tokens, e.g. two epochs over 12k long conversations); time scales linearly " \
    "with tokens. Global batch 32 sequences of 4096 (131,072 tokens per step); the micro-batch is a " \
    "starting point that the fit may lower, accumulation keeping the global batch"
#define GPT2_SRC "GPT-2 config (Radford et al. 2019; Hugging Face openai-community/gpt2*: vocab 50,257, " \
    "context 1024, tied head, learned positions, LayerNorm, GELU MLP 4h, biases); attention fused as " \
    "llm.c builds it (USE_CUDNN=1)"
#define LLAMA_SRC(m) "meta-llama/" m " config.json (Hugging Face): "

const struct predict_workload predict_workloads[] = {
    { "gpt2-124m", "GPT-2 124M pre-training", "pretrain", GPT2(12, 768, 12, 64, 8), NET_BF16,
      18865.0 * 524288,
      LLMC "124M.sh): 18,865 steps of 524,288 tokens (about 10B tokens of FineWeb), micro-batch 64 "
      "of 1024 on each of 8 GPUs", GPT2_SRC, 8, .stack = "fused-cuda" },
    { "gpt2-355m", "GPT-2 355M pre-training", "pretrain", GPT2(24, 1024, 16, 64, 8), NET_BF16,
      60000.0 * 524288,
      LLMC "350M.sh): 60,000 steps of 524,288 tokens (about 31.5B tokens of FineWeb), micro-batch 64 "
      "on each of 8 GPUs", GPT2_SRC " (gpt2-medium: 24 layers, 1024 hidden, 16 heads)", 8, .stack = "fused-cuda" },
    { "gpt2-774m", "GPT-2 774M pre-training", "pretrain", GPT2(36, 1280, 20, 32, 16), NET_BF16,
      286102.0 * 524288,
      LLMC "774M.sh): 286,102 steps of 524,288 tokens (about 150B tokens of FineWeb), micro-batch 32; "
      "accumulation 2 on each of 8 GPUs", GPT2_SRC " (gpt2-large: 36 layers, 1280 hidden, 20 heads)", 8,
      .stack = "fused-cuda" },
    { "gpt2-1.5b", "GPT-2 1.5B pre-training", "pretrain", GPT2(48, 1600, 25, 16, 64), NET_BF16,
      32000.0 * 1048576,
      LLMC "1558M.sh): 32,000 steps of 1,048,576 tokens (about 33.6B tokens of FineWeb-EDU), "
      "micro-batch 16, accumulation 8 on each of 8 GPUs", GPT2_SRC " (gpt2-xl: 48 layers, 1600 hidden, 25 heads)", 8,
      .stack = "fused-cuda" },
    { "llama-3.2-1b", "Llama-3.2 1B full fine-tune", "full fine-tune",
      LLAMA(16, 2048, 32, 8192, 1, 4, 8, 0, 0, NET_OPT_ADAMW), NET_BF16, 1e8, FT_BASIS,
      LLAMA_SRC("Llama-3.2-1B") "16 layers, hidden 2048, 32 heads, 8 KV heads, SwiGLU 8192, vocab 128,256, "
      "tied embeddings, RMSNorm, RoPE, no biases", 1, .stack = "pytorch", .tokens_basis = "assumed" },
    { "llama-3.2-3b", "Llama-3.2 3B full fine-tune", "full fine-tune",
      LLAMA(28, 3072, 24, 8192, 1, 4, 8, 0, 0, NET_OPT_ADAMW), NET_BF16, 1e8, FT_BASIS,
      LLAMA_SRC("Llama-3.2-3B") "28 layers, hidden 3072, 24 heads, 8 KV heads, SwiGLU 8192, vocab 128,256, "
      "tied embeddings, RMSNorm, RoPE, no biases", 1, .stack = "pytorch", .tokens_basis = "assumed" },
    { "llama-3.1-8b", "Llama-3.1 8B full fine-tune", "full fine-tune",
      LLAMA(32, 4096, 32, 14336, 0, 2, 16, 0, 0, NET_OPT_ADAMW), NET_BF16, 1e8, FT_BASIS,
      LLAMA_SRC("Llama-3.1-8B") "32 layers, hidden 4096, 32 heads, 8 KV heads, SwiGLU 14,336, vocab 128,256, "
      "untied head, RMSNorm, RoPE, no biases", 1, .stack = "pytorch", .tokens_basis = "assumed" },
    { "llama-3.1-8b-adam8", "Llama-3.1 8B full fine-tune, 8-bit Adam", "full fine-tune",
      LLAMA(32, 4096, 32, 14336, 0, 2, 16, 0, 0, NET_OPT_ADAM8), NET_BF16, 1e8,
      FT_BASIS "; 8-bit Adam (Dettmers et al. 2022, bitsandbytes AdamW8bit): FP32 master weights and "
      "gradients, both moments in 8 bits with an FP32 scale per 2048 (about 12 B per parameter with the "
      "BF16 copy, against 18 for FP32 AdamW)",
      LLAMA_SRC("Llama-3.1-8B") "as the full fine-tune", 1, .stack = "pytorch", .tokens_basis = "assumed" },
    { "llama-3.1-8b-bf16adam", "Llama-3.1 8B full fine-tune, BF16 AdamW", "full fine-tune",
      LLAMA(32, 4096, 32, 14336, 0, 2, 16, 0, 0, NET_OPT_ADAMW_BF16), NET_BF16, 1e8,
      FT_BASIS "; AdamW in pure BF16 (the model loaded in BF16: weights, gradients and both moments "
      "BF16, no FP32 master: 8 B per parameter)",
      LLAMA_SRC("Llama-3.1-8B") "as the full fine-tune", 1, .stack = "pytorch", .tokens_basis = "assumed" },
    { "llama-3.1-8b-lora", "Llama-3.1 8B LoRA fine-tune (rank 16)", "LoRA",
      LLAMA(32, 4096, 32, 14336, 0, 4, 8, 16, 0, NET_OPT_ADAMW), NET_BF16, 1e8,
      FT_BASIS "; LoRA rank 16 on q, k, v, o, gate, up and down (PEFT's all-linear target: 41.9M "
      "trainable parameters), BF16 base",
      LLAMA_SRC("Llama-3.1-8B") "as the full fine-tune", 1, .stack = "hf-trainer", .tokens_basis = "assumed" },
    { "llama-3.1-8b-qlora", "Llama-3.1 8B QLoRA fine-tune (rank 16, NF4)", "QLoRA",
      LLAMA(32, 4096, 32, 14336, 0, 4, 8, 16, NET_DT_NF4, NET_OPT_ADAMW), NET_BF16, 1e8,
      FT_BASIS "; the LoRA fine-tune with its frozen base weights in NF4 (QLoRA, Dettmers et al. 2023: "
      "4.127 bits per weight), to set beside the BF16-base LoRA: 4-bit weights on one system against "
      "BF16 on another",
      LLAMA_SRC("Llama-3.1-8B") "as the full fine-tune", 1, .stack = "hf-trainer", .tokens_basis = "assumed" },
    { "llama-3.3-70b-qlora", "Llama-3.3 70B QLoRA fine-tune (rank 16, NF4)", "QLoRA",
      LLAMA(80, 8192, 64, 28672, 0, 1, 32, 16, NET_DT_NF4, NET_OPT_ADAMW), NET_BF16, 1e8,
      FT_BASIS "; QLoRA (Dettmers et al. 2023): NF4 base with double-quantized scales (4.127 bits per "
      "weight) on the blocks' linears, embedding and head BF16, LoRA rank 16 on every block linear",
      LLAMA_SRC("Llama-3.3-70B-Instruct") "80 layers, hidden 8192, 64 heads, 8 KV heads, SwiGLU 28,672, "
      "vocab 128,256, untied head, RMSNorm, RoPE, no biases", 1, .stack = "hf-trainer", .tokens_basis = "assumed" },
};
const int predict_nworkloads = (int)(sizeof predict_workloads / sizeof predict_workloads[0]);

const struct predict_workload *predict_workload_find(const char *id)
{
    for (int i = 0; id && i < predict_nworkloads; i++)
        if (strcmp(predict_workloads[i].id, id) == 0)
            return &predict_workloads[i];
    return NULL;
}
