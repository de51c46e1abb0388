/* model.c: the training-time model experiment, one flow for every device. Calibration first,
 * from microbenchmarks only: the device's ceilings (model_cpu.c: a large CBLAS GEMM, the one
 * DRAM bandwidth, an empty parallel region; model_gpu.c: cuBLASLt GEMMs per dtype, the device
 * bandwidth, an empty kernel launch; each with an intensity sweep for the combine rule), then
 * every distinct op of the validation configurations timed on its own through the device's
 * trainer (the GEMM surface and the op-class kernels at the sizes the models use). Then each
 * configuration's step time is predicted from the calibration and the op plan, and only then
 * measured by training it. The projection onto other systems is project.c's. */
#include "exp/model/model.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exp/train/train.h"
#include "exp/train/train_data.h"
#include "exp/model/model_int.h"
#include "exp/precision/precision.h"
#include "measure/backend.h"
#include "measure/measure.h"
#include "predict/project.h"
#include "predict/stack.h"
#include "util/machine.h"
#include "util/error.h"
#include "util/progress.h"
#include "util/json.h"
#include "util/timing.h"

#define NCACHE 10               /* the base configurations: v1..v10 */
#define NEXTRA 3                /* sized from the caches: c1 (its step fits them), d1, d2 (theirs do not) */

const struct param model_params[] = {
    { "device", PARAM_ENUM, 0, NULL, "cpu|gpu", "cpu", 0, 0,
      "where the calibration and validation run: CPU (OpenMP, CBLAS) or the first CUDA device" },
    { "configs", PARAM_INT, 0, NULL, NULL, "10", 1, 10,
      "validation configurations whose step fits the caches, to predict and then measure (the first N of the "
      "built-in ten, v1..v10)" },
    { "extra_configs", PARAM_INT, PARAM_NOT_KEY, NULL, NULL, "3", 0, NEXTRA,
      "validation configurations sized from this machine's caches (CPU only): c1, whose step fits in half of all "
      "caches, then d1 and d2, whose steps hold 4x all caches or more (DRAM-bound steps)" },
    { "held_out", PARAM_STR, PARAM_LIST | PARAM_NOT_KEY, "none", NULL, "v4,v9,d2", 0, 0,
      "configurations predicted without timing any op of their own (from the ops the others timed and the curves), "
      "then measured: the check that the prediction is not tuned to what it predicts; none: every one times its ops" },
    { "base_hidden", PARAM_INT, 0, NULL, NULL, "128", 16, 4096,
      "hidden size of the base validation configuration (the others vary it and the rest)" },
    { "base_seq", PARAM_INT, 0, NULL, NULL, "64", 8, 4096, "sequence length of the base validation configuration" },
    { "steps", PARAM_INT, 0, NULL, NULL, "9", 2, 1000, "timed training steps per validation configuration" },
    { "workloads", PARAM_STR, PARAM_LIST, "all|none", NULL, "all", 0, 0,
      "reference workloads to project (ids from `sparkreport list`), all, or none" },
    { "systems", PARAM_STR, PARAM_LIST, "all", NULL, "all", 0, 0,
      "catalog systems to project onto (ids), or all; the measured machine is always one" },
    /* a workload of the scenario's own, projected beside the reference ones */
    { "workload_name", PARAM_STR, 0, "none", NULL, "none", 0, 0,
      "name of the scenario's own workload (none: no such workload); the workload_* fields shape it" },
    { "workload_arch", PARAM_ENUM, 0, NULL, "gpt2|llama", "llama", 0, 0,
      "gpt2: LayerNorm, GELU MLP, learned positions, biases; llama: RMSNorm, SwiGLU, RoPE, no biases" },
    { "workload_layers", PARAM_INT, 0, NULL, NULL, "32", 1, 1024, "transformer blocks" },
    { "workload_hidden", PARAM_INT, 0, NULL, NULL, "4096", 1, 65536, "hidden size" },
    { "workload_heads", PARAM_INT, 0, NULL, NULL, "32", 1, 1024, "attention heads; must divide hidden" },
    { "workload_kv_heads", PARAM_INT, 0, NULL, NULL, "8", 1, 1024, "key/value heads (GQA); must divide heads" },
    { "workload_ffn", PARAM_INT, 0, NULL, NULL, "14336", 1, 1048576, "MLP inner size" },
    { "workload_head_dim", PARAM_INT, 0, NULL, NULL, "0", 0, 4096,
      "head size when it is not hidden / heads (Qwen3: 128 at any width); 0: hidden / heads" },
    { "workload_doc_tokens", PARAM_INT, 0, NULL, NULL, "0", 0, 1048576,
      "packed documents of this mean length in tokens with attention within each (FlashAttention varlen); 0: "
      "attention over the whole sequence" },
    { "workload_vocab", PARAM_INT, 0, NULL, NULL, "128256", 2, 4194304, "vocabulary size" },
    { "workload_seq", PARAM_INT, 0, NULL, NULL, "4096", 2, 1048576, "sequence length" },
    { "workload_batch", PARAM_INT, 0, NULL, NULL, "32", 1, 1048576,
      "global batch, sequences per optimizer step (the fit chooses micro-batch and accumulation)" },
    { "workload_tokens", PARAM_NUM, 0, NULL, NULL, "1e8", 1, 1e15, "tokens to train" },
    { "workload_lora_rank", PARAM_INT, 0, NULL, NULL, "0", 0, 65536, "LoRA rank; 0: full training" },
    { "workload_base", PARAM_ENUM, 0, NULL, "bf16|nf4", "bf16", 0, 0,
      "LoRA: the frozen base weights' format (nf4: QLoRA's 4-bit NormalFloat)" },
    { "workload_precision", PARAM_ENUM, 0, NULL, "fp32|bf16|fp8|fp4", "bf16", 0, 0,
      "training recipe: fp32; bf16 (BF16 matmuls, FP32 master weights); fp8 (Transformer Engine's: the blocks' "
      "GEMMs in FP8, with the megatron-te stack backward too); fp4 (the fp8 plan with those GEMMs at the part's "
      "NVFP4 peak; a part without one is not projected)" },
    { "workload_sparsity", PARAM_ENUM, 0, NULL, "dense|2:4", "dense", 0, 0,
      "2:4: the blocks' linear weights 2:4 sparse (forward matmuls on sparse matrix units: half the products, "
      "half the values plus 2-bit indices); backward and memory stay dense" },
    /* how the scenario's own job runs */
    { "workload_gpus", PARAM_INT, 0, NULL, NULL, "1", 1, 4096,
      "GPUs per node the job runs on (data parallel; the global batch is split over all of them)" },
    { "workload_tp", PARAM_INT, 0, NULL, NULL, "1", 1, 64,
      "tensor parallelism with sequence parallelism (Megatron): each of workload_tp GPUs of a node holds 1/tp of "
      "every layer, its activations exchanged over the node's link each layer; 1: none" },
    { "workload_nodes", PARAM_INT, 0, NULL, NULL, "1", 1, 4096,
      "nodes, linked by the catalog's NICs (data/fabric.csv); a DGX Spark is a node of one GPU: 2 is two linked "
      "Sparks over ConnectX-7" },
    { "workload_sharding", PARAM_ENUM, 0, NULL, "auto|ddp|zero1|zero2|zero3|fsdp", "auto", 0, 0,
      "auto: the lowest ZeRO stage that fits; ddp: plain data parallelism; zero1: optimizer state sharded; zero2: "
      "and gradients; zero3 or fsdp: and weights (each with the traffic it implies over the link)" },
    { "workload_optimizer", PARAM_ENUM, 0, NULL, "auto|adamw|adamw-bf16|adam8bit", "adamw", 0, 0,
      "optimizer recipe: adamw (FP32 master weights and moments: what every profile's trainers keep, so also "
      "auto, the stack's), adamw-bf16 (pure BF16: the model loaded in BF16 and trained so), adam8bit "
      "(bitsandbytes)" },
    { "workload_stack", PARAM_ENUM, 0, NULL, "auto|" PREDICT_STACK_IDS, "auto", 0, 0,
      "software stack whose fitted profile times it: auto (hf-trainer for a LoRA or QLoRA job, pytorch-compile "
      "otherwise: the stacks people run them on), hf-trainer (the Hugging Face Trainer with PEFT or TRL as of "
      "2025-26: eager PyTorch, SDPA attention; fitted on DGX Spark, H100 and A100 runs), pytorch-compile (current "
      "PyTorch: torch.compile, FSDP2, torchao Float8; fitted on torchtitan's H100 runs and DGX Spark runs), "
      "pytorch (PyTorch with FSDP as llm-foundry ran it in 2023-24, as the reference full fine-tunes), fused-cuda "
      "(llm.c, GPT-2 layout only), megatron-te (NeMo / Megatron-Core with Transformer Engine), hf-peft (the Hugging "
      "Face Trainer with PEFT as of 2023, fitted on one A100 table)" },
    { "workload_checkpoint", PARAM_ENUM, 0, NULL, "auto|none|full", "auto", 0, 0,
      "activation checkpointing: auto (as the stack runs by default: hf-trainer's front ends, TRL and "
      "LLaMA-Factory, turn it on; the others add it when memory needs it), none (never), full (every block)" },
    { "workload_micro_batch", PARAM_INT, 0, NULL, NULL, "0", 0, 1048576,
      "sequences per device per forward pass, as the trainer is told (per_device_train_batch_size): the fit keeps "
      "it (checkpointing or offload before a smaller one) and accumulates to workload_batch; 0: the fit chooses "
      "the largest that fits" },
    { "workload_packing", PARAM_BOOL, 0, NULL, NULL, "true", 0, 0,
      "sequences packed (every position a training token); false: samples one by one, padded as workload_padding "
      "says (workload_sample_tokens long on average), or workload_fill of the positions tokens" },
    { "workload_sample_tokens", PARAM_NUM, 0, NULL, NULL, "0", 0, 1048576,
      "without packing: the mean tokens of a training sample (an instruction and its answer, a conversation), at "
      "most workload_seq (the cutoff, which memory is sized for); 0: every sample fills workload_seq" },
    { "workload_padding", PARAM_ENUM, 0, NULL, "auto|longest|max_length", "auto", 0, 0,
      "without packing: each micro-batch padded to its longest sample (longest, auto: the Hugging Face collators' "
      "default; with micro-batch 1 no padding at all), or every sample to workload_seq (max_length)" },
    { "workload_fill", PARAM_NUM, 0, NULL, NULL, "1", 0.01, 1,
      "without packing, every sample padded to workload_seq: the share of its positions that hold tokens (the mean "
      "sample over seq); workload_sample_tokens says the same in tokens" },
    { "workload_attention", PARAM_ENUM, 0, NULL, "auto|flash|sdpa|eager", "auto", 0, 0,
      "attention kernel: auto (the stack's: a fused kernel), flash (FlashAttention 2 or 3), sdpa (PyTorch's "
      "scaled_dot_product_attention, dispatching to a fused flash or cuDNN kernel: timed as flash), eager (the "
      "scores written to memory as a [heads, seq, seq] tensor and read back by the softmax, both directions)" },
    { "workload_loss", PARAM_ENUM, 0, NULL, "auto|unfused|fused", "auto", 0, 0,
      "cross-entropy: auto (the stack's: unfused), unfused (the [tokens, vocabulary] logits in memory), fused "
      "(fused or chunked with the LM head: Liger's fused linear cross-entropy, torchtune's chunked loss, Unsloth, "
      "Cut Cross-Entropy; no logits held)" },
    { "workload_lora_targets", PARAM_ENUM, 0, NULL, "all|qv", "all", 0, 0,
      "LoRA: adapters on every block linear (all: PEFT's all-linear) or on the query and value projections only "
      "(qv: PEFT's default for Llama, Qwen, Mistral and Gemma when no target is named)" },
    /* a system of the scenario's own, beside the catalog's */
    { "system_name", PARAM_STR, 0, "none", NULL, "none", 0, 0,
      "name of the scenario's own system (none: no such system); the system_* fields give its figures" },
    { "system_bw_gbs", PARAM_NUM, 0, NULL, NULL, "0", 0, 1e6, "its memory bandwidth, GB/s" },
    { "system_memory_gb", PARAM_NUM, 0, NULL, NULL, "0", 0, 1e6, "its memory, GB" },
    { "system_fp32_tflops", PARAM_NUM, 0, NULL, NULL, "0", 0, 1e6, "its dense FP32 peak, TFLOPS" },
    { "system_bf16_tflops", PARAM_NUM, 0, NULL, NULL, "0", 0, 1e6, "its dense BF16 peak, TFLOPS" },
    { "system_fp8_tflops", PARAM_NUM, 0, NULL, NULL, "0", 0, 1e6, "its dense FP8 peak, TFLOPS (0: none)" },
    { "system_unified", PARAM_BOOL, 0, NULL, NULL, "false", 0, 0,
      "CPU and accelerator share its memory (offload then buys no capacity)" },
    { "system_power_w", PARAM_NUM, 0, NULL, NULL, "0", 0, 1e6, "its power, W (0: unknown)" },
    { "system_price_usd", PARAM_NUM, 0, NULL, NULL, "0", 0, 1e9, "its price, USD (0: unknown)" },
    { "scrub_size", PARAM_SIZE, 0, "auto", NULL, "auto", 1024 * 1024, 1024.0 * 1024 * 1024 * 1024,
      "bytes read before each op timed on its own; auto: none, each op in the state the step leaves it in: warm "
      "when what a step holds (weights, gradients, optimizer state, activations) fits in all caches, else after "
      "the ops before it in the step that move all caches' worth of bytes (CPU only: a GPU's L2 is not the "
      "host's caches)" },
    { "budget_s", PARAM_NUM, 0, "auto", NULL, "auto", 0.1, 86400,
      "seconds for this experiment; auto: its share of the scenario budget" },
    { NULL, 0, 0, NULL, NULL, NULL, 0, 0, NULL },
};

