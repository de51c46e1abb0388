/* fit.c: the search for a configuration that fits in a device's memory after the reserve: as
 * given, then smaller micro-batches with accumulation, then activation checkpointing, at each
 * ZeRO stage allowed, and for one GPU last with the optimizer (and the gradients) offloaded to
 * host memory. It counts bytes only; what each choice costs in time is the step-time model's. */
#include "predict/fit.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* The reserve (stated in the report's projection rules too):
 * - runtime, 2 GB: the CUDA context, cuBLAS/cuDNN handles and workspaces, NCCL's buffers; the top
 *   of the 0.3-2 GB the research note gives for PyTorch's CUDA context (training-model.md, 7.2).
 *   nvidia-smi already shows an H100 "80 GB" at 81559 MiB, 0.4 GB under 80 GiB, before any of it.
 * - shared pool, 16 % of it instead: the OS, its services and the runtime together. Headless DGX
 *   Sparks report 101.3-102.2 GiB free to CUDA of 121.69 GiB at boot, about 19.5 GiB (16 %)
 *   held before any model (MiaAI-Lab/GLM-5.3-Flash-EXL3-2x-DGX-Sparks issue 47); a share, so
 *   that a small machine's pool is not all reserve.
 * - allocator, 5 % of the capacity: the caching allocator's block rounding and fragmentation.
 *   An assumption, not a measurement; the report says so. */
#define RESERVE_RUNTIME 2e9
#define RESERVE_SHARED 0.16
#define RESERVE_ALLOCATOR 0.05

double predict_fit_reserve(double capacity, int shared)
{
    return (shared ? RESERVE_SHARED * capacity : RESERVE_RUNTIME) + RESERVE_ALLOCATOR * capacity;
}

double predict_fit_runtime_reserve(void) { return RESERVE_RUNTIME; }

double predict_capacity_bytes(double amount, const char *unit)
{
    return amount * (unit && strcmp(unit, "GiB") == 0 ? 1073741824.0 : 1e9);
}

void predict_fit_target_for(double capacity, double host_capacity, int shared, int gpus,
                            struct predict_fit_target *t)
{
    t->capacity = capacity;
    t->host_capacity = host_capacity;
    t->reserve = predict_fit_reserve(capacity, shared);
    t->shared = shared;
    t->gpus = gpus > 0 ? gpus : 1;
    t->tp = 1;
    t->host_gpus = 0;
    t->zero = PREDICT_ZERO_AUTO;
    t->no_checkpoint = 0;
    t->micro = 0;
}

/* "71.2 GB", "1.1 TB": decimal units, as the report prints every capacity. */
static char *gb(double b, char *buf, size_t n)
{
    if (b >= 1e12)
        snprintf(buf, n, "%.3g TB", b / 1e12);
    else if (b >= 1e9)
        snprintf(buf, n, "%.3g GB", b / 1e9);
    else
        snprintf(buf, n, "%.3g MB", b / 1e6);
    return buf;
}

static void sum(struct net_memory *m)
{
    m->total = 0;
    for (int i = 0; i < NET_NMEM; i++)
        m->total += m->bytes[i];
}

/* Trained parameters that have a separate master (the optimizer's weights) beside the copy the
 * matmuls read: the linears' (LoRA: the adapters'), in the BF16 and FP8 recipes with a recipe
 * that keeps a copy. Their master bytes. */
static double master_bytes(const struct net_shape *s, enum net_prec p, const struct net_memory *m)
{
    const struct net_optim_info *o = &net_optims[net_optim_of(s, p)];
    if (p == NET_FP32 || !o->low_copy)
        return 0;
    return o->weights * (s->lora_rank > 0 ? m->trainable : (double)net_low_count(s));
}

/* One block's parameters (its linears, norms and biases). */
static double block_params(const struct net_shape *s)
{
    return (double)(net_param_offset(s, NET_P_LNFW, 0) - net_param_offset(s, NET_P_LN1W, 0)) / s->layers;
}

