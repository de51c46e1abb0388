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
    cublasLtHandle_t lt;
    void *workspace;
    int sms;
    char desc[320];                     /* "NVIDIA H200, sm_90" */
} G;

/* Failing calls return from the enclosing function with a message naming the file, the line
 * and the expression; a cuBLASLt "not supported" becomes PREC_UNSUPPORTED. */
#define CU(expr)                                                                            \
    do {                                                                                    \
        cudaError_t e_ = (expr);                                                            \
        if (e_ != cudaSuccess) {                                                            \
            snprintf(why, whylen, "%s:%d: %s: %s", __FILE__, __LINE__, #expr, cudaGetErrorString(e_)); \
            cudaGetLastError();                                                             \
            return PREC_ERROR;                                                              \
        }                                                                                   \
    } while (0)
#define LT(expr)                                                                            \
    do {                                                                                    \
        cublasStatus_t s_ = (expr);                                                         \
        if (s_ != CUBLAS_STATUS_SUCCESS)                                                    \
            return lt_fail(s_, #expr, __LINE__, why, whylen);                               \
    } while (0)

static int lt_fail(cublasStatus_t s, const char *expr, int line, char *why, size_t whylen)
{
    if (s == CUBLAS_STATUS_NOT_SUPPORTED) {
        snprintf(why, whylen, "unsupported on this device (%s): cuBLASLt answered %s to %.60s", G.desc,
                 cublasLtGetStatusName(s), expr);
        return PREC_UNSUPPORTED;
    }
    snprintf(why, whylen, "%s:%d: %s: %s", __FILE__, line, expr, cublasLtGetStatusName(s));
    return PREC_ERROR;
}

extern "C" int prec_gpu_select(int dev, char *why, size_t whylen)
{
    cudaDeviceProp p;
    if (G.ready)
        return 0;
    CU(cudaSetDevice(dev));
    CU(cudaGetDeviceProperties(&p, dev));
    snprintf(G.desc, sizeof G.desc, "%s, sm_%d%d", p.name, p.major, p.minor);
    G.sms = p.multiProcessorCount;
    CU(cudaStreamCreateWithFlags(&G.stream, cudaStreamNonBlocking));
    CU(cudaEventCreate(&G.e0));
    CU(cudaEventCreate(&G.e1));
    CU(cudaMalloc(&G.workspace, WORKSPACE));
    LT(cublasLtCreate(&G.lt));
    G.ready = 1;
    return 0;
}

/* Seconds between the two events after the stream has run to e1. */
static double elapsed(void)
{
    float ms = 0;
    if (cudaEventSynchronize(G.e1) != cudaSuccess || cudaEventElapsedTime(&ms, G.e0, G.e1) != cudaSuccess) {
        cudaGetLastError();
        return NAN;
    }
    return ms / 1e3;
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
        case PREC_FP8: ((uint8_t *)p)[i] = prec_e4m3_bits(x * PREC_FP8_SCALE); break;
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

static int grid_for(size_t work)
{
    size_t blocks = (work + THREADS - 1) / THREADS, cap = (size_t)G.sms * 16;
    return (int)(blocks < cap ? (blocks ? blocks : 1) : cap);
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
    { CUDA_R_4F_E2M1, CUDA_R_16BF, CUBLAS_COMPUTE_32F, CUDA_R_32F, SC_VEC16, 0.5, 2 },          /* nvfp4 */
    { CUDA_R_4F_E2M1, CUDA_R_16BF, CUBLAS_COMPUTE_32F, CUDA_R_32F, SC_VEC32, 0.5, 2 },          /* mxfp4 */
};

struct lt_gemm {
    cublasLtMatmulDesc_t op;
    cublasLtMatrixLayout_t la, lb, lc;
    cublasLtMatmulAlgo_t algo;
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

static cublasStatus_t matmul(struct prec_gemm *g, struct lt_gemm *l, const cublasLtMatmulAlgo_t *algo)
{
    return cublasLtMatmul(G.lt, l->op, alpha_of(g, l), g->a, l->la, g->b, l->lb, beta_of(g, l), g->d, l->lc,
                          g->d, l->lc, algo, G.workspace, WORKSPACE, G.stream);
}

/* Operands on the device: A (k x m) and B (k x n) from the generator, D zeroed, scales. */
static int gemm_alloc(struct prec_gemm *g, struct lt_gemm *l, char *why, size_t whylen)
{
    const struct lt_fmt *t = &lt_fmts[g->fmt];
    size_t m = (size_t)g->m, n = (size_t)g->n, k = (size_t)g->k;
    CU(cudaMalloc(&g->a, (size_t)ceil((double)(k * m) * t->ab_bytes)));
    CU(cudaMalloc(&g->b, (size_t)ceil((double)(k * n) * t->ab_bytes)));
    CU(cudaMalloc(&g->d, (size_t)((double)(m * n) * t->cd_bytes)));
    CU(cudaMemsetAsync(g->d, 0, (size_t)((double)(m * n) * t->cd_bytes), G.stream));
    if (t->scaling == SC_VEC16 || t->scaling == SC_VEC32) {
        int mx = t->scaling == SC_VEC32;
        size_t nkb = k / (mx ? 32 : 16), ba = prec_scale_bytes(m, nkb), bb = prec_scale_bytes(n, nkb);
        CU(cudaMalloc(&l->sa, ba));
        CU(cudaMalloc(&l->sb, bb));
        CU(cudaMemsetAsync(l->sa, 0, ba, G.stream));
        CU(cudaMemsetAsync(l->sb, 0, bb, G.stream));
        fill_fp4_kernel<<<grid_for(m * nkb), THREADS, 0, G.stream>>>((uint8_t *)g->a, (uint8_t *)l->sa, mx, g->seed_a, m, k);
        CU(cudaGetLastError());
        fill_fp4_kernel<<<grid_for(n * nkb), THREADS, 0, G.stream>>>((uint8_t *)g->b, (uint8_t *)l->sb, mx, g->seed_b, n, k);
        CU(cudaGetLastError());
    } else {
        fill_kernel<<<grid_for(k * m), THREADS, 0, G.stream>>>(g->a, g->fmt, g->seed_a, k * m);
        CU(cudaGetLastError());
        fill_kernel<<<grid_for(k * n), THREADS, 0, G.stream>>>(g->b, g->fmt, g->seed_b, k * n);
        CU(cudaGetLastError());
    }
    if (t->scaling == SC_TENSOR) {
        float inv = (float)(1.0 / PREC_FP8_SCALE);
        CU(cudaMalloc(&l->sa, sizeof inv));
        CU(cudaMalloc(&l->sb, sizeof inv));
        CU(cudaMemcpyAsync(l->sa, &inv, sizeof inv, cudaMemcpyHostToDevice, G.stream));
        CU(cudaMemcpyAsync(l->sb, &inv, sizeof inv, cudaMemcpyHostToDevice, G.stream));
    }
    CU(cudaStreamSynchronize(G.stream));
    return PREC_OK;
}

/* The operation and layouts: D = alpha op(A) B with op(A) = A^T ("TN", which FP8 and FP4 need). */
static int gemm_describe(struct prec_gemm *g, struct lt_gemm *l, char *why, size_t whylen)
{
    const struct lt_fmt *t = &lt_fmts[g->fmt];
    cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
    LT(cublasLtMatmulDescCreate(&l->op, t->compute, t->scale));
    LT(cublasLtMatmulDescSetAttribute(l->op, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta));
    LT(cublasLtMatmulDescSetAttribute(l->op, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb));
    if (t->scaling == SC_VEC16 || t->scaling == SC_VEC32) {
        cublasLtMatmulMatrixScale_t mode = t->scaling == SC_VEC16 ? CUBLASLT_MATMUL_MATRIX_SCALE_VEC16_UE4M3
                                                                  : CUBLASLT_MATMUL_MATRIX_SCALE_VEC32_UE8M0;
        LT(cublasLtMatmulDescSetAttribute(l->op, CUBLASLT_MATMUL_DESC_A_SCALE_MODE, &mode, sizeof mode));
        LT(cublasLtMatmulDescSetAttribute(l->op, CUBLASLT_MATMUL_DESC_B_SCALE_MODE, &mode, sizeof mode));
    }
    if (t->scaling != SC_NONE) {
        LT(cublasLtMatmulDescSetAttribute(l->op, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &l->sa, sizeof l->sa));
        LT(cublasLtMatmulDescSetAttribute(l->op, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &l->sb, sizeof l->sb));
    }
    LT(cublasLtMatrixLayoutCreate(&l->la, t->ab, (uint64_t)g->k, (uint64_t)g->m, g->k));
    LT(cublasLtMatrixLayoutCreate(&l->lb, t->ab, (uint64_t)g->k, (uint64_t)g->n, g->k));
    LT(cublasLtMatrixLayoutCreate(&l->lc, t->cd, (uint64_t)g->m, (uint64_t)g->n, g->m));
    double alpha = t->scaling == SC_VEC16 ? 1.0 / (PREC_NVFP4_GLOBAL * PREC_NVFP4_GLOBAL) : 1.0;
    l->alpha64 = alpha;
    l->alpha32 = (float)alpha;
    l->alpha16 = prec_fp16_bits(alpha);
    return PREC_OK;
}

static double time_algo(struct prec_gemm *g, struct lt_gemm *l, const cublasLtMatmulAlgo_t *algo, int reps)
{
    cudaEventRecord(G.e0, G.stream);
    for (int i = 0; i < reps; i++)
        if (matmul(g, l, algo) != CUBLAS_STATUS_SUCCESS)
            return INFINITY;
    cudaEventRecord(G.e1, G.stream);
    return elapsed() / reps;
}

/* The heuristic's candidates, in its order; the fastest of the first CANDIDATES that run. */
static int gemm_choose(struct prec_gemm *g, struct lt_gemm *l, char *why, size_t whylen)
{
    cublasLtMatmulPreference_t pref;
    cublasLtMatmulHeuristicResult_t res[HEURISTICS];
    int found = 0, ran = 0, best = -1;
    double best_t = INFINITY;
    size_t ws = WORKSPACE;
    LT(cublasLtMatmulPreferenceCreate(&pref));
    cublasStatus_t s = cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws);
    if (s == CUBLAS_STATUS_SUCCESS)
        s = cublasLtMatmulAlgoGetHeuristic(G.lt, l->op, l->la, l->lb, l->lc, l->lc, pref, HEURISTICS, res, &found);
    cublasLtMatmulPreferenceDestroy(pref);
    LT(s);
    if (found == 0)
        return lt_fail(CUBLAS_STATUS_NOT_SUPPORTED, "cublasLtMatmulAlgoGetHeuristic (no algorithm)", __LINE__, why, whylen);
    for (int i = 0; i < found && ran < CANDIDATES; i++) {
        if (res[i].state != CUBLAS_STATUS_SUCCESS || matmul(g, l, &res[i].algo) != CUBLAS_STATUS_SUCCESS)
            continue;
        ran++;
        double t = time_algo(g, l, &res[i].algo, 2);
        if (t < best_t)
            best_t = t, best = i;
    }
    if (best < 0)
        return lt_fail(CUBLAS_STATUS_NOT_SUPPORTED, "cublasLtMatmul (no candidate ran)", __LINE__, why, whylen);
    l->algo = res[best].algo;
    int id = -1;
    uint32_t tile = 0;
    size_t wr;
    cublasLtMatmulAlgoConfigGetAttribute(&l->algo, CUBLASLT_ALGO_CONFIG_ID, &id, sizeof id, &wr);
    cublasLtMatmulAlgoConfigGetAttribute(&l->algo, CUBLASLT_ALGO_CONFIG_TILE_ID, &tile, sizeof tile, &wr);
    snprintf(g->algo, sizeof g->algo, "cuBLASLt algo %d tile %u (heuristic %d of %d, fastest of %d)",
             id, tile, best + 1, found, ran);
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
    cudaEventRecord(G.e0, G.stream);
    for (long i = 0; i < iters; i++)
        if (matmul(g, l, &l->algo) != CUBLAS_STATUS_SUCCESS)
            return NAN;
    cudaEventRecord(G.e1, G.stream);
    return elapsed();
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
    int rc = h ? 0 : -1;
    if (h && !idx)
        rc = cudaMemcpy(h, g->d, (size_t)count * es, cudaMemcpyDeviceToHost) == cudaSuccess ? 0 : -1;
    for (int i = 0; h && idx && i < count && rc == 0; i++)
        rc = cudaMemcpy(h + (size_t)i * es, (const unsigned char *)g->d + idx[i] * es, es, cudaMemcpyDeviceToHost) == cudaSuccess ? 0 : -1;
    for (int i = 0; rc == 0 && i < count; i++)
        out[i] = d_value(g->fmt, h + (size_t)i * es);
    cudaGetLastError();
    free(h);
    return rc;
}

static void gpu_gemm_release(struct prec_gemm *g)
{
    struct lt_gemm *l = (struct lt_gemm *)g->impl;
    if (l) {
        if (l->la) cublasLtMatrixLayoutDestroy(l->la);
        if (l->lb) cublasLtMatrixLayoutDestroy(l->lb);
        if (l->lc) cublasLtMatrixLayoutDestroy(l->lc);
        if (l->op) cublasLtMatmulDescDestroy(l->op);
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
    w->blocks = G.sms * 8;
    CU(cudaMalloc(&w->partial, (size_t)w->blocks * sizeof(double)));
    CU(cudaMalloc(&s->x, s->n * (s->fmt == PREC_FP64 ? 8 : 4)));
    if (s->fmt == PREC_FP64)
        chain_init<double><<<grid_for(s->n), THREADS, 0, G.stream>>>((double *)s->x, s->n);
    else
        chain_init<float><<<grid_for(s->n), THREADS, 0, G.stream>>>((float *)s->x, s->n);
    CU(cudaGetLastError());
    CU(cudaStreamSynchronize(G.stream));
    return PREC_OK;
}

static double gpu_sweep_run(struct prec_sweep *s, long k, long iters)
{
    struct gpu_sweep *w = (struct gpu_sweep *)s->impl;
    double *h = (double *)malloc((size_t)w->blocks * sizeof *h), m = 1.0;
    cudaEventRecord(G.e0, G.stream);
    for (long it = 0; it < iters; it++) {
        if (s->fmt == PREC_FP64)
            chain_kernel<double><<<w->blocks, THREADS, 0, G.stream>>>((const double *)s->x, s->n, k, m, PREC_CHAIN_ADD, w->partial);
        else
            chain_kernel<float><<<w->blocks, THREADS, 0, G.stream>>>((const float *)s->x, s->n, k, (float)m,
                                                                     (float)PREC_CHAIN_ADD, w->partial);
    }
    cudaEventRecord(G.e1, G.stream);
    double t = cudaGetLastError() == cudaSuccess ? elapsed() : NAN;
    s->sum = NAN;
    if (h && cudaMemcpy(h, w->partial, (size_t)w->blocks * sizeof *h, cudaMemcpyDeviceToHost) == cudaSuccess) {
        s->sum = 0;
        for (int b = 0; b < w->blocks; b++)
            s->sum += h[b];
    }
    free(h);
    return t;
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

static double gpu_launches(int threads, long n, char *why, size_t whylen)
{
    (void)threads;
    cudaEventRecord(G.e0, G.stream);
    for (long i = 0; i < n; i++)
        empty_kernel<<<1, 1, 0, G.stream>>>();
    cudaEventRecord(G.e1, G.stream);
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) {
        snprintf(why, whylen, "empty kernel launch: %s", cudaGetErrorString(e));
        return NAN;
    }
    return elapsed();
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
