/* compress_cpu.c: the CPU kernels of the compression family (compress_cpu_ops): weight-streaming
 * products y = W x for a batch of up to 8 vectors, with W decoded on the fly. Each scheme is a
 * decoder (a table entry) that turns a tile of a row into FP32 weights in an L1-resident
 * buffer (dense schemes) or into weights and their columns (CSR, 2:4); one dense and one sparse
 * driver multiply the tile by the batch. Rows are split over OpenMP threads in the static
 * partition the packers first-touched. The plain twin is quant_ref_dot (quant.c); checking and
 * timing are compress.c's. */
#include "exp/compress/quant.h"
#include "exp/compress/compress_int.h"

#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exp/bandwidth/bandwidth.h"
#include "measure/backend.h"
#include "util/error.h"
#include "util/isa.h"
#include "util/timing.h"

/* As in bandwidth_cpu.c: the baseline ISA everywhere, and AVX2 (with FMA) and AVX-512 clones on
 * x86 that the loader chooses between (util/isa.h). */
#define KERNEL_ISA ISA_CLONES

#define TILE 512            /* weights decoded at a time: 2 KiB of FP32, a multiple of 128 */

/* Decoders the compiler does not vectorize well on its own (FP8 through the FP16 converter,
 * 4-bit codes through a 16-entry table in a register) have an AVX-512 twin written with
 * intrinsics, chosen at run time as precision_cpu.c chooses its kernels. Both are checked
 * against quant_unpack_row; the tables come from quant_math.h's decoders. */
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define HAVE_AVX512_DECODERS 1
#define ISA_AVX512 __attribute__((target("avx512f")))
#endif

/* The widest kernels this CPU runs, within the limit tests and the `isa` parameter set. */
enum { LEVEL_PORTABLE, LEVEL_AVX2, LEVEL_AVX512 };
static int isa_limit = LEVEL_AVX512;

void compress_cpu_generic(int generic) { isa_limit = generic ? LEVEL_PORTABLE : LEVEL_AVX512; }

static int isa_level(void)
{
    int have = LEVEL_PORTABLE;
#ifdef HAVE_AVX512_DECODERS
    if (isa_avx512())
        have = LEVEL_AVX512;
    else
#endif
    if (compress_avx2_usable())
        have = LEVEL_AVX2;
    return have < isa_limit ? have : isa_limit;
}

int quant_cpu_isa(const char *name)
{
    static const char *const names[] = { "portable", "avx2", "avx512" };
    isa_limit = LEVEL_AVX512;
    for (int i = 0; i < 3; i++)
        if (strcmp(name, names[i]) == 0)
            isa_limit = i;
    return isa_level() == isa_limit || strcmp(name, "auto") == 0 ? 0 : -1;
}

#ifdef HAVE_AVX512_DECODERS
static int use_avx512(void) { return isa_level() >= LEVEL_AVX512; }
#endif

/* ---- dense decoders: n weights of row r from column c0 into w (n a multiple of the block) ---- */

typedef void (*decode_fn)(const struct quant_matrix *m, size_t r, size_t c0, size_t n, float *restrict w);

KERNEL_ISA static void dec_bf16(const struct quant_matrix *m, size_t r, size_t c0, size_t n, float *restrict w)
{
    const uint16_t *restrict v = (const uint16_t *)m->vals + r * m->cols + c0;
#pragma omp simd
    for (size_t i = 0; i < n; i++)
        w[i] = quant_bf16_value(v[i]);
}

KERNEL_ISA static void dec_int8(const struct quant_matrix *m, size_t r, size_t c0, size_t n, float *restrict w)
{
    const int8_t *restrict q = (const int8_t *)m->vals + r * m->cols + c0;
    const float s = ((const float *)m->scales)[r];
#pragma omp simd
    for (size_t i = 0; i < n; i++)
        w[i] = (float)q[i] * s;
}

KERNEL_ISA static void dec_fp8_generic(const uint8_t *restrict q, size_t n, float s, float *restrict w)
{
#pragma omp simd
    for (size_t i = 0; i < n; i++)
        w[i] = quant_e4m3_value(q[i]) * s;
}

#ifdef HAVE_AVX512_DECODERS
/* E4M3 moved into an FP16 (the same fields, exponent bias 15: the value x 2^-8, subnormals
 * included): the byte as the high half, shifted right one place keeping the sign, the copy of
 * the sign in bit 14 cleared. Widened by vcvtph2ps; the caller multiplies by 256 (exact) and the
 * scale. NaN codes (0x7f, 0xff) would read as +-480: a matrix that has them (nan_codes, set by
 * the packer) takes the checking variant. */
ISA_AVX512 static inline __m512 e4m3x16(const uint8_t *p)
{
    __m256i b = _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)p));
    __m256i h = _mm256_and_si256(_mm256_srai_epi16(_mm256_slli_epi16(b, 8), 1), _mm256_set1_epi16((short)0xbfff));
    return _mm512_cvtph_ps(h);
}

