/* options.c: each way the team can get its compute, costed for a year and queued: k Sparks (a
 * linked pair for a job one cannot hold), rented HBM GPUs (the cheapest offer per job that meets the
 * deadline, billed as the provider bills), an HBM server bought whole with its room, power and
 * support; and the answer among them. Arithmetic on the typed inputs only: reading the document is
 * read.c's, writing records decide.c's. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "decide/decide_int.h"

#define DC_MAX_SERVERS 8
#define DC_MARGINAL 0.10        /* one more Spark is not worth it when it shortens the 95th percentile
                                   time to result by less than this share */

void dc_knobs_default(const struct dc_ctx *c, struct dc_knobs *k)
{
    memset(k, 0, sizeof *k);
    k->volume = 1;
    for (int s = 0; s < DC_MAX_SYS; s++)
        k->rent[s] = 1;
    k->deadline_h = c->t.deadline_h;
}

/* Hours billed for `h` hours of an instance: whole billing steps, at least the minimum. */
static double billed_hours(const struct team_offer *o, double h)
{
    double steps = ceil(h / o->billing_step_h - 1e-9);
    return fmax(o->min_billed_h, fmax(steps, 1) * o->billing_step_h);
}

/* b better than best: meeting the deadline first, then cheaper (faster on a tie); among those that
 * miss it, faster. */
static int better(const struct dc_bill *b, const struct dc_bill *best)
{
    if (!best->ok)
        return b->ok;
    if (b->meets != best->meets)
        return b->meets;
    if (b->meets)
        return b->usd < best->usd || (b->usd == best->usd && b->result_h < best->result_h);
    return b->result_h < best->result_h || (b->result_h == best->result_h && b->usd < best->usd);
}

struct dc_bill dc_bill_offer(const struct dc_ctx *c, int i, int o, const struct dc_knobs *k)
{
    struct dc_bill best = { 0 };
    const struct team_offer *of = &c->offers[o];
    int s = c->offer_sys[o];
    if (s < 0)
        return best;
    const struct dc_sysjob *j = &c->cls[i].on[s];
    for (int r = 0; r < j->nrun; r++) {
        int size = 0;
        for (int z = 0; z < of->nsizes && !size; z++)
            size = of->sizes[z] >= j->run[r].devices ? of->sizes[z] : 0;
        if (!size)
            continue;
        struct dc_bill b = { 1, o, j->run[r].devices, size, j->run[r].h, 0, 0, 0, 0 };
        b.result_h = c->t.setup_h + b.run_h;
        b.billed_h = billed_hours(of, b.result_h);
        b.usd = b.billed_h * size * of->usd_per_gpu_hour * k->rent[s];
        b.meets = b.result_h <= k->deadline_h;
        if (better(&b, &best))
            best = b;
    }
    return best;
}

struct dc_bill dc_bill_best(const struct dc_ctx *c, int i, int s, const struct dc_knobs *k)
{
    struct dc_bill best = { 0 };
    for (int o = 0; o < c->noffers; o++) {
        if (c->offer_sys[o] < 0 || (s >= 0 && c->offer_sys[o] != s))
            continue;
        struct dc_bill b = dc_bill_offer(c, i, o, k);
        if (better(&b, &best))
            best = b;
    }
    return best;
}

/* Class i rented: its figure, or -1 when no offer runs it. */
static int rented(const struct dc_ctx *c, int i, const struct dc_knobs *k, struct dc_classfig *f)
{
    memset(f, 0, sizeof *f);
    f->where = DC_RENT;
    f->bill = dc_bill_best(c, i, -1, k);
    f->run_h = f->bill.result_h;
    return f->bill.ok ? 0 : -1;
}

/* Queues the option's classes on `units` machines and fills in the per-year figures every option
 * shares; the kind-specific costs are the caller's. */
