/* cuda_check.h: the one way a CUDA runtime call is checked. On failure err gets "FILE:LINE:
 * CALL: CUDA's words" (cuda_words.h), a fault that poisons the context is noted
 * (cuda_words_fault: later GPU items are skipped, told once), the runtime's last error is cleared, and control goes to
 * the caller's `fail:` label, which cleans up and reports. Nothing here exits: an error fails
 * one item, never the process. After every kernel launch: CUDA_CHECK(cudaGetLastError(), ...). */
#ifndef SR_CUDA_CHECK_H
#define SR_CUDA_CHECK_H

#include <cuda_runtime.h>

#include "cuda/cuda_words.h"

#define CUDA_CHECK(call, err, errlen)                                                        \
    do {                                                                                     \
        cudaError_t e_ = (call);                                                             \
        if (e_ != cudaSuccess) {                                                             \
            cudaGetLastError();                                                              \
            cuda_words((err), (errlen), __FILE__, __LINE__, #call, cudaGetErrorString(e_));  \
            cuda_words_fault((int)e_, cudaGetErrorString(e_), (err));                        \
            goto fail;                                                                       \
        }                                                                                    \
    } while (0)

#endif
