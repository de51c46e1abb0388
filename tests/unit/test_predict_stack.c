/* test_predict_stack.c: the GPU software-stack profiles on the project's own cited data
 * (data/gpu-runs.csv, systems.csv, fabric.csv, costs.csv, read as the runner hands them over, through
 * sparkreport.catalog, the one loader): every fitted profile's leave-one-out mean error at most 10 %, llm.c's GPT-2 runs (never
 * fitted on) and the DGX Spark's own runs (left out in turn) within 0.8-1.25 of the published throughput,
 * N8python/spark-gpt's runs asked through workload_* fields within 0.8-1.25; GB10 as a generation
 * (borrowed by ratio where a profile has no Spark runs, attention at its measured kernel rate); the
 * matmul size term in tile products per SM; QLoRA against LoRA as LitGPT published it; and the
 * arithmetic the profiles share with the projection, pinned by hand: data-parallel traffic per ZeRO
 * stage, the link between GPUs, the step with its traffic overlapped, the per-op cost that binds only
 * short ops, the FP8 backward GEMMs of Transformer Engine, what two Sparks hold under ZeRO-3, FSDP with
 * host offload (70B on 8 A100s), tensor parallelism's traffic, marginal fits and energy on the whole
 * system's power; a catalog system's GPU (generation, SMs, span) and roles from its row alone. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>

#include "check.h"
#include "exp/model/model.h"
#include "lua/convert.h"
#include "lua/state.h"
#include "predict/fit.h"
#include "predict/hfconfig.h"
#include "predict/jobspec.h"
#include "predict/project.h"
#include "predict/stack.h"
#include "util/error.h"
#include "util/json.h"
#include "hfconfigs.h"

/* ---- the data files through the one loader the runner uses (sparkreport.catalog) ---- */

/* sparkreport.catalog's function `fn` called with the string `arg` (or none), its result as JSON:
 * projection_rows (data/systems.csv typed, fabric.csv and spec-ranges.csv joined, costs.csv's
 * system_power_w: what bench.project is handed), data("data/gpu-runs.csv") (rows of strings). */
static cJSON *from_catalog(const char *fn, const char *arg)
{
    char err[512];
    cJSON *out = NULL;
    lua_State *L = sr_lua_new(SR_LUA_MEM_LIMIT);
    if (sr_lua_require(L, "sparkreport.catalog", err, sizeof err) == 0) {
        lua_getfield(L, -1, fn);
        if (arg)
            lua_pushstring(L, arg);
        if (sr_lua_pcall(L, arg ? 1 : 0, 1, err, sizeof err, NULL) == 0)
            out = lua_to_json(L, -1, fn, err, sizeof err);
    }
    if (!out)
        fprintf(stderr, "sparkreport.catalog.%s: %s\n", fn, err);
    EXPECT(out != NULL);
    sr_lua_close(L);
    return out ? out : cJSON_CreateArray();
}

static cJSON *catalog(void) { return from_catalog("projection_rows", NULL); }
static cJSON *csv_rows(const char *path) { return from_catalog("data", path); }

static const cJSON *profile(const cJSON *info, const char *id)
{
    const cJSON *p;
    cJSON_ArrayForEach(p, cJSON_GetObjectItem(info, "stack_profiles"))
        if (strcmp(cJSON_GetObjectItem(p, "id")->valuestring, id) == 0)
            return p;
    return NULL;
}

/* The cited runs: each profile's leave-one-out table within 10 %, the llm.c checks within
 * 0.8-1.25, and every generation's efficiencies at most 1 (0.75 for attention). */
static void cited_runs(void)
{
    cJSON *cat = catalog(), *rows = csv_rows("data/gpu-runs.csv");
    struct predict_run *runs;
    char err[300];
    int n = predict_runs_load(rows, cat, &runs, err, sizeof err);
    if (n < 0)
        printf("%s\n", err);
    EXPECT(n > 150);
    predict_stacks_fit(runs, n);
    cJSON *results = cJSON_CreateArray(), *info = cJSON_CreateObject();
    predict_stacks_json(runs, n, results, info);
    static const char *const fitted[] = { "pytorch", "megatron-te", "hf-peft", "pytorch-compile", "hf-trainer" };
    for (size_t i = 0; i < sizeof fitted / sizeof fitted[0]; i++) {
        const cJSON *p = profile(info, fitted[i]), *l = cJSON_GetObjectItem(p, "leave_one_out");
        EXPECT(l && cJSON_GetObjectItem(p, "runs")->valuedouble >= 3);
        double mean = l ? cJSON_GetObjectItem(l, "mean_abs_error")->valuedouble : 1;
        if (!(mean <= 0.10))
            printf("profile %s: leave-one-out mean |error| %.3f\n", fitted[i], mean);
        EXPECT(mean <= 0.10);
    }
    int checks = 0;
    for (int i = 0; i < n; i++) {
        if (strcmp(runs[i].stack, "fused-cuda") != 0)
            continue;
        double r = runs[i].loo / runs[i].published;
        if (!(r >= 0.8 && r <= 1.25))
            printf("llm.c check %s: predicted / published %.3f\n", runs[i].id, r);
        EXPECT(r >= 0.8 && r <= 1.25);
        checks++;
    }
    EXPECT(checks == 2);
    /* the DGX Spark's own runs (N8python/spark-gpt on the current PyTorch profile, NVIDIA's LLaMA-Factory
       playbook on the Hugging Face Trainer's), each predicted by the fit that left it out */
    int spark = 0;
    for (int i = 0; i < n; i++) {
        if (strcmp(runs[i].system, "dgx-spark") != 0)
            continue;
        double r = runs[i].loo / runs[i].published;
        printf("Spark run %s: left out, predicted %.0f, published %.0f, ratio %.3f\n", runs[i].id, runs[i].loo,
               runs[i].published, r);
        EXPECT(r >= 0.8 && r <= 1.25 && runs[i].gen == PREDICT_GB10 && runs[i].sms == 48);
        spark++;
    }
    EXPECT(spark == 5);
    for (size_t i = 0; i < sizeof fitted / sizeof fitted[0]; i++) {
        const struct predict_stack *st = predict_stack_find(fitted[i]);
        EXPECT(predict_stack_fitted(st));
        for (int g = 0; g < PREDICT_NGENS; g++) {
            EXPECT(st->p[PREDICT_MM_ETA + g] > 0 && st->p[PREDICT_MM_ETA + g] <= 1);
            EXPECT(st->p[PREDICT_ATT_ETA + g] > 0 && st->p[PREDICT_ATT_ETA + g] <= 0.75);
            EXPECT(st->gen_spread[g] >= 1);
        }
    }
    /* the generations each fit saw, and the rule for the others */
    const struct predict_stack *mg = predict_stack_find("megatron-te"), *pt = predict_stack_find("pytorch");
    EXPECT(mg->fitted_gen[PREDICT_HOPPER] && mg->fitted_gen[PREDICT_BLACKWELL] && !mg->fitted_gen[PREDICT_AMPERE]);
    EXPECT(pt->fitted_gen[PREDICT_AMPERE] && pt->fitted_gen[PREDICT_HOPPER] && !pt->fitted_gen[PREDICT_BLACKWELL]);
    EXPECT_STR(pt->gen_rule[PREDICT_BLACKWELL],
               "no runs: the hopper efficiencies times the blackwell/hopper ratio of the megatron-te profile");
    /* GB10: fitted in the current profile only; the others borrow its GB10/Hopper matmul ratio, and every
       profile runs attention there at the kernels' measured 55 of 125 TFLOP/s */
    const struct predict_stack *pc = predict_stack_find("pytorch-compile");
    EXPECT(pc->fitted_gen[PREDICT_GB10] && pc->fitted_gen[PREDICT_HOPPER] && !pt->fitted_gen[PREDICT_GB10]);
    EXPECT_STR(pt->gen_rule[PREDICT_GB10], "no runs: the hopper efficiencies times the gb10/hopper ratio of the "
               "pytorch-compile profile; attention at its measured kernel rate");
    EXPECT_NEAR(pt->p[PREDICT_MM_ETA + PREDICT_GB10], pt->p[PREDICT_MM_ETA + PREDICT_HOPPER]
                * pc->p[PREDICT_MM_ETA + PREDICT_GB10] / pc->p[PREDICT_MM_ETA + PREDICT_HOPPER], 1e-12);
    EXPECT(pt->p[PREDICT_ATT_ETA + PREDICT_GB10] == 55.0 / 125 && pc->p[PREDICT_ATT_ETA + PREDICT_GB10] == 55.0 / 125);
    EXPECT(pt->gen_spread[PREDICT_GB10] > 1 && pc->gen_spread[PREDICT_GB10] == 1);
    EXPECT(pc->p[PREDICT_OP_S] <= 1e-4 && pt->p[PREDICT_OP_S] <= 1e-4);      /* a host cost, not a layer's traffic */
    /* the fit is the data's, not the machine's rounding: the published rates moved by a part in 10^12
       (an FMA's rounding, another libm) give the same parameters to 0.1 %, a parameter the runs leave
       flat (a compiled stack's per-op cost) included; it was at one bound on x86 and at the other on
       aarch64, and an unfitted coordinate drifted ulp by ulp in the search */
    double before[sizeof fitted / sizeof fitted[0]][PREDICT_NSTACKP];
    for (size_t i = 0; i < sizeof fitted / sizeof fitted[0]; i++)
        memcpy(before[i], predict_stack_find(fitted[i])->p, sizeof before[i]);
    for (int i = 0; i < n; i++)
        runs[i].published *= 1 + 1e-12;
    predict_stacks_fit(runs, n);
    for (size_t i = 0; i < sizeof fitted / sizeof fitted[0]; i++)
        for (int j = 0; j < PREDICT_NSTACKP; j++) {
            double now = predict_stack_find(fitted[i])->p[j];
            if (!(fabs(now / before[i][j] - 1) < 1e-3))
                printf("profile %s: %s %.6g, %.6g with the rates moved by 1e-12\n", fitted[i],
                       predict_stack_param_names[j], before[i][j], now);
            EXPECT(fabs(now / before[i][j] - 1) < 1e-3);
        }
    EXPECT_NEAR(pt->p[PREDICT_MM_ETA + PREDICT_BLACKWELL], fmin(1, pt->p[PREDICT_MM_ETA + PREDICT_HOPPER]
                * mg->p[PREDICT_MM_ETA + PREDICT_BLACKWELL] / mg->p[PREDICT_MM_ETA + PREDICT_HOPPER]), 1e-12);
    cJSON_Delete(results);
    cJSON_Delete(info);
    predict_runs_free(runs, n);
    cJSON_Delete(rows);
    cJSON_Delete(cat);
}

