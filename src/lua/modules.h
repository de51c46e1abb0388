/* modules.h: the C modules the Lua state opens (bench: measurements and the run's data;
 * pdf: drawing), and the hand-over of a C-owned document to Lua. */
#ifndef SR_LUA_MODULES_H
#define SR_LUA_MODULES_H

#include <lua.h>

struct pdf_doc;

int luaopen_bench(lua_State *L);
int luaopen_pdf(lua_State *L);

/* Pushes a Lua object drawing into d. d stays owned by the caller and must outlive every use
 * of the object; lpdf_detach(L, idx) makes the object refuse further calls. */
void lpdf_push_doc(lua_State *L, struct pdf_doc *d);
void lpdf_detach(lua_State *L, int idx);

#endif
