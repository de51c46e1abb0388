/* test_train_plan.c: the GPU trainer's matmuls as data, on the CPU: the products of each op
 * match the op plan's FLOPs, gpt2-small's LM head has the odd leading dimension and the padding
 * rule aligns every product for BF16 and FP8; the walk words a refusal "not measured: ..." (a
 * fake library refusing what cuBLASLt's FP8/BF16 kernels refuse); a configuration a backend
 * declines at open is listed in skipped and the others run; a backend error inside a step fails
 * that configuration's record (valid false, its error) and the next configuration still runs. */
#include <stdlib.h>

#include "check.h"
#include "exp/train/train.h"
#include "exp/train/train_gemm.h"
#include "util/progress.h"

static const struct net_shape gpt2 = { 12, 768, 12, 256, 50257, 4, 1, 0, .tied = 0 };

/* ---- the products against the op plan ---- */

static void test_flops(const struct net_shape *s, enum net_prec p)
{
    int nops = net_plan(s, p, NULL, 0);
    struct net_op *ops = malloc((size_t)nops * sizeof *ops);
    struct train_gemm g[TRAIN_GEMMS_PER_OP];
    net_plan(s, p, ops, nops);
    for (int i = 0; i < nops; i++) {
        enum net_class c = net_kinds[ops[i].kind].cls;
        int n = train_gemms_of(s, p, 1, &ops[i], g);
        double f = 0;
        for (int j = 0; j < n; j++)
            f += 2.0 * (double)g[j].m * (double)g[j].n * (double)g[j].k * g[j].batch;
        EXPECT((c == NET_MATMUL || c == NET_ATTENTION) == (n > 0));
        if (n > 0)
            EXPECT_NEAR(f, ops[i].flops, 1e-12);
    }
    free(ops);
}

static const struct train_gemm *find(const struct train_gemm *g, int n, enum net_kind k, int which)
{
    for (int i = 0; i < n; i++)
        if (g[i].kind == k && g[i].which == which)
            return &g[i];
    return NULL;
}

static void test_lmhead(enum net_prec p)
{
    struct train_gemm g[256];
    long long T = (long long)gpt2.batch * gpt2.seq;
    int n = train_gemm_plan(&gpt2, p, 0, g, 256), odd = 0;
    EXPECT(n > 0 && n <= 256);
    const struct train_gemm *fwd = find(g, n, NET_OP_MATMUL, NET_LIN_LMHEAD);
    const struct train_gemm *dg = find(g, n, NET_OP_MATMUL_DGRAD, NET_LIN_LMHEAD);
    const struct train_gemm *wg = find(g, n, NET_OP_MATMUL_WGRAD, NET_LIN_LMHEAD);
    EXPECT(fwd && fwd->m == T && fwd->n == 50257 && fwd->k == 768 && fwd->ldc == 50257 && fwd->tb && !fwd->scaled);
    EXPECT(dg && dg->m == T && dg->n == 768 && dg->k == 50257 && dg->lda == 50257);
    EXPECT(wg && wg->ta && wg->m == 50257 && wg->n == 768 && wg->k == T && wg->lda == 50257 && wg->beta == 1.0f);
    EXPECT(fwd && fwd->at == (p == NET_FP32 ? NET_DT_F32 : NET_DT_BF16));   /* the LM head never FP8 */
    for (int i = 0; i < n; i++)
        odd += !train_gemm_aligned(&g[i], 16);
    EXPECT(odd > 0);
    EXPECT(train_vocab_ld(50257, 1) == 50272 && train_vocab_ld(50257, 0) == 50257 && train_vocab_ld(64, 1) == 64);
    int m = train_gemm_plan(&gpt2, p, 1, g, 256), e4m3 = 0;
    EXPECT(m == n);
    for (int i = 0; i < m; i++) {
        char what[240];
        if (!train_gemm_aligned(&g[i], 16))
            printf("  not aligned: %s\n", train_gemm_text(&g[i], what, sizeof what));
        EXPECT(train_gemm_aligned(&g[i], 16));
        EXPECT(g[i].ct == NET_DT_F32);
        EXPECT((g[i].at == NET_DT_E4M3) == (g[i].scaled != 0));
        e4m3 += g[i].at == NET_DT_E4M3;
    }
    EXPECT((p == NET_FP8) == (e4m3 == 4));      /* qkv, attproj, fc, fcproj forward */
    fwd = find(g, m, NET_OP_MATMUL, NET_LIN_LMHEAD);
    EXPECT(fwd && fwd->n == 50257 && fwd->ldc == 50272);
}

