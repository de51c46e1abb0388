/* bandwidth_cpu.c: the CPU backend of the bandwidth family: OpenMP kernels over 2 MiB
 * aligned arrays that the timing team first-touches, with cached stores and, on x86-64 and
 * aarch64 (STNP), non-temporal stores. Each sample is one parallel region, as in STREAM; small arrays repeat
 * passes inside it so fork and join are not what is measured. Which store kind to use, sweeps
 * and statistics are bandwidth.c's. */
#include "exp/bandwidth/bandwidth.h"

#include <errno.h>
#include <math.h>
#include <omp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#ifdef __linux__
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

#include "util/error.h"
#include "util/isa.h"
#include "util/timing.h"

#define ALIGN ((size_t)2 << 20)

/* The build targets the baseline ISA so the binary runs anywhere; on x86 the kernels are also
 * compiled for AVX2 and AVX-512 (util/isa.h) and the loader picks what the CPU has, so
 * cache-resident sizes are not limited by 16-byte vectors. */
#define KERNEL_ISA ISA_CLONES

/* Cached stores: one pass of each kernel, called by every thread of the team (orphaned worksharing). The
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
    }

BW_KERNELS(double, f64)
BW_KERNELS(float, f32)

typedef void (*pass_fn)(struct bw_arrays *);

static const pass_fn passes[BW_NKERNELS][BW_NPREC] = {     /* cached stores; read: see below */
    [BW_COPY] = { copy_f64, copy_f32 },   [BW_SCALE] = { scale_f64, scale_f32 },
    [BW_ADD] = { add_f64, add_f32 },      [BW_TRIAD] = { triad_f64, triad_f32 },
    [BW_FILL] = { fill_f64, fill_f32 },
};

/* ---- kernels written with explicit vectors: the read, and the non-temporal stores ----
 * One source per ISA through GCC/Clang vector types of VB bytes; the loader's clones cannot
 * be used here because the streaming-store intrinsics exist only inside their own target. */

/* Thread t's share [lo, hi) of `units`, divided as schedule(static) divides them. */
static void share(size_t units, size_t *lo, size_t *hi)
{
    size_t t = (size_t)omp_get_thread_num(), nt = (size_t)omp_get_num_threads();
    size_t q = units / nt, r = units % nt;          /* the first r get q + 1 */
    *lo = t < r ? t * (q + 1) : r * (q + 1) + (t - r) * q;
    *hi = *lo + q + (t < r);
}

static int last_thread(void) { return omp_get_thread_num() == omp_get_num_threads() - 1; }

/* A pass's sum is consumed where the compiler cannot see, so no pass is dropped as dead. */
#define OBSERVE(v) __asm__ __volatile__("" : : "g"(v) : "memory")

/* The read: each thread sums its contiguous share of whole blocks with eight vector
 * accumulators (the latency of eight independent adds covers two loads a cycle), one block at
 * a time in the array's precision (exact, see BW_READ_BLOCK), each block's sum added in FP64;
 * the last thread adds the elements after the last whole block. */
