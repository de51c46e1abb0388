/* cuda.h: what the C side knows of CUDA: whether this build has it, and the devices the
 * driver reports (or the exact reason there are none). The GPU experiments live beside it. */
#ifndef SR_CUDA_H
#define SR_CUDA_H

#ifdef __cplusplus
extern "C" {
#endif

#include <stddef.h>

#define CUDA_MAX_DEVICES 16

struct cuda_device {
    char name[256];
    int major, minor;             /* compute capability */
    int sms;                      /* multiprocessors */
    int clock_khz, mem_clock_khz; /* 0 when the driver does not say */
    int bus_width_bits;
    double mem_total_bytes;       /* cudaMemGetInfo; NAN when refused */
    double mem_free_bytes;        /* integrated: MemAvailable when larger (env_gpu_mem_free) */
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
 * the calling thread's current device as it found it. */
void cuda_probe(struct cuda_info *ci);

/* The device every GPU experiment measures: the first the driver lists (CUDA_VISIBLE_DEVICES
 * chooses which that is), described by cuda_info.dev[CUDA_DEVICE]. */
#define CUDA_DEVICE 0

/* Makes CUDA_DEVICE current on the calling thread: the current device belongs to each thread
 * (a new thread starts on device 0), so every backend's open and every thread that launches
 * work call this first. 0, or -1 with err. Builds with CUDA only. */
int cuda_use_device(char *err, size_t errlen);

/* Blocks of `block` threads that fill the current device once at `kernel`'s full occupancy
 * (kernel: a __global__ function's address); 0, or -1 with err. Builds with CUDA only. */
int cuda_full_grid(const void *kernel, int block, int *blocks, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif
