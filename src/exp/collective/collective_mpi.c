/* collective_mpi.c: the MPI side of the collective experiment: joining the job a launcher
 * started, the commands rank 0 sends and the other ranks serve, the host-buffer operations with
 * their fill and check, and the job's description (ranks, hosts, launcher, interfaces). What to
 * measure and how often is collective.c's; the repetition loop runs on rank 0 only. Device
 * buffers: these host buffers, copied to and from the GPU by coll_nccl_ops (collective_nccl.cu). */
#include "exp/collective/collective.h"
#include "exp/collective/collective_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "config.h"
#include "measure/backend.h"
#include "util/error.h"
#include "util/timing.h"
#include "util/watch.h"
#include "job/job.h"

float coll_value(int r, int64_t i)
{
    return (float)(r + 1 + (int)(i % 13));
}

float coll_sum(int n, int64_t i)
{
    return (float)(n * (n + 1) / 2 + n * (int)(i % 13));
}

#ifdef HAVE_MPI

#include <ifaddrs.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <net/if.h>

#include <mpi.h>

#define FINISH_S 15.0               /* ending it (the stop command, MPI_Finalize) */

static double job_start, job_end;   /* rank 0: timing_now() when the collective experiment began, and past which
                                     * a blocked step ends the job; 0: none */

static int rank, nranks, lost;     /* this process's in the job (src/job/job.h), read at each entry */

/* The job's rank and size, read at every entry point (they are set once the job is joined). */
static void attach(void)
{
    rank = job_rank();
    nranks = job_nranks();
}


/* The buffers of the prepared operation (every rank; ping-pong: ranks 0 and peer). */
static struct {
    struct coll_cmd cmd;
    float *send, *recv;             /* counts below, 64-byte aligned */
    int64_t nsend, nrecv;           /* elements (ping-pong: bytes / 4, rounded up) */
} cur;

/* NCCL, opened at the first device command on every rank: 0 not yet, 1 open, -1 failed (the
 * same on every rank: decided by an MPI_Allreduce). */
static const struct coll_dev_ops *dev;
static int dev_state, dev_bad;   /* dev_bad: the lowest rank without NCCL when dev_state is -1 */
static char dev_why[512];           /* rank 0: why it has no NCCL device, when it has none */

/* "MPI_Bcast: message" into err; 0 when rc is MPI_SUCCESS. */
static int mpi_failed(int rc, const char *call, char *err, size_t errlen)
{
    if (rc == MPI_SUCCESS)
        return 0;
    char msg[MPI_MAX_ERROR_STRING] = "";
    int len = 0;
    MPI_Error_string(rc, msg, &len);
    snprintf(err, errlen, "rank %d: %s: %s", rank, call, msg);
    lost = 1;
    return -1;
}
#define MPI_TRY(call, name) do { if (mpi_failed((call), name, err, errlen)) return -1; } while (0)

void coll_job_budget(double budget_s)
{
    job_start = timing_now();
    job_end = job_start + budget_s * COLL_DEADLINE_FACTOR + COLL_DEADLINE_SLACK_S;
}

/* Rank 0, before a step every rank must take part in: the job's deadline (coll_job_budget), so a
 * rank that stopped or died without ending the job cannot hold the run past its budget. */
static void step_watch(const char *step)
{
    char msg[512];
    double left = job_end - timing_now();
    if (job_end <= 0)
        return;
    snprintf(msg, sizeof msg, "sparkreport: the MPI job missed its deadline (%.0f s after the collective experiment "
             "began: %g x its budget + %g s): rank 0 waited in %s for a rank that does not answer (stopped, or gone "
             "without ending the job); stopped, nothing was written", (job_end - job_start), COLL_DEADLINE_FACTOR,
             COLL_DEADLINE_SLACK_S, step);
    watch_arm(left > 0 ? left : 0, msg, SR_EXIT_FAILURE);
}

/* ---- the operations on host buffers: fill, run once, check ---- */

