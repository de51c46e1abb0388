/* compress_avx2.c: the compression family's AVX2 kernels (with FMA and F16C, which every AVX2
 * CPU we target has): per scheme one loader that decodes 32 weights of a row into four
 * registers, and two drivers on top of it: a row's dot product with one vector (four
 * accumulators, so the FMA latency is covered) and with up to four (each weight decoded once for
 * all of them). The weights never go through memory, so a product reads each byte of the matrix
 * once and little else. And the small-batch block kernel (compress_int.h) FP32 batches take: two
 * rows read in place against up to four vectors at a time. The plain twin is quant_ref_dot; compress_cpu.c chooses these kernels and
 * compress.c checks them before timing. CSR and 2:4 gather, and stay with the tile drivers of
 * compress_cpu.c. */
#include "exp/compress/compress_int.h"

#include "util/isa.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

#define AVX2 __attribute__((target("avx2,fma,f16c")))
#define INLINE static inline __attribute__((always_inline))

int compress_avx2_usable(void)
{
    return isa_avx2();
}

/* ---- loaders: w0..w3 = weights c .. c + 31 of row r, in order, scaled except by the row's or
 * tensor's scale (applied once to the dot product: `post`). Written out without arrays or
 * loops: GCC keeps arrays of vectors on the stack. ---- */

typedef struct { __m256 w0, w1, w2, w3; } w32;

AVX2 INLINE w32 ld_fp32(const struct quant_matrix *m, size_t r, size_t c)
{
    const float *p = (const float *)m->vals + r * m->cols + c;
    return (w32){ _mm256_loadu_ps(p), _mm256_loadu_ps(p + 8), _mm256_loadu_ps(p + 16), _mm256_loadu_ps(p + 24) };
}

#define BF16X8(p) _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(p))), 16))
AVX2 INLINE w32 ld_bf16(const struct quant_matrix *m, size_t r, size_t c)
{
    const uint16_t *p = (const uint16_t *)m->vals + r * m->cols + c;
    return (w32){ BF16X8(p), BF16X8(p + 8), BF16X8(p + 16), BF16X8(p + 24) };
}

#define INT8X8(p) _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_loadl_epi64((const __m128i *)(p))))
AVX2 INLINE w32 ld_int8(const struct quant_matrix *m, size_t r, size_t c)
{
    const int8_t *p = (const int8_t *)m->vals + r * m->cols + c;
    return (w32){ INT8X8(p), INT8X8(p + 8), INT8X8(p + 16), INT8X8(p + 24) };
}

/* E4M3 moved into an FP16 as compress_cpu.c's AVX-512 decoder does (the value x 2^-8; `post`
 * multiplies by 256 and the tensor scale); NaN codes are not handled: matrices that have them
 * take the portable decoder. */
AVX2 INLINE __m256 e4m3x8(const uint8_t *p)
{
    __m128i b = _mm_cvtepu8_epi16(_mm_loadl_epi64((const __m128i *)p));
    return _mm256_cvtph_ps(_mm_and_si128(_mm_srai_epi16(_mm_slli_epi16(b, 8), 1), _mm_set1_epi16((short)0xbfff)));
}

AVX2 INLINE w32 ld_fp8(const struct quant_matrix *m, size_t r, size_t c)
{
    const uint8_t *p = (const uint8_t *)m->vals + r * m->cols + c;
    return (w32){ e4m3x8(p), e4m3x8(p + 8), e4m3x8(p + 16), e4m3x8(p + 24) };
}

/* 4-bit codes: 16 bytes hold 32 weights, low nibble first. Both nibbles of every byte through
 * a 16-entry table of signed bytes (vpshufb): int4 its value, E2M1 twice its value (the scales
 * hold half the block scale); interleaved back into element order, widened, and each 8 times
 * its block's scale (every block is a multiple of 16 weights). s0, s1: the scales of this
 * 32-weight step's first and second 16. */