#define NCONFIGS (NCACHE + NEXTRA)
#define DRAM_FACTOR 4.0         /* a DRAM configuration's step holds at least this times all caches */
#define WARMUP 1
#define OP_ROUNDS 11            /* rounds: training steps timed */
#define OP_TIMED 5              /* rounds of the big shape, which times its ops and trains no step */
#define DISTURB_MIN 0.25        /* a round slower than the fastest third by more than this, and ... */
#define DISTURB_SD 4.0          /* ... than this many of their standard deviations, was disturbed */
#define RERUN_SHARE 0.7         /* of the budget, past which a disturbed configuration is not rerun */
#define MIN_ROUNDS 3            /* rounds a configuration runs even past its time share */

/* What a step of cfg holds (weights, gradients, optimizer state, activations), bytes. */
static double footprint(const struct train_config *cfg)
{
    struct net_memory m;
    net_memory(&cfg->shape, cfg->prec, NET_IMPL_CPU, &m);
    return m.total;
}

/* The id records use for validation configuration i: "v1", "v2", ..., then "c1", "d1", "d2". */
static char *config_id(int i, char *buf, size_t n)
{
    if (i < NCACHE)
        snprintf(buf, n, "v%d", i + 1);
    else
        snprintf(buf, n, i == NCACHE ? "c1" : "d%d", i - NCACHE);
    return buf;
}

/* The smallest power-of-two vocabulary (512 .. 2^20) that makes shape s hold at least `bytes`
 * in a step: the embedding and the LM head grow the weights, gradients and optimizer state. */
static int vocab_for(struct net_shape s, double bytes)
{
    struct net_memory m;
    for (s.vocab = 512; s.vocab < (1 << 20); s.vocab *= 2) {
        net_memory(&s, NET_FP32, NET_IMPL_CPU, &m);
        if (m.total >= bytes)
            break;
    }
    return s.vocab;
}

/* The validation configurations: a base and one change at a time, then two combined (v1..v10,
 * whatever the machine); then c1, whose step fits in half of all caches (`caches` bytes), and d1
 * and d2, whose steps hold DRAM_FACTOR x all caches or more: few tokens per step against many
 * weights, so the step streams its weights and optimizer state from DRAM. */
static void configs(const cJSON *params, double caches, struct train_config *out)
{
    int h = (int)param_num(params, "base_hidden"), s = (int)param_num(params, "base_seq");
    int a = h % 4 == 0 ? 4 : 1;
    struct net_shape base = { .layers = 2, .hidden = h, .heads = a, .seq = s, .vocab = 512, .batch = 8,
                                .accum = 1, .causal = 1 };
    for (int i = 0; i < NCONFIGS; i++) {
        struct train_config *c = &out[i];
        *c = (struct train_config){ .shape_name = "custom", .shape = base, .prec = NET_FP32,
                                    .steps = (int)param_num(params, "steps") + WARMUP, .warmup = WARMUP,
                                    .lr = 3e-3, .lr_min = 3e-4, .lr_warmup = 1, .weight_decay = 0.1,
                                    .clip = 1, .seed = 1, .order = 1, .branching = 8, .validate = 0 };
        struct net_shape *sh = &c->shape;
        switch (i) {
        case 1: sh->layers = 4; break;
        case 2: sh->hidden = 2 * h; sh->heads = 2 * a; break;
        case 3: sh->seq = 2 * s; sh->batch = 4; break;
        case 4: sh->batch = 16; break;
        case 5: c->prec = NET_BF16; break;
        case 6: sh->accum = 2; break;
        case 7: sh->checkpoint = 1; break;
        case 8: sh->hidden = h + h / 2; sh->heads = h % 8 == 0 ? 6 : 1; c->prec = NET_BF16; sh->accum = 2;
                sh->checkpoint = 1; break;
        case 9: sh->vocab = 2048; break;
        case NCACHE:                    /* c1: halve batch, then sequence, until it fits */
            *sh = (struct net_shape){ .layers = 2, .hidden = 64, .heads = 4, .seq = 32, .vocab = 512, .batch = 4,
                                      .accum = 1, .causal = 1 };
            while (footprint(c) > 0.5 * caches && (sh->batch > 1 || sh->seq > 8))
                *(sh->batch > 1 ? &sh->batch : &sh->seq) /= 2;
            break;
        case NCACHE + 1:
        case NCACHE + 2:
            *sh = (struct net_shape){ .layers = i == NCACHE + 1 ? 2 : 3, .hidden = 256, .heads = 4,
                                      .seq = i == NCACHE + 1 ? 32 : 64, .vocab = 512, .batch = i == NCACHE + 1 ? 2 : 1,
                                      .accum = 1, .causal = 1 };
            sh->vocab = vocab_for(*sh, DRAM_FACTOR * caches);
            break;
        default: break;
        }
    }
}

/* The configurations a run validates, in the order it runs them: the first `configs` of v1..v10
 * and the first `extra_configs` of c1, d1, d2 (only on the CPU: the caches are the host's), one
 * of each kind first (v1, c1, d1, then the default held-out v4 and d2), so that a budget spent
 * early still leaves every kind measured; a held-out one's prediction uses what ran before it.
 * n of them into order[], held[] whether each is held out. */
