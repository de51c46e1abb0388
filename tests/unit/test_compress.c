/* test_compress.c: every CPU kernel of the compression family (AVX-512 and portable decoders)
 * against the plain twin for batches 1 to 8, on shapes with partial tiles and odd row counts; a
 * wrong output must be caught; packing from the generator equals packing from an array;
 * each scheme's layer error stays within its stated bound and the schemes rank as they
 * should; and one small run whose records follow from their own samples. */
#include <stdlib.h>

#include "check.h"
#include "exp/bandwidth/bandwidth.h"
#include "exp/compress/compress.h"
#include "util/machine.h"
#include "util/json.h"
#include "util/progress.h"

static float *inputs(size_t n)
{
    float *x = malloc(n * sizeof *x);
    for (size_t i = 0; i < n; i++)
        x[i] = (float)quant_gauss(99, i);
    return x;
}

/* isa: the widest kernels to use ("portable", "avx2", "avx512"); a CPU without them skips. */
static void test_kernels(size_t rows, size_t cols, const char *isa)
{
    char err[256];
    if (quant_cpu_isa(isa) != 0) {
        printf("  %s kernels: not on this CPU, not tested here\n", isa);
        quant_cpu_isa("auto");
        return;
    }
    float *x = inputs(QUANT_MAX_BATCH * cols), *y = malloc(QUANT_MAX_BATCH * rows * sizeof *y);
    for (int id = 0; id < QUANT_N; id++) {
        struct quant_matrix *m = quant_new(id, rows, cols, 0.7, err, sizeof err);
        EXPECT(m != NULL);
        quant_pack_gen(m, 5, 2);
        void *h = compress_cpu_ops.open(m, 2, err, sizeof err);
        for (int b = 1; b <= QUANT_MAX_BATCH; b++) {
            EXPECT(compress_cpu_ops.gemv(h, x, y, b, 2) >= 0);
            double e = compress_check(m, x, y, b, 0);
            if (!(e <= quant_schemes[id].tolerance))
                printf("  %s batch %d %zux%zu (%s): error %g\n", quant_schemes[id].name, b, rows, cols, isa, e);
            EXPECT(e <= quant_schemes[id].tolerance);
        }
        y[rows + rows / 2] += 1e-3f * (fabsf(y[rows + rows / 2]) + 1);      /* a wrong output is caught */
        EXPECT(compress_check(m, x, y, 3, 0) > quant_schemes[id].tolerance);
        if (id == QUANT_FP32) {
            double s;
            EXPECT(compress_cpu_ops.read(h, 2, &s) >= 0);
            double ref = 0, a = 0;
            for (size_t i = 0; i < rows * cols; i++) {
                ref += ((float *)m->vals)[i];
                a += fabs(((float *)m->vals)[i]);
            }
            EXPECT(fabs(s - ref) <= 1e-5 * a);
        }
        compress_cpu_ops.close(h);
        quant_free(m);
    }
    quant_cpu_isa("auto");
    free(x);
    free(y);
}

static void test_pack_paths(void)
{
    char err[256];
    size_t rows = 9, cols = 256;
    float *w = malloc(rows * cols * sizeof *w);
    for (size_t i = 0; i < rows * cols; i++)
        w[i] = quant_weight(5, i);
    for (int id = 0; id < QUANT_N; id++) {
        struct quant_matrix *a = quant_new(id, rows, cols, 0.5, err, sizeof err), *b = quant_new(id, rows, cols, 0.5, err, sizeof err);
        quant_pack_gen(a, 5, 2);
        quant_pack(b, w, 1);
        int same = a->tensor_scale == b->tensor_scale && memcmp(a->vals, b->vals, a->bytes[0]) == 0
                   && (!a->scales || memcmp(a->scales, b->scales, a->bytes[1]) == 0)
                   && (!a->idx || memcmp(a->idx, b->idx, a->bytes[2]) == 0);
        if (!same)
            printf("  %s: packing from the generator and from an array differ\n", quant_schemes[id].name);
        EXPECT(same);
        quant_free(a);
        quant_free(b);
    }
    free(w);
}