#define NIBX8(v, s) _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(v)), s)
AVX2 INLINE w32 ld_nib(const uint8_t *p, __m128i table, __m256 s0, __m256 s1)
{
    const __m128i lo4 = _mm_set1_epi8(0x0f);
    __m128i b = _mm_loadu_si128((const __m128i *)p);
    __m128i tl = _mm_shuffle_epi8(table, _mm_and_si128(b, lo4));
    __m128i th = _mm_shuffle_epi8(table, _mm_and_si128(_mm_srli_epi16(b, 4), lo4));
    __m128i n0 = _mm_unpacklo_epi8(tl, th), n1 = _mm_unpackhi_epi8(tl, th);
    return (w32){ NIBX8(n0, s0), NIBX8(_mm_srli_si128(n0, 8), s0), NIBX8(n1, s1), NIBX8(_mm_srli_si128(n1, 8), s1) };
}

/* ---- the 4-bit formats' block scales and tables ---- */

#define TILE 512                        /* columns whose block scales are decoded at a time */

/* The block scales of columns c0 .. c0 + n of row r: sc[k] for block k of the tile, eight at
 * a time where the format allows (FP16 through F16C; E8M0 as an exponent, its codes 0 and 0xff
 * by the plain decoder), else one by one; E2M1's hold half the scale. */
AVX2 static void nib_scales(const struct quant_matrix *m, size_t r, size_t c0, size_t n, float *sc)
{
    const size_t g = (size_t)quant_schemes[m->id].block, first = (r * m->cols + c0) / g, nb = n / g;
    size_t k = 0;
    if (m->id == QUANT_INT4_G32 || m->id == QUANT_INT4_G128) {
        const uint16_t *h = (const uint16_t *)m->scales + first;
        for (; k + 8 <= nb; k += 8)
            _mm256_storeu_ps(sc + k, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(h + k))));
        for (; k < nb; k++)
            sc[k] = quant_fp16_value(h[k]);
    } else if (m->id == QUANT_MXFP4) {
        const uint8_t *e = (const uint8_t *)m->scales + first;
        for (; k + 8 <= nb; k += 8) {
            __m256i c = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(e + k)));
            __m256 f = _mm256_mul_ps(_mm256_castsi256_ps(_mm256_slli_epi32(c, 23)), _mm256_set1_ps(0.5f));
            _mm256_storeu_ps(sc + k, f);
            for (size_t j = k; j < k + 8; j++)      /* 2^-127 and NaN are not exponents */
                if (e[j] == 0 || e[j] == 0xff)
                    sc[j] = 0.5f * quant_e8m0_value(e[j]);
        }
        for (; k < nb; k++)
            sc[k] = 0.5f * quant_e8m0_value(e[k]);
    } else {                            /* NVFP4: as quant_unpack_row multiplies */
        const uint8_t *e = (const uint8_t *)m->scales + first;
        const __m256 ts = _mm256_set1_ps(m->tensor_scale), k256 = _mm256_set1_ps(256.0f);
        for (; k + 8 <= nb; k += 8) {
            __m256 f = _mm256_mul_ps(_mm256_mul_ps(e4m3x8(e + k), k256), ts);
            _mm256_storeu_ps(sc + k, _mm256_mul_ps(f, _mm256_set1_ps(0.5f)));
            for (size_t j = k; j < k + 8; j++)      /* NaN codes */
                if ((e[j] & 0x7f) == 0x7f)
                    sc[j] = 0.5f * (quant_e4m3_value(e[j]) * m->tensor_scale);
        }
        for (; k < nb; k++)
            sc[k] = 0.5f * (quant_e4m3_value(e[k]) * m->tensor_scale);
    }
}

AVX2 static __m128i nib_table(const struct quant_matrix *m)
{
    int8_t t[16];
    for (unsigned u = 0; u < 16; u++)
        t[u] = (int8_t)(m->id == QUANT_INT4_G32 || m->id == QUANT_INT4_G128 ? quant_nibble_s4((uint8_t)u, 0)
                                                                            : quant_e2m1_twice(u));
    return _mm_loadu_si128((const __m128i *)t);
}

