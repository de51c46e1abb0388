/* lbench.c: the Lua module `bench`: parameter checking against the experiment tables,
 * running an experiment, the machine's context, embedded resources and a few formatting
 * helpers shared with the C charts. Measurements are the experiments'; this file only
 * carries values across the bridge. */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <lauxlib.h>

#include "config.h"
#include "decide/decide.h"
#include "decide/team.h"
#include "exp/experiment.h"
#include "predict/jobspec.h"
#include "predict/measured.h"
#include "predict/project.h"
#include "predict/stack.h"
#include "report/report.h"
#include "lua/convert.h"
#include "lua/embedded.h"
#include "lua/modules.h"
#include "lua/state.h"
#include "measure/context.h"
#include "measure/dram.h"
#include "util/error.h"
#include "util/fsutil.h"
#include "util/json.h"
#include "util/mwu.h"
#include "util/progress.h"
#include "util/schema.h"
#include "util/sha256.h"
#include "util/signals.h"
#include "util/timing.h"
#include "util/units.h"

/* The parameter table for `name`: an experiment's, or the scenario's own. */
static const struct param *params_of(lua_State *L, const char *name, const struct experiment **exp)
{
    char names[256];
    *exp = experiment_find(name);
    if (*exp)
        return (*exp)->params;
    if (strcmp(name, "scenario") == 0)
        return scenario_params;
    luaL_error(L, "unknown experiment '%s' (valid: %s)", name, experiment_names(names, sizeof names));
    return NULL;
}

/* bench.check(name, params) -> normalised params | nil, message */
static int l_check(lua_State *L)
{
    const struct experiment *exp;
    const struct param *ps = params_of(L, luaL_checkstring(L, 1), &exp);
    char err[1024];
    cJSON *given = NULL;
    if (!lua_isnoneornil(L, 2)) {
        luaL_checktype(L, 2, LUA_TTABLE);
        given = lua_to_json_plain(L, 2, lua_tostring(L, 1), err, sizeof err);   /* a scenario's values: data */
        if (!given) {
            luaL_pushfail(L);
            lua_pushstring(L, err);
            return 2;
        }
    }
    cJSON *norm = param_check(lua_tostring(L, 1), ps, given, err, sizeof err);
    cJSON_Delete(given);
    if (norm && exp && exp->precheck && exp->precheck(norm, err, sizeof err) != 0) {
        cJSON_Delete(norm);
        norm = NULL;
    }
    if (!norm) {
        luaL_pushfail(L);
        lua_pushstring(L, err);
        return 2;
    }
    lua_push_json(L, norm);
    cJSON_Delete(norm);
    return 1;
}

/* bench.parse(name, param, text) -> value | nil, message   (for --set key=value) */
static int l_parse(lua_State *L)
{
    const struct experiment *exp;
    const char *what = luaL_checkstring(L, 1);
    const struct param *ps = params_of(L, what, &exp);
    size_t tlen;
    const char *pname = luaL_checkstring(L, 2), *text = luaL_checklstring(L, 3, &tlen);
    const struct param *p = param_find(ps, pname);
    char err[1024], names[1024];
    if (strlen(text) != tlen) {                 /* as in a scenario (lua/convert.c): never cut short */
        luaL_pushfail(L);
        lua_pushfstring(L, "%s: parameter '%s': byte %d is a NUL (\\0), which would cut the text there; remove it",
                        what, pname, (int)strlen(text) + 1);
        return 2;
    }
    if (!p) {
        luaL_pushfail(L);
        lua_pushfstring(L, "%s: unknown parameter '%s' (valid: %s)", what, pname,
                        param_names(ps, names, sizeof names));
        return 2;
    }
    cJSON *v = param_parse_text(what, p, text, err, sizeof err);
    if (!v) {
        luaL_pushfail(L);
        lua_pushstring(L, err);
        return 2;
    }
    lua_push_json(L, v);
    cJSON_Delete(v);
    return 1;
}

