/* train_cpu_kernels.c: the CPU training kernels other than the matmuls (train_cpu.h), as
 * OpenMP loops over plain arrays. Work is split so that no two threads write one element and
 * every sum runs in a fixed order: rows in parallel when a row is the unit, blocks of columns
 * in parallel (rows in order inside) when a gradient sums over rows, one (sequence, head) per
 * thread in attention. The per-element math is train_math.h's, shared with the CUDA kernels. */
#include "exp/train/train_cpu.h"

#include <cblas.h>
#include <math.h>
#include <stdlib.h>

#include "exp/train/train_math.h"
#include "util/error.h"

#define COLS 64                 /* columns per block of a column-parallel reduction */
#define PAR_MIN TRAIN_PAR_MIN
#define SUMSQ_BLOCK 8192        /* elements per partial sum of train_cpu_sumsq */

TRAIN_INLINE void put(void *out, int low, size_t i, float v)
{
    if (low)
        ((uint16_t *)out)[i] = train_bf16(v);
    else
        ((float *)out)[i] = v;
}

TRAIN_HOT void train_cpu_embed(float *x, const int32_t *tok, const float *wte, const float *wpe, int B, int S, int h)
{
    size_t T = (size_t)B * S;
#pragma omp parallel for schedule(static) if (T * (size_t)h >= PAR_MIN)
    for (size_t t = 0; t < T; t++) {
        const float *e = wte + (size_t)tok[t] * h, *p = wpe + (t % (size_t)S) * h;
        float *o = x + t * h;
#pragma omp simd
        for (int i = 0; i < h; i++)
            o[i] = e[i] + p[i];
    }
}

TRAIN_HOT void train_cpu_embed_bwd(float *dwte, float *dwpe, const float *dx, const int32_t *tok, int B, int S, int h)
{
    size_t T = (size_t)B * S;
    int nb = (h + COLS - 1) / COLS;
#pragma omp parallel for schedule(static) if (T * (size_t)h >= PAR_MIN)
    for (int cb = 0; cb < nb; cb++) {
        int c0 = cb * COLS, c1 = c0 + COLS < h ? c0 + COLS : h;
        for (size_t t = 0; t < T; t++) {
            float *e = dwte + (size_t)tok[t] * h, *p = dwpe + (t % (size_t)S) * h;
            const float *d = dx + t * h;
            for (int i = c0; i < c1; i++) {
                e[i] += d[i];
                p[i] += d[i];
            }
        }
    }
}

TRAIN_HOT void train_cpu_layernorm(void *out, int low, float *stats, const float *x, const float *w,
                         const float *b, size_t T, int h)
{
#pragma omp parallel for schedule(static) if (T * (size_t)h >= PAR_MIN)
    for (size_t t = 0; t < T; t++) {
        const float *xr = x + t * h;
        float m = 0, v = 0;
#pragma omp simd reduction(+:m)
        for (int i = 0; i < h; i++)
            m += xr[i];
        m /= (float)h;
#pragma omp simd reduction(+:v)
        for (int i = 0; i < h; i++)
            v += (xr[i] - m) * (xr[i] - m);
        float r = 1.0f / sqrtf(v / (float)h + TRAIN_LN_EPS);
        for (int i = 0; i < h; i++)
            put(out, low, t * h + (size_t)i, (xr[i] - m) * r * w[i] + b[i]);
        stats[2 * t] = m;
        stats[2 * t + 1] = r;
    }
}

TRAIN_HOT static void layernorm_dx(float *dres, int overwrite, const float *dout, const float *x,
                         const float *stats, const float *w, size_t T, int h)
{
#pragma omp parallel for schedule(static) if (T * (size_t)h >= PAR_MIN)
    for (size_t t = 0; t < T; t++) {
        const float *dy = dout + t * h, *xr = x + t * h;
        float m = stats[2 * t], r = stats[2 * t + 1], sdn = 0, sdnx = 0;
#pragma omp simd reduction(+:sdn, sdnx)
        for (int i = 0; i < h; i++) {
            float dn = w[i] * dy[i];
            sdn += dn;
            sdnx += dn * (xr[i] - m) * r;
        }
        sdn /= (float)h;
        sdnx /= (float)h;
        float *o = dres + t * h;
        for (int i = 0; i < h; i++) {
            float dx = train_ln_dx(dy[i], w[i], (xr[i] - m) * r, r, sdn, sdnx);
            o[i] = overwrite ? dx : o[i] + dx;
        }
    }
}

