/* fuzz_params.c: libFuzzer target for the scenario parameter layer. The bytes are read two
 * ways: as JSON, checked by param_check against every experiment's table and the scenario's
 * (as sr.NAME { ... } and sr.scenario { ... } do), and as "name=value" text, parsed by
 * param_parse_text for that parameter of every table (as --set does). Findings: a crash or
 * sanitizer report; a normalised result that param_check refuses when given back (the run
 * checks a scenario's data again after it crossed from the scenario's state), or that
 * differs from itself after a second pass. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exp/experiment.h"
#include "util/json.h"
#include "util/param.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* param_check(norm) must accept norm and give it back unchanged. */
static void idempotent(const char *what, const struct param *ps, const cJSON *norm)
{
    char err[1024];
    cJSON *again = param_check(what, ps, norm, err, sizeof err);
    if (!again) {
        char *s = cJSON_PrintUnformatted(norm);
        fprintf(stderr, "%s: param_check refuses its own output %s: %s\n", what, s, err);
        abort();
    }
    if (!cJSON_Compare(again, norm, 1)) {
        char *a = cJSON_PrintUnformatted(norm), *b = cJSON_PrintUnformatted(again);
        fprintf(stderr, "%s: a second pass changed %s into %s\n", what, a, b);
        abort();
    }
    cJSON_Delete(again);
}

static void check_table(const char *what, const struct param *ps, const cJSON *given, const char *name,
                        const char *text)
{
    char err[1024];
    cJSON *norm = given ? param_check(what, ps, given, err, sizeof err) : NULL;
    if (norm) {
        idempotent(what, ps, norm);
        cJSON_Delete(norm);
    }
    const struct param *p = name ? param_find(ps, name) : NULL;
    cJSON *v = p ? param_parse_text(what, p, text, err, sizeof err) : NULL;
    if (v) {                        /* a --set value goes into the table and is checked with it */
        cJSON *one = cJSON_CreateObject();
        cJSON_AddItemToObject(one, p->name, v);
        cJSON *n2 = param_check(what, ps, one, err, sizeof err);
        if (!n2) {
            fprintf(stderr, "%s: --set %s=%s parsed, then param_check refused it: %s\n", what, name, text, err);
            abort();
        }
        idempotent(what, ps, n2);
        cJSON_Delete(n2);
        cJSON_Delete(one);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[1024];
    if (size > 65536)
        return 0;
    cJSON *given = json_parse("fuzz.json", (const char *)data, size, err, sizeof err);
    char *text = malloc(size + 1), *name = NULL, *value = NULL;
    memcpy(text, data, size);
    text[size] = '\0';
    char *eq = memchr(text, '=', size);
    if (eq && strlen(text) == size) {
        *eq = '\0';
        name = text;
        value = eq + 1;
    }
    for (const struct experiment *e = experiments; e->name; e++)
        check_table(e->name, e->params, given, name, value);
    check_table("scenario", scenario_params, given, name, value);
    cJSON_Delete(given);
    free(text);
    return 0;
}
