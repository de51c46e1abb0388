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

#include "lua/convert.h"
#include "lua/state.h"
#include "results/load.h"
#include "results/render.h"
#include "util/json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static lua_State *L;
static char pdf_path[512];
static int render;

/* Lua lines run by report.check, as libFuzzer's extra coverage counters: without them the
 * fuzzer would see the C code only, and never learn which documents reach deeper into the
 * schema. */
static uint8_t lua_lines[1 << 16] __attribute__((used, section("__libfuzzer_extra_counters")));

static void line_hook(lua_State *l, lua_Debug *ar)
{
    if (lua_getinfo(l, "S", ar)) {
        uintptr_t h = ((uintptr_t)ar->source >> 4) * 2654435761u + (uintptr_t)ar->currentline;
        uint8_t *c = &lua_lines[h & (sizeof lua_lines - 1)];
        if (*c < 255)
            (*c)++;
    }
}

static void setup(void)
{
    char err[1024];
    L = sr_lua_new(SR_LUA_MEM_LIMIT);
    if (sr_lua_require(L, "sparkreport.report", err, sizeof err) != 0) {
        fprintf(stderr, "fuzz_results: %s\n", err);
        abort();
    }
    lua_setglobal(L, "report");
    lua_sethook(L, line_hook, LUA_MASKLINE, 0);
    render = getenv("FUZZ_RENDER") && strcmp(getenv("FUZZ_RENDER"), "1") == 0;
    snprintf(pdf_path, sizeof pdf_path, "%s/fuzz_results-%d.pdf", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp",
             (int)getpid());
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[2048];
    if (!L)
        setup();
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
    if (ok && render && render_results(r, pdf_path, err, sizeof err) != 0 && strstr(err, ".lua:")) {
        fprintf(stderr, "report.check accepted a document a section cannot draw: %s\n", err);
        abort();
    }
    lua_gc(L, LUA_GCCOLLECT);
    cJSON_Delete(r);
    return 0;
}
