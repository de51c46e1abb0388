/* compare.c: the `compare` command and the comparison a run makes with its scenario's baseline:
 * finds and loads the two results files, has sparkreport.compare (Lua) build the comparison
 * document, prints it (verdict lines or JSON) and draws the regression PDF through the same
 * render path as reports. What counts as a change is decided in Lua and util/mwu.c, not here. */
#include "cmd/compare.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <lauxlib.h>

#include "lua/convert.h"
#include "lua/state.h"
#include "cmd/run.h"
#include "util/error.h"
#include "util/fsutil.h"
#include "util/json.h"
#include "util/progress.h"

#define MAX_LISTED 20           /* not-comparable lines printed before "... and N more" */

char *compare_results_path(const char *arg)
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

cJSON *compare_build(const cJSON *base, const char *base_path, const cJSON *cur, const char *cur_path,
                     const struct compare_opts *o, int *bad_input, char *err, size_t errlen)
{
    lua_State *L = sr_lua_new(SR_LUA_MEM_LIMIT);
    cJSON *out = NULL;
    *bad_input = 0;
    if (sr_lua_require(L, "sparkreport.compare", err, errlen) == 0) {
        lua_getfield(L, -1, "build");
        if (lua_push_json_protected(L, base, err, errlen) == 0 && lua_push_json_protected(L, cur, err, errlen) == 0) {
            lua_createtable(L, 0, 4);
            lua_pushnumber(L, o->alpha);
            lua_setfield(L, -2, "alpha");
            lua_pushnumber(L, o->min_change);
            lua_setfield(L, -2, "min_change");
            lua_pushstring(L, base_path);
            lua_setfield(L, -2, "baseline_path");
            lua_pushstring(L, cur_path);
            lua_setfield(L, -2, "current_path");
            if (sr_lua_pcall(L, 3, 2, err, errlen, NULL) == 0) {
                if (lua_isnil(L, -2)) {                     /* nil, "PATH: what is wrong" */
                    *bad_input = 1;
                    snprintf(err, errlen, "%s", lua_isstring(L, -1) ? lua_tostring(L, -1) : "invalid results");
                } else {
                    out = lua_to_json(L, -2, "comparison", err, errlen);
                }
            }
        }
    }
    sr_lua_close(L);
    return out;
}

static double count_of(const cJSON *cmp, const char *what)
{
    return json_num(cJSON_GetObjectItemCaseSensitive(cmp, "counts"), what, 0);
}

/* The summary, a line per result that is not unchanged, and what could not be compared. */
static void print_verdicts(const cJSON *cmp)
{
    printf("%s\n", json_str(cmp, "summary", ""));
    const cJSON *rs = cJSON_GetObjectItemCaseSensitive(cmp, "results");
    for (const cJSON *r = rs ? rs->child : NULL; r; r = r->next) {
        const char *v = json_str(r, "verdict", "?");
        if (strcmp(v, "unchanged") != 0)
            printf("%-12s %s: %s: median %+.1f %%, p = %.2g\n", v, json_str(r, "experiment", "?"),
                   json_str(r, "label", "?"), 100.0 * json_num(r, "change", NAN), json_num(r, "p", NAN));
    }
    const cJSON *nc = cJSON_GetObjectItemCaseSensitive(cmp, "not_comparable");
    int i = 0, total = cJSON_GetArraySize(nc);
    for (const cJSON *n = nc ? nc->child : NULL; n && i < MAX_LISTED; n = n->next, i++) {
        double count = json_num(n, "count", 1);
        char many[32] = "";
        if (count > 1)
            snprintf(many, sizeof many, " (%.0f)", count);
        printf("%-12s %s: %s%s: %s\n", "incomparable", json_str(n, "experiment", "?"), json_str(n, "label", "?"), many,
               json_str(n, "reason", "?"));
    }
    if (total > MAX_LISTED)
        printf("... and %d more not comparable (see the report)\n", total - MAX_LISTED);
}