/* Traffic, link and step by hand. */
static void communication(void)
{
    struct predict_comm c;
    predict_comm_bytes(0, 4, 100, 10, &c);          /* DDP: all-reduce 2 (3/4) 10 = 15 once per step */
    EXPECT(c.micro == 0 && c.step == 15);
    predict_comm_bytes(1, 4, 100, 10, &c);          /* ZeRO-1: (3/4)(10 + 100) */
    EXPECT(c.micro == 0 && c.step == 82.5);
    predict_comm_bytes(2, 4, 100, 10, &c);          /* ZeRO-2: (3/4) 10 per micro-batch, (3/4) 100 per step */
    EXPECT(c.micro == 7.5 && c.step == 75);
    predict_comm_bytes(3, 4, 100, 10, &c);          /* ZeRO-3: (3/4)(2 100 + 10) per micro-batch */
    EXPECT(c.micro == 157.5 && c.step == 0);
    predict_comm_bytes(3, 1, 100, 10, &c);
    EXPECT(c.micro == 0 && c.step == 0);
    /* links (data/fabric.csv's figures): two Sparks over one ConnectX-7 each (25 GB/s); eight H100s
     * on NVLink (450); sixteen across two nodes: eight 50 GB/s NICs together, under NVLink's 450 */
    EXPECT(predict_link_Bps(1, 0, 25e9, 2) == 25e9);
    EXPECT(predict_link_Bps(8, 450e9, 50e9, 8) == 450e9);
    EXPECT(predict_link_Bps(8, 450e9, 50e9, 16) == 400e9);
    EXPECT(predict_link_Bps(8, 450e9, 50e9, 1) == 0);
    /* a step: 4 micro-batches of 1 s whose 2 GB at 1 GB/s bind (8 s), 3 GB per step of which two
     * thirds of a micro-batch hide (3 - 2/3 s), an update of 0.5 s */
    struct predict_comm t = { 2e9, 3e9 };
    EXPECT_NEAR(predict_dp_step_seconds(1, 4, 0.5, &t, 1e9), 8 + (3 - 2.0 / 3) + 0.5, 1e-12);
    EXPECT_NEAR(predict_dp_step_seconds(1, 4, 0.5, &t, 0), 4.5, 1e-12);      /* no link given: no traffic */
    EXPECT(predict_grad_bytes(NET_BF16) == 2 && predict_grad_bytes(NET_FP8) == 2 && predict_grad_bytes(NET_FP32) == 4);
}

/* One op: the larger of compute, memory and the per-op cost, which a long op hides. */
static void per_op_cost(void)
{
    const struct predict_stack *st = predict_stack_find("fused-cuda");      /* op_s 4 us, memory 0.85 */
    struct predict_target t = { 1e15, 1e12, PREDICT_HOPPER, 0, 132 };
    struct net_op small = { .kind = NET_OP_GELU, .bytes_read = 1e3, .bytes_written = 1e3 };
    struct net_op big = { .kind = NET_OP_GELU, .bytes_read = 0.85e9, .bytes_written = 0.85e9 };
    int mb;
    EXPECT_NEAR(predict_stack_op_seconds(st, &t, &small, &mb), 4e-6, 1e-12);   /* launch-bound */
    EXPECT(!mb);
    EXPECT_NEAR(predict_stack_op_seconds(st, &t, &big, &mb), 2e-3, 1e-12);     /* 1.7 GB at 850 GB/s */
    EXPECT(mb);
    /* Transformer Engine's FP8 recipe: the blocks' dgrad and wgrad at E4M3, the head's not; PyTorch's
     * FP8 recipe keeps the backward in BF16 */
    const struct predict_stack *te = predict_stack_find("megatron-te"), *pt = predict_stack_find("pytorch");
    struct net_op d = { .kind = NET_OP_MATMUL_DGRAD, .dtype = NET_DT_BF16, .which = NET_LIN_FC };
    struct net_op h = { .kind = NET_OP_MATMUL_WGRAD, .dtype = NET_DT_BF16, .which = NET_LIN_LMHEAD };
    struct net_op a = { .kind = NET_OP_FLASH_ATTENTION, .dtype = NET_DT_E4M3 };
    EXPECT(predict_stack_op_dtype(te, NET_FP8, &d) == NET_DT_E4M3 && predict_stack_op_dtype(te, NET_BF16, &d) == NET_DT_BF16);
    EXPECT(predict_stack_op_dtype(te, NET_FP8, &h) == NET_DT_BF16 && predict_stack_op_dtype(pt, NET_FP8, &d) == NET_DT_BF16);
    EXPECT(predict_stack_op_dtype(te, NET_FP8, &a) == NET_DT_BF16 && predict_stack_op_dtype(te, NET_FP32, &a) == NET_DT_F32);
}

/* Llama-3.1 8B full fine-tune (BF16 recipe, FP32 AdamW) on DGX Sparks: one cannot hold it; two
 * hold it under ZeRO-3, each with half the master weights, moments, gradients and BF16 copies plus
 * two blocks' weights gathered; per micro-batch each moves (1/2)(2 W + G) with W = G = 2 N bytes. */
