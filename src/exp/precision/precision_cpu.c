/* precision_cpu.c: the CPU backend of the precision family: FMA peak kernels (one table entry
 * per precision and ISA, chains of vectors held in registers), the intensity-sweep kernel
 * (the same chains fed from a DRAM-sized array), GEMM through CBLAS (and formats emulated by
 * rounding inputs in software, for the numerics only), the plain twins they are checked
 * against, and the cost of an empty OpenMP parallel region. Plans, statistics and records are
 * precision.c's. */
#include "exp/precision/precision.h"

#include <cblas.h>
#include <errno.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "config.h"
#include "util/error.h"
#include "util/isa.h"
#include "util/progress.h"
#include "util/timing.h"
#include "util/vmlimit.h"

#define ALIGN ((size_t)2 << 20)

/* ---- FMA peak and sweep kernels, one pair per (precision, ISA) --------------------------- */

/* The build targets the baseline ISA; on x86 the kernels are also compiled for AVX2+FMA and
 * AVX-512 and the widest the CPU runs is chosen at run time (and named in the records). A
 * chain is one vector register; enough chains cover the FMA latency times the FMA ports
 * (4 cycles x 2 ports on current x86 and Arm cores), and fewer than the register file holds. */
#if defined(__x86_64__) && defined(__GNUC__)
#define ISA_AVX512 __attribute__((target("avx512f")))
#define ISA_AVX2 __attribute__((target("avx2,fma")))
static int has_avx512(void) { return isa_avx512(); }
static int has_avx2(void) { return isa_avx2(); }
#define GENERIC_ISA "sse2"
#define GENERIC_CHAINS 12           /* of 16 xmm registers */
#elif defined(__aarch64__)
#define GENERIC_ISA "neon"
#define GENERIC_CHAINS 24           /* of 32 v registers */
#else
#define GENERIC_ISA "generic"
#define GENERIC_CHAINS 12
#endif
static int always(void) { return 1; }

/* Peak: iters rounds of x <- x * m + a over `chains` vectors; no memory traffic in the loop.
 * Sweep: the same chains, k rounds, on each block of chains x lanes elements read from x[lo,
 * hi); returns the sum of the results (exact: see prec_chain_*). Each block's chains are added
 * unrolled (kept in registers) into FP64 lanes, the lanes summed once at the end: a loop over the
 * chains and a scalar add per lane per block bounded the read at k = 0 to half the read ceiling
 * on a Zen 5 core pair (35 against 65 GB/s). */
