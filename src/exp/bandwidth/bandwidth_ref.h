/* bandwidth_ref.h: the plain twin of the bandwidth kernels, shared by every backend and
 * compiled for the device too (SR_HD): the arrays' initial values and what each output
 * element, and the read kernel's sum, must be. The values are multiples of 1/8 (and 1/4)
 * in [1, 3), so every kernel is exact in FP32 and FP64 and any summation order is exact
 * within a block (see BW_READ_BLOCK). */
#ifndef SR_BANDWIDTH_REF_H
#define SR_BANDWIDTH_REF_H

#include <stddef.h>

#include "util/hd.h"

#define BW_SCALAR 3.0
#define BW_REF_PERIOD 8             /* every value below depends on i only through i % 8 */

enum bw_kernel { BW_COPY = 0, BW_SCALE, BW_ADD, BW_TRIAD, BW_READ, BW_FILL, BW_NKERNELS };

SR_HD double bw_init_a(size_t i) { return 1.0 + (double)(i % 8) / 8.0; }
SR_HD double bw_init_b(size_t i) { return 2.0 + (double)(i % 4) / 4.0; }

/* Element i of c after one pass of kernel k (NaN for the read kernel, which writes nothing). */
SR_HD double bw_expected(enum bw_kernel k, size_t i)
{
    double a = bw_init_a(i), b = bw_init_b(i);
    switch (k) {
    case BW_COPY: return a;
    case BW_SCALE: return BW_SCALAR * a;
    case BW_ADD: return a + b;
    case BW_TRIAD: return a + BW_SCALAR * b;
    case BW_FILL: return BW_SCALAR;
    default: return 0.0 / 0.0;
    }
}

/* Sum of a[0..n): the sum of 1 + j/8 over j = 0..7 is 11.5. */
SR_HD double bw_expected_sum(size_t n)
{
    double full = (double)(n / 8), rem = (double)(n % 8);
    return full * 11.5 + rem + rem * (rem - 1) / 16.0;
}

#endif
