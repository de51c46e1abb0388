/* run.c: the `run` command: loads the scenario, runs its experiments through the Lua runner,
 * and writes the run folder under a temporary name in the reports root, renamed only when
 * every file in it is complete, so a failed or refused run leaves nothing behind and earlier
 * runs are never touched. Reading, CSV and drawing results are src/results/'s. */
#include "cmd/run.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <lauxlib.h>

#include "config.h"
#include "exp/collective/collective.h"
#include "job/job.h"
#include "lua/convert.h"
#include "lua/state.h"
#include "results/comparison.h"
#include "results/csv.h"
#include "results/load.h"
#include "results/draw.h"
#include "measure/context.h"
#include "util/env.h"
#include "util/datadir.h"
#include "util/error.h"
#include "util/fsutil.h"
#include "util/json.h"
#include "util/progress.h"
#include "util/signals.h"

#define SCENARIO_MAX_BYTES ((size_t)1 << 20)
#define SCENARIO_GRACE_S 2.0                /* after the time limit, before the watchdog */
#define SCENARIO_WALL_FACTOR 3.0            /* wall-clock deadline (__gc, lua_close): limits, */
#define SCENARIO_WALL_SLACK_S 15.0          /* + slack: the watchdog, on processor time, comes first */

static void sanitize(char *s)
{
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9')
              || *s == '-' || *s == '_' || *s == '.'))
            *s = '_';
}

static void scenario_name(const char *path, char *out, size_t n)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t len = strlen(base);
    if (len > 4 && strcmp(base + len - 4, ".lua") == 0)
        len -= 4;
    snprintf(out, n, "%.*s", (int)(len < 64 ? len : 64), base);
    sanitize(out);
}

/* Seconds a scenario's code may run before it returns: SR_LUA_SCENARIO_TIME_S, or
 * SPARKREPORT_SCENARIO_TIME_S when set (0.1 .. 3600; preflight refused any other value). */
static double scenario_time_limit(void)
{
    char err[256];
    double t;
    return env_seconds("SPARKREPORT_SCENARIO_TIME_S", SR_LUA_SCENARIO_TIME_S, &t, err, sizeof err) == 0
           ? t : SR_LUA_SCENARIO_TIME_S;
}

/* Runs the scenario file in a state of its own and returns what it declared, as data: its
 * code never reaches the state that runs the experiments. Prints the error itself. */
static cJSON *load_scenario(const struct run_opts *o, const char *source)
{
    char err[SR_ERR_MAX];
    cJSON *scn = NULL;
    lua_State *S = sr_lua_new(SR_LUA_SCENARIO_MEM_LIMIT);
    double limit = scenario_time_limit();
    sr_lua_scenario_mode(S, limit);
    snprintf(err, sizeof err, "%s: the scenario ran for more than %g s of processor time inside one library "
             "call or a __gc finalizer, which no hook reaches (a string pattern that backtracks without end, a finalizer "
             "that never returns?); stopped", o->scenario, limit + SCENARIO_GRACE_S);
    sr_lua_watchdog(limit + SCENARIO_GRACE_S, err, SR_EXIT_SCENARIO);
    sr_lua_deadline(S, limit * SCENARIO_WALL_FACTOR + SCENARIO_WALL_SLACK_S, o->scenario, SR_EXIT_SCENARIO);
    if (sr_lua_require(S, "sparkreport.runner", err, sizeof err) != 0) {
        fprintf(stderr, "sparkreport: %s\n", err);
        sr_lua_close(S);
        return NULL;
    }
    lua_getfield(S, -1, "load");
    lua_pushstring(S, source);
    lua_pushstring(S, o->scenario);
    if (sr_lua_pcall(S, 2, 1, err, sizeof err, NULL) != 0) {
        if (!progress_stopping())       /* else the caller says it was interrupted */
            fprintf(stderr, "%s\n", err);
    } else if (!(scn = lua_to_json_plain_protected(S, -1, "scenario", err, sizeof err)))
        fprintf(stderr, "%s: the value it returned cannot be used: %s\n", o->scenario, err);
    sr_lua_close(S);                    /* its finalizers run without hooks: still watched */
    sr_lua_watchdog(0, NULL, 0);
    return scn;
}