static int config_order(const cJSON *params, const char *device, int *order, int *held)
{
    static const int pref[NCONFIGS] = { 0, NCACHE, NCACHE + 1, 3, NCACHE + 2, 1, 2, 4, 5, 6, 7, 9, 8 };
    int n = 0, nv = (int)param_num(params, "configs");
    int nx = strcmp(device, "cpu") == 0 ? (int)param_num(params, "extra_configs") : 0;
    for (int j = 0; j < NCONFIGS; j++) {
        int i = pref[j], h = 0;
        char id[16];
        if (i < NCACHE ? i >= nv : i - NCACHE >= nx)
            continue;
        config_id(i, id, sizeof id);
        for (const cJSON *e = param_get(params, "held_out")->child; e; e = e->next)
            h |= cJSON_IsString(e) && strcmp(e->valuestring, id) == 0;
        held[n] = h;
        order[n++] = i;
    }
    return n;
}

static char *config_name(const struct train_config *c, char *buf, size_t n)
{
    const struct net_shape *s = &c->shape;
    snprintf(buf, n, "L%d h%d a%d s%d b%d V%d %s%s%s", s->layers, s->hidden, s->heads, s->seq, s->batch,
             s->vocab, net_prec_names[c->prec], s->accum > 1 ? " accum 2" : "", s->checkpoint ? " ckpt" : "");
    return buf;
}

/* Every held_out entry names a configuration (it may be one this run does not validate): 0, or
 * -1 with a message. */
static int check_held_out(const cJSON *params, char *err, size_t errlen)
{
    const cJSON *h = param_get(params, "held_out");
    if (cJSON_IsString(h))              /* "none" */
        return 0;
    for (const cJSON *e = h->child; e; e = e->next) {
        int ok = 0;
        for (int i = 0; i < NCONFIGS; i++) {
            char id[16];
            ok |= strcmp(config_id(i, id, sizeof id), e->valuestring) == 0;
        }
        if (!ok) {
            snprintf(err, errlen, "model: held_out names '%.40s', which is not a validation configuration (v1..v%d, "
                     "c1, d1, d2)", e->valuestring, NCACHE);
            return -1;
        }
    }
    return 0;
}

int model_precheck(const cJSON *params, char *err, size_t errlen)
{
    struct train_config cfg[NCONFIGS];
    configs(params, 0, cfg);
    if (check_held_out(params, err, errlen) != 0
        || param_check_named("model", model_params, params, "workload", err, errlen) != 0
        || param_check_named("model", model_params, params, "system", err, errlen) != 0)
        return -1;
    for (int i = 0; i < (int)param_num(params, "configs"); i++) {
        const char *why = net_shape_problem(&cfg[i].shape);
        if (why) {
            char name[96];
            snprintf(err, errlen, "model: validation configuration %s: %s", config_name(&cfg[i], name, sizeof name),
                     why);
            return -1;
        }
    }
    return predict_check(params, err, errlen);
}

/* ---- the calibration's ceilings, any device ---- */

/* How the calibration's microbenchmarks repeat (the harness's loop, measure.h). */
static const struct measure_rule CALIB_RULE = { 1, 3, 10, 0.02, 0, 0.5 };

double model_timed(double (*fn)(void *ud), void *ud, const char *stat)
{
    cJSON *rec = cJSON_CreateObject();
    measure_repeat(rec, &CALIB_RULE, fn, ud);
    double t = json_num(cJSON_GetObjectItemCaseSensitive(rec, "time_s"), stat, NAN);
    cJSON_Delete(rec);
    return t;
}

struct sweep_ud {
    const struct prec_ops *po;
    struct prec_sweep *s;
    int k;
};

static double sweep_once(void *ud)
{
    struct sweep_ud *u = ud;
    return u->po->sweep_run(u->s, u->k, 1);
}

static const double Q_CHOICES[] = { 1, 1.5, 2, 3, 4, 6, 64 };
#define NQ ((int)(sizeof Q_CHOICES / sizeof Q_CHOICES[0]))
#define MODEL_SWEEP_MAX 16

/* The sweep's record: one pass over `bytes` of FP32 with ks[i] dependent FMAs per element (2 k
 * FLOPs per 4 bytes) took t[i] seconds; err[] each q's mean |log error|. */
static void combine_json(cJSON *ci, const char *what, double bytes, const int *ks, int nk, const double *t,
                         const double *err, double q, double best)
{
    cJSON *o = cJSON_AddObjectToObject(ci, "combine");
    cJSON_AddStringToObject(o, "rule", "t = (tc^q + tm^q)^(1/q); q = 1: sum (no overlap), q >= 64: max (perfect overlap)");
    cJSON_AddNumberToObject(o, "q", q);
    cJSON_AddNumberToObject(o, "mean_abs_error", best);
    cJSON_AddNumberToObject(o, "points", nk - 2);
    cJSON_AddStringToObject(o, "microbenchmark", what);
    cJSON_AddNumberToObject(o, "array_bytes", bytes);
    cJSON *pts = cJSON_AddArrayToObject(o, "sweep");
    for (int i = 0; i < nk; i++) {
        cJSON *p = cJSON_CreateObject();
        cJSON_AddNumberToObject(p, "flops_per_byte", ks[i] * 2.0 / 4);
        cJSON_AddNumberToObject(p, "seconds", t[i]);
        cJSON_AddItemToArray(pts, p);
    }
    cJSON *qs = cJSON_AddArrayToObject(o, "errors");
    for (int qi = 0; qi < NQ; qi++) {
        cJSON *p = cJSON_CreateObject();
        cJSON_AddNumberToObject(p, "q", Q_CHOICES[qi]);
        cJSON_AddNumberToObject(p, "mean_abs_error", err[qi]);
        cJSON_AddItemToArray(qs, p);
    }
}

/* Chooses q on the sweep's times: the ceilings are the sweep's own ends (k = 0: memory; the
 * largest k: compute), the q whose combine rule predicts the points between best (mean |log
 * error|); q and the points into ci.combine, the compute end into ci.vector_flops. */
static void combine_rule(cJSON *ci, const char *what, double bytes, const int *ks, int nk, const double *t)
{
    double n = bytes / 4, err[NQ], best = INFINITY, q = 1;
    int last = nk - 1;
    double bw = bytes / t[0], fl = 2.0 * ks[last] * n / t[last];
    for (int qi = 0; qi < NQ; qi++) {
        err[qi] = 0;
        for (int i = 1; i < last; i++) {
            double pred = predict_combine(2.0 * ks[i] * n / fl, bytes / bw, Q_CHOICES[qi]);
            err[qi] += fabs(log(pred / t[i])) / (nk - 2);
        }
        if (err[qi] < best) {
            best = err[qi];
            q = Q_CHOICES[qi];
        }
    }
    cJSON_AddNumberToObject(ci, "vector_flops", fl);
    combine_json(ci, what, bytes, ks, nk, t, err, q, best);
}

int model_prec_combine(const struct prec_ops *po, struct prec_sweep *s, cJSON *ci, const int *ks, int nk,
                       const char *what, char *why, size_t n)
{
    struct sweep_ud u = { po, s, 0 };
    double t[MODEL_SWEEP_MAX], bytes = 4.0 * (double)s->n;
    int rc = po->sweep_setup(s, why, n) == PREC_OK ? 0 : -1;
    for (int i = 0; i < nk && rc == 0; i++) {
        u.k = ks[i];
        if (!((t[i] = model_timed(sweep_once, &u, "min")) > 0)) {
            snprintf(why, n, "the intensity sweep failed");
            rc = -1;
        }
    }
    po->sweep_release(s);
    if (rc == 0)
        combine_rule(ci, what, bytes, ks, nk, t);
    return rc;
}

static const cJSON *field(const cJSON *o, const char *name) { return cJSON_GetObjectItemCaseSensitive(o, name); }
static cJSON *part(cJSON *o, const char *name) { return cJSON_GetObjectItemCaseSensitive(o, name); }

/* ---- the ops of one configuration, each timed on its own ---- */

struct bench_cfg {
    const struct train_ops *ops;
    struct train_ctx *c;
    struct net_op *plan;
    int nops;
    unsigned char *scrub;       /* read between repetitions */
    size_t nscrub;
    double replay;              /* bytes of the preceding ops run before a timed op (0: the one before) */
};

static volatile unsigned long scrub_sink;
/* No scrub buffer: a GPU's L2 is not the host's caches; the op before each timed one still
 * leaves in it what a step would. */
#define NO_SCRUB ((size_t)-1)

/* Read between repetitions: the scrub_size asked, or 0 for the configuration's own (scrub_for). */
static size_t scrub_bytes(const cJSON *params)
{
    return cJSON_IsNumber(param_get(params, "scrub_size")) ? (size_t)param_num(params, "scrub_size") : 0;
}

/* The state a step leaves each op in, the rule stated once. When the whole step fits in all
 * caches (`caches` bytes), every op finds its inputs there: warm, only the op before it runs
 * just before it. When it does not, the ops that precede it in the step run untimed just before
 * it, as many as move `caches` bytes (read and written, going back round the step): the caches
 * then hold what the step's own recent traffic left, the inputs it reuses soon warm, those it
 * streams cold. A scrub_size given reads that many bytes instead, then the op before. The
 * replay's bytes into *replay; the scrub's bytes returned (NO_SCRUB: none). */
static size_t scrub_for(const struct train_config *cfg, size_t asked, double caches, double *replay,
                        const char **state)
{
    *replay = 0;
    if (asked == NO_SCRUB || asked > 0) {
        *state = asked == NO_SCRUB ? "after the op before it" : "after the scrub_size asked";
        return asked;
    }
    int warm = footprint(cfg) <= caches;
    *state = warm ? "warm" : "as the step leaves it";
    *replay = warm ? 0 : caches;
    return NO_SCRUB;
}

