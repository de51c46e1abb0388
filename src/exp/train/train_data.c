/* train_data.c: the n-gram source of the training data (see train_data.h): its successor
 * distribution and exact entropy, and the batches it draws for a step. Stateless: each row
 * of each micro-batch of each step is drawn from its own counter-based random stream, so any
 * batch can be made alone and in parallel. */
#include "exp/train/train_data.h"

#include <math.h>
#include <stdio.h>

#include "exp/train/train_math.h"

#define STREAM_P 1            /* random streams, derived from the key */
#define STREAM_BASE 2
#define STREAM_ROW 3

int train_data_init(struct train_data *d, int vocab, int order, int branching, uint64_t seed,
                    char *err, size_t errlen)
{
    if (order < 1 || order > 8 || branching < 1 || branching > TRAIN_DATA_MAX_BRANCHING || branching > vocab) {
        snprintf(err, errlen, "the n-gram source needs 1 <= order <= 8 and 1 <= branching <= min(vocab, %d); "
                 "got order %d, branching %d, vocab %d", TRAIN_DATA_MAX_BRANCHING, order, branching, vocab);
        return -1;
    }
    d->vocab = vocab;
    d->order = order;
    d->branching = branching;
    d->key = train_mix(seed ^ 0x5eed5eedull);
    double sum = 0;
    for (int j = 0; j < branching; j++) {     /* Dirichlet(1, ..., 1): normalised exponentials */
        d->p[j] = -log(train_uniform(d->key + STREAM_P, (uint64_t)j));
        sum += d->p[j];
    }
    double c = 0;
    d->entropy = 0;
    for (int j = 0; j < branching; j++) {
        d->p[j] /= sum;
        c += d->p[j];
        d->cdf[j] = c;
        d->entropy -= d->p[j] * log(d->p[j]);
    }
    d->cdf[branching - 1] = 1.0;
    return 0;
}

int train_data_next(const struct train_data *d, const int32_t *ctx, int j)
{
    uint64_t h = d->key + STREAM_BASE;
    for (int i = 0; i < d->order; i++)
        h = train_mix(h ^ (uint64_t)(uint32_t)ctx[i]);
    return (int)((h % (uint64_t)d->vocab + (uint64_t)j) % (uint64_t)d->vocab);
}

static int draw_offset(const struct train_data *d, double u)
{
    int lo = 0, hi = d->branching - 1;
    while (lo < hi) {                         /* first j with cdf[j] >= u */
        int mid = (lo + hi) / 2;
        if (d->cdf[mid] >= u)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

static void draw_row(const struct train_data *d, uint64_t stream, int seq, int32_t *tokens, int32_t *targets)
{
    int32_t ctx[8] = { 0 };                   /* ctx[0] the latest token; before the start: 0 */
    int x = (int)(train_rand(stream, 0) % (uint64_t)d->vocab);
    for (int t = 0; t < seq; t++) {
        tokens[t] = x;
        for (int i = d->order - 1; i > 0; i--)
            ctx[i] = ctx[i - 1];
        ctx[0] = x;
        x = train_data_next(d, ctx, draw_offset(d, train_uniform(stream, (uint64_t)t + 1)));
        targets[t] = x;
    }
}

void train_data_batch(const struct train_data *d, uint64_t step, int micro, int rows, int seq,
                      int32_t *tokens, int32_t *targets)
{
#pragma omp parallel for schedule(static)
    for (int r = 0; r < rows; r++) {
        uint64_t stream = train_rand(d->key + STREAM_ROW, (step * 4096u + (uint64_t)micro) * 65536u + (uint64_t)r);
        draw_row(d, stream, seq, tokens + (size_t)r * seq, targets + (size_t)r * seq);
    }
}
