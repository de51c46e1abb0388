/* collective_nccl.cu: the collective experiment's device buffers: this rank's GPU, its NCCL
 * communicator, the copies between the host part's buffers and the device, and the operations
 * on one stream. Every copy, clear and operation goes on that one stream, so each is ordered
 * after the one before (no legacy-stream call: the stream is non-blocking); every wait polls,
 * asks NCCL for a peer's failure and ends at COLL_NCCL_TIMEOUT_S. The commands, the fill and
 * the check of the values, and the MPI calls (the unique id's broadcast, barriers, the slowest
 * rank's time) stay in collective_mpi.c; which GPU, and how a wait ends, collective_gpu.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nccl.h>

#include "cuda/cuda_check.h"
#include "exp/collective/collective_int.h"

static_assert(sizeof(ncclUniqueId) == COLL_NCCL_ID_BYTES, "COLL_NCCL_ID_BYTES is NCCL_UNIQUE_ID_BYTES");

/* As CUDA_CHECK, for NCCL's result codes: "FILE:LINE: CALL: NCCL's words", then `goto fail`. */
#define NCCL_CHECK(call, err, errlen)                                                        \
    do {                                                                                     \
        ncclResult_t r_ = (call);                                                            \
        if (r_ != ncclSuccess) {                                                             \
            snprintf((err), (errlen), "%s:%d: %s: %s", __FILE__, __LINE__, #call,            \
                     ncclGetErrorString(r_));                                                \
            goto fail;                                                                       \
        }                                                                                    \
    } while (0)

static struct {
    ncclComm_t comm;            /* NULL until open */
    cudaStream_t stream;
    int device;                 /* local rank modulo the devices of this host */
    float *send, *recv;         /* device: nsend, nrecv float32 elements */
    int64_t nsend, nrecv;
} nc;

static const char *nccl_version(char *buf, size_t n)
{
    int v = 0;
    if (ncclGetVersion(&v) != ncclSuccess)
        snprintf(buf, n, "NCCL (version not reported)");
    else
        snprintf(buf, n, "NCCL %d.%d.%d", v / 10000, v % 10000 / 100, v % 100);
    return buf;
}

static int nccl_new_id(void *id, char *err, size_t errlen)
{
    NCCL_CHECK(ncclGetUniqueId((ncclUniqueId *)id), err, errlen);
    return 0;
fail:
    return -1;
}

static const char *env_get(const char *name)
{
    return getenv(name);
}

/* This rank's GPU (coll_gpu_choose) and its stream; no communicator yet. */
static int nccl_select(int mpi_local, char *err, size_t errlen)
{
    const char *source = "";
    int count = 0;
    CUDA_CHECK(cudaGetDeviceCount(&count), err, errlen);
    if ((nc.device = coll_gpu_choose(mpi_local, env_get, count, &source, err, errlen)) < 0)
        return -1;
    CUDA_CHECK(cudaSetDevice(nc.device), err, errlen);
    if (!nc.stream)
        CUDA_CHECK(cudaStreamCreateWithFlags(&nc.stream, cudaStreamNonBlocking), err, errlen);
    return 0;
fail:
    return -1;
}

/* NCCL's state of the communicator as a coll_wait state (nonblocking: ncclInProgress pends). */
static int comm_state(void *ud)
{
    ncclResult_t r = ncclSuccess;
    if (ncclCommGetAsyncError(*(ncclComm_t *)ud, &r) != ncclSuccess)
        return COLL_WAIT_FAILED;
    return r == ncclSuccess ? COLL_WAIT_DONE : r == ncclInProgress ? COLL_WAIT_PENDING : COLL_WAIT_FAILED;
}

/* A nonblocking communicator's call may return ncclInProgress: wait until it is done. "FILE:LINE:
 * CALL: words" into err when it fails or does not finish; the communicator is aborted then (a
 * peer that failed or left would hold every later call). */
