/* train_gemm.h: the matmuls of one training step as data, in plain C: for each op of the GPT
 * network's plan (src/net/plan.h), the products the GPU backend hands cuBLASLt (row-major
 * shapes, transposes, leading dimensions, batch strides, dtypes), the padding rule for the one
 * leading dimension a library would refuse (the vocabulary), and the walk that asks a library
 * for every product before a step runs and words the first refusal. Binding them to device
 * memory and running them is src/exp/train/train_cuda.cu's business; the CPU tests check these. */
#ifndef SR_TRAIN_GEMM_H
#define SR_TRAIN_GEMM_H

#include <stddef.h>

#include "net/plan.h"

/* The attention products, in the order the ops run them (which of an attention op's gemm). */
enum train_att_mm {
    TRAIN_ATT_SCORES = 0,       /* P~ = Q K^T / sqrt(d) */
    TRAIN_ATT_VALUES,           /* Y = P V */
    TRAIN_ATT_DPROBS,           /* dP = dY V^T */
    TRAIN_ATT_DV,               /* dV = P^T dY */
    TRAIN_ATT_DQ,               /* dQ = dS K */
    TRAIN_ATT_DK,               /* dK = dS^T Q */
    TRAIN_ATT_NMM
};

/* Row-major C[m,n] = alpha op(A) op(B) + beta C, op(A) [m,k], op(B) [k,n]. */
struct train_gemm {
    enum net_kind kind;         /* the op it belongs to */
    int which;                  /* matmuls: enum net_linear; attention: enum train_att_mm */
    int ta, tb;                 /* 1: the operand is stored transposed ([k,m] for A, [n,k] for B) */
    long long m, n, k;
    long long lda, ldb, ldc;    /* elements between rows as stored */
    int batch;                  /* products: 1, or B a (sequence, head) pairs for attention */
    long long sa, sb, sc;       /* elements between the products of a batch; 0 when batch is 1 */
    enum net_dtype at, bt, ct;  /* ct is FP32: every product accumulates and writes FP32 */
    int scaled;                 /* E4M3 operands with one dequantisation factor per tensor */
    float alpha, beta;
};

#define TRAIN_GEMMS_PER_OP 4        /* attention backward's four products */
#define TRAIN_LD_ALIGN 16           /* elements: 16 bytes of E4M3, 32 of BF16, 64 of FP32 */

/* The vocabulary rounded up to TRAIN_LD_ALIGN: the row length of the GPU's logits and of their
 * gradient (the columns past V are never written by a product and are left out of the loss),
 * so every leading dimension of the LM head is aligned as cuBLASLt's BF16 and FP8 kernels want
 * (GPT-2's 50257 is odd). pad 0: V itself. */
long long train_vocab_ld(int vocab, int pad);

/* The products of one op (0 for an op without one), at most TRAIN_GEMMS_PER_OP, in the order
 * the op runs them; pad as in train_vocab_ld. */
int train_gemms_of(const struct net_shape *s, enum net_prec p, int pad, const struct net_op *op,
                   struct train_gemm *out);

/* The distinct products of one step (kind and which aside: what a library plans), in first
 * use order; returns how many there are (out may be NULL, at most cap are written). */
int train_gemm_plan(const struct net_shape *s, enum net_prec p, int pad, struct train_gemm *out, int cap);

/* 1 when every leading dimension and batch stride of g, at its operand's dtype, is a multiple
 * of `bytes`. */
int train_gemm_aligned(const struct train_gemm *g, int bytes);

/* "matmul_dgrad lmhead: 1024 x 768 x 50257, A bf16 [ld 50257], B bf16 [ld 768] -> fp32 [ld 768]" */
char *train_gemm_text(const struct train_gemm *g, char *buf, size_t n);

/* What a library says of one product of op (BLASLT_OK, BLASLT_REFUSED, BLASLT_ERROR of
 * src/cuda/blaslt.h, whose values these are), with its words in why otherwise. */
enum { TRAIN_GEMM_OK = 0, TRAIN_GEMM_REFUSED = 1, TRAIN_GEMM_ERROR = -1 };
typedef int (*train_gemm_ask_fn)(void *arg, const struct net_op *op, const struct train_gemm *g, char *why,
                                 size_t n);

/* A backend's open() that fails with a message beginning with this declined the configuration
 * (a library offers no algorithm for one of its products): the run lists it in `skipped`. */
#define TRAIN_NOT_MEASURED "not measured: "

/* Asks for every product of every op of one step, in plan order (a backend caches repeats):
 * 0 when all are offered; 1 at the first refusal, with "not measured: <product>: <words>" in
 * err; -1 at the first error, with its words. */
int train_gemm_walk(const struct net_shape *s, enum net_prec p, int pad, train_gemm_ask_fn ask, void *arg,
                    char *err, size_t errlen);

#endif