ISA_AVX512 static inline __m512 e4m3x16_nan(const uint8_t *p)
{
    __mmask16 nan = _mm512_cmpeq_epi32_mask(
        _mm512_and_si512(_mm512_cvtepu8_epi32(_mm_loadu_si128((const __m128i *)p)), _mm512_set1_epi32(0x7f)),
        _mm512_set1_epi32(0x7f));
    return _mm512_mask_mov_ps(e4m3x16(p), nan, _mm512_set1_ps(NAN));
}

ISA_AVX512 static void dec_fp8_avx512(const uint8_t *restrict q, size_t n, float s, int nan_codes, float *restrict w)
{
    const __m512 k256 = _mm512_set1_ps(256.0f), ks = _mm512_set1_ps(s);
    for (size_t i = 0; i + 16 <= n; i += 16) {
        __m512 f = nan_codes ? e4m3x16_nan(q + i) : e4m3x16(q + i);
        _mm512_storeu_ps(w + i, _mm512_mul_ps(_mm512_mul_ps(f, k256), ks));
    }
}
#endif

static void dec_fp8(const struct quant_matrix *m, size_t r, size_t c0, size_t n, float *restrict w)
{
    const uint8_t *q = (const uint8_t *)m->vals + r * m->cols + c0;
#ifdef HAVE_AVX512_DECODERS
    if (use_avx512() && n % 16 == 0) {
        dec_fp8_avx512(q, n, m->tensor_scale, m->nan_codes, w);
        return;
    }
#endif
    dec_fp8_generic(q, n, m->tensor_scale, w);
}

/* int4: one FP16 scale per group of g; two nibbles a byte. */
#define DEC_INT4(G)                                                                                  \
    KERNEL_ISA static void gen_int4_g##G(const struct quant_matrix *m, size_t r, size_t c0, size_t n, \
                                         float *restrict w)                                          \
    {                                                                                                \
        const uint8_t *restrict q = (const uint8_t *)m->vals + (r * m->cols + c0) / 2;               \
        const uint16_t *sc = (const uint16_t *)m->scales + (r * m->cols + c0) / G;                   \
        for (size_t b = 0; b < n / G; b++) {                                                         \
            const float s = quant_fp16_value(sc[b]);                                                 \
            const uint8_t *restrict qb = q + b * G / 2;                                              \
            float *restrict wb = w + b * G;                                                          \
            _Pragma("omp simd")                                                                      \
            for (size_t j = 0; j < G / 2; j++) {                                                     \
                wb[2 * j] = (float)quant_nibble_s4(qb[j], 0) * s;                                    \
                wb[2 * j + 1] = (float)quant_nibble_s4(qb[j], 1) * s;                                \
            }                                                                                        \
        }                                                                                            \
    }
DEC_INT4(32)
DEC_INT4(128)

/* E2M1 pairs: first 2 x value for the whole tile (a whole number, quant_e2m1_twice), then each
 * block times half its scale. Both steps are exact (unless the scale is subnormal), so w is the
 * twin's value. */
#define DEC_FP4(NAME, G, SCALE)                                                                      \
    KERNEL_ISA static void NAME(const struct quant_matrix *m, size_t r, size_t c0, size_t n,         \
                                float *restrict w)                                                   \
    {                                                                                                \
        const uint8_t *restrict q = (const uint8_t *)m->vals + (r * m->cols + c0) / 2;               \
        const uint8_t *sc = (const uint8_t *)m->scales + (r * m->cols + c0) / G;                     \
        _Pragma("omp simd")                                                                          \
        for (size_t j = 0; j < n / 2; j++) {                                                         \
            w[2 * j] = (float)quant_e2m1_twice(q[j] & 0xfu);                                         \
            w[2 * j + 1] = (float)quant_e2m1_twice((unsigned)q[j] >> 4);                             \
        }                                                                                            \
        for (size_t b = 0; b < n / G; b++) {                                                         \
            const float h = 0.5f * (SCALE);                                                          \
            float *restrict wb = w + b * G;                                                          \
            _Pragma("omp simd")                                                                      \
            for (size_t i = 0; i < G; i++)                                                           \
                wb[i] *= h;                                                                          \
        }                                                                                            \
    }
/* NVFP4: the E4M3 block scale times the FP32 tensor scale, as quant_unpack_row multiplies. */
DEC_FP4(gen_nvfp4, 16, quant_e4m3_value(sc[b]) * m->tensor_scale)
DEC_FP4(gen_mxfp4, 32, quant_e8m0_value(sc[b]))

static const decode_fn nibble_generic[QUANT_N] = {
    [QUANT_INT4_G32] = gen_int4_g32, [QUANT_INT4_G128] = gen_int4_g128,
    [QUANT_NVFP4] = gen_nvfp4, [QUANT_MXFP4] = gen_mxfp4,
};

#ifdef HAVE_AVX512_DECODERS
/* The block scales of a 4-bit row as FP32: nb scales from block `first` of the matrix (table
 * entries; a tile holds at most TILE / 16). */
typedef void (*scale_fn)(const struct quant_matrix *m, size_t first, size_t nb, float *restrict sc);