/* The scenario's data, checked again in L by runner.prepare, which applies the --set values
 * last; leaves [runner, scenario] on L's stack. Prints the error itself. */
static int prepare(lua_State *L, const struct run_opts *o, const cJSON *scn)
{
    char err[SR_ERR_MAX];
    if (sr_lua_require(L, "sparkreport.runner", err, sizeof err) != 0) {
        fprintf(stderr, "sparkreport: %s\n", err);
        return -1;
    }
    lua_getfield(L, -1, "prepare");
    if (lua_push_json_protected(L, scn, err, sizeof err) != 0) {
        fprintf(stderr, "%s: %s\n", o->scenario, err);
        return -1;
    }
    lua_pushstring(L, o->scenario);
    lua_createtable(L, o->nsets, 0);
    for (int i = 0; i < o->nsets; i++) {
        lua_pushstring(L, o->sets[i]);
        lua_rawseti(L, -2, i + 1);
    }
    if (sr_lua_pcall(L, 3, 1, err, sizeof err, NULL) != 0) {
        fprintf(stderr, "%s\n", err);
        return -1;
    }
    return 0;
}

/* Runs the experiments (runner.execute) and returns the results document as JSON. */
static cJSON *execute(lua_State *L, const struct run_opts *o, const char *source, char *err, size_t errlen)
{
    char name[80];
    char *trace = NULL;
    scenario_name(o->scenario, name, sizeof name);
    lua_getfield(L, -2, "execute");
    lua_pushvalue(L, -2);
    char nccl[64];
    cJSON *ctx = measure_context(), *job = job_context(coll_device_transport(nccl, sizeof nccl));
    if (job)                            /* the ranks, hosts, launcher, transport and interfaces of the job */
        cJSON_AddItemToObject(ctx, "mpi", job);
    if (json_check("this machine's description", ctx, err, errlen) != 0) {    /* before measuring */
        cJSON_Delete(ctx);
        lua_pop(L, 2);
        return NULL;
    }
    lua_push_json(L, ctx);
    cJSON_Delete(ctx);
    lua_createtable(L, 0, 4);
    lua_pushstring(L, o->scenario);
    lua_setfield(L, -2, "path");
    lua_pushstring(L, name);
    lua_setfield(L, -2, "name");
    lua_pushstring(L, source);
    lua_setfield(L, -2, "source");
    lua_pushstring(L, o->command);
    lua_setfield(L, -2, "command");
    char cwd[4096];
    if (getcwd(cwd, sizeof cwd)) {      /* where the command ran: its relative paths start here */
        lua_pushstring(L, cwd);
        lua_setfield(L, -2, "cwd");
    }
    if (sr_lua_pcall(L, 3, 1, err, errlen, &trace) != 0) {
        progress_note("%s", trace ? trace : err);
        free(trace);
        return NULL;
    }
    cJSON *r = lua_to_json_protected(L, -1, "results", err, errlen);
    lua_pop(L, 1);
    return r;
}

static int any_failure(const cJSON *results)
{
    const cJSON *exps = cJSON_GetObjectItemCaseSensitive(results, "experiments");
    if (cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(results, "stage_faults")) > 0)
        return 1;                       /* a stage's records left out (sparkreport.runner) */
    for (const cJSON *e = exps ? exps->child : NULL; e; e = e->next) {
        const char *st = json_str(e, "status", "failed");
        if (strcmp(st, "complete") != 0 && strcmp(st, "skipped") != 0)   /* skipped: a reason, no failure */
            return 1;
        for (const cJSON *r = cJSON_GetObjectItemCaseSensitive(e, "results")->child; r; r = r->next)
            if (cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(r, "valid")))
                return 1;
    }
    return 0;
}

/* Writes results.json, then, compared with the baseline when the scenario names one (the
 * comparison is recorded in results.json, so the report's decision page can say what moved),
 * results.csv, report.pdf and annex.pdf (drawn from results.json as render draws them) and the
 * comparison's two files; *cmp is the comparison or NULL. */
