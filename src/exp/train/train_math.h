/* train_math.h: the per-element math of the training step, shared by the CPU backend and the
 * CUDA kernels (SR_HD), so the CPU tests exercise what the GPU computes: BF16 and FP8 E4M3
 * rounding, GELU and its derivative, the LayerNorm input gradient, one AdamW update, and the
 * counter-based random numbers that make data and initial weights a function of the seed.
 * Loops, reductions and memory layout are the backends'. */
#ifndef SR_TRAIN_MATH_H
#define SR_TRAIN_MATH_H

#include <math.h>
#include <stdint.h>

#include "util/hd.h"

/* ---- BF16: the upper half of an IEEE binary32, rounded to nearest, ties to even ---- */

SR_HD uint16_t train_bf16(float f)
{
    union { float f; uint32_t u; } v;
    v.f = f;
    if ((v.u & 0x7fffffffu) > 0x7f800000u)          /* NaN: keep the sign, make it quiet */
        return (uint16_t)((v.u >> 16) | 0x0040u);
    v.u += 0x7fffu + ((v.u >> 16) & 1u);            /* overflow past the largest finite -> inf */
    return (uint16_t)(v.u >> 16);
}

SR_HD float train_bf16_f32(uint16_t b)
{
    union { uint32_t u; float f; } v;
    v.u = (uint32_t)b << 16;
    return v.f;
}


/* ---- FP8 E4M3 (OCP "E4M3FN": bias 7, no infinities, 0x7f NaN, largest finite 448) ----
 * Rounded to nearest, ties to even; values beyond 448, infinities included, saturate to 448
 * (the "satfinite" conversion scaled FP8 training uses). */

#define TRAIN_E4M3_MAX 448.0f

SR_HD uint8_t train_e4m3(float f)
{
    union { float f; uint32_t u; } v;
    v.f = f;
    uint8_t sign = (uint8_t)((v.u >> 24) & 0x80u);
    uint32_t u = v.u & 0x7fffffffu;
    if (u > 0x7f800000u)
        return (uint8_t)(sign | 0x7fu);
    if (u >= 0x43e00000u)                           /* 448.0f and above */
        return (uint8_t)(sign | 0x7eu);
    if (u < 0x00800000u)                            /* binary32 zero or subnormal: far below */
        return sign;
    int e = (int)(u >> 23) - 127;
    uint32_t mant = (u & 0x7fffffu) | 0x800000u;    /* 24 significant bits */
    int sh = 20 + (e < -6 ? -6 - e : 0);            /* keep 3 fraction bits, fewer below 2^-6 */
    if (sh > 31)
        return sign;
    uint32_t q = mant >> sh, rem = mant & ((1u << sh) - 1u), half = 1u << (sh - 1);
    if (rem > half || (rem == half && (q & 1u)))
        q++;
    if (e < -6)                                     /* subnormal: q quanta of 2^-9 (8: 2^-6) */
        return (uint8_t)(sign | q);
    int E = e + 7;
    if (q == 16) {
        q = 8;
        E++;
    }
    uint32_t code = ((uint32_t)E << 3) | (q & 7u);
    return (uint8_t)(sign | (code > 0x7eu ? 0x7eu : code));
}

SR_HD float train_e4m3_f32(uint8_t c)
{
    float s = (c & 0x80u) ? -1.0f : 1.0f;
    int E = (c >> 3) & 15, m = c & 7;
    if (E == 15 && m == 7)
        return NAN;
    if (E == 0)
        return s * ldexpf((float)m, -9);
    return s * ldexpf((float)(8 + m), E - 10);
}

/* ---- exp for the CPU loops. glibc's expf is a call, so a loop that calls it stays scalar; the
 * host evaluates Cephes' single-precision exp instead (S. L. Moshier, Cephes Math Library, expf.c:
 * x = n ln2 + r with ln2 in two parts, |r| <= ln2 / 2, exp(r) by its degree-5 polynomial), in
 * plain arithmetic a loop vectorizes: n by the 1.5 * 2^23 rounding trick, 2^n as two power-of-two
 * factors (both normal for every n in range). Within 1 ulp (test_train). Below -87.33 (FLT_MIN's
 * log) it gives 0, no subnormals; above 88.73, inf; NaN stays NaN. The device keeps CUDA's expf. ---- */

#define TRAIN_EXP_LO -87.33f
#define TRAIN_EXP_HI 88.73f

