/* json.h: JSON files in and out through cJSON: bounded, depth-limited parsing with messages
 * that name the file, line and reason; atomic writing. What the documents mean (the results
 * schema) is checked by their readers. */
#ifndef SR_JSON_H
#define SR_JSON_H

#include <stddef.h>

#include <cjson/cJSON.h>

#define JSON_MAX_DEPTH 64

/* Parses text (n bytes, not necessarily NUL-terminated) named `name` in messages; NULL and a
 * message on failure. */
cJSON *json_parse(const char *name, const char *text, size_t n, char *err, size_t errlen);

/* Reads and parses a file of at most max_bytes. */
cJSON *json_load(const char *path, size_t max_bytes, char *err, size_t errlen);

/* Writes j (indented) to path atomically. */
int json_save(const char *path, const cJSON *j, char *err, size_t errlen);

/* Typed getters that return a fallback when the member is missing or of another type. */
double json_num(const cJSON *obj, const char *key, double fallback);
const char *json_str(const cJSON *obj, const char *key, const char *fallback);

#endif
