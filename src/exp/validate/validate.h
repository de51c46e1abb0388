/* validate.h: the experiment that checks the training-time model (scenario `sr.model`, results
 * name "model"): calibrate on microbenchmarks (the ops of the
 * training step timed on their own, a large GEMM, a DRAM read, an intensity sweep, an empty
 * parallel region), predict the step time of several training configurations, then measure
 * them. The projection onto the catalog's systems is a stage over the results after every
 * experiment (src/predict/project.h), reading this experiment's calibration from them. */
#ifndef SR_EXP_VALIDATE_H
#define SR_EXP_VALIDATE_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "util/param.h"

struct train_config;

extern const struct param validate_params[];
int validate_precheck(const cJSON *params, char *err, size_t errlen);
cJSON *validate_run(const cJSON *params, double budget_s, char *err, size_t errlen);

#endif
