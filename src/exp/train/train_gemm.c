/* train_gemm.c: the products of a training step as data (train_gemm.h): the linears' forward,
 * dgrad and wgrad and the attention products as the GPU backend runs them, their distinct set,
 * the alignment test, the words for one, and the walk that asks a library for each. */
#include "exp/train/train_gemm.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"

long long train_vocab_ld(int vocab, int pad)
{
    return pad ? ((long long)vocab + TRAIN_LD_ALIGN - 1) / TRAIN_LD_ALIGN * TRAIN_LD_ALIGN : vocab;
}

static struct train_gemm gemm(const struct net_op *op, int ta, int tb, long long m, long long n, long long k,
                              long long lda, long long ldb, long long ldc, enum net_dtype at, enum net_dtype bt)
{
    struct train_gemm g;
    memset(&g, 0, sizeof g);
    g.kind = op->kind; g.which = op->which; g.ta = ta; g.tb = tb;
    g.m = m; g.n = n; g.k = k; g.lda = lda; g.ldb = ldb; g.ldc = ldc;
    g.batch = 1; g.at = at; g.bt = bt; g.ct = NET_DT_F32; g.alpha = 1.0f;
    return g;
}

/* Y[T,out] = X W^T; dX[T,in] = dY W; dW[out,in] += dY^T X. The LM head's output rows (logits,
 * and the gradient written over them) are train_vocab_ld long. */
static int linear_gemm(const struct net_shape *s, int pad, const struct net_op *op, struct train_gemm *g)
{
    enum net_param w, b;
    size_t in, out;
    long long T = (long long)s->batch * s->seq, ldy;
    net_linear_params(s, (enum net_linear)op->which, &w, &b, &in, &out);
    ldy = op->which == NET_LIN_LMHEAD ? train_vocab_ld(s->vocab, pad) : (long long)out;
    if (op->kind == NET_OP_MATMUL) {
        *g = gemm(op, 0, 1, T, (long long)out, (long long)in, (long long)in, (long long)in, ldy, op->dtype, op->dtype);
        g->scaled = op->dtype == NET_DT_E4M3;
    } else if (op->kind == NET_OP_MATMUL_DGRAD) {
        *g = gemm(op, 0, 0, T, (long long)in, (long long)out, ldy, (long long)in, (long long)in, op->dtype, op->dtype);
    } else {
        *g = gemm(op, 1, 0, (long long)out, (long long)in, T, ldy, (long long)in, (long long)in, op->dtype, op->dtype);
        g->beta = 1.0f;             /* micro-batches accumulate */
    }
    return 1;
}

/* Per (sequence, head) pair: "scores-like" products are [S,d] x [S,d]^T -> [S,S]; the others
 * [S,S] x [S,d] -> [S,d], with the [S,S] operand transposed or not. */
static const struct { int ta, tb, scores; } att_mm[TRAIN_ATT_NMM] = {
    [TRAIN_ATT_SCORES] = { 0, 1, 1 }, [TRAIN_ATT_VALUES] = { 0, 0, 0 }, [TRAIN_ATT_DPROBS] = { 0, 1, 1 },
    [TRAIN_ATT_DV] = { 1, 0, 0 }, [TRAIN_ATT_DQ] = { 0, 0, 0 }, [TRAIN_ATT_DK] = { 1, 0, 0 },
};

static struct train_gemm att_gemm(const struct net_shape *s, const struct net_op *op, int which)
{
    long long S = s->seq, d = s->hidden / s->heads, sd = S * d, ss = S * S;
    struct train_gemm g = att_mm[which].scores
        ? gemm(op, 0, 1, S, S, d, d, d, S, NET_DT_F32, NET_DT_F32)
        : gemm(op, att_mm[which].ta, 0, S, d, S, S, d, d, NET_DT_F32, NET_DT_F32);
    g.which = which;
    g.batch = s->batch * s->heads;
    g.sa = att_mm[which].scores ? sd : ss;
    g.sb = sd;
    g.sc = att_mm[which].scores ? ss : sd;
    if (which == TRAIN_ATT_SCORES)
        g.alpha = 1.0f / sqrtf((float)d);
    return g;
}

int train_gemms_of(const struct net_shape *s, enum net_prec p, int pad, const struct net_op *op,
                   struct train_gemm *out)
{
    (void)p;                    /* the op's dtype says it */
    switch (op->kind) {
    case NET_OP_MATMUL: case NET_OP_MATMUL_DGRAD: case NET_OP_MATMUL_WGRAD:
        return linear_gemm(s, pad, op, out);
    case NET_OP_ATTENTION:
        out[0] = att_gemm(s, op, TRAIN_ATT_SCORES);
        out[1] = att_gemm(s, op, TRAIN_ATT_VALUES);
        return 2;
    case NET_OP_ATTENTION_BWD:
        for (int i = 0; i < 4; i++)
            out[i] = att_gemm(s, op, TRAIN_ATT_DPROBS + i);
        return 4;
    default:
        return 0;
    }
}

