/* timing.c: clocks. The tick is measured, not taken from clock_getres, because virtual
 * machines often advertise 1 ns and deliver much coarser steps. */
#include "util/timing.h"

#include <time.h>

double timing_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

double timing_wall(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

double timing_tick(void)
{
    double best = 1.0;
    for (int i = 0; i < 20; i++) {
        double t0 = timing_now(), t1;
        while ((t1 = timing_now()) == t0)
            ;
        if (t1 - t0 < best)
            best = t1 - t0;
    }
    return best;
}