static void fill(void)
{
    int64_t c = cur.nsend;
    for (int64_t i = 0; i < c; i++) {
        int64_t g = cur.cmd.op == COLL_ALLGATHER ? rank * c + i : i;   /* index in the gathered buffer */
        cur.send[i] = cur.cmd.op == COLL_PINGPONG ? coll_value(rank == 0 ? 0 : 1, i) : coll_value(rank, g);
    }
    memset(cur.recv, 0, (size_t)cur.nrecv * sizeof *cur.recv);
}

static int run_host(void)
{
    int c = (int)cur.nrecv;
    switch (cur.cmd.op) {
    case COLL_PINGPONG:
        if (rank == 0) {
            if (MPI_Send(cur.send, (int)cur.nsend, MPI_FLOAT, cur.cmd.peer, 1, MPI_COMM_WORLD) != MPI_SUCCESS)
                return -1;
            return MPI_Recv(cur.recv, c, MPI_FLOAT, cur.cmd.peer, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
        if (rank != cur.cmd.peer)
            return 0;
        if (MPI_Recv(cur.recv, c, MPI_FLOAT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE) != MPI_SUCCESS)
            return -1;
        return MPI_Send(cur.send, (int)cur.nsend, MPI_FLOAT, 0, 2, MPI_COMM_WORLD);
    case COLL_ALLREDUCE:
        return MPI_Allreduce(cur.send, cur.recv, c, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    case COLL_ALLGATHER:
        return MPI_Allgather(cur.send, (int)cur.nsend, MPI_FLOAT, cur.recv, (int)cur.nsend, MPI_FLOAT, MPI_COMM_WORLD);
    case COLL_REDUCESCATTER:
        return MPI_Reduce_scatter_block(cur.send, cur.recv, c, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    }
    return -1;
}

/* One operation: 0, or -1 with err (device buffers: enqueued; dev->sync waits for it). */
static int run_once(char *err, size_t errlen)
{
    if (cur.cmd.device)
        return dev->run((enum coll_op)cur.cmd.op, cur.cmd.peer, rank, err, errlen);
    return mpi_failed(run_host(), coll_ops[cur.cmd.op].name, err, errlen);
}

/* What element i of this rank's receive buffer must hold. */
static float expected(int64_t i)
{
    switch (cur.cmd.op) {
    case COLL_PINGPONG:
        return coll_value(rank == 0 ? 1 : 0, i);    /* rank 0 gets the peer's pattern, the peer rank 0's */
    case COLL_ALLREDUCE:
        return coll_sum(nranks, i);
    case COLL_ALLGATHER:
        return coll_value((int)(i / (cur.nrecv / nranks)), i);
    case COLL_REDUCESCATTER:
        return coll_sum(nranks, rank * cur.nrecv + i);
    }
    return NAN;
}

static int check_mine(void)
{
    if (cur.cmd.op == COLL_PINGPONG && rank != 0 && rank != cur.cmd.peer)
        return 1;
    for (int64_t i = 0; i < cur.nrecv; i++)
        if (cur.recv[i] != expected(i))
            return 0;
    return 1;
}

static void release(void)
{
    free(cur.send);
    free(cur.recv);
    if (cur.cmd.device && dev_state == 1)
        dev->release();
    cur.send = cur.recv = NULL;
    cur.nsend = cur.nrecv = 0;
}

/* Sizes the buffers for cmd; 0, or -1 when memory is short. */
static int allocate(const struct coll_cmd *cmd)
{
    char err[512];
    int64_t count = cmd->bytes / 4;         /* float32 elements of nccl-tests' size */
    release();
    cur.cmd = *cmd;
    switch (cmd->op) {
    case COLL_PINGPONG: cur.nsend = cur.nrecv = count > 0 ? count : 1; break;
    case COLL_ALLREDUCE: cur.nsend = cur.nrecv = count; break;
    case COLL_ALLGATHER: cur.nsend = count / nranks; cur.nrecv = count; break;
    case COLL_REDUCESCATTER: cur.nsend = count; cur.nrecv = count / nranks; break;
    }
    size_t a = ((size_t)cur.nsend * 4 + 63) / 64 * 64, b = ((size_t)cur.nrecv * 4 + 63) / 64 * 64;
    cur.send = aligned_alloc(64, a ? a : 64);
    cur.recv = aligned_alloc(64, b ? b : 64);
    if (!cur.send || !cur.recv)
        return -1;
    if (cmd->device && dev->alloc(cur.nsend, cur.nrecv, err, sizeof err) != 0) {
        fprintf(stderr, "sparkreport: rank %d: %s\n", rank, err);
        return -1;
    }
    return 0;
}

/* This rank's place among the ranks of its host (MPI-3's shared-memory split: right under any
 * launcher); -1 when MPI cannot say, and the launcher's variables decide (coll_gpu_choose). */
static int local_rank(void)
{
    MPI_Comm host;
    int r = -1;
    if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &host) != MPI_SUCCESS)
        return -1;
    if (MPI_Comm_rank(host, &r) != MPI_SUCCESS)
        r = -1;
    MPI_Comm_free(&host);
    return r;
}

/* Every rank: its device and the job's NCCL communicator, once; dev_state says whether every rank
 * has them, dev_bad which rank has not (it says why on its stderr; rank 0's why is dev_why). 0, or
 * -1 with err on an MPI failure. */
static int dev_open(char *err, size_t errlen)
{
    char id[COLL_NCCL_ID_BYTES] = { 0 }, why[512] = "";
    int all;
    dev = backend_for("collective", "gpu", why, sizeof why);
    /* every rank's GPU and stream first: a rank that has none says so here, before any rank
     * waits in ncclCommInitRank for it (issue 26, item 3) */
    int local = local_rank();
    int mine = dev && dev->select(local, why, sizeof why) == 0 && (rank != 0 || dev->new_id(id, why, sizeof why) == 0)
               ? nranks : rank;
    MPI_TRY(MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD), "MPI_Allreduce (NCCL device)");
    if (all == nranks) {
        MPI_TRY(MPI_Bcast(id, COLL_NCCL_ID_BYTES, MPI_BYTE, 0, MPI_COMM_WORLD), "MPI_Bcast (ncclUniqueId)");
        mine = dev->open(id, rank, nranks, why, sizeof why) == 0 ? nranks : rank;
        MPI_TRY(MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD), "MPI_Allreduce (ncclCommInitRank)");
    }
    dev_state = all == nranks ? 1 : -1;
    dev_bad = all;
    if (mine < nranks && rank != 0)
        fprintf(stderr, "sparkreport: rank %d: no NCCL device: %s\n", rank, why);
    if (dev_state < 0)
        snprintf(dev_why, sizeof dev_why, "%s", mine < nranks ? why : "");
    return 0;
}

