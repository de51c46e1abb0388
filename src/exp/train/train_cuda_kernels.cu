/* train_cuda_kernels.cu: the CUDA kernels of the training backend other than the matmuls
 * (train_cuda.h): embedding, LayerNorm, head (un)permutation, causal softmax, GELU,
 * residual and bias adds, cross-entropy, BF16 and E4M3 conversion, the gradient norm and
 * AdamW. Per-element math is train_math.h's, the same the CPU tests check. No atomics:
 * gradient sums over tokens in train_reduce.h's two fixed stages, other sums in fixed trees. */
#include "exp/train/train_cuda.h"
#include "exp/train/train_reduce.h"

#define THREADS 256
#define WARPS (THREADS / 32)

static unsigned blocks_for(size_t n)
{
    size_t b = (n + THREADS - 1) / THREADS;
    return (unsigned)(b < 1 ? 1 : b > 65535u * 16 ? 65535u * 16 : b);
}

/* A launcher's first failed launch is its answer. */
#define LAUNCHED()                                                                           \
    do {                                                                                     \
        cudaError_t e_ = cudaGetLastError();                                                 \
        if (e_ != cudaSuccess)                                                               \
            return e_;                                                                       \
    } while (0)
#define GRID_STRIDE(i, n) for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < (n); i += (size_t)gridDim.x * blockDim.x)