TRAIN_HOT void train_cpu_layernorm_bwd(float *dres, int overwrite, float *dw, float *db, const float *dout,
                             const float *x, const float *stats, const float *w, size_t T, int h)
{
    layernorm_dx(dres, overwrite, dout, x, stats, w, T, h);
    int nb = (h + COLS - 1) / COLS;
#pragma omp parallel for schedule(static) if (T * (size_t)h >= PAR_MIN)
    for (int cb = 0; cb < nb; cb++) {
        int c0 = cb * COLS, c1 = c0 + COLS < h ? c0 + COLS : h;
        float sw[COLS] = { 0 }, sb[COLS] = { 0 };
        for (size_t t = 0; t < T; t++) {
            const float *dy = dout + t * h, *xr = x + t * h;
            float m = stats[2 * t], r = stats[2 * t + 1];
            for (int i = c0; i < c1; i++) {
                sw[i - c0] += dy[i] * (xr[i] - m) * r;
                sb[i - c0] += dy[i];
            }
        }
        for (int i = c0; i < c1; i++) {
            dw[i] += sw[i - c0];
            db[i] += sb[i - c0];
        }
    }
}

/* Causal attention of one (sequence, head) in row tiles of ATT_TILE queries, each through
 * cblas_sgemm (one thread each: OpenBLAS runs single-threaded inside a parallel region): the tile's
 * scores against the keys up to its last query, the softmax of each row over its keys 0..t (the
 * rest of the row zero), then the tile's outputs from those rows. Q, K and V are the head's
 * columns of the qkv rows (stride 3h); att its [S, S] probabilities; y scratch of ATT_TILE x d. */
#define ATT_TILE 64
TRAIN_INLINE void attention_head(void *out, int low, size_t o, float *att, const float *base, size_t stride, float *y,
                                 int S, int d, int h, float scale)
{
    for (int t0 = 0; t0 < S; t0 += ATT_TILE) {
        int rows = S - t0 < ATT_TILE ? S - t0 : ATT_TILE, keys = t0 + rows;
        float *a = att + (size_t)t0 * S;
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, rows, keys, d, scale, base + (size_t)t0 * stride,
                    (int)stride, base + h, (int)stride, 0, a, S);
        for (int r = 0; r < rows; r++) {
            float *ar = a + (size_t)r * S, mx = -INFINITY, sum = 0;
            int t = t0 + r;
            for (int t2 = 0; t2 <= t; t2++)
                mx = ar[t2] > mx ? ar[t2] : mx;
#pragma omp simd
            for (int t2 = 0; t2 <= t; t2++)
                ar[t2] = train_expf(ar[t2] - mx);
            for (int t2 = 0; t2 <= t; t2++)
                sum += ar[t2];
            float inv = 1.0f / sum;
            for (int t2 = 0; t2 <= t; t2++)
                ar[t2] *= inv;
            for (int t2 = t + 1; t2 < S; t2++)
                ar[t2] = 0;
        }
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, rows, d, keys, 1, a, S, base + 2 * (size_t)h,
                    (int)stride, 0, y, d);
        for (int r = 0; r < rows; r++)
            for (int i = 0; i < d; i++)
                put(out, low, o + (size_t)(t0 + r) * h + (size_t)i, y[(size_t)r * d + i]);
    }
}

TRAIN_HOT void train_cpu_attention(void *out, int low, float *att, const float *qkv, int B, int S, int h, int a)
{
    int d = h / a;
    float scale = 1.0f / sqrtf((float)d);
    size_t stride = 3 * (size_t)h;
#pragma omp parallel if ((size_t)B * S * S * h >= 8 * PAR_MIN)
    {
        float *y = xmalloc((size_t)ATT_TILE * d * sizeof *y);
#pragma omp for collapse(2) schedule(static)
        for (int b = 0; b < B; b++)
            for (int hd = 0; hd < a; hd++)
                attention_head(out, low, (size_t)b * S * h + (size_t)hd * d, att + ((size_t)b * a + hd) * S * S,
                               qkv + (size_t)b * S * stride + (size_t)hd * d, stride, y, S, d, h, scale);
        free(y);
    }
}

