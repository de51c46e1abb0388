/* calib.h: what the training-time model knows about a machine, and how it turns an op of the
 * plan (src/net/plan.h) into seconds. A calibration comes from microbenchmarks only (src/exp/model/model.c):
 * ops timed on their own, a large GEMM for the sustained peak, a DRAM read for the bandwidth,
 * an intensity sweep for the rule that combines compute and memory time, an empty parallel
 * region for the fixed cost of an op. It is never fitted on the training runs it is judged
 * against. A system (the measured machine, or a catalog row) supplies the ceilings. */
#ifndef SR_PREDICT_CALIB_H
#define SR_PREDICT_CALIB_H

#include <stddef.h>

#include <cjson/cJSON.h>

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
    double bytes_read;          /* of bytes, those it reads */
    double seconds;
    double x;                   /* its size on its class's curve */
};

#define PREDICT_MIXES 4
#define PREDICT_KIND_CURVES 48          /* more kinds and dtypes than that: the rest follow their class's curve */

struct predict_calib {
    double peak;                        /* sustained matmul FLOP/s (large GEMM), FP32 operands */
    double peak_dtype[NET_NDTYPES];     /* sustained matmul FLOP/s per operand dtype (a GPU's
                                           cuBLASLt GEMM per dtype); 0: peak. The compute
                                           classes' curves are against the op's dtype's peak */
    double bw;                          /* the machine's DRAM bandwidth (its one figure), bytes/s */
    double mix_share[PREDICT_MIXES], mix_bw[PREDICT_MIXES];     /* the DRAM ceiling per read share
                                           (src/measure/dram.h), bytes/s, descending share; nmix 0:
                                           bw for every mix */
    int nmix;
    double anchor_flops;                /* FLOPs of the GEMM that reached the peak: the matmul curve is 1 there */
    double q;                           /* combine rule: t = (tc^q + tm^q)^(1/q); q >= 64: max */
    double overhead_s;                  /* fixed cost of one op (fork/join or launch) */
    struct predict_curve curve[NET_NCLASSES];
    struct predict_kind_curve {         /* a memory-bound op's own curve, by kind and dtypes: the
                                           kinds of one class run 2-5x apart on one machine
                                           (residual against gelu, adamw against zero_grad), and
                                           one kind 3x apart by its output dtype (GELU rounding
                                           to BF16 against GELU in FP32) */
        enum net_kind kind;
        enum net_dtype dtype, dtype_out;
        struct predict_curve curve;
    } kind_curve[PREDICT_KIND_CURVES];
    int nkind;
    double spread;                      /* sd of log(measured / curve) over the timed ops */
    struct predict_timed *timed;          /* exact times by op, the measured machine's own */
    int ntimed, captimed;
};

void predict_calib_free(struct predict_calib *c);
/* Records an op's measured time (and its point on its class's curve and, memory-bound, on its
 * kind's and dtypes'). */
void predict_calib_add(struct predict_calib *c, const struct net_op *op, double seconds);
/* The measured time of an op of the same kind, dtypes and shape, or a negative number. */
double predict_calib_lookup(const struct predict_calib *c, const struct net_op *op);
/* The curves built again from the timed ops, against the ceilings as they are now (after a
 * ceiling was measured again). */
void predict_calib_rebuild(struct predict_calib *c);
/* Fits the spread of the curves against the timed ops (after every predict_calib_add). */
void predict_calib_finish(struct predict_calib *c);

/* The curve an op follows: memory-bound, that of its kind and dtypes when the calibration timed
 * one; else its class's (matmul: one curve, anchored at the sustained GEMM rate). */
const struct predict_curve *predict_op_curve(const struct predict_calib *c, enum net_kind kind, enum net_dtype dtype,
                                             enum net_dtype dtype_out);
/* Whether a class's ops are timed against a FLOP/s peak (matmul, attention) rather than bytes. */
int predict_compute_class(enum net_class cls);
/* x of an op on its class's curve (FLOPs or bytes) and whether the class is compute-bound. */
double predict_op_size(const struct net_op *op, int *compute);
/* The memory ceiling of an op that reads `read_share` of its bytes, bytes/s: the calibration's
 * mix ceilings interpolated in the share as measure_dram_ceiling does, else bw. */
double predict_mix_bw(const struct predict_calib *c, double read_share);

/* The combine rule. */
double predict_combine(double tc, double tm, double q);

/* Ceilings of a system the model projects onto. */
struct predict_system {
    char id[48], name[128], kind[16];   /* kind: "measured", "catalog", "scenario" */
    int own;                            /* a catalog-kind row the scenario gave (sr.system), not the catalog's */
    double bw;                          /* bytes/s */
    double peak[NET_NDTYPES];         /* dense matmul FLOP/s per operand dtype; 0: none */
    double memory;                      /* bytes of device memory (the one pool on unified parts) */
    double host_memory, host_bw, link_bw;   /* bytes, bytes/s, bytes/s each way; 0: none */
    int shared_pool;                    /* CPU and accelerator draw on the same memory */
    double power_w, price_usd;          /* 0: unknown */
    double system_power_w;              /* the whole system's power per device as a buyer pays for it
                                           (data/costs.csv, host included); 0: none given */
    int node_gpus;                      /* GPUs one node holds (data/fabric.csv's NVLink domain); 0: one */
    double scaleup_Bps, nic_Bps;        /* data/fabric.csv: the scale-up link per GPU within a node and
                                           the NIC per GPU beyond it, bytes/s each way; 0: none */
    double peak_fp4;                    /* dense FP4 (NVFP4) matmul FLOP/s; 0: none */
    double tenant_usable;               /* > 0: the bytes one of several tenants' jobs may use (predict/tenants.c),
                                           instead of the memory less the reserve */
    struct {                            /* a dense peak the sources disagree on (0: none): the
                                           range, and whether peak[] is a measured sustained rate */
        double low, high;
        int sustained;
    } range[NET_NDTYPES];
    int gen, span;                      /* its GPU's generation (enum predict_gen, -1: none the stack
                                           profiles know) and whether its band spans every generation's */
    double sms;                         /* its GPU's streaming multiprocessors; 0: none given */
    const cJSON *roles;                 /* its catalog row's roles (data/systems.csv), or NULL */
    int shared;                         /* role 'shared': its projection shows N people sharing one device */
};

/* A system's dense matmul FLOP/s for operands of dtype d: its own, else BF16, FP32, E4M3. */
double predict_system_peak(const struct predict_system *s, enum net_dtype d);

/* Seconds of one op on the measured machine: its timed value when the calibration has one,
 * else the curves. *mem_bound: its bytes at the bandwidth take longer than its FLOPs at the peak.
 * Systems that were not measured are timed by their stack's profile (stack.h). */
double predict_op_seconds(const struct predict_calib *c, const struct net_op *op, int *mem_bound);

/* The ceilings a device's calibration wrote into info.calibration (peak_flops per dtype, fp32
 * at least; peak_gemm_flops; bandwidth_Bps; bandwidth_mix, optional; op_overhead_s; combine.q) into c, the way the run
 * fills them on every device; 0, or -1 naming the field that is missing. */
int predict_calib_ceilings(const cJSON *calibration, struct predict_calib *c, char *err, size_t errlen);
/* A model experiment of a results document (its info.calibration and its records of series
 * calibration, each an op timed on its own) as the calibration its run built: each op keeps its
 * first time; 0, or -1 with a message. predict_calib_free() it. */
int predict_calib_load(const cJSON *experiment, struct predict_calib *c, char *err, size_t errlen);

#endif
