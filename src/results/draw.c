/* draw.c: draws a results document into a PDF through the embedded Lua report: checks its
 * shape (report.check), runs the template it names, and saves the document atomically. What
 * a page shows is the templates' and sections'; how it is drawn is src/report's. */
#include "results/draw.h"

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
    const char *text, *fonts = getenv("SPARKREPORT_FONT_DIR");
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
    return 0;
}

/* Whether the report's font encoding draws the character utf8[0..len) (not as a '?' stand-in). */
static int drawable(const char *utf8, size_t len)
{
    char one[8], out[16];
    memcpy(one, utf8, len);
    one[len] = '\0';
    pdf_utf8_to_cp1252(one, out, sizeof out);
    return !(strcmp(out, "?") == 0 && strcmp(one, "?") != 0) && !((unsigned char)one[0] < 0x20 || one[0] == 0x7F);
}

int draw_check_text(const char *what, const char *utf8, size_t max_chars, char *err, size_t errlen)
{
    size_t n = strlen(utf8), chars = 0;
    long bad = json_utf8_invalid(utf8, n);
    if (bad >= 0) {
        snprintf(err, errlen, "%s is not valid UTF-8 (byte 0x%02X at offset %ld)", what, (unsigned char)utf8[bad], bad);
        return -1;
    }
    for (size_t i = 0; i < n; chars++) {
        unsigned char c = (unsigned char)utf8[i];
        size_t len = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
        if (!drawable(utf8 + i, len)) {
            snprintf(err, errlen, "%s: character %zu ('%.*s') cannot be drawn in the report's font encoding "
                     "(CP1252, Western European)", what, chars + 1, c < 0x20 || c == 0x7F ? 0 : (int)len, utf8 + i);
            return -1;
        }
        i += len;
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

/* Draws results into doc through the template the results name, after checking that they
 * have the shape the templates read. */
static int draw(struct pdf_doc *doc, const cJSON *results, char *err, size_t errlen)
{
    lua_State *L = sr_lua_new(SR_LUA_MEM_LIMIT);
    sr_lua_limit_time(L, SR_LUA_TIME_S);
    int rc = sr_lua_require(L, "sparkreport.report", err, errlen);
    if (rc == 0 && lua_push_json_protected(L, results, err, errlen) != 0) {
        char why[512];
        snprintf(why, sizeof why, "%s", err);
        snprintf(err, errlen, "too large to draw: %s", why);
        rc = DRAW_INVALID;
    }
    if (rc == 0)
        rc = check_shape(L, err, errlen);
    if (rc == 0) {                      /* [report, results] */
        lpdf_push_doc(L, doc);          /* kept at 3, to detach it after */
        lua_getfield(L, 1, "render");
        lua_pushvalue(L, 3);
        lua_pushvalue(L, 2);
        rc = sr_lua_pcall(L, 2, 0, err, errlen, NULL);
        lpdf_detach(L, 3);
    }
    sr_lua_close(L);
    return rc;
}

int draw_results(const cJSON *results, const char *pdf_path, char *err, size_t errlen)
{
    int bad = draw_precheck(results, err, errlen);
    if (bad != 0)
        return bad;
    if (draw_check_env(err, errlen) != 0 || fs_check_output(pdf_path, 0, err, errlen) != 0)
        return -1;
    struct pdf_doc *doc = pdf_doc_new(font_dir(), err, errlen);
    if (!doc)
        return -1;
    const cJSON *scn = cJSON_GetObjectItemCaseSensitive(results, "scenario");
    pdf_doc_info(doc, json_str(results, "title", json_str(scn, "title", "sparkreport")),   /* comparisons: their own */
                 json_str(results, "subject", "sparkreport measurement report"), report_date(results));
    int rc = draw(doc, results, err, errlen), fd;
    char *tmp = rc == 0 ? fs_temp_create(pdf_path, &fd, err, errlen) : NULL;
    if (tmp) {
        close(fd);
        rc = pdf_doc_save(doc, tmp, err, errlen);
        if (rc != 0) {
            char why[1024];             /* name the file the user asked for, not the temporary */
            const char *colon = strstr(err, ": ");
            snprintf(why, sizeof why, "%s", colon ? colon + 2 : err);
            snprintf(err, errlen, "%s: cannot write: %s", pdf_path, why);
            fs_temp_discard(tmp);
        } else {
            rc = fs_temp_commit(tmp, pdf_path, err, errlen);
        }
        free(tmp);
    } else if (rc == 0) {
        rc = -1;
    }
    pdf_doc_free(doc);
    return rc;
}
