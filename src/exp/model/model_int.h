/* model_int.h: what the model experiment's device halves share (model.c: the CPU's
 * ceilings and the one flow; model_gpu.c: a CUDA device's ceilings): the calibration's
 * repetition loop and the combine rule, chosen on the precision family's intensity kernel of
 * the device. Each device
 * writes its ceilings into info.calibration; predict_calib_ceilings reads them back into the
 * predict_calib, for every device alike. Not for other families. */
#ifndef SR_MODEL_INT_H
#define SR_MODEL_INT_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "predict/calib.h"

/* The fastest ("min") or the median sample of fn under the calibration's rule (a warm-up
 * dropped, 3 to 10 samples until the CV is under 2 %, half a second of samples at most). */
double model_timed(double (*fn)(void *ud), void *ud, const char *stat);

struct prec_ops;
struct prec_sweep;
/* The combine rule on the precision family's FP32 chain kernel (po's sweep; s gives the format,
 * the elements and the threads): set up, swept at ks[nk] (ascending, at most 16; ks[0] = 0: the
 * memory end, the last the compute end), released; q into ci.combine, the compute end into
 * ci.vector_flops; 0, or -1 with why. */
int model_prec_combine(const struct prec_ops *po, struct prec_sweep *s, cJSON *ci, const int *ks, int nk,
                       const char *what, char *why, size_t n);

/* A device's ceilings into ci, the results' info.calibration: device, threads, peak_flops per
 * dtype (fp32 at least), peak_gemm_flops (the FLOPs of the GEMM that reached it),
 * bandwidth_Bps, op_overhead_s, combine, vector_flops, and each one's words (*_what); info may
 * get more (the CPU's info.dram). 0, or -1 with why.
 * The CPU's (model_cpu.c): cblas_sgemm, measure_dram, an empty parallel region, its own sweep.
 * A CUDA device's (model_gpu.c): cuBLASLt GEMMs per dtype, the device-memory bandwidth, an
 * empty kernel launch, the precision family's sweep kernel; also device_name, memory_bytes and
 * shared_pool (which catalog system the device is, the runner adds as catalog_id). Without a
 * usable device why gets the driver's words ("no CUDA device: ...", "... built without CUDA
 * ..."), as backend_for gives them. */
struct model_gemms;
int model_cpu_ceilings(cJSON *ci, cJSON *info, const struct model_gemms *shapes, char *why, size_t n);
int model_gpu_ceilings(cJSON *ci, cJSON *info, const struct model_gemms *shapes, char *why, size_t n);

/* The GEMM shapes the validation's steps multiply that a matmul ceiling is measured at: the
 * distinct m x n x k of their matmul ops (forward, dgrad and wgrad alike) with the largest
 * smallest dimension, then the most FLOPs (model.c's gemm_shapes). */
#define MODEL_GEMMS 4
struct model_gemms {
    int n;
    double mnk[MODEL_GEMMS][3];
};

/* A matmul op timed on its own (results: series calibration, class matmul) faster than its
 * ceiling is a GEMM measured in this run above the run's GEMM rate: the ceiling is measured again
 * at that op's shape (gemm, NULL: not) and becomes the fastest of that, the op's rate and itself;
 * ci's peak_flops and cal's ceilings change, cal's curves are rebuilt against them, and
 * ci.remeasured says what happened. One dtype's ceiling at a time: an op whose dtype has no peak of
 * its own is judged against FP32's. Returns 1 when a ceiling was raised. */
int model_recheck_peak(cJSON *ci, struct predict_calib *cal, const cJSON *results,
                       double (*gemm)(int ta, int tb, int m, int n, int k));

/* The CPU's cblas_sgemm, row-major as the trainer calls it (ta, tb: A, B transposed), m x n x k,
 * all threads: its fastest repetition after a warm-up, FLOP/s. */
double model_cpu_gemm(int ta, int tb, int m, int n, int k);

#endif