/* Reads the scrub buffer: the caches then hold its clean lines, which leave without a write-back. */
static void scrub_caches(struct bench_cfg *b)
{
    unsigned long sum = 0;
#pragma omp parallel for reduction(+ : sum) schedule(static)
    for (size_t i = 0; i < b->nscrub; i += 64)
        sum += b->scrub[i];
    scrub_sink += sum;
}

static int bench_open(struct bench_cfg *b, const struct train_ops *ops, const struct train_config *cfg,
                      size_t nscrub, char *err, size_t errlen)
{
    struct train_data data;
    memset(b, 0, sizeof *b);
    b->ops = ops;
    b->nscrub = nscrub == NO_SCRUB ? 0 : nscrub;
    b->scrub = b->nscrub ? xmalloc(b->nscrub) : NULL;
    if (b->scrub)
        memset(b->scrub, 1, b->nscrub);
    if (train_data_init(&data, cfg->shape.vocab, cfg->order, cfg->branching, cfg->seed, err, errlen) != 0)
        return -1;
    if (!(b->c = ops->open(&cfg->shape, cfg->prec, cfg->seed, err, errlen)))
        return -1;
    b->plan = net_plan_new(&cfg->shape, cfg->prec, &b->nops);
    const struct net_shape *s = &cfg->shape;
    size_t T = (size_t)s->batch * s->seq, n = T * s->accum;
    int32_t *tok = xmalloc(n * sizeof *tok), *tgt = xmalloc(n * sizeof *tgt);
    for (int mb = 0; mb < s->accum; mb++)
        train_data_batch(&data, 0, mb, s->batch, s->seq, tok + mb * T, tgt + mb * T);
    ops->load(b->c, tok, tgt);
    struct train_adam a = { 1e-4f, (float)TRAIN_BETA1, (float)TRAIN_BETA2, (float)TRAIN_EPS, 0.1f, 0.1f, 0.05f, 1.0f };
    ops->set_step(b->c, &a, 1.0f);
    free(tok);
    free(tgt);
    return 0;
}

static void bench_close(struct bench_cfg *b)
{
    if (b->c)
        b->ops->close(b->c);
    free(b->plan);
    free(b->scrub);
}

/* Seconds of one run of op i, in the state scrub_for's rule gives: the scrub buffer read (when
 * one was asked), then the ops before it in the step, untimed: the one before it, or as many as
 * move b->replay bytes. */
static double time_op(struct bench_cfg *b, int i)
{
    double s, moved = 0;
    int k = i;
    scrub_caches(b);
    do {                                /* back round the step until the bytes are moved */
        k = (k + b->nops - 1) % b->nops;
        moved += b->plan[k].bytes_read + b->plan[k].bytes_written;
    } while (moved < b->replay && (k + b->nops - 1) % b->nops != i);
    for (; k != i; k = (k + 1) % b->nops)
        b->ops->run(b->c, &b->plan[k]);
    b->ops->mark(b->c, 0);
    b->ops->run(b->c, &b->plan[i]);
    b->ops->mark(b->c, 1);
    b->ops->elapsed(b->c, 1, &s);
    return s;
}

/* One op timed on its own; config names the configuration it was timed in ("big", "v1", ...): each
 * configuration times its ops afresh, so one op shape can be timed in several. */
static cJSON *timed_json(const struct net_op *op, const char *config, const double *samples, int n, double med)
{
    int compute;
    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "series", "calibration");
    cJSON_AddStringToObject(r, "config", config);
    cJSON_AddStringToObject(r, "class", net_class_names[net_kinds[op->kind].cls]);
    cJSON_AddStringToObject(r, "kind", net_kinds[op->kind].name);
    cJSON_AddNumberToObject(r, "which", op->which);
    cJSON_AddStringToObject(r, "dtype", net_dtype_names[op->dtype]);
    cJSON_AddStringToObject(r, "dtype_out", net_dtype_names[op->dtype_out]);
    cJSON_AddNumberToObject(r, "m", op->m);
    cJSON_AddNumberToObject(r, "n", op->n);
    cJSON_AddNumberToObject(r, "k", op->k);
    cJSON_AddNumberToObject(r, "flops", op->flops);
    cJSON_AddNumberToObject(r, "bytes", op->bytes_read + op->bytes_written);
    cJSON_AddNumberToObject(r, "bytes_read", op->bytes_read);
    cJSON_AddItemToObject(r, "samples_s", cJSON_CreateDoubleArray(samples, n));
    cJSON_AddNumberToObject(r, "median_s", med);
    double x = predict_op_size(op, &compute);
    cJSON_AddStringToObject(r, "basis", compute ? "flops" : "bytes");
    cJSON_AddNumberToObject(r, "rate", x / med);
    cJSON_AddBoolToObject(r, "valid", 1);
    return r;
}

/* One training step: every op of the plan in order, a time mark between ops; op_s[nops]. */
static double train_step(struct bench_cfg *b, double *op_s)
{
    double t = 0;
    for (int i = 0; i < b->nops; i++) {
        b->ops->mark(b->c, i);
        b->ops->run(b->c, &b->plan[i]);
    }
    b->ops->mark(b->c, b->nops);
    b->ops->elapsed(b->c, b->nops, op_s);
    for (int i = 0; i < b->nops; i++)
        t += op_s[i];
    return t;
}

/* The measured side of a validation configuration as the record reads it: step samples, their
 * median, and the median per op class. */
static cJSON *steps_json(const struct bench_cfg *b, const double *step_s, const double *op_s, int n)
{
    cJSON *run = cJSON_CreateObject(), *ts = cJSON_AddObjectToObject(run, "time_s");
    double *col = xmalloc((size_t)n * sizeof *col);
    cJSON_AddItemToObject(run, "samples_s", cJSON_CreateDoubleArray(step_s, n));
    memcpy(col, step_s, (size_t)n * sizeof *col);
    cJSON_AddNumberToObject(ts, "median", measure_median(col, n));
    cJSON_AddItemToObject(run, "time_by_class_s", measure_class_medians(b->plan, b->nops, op_s, n));
    free(col);
    return run;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int model_disturbed(const double *step_s, int n, int *bad, double *limit)
{
    double v[OP_ROUNDS], mean = 0, var = 0;
    int k = n / 3 > 2 ? n / 3 : n < 2 ? n : 2, count = 0;
    memcpy(v, step_s, (size_t)n * sizeof *v);
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    for (int i = 0; i < k; i++)
        mean += v[i] / k;
    for (int i = 0; i < k; i++)
        var += (v[i] - mean) * (v[i] - mean) / (k > 1 ? k - 1 : 1);
    *limit = mean * (1 + fmax(DISTURB_MIN, DISTURB_SD * sqrt(var) / mean));
    for (int r = 0; r < n; r++)
        count += (bad[r] = step_s[r] > *limit);
    return count;
}

int model_drift(const double *step_s, int n, double *drift)
{
    double slopes[OP_ROUNDS * (OP_ROUNDS - 1) / 2], v[OP_ROUNDS];
    int m = 0, s = 0;
    *drift = 0;
    if (n < 4 || n > OP_ROUNDS)
        return 0;
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++) {
            s += (step_s[j] > step_s[i]) - (step_s[j] < step_s[i]);
            slopes[m++] = (step_s[j] - step_s[i]) / (j - i);
        }
    memcpy(v, step_s, (size_t)n * sizeof *v);
    qsort(slopes, (size_t)m, sizeof *slopes, cmp_double);
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    double slope = m % 2 ? slopes[m / 2] : (slopes[m / 2 - 1] + slopes[m / 2]) / 2;
    double median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    double z = (s - (s > 0) + (s < 0)) / sqrt(n * (n - 1) * (2.0 * n + 5) / 18);
    *drift = median > 0 ? slope * (n - 1) / median : 0;
    return fabs(z) >= MODEL_DRIFT_Z && fabs(*drift) >= MODEL_DRIFT_MIN;
}

struct model_ref model_ref_moved(const double *then_s, const double *now_s, const double *weight, int n,
                                 double step_s)
{
    struct model_ref r = { 0, 0, NAN, 0, 0 };
    for (int j = 0; j < n; j++)
        r.then_s += weight[j] * then_s[j], r.now_s += weight[j] * now_s[j];
    if (r.then_s > 0) {
        r.ratio = r.now_s / r.then_s;
        r.judged = r.then_s >= MODEL_REF_COVER * step_s;
        r.moved = r.judged && fabs(r.ratio - 1) > MODEL_REF_MOVED;
    }
    return r;
}

/* Drops round r's samples from each of the `rows` series of OP_ROUNDS (or width) values. */
static void drop_round(double *x, int rows, size_t width, int rounds, int r)
{
    for (int j = 0; j < rows; j++) {
        double *row = x + (size_t)j * width;
        memmove(row + r, row + r + 1, (size_t)(rounds - r - 1) * sizeof *row);
    }
}

/* Times every distinct op of cfg's plan on its own (none when held out), and whole training
 * steps, in rounds: each round times each op once, then trains one step (forward, backward, AdamW
 * update). The ops' medians and the steps' median then come from the same rounds: on a shared host
 * whose speed moves from minute to minute, a prediction and the measurement it is compared with
 * (a held-out configuration's reference and its steps, too) see the same machine, and a burst of
 * load costs one sample of many ops and of the steps alike. The big shape (CAL_ONLY) times its ops
 * in OP_TIMED rounds. Past `until` (timing_now's clock) no round starts
 * after the first MIN_ROUNDS (the first two when only ops are timed: compare needs two samples).
 * Rounds whose step was disturbed (model_disturbed) are dropped, steps and op samples alike, when
 * they are a third or fewer; more, and the samples are not one population: nothing goes into c
 * and the return is -2 (the caller reruns or excludes). Held out, the ops its prediction rests on
 * as timed (those c has) are timed again in its rounds as its reference, never into c: when they
 * take more or less than they did (model_ref_moved), the return is -2 too. The ops' medians go into c; *run gets the
 * steps. Returns the ops timed, or -1 with a message. */
