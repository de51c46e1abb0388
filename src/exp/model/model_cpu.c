/* model_cpu.c: the CPU's ceilings for the training-time model's calibration: the run's sustained
 * FP32 GEMM rate (measure/compute.h, its own cblas_sgemm at the shapes it needs among them), the
 * machine's DRAM ceilings (measure_dram), the fixed
 * cost of an op (an empty OpenMP parallel region) and the intensity sweep the combine rule is
 * chosen on. The ops of the step and the flow are model.c's. */
#include "exp/model/model_int.h"
#include "exp/precision/precision.h"

#include <cblas.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measure/compute.h"
#include "measure/dram.h"
#include "measure/measure.h"
#include "util/machine.h"
#include "util/error.h"
#include "util/timing.h"

#define PEAK_N 1024             /* the square GEMM every CPU run measures: n x n x n */

/* Row-major C[m,n] = op(A) op(B), as the trainer calls cblas_sgemm (train_cpu.c's sgemm): its
 * forward matmul takes B transposed (ta 0, tb 1), dgrad neither, wgrad A. */
struct gemm_ud {
    int ta, tb, m, n, k;
    float *a, *b, *c;
};

static double gemm_once(void *ud)
{
    struct gemm_ud *g = ud;
    double t0 = timing_now();
    cblas_sgemm(CblasRowMajor, g->ta ? CblasTrans : CblasNoTrans, g->tb ? CblasTrans : CblasNoTrans, g->m, g->n, g->k,
                1, g->a, g->ta ? g->m : g->k, g->b, g->tb ? g->k : g->n, 0, g->c, g->n);
    return timing_now() - t0;
}

double model_cpu_gemm(int ta, int tb, int m, int n, int k)
{
    struct gemm_ud g = { ta, tb, m, n, k, xmalloc((size_t)m * k * sizeof(float)), xmalloc((size_t)k * n * sizeof(float)),
                         xmalloc((size_t)m * n * sizeof(float)) };
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < (size_t)m * k; i++)
        g.a[i] = (float)((i % 13) - 6) / 8;
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < (size_t)k * n; i++)
        g.b[i] = (float)((i % 7) - 3) / 4;
    double best = 2.0 * m * n * (double)k / model_timed(gemm_once, &g, "min");
    free(g.a);
    free(g.b);
    free(g.c);
    return best;
}

/* The run's sustained FP32 GEMM rate, as the model's matmul ceiling: the fastest of its own GEMMs
 * (PEAK_N^3 and the largest matmuls of the steps it validates, the trainer's layout) and of every
 * GEMM the run measured before it (src/measure/compute.h); its own offered for the families after
 * it. Into ci: peak_flops.fp32, peak_gemm_flops (its FLOPs), peak_gemm {...}, peak_what. */
