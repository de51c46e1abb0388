/* watch.c: the process's one step deadline (watch.h). The thread sleeps on a condition variable
 * (CLOCK_MONOTONIC) and, when a deadline passes, only calls write, fs_cleanup_now and _exit, so
 * whatever the blocked thread holds (an MPI library lock) does not matter. It is started at the
 * first watch_arm and lives until the process ends. */
#include "util/watch.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util/fsutil.h"
#include "util/timing.h"

static struct {
    pthread_once_t once;
    pthread_mutex_t lock;
    pthread_cond_t wake;            /* on CLOCK_MONOTONIC, like timing_now() */
    double end;                     /* timing_now() at which the process ends; 0: disarmed */
    int exit_code;
    char message[1100];             /* one line, newline included */
} W = { .once = PTHREAD_ONCE_INIT, .lock = PTHREAD_MUTEX_INITIALIZER };

static void fire(void)
{
    ssize_t w = write(STDERR_FILENO, W.message, strlen(W.message));
    (void)w;
    fs_cleanup_now();
    _exit(W.exit_code);
}

static void *watch_thread(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&W.lock);
    for (;;) {
        if (W.end > 0 && timing_now() >= W.end)
            fire();
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        if (W.end > 0) {
            double wait = W.end - timing_now() + 1e-3;
            long ns = ts.tv_nsec + (long)((wait - (double)(long)wait) * 1e9);
            ts.tv_sec += (time_t)wait + ns / 1000000000L;
            ts.tv_nsec = ns % 1000000000L;
        } else {
            ts.tv_sec += 3600;
        }
        pthread_cond_timedwait(&W.wake, &W.lock, &ts);
    }
    return NULL;
}

static void start(void)
{
    pthread_condattr_t attr;
    pthread_attr_t ta;
    pthread_t t;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&W.wake, &attr);
    pthread_condattr_destroy(&attr);
    pthread_attr_init(&ta);
    pthread_attr_setdetachstate(&ta, PTHREAD_CREATE_DETACHED);
    if (pthread_create(&t, &ta, watch_thread, NULL) != 0) {
        static const char msg[] = "sparkreport: cannot start the thread that keeps step deadlines\n";
        ssize_t w = write(STDERR_FILENO, msg, sizeof msg - 1);
        (void)w;
    }
    pthread_attr_destroy(&ta);
}

void watch_arm(double seconds, const char *message, int exit_code)
{
    pthread_once(&W.once, start);
    pthread_mutex_lock(&W.lock);
    snprintf(W.message, sizeof W.message, "%.1024s\n", message);
    W.exit_code = exit_code;
    W.end = timing_now() + (seconds > 0 ? seconds : 0);
    pthread_cond_signal(&W.wake);
    pthread_mutex_unlock(&W.lock);
}

void watch_disarm(void)
{
    pthread_mutex_lock(&W.lock);
    W.end = 0;
    pthread_cond_signal(&W.wake);
    pthread_mutex_unlock(&W.lock);
}
