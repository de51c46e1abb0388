/* test_json.c: JSON parsing limits and messages, the Lua <-> JSON bridge (arrays, objects
 * with sorted keys, NaN, values JSON cannot hold), and the results loader's schema checks. */
#include <stdlib.h>
#include <unistd.h>

#include <lauxlib.h>
#include <lualib.h>

#include "check.h"
#include "lua/convert.h"
#include "results/load.h"
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
    EXPECT_STR(load_error(dir, "{\"schema\": \"sparkreport/results\", \"schema_version\": 99}"),
               "r.json: schema version 99 is newer than this sparkreport reads (1); update sparkreport");
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

int main(void)
{
    test_parse();
    test_lua();
    test_results();
    return CHECK_DONE();
}