ISA_AVX512 static void sc_fp16(const struct quant_matrix *m, size_t first, size_t nb, float *restrict sc)
{
    const uint16_t *h = (const uint16_t *)m->scales + first;
    size_t k = 0;
    for (; k + 16 <= nb; k += 16)       /* vcvtph2ps: IEEE, exact, as quant_fp16_value */
        _mm512_storeu_ps(sc + k, _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(h + k))));
    for (; k < nb; k++)
        sc[k] = quant_fp16_value(h[k]);
}

KERNEL_ISA static void sc_e4m3(const struct quant_matrix *m, size_t first, size_t nb, float *restrict sc)
{
    const uint8_t *b = (const uint8_t *)m->scales + first;
    const float ts = m->tensor_scale;
#pragma omp simd
    for (size_t k = 0; k < nb; k++)
        sc[k] = quant_e4m3_value(b[k]) * ts;  /* as quant_unpack_row multiplies */
}

KERNEL_ISA static void sc_e8m0(const struct quant_matrix *m, size_t first, size_t nb, float *restrict sc)
{
    const uint8_t *b = (const uint8_t *)m->scales + first;
#pragma omp simd
    for (size_t k = 0; k < nb; k++)
        sc[k] = quant_e8m0_value(b[k]);
}

static const scale_fn nibble_scales[QUANT_N] = {
    [QUANT_INT4_G32] = sc_fp16, [QUANT_INT4_G128] = sc_fp16, [QUANT_NVFP4] = sc_e4m3, [QUANT_MXFP4] = sc_e8m0,
};

static float nibble_tables[2][16];  /* what a nibble stands for: int4, E2M1 (cpu_open fills them) */

/* log2 of the scheme's block (16, 32 or 128): weight i of a tile has scale sc[i >> lb]. */
static unsigned block_log2(const struct quant_matrix *m)
{
    return (unsigned)__builtin_ctz((unsigned)quant_schemes[m->id].block);
}

/* 32 weights from 16 bytes: both nibbles through the table (vpermps), back into element order
 * (low nibble first), each 16 times its scale. */
ISA_AVX512 static inline void nibbles32(const uint8_t *q, __m512 t, float s_lo, float s_hi, __m512 *w0, __m512 *w1)
{
    const __m512i even = _mm512_set_epi32(23, 7, 22, 6, 21, 5, 20, 4, 19, 3, 18, 2, 17, 1, 16, 0);
    const __m512i odd = _mm512_set_epi32(31, 15, 30, 14, 29, 13, 28, 12, 27, 11, 26, 10, 25, 9, 24, 8);
    __m512i b = _mm512_cvtepu8_epi32(_mm_loadu_si128((const __m128i *)q));
    __m512 lo = _mm512_permutexvar_ps(_mm512_and_si512(b, _mm512_set1_epi32(0xf)), t);
    __m512 hi = _mm512_permutexvar_ps(_mm512_srli_epi32(b, 4), t);
    *w0 = _mm512_mul_ps(_mm512_permutex2var_ps(lo, even, hi), _mm512_set1_ps(s_lo));
    *w1 = _mm512_mul_ps(_mm512_permutex2var_ps(lo, odd, hi), _mm512_set1_ps(s_hi));
}

/* n weights (a multiple of 32) into w; sc: the tile's block scales. */
ISA_AVX512 static void nibbles_avx512(const uint8_t *restrict q, size_t n, const float *table, const float *sc,
                                      unsigned lb, float *restrict w)
{
    const __m512 t = _mm512_loadu_ps(table);
    for (size_t i = 0; i + 32 <= n; i += 32) {
        __m512 w0, w1;
        nibbles32(q + i / 2, t, sc[i >> lb], sc[(i + 16) >> lb], &w0, &w1);
        _mm512_storeu_ps(w + i, w0);
        _mm512_storeu_ps(w + i + 16, w1);
    }
}
#endif

static void dec_nibbles(const struct quant_matrix *m, size_t r, size_t c0, size_t n, float *restrict w)
{
#ifdef HAVE_AVX512_DECODERS
    if (use_avx512() && n % 32 == 0) {
        float sc[TILE / 16];
        unsigned lb = block_log2(m);
        nibble_scales[m->id](m, (r * m->cols + c0) >> lb, n >> lb, sc);
        nibbles_avx512((const uint8_t *)m->vals + (r * m->cols + c0) / 2, n,
                       nibble_tables[m->id == QUANT_NVFP4 || m->id == QUANT_MXFP4], sc, lb, w);
        return;
    }
#endif
    nibble_generic[m->id](m, r, c0, n, w);
}

static const decode_fn dense_decoders[QUANT_N] = {
    [QUANT_BF16] = dec_bf16, [QUANT_INT8] = dec_int8, [QUANT_FP8] = dec_fp8,
    [QUANT_INT4_G32] = dec_nibbles, [QUANT_INT4_G128] = dec_nibbles,
    [QUANT_NVFP4] = dec_nibbles, [QUANT_MXFP4] = dec_nibbles,
};

/* ---- sparse decoders: n stored values of row r from value k0: weights and columns ---- */

