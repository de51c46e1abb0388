/* load.c: results.json in: finds it from a folder or file argument, reads it within its size
 * limit, and checks the schema, the version and the top-level types, naming the file in every
 * message. Parsing limits are util/json.c's; the shape the sections read is schema.lua's. */
#include "results/load.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "util/error.h"
#include "util/json.h"

static int want(const cJSON *r, const char *key, int (*is)(const cJSON *), const char *what,
                const char *path, char *err, size_t errlen)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(r, key);
    if (is(v))
        return 0;
    snprintf(err, errlen, "%s: '%s' must be %s%s", path, key, what, v ? "" : " (it is missing)");
    return -1;
}

static int check_experiments(const cJSON *exps, const char *path, char *err, size_t errlen)
{
    int i = 0;
    for (const cJSON *e = exps->child; e; e = e->next, i++) {
        char where[64];
        snprintf(where, sizeof where, "experiments[%d]", i + 1);
        if (!cJSON_IsObject(e) || !cJSON_IsString(cJSON_GetObjectItemCaseSensitive(e, "name"))
            || !cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(e, "results"))) {
            snprintf(err, errlen, "%s: %s must be an object with a 'name' and a 'results' array", path, where);
            return -1;
        }
    }
    return 0;
}

/* Times in seconds since 1970 (started_epoch, finished_epoch, ...): a date a report can print. */
static int check_epochs(const cJSON *r, const char *path, char *err, size_t errlen)
{
    for (const cJSON *c = r->child; c; c = c->next) {
        size_t n = c->string ? strlen(c->string) : 0;
        if (n < 6 || strcmp(c->string + n - 6, "_epoch") != 0)
            continue;
        if (!cJSON_IsNumber(c) || !(c->valuedouble >= 0 && c->valuedouble <= SR_EPOCH_MAX)) {
            snprintf(err, errlen, "%s: '%s' must be a time from 0 to %.0f (1970 to the end of 9999) in seconds, "
                     "got %s", path, c->string, SR_EPOCH_MAX, cJSON_IsNumber(c) ? "a number out of range" : "another type");
            return -1;
        }
    }
    return 0;
}

cJSON *results_load(const char *path, char *err, size_t errlen)
{
    cJSON *r = json_load(path, SR_RESULTS_MAX_BYTES, err, errlen);
    if (r && results_check(r, path, err, errlen) != 0) {
        cJSON_Delete(r);
        r = NULL;
        errno = EINVAL;
    }
    return r;
}

int results_check(const cJSON *r, const char *path, char *err, size_t errlen)
{
    const char *schema = json_str(r, "schema", NULL);
    double version = json_num(r, "schema_version", NAN);
    if (!cJSON_IsObject(r) || !schema || strcmp(schema, SR_SCHEMA) != 0) {
        snprintf(err, errlen, "%s: not a sparkreport results file (no \"schema\": \"%s\")", path, SR_SCHEMA);
    } else if (!(version >= 1 && version == floor(version))) {
        snprintf(err, errlen, "%s: 'schema_version' must be a whole number from 1", path);
    } else if (version > SR_SCHEMA_VERSION) {
        snprintf(err, errlen, "%s: schema version %.0f is newer than this sparkreport reads (%d); update sparkreport",
                 path, version, SR_SCHEMA_VERSION);
    } else if (want(r, "context", cJSON_IsObject, "an object", path, err, errlen) == 0
               && want(r, "scenario", cJSON_IsObject, "an object", path, err, errlen) == 0
               && want(r, "experiments", cJSON_IsArray, "an array", path, err, errlen) == 0
               && check_experiments(cJSON_GetObjectItemCaseSensitive(r, "experiments"), path, err, errlen) == 0
               && check_epochs(r, path, err, errlen) == 0) {
        return 0;
    }
    return -1;
}

char *results_path(const char *arg)
{
    struct stat st;
    size_t len = strlen(arg);
    if (len > 0 && stat(arg, &st) == 0 && S_ISDIR(st.st_mode)) {
        char *p = xmalloc(len + 16);
        snprintf(p, len + 16, "%s%sresults.json", arg, arg[len - 1] == '/' ? "" : "/");
        return p;
    }
    return xstrdup(arg);
}