static int nccl_done(ncclResult_t r, const char *call, int line, char *err, size_t errlen)
{
    double waited = 0;
    int w = r == ncclSuccess ? 0 : r == ncclInProgress ? coll_wait(comm_state, &nc.comm, COLL_NCCL_TIMEOUT_S, &waited) : -1;
    if (w == 0)
        return 0;
    ncclResult_t async = ncclSuccess;
    if (r == ncclInProgress && nc.comm)
        ncclCommGetAsyncError(nc.comm, &async);
    char words[256];
    if (w == -2)
        snprintf(words, sizeof words, "not finished after %.0f s (a peer rank failed or cannot be reached); "
                 "communicator aborted", waited);
    else
        snprintf(words, sizeof words, "%s", ncclGetErrorString(r == ncclInProgress ? async : r));
    cuda_words(err, errlen, __FILE__, line, call, words);
    if (nc.comm)
        ncclCommAbort(nc.comm);
    nc.comm = NULL;
    return -1;
}
#define NCCL_DONE(call, err, errlen) \
    do { if (nccl_done((call), #call, __LINE__, (err), (errlen)) != 0) goto fail; } while (0)

static int nccl_open(const void *id, int rank, int nranks, char *err, size_t errlen)
{
    ncclUniqueId uid;
    ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
    config.blocking = 0;            /* init returns at once; nccl_done waits with a deadline */
    memcpy(&uid, id, sizeof uid);
    if (!nc.stream) {
        snprintf(err, errlen, "collective_nccl: open before select");
        return -1;
    }
    CUDA_CHECK(cudaSetDevice(nc.device), err, errlen);
    NCCL_DONE(ncclCommInitRankConfig(&nc.comm, nranks, uid, rank, &config), err, errlen);
    return 0;
fail:
    if (nc.stream)
        cudaStreamDestroy(nc.stream);
    cudaGetLastError();
    nc.stream = NULL;
    nc.comm = NULL;
    return -1;
}

static void nccl_release(void)
{
    cudaFree(nc.send);
    cudaFree(nc.recv);
    cudaGetLastError();
    nc.send = nc.recv = NULL;
    nc.nsend = nc.nrecv = 0;
}

static int nccl_alloc(int64_t nsend, int64_t nrecv, char *err, size_t errlen)
{
    nccl_release();
    CUDA_CHECK(cudaSetDevice(nc.device), err, errlen);
    CUDA_CHECK(cudaMalloc((void **)&nc.send, (size_t)(nsend > 0 ? nsend : 1) * sizeof(float)), err, errlen);
    CUDA_CHECK(cudaMalloc((void **)&nc.recv, (size_t)(nrecv > 0 ? nrecv : 1) * sizeof(float)), err, errlen);
    nc.nsend = nsend;
    nc.nrecv = nrecv;
    return 0;
fail:
    nccl_release();
    return -1;
}

/* The host part's filled send buffer onto the device; the device's receive buffer zeroed: both
 * on the NCCL stream, so the operation run enqueues next reads the new values and writes after
 * the clear (the legacy stream would race the non-blocking one: a stale send buffer, or a clear
 * landing on NCCL's result). The host buffer is pageable: the copy has taken it when this returns. */
static int nccl_put(const float *send, char *err, size_t errlen)
{
    CUDA_CHECK(cudaSetDevice(nc.device), err, errlen);     /* the thread's current device may have changed */
    CUDA_CHECK(cudaMemcpyAsync(nc.send, send, (size_t)nc.nsend * sizeof(float), cudaMemcpyHostToDevice, nc.stream),
               err, errlen);
    CUDA_CHECK(cudaMemsetAsync(nc.recv, 0, (size_t)nc.nrecv * sizeof(float), nc.stream), err, errlen);
    return 0;
fail:
    return -1;
}

/* Enqueues one operation on the stream (sync waits for it); the same element counts as MPI's. */
static int nccl_run(enum coll_op op, int peer, int rank, char *err, size_t errlen)
{
    size_t c = (size_t)nc.nrecv;
    if (!nc.comm) {
        snprintf(err, errlen, "collective_nccl: the communicator was aborted after an earlier failure");
        return -1;
    }
    switch (op) {
    case COLL_PINGPONG:
        if (rank == 0) {
            NCCL_DONE(ncclSend(nc.send, (size_t)nc.nsend, ncclFloat32, peer, nc.comm, nc.stream), err, errlen);
            NCCL_DONE(ncclRecv(nc.recv, c, ncclFloat32, peer, nc.comm, nc.stream), err, errlen);
        } else if (rank == peer) {
            NCCL_DONE(ncclRecv(nc.recv, c, ncclFloat32, 0, nc.comm, nc.stream), err, errlen);
            NCCL_DONE(ncclSend(nc.send, (size_t)nc.nsend, ncclFloat32, 0, nc.comm, nc.stream), err, errlen);
        }
        return 0;
    case COLL_ALLREDUCE:
        NCCL_DONE(ncclAllReduce(nc.send, nc.recv, c, ncclFloat32, ncclSum, nc.comm, nc.stream), err, errlen);
        return 0;
    case COLL_ALLGATHER:
        NCCL_DONE(ncclAllGather(nc.send, nc.recv, (size_t)nc.nsend, ncclFloat32, nc.comm, nc.stream), err, errlen);
        return 0;
    case COLL_REDUCESCATTER:
        NCCL_DONE(ncclReduceScatter(nc.send, nc.recv, c, ncclFloat32, ncclSum, nc.comm, nc.stream), err, errlen);
        return 0;
    case COLL_NOPS:
        break;
    }
    snprintf(err, errlen, "collective_nccl: no operation %d", (int)op);
fail:
    return -1;
}

/* The stream as a coll_wait state: done, still running, or failed (CUDA's error, or NCCL's word
 * that a peer failed: ncclCommGetAsyncError, which a plain stream synchronise never asks). */
struct stream_wait {
    cudaError_t cuda;
    ncclResult_t nccl;
};

static int stream_state(void *ud)
{
    struct stream_wait *w = (struct stream_wait *)ud;
    w->cuda = cudaStreamQuery(nc.stream);
    if (w->cuda == cudaSuccess)
        return COLL_WAIT_DONE;
    if (w->cuda != cudaErrorNotReady)
        return COLL_WAIT_FAILED;
    if (nc.comm && (ncclCommGetAsyncError(nc.comm, &w->nccl) != ncclSuccess
                    || (w->nccl != ncclSuccess && w->nccl != ncclInProgress)))
        return COLL_WAIT_FAILED;
    return COLL_WAIT_PENDING;
}

static int nccl_sync(char *err, size_t errlen)
{
    struct stream_wait w = { cudaSuccess, ncclSuccess };
    double waited = 0;
    int rc = coll_wait(stream_state, &w, COLL_NCCL_TIMEOUT_S, &waited);
    if (rc == 0)
        return 0;
    char words[256];
    if (rc == -2)
        snprintf(words, sizeof words, "the NCCL stream did not finish in %.0f s (a peer rank failed or cannot be "
                 "reached); communicator aborted", waited);
    else if (w.cuda != cudaErrorNotReady)
        snprintf(words, sizeof words, "%s", cudaGetErrorString(w.cuda));
    else
        snprintf(words, sizeof words, "%s; communicator aborted", ncclGetErrorString(w.nccl));
    cudaGetLastError();
    cuda_words(err, errlen, __FILE__, __LINE__, "cudaStreamQuery / ncclCommGetAsyncError", words);
    if (nc.comm)
        ncclCommAbort(nc.comm);
    nc.comm = NULL;
    return -1;
}

/* The receive buffer back, after everything on the stream; waits (nccl_sync). */
static int nccl_get(float *recv, char *err, size_t errlen)
{
    CUDA_CHECK(cudaSetDevice(nc.device), err, errlen);
    CUDA_CHECK(cudaMemcpyAsync(recv, nc.recv, (size_t)nc.nrecv * sizeof(float), cudaMemcpyDeviceToHost, nc.stream),
               err, errlen);
    return nccl_sync(err, errlen);
fail:
    return -1;
}

/* A nonblocking communicator is finalized (waited for, with a short deadline) before it is
 * destroyed; one that will not finish is aborted. */
static void nccl_close(void)
{
    nccl_release();
    if (nc.comm) {
        ncclResult_t r = ncclCommFinalize(nc.comm);
        if ((r == ncclSuccess || r == ncclInProgress) && coll_wait(comm_state, &nc.comm, 10.0, NULL) == 0)
            ncclCommDestroy(nc.comm);
        else
            ncclCommAbort(nc.comm);
    }
    if (nc.stream)
        cudaStreamDestroy(nc.stream);
    cudaGetLastError();
    nc.comm = NULL;
    nc.stream = NULL;
}

extern "C" const struct coll_dev_ops coll_nccl_ops = {
    nccl_version, nccl_new_id, nccl_select, nccl_open, nccl_alloc, nccl_put, nccl_run, nccl_sync, nccl_get, nccl_release, nccl_close,
};