/* bench.project(experiments, catalog [, runs [, claims [, jobs [, measured]]]]) -> { [i] = { results, info } | { error } }:
 * the projection stage (src/predict/project.h) over the results document's experiments, after
 * they all ran: each model experiment's calibration projected onto the catalog rows, the stack
 * profiles fitted on the published GPU runs, the vendor claims reconciled, the link the
 * collective experiment measured used for scale-out. For the i-th experiment, what to append
 * to its results and add to its info; nothing for an experiment with nothing to project. */
static int l_project(lua_State *L)
{
    static const char *const names[] = { "catalog", "runs", "claims", "jobs", "measured" };
    if (sr_lua_is_scenario(L))
        return luaL_error(L, "bench.project is not available in a scenario");
    luaL_checktype(L, 1, LUA_TTABLE);
    luaL_checktype(L, 2, LUA_TTABLE);
    char err[1024];
    cJSON *lists[5] = { NULL, NULL, NULL, NULL, NULL }, *exps = NULL;
    for (int i = 0; i < 5; i++) {
        if (lua_isnoneornil(L, 2 + i))
            continue;
        luaL_checktype(L, 2 + i, LUA_TTABLE);
        if (!(lists[i] = lua_to_json(L, 2 + i, names[i], err, sizeof err)))
            goto fail;
    }
    if (!(exps = lua_to_json(L, 1, "experiments", err, sizeof err)))
        goto fail;
    struct predict_inputs in = { .catalog = lists[0], .runs = lists[1], .claims = lists[2], .jobs = lists[3],
                                 .measured = lists[4] };
    predict_inputs_link(exps, &in);
    predict_contention_load(exps, &in.contention);
    const struct experiment *model = experiment_find("model");
    const cJSON *e;
    int i = 0;
    lua_newtable(L);
    cJSON_ArrayForEach(e, exps) {
        i++;
        if (strcmp(json_str(e, "name", ""), "model") != 0)
            continue;
        cJSON *out = cJSON_CreateObject();
        cJSON *norm = param_check("model", model->params, cJSON_GetObjectItemCaseSensitive(e, "params"), err, sizeof err);
        int rc = norm ? predict_stage(e, norm, &in, out, err, sizeof err) : -1;
        if (rc < 0)
            cJSON_AddStringToObject(out, "error", err);
        if (rc <= 0) {
            lua_push_json(L, out);
            lua_rawseti(L, -2, i);
        }
        cJSON_Delete(norm);
        cJSON_Delete(out);
    }
    cJSON_Delete(exps);
    for (int k = 0; k < 5; k++)
        cJSON_Delete(lists[k]);
    return 1;
fail:
    for (int k = 0; k < 5; k++)
        cJSON_Delete(lists[k]);
    return luaL_error(L, "%s", err);
}

/* A job's config.json: the copy shipped in the program (data/models/...) where the path names one, else
 * the file, relative to the folder sparkreport runs in. */
static int read_config(const char *path, char **text, size_t *n, char *err, size_t errlen)
{
    const struct embedded_file *f = embedded_find(path);
    if (!f)
        return fs_read_file(path, 1 << 20, text, n, err, errlen);
    *text = xmalloc(f->size + 1);
    memcpy(*text, f->data, f->size + 1);
    *n = f->size;
    return 0;
}

/* bench.job(given) -> the job as plain data (every field, a config.json's shape in place) | nil, message:
 * sr.job's check, parsed once into the projection's workload (src/predict/jobspec.h) and written back. */
static int l_job(lua_State *L)
{
    char err[1024];
    struct jobspec j;
    luaL_checktype(L, 1, LUA_TTABLE);
    cJSON *given = lua_to_json(L, 1, "job", err, sizeof err);
    if (!given || jobspec_parse(given, read_config, "", &j, err, sizeof err) != 0) {
        cJSON_Delete(given);
        luaL_pushfail(L);
        lua_pushstring(L, err);
        return 2;
    }
    cJSON_Delete(given);
    cJSON *norm = jobspec_json(&j);
    jobspec_free(&j);
    lua_push_json(L, norm);
    cJSON_Delete(norm);
    return 1;
}

