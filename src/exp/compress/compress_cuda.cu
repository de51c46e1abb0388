/* compress_cuda.cu: the CUDA backend of the compression family (compress_cuda_ops): the same products
 * as compress_cpu.c, one warp per row, each lane decoding eight weights at a time with the
 * SR_HD decoders of quant_math.h (the ones the CPU tests check bit by bit) and keeping one
 * accumulator per vector of the batch; CSR and 2:4 gather x by column. The matrix is packed
 * on the host (quant.c) and copied to device memory once; times come from CUDA events.
 * Checking, timing rules and records are compress.c's. */
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

#include "cuda/cuda.h"
#include "cuda/cuda_check.h"
#include "cuda/block_sum.cuh"
#include "exp/compress/quant.h"

#define BLOCK 256                   /* threads per block: eight warps, eight rows at a time */
#define WARPS (BLOCK / 32)

/* ---- decoders: eight weights of row r from column c (c a multiple of 8) ---- */

template <int S> __device__ void decode8(const struct quant_matrix &m, size_t r, size_t c, float *w);

template <> __device__ void decode8<QUANT_FP32>(const struct quant_matrix &m, size_t r, size_t c, float *w)
{
    const float4 *p = (const float4 *)((const float *)m.vals + r * m.cols + c);
    float4 a = __ldg(p), b = __ldg(p + 1);
    w[0] = a.x, w[1] = a.y, w[2] = a.z, w[3] = a.w, w[4] = b.x, w[5] = b.y, w[6] = b.z, w[7] = b.w;
}

template <> __device__ void decode8<QUANT_BF16>(const struct quant_matrix &m, size_t r, size_t c, float *w)
{
    uint4 u = __ldg((const uint4 *)((const uint16_t *)m.vals + r * m.cols + c));
    const uint32_t v[4] = { u.x, u.y, u.z, u.w };
    for (int j = 0; j < 4; j++) {
        w[2 * j] = quant_bf16_value((uint16_t)(v[j] & 0xffffu));
        w[2 * j + 1] = quant_bf16_value((uint16_t)(v[j] >> 16));
    }
}

template <> __device__ void decode8<QUANT_INT8>(const struct quant_matrix &m, size_t r, size_t c, float *w)
{
    uint2 u = __ldg((const uint2 *)((const int8_t *)m.vals + r * m.cols + c));
    float s = __ldg((const float *)m.scales + r);
    for (int j = 0; j < 8; j++)
        w[j] = (float)(int8_t)(((j < 4 ? u.x : u.y) >> (8 * (j & 3))) & 0xffu) * s;
}

template <> __device__ void decode8<QUANT_FP8>(const struct quant_matrix &m, size_t r, size_t c, float *w)
{
    uint2 u = __ldg((const uint2 *)((const uint8_t *)m.vals + r * m.cols + c));
    for (int j = 0; j < 8; j++)
        w[j] = quant_e4m3_value((uint8_t)(((j < 4 ? u.x : u.y) >> (8 * (j & 3))) & 0xffu)) * m.tensor_scale;
}

template <int G> __device__ void decode8_int4(const struct quant_matrix &m, size_t r, size_t c, float *w)
{
    size_t i = r * m.cols + c;
    uint32_t u = __ldg((const uint32_t *)((const uint8_t *)m.vals + i / 2));
    float s = quant_fp16_value(__ldg((const unsigned short *)m.scales + i / G));
    for (int j = 0; j < 4; j++) {
        uint8_t byte = (uint8_t)(u >> (8 * j));
        w[2 * j] = (float)quant_nibble_s4(byte, 0) * s;
        w[2 * j + 1] = (float)quant_nibble_s4(byte, 1) * s;
    }
}
template <> __device__ void decode8<QUANT_INT4_G32>(const struct quant_matrix &m, size_t r, size_t c, float *w)
{
    decode8_int4<32>(m, r, c, w);
}
template <> __device__ void decode8<QUANT_INT4_G128>(const struct quant_matrix &m, size_t r, size_t c, float *w)
{
    decode8_int4<128>(m, r, c, w);
}

