/* test_bandwidth_gpu.c: the CUDA backend on a real device: every kernel in both precisions
 * on every allocation path the device supports, an odd element count (the vector loop's
 * tail), validation against the shared reference, and every transfer direction and engine
 * with its data checked. Exits 77 without CUDA or without a device, saying why. */
#include <stdlib.h>

#include "check.h"
#include "config.h"
#include "cuda/cuda.h"
#include "exp/bandwidth/bandwidth.h"

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
#endif
    return CHECK_DONE();
}
