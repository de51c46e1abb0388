/* model_gpu.c: a CUDA device's ceilings for the training-time model's calibration, from the
 * other families' GPU ops (backend_for): the sustained matmul peak per dtype the trainer uses
 * (the precision family's cuBLASLt GEMM), the device-memory bandwidth (the bandwidth family's
 * kernels), the cost of an empty kernel launch and the intensity sweep (the precision family's
 * kernels). Plain C: no kernel of its own. The ops of the step and the flow are model.c's. */
#include "exp/model/model_int.h"

#include <math.h>
#include <stdio.h>

#include "cuda/cuda.h"
#include "exp/bandwidth/bandwidth.h"
#include "exp/precision/precision.h"
#include "measure/backend.h"

#define PEAK_N 8192                         /* the peak GEMMs: n x n x n */
#define LAUNCHES 1000                       /* empty kernels per sample, back to back */
#define ARRAY_FLOOR (1024.0 * 1024 * 1024)  /* bandwidth and sweep arrays: 1 GiB at least ... */
#define L2_FACTOR 8.0                       /* ... and 8x the L2 */

/* The dtypes the trainer's matmuls use, as the precision family names its formats. */
static const struct { enum net_dtype dt; enum prec_fmt fmt; } PEAKS[] = {
    { NET_DT_F32, PREC_FP32 }, { NET_DT_BF16, PREC_BF16 }, { NET_DT_E4M3, PREC_FP8 },
};

struct gemm_ud {
    const struct prec_ops *po;
    struct prec_gemm *g;
};

static double gemm_pass(void *ud)
{
    struct gemm_ud *u = ud;
    return u->po->gemm_run(u->g, 1);
}

/* Each dtype's sustained FLOP/s into pk; a refusal is noted in refused. FP32 is required. */
static int peaks(const struct prec_ops *po, cJSON *pk, cJSON *refused, char *why, size_t n)
{
    for (size_t i = 0; i < sizeof PEAKS / sizeof PEAKS[0]; i++) {
        struct prec_gemm g = { .fmt = PEAKS[i].fmt, .m = PEAK_N, .n = PEAK_N, .k = PEAK_N, .seed_a = 1, .seed_b = 2 };
        char no[256] = "";
        struct gemm_ud u = { po, &g };
        double t = po->gemm_setup(&g, no, sizeof no) == PREC_OK ? model_timed(gemm_pass, &u, "min") : NAN;
        po->gemm_release(&g);
        if (t > 0) {
            cJSON_AddNumberToObject(pk, net_dtype_names[PEAKS[i].dt], 2.0 * PEAK_N * PEAK_N * PEAK_N / t);
        } else if (PEAKS[i].dt == NET_DT_F32) {
            snprintf(why, n, "the FP32 peak GEMM: %s", no[0] ? no : "it failed");
            return -1;
        } else {
            cJSON_AddStringToObject(refused, net_dtype_names[PEAKS[i].dt], no[0] ? no : "the GEMM failed");
        }
    }
    return 0;
}

struct bw_ud {
    const struct bw_ops *o;
    struct bw_arrays *x;
    enum bw_kernel k;
};

static double bw_pass(void *ud)
{
    struct bw_ud *u = ud;
    double t = u->o->run(u->x, u->k, 1);
    return t > 0 ? t : NAN;
}

/* The best rate of read, copy and triad over three device arrays of `bytes` each (bytes the
 * kernel names, STREAM's count), each validated before it is timed; NAN with why. */
static double device_bandwidth(const struct bw_ops *o, double bytes, const char **kernel, char *why, size_t n)
{
    static const enum bw_kernel ks[] = { BW_READ, BW_COPY, BW_TRIAD };
    struct bw_arrays x = { 0 };
    struct bw_layout l = { (size_t)(bytes / 4) / 1024 * 1024, BW_FP32, BW_PATH_DEVICE, 1, NULL, 0 };
    double best = NAN;
    x.stores = BW_STORES_CACHED;
    if (o->alloc(&x, &l, why, n) != 0)
        return NAN;
    for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++) {
        struct bw_ud u = { o, &x, ks[i] };
        if (!(o->run(&x, ks[i], 1) > 0) || !(o->check(&x, ks[i]) <= bw_tolerance(BW_FP32))) {
            snprintf(why, n, "the device bandwidth: the %s kernel failed validation", bw_kernels[ks[i]].name);
            best = NAN;
            break;
        }
        const struct bw_kernel_info *ki = &bw_kernels[ks[i]];
        double gbps = (ki->reads + ki->writes) * (double)x.n * 4 / model_timed(bw_pass, &u, "min");
        if (gbps > 0 && !(gbps <= best)) {
            best = gbps;
            *kernel = ki->name;
        }
    }
    o->release(&x);
    return best;
}

static double launch_pass(void *ud)
{
    const struct prec_ops *po = ud;
    char why[256];
    return po->overhead(1, LAUNCHES, why, sizeof why) / LAUNCHES;
}

