/* train_cuda.h: the CUDA kernels of the training backend (train_cuda_kernels.cu) behind launchers
 * that take a stream and return the launch's status; src/exp/train/train_cuda.cu decides which arrays an op names
 * and runs the matmuls. Shapes as in src/exp/train/train_cpu.h: T tokens (B sequences of S), h
 * hidden, a heads of d = h / a, V vocabulary; `low` arrays are BF16 (uint16_t) when low is
 * non-zero. Each launcher returns its launches' status (cudaGetLastError), which the caller
 * checks with CUDA_CHECK. Reductions use fixed trees and train_reduce.h's fixed two-stage order,
 * no atomics: a run repeats bit for bit. */
#ifndef SR_TRAIN_CUDA_H
#define SR_TRAIN_CUDA_H

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

#include "cuda/cuda_check.h"
#include "exp/train/train_math.h"

#define TRAIN_SUMSQ_BLOCK 8192      /* elements per partial sum of the gradient norm */
#define TRAIN_AMAX_BLOCK 8192       /* elements per partial absolute maximum */

cudaError_t train_gpu_embed(cudaStream_t st, float *x, const int32_t *tok, const float *wte, const float *wpe, int B, int S, int h);
/* dwte, dwpe += the token and position sums of dx; order and starts: train_embed_groups() of tok,
 * ngroups groups (train_reduce.h) */
cudaError_t train_gpu_embed_bwd(cudaStream_t st, float *dwte, float *dwpe, const float *dx, const int32_t *tok,
                                const int32_t *order, const int32_t *starts, int ngroups, int B, int S, int h);
cudaError_t train_gpu_layernorm(cudaStream_t st, void *out, int low, float *stats, const float *x, const float *w, const float *b,
                         size_t T, int h);
/* part: 2 h train_red_slices(T) floats of scratch for the parameter gradients' partials */
cudaError_t train_gpu_layernorm_bwd(cudaStream_t st, float *dres, int overwrite, float *dw, float *db, float *part,
                                    const float *dout, const float *x, const float *stats, const float *w, size_t T,
                                    int h);
/* [B,S,3h] -> q, k, v, each [B,a,S,d] */
cudaError_t train_gpu_split_qkv(cudaStream_t st, float *q, float *k, float *v, const float *qkv, int B, int S, int h, int a);
/* dq, dk, dv [B,a,S,d] -> [B,S,3h] */
cudaError_t train_gpu_merge_qkv(cudaStream_t st, float *dqkv, const float *dq, const float *dk, const float *dv, int B, int S, int h, int a);
/* [B,S,h] <-> [B,a,S,d]; the merge may write BF16 */
cudaError_t train_gpu_split_heads(cudaStream_t st, float *out, const float *in, int B, int S, int h, int a);
cudaError_t train_gpu_merge_heads(cudaStream_t st, void *out, int low, const float *in, int B, int S, int h, int a);
/* rows x S scores -> causal softmax in place (zeros above the diagonal); rows = B a S */
cudaError_t train_gpu_softmax_causal(cudaStream_t st, float *att, size_t rows, int S);
/* datt -> (att * (datt - sum(att * datt))) * scale in place, zeros above the diagonal */
cudaError_t train_gpu_softmax_causal_bwd(cudaStream_t st, float *datt, const float *att, size_t rows, int S, float scale);
cudaError_t train_gpu_gelu(cudaStream_t st, void *out, int low, const float *x, size_t n);
cudaError_t train_gpu_gelu_bwd(cudaStream_t st, float *d, const float *x, size_t n);
cudaError_t train_gpu_add(cudaStream_t st, float *y, const float *x, size_t n);
cudaError_t train_gpu_add_bias(cudaStream_t st, float *y, const float *b, size_t rows, size_t cols);
/* out += the column sums of x [rows, cols]; part: cols train_red_slices(rows) floats of scratch */
cudaError_t train_gpu_colsum(cudaStream_t st, float *out, float *part, const float *x, size_t rows, size_t cols);
/* logits [T, ld], V of each row used (the rest, train_gemm.h's padding, untouched) */
cudaError_t train_gpu_xent(cudaStream_t st, float *losses, float *logits, const int32_t *targets, size_t T, int V,
                           size_t ld);
cudaError_t train_gpu_xent_bwd(cudaStream_t st, float *logits, const int32_t *targets, size_t T, int V, size_t ld,
                               float scale);
cudaError_t train_gpu_bf16(cudaStream_t st, uint16_t *out, const float *x, size_t n);
/* *amax = max |x| of n BF16 values (partial: n / TRAIN_AMAX_BLOCK + 1 floats of scratch) */
cudaError_t train_gpu_absmax(cudaStream_t st, float *amax, float *partial, const uint16_t *x, size_t n);
/* out = E4M3(x * 448 / amax); *inv = amax / 448, the factor cuBLASLt multiplies back */
cudaError_t train_gpu_quantize(cudaStream_t st, uint8_t *out, float *inv, const uint16_t *x, size_t n, const float *amax);
/* *norm = sqrt(sum x^2) (partial: n / TRAIN_SUMSQ_BLOCK + 1 doubles of scratch) */
cudaError_t train_gpu_norm(cudaStream_t st, float *norm, double *partial, const float *x, size_t n);
cudaError_t train_gpu_adamw(cudaStream_t st, float *w, float *m, float *v, const float *g, size_t n, struct train_adam a,
                     float clip, const float *norm, int decay);
/* w += eps g / norm */
cudaError_t train_gpu_perturb(cudaStream_t st, float *w, const float *g, size_t n, float eps, const float *norm);

#endif
