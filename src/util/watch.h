/* watch.h: one deadline for the whole process, kept by a thread: a step that can block for ever
 * in code we do not control (joining an MPI job, a collective waiting for a rank that stopped) is
 * armed with how long it may take; when it takes longer the thread writes the message, removes
 * the registered temporaries (fs_cleanup_now) and ends the process. Which steps, and how long,
 * is the caller's (collective_mpi.c). */
#ifndef SR_WATCH_H
#define SR_WATCH_H

/* Arms the deadline: `seconds` from now (a wall clock, CLOCK_MONOTONIC), the process writes
 * message (one line; a newline is added) to stderr, fs_cleanup_now() and _exit(exit_code).
 * Re-arming replaces the previous deadline. The message is copied (at most 1 KiB). */
void watch_arm(double seconds, const char *message, int exit_code);

/* The step finished in time: no deadline until the next watch_arm. */
void watch_disarm(void);

#endif
