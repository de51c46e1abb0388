/* param.c: validation of parameter values against their table. Messages are written for the
 * person who typed the value: they name the parameter, show the value and say what is valid. */
#include "util/param.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "util/units.h"

static int word_in(const char *words, const char *w)
{
    size_t n = strlen(w);
    for (const char *p = words; p && *p; ) {
        const char *bar = strchr(p, '|');
        size_t len = bar ? (size_t)(bar - p) : strlen(p);
        if (len == n && strncmp(p, w, n) == 0)
            return 1;
        p = bar ? bar + 1 : NULL;
    }
    return 0;
}

/* "a|b|c" -> "a, b, c" */
static char *list_words(const char *words, char *buf, size_t n)
{
    size_t o = 0;
    buf[0] = '\0';
    for (const char *p = words; p && *p && o + 3 < n; p++)
        o += (size_t)snprintf(buf + o, n - o, *p == '|' ? ", " : "%c", *p);
    return buf;
}

static char *describe(const cJSON *v, char *buf, size_t n)
{
    if (cJSON_IsString(v))
        snprintf(buf, n, "\"%.60s%s\"", v->valuestring, strlen(v->valuestring) > 60 ? "..." : "");
    else if (cJSON_IsNumber(v))
        snprintf(buf, n, "%.17g", v->valuedouble);
    else if (cJSON_IsBool(v))
        snprintf(buf, n, "%s", cJSON_IsTrue(v) ? "true" : "false");
    else if (cJSON_IsArray(v))
        snprintf(buf, n, "a list");
    else if (cJSON_IsObject(v))
        snprintf(buf, n, "a table");
    else
        snprintf(buf, n, "nil");
    return buf;
}

static const char *type_phrase(const struct param *p, char *buf, size_t n)
{
    char w[256];
    switch (p->type) {
    case PARAM_INT: return "an integer";
    case PARAM_NUM: return "a number";
    case PARAM_BOOL: return "true or false";
    case PARAM_SIZE: return "a size such as 64KiB or 1GiB";
    case PARAM_STR: return "a string";
    case PARAM_ENUM:
        snprintf(buf, n, "one of %s", list_words(p->choices, w, sizeof w));
        return buf;
    }
    return "?";
}

static char *limit_text(const struct param *p, double v, char *buf, size_t n)
{
    if (p->type == PARAM_SIZE)
        return units_format_bytes(v, buf, n);
    snprintf(buf, n, "%.15g", v);
    return buf;
}

/* One scalar value (not a keyword) -> normalised JSON, or NULL with err. */
static cJSON *check_one(const char *what, const struct param *p, const cJSON *v, char *err, size_t errlen)
{
    char d[96], t[256], lo[32], hi[32], shown[32];
    double x = 0;
    if (p->type == PARAM_ENUM && cJSON_IsString(v)) {
        if (word_in(p->choices, v->valuestring))
            return cJSON_CreateString(v->valuestring);
        char all[256] = "";
        if (p->keywords)
            snprintf(all, sizeof all, "%s|%s", p->keywords, p->choices);
        snprintf(err, errlen, "%s: parameter '%s' has unknown value '%.60s' (valid: %s)", what, p->name,
                 v->valuestring, list_words(p->keywords ? all : p->choices, t, sizeof t));
        return NULL;
    }
    if (p->type == PARAM_STR && cJSON_IsString(v))
        return cJSON_CreateString(v->valuestring);
    if (p->type == PARAM_BOOL && cJSON_IsBool(v))
        return cJSON_CreateBool(cJSON_IsTrue(v));
    if (p->type == PARAM_SIZE && cJSON_IsString(v) && units_parse_size(v->valuestring, &x) == 0)
        ;
    else if ((p->type == PARAM_SIZE || p->type == PARAM_NUM || p->type == PARAM_INT) && cJSON_IsNumber(v))
        x = v->valuedouble;
    else {
        snprintf(err, errlen, "%s: parameter '%s' must be %s%s%s, got %s", what, p->name,
                 type_phrase(p, t, sizeof t), p->keywords ? " or " : "",
                 p->keywords ? list_words(p->keywords, lo, sizeof lo) : "", describe(v, d, sizeof d));
        return NULL;
    }
    if (!isfinite(x) || (p->type == PARAM_INT && x != floor(x)) || (p->type == PARAM_SIZE && x < 0)) {
        snprintf(err, errlen, "%s: parameter '%s' must be %s, got %s", what, p->name,
                 type_phrase(p, t, sizeof t), describe(v, d, sizeof d));
        return NULL;
    }
    if (x != 0 && fabs(x) < DBL_MIN) {      /* passes "above 0", then overflows what divides by it */
        snprintf(err, errlen, "%s: parameter '%s' = %.6g is too small to compute with (a subnormal number, below "
                 "%.3g); give 0 or a figure in the parameter's unit", what, p->name, x, DBL_MIN);
        return NULL;
    }
    if (x < p->min || x > p->max) {
        snprintf(err, errlen, "%s: parameter '%s' = %s is out of range (%s .. %s)", what, p->name,
                 cJSON_IsString(v) ? v->valuestring : limit_text(p, x, shown, sizeof shown),
                 limit_text(p, p->min, lo, sizeof lo), limit_text(p, p->max, hi, sizeof hi));
        return NULL;
    }
    if (p->type == PARAM_SIZE)
        x = floor(x);
    return cJSON_CreateNumber(x);
}

