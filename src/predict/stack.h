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
 * eta = mm_eta x / (x + mm_half), x = F / (2 x 128^3 x SMs): its work in 128 x 128 x 128 tile
 * products per SM, so that a part with few SMs fills with smaller matrices (a 48-SM GB10 with a
 * third of an H100's tiles per SM is not charged as if its matrices were an H100's); attention
 * (its hardware FLOPs, causal half included) F / (att_eta P); their operand traffic at 0.85 of the
 * bandwidth (a stated streaming efficiency, not fitted), a 4-bit base's dequantization too (one
 * library kernel: bitsandbytes'); every other op bytes / (mem_eta BW); an op the largest of its
 * compute time, its memory time and op_s: the host's launch and framework cost per op, which
 * overlaps with the kernels already queued and so binds only an op shorter than it; and, for a
 * stack whose trainer synchronises with the host every micro-batch (the Hugging Face Trainer),
 * micro_s per micro-batch that nothing hides. mm_eta and att_eta are per GPU generation, fitted
 * where a profile has runs of that generation; a generation without runs borrows by a stated rule
 * (predict_stacks_fit) with a wider band. GB10 is a generation of its own: GeForce-class Blackwell
 * tensor cores (sm_121), 48 SMs, LPDDR5X, and software that reached it later than the datacenter
 * parts; the RTX 50 and RTX PRO 6000 cards (sm_120) take its efficiencies. */
enum predict_gen { PREDICT_AMPERE = 0, PREDICT_HOPPER, PREDICT_BLACKWELL, PREDICT_GB10, PREDICT_NGENS };
extern const char *const predict_gen_names[PREDICT_NGENS];
enum predict_stack_param { PREDICT_MM_ETA = 0, PREDICT_MM_HALF = PREDICT_NGENS, PREDICT_ATT_ETA,
                           PREDICT_MEM_ETA = PREDICT_ATT_ETA + PREDICT_NGENS, PREDICT_OP_S, PREDICT_MICRO_S,
                           PREDICT_NSTACKP };
extern const char *const predict_stack_param_names[PREDICT_NSTACKP];
/* The size unit of mm_half: one 128 x 128 x 128 tile product, 2 x 128^3 FLOPs. */
#define PREDICT_TILE_FLOPS (2.0 * 128 * 128 * 128)

/* How a stack runs the plan, besides the fitted efficiencies: the op kinds it fuses into a
 * neighbouring kernel (their own traffic not counted) and whether the loss is fused with the
 * LM head. */
struct predict_stack {
    const char *id;             /* "pytorch", "fused-cuda", "megatron-te", "hf-peft", "pytorch-compile",
                                   "hf-trainer" */
    const char *name;
    const char *short_name;     /* as the decision page names it: "PyTorch FSDP" */
    const char *era;            /* when the runs it was fitted on were made, and with what software */
    const char *fitted_on;      /* the stack whose published runs set the efficiencies */
    const char *compute_from;   /* NULL, or the profile whose matmul and attention efficiencies it
                                   takes (the same kernels); its own runs fit the rest */
    const char *basis;          /* what it fuses and why, with the source */
    int fused[NET_NKINDS];
    int fp8_backward;           /* the FP8 recipe runs the blocks' dgrad and wgrad GEMMs in FP8 too
                                   (Transformer Engine: E4M3 x E5M2), not only their forward */
    int per_micro;              /* its trainer waits on the host every micro-batch: micro_s is fitted */
    int ckpt_default;           /* its trainers checkpoint activations unless told not to (a job's
                                   checkpointing "auto") */
    int compiled;               /* its kernels are compiled or fused (torch.compile, llm.c, Transformer
                                   Engine), not eager PyTorch dispatching each op from Python */
    const char *defaults;       /* what a job's "auto" settings become on it, with the sources */
    double op_s_override;       /* > 0: this per-op cost instead of the fitted one */
    double mem_eta_override;    /* > 0: this memory efficiency for its own elementwise ops */
    double p[PREDICT_NSTACKP];  /* fitted (copied from fitted_on's fit) */
    double loo_lo, loo_hi;      /* band: the 10th and 90th percentile of log(predicted / published)
                                   left out, of the runs it was fitted on; a derived stack's reaches
                                   the errors of its own check runs too */
    int nfit;                   /* runs fitted on; 0: no fit (no runs given) */
    int fitted_gen[PREDICT_NGENS];  /* its own runs set this generation's efficiencies */
    int att_linked[PREDICT_NGENS], att_ref; /* fitted with too few runs to set attention apart: it keeps
                                               generation att_ref's ratio of attention to matmul */
    double gen_spread[PREDICT_NGENS];   /* >= 1: a borrowed generation's efficiencies are known to
                                           within this factor either way (the band); 1 when fitted */
    char gen_rule[PREDICT_NGENS][160];  /* how a borrowed generation's efficiencies were set */
};

