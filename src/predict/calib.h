/* calib.h: what the training-time model knows about a machine, and how it turns an op of the
 * plan (src/net/plan.h) into seconds. A calibration comes from microbenchmarks only (src/exp/validate/validate.c):
 * ops timed on their own, a large GEMM for the sustained peak, a DRAM read for the bandwidth,
 * an intensity sweep for the rule that combines compute and memory time, an empty parallel
 * region for the fixed cost of an op. It is never fitted on the training runs it is judged
 * against. A system (the measured machine, or a catalog row) supplies the ceilings. */
#ifndef SR_PREDICT_CALIB_H
#define SR_PREDICT_CALIB_H

#include "net/plan.h"

#define PREDICT_CURVE_MAX 64

/* Efficiency against size, interpolated linearly in log(size) between points, flat beyond the
 * ends: matmul and attention: achieved FLOP/s over the peak against FLOPs; the other classes:
 * achieved bytes/s over the bandwidth against bytes moved. */
struct predict_curve {
    int n;
    double x[PREDICT_CURVE_MAX], eta[PREDICT_CURVE_MAX];
};
double predict_curve_eval(const struct predict_curve *c, double x);
/* Adds a point; points at the same x are averaged (in log eta); keeps x ascending. */
void predict_curve_add(struct predict_curve *c, double x, double eta);

/* One op timed on its own: which op (kind, which linear or norm: the final norm's backward
 * overwrites where the others add; dtypes, shape, FLOPs and bytes: attention's shape does not
 * show the sequence length) and its median seconds. */
struct predict_timed {
    enum net_kind kind;
    int which;
    enum net_dtype dtype, dtype_out;
    double m, n, k, flops, bytes;
    double seconds;
    double x;                   /* its size on its class's curve */
};

struct predict_calib {
    double peak;                        /* sustained matmul FLOP/s (large GEMM), FP32 operands */
    double peak_dtype[NET_NDTYPES];     /* sustained matmul FLOP/s per operand dtype (a GPU's
                                           cuBLASLt GEMM per dtype); 0: peak. The compute
                                           classes' curves are against the op's dtype's peak */
    double bw;                          /* sustained read bandwidth at DRAM size, bytes/s */
    double q;                           /* combine rule: t = (tc^q + tm^q)^(1/q); q >= 64: max */
    double overhead_s;                  /* fixed cost of one op (fork/join or launch) */
    struct predict_curve curve[NET_NCLASSES];
    double spread;                      /* sd of log(measured / curve) over the timed ops */
    struct predict_timed *timed;          /* exact times by op, the measured machine's own */
    int ntimed, captimed;
};

void predict_calib_free(struct predict_calib *c);
/* Records an op's measured time (and its point on its class's curve). */
void predict_calib_add(struct predict_calib *c, const struct net_op *op, double seconds);
/* The measured time of an op of the same kind, dtypes and shape, or a negative number. */
double predict_calib_lookup(const struct predict_calib *c, const struct net_op *op);
/* Fits the spread of the curves against the timed ops (after every predict_calib_add). */
void predict_calib_finish(struct predict_calib *c);

/* x of an op on its class's curve (FLOPs or bytes) and whether the class is compute-bound. */
double predict_op_size(const struct net_op *op, int *compute);

/* The combine rule. */
double predict_combine(double tc, double tm, double q);

/* Ceilings of a system the model projects onto. */
struct predict_system {
    char id[48], name[128], kind[16];   /* kind: "measured", "catalog", "scenario" */
    double bw;                          /* bytes/s */
    double peak[NET_NDTYPES];         /* dense matmul FLOP/s per operand dtype; 0: none */
    double memory;                      /* bytes of device memory (the one pool on unified parts) */
    double host_memory, host_bw, link_bw;   /* bytes, bytes/s, bytes/s each way; 0: none */
    int shared_pool;                    /* CPU and accelerator draw on the same memory */
    double power_w, price_usd;          /* 0: unknown */
};

/* Efficiency assumptions for a system that was not measured (catalog and scenario rows),
 * central value and band, and where they come from; the measured machine uses its curves. */
struct predict_carry {
    double mm_eta[3];                   /* matmul: low, central, high (from the calibration) */
    double att_eta[3];                  /* attention FLOPs against the matmul peak */
    double mem_eta[3];                  /* memory-bound ops against the catalog bandwidth */
    double overhead_s[3];               /* per op (kernel launch) */
};
void predict_carry_from(const struct predict_calib *c, struct predict_carry *k);

/* Seconds of one op of a step in recipe p: on the measured machine (sys == NULL) its timed
 * value when the calibration has one, else the curves; on a system, the carried efficiencies
 * at band point b (0 low time: high efficiencies, 1 central, 2 high time), attention on the
 * matrix units in the recipe's matmul dtype. *mem_bound: memory time > compute time. */
double predict_op_seconds(const struct predict_calib *c, const struct predict_carry *k,
                        const struct predict_system *sys, int b, enum net_prec p, const struct net_op *op,
                        int *mem_bound);

#endif
