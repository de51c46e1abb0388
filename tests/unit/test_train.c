/* test_train.c: the training experiment on the CPU: BF16 and E4M3 rounding bit for bit against
 * a brute-force nearest search, the vectorizable exp against exp, GELU and its derivative, the n-gram source (structure, frequencies,
 * exact entropy), the gradient of every parameter tensor against central finite differences,
 * checkpointing (bitwise the same gradients) and accumulation (the same gradients up to
 * rounding), a bitwise repeatable loss curve, the loss falling toward the entropy bound, BF16
 * following FP32, one configuration's record, and what the scenario API refuses. */
#include <float.h>
#include <omp.h>
#include <stdlib.h>

#include "check.h"
#include "exp/train/train.h"
#include "exp/train/train_cpu.h"
#include "exp/train/train_data.h"
#include "exp/train/train_math.h"
#include "util/progress.h"

/* ---- BF16 and E4M3 against brute force ---- */

static float from_bits(uint32_t u) { union { uint32_t u; float f; } v = { u }; return v.f; }

/* Nearest BF16 by distance in double; ties to the even pattern; past the largest finite
 * (by half an ulp or more) to infinity, which counts as 2^128 here. */
static uint16_t bf16_ref(float f)
{
    union { float f; uint32_t u; } v = { f };
    uint16_t lo = (uint16_t)(v.u >> 16), hi = (uint16_t)(lo + 1);
    double x = fabs((double)f);
    double vlo = fabs((double)from_bits((uint32_t)lo << 16));
    double vhi = (hi & 0x7fff) == 0x7f80 ? ldexp(1, 128) : fabs((double)from_bits((uint32_t)hi << 16));
    double dl = x - vlo, dh = vhi - x;
    return dl < dh ? lo : dh < dl ? hi : (lo & 1) ? hi : lo;
}

