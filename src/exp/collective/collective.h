/* collective.h: the collective experiment (sr.collective): point-to-point latency and bandwidth
 * and all-reduce, all-gather and reduce-scatter across the ranks an MPI launcher started, with
 * nccl-tests' algorithm and bus bandwidth; and the life of those ranks: rank 0 runs the scenario
 * and writes the run folder, the others only serve its collectives and write nothing. */
#ifndef SR_COLLECTIVE_H
#define SR_COLLECTIVE_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "util/param.h"

extern const struct param coll_params[];

int coll_precheck(const cJSON *params, char *err, size_t errlen);
cJSON *coll_run(const cJSON *params, double budget_s, char *err, size_t errlen);

/* Joins the job when a launcher started this process (OMPI_COMM_WORLD_SIZE, PMIX_RANK or
 * PMI_RANK in the environment): MPI_Init_thread, errors returned, not fatal. Returns this
 * process's rank (0 when alone or without MPI), or -1 with a message on stderr. */
int coll_launch_init(int *argc, char ***argv);

/* 1 when this process is one of several ranks of a job. */
int coll_launched(void);

/* Ranks above 0: serve rank 0's commands until it says stop; returns the exit code. */
int coll_serve(void);

/* Rank 0, whatever the run's outcome: tells the other ranks to stop, then MPI_Finalize. A no-op
 * without a job. */
void coll_launch_finish(void);

/* The job as results.json's context records it (ranks, hosts, launcher, transport,
 * interfaces), or NULL when this process is alone. */
cJSON *coll_context(void);

#endif
