/* cuda_try.h: the CUDA backends' way to give up on a failing runtime call: the first failing
 * call's file, line, expression and CUDA's words go into err, then `goto fail` (the caller's
 * clean-up label). Device code only; the C side never sees it. */
#ifndef SR_CUDA_TRY_H
#define SR_CUDA_TRY_H

#include <stdio.h>

#include <cuda_runtime.h>

#define CUDA_TRY(expr, err, errlen)                                                          \
    do {                                                                                     \
        cudaError_t e_ = (expr);                                                             \
        if (e_ != cudaSuccess) {                                                             \
            snprintf((err), (errlen), "%s:%d: %s: %s", __FILE__, __LINE__, #expr,            \
                     cudaGetErrorString(e_));                                                \
            goto fail;                                                                       \
        }                                                                                    \
    } while (0)

#endif
