/* state.c: builds the sandbox. What scenarios may touch is decided here and only here;
 * the modules themselves (lbench.c, lpdf.c) assume they run inside it. */
#include "lua/state.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>
#include <lualib.h>

#include "lua/embedded.h"
#include "lua/modules.h"
#include "util/error.h"

struct mem_limit {
    size_t used, limit;
};

static void *limited_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
    struct mem_limit *m = ud;
    size_t old = ptr ? osize : 0;
    if (nsize == 0) {
        free(ptr);
        m->used -= old;
        return NULL;
    }
    if (nsize > old && m->used - old + nsize > m->limit)
        return NULL;                        /* Lua raises "not enough memory" */
    void *p = realloc(ptr, nsize);
    if (p)
        m->used = m->used - old + nsize;
    return p;
}

const struct embedded_file *embedded_find(const char *name)
{
    for (const struct embedded_file *f = embedded_files; f->name; f++)
        if (strcmp(f->name, name) == 0)
            return f;
    return NULL;
}

/* "sparkreport" -> lua/sparkreport/init.lua; "sparkreport.a.b" -> lua/sparkreport/a/b.lua;
 * "templates.x" -> templates/x.lua. */
static int embedded_searcher(lua_State *L)
{
    const char *name = luaL_checkstring(L, 1);
    char path[256];
    if (strcmp(name, "sparkreport") == 0)
        snprintf(path, sizeof path, "lua/sparkreport/init.lua");
    else if (strncmp(name, "templates.", 10) == 0)
        snprintf(path, sizeof path, "templates/%s.lua", name + 10);
    else
        snprintf(path, sizeof path, "lua/%s.lua", name);
    for (char *p = path; *p; p++)
        if (*p == '.' && strcmp(p, ".lua") != 0)
            *p = '/';
    const struct embedded_file *f = embedded_find(path);
    if (!f) {
        lua_pushfstring(L, "no module '%s' in sparkreport's Lua library", name);
        return 1;
    }
    char chunk[272];
    snprintf(chunk, sizeof chunk, "@%s", path);
    if (luaL_loadbufferx(L, (const char *)f->data, f->size, chunk, "t") != LUA_OK)
        return lua_error(L);
    lua_pushstring(L, path);
    return 2;
}

/* load() without binary chunks. */
static int safe_load(lua_State *L)
{
    size_t len;
    const char *s = luaL_checklstring(L, 1, &len);
    const char *chunkname = luaL_optstring(L, 2, s);
    int env = !lua_isnone(L, 4);
    if (luaL_loadbufferx(L, s, len, chunkname, "t") != LUA_OK) {
        luaL_pushfail(L);
        lua_insert(L, -2);
        return 2;
    }
    if (env) {
        lua_pushvalue(L, 4);
        if (!lua_setupvalue(L, -2, 1))
            lua_pop(L, 1);
    }
    return 1;
}

/* print() to stderr: stdout carries the program's answers only. */
static int safe_print(lua_State *L)
{
    int n = lua_gettop(L);
    for (int i = 1; i <= n; i++) {
        fputs(i > 1 ? "\t" : "", stderr);
        fputs(luaL_tolstring(L, i, NULL), stderr);
        lua_pop(L, 1);
    }
    fputc('\n', stderr);
    return 0;
}

/* Indexing a forbidden library or function is an error that says why, at the caller's line. */
static int forbidden(lua_State *L)
{
    const char *lib = lua_tostring(L, lua_upvalueindex(1));
    const char *why = lua_tostring(L, lua_upvalueindex(2));
    const char *key = luaL_tolstring(L, 2, NULL);
    return luaL_error(L, "%s.%s is not available in a scenario: %s", lib, key, why);
}

static void forbid_missing(lua_State *L, const char *lib, const char *why)
{
    lua_newtable(L);
    lua_pushstring(L, lib);
    lua_pushstring(L, why);
    lua_pushcclosure(L, forbidden, 2);
    lua_setfield(L, -2, "__index");
    lua_setmetatable(L, -2);
}

/* Replaces library `lib` by a table holding only `keep` (NULL: nothing), both as a global
 * and in package.loaded, so require cannot bring the full one back. */
static void restrict_lib(lua_State *L, const char *lib, const char *const *keep, const char *why)
{
    luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
    lua_getfield(L, -1, lib);
    lua_newtable(L);
    for (; keep && *keep; keep++) {
        lua_getfield(L, -2, *keep);
        lua_setfield(L, -2, *keep);
    }
    forbid_missing(L, lib, why);
    lua_pushvalue(L, -1);
    lua_setglobal(L, lib);
    lua_setfield(L, -3, lib);
    lua_pop(L, 2);
}

