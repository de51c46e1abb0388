/* validate.c: the training-time model experiment, one flow for every device. Calibration first,
 * from microbenchmarks only: the device's ceilings (validate_cpu.c: a large CBLAS GEMM, the one
 * DRAM bandwidth, an empty parallel region; validate_gpu.c: cuBLASLt GEMMs per dtype, the device
 * bandwidth, an empty kernel launch; each with an intensity sweep for the combine rule), then
 * every distinct op of the validation configurations timed on its own through the device's
 * trainer (the GEMM surface and the op-class kernels at the sizes the models use). Then each
 * configuration's step time is predicted from the calibration and the op plan, and only then
 * measured by training it. The projection onto other systems is project.c's. */
#include "exp/validate/validate.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exp/train/train.h"
#include "exp/train/train_data.h"
#include "exp/validate/validate_int.h"
#include "measure/backend.h"
#include "measure/measure.h"
#include "predict/project.h"
#include "predict/stack.h"
#include "util/error.h"
#include "util/progress.h"
#include "util/json.h"

const struct param validate_params[] = {
    { "device", PARAM_ENUM, 0, NULL, "cpu|gpu", "cpu", 0, 0,
      "where the calibration and validation run: CPU (OpenMP, CBLAS) or the first CUDA device" },
    { "configs", PARAM_INT, 0, NULL, NULL, "10", 1, 10,
      "validation configurations to predict and then measure (the first N of the built-in ten)" },
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
    { "workload_nodes", PARAM_INT, 0, NULL, NULL, "1", 1, 4096,
      "nodes, linked by the catalog's NICs (data/fabric.csv); a DGX Spark is a node of one GPU: 2 is two linked "
      "Sparks over ConnectX-7" },
    { "workload_sharding", PARAM_ENUM, 0, NULL, "auto|ddp|zero1|zero2|zero3|fsdp", "auto", 0, 0,
      "auto: the lowest ZeRO stage that fits; ddp: plain data parallelism; zero1: optimizer state sharded; zero2: "
      "and gradients; zero3 or fsdp: and weights (each with the traffic it implies over the link)" },
    { "workload_optimizer", PARAM_ENUM, 0, NULL, "adamw|adamw-bf16|adam8bit", "adamw", 0, 0,
      "optimizer recipe: adamw (FP32 master and moments), adamw-bf16 (pure BF16), adam8bit (bitsandbytes)" },
    { "workload_stack", PARAM_ENUM, 0, NULL, PREDICT_STACK_IDS, "pytorch", 0, 0,
      "software stack whose fitted profile times it: pytorch (PyTorch with FSDP, as the reference fine-tunes), "
      "fused-cuda (llm.c, GPT-2 layout only), megatron-te (NeMo / Megatron-Core with Transformer Engine), hf-peft "
      "(Hugging Face Trainer with PEFT)" },
    { "workload_checkpoint", PARAM_ENUM, 0, NULL, "auto|none|full", "auto", 0, 0,
      "activation checkpointing: auto (the fit adds it when memory needs it), none (never), full (every block)" },
    { "workload_packing", PARAM_BOOL, 0, NULL, NULL, "true", 0, 0,
      "sequences packed (every position a training token); false: workload_fill of them are" },
    { "workload_fill", PARAM_NUM, 0, NULL, NULL, "1", 0.01, 1,
      "without packing: the share of a sequence's positions that hold tokens (the mean example over seq)" },
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
      "bytes read before each op timed on its own; auto: twice what a training step of the configuration "
      "holds (weights, gradients, optimizer state, activations): in a step, that much passes through the "
      "caches between two runs of one op (CPU only: a GPU's L2 is not the host's caches)" },
    { "budget_s", PARAM_NUM, 0, "auto", NULL, "auto", 0.1, 86400,
      "seconds for this experiment; auto: its share of the scenario budget" },
    { NULL, 0, 0, NULL, NULL, NULL, 0, 0, NULL },
};

#define NCONFIGS 10
#define WARMUP 1
#define OP_ROUNDS 11            /* samples of each op timed on its own */

/* The validation configurations: a base and one change at a time, then two combined. */
static void configs(const cJSON *params, struct train_config *out)
{
    int h = (int)param_num(params, "base_hidden"), s = (int)param_num(params, "base_seq");
    int a = h % 4 == 0 ? 4 : 1;
    struct net_shape base = { .layers = 2, .hidden = h, .heads = a, .seq = s, .vocab = 512, .batch = 8,
                                .accum = 1 };
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
        default: break;
        }
    }
}

