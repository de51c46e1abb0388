/* test_collective_gpu.c: the collective experiment's GPU rules that need no GPU (issue 26, items
 * 2 and 3): which GPU a rank takes under each launcher (Open MPI, MPICH's Hydra, MVAPICH, Cray
 * PALS, Slurm), MPI's own answer first, no device and more ranks than GPUs refused with words;
 * and a wait on NCCL that ends: done, failed, or cut at its deadline instead of hanging. */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "exp/collective/collective_int.h"

/* A launcher's environment: "NAME=value" pairs, NULL-terminated. */
static const char *const *fake_env;

static const char *fake_get(const char *name)
{
    size_t n = strlen(name);
    for (const char *const *e = fake_env; e && *e; e++)
        if (strncmp(*e, name, n) == 0 && (*e)[n] == '=')
            return *e + n + 1;
    return NULL;
}

static int choose(const char *const *env, int mpi_local, int ndev, const char **source, char *why, size_t n)
{
    fake_env = env;
    why[0] = '\0';
    return coll_gpu_choose(mpi_local, fake_get, ndev, source, why, n);
}

static void gpu_choice(void)
{
    char why[256];
    const char *src = NULL;
    static const char *const ompi[] = { "OMPI_COMM_WORLD_LOCAL_RANK=3", "OMPI_COMM_WORLD_SIZE=8", NULL };
    static const char *const hydra[] = { "PMI_RANK=5", "MPI_LOCALRANKID=1", "MPI_LOCALNRANKS=4", NULL };
    static const char *const mvapich[] = { "MV2_COMM_WORLD_LOCAL_RANK=2", NULL };
    static const char *const pals[] = { "PMI_LOCAL_RANK=6", NULL };
    static const char *const srun[] = { "SLURM_PROCID=9", "SLURM_LOCALID=7", NULL };
    /* mpirun inside a Slurm allocation: the batch step's SLURM_LOCALID=0 reaches every rank */
    static const char *const mpirun_in_slurm[] = { "SLURM_LOCALID=0", "OMPI_COMM_WORLD_LOCAL_RANK=5", NULL };
    static const char *const none[] = { NULL };
    static const char *const junk[] = { "MPI_LOCALRANKID=one", NULL };
    static const char *const negative[] = { "SLURM_LOCALID=-1", NULL };

    EXPECT(choose(ompi, -1, 8, &src, why, sizeof why) == 3);
    EXPECT_STR(src, "OMPI_COMM_WORLD_LOCAL_RANK");
    EXPECT(choose(hydra, -1, 8, &src, why, sizeof why) == 1);
    EXPECT_STR(src, "MPI_LOCALRANKID");
    EXPECT(choose(mvapich, -1, 8, &src, why, sizeof why) == 2);
    EXPECT(choose(pals, -1, 8, &src, why, sizeof why) == 6);
    EXPECT_STR(src, "PMI_LOCAL_RANK");
    EXPECT(choose(srun, -1, 8, &src, why, sizeof why) == 7);
    EXPECT_STR(src, "SLURM_LOCALID");
    EXPECT(choose(mpirun_in_slurm, -1, 8, &src, why, sizeof why) == 5);
    EXPECT(choose(none, -1, 8, &src, why, sizeof why) == 0);
    EXPECT(strstr(src, "none") != NULL);

    /* MPI's shared-memory split wins over every variable */
    EXPECT(choose(ompi, 4, 8, &src, why, sizeof why) == 4);
    EXPECT(strstr(src, "MPI") != NULL);

    /* more ranks on this host than GPUs: refused, not wrapped onto a GPU another rank has */
    EXPECT(choose(ompi, -1, 2, &src, why, sizeof why) == -1);
    EXPECT(strstr(why, "local rank 3") && strstr(why, "2 GPUs") && strstr(why, "at most 2 ranks per host"));
    EXPECT(choose(ompi, -1, 4, &src, why, sizeof why) == 3);

    /* no device: words, never a division by zero */
    EXPECT(choose(ompi, -1, 0, &src, why, sizeof why) == -1);
    EXPECT(strstr(why, "no CUDA device") != NULL);
    EXPECT(choose(none, 0, 0, &src, why, sizeof why) == -1);

    /* a variable that is not a local rank */
    EXPECT(choose(junk, -1, 8, &src, why, sizeof why) == -1);
    EXPECT(strstr(why, "MPI_LOCALRANKID=\"one\"") != NULL);
    EXPECT(choose(negative, -1, 8, &src, why, sizeof why) == -1);

    /* the list names the launchers' real variables, SLURM_LOCALID last */
    int n = 0;
    while (coll_local_rank_vars[n])
        n++;
    EXPECT(n >= 5);
    EXPECT_STR(coll_local_rank_vars[0], "OMPI_COMM_WORLD_LOCAL_RANK");
    EXPECT_STR(coll_local_rank_vars[n - 1], "SLURM_LOCALID");
}

/* States for coll_wait: pending `left` more times, then `final`. */
struct script {
    int left, final, asked;
};

static int scripted(void *ud)
{
    struct script *s = ud;
    s->asked++;
    return s->left-- > 0 ? COLL_WAIT_PENDING : s->final;
}

static void waits(void)
{
    struct script done = { 5, COLL_WAIT_DONE, 0 }, failed = { 3, COLL_WAIT_FAILED, 0 };
    struct script never = { 1 << 30, COLL_WAIT_DONE, 0 };
    double waited = -1;
    EXPECT(coll_wait(scripted, &done, 5.0, &waited) == 0);
    EXPECT(done.asked == 6 && waited >= 0 && waited < 5.0);
    EXPECT(coll_wait(scripted, &failed, 5.0, NULL) == -1);      /* a peer's failure ends the wait */
    EXPECT(failed.asked == 4);
    EXPECT(coll_wait(scripted, &never, 0.2, &waited) == -2);    /* a dead peer: cut at the deadline */
    EXPECT(waited >= 0.2 && waited < 2.0);
    EXPECT(COLL_NCCL_TIMEOUT_S >= 30 && COLL_NCCL_TIMEOUT_S <= 600);
}

int main(void)
{
    gpu_choice();
    waits();
    return CHECK_DONE();
}
