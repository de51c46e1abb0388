/* test_limits.c: the limits of the Lua states: time outside measurements (an endless loop
 * ends with FILE:LINE, even one that catches the error; time in measurements does not count),
 * the memory ceiling (FILE:LINE of the allocation refused), Lua's stack bound, and what a
 * scenario's state refuses. */
#include <stdlib.h>
#include <time.h>

#include <lauxlib.h>

#include "check.h"
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

int main(void)
{
    time_limit();
    memory_and_stack();
    scenario_state();
    return CHECK_DONE();
}
