/* run.h: the two commands that write files: `run` (scenario -> run folder with results.json,
 * results.csv, report.pdf and a log, made under a temporary name and renamed when complete)
 * and `render` (results.json -> PDF, the same path `run` uses). */
#ifndef SR_RUN_H
#define SR_RUN_H

#include <cjson/cJSON.h>
#include <stddef.h>

#define SR_SCHEMA "sparkreport/results"
#define SR_SCHEMA_VERSION 1
#define SR_RESULTS_MAX_BYTES ((size_t)256 << 20)

struct run_opts {
    const char *scenario;       /* path of the scenario file */
    const char *outdir;         /* reports root: the run folder is made inside it */
    const char **sets;          /* "key=value" overrides */
    int nsets;
    int quiet;
    const char *command;        /* the command line, recorded so the report can say how to rerun */
};

int run_command(const struct run_opts *o);                          /* returns an exit code */

/* SIGINT/SIGTERM handlers. first_is_gentle (run): the first signal asks the run to stop after
 * the current measurement (progress_stopping), unless quiet saying so on stderr; a second
 * one, or any when not gentle (every other command), removes the temporaries registered with
 * fs_cleanup_add and exits 128 + the signal's number at once. */
void run_catch_signals(int first_is_gentle, int quiet);
int render_command(const char *results_path, const char *pdf_path); /* returns an exit code */

/* Loads results.json and checks its schema; NULL with "PATH: reason". */
cJSON *results_load(const char *path, char *err, size_t errlen);

/* The checks results_load makes on a parsed document (schema, version, top-level types); -1
 * with "PATH: reason". What the sections read is checked before drawing (render_results). */
int results_check(const cJSON *results, const char *path, char *err, size_t errlen);

/* Renders results (already loaded from results_path) to pdf_path atomically. Returns 0, -1
 * (err: what failed, with the path), or SR_RESULTS_INVALID when the results lack the shape
 * the templates read (err: "experiments[1].results[3].gbps_best must be a number, ..."). */
#define SR_RESULTS_INVALID (-2)
int render_results(const cJSON *results, const char *pdf_path, char *err, size_t errlen);

/* results.csv: one row per result record, nested fields flattened ("time_s.median"). */
char *results_csv(const cJSON *results);

#endif
