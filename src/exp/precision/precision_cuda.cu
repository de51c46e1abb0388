/* precision_cuda.cu: the CUDA backend of the precision family: GEMMs of every format through
 * cuBLASLt, probed at run time (a refusal is "unsupported on this device", not an error); inputs
 * made on the device by the SR_HD generator and conversions the CPU tests exercise
 * (precision_math.h); the FMA-chain kernel of the intensity sweep; the cost of an empty kernel
 * launch. Times are CUDA events around back-to-back calls. Plans, validation and records are
 * precision.c's; this file only carries out calls. */
#include <cublasLt.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"     /* cuda_fp4.hpp's own */
#include <cuda_fp4.h>
#pragma GCC diagnostic pop
#include <cuda_fp8.h>
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/blaslt.h"
#include "cuda/cuda.h"
#include "cuda/cuda_check.h"
#include "exp/precision/precision.h"

#define WORKSPACE ((size_t)32 << 20)    /* what cuBLASLt recommends for Hopper and Blackwell */
#define HEURISTICS 8                    /* algorithms asked for; the first that runs is kept, */
#define CANDIDATES 3                    /* ... or the fastest of the first few that run */
#define THREADS 256

/* ---- device state: one selected device, its stream, events and cuBLASLt handle ---------- */

static struct {
    int ready;
    cudaStream_t stream;
    cudaEvent_t e0, e1;
    struct blaslt lt;                   /* cuBLASLt handle and a WORKSPACE of its own */
    int fill_blocks;                    /* the input fills' grid: the whole device */
    char desc[320];                     /* "NVIDIA H200, sm_90" */
} G;

/* A cuBLASLt verdict as this family's: a refusal is "unsupported on this device". */
static int from_lt(int rc, const char *err, char *why, size_t whylen)
{
    if (rc == BLASLT_OK)
        return PREC_OK;
    if (rc == BLASLT_REFUSED) {
        snprintf(why, whylen, "unsupported on this device (%s): %s", G.desc, err);
        return PREC_UNSUPPORTED;
    }
    snprintf(why, whylen, "%s", err);
    return PREC_ERROR;
}

__global__ void fill_kernel(void *p, int f, uint64_t seed, size_t count);

extern "C" int prec_gpu_select(int dev, char *why, size_t whylen)
{
    cudaDeviceProp p;
    char err[320];
    if (G.ready)
        return 0;
    CUDA_CHECK(cudaSetDevice(dev), why, whylen);
    CUDA_CHECK(cudaGetDeviceProperties(&p, dev), why, whylen);
    snprintf(G.desc, sizeof G.desc, "%s, sm_%d%d", p.name, p.major, p.minor);
    CUDA_CHECK(cudaStreamCreateWithFlags(&G.stream, cudaStreamNonBlocking), why, whylen);
    CUDA_CHECK(cudaEventCreate(&G.e0), why, whylen);
    CUDA_CHECK(cudaEventCreate(&G.e1), why, whylen);
    if (cuda_full_grid((const void *)fill_kernel, THREADS, &G.fill_blocks, why, whylen) != 0)
        return PREC_ERROR;
    if (blaslt_open(&G.lt, G.stream, NULL, WORKSPACE, err, sizeof err) != BLASLT_OK) {
        snprintf(why, whylen, "%s", err);
        return PREC_ERROR;
    }
    G.ready = 1;
    return 0;
fail:
    return PREC_ERROR;
}

/* Seconds between the two events after the stream has run to e1; NAN with err. */
static double elapsed(char *err, size_t errlen)
{
    float ms = 0;
    CUDA_CHECK(cudaEventSynchronize(G.e1), err, errlen);
    CUDA_CHECK(cudaEventElapsedTime(&ms, G.e0, G.e1), err, errlen);
    return ms / 1e3;
fail:
    return NAN;
}

/* ---- inputs made on the device ------------------------------------------------------------ */

