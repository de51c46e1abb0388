/* quant.c: the schemes table, and packing and unpacking a matrix row by row: one packer and
 * one plain unpacker per scheme (table entries). The rules, stated once: every rounding is to
 * nearest, ties to even; a value beyond a format's range saturates to its largest finite code
 * (FP16 scales, which are IEEE, included); a scale is computed from the largest *finite*
 * magnitude of its row, block or tensor, so +-Inf saturates; a NaN makes its row's or block's
 * scale NaN where the element format has no NaN (int8, int4, E2M1), so the NaN survives
 * unpacking; E4M3 keeps a NaN in its own code. Pruning keeps the largest magnitudes (a NaN
 * counts as the largest; ties go to the lower column). Kernels: compress_cpu.c. */
#include "exp/compress/quant.h"

#include <errno.h>
#include <math.h>
#include <omp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "util/error.h"
#include "util/isa.h"

#define ALIGN ((size_t)2 << 20)

/* Packing gigabytes is part of a run's time: the row packers and the generator are compiled
 * for AVX2 and AVX-512 too, as the kernels are (compress_cpu.c, util/isa.h). */
#define PACK_ISA ISA_CLONES

/* Error bounds on a layer's outputs (N(0, sigma) weights, independent inputs: the outputs' error
 * follows the weights'). A uniform quantizer of step q adds noise of RMS q / sqrt(12): int8 with
 * q = amax / 127 and amax of 4096 normals ~ 3.9 sigma gives 0.9 %; int4 with amax of 32 (128)
 * normals ~ 2.1 (2.8) sigma, 8.7 % (11.5 %). Floating formats keep a relative error: E4M3 (3
 * fraction bits) about 2.7 %; E2M1 under an E4M3 block scale (NVFP4) about 10 %, under a
 * power-of-two one (MXFP4: blocks use 1/2 to 1 of E2M1's range) about 12 %; BF16 0.17 %.
 * Magnitude pruning at 50 % removes the energy of a normal's smallest half: sqrt(0.071) = 27 %
 * (compress_error_bound() for other sparsities); 2:4 keeps the larger two of four: 38 %. The
 * expectations were confirmed on 2 M weights (test_compress); each bound is 1.3x its
 * expectation (1.5x for BF16), so a scheme that rounds or scales wrongly fails it. */
const struct quant_scheme quant_schemes[QUANT_N] = {
    [QUANT_FP32] = { "fp32", "FP32 (dense baseline)", "fp32", 32, 0, 0, "none", 0, 1, 32, 1e-5, 1e-6 },
    [QUANT_BF16] = { "bf16", "BF16 (dense baseline)", "bf16", 16, 0, 0, "none", 0, 1, 16, 1e-5, 2.5e-3 },
    [QUANT_INT8] = { "int8", "int8, one FP32 scale per output row", "int8", 8, 0, 0, "fp32", 0, 1, 8,
                     1e-5, 0.012 },
    [QUANT_FP8] = { "fp8", "FP8 E4M3, one FP32 scale per tensor", "e4m3", 8, 0, -1, "fp32", 0, 1, 8,
                    1e-5, 0.036 },
    [QUANT_INT4_G32] = { "int4-g32", "int4, groups of 32, FP16 scales", "int4", 4, 0, 32, "fp16", 16, 1, 4.5,
                         1e-5, 0.13 },
    [QUANT_INT4_G128] = { "int4-g128", "int4, groups of 128, FP16 scales", "int4", 4, 0, 128, "fp16", 16, 1,
                          4.125, 1e-5, 0.16 },
    [QUANT_NVFP4] = { "nvfp4", "NVFP4: E2M1, one E4M3 scale per 16, FP32 per tensor", "e2m1", 4, 0, 16,
                      "e4m3 + fp32 per tensor", 8, 1, 4.5, 1e-5, 0.13 },
    [QUANT_MXFP4] = { "mxfp4", "MXFP4: E2M1, one E8M0 scale per 32", "e2m1", 4, 0, 32, "e8m0", 8, 1, 4.25,
                      1e-5, 0.155 },
    [QUANT_CSR] = { "prune", "magnitude pruning, CSR: BF16 values, 16-bit columns", "bf16", 16, 16, 0, "none",
                    0, 0, 32, 1e-5, 0.35 },
    [QUANT_24] = { "2:4", "2:4 structured: BF16 values, 2-bit positions", "bf16", 16, 2, 0, "none", 0, 0.5, 9,
                   1e-5, 0.49 },
};

