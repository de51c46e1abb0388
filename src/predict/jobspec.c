/* jobspec.c: a job's table checked against jobspec_params, its shape typed or read from a Hugging
 * Face config.json (hfconfig.c) with the fields given beside it overriding the file, turned into the
 * projection's struct predict_workload, and refused where it cannot run or makes no physical sense,
 * naming the field as its author wrote it. What the job costs in time is the projection's. */
#include "predict/jobspec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "predict/hfconfig.h"
#include "predict/stack.h"
#include "util/fsutil.h"
#include "util/json.h"
#include "util/sha256.h"

#define SHARDINGS "auto|ddp|zero1|zero2|zero3|fsdp"     /* 0: auto; else ZeRO stage + 1 (fsdp: 3) */
#define CKPTS "auto|none|full"                          /* enum predict_ckpt */
#define OPTIMIZERS "auto|adamw|adamw-bf16|adam8bit"     /* 0: auto; else enum net_optim + 1 */
#define PADDINGS "auto|longest|max_length"              /* enum predict_padding */
#define ATTENTIONS "auto|flash|sdpa|eager"              /* enum predict_attention */
#define LOSSES "auto|unfused|fused"                     /* enum predict_loss */
#define LORA_TARGETS "all|qv"                           /* enum net_lora_targets */