void predict_fit_memory(const struct net_shape *s, enum net_prec p, int gpus, int zero,
                        struct net_memory *m)
{
    net_memory(s, p, NET_IMPL_GPU, m);
    if (zero <= 0 || gpus <= 1)
        return;
    double keep = 1.0 / gpus, w = m->bytes[NET_MEM_WEIGHTS], master = master_bytes(s, p, m);
    m->bytes[NET_MEM_OPTIMIZER] *= keep;
    m->bytes[NET_MEM_WEIGHTS] = zero >= 3 ? w * keep : w - master * (1 - keep);
    if (zero >= 2)
        m->bytes[NET_MEM_GRADS] *= keep;
    if (zero >= 3) {
        m->bytes[NET_MEM_LOW] *= keep;
        m->bytes[NET_MEM_SCRATCH] += 2 * block_params(s) * (p == NET_FP32 ? 4 : 2);
    }
    sum(m);
}

/* Data-parallel ranks of fit f: its devices over its tensor-parallel groups. */
static int dp_of(const struct predict_fit *f)
{
    return f->gpus / (f->tp > 1 ? f->tp : 1);
}

/* What the offload moves off the device, what the host then holds, and the traffic it adds. The
 * device keeps every weight its ops read: the matmul copies (the weights themselves when the recipe
 * keeps none) and the embeddings, norms and biases. Under ZeRO each device offloads only its shard of
 * the master weights and moments (stage 1 on), of the gradients (stage 2 on) and of the weights it
 * sends back (stage 3); one host holds and updates the shards of its host_gpus devices. Tensor
 * parallelism divides every byte by tp. */
static void offload(const struct net_shape *s, enum net_prec p, int level, int zero, struct predict_fit *f)
{
    struct net_memory *m = &f->mem;
    const struct net_optim_info *o = &net_optims[net_optim_of(s, p)];
    int dp = dp_of(f), tp = f->tp > 1 ? f->tp : 1;
    double share = (zero >= 1 ? 1.0 / dp : 1.0) / tp;               /* master and moments */
    double gshare = (zero >= 2 ? 1.0 / dp : 1.0) / tp;              /* gradients */
    double Nt = m->trainable, master = master_bytes(s, p, m) * share;
    double low = p == NET_FP32 ? 4 * Nt : s->lora_rank > 0 ? 2 * Nt
               : master_bytes(s, p, m) > 0 ? 2 * (double)net_low_count(s) + (o->weights * Nt - master_bytes(s, p, m))
               : o->weights * Nt;                                      /* the weights the device reads, full */
    double up = low * (zero >= 3 ? 1.0 / dp : zero >= 1 ? 1.0 / dp : 1.0) / tp;
    int hosts = f->host_gpus > 0 && f->host_gpus < f->gpus ? f->host_gpus : f->gpus;
    f->host_bytes = f->offload_traffic_bytes = f->host_optimizer_bytes = 0;
    if (level == PREDICT_OFFLOAD_NONE)
        return;
    m->bytes[NET_MEM_WEIGHTS] -= master;
    m->bytes[NET_MEM_OPTIMIZER] = 0;
    /* one host: the master and moments of its devices' shards (all of them without ZeRO: one GPU) */
    f->host_bytes = (o->weights + o->moments) * Nt * share * hosts;
    f->host_optimizer_bytes = (2 * (o->weights + o->moments) + o->grads) * Nt * share * hosts;
    f->offload_traffic_bytes = o->grads * Nt * gshare + up;         /* gradients down, weights up */
    if (level == PREDICT_OFFLOAD_GRADIENTS) {
        /* each micro-batch's gradients go down as they are made and are summed on the host */
        m->bytes[NET_MEM_GRADS] = 0;
        f->host_bytes += o->grads * Nt * gshare * hosts;
        f->host_optimizer_bytes += 2 * o->grads * Nt * gshare * hosts * s->accum;
        f->offload_traffic_bytes = o->grads * Nt * gshare * s->accum + up;
    }
    sum(m);
}

static void measure(const struct net_shape *u, enum net_prec p, int zero, int level, struct predict_fit *f)
{
    int tp = f->tp > 1 ? f->tp : 1;
    predict_fit_memory(u, p, dp_of(f), zero, &f->mem);
    for (int i = 0; tp > 1 && i < NET_NMEM; i++)       /* Megatron's split with sequence parallelism */
        f->mem.bytes[i] /= tp;
    sum(&f->mem);
    offload(u, p, level, zero, f);
    f->micro_batch = u->batch;
    f->accum = u->accum;
    f->checkpoint = u->checkpoint;
    f->offload = level;
    f->zero = dp_of(f) > 1 ? zero : 0;
    f->device_bytes = f->mem.total;
}

static int fits(const struct predict_fit *f)
{
    return f->device_bytes <= f->capacity_bytes - f->reserve_bytes
        && (f->host_capacity_bytes <= 0 || f->host_bytes <= f->host_capacity_bytes);
}

