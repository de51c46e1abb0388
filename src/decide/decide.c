/* decide.c: the team decision stage: the inputs read (read.c), every option costed and queued
 * (options.c), the answer, what decides it (the binding constraint and the answer without it), why
 * the Sparks are as many as they are, what flips it (flips.c), the rent per GPU type that ties
 * Sparks at 25/50/100 % use, how many people share one Spark for each job, every job on every
 * system with its verdict (rows.c), and the records and info that say all of it. Without a team,
 * the per-job rows and verdicts alone, at the scenario's use. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decide/decide.h"
#include "decide/decide_int.h"
#include "util/json.h"

static const cJSON *get(const cJSON *o, const char *k) { return cJSON_GetObjectItemCaseSensitive(o, k); }

static void bill_json(const struct dc_ctx *c, cJSON *r, const struct dc_bill *b)
{
    const struct team_offer *o = &c->offers[b->offer];
    cJSON_AddStringToObject(r, "offer", o->id);
    cJSON_AddStringToObject(r, "system", o->system);
    cJSON_AddStringToObject(r, "provider", o->provider);
    cJSON_AddNumberToObject(r, "gpus", b->devices);
    cJSON_AddNumberToObject(r, "instance_gpus", b->instance_gpus);
    dc_num(r, "run_h", b->run_h);
    dc_num(r, "setup_h", c->t.setup_h);
    dc_num(r, "billed_h", b->billed_h);
    dc_num(r, "usd_per_gpu_hour", o->usd_per_gpu_hour);
    dc_num(r, "billing_step_s", o->billing_step_h * 3600);
    dc_num(r, "usd", b->usd);
    dc_num(r, "result_h", b->result_h);
    cJSON_AddBoolToObject(r, "meets_deadline", b->meets);
}

/* Every team job on every offer: the bill a provider would send (series offer_job). */
static void offer_jobs(const struct dc_ctx *c, const struct dc_knobs *k, cJSON *results)
{
    for (int i = 0; i < c->nteam; i++)
        for (int o = 0; o < c->noffers; o++) {
            struct dc_bill b = dc_bill_offer(c, i, o, 0, k);
            if (!b.ok)
                continue;
            cJSON *r = dc_record(results, "offer_job");
            cJSON_AddStringToObject(r, "workload", c->cls[i].workload);
            bill_json(c, r, &b);
        }
}

static const char *const WHERE[] = { "rented", "spark", "server", "left out" };
static const char *const KIND[] = { "spark", "rent", "server" };

/* The option's own fields: what it is, its price per unit, every cost term, its use and queue. */
static void option_fields(const struct dc_ctx *c, const struct dc_option *o, cJSON *r)
{
    char id[64];
    dc_option_id(c, o, id, sizeof id);
    cJSON_AddStringToObject(r, "option", id);
    cJSON_AddStringToObject(r, "kind", KIND[o->kind]);
    if (o->sys >= 0) {
        const struct dc_sys *s = &c->sys[o->sys];
        cJSON_AddStringToObject(r, "system", s->id);
        dc_num(r, "unit_price_usd", s->price_usd * (o->kind == DC_OPT_SERVER ? s->server_gpus : 1));
    }
    cJSON_AddNumberToObject(r, "count", o->count);
    cJSON_AddNumberToObject(r, "units", o->units);
    if (o->kind == DC_OPT_SERVER)
        cJSON_AddNumberToObject(r, "server_gpus", c->sys[o->sys].server_gpus);
    dc_num(r, "outlay_usd", o->outlay_usd);
    for (int t = 0; t < DC_NTERMS; t++)
        dc_num(r, dc_terms[t].field, o->term[t]);
    dc_num(r, "usd_per_year", o->usd_per_year);
    dc_num(r, "jobs_per_year", o->jobs_per_year);
    dc_num(r, "usd_per_job", o->usd_per_job);
    dc_num(r, "busy_unit_hours_per_year", o->busy_unit_h);
    dc_num(r, "busy_hour_usd", o->kind == DC_OPT_RENT ? NAN : dc_busy_hour_usd(o));
    dc_num(r, "utilisation", o->utilisation);
    cJSON_AddBoolToObject(r, "keeps_up", o->keeps_up);
    cJSON_AddBoolToObject(r, "meets_deadline", o->meets);
    dc_num(r, "load", o->q.load);
    if (o->keeps_up) {
        dc_num(r, "busy_simulated", o->q.busy);
        dc_num(r, "wait_mean_h", o->q.all.wait_mean_h);
        dc_num(r, "result_p50_h", o->q.all.result_p50_h);
        dc_num(r, "result_p95_h", o->q.all.result_p95_h);
        dc_num(r, "jobs_simulated", o->q.all.n);
    }
}

static void option_json(const struct dc_ctx *c, const struct dc_option *o, int answer, cJSON *results)
{
    char id[64];
    dc_option_id(c, o, id, sizeof id);
    cJSON *r = dc_record(results, "option");
    option_fields(c, o, r);
    cJSON_AddBoolToObject(r, "answer", answer);
    for (int i = 0; i < c->nteam; i++) {
        const struct dc_classfig *f = &o->cf[i];
        cJSON *j = dc_record(results, "option_job");
        cJSON_AddStringToObject(j, "option", id);
        cJSON_AddStringToObject(j, "workload", c->cls[i].workload);
        cJSON_AddStringToObject(j, "on", WHERE[f->where]);
        cJSON_AddNumberToObject(j, "units", f->units);
        dc_num(j, "run_h", f->run_h);
        if (f->run) {
            cJSON_AddBoolToObject(j, "marginal", cJSON_IsTrue(get(f->run->rec, "marginal")));
            dc_stack_json(j, f->run->rec, "");
        }
        if (f->where == DC_SPARK_ON)
            dc_num(j, "run_fast_h", f->fast_h);
        if (f->where == DC_RENT)
            bill_json(c, j, &f->bill);
        if (o->keeps_up && f->where != DC_DROPPED) {
            dc_num(j, "wait_mean_h", f->q.wait_mean_h);
            dc_num(j, "wait_se_h", f->q.wait_se_h);
            dc_num(j, "result_p50_h", f->q.result_p50_h);
            dc_num(j, "result_p95_h", f->q.result_p95_h);
        }
    }
}

/* The rent per GPU-hour of each GPU type at which renting it for the jobs a Spark can run costs
 * what Sparks busy 25, 50 and 100 % of the time cost (series tying_rent). Each job is billed on
 * the offer of that type it would take (its cheapest, however long); the rate shown is that
 * offer's, scaled. */
static void tying_rents(const struct dc_ctx *c, const struct dc_knobs *k, cJSON *results)
{
    static const double U[] = { 0.25, 0.5, 1.0 };
    if (c->spark < 0 || !(c->sys[c->spark].price_usd > 0))
        return;
    struct dc_knobs any = *k;
    any.deadline_h = INFINITY;          /* a cost tie: the cheapest bill, however long */
    for (int s = 0; s < c->nsys; s++) {
        double spark_h = 0, rent = 0, by_offer[TEAM_MAX_OFFERS] = { 0 };
        if (s == c->spark)
            continue;
        for (int i = 0; i < c->nteam; i++) {
            const struct dc_sysjob *j = &c->cls[i].on[c->spark];
            const struct dc_run *r = j->base.devices == 1 ? &j->base : j->more.devices == 2 ? &j->more : NULL;
            struct dc_bill b = dc_bill_best(c, i, s, 0, &any);
            if (!r || !b.ok)
                continue;
            spark_h += c->cls[i].per_month * 12 * r->devices * dc_run_hours(k, i, r);
            rent += c->cls[i].per_month * 12 * b.usd;
            by_offer[b.offer] += c->cls[i].per_month * 12 * b.usd;
        }
        if (!(rent > 0))
            continue;
        int main = 0;
        for (int o = 1; o < c->noffers; o++)
            main = by_offer[o] > by_offer[main] ? o : main;
        for (int u = 0; u < 3; u++) {
            struct dc_option unit;
            if (dc_unit_option(c, c->spark, U[u], &unit) != 0)
                continue;
            double hour = dc_busy_hour_usd(&unit), base = c->offers[main].usd_per_gpu_hour;
            cJSON *r = dc_record(results, "tying_rent");
            cJSON_AddStringToObject(r, "system", c->sys[s].id);
            cJSON_AddStringToObject(r, "offer", c->offers[main].id);
            cJSON_AddStringToObject(r, "provider", c->offers[main].provider);
            dc_num(r, "utilisation", U[u]);
            dc_num(r, "spark_hours_per_year", spark_h);
            dc_num(r, "spark_usd_per_hour", hour);
            dc_num(r, "rent_usd_per_year", rent);
            dc_num(r, "base_usd_per_gpu_hour", base);
            dc_num(r, "usd_per_gpu_hour", base * spark_h * hour / rent);
        }
    }
}

/* How many people can share one Spark for job i: the largest tenant count whose job fits in its
 * share and whose results, each person sending job i at the team's rate per person and each
 * tenant's job taking the projected hours with that many at once, stay within the deadline at the
 * 95th percentile (series people_per_spark). */
static void people_per_spark(const struct dc_ctx *c, const struct dc_knobs *k, int i, cJSON *results)
{
    const struct dc_class *cl = &c->cls[i];
    cJSON *r = dc_record(results, "people_per_spark");
    cJSON_AddStringToObject(r, "workload", cl->workload);
    dc_num(r, "deadline_h", k->deadline_h);
    cJSON_AddBoolToObject(r, "projected", cl->ntenants > 0);
    if (cl->ntenants == 0) {
        cJSON_AddStringToObject(r, "reason", c->tenants_known ? "no shared-use projection of this job"
                                                              : "this run projected no shared use of a Spark");
        return;
    }
    int best = 0;
    double p95 = NAN, alone = NAN;
    const char *why = "one job alone takes longer than the deadline";
    for (int n = 0; n < cl->ntenants; n++) {
        const struct dc_tenant *tn = &cl->tenants[n];
        double h = dc_hours(k, i, tn->h);
        if (tn->n == 1) {
            alone = h;
            if (!tn->fits)
                why = "it does not fit in one Spark's memory";
        }
        if (!tn->fits)
            continue;
        struct queue_class q = { cl->per_month * k->volume / c->t.people * tn->n / DC_HOURS_PER_MONTH, h, 1 };
        struct queue_result res;
        double months = dc_sim_months(c, q.per_hour * DC_HOURS_PER_MONTH);
        if (queue_simulate(&q, 1, tn->n, months * DC_HOURS_PER_MONTH, 0.1 * months * DC_HOURS_PER_MONTH, c->t.seed,
                           &res) != 0 || !res.keeps_up || !(res.all.result_p95_h <= k->deadline_h)) {
            if (h <= k->deadline_h)
                why = "the queue of their jobs passes the deadline";
            continue;
        }
        if (tn->n > best)
            best = tn->n, p95 = res.all.result_p95_h;
    }
    cJSON_AddNumberToObject(r, "people", best);
    dc_num(r, "hours_alone", alone);
    dc_num(r, "result_p95_h", p95);
    if (best == 0)
        cJSON_AddStringToObject(r, "reason", why);
}

/* Why the Sparks are as many as they are (series spark_count): the rule that chose them, the 95th
 * percentile time to result one fewer and one more give, the fewest that keep up, and the longest
 * job one Spark runs alone (past the deadline, no number of Sparks meets it). */
static void spark_count(const struct dc_ctx *c, const struct dc_knobs *k, const struct dc_option *sp, cJSON *results)
{
    struct dc_option o;
    cJSON *r = dc_record(results, "spark_count");
    cJSON_AddNumberToObject(r, "count", sp->count);
    const char *rule = sp->meets ? "meets" : !sp->keeps_up ? "max" : "gain";
    cJSON_AddStringToObject(r, "rule", rule);
    dc_num(r, "gain_limit", DC_MARGINAL);
    dc_num(r, "deadline_h", k->deadline_h);
    if (sp->keeps_up)
        dc_num(r, "result_p95_h", sp->q.all.result_p95_h);
    if (sp->count > 1 && dc_spark_option(c, sp->count - 1, k, &o) == 0 && o.keeps_up) {
        cJSON_AddNumberToObject(r, "fewer_count", o.count);
        dc_num(r, "fewer_result_p95_h", o.q.all.result_p95_h);
    }
    if (sp->count < c->t.max_sparks && dc_spark_option(c, sp->count + 1, k, &o) == 0 && o.keeps_up) {
        cJSON_AddNumberToObject(r, "more_count", o.count);
        dc_num(r, "more_result_p95_h", o.q.all.result_p95_h);
    }
    for (int n = 1; n <= c->t.max_sparks; n++)
        if (dc_spark_option(c, n, k, &o) == 0 && o.keeps_up) {
            cJSON_AddNumberToObject(r, "fewest_keeping_up", n);
            break;
        }
    int longest = -1;
    for (int i = 0; i < c->nteam; i++)
        if (sp->cf[i].where == DC_SPARK_ON && (longest < 0 || sp->cf[i].run_h > sp->cf[longest].run_h))
            longest = i;
    if (longest >= 0) {
        cJSON_AddStringToObject(r, "longest_workload", c->cls[longest].workload);
        dc_num(r, "longest_run_h", sp->cf[longest].run_h);
        cJSON_AddNumberToObject(r, "longest_units", sp->cf[longest].units);
    }
}

/* The option of id `id` among opts, or -1. */
static int find_option(const struct dc_ctx *c, const struct dc_option *opts, int n, const char *id)
{
    for (int i = 0; i < n; i++) {
        char x[64];
        dc_option_id(c, &opts[i], x, sizeof x);
        if (strcmp(x, id) == 0)
            return i;
    }
    return -1;
}

static void without_json(const struct dc_ctx *c, const struct dc_option *o, cJSON *r)
{
    char id[64];
    dc_option_id(c, o, id, sizeof id);
    cJSON_AddStringToObject(r, "without", id);
    cJSON_AddNumberToObject(r, "without_count", o->count);
    dc_num(r, "without_usd_per_year", o->usd_per_year);
    cJSON_AddBoolToObject(r, "without_keeps_up", o->keeps_up);
    if (o->keeps_up)
        dc_num(r, "without_result_p95_h", o->q.all.result_p95_h);
}

/* The job of option o whose 95th percentile time to result passes the deadline the most. */
static void tightest_job(const struct dc_ctx *c, const struct dc_option *o, double deadline, cJSON *r)
{
    int w = -1;
    for (int i = 0; i < c->nteam; i++)
        if (o->cf[i].where != DC_DROPPED && (w < 0 || o->cf[i].q.result_p95_h > o->cf[w].q.result_p95_h))
            w = i;
    if (w < 0)
        return;
    cJSON_AddStringToObject(r, "workload", c->cls[w].workload);
    cJSON_AddNumberToObject(r, "option_count", o->count);
    cJSON_AddStringToObject(r, "on", WHERE[o->cf[w].where]);
    cJSON_AddNumberToObject(r, "units", o->cf[w].units);
    dc_num(r, "job_run_h", o->cf[w].run_h);
    if (o->cf[w].run) {
        dc_num(r, "job_run_low_h", o->cf[w].run_h * o->cf[w].run->lo / o->cf[w].run->h);
        dc_num(r, "job_run_high_h", o->cf[w].run_h * o->cf[w].run->hi / o->cf[w].run->h);
    }
    if (o->keeps_up) {
        dc_num(r, "job_result_p95_h", o->cf[w].q.result_p95_h);
        dc_num(r, "margin_h", o->cf[w].q.result_p95_h - deadline);
    }
}

/* What decides the answer (series binding): the deadline, when without it another option would be
 * the answer; else memory, when without the jobs no single Spark holds another would; else cost:
 * the answer is the cheapest that meets the deadline, by a margin over the next. Each with the
 * answer without it. */
static void binding(const struct dc_ctx *c, const struct dc_knobs *k, const struct dc_option *opts, int n, int a,
                    cJSON *results)
{
    char ans[64], id[64];
    static struct dc_option o;
    dc_option_id(c, &opts[a], ans, sizeof ans);
    cJSON *r = dc_record(results, "binding");
    dc_num(r, "answer_usd_per_year", opts[a].usd_per_year);
    dc_num(r, "deadline_h", k->deadline_h);
    struct dc_knobs free_k = *k;
    free_k.deadline_h = INFINITY;
    dc_answer_at(c, &free_k, id, sizeof id, &o);
    if (strcmp(id, ans) != 0 || !opts[a].meets) {
        cJSON_AddStringToObject(r, "constraint", "deadline");
        int here = find_option(c, opts, n, id);     /* that option under the real deadline: how far it misses */
        if (here >= 0)
            tightest_job(c, &opts[here], k->deadline_h, r);
        without_json(c, &o, r);
        return;
    }
    int unheld = -1;
    for (int i = 0; i < c->nteam && c->spark >= 0; i++)
        if (c->cls[i].on[c->spark].base.devices != 1 && unheld < 0)
            unheld = i;
    if (unheld >= 0) {
        struct dc_knobs held = *k;
        held.drop_unheld = 1;
        dc_answer_at(c, &held, id, sizeof id, &o);
        if (strcmp(id, ans) != 0) {
            const cJSON *p = c->cls[unheld].on[c->spark].proj;
            cJSON_AddStringToObject(r, "constraint", "memory");
            cJSON_AddStringToObject(r, "workload", c->cls[unheld].workload);
            dc_num(r, "needs_bytes", json_num(p, "memory_bytes", NAN));
            dc_num(r, "usable_bytes", json_num(p, "capacity_bytes", NAN) - json_num(p, "reserve_bytes", NAN));
            without_json(c, &o, r);
            return;
        }
    }
    int next = -1;
    for (int i = 0; i < n; i++)
        if (i != a && opts[i].keeps_up && (next < 0 || (opts[i].meets > opts[next].meets)
            || (opts[i].meets == opts[next].meets && opts[i].usd_per_year < opts[next].usd_per_year)))
            next = i;
    cJSON_AddStringToObject(r, "constraint", "cost");
    if (next >= 0) {
        without_json(c, &opts[next], r);
        dc_num(r, "margin_usd_per_year", opts[next].usd_per_year - opts[a].usd_per_year);
        cJSON_AddBoolToObject(r, "without_meets_deadline", opts[next].meets);
    }
}

/* The cheap step before signing: an hour of the smallest instance of the GPU type the answer rents
 * the team's first job on (series next_step). */
static void next_step(const struct dc_ctx *c, const struct dc_option *opts, int n, cJSON *results)
{
    int s = -1, best = -1;
    for (int i = 0; i < n && s < 0; i++)
        if (opts[i].kind == DC_OPT_RENT && opts[i].cf[0].bill.ok)
            s = c->offer_sys[opts[i].cf[0].bill.offer];
    for (int o = 0; o < c->noffers && s >= 0; o++)
        if (c->offer_sys[o] == s && (best < 0 || c->offers[o].sizes[0] * c->offers[o].usd_per_gpu_hour
                                                 < c->offers[best].sizes[0] * c->offers[best].usd_per_gpu_hour))
            best = o;
    if (best < 0)
        return;
    const struct team_offer *of = &c->offers[best];
    cJSON *r = dc_record(results, "next_step");
    cJSON_AddStringToObject(r, "system", of->system);
    cJSON_AddStringToObject(r, "offer", of->id);
    cJSON_AddStringToObject(r, "provider", of->provider);
    cJSON_AddNumberToObject(r, "gpus", of->sizes[0]);
    dc_num(r, "usd_per_hour", of->sizes[0] * of->usd_per_gpu_hour);
    cJSON_AddStringToObject(r, "date", of->date);
}

static const char *const TERMS[] = { "life_years", "kwh_usd", "pue", "facility_usd_per_kw_month", "support_share",
                                     "setup_h" };

static void terms_json(const struct team *t, cJSON *info)
{
    const double v[] = { t->life_years, t->kwh_usd, t->pue, t->facility_usd_per_kw_month, t->support_share,
                         t->setup_h };
    cJSON *a = cJSON_AddArrayToObject(info, "terms");
    for (size_t i = 0; i < sizeof TERMS / sizeof TERMS[0]; i++) {
        double d = NAN;
        const char *src = team_default_source(TERMS[i], &d);
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "field", TERMS[i]);
        dc_num(e, "value", v[i]);
        dc_num(e, "default", d);
        cJSON_AddStringToObject(e, "source", src && v[i] == d ? src : "the scenario's own figure");
        cJSON_AddItemToArray(a, e);
    }
    cJSON *ct = cJSON_AddArrayToObject(info, "cost_terms");
    for (int i = 0; i < DC_NTERMS; i++) {
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "field", dc_terms[i].field);
        cJSON_AddStringToObject(e, "words", dc_terms[i].words);
        cJSON_AddItemToArray(ct, e);
    }
}

/* The team as the stage read it, every job with its tokens (the team's, or its workload's). */
static void team_info(const struct dc_ctx *c, cJSON *info)
{
    cJSON *jobs = cJSON_AddArrayToObject(info, "jobs");
    double total = 0;
    if (c->has_team)
        cJSON_AddItemToObject(info, "team", team_json(&c->t));
    for (int i = 0; i < c->nclasses; i++) {
        const struct dc_class *k = &c->cls[i];
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "workload", k->workload);
        cJSON_AddStringToObject(e, "name", k->name);
        cJSON_AddBoolToObject(e, "team", i < c->nteam);
        dc_num(e, "per_month", k->per_month);
        dc_num(e, "tokens", k->tokens > 0 ? k->tokens : NAN);
        dc_num(e, "workload_tokens", k->workload_tokens > 0 ? k->workload_tokens : NAN);
        cJSON_AddStringToObject(e, "tokens_basis", k->tokens_basis ? k->tokens_basis : "published");
        if (k->job >= 0) {
            const struct team_job *tj = &c->t.jobs[k->job];
            cJSON_AddStringToObject(e, "size", team_size_name(tj));
            dc_num(e, "samples", tj->size == TEAM_SIZE_SAMPLES ? tj->samples : NAN);
            dc_num(e, "tokens_per_sample", tj->size == TEAM_SIZE_SAMPLES ? tj->tokens_per_sample : NAN);
            dc_num(e, "epochs", tj->size == TEAM_SIZE_EPOCHS ? tj->epochs : NAN);
            dc_num(e, "dataset_tokens", tj->size == TEAM_SIZE_EPOCHS ? tj->dataset_tokens : NAN);
        }
        total += k->per_month;
        cJSON_AddItemToArray(jobs, e);
    }
    dc_num(info, "jobs_per_month", total);
}

/* Each compared system's prices as the decision used them: per device and per server, dated, its
 * power and its idle power (cited, or none). */
static void prices_info(const struct dc_ctx *c, cJSON *info)
{
    static const char *const TEXT[] = { "purchase_date", "purchase_source", "purchase_covers", "launch_date",
                                        "idle_power_source", "idle_power_covers", "system_power_covers",
                                        "system_power_source" };
    cJSON *a = cJSON_AddArrayToObject(info, "prices");
    for (int s = 0; s < c->nsys; s++) {
        const struct dc_sys *sy = &c->sys[s];
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "system", sy->id);
        dc_num(e, "purchase_usd", sy->price_usd > 0 ? sy->price_usd : NAN);
        cJSON_AddNumberToObject(e, "server_gpus", sy->server_gpus);
        dc_num(e, "server_usd", sy->price_usd > 0 && sy->server_gpus > 1 ? sy->price_usd * sy->server_gpus : NAN);
        dc_num(e, "launch_usd", json_num(sy->cost_row, "launch_usd", NAN));
        dc_num(e, "system_power_w", sy->power_w > 0 ? sy->power_w : NAN);
        dc_num(e, "idle_power_w", sy->idle_w > 0 ? sy->idle_w : NAN);
        for (size_t t = 0; t < sizeof TEXT / sizeof TEXT[0]; t++) {
            const char *v = json_str(sy->cost_row, TEXT[t], NULL);
            if (v)
                cJSON_AddStringToObject(e, TEXT[t], v);
        }
        cJSON_AddItemToArray(a, e);
    }
}

/* What the decision costs and what it leaves out, in one place: the page prints it as it is. */
static void scope_info(cJSON *info)
{
    static const char *const OUT[][2] = {
        { "uses other than training", "local inference, prototyping and data kept on premises, often why a Spark "
          "is bought, are not costed" },
        { "storage", "storage of data sets and checkpoints, bought or rented, is not costed" },
        { "egress", "data leaving a cloud is not costed (about $0.09 per GB out at AWS, as cited by Datacate, "
          "'Colocation vs cloud', 2026)" },
    };
    cJSON *s = cJSON_AddObjectToObject(info, "scope");
    cJSON_AddStringToObject(s, "costed", "training cost only");
    cJSON *ex = cJSON_AddArrayToObject(s, "excluded");
    for (size_t i = 0; i < sizeof OUT / sizeof OUT[0]; i++) {
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "what", OUT[i][0]);
        cJSON_AddStringToObject(e, "why", OUT[i][1]);
        cJSON_AddItemToArray(ex, e);
    }
}

static void info_json(const struct dc_ctx *c, const struct dc_option *opts, int n, int a, cJSON *info)
{
    char id[64];
    cJSON_AddStringToObject(info, "basis", c->has_team ? "team" : "use");
    if (!c->has_team)
        dc_num(info, "utilisation", c->utilisation);
    if (a >= 0) {
        cJSON *ans = cJSON_AddObjectToObject(info, "answer");
        dc_option_id(c, &opts[a], id, sizeof id);
        cJSON_AddStringToObject(ans, "option", id);
        cJSON_AddBoolToObject(ans, "meets_deadline", opts[a].meets);
        int alt = -1;           /* the Sparks when the answer is not them; else the cheapest other */
        for (int i = 0; i < n; i++)
            if (i != a && (opts[a].kind != DC_OPT_SPARK ? opts[i].kind == DC_OPT_SPARK
                           : alt < 0 || opts[i].usd_per_year < opts[alt].usd_per_year))
                alt = i;
        if (alt >= 0) {
            dc_option_id(c, &opts[alt], id, sizeof id);
            cJSON_AddStringToObject(ans, "alternative", id);
        }
    }
    team_info(c, info);
    terms_json(&c->t, info);
    prices_info(c, info);
    scope_info(info);
    cJSON_AddStringToObject(info, "offers_source", c->t.noffers ? "the scenario" : "data/offers.csv");
    cJSON *offers = cJSON_AddArrayToObject(info, "offers");     /* every offer a job could take, as read */
    for (int o = 0; o < c->noffers; o++)
        if (c->offer_sys[o] >= 0)
            cJSON_AddItemToArray(offers, team_offer_json(&c->offers[o]));
    cJSON *sim = cJSON_AddObjectToObject(info, "simulation");
    cJSON_AddNumberToObject(sim, "months", c->t.months);
    cJSON_AddNumberToObject(sim, "seed", (double)c->t.seed);
    cJSON_AddNumberToObject(sim, "max_jobs", DC_MAX_SIM_JOBS);
    cJSON_AddStringToObject(info, "method",
        "Each job's hours are the projection's for its workload, scaled by the job's tokens over the workload's "
        "(time scales linearly with tokens). Jobs arrive at random (a Poisson stream per job, the team's jobs per "
        "month, seeded) over the simulated months, the first tenth left out as warm-up, and start first come, first "
        "served on the option's machines (a job needing two Sparks or several GPUs waits until that many are free; "
        "none overtakes an earlier one). Rented jobs start when asked: they wait only for their instance's setup. "
        "Time to result is the wait plus the projected hours (central figure). Sparks: the fewest that meet the "
        "deadline at the 95th percentile, else the fewest beyond which one more shortens it by less than 10 %; a job "
        "one Spark cannot hold runs on a linked pair, else it is rented. A server: the fewest whole servers (8 GPUs) "
        "that meet the deadline; a job runs as the projection runs it. Renting: per job the cheapest offer and GPU "
        "count that meets the deadline, billed in the offer's steps with its setup, on the smallest instance it can "
        "rent. Owned machines cost their price over their life, the electricity of the hours they train and of the "
        "hours they stand idle (where an idle power is cited), and for a server its room, power at the room's "
        "overhead and support. A job's cost bought is what an hour of its machines costs at the use the team gives "
        "them, times its device-hours. The answer: the cheapest a year of the options that meet the deadline, else "
        "the fastest. What decides it: the deadline when without it another option would be the answer, memory when "
        "without the jobs no single Spark holds another would, else cost.");
}

/* The team's options, the answer and everything said about it. */
static int team_stage(const struct dc_ctx *c, const struct dc_knobs *k, struct dc_option *opts, int *n, int *a,
                      cJSON *results, char *err, size_t errlen)
{
    *n = dc_options(c, k, opts, DC_MAX_OPTIONS), *a = dc_answer(opts, *n);
    if (*a < 0) {
        snprintf(err, errlen, "no way to get the compute keeps up with the team's jobs (every option's queue grows "
                 "without end and no offer rents them)");
        return -1;
    }
    char ans[64];
    dc_option_id(c, &opts[*a], ans, sizeof ans);
    offer_jobs(c, k, results);
    for (int i = 0; i < *n; i++)
        option_json(c, &opts[i], i == *a, results);
    for (int i = 0; i < *n; i++)
        if (opts[i].kind == DC_OPT_SPARK)
            spark_count(c, k, &opts[i], results);
    binding(c, k, opts, *n, *a, results);
    tying_rents(c, k, results);
    dc_flips(c, k, ans, results);
    for (int i = 0; i < c->nteam; i++)
        people_per_spark(c, k, i, results);
    next_step(c, opts, *n, results);
    return 0;
}

int decide_stage(const cJSON *doc, cJSON *out, char *err, size_t errlen)
{
    static struct dc_option opts[DC_MAX_OPTIONS];
    const cJSON *scn = cJSON_GetObjectItemCaseSensitive(doc, "scenario");
    if (!cJSON_GetObjectItemCaseSensitive(scn, "team") && !cJSON_GetObjectItemCaseSensitive(scn, "decide"))
        return 1;
    struct dc_ctx *c = calloc(1, sizeof *c);
    if (!c) {
        snprintf(err, errlen, "out of memory for the team decision");
        return -1;
    }
    int rc = -1, n = 0, a = -1;
    cJSON *results = cJSON_CreateArray(), *info = cJSON_CreateObject();
    if (dc_read(doc, c, err, errlen) != 0)
        goto done;
    struct dc_knobs k;
    dc_knobs_default(c, &k);
    if (c->has_team && team_stage(c, &k, opts, &n, &a, results, err, errlen) != 0)
        goto done;
    dc_rows(c, &k, opts, n, results);
    info_json(c, opts, n, a, info);
    cJSON_AddItemToObject(out, "results", results);
    cJSON_AddItemToObject(out, "info", info);
    results = info = NULL;
    rc = 0;
done:
    cJSON_Delete(results);
    cJSON_Delete(info);
    free(c);
    return rc;
}