/* bench.rate(given, job) -> the measured rate as plain data (tokens_per_s, how it was had) | nil, message:
 * sr.measured's check against its job (a plain job from bench.job, whose shape a total_flos needs). */
static int l_rate(lua_State *L)
{
    char err[1024];
    struct jobspec j;
    struct measured m;
    luaL_checktype(L, 1, LUA_TTABLE);
    luaL_checktype(L, 2, LUA_TTABLE);
    cJSON *given = lua_to_json(L, 1, "measured", err, sizeof err);
    cJSON *job = given ? lua_to_json(L, 2, "job", err, sizeof err) : NULL;
    int rc = job && jobspec_parse(job, read_config, "", &j, err, sizeof err) == 0 ? 0 : -1;
    if (rc == 0) {
        rc = measured_parse(given, NULL, &j.w.shape, &m, err, sizeof err);
        jobspec_free(&j);
    }
    cJSON_Delete(given);
    cJSON_Delete(job);
    if (rc != 0) {
        luaL_pushfail(L);
        lua_pushstring(L, err);
        return 2;
    }
    cJSON *o = measured_json(&m);
    lua_push_json(L, o);
    cJSON_Delete(o);
    return 1;
}

/* bench.team(given [, jobs]) -> the team with its defaults filled | nil, message: sr.team's check, parsed
 * into the typed team (src/decide/team.h) and written back, so that what a scenario declares is
 * what the decision reads. */
static int l_team(lua_State *L)
{
    char err[1024];
    struct team t;
    luaL_checktype(L, 1, LUA_TTABLE);
    cJSON *given = lua_to_json_plain(L, 1, "team", err, sizeof err), *jobs = NULL;
    if (given && !lua_isnoneornil(L, 2)) {      /* the scenario's jobs (sr.job), whose names a team's job may give */
        luaL_checktype(L, 2, LUA_TTABLE);
        jobs = lua_to_json_plain(L, 2, "jobs", err, sizeof err);
    }
    if (!given || (!lua_isnoneornil(L, 2) && !jobs) || team_parse(given, jobs, &t, err, sizeof err) != 0) {
        cJSON_Delete(given);
        cJSON_Delete(jobs);
        luaL_pushfail(L);
        lua_pushstring(L, err);
        return 2;
    }
    cJSON_Delete(given);
    cJSON_Delete(jobs);
    cJSON *norm = team_json(&t);
    lua_push_json(L, norm);
    cJSON_Delete(norm);
    return 1;
}

/* bench.decide(document) -> { results, info } | { error } | nil: the team decision stage
 * (src/decide/decide.h) over a results document whose projection ran; nil when the scenario has
 * neither a team nor a decide list. */
static int l_decide(lua_State *L)
{
    char err[1024];
    if (sr_lua_is_scenario(L))
        return luaL_error(L, "bench.decide is not available in a scenario");
    luaL_checktype(L, 1, LUA_TTABLE);
    cJSON *doc = lua_to_json(L, 1, "document", err, sizeof err);
    if (!doc)
        return luaL_error(L, "%s", err);
    cJSON *out = cJSON_CreateObject();
    int rc = decide_stage(doc, out, err, sizeof err);
    cJSON_Delete(doc);
    if (rc == 1) {
        cJSON_Delete(out);
        lua_pushnil(L);
        return 1;
    }
    if (rc < 0) {
        cJSON_Delete(out);
        out = cJSON_CreateObject();
        cJSON_AddStringToObject(out, "error", err);
    }
    lua_push_json(L, out);
    cJSON_Delete(out);
    return 1;
}

/* bench.run(name, params, budget_s [, last]) -> {results, skipped, info} | nil, message; last: it is
 * the run's last experiment (a stop after its measurements then cuts nothing measured) */