static void two_sparks(void)
{
    const struct net_shape s = { .layers = 32, .hidden = 4096, .heads = 32, .seq = 4096, .vocab = 128256,
        .batch = 2, .accum = 16, .kv_heads = 8, .ffn = 14336, .mlp = NET_MLP_SWIGLU, .norm = NET_NORM_RMS,
        .nobias = 1, .rope = 1, .attention = NET_ATT_FLASH, .amp = 1, .causal = 1, .optimizer = NET_OPT_ADAMW };
    double N = (double)net_param_count(&s), low = (double)net_low_count(&s);
    EXPECT(N == 8030261248.0);
    struct predict_fit_target t;
    predict_fit_target_for(128e9, 0, 1, 1, &t);             /* a Spark: 128 GB, one shared pool */
    struct predict_fit f;
    EXPECT(!predict_fit(&s, NET_BF16, &t, &f));
    static const int counts[] = { 2, 4, 8 };
    EXPECT(predict_fit_devices(&s, NET_BF16, &t, counts, 3, &f) == 2);
    /* the lowest stage that fits two: ZeRO-1 (moments and the linears' master weights halved) */
    EXPECT(f.fits && f.gpus == 2 && f.zero == 1 && f.offload == PREDICT_OFFLOAD_NONE);
    EXPECT_NEAR(f.mem.bytes[NET_MEM_OPTIMIZER], 8 * N / 2, 1e-12);
    EXPECT_NEAR(f.mem.bytes[NET_MEM_WEIGHTS], 4 * N - 4 * low / 2, 1e-12);
    EXPECT_NEAR(f.mem.bytes[NET_MEM_GRADS], 4 * N, 1e-12);
    struct predict_comm c;
    predict_comm_bytes(f.zero, f.gpus, 2 * N, predict_grad_bytes(NET_BF16) * N, &c);
    EXPECT(c.micro == 0);
    EXPECT_NEAR(c.step, 2 * N, 1e-12);                      /* (1/2)(2N + 2N) once per step: 16.1 GB */
    /* the scenario's ZeRO-3: everything halved, two blocks' weights gathered besides */
    t.zero = 3;
    EXPECT(predict_fit_devices(&s, NET_BF16, &t, counts, 3, &f) == 2 && f.zero == 3);
    EXPECT_NEAR(f.mem.bytes[NET_MEM_OPTIMIZER], 8 * N / 2, 1e-12);        /* two FP32 moments, halved */
    EXPECT_NEAR(f.mem.bytes[NET_MEM_GRADS], 4 * N / 2, 1e-12);            /* FP32 gradients, halved */
    EXPECT_NEAR(f.mem.bytes[NET_MEM_WEIGHTS], 4 * N / 2, 1e-12);          /* FP32 master, halved */
    EXPECT_NEAR(f.mem.bytes[NET_MEM_LOW], 2 * low / 2, 1e-12);            /* BF16 copies, halved */
    EXPECT(f.device_bytes <= 128e9 - predict_fit_reserve(128e9, 1));
    EXPECT(f.micro_batch * f.accum * 2 == s.batch * s.accum);
    predict_comm_bytes(f.zero, f.gpus, 2 * N, predict_grad_bytes(NET_BF16) * N, &c);
    EXPECT_NEAR(c.micro, 3 * N, 1e-12);                     /* 24.1 GB per micro-batch */
    double link = predict_link_Bps(1, 0, 25e9, 2);
    EXPECT_NEAR(c.micro / link, 3 * 8030261248.0 / 25e9, 1e-12);         /* 0.964 s over ConnectX-7 */
    /* eight H100s (80 GiB) with FSDP: ZeRO-3 over 8, (7/8)(2 W + G) per micro-batch over NVLink */
    predict_fit_target_for(80 * 1073741824.0, 0, 0, 8, &t);
    t.zero = 3;
    EXPECT(predict_fit(&s, NET_FP8, &t, &f) && f.zero == 3 && f.gpus == 8);
    predict_comm_bytes(3, 8, 2 * N, 2 * N, &c);
    EXPECT_NEAR(c.micro, 7.0 / 8 * 6 * N, 1e-12);
    EXPECT_NEAR(c.micro / predict_link_Bps(8, 450e9, 50e9, 8), 7.0 / 8 * 6 * N / 450e9, 1e-12);
}

static cJSON *params(const char *json)
{
    char err[512];
    cJSON *given = cJSON_Parse(json), *p = param_check("model", model_params, given, err, sizeof err);
    cJSON_Delete(given);
    if (!p)
        printf("param_check: %s\n", err);
    return p;
}

static const cJSON *record(const cJSON *results, const char *series, const char *workload, const char *system)
{
    const cJSON *r;
    cJSON_ArrayForEach(r, results) {
        const cJSON *se = cJSON_GetObjectItem(r, "series"), *w = cJSON_GetObjectItem(r, "workload");
        const cJSON *s = cJSON_GetObjectItem(r, "system");
        if (cJSON_IsString(se) && strcmp(se->valuestring, series) == 0 && cJSON_IsString(w) && cJSON_IsString(s)
            && strcmp(w->valuestring, workload) == 0 && strcmp(s->valuestring, system) == 0)
            return r;
    }
    return NULL;
}

static double num(const cJSON *o, const char *name)
{
    const cJSON *v = cJSON_GetObjectItem(o, name);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

/* Projects params' workloads onto catalog rows cat with the cited runs; the records. */
static cJSON *project_on(const cJSON *cat, const char *json, cJSON **info)
{
    cJSON *runs = csv_rows("data/gpu-runs.csv"), *claims = csv_rows("data/vendor-claims.csv");
    struct predict_inputs in = { .catalog = cat, .runs = runs, .claims = claims };
    struct predict_calib c = { .peak = 1e11, .bw = 1e10, .q = 64 };
    cJSON *p = params(json), *results = cJSON_CreateArray();
    *info = cJSON_CreateObject();
    predict_project(p, &c, "cpu", NULL, &in, results, *info);
    cJSON_Delete(p);
    cJSON_Delete(runs);
    cJSON_Delete(claims);
    return results;
}

/* Projects the scenario's jobs (each as sr.job gives it, normalised by jobspec as bench.job does) with the
 * team's measured rates onto systems; the records. */
static cJSON *project_jobs(const char *systems, const char *jobs_json, const char *measured_json, cJSON **info)
{
    cJSON *cat = catalog(), *runs = csv_rows("data/gpu-runs.csv"), *jobs = cJSON_CreateArray(), *j;
    cJSON *given = cJSON_Parse(jobs_json), *measured = cJSON_Parse(measured_json ? measured_json : "[]");
    char err[600];
    cJSON_ArrayForEach(j, given) {
        struct jobspec js;
        if (jobspec_parse(j, NULL, "", &js, err, sizeof err) != 0)
            printf("job: %s\n", err);
        else
            cJSON_AddItemToArray(jobs, jobspec_json(&js));
        jobspec_free(&js);
    }
    struct predict_inputs in = { .catalog = cat, .runs = runs, .jobs = jobs, .measured = measured };
    struct predict_calib c = { .peak = 1e11, .bw = 1e10, .q = 64 };
    char pj[256];
    snprintf(pj, sizeof pj, "{\"workloads\":\"none\",\"systems\":%s}", systems);
    cJSON *p = params(pj), *results = cJSON_CreateArray();
    *info = cJSON_CreateObject();
    predict_project(p, &c, "cpu", NULL, &in, results, *info);
    cJSON_Delete(p);
    cJSON_Delete(cat);
    cJSON_Delete(runs);
    cJSON_Delete(jobs);
    cJSON_Delete(given);
    cJSON_Delete(measured);
    return results;
}

/* A job read from a config.json of each family the reader takes projects exactly as the same shape typed
 * into the job's fields; a field given beside the config replaces the file's; a rate the team measured
 * moves its row to it on that system (within 1 %) and every other system's by the ratio the model gives. */
static void jobs_from_configs(void)
{
    static const struct { const char *name, *text; int lora; } files[] = {
        { "llama", LLAMA31_8B, 16 }, { "mistral", MISTRAL_7B_V01, 16 }, { "qwen2", QWEN25_7B, 16 },
        { "qwen3", QWEN3_4B, 8 }, { "gemma2", GEMMA2_9B, 16 }, { "gemma3", GEMMA3_4B_IT, 0 },
        { "gemma3-270m", GEMMA3_270M, 0 }, { "gpt2", GPT2, 0 }, { "phi3", PHI3_MINI, 8 },
    };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char path[64], jobs[2048];
        struct hfconfig hc;
        char err[512];
        snprintf(path, sizeof path, "/tmp/test_predict_stack_%s.json", files[i].name);
        FILE *f = fopen(path, "w");
        fputs(files[i].text, f);
        fclose(f);
        EXPECT(hfconfig_load(path, &hc, err, sizeof err) == 0);
        const struct net_shape *t = &hc.shape;
        snprintf(jobs, sizeof jobs, "[{\"name\":\"from config\",\"config\":\"%s\",\"seq\":2048,\"batch\":16,"
                 "\"lora_rank\":%d},{\"name\":\"typed\",\"arch\":\"%s\",\"layers\":%d,\"hidden\":%d,\"heads\":%d,"
                 "\"kv_heads\":%d,\"ffn\":%d,\"head_dim\":%d,\"vocab\":%d,\"tied\":%s,\"window\":%d,"
                 "\"window_layers\":%d,\"seq\":2048,\"batch\":16,\"lora_rank\":%d}]", path, files[i].lora,
                 hc.llama ? "llama" : "gpt2", t->layers, t->hidden, t->heads, net_kv_heads(t), net_ffn(t), t->head_dim,
                 t->vocab, t->tied ? "true" : "false", t->window, t->window_layers, files[i].lora);
        cJSON *info, *res = project_jobs("[\"dgx-spark\",\"h100-sxm\"]", jobs, NULL, &info);
        for (int k = 0; k < 2; k++) {
            const char *sys = k ? "h100-sxm" : "dgx-spark";
            const cJSON *a = record(res, "projection", "from config", sys), *b = record(res, "projection", "typed", sys);
            if (!(a && b && num(a, "hours") == num(b, "hours")))
                printf("%s on %s: from config %g h, typed %g h\n", files[i].name, sys, num(a, "hours"), num(b, "hours"));
            EXPECT(a && b && num(a, "hours") > 0 && num(a, "hours") == num(b, "hours")
                   && num(a, "memory_bytes") == num(b, "memory_bytes"));
        }
        cJSON_Delete(res);
        cJSON_Delete(info);
        remove(path);
    }
    /* the layer count given beside a config replaces the file's, and the workload says so */
    FILE *f = fopen("/tmp/test_predict_stack_q.json", "w");
    fputs(QWEN3_4B, f);
    fclose(f);
    cJSON *info, *res = project_jobs("[\"dgx-spark\"]", "[{\"name\":\"short\",\"config\":\"/tmp/test_predict_stack_q.json\","
                                     "\"layers\":18,\"seq\":2048,\"batch\":16},{\"name\":\"typed\",\"layers\":18,"
                                     "\"hidden\":2560,\"heads\":32,\"kv_heads\":8,\"ffn\":9728,\"head_dim\":128,"
                                     "\"vocab\":151936,\"tied\":true,\"seq\":2048,\"batch\":16}]", NULL, &info);
    EXPECT(num(record(res, "projection", "short", "dgx-spark"), "hours")
           == num(record(res, "projection", "typed", "dgx-spark"), "hours"));
    const cJSON *w = cJSON_GetArrayItem(cJSON_GetObjectItem(info, "workloads"), 0);
    EXPECT(w && strstr(cJSON_GetStringValue(cJSON_GetObjectItem(w, "note")), "given beside it: layers") != NULL);
    cJSON_Delete(res);
    cJSON_Delete(info);
    remove("/tmp/test_predict_stack_q.json");

    /* the team's own rate of the LLaMA-Factory job on a Spark: 404.9 tok/s there; the H100's row keeps the
       model's ratio to the Spark's */
    static const char *const lf = "[{\"name\":\"lf\",\"lora_rank\":8,\"seq\":2048,\"packing\":false,"
        "\"sample_tokens\":166.2,\"micro_batch\":1,\"batch\":8,\"tokens\":543384}]";
    cJSON *i0, *before = project_jobs("[\"dgx-spark\",\"h100-sxm\"]", lf, NULL, &i0);
    res = project_jobs("[\"dgx-spark\",\"h100-sxm\"]", lf, "[{\"job\":\"lf\",\"system\":\"dgx-spark\","
                       "\"tokens_per_s\":404.9,\"spread\":0.03,\"source\":\"the playbook\"}]", &info);
    const cJSON *sp = record(res, "projection", "lf", "dgx-spark"), *h = record(res, "projection", "lf", "h100-sxm");
    const cJSON *sp0 = record(before, "projection", "lf", "dgx-spark"), *h0 = record(before, "projection", "lf", "h100-sxm");
    EXPECT(fabs(num(sp, "tokens_per_s_per_gpu") / 404.9 - 1) < 0.01);
    EXPECT_NEAR(num(h, "tokens_per_s_per_gpu") / num(sp, "tokens_per_s_per_gpu"),
                num(h0, "tokens_per_s_per_gpu") / num(sp0, "tokens_per_s_per_gpu"), 1e-9);
    const cJSON *cal = cJSON_GetObjectItem(sp, "calibrated");
    EXPECT(cal && cJSON_IsTrue(cJSON_GetObjectItem(cal, "here")) && cJSON_IsFalse(cJSON_GetObjectItem(
           cJSON_GetObjectItem(h, "calibrated"), "here")));
    EXPECT_NEAR(num(sp, "hours_high") / num(sp, "hours"), 1 / 0.97, 1e-9);     /* the measurement's 3 % */
    EXPECT(num(sp, "hours_high") / num(sp, "hours") < num(sp0, "hours_high") / num(sp0, "hours"));
    cJSON_Delete(res);
    cJSON_Delete(info);
    /* a rate of a job the scenario does not have calibrates nothing, and says so */
    res = project_jobs("[\"dgx-spark\"]", lf, "[{\"job\":\"other\",\"system\":\"dgx-spark\",\"tokens_per_s\":400,"
                       "\"source\":\"x\"}]", &info);
    EXPECT_STR(cJSON_GetStringValue(cJSON_GetArrayItem(cJSON_GetObjectItem(info, "job_errors"), 0)),
               "measured[other on dgx-spark]: no job of the scenario is named 'other' (sr.job)");
    EXPECT(!cJSON_GetObjectItem(record(res, "projection", "lf", "dgx-spark"), "calibrated"));
    cJSON_Delete(res);
    cJSON_Delete(info);
    cJSON_Delete(before);
    cJSON_Delete(i0);
}

