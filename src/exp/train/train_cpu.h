/* train_cpu.h: the CPU training kernels other than the matmuls, as functions of plain arrays
 * (OpenMP loops; train_cpu.c finds the arrays an op names and calls them). Every reduction
 * runs in a fixed order whatever the thread count, so a run is bitwise repeatable. Arrays
 * marked `low` are BF16 (uint16_t) when low is non-zero, FP32 otherwise. Shapes: T tokens
 * (B sequences of S), h hidden, a heads, V vocabulary. */
#ifndef SR_TRAIN_CPU_H
#define SR_TRAIN_CPU_H

#include <stddef.h>
#include <stdint.h>

#include "util/isa.h"

/* Work below this many elements runs on the calling thread: a parallel region costs a few
 * microseconds on a quiet machine and milliseconds on a busy one (spinning barriers). The
 * arithmetic of each element is the same either way. */
#define TRAIN_PAR_MIN 65536

/* The loops are also compiled for AVX-512 and AVX2 with FMA (util/isa.h: the loader picks what
 * the CPU has; the build itself targets the baseline ISA so the binary runs anywhere). This file's kernels are
 * built with -fno-math-errno and -fno-trapping-math (Makefile.am), without which sqrtf and the
 * conditional float expressions (AdamW's decay, train_expf's range) keep loops scalar; IEEE
 * results are unchanged. */
#if !defined(__clang__)
#define TRAIN_HOT ISA_CLONES
#else
#define TRAIN_HOT
#endif
#define TRAIN_INLINE static inline __attribute__((always_inline))

/* x[T,h] = wte[tok] + wpe[position] */
void train_cpu_embed(float *x, const int32_t *tok, const float *wte, const float *wpe, int B, int S, int h);
/* dwte[tok] += dx, dwpe[position] += dx; column blocks in parallel, tokens in order */
void train_cpu_embed_bwd(float *dwte, float *dwpe, const float *dx, const int32_t *tok, int B, int S, int h);

/* out[T,h] (low) = LayerNorm(x[T,h]) w + b; stats[T,2] = mean, 1/sqrt(var + eps) */
void train_cpu_layernorm(void *out, int low, float *stats, const float *x, const float *w,
                         const float *b, size_t T, int h);
/* dres[T,h] (+)= input gradient (overwrite: =); dw, db[h] += parameter gradients */
void train_cpu_layernorm_bwd(float *dres, int overwrite, float *dw, float *db, const float *dout,
                             const float *x, const float *stats, const float *w, size_t T, int h);

/* qkv[T,3h] -> att[B,a,S,S] (causal rows, t2 <= t), out[T,h] (low) */
void train_cpu_attention(void *out, int low, float *att, const float *qkv, int B, int S, int h, int a);
/* dqkv[T,3h] = gradient from dout[T,h] through att and qkv */
void train_cpu_attention_bwd(float *dqkv, const float *dout, const float *qkv, const float *att,
                             int B, int S, int h, int a);

void train_cpu_gelu(void *out, int low, const float *x, size_t n);       /* out = gelu(x) */
void train_cpu_gelu_bwd(float *d, const float *x, size_t n);             /* d *= gelu'(x) */
void train_cpu_add(float *y, const float *x, size_t n);                  /* y += x */

/* logits[T,V] -> probabilities in place; losses[T] = -log p[target] */
void train_cpu_xent(float *losses, float *logits, const int32_t *targets, size_t T, int V);
/* probabilities -> (p - onehot) * scale in place */
void train_cpu_xent_bwd(float *logits, const int32_t *targets, size_t T, int V, float scale);

void train_cpu_colsum(float *out, const float *x, size_t rows, size_t cols);   /* out += sums */
void train_cpu_bf16(uint16_t *out, const float *x, size_t n);            /* RNE */
void train_cpu_widen(float *out, const uint16_t *x, size_t n);
/* w[n] = AdamW(w, m, v, g) with settings a; decay: apply weight decay. */
struct train_adam;
void train_cpu_adamw(float *w, float *m, float *v, const float *g, size_t n, const struct train_adam *a, int decay);

/* Sum of squares of x[n] in double: fixed blocks, block sums added in order. */
double train_cpu_sumsq(const float *x, size_t n);

#endif