const struct param jobspec_params[] = {
    { "name", PARAM_STR, 0, NULL, NULL, "job", 0, 0,
      "the job's name (required), as the report, the team's jobs and sr.measured name it" },
    { "config", PARAM_STR, 0, "none", NULL, "none", 0, 0,
      "a Hugging Face config.json (llama, mistral, qwen2, qwen3, gemma2, gemma3, gpt2, phi3) the shape is read from: "
      "one shipped with sparkreport by its path (data/models/...), else a file relative to the folder sparkreport runs "
      "in; the shape fields given beside it override it, and the report says so" },
    { "arch", PARAM_ENUM, 0, NULL, "gpt2|llama", "llama", 0, 0,
      "gpt2: LayerNorm, GELU MLP, learned positions, biases; llama: RMSNorm, SwiGLU, RoPE, no biases" },
    { "layers", PARAM_INT, 0, NULL, NULL, "32", 1, 1024, "transformer blocks" },
    { "hidden", PARAM_INT, 0, NULL, NULL, "4096", 1, 65536, "hidden size" },
    { "heads", PARAM_INT, 0, NULL, NULL, "32", 1, 1024, "attention heads; must divide hidden" },
    { "kv_heads", PARAM_INT, 0, NULL, NULL, "8", 1, 1024, "key/value heads (GQA); must divide heads" },
    { "ffn", PARAM_INT, 0, NULL, NULL, "14336", 1, 1048576, "MLP inner size" },
    { "head_dim", PARAM_INT, 0, NULL, NULL, "0", 0, 4096,
      "head size when it is not hidden / heads (Qwen3: 128 at any width); 0: hidden / heads" },
    { "vocab", PARAM_INT, 0, NULL, NULL, "128256", 2, 4194304, "vocabulary size" },
    { "tied", PARAM_BOOL, 0, NULL, NULL, "false", 0, 0, "the LM head is the token embedding" },
    { "window", PARAM_INT, 0, NULL, NULL, "0", 0, 1048576,
      "sliding-window attention of this many keys (Mistral, Gemma 2 and 3); 0: none" },
    { "window_layers", PARAM_INT, 0, NULL, NULL, "0", 0, 1024, "layers that attend within the window; 0: all" },
    { "doc_tokens", PARAM_INT, 0, NULL, NULL, "0", 0, 1048576,
      "packed documents of this mean length in tokens with attention within each (FlashAttention varlen); 0: "
      "attention over the whole sequence" },
    { "seq", PARAM_INT, 0, NULL, NULL, "4096", 2, 1048576, "sequence length (the cutoff a sample is cut to)" },
    { "batch", PARAM_INT, 0, NULL, NULL, "32", 1, 1048576,
      "global batch, sequences per optimizer step (over every device)" },
    { "micro_batch", PARAM_INT, 0, NULL, NULL, "0", 0, 1048576,
      "sequences per device per forward pass, as the trainer is told (per_device_train_batch_size): the fit keeps "
      "it (checkpointing or offload before a smaller one) and accumulates to batch; 0: the fit chooses the largest "
      "that fits" },
    { "tokens", PARAM_NUM, 0, NULL, NULL, "1e8", 1, 1e15, "tokens to train (the team's jobs may give their own)" },
    { "lora_rank", PARAM_INT, 0, NULL, NULL, "0", 0, 65536, "LoRA rank; 0: full training" },
    { "lora_targets", PARAM_ENUM, 0, NULL, LORA_TARGETS, "all", 0, 0,
      "LoRA: adapters on every block linear (all: PEFT's all-linear) or on the query and value projections only "
      "(qv: PEFT's default for Llama, Qwen, Mistral and Gemma when no target is named)" },
    { "base", PARAM_ENUM, 0, NULL, "bf16|nf4", "bf16", 0, 0,
      "LoRA: the frozen base weights' format (nf4: QLoRA's 4-bit NormalFloat)" },
    { "precision", PARAM_ENUM, 0, NULL, "fp32|bf16|fp8|fp4", "bf16", 0, 0,
      "training recipe: fp32; bf16 (BF16 matmuls, FP32 master weights); fp8 (Transformer Engine's: the blocks' "
      "GEMMs in FP8, with the megatron-te stack backward too); fp4 (the fp8 plan with those GEMMs at the part's "
      "NVFP4 peak; a part without one is not projected)" },
    { "sparsity", PARAM_ENUM, 0, NULL, "dense|2:4", "dense", 0, 0,
      "2:4: the blocks' linear weights 2:4 sparse (forward matmuls on sparse matrix units: half the products, "
      "half the values plus 2-bit indices); backward and memory stay dense" },
    { "gpus", PARAM_INT, 0, NULL, NULL, "1", 1, 4096,
      "GPUs per node the job runs on (data parallel; the global batch is split over all of them)" },
    { "tp", PARAM_INT, 0, NULL, NULL, "1", 1, 64,
      "tensor parallelism with sequence parallelism (Megatron): each of tp GPUs of a node holds 1/tp of every "
      "layer, its activations exchanged over the node's link each layer; 1: none" },
    { "nodes", PARAM_INT, 0, NULL, NULL, "1", 1, 4096,
      "nodes, linked by the catalog's NICs (data/fabric.csv); a DGX Spark is a node of one GPU: 2 is two linked "
      "Sparks over ConnectX-7" },
    { "sharding", PARAM_ENUM, 0, NULL, SHARDINGS, "auto", 0, 0,
      "auto: the lowest ZeRO stage that fits; ddp: plain data parallelism; zero1: optimizer state sharded; zero2: "
      "and gradients; zero3 or fsdp: and weights (each with the traffic it implies over the link)" },
    { "optimizer", PARAM_ENUM, 0, NULL, OPTIMIZERS, "adamw", 0, 0,
      "optimizer recipe: adamw (FP32 master weights and moments: what every profile's trainers keep, so also "
      "auto, the stack's), adamw-bf16 (pure BF16: the model loaded in BF16 and trained so), adam8bit "
      "(bitsandbytes)" },
    { "stack", PARAM_ENUM, 0, NULL, "auto|" PREDICT_STACK_IDS, "auto", 0, 0,
      "software stack whose fitted profile times it: auto (hf-trainer for a LoRA or QLoRA job, pytorch-compile "
      "otherwise: the stacks people run them on), hf-trainer (the Hugging Face Trainer with PEFT or TRL as of "
      "2025-26: eager PyTorch, SDPA attention; fitted on DGX Spark, H100 runs), pytorch-compile (current PyTorch: "
      "torch.compile, FSDP2, torchao Float8; fitted on torchtitan's H100 runs and DGX Spark runs), pytorch (PyTorch "
      "with FSDP as llm-foundry ran it in 2023-24), fused-cuda (llm.c, GPT-2 layout only), megatron-te (NeMo / "
      "Megatron-Core with Transformer Engine), hf-peft (the Hugging Face Trainer with PEFT as of 2023, fitted on "
      "one A100 table)" },
    { "checkpoint", PARAM_ENUM, 0, NULL, CKPTS, "auto", 0, 0,
      "activation checkpointing: auto (as the stack runs by default: hf-trainer's front ends, TRL and "
      "LLaMA-Factory, turn it on; the others add it when memory needs it), none (never), full (every block)" },
    { "packing", PARAM_BOOL, 0, NULL, NULL, "true", 0, 0,
      "sequences packed (every position a training token); false: samples one by one, padded as padding says "
      "(sample_tokens long on average), or fill of the positions tokens" },
    { "sample_tokens", PARAM_NUM, 0, NULL, NULL, "0", 0, 1048576,
      "without packing: the mean tokens of a training sample (an instruction and its answer, a conversation), at "
      "most seq (the cutoff, which memory is sized for); 0: every sample fills seq" },
    { "padding", PARAM_ENUM, 0, NULL, PADDINGS, "auto", 0, 0,
      "without packing: each micro-batch padded to its longest sample (longest, auto: the Hugging Face collators' "
      "default; with micro-batch 1 no padding at all), or every sample to seq (max_length)" },
    { "fill", PARAM_NUM, 0, NULL, NULL, "1", 0.01, 1,
      "without packing, every sample padded to seq: the share of its positions that hold tokens (the mean sample "
      "over seq); sample_tokens says the same in tokens" },
    { "attention", PARAM_ENUM, 0, NULL, ATTENTIONS, "auto", 0, 0,
      "attention kernel: auto (the stack's: a fused kernel), flash (FlashAttention 2 or 3), sdpa (PyTorch's "
      "scaled_dot_product_attention, dispatching to a fused flash or cuDNN kernel: timed as flash), eager (the "
      "scores written to memory as a [heads, seq, seq] tensor and read back by the softmax, both directions)" },
    { "loss", PARAM_ENUM, 0, NULL, LOSSES, "auto", 0, 0,
      "cross-entropy: auto (the stack's: unfused), unfused (the [tokens, vocabulary] logits in memory), fused "
      "(fused or chunked with the LM head: Liger's fused linear cross-entropy, torchtune's chunked loss, Unsloth, "
      "Cut Cross-Entropy; no logits held)" },
    { NULL, 0, 0, NULL, NULL, NULL, 0, 0, NULL },
};

