/* fuzz_compare.c: libFuzzer target for the compare path. The bytes are two results documents,
 * baseline and current, split at the first NUL byte (no NUL: a document compared with itself).
 * Each goes through json_parse and results_check as `sparkreport compare` loads it; the pair goes
 * through sparkreport.compare.build (the Lua that comparison_build calls) in one long-lived
 * state, and the comparison it returns back to C (lua_to_json) and through json_check, as
 * compare prints and saves it. Findings: a crash or sanitizer report; build raising instead of
 * answering (nil, why); a comparison that is not valid JSON text; with FUZZ_RENDER=1, a comparison
 * the regression template fails on with a Lua error. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <lauxlib.h>

#include "fuzz_lua.h"
#include "lua/convert.h"
#include "lua/state.h"
#include "results/load.h"
#include "results/draw.h"
#include "util/json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static lua_State *L;
static char pdf_path[512];
static int render;

/* A side as `compare` loads it, or NULL when the loader refuses it (an answer, not a finding). */
static cJSON *load(const char *name, const uint8_t *data, size_t size)
{
    char err[2048];
    cJSON *r = json_parse(name, (const char *)data, size, err, sizeof err);
    if (r && results_check(r, name, err, sizeof err) != 0) {
        cJSON_Delete(r);
        r = NULL;
    }
    return r;
}

/* compare.build(b, c, opts) -> the comparison as JSON, or NULL when it answered nil, why. */
static cJSON *build(const cJSON *b, const cJSON *c)
{
    char err[2048];
    int top = lua_gettop(L);
    cJSON *cmp = NULL;
    lua_getglobal(L, "compare");
    lua_getfield(L, -1, "build");
    if (lua_push_json_protected(L, b, err, sizeof err) != 0 || lua_push_json_protected(L, c, err, sizeof err) != 0) {
        lua_settop(L, top);             /* only past the memory ceiling */
        return NULL;
    }
    lua_createtable(L, 0, 4);
    lua_pushstring(L, "baseline.json");
    lua_setfield(L, -2, "baseline_path");
    lua_pushstring(L, "current.json");
    lua_setfield(L, -2, "current_path");
    if (sr_lua_pcall(L, 3, 2, err, sizeof err, NULL) != 0) {
        fprintf(stderr, "compare.build raised instead of answering: %s\n", err);
        abort();
    }
    if (!lua_isnil(L, -2) && !(cmp = lua_to_json(L, -2, "comparison", err, sizeof err))) {
        fprintf(stderr, "the comparison cannot be written as JSON: %s\n", err);
        abort();
    }
    if (cmp && json_check("comparison", cmp, err, sizeof err) != 0) {
        fprintf(stderr, "the comparison is not valid JSON text: %s\n", err);
        abort();
    }
    lua_settop(L, top);
    return cmp;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[2048];
    if (!L)
        L = fuzz_lua_state("fuzz_compare", "sparkreport.compare", "compare", &render, pdf_path, sizeof pdf_path);
    if (size > SR_RESULTS_MAX_BYTES)
        return 0;
    const uint8_t *nul = memchr(data, '\0', size);
    size_t nb = nul ? (size_t)(nul - data) : size;
    cJSON *b = load("baseline.json", data, nb);
    cJSON *c = !b ? NULL : nul ? load("current.json", nul + 1, size - nb - 1) : cJSON_Duplicate(b, 1);
    cJSON *cmp = b && c ? build(b, c) : NULL;
    if (cmp && render && draw_results(cmp, pdf_path, NULL, NULL, err, sizeof err) != 0 && strstr(err, ".lua:")) {
        fprintf(stderr, "the regression report cannot draw a comparison compare.build made: %s\n", err);
        abort();
    }
    cJSON_Delete(cmp);
    cJSON_Delete(b);
    cJSON_Delete(c);
    lua_gc(L, LUA_GCCOLLECT);
    return 0;
}
