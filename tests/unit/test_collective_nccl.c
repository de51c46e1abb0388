/* test_collective_nccl.c: the collective experiment's device buffers. Everywhere: what
 * backend_for("collective", "gpu") says when it has no NCCL backend to give (the driver's words
 * without a device; why the build has no NCCL). On a GPU: each NCCL collective on a one-rank
 * communicator at 4099 and 2^25 elements, put, run, sync and get back to back, its values checked
 * element by element as the host part checks them. The CPU-side rules are test_collective_gpu's. */
#include <stdlib.h>

#include "check.h"
#include "config.h"
#include "cuda/cuda.h"
#include "exp/collective/collective_int.h"
#include "measure/backend.h"

#define COUNT 4099                  /* float32 elements: not a multiple of 13 (the pattern's period) */
#define LARGE ((int64_t)1 << 25)    /* 128 MiB of float32: where a cross-stream race shows */

static void expect_reason(const char *why)
{
    struct cuda_info ci;
    cuda_probe(&ci);
    if (ci.ndev == 0)
        EXPECT_STR(why, ci.reason);
    else
        EXPECT(strncmp(why, "this build has no NCCL (", 24) == 0);
}

/* What element i holds after op on one rank: the reductions sum one rank's values. */
static float expected(enum coll_op op, int64_t i)
{
    return op == COLL_ALLREDUCE || op == COLL_REDUCESCATTER ? coll_sum(1, i) : coll_value(0, i);
}

/* put, run, sync, get with nothing in between (the order collective_mpi.c's first run has): the
 * copy and the clear must be on the NCCL stream, or the operation reads a stale send buffer or
 * the clear lands on its result; large counts show it. Then put alone must have zeroed recv. */
static void check_op(const struct coll_dev_ops *d, enum coll_op op, int64_t count, float *send, float *recv)
{
    char err[512] = "";
    int64_t bad = 0;
    for (int64_t i = 0; i < count; i++)
        recv[i] = -1;
    int ok = d->alloc(count, count, err, sizeof err) == 0 && d->put(send, err, sizeof err) == 0
          && d->run(op, 0, 0, err, sizeof err) == 0 && d->sync(err, sizeof err) == 0 && d->get(recv, err, sizeof err) == 0;
    if (!ok)
        printf("%s: %s\n", coll_ops[op].name, err);
    EXPECT(ok);
    for (int64_t i = 0; ok && i < count; i++)
        bad += recv[i] != expected(op, i);
    if (bad)
        printf("%s, %lld elements: %lld wrong\n", coll_ops[op].name, (long long)count, (long long)bad);
    EXPECT(bad == 0);
    ok = ok && d->put(send, err, sizeof err) == 0 && d->get(recv, err, sizeof err) == 0;
    for (int64_t i = 0; ok && i < count; i++)
        bad += recv[i] != 0;        /* put zeroes the device's receive buffer */
    EXPECT(ok && bad == 0);
    d->release();
}

int main(void)
{
    char why[512] = "", err[512] = "", version[64], id[COLL_NCCL_ID_BYTES];
    const struct coll_dev_ops *d = backend_for("collective", "gpu", why, sizeof why);
    if (!d) {
        expect_reason(why);
        printf("no NCCL backend (checked its reason): %s\n", why);
        return CHECK_DONE();
    }
    int major = 0, minor = 0, patch = 0;
    EXPECT(sscanf(d->version(version, sizeof version), "NCCL %d.%d.%d", &major, &minor, &patch) == 3 && major >= 2);
    if (d->select(-1, err, sizeof err) != 0 || d->new_id(id, err, sizeof err) != 0 || d->open(id, 0, 1, err, sizeof err) != 0) {
        printf("NCCL on one rank: %s\n", err);
        return 1;
    }
    float *send = malloc(LARGE * sizeof *send), *recv = malloc(LARGE * sizeof *recv);
    EXPECT(send && recv);
    for (int64_t i = 0; send && i < LARGE; i++)
        send[i] = coll_value(0, i);
    for (int64_t count = COUNT; send && recv && count <= LARGE; count = count == COUNT ? LARGE : LARGE + 1) {
        check_op(d, COLL_ALLREDUCE, count, send, recv);
        check_op(d, COLL_ALLGATHER, count, send, recv);
        check_op(d, COLL_REDUCESCATTER, count, send, recv);
    }
    d->close();
    free(send);
    free(recv);
    return CHECK_DONE();
}