/* Bus bytes one device moves for data parallelism over n devices at ZeRO stage zero (nccl-tests'
 * convention, time = bytes / link), from W bytes of weights (all of them, the frozen too) and G bytes
 * of gradients per device: stage 0 all-reduces the gradients once per step, 2 (n-1)/n G; stage 1
 * reduce-scatters them and all-gathers the updated weights, (n-1)/n (G + W); stage 2 reduce-scatters
 * each micro-batch's gradients, (n-1)/n G, and all-gathers the weights once per step; stage 3 (FSDP)
 * all-gathers the weights for the forward and again for the backward and reduce-scatters the
 * gradients, each micro-batch: (n-1)/n (2 W + G). */
struct predict_comm {
    double micro;               /* bytes per micro-batch */
    double step;                /* bytes per optimizer step, besides */
};
void predict_comm_bytes(int zero, int n, double weight_bytes, double grad_bytes, struct predict_comm *c);

/* The bus bandwidth (bytes/s, nccl-tests' busbw) of n GPUs of a system whose scale-up domain
 * holds `domain` GPUs at scaleup_Bps each way per GPU, with nic_Bps per GPU beyond it (data/fabric.csv):
 * within the domain the scale-up link; across nodes NCCL's rings each cross a node boundary through
 * their own NIC, so that the node's NICs together (nic x domain) carry them, at most the scale-up
 * link; 0 for one GPU or when no figure is given. */
double predict_link_Bps(double domain, double scaleup_Bps, double nic_Bps, int n);

/* Gradient bytes per trained parameter a recipe reduces: 4 under FP32, else 2 (BF16 gradients:
 * PyTorch FSDP's mixed precision, Megatron's, llm.c's). */
double predict_grad_bytes(enum net_prec p);

/* Seconds of an optimizer step of `accum` micro-batches of micro_s each, an update of update_s, and
 * traffic comm over link bytes/s: each micro-batch's traffic overlaps with its compute (the larger
 * binds), the step's collective with the last micro-batch's backward (two thirds of it), the rest
 * exposed; link 0: no traffic counted. */
double predict_dp_step_seconds(double micro_s, int accum, double update_s, const struct predict_comm *comm,
                            double link);

/* Positions a micro-batch of b samples of mean length `mean` tokens takes per sample when each
 * micro-batch is padded to its longest sample (the Hugging Face collators' default): the expected
 * longest of b lengths drawn from an exponential distribution of that mean, mean (1 + 1/2 + ... + 1/b)
 * (an assumption: a data set's lengths are rarely published; one sample a micro-batch is never
 * padded), at most seq. */
double predict_padded_positions(double mean, int b, int seq);

