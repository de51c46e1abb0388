/* comparison.c: the comparison of two results documents: has sparkreport.compare (Lua) build
 * the comparison document, and for a run with a baseline, finds the baseline and writes
 * comparison.json and comparison.pdf into the run folder. Printing verdicts is the `compare`
 * command's; what counts as a change is decided in Lua and util/mwu.c, not here. */
#include "results/comparison.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <lauxlib.h>

#include "lua/convert.h"
#include "lua/state.h"
#include "results/load.h"
#include "results/draw.h"
#include "util/error.h"
#include "util/fsutil.h"
#include "util/json.h"
#include "util/progress.h"
#include "util/sha256.h"

/* The options table sparkreport.compare.build takes, pushed onto L. */
static void push_opts(lua_State *L, const struct comparison_opts *o, const char *base_path, const char *cur_path)
{
    const char *const paths[][2] = { { "baseline_path", base_path }, { "current_path", cur_path } };
    lua_createtable(L, 0, 4);
    lua_pushnumber(L, o->alpha);
    lua_setfield(L, -2, "alpha");
    lua_pushnumber(L, o->min_change);
    lua_setfield(L, -2, "min_change");
    for (int i = 0; i < 2; i++) {
        lua_pushstring(L, paths[i][1]);
        lua_setfield(L, -2, paths[i][0]);
    }
}

/* Pushes both documents onto L; a document too large for the state is bad input. */
static int push_sides(lua_State *L, const cJSON *base, const char *base_path, const cJSON *cur, const char *cur_path,
                      char *err, size_t errlen)
{
    const cJSON *docs[2] = { base, cur };
    const char *paths[2] = { base_path, cur_path };
    for (int i = 0; i < 2; i++) {
        if (lua_push_json_protected(L, docs[i], err, errlen) != 0) {
            char why[512];
            snprintf(why, sizeof why, "%s", err);
            snprintf(err, errlen, "%s: too large to compare (%s)", paths[i], why);
            return -1;
        }
    }
    return 0;
}

cJSON *comparison_build(const cJSON *base, const char *base_path, const cJSON *cur, const char *cur_path,
                        const struct comparison_opts *o, int *bad_input, char *err, size_t errlen)
{
    lua_State *L = sr_lua_new(SR_LUA_MEM_LIMIT);
    cJSON *out = NULL;
    *bad_input = 0;
    if (sr_lua_require(L, "sparkreport.compare", err, errlen) == 0) {
        lua_getfield(L, -1, "build");
        if (push_sides(L, base, base_path, cur, cur_path, err, errlen) != 0) {
            *bad_input = 1;
        } else {
            push_opts(L, o, base_path, cur_path);
            if (sr_lua_pcall(L, 3, 2, err, errlen, NULL) == 0) {
                if (lua_isnil(L, -2)) {                     /* nil, "PATH: what is wrong" */
                    *bad_input = 1;
                    snprintf(err, errlen, "%s", lua_isstring(L, -1) ? lua_tostring(L, -1) : "invalid results");
                } else {
                    out = lua_to_json(L, -2, "comparison", err, errlen);
                }
            } else if (strstr(err, "not enough memory")) {  /* the documents, not the machine */
                *bad_input = 1;
            }
        }
    }
    sr_lua_close(L);
    return out;
}

int comparison_slower(const cJSON *cmp)
{
    return (int)json_num(cJSON_GetObjectItemCaseSensitive(cmp, "counts"), "slower", 0);
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
    char *p = results_path(where);
    free(where);
    return p;
}

int comparison_baseline_check(const char *want, const char *outdir, char *err, size_t errlen)
{
    char *bp = baseline_path(want, outdir);
    struct stat st;
    int rc = 0;
    if (bp && stat(bp, &st) == 0 && !S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "baseline '%.200s': %.1000s: not a regular file (%s)", want, bp,
                 fs_kind(st.st_mode));
        rc = -1;
    }
    free(bp);
    return rc;
}

/* The block results.json keeps of the comparison (the decision page's sentence reads it): the
 * baseline's path and sha256, its verdicts and the projected rows that moved. */
