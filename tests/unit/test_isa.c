/* test_isa.c: the kernels' clones (util/isa.h) fuse multiply-add wherever the CPU has FMA (the
 * AVX2 clone is arch=x86-64-v3, not avx2 alone, which left every a * b + c unfused, nor
 * arch=haswell, which dispatches on the CPU model and ran the baseline on AMD cores), and a clone's
 * result differs from the baseline build's only by rounding: within STYLE.md's FP32 tolerance,
 * 1e-5 relative, of an FP64 reference, as every kernel's check against its plain twin allows. */
#include "check.h"

#include "util/isa.h"

/* a * b + c in the clone the loader chose for this CPU, and in the baseline build. */
ISA_CLONES static double clone_mad(double a, double b, double c) { return a * b + c; }
__attribute__((noinline)) static double baseline_mad(double a, double b, double c)
{
    volatile double p = a * b;          /* rounded on its own, as the baseline ISA (no FMA) does */
    return p + c;
}

/* A dot product of n floats, in a clone and in the baseline build. */
ISA_CLONES static float clone_dot(const float *x, const float *y, int n)
{
    float s = 0;
    for (int i = 0; i < n; i++)
        s += x[i] * y[i];
    return s;
}

__attribute__((noinline)) static float baseline_dot(const float *x, const float *y, int n)
{
    float s = 0;
    for (int i = 0; i < n; i++) {
        volatile float p = x[i] * y[i];
        s += p;
    }
    return s;
}

static volatile double in_a = 1 + 0x1p-30, in_b = 1 - 0x1p-30, in_c = -1;

int main(void)
{
    /* (1 + 2^-30)(1 - 2^-30) - 1 = -2^-60 exactly; rounding the product first gives 0 */
    double fused = clone_mad(in_a, in_b, in_c), plain = baseline_mad(in_a, in_b, in_c);
    EXPECT(plain == 0);
    if (ISA_CLONED && isa_avx2())
        EXPECT(fused == -0x1p-60);      /* the clone this CPU runs fuses */
    else
        printf("SKIP the fused check: %s\n", ISA_CLONED ? "this CPU has no FMA" : "this build has no clones");

    enum { N = 4096 };
    static float x[N], y[N];
    double ref = 0;
    for (int i = 0; i < N; i++) {
        x[i] = (float)((i * 7919 % 1000) - 500) / 512;
        y[i] = (float)((i * 104729 % 997) - 498) / 256;
        ref += (double)x[i] * y[i];
    }
    double norm = 0;
    for (int i = 0; i < N; i++)
        norm += fabs((double)x[i] * y[i]);
    EXPECT(fabs(clone_dot(x, y, N) - ref) <= 1e-5 * norm);
    EXPECT(fabs(baseline_dot(x, y, N) - ref) <= 1e-5 * norm);
    EXPECT(fabs(clone_dot(x, y, N) - baseline_dot(x, y, N)) <= 2e-5 * norm);
    return CHECK_DONE();
}
