/* test_model_gpu.c: the GPU calibration path without a GPU: tests/fixtures/model/gpu.json (a
 * GB10 run's model experiment, hand-made) loaded into a predict_calib the way the run fills it
 * (predict_calib_load: the ceilings of info.calibration, then each op's first time), and the
 * predictions checked against figures computed by hand from the fixture: a timed op's own time,
 * an untimed BF16 GEMM from the matmul curve and the BF16 peak, a memory-bound op beyond the
 * curve's end, each validation configuration's step as the sum over its plan; then the exact
 * messages for a damaged calibration. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "exp/train/train.h"
#include "exp/model/model.h"
#include "predict/project.h"
#include "util/fsutil.h"
#include "util/json.h"

/* The fixture's figures (tests/fixtures/model/README.md). */
#define PEAK_FP32 2.4e13
#define PEAK_BF16 8.8e13
#define BW 2.31e11
#define PEAK_GEMM 1099511627776.0   /* 2 x 8192^3: the matmul curve's end, at efficiency 1 */
#define LMHEAD_S 9.0e-6             /* the LM head's three matmuls (fwd, dgrad, wgrad), each */
#define GELU_BWD_S 9.82e-6          /* the largest elementwise op, 786432 bytes */

static cJSON *fixture(void)
{
    const char *src = getenv("SR_SRCDIR");
    char path[1024], err[256], *text;
    size_t n;
    snprintf(path, sizeof path, "%s/tests/fixtures/model/gpu.json", src ? src : ".");
    if (fs_read_file(path, 1 << 22, &text, &n, err, sizeof err) != 0) {
        printf("%s\n", err);
        return NULL;
    }
    cJSON *e = json_parse(path, text, n, err, sizeof err);
    free(text);
    return e;
}

static struct train_config config(int layers)
{
    struct train_config c = { .shape_name = "custom", .prec = NET_FP32 };
    c.shape = (struct net_shape){ .layers = layers, .hidden = 64, .heads = 4, .seq = 32, .vocab = 512, .batch = 8,
                                    .accum = 1 };
    return c;
}

static void ceilings(const struct predict_calib *c)
{
    EXPECT_NEAR(c->peak, PEAK_FP32, 0);
    EXPECT_NEAR(c->peak_dtype[NET_DT_F32], PEAK_FP32, 0);
    EXPECT_NEAR(c->peak_dtype[NET_DT_BF16], PEAK_BF16, 0);
    EXPECT_NEAR(c->peak_dtype[NET_DT_E4M3], 1.7e14, 0);
    EXPECT_NEAR(c->bw, BW, 0);
    EXPECT_NEAR(c->overhead_s, 4.0e-6, 0);
    EXPECT_NEAR(c->q, 2, 0);
    EXPECT(c->ntimed == 37);        /* 34 distinct ops of v1, 3 more (the optimizer's) of v2 */
}

static void ops(const struct predict_calib *c)
{
    /* a timed op: its own time (the LM head's forward matmul of v1) */
    struct net_op lm = { .kind = NET_OP_MATMUL, .which = NET_LIN_LMHEAD, .dtype = NET_DT_F32, .dtype_out = NET_DT_F32,
                         .m = 256, .n = 512, .k = 64, .flops = 16777216, .bytes_read = 720896 };
    EXPECT_NEAR(predict_op_seconds(c, &lm, NULL), LMHEAD_S, 0);
    /* an untimed BF16 GEMM of 2^30 FLOPs: 6/16 of the way in log x from the curve's last timed
     * point (2^24 FLOPs at 2^24 / 9 us / the FP32 peak) to its end (2 x 8192^3 at 1), against
     * the BF16 peak */
    struct net_op mm = { .kind = NET_OP_MATMUL, .dtype = NET_DT_BF16, .dtype_out = NET_DT_BF16, .m = 1024, .n = 1024,
                         .k = 512, .flops = 1073741824, .bytes_read = 4194304 };
    double eta0 = 16777216 / LMHEAD_S / PEAK_FP32, eta = pow(eta0, 1 - 6.0 / 16);
    EXPECT_NEAR(log(16777216 / 1073741824.0) / log(16777216 / PEAK_GEMM), 6.0 / 16, 1e-15);
    EXPECT_NEAR(predict_op_seconds(c, &mm, NULL), 1073741824 / (eta * PEAK_BF16), 1e-18);
    /* a GELU backward 4x the largest timed: flat beyond the curve's end, at the bandwidth */
    struct net_op gelu = { .kind = NET_OP_GELU_BWD, .dtype = NET_DT_F32, .dtype_out = NET_DT_F32, .m = 1024, .n = 1024,
                           .k = 1, .flops = 3407872, .bytes_read = 4 * 786432 };
    double eta_g = 786432 / GELU_BWD_S / BW;
    EXPECT_NEAR(predict_op_seconds(c, &gelu, NULL), 4 * 786432 / (eta_g * BW), 1e-18);
}