/* Backward of one (sequence, head), as products: dV = P^T dY, dP = dY V^T (row tiles, keys up to
 * the tile's last query), dS = P (dP - rowsum(P dP)) scale on keys 0..t (zero beyond), dQ = dS K
 * (row tiles), dK = dS^T Q. P's rows are zero beyond t (attention_head), so the full products
 * add nothing from them. ds is scratch of [S, S]. */
TRAIN_INLINE void attention_head_bwd(float *dbase, const float *base, const float *p, const float *dy, float *ds,
                                     size_t stride, int S, int d, int h, float scale)
{
    cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, S, d, S, 1, p, S, dy, h, 0, dbase + 2 * (size_t)h,
                (int)stride);
    for (int t0 = 0; t0 < S; t0 += ATT_TILE) {
        int rows = S - t0 < ATT_TILE ? S - t0 : ATT_TILE, keys = t0 + rows;
        float *dt = ds + (size_t)t0 * S;
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, rows, keys, d, 1, dy + (size_t)t0 * h, h,
                    base + 2 * (size_t)h, (int)stride, 0, dt, S);
        for (int r = 0; r < rows; r++) {
            const float *pr = p + (size_t)(t0 + r) * S;
            float *dr = dt + (size_t)r * S, sum = 0;
            int t = t0 + r;
            for (int t2 = 0; t2 <= t; t2++)
                sum += pr[t2] * dr[t2];
            for (int t2 = 0; t2 <= t; t2++)
                dr[t2] = pr[t2] * (dr[t2] - sum) * scale;
            for (int t2 = t + 1; t2 < S; t2++)
                dr[t2] = 0;
        }
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, rows, d, keys, 1, dt, S, base + h, (int)stride, 0,
                    dbase + (size_t)t0 * stride, (int)stride);
    }
    cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, S, d, S, 1, ds, S, base, (int)stride, 0, dbase + h,
                (int)stride);
}

TRAIN_HOT void train_cpu_attention_bwd(float *dqkv, const float *dout, const float *qkv, const float *att,
                             int B, int S, int h, int a)
{
    int d = h / a;
    float scale = 1.0f / sqrtf((float)d);
    size_t stride = 3 * (size_t)h;
#pragma omp parallel if ((size_t)B * S * S * h >= 8 * PAR_MIN)
    {
        float *ds = xmalloc((size_t)S * S * sizeof *ds);
#pragma omp for collapse(2) schedule(static)
        for (int b = 0; b < B; b++)
            for (int hd = 0; hd < a; hd++)
                attention_head_bwd(dqkv + (size_t)b * S * stride + (size_t)hd * d, qkv + (size_t)b * S * stride
                                   + (size_t)hd * d, att + ((size_t)b * a + hd) * S * S,
                                   dout + (size_t)b * S * h + (size_t)hd * d, ds, stride, S, d, h, scale);
        free(ds);
    }
}

TRAIN_HOT void train_cpu_gelu(void *out, int low, const float *x, size_t n)
{
    if (low) {
        uint16_t *o = out;
#pragma omp parallel for simd schedule(static) if (n >= PAR_MIN)
        for (size_t i = 0; i < n; i++)
            o[i] = train_bf16(train_gelu(x[i]));
    } else {
        float *o = out;
#pragma omp parallel for simd schedule(static) if (n >= PAR_MIN)
        for (size_t i = 0; i < n; i++)
            o[i] = train_gelu(x[i]);
    }
}

TRAIN_HOT void train_cpu_gelu_bwd(float *d, const float *x, size_t n)
{
#pragma omp parallel for simd schedule(static) if (n >= PAR_MIN)
    for (size_t i = 0; i < n; i++)
        d[i] *= train_gelu_grad(x[i]);
}

