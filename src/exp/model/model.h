/* model.h: the experiment that checks the training-time model (scenario `sr.model`, results
 * name "model"): calibrate on microbenchmarks (the ops of the
 * training step timed on their own, a large GEMM, a DRAM read, an intensity sweep, an empty
 * parallel region), predict the step time of several training configurations, then measure
 * them. The projection onto the catalog's systems is a stage over the results after every
 * experiment (src/predict/project.h), reading this experiment's calibration from them. */
#ifndef SR_EXP_MODEL_H
#define SR_EXP_MODEL_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "util/param.h"

struct train_config;

extern const struct param model_params[];
int model_precheck(const cJSON *params, char *err, size_t errlen);
cJSON *model_run(const cJSON *params, double budget_s, char *err, size_t errlen);

/* Training-step samples (n <= 11) that took longer than the noise allows: slower than the mean
 * of the fastest third (at least two) by more than 25 % of it and 4 of their standard
 * deviations: another process had the cores then. bad[r] marks them; *limit: the threshold in
 * seconds; returns how many. More than a third: the samples are not one population. */
int model_disturbed(const double *step_s, int n, int *bad, double *limit);

/* A gradual drift of training-step samples in the order they were taken (n <= 11, the rounds
 * model_disturbed kept): Mann-Kendall's trend test at 5 % two-sided (S over every pair of
 * rounds, its variance n (n - 1)(2n + 5)/18, no ties assumed) and a drift across the rounds,
 * Theil-Sen's slope (the median of the pairwise slopes) x (n - 1) over the median, of at least
 * MODEL_DRIFT_MIN either way: the machine's load changed while the configuration ran, and its
 * samples are no one population, as a disturbed one's. *drift gets that relative drift (0 under
 * four samples, too few to test); returns 1 when it drifted. */
#define MODEL_DRIFT_MIN 0.05
#define MODEL_DRIFT_Z 1.96
int model_drift(const double *step_s, int n, double *drift);

/* Whether the machine moved under a held-out configuration: the n distinct ops its prediction
 * rests on as timed by the configurations before it (then_s, each weight[j] times in its step),
 * timed again in its own rounds (now_s, their medians; the prediction still takes then_s), cost a
 * step sum(weight now) = now_s of what they did, sum(weight then) = then_s; judged where they are
 * MODEL_REF_COVER or more of its predicted step step_s (a few small ops are too little of the
 * step, and too noisy, to say the machine moved), and moved where ratio = now / then is off 1 by
 * more than MODEL_REF_MOVED either way: the prediction and the measurement were then taken on
 * machines that differ by more than the validation's own error, and the configuration is
 * measured again or excluded with the reason, like a disturbed or drifting one. Without ops:
 * ratio NAN, neither judged nor moved. */
#define MODEL_REF_MOVED 0.05
#define MODEL_REF_COVER 0.25
struct model_ref {
    double then_s, now_s, ratio;
    int judged, moved;
};
struct model_ref model_ref_moved(const double *then_s, const double *now_s, const double *weight, int n,
                                 double step_s);

#endif