/* The largest micro-batch up to b that divides a device's share of the global batch. */
static int divisor_at_most(long per, int b)
{
    while (b > 1 && per % b != 0)
        b--;
    return b;
}

/* One ZeRO stage and offload level: as given; smaller micro-batches (accumulation keeping the
 * device's share of the global batch); checkpointing with the largest micro-batch that fits. */
static int search(const struct net_shape *s, enum net_prec p, int zero, int level, const struct predict_fit_target *t,
                  struct predict_fit *f)
{
    struct net_shape u = *s;
    long per = (long)s->batch * s->accum / dp_of(f);
    int b0 = t->micro > 0 ? t->micro : divisor_at_most(per, s->batch < per ? s->batch : (int)per);
    for (int ck = s->checkpoint; ck <= (t->no_checkpoint ? s->checkpoint : 1); ck++)
        for (int b = b0; b >= (t->micro > 0 ? b0 : 1); b--) {
            if (per % b != 0)
                continue;
            u.batch = b;
            u.accum = (int)(per / b);
            u.checkpoint = ck;
            measure(&u, p, zero, level, f);
            if (fits(f))
                return 1;
        }
    return 0;
}

/* Appends to f->reason. */
static void say(struct predict_fit *f, const char *fmt, ...)
{
    size_t n = strlen(f->reason);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f->reason + n, sizeof f->reason - n, fmt, ap);
    va_end(ap);
}

/* ": 71.2 GB of 79.6 GB usable (85.9 GB less a 6.3 GB reserve)" */
static void say_room(struct predict_fit *f)
{
    char a[24], b[24], c[24], d[24];
    say(f, ": %s of %s usable (%s less a %s reserve)", gb(f->device_bytes, a, sizeof a),
        gb(f->capacity_bytes - f->reserve_bytes, b, sizeof b), gb(f->capacity_bytes, c, sizeof c),
        gb(f->reserve_bytes, d, sizeof d));
}

/* "fits with A, B and C: ...", naming only what the fit added to the shape. */
static void describe_fit(const struct net_shape *s, int b0, struct predict_fit *f)
{
    static const char *const off[] = { "", "offload of the master weights and optimizer state to host memory",
                                       "offload of the master weights, optimizer state and gradients to host memory" };
    int what[4] = { f->gpus > 1, f->offload != 0, f->checkpoint && !s->checkpoint, f->micro_batch != b0 };
    int n = what[0] + what[1] + what[2] + what[3], k = 0;
    char a[24];
    f->reason[0] = 0;
    say(f, n ? "fits with " : "fits");
    for (int i = 0; i < 4; i++) {
        if (!what[i])
            continue;
        say(f, "%s", k == 0 ? "" : k == n - 1 ? " and " : ", ");
        k++;
        if (i == 0 && f->tp > 1) {
            say(f, "tensor and sequence parallelism %d-way", f->tp);
            if (dp_of(f) > 1 && f->zero > 0)
                say(f, ", ZeRO-%d over %d data-parallel groups", f->zero, dp_of(f));
            else if (dp_of(f) > 1)
                say(f, ", %d data-parallel groups", dp_of(f));
            say(f, " (%d GPUs)", f->gpus);
        } else if (i == 0 && f->zero > 0)
            say(f, "ZeRO-%d over %d GPUs", f->zero, f->gpus);
        else if (i == 0)
            say(f, "data parallelism over %d GPUs", f->gpus);
        else if (i == 1)
            say(f, "%s (%s there)", off[f->offload], gb(f->host_bytes, a, sizeof a));
        else if (i == 2)
            say(f, "activation checkpointing");
        else
            say(f, "gradient accumulation %d (micro-batch %d)", f->accum, f->micro_batch);
    }
    say_room(f);
}

/* None fits: the smallest configuration without offload at the highest stage allowed, and what
 * offload would need where it is possible. */
