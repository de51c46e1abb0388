/* test_json.c: JSON parsing limits and messages, the Lua <-> JSON bridge (arrays, objects
 * with sorted keys, NaN, values JSON cannot hold), and the results loader's schema checks. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <lauxlib.h>
#include <lualib.h>

#include "check.h"
#include "util/schema.h"
#include "lua/convert.h"
#include "results/load.h"
#include "util/machine.h"
#include "util/fsutil.h"
#include "util/json.h"

static const char *parse_error(const char *text)
{
    static char err[256];
    err[0] = '\0';
    cJSON *j = json_parse("x.json", text, strlen(text), err, sizeof err);
    cJSON_Delete(j);
    return err;
}

static void test_parse(void)
{
    char deep[300];
    EXPECT_STR(parse_error(""), "x.json: empty file");
    EXPECT_STR(parse_error(" \n"), "x.json: empty file");
    EXPECT_STR(parse_error("{\"a\": [1, 2"), "x.json:1: truncated JSON (ends before the document closes)");
    EXPECT_STR(parse_error("{\n\"a\": tru}"), "x.json:2: invalid JSON near byte 7");
    EXPECT_STR(parse_error("{} x"), "x.json:1: unexpected text after the JSON document");
    EXPECT_STR(parse_error("{\"a\": 1}\n"), "");
    memset(deep, '[', 100);
    memset(deep + 100, ']', 100);
    deep[200] = '\0';
    EXPECT_STR(parse_error(deep), "x.json: nested deeper than 64 levels");
}

static void test_lua(void)
{
    char err[256];
    lua_State *L = luaL_newstate();
    luaL_openlibs(L);
    EXPECT(luaL_dostring(L, "return { z = 1, a = { 3, 2.5, 0/0 }, m = { x = true }, e = {}, s = 'hi' }") == LUA_OK);
    cJSON *j = lua_to_json(L, -1, "root", err, sizeof err);
    char *text = cJSON_PrintUnformatted(j);
    EXPECT_STR(text, "{\"a\":[3,2.5,null],\"e\":[],\"m\":{\"x\":true},\"s\":\"hi\",\"z\":1}");
    cJSON_free(text);
    lua_settop(L, 0);
    lua_push_json(L, j);
    lua_setglobal(L, "t");
    EXPECT(luaL_dostring(L, "return math.type(t.z) == 'integer' and t.a[2] == 2.5 and t.a[3] ~= t.a[3] and t.m.x and #t.e == 0") == LUA_OK);
    EXPECT(lua_toboolean(L, -1));
    cJSON_Delete(j);

    EXPECT(luaL_dostring(L, "return { a = { 1, { f = print } } }") == LUA_OK);
    EXPECT(lua_to_json(L, -1, "root", err, sizeof err) == NULL);
    EXPECT_STR(err, "root.a[2].f: a function cannot be stored as data");
    EXPECT(luaL_dostring(L, "local t = {}; t.self = t; return t") == LUA_OK);
    EXPECT(lua_to_json(L, -1, "root", err, sizeof err) == NULL);
    EXPECT_STR(err, "root.self: a table that contains itself cannot be stored as data");   /* was caught by depth */
    EXPECT(luaL_dostring(L, "return { 'x', kernels = 'all' }") == LUA_OK);       /* mixed: keys become names */
    j = lua_to_json(L, -1, "p", err, sizeof err);
    text = cJSON_PrintUnformatted(j);
    EXPECT_STR(text, "{\"1\":\"x\",\"kernels\":\"all\"}");
    cJSON_free(text);
    cJSON_Delete(j);
    lua_close(L);
}

static const char *load_error(const char *dir, const char *text)
{
    static char err[512];
    char path[256];
    snprintf(path, sizeof path, "%s/r.json", dir);
    fs_write_atomic(path, text, strlen(text), err, sizeof err);
    err[0] = '\0';
    cJSON *r = results_load(path, err, sizeof err);
    cJSON_Delete(r);
    /* messages start with the path, which varies: return what follows it */
    return strstr(err, "r.json") ? strstr(err, "r.json") : err;
}