typedef void (*sparse_fn)(const struct quant_matrix *m, size_t r, size_t k0, size_t n, float *restrict w,
                          int32_t *restrict col);

KERNEL_ISA static void dec_csr(const struct quant_matrix *m, size_t r, size_t k0, size_t n, float *restrict w,
                               int32_t *restrict col)
{
    const size_t first = m->rowptr[r] + k0;
    const uint16_t *restrict v = (const uint16_t *)m->vals + first, *restrict c = (const uint16_t *)m->idx + first;
#pragma omp simd
    for (size_t i = 0; i < n; i++) {
        w[i] = quant_bf16_value(v[i]);
        col[i] = c[i];
    }
}

/* 2:4: value k (of the row) sits in group k / 2 at the position in bits 2 (k % 4) of byte k / 4. */
KERNEL_ISA static void dec_24(const struct quant_matrix *m, size_t r, size_t k0, size_t n, float *restrict w,
                              int32_t *restrict col)
{
    const uint16_t *restrict v = (const uint16_t *)m->vals + r * m->kept + k0;
    const uint8_t *restrict pos = (const uint8_t *)m->idx + (r * m->kept + k0) / 4;
#pragma omp simd
    for (size_t i = 0; i < n; i++)
        w[i] = quant_bf16_value(v[i]);
#pragma omp simd
    for (size_t j = 0; j < n / 4; j++) {        /* one byte: two groups (k0 and n are multiples of 4) */
        int32_t p = pos[j], base = (int32_t)(2 * (k0 + 4 * j));
        col[4 * j] = base + (p & 3);
        col[4 * j + 1] = base + ((p >> 2) & 3);
        col[4 * j + 2] = base + 4 + ((p >> 4) & 3);
        col[4 * j + 3] = base + 4 + (p >> 6);
    }
}

static const sparse_fn sparse_decoders[QUANT_N] = { [QUANT_CSR] = dec_csr, [QUANT_24] = dec_24 };

/* ---- drivers ---- */

/* acc[b] += w . x_b over n (a multiple of 4). One vector: four independent sums per lane, so
 * the FMA latency is covered; more: four vectors at a time, so each weight is loaded once for
 * four FMAs. */
KERNEL_ISA static void dot_tile(const float *restrict w, const float *restrict x, size_t stride, int batch,
                                size_t n, float *acc)
{
    if (batch == 1) {
        const size_t q = n / 4;
        float s0 = 0, s1 = 0, s2 = 0, s3 = 0;
#pragma omp simd reduction(+:s0, s1, s2, s3)
        for (size_t k = 0; k < q; k++) {
            s0 += w[k] * x[k];
            s1 += w[q + k] * x[q + k];
            s2 += w[2 * q + k] * x[2 * q + k];
            s3 += w[3 * q + k] * x[3 * q + k];
        }
        acc[0] += (s0 + s1) + (s2 + s3);
        return;
    }
    int b = 0;
    for (; b + 4 <= batch; b += 4) {
        const float *restrict x0 = x + (size_t)b * stride, *restrict x1 = x0 + stride, *restrict x2 = x1 + stride,
                    *restrict x3 = x2 + stride;
        float s0 = 0, s1 = 0, s2 = 0, s3 = 0;
#pragma omp simd reduction(+:s0, s1, s2, s3)
        for (size_t k = 0; k < n; k++) {
            s0 += w[k] * x0[k];
            s1 += w[k] * x1[k];
            s2 += w[k] * x2[k];
            s3 += w[k] * x3[k];
        }
        acc[b] += s0, acc[b + 1] += s1, acc[b + 2] += s2, acc[b + 3] += s3;
    }
    for (; b < batch; b++) {
        const float *restrict xb = x + (size_t)b * stride;
        float s0 = 0;
#pragma omp simd reduction(+:s0)
        for (size_t k = 0; k < n; k++)
            s0 += w[k] * xb[k];
        acc[b] += s0;
    }
}

/* acc[b] += sum w[i] x_b[col[i]]: the gather the sparse formats cost. */
KERNEL_ISA static void gather_tile(const float *restrict w, const int32_t *restrict col, const float *restrict x,
                                   size_t stride, int batch, size_t n, float *acc)
{
    for (int b = 0; b < batch; b++) {
        const float *restrict xb = x + (size_t)b * stride;
        float s0 = 0, s1 = 0;
        size_t h = n / 2;
#pragma omp simd reduction(+:s0, s1)
        for (size_t i = 0; i < h; i++) {
            s0 += w[i] * xb[col[i]];
            s1 += w[h + i] * xb[col[h + i]];
        }
        if (n & 1)
            s0 += w[n - 1] * xb[col[n - 1]];
        acc[b] += s0 + s1;
    }
}

/* Batch 1 of the dense formats needs no tile: the row's dot product decodes as it goes (int8:
 * the row's scale applied once at the end; 4-bit: each tile's block scales first). Table
 * entries like the decoders; schemes without one use the tile. */
typedef float (*row_dot_fn)(const struct quant_matrix *m, size_t r, const float *restrict x);

