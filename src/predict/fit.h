/* fit.h: whether a training configuration fits in a device's memory, and what it takes to make
 * it fit: smaller micro-batches with more accumulation, activation checkpointing, ZeRO sharding
 * over the GPUs of a data-parallel node, offload of the optimizer to host memory. Byte counts
 * come from net_memory (src/net/plan.h); what each choice costs in time is the caller's. */
#ifndef SR_PREDICT_FIT_H
#define SR_PREDICT_FIT_H

#include "net/plan.h"

/* ZeRO-Offload (Ren et al. 2021): the optimizer's master weights and moments (level 1), and
 * the gradients too (level 2), live in host memory; the host runs the optimizer. */
enum predict_offload { PREDICT_OFFLOAD_NONE = 0, PREDICT_OFFLOAD_OPTIMIZER, PREDICT_OFFLOAD_GRADIENTS };

#define PREDICT_ZERO_AUTO (-1)  /* the lowest ZeRO stage that fits */

/* Where a configuration must fit. */
struct predict_fit_target {
    double capacity;            /* bytes of memory per device (GiB parts in bytes of 2^30) */
    double host_capacity;       /* bytes of host memory; 0: unknown, no limit */
    double reserve;             /* bytes per device no tensor may use (predict_fit_reserve) */
    int shared;                 /* host and device are one pool (DGX Spark): offload buys nothing */
    int gpus;                   /* devices; the global batch is split over their data-parallel groups */
    int zero;                   /* ZeRO stage 0 (plain data parallelism), 1 (optimizer state
                                   sharded), 2 (+ gradients), 3 (+ weights), or PREDICT_ZERO_AUTO */
    int no_checkpoint;          /* the job forbids activation checkpointing: the fit never adds it */
    int tp;                     /* tensor parallelism with sequence parallelism (Megatron): each of tp
                                   devices holds 1/tp of every layer's weights, gradients, optimizer state
                                   and activations; gpus / tp data-parallel ranks; 0 or 1: none */
    int host_gpus;              /* devices one host serves (their offloaded state in its memory, its CPUs
                                   updating it); 0: all of them */
    int micro;                  /* the job's micro-batch per device, kept (checkpointing and offload tried
                                   at it, never a smaller one); 0: the largest that fits */
};

/* Bytes of `amount` memory in the vendor's `unit`: "GiB" (2^30), anything else GB (1e9, the
 * smaller reading); data/README.md says which unit each catalog row means. */
double predict_capacity_bytes(double amount, const char *unit);

/* The reserve for the CUDA runtime and the allocator, and on a shared pool for the OS too:
 * 2 GB (discrete) or 16 % (shared pool), + 5 % of the capacity; fit.c states the basis. */
double predict_fit_reserve(double capacity, int shared);
/* The part of that reserve one more process on the device needs: its CUDA context, library handles
 * and workspaces (the runtime's 2 GB; the tenants projection adds one per tenant beyond the first). */
double predict_fit_runtime_reserve(void);
/* A target with that reserve and ZeRO "auto". */
void predict_fit_target_for(double capacity, double host_capacity, int shared, int gpus,
                            struct predict_fit_target *t);

struct predict_fit {
    int fits;                   /* the configuration below fits in capacity_bytes - reserve_bytes */
    int micro_batch, accum;     /* chosen, per device; micro_batch x accum x gpus = the shape's
                                   batch x accum (the global batch, sequences per step) */
    int checkpoint;             /* activation checkpointing in the chosen configuration */
    int offload;                /* enum predict_offload */
    int gpus, zero;             /* devices and the ZeRO stage chosen (over the data-parallel ranks) */
    int tp;                     /* tensor-parallel degree (1: none) */
    int host_gpus;              /* devices whose offloaded state one host holds */
    struct net_memory mem;      /* bytes per device by category (offloaded ones 0, sharded ones
                                   divided) of the chosen configuration, or when none fits of the
                                   smallest without offload (checkpointing, micro-batch 1) */
    double device_bytes;        /* mem.total: what each device's memory must hold */
    double capacity_bytes, host_capacity_bytes, reserve_bytes;     /* as given */
    double host_bytes;          /* host memory the offload holds (master, moments, gradients) on one
                                   host: the shards of its host_gpus devices */
    double offload_traffic_bytes;   /* host <-> device bytes per optimizer step the offload adds to
                                       each device's link: its shard's gradients down (once per step,
                                       or each micro-batch's at level 2), its updated weights up */
    double host_optimizer_bytes;    /* bytes one host's optimizer (and at level 2 its gradient
                                       accumulation) moves in host memory per step, for its devices */
    int marginal;               /* fits with less than PREDICT_MARGINAL of the usable memory left */
    char reason[320];           /* "fits with gradient accumulation 8 (micro-batch 1): 71.2 GB of
                                   79.6 GB usable (85.9 GB less a 6.3 GB reserve)" */
};

/* A fit that leaves less than this share of the usable memory free is marginal: the allocator's
 * fragmentation or a longer batch than planned can take it (the report shows what the job becomes
 * if it does not fit). */
#define PREDICT_MARGINAL 0.10

/* Device bytes of shape s (one device's micro-batch and accumulation) under ZeRO stage `zero`
 * over `gpus` devices: stage 1 divides the moments and the master weights that have a
 * low-precision copy, 2 also the gradients, 3 also the weights the forward reads, plus two
 * blocks' weights gathered at a time (FSDP's current and prefetched unit) as scratch. */
void predict_fit_memory(const struct net_shape *s, enum net_prec p, int gpus, int zero,
                        struct net_memory *m);

/* Tries, in order, at each ZeRO stage from the lowest allowed: the shape as given (its global
 * batch split over the t->gpus / t->tp data-parallel ranks); smaller micro-batches with
 * accumulation keeping the global batch; activation checkpointing (unless t->no_checkpoint) with
 * the largest micro-batch that fits; then the same with offload level 1, then 2, on one GPU or at
 * the highest ZeRO stage allowed (FSDP / ZeRO-3 with the optimizer on the host, as torchtune and
 * DeepSpeed run it) -- never when t->shared or when the host's capacity cannot hold it. With tensor
 * parallelism every layer's bytes are divided by t->tp first. Returns f->fits; f->marginal when
 * less than PREDICT_MARGINAL of the usable memory is left. */
int predict_fit(const struct net_shape *s, enum net_prec p, const struct predict_fit_target *t,
                struct predict_fit *f);

/* The smallest number of devices, of counts[0..n) in ascending order, on which shape s fits target
 * t (its gpus ignored; each count at t->zero, PREDICT_ZERO_AUTO: the lowest stage that fits):
 * returns that count with its fit in f, or 0 with f the largest count's verdict. */
int predict_fit_devices(const struct net_shape *s, enum net_prec p, const struct predict_fit_target *t,
                        const int *counts, int n, struct predict_fit *f);

#endif