/* The shape fields a config.json gives, which a field given beside it replaces. */
static const char *const shape_fields[] = { "arch", "layers", "hidden", "heads", "kv_heads", "ffn", "head_dim", "vocab",
                                            "tied", "window", "window_layers" };
/* What jobspec_json records besides the fields: read back, never given. */
static const char *const recorded[] = { "config_read", "config_sha256", "config_model_type", "overrides",
                                        "tokens_given" };

/* A choice of an enum field: its index in the '|' list choices. */
static int choice(const cJSON *p, const char *field, const char *choices)
{
    const char *v = param_str(p, field);
    size_t n = strlen(v);
    for (int i = 0; *choices; i++) {
        const char *bar = strchr(choices, '|'), *end = bar ? bar : choices + strlen(choices);
        if ((size_t)(end - choices) == n && strncmp(choices, v, n) == 0)
            return i;
        choices = bar ? bar + 1 : end;
    }
    return 0;
}

static int given_field(const cJSON *given, const char *field)
{
    return cJSON_GetObjectItemCaseSensitive(given, field) != NULL;
}

/* The shape typed in the fields. */
static void typed_shape(const cJSON *p, struct net_shape *s)
{
    int llama = strcmp(param_str(p, "arch"), "llama") == 0;
    *s = (struct net_shape){ .layers = (int)param_num(p, "layers"), .hidden = (int)param_num(p, "hidden"),
        .heads = (int)param_num(p, "heads"), .kv_heads = (int)param_num(p, "kv_heads"), .ffn = (int)param_num(p, "ffn"),
        .head_dim = (int)param_num(p, "head_dim"), .vocab = (int)param_num(p, "vocab"), .tied = param_bool(p, "tied"),
        .window = (int)param_num(p, "window"), .window_layers = (int)param_num(p, "window_layers"),
        .mlp = llama ? NET_MLP_SWIGLU : NET_MLP_GELU, .norm = llama ? NET_NORM_RMS : NET_NORM_LAYER, .nobias = llama,
        .rope = llama };
}

