/* precision_math.h: the arithmetic the CPU and CUDA backends of the precision family share
 * (SR_HD, so the unit tests exercise what the GPU kernels run): rounding to BF16, FP16, TF32,
 * FP8 E4M3 and FP4 E2M1 and their bit patterns, block scales (NVFP4, MXFP4) in cuBLASLt's
 * scale-tensor layout, the input generator, the FMA chain of the intensity sweep, and FLOP and
 * byte counts. Which format runs where, and how it is timed, is precision.c's business. */
#ifndef SR_PRECISION_MATH_H
#define SR_PRECISION_MATH_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "util/hd.h"

/* GEMM formats: inputs A and B in this format, accumulation and output as the table in
 * precision.c says. The order is the report's. PREC_FP8_FAST: the same FP8 inputs with
 * cuBLASLt's fast accumulation (CUBLASLT_MATMUL_DESC_FAST_ACCUM), what PyTorch's and Transformer
 * Engine's FP8 figures use; PREC_FP8 accumulates in full FP32. */
enum prec_fmt {
    PREC_FP64 = 0, PREC_FP32, PREC_TF32, PREC_BF16, PREC_FP16, PREC_FP16_ACC16, PREC_FP8, PREC_FP8_FAST,
    PREC_NVFP4, PREC_MXFP4, PREC_NFMT
};

/* ---- rounding: x to the nearest value of a binary format, ties to even ------------------ */

/* A format with p significand bits (the implicit one included), smallest normal exponent
 * emin and largest finite value max. Beyond max: +-max when saturating (the OCP "satfinite"
 * conversions FP8 and FP4 use), else +-infinity (IEEE). NaN passes through. */
SR_HD double prec_round(double x, int p, int emin, double max, int saturate)
{
    if (x == 0.0 || x != x || isinf(x))
        return x;
    int e;
    frexp(fabs(x), &e);
    e -= 1;                                 /* |x| = 1.f x 2^e */
    if (e < emin)
        e = emin;                           /* subnormal: the quantum stops shrinking */
    double q = ldexp(1.0, e - (p - 1));
    double r = rint(x / q) * q;             /* x / q is exact: q is a power of two */
    if (fabs(r) > max)
        r = saturate ? copysign(max, x) : copysign(INFINITY, x);
    return r;
}

#define PREC_BF16_MAX 0x1.fep127
#define PREC_FP16_MAX 65504.0
#define PREC_TF32_MAX 0x1.ffcp127
#define PREC_E4M3_MAX 448.0
#define PREC_E2M1_MAX 6.0

SR_HD double prec_round_bf16(double x) { return prec_round(x, 8, -126, PREC_BF16_MAX, 0); }
SR_HD double prec_round_fp16(double x) { return prec_round(x, 11, -14, PREC_FP16_MAX, 0); }
SR_HD double prec_round_tf32(double x) { return prec_round(x, 11, -126, PREC_TF32_MAX, 0); }
SR_HD double prec_round_fp32(double x) { return prec_round(x, 24, -126, 0x1.fffffep127, 0); }
SR_HD double prec_round_e4m3(double x) { return prec_round(x, 4, -6, PREC_E4M3_MAX, 1); }
SR_HD double prec_round_e2m1(double x) { return prec_round(x, 2, 0, PREC_E2M1_MAX, 1); }

/* ---- bit patterns: sign, then ebits of exponent (bias), then mbits of fraction ---------- */

/* v must be finite and exactly representable (the output of the matching prec_round_*). */
SR_HD unsigned prec_encode(double v, int ebits, int mbits, int bias)
{
    unsigned s = signbit(v) ? 1u : 0u, body = 0;
    double a = fabs(v);
    if (a != 0.0) {
        int e;
        frexp(a, &e);
        e -= 1;
        if (e < 1 - bias)                   /* subnormal: exponent field 0 */
            body = (unsigned)(a / ldexp(1.0, 1 - bias - mbits));
        else
            body = ((unsigned)(e + bias) << mbits) | (unsigned)((a / ldexp(1.0, e) - 1.0) * (double)(1u << mbits));
    }
    return (s << (ebits + mbits)) | body;
}