enum cal_mode {
    CAL_VALIDATE,               /* ops timed, steps trained and vetted */
    CAL_HELD_OUT,               /* steps trained and vetted; the ops c has timed again, the reference */
    CAL_ONLY                    /* ops only (the big shape): OP_TIMED rounds, no step, nothing vetted */
};

static int calibrate_config(const struct train_ops *ops, const struct train_config *cfg, const char *id, size_t nscrub,
                            double replay, double until, enum cal_mode mode, struct predict_calib *c, cJSON *results,
                            cJSON **run, char *err, size_t errlen)
{
    int held_out = mode == CAL_HELD_OUT, steps = mode != CAL_ONLY;
    struct bench_cfg b;
    *run = NULL;
    if (bench_open(&b, ops, cfg, nscrub, err, errlen) != 0) {
        bench_close(&b);
        return -1;
    }
    b.replay = replay;
    double *op_s = xmalloc((size_t)b.nops * (OP_ROUNDS + 1) * sizeof *op_s), step_s[OP_ROUNDS];
    train_step(&b, op_s);               /* a warm-up step: every tensor holds real values */
    int *todo = xmalloc((size_t)b.nops * sizeof *todo), n = 0, bad[OP_ROUNDS];
    double *then = xcalloc((size_t)b.nops, sizeof *then), *weight = xcalloc((size_t)b.nops, sizeof *weight);
    struct predict_calib seen = { .peak = 1, .bw = 1 };
    for (int i = 0; i < b.nops; i++) {  /* its distinct ops not in c; held out, those in c (its reference) */
        double t = predict_calib_lookup(c, &b.plan[i]), at = predict_calib_lookup(&seen, &b.plan[i]);
        if (at < 0 && (held_out ? t >= 0 : t < 0)) {
            predict_calib_add(&seen, &b.plan[i], n);
            then[n] = t;
            at = n;
            todo[n++] = i;
        }
        if (at >= 0)
            weight[(int)at]++;
    }
    predict_calib_free(&seen);
    double *samples = xmalloc((size_t)(n ? n : 1) * OP_ROUNDS * sizeof *samples), limit = 0;
    int rounds = 0, most = steps ? OP_ROUNDS : OP_TIMED;
    for (; rounds < most && !progress_stopping() && (rounds < (steps ? MIN_ROUNDS : 2) || timing_now() < until);
         rounds++) {
        for (int j = 0; j < n; j++)
            samples[(size_t)j * OP_ROUNDS + rounds] = time_op(&b, todo[j]);
        step_s[rounds] = steps ? train_step(&b, op_s + (size_t)rounds * b.nops) : 0;
    }
    const char *failed = b.ops->error ? b.ops->error(b.c) : NULL;
    if (failed) {                       /* a call failed: its times are not times */
        snprintf(err, errlen, "%s", failed);
        rounds = -1;
    }
    int nbad = steps && rounds > 2 ? model_disturbed(step_s, rounds, bad, &limit) : 0, all = rounds;
    if (nbad * 3 > rounds) {
        *run = steps_json(&b, step_s, op_s, rounds);
        snprintf(err, errlen, "its step times are not one population: %d of %d steps took longer than %.3g s, "
                 "beyond the noise of the fastest (another process had the cores)", nbad, rounds, limit);
        rounds = -2;
    }
    for (int r = all - 1; r >= 0 && rounds > 0 && nbad > 0; r--)
        if (bad[r]) {                   /* a disturbed round: its step and its ops' samples go */
            drop_round(samples, n, OP_ROUNDS, rounds, r);
            drop_round(step_s, 1, OP_ROUNDS, rounds, r);
            memmove(op_s + (size_t)r * b.nops, op_s + (size_t)(r + 1) * b.nops,
                    (size_t)(rounds - r - 1) * b.nops * sizeof *op_s);
            rounds--;
        }
    int kept = rounds;                  /* the rounds every record below holds, the disturbed ones gone */
    cJSON *reference = NULL;
    if (held_out && rounds > 0 && n > 0) {
        double *now = xmalloc((size_t)n * sizeof *now), step = predict_step_seconds(c, &cfg->shape, cfg->prec, NULL);
        for (int j = 0; j < n; j++)
            now[j] = measure_median(samples + (size_t)j * OP_ROUNDS, rounds);
        struct model_ref ref = model_ref_moved(then, now, weight, n, step);
        free(now);
        reference = cJSON_CreateObject();
        cJSON_AddNumberToObject(reference, "ops", n);
        cJSON_AddNumberToObject(reference, "rounds", rounds);
        cJSON_AddNumberToObject(reference, "then_s", ref.then_s);
        cJSON_AddNumberToObject(reference, "now_s", ref.now_s);
        cJSON_AddNumberToObject(reference, "ratio", ref.ratio);
        cJSON_AddNumberToObject(reference, "covers", ref.then_s / step);
        cJSON_AddBoolToObject(reference, "judged", ref.judged);
        if (ref.moved) {
            *run = steps_json(&b, step_s, op_s, rounds);
            snprintf(err, errlen, "the machine moved since the ops its prediction rests on were timed: those %d ops, "
                     "timed again beside its steps, take %.3g s a step where they took %.3g s (%+.0f %%, more than "
                     "%.0f %%)", n, ref.now_s, ref.then_s, 100 * (ref.ratio - 1), 100 * MODEL_REF_MOVED);
            rounds = -2;
        }
    }
    double drift;
    if (rounds > 0 && steps && model_drift(step_s, rounds, &drift)) {
        *run = steps_json(&b, step_s, op_s, rounds);
        snprintf(err, errlen, "its step times drift: %+.1f %% across %d rounds (Theil-Sen slope, Mann-Kendall trend at 5 "
                 "%%), from %.3g s to %.3g s: the machine's load changed while it ran", 100 * drift, rounds, step_s[0],
                 step_s[rounds - 1]);
        cJSON_AddNumberToObject(*run, "drift", drift);
        rounds = -2;
    }
    for (int j = 0; j < n && rounds > 0 && !held_out; j++) {
        double *x = samples + (size_t)j * OP_ROUNDS, med = measure_median(x, rounds);
        predict_calib_add(c, &b.plan[todo[j]], med);
        cJSON_AddItemToArray(results, timed_json(&b.plan[todo[j]], id, x, rounds, med));
    }
    if (rounds > 0 && steps)
        *run = steps_json(&b, step_s, op_s, rounds);
    if (*run && kept > 0) {             /* measured, or excluded (moved, drifting): its rounds all told */
        cJSON_AddNumberToObject(*run, "rounds_dropped", all - kept);
        if (all > kept)
            cJSON_AddNumberToObject(*run, "disturbed_above_s", limit);
    }
    if (*run && reference)
        cJSON_AddItemToObject(*run, "reference", reference);
    else
        cJSON_Delete(reference);
    free(then);
    free(weight);
    free(samples);
    free(todo);
    free(op_s);
    bench_close(&b);
    return rounds < 0 ? rounds : rounds > 0 ? n : 0;
}

/* ---- prediction and validation ---- */


/* How a configuration was validated (the record's words beside its figures). */
struct vcase {
    const char *regime;             /* its step's footprint against all caches: "cache" (within them), "dram"
                                       (DRAM_FACTOR x or more), "between" */
    const char *op_state;           /* scrub_for's: "warm", "cold", ... */
    double footprint;               /* bytes a step holds */
    int held_out;                   /* predicted without timing its own ops */
    const char *excluded;           /* why it is left out of the summary (NULL: counted) */
    const char *rerun;              /* why it was measured a second time (NULL: once) */
};

/* error = predicted / measured - 1 of the medians, the one error of a configuration (positive:
 * predicted slow); the table, the summary and the bias all use it. */
