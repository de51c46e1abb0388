/* experiment.h: the registry of experiment families (name, help, parameter table, budget
 * weight, run) and the parameter table of a scenario itself. Adding a family is adding a row;
 * the Lua bridge, `list` and validation read only this table. */
#ifndef SR_EXPERIMENT_H
#define SR_EXPERIMENT_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "util/param.h"

struct experiment {
    const char *name;           /* "bandwidth": sr.bandwidth { ... } in a scenario */
    const char *help;
    const struct param *params;
    double weight;              /* relative share of the scenario's time budget */
    /* Checks that need the machine (memory), before any run folder exists; may be NULL. */
    int (*precheck)(const cJSON *params, char *err, size_t errlen);
    /* Measures; returns {results, skipped, info}, or NULL with a message. */
    cJSON *(*run)(const cJSON *params, double budget_s, char *err, size_t errlen);
};

extern const struct experiment experiments[];   /* ends with a NULL name */
extern const struct param scenario_params[];

const struct experiment *experiment_find(const char *name);

/* "bandwidth, ..." for messages. */
char *experiment_names(char *buf, size_t n);

#endif