#define CHAIN_KERNELS(SUF, T, VB, NACC, ATTR)                                              \
    ATTR static void peak_##SUF(double *out, long iters, double m_, double a_)             \
    {                                                                                      \
        typedef T vec __attribute__((vector_size(VB)));                                    \
        enum { L = VB / sizeof(T) };                                                       \
        const T m = (T)m_, a = (T)a_;                                                      \
        vec x[NACC];                                                                       \
        for (int j = 0; j < NACC; j++)                                                     \
            for (int l = 0; l < L; l++)                                                    \
                x[j][l] = (T)prec_chain_init((size_t)(j * L + l));                        \
        for (long it = 0; it < iters; it++) {                                              \
            _Pragma("GCC unroll 32")                                                       \
            for (int j = 0; j < NACC; j++)                                                 \
                x[j] = x[j] * m + a;                                                       \
        }                                                                                  \
        for (int j = 0; j < NACC; j++)                                                     \
            for (int l = 0; l < L; l++)                                                    \
                out[j * L + l] = (double)x[j][l];                                          \
    }                                                                                      \
    ATTR static double sweep_##SUF(const void *xp, size_t lo, size_t hi, long k,           \
                                   double m_, double a_)                                   \
    {                                                                                      \
        typedef T vec __attribute__((vector_size(VB)));                                    \
        typedef double vsum __attribute__((vector_size(VB / sizeof(T) * 8)));             \
        enum { L = VB / sizeof(T), B = NACC * (VB / sizeof(T)) };                          \
        const T *x = xp, m = (T)m_, a = (T)a_;                                             \
        double total = 0;                                                                  \
        vsum acc = { 0 };                                                                  \
        size_t i = lo;                                                                     \
        for (; i + B <= hi; i += B) {                                                      \
            vec v[NACC], s;                                                                \
            _Pragma("GCC unroll 32")                                                       \
            for (int j = 0; j < NACC; j++)                                                 \
                memcpy(&v[j], x + i + (size_t)j * L, VB);                                  \
            for (long t = 0; t < k; t++) {                                                 \
                _Pragma("GCC unroll 32")                                                   \
                for (int j = 0; j < NACC; j++)                                             \
                    v[j] = v[j] * m + a;                                                   \
            }                                                                              \
            s = v[0];                                                                      \
            _Pragma("GCC unroll 32")                                                       \
            for (int j = 1; j < NACC; j++)                                                 \
                s += v[j];                                                                 \
            acc += __builtin_convertvector(s, vsum);                                       \
        }                                                                                  \
        for (int l = 0; l < L; l++)                                                        \
            total += acc[l];                                                               \
        for (; i < hi; i++) {                                                              \
            T y = x[i];                                                                    \
            for (long t = 0; t < k; t++)                                                   \
                y = y * m + a;                                                             \
            total += (double)y;                                                            \
        }                                                                                  \
        return total;                                                                      \
    }

#if defined(__x86_64__) && defined(__GNUC__)
CHAIN_KERNELS(f64_avx512, double, 64, 12, ISA_AVX512)
CHAIN_KERNELS(f32_avx512, float, 64, 12, ISA_AVX512)
CHAIN_KERNELS(f64_avx2, double, 32, 12, ISA_AVX2)
CHAIN_KERNELS(f32_avx2, float, 32, 12, ISA_AVX2)
#endif
CHAIN_KERNELS(f64_generic, double, 16, GENERIC_CHAINS, )
CHAIN_KERNELS(f32_generic, float, 16, GENERIC_CHAINS, )

/* Widest first: prec_kernel_find takes the first the CPU supports. */
const struct prec_kernel prec_kernels[] = {
#if defined(__x86_64__) && defined(__GNUC__)
    { "avx512f", PREC_FP64, 64, 12, has_avx512, peak_f64_avx512, sweep_f64_avx512 },
    { "avx512f", PREC_FP32, 64, 12, has_avx512, peak_f32_avx512, sweep_f32_avx512 },
    { "avx2+fma", PREC_FP64, 32, 12, has_avx2, peak_f64_avx2, sweep_f64_avx2 },
    { "avx2+fma", PREC_FP32, 32, 12, has_avx2, peak_f32_avx2, sweep_f32_avx2 },
#endif
    { GENERIC_ISA, PREC_FP64, 16, GENERIC_CHAINS, always, peak_f64_generic, sweep_f64_generic },
    { GENERIC_ISA, PREC_FP32, 16, GENERIC_CHAINS, always, peak_f32_generic, sweep_f32_generic },
};
const int prec_nkernels = (int)(sizeof prec_kernels / sizeof prec_kernels[0]);

const struct prec_kernel *prec_kernel_find(enum prec_fmt f)
{
    for (int i = 0; i < prec_nkernels; i++)
        if (prec_kernels[i].fmt == f && prec_kernels[i].supported())
            return &prec_kernels[i];
    return NULL;
}

int prec_kernel_lanes(const struct prec_kernel *pk)
{
    return pk->chains * pk->vector_bytes / (pk->fmt == PREC_FP64 ? 8 : 4);
}

double prec_peak_flops(const struct prec_kernel *pk, long iters)
{
    return 2.0 * prec_kernel_lanes(pk) * (double)iters;
}

