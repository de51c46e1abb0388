/* json.h: JSON files in and out through cJSON: bounded, depth-limited parsing with messages
 * that name the file, line and reason; atomic writing. What the documents mean (the results
 * schema) is checked by their readers. */
#ifndef SR_JSON_H
#define SR_JSON_H

#include <stddef.h>

#include <cjson/cJSON.h>

#define JSON_MAX_DEPTH 64

/* Parses text (n bytes, not necessarily NUL-terminated) named `name` in messages; NULL and a
 * message on failure, errno ENOMEM when memory ran out (else EINVAL). Beyond the grammar, a
 * document must pass json_check. */
cJSON *json_parse(const char *name, const char *text, size_t n, char *err, size_t errlen);

/* Reads and parses a file of at most max_bytes. */
cJSON *json_load(const char *path, size_t max_bytes, char *err, size_t errlen);

/* What JSON text must be beyond its grammar, which cJSON lets through: every number finite
 * (1e999 is not), no key twice in one object, every string and key valid UTF-8, at most
 * JSON_MAX_DEPTH levels. -1 with "NAME: PATH.IN.DOC reason". */
int json_check(const char *name, const cJSON *j, char *err, size_t errlen);

/* The offset of the first byte of text[0..n) that is not valid UTF-8 (overlong forms and
 * surrogates included), or -1 when it all is. */
long json_utf8_invalid(const char *text, size_t n);

/* Writes j (indented) to path atomically; refuses (-1) a document json_check refuses. */
int json_save(const char *path, const cJSON *j, char *err, size_t errlen);

/* Typed getters that return a fallback when the member is missing or of another type. */
double json_num(const cJSON *obj, const char *key, double fallback);
const char *json_str(const cJSON *obj, const char *key, const char *fallback);

#endif