/* Element i of a tensor in format f's storage: what prec_input_as(f, ...) dequantizes. */
__global__ void fill_kernel(void *p, int f, uint64_t seed, size_t count)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count; i += (size_t)gridDim.x * blockDim.x) {
        double x = prec_input(seed, i);
        switch (f) {
        case PREC_FP64: ((double *)p)[i] = x; break;
        case PREC_FP32: case PREC_TF32: ((float *)p)[i] = (float)x; break;
        case PREC_BF16: ((uint16_t *)p)[i] = prec_bf16_bits(x); break;
        case PREC_FP16: case PREC_FP16_ACC16: ((uint16_t *)p)[i] = prec_fp16_bits(x); break;
        case PREC_FP8: case PREC_FP8_FAST: ((uint8_t *)p)[i] = prec_e4m3_bits(x * PREC_FP8_SCALE); break;
        }
    }
}

/* One thread per block of bs (16 or 32) elements along K: E2M1 codes packed two per byte (the
 * lower-indexed element in the low nibble), the block's scale at its cuBLASLt offset. */
__global__ void fill_fp4_kernel(uint8_t *packed, uint8_t *scales, int mx, uint64_t seed, size_t rows, size_t k)
{
    int bs = mx ? 32 : 16;
    size_t nkb = k / (size_t)bs;
    for (size_t blk = blockIdx.x * (size_t)blockDim.x + threadIdx.x; blk < rows * nkb; blk += (size_t)gridDim.x * blockDim.x) {
        size_t row = blk / nkb, kb = blk % nkb, first = row * k + kb * (size_t)bs;
        double xs[PREC_BLOCK_MAX];
        uint8_t codes[PREC_BLOCK_MAX];
        for (int j = 0; j < bs; j++)
            xs[j] = prec_input(seed, first + (size_t)j);
        scales[prec_scale_offset(row, kb, nkb)] = (uint8_t)prec_fp4_block(xs, bs, mx, codes, NULL);
        for (int j = 0; j < bs; j += 2)
            packed[(first + (size_t)j) / 2] = (uint8_t)(codes[j] | codes[j + 1] << 4);
    }
}

/* ---- GEMM through cuBLASLt ----------------------------------------------------------------- */

/* Types of one format: A and B, C and D, compute and scale type, how A and B are scaled. */
enum { SC_NONE, SC_TENSOR, SC_VEC16, SC_VEC32 };
struct lt_fmt {
    cudaDataType_t ab, cd;
    cublasComputeType_t compute;
    cudaDataType_t scale;
    int scaling;
    double ab_bytes, cd_bytes;          /* storage per element (FP4: two per byte) */
};

static const struct lt_fmt lt_fmts[PREC_NFMT] = {     /* in enum prec_fmt's order */
    { CUDA_R_64F, CUDA_R_64F, CUBLAS_COMPUTE_64F, CUDA_R_64F, SC_NONE, 8, 8 },                  /* fp64 */
    { CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F, CUDA_R_32F, SC_NONE, 4, 4 },                  /* fp32 */
    { CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32, CUDA_R_32F, SC_NONE, 4, 4 },        /* tf32 */
    { CUDA_R_16BF, CUDA_R_16BF, CUBLAS_COMPUTE_32F, CUDA_R_32F, SC_NONE, 2, 2 },                /* bf16 */
    { CUDA_R_16F, CUDA_R_16F, CUBLAS_COMPUTE_32F, CUDA_R_32F, SC_NONE, 2, 2 },                  /* fp16 */
    { CUDA_R_16F, CUDA_R_16F, CUBLAS_COMPUTE_16F, CUDA_R_16F, SC_NONE, 2, 2 },                  /* fp16_acc16 */
    { CUDA_R_8F_E4M3, CUDA_R_16BF, CUBLAS_COMPUTE_32F, CUDA_R_32F, SC_TENSOR, 1, 2 },           /* fp8 */
    { CUDA_R_8F_E4M3, CUDA_R_16BF, CUBLAS_COMPUTE_32F, CUDA_R_32F, SC_TENSOR, 1, 2 },           /* fp8_fast */
    { CUDA_R_4F_E2M1, CUDA_R_16BF, CUBLAS_COMPUTE_32F, CUDA_R_32F, SC_VEC16, 0.5, 2 },          /* nvfp4 */
    { CUDA_R_4F_E2M1, CUDA_R_16BF, CUBLAS_COMPUTE_32F, CUDA_R_32F, SC_VEC32, 0.5, 2 },          /* mxfp4 */
};