/* The shape read from the config.json, the fields given beside it in its place (named in j->overrides). */
static int read_file(const char *path, char **text, size_t *n, char *err, size_t errlen)
{
    return fs_read_file(path, 1 << 20, text, n, err, errlen);
}

static int config_shape(const cJSON *given, const cJSON *p, jobspec_reader read, const char *prefix,
                        struct jobspec *j, struct net_shape *s, char *err, size_t errlen)
{
    char *text = NULL;
    size_t n = 0;
    const char *c = param_str(p, "config"), *path = c;
    snprintf(j->config, sizeof j->config, "%s", c);
    if ((read ? read : read_file)(path, &text, &n, err, errlen) != 0) {
        char why[400];
        snprintf(why, sizeof why, "%.380s", err);
        snprintf(err, errlen, "%sconfig: %s", prefix, why);
        return -1;
    }
    struct hfconfig hc;
    sha256_hex(text, n, j->config_sha256);
    int rc = hfconfig_parse(path, text, n, &hc, err, errlen);
    free(text);
    if (rc != 0)
        return -1;
    struct net_shape typed;
    typed_shape(p, &typed);
    *s = hc.shape;
    size_t o = 0;
    j->overrides[0] = '\0';
    for (size_t i = 0; i < sizeof shape_fields / sizeof shape_fields[0]; i++) {
        if (!given_field(given, shape_fields[i]))
            continue;
        o += (size_t)snprintf(j->overrides + o, o < sizeof j->overrides ? sizeof j->overrides - o : 0, "%s%s",
                              o ? ", " : "", shape_fields[i]);
        if (i == 0) {           /* arch: the layout's flags */
            s->mlp = typed.mlp; s->norm = typed.norm; s->nobias = typed.nobias; s->rope = typed.rope;
        }
        int *dst[] = { NULL, &s->layers, &s->hidden, &s->heads, &s->kv_heads, &s->ffn, &s->head_dim, &s->vocab,
                       &s->tied, &s->window, &s->window_layers };
        const int src[] = { 0, typed.layers, typed.hidden, typed.heads, typed.kv_heads, typed.ffn, typed.head_dim,
                            typed.vocab, typed.tied, typed.window, typed.window_layers };
        if (dst[i])
            *dst[i] = src[i];
    }
    snprintf(j->model_type, sizeof j->model_type, "%s", hc.model_type);
    snprintf(j->basis, sizeof j->basis, "the shape read from its Hugging Face config.json (%.31s)%s%.60s",
             hc.model_type, j->overrides[0] ? "; given beside it: " : "", j->overrides);
    return 0;
}