/* The same onto the cited catalog. */
static cJSON *project(const char *json, cJSON **info)
{
    cJSON *cat = catalog(), *results = project_on(cat, json, info);
    cJSON_Delete(cat);
    return results;
}

static cJSON *row_of(const cJSON *rows, const char *id)
{
    cJSON *r;
    cJSON_ArrayForEach(r, rows)
        if (strcmp(json_str(r, "id", ""), id) == 0)
            return r;
    return NULL;
}

static int count(const cJSON *results, const char *series, const char *system)
{
    int n = 0;
    const cJSON *r;
    cJSON_ArrayForEach(r, results)
        n += strcmp(json_str(r, "series", ""), series) == 0 && strcmp(json_str(r, "system", ""), system) == 0;
    return n;
}

/* A catalog system's GPU and roles are its row's (data/systems.csv through sparkreport.catalog), not
 * a table in the code: generation, span and SMs; a row without an SM count is not projected and says
 * why; the projection copies the roles onto info.systems and shows N people sharing one device only
 * for a row whose roles say 'shared', whatever its id. */
static void catalog_gpus(void)
{
    static const struct { const char *id; int gen, span; double sms; } want[] = {
        { "dgx-spark", PREDICT_GB10, 0, 48 }, { "rtx-5090", PREDICT_GB10, 1, 170 }, { "b200", PREDICT_BLACKWELL, 0, 148 },
        { "a100-80g-sxm", PREDICT_AMPERE, 0, 108 }, { "h100-pcie", PREDICT_HOPPER, 0, 114 },
        { "mi300x", -1, 0, 1307.4e12 / (989e12 / 132) }, { "mac-studio-m3-ultra", -1, 0, 0 } };
    cJSON *cat = catalog(), *info;
    int gen, span;
    double sms;
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        predict_stack_row_gpu(row_of(cat, want[i].id), &gen, &span, &sms);
        EXPECT(gen == want[i].gen && span == want[i].span && sms == want[i].sms);
    }
    predict_stack_row_gpu(NULL, &gen, &span, &sms);
    EXPECT(gen == -1 && !span && sms == 0);
    cJSON_DeleteItemFromObject(row_of(cat, "b200"), "sms");
    cJSON_ReplaceItemInObject(row_of(cat, "h100-sxm"), "roles", cJSON_CreateStringArray((const char *[]){ "shared" }, 1));
    cJSON_DeleteItemFromObject(row_of(cat, "dgx-spark"), "roles");
    cJSON *res = project_on(cat, "{\"workloads\":[\"gpt2-124m\"],\"systems\":[\"dgx-spark\",\"h100-sxm\",\"b200\"]}", &info);
    const cJSON *b = record(res, "projection", "gpt2-124m", "b200");
    EXPECT(b && isnan(num(b, "hours")) && strstr(cJSON_GetStringValue(cJSON_GetObjectItem(b, "fit")),
           "; not projected: the catalog gives no SM count (data/systems.csv's sms)") != NULL);
    EXPECT(count(res, "tenants", "h100-sxm") > 0 && count(res, "tenants", "dgx-spark") == 0);
    const cJSON *roles = cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(info, "systems"), 2), "roles");
    EXPECT(cJSON_GetArraySize(roles) == 1 && strcmp(cJSON_GetStringValue(cJSON_GetArrayItem(roles, 0)), "shared") == 0);
    cJSON_Delete(res);
    cJSON_Delete(info);
    res = project("{\"workloads\":[\"gpt2-124m\"],\"systems\":[\"dgx-spark\",\"h100-sxm\"]}", &info);
    EXPECT(count(res, "tenants", "dgx-spark") > 0 && count(res, "tenants", "h100-sxm") == 0);
    roles = cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(info, "systems"), 1), "roles");
    EXPECT(cJSON_GetArraySize(roles) == 2 && strcmp(cJSON_GetStringValue(cJSON_GetArrayItem(roles, 0)), "subject") == 0);
    cJSON_Delete(res);
    cJSON_Delete(info);
    cJSON_Delete(cat);
}

/* The matmul size term in tile products per SM: the same work per SM, the same efficiency, whatever the
 * part's peak; a GB10 (48 SMs) reaches a given efficiency with 48/132 of an H100's matrix. */
