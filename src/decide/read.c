/* read.c: the team decision's inputs, read once from the results document into struct dc_ctx:
 * the team (scenario.team, parsed again: a results file is read as a stranger's; without one, every
 * term at its default and the scenario's life, electricity and use), the compared systems and their
 * cost rows, the rental offers, and from the model experiment's records every way each job runs on
 * each system, scaled to the job's own tokens, and its shared use of one Spark. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "decide/decide_int.h"
#include "util/json.h"

static const cJSON *get(const cJSON *o, const char *k) { return cJSON_GetObjectItemCaseSensitive(o, k); }

static int is(const cJSON *o, const char *k, const char *v) { return strcmp(json_str(o, k, ""), v) == 0; }

/* Whether a catalog row has a role (data/systems.csv's roles, as the results carry the row). */
static int has_role(const cJSON *row, const char *role)
{
    const cJSON *r;
    cJSON_ArrayForEach(r, get(row, "roles"))
        if (cJSON_IsString(r) && strcmp(r->valuestring, role) == 0)
            return 1;
    return 0;
}

/* The model experiment a decision answers from: the one calibrated on a GPU when the run has it,
 * else the first that finished (the decision section's rule). */
static const cJSON *model_experiment(const cJSON *doc)
{
    const cJSON *e, *first = NULL;
    cJSON_ArrayForEach(e, get(doc, "experiments")) {
        if (!is(e, "name", "model") || !(is(e, "status", "complete") || is(e, "status", "partial")))
            continue;
        const cJSON *cal = get(get(e, "info"), "calibration");
        if (!cal)
            continue;
        if (is(cal, "device", "gpu"))
            return e;
        first = first ? first : e;
    }
    return first;
}

static int find_sys(const struct dc_ctx *c, const char *id)
{
    for (int s = 0; s < c->nsys; s++)
        if (strcmp(c->sys[s].id, id) == 0)
            return s;
    return -1;
}

static int add_class(struct dc_ctx *c, const char *workload, double per_month, int job)
{
    for (int i = 0; i < c->nclasses; i++)
        if (strcmp(c->cls[i].workload, workload) == 0)
            return i;
    if (c->nclasses == DC_MAX_CLASSES)
        return -1;
    struct dc_class *k = &c->cls[c->nclasses];
    memset(k, 0, sizeof *k);
    snprintf(k->workload, sizeof k->workload, "%s", workload);
    snprintf(k->name, sizeof k->name, "%s", workload);
    k->per_month = per_month;
    k->job = job;
    return c->nclasses++;
}

static int read_systems(const cJSON *doc, struct dc_ctx *c, char *err, size_t errlen)
{
    const cJSON *ids = get(get(doc, "scenario"), "systems"), *id, *row;
    if (!cJSON_IsArray(ids))
        ids = get(get(doc, "scenario"), "compare");
    if (!cJSON_IsArray(ids))
        ids = get(get(doc, "catalog"), "systems");
    c->spark = -1;
    cJSON_ArrayForEach(id, ids) {
        if (!cJSON_IsString(id) || c->nsys == DC_MAX_SYS || find_sys(c, id->valuestring) >= 0)
            continue;
        struct dc_sys *s = &c->sys[c->nsys];
        memset(s, 0, sizeof *s);
        snprintf(s->id, sizeof s->id, "%s", id->valuestring);
        snprintf(s->name, sizeof s->name, "%s", id->valuestring);
        s->server_gpus = 1;
        cJSON_ArrayForEach(row, get(get(doc, "catalog"), "rows"))
            if (is(row, "id", s->id)) {
                snprintf(s->name, sizeof s->name, "%s", json_str(row, "name", s->id));
                if (has_role(row, "subject"))       /* the system the report is about: the Spark */
                    c->spark = c->nsys;
            }
        cJSON_ArrayForEach(row, get(get(doc, "catalog"), "rows"))
            if (is(row, "id", s->id)) {
                s->bf16_tflops = json_num(row, "bf16_tflops", 0);
                s->mem_bw_gbs = json_num(row, "mem_bw_gbs", 0);
            }
        cJSON_ArrayForEach(row, get(get(get(doc, "catalog"), "costs"), "rows")) {
            if (!is(row, "id", s->id))
                continue;
            s->cost_row = row;
            s->price_usd = json_num(row, "purchase_usd", 0);
            s->server_gpus = (int)json_num(row, "server_gpus", 1);
            s->power_w = json_num(row, "system_power_w", 0);
            s->idle_w = json_num(row, "idle_power_w", 0);
        }
        if (!(s->price_usd >= 0 && s->power_w >= 0 && s->idle_w >= 0 && s->idle_w <= s->power_w + (s->power_w == 0)
              * 1e9 && s->server_gpus >= 1 && s->server_gpus <= 64 && s->bf16_tflops >= 0 && s->mem_bw_gbs >= 0)) {
            snprintf(err, errlen, "catalog.costs: the row of %s has a price, power, idle power or server size out of "
                     "range", s->id);
            return -1;
        }
        c->nsys++;
    }
    return 0;
}

