/* test_measure.c: the measuring harness: the DRAM-sized working set (floor and 4x), the
 * repetition loop's three stop reasons and the settled flag, calibration reaching sample_s, the
 * budget override, the timing rows, medians of odd and even counts, skip records; and the rule
 * that chooses the one DRAM figure from bandwidth records. */
#include <math.h>
#include <string.h>

#include "check.h"
#include "exp/bandwidth/bandwidth.h"
#include "exp/bandwidth/bandwidth_int.h"
#include "measure/compute.h"
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

/* One bandwidth record at the DRAM-sized point (2 threads, host memory, valid). */
static cJSON *rec(const char *kernel, const char *prec, const char *stores, const char *series, double gbps, double wa)
{
    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "series", series);
    cJSON_AddStringToObject(r, "alloc", "host");
    cJSON_AddStringToObject(r, "precision", prec);
    cJSON_AddStringToObject(r, "kernel", kernel);
    if (stores)
        cJSON_AddStringToObject(r, "stores", stores);
    cJSON_AddNumberToObject(r, "threads", 2);
    cJSON_AddBoolToObject(r, "valid", 1);
    cJSON_AddNumberToObject(r, "array_bytes", 1e9);
    cJSON_AddNumberToObject(r, "working_set_bytes", 2e9);
    cJSON_AddNumberToObject(r, "gbps_best", gbps);
    if (wa > 0)
        cJSON_AddNumberToObject(r, "gbps_best_wa", wa);
    return r;
}

/* The DRAM ceilings from bandwidth records: the largest working set only, all threads, every
 * precision, valid; bytes known to move: cached stores in STREAM's count unless the machine shows
 * a read for ownership (each cached kernel, against its non-temporal twin, takes 90 % of the
 * extra time or more), and the counters can take that back; read, write and mix ceilings, and the
 * ceiling of an op's mix interpolated between them. */
