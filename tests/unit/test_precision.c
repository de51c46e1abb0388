/* test_precision.c: the precision family's arithmetic and CPU kernels: BF16 and FP16 rounding
 * bit for bit (against the CPU's own conversion instructions where it has them, and an integer
 * twin), E4M3 and E2M1 codes exhaustively, block scales and their cuBLASLt layout, the FMA
 * chain kernels against their plain twins, FLOP counting, CPU GEMMs against the naive twin,
 * the error of each format against FP64 within its bound, the knee on synthetic rooflines,
 * one small run whose records follow from their own samples, and the tensor-core k-sweep on a
 * stand-in GPU backend: where it starts per format, and a refused k as a shape limit. */
#include <stdlib.h>

#include "check.h"
#include "cuda/cuda.h"
#include "exp/bandwidth/bandwidth.h"
#include "exp/precision/precision.h"
#include "exp/precision/precision_int.h"
#include "util/json.h"
#include "util/param.h"
#include "util/progress.h"
#include "util/timing.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
__attribute__((target("avx512bf16,avx512vl"))) static uint16_t hw_bf16(float f)
{
    __m128bh r = _mm_cvtneps_pbh(_mm_set1_ps(f));
    uint16_t u;
    memcpy(&u, &r, sizeof u);
    return u;
}
__attribute__((target("f16c"))) static uint16_t hw_fp16(float f)
{
    return (uint16_t)_cvtss_sh(f, _MM_FROUND_TO_NEAREST_INT);
}
static int has_bf16(void) { return __builtin_cpu_supports("avx512bf16") && __builtin_cpu_supports("avx512vl"); }
static int has_f16c(void) { return __builtin_cpu_supports("f16c"); }
#else
static uint16_t hw_bf16(float f) { (void)f; return 0; }
static uint16_t hw_fp16(float f) { (void)f; return 0; }
static int has_bf16(void) { return 0; }
static int has_f16c(void) { return 0; }
#endif

