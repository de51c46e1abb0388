/* precision_core.c: what the precision family's parts share: the format table and its
 * tolerances, the parameter table, the budget shares, one record's timing, rates and validation,
 * and the roofline knee. The coordinator (precision.c) and the parts (precision_parts.c) call
 * down into it; it calls neither. */
#include "config.h"

#include "exp/precision/precision.h"
#include "exp/precision/precision_int.h"

#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/cuda.h"
#include "measure/dram.h"
#include "exp/experiment.h"
#include "measure/backend.h"
#include "measure/measure.h"
#include "util/error.h"
#include "util/progress.h"
#include "util/json.h"
#include "util/timing.h"
#include "util/units.h"

/* Tolerances: STYLE.md's per precision for validation (error per element relative to
 * (|A||B|)_ij, against the values the kernel was given); FP8 and FP4 stated here. The error
 * bounds of the numerics (Frobenius, against FP64 on the unquantized inputs) are what the
 * formats' rounding allows with margin: about 2^-p x 2 for p significand bits. */
const struct prec_fmt_info prec_fmts[PREC_NFMT] = {
    [PREC_FP64] = { "fp64", "FP64", "fp64_tflops", 8, 8, 1e-12, 1e-12, "none" },
    [PREC_FP32] = { "fp32", "FP32", "fp32_tflops", 4, 4, 1e-5, 1e-5, "none" },
    [PREC_TF32] = { "tf32", "TF32 (FP32 in and out, TF32 products)", "tf32_tflops", 4, 4, 1e-2, 1e-2, "none" },
    [PREC_BF16] = { "bf16", "BF16 in, FP32 accumulate, BF16 out", "bf16_tflops", 2, 2, 1e-2, 1e-2, "none" },
    [PREC_FP16] = { "fp16", "FP16 in, FP32 accumulate, FP16 out", "fp16_tflops", 2, 2, 1e-2, 1e-2, "none" },
    [PREC_FP16_ACC16] = { "fp16_acc16", "FP16 in, FP16 accumulate, FP16 out", NULL, 2, 2, 1e-2, 1e-2, "none" },
    [PREC_FP8] = { "fp8", "FP8 E4M3 in, FP32 accumulate, BF16 out", "fp8_tflops", 1, 2, 1e-2, 0.1,
                   "per tensor: inputs x 448 (amax < 1 to E4M3's 448), 1/448 as cuBLASLt A/B scale" },
    [PREC_FP8_FAST] = { "fp8_fast", "FP8 E4M3 in, fast (reduced-precision) accumulate, BF16 out", "fp8_tflops", 1, 2,
                        2e-2, 0.1, "as fp8, with CUBLASLT_MATMUL_DESC_FAST_ACCUM (PyTorch's and Transformer Engine's "
                        "FP8 GEMMs use it)" },
    [PREC_NVFP4] = { "nvfp4", "NVFP4: E2M1 in, UE4M3 scale per 16, FP32 accumulate, BF16 out", "fp4_tflops",
                     0.5 + 1.0 / 16, 2, 1e-2, 0.25,
                     "inputs x 2688 (448 x 6), one UE4M3 scale per 16 along K (block amax / 6), "
                     "alpha = 1/2688^2" },
    [PREC_MXFP4] = { "mxfp4", "MXFP4: E2M1 in, UE8M0 scale per 32, FP32 accumulate, BF16 out", "fp4_tflops",
                     0.5 + 1.0 / 32, 2, 1e-2, 0.3,
                     "one UE8M0 (power of two) scale per 32 along K: 2^(floor(log2 block amax) - 2), OCP MX" },
};