/* The first run: host buffers in place; device buffers filled from the host's, run, copied back. */
static int dev_first_run(char *err, size_t errlen)
{
    if (!cur.cmd.device)
        return run_once(err, errlen);
    if (dev->put(cur.send, err, errlen) != 0 || run_once(err, errlen) != 0 || dev->sync(err, errlen) != 0)
        return -1;
    return dev->get(cur.recv, err, errlen);
}

/* PREPARE on every rank: buffers, one run, the check; *bad: the lowest rank whose buffers
 * could not be allocated or that has no NCCL device (returns 1) or whose values are wrong (returns 0); nranks when none. */
static int prepare_here(const struct coll_cmd *cmd, int *bad, char *err, size_t errlen)
{
    if (cmd->device && dev_state == 0 && dev_open(err, errlen) != 0)
        return -1;
    if (cmd->device && dev_state < 0) {
        *bad = dev_bad;
        snprintf(err, errlen, "%s", dev_why);
        return 1;
    }
    int mine = allocate(cmd) == 0 ? nranks : rank;
    MPI_TRY(MPI_Allreduce(&mine, bad, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD), "MPI_Allreduce (allocation)");
    if (*bad < nranks) {
        release();
        return 1;
    }
    fill();
    if (dev_first_run(err, errlen) != 0)
        return -1;
    mine = check_mine() ? nranks : rank;
    MPI_TRY(MPI_Allreduce(&mine, bad, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD), "MPI_Allreduce (check)");
    return 0;
}

