/* test_measure.c: the measuring harness: the DRAM-sized working set (floor and 4x), the
 * repetition loop's three stop reasons and the settled flag, calibration reaching sample_s, the
 * budget override, the timing rows, medians of odd and even counts, skip records; and the rule
 * that chooses the one DRAM figure from bandwidth records. */
#include <math.h>
#include <string.h>

#include "check.h"
#include "exp/bandwidth/bandwidth.h"
#include "exp/bandwidth/bandwidth_int.h"
#include "measure/measure.h"
#include "util/json.h"
#include "util/timing.h"

#define MiB (1024.0 * 1024)

struct seq {                        /* a sample function returning x[i], then x[n - 1] again */
    const double *x;
    int n, i;
    double spin_s;                  /* busy-wait per sample, for the budget */
};

static double next(void *ud)
{
    struct seq *s = ud;
    double t0 = timing_now();
    while (timing_now() - t0 < s->spin_s)
        ;
    double v = s->x[s->i < s->n ? s->i : s->n - 1];
    s->i++;
    return v;
}

static const char *stop_of(const cJSON *rec) { return json_str(rec, "stop", "?"); }
static int settled(const cJSON *rec) { return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(rec, "settled")); }

static void repeat_stops(void)
{
    /* flat after the warm-up: the CV settles at min_reps */
    const double flat[] = { 99, 1, 1, 1, 1, 1, 1 };
    struct seq s = { flat, 7, 0, 0 };
    struct measure_rule r = { 1, 3, 10, 0.025, 0.001, 100 };
    cJSON *rec = cJSON_CreateObject();
    EXPECT(measure_repeat(rec, &r, next, &s) == 3);
    EXPECT_STR(stop_of(rec), "cv");
    EXPECT(settled(rec));
    EXPECT_NEAR(json_num(rec, "cv_target", NAN), 0.025, 0);
    EXPECT_NEAR(json_num(cJSON_GetObjectItemCaseSensitive(rec, "time_s"), "max", NAN), 1, 0);   /* warm-up dropped */
    EXPECT(json_num(rec, "warmup", -1) == 1);
    EXPECT(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(rec, "samples_s")) == 3);
    cJSON_Delete(rec);

    /* noisy: max_reps reached with the CV above the target */
    const double noisy[] = { 1, 2, 1, 2, 1, 2, 1, 2 };
    s = (struct seq){ noisy, 8, 0, 0 };
    r = (struct measure_rule){ 0, 3, 6, 0.025, 0.001, 100 };
    rec = cJSON_CreateObject();
    EXPECT(measure_repeat(rec, &r, next, &s) == 6);
    EXPECT_STR(stop_of(rec), "max_reps");
    EXPECT(!settled(rec));
    cJSON_Delete(rec);

    /* max_reps reached with a CV under the target: settled all the same */
    s = (struct seq){ flat + 1, 6, 0, 0 };
    r = (struct measure_rule){ 0, 4, 4, 0.025, 0.001, 100 };
    rec = cJSON_CreateObject();
    EXPECT(measure_repeat(rec, &r, next, &s) == 4);
    EXPECT_STR(stop_of(rec), "max_reps");
    EXPECT(settled(rec));
    cJSON_Delete(rec);

    /* noisy and slow: the budget stops it before max_reps, not settled */
    s = (struct seq){ noisy, 8, 0, 0.004 };
    r = (struct measure_rule){ 0, 3, 1000, 0.025, 0.001, 0.02 };
    rec = cJSON_CreateObject();
    int n = measure_repeat(rec, &r, next, &s);
    EXPECT(n >= 3 && n < 1000);
    EXPECT_STR(stop_of(rec), "budget");
    EXPECT(!settled(rec));
    cJSON_Delete(rec);
}

struct fake {
    double per, fixed;              /* seconds per iteration, per call */
    long calls;
};

