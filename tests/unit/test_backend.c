/* test_backend.c: backend_for() hands every family its CPU ops, the GPU ops only when a device
 * is there (else cuda_probe()'s words), and names what it does not know; the words of a failed
 * CUDA or cuBLASLt call come in one format (cuda_words.h). */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "config.h"
#include "cuda/cuda.h"
#include "cuda/cuda_words.h"
#include "exp/bandwidth/bandwidth.h"
#include "exp/collective/collective_int.h"
#include "exp/compress/quant.h"
#include "exp/precision/precision.h"
#include "exp/train/train.h"
#include "measure/backend.h"

static const char *const families[] = { "bandwidth", "precision", "train", "compress" };

static void cpu_rows(void)
{
    char why[256];
    EXPECT(backend_for("bandwidth", "cpu", why, sizeof why) == &bw_cpu_ops);
    EXPECT(backend_for("precision", "cpu", why, sizeof why) == &prec_cpu_ops);
    EXPECT(backend_for("train", "cpu", why, sizeof why) == &train_cpu_ops);
    EXPECT(backend_for("compress", "cpu", why, sizeof why) == &compress_cpu_ops);
    for (size_t i = 0; i < sizeof families / sizeof families[0]; i++)
        EXPECT(backend_for(families[i], "cpu", NULL, 0) != NULL);
    why[0] = '\0';
    EXPECT(backend_for("bandwidth-transfers", "cpu", why, sizeof why) == NULL);
    EXPECT_STR(why, "the bandwidth-transfers family has no cpu backend");
}

/* Without a device every GPU row is refused with cuda_probe()'s reason, word for word. */
static void gpu_rows(const struct cuda_info *ci)
{
    char why[256];
    for (size_t i = 0; i < sizeof families / sizeof families[0]; i++) {
        why[0] = '\0';
        const void *ops = backend_for(families[i], "gpu", why, sizeof why);
        if (ci->ndev == 0) {
            EXPECT(ops == NULL);
            EXPECT_STR(why, ci->reason);
            EXPECT(strstr(why, "no CUDA device") || strstr(why, "built without CUDA") || strstr(why, "CUDA driver too old"));
        } else {
            EXPECT(ops != NULL);
        }
    }
    /* the collective family's device buffers (NCCL): the device's reason without one; with one,
     * NCCL's ops, or why the build has none; its host part is MPI's, not a backend */
    const void *coll = backend_for("collective", "gpu", why, sizeof why);
#ifdef HAVE_NCCL
    EXPECT(coll == (ci->ndev == 0 ? NULL : (const void *)&coll_nccl_ops));
#else
    EXPECT(coll == NULL);
#endif
    if (ci->ndev == 0)
        EXPECT_STR(why, ci->reason);
#ifndef HAVE_NCCL
    else
        EXPECT_STR(why, "this build has no NCCL (" SR_NO_NCCL_REASON ")");
#endif
    EXPECT(backend_for("collective", "cpu", why, sizeof why) == NULL);
    EXPECT_STR(why, "the collective family has no cpu backend");
#ifdef HAVE_CUDA
    if (ci->ndev > 0) {
        EXPECT(backend_for("bandwidth", "gpu", why, sizeof why) == &bw_cuda_ops);
        EXPECT(backend_for("bandwidth-transfers", "gpu", why, sizeof why) == &bw_cuda_xfer);
        EXPECT(backend_for("precision", "gpu", why, sizeof why) == &prec_gpu_ops);
        EXPECT(backend_for("train", "gpu", why, sizeof why) == &train_cuda_ops);
        EXPECT(backend_for("compress", "gpu", why, sizeof why) == &compress_cuda_ops);
    }
#else
    EXPECT(strstr(ci->reason, "built without CUDA") != NULL);
#endif
}

static void unknown(void)
{
    char why[256];
    EXPECT(backend_for("stream", "cpu", why, sizeof why) == NULL);
    EXPECT_STR(why, "no experiment family \"stream\" (bandwidth, bandwidth-transfers, dram, precision, train, compress, "
               "collective)");
    EXPECT(backend_for("bandwidth", "tpu", why, sizeof why) == NULL);
    EXPECT_STR(why, "no device \"tpu\" (cpu or gpu)");
    EXPECT(backend_for(NULL, "cpu", why, sizeof why) == NULL && strstr(why, "\"(none)\""));
    EXPECT(backend_for("train", "tpu", why, 8) == NULL && strlen(why) == 7);    /* cut to fit */
}