/* m arrives through a volatile so that no compiler, inlining the kernel, sees m == 1. */
static volatile double chain_m = 1.0;

/* The span from the first thread's start to the last thread's end: the work and any time the
 * threads did not overlap, without the fork and join around them (an empty region's cost is
 * measured on its own, and on a busy machine waking a team can take milliseconds). */
double prec_cpu_peak_run(const struct prec_kernel *pk, int threads, long iters, double *out)
{
    double first = INFINITY, last = 0;
#pragma omp parallel num_threads(threads) reduction(min:first) reduction(max:last)
    {
        double lanes[512];                  /* chains x lanes: at most 24 x 16 */
        first = timing_now();
        pk->peak(lanes, iters, chain_m, PREC_CHAIN_ADD);
        last = timing_now();
        if (omp_get_thread_num() == 0 && out)
            memcpy(out, lanes, (size_t)prec_kernel_lanes(pk) * sizeof(double));
    }
    return last - first;
}

/* ---- intensity sweep ---------------------------------------------------------------------- */

static void *alloc_aligned(size_t bytes)
{
    void *p = NULL;
    size_t rounded = (bytes + ALIGN - 1) / ALIGN * ALIGN;
    if (rounded == 0 || posix_memalign(&p, ALIGN, rounded) != 0)
        return NULL;
#ifdef MADV_HUGEPAGE
    madvise(p, rounded, MADV_HUGEPAGE);
#endif
    return p;
}

/* Thread t's share of n elements, in whole blocks of `unit` so that vectors stay aligned. */
static void share(size_t n, size_t unit, int t, int nt, size_t *lo, size_t *hi)
{
    size_t blocks = (n + unit - 1) / unit, per = blocks / (size_t)nt, extra = blocks % (size_t)nt;
    size_t b0 = (size_t)t * per + ((size_t)t < extra ? (size_t)t : extra);
    size_t b1 = b0 + per + ((size_t)t < extra ? 1 : 0);
    *lo = b0 * unit < n ? b0 * unit : n;
    *hi = b1 * unit < n ? b1 * unit : n;
}

static int cpu_sweep_setup(struct prec_sweep *s, char *why, size_t whylen)
{
    const struct prec_kernel *ce = prec_kernel_find(s->fmt);
    size_t es = s->fmt == PREC_FP64 ? 8 : 4;
    if (!ce) {
        snprintf(why, whylen, "no CPU sweep kernel for %s", prec_fmts[s->fmt].name);
        return PREC_UNSUPPORTED;
    }
    s->impl = (void *)ce;
    snprintf(s->isa, sizeof s->isa, "%s", ce->isa);
    s->x = alloc_aligned(s->n * es);
    if (!s->x) {
        snprintf(why, whylen, "cannot allocate %zu bytes: %s", s->n * es, strerror(ENOMEM));
        return PREC_ERROR;
    }
    size_t unit = ALIGN / es;
#pragma omp parallel num_threads(s->threads)
    {
        size_t lo, hi;              /* first touch by the thread that will read it */
        share(s->n, unit, omp_get_thread_num(), omp_get_num_threads(), &lo, &hi);
        for (size_t i = lo; i < hi; i++) {
            if (s->fmt == PREC_FP64)
                ((double *)s->x)[i] = prec_chain_init(i);
            else
                ((float *)s->x)[i] = (float)prec_chain_init(i);
        }
    }
    return PREC_OK;
}

static double cpu_sweep_run(struct prec_sweep *s, long k, long iters)
{
    const struct prec_kernel *ce = s->impl;
    size_t unit = ALIGN / (s->fmt == PREC_FP64 ? 8 : 4);
    double total = 0, m = chain_m, first = INFINITY, last = 0;
#pragma omp parallel num_threads(s->threads) reduction(+:total) reduction(min:first) reduction(max:last)
    {
        size_t lo, hi;                      /* timed as the peak kernels are: first start to last end */
        share(s->n, unit, omp_get_thread_num(), omp_get_num_threads(), &lo, &hi);
        double mine = 0;
        first = timing_now();
        for (long it = 0; it < iters; it++)
            mine = ce->sweep(s->x, lo, hi, k, m, PREC_CHAIN_ADD);
        last = timing_now();
        total += mine;
    }
    s->sum = total;
    return last - first;
}

