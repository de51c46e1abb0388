/* train.c: the training experiment's parameters (shape presets with explicit fields that
 * override them, precisions, device, optimizer and data settings), what is refused before
 * anything runs (shapes that cannot be built, or do not fit in memory, with the bytes they
 * need), and the run over configurations: which backend, what is skipped and why, the info
 * block. One configuration's run is train_loop.c's. */
#include "exp/train/train.h"

#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "cuda/cuda.h"
#include "measure/measure.h"
#include "exp/train/train_data.h"
#include "measure/backend.h"
#include "util/machine.h"
#include "util/error.h"
#include "util/progress.h"
#include "util/timing.h"
#include "util/units.h"

#define MEM_SHARE 0.8           /* of MemAvailable (or free GPU memory) one configuration may use */
#define MAX_CONFIGS 64

struct preset {
    const char *name;
    struct net_shape shape;   /* accum, checkpoint and tied come from their own parameters */
    int steps;
    double lr;
    const char *help;
};

static const struct preset presets[] = {
    { "tiny", { 2, 64, 4, 64, 256, 8, 1, 0, .tied = 0 }, 200, 5e-3, "2 blocks, hidden 64, 0.14 M parameters" },
    { "small", { 4, 128, 4, 128, 512, 8, 1, 0, .tied = 0 }, 100, 5e-3, "4 blocks, hidden 128, 0.94 M parameters" },
    { "medium", { 6, 256, 8, 256, 1024, 8, 1, 0, .tied = 0 }, 60, 3e-3, "6 blocks, hidden 256, 5.3 M parameters" },
    { "gpt2-small", { 12, 768, 12, 256, 50257, 4, 1, 0, .tied = 0 }, 10, 6e-4,
      "GPT-2 small's blocks (124 M parameters with a tied head at sequence 1024); here untied, 162 M, "
      "sequence 256, batch 4" },
};
#define NPRESETS ((int)(sizeof presets / sizeof presets[0]))

const struct param train_params[] = {
    { "device", PARAM_ENUM, 0, NULL, "cpu|gpu", "cpu", 0, 0,
      "where the model trains: CPU (OpenMP, CBLAS) or the first CUDA device (cuBLASLt)" },
    { "shapes", PARAM_ENUM, PARAM_LIST, NULL, "tiny|small|medium|gpt2-small", "tiny", 0, 0,
      "model shape presets to train; layers, hidden, ... override their fields" },
    { "precisions", PARAM_ENUM, PARAM_LIST, "all", "fp32|bf16|fp8", "fp32,bf16", 0, 0,
      "fp32; bf16 mixed precision (BF16 matmul operands, FP32 master weights, optimizer state, "
      "accumulation, loss); fp8 (GPU only: E4M3 forward matmuls of the blocks)" },
    { "layers", PARAM_INT, 0, "shape", NULL, "shape", 1, 128, "transformer blocks (shape: the preset's)" },
    { "hidden", PARAM_INT, 0, "shape", NULL, "shape", 1, 16384, "hidden size (shape: the preset's)" },
    { "heads", PARAM_INT, 0, "shape", NULL, "shape", 1, 256, "attention heads; must divide hidden" },
    { "seq", PARAM_INT, 0, "shape", NULL, "shape", 2, 8192, "sequence length (shape: the preset's)" },
    { "vocab", PARAM_INT, 0, "shape", NULL, "shape", 2, 262144, "vocabulary size (shape: the preset's)" },
    { "batch", PARAM_INT, 0, "shape", NULL, "shape", 1, 4096, "sequences per micro-batch (shape: the preset's)" },
    { "accum", PARAM_INT, 0, NULL, NULL, "1", 1, 64, "micro-batches per optimizer step (gradient accumulation)" },
    { "checkpoint", PARAM_BOOL, 0, NULL, NULL, "false", 0, 0,
      "activation checkpointing: keep only each block's input, recompute its forward in backward" },
    { "tied", PARAM_BOOL, 0, NULL, NULL, "false", 0, 0, "the LM head is the token embedding" },
    { "steps", PARAM_INT, 0, "shape", NULL, "shape", 1, 1000000, "optimizer steps (shape: the preset's)" },
    { "warmup", PARAM_INT, 0, NULL, NULL, "2", 0, 1000, "first steps left out of the timing statistics" },
    { "seed", PARAM_INT, 0, NULL, NULL, "1", 0, 4294967295.0, "initial weights and data" },
    { "lr", PARAM_NUM, 0, "shape", NULL, "shape", 1e-7, 1, "peak learning rate (shape: the preset's)" },
    { "lr_warmup", PARAM_INT, 0, "auto", NULL, "auto", 0, 1000000,
      "steps of linear learning-rate warm-up before the cosine decay; auto: 10 % of steps" },
    { "weight_decay", PARAM_NUM, 0, NULL, NULL, "0.1", 0, 1, "AdamW decoupled weight decay (matrices only)" },
    { "clip", PARAM_NUM, 0, NULL, NULL, "1", 0, 1e6, "global gradient-norm clipping threshold; 0: off" },
    { "order", PARAM_INT, 0, NULL, NULL, "1", 1, 8, "n-gram source: tokens of context the next token depends on" },
    { "branching", PARAM_INT, 0, NULL, NULL, "8", 1, TRAIN_DATA_MAX_BRANCHING,
      "n-gram source: possible successors of each context (at most the vocabulary)" },
    { "validate", PARAM_BOOL, 0, NULL, NULL, "true", 0, 0,
      "check the first step (finite differences; the CPU FP32 reference) before training and timing" },
    { "budget_s", PARAM_NUM, 0, "auto", NULL, "auto", 0.1, 86400,
      "seconds for this experiment; auto: its share of the scenario budget" },
    { NULL, 0, 0, NULL, NULL, NULL, 0, 0, NULL },
};

static const struct preset *preset_find(const char *name)
{
    for (int i = 0; i < NPRESETS; i++)
        if (strcmp(presets[i].name, name) == 0)
            return &presets[i];
    return NULL;
}

/* An explicit integer field, or the preset's. */
static int field(const cJSON *params, const char *name, int preset, int *custom)
{
    const cJSON *v = param_get(params, name);
    if (!cJSON_IsNumber(v))
        return preset;
    *custom = 1;
    return (int)v->valuedouble;
}

static int prec_index(const char *name)
{
    for (int p = 0; p < NET_NPRECS; p++)
        if (strcmp(net_prec_names[p], name) == 0)
            return p;
    return -1;
}

static void shape_of(const cJSON *params, const struct preset *pr, struct train_config *c)
{
    int custom = 0;
    struct net_shape s = pr->shape;
    s.layers = field(params, "layers", s.layers, &custom);
    s.hidden = field(params, "hidden", s.hidden, &custom);
    s.heads = field(params, "heads", s.heads, &custom);
    s.seq = field(params, "seq", s.seq, &custom);
    s.vocab = field(params, "vocab", s.vocab, &custom);
    s.batch = field(params, "batch", s.batch, &custom);
    s.accum = (int)param_num(params, "accum");
    s.checkpoint = param_bool(params, "checkpoint");
    s.tied = param_bool(params, "tied");
    s.causal = 1;                   /* NET_FLOP_CONVENTION: the causal half, as the kernels compute */
    c->shape = s;
    c->shape_name = custom ? "custom" : pr->name;
}

static void settings_of(const cJSON *params, const struct preset *pr, struct train_config *c)
{
    int unused = 0;
    c->steps = field(params, "steps", pr->steps, &unused);
    c->warmup = (int)param_num(params, "warmup");
    c->lr = cJSON_IsNumber(param_get(params, "lr")) ? param_num(params, "lr") : pr->lr;
    c->lr_min = 0.1 * c->lr;
    c->lr_warmup = cJSON_IsNumber(param_get(params, "lr_warmup")) ? (int)param_num(params, "lr_warmup")
                                                                    : (c->steps + 9) / 10;
    c->weight_decay = param_num(params, "weight_decay");
    c->clip = param_num(params, "clip");
    c->seed = (uint64_t)param_num(params, "seed");
    c->order = (int)param_num(params, "order");
    c->branching = (int)param_num(params, "branching");
    c->validate = param_bool(params, "validate");
    c->budget_s = INFINITY;
}

