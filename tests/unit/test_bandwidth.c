/* test_bandwidth.c: every CPU kernel in both precisions and both store kinds against the
 * plain reference (sizes around the read kernel's block), detection of a corrupted element,
 * the closed-form sum, one small experiment run whose records must follow from their own
 * samples, the records of a configuration beyond the caches (both store kinds), and the rule
 * that flags an SM rate over host memory too fast for the link. */
#include <math.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "config.h"
#include "exp/bandwidth/bandwidth.h"
#include "exp/bandwidth/bandwidth_int.h"
#include "util/progress.h"

/* Every kernel that writes, with non-temporal stores: validates exactly and writes what the
 * cached-store kernel writes, element for element. */
static void test_nontemporal(struct bw_arrays *x, size_t n, int p)
{
    size_t bytes = n * bw_prec_size[p];
    unsigned char *cached = malloc(bytes);
#if defined(__x86_64__)
    EXPECT(x->nontemporal == 1);        /* x86-64 always has streaming stores (SSE2) */
#endif
    for (int k = 0; k < BW_NKERNELS; k++) {
        if (bw_kernels[k].writes == 0)
            continue;
        x->stores = BW_STORES_CACHED;
        bw_cpu_ops.run(x, k, 1);
        memcpy(cached, x->c, bytes);
        memset(x->c, 0, bytes);
        x->stores = BW_STORES_NT;
        EXPECT(bw_cpu_ops.run(x, k, 2) >= 0);
        double e = bw_cpu_ops.check(x, k);
        if (!(e == 0.0))
            printf("  %s %s n=%zu non-temporal: error %g\n", bw_kernels[k].name, bw_prec_names[p], n, e);
        EXPECT(e == 0.0);
        EXPECT(memcmp(cached, x->c, bytes) == 0);
    }
    x->stores = BW_STORES_CACHED;
    free(cached);
}

static void test_kernels(size_t n, int threads)
{
    for (int p = 0; p < BW_NPREC; p++) {
        struct bw_arrays x;
        char err[256];
        struct bw_layout l = { n, p, BW_PATH_HOST, threads, NULL, 1 };
        EXPECT(bw_cpu_ops.alloc(&x, &l, err, sizeof err) == 0);
        for (int k = 0; k < BW_NKERNELS; k++) {
            double t = bw_cpu_ops.run(&x, k, 3);
            double e = bw_cpu_ops.check(&x, k);
            if (!(e == 0.0))
                printf("  %s %s n=%zu: error %g\n", bw_kernels[k].name, bw_prec_names[p], n, e);
            EXPECT(e == 0.0);           /* the chosen values make every kernel exact */
            EXPECT(t >= 0);
        }
        test_nontemporal(&x, n, p);
        /* a wrong element must be caught */
        bw_cpu_ops.run(&x, BW_TRIAD, 1);
        if (p == BW_FP64)
            ((double *)x.c)[n / 2] += 1e-9;
        else
            ((float *)x.c)[n / 2] += 1e-3f;
        EXPECT(bw_cpu_ops.check(&x, BW_TRIAD) > bw_tolerance(p));
        bw_cpu_ops.release(&x);
    }
}

static void test_reference(void)
{
    for (size_t n = 0; n < 40; n++) {
        double s = 0;
        for (size_t i = 0; i < n; i++)
            s += bw_init_a(i);
        EXPECT_NEAR(bw_expected_sum(n), s, 0);
    }
    EXPECT_NEAR(bw_expected(BW_TRIAD, 5), (1 + 5 / 8.0) + 3 * (2 + 1 / 4.0), 0);
    for (size_t i = 0; i < 100; i++)          /* the CPU backend relies on this period */
        for (int k = 0; k < BW_NKERNELS; k++)
            if (k != BW_READ)
                EXPECT(bw_expected(k, i) == bw_expected(k, i % BW_REF_PERIOD));
    EXPECT(bw_kernels[BW_TRIAD].reads == 2 && bw_kernels[BW_TRIAD].writes == 1);
    EXPECT(bw_kernels[BW_READ].writes == 0 && bw_kernels[BW_FILL].reads == 0);
}

