/* collective_gpu.c: the rules of the collective experiment's GPU part that need no GPU, so the
 * CPU tests hold them: which GPU a rank takes (its local rank on its host, from MPI or from the
 * launcher's variables), and how a wait on NCCL ends (done, failed, or past its deadline). The
 * CUDA and NCCL calls that these rules steer are collective_nccl.cu's. */
#include "exp/collective/collective_int.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* The launchers' local-rank variables, most specific first. SLURM_LOCALID comes last: mpirun
 * started inside a Slurm allocation passes its own step's SLURM_LOCALID (0) to every rank it
 * starts, so it is believed only when no MPI launcher said anything. PMIx publishes the local
 * rank as a key (pmix.lrank, asked with PMIx_Get), not as a variable: Open MPI's PMIx launcher
 * (prterun) sets OMPI_COMM_WORLD_LOCAL_RANK. */
const char *const coll_local_rank_vars[] = {
    "OMPI_COMM_WORLD_LOCAL_RANK",   /* Open MPI */
    "MPI_LOCALRANKID",              /* MPICH's Hydra, Intel MPI */
    "MV2_COMM_WORLD_LOCAL_RANK",    /* MVAPICH */
    "PMI_LOCAL_RANK",               /* Cray PALS (PMI), MPICH with PALS */
    "PALS_LOCAL_RANKID",            /* Cray PALS */
    "SLURM_LOCALID",                /* srun */
    NULL
};

/* A whole number 0 .. INT_MAX, or -1. */
static int local_of(const char *s)
{
    char *end;
    if (!s || *s < '0' || *s > '9')
        return -1;
    errno = 0;
    long v = strtol(s, &end, 10);
    return errno || *end || v > INT_MAX ? -1 : (int)v;
}

int coll_gpu_choose(int mpi_local, const char *(*get)(const char *name), int ndev, const char **source,
                    char *why, size_t whylen)
{
    int local = mpi_local;
    *source = "MPI (MPI_COMM_TYPE_SHARED)";
    for (int i = 0; local < 0 && coll_local_rank_vars[i]; i++) {
        const char *v = get ? get(coll_local_rank_vars[i]) : NULL;
        if (v && local_of(v) < 0) {
            snprintf(why, whylen, "%s=\"%s\" is not a local rank (a whole number from 0)", coll_local_rank_vars[i], v);
            return -1;
        }
        local = local_of(v);
        *source = coll_local_rank_vars[i];
    }
    if (local < 0) {
        local = 0;
        *source = "none (no launcher variable: the only rank of its host)";
    }
    if (ndev <= 0) {
        snprintf(why, whylen, "no CUDA device on this host (the driver lists none)");
        return -1;
    }
    if (local >= ndev) {
        snprintf(why, whylen, "local rank %d on this host (%s), but the driver lists %d GPU%s: NCCL needs a GPU of "
                 "its own for each rank (start at most %d rank%s per host)", local, *source, ndev, ndev == 1 ? "" : "s",
                 ndev, ndev == 1 ? "" : "s");
        return -1;
    }
    return local;
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int coll_wait(int (*state)(void *ud), void *ud, double timeout_s, double *waited_s)
{
    struct timespec nap = { 0, 100000 };    /* 0.1 ms: a collective of a few KiB takes about that */
    double t0 = now_s(), t = t0;
    int s;
    while ((s = state(ud)) == COLL_WAIT_PENDING) {
        t = now_s();
        if (t - t0 > timeout_s)
            break;
        nanosleep(&nap, NULL);
    }
    if (waited_s)
        *waited_s = now_s() - t0;
    return s == COLL_WAIT_DONE ? 0 : s == COLL_WAIT_PENDING ? -2 : -1;
}
