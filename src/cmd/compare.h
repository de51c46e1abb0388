/* compare.h: comparing two runs: the `compare` command, and the comparison a run makes with
 * the baseline its scenario names. Deciding what changed is sparkreport.compare's (Lua) and
 * the U test's (util/mwu.h); drawing is templates/regression.lua's. */
#ifndef SR_COMPARE_H
#define SR_COMPARE_H

#include <cjson/cJSON.h>
#include <stddef.h>

#define SR_COMPARISON_SCHEMA "sparkreport/comparison"

struct compare_opts {
    double alpha;               /* significance level of the two-sided U test, e.g. 0.01 */
    double min_change;          /* smallest relative change of the median that counts, e.g. 0.05 */
};

#define COMPARE_ALPHA 0.01
#define COMPARE_MIN_CHANGE 0.05

/* The results.json a command-line argument names: a run folder (or a link to one, such as
 * reports/latest) holds it; anything else is the file itself. Caller frees. */
char *compare_results_path(const char *arg);

/* Builds the comparison document of two loaded results files (paths are for the report only and
 * name the file in messages). NULL with a message on failure; *bad_input is 1 when a file lacks
 * the shape reports read (err: "PATH: experiments[1]... must be ..."). */
cJSON *compare_build(const cJSON *base, const char *base_path, const cJSON *cur, const char *cur_path,
                     const struct compare_opts *o, int *bad_input, char *err, size_t errlen);

/* `sparkreport compare BASELINE CURRENT`: prints the verdicts (or, with as_json, the comparison
 * document) and writes pdf_path when given (or when not as_json: ./comparison.pdf). Returns an
 * exit code: SR_EXIT_SLOWER when some result is slower, else SR_EXIT_OK or an error code. */
int compare_command(const char *baseline, const char *current, const char *pdf_path, int as_json,
                    const struct compare_opts *o);

/* After a run wrote dir/results.json: compares it with the baseline its scenario names
 * (scenario.baseline: "none", "latest" = outdir/latest before this run is published, a run
 * folder's name inside outdir, or a path containing '/'), and writes dir/comparison.json and
 * dir/comparison.pdf. A missing or unreadable baseline is noted, never fatal. Returns the number
 * of slower results; *written is 1 when the comparison files were written. */
int compare_after_run(const char *dir, const char *outdir, const cJSON *results, int *written);

#endif
