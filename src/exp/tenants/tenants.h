/* tenants.h: the tenants experiment (sr.tenants): N jobs sharing this machine at once, N = 1, 2, 4,
 * each a separate process as separate users' jobs are, each running one of the project's own jobs
 * (a bandwidth stream: the bandwidth family's triad or read kernel over its own arrays; a training
 * step: the train family's step on a small shape), on the CPU or on the one GPU. Per N it records
 * each tenant's time, its slowdown against the same job alone, and its share of the alone figure
 * (for the stream: of the bandwidth). The coordinator (tenants.c) plans and derives; the process
 * plumbing is tenants_spawn.c's; a tenant's own side (set up, validate, measure through the
 * harness, keep loading until told to stop) is tenants_child.c's, reached through the program's
 * internal `tenant` command (tenants_serve). */
#ifndef SR_TENANTS_H
#define SR_TENANTS_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "util/param.h"

extern const struct param tenants_params[];

int tenants_precheck(const cJSON *params, char *err, size_t errlen);
cJSON *tenants_run(const cJSON *params, double budget_s, char *err, size_t errlen);

/* The `tenant` command: `sparkreport tenant SPEC` runs one tenant (SPEC: the JSON object the
 * coordinator writes, checked against its own parameter table), talking to its coordinator through
 * standard input (a byte: start measuring; end of file: stop) and standard output (one JSON line
 * when set up and validated, one with the record). Returns the exit code: 0; 2 for a SPEC that is
 * not one (the message names the field). */
int tenants_serve(int argc, char **argv);

/* What the records of one job and tenant count mean together (in place): every timed, valid record
 * gets slowdown = its median time over the alone record's (tenants 1, the same series and device),
 * share = the alone median over its own (the throughput it keeps of the alone figure: for the
 * stream, of the alone bandwidth, the same bytes a pass) and, on the CPU, cores = its CPU seconds
 * per second over its repetitions. Appends to totals one object per series, device and count:
 * timed, share_sum (the shares added: 1 when N tenants together do what one does alone),
 * slowdown_mean, slowdown_max, gbps_sum (the stream: the tenants' median GB/s added) and cores_sum
 * (the tenants' CPU seconds added over the round's span, first start to last end: the CPUs the round
 * kept busy, which each tenant's own cores added would overstate when their windows differ). */
void tenants_derive(cJSON *results, cJSON *totals);

#endif