static void dram_rule(void)
{
    cJSON *res = cJSON_CreateArray();
    cJSON_AddItemToArray(res, rec("copy", "fp64", NULL, "size", 30, 45));     /* cached (no field), no twin */
    cJSON_AddItemToArray(res, rec("read", "fp64", NULL, "size", 40, 0));
    cJSON_AddItemToArray(res, rec("read", "fp32", NULL, "size", 42, 0));
    cJSON *small = rec("read", "fp64", NULL, "size", 90, 0), *other = rec("read", "fp64", NULL, "threads", 80, 0);
    cJSON_ReplaceItemInObject(small, "array_bytes", cJSON_CreateNumber(1e6));
    cJSON_ReplaceItemInObject(other, "threads", cJSON_CreateNumber(1));
    cJSON *bad = rec("triad", "fp64", "non-temporal", "size", 99, 0);
    cJSON_ReplaceItemInObject(bad, "valid", cJSON_CreateFalse());
    cJSON_AddItemToArray(res, small);
    cJSON_AddItemToArray(res, other);
    cJSON_AddItemToArray(res, bad);
    struct measure_dram d;
    EXPECT(measure_dram_pick(res, 2, NULL, &d) == 0);
    EXPECT_NEAR(d.gbps, 42, 0);                     /* no twin: cached copy counts 30, not its 45 */
    EXPECT_STR(d.kernel, "read");
    EXPECT_STR(d.precision, "fp32");
    EXPECT_STR(d.stores, "none");
    EXPECT(d.write_allocate == -1);
    EXPECT_NEAR(d.read_gbps, 42, 0);
    EXPECT_NEAR(d.mix_gbps, 30, 0);
    EXPECT(d.write_gbps == 0);                      /* no fill measured */
    EXPECT(measure_dram_pick(res, 4, NULL, &d) == -1);      /* no record at that thread count */

    /* a twin that shows the read for ownership: non-temporal copy 48, cached 30 (STREAM): 1.6 of 1.5 */
    cJSON_AddItemToArray(res, rec("copy", "fp64", "non-temporal", "size", 48, 48));
    cJSON_AddItemToArray(res, rec("fill", "fp64", "non-temporal", "size", 36, 36));
    cJSON_AddItemToArray(res, rec("fill", "fp64", "cached", "stores", 19, 38));     /* 1.89 of 2: 89 % */
    EXPECT(measure_dram_pick(res, 2, NULL, &d) == 0);
    EXPECT(d.write_allocate == 1);                  /* median of 120 % and 89 %: shown */
    EXPECT_NEAR(d.gbps, 48, 0);                     /* copy: non-temporal 48 beats cached 45 */
    EXPECT_STR(d.kernel, "copy");
    EXPECT_STR(d.stores, "non-temporal");
    EXPECT_NEAR(d.write_gbps, 38, 0);               /* the cached fill in its write-allocate view */
    EXPECT(strstr(d.wa_evidence, "copy fp64 1.60 of 1.50") && strstr(d.wa_evidence, "shown"));
    /* the counters take it back: the fill missed on a tenth of the lines the read did */
    struct measure_counters hw = { 1, 0.1, 1.0, "" };
    EXPECT(measure_dram_pick(res, 2, &hw, &d) == 0);
    EXPECT(d.write_allocate == 0);
    EXPECT_NEAR(d.write_gbps, 36, 0);               /* the non-temporal fill; the cached one counts 19 */
    EXPECT(strstr(d.counters, "did not read its lines") != NULL);
    struct measure_counters none = { 0, 0, 0, "No such file or directory" };
    EXPECT(measure_dram_pick(res, 2, &none, &d) == 0);
    EXPECT(d.write_allocate == 1 && strstr(d.counters, "not readable: No such file") != NULL);

    /* not shown: the cached fill as fast as the non-temporal one */
    cJSON_ReplaceItemInObject(cJSON_GetArrayItem(res, cJSON_GetArraySize(res) - 1), "gbps_best", cJSON_CreateNumber(35));
    cJSON_ReplaceItemInObject(cJSON_GetArrayItem(res, cJSON_GetArraySize(res) - 3), "gbps_best", cJSON_CreateNumber(33));
    EXPECT(measure_dram_pick(res, 2, NULL, &d) == 0);
    EXPECT(d.write_allocate == 0);                  /* 10 % and 3 % of the extra time */
    EXPECT_NEAR(d.gbps, 42, 0);
    EXPECT_NEAR(d.mix_gbps, 33, 0);                 /* cached copy 30 in STREAM's count, not 45 */
    EXPECT_NEAR(d.write_gbps, 36, 0);

    /* an op's ceiling: its read share between the measured mixes (read 1: 42, copy 1/2: 33, fill 0: 36) */
    EXPECT_NEAR(measure_dram_ceiling(&d, 1, 0), 42, 1e-12);
    EXPECT_NEAR(measure_dram_ceiling(&d, 0, 1), 36, 1e-12);
    EXPECT_NEAR(measure_dram_ceiling(&d, 1, 1), 33, 1e-12);
    EXPECT_NEAR(measure_dram_ceiling(&d, 3, 1), 33 + 0.5 * (42 - 33), 1e-12);      /* 3/4: halfway */
    EXPECT_NEAR(measure_dram_ceiling(&d, 2, 1), 33 + (2.0 / 3 - 0.5) / 0.5 * (42 - 33), 1e-12);  /* no add/triad */
    struct measure_dram bare = { .gbps = 20, .kernel = "copy", .precision = "fp64", .stores = "cached" };
    EXPECT_NEAR(measure_dram_ceiling(&bare, 1, 0), 20, 0);     /* no mixes: the one figure */

    measure_dram_set(&d);
    cJSON_Delete(res);
    struct measure_dram k;
    char err[64];
    EXPECT(measure_dram(NULL, &k, err, sizeof err) == 0);
    EXPECT_NEAR(k.gbps, 42, 0);
    EXPECT_STR(k.kernel, "read");
    cJSON *j = measure_dram_json(&k);
    EXPECT_STR(json_str(j, "source", ""), "bandwidth experiment");
    EXPECT(json_num(j, "threads", 0) == 2 && cJSON_IsString(cJSON_GetObjectItem(j, "rule")));
    EXPECT_NEAR(json_num(j, "read_gbps", 0), 42, 0);
    EXPECT_NEAR(json_num(j, "write_gbps", 0), 36, 0);
    EXPECT_NEAR(json_num(j, "mix_gbps", 0), 33, 0);
    EXPECT(cJSON_GetArraySize(cJSON_GetObjectItem(j, "ceilings")) == 3);
    const cJSON *wa = cJSON_GetObjectItem(j, "write_allocate");
    EXPECT(cJSON_IsFalse(cJSON_GetObjectItem(wa, "shown")));
    EXPECT(strstr(json_str(wa, "counted", ""), "once, as STREAM does") != NULL);
    EXPECT(strstr(json_str(wa, "evidence", ""), "not shown") != NULL);
    EXPECT(cJSON_GetObjectItem(j, "read_raised") == NULL);
    cJSON_Delete(j);

    /* a later family read faster (a weight stream of a DRAM-sized matrix): the read ceiling rises */
    EXPECT(measure_dram_offer_read(41, "fp32", "a slower read") == 0);
    EXPECT(measure_dram_offer_read(45, "fp32", "the compression experiment's gemv of its fp32 matrix") == 1);
    EXPECT(measure_dram(NULL, &k, err, sizeof err) == 0);
    EXPECT_NEAR(k.read_gbps, 45, 0);
    EXPECT_NEAR(measure_dram_ceiling(&k, 1, 0), 45, 0);
    EXPECT_NEAR(k.gbps, 45, 0);                     /* above the 42 of the one figure too */
    EXPECT_STR(k.precision, "fp32");
    EXPECT(strstr(k.raised, "raised from 42 to 45 GB/s by the compression experiment's gemv") != NULL);
    j = measure_dram_json(&k);
    EXPECT(strstr(json_str(j, "read_raised", ""), "raised from 42") != NULL);
    cJSON_Delete(j);
}

/* The run's GEMM rate: the fastest offered per device and precision, kept as offered. */
static void gemm_rate(void)
{
    struct measure_gemm g, a = { 200, 1024, 1024, 1024, "cblas_sgemm", "precision" },
                           b = { 180, 2048, 768, 768, "cblas_sgemm", "model" }, c = { 210, 64, 64, 64, "x", "model" };
    measure_gemm_clear();
    EXPECT(measure_gemm_best("cpu", "fp32", &g) == -1);
    EXPECT(measure_gemm_offer("cpu", "fp32", &a) == 1);
    EXPECT(measure_gemm_offer("cpu", "fp32", &b) == 0);            /* slower: the precision one stays */
    EXPECT(measure_gemm_offer("cpu", "fp64", &b) == 1);            /* another precision */
    EXPECT(measure_gemm_best("cpu", "fp32", &g) == 0 && g.gflops == 200 && g.m == 1024);
    EXPECT_STR(g.family, "precision");
    EXPECT(measure_gemm_offer("cpu", "fp32", &c) == 1 && measure_gemm_best("cpu", "fp32", &g) == 0 && g.gflops == 210);
    EXPECT(measure_gemm_best("gpu", "fp32", &g) == -1);
    cJSON *j = measure_gemm_json(&g);
    EXPECT(json_num(j, "gflops", 0) == 210 && json_num(j, "k", 0) == 64);
    cJSON_Delete(j);
    measure_gemm_clear();
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
    gemm_rate();
    return CHECK_DONE();
}