static char *config_name(const struct train_config *c, char *buf, size_t n)
{
    const struct net_shape *s = &c->shape;
    snprintf(buf, n, "L%d h%d a%d s%d b%d V%d %s%s%s", s->layers, s->hidden, s->heads, s->seq, s->batch,
             s->vocab, net_prec_names[c->prec], s->accum > 1 ? " accum 2" : "", s->checkpoint ? " ckpt" : "");
    return buf;
}

/* The id records use for validation configuration i: "v1", "v2", ... */
static char *config_id(int i, char *buf, size_t n)
{
    snprintf(buf, n, "v%d", i + 1);
    return buf;
}

int validate_precheck(const cJSON *params, char *err, size_t errlen)
{
    struct train_config cfg[NCONFIGS];
    configs(params, cfg);
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

double validate_timed(double (*fn)(void *ud), void *ud, const char *stat)
{
    cJSON *rec = cJSON_CreateObject();
    measure_repeat(rec, &CALIB_RULE, fn, ud);
    double t = json_num(cJSON_GetObjectItemCaseSensitive(rec, "time_s"), stat, NAN);
    cJSON_Delete(rec);
    return t;
}

static const double Q_CHOICES[] = { 1, 1.5, 2, 3, 4, 6, 64 };
#define NQ ((int)(sizeof Q_CHOICES / sizeof Q_CHOICES[0]))

static void combine_json(cJSON *ci, const struct validate_sweep *s, const double *t, const double *err, double q,
                         double best)
{
    cJSON *o = cJSON_AddObjectToObject(ci, "combine");
    cJSON_AddStringToObject(o, "rule", "t = (tc^q + tm^q)^(1/q); q = 1: sum (no overlap), q >= 64: max (perfect overlap)");
    cJSON_AddNumberToObject(o, "q", q);
    cJSON_AddNumberToObject(o, "mean_abs_error", best);
    cJSON_AddNumberToObject(o, "points", s->nk - 2);
    cJSON_AddStringToObject(o, "microbenchmark", s->what);
    cJSON_AddNumberToObject(o, "array_bytes", s->bytes);
    cJSON *pts = cJSON_AddArrayToObject(o, "sweep");
    for (int i = 0; i < s->nk; i++) {
        cJSON *p = cJSON_CreateObject();
        cJSON_AddNumberToObject(p, "flops_per_byte", s->ks[i] * 2.0 / 4);
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

/* Chooses q on the sweep: the ceilings are the sweep's own ends (k = 0: memory; the largest k:
 * compute), the q whose combine rule predicts the points between best (mean |log error|). */
int validate_combine_rule(cJSON *ci, const struct validate_sweep *s)
{
    double t[VALIDATE_SWEEP_MAX], n = s->bytes / 4, err[NQ], best = INFINITY, q = 1;
    int last = s->nk - 1;
    for (int i = 0; i < s->nk; i++)
        if (!((t[i] = s->pass(s->ud, s->ks[i])) > 0))
            return -1;
    double bw = s->bytes / t[0], fl = 2.0 * s->ks[last] * n / t[last];
    for (int qi = 0; qi < NQ; qi++) {
        err[qi] = 0;
        for (int i = 1; i < last; i++) {
            double pred = predict_combine(2.0 * s->ks[i] * n / fl, s->bytes / bw, Q_CHOICES[qi]);
            err[qi] += fabs(log(pred / t[i])) / (s->nk - 2);
        }
        if (err[qi] < best) {
            best = err[qi];
            q = Q_CHOICES[qi];
        }
    }
    cJSON_AddNumberToObject(ci, "vector_flops", fl);
    combine_json(ci, s, t, err, q, best);
    return 0;
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
};

static volatile unsigned long scrub_sink;
/* No scrub buffer: a GPU's L2 is not the host's caches; the op before each timed one still
 * leaves in it what a step would. */
#define NO_SCRUB ((size_t)-1)

/* Read between repetitions: the scrub_size asked, or 0 for the configuration's own (scrub_auto). */
static size_t scrub_bytes(const cJSON *params)
{
    return cJSON_IsNumber(param_get(params, "scrub_size")) ? (size_t)param_num(params, "scrub_size") : 0;
}

/* What passes through the caches between two runs of one op in a step: everything the step
 * holds, read once and written once. Derived from the configuration, not from a fixed size. */
static size_t scrub_auto(const struct train_config *cfg)
{
    struct net_memory m;
    net_memory(&cfg->shape, cfg->prec, NET_IMPL_CPU, &m);
    return (size_t)(2.0 * m.total);
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
    b->nscrub = nscrub == NO_SCRUB ? 0 : nscrub ? nscrub : scrub_auto(cfg);
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

/* Seconds of one run of op i. Before it a scrub buffer larger than the caches is read and the
 * op before it in the plan runs, untimed: the caches then hold what they hold in a step (the
 * previous op's output), not op i's own last inputs. */
static double time_op(struct bench_cfg *b, int i)
{
    double s;
    scrub_caches(b);
    if (i > 0)
        b->ops->run(b->c, &b->plan[i - 1]);
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

/* Times every distinct op of cfg's plan on its own, and whole training steps, in rounds: each
 * round times each op once, then trains one step (forward, backward, AdamW update). A burst of
 * load on a shared machine then costs one sample of many ops and of the steps alike, not all
 * samples of a few. The ops' medians go into c; *run gets the steps. Returns the ops timed. */
static int calibrate_config(const struct train_ops *ops, const struct train_config *cfg, const char *id, size_t nscrub,
                            struct predict_calib *c, cJSON *results, cJSON **run, char *err, size_t errlen)
{
    struct bench_cfg b;
    *run = NULL;
    if (bench_open(&b, ops, cfg, nscrub, err, errlen) != 0) {
        bench_close(&b);
        return -1;
    }
    double *op_s = xmalloc((size_t)b.nops * (OP_ROUNDS + 1) * sizeof *op_s), step_s[OP_ROUNDS], pred_s[OP_ROUNDS];
    train_step(&b, op_s);               /* a warm-up step: every tensor holds real values */
    int *todo = xmalloc((size_t)b.nops * sizeof *todo), *of = xmalloc((size_t)b.nops * sizeof *of), n = 0;
    struct predict_calib seen = { .peak = 1, .bw = 1 };     /* "seconds": the op's place in todo */
    for (int i = 0; i < b.nops; i++) {
        double j = predict_calib_lookup(&seen, &b.plan[i]);
        if (j < 0 && predict_calib_lookup(c, &b.plan[i]) < 0) {
            predict_calib_add(&seen, &b.plan[i], n);
            j = n;
            todo[n++] = i;
        }
        of[i] = (int)j;                 /* -1: timed for an earlier configuration */
    }
    predict_calib_free(&seen);
    double *samples = xmalloc((size_t)(n ? n : 1) * OP_ROUNDS * sizeof *samples);
    int rounds = 0;
    for (; rounds < OP_ROUNDS && !progress_stopping(); rounds++) {
        for (int j = 0; j < n; j++)
            samples[(size_t)j * OP_ROUNDS + rounds] = time_op(&b, todo[j]);
        step_s[rounds] = train_step(&b, op_s + (size_t)rounds * b.nops);
        pred_s[rounds] = 0;             /* this round's ops, summed over the plan */
        for (int i = 0; i < b.nops; i++)
            pred_s[rounds] += of[i] >= 0 ? samples[(size_t)of[i] * OP_ROUNDS + rounds]
                                         : predict_calib_lookup(c, &b.plan[i]);
    }
    const char *failed = b.ops->error ? b.ops->error(b.c) : NULL;
    if (failed) {                       /* a call failed: its times are not times */
        snprintf(err, errlen, "%s", failed);
        rounds = -1;
    }
    for (int j = 0; j < n && rounds > 0; j++) {
        double *x = samples + (size_t)j * OP_ROUNDS, med = measure_median(x, rounds);
        predict_calib_add(c, &b.plan[todo[j]], med);
        cJSON_AddItemToArray(results, timed_json(&b.plan[todo[j]], id, x, rounds, med));
    }
    if (rounds > 0) {
        *run = steps_json(&b, step_s, op_s, rounds);
        double ratio[OP_ROUNDS];
        for (int r = 0; r < rounds; r++)
            ratio[r] = pred_s[r] / step_s[r];
        cJSON_AddItemToObject(*run, "predicted_rounds_s", cJSON_CreateDoubleArray(pred_s, rounds));
        cJSON_AddNumberToObject(*run, "paired_ratio", measure_median(ratio, rounds));
    }
    free(samples);
    free(todo);
    free(of);
    free(op_s);
    bench_close(&b);
    return rounds < 0 ? -1 : rounds > 0 ? n : 0;
}

/* ---- prediction and validation ---- */


static cJSON *validation_json(const struct train_config *cfg, int idx, double pred, const double *by_class,
                              const cJSON *run)
{
    char name[96];
    const struct net_shape *s = &cfg->shape;
    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "series", "validation");
    char id[16];
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
    cJSON_AddItemToObject(r, "predicted_rounds_s", cJSON_Duplicate(field(run, "predicted_rounds_s"), 1));
    cJSON_AddNumberToObject(r, "error_of_medians", pred / ts->valuedouble - 1);
    cJSON_AddNumberToObject(r, "error", field(run, "paired_ratio")->valuedouble - 1);
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

/* Errors from pred (the paired predictions), rank agreement from rank_pred (the predictions
 * from the ops' medians) against meas. */
static void summary_json(cJSON *info, const double *pred, const double *rank_pred, const double *meas, int n,
                         const char *device)
{
    double mean = 0, mx = 0, lg = 0, lg2 = 0;
    for (int i = 0; i < n; i++) {
        double e = fabs(pred[i] / meas[i] - 1), l = log(pred[i] / meas[i]);
        mean += e / n;
        mx = fmax(mx, e);
        lg += l;
        lg2 += l * l;
    }
    if (n == 0)
        return;
    cJSON *v = cJSON_AddObjectToObject(info, "validation");
    cJSON_AddStringToObject(v, "device", device);
    cJSON_AddStringToObject(v, "covers", "this machine's own training steps on this device: it validates the method "
                            "here, not the projections onto other systems");
    cJSON_AddNumberToObject(v, "n", n);
    cJSON_AddNumberToObject(v, "mean_abs_error", mean);
    cJSON_AddNumberToObject(v, "max_abs_error", mx);
    cJSON_AddNumberToObject(v, "bias", exp(lg / n));
    cJSON_AddNumberToObject(v, "spread", n > 1 ? sqrt(fmax(0, (lg2 - lg * lg / n) / (n - 1))) : 0);
    if (n > 1)
        cJSON_AddNumberToObject(v, "kendall_tau", kendall(rank_pred, meas, n));
    cJSON *cal = cJSON_AddObjectToObject(v, "calculon");
    cJSON_AddNumberToObject(cal, "mean", 0.0365);
    cJSON_AddNumberToObject(cal, "max", 0.0887);
    cJSON_AddStringToObject(cal, "source", "Calculon (Isaev et al., SC23): 8 Megatron step times on A100, re-run");
}

/* The calibration's curves and fit, after its ceilings (info.calibration: ci). */
static void curves_json(cJSON *ci, const struct predict_calib *c)
{
    cJSON_AddNumberToObject(ci, "spread", c->spread);
    cJSON_AddNumberToObject(ci, "ops_measured", c->ntimed);
    int per_dtype = 0;
    for (int d = 0; d < NET_NDTYPES; d++)
        per_dtype |= d != NET_DT_F32 && c->peak_dtype[d] > 0;
    cJSON *cls = cJSON_AddArrayToObject(ci, "classes");
    for (int k = 0; k < NET_NCLASSES; k++) {
        const struct predict_curve *cv = &c->curve[k];
        if (cv->n == 0)
            continue;
        cJSON *e = cJSON_CreateObject();
        int compute = k == NET_MATMUL || k == NET_ATTENTION;
        cJSON_AddStringToObject(e, "class", net_class_names[k]);
        cJSON_AddStringToObject(e, "dtype", "all");
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
        cJSON_AddItemToArray(cls, e);
    }
}

/* ---- the run ---- */

/* One device's calibration: the trainer whose ops are timed, whether a host buffer is read
 * between op timings (the CPU's caches), its ceilings, and whether ceilings it cannot measure
 * leave the experiment not measured (a GPU that refuses) rather than failed (the CPU). */
struct vdevice {
    const char *device;
    const char *family;             /* the trainer's backend_for family */
    int scrub_host;
    int (*ceilings)(cJSON *ci, cJSON *info, char *why, size_t n);
    int refusal_skips;
};
static const struct vdevice vdevices[] = {
    { "cpu", "train", 1, validate_cpu_ceilings, 0 },
    { "gpu", "train", 0, validate_gpu_ceilings, 1 },
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

/* The configurations validated: each one's ops timed afresh beside its training steps, its
 * step predicted from them, its ops' first times kept in cal; the records, then the summary. */
static void validate_configs(const struct vdevice *d, const struct train_ops *ops, const struct train_config *cfg,
                             int n, size_t scrub, struct predict_calib *cal, cJSON *out)
{
    cJSON *results = part(out, "results"), *skipped = part(out, "skipped"), *vals = cJSON_CreateArray(), *run, *v;
    double by_class[NET_NCLASSES], p_ok[NCONFIGS], p_rank[NCONFIGS], m_ok[NCONFIGS];
    char name[96], why[300];
    int nv = 0;
    for (int i = 0; i < n; i++) {
        config_name(&cfg[i], name, sizeof name);
        if (progress_stopping()) {
            measure_skip(skipped, name, "the run was interrupted");
            continue;
        }
        progress_step(1 + 2 * i, name);
        struct predict_calib fresh = *cal;
        fresh.timed = NULL;
        fresh.ntimed = fresh.captimed = 0;
        memset(fresh.curve, 0, sizeof fresh.curve);
        char id[16];
        if (calibrate_config(ops, &cfg[i], config_id(i, id, sizeof id), scrub, &fresh, results, &run, why, sizeof why) < 0) {
            measure_skip(skipped, name, why);
            predict_calib_free(&fresh);
            continue;
        }
        double pred = predict_step_seconds(&fresh, &cfg[i].shape, cfg[i].prec, by_class);
        for (int j = 0; j < fresh.ntimed; j++) {    /* the calibration keeps the first time of each op */
            const struct predict_timed *t = &fresh.timed[j];
            struct net_op op = { .kind = t->kind, .which = t->which, .dtype = t->dtype, .dtype_out = t->dtype_out,
                                   .m = t->m, .n = t->n, .k = t->k, .flops = t->flops, .bytes_read = t->bytes };
            if (predict_calib_lookup(cal, &op) < 0)
                predict_calib_add(cal, &op, t->seconds);
        }
        predict_calib_free(&fresh);
        v = validation_json(&cfg[i], i, pred, by_class, run);
        const cJSON *ms = field(v, "measured_s");
        if (cJSON_IsNumber(ms)) {       /* the paired ratio, as predicted / measured */
            p_ok[nv] = (1 + field(v, "error")->valuedouble) * ms->valuedouble;
            p_rank[nv] = pred;
            m_ok[nv++] = ms->valuedouble;
        }
        cJSON_AddItemToArray(vals, v);
        cJSON_Delete(run);
    }
    while ((v = cJSON_DetachItemFromArray(vals, 0)))
        cJSON_AddItemToArray(results, v);
    cJSON_Delete(vals);
    summary_json(part(out, "info"), p_ok, p_rank, m_ok, nv, d->device);
}

/* One larger shape, timed op by op but never trained: the curves reach beyond the caches. */
static void calibrate_big(const struct train_ops *ops, const struct train_config *base, size_t scrub,
                          struct predict_calib *cal, cJSON *out)
{
    struct train_config big = *base;
    char name[96], why[300];
    cJSON *run;
    big.shape.hidden *= 4;
    big.shape.heads *= 4;
    big.shape.seq *= 4;
    big.shape.layers = 1;
    config_name(&big, name, sizeof name);
    progress_step(0, name);
    if (calibrate_config(ops, &big, "big", scrub, cal, part(out, "results"), &run, why, sizeof why) < 0)
        measure_skip(part(out, "skipped"), name, why);
    cJSON_Delete(run);
}

cJSON *validate_run(const cJSON *params, double budget_s, char *err, size_t errlen)
{
    struct train_config cfg[NCONFIGS];
    struct predict_calib cal = { 0 };
    const char *device = param_str(params, "device");
    const struct vdevice *d = vdevice_of(device);
    int n = (int)param_num(params, "configs");
    char phase[32], why[300];
    budget_s = measure_budget(params, budget_s);
    configs(params, cfg);
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
    if (d->ceilings(ci, info, why, sizeof why) != 0 || predict_calib_ceilings(ci, &cal, why, sizeof why) != 0) {
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
    size_t scrub = d->scrub_host ? scrub_bytes(params) : NO_SCRUB;
    calibrate_big(ops, &cfg[0], scrub, &cal, out);
    validate_configs(d, ops, cfg, n, scrub, &cal, out);
    if (field(ci, "device_name") && field(info, "validation"))
        cJSON_AddStringToObject(part(info, "validation"), "device_name", json_str(ci, "device_name", ""));
    predict_calib_finish(&cal);
    curves_json(ci, &cal);
    progress_step(2 * n + 1, "done");
    progress_end();
    predict_calib_free(&cal);
    return out;
}
