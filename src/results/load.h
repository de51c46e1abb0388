/* load.h: reading a results.json back: where a command-line argument points to one, its size
 * limit, and the checks every reader relies on (schema, version, top-level types) with
 * messages that name the file. What the report sections read is checked later, in Lua
 * (draw_results); turning a failure into an exit code is the command's job. */
#ifndef SR_RESULTS_LOAD_H
#define SR_RESULTS_LOAD_H

#include <cjson/cJSON.h>
#include <stddef.h>

#include "util/schema.h"

#define SR_RESULTS_MAX_BYTES ((size_t)256 << 20)
#define SR_EPOCH_MAX 253402300799.0         /* 9999-12-31T23:59:59Z: the last time a PDF date holds */

/* Loads results.json and checks its schema; NULL with "PATH: reason" and errno ENOMEM when
 * memory ran out (an environment failure, not a bad file). */
cJSON *results_load(const char *path, char *err, size_t errlen);

/* The checks results_load makes on a parsed document (schema, version, top-level types, times
 * *_epoch within 0 .. SR_EPOCH_MAX); -1
 * with "PATH: reason". What the sections read is checked before drawing (draw_results). */
int results_check(const cJSON *results, const char *path, char *err, size_t errlen);

/* The results.json a command-line argument names: a run folder (or a link to one, such as
 * reports/latest) holds it; anything else is the file itself. Caller frees. */
char *results_path(const char *arg);

#endif