static void sandbox(lua_State *L)
{
    static const char *const os_keep[] = { "clock", "date", "difftime", "time", NULL };
    lua_pushnil(L);
    lua_setglobal(L, "dofile");
    lua_pushnil(L);
    lua_setglobal(L, "loadfile");
    lua_pushcfunction(L, safe_load);
    lua_setglobal(L, "load");
    lua_pushcfunction(L, safe_print);
    lua_setglobal(L, "print");
    restrict_lib(L, "os", os_keep, "scenarios cannot run programs, read the environment or change files");
    restrict_lib(L, "io", NULL, "scenarios cannot read or write files");
    restrict_lib(L, "debug", NULL, "scenarios cannot inspect or change the interpreter");
    lua_getglobal(L, "package");
    lua_pushnil(L);
    lua_setfield(L, -2, "loadlib");
    lua_pushnil(L);
    lua_setfield(L, -2, "searchpath");
    lua_pushstring(L, "");
    lua_setfield(L, -2, "path");
    lua_pushstring(L, "");
    lua_setfield(L, -2, "cpath");
    lua_getfield(L, -1, "searchers");
    lua_rawgeti(L, -1, 1);                  /* the preload searcher */
    lua_newtable(L);
    lua_insert(L, -2);
    lua_rawseti(L, -2, 1);
    lua_pushcfunction(L, embedded_searcher);
    lua_rawseti(L, -2, 2);
    lua_setfield(L, -3, "searchers");
    lua_pop(L, 2);
}

lua_State *sr_lua_new(size_t mem_limit)
{
    struct mem_limit *m = xcalloc(1, sizeof *m);
    m->limit = mem_limit;
    lua_State *L = lua_newstate(limited_alloc, m);
    if (!L)
        DIE("cannot create a Lua state");
    static const luaL_Reg libs[] = {
        { LUA_GNAME, luaopen_base }, { LUA_LOADLIBNAME, luaopen_package },
        { LUA_COLIBNAME, luaopen_coroutine }, { LUA_TABLIBNAME, luaopen_table },
        { LUA_OSLIBNAME, luaopen_os }, { LUA_STRLIBNAME, luaopen_string },
        { LUA_MATHLIBNAME, luaopen_math }, { LUA_UTF8LIBNAME, luaopen_utf8 },
        { NULL, NULL },
    };
    for (const luaL_Reg *l = libs; l->func; l++) {
        luaL_requiref(L, l->name, l->func, 1);
        lua_pop(L, 1);
    }
    sandbox(L);
    luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_PRELOAD_TABLE);
    lua_pushcfunction(L, luaopen_bench);
    lua_setfield(L, -2, "bench");
    lua_pushcfunction(L, luaopen_pdf);
    lua_setfield(L, -2, "pdf");
    lua_pop(L, 1);
    return L;
}

void sr_lua_close(lua_State *L)
{
    void *ud;
    lua_getallocf(L, &ud);
    lua_close(L);
    free(ud);
}

static int traceback(lua_State *L)
{
    const char *msg = lua_tostring(L, 1);
    if (!msg)
        msg = lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
    luaL_traceback(L, L, msg, 1);
    return 1;
}

int sr_lua_pcall(lua_State *L, int nargs, int nresults, char *err, size_t errlen, char **trace)
{
    int base = lua_gettop(L) - nargs;
    lua_pushcfunction(L, traceback);
    lua_insert(L, base);
    int rc = lua_pcall(L, nargs, nresults, base);
    lua_remove(L, base);
    if (rc == LUA_OK)
        return 0;
    const char *msg = lua_tostring(L, -1);
    if (!msg)
        msg = "out of memory";
    if (rc == LUA_ERRMEM)
        msg = "the scenario's Lua code ran out of memory (limit reached)";
    size_t first = strcspn(msg, "\n");
    snprintf(err, errlen, "%.*s", (int)first, msg);
    if (trace)
        *trace = xstrdup(msg);
    lua_pop(L, 1);
    return -1;
}

int sr_lua_require(lua_State *L, const char *name, char *err, size_t errlen)
{
    lua_getglobal(L, "require");
    lua_pushstring(L, name);
    return sr_lua_pcall(L, 1, 1, err, errlen, NULL);
}
