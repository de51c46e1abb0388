/* stats.h: summary statistics of repeated measurements (min, median, max, mean, CV, a 95 %
 * confidence interval of the mean) and the rule that decides when to stop repeating.
 * Which samples to keep (warm-up dropped) is the caller's decision. */
#ifndef SR_STATS_H
#define SR_STATS_H

struct stats {
    int n;
    double min, median, max;
    double mean, sd;            /* sd: sample standard deviation (n - 1) */
    double cv;                  /* sd / mean; 0 when n < 2 */
    double ci_lo, ci_hi;        /* 95 % confidence interval of the mean (Student t); when no sample
                                 * is negative (times, rates) ci_lo is clamped at 0, where a few
                                 * noisy samples would put it below */
};

void stats_compute(const double *x, int n, struct stats *s);

/* Two-sided 95 % critical value of Student's t with df degrees of freedom. */
double stats_t95(int df);

/* When to stop repeating a measurement (PTS's rule: until the CV is under a target, within
 * a time budget, with a floor and a ceiling on the count). */
struct stats_rule {
    int min_reps, max_reps;
    double cv_target;           /* e.g. 0.025 */
    double budget_s;            /* time allowed for the repetitions of this measurement */
};

enum stats_stop { STATS_GO_ON = 0, STATS_STOP_CV, STATS_STOP_BUDGET, STATS_STOP_MAX_REPS };

enum stats_stop stats_should_stop(const struct stats_rule *r, const double *x, int n,
                                  double elapsed_s);
const char *stats_stop_name(enum stats_stop s);

#endif
