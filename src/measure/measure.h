/* measure.h: the one measuring harness every experiment family uses, CPU and GPU alike: the
 * size of a working set beyond the caches, the repetition loop (warm-up, CV stop rule, budget)
 * and the statistics and stop reason it records, skip records, and the timing rows of a
 * parameter table. A family brings only its parameter table, plan, kernels and checks; the
 * arithmetic of the statistics is util/stats.c's. */
#ifndef SR_MEASURE_H
#define SR_MEASURE_H

#include <cjson/cJSON.h>

#include "util/param.h"

/* THE rule for a DRAM-sized working set, stated once: 4x all caches (every level the machine
 * reports, summed), and never below 256 MiB, because caches can be under-reported (a
 * system-level cache sysfs does not list, such as GB10's 16 MB). The size applies to each
 * array a kernel streams (STREAM's rule): the bandwidth kernels' a, b and c each, the sweep
 * array of the precision roofline, compression's FP32 weight matrix, the model's DRAM read. */
#define MEASURE_DRAM_FACTOR 4.0
#define MEASURE_DRAM_FLOOR (256.0 * 1024 * 1024)
double measure_dram_bytes(double cache_total_bytes);

/* How often to repeat one measurement. */
struct measure_rule {
    int warmup;                 /* samples run first and dropped */
    int min_reps, max_reps;     /* samples kept, at least and at most */
    double cv;                  /* stop once the coefficient of variation is below this */
    double sample_s;            /* shortest timed sample, seconds (measure_iterations's aim) */
    double budget_s;            /* seconds of samples for THIS measurement: the family sets it
                                   before each measure_repeat (measure_rule_from leaves 0: stop
                                   at min_reps when the CV has not settled by then) */
};

/* The timing rows of a family's parameter table, defaults as strings ("0.025", "5", ...); the
 * limits are the same in every family. MEASURE_BUDGET_PARAM is the family's `budget_s` row. */
#define MEASURE_PARAMS(cv, min_reps, max_reps, warmup, sample_s) \
    { "cv", PARAM_NUM, PARAM_NOT_KEY, NULL, NULL, cv, 0.001, 0.5, \
      "repeat until the coefficient of variation of the times is below this" }, \
    { "min_reps", PARAM_INT, PARAM_NOT_KEY, NULL, NULL, min_reps, 2, 1000, "repetitions at least (after warm-up)" }, \
    { "max_reps", PARAM_INT, PARAM_NOT_KEY, NULL, NULL, max_reps, 2, 100000, "repetitions at most" }, \
    { "warmup", PARAM_INT, 0, NULL, NULL, warmup, 0, 100, \
      "repetitions run first and dropped (a validated first run is never timed either)" }, \
    { "sample_s", PARAM_NUM, 0, NULL, NULL, sample_s, 1e-5, 10, \
      "shortest timed sample; short kernels repeat inside one sample" }
#define MEASURE_BUDGET_PARAM(help) \
    { "budget_s", PARAM_NUM, PARAM_NOT_KEY, "auto", NULL, "auto", 0.1, 86400, help }

/* The rule from a family's params (the MEASURE_PARAMS rows): max_reps raised to min_reps,
 * sample_s at least 20 timer ticks, budget_s 0. */
void measure_rule_from(struct measure_rule *r, const cJSON *params);

/* The budget override: the `budget_s` param when it is a number, else share_s (the family's
 * share of the scenario's budget). */
double measure_budget(const cJSON *params, double share_s);

/* Repetitions per sample so that one sample lasts sample_s: run(ud, iters) returns the seconds
 * of iters repetitions. A fixed cost per sample (waking a team on a busy machine can take
 * milliseconds) would otherwise set the rate, so after reaching sample_s the count doubles
 * until the time per repetition stops falling; the fastest of two tries counts each round.
 * first_s: seconds of one repetition already run (the validation run), or 0; one of 4 samples
 * or more needs no sizing. A cut (progress_cut) ends the sizing with the count so far. */
long measure_iterations(double (*run)(void *ud, long iters), void *ud, double sample_s, double first_s);

/* The repetition loop: r->warmup samples dropped, then samples (sample(ud) returns seconds of
 * one repetition) until the CV is under r->cv (after min_reps), or r->budget_s is spent, or
 * max_reps are taken. Adds to rec: warmup, stop ("cv" | "budget" | "max_reps"), samples_s,
 * time_s {min, median, max, mean, sd, cv, ci95_lo, ci95_hi}, cv_target (r->cv) and settled
 * (false when it stopped on budget or max_reps with the CV above cv_target). Returns the
 * number of samples. A cut (progress_cut: a stop was asked, or the hard deadline passed) ends
 * the loop after the sample it happened in (one is always taken), that sample kept when it is a
 * time (stop "signal" or "deadline"); when the only sample is the NAN of a kernel that gave up,
 * nothing is added and it returns 0. */
int measure_repeat(cJSON *rec, const struct measure_rule *r, double (*sample)(void *ud), void *ud);

/* The statistics block of n samples: {min, median, max, mean, sd, cv, ci95_lo, ci95_hi}. */
cJSON *measure_stats(const double *x, int n);
double measure_median(const double *x, int n);

/* A record's time statistic ("min", "median", ...) from its time_s (measure_repeat's); NAN when
 * the record has none (a cut abandoned it) or it is not a positive number. */
double measure_time(const cJSON *rec, const char *stat);
/* The rates of a record from its time_s: rec[name_best] = amount / min and rec[name_median] =
 * amount / median, in 1e9 per second (GB/s for bytes, GFLOP/s for FLOPs). A record without
 * both times gets neither (never a null): returns 0 when added, -1 when not. */
int measure_rates(cJSON *rec, const char *name, double amount);

/* The seconds of a training step per op class: for each class of net_class_names, the median
 * over the n steps of that step's sum over the plan's ops of the class (op_s: [n][nops], each
 * op's seconds in each step). An object {class: seconds}; classes with no op count 0. */
struct net_op;
cJSON *measure_class_medians(const struct net_op *plan, int nops, const double *op_s, int n);

/* An item of a results file's skipped list: {item, reason}. */
void measure_skip(cJSON *skipped, const char *item, const char *reason);

#endif
