/* trained.h: the run's largest trained model, a measuring service for the families that measure
 * on a trained model (compression's accuracy): the training experiment offers the FP32 weights of
 * each configuration it trained on a backend that can hand them over (the CPU's), and the service
 * keeps the largest (most parameters; FP32-trained before BF16 at equal size) for the rest of the
 * run. A family that asks after no training gets "none"; the asking family says so. Evaluating the
 * weights is the asking family's job. */
#ifndef SR_MEASURE_TRAINED_H
#define SR_MEASURE_TRAINED_H

#include <stddef.h>
#include <stdint.h>

#include "net/plan.h"

struct measure_trained {
    struct net_shape shape;
    const char *shape_name;     /* "small", "custom", ... */
    const char *precision;      /* what it trained in: "fp32", "bf16" */
    const char *device;         /* "cpu" */
    double params;              /* net_param_count(&shape) */
    int steps, steps_done;      /* asked for; done before it stopped */
    double loss_final;          /* nats: the training experiment's final loss (mean of its last steps) */
    double entropy;             /* nats: the data source's entropy, the lowest expected loss */
    uint64_t seed;              /* initial weights and data */
    int order, branching;       /* the n-gram source it trained on (train_data.h) */
    const float *weights;       /* [params] FP32 (master) weights, net_param_offset() places each tensor */
};

/* Offers a trained model: kept (weights and strings copied) when it has more parameters than the
 * one kept, or as many and trained in FP32 where the kept one was not. Returns 1 when kept. */
int measure_trained_offer(const struct measure_trained *m);

/* The kept model (its pointers are the service's, valid until the next offer or clear): 0, or -1
 * when no model was offered in this run. */
int measure_trained(struct measure_trained *out);

/* Forgets the kept model (tests). */
void measure_trained_clear(void);

#endif
