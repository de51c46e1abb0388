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
enum { CUDA_WORDS_BLAS_INVALID_VALUE = 7, CUDA_WORDS_BLAS_NOT_SUPPORTED = 15 };

/* 1 when a cuBLASLt status is the library declining the request (this format, layout or
 * device is not offered), not a failure: NOT_SUPPORTED always, INVALID_VALUE for block-scaled
 * formats, whose scale layouts older libraries reject as invalid. */
int cuda_words_refusal(int status, int block_scaled);

#ifdef __cplusplus
}
#endif

#endif