struct lt_gemm {
    struct blaslt_matmul mm;            /* descriptor, layouts, the chosen algorithm */
    void *sa, *sb;                      /* scales: one float each, or the block-scale tensors */
    double alpha64;                     /* alpha and beta in the scale type */
    float alpha32, zero32;
    uint16_t alpha16, zero16;
    double zero64;
};

static const void *alpha_of(const struct prec_gemm *g, const struct lt_gemm *l)
{
    cudaDataType_t t = lt_fmts[g->fmt].scale;
    return t == CUDA_R_64F ? (const void *)&l->alpha64 : t == CUDA_R_16F ? (const void *)&l->alpha16 : (const void *)&l->alpha32;
}

static const void *beta_of(const struct prec_gemm *g, const struct lt_gemm *l)
{
    cudaDataType_t t = lt_fmts[g->fmt].scale;
    return t == CUDA_R_64F ? (const void *)&l->zero64 : t == CUDA_R_16F ? (const void *)&l->zero16 : (const void *)&l->zero32;
}

static int matmul(struct prec_gemm *g, struct lt_gemm *l, const cublasLtMatmulAlgo_t *algo, char *err, size_t errlen)
{
    return blaslt_run(&G.lt, &l->mm, algo, alpha_of(g, l), g->a, g->b, beta_of(g, l), g->d, g->d, err, errlen);
}

/* Operands on the device: A (k x m) and B (k x n) from the generator, D zeroed, scales. */
static int gemm_alloc(struct prec_gemm *g, struct lt_gemm *l, char *why, size_t whylen)
{
    const struct lt_fmt *t = &lt_fmts[g->fmt];
    size_t m = (size_t)g->m, n = (size_t)g->n, k = (size_t)g->k;
    CUDA_CHECK(cudaMalloc(&g->a, (size_t)ceil((double)(k * m) * t->ab_bytes)), why, whylen);
    CUDA_CHECK(cudaMalloc(&g->b, (size_t)ceil((double)(k * n) * t->ab_bytes)), why, whylen);
    CUDA_CHECK(cudaMalloc(&g->d, (size_t)((double)(m * n) * t->cd_bytes)), why, whylen);
    CUDA_CHECK(cudaMemsetAsync(g->d, 0, (size_t)((double)(m * n) * t->cd_bytes), G.stream), why, whylen);
    if (t->scaling == SC_VEC16 || t->scaling == SC_VEC32) {
        int mx = t->scaling == SC_VEC32;
        size_t nkb = k / (mx ? 32 : 16), ba = prec_scale_bytes(m, nkb), bb = prec_scale_bytes(n, nkb);
        CUDA_CHECK(cudaMalloc(&l->sa, ba), why, whylen);
        CUDA_CHECK(cudaMalloc(&l->sb, bb), why, whylen);
        CUDA_CHECK(cudaMemsetAsync(l->sa, 0, ba, G.stream), why, whylen);
        CUDA_CHECK(cudaMemsetAsync(l->sb, 0, bb, G.stream), why, whylen);
        fill_fp4_kernel<<<G.fill_blocks, THREADS, 0, G.stream>>>((uint8_t *)g->a, (uint8_t *)l->sa, mx, g->seed_a, m, k);
        CUDA_CHECK(cudaGetLastError(), why, whylen);
        fill_fp4_kernel<<<G.fill_blocks, THREADS, 0, G.stream>>>((uint8_t *)g->b, (uint8_t *)l->sb, mx, g->seed_b, n, k);
        CUDA_CHECK(cudaGetLastError(), why, whylen);
    } else {
        fill_kernel<<<G.fill_blocks, THREADS, 0, G.stream>>>(g->a, g->fmt, g->seed_a, k * m);
        CUDA_CHECK(cudaGetLastError(), why, whylen);
        fill_kernel<<<G.fill_blocks, THREADS, 0, G.stream>>>(g->b, g->fmt, g->seed_b, k * n);
        CUDA_CHECK(cudaGetLastError(), why, whylen);
    }
    if (t->scaling == SC_TENSOR) {
        float inv = (float)(1.0 / PREC_FP8_SCALE);
        CUDA_CHECK(cudaMalloc(&l->sa, sizeof inv), why, whylen);
        CUDA_CHECK(cudaMalloc(&l->sb, sizeof inv), why, whylen);
        CUDA_CHECK(cudaMemcpyAsync(l->sa, &inv, sizeof inv, cudaMemcpyHostToDevice, G.stream), why, whylen);
        CUDA_CHECK(cudaMemcpyAsync(l->sb, &inv, sizeof inv, cudaMemcpyHostToDevice, G.stream), why, whylen);
    }
    CUDA_CHECK(cudaStreamSynchronize(G.stream), why, whylen);
    return PREC_OK;
fail:
    return PREC_ERROR;
}

