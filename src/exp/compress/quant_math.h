/* quant_math.h: the number formats of the compression family, bit by bit, shared by the CPU
 * kernels, the CUDA kernels and the tests (SR_HD): FP16 and BF16 (IEEE, round to nearest
 * even), FP8 E4M3 (OCP: bias 7, max 448, no infinities, saturating), FP4 E2M1 (saturating),
 * E8M0 (MX power-of-two scales), signed int4 nibbles, and the weight generators. Conversions
 * work on the bits (no frexp or division), so a kernel decodes exactly what the quantizer
 * encoded. How a matrix is packed is quant.c's business; these only map numbers to codes. */
#ifndef SR_QUANT_MATH_H
#define SR_QUANT_MATH_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "util/hd.h"

SR_HD uint32_t quant_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

SR_HD float quant_float(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* ---- FP16 (binary16): 1 sign, 5 exponent (bias 15), 10 fraction bits ------------------- */

/* Round to nearest, ties to even; beyond 65504 (from 65520 on, the halfway point to 2^16) to
 * infinity, as IEEE; NaN stays a quiet NaN with its sign. */
SR_HD uint16_t quant_fp16_bits(float f)
{
    uint32_t u = quant_bits(f), s = (u >> 16) & 0x8000u, a = u & 0x7fffffffu;
    if (a > 0x7f800000u)
        return (uint16_t)(s | 0x7e00u | ((a >> 13) & 0x3ffu));
    if (a >= 0x477ff000u)                       /* 65520 and above, infinity included */
        return (uint16_t)(s | 0x7c00u);
    if (a >= 0x38800000u) {                     /* 2^-14 and above: normal */
        a += 0xfffu + ((a >> 13) & 1u);         /* round the 13 dropped bits, ties to even */
        return (uint16_t)(s | ((a - 0x38000000u) >> 13));   /* exponent bias 127 -> 15 */
    }
    /* subnormal: a multiple of 2^-24; |f| x 2^24 is exact, rintf rounds ties to even (1024
     * becomes the smallest normal, 0x0400, by itself) */
    return (uint16_t)(s | (uint32_t)rintf(fabsf(f) * 0x1p24f));
}

SR_HD float quant_fp16_value(uint16_t h)
{
    uint32_t s = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
    if (e == 0) {
        float v = (float)m * 0x1p-24f;
        return s ? -v : v;
    }
    if (e == 31)
        return quant_float(s | 0x7f800000u | (m << 13));
    return quant_float(s | ((e + 112u) << 23) | (m << 13));
}

/* ---- BF16: the upper half of an FP32 ------------------------------------------------------ */

SR_HD uint16_t quant_bf16_bits(float f)     /* ties to even; NaN stays a quiet NaN */
{
    uint32_t u = quant_bits(f);
    uint32_t r = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16, q = (u >> 16) | 0x40u;
    return (uint16_t)((u & 0x7fffffffu) > 0x7f800000u ? q : r);
}

SR_HD float quant_bf16_value(uint16_t b) { return quant_float((uint32_t)b << 16); }

/* ---- FP8 E4M3 (OCP 8-bit floating point): 1 sign, 4 exponent (bias 7), 3 fraction -------- */

#define QUANT_E4M3_MAX 448.0f
#define QUANT_E4M3_NAN 0x7fu                    /* S.1111.111; the only NaN, no infinities */

/* Ties to even; |x| >= 448 (infinity included) saturates to +-448 (0x7e), as the "satfinite"
 * conversions do; NaN becomes 0x7f with the sign. Subnormals are multiples of 2^-9: |x| x 2^9
 * rounded (8 is the smallest normal, by itself). Selects only, so packers vectorize it. (The
 * rounding assumes the default rounding mode, as all of sparkreport does.) */
SR_HD uint32_t quant_e4m3_code(float x)
{
    uint32_t u = quant_bits(x), s = (u >> 24) & 0x80u, a = u & 0x7fffffffu;
    uint32_t r = a + 0x7ffffu + ((a >> 20) & 1u);          /* round the 20 dropped bits */
    uint32_t nrm = (r >> 20) - (120u << 3);                 /* exponent bias 127 -> 7 */
    /* subnormal: |x| x 2^9 (at most 8) rounded to an integer, ties to even, by adding and taking
     * away 2^23 (no call, so the select below does not stop vectorization) */
    float low = quant_float(a < 0x3c800000u ? a : 0x3c800000u);  /* below 2^-6, else 2^-6 */
    uint32_t sub = (uint32_t)(int)((low * 512.0f + 0x1p23f) - 0x1p23f);
    uint32_t c = a >= 0x3c800000u ? nrm : sub;              /* 2^-6 and above: normal */
    c = a >= 0x43e00000u ? 0x7eu : c;                       /* 448 and above: saturate */
    c = a > 0x7f800000u ? QUANT_E4M3_NAN : c;
    return s | c;
}

/* The same code as a byte. (Loops that store bytes directly do not vectorize with GCC 12;
 * quant_e4m3_code into a 32-bit array, then narrowing, does.) */
SR_HD uint8_t quant_e4m3_bits(float x) { return (uint8_t)quant_e4m3_code(x); }

/* Branch-free (masks, no selects), so the CPU kernels vectorize it: normal codes by moving
 * the fields into an FP32, subnormals as code x 2^-9, NaN by setting a quiet NaN's bits. */
SR_HD float quant_e4m3_value(uint8_t b)
{
    uint32_t mag = b & 0x7fu;
    uint32_t sub = quant_bits((float)(int)mag * 0x1p-9f), nrm = (mag << 20) + (120u << 23);
    uint32_t small = 0u - (uint32_t)(mag < 8), nan = 0u - (uint32_t)(mag == QUANT_E4M3_NAN);
    uint32_t v = (sub & small) | (nrm & ~small) | (nan & 0x7fc00000u);
    return quant_float(v | ((uint32_t)(b & 0x80u) << 24));
}

/* ---- FP4 E2M1: 1 sign, 2 exponent (bias 1), 1 fraction: 0, 0.5, 1, 1.5, 2, 3, 4, 6 ------ */

#define QUANT_E2M1_MAX 6.0f

/* Ties to even: each threshold is the midpoint of two neighbours, included on the side whose
 * code is even. |x| > 5 (infinity included) saturates to 6. E2M1 has no NaN: the packers
 * carry a NaN through the block's scale and never pass one here (it would become zero). */
SR_HD uint8_t quant_e2m1_bits(float x)
{
    float a = fabsf(x);
    unsigned c = (a > 0.25f) + (a >= 0.75f) + (a > 1.25f) + (a >= 1.75f) + (a > 2.5f) + (a >= 3.5f)
               + (a > 5.0f);
    return (uint8_t)((signbit(x) ? 8u : 0u) | c);
}

/* Twice the value of code c (0..15), a whole number: +-0, 1, 2, 3, 4, 6, 8, 12 ((2 + m) << (e - 1)
 * for e > 0, else m); branch-free. The code -0 (8) gives 0. */
SR_HD int quant_e2m1_twice(unsigned c)
{
    int e = (int)((c >> 1) & 3u), m = (int)(c & 1u);
    int t = ((2 + m) << e) >> 1;
    t = e == 0 ? m : t;
    return (c & 8u) ? -t : t;
}

SR_HD float quant_e2m1_value(uint8_t c)
{
    float v = 0.5f * (float)quant_e2m1_twice(c & 7u);
    return (c & 8u) ? -v : v;
}

/* ---- E8M0 (OCP MX scale): 2^(code - 127); 0xff is NaN --------------------------------------- */

SR_HD float quant_e8m0_value(uint8_t c)
{
    return c == 0xffu ? NAN : c == 0 ? 0x1p-127f : quant_float((uint32_t)c << 23);
}

/* The MX scale of a block whose largest finite magnitude is amax, for elements whose largest
 * power of two is 2^emax_elem (E2M1: 2): 2^(floor(log2 amax) - emax_elem), the exponent clamped
 * to [-127, 127]; amax = 0 gives the smallest scale (the block is all zero). */
SR_HD uint8_t quant_e8m0_for(float amax, int emax_elem)
{
    if (!(amax > 0))
        return 0;
    /* floor(log2 amax) from the exponent field; a subnormal amax reads as -127, which the
     * clamp below would give anyway */
    int e = (int)((quant_bits(amax) >> 23) & 0xffu) - 127 - emax_elem;
    if (e < -127)
        e = -127;
    if (e > 127)
        e = 127;
    return (uint8_t)(e + 127);
}

/* ---- signed int4 in nibbles: element 2i in the low nibble of byte i, 2i + 1 in the high ---- */

SR_HD int quant_nibble_s4(uint8_t byte, int high)     /* two's complement, -8 .. 7 */
{
    int v = high ? byte >> 4 : byte & 0xf;
    return v >= 8 ? v - 16 : v;
}

/* Round to nearest even integer and clamp to [-lim, lim]; NaN gives 0 (the packers carry NaN
 * through the scale). Selects only, so packers vectorize it. */
SR_HD int quant_round_clamp(float x, int lim)
{
    float r = rintf(x), l = (float)lim;
    r = r > l ? l : r;
    r = r < -l ? -l : r;
    return (int)(x != x ? 0.0f : r);
}

/* ---- weights: the same values on every device, without storing them -------------------- */

SR_HD uint64_t quant_mix(uint64_t x)            /* splitmix64's finaliser */
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

#define QUANT_WEIGHT_STD 0.02f                  /* GPT-2's initialisation */

SR_HD uint32_t quant_hash32(uint32_t x)         /* "lowbias32" (C. Wellons): 32-bit multiplies */
{
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    return x ^ (x >> 16);
}

/* Element i of the streamed matrices: the sum of four 16-bit uniforms from two 32-bit hashes
 * (Irwin-Hall, bell-shaped, tails cut at 3.46 standard deviations), scaled to mean 0 and
 * standard deviation 0.02. 32-bit arithmetic only, so filling gigabytes vectorizes; the
 * accuracy layer uses quant_gauss. */
SR_HD float quant_weight(uint64_t seed, uint64_t i)
{
    uint32_t a = quant_hash32((uint32_t)i ^ quant_hash32((uint32_t)(i >> 32) ^ (uint32_t)seed));
    uint32_t b = quant_hash32(a ^ 0x68e31da4u);
    int s = (int)((a & 0xffffu) + (a >> 16) + (b & 0xffffu) + (b >> 16));
    return ((float)s * (1.0f / 65536.0f) - 2.0f) * (1.7320508f * QUANT_WEIGHT_STD);
}

/* Element i of a standard normal sequence (Box-Muller on two 32-bit uniforms of one hash). */
SR_HD double quant_gauss(uint64_t seed, uint64_t i)
{
    uint64_t h = quant_mix(seed ^ quant_mix(i));
    double u1 = ((double)(h >> 32) + 0.5) * 0x1p-32, u2 = (double)(h & 0xffffffffu) * 0x1p-32;
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

#endif
