/* render.c: draws a results document into a PDF through the embedded Lua report: checks its
 * shape (report.check), runs the template it names, and saves the document atomically. What
 * a page shows is the templates' and sections'; how it is drawn is src/report's. */
#include "results/render.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <lauxlib.h>

#include "config.h"
#include "lua/convert.h"
#include "lua/modules.h"
#include "lua/state.h"
#include "report/report.h"
#include "util/fsutil.h"
#include "util/json.h"

static time_t report_date(const cJSON *results)
{
    const char *sde = getenv("SOURCE_DATE_EPOCH");
    char *end;
    if (sde && *sde) {
        long long v = strtoll(sde, &end, 10);
        if (*end == '\0' && v >= 0)
            return (time_t)v;
    }
    double f = json_num(results, "finished_epoch", 0);
    return (time_t)(f > 0 ? f : 0);
}

static const char *font_dir(void)
{
    const char *d = getenv("SPARKREPORT_FONT_DIR");
    return d && *d ? d : SR_FONT_DIR;
}

/* report.check(results): 0, or RENDER_INVALID with err = "PATH.IN.DOCUMENT: reason".
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
    return ok ? 0 : RENDER_INVALID;
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
        rc = RENDER_INVALID;
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

int render_results(const cJSON *results, const char *pdf_path, char *err, size_t errlen)
{
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