static int write_outputs(const char *dir, const char *outdir, const cJSON *results, cJSON **cmp, char *err,
                         size_t errlen)
{
    char path[4096];
    *cmp = NULL;
    snprintf(path, sizeof path, "%s/results.json", dir);
    if (json_save(path, results, err, errlen) != 0)
        return -1;
    cJSON *back = results_load(path, err, errlen);     /* the PDF is drawn from the file, as render does */
    if (!back)
        return -1;
    int rc = 0;
    sr_lua_stop_on_signal(1);           /* the measurements are done: a stop cuts the comparison short */
    *cmp = progress_stopping() ? NULL : comparison_for_run(back, outdir);
    sr_lua_stop_on_signal(0);           /* and not the report: it is drawn whole */
    if (*cmp)
        rc = json_save(path, back, err, errlen);
    char *csv = rc == 0 ? csv_results(back) : NULL;
    snprintf(path, sizeof path, "%s/results.csv", dir);
    if (csv) {
        rc = fs_write_atomic(path, csv, strlen(csv), err, errlen);
        free(csv);
    }
    char annex[4096];
    snprintf(path, sizeof path, "%s/report.pdf", dir);
    snprintf(annex, sizeof annex, "%s/annex.pdf", dir);
    if (rc == 0 && (rc = draw_results(back, path, annex, NULL, err, errlen)) == DRAW_INVALID) {
        char *why = xstrdup(err);
        snprintf(err, errlen, "%s/results.json: %s", dir, why);
        free(why);
    }
    cJSON_Delete(back);
    if (rc == 0 && *cmp && comparison_write(dir, *cmp, err, errlen) != 0) {
        char *why = xstrdup(err);
        snprintf(err, errlen, "the comparison with the baseline: %s", why);
        free(why);
        rc = -1;
    }
    return rc;
}

/* The name the finished run folder takes in outdir, <UTC stamp>-<host>-<scenario>; chosen before
 * the outputs are written, since the report prints it (the command that reruns the scenario against
 * this run). publish adds a suffix when another run took it since. */
static void run_folder_name(const struct run_opts *o, char *out, size_t n)
{
    char stamp[32], host[64] = "host", name[80];
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &tm);
    gethostname(host, sizeof host - 1);
    host[sizeof host - 1] = '\0';
    sanitize(host);
    scenario_name(o->scenario, name, sizeof name);
    snprintf(out, n, "%s-%s-%s", stamp, host, name);
}

/* Another run took the name results.json records: the folder's own name goes into its
 * results.json and its PDFs (the annex's rerun command prints it). */
static void rename_recorded(const char *final)
{
    char path[4096], pdf[4096], annex[4096], err[2048];
    snprintf(path, sizeof path, "%s/results.json", final);
    snprintf(pdf, sizeof pdf, "%s/report.pdf", final);
    snprintf(annex, sizeof annex, "%s/annex.pdf", final);
    cJSON *r = results_load(path, err, sizeof err);
    cJSON *scn = r ? cJSON_GetObjectItemCaseSensitive(r, "scenario") : NULL;
    if (scn) {
        cJSON_DeleteItemFromObjectCaseSensitive(scn, "run_folder");
        cJSON_AddStringToObject(scn, "run_folder", strrchr(final, '/') + 1);
    }
    if (!scn || json_save(path, r, err, sizeof err) != 0 || draw_results(r, pdf, annex, NULL, err, sizeof err) != 0)
        progress_note("%s: the annex names the run folder it was to take, not this one (%s)", final,
                      scn ? err : "results.json unreadable");
    cJSON_Delete(r);
}

/* Renames the finished temporary folder to outdir/name, or with a further suffix when a
 * concurrent run took the name since (never replacing it), and points latest at it unless
 * latest is something the user made. */