static cJSON *validation_json(const struct train_config *cfg, int idx, double pred, const double *by_class,
                              const cJSON *run, const struct vcase *vc)
{
    char name[96], id[16];
    const struct net_shape *s = &cfg->shape;
    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "series", "validation");
    cJSON_AddStringToObject(r, "config", config_id(idx, id, sizeof id));
    cJSON_AddStringToObject(r, "label", config_name(cfg, name, sizeof name));
    cJSON_AddNumberToObject(r, "layers", s->layers);
    cJSON_AddNumberToObject(r, "hidden", s->hidden);
    cJSON_AddNumberToObject(r, "heads", s->heads);
    cJSON_AddNumberToObject(r, "seq", s->seq);
    cJSON_AddNumberToObject(r, "vocab", s->vocab);
    cJSON_AddNumberToObject(r, "batch", s->batch);
    cJSON_AddNumberToObject(r, "accum", s->accum);
    cJSON_AddBoolToObject(r, "checkpoint", s->checkpoint);
    cJSON_AddStringToObject(r, "precision", net_prec_names[cfg->prec]);
    cJSON_AddNumberToObject(r, "tokens_per_step", (double)s->batch * s->seq * s->accum);
    cJSON_AddStringToObject(r, "regime", vc->regime);
    cJSON_AddStringToObject(r, "op_state", vc->op_state);
    cJSON_AddNumberToObject(r, "footprint_bytes", vc->footprint);
    cJSON_AddBoolToObject(r, "held_out", vc->held_out);
    if (vc->rerun)
        cJSON_AddStringToObject(r, "rerun", vc->rerun);
    cJSON_AddNumberToObject(r, "predicted_s", pred);
    cJSON *pc = cJSON_AddObjectToObject(r, "predicted_by_class_s");
    for (int k = 0; k < NET_NCLASSES; k++)
        cJSON_AddNumberToObject(pc, net_class_names[k], by_class[k]);
    const cJSON *ts = run ? field(field(run, "time_s"), "median") : NULL;
    if (!cJSON_IsNumber(ts)) {
        const cJSON *e = run ? field(run, "error") : NULL;
        cJSON_AddBoolToObject(r, "valid", 0);
        cJSON_AddStringToObject(r, "failure", cJSON_IsString(e) ? e->valuestring
                                : "no step was timed within the budget");
        return r;
    }
    cJSON_AddNumberToObject(r, "measured_s", ts->valuedouble);
    cJSON_AddItemToObject(r, "samples_s", cJSON_Duplicate(field(run, "samples_s"), 1));
    cJSON_AddItemToObject(r, "measured_by_class_s", cJSON_Duplicate(field(run, "time_by_class_s"), 1));
    cJSON_AddNumberToObject(r, "rounds_dropped", json_num(run, "rounds_dropped", 0));
    if (cJSON_IsNumber(field(run, "disturbed_above_s")))
        cJSON_AddNumberToObject(r, "disturbed_above_s", field(run, "disturbed_above_s")->valuedouble);
    if (field(run, "reference"))
        cJSON_AddItemToObject(r, "reference", cJSON_Duplicate(field(run, "reference"), 1));
    cJSON_AddNumberToObject(r, "error", pred / ts->valuedouble - 1);
    if (vc->excluded)
        cJSON_AddStringToObject(r, "excluded", vc->excluded);
    cJSON_AddBoolToObject(r, "valid", 1);
    return r;
}

/* Kendall's tau-a between predicted and measured over n configurations. */
static double kendall(const double *p, const double *m, int n)
{
    int c = 0, d = 0;
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++) {
            double s = (p[i] - p[j]) * (m[i] - m[j]);
            c += s > 0;
            d += s < 0;
        }
    return n > 1 ? (double)(c - d) / (n * (n - 1) / 2) : NAN;
}

/* mean and max |error| of the records that match (NULL: any) into o; n matched. */
static int group_json(cJSON *o, const char *name, const cJSON *recs, const char *regime, int held)
{
    double mean = 0, mx = 0, lg = 0;
    int n = 0;
    const cJSON *r;
    cJSON_ArrayForEach(r, recs) {
        if ((regime && strcmp(json_str(r, "regime", ""), regime) != 0)
            || (held >= 0 && cJSON_IsTrue(field(r, "held_out")) != held))
            continue;
        double e = json_num(r, "error", NAN);
        mean += fabs(e);
        mx = fmax(mx, fabs(e));
        lg += log1p(e);
        n++;
    }
    if (n == 0)
        return 0;
    cJSON *g = cJSON_AddObjectToObject(o, name);
    cJSON_AddNumberToObject(g, "n", n);
    cJSON_AddNumberToObject(g, "mean_abs_error", mean / n);
    cJSON_AddNumberToObject(g, "max_abs_error", mx);
    cJSON_AddNumberToObject(g, "bias", exp(lg / n));
    return n;
}

/* The summary over the counted records (valid, not excluded): the same errors as the table. */
static void summary_json(cJSON *info, const cJSON *counted, int excluded, const char *device)
{
    double pred[NCONFIGS], meas[NCONFIGS], mean = 0, mx = 0, lg = 0, lg2 = 0;
    int n = 0;
    const cJSON *r;
    cJSON_ArrayForEach(r, counted) {
        double e = json_num(r, "error", NAN), l = log1p(e);
        pred[n] = json_num(r, "predicted_s", NAN);
        meas[n++] = json_num(r, "measured_s", NAN);
        mean += fabs(e);
        mx = fmax(mx, fabs(e));
        lg += l;
        lg2 += l * l;
    }
    if (n == 0)
        return;
    mean /= n;
    cJSON *v = cJSON_AddObjectToObject(info, "validation");
    cJSON_AddStringToObject(v, "device", device);
    cJSON_AddStringToObject(v, "covers", "this machine's own training steps on this device, with steps that fit its "
                            "caches and steps that stream from DRAM: it validates the method here, not the "
                            "projections onto other systems");
    cJSON_AddStringToObject(v, "error_rule", "error = predicted / measured - 1 of the medians (positive: predicted "
                            "slow); bias = the geometric mean of predicted / measured (above 1: predicted slow)");
    cJSON_AddNumberToObject(v, "n", n);
    cJSON_AddNumberToObject(v, "excluded", excluded);
    cJSON_AddNumberToObject(v, "mean_abs_error", mean);
    cJSON_AddNumberToObject(v, "max_abs_error", mx);
    cJSON_AddNumberToObject(v, "bias", exp(lg / n));
    cJSON_AddNumberToObject(v, "spread", n > 1 ? sqrt(fmax(0, (lg2 - lg * lg / n) / (n - 1))) : 0);
    if (n > 1)
        cJSON_AddNumberToObject(v, "kendall_tau", kendall(pred, meas, n));
    cJSON *g = cJSON_AddObjectToObject(v, "groups");
    group_json(g, "cache", counted, "cache", -1);
    group_json(g, "dram", counted, "dram", -1);
    group_json(g, "held_out", counted, NULL, 1);
    group_json(g, "timed", counted, NULL, 0);
    cJSON *cal = cJSON_AddObjectToObject(v, "calculon");
    cJSON_AddNumberToObject(cal, "mean", 0.0365);
    cJSON_AddNumberToObject(cal, "max", 0.0887);
    cJSON_AddStringToObject(cal, "source", "Calculon (Isaev et al., SC23): 8 Megatron step times on A100, re-run");
}

/* One curve as info.calibration lists it: its class, dtype ("all": a class's), basis, ceiling and points. */
static cJSON *curve_json(cJSON *list, const struct predict_curve *cv, enum net_class k, const char *dtype, int per_dtype)
{
    cJSON *e = cJSON_CreateObject();
    int compute = predict_compute_class(k);
    cJSON_AddStringToObject(e, "class", net_class_names[k]);
    cJSON_AddStringToObject(e, "dtype", dtype);
    cJSON_AddStringToObject(e, "basis", compute ? "flops" : "bytes");
    cJSON_AddStringToObject(e, "against", !compute ? "bandwidth_Bps" : per_dtype ? "peak_flops of each op's dtype"
                            : "peak_flops.fp32");
    cJSON *pts = cJSON_AddArrayToObject(e, "points");
    for (int i = 0; i < cv->n; i++) {
        cJSON *p = cJSON_CreateObject();
        cJSON_AddNumberToObject(p, "x", cv->x[i]);
        cJSON_AddNumberToObject(p, "eta", cv->eta[i]);
        cJSON_AddItemToArray(pts, p);
    }
    cJSON_AddItemToArray(list, e);
    return e;
}

/* The calibration's curves and fit, after its ceilings (info.calibration: ci): each class's, and
 * each memory-bound kind's, which its ops follow (predict_op_curve). */
static void curves_json(cJSON *ci, const struct predict_calib *c)
{
    cJSON_AddNumberToObject(ci, "spread", c->spread);
    cJSON_AddNumberToObject(ci, "ops_measured", c->ntimed);
    int per_dtype = 0;
    for (int d = 0; d < NET_NDTYPES; d++)
        per_dtype |= d != NET_DT_F32 && c->peak_dtype[d] > 0;
    cJSON *cls = cJSON_AddArrayToObject(ci, "classes"), *kinds = cJSON_AddArrayToObject(ci, "kinds");
    for (int k = 0; k < NET_NCLASSES; k++)
        if (c->curve[k].n > 0)
            curve_json(cls, &c->curve[k], k, "all", per_dtype);
    for (int i = 0; i < c->nkind; i++) {
        const struct predict_kind_curve *kc = &c->kind_curve[i];
        cJSON *e = curve_json(kinds, &kc->curve, net_kinds[kc->kind].cls, net_dtype_names[kc->dtype], per_dtype);
        cJSON_AddStringToObject(e, "kind", net_kinds[kc->kind].name);
        cJSON_AddStringToObject(e, "dtype_out", net_dtype_names[kc->dtype_out]);
    }
    cJSON_AddStringToObject(ci, "curve_rule", "a memory-bound op (norm, elementwise, loss, optimizer, other) follows the "
                            "curve of its own kind and dtypes (kinds: one per kind, dtype and dtype_out timed), a matmul "
                            "or attention op its class's; a memory-bound op whose kind and dtypes no configuration timed "
                            "follows its class's curve");
}

/* ---- the run ---- */

/* One device's calibration: the trainer whose ops are timed, whether a host buffer is read
 * between op timings (the CPU's caches), its ceilings, and whether ceilings it cannot measure
 * leave the experiment not measured (a GPU that refuses) rather than failed (the CPU). */
struct vdevice {
    const char *device;
    const char *family;             /* the trainer's backend_for family */
    int scrub_host;
    int (*ceilings)(cJSON *ci, cJSON *info, const struct model_gemms *shapes, char *why, size_t n);
    int refusal_skips;
    /* The fastest repetition of the device's GEMM at an op's shape (row-major m x n x k, A and B
     * transposed or not), FLOP/s: the matmul ceiling measured again. NULL: none. */
    double (*gemm)(int ta, int tb, int m, int n, int k);
};
static const struct vdevice vdevices[] = {
    { "cpu", "train", 1, model_cpu_ceilings, 0, model_cpu_gemm },
    { "gpu", "train", 0, model_gpu_ceilings, 1, NULL },
};

