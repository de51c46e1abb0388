/* stats.c: summary statistics and the stop rule. Plain two-pass formulas: sample counts are
 * small (tens to hundreds), so accuracy matters more than speed. */
#include "util/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double stats_t95(int df)
{
    /* Student t, two-sided 95 %, df = 1..30; beyond, the normal-approximation series. */
    static const double t[] = { 0, 12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306,
        2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
        2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042 };
    if (df < 1)
        return NAN;
    if (df <= 30)
        return t[df];
    /* Cornish-Fisher expansion around z = 1.959964 */
    double z = 1.959964, g1 = (z * z * z + z) / 4.0, g2 = (5 * pow(z, 5) + 16 * pow(z, 3) + 3 * z) / 96.0;
    return z + g1 / df + g2 / ((double)df * df);
}

void stats_compute(const double *x, int n, struct stats *s)
{
    memset(s, 0, sizeof *s);
    s->n = n;
    if (n <= 0) {
        s->min = s->median = s->max = s->mean = s->sd = s->cv = s->ci_lo = s->ci_hi = NAN;
        return;
    }
    double *v = xmalloc((size_t)n * sizeof *v);
    memcpy(v, x, (size_t)n * sizeof *v);
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    s->min = v[0];
    s->max = v[n - 1];
    s->median = (n % 2) ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
    double sum = 0;
    for (int i = 0; i < n; i++)
        sum += v[i];
    s->mean = sum / n;
    double ss = 0;
    for (int i = 0; i < n; i++)
        ss += (v[i] - s->mean) * (v[i] - s->mean);
    free(v);
    s->sd = n > 1 ? sqrt(ss / (n - 1)) : 0.0;
    s->cv = (n > 1 && s->mean != 0) ? s->sd / fabs(s->mean) : 0.0;
    if (n > 1) {
        double h = stats_t95(n - 1) * s->sd / sqrt((double)n);
        s->ci_lo = s->mean - h;
        s->ci_hi = s->mean + h;
        if (s->min >= 0 && s->ci_lo < 0)    /* times, rates: the mean of values >= 0 is never below 0 */
            s->ci_lo = 0;
    } else {
        s->ci_lo = s->ci_hi = s->mean;
    }
}

enum stats_stop stats_should_stop(const struct stats_rule *r, const double *x, int n,
                                  double elapsed_s)
{
    if (n >= r->max_reps)
        return STATS_STOP_MAX_REPS;
    if (n < r->min_reps)
        return STATS_GO_ON;
    struct stats s;
    stats_compute(x, n, &s);
    if (s.cv < r->cv_target)
        return STATS_STOP_CV;
    if (elapsed_s >= r->budget_s)
        return STATS_STOP_BUDGET;
    return STATS_GO_ON;
}

const char *stats_stop_name(enum stats_stop s)
{
    switch (s) {
    case STATS_STOP_CV: return "cv";
    case STATS_STOP_BUDGET: return "budget";
    case STATS_STOP_MAX_REPS: return "max_reps";
    default: return "running";
    }
}