static char *publish(const char *tmpdir, const struct run_opts *o, const char *name, char *err, size_t errlen)
{
    char want[4096], latest[4096];
    snprintf(want, sizeof want, "%s/%s", o->outdir, name);
    char *final = fs_rename_unique(tmpdir, want, err, errlen);
    if (!final)
        return NULL;
    if (strcmp(final, want) != 0)
        rename_recorded(final);
    snprintf(latest, sizeof latest, "%s/%s", final, FS_TMP_MARKER);
    unlink(latest);                             /* finished: no longer a folder the stale cleaner may take */
    snprintf(latest, sizeof latest, "%s/latest", o->outdir);
    if (fs_symlink_replace(strrchr(final, '/') + 1, latest, err, errlen) != 0) {
        progress_note("%s", err);               /* the run is complete; only the link failed */
        if (o->quiet)
            fprintf(stderr, "sparkreport: %s\n", err);
    }
    return final;
}

/* The files a run folder holds; a second signal removes them and the folder. */
static const char *const run_files[] = { "run.log", "results.json", "results.csv", "report.pdf", "annex.pdf",
                                         "comparison.json", "comparison.pdf", FS_TMP_MARKER, NULL };

static void register_run_folder(const char *tmpdir, int add)
{
    char path[FS_CLEANUP_PATH];
    for (int i = 0; run_files[i]; i++) {
        snprintf(path, sizeof path, "%s/%s", tmpdir, run_files[i]);
        if (add)
            fs_cleanup_add(path, 0);
        else
            fs_cleanup_forget(path);
    }
    if (add)
        fs_cleanup_add(tmpdir, 1);
    else
        fs_cleanup_forget(tmpdir);
}

/* Removes an unfinished run folder: its known files by name first (that needs no file
 * descriptor, so it works when a low open-file limit is what failed), then whatever else. */
static void remove_run_folder(const char *tmpdir)
{
    fs_cleanup_now();
    fs_rm_rf(tmpdir);
    register_run_folder(tmpdir, 0);
}

static void note_stale(const char *path)
{
    progress_note("removed %s, the unfinished run folder of a sparkreport that is gone", path);
}

/* Makes the temporary run folder (after removing stale ones) and opens its log. */
static char *open_run_folder(const struct run_opts *o, FILE **log, char *err, size_t errlen)
{
    char *tmpdir;
    if (fs_mkdir_p(o->outdir, err, errlen) != 0)
        return NULL;
    fs_clean_stale(o->outdir, ".tmp-", note_stale);
    if (!(tmpdir = fs_mkdtemp(o->outdir, ".tmp-", err, errlen)))
        return NULL;
    register_run_folder(tmpdir, 1);
    snprintf(err, errlen, "%s/run.log", tmpdir);
    if (!(*log = fopen(err, "w"))) {
        snprintf(err, errlen, "%s/run.log: cannot create: %s", tmpdir, strerror(errno));
        remove_run_folder(tmpdir);
        free(tmpdir);
        return NULL;
    }
    return tmpdir;
}

/* ---- what a run can refuse before it measures ---- */

#define SCENARIO_TEXT_MAX 4096          /* bytes of any string a scenario gives */

#define RUN_MIN_FILES 10                /* descriptors a run holds at once: log, fonts, output, ... */

/* A soft open-file limit below what a run needs is raised toward the hard one; a hard limit
 * below it is refused now, not after the measuring when the fonts cannot be opened. */
static int check_file_limit(char *err, size_t errlen)
{
    struct rlimit r;
    if (getrlimit(RLIMIT_NOFILE, &r) != 0 || r.rlim_cur == RLIM_INFINITY || r.rlim_cur >= RUN_MIN_FILES)
        return 0;
    if (r.rlim_max == RLIM_INFINITY || r.rlim_max >= RUN_MIN_FILES) {
        r.rlim_cur = RUN_MIN_FILES;
        if (setrlimit(RLIMIT_NOFILE, &r) == 0)
            return 0;
    }
    snprintf(err, errlen, "the open-file limit (ulimit -n) is %llu; a run needs at least %d; nothing was measured",
             (unsigned long long)r.rlim_cur, RUN_MIN_FILES);
    return -1;
}

#define RUN_STACK_BYTES ((rlim_t)8 << 20)    /* what runs are tested with: Linux's default stack limit */
#define RUN_MIN_STACK_BYTES ((rlim_t)2 << 20)    /* below this a scenario's nested calls (Lua allows 200
                                                  * C levels: a gsub calling itself) overflow it */

