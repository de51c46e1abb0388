/* env.h: the environment variables the OpenMP and BLAS libraries read, checked before anything
 * runs (env.c), and the thread limits they and every `threads` parameter share. The machine
 * itself is util/machine.h's. */
#ifndef SR_ENV_H
#define SR_ENV_H

#include <stddef.h>

/* The most threads anything takes: every experiment's `threads` parameter stops here, and so
 * do the variables the OpenMP and BLAS libraries read (env_check_threads). */
#define ENV_MAX_THREADS 4096
#define ENV_MAX_STACKSIZE ((double)(1 << 30))      /* OMP_STACKSIZE: bytes per thread */

/* The variables that reach the OpenMP and BLAS libraries (OMP_NUM_THREADS, OMP_THREAD_LIMIT,
 * OMP_STACKSIZE, OPENBLAS_NUM_THREADS, GOTO_NUM_THREADS), checked before anything runs:
 * libgomp parsed them when it loaded and would start 65536 threads, or fail inside a
 * measurement. -1 with "OMP_NUM_THREADS=65536: at most 4096 threads ...", naming the variable. */
int env_check_threads(char *err, size_t errlen);

/* Our own variables that set a time (SPARKREPORT_MPI_JOIN_S: joining an MPI job, 1 .. 86400 s;
 * SPARKREPORT_SCENARIO_TIME_S: a scenario's code until it returns, 0.1 .. 3600 s), read here and
 * only here: *seconds is the variable's value, or def when it is unset or empty; -1 with
 * "NAME=VALUE: must be a number of seconds from LO to HI ..." when it is anything else (a word, a
 * unit, 0, a negative, nan, beyond the limit), never replaced by the default in silence. */
int env_seconds(const char *name, double def, double *seconds, char *err, size_t errlen);

/* Every variable env_seconds reads, checked before a run starts: 0, or -1 naming the first bad one. */
int env_check_seconds(char *err, size_t errlen);

#endif
