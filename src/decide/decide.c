/* decide.c: the team decision stage: the inputs read (read.c), every option costed and queued
 * (options.c), the answer, what flips it (job volume, each GPU type's rent, the deadline, the
 * Spark's speed within its band), the rent per GPU type that ties Sparks at 25/50/100 % use, how
 * many people share one Spark for each job, and the records and info that say all of it. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decide/decide.h"
#include "decide/decide_int.h"
#include "util/json.h"

#define DC_MAX_OPTIONS (DC_MAX_SYS + 2)
#define FLIP_MAX_FACTOR 1000.0  /* rent scaled up to 1000x or down to 1/1000 */
#define FLIP_MAX_VOLUME 64.0    /* job volume and deadline scaled up to 64x or down to 1/64 */

static void num(cJSON *r, const char *k, double v)
{
    if (isfinite(v))
        cJSON_AddNumberToObject(r, k, v);
}

static cJSON *record(cJSON *results, const char *series)
{
    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "series", series);
    cJSON_AddItemToArray(results, r);
    return r;
}

/* The answer's id under knobs k (and its option, when wanted). */
static void answer_id(const struct dc_ctx *c, const struct dc_knobs *k, char *id, size_t n, struct dc_option *best)
{
    static struct dc_option opts[DC_MAX_OPTIONS];
    int m = dc_options(c, k, opts, DC_MAX_OPTIONS), a = dc_answer(opts, m);
    snprintf(id, n, "none");
    if (a >= 0)
        dc_option_id(c, &opts[a], id, n);
    if (best && a >= 0)
        *best = opts[a];
}

static void bill_json(const struct dc_ctx *c, cJSON *r, const struct dc_bill *b)
{
    const struct team_offer *o = &c->offers[b->offer];
    cJSON_AddStringToObject(r, "offer", o->id);
    cJSON_AddStringToObject(r, "system", o->system);
    cJSON_AddStringToObject(r, "provider", o->provider);
    cJSON_AddNumberToObject(r, "gpus", b->devices);
    cJSON_AddNumberToObject(r, "instance_gpus", b->instance_gpus);
    num(r, "run_h", b->run_h);
    num(r, "setup_h", c->t.setup_h);
    num(r, "billed_h", b->billed_h);
    num(r, "usd_per_gpu_hour", o->usd_per_gpu_hour);
    num(r, "usd", b->usd);
    num(r, "result_h", b->result_h);
    cJSON_AddBoolToObject(r, "meets_deadline", b->meets);
}

/* Every job on every offer: the bill a provider would send (series offer_job). */
static void offer_jobs(const struct dc_ctx *c, const struct dc_knobs *k, cJSON *results)
{
    for (int i = 0; i < c->nclasses; i++)
        for (int o = 0; o < c->noffers; o++) {
            struct dc_bill b = dc_bill_offer(c, i, o, k);
            if (!b.ok)
                continue;
            cJSON *r = record(results, "offer_job");
            cJSON_AddStringToObject(r, "workload", c->cls[i].workload);
            bill_json(c, r, &b);
        }
}

static const char *const WHERE[] = { "rented", "spark", "server" };
static const char *const KIND[] = { "spark", "rent", "server" };

