/* convert.c: conversion between Lua values and cJSON trees, used wherever data crosses
 * the bridge: scenario parameters in, measurement results out, results.json into templates. */
#include "lua/convert.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>

#include "lua/state.h"
#include "util/error.h"
#include "util/json.h"
#include "util/units.h"

void lua_push_json(lua_State *L, const cJSON *j)
{
    luaL_checkstack(L, 4, "JSON nested too deeply");
    if (cJSON_IsBool(j)) {
        lua_pushboolean(L, cJSON_IsTrue(j));
    } else if (cJSON_IsNumber(j)) {
        double v = j->valuedouble;
        if (v == floor(v) && fabs(v) < 9007199254740992.0)
            lua_pushinteger(L, (lua_Integer)v);
        else
            lua_pushnumber(L, v);
    } else if (cJSON_IsString(j)) {
        lua_pushstring(L, j->valuestring);
    } else if (cJSON_IsArray(j)) {
        lua_createtable(L, cJSON_GetArraySize(j), 0);
        lua_Integer i = 1;
        for (const cJSON *c = j->child; c; c = c->next, i++) {
            if (cJSON_IsNull(c))
                lua_pushnumber(L, NAN);
            else
                lua_push_json(L, c);
            lua_rawseti(L, -2, i);
        }
    } else if (cJSON_IsObject(j)) {
        lua_newtable(L);
        for (const cJSON *c = j->child; c; c = c->next) {
            if (cJSON_IsNull(c) || !c->string)
                continue;
            lua_push_json(L, c);
            lua_setfield(L, -2, c->string);
        }
    } else {
        lua_pushnil(L);
    }
}

static int push_json_from_pointer(lua_State *L)
{
    lua_push_json(L, lua_touserdata(L, 1));
    return 1;
}

int lua_push_json_protected(lua_State *L, const cJSON *j, char *err, size_t errlen)
{
    lua_pushcfunction(L, push_json_from_pointer);
    lua_pushlightuserdata(L, (void *)j);
    return sr_lua_pcall(L, 1, 1, err, errlen, NULL);
}

struct to_json_call {
    const char *root;
    char *err;
    size_t errlen;
    int plain;
    cJSON *out;
};

static int to_json_from_pointer(lua_State *L)
{
    struct to_json_call *c = lua_touserdata(L, 2);
    c->out = (c->plain ? lua_to_json_plain : lua_to_json)(L, 1, c->root, c->err, c->errlen);
    return 0;
}

static cJSON *to_json_protected(lua_State *L, int idx, const char *root, int plain, char *err, size_t errlen)
{
    struct to_json_call c = { root, err, errlen, plain, NULL };
    char why[512];
    idx = lua_absindex(L, idx);
    lua_pushcfunction(L, to_json_from_pointer);
    lua_pushvalue(L, idx);
    lua_pushlightuserdata(L, &c);
    if (sr_lua_pcall(L, 2, 0, why, sizeof why, NULL) != 0) {
        snprintf(err, errlen, "%s: %s", root, why);
        return NULL;
    }
    return c.out;
}

cJSON *lua_to_json_protected(lua_State *L, int idx, const char *root, char *err, size_t errlen)
{
    return to_json_protected(L, idx, root, 0, err, errlen);
}

cJSON *lua_to_json_plain_protected(lua_State *L, int idx, const char *root, char *err, size_t errlen)
{
    return to_json_protected(L, idx, root, 1, err, errlen);
}

/* One copy out of Lua: where it is (for messages), what it has copied, and the tables on the
 * way down from the root (a table met again there is a cycle). */
struct copy {
    lua_State *L;
    char path[256];
    const void *open[JSON_MAX_DEPTH];   /* lua_topointer of the tables being copied, outermost first */
    int depth;
    size_t bytes, limit;                /* of the C copy (nodes and strings), and its ceiling */
    int plain;                          /* a table with a metatable is refused */
    char *err;
    size_t errlen;
};

static int fail(struct copy *c, const char *what)
{
    if (strlen(c->path) > 100)      /* a runaway path: its start says enough */
        snprintf(c->err, c->errlen, "%.100s...: %s", c->path, what);
    else
        snprintf(c->err, c->errlen, "%s: %s", c->path, what);
    return -1;
}

