/* test_tenants.c: shared use. The measured family: what its records mean together (slowdown, share
 * and the totals recomputed from hand-made records), and a real run of tenant processes (this program
 * serves the `tenant` command itself, as sparkreport does): every record validated and timed, the
 * tenants of a round measured at once (their windows overlap), no tenant busier than its threads
 * and no round busier than the CPUs, a tenant that cannot set up named in the round's records. The
 * DGX Spark's tenant projection: the memory split, the context-switch cost and the step factor
 * recomputed from their stated sources, and the records predict_tenants writes from a projection
 * handed in (fit per tenant, N = 1 only for a job that does not fit alone, hours N-fold at least). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "util/machine.h"
#include "exp/tenants/tenants.h"
#include "exp/tenants/tenants_int.h"
#include "predict/fit.h"
#include "predict/tenants.h"
#include "util/error.h"
#include "util/json.h"
#include "util/param.h"

/* ---- the records of the measured family ---- */

static cJSON *rec(const char *series, int n, int tenant, double median, double gbps)
{
    cJSON *r = cJSON_CreateObject(), *t = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "series", series);
    cJSON_AddStringToObject(r, "device", "cpu");
    cJSON_AddNumberToObject(r, "tenants", n);
    cJSON_AddNumberToObject(r, "tenant", tenant);
    cJSON_AddBoolToObject(r, "valid", 1);
    cJSON_AddNumberToObject(t, "median", median);
    cJSON_AddNumberToObject(t, "min", median * 0.9);
    cJSON_AddItemToObject(r, "time_s", t);
    if (gbps > 0)
        cJSON_AddNumberToObject(r, "gbps_median", gbps);
    cJSON_AddNumberToObject(r, "cpu_s", 1.5 * median);
    cJSON_AddNumberToObject(r, "window_s", median);
    cJSON_AddNumberToObject(r, "started_s", 100);
    cJSON_AddNumberToObject(r, "ended_s", 100 + median);
    return r;
}

static const cJSON *total(const cJSON *totals, const char *series, int n)
{
    const cJSON *t;
    cJSON_ArrayForEach(t, totals)
        if (strcmp(json_str(t, "series", ""), series) == 0 && json_num(t, "tenants", 0) == n)
            return t;
    return NULL;
}

static void test_derive(void)
{
    cJSON *rs = cJSON_CreateArray(), *totals = cJSON_CreateArray();
    cJSON_AddItemToArray(rs, rec("stream", 1, 1, 0.1, 30));
    cJSON_AddItemToArray(rs, rec("stream", 2, 1, 0.2, 15));
    cJSON *late = rec("stream", 2, 2, 0.25, 12);                 /* began 0.05 s after the first: span 0.3 s */
    cJSON_ReplaceItemInObjectCaseSensitive(late, "started_s", cJSON_CreateNumber(100.05));
    cJSON_ReplaceItemInObjectCaseSensitive(late, "ended_s", cJSON_CreateNumber(100.3));
    cJSON_AddItemToArray(rs, late);
    cJSON_AddItemToArray(rs, rec("train", 1, 1, 1.0, 0));
    cJSON_AddItemToArray(rs, rec("train", 2, 1, 1.5, 0));
    cJSON *bad = rec("train", 2, 2, 9.0, 0);
    cJSON_ReplaceItemInObjectCaseSensitive(bad, "valid", cJSON_CreateFalse());
    cJSON_AddItemToArray(rs, bad);
    tenants_derive(rs, totals);
    EXPECT_NEAR(json_num(cJSON_GetArrayItem(rs, 0), "slowdown", 0), 1, 1e-12);
    EXPECT_NEAR(json_num(cJSON_GetArrayItem(rs, 1), "slowdown", 0), 2, 1e-12);
    EXPECT_NEAR(json_num(cJSON_GetArrayItem(rs, 2), "slowdown", 0), 2.5, 1e-12);
    EXPECT_NEAR(json_num(cJSON_GetArrayItem(rs, 2), "share", 0), 0.4, 1e-12);
    EXPECT_NEAR(json_num(cJSON_GetArrayItem(rs, 4), "slowdown", 0), 1.5, 1e-12);      /* train's own alone */
    EXPECT_NEAR(json_num(cJSON_GetArrayItem(rs, 1), "cores", 0), 1.5, 1e-12);
    EXPECT(cJSON_GetObjectItem(bad, "slowdown") == NULL);                              /* a failed record: none */
    const cJSON *s2 = total(totals, "stream", 2), *t2 = total(totals, "train", 2);
    EXPECT(s2 && t2);
    EXPECT_NEAR(json_num(s2, "share_sum", 0), 0.5 + 0.4, 1e-12);
    EXPECT_NEAR(json_num(s2, "slowdown_mean", 0), 2.25, 1e-12);
    EXPECT_NEAR(json_num(s2, "slowdown_max", 0), 2.5, 1e-12);
    EXPECT_NEAR(json_num(s2, "gbps_sum", 0), 27, 1e-12);
    /* 0.3 + 0.375 CPU s over 0.3 s, not each tenant's 1.5 added: the windows differ */
    EXPECT_NEAR(json_num(s2, "cores_sum", 0), (0.3 + 0.375) / 0.3, 1e-12);
    EXPECT_NEAR(json_num(t2, "timed", 0), 1, 0);                                       /* the failed one left out */
    EXPECT(cJSON_GetObjectItem((cJSON *)t2, "gbps_sum") == NULL);
    cJSON_Delete(rs);
    cJSON_Delete(totals);
}

