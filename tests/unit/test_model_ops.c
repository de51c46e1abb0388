/* test_model_ops.c: the op plan of a training step against closed forms: Megatron's matmul
 * FLOPs per step (without and with full recomputation, tied head or not, with accumulation),
 * the parameter count (GPT-2 small's 124,439,808), static memory per parameter for each
 * precision with AdamW, the number of ops of each kind, and a few bytes by hand. */
#include "check.h"
#include "model/ops.h"

static const struct model_shape shapes[] = {
    { 2, 64, 4, 64, 256, 8, 1, 0, 0 },              /* the tiny preset */
    { 4, 128, 4, 128, 512, 8, 1, 0, 0 },            /* small */
    { 12, 768, 12, 256, 50257, 4, 1, 0, 0 },        /* GPT-2 small as the benchmark runs it */
    { 3, 48, 6, 37, 101, 3, 2, 0, 0 },              /* odd sizes, accumulation */
    { 1, 8, 1, 2, 2, 1, 5, 0, 0 },                  /* the smallest */
};
#define NSHAPES ((int)(sizeof shapes / sizeof shapes[0]))

static struct model_op ops[20000];

static int plan(const struct model_shape *s, enum model_prec p)
{
    int n = model_plan(s, p, ops, 20000);
    EXPECT(n <= 20000);
    EXPECT(model_plan(s, p, NULL, 0) == n);
    return n;
}

/* Matmul and attention FLOPs of the plan, with or without the recomputed forward. */
static double matmul_flops(int n, int with_recompute)
{
    double f = 0;
    for (int i = 0; i < n; i++) {
        enum model_class c = model_kinds[ops[i].kind].cls;
        if ((c == MODEL_MATMUL || c == MODEL_ATTENTION) && (with_recompute || ops[i].phase != MODEL_RECOMPUTE))
            f += ops[i].flops;
    }
    return f;
}

static void test_megatron(void)
{
    for (int i = 0; i < NSHAPES; i++)
        for (int p = 0; p < MODEL_NPRECS; p++)
            for (int tied = 0; tied < 2; tied++)
                for (int ck = 0; ck < 2; ck++) {
                    struct model_shape s = shapes[i];
                    s.tied = tied;
                    s.checkpoint = ck;
                    int n = plan(&s, p);
                    EXPECT_NEAR(matmul_flops(n, 0), model_megatron_flops(&s, 0), 1e-12);
                    if (ck)
                        EXPECT_NEAR(matmul_flops(n, 1), model_megatron_flops(&s, 1), 1e-12);
                    else
                        EXPECT_NEAR(matmul_flops(n, 1), matmul_flops(n, 0), 0);
                }
    /* the formula itself, by hand: 72 B s L h^2 (1 + s/6h + V/12Lh) */
    struct model_shape s = { 2, 64, 4, 64, 256, 8, 1, 0, 0 };
    EXPECT_NEAR(model_megatron_flops(&s, 0), 72.0 * 8 * 64 * 2 * 64 * 64 * (1 + 64 / 384.0 + 256 / 1536.0), 1e-15);
}

static double count_closed_form(const struct model_shape *s)
{
    double h = s->hidden, L = s->layers, V = s->vocab;
    return V * h + s->seq * h + L * (12 * h * h + 13 * h) + 2 * h + (s->tied ? 0 : V * h);
}

static void test_params(void)
{
    struct model_shape gpt2 = { 12, 768, 12, 1024, 50257, 1, 1, 0, 1 };
    EXPECT(model_param_count(&gpt2) == 124439808u);          /* GPT-2 small, tied */
    for (int i = 0; i < NSHAPES; i++)
        for (int tied = 0; tied < 2; tied++) {
            struct model_shape s = shapes[i];
            s.tied = tied;
            EXPECT_NEAR((double)model_param_count(&s), count_closed_form(&s), 0);
            /* the tensors tile the flat array without gaps or overlap */
            size_t end = 0;
            for (int p = 0; p < MODEL_NPARAMS; p++)
                for (int l = 0; l < (model_params[p].per_block ? s.layers : 1); l++) {
                    size_t r, c;
                    model_param_dims(&s, p, &r, &c);
                    EXPECT(model_param_offset(&s, p, l) == end);
                    end += r * c;
                }
            EXPECT(end == model_param_count(&s));
            double low = 12.0 * s.hidden * s.hidden * s.layers + (double)s.vocab * s.hidden;
            EXPECT_NEAR((double)model_low_count(&s), low, 0);
            EXPECT_NEAR((double)model_fp8_count(&s), 12.0 * s.hidden * s.hidden * s.layers, 0);
        }
}