const struct param prec_params[] = {
    { "device", PARAM_ENUM, PARAM_NOT_KEY, NULL, "all|cpu|gpu", "all", 0, 0,
      "which devices to measure (GPU items say why when there is no device)" },
    { "formats", PARAM_ENUM, PARAM_LIST | PARAM_NOT_KEY, "all", "fp64|fp32|tf32|bf16|fp16|fp16_acc16|fp8|fp8_fast|nvfp4|mxfp4", "all", 0, 0,
      "number formats; each device measures those it has" },
    { "parts", PARAM_ENUM, PARAM_LIST | PARAM_NOT_KEY, "all", "overhead|peak|gemm|sweep|numerics", "all", 0, 0,
      "what to measure: OpenMP/launch overheads, FMA peaks, GEMM sweep, intensity sweep, numerics" },
    { "square", PARAM_INT, PARAM_LIST | PARAM_NOT_KEY, "sweep", NULL, "sweep", 16, 65536,
      "square GEMM sizes n (n x n x n); sweep: doubling from 64 (CPU) or 256 (GPU) to the max below" },
    { "cpu_max_square", PARAM_INT, PARAM_NOT_KEY, NULL, NULL, "4096", 64, 65536, "largest square GEMM of the CPU sweep" },
    { "gpu_max_square", PARAM_INT, PARAM_NOT_KEY, NULL, NULL, "8192", 256, 65536, "largest square GEMM of the GPU sweep" },
    { "model_shapes", PARAM_BOOL, PARAM_NOT_KEY, NULL, NULL, "true", 0, 0,
      "also the GEMMs of a training step: tokens x hidden x {hidden, 4 hidden, vocab}" },
    { "tokens", PARAM_INT, PARAM_NOT_KEY, NULL, NULL, "1024", 16, 1048576, "tokens per step (batch x sequence)" },
    { "hidden", PARAM_INT, PARAM_NOT_KEY, NULL, NULL, "768", 32, 65536, "model width (GPT-2 small: 768)" },
    { "vocab", PARAM_INT, PARAM_NOT_KEY, NULL, NULL, "50257", 32, 1048576, "vocabulary (GPT-2: 50257)" },
    { "sweep_size", PARAM_SIZE, 0, "auto", NULL, "auto", 1 * MiB, TiB,
      "array the CPU intensity sweep reads; auto: DRAM-sized (4x all caches, 256 MiB at least)" },
    { "gpu_sweep_size", PARAM_SIZE, 0, "auto", NULL, "auto", 1 * MiB, TiB,
      "array the GPU intensity sweep reads; auto: 8x the L2, 1 GiB at least" },
    { "sweep_max_k", PARAM_INT, PARAM_NOT_KEY, NULL, NULL, "512", 1, 1048576,
      "longest FMA chain per element read (intensity (2k+1)/element size FLOP/byte)" },
    { "gpu_sweep_max_k", PARAM_INT, PARAM_NOT_KEY, NULL, NULL, "4096", 1, 1048576,
      "longest FMA chain per element of the GPU sweep (GPU knees lie at higher intensity)" },
    { "sweep_gemm_mn", PARAM_INT, 0, NULL, NULL, "8192", 256, 65536,
      "GPU tensor-core sweep: m = n of the GEMMs whose k (16 .. m) sets the intensity" },
    { "numerics_shape", PARAM_INT, PARAM_LIST | PARAM_TUPLE, NULL, NULL, "256,256,1024", 16, 8192,
      "m, n, k of the GEMM whose error against FP64 is measured (k a multiple of 32)" },
    { "seed", PARAM_INT, 0, NULL, NULL, "1", 0, 2147483647, "seed of the random inputs" },
    MEASURE_PARAMS("0.02", "3", "20", "1", "0.05"),
    MEASURE_BUDGET_PARAM("seconds for each device measured (CPU; GPU when there is one); auto: the scenario's share"),
    { NULL, 0, 0, NULL, NULL, NULL, 0, 0, NULL },
};

/* ---- helpers the parts share (precision_int.h) ------------------------------------------ */

int prec_out_of_time(struct prec_run *r, const char *item)
{
    if (progress_stopping()) {
        measure_skip(r->skipped, item, "the run was asked to stop");
        return 1;
    }
    if (timing_now() < r->deadline)
        return 0;
    measure_skip(r->skipped, item, "the experiment's time budget was spent");
    return 1;
}

double prec_share(struct prec_run *r, double until, double weight, double total)
{
    double now = timing_now();
    until = fmin(until, r->end);
    r->deadline = now + (until > now && total > 0 ? (until - now) * weight / total : 0);
    return r->deadline;
}

