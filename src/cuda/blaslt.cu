/* blaslt.cu: the cuBLASLt wrapper (blaslt.h). Each cuBLASLt call goes through LT_CHECK, each
 * runtime call through CUDA_CHECK; a failing call's words go to err and the function returns
 * the verdict (refused or failed). Descriptor and layout destruction in the close functions
 * has nothing left to report to and is not checked. */
#include "cuda/blaslt.h"

#include <stdio.h>
#include <string.h>

#include "cuda/cuda_check.h"
#include "cuda/cuda_words.h"

static_assert((int)CUBLAS_STATUS_NOT_SUPPORTED == (int)CUDA_WORDS_BLAS_NOT_SUPPORTED, "cuda_words.h's status codes");
static_assert((int)CUBLAS_STATUS_INVALID_VALUE == (int)CUDA_WORDS_BLAS_INVALID_VALUE, "cuda_words.h's status codes");
static_assert((int)CUBLAS_STATUS_ARCH_MISMATCH == (int)CUDA_WORDS_BLAS_ARCH_MISMATCH, "cuda_words.h's status codes");
static_assert((int)CUBLAS_STATUS_SUCCESS == (int)CUDA_WORDS_BLAS_SUCCESS, "cuda_words.h's status codes");
static_assert((int)CUBLAS_STATUS_NOT_INITIALIZED == (int)CUDA_WORDS_BLAS_NOT_INITIALIZED, "cuda_words.h's status codes");
static_assert((int)CUBLAS_STATUS_ALLOC_FAILED == (int)CUDA_WORDS_BLAS_ALLOC_FAILED, "cuda_words.h's status codes");
static_assert((int)CUBLAS_STATUS_MAPPING_ERROR == (int)CUDA_WORDS_BLAS_MAPPING_ERROR, "cuda_words.h's status codes");
static_assert((int)CUBLAS_STATUS_EXECUTION_FAILED == (int)CUDA_WORDS_BLAS_EXECUTION_FAILED, "cuda_words.h's status codes");
static_assert((int)CUBLAS_STATUS_INTERNAL_ERROR == (int)CUDA_WORDS_BLAS_INTERNAL_ERROR, "cuda_words.h's status codes");
static_assert((int)CUBLAS_STATUS_LICENSE_ERROR == (int)CUDA_WORDS_BLAS_LICENSE_ERROR, "cuda_words.h's status codes");

static void lt_words(char *err, size_t errlen, const char *file, int line, const char *call, cublasStatus_t s)
{
    char words[192];
    snprintf(words, sizeof words, "%s (%s)", cublasLtGetStatusName(s), cublasLtGetStatusString(s));
    cuda_words(err, errlen, file, line, call, words);
}