/* The stack limit, checked like the open-file limit: a soft limit below RUN_STACK_BYTES is raised
 * toward the hard one (the main thread's stack grows to the limit in force when it grows, and the
 * threads started later get as much); a hard limit below RUN_MIN_STACK_BYTES is refused now, not
 * met as a SIGSEGV inside a scenario. */
static int check_stack_limit(char *err, size_t errlen)
{
    struct rlimit r;
    if (getrlimit(RLIMIT_STACK, &r) != 0 || r.rlim_cur == RLIM_INFINITY || r.rlim_cur >= RUN_STACK_BYTES)
        return 0;
    rlim_t want = r.rlim_max == RLIM_INFINITY || r.rlim_max >= RUN_STACK_BYTES ? RUN_STACK_BYTES : r.rlim_max;
    if (want > r.rlim_cur) {
        struct rlimit raised = { want, r.rlim_max };
        if (setrlimit(RLIMIT_STACK, &raised) == 0)
            r.rlim_cur = want;
    }
    if (r.rlim_cur < RUN_MIN_STACK_BYTES) {
        snprintf(err, errlen, "the stack limit (ulimit -s) is %llu KiB; a run needs at least %llu KiB; nothing was "
                 "measured", (unsigned long long)r.rlim_cur / 1024, (unsigned long long)RUN_MIN_STACK_BYTES / 1024);
        return -1;
    }
    pthread_attr_t a;                   /* threads started from now on (OpenMP's) get the raised size */
    if (pthread_attr_init(&a) == 0) {
        if (pthread_attr_setstacksize(&a, (size_t)r.rlim_cur) == 0)
            pthread_setattr_default_np(&a);
        pthread_attr_destroy(&a);
    }
    return 0;
}

/* Text the user gave, before any state sees it: --set values and the scenario file are UTF-8
 * (results.json records both); "FILE:LINE: ..." or "--set ...". Exit code or 0. */
static int check_inputs(const struct run_opts *o, const char *source, size_t n)
{
    const char *nul = memchr(source, '\0', n);
    if (nul) {                          /* Lua would read the text only up to it */
        int line = 1;
        for (const char *c = source; c < nul; c++)
            line += *c == '\n';
        fprintf(stderr, "%s:%d: a NUL byte (byte %ld); a scenario is UTF-8 text, and it would end there\n",
                o->scenario, line, (long)(nul - source) + 1);
        return SR_EXIT_SCENARIO;
    }
    for (int i = 0; i < o->nsets; i++) {
        long bad = json_utf8_invalid(o->sets[i], strlen(o->sets[i]));
        if (bad >= 0) {
            fprintf(stderr, "sparkreport: --set %.*s...: not valid UTF-8 (byte 0x%02X at offset %ld)\n", (int)bad,
                    o->sets[i], (unsigned char)o->sets[i][bad], bad);
            return SR_EXIT_SCENARIO;
        }
    }
    long bad = json_utf8_invalid(source, strlen(source));
    if (bad >= 0) {
        int line = 1;
        for (long i = 0; i < bad; i++)
            line += source[i] == '\n';
        fprintf(stderr, "%s:%d: not valid UTF-8 (byte 0x%02X); a scenario is UTF-8 text\n", o->scenario, line,
                (unsigned char)source[bad]);
        return SR_EXIT_SCENARIO;
    }
    bad = json_utf8_invalid(o->command, strlen(o->command));
    if (bad >= 0) {
        fprintf(stderr, "sparkreport: the command line is not valid UTF-8 (byte 0x%02X); results.json records it\n",
                (unsigned char)o->command[bad]);
        return SR_EXIT_USAGE;
    }
    return 0;
}

/* A string field the report draws as text: a title or a name. */
static int drawn_field(const char *key)
{
    size_t n = key ? strlen(key) : 0;
    return key && (strcmp(key, "title") == 0 || (n >= 4 && strcmp(key + n - 4, "name") == 0));
}