/* The job's workload from its fields and shape. */
static void workload_of(const cJSON *p, const struct net_shape *shape, struct jobspec *j)
{
    struct predict_workload *w = &j->w;
    int lora = (int)param_num(p, "lora_rank"), opt = choice(p, "optimizer", OPTIMIZERS);
    int shard = choice(p, "sharding", SHARDINGS), nf4 = lora > 0 && strcmp(param_str(p, "base"), "nf4") == 0;
    const char *prec = param_str(p, "precision"), *stack = param_str(p, "stack");
    memset(w, 0, sizeof *w);
    snprintf(j->name, sizeof j->name, "%s", param_str(p, "name"));
    snprintf(j->kind, sizeof j->kind, "%s", lora == 0 ? "full training" : nf4 ? "QLoRA" : "LoRA");
    /* auto: the stack such a job runs on, as the reference workloads (the Hugging Face Trainer of today
       for LoRA and QLoRA, current PyTorch for the rest) */
    snprintf(j->stack, sizeof j->stack, "%s", strcmp(stack, "auto") != 0 ? stack : lora > 0 ? "hf-trainer"
             : "pytorch-compile");
    w->id = "scenario";
    w->name = j->name;
    w->kind = j->kind;
    w->stack = j->stack;
    w->shape = *shape;
    w->shape.seq = (int)param_num(p, "seq");
    w->shape.batch = (int)param_num(p, "batch");
    w->shape.accum = 1;
    w->shape.attention = NET_ATT_FLASH;
    w->shape.lora_rank = lora;
    w->shape.lora_targets = choice(p, "lora_targets", LORA_TARGETS);
    w->shape.doc_tokens = (int)param_num(p, "doc_tokens");
    w->shape.base_dtype = nf4 ? NET_DT_NF4 : 0;
    w->shape.sparse24 = strcmp(param_str(p, "sparsity"), "2:4") == 0;
    w->shape.optimizer = opt > 0 ? opt - 1 : NET_OPT_ADAMW;
    w->shape.amp = w->shape.causal = 1;       /* mixed precision and causal attention, as run */
    w->optimizer_auto = opt <= 0;
    w->prec = strcmp(prec, "fp32") == 0 ? NET_FP32 : strcmp(prec, "bf16") == 0 ? NET_BF16 : NET_FP8;
    w->fp4 = strcmp(prec, "fp4") == 0;
    w->tokens = param_num(p, "tokens");
    w->basis = j->basis[0] ? j->basis : "the scenario's own workload: its figures as the scenario gives them";
    w->tokens_basis = j->tokens_given ? "scenario" : "assumed";     /* the field's round figure otherwise */
    w->source = j->config[0] ? "the config.json the scenario names (results.json keeps its path and sha256)"
                : "the scenario";
    w->gpus = (int)param_num(p, "gpus");
    w->nodes = (int)param_num(p, "nodes");
    w->zero = shard == 5 ? 4 : shard;          /* fsdp is ZeRO-3 */
    w->ckpt = choice(p, "checkpoint", CKPTS);
    w->shape.checkpoint = w->ckpt == PREDICT_CKPT_FULL;
    w->fill = param_bool(p, "packing") ? 0 : param_num(p, "fill");
    w->sample_tokens = param_bool(p, "packing") ? 0 : param_num(p, "sample_tokens");
    w->padding = choice(p, "padding", PADDINGS);
    w->attention = choice(p, "attention", ATTENTIONS);
    w->loss = choice(p, "loss", LOSSES);
    w->micro = (int)param_num(p, "micro_batch");
    w->tp = (int)param_num(p, "tp");
}

/* What the job asks that cannot be run: a message naming the field (F: the prefix), or NULL. */
static const char *job_problem(const struct predict_workload *w, const char *F, char *buf, size_t n)
{
    int devices = w->gpus * w->nodes;
    if (w->shape.doc_tokens > w->shape.seq)
        snprintf(buf, n, "%sdoc_tokens %d is longer than %sseq %d: a packed document lies within one sequence", F,
                 w->shape.doc_tokens, F, w->shape.seq);
    else if (w->tp > 1 && w->gpus % w->tp != 0)
        snprintf(buf, n, "%stp %d must divide %sgpus %d: tensor parallelism runs within a node, over its GPUs' link", F,
                 w->tp, F, w->gpus);
    else if (w->tp > 1 && w->shape.heads % w->tp != 0)
        snprintf(buf, n, "%stp %d must divide %sheads %d: each GPU takes whole attention heads", F, w->tp, F,
                 w->shape.heads);
    else if (w->tp > 1 && net_kv_heads(&w->shape) % w->tp != 0)
        snprintf(buf, n, "%stp %d must divide %skv_heads %d: each GPU takes whole key/value heads", F, w->tp, F,
                 net_kv_heads(&w->shape));
    else if (w->tp > 1 && strcmp(w->stack, "megatron-te") != 0 && strcmp(w->stack, "pytorch-compile") != 0)
        snprintf(buf, n, "%stp %d: %sstack '%s' does not run tensor parallelism (megatron-te and pytorch-compile do)", F,
                 w->tp, F, w->stack);
    else if (w->zero > 1 && devices < 2)
        snprintf(buf, n, "%ssharding '%s' shards over devices: %sgpus x %snodes is %d, it needs 2 or more", F,
                 w->zero == 4 ? "zero3 or fsdp" : w->zero == 3 ? "zero2" : "zero1", F, F, devices);
    else if (strcmp(w->stack, "fused-cuda") == 0 && net_shape_extension(&w->shape))
        snprintf(buf, n, "%sstack 'fused-cuda' (llm.c) trains the GPT-2 layout only (%sarch gpt2, no LoRA, dense), not %s",
                 F, F, net_shape_extension(&w->shape));
    else if (w->fp4 && w->shape.lora_rank > 0 && w->shape.base_dtype == NET_DT_NF4)
        snprintf(buf, n, "%sprecision 'fp4' computes in NVFP4: %sbase 'nf4' (QLoRA's storage format, computed in BF16) "
                 "is another recipe; choose one", F, F);
    else
        return NULL;
    return buf;
}

