/* precision_int.h: what precision.c (the plan, timing and records) and precision_parts.c (what
 * each part measures) share inside the precision family; nothing outside it includes this. */
#ifndef SR_PRECISION_INT_H
#define SR_PRECISION_INT_H

#include <cjson/cJSON.h>

#include "exp/precision/precision.h"
#include "measure/measure.h"

#define MiB (1024.0 * 1024)
#define TiB (1024.0 * 1024 * 1024 * 1024)
#define MEM_SHARE 0.5                   /* of MemAvailable one sweep array may take */
#define CUT_GRACE_S 2.0                 /* past the budget's end, long kernels abandon their work */

enum prec_part { PART_OVERHEAD, PART_PEAK, PART_GEMM, PART_SWEEP, PART_NUMERICS, NPARTS };

struct prec_run {
    const cJSON *params;
    cJSON *results, *skipped, *info;
    int fmt_on[PREC_NFMT], part_on[NPARTS];
    struct measure_rule rule;       /* budget_s set per measurement */
    int tmax;                       /* OpenMP threads of the "all cores" runs */
    uint64_t seed;
    double t0, end;                 /* timing_now() seconds: start, end of the whole budget */
    double deadline;                /* end of the share now running (a part, a format) */
    double *ref64, *absref;         /* numerics: FP64 D of the unquantized inputs and |A||B| */
};

/* A timed operation: run(ud, iters) returns the seconds of iters repetitions. */
struct prec_op {
    double (*run)(void *ud, long iters);
    void *ud;
    long iters;                     /* per sample, set by prec_time */
    double first;                   /* seconds of one iteration already run (the validation
                                       run), or 0: a long one counts as the first warm-up, and
                                       one of 20 samples or more needs no calibration */
};

int prec_out_of_time(struct prec_run *r, const char *item);   /* skips item when 1 */
/* Gives what follows `weight` of `total` (the weights of it and of all after it) of the time
 * until `until`; returns the share's end (also r->deadline). Time a share leaves unused goes to
 * the ones after it. */
double prec_share(struct prec_run *r, double until, double weight, double total);
cJSON *prec_record(const char *series, const char *device, enum prec_fmt f);
/* Calibrates op's repetitions per sample and repeats it under the run's rule (measure.h) with
 * budget_s of samples; adds iters_per_sample and the harness's fields to rec; returns the median
 * seconds of one repetition. */
double prec_time(struct prec_run *r, struct prec_op *op, double budget_s, cJSON *rec);
void prec_add_rates(cJSON *rec, double flops, double bytes);
void prec_add_validation(cJSON *rec, double err, double tol);
void prec_knee_record(struct prec_run *r, const char *device, enum prec_fmt f, const char *method,
                      const double *fpb, const double *gflops, int n);

/* A GEMM shape of the plan. */
struct prec_shape {
    const char *name;               /* "square", "attn-proj", "mlp-up", "lm-head" */
    int m, n, k;
};

/* The first k of the tensor-core intensity sweep: the smallest whose rows (k elements of f) meet
 * the GEMM libraries' PREC_ROW_ALIGN bytes and hold whole scale blocks (FP4 32, FP8 16, BF16 and
 * FP16 8, FP32 4, FP64 2): a shorter row is refused for its alignment, not for its format. */
#define PREC_ROW_ALIGN 16
long prec_sweep_start_k(enum prec_fmt f);

/* The parts (precision_parts.c), for one device's ops. */
void prec_overheads(struct prec_run *r, const struct prec_ops *ops);
void prec_peaks(struct prec_run *r);
void prec_gemms(struct prec_run *r, const struct prec_ops *ops, const struct prec_shape *shapes, int nshapes);
void prec_sweeps(struct prec_run *r, const struct prec_ops *ops, double bytes);
void prec_numerics(struct prec_run *r, const struct prec_ops *ops);
void prec_free_reference(struct prec_run *r);

#endif