static void size_term(void)
{
    const struct predict_stack *st = predict_stack_find("pytorch");
    double half = st->p[PREDICT_MM_HALF], eta = st->p[PREDICT_MM_ETA + PREDICT_HOPPER];
    struct predict_target h100 = { 989e12, 3.35e12, PREDICT_HOPPER, 0, 132 }, gb10 = h100;
    gb10.peak = 125e12;
    gb10.sms = 48;
    double F = 2.0 * 8192 * 8192 * 4096;            /* an 8192 x 8192 x 4096 GEMM: 131,072 tile products */
    struct net_op mm = { .kind = NET_OP_MATMUL, .flops = F };
    double x = F / (PREDICT_TILE_FLOPS * 132);
    EXPECT_NEAR(predict_stack_op_seconds(st, &h100, &mm, NULL), F / (eta * x / (x + half) * 989e12), 1e-15);
    struct net_op small = { .kind = NET_OP_MATMUL, .flops = F * 48 / 132 };
    double th = predict_stack_op_seconds(st, &h100, &mm, NULL), tg = predict_stack_op_seconds(st, &gb10, &small, NULL);
    EXPECT_NEAR(th * 989e12 / F, tg * 125e12 / small.flops, 1e-12);     /* equal efficiencies */
}


/* N8python/spark-gpt's dense runs on one and two DGX Sparks, asked as a user asks them (workload_*:
 * the Qwen3 shapes, 12 sequences of 4096 per step, documents of about 1,340 tokens attended one by
 * one), each within 0.8-1.25 of the published tokens/s. */
static void spark_gpt(void)
{
    static const struct { const char *shape; double published; } want[] = {
        { "\"workload_layers\":16,\"workload_hidden\":512,\"workload_heads\":4,\"workload_kv_heads\":2,\"workload_ffn\":1536",
          115000 },
        { "\"workload_layers\":28,\"workload_hidden\":1024,\"workload_heads\":16,\"workload_kv_heads\":8,"
          "\"workload_ffn\":3072", 16500 },
        { "\"workload_layers\":16,\"workload_hidden\":512,\"workload_heads\":4,\"workload_kv_heads\":2,\"workload_ffn\":1536,"
          "\"workload_nodes\":2,\"workload_sharding\":\"ddp\",\"workload_batch\":24", 108000 },
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        char json[1024];
        snprintf(json, sizeof json, "{\"workloads\":\"none\",\"systems\":[\"dgx-spark\"],\"workload_name\":\"spark-gpt\","
                 "\"workload_arch\":\"llama\",\"workload_vocab\":259,\"workload_seq\":4096,\"workload_batch\":12,"
                 "\"workload_head_dim\":128,\"workload_doc_tokens\":1340,%s}", want[i].shape);
        cJSON *info, *res = project(json, &info);
        const cJSON *r = record(res, "projection", "scenario", "dgx-spark");
        double ratio = num(r, "tokens_per_s_per_gpu") / want[i].published;
        printf("spark-gpt %zu: projected %.0f tok/s, published %.0f, ratio %.3f\n", i,
               num(r, "tokens_per_s_per_gpu"), want[i].published, ratio);      /* the figures, in the test's log */
        EXPECT(ratio >= 0.8 && ratio <= 1.25);
        EXPECT_STR(cJSON_GetStringValue(cJSON_GetObjectItem(r, "stack")), "pytorch-compile");
        EXPECT(cJSON_IsFalse(cJSON_GetObjectItem(r, "extrapolated")));
        cJSON_Delete(res);
        cJSON_Delete(info);
    }
}

/* Seconds of one micro-batch of shape s on a target with a stack: its plan's ops and the trainer's own
 * cost per micro-batch (the projection's sum, recomputed). */
static double micro_seconds(const char *stack, const struct net_shape *s, const struct predict_target *t)
{
    const struct predict_stack *st = predict_stack_find(stack);
    int n;
    struct net_op *ops = net_plan_new(s, NET_BF16, &n);
    double sum = predict_stack_micro_seconds(st);
    for (int i = 0; i < n; i++)
        if (ops[i].micro >= 0)
            sum += predict_stack_op_seconds(st, t, &ops[i], NULL);
    free(ops);
    return sum;
}

/* QLoRA against LoRA as LitGPT's resource tables published them (tutorials/resource-tables.md at
 * 4839345: one A100-SXM4-40GB, 1,555 GB/s, micro-batch 1 of Alpaca, rank 8 on q and v, bnb.nf4):
 * 1k iterations take 2.36 and 3.68 min on Llama 2 7B (1.56x), 3.19 and 6.38 on 13B (2.00x) -- the two
 * pairs the dequantization's streaming rate comes from -- 1.24 and 1.82 on StableLM 3B (1.47x) and 1.62
 * and 1.77 on phi-1.5 (1.09x), which check it; projected at 256 tokens per sample on the Hugging Face
 * + PEFT profile, each within 20 % of the published ratio. */
static void qlora_cost(void)
{
    static const struct { struct net_shape s; double published; } pairs[] = {
        { { .layers = 32, .hidden = 4096, .heads = 32, .ffn = 11008, .vocab = 32000, .mlp = NET_MLP_SWIGLU,
            .norm = NET_NORM_RMS, .nobias = 1, .rope = 1 }, 3.68 / 2.36 },
        { { .layers = 40, .hidden = 5120, .heads = 40, .ffn = 13824, .vocab = 32000, .mlp = NET_MLP_SWIGLU,
            .norm = NET_NORM_RMS, .nobias = 1, .rope = 1 }, 6.38 / 3.19 },
        { { .layers = 16, .hidden = 4096, .heads = 32, .vocab = 50688, .rope = 1 }, 1.82 / 1.24 },     /* GPT-NeoX */
        { { .layers = 24, .hidden = 2048, .heads = 32, .vocab = 51200 }, 1.77 / 1.62 },                /* phi-1.5 */
    };
    struct predict_target a100 = { 312e12, 1555e9, PREDICT_AMPERE, 0, 108 };
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
        struct net_shape s = pairs[i].s;
        s.seq = 256;
        s.batch = s.accum = 1;
        s.attention = NET_ATT_FLASH;
        s.amp = s.causal = 1;
        s.lora_rank = 8;
        double lora = micro_seconds("hf-peft", &s, &a100);
        s.base_dtype = NET_DT_NF4;
        double q = micro_seconds("hf-peft", &s, &a100) / lora;
        if (!(fabs(q / pairs[i].published - 1) <= 0.20))
            printf("QLoRA / LoRA, pair %zu: projected %.2f, published %.2f\n", i, q, pairs[i].published);
        EXPECT(q > 1 && fabs(q / pairs[i].published - 1) <= 0.20);
    }
}

/* The scenario's own jobs: an 8-GPU FSDP FP8 job on H100s with Transformer Engine, a 2-Spark ZeRO-3
 * job; their fit and traffic by hand. */