/* The operation and layouts: D = alpha op(A) B with op(A) = A^T ("TN", which FP8 and FP4 need). */
static int gemm_describe(struct prec_gemm *g, struct lt_gemm *l, char *why, size_t whylen)
{
    static const enum blaslt_scaling scalings[] = { BLASLT_SCALE_NONE, BLASLT_SCALE_TENSOR, BLASLT_SCALE_VEC16_UE4M3,
                                                     BLASLT_SCALE_VEC32_UE8M0 };   /* by SC_* */
    const struct lt_fmt *t = &lt_fmts[g->fmt];
    uint64_t m = (uint64_t)g->m, n = (uint64_t)g->n, k = (uint64_t)g->k;
    struct blaslt_desc d = { t->compute, t->scale, CUBLAS_OP_T, CUBLAS_OP_N,
                             { t->ab, k, m, g->k, 1, 0 }, { t->ab, k, n, g->k, 1, 0 }, { t->cd, m, n, g->m, 1, 0 },
                             scalings[t->scaling], l->sa, l->sb, 0, 0, 0, g->fmt == PREC_FP8_FAST };
    char err[320];
    double alpha = t->scaling == SC_VEC16 ? 1.0 / (PREC_NVFP4_GLOBAL * PREC_NVFP4_GLOBAL) : 1.0;
    l->alpha64 = alpha;
    l->alpha32 = (float)alpha;
    l->alpha16 = prec_fp16_bits(alpha);
    return from_lt(blaslt_matmul_open(&l->mm, &d, err, sizeof err), err, why, whylen);
}

/* Seconds per product of `reps` back to back with algo; INFINITY when one fails. */
static double time_algo(struct prec_gemm *g, struct lt_gemm *l, const cublasLtMatmulAlgo_t *algo, int reps)
{
    char err[320];
    CUDA_CHECK(cudaEventRecord(G.e0, G.stream), err, sizeof err);
    for (int i = 0; i < reps; i++)
        if (matmul(g, l, algo, err, sizeof err) != BLASLT_OK)
            return INFINITY;
    CUDA_CHECK(cudaEventRecord(G.e1, G.stream), err, sizeof err);
    return elapsed(err, sizeof err) / reps;
fail:
    return INFINITY;
}