SR_HD float train_expf(float x)
{
#ifdef __CUDA_ARCH__
    return expf(x);
#else
    const float round = 12582912.0f;                /* 1.5 * 2^23 */
    float c = x >= TRAIN_EXP_LO ? (x <= TRAIN_EXP_HI ? x : TRAIN_EXP_HI) : TRAIN_EXP_LO; /* NaN: LO */
    union { float f; int32_t i; } t, s1, s2;
    t.f = c * 1.44269504088896341f + round;         /* round(c / ln2) in the low bits */
    float n = t.f - round;
    float r = (c - n * 0.693359375f) - n * -2.12194440e-4f;
    float p = 1.9875691500e-4f;
    p = p * r + 1.3981999507e-3f;
    p = p * r + 8.3334519073e-3f;
    p = p * r + 4.1665795894e-2f;
    p = p * r + 1.6666665459e-1f;
    p = p * r + 5.0000001201e-1f;
    p = p * r * r + r + 1.0f;
    int32_t k = t.i - 0x4b400000;                   /* the bits of 1.5 * 2^23 */
    int32_t k1 = k / 2;
    s1.i = (k1 + 127) * (1 << 23);
    s2.i = (k - k1 + 127) * (1 << 23);
    float y = p * s1.f * s2.f;
    return x != x ? x : x < TRAIN_EXP_LO ? 0.0f : x > TRAIN_EXP_HI ? INFINITY : y;
#endif
}

/* ---- GELU, tanh form (GPT-2's): 0.5 x (1 + tanh(u)) = x sigmoid(2u), u = k (x + c x^3),
 * evaluated through one exp (a tenth of tanhf's cost in glibc, and no cancellation) ---- */

#define TRAIN_GELU_K 0.7978845608028654f           /* sqrt(2 / pi) */
#define TRAIN_GELU_C 0.044715f

SR_HD float train_gelu(float x)
{
    float u = TRAIN_GELU_K * (x + TRAIN_GELU_C * x * x * x);
    return x / (1.0f + train_expf(-2.0f * u));
}

/* d/dx [x s(2u)] = s + 2 x s (1 - s) du/dx */
SR_HD float train_gelu_grad(float x)
{
    float x2 = x * x;
    float s = 1.0f / (1.0f + train_expf(-2.0f * TRAIN_GELU_K * (x + TRAIN_GELU_C * x2 * x)));
    float du = TRAIN_GELU_K * (1.0f + 3.0f * TRAIN_GELU_C * x2);
    return s + 2.0f * x * s * (1.0f - s) * du;
}

/* ---- LayerNorm: y = (x - mean) rstd w + b; the input gradient of one element given the
 * row's means of dn = w dy and of dn * xhat ---- */

#define TRAIN_LN_EPS 1e-5f

SR_HD float train_ln_dx(float dy, float w, float xhat, float rstd, float mean_dn, float mean_dn_xhat)
{
    return rstd * (w * dy - mean_dn - xhat * mean_dn_xhat);
}

/* ---- AdamW (Loshchilov & Hutter): bias-corrected moments, decoupled weight decay, the
 * gradient scaled first by the global-norm clipping factor ---- */

struct train_adam {
    float lr, beta1, beta2, eps, weight_decay;
    float bc1, bc2;             /* 1 - beta1^t, 1 - beta2^t at step t (from 1) */
    float grad_scale;           /* min(1, clip / global norm) */
};

SR_HD float train_adamw(float w, float *m, float *v, float g, const struct train_adam *a, int decay)
{
    g *= a->grad_scale;
    float mm = a->beta1 * *m + (1.0f - a->beta1) * g;
    float vv = a->beta2 * *v + (1.0f - a->beta2) * g * g;
    *m = mm;
    *v = vv;
    float step = (mm / a->bc1) / (sqrtf(vv / a->bc2) + a->eps);
    return w - a->lr * (step + (decay ? a->weight_decay * w : 0.0f));
}

/* ---- counter-based random numbers: value i of stream `key`, no state ---- */

SR_HD uint64_t train_mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;                     /* splitmix64's finaliser */
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

SR_HD uint64_t train_rand(uint64_t key, uint64_t i) { return train_mix(key ^ train_mix(i)); }

/* Uniform in (0, 1): 53 random bits, never 0. */
SR_HD double train_uniform(uint64_t key, uint64_t i)
{
    return ((double)(train_rand(key, i) >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

/* Standard normal (Box-Muller over draws 2i and 2i + 1). */
SR_HD double train_normal(uint64_t key, uint64_t i)
{
    double u1 = train_uniform(key, 2 * i), u2 = train_uniform(key, 2 * i + 1);
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

#endif
