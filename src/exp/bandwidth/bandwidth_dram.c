/* bandwidth_dram.c: the DRAM figure (src/measure/dram.h) measured for a family that asks before
 * the bandwidth experiment ran: the bandwidth plan cut down to the DRAM-sized point, its pick by
 * the one rule. Handed out as backend_for("dram", "cpu"). */
#include "exp/bandwidth/bandwidth.h"
#include "exp/bandwidth/bandwidth_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/machine.h"
#include "util/error.h"
#include "util/json.h"
#include "util/progress.h"

#define MEASURE_S 2.0               /* seconds of repetitions when measured for another family */

/* The bandwidth experiment's plan cut down to the DRAM-sized point: every kernel, FP64, all
 * threads, its default repetition rule with two samples at least and the validated first pass
 * as the warm-up. */
static int measure_here(const char *family, struct measure_dram *out, char *err, size_t errlen)
{
    struct machine_cpu cpu;
    cJSON *given = cJSON_Parse("{\"precisions\": \"fp64\", \"clusters\": false, \"min_reps\": 2, \"warmup\": 0}");
    cJSON *params = param_check("bandwidth", bw_params, given, err, errlen);
    cJSON_Delete(given);
    if (!params)
        return -1;
    struct bw_plan *pl = bw_plan_cpu(params, &cpu);
    double size = bw_plan_max_size(pl, params);
    struct bw_run_state rs = { .ops = &bw_cpu_ops, .pl = pl, .results = cJSON_CreateArray(), .total = pl->nk,
                               .per_point = MEASURE_S / pl->nk };
    progress_note("%s: measuring this machine's DRAM bandwidth (the bandwidth experiment did not, in this run)",
                  family);
    bw_measure_config(&rs, BW_FP64, size, BW_PATH_HOST, pl->tmax, NULL, "size", NULL,
                      BW_MEM_SHARE * machine_mem_available());
    int rc = measure_dram_pick(rs.results, pl->tmax, rs.hw_tried ? &rs.hw : NULL, out);
    if (rc == 0) {
        snprintf(out->source, sizeof out->source, "measured by %s", family);
        *out = measure_dram_set(out);
    } else {
        const cJSON *why = cJSON_GetArrayItem(pl->skipped, 0);
        snprintf(err, errlen, "the DRAM bandwidth could not be measured: %s",
                 why ? json_str(why, "reason", "?") : "no kernel validated");
    }
    cJSON_Delete(rs.results);
    cJSON_Delete(pl->skipped);
    cJSON_Delete(params);
    free(pl);
    return rc;
}

const struct measure_dram_ops bw_dram_ops = { measure_here };