/* What a device's run would have measured, each as not measured with one reason (without a
 * device: the driver's). */
static void skip_device(cJSON *skipped, const char *device, const char *why)
{
    char item[96];
    snprintf(item, sizeof item, "model %s: calibration (matmul peaks, bandwidth, launch cost, ops timed on their own)",
             device);
    measure_skip(skipped, item, why);
    snprintf(item, sizeof item, "model %s: validation (training configurations predicted, then measured)", device);
    measure_skip(skipped, item, why);
    snprintf(item, sizeof item, "model %s: projection from this device's calibration", device);
    measure_skip(skipped, item, why);
}

static const struct vdevice *vdevice_of(const char *device)
{
    for (size_t i = 0; i < sizeof vdevices / sizeof vdevices[0]; i++)
        if (strcmp(vdevices[i].device, device) == 0)
            return &vdevices[i];
    return NULL;
}

/* The configurations validated, in config_order's order: a timed one's ops are timed afresh
 * beside its training steps and its step predicted from them (their first times kept in cal);
 * a held-out one only trains, its step predicted from cal. Samples that are not one population
 * are measured again once; still so, the configuration is shown but left out of the summary
 * with the reason. The records, then the summary. */
struct vrun {
    const struct train_ops *ops;
    const cJSON *params;
    size_t scrub;                   /* scrub_size asked, NO_SCRUB (a GPU), or 0: scrub_for's rule */
    double caches;                  /* bytes, all levels (the host's) */
    double t0, budget_s;            /* when the experiment started; its share of the budget */
};

/* Seconds a configuration needs at least, as the calibration so far predicts it: the warm-up step
 * and MIN_ROUNDS rounds, each a step and every op timed on its own (held out, those its reference
 * times again: at most as many; about a step more, and before each op the replay of the ops that
 * move `replay` bytes: that share of a step's bytes, and so of its time). */
static double config_cost(const struct predict_calib *cal, const struct train_config *cfg, double replay)
{
    int nops;
    double step = predict_step_seconds(cal, &cfg->shape, cfg->prec, NULL), bytes = 0;
    struct net_op *plan = net_plan_new(&cfg->shape, cfg->prec, &nops);
    for (int i = 0; i < nops; i++)
        bytes += plan[i].bytes_read + plan[i].bytes_written;
    free(plan);
    double ops = step * (1 + (bytes > 0 ? nops * fmin(1, replay / bytes) : 0));
    return step * WARMUP + MIN_ROUNDS * (step + ops);
}

/* One configuration measured (and, unless held out, its ops timed into a fresh calibration);
 * the prediction into *pred; the steps' record into *run; 0, -2 (not one population) or -1. */
static int measure_config(const struct vrun *vr, const struct train_config *cfg, int idx, int held, size_t scrub,
                          double replay, double until, struct predict_calib *cal, cJSON *results, double *pred,
                          double *by_class, cJSON **run, char *why, size_t n)
{
    char id[16];
    struct predict_calib fresh = *cal;
    fresh.timed = NULL;
    fresh.ntimed = fresh.captimed = 0;
    memset(fresh.curve, 0, sizeof fresh.curve);
    fresh.nkind = 0;
    cJSON *recs = cJSON_CreateArray();
    int rc = calibrate_config(vr->ops, cfg, config_id(idx, id, sizeof id), scrub, replay, until,
                              held ? CAL_HELD_OUT : CAL_VALIDATE, held ? cal : &fresh, recs, run, why, n);
    if (rc >= 0) {
        *pred = predict_step_seconds(held ? cal : &fresh, &cfg->shape, cfg->prec, by_class);
        for (int j = 0; j < fresh.ntimed; j++) {    /* the calibration keeps the first time of each op */
            const struct predict_timed *t = &fresh.timed[j];
            struct net_op op = { .kind = t->kind, .which = t->which, .dtype = t->dtype, .dtype_out = t->dtype_out,
                                   .m = t->m, .n = t->n, .k = t->k, .flops = t->flops,
                                   .bytes_read = t->bytes_read, .bytes_written = t->bytes - t->bytes_read };
            if (predict_calib_lookup(cal, &op) < 0)
                predict_calib_add(cal, &op, t->seconds);
        }
        cJSON *r;
        while ((r = cJSON_DetachItemFromArray(recs, 0)))
            cJSON_AddItemToArray(results, r);
    }
    cJSON_Delete(recs);
    predict_calib_free(&fresh);
    return rc < 0 ? rc : 0;
}

/* The time configuration order[k] may take of the `left` seconds: its part of them as its rounds'
 * cost is part of what the configurations from k on need (config_cost, with the calibration so
 * far), at least its own need; so each runs as many rounds as the budget allows the rest, and a
 * DRAM-bound one, whose rounds cost ten times a cached one's, is not cut to MIN_ROUNDS while
 * cheap ones finish early. */
static double config_share(const struct predict_calib *cal, const struct vrun *vr, const struct train_config *cfg,
                           const int *order, int n, int k, double left)
{
    double need = 0, all = 0;
    for (int j = k; j < n; j++) {
        double replay, c;
        const char *state;
        scrub_for(&cfg[order[j]], vr->scrub, vr->caches, &replay, &state);
        c = config_cost(cal, &cfg[order[j]], replay);
        all += c;
        if (j == k)
            need = c;
    }
    return all > 0 ? fmax(need, left * need / all) : need;
}

static void model_configs(const struct vdevice *d, const struct vrun *vr, const struct train_config *cfg,
                             struct predict_calib *cal, cJSON *out)
{
    cJSON *results = part(out, "results"), *skipped = part(out, "skipped"), *vals = cJSON_CreateArray(), *v;
    cJSON *counted = cJSON_CreateArray();
    int order[NCONFIGS], held[NCONFIGS], n = config_order(vr->params, d->device, order, held), excluded = 0;
    char name[96], why[300], first[300];
    for (int k = 0; k < n; k++) {
        int i = order[k];
        double by_class[NET_NCLASSES] = { 0 }, pred = NAN;
        struct vcase vc = { NULL, NULL, footprint(&cfg[i]), held[k], NULL, NULL };
        config_name(&cfg[i], name, sizeof name);
        vc.regime = vc.footprint <= vr->caches ? "cache" : vc.footprint >= DRAM_FACTOR * vr->caches ? "dram" : "between";
        double replay, now = timing_now(), left = vr->t0 + vr->budget_s - now;
        size_t scrub = scrub_for(&cfg[i], vr->scrub, vr->caches, &replay, &vc.op_state);
        double need = config_cost(cal, &cfg[i], replay);
        if (progress_stopping() || need > left) {
            if (!progress_stopping())
                snprintf(why, sizeof why, "the experiment's time share was spent before it (%.1f s left; its %d rounds "
                         "need about %.1f s)", fmax(left, 0), MIN_ROUNDS, need);
            measure_skip(skipped, name, progress_stopping() ? "the run was interrupted" : why);
            continue;
        }
        progress_step(1 + 2 * k, name);
        double until = now + config_share(cal, vr, cfg, order, n, k, left);
        cJSON *run = NULL;
        int rc = measure_config(vr, &cfg[i], i, held[k], scrub, replay, until, cal, results, &pred, by_class, &run, why,
                                sizeof why);
        need = config_cost(cal, &cfg[i], replay);
        if (rc == -2 && (timing_now() > vr->t0 + RERUN_SHARE * vr->budget_s
                         || timing_now() + need > vr->t0 + vr->budget_s)) {
            vc.excluded = why;          /* no time to measure it again */
            pred = predict_step_seconds(cal, &cfg[i].shape, cfg[i].prec, by_class);
        } else if (rc == -2) {          /* not one population: once more */
            snprintf(first, sizeof first, "%s", why);
            vc.rerun = first;
            cJSON_Delete(run);
            run = NULL;
            now = timing_now();
            until = now + config_share(cal, vr, cfg, order, n, k, vr->t0 + vr->budget_s - now);
            rc = measure_config(vr, &cfg[i], i, held[k], scrub, replay, until, cal, results, &pred, by_class, &run, why,
                                sizeof why);
            if (rc == -2) {
                vc.excluded = why;
                pred = predict_step_seconds(cal, &cfg[i].shape, cfg[i].prec, by_class);
            }
        }
        if (rc == -1) {
            measure_skip(skipped, name, why);
            cJSON_Delete(run);
            continue;
        }
        v = validation_json(&cfg[i], i, pred, by_class, run, &vc);
        cJSON_Delete(run);
        if (cJSON_IsTrue(field(v, "valid")) && !vc.excluded)
            cJSON_AddItemReferenceToArray(counted, v);
        excluded += vc.excluded != NULL;
        cJSON_AddItemToArray(vals, v);
    }
    summary_json(part(out, "info"), counted, excluded, d->device);
    cJSON_Delete(counted);
    while ((v = cJSON_DetachItemFromArray(vals, 0)))
        cJSON_AddItemToArray(results, v);
    cJSON_Delete(vals);
}

/* One larger shape, timed op by op (OP_TIMED rounds, down to two past its share of the time: one
 * of `shares`) but never trained: the curves reach beyond the caches. */
static struct train_config big_config(const struct train_config *base)
{
    struct train_config big = *base;
    big.shape.hidden *= 4;
    big.shape.heads *= 4;
    big.shape.seq *= 4;
    big.shape.layers = 1;
    return big;
}

