/* run.c: the `run` and `render` commands. The run folder is built under a temporary name in
 * the reports root and renamed only when every file in it is complete, so a failed or
 * refused run leaves nothing behind and earlier runs are never touched. */
#include "cmd/run.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <lauxlib.h>

#include "cmd/compare.h"
#include "config.h"
#include "lua/convert.h"
#include "lua/modules.h"
#include "lua/state.h"
#include "report/report.h"
#include "util/env.h"
#include "util/error.h"
#include "util/fsutil.h"
#include "util/json.h"
#include "util/progress.h"

#define SCENARIO_MAX_BYTES ((size_t)1 << 20)
#define SCENARIO_GRACE_S 2.0                /* after the time limit, before the watchdog */

/* ---- signals: a first SIGINT/SIGTERM during a run stops it after the current measurement;
 * a second one, or any during render, removes the registered temporaries and exits. ---- */

static volatile sig_atomic_t gentle;        /* a first signal may stop the run gently */
static volatile sig_atomic_t signals_quiet;

static void say(const char *s)
{
    ssize_t w = write(STDERR_FILENO, s, strlen(s));
    (void)w;
}

static void on_signal(int sig)
{
    const char *name = sig == SIGINT ? "SIGINT" : "SIGTERM";
    if (gentle && !progress_stopping()) {
        progress_request_stop(sig);
        if (!signals_quiet) {
            say("\nsparkreport: ");
            say(name);
            say(": stopping after the current measurement; the report will say the run is partial "
                "(a second signal stops at once)\n");
        }
        return;
    }
    fs_cleanup_now();
    say("sparkreport: ");
    say(name);
    say(gentle ? ": stopped at once; the unfinished run was removed\n" : ": stopped; nothing was written\n");
    _exit(128 + sig);
}

void run_catch_signals(int first_is_gentle, int quiet)
{
    static int at_exit;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaddset(&sa.sa_mask, SIGINT);
    sigaddset(&sa.sa_mask, SIGTERM);
    gentle = first_is_gentle;
    signals_quiet = quiet;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    if (!at_exit++)
        atexit(fs_cleanup_now);         /* DIE() and other exits leave no temporaries either */
}

static const char *stopped_by(int sig)
{
    return sig == SIGINT ? "interrupted by SIGINT" : "stopped by SIGTERM";
}

/* ---- results.json: loading and checking ---- */

static int want(const cJSON *r, const char *key, int (*is)(const cJSON *), const char *what,
                const char *path, char *err, size_t errlen)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(r, key);
    if (is(v))
        return 0;
    snprintf(err, errlen, "%s: '%s' must be %s%s", path, key, what, v ? "" : " (it is missing)");
    return -1;
}

static int check_experiments(const cJSON *exps, const char *path, char *err, size_t errlen)
{
    int i = 0;
    for (const cJSON *e = exps->child; e; e = e->next, i++) {
        char where[64];
        snprintf(where, sizeof where, "experiments[%d]", i + 1);
        if (!cJSON_IsObject(e) || !cJSON_IsString(cJSON_GetObjectItemCaseSensitive(e, "name"))
            || !cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(e, "results"))) {
            snprintf(err, errlen, "%s: %s must be an object with a 'name' and a 'results' array", path, where);
            return -1;
        }
    }
    return 0;
}

cJSON *results_load(const char *path, char *err, size_t errlen)
{
    cJSON *r = json_load(path, SR_RESULTS_MAX_BYTES, err, errlen);
    if (r && results_check(r, path, err, errlen) != 0) {
        cJSON_Delete(r);
        r = NULL;
    }
    return r;
}

int results_check(const cJSON *r, const char *path, char *err, size_t errlen)
{
    const char *schema = json_str(r, "schema", NULL);
    double version = json_num(r, "schema_version", NAN);
    if (!cJSON_IsObject(r) || !schema || strcmp(schema, SR_SCHEMA) != 0) {
        snprintf(err, errlen, "%s: not a sparkreport results file (no \"schema\": \"%s\")", path, SR_SCHEMA);
    } else if (!(version >= 1 && version == floor(version))) {
        snprintf(err, errlen, "%s: 'schema_version' must be a whole number from 1", path);
    } else if (version > SR_SCHEMA_VERSION) {
        snprintf(err, errlen, "%s: schema version %.0f is newer than this sparkreport reads (%d); update sparkreport",
                 path, version, SR_SCHEMA_VERSION);
    } else if (want(r, "context", cJSON_IsObject, "an object", path, err, errlen) == 0
               && want(r, "scenario", cJSON_IsObject, "an object", path, err, errlen) == 0
               && want(r, "experiments", cJSON_IsArray, "an array", path, err, errlen) == 0
               && check_experiments(cJSON_GetObjectItemCaseSensitive(r, "experiments"), path, err, errlen) == 0) {
        return 0;
    }
    return -1;
}