static cJSON *check_value(const char *what, const struct param *p, const cJSON *v, char *err, size_t errlen)
{
    if (p->keywords && cJSON_IsString(v) && word_in(p->keywords, v->valuestring))
        return cJSON_CreateString(v->valuestring);
    if (!(p->flags & PARAM_LIST) || !cJSON_IsArray(v)) {
        cJSON *one = check_one(what, p, v, err, errlen);
        if (!one || !(p->flags & PARAM_LIST))
            return one;
        cJSON *list = cJSON_CreateArray();
        cJSON_AddItemToArray(list, one);
        return list;
    }
    int n = cJSON_GetArraySize(v);
    if (n == 0 || n > PARAM_MAX_LIST) {
        snprintf(err, errlen, "%s: parameter '%s' must list 1 to %d values, got %d", what, p->name,
                 PARAM_MAX_LIST, n);
        return NULL;
    }
    cJSON *list = cJSON_CreateArray();
    int i = 1;
    for (const cJSON *e = v->child; e; e = e->next, i++) {
        cJSON *one = check_one(what, p, e, err, errlen);
        const cJSON *seen = one && !(p->flags & PARAM_TUPLE) ? list->child : NULL;
        int j = 1;
        while (seen && !cJSON_Compare(seen, one, 1)) {
            seen = seen->next;
            j++;
        }
        if (seen) {                     /* the same item twice: two answers, or two records of one measurement */
            char d[96];
            snprintf(err, errlen, "%s: parameter '%s' lists %s twice (entries %d and %d); give each once", what,
                     p->name, describe(e, d, sizeof d), j, i);
            cJSON_Delete(one);
            one = NULL;
        }
        if (!one) {
            cJSON_Delete(list);
            return NULL;
        }
        cJSON_AddItemToArray(list, one);
    }
    return list;
}

cJSON *param_parse_text(const char *what, const struct param *p, const char *text, char *err, size_t errlen)
{
    cJSON *raw;
    if ((p->flags & PARAM_LIST) && strchr(text, ',')) {
        raw = cJSON_CreateArray();
        char *copy = xstrdup(text), *save = NULL;
        for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
            char *endp;
            double x = strtod(tok, &endp);
            int is_num = *tok && *endp == '\0' && p->type != PARAM_STR && p->type != PARAM_ENUM;
            cJSON_AddItemToArray(raw, is_num ? cJSON_CreateNumber(x) : cJSON_CreateString(tok));
        }
        free(copy);
    } else {
        char *endp;
        double x = strtod(text, &endp);
        if (p->type == PARAM_BOOL && (strcmp(text, "true") == 0 || strcmp(text, "false") == 0))
            raw = cJSON_CreateBool(text[0] == 't');
        else if (*text && *endp == '\0' && p->type != PARAM_STR && p->type != PARAM_ENUM)
            raw = cJSON_CreateNumber(x);
        else
            raw = cJSON_CreateString(text);
    }
    cJSON *v = check_value(what, p, raw, err, errlen);
    cJSON_Delete(raw);
    return v;
}

