/* json.c: reading and writing JSON files. cJSON does the parsing; this file adds the limits
 * (size, depth) and the messages a user can act on. */
#include "util/json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "util/fsutil.h"

static int depth_of(const cJSON *j)
{
    int d = 0;
    for (const cJSON *c = j ? j->child : NULL; c; c = c->next) {
        int cd = depth_of(c);
        if (cd > d)
            d = cd;
    }
    return j && (cJSON_IsArray(j) || cJSON_IsObject(j)) ? d + 1 : d;
}

/* How many arrays and objects are open at byte off (strings skipped): cJSON stops at its own
 * nesting limit with a plain parse error, which is a depth problem, not invalid JSON. */
static int open_depth(const char *text, size_t off)
{
    int depth = 0, in_string = 0;
    for (size_t i = 0; i < off; i++) {
        char c = text[i];
        if (in_string) {
            if (c == '\\')
                i++;
            else if (c == '"')
                in_string = 0;
        } else if (c == '"') {
            in_string = 1;
        } else if (c == '[' || c == '{') {
            depth++;
        } else if (c == ']' || c == '}') {
            depth--;
        }
    }
    return depth;
}

/* Whether text[0..n) is only JSON whitespace; text need not be NUL-terminated. */
static int all_space(const char *text, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (text[i] != ' ' && text[i] != '\t' && text[i] != '\r' && text[i] != '\n')
            return 0;
    return 1;
}

cJSON *json_parse(const char *name, const char *text, size_t n, char *err, size_t errlen)
{
    if (all_space(text, n)) {
        snprintf(err, errlen, "%s: empty file", name);
        return NULL;
    }
    if (memchr(text, '\0', n)) {
        snprintf(err, errlen, "%s: not JSON (contains a NUL byte)", name);
        return NULL;
    }
    const char *end = NULL;
    cJSON *j = cJSON_ParseWithLengthOpts(text, n, &end, 0);
    if (!j || (end && (size_t)(end - text) < n && !all_space(end, n - (size_t)(end - text)))) {
        const char *at = end ? end : cJSON_GetErrorPtr();
        size_t off = at && at >= text && at <= text + n ? (size_t)(at - text) : n;
        int line = 1;
        for (size_t i = 0; i < off; i++)
            line += text[i] == '\n';
        if (j)
            snprintf(err, errlen, "%s:%d: unexpected text after the JSON document", name, line);
        else if (open_depth(text, off) >= CJSON_NESTING_LIMIT)
            snprintf(err, errlen, "%s:%d: nested deeper than %d levels", name, line, JSON_MAX_DEPTH);
        else if (off + 1 >= n)   /* cJSON reports the end as the last byte */
            snprintf(err, errlen, "%s:%d: truncated JSON (ends before the document closes)", name, line);
        else
            snprintf(err, errlen, "%s:%d: invalid JSON near byte %zu", name, line, off);
        cJSON_Delete(j);
        return NULL;
    }
    if (depth_of(j) > JSON_MAX_DEPTH) {
        snprintf(err, errlen, "%s: nested deeper than %d levels", name, JSON_MAX_DEPTH);
        cJSON_Delete(j);
        return NULL;
    }
    return j;
}

cJSON *json_load(const char *path, size_t max_bytes, char *err, size_t errlen)
{
    char *text;
    size_t n;
    if (fs_read_file(path, max_bytes, &text, &n, err, errlen) != 0)
        return NULL;
    cJSON *j = json_parse(path, text, n, err, errlen);
    free(text);
    return j;
}

int json_save(const char *path, const cJSON *j, char *err, size_t errlen)
{
    char *text = cJSON_Print(j);
    if (!text) {
        snprintf(err, errlen, "%s: cannot serialise JSON (out of memory)", path);
        return -1;
    }
    size_t n = strlen(text);
    char *withnl = xmalloc(n + 2);
    memcpy(withnl, text, n);
    withnl[n] = '\n';
    withnl[n + 1] = '\0';
    cJSON_free(text);
    int rc = fs_write_atomic(path, withnl, n + 1, err, errlen);
    free(withnl);
    return rc;
}

double json_num(const cJSON *obj, const char *key, double fallback)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    return cJSON_IsNumber(v) ? v->valuedouble : fallback;
}

const char *json_str(const cJSON *obj, const char *key, const char *fallback)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    return cJSON_IsString(v) ? v->valuestring : fallback;
}