/* E2M1 pairs times the block's scale d: (2 x value) x (d / 2), both exact, as on the CPU. */
__device__ void decode8_fp4(uint32_t u, float d, float *w)
{
    float h = 0.5f * d;
    for (int j = 0; j < 4; j++) {
        w[2 * j] = (float)quant_e2m1_twice((u >> (8 * j)) & 0xfu) * h;
        w[2 * j + 1] = (float)quant_e2m1_twice((u >> (8 * j + 4)) & 0xfu) * h;
    }
}
template <> __device__ void decode8<QUANT_NVFP4>(const struct quant_matrix &m, size_t r, size_t c, float *w)
{
    size_t i = r * m.cols + c;
    uint32_t u = __ldg((const uint32_t *)((const uint8_t *)m.vals + i / 2));
    decode8_fp4(u, quant_e4m3_value(__ldg((const uint8_t *)m.scales + i / 16)) * m.tensor_scale, w);
}
template <> __device__ void decode8<QUANT_MXFP4>(const struct quant_matrix &m, size_t r, size_t c, float *w)
{
    size_t i = r * m.cols + c;
    uint32_t u = __ldg((const uint32_t *)((const uint8_t *)m.vals + i / 2));
    decode8_fp4(u, quant_e8m0_value(__ldg((const uint8_t *)m.scales + i / 32)), w);
}

/* ---- kernels: one warp per row, rows striding over the grid's warps ---- */

__device__ void warp_store(float *acc, float *y, size_t rows, size_t r, int batch)
{
    for (int b = 0; b < QUANT_MAX_BATCH; b++) {
        float s = acc[b];
        for (int o = 16; o > 0; o /= 2)
            s += __shfl_down_sync(0xffffffffu, s, o);
        if ((threadIdx.x & 31) == 0 && b < batch)
            y[(size_t)b * rows + r] = s;
    }
}

template <int S>
__global__ void gemv_dense(struct quant_matrix m, const float *__restrict__ x, float *__restrict__ y, int batch)
{
    const size_t warp = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x & 31;
    const size_t nwarps = (size_t)gridDim.x * blockDim.x / 32;
    for (size_t r = warp; r < m.rows; r += nwarps) {
        float acc[QUANT_MAX_BATCH] = { 0 };
        for (size_t c = 8 * lane; c < m.cols; c += 8 * 32) {
            float w[8];
            decode8<S>(m, r, c, w);
            for (int b = 0; b < QUANT_MAX_BATCH; b++) {
                if (b >= batch)
                    break;
                const float *xb = x + (size_t)b * m.cols + c;
                for (int j = 0; j < 8; j++)
                    acc[b] = fmaf(w[j], __ldg(xb + j), acc[b]);
            }
        }
        warp_store(acc, y, m.rows, r, batch);
    }
}

/* CSR (rowptr, 16-bit columns) and 2:4 (2-bit positions): BF16 values, x gathered by column. */
template <int S>
__global__ void gemv_sparse(struct quant_matrix m, const float *__restrict__ x, float *__restrict__ y, int batch)
{
    const size_t warp = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x & 31;
    const size_t nwarps = (size_t)gridDim.x * blockDim.x / 32;
    const uint16_t *v = (const uint16_t *)m.vals;
    for (size_t r = warp; r < m.rows; r += nwarps) {
        float acc[QUANT_MAX_BATCH] = { 0 };
        size_t first = S == QUANT_CSR ? m.rowptr[r] : r * m.kept;
        size_t n = S == QUANT_CSR ? m.rowptr[r + 1] - first : m.kept;
        for (size_t k = lane; k < n; k += 32) {
            float w = quant_bf16_value(__ldg(v + first + k));
            size_t col = S == QUANT_CSR
                ? __ldg((const unsigned short *)m.idx + first + k)
                : 4 * (k / 2) + ((__ldg((const uint8_t *)m.idx + (first + k) / 4) >> (2 * (k % 4))) & 3u);
            for (int b = 0; b < QUANT_MAX_BATCH; b++) {
                if (b >= batch)
                    break;
                acc[b] = fmaf(w, __ldg(x + (size_t)b * m.cols + col), acc[b]);
            }
        }
        warp_store(acc, y, m.rows, r, batch);
    }
}

