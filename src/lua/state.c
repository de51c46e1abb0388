/* state.c: builds the sandbox. What scenarios may touch is decided here and only here;
 * the modules themselves (lbench.c, lpdf.c) assume they run inside it. The limits (memory,
 * time outside measurements, Lua's own stack bounds) are enforced here too. */
#include "lua/state.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <lauxlib.h>
#include <lualib.h>

#include "lua/deadline.h"
#include "lua/embedded.h"
#include "lua/modules.h"
#include "util/error.h"
#include "util/progress.h"
#include "util/timing.h"
#include "util/units.h"

#define HOOK_EVERY 1000             /* VM instructions between two looks at the clock */

/* The clock of the limit: processor time of the calling thread (the one running Lua), so a
 * busy machine does not end a scenario that would finish, and a measurement's other threads
 * do not count. */
static double lua_clock(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* One per state, the allocator's user data, so every thread of the state reaches it. */
struct limits {
    size_t used, limit;             /* bytes the Lua allocator holds, and its ceiling */
    lua_State *L;                   /* the main thread, to name where memory ran out */
    char oom_where[256];            /* "FILE:LINE" of the Lua code whose allocation was refused */
    double time_limit;              /* processor seconds of Lua outside measurements; 0: none */
    double deadline;                /* lua_clock() at which that time is spent */
    double paused_at;               /* lua_clock() when a measurement began; 0: none running */
    int scenario;                   /* scenario state: interruptible, measurements refused */
    double wall_s, wall_end;        /* sr_lua_deadline: its length, and timing_now() at its end */
    struct sr_lua_deadline *watcher;    /* the process's end SR_LUA_DEADLINE_GRACE_S later */
};

static struct limits *limits_of(lua_State *L)
{
    void *ud;
    lua_getallocf(L, &ud);
    return ud;
}

/* Is this function's source one of the embedded library's files ("@lua/sparkreport/...")? */
static int is_library(const lua_Debug *ar)
{
    return ar->source[0] == '@' && embedded_find(ar->source + 1) != NULL;
}

/* Where an error happened, as "FILE:LINE": the innermost Lua function of the user's code (not
 * our embedded library) when there is one (returns 1), else the innermost Lua function (returns
 * 0; "" when none has a line). Reads CallInfo only: no allocation, no call. */
static int error_where(lua_State *L, char *where, size_t n)
{
    lua_Debug ar;
    where[0] = '\0';
    for (int level = 0; L && lua_getstack(L, level, &ar); level++) {
        if (!lua_getinfo(L, "Sl", &ar) || ar.currentline <= 0)
            continue;
        if (!is_library(&ar)) {
            snprintf(where, n, "%s:%d", ar.short_src, ar.currentline);
            return 1;
        }
        if (!where[0])
            snprintf(where, n, "%s:%d", ar.short_src, ar.currentline);
    }
    return 0;
}

/* Where memory ran out, for out-of-memory messages (Lua calls no message handler for those).
 * A refusal with no Lua function on the stack (while Lua unwinds the error) keeps the last
 * place. */
static void note_oom_where(struct limits *m)
{
    char where[sizeof m->oom_where];
    error_where(m->L, where, sizeof where);
    if (where[0])
        memcpy(m->oom_where, where, sizeof where);
}

static void *limited_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
    struct limits *m = ud;
    size_t old = ptr ? osize : 0;
    if (nsize == 0) {
        free(ptr);
        m->used -= old;
        return NULL;
    }
    if (nsize > old && m->used - old + nsize > m->limit) {
        note_oom_where(m);
        return NULL;                        /* Lua raises "not enough memory" */
    }
    void *p = realloc(ptr, nsize);
    if (p)
        m->used = m->used - old + nsize;
    return p;
}

static int stop_any;                /* sr_lua_stop_on_signal: every state ends at a stop request */

void sr_lua_stop_on_signal(int on)
{
    stop_any = on;
}

/* Why code in L must end now, into msg; 0: it may go on. */
static int must_end(struct limits *m, char *msg, size_t n)
{
    int sig = m->scenario || stop_any ? progress_stopping() : 0;
    const char *who = m->scenario ? "the scenario" : "Lua code";
    if (sig)
        snprintf(msg, n, "interrupted by %s", sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "a signal");
    else if (m->wall_end > 0 && timing_now() > m->wall_end)
        snprintf(msg, n, "%s ran for more than %g s of wall-clock time (its deadline): an endless loop?", who, m->wall_s);
    else if (m->paused_at > 0 || m->time_limit <= 0 || lua_clock() <= m->deadline)
        return 0;
    else
        snprintf(msg, n, "%s ran for more than %g s of processor time (%s): an endless loop?", who, m->time_limit,
                 m->scenario ? "its limit until it returns the experiments" : "the limit outside measurements");
    return 1;
}