static void describe_none(const struct net_shape *s, enum net_prec p, const struct predict_fit_target *t,
                          int zmax, struct predict_fit *f)
{
    char a[24], c[24], d[24];
    struct net_shape u = *s;
    struct predict_fit o = *f;
    u.checkpoint = t->no_checkpoint ? s->checkpoint : 1;
    u.batch = t->micro > 0 ? t->micro : 1;
    u.accum = (int)((long)s->batch * s->accum / dp_of(f) / u.batch);
    measure(&u, p, zmax, PREDICT_OFFLOAD_GRADIENTS, &o);
    measure(&u, p, zmax, PREDICT_OFFLOAD_NONE, f);
    f->reason[0] = 0;
    say(f, "does not fit: needs %s with%s activation checkpointing and micro-batch %d", gb(f->device_bytes, a, sizeof a),
        u.checkpoint ? "" : "out", u.batch);
    if (f->gpus > 1)
        say(f, " per GPU (ZeRO-%d over %d GPUs)", zmax, f->gpus);
    say(f, ", %s usable here (%s less a %s reserve)", gb(f->capacity_bytes - f->reserve_bytes, a, sizeof a),
        gb(f->capacity_bytes, c, sizeof c), gb(f->reserve_bytes, d, sizeof d));
    if (t->shared)
        say(f, "; offload buys no capacity: host and device share one memory pool");
    else
        say(f, "; offloading the optimizer and gradients would need %s %s and %s of host memory (%s there)",
            gb(o.device_bytes, a, sizeof a), f->gpus > 1 ? "per GPU" : "here", gb(o.host_bytes, c, sizeof c),
            t->host_capacity > 0 ? gb(t->host_capacity, d, sizeof d) : "no limit given");
}

int predict_fit(const struct net_shape *s, enum net_prec p, const struct predict_fit_target *t,
                struct predict_fit *f)
{
    memset(f, 0, sizeof *f);
    f->capacity_bytes = t->capacity;
    f->host_capacity_bytes = t->host_capacity;
    f->reserve_bytes = t->reserve;
    f->gpus = t->gpus > 1 ? t->gpus : 1;
    f->tp = t->tp > 1 ? t->tp : 1;
    f->host_gpus = t->host_gpus;
    long global = (long)s->batch * s->accum;
    if (f->gpus % f->tp != 0) {
        f->tp = 1;
        measure(s, p, 0, PREDICT_OFFLOAD_NONE, f);
        snprintf(f->reason, sizeof f->reason, "does not fit: tensor parallelism %d-way does not divide %d GPUs",
                 t->tp, f->gpus);
        return 0;
    }
    int dp = dp_of(f);
    if (global % dp != 0) {
        measure(s, p, 0, PREDICT_OFFLOAD_NONE, f);
        snprintf(f->reason, sizeof f->reason, "does not fit: a global batch of %ld sequences does not split over "
                 "%d %s", global, dp, f->tp > 1 ? "data-parallel groups" : "GPUs");
        return 0;
    }
    if (t->micro > 0 && (global / dp) % t->micro != 0) {
        measure(s, p, 0, PREDICT_OFFLOAD_NONE, f);
        snprintf(f->reason, sizeof f->reason, "does not fit: micro-batch %d does not divide a device's %ld sequences of "
                 "the global batch", t->micro, global / dp);
        return 0;
    }
    int b0 = t->micro > 0 ? t->micro
             : divisor_at_most(global / dp, s->batch < global / dp ? s->batch : (int)(global / dp));
    int zmin = dp == 1 ? 0 : t->zero == PREDICT_ZERO_AUTO ? 0 : t->zero;
    int zmax = dp == 1 ? 0 : t->zero == PREDICT_ZERO_AUTO ? 3 : t->zero;
    int found = 0;
    for (int z = zmin; z <= zmax && !found; z++)
        found = search(s, p, z, PREDICT_OFFLOAD_NONE, t, f);
    for (int level = PREDICT_OFFLOAD_OPTIMIZER; level <= PREDICT_OFFLOAD_GRADIENTS && !t->shared && !found; level++)
        found = search(s, p, zmax, level, t, f);
    if (!found) {
        describe_none(s, p, t, zmax, f);
        return 0;
    }
    f->fits = 1;
    f->marginal = f->device_bytes > (1 - PREDICT_MARGINAL) * (f->capacity_bytes - f->reserve_bytes);
    describe_fit(s, b0, f);
    return 1;
}

int predict_fit_devices(const struct net_shape *s, enum net_prec p, const struct predict_fit_target *t,
                        const int *counts, int n, struct predict_fit *f)
{
    struct predict_fit_target u = *t;
    memset(f, 0, sizeof *f);
    for (int i = 0; i < n; i++) {
        u.gpus = counts[i];
        if (predict_fit(s, p, &u, f))
            return counts[i];
    }
    return 0;
}
