/* param.h: parameter tables (name, type, default, limits, help) that drive validation of
 * scenario fields, `--set` overrides and `--help`/`list` output alike. Values travel as cJSON
 * so the same checks serve Lua scenarios, the command line and results files. */
#ifndef SR_PARAM_H
#define SR_PARAM_H

#include <stddef.h>
#include <stdio.h>

#include <cjson/cJSON.h>

enum param_type { PARAM_INT, PARAM_NUM, PARAM_BOOL, PARAM_SIZE, PARAM_ENUM, PARAM_STR };

#define PARAM_LIST 1u           /* one value or a list of them; normalised to a list */
#define PARAM_NOT_KEY 2u        /* chooses which records a run has, or how long and how often it
                                 * repeats, not how each record is measured: two runs that differ
                                 * in it still compare record by record (sparkreport compare) */
#define PARAM_TUPLE 4u            /* a list whose positions mean something (m, n, k), not a set: an item may
                                 * repeat; in every other list an item given twice is refused */
#define PARAM_MAX_LIST 256

struct param {
    const char *name;
    enum param_type type;       /* of each value */
    unsigned flags;
    const char *keywords;       /* "|"-separated words accepted instead of a value, or NULL */
    const char *choices;        /* PARAM_ENUM: "|"-separated values */
    const char *def;            /* default, as a user would write it */
    double min, max;            /* limits of numbers and sizes (bytes) */
    const char *help;
};                              /* tables end with an entry whose name is NULL */

/* Checks `given` (a JSON object, may be NULL) against ps. Returns a new object holding every
 * parameter (defaults filled in, sizes in bytes, lists as arrays, keywords as strings), or NULL
 * with err = "WHAT: reason" naming the parameter and the value. */
cJSON *param_check(const char *what, const struct param *ps, const cJSON *given,
                   char *err, size_t errlen);

/* Parses a value written as text (defaults, --set key=value; lists comma-separated). */
cJSON *param_parse_text(const char *what, const struct param *p, const char *text,
                        char *err, size_t errlen);

const struct param *param_find(const struct param *ps, const char *name);

/* A group of parameters PREFIX_* that describe one thing of the scenario's own, turned on by
 * PREFIX_name (keyword none: off): while it is none, every other PREFIX_* of the normalised params
 * must keep its default, or -1 with err naming the one given, its value and PREFIX_name (a field
 * given for nothing is never ignored without a word). A field given at its default value cannot be
 * told from one left out. */
int param_check_named(const char *what, const struct param *ps, const cJSON *params, const char *prefix,
                      char *err, size_t errlen);

/* "budget_s, cv, device, ..." (sorted), for messages. */
char *param_names(const struct param *ps, char *buf, size_t n);

/* One line per parameter: name, type and limits, default, help. */
void param_print_help(FILE *f, const struct param *ps);

/* Readers of a normalised object (param_check's output); they die on a missing name, which
 * is a bug in the caller, not bad input. */
double param_num(const cJSON *params, const char *name);
int param_bool(const cJSON *params, const char *name);
const char *param_str(const cJSON *params, const char *name);      /* NULL if not a string */
const cJSON *param_get(const cJSON *params, const char *name);

#endif
