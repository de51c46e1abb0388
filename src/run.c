/* run.c: the `run` and `render` commands. The run folder is built under a temporary name in
 * the reports root and renamed only when every file in it is complete, so a failed or
 * refused run leaves nothing behind and earlier runs are never touched. */
#include "run.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <lauxlib.h>

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
    if (!r)
        return NULL;
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
        return r;
    }
    cJSON_Delete(r);
    return NULL;
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

/* Draws results into doc through the template the results name. */
static int draw(struct pdf_doc *doc, const cJSON *results, char *err, size_t errlen)
{
    lua_State *L = sr_lua_new(SR_LUA_MEM_LIMIT);
    int rc = sr_lua_require(L, "sparkreport.report", err, errlen);
    if (rc == 0) {
        lua_getfield(L, -1, "render");
        lpdf_push_doc(L, doc);
        lua_pushvalue(L, -1);
        lua_insert(L, -4);              /* keep the doc object below, to detach it after */
        lua_push_json(L, results);
        rc = sr_lua_pcall(L, 2, 0, err, errlen, NULL);
        lpdf_detach(L, -2);
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
    pdf_doc_info(doc, json_str(scn, "title", "sparkreport"), "sparkreport measurement report",
                 report_date(results));
    int rc = draw(doc, results, err, errlen);
    if (rc == 0) {
        size_t len = strlen(pdf_path) + 16;
        char *tmp = xmalloc(len);
        snprintf(tmp, len, "%s.tmp-XXXXXX", pdf_path);
        int fd = mkstemp(tmp);
        if (fd < 0) {
            snprintf(err, errlen, "%s: cannot create: %s", pdf_path, strerror(errno));
            rc = -1;
        } else {
            close(fd);
            rc = pdf_doc_save(doc, tmp, err, errlen);
            if (rc == 0 && (chmod(tmp, 0644) != 0 || rename(tmp, pdf_path) != 0)) {
                snprintf(err, errlen, "%s: cannot write: %s", pdf_path, strerror(errno));
                rc = -1;
            }
            if (rc != 0)
                unlink(tmp);
        }
        free(tmp);
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
    if (rc != 0)
        fprintf(stderr, "sparkreport: %s\n", err);
    else
        printf("%s\n", pdf_path);
    free(def);
    return rc == 0 ? SR_EXIT_OK : SR_EXIT_FAILURE;
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

/* Loads and checks the scenario in L; leaves it on the stack. Prints the error itself. */
static int load_scenario(lua_State *L, const struct run_opts *o, const char *source)
{
    char err[2048];
    if (sr_lua_require(L, "sparkreport.runner", err, sizeof err) != 0) {
        fprintf(stderr, "sparkreport: %s\n", err);
        return -1;
    }
    lua_getfield(L, -1, "load");
    lua_pushstring(L, source);
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
    if (sr_lua_pcall(L, 3, 1, err, errlen, &trace) != 0) {
        progress_note("%s", trace ? trace : err);
        free(trace);
        return NULL;
    }
    cJSON *r = lua_to_json(L, -1, "results", err, errlen);
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
    if (rc == 0)
        rc = render_results(back, path, err, errlen);
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

int run_command(const struct run_opts *o)
{
    char err[2048], *source;
    size_t n;
    if (fs_read_file(o->scenario, SCENARIO_MAX_BYTES, &source, &n, err, sizeof err) != 0) {
        fprintf(stderr, "sparkreport: %s\n", err);
        return SR_EXIT_SCENARIO;
    }
    progress_quiet(o->quiet);
    lua_State *L = sr_lua_new(SR_LUA_MEM_LIMIT);
    int rc = SR_EXIT_SCENARIO;
    char *tmpdir = NULL, *final = NULL;
    FILE *log = NULL;
    if (load_scenario(L, o, source) != 0)
        goto done;
    rc = SR_EXIT_FAILURE;
    if (fs_mkdir_p(o->outdir, err, sizeof err) != 0 || !(tmpdir = fs_mkdtemp(o->outdir, ".tmp-", err, sizeof err)))
        goto fail;
    snprintf(err, sizeof err, "%s/run.log", tmpdir);
    if (!(log = fopen(err, "w"))) {
        snprintf(err, sizeof err, "%s/run.log: cannot create: %s", tmpdir, strerror(errno));
        goto fail;
    }
    progress_log(log);
    fprintf(log, "sparkreport %s: %s\n", PACKAGE_VERSION, o->command);
    cJSON *results = execute(L, o, source, err, sizeof err);
    if (!results)
        goto fail;
    int failed = any_failure(results);
    int wrc = write_outputs(tmpdir, results, err, sizeof err);
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
    printf("%s/report.pdf\n", final);
    if (failed)
        progress_note("some measurements failed validation or did not run; the report says which");
    rc = failed ? SR_EXIT_INVALID : SR_EXIT_OK;
    goto done;
fail:
    fprintf(stderr, "sparkreport: %s\n", err);
    if (log) {
        progress_log(NULL);
        fclose(log);
    }
    if (tmpdir)
        fs_rm_rf(tmpdir);
done:
    free(tmpdir);
    free(final);
    free(source);
    sr_lua_close(L);
    return rc;
}
