/* collective_nccl.cu: the collective experiment's device buffers: this rank's GPU, its NCCL
 * communicator, the copies between the host part's buffers and the device, and the operations
 * on one stream. The commands, the fill and the check of the values, and the MPI calls (the
 * unique id's broadcast, barriers, the slowest rank's time) stay in collective_mpi.c. */
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

/* The device of this rank: Open MPI's local rank modulo the devices the driver lists. */
static int pick_device(char *err, size_t errlen)
{
    const char *local = getenv("OMPI_COMM_WORLD_LOCAL_RANK");
    int count = 0;
    CUDA_CHECK(cudaGetDeviceCount(&count), err, errlen);
    nc.device = (local ? atoi(local) : 0) % count;
    CUDA_CHECK(cudaSetDevice(nc.device), err, errlen);
    return 0;
fail:
    return -1;
}

static int nccl_open(const void *id, int rank, int nranks, char *err, size_t errlen)
{
    ncclUniqueId uid;
    memcpy(&uid, id, sizeof uid);
    if (pick_device(err, errlen) != 0)
        return -1;
    CUDA_CHECK(cudaStreamCreateWithFlags(&nc.stream, cudaStreamNonBlocking), err, errlen);
    NCCL_CHECK(ncclCommInitRank(&nc.comm, nranks, uid, rank), err, errlen);
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

/* The host part's filled send buffer onto the device; the device's receive buffer zeroed. */
static int nccl_put(const float *send, char *err, size_t errlen)
{
    CUDA_CHECK(cudaSetDevice(nc.device), err, errlen);     /* the thread's current device may have changed */
    CUDA_CHECK(cudaMemcpy(nc.send, send, (size_t)nc.nsend * sizeof(float), cudaMemcpyHostToDevice), err, errlen);
    CUDA_CHECK(cudaMemset(nc.recv, 0, (size_t)nc.nrecv * sizeof(float)), err, errlen);
    return 0;
fail:
    return -1;
}

/* Enqueues one operation on the stream (sync waits for it); the same element counts as MPI's. */
static int nccl_run(enum coll_op op, int peer, int rank, char *err, size_t errlen)
{
    size_t c = (size_t)nc.nrecv;
    switch (op) {
    case COLL_PINGPONG:
        if (rank == 0) {
            NCCL_CHECK(ncclSend(nc.send, (size_t)nc.nsend, ncclFloat32, peer, nc.comm, nc.stream), err, errlen);
            NCCL_CHECK(ncclRecv(nc.recv, c, ncclFloat32, peer, nc.comm, nc.stream), err, errlen);
        } else if (rank == peer) {
            NCCL_CHECK(ncclRecv(nc.recv, c, ncclFloat32, 0, nc.comm, nc.stream), err, errlen);
            NCCL_CHECK(ncclSend(nc.send, (size_t)nc.nsend, ncclFloat32, 0, nc.comm, nc.stream), err, errlen);
        }
        return 0;
    case COLL_ALLREDUCE:
        NCCL_CHECK(ncclAllReduce(nc.send, nc.recv, c, ncclFloat32, ncclSum, nc.comm, nc.stream), err, errlen);
        return 0;
    case COLL_ALLGATHER:
        NCCL_CHECK(ncclAllGather(nc.send, nc.recv, (size_t)nc.nsend, ncclFloat32, nc.comm, nc.stream), err, errlen);
        return 0;
    case COLL_REDUCESCATTER:
        NCCL_CHECK(ncclReduceScatter(nc.send, nc.recv, c, ncclFloat32, ncclSum, nc.comm, nc.stream), err, errlen);
        return 0;
    case COLL_NOPS:
        break;
    }
    snprintf(err, errlen, "collective_nccl: no operation %d", (int)op);
fail:
    return -1;
}

static int nccl_sync(char *err, size_t errlen)
{
    CUDA_CHECK(cudaStreamSynchronize(nc.stream), err, errlen);
    return 0;
fail:
    return -1;
}

static int nccl_get(float *recv, char *err, size_t errlen)
{
    CUDA_CHECK(cudaMemcpy(recv, nc.recv, (size_t)nc.nrecv * sizeof(float), cudaMemcpyDeviceToHost), err, errlen);
    return 0;
fail:
    return -1;
}

static void nccl_close(void)
{
    nccl_release();
    if (nc.comm)
        ncclCommDestroy(nc.comm);
    if (nc.stream)
        cudaStreamDestroy(nc.stream);
    cudaGetLastError();
    nc.comm = NULL;
    nc.stream = NULL;
}

extern "C" const struct coll_dev_ops coll_nccl_ops = {
    nccl_version, nccl_new_id, nccl_open, nccl_alloc, nccl_put, nccl_run, nccl_sync, nccl_get, nccl_release, nccl_close,
};