static void cpu_sweep_release(struct prec_sweep *s)
{
    free(s->x);
    s->x = NULL;
    s->impl = NULL;
}

/* ---- GEMM through CBLAS ------------------------------------------------------------------- */

/* OpenBLAS exports cblas_sbgemm from 0.3.10 when built with BFLOAT16; Debian's 0.3.21 does not.
 * A weak reference under another name: NULL when the library lacks it, and no clash with a
 * cblas.h that declares it. */
typedef void sbgemm_fn(enum CBLAS_ORDER, enum CBLAS_TRANSPOSE, enum CBLAS_TRANSPOSE, int, int, int,
                       float, const uint16_t *, int, const uint16_t *, int, float, float *, int);
extern sbgemm_fn sr_cblas_sbgemm __asm__("cblas_sbgemm") __attribute__((weak));

int prec_cpu_has_sbgemm(char *why, size_t whylen)
{
    if (sr_cblas_sbgemm)
        return 1;
#ifdef HAVE_OPENBLAS_GET_CONFIG
    char lib[64];                           /* "OpenBLAS 0.3.21": the first two words */
    const char *cfg = openblas_get_config(), *sp = strchr(cfg, ' ');
    sp = sp ? strchr(sp + 1, ' ') : NULL;
    snprintf(lib, sizeof lib, "%.*s", sp ? (int)(sp - cfg) : 63, cfg);
    snprintf(why, whylen, "not supported here: the CBLAS library (%s) exports no cblas_sbgemm, "
             "so there is no BF16 GEMM on this CPU path", lib);
#else
    snprintf(why, whylen, "not supported here: the CBLAS library exports no cblas_sbgemm, so there "
             "is no BF16 GEMM on this CPU path");
#endif
    return 0;
}

enum cpu_kind { CPU_D, CPU_S, CPU_SB };     /* storage and routine of a CPU GEMM */

struct cpu_gemm {
    enum cpu_kind kind;
};

static int cpu_kind_of(const struct prec_gemm *g, enum cpu_kind *kind, char *why, size_t whylen)
{
    if (g->fmt == PREC_FP64) {
        *kind = CPU_D;
        return PREC_OK;
    }
    if (g->fmt == PREC_FP32 || (g->emulate && g->fmt != PREC_FP16_ACC16 && g->fmt != PREC_FP8_FAST)) {
        *kind = CPU_S;
        return PREC_OK;
    }
    if (g->fmt == PREC_BF16 && prec_cpu_has_sbgemm(why, whylen)) {
        *kind = CPU_SB;
        return PREC_OK;
    }
    if (g->fmt != PREC_BF16)
        snprintf(why, whylen, "no CPU GEMM for %s%s", prec_fmts[g->fmt].name,
                 !g->emulate ? "" : g->fmt == PREC_FP8_FAST ? " (fast accumulation is a tensor-core mode, not emulated)"
                 : " (FP16 accumulation is not emulated)");
    return PREC_UNSUPPORTED;
}

/* Fills a k x rows operand (element i = generator index i) in the storage of `kind`. */
static void fill(void *p, enum cpu_kind kind, const struct prec_gemm *g, uint64_t seed, size_t rows)
{
    size_t total = rows * (size_t)g->k;
    int fmt = g->emulate ? (int)g->fmt : (kind == CPU_D ? PREC_FP64 : kind == CPU_S ? PREC_FP32 : PREC_BF16);
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < total; i++) {
        double v = prec_input_as(fmt, seed, i, (uint64_t)g->k);
        if (kind == CPU_D)
            ((double *)p)[i] = v;
        else if (kind == CPU_S)
            ((float *)p)[i] = (float)v;
        else
            ((uint16_t *)p)[i] = prec_bf16_bits(v);
    }
}

