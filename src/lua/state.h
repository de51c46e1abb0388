/* state.h: the sandboxed Lua state scenarios and templates run in: safe base functions,
 * string, table, math, utf8, coroutine, a read-only os subset, `require` of the embedded Lua
 * library and the C modules bench and pdf only, a memory ceiling, and protected calls that
 * turn any error into one line "FILE:LINE: message" (the traceback goes to the log). */
#ifndef SR_LUA_STATE_H
#define SR_LUA_STATE_H

#include <stddef.h>

#include <lua.h>

#define SR_LUA_MEM_LIMIT ((size_t)1 << 30)     /* bytes the Lua allocator may hold */

lua_State *sr_lua_new(size_t mem_limit);
void sr_lua_close(lua_State *L);

/* lua_pcall with a traceback handler. On error returns -1, err holds the message's first
 * line and, when trace is not NULL, *trace the full traceback (caller frees). */
int sr_lua_pcall(lua_State *L, int nargs, int nresults, char *err, size_t errlen, char **trace);

/* require(name) protected; leaves the module on the stack. */
int sr_lua_require(lua_State *L, const char *name, char *err, size_t errlen);

#endif