static int queue_and_total(const struct dc_ctx *c, const struct dc_knobs *k, int units, struct dc_option *o)
{
    struct queue_class q[TEAM_MAX_JOBS];
    double total = 0;
    for (int i = 0; i < c->nteam; i++) {
        double per_month = c->cls[i].per_month * k->volume;
        q[i] = (struct queue_class){ per_month / DC_HOURS_PER_MONTH, o->cf[i].run_h, o->cf[i].units };
        total += per_month;
        o->jobs_per_year += per_month * 12;
        if (o->cf[i].where == DC_RENT)
            o->rent_usd += per_month * 12 * o->cf[i].bill.usd;
        else
            o->busy_unit_h += per_month * 12 * o->cf[i].units * o->cf[i].run_h;
    }
    double months = dc_sim_months(c, total);
    if (queue_simulate(q, c->nteam, units, months * DC_HOURS_PER_MONTH, 0.1 * months * DC_HOURS_PER_MONTH,
                       c->t.seed, &o->q) != 0)
        return -1;
    o->keeps_up = o->q.keeps_up;
    o->meets = o->keeps_up;
    for (int i = 0; i < c->nteam; i++) {       /* a job too rare to be drawn beside the others: its run time */
        o->cf[i].q = o->q.cls[i];
        if (!o->keeps_up || !((o->cf[i].q.n > 0 ? o->cf[i].q.result_p95_h : o->cf[i].run_h) <= k->deadline_h))
            o->meets = 0;
    }
    return 0;
}

double dc_sim_months(const struct dc_ctx *c, double per_month)
{
    double cap = floor(DC_MAX_SIM_JOBS / per_month), enough = ceil(DC_MIN_SIM_JOBS / (0.9 * per_month));
    return fmax(1, fmin(fmax(c->t.months, enough), cap));     /* the first tenth is the warm-up */
}

static void totals(struct dc_option *o)
{
    o->usd_per_year = o->capital_usd + o->energy_usd + o->facility_usd + o->support_usd + o->rent_usd;
    o->usd_per_job = o->jobs_per_year > 0 ? o->usd_per_year / o->jobs_per_year : NAN;
}

int dc_spark_option(const struct dc_ctx *c, int count, const struct dc_knobs *k, struct dc_option *o)
{
    const struct dc_sys *sp = c->spark >= 0 ? &c->sys[c->spark] : NULL;
    if (!sp || !(sp->price_usd > 0))
        return -1;
    int own = 0;
    memset(o, 0, sizeof *o);
    o->kind = DC_OPT_SPARK, o->sys = c->spark, o->count = count;
    for (int i = 0; i < c->nteam; i++) {
        const struct dc_sysjob *j = &c->cls[i].on[c->spark];
        const struct dc_run *r = j->base.devices == 1 ? &j->base : j->more.devices == 2 && count >= 2 ? &j->more : NULL;
        if (!r) {
            if (rented(c, i, k, &o->cf[i]) != 0)
                return -1;
            continue;
        }
        o->cf[i] = (struct dc_classfig){ .where = DC_SPARK_ON, .units = r->devices,
                                         .run_h = k->spark_fast ? r->lo : r->h, .fast_h = r->lo };
        own++;
    }
    if (own == 0 || queue_and_total(c, k, count, o) != 0)     /* Sparks that run none of the jobs: no option */
        return -1;
    o->outlay_usd = count * sp->price_usd;
    o->capital_usd = o->outlay_usd / c->t.life_years;
    o->energy_usd = o->busy_unit_h * sp->power_w / 1000 * c->t.kwh_usd;
    o->utilisation = o->busy_unit_h / (count * DC_HOURS_PER_YEAR);
    totals(o);
    return 0;
}

/* The number of Sparks: the fewest that meet the deadline; when none does, the fewest beyond which
 * one more shortens the 95th percentile time to result by less than DC_MARGINAL. */
int dc_spark_choose(const struct dc_ctx *c, const struct dc_knobs *k, struct dc_option *o)
{
    struct dc_option prev, cur;
    int have = 0;
    for (int n = 1; n <= c->t.max_sparks; n++) {
        if (dc_spark_option(c, n, k, &cur) != 0)
            return -1;
        if (!cur.keeps_up)
            continue;
        if (cur.meets || (have && prev.q.all.result_p95_h - cur.q.all.result_p95_h
                                  < DC_MARGINAL * prev.q.all.result_p95_h)) {
            *o = cur.meets ? cur : prev;
            return 0;
        }
        prev = cur, have = 1;
    }
    if (have)
        *o = prev;
    else
        *o = cur;               /* the most Sparks allowed, and they cannot keep up */
    return 0;
}