static void option_json(const struct dc_ctx *c, const struct dc_option *o, int answer, cJSON *results)
{
    char id[64];
    dc_option_id(c, o, id, sizeof id);
    cJSON *r = record(results, "option");
    cJSON_AddStringToObject(r, "option", id);
    cJSON_AddStringToObject(r, "kind", KIND[o->kind]);
    if (o->sys >= 0)
        cJSON_AddStringToObject(r, "system", c->sys[o->sys].id);
    cJSON_AddNumberToObject(r, "count", o->count);
    if (o->kind == DC_OPT_SERVER)
        cJSON_AddNumberToObject(r, "server_gpus", c->sys[o->sys].server_gpus);
    num(r, "outlay_usd", o->outlay_usd);
    num(r, "capital_usd_per_year", o->capital_usd);
    num(r, "energy_usd_per_year", o->energy_usd);
    num(r, "facility_usd_per_year", o->facility_usd);
    num(r, "support_usd_per_year", o->support_usd);
    num(r, "rent_usd_per_year", o->rent_usd);
    num(r, "usd_per_year", o->usd_per_year);
    num(r, "jobs_per_year", o->jobs_per_year);
    num(r, "usd_per_job", o->usd_per_job);
    num(r, "busy_unit_hours_per_year", o->busy_unit_h);
    num(r, "utilisation", o->utilisation);
    cJSON_AddBoolToObject(r, "keeps_up", o->keeps_up);
    cJSON_AddBoolToObject(r, "meets_deadline", o->meets);
    cJSON_AddBoolToObject(r, "answer", answer);
    num(r, "load", o->q.load);
    if (o->keeps_up) {
        num(r, "busy_simulated", o->q.busy);
        num(r, "wait_mean_h", o->q.all.wait_mean_h);
        num(r, "result_p50_h", o->q.all.result_p50_h);
        num(r, "result_p95_h", o->q.all.result_p95_h);
        num(r, "jobs_simulated", o->q.all.n);
    }
    for (int i = 0; i < c->nteam; i++) {
        const struct dc_classfig *f = &o->cf[i];
        cJSON *j = record(results, "option_job");
        cJSON_AddStringToObject(j, "option", id);
        cJSON_AddStringToObject(j, "workload", c->cls[i].workload);
        cJSON_AddStringToObject(j, "on", WHERE[f->where]);
        cJSON_AddNumberToObject(j, "units", f->units);
        num(j, "run_h", f->run_h);
        if (f->where == DC_SPARK_ON)
            num(j, "run_fast_h", f->fast_h);
        if (f->where == DC_RENT)
            bill_json(c, j, &f->bill);
        if (o->keeps_up) {
            num(j, "wait_mean_h", f->q.wait_mean_h);
            num(j, "wait_se_h", f->q.wait_se_h);
            num(j, "result_p50_h", f->q.result_p50_h);
            num(j, "result_p95_h", f->q.result_p95_h);
        }
    }
}

/* The rent per GPU-hour of each GPU type at which renting it for the jobs a Spark can run costs
 * what Sparks busy 25, 50 and 100 % of the time cost (series tying_rent). */
static void tying_rents(const struct dc_ctx *c, const struct dc_knobs *k, cJSON *results)
{
    static const double U[] = { 0.25, 0.5, 1.0 };
    if (c->spark < 0 || !(c->sys[c->spark].price_usd > 0))
        return;
    for (int s = 0; s < c->nsys; s++) {
        double spark_h = 0, rent = 0, base = INFINITY;
        for (int o = 0; o < c->noffers; o++)
            if (c->offer_sys[o] == s)
                base = fmin(base, c->offers[o].usd_per_gpu_hour);
        if (s == c->spark || !isfinite(base))
            continue;
        struct dc_knobs any = *k;
        any.deadline_h = INFINITY;      /* a cost tie: the cheapest bill, however long */
        for (int i = 0; i < c->nteam; i++) {
            const struct dc_sysjob *j = &c->cls[i].on[c->spark];
            const struct dc_run *r = j->base.devices == 1 ? &j->base : j->more.devices == 2 ? &j->more : NULL;
            struct dc_bill b = dc_bill_best(c, i, s, &any);
            if (!r || !b.ok)
                continue;
            spark_h += c->cls[i].per_month * 12 * r->devices * r->h;
            rent += c->cls[i].per_month * 12 * b.usd;
        }
        if (!(rent > 0))
            continue;
        for (int u = 0; u < 3; u++) {
            cJSON *r = record(results, "tying_rent");
            cJSON_AddStringToObject(r, "system", c->sys[s].id);
            num(r, "utilisation", U[u]);
            num(r, "spark_hours_per_year", spark_h);
            num(r, "spark_usd_per_hour", dc_spark_hour_usd(c, U[u]));
            num(r, "rent_usd_per_year", rent);
            num(r, "base_usd_per_gpu_hour", base);
            num(r, "usd_per_gpu_hour", base * spark_h * dc_spark_hour_usd(c, U[u]) / rent);
        }
    }
}

/* A knob of a sensitivity: a system's rent (which >= 0), the job volume or the deadline, each
 * scaled by f from the run's own value. */
enum { KNOB_VOLUME = -1, KNOB_DEADLINE = -2, KNOB_RENT_ALL = -3 };

