/* decide.h: the team decision, a stage the runner runs over the results document after the
 * projection (src/predict/project.h), as the projection runs after the experiments. It reads the
 * scenario's team, the compared systems' cost rows and the rental offers the document carries, and
 * the projection's records (hours per job on each system, shared use of one Spark), and writes its
 * own records: what each way of getting the compute costs a year and how long results take, the
 * answer, what decides it and what would flip it, and every job on every system costed on the same
 * terms. The report only draws them. */
#ifndef SR_DECIDE_DECIDE_H
#define SR_DECIDE_DECIDE_H

#include <stddef.h>

#include <cjson/cJSON.h>

/* The stage over a results document: 0 with out's "results" (records) and "info" filled; 1 when
 * the document has neither a team nor a decide list (nothing to decide); -1 with err when the team
 * or the projection cannot be read (the caller records the reason; nothing is half-written into
 * out). Without a team, the records are the per-job rows and verdicts at the scenario's use. */
int decide_stage(const cJSON *doc, cJSON *out, char *err, size_t errlen);

#endif