/* The combine rule on the precision family's FP32 chain kernel: up to 256 FLOP/byte, beyond
 * every GPU's FP32 knee (a GB10's about 110). */
static int gpu_combine(const struct prec_ops *po, cJSON *ci, double bytes, char *why, size_t n)
{
    static const int ks[] = { 0, 1, 2, 4, 8, 16, 32, 64, 128, 256, 512 };
    struct prec_sweep s = { .fmt = PREC_FP32, .n = (size_t)(bytes / 4) / 4096 * 4096, .threads = 1 };
    return model_prec_combine(po, &s, ci, ks, (int)(sizeof ks / sizeof ks[0]),
        "the precision family's FP32 chain kernel over a device array (1 GiB or 8x the L2, the larger), k = 0 .. 512 "
        "dependent FMAs per element (256 FLOP/byte), fastest repetition; ceilings from its two ends; q chosen from "
        "1, 1.5, 2, 3, 4, 6, max on the points between", why, n);
}

/* What the device is: its name, memory and whether it shares it with the CPU. Which catalog system
 * it is, is the catalog's to say (data/systems.csv's match_gpu; the runner sets catalog_id). */
static void device_json(cJSON *ci, const struct cuda_device *d)
{
    cJSON_AddStringToObject(ci, "device", "gpu");
    cJSON_AddStringToObject(ci, "device_name", d->name);
    cJSON_AddNumberToObject(ci, "threads", 1);
    cJSON_AddStringToObject(ci, "threads_what", "the one host thread that launches the kernels, on one stream");
    cJSON_AddNumberToObject(ci, "sms", d->sms);
    cJSON_AddNumberToObject(ci, "memory_bytes", d->mem_total_bytes);
    cJSON_AddBoolToObject(ci, "shared_pool", d->integrated);
}

int model_gpu_ceilings(cJSON *ci, cJSON *info, const struct model_gemms *shapes, char *why, size_t n)
{
    struct cuda_info cu;
    const char *kernel = "?";
    char what[256];
    (void)info;
    (void)shapes;               /* cuBLASLt's 8192^3 per dtype: larger than any step's matmul */
    const struct prec_ops *po = backend_for("precision", "gpu", why, n);
    const struct bw_ops *bo = po ? backend_for("bandwidth", "gpu", why, n) : NULL;
    if (!bo || (po->select && po->select(CUDA_DEVICE, why, n) != 0))
        return -1;
    cuda_probe(&cu);
    device_json(ci, &cu.dev[CUDA_DEVICE]);
    double bytes = fmax(ARRAY_FLOOR, L2_FACTOR * cu.dev[CUDA_DEVICE].l2_bytes);
    if (isfinite(cu.dev[CUDA_DEVICE].mem_free_bytes))
        bytes = fmin(bytes, 0.15 * cu.dev[CUDA_DEVICE].mem_free_bytes);
    if (peaks(po, cJSON_AddObjectToObject(ci, "peak_flops"), cJSON_AddObjectToObject(ci, "peak_refused"), why, n) != 0)
        return -1;
    cJSON_AddNumberToObject(ci, "peak_gemm_flops", 2.0 * PEAK_N * PEAK_N * PEAK_N);
    cJSON_AddStringToObject(ci, "peak_what", "cuBLASLt 8192 x 8192 x 8192 (TN) per dtype, the trainer's: FP32 in FP32 "
        "(no TF32), BF16 and E4M3 with FP32 accumulation; the heuristic's fastest algorithm, fastest repetition after a "
        "warm-up (the precision experiment validates the same path)");
    double bw = device_bandwidth(bo, bytes, &kernel, why, n);
    if (!(bw > 0))
        return -1;
    cJSON_AddNumberToObject(ci, "bandwidth_Bps", bw);
    snprintf(what, sizeof what, "device memory (cudaMalloc), the best of the read, copy and triad kernels in FP32 over "
             "three arrays of %.0f MiB (1 GiB or 8x the L2): %s, bytes the kernel names, best repetition",
             bytes / 1048576, kernel);
    cJSON_AddStringToObject(ci, "bandwidth_what", what);
    double launch = model_timed(launch_pass, (void *)po, "median");
    if (!(launch > 0)) {
        snprintf(why, n, "the empty kernel launch failed");
        return -1;
    }
    cJSON_AddNumberToObject(ci, "op_overhead_s", launch);
    cJSON_AddStringToObject(ci, "op_overhead_what", "an empty kernel launch, 1000 back to back on one stream, per launch; "
                            "median of 3 to 10 samples");
    if (gpu_combine(po, ci, bytes, why, n) != 0)
        return -1;
    cJSON_AddStringToObject(ci, "vector_what", "the intensity sweep's compute end: 512 dependent FP32 FMAs per element, "
                            "the whole device");
    return 0;
}