KERNEL_ISA static float dot1_int8(const struct quant_matrix *m, size_t r, const float *restrict x)
{
    const int8_t *restrict q = (const int8_t *)m->vals + r * m->cols;
    const size_t h = m->cols / 4;
    float s0 = 0, s1 = 0, s2 = 0, s3 = 0;
#pragma omp simd reduction(+:s0, s1, s2, s3)
    for (size_t k = 0; k < h; k++) {
        s0 += (float)q[k] * x[k];
        s1 += (float)q[h + k] * x[h + k];
        s2 += (float)q[2 * h + k] * x[2 * h + k];
        s3 += (float)q[3 * h + k] * x[3 * h + k];
    }
    return ((s0 + s1) + (s2 + s3)) * ((const float *)m->scales)[r];
}

KERNEL_ISA static float dot1_bf16(const struct quant_matrix *m, size_t r, const float *restrict x)
{
    const uint16_t *restrict v = (const uint16_t *)m->vals + r * m->cols;
    const size_t h = m->cols / 4;
    float s0 = 0, s1 = 0, s2 = 0, s3 = 0;
#pragma omp simd reduction(+:s0, s1, s2, s3)
    for (size_t k = 0; k < h; k++) {
        s0 += quant_bf16_value(v[k]) * x[k];
        s1 += quant_bf16_value(v[h + k]) * x[h + k];
        s2 += quant_bf16_value(v[2 * h + k]) * x[2 * h + k];
        s3 += quant_bf16_value(v[3 * h + k]) * x[3 * h + k];
    }
    return (s0 + s1) + (s2 + s3);
}

#ifdef HAVE_AVX512_DECODERS
/* The same with intrinsics (GCC 12 vectorizes the int8 loop above with 16-byte vectors only), and
 * for FP32, FP8 and the 4-bit formats too, so the baselines are as tight as the schemes: four
 * accumulators of 16 lanes, 64 weights a step (cols a multiple of 64), FMA; the row's scale at
 * the end. */
#define LOAD16_INT8(p) _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(_mm_loadu_si128((const __m128i *)(p))))
#define LOAD16_BF16(p) _mm512_castsi512_ps(_mm512_slli_epi32( \
                           _mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i *)(p))), 16))
#define PREFETCH_BYTES 2048        /* ahead of the 8-bit row dots: 32 steps */
#define ROW_DOT_AVX512(NAME, T, LOAD16, SCALE)                                                       \
    ISA_AVX512 static float NAME(const struct quant_matrix *m, size_t r, const float *restrict x)     \
    {                                                                                                \
        const T *restrict v = (const T *)m->vals + r * m->cols;                                      \
        __m512 a0 = _mm512_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;                                  \
        for (size_t k = 0; k < m->cols; k += 64) {                                                   \
            if (sizeof(T) == 1)         /* 8-bit rows: one line a step, the prefetcher lags */   \
                _mm_prefetch((const char *)(v + k) + PREFETCH_BYTES, _MM_HINT_T0);                   \
            a0 = _mm512_fmadd_ps(LOAD16(v + k), _mm512_loadu_ps(x + k), a0);                         \
            a1 = _mm512_fmadd_ps(LOAD16(v + k + 16), _mm512_loadu_ps(x + k + 16), a1);               \
            a2 = _mm512_fmadd_ps(LOAD16(v + k + 32), _mm512_loadu_ps(x + k + 32), a2);               \
            a3 = _mm512_fmadd_ps(LOAD16(v + k + 48), _mm512_loadu_ps(x + k + 48), a3);               \
        }                                                                                            \
        return _mm512_reduce_add_ps(_mm512_add_ps(_mm512_add_ps(a0, a1), _mm512_add_ps(a2, a3))) * (SCALE); \
    }
#define LOAD16_F32(p) _mm512_loadu_ps(p)
#define LOAD16_E4M3(p) e4m3x16(p)
#define LOAD16_E4M3_NAN(p) e4m3x16_nan(p)
ROW_DOT_AVX512(dot1_f32_avx512, float, LOAD16_F32, 1.0f)
ROW_DOT_AVX512(dot1_bf16_avx512, uint16_t, LOAD16_BF16, 1.0f)
ROW_DOT_AVX512(dot1_int8_avx512, int8_t, LOAD16_INT8, ((const float *)m->scales)[r])
ROW_DOT_AVX512(dot1_fp8_avx512, uint8_t, LOAD16_E4M3, 256.0f * m->tensor_scale)
ROW_DOT_AVX512(dot1_fp8_nan_avx512, uint8_t, LOAD16_E4M3_NAN, 256.0f * m->tensor_scale)

/* 4-bit rows: each tile's block scales first, then 64 weights a step decoded in registers
 * (nibbles32) and multiplied into four accumulators, never stored: the tile path would write
 * and read back every weight. */