static void own_jobs(void)
{
    const double N = 8030261248.0;
    cJSON *info, *res = project("{\"workloads\":\"none\",\"systems\":[\"h100-sxm\",\"b200\"],\"workload_name\":\"mine\","
                                "\"workload_gpus\":8,\"workload_sharding\":\"fsdp\",\"workload_precision\":\"fp8\","
                                "\"workload_stack\":\"megatron-te\"}", &info);
    const cJSON *r = record(res, "projection", "scenario", "h100-sxm");
    EXPECT(r && num(r, "gpus") == 8 && num(r, "zero") == 3 && cJSON_IsTrue(cJSON_GetObjectItem(r, "fits")));
    EXPECT_STR(cJSON_GetStringValue(cJSON_GetObjectItem(r, "stack")), "megatron-te");
    EXPECT_NEAR(num(r, "traffic_bytes_per_micro"), 7.0 / 8 * (2 * 2 * N + 2 * N), 1e-12);     /* (7/8)(2W + G) */
    EXPECT(num(r, "traffic_bytes_per_step") == 0 && num(r, "link_Bps") == 450e9);           /* NVLink 4 */
    EXPECT_NEAR(num(r, "comm_s"), num(r, "accum") * 7.0 / 8 * 6 * N / 450e9, 1e-12);
    EXPECT(num(r, "micro_batch") * num(r, "accum") * 8 == 32);                             /* the global batch */
    EXPECT(num(r, "mfu") > 0 && num(r, "mfu") < 1);
    EXPECT_NEAR(num(r, "tokens_per_s"), 8 * num(r, "tokens_per_s_per_gpu"), 1e-12);
    cJSON_Delete(res);
    cJSON_Delete(info);

    res = project("{\"workloads\":\"none\",\"systems\":[\"dgx-spark\"],\"workload_name\":\"two sparks\","
                  "\"workload_nodes\":2,\"workload_sharding\":\"zero3\"}", &info);
    r = record(res, "projection", "scenario", "dgx-spark");
    EXPECT(r && num(r, "gpus") == 2 && num(r, "zero") == 3 && cJSON_IsTrue(cJSON_GetObjectItem(r, "fits")));
    EXPECT_NEAR(num(r, "traffic_bytes_per_micro"), 0.5 * 6 * N, 1e-12);    /* (1/2)(2W + G): 24.1 GB */
    EXPECT(num(r, "link_Bps") == 25e9);                                     /* ConnectX-7, 200 Gb/s */
    EXPECT_NEAR(num(r, "comm_s"), num(r, "accum") * 3 * N / 25e9, 1e-12);
    /* each micro-batch's 24.1 GB at 25 GB/s (0.96 s) against its compute: the step is at least that */
    EXPECT(num(r, "step_s") >= num(r, "accum") * 3 * N / 25e9);
    cJSON_Delete(res);
    cJSON_Delete(info);

    /* a reference job one Spark cannot hold: the smallest count that does, over ConnectX-7 */
    res = project("{\"workloads\":[\"llama-3.1-8b\"],\"systems\":[\"dgx-spark\",\"h100-sxm\"]}", &info);
    r = record(res, "projection", "llama-3.1-8b", "dgx-spark");
    EXPECT(r && cJSON_IsFalse(cJSON_GetObjectItem(r, "fits")));
    r = record(res, "projection_devices", "llama-3.1-8b", "dgx-spark");
    EXPECT(r && num(r, "devices") == 2 && num(r, "gpus") == 2 && num(r, "zero") == 1 && num(r, "hours") > 0);
    EXPECT_NEAR(num(r, "traffic_bytes_per_step"), 0.5 * (2 * N + 2 * N), 1e-12);  /* ZeRO-1: (1/2)(G + W) */
    EXPECT(num(r, "link_Bps") == 25e9 && num(r, "hours_low") < num(r, "hours") && num(r, "hours") < num(r, "hours_high"));
    /* on the Spark no op above its stack's efficiency on the 62 TFLOP/s peak: the implied MFU is below
       the profile's Blackwell matmul efficiency */
    const struct predict_stack *pt = predict_stack_find("pytorch");
    EXPECT(num(r, "mfu") < pt->p[PREDICT_MM_ETA + PREDICT_BLACKWELL]);
    EXPECT(record(res, "projection_devices", "llama-3.1-8b", "h100-sxm") != NULL);    /* one H100 offloads */
    cJSON_Delete(res);
    cJSON_Delete(info);
}

/* FSDP with the optimizer offloaded to the host (torchtune's and DeepSpeed's way): a 70B full fine-tune
 * on 8 x A100 80GB, which ZeRO-3 alone cannot hold, fits with each GPU's shard of the master weights and
 * moments on the host (12 B per parameter there, one host for the 8), its shard of the FP32 gradients
 * down and of the weights up over its link each step, and the host's AdamW over all of them. */
static void fsdp_offload(void)
{
    cJSON *info, *res = project("{\"workloads\":\"none\",\"systems\":[\"a100-80g-sxm\"],\"workload_name\":\"70b\","
                                "\"workload_layers\":80,\"workload_hidden\":8192,\"workload_heads\":64,\"workload_kv_heads\":8,"
                                "\"workload_ffn\":28672,\"workload_gpus\":8,\"workload_sharding\":\"fsdp\","
                                "\"workload_stack\":\"pytorch\"}", &info);
    const cJSON *r = record(res, "projection", "scenario", "a100-80g-sxm");
    const struct net_shape s = { .layers = 80, .hidden = 8192, .heads = 64, .kv_heads = 8, .ffn = 28672, .vocab = 128256,
        .seq = 4096, .batch = 32, .accum = 1, .mlp = NET_MLP_SWIGLU, .norm = NET_NORM_RMS, .nobias = 1, .rope = 1 };
    double N = (double)net_param_count(&s), low = (double)net_low_count(&s);
    EXPECT(r && cJSON_IsTrue(cJSON_GetObjectItem(r, "fits")) && num(r, "gpus") == 8 && num(r, "zero") == 3);
    EXPECT_STR(cJSON_GetStringValue(cJSON_GetObjectItem(r, "offload")), "optimizer");
    EXPECT_NEAR(num(r, "host_bytes"), 12 * N, 1e-12);                   /* master and moments, 8 shards */
    /* per GPU: its FP32 gradients down, its weights up (the BF16 copies of the linears, the rest FP32) */
    EXPECT_NEAR(num(r, "offload_traffic_bytes"), (4 * N + 2 * low + 4 * (N - low)) / 8, 1e-12);
    EXPECT_NEAR(num(r, "host_optimizer_bytes"), 28 * N, 1e-12);         /* read w, m, v, g; write w, m, v */
    EXPECT_NEAR(num(r, "offload_s_per_step"), num(r, "offload_traffic_bytes") / 64e9 + 28 * N / 200e9, 1e-12);
    EXPECT(num(r, "hours") > 0 && strstr(cJSON_GetStringValue(cJSON_GetObjectItem(r, "fit")), "ZeRO-3 over 8 GPUs, offload"));
    cJSON_Delete(res);
    cJSON_Delete(info);
}

/* Tensor parallelism with sequence parallelism instead of recomputation: 2-way on 8 H100s, per
 * micro-batch and layer two all-gathers and two reduce-scatters of the [tokens, hidden] activations
 * forward and as many backward, over NVLink (450 GB/s), not overlapped; every layer's bytes halved. */
static void tensor_parallel(void)
{
    cJSON *info, *res = project("{\"workloads\":\"none\",\"systems\":[\"h100-sxm\"],\"workload_name\":\"tp\","
                                "\"workload_gpus\":8,\"workload_tp\":2,\"workload_stack\":\"megatron-te\","
                                "\"workload_checkpoint\":\"none\"}", &info);
    const cJSON *r = record(res, "projection", "scenario", "h100-sxm");
    EXPECT(r && cJSON_IsTrue(cJSON_GetObjectItem(r, "fits")) && num(r, "tp") == 2 && !cJSON_IsTrue(cJSON_GetObjectItem(r, "checkpoint")));
    double T = num(r, "micro_batch") * 4096, per = 0.5 * T * 4096 * 2;
    EXPECT_NEAR(num(r, "tp_bytes_per_micro"), 8 * per * 32, 1e-12);
    EXPECT_NEAR(num(r, "tp_comm_s"), num(r, "accum") * 8 * per * 32 / 450e9, 1e-12);
    EXPECT(num(r, "micro_batch") * num(r, "accum") * 4 == 32);          /* 4 data-parallel groups share the batch */
    EXPECT(strstr(cJSON_GetStringValue(cJSON_GetObjectItem(r, "fit")), "tensor and sequence parallelism 2-way") != NULL);
    /* a token is counted once per tensor-parallel group: per GPU half of what the group trains */
    EXPECT_NEAR(num(r, "tokens_per_s"), 8 * num(r, "tokens_per_s_per_gpu"), 1e-9);
    cJSON_Delete(res);
    cJSON_Delete(info);
}

/* A fit with less than a tenth of the usable memory left is marginal, and says what the job becomes if it
 * does not fit; energy in results.json on the decision pages' basis, the whole system's power per device. */