#define BW_READ(T, SUF, ISA, ATTR, VB)                                                  \
    ATTR static void read_##SUF##_##ISA(struct bw_arrays *x)                            \
    {                                                                                   \
        typedef T vec __attribute__((vector_size(VB), may_alias));                      \
        typedef double vsum __attribute__((vector_size(VB / sizeof(T) * 8)));           \
        enum { V = VB / sizeof(T) };                                                    \
        const T *restrict a = x->a;                                                     \
        size_t lo, hi, full = x->n / BW_READ_BLOCK;                                     \
        vsum total = { 0 };                                                             \
        share(full, &lo, &hi);                                                          \
        for (size_t blk = lo; blk < hi; blk++) {                                        \
            const vec *p = (const vec *)(a + blk * BW_READ_BLOCK);                      \
            vec s0 = { 0 }, s1 = { 0 }, s2 = { 0 }, s3 = { 0 };                         \
            vec s4 = { 0 }, s5 = { 0 }, s6 = { 0 }, s7 = { 0 };                         \
            for (size_t k = 0; k < BW_READ_BLOCK / V; k += 8) {                         \
                s0 += p[k]; s1 += p[k + 1]; s2 += p[k + 2]; s3 += p[k + 3];             \
                s4 += p[k + 4]; s5 += p[k + 5]; s6 += p[k + 6]; s7 += p[k + 7];         \
            }                                                                           \
            total += __builtin_convertvector(((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7)), vsum); \
        }                                                                               \
        double sum = 0;                                                                 \
        for (int j = 0; j < V; j++)                                                     \
            sum += total[j];                                                            \
        if (last_thread()) {                                                            \
            T rest = 0;                                                                 \
            for (size_t i = full * BW_READ_BLOCK; i < x->n; i++)                        \
                rest += a[i];                                                           \
            sum += (double)rest;                                                        \
        }                                                                               \
        OBSERVE(sum);                                                                   \
        x->partial[omp_get_thread_num()] = sum;                                         \
    }

/* A, B and S are the elements of a and b and the scalar, as vectors or as scalars. */
#define E_COPY(A, B, S) (A)
#define E_SCALE(A, B, S) ((S) * (A))
#define E_ADD(A, B, S) ((A) + (B))
#define E_TRIAD(A, B, S) ((A) + (S) * (B))
#define E_FILL(A, B, S) (S)

/* Non-temporal stores, any ISA: each thread writes whole 64-byte lines of its share with
 * streaming stores, which write past the caches and allocate no line (no read for ownership),
 * STORE(p, v0, v1) taking PER vectors at a time (v1 is the second of a pair, unused when PER is
 * 1); the last thread writes the elements after the last whole line with plain stores; FENCE
 * orders the pass's streaming stores before the team's closing barrier. */
#define BW_NT(NAME, EXPR, T, SUF, ISA, ATTR, VB, PER, STORE, FENCE)                     \
    ATTR static void NAME##_nt_##SUF##_##ISA(struct bw_arrays *x)                       \
    {                                                                                   \
        typedef T vec __attribute__((vector_size(VB), may_alias));                      \
        enum { V = VB / sizeof(T), L = 64 / sizeof(T) };                                \
        const T *restrict a = x->a, *restrict b = x->b;                                 \
        T *restrict c = x->c;                                                           \
        const T s = (T)BW_SCALAR;                                                       \
        const vec sv = (vec){ 0 } + s;                                                  \
        size_t lo, hi, lines = x->n / L;                                                \
        (void)a, (void)b, (void)sv;                                                     \
        share(lines, &lo, &hi);                                                         \
        for (size_t i = lo * L; i < hi * L; i += L)                                     \
            for (size_t j = i; j < i + L; j += PER * V) {                               \
                vec v0 = EXPR(*(const vec *)(a + j), *(const vec *)(b + j), sv);        \
                vec v1 = v0;                                                            \
                if (PER > 1)                                                            \
                    v1 = EXPR(*(const vec *)(a + j + V), *(const vec *)(b + j + V), sv); \
                STORE(c + j, v0, v1);                                                   \
            }                                                                           \
        if (last_thread())                                                              \
            for (size_t i = lines * L; i < x->n; i++)                                   \
                c[i] = EXPR(a[i], b[i], s);                                             \
        FENCE;                                                                          \
    }
#define BW_NT_ALL(T, SUF, ISA, ATTR, VB, PER, STORE, FENCE)                             \
    BW_NT(copy, E_COPY, T, SUF, ISA, ATTR, VB, PER, STORE, FENCE)                       \
    BW_NT(scale, E_SCALE, T, SUF, ISA, ATTR, VB, PER, STORE, FENCE)                     \
    BW_NT(add, E_ADD, T, SUF, ISA, ATTR, VB, PER, STORE, FENCE)                         \
    BW_NT(triad, E_TRIAD, T, SUF, ISA, ATTR, VB, PER, STORE, FENCE)                     \
    BW_NT(fill, E_FILL, T, SUF, ISA, ATTR, VB, PER, STORE, FENCE)
