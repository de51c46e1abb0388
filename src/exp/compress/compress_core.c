/* compress_core.c: what the compression experiment's run (compress.c) and its accuracy part
 * (compress_accuracy.c) share, which both call down into: the error a variant's product may
 * show (compress_error_bound) and the check of a product against the FP64 reference
 * (compress_check). */
#include "exp/compress/compress.h"

#include <math.h>
#include <stdlib.h>

#include "util/error.h"

/* Fraction of a standard normal's energy below |x| < t where t removes a fraction s of the
 * values: (2 Phi(t) - 1) - 2 t phi(t), t from bisection on erf. */
static double pruned_energy(double s)
{
    double lo = 0, hi = 10;
    for (int i = 0; i < 100; i++) {
        double t = 0.5 * (lo + hi);
        if (erf(t / sqrt(2.0)) < s)
            lo = t;
        else
            hi = t;
    }
    double t = 0.5 * (lo + hi);
    return s - 2 * t * exp(-0.5 * t * t) / sqrt(2 * M_PI);
}

double compress_error_bound(const struct compress_variant *v)
{
    if (v->id == QUANT_CSR)
        return 1.3 * sqrt(pruned_energy(v->sparsity));
    return quant_schemes[v->id].error_bound;
}

double compress_check(const struct quant_matrix *m, const float *x, const float *y, int batch, size_t sample)
{
    size_t n = sample == 0 || sample >= m->rows ? m->rows : sample;
    float *scratch = xmalloc(m->cols * sizeof *scratch);
    double worst = 0;
    for (size_t i = 0; i < n; i++) {
        size_t r = n == m->rows ? i : (i * (m->rows - 1)) / (n - 1 ? n - 1 : 1);
        for (int b = 0; b < batch; b++) {
            double a, ref = quant_ref_dot(m, r, x + (size_t)b * m->cols, scratch, &a);
            double e = fabs((double)y[(size_t)b * m->rows + r] - ref) / (a > 0 ? a : 1);
            if (!(e <= worst))              /* NaN counts as the worst error */
                worst = isnan(e) ? INFINITY : e;
        }
    }
    free(scratch);
    return worst;
}
