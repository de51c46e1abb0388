/* signals.h: what SIGINT and SIGTERM do. During a run the first one asks the run to stop after
 * the current measurement (progress_request_stop); a second one, or any during another command,
 * removes the temporaries registered with fs_cleanup_add and exits at once. Which files those
 * are is the caller's (cmd/run.c's run_files[]); what "stop" means is the experiments'. */
#ifndef SR_SIGNALS_H
#define SR_SIGNALS_H

/* Installs the SIGINT/SIGTERM handlers, and SIGPIPE/SIGHUP ones that always stop at once (the
 * reader of the progress is gone) removing the temporaries. first_is_gentle (run): the first signal asks the run
 * to stop after the current measurement (progress_stopping), unless quiet saying so on stderr;
 * a second one, or any when not gentle (every other command), removes the temporaries
 * registered with fs_cleanup_add and exits 128 + the signal's number at once. The first call
 * also removes them at exit (DIE and other exits). */
void signals_catch(int first_is_gentle, int quiet);

#endif
