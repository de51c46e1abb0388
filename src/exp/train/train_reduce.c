/* train_reduce.c: the host half of train_reduce.h: a micro-batch's positions grouped by token,
 * so the GPU sums each token's embedding gradient in position order, one thread per column and
 * token, without atomics. */
#include "exp/train/train_reduce.h"

#include <stdlib.h>

#include "util/error.h"

static int by_key(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

int train_embed_groups(const int32_t *tok, int T, int32_t *order, int32_t *starts)
{
    uint64_t *key = xmalloc((size_t)(T > 0 ? T : 1) * sizeof *key);   /* token << 32 | position */
    int n = 0;
    for (int t = 0; t < T; t++)
        key[t] = (uint64_t)(uint32_t)tok[t] << 32 | (uint32_t)t;
    qsort(key, (size_t)T, sizeof *key, by_key);
    for (int j = 0; j < T; j++) {
        order[j] = (int32_t)(key[j] & 0xffffffffu);
        if (j == 0 || key[j] >> 32 != key[j - 1] >> 32)
            starts[n++] = j;
    }
    starts[n] = T;
    free(key);
    return n;
}
