/* convert.h: Lua values <-> cJSON. Tables with keys 1..n become arrays, others objects with
 * keys sorted (so files diff cleanly); JSON null becomes NaN in arrays and is dropped in
 * objects. Values JSON cannot hold (functions, userdata, cycles) are errors naming their path. */
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
 * tables raw: no metamethod runs. */
cJSON *lua_to_json(lua_State *L, int idx, const char *root, char *err, size_t errlen);

/* lua_to_json inside a protected call, for values from code that may have used up the
 * state's memory. */
cJSON *lua_to_json_protected(lua_State *L, int idx, const char *root, char *err, size_t errlen);

#endif