ISA_AVX512 static float dot1_nibbles_avx512(const struct quant_matrix *m, size_t r, const float *restrict x)
{
    const __m512 t = _mm512_loadu_ps(nibble_tables[m->id == QUANT_NVFP4 || m->id == QUANT_MXFP4]);
    const uint8_t *restrict q = (const uint8_t *)m->vals + r * m->cols / 2;
    const unsigned lb = block_log2(m);
    __m512 a0 = _mm512_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
    float sc[TILE / 16];
    for (size_t c0 = 0; c0 < m->cols; c0 += TILE) {
        size_t n = m->cols - c0 < TILE ? m->cols - c0 : TILE;
        nibble_scales[m->id](m, (r * m->cols + c0) >> lb, n >> lb, sc);
        for (size_t i = 0; i < n; i += 64) {
            const size_t c = c0 + i;
            __m512 w0, w1, w2, w3;
            _mm_prefetch((const char *)(q + c / 2) + PREFETCH_BYTES, _MM_HINT_T0);
            nibbles32(q + c / 2, t, sc[i >> lb], sc[(i + 16) >> lb], &w0, &w1);
            nibbles32(q + c / 2 + 16, t, sc[(i + 32) >> lb], sc[(i + 48) >> lb], &w2, &w3);
            a0 = _mm512_fmadd_ps(w0, _mm512_loadu_ps(x + c), a0);
            a1 = _mm512_fmadd_ps(w1, _mm512_loadu_ps(x + c + 16), a1);
            a2 = _mm512_fmadd_ps(w2, _mm512_loadu_ps(x + c + 32), a2);
            a3 = _mm512_fmadd_ps(w3, _mm512_loadu_ps(x + c + 48), a3);
        }
    }
    return _mm512_reduce_add_ps(_mm512_add_ps(_mm512_add_ps(a0, a1), _mm512_add_ps(a2, a3)));
}


/* Small batches: four rows against up to four vectors at a time (`nb`, a constant after
 * inlining), sixteen accumulators of 16 lanes, 16 columns a step: each weight loaded once for
 * four FMAs, each element of x once for four rows (compress_int.h's block kernel). pf (NULL:
 * none): the same four rows' next chunk, one line of each prefetched into L2 per step, so that
 * the DRAM stream goes on while a later pass works on this chunk from L1. */
#define ACC4(r) __m512 a##r##0 = _mm512_setzero_ps(), a##r##1 = a##r##0, a##r##2 = a##r##0, a##r##3 = a##r##0
ISA_AVX512 static inline __attribute__((always_inline)) void block4_n(const float *const *w, const float *x,
                                                                    size_t stride, size_t n, float *acc, const int nb,
                                                                    const float *const *pf)
{
    const float *w0 = w[0], *w1 = w[1], *w2 = w[2], *w3 = w[3];
    ACC4(0); ACC4(1); ACC4(2); ACC4(3);
    for (size_t c = 0; c < n; c += 16) {
        if (pf) {
            _mm_prefetch((const char *)(pf[0] + c), _MM_HINT_T1);
            _mm_prefetch((const char *)(pf[1] + c), _MM_HINT_T1);
            _mm_prefetch((const char *)(pf[2] + c), _MM_HINT_T1);
            _mm_prefetch((const char *)(pf[3] + c), _MM_HINT_T1);
        }
        const __m512 v0 = _mm512_loadu_ps(w0 + c), v1 = _mm512_loadu_ps(w1 + c), v2 = _mm512_loadu_ps(w2 + c),
                     v3 = _mm512_loadu_ps(w3 + c);
        __m512 xb;
#define COL(b) do {                                                                                  \
            xb = _mm512_loadu_ps(x + (b) * stride + c);                                             \
            a0##b = _mm512_fmadd_ps(v0, xb, a0##b);                                                 \
            a1##b = _mm512_fmadd_ps(v1, xb, a1##b);                                                 \
            a2##b = _mm512_fmadd_ps(v2, xb, a2##b);                                                 \
            a3##b = _mm512_fmadd_ps(v3, xb, a3##b);                                                 \
        } while (0)
        COL(0);
        if (nb > 1) COL(1);
        if (nb > 2) COL(2);
        if (nb > 3) COL(3);
#undef COL
    }