static float from_bits(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* Round-to-nearest-even on the bits: an independent twin for finite floats. */
static uint16_t twin_bf16(uint32_t u)
{
    return (uint16_t)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

/* Finite, normal-or-zero floats: every 509th pattern, and around every BF16 and FP16 tie. */
static int next_pattern(uint64_t *i, uint32_t *u)
{
    static const uint32_t lows[] = { 0x0000, 0x7fff, 0x8000, 0x8001, 0xffff, 0x0fff, 0x1000, 0x1001, 0x3000 };
    uint64_t n = *i;
    if (n < 65536ull * 9) {
        *u = (uint32_t)(n / 9) << 16 | lows[n % 9];
    } else {
        uint64_t m = (n - 65536ull * 9) * 509;
        if (m > 0xffffffffull)
            return 0;
        *u = (uint32_t)m;
    }
    (*i)++;
    return 1;
}

static int usable(uint32_t u)
{
    uint32_t e = (u >> 23) & 0xff;
    return e != 0xff && (e != 0 || (u & 0x7fffff) == 0);    /* no NaN/inf, no denormal */
}

static void test_bf16(void)
{
    EXPECT(prec_bf16_bits(1.0) == 0x3f80);
    EXPECT(prec_bf16_bits(from_bits(0x3f808000)) == 0x3f80);    /* tie: to even (down) */
    EXPECT(prec_bf16_bits(from_bits(0x3f818000)) == 0x3f82);    /* tie: to even (up) */
    EXPECT(prec_bf16_bits(from_bits(0x3f808001)) == 0x3f81);
    EXPECT(prec_bf16_bits(-2.0) == 0xc000);
    EXPECT(prec_bf16_bits(from_bits(0x7f7fffff)) == 0x7f80);    /* rounds past max: infinity */
    EXPECT(prec_bf16_bits(INFINITY) == 0x7f80 && prec_bf16_bits(-INFINITY) == 0xff80);
    EXPECT((prec_bf16_bits(NAN) & 0x7f80) == 0x7f80 && (prec_bf16_bits(NAN) & 0x7f));
    EXPECT(prec_bf16_bits(from_bits(0x00010000)) == 0x0001);    /* denormals keep their bits */
    EXPECT(prec_bf16_value(0x3f80) == 1.0 && prec_bf16_value(0xc049) == -3.140625);
    uint64_t i = 0;
    uint32_t u;
    long n = 0, bad_twin = 0, bad_hw = 0;
    int hw = has_bf16();
    while (next_pattern(&i, &u)) {
        if (!usable(u))
            continue;
        float f = from_bits(u);
        uint16_t b = prec_bf16_bits(f);
        if (b != twin_bf16(u) && (b & 0x7f80) != 0x7f80)
            bad_twin++;
        if (hw && b != hw_bf16(f))
            bad_hw++;
        n++;
    }
    if (bad_twin || bad_hw)
        printf("  bf16: %ld of %ld differ from the integer twin, %ld from vcvtneps2bf16\n", bad_twin, n, bad_hw);
    EXPECT(bad_twin == 0 && bad_hw == 0 && n > 8000000);
}

static void test_fp16(void)
{
    EXPECT(prec_fp16_bits(1.0) == 0x3c00 && prec_fp16_bits(-2.0) == 0xc000);
    EXPECT(prec_fp16_bits(65504.0) == 0x7bff && prec_fp16_bits(65520.0) == 0x7c00);   /* tie past max: inf */
    EXPECT(prec_fp16_bits(65519.0) == 0x7bff);
    EXPECT(prec_fp16_bits(0x1p-24) == 0x0001 && prec_fp16_bits(0x1p-25) == 0x0000);   /* tie to even: 0 */
    EXPECT(prec_fp16_bits(0x1.8p-25) == 0x0001);
    EXPECT(prec_fp16_value(0x3555) == 0x1.554p-2 && prec_fp16_value(0x0001) == 0x1p-24);
    if (!has_f16c())
        return;
    uint64_t i = 0;
    uint32_t u;
    long bad = 0, n = 0;
    while (next_pattern(&i, &u)) {
        if (!usable(u))
            continue;
        float f = from_bits(u);
        if (prec_fp16_bits(f) != hw_fp16(f))
            bad++;
        n++;
    }
    if (bad)
        printf("  fp16: %ld of %ld differ from vcvtps2ph\n", bad, n);
    EXPECT(bad == 0);
}

/* Every code decodes and encodes back; between neighbours, rounding goes to the nearer and,
 * on a tie, to the even code; beyond the largest value, it saturates. */
static void test_small_formats(void)
{
    static const double e2m1[8] = { 0, 0.5, 1, 1.5, 2, 3, 4, 6 };
    for (unsigned c = 0; c < 16; c++) {
        double v = prec_e2m1_value((uint8_t)c);
        EXPECT(v == (c & 8 ? -e2m1[c & 7] : e2m1[c & 7]));
        EXPECT(c == 8 || prec_e2m1_bits(v) == c);
    }
    EXPECT(prec_e2m1_bits(2.5) == 4 && prec_e2m1_bits(3.5) == 6 && prec_e2m1_bits(5.0) == 6);  /* ties to even */
    EXPECT(prec_e2m1_bits(0.25) == 0 && prec_e2m1_bits(0.75) == 2 && prec_e2m1_bits(100) == 7);
    EXPECT(prec_e2m1_bits(-7.0) == 15);
    double prev = -1;
    for (unsigned c = 0; c < 0x7f; c++) {       /* positive E4M3 codes, 0x7f is NaN */
        double v = prec_e4m3_value((uint8_t)c);
        EXPECT(v > prev && prec_e4m3_bits(v) == c);
        if (c > 0) {
            double mid = (prev + v) / 2;
            EXPECT(prec_e4m3_bits(mid) == ((c - 1) % 2 == 0 ? c - 1 : c));
        }
        prev = v;
    }
    EXPECT(prec_e4m3_value(0x7e) == 448 && prec_e4m3_bits(1000) == 0x7e && prec_e4m3_bits(-1000) == 0xfe);
    EXPECT(prec_e4m3_value(0x01) == 0x1p-9 && prec_e4m3_value(0x08) == 0x1p-6);
}

static void test_blocks(void)
{
    double x[32], deq[32];
    uint8_t codes[32];
    for (int i = 0; i < 32; i++)
        x[i] = (i % 2 ? -1 : 1) * (0.05 + i / 40.0);          /* amax 0.825 at i = 31 */
    unsigned s = prec_fp4_block(x, 16, 0, codes, deq);       /* NVFP4: amax 0.425 (i = 15) */
    double scale = prec_e4m3_value((uint8_t)s);
    EXPECT(scale == prec_round_e4m3(0.425 * PREC_NVFP4_GLOBAL / 6));
    for (int i = 0; i < 16; i++) {
        EXPECT(deq[i] == prec_e2m1_value(codes[i]) * scale / PREC_NVFP4_GLOBAL);
        EXPECT(fabs(deq[i] - x[i]) <= scale / PREC_NVFP4_GLOBAL);     /* half E2M1's widest step */
    }
    s = prec_fp4_block(x, 32, 1, codes, deq);                /* MXFP4: 2^(floor(log2 0.825) - 2) */
    EXPECT(s == 127 - 1 - 2);
    EXPECT(deq[31] == -prec_round_e2m1(0.825 * 8) / 8);
    /* the scale layout: a bijection onto the padded tensor, with cuBLASLt's known offsets */
    size_t rows = 300, nkb = 10, total = prec_scale_bytes(rows, nkb);
    EXPECT(total == 384 * 12);
    unsigned char *seen = calloc(total, 1);
    int dup = 0;
    for (size_t r = 0; r < 384; r++)
        for (size_t kb = 0; kb < 12; kb++) {
            size_t o = prec_scale_offset(r, kb, nkb);
            dup += o >= total || seen[o]++;
        }
    EXPECT(dup == 0);
    free(seen);
    EXPECT(prec_scale_offset(0, 0, nkb) == 0 && prec_scale_offset(1, 0, nkb) == 16);
    EXPECT(prec_scale_offset(32, 0, nkb) == 4 && prec_scale_offset(0, 1, nkb) == 1);
    EXPECT(prec_scale_offset(0, 4, nkb) == 512 && prec_scale_offset(128, 0, nkb) == 3 * 512);
}

static void test_inputs(void)
{
    double sum = 0, amax = 0;
    for (uint64_t i = 0; i < 100000; i++) {
        double v = prec_input(7, i);
        EXPECT(v != 0 && v > -1 && v < 1);
        sum += v;
        amax = fmax(amax, fabs(v));
    }
    EXPECT(fabs(sum / 100000) < 0.01 && amax > 0.99);
    EXPECT(prec_input(7, 3) == prec_input(7, 3) && prec_input(7, 3) != prec_input(8, 3));
    EXPECT(prec_input_as(PREC_BF16, 7, 3, 64) == prec_round_bf16(prec_input(7, 3)));
    EXPECT(prec_input_as(PREC_FP8, 7, 3, 64) == prec_round_e4m3(prec_input(7, 3) * 448) / 448);
    /* a block value depends on its 16 neighbours along K, not on other rows */
    double v = prec_input_as(PREC_NVFP4, 7, 64 + 17, 64);
    EXPECT(fabs(v - prec_input(7, 64 + 17)) < 0.3 * fabs(prec_input(7, 64 + 17)) + 0.05);
}

static void test_chain(void)
{
    for (size_t n = 0; n < 3000; n += 7) {
        double s = 0;
        for (size_t i = 0; i < n; i++)
            s += prec_chain_init(i) + 5 * PREC_CHAIN_ADD;
        EXPECT_NEAR(prec_chain_sum(n, 5), s, 1e-15);
    }
    EXPECT(prec_chain_flops(0) == 1 && prec_chain_flops(512) == 1025);
    EXPECT(prec_gemm_flops(2, 3, 4) == 48);
    EXPECT(prec_gemm_bytes(2, 3, 4, 2, 4) == (8 + 12) * 2 + 6 * 4);
}

/* Every kernel the CPU runs, both forms, against the plain twin. */
static void test_kernels(void)
{
    for (int i = 0; i < prec_nkernels; i++) {
        const struct prec_kernel *pk = &prec_kernels[i];
        if (!pk->supported())
            continue;
        int lanes = prec_kernel_lanes(pk);
        double out[512];
        EXPECT(prec_peak_flops(pk, 10) == 2.0 * lanes * 10);
        EXPECT(prec_cpu_peak_run(pk, 2, 1000, out) > 0);
        for (int j = 0; j < lanes; j++)
            EXPECT(out[j] == prec_chain_init((size_t)j) + 1000 * PREC_CHAIN_ADD);
        size_t es = pk->fmt == PREC_FP64 ? 8 : 4, n = 1000;
        void *x = malloc(n * es);
        for (size_t j = 0; j < n; j++) {
            if (es == 8)
                ((double *)x)[j] = prec_chain_init(j);
            else
                ((float *)x)[j] = (float)prec_chain_init(j);
        }
        size_t lo = 3, hi = 997;
        double want = prec_chain_sum(hi, 9) - prec_chain_sum(lo, 9);
        EXPECT(pk->sweep(x, lo, hi, 9, 1.0, PREC_CHAIN_ADD) == want);
        EXPECT(pk->sweep(x, 0, 0, 9, 1.0, PREC_CHAIN_ADD) == 0);
        if (es == 8)
            ((double *)x)[500] += 1.0 / 64;                 /* one wrong element is seen */
        else
            ((float *)x)[500] += 1.0f / 64;
        EXPECT(pk->sweep(x, lo, hi, 9, 1.0, PREC_CHAIN_ADD) != want);
        free(x);
    }
    EXPECT(prec_kernel_find(PREC_FP64) && prec_kernel_find(PREC_FP32) && !prec_kernel_find(PREC_BF16));
}

/* CPU GEMMs against the naive FP64 twin on the same values, per element relative to |A||B|. */
static void test_gemm(enum prec_fmt f, int m, int n, int k)
{
    char why[256];
    struct prec_gemm g = { .fmt = f, .m = m, .n = n, .k = k, .seed_a = 11, .seed_b = 12 };
    EXPECT(prec_cpu_ops.gemm_setup(&g, why, sizeof why) == PREC_OK);
    double *a = malloc((size_t)m * k * sizeof *a), *b = malloc((size_t)n * k * sizeof *b);
    double *ref = malloc((size_t)m * n * sizeof *ref), *absr = malloc((size_t)m * n * sizeof *absr);
    double *d = malloc((size_t)m * n * sizeof *d);
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < (size_t)m * k; i++)
            a[i] = pass ? fabs(prec_input_as(f, 11, i, k)) : prec_input_as(f, 11, i, k);
        for (size_t i = 0; i < (size_t)n * k; i++)
            b[i] = pass ? fabs(prec_input_as(f, 12, i, k)) : prec_input_as(f, 12, i, k);
        prec_ref_gemm(&g, a, b, pass ? absr : ref);
    }
    EXPECT(prec_cpu_ops.gemm_run(&g, 2) > 0);
    EXPECT(prec_cpu_ops.gemm_fetch(&g, NULL, m * n, d) == 0);
    double worst = 0;
    for (size_t i = 0; i < (size_t)m * n; i++)
        worst = fmax(worst, fabs(d[i] - ref[i]) / absr[i]);
    if (!(worst <= prec_fmts[f].tolerance))
        printf("  %s GEMM %dx%dx%d: error %g\n", prec_fmts[f].name, m, n, k, worst);
    EXPECT(worst <= prec_fmts[f].tolerance);
    size_t idx[2] = { 5, (size_t)m * n - 1 };
    double two[2];
    EXPECT(prec_cpu_ops.gemm_fetch(&g, idx, 2, two) == 0 && two[0] == d[5] && two[1] == d[m * n - 1]);
    ((f == PREC_FP64) ? (void)(((double *)g.d)[7] += 1e-6) : (void)(((float *)g.d)[7] += 1.0f));
    EXPECT(prec_cpu_ops.gemm_fetch(&g, NULL, m * n, d) == 0 && fabs(d[7] - ref[7]) / absr[7] > prec_fmts[f].tolerance);
    prec_cpu_ops.gemm_release(&g);
    free(a), free(b), free(ref), free(absr), free(d);
}

