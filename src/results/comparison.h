/* comparison.h: comparing two results documents, for the `compare` command and for the
 * comparison a run makes with the baseline its scenario names. Deciding what changed is
 * sparkreport.compare's (Lua) and the U test's (util/mwu.h); drawing is
 * templates/regression.lua's, through results/draw.h. */
#ifndef SR_RESULTS_COMPARISON_H
#define SR_RESULTS_COMPARISON_H

#include <cjson/cJSON.h>
#include <stddef.h>

#define SR_COMPARISON_SCHEMA "sparkreport/comparison"

struct comparison_opts {
    double alpha;               /* significance level of the two-sided U test, e.g. 0.01 */
    double min_change;          /* smallest relative change of the median that counts, e.g. 0.05 */
};

#define COMPARISON_ALPHA 0.01
#define COMPARISON_MIN_CHANGE 0.05

/* Builds the comparison document of two loaded results files (paths are for the report only and
 * name the file in messages). NULL with a message on failure; *bad_input is 1 when a file lacks
 * the shape reports read (err: "PATH: experiments[1]... must be ..."). */
cJSON *comparison_build(const cJSON *base, const char *base_path, const cJSON *cur, const char *cur_path,
                        const struct comparison_opts *o, int *bad_input, char *err, size_t errlen);

/* The number of results a comparison document calls slower. */
int comparison_slower(const cJSON *cmp);

/* After a run measured, before its files are written: compares results (the document as written
 * and read back) with the baseline its scenario names (scenario.baseline: "none", "latest" =
 * outdir/latest before this run is published, a run folder's name inside outdir, or a path
 * containing '/') and records it in results as the block "baseline" (path, sha256, verdicts, the
 * projected rows that moved), which the report's decision page reads. A missing or unreadable
 * baseline is noted, never fatal. Returns the comparison document, or NULL when there is none. */
cJSON *comparison_for_run(cJSON *results, const char *outdir);

/* Writes dir/comparison.json and dir/comparison.pdf; -1 with err. */
int comparison_write(const char *dir, const cJSON *cmp, char *err, size_t errlen);

/* Before a run measures: the baseline the scenario names, when it exists, is a regular file (a
 * FIFO or a device would block the comparison or never end); -1 with err naming it. A missing
 * baseline passes: comparison_after_run notes it. */
int comparison_baseline_check(const char *want, const char *outdir, char *err, size_t errlen);

#endif