AVX2 INLINE float hsum(__m256 a)
{
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(a), _mm256_extractf128_ps(a, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}

/* ---- drivers ---- */

#define FMA4(a, w, x) do {                                                                      \
        a##0 = _mm256_fmadd_ps((w).w0, _mm256_loadu_ps((x)), a##0);                            \
        a##1 = _mm256_fmadd_ps((w).w1, _mm256_loadu_ps((x) + 8), a##1);                        \
        a##2 = _mm256_fmadd_ps((w).w2, _mm256_loadu_ps((x) + 16), a##2);                       \
        a##3 = _mm256_fmadd_ps((w).w3, _mm256_loadu_ps((x) + 24), a##3);                       \
    } while (0)
#define FMA2(a, w, x) do {                                                                      \
        a##0 = _mm256_fmadd_ps((w).w0, _mm256_loadu_ps((x)), a##0);                            \
        a##1 = _mm256_fmadd_ps((w).w1, _mm256_loadu_ps((x) + 8), a##1);                        \
        a##0 = _mm256_fmadd_ps((w).w2, _mm256_loadu_ps((x) + 16), a##0);                       \
        a##1 = _mm256_fmadd_ps((w).w3, _mm256_loadu_ps((x) + 24), a##1);                       \
    } while (0)
#define ZERO4(a) __m256 a##0 = _mm256_setzero_ps(), a##1 = a##0, a##2 = a##0, a##3 = a##0
#define SUM4(a) hsum(_mm256_add_ps(_mm256_add_ps(a##0, a##1), _mm256_add_ps(a##2, a##3)))

/* `nb` vectors (a constant after inlining: the branches on it vanish), two accumulators each. */
#define BATCH_STEP(w, x, stride, c, nb) do {                                                    \
        FMA2(p, w, x + c);                                                                     \
        if (nb > 1) FMA2(q, w, x + stride + c);                                                \
        if (nb > 2) FMA2(u, w, x + 2 * stride + c);                                            \
        if (nb > 3) FMA2(v, w, x + 3 * stride + c);                                            \
    } while (0)
#define BATCH_END(acc, post, nb) do {                                                           \
        acc[0] += hsum(_mm256_add_ps(p0, p1)) * (post);                                        \
        if (nb > 1) acc[1] += hsum(_mm256_add_ps(q0, q1)) * (post);                            \
        if (nb > 2) acc[2] += hsum(_mm256_add_ps(u0, u1)) * (post);                            \
        if (nb > 3) acc[3] += hsum(_mm256_add_ps(v0, v1)) * (post);                            \
    } while (0)

#define BATCH_SWITCH(NAME)                                                                     \
    AVX2 static void NAME(const struct quant_matrix *m, size_t r, const float *x, size_t stride, int batch, \
                          float *acc)                                                          \
    {                                                                                          \
        switch (batch) {                                                                       \
        case 1: NAME##_n(m, r, x, stride, acc, 1); break;                                      \
        case 2: NAME##_n(m, r, x, stride, acc, 2); break;                                      \
        case 3: NAME##_n(m, r, x, stride, acc, 3); break;                                      \
        default: NAME##_n(m, r, x, stride, acc, 4); break;                                     \
        }                                                                                      \
    }

/* The 8-, 16- and 32-bit formats: one vector with four accumulators, 32 weights a step; up to
 * four with two each (8- and 16-bit: FP32 batches take the block kernel below, which needs no
 * decoding); the row's scale (`post`) at the end. */
#define DOT(NAME, LOAD, POST)                                                                  \
    AVX2 static float dot_##NAME(const struct quant_matrix *m, size_t r, const float *x)        \
    {                                                                                          \
        ZERO4(a);                                                                              \
        for (size_t c = 0; c < m->cols; c += 32) {                                             \
            w32 w = LOAD(m, r, c);                                                             \
            FMA4(a, w, x + c);                                                                 \
        }                                                                                      \
        return SUM4(a) * (POST);                                                               \
    }