/* Needs `cublasStatus_t status` in scope and a `fail:` label returning verdict(status, ...). */
#define LT_CHECK(call, err, errlen)                                                          \
    do {                                                                                     \
        cublasStatus_t s_ = (call);                                                          \
        if (s_ != CUBLAS_STATUS_SUCCESS) {                                                   \
            status = s_;                                                                     \
            lt_words((err), (errlen), __FILE__, __LINE__, #call, s_);                        \
            goto fail;                                                                       \
        }                                                                                    \
    } while (0)

static int block_scaled(const struct blaslt_desc *d)
{
    return d->scaling == BLASLT_SCALE_VEC16_UE4M3 || d->scaling == BLASLT_SCALE_VEC32_UE8M0;
}

static int verdict(cublasStatus_t status, int block)
{
    return cuda_words_refusal((int)status, block) ? BLASLT_REFUSED : BLASLT_ERROR;
}

int blaslt_open(struct blaslt *b, cudaStream_t stream, void *workspace, size_t ws_bytes, char *err, size_t errlen)
{
    cublasStatus_t status = CUBLAS_STATUS_SUCCESS;
    memset(b, 0, sizeof *b);
    b->stream = stream;
    b->workspace = workspace;
    b->ws_bytes = ws_bytes;
    LT_CHECK(cublasLtCreate(&b->lt), err, errlen);
    if (!workspace && ws_bytes > 0) {
        CUDA_CHECK(cudaMalloc(&b->workspace, ws_bytes), err, errlen);
        b->owns_workspace = 1;
    }
    return BLASLT_OK;
fail:
    blaslt_close(b);
    return verdict(status, 0);
}

void blaslt_close(struct blaslt *b)
{
    if (b->owns_workspace)
        cudaFree(b->workspace);
    if (b->lt)
        cublasLtDestroy(b->lt);
    cudaGetLastError();
    memset(b, 0, sizeof *b);
}

static int layout(cublasLtMatrixLayout_t *l, const struct blaslt_layout *x, char *err, size_t errlen)
{
    cublasStatus_t status = CUBLAS_STATUS_SUCCESS;
    LT_CHECK(cublasLtMatrixLayoutCreate(l, x->type, x->rows, x->cols, x->ld), err, errlen);
    if (x->batch > 1) {
        LT_CHECK(cublasLtMatrixLayoutSetAttribute(*l, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &x->batch, sizeof x->batch),
                 err, errlen);
        LT_CHECK(cublasLtMatrixLayoutSetAttribute(*l, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &x->stride,
                                                  sizeof x->stride), err, errlen);
    }
    return BLASLT_OK;
fail:
    return verdict(status, 0);
}

static int scale_modes(cublasLtMatmulDesc_t op, enum blaslt_scaling sc, char *err, size_t errlen)
{
    cublasStatus_t status = CUBLAS_STATUS_SUCCESS;
    cublasLtMatmulMatrixScale_t mode = sc == BLASLT_SCALE_VEC16_UE4M3 ? CUBLASLT_MATMUL_MATRIX_SCALE_VEC16_UE4M3
                                                                      : CUBLASLT_MATMUL_MATRIX_SCALE_VEC32_UE8M0;
    LT_CHECK(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_A_SCALE_MODE, &mode, sizeof mode), err, errlen);
    LT_CHECK(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_B_SCALE_MODE, &mode, sizeof mode), err, errlen);
    return BLASLT_OK;
fail:
    return verdict(status, 1);
}

int blaslt_matmul_open(struct blaslt_matmul *m, const struct blaslt_desc *d, char *err, size_t errlen)
{
    cublasStatus_t status = CUBLAS_STATUS_SUCCESS;
    int rc;
    memset(m, 0, sizeof *m);
    m->d = *d;
    LT_CHECK(cublasLtMatmulDescCreate(&m->op, d->compute, d->scale_type), err, errlen);
    LT_CHECK(cublasLtMatmulDescSetAttribute(m->op, CUBLASLT_MATMUL_DESC_TRANSA, &d->ta, sizeof d->ta), err, errlen);
    LT_CHECK(cublasLtMatmulDescSetAttribute(m->op, CUBLASLT_MATMUL_DESC_TRANSB, &d->tb, sizeof d->tb), err, errlen);
    if (d->fast_accum) {
        int8_t on = 1;
        LT_CHECK(cublasLtMatmulDescSetAttribute(m->op, CUBLASLT_MATMUL_DESC_FAST_ACCUM, &on, sizeof on), err, errlen);
    }
    if (block_scaled(d) && (rc = scale_modes(m->op, d->scaling, err, errlen)) != BLASLT_OK)
        return rc;
    if (d->scaling != BLASLT_SCALE_NONE && (rc = blaslt_set_scales(m, d->scale_a, d->scale_b, err, errlen)) != BLASLT_OK)
        return rc;
    if ((rc = layout(&m->la, &d->a, err, errlen)) != BLASLT_OK || (rc = layout(&m->lb, &d->b, err, errlen)) != BLASLT_OK
        || (rc = layout(&m->lc, &d->c, err, errlen)) != BLASLT_OK)
        return rc;
    return BLASLT_OK;
fail:
    return verdict(status, block_scaled(d));
}

void blaslt_matmul_close(struct blaslt_matmul *m)
{
    if (m->la)
        cublasLtMatrixLayoutDestroy(m->la);
    if (m->lb)
        cublasLtMatrixLayoutDestroy(m->lb);
    if (m->lc)
        cublasLtMatrixLayoutDestroy(m->lc);
    if (m->op)
        cublasLtMatmulDescDestroy(m->op);
    memset(m, 0, sizeof *m);
}

int blaslt_set_scales(struct blaslt_matmul *m, const void *scale_a, const void *scale_b, char *err, size_t errlen)
{
    cublasStatus_t status = CUBLAS_STATUS_SUCCESS;
    m->d.scale_a = scale_a;
    m->d.scale_b = scale_b;
    LT_CHECK(cublasLtMatmulDescSetAttribute(m->op, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &scale_a, sizeof scale_a),
             err, errlen);
    LT_CHECK(cublasLtMatmulDescSetAttribute(m->op, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &scale_b, sizeof scale_b),
             err, errlen);
    return BLASLT_OK;
fail:
    return verdict(status, block_scaled(&m->d));
}

