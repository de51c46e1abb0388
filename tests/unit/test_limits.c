/* test_limits.c: the limits of the Lua states: time outside measurements (an endless loop
 * ends with FILE:LINE, even one that catches the error; time in measurements does not count),
 * the memory ceiling (FILE:LINE of the allocation refused), Lua's stack bound, what a
 * scenario's state refuses, the wall-clock deadline, every error shape as FILE:LINE, and the
 * ceiling and cycle guard of what is copied out of Lua. */
#include <stdlib.h>
#include <time.h>

#include <lauxlib.h>

#include "check.h"
#include "lua/convert.h"
#include "lua/state.h"
#include "util/timing.h"

static int run(lua_State *L, const char *code, char *err, size_t errlen)
{
    if (luaL_loadbufferx(L, code, strlen(code), "=test.lua", "t") != LUA_OK) {
        snprintf(err, errlen, "%s", lua_tostring(L, -1));
        lua_pop(L, 1);
        return -1;
    }
    return sr_lua_pcall(L, 0, 0, err, errlen, NULL);
}

static void time_limit(void)
{
    char err[512];
    lua_State *L = sr_lua_new(SR_LUA_MEM_LIMIT);
    sr_lua_limit_time(L, 0.2);
    double t0 = timing_now();
    EXPECT(run(L, "local n = 0\nwhile true do n = n + 1 end", err, sizeof err) == -1);
    EXPECT_STR(err, "test.lua:2: Lua code ran for more than 0.2 s of processor time (the limit outside measurements): "
               "an endless loop?");
    EXPECT(timing_now() - t0 < 1.0);
    sr_lua_close(L);

    /* catching the error and looping on does not outlast it */
    L = sr_lua_new(SR_LUA_MEM_LIMIT);
    sr_lua_limit_time(L, 0.2);
    EXPECT(run(L, "while true do pcall(function() while true do end end) end", err, sizeof err) == -1);
    EXPECT(strstr(err, "ran for more than 0.2 s") != NULL);
    sr_lua_close(L);

    /* nor does a coroutine */
    L = sr_lua_new(SR_LUA_MEM_LIMIT);
    sr_lua_limit_time(L, 0.2);
    EXPECT(run(L, "while true do coroutine.wrap(function() for i = 1, 1e6 do end end)() end", err, sizeof err) == -1);
    EXPECT(strstr(err, "ran for more than 0.2 s") != NULL);
    sr_lua_close(L);

    /* time while the clock is paused (a measurement) does not count */
    L = sr_lua_new(SR_LUA_MEM_LIMIT);
    sr_lua_limit_time(L, 0.2);
    sr_lua_pause_clock(L);
    struct timespec ts = { 0, 300000000 };
    nanosleep(&ts, NULL);
    sr_lua_resume_clock(L);
    EXPECT(run(L, "for i = 1, 1e5 do end", err, sizeof err) == 0);
    sr_lua_close(L);
}

static void memory_and_stack(void)
{
    char err[512];
    lua_State *L = sr_lua_new((size_t)8 << 20);
    EXPECT(run(L, "local t = {}\nfor i = 1, 1e9 do t[i] = ('x'):rep(100) .. i end", err, sizeof err) == -1);
    EXPECT_STR(err, "test.lua:2: not enough memory: Lua code may hold at most 8 MiB");
    /* the state is still usable after the error */
    EXPECT(run(L, "local x = 1 + 1", err, sizeof err) == 0);
    sr_lua_close(L);

    L = sr_lua_new(SR_LUA_MEM_LIMIT);
    EXPECT(run(L, "local function f() return 1 + f() end\nf()", err, sizeof err) == -1);
    EXPECT_STR(err, "test.lua:1: stack overflow");
    EXPECT(run(L, "local function f() return pcall(f) end\nf()", err, sizeof err) == 0);  /* C stack: bounded, caught */
    sr_lua_close(L);
}

static void scenario_state(void)
{
    char err[512];
    lua_State *L = sr_lua_new(SR_LUA_SCENARIO_MEM_LIMIT);
    EXPECT(!sr_lua_is_scenario(L));
    sr_lua_scenario_mode(L, 5);
    EXPECT(sr_lua_is_scenario(L));
    EXPECT(run(L, "require('bench').run('bandwidth', {}, 1)", err, sizeof err) == -1);
    EXPECT_STR(err, "test.lua:1: bench.run is not available in a scenario: experiments run after the scenario "
                    "returns them (write sr.bandwidth { ... })");
    sr_lua_close(L);
}

