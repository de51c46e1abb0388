/* stack.c: the GPU software-stack profiles (efficiency per op class against size), their fit on
 * the published runs of data/gpu-runs.csv by least squares in log(predicted / published), and
 * the leave-one-out check that tells how far a profile can be trusted on a run it never saw. */
#include "predict/stack.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"

const char *const predict_gen_names[PREDICT_NGENS] = { "ampere", "hopper", "blackwell", "gb10" };

const char *const predict_stack_param_names[PREDICT_NSTACKP] = {
    "matmul_eta_ampere", "matmul_eta_hopper", "matmul_eta_blackwell", "matmul_eta_gb10", "matmul_half_tiles_per_sm",
    "attention_eta_ampere", "attention_eta_hopper", "attention_eta_blackwell", "attention_eta_gb10", "memory_eta",
    "op_s", "micro_s" };

/* Start of every fit and the bounds the parameters are held in: efficiencies at most 1; a matmul
 * reaches half its large-GEMM efficiency at most at 18 tile products per SM, the size that takes
 * an H100 10 us at its peak (Calculon's A100 and H100 tables, research note 4.1: 1 GFLOP at 0.60
 * and 16 GFLOP at 0.90 against 0.95 put that size near 1 us; ten times it is the bound: 9.9 GFLOP,
 * 2,360 tile products over 132 SMs), so that the size term cannot stand in for a framework's per-op
 * costs; attention at most 0.75 of the dense BF16 peak, the best a published attention kernel
 * reaches (FlashAttention-3, Shah et al. 2024: 740 TFLOP/s of the H100's 989); the per-micro-batch
 * cost at most 1 s. */
#define ATT_ETA_MAX 0.75
#define MM_HALF_MAX 18.0
static const double p_start[PREDICT_NSTACKP] = { 0.7, 0.7, 0.7, 0.7, 0.5, 0.5, 0.5, 0.5, 0.5, 0.7, 1e-5, 1e-2 };
static const double p_min[PREDICT_NSTACKP] = { 0.05, 0.05, 0.05, 0.05, 1e-3, 0.05, 0.05, 0.05, 0.05, 0.05, 1e-7, 1e-6 };
static const double p_max[PREDICT_NSTACKP] = { 1, 1, 1, 1, MM_HALF_MAX, ATT_ETA_MAX, ATT_ETA_MAX, ATT_ETA_MAX,
                                               ATT_ETA_MAX, 1, 1e-4, 1 };

/* A catalog system's GPU is its row's (data/systems.csv: generation, sms and span, with their sources in
 * gpu_source), as sparkreport.catalog types them; nothing here knows a system by its id. */
void predict_stack_row_gpu(const cJSON *row, int *gen, int *span, double *sms)
{
    const cJSON *g = cJSON_GetObjectItemCaseSensitive(row, "generation");
    const cJSON *n = cJSON_GetObjectItemCaseSensitive(row, "sms");
    *gen = -1;
    for (int i = 0; cJSON_IsString(g) && i < PREDICT_NGENS; i++)
        *gen = strcmp(g->valuestring, predict_gen_names[i]) == 0 ? i : *gen;
    *span = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(row, "span"));
    *sms = cJSON_IsNumber(n) && n->valuedouble > 0 ? n->valuedouble : 0;
}

/* A generation's attention efficiency measured and published, which every profile takes on it
 * (fitted with fewer than 4 runs of it, or borrowed) instead of another generation's ratio:
 * the attention kernels are a library's (FlashAttention 2, built for sm_121), not the framework's.
 * GB10's run at about 55 TFLOP/s of its 125 (N8python/spark-gpt CHANGES.md at 0d80ecd: flash-attn's
 * main kernels "~55 TFLOP/s", its Triton replacement as fast in the forward), where Hopper's
 * FlashAttention 2 reaches a fifth of its peak: GB10's tensor cores are slow beside its other
 * units, so attention loses less of their time to softmax and masking. */
static const double att_measured[PREDICT_NGENS] = { [PREDICT_GB10] = 55.0 / 125 };

/* Kernel launch gap of a stack that launches its own kernels back to back on one stream (the
 * research note's 2-6 us, central). */
#define FUSED_OP_S 4e-6
/* DRAM efficiency of kernels written to stream at bandwidth: cuBLAS and FlashAttention reading
 * their operands, a fused stack's own elementwise kernels (research note 4.5: "a DRAM-level eta_m
 * of about 0.8-0.9 on HBM parts"; large copies reach 88-94 % of the HBM roof). The fitted
 * memory_eta is what a framework's elementwise ops reach, its extra passes included. */
#define STREAM_ETA 0.85
/* DRAM efficiency of QLoRA's NF4 dequantization (bitsandbytes' kernel writing each frozen weight
 * out in BF16 before its matmul, forward and backward): LitGPT's resource tables (tutorials/resource-
 * tables.md at 4839345, A100 40GB at 1,555 GB/s, bitsandbytes 0.41.1, micro-batch 1) time LoRA and
 * QLoRA (bnb.nf4) on the same Alpaca iterations: QLoRA adds 79 ms per iteration to Llama 2 7B and
 * 191 ms to 13B, for 32.6 and 63.9 GB of dequantization traffic (4.127 bits read and 16 written per
 * weight, twice): 0.27 and 0.21 of the bandwidth; their mean. The same tables' StableLM 3B and
 * phi-1.5 pairs check it (test_predict_stack). */
#define DEQUANT_ETA 0.24
/* Share of a micro-batch's time its backward takes (two of its three matmul passes): what the
 * step's gradient collective can hide behind. */
#define BWD_SHARE (2.0 / 3.0)