/* ---- rendering ---- */

static time_t report_date(const cJSON *results)
{
    const char *sde = getenv("SOURCE_DATE_EPOCH");
    char *end;
    if (sde && *sde) {
        long long v = strtoll(sde, &end, 10);
        if (*end == '\0' && v >= 0)
            return (time_t)v;
    }
    double f = json_num(results, "finished_epoch", 0);
    return (time_t)(f > 0 ? f : 0);
}

static const char *font_dir(void)
{
    const char *d = getenv("SPARKREPORT_FONT_DIR");
    return d && *d ? d : SR_FONT_DIR;
}

/* report.check(results): 0, or SR_RESULTS_INVALID with err = "PATH.IN.DOCUMENT: reason".
 * Stack: [report, results] on entry and exit. */
static int check_shape(lua_State *L, char *err, size_t errlen)
{
    lua_getfield(L, 1, "check");
    lua_pushvalue(L, 2);
    if (sr_lua_pcall(L, 1, 2, err, errlen, NULL) != 0)
        return -1;
    int ok = lua_toboolean(L, -2);
    if (!ok)
        snprintf(err, errlen, "%s", lua_isstring(L, -1) ? lua_tostring(L, -1) : "invalid results");
    lua_pop(L, 2);
    return ok ? 0 : SR_RESULTS_INVALID;
}

/* Draws results into doc through the template the results name, after checking that they
 * have the shape the templates read. */
static int draw(struct pdf_doc *doc, const cJSON *results, char *err, size_t errlen)
{
    lua_State *L = sr_lua_new(SR_LUA_MEM_LIMIT);
    sr_lua_limit_time(L, SR_LUA_TIME_S);
    int rc = sr_lua_require(L, "sparkreport.report", err, errlen);
    if (rc == 0 && lua_push_json_protected(L, results, err, errlen) != 0) {
        char why[512];
        snprintf(why, sizeof why, "%s", err);
        snprintf(err, errlen, "too large to draw: %s", why);
        rc = SR_RESULTS_INVALID;
    }
    if (rc == 0)
        rc = check_shape(L, err, errlen);
    if (rc == 0) {                      /* [report, results] */
        lpdf_push_doc(L, doc);          /* kept at 3, to detach it after */
        lua_getfield(L, 1, "render");
        lua_pushvalue(L, 3);
        lua_pushvalue(L, 2);
        rc = sr_lua_pcall(L, 2, 0, err, errlen, NULL);
        lpdf_detach(L, 3);
    }
    sr_lua_close(L);
    return rc;
}

int render_results(const cJSON *results, const char *pdf_path, char *err, size_t errlen)
{
    struct pdf_doc *doc = pdf_doc_new(font_dir(), err, errlen);
    if (!doc)
        return -1;
    const cJSON *scn = cJSON_GetObjectItemCaseSensitive(results, "scenario");
    pdf_doc_info(doc, json_str(results, "title", json_str(scn, "title", "sparkreport")),   /* comparisons: their own */
                 json_str(results, "subject", "sparkreport measurement report"), report_date(results));
    int rc = draw(doc, results, err, errlen), fd;
    char *tmp = rc == 0 ? fs_temp_create(pdf_path, &fd, err, errlen) : NULL;
    if (tmp) {
        close(fd);
        rc = pdf_doc_save(doc, tmp, err, errlen);
        if (rc != 0) {
            char why[1024];             /* name the file the user asked for, not the temporary */
            const char *colon = strstr(err, ": ");
            snprintf(why, sizeof why, "%s", colon ? colon + 2 : err);
            snprintf(err, errlen, "%s: cannot write: %s", pdf_path, why);
            fs_temp_discard(tmp);
        } else {
            rc = fs_temp_commit(tmp, pdf_path, err, errlen);
        }
        free(tmp);
    } else if (rc == 0) {
        rc = -1;
    }
    pdf_doc_free(doc);
    return rc;
}

