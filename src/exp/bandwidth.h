/* bandwidth.h: the bandwidth family. Kernels are data (name, arrays read and written, FLOPs),
 * every device implements one ops interface (CPU/OpenMP here; CUDA beside it), and all share
 * the plain reference they validate against. The sweep, statistics and results live in
 * bandwidth.c and never ask which device they drive. */
#ifndef SR_BANDWIDTH_H
#define SR_BANDWIDTH_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "util/param.h"

enum bw_prec { BW_FP64 = 0, BW_FP32, BW_NPREC };
enum bw_kernel { BW_COPY = 0, BW_SCALE, BW_ADD, BW_TRIAD, BW_READ, BW_FILL, BW_NKERNELS };

/* Every kernel writes only c (or nothing) and reads only a and b, which keep their initial
 * values, so each kernel validates exactly in any order. STREAM's own operand order chains
 * the kernels; the bytes each moves are the same. */
struct bw_kernel_info {
    const char *name;           /* "triad" */
    const char *formula;        /* "c[i] = a[i] + s*b[i]" */
    int reads, writes;          /* arrays named: STREAM counts (reads + writes) * n * size bytes */
    int flops;                  /* per element */
};
extern const struct bw_kernel_info bw_kernels[BW_NKERNELS];
extern const char *const bw_prec_names[BW_NPREC];
extern const size_t bw_prec_size[BW_NPREC];

#define BW_SCALAR 3.0
#define BW_READ_BLOCK 1024      /* the read kernel sums blocks of this many elements in the
                                   array's precision, then the block sums in FP64: exact for
                                   the values bw_init_* produce */

/* One configuration's arrays. */
struct bw_arrays {
    void *a, *b, *c;            /* n elements each, 2 MiB aligned, first-touched by the team
                                   that times them (unless first_touch is off) */
    size_t n;
    enum bw_prec prec;
    int threads;
    const int *cpus;            /* pin thread i to cpus[i] (NULL: no pinning) */
    double sum;                 /* read kernel: sum of the last pass */
    double *partial;            /* read kernel: one partial sum per thread */
};

struct bw_ops {
    const char *device;         /* "cpu" */
    /* Allocates and initialises three arrays of n elements; 0, or -1 with a message. */
    int (*alloc)(struct bw_arrays *x, size_t n, enum bw_prec p, int threads, const int *cpus,
                 int first_touch, char *err, size_t errlen);
    /* Runs `iters` passes of kernel k; returns the seconds they took. */
    double (*run)(struct bw_arrays *x, enum bw_kernel k, long iters);
    /* Largest relative error of the last pass's output against the reference. */
    double (*check)(struct bw_arrays *x, enum bw_kernel k);
    void (*release)(struct bw_arrays *x);
};
extern const struct bw_ops bw_cpu_ops;

/* The plain twin: initial values, and what element i of the output must be. */
double bw_init_a(size_t i);
double bw_init_b(size_t i);
double bw_expected(enum bw_kernel k, size_t i);
double bw_expected_sum(size_t n);       /* read kernel, closed form */
double bw_tolerance(enum bw_prec p);    /* STYLE.md: FP64 1e-12, FP32 1e-5 */

extern const struct param bw_params[];

/* Checks what can be checked before any run folder exists (memory for the largest size). */
int bw_precheck(const cJSON *params, char *err, size_t errlen);

/* Runs the experiment; returns {results, skipped, info}. */
cJSON *bw_run(const cJSON *params, double budget_s, char *err, size_t errlen);

#endif