/* The heuristic's candidates, in its order; the fastest of the first CANDIDATES that run. */
static int gemm_choose(struct prec_gemm *g, struct lt_gemm *l, char *why, size_t whylen)
{
    cublasLtMatmulHeuristicResult_t res[HEURISTICS];
    int found = 0, ran = 0, best = -1, rc;
    double best_t = INFINITY;
    char err[320], algo[48];
    if ((rc = blaslt_candidates(&G.lt, &l->mm, res, HEURISTICS, &found, err, sizeof err)) != BLASLT_OK)
        return from_lt(rc, err, why, whylen);
    for (int i = 0; i < found && ran < CANDIDATES; i++) {
        if (res[i].state != CUBLAS_STATUS_SUCCESS || matmul(g, l, &res[i].algo, err, sizeof err) != BLASLT_OK)
            continue;
        ran++;
        double t = time_algo(g, l, &res[i].algo, 2);
        if (t < best_t)
            best_t = t, best = i;
    }
    if (best < 0) {
        snprintf(why, whylen, "unsupported on this device (%s): none of the %d algorithms cuBLASLt offered ran (last: %s)",
                 G.desc, found, err);
        return PREC_UNSUPPORTED;
    }
    l->mm.algo = res[best].algo;
    if ((rc = blaslt_algo_words(&l->mm.algo, algo, sizeof algo, err, sizeof err)) != BLASLT_OK)
        return from_lt(rc, err, why, whylen);
    snprintf(g->algo, sizeof g->algo, "%s (heuristic %d of %d, fastest of %d)", algo, best + 1, found, ran);
    return PREC_OK;
}

static int gpu_gemm_setup(struct prec_gemm *g, char *why, size_t whylen)
{
    struct lt_gemm *l = (struct lt_gemm *)calloc(1, sizeof *l);
    g->impl = l;
    if (!l) {
        snprintf(why, whylen, "out of host memory");
        return PREC_ERROR;
    }
    if (g->emulate) {
        snprintf(why, whylen, "the GPU does not emulate formats");
        return PREC_UNSUPPORTED;
    }
    int rc = gemm_alloc(g, l, why, whylen);
    if (rc == PREC_OK)
        rc = gemm_describe(g, l, why, whylen);
    if (rc == PREC_OK)
        rc = gemm_choose(g, l, why, whylen);
    return rc;
}

static double gpu_gemm_run(struct prec_gemm *g, long iters)
{
    struct lt_gemm *l = (struct lt_gemm *)g->impl;
    char err[320];
    CUDA_CHECK(cudaEventRecord(G.e0, G.stream), err, sizeof err);
    for (long i = 0; i < iters; i++)
        if (matmul(g, l, NULL, err, sizeof err) != BLASLT_OK)
            return NAN;
    CUDA_CHECK(cudaEventRecord(G.e1, G.stream), err, sizeof err);
    return elapsed(err, sizeof err);
fail:
    return NAN;
}

static double d_value(enum prec_fmt f, const unsigned char *p)
{
    double v64;
    float v32;
    uint16_t v16;
    switch (lt_fmts[f].cd) {
    case CUDA_R_64F: memcpy(&v64, p, 8); return v64;
    case CUDA_R_32F: memcpy(&v32, p, 4); return v32;
    case CUDA_R_16F: memcpy(&v16, p, 2); return prec_fp16_value(v16);
    default: memcpy(&v16, p, 2); return prec_bf16_value(v16);
    }
}

static int gpu_gemm_fetch(struct prec_gemm *g, const size_t *idx, int count, double *out)
{
    size_t es = (size_t)lt_fmts[g->fmt].cd_bytes;
    unsigned char *h = (unsigned char *)malloc((size_t)count * es);
    char err[320];
    if (!h)
        return -1;
    if (!idx)
        CUDA_CHECK(cudaMemcpy(h, g->d, (size_t)count * es, cudaMemcpyDeviceToHost), err, sizeof err);
    for (int i = 0; idx && i < count; i++)
        CUDA_CHECK(cudaMemcpy(h + (size_t)i * es, (const unsigned char *)g->d + idx[i] * es, es, cudaMemcpyDeviceToHost),
                   err, sizeof err);
    for (int i = 0; i < count; i++)
        out[i] = d_value(g->fmt, h + (size_t)i * es);
    free(h);
    return 0;
fail:
    free(h);
    return -1;
}

static void gpu_gemm_release(struct prec_gemm *g)
{
    struct lt_gemm *l = (struct lt_gemm *)g->impl;
    if (l) {
        blaslt_matmul_close(&l->mm);
        cudaFree(l->sa);
        cudaFree(l->sb);
        free(l);
    }
    cudaFree(g->a);
    cudaFree(g->b);
    cudaFree(g->d);
    cudaGetLastError();
    g->a = g->b = g->d = g->impl = NULL;
}

