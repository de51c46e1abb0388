/* bandwidth_cpu.c: the CPU backend of the bandwidth family: OpenMP kernels over 2 MiB
 * aligned arrays that the timing team first-touches. Each sample is one parallel region, as
 * in STREAM; small arrays repeat passes inside it so fork and join are not what is measured.
 * Sweeps and statistics are bandwidth.c's. */
#include "exp/bandwidth/bandwidth.h"

#include <errno.h>
#include <math.h>
#include <omp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "util/error.h"
#include "util/timing.h"

#define ALIGN ((size_t)2 << 20)

/* The build targets the baseline ISA so the binary runs anywhere; on x86 the kernels are also
 * compiled for AVX2 and AVX-512 and the loader picks what the CPU has, so cache-resident
 * sizes are not limited by 16-byte vectors. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__SANITIZE_ADDRESS__)
#define KERNEL_ISA __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define KERNEL_ISA
#endif

/* One pass of each kernel, called by every thread of the team (orphaned worksharing). The
 * static schedule gives each thread the same chunk on every pass, and no kernel reads what
 * another thread writes, so passes need no barrier between them (nowait): repeated passes
 * over a cache-sized array measure the cache, not the barrier. The parallel region's end is
 * the one barrier a sample has, as in STREAM when a sample is one pass. */
#define BW_KERNELS(T, SUF)                                                              \
    KERNEL_ISA static void copy_##SUF(struct bw_arrays *x)                                         \
    {                                                                                   \
        const T *restrict a = x->a;                                                     \
        T *restrict c = x->c;                                                           \
        _Pragma("omp for simd schedule(static) nowait")                                     \
        for (size_t i = 0; i < x->n; i++)                                               \
            c[i] = a[i];                                                                \
    }                                                                                   \
    KERNEL_ISA static void scale_##SUF(struct bw_arrays *x)                                        \
    {                                                                                   \
        const T *restrict a = x->a;                                                     \
        T *restrict c = x->c;                                                           \
        const T s = (T)BW_SCALAR;                                                       \
        _Pragma("omp for simd schedule(static) nowait")                                     \
        for (size_t i = 0; i < x->n; i++)                                               \
            c[i] = s * a[i];                                                            \
    }                                                                                   \
    KERNEL_ISA static void add_##SUF(struct bw_arrays *x)                                          \
    {                                                                                   \
        const T *restrict a = x->a, *restrict b = x->b;                                 \
        T *restrict c = x->c;                                                           \
        _Pragma("omp for simd schedule(static) nowait")                                     \
        for (size_t i = 0; i < x->n; i++)                                               \
            c[i] = a[i] + b[i];                                                         \
    }                                                                                   \
    KERNEL_ISA static void triad_##SUF(struct bw_arrays *x)                                        \
    {                                                                                   \
        const T *restrict a = x->a, *restrict b = x->b;                                 \
        T *restrict c = x->c;                                                           \
        const T s = (T)BW_SCALAR;                                                       \
        _Pragma("omp for simd schedule(static) nowait")                                     \
        for (size_t i = 0; i < x->n; i++)                                               \
            c[i] = a[i] + s * b[i];                                                     \
    }                                                                                   \
    KERNEL_ISA static void fill_##SUF(struct bw_arrays *x)                                         \
    {                                                                                   \
        T *restrict c = x->c;                                                           \
        const T s = (T)BW_SCALAR;                                                       \
        _Pragma("omp for simd schedule(static) nowait")                                     \
        for (size_t i = 0; i < x->n; i++)                                               \
            c[i] = s;                                                                   \
    }                                                                                   \
    KERNEL_ISA static void read_##SUF(struct bw_arrays *x)                             \
    {                                                                                   \
        const T *restrict a = x->a;                                                     \
        const size_t q = BW_READ_BLOCK / 8;                                             \
        size_t nblocks = (x->n + BW_READ_BLOCK - 1) / BW_READ_BLOCK;                    \
        double total = 0;                                                               \
        _Pragma("omp for schedule(static) nowait")                                      \
        for (size_t blk = 0; blk < nblocks; blk++) {                                    \
            const T *restrict p = a + blk * BW_READ_BLOCK;                              \
            size_t len = x->n - blk * BW_READ_BLOCK;                                    \
            T s0 = 0, s1 = 0, s2 = 0, s3 = 0, s4 = 0, s5 = 0, s6 = 0, s7 = 0;           \
            if (len >= BW_READ_BLOCK) {                                                 \
                /* eight contiguous streams: eight independent vector sums */          \
                _Pragma("omp simd reduction(+:s0,s1,s2,s3,s4,s5,s6,s7)")                \
                for (size_t k = 0; k < q; k++) {                                        \
                    s0 += p[k]; s1 += p[q + k]; s2 += p[2 * q + k]; s3 += p[3 * q + k]; \
                    s4 += p[4 * q + k]; s5 += p[5 * q + k]; s6 += p[6 * q + k];         \
                    s7 += p[7 * q + k];                                                 \
                }                                                                       \
            } else {                                                                    \
                for (size_t k = 0; k < len; k++)                                        \
                    s0 += p[k];                                                         \
            }                                                                           \
            total += (double)(((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7)));       \
        }                                                                               \
        x->partial[omp_get_thread_num()] = total;                                       \
    }