static double time_here(int64_t iters, char *err, size_t errlen)
{
    double t, tmax = NAN;
    if (mpi_failed(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier", err, errlen))
        return NAN;
    double t0 = MPI_Wtime();
    for (int64_t i = 0; i < iters; i++)
        if (run_once(err, errlen) != 0)
            return NAN;
    if (cur.cmd.device && dev->sync(err, errlen) != 0)
        return NAN;
    t = MPI_Wtime() - t0;
    if (mpi_failed(MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD), "MPI_Allreduce (time)", err, errlen))
        return NAN;
    return tmax;
}

static int check_here(int *bad, char *err, size_t errlen)
{
    if (cur.cmd.device && dev->get(cur.recv, err, errlen) != 0)
        return -1;
    int mine = check_mine() ? nranks : rank;
    MPI_TRY(MPI_Allreduce(&mine, bad, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD), "MPI_Allreduce (check)");
    return 0;
}

/* ---- rank 0 drives ---- */

/* The command broadcast, non-blocking on every rank: a rank waiting for rank 0 polls with short
 * sleeps instead of spinning a core that rank 0's own experiments (OpenMP) measure with. */
static int bcast_cmd(struct coll_cmd *c, int sleepy, char *err, size_t errlen)
{
    MPI_Request req;
    int done = 0;
    struct timespec nap = { 0, 200000 };   /* 0.2 ms */
    MPI_TRY(MPI_Ibcast(c, (int)sizeof *c, MPI_BYTE, 0, MPI_COMM_WORLD, &req), "MPI_Ibcast (command)");
    if (!sleepy) {
        MPI_TRY(MPI_Wait(&req, MPI_STATUS_IGNORE), "MPI_Wait (command)");
        return 0;
    }
    while (!done) {
        MPI_TRY(MPI_Test(&req, &done, MPI_STATUS_IGNORE), "MPI_Test (command)");
        if (!done)
            nanosleep(&nap, NULL);
    }
    return 0;
}

static int send_cmd(struct coll_cmd *c, char *err, size_t errlen)
{
    if (lost) {
        snprintf(err, errlen, "the job lost a rank earlier");
        return -1;
    }
    double left = job_end - timing_now();
    c->wait_s = job_end > 0 ? (left > 0 ? left : 0) + COLL_SERVE_SLACK_S : 0;
    return bcast_cmd(c, 0, err, errlen);
}

void coll_job_idle(void)
{
    char err[256];
    struct coll_cmd c = { .what = COLL_RELEASE };
    attach();
    if (nranks < 2 || job_end <= 0)
        return;
    step_watch("releasing buffers");
    job_end = 0;                        /* c.wait_s 0: no deadline until the next command */
    if (send_cmd(&c, err, sizeof err) == 0)
        release();
    watch_disarm();
}

/* -1 on an MPI failure; 1 when a rank could not allocate (*bad_rank says which); 0: the values
 * were checked, *bad_rank the lowest rank with a wrong one, or nranks. */
int coll_rank0_prepare(enum coll_op op, int64_t bytes, int peer, int device, int *bad_rank, char *err, size_t errlen)
{
    attach();
    struct coll_cmd c = { .what = COLL_PREPARE, .op = op, .peer = peer, .device = device, .bytes = bytes };
    step_watch("preparing an operation");
    int rc = send_cmd(&c, err, errlen) != 0 ? -1 : prepare_here(&c, bad_rank, err, errlen);
    watch_disarm();
    return rc;
}

double coll_rank0_time(int64_t iters, char *err, size_t errlen)
{
    attach();
    struct coll_cmd c = { .what = COLL_TIME, .iters = iters };
    step_watch("a timed sample");
    double t = send_cmd(&c, err, errlen) == 0 ? time_here(iters, err, errlen) : NAN;
    watch_disarm();
    return t;
}

int coll_rank0_check(int *bad_rank, char *err, size_t errlen)
{
    attach();
    struct coll_cmd c = { .what = COLL_CHECK };
    step_watch("checking the values");
    int rc = send_cmd(&c, err, errlen) == 0 ? check_here(bad_rank, err, errlen) : -1;
    watch_disarm();
    return rc;
}

void coll_rank0_release(void)
{
    char err[256];
    struct coll_cmd c = { .what = COLL_RELEASE };
    step_watch("releasing buffers");
    if (send_cmd(&c, err, sizeof err) == 0)
        release();
    watch_disarm();
}

/* ---- the other ranks serve ---- */

/* A serving rank, on each command: until when it waits for rank 0 (coll_cmd.wait_s). */
static void serve_watch(const struct coll_cmd *c)
{
    char msg[512];
    if (c->wait_s <= 0) {
        watch_disarm();
        return;
    }
    snprintf(msg, sizeof msg, "sparkreport: rank %d: rank 0 did not answer within %.0f s, what the collective "
             "experiment's deadline left it (%g x its budget + %g s, + %g s): it is stopped, or gone without "
             "ending the job; ending this rank, which wrote nothing", rank, c->wait_s, COLL_DEADLINE_FACTOR,
             COLL_DEADLINE_SLACK_S, COLL_SERVE_SLACK_S);
    watch_arm(c->wait_s, msg, SR_EXIT_FAILURE);
}

int coll_serve(void)
{
    attach();
    char err[512];
    size_t errlen = sizeof err;
    for (;;) {
        struct coll_cmd c;
        int bad = 0;
        if (bcast_cmd(&c, 1, err, errlen) != 0)
            break;
        serve_watch(&c);                /* covers this step and the wait for the next command */
        if (c.what == COLL_STOP)
            return 0;
        int rc = c.what == COLL_PREPARE ? prepare_here(&c, &bad, err, errlen)
               : c.what == COLL_TIME ? (isnan(time_here(c.iters, err, errlen)) ? -1 : 0)
               : c.what == COLL_CHECK ? check_here(&bad, err, errlen) : (release(), 0);
        if (rc < 0)
            break;
    }
    fprintf(stderr, "sparkreport: %s; rank 0 is gone or the job is broken, ending this rank\n", err);
    MPI_Abort(MPI_COMM_WORLD, 1);
    return 1;
}

void coll_stop_serving(void)
{
    if (!job_launched())
        return;
    attach();
    if (rank == 0) {                /* what the run wrote is complete: only ending the job is left */
        char err[256];
        struct coll_cmd c = { .what = COLL_STOP };
        watch_arm(FINISH_S, "sparkreport: the MPI job did not end within 15 s after the run (a rank that does not "
                  "answer: stopped?); what the run printed above is complete; ending the job", SR_EXIT_FAILURE);
        release();
        if (send_cmd(&c, err, sizeof err) != 0) {
            fprintf(stderr, "sparkreport: %s; ending the job\n", err);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
    release();
    if (dev_state == 1)
        dev->close();
}

#else /* no MPI in this build: one rank, always */

int coll_serve(void) { return 0; }
void coll_stop_serving(void) { }
int coll_rank0_prepare(enum coll_op op, int64_t bytes, int peer, int device, int *bad_rank, char *err, size_t errlen)
{
    (void)op; (void)bytes; (void)peer; (void)device; (void)bad_rank;
    snprintf(err, errlen, "this build has no MPI");
    return -1;
}
double coll_rank0_time(int64_t iters, char *err, size_t errlen)
{
    (void)iters;
    snprintf(err, errlen, "this build has no MPI");
    return NAN;
}
int coll_rank0_check(int *bad_rank, char *err, size_t errlen)
{
    (void)bad_rank;
    snprintf(err, errlen, "this build has no MPI");
    return -1;
}
void coll_rank0_release(void) { }
void coll_job_budget(double budget_s) { (void)budget_s; }
void coll_job_idle(void) { }

#endif
