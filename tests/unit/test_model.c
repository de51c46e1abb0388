/* test_model.c: the model experiment's rule for disturbed training steps (model_disturbed):
 * a steady series keeps every sample, one burst is one sample, and a configuration whose steps
 * jump tenfold for most of its rounds (another process on the machine) is flagged as not one
 * population; its rule for drift (model_drift): a gradual slowdown injected into a steady series
 * (48 to 57 ms over the rounds, the run that raised a validation's max error from 3 to 15 %) is
 * caught, and so is a speed-up, while noise, one burst and a trend under 5 % are not; and the
 * held-out list is checked before anything runs. */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "exp/model/model.h"
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
    test_held_out();
    return CHECK_DONE();
}
