/* cuda_words.h: how a failed CUDA or cuBLASLt call is told, in one format for every backend:
 * "FILE:LINE: CALL: words", FILE from its src/ on. Plain C, so the CPU tests exercise it; the
 * check macros that call it are cuda_check.h's (runtime) and blaslt.h's (cuBLASLt). */
#ifndef SR_CUDA_WORDS_H
#define SR_CUDA_WORDS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Writes "FILE:LINE: CALL: words" into err (n bytes, cut to fit); returns -1, what a failed
 * check reports. FILE loses everything before its last "src/" (out-of-tree builds pass
 * absolute paths). */
int cuda_words(char *err, size_t n, const char *file, int line, const char *call, const char *words);

/* cuBLAS status codes this module reasons about (cublas_api.h's values; blaslt.cu asserts
 * they still match the library's). */
enum {
    CUDA_WORDS_BLAS_SUCCESS = 0, CUDA_WORDS_BLAS_NOT_INITIALIZED = 1, CUDA_WORDS_BLAS_ALLOC_FAILED = 3,
    CUDA_WORDS_BLAS_INVALID_VALUE = 7, CUDA_WORDS_BLAS_ARCH_MISMATCH = 8, CUDA_WORDS_BLAS_MAPPING_ERROR = 11,
    CUDA_WORDS_BLAS_EXECUTION_FAILED = 13, CUDA_WORDS_BLAS_INTERNAL_ERROR = 14, CUDA_WORDS_BLAS_NOT_SUPPORTED = 15,
    CUDA_WORDS_BLAS_LICENSE_ERROR = 16
};

/* 1 when a cuBLASLt status is the library declining the request (this format, layout or
 * device is not offered), not a failure: NOT_SUPPORTED and ARCH_MISMATCH (FP4 on sm_90: the
 * device lacks the feature) always, INVALID_VALUE for block-scaled formats, whose scale layouts
 * older libraries reject as invalid. */
int cuda_words_refusal(int status, int block_scaled);

/* The status in words: "CUBLAS_STATUS_ARCH_MISMATCH: unsupported on this device", "...: error";
 * an unknown code as "cuBLAS status N: error". Plain C: the tests read the whole table. */
const char *cuda_words_blas_status(int status, int block_scaled, char *buf, size_t n);

/* A kernel fault (an illegal address, a trap, an assert, ...) poisons the CUDA context: every
 * later call in the process fails with the same words. The CUDA runtime codes that do so
 * (driver_types.h's values; cuda_env.cu asserts them): */
enum {
    CUDA_WORDS_ECC_UNCORRECTABLE = 214, CUDA_WORDS_ILLEGAL_ADDRESS = 700, CUDA_WORDS_LAUNCH_TIMEOUT = 702,
    CUDA_WORDS_ASSERT = 710, CUDA_WORDS_HARDWARE_STACK_ERROR = 714, CUDA_WORDS_ILLEGAL_INSTRUCTION = 715,
    CUDA_WORDS_MISALIGNED_ADDRESS = 716, CUDA_WORDS_INVALID_ADDRESS_SPACE = 717, CUDA_WORDS_INVALID_PC = 718,
    CUDA_WORDS_LAUNCH_FAILURE = 719
};
int cuda_words_sticky(int cuda_error);          /* 1 for the codes above */

/* CUDA_CHECK tells every failure here: the first sticky one is kept (its runtime words and the
 * full "FILE:LINE: CALL: words"), and from then on the GPU is lost to this process. */
void cuda_words_fault(int cuda_error, const char *words, const char *full);
/* The first fault's full words, or NULL while the context is sound. backend_for refuses GPU
 * backends with it, so a later GPU experiment is skipped once, not item by item. */
const char *cuda_words_poisoned(void);
/* A skip reason as measure_skip records it: the first that carries the fault's words passes as it
 * is; every later one becomes one short sentence that points to it (the fault told once, not
 * forty times). Any other reason passes unchanged. */
const char *cuda_words_once(const char *reason);
#define CUDA_WORDS_LOST "not measured: the CUDA context was lost at an earlier GPU item (its error is recorded " \
    "there, once); every later GPU item in this process would fail the same way"

#ifdef __cplusplus
}
#endif

#endif
