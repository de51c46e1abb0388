/* rows.c: every job on every compared system, costed on the decision's one basis (job_row records):
 * each configuration the projection ran, the fewest devices that hold a job one cannot, and the
 * cheapest way to rent it where that is another configuration; each row bought at the use the
 * team's option gives that system (without a team, at the scenario's use) and rented on its own
 * configuration's cheapest offer, billed in that offer's steps. Then each workload's verdict: the
 * Spark bought against the cheapest HBM way, a tie within the bands, and what would tie them. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decide/decide_int.h"
#include "util/json.h"

static const cJSON *get(const cJSON *o, const char *k) { return cJSON_GetObjectItemCaseSensitive(o, k); }

/* What one row of job i on system s holds, for the verdict after. */
struct row {
    int sys, devices, fits;
    double h, lo, hi, buy, rent;
    const struct dc_run *run;
    struct dc_bill bill;
};

/* The option that owns system s under the decision: the team's Sparks or that system's servers;
 * without a team, one device of it at the scenario's use. NULL: it is not bought. */
static const struct dc_option *owner(const struct dc_ctx *c, const struct dc_option *opts, int n, int s,
                                     struct dc_option *unit)
{
    if (!c->has_team)
        return dc_unit_option(c, s, c->utilisation, unit) == 0 ? unit : NULL;
    for (int i = 0; i < n; i++)
        if (opts[i].sys == s && opts[i].kind != DC_OPT_RENT)
            return &opts[i];
    return NULL;
}

/* The Spark configuration a row is compared with: one Spark where it holds the job, else the fewest
 * linked Sparks that do; NULL: none does. */
static const struct dc_run *spark_base(const struct dc_ctx *c, int i)
{
    if (c->spark < 0)
        return NULL;
    const struct dc_sysjob *j = &c->cls[i].on[c->spark];
    return j->base.devices ? &j->base : j->more.devices ? &j->more : NULL;
}


/* The fit of a configuration as the projection wrote it, and what it becomes if a marginal fit
 * does not fit after all (its hours for the job's size). */
static void fit_json(cJSON *r, const cJSON *rec, double scale)
{
    const cJSON *alt = get(rec, "if_not_fit");
    dc_copy_str(r, rec, "fit", "fit");
    if (!get(r, "fit"))
        dc_copy_str(r, rec, "sharding", "fit");
    cJSON_AddBoolToObject(r, "marginal", cJSON_IsTrue(get(rec, "marginal")));
    if (cJSON_IsTrue(get(rec, "marginal")) && cJSON_IsObject(alt)) {
        dc_copy_str(r, alt, "fit", "if_not_fit");
        dc_copy_str(r, alt, "offload", "if_not_fit_offload");
        dc_num(r, "if_not_fit_gpus", json_num(alt, "gpus", NAN));
        cJSON_AddBoolToObject(r, "if_not_fit_fits", cJSON_IsTrue(get(alt, "fits")));
        if (cJSON_IsBool(get(alt, "checkpoint")))
            cJSON_AddBoolToObject(r, "if_not_fit_checkpoint", cJSON_IsTrue(get(alt, "checkpoint")));
        dc_num(r, "if_not_fit_hours", json_num(alt, "hours", NAN) * scale);
        dc_num(r, "if_not_fit_zero", json_num(alt, "zero", NAN));
    }
    dc_copy_str(r, rec, "offload", "offload");
    if (cJSON_IsBool(get(rec, "checkpoint")))
        cJSON_AddBoolToObject(r, "checkpoint", cJSON_IsTrue(get(rec, "checkpoint")));
    dc_num(r, "tp", json_num(rec, "tp", NAN));
    dc_num(r, "zero", json_num(rec, "zero", NAN));
    dc_num(r, "memory_bound_share", json_num(rec, "memory_bound_share", NAN));
    if (cJSON_IsBool(get(rec, "extrapolated")))
        cJSON_AddBoolToObject(r, "extrapolated", cJSON_IsTrue(get(rec, "extrapolated")));
    dc_num(r, "extrapolation_spread", json_num(rec, "extrapolation_spread", NAN));
    dc_num(r, "stack_runs", json_num(rec, "stack_runs", NAN));
}

static void rent_json(const struct dc_ctx *c, cJSON *r, const struct dc_bill *b)
{
    const struct team_offer *o = &c->offers[b->offer];
    dc_num(r, "rent_usd", b->usd);
    cJSON_AddStringToObject(r, "rent_offer", o->id);
    cJSON_AddStringToObject(r, "rent_provider", o->provider);
    cJSON_AddNumberToObject(r, "rent_instance_gpus", b->instance_gpus);
    dc_num(r, "rent_billed_h", b->billed_h);
    dc_num(r, "rent_result_h", b->result_h);
    dc_num(r, "rent_usd_per_gpu_hour", o->usd_per_gpu_hour);
    dc_num(r, "rent_billing_step_s", o->billing_step_h * 3600);
}

