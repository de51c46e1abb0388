/* mwu.c: the Mann-Whitney U test. The exact null distribution is counted, not approximated:
 * f(i, j, u), the number of orderings of i x-values and j y-values with U = u, obeys
 * f(i, j, u) = f(i-1, j, u-j) + f(i, j-1, u) (the largest value is an x above all j y-values,
 * or a y), so every count is a sum of positive terms and the tails keep their precision. */
#include "util/mwu.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"

struct ranked {
    double v;
    int from_x;
};

static int cmp_ranked(const void *a, const void *b)
{
    double x = ((const struct ranked *)a)->v, y = ((const struct ranked *)b)->v;
    return (x > y) - (x < y);
}

/* counts[u], u = 0 .. m*n: orderings of m x-values and n y-values with U = u. Caller frees. */
static double *null_counts(int m, int n)
{
    size_t width = (size_t)m * (size_t)n + 1;
    double *prev = xcalloc((size_t)(n + 1) * width, sizeof *prev);
    double *cur = xcalloc((size_t)(n + 1) * width, sizeof *cur);
    for (int j = 0; j <= n; j++)
        prev[(size_t)j * width] = 1.0;              /* i = 0: U is 0 */
    for (int i = 1; i <= m; i++) {
        memset(cur, 0, (size_t)(n + 1) * width * sizeof *cur);
        cur[0] = 1.0;                               /* j = 0: U is 0 */
        for (int j = 1; j <= n; j++) {
            double *row = cur + (size_t)j * width, *left = cur + (size_t)(j - 1) * width;
            const double *up = prev + (size_t)j * width;
            size_t top = (size_t)i * (size_t)j;
            for (size_t u = 0; u <= top; u++)
                row[u] = left[u] + (u >= (size_t)j ? up[u - (size_t)j] : 0.0);
        }
        double *t = prev;
        prev = cur;
        cur = t;
    }
    double *out = xmalloc(width * sizeof *out);
    memcpy(out, prev + (size_t)n * width, width * sizeof *out);
    free(prev);
    free(cur);
    return out;
}

double mwu_cdf(double u, int m, int n)
{
    if (m < 1 || n < 1 || u < 0)
        return m < 1 || n < 1 ? NAN : 0.0;
    double top = (double)m * n;
    if (u >= top)
        return 1.0;
    double *c = null_counts(m, n), below = 0.0, total = 0.0;
    long k = (long)floor(u + 1e-7);
    for (long i = 0; i <= (long)top; i++) {
        total += c[i];
        if (i <= k)
            below += c[i];
    }
    free(c);
    return below / total;
}

double mwu_min_p(int m, int n)
{
    double c = 1.0;                 /* C(m+n, m) */
    for (int i = 1; i <= m; i++)
        c = c * (double)(n + i) / (double)i;
    return fmin(1.0, 2.0 / c);
}

static double pnorm(double z) { return 0.5 * erfc(-z / sqrt(2.0)); }

int mwu_test(const double *x, int nx, const double *y, int ny, struct mwu *r)
{
    memset(r, 0, sizeof *r);
    r->p = NAN;
    if (nx < 1 || ny < 1)
        return -1;
    int n = nx + ny;
    struct ranked *v = xmalloc((size_t)n * sizeof *v);
    for (int i = 0; i < n; i++) {
        v[i].v = i < nx ? x[i] : y[i - nx];
        v[i].from_x = i < nx;
        if (!isfinite(v[i].v)) {
            free(v);
            return -1;
        }
    }
    qsort(v, (size_t)n, sizeof *v, cmp_ranked);
    double rank_sum_x = 0.0, tie_term = 0.0;        /* tie_term: sum of t^3 - t over tie groups */
    for (int i = 0; i < n;) {
        int j = i;
        while (j < n && v[j].v == v[i].v)
            j++;
        double t = j - i, avg = (i + 1 + j) / 2.0;  /* ranks i+1 .. j share their average */
        for (int k = i; k < j; k++)
            if (v[k].from_x)
                rank_sum_x += avg;
        tie_term += t * t * t - t;
        i = j;
    }
    free(v);
    double mn = (double)nx * ny;
    r->w = rank_sum_x - (double)nx * (nx + 1) / 2.0;
    r->ties = tie_term > 0;
    r->min_p = mwu_min_p(nx, ny);
    r->exact = nx < MWU_EXACT_MAX && ny < MWU_EXACT_MAX && !r->ties;
    if (r->exact) {
        /* the tail on W's side; the upper tail through symmetry, P(U >= w) = P(U <= mn - w) */
        double tail = r->w > mn / 2 ? mwu_cdf(mn - r->w, nx, ny) : mwu_cdf(r->w, nx, ny);
        r->p = fmin(1.0, 2.0 * tail);
        return 0;
    }
    double d = r->w - mn / 2.0;
    double sigma = sqrt(mn / 12.0 * ((n + 1) - tie_term / ((double)n * (n - 1))));
    double corr = d > 0 ? 0.5 : d < 0 ? -0.5 : 0.0;
    if (sigma <= 0) {                               /* every value equal: no evidence either way */
        r->p = 1.0;
        return 0;
    }
    r->z = (d - corr) / sigma;
    r->p = fmin(1.0, 2.0 * fmin(pnorm(r->z), pnorm(-r->z)));
    return 0;
}