/* ---- tenant processes: this program is the tenant ---- */

static char exe[4096];

static cJSON *params(const char *json)
{
    char err[512];
    cJSON *given = cJSON_Parse(json), *p = param_check("tenants", tenants_params, given, err, sizeof err);
    cJSON_Delete(given);
    if (!p)
        printf("params: %s\n", err);
    return p;
}

static const cJSON *find(const cJSON *rs, const char *series, int n, int tenant)
{
    const cJSON *r;
    cJSON_ArrayForEach(r, rs)
        if (strcmp(json_str(r, "series", ""), series) == 0 && json_num(r, "tenants", 0) == n
            && json_num(r, "tenant", 0) == tenant)
            return r;
    return NULL;
}

static void test_run(void)
{
    char err[256];
    int cpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
    cJSON *p = params("{\"size\": \"12MiB\", \"shape\": \"tiny\", \"tenants\": [2], \"min_reps\": 3, \"max_reps\": 4, "
                      "\"budget_s\": 20}");
    cJSON *out = p ? tenants_run(p, 20, err, sizeof err) : NULL;
    EXPECT(out != NULL);
    if (!out)
        return;
    const cJSON *rs = cJSON_GetObjectItem(out, "results"), *totals = cJSON_GetObjectItem(cJSON_GetObjectItem(out, "info"),
                                                                                          "totals");
    EXPECT(cJSON_GetArraySize(cJSON_GetObjectItem(out, "skipped")) == 0);
    for (int j = 0; j < 2; j++) {
        const char *series = j ? "train" : "stream";
        const cJSON *one = find(rs, series, 1, 1), *a = find(rs, series, 2, 1), *b = find(rs, series, 2, 2);
        EXPECT(one && a && b);
        if (!one || !a || !b)
            continue;
        double share = 0;
        for (const cJSON *r = one; r; r = r == one ? a : r == a ? b : NULL) {
            if (!cJSON_IsTrue(cJSON_GetObjectItem(r, "valid")))
                printf("%s tenant %g of %g: %s\n", series, json_num(r, "tenant", 0), json_num(r, "tenants", 0),
                       json_str(r, "error", "?"));
            EXPECT(cJSON_IsTrue(cJSON_GetObjectItem(r, "valid")));
            EXPECT(json_num(r, "max_rel_error", 1) <= json_num(r, "tolerance", 0));     /* validated, then timed */
            EXPECT(cJSON_GetArraySize(cJSON_GetObjectItem(r, "samples_s")) >= 3);
            double s = json_num(cJSON_GetObjectItem(r, "time_s"), "median", NAN)
                       / json_num(cJSON_GetObjectItem(one, "time_s"), "median", NAN);
            EXPECT_NEAR(json_num(r, "slowdown", 0), s, 1e-12);
            EXPECT_NEAR(json_num(r, "share", 0), 1 / s, 1e-12);
            /* no tenant keeps more CPUs busy than its threads (a clock tick of slack each way) */
            EXPECT(json_num(r, "cpu_s", 0) <= json_num(r, "threads", 0) * json_num(r, "window_s", 0) + 0.02);
            if (r != one)
                share += 1 / s;
        }
        /* the two of the round measured at once: each one's window began before the other's ended */
        EXPECT(json_num(a, "started_s", 0) < json_num(b, "ended_s", 0));
        EXPECT(json_num(b, "started_s", 0) < json_num(a, "ended_s", 0));
        EXPECT(json_num(a, "threads", 0) * 2 <= (cpus > 1 ? cpus : 2));                  /* the cores split */
        EXPECT_NEAR(json_num(total(totals, series, 2), "share_sum", 0), share, 1e-12);
        if (j == 0)
            EXPECT_NEAR(json_num(total(totals, series, 2), "gbps_sum", 0),
                        json_num(a, "gbps_median", 0) + json_num(b, "gbps_median", 0), 1e-12);
    }
    cJSON_Delete(out);
    cJSON_Delete(p);
}