static void gemm_ceiling(cJSON *ci, const struct model_gemms *shapes)
{
    char what[512];
    struct measure_gemm own = { model_cpu_gemm(0, 1, PEAK_N, PEAK_N, PEAK_N), PEAK_N, PEAK_N, PEAK_N, "cblas_sgemm",
                                "model" }, run;
    for (int i = 0; i < shapes->n; i++) {
        int m = (int)shapes->mnk[i][0], n = (int)shapes->mnk[i][1], k = (int)shapes->mnk[i][2];
        double g = model_cpu_gemm(0, 1, m, n, k);
        if (g > own.gflops)
            own = (struct measure_gemm){ g, m, n, k, "cblas_sgemm", "model" };
    }
    own.gflops /= 1e9;
    measure_gemm_offer("cpu", "fp32", &own);
    measure_gemm_best("cpu", "fp32", &run);
    cJSON_AddNumberToObject(cJSON_AddObjectToObject(ci, "peak_flops"), "fp32", run.gflops * 1e9);
    cJSON_AddNumberToObject(ci, "peak_gemm_flops", 2.0 * run.m * run.n * (double)run.k);
    cJSON_AddItemToObject(ci, "peak_gemm", measure_gemm_json(&run));
    snprintf(what, sizeof what, "the run's sustained FP32 GEMM rate: the fastest GEMM measured in this run up to the "
             "calibration (%s %d x %d x %d, by the %s %s), over cblas_sgemm at %d^3 and at the %d largest matmul shapes "
             "of the steps the model validates, fastest repetition after a warm-up; the CPU BF16 recipe widens BF16 "
             "operands to FP32 before cblas_sgemm, so it has the same ceiling", run.routine, run.m, run.n, run.k,
             run.family, strcmp(run.family, "model") == 0 ? "experiment itself" : "experiment", PEAK_N, shapes->n);
    cJSON_AddStringToObject(ci, "peak_what", what);
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

/* The combine rule on the precision family's FP32 chain kernel, in the widest vectors the CPU
 * runs (the FMA peak's kernel), over a DRAM-sized array (measure.h), every thread. */
static int cpu_combine(cJSON *ci, char *why, size_t n)
{
    static const int ks[] = { 0, 1, 2, 4, 8, 12, 16, 32, 64 };
    struct machine_cpu cpu;
    machine_cpu(&cpu);
    struct prec_sweep s = { .fmt = PREC_FP32, .threads = omp_get_max_threads(),
                            .n = (size_t)(measure_dram_bytes(machine_cache_total(&cpu)) / 4) / 4096 * 4096 };
    return model_prec_combine(&prec_cpu_ops, &s, ci, ks, (int)(sizeof ks / sizeof ks[0]),
        "the precision family's FP32 chain kernel (its widest vectors, every thread) over a DRAM-sized array (4x all "
        "caches, 256 MiB at least), k = 0 .. 64 dependent FMAs per element (32 FLOP/byte, far beyond a CPU's knee), "
        "fastest repetition; ceilings from its two ends; q chosen from 1, 1.5, 2, 3, 4, 6, max on the points between",
        why, n);
}

/* The DRAM ceiling of each mix of reads and writes (dram.h), what the memory-bound classes'
 * efficiencies are taken against: info.calibration.bandwidth_mix [{read_share, Bps, kernel}]. */
static void mix_json(cJSON *ci, const struct measure_dram *d)
{
    cJSON *a = cJSON_AddArrayToObject(ci, "bandwidth_mix");
    for (int i = 0; i < MEASURE_DRAM_MIXES; i++) {
        if (!(d->mix[i].gbps > 0))
            continue;
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "read_share", d->mix[i].read_share);
        cJSON_AddNumberToObject(o, "Bps", d->mix[i].gbps * 1e9);
        cJSON_AddStringToObject(o, "kernel", d->mix[i].kernel);
        cJSON_AddItemToArray(a, o);
    }
}

int model_cpu_ceilings(cJSON *ci, cJSON *info, const struct model_gemms *shapes, char *why, size_t n)
{
    char what[300], err[300];
    struct measure_dram d;
    cJSON_AddStringToObject(ci, "device", "cpu");
    cJSON_AddNumberToObject(ci, "threads", omp_get_max_threads());
    gemm_ceiling(ci, shapes);
    if (measure_dram("model", &d, err, sizeof err) != 0) {
        snprintf(why, n, "%s", err);
        return -1;
    }
    cJSON_AddItemToObject(info, "dram", measure_dram_json(&d));
    cJSON_AddNumberToObject(ci, "bandwidth_Bps", d.gbps * 1e9);
    mix_json(ci, &d);
    snprintf(what, sizeof what, "the machine's DRAM bandwidth (info.dram, %s): %s kernel, %s stores, %s, %d threads, "
             "best repetition; each memory-bound op against the ceiling of its own mix of reads and writes "
             "(bandwidth_mix)", d.source, d.kernel, d.stores, d.precision, d.threads);
    cJSON_AddStringToObject(ci, "bandwidth_what", what);
    cJSON_AddNumberToObject(ci, "op_overhead_s", region_cost());
    cJSON_AddStringToObject(ci, "op_overhead_what", "an empty OpenMP parallel region (fork, join), median of 3 to 10 x 200");
    if (cpu_combine(ci, why, n) != 0)
        return -1;
    cJSON_AddStringToObject(ci, "vector_what", "the intensity sweep's compute end: 64 dependent FP32 FMAs per element, "
                            "the precision family's chain kernel in its widest vectors, all threads");
    return 0;
}
