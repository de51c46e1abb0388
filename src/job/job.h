/* job.h: the MPI job a launcher (mpirun) started, process-wide: main.c joins it before a run and
 * leaves it after; the run records it in the context block; the collective experiment measures
 * between its ranks. Without MPI in the build, or without a launcher, one rank. */
#ifndef SR_JOB_H
#define SR_JOB_H

#include <cjson/cJSON.h>

/* Joins the job when a launcher started this process (OMPI_COMM_WORLD_SIZE, PMIX_RANK or
 * PMI_RANK in the environment): MPI_Init_thread, errors returned, not fatal, within
 * SPARKREPORT_MPI_JOIN_S seconds (1 .. 86400, default 60: a watch ends a process whose ranks
 * never all joined). Returns this
 * process's rank (0 when alone or without MPI), or -1 with a message on stderr; JOB_REFUSED (rank 0
 * says why) when SPARKREPORT_MPI_JOIN_S is set but is not such a number (util/env.h), before joining. */
#define JOB_REFUSED (-2)
int job_join(int *argc, char ***argv);

/* 1 when this process is one of several ranks of a job. */
int job_launched(void);
/* This process's rank (0 alone) and the job's size (1 alone). */
int job_rank(void);
int job_nranks(void);

/* MPI_Finalize when MPI was initialized; a no-op without a job. Rank 0 tells the other ranks to
 * stop serving first (coll_stop_serving). */
void job_leave(void);

/* The job as results.json's context records it (ranks, hosts, launcher, transport,
 * interfaces; transport_device when not NULL: the device buffers' library, coll_device_transport),
 * or NULL when this process is alone or not rank 0. */
cJSON *job_context(const char *transport_device);

#endif
