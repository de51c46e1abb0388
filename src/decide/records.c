/* records.c: how the team decision's files write a record: a record of a series appended to the
 * results, a number only where it is a figure (never NaN or infinity), a string copied from a
 * projection record, and the stack a configuration was projected on. What each record holds is
 * the file that writes it. */
#include <math.h>
#include <stdio.h>

#include "decide/decide_int.h"
#include "util/json.h"

void dc_num(cJSON *r, const char *k, double v)
{
    if (isfinite(v))
        cJSON_AddNumberToObject(r, k, v);
}

cJSON *dc_record(cJSON *results, const char *series)
{
    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "series", series);
    cJSON_AddItemToArray(results, r);
    return r;
}

void dc_copy_str(cJSON *r, const cJSON *rec, const char *from, const char *to)
{
    const char *v = json_str(rec, from, NULL);
    if (v)
        cJSON_AddStringToObject(r, to, v);
}

void dc_stack_json(cJSON *r, const cJSON *rec, const char *prefix)
{
    static const char *const F[] = { "stack", "stack_name", "stack_era", "stack_fitted_on" };
    for (size_t f = 0; f < sizeof F / sizeof F[0]; f++) {
        char key[48];
        snprintf(key, sizeof key, "%s%s", prefix, F[f]);
        dc_copy_str(r, rec, F[f], key);
    }
}