static struct dc_knobs knob_at(const struct dc_knobs *base, int which, double f)
{
    struct dc_knobs k = *base;
    if (which == KNOB_VOLUME)
        k.volume *= f;
    else if (which == KNOB_DEADLINE)
        k.deadline_h *= f;
    else if (which == KNOB_RENT_ALL)
        for (int s = 0; s < DC_MAX_SYS; s++)
            k.rent[s] *= f;
    else
        k.rent[which] *= f;
    return k;
}

/* Scans the knob by factor `step` from 1 up to `limit` (step > 1) or down to it (step < 1) for the
 * first factor where the answer is no longer `from`, then narrows it by bisection: 1 with *at (the
 * first factor that flips, within the last step's 2^(-steps)) and `to`, else 0. */
static int scan(const struct dc_ctx *c, const struct dc_knobs *base, int which, double step, double limit,
                const char *from, int steps, double *at, char *to, size_t n)
{
    double prev = 1;
    for (double f = step; step > 1 ? f <= limit * 1.0001 : f >= limit * 0.9999; f *= step) {
        struct dc_knobs k = knob_at(base, which, f);
        answer_id(c, &k, to, n, NULL);
        if (strcmp(to, from) == 0) {
            prev = f;
            continue;
        }
        double lo = prev, hi = f;
        for (int i = 0; i < steps; i++) {
            double mid = sqrt(lo * hi);
            k = knob_at(base, which, mid);
            answer_id(c, &k, to, n, NULL);
            if (strcmp(to, from) == 0)
                lo = mid;
            else
                hi = mid;
        }
        k = knob_at(base, which, hi);
        answer_id(c, &k, to, n, NULL);
        *at = hi;
        return 1;
    }
    return 0;
}

static cJSON *flip_record(cJSON *results, const char *what, const char *dir, int found, const char *to)
{
    cJSON *r = record(results, "flip");
    cJSON_AddStringToObject(r, "what", what);
    cJSON_AddStringToObject(r, "direction", dir);
    cJSON_AddBoolToObject(r, "found", found);
    if (found)
        cJSON_AddStringToObject(r, "to", to);
    return r;
}

/* Every option's cost a year where a flip happens, under knobs k: what a test checks the tie on. */
static void flip_costs(const struct dc_ctx *c, const struct dc_knobs *k, cJSON *r)
{
    static struct dc_option opts[DC_MAX_OPTIONS];
    int m = dc_options(c, k, opts, DC_MAX_OPTIONS);
    cJSON *all = cJSON_AddArrayToObject(r, "options_at_flip");
    for (int i = 0; i < m; i++) {
        char id[64];
        cJSON *o = cJSON_CreateObject();
        dc_option_id(c, &opts[i], id, sizeof id);
        cJSON_AddStringToObject(o, "option", id);
        cJSON_AddNumberToObject(o, "count", opts[i].count);
        num(o, "usd_per_year", opts[i].usd_per_year);
        cJSON_AddBoolToObject(o, "meets_deadline", opts[i].meets);
        cJSON_AddItemToArray(all, o);
    }
}

/* Each GPU type's rent that flips the answer, and every type's together: raised when the answer is
 * to rent (one type's jobs may move to other types first: then none does), lowered otherwise. */
static void rent_flips(const struct dc_ctx *c, const struct dc_knobs *k, const char *ans, cJSON *results)
{
    int up = strcmp(ans, "rent") == 0;
    for (int s = -1; s < c->nsys; s++) {
        double base = INFINITY, at = 0;
        char to[64];
        for (int o = 0; o < c->noffers; o++)
            if (s < 0 ? c->offer_sys[o] >= 0 : c->offer_sys[o] == s)
                base = fmin(base, c->offers[o].usd_per_gpu_hour);
        if (!isfinite(base))
            continue;
        int found = scan(c, k, s < 0 ? KNOB_RENT_ALL : s, up ? 2 : 0.5, up ? FLIP_MAX_FACTOR : 1 / FLIP_MAX_FACTOR,
                         ans, 16, &at, to, sizeof to);
        cJSON *r = flip_record(results, s < 0 ? "rent_all" : "rent", up ? "above" : "below", found, to);
        if (s >= 0)
            cJSON_AddStringToObject(r, "system", c->sys[s].id);
        num(r, "base_usd_per_gpu_hour", base);
        num(r, "limit_factor", up ? FLIP_MAX_FACTOR : 1 / FLIP_MAX_FACTOR);
        if (found) {
            struct dc_knobs kk = knob_at(k, s < 0 ? KNOB_RENT_ALL : s, at);
            num(r, "factor", at);
            num(r, "usd_per_gpu_hour", base * at);
            flip_costs(c, &kk, r);
        }
    }
}