int dc_server_option(const struct dc_ctx *c, int s, int count, const struct dc_knobs *k, struct dc_option *o)
{
    const struct dc_sys *sy = &c->sys[s];
    int g = sy->server_gpus;
    if (!(sy->price_usd > 0) || g < 2 || s == c->spark)
        return -1;
    int own = 0;
    memset(o, 0, sizeof *o);
    o->kind = DC_OPT_SERVER, o->sys = s, o->count = count;
    for (int i = 0; i < c->nteam; i++) {
        const struct dc_sysjob *j = &c->cls[i].on[s];
        const struct dc_run *r = j->base.devices && j->base.devices <= g ? &j->base
                                 : j->more.devices && j->more.devices <= g ? &j->more : NULL;
        if (!r) {
            if (rented(c, i, k, &o->cf[i]) != 0)
                return -1;
            continue;
        }
        o->cf[i] = (struct dc_classfig){ .where = DC_SERVER_ON, .units = r->devices, .run_h = r->h };
        own++;
    }
    if (own == 0 || queue_and_total(c, k, count * g, o) != 0)
        return -1;
    double kw = g * sy->power_w / 1000;
    o->outlay_usd = count * g * sy->price_usd;
    o->capital_usd = o->outlay_usd / c->t.life_years;
    o->support_usd = o->outlay_usd * c->t.support_share;
    o->facility_usd = count * kw * c->t.facility_usd_per_kw_month * 12;
    o->energy_usd = o->busy_unit_h * sy->power_w / 1000 * c->t.pue * c->t.kwh_usd;
    o->utilisation = o->busy_unit_h / (count * g * DC_HOURS_PER_YEAR);
    totals(o);
    return 0;
}

/* The number of servers: the fewest that meet the deadline, else the fewest that keep up. */
int dc_server_choose(const struct dc_ctx *c, int s, const struct dc_knobs *k, struct dc_option *o)
{
    struct dc_option cur;
    int have = 0;
    for (int m = 1; m <= DC_MAX_SERVERS; m++) {
        if (dc_server_option(c, s, m, k, &cur) != 0)
            return -1;
        if (cur.meets) {
            *o = cur;
            return 0;
        }
        if (cur.keeps_up && !have)
            *o = cur, have = 1;
    }
    if (!have)
        *o = cur;
    return 0;
}

int dc_rent_option(const struct dc_ctx *c, const struct dc_knobs *k, struct dc_option *o)
{
    double used = 0, billed = 0;
    memset(o, 0, sizeof *o);
    o->kind = DC_OPT_RENT, o->sys = -1, o->count = 0;
    for (int i = 0; i < c->nteam; i++) {
        if (rented(c, i, k, &o->cf[i]) != 0)
            return -1;
        double n = c->cls[i].per_month * k->volume * 12;
        used += n * o->cf[i].bill.devices * o->cf[i].bill.run_h;
        billed += n * o->cf[i].bill.instance_gpus * o->cf[i].bill.billed_h;
    }
    if (queue_and_total(c, k, 1, o) != 0)
        return -1;
    o->utilisation = billed > 0 ? used / billed : NAN;
    totals(o);
    return 0;
}

int dc_options(const struct dc_ctx *c, const struct dc_knobs *k, struct dc_option *opts, int max)
{
    int n = 0;
    if (n < max && dc_spark_choose(c, k, &opts[n]) == 0)
        n++;
    if (n < max && dc_rent_option(c, k, &opts[n]) == 0)
        n++;
    for (int s = 0; s < c->nsys && n < max; s++)
        if (dc_server_choose(c, s, k, &opts[n]) == 0)
            n++;
    return n;
}

int dc_answer(const struct dc_option *opts, int n)
{
    int best = -1;
    for (int i = 0; i < n; i++)
        if (opts[i].meets && (best < 0 || opts[i].usd_per_year < opts[best].usd_per_year))
            best = i;
    if (best >= 0)
        return best;
    for (int i = 0; i < n; i++)
        if (opts[i].keeps_up && (best < 0 || opts[i].q.all.result_p95_h < opts[best].q.all.result_p95_h))
            best = i;
    return best;
}

void dc_option_id(const struct dc_ctx *c, const struct dc_option *o, char *buf, size_t n)
{
    if (o->kind == DC_OPT_SPARK)
        snprintf(buf, n, "spark");
    else if (o->kind == DC_OPT_RENT)
        snprintf(buf, n, "rent");
    else
        snprintf(buf, n, "server:%s", c->sys[o->sys].id);
}

double dc_spark_hour_usd(const struct dc_ctx *c, double u)
{
    const struct dc_sys *sp = &c->sys[c->spark];
    return sp->price_usd / (c->t.life_years * DC_HOURS_PER_YEAR * u) + sp->power_w / 1000 * c->t.kwh_usd;
}