static void test_run(void)
{
    char err[256];
    const char *given = "{\"kernels\": [\"triad\", \"read\"], \"precisions\": \"fp64\", \"sizes\": [\"96KiB\"],"
                        " \"threads\": [1, 2], \"min_reps\": 3, \"max_reps\": 5, \"sample_s\": 0.0005}";
    cJSON *g = cJSON_Parse(given);
    cJSON *params = param_check("bandwidth", bw_params, g, err, sizeof err);
    EXPECT(params != NULL);
    progress_quiet(1);
    cJSON *out = bw_run(params, 2.0, err, sizeof err);
    const cJSON *res = cJSON_GetObjectItem(out, "results");
    EXPECT(cJSON_GetArraySize(res) == 2 + 2 * 2);       /* size sweep + scaling at 1 and 2 threads */
    for (const cJSON *r = res->child; r; r = r->next) {
        double n = cJSON_GetObjectItem(r, "n")->valuedouble;
        const char *k = cJSON_GetObjectItem(r, "kernel")->valuestring;
        double bytes = cJSON_GetObjectItem(r, "bytes_per_pass")->valuedouble;
        double tmin = cJSON_GetObjectItem(cJSON_GetObjectItem(r, "time_s"), "min")->valuedouble;
        const cJSON *samples = cJSON_GetObjectItem(r, "samples_s");
        EXPECT(n == 96 * 1024 / 24);
        EXPECT(cJSON_IsTrue(cJSON_GetObjectItem(r, "valid")));
        EXPECT_STR(cJSON_GetObjectItem(r, "stores")->valuestring,
                   strcmp(k, "read") == 0 ? "none" : "cached");    /* 96 KiB fits the caches */
        EXPECT_NEAR(bytes, (strcmp(k, "triad") == 0 ? 3 : 1) * n * 8, 0);
        EXPECT_NEAR(cJSON_GetObjectItem(r, "bytes_per_pass_wa")->valuedouble,
                    (strcmp(k, "triad") == 0 ? 4 : 1) * n * 8, 0);
        EXPECT(cJSON_GetArraySize(samples) >= 3 && cJSON_GetArraySize(samples) <= 5);
        double lo = 1e300;
        for (const cJSON *s = samples->child; s; s = s->next)
            lo = fmin(lo, s->valuedouble);
        EXPECT_NEAR(tmin, lo, 0);
        EXPECT_NEAR(cJSON_GetObjectItem(r, "gbps_best")->valuedouble, bytes / tmin / 1e9, 1e-12);
        EXPECT(cJSON_IsBool(cJSON_GetObjectItem(r, "settled")) && cJSON_GetObjectItem(r, "cv_target")->valuedouble == 0.025);
    }
    /* 96 KiB is no DRAM-sized working set: this run chooses no DRAM figure */
    EXPECT(cJSON_GetObjectItem(cJSON_GetObjectItem(out, "info"), "dram") == NULL);
    cJSON_Delete(out);
    cJSON_Delete(params);
    cJSON_Delete(g);
}

/* A configuration beyond the caches (the plan's cache total made small): the headline of each
 * kernel that writes uses non-temporal stores and says so, its write-allocate view adds no
 * read, and the size series also holds the same kernel with cached stores (series "stores"). */
static void test_beyond_caches(void)
{
    char err[256];
    cJSON *g = cJSON_Parse("{\"kernels\": [\"copy\", \"read\"], \"precisions\": \"fp64\","
                           " \"min_reps\": 2, \"max_reps\": 3, \"sample_s\": 0.0005}");
    cJSON *params = param_check("bandwidth", bw_params, g, err, sizeof err);
    EXPECT(params != NULL);
    struct bw_plan *pl = calloc(1, sizeof *pl);
    bw_plan_common(pl, params);
    pl->tmax = 2;
    pl->cache_total = 64 * 1024;
    struct bw_run_state rs = { .ops = &bw_cpu_ops, .pl = pl, .results = cJSON_CreateArray(), .total = 3, .per_point = 0.2 };
    progress_quiet(1);
    progress_begin("test", rs.total, 2.0);
    bw_measure_config(&rs, BW_FP64, 96 * 1024, BW_PATH_HOST, 2, NULL, "size", NULL, INFINITY);
    progress_end();
    int nt = 0;
#if defined(__x86_64__) || defined(__aarch64__)
    nt = 1;                         /* x86-64: MOVNT; aarch64: STNP */
#endif
    const cJSON *res = rs.results;
    EXPECT(cJSON_GetArraySize(res) == 2 + nt);          /* copy, (copy cached), read */
    EXPECT(rs.done == 3);
    for (const cJSON *r = res->child; r; r = r->next) {
        const char *k = cJSON_GetObjectItem(r, "kernel")->valuestring;
        const char *series = cJSON_GetObjectItem(r, "series")->valuestring;
        const char *stores = cJSON_GetObjectItem(r, "stores")->valuestring;
        double n = cJSON_GetObjectItem(r, "n")->valuedouble;
        double wa = cJSON_GetObjectItem(r, "bytes_per_pass_wa")->valuedouble;
        EXPECT(cJSON_IsTrue(cJSON_GetObjectItem(r, "valid")));
        if (strcmp(k, "read") == 0) {
            EXPECT_STR(stores, "none");
            EXPECT_STR(series, "size");
        } else if (strcmp(series, "size") == 0) {
            EXPECT_STR(stores, nt ? "non-temporal" : "cached");
            EXPECT_NEAR(wa, (nt ? 2 : 3) * n * 8, 0);
        } else {
            EXPECT_STR(series, "stores");
            EXPECT_STR(stores, "cached");
            EXPECT_NEAR(wa, 3 * n * 8, 0);
        }
        EXPECT(cJSON_GetObjectItem(r, "gbps_best_wa")->valuedouble > 0);
    }
    cJSON_Delete(rs.results);
    cJSON_Delete(pl->skipped);
    free(pl);
    cJSON_Delete(params);
    cJSON_Delete(g);
}