/* A NaN weight: the FP8 packer marks the matrix, and every kernel path gives a NaN for its row
 * (the fast E4M3 decoders check for NaN codes only in marked matrices). */
static void test_fp8_nan(void)
{
    char err[256];
    size_t rows = 6, cols = 128;
    float *w = malloc(rows * cols * sizeof *w), *x = inputs(2 * cols), y[2 * 6];
    for (size_t i = 0; i < rows * cols; i++)
        w[i] = quant_weight(3, i);
    struct quant_matrix *m = quant_new(QUANT_FP8, rows, cols, 0, err, sizeof err);
    quant_pack(m, w, 2);
    EXPECT(m->nan_codes == 0);
    w[3 * cols + 17] = NAN;
    quant_pack(m, w, 2);
    EXPECT(m->nan_codes == 1);
    for (int generic = 0; generic <= 1; generic++) {
        compress_cpu_generic(generic);
        void *h = compress_cpu_ops.open(m, 2, err, sizeof err);
        for (int b = 1; b <= 2; b++) {
            compress_cpu_ops.gemv(h, x, y, b, 1);
            for (size_t r = 0; r < rows; r++) {
                int want_nan = r == 3;
                for (int k = 0; k < b; k++)
                    EXPECT((isnan(y[(size_t)k * rows + r]) != 0) == want_nan);
            }
        }
        compress_cpu_ops.close(h);
    }
    compress_cpu_generic(0);
    quant_free(m);
    free(w);
    free(x);
}

/* Errors against FP64: each within its bound; more bits, less error. */
static void test_layer_errors(void)
{
    struct compress_variant v[QUANT_N + 2];
    int n = 0;
    for (int id = 0; id < QUANT_N; id++) {
        v[n] = (struct compress_variant){ id, id == QUANT_CSR ? 0.5 : id == QUANT_24 ? 0.5 : 0, "" };
        snprintf(v[n].name, sizeof v[n].name, "%s", quant_schemes[id].name);
        n++;
    }
    v[n] = (struct compress_variant){ QUANT_CSR, 0.9, "prune-90" };
    n++;
    cJSON *res = cJSON_CreateArray(), *skipped = cJSON_CreateArray();
    compress_layer_errors(v, n, 256, 4096, 4, res, skipped);
    EXPECT(cJSON_GetArraySize(res) == n && cJSON_GetArraySize(skipped) == 0);
    double e[QUANT_N + 2];
    int i = 0;
    for (const cJSON *r = res->child; r; r = r->next, i++) {
        e[i] = json_num(r, "rel_error", NAN);
        printf("  %-10s error %.4f (bound %.4f), weights %.4f\n", json_str(r, "scheme", "?"), e[i],
               json_num(r, "error_bound", NAN), json_num(r, "weight_rel_error", NAN));
        EXPECT(cJSON_IsTrue(cJSON_GetObjectItem(r, "valid")));
        EXPECT(cJSON_IsTrue(cJSON_GetObjectItem(r, "within_bound")));
        EXPECT(e[i] > 0.4 * json_num(r, "error_bound", NAN) || i == QUANT_FP32);   /* bounds are not loose */
    }
    EXPECT(e[QUANT_FP32] < 1e-6 && e[QUANT_BF16] < e[QUANT_INT8] && e[QUANT_INT8] < e[QUANT_FP8]);
    EXPECT(e[QUANT_FP8] < e[QUANT_INT4_G32] && e[QUANT_INT4_G32] < e[QUANT_INT4_G128]);
    EXPECT(e[QUANT_NVFP4] < e[QUANT_MXFP4] && e[QUANT_CSR] < e[QUANT_N]);
    cJSON_Delete(res);
    cJSON_Delete(skipped);
}