int render_command(const char *results_path, const char *pdf_path)
{
    char err[1024];
    cJSON *r = results_load(results_path, err, sizeof err);
    if (!r) {
        fprintf(stderr, "sparkreport: %s\n", err);
        return SR_EXIT_INPUT;
    }
    char *def = NULL;
    if (!pdf_path) {
        const char *slash = strrchr(results_path, '/');
        size_t dir = slash ? (size_t)(slash - results_path) + 1 : 0;
        def = xmalloc(dir + 16);
        snprintf(def, dir + 16, "%.*sreport.pdf", (int)dir, results_path);
        pdf_path = def;
    }
    int rc = render_results(r, pdf_path, err, sizeof err);
    cJSON_Delete(r);
    if (rc == SR_RESULTS_INVALID)
        fprintf(stderr, "sparkreport: %s: %s\n", results_path, err);
    else if (rc != 0)
        fprintf(stderr, "sparkreport: %s\n", err);
    else
        printf("%s\n", pdf_path);
    free(def);
    return rc == 0 ? SR_EXIT_OK : rc == SR_RESULTS_INVALID ? SR_EXIT_INPUT : SR_EXIT_FAILURE;
}

/* ---- results.csv ---- */

struct csv {
    char **cols;
    int ncols, cap;
};

static int col_index(struct csv *c, const char *name, int add)
{
    for (int i = 0; i < c->ncols; i++)
        if (strcmp(c->cols[i], name) == 0)
            return i;
    if (!add)
        return -1;
    if (c->ncols == c->cap)
        c->cols = xrealloc(c->cols, (size_t)(c->cap = c->cap ? 2 * c->cap : 32) * sizeof *c->cols);
    c->cols[c->ncols] = xstrdup(name);
    return c->ncols++;
}

/* Calls fn for every scalar field of rec, nested objects flattened "a.b"; arrays skipped. */
static void scalars(const cJSON *o, const char *prefix, void (*fn)(void *, const char *, const cJSON *), void *ud)
{
    for (const cJSON *f = o->child; f; f = f->next) {
        char name[256];
        snprintf(name, sizeof name, "%s%s%s", prefix, *prefix ? "." : "", f->string ? f->string : "");
        if (cJSON_IsObject(f))
            scalars(f, name, fn, ud);
        else if (!cJSON_IsArray(f))
            fn(ud, name, f);
    }
}

static void add_col(void *ud, const char *name, const cJSON *v)
{
    (void)v;
    col_index(ud, name, 1);
}

struct row {
    struct csv *csv;
    char **cells;
};

static void set_cell(void *ud, const char *name, const cJSON *v)
{
    struct row *r = ud;
    int i = col_index(r->csv, name, 0);
    char buf[64];
    if (i < 0)
        return;
    if (cJSON_IsNumber(v))
        snprintf(buf, sizeof buf, "%.12g", v->valuedouble);
    else if (cJSON_IsBool(v))
        snprintf(buf, sizeof buf, "%s", cJSON_IsTrue(v) ? "true" : "false");
    else if (cJSON_IsString(v))
        buf[0] = '\0';
    else
        return;
    free(r->cells[i]);
    r->cells[i] = xstrdup(cJSON_IsString(v) ? v->valuestring : buf);
}

static void put_field(char **out, size_t *len, size_t *cap, const char *s, int last)
{
    size_t need = 2 * strlen(s) + 4;
    if (*len + need >= *cap)
        *out = xrealloc(*out, *cap = 2 * (*cap + need));
    int quote = strpbrk(s, ",\"\n\r") != NULL;
    char *p = *out + *len;
    if (quote)
        *p++ = '"';
    for (; *s; s++) {
        if (*s == '"')
            *p++ = '"';
        *p++ = *s;
    }
    if (quote)
        *p++ = '"';
    *p++ = last ? '\n' : ',';
    *len = (size_t)(p - *out);
}