/* Counts n more bytes of the copy; 0, or -1 past the ceiling (err says so, at the root: the
 * place where the ceiling happened to be reached means nothing). */
static int count(struct copy *c, size_t n)
{
    char lim[32];
    c->bytes += n;
    if (c->bytes <= c->limit)
        return 0;
    c->path[strcspn(c->path, ".[")] = '\0';
    char what[256];
    units_format_bytes((double)c->limit, lim, sizeof lim);
    snprintf(what, sizeof what, "more than %s once copied out of Lua, the most a copy may hold "
             "(a table referenced from several places is copied once for each)", lim);
    return fail(c, what);
}

static int cmp_keys(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static cJSON *convert(struct copy *c, int idx);

/* Is the table at idx a sequence 1..n (n >= 1) with nothing else? */
static int is_array(lua_State *L, int idx, lua_Integer *n)
{
    lua_Integer count = 0;
    *n = (lua_Integer)lua_rawlen(L, idx);
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        lua_pop(L, 1);
        count++;
    }
    if (count == 0) {
        int object = 0;
        if (luaL_getmetafield(L, idx, "__jsontype") != LUA_TNIL) {
            object = lua_isstring(L, -1) && strcmp(lua_tostring(L, -1), "object") == 0;
            lua_pop(L, 1);
        }
        return !object;
    }
    return count == *n;
}

/* Converts the value on top of the stack (popped) as the child at c->path + suffix. */
static cJSON *convert_child(struct copy *c, const char *suffix)
{
    size_t plen = strlen(c->path);
    snprintf(c->path + plen, sizeof c->path - plen, "%s", suffix);
    cJSON *out = convert(c, lua_gettop(c->L));
    lua_pop(c->L, 1);
    c->path[plen] = '\0';
    return out;
}

static cJSON *convert_array(struct copy *c, int idx, lua_Integer n)
{
    cJSON *arr = cJSON_CreateArray();
    for (lua_Integer i = 1; i <= n; i++) {
        char suffix[32];
        lua_rawgeti(c->L, idx, i);
        snprintf(suffix, sizeof suffix, "[%lld]", (long long)i);
        cJSON *item = convert_child(c, suffix);
        if (!item) {
            cJSON_Delete(arr);
            return NULL;
        }
        cJSON_AddItemToArray(arr, item);
    }
    return arr;
}

static void free_keys(char **keys, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(keys[i]);
    free(keys);
}

/* The keys of the table at idx as strings, sorted; NULL (err set) when one cannot be data. */
static char **object_keys(struct copy *c, int idx, size_t *nkeys)
{
    lua_State *L = c->L;
    size_t cap = 16;
    char **keys = xmalloc(cap * sizeof *keys);
    *nkeys = 0;
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        lua_pop(L, 1);
        if (lua_type(L, -1) != LUA_TSTRING && lua_type(L, -1) != LUA_TNUMBER) {
            char what[64];
            snprintf(what, sizeof what, "a %s key cannot be stored as data", luaL_typename(L, -1));
            lua_pop(L, 1);
            free_keys(keys, *nkeys);
            fail(c, what);
            return NULL;
        }
        size_t klen = 0;
        if (lua_type(L, -1) == LUA_TSTRING && strlen(lua_tolstring(L, -1, &klen)) != klen) {
            char what[192];
            snprintf(what, sizeof what, "the key '%.60s...': byte %zu is a NUL (\\0), which would cut the key there",
                     lua_tostring(L, -1), strlen(lua_tostring(L, -1)) + 1);
            lua_pop(L, 1);
            free_keys(keys, *nkeys);
            fail(c, what);
            return NULL;
        }
        if (*nkeys == cap)
            keys = xrealloc(keys, (cap *= 2) * sizeof *keys);
        lua_pushvalue(L, -1);
        keys[(*nkeys)++] = xstrdup(lua_tostring(L, -1));        /* numbers become "1" */
        lua_pop(L, 1);
    }
    qsort(keys, *nkeys, sizeof *keys, cmp_keys);
    for (size_t i = 1; i < *nkeys; i++)
        if (strcmp(keys[i - 1], keys[i]) == 0) {        /* t[1] and t["1"]: one key in JSON */
            char what[160];
            snprintf(what, sizeof what, "the key '%.60s' is there both as a number and as a string", keys[i]);
            free_keys(keys, *nkeys);
            fail(c, what);
            return NULL;
        }
    return keys;
}

