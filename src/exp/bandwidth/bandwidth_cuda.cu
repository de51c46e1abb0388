/* bandwidth_cuda.cu: the CUDA backend of the bandwidth family (bw_cuda_ops) and host<->device
 * transfers (bw_cuda_xfer). Kernels use 16-byte vector loads, UNROLL in flight per thread, over a grid that fills the device
 * (cuda_grid_for) and repeat passes inside one launch for cache-sized arrays; pageable memory
 * is kept on the host side; times come from CUDA events; outputs are checked on the device
 * against bandwidth_ref.h, the same plain twin the CPU uses. Sweeps, statistics and records are
 * bandwidth.c's and bandwidth_gpu.c's. */
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cuda/cuda.h"
#include "cuda/cuda_check.h"
#include "cuda/block_sum.cuh"
#include "exp/bandwidth/bandwidth.h"

#define BLOCK 256                   /* threads per block */

template <typename T> struct vec16;
template <> struct vec16<double> { typedef double2 type; enum { width = 2 }; };
template <> struct vec16<float> { typedef float4 type; enum { width = 4 }; };

__device__ inline double2 vop(int k, double2 a, double2 b, double s)
{
    switch (k) {
    case BW_COPY: return a;
    case BW_SCALE: return make_double2(s * a.x, s * a.y);
    case BW_ADD: return make_double2(a.x + b.x, a.y + b.y);
    case BW_TRIAD: return make_double2(a.x + s * b.x, a.y + s * b.y);
    default: return make_double2(s, s);             /* fill */
    }
}

__device__ inline float4 vop(int k, float4 a, float4 b, float s)
{
    switch (k) {
    case BW_COPY: return a;
    case BW_SCALE: return make_float4(s * a.x, s * a.y, s * a.z, s * a.w);
    case BW_ADD: return make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w);
    case BW_TRIAD: return make_float4(a.x + s * b.x, a.y + s * b.y, a.z + s * b.z, a.w + s * b.w);
    default: return make_float4(s, s, s, s);        /* fill */
    }
}

template <typename T> __device__ inline T sop(int k, T a, T b, T s)
{
    return k == BW_COPY ? a : k == BW_SCALE ? s * a : k == BW_ADD ? a + b : k == BW_TRIAD ? a + s * b : s;
}

#define UNROLL 4                    /* 16-byte loads each thread keeps in flight per array */

/* `passes` passes of kernel K over n elements. Each thread touches the same elements on every
 * pass and no element is read by another thread than the one writing it, so passes need no
 * grid-wide barrier. Each thread issues UNROLL loads of each array before it stores (one load in
 * flight per thread leaves HBM's latency uncovered at the occupancy a full grid has). */
template <typename T, int K>
__global__ void stream(const T *__restrict__ a, const T *__restrict__ b, T *__restrict__ c, size_t n,
                       int passes)
{
    typedef typename vec16<T>::type V;
    const int W = vec16<T>::width;
    const size_t nv = n / W, stride = (size_t)gridDim.x * blockDim.x;
    const size_t first = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    const T s = (T)BW_SCALAR;
    const V *av = (const V *)a, *bv = (const V *)b;
    V *cv = (V *)c;
    for (int p = 0; p < passes; p++) {
        size_t i = first;
        for (; i + (UNROLL - 1) * stride < nv; i += UNROLL * stride) {
            V x[UNROLL], y[UNROLL];
#pragma unroll
            for (int u = 0; u < UNROLL; u++) {
                x[u] = K == BW_FILL ? V() : av[i + u * stride];
                y[u] = (K == BW_ADD || K == BW_TRIAD) ? bv[i + u * stride] : V();
            }
#pragma unroll
            for (int u = 0; u < UNROLL; u++)
                cv[i + u * stride] = vop(K, x[u], y[u], s);
        }
        for (; i < nv; i += stride) {
            V x = K == BW_FILL ? V() : av[i];
            V y = (K == BW_ADD || K == BW_TRIAD) ? bv[i] : V();
            cv[i] = vop(K, x, y, s);
        }
        for (size_t i = nv * W + first; i < n; i += stride)
            c[i] = sop<T>(K, K == BW_FILL ? s : a[i], (K == BW_ADD || K == BW_TRIAD) ? b[i] : s, s);
    }
}