/* The count hook: ends code that runs past its time, or (in a scenario) past a signal. Once
 * it has fired it fires on every instruction of that thread, so a scenario that catches the
 * error with pcall and loops on cannot outlast it. */
static void budget_hook(lua_State *L, lua_Debug *ar)
{
    char msg[200];
    if (!must_end(limits_of(L), msg, sizeof msg))
        return;
    lua_sethook(L, budget_hook, LUA_MASKCOUNT, 1);
    if (lua_getinfo(L, "Sl", ar) && ar->currentline > 0)    /* ar: the function running now */
        lua_pushfstring(L, "%s:%d: %s", ar->short_src, ar->currentline, msg);
    else
        lua_pushstring(L, msg);
    lua_error(L);
}

void sr_lua_limit_time(lua_State *L, double seconds)
{
    struct limits *m = limits_of(L);
    m->time_limit = seconds;
    m->deadline = lua_clock() + seconds;
    m->paused_at = 0;
    lua_sethook(L, budget_hook, LUA_MASKCOUNT, HOOK_EVERY);
}

void sr_lua_scenario_mode(lua_State *L, double seconds)
{
    limits_of(L)->scenario = 1;
    sr_lua_limit_time(L, seconds);
}

void sr_lua_deadline(lua_State *L, double seconds, const char *name, int exit_code)
{
    struct limits *m = limits_of(L);
    char msg[1024];
    m->wall_s = seconds;
    m->wall_end = timing_now() + seconds;
    snprintf(msg, sizeof msg, "%.700s: %s did not finish within %g s of wall-clock time, inside code that "
             "cannot be interrupted (a __gc finalizer or one long library call); stopped",
             name, m->scenario ? "the scenario" : "Lua code", seconds + SR_LUA_DEADLINE_GRACE_S);
    sr_lua_deadline_stop(m->watcher);
    m->watcher = sr_lua_deadline_start(m->wall_end + SR_LUA_DEADLINE_GRACE_S, msg, exit_code);
    if (!lua_gethook(L))
        lua_sethook(L, budget_hook, LUA_MASKCOUNT, HOOK_EVERY);
}

size_t sr_lua_mem_limit(lua_State *L)
{
    void *ud;
    if (lua_getallocf(L, &ud) != limited_alloc)     /* a state sr_lua_new did not make */
        return SR_LUA_MEM_LIMIT;
    return ((struct limits *)ud)->limit;
}

int sr_lua_is_scenario(lua_State *L)
{
    return limits_of(L)->scenario;
}

void sr_lua_pause_clock(lua_State *L)
{
    struct limits *m = limits_of(L);
    if (m->paused_at == 0)
        m->paused_at = lua_clock();
}

void sr_lua_resume_clock(lua_State *L)
{
    struct limits *m = limits_of(L);
    if (m->paused_at > 0) {
        m->deadline += lua_clock() - m->paused_at;
        m->paused_at = 0;
    }
}

/* The hook cannot end a call that never returns to the VM (string.find on a pattern that
 * backtracks for hours). The watchdog can: when its alarm rings it writes the message it was
 * given and exits, which is safe while nothing has been written yet. Its handler is installed only
 * while it watches, and takes only its own timer's signal (sent by the kernel): a SIGPROF that
 * someone sends (a profiler) is not the scenario running too long. */
static char watchdog_msg[1024];
static volatile sig_atomic_t watchdog_code;

static void watchdog_ring(int sig, siginfo_t *info, void *ctx)
{
    (void)sig;
    (void)ctx;
    if (info && info->si_code != SI_KERNEL)
        return;
    ssize_t w = write(STDERR_FILENO, watchdog_msg, strlen(watchdog_msg));
    (void)w;
    _exit(watchdog_code);
}

void sr_lua_watchdog(double seconds, const char *message, int exit_code)
{
    struct itimerval it;
    struct sigaction sa;
    memset(&it, 0, sizeof it);
    memset(&sa, 0, sizeof sa);
    sigemptyset(&sa.sa_mask);
    if (seconds > 0) {
        sa.sa_sigaction = watchdog_ring;
        sa.sa_flags = SA_SIGINFO;
        snprintf(watchdog_msg, sizeof watchdog_msg, "%s\n", message);
        watchdog_code = exit_code;
        sigaction(SIGPROF, &sa, NULL);
        it.it_value.tv_sec = (time_t)seconds;
        it.it_value.tv_usec = (suseconds_t)((seconds - (double)(time_t)seconds) * 1e6);
    }
    setitimer(ITIMER_PROF, &it, NULL);  /* processor time too, like the limit it backs */
    if (seconds <= 0) {                 /* not watching: a stray SIGPROF means nothing (signals.c) */
        sa.sa_handler = SIG_IGN;
        sigaction(SIGPROF, &sa, NULL);
    }
}

