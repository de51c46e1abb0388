/* deadline.c: a watcher thread that ends the process when Lua code runs past a wall-clock
 * deadline where no hook can stop it, or ignores a stop request. It sleeps on a condition
 * variable (woken at once by sr_lua_deadline_stop) and only calls write, fs_cleanup_now and
 * _exit when it fires, so whatever the main thread holds does not matter. */
#include "lua/deadline.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util/error.h"
#include "util/fsutil.h"
#include "util/progress.h"
#include "util/timing.h"

#define POLL_S 0.1                  /* how often the watcher looks for a stop request */

struct sr_lua_deadline {
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t wake;            /* on CLOCK_MONOTONIC, like timing_now() */
    int done;                       /* set by sr_lua_deadline_stop, under lock */
    double end;                     /* timing_now() at which the process ends */
    int exit_code;
    char message[1024];             /* one line, newline included */
};

static void die_now(const char *message, int code)
{
    ssize_t w = write(STDERR_FILENO, message, strlen(message));
    (void)w;
    fs_cleanup_now();
    _exit(code);
}

static void die_stopped(int sig)
{
    char line[256];
    snprintf(line, sizeof line, "sparkreport: %s came while Lua code could not be interrupted (a __gc "
             "finalizer or one long library call); stopped, nothing was written\n",
             sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "a signal");
    die_now(line, 128 + sig);
}

static void *watch(void *arg)
{
    struct sr_lua_deadline *d = arg;
    double stop_seen = 0;
    pthread_mutex_lock(&d->lock);
    while (!d->done) {
        double now = timing_now(), wait = POLL_S;
        int sig = progress_stopping();
        if (now >= d->end)
            die_now(d->message, d->exit_code);
        if (sig && stop_seen == 0)
            stop_seen = now;
        if (sig && now >= stop_seen + SR_LUA_STOP_GRACE_S)
            die_stopped(sig);
        if (d->end - now < wait)
            wait = d->end - now;
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        long ns = ts.tv_nsec + (long)(wait * 1e9);
        ts.tv_sec += ns / 1000000000L;
        ts.tv_nsec = ns % 1000000000L;
        pthread_cond_timedwait(&d->wake, &d->lock, &ts);
    }
    pthread_mutex_unlock(&d->lock);
    return NULL;
}

struct sr_lua_deadline *sr_lua_deadline_start(double end, const char *message, int exit_code)
{
    struct sr_lua_deadline *d = xcalloc(1, sizeof *d);
    pthread_condattr_t attr;
    d->end = end;
    d->exit_code = exit_code;
    snprintf(d->message, sizeof d->message, "%.1020s\n", message);
    pthread_mutex_init(&d->lock, NULL);
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&d->wake, &attr);
    pthread_condattr_destroy(&attr);
    if (pthread_create(&d->thread, NULL, watch, d) != 0)
        DIE("cannot start the thread that watches Lua's wall-clock deadline");
    return d;
}

void sr_lua_deadline_stop(struct sr_lua_deadline *d)
{
    if (!d)
        return;
    pthread_mutex_lock(&d->lock);
    d->done = 1;
    pthread_cond_signal(&d->wake);
    pthread_mutex_unlock(&d->lock);
    pthread_join(d->thread, NULL);
    pthread_cond_destroy(&d->wake);
    pthread_mutex_destroy(&d->lock);
    free(d);
}