cJSON *prec_record(const char *series, const char *device, enum prec_fmt f)
{
    cJSON *rec = cJSON_CreateObject();
    cJSON_AddStringToObject(rec, "series", series);
    cJSON_AddStringToObject(rec, "device", device);
    cJSON_AddStringToObject(rec, "precision", prec_fmts[f].name);
    return rec;
}

/* ---- timing: the harness's repetitions per sample and repetitions, one validated run as a warm-up ---- */

static double one_sample(void *ud)
{
    struct prec_op *op = ud;
    return op->run(op->ud, op->iters) / (double)op->iters;
}

double prec_time(struct prec_run *r, struct prec_op *op, double budget_s, cJSON *rec)
{
    struct measure_rule rule = r->rule;
    rule.budget_s = budget_s;
    if (op->first >= rule.sample_s && rule.warmup > 0)     /* a long validation run warmed up */
        rule.warmup--;
    op->iters = measure_iterations(op->run, op->ud, rule.sample_s, op->first);
    cJSON_AddNumberToObject(rec, "iters_per_sample", (double)op->iters);
    measure_repeat(rec, &rule, one_sample, op);
    return json_num(cJSON_GetObjectItemCaseSensitive(rec, "time_s"), "median", NAN);
}

/* Rates from the record's time_s: GFLOPS (and GB/s when bytes > 0), best and median. */
void prec_add_rates(cJSON *rec, double flops, double bytes)
{
    if (isnan(measure_time(rec, "min")))    /* measure_repeat took no time: a cut abandoned it */
        return;
    cJSON_AddNumberToObject(rec, "flops", flops);
    measure_rates(rec, "gflops", flops);
    if (bytes > 0) {
        cJSON_AddNumberToObject(rec, "bytes", bytes);
        cJSON_AddNumberToObject(rec, "flops_per_byte", flops / bytes);
        measure_rates(rec, "gbps", bytes);
    }
}

void prec_add_validation(cJSON *rec, double err, double tol)
{
    cJSON_AddNumberToObject(rec, "max_rel_error", isfinite(err) ? err : 1e308);
    cJSON_AddNumberToObject(rec, "tolerance", tol);
    cJSON_AddBoolToObject(rec, "valid", err <= tol);
}

/* ---- the knee -------------------------------------------------------------------------------- */

int prec_knee(const double *flops_per_byte, const double *gflops, int n, struct prec_knee *out)
{
    out->gbps = out->gflops = out->flops_per_byte = NAN;
    out->lower_bound = 0;
    int used = 0;
    double top = 0;
    for (int i = 0; i < n; i++) {
        if (!(flops_per_byte[i] > 0) || !(gflops[i] > 0))
            continue;
        double bw = gflops[i] / flops_per_byte[i];
        out->gbps = used ? fmax(out->gbps, bw) : bw;
        out->gflops = used ? fmax(out->gflops, gflops[i]) : gflops[i];
        top = fmax(top, flops_per_byte[i]);
        used++;
    }
    if (used < 2)
        return -1;
    out->flops_per_byte = out->gflops / out->gbps;
    out->lower_bound = top < 2 * out->flops_per_byte;
    return 0;
}

void prec_knee_record(struct prec_run *r, const char *device, enum prec_fmt f, const char *method,
                        const double *fpb, const double *gf, int n)
{
    struct prec_knee k;
    if (prec_knee(fpb, gf, n, &k) != 0)
        return;
    cJSON *rec = prec_record("knee", device, f);
    cJSON_AddStringToObject(rec, "method", method);
    cJSON_AddNumberToObject(rec, "points_done", n);       /* validated sweep points it rests on */
    cJSON_AddNumberToObject(rec, "ceiling_gbps", k.gbps);
    cJSON_AddNumberToObject(rec, "ceiling_gflops", k.gflops);
    cJSON_AddNumberToObject(rec, "knee_flops_per_byte", k.flops_per_byte);
    cJSON_AddBoolToObject(rec, "knee_is_lower_bound", k.lower_bound);
    cJSON_AddItemToArray(r->results, rec);
}
