/* convert.h: Lua values <-> cJSON. Tables with keys 1..n become arrays, others objects with
 * keys sorted (so files diff cleanly); JSON null becomes NaN in arrays and is dropped in
 * objects. Values JSON cannot hold (functions, userdata, cycles) are errors naming their path. */
#ifndef SR_LUA_CONVERT_H
#define SR_LUA_CONVERT_H

#include <stddef.h>

#include <cjson/cJSON.h>
#include <lua.h>

void lua_push_json(lua_State *L, const cJSON *j);

/* NULL with err = "PATH: reason" (PATH like "params.kernels[2]", rooted at `root`). */
cJSON *lua_to_json(lua_State *L, int idx, const char *root, char *err, size_t errlen);

#endif