static void marginal_energy(void)
{
    cJSON *info, *res = project("{\"workloads\":[\"llama-3.1-8b-adam8\",\"llama-3.1-8b-lora\"],"
                                "\"systems\":[\"dgx-spark\",\"h100-sxm\"]}", &info);
    const cJSON *r = record(res, "projection", "llama-3.1-8b-adam8", "dgx-spark");
    double usable = num(r, "capacity_bytes") - num(r, "reserve_bytes");
    EXPECT(r && cJSON_IsTrue(cJSON_GetObjectItem(r, "marginal")) && num(r, "memory_bytes") > 0.9 * usable);
    const cJSON *alt = cJSON_GetObjectItem(r, "if_not_fit");
    /* it holds no more on one Spark with a tenth held back: two of them, over ConnectX-7 */
    EXPECT(alt && cJSON_IsTrue(cJSON_GetObjectItem(alt, "fits")) && num(alt, "memory_bytes") <= 0.9 * usable + 1
           && num(alt, "gpus") == 2 && num(r, "gpus") == 1);
    EXPECT_STR(cJSON_GetStringValue(cJSON_GetObjectItem(r, "stack_name")), "PyTorch FSDP");
    EXPECT(num(r, "stack_runs") == 129 && cJSON_IsTrue(cJSON_GetObjectItem(r, "extrapolated")));
    EXPECT_NEAR(num(r, "energy_kwh"), num(r, "hours") * 240 / 1000, 1e-12);     /* data/costs.csv: 240 W */
    EXPECT_STR(cJSON_GetStringValue(cJSON_GetObjectItem(r, "energy_basis")), "system");
    const cJSON *h = record(res, "projection", "llama-3.1-8b-lora", "h100-sxm");
    EXPECT(h && !cJSON_IsTrue(cJSON_GetObjectItem(h, "marginal")) && !cJSON_GetObjectItem(h, "if_not_fit"));
    EXPECT_NEAR(num(h, "energy_kwh"), num(h, "hours") * num(h, "gpus") * 1275 / 1000, 1e-12);
    /* the reference LoRA on the Hugging Face Trainer of today, fitted on Spark and H100 runs, checkpointing
       as its trainers do by default */
    r = record(res, "projection", "llama-3.1-8b-lora", "dgx-spark");
    EXPECT_STR(cJSON_GetStringValue(cJSON_GetObjectItem(r, "stack_name")), "Hugging Face Trainer");
    EXPECT(num(r, "stack_runs") == 3 && cJSON_IsFalse(cJSON_GetObjectItem(r, "extrapolated")));
    EXPECT(cJSON_IsTrue(cJSON_GetObjectItem(r, "checkpoint")) && cJSON_IsTrue(cJSON_GetObjectItem(h, "checkpoint")));
    cJSON_Delete(res);
    cJSON_Delete(info);
    /* the scenario's own job on the stack such a job runs on unless it names one: a LoRA job on the Hugging
       Face Trainer, anything else on current PyTorch */
    res = project("{\"workloads\":\"none\",\"systems\":[\"dgx-spark\"],\"workload_name\":\"mine\",\"workload_lora_rank\":16}",
                  &info);
    EXPECT_STR(cJSON_GetStringValue(cJSON_GetObjectItem(record(res, "projection", "scenario", "dgx-spark"), "stack")),
               "hf-trainer");
    cJSON_Delete(res);
    cJSON_Delete(info);
}

/* A fine-tune as its owners run it on the Hugging Face stacks, asked through the job's fields: NVIDIA's
 * LLaMA-Factory playbook on one DGX Spark (Llama-3 8B and Qwen3-4B, LoRA rank 8 on every linear, cutoff 2048
 * with 166 tokens a sample, micro-batch 1, accumulation 8, no packing; checkpointing by the stack's default)
 * within 0.8-1.25 of 404.9 and 622.7 tok/s, the 8B's band over 400 tok/s, a compiled stack about twice as
 * fast on the same job; a TRL LoRA on one H100 (rank 16 on q and v, micro-batch 4 of 1024, accumulation 4,
 * no checkpointing) within 0.8-1.25 of 9,621 tok/s; padding to the longest of a micro-batch. */
static void hf_trainer_jobs(void)
{
    static const struct { const char *shape; double published, sample; } want[] = {
        { "\"workload_layers\":32,\"workload_hidden\":4096,\"workload_heads\":32,\"workload_kv_heads\":8,"
          "\"workload_ffn\":14336,\"workload_vocab\":128256", 404.9, 166.2 },
        { "\"workload_layers\":36,\"workload_hidden\":2560,\"workload_heads\":32,\"workload_kv_heads\":8,"
          "\"workload_ffn\":9728,\"workload_vocab\":151936,\"workload_head_dim\":128", 622.7, 166.1 },
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        char json[1024];
        double rate[2], beside = 0;
        for (int k = 0; k < 2; k++) {
            snprintf(json, sizeof json, "{\"workloads\":\"none\",\"systems\":[\"dgx-spark\"],\"workload_name\":\"lf\",%s,"
                     "\"workload_lora_rank\":8,\"workload_seq\":2048,\"workload_sample_tokens\":%g,\"workload_packing\":false,"
                     "\"workload_micro_batch\":1,\"workload_batch\":8,\"workload_tokens\":1e7%s}", want[i].shape,
                     want[i].sample, k ? ",\"workload_stack\":\"pytorch-compile\"" : "");
            cJSON *info, *res = project(json, &info);
            const cJSON *r = record(res, "projection", "scenario", "dgx-spark");
            rate[k] = num(r, "tokens_per_s_per_gpu");
            if (k == 0) {
                double ratio = rate[0] / want[i].published, low = rate[0] * num(r, "hours") / num(r, "hours_high");
                double high = rate[0] * num(r, "hours") / num(r, "hours_low");
                printf("LLaMA-Factory %zu: projected %.0f tok/s [%.0f, %.0f], published %.0f, ratio %.3f\n", i, rate[0],
                       low, high, want[i].published, ratio);
                EXPECT(ratio >= 0.8 && ratio <= 1.25);
                EXPECT(low <= want[i].published && want[i].published <= high);     /* the band covers it */
                EXPECT_STR(cJSON_GetStringValue(cJSON_GetObjectItem(r, "stack")), "hf-trainer");
                EXPECT(num(r, "micro_batch") == 1 && num(r, "accum") == 8 && cJSON_IsTrue(cJSON_GetObjectItem(r, "checkpoint")));
                EXPECT(num(r, "positions_per_sample") == ceil(want[i].sample)
                       && num(r, "tokens_per_sample") == want[i].sample);
            }
            /* an eager stack's record carries the same job on the compiled one, as projected on its own */
            const cJSON *alt = cJSON_GetObjectItem(r, "compiled");
            EXPECT(k == 0 ? alt && strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(alt, "stack")), "pytorch-compile") == 0
                   : !alt);
            if (k == 0)
                beside = num(alt, "tokens_per_s_per_gpu");
            else
                EXPECT_NEAR(beside, rate[1], 1e-12);
            cJSON_Delete(res);
            cJSON_Delete(info);
        }
        printf("LLaMA-Factory %zu: Hugging Face Trainer / compiled %.2f\n", i, rate[0] / rate[1]);
        EXPECT(rate[0] / rate[1] > 0.35 && rate[0] / rate[1] < 0.65);          /* about half */
    }
    cJSON *info, *res = project("{\"workloads\":\"none\",\"systems\":[\"h100-sxm\"],\"workload_name\":\"soup\","
                                "\"workload_layers\":32,\"workload_hidden\":4096,\"workload_heads\":32,\"workload_kv_heads\":8,"
                                "\"workload_ffn\":14336,\"workload_vocab\":128256,\"workload_lora_rank\":16,"
                                "\"workload_lora_targets\":\"qv\",\"workload_seq\":1024,\"workload_batch\":16,"
                                "\"workload_micro_batch\":4,\"workload_checkpoint\":\"none\"}", &info);
    const cJSON *r = record(res, "projection", "scenario", "h100-sxm");
    double ratio = num(r, "tokens_per_s_per_gpu") / 9621.1;
    printf("TRL LoRA on an H100: projected %.0f tok/s, published 9621, ratio %.3f\n", num(r, "tokens_per_s_per_gpu"), ratio);
    EXPECT(ratio >= 0.8 && ratio <= 1.25 && num(r, "accum") == 4 && cJSON_IsFalse(cJSON_GetObjectItem(r, "checkpoint")));
    EXPECT(!cJSON_GetObjectItem(r, "positions_per_sample"));        /* packed: every position a token */
    cJSON_Delete(res);
    cJSON_Delete(info);
    /* padded to the longest of 4 samples of 166 tokens: 166 (1 + 1/2 + 1/3 + 1/4) positions each; to the
       cutoff: 2048 */
    static const char *const pads[] = { "longest", "max_length" };
    for (int k = 0; k < 2; k++) {
        char json[512];
        snprintf(json, sizeof json, "{\"workloads\":\"none\",\"systems\":[\"h100-sxm\"],\"workload_name\":\"pad\","
                 "\"workload_lora_rank\":8,\"workload_seq\":2048,\"workload_sample_tokens\":166,\"workload_packing\":false,"
                 "\"workload_padding\":\"%s\",\"workload_micro_batch\":4,\"workload_batch\":8}", pads[k]);
        res = project(json, &info);
        r = record(res, "projection", "scenario", "h100-sxm");
        EXPECT(num(r, "positions_per_sample") == (k ? 2048 : ceil(166 * 25.0 / 12)) && num(r, "tokens_per_sample") == 166);
        cJSON_Delete(res);
        cJSON_Delete(info);
    }
}

/* A full fine-tune of a 4B model with a 262,144 vocabulary at a 32,768-token cutoff, micro-batch 1, BF16,
 * through TRL with Liger's fused linear cross-entropy (alan-turing-institute/t0-1 pull request 197: one DGX
 * Spark and one Isambard-AI GH200): fits on both, checkpointing on as the stack runs it (its sft.py sets
 * gradient_checkpointing True whatever the launcher says); without checkpointing its activations alone
 * exceed the GH200's 96 GB, and with the logits held it does not fit a Spark. */