/* A block of scenario parameters (where: "FILE: scenario", "FILE: bandwidth"): valid UTF-8,
 * every string at most SCENARIO_TEXT_MAX bytes, drawn text that the report can draw. */
static int check_strings(const cJSON *params, const char *where, char *err, size_t errlen)
{
    if (json_check(where, params, err, errlen) != 0)
        return -1;
    for (const cJSON *p = params ? params->child : NULL; p; p = p->next) {
        const cJSON *v = cJSON_IsArray(p) ? p->child : p;
        for (; v; v = cJSON_IsArray(p) ? v->next : NULL) {
            char what[FS_PATH_MAX + 160];
            snprintf(what, sizeof what, "%s: %.64s", where, p->string ? p->string : "?");
            if (!cJSON_IsString(v))
                continue;
            if (strlen(v->valuestring) > SCENARIO_TEXT_MAX) {
                snprintf(err, errlen, "%s is %zu bytes long; at most %d", what, strlen(v->valuestring), SCENARIO_TEXT_MAX);
                return -1;
            }
            if (drawn_field(p->string) && draw_check_text(what, v->valuestring, DRAW_TITLE_MAX, err, errlen) != 0)
                return -1;
            if (drawn_field(p->string) && strspn(v->valuestring, " \t") == strlen(v->valuestring)) {
                snprintf(err, errlen, "%s is empty: %s", what, strcmp(p->string, "title") == 0
                         ? "the report's first page shows it (give a title)"
                         : "the report's sentences name it (give it a name, or none)");
                return -1;
            }
        }
    }
    return 0;
}

/* The scenario's data as the report and results.json will hold it: valid UTF-8 throughout,
 * texts the PDF can draw, a baseline that is a file or a folder. Exit code or 0. */
static int check_scenario(const struct run_opts *o, const cJSON *scn)
{
    char err[SR_ERR_MAX], name[FS_PATH_MAX + 96];
    const cJSON *params = cJSON_GetObjectItemCaseSensitive(scn, "params");
    snprintf(name, sizeof name, "%s: scenario", o->scenario);
    if (check_strings(params, name, err, sizeof err) != 0)
        goto bad;
    const cJSON *exps = cJSON_GetObjectItemCaseSensitive(scn, "experiments");
    for (const cJSON *e = exps ? exps->child : NULL; e; e = e->next) {
        snprintf(name, sizeof name, "%s: %.64s", o->scenario, json_str(e, "experiment", "experiment"));
        if (check_strings(cJSON_GetObjectItemCaseSensitive(e, "params"), name, err, sizeof err) != 0)
            goto bad;
    }
    snprintf(name, sizeof name, "%s: the scenario's", o->scenario);
    if (json_check(name, scn, err, sizeof err) != 0)
        goto bad;
    int k = 0;                  /* the team's offers: their texts are drawn in the report's appendix */
    const cJSON *offer, *field;
    cJSON_ArrayForEach(offer, cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(scn, "team"), "offers")) {
        k++;
        cJSON_ArrayForEach(field, offer) {
            snprintf(name, sizeof name, "%s: team.offers[%d].%.32s", o->scenario, k, field->string ? field->string : "?");
            if (cJSON_IsString(field) && draw_check_text(name, field->valuestring, SCENARIO_TEXT_MAX, err, sizeof err) != 0)
                goto bad;
        }
    }
    if (comparison_baseline_check(json_str(params, "baseline", "none"), o->outdir, err, sizeof err) == 0)
        return 0;
    fprintf(stderr, "%s: scenario: ", o->scenario);
bad:
    fprintf(stderr, "%s\n", err);
    return SR_EXIT_SCENARIO;
}

/* The prepared scenario on top of L's stack (the --set values applied) through the same checks. */
static int check_prepared(lua_State *L, const struct run_opts *o)
{
    char err[SR_ERR_MAX];
    cJSON *ready = lua_to_json_protected(L, -1, "scenario", err, sizeof err);
    if (!ready) {
        fprintf(stderr, "%s: %s\n", o->scenario, err);
        return SR_EXIT_SCENARIO;
    }
    int rc = check_scenario(o, ready);
    cJSON_Delete(ready);
    return rc;
}