int train_configs(const cJSON *params, struct train_config *out, int max, char *err, size_t errlen)
{
    const cJSON *shapes = param_get(params, "shapes"), *precs = param_get(params, "precisions");
    int n = 0;
    for (const cJSON *sh = shapes->child; sh; sh = sh->next) {
        const struct preset *pr = preset_find(sh->valuestring);
        CHECK(pr != NULL);
        for (int p = 0; p < NET_NPRECS; p++) {      /* FP32 first: it is the others' reference */
            int wanted = cJSON_IsString(precs);
            for (const cJSON *e = cJSON_IsArray(precs) ? precs->child : NULL; e; e = e->next)
                wanted |= prec_index(e->valuestring) == p;
            if (!wanted)
                continue;
            if (n == max) {
                snprintf(err, errlen, "train: more than %d configurations (shapes x precisions)", max);
                return -1;
            }
            shape_of(params, pr, &out[n]);
            settings_of(params, pr, &out[n]);
            out[n++].prec = p;
        }
    }
    return n;
}

/* "tiny bf16 gpu (2 layers, hidden 64, 4 heads, seq 64, vocab 256, batch 8)" */
static char *config_text(const struct train_config *c, const char *device, char *buf, size_t n)
{
    const struct net_shape *s = &c->shape;
    snprintf(buf, n, "%s %s %s (%d layers, hidden %d, %d heads, seq %d, vocab %d, batch %d%s%s%s)", c->shape_name,
             net_prec_names[c->prec], device, s->layers, s->hidden, s->heads, s->seq, s->vocab, s->batch,
             s->accum > 1 ? ", accumulation" : "", s->checkpoint ? ", checkpointing" : "", s->tied ? ", tied head" : "");
    return buf;
}

/* Bytes the device may give one configuration; NAN when unknown (no device to ask). */
static double device_memory(const char *device)
{
    if (strcmp(device, "cpu") == 0)
        return MEM_SHARE * machine_mem_available();
    struct cuda_info ci;
    cuda_probe(&ci);
    return ci.ndev > 0 && isfinite(ci.dev[0].mem_free_bytes) ? MEM_SHARE * ci.dev[0].mem_free_bytes : NAN;
}

static int fits(const struct train_config *c, enum net_impl impl, double avail, char *err, size_t errlen)
{
    struct net_memory m;
    char what[200], need[32], have[32], parts[6][32];
    net_memory(&c->shape, c->prec, impl, &m);
    if (!isfinite(avail) || m.total <= avail)
        return 1;
    snprintf(err, errlen, "train: %s needs %s (weights %s, low-precision copies %s, gradients %s, optimizer %s, "
             "activations %s, scratch %s); %s may be used (%.0f %% of what is available)",
             config_text(c, impl == NET_IMPL_CPU ? "cpu" : "gpu", what, sizeof what),
             units_format_bytes(m.total, need, sizeof need),
             units_format_bytes(m.bytes[0], parts[0], 32), units_format_bytes(m.bytes[1], parts[1], 32),
             units_format_bytes(m.bytes[2], parts[2], 32), units_format_bytes(m.bytes[3], parts[3], 32),
             units_format_bytes(m.bytes[4], parts[4], 32), units_format_bytes(m.bytes[5], parts[5], 32),
             units_format_bytes(avail, have, sizeof have), MEM_SHARE * 100);
    return 0;
}