/* "8.03 B" */
static char *count_text(double n, char *buf, size_t len)
{
    snprintf(buf, len, n >= 1e9 ? "%.3g B" : n >= 1e6 ? "%.3g M" : "%.0f", n >= 1e9 ? n / 1e9 : n >= 1e6 ? n / 1e6 : n);
    return buf;
}

/* A LoRA rank that is not low: a message, or NULL. */
static const char *rank_nonsense(const struct net_shape *s, const char *F, char *buf, size_t n)
{
    double adapted = 0;
    char a[32], b[32];
    for (int l = 0; l < NET_LIN_LMHEAD; l++) {
        enum net_param pw, pb;
        size_t in, out;
        net_linear_params(s, (enum net_linear)l, &pw, &pb, &in, &out);
        adapted += (double)in * (double)out * s->layers;
    }
    int side = s->hidden, kv = net_kv_heads(s) * net_head_dim(s), f = net_ffn(s);
    side = kv < side ? kv : side;
    side = f < side ? f : side;
    if (s->lora_rank > side)
        snprintf(buf, n, "%slora_rank = %d is not a low rank: an adapter's rank is at most the smaller side of the matrix "
                 "it adapts, here %d (the smallest of %shidden, the key/value width and %sffn), and a LoRA's is far "
                 "below it", F, s->lora_rank, side, F, F);
    else if (s->lora_rank > 0 && (double)net_lora_count(s) >= adapted)
        snprintf(buf, n, "%slora_rank = %d is not a low rank: its adapters would hold %s values, as many as the %s "
                 "weights they adapt or more (a LoRA's rank is far below %shidden = %d)", F, s->lora_rank,
                 count_text((double)net_lora_count(s), a, sizeof a), count_text(adapted, b, sizeof b), F, s->hidden);
    else
        return NULL;
    return buf;
}

/* What the job asks that makes no physical sense: fields given that its other fields make
 * meaningless, a LoRA rank that is not low, fewer tokens than one optimizer step. A message naming
 * the field and the value, or NULL. */