char *results_csv(const cJSON *results)
{
    struct csv c = { 0 };
    const cJSON *exps = cJSON_GetObjectItemCaseSensitive(results, "experiments");
    col_index(&c, "experiment", 1);
    col_index(&c, "device", 1);
    for (const cJSON *e = exps ? exps->child : NULL; e; e = e->next)
        for (const cJSON *r = cJSON_GetObjectItemCaseSensitive(e, "results")->child; r; r = r->next)
            scalars(r, "", add_col, &c);
    size_t len = 0, cap = 4096;
    char *out = xmalloc(cap);
    for (int i = 0; i < c.ncols; i++)
        put_field(&out, &len, &cap, c.cols[i], i == c.ncols - 1);
    for (const cJSON *e = exps ? exps->child : NULL; e; e = e->next) {
        for (const cJSON *r = cJSON_GetObjectItemCaseSensitive(e, "results")->child; r; r = r->next) {
            struct row row = { &c, xcalloc((size_t)c.ncols, sizeof(char *)) };
            row.cells[0] = xstrdup(json_str(e, "name", ""));
            row.cells[1] = xstrdup(json_str(e, "device", ""));
            scalars(r, "", set_cell, &row);
            for (int i = 0; i < c.ncols; i++) {
                put_field(&out, &len, &cap, row.cells[i] ? row.cells[i] : "", i == c.ncols - 1);
                free(row.cells[i]);
            }
            free(row.cells);
        }
    }
    out[len] = '\0';
    for (int i = 0; i < c.ncols; i++)
        free(c.cols[i]);
    free(c.cols);
    return out;
}

/* ---- run ---- */

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
 * SPARKREPORT_SCENARIO_TIME_S when set (0.1 .. 3600). */
static double scenario_time_limit(void)
{
    const char *v = getenv("SPARKREPORT_SCENARIO_TIME_S");
    char *end;
    double t = v && *v ? strtod(v, &end) : 0;
    return v && *v && *end == '\0' && t >= 0.1 && t <= 3600 ? t : SR_LUA_SCENARIO_TIME_S;
}

/* Runs the scenario file in a state of its own and returns what it declared, as data: its
 * code never reaches the state that runs the experiments. Prints the error itself. */
static cJSON *load_scenario(const struct run_opts *o, const char *source)
{
    char err[2048];
    cJSON *scn = NULL;
    lua_State *S = sr_lua_new(SR_LUA_SCENARIO_MEM_LIMIT);
    double limit = scenario_time_limit();
    sr_lua_scenario_mode(S, limit);
    snprintf(err, sizeof err, "%s: the scenario ran for more than %g s of processor time inside one library "
             "call (a string pattern that backtracks without end?); stopped", o->scenario, limit + SCENARIO_GRACE_S);
    sr_lua_watchdog(limit + SCENARIO_GRACE_S, err, SR_EXIT_SCENARIO);
    if (sr_lua_require(S, "sparkreport.runner", err, sizeof err) != 0) {
        fprintf(stderr, "sparkreport: %s\n", err);
        sr_lua_close(S);
        return NULL;
    }
    lua_getfield(S, -1, "load");
    lua_pushstring(S, source);
    lua_pushstring(S, o->scenario);
    lua_createtable(S, o->nsets, 0);
    for (int i = 0; i < o->nsets; i++) {
        lua_pushstring(S, o->sets[i]);
        lua_rawseti(S, -2, i + 1);
    }
    if (sr_lua_pcall(S, 3, 1, err, sizeof err, NULL) != 0) {
        if (!progress_stopping())       /* else the caller says it was interrupted */
            fprintf(stderr, "%s\n", err);
    } else if (!(scn = lua_to_json_protected(S, -1, "scenario", err, sizeof err)))
        fprintf(stderr, "%s: the value it returned cannot be used: %s\n", o->scenario, err);
    sr_lua_watchdog(0, NULL, 0);
    sr_lua_close(S);
    return scn;
}

/* The scenario's data, checked again in L by runner.prepare; leaves [runner, scenario] on
 * L's stack. Prints the error itself. */
static int prepare(lua_State *L, const struct run_opts *o, const cJSON *scn)
{
    char err[2048];
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
    if (sr_lua_pcall(L, 2, 1, err, sizeof err, NULL) != 0) {
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
    cJSON *ctx = env_context();
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
    for (const cJSON *e = exps ? exps->child : NULL; e; e = e->next) {
        if (strcmp(json_str(e, "status", "failed"), "complete") != 0)
            return 1;
        for (const cJSON *r = cJSON_GetObjectItemCaseSensitive(e, "results")->child; r; r = r->next)
            if (cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(r, "valid")))
                return 1;
    }
    return 0;
}

