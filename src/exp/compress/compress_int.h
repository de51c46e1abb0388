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

/* Small batches: COMPRESS_BLOCK_ROWS rows of FP32 weights w[i] (n each, a multiple of 16) times
 * `batch` (1..QUANT_MAX_BATCH) vectors x + b stride: acc[i * QUANT_MAX_BATCH + b] += w[i] . x_b.
 * Each weight is loaded once per four vectors and each element of x once per block of rows, so
 * the rows stream from memory while x stays in the caches. */
#define COMPRESS_BLOCK_ROWS 4
/* More than four vectors (AVX-512) or any (AVX2): the block kernels take the columns in chunks of
 * this many, so that a chunk of the rows or of x read once is read again from L1, not from L2. */
#define COMPRESS_BLOCK_CHUNK 1024
typedef void (*compress_block_fn)(const float *const *w, const float *x, size_t stride, int batch, size_t n,
                                  float *acc);

/* The AVX2 + FMA + F16C kernels, per scheme (NULL: none; FP8 only for matrices without NaN
 * codes); cols a multiple of 32; and the block kernel. All NULL where the compiler cannot build
 * them (not x86-64 with GCC or Clang). compress_avx2_usable() says whether this CPU runs them. */
extern const compress_row_dot_fn compress_avx2_dots[QUANT_N];
extern const compress_row_batch_fn compress_avx2_batches[QUANT_N];
extern const compress_block_fn compress_avx2_block;
int compress_avx2_usable(void);

#endif