static const char *job_nonsense(const cJSON *p, const struct predict_workload *w, const char *F, char *buf, size_t n)
{
    const struct net_shape *s = &w->shape;
    double step = (double)s->batch * s->seq;
    int dp = w->gpus * w->nodes / (w->tp > 1 ? w->tp : 1), packed = param_bool(p, "packing");      /* data-parallel */
    if (s->lora_rank == 0 && strcmp(param_str(p, "base"), "bf16") != 0)
        snprintf(buf, n, "%sbase '%s' is the frozen base of a LoRA job, and %slora_rank is 0 (full training): give "
                 "%slora_rank, or leave %sbase out", F, param_str(p, "base"), F, F, F);
    else if (rank_nonsense(s, F, buf, n))
        return buf;
    else if (packed && param_num(p, "fill") != 1)
        snprintf(buf, n, "%sfill = %g applies to sequences that are not packed, and %spacking is true: set %spacking = "
                 "false, or leave %sfill out", F, param_num(p, "fill"), F, F, F);
    else if (packed && param_num(p, "sample_tokens") > 0)
        snprintf(buf, n, "%ssample_tokens = %g applies to samples that are not packed, and %spacking is true: set "
                 "%spacking = false (packed documents' length is %sdoc_tokens)", F, param_num(p, "sample_tokens"), F, F,
                 F);
    else if (packed && w->padding > PREDICT_PAD_AUTO)
        snprintf(buf, n, "%spadding = '%s' applies to samples that are not packed, and %spacking is true: set "
                 "%spacking = false, or leave %spadding out", F, param_str(p, "padding"), F, F, F);
    else if (w->sample_tokens > 0 && param_num(p, "fill") != 1)
        snprintf(buf, n, "%ssample_tokens = %g and %sfill = %g both say how full a sequence is: give one of them", F,
                 w->sample_tokens, F, param_num(p, "fill"));
    else if (w->sample_tokens > s->seq)
        snprintf(buf, n, "%ssample_tokens = %g is longer than %sseq = %d: the sequence length is the cutoff a sample is "
                 "cut to", F, w->sample_tokens, F, s->seq);
    else if (s->lora_rank == 0 && s->lora_targets != NET_LORA_ALL)
        snprintf(buf, n, "%slora_targets '%s' places LoRA adapters, and %slora_rank is 0 (full training): give "
                 "%slora_rank, or leave %slora_targets out", F, param_str(p, "lora_targets"), F, F, F);
    else if (s->doc_tokens > 0 && w->attention == PREDICT_ATT_EAGER)
        snprintf(buf, n, "%sdoc_tokens = %d attends within packed documents (FlashAttention's varlen), and %sattention "
                 "'eager' attends over the whole sequence: choose one", F, s->doc_tokens, F);
    else if (w->micro > 0 && s->batch % (w->micro * dp) != 0)
        snprintf(buf, n, "%smicro_batch = %d does not divide %sbatch = %d over %d data-parallel device%s: the global "
                 "batch is micro-batch x accumulation x devices", F, w->micro, F, s->batch, dp, dp > 1 ? "s" : "");
    else if (w->tokens < step)
        snprintf(buf, n, "%stokens = %.15g is less than one optimizer step (%sbatch x %sseq = %.15g tokens)", F,
                 w->tokens, F, F, step);
    else
        return NULL;
    return buf;
}

/* The normalised fields with the shape in place of the config (a results file reads them back without
 * the file), and what was read: the config's path, sha256 and model type, the fields that overrode it. */
static cJSON *recorded_fields(const cJSON *p, const struct net_shape *s, const struct jobspec *j)
{
    cJSON *o = cJSON_Duplicate(p, 1);
    cJSON_AddBoolToObject(o, "tokens_given", j->tokens_given);
    if (!j->config[0])
        return o;
    const int v[] = { 0, s->layers, s->hidden, s->heads, net_kv_heads(s), net_ffn(s), s->head_dim, s->vocab, s->tied,
                      s->window, s->window_layers };
    cJSON_ReplaceItemInObjectCaseSensitive(o, "arch", cJSON_CreateString(s->mlp == NET_MLP_SWIGLU ? "llama" : "gpt2"));
    for (size_t i = 1; i < sizeof shape_fields / sizeof shape_fields[0]; i++)
        cJSON_ReplaceItemInObjectCaseSensitive(o, shape_fields[i], strcmp(shape_fields[i], "tied") == 0
                                               ? cJSON_CreateBool(v[i]) : cJSON_CreateNumber(v[i]));
    cJSON_ReplaceItemInObjectCaseSensitive(o, "config", cJSON_CreateString("none"));
    cJSON_AddStringToObject(o, "config_read", j->config);
    cJSON_AddStringToObject(o, "config_sha256", j->config_sha256);
    cJSON_AddStringToObject(o, "config_model_type", j->model_type);
    cJSON_AddStringToObject(o, "overrides", j->overrides);
    return o;
}

