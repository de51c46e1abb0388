/* test_model.c: the model experiment's rule for disturbed training steps (model_disturbed):
 * a steady series keeps every sample, one burst is one sample, and a configuration whose steps
 * jump tenfold for most of its rounds (another process on the machine) is flagged as not one
 * population; its rule for drift (model_drift): a gradual slowdown injected into a steady series
 * (48 to 57 ms over the rounds, the run that raised a validation's max error from 3 to 15 %) is
 * caught, and so is a speed-up, while noise, one burst and a trend under 5 % are not; the matmul
 * ceiling is never below a matmul op timed in the same run (model_recheck_peak: measured again at
 * the op's shape, the curves rebuilt, every matmul efficiency at most 1); and the held-out list is
 * checked before anything runs; a held-out configuration whose ops, timed again, cost a step more
 * or less than they did is the machine moving (model_ref_moved). */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "exp/model/model.h"
#include "exp/model/model_int.h"
#include "util/json.h"
#include "util/param.h"

static void test_disturbed(void)
{
    double steady[11] = { 0.100, 0.102, 0.099, 0.101, 0.103, 0.100, 0.098, 0.104, 0.101, 0.100, 0.102 };
    double burst[11] = { 0.100, 0.102, 0.099, 0.101, 0.45, 0.100, 0.098, 0.104, 0.101, 0.100, 0.102 };
    double jumps[11] = { 0.055, 0.056, 0.55, 0.71, 0.88, 0.054, 0.62, 0.80, 0.055, 0.66, 0.59 };
    int bad[11];
    double limit;
    EXPECT(model_disturbed(steady, 11, bad, &limit) == 0);
    EXPECT(limit > 0.104 && limit < 0.14);
    EXPECT(model_disturbed(burst, 11, bad, &limit) == 1 && bad[4] == 1 && bad[3] == 0);
    int n = model_disturbed(jumps, 11, bad, &limit);
    EXPECT(n == 7 && 3 * n > 11);           /* not one population: measured again or excluded */
    EXPECT(bad[2] && !bad[0] && limit < 0.1);
}

/* A steady series with a little noise (about 1 %, no trend of its own), slowed by `slope` of
 * the first step per round. */
static void injected(double *s, int n, double slope)
{
    static const double noise[11] = { 0.004, -0.006, 0.002, 0.008, -0.003, 0.0, -0.007, 0.005, -0.002, 0.006, -0.004 };
    for (int r = 0; r < n; r++)
        s[r] = 0.048 * (1 + noise[r] + slope * r);
}

static void test_drift(void)
{
    double s[11], drift;
    injected(s, 11, 0);
    EXPECT(model_drift(s, 11, &drift) == 0 && fabs(drift) < 0.02);
    injected(s, 11, 0.01875);                   /* 48 ms to 57 ms over 11 rounds */
    int bad[11];
    double limit;
    EXPECT(model_disturbed(s, 11, bad, &limit) == 0);      /* no round is an outlier ... */
    EXPECT(model_drift(s, 11, &drift) == 1);               /* ... the trend is what is wrong */
    EXPECT(drift > 0.15 && drift < 0.22);
    injected(s, 11, -0.01);                     /* a machine getting quieter: 10 % faster */
    EXPECT(model_drift(s, 11, &drift) == 1 && drift < -0.07);
    injected(s, 11, 0.003);                     /* 3 % across the rounds: under MODEL_DRIFT_MIN */
    EXPECT(model_drift(s, 11, &drift) == 0);
    injected(s, 11, 0);
    s[6] = 0.2;                                 /* one burst: model_disturbed's, not a trend */
    EXPECT(model_drift(s, 11, &drift) == 0);
    injected(s, 3, 0.05);
    EXPECT(model_drift(s, 3, &drift) == 0 && drift == 0);  /* too few rounds to test */
}

/* The ceiling measured again at a shape: what the fake GEMM was asked and what it answers. */
static int asked_ta, asked_tb, asked_m, asked_n, asked_k;
static double fake_gemm(int ta, int tb, int m, int n, int k)
{
    asked_ta = ta, asked_tb = tb, asked_m = m, asked_n = n, asked_k = k;
    return 160e9;
}

