/* cuda_words.c: the one format of a failed CUDA or cuBLASLt call (cuda_words.h). No CUDA
 * header here: the words themselves come from the runtime and the library at the call. */
#include "cuda/cuda_words.h"

#include <stdio.h>
#include <string.h>

static const char *from_src(const char *file)
{
    const char *p = file, *last = NULL;
    if (strncmp(file, "src/", 4) == 0)
        return file;
    while ((p = strstr(p, "/src/")) != NULL)
        last = ++p;
    return last ? last : file;
}

int cuda_words(char *err, size_t n, const char *file, int line, const char *call, const char *words)
{
    if (err && n > 0)
        snprintf(err, n, "%s:%d: %s: %s", from_src(file ? file : "?"), line, call ? call : "?",
                 words ? words : "no words");
    return -1;
}

/* Every cuBLAS status: its name and whether it is a refusal (1), a refusal only for
 * block-scaled formats (2), or an error (0). */
static const struct {
    int status;
    const char *name;
    int refusal;
} blas_statuses[] = {
    { CUDA_WORDS_BLAS_SUCCESS, "CUBLAS_STATUS_SUCCESS", 0 },
    { CUDA_WORDS_BLAS_NOT_INITIALIZED, "CUBLAS_STATUS_NOT_INITIALIZED", 0 },
    { CUDA_WORDS_BLAS_ALLOC_FAILED, "CUBLAS_STATUS_ALLOC_FAILED", 0 },
    { CUDA_WORDS_BLAS_INVALID_VALUE, "CUBLAS_STATUS_INVALID_VALUE", 2 },
    { CUDA_WORDS_BLAS_ARCH_MISMATCH, "CUBLAS_STATUS_ARCH_MISMATCH", 1 },
    { CUDA_WORDS_BLAS_MAPPING_ERROR, "CUBLAS_STATUS_MAPPING_ERROR", 0 },
    { CUDA_WORDS_BLAS_EXECUTION_FAILED, "CUBLAS_STATUS_EXECUTION_FAILED", 0 },
    { CUDA_WORDS_BLAS_INTERNAL_ERROR, "CUBLAS_STATUS_INTERNAL_ERROR", 0 },
    { CUDA_WORDS_BLAS_NOT_SUPPORTED, "CUBLAS_STATUS_NOT_SUPPORTED", 1 },
    { CUDA_WORDS_BLAS_LICENSE_ERROR, "CUBLAS_STATUS_LICENSE_ERROR", 0 },
};

static const int sticky[] = {
    CUDA_WORDS_ECC_UNCORRECTABLE, CUDA_WORDS_ILLEGAL_ADDRESS, CUDA_WORDS_LAUNCH_TIMEOUT, CUDA_WORDS_ASSERT,
    CUDA_WORDS_HARDWARE_STACK_ERROR, CUDA_WORDS_ILLEGAL_INSTRUCTION, CUDA_WORDS_MISALIGNED_ADDRESS,
    CUDA_WORDS_INVALID_ADDRESS_SPACE, CUDA_WORDS_INVALID_PC, CUDA_WORDS_LAUNCH_FAILURE,
};
static struct {
    char words[160];            /* the runtime's words for the fault: what every later call repeats */
    char full[512];             /* the first failure, "FILE:LINE: CALL: words" */
    int told;                   /* a skip reason with the words has been recorded */
} lost;

int cuda_words_sticky(int cuda_error)
{
    for (size_t i = 0; i < sizeof sticky / sizeof sticky[0]; i++)
        if (sticky[i] == cuda_error)
            return 1;
    return 0;
}

void cuda_words_fault(int cuda_error, const char *words, const char *full)
{
    if (lost.words[0] || !cuda_words_sticky(cuda_error) || !words || !*words)
        return;
    snprintf(lost.words, sizeof lost.words, "%s", words);
    snprintf(lost.full, sizeof lost.full, "%s", full && *full ? full : words);
}

const char *cuda_words_poisoned(void)
{
    return lost.words[0] ? lost.full : NULL;
}

const char *cuda_words_once(const char *reason)
{
    if (!lost.words[0] || !reason || !strstr(reason, lost.words))
        return reason;
    if (!lost.told) {
        lost.told = 1;
        return reason;
    }
    return CUDA_WORDS_LOST;
}

int cuda_words_refusal(int status, int block_scaled)
{
    for (size_t i = 0; i < sizeof blas_statuses / sizeof blas_statuses[0]; i++)
        if (blas_statuses[i].status == status)
            return blas_statuses[i].refusal == 1 || (block_scaled && blas_statuses[i].refusal == 2);
    return 0;
}

const char *cuda_words_blas_status(int status, int block_scaled, char *buf, size_t n)
{
    const char *verdict = status == CUDA_WORDS_BLAS_SUCCESS ? "success"
                        : cuda_words_refusal(status, block_scaled) ? "unsupported on this device" : "error";
    for (size_t i = 0; i < sizeof blas_statuses / sizeof blas_statuses[0]; i++)
        if (blas_statuses[i].status == status) {
            snprintf(buf, n, "%s: %s", blas_statuses[i].name, verdict);
            return buf;
        }
    snprintf(buf, n, "cuBLAS status %d: %s", status, verdict);
    return buf;
}
