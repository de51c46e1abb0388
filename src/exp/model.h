/* model.h: the training-time model experiment: calibrate on microbenchmarks (the ops of the
 * training step timed on their own, a large GEMM, a DRAM read, an intensity sweep, an empty
 * parallel region), predict the step time of several training configurations, then measure
 * them; then project reference workloads onto the catalog's systems (project.c). */
#ifndef SR_EXP_MODEL_H
#define SR_EXP_MODEL_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "model/calib.h"
#include "util/param.h"

extern const struct param model_exp_params[];
int model_precheck(const cJSON *params, char *err, size_t errlen);
cJSON *model_run(const cJSON *params, double budget_s, char *err, size_t errlen);

/* The catalog rows (as results.json carries them) the projection reads; set by the runner
 * before the experiments run. NULL: none. */
void model_set_catalog(const cJSON *rows);

/* Checks the workloads and systems params name (precheck). */
int model_project_check(const cJSON *params, char *err, size_t errlen);

/* Appends one projection record per workload and system to results (project.c). */
void model_project(const cJSON *params, const struct model_calib *c, const char *device, cJSON *results,
                   cJSON *info);

#endif