int quant_find(const char *name)
{
    for (int i = 0; i < QUANT_N; i++)
        if (strcmp(quant_schemes[i].name, name) == 0)
            return i;
    return -1;
}

static size_t kept_of(enum quant_id id, size_t cols, double sparsity)
{
    if (id == QUANT_24)
        return cols / 2;
    if (id == QUANT_CSR)
        return cols - (size_t)llround(sparsity * (double)cols);
    return cols;
}

const char *quant_shape_problem(enum quant_id id, size_t rows, size_t cols, double sparsity)
{
    int block = quant_schemes[id].block;
    if (rows == 0 || cols == 0)
        return "the matrix is empty";
    if (cols % 8 != 0)
        return "columns must be a multiple of 8";
    if (block > 0 && cols % (size_t)block != 0)
        return "columns must be a multiple of the scheme's block";
    if (id == QUANT_CSR && cols > 65536)
        return "CSR stores 16-bit columns: at most 65536 columns";
    if (id == QUANT_CSR && (kept_of(id, cols, sparsity) == 0 || (double)rows * (double)kept_of(id, cols, sparsity) >= 4294967296.0))
        return "CSR keeps no value per row, or more than 2^32 values in all (32-bit row pointers)";
    return NULL;
}

/* ---- allocation ---- */

static void *alloc_array(size_t bytes)
{
    void *p = NULL;
    size_t rounded = (bytes + ALIGN - 1) / ALIGN * ALIGN;
    if (bytes == 0)
        return NULL;
    if (posix_memalign(&p, ALIGN, rounded) != 0)
        return NULL;
#ifdef MADV_HUGEPAGE
    madvise(p, rounded, MADV_HUGEPAGE);     /* fewer TLB misses; a hint */
#endif
    return p;
}

/* Bytes of vals, scales, idx and rowptr. */
static void array_sizes(const struct quant_matrix *m, size_t b[4])
{
    const struct quant_scheme *s = &quant_schemes[m->id];
    size_t n = m->rows * m->kept, blocks = s->block > 0 ? m->rows * (m->cols / (size_t)s->block) : 0;
    b[0] = (size_t)((double)n * s->value_bits / 8);
    b[1] = m->id == QUANT_INT8 ? m->rows * sizeof(float) : (size_t)((double)blocks * s->scale_bits / 8);
    b[2] = (size_t)((double)n * s->index_bits / 8);
    b[3] = m->id == QUANT_CSR ? (m->rows + 1) * sizeof(uint32_t) : 0;
}

struct quant_matrix *quant_new(enum quant_id id, size_t rows, size_t cols, double sparsity, char *err, size_t errlen)
{
    const char *why = quant_shape_problem(id, rows, cols, sparsity);
    if (why) {
        snprintf(err, errlen, "%s: %zu x %zu: %s", quant_schemes[id].name, rows, cols, why);
        return NULL;
    }
    struct quant_matrix *m = xcalloc(1, sizeof *m);
    m->id = id;
    m->rows = rows;
    m->cols = cols;
    m->kept = kept_of(id, cols, sparsity);
    m->sparsity = id == QUANT_CSR ? sparsity : id == QUANT_24 ? 0.5 : 0;
    m->tensor_scale = 1;
    array_sizes(m, m->bytes);
    void **arrays[4] = { &m->vals, &m->scales, &m->idx, (void **)&m->rowptr };
    for (int i = 0; i < 4; i++) {
        if (m->bytes[i] && !(*arrays[i] = alloc_array(m->bytes[i]))) {
            snprintf(err, errlen, "%s: cannot allocate %zu bytes: %s", quant_schemes[id].name, m->bytes[i],
                     strerror(ENOMEM));
            quant_free(m);
            return NULL;
        }
    }
    return m;
}