#define NT_ROW(ISA) {                                                                   \
        [BW_COPY] = { copy_nt_f64_##ISA, copy_nt_f32_##ISA },                           \
        [BW_SCALE] = { scale_nt_f64_##ISA, scale_nt_f32_##ISA },                        \
        [BW_ADD] = { add_nt_f64_##ISA, add_nt_f32_##ISA },                              \
        [BW_TRIAD] = { triad_nt_f64_##ISA, triad_nt_f32_##ISA },                        \
        [BW_FILL] = { fill_nt_f64_##ISA, fill_nt_f32_##ISA } }

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define BW_STREAMING 1

/* One vector a store (_mm*_stream_*); sfence orders them. */
#define ST512D(p, v, w) ((void)(w), _mm512_stream_pd((p), (__m512d)(v)))
#define ST512S(p, v, w) ((void)(w), _mm512_stream_ps((p), (__m512)(v)))
#define ST256D(p, v, w) ((void)(w), _mm256_stream_pd((p), (__m256d)(v)))
#define ST256S(p, v, w) ((void)(w), _mm256_stream_ps((p), (__m256)(v)))
#define ST128D(p, v, w) ((void)(w), _mm_stream_pd((p), (__m128d)(v)))
#define ST128S(p, v, w) ((void)(w), _mm_stream_ps((p), (__m128)(v)))
#define AVX512 __attribute__((target("avx512f")))
#define AVX2 __attribute__((target("avx2")))
#define BASELINE

#define BW_ISA(ISA, ATTR, VB, STD, STS)                                                 \
    BW_READ(double, f64, ISA, ATTR, VB) BW_READ(float, f32, ISA, ATTR, VB)              \
    BW_NT_ALL(double, f64, ISA, ATTR, VB, 1, STD, _mm_sfence())                         \
    BW_NT_ALL(float, f32, ISA, ATTR, VB, 1, STS, _mm_sfence())
BW_ISA(avx512, AVX512, 64, ST512D, ST512S)
BW_ISA(avx2, AVX2, 32, ST256D, ST256S)
BW_ISA(sse2, BASELINE, 16, ST128D, ST128S)
#elif defined(__aarch64__) && defined(__GNUC__)
#define BW_STREAMING 1

/* Non-temporal stores on Armv8: STNP stores a pair of 16-byte registers with the hint that the
 * data is not wanted in the caches, so cores that honour it (Neoverse, Cortex-X925/A725) write
 * whole lines without reading them first. GCC has no builtin that emits it (Clang's
 * __builtin_nontemporal_store becomes STNP), hence the asm: two STNPs a 64-byte line, and
 * dmb ishst orders them. */
#define STNP(p, v0, v1) __asm__ __volatile__("stnp %q1, %q2, [%0]" : : "r"(p), "w"(v0), "w"(v1) : "memory")
#define DMB_ISHST __asm__ __volatile__("dmb ishst" : : : "memory")
BW_READ(double, f64, base, , 16)
BW_READ(float, f32, base, , 16)
BW_NT_ALL(double, f64, neon, , 16, 2, STNP, DMB_ISHST)
BW_NT_ALL(float, f32, neon, , 16, 2, STNP, DMB_ISHST)
#else
/* Elsewhere: the read with 16-byte vectors, and plain stores only. */
#define BW_STREAMING 0
BW_READ(double, f64, base, , 16)
BW_READ(float, f32, base, , 16)
#endif

struct isa_kernels {
    const char *isa;
    pass_fn read[BW_NPREC];
    pass_fn nt[BW_NKERNELS][BW_NPREC];      /* non-temporal stores; NULL: none */
};

static const struct isa_kernels isa_table[] = {
#if BW_STREAMING && defined(__aarch64__)
    { "neon", { read_f64_base, read_f32_base }, NT_ROW(neon) },     /* STNP */
#elif BW_STREAMING
    { "avx512f", { read_f64_avx512, read_f32_avx512 }, NT_ROW(avx512) },
    { "avx2", { read_f64_avx2, read_f32_avx2 }, NT_ROW(avx2) },
    { "sse2", { read_f64_sse2, read_f32_sse2 }, NT_ROW(sse2) },
#else
    { "base", { read_f64_base, read_f32_base }, { { NULL } } },
#endif
};

/* The widest set this CPU runs (the last entry runs on every CPU of the build's target). */
static const struct isa_kernels *isa_kernels(void)
{
    int i = (int)(sizeof isa_table / sizeof isa_table[0]) - 1;
#if BW_STREAMING && defined(__x86_64__)
    __builtin_cpu_init();
    i = isa_avx512() ? 0 : __builtin_cpu_supports("avx2") ? 1 : i;
#endif
    return &isa_table[i];
}

static pass_fn pass_for(const struct bw_arrays *x, enum bw_kernel k)
{
    const struct isa_kernels *v = isa_kernels();
    if (k == BW_READ)
        return v->read[x->prec];
    if (x->stores == BW_STORES_NT && v->nt[k][x->prec])
        return v->nt[k][x->prec];
    return passes[k][x->prec];
}

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
    x->nontemporal = BW_STREAMING;
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
            size_t lo, hi;
            share(n, &lo, &hi);
            init_range(x, lo, hi);
        }
    }
    return 0;
}

static double cpu_run(struct bw_arrays *x, enum bw_kernel k, long iters)
{
    pass_fn pass = pass_for(x, k);
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

/* ---- hardware counters: does a cached store read its line first? ---- */

#ifdef __linux__
/* This thread's last-level cache-miss counter, user space only, stopped; -1 with errno. */
static int miss_counter(void)
{
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    a.type = PERF_TYPE_HARDWARE;
    a.size = sizeof a;
    a.config = PERF_COUNT_HW_CACHE_MISSES;
    a.disabled = 1;
    a.exclude_kernel = 1;
    a.exclude_hv = 1;
    return (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
}

static int cpu_count_misses(struct bw_arrays *x, enum bw_kernel k, double *per_line, char *why, size_t whylen)
{
    long long total = 0;
    int failed = 0, err = 0;
    enum bw_stores keep = x->stores;
    x->stores = BW_STORES_CACHED;
    pass_fn pass = pass_for(x, k);
#pragma omp parallel num_threads(x->threads) reduction(+:total) reduction(|:failed)
    {
        int fd = miss_counter();            /* each thread counts itself */
        long long v = 0;
        if (fd < 0) {
            failed = 1;
#pragma omp atomic write
            err = errno;
        } else {
            ioctl(fd, PERF_EVENT_IOC_RESET, 0);
            ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
        }
#pragma omp barrier
        pass(x);
#pragma omp barrier
        if (fd >= 0) {
            ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
            if (read(fd, &v, sizeof v) == (ssize_t)sizeof v)
                total += v;
            else
                failed = 1;
            close(fd);
        }
    }
    x->stores = keep;
    if (failed) {
        snprintf(why, whylen, "perf_event_open of the last-level cache-miss counter: %s",
                 err ? strerror(err) : "the count could not be read");
        return -1;
    }
    *per_line = (double)total / ((double)x->n * (double)bw_prec_size[x->prec] / 64.0);
    return 0;
}
#else
static int cpu_count_misses(struct bw_arrays *x, enum bw_kernel k, double *per_line, char *why, size_t whylen)
{
    (void)x, (void)k, (void)per_line;
    snprintf(why, whylen, "hardware counters are read through Linux's perf_event_open only");
    return -1;
}
#endif

const struct bw_ops bw_cpu_ops = {
    .device = "cpu",
    .supports = cpu_supports,
    .alloc = cpu_alloc,
    .run = cpu_run,
    .check = cpu_check,
    .release = cpu_release,
    .store_allocates = 1,           /* cached stores may read each missed line first: the records
                                       carry the write-allocate view, used where the machine shows it */
    .count_misses = cpu_count_misses,
};