static double fake_run(void *ud, long iters)
{
    struct fake *f = ud;
    f->calls++;
    return f->fixed + f->per * (double)iters;
}

static void calibrate(void)
{
    struct fake f = { 1e-5, 0, 0 };
    long it = measure_iterations(fake_run, &f, 0.01, 0);
    EXPECT(f.per * (double)it >= 0.01);
    EXPECT(it < 100000);
    f = (struct fake){ 1e-6, 2e-3, 0 };     /* a fixed cost per call: the count grows past it */
    it = measure_iterations(fake_run, &f, 0.01, 0);
    EXPECT(fake_run(&f, it) >= 0.01);
    EXPECT(f.per * (double)it > 4 * f.fixed);
    f = (struct fake){ 0.1, 0, 0 };
    EXPECT(measure_iterations(fake_run, &f, 0.01, 0.1) == 1);    /* the first run was long enough */
    EXPECT(f.calls == 0);
}

static const struct param table[] = {
    MEASURE_PARAMS("0.03", "4", "3", "2", "0.5"),
    MEASURE_BUDGET_PARAM("seconds for this test"),
    { NULL, 0, 0, NULL, NULL, NULL, 0, 0, NULL },
};

static void params(void)
{
    char err[256];
    cJSON *p = param_check("test", table, NULL, err, sizeof err);
    EXPECT(p != NULL);
    struct measure_rule r;
    measure_rule_from(&r, p);
    EXPECT(r.warmup == 2 && r.min_reps == 4 && r.max_reps == 4);   /* max_reps raised to min_reps */
    EXPECT_NEAR(r.cv, 0.03, 0);
    EXPECT_NEAR(r.sample_s, 0.5, 0);
    EXPECT(r.budget_s == 0);
    EXPECT_NEAR(measure_budget(p, 42), 42, 0);                     /* "auto": the share */
    cJSON_Delete(p);
    cJSON *given = cJSON_Parse("{\"budget_s\": 7.5}");
    p = param_check("test", table, given, err, sizeof err);
    EXPECT(p != NULL);
    EXPECT_NEAR(measure_budget(p, 42), 7.5, 0);                    /* a number overrides */
    cJSON_Delete(p);
    cJSON_Delete(given);
}

/* The one DRAM figure from bandwidth records: the largest working set only, all threads, every
 * precision, valid; cached stores counted with the write-allocate read, non-temporal ones as
 * STREAM does. */
