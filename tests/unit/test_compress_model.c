/* test_compress_model.c: the compression experiment's accuracy on the run's largest trained model
 * (measure/trained.h): without a trained model the skipped item says so in exact words; the
 * service keeps the largest model (FP32-trained before BF16 at equal size); a model the training
 * experiment trained is the one measured, its size and source in every record; FP32 "quantization"
 * gives exactly the unquantized loss; on a model trained near its entropy bound int4 costs more than
 * BF16 beyond the noise, BF16 no more than FP32 within it, heavy pruning clearly more; model =
 * "tiny" trains one in the compression experiment, and its records say so. */
#include <stdlib.h>

#include "check.h"
#include "exp/compress/compress.h"
#include "exp/train/train.h"
#include "measure/trained.h"
#include "util/json.h"
#include "util/machine.h"
#include "util/progress.h"

static cJSON *params(const char *what, const struct param *table, const char *json)
{
    char err[256];
    cJSON *g = cJSON_Parse(json), *p = param_check(what, table, g, err, sizeof err);
    if (!p)
        printf("  %s\n", err);
    cJSON_Delete(g);
    return p;
}

static const cJSON *find(const cJSON *results, const char *scheme)
{
    for (const cJSON *r = results->child; r; r = r->next)
        if (strcmp(json_str(r, "series", ""), "model_loss") == 0 && strcmp(json_str(r, "scheme", ""), scheme) == 0)
            return r;
    return NULL;
}

static void test_no_model(void)
{
    struct compress_variant v[COMPRESS_MAX_VARIANTS];
    cJSON *p = params("compress", compress_params, "{\"schemes\": [\"int8\"]}");
    cJSON *res = cJSON_CreateArray(), *sk = cJSON_CreateArray();
    measure_trained_clear();
    EXPECT_STR(param_str(p, "model"), "run");       /* the default */
    compress_model_losses(p, v, compress_variants(p, v, COMPRESS_MAX_VARIANTS), 30, res, sk);
    EXPECT(cJSON_GetArraySize(res) == 0 && cJSON_GetArraySize(sk) == 1);
    EXPECT_STR(json_str(cJSON_GetArrayItem(sk, 0), "item", ""), "held-out loss of the trained model");
    EXPECT_STR(json_str(cJSON_GetArrayItem(sk, 0), "reason", ""),
               "not measured: this run trained no model before this experiment (the training experiment, on the CPU, "
               "before the compression experiment in the scenario, trains one; model = \"tiny\" or \"small\" trains "
               "one here)");
    cJSON_Delete(res);
    cJSON_Delete(sk);
    cJSON_Delete(p);
}

static void test_keeps_largest(void)
{
    float w[64] = { 1 }, w2[64] = { 2 }, w3[64] = { 3 };
    struct measure_trained a = { .shape_name = "a", .precision = "bf16", .device = "cpu", .params = 32, .steps = 5,
                                 .steps_done = 5, .weights = w }, k;
    measure_trained_clear();
    EXPECT(measure_trained(&k) == -1);
    EXPECT(measure_trained_offer(&a) == 1);
    struct measure_trained b = a;                   /* as large, trained in FP32: preferred */
    b.shape_name = "b";
    b.precision = "fp32";
    b.weights = w2;
    EXPECT(measure_trained_offer(&b) == 1);
    struct measure_trained c = a;                   /* as large, BF16 again: not */
    c.weights = w3;
    EXPECT(measure_trained_offer(&c) == 0);
    c.params = 16;                                  /* smaller: not */
    EXPECT(measure_trained_offer(&c) == 0);
    c.params = 64;                                  /* larger, but never trained: not */
    c.steps_done = 0;
    EXPECT(measure_trained_offer(&c) == 0);
    EXPECT(measure_trained(&k) == 0);
    EXPECT_STR(k.shape_name, "b");
    EXPECT(k.weights != w2 && k.weights[0] == 2 && k.params == 32);
    c.steps_done = 1;                               /* larger: kept */
    EXPECT(measure_trained_offer(&c) == 1);
    EXPECT(measure_trained(&k) == 0 && k.params == 64 && k.weights[0] == 3);
    measure_trained_clear();
}

/* The training experiment trains a small model near the data's entropy bound; the compression
 * experiment measures it. */