/* Each format's error against FP64 on the unquantized inputs: FP32 <= 1e-5, BF16 <= 1e-2, ... */
static void test_numerics(void)
{
    int m = 64, n = 48, k = 256;
    struct prec_gemm r = { .m = m, .n = n, .k = k, .seed_a = 21, .seed_b = 22 };
    double *a = malloc((size_t)m * k * sizeof *a), *b = malloc((size_t)n * k * sizeof *b);
    double *ref = malloc((size_t)m * n * sizeof *ref), *d = malloc((size_t)m * n * sizeof *d);
    for (size_t i = 0; i < (size_t)m * k; i++)
        a[i] = prec_input(21, i);
    for (size_t i = 0; i < (size_t)n * k; i++)
        b[i] = prec_input(22, i);
    prec_ref_gemm(&r, a, b, ref);
    double last = 0;
    for (int f = 0; f < PREC_NFMT; f++) {
        char why[256];
        struct prec_gemm g = { .fmt = f, .m = m, .n = n, .k = k, .emulate = 1, .seed_a = 21, .seed_b = 22 };
        int rc = prec_cpu_ops.gemm_setup(&g, why, sizeof why);
        EXPECT(rc == (f == PREC_FP16_ACC16 || f == PREC_FP8_FAST ? PREC_UNSUPPORTED : PREC_OK));
        if (rc == PREC_OK) {
            prec_cpu_ops.gemm_run(&g, 1);
            prec_cpu_ops.gemm_fetch(&g, NULL, m * n, d);
            double e2 = 0, r2 = 0;
            for (size_t i = 0; i < (size_t)m * n; i++)
                e2 += (d[i] - ref[i]) * (d[i] - ref[i]), r2 += ref[i] * ref[i];
            double err = sqrt(e2 / r2);
            if (!(err <= prec_fmts[f].error_bound) || (f == PREC_FP32 && !(err <= 1e-5)) || (f == PREC_BF16 && !(err <= 1e-2)))
                printf("  %s: error %g, bound %g\n", prec_fmts[f].name, err, prec_fmts[f].error_bound);
            EXPECT(err <= prec_fmts[f].error_bound);
            EXPECT(f != PREC_FP32 || err <= 1e-5);
            EXPECT(f != PREC_BF16 || err <= 1e-2);
            EXPECT(f != PREC_FP64 || err <= 1e-14);
            EXPECT(err > 0 || f == PREC_FP64);
            if (f >= PREC_FP8)
                EXPECT(err > last);             /* fewer bits, larger error: fp8 < nvfp4 < mxfp4 */
            last = f >= PREC_BF16 ? err : last;
        }
        prec_cpu_ops.gemm_release(&g);
    }
    free(a), free(b), free(ref), free(d);
}