#define DENSE(NAME, LOAD, POST)                                                                \
    DOT(NAME, LOAD, POST)                                                                      \
    AVX2 INLINE void bat_##NAME##_n(const struct quant_matrix *m, size_t r, const float *x, size_t stride, \
                                    float *acc, const int nb)                                  \
    {                                                                                          \
        ZERO4(p); ZERO4(q); ZERO4(u); ZERO4(v);                                                \
        for (size_t c = 0; c < m->cols; c += 32) {                                             \
            w32 w = LOAD(m, r, c);                                                             \
            BATCH_STEP(w, x, stride, c, nb);                                                   \
        }                                                                                      \
        BATCH_END(acc, POST, nb);                                                              \
        (void)p2, (void)p3, (void)q2, (void)q3, (void)u2, (void)u3, (void)v2, (void)v3;        \
    }                                                                                          \
    BATCH_SWITCH(bat_##NAME)

#define SCALE_ROW (((const float *)m->scales)[r])
#define SCALE_FP8 (256.0f * m->tensor_scale)

DOT(fp32, ld_fp32, 1.0f)
DENSE(bf16, ld_bf16, 1.0f)
DENSE(int8, ld_int8, SCALE_ROW)
DENSE(fp8, ld_fp8, SCALE_FP8)

/* The 4-bit formats: a tile's block scales first, then the tile as above. */
AVX2 static float dot_nib(const struct quant_matrix *m, size_t r, const float *x)
{
    const __m128i t = nib_table(m);
    const uint8_t *q = (const uint8_t *)m->vals + r * m->cols / 2;
    const unsigned lb = (unsigned)__builtin_ctz((unsigned)quant_schemes[m->id].block);
    float sc[TILE / 16];
    ZERO4(a);
    for (size_t c0 = 0; c0 < m->cols; c0 += TILE) {
        size_t n = m->cols - c0 < TILE ? m->cols - c0 : TILE;
        nib_scales(m, r, c0, n, sc);
        for (size_t i = 0; i < n; i += 32) {
            w32 w = ld_nib(q + (c0 + i) / 2, t, _mm256_broadcast_ss(sc + (i >> lb)), _mm256_broadcast_ss(sc + ((i + 16) >> lb)));
            FMA4(a, w, x + c0 + i);
        }
    }
    return SUM4(a);
}

AVX2 INLINE void bat_nib_n(const struct quant_matrix *m, size_t r, const float *x, size_t stride, float *acc,
                           const int nb)
{
    const __m128i t = nib_table(m);
    const uint8_t *qv = (const uint8_t *)m->vals + r * m->cols / 2;
    const unsigned lb = (unsigned)__builtin_ctz((unsigned)quant_schemes[m->id].block);
    float sc[TILE / 16];
    ZERO4(p); ZERO4(q); ZERO4(u); ZERO4(v);
    for (size_t c0 = 0; c0 < m->cols; c0 += TILE) {
        size_t n = m->cols - c0 < TILE ? m->cols - c0 : TILE;
        nib_scales(m, r, c0, n, sc);
        for (size_t i = 0; i < n; i += 32) {
            w32 w = ld_nib(qv + (c0 + i) / 2, t, _mm256_broadcast_ss(sc + (i >> lb)), _mm256_broadcast_ss(sc + ((i + 16) >> lb)));
            const size_t c = c0 + i;
            BATCH_STEP(w, x, stride, c, nb);
        }
    }
    BATCH_END(acc, 1.0f, nb);
    (void)p2, (void)p3, (void)q2, (void)q3, (void)u2, (void)u3, (void)v2, (void)v3;
}
BATCH_SWITCH(bat_nib)

/* Small batches: two rows at a time against up to four vectors (`nb`, a constant after
 * inlining), eight accumulators, eight columns a step: each weight is loaded once for four
 * FMAs and each element of x once for two rows. */
AVX2 INLINE void block2_n(const float *w0, const float *w1, const float *x, size_t stride, size_t n, float *acc0,
                          float *acc1, const int nb)
{
    ZERO4(p);
    ZERO4(q);
    for (size_t c = 0; c < n; c += 8) {
        const __m256 u = _mm256_loadu_ps(w0 + c), v = _mm256_loadu_ps(w1 + c);
        __m256 xb;
#define COL(b) do {                                                                             \
            xb = _mm256_loadu_ps(x + (b) * stride + c);                                        \
            p##b = _mm256_fmadd_ps(u, xb, p##b);                                               \
            q##b = _mm256_fmadd_ps(v, xb, q##b);                                               \
        } while (0)
        COL(0);
        if (nb > 1) COL(1);
        if (nb > 2) COL(2);
        if (nb > 3) COL(3);
#undef COL
    }
    acc0[0] += hsum(p0), acc1[0] += hsum(q0);
    if (nb > 1) acc0[1] += hsum(p1), acc1[1] += hsum(q1);
    if (nb > 2) acc0[2] += hsum(p2), acc1[2] += hsum(q2);
    if (nb > 3) acc0[3] += hsum(p3), acc1[3] += hsum(q3);
}