static int l_run(lua_State *L)
{
    const struct experiment *exp;
    params_of(L, luaL_checkstring(L, 1), &exp);
    luaL_argcheck(L, exp != NULL, 1, "not an experiment");
    if (sr_lua_is_scenario(L))
        return luaL_error(L, "bench.run is not available in a scenario: experiments run after the scenario "
                          "returns them (write sr.%s { ... })", exp->name);
    luaL_checktype(L, 2, LUA_TTABLE);
    double budget = luaL_checknumber(L, 3);
    luaL_argcheck(L, budget > 0 && budget <= 86400 * 7, 3, "budget must be 0 .. 604800 seconds");
    char err[1024];
    cJSON *given = lua_to_json(L, 2, exp->name, err, sizeof err);
    cJSON *norm = given ? param_check(exp->name, exp->params, given, err, sizeof err) : NULL;
    cJSON_Delete(given);
    if (!norm)
        return luaL_error(L, "%s", err);
    progress_expect(lua_toboolean(L, 4));   /* whether a stop cut it short, or came after it */
    sr_lua_pause_clock(L);              /* measurements do not count against Lua's time limit */
    cJSON *out = exp->run(norm, budget, err, sizeof err);
    sr_lua_resume_clock(L);
    cJSON_Delete(norm);
    if (!out) {
        luaL_pushfail(L);
        lua_pushstring(L, err);
        return 2;
    }
    lua_push_json(L, out);
    cJSON_Delete(out);
    return 1;
}

static void push_param(lua_State *L, const struct param *p)
{
    static const char *types[] = { "integer", "number", "boolean", "size", "enum", "string" };
    lua_createtable(L, 0, 8);
    lua_pushstring(L, p->name);
    lua_setfield(L, -2, "name");
    lua_pushstring(L, types[p->type]);
    lua_setfield(L, -2, "type");
    lua_pushboolean(L, (p->flags & PARAM_LIST) != 0);
    lua_setfield(L, -2, "list");
    lua_pushboolean(L, (p->flags & PARAM_NOT_KEY) != 0);
    lua_setfield(L, -2, "not_key");
    lua_pushstring(L, p->def);
    lua_setfield(L, -2, "default");
    lua_pushstring(L, p->help);
    lua_setfield(L, -2, "help");
    if (p->choices) {
        lua_pushstring(L, p->choices);
        lua_setfield(L, -2, "choices");
    }
    if (p->keywords) {
        lua_pushstring(L, p->keywords);
        lua_setfield(L, -2, "keywords");
    }
}

/* bench.experiments() -> { {name=, help=, weight=, params={...}}, ... } */
static int l_experiments(lua_State *L)
{
    lua_newtable(L);
    int i = 1;
    for (const struct experiment *e = experiments; e->name; e++, i++) {
        lua_createtable(L, 0, 4);
        lua_pushstring(L, e->name);
        lua_setfield(L, -2, "name");
        lua_pushstring(L, e->help);
        lua_setfield(L, -2, "help");
        lua_pushnumber(L, e->weight);
        lua_setfield(L, -2, "weight");
        lua_newtable(L);
        int j = 1;
        for (const struct param *p = e->params; p->name; p++, j++) {
            push_param(L, p);
            lua_rawseti(L, -2, j);
        }
        lua_setfield(L, -2, "params");
        lua_rawseti(L, -2, i);
    }
    return 1;
}

/* bench.context() -> the context block of results.json. Not in a scenario: a scenario sees no
 * environment (no variables, no host details), so what it declares does not depend on where it
 * runs; results.json records the machine beside what was measured. */
static int l_context(lua_State *L)
{
    if (sr_lua_is_scenario(L))
        return luaL_error(L, "bench.context is not available in a scenario: a scenario sees no environment "
                          "(results.json records this machine and its OMP_* variables)");
    cJSON *c = measure_context();
    lua_push_json(L, c);
    cJSON_Delete(c);
    return 1;
}