void quant_free(struct quant_matrix *m)
{
    if (!m)
        return;
    free(m->vals);
    free(m->scales);
    free(m->idx);
    free(m->rowptr);
    free(m);
}

double quant_bytes(const struct quant_matrix *m)
{
    return (double)m->bytes[0] + (double)m->bytes[1] + (double)m->bytes[2] + (double)m->bytes[3];
}

double quant_bits_per_weight(const struct quant_matrix *m)
{
    return 8.0 * quant_bytes(m) / ((double)m->rows * (double)m->cols) + (m->id == QUANT_FP8 || m->id == QUANT_NVFP4
        ? 32.0 / ((double)m->rows * (double)m->cols) : 0);     /* the per-tensor FP32 scale */
}

void quant_set_amax(struct quant_matrix *m, float amax)
{
    m->amax = amax;
    m->tensor_scale = m->id == QUANT_FP8 ? amax / QUANT_E4M3_MAX
                    : m->id == QUANT_NVFP4 ? amax / (QUANT_E4M3_MAX * QUANT_E2M1_MAX) : 1.0f;
}

/* ---- packers: one per scheme ---- */

/* Largest finite |w| of w[n]; *nan set when one is NaN. On the bits: for magnitudes their order
 * is the values' order, and an integer maximum vectorizes where a float one may not. Inline, so
 * each packer's clone inlines it with its own ISA. */
static inline float finite_amax(const float *w, size_t n, int *nan)
{
    uint32_t a = 0, any = 0;
#pragma omp simd reduction(max:a) reduction(|:any)
    for (size_t i = 0; i < n; i++) {
        uint32_t v = quant_bits(w[i]) & 0x7fffffffu;
        any |= v > 0x7f800000u;
        v = v >= 0x7f800000u ? 0 : v;
        a = v > a ? v : a;
    }
    *nan = any != 0;
    return quant_float(a);
}

static void pack_fp32(struct quant_matrix *m, size_t r, const float *w, float *scratch)
{
    (void)scratch;
    memcpy((float *)m->vals + r * m->cols, w, m->cols * sizeof *w);
}

PACK_ISA static void pack_bf16(struct quant_matrix *m, size_t r, const float *w, float *scratch)
{
    uint16_t *v = (uint16_t *)m->vals + r * m->cols;
    (void)scratch;
#pragma omp simd
    for (size_t c = 0; c < m->cols; c++)
        v[c] = quant_bf16_bits(w[c]);
}

PACK_ISA static void pack_int8(struct quant_matrix *m, size_t r, const float *w, float *scratch)
{
    int nan;
    int8_t *q = (int8_t *)m->vals + r * m->cols;
    float s = finite_amax(w, m->cols, &nan) / 127.0f, d = s > 0 ? s : INFINITY;   /* s = 0: all 0 */
    (void)scratch;
    ((float *)m->scales)[r] = nan ? NAN : s;
#pragma omp simd
    for (size_t c = 0; c < m->cols; c++)
        q[c] = (int8_t)quant_round_clamp(w[c] / d, 127);
}

PACK_ISA static void pack_fp8(struct quant_matrix *m, size_t r, const float *w, float *scratch)
{
    uint8_t *q = (uint8_t *)m->vals + r * m->cols;
    uint32_t *code = (uint32_t *)scratch;           /* cols codes, then narrowed (quant_e4m3_bits) */
    float s = m->tensor_scale > 0 ? m->tensor_scale : 1.0f;    /* 0: every finite w is 0 */
#pragma omp simd
    for (size_t c = 0; c < m->cols; c++)
        code[c] = quant_e4m3_code(w[c] / s);
    uint32_t nan = 0;
#pragma omp simd reduction(|:nan)
    for (size_t c = 0; c < m->cols; c++) {
        q[c] = (uint8_t)code[c];
        nan |= (code[c] & 0x7fu) == QUANT_E4M3_NAN;
    }
    if (nan) {
#pragma omp atomic write
        m->nan_codes = 1;
    }
}