static struct predict_stack stacks[] = {
    { .id = "pytorch", .short_name = "PyTorch FSDP", .name = "PyTorch with FSDP (MosaicML llm-foundry, Composer, FlashAttention)",
      .defaults = "activation checkpointing where memory needs it; FlashAttention; the loss unfused; FP32 master "
                  "weights and AdamW moments (FSDP's mixed precision)",
      .fitted_on = "pytorch", .era = "2023-24: eager PyTorch 2.x under autocast, FSDP1, FlashAttention 2 "
      "(llm-foundry's published tables of April 2024)",
      .basis = "fitted on MosaicML llm-foundry's published throughput tables (A100 80GB and H100 80GB, BF16): "
               "PyTorch eager kernels under autocast, FlashAttention, FSDP; their per-layer all-gathers and "
               "reduce-scatters modelled as traffic over the node's link (data/fabric.csv), not as a per-op cost" },
    { .id = "fused-cuda", .short_name = "llm.c", .name = "fused CUDA training code (llm.c)", .fitted_on = "pytorch",
      .era = "2024: llm.c's GPT-2 reproductions (cuBLASLt, cuDNN attention), on the PyTorch profile's efficiencies",
      .fused = { [NET_OP_RESIDUAL] = 1, [NET_OP_CAST_GRAD] = 1, [NET_OP_QUANTIZE] = 1 },
      .defaults = "activation checkpointing where memory needs it; cuDNN's fused attention; its fused classifier (the "
                  "logits held); FP32 master weights and AdamW moments",
      .op_s_override = FUSED_OP_S, .mem_eta_override = STREAM_ETA, .compiled = 1,
      .basis = "the PyTorch profile's matmul and attention efficiencies (the same cuBLAS and "
               "FlashAttention-class kernels) with llm.c's fusions (karpathy/llm.c train_gpt2.cu: the residual "
               "add fused into the next layernorm, BF16 outputs written by the kernels that produce them, "
               "softmax, loss and its gradient in one classifier kernel), one kernel launch (4 us) per op "
               "instead of the framework's fitted per-op cost, and its own elementwise kernels streaming at "
               "0.85 of the bandwidth (an assumption: the middle of the 0.8-0.9 a streaming kernel reaches on "
               "HBM parts) instead of PyTorch's fitted share" },
    { .id = "megatron-te", .short_name = "Megatron + Transformer Engine", .name = "Megatron-Core with Transformer Engine (NVIDIA NeMo, Megatron-Bridge)",
      .defaults = "activation checkpointing where memory needs it; Transformer Engine's fused attention; the loss "
                  "unfused; FP32 master weights and moments in the distributed optimizer",
      .fitted_on = "megatron-te", .fp8_backward = 1, .compiled = 1,
      .era = "2024-25: NeMo 24.07 and Megatron-Bridge 25.11 containers, Transformer Engine FP8",
      .fused = { [NET_OP_RESIDUAL] = 1, [NET_OP_CAST_GRAD] = 1, [NET_OP_QUANTIZE] = 1 },
      .basis = "fitted on NVIDIA's published NeMo and Megatron-Bridge throughput tables (pre-training, SFT and LoRA "
               "rows without tensor or pipeline parallelism: H100, B200, GB200; FP8 with current scaling): "
               "Transformer Engine's FP8 GEMMs in forward and backward, its fused norm-and-cast and bias-dropout-"
               "add kernels, the distributed optimizer; the BF16 recipe on this stack takes the same efficiencies "
               "on the BF16 peak (no BF16 rows without model parallelism are published)" },
    { .id = "hf-peft", .short_name = "Hugging Face + PEFT", .name = "Hugging Face Trainer with PEFT on one GPU (eager PyTorch, FlashAttention 2)",
      .defaults = "activation checkpointing where memory needs it (the Trainer's default of 2023 is off); "
                  "FlashAttention 2; the loss unfused; FP32 master weights and AdamW moments",
      .fitted_on = "hf-peft", .compute_from = "pytorch", .per_micro = 1,
      .era = "2023: PyTorch 2.0, CUDA 11.8, FlashAttention 2, Hugging Face Trainer (the Qwen README of 2023-10)",
      .basis = "fitted on single-GPU LoRA fine-tuning throughput published by the Qwen team (QwenLM/Qwen README, "
               "A100 80GB: Hugging Face Trainer, PEFT LoRA on every block linear, gradient checkpointing, "
               "FlashAttention 2, BF16), sequences of 256 to 8192 tokens: the PyTorch profile's matmul and "
               "attention efficiencies (the same cuBLAS and FlashAttention-2 kernels), its own memory efficiency "
               "and per-op cost (eager PyTorch dispatching each op from Python: short ops are bound by the host), "
               "and a cost per micro-batch nothing hides (the Trainer waits on the GPU every micro-batch: its loss "
               "check and bookkeeping)" },
    { .id = "pytorch-compile", .short_name = "PyTorch + torch.compile", .name = "PyTorch with torch.compile (torchtitan, FSDP2, torchao Float8; Triton kernels)",
      .defaults = "activation checkpointing where memory needs it; fused attention; the loss unfused; FP32 master "
                  "weights and AdamW moments (FSDP2's mixed precision)",
      .fitted_on = "pytorch-compile", .fp8_backward = 1, .compiled = 1,
      .fused = { [NET_OP_RESIDUAL] = 1, [NET_OP_CAST_GRAD] = 1 },
      .era = "2024-26: PyTorch 2.6-2.12 with torch.compile, FSDP2, torchao Float8 (torchtitan's tables of "
      "2024-12) and torch.compile with Triton kernels on a GB10 (N8python/spark-gpt, 2026-10)",
      .basis = "fitted on current published runs: torchtitan's Llama 3.1 8B tables on 8 and 128 H100s (torch.compile "
               "and torch.compile with torchao Float8, whose dynamic scaling runs forward, dgrad and wgrad GEMMs in "
               "FP8) and N8python/spark-gpt's dense runs on one and two DGX Sparks (torch.compile, Triton GEMMs, "
               "varlen attention over packed documents): the compiler fuses each residual add and cast into its "
               "neighbour, its own matmul, attention and memory efficiencies; its GB10 efficiencies are the only "
               "ones fitted on a Spark" },
    { .id = "hf-trainer", .short_name = "Hugging Face Trainer", .name = "Hugging Face Trainer with PEFT or TRL, "
      "as of 2025-26 (eager PyTorch, SDPA attention)",
      .fitted_on = "hf-trainer", .compute_from = "pytorch-compile", .per_micro = 1, .ckpt_default = 1,
      .era = "2025-26: Transformers 4.5x, PEFT 0.17, TRL 0.19-0.26, PyTorch 2.8-2.13 in eager mode (NVIDIA's PyTorch "
      "containers 25.08-25.11 on the DGX Spark), SDPA attention",
      .defaults = "activation checkpointing on (TRL's SFTConfig defaults gradient_checkpointing to True since "
                  "huggingface/trl pull request 3510, 2025-08; LLaMA-Factory's disable_gradient_checkpointing defaults "
                  "to False); attention through PyTorch's SDPA (transformers' default without flash-attn, which had no "
                  "sm_121 build through 2025: Dao-AILab/flash-attention issue 1969); the loss unfused (Liger is off "
                  "unless use_liger_kernel); FP32 master weights and AdamW moments under BF16 autocast (TRL loads a "
                  "model in float32 unless told a dtype, LLaMA-Factory casts the trained parameters to FP32 unless "
                  "pure_bf16); samples one by one, each micro-batch padded to its longest",
      .basis = "fitted on current published Hugging Face Trainer runs: NVIDIA's LLaMA-Factory playbook on a DGX Spark "
               "(LoRA rank 8 on every linear of Llama-3 8B and of Qwen3-4B, micro-batch 1 of about 166 tokens, "
               "checkpointing, SDPA), a TRL LoRA run on one H100 (MakazhanAlpamys/Soup) and Hugging Face Trainer "
               "full fine-tunes on 8 A100s (linkedin/Liger-Kernel's baselines): the current profile's matmul and "
               "attention efficiencies (the same cuBLAS and fused attention kernels), its own memory efficiency "
               "(eager elementwise ops: each norm, activation, rotary embedding and LoRA scaling its own kernel), "
               "per-op cost (each op dispatched from Python: a micro-batch of a few hundred tokens is bound by the "
               "host, on a DGX Spark as on an HBM GPU) and per-micro-batch cost (the Trainer's loss check waits on "
               "the GPU every micro-batch)" },
};
#define NSTACKS ((int)(sizeof stacks / sizeof stacks[0]))