static cJSON *convert_object(struct copy *c, int idx)
{
    size_t nkeys;
    char **keys = object_keys(c, idx, &nkeys);
    cJSON *obj = keys ? cJSON_CreateObject() : NULL;
    for (size_t i = 0; i < nkeys && obj; i++) {
        char suffix[sizeof c->path];
        lua_pushstring(c->L, keys[i]);      /* raw: converting runs no metamethod */
        lua_rawget(c->L, idx);
        if (lua_isnil(c->L, -1)) {          /* a numeric key: look it up as a number */
            lua_pop(c->L, 1);
            lua_pushnumber(c->L, strtod(keys[i], NULL));
            lua_rawget(c->L, idx);
        }
        snprintf(suffix, sizeof suffix, "%s%s", c->path[0] ? "." : "", keys[i]);
        cJSON *item = NULL;
        if (count(c, strlen(keys[i]) + 1) != 0)
            lua_pop(c->L, 1);
        else
            item = convert_child(c, suffix);
        if (!item) {
            cJSON_Delete(obj);
            obj = NULL;
        } else {
            cJSON_AddItemToObject(obj, keys[i], item);
        }
    }
    if (keys)
        free_keys(keys, nkeys);
    return obj;
}

static cJSON *convert_table(struct copy *c, int idx)
{
    const void *self = lua_topointer(c->L, idx);
    lua_Integer n;
    for (int i = 0; i < c->depth; i++)
        if (c->open[i] == self) {
            fail(c, "a table that contains itself cannot be stored as data");
            return NULL;
        }
    if (c->depth >= JSON_MAX_DEPTH) {
        fail(c, "nested too deeply");
        return NULL;
    }
    if (c->plain && lua_getmetatable(c->L, idx)) {      /* raw: no metamethod runs to find it */
        lua_pop(c->L, 1);
        fail(c, "a table with a metatable is not data (what code reading it would see, through __index or "
             "__pairs, is not what it holds); give a plain table");
        return NULL;
    }
    luaL_checkstack(c->L, 8, "nested too deeply");
    c->open[c->depth++] = self;
    cJSON *out = is_array(c->L, idx, &n) ? convert_array(c, idx, n) : convert_object(c, idx);
    c->depth--;
    return out;
}

static cJSON *convert(struct copy *c, int idx)
{
    char what[128];
    size_t len = 0;
    if (lua_type(c->L, idx) == LUA_TSTRING)
        lua_tolstring(c->L, idx, &len);
    if (count(c, sizeof(cJSON) + len + 1) != 0)
        return NULL;
    switch (lua_type(c->L, idx)) {
    case LUA_TNIL: return cJSON_CreateNull();
    case LUA_TBOOLEAN: return cJSON_CreateBool(lua_toboolean(c->L, idx));
    case LUA_TNUMBER: return cJSON_CreateNumber(lua_tonumber(c->L, idx));
    case LUA_TSTRING:
        if (strlen(lua_tostring(c->L, idx)) != len) {       /* C would cut it at the NUL, silently */
            snprintf(what, sizeof what, "byte %zu is a NUL (\\0), which would cut the text there; remove it",
                     strlen(lua_tostring(c->L, idx)) + 1);
            fail(c, what);
            return NULL;
        }
        return cJSON_CreateString(lua_tostring(c->L, idx));
    case LUA_TTABLE: return convert_table(c, idx);
    default:
        snprintf(what, sizeof what, "a %s cannot be stored as data", luaL_typename(c->L, idx));
        fail(c, what);
        return NULL;
    }
}

static cJSON *to_json(lua_State *L, int idx, const char *root, int plain, char *err, size_t errlen)
{
    struct copy c = { .L = L, .limit = sr_lua_mem_limit(L), .plain = plain, .err = err, .errlen = errlen };
    snprintf(c.path, sizeof c.path, "%s", root);
    return convert(&c, lua_absindex(L, idx));
}

cJSON *lua_to_json(lua_State *L, int idx, const char *root, char *err, size_t errlen)
{
    return to_json(L, idx, root, 0, err, errlen);
}

cJSON *lua_to_json_plain(lua_State *L, int idx, const char *root, char *err, size_t errlen)
{
    return to_json(L, idx, root, 1, err, errlen);
}