static void test_recheck(void)
{
    char err[256];
    cJSON *ci = cJSON_Parse("{\"peak_flops\": {\"fp32\": 100e9}, \"peak_gemm_flops\": 2147483648, "
                            "\"bandwidth_Bps\": 40e9, \"op_overhead_s\": 1e-6}");
    struct predict_calib cal = { 0 };
    EXPECT(predict_calib_ceilings(ci, &cal, err, sizeof err) == 0);
    /* two matmul ops timed: 50 and 150 GFLOP/s; the second beats the 100 GFLOP/s ceiling */
    cJSON *res = cJSON_Parse("[{\"series\": \"calibration\", \"config\": \"v1\", \"class\": \"matmul\", "
        "\"kind\": \"matmul\", \"which\": 0, \"dtype\": \"fp32\", \"dtype_out\": \"fp32\", \"m\": 512, "
        "\"n\": 384, \"k\": 128, \"flops\": 50331648, \"bytes\": 1e6, \"median_s\": 1.00663296e-3},"
        "{\"series\": \"calibration\", \"config\": \"v3\", \"class\": \"matmul\", \"kind\": \"matmul_wgrad\", "
        "\"which\": 2, \"dtype\": \"fp32\", \"dtype_out\": \"fp32\", \"m\": 1024, \"n\": 1024, \"k\": 256, "
        "\"flops\": 536870912, \"bytes\": 4e6, \"median_s\": 3.5791394e-3}]");
    const cJSON *r;
    cJSON_ArrayForEach(r, res) {
        struct net_op op = { .kind = strcmp(json_str(r, "kind", ""), "matmul") == 0 ? NET_OP_MATMUL : NET_OP_MATMUL_WGRAD,
                             .which = (int)json_num(r, "which", 0), .m = json_num(r, "m", 0), .n = json_num(r, "n", 0),
                             .k = json_num(r, "k", 0), .flops = json_num(r, "flops", 0), .bytes_read = json_num(r, "bytes", 0) };
        predict_calib_add(&cal, &op, json_num(r, "median_s", 0));
    }
    EXPECT(predict_curve_eval(&cal.curve[NET_MATMUL], 536870912) > 1.4);      /* 150 of 100: the defect */
    EXPECT(model_recheck_peak(ci, &cal, res, fake_gemm) == 1);
    EXPECT_NEAR(cal.peak, 160e9, 1e-12);        /* measured again: faster than the op, so it is the ceiling */
    EXPECT_NEAR(json_num(cJSON_GetObjectItem(ci, "peak_flops"), "fp32", 0), 160e9, 1e-12);
    EXPECT(asked_ta == 1 && asked_tb == 0 && asked_m == 1024 && asked_n == 256 && asked_k == 1024);  /* wgrad: out, in, T */
    const cJSON *re = cJSON_GetObjectItem(ci, "remeasured");
    EXPECT(re && json_num(re, "before_flops", 0) == 100e9 && fabs(json_num(re, "op_flops", 0) - 150e9) < 1e3);
    EXPECT_STR(json_str(re, "config", ""), "v3");
    for (int i = 0; i < cal.curve[NET_MATMUL].n; i++)
        EXPECT(cal.curve[NET_MATMUL].eta[i] <= 1 + 1e-12);
    EXPECT(model_recheck_peak(ci, &cal, res, fake_gemm) == 0);     /* nothing above it now */
    /* measured again slower than the op: the op's own rate is the ceiling (it is a GEMM of the run) */
    cJSON *ci2 = cJSON_Parse("{\"peak_flops\": {\"fp32\": 100e9}, \"bandwidth_Bps\": 40e9, \"op_overhead_s\": 1e-6}");
    struct predict_calib c2 = { 0 };
    predict_calib_ceilings(ci2, &c2, err, sizeof err);
    EXPECT(model_recheck_peak(ci2, &c2, res, NULL) == 1 && fabs(c2.peak - 150e9) < 1e3);
    predict_calib_free(&cal);
    predict_calib_free(&c2);
    cJSON_Delete(ci);
    cJSON_Delete(ci2);
    cJSON_Delete(res);
}

/* A held-out configuration's reference (model_ref_moved): its ops' times then and now, each
 * weighted by how often its step runs it. The matmul the step runs 4 times 20 % slower moves it
 * (0.48 + 0.1 s against 0.4 + 0.1 s: +16 %), and 20 % faster too; noise of 2 % does not; neither
 * does an op that runs once getting 30 % slower in a step that runs the matmul 8 times (+3.3 %);
 * no ops, no move; ops under a quarter of the predicted step are not judged. */
static void test_reference(void)
{
    double then[2] = { 0.1, 0.1 }, w[2] = { 4, 1 };
    struct model_ref r;
    double slow[2] = { 0.12, 0.1 }, noise[2] = { 0.102, 0.098 }, one[2] = { 0.1, 0.13 };
    EXPECT((r = model_ref_moved(then, slow, w, 2, 0.6)).moved == 1 && fabs(r.ratio - 0.58 / 0.5) < 1e-12);
    double fast[2] = { 0.08, 0.1 };
    EXPECT((r = model_ref_moved(then, fast, w, 2, 0.6)).moved == 1 && fabs(r.ratio - 0.42 / 0.5) < 1e-12);
    EXPECT((r = model_ref_moved(then, noise, w, 2, 0.6)).moved == 0 && fabs(r.ratio - 0.506 / 0.5) < 1e-12);
    double w8[2] = { 8, 1 };                    /* unweighted, 0.23 / 0.2: a move */
    EXPECT((r = model_ref_moved(then, one, w8, 2, 1.0)).moved == 0 && fabs(r.ratio - 0.93 / 0.9) < 1e-12);
    EXPECT((r = model_ref_moved(then, slow, w, 0, 0.6)).moved == 0 && isnan(r.ratio) && !r.judged);
    /* the same 16 % in ops that are a fifth of a 2.5 s step: too little of it to judge */
    EXPECT((r = model_ref_moved(then, slow, w, 2, 2.5)).moved == 0 && !r.judged && fabs(r.ratio - 0.58 / 0.5) < 1e-12);
    EXPECT((r = model_ref_moved(then, slow, w, 2, 2.0)).moved == 1 && r.judged);        /* a quarter: judged */
}

static void test_held_out(void)
{
    char err[256];
    cJSON *g = cJSON_Parse("{\"held_out\": [\"v4\", \"x9\"]}");
    cJSON *params = param_check("model", model_params, g, err, sizeof err);
    EXPECT(params != NULL);
    EXPECT(model_precheck(params, err, sizeof err) == -1);
    EXPECT_STR(err, "model: held_out names 'x9', which is not a validation configuration (v1..v10, c1, d1, d2)");
    cJSON_Delete(params);
    cJSON_Delete(g);
    g = cJSON_Parse("{\"configs\": 2, \"held_out\": [\"v4\", \"d2\"]}");      /* not run here: allowed */
    params = param_check("model", model_params, g, err, sizeof err);
    EXPECT(params != NULL && model_precheck(params, err, sizeof err) == 0);
    cJSON_Delete(params);
    cJSON_Delete(g);
}

int main(void)
{
    test_disturbed();
    test_drift();
    test_recheck();
    test_reference();
    test_held_out();
    return CHECK_DONE();
}