/* int4, groups of g: scale = amax / 7 in FP16 (saturated to 65504), q = w / scale rounded and
 * clamped to [-7, 7] (-8 is never produced). */
/* Two codes a byte, element 2i in the low nibble (code[] from a 32-bit scratch: loops that
 * store bytes directly do not vectorize with GCC 12). */
static inline void pack_nibbles(const uint32_t *code, size_t n, uint8_t *q)
{
#pragma omp simd
    for (size_t i = 0; i < n / 2; i++)
        q[i] = (uint8_t)((code[2 * i] & 0xfu) | ((code[2 * i + 1] & 0xfu) << 4));
}

/* int4, groups of g: scale = amax / 7 in FP16 (saturated to 65504), q = w / scale rounded and
 * clamped to [-7, 7] (-8 is never produced). */
PACK_ISA static void pack_int4(struct quant_matrix *m, size_t r, const float *w, int g, float *scratch)
{
    uint32_t *code = (uint32_t *)scratch;
    uint16_t *sc = (uint16_t *)m->scales + r * (m->cols / (size_t)g);
    for (size_t b = 0; b < m->cols / (size_t)g; b++) {
        int nan;
        const float *x = w + b * (size_t)g;
        uint16_t h = quant_fp16_bits(finite_amax(x, (size_t)g, &nan) / 7.0f);
        if ((h & 0x7fffu) == 0x7c00u)
            h = 0x7bffu;
        sc[b] = nan ? 0x7e00u : h;
        float s = quant_fp16_value(h), d = s > 0 ? s : INFINITY;      /* s = 0: all 0 */
        uint32_t *cb = code + b * (size_t)g;
#pragma omp simd
        for (int i = 0; i < g; i++)
            cb[i] = (uint32_t)quant_round_clamp(x[i] / d, 7);
    }
    pack_nibbles(code, m->cols, (uint8_t *)m->vals + r * m->cols / 2);
}
static void pack_int4_g32(struct quant_matrix *m, size_t r, const float *w, float *s) { pack_int4(m, r, w, 32, s); }
static void pack_int4_g128(struct quant_matrix *m, size_t r, const float *w, float *s) { pack_int4(m, r, w, 128, s); }

/* NVFP4 (NVIDIA's recipe, weights only): tensor scale g = amax / (448 x 6) in FP32; block
 * scale = E4M3(block amax / (6 g)); element = E2M1(w / (E4M3 value x g)). Unpacked:
 * E2M1 value x (E4M3 value x g), the product in brackets rounded to FP32 once. */
PACK_ISA static void pack_nvfp4(struct quant_matrix *m, size_t r, const float *w, float *scratch)
{
    uint32_t *code = (uint32_t *)scratch;
    uint8_t *sc = (uint8_t *)m->scales + r * (m->cols / 16);
    float g = m->tensor_scale;
    for (size_t b = 0; b < m->cols / 16; b++) {
        int nan;
        const float *x = w + b * 16;
        float amax = finite_amax(x, 16, &nan);
        sc[b] = nan ? (uint8_t)QUANT_E4M3_NAN : g > 0 ? quant_e4m3_bits(amax / (6.0f * g)) : 0;
        float d = quant_e4m3_value(sc[b]) * g;
        d = d > 0 ? d : INFINITY;                       /* a zero block: every code 0 */
        uint32_t *cb = code + b * 16;
#pragma omp simd
        for (int i = 0; i < 16; i++)
            cb[i] = quant_e2m1_bits(x[i] / d);
    }
    pack_nibbles(code, m->cols, (uint8_t *)m->vals + r * m->cols / 2);
}

/* MXFP4 (OCP MX v1.0): scale X = 2^(floor(log2 block amax) - 2) as E8M0; element = E2M1(w / X),
 * saturating (the spec's clamp); a NaN in the block makes X NaN (0xff). */