/* The plain read: each thread sums its float4s in FP32, the block adds them in FP64. */
__global__ void read_sum(const float *__restrict__ a, size_t n, double *partial)
{
    __shared__ double sums[BLOCK];
    const size_t stride = (size_t)gridDim.x * blockDim.x, first = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    const float4 *av = (const float4 *)a;
    float t = 0;
    for (size_t i = first; i < n / 4; i += stride) {
        float4 q = __ldg(av + i);
        t += (q.x + q.y) + (q.z + q.w);
    }
    for (size_t i = n / 4 * 4 + first; i < n; i += stride)
        t += a[i];
    block_sum_store(sums, t, partial);
}

typedef void (*gemv_kernel)(struct quant_matrix, const float *, float *, int);
static const gemv_kernel kernels[QUANT_N] = {
    gemv_dense<QUANT_FP32>, gemv_dense<QUANT_BF16>, gemv_dense<QUANT_INT8>, gemv_dense<QUANT_FP8>,
    gemv_dense<QUANT_INT4_G32>, gemv_dense<QUANT_INT4_G128>, gemv_dense<QUANT_NVFP4>, gemv_dense<QUANT_MXFP4>,
    gemv_sparse<QUANT_CSR>, gemv_sparse<QUANT_24>,
};

/* ---- agreement with CUDA's own conversions (host code: no device needed) ------------------- */

static void disagree(long *bad, char *why, size_t whylen, const char *what, double v, unsigned ours, unsigned theirs)
{
    if ((*bad)++ == 0)
        snprintf(why, whylen, "%s of %.9g: ours 0x%x, CUDA's 0x%x", what, v, ours, theirs);
}

/* Encoders on every 4099th finite float, decoders on every code, the MX exponent on every
 * 4099th positive normal: quant_math.h against cuda_bf16/fp16/fp8/fp4.h. What the packers
 * write is what CUDA's formats mean. Returns how many differ; why describes the first. */
extern "C" long compress_cuda_formats_agree(char *why, size_t whylen)
{
    long bad = 0, n = 0;
    for (uint64_t i = 0; i < (1ull << 32); i += 4099, n++) {
        float f = quant_float((uint32_t)i);
        if (!isfinite(f))
            continue;
        __nv_bfloat16_raw b = __float2bfloat16(f);
        __half_raw h = __float2half(f);
        unsigned e4 = __nv_cvt_float_to_fp8(f, __NV_SATFINITE, __NV_E4M3);
        unsigned e2 = __nv_cvt_float_to_fp4(f, __NV_E2M1, cudaRoundNearest);
        if (quant_bf16_bits(f) != b.x) disagree(&bad, why, whylen, "bf16", f, quant_bf16_bits(f), b.x);
        if (quant_fp16_bits(f) != h.x) disagree(&bad, why, whylen, "fp16", f, quant_fp16_bits(f), h.x);
        if (quant_e4m3_bits(f) != e4) disagree(&bad, why, whylen, "e4m3", f, quant_e4m3_bits(f), e4);
        if (quant_e2m1_bits(f) != e2) disagree(&bad, why, whylen, "e2m1", f, quant_e2m1_bits(f), e2);
        if (f > 0 && (quant_bits(f) >> 23) != 0) {
            unsigned mx = __nv_cvt_float_to_e8m0(f, __NV_SATFINITE, cudaRoundZero);
            if (quant_e8m0_for(f, 0) != mx) disagree(&bad, why, whylen, "e8m0 exponent", f, quant_e8m0_for(f, 0), mx);
        }
    }
    for (unsigned c = 0; c < 65536; c++) {
        __half_raw h;
        h.x = (unsigned short)c;
        float want = __half2float(__half(h)), got = quant_fp16_value((uint16_t)c);
        if (!(got == want || (isnan(got) && isnan(want)))) disagree(&bad, why, whylen, "fp16 code", c, quant_bits(got), quant_bits(want));
    }
    for (unsigned c = 0; c < 256; c++) {
        __half_raw h = __nv_cvt_fp8_to_halfraw((__nv_fp8_storage_t)c, __NV_E4M3);
        __nv_bfloat16_raw e = __nv_cvt_e8m0_to_bf16raw((__nv_fp8_storage_t)c);
        float want = __half2float(__half(h)), got = quant_e4m3_value((uint8_t)c);
        float mwant = __bfloat162float(__nv_bfloat16(e)), mgot = quant_e8m0_value((uint8_t)c);
        if (!(got == want || (isnan(got) && isnan(want)))) disagree(&bad, why, whylen, "e4m3 code", c, quant_bits(got), quant_bits(want));
        if (!(mgot == mwant || (isnan(mgot) && isnan(mwant)))) disagree(&bad, why, whylen, "e8m0 code", c, quant_bits(mgot), quant_bits(mwant));
        if (c < 16) {
            __half_raw q = __nv_cvt_fp4_to_halfraw((__nv_fp4_storage_t)c, __NV_E2M1);
            float qw = __half2float(__half(q)), qg = quant_e2m1_value((uint8_t)c);
            if (qg != qw) disagree(&bad, why, whylen, "e2m1 code", c, quant_bits(qg), quant_bits(qw));
        }
    }
    if (!bad)
        snprintf(why, whylen, "%ld floats and every code agree in BF16, FP16, E4M3, E2M1 and E8M0", n);
    return bad;
}