static cJSON *baseline_block(const cJSON *cmp, const char *shown, const char *bp)
{
    char *data = NULL, hex[65], err[512];
    size_t n;
    const cJSON *counts = cJSON_GetObjectItemCaseSensitive(cmp, "counts"), *r;
    cJSON *b = cJSON_CreateObject(), *moved = cJSON_CreateArray(), *keys = cJSON_CreateArray(), *pj;
    cJSON_AddStringToObject(b, "path", shown);
    if (fs_read_file(bp, SR_RESULTS_MAX_BYTES, &data, &n, err, sizeof err) == 0) {
        sha256_hex(data, n, hex);
        cJSON_AddStringToObject(b, "sha256", hex);
    }
    free(data);
    cJSON_AddStringToObject(b, "finished_utc",
                            json_str(cJSON_GetObjectItemCaseSensitive(cmp, "baseline"), "finished_utc", "?"));
    cJSON_AddStringToObject(b, "summary", json_str(cmp, "summary", ""));
    cJSON_AddNumberToObject(b, "slower", json_num(counts, "slower", 0));
    cJSON_AddNumberToObject(b, "compared", json_num(counts, "compared", 0));
    pj = cJSON_AddObjectToObject(b, "projections");
    const cJSON *rows = cJSON_GetObjectItemCaseSensitive(cmp, "projections");
    cJSON_AddNumberToObject(pj, "compared", cJSON_GetArraySize(rows));
    cJSON_ArrayForEach(r, rows) {
        char key[512];
        snprintf(key, sizeof key, "%s|%s", json_str(r, "workload", "?"), json_str(r, "system", "?"));
        cJSON_AddItemToArray(keys, cJSON_CreateString(key));
        if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "moved"))) {
            cJSON *m = cJSON_Duplicate(r, 1);
            cJSON_DeleteItemFromObjectCaseSensitive(m, "moved");
            cJSON_DeleteItemFromObjectCaseSensitive(m, "experiment");
            cJSON_DeleteItemFromObjectCaseSensitive(m, "system_kind");
            cJSON_AddItemToArray(moved, m);
        }
    }
    cJSON_AddItemToObject(pj, "rows", keys);          /* "workload|system" of every row compared */
    cJSON_AddItemToObject(pj, "moved", moved);
    return b;
}

cJSON *comparison_for_run(cJSON *results, const char *outdir)
{
    char err[2048], real[PATH_MAX];
    const char *want = json_str(cJSON_GetObjectItemCaseSensitive(results, "scenario"), "baseline", "none");
    char *bp = baseline_path(want, outdir);
    cJSON *b = NULL, *cmp = NULL;
    if (!bp)
        return NULL;
    const char *shown = realpath(bp, real) ? real : bp;     /* "latest" moves on; the folder does not */
    const struct comparison_opts o = { COMPARISON_ALPHA, COMPARISON_MIN_CHANGE };
    int bad;
    if (!fs_exists(bp)) {
        progress_note("baseline '%s': %s does not exist, so this run is compared with nothing", want, bp);
    } else if (!(b = results_load(bp, err, sizeof err))
               || !(cmp = comparison_build(b, shown, results, "results.json", &o, &bad, err, sizeof err))) {
        progress_note("baseline '%s': %s; no comparison written", want, err);
    } else {
        progress_note("compared with the baseline %s: %s %s", shown, json_str(cmp, "summary", ""),
                      json_str(cmp, "projection_summary", ""));
        cJSON_DeleteItemFromObjectCaseSensitive(results, "baseline");
        cJSON_AddItemToObject(results, "baseline", baseline_block(cmp, shown, bp));
    }
    cJSON_Delete(b);
    free(bp);
    return cmp;
}

int comparison_write(const char *dir, const cJSON *cmp, char *err, size_t errlen)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/comparison.json", dir);
    if (json_save(path, cmp, err, errlen) != 0)
        return -1;
    snprintf(path, sizeof path, "%s/comparison.pdf", dir);
    return draw_results(cmp, path, NULL, NULL, err, errlen) == 0 ? 0 : -1;
}