/* One published run: a model shape trained on `gpus` GPUs of a catalog system. */
struct predict_run {
    char id[64], system[48], stack[32], model[32], source[256];
    struct net_shape shape;     /* per GPU: batch = micro-batch, accum = its accumulation */
    enum net_prec prec;
    int gpus, zero;             /* ZeRO stage of its sharding: 0 DDP (NO_SHARD), 1 (ZERO_1, a distributed
                                   optimizer), 2 (SHARD_GRAD_OP), 3 (FULL_SHARD, FSDP) */
    int gen;                    /* the system's enum predict_gen */
    double sms;                 /* its streaming multiprocessors */
    double peak[NET_NDTYPES];   /* the system's spec dense peaks (FLOP/s) per operand dtype; 0: none */
    double bw;                  /* its memory bandwidth (B/s): the catalog's, or the row's mem_bw_gbs
                                   where the run's part differs (torchtitan's H100s: HBM2e) */
    double link;                /* bytes/s each way per GPU between its GPUs (data/fabric.csv: the
                                   scale-up link within a node, else the NIC); 0: none given */
    struct predict_comm comm;   /* the data-parallel traffic of one GPU */
    double published;           /* tokens/s per GPU */
    double sample_tokens;       /* tokens a sequence holds (shape.seq positions when packed or filled) */
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
/* Whether the profile (or the one it takes its efficiencies from) was fitted on runs. */
int predict_stack_fitted(const struct predict_stack *st);
/* The ids of every profile, as the scenario's choices list them (stack.c's table, in order). */
#define PREDICT_STACK_IDS "pytorch|fused-cuda|megatron-te|hf-peft|pytorch-compile|hf-trainer"

/* The compiled stack a job on an eager one is set beside (the decision's "a compiled stack on both
 * sides"): the current PyTorch profile, torch.compile. */
#define PREDICT_COMPILED_STACK "pytorch-compile"

/* Tokens per second per GPU that profile parameters p predict for a run. */
double predict_run_tokens(const struct predict_stack *st, const double *p, const struct predict_run *r);

/* A catalog row's GPU (data/systems.csv's generation, span and sms, typed by sparkreport.catalog):
 * *gen its enum predict_gen, -1 where the row names none the profiles know (projected with Hopper's
 * efficiencies, the band spanning every generation's); *span whether its efficiencies are less
 * certain than its generation's runs say, so that its band spans every generation's (the RTX 50 and
 * RTX PRO 6000 cards take the GB10's: the runs of their generation are a DGX Spark's); *sms its
 * streaming multiprocessors (the matmul size term), 0 where the row gives none. row may be NULL. */
void predict_stack_row_gpu(const cJSON *row, int *gen, int *span, double *sms);
/* Whether a profile's efficiencies on a generation were set by its own runs (not borrowed). */
int predict_stack_gen_fitted(const struct predict_stack *st, int gen);

/* The operand dtype whose dense peak an op of the plan runs at under recipe p and stack st:
 * attention at BF16 (FP32 under the FP32 recipe), a matmul at its operand dtype, and under a stack
 * with fp8_backward the FP8 recipe's block dgrad and wgrad GEMMs at E4M3. */
enum net_dtype predict_stack_op_dtype(const struct predict_stack *st, enum net_prec p, const struct net_op *op);

/* Where an op runs: the dense peak for its dtype (FLOP/s), the bandwidth (B/s), the generation
 * whose efficiencies apply, and whether the peak is already a sustained rate (measured: no
 * mm_eta or att_eta applied). */
struct predict_target {
    double peak, bw;
    int gen, sustained;
    double sms;                 /* streaming multiprocessors (the matmul size term), above 0 */
};

/* Seconds a stack's trainer spends per micro-batch besides its ops (micro_s; 0 for a stack that
 * queues work without waiting on the host). */
double predict_stack_micro_seconds(const struct predict_stack *st);

/* Seconds of one op on a target under a stack. */
double predict_stack_op_seconds(const struct predict_stack *st, const struct predict_target *t,
                                const struct net_op *op, int *mem_bound);
/* The same with the generation's efficiencies moved to the fast end (e < 0: times gen_spread,
 * at most 1) or the slow end (e > 0: divided by it). */
double predict_stack_op_seconds_at(const struct predict_stack *st, const struct predict_target *t,
                                   const struct net_op *op, int e);

/* results.json: info.stack_profiles (each profile, its parameters and its leave-one-out
 * summary) and one record per run (series "stack_fit"). */
void predict_stacks_json(const struct predict_run *runs, int n, cJSON *results, cJSON *info);

#endif