int predict_stack_fitted(const struct predict_stack *st)
{
    const struct predict_stack *from = st ? predict_stack_find(st->fitted_on) : NULL;
    return from && from->nfit > 0;
}

const struct predict_stack *predict_stack_find(const char *id)
{
    for (int i = 0; id && i < NSTACKS; i++)
        if (strcmp(stacks[i].id, id) == 0)
            return &stacks[i];
    return NULL;
}

enum net_dtype predict_stack_op_dtype(const struct predict_stack *st, enum net_prec p, const struct net_op *op)
{
    if (net_kinds[op->kind].cls == NET_ATTENTION)
        return p == NET_FP32 ? NET_DT_F32 : NET_DT_BF16;
    if (st && st->fp8_backward && p == NET_FP8 && op->which != NET_LIN_LMHEAD
        && (op->kind == NET_OP_MATMUL_DGRAD || op->kind == NET_OP_MATMUL_WGRAD))
        return NET_DT_E4M3;
    return op->dtype;
}

void predict_comm_bytes(int zero, int n, double weight_bytes, double grad_bytes, struct predict_comm *c)
{
    double f = n > 1 ? (double)(n - 1) / n : 0;
    c->micro = zero >= 3 ? f * (2 * weight_bytes + grad_bytes) : zero == 2 ? f * grad_bytes : 0;
    c->step = zero == 0 ? 2 * f * grad_bytes : zero == 1 ? f * (grad_bytes + weight_bytes)
              : zero == 2 ? f * weight_bytes : 0;
}

double predict_link_Bps(double domain, double scaleup_Bps, double nic_Bps, int n)
{
    if (n <= (domain > 1 ? domain : 1))
        return n > 1 ? scaleup_Bps : 0;
    double node = nic_Bps * (domain > 1 ? domain : 1);
    return scaleup_Bps > 0 && scaleup_Bps < node ? scaleup_Bps : node;
}

double predict_grad_bytes(enum net_prec p)
{
    return p == NET_FP32 ? 4 : 2;
}

double predict_dp_step_seconds(double micro_s, int accum, double update_s, const struct predict_comm *comm,
                            double link)
{
    double cm = link > 0 && comm ? comm->micro / link : 0, cs = link > 0 && comm ? comm->step / link : 0;
    return accum * fmax(micro_s, cm) + fmax(0, cs - BWD_SHARE * micro_s) + update_s;
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
        double x = op->flops / (PREDICT_TILE_FLOPS * t->sms);     /* tile products per SM */
        tc = op->flops / ((t->sustained ? 1 : p[PREDICT_MM_ETA + t->gen]) * x / (x + p[PREDICT_MM_HALF]) * t->peak);
    } else if (cls == NET_ATTENTION) {
        tc = op->flops / ((t->sustained ? 1 : p[PREDICT_ATT_ETA + t->gen]) * t->peak);
    }
    double mem_eta = op->kind == NET_OP_DEQUANTIZE ? DEQUANT_ETA : cls == NET_MATMUL || cls == NET_ATTENTION ? STREAM_ETA
                     : st->mem_eta_override > 0 ? st->mem_eta_override : p[PREDICT_MEM_ETA];
    tm = (op->bytes_read + op->bytes_written) / (mem_eta * t->bw);
    if (mem_bound)              /* its bytes, not its FLOPs or its fixed cost, take the most time */
        *mem_bound = tm > tc && tm > op_s;
    return fmax(fmax(tc, tm), op_s);
}