/* AdamW with FP32 master weights: 4 (weights) + 4 (gradients) + 8 (two moments) = 16 B per
 * parameter; BF16 adds a 2-byte copy of each matmul weight (between 16 and 18 B overall); FP8
 * adds one more byte per block matmul weight. */
static void test_static_memory(void)
{
    for (int i = 0; i < NSHAPES; i++) {
        struct model_shape s = shapes[i];
        struct model_memory m[MODEL_NPRECS];
        for (int p = 0; p < MODEL_NPRECS; p++)
            model_memory(&s, p, MODEL_IMPL_CPU, &m[p]);
        double N = m[0].params, low = (double)model_low_count(&s), f8 = (double)model_fp8_count(&s);
        for (int p = 0; p < MODEL_NPRECS; p++) {
            double st = m[p].bytes[MODEL_MEM_WEIGHTS] + m[p].bytes[MODEL_MEM_LOW] + m[p].bytes[MODEL_MEM_GRADS]
                      + m[p].bytes[MODEL_MEM_OPTIMIZER];
            double want = 16 * N + (p >= MODEL_BF16 ? 2 * low : 0) + (p == MODEL_FP8 ? f8 : 0);
            EXPECT_NEAR(st, want, 1e-15);
            EXPECT(st / N >= 16 && st / N <= 19);
        }
        EXPECT_NEAR((m[0].bytes[0] + m[0].bytes[1] + m[0].bytes[2] + m[0].bytes[3]) / N, 16, 1e-15);
        EXPECT(m[MODEL_BF16].bytes[MODEL_MEM_LOW] / N <= 2);
    }
}

static int count(int n, enum model_kind k)
{
    int c = 0;
    for (int i = 0; i < n; i++)
        c += ops[i].kind == k;
    return c;
}

static void test_structure(void)
{
    for (int i = 0; i < NSHAPES; i++)
        for (int p = 0; p < MODEL_NPRECS; p++)
            for (int ck = 0; ck < 2; ck++) {
                struct model_shape s = shapes[i];
                s.checkpoint = ck;
                int n = plan(&s, p), G = s.accum, L = s.layers, lin = 4 * L + 1;
                EXPECT(count(n, MODEL_OP_MATMUL) == G * (lin + (ck ? 4 * L : 0)));
                EXPECT(count(n, MODEL_OP_MATMUL_DGRAD) == G * lin && count(n, MODEL_OP_MATMUL_WGRAD) == G * lin);
                EXPECT(count(n, MODEL_OP_CAST_GRAD) == (p == MODEL_FP32 ? 0 : G * lin));
                EXPECT(count(n, MODEL_OP_QUANTIZE) == (p == MODEL_FP8 ? G * 4 * L * (1 + ck) : 0));
                EXPECT(count(n, MODEL_OP_ATTENTION) == G * L * (1 + ck));
                EXPECT(count(n, MODEL_OP_LAYERNORM) == G * (2 * L * (1 + ck) + 1));
                EXPECT(count(n, MODEL_OP_XENT) == G && count(n, MODEL_OP_EMBED_BWD) == G);
                EXPECT(count(n, MODEL_OP_ZERO_GRAD) == 1 && count(n, MODEL_OP_ADAMW) == 1);
                EXPECT(count(n, MODEL_OP_QUANTIZE_WEIGHTS) == (p == MODEL_FP8));
                EXPECT(ops[0].kind == MODEL_OP_ZERO_GRAD && ops[n - 1 - (p == MODEL_FP8)].kind == MODEL_OP_ADAMW);
                for (int j = 0; j < n; j++) {
                    EXPECT(ops[j].flops >= 0 && ops[j].bytes_read >= 0 && ops[j].bytes_written >= 0 && ops[j].bytes_read + ops[j].bytes_written > 0);
                    if (ops[j].phase == MODEL_RECOMPUTE)
                        EXPECT(ck && ops[j].layer >= 0);
                }
            }
}

