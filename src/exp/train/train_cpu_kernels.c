/* train_cpu_kernels.c: the CPU training kernels other than the matmuls (train_cpu.h), as
 * OpenMP loops over plain arrays. Work is split so that no two threads write one element and
 * every sum runs in a fixed order: rows in parallel when a row is the unit, blocks of columns
 * in parallel (rows in order inside) when a gradient sums over rows, one (sequence, head) per
 * thread in attention. The per-element math is train_math.h's, shared with the CUDA kernels. */
#include "exp/train/train_cpu.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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

/* One causal attention row: scores of query t against keys 0..t, softmax into a, output y. */
TRAIN_INLINE void attention_row(float *a, float *y, const float *q, const float *base, size_t stride,
                          int t, int d, int h, float scale)
{
    float mx = -INFINITY, sum = 0;
    for (int t2 = 0; t2 <= t; t2++) {
        const float *k = base + (size_t)t2 * stride + h;
        float s = 0;
#pragma omp simd reduction(+:s)
        for (int i = 0; i < d; i++)
            s += q[i] * k[i];
        a[t2] = s * scale;
        mx = a[t2] > mx ? a[t2] : mx;
    }
    for (int t2 = 0; t2 <= t; t2++) {
        a[t2] = expf(a[t2] - mx);
        sum += a[t2];
    }
    float inv = 1.0f / sum;
    for (int i = 0; i < d; i++)
        y[i] = 0;
    for (int t2 = 0; t2 <= t; t2++) {
        const float *v = base + (size_t)t2 * stride + 2 * (size_t)h;
        a[t2] *= inv;
#pragma omp simd
        for (int i = 0; i < d; i++)
            y[i] += a[t2] * v[i];
    }
}

TRAIN_HOT void train_cpu_attention(void *out, int low, float *att, const float *qkv, int B, int S, int h, int a)
{
    int d = h / a;
    float scale = 1.0f / sqrtf((float)d);
    size_t stride = 3 * (size_t)h;
#pragma omp parallel if ((size_t)B * S * S * h >= 8 * PAR_MIN)
    {
        float *y = xmalloc((size_t)d * sizeof *y);
#pragma omp for collapse(2) schedule(static)
        for (int b = 0; b < B; b++)
            for (int hd = 0; hd < a; hd++) {
                const float *base = qkv + (size_t)b * S * stride + (size_t)hd * d;
                for (int t = 0; t < S; t++) {
                    float *arow = att + (((size_t)b * a + hd) * S + t) * S;
                    attention_row(arow, y, base + (size_t)t * stride, base, stride, t, d, h, scale);
                    size_t o = ((size_t)b * S + t) * h + (size_t)hd * d;
                    for (int i = 0; i < d; i++)
                        put(out, low, o + (size_t)i, y[i]);
                }
            }
        free(y);
    }
}

/* Backward of one attention row t of one (sequence, head): datt is scratch of S floats. */
TRAIN_INLINE void attention_row_bwd(float *dbase, const float *base, const float *arow, const float *dy,
                              float *datt, size_t stride, int t, int d, int h, float scale)
{
    const float *q = base + (size_t)t * stride;
    float *dq = dbase + (size_t)t * stride, s = 0;
    for (int t2 = 0; t2 <= t; t2++) {
        const float *v = base + (size_t)t2 * stride + 2 * (size_t)h;
        float *dv = dbase + (size_t)t2 * stride + 2 * (size_t)h, dot = 0;
#pragma omp simd reduction(+:dot)
        for (int i = 0; i < d; i++) {
            dot += dy[i] * v[i];
            dv[i] += arow[t2] * dy[i];
        }
        datt[t2] = dot;
        s += arow[t2] * dot;
    }
    for (int t2 = 0; t2 <= t; t2++) {
        const float *k = base + (size_t)t2 * stride + h;
        float *dk = dbase + (size_t)t2 * stride + h;
        float dp = arow[t2] * (datt[t2] - s) * scale;
#pragma omp simd
        for (int i = 0; i < d; i++) {
            dq[i] += dp * k[i];
            dk[i] += dp * q[i];
        }
    }
}

TRAIN_HOT void train_cpu_attention_bwd(float *dqkv, const float *dout, const float *qkv, const float *att,
                             int B, int S, int h, int a)
{
    int d = h / a;
    float scale = 1.0f / sqrtf((float)d);
    size_t stride = 3 * (size_t)h;
#pragma omp parallel if ((size_t)B * S * S * h >= 8 * PAR_MIN)
    {
        float *datt = xmalloc((size_t)S * sizeof *datt);
#pragma omp for collapse(2) schedule(static)
        for (int b = 0; b < B; b++)
            for (int hd = 0; hd < a; hd++) {
                const float *base = qkv + (size_t)b * S * stride + (size_t)hd * d;
                float *dbase = dqkv + (size_t)b * S * stride + (size_t)hd * d;
                for (int t = 0; t < S; t++)
                    for (int part = 0; part < 3; part++)
                        memset(dbase + (size_t)t * stride + (size_t)part * h, 0, (size_t)d * sizeof(float));
                for (int t = 0; t < S; t++)
                    attention_row_bwd(dbase, base, att + (((size_t)b * a + hd) * S + t) * S,
                                      dout + ((size_t)b * S + t) * h + (size_t)hd * d, datt, stride, t, d, h, scale);
            }
        free(datt);
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
            row[v] = expf(row[v] - mx);
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