/* The data files built into the program (data/NAME.csv, which a user edits and rebuilds) or given in
 * SPARKREPORT_CATALOG_DIR, checked as their readers will read them (sparkreport.catalog.check_data):
 * before the scenario, which reads the catalog, and before anything is measured. Exit code or 0. */
static int check_data(lua_State *L)
{
    char err[SR_ERR_MAX];
    if (sr_lua_require(L, "sparkreport.catalog", err, sizeof err) != 0) {
        fprintf(stderr, "sparkreport: %s\n", err);
        return SR_EXIT_FAILURE;
    }
    lua_getfield(L, -1, "check_data");
    int rc = sr_lua_pcall(L, 0, 0, err, sizeof err, NULL);
    lua_pop(L, 1);
    if (rc == 0)
        return 0;
    const char *dir = getenv("SPARKREPORT_CATALOG_DIR");
    fprintf(stderr, "sparkreport: %s; nothing was measured (%s)\n", err, dir && *dir
            ? "the data files SPARKREPORT_CATALOG_DIR holds replace the built-in ones: fix the file there"
            : "data files are built in: fix the file, then make");
    return SR_EXIT_INPUT;
}

/* Loads the scenario (its own state) and prepares it in L; an exit code, 0 to go on. */
static int load_and_prepare(lua_State *L, const struct run_opts *o, const char *source)
{
    cJSON *scn = load_scenario(o, source);
    int rc = !scn ? SR_EXIT_SCENARIO : 0;
    if (rc == 0 && prepare(L, o, scn) != 0)
        rc = SR_EXIT_SCENARIO;
    cJSON_Delete(scn);
    if (rc == 0)                    /* with the --set values applied, before measuring */
        rc = check_prepared(L, o);
    if (progress_stopping()) {
        fprintf(stderr, "sparkreport: %s before any measurement; nothing was written\n",
                signals_stopped_by(progress_stopping()));
        rc = 128 + progress_stopping();
    }
    return rc;
}

/* What the run needs before its scenario runs: the environment, the output, the scenario's
 * file (o->scenario becomes it: the file given, or the shipped scenario it names; *path, caller
 * frees) and its text; an exit code, 0 with *source (caller frees) to go on. */
static int preflight(struct run_opts *o, char **path, char **source)
{
    char err[SR_ERR_MAX];
    size_t n;
    if (draw_check_env(err, sizeof err) != 0 || env_check_threads(err, sizeof err) != 0
        || env_check_seconds(err, sizeof err) != 0 || datadir_check_env(err, sizeof err) != 0) {
        fprintf(stderr, "sparkreport: %s\n", err);
        return SR_EXIT_USAGE;
    }
    if (check_file_limit(err, sizeof err) != 0 || check_stack_limit(err, sizeof err) != 0 || fs_check_output(o->outdir, 1, err, sizeof err) != 0
        || draw_check_fonts(err, sizeof err) != 0) {
        fprintf(stderr, "sparkreport: %s\n", err);
        return SR_EXIT_FAILURE;
    }
    if (!(*path = datadir_scenario(o->scenario, err, sizeof err))) {
        fprintf(stderr, "sparkreport: %s\n", err);
        return SR_EXIT_SCENARIO;
    }
    o->scenario = *path;
    if (fs_read_file(o->scenario, SCENARIO_MAX_BYTES, source, &n, err, sizeof err) != 0) {
        fprintf(stderr, "sparkreport: %s\n", err);
        return SR_EXIT_SCENARIO;
    }
    int bad = check_inputs(o, *source, n);
    if (bad != 0) {
        free(*source);
        *source = NULL;
    }
    return bad;
}