/* ---- the walk with a fake library ---- */

struct fake {
    int asked, refuse_unaligned, fail_at;
};

/* Refuses what cuBLASLt's tensor-core kernels refuse (a leading dimension that is not 16 bytes)
 * with words like its own; or fails the fail_at-th question. */
static int fake_ask(void *arg, const struct net_op *op, const struct train_gemm *g, char *why, size_t n)
{
    struct fake *f = arg;
    (void)op;
    if (++f->asked == f->fail_at) {
        snprintf(why, n, "src/cuda/blaslt.cu:1: cublasLtMatmulDescCreate: CUBLAS_STATUS_ALLOC_FAILED");
        return TRAIN_GEMM_ERROR;
    }
    if (f->refuse_unaligned && !train_gemm_aligned(g, 16)) {
        snprintf(why, n, "cublasLtMatmulAlgoGetHeuristic: CUBLAS_STATUS_NOT_SUPPORTED (no algorithm)");
        return TRAIN_GEMM_REFUSED;
    }
    return TRAIN_GEMM_OK;
}

static void test_walk(void)
{
    struct fake f = { 0, 1, 0 };
    char err[512] = "";
    EXPECT(train_gemm_walk(&gpt2, NET_BF16, 0, fake_ask, &f, err, sizeof err) == TRAIN_GEMM_REFUSED);
    EXPECT(strncmp(err, TRAIN_NOT_MEASURED, strlen(TRAIN_NOT_MEASURED)) == 0);
    EXPECT(strstr(err, "lmhead") && strstr(err, "50257") && strstr(err, "bf16") && strstr(err, "NOT_SUPPORTED"));
    printf("  unpadded: %s\n", err);
    f = (struct fake){ 0, 1, 0 };
    EXPECT(train_gemm_walk(&gpt2, NET_BF16, 1, fake_ask, &f, err, sizeof err) == TRAIN_GEMM_OK);
    EXPECT(f.asked > 3 * gpt2.layers * 4);    /* every product of every op, repeats included */
    f = (struct fake){ 0, 1, 0 };
    EXPECT(train_gemm_walk(&gpt2, NET_FP8, 1, fake_ask, &f, err, sizeof err) == TRAIN_GEMM_OK);
    f = (struct fake){ 0, 0, 5 };
    EXPECT(train_gemm_walk(&gpt2, NET_FP32, 1, fake_ask, &f, err, sizeof err) == TRAIN_GEMM_ERROR);
    EXPECT(strncmp(err, TRAIN_NOT_MEASURED, strlen(TRAIN_NOT_MEASURED)) != 0 && strstr(err, "ALLOC_FAILED"));
    EXPECT(f.asked == 5);
}

/* ---- what the run records: a fake backend on top of the CPU one ---- */

static struct train_ops fake_ops;
static int refuse_prec = -1, fail_after = -1, runs;

static struct train_ctx *fake_open(const struct net_shape *s, enum net_prec p, uint64_t seed, char *err, size_t n)
{
    runs = 0;
    if ((int)p == refuse_prec) {
        snprintf(err, n, TRAIN_NOT_MEASURED "matmul_dgrad lmhead: 512 x 32 x 64, A bf16 [ld 64]: no algorithm (fake)");
        return NULL;
    }
    return train_cpu_ops.open(s, p, seed, err, n);
}

static void fake_run(struct train_ctx *c, const struct net_op *op)
{
    if (fail_after < 0 || ++runs <= fail_after)
        train_cpu_ops.run(c, op);
}

static const char *fake_error(struct train_ctx *c)
{
    (void)c;
    return fail_after >= 0 && runs > fail_after ? "src/exp/train/train_cuda.cu:1: cudaLaunchKernel: fake" : NULL;
}

static struct train_config tiny(enum net_prec p, int validate)
{
    struct train_config c = { "test", { 2, 32, 4, 32, 64, 8, 1, 0, .tied = 0 }, p, 4, 1, 1e-2, 1e-3, 1,
                              0.1, 1.0, 1, 1, 4, validate, INFINITY, 0 };
    return c;
}

