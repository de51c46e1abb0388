/* options.c: each way the team can get its compute, costed for a year and queued: k Sparks (a
 * linked pair for a job one cannot hold), rented HBM GPUs (the cheapest offer per job that meets the
 * deadline, billed as the provider bills), an HBM server bought whole with its room, power and
 * support; and the answer among them. What an option costs is the sum of its terms (dc_terms), each
 * one function here. Arithmetic on the typed inputs only: reading the document is read.c's, writing
 * records decide.c's. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "decide/decide_int.h"

#define DC_MAX_SERVERS 8

/* ---- the cost terms ------------------------------------------------------------------------- */

static int is_server(const struct dc_ctx *c, const struct dc_option *o)
{
    return o->sys >= 0 && c->sys[o->sys].server_gpus > 1;
}

/* The room's overhead on a server's power (PUE); a desk-side box pays none. */
static double overhead(const struct dc_ctx *c, const struct dc_option *o)
{
    return is_server(c, o) ? c->t.pue : 1;
}

static double t_capital(const struct dc_ctx *c, const struct dc_option *o)
{
    return o->outlay_usd / c->t.life_years;
}

static double t_energy(const struct dc_ctx *c, const struct dc_option *o)
{
    return o->sys < 0 ? 0 : o->busy_unit_h * c->sys[o->sys].power_w / 1000 * overhead(c, o) * c->t.kwh_usd;
}

/* The hours its machines stand idle, at their idle power (the cost file's, where one is cited). */
static double t_idle(const struct dc_ctx *c, const struct dc_option *o)
{
    if (o->sys < 0)
        return 0;
    double idle_h = fmax(0, o->units * DC_HOURS_PER_YEAR - o->busy_unit_h);
    return idle_h * c->sys[o->sys].idle_w / 1000 * overhead(c, o) * c->t.kwh_usd;
}

/* Rack space and power capacity for a server, per kW of its maximum. */
static double t_facility(const struct dc_ctx *c, const struct dc_option *o)
{
    return is_server(c, o) ? o->units * c->sys[o->sys].power_w / 1000 * c->t.facility_usd_per_kw_month * 12 : 0;
}

static double t_support(const struct dc_ctx *c, const struct dc_option *o)
{
    return is_server(c, o) ? o->outlay_usd * c->t.support_share : 0;
}

static double t_rent(const struct dc_ctx *c, const struct dc_option *o)
{
    (void)c;
    return o->rent_usd;
}

const struct dc_term dc_terms[DC_NTERMS] = {
    [DC_T_CAPITAL] = { "capital_usd_per_year", "the purchase spread over its life", 1, t_capital },
    [DC_T_ENERGY] = { "energy_usd_per_year", "electricity of the hours it trains (a server's at the room's PUE)", 1,
                      t_energy },
    [DC_T_IDLE] = { "idle_usd_per_year", "electricity of the hours it stands idle, where an idle power is cited", 1,
                    t_idle },
    [DC_T_FACILITY] = { "facility_usd_per_year", "a server's rack space and power capacity", 1, t_facility },
    [DC_T_SUPPORT] = { "support_usd_per_year", "a server's support contract", 1, t_support },
    [DC_T_RENT] = { "rent_usd_per_year", "the rent of every job rented, billed as its offer bills", 0, t_rent },
};

/* Every term of o, and their sum. */
static void totals(const struct dc_ctx *c, struct dc_option *o)
{
    o->usd_per_year = 0;
    for (int t = 0; t < DC_NTERMS; t++)
        o->usd_per_year += o->term[t] = dc_terms[t].usd_per_year(c, o);
    o->usd_per_job = o->jobs_per_year > 0 ? o->usd_per_year / o->jobs_per_year : NAN;
}

double dc_busy_hour_usd(const struct dc_option *o)
{
    double owned = 0;
    for (int t = 0; t < DC_NTERMS; t++)
        if (dc_terms[t].owned)
            owned += o->term[t];
    return o->busy_unit_h > 0 ? owned / o->busy_unit_h : NAN;
}

int dc_unit_option(const struct dc_ctx *c, int s, double u, struct dc_option *o)
{
    memset(o, 0, sizeof *o);
    if (s < 0 || !(c->sys[s].price_usd > 0) || !(u > 0))
        return -1;
    o->kind = s == c->spark ? DC_OPT_SPARK : DC_OPT_SERVER;
    o->sys = s, o->count = 1, o->units = 1;
    o->outlay_usd = c->sys[s].price_usd;
    o->busy_unit_h = u * DC_HOURS_PER_YEAR;
    o->utilisation = u;
    totals(c, o);
    return 0;
}