/* The read kernel: each thread sums its elements of one pass in T (exact for the reference
 * values, see bandwidth_ref.h) and adds that to an FP64 total over all passes, so every pass
 * reaches the output (a sum kept per pass would let the compiler drop all passes but the last);
 * the block adds the thread totals in FP64, one partial sum per block: passes x the array's. */
template <typename T>
__global__ void read_sum(const T *__restrict__ a, size_t n, int passes, double *partial)
{
    typedef typename vec16<T>::type V;
    const int W = vec16<T>::width;
    __shared__ double sums[BLOCK];
    const size_t nv = n / W, stride = (size_t)gridDim.x * blockDim.x;
    const size_t first = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    const V *av = (const V *)a;
    double total = 0;
    for (int p = 0; p < passes; p++) {
        T t = 0, tu[UNROLL] = {};           /* any order is exact: bandwidth_ref.h */
        size_t i = first;
        for (; i + (UNROLL - 1) * stride < nv; i += UNROLL * stride) {
            V x[UNROLL];
#pragma unroll
            for (int u = 0; u < UNROLL; u++)
                x[u] = av[i + u * stride];
#pragma unroll
            for (int u = 0; u < UNROLL; u++) {
                const T *e = (const T *)&x[u];
                for (int j = 0; j < W; j++)
                    tu[u] += e[j];
            }
        }
        for (; i < nv; i += stride) {
            V x = av[i];
            const T *e = (const T *)&x;
            for (int j = 0; j < W; j++)
                t += e[j];
        }
        for (int u = 0; u < UNROLL; u++)
            t += tu[u];
        for (size_t i = nv * W + first; i < n; i += stride)
            t += a[i];
        total += (double)t;
    }
    block_sum_store(sums, total, partial);
}

template <typename T> __global__ void init_arrays(T *a, T *b, T *c, size_t n)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        a[i] = (T)bw_init_a(i);
        b[i] = (T)bw_init_b(i);
        c[i] = 0;
    }
}

/* Largest relative error of c against the reference; one maximum per block. */
template <typename T> __global__ void check_output(const T *c, size_t n, int k, double *worst)
{
    __shared__ double m[BLOCK];
    double e = 0;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        double want = bw_expected((enum bw_kernel)k, i), d = fabs((double)c[i] - want) / fabs(want);
        e = d > e || d != d ? (d != d ? INFINITY : d) : e;
    }
    m[threadIdx.x] = e;
    __syncthreads();
    for (int w = blockDim.x / 2; w > 0; w /= 2) {
        if ((int)threadIdx.x < w)
            m[threadIdx.x] = fmax(m[threadIdx.x], m[threadIdx.x + w]);
        __syncthreads();
    }
    if (threadIdx.x == 0)
        worst[blockIdx.x] = m[0];
}

/* ---- the ops ---- */

struct gpu {
    cudaEvent_t start, stop;
    double *partial;                /* device: one sum or error per block */
    double *partial_h;              /* host copy */
    struct cuda_grid grid;          /* the stream kernels': the whole device, whatever n */
    int passes;                     /* of the last launch: the read kernel's sum is passes x */
    void *ha, *hb, *hc;             /* host allocations behind pinned / malloc paths */
    char err[256];                  /* the last failed call of run or check (cuda_words.h) */
};

/* The stream kernels of one element type, indexed by enum bw_kernel (read has its own). */
template <typename T> struct stream_table {
    typedef void (*fn)(const T *, const T *, T *, size_t, int);
    static fn at(int k)
    {
        static const fn table[BW_NKERNELS] = { stream<T, BW_COPY>, stream<T, BW_SCALE>, stream<T, BW_ADD>,
                                               stream<T, BW_TRIAD>, NULL, stream<T, BW_FILL> };
        return table[k];
    }
};

/* Pageable memory a kernel reaches through HMM stays on the host: the preferred location is
 * the CPU (else the driver migrates pages a kernel uses often into device memory, and "pageable
 * via SM" measures device memory at TB/s), and the host touches every page before each sample,
 * which brings back any page that moved anyway. The advice is a hint, best-effort: a driver
 * that declines it still gets the touch. */