static void test_results(void)
{
    char err[256], tmpl[] = "/tmp/sr-json-XXXXXX";
    const char *dir = mkdtemp(tmpl);
    EXPECT(dir != NULL);
    EXPECT_STR(load_error(dir, "{\"schema\": \"other\"}"),
               "r.json: not a sparkreport results file (no \"schema\": \"sparkreport/results\")");
    char newer[128];
    snprintf(newer, sizeof newer, "r.json: schema version 99 is newer than this sparkreport reads (%d); update sparkreport",
             SR_SCHEMA_VERSION);
    EXPECT_STR(load_error(dir, "{\"schema\": \"sparkreport/results\", \"schema_version\": 99}"), newer);
    EXPECT_STR(load_error(dir, "{\"schema\": \"sparkreport/results\", \"schema_version\": 1.5}"),
               "r.json: 'schema_version' must be a whole number from 1");
    EXPECT_STR(load_error(dir, "{\"schema\": \"sparkreport/results\", \"schema_version\": 1, \"context\": {}, "
                               "\"scenario\": {}, \"experiments\": {}}"),
               "r.json: 'experiments' must be an array");
    EXPECT_STR(load_error(dir, "{\"schema\": \"sparkreport/results\", \"schema_version\": 1, \"context\": {}}"),
               "r.json: 'scenario' must be an object (it is missing)");
    EXPECT_STR(load_error(dir, "{\"schema\": \"sparkreport/results\", \"schema_version\": 1, \"context\": {}, "
                               "\"scenario\": {}, \"experiments\": [{\"name\": \"bandwidth\"}]}"),
               "r.json: experiments[1] must be an object with a 'name' and a 'results' array");
    EXPECT_STR(load_error(dir, "{\"schema\": \"sparkreport/results\", \"schema_version\": 1, \"context\": {}, "
                               "\"scenario\": {}, \"experiments\": []}"), "");
    EXPECT(results_load("/nonexistent/r.json", err, sizeof err) == NULL);
    EXPECT_STR(err, "/nonexistent/r.json: cannot open: No such file or directory");
    char path[256];
    snprintf(path, sizeof path, "%s/r.json", dir);
    unlink(path);
    rmdir(dir);
}

/* Issue 18: what JSON text must be beyond the grammar cJSON checks. */
static void test_hostile(void)
{
    static const char *const cases[][2] = {
        { "{\"a\": {\"b\": [1, 1e999]}}", "x.json: a.b[2] is not a finite number (it overflows a double, or is infinity or NaN)" },
        { "[-1e400]", "x.json: [1] is not a finite number (it overflows a double, or is infinity or NaN)" },
        { "{\"a\": 1, \"b\": 2, \"a\": 3}", "x.json: has the key 'a' twice" },
        { "{\"x\": [{\"k\": 1, \"k\": 1}]}", "x.json: x[1] has the key 'k' twice" },
        { "{\"s\": \"ok\xff\"}", "x.json: s is not valid UTF-8 (byte 0xFF at offset 2)" },
        { "{\"s\": \"\xc0\xaf\"}", "x.json: s is not valid UTF-8 (byte 0xC0 at offset 0)" },     /* overlong */
        { "{\"\xed\xa0\x80\": 1}", "x.json: has a key that is not valid UTF-8" },              /* a surrogate */
        { "{\"s\": \"\u00e9\u4e2d \xc3\xa9\", \"n\": 1e308}", "" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        EXPECT_STR(parse_error(cases[i][0]), cases[i][1]);
    EXPECT(json_utf8_invalid("ab\xe2\x82", 4) == 2);        /* cut short */
    EXPECT(json_utf8_invalid("\xf4\x90\x80\x80", 4) == 0);  /* past U+10FFFF */
    EXPECT(json_utf8_invalid("\xe2\x82\xac", 3) == -1);
    cJSON *inf = cJSON_CreateObject();
    char err[256];
    cJSON_AddNumberToObject(inf, "x", 1.0 / 0.0);
    EXPECT(json_save("/nonexistent/never.json", inf, err, sizeof err) == -1);
    EXPECT_STR(err, "/nonexistent/never.json: x is not a finite number (it overflows a double, or is infinity or NaN)");
    cJSON_Delete(inf);
}

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif

/* Out of memory while parsing is said as such (errno ENOMEM), not "invalid JSON": a child with
 * an address-space limit just above what it holds parses a document of many small nodes. */
static void test_out_of_memory(void)
{
    if (machine_emulated()) {           /* qemu-user's own mappings count against the limit too */
        printf("out-of-memory case skipped: %s\n", machine_emulated());
        return;
    }
#ifndef UNDER_ASAN
    size_t n = (size_t)8 << 20;          /* "[[],[],...]": 3 bytes of text, ~64 bytes of cJSON per node */
    char *text = malloc(3 * n + 2);
    if (!text)
        return;
    text[0] = '[';
    for (size_t i = 0; i < n; i++)
        memcpy(text + 1 + 3 * i, i + 1 < n ? "[]," : "[]]", 3);
    pid_t pid = fork();
    if (pid == 0) {
        char err[256];
        struct rlimit r = { (rlim_t)256 << 20, (rlim_t)256 << 20 };
        FILE *f = fopen("/proc/self/statm", "r");
        unsigned long pages = 0;
        if (f && fscanf(f, "%lu", &pages) == 1)
            r.rlim_cur = r.rlim_max = (rlim_t)pages * (rlim_t)sysconf(_SC_PAGESIZE) + ((rlim_t)64 << 20);
        if (f)
            fclose(f);
        setrlimit(RLIMIT_AS, &r);
        errno = 0;
        cJSON *j = json_parse("big.json", text, 3 * n + 1, err, sizeof err);
        _exit(!j && errno == ENOMEM && strstr(err, "big.json: out of memory while reading it") ? 0 : 1);
    }
    int status = 0;
    EXPECT(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0);
    free(text);
#endif
}

int main(void)
{
    test_hostile();
    test_out_of_memory();
    test_parse();
    test_lua();
    test_results();
    return CHECK_DONE();
}
