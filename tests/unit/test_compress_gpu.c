/* test_compress_gpu.c: the CUDA backend of the compression family on a real device: every
 * scheme's product for batches 1 to 8 against the plain twin (the same packed matrix the CPU
 * kernels are checked on), a wrong output caught, the read kernel's sum, and a small GPU run
 * whose records carry speed-ups. First, without a device, quant_math.h's conversions agree with
 * CUDA's own. Exits 77 (skip) without CUDA in the build or without a device. */
#include <stdlib.h>

#include "config.h"

#include "check.h"
#include "cuda/cuda.h"
#include "exp/compress/compress.h"
#include "util/json.h"
#include "util/progress.h"

#ifdef HAVE_CUDA
static void test_kernels(size_t rows, size_t cols)
{
    char err[256];
    float *x = malloc(QUANT_MAX_BATCH * cols * sizeof *x), *y = malloc(QUANT_MAX_BATCH * rows * sizeof *y);
    for (size_t i = 0; i < QUANT_MAX_BATCH * cols; i++)
        x[i] = (float)quant_gauss(99, i);
    for (int id = 0; id < QUANT_N; id++) {
        struct quant_matrix *m = quant_new(id, rows, cols, 0.7, err, sizeof err);
        quant_pack_gen(m, 5, 2);
        void *h = compress_cuda_ops.open(m, 0, err, sizeof err);
        if (!h)
            printf("  %s: %s\n", quant_schemes[id].name, err);
        EXPECT(h != NULL);
        for (int b = 1; h && b <= QUANT_MAX_BATCH; b++) {
            EXPECT(compress_cuda_ops.gemv(h, x, y, b, 2) > 0);
            double e = compress_check(m, x, y, b, 0);
            printf("  %-10s batch %d: error %.3g (tolerance %g) on %s\n", quant_schemes[id].name, b, e,
                   quant_schemes[id].tolerance, compress_cuda_ops.isa(h));
            EXPECT(e <= quant_schemes[id].tolerance);
            y[rows / 2] += 1e-3f * (fabsf(y[rows / 2]) + 1);
            EXPECT(compress_check(m, x, y, b, 0) > quant_schemes[id].tolerance);
        }
        if (h && id == QUANT_FP32) {
            double s, ref = 0, a = 0;
            EXPECT(compress_cuda_ops.read(h, 3, &s) > 0);
            for (size_t i = 0; i < rows * cols; i++)
                ref += ((float *)m->vals)[i], a += fabs(((float *)m->vals)[i]);
            EXPECT(fabs(s - ref) <= 1e-5 * a);
        }
        if (h)
            compress_cuda_ops.close(h);
        quant_free(m);
    }
    free(x);
    free(y);
}

static void test_run(void)
{
    char err[256];
    cJSON *g = cJSON_Parse("{\"device\": \"gpu\", \"weights_size\": \"256MiB\", \"schemes\": [\"int8\", \"nvfp4\", \"2:4\"],"
                           " \"batches\": [1, 8], \"min_reps\": 3, \"max_reps\": 5}");
    cJSON *params = param_check("compress", compress_params, g, err, sizeof err);
    progress_quiet(1);
    cJSON *out = compress_run(params, 30.0, err, sizeof err);
    const cJSON *res = cJSON_GetObjectItem(out, "results");
    EXPECT(cJSON_GetArraySize(res) == 1 + 5 * 2);
    for (const cJSON *r = res->child; r; r = r->next) {
        EXPECT(cJSON_IsTrue(cJSON_GetObjectItem(r, "valid")));
        if (strcmp(json_str(r, "series", ""), "gemv") == 0)
            printf("  %-8s batch %d: %.1f GB/s, %.2fx FP32\n", json_str(r, "scheme", "?"), (int)json_num(r, "batch", 0),
                   json_num(r, "gbps_median", NAN), json_num(r, "speedup_vs_fp32", NAN));
    }
    cJSON_Delete(out);
    cJSON_Delete(params);
    cJSON_Delete(g);
}
#endif

int main(void)
{
    struct cuda_info ci;
#ifdef HAVE_CUDA
    char agree[256];                    /* host code: runs without a device */
    long bad = compress_cuda_formats_agree(agree, sizeof agree);
    printf("  conversions: %s\n", agree);
    EXPECT(bad == 0);
    if (bad)
        return CHECK_DONE();
#endif
    cuda_probe(&ci);
    if (ci.ndev == 0) {
        printf("skip: %s\n", ci.reason);
        return 77;
    }
#ifdef HAVE_CUDA
    test_kernels(37, 640);
    test_kernels(3000, 4096);
    test_run();
#endif
    return CHECK_DONE();
}
