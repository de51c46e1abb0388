/* validate.h: the experiment that checks the training-time model (scenario `sr.model`, results
 * name "model"): calibrate on microbenchmarks (the ops of the
 * training step timed on their own, a large GEMM, a DRAM read, an intensity sweep, an empty
 * parallel region), predict the step time of several training configurations, then measure
 * them; then project reference workloads onto the catalog's systems (src/predict/project.c). */
#ifndef SR_EXP_VALIDATE_H
#define SR_EXP_VALIDATE_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "predict/project.h"
#include "util/param.h"

struct train_config;

extern const struct param validate_params[];
int validate_precheck(const cJSON *params, char *err, size_t errlen);
cJSON *validate_run(const cJSON *params, double budget_s, char *err, size_t errlen);

/* The ceilings a device's calibration wrote into info.calibration (peak_flops per dtype, fp32
 * at least; peak_gemm_flops; bandwidth_Bps; op_overhead_s; combine.q) into c, the way the run
 * fills them on every device; 0, or -1 naming the field that is missing. */
int validate_calib_ceilings(const cJSON *calibration, struct predict_calib *c, char *err, size_t errlen);
/* A model experiment of a results file (its info.calibration and its records of series
 * calibration, each an op timed on its own) as the calibration its run built; 0, or -1 with a
 * message. predict_calib_free() it. */
int validate_calib_load(const cJSON *experiment, struct predict_calib *c, char *err, size_t errlen);
/* Predicted seconds of one optimizer step of cfg from c: every op of its plan, its timed time
 * when c has one, else c's curves; by_class[NET_NCLASSES] gets the seconds per op class. */
double validate_predict(const struct predict_calib *c, const struct train_config *cfg, double *by_class);

#endif