/* ---- intensity sweep: k FMAs per element read, four independent chains per thread --------- */

template <typename T>
__global__ void chain_kernel(const T *x, size_t n, long k, T m, T a, double *partial)
{
    __shared__ double red[THREADS];
    size_t stride = (size_t)gridDim.x * blockDim.x;
    double total = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += 4 * stride) {
        T v0 = x[i], v1 = i + stride < n ? x[i + stride] : (T)0;
        T v2 = i + 2 * stride < n ? x[i + 2 * stride] : (T)0, v3 = i + 3 * stride < n ? x[i + 3 * stride] : (T)0;
        for (long t = 0; t < k; t++) {
            v0 = v0 * m + a;
            v1 = v1 * m + a;
            v2 = v2 * m + a;
            v3 = v3 * m + a;
        }
        /* elements past n started at 0 and gained k a each: taken back out, exactly */
        int missing = (i + stride >= n) + (i + 2 * stride >= n) + (i + 3 * stride >= n);
        total += (double)v0 + (double)v1 + (double)v2 + (double)v3 - missing * (double)k * (double)a;
    }
    red[threadIdx.x] = total;
    __syncthreads();
    for (int s = THREADS / 2; s > 0; s /= 2) {
        if ((int)threadIdx.x < s)
            red[threadIdx.x] += red[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        partial[blockIdx.x] = red[0];
}

template <typename T>
__global__ void chain_init(T *x, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        x[i] = (T)prec_chain_init(i);
}

struct gpu_sweep {
    double *partial;                    /* one per block */
    int blocks;
};

static int gpu_sweep_setup(struct prec_sweep *s, char *why, size_t whylen)
{
    struct gpu_sweep *w = (struct gpu_sweep *)calloc(1, sizeof *w);
    s->impl = w;
    snprintf(s->isa, sizeof s->isa, "cuda");
    if (!w || (s->fmt != PREC_FP64 && s->fmt != PREC_FP32)) {
        snprintf(why, whylen, "no GPU sweep kernel for %s", prec_fmts[s->fmt].name);
        return PREC_UNSUPPORTED;
    }
    /* the whole device at the kernel's occupancy, whatever the array: short arrays give each
     * thread fewer elements, never leave SMs idle */
    if (cuda_full_grid(s->fmt == PREC_FP64 ? (const void *)chain_kernel<double> : (const void *)chain_kernel<float>,
                       THREADS, &w->blocks, why, whylen) != 0)
        return PREC_ERROR;
    CUDA_CHECK(cudaMalloc(&w->partial, (size_t)w->blocks * sizeof(double)), why, whylen);
    CUDA_CHECK(cudaMalloc(&s->x, s->n * (s->fmt == PREC_FP64 ? 8 : 4)), why, whylen);
    if (s->fmt == PREC_FP64)
        chain_init<double><<<G.fill_blocks, THREADS, 0, G.stream>>>((double *)s->x, s->n);
    else
        chain_init<float><<<G.fill_blocks, THREADS, 0, G.stream>>>((float *)s->x, s->n);
    CUDA_CHECK(cudaGetLastError(), why, whylen);
    CUDA_CHECK(cudaStreamSynchronize(G.stream), why, whylen);
    return PREC_OK;
fail:
    return PREC_ERROR;
}

static double gpu_sweep_run(struct prec_sweep *s, long k, long iters)
{
    struct gpu_sweep *w = (struct gpu_sweep *)s->impl;
    double *h = (double *)malloc((size_t)w->blocks * sizeof *h), m = 1.0, t = NAN;
    char err[320];
    s->sum = NAN;
    if (!h)
        return NAN;
    CUDA_CHECK(cudaEventRecord(G.e0, G.stream), err, sizeof err);
    for (long it = 0; it < iters; it++) {
        if (s->fmt == PREC_FP64)
            chain_kernel<double><<<w->blocks, THREADS, 0, G.stream>>>((const double *)s->x, s->n, k, m, PREC_CHAIN_ADD, w->partial);
        else
            chain_kernel<float><<<w->blocks, THREADS, 0, G.stream>>>((const float *)s->x, s->n, k, (float)m,
                                                                     (float)PREC_CHAIN_ADD, w->partial);
        CUDA_CHECK(cudaGetLastError(), err, sizeof err);
    }
    CUDA_CHECK(cudaEventRecord(G.e1, G.stream), err, sizeof err);
    t = elapsed(err, sizeof err);
    CUDA_CHECK(cudaMemcpy(h, w->partial, (size_t)w->blocks * sizeof *h, cudaMemcpyDeviceToHost), err, sizeof err);
    s->sum = 0;
    for (int b = 0; b < w->blocks; b++)
        s->sum += h[b];
    free(h);
    return t;
fail:
    free(h);
    return NAN;
}

static void gpu_sweep_release(struct prec_sweep *s)
{
    struct gpu_sweep *w = (struct gpu_sweep *)s->impl;
    if (w)
        cudaFree(w->partial);
    free(w);
    cudaFree(s->x);
    cudaGetLastError();
    s->x = s->impl = NULL;
}

/* ---- agreement with CUDA's own conversions (host code: no device needed) ------------------- */

/* Rounds every 4099th float (and its negation's neighbours, since the stride is odd) through
 * precision_math.h and through cuda_bf16/fp16/fp8/fp4.h; returns how many codes differ and
 * describes the first. What the kernels write must be what cuBLASLt reads. */
extern "C" long prec_cuda_formats_agree(char *why, size_t whylen)
{
    static const char *const names[4] = { "bf16", "fp16", "e4m3", "e2m1" };
    long bad = 0, n = 0;
    why[0] = '\0';
    for (uint64_t i = 0; i < (1ull << 32); i += 4099, n++) {
        uint32_t u = (uint32_t)i;
        float f;
        memcpy(&f, &u, sizeof f);
        if (!isfinite(f))
            continue;
        __nv_bfloat16_raw b = __float2bfloat16(f);
        __half_raw h = __float2half(f);
        unsigned ours[4] = { prec_bf16_bits(f), prec_fp16_bits(f), prec_e4m3_bits(f), prec_e2m1_bits(f) };
        unsigned theirs[4] = { b.x, h.x, __nv_cvt_double_to_fp8(f, __NV_SATFINITE, __NV_E4M3),
                               __nv_cvt_double_to_fp4(f, __NV_E2M1, cudaRoundNearest) };
        for (int k = 0; k < 4; k++) {
            if (ours[k] == theirs[k])
                continue;
            if (bad++ == 0)
                snprintf(why, whylen, "%s of %.9g: ours 0x%x, CUDA's 0x%x", names[k],
                         (double)f, ours[k], theirs[k]);
        }
    }
    if (!bad)
        snprintf(why, whylen, "%ld values agree in BF16, FP16, E4M3 and E2M1", n);
    return bad;
}

/* ---- the cost of a launch ---------------------------------------------------------------------- */

__global__ void empty_kernel(void) {}

/* The launches are checked once after the loop (a failed launch's error stays until read): a
 * check per launch would be part of what is timed. */
static double gpu_launches(int threads, long n, char *why, size_t whylen)
{
    (void)threads;
    CUDA_CHECK(cudaEventRecord(G.e0, G.stream), why, whylen);
    for (long i = 0; i < n; i++)
        empty_kernel<<<1, 1, 0, G.stream>>>();
    CUDA_CHECK(cudaGetLastError(), why, whylen);
    CUDA_CHECK(cudaEventRecord(G.e1, G.stream), why, whylen);
    return elapsed(why, whylen);
fail:
    return NAN;
}

extern "C" const struct prec_ops prec_gpu_ops = {
    "gpu",
    (1u << PREC_NFMT) - 1,              /* every format; cuBLASLt says which it has */
    1,
    "kernel_launch",
    gpu_launches,
    gpu_gemm_setup,
    gpu_gemm_run,
    gpu_gemm_fetch,
    gpu_gemm_release,
    gpu_sweep_setup,
    gpu_sweep_run,
    gpu_sweep_release,
    prec_gpu_select,
};