static void test_bounds(void)
{
    struct compress_variant v = { QUANT_CSR, 0.5, "prune-50" };
    EXPECT_NEAR(compress_error_bound(&v), 1.3 * sqrt(0.5 - 2 * 0.6744897501960817 * 0.3177765727465479), 1e-6);
    v.sparsity = 0.9;
    EXPECT(compress_error_bound(&v) > 0.7 && compress_error_bound(&v) < 1.3);
}

static const cJSON *find(const cJSON *results, const char *series, const char *scheme, int batch)
{
    for (const cJSON *r = results->child; r; r = r->next)
        if (strcmp(json_str(r, "series", ""), series) == 0 && strcmp(json_str(r, "scheme", ""), scheme) == 0
            && (batch < 0 || (int)json_num(r, "batch", -1) == batch))
            return r;
    return NULL;
}

static void test_run(void)
{
    char err[256];
    const char *given = "{\"weights_size\": \"8MiB\", \"cols\": 1536, \"batches\": [1, 3, 8], \"sparsities\": [0.75],"
                        " \"layer_rows\": 64, \"model\": \"none\", \"min_reps\": 3, \"max_reps\": 5,"
                        " \"sample_s\": 0.001}";
    cJSON *g = cJSON_Parse(given), *params = param_check("compress", compress_params, g, err, sizeof err);
    EXPECT(params != NULL);
    progress_quiet(1);
    /* the machine's DRAM figure as the bandwidth experiment would have left it (measuring it
     * here would stream gigabytes on a machine with large caches) */
    struct measure_dram dram = { .gbps = 20.0, .kernel = "copy", .precision = "fp64", .stores = "cached",
                                 .working_set_bytes = 3 * 268435456.0, .threads = 2, .source = "bandwidth experiment" };
    measure_dram_set(&dram);
    /* a cap, not a duration: under an emulator (check-arm64) the same work takes ten times longer */
    cJSON *out = compress_run(params, machine_emulated() ? 120.0 : 20.0, err, sizeof err);
    const cJSON *res = cJSON_GetObjectItem(out, "results"), *info = cJSON_GetObjectItem(out, "info");
    EXPECT(cJSON_GetArraySize(cJSON_GetObjectItem(info, "schemes")) == 10);
    EXPECT(cJSON_GetArraySize(res) == 1 + 10 * 3 + 10);         /* read, products, layer errors */
    const cJSON *f32 = find(res, "gemv", "fp32", 3), *i8 = find(res, "gemv", "int8", 3), *rd = find(res, "read", "fp32", 0);
    EXPECT(f32 && i8 && rd && find(res, "gemv", "prune-75", 1) && find(res, "layer_error", "2:4", -1));
    if (f32 && i8 && rd) {
        const cJSON *t = cJSON_GetObjectItem(i8, "time_s");
        EXPECT(cJSON_IsTrue(cJSON_GetObjectItem(i8, "valid")));
        EXPECT_NEAR(json_num(i8, "gbps_median", 0), json_num(i8, "bytes", 0) / json_num(t, "median", 0) / 1e9, 1e-9);
        EXPECT_NEAR(json_num(i8, "speedup_vs_fp32", 0),
                    json_num(cJSON_GetObjectItem(f32, "time_s"), "median", 0) / json_num(t, "median", 0), 1e-9);
        /* 8 MiB is far from DRAM-sized (4x the caches, 256 MiB at least): it may stream from the
         * caches, so no record is a fraction of a read (test_fractions checks those that are) */
        EXPECT(json_num(info, "dram_sized_bytes", 0) > json_num(info, "fp32_bytes", INFINITY));
        EXPECT(strstr(json_str(info, "fraction_rule", ""), "only when its matrix is DRAM-sized") != NULL);
        EXPECT(!cJSON_GetObjectItem(i8, "read_fraction_best") && !cJSON_GetObjectItem(f32, "read_fraction_median"));
        EXPECT(!cJSON_GetObjectItem(i8, "read_fraction_dram") && !cJSON_GetObjectItem(rd, "read_fraction_dram"));
        const cJSON *f8 = find(res, "gemv", "fp32", 8);     /* the chunked kernel, checked against the twin */
        EXPECT(f8 && cJSON_IsTrue(cJSON_GetObjectItem(f8, "valid")) && json_num(f8, "max_rel_error", 1) <= json_num(f8, "tolerance", 0));
        /* dense FP32 against the read interleaved with it: pairs, and a fraction only where it is a ceiling */
        const cJSON *adj = cJSON_GetObjectItem(f32, "read_adjacent");
        EXPECT(adj && json_num(adj, "pairs", 0) >= 7 && json_num(adj, "gbps_median", 0) > 0);
        double over = json_num(adj, "product_over_read", NAN);
        if (over <= 1.05)
            EXPECT(json_num(f32, "read_fraction_adjacent", NAN) == over);
        else
            EXPECT(cJSON_GetObjectItem(f32, "read_fraction_adjacent") == NULL && cJSON_GetObjectItem(adj, "not_a_ceiling"));
        EXPECT(find(res, "gemv", "int8", 3) && !cJSON_GetObjectItem(i8, "read_adjacent"));      /* FP32 only */
        if (strcmp(json_str(f32, "bound", ""), "mixed") == 0 && cJSON_GetObjectItem(f32, "fraction_if_serial")) {
            double c = 4 * json_num(cJSON_GetObjectItem(f32, "cache"), "gweights_per_s", 0), r = json_num(adj, "gbps_median", 0);
            EXPECT_NEAR(json_num(f32, "fraction_if_serial", 0), c / (c + r), 1e-12);
            EXPECT_NEAR(json_num(f32, "bound_gflops", 0), 2 * 3 * c / 4, 1e-9);
        }
        const cJSON *d = cJSON_GetObjectItem(info, "dram");
        EXPECT(json_num(d, "gbps", 0) == 20.0);
        EXPECT_STR(json_str(d, "kernel", ""), "copy");
        EXPECT_STR(json_str(d, "source", ""), "bandwidth experiment");
        EXPECT(strstr(json_str(d, "rule", ""), "highest best-repetition rate") != NULL);
        /* 8 MiB of FP32 at 1536 columns (a whole and a part chunk of the batch-8 kernel): 1365 rows */
        EXPECT_NEAR(json_num(i8, "bytes", 0), 1365 * 1536 + 1365 * 4, 0);
        EXPECT_NEAR(json_num(i8, "ideal_speedup_vs_fp32", 0), 4.0 * 1365 * 1536 / (1365 * 1536 + 1365 * 4), 1e-12);
    }
    cJSON_Delete(out);
    cJSON *gpu = cJSON_Parse("{\"device\": \"gpu\", \"schemes\": [\"int8\"]}");
    cJSON *gp = param_check("compress", compress_params, gpu, err, sizeof err);
    out = compress_run(gp, 5.0, err, sizeof err);
    EXPECT(cJSON_GetArraySize(cJSON_GetObjectItem(out, "results")) > 0
           || cJSON_GetArraySize(cJSON_GetObjectItem(out, "skipped")) == 3);    /* fp32, bf16, int8 */
    cJSON_Delete(out);
    cJSON_Delete(g);
    cJSON_Delete(params);
    cJSON_Delete(gpu);
    cJSON_Delete(gp);
}