const struct param *param_find(const struct param *ps, const char *name)
{
    for (; ps->name; ps++)
        if (strcmp(ps->name, name) == 0)
            return ps;
    return NULL;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

char *param_names(const struct param *ps, char *buf, size_t n)
{
    const char *names[128];
    size_t k = 0, o = 0;
    for (; ps->name && k < 128; ps++)
        names[k++] = ps->name;
    qsort(names, k, sizeof names[0], cmp_str);
    buf[0] = '\0';
    for (size_t i = 0; i < k && o < n; i++)
        o += (size_t)snprintf(buf + o, n - o, "%s%s", i ? ", " : "", names[i]);
    return buf;
}

cJSON *param_check(const char *what, const struct param *ps, const cJSON *given, char *err, size_t errlen)
{
    char names[1024];
    if (cJSON_IsArray(given) && cJSON_GetArraySize(given) == 0)
        given = NULL;           /* an empty Lua table converts to [] */
    if (given && !cJSON_IsObject(given)) {
        snprintf(err, errlen, "%s: parameters must be given as a table of name = value", what);
        return NULL;
    }
    for (const cJSON *g = given ? given->child : NULL; g; g = g->next) {
        if (!g->string || !param_find(ps, g->string)) {
            snprintf(err, errlen, "%s: unknown parameter '%.60s' (valid: %s)", what,
                     g->string ? g->string : "?", param_names(ps, names, sizeof names));
            return NULL;
        }
    }
    cJSON *out = cJSON_CreateObject();
    for (const struct param *p = ps; p->name; p++) {
        const cJSON *g = given ? cJSON_GetObjectItemCaseSensitive(given, p->name) : NULL;
        cJSON *v = g ? check_value(what, p, g, err, errlen)
                     : param_parse_text(what, p, p->def, err, errlen);
        if (!v) {
            cJSON_Delete(out);
            return NULL;
        }
        cJSON_AddItemToObject(out, p->name, v);
    }
    return out;
}

int param_check_named(const char *what, const struct param *ps, const cJSON *params, const char *prefix,
                      char *err, size_t errlen)
{
    char name[64], d[96];
    size_t n = strlen(prefix);
    snprintf(name, sizeof name, "%s_name", prefix);
    const char *on = param_str(params, name);
    if (on && strcmp(on, "none") != 0)
        return 0;
    for (const struct param *p = ps; p->name; p++) {
        if (strncmp(p->name, prefix, n) != 0 || p->name[n] != '_' || strcmp(p->name, name) == 0)
            continue;
        cJSON *def = param_parse_text(what, p, p->def, err, errlen);
        const cJSON *v = param_get(params, p->name);
        int same = def && cJSON_Compare(def, v, 1);
        cJSON_Delete(def);
        if (!same) {
            snprintf(err, errlen, "%s: parameter '%s' = %s is given, but %s is none: the %s_* fields describe the "
                     "scenario's own %s, which only a name makes (%s = \"...\"); name it, or leave %s out", what,
                     p->name, describe(v, d, sizeof d), name, prefix, prefix, name, p->name);
            return -1;
        }
    }
    return 0;
}

void param_print_help(FILE *f, const struct param *ps)
{
    for (const struct param *p = ps; p->name; p++) {
        char t[256], lo[32], hi[32], kw[128] = "";
        const char *ty = type_phrase(p, t, sizeof t);
        if (p->keywords)
            list_words(p->keywords, kw, sizeof kw);
        fprintf(f, "    %-18s %s", p->name, p->help);
        fprintf(f, "\n    %-18s %s%s%s%s", "", (p->flags & PARAM_LIST) ? "list of " : "", ty,
                p->keywords ? ", or " : "", kw);
        if (p->type == PARAM_INT || p->type == PARAM_NUM || p->type == PARAM_SIZE)
            fprintf(f, " (%s .. %s)", limit_text(p, p->min, lo, sizeof lo), limit_text(p, p->max, hi, sizeof hi));
        fprintf(f, "; default %s\n", p->def);
    }
}

const cJSON *param_get(const cJSON *params, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(params, name);
    if (!v)
        DIE("parameter '%s' missing from a checked parameter set", name);
    return v;
}

double param_num(const cJSON *params, const char *name)
{
    const cJSON *v = param_get(params, name);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

int param_bool(const cJSON *params, const char *name)
{
    return cJSON_IsTrue(param_get(params, name));
}

const char *param_str(const cJSON *params, const char *name)
{
    const cJSON *v = param_get(params, name);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}
