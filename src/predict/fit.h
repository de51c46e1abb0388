/* fit.h: whether a training configuration fits in a device's memory, and what it takes to make
 * it fit: activation checkpointing, smaller micro-batches with more accumulation, offload of
 * the optimizer to host memory. Byte counts come from net_memory (src/net/plan.h); how long
 * the offload's traffic and the host's optimizer take is the caller's business. */
#ifndef SR_PREDICT_FIT_H
#define SR_PREDICT_FIT_H

#include "net/plan.h"

/* ZeRO-Offload (Ren et al. 2021): the FP32 master weights and AdamW's moments (level 1), and
 * the gradients too (level 2), live in host memory; the host runs AdamW. */
enum predict_offload { PREDICT_OFFLOAD_NONE = 0, PREDICT_OFFLOAD_OPTIMIZER, PREDICT_OFFLOAD_GRADIENTS };

struct predict_fit {
    int fits;                   /* the configuration below fits in capacity_bytes */
    int micro_batch, accum;     /* chosen; micro_batch x accum = the shape's batch x accum */
    int checkpoint;             /* activation checkpointing in the chosen configuration */
    int offload;                /* enum predict_offload */
    struct net_memory mem;    /* device bytes by category (offloaded ones 0) of the chosen
                                   configuration, or when none fits of the smallest without
                                   offload (checkpointing, micro-batch 1) */
    double device_bytes;        /* mem.total: what device memory must hold */
    double capacity_bytes, host_capacity_bytes;     /* as given */
    double host_bytes;          /* host memory the offload holds (master, moments, gradients) */
    double offload_traffic_bytes;   /* host <-> device bytes per optimizer step the offload adds:
                                       FP32 gradients down (once per step, or each micro-batch's
                                       at level 2), updated weights up */
    double host_optimizer_bytes;    /* bytes the host's AdamW (and at level 2 its gradient
                                       accumulation) moves in host memory per step */
    char reason[256];           /* "fits with activation checkpointing and gradient
                                   accumulation 8 (micro-batch 1): 71.2 GB of 80 GB" */
};

/* Tries, in order: the shape as given; activation checkpointing; checkpointing with smaller
 * micro-batches (the largest that fits, dividing the global batch, accumulation making up the
 * rest); the same with offload level 1, then 2 -- never when `shared` (host and device memory
 * are one pool, as on a DGX Spark: offload buys no capacity there) or when the host's
 * `host_capacity` bytes (0: unknown, no limit) cannot hold it. Device bytes are
 * net_memory(NET_IMPL_GPU). Returns f->fits. */
int predict_fit(const struct net_shape *s, enum net_prec p, double capacity, double host_capacity,
              int shared, struct predict_fit *f);

#endif