double predict_stack_micro_seconds(const struct predict_stack *st)
{
    return st && st->per_micro ? st->p[PREDICT_MICRO_S] : 0;
}

int predict_stack_gen_fitted(const struct predict_stack *st, int gen)
{
    return st && gen >= 0 && gen < PREDICT_NGENS && st->fitted_gen[gen];
}

double predict_stack_op_seconds(const struct predict_stack *st, const struct predict_target *t,
                                const struct net_op *op, int *mem_bound)
{
    return op_seconds(st, st->p, t, op, mem_bound);
}

double predict_stack_op_seconds_at(const struct predict_stack *st, const struct predict_target *t,
                                   const struct net_op *op, int e)
{
    double p[PREDICT_NSTACKP], s = t->gen >= 0 && t->gen < PREDICT_NGENS ? st->gen_spread[t->gen] : 1;
    memcpy(p, st->p, sizeof p);
    s = s >= 1 ? s : 1;
    for (int j = 0; e != 0 && t->gen >= 0 && j < 2; j++) {
        if (j && att_measured[t->gen] > 0)     /* a measured kernel rate, not a borrowed one */
            continue;
        int k = (j ? PREDICT_ATT_ETA : PREDICT_MM_ETA) + t->gen;
        p[k] = e < 0 ? fmin(j ? ATT_ETA_MAX : 1, p[k] * s) : p[k] / s;
    }
    return op_seconds(st, p, t, op, NULL);
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

/* The ZeRO stage of a sharding as gpu-runs.csv names it (PyTorch FSDP's strategies, ZeRO_n). */
static int zero_of(const char *sharding)
{
    static const struct { const char *name; int zero; } z[] = {
        { "NO_SHARD", 0 }, { "DDP", 0 }, { "ZERO_1", 1 }, { "SHARD_GRAD_OP", 2 }, { "ZERO_2", 2 },
        { "FULL_SHARD", 3 }, { "ZERO_3", 3 } };
    for (size_t i = 0; i < sizeof z / sizeof z[0]; i++)
        if (strcmp(z[i].name, sharding) == 0)
            return z[i].zero;
    return -1;
}

/* An optional column: its value, or dflt when the cell is empty. */
static double number_or(const cJSON *row, const char *name, double dflt)
{
    double x = number(row, name);
    return isnan(x) ? dflt : x;
}

double predict_padded_positions(double mean, int b, int seq)
{
    double longest = 0;
    for (int i = 1; i <= b; i++)
        longest += mean / i;
    return fmin(seq, longest);
}

/* A column that names one of a list ("sdpa" of "flash|sdpa|eager"): its index; an empty cell dflt, a
 * name not in the list -1. */
static int named_choice(const cJSON *row, const char *name, const char *const *names, int n, int dflt)
{
    const char *v = text(row, name);
    if (!v[0])
        return dflt;
    for (int i = 0; i < n; i++)
        if (strcmp(v, names[i]) == 0)
            return i;
    return -1;
}

static const char *const attention_names[] = { "eager", "flash", "sdpa" };      /* enum net_att, sdpa fused */
static const char *const loss_names[] = { "unfused", "fused" };
static const char *const target_names[] = { "all", "qv" };                      /* enum net_lora_targets */

/* The run's shape: the GPT layout of the llm-foundry and llm.c rows unless arch says "llama"
 * (SwiGLU, RMSNorm, RoPE, GQA with kv_heads, ffn wide; head_dim where the head size is not
 * hidden / heads; doc_tokens for packed documents attended one by one). As the stacks run it: BF16
 * activations, FlashAttention (attention: sdpa, a fused kernel too, or eager, the scores in memory),
 * causal, the loss unfused (loss: fused), AdamW with FP32 master weights and moments (optimizer);
 * checkpoint 1 full, 2 selective (op-level: net/plan.h); LoRA on every block linear (lora_targets: qv,
 * the query and value projections). Returns -1 for a column naming no known choice. */
static int run_shape(const cJSON *row, struct net_shape *s)
{
    int llama = strcmp(text(row, "arch"), "llama") == 0;
    *s = (struct net_shape){ .layers = (int)number(row, "layers"), .hidden = (int)number(row, "hidden"),
        .heads = (int)number(row, "heads"), .seq = (int)number(row, "seq"), .vocab = (int)number(row, "vocab"),
        .batch = (int)number(row, "micro_batch"), .accum = (int)number(row, "accum"),
        .checkpoint = (int)number(row, "checkpoint"), .tied = (int)number_or(row, "tied", 1),
        .nobias = number(row, "biases") == 0, .attention = NET_ATT_FLASH, .amp = 1, .causal = 1,
        .kv_heads = (int)number_or(row, "kv_heads", 0), .ffn = (int)number_or(row, "ffn", 0),
        .lora_rank = (int)number_or(row, "lora_rank", 0), .head_dim = (int)number_or(row, "head_dim", 0),
        .doc_tokens = (int)number_or(row, "doc_tokens", 0) };
    if (llama) {
        s->mlp = NET_MLP_SWIGLU;
        s->norm = NET_NORM_RMS;
        s->rope = 1;
    }
    int att = named_choice(row, "attention", attention_names, 3, NET_ATT_FLASH);
    int loss = named_choice(row, "loss", loss_names, 2, 0);
    int opt = -1, targets = named_choice(row, "lora_targets", target_names, 2, NET_LORA_ALL);
    for (int i = 0; i < NET_NOPTIMS; i++)
        opt = strcmp(text(row, "optimizer"), net_optims[i].name) == 0 ? i : opt;
    s->attention = att == 2 ? NET_ATT_FLASH : att;
    s->fused_loss = loss;
    s->optimizer = text(row, "optimizer")[0] ? opt : NET_OPT_ADAMW;
    s->lora_targets = targets;
    return att < 0 || loss < 0 || s->optimizer < 0 || targets < 0 ? -1 : 0;
}

/* The link between the run's GPUs (data/fabric.csv's columns on the catalog row). */
static double run_link(const cJSON *sys, int gpus)
{
    return predict_link_Bps(number_or(sys, "fabric_nvlink_domain", 1), number_or(sys, "fabric_scaleup_gbs", 0) * 1e9,
                            number_or(sys, "fabric_nic_gbs_per_gpu", 0) * 1e9, gpus);
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
    int choices = run_shape(row, &r->shape);
    /* samples one by one (sample_tokens): the micro-batch padded to its longest, the positions timed */
    r->sample_tokens = number_or(row, "sample_tokens", 0);
    if (r->sample_tokens > 0 && r->sample_tokens <= r->shape.seq)
        r->shape.seq = (int)ceil(predict_padded_positions(r->sample_tokens, r->shape.batch, r->shape.seq));
    else if (!(r->sample_tokens > 0))
        r->sample_tokens = r->shape.seq;
    r->prec = strcmp(prec, "fp8") == 0 ? NET_FP8 : NET_BF16;
    r->gpus = (int)number(row, "gpus");
    r->zero = zero_of(text(row, "sharding"));
    r->published = number(row, "tokens_per_s_per_gpu");
    static const char *const peak_field[NET_NDTYPES] = { [NET_DT_F32] = "fp32_tflops", [NET_DT_BF16] = "bf16_tflops",
                                                         [NET_DT_E4M3] = "fp8_tflops" };
    for (int d = 0; d < NET_NDTYPES; d++)
        r->peak[d] = peak_field[d] ? number_or(sys, peak_field[d], 0) * 1e12 : 0;
    r->bw = number_or(row, "mem_bw_gbs", number(sys, "mem_bw_gbs")) * 1e9;     /* the run's part, where it differs */
    int span;
    predict_stack_row_gpu(sys, &r->gen, &span, &r->sms);
    const char *why = !sys ? "names a system data/systems.csv lacks" : !predict_stack_find(r->stack) ? "names an unknown stack"
                      : choices < 0 ? "names an attention (flash, sdpa, eager), loss (unfused, fused), optimizer "
                                      "(adamw, adamw-bf16, adam8bit) or lora_targets (all, qv) not known"
                      : r->sample_tokens > r->shape.seq ? "has sample_tokens above its seq (the cutoff)"
                      : net_shape_problem(&r->shape) ? net_shape_problem(&r->shape)
                      : !(r->published > 0) || !(r->gpus > 0) ? "has no tokens_per_s_per_gpu or gpus above 0"
                      : r->zero < 0 ? "has a sharding other than NO_SHARD, ZERO_1, SHARD_GRAD_OP, FULL_SHARD"
                      : !(r->peak[NET_DT_BF16] > 0 && r->bw > 0) ? "names a system without a dense peak or bandwidth"
                      : r->prec == NET_FP8 && !(r->peak[NET_DT_E4M3] > 0) ? "is FP8 on a system without an FP8 peak"
                      : r->gen < 0 ? "names a system whose row gives no GPU generation the profiles fit"
                      : !(r->sms > 0) ? "names a system whose row gives no SM count (sms)" : NULL;
    if (why) {
        snprintf(err, errlen, "data/gpu-runs.csv: run '%.60s' on '%.48s' %s", r->id, r->system, why);
        return -1;
    }
    r->link = run_link(sys, r->gpus);
    predict_comm_bytes(r->zero, r->gpus, 2.0 * (double)net_param_count(&r->shape),
                       predict_grad_bytes(r->prec) * (double)net_trainable_count(&r->shape), &r->comm);
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
    for (int i = 0; i < r->nops; i++) {
        enum net_dtype d = predict_stack_op_dtype(st, r->prec, &r->ops[i]);
        struct predict_target tg = { r->peak[d] > 0 ? r->peak[d] : r->peak[NET_DT_BF16], r->bw, r->gen, 0, r->sms };
        double t = r->weight[i] * op_seconds(st, p, &tg, &r->ops[i], NULL);
        if (r->ops[i].micro < 0)
            update += t;
        else
            micro += t;
    }
    if (st->per_micro)              /* the trainer's own cost per micro-batch */
        micro += p[PREDICT_MICRO_S];
    if (r->zero >= 1)               /* the optimizer state is sharded: each GPU updates its share */
        update /= r->gpus;
    double tokens = (double)r->shape.batch * r->sample_tokens * r->shape.accum;
    return tokens / predict_dp_step_seconds(micro, r->shape.accum, update, &r->comm, r->link);
}

/* ---- the fit ---- */

struct fit_set {
    const struct predict_stack *st;
    const struct predict_run *runs;
    int n, skip;                /* fit on runs[0..n) of st's fitted_on stack, except runs[skip] */
    int idx[PREDICT_NSTACKP], na;   /* the parameters the runs constrain: a generation's efficiencies
                                       only where there are runs of it */
    int linked[PREDICT_NGENS], ref; /* generations whose attention efficiency moves with their matmul
                                       efficiency from generation ref's (too few runs to set both) */
    double prior[PREDICT_NSTACKP];  /* the search's coordinates the fit is pulled towards (PRIOR_PULL) */
};

/* A weak pull of each fitted coordinate towards its prior (p_start; a compiled stack's per-op cost,
 * its launch gap FUSED_OP_S): a millionth of a squared log-error per unit of the search's coordinate,
 * far below what a run moves, so it decides only a parameter the runs leave flat (a per-op cost below
 * every op of the runs fitted on), which would otherwise end wherever the search wandered, at one
 * bound on one machine and at the other on another. */
#define PRIOR_PULL 1e-6

/* A generation needs this many runs for its attention efficiency to be fitted apart from its
 * matmul efficiency; with fewer, attention keeps the ratio to matmul of the generation with most
 * runs (two runs of one configuration cannot tell the two apart). */
#define OWN_ATT_RUNS 4


static int in_fit(const struct fit_set *f, int i)
{
    return i != f->skip && strcmp(f->runs[i].stack, f->st->fitted_on) == 0;
}

/* Parameters from the search's coordinates: a logistic map onto [log min, log max], smooth
 * everywhere, so that the simplex never lies on a flat clamp. */
static void params_of(const struct fit_set *f, const double *theta, double *p)
{
    for (int j = 0; j < PREDICT_NSTACKP; j++)       /* held in bounds against the last ulp of exp() */
        p[j] = fmin(p_max[j], fmax(p_min[j], exp(log(p_min[j]) + log(p_max[j] / p_min[j]) / (1 + exp(-theta[j])))));
    for (int g = 0; f && g < PREDICT_NGENS; g++)
        if (f->linked[g])
            p[PREDICT_ATT_ETA + g] = att_measured[g] > 0 ? att_measured[g]
                                     : fmin(ATT_ETA_MAX, p[PREDICT_ATT_ETA + f->ref] * p[PREDICT_MM_ETA + g]
                                            / p[PREDICT_MM_ETA + f->ref]);
}

static double coordinate_of(int j, double p)
{
    double f = log(p / p_min[j]) / log(p_max[j] / p_min[j]);
    return log(f / (1 - f));
}

static double cost(const struct fit_set *f, const double *theta)
{
    double p[PREDICT_NSTACKP], c = 0;
    params_of(f, theta, p);
    for (int i = 0; i < f->n; i++) {
        if (!in_fit(f, i))
            continue;
        double r = log(predict_run_tokens(f->st, p, &f->runs[i]) / f->runs[i].published);
        c += r * r;
    }
    for (int a = 0; a < f->na; a++) {
        double d = theta[f->idx[a]] - f->prior[f->idx[a]];
        c += PRIOR_PULL * d * d;
    }
    return c;
}

/* Nelder-Mead (reflection 1, expansion 2, contraction 0.5, shrink 0.5) from theta, over the
 * coordinates f->idx; the others are never touched (arithmetic on them, a mean of equal values
 * reflected, moves them by an ulp, and expansions double that each time: the fit then depended on
 * the machine's rounding, FMA or not). */
#define NM (PREDICT_NSTACKP + 1)
static void minimise(const struct fit_set *f, double *theta, int iterations)
{
    double x[NM][PREDICT_NSTACKP], c[NM];
    int nv = f->na + 1;
    for (int i = 0; i < nv; i++) {
        memcpy(x[i], theta, sizeof x[i]);
        if (i > 0)
            x[i][f->idx[i - 1]] += 0.5;
        c[i] = cost(f, x[i]);
    }
    for (int it = 0; it < iterations; it++) {
        int hi = 0, lo = 0;
        for (int i = 1; i < nv; i++) {
            hi = c[i] > c[hi] ? i : hi;
            lo = c[i] < c[lo] ? i : lo;
        }
        int second = lo;
        for (int i = 0; i < nv; i++)
            second = i != hi && c[i] > c[second] ? i : second;
        double mid[PREDICT_NSTACKP] = { 0 }, r[PREDICT_NSTACKP], e[PREDICT_NSTACKP];
        memcpy(r, theta, sizeof r);
        memcpy(e, theta, sizeof e);
        for (int i = 0; i < nv; i++)
            for (int a = 0; i != hi && a < f->na; a++)
                mid[f->idx[a]] += x[i][f->idx[a]] / (nv - 1);
        for (int a = 0; a < f->na; a++) {
            int j = f->idx[a];
            r[j] = 2 * mid[j] - x[hi][j];
        }
        double cr = cost(f, r);
        if (cr < c[lo]) {
            for (int a = 0; a < f->na; a++) {
                int j = f->idx[a];
                e[j] = 3 * mid[j] - 2 * x[hi][j];
            }
            double ce = cost(f, e);
            memcpy(x[hi], ce < cr ? e : r, sizeof x[hi]);
            c[hi] = fmin(ce, cr);
        } else if (cr < c[second]) {
            memcpy(x[hi], r, sizeof x[hi]);
            c[hi] = cr;
        } else {
            for (int a = 0; a < f->na; a++) {
                int j = f->idx[a];
                e[j] = 0.5 * (mid[j] + x[hi][j]);
            }
            double ce = cost(f, e);
            if (ce < c[hi]) {
                memcpy(x[hi], e, sizeof x[hi]);
                c[hi] = ce;
            } else {
                for (int i = 0; i < nv; i++)
                    for (int a = 0; i != lo && a < f->na; a++)
                        x[i][f->idx[a]] = 0.5 * (x[i][f->idx[a]] + x[lo][f->idx[a]]);
                for (int i = 0; i < nv; i++)
                    c[i] = i == lo ? c[i] : cost(f, x[i]);
            }
        }
    }
    int best = 0;
    for (int i = 1; i < nv; i++)
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

/* The parameters f's runs constrain, and which generations they have (st->fitted_gen). */
static void active_params(struct fit_set *f, struct predict_stack *st, const struct predict_stack *from)
{
    int count[PREDICT_NGENS] = { 0 };
    for (int i = 0; i < f->n; i++)
        if (in_fit(f, i))
            count[f->runs[i].gen]++;
    f->ref = 0;
    for (int g = 0; g < PREDICT_NGENS; g++) {
        st->fitted_gen[g] = count[g] > 0;
        f->ref = count[g] > count[f->ref] ? g : f->ref;
    }
    for (int g = 0; g < PREDICT_NGENS; g++)
        f->linked[g] = !from && count[g] > 0 && count[g] < OWN_ATT_RUNS && g != f->ref;
    memcpy(st->att_linked, f->linked, sizeof st->att_linked);
    st->att_ref = f->ref;
    f->na = 0;
    for (int j = 0; j < PREDICT_NSTACKP; j++) {
        int g = j < PREDICT_MM_HALF ? j - PREDICT_MM_ETA : j >= PREDICT_ATT_ETA && j < PREDICT_MEM_ETA
                ? j - PREDICT_ATT_ETA : -1;
        int att = j >= PREDICT_ATT_ETA && j < PREDICT_MEM_ETA;
        if (j == PREDICT_MICRO_S && !st->per_micro)
            continue;
        if (from ? j >= PREDICT_MEM_ETA : g < 0 || (st->fitted_gen[g] && !(att && f->linked[g])))
            f->idx[f->na++] = j;
    }
}

/* One profile: the fit on all its runs, then one fit per run left out (started from the full
 * fit), each run's predictions, and the band from the left-out errors. */
static void fit_stack(struct predict_stack *st, struct predict_run *runs, int n)
{
    struct fit_set f = { st, runs, n, -1, { 0 }, 0, { 0 }, 0, { 0 } };
    double theta[PREDICT_NSTACKP], full[PREDICT_NSTACKP], *err = xmalloc((size_t)(n + 1) * sizeof *err);
    int m = 0;
    const struct predict_stack *from = st->compute_from ? predict_stack_find(st->compute_from) : NULL;
    active_params(&f, st, from && from->nfit > 0 ? from : NULL);
    for (int j = 0; j < PREDICT_NSTACKP; j++)
        f.prior[j] = coordinate_of(j, j == PREDICT_OP_S && st->compiled ? FUSED_OP_S : p_start[j]);
    /* from each start of the per-op cost (a framework's dispatch cost and a fused stack's launch gap
     * are a decade apart: one start can settle in the other's valley), the best fit */
    static const double op_starts[] = { 1e-5, 1e-6, 6e-5 };
    double best = HUGE_VAL;
    for (size_t k = 0; k < sizeof op_starts / sizeof op_starts[0]; k++) {
        double t[PREDICT_NSTACKP];
        for (int j = 0; j < PREDICT_NSTACKP; j++)
            t[j] = coordinate_of(j, fmax(p_min[j] * (1 + 1e-9), fmin(p_max[j] * (1 - 1e-9),
                                 from && from->nfit > 0 && j < PREDICT_MEM_ETA ? from->p[j]
                                 : j == PREDICT_OP_S ? op_starts[k] : p_start[j])));
        for (int round = 0; round < 4; round++)      /* restarts: the simplex collapses early otherwise */
            minimise(&f, t, 300);
        double c = cost(&f, t);
        if (c < best) {
            best = c;
            memcpy(theta, t, sizeof theta);
        }
    }
    params_of(&f, theta, st->p);
    memcpy(full, theta, sizeof full);
    for (int i = 0; i < n; i++) {
        if (!in_fit(&f, i))
            continue;
        struct fit_set g = f;
        g.skip = i;
        double t[PREDICT_NSTACKP], p[PREDICT_NSTACKP];
        memcpy(t, full, sizeof t);
        minimise(&g, t, 150);
        params_of(&g, t, p);
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

/* A generation g a fitted profile has no runs of: its efficiencies are those of the nearest
 * generation f it knows (fitted, or borrowed before) of which another profile fitted on runs of
 * both measured the ratio to g, times that ratio, at most 1; the band spans the ratio (gen_spread).
 * Without such a profile: the nearest known generation's efficiencies, the band spanning nothing
 * more. Returns whether g was set. */
static const struct predict_stack *donor_of(const struct predict_stack *st, int f, int g)
{
    for (int i = 0; i < NSTACKS; i++)
        if (&stacks[i] != st && stacks[i].nfit > 0 && stacks[i].fitted_gen[f] && stacks[i].fitted_gen[g])
            return &stacks[i];
    return NULL;
}

static int borrow_gen(struct predict_stack *st, int g, const int *known)
{
    int f = -1, nearest = -1;
    const struct predict_stack *donor = NULL;
    for (int d = 1; d < PREDICT_NGENS && !donor; d++)
        for (int k = 0; k < 2 && !donor; k++) {
            int c = k ? g - d : g + d;
            if (c < 0 || c >= PREDICT_NGENS || !known[c])
                continue;
            nearest = nearest < 0 ? c : nearest;
            if ((donor = donor_of(st, c, g)))
                f = c;
        }
    if (!donor)
        f = nearest;
    if (f < 0)
        return 0;
    double spread = st->gen_spread[f];
    for (int j = 0; j < 2; j++) {
        int k = j ? PREDICT_ATT_ETA : PREDICT_MM_ETA;
        if (j && att_measured[g] > 0) {         /* the attention kernels' own measured rate */
            st->p[k + g] = att_measured[g];
            continue;
        }
        double ratio = donor ? donor->p[k + g] / donor->p[k + f] : 1;
        st->p[k + g] = fmin(j ? ATT_ETA_MAX : 1, st->p[k + f] * ratio);
        spread = fmax(spread, st->gen_spread[f] * fmax(ratio, 1 / ratio));
    }
    st->gen_spread[g] = spread;
    snprintf(st->gen_rule[g], sizeof st->gen_rule[g], donor
             ? "no runs: the %s efficiencies times the %s/%s ratio of the %s profile%s"
             : "no runs: the %s efficiencies (no profile has runs of both)%s",
             predict_gen_names[f], predict_gen_names[g], predict_gen_names[f], donor ? donor->id : "",
             att_measured[g] > 0 ? "; attention at its measured kernel rate" : "");
    return 1;
}

static void borrow_gens(struct predict_stack *st)
{
    int known[PREDICT_NGENS];
    for (int g = 0; g < PREDICT_NGENS; g++) {
        known[g] = st->fitted_gen[g];
        st->gen_spread[g] = 1;
        if (st->att_linked[g] && att_measured[g] > 0)
            snprintf(st->gen_rule[g], sizeof st->gen_rule[g], "fitted on its runs (attention at %.2f of the peak, "
                     "its measured kernel rate: fewer than 4 runs)", att_measured[g]);
        else
            snprintf(st->gen_rule[g], sizeof st->gen_rule[g], st->att_linked[g]
                     ? "fitted on its runs (attention at the %s ratio of attention to matmul: fewer than 4 runs)"
                     : "fitted on its runs", predict_gen_names[st->att_ref]);
    }
    for (int pass = 0; pass < PREDICT_NGENS; pass++)
        for (int g = 0; g < PREDICT_NGENS; g++)
            if (!known[g] && borrow_gen(st, g, known))
                known[g] = 2;
}

void predict_stacks_fit(struct predict_run *runs, int n)
{
    for (int i = 0; i < NSTACKS; i++) {
        stacks[i].nfit = 0;
        if (strcmp(stacks[i].fitted_on, stacks[i].id) == 0)
            fit_stack(&stacks[i], runs, n);
    }
    for (int i = 0; i < NSTACKS; i++)
        if (strcmp(stacks[i].fitted_on, stacks[i].id) == 0 && !stacks[i].compute_from)
            borrow_gens(&stacks[i]);
    for (int i = 0; i < NSTACKS; i++) {     /* matmul and attention from another profile, its rules too */
        const struct predict_stack *from = stacks[i].compute_from ? predict_stack_find(stacks[i].compute_from) : NULL;
        if (!from)
            continue;
        memcpy(stacks[i].p, from->p, PREDICT_MEM_ETA * sizeof stacks[i].p[0]);
        memcpy(stacks[i].fitted_gen, from->fitted_gen, sizeof stacks[i].fitted_gen);
        memcpy(stacks[i].gen_spread, from->gen_spread, sizeof stacks[i].gen_spread);
        for (int g = 0; g < PREDICT_NGENS; g++)
            snprintf(stacks[i].gen_rule[g], sizeof stacks[i].gen_rule[g], "matmul and attention: the %s profile's (%s)",
                     from->id, from->gen_rule[g]);
    }
    for (int i = 0; i < NSTACKS; i++) {
        const struct predict_stack *from = predict_stack_find(stacks[i].fitted_on);
        if (!from || from == &stacks[i])
            continue;
        memcpy(stacks[i].p, from->p, sizeof stacks[i].p);
        memcpy(stacks[i].fitted_gen, from->fitted_gen, sizeof stacks[i].fitted_gen);
        memcpy(stacks[i].gen_spread, from->gen_spread, sizeof stacks[i].gen_spread);
        memcpy(stacks[i].gen_rule, from->gen_rule, sizeof stacks[i].gen_rule);
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
    cJSON_AddStringToObject(o, "short_name", st->short_name);
    cJSON_AddStringToObject(o, "fitted_on", st->fitted_on);
    cJSON_AddStringToObject(o, "era", st->era);
    cJSON_AddStringToObject(o, "basis", st->basis);
    cJSON_AddStringToObject(o, "defaults", st->defaults);
    for (int j = 0; j < PREDICT_NSTACKP; j++)
        cJSON_AddNumberToObject(p, predict_stack_param_names[j], j == PREDICT_OP_S && st->op_s_override > 0
                                ? st->op_s_override : j == PREDICT_MEM_ETA && st->mem_eta_override > 0
                                ? st->mem_eta_override : st->p[j]);
    cJSON_AddNumberToObject(p, "stream_eta", STREAM_ETA);
    cJSON_AddBoolToObject(o, "fp8_backward", st->fp8_backward);
    cJSON *g = cJSON_AddArrayToObject(o, "generations");
    for (int k = 0; k < PREDICT_NGENS; k++) {
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "generation", predict_gen_names[k]);
        cJSON_AddBoolToObject(e, "fitted", st->fitted_gen[k]);
        cJSON_AddNumberToObject(e, "spread", st->gen_spread[k] >= 1 ? st->gen_spread[k] : 1);
        cJSON_AddStringToObject(e, "rule", st->gen_rule[k]);
        cJSON_AddItemToArray(g, e);
    }
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
    cJSON_AddStringToObject(o, "generation", predict_gen_names[r->gen]);
    cJSON_AddStringToObject(o, "model", r->model);
    cJSON_AddStringToObject(o, "precision", net_prec_names[r->prec]);
    cJSON_AddNumberToObject(o, "zero", r->zero);
    if (r->shape.lora_rank > 0)
        cJSON_AddNumberToObject(o, "lora_rank", r->shape.lora_rank);
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
