/* cuda.h: what the C side knows of CUDA: whether this build has it, and the devices the
 * driver reports (or the exact reason there are none). The GPU experiments live beside it. */
#ifndef SR_CUDA_H
#define SR_CUDA_H

#ifdef __cplusplus
extern "C" {
#endif

#include <stddef.h>

#include "util/hd.h"

#define CUDA_MAX_DEVICES 16

struct cuda_device {
    char name[256];
    int major, minor;             /* compute capability */
    int sms;                      /* multiprocessors */
    int clock_khz, mem_clock_khz; /* 0 when the driver does not say */
    int bus_width_bits;
    double mem_total_bytes;       /* cudaDeviceProp.totalGlobalMem (no context needed) */
    double mem_free_bytes;        /* cudaMemGetInfo, CUDA_DEVICE only (cuda_probe_asks_memory), else
                                     NAN; integrated: MemAvailable when larger (machine_gpu_mem_free) */
    const char *mem_free_source;  /* which figure mem_free_bytes is */
    double l2_bytes;
    int pageable_access;          /* HMM/ATS: kernels may use plain malloc'ed memory */
    int concurrent_managed;
    int integrated;               /* shares memory with the CPU (GB10, Jetson) */
};

struct cuda_info {
    int built;                    /* this sparkreport was built with CUDA */
    int ndev;
    int driver_version, runtime_version;   /* 13000 = 13.0; 0 when unknown */
    long cublaslt_version;        /* cublasLtGetVersion(): 130100 = 13.1.0 (the loaded library) */
    char reason[256];             /* why ndev == 0 */
    struct cuda_device dev[CUDA_MAX_DEVICES];
};

/* Fills ci; never fails: a machine without a driver is "no device", with the reason. Leaves
 * the calling thread's current device as it found it. Creates a context on CUDA_DEVICE only
 * (its free memory), none on the other devices. */
void cuda_probe(struct cuda_info *ci);

/* The devices the driver lists, or 0 with cuda_probe's reason in why: creates no context on any
 * device (backend_for asks it, from every MPI rank). */
int cuda_count(char *why, size_t n);

/* The device every GPU experiment measures: the first the driver lists (CUDA_VISIBLE_DEVICES
 * chooses which that is), described by cuda_info.dev[CUDA_DEVICE]. */
#define CUDA_DEVICE 0

/* Whether cuda_probe asks device i's free memory (which creates its context): the device
 * measured only. */
SR_HD int cuda_probe_asks_memory(int i)
{
    return i == CUDA_DEVICE;
}

/* Makes CUDA_DEVICE current on the calling thread: the current device belongs to each thread
 * (a new thread starts on device 0), so every backend's open and every thread that launches
 * work call this first. 0, or -1 with err. Builds with CUDA only. */
int cuda_use_device(char *err, size_t errlen);

/* Blocks of `block` threads that fill the current device once at `kernel`'s full occupancy
 * (kernel: a __global__ function's address); 0, or -1 with err. Builds with CUDA only. */
int cuda_full_grid(const void *kernel, int block, int *blocks, char *err, size_t errlen);

/* A launch that fills the device whatever the work: every SM at the kernel's full occupancy.
 * A small working set gives each thread less to do, never fewer blocks (fewer blocks than SMs
 * leave SMs idle and measure a fraction of the device). */
struct cuda_grid {
    int blocks;                   /* sms x per_sm */
    int block;                    /* threads per block */
    int sms, per_sm;              /* multiprocessors; resident blocks per SM (occupancy API) */
    size_t per_thread;            /* work items per thread for n items, at least 1 */
};

/* The grid for n work items (vectors, elements, words) from the device's SMs and the
 * kernel's occupancy; counts below 1 are taken as 1. */
SR_HD struct cuda_grid cuda_grid_fill(size_t n, int sms, int per_sm, int block)
{
    struct cuda_grid g;
    g.sms = sms > 0 ? sms : 1;
    g.per_sm = per_sm > 0 ? per_sm : 1;
    g.block = block > 0 ? block : 1;
    g.blocks = g.sms * g.per_sm;
    size_t threads = (size_t)g.blocks * (size_t)g.block;
    g.per_thread = n > threads ? (n + threads - 1) / threads : 1;
    return g;
}

/* Two launches sharing the device at once (the two directions of a bidirectional copy): each
 * gets its share of the SMs at the same occupancy, so neither waits for the other's blocks to
 * leave; out[0] gets the odd SM. One SM: its resident blocks split, one at least each. */
SR_HD void cuda_grid_split(const struct cuda_grid *g, int out[2])
{
    if (g->sms >= 2) {
        out[0] = (g->sms + 1) / 2 * g->per_sm;
        out[1] = g->sms / 2 * g->per_sm;
    } else {
        out[0] = g->per_sm > 1 ? (g->per_sm + 1) / 2 : 1;
        out[1] = g->per_sm > 1 ? g->per_sm / 2 : 1;
    }
}

/* cuda_grid_fill for `kernel` of `block` threads over n items on the current device; 0, or -1
 * with err. Builds with CUDA only. */
int cuda_grid_for(const void *kernel, int block, size_t n, struct cuda_grid *g, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif
