/* project.h: the projection of training workloads onto the measured machine and the catalog's
 * systems (project.c), a stage the runner runs over the results document after every experiment:
 * the calibration, the validation and the measured link come from the document, the catalog
 * from the runner. */
#ifndef SR_PREDICT_PROJECT_H
#define SR_PREDICT_PROJECT_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "predict/calib.h"
#include "predict/tenants.h"

/* What a projection reads besides a device's calibration, all from the results document and
 * the catalog the runner loaded: the catalog rows (as results.json carries them, with their
 * fabric columns), the published GPU training runs the stack profiles fit on
 * (data/gpu-runs.csv rows), the vendor claims (data/vendor-claims.csv rows), and the link this
 * run's collective measured (bus bytes/s over ranks on hosts; 0: none). NULL lists: none. */
struct predict_inputs {
    const cJSON *catalog, *runs, *claims;
    const cJSON *jobs;          /* the scenario's jobs (sr.job), as plain data (jobspec_json); NULL: none */
    const cJSON *measured;      /* rates the team measured (sr.measured, measured_json); NULL: none */
    double link_Bps, link_ranks;
    int link_hosts;
    struct predict_contention contention;   /* the tenants experiment's (predict_contention_load) */
};

/* The measured link of a results document's experiments (the last collective experiment's
 * info.link_gbps_bus, link_ranks, link_hosts) into in; none leaves in's link 0. */
void predict_inputs_link(const cJSON *experiments, struct predict_inputs *in);

/* What the projection needs of one vendor claim (a data/vendor-claims.csv row) beyond its cells: a
 * reference workload, and a precision (its compute column, else its precision) that a catalog peak
 * is given in. 0, or -1 with err naming the column and value. */
int predict_claim_check(const cJSON *claim, char *err, size_t errlen);

/* Checks the workloads and systems params name (precheck). */
int predict_check(const cJSON *params, char *err, size_t errlen);

/* Seconds of one optimizer step of shape s in precision p on the measured machine, from its
 * calibration c (every op of the plan: its timed time when c has one, else c's curves); when
 * by_class is not NULL, by_class[NET_NCLASSES] gets the seconds per op class. */
double predict_step_seconds(const struct predict_calib *c, const struct net_shape *s, enum net_prec p,
                            double *by_class);

/* Appends one projection record per workload and system to results (then the scale-out's) and
 * the projection's info fields to info; measured is the model experiment's info (its
 * calibration and validation), read only. */
void predict_project(const cJSON *params, const struct predict_calib *c, const char *device, const cJSON *measured,
                     const struct predict_inputs *in, cJSON *results, cJSON *info);

/* The projection stage over one model experiment e of a results document (its params checked
 * as params): its calibration loaded from its records, projected with in; the records and info
 * fields it adds go into out's "results" and "info". 0; 1 when e has nothing to project from
 * (no calibration: the device was not measured); -1 with a message when its calibration cannot
 * be read. */
int predict_stage(const cJSON *e, const cJSON *params, const struct predict_inputs *in, cJSON *out, char *err,
                  size_t errlen);

#endif