static void test_bf16(void)
{
    static const struct { uint32_t in; uint16_t out; } cases[] = {
        { 0x3f800000, 0x3f80 }, { 0x3f808000, 0x3f80 }, { 0x3f818000, 0x3f82 }, { 0x3f80c000, 0x3f81 },
        { 0xc0200000, 0xc020 }, { 0x7f800000, 0x7f80 }, { 0xff800000, 0xff80 }, { 0x7f7fffff, 0x7f80 },
        { 0x00000001, 0x0000 }, { 0x00008000, 0x0000 }, { 0x00018000, 0x0002 }, { 0x80000000, 0x8000 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        EXPECT(train_bf16(from_bits(cases[i].in)) == cases[i].out);
    uint16_t n = train_bf16(from_bits(0x7fc00001));
    EXPECT((n & 0x7f80) == 0x7f80 && (n & 0x7f) != 0);          /* NaN stays NaN */
    EXPECT((train_bf16(from_bits(0x7f800001)) & 0x7f) != 0);    /* even a NaN with low payload */
    int bad = 0;
    for (uint64_t i = 0; i < 2000000; i++) {
        uint32_t u = (uint32_t)train_rand(42, i);
        if ((u & 0x7fffffffu) > 0x7f800000u)
            continue;
        bad += train_bf16(from_bits(u)) != bf16_ref(from_bits(u));
    }
    EXPECT(bad == 0);
    for (uint32_t b = 0; b < 65536; b++)                         /* widening is exact */
        if ((b & 0x7fff) <= 0x7f80)
            EXPECT(train_bf16(train_bf16_f32((uint16_t)b)) == b);
}

static uint8_t e4m3_ref(float f)
{
    uint8_t best = 0;
    double bd = INFINITY, x = (double)f;
    if (f != f)
        return 0x7f;
    if (fabs(x) >= 448)
        return f < 0 ? 0xfe : 0x7e;
    for (int c = 0; c < 256; c++) {
        if ((c & 0x7f) == 0x7f || ((c & 0x80) != 0) != (f < 0 || (f == 0 && signbit(f))))
            continue;
        double d = fabs(x - (double)train_e4m3_f32((uint8_t)c));
        if (d < bd || (d == bd && (c & 1) == 0 && (best & 1))) {
            bd = d;
            best = (uint8_t)c;
        }
    }
    return best;
}

static void test_e4m3(void)
{
    for (int c = 0; c < 256; c++)
        if ((c & 0x7f) != 0x7f)
            EXPECT(train_e4m3(train_e4m3_f32((uint8_t)c)) == c);
    EXPECT(train_e4m3_f32(0x7e) == 448.0f && train_e4m3_f32(0x01) == ldexpf(1, -9) && train_e4m3_f32(0x08) == ldexpf(1, -6));
    EXPECT(train_e4m3(1e9f) == 0x7e && train_e4m3(-INFINITY) == 0xfe && (train_e4m3(NAN) & 0x7f) == 0x7f);
    int bad = 0;
    for (uint64_t i = 0; i < 200000; i++) {
        double u = train_uniform(7, i);
        float f = i % 2 ? (float)(960 * u - 480)                               /* the whole range */
                        : (float)((i % 4 == 0 ? -1 : 1) * ldexp(1, -12) * pow(2, 22 * u));   /* every binade */
        bad += train_e4m3(f) != e4m3_ref(f);
    }
    EXPECT(bad == 0);
    EXPECT(train_e4m3(ldexpf(1, -10)) == 0x00 && train_e4m3(3 * ldexpf(1, -10)) == 0x02);   /* ties to even */
}

/* ---- exp and GELU ---- */

static double gelu_d(double x) { return 0.5 * x * (1 + tanh(0.7978845608028654 * (x + 0.044715 * x * x * x))); }

/* |got - want| in units of the last place of want as a float (2^(e - 23) for want in [2^e, 2^(e+1))) */
static double ulps(float got, double want)
{
    int e;
    frexp(want, &e);
    return fabs((double)got - want) / ldexp(1, e - 24);
}

/* train_expf within 1 ulp of exp over its range, inf past FLT_MAX (0.99 ulp the worst over every
 * float in [-10, 10], checked once): a sweep, small arguments, the floats next to each end, the
 * limits; then the vectorized kernel (this CPU's clone) through GELU */
static double expf_err(float x)
{
    double want = exp((double)x);
    float got = train_expf(x);
    return want > FLT_MAX ? (isinf(got) ? 0 : INFINITY) : ulps(got, want);
}

static void test_expf(void)
{
    double worst = 0;
    for (double x = TRAIN_EXP_LO; x <= TRAIN_EXP_HI; x += 1.0 / 1024)
        worst = fmax(worst, expf_err((float)x));
    for (int i = 0; i < 100000; i++) {
        float lo = nextafterf(TRAIN_EXP_LO, 0) + (float)i * 1e-6f, hi = nextafterf(TRAIN_EXP_HI, 0) - (float)i * 1e-6f;
        worst = fmax(worst, fmax(expf_err(lo), expf_err(hi)));
        worst = fmax(worst, fmax(expf_err((float)i * 1e-9f), expf_err((float)i * -1e-9f)));
    }
    EXPECT(worst < 1);
    EXPECT(train_expf(0) == 1.0f);
    EXPECT(train_expf(-87.34f) == 0 && train_expf(-INFINITY) == 0 && train_expf(-1e30f) == 0);
    EXPECT(isinf(train_expf(88.74f)) && isinf(train_expf(INFINITY)));
    EXPECT(isnan(train_expf(NAN)));
    enum { N = 200001 };
    float *x = xmalloc(N * sizeof *x), *y = xmalloc(N * sizeof *y);
    for (int i = 0; i < N; i++)
        x[i] = (float)(i - N / 2) * 1e-4f;
    train_cpu_gelu(y, 0, x, N);
    int bad = 0;
    for (int i = 0; i < N; i++)
        bad += !(fabs(y[i] - gelu_d(x[i])) <= 1e-6 * fmax(1, fabs(x[i])));
    EXPECT(bad == 0);
    free(x);
    free(y);
}

static void test_gelu(void)
{
    for (double x = -6; x <= 6; x += 0.01) {
        double want = (gelu_d(x + 1e-5) - gelu_d(x - 1e-5)) / 2e-5;
        /* FP32 against double: absolute errors (1 + tanh cancels for negative x) */
        EXPECT(fabs(train_gelu((float)x) - gelu_d(x)) <= 1e-6 * fmax(1, fabs(x)));
        EXPECT(fabs(train_gelu_grad((float)x) - want) <= 2e-6);
    }
}

/* ---- the n-gram source ---- */

static void test_data(void)
{
    struct train_data d;
    char err[256];
    EXPECT(train_data_init(&d, 97, 2, 8, 7, err, sizeof err) == 0);
    double sum = 0, h = 0;
    for (int j = 0; j < d.branching; j++) {
        sum += d.p[j];
        h -= d.p[j] * log(d.p[j]);
    }
    EXPECT_NEAR(sum, 1, 1e-15);
    EXPECT_NEAR(d.entropy, h, 1e-15);
    EXPECT(d.entropy > 0 && d.entropy < log(8));
    enum { R = 64, S = 128 };
    static int32_t tok[R * S], tgt[R * S], tok2[R * S], tgt2[R * S];
    double count[8] = { 0 }, nll = 0;
    train_data_batch(&d, 3, 1, R, S, tok, tgt);
    for (int r = 0; r < R; r++)
        for (int t = 0; t < S; t++) {
            int32_t ctx[2] = { tok[r * S + t], t > 0 ? tok[r * S + t - 1] : 0 };
            if (t + 1 < S)
                EXPECT(tgt[r * S + t] == tok[r * S + t + 1]);
            int j = ((tgt[r * S + t] - train_data_next(&d, ctx, 0)) % 97 + 97) % 97;
            EXPECT(j < 8);
            if (j < 8) {
                count[j]++;
                nll -= log(d.p[j]);
            }
        }
    double n = R * S;
    for (int j = 0; j < 8; j++)
        EXPECT(fabs(count[j] / n - d.p[j]) <= 4 * sqrt(d.p[j] * (1 - d.p[j]) / n));
    EXPECT(fabs(nll / n - d.entropy) <= 0.05);          /* the true model's loss is H(p) */
    train_data_batch(&d, 3, 1, R, S, tok2, tgt2);
    EXPECT(memcmp(tok, tok2, sizeof tok) == 0 && memcmp(tgt, tgt2, sizeof tgt) == 0);
    train_data_batch(&d, 4, 1, R, S, tok2, tgt2);
    EXPECT(memcmp(tok, tok2, sizeof tok) != 0);
    EXPECT(train_data_init(&d, 5, 1, 8, 7, err, sizeof err) != 0);     /* branching > vocab */
}

/* ---- gradients ---- */

struct bench {
    struct train_ctx *c;
    struct net_op *plan;
    int n;
    struct net_shape s;
};

static void bench_open(struct bench *b, const struct net_shape *s, enum net_prec p, uint64_t seed,
                       const int32_t *tok, const int32_t *tgt)
{
    char err[256];
    b->s = *s;
    b->c = train_cpu_ops.open(s, p, seed, err, sizeof err);
    if (!b->c)
        printf("open: %s\n", err);
    EXPECT(b->c != NULL);
    b->n = net_plan(s, p, NULL, 0);
    b->plan = malloc((size_t)b->n * sizeof *b->plan);
    net_plan(s, p, b->plan, b->n);
    train_cpu_ops.load(b->c, tok, tgt);
    struct train_adam a = { 1e-3f, 0.9f, 0.95f, 1e-8f, 0.1f, 0.1f, 0.05f, 1 };
    train_cpu_ops.set_step(b->c, &a, 0);
}

static void bench_close(struct bench *b)
{
    train_cpu_ops.close(b->c);
    free(b->plan);
}

/* Forward only (phase < 0), or forward and backward without the update. */
static double bench_run(struct bench *b, int backward)
{
    for (int i = 0; i < b->n; i++) {
        const struct net_op *op = &b->plan[i];
        if (op->kind == NET_OP_ADAMW || (!backward && op->phase != NET_FWD))
            continue;
        train_cpu_ops.run(b->c, op);
    }
    return train_cpu_ops.loss(b->c);
}

static void make_batch(const struct net_shape *s, uint64_t seed, int32_t **tok, int32_t **tgt)
{
    struct train_data d;
    char err[256];
    size_t T = (size_t)s->batch * s->seq;
    *tok = malloc(T * s->accum * sizeof **tok);
    *tgt = malloc(T * s->accum * sizeof **tgt);
    EXPECT(train_data_init(&d, s->vocab, 1, s->vocab < 4 ? s->vocab : 4, seed, err, sizeof err) == 0);
    for (int mb = 0; mb < s->accum; mb++)
        train_data_batch(&d, 0, mb, s->batch, s->seq, *tok + mb * T, *tgt + mb * T);
}

#define FD_EPS 1e-2f
#define FD_TOL 1e-2             /* max |fd - g| over six elements of a tensor / max |g| over it;
                                   fd: the five-point central difference */

static double check_tensor(struct bench *b, const float *g, enum net_param p, int layer)
{
    size_t r, c, picks[6];
    net_param_dims(&b->s, p, &r, &c);
    size_t n = r * c, off = net_param_offset(&b->s, p, layer);
    float *w = train_cpu_params(b->c);
    double worst = 0, gmax = 0;
    for (int k = 0; k < 6; k++)
        picks[k] = k == 0 ? 0 : k == 1 ? n - 1 : train_rand(11, (uint64_t)(off + k)) % n;
    for (size_t i = 0; i < n; i++)
        gmax = fmax(gmax, fabs(g[off + i]));
    for (int k = 0; k < 6; k++) {
        float keep = w[off + picks[k]];
        double l[4];
        for (int j = 0; j < 4; j++) {       /* at -2e, -e, +e, +2e */
            w[off + picks[k]] = keep + (float)(j < 2 ? j - 2 : j - 1) * FD_EPS;
            train_cpu_refresh(b->c);
            l[j] = bench_run(b, 0);
        }
        w[off + picks[k]] = keep;
        train_cpu_refresh(b->c);
        double fd = (l[0] - 8 * l[1] + 8 * l[2] - l[3]) / (12.0 * (double)FD_EPS);   /* error O(e^4) */
        worst = fmax(worst, fabs(fd - g[off + picks[k]]));
    }
    return worst / fmax(gmax, 1e-7);
}

static void test_gradcheck(const struct net_shape *s)
{
    int32_t *tok, *tgt;
    struct bench b;
    make_batch(s, 5, &tok, &tgt);
    bench_open(&b, s, NET_FP32, 3, tok, tgt);
    bench_run(&b, 1);
    size_t N = net_param_count(s);
    float *g = malloc(N * sizeof *g);
    memcpy(g, train_cpu_grads(b.c), N * sizeof *g);
    for (int p = 0; p < NET_NPARAMS; p++) {
        size_t r, c;
        net_param_dims(s, p, &r, &c);
        for (int l = 0; r * c > 0 && l < (net_params[p].per_block ? s->layers : 1); l++) {
            double e = check_tensor(&b, g, p, l);
            if (getenv("TRAIN_VERBOSE") || !(e <= FD_TOL))
                printf("  gradient of %s (block %d): relative error %.3g\n", net_params[p].name, l, e);
            EXPECT(e <= FD_TOL);
        }
    }
    free(g);
    bench_close(&b);
    free(tok);
    free(tgt);
}

/* Gradients of one batch, by the CPU backend. */
static float *grads(const struct net_shape *s, enum net_prec p, const int32_t *tok, const int32_t *tgt, double *loss)
{
    struct bench b;
    bench_open(&b, s, p, 9, tok, tgt);
    *loss = bench_run(&b, 1);
    size_t N = net_param_count(s);
    float *g = malloc(N * sizeof *g);
    memcpy(g, train_cpu_grads(b.c), N * sizeof *g);
    bench_close(&b);
    return g;
}

static void test_checkpoint_and_accum(void)
{
    struct net_shape s = { 3, 32, 4, 16, 50, 4, 1, 0, .tied = 0 };
    int32_t *tok, *tgt;
    double l1, l2, l3;
    size_t N = net_param_count(&s);
    make_batch(&s, 6, &tok, &tgt);
    for (int p = NET_FP32; p <= NET_BF16; p++) {
        struct net_shape ck = s;
        ck.checkpoint = 1;
        float *g1 = grads(&s, p, tok, tgt, &l1), *g2 = grads(&ck, p, tok, tgt, &l2);
        EXPECT(memcmp(g1, g2, N * sizeof *g1) == 0 && l1 == l2);   /* recomputation is bitwise */
        struct net_shape acc = s;
        acc.batch = 2;
        acc.accum = 2;                 /* the same four sequences as two micro-batches */
        float *g3 = grads(&acc, p, tok, tgt, &l3);
        double num = 0, den = 0;
        for (size_t i = 0; i < N; i++) {
            num += (double)(g3[i] - g1[i]) * (g3[i] - g1[i]);
            den += (double)g1[i] * g1[i];
        }
        EXPECT(sqrt(num / den) <= (p == NET_FP32 ? 1e-5 : 1e-2));
        EXPECT_NEAR(l3, l1, 1e-6);
        free(g1); free(g2); free(g3);
    }
    free(tok);
    free(tgt);
}

/* ---- training ---- */

static struct train_config small_config(enum net_prec p, int steps)
{
    struct train_config c = { "test", { 2, 32, 4, 32, 64, 8, 1, 0, .tied = 0 }, p, steps, 2, 1e-2, 1e-3, steps / 10,
                              0.1, 1.0, 1, 1, 4, 1, INFINITY, 0 };
    return c;
}

static void test_determinism(void)
{
    double a[6], b[6];
    char err[256];
    struct train_config c = small_config(NET_FP32, 6);
    c.shape.accum = 2;
    c.shape.checkpoint = 1;
    EXPECT(train_losses(&train_cpu_ops, &c, 6, a, err, sizeof err) == 0);
    EXPECT(train_losses(&train_cpu_ops, &c, 6, b, err, sizeof err) == 0);
    EXPECT(memcmp(a, b, sizeof a) == 0);
    c.seed = 2;
    EXPECT(train_losses(&train_cpu_ops, &c, 6, b, err, sizeof err) == 0);
    EXPECT(memcmp(a, b, sizeof a) != 0);
}

#define STEPS 150
#define FINAL 15

static double final_loss(const double *l) { double s = 0; for (int i = STEPS - FINAL; i < STEPS; i++) s += l[i]; return s / FINAL; }

/* The loss falls toward H(p): the last 10 % of steps close at least 80 % of the gap between
 * the first loss and the bound. BF16 follows FP32: within 0.05 nats at every step, and the
 * final losses within 0.02 nats. */
static void test_learning(void)
{
    static double f32[STEPS], b16[STEPS];
    char err[256];
    struct train_data d;
    struct train_config c = small_config(NET_FP32, STEPS);
    EXPECT(train_data_init(&d, c.shape.vocab, c.order, c.branching, c.seed, err, sizeof err) == 0);
    EXPECT(train_losses(&train_cpu_ops, &c, STEPS, f32, err, sizeof err) == 0);
    c.prec = NET_BF16;
    EXPECT(train_losses(&train_cpu_ops, &c, STEPS, b16, err, sizeof err) == 0);
    double closed = (f32[0] - final_loss(f32)) / (f32[0] - d.entropy), worst = 0;
    printf("  fp32: first %.3f final %.3f bound %.3f (gap closed %.1f %%); bf16 final %.3f\n", f32[0],
           final_loss(f32), d.entropy, 100 * closed, final_loss(b16));
    EXPECT(closed >= 0.8);
    EXPECT(final_loss(f32) > d.entropy - 0.02);          /* no model beats the bound */
    for (int i = 0; i < STEPS; i++)
        worst = fmax(worst, fabs(f32[i] - b16[i]));
    printf("  bf16 vs fp32: largest difference %.4f nats\n", worst);
    EXPECT(worst <= 0.05);
    EXPECT(fabs(final_loss(f32) - final_loss(b16)) <= 0.02);
}

static void test_record(void)
{
    struct train_config c = small_config(NET_FP32, 6);
    struct train_reference ref = { 0 };
    cJSON *rec = train_config_run(&train_cpu_ops, &c, &ref);
    EXPECT(cJSON_IsTrue(cJSON_GetObjectItem(rec, "valid")));
    EXPECT(ref.have && ref.loss[0] > 0);
    const cJSON *ops = cJSON_GetObjectItem(rec, "ops");
    EXPECT(cJSON_GetArraySize(ops) == net_plan(&c.shape, c.prec, NULL, 0));
    EXPECT_NEAR(cJSON_GetObjectItem(rec, "model_flops_per_step")->valuedouble, net_megatron_flops(&c.shape, 0), 1e-12);
    double sum = 0;
    for (const cJSON *o = ops->child; o; o = o->next)
        if (!strcmp(cJSON_GetObjectItem(o, "class")->valuestring, "matmul")
            || !strcmp(cJSON_GetObjectItem(o, "class")->valuestring, "attention"))
            sum += cJSON_GetObjectItem(o, "flops")->valuedouble;
    EXPECT_NEAR(sum, net_megatron_flops(&c.shape, 0), 1e-12);
    EXPECT(cJSON_GetArraySize(cJSON_GetObjectItem(rec, "loss")) == 6);
    EXPECT(cJSON_GetArraySize(cJSON_GetObjectItem(rec, "samples_s")) == 4);     /* 6 steps, 2 warm-up */
    const cJSON *mem = cJSON_GetObjectItem(rec, "memory");
    EXPECT(cJSON_GetObjectItem(mem, "allocated_bytes")->valuedouble == cJSON_GetObjectItem(mem, "planned_bytes")->valuedouble);
    EXPECT(cJSON_GetObjectItem(mem, "static_bytes_per_param")->valuedouble == 16);
    const cJSON *chk = cJSON_GetObjectItem(rec, "checks");
    EXPECT(cJSON_GetArraySize(chk) == 1 && cJSON_IsTrue(cJSON_GetObjectItem(chk->child, "pass")));
    double med = cJSON_GetObjectItem(cJSON_GetObjectItem(rec, "time_s"), "median")->valuedouble;
    EXPECT_NEAR(cJSON_GetObjectItem(rec, "tokens_per_s")->valuedouble, 8 * 32 / med, 1e-12);
    cJSON_Delete(rec);
    c.prec = NET_BF16;                       /* checked against the reference just made */
    rec = train_config_run(&train_cpu_ops, &c, &ref);
    chk = cJSON_GetObjectItem(rec, "checks");
    EXPECT(cJSON_IsTrue(cJSON_GetObjectItem(rec, "valid")) && cJSON_GetArraySize(chk) == 2);
    EXPECT(cJSON_GetObjectItem(cJSON_GetObjectItem(rec, "memory"), "static_bytes_per_param")->valuedouble > 16);
    cJSON_Delete(rec);
}

static const char *refusal(const char *json)
{
    static char err[1024];
    cJSON *g = cJSON_Parse(json);
    cJSON *p = param_check("train", train_params, g, err, sizeof err);
    cJSON_Delete(g);
    if (!p)
        return err;
    int rc = train_precheck(p, err, sizeof err);
    cJSON_Delete(p);
    return rc == 0 ? "" : err;
}

static void test_refusals(void)
{
    EXPECT_STR(refusal("{\"shapes\": [\"tiny\", \"small\"]}"), "");
    EXPECT(strstr(refusal("{\"heads\": 5}"), "heads must divide hidden"));
    EXPECT(strstr(refusal("{\"precisions\": \"fp8\"}"), "fp8 needs device = \"gpu\""));
    EXPECT(strstr(refusal("{\"branching\": 200, \"vocab\": 100}"), "branching 200 exceeds"));
    const char *big = refusal("{\"shapes\": \"gpt2-small\", \"seq\": 8192, \"batch\": 4096}");
    EXPECT(strstr(big, "train: custom fp32 cpu (12 layers, hidden 768") && strstr(big, " needs ") && strstr(big, "activations"));
    EXPECT(strstr(refusal("{\"shapes\": \"huge\"}"), "unknown value 'huge'"));
}

static void test_lr(void)
{
    struct train_config c = small_config(NET_FP32, 100);
    c.lr_warmup = 10;
    EXPECT_NEAR(train_lr(&c, 0), c.lr / 10, 1e-15);
    EXPECT_NEAR(train_lr(&c, 9), c.lr, 1e-15);
    EXPECT_NEAR(train_lr(&c, 10), c.lr, 1e-15);
    EXPECT_NEAR(train_lr(&c, 99), c.lr_min, 1e-12);
    for (int t = 11; t < 100; t++)
        EXPECT(train_lr(&c, t) <= train_lr(&c, t - 1));
}

int main(void)
{
    /* One thread: on a busy machine OpenMP's spinning barriers make small kernels with two or
     * more threads a hundred times slower; test_determinism runs with the machine's count. */
    int threads = omp_get_max_threads();
    omp_set_num_threads(1);
    progress_quiet(1);
    test_bf16();
    test_e4m3();
    test_expf();
    test_gelu();
    test_data();
    test_lr();
    struct net_shape a = { 2, 16, 2, 16, 23, 8, 1, 0, .tied = 0 }, b = { 2, 16, 4, 16, 19, 4, 2, 1, .tied = 1 };
    test_gradcheck(&a);
    test_gradcheck(&b);
    test_checkpoint_and_accum();
    omp_set_num_threads(threads);
    test_determinism();
    omp_set_num_threads(1);
    test_record();
    test_refusals();
    test_learning();
    return CHECK_DONE();
}
