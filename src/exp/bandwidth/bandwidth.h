/* bandwidth.h: the bandwidth family. Kernels are data (name, arrays read and written, FLOPs),
 * every device implements one ops interface (CPU/OpenMP in bandwidth_cpu.c, CUDA in
 * src/exp/bandwidth/bandwidth_cuda.cu), and all share the plain reference they validate against
 * (bandwidth_ref.h). The sweep, statistics and results live in bandwidth.c and never ask
 * which device they drive. */
#ifndef SR_BANDWIDTH_H
#define SR_BANDWIDTH_H

#ifdef __cplusplus
extern "C" {
#endif

#include <stddef.h>

#include <cjson/cJSON.h>

#include "measure/dram.h"

#include "exp/bandwidth/bandwidth_ref.h"
#include "util/param.h"

enum bw_prec { BW_FP64 = 0, BW_FP32, BW_NPREC };

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

/* How a kernel writes c. Cached stores allocate each line written (on a miss it is read
 * first: the write-allocate view counts that read); non-temporal (streaming) stores write
 * past the caches and read nothing. Beyond the caches the headline uses non-temporal stores
 * where the backend has them; bandwidth.c says which records have which. */
enum bw_stores { BW_STORES_CACHED = 0, BW_STORES_NT, BW_NSTORES };
extern const char *const bw_store_names[BW_NSTORES];   /* "cached", "non-temporal" */

#define BW_READ_BLOCK 1024      /* the read kernel sums blocks of this many elements in the
                                   array's precision, then the block sums in FP64: exact for
                                   the values bw_init_* produce */

/* Where the arrays live and how a kernel reaches them. The CPU has one path; a CUDA device
 * has several, all of which reach the same LPDDR5x on a DGX Spark. */
enum bw_path {
    BW_PATH_HOST = 0,           /* CPU: posix_memalign, first-touched */
    BW_PATH_DEVICE,             /* cudaMalloc */
    BW_PATH_MANAGED,            /* cudaMallocManaged, written by the host, no prefetch */
    BW_PATH_MANAGED_PREFETCH,   /* the same, prefetched to the device before timing */
    BW_PATH_PINNED,             /* cudaHostAlloc, mapped: kernels cross the CPU-GPU link */
    BW_PATH_MALLOC,             /* plain malloc used by kernels (HMM/ATS pageable access) */
    BW_NPATHS
};
extern const char *const bw_path_names[BW_NPATHS];

/* What one configuration asks for. */
struct bw_layout {
    size_t n;                   /* elements per array */
    enum bw_prec prec;
    enum bw_path path;
    int threads;                /* CPU: OpenMP threads; CUDA: unused (grid from occupancy) */
    const int *cpus;            /* CPU: pin thread i to cpus[i] (NULL: no pinning) */
    int first_touch;            /* CPU: the timing team initialises the arrays */
};

/* One configuration's arrays. */
struct bw_arrays {
    void *a, *b, *c;            /* n elements each; CPU: 2 MiB aligned, first-touched by the
                                   team that times them (unless first_touch is off) */
    size_t n;
    enum bw_prec prec;
    enum bw_path path;
    int threads;
    const int *cpus;
    enum bw_stores stores;      /* how run() writes c: set by the caller, cached after alloc */
    int nontemporal;            /* set by alloc: 1 when run() has non-temporal stores, else
                                   stores = BW_STORES_NT runs plain (cached) stores */
    double sum;                 /* read kernel: sum of the last pass */
    double *partial;            /* CPU read kernel: one partial sum per thread */
    void *backend;              /* the backend's own state (CUDA: events, buffers) */
};

struct bw_ops {
    const char *device;         /* "cpu", "gpu" */
    /* 0 when this backend can run `path` here, else -1 and the reason. */
    int (*supports)(enum bw_path path, char *why, size_t whylen);
    /* Allocates and initialises three arrays; 0, or -1 with a message. */
    int (*alloc)(struct bw_arrays *x, const struct bw_layout *l, char *err, size_t errlen);
    /* Runs `iters` passes of kernel k; returns the seconds they took (negative: failed). */
    double (*run)(struct bw_arrays *x, enum bw_kernel k, long iters);
    /* Largest relative error of the last pass's output against the reference. */
    double (*check)(struct bw_arrays *x, enum bw_kernel k);
    void (*release)(struct bw_arrays *x);
    /* 1: a cached store that misses reads its line first (a CPU: the records carry the
     * write-allocate view); 0: stores fetch nothing (a GPU's L2 does not read sectors a warp
     * writes in full), so the arrays a kernel names are the bytes it moves and the records carry
     * no write-allocate view. */
    int store_allocates;
    /* Last-level cache misses per 64-byte line of the arrays named, over one pass of kernel k with
     * cached stores on every thread (CPU: perf_event_open's hardware counter); 0, or -1 with why
     * they cannot be read (no PMU, as in most virtual machines; perf_event_paranoid). NULL: none. */
    int (*count_misses)(struct bw_arrays *x, enum bw_kernel k, double *per_line, char *why, size_t whylen);
};
extern const struct bw_ops bw_cpu_ops;
extern const struct bw_ops bw_cuda_ops;         /* only in builds with CUDA */

/* Host<->device transfers (CUDA only): a buffer pair of `bytes` each, host side pinned or
 * pageable; one call moves `bytes` once per direction. */
enum bw_dir { BW_H2D = 0, BW_D2H, BW_BIDIR, BW_NDIRS };
enum bw_engine { BW_CE = 0, BW_SM, BW_NENGINES };  /* copy engines, or an SM copy kernel */
extern const char *const bw_dir_names[BW_NDIRS];
extern const char *const bw_engine_names[BW_NENGINES];
struct bw_xfer;
struct bw_xfer_ops {
    struct bw_xfer *(*open)(size_t bytes, int pinned, char *err, size_t errlen);
    /* 0 when the engine can move data with this host memory, else -1 and the reason. */
    int (*supports)(struct bw_xfer *t, enum bw_engine e, char *why, size_t whylen);
    double (*run)(struct bw_xfer *t, enum bw_dir d, enum bw_engine e);   /* seconds; <0 failed */
    int (*check)(struct bw_xfer *t, enum bw_dir d);                      /* 0: data intact */
    void (*close)(struct bw_xfer *t);
};
extern const struct bw_xfer_ops bw_cuda_xfer;   /* only in builds with CUDA */

/* The DRAM figure's measurement for families that ask before the bandwidth experiment ran
 * (src/measure/dram.h; backend_for("dram", "cpu")): the bandwidth plan cut down to the
 * DRAM-sized point. */
extern const struct measure_dram_ops bw_dram_ops;

/* The working set of the three arrays when each is DRAM-sized (measure_dram_bytes). */
double bw_dram_working_set(double cache_total);

/* Bytes one pass of kernel ki over n elements of es bytes actually moves: the arrays it names,
 * plus one read of each array it writes when its stores allocate lines (a CPU's cached stores);
 * a CPU's non-temporal stores and every GPU store add none. */
double bw_bytes_moved(const struct bw_kernel_info *ki, double n, double es, int stores_allocate);

/* The plain twin is in bandwidth_ref.h; tolerances per STYLE.md: FP64 1e-12, FP32 1e-5. */
double bw_tolerance(enum bw_prec p);

extern const struct param bw_params[];

/* Checks what can be checked before any run folder exists (memory for the largest size). */
int bw_precheck(const cJSON *params, char *err, size_t errlen);

/* Runs the experiment; returns {results, skipped, info}. */
cJSON *bw_run(const cJSON *params, double budget_s, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif
