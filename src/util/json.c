/* json.c: reading and writing JSON files. cJSON does the parsing; this file adds the limits
 * (size, depth) and the messages a user can act on. */
#include "util/json.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "util/fsutil.h"

long json_utf8_invalid(const char *text, size_t n)
{
    const unsigned char *s = (const unsigned char *)text;
    for (size_t i = 0; i < n;) {
        unsigned c = s[i], cp, min;
        size_t len;
        if (c < 0x80) {
            i++;
            continue;
        }
        if (c >= 0xC2 && c <= 0xDF)
            len = 2, cp = c & 0x1F, min = 0x80;
        else if (c >= 0xE0 && c <= 0xEF)
            len = 3, cp = c & 0x0F, min = 0x800;
        else if (c >= 0xF0 && c <= 0xF4)
            len = 4, cp = c & 0x07, min = 0x10000;
        else
            return (long)i;
        if (n - i < len)
            return (long)i;
        for (size_t k = 1; k < len; k++) {
            if ((s[i + k] & 0xC0) != 0x80)
                return (long)i;
            cp = (cp << 6) | (s[i + k] & 0x3Fu);
        }
        if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
            return (long)i;
        i += len;
    }
    return -1;
}

/* ---- what a parsed document must also be: finite numbers, unique keys, UTF-8 text ---- */

struct walk {
    char path[512];         /* where the walk is: "experiments[1].results[2]" */
    char *err;
    size_t errlen;
    const char *name;
};

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The first key that occurs twice in object o, or NULL; "" when out of memory. */
static const char *duplicate_key(const cJSON *o)
{
    size_t n = 0, i = 0;
    for (const cJSON *c = o->child; c; c = c->next)
        n++;
    if (n < 2)
        return NULL;
    const char **keys = malloc(n * sizeof *keys), *dup = NULL;
    if (!keys)
        return "";
    for (const cJSON *c = o->child; c; c = c->next)
        keys[i++] = c->string ? c->string : "";
    qsort(keys, n, sizeof *keys, cmp_str);
    for (i = 1; i < n && !dup; i++)
        if (strcmp(keys[i - 1], keys[i]) == 0)
            dup = keys[i];
    free(keys);
    return dup;
}

static int walk_fail(struct walk *w, const char *fmt, const char *arg)
{
    char what[400];
    snprintf(what, sizeof what, fmt, arg);
    snprintf(w->err, w->errlen, "%s: %s%s%s", w->name, w->path[0] ? w->path : "", w->path[0] ? " " : "", what);
    return -1;
}

static int walk_value(struct walk *w, const cJSON *j, int depth);

static int walk_children(struct walk *w, const cJSON *j, int depth)
{
    size_t len = strlen(w->path);
    int i = 1;
    for (const cJSON *c = j->child; c; c = c->next, i++) {
        if (cJSON_IsObject(j) && c->string && json_utf8_invalid(c->string, strlen(c->string)) >= 0)
            return walk_fail(w, "has a key that is not valid UTF-8%s", "");
        if (cJSON_IsObject(j))
            snprintf(w->path + len, sizeof w->path - len, "%s%.100s", len ? "." : "", c->string ? c->string : "");
        else
            snprintf(w->path + len, sizeof w->path - len, "[%d]", i);
        if (walk_value(w, c, depth + 1) != 0)
            return -1;
        w->path[len] = '\0';
    }
    return 0;
}

static int walk_value(struct walk *w, const cJSON *j, int depth)
{
    if (cJSON_IsNumber(j) && !isfinite(j->valuedouble))
        return walk_fail(w, "is not a finite number (it overflows a double, or is infinity or NaN)%s", "");
    if (cJSON_IsString(j) && json_utf8_invalid(j->valuestring, strlen(j->valuestring)) >= 0) {
        char at[64];
        long off = json_utf8_invalid(j->valuestring, strlen(j->valuestring));
        snprintf(at, sizeof at, "byte 0x%02X at offset %ld", (unsigned char)j->valuestring[off], off);
        return walk_fail(w, "is not valid UTF-8 (%s)", at);
    }
    if (!cJSON_IsArray(j) && !cJSON_IsObject(j))
        return 0;
    if (depth > JSON_MAX_DEPTH) {
        snprintf(w->err, w->errlen, "%s: nested deeper than %d levels", w->name, JSON_MAX_DEPTH);
        return -1;
    }
    const char *dup = cJSON_IsObject(j) ? duplicate_key(j) : NULL;
    if (dup && !*dup) {
        snprintf(w->err, w->errlen, "%s: out of memory while reading it", w->name);
        errno = ENOMEM;
        return -1;
    }
    if (dup)
        return walk_fail(w, "has the key '%.100s' twice", dup);
    return walk_children(w, j, depth);
}

int json_check(const char *name, const cJSON *j, char *err, size_t errlen)
{
    struct walk w = { .err = err, .errlen = errlen, .name = name };
    errno = 0;
    return walk_value(&w, j, 1);
}

/* cJSON says only "NULL" when malloc fails; this notes that it did, so that running out of
 * memory is reported as such, not as invalid JSON. */
static int json_oom;

static void *counting_malloc(size_t n)
{
    void *p = malloc(n);
    if (!p)
        json_oom = 1;
    return p;
}

static void hooks_once(void)
{
    static int done;
    if (!done++) {
        cJSON_Hooks h = { counting_malloc, free };
        cJSON_InitHooks(&h);
    }
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

/* The offset of the first \u0000 escape inside a string of text[0..n), or -1: cJSON would keep
 * the string only up to it, silently. */
static long escaped_nul(const char *text, size_t n)
{
    int in_string = 0;
    for (size_t i = 0; i < n; i++) {
        if (!in_string) {
            in_string = text[i] == '"';
        } else if (text[i] == '"') {
            in_string = 0;
        } else if (text[i] == '\\') {
            if (i + 5 < n && text[i + 1] == 'u' && strncmp(text + i + 2, "0000", 4) == 0)
                return (long)i;
            i++;
        }
    }
    return -1;
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
    long nul = escaped_nul(text, n);
    if (nul >= 0) {
        int line = 1;
        for (long i = 0; i < nul; i++)
            line += text[i] == '\n';
        snprintf(err, errlen, "%s:%d: a string holds \\u0000 (a NUL), which would cut it there (byte %ld)", name, line,
                 nul);
        errno = EINVAL;
        return NULL;
    }
    const char *end = NULL;
    hooks_once();
    json_oom = 0;
    cJSON *j = cJSON_ParseWithLengthOpts(text, n, &end, 0);
    if (json_oom) {
        snprintf(err, errlen, "%s: out of memory while reading it (%zu bytes of JSON)", name, n);
        cJSON_Delete(j);
        errno = ENOMEM;
        return NULL;
    }
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
        errno = EINVAL;
        return NULL;
    }
    if (json_check(name, j, err, errlen) != 0) {
        if (errno != ENOMEM)
            errno = EINVAL;
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
    if (json_check(path, j, err, errlen) != 0)      /* never a file that is not JSON */
        return -1;
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