/* A tenant that cannot set up (its spec names a precision the stream has not; one the spec table
 * refuses): every record of its rounds says why, and its round is not timed. */
static void test_failures(void)
{
    cJSON *spec = cJSON_Parse("{\"job\": \"stream\", \"device\": \"cpu\", \"tenant\": 1, \"threads\": 1, \"n\": 1024, "
                              "\"precision\": \"bf16\", \"cv\": 0.05, \"min_reps\": 2, \"max_reps\": 3, \"warmup\": 0, "
                              "\"sample_s\": 0.001}");
    struct tenants_pool *pool = tenants_pool_start(exe, spec, 2, 30, 0);
    cJSON *rs = tenants_pool_round(pool, 2, 1, 1, 30);
    EXPECT_STR(json_str(cJSON_GetArrayItem(rs, 0), "error", ""), "the stream's precision is fp64 or fp32");
    EXPECT_STR(json_str(cJSON_GetArrayItem(rs, 1), "error", ""), "not timed: the stream's precision is fp64 or fp32");
    EXPECT(!cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetArrayItem(rs, 1), "valid")));
    cJSON_Delete(rs);
    tenants_pool_stop(pool);
    cJSON_AddStringToObject(spec, "kernel", "copy");
    pool = tenants_pool_start(exe, spec, 1, 30, 0);
    rs = tenants_pool_round(pool, 1, 1, 1, 30);
    EXPECT_STR(json_str(cJSON_GetArrayItem(rs, 0), "error", ""),
               "tenant 1 ended before it wrote its record (its process exited)");
    cJSON_Delete(rs);
    tenants_pool_stop(pool);
    /* the first touch watched: arrays that would not be touched within the set-up's time are given up on,
     * with the rate the tenants touched at; on a machine that touches them in time, the round runs */
    cJSON_DeleteItemFromObject(spec, "kernel");
    cJSON_ReplaceItemInObjectCaseSensitive(spec, "precision", cJSON_CreateString("fp64"));
    cJSON_ReplaceItemInObjectCaseSensitive(spec, "n", cJSON_CreateNumber(16 << 20));    /* 3 x 128 MiB a tenant */
    pool = tenants_pool_start(exe, spec, 2, 1.5, 3.0 * 8 * (16 << 20));
    rs = tenants_pool_round(pool, 2, 1, 0.2, 30);
    if (tenants_pool_touch_Bps(pool) > 0)
        EXPECT_STR(json_str(cJSON_GetArrayItem(rs, 0), "error", ""),
                   "not timed: tenant 1 was given up: its arrays would not be first-touched within 2 s");
    else {          /* no rate yet: the round ran, or a loaded machine gave the tenants up before they said one
                     * (their first touch, or their whole set-up, past its 2 s) */
        const char *why = json_str(cJSON_GetArrayItem(rs, 0), "error", "");
        if (*why)
            printf("  the watched round, no touch rate: %s\n", why);     /* what happened, when it is not a pass */
        int t = 0;          /* either tenant may be the one the loaded machine held up */
        EXPECT(cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetArrayItem(rs, 0), "valid"))
               || (sscanf(why, "not timed: tenant %d was", &t) == 1 && (t == 1 || t == 2)
                   && (strstr(why, " was given up: its arrays would not be first-touched within ")
                       || strstr(why, " was not set up and validated within 2 s"))));
    }
    cJSON_Delete(rs);
    tenants_pool_stop(pool);
    cJSON_Delete(spec);
    char *argv[] = { (char *)"sparkreport", (char *)"tenant", NULL };
    EXPECT(tenants_serve(2, argv) == SR_EXIT_USAGE);
}