#define OUT(b) do {                                                                                  \
        acc[b] += _mm512_reduce_add_ps(a0##b);                                                      \
        acc[QUANT_MAX_BATCH + (b)] += _mm512_reduce_add_ps(a1##b);                                  \
        acc[2 * QUANT_MAX_BATCH + (b)] += _mm512_reduce_add_ps(a2##b);                              \
        acc[3 * QUANT_MAX_BATCH + (b)] += _mm512_reduce_add_ps(a3##b);                              \
    } while (0)
    OUT(0);
    if (nb > 1) OUT(1);
    if (nb > 2) OUT(2);
    if (nb > 3) OUT(3);
#undef OUT
}

/* More than four vectors: the columns in chunks of COMPRESS_BLOCK_CHUNK, each chunk's four rows (16 KiB)
 * read from DRAM by the first four vectors and from L1 by the next, instead of the whole rows
 * (64 KiB at 4096 columns, more than L1) twice; the last pass over a chunk prefetches the next
 * one, else the stream would stop while it runs (the memory and the arithmetic then took turns:
 * batch 8 at 0.50 of the read with its arithmetic alone at 0.57). */
ISA_AVX512 static void block_avx512(const float *const *w, const float *x, size_t stride, int batch, size_t n,
                                    float *acc)
{
    const size_t chunk = batch > 4 ? COMPRESS_BLOCK_CHUNK : n;
    for (size_t c0 = 0; c0 < n; c0 += chunk) {
        const size_t len = n - c0 < chunk ? n - c0 : chunk;
        const float *wc[4] = { w[0] + c0, w[1] + c0, w[2] + c0, w[3] + c0 };
        const float *next[4] = { wc[0] + len, wc[1] + len, wc[2] + len, wc[3] + len };
        for (int b = 0; b < batch; b += 4) {
            const float *xb = x + (size_t)b * stride + c0;
            const float *const *pf = b > 0 && b + 4 >= batch && c0 + len < n ? next : NULL;
            switch (batch - b) {
            case 1: block4_n(wc, xb, stride, len, acc + b, 1, pf); break;
            case 2: block4_n(wc, xb, stride, len, acc + b, 2, pf); break;
            case 3: block4_n(wc, xb, stride, len, acc + b, 3, pf); break;
            default: block4_n(wc, xb, stride, len, acc + b, 4, pf); break;
            }
        }
    }
}
#endif

static const row_dot_fn row_dots[QUANT_N] = { [QUANT_BF16] = dot1_bf16, [QUANT_INT8] = dot1_int8 };
#ifdef HAVE_AVX512_DECODERS
static const row_dot_fn row_dots_avx512[QUANT_N] = {
    [QUANT_FP32] = dot1_f32_avx512, [QUANT_BF16] = dot1_bf16_avx512, [QUANT_INT8] = dot1_int8_avx512,
    [QUANT_FP8] = dot1_fp8_avx512, [QUANT_INT4_G32] = dot1_nibbles_avx512, [QUANT_INT4_G128] = dot1_nibbles_avx512,
    [QUANT_NVFP4] = dot1_nibbles_avx512, [QUANT_MXFP4] = dot1_nibbles_avx512,
};
#endif

/* FP8 kernels that do not check for NaN codes run only on matrices without them. */
static int nan_safe(const struct quant_matrix *m) { return !(m->id == QUANT_FP8 && m->nan_codes); }

static row_dot_fn row_dot_for(const struct quant_matrix *m)
{
#ifdef HAVE_AVX512_DECODERS
    if (use_avx512() && m->cols % 64 == 0 && row_dots_avx512[m->id])
        return m->id == QUANT_FP8 && m->nan_codes ? dot1_fp8_nan_avx512 : row_dots_avx512[m->id];
#endif
    if (isa_level() >= LEVEL_AVX2 && m->cols % 32 == 0 && compress_avx2_dots[m->id] && nan_safe(m))
        return compress_avx2_dots[m->id];
    return m->cols % 4 == 0 ? row_dots[m->id] : NULL;
}

/* The block kernel of the widest ISA for a batch of two or more of dense FP32 (its rows read in
 * place; a decoded format's rows decoded into a tile first were slower than its batch driver,
 * which decodes in registers), or NULL. */
static compress_block_fn block_for(const struct quant_matrix *m)
{
    if (m->id != QUANT_FP32 || m->cols % 16 != 0)
        return NULL;
#ifdef HAVE_AVX512_DECODERS
    if (use_avx512())
        return block_avx512;
#endif
    return isa_level() >= LEVEL_AVX2 ? compress_avx2_block : NULL;
}

static compress_row_batch_fn row_batch_for(const struct quant_matrix *m)
{
    if (isa_level() >= LEVEL_AVX2 && m->cols % 32 == 0 && nan_safe(m))
        return compress_avx2_batches[m->id];
    return NULL;
}

/* One FP32 product over this thread's blocks of rows, read where they lie; the rows past the last
 * are the last row again, their sums dropped. */
static void block_pass(const struct quant_matrix *m, const float *x, float *y, int batch, compress_block_fn blk)
{
    enum { R = COMPRESS_BLOCK_ROWS };
    const size_t blocks = (m->rows + R - 1) / R;
#pragma omp for schedule(static) nowait
    for (size_t bi = 0; bi < blocks; bi++) {
        float acc[R * QUANT_MAX_BATCH] = { 0 };
        const float *w[R];
        for (int i = 0; i < R; i++)
            w[i] = (const float *)m->vals + (bi * R + (size_t)i < m->rows ? bi * R + (size_t)i : m->rows - 1) * m->cols;
        blk(w, x, m->cols, batch, m->cols, acc);
        for (int i = 0; i < R && bi * R + (size_t)i < m->rows; i++)
            for (int b = 0; b < batch; b++)
                y[(size_t)b * m->rows + bi * R + (size_t)i] = acc[i * QUANT_MAX_BATCH + b];
    }
}

/* One product over this thread's rows (called by every thread of the team). */
static void product_pass(const struct quant_matrix *m, const float *x, float *y, int batch)
{
    row_dot_fn dot = batch == 1 ? row_dot_for(m) : NULL;
    compress_block_fn blk = batch > 1 ? block_for(m) : NULL;
    compress_row_batch_fn bat = batch > 1 && !blk ? row_batch_for(m) : NULL;
    if (dot) {
#pragma omp for schedule(static) nowait
        for (size_t r = 0; r < m->rows; r++)
            y[r] = dot(m, r, x);
        return;
    }
    if (blk) {
        block_pass(m, x, y, batch, blk);
        return;
    }
    if (bat) {                  /* four vectors at a time; the row is in L1 for the next four */
#pragma omp for schedule(static) nowait
        for (size_t r = 0; r < m->rows; r++) {
            float acc[QUANT_MAX_BATCH] = { 0 };
            for (int b = 0; b < batch; b += 4)
                bat(m, r, x + (size_t)b * m->cols, m->cols, batch - b < 4 ? batch - b : 4, acc + b);
            for (int b = 0; b < batch; b++)
                y[(size_t)b * m->rows + r] = acc[b];
        }
        return;
    }
    float w[TILE] __attribute__((aligned(64)));
    int32_t col[TILE] __attribute__((aligned(64)));
    decode_fn dec = dense_decoders[m->id];
    sparse_fn sdec = sparse_decoders[m->id];
#pragma omp for schedule(static) nowait
    for (size_t r = 0; r < m->rows; r++) {
        float acc[QUANT_MAX_BATCH] = { 0 };
        if (sdec) {
            size_t kept = m->id == QUANT_CSR ? m->rowptr[r + 1] - m->rowptr[r] : m->kept;
            for (size_t k0 = 0; k0 < kept; k0 += TILE) {
                size_t n = kept - k0 < TILE ? kept - k0 : TILE;
                sdec(m, r, k0, n, w, col);
                gather_tile(w, col, x, m->cols, batch, n, acc);
            }
        } else {
            for (size_t c0 = 0; c0 < m->cols; c0 += TILE) {
                size_t n = m->cols - c0 < TILE ? m->cols - c0 : TILE;
                const float *t = (const float *)m->vals + r * m->cols + c0;   /* FP32: in place */
                if (dec) {
                    dec(m, r, c0, n, w);
                    t = w;
                }
                dot_tile(t, x + c0, m->cols, batch, n, acc);
            }
        }
        for (int b = 0; b < batch; b++)
            y[(size_t)b * m->rows + r] = acc[b];
    }
}

/* ---- the ops ---- */

struct cpu_h {
    const struct quant_matrix *m;
    int threads;
    double *partial;            /* read: one sum per thread */
};

static void *cpu_open(const struct quant_matrix *m, int threads, char *err, size_t errlen)
{
    struct cpu_h *h = xcalloc(1, sizeof *h);
    (void)err;
    (void)errlen;
    h->m = m;
    h->threads = threads > 0 ? threads : omp_get_max_threads();
#ifdef HAVE_AVX512_DECODERS
    for (unsigned c = 0; c < 16; c++) {
        nibble_tables[0][c] = (float)quant_nibble_s4((uint8_t)c, 0);
        nibble_tables[1][c] = quant_e2m1_value((uint8_t)c);
    }
#endif
    h->partial = xcalloc((size_t)h->threads, sizeof *h->partial);
    return h;
}

static double cpu_gemv(void *hp, const float *x, float *y, int batch, long iters)
{
    struct cpu_h *h = hp;
    if (batch < 1 || batch > QUANT_MAX_BATCH)
        return -1;
    double t0 = timing_now();
#pragma omp parallel num_threads(h->threads)
    for (long it = 0; it < iters; it++)
        product_pass(h->m, x, y, batch);
    return timing_now() - t0;
}

/* The read: the bandwidth experiment's read kernel (backend_for("bandwidth", "cpu")) over the
 * FP32 matrix, so that the series a product is a fraction of reads as fast as the machine's
 * read ceiling was measured, with the same vectors and accumulators. */
static double cpu_read(void *hp, long iters, double *sum)
{
    struct cpu_h *h = hp;
    const struct quant_matrix *m = h->m;
    const struct bw_ops *bw = backend_for("bandwidth", "cpu", NULL, 0);
    if (m->id != QUANT_FP32 || !bw)
        return -1;
    struct bw_arrays x = { .a = (void *)m->vals, .n = m->rows * m->cols, .prec = BW_FP32, .path = BW_PATH_HOST,
                           .threads = h->threads, .stores = BW_STORES_CACHED, .partial = h->partial };
    double t = bw->run(&x, BW_READ, iters);
    *sum = x.sum;
    return t;
}

static const char *cpu_isa(void *hp)
{
    (void)hp;
#if defined(__x86_64__)
    static const char *const words[] = { "x86-64 portable", "avx2", "avx512f" };
    return words[isa_level()];
#elif defined(__aarch64__)
    return "aarch64 (neon)";
#else
    return "baseline";
#endif
}

static void cpu_close(void *hp)
{
    struct cpu_h *h = hp;
    if (!h)
        return;
    free(h->partial);
    free(h);
}

const struct compress_ops compress_cpu_ops = {
    .device = "cpu",
    .open = cpu_open,
    .gemv = cpu_gemv,
    .read = cpu_read,
    .isa = cpu_isa,
    .close = cpu_close,
};