static void test_trained(void)
{
    char err[256];
    double cap = machine_emulated() ? 600 : 120;
    cJSON *tp = params("train", train_params, "{\"shapes\": \"tiny\", \"precisions\": \"fp32\", "
                       "\"vocab\": 32, \"seq\": 32, \"steps\": 150, \"lr\": 0.01, \"validate\": false}");
    measure_trained_clear();
    cJSON *out = train_run(tp, cap, err, sizeof err);
    EXPECT(out != NULL);
    const cJSON *tr = cJSON_GetArrayItem(cJSON_GetObjectItem(out, "results"), 0);
    struct measure_trained k;
    EXPECT(measure_trained(&k) == 0);
    EXPECT_STR(k.precision, "fp32");
    EXPECT_STR(k.shape_name, "custom");
    EXPECT(k.params == json_num(tr, "params", -1) && k.steps_done == (int)json_num(tr, "steps_done", -1));
    EXPECT(k.loss_final == json_num(tr, "loss_final", -1));

    struct compress_variant v[COMPRESS_MAX_VARIANTS];
    cJSON *p = params("compress", compress_params, "{\"schemes\": [\"int4-g32\", \"prune\"], \"sparsities\": 0.9}");
    cJSON *res = cJSON_CreateArray(), *sk = cJSON_CreateArray();
    compress_model_losses(p, v, compress_variants(p, v, COMPRESS_MAX_VARIANTS), cap, res, sk);
    EXPECT(cJSON_GetArraySize(res) == 4 && cJSON_GetArraySize(sk) == 0);
    const cJSON *f32 = find(res, "fp32"), *b16 = find(res, "bf16"), *i4 = find(res, "int4-g32"), *p90 = find(res, "prune-90");
    EXPECT(f32 && b16 && i4 && p90);
    if (f32 && b16 && i4 && p90) {
        for (const cJSON *r = res->child; r; r = r->next) {
            EXPECT_STR(json_str(r, "model_source", ""), "the training experiment of this run");
            EXPECT(json_num(r, "params", -1) == k.params);
            EXPECT_STR(json_str(r, "model_precision", ""), "fp32");
            EXPECT(json_num(r, "loss_unquantized", -1) == json_num(f32, "loss_heldout", -2));
            EXPECT(json_num(r, "loss_change", -1) == json_num(r, "loss_heldout", 0) - json_num(r, "loss_unquantized", 0));
            EXPECT(json_num(r, "loss_over_bound", -1) == json_num(r, "loss_heldout", 0) - k.entropy);
        }
        double near = json_num(f32, "loss_over_bound", 1);
        printf("  trained to %.4f nats over the bound %.4f (final training loss %.4f); changes: bf16 %+.2e +- %.1e, "
               "int4-g32 %+.2e +- %.1e, prune-90 %+.2e +- %.1e over %g tokens\n", near, k.entropy, k.loss_final,
               json_num(b16, "loss_change", 0), json_num(b16, "loss_change_se", 0), json_num(i4, "loss_change", 0),
               json_num(i4, "loss_change_se", 0), json_num(p90, "loss_change", 0), json_num(p90, "loss_change_se", 0),
               json_num(f32, "eval_tokens", 0));
        EXPECT(near < 0.1);                             /* near its bound */
        EXPECT(json_num(f32, "loss_change", -1) == 0);  /* FP32 stores the weights exactly */
        /* near the bound every perturbation costs: int4 > bf16 beyond the noise, bf16 >= fp32 within it */
        double cb = json_num(b16, "loss_change", NAN), sb = json_num(b16, "loss_change_se", NAN);
        double ci = json_num(i4, "loss_change", NAN), si = json_num(i4, "loss_change_se", NAN);
        EXPECT(sb > 0 && si > 0 && json_num(f32, "loss_change_se", -1) == 0);
        EXPECT(cb >= -3 * sb && fabs(cb) < 1e-4);
        EXPECT(ci > cb + 2 * si && ci < 1e-2);
        EXPECT(json_num(p90, "loss_change", 0) > 10 * fabs(json_num(b16, "loss_change", 1)));
        EXPECT(json_num(p90, "loss_change", 0) > fabs(json_num(i4, "loss_change", 1)));
    }
    cJSON_Delete(res);
    cJSON_Delete(sk);
    cJSON_Delete(p);
    cJSON_Delete(out);
    cJSON_Delete(tp);
    measure_trained_clear();
}

/* model = "tiny": a model trained here, and every record says so. */
static void test_here(void)
{
    struct compress_variant v[COMPRESS_MAX_VARIANTS];
    cJSON *p = params("compress", compress_params, "{\"schemes\": [\"int8\"], \"model\": \"tiny\", \"model_steps\": 5}");
    cJSON *res = cJSON_CreateArray(), *sk = cJSON_CreateArray();
    measure_trained_clear();
    compress_model_losses(p, v, compress_variants(p, v, COMPRESS_MAX_VARIANTS), machine_emulated() ? 300 : 60, res, sk);
    EXPECT(cJSON_GetArraySize(res) == 3 && cJSON_GetArraySize(sk) == 0);
    for (const cJSON *r = res->child; r; r = r->next) {
        EXPECT_STR(json_str(r, "model_source", ""), "the compression experiment, for this measurement");
        EXPECT_STR(json_str(r, "shape", ""), "tiny");
        EXPECT(json_num(r, "params", -1) == 136960 && json_num(r, "steps_done", -1) == 5);
    }
    EXPECT(measure_trained(&(struct measure_trained){ 0 }) == -1);     /* nothing offered to the run */
    cJSON_Delete(res);
    cJSON_Delete(sk);
    cJSON_Delete(p);
}

int main(void)
{
    progress_quiet(1);
    test_no_model();
    test_keeps_largest();
    test_trained();
    test_here();
    return CHECK_DONE();
}
