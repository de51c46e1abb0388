/* model_cpu.c: the CPU's ceilings for the training-time model's calibration: the sustained
 * FP32 matmul peak (a large cblas_sgemm), the machine's one DRAM bandwidth (measure_dram), the fixed
 * cost of an op (an empty OpenMP parallel region) and the intensity sweep the combine rule is
 * chosen on. The ops of the step and the flow are model.c's. */
#include "exp/model/model_int.h"

#include <cblas.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#include "measure/dram.h"
#include "measure/measure.h"
#include "util/machine.h"
#include "util/error.h"
#include "util/timing.h"

#define PEAK_N 1024             /* the peak GEMM's n: n x n x n */

struct gemm_ud {
    int n;
    float *a, *b, *c;
};

static double gemm_once(void *ud)
{
    struct gemm_ud *g = ud;
    double t0 = timing_now();
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, g->n, g->n, g->n, 1, g->a, g->n, g->b, g->n, 0, g->c, g->n);
    return timing_now() - t0;
}

/* Sustained FP32 matmul FLOP/s: a 1024^3 GEMM, its fastest repetition. */
static double gemm_peak(void)
{
    const int n = PEAK_N;
    struct gemm_ud g = { n, xmalloc((size_t)n * n * sizeof(float)), xmalloc((size_t)n * n * sizeof(float)),
                         xmalloc((size_t)n * n * sizeof(float)) };
    for (size_t i = 0; i < (size_t)n * n; i++) {
        g.a[i] = (float)((i % 13) - 6) / 8;
        g.b[i] = (float)((i % 7) - 3) / 4;
    }
    double best = 2.0 * n * n * n / model_timed(gemm_once, &g, "min");
    free(g.a);
    free(g.b);
    free(g.c);
    return best;
}

/* Seconds of `regions` empty OpenMP parallel regions, per region: the fork/join every op pays. */
static volatile int region_sink[64];

static double regions_once(void *ud)
{
    (void)ud;
    double t0 = timing_now();
    for (int i = 0; i < 200; i++) {
#pragma omp parallel
        region_sink[omp_get_thread_num() & 63] = i;
    }
    return (timing_now() - t0) / 200;
}

static double region_cost(void) { return model_timed(regions_once, NULL, "median"); }

/* The intensity sweep: n floats streamed once with k dependent FMAs each (2k FLOPs per 4
 * bytes), 64 independent chains at a time so that the FMAs vectorise and pipeline. */
#define LANES 64
struct sweep_ud {
    const float *x;
    size_t n;
    int k;
    float sink;
};

static double sweep_once(void *ud)
{
    struct sweep_ud *u = ud;
    const float *x = u->x;
    float total = 0;
    double t0 = timing_now();
#pragma omp parallel for reduction(+ : total) schedule(static)
    for (size_t i = 0; i < u->n; i += LANES) {
        float y[LANES];
#pragma omp simd
        for (int l = 0; l < LANES; l++)
            y[l] = x[i + l];
        for (int j = 0; j < u->k; j++)
#pragma omp simd
            for (int l = 0; l < LANES; l++)
                y[l] = y[l] * 0.999f + 0.001f;
        for (int l = 0; l < LANES; l++)
            total += y[l];
    }
    double t = timing_now() - t0;
    u->sink += total;
    return t;
}

static double sweep_pass(void *ud, int k)
{
    struct sweep_ud *u = ud;
    u->k = k;
    return model_timed(sweep_once, u, "min");
}

/* Floats of the sweep's array: DRAM-sized (measure.h), a multiple of LANES. */
static size_t sweep_floats(void)
{
    struct machine_cpu cpu;
    machine_cpu(&cpu);
    return (size_t)(measure_dram_bytes(machine_cache_total(&cpu)) / 4) / LANES * LANES;
}

static int cpu_combine(cJSON *ci)
{
    static const int ks[] = { 0, 1, 2, 4, 8, 12, 16, 32, 64 };
    size_t n = sweep_floats();
    float *x = xmalloc(n * sizeof *x);
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++)
        x[i] = (float)(i % 17) / 17;
    struct sweep_ud u = { x, n, 0, 0 };
    struct model_sweep s = { sweep_pass, &u, 4.0 * (double)n, ks, (int)(sizeof ks / sizeof ks[0]),
        "a DRAM-sized FP32 array (4x all caches, 256 MiB at least) streamed once with k dependent FMAs per "
        "element, k = 0 .. 64 (32 FLOP/byte, far beyond a CPU's knee), fastest repetition; ceilings from its two ends; "
        "q chosen from 1, 1.5, 2, 3, 4, 6, max on the points between" };
    int rc = model_combine_rule(ci, &s);
    free(x);
    return rc;
}

int model_cpu_ceilings(cJSON *ci, cJSON *info, char *why, size_t n)
{
    char what[200], err[300];
    struct measure_dram d;
    cJSON_AddStringToObject(ci, "device", "cpu");
    cJSON_AddNumberToObject(ci, "threads", omp_get_max_threads());
    cJSON_AddNumberToObject(cJSON_AddObjectToObject(ci, "peak_flops"), "fp32", gemm_peak());
    cJSON_AddStringToObject(ci, "peak_what", "cblas_sgemm 1024 x 1024 x 1024, fastest repetition after a warm-up; the CPU "
        "BF16 recipe widens BF16 operands to FP32 before cblas_sgemm, so it has the same peak");
    cJSON_AddNumberToObject(ci, "peak_gemm_flops", 2.0 * PEAK_N * PEAK_N * PEAK_N);
    if (measure_dram("model", &d, err, sizeof err) != 0) {
        snprintf(why, n, "%s", err);
        return -1;
    }
    cJSON_AddItemToObject(info, "dram", measure_dram_json(&d));
    cJSON_AddNumberToObject(ci, "bandwidth_Bps", d.gbps * 1e9);
    snprintf(what, sizeof what, "the machine's DRAM bandwidth (info.dram, %s): %s kernel, %s stores, %s, %d threads, "
             "best repetition", d.source, d.kernel, d.stores, d.precision, d.threads);
    cJSON_AddStringToObject(ci, "bandwidth_what", what);
    cJSON_AddNumberToObject(ci, "op_overhead_s", region_cost());
    cJSON_AddStringToObject(ci, "op_overhead_what", "an empty OpenMP parallel region (fork, join), median of 3 to 10 x 200");
    if (cpu_combine(ci) != 0) {
        snprintf(why, n, "the intensity sweep failed");
        return -1;
    }
    cJSON_AddStringToObject(ci, "vector_what", "the intensity sweep's compute end: 64 dependent FP32 FMAs per element, "
                            "vectorised across elements, all threads");
    return 0;
}