/* Finite codes only: the callers never produce infinities or NaNs (FP8/FP4 saturate). */
SR_HD double prec_decode(unsigned bits, int ebits, int mbits, int bias)
{
    unsigned m = bits & ((1u << mbits) - 1), e = (bits >> mbits) & ((1u << ebits) - 1);
    double a = e == 0 ? ldexp((double)m, 1 - bias - mbits) : ldexp(1.0 + (double)m / (double)(1u << mbits), (int)e - bias);
    return (bits >> (ebits + mbits)) & 1u ? -a : a;
}

SR_HD uint16_t prec_bf16_bits(double x)     /* round to BF16, return its 16 bits */
{
    float f = (float)prec_round_bf16(x);    /* exact: a BF16 value is a float */
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    if (f != f)
        return (uint16_t)((u >> 16) | 0x40u);   /* stays a quiet NaN */
    return (uint16_t)(u >> 16);
}

SR_HD double prec_bf16_value(uint16_t b)
{
    uint32_t u = (uint32_t)b << 16;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

SR_HD uint16_t prec_fp16_bits(double x)     /* round to FP16, return its 16 bits */
{
    double r = prec_round_fp16(x);
    if (r != r)
        return 0x7e00;
    if (isinf(r))
        return signbit(r) ? 0xfc00 : 0x7c00;
    return (uint16_t)prec_encode(r, 5, 10, 15);
}

SR_HD double prec_fp16_value(uint16_t b)
{
    if ((b & 0x7c00) == 0x7c00)
        return (b & 0x3ff) ? NAN : ((b & 0x8000) ? -INFINITY : INFINITY);
    return prec_decode(b, 5, 10, 15);
}

SR_HD uint8_t prec_e4m3_bits(double x) { return (uint8_t)prec_encode(prec_round_e4m3(x), 4, 3, 7); }
SR_HD double prec_e4m3_value(uint8_t b) { return prec_decode(b, 4, 3, 7); }
SR_HD uint8_t prec_e2m1_bits(double x) { return (uint8_t)prec_encode(prec_round_e2m1(x), 2, 1, 1); }
SR_HD double prec_e2m1_value(uint8_t b) { return prec_decode(b & 0xfu, 2, 1, 1); }

/* ---- inputs: the same values on every device, without storing them ---------------------- */

SR_HD uint64_t prec_mix(uint64_t x)         /* splitmix64's finaliser */
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* Element i of input tensor `seed`: uniform in (-1, 1), never zero, amax below 1. A GEMM's
 * logical A(r, p) is element r*k + p and B(p, c) is c*k + p: exactly where they lie in the
 * "TN" storage every backend uses (A stored k x m, B stored k x n, column-major). */
SR_HD double prec_input(uint64_t seed, uint64_t i)
{
    uint64_t h = prec_mix(seed ^ prec_mix(i));
    return ((double)(h >> 12) + 0.5) * 0x1p-51 - 1.0;
}

/* ---- scaling of the narrow formats ------------------------------------------------------ */

#define PREC_FP8_SCALE 448.0        /* per tensor: inputs (amax < 1) x 448 fill E4M3's range;
                                       cuBLASLt gets 1/448 as the A and B scale */
#define PREC_NVFP4_GLOBAL 2688.0    /* 448 x 6: inputs x this put block amaxes in UE4M3's range;
                                       alpha carries 1/(2688 x 2688) back */
#define PREC_BLOCK_MAX 32

/* Quantizes one block of n consecutive inputs (n = 16 for NVFP4: E2M1 values, one UE4M3
 * scale, after the tensor-wide factor PREC_NVFP4_GLOBAL; n = 32 for MXFP4: E2M1 values, one
 * UE8M0 power-of-two scale 2^(floor(log2 amax) - 2), the OCP MX rule). Writes the n E2M1
 * codes, the dequantized values (in input units, may be NULL) and returns the scale's code. */
SR_HD unsigned prec_fp4_block(const double *x, int n, int mx, uint8_t *codes, double *deq)
{
    double g = mx ? 1.0 : PREC_NVFP4_GLOBAL, amax = 0, s;
    unsigned code;
    for (int i = 0; i < n; i++)
        amax = fmax(amax, fabs(x[i] * g));
    if (mx) {
        int e;
        frexp(amax, &e);                    /* amax = f x 2^e, f in [0.5, 1) */
        int ex = amax > 0 ? e - 1 - 2 : -127;
        s = ldexp(1.0, ex);
        code = (unsigned)(ex + 127);
    } else {
        s = prec_round_e4m3(amax / PREC_E2M1_MAX);
        code = prec_encode(s, 4, 3, 7);
    }
    for (int i = 0; i < n; i++) {
        double v = s > 0 ? prec_round_e2m1(x[i] * g / s) : 0.0;
        codes[i] = (uint8_t)prec_encode(v, 2, 1, 1);
        if (deq)
            deq[i] = v * s / g;
    }
    return code;
}

/* Byte offset of the scale of block kb of row r (r: the outer index, m of A or n of B; nkb:
 * blocks along K) in cuBLASLt's tiled scale tensor: tiles of 128 rows x 4 blocks (512 bytes)
 * with K tiles innermost; inside a tile, r % 32 picks a 16-byte line, (r % 128) / 32 its
 * 4-byte group and kb % 4 the byte. */
SR_HD size_t prec_scale_offset(size_t r, size_t kb, size_t nkb)
{
    size_t ktiles = (nkb + 3) / 4;
    return ((r / 128) * ktiles + kb / 4) * 512 + (r % 32) * 16 + ((r % 128) / 32) * 4 + kb % 4;
}

SR_HD size_t prec_scale_bytes(size_t rows, size_t nkb)     /* padded to whole tiles */
{
    return (rows + 127) / 128 * 128 * ((nkb + 3) / 4 * 4);
}

/* The value a backend is given for element i of a tensor in format f (dequantized: what the
 * product really multiplies), from the same generator; k is the length of a row along K (the
 * block formats quantize blocks along it; k must be a multiple of the block). */
SR_HD double prec_input_as(int f, uint64_t seed, uint64_t i, uint64_t k)
{
    double x = prec_input(seed, i);
    switch (f) {
    case PREC_FP32: return prec_round_fp32(x);
    case PREC_TF32: return prec_round_tf32(prec_round_fp32(x));
    case PREC_BF16: return prec_round_bf16(x);
    case PREC_FP16: case PREC_FP16_ACC16: return prec_round_fp16(x);
    case PREC_FP8: case PREC_FP8_FAST: return prec_round_e4m3(x * PREC_FP8_SCALE) / PREC_FP8_SCALE;
    case PREC_NVFP4: case PREC_MXFP4: {
        int n = f == PREC_NVFP4 ? 16 : 32;
        uint64_t row = i / k, first = row * k + (i % k) / (uint64_t)n * (uint64_t)n;
        double xs[PREC_BLOCK_MAX], deq[PREC_BLOCK_MAX];
        uint8_t codes[PREC_BLOCK_MAX];
        for (int j = 0; j < n; j++)
            xs[j] = prec_input(seed, first + (uint64_t)j);
        prec_fp4_block(xs, n, f == PREC_MXFP4, codes, deq);
        return deq[i - first];
    }
    default: return x;
    }
}

/* ---- the intensity sweep's FMA chain ----------------------------------------------------- */

/* x <- x * m + a, k times, per element read; m = 1 is passed at run time so no compiler folds
 * the multiply away. Values are multiples of 1/1024 below 2^13, exact in FP32 and FP64 for k up
 * to 2^22, so x_k = x_0 + k a exactly and fused or not, every device gets the same bits. */
#define PREC_CHAIN_ADD (1.0 / 1024.0)
SR_HD double prec_chain_init(size_t i) { return 1.0 + (double)(i % 1024) / 1024.0; }

SR_HD double prec_chain_sum(size_t n, long k)       /* sum of x_k over elements 0 .. n-1 */
{
    double cycles = (double)(n / 1024), rem = (double)(n % 1024);
    double base = cycles * 1535.5 + rem + rem * (rem - 1) / 2048.0;   /* sum of x_0 */
    return base + (double)n * (double)k * PREC_CHAIN_ADD;
}

SR_HD double prec_chain_flops(long k) { return 2.0 * (double)k + 1.0; }   /* per element, the sum's add included */

/* ---- counts ------------------------------------------------------------------------------ */

SR_HD double prec_gemm_flops(double m, double n, double k) { return 2.0 * m * n * k; }

/* Bytes a GEMM must move at least: A and B once (scales included), D once; C is not read
 * (beta = 0). in_bytes and out_bytes per element, from the format table. */
SR_HD double prec_gemm_bytes(double m, double n, double k, double in_bytes, double out_bytes)
{
    return (m * k + k * n) * in_bytes + m * n * out_bytes;
}

#endif