/* ---- renting -------------------------------------------------------------------------------- */

void dc_knobs_default(const struct dc_ctx *c, struct dc_knobs *k)
{
    memset(k, 0, sizeof *k);
    k->volume = 1;
    for (int s = 0; s < DC_MAX_SYS; s++)
        k->rent[s] = 1;
    for (int i = 0; i < DC_MAX_CLASSES; i++)
        k->size[i] = 1;
    k->deadline_h = c->t.deadline_h;
}

double dc_hours(const struct dc_knobs *k, int i, double h)
{
    return h * k->size[i];
}

double dc_run_hours(const struct dc_knobs *k, int i, const struct dc_run *r)
{
    return dc_hours(k, i, k->compiled && r->compiled_h > 0 ? r->compiled_h : r->h);
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
    if (!b->ok)
        return 0;
    if (b->meets != best->meets)
        return b->meets;
    if (b->meets)
        return b->usd < best->usd || (b->usd == best->usd && b->result_h < best->result_h);
    return b->result_h < best->result_h || (b->result_h == best->result_h && b->usd < best->usd);
}

struct dc_bill dc_bill_offer(const struct dc_ctx *c, int i, int o, int devices, const struct dc_knobs *k)
{
    struct dc_bill best = { 0 };
    const struct team_offer *of = &c->offers[o];
    int s = c->offer_sys[o];
    if (s < 0)
        return best;
    const struct dc_sysjob *j = &c->cls[i].on[s];
    for (int r = 0; r < j->nrun; r++) {
        int size = 0;
        if (devices > 0 && j->run[r].devices != devices)
            continue;
        for (int z = 0; z < of->nsizes && !size; z++)
            size = of->sizes[z] >= j->run[r].devices ? of->sizes[z] : 0;
        if (!size)
            continue;
        struct dc_bill b = { 1, o, j->run[r].devices, size, dc_run_hours(k, i, &j->run[r]), 0, 0, 0, 0, &j->run[r] };
        b.result_h = c->t.setup_h + b.run_h;
        b.billed_h = billed_hours(of, b.result_h);
        b.usd = b.billed_h * size * of->usd_per_gpu_hour * k->rent[s];
        b.meets = b.result_h <= k->deadline_h;
        if (better(&b, &best))
            best = b;
    }
    return best;
}