int compare_command(const char *baseline, const char *current, const char *pdf_path, int as_json,
                    const struct compare_opts *o)
{
    char err[2048];
    char *bp = compare_results_path(baseline), *cp = compare_results_path(current);
    cJSON *b = results_load(bp, err, sizeof err), *c = b ? results_load(cp, err, sizeof err) : NULL, *cmp = NULL;
    int rc = SR_EXIT_INPUT;
    if (!b || !c) {
        fprintf(stderr, "sparkreport: %s\n", err);
        goto done;
    }
    int bad;
    if (!(cmp = compare_build(b, bp, c, cp, o, &bad, err, sizeof err))) {
        fprintf(stderr, "sparkreport: %s\n", err);
        rc = bad ? SR_EXIT_INPUT : SR_EXIT_FAILURE;
        goto done;
    }
    rc = SR_EXIT_FAILURE;
    const char *out = pdf_path ? pdf_path : as_json ? NULL : "comparison.pdf";
    if (out && render_results(cmp, out, err, sizeof err) != 0) {
        fprintf(stderr, "sparkreport: %s\n", err);
        goto done;
    }
    if (as_json) {
        char *s = cJSON_Print(cmp);
        printf("%s\n", s);
        cJSON_free(s);
    } else {
        print_verdicts(cmp);
        printf("%s\n", out);
    }
    rc = count_of(cmp, "slower") > 0 ? SR_EXIT_SLOWER : SR_EXIT_OK;
done:
    cJSON_Delete(cmp);
    cJSON_Delete(b);
    cJSON_Delete(c);
    free(bp);
    free(cp);
    return rc;
}

/* The baseline's results.json for the scenario's value; NULL for "none". Caller frees. */
static char *baseline_path(const char *want, const char *outdir)
{
    if (!*want || strcmp(want, "none") == 0)
        return NULL;
    size_t n = strlen(outdir) + strlen(want) + 2;
    char *where = xmalloc(n);
    if (strchr(want, '/'))
        snprintf(where, n, "%s", want);
    else
        snprintf(where, n, "%s/%s", outdir, want);
    char *p = compare_results_path(where);
    free(where);
    return p;
}

/* Compares dir/results.json with the baseline at bp and writes the two comparison files;
 * returns the comparison or NULL with err. */
static cJSON *compare_into(const char *dir, const char *bp, char *err, size_t errlen)
{
    char path[4096], real[PATH_MAX];
    const struct compare_opts o = { COMPARE_ALPHA, COMPARE_MIN_CHANGE };
    const char *shown = realpath(bp, real) ? real : bp;     /* "latest" moves on; the folder does not */
    cJSON *b = results_load(bp, err, errlen), *c = NULL, *cmp = NULL;
    int bad;
    snprintf(path, sizeof path, "%s/results.json", dir);
    if (b && (c = results_load(path, err, errlen)))
        cmp = compare_build(b, shown, c, "results.json", &o, &bad, err, errlen);
    cJSON_Delete(b);
    cJSON_Delete(c);
    snprintf(path, sizeof path, "%s/comparison.json", dir);
    if (cmp && json_save(path, cmp, err, errlen) == 0) {
        snprintf(path, sizeof path, "%s/comparison.pdf", dir);
        if (render_results(cmp, path, err, errlen) == 0)
            return cmp;
        snprintf(path, sizeof path, "%s/comparison.json", dir);
        unlink(path);
    }
    cJSON_Delete(cmp);
    return NULL;
}

int compare_after_run(const char *dir, const char *outdir, const cJSON *results, int *written)
{
    char err[2048];
    const char *want = json_str(cJSON_GetObjectItemCaseSensitive(results, "scenario"), "baseline", "none");
    char *bp = baseline_path(want, outdir);
    *written = 0;
    if (!bp)
        return 0;
    int slower = 0;
    cJSON *cmp = NULL;
    if (!fs_exists(bp)) {
        progress_note("baseline '%s': %s does not exist, so this run is compared with nothing", want, bp);
    } else if (!(cmp = compare_into(dir, bp, err, sizeof err))) {
        progress_note("baseline '%s': %s; no comparison written", want, err);
    } else {
        progress_note("compared with the baseline %s: %s", json_str(cJSON_GetObjectItemCaseSensitive(cmp, "baseline"), "path", bp),
                      json_str(cmp, "summary", ""));
        slower = (int)count_of(cmp, "slower");
        *written = 1;
    }
    cJSON_Delete(cmp);
    free(bp);
    return slower;
}