/* ---- the DGX Spark's tenants, projected ---- */

static const struct predict_system spark = { .id = "dgx-spark", .name = "NVIDIA DGX Spark (GB10)", .kind = "catalog",
                                             .bw = 273e9, .memory = 128e9, .shared_pool = 1, .sms = 48 };

static void test_formulas(void)
{
    /* memory: the reserve once (16 % + 5 % on one pool), 2 GB per tenant beyond the first, split evenly */
    EXPECT_NEAR(predict_tenant_usable(128e9, 1, 1), 128e9 * (1 - 0.21), 1e-12);
    EXPECT_NEAR(predict_tenant_usable(128e9, 1, 4), (128e9 * 0.79 - 3 * 2e9) / 4, 1e-12);
    EXPECT_NEAR(predict_tenant_usable(80e9, 0, 2), (80e9 - 2e9 - 0.05 * 80e9 - 2e9) / 2, 1e-12);
    /* a switch: 48 SMs x (256 KiB registers + 128 KiB shared memory), saved and restored at 273 GB/s */
    double sw = 2 * 48 * 384 * 1024 / 273e9;
    EXPECT_NEAR(predict_tenant_switch_s(&spark), sw, 1e-12);
    EXPECT_NEAR(sw * 1e6, 138.3, 1e-3);
    struct predict_system half = spark;     /* the SMs are the system's (its catalog row's sms) */
    half.sms = 24;
    EXPECT_NEAR(predict_tenant_switch_s(&half), sw / 2, 1e-15);
    /* each tenant's step: N-fold, the memory-bound part over the share, a switch per 1024 us slice */
    EXPECT_NEAR(predict_tenant_factor(1, 0.4, 0.5, sw), 1, 0);
    EXPECT_NEAR(predict_tenant_factor(4, 0.3, 0.8, sw), 4 * (0.7 + 0.3 / 0.8) * (1 + sw / 1024e-6), 1e-12);
    EXPECT_NEAR(predict_tenant_factor(3, 0.5, 1, 0), 3, 1e-12);
    /* the measured shares: the count at or below N stands for N, never above 1; the worst of 2 or more */
    struct predict_contention m = { 3, { 1, 2, 4 }, { 1, 0.9, 1.1 }, "cpu", "" };
    EXPECT_NEAR(predict_contention_share(&m, 1), 1, 0);
    EXPECT_NEAR(predict_contention_share(&m, 3), 0.9, 0);
    EXPECT_NEAR(predict_contention_share(&m, 8), 1, 0);
    EXPECT_NEAR(predict_contention_worst(&m), 0.9, 0);
    struct predict_contention none = { 0 };
    EXPECT_NEAR(predict_contention_share(&none, 4), 1, 0);
}

/* A projection handed in: the job needs `need` bytes at micro-batch 8, half of it at the smaller
 * micro-batch the fit takes when the share is smaller; alone 10 h (8-12 h), 30 % memory-bound. */
struct fake { double need; int calls; };

static cJSON *within(void *ud, double usable)
{
    struct fake *f = ud;
    cJSON *r = cJSON_CreateObject();
    int full = usable >= f->need, half = usable >= f->need / 2;
    f->calls++;
    cJSON_AddBoolToObject(r, "fits", full || half);
    cJSON_AddNumberToObject(r, "memory_bytes", full ? f->need : f->need / 2);
    if (full || half) {
        double slower = full ? 1 : 1.25;        /* the smaller micro-batch's step is slower */
        cJSON_AddNumberToObject(r, "step_s", 2 * slower);
        cJSON_AddNumberToObject(r, "hours", 10 * slower);
        cJSON_AddNumberToObject(r, "hours_low", 8 * slower);
        cJSON_AddNumberToObject(r, "hours_high", 12 * slower);
        cJSON_AddNumberToObject(r, "memory_bound_share", 0.3);
    }
    return r;
}

