/* deadline.h: the last resort behind a Lua state's limits: a thread that ends the process when
 * code the count hook cannot reach (a __gc finalizer, which Lua runs without hooks, also inside
 * lua_close; one long C call) outlives a wall-clock deadline, or ignores SIGINT/SIGTERM. The
 * state (state.c) decides when to start and stop it; this file only watches the clock. */
#ifndef SR_LUA_DEADLINE_H
#define SR_LUA_DEADLINE_H

#define SR_LUA_STOP_GRACE_S 1.0     /* after a SIGINT/SIGTERM nothing acted on, before the exit */

struct sr_lua_deadline;

/* From now on, when the monotonic clock passes `end` (timing_now() seconds), or
 * SR_LUA_STOP_GRACE_S after progress_stopping() first says a signal came, write message (or a
 * line naming the signal) to stderr, remove the registered temporaries (fs_cleanup_now) and
 * _exit(exit_code), or 128 + the signal. */
struct sr_lua_deadline *sr_lua_deadline_start(double end, const char *message, int exit_code);

/* Ends the watch (the code returned in time) and frees it; NULL is fine. */
void sr_lua_deadline_stop(struct sr_lua_deadline *d);

#endif
