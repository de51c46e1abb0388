/* fit.c: the search for a configuration that fits in a device's memory: as given, then with
 * activation checkpointing, then with smaller micro-batches, then with the optimizer (and the
 * gradients) offloaded to host memory. It counts bytes only; what each choice costs in time
 * is the step-time model's business. */
#include "predict/fit.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* "71.2 GB", "1.1 TB": decimal units, as device memory is sold. */
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

/* What the offload moves off the device, what the host then holds, and the traffic it adds.
 * The device keeps every weight its ops read: the matmul copies (BF16; the FP32 weights
 * themselves in the FP32 recipe) and the FP32 embeddings, norms and biases. */
static void offload(const struct net_shape *s, enum net_prec p, int level, struct predict_fit *f)
{
    struct net_memory *m = &f->mem;
    double Nt = m->trainable, lora = s->lora_rank > 0;
    double master = p == NET_FP32 ? 0 : 4 * (lora ? Nt : (double)net_low_count(s));
    double up = p == NET_FP32 ? 4 * Nt : lora ? 2 * Nt : m->bytes[NET_MEM_WEIGHTS] - master
                                                              + 2 * (double)net_low_count(s);
    f->host_bytes = f->offload_traffic_bytes = f->host_optimizer_bytes = 0;
    if (level == PREDICT_OFFLOAD_NONE)
        return;
    m->bytes[NET_MEM_WEIGHTS] -= master;
    m->bytes[NET_MEM_OPTIMIZER] = 0;
    f->host_bytes = 12 * Nt;                   /* FP32 master and two moments */
    f->host_optimizer_bytes = 28 * Nt;         /* AdamW: reads w, m, v, g, writes w, m, v */
    f->offload_traffic_bytes = 4 * Nt + up;    /* FP32 gradients down, weights up */
    if (level == PREDICT_OFFLOAD_GRADIENTS) {
        /* each micro-batch's gradients go down as they are made and are summed on the host */
        m->bytes[NET_MEM_GRADS] = 0;
        f->host_bytes += 4 * Nt;
        f->host_optimizer_bytes += 8 * Nt * s->accum;
        f->offload_traffic_bytes = 4 * Nt * s->accum + up;
    }
    m->total = 0;
    for (int i = 0; i < NET_NMEM; i++)
        m->total += m->bytes[i];
}

static void measure(const struct net_shape *s, enum net_prec p, int level, struct predict_fit *f)
{
    net_memory(s, p, NET_IMPL_GPU, &f->mem);
    offload(s, p, level, f);
    f->micro_batch = s->batch;
    f->accum = s->accum;
    f->checkpoint = s->checkpoint;
    f->offload = level;
    f->device_bytes = f->mem.total;
}

static int fits(const struct predict_fit *f)
{
    return f->device_bytes <= f->capacity_bytes
        && (f->host_capacity_bytes <= 0 || f->host_bytes <= f->host_capacity_bytes);
}

/* One offload level: as given, checkpointing, then checkpointing with the largest micro-batch
 * below the given one that divides the global batch and fits. */
static int search(const struct net_shape *s, enum net_prec p, int level, struct predict_fit *f)
{
    struct net_shape t = *s;
    long global = (long)s->batch * s->accum;
    measure(&t, p, level, f);
    if (fits(f))
        return 1;
    t.checkpoint = 1;
    measure(&t, p, level, f);
    if (fits(f))
        return 1;
    for (int b = s->batch - 1; b >= 1; b--) {
        if (global % b != 0)
            continue;
        t.batch = b;
        t.accum = (int)(global / b);
        measure(&t, p, level, f);
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

/* "fits with A, B and C: 71.2 GB of 80 GB", naming only what the fit added to the shape. */
static void describe_fit(const struct net_shape *s, struct predict_fit *f)
{
    static const char *const off[] = { "", "offload of the master weights and optimizer state to host memory",
                                       "offload of the master weights, optimizer state and gradients to host memory" };
    int what[3] = { f->offload != 0, f->checkpoint && !s->checkpoint, f->micro_batch != s->batch };
    int n = what[0] + what[1] + what[2], k = 0;
    char a[24], b[24];
    f->reason[0] = 0;
    say(f, n ? "fits with " : "fits");
    for (int i = 0; i < 3; i++) {
        if (!what[i])
            continue;
        say(f, "%s", k == 0 ? "" : k == n - 1 ? " and " : ", ");
        k++;
        if (i == 0)
            say(f, "%s (%s there)", off[f->offload], gb(f->host_bytes, a, sizeof a));
        else if (i == 1)
            say(f, "activation checkpointing");
        else
            say(f, "gradient accumulation %d (micro-batch %d)", f->accum, f->micro_batch);
    }
    say(f, ": %s of %s", gb(f->device_bytes, a, sizeof a), gb(f->capacity_bytes, b, sizeof b));
}

int predict_fit(const struct net_shape *s, enum net_prec p, double capacity, double host_capacity,
              int shared, struct predict_fit *f)
{
    char a[24], b[24], c[24], d[24];
    memset(f, 0, sizeof *f);
    f->capacity_bytes = capacity;
    f->host_capacity_bytes = host_capacity;
    for (int level = PREDICT_OFFLOAD_NONE; level <= PREDICT_OFFLOAD_GRADIENTS; level++) {
        if (level > PREDICT_OFFLOAD_NONE && shared)
            break;
        if (search(s, p, level, f)) {
            f->fits = 1;
            describe_fit(s, f);
            return 1;
        }
    }
    /* none fits: report the smallest configuration without offload, and what offload would need */
    struct net_shape t = *s;
    struct predict_fit o = *f;
    t.checkpoint = 1;
    t.accum = s->batch * s->accum;
    t.batch = 1;
    measure(&t, p, PREDICT_OFFLOAD_GRADIENTS, &o);
    measure(&t, p, PREDICT_OFFLOAD_NONE, f);
    f->reason[0] = 0;
    say(f, "does not fit: needs %s with activation checkpointing and micro-batch 1, %s here",
        gb(f->device_bytes, a, sizeof a), gb(capacity, b, sizeof b));
    if (shared)
        say(f, "; offload buys no capacity: host and device share one memory pool");
    else
        say(f, "; offloading the optimizer and gradients would need %s here and %s of host memory (%s there)",
            gb(o.device_bytes, a, sizeof a), gb(o.host_bytes, c, sizeof c),
            host_capacity > 0 ? gb(host_capacity, d, sizeof d) : "no limit given");
    return 0;
}