static int cpu_gemm_setup(struct prec_gemm *g, char *why, size_t whylen)
{
    enum cpu_kind kind;
    int rc = cpu_kind_of(g, &kind, why, whylen);
    if (rc != PREC_OK)
        return rc;
    if (vmlimit_blas_refusal()) {
        snprintf(why, whylen, "%s", vmlimit_blas_refusal());
        return PREC_ERROR;
    }
    size_t es = kind == CPU_D ? 8 : kind == CPU_S ? 4 : 2, ds = kind == CPU_D ? 8 : 4;
    size_t m = (size_t)g->m, n = (size_t)g->n, k = (size_t)g->k;
    struct cpu_gemm *c = xcalloc(1, sizeof *c);
    c->kind = kind;
    g->impl = c;
    g->a = alloc_aligned(k * m * es);
    g->b = alloc_aligned(k * n * es);
    g->d = alloc_aligned(m * n * ds);
    if (!g->a || !g->b || !g->d) {
        snprintf(why, whylen, "cannot allocate the operands (%.0f MB)", (double)(k * (m + n) * es + m * n * ds) / 1e6);
        return PREC_ERROR;
    }
    fill(g->a, kind, g, g->seed_a, m);
    fill(g->b, kind, g, g->seed_b, n);
    memset(g->d, 0, m * n * ds);
    snprintf(g->algo, sizeof g->algo, "%s%s", kind == CPU_D ? "cblas_dgemm" : kind == CPU_S ? "cblas_sgemm" : "cblas_sbgemm",
             g->emulate && g->fmt != PREC_FP32 && g->fmt != PREC_FP64 ? " on inputs rounded in software" : "");
    return PREC_OK;
}

/* One CBLAS call for columns j0 .. j0 + cols of D (B's and D's columns are contiguous). */
static void cpu_gemm_panel(const struct prec_gemm *g, enum cpu_kind kind, int j0, int cols)
{
    int m = g->m, k = g->k;
    size_t bo = (size_t)j0 * (size_t)k, dof = (size_t)j0 * (size_t)m;
    if (kind == CPU_D)
        cblas_dgemm(CblasColMajor, CblasTrans, CblasNoTrans, m, cols, k, 1.0, g->a, k, (const double *)g->b + bo, k,
                    0.0, (double *)g->d + dof, m);
    else if (kind == CPU_S)
        cblas_sgemm(CblasColMajor, CblasTrans, CblasNoTrans, m, cols, k, 1.0f, g->a, k, (const float *)g->b + bo, k,
                    0.0f, (float *)g->d + dof, m);
    else
        sr_cblas_sbgemm(CblasColMajor, CblasTrans, CblasNoTrans, m, cols, k, 1.0f, g->a, k,
                        (const uint16_t *)g->b + bo, k, 0.0f, (float *)g->d + dof, m);
}

/* Columns per CBLAS call: a GEMM of more than PANEL_FLOPS runs as column panels of at least
 * PANEL_MIN_COLS, so a stop or the deadline (progress_cut) is seen between panels within about
 * a second; smaller GEMMs are one call, as before. The time counts all panels. */
#define PANEL_FLOPS 8e9
#define PANEL_MIN_COLS 32

static int panel_cols(const struct prec_gemm *g)
{
    double per_col = 2.0 * g->m * (double)g->k;
    int cols = (int)fmax(PANEL_MIN_COLS, PANEL_FLOPS / per_col);
    return cols < g->n ? cols : g->n;
}

