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

int cuda_words_refusal(int status, int block_scaled)
{
    return status == CUDA_WORDS_BLAS_NOT_SUPPORTED || (block_scaled && status == CUDA_WORDS_BLAS_INVALID_VALUE);
}