TRAIN_HOT void train_cpu_add(float *y, const float *x, size_t n)
{
#pragma omp parallel for simd schedule(static) if (n >= PAR_MIN)
    for (size_t i = 0; i < n; i++)
        y[i] += x[i];
}

TRAIN_HOT void train_cpu_xent(float *losses, float *logits, const int32_t *targets, size_t T, int V)
{
#pragma omp parallel for schedule(static) if (T * (size_t)V >= PAR_MIN)
    for (size_t t = 0; t < T; t++) {
        float *row = logits + t * V, mx = -INFINITY, lt = row[targets[t]];
        double sum = 0;
        for (int v = 0; v < V; v++)
            mx = row[v] > mx ? row[v] : mx;
#pragma omp simd reduction(+:sum)
        for (int v = 0; v < V; v++) {
            row[v] = train_expf(row[v] - mx);
            sum += row[v];
        }
        float inv = (float)(1.0 / sum);
#pragma omp simd
        for (int v = 0; v < V; v++)
            row[v] *= inv;
        losses[t] = (float)(log(sum) - ((double)lt - mx));
    }
}

TRAIN_HOT void train_cpu_xent_bwd(float *logits, const int32_t *targets, size_t T, int V, float scale)
{
#pragma omp parallel for schedule(static) if (T * (size_t)V >= PAR_MIN)
    for (size_t t = 0; t < T; t++) {
        float *row = logits + t * V;
#pragma omp simd
        for (int v = 0; v < V; v++)
            row[v] *= scale;
        row[targets[t]] -= scale;
    }
}

TRAIN_HOT void train_cpu_colsum(float *out, const float *x, size_t rows, size_t cols)
{
    size_t nb = (cols + COLS - 1) / COLS;
#pragma omp parallel for schedule(static) if (rows * cols >= PAR_MIN)
    for (size_t cb = 0; cb < nb; cb++) {
        size_t c0 = cb * COLS, c1 = c0 + COLS < cols ? c0 + COLS : cols;
        float s[COLS] = { 0 };
        for (size_t r = 0; r < rows; r++)
            for (size_t i = c0; i < c1; i++)
                s[i - c0] += x[r * cols + i];
        for (size_t i = c0; i < c1; i++)
            out[i] += s[i - c0];
    }
}

TRAIN_HOT void train_cpu_bf16(uint16_t *out, const float *x, size_t n)
{
#pragma omp parallel for simd schedule(static) if (n >= PAR_MIN)
    for (size_t i = 0; i < n; i++)
        out[i] = train_bf16(x[i]);
}

TRAIN_HOT void train_cpu_widen(float *out, const uint16_t *x, size_t n)
{
#pragma omp parallel for simd schedule(static) if (n >= PAR_MIN)
    for (size_t i = 0; i < n; i++)
        out[i] = train_bf16_f32(x[i]);
}

TRAIN_HOT void train_cpu_adamw(float *restrict w, float *restrict m, float *restrict v, const float *restrict g,
                               size_t n, const struct train_adam *a, int decay)
{
#pragma omp parallel for simd schedule(static) if (n >= PAR_MIN)
    for (size_t i = 0; i < n; i++)
        w[i] = train_adamw(w[i], &m[i], &v[i], g[i], a, decay);
}

TRAIN_HOT double train_cpu_sumsq(const float *x, size_t n)
{
    size_t nb = (n + SUMSQ_BLOCK - 1) / SUMSQ_BLOCK;
    double *part = xcalloc(nb ? nb : 1, sizeof *part), total = 0;
#pragma omp parallel for schedule(static) if (n >= PAR_MIN)
    for (size_t b = 0; b < nb; b++) {
        size_t lo = b * SUMSQ_BLOCK, hi = lo + SUMSQ_BLOCK < n ? lo + SUMSQ_BLOCK : n;
        double s = 0;
#pragma omp simd reduction(+:s)
        for (size_t i = lo; i < hi; i++)
            s += (double)x[i] * x[i];
        part[b] = s;
    }
    for (size_t b = 0; b < nb; b++)
        total += part[b];
    free(part);
    return total;
}
