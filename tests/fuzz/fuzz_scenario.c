/* fuzz_scenario.c: libFuzzer target for a scenario file through the sandboxed loader, as
 * `sparkreport run` takes it: runner.load in a scenario state (time limit, memory ceiling,
 * no measuring), the value it returns converted to JSON, and runner.prepare checking it again
 * in a second state. Nothing is measured or written. Findings: a crash, a sanitizer report or
 * a Lua panic; an error message that is not one line; a prepared scenario that cannot be
 * converted back to data. A string pattern that backtracks for hours would show as a
 * libFuzzer timeout, and so would a __gc finalizer that never returns: in sparkreport the
 * watchdog and the wall-clock deadline end them by exiting the process, which cannot be armed
 * here, so the harness refuses both instead (fuzz_guard.h; a Lua error, like any other). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>

#include "fuzz_guard.h"
#include "lua/convert.h"
#include "lua/state.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static cJSON *load(const char *source, size_t size)
{
    char err[2048];
    cJSON *scn = NULL;
    lua_State *S = sr_lua_new(SR_LUA_SCENARIO_MEM_LIMIT);
    sr_lua_scenario_mode(S, 0.25);
    if (luaL_loadstring(S, fuzz_guard) != LUA_OK || sr_lua_pcall(S, 0, 0, err, sizeof err, NULL) != 0
        || sr_lua_require(S, "sparkreport.runner", err, sizeof err) != 0) {
        fprintf(stderr, "fuzz_scenario: %s\n", err);
        abort();
    }
    lua_getfield(S, -1, "load");
    lua_pushlstring(S, source, size);
    lua_pushstring(S, "fuzz.lua");
    if (sr_lua_pcall(S, 2, 1, err, sizeof err, NULL) != 0)
        fuzz_one_line(err);
    else if (!(scn = lua_to_json_protected(S, -1, "scenario", err, sizeof err)))
        fuzz_one_line(err);
    sr_lua_close(S);
    return scn;
}

static void prepare(const cJSON *scn)
{
    char err[2048];
    lua_State *L = sr_lua_new(SR_LUA_MEM_LIMIT);
    sr_lua_limit_time(L, 10.0);
    if (sr_lua_require(L, "sparkreport.runner", err, sizeof err) != 0)
        abort();
    lua_getfield(L, -1, "prepare");
    if (lua_push_json_protected(L, scn, err, sizeof err) != 0)
        abort();
    lua_pushstring(L, "fuzz.lua");
    if (sr_lua_pcall(L, 2, 1, err, sizeof err, NULL) != 0) {
        fuzz_one_line(err);
    } else {
        cJSON *back = lua_to_json_protected(L, -1, "prepared", err, sizeof err);
        if (!back) {
            fprintf(stderr, "a prepared scenario is not data: %s\n", err);
            abort();
        }
        cJSON_Delete(back);
    }
    sr_lua_close(L);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 65536)
        return 0;
    cJSON *scn = load((const char *)data, size);
    if (scn)
        prepare(scn);
    cJSON_Delete(scn);
    return 0;
}