/* One row of class i on system s in configuration run (NULL: the projection's record of a job that
 * does not fit); role: "projection", "devices" (the fewest that hold it) or "rent". */
static struct row one_row(const struct dc_ctx *c, const struct dc_knobs *k, int i, int s, const struct dc_run *run,
                          const char *role, const struct dc_option *own, cJSON *results)
{
    const struct dc_class *cl = &c->cls[i];
    const struct dc_sysjob *j = &cl->on[s];
    const struct dc_run *base = spark_base(c, i);
    const cJSON *rec = run ? run->rec : j->proj;
    double scale = cl->workload_tokens > 0 ? cl->tokens / cl->workload_tokens : 1;
    struct row w = { s, run ? run->devices : (int)json_num(rec, "gpus", 1), run != NULL, NAN, NAN, NAN, NAN, NAN, run,
                     { 0 } };
    cJSON *r = dc_record(results, "job_row");
    cJSON_AddStringToObject(r, "workload", cl->workload);
    cJSON_AddStringToObject(r, "system", c->sys[s].id);
    cJSON_AddStringToObject(r, "role", role);
    cJSON_AddNumberToObject(r, "gpus", w.devices);
    cJSON_AddBoolToObject(r, "fits", w.fits);
    if (j->own && run == &j->base)
        cJSON_AddBoolToObject(r, "own", 1);
    dc_num(r, "tokens", cl->tokens);
    fit_json(r, rec, scale);
    dc_stack_json(r, rec, "");
    const cJSON *cal = cJSON_GetObjectItemCaseSensitive(rec, "calibrated");
    if (cJSON_IsObject(cal))        /* the team's own measured rate moved it (sr.measured) */
        cJSON_AddItemToObject(r, "calibrated", cJSON_Duplicate(cal, 1));
    if (base)
        dc_stack_json(r, base->rec, "base_");
    if (!run)
        return w;
    w.h = dc_hours(k, i, run->h), w.lo = dc_hours(k, i, run->lo), w.hi = dc_hours(k, i, run->hi);
    dc_num(r, "hours", w.h);
    dc_num(r, "hours_low", w.lo);
    dc_num(r, "hours_high", w.hi);
    cJSON_AddBoolToObject(r, "spark_base", run == base);
    if (base) {
        dc_num(r, "faster_per_job", base->h / run->h);
        dc_num(r, "faster_per_device", base->h * base->devices / (run->h * run->devices));
    }
    if (c->sys[s].power_w > 0)
        dc_num(r, "kwh", w.h * w.devices * c->sys[s].power_w / 1000);
    if (own && (own->kind != DC_OPT_SERVER || w.devices <= c->sys[s].server_gpus)) {
        w.buy = dc_busy_hour_usd(own) * w.devices * w.h;
        dc_num(r, "buy_usd", w.buy);
        dc_num(r, "buy_utilisation", own->utilisation);
    }
    struct dc_knobs any = *k;
    any.deadline_h = INFINITY;          /* the row's own configuration, at its cheapest offer */
    w.bill = dc_bill_best(c, i, s, w.devices, &any);
    if (w.bill.ok) {
        w.rent = w.bill.usd;
        rent_json(c, r, &w.bill);
        cJSON_AddBoolToObject(r, "rent_meets_deadline", w.bill.result_h <= k->deadline_h);
    }
    return w;
}

/* Row a's job bought at use u, on tmp (a copy of the inputs) with another electricity price or price
 * of the system. */
static double job_cost_at(struct dc_ctx *tmp, double kwh, double price, double u, const struct row *a)
{
    tmp->t.kwh_usd = kwh;
    tmp->sys[a->sys].price_usd = price;
    struct dc_option o;
    if (dc_unit_option(tmp, a->sys, u, &o) != 0)
        return NAN;
    return dc_busy_hour_usd(&o) * a->devices * a->h;
}

/* The x at which a cost linear in x (f0 at 0, f1 at x1) reaches `target`; NAN when no x >= 0 does. */
static double linear_tie(double f0, double f1, double x1, double target)
{
    if (!(f1 != f0))
        return NAN;
    double x = x1 * (target - f0) / (f1 - f0);
    return x >= 0 ? x : NAN;
}

