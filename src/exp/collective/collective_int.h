/* collective_int.h: what the collective experiment's parts share: the operations (one table row
 * each: buffers, bus-bandwidth factor, formula) and the commands rank 0 sends the other ranks.
 * The transport is collective_mpi.c's (MPI, host buffers) with collective_nccl.cu (NCCL, device buffers). */
#ifndef SR_COLLECTIVE_INT_H
#define SR_COLLECTIVE_INT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum coll_op { COLL_PINGPONG, COLL_ALLREDUCE, COLL_ALLGATHER, COLL_REDUCESCATTER, COLL_NOPS };

struct coll_op_info {
    const char *name;           /* "all-reduce": the records' op */
    const char *algbw;          /* how the algorithm bandwidth counts bytes */
    const char *busbw;          /* the bus bandwidth formula, nccl-tests' */
    double (*bus_factor)(int n);    /* busbw = algbw x bus_factor(ranks) */
};
extern const struct coll_op_info coll_ops[COLL_NOPS];

/* One command from rank 0; every rank receives it (MPI_Bcast) and takes part. */
struct coll_cmd {
    int32_t what;               /* enum coll_what */
    int32_t op;                 /* enum coll_op */
    int32_t peer;               /* ping-pong: the rank that answers rank 0 */
    int32_t device;             /* 1: device buffers through NCCL (coll_nccl_ops); 0: host buffers through MPI */
    int64_t bytes;              /* nccl-tests' size: the full buffer (all-gather: received, reduce-scatter: sent) */
    int64_t iters;              /* operations in one timed sample */
    double wait_s;              /* seconds within which the serving ranks must hear from rank 0 again (this
                                 * step done, the next command sent): what the experiment's deadline leaves,
                                 * + COLL_SERVE_SLACK_S; 0: none (rank 0 goes on to other experiments) */
};
enum coll_what { COLL_STOP, COLL_PREPARE, COLL_TIME, COLL_CHECK, COLL_RELEASE };

/* Rank 0's side of the protocol (collective_mpi.c). Each returns -1 with err on an MPI failure. */
int coll_rank0_prepare(enum coll_op op, int64_t bytes, int peer, int device, int *bad_rank, char *err, size_t errlen);
double coll_rank0_time(int64_t iters, char *err, size_t errlen);    /* max over ranks, seconds; NAN on failure */
int coll_rank0_check(int *bad_rank, char *err, size_t errlen);
void coll_rank0_release(void);

/* The job's deadline (rank 0): every step above that waits on the other ranks must end within
 * budget_s x COLL_DEADLINE_FACTOR + COLL_DEADLINE_SLACK_S of this call, or the job ends with a
 * message and nothing written (util/watch.h). Joining the job has its own deadline, before any
 * scenario is read: job_join_seconds() (src/job/job.h). */
#define COLL_DEADLINE_FACTOR 1.5
#define COLL_DEADLINE_SLACK_S 10.0
void coll_job_budget(double budget_s);

/* The serving ranks keep the same deadline from each command rank 0 sends (coll_cmd.wait_s), later
 * by this much, so that a rank 0 still alive is the one that ends the job and says why; a rank 0
 * that is stopped or gone cannot, and the serving ranks end it then. coll_job_idle (rank 0, at the
 * experiment's end) lifts it: rank 0 goes on to other experiments, whose length they cannot know. */
#define COLL_SERVE_SLACK_S 5.0
void coll_job_idle(void);

/* The value element i of rank r's send buffer holds, and what element i of a reduction over n
 * ranks must then be: exact in float32 (small whole numbers). */
float coll_value(int r, int64_t i);
float coll_sum(int n, int64_t i);

/* Which GPU this rank takes (collective_gpu.c): its local rank on its host, from MPI's
 * shared-memory split when mpi_local >= 0, else from the first launcher variable set
 * (coll_local_rank_vars, read through get), else 0; *source names where it came from. Returns the
 * device, or -1 with why: no device (ndev <= 0), more ranks on this host than GPUs (NCCL refuses
 * two ranks on one GPU: "Duplicate GPU detected"), or a variable that is not a whole number. */
extern const char *const coll_local_rank_vars[];     /* NULL-terminated */
int coll_gpu_choose(int mpi_local, const char *(*get)(const char *name), int ndev, const char **source,
                    char *why, size_t whylen);

/* A wait on NCCL that cannot hang: state(ud) says COLL_WAIT_DONE, _PENDING or _FAILED; it is
 * asked until it is not pending, with short sleeps, for at most timeout_s. 0 done, -1 failed,
 * -2 still pending at the deadline; *waited_s (may be NULL) the seconds it waited. */
enum { COLL_WAIT_DONE = 0, COLL_WAIT_PENDING = 1, COLL_WAIT_FAILED = -1 };
int coll_wait(int (*state)(void *ud), void *ud, double timeout_s, double *waited_s);
#define COLL_NCCL_TIMEOUT_S 120.0   /* one init, one sync: far beyond any healthy one (seconds) */

/* Device buffers through NCCL (collective_nccl.cu, builds with NCCL; backend_for("collective",
 * "gpu") hands it out). The host part fills and checks host copies; these move them to and from
 * this rank's GPU and run the operation there. Each int function returns 0, or -1 with err. */
#define COLL_NCCL_ID_BYTES 128      /* NCCL_UNIQUE_ID_BYTES */
struct coll_dev_ops {
    const char *(*version)(char *buf, size_t n);        /* "NCCL 2.28.9" into buf */
    int (*new_id)(void *id, char *err, size_t errlen);  /* rank 0: a fresh ncclUniqueId (COLL_NCCL_ID_BYTES) */
    /* This rank's GPU (coll_gpu_choose with mpi_local) and stream, before any rank starts the
     * communicator: every rank learns whether all have one before any waits in its init. */
    int (*select)(int mpi_local, char *err, size_t errlen);
    /* ncclCommInitRank, nonblocking, waited for at most COLL_NCCL_TIMEOUT_S (aborted then). */
    int (*open)(const void *id, int rank, int nranks, char *err, size_t errlen);
    int (*alloc)(int64_t nsend, int64_t nrecv, char *err, size_t errlen);         /* float32 elements */
    /* put, run, get: every copy, clear and operation on the one NCCL stream, in that order. */
    int (*put)(const float *send, char *err, size_t errlen);    /* nsend elements to the device; its receive buffer zeroed */
    int (*run)(enum coll_op op, int peer, int rank, char *err, size_t errlen);    /* enqueued; sync waits */
    /* Waits for the stream, asking NCCL for a peer's failure while it waits (ncclCommGetAsyncError);
     * a failure or COLL_NCCL_TIMEOUT_S aborts the communicator. */
    int (*sync)(char *err, size_t errlen);
    int (*get)(float *recv, char *err, size_t errlen);          /* nrecv elements back to the host (waits) */
    void (*release)(void);                                      /* the buffers */
    void (*close)(void);                                        /* buffers, communicator, stream */
};
extern const struct coll_dev_ops coll_nccl_ops;

#ifdef __cplusplus
}
#endif

#endif
