/* project.h: the projection of training workloads onto the measured machine and the catalog's
 * systems (project.c). The catalog rows come from the runner; the calibration from the
 * validation experiment (src/exp/validate) or from a results file. */
#ifndef SR_PREDICT_PROJECT_H
#define SR_PREDICT_PROJECT_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "predict/calib.h"

/* The catalog rows (as results.json carries them) the projection reads; set by the runner
 * before the experiments run. NULL: none. */
void predict_set_catalog(const cJSON *rows);

/* The published GPU training runs (data/gpu-runs.csv rows) the stack profiles fit on, and the
 * vendor claims (data/vendor-claims.csv rows) set beside the projections; NULL: none. */
void predict_set_published(const cJSON *runs, const cJSON *claims);

/* Checks the workloads and systems params name (precheck). */
int predict_check(const cJSON *params, char *err, size_t errlen);

/* Appends one projection record per workload and system to results. */
void predict_project(const cJSON *params, const struct predict_calib *c, const char *device, cJSON *results,
                     cJSON *info);

#endif