__device__ static float warp_sum(float v)
{
    for (int o = 16; o > 0; o >>= 1)
        v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

__device__ static float warp_max(float v)
{
    for (int o = 16; o > 0; o >>= 1)
        v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
    return v;
}

/* Sum and maximum over a block of THREADS threads (a fixed tree). */
__device__ static double block_sum(double v)
{
    __shared__ double sh[THREADS];
    sh[threadIdx.x] = v;
    __syncthreads();
    for (int s = THREADS / 2; s > 0; s >>= 1) {
        if ((int)threadIdx.x < s)
            sh[threadIdx.x] += sh[threadIdx.x + s];
        __syncthreads();
    }
    double r = sh[0];
    __syncthreads();
    return r;
}

__device__ static float block_max(float v)
{
    __shared__ float sh[THREADS];
    sh[threadIdx.x] = v;
    __syncthreads();
    for (int s = THREADS / 2; s > 0; s >>= 1) {
        if ((int)threadIdx.x < s)
            sh[threadIdx.x] = fmaxf(sh[threadIdx.x], sh[threadIdx.x + s]);
        __syncthreads();
    }
    float r = sh[0];
    __syncthreads();
    return r;
}

__device__ static void put(void *out, int low, size_t i, float v)
{
    if (low)
        ((uint16_t *)out)[i] = train_bf16(v);
    else
        ((float *)out)[i] = v;
}

/* ---- embedding ---- */

__global__ static void k_embed(float *x, const int32_t *tok, const float *wte, const float *wpe, int S, int h)
{
    size_t t = blockIdx.x;
    const float *e = wte + (size_t)tok[t] * h, *p = wpe + (t % S) * h;
    for (int i = threadIdx.x; i < h; i += blockDim.x)
        x[t * h + i] = e[i] + p[i];
}

cudaError_t train_gpu_embed(cudaStream_t st, float *x, const int32_t *tok, const float *wte, const float *wpe, int B, int S, int h)
{
    k_embed<<<(unsigned)((size_t)B * S), THREADS, 0, st>>>(x, tok, wte, wpe, S, h);
    return cudaGetLastError();
}

/* dwte: one thread per (token group, column), the group's rows in position order; dwpe: one
 * thread per (position, column), the sequences in order (train_reduce.h). */
__global__ static void k_embed_bwd_tok(float *dwte, const float *dx, const int32_t *tok, const int32_t *order,
                                       const int32_t *starts, int h)
{
    int g = blockIdx.x, i = blockIdx.y * blockDim.x + threadIdx.x;
    if (i >= h)
        return;
    int lo = starts[g], hi = starts[g + 1];
    dwte[(size_t)tok[order[lo]] * h + i] += train_red_group(dx, order, lo, hi, (size_t)h, (size_t)i);
}

__global__ static void k_embed_bwd_pos(float *dwpe, const float *dx, int B, int S, int h)
{
    GRID_STRIDE(idx, (size_t)S * h) {
        size_t i = idx % h;
        int p = (int)(idx / h);
        dwpe[idx] += train_red_position(dx, B, S, (size_t)h, p, i);
    }
}

cudaError_t train_gpu_embed_bwd(cudaStream_t st, float *dwte, float *dwpe, const float *dx, const int32_t *tok,
                                const int32_t *order, const int32_t *starts, int ngroups, int B, int S, int h)
{
    dim3 grid((unsigned)ngroups, (unsigned)((h + THREADS - 1) / THREADS));
    if (ngroups > 0)
        k_embed_bwd_tok<<<grid, THREADS, 0, st>>>(dwte, dx, tok, order, starts, h);
    LAUNCHED();
    k_embed_bwd_pos<<<blocks_for((size_t)S * h), THREADS, 0, st>>>(dwpe, dx, B, S, h);
    return cudaGetLastError();
}

/* ---- column sums in two fixed stages (train_reduce.h): a thread per (column, slice) writes a
 * partial, then a thread per column adds its partials in slice order ---- */

#define RED_COLS 32                 /* columns of a stage-1 block: one warp reads 128 bytes of a row */
#define RED_SLICES (THREADS / RED_COLS)

static dim3 red_grid(size_t rows, size_t cols)
{
    return dim3((unsigned)((cols + RED_COLS - 1) / RED_COLS),
                (unsigned)((train_red_slices(rows) + RED_SLICES - 1) / RED_SLICES));
}

__global__ static void k_colsum_part(float *part, const float *x, size_t rows, size_t cols)
{
    size_t c = blockIdx.x * (size_t)RED_COLS + threadIdx.x, k = blockIdx.y * (size_t)RED_SLICES + threadIdx.y;
    if (c < cols && k < train_red_slices(rows))
        part[k * cols + c] = train_red_part(x, rows, cols, k, c);
}

/* out[c] += the partials of column c; n columns of part [slices][n] */
__global__ static void k_colsum_final(float *out, const float *part, size_t slices, size_t n)
{
    GRID_STRIDE(c, n) out[c] += train_red_final(part, slices, n, c);
}

/* ---- LayerNorm: one warp per row; parameter gradients as two-stage column sums ---- */

__global__ static void k_layernorm(void *out, int low, float *stats, const float *x, const float *w, const float *b,
                                   size_t T, int h)
{
    size_t t = blockIdx.x * (size_t)WARPS + threadIdx.x / 32;
    int lane = threadIdx.x % 32;
    if (t >= T)
        return;
    const float *xr = x + t * h;
    float m = 0, v = 0;
    for (int i = lane; i < h; i += 32)
        m += xr[i];
    m = warp_sum(m) / (float)h;
    for (int i = lane; i < h; i += 32)
        v += (xr[i] - m) * (xr[i] - m);
    float r = 1.0f / sqrtf(warp_sum(v) / (float)h + TRAIN_LN_EPS);
    for (int i = lane; i < h; i += 32)
        put(out, low, t * h + i, (xr[i] - m) * r * w[i] + b[i]);
    if (lane == 0) {
        stats[2 * t] = m;
        stats[2 * t + 1] = r;
    }
}

cudaError_t train_gpu_layernorm(cudaStream_t st, void *out, int low, float *stats, const float *x, const float *w, const float *b,
                  size_t T, int h)
{
    k_layernorm<<<(unsigned)((T + WARPS - 1) / WARPS), THREADS, 0, st>>>(out, low, stats, x, w, b, T, h);
    return cudaGetLastError();
}

__global__ static void k_layernorm_dx(float *dres, int overwrite, const float *dout, const float *x,
                                      const float *stats, const float *w, size_t T, int h)
{
    size_t t = blockIdx.x * (size_t)WARPS + threadIdx.x / 32;
    int lane = threadIdx.x % 32;
    if (t >= T)
        return;
    const float *dy = dout + t * h, *xr = x + t * h;
    float m = stats[2 * t], r = stats[2 * t + 1], sdn = 0, sdnx = 0;
    for (int i = lane; i < h; i += 32) {
        float dn = w[i] * dy[i];
        sdn += dn;
        sdnx += dn * (xr[i] - m) * r;
    }
    sdn = warp_sum(sdn) / (float)h;
    sdnx = warp_sum(sdnx) / (float)h;
    for (int i = lane; i < h; i += 32) {
        float dx = train_ln_dx(dy[i], w[i], (xr[i] - m) * r, r, sdn, sdnx);
        dres[t * h + i] = overwrite ? dx : dres[t * h + i] + dx;
    }
}

/* Stage 1 of the weight and bias gradients: part [slices][h] of dw, then [slices][h] of db. */
__global__ static void k_layernorm_dw_part(float *part, const float *dout, const float *x, const float *stats,
                                           size_t T, int h)
{
    size_t c = blockIdx.x * (size_t)RED_COLS + threadIdx.x, k = blockIdx.y * (size_t)RED_SLICES + threadIdx.y;
    size_t slices = train_red_slices(T);
    if (c < (size_t)h && k < slices)
        train_red_ln_part(dout, x, stats, T, (size_t)h, k, c, &part[k * h + c], &part[(slices + k) * h + c]);
}

cudaError_t train_gpu_layernorm_bwd(cudaStream_t st, float *dres, int overwrite, float *dw, float *db, float *part,
                                    const float *dout, const float *x, const float *stats, const float *w, size_t T,
                                    int h)
{
    size_t slices = train_red_slices(T);
    k_layernorm_dx<<<(unsigned)((T + WARPS - 1) / WARPS), THREADS, 0, st>>>(dres, overwrite, dout, x, stats, w, T, h);
    LAUNCHED();
    k_layernorm_dw_part<<<red_grid(T, (size_t)h), dim3(RED_COLS, RED_SLICES), 0, st>>>(part, dout, x, stats, T, h);
    LAUNCHED();
    k_colsum_final<<<blocks_for((size_t)h), THREADS, 0, st>>>(dw, part, slices, (size_t)h);
    LAUNCHED();
    k_colsum_final<<<blocks_for((size_t)h), THREADS, 0, st>>>(db, part + slices * h, slices, (size_t)h);
    return cudaGetLastError();
}

/* ---- heads: [B,S,h] (or [B,S,3h]) <-> [B,a,S,d] ---- */

__device__ static size_t head_index(size_t idx, int S, int h, int a, size_t *row)
{
    int d = h / a;
    size_t c = idx % h, bt = idx / h, b = bt / S, t = bt % S, hd = c / d, i = c % d;
    *row = bt;
    return ((b * a + hd) * S + t) * d + i;
}

__global__ static void k_split_qkv(float *q, float *k, float *v, const float *qkv, size_t n, int S, int h, int a)
{
    GRID_STRIDE(idx, n) {
        size_t row, o = head_index(idx, S, h, a, &row), c = idx % h;
        const float *src = qkv + row * 3 * h + c;
        q[o] = src[0];
        k[o] = src[h];
        v[o] = src[2 * (size_t)h];
    }
}

cudaError_t train_gpu_split_qkv(cudaStream_t st, float *q, float *k, float *v, const float *qkv, int B, int S, int h, int a)
{
    size_t n = (size_t)B * S * h;
    k_split_qkv<<<blocks_for(n), THREADS, 0, st>>>(q, k, v, qkv, n, S, h, a);
    return cudaGetLastError();
}

__global__ static void k_merge_qkv(float *dqkv, const float *dq, const float *dk, const float *dv, size_t n,
                                   int S, int h, int a)
{
    GRID_STRIDE(idx, n) {
        size_t row, o = head_index(idx, S, h, a, &row), c = idx % h;
        float *dst = dqkv + row * 3 * h + c;
        dst[0] = dq[o];
        dst[h] = dk[o];
        dst[2 * (size_t)h] = dv[o];
    }
}

cudaError_t train_gpu_merge_qkv(cudaStream_t st, float *dqkv, const float *dq, const float *dk, const float *dv, int B, int S, int h, int a)
{
    size_t n = (size_t)B * S * h;
    k_merge_qkv<<<blocks_for(n), THREADS, 0, st>>>(dqkv, dq, dk, dv, n, S, h, a);
    return cudaGetLastError();
}

__global__ static void k_split_heads(float *out, const float *in, size_t n, int S, int h, int a)
{
    GRID_STRIDE(idx, n) {
        size_t row;
        out[head_index(idx, S, h, a, &row)] = in[idx];
    }
}

cudaError_t train_gpu_split_heads(cudaStream_t st, float *out, const float *in, int B, int S, int h, int a)
{
    size_t n = (size_t)B * S * h;
    k_split_heads<<<blocks_for(n), THREADS, 0, st>>>(out, in, n, S, h, a);
    return cudaGetLastError();
}

__global__ static void k_merge_heads(void *out, int low, const float *in, size_t n, int S, int h, int a)
{
    GRID_STRIDE(idx, n) {
        size_t row;
        put(out, low, idx, in[head_index(idx, S, h, a, &row)]);
    }
}

cudaError_t train_gpu_merge_heads(cudaStream_t st, void *out, int low, const float *in, int B, int S, int h, int a)
{
    size_t n = (size_t)B * S * h;
    k_merge_heads<<<blocks_for(n), THREADS, 0, st>>>(out, low, in, n, S, h, a);
    return cudaGetLastError();
}

/* ---- causal softmax over rows of S scores: one warp per row ---- */

__global__ static void k_softmax_causal(float *att, size_t rows, int S)
{
    size_t r = blockIdx.x * (size_t)WARPS + threadIdx.x / 32;
    int lane = threadIdx.x % 32;
    if (r >= rows)
        return;
    int t = (int)(r % S);
    float *row = att + r * S, mx = -INFINITY, sum = 0;
    for (int j = lane; j <= t; j += 32)
        mx = fmaxf(mx, row[j]);
    mx = warp_max(mx);
    for (int j = lane; j <= t; j += 32)
        sum += expf(row[j] - mx);
    float inv = 1.0f / warp_sum(sum);
    for (int j = lane; j < S; j += 32)
        row[j] = j <= t ? expf(row[j] - mx) * inv : 0.0f;
}

cudaError_t train_gpu_softmax_causal(cudaStream_t st, float *att, size_t rows, int S)
{
    k_softmax_causal<<<(unsigned)((rows + WARPS - 1) / WARPS), THREADS, 0, st>>>(att, rows, S);
    return cudaGetLastError();
}

__global__ static void k_softmax_causal_bwd(float *datt, const float *att, size_t rows, int S, float scale)
{
    size_t r = blockIdx.x * (size_t)WARPS + threadIdx.x / 32;
    int lane = threadIdx.x % 32;
    if (r >= rows)
        return;
    int t = (int)(r % S);
    float *d = datt + r * S, s = 0;
    const float *p = att + r * S;
    for (int j = lane; j <= t; j += 32)
        s += p[j] * d[j];
    s = warp_sum(s);
    for (int j = lane; j < S; j += 32)
        d[j] = j <= t ? p[j] * (d[j] - s) * scale : 0.0f;
}

cudaError_t train_gpu_softmax_causal_bwd(cudaStream_t st, float *datt, const float *att, size_t rows, int S, float scale)
{
    k_softmax_causal_bwd<<<(unsigned)((rows + WARPS - 1) / WARPS), THREADS, 0, st>>>(datt, att, rows, S, scale);
    return cudaGetLastError();
}

/* ---- elementwise ---- */

__global__ static void k_gelu(void *out, int low, const float *x, size_t n)
{
    GRID_STRIDE(i, n) put(out, low, i, train_gelu(x[i]));
}

cudaError_t train_gpu_gelu(cudaStream_t st, void *out, int low, const float *x, size_t n)
{
    k_gelu<<<blocks_for(n), THREADS, 0, st>>>(out, low, x, n);
    return cudaGetLastError();
}

__global__ static void k_gelu_bwd(float *d, const float *x, size_t n)
{
    GRID_STRIDE(i, n) d[i] *= train_gelu_grad(x[i]);
}

cudaError_t train_gpu_gelu_bwd(cudaStream_t st, float *d, const float *x, size_t n)
{
    k_gelu_bwd<<<blocks_for(n), THREADS, 0, st>>>(d, x, n);
    return cudaGetLastError();
}

__global__ static void k_add(float *y, const float *x, size_t n)
{
    GRID_STRIDE(i, n) y[i] += x[i];
}

cudaError_t train_gpu_add(cudaStream_t st, float *y, const float *x, size_t n)
{
    k_add<<<blocks_for(n), THREADS, 0, st>>>(y, x, n);
    return cudaGetLastError();
}

__global__ static void k_add_bias(float *y, const float *b, size_t n, size_t cols)
{
    GRID_STRIDE(i, n) y[i] += b[i % cols];
}

cudaError_t train_gpu_add_bias(cudaStream_t st, float *y, const float *b, size_t rows, size_t cols)
{
    k_add_bias<<<blocks_for(rows * cols), THREADS, 0, st>>>(y, b, rows * cols, cols);
    return cudaGetLastError();
}

cudaError_t train_gpu_colsum(cudaStream_t st, float *out, float *part, const float *x, size_t rows, size_t cols)
{
    k_colsum_part<<<red_grid(rows, cols), dim3(RED_COLS, RED_SLICES), 0, st>>>(part, x, rows, cols);
    LAUNCHED();
    k_colsum_final<<<blocks_for(cols), THREADS, 0, st>>>(out, part, train_red_slices(rows), cols);
    return cudaGetLastError();
}

__global__ static void k_bf16(uint16_t *out, const float *x, size_t n)
{
    GRID_STRIDE(i, n) out[i] = train_bf16(x[i]);
}

cudaError_t train_gpu_bf16(cudaStream_t st, uint16_t *out, const float *x, size_t n)
{
    k_bf16<<<blocks_for(n), THREADS, 0, st>>>(out, x, n);
    return cudaGetLastError();
}

/* ---- cross-entropy: one block per token ---- */

__global__ static void k_xent(float *losses, float *logits, const int32_t *targets, int V, size_t ld)
{
    size_t t = blockIdx.x;
    float *row = logits + t * ld, lt = row[targets[t]], mx = -INFINITY;
    for (int v = threadIdx.x; v < V; v += blockDim.x)
        mx = fmaxf(mx, row[v]);
    mx = block_max(mx);
    double s = 0;
    for (int v = threadIdx.x; v < V; v += blockDim.x)
        s += expf(row[v] - mx);
    s = block_sum(s);
    float inv = (float)(1.0 / s);
    for (int v = threadIdx.x; v < V; v += blockDim.x)
        row[v] = expf(row[v] - mx) * inv;
    if (threadIdx.x == 0)
        losses[t] = (float)(log(s) - ((double)lt - mx));
}

cudaError_t train_gpu_xent(cudaStream_t st, float *losses, float *logits, const int32_t *targets, size_t T, int V,
                           size_t ld)
{
    k_xent<<<(unsigned)T, THREADS, 0, st>>>(losses, logits, targets, V, ld);
    return cudaGetLastError();
}

__global__ static void k_xent_bwd(float *logits, const int32_t *targets, int V, size_t ld, float scale)
{
    size_t t = blockIdx.x;
    float *row = logits + t * ld;
    int tgt = targets[t];
    for (int v = threadIdx.x; v < V; v += blockDim.x)
        row[v] = row[v] * scale - (v == tgt ? scale : 0.0f);
}

cudaError_t train_gpu_xent_bwd(cudaStream_t st, float *logits, const int32_t *targets, size_t T, int V, size_t ld,
                               float scale)
{
    k_xent_bwd<<<(unsigned)T, THREADS, 0, st>>>(logits, targets, V, ld, scale);
    return cudaGetLastError();
}

/* ---- reductions in two fixed stages: per-block partials, then one block over them ---- */

__global__ static void k_absmax_part(float *partial, const uint16_t *x, size_t n)
{
    size_t lo = blockIdx.x * (size_t)TRAIN_AMAX_BLOCK, hi = lo + TRAIN_AMAX_BLOCK < n ? lo + TRAIN_AMAX_BLOCK : n;
    float m = 0;
    for (size_t i = lo + threadIdx.x; i < hi; i += blockDim.x)
        m = fmaxf(m, fabsf(train_bf16_f32(x[i])));
    m = block_max(m);
    if (threadIdx.x == 0)
        partial[blockIdx.x] = m;
}

__global__ static void k_max_final(float *out, const float *partial, size_t nb)
{
    float m = 0;
    for (size_t i = threadIdx.x; i < nb; i += blockDim.x)
        m = fmaxf(m, partial[i]);
    m = block_max(m);
    if (threadIdx.x == 0)
        *out = m;
}

cudaError_t train_gpu_absmax(cudaStream_t st, float *amax, float *partial, const uint16_t *x, size_t n)
{
    size_t nb = (n + TRAIN_AMAX_BLOCK - 1) / TRAIN_AMAX_BLOCK;
    k_absmax_part<<<(unsigned)(nb ? nb : 1), THREADS, 0, st>>>(partial, x, n);
    LAUNCHED();
    k_max_final<<<1, THREADS, 0, st>>>(amax, partial, nb ? nb : 1);
    return cudaGetLastError();
}

__global__ static void k_quantize(uint8_t *out, float *inv, const uint16_t *x, size_t n, const float *amax)
{
    float scale = *amax > 0 ? TRAIN_E4M3_MAX / *amax : 1.0f;
    GRID_STRIDE(i, n) out[i] = train_e4m3(train_bf16_f32(x[i]) * scale);
    if (blockIdx.x == 0 && threadIdx.x == 0)
        *inv = 1.0f / scale;
}

cudaError_t train_gpu_quantize(cudaStream_t st, uint8_t *out, float *inv, const uint16_t *x, size_t n, const float *amax)
{
    k_quantize<<<blocks_for(n), THREADS, 0, st>>>(out, inv, x, n, amax);
    return cudaGetLastError();
}

__global__ static void k_sumsq_part(double *partial, const float *x, size_t n)
{
    size_t lo = blockIdx.x * (size_t)TRAIN_SUMSQ_BLOCK, hi = lo + TRAIN_SUMSQ_BLOCK < n ? lo + TRAIN_SUMSQ_BLOCK : n;
    double s = 0;
    for (size_t i = lo + threadIdx.x; i < hi; i += blockDim.x)
        s += (double)x[i] * x[i];
    s = block_sum(s);
    if (threadIdx.x == 0)
        partial[blockIdx.x] = s;
}

__global__ static void k_norm_final(float *norm, const double *partial, size_t nb)
{
    double s = 0;
    for (size_t i = threadIdx.x; i < nb; i += blockDim.x)
        s += partial[i];
    s = block_sum(s);
    if (threadIdx.x == 0)
        *norm = (float)sqrt(s);
}

cudaError_t train_gpu_norm(cudaStream_t st, float *norm, double *partial, const float *x, size_t n)
{
    size_t nb = (n + TRAIN_SUMSQ_BLOCK - 1) / TRAIN_SUMSQ_BLOCK;
    k_sumsq_part<<<(unsigned)(nb ? nb : 1), THREADS, 0, st>>>(partial, x, n);
    LAUNCHED();
    k_norm_final<<<1, THREADS, 0, st>>>(norm, partial, nb ? nb : 1);
    return cudaGetLastError();
}

/* ---- the update ---- */

__global__ static void k_adamw(float *w, float *m, float *v, const float *g, size_t n, struct train_adam a,
                               float clip, const float *norm, int decay)
{
    a.grad_scale = clip > 0 && *norm > clip ? clip / *norm : 1.0f;
    GRID_STRIDE(i, n) w[i] = train_adamw(w[i], &m[i], &v[i], g[i], &a, decay);
}

cudaError_t train_gpu_adamw(cudaStream_t st, float *w, float *m, float *v, const float *g, size_t n, struct train_adam a,
              float clip, const float *norm, int decay)
{
    if (n == 0)
        return cudaSuccess;
    k_adamw<<<blocks_for(n), THREADS, 0, st>>>(w, m, v, g, n, a, clip, norm, decay);
    return cudaGetLastError();
}

__global__ static void k_perturb(float *w, const float *g, size_t n, float eps, const float *norm)
{
    float f = *norm > 0 ? eps / *norm : 0.0f;
    GRID_STRIDE(i, n) w[i] += f * g[i];
}

cudaError_t train_gpu_perturb(cudaStream_t st, float *w, const float *g, size_t n, float eps, const float *norm)
{
    k_perturb<<<blocks_for(n), THREADS, 0, st>>>(w, g, n, eps, norm);
    return cudaGetLastError();
}
