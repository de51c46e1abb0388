/* cuda_env.cu: asks the CUDA runtime which devices there are and what they are. A missing
 * driver is an answer ("no device", with the runtime's words), never a failure, so every call
 * in the probe is checked by hand and its failure turned into that answer. Also the grid that
 * fills the device, which every backend sizes its launches from, and the device each thread uses. */
#include <cublasLt.h>
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cuda/cuda.h"
#include "cuda/cuda_check.h"
#include "util/machine.h"

static_assert((int)cudaErrorECCUncorrectable == CUDA_WORDS_ECC_UNCORRECTABLE, "cuda_words.h's sticky codes");
static_assert((int)cudaErrorIllegalAddress == CUDA_WORDS_ILLEGAL_ADDRESS, "cuda_words.h's sticky codes");
static_assert((int)cudaErrorLaunchTimeout == CUDA_WORDS_LAUNCH_TIMEOUT, "cuda_words.h's sticky codes");
static_assert((int)cudaErrorAssert == CUDA_WORDS_ASSERT, "cuda_words.h's sticky codes");
static_assert((int)cudaErrorHardwareStackError == CUDA_WORDS_HARDWARE_STACK_ERROR, "cuda_words.h's sticky codes");
static_assert((int)cudaErrorIllegalInstruction == CUDA_WORDS_ILLEGAL_INSTRUCTION, "cuda_words.h's sticky codes");
static_assert((int)cudaErrorMisalignedAddress == CUDA_WORDS_MISALIGNED_ADDRESS, "cuda_words.h's sticky codes");
static_assert((int)cudaErrorInvalidAddressSpace == CUDA_WORDS_INVALID_ADDRESS_SPACE, "cuda_words.h's sticky codes");
static_assert((int)cudaErrorInvalidPc == CUDA_WORDS_INVALID_PC, "cuda_words.h's sticky codes");
static_assert((int)cudaErrorLaunchFailure == CUDA_WORDS_LAUNCH_FAILURE, "cuda_words.h's sticky codes");