static int read_offers(const cJSON *doc, struct dc_ctx *c, char *err, size_t errlen)
{
    if (c->t.noffers > 0) {
        c->noffers = c->t.noffers;
        memcpy(c->offers, c->t.offers, sizeof c->offers[0] * (size_t)c->noffers);
    } else {
        const cJSON *row;
        cJSON_ArrayForEach(row, get(get(get(doc, "catalog"), "offers"), "rows")) {
            char path[64];
            snprintf(path, sizeof path, "catalog.offers.rows[%d]", c->noffers + 1);
            if (c->noffers == TEAM_MAX_OFFERS)
                break;
            cJSON *copy = cJSON_Duplicate(row, 1);
            cJSON_DeleteItemFromObjectCaseSensitive(copy, "notes");
            int rc = team_offer_parse(copy, path, &c->offers[c->noffers], err, errlen);
            cJSON_Delete(copy);
            if (rc != 0)
                return -1;
            c->noffers++;
        }
    }
    for (int o = 0; o < c->noffers; o++)
        c->offer_sys[o] = find_sys(c, c->offers[o].system);
    return 0;
}

/* One record's configuration: devices (field `dev`) and hours with their band, times `scale` (the
 * job's tokens over the workload's); 0 when it does not run (no hours, not fitting, out of range). */
static int run_of(const cJSON *r, const char *dev, double scale, struct dc_run *out)
{
    double d = json_num(r, dev, 1), h = json_num(r, "hours", NAN);
    const cJSON *fits = get(r, "fits");
    if (cJSON_IsFalse(fits) || !(h > 0 && h < 1e9) || !(d >= 1 && d <= 64) || d != floor(d))
        return 0;
    const cJSON *alt = get(r, "compiled");
    double ch = json_num(alt, "hours", 0);
    *out = (struct dc_run){ (int)d, h, json_num(r, "hours_low", h), json_num(r, "hours_high", h), r,
                            json_num(alt, "gpus", 1) == json_num(r, "gpus", 1) && ch > 0 && ch < 1e9 ? ch * scale : 0 };
    if (!(out->lo > 0 && out->lo <= h))
        out->lo = h;
    if (!(out->hi >= h && out->hi < 1e9))
        out->hi = h;
    out->h *= scale, out->lo *= scale, out->hi *= scale;
    return 1;
}

static void add_run(struct dc_sysjob *j, const struct dc_run *r)
{
    for (int k = 0; k < j->nrun; k++)
        if (j->run[k].devices == r->devices)
            return;             /* the first record of a count stands: the projection's own */
    if (j->nrun < DC_MAX_RUNS)
        j->run[j->nrun++] = *r;
}

static void read_tenant(struct dc_class *k, const cJSON *r, double scale)
{
    double n = json_num(r, "tenants", 0), h = json_num(r, "hours", NAN);
    if (k->ntenants == DC_MAX_TENANTS || !(n >= 1 && n <= 64) || n != floor(n))
        return;
    k->tenants[k->ntenants++] = (struct dc_tenant){ (int)n, cJSON_IsTrue(get(r, "fits")) && h > 0 && h < 1e9,
                                                    h > 0 ? h * scale : NAN };
}

/* Each class's tokens: the team's job size where it gives one, else the workload's as projected. */
static int read_tokens(const cJSON *model, struct dc_ctx *c, char *err, size_t errlen)
{
    const cJSON *w;
    for (int i = 0; i < c->nclasses; i++) {
        struct dc_class *k = &c->cls[i];
        cJSON_ArrayForEach(w, get(get(model, "info"), "workloads"))
            if (is(w, "id", k->workload)) {
                snprintf(k->name, sizeof k->name, "%s", json_str(w, "name", k->workload));
                k->workload_tokens = json_num(w, "tokens", 0);
                k->tokens_basis = json_str(w, "tokens_basis", is(w, "kind", "pretrain") ? "published" : "assumed");
            }
        const struct team_job *tj = k->job >= 0 ? &c->t.jobs[k->job] : NULL;
        k->tokens = tj && tj->size != TEAM_SIZE_WORKLOAD ? tj->tokens : k->workload_tokens;
        if (tj && tj->size != TEAM_SIZE_WORKLOAD)
            k->tokens_basis = "given";
        if (!(k->workload_tokens > 0) && i < c->nteam) {
            snprintf(err, errlen, "the model experiment does not say how many tokens the workload '%s' was projected "
                     "for (info.workloads)", k->workload);
            return -1;
        }
    }
    return 0;
}