static void words(void)
{
    char err[128];
    EXPECT(cuda_words(err, sizeof err, "/work/build/../src/exp/train/train_cuda.cu", 42, "cudaMalloc(&p, n)",
                      "out of memory") == -1);
    EXPECT_STR(err, "src/exp/train/train_cuda.cu:42: cudaMalloc(&p, n): out of memory");
    cuda_words(err, sizeof err, "src/cuda/blaslt.cu", 7, "cublasLtCreate(&h)", "CUBLAS_STATUS_NOT_INITIALIZED");
    EXPECT_STR(err, "src/cuda/blaslt.cu:7: cublasLtCreate(&h): CUBLAS_STATUS_NOT_INITIALIZED");
    cuda_words(err, sizeof err, "/home/me/src/sparkreport/src/cuda/x.cu", 1, "f()", "w");
    EXPECT_STR(err, "src/cuda/x.cu:1: f(): w");
    cuda_words(err, sizeof err, "x.cu", 3, "f()", NULL);
    EXPECT_STR(err, "x.cu:3: f(): no words");
    cuda_words(err, 12, "x.cu", 3, "cudaMemcpy(a, b, n)", "invalid argument");
    EXPECT_STR(err, "x.cu:3: cud");
    EXPECT(cuda_words(NULL, 0, "x.cu", 1, "f()", "w") == -1);
    EXPECT(cuda_words_refusal(CUDA_WORDS_BLAS_NOT_SUPPORTED, 0));
    EXPECT(cuda_words_refusal(CUDA_WORDS_BLAS_NOT_SUPPORTED, 1));
    EXPECT(cuda_words_refusal(CUDA_WORDS_BLAS_INVALID_VALUE, 1));
    EXPECT(!cuda_words_refusal(CUDA_WORDS_BLAS_INVALID_VALUE, 0));
    EXPECT(!cuda_words_refusal(0, 1));
    EXPECT(!cuda_words_refusal(13, 1));        /* CUBLAS_STATUS_EXECUTION_FAILED is an error */
    /* issue 26, item 7: FP4 on sm_90 answers ARCH_MISMATCH: the device lacks it, not a failure */
    EXPECT(cuda_words_refusal(CUDA_WORDS_BLAS_ARCH_MISMATCH, 0));
    EXPECT(cuda_words_refusal(CUDA_WORDS_BLAS_ARCH_MISMATCH, 1));
    char buf[96];
    EXPECT_STR(cuda_words_blas_status(8, 1, buf, sizeof buf), "CUBLAS_STATUS_ARCH_MISMATCH: unsupported on this device");
    EXPECT_STR(cuda_words_blas_status(15, 0, buf, sizeof buf), "CUBLAS_STATUS_NOT_SUPPORTED: unsupported on this device");
    EXPECT_STR(cuda_words_blas_status(7, 1, buf, sizeof buf), "CUBLAS_STATUS_INVALID_VALUE: unsupported on this device");
    EXPECT_STR(cuda_words_blas_status(7, 0, buf, sizeof buf), "CUBLAS_STATUS_INVALID_VALUE: error");
    EXPECT_STR(cuda_words_blas_status(13, 1, buf, sizeof buf), "CUBLAS_STATUS_EXECUTION_FAILED: error");
    EXPECT_STR(cuda_words_blas_status(3, 0, buf, sizeof buf), "CUBLAS_STATUS_ALLOC_FAILED: error");
    EXPECT_STR(cuda_words_blas_status(14, 0, buf, sizeof buf), "CUBLAS_STATUS_INTERNAL_ERROR: error");
    EXPECT_STR(cuda_words_blas_status(0, 0, buf, sizeof buf), "CUBLAS_STATUS_SUCCESS: success");
    EXPECT_STR(cuda_words_blas_status(99, 0, buf, sizeof buf), "cuBLAS status 99: error");
    for (int s = 0; s < 32; s++)            /* the refusals are exactly these */
        EXPECT(cuda_words_refusal(s, 0) == (s == 8 || s == 15) && cuda_words_refusal(s, 1) == (s == 7 || s == 8 || s == 15));
}

/* Issue 26, item 7: a kernel fault poisons the context. Only the sticky codes count; the first
 * fault is kept; later GPU backends are refused with its words; the skip reasons that repeat it
 * are told once, then one short sentence. Last: it leaves this process's GPU lost. */
static void poisoned(void)
{
    static const char words[] = "an illegal memory access was encountered";
    char why[512] = "";
    EXPECT(cuda_words_sticky(700) && cuda_words_sticky(719) && cuda_words_sticky(710) && cuda_words_sticky(214));
    EXPECT(!cuda_words_sticky(0) && !cuda_words_sticky(2) && !cuda_words_sticky(35) && !cuda_words_sticky(999));
    cuda_words_fault(2, "out of memory", "src/x.cu:1: cudaMalloc(&p, n): out of memory");     /* not sticky */
    EXPECT(cuda_words_poisoned() == NULL);
    EXPECT_STR(cuda_words_once("src/x.cu:1: cudaMalloc(&p, n): out of memory"), "src/x.cu:1: cudaMalloc(&p, n): out of memory");
    cuda_words_fault(700, words, "src/exp/bandwidth/bandwidth_cuda.cu:360: launch: an illegal memory access was encountered");
    cuda_words_fault(719, "unspecified launch failure", "src/y.cu:2: z: unspecified launch failure");   /* not the first */
    EXPECT(cuda_words_poisoned() && strstr(cuda_words_poisoned(), "bandwidth_cuda.cu:360") != NULL);
    EXPECT(backend_for("precision", "gpu", why, sizeof why) == NULL);
    EXPECT(strstr(why, "earlier GPU item faulted") && strstr(why, "bandwidth_cuda.cu:360"));
    EXPECT(backend_for("precision", "cpu", why, sizeof why) == &prec_cpu_ops);   /* the CPU goes on */
    const char *first = "src/a.cu:1: cudaMalloc(&x, 8): an illegal memory access was encountered";
    EXPECT_STR(cuda_words_once(first), first);                                  /* told once ... */
    EXPECT_STR(cuda_words_once("src/b.cu:9: cudaMemcpy(...): an illegal memory access was encountered"), CUDA_WORDS_LOST);
    EXPECT_STR(cuda_words_once(first), CUDA_WORDS_LOST);                        /* ... then pointed to */
    EXPECT_STR(cuda_words_once("needs 4 GiB; only 1 GiB may be used now"), "needs 4 GiB; only 1 GiB may be used now");
}

int main(void)
{
    struct cuda_info ci;
    cuda_probe(&ci);
    cpu_rows();
    gpu_rows(&ci);
    unknown();
    words();
    poisoned();                 /* last: the GPU stays lost to this process */
    return CHECK_DONE();
}