/* A results file's copy: its shape is the config's, read when the job entered; what was read stays said. */
static void read_before(const cJSON *given, struct jobspec *j)
{
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(given, "config_read");
    if (!cJSON_IsString(c))
        return;
    snprintf(j->config, sizeof j->config, "%s", c->valuestring);
    snprintf(j->config_sha256, sizeof j->config_sha256, "%s", json_str(given, "config_sha256", ""));
    snprintf(j->model_type, sizeof j->model_type, "%s", json_str(given, "config_model_type", ""));
    snprintf(j->overrides, sizeof j->overrides, "%s", json_str(given, "overrides", ""));
    snprintf(j->basis, sizeof j->basis, "the shape read from its Hugging Face config.json (%.31s)%s%.60s",
             j->model_type, j->overrides[0] ? "; given beside it: " : "", j->overrides);
}

/* The given table without what jobspec_json records beside the fields (a results file's copy). */
static cJSON *fields_of(const cJSON *given)
{
    cJSON *g = given ? cJSON_Duplicate(given, 1) : NULL;
    for (size_t i = 0; g && cJSON_IsObject(g) && i < sizeof recorded / sizeof recorded[0]; i++)
        cJSON_DeleteItemFromObjectCaseSensitive(g, recorded[i]);
    return g;
}

int jobspec_parse(const cJSON *given, jobspec_reader read, const char *prefix, struct jobspec *j, char *err,
                  size_t errlen)
{
    char what[160], why[480];
    const cJSON *nm = cJSON_GetObjectItemCaseSensitive(given, "name");
    memset(j, 0, sizeof *j);
    snprintf(what, sizeof what, "%s '%.60s'", prefix[0] ? "workload" : "job", cJSON_IsString(nm) ? nm->valuestring : "");
    /* (the workload_* form's empty name is the run's string checks' to refuse, with the scenario's file) */
    if (!cJSON_IsString(nm) || (!nm->valuestring[0] && !prefix[0]) || strcmp(nm->valuestring, "none") == 0) {
        snprintf(err, errlen, "job: %sname is missing: the report and the team's jobs name a job (name = \"...\")",
                 prefix);
        return -1;
    }
    if (strlen(nm->valuestring) > JOBSPEC_NAME_MAX) {
        snprintf(err, errlen, "%s: %sname is %zu bytes long; at most %d (the team's jobs name it)", what, prefix,
                 strlen(nm->valuestring), JOBSPEC_NAME_MAX);
        return -1;
    }
    cJSON *g = fields_of(given), *p = param_check(what, jobspec_params, g, err, errlen);
    struct net_shape shape;
    int rc = -1;
    if (!p)
        goto done;
    if (strcmp(param_str(p, "config"), "none") != 0) {
        if (config_shape(g, p, read, prefix, j, &shape, why, sizeof why) != 0) {
            snprintf(err, errlen, "%s: %s", what, why);
            goto done;
        }
    } else {
        typed_shape(p, &shape);
        read_before(given, j);
    }
    const cJSON *tg = cJSON_GetObjectItemCaseSensitive(given, "tokens_given");    /* a results file's copy */
    j->tokens_given = cJSON_IsBool(tg) ? cJSON_IsTrue(tg) : given_field(g, "tokens");
    workload_of(p, &shape, j);
    const char *bad = net_shape_problem(&j->w.shape);
    if (!bad)
        bad = job_problem(&j->w, prefix, why, sizeof why);
    if (!bad)
        bad = job_nonsense(p, &j->w, prefix, why, sizeof why);
    if (bad) {
        snprintf(err, errlen, "%s: %s", what, bad);
        goto done;
    }
    rc = 0;
    j->fields = recorded_fields(p, &shape, j);
done:
    cJSON_Delete(g);
    cJSON_Delete(p);
    return rc;
}

cJSON *jobspec_json(const struct jobspec *j)
{
    return cJSON_Duplicate(j->fields, 1);
}

void jobspec_free(struct jobspec *j)
{
    cJSON_Delete(j->fields);
    j->fields = NULL;
}
