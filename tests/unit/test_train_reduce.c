/* test_train_reduce.c: the GPU trainer's gradient sums over tokens in their fixed order
 * (train_reduce.h), on the CPU: the two-stage column sum (slices of TRAIN_RED_ROWS rows, then the
 * partials in slice order) against a serial sum in double within FP32 rounding, bitwise the same
 * on a second run, for row counts that are and are not multiples of a slice; LayerNorm's weight
 * and bias sums likewise; the embedding's token groups (a permutation, sorted by token and
 * position) and the grouped and per-position sums against a serial scatter. */
#include <stdlib.h>

#include "check.h"
#include "exp/train/train_math.h"
#include "exp/train/train_reduce.h"

static float *randoms(size_t n, uint64_t seed)
{
    float *x = malloc((n ? n : 1) * sizeof *x);
    for (size_t i = 0; i < n; i++)
        x[i] = (float)((double)(train_rand(seed, i) >> 11) / 9007199254740992.0 * 2 - 1);
    return x;
}

/* The GPU's two stages, thread by thread, in any order of threads: out [cols]. */
static void two_stage(const float *x, size_t rows, size_t cols, float *part, float *out)
{
    size_t slices = train_red_slices(rows);
    for (size_t c = cols; c-- > 0;)                 /* the order of threads does not matter */
        for (size_t k = 0; k < slices; k++)
            part[k * cols + c] = train_red_part(x, rows, cols, k, c);
    for (size_t c = 0; c < cols; c++)
        out[c] = train_red_final(part, slices, cols, c);
}

/* |sum| error bound of FP32 summation: (rows + 1) eps sum |x| */
static void expect_sum(float got, double want, double abs_sum, size_t rows)
{
    double tol = (double)(rows + 1) * 0x1p-24 * abs_sum + 1e-30;
    if (!(fabs(got - want) <= tol))
        printf("  %.9g vs %.17g (tolerance %.3g)\n", got, want, tol);
    EXPECT(fabs(got - want) <= tol);
}

static void test_colsum(size_t rows, size_t cols)
{
    float *x = randoms(rows * cols, rows * 1000 + cols);
    size_t slices = train_red_slices(rows);
    float *part = malloc((slices ? slices : 1) * cols * sizeof *part), *a = malloc(cols * sizeof *a);
    float *b = malloc(cols * sizeof *b);
    EXPECT(slices * TRAIN_RED_ROWS >= rows && (slices == 0 || (slices - 1) * TRAIN_RED_ROWS < rows));
    two_stage(x, rows, cols, part, a);
    memset(part, 0xff, slices * cols * sizeof *part);
    two_stage(x, rows, cols, part, b);
    EXPECT(memcmp(a, b, cols * sizeof *a) == 0);
    for (size_t c = 0; c < cols; c++) {
        double s = 0, m = 0;
        for (size_t r = 0; r < rows; r++) {
            s += x[r * cols + c];
            m += fabs(x[r * cols + c]);
        }
        expect_sum(a[c], s, m, rows);
    }
    free(x); free(part); free(a); free(b);
}

static void test_layernorm(size_t T, size_t h)
{
    float *dy = randoms(T * h, 7), *x = randoms(T * h, 8), *stats = randoms(2 * T, 9);
    size_t slices = train_red_slices(T);
    float *part = malloc(2 * slices * h * sizeof *part);
    for (size_t c = 0; c < h; c++)
        for (size_t k = 0; k < slices; k++)
            train_red_ln_part(dy, x, stats, T, h, k, c, &part[k * h + c], &part[(slices + k) * h + c]);
    for (size_t c = 0; c < h; c++) {
        double sw = 0, sb = 0, mw = 0, mb = 0;
        for (size_t t = 0; t < T; t++) {
            double d = dy[t * h + c], w = d * ((x[t * h + c] - stats[2 * t]) * stats[2 * t + 1]);
            sw += w; sb += d; mw += fabs(w); mb += fabs(d);
        }
        expect_sum(train_red_final(part, slices, h, c), sw, 2 * mw, T);
        expect_sum(train_red_final(part + slices * h, slices, h, c), sb, mb, T);
    }
    free(dy); free(x); free(stats); free(part);
}

static void test_embedding(int B, int S, int V, size_t h)
{
    int T = B * S;
    int32_t *tok = malloc((size_t)T * sizeof *tok), *order = malloc((size_t)T * sizeof *order);
    int32_t *starts = malloc(((size_t)T + 1) * sizeof *starts), *seen = calloc((size_t)T, sizeof *seen);
    float *dx = randoms((size_t)T * h, 11);
    for (int t = 0; t < T; t++)
        tok[t] = (int32_t)(train_rand(12, (uint64_t)t) % (uint64_t)V);
    int n = train_embed_groups(tok, T, order, starts);
    EXPECT(n >= 1 && n <= T && n <= V && starts[0] == 0 && starts[n] == T);
    for (int j = 0; j < T; j++) {
        EXPECT(order[j] >= 0 && order[j] < T && !seen[order[j]]);
        seen[order[j]] = 1;
        if (j > 0)
            EXPECT(tok[order[j - 1]] < tok[order[j]] || (tok[order[j - 1]] == tok[order[j]] && order[j - 1] < order[j]));
    }
    for (int g = 0; g < n; g++) {
        EXPECT(starts[g] < starts[g + 1]);
        for (int j = starts[g]; j < starts[g + 1]; j++)
            EXPECT(tok[order[j]] == tok[order[starts[g]]]);
        if (g > 0)
            EXPECT(tok[order[starts[g]]] != tok[order[starts[g - 1]]]);
        for (size_t i = 0; i < h; i += 7) {
            double s = 0, m = 0;
            for (int t = 0; t < T; t++)
                if (tok[t] == tok[order[starts[g]]]) {
                    s += dx[(size_t)t * h + i];
                    m += fabs(dx[(size_t)t * h + i]);
                }
            expect_sum(train_red_group(dx, order, starts[g], starts[g + 1], h, i), s, m, (size_t)T);
        }
    }
    for (int p = 0; p < S; p++)
        for (size_t i = 0; i < h; i += 5) {
            double s = 0, m = 0;
            for (int b = 0; b < B; b++) {
                s += dx[((size_t)b * S + p) * h + i];
                m += fabs(dx[((size_t)b * S + p) * h + i]);
            }
            expect_sum(train_red_position(dx, B, S, h, p, i), s, m, (size_t)B);
        }
    free(tok); free(order); free(starts); free(seen); free(dx);
}

int main(void)
{
    static const size_t rows[] = { 1, 15, 16, 17, 111, 1000, 1024 }, cols[] = { 1, 3, 48, 768 };
    EXPECT(train_red_slices(0) == 0 && train_red_slices(16) == 1 && train_red_slices(17) == 2);
    size_t lo, hi;
    train_red_range(17, 1, &lo, &hi);
    EXPECT(lo == 16 && hi == 17);
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        for (size_t j = 0; j < sizeof cols / sizeof cols[0]; j++)
            test_colsum(rows[i], cols[j]);
    test_layernorm(1024, 64);
    test_layernorm(111, 48);
    test_embedding(4, 256, 50257, 64);
    test_embedding(3, 37, 5, 48);           /* few tokens: long groups */
    test_embedding(1, 1, 2, 3);
    return CHECK_DONE();
}