static void host_prefer(void *p, size_t bytes)
{
    struct cudaMemLocation cpu = { cudaMemLocationTypeHost, 0 };
    if (cudaMemAdvise(p, bytes, cudaMemAdviseSetPreferredLocation, cpu) != cudaSuccess)
        cudaGetLastError();
}

static void host_touch(const void *p, size_t bytes)
{
    const volatile unsigned char *c = (const volatile unsigned char *)p;
    long page = sysconf(_SC_PAGESIZE);
    size_t step = page > 0 ? (size_t)page : 4096;
    unsigned char sink = 0;
    for (size_t i = 0; i < bytes; i += step)
        sink ^= c[i];
    (void)sink;
}

template <typename T> static cudaError_t launch(struct bw_arrays *x, struct gpu *g, enum bw_kernel k, int passes)
{
    if (k == BW_READ) {
        read_sum<T><<<g->grid.blocks, BLOCK>>>((const T *)x->a, x->n, passes, g->partial);
    } else {
        typename stream_table<T>::fn f = stream_table<T>::at(k);
        f<<<g->grid.blocks, BLOCK>>>((const T *)x->a, (const T *)x->b, (T *)x->c, x->n, passes);
    }
    return cudaGetLastError();
}

extern "C" {

static int cuda_supports(enum bw_path path, char *why, size_t whylen)
{
    int dev = CUDA_DEVICE, v = 0;
    if (cuda_use_device(why, whylen) != 0)
        return -1;
    switch (path) {
    case BW_PATH_DEVICE:
    case BW_PATH_PINNED:
        return 0;
    case BW_PATH_MANAGED:
    case BW_PATH_MANAGED_PREFETCH:
        CUDA_CHECK(cudaDeviceGetAttribute(&v, cudaDevAttrManagedMemory, dev), why, whylen);
        if (v)
            return 0;
        snprintf(why, whylen, "the device reports no managed memory (cudaDevAttrManagedMemory = 0)");
        return -1;
    case BW_PATH_MALLOC:
        CUDA_CHECK(cudaDeviceGetAttribute(&v, cudaDevAttrPageableMemoryAccess, dev), why, whylen);
        if (v)
            return 0;
        snprintf(why, whylen, "the device reports no pageable memory access (cudaDevAttrPageableMemoryAccess = 0): "
                 "kernels cannot use malloc'ed memory (no HMM/ATS)");
        return -1;
    default:
        snprintf(why, whylen, "not a GPU allocation path");
        return -1;
    }
fail:
    return -1;
}

/* Frees what cuda_alloc made; errors of the frees are of no use to anyone and are cleared. */
static void cuda_release(struct bw_arrays *x)
{
    struct gpu *g = (struct gpu *)x->backend;
    if (g) {
        if (x->path == BW_PATH_DEVICE || x->path == BW_PATH_MANAGED || x->path == BW_PATH_MANAGED_PREFETCH) {
            cudaFree(x->a);
            cudaFree(x->b);
            cudaFree(x->c);
        } else if (x->path == BW_PATH_PINNED) {
            cudaFreeHost(g->ha);
            cudaFreeHost(g->hb);
            cudaFreeHost(g->hc);
        } else {
            free(g->ha);
            free(g->hb);
            free(g->hc);
        }
        cudaFree(g->partial);
        free(g->partial_h);
        cudaEventDestroy(g->start);
        cudaEventDestroy(g->stop);
        free(g);
    }
    cudaGetLastError();
    memset(x, 0, sizeof *x);
}

/* Host-side initial values, for paths the host writes first. */
static void init_host(struct bw_arrays *x)
{
    for (size_t i = 0; i < x->n; i++) {
        if (x->prec == BW_FP64) {
            ((double *)x->a)[i] = bw_init_a(i);
            ((double *)x->b)[i] = bw_init_b(i);
            ((double *)x->c)[i] = 0;
        } else {
            ((float *)x->a)[i] = (float)bw_init_a(i);
            ((float *)x->b)[i] = (float)bw_init_b(i);
            ((float *)x->c)[i] = 0;
        }
    }
}

static int place(struct bw_arrays *x, struct gpu *g, size_t bytes, char *err, size_t errlen)
{
    void **arr[3] = { &x->a, &x->b, &x->c }, **host[3] = { &g->ha, &g->hb, &g->hc };
    for (int i = 0; i < 3; i++) {
        switch (x->path) {
        case BW_PATH_DEVICE:
            CUDA_CHECK(cudaMalloc(arr[i], bytes), err, errlen);
            break;
        case BW_PATH_MANAGED:
        case BW_PATH_MANAGED_PREFETCH:
            CUDA_CHECK(cudaMallocManaged(arr[i], bytes, cudaMemAttachGlobal), err, errlen);
            break;
        case BW_PATH_PINNED:
            CUDA_CHECK(cudaHostAlloc(host[i], bytes, cudaHostAllocMapped), err, errlen);
            CUDA_CHECK(cudaHostGetDevicePointer(arr[i], *host[i], 0), err, errlen);
            break;
        default:
            if (posix_memalign(host[i], (size_t)2 << 20, bytes) != 0) {
                snprintf(err, errlen, "cannot allocate %zu bytes of host memory", bytes);
                return -1;
            }
            *arr[i] = *host[i];
            host_prefer(*host[i], bytes);
        }
    }
    return 0;
fail:
    return -1;
}

static int cuda_alloc(struct bw_arrays *x, const struct bw_layout *l, char *err, size_t errlen)
{
    struct gpu *g = (struct gpu *)calloc(1, sizeof *g);
    size_t bytes = l->n * bw_prec_size[l->prec];
    memset(x, 0, sizeof *x);
    x->n = l->n;
    x->prec = l->prec;
    x->path = l->path;
    x->backend = g;
    if (!g) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    if (cuda_use_device(err, errlen) != 0)
        goto fail;
    CUDA_CHECK(cudaEventCreate(&g->start), err, errlen);
    CUDA_CHECK(cudaEventCreate(&g->stop), err, errlen);
    if (place(x, g, bytes, err, errlen) != 0)
        goto fail;
    if (cuda_grid_for(l->prec == BW_FP64 ? (const void *)stream_table<double>::at(BW_TRIAD)
                                         : (const void *)stream_table<float>::at(BW_TRIAD),
                      BLOCK, l->n / (l->prec == BW_FP64 ? 2 : 4), &g->grid, err, errlen) != 0)   /* 16-byte vectors */
        goto fail;
    CUDA_CHECK(cudaMalloc(&g->partial, (size_t)g->grid.blocks * sizeof(double)), err, errlen);
    g->partial_h = (double *)calloc((size_t)g->grid.blocks, sizeof(double));
    if (x->path == BW_PATH_DEVICE) {
        if (l->prec == BW_FP64)
            init_arrays<double><<<g->grid.blocks, BLOCK>>>((double *)x->a, (double *)x->b, (double *)x->c, x->n);
        else
            init_arrays<float><<<g->grid.blocks, BLOCK>>>((float *)x->a, (float *)x->b, (float *)x->c, x->n);
        CUDA_CHECK(cudaGetLastError(), err, errlen);
    } else {
        init_host(x);                   /* the host writes first: pages start on its side */
    }
    if (x->path == BW_PATH_MANAGED_PREFETCH) {
        struct cudaMemLocation loc = { cudaMemLocationTypeDevice, CUDA_DEVICE };
        CUDA_CHECK(cudaMemPrefetchAsync(x->a, bytes, loc, 0, 0), err, errlen);
        CUDA_CHECK(cudaMemPrefetchAsync(x->b, bytes, loc, 0, 0), err, errlen);
        CUDA_CHECK(cudaMemPrefetchAsync(x->c, bytes, loc, 0, 0), err, errlen);
    }
    CUDA_CHECK(cudaDeviceSynchronize(), err, errlen);
    return 0;
fail:
    cuda_release(x);
    return -1;
}

/* Seconds of `iters` passes; -1 when a call failed (its words in the backend's err). */
static double cuda_run(struct bw_arrays *x, enum bw_kernel k, long iters)
{
    struct gpu *g = (struct gpu *)x->backend;
    float ms = 0;
    if (x->path == BW_PATH_MALLOC) {                /* pages back home, outside the timed span */
        size_t bytes = x->n * bw_prec_size[x->prec];
        host_touch(g->ha, bytes);
        host_touch(g->hb, bytes);
        host_touch(g->hc, bytes);
    }
    CUDA_CHECK(cudaEventRecord(g->start, 0), g->err, sizeof g->err);
    for (long done = 0; done < iters;) {            /* passes per launch fit an int */
        g->passes = iters - done > (1 << 30) ? (1 << 30) : (int)(iters - done);
        CUDA_CHECK(x->prec == BW_FP64 ? launch<double>(x, g, k, g->passes) : launch<float>(x, g, k, g->passes),
                   g->err, sizeof g->err);
        done += g->passes;
    }
    CUDA_CHECK(cudaEventRecord(g->stop, 0), g->err, sizeof g->err);
    CUDA_CHECK(cudaEventSynchronize(g->stop), g->err, sizeof g->err);
    CUDA_CHECK(cudaEventElapsedTime(&ms, g->start, g->stop), g->err, sizeof g->err);
    if (k == BW_READ) {
        x->sum = 0;
        CUDA_CHECK(cudaMemcpy(g->partial_h, g->partial, (size_t)g->grid.blocks * sizeof(double), cudaMemcpyDeviceToHost),
                   g->err, sizeof g->err);
        for (int i = 0; i < g->grid.blocks; i++)
            x->sum += g->partial_h[i];
        x->sum /= g->passes;                        /* exact: each pass adds the same FP64 sum */
    }
    return ms * 1e-3;
fail:
    return -1.0;
}

/* Largest relative error of the last pass; INFINITY when the check itself failed. */
static double gpu_check(struct bw_arrays *x, enum bw_kernel k)
{
    struct gpu *g = (struct gpu *)x->backend;
    double worst = 0;
    if (k == BW_READ) {
        double want = bw_expected_sum(x->n);
        return fabs(x->sum - want) / want;
    }
    if (x->prec == BW_FP64)
        check_output<double><<<g->grid.blocks, BLOCK>>>((const double *)x->c, x->n, k, g->partial);
    else
        check_output<float><<<g->grid.blocks, BLOCK>>>((const float *)x->c, x->n, k, g->partial);
    CUDA_CHECK(cudaGetLastError(), g->err, sizeof g->err);
    CUDA_CHECK(cudaMemcpy(g->partial_h, g->partial, (size_t)g->grid.blocks * sizeof(double), cudaMemcpyDeviceToHost),
               g->err, sizeof g->err);
    for (int i = 0; i < g->grid.blocks; i++)
        worst = fmax(worst, g->partial_h[i]);
    return worst;
fail:
    return INFINITY;
}

/* store_allocates 0: a warp's 16-byte stores fill whole 32-byte sectors, which the L2 writes
 * without reading them first; a write-allocate view (reads + 2 x writes) would claim more than
 * the memory can move (an H200 copy at 4.3 TB/s would read 6.4, over HBM3e's 4.8). */
const struct bw_ops bw_cuda_ops = { "gpu", cuda_supports, cuda_alloc, cuda_run, gpu_check, cuda_release, 0, NULL };

} /* extern "C" */

