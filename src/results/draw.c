/* draw.c: draws a results document into a PDF through the embedded Lua report: checks its
 * shape (report.check), runs the template it names, and saves the document atomically. What
 * a page shows is the templates' and sections'; how it is drawn is src/report's. */
#include "results/draw.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include <lauxlib.h>

#include "config.h"
#include "lua/convert.h"
#include "lua/modules.h"
#include "lua/state.h"
#include "report/report.h"
#include "results/load.h"
#include "util/fsutil.h"
#include "util/json.h"

/* SOURCE_DATE_EPOCH's value, or -1 when unset; -2 when it is not a time a PDF can hold. */
static long long source_date_epoch(const char **text)
{
    const char *sde = getenv("SOURCE_DATE_EPOCH");
    *text = sde;
    if (!sde || !*sde)
        return -1;
    if (strspn(sde, "0123456789") != strlen(sde) || strlen(sde) > 12)
        return -2;
    long long v = strtoll(sde, NULL, 10);
    return v <= (long long)SR_EPOCH_MAX ? v : -2;
}

static time_t report_date(const cJSON *results)
{
    const char *text;
    long long v = source_date_epoch(&text);
    if (v >= 0)
        return (time_t)v;
    double f = json_num(results, "finished_epoch", 0);
    return (time_t)(f > 0 && f <= SR_EPOCH_MAX ? f : 0);
}

int draw_check_env(char *err, size_t errlen)
{
    const char *text, *fonts = getenv("SPARKREPORT_FONT_DIR"), *data = getenv("SPARKREPORT_CATALOG_DIR");
    struct stat st;
    if (source_date_epoch(&text) == -2) {
        snprintf(err, errlen, "SOURCE_DATE_EPOCH=%.64s%s: must be a whole number of seconds from 0 to %.0f "
                 "(1970 to the end of 9999)", text, strlen(text) > 64 ? "..." : "", SR_EPOCH_MAX);
        return -1;
    }
    if (fonts && *fonts && (stat(fonts, &st) != 0 || !S_ISDIR(st.st_mode))) {
        snprintf(err, errlen, "SPARKREPORT_FONT_DIR=%.512s: not a folder", fonts);
        return -1;
    }
    if (data && *data && (stat(data, &st) != 0 || !S_ISDIR(st.st_mode))) {     /* bench.resource's */
        snprintf(err, errlen, "SPARKREPORT_CATALOG_DIR=%.512s: not a folder", data);
        return -1;
    }
    return 0;
}

int draw_check_text(const char *what, const char *utf8, size_t max_chars, char *err, size_t errlen)
{
    size_t n = strlen(utf8), chars = 0;
    long bad = json_utf8_invalid(utf8, n);
    char why[512];
    if (bad >= 0) {
        snprintf(err, errlen, "%s is not valid UTF-8 (byte 0x%02X at offset %ld)", what, (unsigned char)utf8[bad], bad);
        return -1;
    }
    if (pdf_text_check(utf8, &chars, why, sizeof why) != 0) {
        snprintf(err, errlen, "%s: character %zu %s", what, chars, why);
        return -1;
    }
    if (chars > max_chars) {
        snprintf(err, errlen, "%s is %zu characters long; at most %zu fit the report", what, chars, max_chars);
        return -1;
    }
    return 0;
}

/* The document's title (DRAW_TITLE_MAX); DRAW_INVALID with err. */
static int draw_precheck(const cJSON *results, char *err, size_t errlen)
{
    const cJSON *title = cJSON_GetObjectItemCaseSensitive(results, "title");
    const char *name = "title";                 /* a comparison's own, else the scenario's */
    if (!title) {
        title = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(results, "scenario"), "title");
        name = "scenario.title";
    }
    if (title && !cJSON_IsString(title)) {
        snprintf(err, errlen, "%s must be a string", name);
        return DRAW_INVALID;
    }
    size_t max = name[0] == 't' ? DRAW_TITLE_MAX + 32 : DRAW_TITLE_MAX;   /* "Regression report: " + it */
    if (title && draw_check_text(name, title->valuestring, max, err, errlen) != 0)
        return DRAW_INVALID;
    return 0;
}

static const char *font_dir(void)
{
    const char *d = getenv("SPARKREPORT_FONT_DIR");
    return d && *d ? d : SR_FONT_DIR;
}

int draw_check_fonts(char *err, size_t errlen)
{
    return pdf_fonts_check(font_dir(), err, errlen);
}

/* report.check(results): 0, or DRAW_INVALID with err = "PATH.IN.DOCUMENT: reason".
 * Stack: [report, results] on entry and exit. */
static int check_shape(lua_State *L, char *err, size_t errlen)
{
    lua_getfield(L, 1, "check");
    lua_pushvalue(L, 2);
    if (sr_lua_pcall(L, 1, 2, err, errlen, NULL) != 0)
        return -1;
    int ok = lua_toboolean(L, -2);
    if (!ok)
        snprintf(err, errlen, "%s", lua_isstring(L, -1) ? lua_tostring(L, -1) : "invalid results");
    lua_pop(L, 2);
    return ok ? 0 : DRAW_INVALID;
}

/* The documents the results' template draws (report.documents), in drawing order, as names
 * ("annex", "report"): at most DRAW_DOCS. Stack: [report, results] on entry and exit. */