/* The columns in chunks of COMPRESS_BLOCK_CHUNK: a chunk of x (four vectors of it, 16 KiB) stays in L1 for
 * both pairs of rows, and a chunk of the four rows for the next four vectors, instead of whole
 * rows and vectors (64 KiB at 4096 columns) read again from L2. */
AVX2 static void block_avx2(const float *const *w, const float *x, size_t stride, int batch, size_t n, float *acc)
{
    for (size_t c0 = 0; c0 < n; c0 += COMPRESS_BLOCK_CHUNK) {
        const size_t len = n - c0 < COMPRESS_BLOCK_CHUNK ? n - c0 : COMPRESS_BLOCK_CHUNK;
        for (int b = 0; b < batch; b += 4)
            for (int i = 0; i < COMPRESS_BLOCK_ROWS; i += 2) {
                const float *xb = x + (size_t)b * stride + c0, *w0 = w[i] + c0, *w1 = w[i + 1] + c0;
                float *a0 = acc + i * QUANT_MAX_BATCH + b, *a1 = a0 + QUANT_MAX_BATCH;
                switch (batch - b) {
                case 1: block2_n(w0, w1, xb, stride, len, a0, a1, 1); break;
                case 2: block2_n(w0, w1, xb, stride, len, a0, a1, 2); break;
                case 3: block2_n(w0, w1, xb, stride, len, a0, a1, 3); break;
                default: block2_n(w0, w1, xb, stride, len, a0, a1, 4); break;
                }
            }
    }
}

const compress_row_dot_fn compress_avx2_dots[QUANT_N] = {
    [QUANT_FP32] = dot_fp32, [QUANT_BF16] = dot_bf16, [QUANT_INT8] = dot_int8, [QUANT_FP8] = dot_fp8,
    [QUANT_INT4_G32] = dot_nib, [QUANT_INT4_G128] = dot_nib, [QUANT_NVFP4] = dot_nib, [QUANT_MXFP4] = dot_nib,
};
const compress_row_batch_fn compress_avx2_batches[QUANT_N] = {
    [QUANT_BF16] = bat_bf16, [QUANT_INT8] = bat_int8, [QUANT_FP8] = bat_fp8,
    [QUANT_INT4_G32] = bat_nib, [QUANT_INT4_G128] = bat_nib, [QUANT_NVFP4] = bat_nib, [QUANT_MXFP4] = bat_nib,
};
const compress_block_fn compress_avx2_block = block_avx2;

#else

int compress_avx2_usable(void) { return 0; }
const compress_row_dot_fn compress_avx2_dots[QUANT_N];
const compress_row_batch_fn compress_avx2_batches[QUANT_N];
const compress_block_fn compress_avx2_block;

#endif