static double scale_of(const struct dc_class *k)
{
    return k->workload_tokens > 0 && k->tokens > 0 ? k->tokens / k->workload_tokens : 1;
}

/* This machine's own projection stands for its catalog system's when it is that system and its GPU
 * calibrated the model (a CPU calibration says nothing of the system's GPU). */
static int sys_of(const struct dc_ctx *c, const cJSON *r, int pass)
{
    if (pass == 0 && is(r, "system", "this"))
        return c->this_sys;
    return find_sys(c, json_str(r, "system", ""));
}

static void read_records(const cJSON *doc, const cJSON *model, struct dc_ctx *c)
{
    static const char *const order[] = { "projection", "projection_devices", "scaleout", "tenants" };
    const cJSON *r, *cal = get(get(model, "info"), "calibration");
    c->this_sys = is(cal, "device", "gpu") ? find_sys(c, json_str(get(doc, "catalog"), "match", "")) : -1;
    for (int pass = 0; pass < 4; pass++)
        cJSON_ArrayForEach(r, get(model, "results")) {
            if (!is(r, "series", order[pass]))
                continue;
            int s = sys_of(c, r, pass), i;
            for (i = 0; i < c->nclasses && !is(r, "workload", c->cls[i].workload); i++)
                ;
            if (s < 0 || i == c->nclasses)
                continue;
            struct dc_sysjob *j = &c->cls[i].on[s];
            struct dc_run run;
            double scale = scale_of(&c->cls[i]);
            int own = pass == 0 && is(r, "system", "this");
            if (own && run_of(r, "gpus", scale, &run)) {         /* it replaces the catalog's projection */
                j->proj = r, j->base = run, j->own = 1, j->nrun = 0;
                add_run(j, &run);
                continue;
            }
            if (own || (j->own && pass == 0))
                continue;
            if (pass == 0 && !j->proj)
                j->proj = r;
            if (pass == 3) {
                c->tenants_known = 1;
                if (s == c->spark)
                    read_tenant(&c->cls[i], r, scale);
            } else if (run_of(r, pass == 0 ? "gpus" : "devices", scale, &run)) {
                if (pass == 0)
                    j->base = run;
                if (pass == 1 && !j->more.devices)
                    j->more = run;
                add_run(j, &run);
            }
        }
}

/* Without a team: the terms at their defaults, the scenario's life and electricity price, and the
 * share of a bought system's hours it runs jobs (scenario.utilisation), which a team derives. */
static int read_no_team(const cJSON *scn, struct dc_ctx *c, char *err, size_t errlen)
{
    team_defaults(&c->t);
    c->t.life_years = json_num(scn, "life_years", c->t.life_years);
    c->t.kwh_usd = json_num(scn, "kwh_usd", c->t.kwh_usd);
    c->t.deadline_h = INFINITY;         /* nothing to wait for: a job is priced, not queued */
    c->utilisation = json_num(scn, "utilisation", NAN);
    if (!(c->utilisation > 0 && c->utilisation <= 1) || !(c->t.life_years > 0) || !(c->t.kwh_usd >= 0)) {
        snprintf(err, errlen, "scenario: without a team the per-job costs need the scenario's utilisation (0 to 1), "
                 "life_years and kwh_usd");
        return -1;
    }
    return 0;
}

int dc_read(const cJSON *doc, struct dc_ctx *c, char *err, size_t errlen)
{
    memset(c, 0, sizeof *c);
    const cJSON *scn = get(doc, "scenario"), *team = get(scn, "team");
    c->has_team = team != NULL;
    if (c->has_team ? team_parse(team, get(scn, "jobs"), &c->t, err, errlen) : read_no_team(scn, c, err, errlen))
        return -1;
    if (read_systems(doc, c, err, errlen) != 0 || read_offers(doc, c, err, errlen) != 0)
        return -1;
    for (int i = 0; i < c->t.njobs; i++)
        add_class(c, c->t.jobs[i].workload, c->t.jobs[i].per_month, i);
    c->nteam = c->nclasses;
    const cJSON *d;
    cJSON_ArrayForEach(d, get(scn, "decide"))
        if (cJSON_IsString(d))
            add_class(c, d->valuestring, 0, -1);
    const cJSON *model = model_experiment(doc);
    if (!model) {
        snprintf(err, errlen, "no model experiment finished with a calibration, so no job was projected");
        return -1;
    }
    if (read_tokens(model, c, err, errlen) != 0)
        return -1;
    read_records(doc, model, c);
    for (int i = 0; i < c->nteam; i++) {
        int any = 0;
        for (int s = 0; s < c->nsys; s++)
            any |= c->cls[i].on[s].nrun > 0;
        if (!any) {
            snprintf(err, errlen, "the team's job '%s' was not projected on any compared system", c->cls[i].workload);
            return -1;
        }
    }
    return 0;
}
