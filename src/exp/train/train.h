/* train.h: the training experiment: a GPT-style decoder (src/net/plan.h describes it) trained
 * on the n-gram source of train_data.h, one configuration (shape x precision) after another
 * on one device. A step walks the op plan and times every op; the backends (CPU: OpenMP and
 * CBLAS in train_cpu.c; GPU: CUDA and cuBLASLt in src/exp/train/train_cuda.cu) implement one ops
 * interface and never see the bookkeeping. Parameters and results: train.c; one
 * configuration's run, validation and records: train_loop.c. */
#ifndef SR_TRAIN_H
#define SR_TRAIN_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "exp/train/train_math.h"
#include "net/plan.h"
#include "util/param.h"

struct train_ctx;               /* a backend's tensors and state */

struct train_ops {
    const char *device;         /* "cpu", "gpu" */
    enum net_impl impl;
    /* Allocates every tensor net_act_tensor() lists for this backend and sets the initial
     * weights for the seed; NULL with a message (no memory, no device, unsupported). */
    struct train_ctx *(*open)(const struct net_shape *s, enum net_prec p, uint64_t seed,
                              char *err, size_t errlen);
    /* Tokens and targets of the step's accum micro-batches, [accum][batch][seq] each. */
    void (*load)(struct train_ctx *c, const int32_t *tokens, const int32_t *targets);
    /* The optimizer's settings for the coming step (grad_scale is the backend's: min(1,
     * clip / norm) from the norm the step computes; clip <= 0 disables clipping). */
    void (*set_step)(struct train_ctx *c, const struct train_adam *a, float clip);
    void (*run)(struct train_ctx *c, const struct net_op *op);
    void (*mark)(struct train_ctx *c, int i);                  /* time mark i, 0 .. nops */
    void (*elapsed)(struct train_ctx *c, int n, double *s);    /* waits; s[i]: mark i to i+1 */
    double (*loss)(struct train_ctx *c);        /* mean cross-entropy of the last tokens, nats */
    double (*grad_norm)(struct train_ctx *c);   /* global L2 norm before clipping */
    /* w += eps g / |g| in the FP32 master weights (|g| from the last grad_norm op), then the
     * low-precision copies from them. */
    void (*perturb)(struct train_ctx *c, double eps);
    void (*reset)(struct train_ctx *c);         /* initial weights again, moments zero */
    double (*allocated)(struct train_ctx *c);   /* bytes of the tensors open() allocated */
    void (*close)(struct train_ctx *c);
    /* 1 when this backend can train the shape in the precision here; else 0 and why. */
    int (*supports)(const struct net_shape *s, enum net_prec p, char *why, size_t n);
    /* The first call that failed since open ("FILE:LINE: CALL: words"), after which the other
     * calls do nothing (loss and grad_norm give NAN, elapsed NAN times); NULL while all is well.
     * NULL member: the backend cannot fail after open. */
    const char *(*error)(struct train_ctx *c);
};
extern const struct train_ops train_cpu_ops;
extern const struct train_ops train_cuda_ops;   /* only in builds with CUDA */

/* The CPU backend's tensors, for tests and the gradient check: flat FP32 parameters and
 * gradients (net_param_offset() places each tensor), and the low-precision copies made
 * again from the parameters after a test changed them. */
float *train_cpu_params(struct train_ctx *c);
float *train_cpu_grads(struct train_ctx *c);
void train_cpu_refresh(struct train_ctx *c);

/* The initial parameters for a seed (GPT-2's scheme), into w[net_param_count(s)]: every
 * backend starts from these, so CPU and GPU runs of one seed can be compared. */
void train_init_params(const struct net_shape *s, uint64_t seed, float *w);

/* AdamW's fixed settings (GPT-2/3 practice); the rest are parameters. */
#define TRAIN_BETA1 0.9
#define TRAIN_BETA2 0.95
#define TRAIN_EPS 1e-8

struct train_config {
    const char *shape_name;     /* "tiny", or "custom" */
    struct net_shape shape;
    enum net_prec prec;
    int steps;                  /* optimizer steps */
    int warmup;                 /* first steps left out of the timing statistics */
    double lr, lr_min;          /* peak; floor of the cosine decay */
    int lr_warmup;              /* steps of linear warm-up */
    double weight_decay, clip;
    uint64_t seed;              /* initial weights and data */
    int order, branching;       /* the n-gram source */
    int validate;               /* check the first step before timing anything */
    double budget_s;            /* stop early (the record says so) past this many seconds */
    int progress;               /* this configuration's place in the run, for progress_step() */
};

/* The learning rate of step t (0-based): linear warm-up, then cosine decay to lr_min. */
double train_lr(const struct train_config *cfg, int t);

/* Trains cfg on ops for steps (<= cfg->steps) steps without timing or validation, writing
 * the loss of each step to losses; 0, or -1 with a message. Tests and references use it. */
int train_losses(const struct train_ops *ops, const struct train_config *cfg, int steps,
                 double *losses, char *err, size_t errlen);

/* First-step losses of the CPU FP32 run of a shape and seed, the reference other precisions
 * and devices are checked against. */
#define TRAIN_REF_STEPS 2
struct train_reference {
    int have;
    double loss[TRAIN_REF_STEPS];
    char source[96];            /* "cpu fp32 configuration of this run", ... */
};

/* Runs one configuration: validation, steps, statistics; the result record. ref may be NULL
 * or hold no reference; a CPU FP32 run fills it for the others. */
cJSON *train_config_run(const struct train_ops *ops, const struct train_config *cfg,
                        struct train_reference *ref);

/* Runs one configuration into the run's lists: its record into results, or, when the backend
 * declined it at open (a message beginning "not measured: ", TRAIN_NOT_MEASURED of
 * train_gemm.h: a library offers no algorithm for one of its matmuls), {item, reason} into
 * skipped. A failure after open (a call, a step) is a record with valid false and its error;
 * either way the run goes on with the next configuration. */
void train_config_add(const struct train_ops *ops, const struct train_config *cfg, struct train_reference *ref,
                      const char *item, cJSON *results, cJSON *skipped);

/* The loss tolerance of step t (< TRAIN_REF_STEPS) of precision p against the CPU FP32 reference,
 * relative: what the validation of a run of another precision or device allows. */
double train_ref_tolerance(enum net_prec p, int t);

/* A configuration opened for stepping by another experiment (the tenants experiment times one
 * training step as a tenant's job): train_stepper_step runs optimizer step t (its batch, AdamW's
 * settings for step t, every op of the plan) and returns its seconds, the ops' times summed as
 * the train experiment sums them (the device waited for), or NAN once the backend failed, its
 * words then from train_stepper_error; train_stepper_loss is that step's loss. */
struct train_stepper;
struct train_stepper *train_stepper_open(const struct train_ops *ops, const struct train_config *cfg, char *err,
                                         size_t errlen);
double train_stepper_step(struct train_stepper *s, int t);
double train_stepper_loss(struct train_stepper *s);
const char *train_stepper_error(struct train_stepper *s);
void train_stepper_close(struct train_stepper *s);

extern const struct param train_params[];
int train_precheck(const cJSON *params, char *err, size_t errlen);
cJSON *train_run(const cJSON *params, double budget_s, char *err, size_t errlen);

/* The shapes and precisions params ask for, as configurations (presets with the explicit
 * fields applied); returns the count (at most max), or -1 with a message. */
int train_configs(const cJSON *params, struct train_config *out, int max, char *err, size_t errlen);

#endif
