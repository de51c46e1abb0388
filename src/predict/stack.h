/* stack.h: what a GPU software stack achieves per op class, as a function of size, fitted on
 * published training runs (data/gpu-runs.csv, cited row by row) and checked by leaving each run
 * out in turn. The projection onto catalog systems times each op of a workload's plan with its
 * stack's profile and the system's spec ceilings; nothing here depends on the machine that runs
 * sparkreport. */
#ifndef SR_PREDICT_STACK_H
#define SR_PREDICT_STACK_H

#include <cjson/cJSON.h>

#include "net/plan.h"

struct predict_system;

/* The fitted parameters: a matmul of F FLOPs on a dense peak P takes F / (eta P) with
 * eta = mm_eta x / (x + mm_half_s), x = F / P (its time at peak); attention (its hardware FLOPs,
 * causal half included) F / (att_eta P); their operand traffic at 0.85 of the bandwidth (a
 * stated streaming efficiency, not fitted); every other op bytes / (mem_eta BW); an op the larger
 * of its compute and memory time, plus op_s (launch and framework cost). mm_eta and att_eta are
 * fitted per GPU generation (the runs have A100 and H100 rows: the same FlashAttention-2 code
 * reaches a much smaller share of Hopper's peak than of Ampere's); a generation without runs
 * (Blackwell) is projected with both, the band spanning them. */
enum predict_gen { PREDICT_AMPERE = 0, PREDICT_HOPPER, PREDICT_NGENS };
enum predict_stack_param { PREDICT_MM_ETA = 0, PREDICT_MM_HALF = PREDICT_NGENS, PREDICT_ATT_ETA,
                           PREDICT_MEM_ETA = PREDICT_ATT_ETA + PREDICT_NGENS, PREDICT_OP_S, PREDICT_NSTACKP };
extern const char *const predict_stack_param_names[PREDICT_NSTACKP];

/* How a stack runs the plan, besides the fitted efficiencies: the op kinds it fuses into a
 * neighbouring kernel (their own traffic not counted) and whether the loss is fused with the
 * LM head. */
struct predict_stack {
    const char *id;             /* "pytorch", "fused-cuda" */
    const char *name;
    const char *fitted_on;      /* the stack whose published runs set the efficiencies */
    const char *basis;          /* what it fuses and why, with the source */
    int fused[NET_NKINDS];
    double op_s_override;       /* > 0: this per-op cost instead of the fitted one */
    double mem_eta_override;    /* > 0: this memory efficiency for its own elementwise ops */
    double p[PREDICT_NSTACKP];  /* fitted (copied from fitted_on's fit) */
    double loo_lo, loo_hi;      /* band: the 10th and 90th percentile of log(predicted / published)
                                   left out, of the runs it was fitted on; a derived stack's reaches
                                   the errors of its own check runs too */
    int nfit;                   /* runs fitted on; 0: no fit (no runs given) */
};

/* One published run: a model shape trained on `gpus` GPUs of a catalog system. */
struct predict_run {
    char id[64], system[48], stack[32], model[32], source[256];
    struct net_shape shape;     /* per GPU: batch = micro-batch, accum = its accumulation */
    enum net_prec prec;
    int gpus, sharded;          /* optimizer state sharded across the GPUs (FSDP, ZeRO >= 1) */
    int gen;                    /* the system's enum predict_gen */
    double peak, bw;            /* the system's spec dense peak (FLOP/s) and bandwidth (B/s) */
    double published;           /* tokens/s per GPU */
    double predicted, loo;      /* by the full fit; by the fit without this run */
    struct net_op *ops;         /* one micro-batch's ops, the blocks folded into the first */
    double *weight;             /* how many times each counts */
    int nops;
};

/* The published runs and the catalog rows (as results.json carries them): sets the runs the
 * profiles fit on. Returns the number of runs kept; rows naming a system the catalog lacks
 * are an error in err. */
int predict_runs_load(const cJSON *runs, const cJSON *catalog, struct predict_run **out, char *err, size_t errlen);

void predict_runs_free(struct predict_run *runs, int n);


/* Fits every profile on the runs of its stack, with leave-one-out (fills each run's
 * predicted and loo). */
void predict_stacks_fit(struct predict_run *runs, int n);

/* The profile of a stack id, or NULL. */
const struct predict_stack *predict_stack_find(const char *id);

/* Tokens per second per GPU that profile parameters p predict for a run. */
double predict_run_tokens(const struct predict_stack *st, const double *p, const struct predict_run *r);

/* The GPU generation of a catalog system (the rows whose efficiencies the runs measure), or -1
 * for a system of another generation. */
int predict_stack_gen(const char *system_id);

/* Where an op runs: the dense peak for its dtype (FLOP/s), the bandwidth (B/s), the generation
 * whose efficiencies apply, and whether the peak is already a sustained rate (measured: no
 * mm_eta or att_eta applied). */
struct predict_target {
    double peak, bw;
    int gen, sustained;
};

/* Seconds of one op on a target under a stack. */
double predict_stack_op_seconds(const struct predict_stack *st, const struct predict_target *t,
                                const struct net_op *op, int *mem_bound);

/* results.json: info.stack_profiles (each profile, its parameters and its leave-one-out
 * summary) and one record per run (series "stack_fit"). */
void predict_stacks_json(const struct predict_run *runs, int n, cJSON *results, cJSON *info);

#endif