/* The wall-clock deadline ends Lua code the processor-time limit would let run (here: time
 * spent asleep would not count; a loop stands in for it with a long processor-time limit). */
static void deadline(void)
{
    char err[512];
    lua_State *L = sr_lua_new(SR_LUA_SCENARIO_MEM_LIMIT);
    sr_lua_scenario_mode(L, 100);
    sr_lua_deadline(L, 0.3, "test.lua", 3);
    double t0 = timing_now();
    EXPECT(run(L, "local n = 0\nwhile true do n = n + 1 end", err, sizeof err) == -1);
    EXPECT_STR(err, "test.lua:2: the scenario ran for more than 0.3 s of wall-clock time (its deadline): an endless loop?");
    EXPECT(timing_now() - t0 < 5.0);                /* the hook looks every 1000 instructions */
    sr_lua_close(L);       /* the watcher ends with the state: no exit later */
}

/* Every error shape is one line FILE:LINE: message, at the user's code. */
static void error_shapes(void)
{
    static const char *const cases[][2] = {
        { "error(nil)", "test.lua:1: error object is a nil value" },
        { "error({})", "test.lua:1: error object is a table value" },
        { "error(setmetatable({}, { __tostring = error }))", "test.lua:1: error object is a table value" },
        { "error(setmetatable({}, { __tostring = function() return 'mine' end }))", "test.lua:1: mine" },
        { "error(42)", "test.lua:1: 42" },
        { "\nerror('plain', 0)", "test.lua:2: plain" },
        { "local function f() return (('x'):gsub('.', f)) end\nf()", "test.lua:1: C stack overflow" },
        { "require('sparkreport').bandwidth { kernal = 1 }", "test.lua:1: bandwidth: unknown parameter 'kernal'{*}" },
    };
    char err[1024];
    lua_State *L = sr_lua_new(SR_LUA_SCENARIO_MEM_LIMIT);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        EXPECT(run(L, cases[i][0], err, sizeof err) == -1);
        const char *star = strstr(cases[i][1], "{*}");
        if (star)
            EXPECT(strncmp(err, cases[i][1], (size_t)(star - cases[i][1])) == 0);
        else
            EXPECT_STR(err, cases[i][1]);
    }
    sr_lua_close(L);
}

/* What is copied out of Lua is counted as copied, against the state's ceiling; cycles are
 * errors, a table met twice elsewhere is copied twice. */
static void copy_limits(void)
{
    char err[512];
    lua_State *L = sr_lua_new((size_t)8 << 20);
    EXPECT(run(L, "row = {} for i = 1, 100 do row[i] = ('x'):rep(1000) end\n"
                  "many = {} for i = 1, 1000 do many[i] = row end", err, sizeof err) == 0);
    lua_getglobal(L, "many");
    EXPECT(lua_to_json(L, -1, "value", err, sizeof err) == NULL);
    EXPECT_STR(err, "value: more than 8 MiB once copied out of Lua, the most a copy may hold (a table referenced "
                    "from several places is copied once for each)");
    EXPECT(run(L, "t = { a = {} } t.a.b = t\ntwice = { row, row }", err, sizeof err) == 0);
    lua_getglobal(L, "t");
    EXPECT(lua_to_json(L, -1, "value", err, sizeof err) == NULL);
    EXPECT_STR(err, "value.a.b: a table that contains itself cannot be stored as data");
    lua_getglobal(L, "twice");
    cJSON *j = lua_to_json(L, -1, "value", err, sizeof err);
    EXPECT(j && cJSON_GetArraySize(j) == 2 && cJSON_GetArraySize(cJSON_GetArrayItem(j, 1)) == 100);
    cJSON_Delete(j);
    EXPECT(run(L, "both = { [1] = 'n', ['1'] = 's' }", err, sizeof err) == 0);
    lua_getglobal(L, "both");
    EXPECT(lua_to_json(L, -1, "value", err, sizeof err) == NULL);
    EXPECT_STR(err, "value: the key '1' is there both as a number and as a string");
    lua_pop(L, 4);
    sr_lua_close(L);
}

int main(void)
{
    time_limit();
    memory_and_stack();
    scenario_state();
    deadline();
    error_shapes();
    copy_limits();
    return CHECK_DONE();
}
