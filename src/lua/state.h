/* state.h: the sandboxed Lua state scenarios and templates run in: safe base functions,
 * string, table, math, utf8, coroutine, a read-only os subset, `require` of the embedded Lua
 * library and the C modules bench and pdf only, a memory ceiling, a time limit for Lua code
 * outside measurements (and a wall-clock deadline), and protected calls that turn any error
 * into one line "FILE:LINE: message" at the user's code (the traceback goes to the log). The stack is bounded by Lua itself:
 * LUAI_MAXSTACK slots ("stack overflow") and LUAI_MAXCCALLS nested C calls. */
#ifndef SR_LUA_STATE_H
#define SR_LUA_STATE_H

#include <stddef.h>

#include <lua.h>

#define SR_LUA_MEM_LIMIT ((size_t)1 << 30)     /* bytes the Lua allocator may hold */
#define SR_LUA_SCENARIO_MEM_LIMIT ((size_t)128 << 20) /* a scenario declares; it needs little */
#define SR_LUA_SCENARIO_TIME_S 10.0             /* a scenario's code, until it returns (CPU s) */
#define SR_LUA_TIME_S 600.0                     /* runner and templates, measurements excluded */

lua_State *sr_lua_new(size_t mem_limit);
void sr_lua_close(lua_State *L);

/* From now on, Lua code in L may use `seconds` of processor time (of the thread running it)
 * in all, time inside measurements (between sr_lua_pause_clock and sr_lua_resume_clock)
 * excluded; then it ends with the error "FILE:LINE: Lua code ran for more than N s of
 * processor time ...". Checked every thousand VM instructions, so a long call inside one C
 * function is not cut short (see sr_lua_watchdog). */
void sr_lua_limit_time(lua_State *L, double seconds);
void sr_lua_pause_clock(lua_State *L);
void sr_lua_resume_clock(lua_State *L);

/* The state a scenario file runs in: a time limit as above that says "the scenario", an
 * end at SIGINT/SIGTERM (progress_stopping), and no measurements (bench.run refuses). */
void sr_lua_scenario_mode(lua_State *L, double seconds);

/* From now on (on = 1) Lua code in every state, not only a scenario's, ends at SIGINT/SIGTERM
 * (progress_stopping) with "interrupted by SIGTERM": for what a run does after its measurements
 * are written (the comparison with a baseline), which a stop may cut short. */
void sr_lua_stop_on_signal(int on);
int sr_lua_is_scenario(lua_State *L);

/* A wall-clock deadline besides the processor-time limit, for what the count hook cannot
 * reach: Lua runs __gc finalizers without hooks (also those lua_close runs), and a C function
 * called from Lua does not return to the hook; neither the time limit nor SIGINT/SIGTERM ends
 * them. From this call until sr_lua_close(L) returns: Lua code still running after `seconds` of
 * wall-clock time ends with "FILE:LINE: ... more than N s of wall-clock time ..."; code the hook
 * cannot stop ends the process SR_LUA_DEADLINE_GRACE_S later, with "NAME: the scenario did not
 * finish within N s of wall-clock time ..." and exit_code, or SR_LUA_STOP_GRACE_S after a
 * SIGINT/SIGTERM nothing acted on, with 128 + the signal (src/lua/deadline.h). Only for code
 * that has written nothing yet. */
#define SR_LUA_DEADLINE_GRACE_S 1.0
void sr_lua_deadline(lua_State *L, double seconds, const char *name, int exit_code);

/* The state's memory ceiling (SR_LUA_MEM_LIMIT for one sr_lua_new did not make); also the most
 * lua_to_json copies out of it (convert.h). */
size_t sr_lua_mem_limit(lua_State *L);

/* A backstop for what the time limit cannot reach (one C call that never returns to Lua):
 * after `seconds` of the process's processor time, print message and _exit(exit_code). Only
 * for code that has written nothing yet. seconds = 0 disarms it. Uses SIGPROF, ITIMER_PROF. */
void sr_lua_watchdog(double seconds, const char *message, int exit_code);

/* lua_pcall with a traceback handler. On error returns -1, err holds the message's first
 * line and, when trace is not NULL, *trace the full traceback (caller frees). The line is
 * "FILE:LINE: message" for every error shape: an error object that is not a string (nil, a
 * table, one whose __tostring fails) says what it is; an error our embedded library raised, or
 * one without a position (a C function's, "C stack overflow"), while the user's code (a Lua
 * function not from the embedded library) is on the stack is placed at the innermost such
 * function's line. */
int sr_lua_pcall(lua_State *L, int nargs, int nresults, char *err, size_t errlen, char **trace);

/* require(name) protected; leaves the module on the stack. */
int sr_lua_require(lua_State *L, const char *name, char *err, size_t errlen);

#endif
