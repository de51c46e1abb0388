/* collective.h: the collective experiment (sr.collective): point-to-point latency and bandwidth
 * and all-reduce, all-gather and reduce-scatter across the ranks an MPI launcher started, with
 * nccl-tests' algorithm and bus bandwidth. Rank 0 runs the scenario and writes the run folder;
 * the others only serve its collectives (coll_serve) and write nothing. The job itself (joining,
 * ranks, leaving) is src/job/job.h's. */
#ifndef SR_COLLECTIVE_H
#define SR_COLLECTIVE_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "util/param.h"

extern const struct param coll_params[];

int coll_precheck(const cJSON *params, char *err, size_t errlen);
cJSON *coll_run(const cJSON *params, double budget_s, char *err, size_t errlen);

/* What carries the device buffers between ranks ("NCCL 2.28.9") into buf, or NULL when this build
 * has no such backend. */
const char *coll_device_transport(char *buf, size_t n);

/* Ranks above 0 of the job (src/job/job.h): serve rank 0's commands until it says stop; returns
 * the exit code. */
int coll_serve(void);

/* Rank 0, whatever the run's outcome: tells the other ranks to stop serving (then main.c leaves
 * the job). A no-op without a job. */
void coll_stop_serving(void);

#endif