static void calibrate_big(const struct vrun *vr, const struct train_config *base, struct predict_calib *cal,
                          int shares, cJSON *out)
{
    struct train_config big = big_config(base);
    char name[96], why[300];
    const char *state;
    double replay;
    cJSON *run;
    config_name(&big, name, sizeof name);
    progress_step(0, name);
    size_t scrub = scrub_for(&big, vr->scrub, vr->caches, &replay, &state);
    double now = timing_now(), until = now + (vr->t0 + vr->budget_s - now) / shares;
    if (calibrate_config(vr->ops, &big, "big", scrub, replay, until, CAL_ONLY, cal, part(out, "results"), &run, why,
                         sizeof why) < 0)
        measure_skip(part(out, "skipped"), name, why);
    cJSON_Delete(run);
}

/* The distinct matmul shapes of the configurations (the big one included) that bound their rate
 * best: the largest smallest dimension first (a skinny product, a vocabulary-wide LM head over a
 * few tokens, streams its weights and never reaches the GEMM rate), then the most FLOPs. */
static void gemm_shapes(const struct train_config *cfg, const int *order, int n, struct model_gemms *out)
{
    double flops[MODEL_GEMMS];          /* the sort key: min(m, n, k) x 1e15 + FLOPs */
    struct train_config big = big_config(&cfg[0]);
    out->n = 0;
    for (int i = 0; i <= n; i++) {
        const struct train_config *c = i < n ? &cfg[order[i]] : &big;
        int nops;
        struct net_op *plan = net_plan_new(&c->shape, c->prec, &nops);
        for (int j = 0; j < nops; j++) {
            const struct net_op *op = &plan[j];
            int seen = 0, at = out->n;
            if (net_kinds[op->kind].cls != NET_MATMUL)
                continue;
            double key = fmin(op->m, fmin(op->n, op->k)) * 1e15 + op->flops;
            for (int s = 0; s < out->n; s++)
                seen |= out->mnk[s][0] == op->m && out->mnk[s][1] == op->n && out->mnk[s][2] == op->k;
            while (!seen && at > 0 && flops[at - 1] < key)
                at--;                   /* sorted by the key, largest first */
            if (seen || at == MODEL_GEMMS)
                continue;
            int last = out->n < MODEL_GEMMS ? out->n++ : MODEL_GEMMS - 1;
            for (int s = last; s > at; s--) {
                memcpy(out->mnk[s], out->mnk[s - 1], sizeof out->mnk[s]);
                flops[s] = flops[s - 1];
            }
            out->mnk[at][0] = op->m, out->mnk[at][1] = op->n, out->mnk[at][2] = op->k;
            flops[at] = key;
        }
        free(plan);
    }
}

/* The trainer's layout of a matmul op's cblas_sgemm (train_cpu.c): forward B transposed, wgrad A
 * transposed and m x n x k as (out, in, T); dgrad (T, in, out). */
static void op_gemm(const cJSON *r, int *ta, int *tb, int *m, int *n, int *k)
{
    const char *kind = json_str(r, "kind", "");
    int T = (int)json_num(r, "m", 0), out = (int)json_num(r, "n", 0), in = (int)json_num(r, "k", 0);
    *ta = strcmp(kind, "matmul_wgrad") == 0;
    *tb = strcmp(kind, "matmul") == 0;
    *m = *ta ? out : T;
    *n = *ta || *tb == 0 ? in : out;
    *k = *ta ? T : *tb ? in : out;
}

/* The dtype index of a record's dtype name, or -1. */
static int dtype_of(const cJSON *r)
{
    for (int d = 0; d < NET_NDTYPES; d++)
        if (strcmp(json_str(r, "dtype", ""), net_dtype_names[d]) == 0)
            return d;
    return -1;
}

int model_recheck_peak(cJSON *ci, struct predict_calib *cal, const cJSON *results,
                       double (*gemm)(int ta, int tb, int m, int n, int k))
{
    const cJSON *r, *top = NULL;
    double worst = 1;
    int dt = -1;
    cJSON_ArrayForEach(r, results) {
        int t = dtype_of(r);
        if (strcmp(json_str(r, "series", ""), "calibration") != 0 || strcmp(json_str(r, "class", ""), "matmul") != 0
            || t < 0)
            continue;
        int own = t != NET_DT_F32 && cal->peak_dtype[t] > 0;     /* else judged against FP32's */
        double over = json_num(r, "flops", 0) / json_num(r, "median_s", INFINITY) / (own ? cal->peak_dtype[t] : cal->peak);
        if (over > worst) {
            worst = over;
            top = r;
            dt = own ? t : NET_DT_F32;
        }
    }
    if (!top)
        return 0;
    int ta, tb, m, n, k;
    double before = dt == NET_DT_F32 ? cal->peak : cal->peak_dtype[dt], rate = worst * before;
    op_gemm(top, &ta, &tb, &m, &n, &k);
    double again = gemm && dt == NET_DT_F32 ? gemm(ta, tb, m, n, k) : NAN;
    double now = fmax(rate, isfinite(again) ? again : 0);
    if (dt != NET_DT_F32)
        cal->peak_dtype[dt] = now;
    else {
        cal->peak = now;
        if (cal->peak_dtype[NET_DT_F32] > 0)
            cal->peak_dtype[NET_DT_F32] = now;
    }
    cJSON *o = cJSON_AddObjectToObject(ci, "remeasured");
    cJSON_AddStringToObject(o, "dtype", net_dtype_names[dt]);
    cJSON_AddNumberToObject(o, "before_flops", before);
    cJSON_AddNumberToObject(o, "op_flops", rate);
    cJSON_AddStringToObject(o, "op", json_str(top, "kind", "?"));
    cJSON_AddStringToObject(o, "config", json_str(top, "config", "?"));
    cJSON_AddNumberToObject(o, "m", m);
    cJSON_AddNumberToObject(o, "n", n);
    cJSON_AddNumberToObject(o, "k", k);
    if (isfinite(again))
        cJSON_AddNumberToObject(o, "again_flops", again);
    cJSON_AddStringToObject(o, "rule", "a matmul op timed on its own ran faster than the matmul ceiling: the ceiling "
                            "was measured again at its shape and is the fastest of that, the op and the first ceiling");
    cJSON_ReplaceItemInObjectCaseSensitive(cJSON_GetObjectItemCaseSensitive(ci, "peak_flops"), net_dtype_names[dt],
                                           cJSON_CreateNumber(now));
    predict_calib_rebuild(cal);
    return 1;
}

cJSON *model_run(const cJSON *params, double budget_s, char *err, size_t errlen)
{
    struct train_config cfg[NCONFIGS];
    struct predict_calib cal = { 0 };
    struct machine_cpu cpu;
    const char *device = param_str(params, "device");
    const struct vdevice *d = vdevice_of(device);
    int order[NCONFIGS], held[NCONFIGS], n = config_order(params, device, order, held);
    char phase[32], why[300], rule[600];
    double t0 = timing_now();
    budget_s = measure_budget(params, budget_s);
    machine_cpu(&cpu);
    configs(params, machine_cache_total(&cpu), cfg);
    cJSON *out = cJSON_CreateObject();
    cJSON_AddArrayToObject(out, "results");
    cJSON *skipped = cJSON_AddArrayToObject(out, "skipped"), *info = cJSON_AddObjectToObject(out, "info");
    const struct train_ops *ops = backend_for(d->family, d->device, why, sizeof why);
    if (!ops) {                         /* no device (or no CUDA in this build): the driver's words */
        skip_device(skipped, device, why);
        return out;
    }
    snprintf(phase, sizeof phase, "model %s", device);
    progress_begin(phase, 2 * n + 1, budget_s);
    progress_step(0, "calibration: matmul peak, bandwidth, intensity sweep, fixed cost per op");
    cJSON *ci = cJSON_AddObjectToObject(info, "calibration");
    struct model_gemms shapes;
    gemm_shapes(cfg, order, n, &shapes);
    if (d->ceilings(ci, info, &shapes, why, sizeof why) != 0 || predict_calib_ceilings(ci, &cal, why, sizeof why) != 0) {
        progress_end();
        if (d->refusal_skips) {         /* a device that went away, or refused: not measured */
            cJSON_DeleteItemFromObject(info, "calibration");
            skip_device(skipped, device, why);
            return out;
        }
        snprintf(err, errlen, "model: %s", why);
        cJSON_Delete(out);
        return NULL;
    }
    struct vrun vr = { ops, params, d->scrub_host ? scrub_bytes(params) : NO_SCRUB, machine_cache_total(&cpu), t0,
                       budget_s };
    cJSON_AddNumberToObject(info, "ceilings_s", timing_now() - t0);     /* fixed: before any share is checked */
    cJSON_AddNumberToObject(info, "caches_total_bytes", vr.caches);
    snprintf(rule, sizeof rule, "each op timed on its own in the state the step leaves it in: when what a step holds "
             "fits in all caches, warm, after the op before it; when it does not, after the ops that precede it in "
             "the step, run untimed, as many as move all caches' worth of bytes (the inputs the step reuses soon are "
             "then warm, those it streams cold); in each of its %d rounds, beside its step, so that the ops' medians "
             "and the steps' come from the same rounds (a shared host's speed moves from minute to minute)",
             OP_ROUNDS);
    cJSON_AddStringToObject(info, "op_state_rule", rule);
    calibrate_big(&vr, &cfg[0], &cal, n + 1, out);
    model_configs(d, &vr, cfg, &cal, out);
    model_recheck_peak(ci, &cal, part(out, "results"), d->gemm);
    if (field(ci, "device_name") && field(info, "validation"))
        cJSON_AddStringToObject(part(info, "validation"), "device_name", json_str(ci, "device_name", ""));
    predict_calib_finish(&cal);
    curves_json(ci, &cal);
    progress_step(2 * n + 1, "done");
    progress_end();
    predict_calib_free(&cal);
    return out;
}
