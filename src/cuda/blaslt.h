/* blaslt.h: the one cuBLASLt wrapper, shared by the precision and training backends: a handle
 * with its stream and workspace; a matmul described as column-major layouts and created with its
 * descriptor, layouts, alignments and scale pointers (FP8 per tensor, FP4 per block); the
 * heuristic's candidates; the product. Every cuBLASLt call is checked: on failure err gets
 * "FILE:LINE: CALL: STATUS (cuBLASLt's words)" (cuda_words.h) and the function returns
 * BLASLT_REFUSED when the library declines the request (no algorithm, NOT_SUPPORTED, INVALID_VALUE
 * for block-scaled formats) or BLASLT_ERROR otherwise; nothing exits. CUDA host code only. */
#ifndef SR_BLASLT_H
#define SR_BLASLT_H

#include <stddef.h>
#include <stdint.h>

#include <cublasLt.h>
#include <cuda_runtime.h>

enum { BLASLT_OK = 0, BLASLT_REFUSED = 1, BLASLT_ERROR = -1 };

struct blaslt {
    cublasLtHandle_t lt;
    cudaStream_t stream;        /* every product runs on it */
    void *workspace;            /* device, ws_bytes */
    size_t ws_bytes;
    int owns_workspace;
};

/* Creates the handle for `stream`; workspace NULL: allocates ws_bytes of its own. */
int blaslt_open(struct blaslt *b, cudaStream_t stream, void *workspace, size_t ws_bytes, char *err, size_t errlen);
void blaslt_close(struct blaslt *b);

/* A column-major matrix, rows x cols with leading dimension ld (elements); batch > 1: that
 * many of them, `stride` elements apart. */
struct blaslt_layout {
    cudaDataType_t type;
    uint64_t rows, cols;
    int64_t ld;
    int batch;
    int64_t stride;
};

enum blaslt_scaling {
    BLASLT_SCALE_NONE = 0,
    BLASLT_SCALE_TENSOR,        /* one float per operand (FP8) */
    BLASLT_SCALE_VEC16_UE4M3,   /* one E4M3 scale per 16 elements along K (NVFP4) */
    BLASLT_SCALE_VEC32_UE8M0    /* one E8M0 scale per 32 elements along K (MXFP4) */
};

/* D = alpha op(A) op(B) + beta C, D laid out as C. */
struct blaslt_desc {
    cublasComputeType_t compute;
    cudaDataType_t scale_type;  /* of alpha and beta */
    cublasOperation_t ta, tb;
    struct blaslt_layout a, b, c;
    enum blaslt_scaling scaling;
    const void *scale_a, *scale_b;          /* device pointers; NONE: unused */
    uint32_t align_a, align_b, align_c;     /* bytes the operands are aligned to; 0: 256 */
    int fast_accum;             /* FP8: CUBLASLT_MATMUL_DESC_FAST_ACCUM (reduced-precision accumulation) */
};

struct blaslt_matmul {
    cublasLtMatmulDesc_t op;
    cublasLtMatrixLayout_t la, lb, lc;
    cublasLtMatmulAlgo_t algo;  /* blaslt_choose's, or the caller's pick of the candidates */
    struct blaslt_desc d;
};

/* Descriptor, scale modes and pointers, layouts. On failure too, blaslt_matmul_close frees what
 * was made. */
int blaslt_matmul_open(struct blaslt_matmul *m, const struct blaslt_desc *d, char *err, size_t errlen);
void blaslt_matmul_close(struct blaslt_matmul *m);

/* Up to `want` algorithms in the heuristic's order, for b's workspace; *found of them. None at
 * all is a refusal. */
int blaslt_candidates(const struct blaslt *b, const struct blaslt_matmul *m, cublasLtMatmulHeuristicResult_t *res,
                      int want, int *found, char *err, size_t errlen);

/* The heuristic's first algorithm into m->algo. */
int blaslt_choose(const struct blaslt *b, struct blaslt_matmul *m, char *err, size_t errlen);

/* New scale pointers for the coming products (training's per-step FP8 factors). */
int blaslt_set_scales(struct blaslt_matmul *m, const void *scale_a, const void *scale_b, char *err, size_t errlen);

/* One product on b's stream with algo (NULL: m->algo); alpha and beta in d.scale_type. */
int blaslt_run(const struct blaslt *b, const struct blaslt_matmul *m, const cublasLtMatmulAlgo_t *algo,
               const void *alpha, const void *A, const void *B, const void *beta, const void *C, void *D,
               char *err, size_t errlen);

/* "cuBLASLt algo 21 tile 13" into buf. */
int blaslt_algo_words(const cublasLtMatmulAlgo_t *algo, char *buf, size_t n, char *err, size_t errlen);

#endif