static void test_declined(void)
{
    cJSON *results = cJSON_CreateArray(), *skipped = cJSON_CreateArray();
    struct train_reference ref = { 0 };
    refuse_prec = NET_BF16;
    fail_after = -1;
    struct train_config a = tiny(NET_FP32, 1), b = tiny(NET_BF16, 1);
    train_config_add(&fake_ops, &a, &ref, "tiny fp32 fake", results, skipped);
    train_config_add(&fake_ops, &b, &ref, "tiny bf16 fake", results, skipped);
    refuse_prec = -1;
    train_config_add(&fake_ops, &b, &ref, "tiny bf16 fake", results, skipped);
    EXPECT(cJSON_GetArraySize(results) == 2 && cJSON_GetArraySize(skipped) == 1);
    const cJSON *sk = cJSON_GetArrayItem(skipped, 0);
    EXPECT_STR(cJSON_GetStringValue(cJSON_GetObjectItem(sk, "item")), "tiny bf16 fake");
    const char *why = cJSON_GetStringValue(cJSON_GetObjectItem(sk, "reason"));
    EXPECT(why && strncmp(why, "not measured: matmul_dgrad lmhead", 33) == 0);
    for (int i = 0; i < 2; i++)
        EXPECT(cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetArrayItem(results, i), "valid")));
    /* the same refusal through train_config_run: a record, as before */
    refuse_prec = NET_BF16;
    cJSON *rec = train_config_run(&fake_ops, &b, &ref);
    EXPECT(cJSON_IsFalse(cJSON_GetObjectItem(rec, "valid")));
    EXPECT(strncmp(cJSON_GetStringValue(cJSON_GetObjectItem(rec, "error")), TRAIN_NOT_MEASURED, 14) == 0);
    refuse_prec = -1;
    cJSON_Delete(rec);
    cJSON_Delete(results);
    cJSON_Delete(skipped);
}

static void test_step_error(void)
{
    cJSON *results = cJSON_CreateArray(), *skipped = cJSON_CreateArray();
    struct train_config a = tiny(NET_FP32, 0), b = tiny(NET_FP32, 0);
    int nops = net_plan(&a.shape, NET_FP32, NULL, 0);
    fail_after = 2 * nops + nops / 2;         /* in the middle of the third step */
    train_config_add(&fake_ops, &a, NULL, "tiny fp32 failing", results, skipped);
    fail_after = -1;
    train_config_add(&fake_ops, &b, NULL, "tiny fp32 after it", results, skipped);
    EXPECT(cJSON_GetArraySize(results) == 2 && cJSON_GetArraySize(skipped) == 0);
    const cJSON *bad = cJSON_GetArrayItem(results, 0), *good = cJSON_GetArrayItem(results, 1);
    EXPECT(cJSON_IsFalse(cJSON_GetObjectItem(bad, "valid")));
    EXPECT(strstr(cJSON_GetStringValue(cJSON_GetObjectItem(bad, "error")), "fake") != NULL);
    EXPECT_STR(cJSON_GetStringValue(cJSON_GetObjectItem(bad, "stop")), "error");
    EXPECT(cJSON_GetObjectItem(bad, "steps_done")->valuedouble == 2);
    EXPECT(cJSON_IsTrue(cJSON_GetObjectItem(good, "valid")) && !cJSON_GetObjectItem(good, "error"));
    EXPECT(cJSON_GetObjectItem(good, "steps_done")->valuedouble == 4);
    cJSON_Delete(results);
    cJSON_Delete(skipped);
}

int main(void)
{
    progress_quiet(1);
    fake_ops = train_cpu_ops;
    fake_ops.open = fake_open;
    fake_ops.run = fake_run;
    fake_ops.error = fake_error;
    struct net_shape odd = { 3, 48, 6, 37, 101, 3, 2, 1, .tied = 1 };
    for (int p = 0; p < NET_NPRECS; p++) {
        test_flops(&gpt2, (enum net_prec)p);
        test_flops(&odd, (enum net_prec)p);
        test_lmhead((enum net_prec)p);
    }
    test_walk();
    test_declined();
    test_step_error();
    return CHECK_DONE();
}
