/* compress_int.h: what the compression family's CPU files share, included by no one outside
 * src/exp/compress/: the AVX2 row kernels (compress_avx2.c) that compress_cpu.c's drivers
 * choose between, beside its AVX-512 and portable ones. */
#ifndef SR_COMPRESS_INT_H
#define SR_COMPRESS_INT_H

#include <stddef.h>

#include "exp/compress/quant.h"

/* Row r of m times x[cols]: the dot product, every weight decoded in registers. */
typedef float (*compress_row_dot_fn)(const struct quant_matrix *m, size_t r, const float *x);

/* Row r of m times `batch` (1..4) vectors x + b stride: acc[b] += the dot products; each weight
 * is decoded once for all of them. */
typedef void (*compress_row_batch_fn)(const struct quant_matrix *m, size_t r, const float *x, size_t stride,
                                      int batch, float *acc);

/* The AVX2 + FMA + F16C kernels, per scheme (NULL: none; FP8 only for matrices without NaN
 * codes); cols a multiple of 32. Both tables are all NULL where the compiler cannot build them
 * (not x86-64 with GCC or Clang). compress_avx2_usable() says whether this CPU runs them. */
extern const compress_row_dot_fn compress_avx2_dots[QUANT_N];
extern const compress_row_batch_fn compress_avx2_batches[QUANT_N];
int compress_avx2_usable(void);

#endif