#define DRAW_DOCS 4
static int documents(lua_State *L, char names[DRAW_DOCS][16], char *err, size_t errlen)
{
    int n = 0;
    lua_getfield(L, 1, "documents");
    lua_pushvalue(L, 2);
    if (sr_lua_pcall(L, 1, 1, err, errlen, NULL) != 0)
        return -1;
    for (int i = 1; i <= DRAW_DOCS && lua_rawgeti(L, -1, i) == LUA_TSTRING; i++, n++) {
        snprintf(names[n], sizeof names[n], "%s", lua_tostring(L, -1));
        lua_pop(L, 1);
    }
    lua_pop(L, 2);
    return n;
}

/* Draws document `name` of the results (report.render) into a new PDF saved at tmp. Stack: [report,
 * results] on entry and exit. */
static int draw_one(lua_State *L, const cJSON *results, const char *name, const char *tmp, const char *path,
                    FILE *log, char *err, size_t errlen)
{
    struct pdf_doc *doc = pdf_doc_new(font_dir(), err, errlen);
    if (!doc)
        return -1;
    const cJSON *scn = cJSON_GetObjectItemCaseSensitive(results, "scenario");
    int annex = strcmp(name, "annex") == 0;
    pdf_doc_info(doc, json_str(results, "title", json_str(scn, "title", "sparkreport")),   /* comparisons: their own */
                 json_str(results, "subject", annex ? "sparkreport technical annex: the machine that ran the report"
                          : "sparkreport decision report"), report_date(results));
    pdf_doc_log(doc, log);
    lpdf_push_doc(L, doc);              /* at 3, to detach it after */
    lua_getfield(L, 1, "render");
    lua_pushvalue(L, 3);
    lua_pushvalue(L, 2);
    lua_pushstring(L, name);
    int rc = sr_lua_pcall(L, 3, 0, err, errlen, NULL);
    lpdf_detach(L, 3);
    lua_pop(L, 1);
    if (rc == 0 && (rc = pdf_doc_save(doc, tmp, err, errlen)) != 0) {
        char why[1024];
        const char *colon = strstr(err, ": ");
        snprintf(why, sizeof why, "%s", colon ? colon + 2 : err);
        snprintf(err, errlen, "%s: cannot write: %s", path, why);   /* the file asked for, not the temporary */
    }
    pdf_doc_free(doc);
    return rc;
}

/* SPARKREPORT_LAYOUT_LOG: a file the layout's decisions are appended to (pdf_doc_log), for tests. */
static FILE *layout_log(char *err, size_t errlen, int *bad)
{
    const char *path = getenv("SPARKREPORT_LAYOUT_LOG");
    *bad = 0;
    if (!path || !*path)
        return NULL;
    FILE *f = fopen(path, "a");
    if (!f) {
        snprintf(err, errlen, "SPARKREPORT_LAYOUT_LOG=%.512s: cannot open: %s", path, strerror(errno));
        *bad = 1;
    }
    return f;
}

int draw_results(const cJSON *results, const char *pdf_path, const char *annex_path, int *annexed,
                 char *err, size_t errlen)
{
    char names[DRAW_DOCS][16];
    char *tmp[DRAW_DOCS] = { NULL };
    const char *path[DRAW_DOCS] = { NULL };
    int bad = draw_precheck(results, err, errlen), fd, n = 0, rc, logbad;
    if (annexed)
        *annexed = 0;
    if (bad != 0)
        return bad;
    if (draw_check_env(err, errlen) != 0 || fs_check_output(pdf_path, 0, err, errlen) != 0 ||
        (annex_path && fs_check_output(annex_path, 0, err, errlen) != 0))
        return -1;
    FILE *log = layout_log(err, errlen, &logbad);
    if (logbad)
        return -1;
    lua_State *L = sr_lua_new(SR_LUA_MEM_LIMIT);
    sr_lua_limit_time(L, SR_LUA_TIME_S);
    rc = sr_lua_require(L, "sparkreport.report", err, errlen);
    if (rc == 0 && lua_push_json_protected(L, results, err, errlen) != 0) {
        char why[512];
        snprintf(why, sizeof why, "%s", err);
        snprintf(err, errlen, "too large to draw: %s", why);
        rc = DRAW_INVALID;
    }
    if (rc == 0)
        rc = check_shape(L, err, errlen);
    if (rc == 0 && (n = documents(L, names, err, errlen)) < 0)
        rc = -1;
    for (int i = 0; rc == 0 && i < n; i++) {     /* each to a temporary file; all or none is kept */
        path[i] = strcmp(names[i], "annex") == 0 ? annex_path : pdf_path;
        if (!path[i])
            continue;                   /* the caller wants the decision report alone */
        if (log)
            fprintf(log, "document\t%s\t%s\n", names[i], path[i]);
        if (!(tmp[i] = fs_temp_create(path[i], &fd, err, errlen))) {
            rc = -1;
            break;
        }
        close(fd);
        rc = draw_one(L, results, names[i], tmp[i], path[i], log, err, errlen);
    }
    sr_lua_close(L);
    for (int i = 0; i < n; i++) {
        if (!tmp[i])
            continue;
        if (rc == 0) {
            rc = fs_temp_commit(tmp[i], path[i], err, errlen);
            if (rc == 0 && annexed && path[i] == annex_path)
                *annexed = 1;
        } else {
            fs_temp_discard(tmp[i]);
        }
        free(tmp[i]);
    }
    if (log && fclose(log) != 0 && rc == 0) {
        snprintf(err, errlen, "SPARKREPORT_LAYOUT_LOG: cannot write: %s", strerror(errno));
        rc = -1;
    }
    return rc;
}