/* bench.resource(path) -> text of an embedded file, where it came from | nil, message. A data file
 * of the build (data/NAME) is read from $SPARKREPORT_CATALOG_DIR/NAME instead where that folder holds
 * one (the second result is then that path): a catalog with a system of the user's own is rows
 * there, no rebuild; its sha256 is what the results record. A file the folder lacks is the build's. */
#define DATA_FILE_MAX (64u << 20)
static int l_resource(lua_State *L)
{
    const char *name = luaL_checkstring(L, 1), *dir = getenv("SPARKREPORT_CATALOG_DIR");
    const struct embedded_file *f = embedded_find(name);
    if (!f) {
        luaL_pushfail(L);
        lua_pushfstring(L, "no embedded file '%s'", name);
        return 2;
    }
    char path[4096], err[4400], *text;
    size_t n;
    struct stat st;
    if (dir && *dir && strncmp(name, "data/", 5) == 0
        && (size_t)snprintf(path, sizeof path, "%s/%s", dir, name + 5) < sizeof path
        && (stat(path, &st) == 0 || errno != ENOENT)) {
        if (fs_read_file(path, DATA_FILE_MAX, &text, &n, err, sizeof err) != 0) {
            luaL_pushfail(L);
            lua_pushfstring(L, "SPARKREPORT_CATALOG_DIR: %s", err);
            return 2;
        }
        lua_pushlstring(L, text, n);
        free(text);
        lua_pushstring(L, path);
        return 2;
    }
    lua_pushlstring(L, (const char *)f->data, f->size);
    lua_pushstring(L, name);
    return 2;
}

static int l_sha256(lua_State *L)
{
    size_t n;
    const char *s = luaL_checklstring(L, 1, &n);
    char hex[65];
    sha256_hex(s, n, hex);
    lua_pushstring(L, hex);
    return 1;
}

static int l_now(lua_State *L)
{
    lua_pushnumber(L, timing_now());
    return 1;
}

static int l_wall(lua_State *L)
{
    lua_pushnumber(L, timing_wall());
    return 1;
}

static int l_format_bytes(lua_State *L)
{
    char buf[32];
    lua_pushstring(L, units_format_bytes(luaL_checknumber(L, 1), buf, sizeof buf));
    return 1;
}

static int l_format_duration(lua_State *L)
{
    char buf[32];
    lua_pushstring(L, units_format_duration(luaL_checknumber(L, 1), buf, sizeof buf));
    return 1;
}

/* Argument arg as an array of numbers (Lua memory, freed with the state's garbage); *n its length. */
static double *number_list(lua_State *L, int arg, int *n)
{
    luaL_checktype(L, arg, LUA_TTABLE);
    lua_Unsigned len = lua_rawlen(L, arg);
    luaL_argcheck(L, len >= 1 && len <= 10000000, arg, "expected a list of 1 .. 10000000 numbers");
    double *v = lua_newuserdatauv(L, (size_t)len * sizeof *v, 0);
    for (lua_Unsigned i = 0; i < len; i++) {
        if (lua_rawgeti(L, arg, (lua_Integer)i + 1) != LUA_TNUMBER)
            luaL_argerror(L, arg, lua_pushfstring(L, "entry %I is a %s, not a number",
                                                  (LUAI_UACINT)i + 1, luaL_typename(L, -1)));
        v[i] = (double)lua_tonumber(L, -1);
        lua_pop(L, 1);
    }
    *n = (int)len;
    return v;
}

