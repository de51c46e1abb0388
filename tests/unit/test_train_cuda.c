/* test_train_cuda.c: the CUDA training backend against the CPU one, from the same initial
 * weights and batches: FP32 losses and gradient norms of the first steps, BF16 against the
 * CPU's BF16 and FP32, FP8 where cuBLASLt has it, a bitwise repeatable GPU loss curve (the
 * fixed-order gradient sums), GPT-2's odd vocabulary, every gpt2-small product planned in BF16
 * and FP8, the loss falling, and a validated record. Exits 77 (skip) without CUDA or without a device. */
#include <stdlib.h>

#include "check.h"
#include "config.h"
#include "cuda/cuda.h"
#include "exp/train/train.h"
#include "util/progress.h"

#ifdef HAVE_CUDA

#define STEPS 3

static struct train_config config(struct net_shape s, enum net_prec p, int steps)
{
    struct train_config c = { "test", s, p, steps, 1, 3e-3, 3e-4, 1, 0.1, 1.0, 1, 1, 8, 1, INFINITY, 0 };
    return c;
}

static void losses(const struct train_ops *ops, struct train_config c, double *out, int steps)
{
    char err[256];
    int rc = train_losses(ops, &c, steps, out, err, sizeof err);
    if (rc != 0)
        printf("  %s %s: %s\n", ops->device, net_prec_names[c.prec], err);
    EXPECT(rc == 0);
}

/* Relative tolerances per step: step 0 is one forward and backward; later steps follow AdamW
 * updates whose first steps are sign-like, so small rounding differences grow. */
static void compare(const char *what, const double *a, const double *b, int n, double tol0, double tol)
{
    for (int t = 0; t < n; t++) {
        double rel = fabs(a[t] - b[t]) / fabs(b[t]);
        if (!(rel <= (t == 0 ? tol0 : tol)))
            printf("  %s, step %d: %.9g vs %.9g (relative %.2g)\n", what, t, a[t], b[t], rel);
        EXPECT(rel <= (t == 0 ? tol0 : tol));
    }
}

static void test_against_cpu(struct net_shape s)
{
    double cpu32[STEPS], cpu16[STEPS], gpu32[STEPS], gpu16[STEPS], again[STEPS];
    losses(&train_cpu_ops, config(s, NET_FP32, STEPS), cpu32, STEPS);
    losses(&train_cuda_ops, config(s, NET_FP32, STEPS), gpu32, STEPS);
    compare("gpu fp32 vs cpu fp32", gpu32, cpu32, STEPS, 1e-5, 1e-3);
    losses(&train_cpu_ops, config(s, NET_BF16, STEPS), cpu16, STEPS);
    losses(&train_cuda_ops, config(s, NET_BF16, STEPS), gpu16, STEPS);
    compare("gpu bf16 vs cpu bf16", gpu16, cpu16, STEPS, 1e-3, 5e-3);
    compare("gpu bf16 vs cpu fp32", gpu16, cpu32, STEPS, 1e-2, 2e-2);
    losses(&train_cuda_ops, config(s, NET_BF16, STEPS), again, STEPS);
    EXPECT(memcmp(again, gpu16, sizeof again) == 0);
    char why[256];
    if (!train_cuda_ops.supports(&s, NET_FP8, why, sizeof why)) {
        printf("  fp8 not tested: %s\n", why);
        return;
    }
    double f8[STEPS];
    losses(&train_cuda_ops, config(s, NET_FP8, STEPS), f8, STEPS);
    compare("gpu fp8 vs cpu fp32", f8, cpu32, STEPS, 5e-2, 1e-1);
}

/* gpt2-small's every product is planned at open: the LM head's odd vocabulary (50257) runs
 * through padded rows in BF16 and FP8, so neither is declined. */
static void test_gpt2_opens(void)
{
    struct net_shape s = { 12, 768, 12, 256, 50257, 4, 1, 0, .tied = 0 };
    for (int p = NET_BF16; p <= NET_FP8; p++) {
        char err[512] = "";
        if (!train_cuda_ops.supports(&s, (enum net_prec)p, err, sizeof err)) {
            printf("  gpt2-small %s not tested: %s\n", net_prec_names[p], err);
            continue;
        }
        struct train_ctx *c = train_cuda_ops.open(&s, (enum net_prec)p, 1, err, sizeof err);
        if (!c)
            printf("  gpt2-small %s: %s\n", net_prec_names[p], err);
        EXPECT(c != NULL);
        if (c)
            train_cuda_ops.close(c);
    }
}

static void test_learning(void)
{
    struct net_shape s = { 2, 64, 4, 64, 256, 8, 1, 0, .tied = 0 };
    double l[60];
    losses(&train_cuda_ops, config(s, NET_BF16, 60), l, 60);
    EXPECT(l[59] < l[0] - 1.0);
}

static void test_record(void)
{
    struct net_shape s = { 2, 64, 4, 32, 128, 4, 1, 0, .tied = 0 };
    struct train_reference ref = { 0 };
    struct train_config c = config(s, NET_BF16, 5);
    cJSON *rec = train_config_run(&train_cuda_ops, &c, &ref);
    const cJSON *chk = cJSON_GetObjectItem(rec, "checks");
    EXPECT(cJSON_IsTrue(cJSON_GetObjectItem(rec, "valid")) && cJSON_GetArraySize(chk) == 2);
    EXPECT(ref.have);
    const cJSON *mem = cJSON_GetObjectItem(rec, "memory");
    EXPECT(cJSON_GetObjectItem(mem, "allocated_bytes")->valuedouble >= cJSON_GetObjectItem(mem, "planned_bytes")->valuedouble);
    EXPECT(cJSON_GetArraySize(cJSON_GetObjectItem(rec, "ops")) == net_plan(&s, NET_BF16, NULL, 0));
    cJSON_Delete(rec);
}

int main(void)
{
    struct cuda_info ci;
    cuda_probe(&ci);
    if (ci.ndev == 0) {
        printf("skip: %s\n", ci.reason);
        return 77;
    }
    progress_quiet(1);
    struct net_shape shapes[] = {
        { 2, 64, 4, 64, 256, 4, 1, 0, .tied = 0 }, { 2, 64, 4, 32, 128, 2, 2, 1, .tied = 1 }, { 3, 48, 6, 37, 101, 3, 1, 0, .tied = 0 },
        { 1, 64, 4, 32, 50257, 2, 1, 0, .tied = 0 },    /* GPT-2's odd vocabulary: padded logits rows */
    };
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
        test_against_cpu(shapes[i]);
    test_gpt2_opens();
    test_learning();
    test_record();
    return CHECK_DONE();
}

#else

int main(void)
{
    (void)check_failures;
    printf("skip: this sparkreport was built without CUDA (%s)\n", SR_NO_CUDA_REASON);
    return 77;
}

#endif