struct dc_bill dc_bill_best(const struct dc_ctx *c, int i, int s, int devices, const struct dc_knobs *k)
{
    struct dc_bill best = { 0 };
    for (int o = 0; o < c->noffers; o++) {
        if (c->offer_sys[o] < 0 || (s >= 0 && c->offer_sys[o] != s))
            continue;
        struct dc_bill b = dc_bill_offer(c, i, o, devices, k);
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
    f->bill = dc_bill_best(c, i, -1, 0, k);
    f->run_h = f->bill.result_h;
    f->run = f->bill.run;
    return f->bill.ok ? 0 : -1;
}

/* A team job the memory counterfactual leaves out: one no single Spark holds. */
static int dropped(const struct dc_ctx *c, const struct dc_knobs *k, int i)
{
    return k->drop_unheld && c->spark >= 0 && c->cls[i].on[c->spark].base.devices != 1;
}

/* ---- queueing and totals --------------------------------------------------------------------- */

/* Queues the option's classes on `units` machines and fills in the per-year figures every option
 * shares; the kind-specific parts (outlay, units) are the caller's, the terms totals'. */
static int queue_and_total(const struct dc_ctx *c, const struct dc_knobs *k, int units, struct dc_option *o)
{
    struct queue_class q[TEAM_MAX_JOBS];
    double total = 0;
    int n = 0, map[TEAM_MAX_JOBS];
    for (int i = 0; i < c->nteam; i++) {
        if (o->cf[i].where == DC_DROPPED)
            continue;
        double per_month = c->cls[i].per_month * k->volume;
        map[n] = i;
        q[n++] = (struct queue_class){ per_month / DC_HOURS_PER_MONTH, o->cf[i].run_h, o->cf[i].units };
        total += per_month;
        o->jobs_per_year += per_month * 12;
        if (o->cf[i].where == DC_RENT)
            o->rent_usd += per_month * 12 * o->cf[i].bill.usd;
        else
            o->busy_unit_h += per_month * 12 * o->cf[i].units * o->cf[i].run_h;
    }
    if (n == 0)
        return -1;
    double months = dc_sim_months(c, total);
    if (queue_simulate(q, n, units, months * DC_HOURS_PER_MONTH, 0.1 * months * DC_HOURS_PER_MONTH,
                       c->t.seed, &o->q) != 0)
        return -1;
    o->keeps_up = o->q.keeps_up;
    o->meets = o->keeps_up;
    for (int m = 0; m < n; m++) {              /* a job too rare to be drawn beside the others: its run time */
        struct dc_classfig *f = &o->cf[map[m]];
        f->q = o->q.cls[m];
        if (!o->keeps_up || !((f->q.n > 0 ? f->q.result_p95_h : f->run_h) <= k->deadline_h))
            o->meets = 0;
    }
    return 0;
}

double dc_sim_months(const struct dc_ctx *c, double per_month)
{
    double cap = floor(DC_MAX_SIM_JOBS / per_month), enough = ceil(DC_MIN_SIM_JOBS / (0.9 * per_month));
    return fmax(1, fmin(fmax(c->t.months, enough), cap));     /* the first tenth is the warm-up */
}

/* The configuration of class i a Spark option of `count` runs: one Spark, or a linked pair when one
 * cannot hold it and there are two; NULL: rented. */
static const struct dc_run *spark_run(const struct dc_ctx *c, int i, int count)
{
    const struct dc_sysjob *j = &c->cls[i].on[c->spark];
    return j->base.devices == 1 ? &j->base : j->more.devices == 2 && count >= 2 ? &j->more : NULL;
}

int dc_spark_option(const struct dc_ctx *c, int count, const struct dc_knobs *k, struct dc_option *o)
{
    const struct dc_sys *sp = c->spark >= 0 ? &c->sys[c->spark] : NULL;
    if (!sp || !(sp->price_usd > 0))
        return -1;
    int own = 0;
    memset(o, 0, sizeof *o);
    o->kind = DC_OPT_SPARK, o->sys = c->spark, o->count = count, o->units = count;
    for (int i = 0; i < c->nteam; i++) {
        const struct dc_run *r = spark_run(c, i, count);
        if (dropped(c, k, i)) {
            o->cf[i].where = DC_DROPPED;
            continue;
        }
        if (!r) {
            if (rented(c, i, k, &o->cf[i]) != 0)
                return -1;
            continue;
        }
        o->cf[i] = (struct dc_classfig){ .where = DC_SPARK_ON, .units = r->devices, .run = r,
                                         .run_h = k->spark_fast ? dc_hours(k, i, r->lo) : dc_run_hours(k, i, r),
                                         .fast_h = dc_hours(k, i, r->lo) };
        own++;
    }
    if (own == 0 || queue_and_total(c, k, count, o) != 0)     /* Sparks that run none of the jobs: no option */
        return -1;
    o->outlay_usd = count * sp->price_usd;
    o->utilisation = o->busy_unit_h / (count * DC_HOURS_PER_YEAR);
    totals(c, o);
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
    o->kind = DC_OPT_SERVER, o->sys = s, o->count = count, o->units = count * g;
    for (int i = 0; i < c->nteam; i++) {
        const struct dc_sysjob *j = &c->cls[i].on[s];
        const struct dc_run *r = j->base.devices && j->base.devices <= g ? &j->base
                                 : j->more.devices && j->more.devices <= g ? &j->more : NULL;
        if (dropped(c, k, i)) {
            o->cf[i].where = DC_DROPPED;
            continue;
        }
        if (!r) {
            if (rented(c, i, k, &o->cf[i]) != 0)
                return -1;
            continue;
        }
        o->cf[i] = (struct dc_classfig){ .where = DC_SERVER_ON, .units = r->devices, .run = r,
                                         .run_h = dc_run_hours(k, i, r) };
        own++;
    }
    if (own == 0 || queue_and_total(c, k, count * g, o) != 0)
        return -1;
    o->outlay_usd = count * g * sy->price_usd;
    o->utilisation = o->busy_unit_h / (count * g * DC_HOURS_PER_YEAR);
    totals(c, o);
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
        if (dropped(c, k, i)) {
            o->cf[i].where = DC_DROPPED;
            continue;
        }
        if (rented(c, i, k, &o->cf[i]) != 0)
            return -1;
        double n = c->cls[i].per_month * k->volume * 12;
        used += n * o->cf[i].bill.devices * o->cf[i].bill.run_h;
        billed += n * o->cf[i].bill.instance_gpus * o->cf[i].bill.billed_h;
    }
    if (queue_and_total(c, k, 1, o) != 0)
        return -1;
    o->utilisation = billed > 0 ? used / billed : NAN;
    totals(c, o);
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
