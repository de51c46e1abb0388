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

#endif