/* bench.mann_whitney(x, y) -> { w, p, z, exact, ties, min_p } | nil, message (two-sided) */
static int l_mann_whitney(lua_State *L)
{
    int nx, ny;
    const double *x = number_list(L, 1, &nx), *y = number_list(L, 2, &ny);
    struct mwu r;
    if (mwu_test(x, nx, y, ny, &r) != 0) {
        luaL_pushfail(L);
        lua_pushliteral(L, "a sample holds a value that is not a finite number");
        return 2;
    }
    lua_createtable(L, 0, 6);
    lua_pushnumber(L, r.w);
    lua_setfield(L, -2, "w");
    lua_pushnumber(L, r.p);
    lua_setfield(L, -2, "p");
    lua_pushnumber(L, r.z);
    lua_setfield(L, -2, "z");
    lua_pushboolean(L, r.exact);
    lua_setfield(L, -2, "exact");
    lua_pushboolean(L, r.ties);
    lua_setfield(L, -2, "ties");
    lua_pushnumber(L, r.min_p);
    lua_setfield(L, -2, "min_p");
    return 1;
}

/* bench.stopping() -> nil | signal name, the words that say what stopped the run ("interrupted
 * by SIGINT", signals_stopped_by), and whether the stop came after the last bench.run's measurements
 * ended (progress_ended: it cut none of them) */
static int l_stopping(lua_State *L)
{
    int sig = progress_stopping();
    if (!sig) {
        lua_pushnil(L);
        return 1;
    }
    lua_pushstring(L, sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "a signal");
    lua_pushstring(L, signals_stopped_by(sig));
    lua_pushboolean(L, progress_ended());
    return 3;
}

/* bench.measured(): the run's measurements are done (the runner, after its last experiment): a
 * first SIGINT or SIGTERM from now on says that the results are complete (signals_measured) */
static int l_measured(lua_State *L)
{
    if (sr_lua_is_scenario(L))
        return luaL_error(L, "bench.measured is not available in a scenario");
    signals_measured();
    return 0;
}

/* bench.text_problem(s) -> nil | "character N (...) cannot be drawn: ...": whether the report's fonts
 * draw every character of s (report.h's pdf_text_check), for texts read from data files. */
static int l_text_problem(lua_State *L)
{
    size_t n, at;
    const char *s = luaL_checklstring(L, 1, &n);
    char why[512], msg[600];
    if (strlen(s) != n) {
        lua_pushstring(L, "holds a NUL byte");
        return 1;
    }
    if (pdf_text_check(s, &at, why, sizeof why) == 0) {
        lua_pushnil(L);
        return 1;
    }
    snprintf(msg, sizeof msg, "character %zu %s", at, why);
    lua_pushstring(L, msg);
    return 1;
}

/* A data file's row through the C reader that takes it (the rows as sparkreport.catalog reads
 * them, numbers as numbers); `where` ("data/offers.csv:4") names it in err. */
static int offer_row(const cJSON *row, const char *where, const cJSON *catalog, char *err, size_t errlen)
{
    struct team_offer o;
    (void)catalog;
    return team_offer_parse(row, where, &o, err, errlen);
}

static int run_row(const cJSON *row, const char *where, const cJSON *catalog, char *err, size_t errlen)
{
    struct predict_run *runs = NULL;
    char why[1024];
    cJSON *one = cJSON_CreateArray();
    cJSON_AddItemReferenceToArray(one, (cJSON *)row);
    int rc = predict_runs_load(one, catalog, &runs, why, sizeof why);
    cJSON_Delete(one);
    if (rc < 0) {                       /* "data/gpu-runs.csv: run 'ID' ..." at its line */
        const char *colon = strstr(why, ": ");
        snprintf(err, errlen, "%s: %s", where, colon ? colon + 2 : why);
        return -1;
    }
    predict_runs_free(runs, rc);
    return 0;
}

static int claim_row(const cJSON *row, const char *where, const cJSON *catalog, char *err, size_t errlen)
{
    char why[512];
    (void)catalog;
    if (predict_claim_check(row, why, sizeof why) == 0)
        return 0;
    snprintf(err, errlen, "%s: %s", where, why);
    return -1;
}