static void test_knee(void)
{
    double fpb[12], gf[12], noisy[12];
    struct prec_knee kn;
    for (int i = 0; i < 12; i++) {
        fpb[i] = 0.125 * pow(2, i);                     /* 0.125 .. 256 FLOP/byte */
        gf[i] = fmin(20.0 * fpb[i], 100.0);             /* 20 GB/s, 100 GFLOPS: knee at 5 */
        noisy[i] = gf[i] * (1 - 0.05 * ((i * 7) % 5) / 4.0);   /* up to 5 % slow */
    }
    EXPECT(prec_knee(fpb, gf, 12, &kn) == 0 && !kn.lower_bound);
    EXPECT_NEAR(kn.gbps, 20, 1e-12);
    EXPECT_NEAR(kn.gflops, 100, 1e-12);
    EXPECT_NEAR(kn.flops_per_byte, 5, 1e-12);
    EXPECT(prec_knee(fpb, noisy, 12, &kn) == 0 && fabs(kn.flops_per_byte / 5 - 1) < 0.1);
    EXPECT(prec_knee(fpb, gf, 1, &kn) != 0 && isnan(kn.flops_per_byte));
    EXPECT(prec_knee(fpb, gf, 5, &kn) == 0 && kn.lower_bound);    /* stopped at 2 FLOP/byte: */
    EXPECT_NEAR(kn.flops_per_byte, 2, 1e-12);                       /* the knee is at least that */
    gf[3] = NAN;                                        /* a point that failed is left out */
    EXPECT(prec_knee(fpb, gf, 12, &kn) == 0 && kn.flops_per_byte == 5);
}

