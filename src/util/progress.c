/* progress.c: progress lines on stderr and in the log. On a terminal a step rewrites its
 * line; elsewhere (CI logs, files) each step is printed at most every few seconds. */
#include "util/progress.h"

#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/timing.h"
#include "util/units.h"

static struct {
    int quiet;
    FILE *log;
    char phase[64];
    int total;
    double budget, start, last_print;
    int open_line;
} P;

static volatile sig_atomic_t stop_signal;
static volatile sig_atomic_t ended;     /* the phase ended before any stop was asked (progress_ended) */
static volatile sig_atomic_t last;      /* the phase is the run's last measurement (progress_expect) */
static double cut_at;                   /* timing_now() seconds, or 0 */

void progress_request_stop(int signo) { stop_signal = signo; }
int progress_stopping(void) { return stop_signal; }
void progress_expect(int is_last)
{
    ended = 0;
    last = is_last;
}
int progress_ended(void) { return ended; }
int progress_measured(void) { return last && ended; }
void progress_deadline(double end_s) { cut_at = end_s; }
int progress_cut(void) { return stop_signal || (cut_at > 0 && timing_now() >= cut_at); }

void progress_quiet(int quiet) { P.quiet = quiet; }
void progress_log(FILE *log) { P.log = log; }

static void close_line(void)
{
    if (P.open_line) {
        fputc('\n', stderr);
        P.open_line = 0;
    }
}

void progress_begin(const char *phase, int total, double budget_s)
{
    char b[32];
    ended = 0;
    snprintf(P.phase, sizeof P.phase, "%s", phase);
    P.total = total;
    P.budget = budget_s;
    P.start = timing_now();
    P.last_print = 0;
    units_format_duration(budget_s, b, sizeof b);
    if (!P.quiet) {
        close_line();
        fprintf(stderr, "[%s] %d measurements, about %s\n", phase, total, b);
    }
    if (P.log)
        fprintf(P.log, "[%s] begin: %d measurements, budget %.1f s\n", phase, total, budget_s);
}

void progress_step(int done, const char *item)
{
    double now = timing_now(), el = now - P.start;
    double left = P.budget - el;
    char b[32];
    if (done > 0 && P.total > 0) {
        double by_rate = el / done * (P.total - done);
        if (by_rate < left || left < 0)
            left = by_rate;
    }
    units_format_duration(left > 0 ? left : 0, b, sizeof b);
    if (P.log)
        fprintf(P.log, "[%s] %d/%d %s (%.1f s)\n", P.phase, done, P.total, item, el);
    if (P.quiet)
        return;
    if (isatty(STDERR_FILENO)) {
        fprintf(stderr, "\r[%s] %d/%d %-40.40s %s left\033[K", P.phase, done, P.total, item, b);
        P.open_line = 1;
    } else if (now - P.last_print > 5.0 || done == P.total) {
        fprintf(stderr, "[%s] %d/%d %s, %s left\n", P.phase, done, P.total, item, b);
        P.last_print = now;
    }
}

void progress_end(void)
{
    ended = !stop_signal;               /* before "done in" is said: whoever reads it may stop the run */
    double el = timing_now() - P.start;
    char b[32];
    units_format_duration(el, b, sizeof b);
    if (!P.quiet) {
        close_line();
        fprintf(stderr, "[%s] done in %s\n", P.phase, b);
    }
    if (P.log)
        fprintf(P.log, "[%s] done in %.2f s\n", P.phase, el);
}

void progress_note(const char *fmt, ...)
{
    va_list ap;
    char *msg = NULL;                   /* as long as it is: a note is never cut */
    va_start(ap, fmt);
    int n = vasprintf(&msg, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if (!P.quiet) {
        close_line();
        fprintf(stderr, "sparkreport: %s\n", msg);
    }
    if (P.log)
        fprintf(P.log, "%s\n", msg);
    free(msg);
}