/* The use at which the Spark bought costs `target` a job: its per-job cost falls as its use rises;
 * searched up to 100 (a use above 1 says no real use does). */
static double break_even_use(const struct dc_ctx *c, struct dc_ctx *tmp, const struct row *a, double target)
{
    double price = c->sys[a->sys].price_usd, lo = 1e-4, hi = 100;
    if (job_cost_at(tmp, c->t.kwh_usd, price, hi, a) > target || job_cost_at(tmp, c->t.kwh_usd, price, lo, a) < target)
        return NAN;
    for (int it = 0; it < 60; it++) {
        double mid = sqrt(lo * hi);
        if (job_cost_at(tmp, c->t.kwh_usd, price, mid, a) > target)
            lo = mid;
        else
            hi = mid;
    }
    return hi;
}

/* What ties the Spark with the cheapest HBM way, each term alone. */
static void ties_json(const struct dc_ctx *c, const struct row *a, const struct row *b, int rented, double u, cJSON *r)
{
    struct dc_ctx *tmp = malloc(sizeof *tmp);
    if (!tmp)
        return;
    *tmp = *c;
    double alt = rented ? b->rent : b->buy, price = c->sys[a->sys].price_usd;
    dc_num(r, "spark_usd_at_25", job_cost_at(tmp, c->t.kwh_usd, price, 0.25, a));
    dc_num(r, "spark_usd_at_100", job_cost_at(tmp, c->t.kwh_usd, price, 1, a));
    dc_num(r, "break_even_utilisation", break_even_use(c, tmp, a, alt));
    double e1 = fmax(c->t.kwh_usd, 0.01);
    dc_num(r, "kwh_usd_tie", linear_tie(job_cost_at(tmp, 0, price, u, a), job_cost_at(tmp, e1, price, u, a), e1, alt));
    dc_num(r, "spark_price_tie", linear_tie(job_cost_at(tmp, c->t.kwh_usd, 0, u, a),
                                            job_cost_at(tmp, c->t.kwh_usd, price, u, a), price, alt));
    if (rented)                 /* a bill is linear in its rate */
        dc_num(r, "rent_usd_per_gpu_hour_tie", c->offers[b->bill.offer].usd_per_gpu_hour * a->buy / b->rent);
    free(tmp);
}

/* How the Spark's step divides and what HBM would change: the memory-bound share of its step, the
 * HBM system's bandwidth and BF16 ratios to it, how much its step would shrink with that bandwidth
 * alone, and the BF16 rate at which the Spark's job costs what the HBM way does. */
static void binds_json(const struct dc_ctx *c, const struct row *a, const struct row *b, double alt, cJSON *r)
{
    double m = json_num(a->run->rec, "memory_bound_share", NAN);
    const struct dc_sys *sp = &c->sys[a->sys], *hb = &c->sys[b->sys];
    if (!(m >= 0 && m <= 1))
        return;
    dc_num(r, "memory_bound_share", m);
    dc_num(r, "compute_bound_share", 1 - m);
    if (sp->mem_bw_gbs > 0 && hb->mem_bw_gbs > 0) {
        double kbw = hb->mem_bw_gbs / sp->mem_bw_gbs;
        dc_num(r, "hbm_bandwidth_ratio", kbw);
        dc_num(r, "shrink_with_bandwidth", 1 / ((1 - m) + m / kbw));
    }
    if (sp->bf16_tflops > 0 && hb->bf16_tflops > 0)
        dc_num(r, "hbm_bf16_ratio", hb->bf16_tflops / sp->bf16_tflops);
    double ratio = alt / a->buy;        /* the job's cost scales with its hours: m + (1 - m) / f */
    if (sp->bf16_tflops > 0 && ratio > m) {
        dc_num(r, "bf16_tie_factor", (1 - m) / (ratio - m));
        dc_num(r, "bf16_tie_tflops", sp->bf16_tflops * (1 - m) / (ratio - m));
    }
}

/* The verdict of class i: a the Spark's row (one Spark, else the pair), b the cheapest HBM row;
 * too_big: no single Spark holds the job. */