/* ---- host<->device transfers ---- */

/* The byte a transfer buffer holds at offset i: sources differ by direction, so a copy that
 * went the wrong way or not at all is caught. */
__host__ __device__ inline unsigned char pattern(size_t i, int dir) { return (unsigned char)(i * 131u + 7u + 64u * dir); }

__global__ void fill_pattern(unsigned char *p, size_t n, int dir)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        p[i] = pattern(i, dir);
}

/* An SM copy: 16-byte words, the grid covering the device. */
__global__ void sm_copy(const uint4 *__restrict__ src, uint4 *__restrict__ dst, size_t words)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < words; i += (size_t)gridDim.x * blockDim.x)
        dst[i] = src[i];
}

struct bw_xfer {
    size_t bytes;
    int pinned, pageable_access;
    unsigned char *h_src, *h_dst;       /* host: source of H2D, destination of D2H */
    unsigned char *hd_src, *hd_dst;     /* the same as the device sees them (mapped or HMM) */
    unsigned char *d_src, *d_dst;       /* device: source of D2H, destination of H2D */
    cudaStream_t s[2];
    cudaEvent_t e[4];
    struct cuda_grid grid;              /* sm_copy over the buffer: the whole device */
    int split[2];                       /* its blocks per direction of a bidirectional copy */
    char err[256];                      /* the last failed call of run or check (cuda_words.h) */
};

