/* signals.h: what SIGINT and SIGTERM do. During a run the first one asks the run to stop after
 * the current measurement (progress_request_stop); a second one, or any during another command,
 * removes the temporaries registered with fs_cleanup_add and exits at once. Which files those
 * are is the caller's (cmd/run.c's run_files[]); what "stop" means is the experiments'. */
#ifndef SR_SIGNALS_H
#define SR_SIGNALS_H

/* Installs the SIGINT/SIGTERM handlers, and for every other signal that would end the process
 * (SIGHUP, SIGPIPE, SIGQUIT, SIGUSR1/2, SIGALRM, SIGVTALRM, SIGXCPU, ...) one that always stops at
 * once, naming it, removing the temporaries (SIGQUIT then ends as its default would, with a
 * core); SIGPROF is ignored; crashes (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGSYS) remove the
 * temporaries, say so and end as their default would (not in sanitizer builds). first_is_gentle (run): the first signal asks the run
 * to stop after the current measurement (progress_stopping), unless quiet saying so on stderr;
 * a second one, or any when not gentle (every other command), removes the temporaries
 * registered with fs_cleanup_add and exits 128 + the signal's number at once. The first call
 * also removes them at exit (DIE and other exits). */
void signals_catch(int first_is_gentle, int quiet);

/* What stopped a run, in the words the results and stderr use: "interrupted by SIGINT",
 * "stopped by SIGTERM". */
const char *signals_stopped_by(int sig);

/* The run's measurements are done: a gentle first signal now says the results are complete and
 * only what follows them (the comparison with a baseline) is cut short. */
void signals_measured(void);

/* The run's folder dir is complete and published: a signal from now on ends the process at once
 * (128 + its number), saying that dir was kept whole and nothing was cut; nothing is removed. */
void signals_finished(const char *dir);

#endif