/* A small run: records complete, rates from their own samples, GPU items skipped with a reason. */
static void test_run(void)
{
    char err[256];
    cJSON *given = cJSON_Parse("{\"device\": \"cpu\", \"formats\": [\"fp64\", \"fp32\", \"bf16\"], "
        "\"square\": [64, 96], \"model_shapes\": false, \"sweep_size\": \"2MiB\", \"sweep_max_k\": 4, "
        "\"numerics_shape\": [32, 32, 64], \"min_reps\": 2, \"max_reps\": 3, \"sample_s\": 0.002}");
    cJSON *params = param_check("precision", prec_params, given, err, sizeof err);
    EXPECT(params != NULL);
    struct measure_dram dram = { .gbps = 20.0, .kernel = "copy", .precision = "fp64", .stores = "cached",
                                 .working_set_bytes = 3 * 268435456.0, .threads = 2, .source = "bandwidth experiment" };
    measure_dram_set(&dram);                             /* as the bandwidth experiment would leave it */
    cJSON *out = prec_run(params, 30, err, sizeof err);
    EXPECT(cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(out, "info"), "dram"), "gbps")->valuedouble
           == 20.0);                                /* the CPU roofline's memory roof */
    int peaks = 0, gemms = 0, sweeps = 0, knees = 0, numerics = 0;
    for (const cJSON *r = cJSON_GetObjectItem(out, "results")->child; r; r = r->next) {
        const char *series = cJSON_GetObjectItem(r, "series")->valuestring;
        peaks += strcmp(series, "peak") == 0;
        gemms += strcmp(series, "gemm") == 0;
        sweeps += strcmp(series, "sweep") == 0;
        knees += strcmp(series, "knee") == 0;
        numerics += strcmp(series, "numerics") == 0;
        const cJSON *t = cJSON_GetObjectItem(r, "time_s"), *fl = cJSON_GetObjectItem(r, "flops");
        if (t && fl) {
            EXPECT(cJSON_IsTrue(cJSON_GetObjectItem(r, "valid")));
            double lo = 1e300;
            for (const cJSON *s = cJSON_GetObjectItem(r, "samples_s")->child; s; s = s->next)
                lo = fmin(lo, s->valuedouble);
            EXPECT_NEAR(cJSON_GetObjectItem(t, "min")->valuedouble, lo, 0);
            EXPECT_NEAR(cJSON_GetObjectItem(r, "gflops_best")->valuedouble, fl->valuedouble / lo / 1e9, 1e-12);
        }
    }
    char why[256];
    EXPECT(peaks == 4 || peaks == 2);               /* fp64, fp32 x (1, all threads) */
    EXPECT(gemms == 4 + 2 * prec_cpu_has_sbgemm(why, sizeof why));   /* fp64, fp32 (, bf16) x 2 sizes */
    EXPECT(sweeps == 2 * 4 && knees == 2);          /* k = 0, 1, 2, 4 */
    EXPECT(numerics == 3);
    cJSON_Delete(out);
    cJSON_Delete(params);
    cJSON_Delete(given);
}