static void dram_rule(void)
{
    cJSON *res = cJSON_Parse("["
        "{\"series\": \"size\", \"alloc\": \"host\", \"precision\": \"fp64\", \"threads\": 2, \"valid\": true,"
        " \"kernel\": \"copy\", \"array_bytes\": 1e9, \"working_set_bytes\": 2e9, \"gbps_best\": 30, \"gbps_best_wa\": 45},"
        "{\"series\": \"size\", \"alloc\": \"host\", \"precision\": \"fp64\", \"threads\": 2, \"valid\": true,"
        " \"kernel\": \"read\", \"array_bytes\": 1e9, \"working_set_bytes\": 1e9, \"gbps_best\": 40, \"gbps_best_wa\": 40},"
        "{\"series\": \"size\", \"alloc\": \"host\", \"precision\": \"fp64\", \"threads\": 2, \"valid\": true,"
        " \"kernel\": \"read\", \"array_bytes\": 1e6, \"working_set_bytes\": 1e6, \"gbps_best\": 90},"
        "{\"series\": \"size\", \"alloc\": \"host\", \"precision\": \"fp32\", \"threads\": 2, \"valid\": true,"
        " \"kernel\": \"read\", \"array_bytes\": 1e9, \"working_set_bytes\": 1e9, \"gbps_best\": 42},"
        "{\"series\": \"threads\", \"alloc\": \"host\", \"precision\": \"fp64\", \"threads\": 1, \"valid\": true,"
        " \"kernel\": \"read\", \"array_bytes\": 1e9, \"working_set_bytes\": 1e9, \"gbps_best\": 80},"
        "{\"series\": \"size\", \"alloc\": \"host\", \"precision\": \"fp64\", \"threads\": 2, \"valid\": false,"
        " \"kernel\": \"triad\", \"array_bytes\": 1e9, \"working_set_bytes\": 3e9, \"gbps_best\": 99}]");
    struct measure_dram d;
    EXPECT(measure_dram_pick(res, 2, &d) == 0);
    EXPECT_NEAR(d.gbps, 45, 0);                     /* copy's write-allocate view beats read's 40 */
    EXPECT_STR(d.kernel, "copy");
    EXPECT_STR(d.stores, "cached");                 /* no stores field: cached */
    EXPECT_NEAR(d.working_set_bytes, 2e9, 0);
    cJSON *nt = cJSON_GetArrayItem(res, 0);
    cJSON_AddStringToObject(nt, "stores", "non-temporal");
    EXPECT(measure_dram_pick(res, 2, &d) == 0);
    EXPECT_NEAR(d.gbps, 42, 0);                     /* non-temporal copy counts 30: FP32 read wins */
    EXPECT_STR(d.kernel, "read");
    EXPECT_STR(d.precision, "fp32");
    EXPECT(measure_dram_pick(res, 4, &d) == -1);         /* no record at that thread count */

    measure_dram_set(&d);                                /* kept, with its own copies of the strings */
    cJSON_Delete(res);
    struct measure_dram k;
    char err[64];
    EXPECT(measure_dram(NULL, &k, err, sizeof err) == 0);
    EXPECT_NEAR(k.gbps, 42, 0);
    EXPECT_STR(k.kernel, "read");
    cJSON *j = measure_dram_json(&k);
    EXPECT_STR(json_str(j, "source", ""), "bandwidth experiment");
    EXPECT(json_num(j, "threads", 0) == 2 && cJSON_IsString(cJSON_GetObjectItem(j, "rule")));
    cJSON_Delete(j);
}

int main(void)
{
    EXPECT_NEAR(measure_dram_bytes(0), 256 * MiB, 0);             /* no caches reported: the floor */
    EXPECT_NEAR(measure_dram_bytes(32 * MiB), 256 * MiB, 0);      /* 4x 32 MiB = 128 MiB: the floor */
    EXPECT_NEAR(measure_dram_bytes(64 * MiB), 256 * MiB, 0);
    EXPECT_NEAR(measure_dram_bytes(100 * MiB), 400 * MiB, 0);     /* above the floor: 4x */
    EXPECT_NEAR(measure_dram_bytes(482 * MiB), 1928 * MiB, 0);

    const double odd[] = { 5, 1, 3 }, even[] = { 4, 1, 3, 2 };
    EXPECT_NEAR(measure_median(odd, 3), 3, 0);
    EXPECT_NEAR(measure_median(even, 4), 2.5, 0);

    cJSON *t = measure_stats(even, 4);
    EXPECT_NEAR(json_num(t, "min", NAN), 1, 0);
    EXPECT_NEAR(json_num(t, "median", NAN), 2.5, 0);
    EXPECT_NEAR(json_num(t, "mean", NAN), 2.5, 0);
    EXPECT(json_num(t, "ci95_lo", NAN) < 2.5 && json_num(t, "ci95_hi", NAN) > 2.5);
    cJSON_Delete(t);

    cJSON *sk = cJSON_CreateArray();
    measure_skip(sk, "item", "reason");
    EXPECT_STR(json_str(cJSON_GetArrayItem(sk, 0), "item", ""), "item");
    EXPECT_STR(json_str(cJSON_GetArrayItem(sk, 0), "reason", ""), "reason");
    cJSON_Delete(sk);

    repeat_stops();
    calibrate();
    params();
    dram_rule();
    return CHECK_DONE();
}
