/* train_reduce.h: the order in which the GPU backend sums parameter gradients over tokens, so
 * the CUDA kernels (train_cuda_kernels.cu) and the CPU tests compute the same sums the same way.
 * Column sums (biases, LayerNorm's weight and bias) run in two fixed stages: stage 1 sums each
 * slice of TRAIN_RED_ROWS rows of a column in row order into a partial, stage 2 sums a column's
 * partials in slice order; no atomics, so a run repeats bit for bit. The embedding's backward
 * sums each token's rows in position order (train_embed_groups groups them on the host). */
#ifndef SR_TRAIN_REDUCE_H
#define SR_TRAIN_REDUCE_H

#include <stddef.h>
#include <stdint.h>

#include "util/hd.h"

#define TRAIN_RED_ROWS 16           /* rows per stage-1 slice: T/16 x columns threads in flight */

/* Stage-1 slices of `rows` rows (the last one may be shorter). */
SR_HD size_t train_red_slices(size_t rows)
{
    return (rows + TRAIN_RED_ROWS - 1) / TRAIN_RED_ROWS;
}

/* The rows [*lo, *hi) of slice `slice`. */
SR_HD void train_red_range(size_t rows, size_t slice, size_t *lo, size_t *hi)
{
    *lo = slice * TRAIN_RED_ROWS;
    *hi = *lo + TRAIN_RED_ROWS < rows ? *lo + TRAIN_RED_ROWS : rows;
}

/* Stage 1: column c of x [rows, cols] over one slice. */
SR_HD float train_red_part(const float *x, size_t rows, size_t cols, size_t slice, size_t c)
{
    size_t lo, hi;
    float s = 0;
    train_red_range(rows, slice, &lo, &hi);
    for (size_t r = lo; r < hi; r++)
        s += x[r * cols + c];
    return s;
}

/* Stage 1 of LayerNorm's parameter gradients over one slice of column c: *dw = sum dy xhat,
 * *db = sum dy, xhat = (x - mean) rstd with stats [rows][2] = { mean, rstd }. */
SR_HD void train_red_ln_part(const float *dy, const float *x, const float *stats, size_t rows, size_t h,
                             size_t slice, size_t c, float *dw, float *db)
{
    size_t lo, hi;
    float sw = 0, sb = 0;
    train_red_range(rows, slice, &lo, &hi);
    for (size_t r = lo; r < hi; r++) {
        float d = dy[r * h + c];
        sw += d * ((x[r * h + c] - stats[2 * r]) * stats[2 * r + 1]);
        sb += d;
    }
    *dw = sw;
    *db = sb;
}

/* Stage 2: the partials of column c (part [slices][cols]) in slice order. */
SR_HD float train_red_final(const float *part, size_t slices, size_t cols, size_t c)
{
    float s = 0;
    for (size_t k = 0; k < slices; k++)
        s += part[k * cols + c];
    return s;
}

/* The embedding's token gradient: column i of the rows of one token, order[lo, hi) (positions
 * in increasing order), summed in that order. */
SR_HD float train_red_group(const float *dx, const int32_t *order, int lo, int hi, size_t h, size_t i)
{
    float s = 0;
    for (int j = lo; j < hi; j++)
        s += dx[(size_t)order[j] * h + i];
    return s;
}

/* The embedding's position gradient: column i of position p over the B sequences, in order. */
SR_HD float train_red_position(const float *dx, int B, int S, size_t h, int p, size_t i)
{
    float s = 0;
    for (int b = 0; b < B; b++)
        s += dx[((size_t)b * S + p) * h + i];
    return s;
}

/* Groups the T positions of tok by token: order[T] the positions sorted by (token, position),
 * starts[g] the first of group g in order and starts[ngroups] = T; returns ngroups. Host only. */
#ifdef __cplusplus
extern "C"
#endif
int train_embed_groups(const int32_t *tok, int T, int32_t *order, int32_t *starts);

#endif