/* Without a device, every GPU item is skipped with cuda_probe's reason, word for word. */
static void test_no_device(void)
{
    struct cuda_info ci;
    char err[256];
    cuda_probe(&ci);
    if (ci.ndev > 0)
        return;                                     /* test_precision_gpu measures it */
    cJSON *given = cJSON_Parse("{\"device\": \"gpu\", \"formats\": [\"bf16\", \"nvfp4\"]}");
    cJSON *params = param_check("precision", prec_params, given, err, sizeof err);
    cJSON *out = prec_run(params, 5, err, sizeof err);
    int n = 0;
    EXPECT(cJSON_GetArraySize(cJSON_GetObjectItem(out, "results")) == 0);
    for (const cJSON *s = cJSON_GetObjectItem(out, "skipped")->child; s; s = s->next, n++) {
        EXPECT(strncmp(cJSON_GetObjectItem(s, "item")->valuestring, "GPU ", 4) == 0);
        EXPECT_STR(cJSON_GetObjectItem(s, "reason")->valuestring, ci.reason);
    }
    EXPECT(n == 1 + 2 + 2 + 1);                     /* launch, GEMM x 2, numerics x 2, sweep */
    cJSON_Delete(out);
    cJSON_Delete(params);
    cJSON_Delete(given);
}

/* The first k whose rows meet 16 bytes and hold whole scale blocks. */
static void test_sweep_start(void)
{
    static const long want[PREC_NFMT] = { 2, 4, 4, 8, 8, 8, 16, 16, 32, 32 };   /* enum prec_fmt's order */
    for (int f = 0; f < PREC_NFMT; f++)
        EXPECT(prec_sweep_start_k(f) == want[f]);
    EXPECT(prec_sweep_start_k(PREC_NVFP4) * 4 / 8 >= PREC_ROW_ALIGN);       /* FP4 k = 16 was 8 bytes */
}