/* The same product to a library: everything but which op asks and the scalars. */
static int same_product(const struct train_gemm *a, const struct train_gemm *b)
{
    return a->ta == b->ta && a->tb == b->tb && a->m == b->m && a->n == b->n && a->k == b->k && a->lda == b->lda
        && a->ldb == b->ldb && a->ldc == b->ldc && a->batch == b->batch && a->sa == b->sa && a->sb == b->sb
        && a->sc == b->sc && a->at == b->at && a->bt == b->bt && a->ct == b->ct && a->scaled == b->scaled;
}

struct distinct {
    struct train_gemm *g;       /* n of them, room for room */
    int n, room;
};

static int collect(void *arg, const struct net_op *op, const struct train_gemm *g, char *why, size_t n)
{
    struct distinct *d = arg;
    (void)op; (void)why; (void)n;
    for (int i = 0; i < d->n; i++)
        if (same_product(&d->g[i], g))
            return TRAIN_GEMM_OK;
    if (d->n == d->room) {
        d->room = d->room ? 2 * d->room : 16;
        d->g = xrealloc(d->g, (size_t)d->room * sizeof *d->g);
    }
    d->g[d->n++] = *g;
    return TRAIN_GEMM_OK;
}

int train_gemm_plan(const struct net_shape *s, enum net_prec p, int pad, struct train_gemm *out, int cap)
{
    struct distinct d = { NULL, 0, 0 };
    char err[8];
    train_gemm_walk(s, p, pad, collect, &d, err, sizeof err);
    if (out)
        memcpy(out, d.g, (size_t)(d.n < cap ? d.n : cap) * sizeof *out);
    free(d.g);
    return d.n;
}

int train_gemm_aligned(const struct train_gemm *g, int bytes)
{
    double a = net_dtype_bytes[g->at], b = net_dtype_bytes[g->bt], c = net_dtype_bytes[g->ct];
    double v[6] = { g->lda * a, g->ldb * b, g->ldc * c, g->sa * a, g->sb * b, g->sc * c };
    for (int i = 0; i < 6; i++)
        if (fmod(v[i], bytes) != 0)
            return 0;
    return 1;
}

static const char *const att_names[TRAIN_ATT_NMM] = { "scores", "values", "dprobs", "dv", "dq", "dk" };

char *train_gemm_text(const struct train_gemm *g, char *buf, size_t n)
{
    char batch[48] = "";
    const char *what = g->kind == NET_OP_ATTENTION || g->kind == NET_OP_ATTENTION_BWD
        ? att_names[g->which]
        : net_linear_names[g->which];
    if (g->batch > 1)
        snprintf(batch, sizeof batch, ", %d of them", g->batch);
    snprintf(buf, n, "%s %s: %lld x %lld x %lld%s, A%s %s [ld %lld], B%s %s [ld %lld] -> %s [ld %lld]",
             net_kinds[g->kind].name, what, g->m, g->n, g->k, batch, g->ta ? "^T" : "", net_dtype_names[g->at],
             g->lda, g->tb ? "^T" : "", net_dtype_names[g->bt], g->ldb, net_dtype_names[g->ct], g->ldc);
    return buf;
}

/* "not measured: <product>: <words>" or the error's words, into err. */
static void tell(int rc, const struct train_gemm *g, const char *why, char *err, size_t errlen)
{
    char what[240];
    if (rc == TRAIN_GEMM_REFUSED)
        snprintf(err, errlen, TRAIN_NOT_MEASURED "%s: %s", train_gemm_text(g, what, sizeof what), why);
    else
        snprintf(err, errlen, "%s: %s", train_gemm_text(g, what, sizeof what), why);
}

int train_gemm_walk(const struct net_shape *s, enum net_prec p, int pad, train_gemm_ask_fn ask, void *arg,
                    char *err, size_t errlen)
{
    int nops, rc = TRAIN_GEMM_OK;
    struct net_op *ops = net_plan_new(s, p, &nops);
    struct train_gemm g[TRAIN_GEMMS_PER_OP];
    char why[320];
    for (int i = 0; i < nops && rc == TRAIN_GEMM_OK; i++) {
        int n = train_gemms_of(s, p, pad, &ops[i], g);
        for (int j = 0; j < n && rc == TRAIN_GEMM_OK; j++) {
            snprintf(why, sizeof why, "no words");
            rc = ask(arg, &ops[i], &g[j], why, sizeof why);
            if (rc != TRAIN_GEMM_OK)
                tell(rc, &g[j], why, err, errlen);
        }
    }
    free(ops);
    return rc;
}
