/* test_precision_gpu.c: the CUDA backend of the precision family on a real device: every format's
 * GEMM either validates against the FP64 twin of the values it was given or says "unsupported
 * on this device"; numerics within each format's bound; the sweep kernel's sum exact; the
 * tensor-core k-sweep's first k runs wherever the format does; a launch costs between 100 ns
 * and 1 ms. First, without a device, the conversions the kernels use agree with CUDA's own. Exits 77 (skip) without CUDA in the build or without a device. */
#include <stdlib.h>

#include "config.h"

#include "check.h"
#include "cuda/cuda.h"
#include "exp/precision/precision.h"
#include "exp/precision/precision_int.h"

#ifdef HAVE_CUDA
/* Largest error per element relative to |A||B| over all of D, and the Frobenius error against
 * FP64 on the unquantized inputs. */
static void check_format(enum prec_fmt f, int m, int n, int k)
{
    char why[512];
    struct prec_gemm g = { .fmt = f, .m = m, .n = n, .k = k, .seed_a = 31, .seed_b = 32 };
    int rc = prec_gpu_ops.gemm_setup(&g, why, sizeof why);
    printf("  %-10s %s\n", prec_fmts[f].name, rc == PREC_OK ? g.algo : why);
    EXPECT(rc == PREC_OK || (rc == PREC_UNSUPPORTED && strstr(why, "unsupported on this device")));
    if (rc == PREC_OK) {
        double *d = malloc((size_t)m * n * sizeof *d), worst = 0, e2 = 0, r2 = 0;
        EXPECT(prec_gpu_ops.gemm_run(&g, 3) > 0);
        EXPECT(prec_gpu_ops.gemm_fetch(&g, NULL, m * n, d) == 0);
        for (int j = 0; j < n; j++)
            for (int i = 0; i < m; i++) {
                double s = 0, a = 0, s64 = 0;
                for (int p = 0; p < k; p++) {
                    double x = prec_input_as(f, 31, (uint64_t)i * k + p, k), y = prec_input_as(f, 32, (uint64_t)j * k + p, k);
                    s += x * y, a += fabs(x * y);
                    s64 += prec_input(31, (uint64_t)i * k + p) * prec_input(32, (uint64_t)j * k + p);
                }
                worst = fmax(worst, fabs(d[i + (size_t)j * m] - s) / a);
                e2 += (d[i + (size_t)j * m] - s64) * (d[i + (size_t)j * m] - s64), r2 += s64 * s64;
            }
        printf("             validation %.3g (tolerance %g), error vs FP64 %.3g (bound %g)\n", worst,
               prec_fmts[f].tolerance, sqrt(e2 / r2), prec_fmts[f].error_bound);
        EXPECT(worst <= prec_fmts[f].tolerance);
        EXPECT(sqrt(e2 / r2) <= prec_fmts[f].error_bound);
        free(d);
    }
    prec_gpu_ops.gemm_release(&g);
}

/* Where the format's probe shape runs, the k-sweep's first k (the format's alignment) runs too:
 * a refusal there would be a shape limit, reported as such, but says the start is too low. */
static void check_sweep_start(enum prec_fmt f)
{
    char why[512];
    struct prec_gemm p = { .fmt = f, .m = 128, .n = 128, .k = 128, .seed_a = 1, .seed_b = 2 };
    int probe = prec_gpu_ops.gemm_setup(&p, why, sizeof why);
    prec_gpu_ops.gemm_release(&p);
    if (probe != PREC_OK)
        return;
    struct prec_gemm g = { .fmt = f, .m = 256, .n = 256, .k = (int)prec_sweep_start_k(f), .seed_a = 1, .seed_b = 2 };
    int rc = prec_gpu_ops.gemm_setup(&g, why, sizeof why);
    printf("  %-10s k-sweep from k = %d: %s\n", prec_fmts[f].name, g.k, rc == PREC_OK ? g.algo : why);
    EXPECT(rc == PREC_OK);
    prec_gpu_ops.gemm_release(&g);
}

static void check_sweep(enum prec_fmt f)
{
    char why[256];
    struct prec_sweep s = { .fmt = f, .n = (1u << 20) + 77 };
    EXPECT(prec_gpu_ops.sweep_setup(&s, why, sizeof why) == PREC_OK);
    for (long k = 0; k <= 64; k = k ? 4 * k : 1) {
        EXPECT(prec_gpu_ops.sweep_run(&s, k, 2) > 0);
        EXPECT(s.sum == prec_chain_sum(s.n, k));
    }
    prec_gpu_ops.sweep_release(&s);
}
#endif

int main(void)
{
    struct cuda_info ci;
#ifdef HAVE_CUDA
    char agree[256];                    /* host code: runs without a device */
    long bad = prec_cuda_formats_agree(agree, sizeof agree);
    printf("  conversions: %s\n", agree);
    EXPECT(bad == 0);
    if (bad)
        return CHECK_DONE();
#endif
    cuda_probe(&ci);
    if (ci.ndev == 0) {
        printf("skip: %s\n", ci.reason);
        return 77;
    }
#ifdef HAVE_CUDA
    char why[256];
    EXPECT(prec_gpu_select(0, why, sizeof why) == 0);
    for (int f = 0; f < PREC_NFMT; f++)
        check_format(f, 128, 96, 256);
    for (int f = 0; f < PREC_NFMT; f++)
        check_sweep_start(f);
    check_sweep(PREC_FP64);
    check_sweep(PREC_FP32);
    double t = prec_gpu_ops.overhead(1, 1000, why, sizeof why) / 1000;
    printf("  launch %.3g s\n", t);
    EXPECT(t > 1e-7 && t < 1e-3);
#endif
    return CHECK_DONE();
}
