/* fuzz_lua.h: the long-lived Lua state of a fuzz target that drives the Lua library: the module
 * it calls as a global, the Lua lines it runs counted as libFuzzer's extra coverage (without
 * them the fuzzer sees the C code only and never learns which inputs reach deeper into the
 * library), and whether FUZZ_RENDER=1 asks for drawing too. One copy per target (each is one
 * translation unit). */
#ifndef SR_FUZZ_LUA_H
#define SR_FUZZ_LUA_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <lua.h>

#include "lua/state.h"

static uint8_t lua_lines[1 << 16] __attribute__((used, section("__libfuzzer_extra_counters")));

static void lua_line_hook(lua_State *l, lua_Debug *ar)
{
    if (lua_getinfo(l, "S", ar)) {
        uintptr_t h = ((uintptr_t)ar->source >> 4) * 2654435761u + (uintptr_t)ar->currentline;
        uint8_t *c = &lua_lines[h & (sizeof lua_lines - 1)];
        if (*c < 255)
            (*c)++;
    }
}

/* A state with require(module) as the global `global`, lines counted; *render from FUZZ_RENDER
 * and pdf_path a file of this process's own under TMPDIR for drawing. Aborts when the module
 * does not load: nothing could be fuzzed. */
static lua_State *fuzz_lua_state(const char *target, const char *module, const char *global, int *render,
                                 char *pdf_path, size_t n)
{
    char err[1024];
    lua_State *L = sr_lua_new(SR_LUA_MEM_LIMIT);
    if (sr_lua_require(L, module, err, sizeof err) != 0) {
        fprintf(stderr, "%s: %s\n", target, err);
        abort();
    }
    lua_setglobal(L, global);
    lua_sethook(L, lua_line_hook, LUA_MASKLINE, 0);
    *render = getenv("FUZZ_RENDER") && strcmp(getenv("FUZZ_RENDER"), "1") == 0;
    snprintf(pdf_path, n, "%s/%s-%d.pdf", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", target, (int)getpid());
    return L;
}

#endif