static void long_fine_tune_fits(void)
{
    static const char *const job = "\"workload_name\":\"gemma\",\"workload_layers\":34,\"workload_hidden\":2560,"
        "\"workload_heads\":8,\"workload_kv_heads\":4,\"workload_head_dim\":256,\"workload_ffn\":10240,"
        "\"workload_vocab\":262144,\"workload_seq\":32768,\"workload_batch\":1,\"workload_micro_batch\":1";
    char json[1024];
    snprintf(json, sizeof json, "{\"workloads\":\"none\",\"systems\":[\"dgx-spark\",\"gh200-96g\"],%s,"
             "\"workload_loss\":\"fused\"}", job);
    cJSON *info, *res = project(json, &info);
    static const char *const systems[] = { "dgx-spark", "gh200-96g" };
    for (int i = 0; i < 2; i++) {
        const cJSON *r = record(res, "projection", "scenario", systems[i]);
        EXPECT(r && cJSON_IsTrue(cJSON_GetObjectItem(r, "fits")) && cJSON_IsTrue(cJSON_GetObjectItem(r, "checkpoint"))
               && strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(r, "offload")), "none") == 0 && num(r, "hours") > 0);
    }
    cJSON_Delete(res);
    cJSON_Delete(info);
    snprintf(json, sizeof json, "{\"workloads\":\"none\",\"systems\":[\"dgx-spark\",\"gh200-96g\"],%s,"
             "\"workload_loss\":\"fused\",\"workload_checkpoint\":\"none\"}", job);
    res = project(json, &info);
    EXPECT(cJSON_IsFalse(cJSON_GetObjectItem(record(res, "projection", "scenario", "gh200-96g"), "fits")));
    cJSON_Delete(res);
    cJSON_Delete(info);
    snprintf(json, sizeof json, "{\"workloads\":\"none\",\"systems\":[\"dgx-spark\"],%s,\"workload_loss\":\"unfused\"}", job);
    res = project(json, &info);
    EXPECT(cJSON_IsFalse(cJSON_GetObjectItem(record(res, "projection", "scenario", "dgx-spark"), "fits")));
    cJSON_Delete(res);
    cJSON_Delete(info);
}

/* What the scenario's own job cannot ask, refused naming the field. */
static void own_job_messages(void)
{
    char err[512];
    static const struct { const char *json, *want; } bad[] = {
        { "{\"workload_name\":\"a\",\"workload_sharding\":\"zero3\"}",
          "model: workload 'a': workload_sharding 'zero3 or fsdp' shards over devices: workload_gpus x workload_nodes "
          "is 1, it needs 2 or more" },
        { "{\"workload_name\":\"b\",\"workload_stack\":\"fused-cuda\"}",
          "model: workload 'b': workload_stack 'fused-cuda' (llm.c) trains the GPT-2 layout only (workload_arch gpt2, "
          "no LoRA, dense), not grouped-query attention (kv_heads)" },
        { "{\"workload_name\":\"d\",\"workload_seq\":2048,\"workload_doc_tokens\":4096}",
          "model: workload 'd': workload_doc_tokens 4096 is longer than workload_seq 2048: a packed document lies "
          "within one sequence" },
        { "{\"workload_name\":\"t\",\"workload_gpus\":8,\"workload_tp\":3}",
          "model: workload 't': workload_tp 3 must divide workload_gpus 8: tensor parallelism runs within a node, over "
          "its GPUs' link" },
        { "{\"workload_name\":\"u\",\"workload_gpus\":8,\"workload_tp\":8,\"workload_heads\":36,\"workload_kv_heads\":4,\"workload_hidden\":4608}",
          "model: workload 'u': workload_tp 8 must divide workload_heads 36: each GPU takes whole attention heads" },
        { "{\"workload_name\":\"v\",\"workload_gpus\":8,\"workload_tp\":2,\"workload_stack\":\"hf-peft\"}",
          "model: workload 'v': workload_tp 2: workload_stack 'hf-peft' does not run tensor parallelism (megatron-te "
          "and pytorch-compile do)" },
        { "{\"workload_name\":\"c\",\"workload_precision\":\"fp4\",\"workload_lora_rank\":16,\"workload_base\":\"nf4\"}",
          "model: workload 'c': workload_precision 'fp4' computes in NVFP4: workload_base 'nf4' (QLoRA's storage "
          "format, computed in BF16) is another recipe; choose one" },
        { "{\"workload_name\":\"s\",\"workload_packing\":false,\"workload_seq\":2048,\"workload_sample_tokens\":4096}",
          "model: workload 's': workload_sample_tokens = 4096 is longer than workload_seq = 2048: the sequence length is "
          "the cutoff a sample is cut to" },
        { "{\"workload_name\":\"s\",\"workload_sample_tokens\":300}",
          "model: workload 's': workload_sample_tokens = 300 applies to samples that are not packed, and "
          "workload_packing is true: set workload_packing = false (packed documents' length is workload_doc_tokens)" },
        { "{\"workload_name\":\"s\",\"workload_padding\":\"max_length\"}",
          "model: workload 's': workload_padding = 'max_length' applies to samples that are not packed, and "
          "workload_packing is true: set workload_packing = false, or leave workload_padding out" },
        { "{\"workload_name\":\"s\",\"workload_packing\":false,\"workload_sample_tokens\":300,\"workload_fill\":0.5}",
          "model: workload 's': workload_sample_tokens = 300 and workload_fill = 0.5 both say how full a sequence is: "
          "give one of them" },
        { "{\"workload_name\":\"q\",\"workload_lora_targets\":\"qv\"}",
          "model: workload 'q': workload_lora_targets 'qv' places LoRA adapters, and workload_lora_rank is 0 (full "
          "training): give workload_lora_rank, or leave workload_lora_targets out" },
        { "{\"workload_name\":\"e\",\"workload_doc_tokens\":1000,\"workload_attention\":\"eager\"}",
          "model: workload 'e': workload_doc_tokens = 1000 attends within packed documents (FlashAttention's varlen), "
          "and workload_attention 'eager' attends over the whole sequence: choose one" },
        { "{\"workload_name\":\"m\",\"workload_batch\":8,\"workload_micro_batch\":3}",
          "model: workload 'm': workload_micro_batch = 3 does not divide workload_batch = 8 over 1 data-parallel device: "
          "the global batch is micro-batch x accumulation x devices" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cJSON *p = params(bad[i].json);
        EXPECT(p && model_precheck(p, err, sizeof err) == -1);
        EXPECT_STR(err, bad[i].want);
        cJSON_Delete(p);
    }
    char perr[512];
    cJSON *given = cJSON_Parse("{\"workload_sharding\":\"zero4\"}");
    EXPECT(param_check("model", model_params, given, perr, sizeof perr) == NULL);
    EXPECT(strstr(perr, "workload_sharding") != NULL);
    cJSON_Delete(given);
    static const char *const out_of_range[] = { "{\"workload_tp\":0}", "{\"workload_tp\":65}",
                                                "{\"workload_head_dim\":-1}", "{\"workload_doc_tokens\":-5}" };
    for (size_t i = 0; i < sizeof out_of_range / sizeof out_of_range[0]; i++) {
        given = cJSON_Parse(out_of_range[i]);
        EXPECT(param_check("model", model_params, given, perr, sizeof perr) == NULL);
        EXPECT(strstr(perr, given->child->string) != NULL);        /* the message names the field */
        cJSON_Delete(given);
    }
    /* FP4 where the part has it: B200 projected, H100 not */
    cJSON *info, *res = project("{\"workloads\":\"none\",\"systems\":[\"h100-sxm\",\"b200\"],\"workload_name\":\"f\","
                                "\"workload_precision\":\"fp4\",\"workload_lora_rank\":16}", &info);
    const cJSON *h = record(res, "projection", "scenario", "h100-sxm"), *b = record(res, "projection", "scenario", "b200");
    EXPECT(h && isnan(num(h, "hours")) && strstr(cJSON_GetStringValue(cJSON_GetObjectItem(h, "fit")),
           "not projected: the FP4 recipe needs an FP4 peak") != NULL);
    EXPECT(b && num(b, "hours") > 0);
    cJSON_Delete(res);
    cJSON_Delete(info);
}

int main(void)
{
    spark_gpt();
    fsdp_offload();
    tensor_parallel();
    marginal_energy();
    hf_trainer_jobs();
    long_fine_tune_fits();
    jobs_from_configs();
    own_jobs();
    own_job_messages();
    communication();
    per_op_cost();
    two_sparks();
    cited_runs();
    size_term();        /* on the profiles the cited runs fitted */
    catalog_gpus();
    qlora_cost();
    return CHECK_DONE();
}