/* ---- the ops ---- */

struct gpu_h {
    struct quant_matrix dm;         /* the matrix with device pointers */
    float *x, *y;                   /* device: QUANT_MAX_BATCH x cols, QUANT_MAX_BATCH x rows */
    double *partial, *partial_h;    /* read: one sum per block */
    int grid, read_grid;
    cudaEvent_t start, stop;
    char isa[32];
    char err[256];                  /* why the last product or read failed */
};

static int copy_array(void **dst, const void *src, size_t bytes, char *err, size_t errlen)
{
    *dst = NULL;
    if (!bytes)
        return 0;
    CUDA_CHECK(cudaMalloc(dst, bytes), err, errlen);
    CUDA_CHECK(cudaMemcpy(*dst, src, bytes, cudaMemcpyHostToDevice), err, errlen);
    return 0;
fail:
    return -1;
}

extern "C" {

static void gpu_close(void *hp)
{
    struct gpu_h *h = (struct gpu_h *)hp;
    if (!h)
        return;
    cudaFree(h->dm.vals);
    cudaFree(h->dm.scales);
    cudaFree(h->dm.idx);
    cudaFree(h->dm.rowptr);
    cudaFree(h->x);
    cudaFree(h->y);
    cudaFree(h->partial);
    free(h->partial_h);
    if (h->start)
        cudaEventDestroy(h->start);
    if (h->stop)
        cudaEventDestroy(h->stop);
    cudaGetLastError();
    free(h);
}

static void *gpu_open(const struct quant_matrix *m, int threads, char *err, size_t errlen)
{
    struct gpu_h *h = (struct gpu_h *)calloc(1, sizeof *h);
    cudaDeviceProp p;
    (void)threads;
    if (!h) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    if (cuda_use_device(err, errlen) != 0)
        goto fail;
    h->dm = *m;
    h->dm.vals = h->dm.scales = h->dm.idx = NULL;
    h->dm.rowptr = NULL;
    if (copy_array(&h->dm.vals, m->vals, m->bytes[0], err, errlen) || copy_array(&h->dm.scales, m->scales, m->bytes[1], err, errlen)
        || copy_array(&h->dm.idx, m->idx, m->bytes[2], err, errlen)
        || copy_array((void **)&h->dm.rowptr, m->rowptr, m->bytes[3], err, errlen))
        goto fail;
    CUDA_CHECK(cudaMalloc(&h->x, QUANT_MAX_BATCH * m->cols * sizeof(float)), err, errlen);
    CUDA_CHECK(cudaMalloc(&h->y, QUANT_MAX_BATCH * m->rows * sizeof(float)), err, errlen);
    CUDA_CHECK(cudaEventCreate(&h->start), err, errlen);
    CUDA_CHECK(cudaEventCreate(&h->stop), err, errlen);
    if (cuda_full_grid((const void *)kernels[m->id], BLOCK, &h->grid, err, errlen)
        || cuda_full_grid((const void *)read_sum, BLOCK, &h->read_grid, err, errlen))
        goto fail;
    CUDA_CHECK(cudaMalloc(&h->partial, (size_t)h->read_grid * sizeof(double)), err, errlen);
    h->partial_h = (double *)calloc((size_t)h->read_grid, sizeof(double));
    CUDA_CHECK(cudaGetDeviceProperties(&p, CUDA_DEVICE), err, errlen);
    snprintf(h->isa, sizeof h->isa, "cuda sm_%d%d", p.major, p.minor);
    return h;
fail:
    gpu_close(h);
    return NULL;
}

/* Seconds between two events around `launch` (called iters times); negative on failure. */
static double gpu_gemv(void *hp, const float *x, float *y, int batch, long iters)
{
    struct gpu_h *h = (struct gpu_h *)hp;
    float ms = 0;
    char *err = h->err;
    if (batch < 1 || batch > QUANT_MAX_BATCH)
        return -1;
    CUDA_CHECK(cudaMemcpy(h->x, x, (size_t)batch * h->dm.cols * sizeof(float), cudaMemcpyHostToDevice), err, sizeof h->err);
    CUDA_CHECK(cudaEventRecord(h->start), err, sizeof h->err);
    for (long it = 0; it < iters; it++) {
        kernels[h->dm.id]<<<h->grid, BLOCK>>>(h->dm, h->x, h->y, batch);
        CUDA_CHECK(cudaGetLastError(), err, sizeof h->err);
    }
    CUDA_CHECK(cudaEventRecord(h->stop), err, sizeof h->err);
    CUDA_CHECK(cudaEventSynchronize(h->stop), err, sizeof h->err);
    CUDA_CHECK(cudaEventElapsedTime(&ms, h->start, h->stop), err, sizeof h->err);
    CUDA_CHECK(cudaMemcpy(y, h->y, (size_t)batch * h->dm.rows * sizeof(float), cudaMemcpyDeviceToHost), err, sizeof h->err);
    return ms * 1e-3;
fail:
    return -1;
}

static double gpu_read(void *hp, long iters, double *sum)
{
    struct gpu_h *h = (struct gpu_h *)hp;
    float ms = 0;
    char *err = h->err;
    if (h->dm.id != QUANT_FP32)
        return -1;
    CUDA_CHECK(cudaEventRecord(h->start), err, sizeof h->err);
    for (long it = 0; it < iters; it++) {
        read_sum<<<h->read_grid, BLOCK>>>((const float *)h->dm.vals, h->dm.rows * h->dm.cols, h->partial);
        CUDA_CHECK(cudaGetLastError(), err, sizeof h->err);
    }
    CUDA_CHECK(cudaEventRecord(h->stop), err, sizeof h->err);
    CUDA_CHECK(cudaEventSynchronize(h->stop), err, sizeof h->err);
    CUDA_CHECK(cudaEventElapsedTime(&ms, h->start, h->stop), err, sizeof h->err);
    CUDA_CHECK(cudaMemcpy(h->partial_h, h->partial, (size_t)h->read_grid * sizeof(double), cudaMemcpyDeviceToHost),
               err, sizeof h->err);
    *sum = 0;
    for (int i = 0; i < h->read_grid; i++)
        *sum += h->partial_h[i];
    return ms * 1e-3;
fail:
    return -1;
}

static const char *gpu_isa(void *hp) { return ((struct gpu_h *)hp)->isa; }

const struct compress_ops compress_cuda_ops = {
    "gpu", gpu_open, gpu_gemv, gpu_read, gpu_isa, gpu_close,
};

} /* extern "C" */
