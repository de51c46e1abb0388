/* convert.h: Lua values <-> cJSON. Tables with keys 1..n become arrays, others objects with
 * keys sorted (so files diff cleanly); JSON null becomes NaN in arrays and is dropped in
 * objects. Values JSON cannot hold (functions, userdata, cycles) and copies larger than the
 * state's memory ceiling are errors naming their path. */
#ifndef SR_LUA_CONVERT_H
#define SR_LUA_CONVERT_H

#include <stddef.h>

#include <cjson/cJSON.h>
#include <lua.h>

void lua_push_json(lua_State *L, const cJSON *j);

/* lua_push_json inside a protected call: a document too large for the state's memory ceiling
 * is an error (-1, err says why), not a panic. */
int lua_push_json_protected(lua_State *L, const cJSON *j, char *err, size_t errlen);

/* NULL with err = "PATH: reason" (PATH like "params.kernels[2]", rooted at `root`). Reads
 * tables raw: no metamethod runs. What it copies is counted (a node, sizeof(cJSON) bytes, plus
 * its string and key), not what Lua holds: a table referenced from several places is copied
 * once for each, so the copy stops at the state's memory ceiling (sr_lua_mem_limit: 128 MiB
 * for a scenario) with "ROOT: more than N once copied out of Lua ...". A table met again on
 * the way down from the root is a cycle, an error; one met again elsewhere is copied again. */
cJSON *lua_to_json(lua_State *L, int idx, const char *root, char *err, size_t errlen);

/* lua_to_json inside a protected call, for values from code that may have used up the
 * state's memory. */
cJSON *lua_to_json_protected(lua_State *L, int idx, const char *root, char *err, size_t errlen);

/* The same for a scenario's values, which are plain data: a table with a metatable is refused
 * ("PATH: a table with a metatable is not data ..."), since what the scenario's code would read
 * through __index or __pairs is not what the table holds. */
cJSON *lua_to_json_plain(lua_State *L, int idx, const char *root, char *err, size_t errlen);
cJSON *lua_to_json_plain_protected(lua_State *L, int idx, const char *root, char *err, size_t errlen);

#endif