static void test_records(void)
{
    struct predict_contention m = { 2, { 1, 2 }, { 1, 0.8 }, "cpu", "" };
    struct fake f = { 40e9, 0 };
    cJSON *rs = cJSON_CreateArray();
    predict_tenants(&spark, "w", &m, within, &f, rs);
    EXPECT(cJSON_GetArraySize(rs) == predict_ntenant_counts);
    double sw = predict_tenant_switch_s(&spark), hours1 = 0;
    for (int k = 0; k < cJSON_GetArraySize(rs); k++) {
        const cJSON *r = cJSON_GetArrayItem(rs, k);
        int n = predict_tenant_counts[k];
        double usable = predict_tenant_usable(128e9, 1, n);
        EXPECT_STR(json_str(r, "series", ""), "tenants");
        EXPECT_STR(json_str(r, "system", ""), "dgx-spark");
        EXPECT_NEAR(json_num(r, "tenants", 0), n, 0);
        EXPECT_NEAR(json_num(r, "usable_bytes", 0), usable, 1e-12);
        int fits = usable >= f.need / 2;
        EXPECT(cJSON_IsTrue(cJSON_GetObjectItem(r, "fits")) == fits);
        EXPECT_NEAR(json_num(r, "device_bytes", 0), usable >= f.need ? f.need : f.need / 2, 1e-12);
        if (!fits) {
            EXPECT(cJSON_GetObjectItem(r, "hours") == NULL);
            continue;
        }
        double slower = usable >= f.need ? 1 : 1.25, share = n >= 2 ? 0.8 : 1;
        double fc = n == 1 ? 1 : n * (0.7 + 0.3 / share) * (1 + sw / 1024e-6), hi = fc;
        if (n == 1)
            hours1 = 10 * fc;
        EXPECT_NEAR(json_num(r, "step_s", 0), 2 * slower * fc, 1e-12);
        EXPECT_NEAR(json_num(r, "hours", 0), 10 * slower * fc, 1e-12);
        EXPECT_NEAR(json_num(r, "hours_low", 0), 8 * slower * n, 1e-12);       /* the fast end: an ideal split */
        EXPECT_NEAR(json_num(r, "hours_high", 0), 12 * slower * hi, 1e-12);
        EXPECT_NEAR(json_num(r, "slowdown", 0), 10 * slower * fc / hours1, 1e-12);
        EXPECT(json_num(r, "slowdown", 0) >= n);            /* time-slicing: never better than N-fold */
        EXPECT(json_num(r, "hours_low", 0) <= json_num(r, "hours", 0) && json_num(r, "hours", 0) <= json_num(r, "hours_high", 0));
    }
    cJSON_Delete(rs);
    /* a job that does not fit alone: its N = 1 record only, fits false, no hours */
    struct fake big = { 300e9, 0 };
    rs = cJSON_CreateArray();
    predict_tenants(&spark, "big", &m, within, &big, rs);
    EXPECT(cJSON_GetArraySize(rs) == 1 && big.calls == 1);
    EXPECT(cJSON_IsFalse(cJSON_GetObjectItem(cJSON_GetArrayItem(rs, 0), "fits")));
    EXPECT(cJSON_GetObjectItem(cJSON_GetArrayItem(rs, 0), "hours") == NULL);
    cJSON_Delete(rs);
    /* the basis names the split of each resource and the measurement */
    cJSON *info = cJSON_CreateObject();
    snprintf(m.what, sizeof m.what, "the measurement named here");
    predict_tenants_basis(&spark, &m, info);
    const char *b = json_str(info, "tenants_basis", "");
    EXPECT(strstr(b, "1024 us time slice") && strstr(b, "138 us, 13.5 % of a slice"));
    EXPECT(strstr(b, "the measurement named here") && strstr(b, "worst share measured (80 %)"));
    EXPECT(strstr(b, "23.8 GB each at N = 4"));
    cJSON_Delete(info);
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "tenant") == 0)     /* a tenant of the runs below */
        return tenants_serve(argc, argv);
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len > 0)
        exe[len] = '\0';
    test_derive();
    test_formulas();
    test_records();
    if (len > 0 && !machine_emulated()) {
        test_failures();
        test_run();
    } else {            /* under qemu-user the tenants this test spawns would be run by the host kernel */
        printf("the tenant processes are not run: %s\n", len > 0 ? machine_emulated() : "no /proc/self/exe");
    }
    return CHECK_DONE();
}
