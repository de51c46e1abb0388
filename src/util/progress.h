/* progress.h: what a long run says while it works: which experiment, how far, how much time
 * is left, on stderr (unless quiet) and in the run's log. Measurements report; they never
 * print themselves. */
#ifndef SR_PROGRESS_H
#define SR_PROGRESS_H

#include <stdio.h>

#include "util/error.h"

void progress_quiet(int quiet);
void progress_log(FILE *log);            /* also write every line here; NULL stops */

/* Starts a phase of `total` steps expected to take about budget_s seconds. */
void progress_begin(const char *phase, int total, double budget_s);
void progress_step(int done, const char *item);
void progress_end(void);

/* Stopping early (SIGINT/SIGTERM, see util/signals.c): experiments ask progress_stopping() between
 * measurements and return what they have; the run is then marked partial. */
void progress_request_stop(int signo);
int progress_stopping(void);          /* the signal number asked for, or 0 */

/* Whether a stop cut an experiment short, or came after its measurements: progress_expect before
 * each experiment (is_last: the run's last one); progress_ended() is then 1 once its phase ended
 * (progress_end) before any stop was asked, and progress_measured() 1 when that phase was the
 * last one's: a stop from then on cuts nothing measured (signals.c says so). */
void progress_expect(int is_last);
int progress_ended(void);
int progress_measured(void);

/* Inside one long kernel (a GEMM in panels, a training step in ops): progress_cut() between
 * tiles says to abandon the work now, because a stop was asked or the hard deadline set with
 * progress_deadline (timing_now() seconds; 0: none) has passed. A kernel that gives up returns
 * NAN instead of a time; the harness (measure.c) stops repeating once it is set. */
void progress_deadline(double end_s);
int progress_cut(void);

/* A line for the user and the log: "sparkreport: note: ..." */
void progress_note(const char *fmt, ...) SR_PRINTF(1, 2);

#endif
