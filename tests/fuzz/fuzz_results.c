/* fuzz_results.c: libFuzzer target for the results loader. Bytes -> json_parse (size, depth,
 * truncated, invalid) -> results_check (schema, version, top-level types); a document that
 * passes goes into a Lua state (lua_push_json_protected) and through report.check, the shape
 * the sections read. Findings: a crash or sanitizer report anywhere; report.check raising
 * instead of answering; with FUZZ_RENDER=1, a document report.check accepts that a section
 * then fails on with a Lua error (render must be robust to anything the check lets through). */
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[2048];
    if (!L)
        L = fuzz_lua_state("fuzz_results", "sparkreport.report", "report", &render, pdf_path, sizeof pdf_path);
    if (size > SR_RESULTS_MAX_BYTES)
        return 0;
    cJSON *r = json_parse("fuzz.json", (const char *)data, size, err, sizeof err);
    if (!r)
        return 0;
    if (results_check(r, "fuzz.json", err, sizeof err) != 0) {
        cJSON_Delete(r);
        return 0;
    }
    int top = lua_gettop(L);
    lua_getglobal(L, "report");
    lua_getfield(L, -1, "check");
    if (lua_push_json_protected(L, r, err, sizeof err) != 0) {      /* only past the memory ceiling */
        lua_settop(L, top);
        cJSON_Delete(r);
        return 0;
    }
    if (sr_lua_pcall(L, 1, 2, err, sizeof err, NULL) != 0) {
        fprintf(stderr, "report.check raised instead of answering: %s\n", err);
        abort();
    }
    int ok = lua_toboolean(L, -2);
    lua_settop(L, top);
    if (ok && render && draw_results(r, pdf_path, NULL, NULL, err, sizeof err) != 0 && strstr(err, ".lua:")) {
        fprintf(stderr, "report.check accepted a document a section cannot draw: %s\n", err);
        abort();
    }
    lua_gc(L, LUA_GCCOLLECT);
    cJSON_Delete(r);
    return 0;
}