PACK_ISA static void pack_mxfp4(struct quant_matrix *m, size_t r, const float *w, float *scratch)
{
    uint32_t *code = (uint32_t *)scratch;
    uint8_t *sc = (uint8_t *)m->scales + r * (m->cols / 32);
    for (size_t b = 0; b < m->cols / 32; b++) {
        int nan;
        const float *x = w + b * 32;
        float amax = finite_amax(x, 32, &nan);
        sc[b] = nan ? 0xffu : quant_e8m0_for(amax, 2);
        float s = quant_e8m0_value(sc[b]);            /* never 0: 2^-127 at least */
        uint32_t *cb = code + b * 32;
#pragma omp simd
        for (int i = 0; i < 32; i++)
            cb[i] = quant_e2m1_bits(x[i] / s);
    }
    pack_nibbles(code, m->cols, (uint8_t *)m->vals + r * m->cols / 2);
}

/* Magnitudes as ordered integers: |w|'s bits (their order is the values' order); NaN ranks first
 * (above infinity). */
static inline uint32_t magnitude(float v)
{
    uint32_t a = quant_bits(v) & 0x7fffffffu;
    return a > 0x7f800000u ? 0x7f800001u : a;
}

/* The k-th largest of the n magnitudes a[] (1 <= k <= n): radix selection, 12 bits a pass from
 * the top; after the first pass only the values of the chosen bucket (copied to tmp[n]) are
 * counted again. */
static uint32_t kth_largest(const uint32_t *a, size_t n, size_t k, uint32_t *tmp)
{
    static const int shift[3] = { 20, 8, 0 };       /* bits 20..31, 8..19, 0..7 */
    static const uint32_t bins[3] = { 4096, 4096, 256 };
    uint32_t hist[4096], prefix = 0;
    const uint32_t *src = a;
    for (int p = 0; p < 3; p++) {
        uint32_t b = bins[p] - 1;
        memset(hist, 0, bins[p] * sizeof hist[0]);
        for (size_t i = 0; i < n; i++)
            hist[(src[i] >> shift[p]) & (bins[p] - 1)]++;
        while (hist[b] < k) {                       /* from the top bucket down */
            k -= hist[b];
            b--;
        }
        prefix |= b << shift[p];
        size_t m = 0;                               /* the chosen bucket's values, for the next pass */
        for (size_t i = 0; i < n; i++) {
            tmp[m] = src[i];
            m += ((src[i] >> shift[p]) & (bins[p] - 1)) == b;
        }
        src = tmp;
        n = m;
    }
    return prefix;
}

/* CSR, row-wise magnitude pruning: each row keeps its `kept` largest magnitudes (all above the
 * threshold, then those equal to it from the left), in column order. */
PACK_ISA static void pack_csr(struct quant_matrix *m, size_t r, const float *w, float *scratch)
{
    uint32_t *mag = (uint32_t *)scratch, *tmp = xmalloc(m->cols * sizeof *tmp);
    uint16_t *v = (uint16_t *)m->vals + r * m->kept, *col = (uint16_t *)m->idx + r * m->kept;
    size_t above = 0, n = 0;
#pragma omp simd
    for (size_t c = 0; c < m->cols; c++)
        mag[c] = magnitude(w[c]);
    uint32_t t = kth_largest(mag, m->cols, m->kept, tmp);
#pragma omp simd reduction(+:above)
    for (size_t c = 0; c < m->cols; c++)
        above += mag[c] > t;
#pragma omp simd
    for (size_t c = 0; c < m->cols; c++)            /* value and column, ready to copy */
        tmp[c] = ((uint32_t)quant_bf16_bits(w[c]) << 16) | (uint32_t)c;
    size_t ties = m->kept - above;
    for (size_t c = 0; c < m->cols && n < m->kept; c++) {     /* branch-free: write, then advance */
        size_t keep = (mag[c] > t) | ((mag[c] == t) & (ties > 0));
        ties -= keep & (mag[c] == t);
        v[n] = (uint16_t)(tmp[c] >> 16);
        col[n] = (uint16_t)tmp[c];
        n += keep;
    }
    free(tmp);
    m->rowptr[r + 1] = (uint32_t)((r + 1) * m->kept);
    if (r == 0)
        m->rowptr[0] = 0;
}