int train_precheck(const cJSON *params, char *err, size_t errlen)
{
    struct train_config cfg[MAX_CONFIGS];
    const char *device = param_str(params, "device");
    int n = train_configs(params, cfg, MAX_CONFIGS, err, errlen);
    if (n < 0)
        return -1;
    double avail = device_memory(device);
    for (int i = 0; i < n; i++) {
        char what[200];
        const char *why = net_shape_problem(&cfg[i].shape);
        if (why) {
            snprintf(err, errlen, "train: %s: %s", config_text(&cfg[i], device, what, sizeof what), why);
            return -1;
        }
        if (cfg[i].prec == NET_FP8 && strcmp(device, "cpu") == 0) {
            snprintf(err, errlen, "train: precision fp8 needs device = \"gpu\" (FP8 matmuls are cuBLASLt's; "
                     "the CPU has none)");
            return -1;
        }
        if (cfg[i].branching > cfg[i].shape.vocab) {
            snprintf(err, errlen, "train: branching %d exceeds the vocabulary of %s", cfg[i].branching,
                     config_text(&cfg[i], device, what, sizeof what));
            return -1;
        }
        if (!fits(&cfg[i], strcmp(device, "cpu") == 0 ? NET_IMPL_CPU : NET_IMPL_GPU, avail, err, errlen))
            return -1;
    }
    return 0;
}

/* ---- the run ---- */

static cJSON *data_info(const struct train_config *c)
{
    struct train_data d;
    char err[256];
    cJSON *o = cJSON_CreateObject();
    if (train_data_init(&d, c->shape.vocab, c->order, c->branching, c->seed, err, sizeof err) != 0)
        return o;
    cJSON_AddStringToObject(o, "source",
        "tokens from a fixed random n-gram source: the next token is (base(previous `order` tokens) + j) mod "
        "vocab, base a fixed hash, j drawn from one distribution p (Dirichlet(1) for the seed); every context has "
        "the same successor distribution up to a shift, so the lowest expected loss is H(p), exactly");
    cJSON_AddNumberToObject(o, "order", c->order);
    cJSON_AddNumberToObject(o, "branching", c->branching);
    cJSON_AddItemToObject(o, "p", cJSON_CreateDoubleArray(d.p, d.branching));
    cJSON_AddNumberToObject(o, "entropy_nats", d.entropy);
    return o;
}

static cJSON *info_json(const char *device, const struct train_config *first)
{
    cJSON *info = cJSON_CreateObject(), *kinds = cJSON_CreateArray();
    cJSON_AddStringToObject(info, "device", device);
    cJSON_AddNumberToObject(info, "threads", omp_get_max_threads());
    cJSON_AddStringToObject(info, "precisions",
        "fp32: everything FP32. bf16: the matmul operands are BF16 (the weights as a copy of the FP32 master, the "
        "layer-norm, attention and GELU outputs that feed matmuls, and the output gradients a matmul's backward "
        "reads), rounded to nearest even; accumulation, master weights, gradients, AdamW moments, attention, "
        "softmax and the loss are FP32. fp8: as bf16, and the forward matmuls of the blocks take E4M3 operands "
        "with one scale per tensor; the LM head stays BF16");
    if (strcmp(device, "cpu") == 0)
        cJSON_AddStringToObject(info, "bf16_matmuls",
            "this CPU build has no BF16 GEMM (OpenBLAS exports no sbgemm), so BF16 operands are stored as BF16 and "
            "widened to FP32 inside each matmul op before cblas_sgemm: BF16 numerics and BF16 memory, not BF16 "
            "arithmetic speed");
    cJSON_AddStringToObject(info, "flop_convention", NET_FLOP_CONVENTION);
    cJSON_AddStringToObject(info, "byte_convention",
        "bytes per op: each tensor the op names, read or written once, at its dtype (no cache reuse counted)");
    cJSON_AddStringToObject(info, "optimizer", "AdamW: beta1 0.9, beta2 0.95, eps 1e-8, bias correction, "
        "decoupled weight decay on matrices and embeddings, global-norm clipping; learning rate: linear warm-up, "
        "then cosine decay to 10 % of its peak");
    cJSON_AddStringToObject(info, "validation",
        "FP32: the directional derivative of the loss along g/|g| by central differences (step 1e-3) is within "
        "2 % of |g|. Other precisions and devices: the losses of the first two steps are within 1e-4 and 1e-3 "
        "(FP32 on a GPU), 1e-2 and 2e-2 (BF16), 5e-2 and 1e-1 (FP8) of the CPU FP32 run's, relative");
    for (int k = 0; k < NET_NKINDS; k++) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "op", net_kinds[k].name);
        cJSON_AddStringToObject(o, "class", net_class_names[net_kinds[k].cls]);
        cJSON_AddStringToObject(o, "what", net_kinds[k].what);
        cJSON_AddItemToArray(kinds, o);
    }
    cJSON_AddItemToObject(info, "op_kinds", kinds);
    cJSON *ps = cJSON_AddArrayToObject(info, "presets");
    for (int i = 0; i < NPRESETS; i++) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "name", presets[i].name);
        cJSON_AddStringToObject(o, "what", presets[i].help);
        cJSON_AddNumberToObject(o, "steps", presets[i].steps);
        cJSON_AddNumberToObject(o, "lr", presets[i].lr);
        cJSON_AddItemToArray(ps, o);
    }
    if (first)
        cJSON_AddItemToObject(info, "data", data_info(first));
    return info;
}