static int attr(cudaDeviceAttr a, int dev)
{
    int v = 0;
    if (cudaDeviceGetAttribute(&v, a, dev) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return v;
}

/* Properties and attributes need no context. Free memory does (cudaMemGetInfo, and cudaSetDevice
 * creates the primary context since CUDA 12): only the device measured is asked, so a probe costs
 * no context, about 0.5 GB each, on the other GPUs, and no refusal where they are in
 * exclusive-process mode and another process (another MPI rank) holds them. */
static void probe_device(int i, struct cuda_device *d)
{
    cudaDeviceProp p;
    memset(d, 0, sizeof *d);
    if (cudaGetDeviceProperties(&p, i) != cudaSuccess) {
        cudaGetLastError();
        snprintf(d->name, sizeof d->name, "device %d (properties unavailable)", i);
        return;
    }
    snprintf(d->name, sizeof d->name, "%s", p.name);
    d->major = p.major;
    d->minor = p.minor;
    d->sms = p.multiProcessorCount;
    d->l2_bytes = p.l2CacheSize;
    d->bus_width_bits = p.memoryBusWidth;
    d->integrated = p.integrated;
    d->clock_khz = attr(cudaDevAttrClockRate, i);
    d->mem_clock_khz = attr(cudaDevAttrMemoryClockRate, i);
    d->pageable_access = attr(cudaDevAttrPageableMemoryAccess, i);
    d->concurrent_managed = attr(cudaDevAttrConcurrentManagedAccess, i);
    size_t fr = 0, tot = 0;
    d->mem_total_bytes = (double)p.totalGlobalMem;
    d->mem_free_bytes = NAN;
    if (cuda_probe_asks_memory(i) && cudaSetDevice(i) == cudaSuccess && cudaMemGetInfo(&fr, &tot) == cudaSuccess) {
        d->mem_total_bytes = (double)tot;
        d->mem_free_bytes = (double)fr;
    }
    cudaGetLastError();
    d->mem_free_bytes = machine_gpu_mem_free(d->mem_free_bytes, d->integrated, machine_mem_available(), &d->mem_free_source);
}

/* Three cases a reader must tell apart: no driver at all (no CUDA device), a driver older than the
 * runtime this build carries (driver too old: versions named), and any other refusal. */
static void cuda_word_reason(struct cuda_info *ci, cudaError_t e)
{
    int d = ci->driver_version, r = ci->runtime_version;
    if (e == cudaErrorInsufficientDriver && d > 0)
        snprintf(ci->reason, sizeof ci->reason, "CUDA driver too old: the driver supports CUDA %d.%d, this "
                 "build's runtime needs %d.%d (%s)", d / 1000, d % 1000 / 10, r / 1000, r % 1000 / 10,
                 cudaGetErrorName(e));
    else if (e == cudaErrorInsufficientDriver)
        snprintf(ci->reason, sizeof ci->reason, "no CUDA device: no NVIDIA driver is loaded (%s)",
                 cudaGetErrorName(e));
    else
        snprintf(ci->reason, sizeof ci->reason, "no CUDA device: %s (%s)", cudaGetErrorString(e),
                 cudaGetErrorName(e));
}

extern "C" void cuda_probe(struct cuda_info *ci)
{
    memset(ci, 0, sizeof *ci);
    ci->built = 1;
    if (cudaRuntimeGetVersion(&ci->runtime_version) != cudaSuccess)
        ci->runtime_version = 0;
    if (cudaDriverGetVersion(&ci->driver_version) != cudaSuccess)
        ci->driver_version = 0;
    ci->cublaslt_version = (long)cublasLtGetVersion();      /* needs no device */
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess) {
        cuda_word_reason(ci, e);
        cudaGetLastError();
        return;
    }
    if (n == 0) {
        snprintf(ci->reason, sizeof ci->reason, "no CUDA device: the driver reports none");
        return;
    }
    ci->ndev = n < CUDA_MAX_DEVICES ? n : CUDA_MAX_DEVICES;
    int current = CUDA_DEVICE;
    if (cudaGetDevice(&current) != cudaSuccess)
        current = CUDA_DEVICE;
    for (int i = 0; i < ci->ndev; i++)
        probe_device(i, &ci->dev[i]);       /* makes CUDA_DEVICE current to ask its memory */
    if (current != CUDA_DEVICE)
        cudaSetDevice(current);
    cudaGetLastError();
}

extern "C" int cuda_count(char *why, size_t n)
{
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);     /* initialises the driver, creates no context */
    if (e == cudaSuccess && count > 0)
        return count;
    if (e != cudaSuccess) {
        struct cuda_info ci;
        memset(&ci, 0, sizeof ci);
        cudaRuntimeGetVersion(&ci.runtime_version);
        cudaDriverGetVersion(&ci.driver_version);
        cuda_word_reason(&ci, e);
        cudaGetLastError();
        snprintf(why, n, "%s", ci.reason);
    } else {
        snprintf(why, n, "no CUDA device: the driver reports none");
    }
    return 0;
}

extern "C" int cuda_use_device(char *err, size_t errlen)
{
    CUDA_CHECK(cudaSetDevice(CUDA_DEVICE), err, errlen);
    return 0;
fail:
    return -1;
}

extern "C" int cuda_grid_for(const void *kernel, int block, size_t n, struct cuda_grid *g, char *err, size_t errlen)
{
    int dev = 0, sms = 1, per_sm = 1;
    CUDA_CHECK(cudaGetDevice(&dev), err, errlen);
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev), err, errlen);
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, block, 0), err, errlen);
    *g = cuda_grid_fill(n, sms, per_sm, block);
    return 0;
fail:
    return -1;
}

extern "C" int cuda_full_grid(const void *kernel, int block, int *blocks, char *err, size_t errlen)
{
    struct cuda_grid g;
    if (cuda_grid_for(kernel, block, 0, &g, err, errlen) != 0)
        return -1;
    *blocks = g.blocks;
    return 0;
}