/* 2:4: in each group of four the two largest magnitudes stay (ties: the lower column), in
 * column order, with their positions. An element stays when fewer than two others beat it
 * (larger, or equal and to its left): no branches. */
PACK_ISA static void pack_24(struct quant_matrix *m, size_t r, const float *w, float *scratch)
{
    uint32_t *bits = (uint32_t *)scratch;          /* per group: the two positions, 4 bits */
    uint16_t *v = (uint16_t *)m->vals + r * m->kept;
    uint8_t *pos = (uint8_t *)m->idx + r * m->kept / 4;
#pragma omp simd
    for (size_t g = 0; g < m->cols / 4; g++) {
        uint32_t a0 = magnitude(w[4 * g]), a1 = magnitude(w[4 * g + 1]), a2 = magnitude(w[4 * g + 2]),
                 a3 = magnitude(w[4 * g + 3]);
        uint32_t k0 = (a1 > a0) + (a2 > a0) + (a3 > a0) < 2, k1 = (a0 >= a1) + (a2 > a1) + (a3 > a1) < 2,
                 k2 = (a0 >= a2) + (a1 >= a2) + (a3 > a2) < 2, k3 = (a0 >= a3) + (a1 >= a3) + (a2 >= a3) < 2;
        uint32_t i0 = k0 ? 0 : k1 ? 1 : 2, i1 = k3 ? 3 : k2 ? 2 : 1;
        v[2 * g] = quant_bf16_bits(w[4 * g + i0]);
        v[2 * g + 1] = quant_bf16_bits(w[4 * g + i1]);
        bits[g] = i0 | (i1 << 2);
    }
#pragma omp simd
    for (size_t j = 0; j < m->cols / 8; j++)
        pos[j] = (uint8_t)(bits[2 * j] | (bits[2 * j + 1] << 4));
}

typedef void (*packer)(struct quant_matrix *, size_t, const float *, float *);
static const packer packers[QUANT_N] = {
    [QUANT_FP32] = pack_fp32, [QUANT_BF16] = pack_bf16, [QUANT_INT8] = pack_int8, [QUANT_FP8] = pack_fp8,
    [QUANT_INT4_G32] = pack_int4_g32, [QUANT_INT4_G128] = pack_int4_g128, [QUANT_NVFP4] = pack_nvfp4,
    [QUANT_MXFP4] = pack_mxfp4, [QUANT_CSR] = pack_csr, [QUANT_24] = pack_24,
};

void quant_pack_row(struct quant_matrix *m, size_t r, const float *w, float *scratch)
{
    packers[m->id](m, r, w, scratch);
}

static int needs_amax(enum quant_id id) { return id == QUANT_FP8 || id == QUANT_NVFP4; }

void quant_pack(struct quant_matrix *m, const float *w, int threads)
{
    m->nan_codes = 0;
    if (needs_amax(m->id)) {
        float amax = 0;
        int nan;
#pragma omp parallel for schedule(static) num_threads(threads) reduction(max:amax)
        for (size_t r = 0; r < m->rows; r++)
            amax = fmaxf(amax, finite_amax(w + r * m->cols, m->cols, &nan));
        quant_set_amax(m, amax);
    }
#pragma omp parallel num_threads(threads)
    {
        float *scratch = xmalloc(m->cols * sizeof *scratch);
#pragma omp for schedule(static)
        for (size_t r = 0; r < m->rows; r++)
            quant_pack_row(m, r, w + r * m->cols, scratch);
        free(scratch);
    }
}

PACK_ISA static void gen_row(uint64_t seed, size_t r, size_t cols, float *w)
{
#pragma omp simd
    for (size_t c = 0; c < cols; c++)
        w[c] = quant_weight(seed, (uint64_t)(r * cols + c));
}

void quant_pack_gen(struct quant_matrix *m, uint64_t seed, int threads)
{
    m->nan_codes = 0;
    float amax = 0;
    int nan;
#pragma omp parallel num_threads(threads) reduction(max:amax)
    {
        float *w = xmalloc(m->cols * sizeof *w);
        if (needs_amax(m->id)) {
#pragma omp for schedule(static)
            for (size_t r = 0; r < m->rows; r++) {
                gen_row(seed, r, m->cols, w);
                amax = fmaxf(amax, finite_amax(w, m->cols, &nan));
            }
        }
        free(w);
    }
    if (needs_amax(m->id))
        quant_set_amax(m, amax);
#pragma omp parallel num_threads(threads)
    {
        float *w = xmalloc(2 * m->cols * sizeof *w), *scratch = w + m->cols;
#pragma omp for schedule(static)
        for (size_t r = 0; r < m->rows; r++) {
            gen_row(seed, r, m->cols, w);
            quant_pack_row(m, r, w, scratch);
        }
        free(w);
    }
}

/* ---- plain twins ---- */

static void unpack_dense(const struct quant_matrix *m, size_t r, float *w)
{
    size_t n = m->cols;
    const void *v = m->vals;
    for (size_t c = 0; c < n; c++) {
        size_t i = r * n + c;
        uint8_t byte = m->id >= QUANT_INT4_G32 && m->id <= QUANT_MXFP4 ? ((const uint8_t *)v)[i / 2] : 0;
        switch (m->id) {
        case QUANT_FP32: w[c] = ((const float *)v)[i]; break;
        case QUANT_BF16: w[c] = quant_bf16_value(((const uint16_t *)v)[i]); break;
        case QUANT_INT8: w[c] = (float)((const int8_t *)v)[i] * ((const float *)m->scales)[r]; break;
        case QUANT_FP8: w[c] = quant_e4m3_value(((const uint8_t *)v)[i]) * m->tensor_scale; break;
        case QUANT_INT4_G32: case QUANT_INT4_G128: {
            size_t g = (size_t)quant_schemes[m->id].block;
            w[c] = (float)quant_nibble_s4(byte, (int)(i & 1)) * quant_fp16_value(((const uint16_t *)m->scales)[i / g]);
            break;
        }
        case QUANT_NVFP4:
            w[c] = quant_e2m1_value((uint8_t)(i & 1 ? byte >> 4 : byte & 0xf))
                   * (quant_e4m3_value(((const uint8_t *)m->scales)[i / 16]) * m->tensor_scale);
            break;
        case QUANT_MXFP4:
            w[c] = quant_e2m1_value((uint8_t)(i & 1 ? byte >> 4 : byte & 0xf))
                   * quant_e8m0_value(((const uint8_t *)m->scales)[i / 32]);
            break;
        default: break;
        }
    }
}

void quant_unpack_row(const struct quant_matrix *m, size_t r, float *w)
{
    if (m->id == QUANT_CSR) {
        const uint16_t *v = m->vals, *col = m->idx;
        memset(w, 0, m->cols * sizeof *w);
        for (uint32_t k = m->rowptr[r]; k < m->rowptr[r + 1]; k++)
            w[col[k]] = quant_bf16_value(v[k]);
    } else if (m->id == QUANT_24) {
        const uint16_t *v = (const uint16_t *)m->vals + r * m->kept;
        const uint8_t *pos = (const uint8_t *)m->idx + r * m->kept / 4;
        memset(w, 0, m->cols * sizeof *w);
        for (size_t k = 0; k < m->kept; k++)
            w[4 * (k / 2) + ((pos[k / 4] >> (2 * (k % 4))) & 3u)] = quant_bf16_value(v[k]);
    } else {
        unpack_dense(m, r, w);
    }
}

double quant_ref_dot(const struct quant_matrix *m, size_t r, const float *x, float *scratch, double *abs_sum)
{
    double s = 0, a = 0;
    quant_unpack_row(m, r, scratch);
    for (size_t c = 0; c < m->cols; c++) {
        s += (double)scratch[c] * (double)x[c];
        a += fabs((double)scratch[c] * (double)x[c]);
    }
    if (abs_sum)
        *abs_sum = a;
    return s;
}