BW_KERNELS(double, f64)
BW_KERNELS(float, f32)

typedef void (*pass_fn)(struct bw_arrays *);

static const pass_fn passes[BW_NKERNELS][BW_NPREC] = {
    [BW_COPY] = { copy_f64, copy_f32 },   [BW_SCALE] = { scale_f64, scale_f32 },
    [BW_ADD] = { add_f64, add_f32 },      [BW_TRIAD] = { triad_f64, triad_f32 },
    [BW_READ] = { read_f64, read_f32 },   [BW_FILL] = { fill_f64, fill_f32 },
};

/* The affinity the process had before pinning, given back on release. One pinned set of
 * arrays exists at a time (the sweep measures one configuration after another). */
static cpu_set_t unpinned;

/* Pins the calling thread to cpus[its number], or gives it back the saved mask. */
static void pin_self(const int *cpus)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    if (cpus)
        CPU_SET(cpus[omp_get_thread_num()], &set);
    else
        set = unpinned;
    sched_setaffinity(0, sizeof set, &set);
}

/* The reference values repeat every BW_REF_PERIOD elements, so initialising and checking read
 * them from a small table: one streaming pass, vectorised, no division. */
#define BW_PERIOD BW_REF_PERIOD

/* Writes elements [lo, hi) of a, b and c. */
static void init_range(struct bw_arrays *x, size_t lo, size_t hi)
{
    double ta[BW_PERIOD], tb[BW_PERIOD];
    for (int j = 0; j < BW_PERIOD; j++) {
        ta[j] = bw_init_a((size_t)j);
        tb[j] = bw_init_b((size_t)j);
    }
    if (x->prec == BW_FP64) {
        double *a = x->a, *b = x->b, *c = x->c;
        for (size_t i = lo; i < hi; i++) {
            a[i] = ta[i % BW_PERIOD];
            b[i] = tb[i % BW_PERIOD];
            c[i] = 0;
        }
    } else {
        float *a = x->a, *b = x->b, *c = x->c;
        for (size_t i = lo; i < hi; i++) {
            a[i] = (float)ta[i % BW_PERIOD];
            b[i] = (float)tb[i % BW_PERIOD];
            c[i] = 0;
        }
    }
}

static void *alloc_array(size_t bytes)
{
    void *p = NULL;
    size_t rounded = (bytes + ALIGN - 1) / ALIGN * ALIGN;
    if (posix_memalign(&p, ALIGN, rounded) != 0)
        return NULL;
#ifdef MADV_HUGEPAGE
    madvise(p, rounded, MADV_HUGEPAGE);     /* fewer TLB misses; a hint, not a requirement */
#endif
    return p;
}

