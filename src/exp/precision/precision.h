/* precision.h: the precision family: sustained compute per number format (FMA peak kernels,
 * GEMM through CBLAS or cuBLASLt), an intensity sweep for the roofline knee, and the error each
 * format costs against an FP64 reference. Formats are data (the table below); each device
 * implements one ops interface (CPU here, CUDA in src/exp/precision/precision_cuda.cu); precision.c plans,
 * validates, times and writes the records without asking which device it drives. */
#ifndef SR_PRECISION_H
#define SR_PRECISION_H

#include <stddef.h>
#include <stdint.h>

#include "exp/precision/precision_math.h"

#ifdef __cplusplus
extern "C" {
#endif

struct prec_fmt_info {
    const char *name;           /* "bf16": the scenario's word */
    const char *label;          /* "BF16 in, FP32 accumulate, BF16 out" */
    const char *catalog;        /* dense-peak column of data/systems.csv, or NULL */
    double in_bytes;            /* per input element, block scales included */
    double out_bytes;           /* per output element */
    double tolerance;           /* validation: |D - ref| / (|A||B|) per element, ref from the
                                   values the kernel was given (STYLE.md's per precision) */
    double error_bound;         /* numerics: stated bound on ||D - ref64||_F / ||ref64||_F with
                                   ref64 on the unquantized inputs */
    const char *scaling;        /* how inputs are scaled into the format, or "none" */
};
extern const struct prec_fmt_info prec_fmts[PREC_NFMT];

/* Results of a backend call that may refuse. */
enum { PREC_OK = 0, PREC_UNSUPPORTED = 1, PREC_ERROR = -1 };

/* One GEMM D = A^T B (A stored k x m, B stored k x n, D m x n, all column-major: the "TN"
 * layout FP8 and FP4 need), inputs from prec_input(seed_a / seed_b, ...). */
struct prec_gemm {
    enum prec_fmt fmt;
    int m, n, k;
    int emulate;                /* CPU only: round inputs in software, accumulate with SGEMM */
    uint64_t seed_a, seed_b;
    void *a, *b, *d;            /* backend-owned operands */
    void *impl;                 /* backend state: descriptors, events, algorithm */
    char algo[96];              /* what computed it: "cblas_dgemm", "cuBLASLt algo 21 tile 13" */
};

/* One intensity-sweep array: n elements of fp64 or fp32, read once per pass. */
struct prec_sweep {
    enum prec_fmt fmt;          /* PREC_FP64 or PREC_FP32 */
    size_t n;
    int threads;                /* CPU: OpenMP threads */
    void *x;                    /* n elements, 2 MiB aligned (CPU) / cudaMalloc (GPU) */
    double sum;                 /* sum of the last pass's results */
    void *impl;
    char isa[32];               /* "avx512f", "cuda" */
};

struct prec_ops {
    const char *device;         /* "cpu", "gpu" */
    unsigned gemm_formats;      /* 1 << PREC_* of the formats its GEMM may have (probed at setup) */
    int gemm_sweep;             /* its intensity sweep also runs GEMMs over k (tensor cores) */
    /* The fixed cost of one call: an empty OpenMP parallel region of `threads` threads (CPU),
     * an empty kernel launch, back to back (GPU); seconds for n calls, or NAN with why. */
    const char *overhead_what;  /* "omp_parallel_region", "kernel_launch" */
    double (*overhead)(int threads, long n, char *why, size_t whylen);
    /* GEMM: 0, PREC_UNSUPPORTED with why ("unsupported on this device: ..."), or PREC_ERROR. */
    int (*gemm_setup)(struct prec_gemm *g, char *why, size_t whylen);
    double (*gemm_run)(struct prec_gemm *g, long iters);   /* seconds for iters products */
    /* Elements idx[0 .. count-1] of D (column-major index i + j m; idx NULL: the first count)
     * as doubles. */
    int (*gemm_fetch)(struct prec_gemm *g, const size_t *idx, int count, double *out);
    void (*gemm_release)(struct prec_gemm *g);
    /* Intensity sweep: k FMAs per element read (prec_chain_*). */
    int (*sweep_setup)(struct prec_sweep *s, char *why, size_t whylen);
    double (*sweep_run)(struct prec_sweep *s, long k, long iters);   /* seconds; sets s->sum */
    void (*sweep_release)(struct prec_sweep *s);
    /* Readies device `dev` (stream, events, library handle) before any other call; 0, or -1
     * with why. NULL when there is nothing to ready. */
    int (*select)(int dev, char *why, size_t whylen);
};
extern const struct prec_ops prec_cpu_ops;
/* Only in builds with CUDA (backend_for() hands it out): */
extern const struct prec_ops prec_gpu_ops;
int prec_gpu_select(int dev, char *why, size_t whylen);     /* 0, or -1 with why */
/* Host code, no device needed: codes of precision_math.h that differ from CUDA's conversions. */
long prec_cuda_formats_agree(char *why, size_t whylen);

/* ---- CPU-only kernels ---- */

/* FMA chain kernels: `chains` independent vectors, each x <- x * m + a. One table entry per
 * (precision, ISA); prec_kernel_find picks the widest the CPU runs. The peak form keeps the
 * chains in registers; the sweep form loads each block of chains x lanes elements from memory,
 * runs k rounds on it and sums the results (exact, see prec_chain_*). */
struct prec_kernel {
    const char *isa;            /* "avx512f", "avx2+fma", "neon", "sse2" */
    enum prec_fmt fmt;          /* PREC_FP64 or PREC_FP32 */
    int vector_bytes, chains;
    int (*supported)(void);
    void (*peak)(double *out, long iters, double m, double a);     /* out: chains x lanes */
    double (*sweep)(const void *x, size_t lo, size_t hi, long k, double m, double a);
};
extern const struct prec_kernel prec_kernels[];
extern const int prec_nkernels;
const struct prec_kernel *prec_kernel_find(enum prec_fmt f);
int prec_kernel_lanes(const struct prec_kernel *pk);                    /* chains x lanes */
double prec_peak_flops(const struct prec_kernel *pk, long iters);      /* per call, per thread */

/* Runs pk's peak form on `threads` threads (each its own chains), iters rounds; returns
 * seconds. out (prec_kernel_lanes values) gets thread 0's lanes, for validation. */
double prec_cpu_peak_run(const struct prec_kernel *pk, int threads, long iters, double *out);

/* Plain twins. */
void prec_ref_gemm(const struct prec_gemm *g, const double *a, const double *b, double *d);

/* The BF16 GEMM of the CBLAS library, if it exports one (OpenBLAS cblas_sbgemm). */
int prec_cpu_has_sbgemm(char *why, size_t whylen);

/* Roofline knee from sweep points: the bandwidth ceiling is the best bytes/s the sweep
 * reached (gflops / intensity), the compute ceiling its best GFLOPS, the knee their ratio. */
struct prec_knee {
    double gbps;                /* 1e9 bytes/s */
    double gflops;              /* 1e9 FLOP/s */
    double flops_per_byte;      /* gflops / gbps */
    int lower_bound;            /* the sweep stopped before twice the knee: the compute ceiling
                                   may lie higher, the knee is at least this */
};
int prec_knee(const double *flops_per_byte, const double *gflops, int n, struct prec_knee *out);

#ifdef __cplusplus
}
#endif

#ifndef __CUDACC__
#include <cjson/cJSON.h>

#include "util/param.h"

extern const struct param prec_params[];
int prec_precheck(const cJSON *params, char *err, size_t errlen);
cJSON *prec_run(const cJSON *params, double budget_s, char *err, size_t errlen);
#endif

#endif