/* Writes results.json, results.csv and report.pdf into dir; report.pdf from results.json. */
static int write_outputs(const char *dir, const cJSON *results, char *err, size_t errlen)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/results.json", dir);
    if (json_save(path, results, err, errlen) != 0)
        return -1;
    cJSON *back = results_load(path, err, errlen);     /* the PDF is drawn from the file, as render does */
    if (!back)
        return -1;
    char *csv = results_csv(back);
    snprintf(path, sizeof path, "%s/results.csv", dir);
    int rc = fs_write_atomic(path, csv, strlen(csv), err, errlen);
    free(csv);
    snprintf(path, sizeof path, "%s/report.pdf", dir);
    if (rc == 0 && (rc = render_results(back, path, err, errlen)) == SR_RESULTS_INVALID) {
        char why[1024];
        snprintf(why, sizeof why, "%.1000s", err);
        snprintf(err, errlen, "%s/results.json: %s", dir, why);
    }
    cJSON_Delete(back);
    return rc;
}

/* Renames the finished temporary folder to reports/<UTC stamp>-<host>-<scenario>. */
static char *publish(const char *tmpdir, const struct run_opts *o, char *err, size_t errlen)
{
    char stamp[32], host[64] = "host", name[80], final[4096], latest[4096];
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &tm);
    gethostname(host, sizeof host - 1);
    host[sizeof host - 1] = '\0';
    sanitize(host);
    scenario_name(o->scenario, name, sizeof name);
    snprintf(final, sizeof final, "%s/%s-%s-%s", o->outdir, stamp, host, name);
    for (int i = 2; fs_exists(final) && i < 100; i++)
        snprintf(final, sizeof final, "%s/%s-%s-%s-%d", o->outdir, stamp, host, name, i);
    if (rename(tmpdir, final) != 0) {
        snprintf(err, errlen, "%.900s: cannot rename the finished run to %.900s: %s", tmpdir, final, strerror(errno));
        return NULL;
    }
    snprintf(latest, sizeof latest, "%s/latest", o->outdir);
    if (fs_symlink_replace(strrchr(final, '/') + 1, latest, err, errlen) != 0)
        progress_note("%s", err);               /* the run is complete; only the link failed */
    return xstrdup(final);
}

/* The files a run folder holds; a second signal removes them and the folder. */
static const char *const run_files[] = { "run.log", "results.json", "results.csv", "report.pdf",
                                         "comparison.json", "comparison.pdf", NULL };

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
        fs_rm_rf(tmpdir);
        register_run_folder(tmpdir, 0);
        free(tmpdir);
        return NULL;
    }
    return tmpdir;
}

/* Loads the scenario (its own state) and prepares it in L; an exit code, 0 to go on. */
static int load_and_prepare(lua_State *L, const struct run_opts *o, const char *source)
{
    cJSON *scn = load_scenario(o, source);
    int rc = scn && prepare(L, o, scn) == 0 ? 0 : SR_EXIT_SCENARIO;
    cJSON_Delete(scn);
    if (progress_stopping()) {
        fprintf(stderr, "sparkreport: %s before any measurement; nothing was written\n",
                stopped_by(progress_stopping()));
        rc = 128 + progress_stopping();
    }
    return rc;
}

int run_command(const struct run_opts *o)
{
    char err[2048], *source;
    size_t n;
    if (fs_read_file(o->scenario, SCENARIO_MAX_BYTES, &source, &n, err, sizeof err) != 0) {
        fprintf(stderr, "sparkreport: %s\n", err);
        return SR_EXIT_SCENARIO;
    }
    progress_quiet(o->quiet);
    run_catch_signals(1, o->quiet);
    lua_State *L = sr_lua_new(SR_LUA_MEM_LIMIT);
    sr_lua_limit_time(L, SR_LUA_TIME_S);
    char *tmpdir = NULL, *final = NULL;
    FILE *log = NULL;
    int rc = load_and_prepare(L, o, source);
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
    int failed = any_failure(results);
    int wrc = write_outputs(tmpdir, results, err, sizeof err), compared = 0;
    int slower = wrc == 0 ? compare_after_run(tmpdir, o->outdir, results, &compared) : 0;
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
    if (!(final = publish(tmpdir, o, err, sizeof err)))
        goto fail;
    register_run_folder(tmpdir, 0);
    printf("%s/report.pdf\n", final);
    if (compared)
        printf("%s/comparison.pdf\n", final);
    fflush(stdout);
    if (progress_stopping()) {
        progress_note("the run was %s; results.json and report.pdf say it is partial",
                      stopped_by(progress_stopping()));
        rc = 128 + progress_stopping();
    } else {
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
    if (tmpdir) {
        fs_rm_rf(tmpdir);
        register_run_folder(tmpdir, 0);
    }
done:
    free(tmpdir);
    free(final);
    free(source);
    sr_lua_close(L);
    return rc;
}
