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
    cJSON *out;
};

static int to_json_from_pointer(lua_State *L)
{
    struct to_json_call *c = lua_touserdata(L, 2);
    c->out = lua_to_json(L, 1, c->root, c->err, c->errlen);
    return 0;
}

cJSON *lua_to_json_protected(lua_State *L, int idx, const char *root, char *err, size_t errlen)
{
    struct to_json_call c = { root, err, errlen, NULL };
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

struct path {
    char text[256];
};

static int fail(char *err, size_t errlen, const struct path *p, const char *what)
{
    size_t len = strlen(p->text);
    if (len > 100)      /* a runaway path (a table inside itself): its start says enough */
        snprintf(err, errlen, "%.100s...: %s", p->text, what);
    else
        snprintf(err, errlen, "%s: %s", p->text, what);
    return -1;
}

static int cmp_keys(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static cJSON *convert(lua_State *L, int idx, struct path *p, int depth, char *err, size_t errlen);

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

static cJSON *convert_array(lua_State *L, int idx, lua_Integer n, struct path *p, int depth, char *err, size_t errlen)
{
    cJSON *arr = cJSON_CreateArray();
    size_t plen = strlen(p->text);
    for (lua_Integer i = 1; i <= n; i++) {
        lua_rawgeti(L, idx, i);
        snprintf(p->text + plen, sizeof p->text - plen, "[%lld]", (long long)i);
        cJSON *c = convert(L, lua_gettop(L), p, depth + 1, err, errlen);
        lua_pop(L, 1);
        if (!c) {
            cJSON_Delete(arr);
            return NULL;
        }
        cJSON_AddItemToArray(arr, c);
    }
    p->text[plen] = '\0';
    return arr;
}

static cJSON *convert_object(lua_State *L, int idx, struct path *p, int depth, char *err, size_t errlen)
{
    size_t nkeys = 0, cap = 16, plen = strlen(p->text);
    char **keys = xmalloc(cap * sizeof *keys);
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        lua_pop(L, 1);
        if (lua_type(L, -1) != LUA_TSTRING && lua_type(L, -1) != LUA_TNUMBER) {
            char what[64];
            snprintf(what, sizeof what, "a %s key cannot be stored as data", luaL_typename(L, -1));
            lua_pop(L, 1);
            for (size_t i = 0; i < nkeys; i++)
                free(keys[i]);
            free(keys);
            fail(err, errlen, p, what);
            return NULL;
        }
        if (nkeys == cap)
            keys = xrealloc(keys, (cap *= 2) * sizeof *keys);
        lua_pushvalue(L, -1);
        keys[nkeys++] = xstrdup(lua_tostring(L, -1));           /* numbers become "1" */
        lua_pop(L, 1);
    }
    qsort(keys, nkeys, sizeof *keys, cmp_keys);
    cJSON *obj = cJSON_CreateObject();
    for (size_t i = 0; i < nkeys && obj; i++) {
        lua_pushstring(L, keys[i]);         /* raw: converting runs no metamethod */
        lua_rawget(L, idx);
        if (lua_isnil(L, -1)) {             /* a numeric key: look it up as a number */
            lua_pop(L, 1);
            lua_pushnumber(L, strtod(keys[i], NULL));
            lua_rawget(L, idx);
        }
        snprintf(p->text + plen, sizeof p->text - plen, "%s%s", plen ? "." : "", keys[i]);
        cJSON *c = convert(L, lua_gettop(L), p, depth + 1, err, errlen);
        lua_pop(L, 1);
        if (!c) {
            cJSON_Delete(obj);
            obj = NULL;
        } else {
            cJSON_AddItemToObject(obj, keys[i], c);
        }
    }
    for (size_t i = 0; i < nkeys; i++)
        free(keys[i]);
    free(keys);
    p->text[plen] = '\0';
    return obj;
}

static cJSON *convert(lua_State *L, int idx, struct path *p, int depth, char *err, size_t errlen)
{
    char what[64];
    switch (lua_type(L, idx)) {
    case LUA_TNIL: return cJSON_CreateNull();
    case LUA_TBOOLEAN: return cJSON_CreateBool(lua_toboolean(L, idx));
    case LUA_TNUMBER: return cJSON_CreateNumber(lua_tonumber(L, idx));
    case LUA_TSTRING: return cJSON_CreateString(lua_tostring(L, idx));
    case LUA_TTABLE: {
        lua_Integer n;
        if (depth >= JSON_MAX_DEPTH) {
            fail(err, errlen, p, "nested too deeply (or a table contains itself)");
            return NULL;
        }
        luaL_checkstack(L, 8, "nested too deeply");
        if (is_array(L, idx, &n))
            return convert_array(L, idx, n, p, depth, err, errlen);
        return convert_object(L, idx, p, depth, err, errlen);
    }
    default:
        snprintf(what, sizeof what, "a %s cannot be stored as data", luaL_typename(L, idx));
        fail(err, errlen, p, what);
        return NULL;
    }
}

cJSON *lua_to_json(lua_State *L, int idx, const char *root, char *err, size_t errlen)
{
    struct path p;
    snprintf(p.text, sizeof p.text, "%s", root);
    return convert(L, lua_absindex(L, idx), &p, 0, err, errlen);
}