/* Pinned to CPUs (as per-cluster scaling does), the kernels still validate, and release
 * gives the threads back their whole affinity mask. */
static void test_pinned(void)
{
    cpu_set_t before, after;
    int cpus[2] = { 0, sysconf(_SC_NPROCESSORS_ONLN) > 1 ? 1 : 0 };
    char err[256];
    struct bw_arrays x;
    sched_getaffinity(0, sizeof before, &before);
    struct bw_layout l = { 4096, BW_FP64, BW_PATH_HOST, 2, cpus, 1 };
    EXPECT(bw_cpu_ops.alloc(&x, &l, err, sizeof err) == 0);
    bw_cpu_ops.run(&x, BW_TRIAD, 2);
    EXPECT(bw_cpu_ops.check(&x, BW_TRIAD) == 0.0);
    cpu_set_t pinned;
    sched_getaffinity(0, sizeof pinned, &pinned);
    EXPECT(CPU_COUNT(&pinned) == 1 && CPU_ISSET(0, &pinned));
    bw_cpu_ops.release(&x);
    sched_getaffinity(0, sizeof after, &after);
    EXPECT(CPU_COUNT(&after) == CPU_COUNT(&before));
}

/* An SM kernel over host memory more than twice as fast as the copy engines measured pages that
 * moved into device memory (HMM), except where host memory is the device's (integrated). */
static void test_sm_beyond_link(void)
{
    EXPECT(bw_sm_beyond_link(3000, 50, 0));           /* "pageable via SM" at TB/s over PCIe */
    EXPECT(bw_sm_beyond_link(100.1, 50, 0));
    EXPECT(!bw_sm_beyond_link(100, 50, 0));           /* twice is the limit, not beyond it */
    EXPECT(!bw_sm_beyond_link(45, 50, 0));
    EXPECT(!bw_sm_beyond_link(3000, 50, 1));          /* a Spark: one memory */
    EXPECT(!bw_sm_beyond_link(3000, 0, 0));           /* no copy-engine rate to compare */
    EXPECT(!bw_sm_beyond_link(NAN, 50, 0));
}

/* Issue 26, item 5: bytes a pass moves. A CPU's cached stores read each written line first (copy:
 * 3 arrays' worth); its non-temporal stores and every GPU store do not (2). An H200 copy at 4.3
 * TB/s in STREAM's count would read 6.45 TB/s in the write-allocate view, over HBM3e's 4.8: the
 * GPU backend declares that its stores allocate nothing, and its records carry no such view. */
static void test_bytes_moved(void)
{
    const struct bw_kernel_info *copy = &bw_kernels[BW_COPY], *triad = &bw_kernels[BW_TRIAD];
    const struct bw_kernel_info *read = &bw_kernels[BW_READ], *fill = &bw_kernels[BW_FILL];
    EXPECT_NEAR(bw_bytes_moved(copy, 1000, 8, 1), 3 * 8000, 0);
    EXPECT_NEAR(bw_bytes_moved(copy, 1000, 8, 0), 2 * 8000, 0);
    EXPECT_NEAR(bw_bytes_moved(triad, 1000, 4, 1), 4 * 4000, 0);
    EXPECT_NEAR(bw_bytes_moved(triad, 1000, 4, 0), 3 * 4000, 0);
    EXPECT_NEAR(bw_bytes_moved(read, 1000, 8, 1), 8000, 0);
    EXPECT_NEAR(bw_bytes_moved(fill, 1000, 8, 0), 8000, 0);
    EXPECT(bw_cpu_ops.store_allocates == 1);
#ifdef HAVE_CUDA
    EXPECT(bw_cuda_ops.store_allocates == 0);
#endif
    double stream = 4.3e12, n = 1e9;          /* H200 copy, bytes/s in STREAM's count */
    double t = bw_bytes_moved(copy, n, 8, 0) / stream;
    EXPECT(bw_bytes_moved(copy, n, 8, 0) / t <= 4.8e12);
    EXPECT(bw_bytes_moved(copy, n, 8, 1) / t > 4.8e12);    /* what the old rule printed */
}

int main(void)
{
    test_reference();
    test_bytes_moved();
    test_kernels(1000, 2);
    test_kernels(3 * BW_READ_BLOCK + 7, 2);
    test_kernels(17, 4);
    test_pinned();
    test_run();
    test_beyond_caches();
    test_sm_beyond_link();
    return CHECK_DONE();
}