static void verdict(const struct dc_ctx *c, int i, const struct row *a, const struct row *b, int too_big, double u,
                    cJSON *results)
{
    cJSON *r = dc_record(results, "verdict");
    cJSON_AddStringToObject(r, "workload", c->cls[i].workload);
    int rented = b && !isnan(b->rent) && !(b->buy < b->rent);
    double alt = b ? (rented ? b->rent : b->buy) : NAN;
    const char *kind = too_big ? "too-big" : !a || isnan(a->buy) || isnan(alt) ? "no-spark" : NULL;
    if (a) {
        cJSON_AddNumberToObject(r, "spark_gpus", a->devices);
        dc_num(r, "spark_hours", a->h);
        dc_num(r, "spark_usd", a->buy);
        dc_num(r, "spark_usd_low", a->buy * a->lo / a->h);
        dc_num(r, "spark_usd_high", a->buy * a->hi / a->h);
        dc_num(r, "utilisation", u);
    }
    if (b) {
        cJSON_AddStringToObject(r, "alt_system", c->sys[b->sys].id);
        cJSON_AddNumberToObject(r, "alt_gpus", b->devices);
        dc_num(r, "alt_hours", b->h);
        cJSON_AddStringToObject(r, "alt_how", rented ? "rented" : "bought");
        dc_num(r, "alt_usd", alt);
        dc_num(r, "alt_usd_low", alt * b->lo / b->h);
        dc_num(r, "alt_usd_high", alt * b->hi / b->h);
        if (rented)
            cJSON_AddStringToObject(r, "alt_offer", c->offers[b->bill.offer].id);
    }
    if (!kind) {
        double lo_a = a->buy * a->lo / a->h, hi_a = a->buy * a->hi / a->h, lo_b = alt * b->lo / b->h,
               hi_b = alt * b->hi / b->h;
        kind = fmax(lo_a, lo_b) <= fmin(hi_a, hi_b) ? "tie" : a->buy < alt ? "buy" : "rent";
        ties_json(c, a, b, rented, u, r);
    }
    if (a && b && !isnan(a->buy) && !isnan(alt))
        binds_json(c, a, b, alt, r);
    if (a)
        dc_stack_json(r, a->run->rec, "spark_");
    if (b)
        dc_stack_json(r, b->run->rec, "alt_");
    cJSON_AddStringToObject(r, "kind", kind);
}

/* Every row of class i and its verdict. */
static void class_rows(const struct dc_ctx *c, const struct dc_knobs *k, const struct dc_option *opts, int n, int i,
                       cJSON *results)
{
    const struct dc_class *cl = &c->cls[i];
    struct row a = { 0 }, best = { 0 };
    int have_a = 0, have_b = 0;
    double u = NAN;
    for (int s = 0; s < c->nsys; s++) {
        const struct dc_sysjob *j = &cl->on[s];
        struct dc_option unit;
        const struct dc_option *own = owner(c, opts, n, s, &unit);
        if (!j->proj && !j->nrun)
            continue;
        struct row rows[3];
        int nr = 0;
        rows[nr++] = one_row(c, k, i, s, j->base.devices ? &j->base : NULL, "projection", own, results);
        if (j->more.devices && j->more.devices != j->base.devices)
            rows[nr++] = one_row(c, k, i, s, &j->more, "devices", own, results);
        struct dc_knobs any = *k;       /* the cheapest way to rent it: its own line where no row above is it */
        any.deadline_h = c->has_team ? k->deadline_h : INFINITY;
        struct dc_bill cheap = dc_bill_best(c, i, s, 0, &any);
        int seen = 0;
        for (int q = 0; q < nr; q++)
            seen |= rows[q].fits && rows[q].devices == cheap.devices;
        if (cheap.ok && !seen)
            rows[nr++] = one_row(c, k, i, s, cheap.run, "rent", own, results);
        for (int q = 0; q < nr; q++) {
            struct row *w = &rows[q];
            if (!w->fits)
                continue;
            if (s == c->spark && w->run == spark_base(c, i)) {
                a = *w, have_a = 1;
                u = own ? own->utilisation : NAN;
            }
            if (s == c->spark)
                continue;
            double cost = fmin(isnan(w->rent) ? INFINITY : w->rent, isnan(w->buy) ? INFINITY : w->buy);
            double best_cost = have_b ? fmin(isnan(best.rent) ? INFINITY : best.rent, isnan(best.buy) ? INFINITY
                                             : best.buy) : INFINITY;
            if (isfinite(cost) && cost < best_cost)
                best = *w, have_b = 1;
        }
    }
    int too_big = c->spark >= 0 && cJSON_IsFalse(get(cl->on[c->spark].proj, "fits"));
    verdict(c, i, have_a ? &a : NULL, have_b ? &best : NULL, too_big, u, results);
}

void dc_rows(const struct dc_ctx *c, const struct dc_knobs *k, const struct dc_option *opts, int n, cJSON *results)
{
    for (int i = 0; i < c->nclasses; i++)
        class_rows(c, k, opts, n, i, results);
}
