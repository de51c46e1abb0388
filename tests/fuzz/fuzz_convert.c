/* fuzz_convert.c: libFuzzer target for the copy of Lua values into C (lua_to_json, convert.c):
 * the input runs as a Lua chunk in a small sandboxed state (16 MiB, 0.1 s of processor time,
 * fuzz_guard.h) and what it returns is copied with the state's ceiling. Findings: a crash, a
 * sanitizer report or a Lua panic; an error message that is not one line; a copy larger than
 * the ceiling, or with a key twice in an object (keys are sorted, so twice is side by side); a copy that does not come back the same through Lua (lua_push_json, then
 * lua_to_json again, twice: the first trip may turn -0 into 0, the second changes nothing). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>

#include "fuzz_guard.h"
#include "lua/convert.h"
#include "lua/state.h"

#define MEM_LIMIT ((size_t)16 << 20)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The nodes of j; aborts on an object with a key twice (JSON readers keep one of them). */
static size_t nodes(const cJSON *j)
{
    size_t n = 1;
    for (const cJSON *c = j->child; c; c = c->next) {
        if (cJSON_IsObject(j) && c->next && strcmp(c->string, c->next->string) == 0) {
            fprintf(stderr, "a copy with the key '%s' twice\n", c->string);
            abort();
        }
        n += nodes(c);
    }
    return n;
}

/* Pushes j into L and copies it out again; NULL when the state refused (memory). */
static cJSON *trip(lua_State *L, const cJSON *j)
{
    char err[1024];
    if (lua_push_json_protected(L, j, err, sizeof err) != 0) {
        fuzz_one_line(err);
        return NULL;
    }
    cJSON *back = lua_to_json_protected(L, -1, "value", err, sizeof err);
    if (!back && strstr(err, "not enough memory")) {  /* the state's ceiling, not the copy's */
        lua_pop(L, 1);
        return NULL;
    }
    if (!back) {
        fprintf(stderr, "a copy did not come back through Lua: %s\n", err);
        abort();
    }
    lua_pop(L, 1);
    return back;
}

static void round_trip(lua_State *L, const cJSON *j)
{
    cJSON *once = trip(L, j), *twice = once ? trip(L, once) : NULL;
    if (once && twice) {
        char *a = cJSON_PrintUnformatted(once), *b = cJSON_PrintUnformatted(twice);
        if (strcmp(a, b) != 0) {
            fprintf(stderr, "a copy changed through Lua:\n%s\n%s\n", a, b);
            abort();
        }
        free(a);
        free(b);
    }
    cJSON_Delete(once);
    cJSON_Delete(twice);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[2048];
    if (size > 16384)
        return 0;
    lua_State *L = sr_lua_new(MEM_LIMIT);
    sr_lua_scenario_mode(L, 0.1);
    if (luaL_loadstring(L, fuzz_guard) != LUA_OK || sr_lua_pcall(L, 0, 0, err, sizeof err, NULL) != 0) {
        fprintf(stderr, "fuzz_convert: %s\n", err);
        abort();
    }
    if (luaL_loadbufferx(L, (const char *)data, size, "=fuzz", "t") != LUA_OK) {
        lua_pop(L, 1);
    } else if (sr_lua_pcall(L, 0, 1, err, sizeof err, NULL) != 0) {
        fuzz_one_line(err);
    } else {
        cJSON *j = lua_to_json_protected(L, -1, "value", err, sizeof err);
        if (!j) {
            fuzz_one_line(err);
        } else if (nodes(j) > MEM_LIMIT / sizeof(cJSON)) {
            fprintf(stderr, "a copy of %zu nodes passed the ceiling of %zu bytes\n", nodes(j), MEM_LIMIT);
            abort();
        } else {
            lua_pop(L, 1);
            round_trip(L, j);
        }
        cJSON_Delete(j);
    }
    sr_lua_close(L);
    return 0;
}