static const struct data_reader {
    const char *source;
    int (*row)(const cJSON *row, const char *where, const cJSON *catalog, char *err, size_t errlen);
    int max_rows;               /* the most its reader takes; 0: any */
} data_readers[] = {
    { "data/offers.csv", offer_row, TEAM_MAX_OFFERS },
    { "data/gpu-runs.csv", run_row, 0 },
    { "data/vendor-claims.csv", claim_row, 0 },
};

/* bench.check_data(source, rows, where, catalog) -> nil | i, message: a data file's rows through
 * the C reader that takes them (the team decision's offers, the projection's published runs and
 * vendors' claims), with its limits; i the first row refused. where[i] names row i in messages. */
static int l_check_data(lua_State *L)
{
    const char *source = luaL_checkstring(L, 1);
    char err[1024];
    luaL_checktype(L, 2, LUA_TTABLE);
    luaL_checktype(L, 3, LUA_TTABLE);
    for (size_t k = 0; k < sizeof data_readers / sizeof data_readers[0]; k++) {
        const struct data_reader *r = &data_readers[k];
        if (strcmp(r->source, source) != 0)
            continue;
        cJSON *rows = lua_to_json(L, 2, source, err, sizeof err);
        cJSON *catalog = rows ? lua_to_json(L, 4, "catalog", err, sizeof err) : NULL;
        int bad = rows && catalog ? 0 : -1, i = 0;
        const cJSON *row;
        cJSON_ArrayForEach(row, rows) {
            i++;
            lua_rawgeti(L, 3, i);
            const char *where = lua_isstring(L, -1) ? lua_tostring(L, -1) : source;
            if (r->max_rows && i > r->max_rows) {
                snprintf(err, sizeof err, "%s: row %d of a file whose reader takes at most %d", where, i, r->max_rows);
                bad = i;
            } else if (r->row(row, where, catalog, err, sizeof err) != 0) {
                bad = i;
            }
            lua_pop(L, 1);
            if (bad)
                break;
        }
        cJSON_Delete(rows);
        cJSON_Delete(catalog);
        if (bad < 0)
            return luaL_error(L, "%s", err);
        if (bad) {
            lua_pushinteger(L, bad);
            lua_pushstring(L, err);
            return 2;
        }
    }
    lua_pushnil(L);
    return 1;
}

static int l_note(lua_State *L)
{
    progress_note("%s", luaL_checkstring(L, 1));
    return 0;
}

static const luaL_Reg bench_funcs[] = {
    { "check", l_check },
    { "check_data", l_check_data },
    { "context", l_context },
    { "decide", l_decide },
    { "experiments", l_experiments },
    { "format_bytes", l_format_bytes },
    { "format_duration", l_format_duration },
    { "job", l_job },
    { "mann_whitney", l_mann_whitney },
    { "measured", l_measured },
    { "note", l_note },
    { "now", l_now },
    { "parse", l_parse },
    { "project", l_project },
    { "rate", l_rate },
    { "resource", l_resource },
    { "run", l_run },
    { "sha256", l_sha256 },
    { "stopping", l_stopping },
    { "team", l_team },
    { "text_problem", l_text_problem },
    { "wall", l_wall },
    { NULL, NULL },
};

int luaopen_bench(lua_State *L)
{
    luaL_newlib(L, bench_funcs);
    lua_pushstring(L, SR_SCHEMA);
    lua_setfield(L, -2, "schema");
    lua_pushinteger(L, SR_SCHEMA_VERSION);
    lua_setfield(L, -2, "schema_version");
    lua_pushstring(L, MEASURE_DRAM_RULE);
    lua_setfield(L, -2, "dram_rule");
    lua_pushstring(L, PACKAGE_NAME " " PACKAGE_VERSION);
    lua_setfield(L, -2, "version");
    lua_createtable(L, PREDICT_NGENS, 0);      /* the GPU generations a catalog row may name */
    for (int i = 0; i < PREDICT_NGENS; i++) {
        lua_pushstring(L, predict_gen_names[i]);
        lua_rawseti(L, -2, i + 1);
    }
    lua_setfield(L, -2, "generations");
    return 1;
}