int run_command(const struct run_opts *given)
{
    char err[SR_ERR_MAX], *source = NULL, *path = NULL;
    struct run_opts resolved = *given, *o = &resolved;
    int bad = preflight(o, &path, &source);
    if (bad != 0) {
        free(path);
        return bad;
    }
    progress_quiet(o->quiet);
    signals_catch(!job_launched(), o->quiet);  /* under mpirun a signal ends the job: stop at once, folder removed */
    lua_State *L = sr_lua_new(SR_LUA_MEM_LIMIT);
    sr_lua_limit_time(L, SR_LUA_TIME_S);
    char *tmpdir = NULL, *final = NULL;
    FILE *log = NULL;
    cJSON *faults = NULL;               /* results.stage_faults: stages whose records were left out */
    int rc = check_data(L);
    if (rc == 0)
        rc = load_and_prepare(L, o, source);
    if (rc != 0)
        goto done;
    rc = SR_EXIT_FAILURE;
    if (!(tmpdir = open_run_folder(o, &log, err, sizeof err)))
        goto fail;
    progress_log(log);
    fprintf(log, "sparkreport %s: %s\n", PACKAGE_VERSION, o->command);
    cJSON *results = execute(L, o, source, err, sizeof err);
    if (!results)
        goto fail;
    signals_measured();                 /* a first signal from now on cuts short only the comparison */
    int failed = any_failure(results), partial = strcmp(json_str(results, "status", "partial"), "complete") != 0;
    int wanted = strcmp(json_str(cJSON_GetObjectItemCaseSensitive(results, "scenario"), "baseline", "none"), "none") != 0;
    char name[256];
    run_folder_name(o, name, sizeof name);
    cJSON_AddStringToObject(cJSON_GetObjectItemCaseSensitive(results, "scenario"), "run_folder", name);
    cJSON *cmp;
    int wrc = write_outputs(tmpdir, o->outdir, results, &cmp, err, sizeof err);
    int compared = cmp != NULL, slower = cmp ? comparison_slower(cmp) : 0;
    cJSON_Delete(cmp);
    faults = cJSON_DetachItemFromObjectCaseSensitive(results, "stage_faults");
    cJSON_Delete(results);
    if (wrc != 0)
        goto fail;
    progress_log(NULL);
    if (fclose(log) != 0) {
        log = NULL;
        snprintf(err, sizeof err, "%s/run.log: cannot write: %s", tmpdir, strerror(errno));
        goto fail;
    }
    log = NULL;
    if (!(final = publish(tmpdir, o, name, err, sizeof err)))
        goto fail;
    register_run_folder(tmpdir, 0);
    signals_finished(final);            /* a signal from now on cuts nothing: it says so and ends */
    printf("%s/report.pdf\n", final);          /* annex.pdf is beside it */
    if (compared)
        printf("%s/comparison.pdf\n", final);
    fflush(stdout);
    if (progress_stopping()) {          /* said even with -q: it is the outcome, not progress */
        int sig = progress_stopping();
        if (partial)
            snprintf(err, sizeof err, "the run was %s; results.json and the PDFs say it is partial",
                     signals_stopped_by(sig));
        else                            /* what was kept, what was cut */
            snprintf(err, sizeof err, "%s came after the measurements: kept %s (results.json and "
                     "the PDFs complete); %s", sig == SIGINT ? "SIGINT" : "SIGTERM", final, wanted && !compared
                     ? "cut: the comparison with the baseline (not made)" : "nothing was cut");
        progress_note("%s", err);
        if (o->quiet)
            fprintf(stderr, "sparkreport: %s\n", err);
        rc = 128 + sig;
    } else {
        const cJSON *fault;             /* said even with -q: the report lacks what the stage was to add */
        cJSON_ArrayForEach(fault, faults)
            fprintf(stderr, "sparkreport: %s/results.json: %s\n", final, cJSON_IsString(fault) ? fault->valuestring : "?");
        if (failed)
            progress_note("some measurements failed validation or did not run; the report says which");
        rc = failed ? SR_EXIT_INVALID : slower > 0 ? SR_EXIT_SLOWER : SR_EXIT_OK;
    }
    goto done;
fail:
    fprintf(stderr, "sparkreport: %s\n", err);
    if (log) {
        progress_log(NULL);
        fclose(log);
    }
    if (tmpdir)
        remove_run_folder(tmpdir);
done:
    cJSON_Delete(faults);
    free(tmpdir);
    free(final);
    free(source);
    free(path);
    sr_lua_close(L);
    return rc;
}
