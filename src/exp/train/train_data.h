/* train_data.h: the training data: token sequences drawn from a fixed random n-gram source,
 * generated for a seed (the same seed gives the same tokens, on any machine), whose
 * conditional entropy is known exactly, so a run can say how close its loss came to the best
 * any model can reach. The source: the next token is (base(context) + j) mod V, where the
 * context is the previous `order` tokens (tokens before a sequence's start count as 0),
 * base() a fixed hash and j drawn from one fixed distribution p over 0..branching-1. Every
 * context thus has the same successor distribution up to a shift, and the entropy of the
 * next token given the past is H(p) whatever the context, exactly. */
#ifndef SR_TRAIN_DATA_H
#define SR_TRAIN_DATA_H

#include <stddef.h>
#include <stdint.h>

struct train_data {
    int vocab, order, branching;
    uint64_t key;               /* from the seed */
    double p[256];              /* branching probabilities, sum 1 */
    double cdf[256];            /* cdf[j] = p[0] + ... + p[j]; cdf[branching - 1] = 1 */
    double entropy;             /* H(p) in nats: the lowest expected cross-entropy */
};

#define TRAIN_DATA_MAX_BRANCHING 256

/* 0, or -1 with a message (branching above the vocabulary or the limit, order < 1). */
int train_data_init(struct train_data *d, int vocab, int order, int branching, uint64_t seed,
                    char *err, size_t errlen);

/* The rows x seq inputs and targets of micro-batch `micro` of step `step`: tokens[r*seq + t]
 * = x_t, targets[r*seq + t] = x_{t+1} of row r's sequence x_0 .. x_seq. */
void train_data_batch(const struct train_data *d, uint64_t step, int micro, int rows, int seq,
                      int32_t *tokens, int32_t *targets);

/* The successor the source draws for context ctx[0..order-1] (ctx[0] the latest) with offset j. */
int train_data_next(const struct train_data *d, const int32_t *ctx, int j);

#endif