/* A record of a stream of `bytes` at median and best GB/s, timed. */
static cJSON *stream_rec(cJSON *a, const char *series, const char *scheme, int batch, double bytes, double med, double best)
{
    cJSON *r = cJSON_CreateObject(), *t = cJSON_AddObjectToObject(r, "time_s");
    cJSON_AddStringToObject(r, "series", series);
    cJSON_AddStringToObject(r, "scheme", scheme);
    cJSON_AddNumberToObject(r, "batch", batch);
    cJSON_AddNumberToObject(r, "bytes", bytes);
    cJSON_AddNumberToObject(r, "gbps_median", med);
    cJSON_AddNumberToObject(r, "gbps_best", best);
    cJSON_AddNumberToObject(t, "median", bytes / med / 1e9);
    cJSON_AddBoolToObject(r, "valid", 1);
    cJSON_AddItemToArray(a, r);
    return r;
}

/* Fractions of a read only for DRAM-sized matrices (1000 bytes here, 900 the bound): a smaller
 * int8 matrix streaming faster than the read (in part from the caches) gets none and does not
 * unseat the read; a DRAM-sized product more than 5 % faster than the read by best repetition
 * alone does. The DRAM read ceiling likewise: raised by, and a fraction of, DRAM-sized reads only. */
static void test_fractions(void)
{
    for (int beat = 0; beat < 2; beat++) {
        cJSON *a = cJSON_CreateArray();
        const cJSON *rd = stream_rec(a, "read", "fp32", 0, 1000, 50, 52);
        const cJSON *f1 = stream_rec(a, "gemv", "fp32", 1, 1000, 45, 46);
        stream_rec(a, "gemv", "fp32", 4, 1000, 50, beat ? 55 : 54);     /* best 55 > 1.05 x 52; median within */
        const cJSON *i8 = stream_rec(a, "gemv", "int8", 1, 250, 60, 61);
        compress_speedups(a, 900);
        EXPECT(!cJSON_GetObjectItem(i8, "read_fraction_best") && !cJSON_GetObjectItem(i8, "read_fraction_median"));
        EXPECT_NEAR(json_num(i8, "speedup_vs_fp32", 0), (1000 / 45.0) / (250 / 60.0), 1e-12);   /* speed-ups for all */
        if (beat) {
            EXPECT(strstr(json_str(rd, "not_a_ceiling", ""), "fp32 at batch 4 streamed this matrix at 50 GB/s median, "
                          "55 best, 1.06x this read") != NULL);
            EXPECT(!cJSON_GetObjectItem(f1, "read_fraction_best"));
        } else {
            EXPECT(!cJSON_GetObjectItem(rd, "not_a_ceiling"));
            EXPECT_NEAR(json_num(f1, "read_fraction_best", 0), 46 / 52.0, 1e-12);
            EXPECT_NEAR(json_num(f1, "read_fraction_median", 0), 45 / 50.0, 1e-12);
        }
        struct measure_dram dram = { .gbps = 80.0, .read_gbps = 40.0, .kernel = "copy", .precision = "fp64",
                                     .stores = "non-temporal", .working_set_bytes = 3000, .threads = 2,
                                     .source = "bandwidth experiment" };
        measure_dram_set(&dram);
        cJSON *info = cJSON_CreateObject(), *skipped = cJSON_CreateArray();
        compress_dram(a, info, skipped, 900);
        /* the read ceiling raised to the fastest DRAM-sized stream (fp32 batch 4), not to int8's 61 */
        double ceiling = beat ? 55 : 54;
        EXPECT_NEAR(json_num(cJSON_GetObjectItem(info, "dram"), "read_gbps", 0), ceiling, 1e-12);
        EXPECT_NEAR(json_num(rd, "read_fraction_dram", 0), 52 / ceiling, 1e-12);
        EXPECT_NEAR(json_num(f1, "read_fraction_dram", 0), 46 / ceiling, 1e-12);
        EXPECT(!cJSON_GetObjectItem(i8, "read_fraction_dram"));
        cJSON_Delete(a);
        cJSON_Delete(info);
        cJSON_Delete(skipped);
    }
}

int main(void)
{
    const char *isas[] = { "avx512", "avx2", "portable" };
    for (int i = 0; i < 3; i++) {
        test_kernels(37, 640, isas[i]);     /* a partial tile; rows not a multiple of the threads */
        test_kernels(5, 8 * 128, isas[i]);
        test_kernels(9, 12 * 128, isas[i]);  /* the block kernels' column chunks: a whole one and a part */
    }
    test_pack_paths();
    test_fp8_nan();
    test_bounds();
    test_layer_errors();
    test_fractions();
    test_run();
    return CHECK_DONE();
}
