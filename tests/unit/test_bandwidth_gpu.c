/* test_bandwidth_gpu.c: the CUDA backend on a real device: every kernel in both precisions
 * on every allocation path the device supports, an odd element count (the vector loop's
 * tail), validation against the shared reference, and every transfer direction and engine
 * with its data checked; then that every pass counts (time linear in passes), that pageable
 * memory stays on the host (no SM rate beyond the copy engines'), and that the two directions
 * of a bidirectional SM copy overlap. Exits 77 without CUDA or without a device, saying why. */
#include <math.h>
#include <stdlib.h>

#include "check.h"
#include "config.h"
#include "cuda/cuda.h"
#include "exp/bandwidth/bandwidth.h"
#include "exp/bandwidth/bandwidth_int.h"

#ifdef HAVE_CUDA
static void test_paths(void)
{
    char err[256], why[256];
    for (int p = BW_PATH_DEVICE; p < BW_NPATHS; p++) {
        if (bw_cuda_ops.supports(p, why, sizeof why) != 0) {
            printf("skip %s: %s\n", bw_path_names[p], why);
            continue;
        }
        for (int prec = 0; prec < BW_NPREC; prec++) {
            struct bw_arrays x;
            struct bw_layout l = { 100003, prec, p, 0, NULL, 0 };
            EXPECT(bw_cuda_ops.alloc(&x, &l, err, sizeof err) == 0);
            for (int k = 0; k < BW_NKERNELS; k++) {
                EXPECT(bw_cuda_ops.run(&x, k, 3) > 0);
                double e = bw_cuda_ops.check(&x, k);
                if (e != 0.0)
                    printf("  %s %s %s: error %g\n", bw_path_names[p], bw_prec_names[prec], bw_kernels[k].name, e);
                EXPECT(e == 0.0);
            }
            bw_cuda_ops.release(&x);
        }
    }
}

static void test_transfers(void)
{
    char err[256], why[256];
    for (int pinned = 1; pinned >= 0; pinned--) {
        struct bw_xfer *t = bw_cuda_xfer.open((size_t)1 << 20, pinned, err, sizeof err);
        EXPECT(t != NULL);
        if (!t)
            continue;
        for (int e = 0; e < BW_NENGINES; e++) {
            if (bw_cuda_xfer.supports(t, e, why, sizeof why) != 0) {
                printf("skip %s with %s memory: %s\n", bw_engine_names[e], pinned ? "pinned" : "pageable", why);
                continue;
            }
            for (int d = 0; d < BW_NDIRS; d++) {
                EXPECT(bw_cuda_xfer.run(t, d, e) > 0);
                EXPECT(bw_cuda_xfer.check(t, d) == 0);
            }
        }
        bw_cuda_xfer.close(t);
    }
}

/* Fastest of five runs of `passes` passes. */
static double best_of(struct bw_arrays *x, enum bw_kernel k, long passes)
{
    double best = INFINITY;
    for (int i = 0; i < 5; i++)
        best = fmin(best, bw_cuda_ops.run(x, k, passes));
    return best;
}

/* Four passes over a DRAM-sized array take four times one pass: no pass is optimised away. */
static void test_passes(const struct cuda_device *d)
{
    char err[256];
    struct bw_arrays x;
    struct bw_layout l = { (size_t)fmax(8 * d->l2_bytes, 256.0 * 1024 * 1024) / 8, BW_FP64, BW_PATH_DEVICE, 0, NULL, 0 };
    EXPECT(bw_cuda_ops.alloc(&x, &l, err, sizeof err) == 0);
    static const enum bw_kernel ks[] = { BW_READ, BW_TRIAD };
    for (int i = 0; i < 2; i++) {
        bw_cuda_ops.run(&x, ks[i], 1);
        double t1 = best_of(&x, ks[i], 1), t4 = best_of(&x, ks[i], 4);
        printf("  %s: 1 pass %.3g s, 4 passes %.3g s, ratio %.2f\n", bw_kernels[ks[i]].name, t1, t4, t4 / t1);
        EXPECT(t4 / t1 >= 3 && t4 / t1 <= 5);
        EXPECT(bw_cuda_ops.check(&x, ks[i]) == 0.0);   /* the read's sum covers all 4 passes */
    }
    bw_cuda_ops.release(&x);
}

/* Seconds of the fastest of three transfers. */
static double xfer_best(struct bw_xfer *t, enum bw_dir dir, enum bw_engine e)
{
    double best = INFINITY;
    for (int i = 0; i < 3; i++)
        best = fmin(best, bw_cuda_xfer.run(t, dir, e));
    return best;
}

/* The link's rate from the copy engines (pinned, every direction), then SM kernels over pageable
 * memory after several passes: none may beat it by more than the flag's factor. And the two
 * directions of a bidirectional SM copy run together: not the sum of the two alone. */
static void test_host_memory(const struct cuda_device *d)
{
    char err[256], why[256];
    size_t bytes = (size_t)64 << 20;
    double ce = 0, t[BW_NDIRS];
    struct bw_xfer *p = bw_cuda_xfer.open(bytes, 1, err, sizeof err), *q = bw_cuda_xfer.open(bytes, 0, err, sizeof err);
    EXPECT(p && q);
    if (!p || !q) {
        bw_cuda_xfer.close(p);
        bw_cuda_xfer.close(q);
        return;
    }
    for (int dir = 0; dir < BW_NDIRS; dir++) {
        ce = fmax(ce, (dir == BW_BIDIR ? 2.0 : 1.0) * (double)bytes / xfer_best(p, dir, BW_CE) / 1e9);
        t[dir] = xfer_best(p, dir, BW_SM);
    }
    printf("  copy engines %.1f GB/s; SM pinned h2d %.3g s, d2h %.3g s, both %.3g s\n", ce, t[0], t[1], t[2]);
    if (!d->integrated)                                /* one memory on a Spark: directions share it */
        EXPECT(t[BW_BIDIR] < 1.6 * fmax(t[BW_H2D], t[BW_D2H]));
    for (int dir = 0; dir < BW_NDIRS && bw_cuda_xfer.supports(q, BW_SM, why, sizeof why) == 0; dir++) {
        double gbps = (dir == BW_BIDIR ? 2.0 : 1.0) * (double)bytes / xfer_best(q, dir, BW_SM) / 1e9;
        printf("  SM pageable %s: %.1f GB/s\n", bw_dir_names[dir], gbps);
        EXPECT(!bw_sm_beyond_link(gbps, ce, d->integrated));
    }
    struct bw_arrays x;
    struct bw_layout l = { bytes / 8, BW_FP64, BW_PATH_MALLOC, 0, NULL, 0 };
    if (bw_cuda_ops.supports(BW_PATH_MALLOC, why, sizeof why) == 0 && bw_cuda_ops.alloc(&x, &l, err, sizeof err) == 0) {
        double gbps = 3.0 * (double)bytes / best_of(&x, BW_TRIAD, 1) / 1e9;
        printf("  malloc triad: %.1f GB/s\n", gbps);
        EXPECT(!bw_sm_beyond_link(gbps, ce, d->integrated));
        bw_cuda_ops.release(&x);
    }
    bw_cuda_xfer.close(p);
    bw_cuda_xfer.close(q);
}
#endif

int main(void)
{
    struct cuda_info ci;
    cuda_probe(&ci);
    if (ci.ndev == 0) {
        printf("skip: %s\n", ci.reason);
        return 77;
    }
#ifdef HAVE_CUDA
    test_paths();
    test_transfers();
    test_passes(&ci.dev[0]);
    test_host_memory(&ci.dev[0]);
#endif
    return CHECK_DONE();
}
