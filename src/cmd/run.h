/* run.h: the `run` command: scenario -> run folder with results.json, results.csv,
 * report.pdf and a log, made under a temporary name and renamed when complete. Reading,
 * CSV and drawing results are src/results/'s; signals are util/signals.h's. */
#ifndef SR_CMD_RUN_H
#define SR_CMD_RUN_H

struct run_opts {
    const char *scenario;       /* path of the scenario file, or a shipped scenario's name (util/datadir.h) */
    const char *outdir;         /* reports root: the run folder is made inside it */
    const char **sets;          /* "key=value" overrides */
    int nsets;
    int quiet;
    const char *command;        /* the command line, recorded so the report can say how to rerun */
};

int run_command(const struct run_opts *o);                          /* returns an exit code */

#endif