/* Each validation configuration's predicted step: the sum over its plan of the fixture's op
 * times (summed by hand from the records: v1 34 distinct ops, 57 in its plan), and the record's. */
static void steps(const struct predict_calib *c, const cJSON *e)
{
    static const struct { int layers; double sum; } want[] = { { 2, 4.3974e-4 }, { 4, 7.7712e-4 } };
    double by_class[NET_NCLASSES];
    const cJSON *r;
    int seen = 0;
    for (int i = 0; i < 2; i++) {
        struct train_config cfg = config(want[i].layers);
        double t = predict_step_seconds(c, &cfg.shape, cfg.prec, by_class), classes = 0;
        EXPECT_NEAR(t, want[i].sum, 1e-15);
        for (int k = 0; k < NET_NCLASSES; k++)
            classes += by_class[k];
        EXPECT_NEAR(classes, t, 1e-15);
        cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(e, "results")) {
            if (strcmp(json_str(r, "series", ""), "validation") != 0 || json_num(r, "layers", 0) != want[i].layers)
                continue;
            EXPECT_NEAR(json_num(r, "predicted_s", 0), t, 1e-15);
            const cJSON *pc = cJSON_GetObjectItemCaseSensitive(r, "predicted_by_class_s");
            for (int k = 0; k < NET_NCLASSES; k++)
                EXPECT_NEAR(json_num(pc, net_class_names[k], 0), by_class[k], 1e-12);
            seen++;
        }
    }
    EXPECT(seen == 2);
}

static void damaged(cJSON *e)
{
    struct predict_calib c;
    char err[300];
    cJSON *cal = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(e, "info"), "calibration");
    cJSON *first = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(e, "results"), 0);
    cJSON_ReplaceItemInObject(first, "kind", cJSON_CreateString("matmul_sideways"));
    EXPECT(predict_calib_load(e, &c, err, sizeof err) == -1);
    EXPECT_STR(err, "a calibration record names an unknown op (kind 'matmul_sideways', dtype 'fp32') or has no median_s");
    cJSON_DeleteItemFromObject(cJSON_GetObjectItemCaseSensitive(cal, "peak_flops"), "fp32");
    EXPECT(predict_calib_load(e, &c, err, sizeof err) == -1);
    EXPECT_STR(err, "info.calibration.peak_flops.fp32 is missing");
    cJSON_DeleteItemFromObject(cal, "bandwidth_Bps");
    EXPECT(predict_calib_load(e, &c, err, sizeof err) == -1);
    EXPECT_STR(err, "info.calibration.bandwidth_Bps is missing");
}

int main(void)
{
    cJSON *e = fixture();
    struct predict_calib c;
    char err[300] = "";
    EXPECT(e != NULL);
    if (!e)
        return CHECK_DONE();
    EXPECT(predict_calib_load(e, &c, err, sizeof err) == 0);
    EXPECT_STR(err, "");
    ceilings(&c);
    ops(&c);
    steps(&c, e);
    predict_calib_free(&c);
    damaged(e);
    cJSON_Delete(e);
    return CHECK_DONE();
}