/* A stand-in for the cuBLASLt backend: 10 TFLOP/s, exact products, and a refusal at k = 64
 * (as cuBLASLt refuses a shape the format's other shapes run with). */
static int fake_setup(struct prec_gemm *g, char *why, size_t whylen)
{
    snprintf(g->algo, sizeof g->algo, "stand-in");
    if (g->k != 64)
        return PREC_OK;
    snprintf(why, whylen, "unsupported on this device (stand-in): CUBLAS_STATUS_INVALID_VALUE (an invalid value)");
    return PREC_UNSUPPORTED;
}

static double fake_run(struct prec_gemm *g, long iters)
{
    return (double)iters * prec_gemm_flops(g->m, g->n, g->k) / 1e13;
}

static int fake_fetch(struct prec_gemm *g, const size_t *idx, int count, double *out)
{
    for (int t = 0; t < count; t++) {
        size_t at = idx ? idx[t] : (size_t)t, i = at % (size_t)g->m, j = at / (size_t)g->m, k = (size_t)g->k;
        out[t] = 0;
        for (size_t p = 0; p < k; p++)
            out[t] += prec_input_as(g->fmt, g->seed_a, i * k + p, k) * prec_input_as(g->fmt, g->seed_b, j * k + p, k);
    }
    return 0;
}

static void fake_release(struct prec_gemm *g) { (void)g; }

static const struct prec_ops fake_gpu = { .device = "gpu", .gemm_formats = 1u << PREC_NVFP4, .gemm_sweep = 1,
    .gemm_setup = fake_setup, .gemm_run = fake_run, .gemm_fetch = fake_fetch, .gemm_release = fake_release };

/* The NVFP4 sweep starts at k = 32 and keeps going past a refused k, which it records as a
 * shape limit, not the format as unsupported. */
static void test_k_sweep_refusal(void)
{
    char err[256];
    cJSON *given = cJSON_Parse("{\"formats\": [\"nvfp4\"], \"sweep_gemm_mn\": 256, \"min_reps\": 2, "
                               "\"max_reps\": 3, \"sample_s\": 0.001}");
    cJSON *params = param_check("precision", prec_params, given, err, sizeof err);
    struct prec_run r = { .params = params, .results = cJSON_CreateArray(), .skipped = cJSON_CreateArray(), .seed = 7 };
    r.fmt_on[PREC_NVFP4] = 1;
    measure_rule_from(&r.rule, params);
    r.t0 = timing_now();
    r.end = r.deadline = r.t0 + 30;
    prec_sweeps(&r, &fake_gpu, 1 << 20);
    long ks[8];
    int n = 0;
    for (const cJSON *x = r.results->child; x; x = x->next)
        if (strcmp(json_str(x, "series", ""), "sweep") == 0 && n < 8) {
            EXPECT(cJSON_IsTrue(cJSON_GetObjectItem(x, "valid")));
            ks[n++] = (long)json_num(x, "k", 0);
        }
    EXPECT(n == 3 && ks[0] == 32 && ks[1] == 128 && ks[2] == 256);
    EXPECT(cJSON_GetArraySize(r.skipped) == 1);
    const cJSON *sk = cJSON_GetArrayItem(r.skipped, 0);
    EXPECT_STR(json_str(sk, "item", ""), "GPU GEMM k-sweep nvfp4, k = 64");
    EXPECT(strncmp(json_str(sk, "reason", ""), "shape not supported: k = 64 (m = n = 256)", 41) == 0);
    EXPECT(strstr(json_str(sk, "reason", ""), "CUBLAS_STATUS_INVALID_VALUE") != NULL);   /* the library's words */
    cJSON_Delete(r.results);
    cJSON_Delete(r.skipped);
    cJSON_Delete(params);
    cJSON_Delete(given);
}

int main(void)
{
    progress_quiet(1);
    test_bf16();
    test_fp16();
    test_small_formats();
    test_blocks();
    test_inputs();
    test_chain();
    test_kernels();
    test_gemm(PREC_FP64, 37, 19, 64);
    test_gemm(PREC_FP32, 37, 19, 64);
    test_gemm(PREC_FP32, 128, 130, 512);
    test_numerics();
    test_knee();
    test_run();
    test_no_device();
    test_sweep_start();
    test_k_sweep_refusal();
    return CHECK_DONE();
}
