/* test_gpu_select.c: which device the GPU experiments use and when their records count
 * (issue 17, item 7). On the CPU: the contention record's validity rule and cuda_use_device's
 * refusal without a device; the probe asks the free memory (a context) of the measured device only,
 * and cuda_count (what backend_for asks, from every MPI rank) gives cuda_probe's reason (issue 26,
 * item 4). On a device: cuda_probe leaves the current device as it found it, creates no context on
 * the other devices (their free memory unasked), and cuda_use_device makes CUDA_DEVICE current in a
 * new thread too. */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>

#include "check.h"
#include "config.h"
#include "cuda/cuda.h"
#include "exp/bandwidth/bandwidth_int.h"

#ifdef HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

static void validity_rule(void)
{
    EXPECT(bw_contention_error(1, 0, 0) == NULL);
    EXPECT_STR(bw_contention_error(0, 0, 0), "cannot start the GPU thread");
    EXPECT_STR(bw_contention_error(1, 0, 1), "the GPU triad failed while streaming");
    EXPECT_STR(bw_contention_error(1, 1, 0), "the CPU triad failed while streaming");
    EXPECT_STR(bw_contention_error(1, 1, 1), "the CPU and the GPU triad both failed while streaming");
    EXPECT(bw_contention_error(0, 1, 1) != NULL);
}

#ifdef HAVE_CUDA
static void *thread_device(void *ud)
{
    char err[256];
    int *dev = ud;
    *dev = -1;
    if (cuda_use_device(err, sizeof err) == 0 && cudaGetDevice(dev) != cudaSuccess)
        *dev = -2;
    return NULL;
}

static void on_device(const struct cuda_info *ci)
{
    int dev = -1, last = ci->ndev - 1;
    pthread_t th;
    struct cuda_info again;
    EXPECT(cudaSetDevice(last) == cudaSuccess);
    cuda_probe(&again);                             /* visits every device ... */
    EXPECT(cudaGetDevice(&dev) == cudaSuccess && dev == last);   /* ... and puts this one back */
    EXPECT(pthread_create(&th, NULL, thread_device, &dev) == 0);
    pthread_join(th, NULL);
    EXPECT(dev == CUDA_DEVICE);
    EXPECT(again.dev[CUDA_DEVICE].mem_free_source != NULL);
    for (int i = 0; i < again.ndev; i++)
        EXPECT(i == CUDA_DEVICE ? isfinite(again.dev[i].mem_free_bytes) : isnan(again.dev[i].mem_free_bytes));
    for (int i = 0; i < again.ndev; i++)
        EXPECT(again.dev[i].mem_total_bytes > 0);
    printf("device %d: %s, %.3g GB free (%s)\n", CUDA_DEVICE, again.dev[CUDA_DEVICE].name,
           again.dev[CUDA_DEVICE].mem_free_bytes / 1e9, again.dev[CUDA_DEVICE].mem_free_source);
}
#endif

/* Which devices the probe makes a context on: the measured one only. */
static void probe_rule(void)
{
    EXPECT(cuda_probe_asks_memory(CUDA_DEVICE));
    for (int i = 0; i < CUDA_MAX_DEVICES; i++)
        EXPECT(i == CUDA_DEVICE || !cuda_probe_asks_memory(i));
}

int main(void)
{
    struct cuda_info ci;
    char err[256] = "", why[256] = "";
    validity_rule();
    probe_rule();
    cuda_probe(&ci);
    EXPECT(cuda_count(why, sizeof why) == ci.ndev);
    if (ci.ndev == 0)
        EXPECT_STR(why, ci.reason);
    if (ci.ndev == 0) {                             /* refused, with words, never a crash */
        EXPECT(cuda_use_device(err, sizeof err) == -1 && err[0] != '\0');
        printf("no device: %s; cuda_use_device: %s\n", ci.reason, err);
    }
#ifdef HAVE_CUDA
    else
        on_device(&ci);
#endif
    return CHECK_DONE();
}