static const struct model_op *find(int n, enum model_kind k, int which, int layer)
{
    for (int i = 0; i < n; i++)
        if (ops[i].kind == k && ops[i].which == which && ops[i].layer == layer)
            return &ops[i];
    return NULL;
}

static void test_bytes(void)
{
    struct model_shape s = { 2, 64, 4, 64, 256, 8, 1, 0, 0 };
    double T = 512, h = 64, V = 256;
    int n = plan(&s, MODEL_FP32);
    const struct model_op *q = find(n, MODEL_OP_MATMUL, MODEL_LIN_QKV, 1);
    EXPECT(q && q->m == T && q->n == 3 * h && q->k == h);
    EXPECT_NEAR(q->bytes_read, 4 * (T * h + 3 * h * h) + 4 * 3 * h, 0);
    EXPECT_NEAR(q->bytes_written, 4 * T * 3 * h, 0);
    const struct model_op *head = find(n, MODEL_OP_MATMUL_WGRAD, MODEL_LIN_LMHEAD, -1);
    EXPECT(head && head->n == V && head->k == h);
    EXPECT_NEAR(head->bytes_read, 4 * (T * h + T * V) + 4 * V * h, 0);      /* X, dY, dW (no bias) */
    n = plan(&s, MODEL_BF16);
    q = find(n, MODEL_OP_MATMUL, MODEL_LIN_QKV, 1);
    EXPECT(q && q->dtype == MODEL_DT_BF16 && q->dtype_out == MODEL_DT_F32);
    EXPECT_NEAR(q->bytes_read, 2 * (T * h + 3 * h * h) + 4 * 3 * h, 0);
    const struct model_op *c = find(n, MODEL_OP_CAST_GRAD, MODEL_LIN_FC, 0);
    EXPECT(c && c->bytes_read == 4 * T * 4 * h && c->bytes_written == 2 * T * 4 * h);
    n = plan(&s, MODEL_FP8);
    q = find(n, MODEL_OP_MATMUL, MODEL_LIN_FC, 0);
    EXPECT(q && q->dtype == MODEL_DT_E4M3);
    EXPECT(find(n, MODEL_OP_MATMUL, MODEL_LIN_LMHEAD, -1)->dtype == MODEL_DT_BF16);
    const struct model_op *a = find(n, MODEL_OP_ATTENTION, 0, 0);
    EXPECT(a && a->flops == 4 * T * 64 * h);
}

static void test_labels(void)
{
    struct model_shape s = { 2, 64, 4, 64, 256, 8, 1, 1, 0 };
    char buf[128];
    int n = plan(&s, MODEL_BF16);
    for (int i = 0; i < n; i++)
        if (ops[i].kind == MODEL_OP_MATMUL_DGRAD && ops[i].which == MODEL_LIN_FC && ops[i].layer == 1)
            EXPECT_STR(model_op_label(&ops[i], buf, sizeof buf), "matmul_dgrad fc, block 1");
    for (int i = 0; i < n; i++)
        if (ops[i].phase == MODEL_RECOMPUTE && ops[i].kind == MODEL_OP_LAYERNORM && ops[i].which == MODEL_LN2 && ops[i].layer == 0)
            EXPECT_STR(model_op_label(&ops[i], buf, sizeof buf), "layernorm ln2, block 0 (recompute)");
    struct model_shape bad = s;
    bad.heads = 5;
    EXPECT(model_shape_problem(&bad) != NULL && model_shape_problem(&s) == NULL);
}

int main(void)
{
    test_megatron();
    test_params();
    test_static_memory();
    test_structure();
    test_bytes();
    test_labels();
    return CHECK_DONE();
}