/* The preference: b's workspace, and the alignments the operands really have (cuBLASLt
 * assumes 256 bytes unless told). */
static int preference(cublasLtMatmulPreference_t pref, const struct blaslt *b, const struct blaslt_desc *d,
                      char *err, size_t errlen)
{
    cublasStatus_t status = CUBLAS_STATUS_SUCCESS;
    uint64_t ws = b->ws_bytes;
    const uint32_t al[4] = { d->align_a, d->align_b, d->align_c, d->align_c };
    const cublasLtMatmulPreferenceAttributes_t which[4] = {
        CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES,
        CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES };
    LT_CHECK(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws),
             err, errlen);
    for (int i = 0; i < 4; i++)
        if (al[i])
            LT_CHECK(cublasLtMatmulPreferenceSetAttribute(pref, which[i], &al[i], sizeof al[i]), err, errlen);
    return BLASLT_OK;
fail:
    return verdict(status, 0);
}

int blaslt_candidates(const struct blaslt *b, const struct blaslt_matmul *m, cublasLtMatmulHeuristicResult_t *res,
                      int want, int *found, char *err, size_t errlen)
{
    cublasStatus_t status = CUBLAS_STATUS_SUCCESS;
    cublasLtMatmulPreference_t pref = NULL;
    int rc = BLASLT_OK;
    *found = 0;
    LT_CHECK(cublasLtMatmulPreferenceCreate(&pref), err, errlen);
    if ((rc = preference(pref, b, &m->d, err, errlen)) != BLASLT_OK)
        goto done;
    LT_CHECK(cublasLtMatmulAlgoGetHeuristic(b->lt, m->op, m->la, m->lb, m->lc, m->lc, pref, want, res, found),
             err, errlen);
    if (*found == 0) {
        status = CUBLAS_STATUS_NOT_SUPPORTED;
        lt_words(err, errlen, __FILE__, __LINE__, "cublasLtMatmulAlgoGetHeuristic: no algorithm", status);
        goto fail;
    }
    goto done;
fail:
    rc = verdict(status, block_scaled(&m->d));
done:
    if (pref)
        cublasLtMatmulPreferenceDestroy(pref);
    return rc;
}

int blaslt_choose(const struct blaslt *b, struct blaslt_matmul *m, char *err, size_t errlen)
{
    cublasLtMatmulHeuristicResult_t res;
    int found = 0, rc = blaslt_candidates(b, m, &res, 1, &found, err, errlen);
    if (rc == BLASLT_OK)
        m->algo = res.algo;
    return rc;
}

int blaslt_run(const struct blaslt *b, const struct blaslt_matmul *m, const cublasLtMatmulAlgo_t *algo,
               const void *alpha, const void *A, const void *B, const void *beta, const void *C, void *D,
               char *err, size_t errlen)
{
    cublasStatus_t status = CUBLAS_STATUS_SUCCESS;
    LT_CHECK(cublasLtMatmul(b->lt, m->op, alpha, A, m->la, B, m->lb, beta, C, m->lc, D, m->lc, algo ? algo : &m->algo,
                            b->workspace, b->ws_bytes, b->stream), err, errlen);
    return BLASLT_OK;
fail:
    return verdict(status, block_scaled(&m->d));
}

int blaslt_algo_words(const cublasLtMatmulAlgo_t *algo, char *buf, size_t n, char *err, size_t errlen)
{
    cublasStatus_t status = CUBLAS_STATUS_SUCCESS;
    int id = -1;
    uint32_t tile = 0;
    size_t wr = 0;
    LT_CHECK(cublasLtMatmulAlgoConfigGetAttribute(algo, CUBLASLT_ALGO_CONFIG_ID, &id, sizeof id, &wr), err, errlen);
    LT_CHECK(cublasLtMatmulAlgoConfigGetAttribute(algo, CUBLASLT_ALGO_CONFIG_TILE_ID, &tile, sizeof tile, &wr),
             err, errlen);
    snprintf(buf, n, "cuBLASLt algo %d tile %u", id, tile);
    return BLASLT_OK;
fail:
    return verdict(status, 0);
}