/* The job volume (jobs a month) and the deadline (hours) at which the answer flips, each way. */
static void scaled_flips(const struct dc_ctx *c, const struct dc_knobs *k, const char *ans, int which,
                         const char *what, double base, cJSON *results)
{
    for (int d = 0; d < 2; d++) {
        double at = 0;
        char to[64];
        int found = scan(c, k, which, d ? sqrt(0.5) : sqrt(2), d ? 1 / FLIP_MAX_VOLUME : FLIP_MAX_VOLUME, ans, 10,
                         &at, to, sizeof to);
        cJSON *r = flip_record(results, what, d ? "below" : "above", found, to);
        num(r, "base", base);
        num(r, "limit_factor", d ? 1 / FLIP_MAX_VOLUME : FLIP_MAX_VOLUME);
        if (found) {
            struct dc_knobs kk = knob_at(k, which, at);
            num(r, "factor", at);
            num(r, "value", base * at);
            flip_costs(c, &kk, r);
        }
    }
}

static void flips(const struct dc_ctx *c, const struct dc_knobs *k, const char *ans, cJSON *results)
{
    double jobs = 0;
    char to[64];
    for (int i = 0; i < c->nteam; i++)
        jobs += c->cls[i].per_month;
    rent_flips(c, k, ans, results);
    scaled_flips(c, k, ans, KNOB_VOLUME, "volume", jobs, results);
    scaled_flips(c, k, ans, KNOB_DEADLINE, "deadline", k->deadline_h, results);
    struct dc_knobs fast = *k;
    fast.spark_fast = 1;        /* the fastest a GB10 is projected to run: the fast end of its band */
    answer_id(c, &fast, to, sizeof to, NULL);
    cJSON *r = flip_record(results, "spark_speed", "faster", strcmp(to, ans) != 0, to);
    if (strcmp(to, ans) != 0)
        flip_costs(c, &fast, r);
}

/* How many people can share one Spark for job i: the largest tenant count whose job fits in its
 * share and whose results, each person sending job i at the team's rate per person and each
 * tenant's job taking the projected hours with that many at once, stay within the deadline at the
 * 95th percentile (series people_per_spark). */
static void people_per_spark(const struct dc_ctx *c, const struct dc_knobs *k, int i, cJSON *results)
{
    const struct dc_class *cl = &c->cls[i];
    cJSON *r = record(results, "people_per_spark");
    cJSON_AddStringToObject(r, "workload", cl->workload);
    num(r, "deadline_h", k->deadline_h);
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
        if (tn->n == 1) {
            alone = tn->h;
            if (!tn->fits)
                why = "it does not fit in one Spark's memory";
        }
        if (!tn->fits)
            continue;
        struct queue_class q = { cl->per_month * k->volume / c->t.people * tn->n / DC_HOURS_PER_MONTH, tn->h, 1 };
        struct queue_result res;
        double months = dc_sim_months(c, q.per_hour * DC_HOURS_PER_MONTH);
        if (queue_simulate(&q, 1, tn->n, months * DC_HOURS_PER_MONTH, 0.1 * months * DC_HOURS_PER_MONTH, c->t.seed,
                           &res) != 0 || !res.keeps_up || !(res.all.result_p95_h <= k->deadline_h)) {
            if (tn->h <= k->deadline_h)
                why = "the queue of their jobs passes the deadline";
            continue;
        }
        if (tn->n > best)
            best = tn->n, p95 = res.all.result_p95_h;
    }
    cJSON_AddNumberToObject(r, "people", best);
    num(r, "hours_alone", alone);
    num(r, "result_p95_h", p95);
    if (best == 0)
        cJSON_AddStringToObject(r, "reason", why);
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
        num(e, "value", v[i]);
        num(e, "default", d);
        cJSON_AddStringToObject(e, "source", src && v[i] == d ? src : "the scenario's own figure");
        cJSON_AddItemToArray(a, e);
    }
}

static void info_json(const struct dc_ctx *c, const struct dc_option *opts, int n, int a, cJSON *info)
{
    char id[64];
    cJSON *ans = cJSON_AddObjectToObject(info, "answer");
    dc_option_id(c, &opts[a], id, sizeof id);
    cJSON_AddStringToObject(ans, "option", id);
    cJSON_AddBoolToObject(ans, "meets_deadline", opts[a].meets);
    int alt = -1;               /* the Sparks when the answer is not them; else the cheapest other */
    for (int i = 0; i < n; i++)
        if (i != a && (opts[a].kind != DC_OPT_SPARK ? opts[i].kind == DC_OPT_SPARK
                       : alt < 0 || opts[i].usd_per_year < opts[alt].usd_per_year))
            alt = i;
    if (alt >= 0) {
        dc_option_id(c, &opts[alt], id, sizeof id);
        cJSON_AddStringToObject(ans, "alternative", id);
    }
    terms_json(&c->t, info);
    cJSON_AddStringToObject(info, "offers_source", c->t.noffers ? "the scenario" : "data/offers.csv");
    cJSON *sim = cJSON_AddObjectToObject(info, "simulation");
    cJSON_AddNumberToObject(sim, "months", c->t.months);
    cJSON_AddNumberToObject(sim, "seed", (double)c->t.seed);
    cJSON_AddNumberToObject(sim, "max_jobs", DC_MAX_SIM_JOBS);
    cJSON_AddStringToObject(info, "method",
        "Jobs arrive at random (a Poisson stream per job, the team's jobs per month, seeded) over the simulated "
        "months, the first tenth left out as warm-up, and start first come, first served on the option's machines "
        "(a job needing two Sparks or several GPUs waits until that many are free; none overtakes an earlier one). "
        "Rented jobs start when asked: they wait only for their instance's setup. Time to result is the wait plus "
        "the projected hours (central figure). Sparks: the fewest that meet the deadline at the 95th percentile, "
        "else the fewest beyond which one more shortens it by less than 10 %; a job one Spark cannot hold runs on "
        "a linked pair, else it is rented. A server: the fewest whole servers (8 GPUs) that meet the deadline; a "
        "job runs as the projection runs it. Renting: per job the cheapest offer and GPU count that meets the "
        "deadline, billed in the offer's steps with its setup, on the smallest instance it can rent. The answer: "
        "the cheapest a year of the options that meet the deadline, else the fastest.");
}

int decide_stage(const cJSON *doc, cJSON *out, char *err, size_t errlen)
{
    static struct dc_option opts[DC_MAX_OPTIONS];
    if (!cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(doc, "scenario"), "team"))
        return 1;
    struct dc_ctx *c = calloc(1, sizeof *c);
    if (!c) {
        snprintf(err, errlen, "out of memory for the team decision");
        return -1;
    }
    int rc = -1;
    if (dc_read(doc, c, err, errlen) != 0)
        goto done;
    struct dc_knobs k;
    dc_knobs_default(c, &k);
    int n = dc_options(c, &k, opts, DC_MAX_OPTIONS), a = dc_answer(opts, n);
    if (a < 0) {
        snprintf(err, errlen, "no way to get the compute keeps up with the team's jobs (every option's queue grows "
                 "without end and no offer rents them)");
        goto done;
    }
    cJSON *results = cJSON_AddArrayToObject(out, "results"), *info = cJSON_AddObjectToObject(out, "info");
    char ans[64];
    dc_option_id(c, &opts[a], ans, sizeof ans);
    offer_jobs(c, &k, results);
    for (int i = 0; i < n; i++)
        option_json(c, &opts[i], i == a, results);
    tying_rents(c, &k, results);
    flips(c, &k, ans, results);
    for (int i = 0; i < c->nteam; i++)
        people_per_spark(c, &k, i, results);
    info_json(c, opts, n, a, info);
    rc = 0;
done:
    free(c);
    return rc;
}