static int same_reference(const struct train_config *a, const struct train_config *b)
{
    return memcmp(&a->shape, &b->shape, sizeof a->shape) == 0 && a->seed == b->seed && a->order == b->order
        && a->branching == b->branching && a->lr == b->lr && a->lr_warmup == b->lr_warmup && a->steps == b->steps
        && a->weight_decay == b->weight_decay && a->clip == b->clip;
}

cJSON *train_run(const cJSON *params, double budget_s, char *err, size_t errlen)
{
    struct train_config cfg[MAX_CONFIGS];
    struct train_reference refs[MAX_CONFIGS];
    const char *device = param_str(params, "device");
    char why[300], item[200];
    int n = train_configs(params, cfg, MAX_CONFIGS, err, errlen);
    if (n < 0)
        return NULL;
    budget_s = measure_budget(params, budget_s);
    cJSON *out = cJSON_CreateObject(), *results = cJSON_AddArrayToObject(out, "results");
    cJSON *skipped = cJSON_AddArrayToObject(out, "skipped");
    const struct train_ops *ops = backend_for("train", device, why, sizeof why);
    double t0 = timing_now(), avail = device_memory(device);
    progress_begin(strcmp(device, "cpu") == 0 ? "train cpu" : "train gpu", n, budget_s);
    for (int i = 0; i < n; i++) {
        struct train_reference *ref = &refs[i];
        memset(ref, 0, sizeof *ref);
        for (int j = 0; j < i; j++)         /* configurations differing only in precision share one */
            if (same_reference(&cfg[i], &cfg[j]) && refs[j].have)
                *ref = refs[j];
        config_text(&cfg[i], device, item, sizeof item);
        progress_step(i, item);
        if (!ops || progress_stopping()) {
            measure_skip(skipped, item, ops ? "the run was interrupted" : why);
            continue;
        }
        if (!ops->supports(&cfg[i].shape, cfg[i].prec, why, sizeof why)) {
            measure_skip(skipped, item, why);
            continue;
        }
        if (!fits(&cfg[i], ops->impl, avail, why, sizeof why)) {
            measure_skip(skipped, item, why + strlen("train: "));
            continue;
        }
        cfg[i].budget_s = (budget_s - (timing_now() - t0)) / (n - i);
        cfg[i].progress = i;
        train_config_add(ops, &cfg[i], ref, item, results, skipped);
    }
    progress_step(n, "done");
    progress_end();
    cJSON_AddItemToObject(out, "info", info_json(device, n > 0 ? &cfg[0] : NULL));
    return out;
}
