/* workloads.h: the reference training workloads the model projects onto each system: the
 * published architecture of each model, the precision and batch it is trained with, and how
 * many tokens, with the basis of each figure. Timing them is the projection's business. */
#ifndef SR_PREDICT_WORKLOADS_H
#define SR_PREDICT_WORKLOADS_H

#include "net/plan.h"

struct predict_workload {
    const char *id;             /* "llama-3.1-8b-lora" */
    const char *name;           /* "Llama-3.1 8B LoRA fine-tune (rank 16)" */
    const char *kind;           /* "pretrain", "full fine-tune", "LoRA", "QLoRA" */
    struct net_shape shape;   /* batch = micro-batch (sequences), accum = micro-batches per
                                   step: global batch = batch x accum sequences of seq tokens */
    enum net_prec prec;
    double tokens;              /* tokens to train */
    const char *basis;          /* why these tokens and this batch */
    const char *source;         /* where the architecture comes from */
    const char *stack;          /* TEMP (the plan branch adds it): software stack profile id */
};

extern const struct predict_workload predict_workloads[];
extern const int predict_nworkloads;

/* The workload with this id, or NULL. */
const struct predict_workload *predict_workload_find(const char *id);

#endif