static void cpu_release(struct bw_arrays *x)
{
    if (x->cpus) {
#pragma omp parallel num_threads(x->threads)
        pin_self(NULL);
    }
    free(x->a);
    free(x->b);
    free(x->c);
    free(x->partial);
    memset(x, 0, sizeof *x);
}

static int cpu_supports(enum bw_path path, char *why, size_t whylen)
{
    if (path == BW_PATH_HOST)
        return 0;
    snprintf(why, whylen, "the CPU reaches its arrays through ordinary host memory only");
    return -1;
}

static int cpu_alloc(struct bw_arrays *x, const struct bw_layout *l, char *err, size_t errlen)
{
    size_t n = l->n, bytes = n * bw_prec_size[l->prec];
    int threads = l->threads;
    const int *cpus = l->cpus;
    memset(x, 0, sizeof *x);
    x->n = n;
    x->prec = l->prec;
    x->path = BW_PATH_HOST;
    x->threads = threads;
    x->cpus = cpus;
    x->a = alloc_array(bytes);
    x->b = alloc_array(bytes);
    x->c = alloc_array(bytes);
    x->partial = calloc((size_t)threads, sizeof *x->partial);
    if (!x->a || !x->b || !x->c || !x->partial) {
        snprintf(err, errlen, "cannot allocate 3 arrays of %zu bytes: %s", bytes, strerror(ENOMEM));
        cpu_release(x);
        return -1;
    }
    if (!l->first_touch)
        init_range(x, 0, n);
    if (cpus)
        sched_getaffinity(0, sizeof unpinned, &unpinned);
#pragma omp parallel num_threads(threads)
    {
        if (cpus)
            pin_self(cpus);
        if (l->first_touch) {
            /* the same static partition the kernels use, so each thread's pages are local */
            size_t t = (size_t)omp_get_thread_num(), nt = (size_t)omp_get_num_threads();
            size_t q = n / nt, r = n % nt;          /* schedule(static): the first r get q + 1 */
            size_t lo = t < r ? t * (q + 1) : r * (q + 1) + (t - r) * q;
            init_range(x, lo, lo + q + (t < r));
        }
    }
    return 0;
}

static double cpu_run(struct bw_arrays *x, enum bw_kernel k, long iters)
{
    pass_fn pass = passes[k][x->prec];
    double t0 = timing_now();
#pragma omp parallel num_threads(x->threads)
    {
        for (long it = 0; it < iters; it++)
            pass(x);
    }
    double t = timing_now() - t0;
    if (k == BW_READ) {
        x->sum = 0;
        for (int i = 0; i < x->threads; i++)
            x->sum += x->partial[i];
    }
    return t;
}

static double cpu_check(struct bw_arrays *x, enum bw_kernel k)
{
    double worst = 0, want[BW_PERIOD];
    if (k == BW_READ) {
        double sum = bw_expected_sum(x->n);
        return fabs(x->sum - sum) / sum;
    }
    for (int j = 0; j < BW_PERIOD; j++)
        want[j] = bw_expected(k, (size_t)j);
    const double *c64 = x->c;
    const float *c32 = x->c;
#pragma omp parallel for schedule(static) num_threads(x->threads) reduction(max:worst)
    for (size_t i = 0; i < x->n; i++) {
        double got = x->prec == BW_FP64 ? c64[i] : (double)c32[i];
        double e = fabs(got - want[i % BW_PERIOD]) / want[i % BW_PERIOD];
        if (!(e <= worst))          /* NaN counts as the worst error */
            worst = isnan(e) ? INFINITY : e;
    }
    return worst;
}

const struct bw_ops bw_cpu_ops = {
    .device = "cpu",
    .supports = cpu_supports,
    .alloc = cpu_alloc,
    .run = cpu_run,
    .check = cpu_check,
    .release = cpu_release,
};