/* An error outside any protected call is a bug of ours; say so instead of aborting. */
static int panic(lua_State *L)
{
    const char *msg = lua_tostring(L, -1);
    fprintf(stderr, "sparkreport: unprotected Lua error (a bug): %s\n", msg ? msg : "not enough memory");
    exit(SR_EXIT_FAILURE);
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
    struct limits *m = xcalloc(1, sizeof *m);
    m->limit = mem_limit;
    lua_State *L = lua_newstate(limited_alloc, m);
    if (!L)
        DIE("cannot create a Lua state");
    m->L = L;
    lua_atpanic(L, panic);
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
    lua_sethook(L, budget_hook, LUA_MASKCOUNT, HOOK_EVERY);    /* no limit yet: a stop (sr_lua_stop_on_signal) */
    return L;
}

void sr_lua_close(lua_State *L)
{
    struct limits *m = limits_of(L);
    lua_close(L);                       /* runs the finalizers: still under the deadline */
    sr_lua_deadline_stop(m->watcher);
    free(m);
}

/* __tostring of the error object, called protected: it may itself raise or return nonsense. */
static int error_tostring(lua_State *L)
{
    luaL_tolstring(L, 1, NULL);
    return 1;
}

/* The error object at idx as text, pushed: a string or number as it is; else what its
 * __tostring returns, when that works; else "error object is a T value". */
static const char *error_text(lua_State *L, int idx)
{
    if (lua_type(L, idx) == LUA_TSTRING || lua_type(L, idx) == LUA_TNUMBER) {
        lua_pushvalue(L, idx);
        return lua_tostring(L, -1);
    }
    if (luaL_getmetafield(L, idx, "__tostring") != LUA_TNIL) {
        lua_pop(L, 1);
        lua_pushcfunction(L, error_tostring);
        lua_pushvalue(L, idx);
        if (lua_pcall(L, 1, 1, 0) == LUA_OK && lua_type(L, -1) == LUA_TSTRING)
            return lua_tostring(L, -1);
        lua_pop(L, 1);
    }
    return lua_pushfstring(L, "error object is a %s value", luaL_typename(L, idx));
}

/* Length of msg's "FILE:LINE: " prefix, 0 when it has none; *library: FILE is ours. */
static size_t position_length(const char *msg, int *library)
{
    for (const char *c = strchr(msg, ':'); c && c < msg + strcspn(msg, "\n"); c = strchr(c + 1, ':')) {
        size_t digits = strspn(c + 1, "0123456789");
        if (digits > 0 && c[1 + digits] == ':' && c[2 + digits] == ' ') {
            char file[256];
            snprintf(file, sizeof file, "%.*s", (int)(c - msg), msg);
            *library = embedded_find(file) != NULL;
            return (size_t)(c - msg) + digits + 3;
        }
    }
    *library = 0;
    return 0;
}

/* The message handler: every error becomes one line "FILE:LINE: message" at the user's code
 * where there is such a frame (an error our library raised on the user's behalf, a message
 * without a position, an error object that is not a string), then the traceback. */
static int traceback(lua_State *L)
{
    char where[300];
    int library, user = error_where(L, where, sizeof where), text = lua_type(L, 1) == LUA_TSTRING;
    const char *msg = error_text(L, 1);
    size_t pos = position_length(msg, &library);
    if (where[0] && (user || !text) && (pos == 0 || (user && library)))
        msg = lua_pushfstring(L, "%s: %s", where, msg + pos);
    luaL_traceback(L, L, msg, 1);
    return 1;
}

int sr_lua_pcall(lua_State *L, int nargs, int nresults, char *err, size_t errlen, char **trace)
{
    int base = lua_gettop(L) - nargs;
    limits_of(L)->oom_where[0] = '\0';
    lua_pushcfunction(L, traceback);
    lua_insert(L, base);
    int rc = lua_pcall(L, nargs, nresults, base);
    lua_remove(L, base);
    if (rc == LUA_OK)
        return 0;
    const char *msg = lua_tostring(L, -1);
    char oom[512];
    if (!msg)
        msg = "out of memory";
    if (rc == LUA_ERRMEM) {
        struct limits *m = limits_of(L);
        char lim[32];
        snprintf(oom, sizeof oom, "%s%snot enough memory: Lua code may hold at most %s",
                 m->oom_where, m->oom_where[0] ? ": " : "", units_format_bytes((double)m->limit, lim, sizeof lim));
        msg = oom;
    }
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
