/* test_cuda_grid.c: the launch shapes every GPU backend sizes its kernels from, on the CPU: a
 * grid fills the device (SMs x occupancy) whatever the working set and hands out the work per
 * thread, and the two directions of a bidirectional copy each get their share of the SMs. */
#include <stdlib.h>

#include "check.h"
#include "cuda/cuda.h"

static void test_fill(void)
{
    static const size_t ns[] = { 0, 1, 1000, 132 * 8 * 256 - 1, 132 * 8 * 256, 132 * 8 * 256 + 1, 123456789 };
    for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++) {
        struct cuda_grid g = cuda_grid_fill(ns[i], 132, 8, 256);   /* H100 SXM, 8 blocks per SM */
        size_t threads = (size_t)g.blocks * 256;
        EXPECT(g.blocks == 132 * 8);                   /* small sets too: never fewer blocks */
        EXPECT(g.sms == 132 && g.per_sm == 8 && g.block == 256);
        EXPECT(g.per_thread >= 1 && threads * g.per_thread >= ns[i]);
        EXPECT(g.per_thread == 1 || threads * (g.per_thread - 1) < ns[i]);   /* no more than needed */
    }
    struct cuda_grid g = cuda_grid_fill(123456789, 48, 6, 128);    /* GB10: 48 SMs */
    EXPECT(g.blocks == 288 && g.per_thread == (123456789 + 288 * 128 - 1) / (288 * 128));
    g = cuda_grid_fill(10, 0, 0, 0);                               /* counts below 1 as 1 */
    EXPECT(g.blocks == 1 && g.block == 1 && g.per_thread == 10);
}

static void test_split(void)
{
    int s[2];
    struct cuda_grid g = cuda_grid_fill(1 << 20, 132, 8, 256);
    cuda_grid_split(&g, s);
    EXPECT(s[0] == 66 * 8 && s[1] == 66 * 8);
    g = cuda_grid_fill(1 << 20, 133, 4, 256);                      /* an odd SM count */
    cuda_grid_split(&g, s);
    EXPECT(s[0] == 67 * 4 && s[1] == 66 * 4 && s[0] + s[1] == g.blocks);
    g = cuda_grid_fill(1 << 20, 1, 5, 256);                        /* one SM: its blocks split */
    cuda_grid_split(&g, s);
    EXPECT(s[0] == 3 && s[1] == 2);
    g = cuda_grid_fill(1 << 20, 1, 1, 256);                        /* one block: one each */
    cuda_grid_split(&g, s);
    EXPECT(s[0] == 1 && s[1] == 1);
    for (int sms = 1; sms < 200; sms++)                            /* together they fill it once */
        for (int per = 1; per <= 16; per++) {
            g = cuda_grid_fill(1, sms, per, 256);
            cuda_grid_split(&g, s);
            EXPECT(s[0] >= 1 && s[1] >= 1 && (g.blocks == 1 || s[0] + s[1] == g.blocks));
        }
}

int main(void)
{
    test_fill();
    test_split();
    return CHECK_DONE();
}
