/* fuzz_scenario.c: libFuzzer target for a scenario file through the sandboxed loader, as
 * `sparkreport run` takes it: runner.load in a scenario state (time limit, memory ceiling,
 * no measuring), the value it returns converted to JSON, and runner.prepare checking it again
 * in a second state. Nothing is measured or written. Findings: a crash, a sanitizer report or
 * a Lua panic; an error message that is not one line; a prepared scenario that cannot be
 * converted back to data. A string pattern that backtracks for hours would show as a
 * libFuzzer timeout: in sparkreport the watchdog ends it (sr_lua_watchdog) by exiting the
 * process, which cannot be armed here, so the harness refuses pattern calls whose cost bound
 * (subject length ^ (quantifiers + 1)) passes 1e8 instead (a Lua error, like any other). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>

#include "lua/convert.h"
#include "lua/state.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void one_line(const char *err)
{
    if (strchr(err, '\n')) {
        fprintf(stderr, "an error message of more than one line: %s\n", err);
        abort();
    }
}

/* Lua run in the scenario state before the scenario: the pattern guard described above. */
static const char guard[] =
    "local function guard(f)\n"
    "  return function(s, p, ...)\n"
    "    if type(s) == 'string' and type(p) == 'string' and #s > 16 then\n"
    "      local _, q = p:gsub('%%.', ''):gsub('[%*%+%-%?]', '')\n"
    "      if (q + 1) * math.log(#s, 10) > 8 then error('fuzz harness: pattern too costly to run', 2) end\n"
    "    end\n"
    "    return f(s, p, ...)\n"
    "  end\n"
    "end\n"
    "for _, n in ipairs { 'find', 'match', 'gmatch', 'gsub' } do string[n] = guard(string[n]) end\n";

static cJSON *load(const char *source, size_t size)
{
    char err[2048];
    cJSON *scn = NULL;
    lua_State *S = sr_lua_new(SR_LUA_SCENARIO_MEM_LIMIT);
    sr_lua_scenario_mode(S, 0.25);
    if (luaL_loadstring(S, guard) != LUA_OK || sr_lua_pcall(S, 0, 0, err, sizeof err, NULL) != 0
        || sr_lua_require(S, "sparkreport.runner", err, sizeof err) != 0) {
        fprintf(stderr, "fuzz_scenario: %s\n", err);
        abort();
    }
    lua_getfield(S, -1, "load");
    lua_pushlstring(S, source, size);
    lua_pushstring(S, "fuzz.lua");
    if (sr_lua_pcall(S, 2, 1, err, sizeof err, NULL) != 0)
        one_line(err);
    else if (!(scn = lua_to_json_protected(S, -1, "scenario", err, sizeof err)))
        one_line(err);
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
        one_line(err);
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