/* Seconds of iters products, or NAN when a cut abandoned them. */
static double cpu_gemm_run(struct prec_gemm *g, long iters)
{
    const struct cpu_gemm *c = g->impl;
    int cols = panel_cols(g);
    double t0 = timing_now();
    for (long it = 0; it < iters; it++)
        for (int j0 = 0; j0 < g->n; j0 += cols) {
            if (cols < g->n && progress_cut())
                return NAN;
            cpu_gemm_panel(g, c->kind, j0, cols < g->n - j0 ? cols : g->n - j0);
        }
    vmlimit_blas_done();
    return timing_now() - t0;
}

/* What an emulated format's output type makes of an FP32 result. */
static double emulated_out(enum prec_fmt f, double v)
{
    switch (f) {
    case PREC_BF16: case PREC_FP8: case PREC_FP8_FAST: case PREC_NVFP4: case PREC_MXFP4: return prec_round_bf16(v);
    case PREC_FP16: return prec_round_fp16(v);
    default: return v;
    }
}

static int cpu_gemm_fetch(struct prec_gemm *g, const size_t *idx, int count, double *out)
{
    const struct cpu_gemm *c = g->impl;
    for (int i = 0; i < count; i++) {
        size_t j = idx ? idx[i] : (size_t)i;
        double v = c->kind == CPU_D ? ((const double *)g->d)[j] : (double)((const float *)g->d)[j];
        out[i] = g->emulate ? emulated_out(g->fmt, v) : v;
    }
    return 0;
}

static void cpu_gemm_release(struct prec_gemm *g)
{
    free(g->a);
    free(g->b);
    free(g->d);
    free(g->impl);
    g->a = g->b = g->d = g->impl = NULL;
}


/* ---- plain twins and overheads ------------------------------------------------------------- */

/* D = A^T B in FP64, a k x m, b k x n (the TN storage), d m x n; the loop every fast GEMM is
 * checked against. */
void prec_ref_gemm(const struct prec_gemm *g, const double *a, const double *b, double *d)
{
    size_t m = (size_t)g->m, n = (size_t)g->n, k = (size_t)g->k;
#pragma omp parallel for schedule(static) collapse(2)
    for (size_t j = 0; j < n; j++)
        for (size_t i = 0; i < m; i++) {
            double s = 0;
            for (size_t p = 0; p < k; p++)
                s += a[i * k + p] * b[j * k + p];
            d[i + j * m] = s;
        }
}

/* Seconds for n parallel regions of `threads` threads that do nothing but say they ran (fork,
 * barrier, join): an empty body is elided by GCC, which would time nothing. On a busy machine a
 * region can cost a thousand times more than on an idle one, so a call stops after REGION_CAP
 * seconds and scales what it timed to n (the mean per region is what is measured). */
#define REGION_CAP 0.25
static volatile long region_sink[64];

static double cpu_parallel_regions(int threads, long n, char *why, size_t whylen)
{
    double t0 = timing_now(), t = 0;
    long i = 0;
    while (i < n && t < REGION_CAP) {
#pragma omp parallel num_threads(threads)
        region_sink[omp_get_thread_num() & 63] = i;
        if (++i % 16 == 0 || i == n)
            t = timing_now() - t0;
    }
    (void)why;
    (void)whylen;
    return (timing_now() - t0) * (double)n / (double)i;
}

const struct prec_ops prec_cpu_ops = {
    .device = "cpu",
    .gemm_formats = 1u << PREC_FP64 | 1u << PREC_FP32 | 1u << PREC_BF16,
    .gemm_sweep = 0,
    .overhead_what = "omp_parallel_region",
    .overhead = cpu_parallel_regions,
    .gemm_setup = cpu_gemm_setup,
    .gemm_run = cpu_gemm_run,
    .gemm_fetch = cpu_gemm_fetch,
    .gemm_release = cpu_gemm_release,
    .sweep_setup = cpu_sweep_setup,
    .sweep_run = cpu_sweep_run,
    .sweep_release = cpu_sweep_release,
};