extern "C" {

/* Frees what xfer_open made; errors of the frees are of no use to anyone and are cleared. */
static void xfer_close(struct bw_xfer *t)
{
    if (!t)
        return;
    if (t->pinned) {
        cudaFreeHost(t->h_src);
        cudaFreeHost(t->h_dst);
    } else {
        free(t->h_src);
        free(t->h_dst);
    }
    cudaFree(t->d_src);
    cudaFree(t->d_dst);
    for (int i = 0; i < 2; i++)
        if (t->s[i])
            cudaStreamDestroy(t->s[i]);
    for (int i = 0; i < 4; i++)
        if (t->e[i])
            cudaEventDestroy(t->e[i]);
    cudaGetLastError();
    free(t);
}

static struct bw_xfer *xfer_open(size_t bytes, int pinned, char *err, size_t errlen)
{
    struct bw_xfer *t = (struct bw_xfer *)calloc(1, sizeof *t);
    if (!t) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    t->bytes = bytes;
    t->pinned = pinned;
    if (cuda_use_device(err, errlen) != 0)
        goto fail;
    CUDA_CHECK(cudaDeviceGetAttribute(&t->pageable_access, cudaDevAttrPageableMemoryAccess, CUDA_DEVICE), err, errlen);
    if (pinned) {
        CUDA_CHECK(cudaHostAlloc(&t->h_src, bytes, cudaHostAllocMapped), err, errlen);
        CUDA_CHECK(cudaHostAlloc(&t->h_dst, bytes, cudaHostAllocMapped), err, errlen);
        CUDA_CHECK(cudaHostGetDevicePointer(&t->hd_src, t->h_src, 0), err, errlen);
        CUDA_CHECK(cudaHostGetDevicePointer(&t->hd_dst, t->h_dst, 0), err, errlen);
    } else {
        if (posix_memalign((void **)&t->h_src, 4096, bytes) != 0 || posix_memalign((void **)&t->h_dst, 4096, bytes) != 0) {
            snprintf(err, errlen, "cannot allocate %zu bytes of pageable host memory", bytes);
            goto fail;
        }
        t->hd_src = t->h_src;
        t->hd_dst = t->h_dst;
        if (t->pageable_access) {
            host_prefer(t->h_src, bytes);
            host_prefer(t->h_dst, bytes);
        }
    }
    CUDA_CHECK(cudaMalloc(&t->d_src, bytes), err, errlen);
    CUDA_CHECK(cudaMalloc(&t->d_dst, bytes), err, errlen);
    for (int i = 0; i < 2; i++)
        CUDA_CHECK(cudaStreamCreateWithFlags(&t->s[i], cudaStreamNonBlocking), err, errlen);
    for (int i = 0; i < 4; i++)
        CUDA_CHECK(cudaEventCreate(&t->e[i]), err, errlen);
    for (size_t i = 0; i < bytes; i++)
        t->h_src[i] = pattern(i, BW_H2D);
    if (cuda_grid_for((const void *)sm_copy, BLOCK, bytes / 16, &t->grid, err, errlen) != 0)
        goto fail;
    cuda_grid_split(&t->grid, t->split);
    fill_pattern<<<t->grid.blocks, BLOCK>>>(t->d_src, bytes, BW_D2H);
    CUDA_CHECK(cudaGetLastError(), err, errlen);
    CUDA_CHECK(cudaDeviceSynchronize(), err, errlen);
    return t;
fail:
    xfer_close(t);
    return NULL;
}

static int xfer_supports(struct bw_xfer *t, enum bw_engine e, char *why, size_t whylen)
{
    if (e == BW_CE || t->pinned || t->pageable_access)
        return 0;
    snprintf(why, whylen, "the device reports no pageable memory access (cudaDevAttrPageableMemoryAccess = 0): "
             "an SM kernel cannot reach pageable host memory");
    return -1;
}

/* One direction on stream s; an SM copy on `blocks` blocks. */
static cudaError_t xfer_one(struct bw_xfer *t, int h2d, enum bw_engine e, cudaStream_t s, int blocks)
{
    if (e == BW_CE)
        return h2d ? cudaMemcpyAsync(t->d_dst, t->h_src, t->bytes, cudaMemcpyHostToDevice, s)
                   : cudaMemcpyAsync(t->h_dst, t->d_src, t->bytes, cudaMemcpyDeviceToHost, s);
    if (h2d)
        sm_copy<<<blocks, BLOCK, 0, s>>>((const uint4 *)t->hd_src, (uint4 *)t->d_dst, t->bytes / 16);
    else
        sm_copy<<<blocks, BLOCK, 0, s>>>((const uint4 *)t->d_src, (uint4 *)t->hd_dst, t->bytes / 16);
    return cudaGetLastError();
}

/* Seconds of one transfer; -1 when a call failed (its words in t->err). */
static double xfer_run(struct bw_xfer *t, enum bw_dir d, enum bw_engine e)
{
    float ms = 0;
    if (e == BW_SM && !t->pinned) {                 /* pages back home, outside the timed span */
        host_touch(t->h_src, t->bytes);
        host_touch(t->h_dst, t->bytes);
    }
    CUDA_CHECK(cudaEventRecord(t->e[0], t->s[0]), t->err, sizeof t->err);
    if (d == BW_BIDIR) {                            /* each direction its share of the SMs */
        CUDA_CHECK(cudaStreamWaitEvent(t->s[1], t->e[0], 0), t->err, sizeof t->err);   /* both start together */
        CUDA_CHECK(xfer_one(t, 1, e, t->s[0], t->split[0]), t->err, sizeof t->err);
        CUDA_CHECK(xfer_one(t, 0, e, t->s[1], t->split[1]), t->err, sizeof t->err);
        CUDA_CHECK(cudaEventRecord(t->e[2], t->s[1]), t->err, sizeof t->err);
        CUDA_CHECK(cudaStreamWaitEvent(t->s[0], t->e[2], 0), t->err, sizeof t->err);   /* ends when both have */
    } else {
        CUDA_CHECK(xfer_one(t, d == BW_H2D, e, t->s[0], t->grid.blocks), t->err, sizeof t->err);
    }
    CUDA_CHECK(cudaEventRecord(t->e[1], t->s[0]), t->err, sizeof t->err);
    CUDA_CHECK(cudaEventSynchronize(t->e[1]), t->err, sizeof t->err);
    CUDA_CHECK(cudaEventElapsedTime(&ms, t->e[0], t->e[1]), t->err, sizeof t->err);
    return ms * 1e-3;
fail:
    return -1.0;
}

/* 0 when the last transfer's destination holds the source's pattern; then clears it, so the
 * next check sees only the next copy. */
static int xfer_check(struct bw_xfer *t, enum bw_dir d)
{
    int bad = 0;
    unsigned char *back = NULL;
    if (d == BW_H2D || d == BW_BIDIR) {
        back = (unsigned char *)malloc(t->bytes);
        if (!back)
            goto fail;
        CUDA_CHECK(cudaMemcpy(back, t->d_dst, t->bytes, cudaMemcpyDeviceToHost), t->err, sizeof t->err);
        for (size_t i = 0; !bad && i < t->bytes; i++)
            bad = back[i] != pattern(i, BW_H2D);
        CUDA_CHECK(cudaMemset(t->d_dst, 0, t->bytes), t->err, sizeof t->err);
    }
    if (d == BW_D2H || d == BW_BIDIR) {
        for (size_t i = 0; !bad && i < t->bytes; i++)
            bad = t->h_dst[i] != pattern(i, BW_D2H);
        memset(t->h_dst, 0, t->bytes);
    }
    CUDA_CHECK(cudaDeviceSynchronize(), t->err, sizeof t->err);
    free(back);
    return bad ? -1 : 0;
fail:
    free(back);
    return -1;
}

const struct bw_xfer_ops bw_cuda_xfer = { xfer_open, xfer_supports, xfer_run, xfer_check, xfer_close };

} /* extern "C" */
