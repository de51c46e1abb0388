/* tenants_int.h: what the tenants experiment's files share: the tenant's spec (the JSON object
 * the coordinator writes for each process, checked by the tenant against tenants_spec_params),
 * and the running of a group of tenants at once (tenants_spawn.c). Not for other families. */
#ifndef SR_TENANTS_INT_H
#define SR_TENANTS_INT_H

#include <cjson/cJSON.h>

#include "util/param.h"

/* The spec's fields: job ("stream" | "train"), device, tenants (N), tenant (1 .. N), threads, the
 * stream's n, kernel and precision, the train job's shape, precision and reference losses, and the
 * harness's timing rows (MEASURE_PARAMS, budget_s: seconds of repetitions). */
extern const struct param tenants_spec_params[];

/* A tenant's first line when it is set up and its output validated: {"ready": true}. Anything else
 * it writes first is its record, a failed one, and it exits. */
#define TENANTS_READY "ready"

/* A round, line by line: the run tells tenants 1 .. k "m THREADS SECONDS" (take that many OpenMP
 * threads and at most that many seconds of repetitions); each answers {"loading": true} and runs its
 * job untimed; once all k are loading, the run tells each "t": it measures (so every sample of every
 * tenant is taken while all k run), writes its record and runs its job untimed again; "w": stop
 * and wait for the next round. End of file: exit. */
#define TENANTS_MEASURE 'm'
#define TENANTS_LOADING "loading"
#define TENANTS_TIME 't'
#define TENANTS_WAIT 'w'

/* Seconds the tenants get to stop after being told to (a repetition in flight finishes first),
 * before they are killed. */
#define TENANTS_GRACE_S 5.0

/* A pool of tenant processes of one spec, kept for every round of one job, so each tenant sets up
 * (allocates, first-touches, validates) once and the alone figure and the groups are measured on
 * the same processes and arrays. Started with posix_spawn (`exe tenant SPEC_i`, SPEC_i = spec with
 * tenant = i), each in its own process group so a terminal's Ctrl-C reaches only the run. */
struct tenants_pool;

/* Starts n tenants and waits until each is set up and validated (setup_s seconds at most; a stop
 * asked or the run's deadline, progress_cut(), ends the wait). Never NULL: a tenant that failed
 * has its failed record kept, and every round then reports it.
 * touch_bytes > 0: each tenant first-touches that many bytes while it sets up; from TENANTS_TOUCH_S
 * on the wait reads their resident memory (/proc/PID/statm) and gives up as soon as the rate they
 * touch at would not finish within setup_s: then tenants_pool_touch_Bps is that rate, else 0. */
#define TENANTS_TOUCH_S 1.0
struct tenants_pool *tenants_pool_start(const char *exe, const cJSON *spec, int n, double setup_s, double touch_bytes);
double tenants_pool_touch_Bps(const struct tenants_pool *p);

/* One round: tenants 1 .. k measure at once with `threads` OpenMP threads and repeat_s seconds of
 * repetitions each (each writes its record, then keeps running its job until all have); waits run_s
 * seconds at most, then tells them to wait. Returns k records in
 * tenant order, each as its process wrote it, or {valid: false, error} saying what went wrong
 * (a tenant that failed to start, set up or validate, its process's exit, a time limit, a stop). */
cJSON *tenants_pool_round(struct tenants_pool *p, int k, int threads, double repeat_s, double run_s);

/* Tells every tenant to exit, waits TENANTS_GRACE_S for them, kills the rest, frees p. */
void tenants_pool_stop(struct tenants_pool *p);

#endif
