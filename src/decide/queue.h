/* queue.h: a team's jobs on a pool of identical machines, simulated: jobs of several classes arrive
 * at random over the months (a Poisson stream per class, seeded, so a run reproduces), each takes
 * its class's run time on as many machines as it needs, and they start first come, first served
 * (no job overtakes an earlier one). What it returns is per class and overall: mean wait, the
 * median and 95th percentile of wait plus run time, and the machines' busy share. Which jobs run
 * on which machines, and what they cost, is the decision's (decide.c). */
#ifndef SR_DECIDE_QUEUE_H
#define SR_DECIDE_QUEUE_H

#include <stdint.h>

#define QUEUE_MAX_CLASSES 32

struct queue_class {
    double per_hour;            /* arrivals per hour (> 0) */
    double run_h;               /* hours one job holds its machines (> 0) */
    int units;                  /* machines one job holds at once (1 .. the pool); 0: it needs none of
                                   the pool (rented capacity that scales): it starts when it arrives */
};

struct queue_stats {
    int n;                      /* jobs counted (after the warm-up) */
    double wait_mean_h;         /* mean hours from arrival to start */
    double wait_se_h;           /* standard error of that mean, from batch means */
    double result_p50_h, result_p95_h;  /* wait + run, median and 95th percentile, hours */
};

struct queue_result {
    int keeps_up;               /* the offered load is below the pool: 0 means the queue grows
                                   without bound and nothing else here is set */
    double load;                /* offered unit-hours per hour over the pool's units (< 1 to keep up) */
    double busy;                /* share of the pool's unit-hours spent running jobs, simulated */
    struct queue_stats all, cls[QUEUE_MAX_CLASSES];
};

/* The offered load: sum over classes of per_hour x run_h x units, over `units` machines. */
double queue_load(const struct queue_class *c, int n, int units);

/* Simulates `hours` of arrivals (the first `warmup_h` counted in the machines' time but not in the
 * statistics) of the n classes on a pool of `units` machines, from `seed`. A class needing more
 * machines than the pool has makes the pool unable to keep up. 0, or -1 when memory ran out. */
int queue_simulate(const struct queue_class *c, int n, int units, double hours, double warmup_h, uint64_t seed,
                   struct queue_result *out);

/* splitmix64 (Vigna): the generator behind the arrivals, exposed for the tests' closed forms. */
uint64_t queue_rand(uint64_t *state);

/* A uniform double in (0, 1) from the generator. */
double queue_uniform(uint64_t *state);

#endif
