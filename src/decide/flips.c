/* flips.c: what would change the team's answer, each knob alone: each GPU type's rent and every
 * rent together, the job volume, each job's size in tokens, the deadline, the Spark's speed within
 * its band. Each flip is found by scanning the knob and narrowing it by bisection, and its record
 * names the option the stage found there, with its count and cost, beside the answer's cost there:
 * the page never names another option's figures. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "decide/decide_int.h"

#define FLIP_MAX_FACTOR 1000.0  /* rent scaled up to 1000x or down to 1/1000 */
#define FLIP_MAX_VOLUME 64.0    /* job volume, job size and deadline scaled up to 64x or down to 1/64 */

/* A knob of a sensitivity, scaled by a factor from the run's own value. */
enum knob_kind { KNOB_RENT, KNOB_RENT_ALL, KNOB_VOLUME, KNOB_DEADLINE, KNOB_SIZE, KNOB_SIZE_ALL };
struct knob {
    enum knob_kind kind;
    int index;                  /* the system (KNOB_RENT) or the class (KNOB_SIZE) */
};

static struct dc_knobs knob_at(const struct dc_knobs *base, struct knob which, double f)
{
    struct dc_knobs k = *base;
    switch (which.kind) {
    case KNOB_VOLUME: k.volume *= f; break;
    case KNOB_DEADLINE: k.deadline_h *= f; break;
    case KNOB_SIZE: k.size[which.index] *= f; break;
    case KNOB_SIZE_ALL:
        for (int i = 0; i < DC_MAX_CLASSES; i++)
            k.size[i] *= f;
        break;
    case KNOB_RENT: k.rent[which.index] *= f; break;
    case KNOB_RENT_ALL:
        for (int s = 0; s < DC_MAX_SYS; s++)
            k.rent[s] *= f;
        break;
    }
    return k;
}

void dc_answer_at(const struct dc_ctx *c, const struct dc_knobs *k, char *id, size_t n, struct dc_option *best)
{
    static struct dc_option opts[DC_MAX_OPTIONS];
    int m = dc_options(c, k, opts, DC_MAX_OPTIONS), a = dc_answer(opts, m);
    snprintf(id, n, "none");
    if (a >= 0)
        dc_option_id(c, &opts[a], id, n);
    if (best && a >= 0)
        *best = opts[a];
}

/* Scans the knob by factor `step` from 1 up to `limit` (step > 1) or down to it (step < 1) for the
 * first factor where the answer is no longer `from`, then narrows it by bisection: 1 with *at (the
 * first factor that flips, within the last step's 2^(-steps)) and `to`, else 0. */
static int scan(const struct dc_ctx *c, const struct dc_knobs *base, struct knob which, double step, double limit,
                const char *from, int steps, double *at, char *to, size_t n)
{
    double prev = 1;
    for (double f = step; step > 1 ? f <= limit * 1.0001 : f >= limit * 0.9999; f *= step) {
        struct dc_knobs k = knob_at(base, which, f);
        dc_answer_at(c, &k, to, n, NULL);
        if (strcmp(to, from) == 0) {
            prev = f;
            continue;
        }
        double lo = prev, hi = f;
        for (int i = 0; i < steps; i++) {
            double mid = sqrt(lo * hi);
            k = knob_at(base, which, mid);
            dc_answer_at(c, &k, to, n, NULL);
            if (strcmp(to, from) == 0)
                lo = mid;
            else
                hi = mid;
        }
        k = knob_at(base, which, hi);
        dc_answer_at(c, &k, to, n, NULL);
        *at = hi;
        return 1;
    }
    return 0;
}

static cJSON *flip_record(cJSON *results, const char *what, const char *dir, int found, const char *to)
{
    cJSON *r = dc_record(results, "flip");
    cJSON_AddStringToObject(r, "what", what);
    cJSON_AddStringToObject(r, "direction", dir);
    cJSON_AddBoolToObject(r, "found", found);
    if (found)
        cJSON_AddStringToObject(r, "to", to);
    return r;
}

/* Where a flip happens (knobs k): every option's cost a year, the option the answer becomes (its
 * count and cost: what the page names) and the answer's own option there. */
static void flip_costs(const struct dc_ctx *c, const struct dc_knobs *k, const char *ans, cJSON *r)
{
    static struct dc_option opts[DC_MAX_OPTIONS];
    int m = dc_options(c, k, opts, DC_MAX_OPTIONS), a = dc_answer(opts, m);
    cJSON *all = cJSON_AddArrayToObject(r, "options_at_flip");
    for (int i = 0; i < m; i++) {
        char id[64];
        cJSON *o = cJSON_CreateObject();
        dc_option_id(c, &opts[i], id, sizeof id);
        cJSON_AddStringToObject(o, "option", id);
        cJSON_AddNumberToObject(o, "count", opts[i].count);
        dc_num(o, "usd_per_year", opts[i].usd_per_year);
        cJSON_AddBoolToObject(o, "meets_deadline", opts[i].meets);
        if (opts[i].keeps_up)
            dc_num(o, "result_p95_h", opts[i].q.all.result_p95_h);
        cJSON_AddItemToArray(all, o);
        if (i == a) {
            cJSON_AddNumberToObject(r, "to_count", opts[i].count);
            dc_num(r, "to_usd_per_year", opts[i].usd_per_year);
            cJSON_AddBoolToObject(r, "to_meets_deadline", opts[i].meets);
        }
        if (strcmp(id, ans) == 0) {
            cJSON_AddNumberToObject(r, "answer_count_at", opts[i].count);
            dc_num(r, "answer_usd_per_year_at", opts[i].usd_per_year);
            cJSON_AddBoolToObject(r, "answer_meets_at", opts[i].meets);
        }
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
        struct knob kn = { s < 0 ? KNOB_RENT_ALL : KNOB_RENT, s };
        int found = scan(c, k, kn, up ? 2 : 0.5, up ? FLIP_MAX_FACTOR : 1 / FLIP_MAX_FACTOR, ans, 16, &at, to,
                         sizeof to);
        cJSON *r = flip_record(results, s < 0 ? "rent_all" : "rent", up ? "above" : "below", found, to);
        if (s >= 0)
            cJSON_AddStringToObject(r, "system", c->sys[s].id);
        dc_num(r, "base_usd_per_gpu_hour", base);
        dc_num(r, "limit_factor", up ? FLIP_MAX_FACTOR : 1 / FLIP_MAX_FACTOR);
        if (found) {
            struct dc_knobs kk = knob_at(k, kn, at);
            dc_num(r, "factor", at);
            dc_num(r, "usd_per_gpu_hour", base * at);
            flip_costs(c, &kk, ans, r);
        }
    }
}

/* A knob scaled each way (up to 64x and down to 1/64) until the answer flips: the job volume (jobs a
 * month), the deadline (hours), one job's size or every job's (tokens: each job's at the flip). */
static void scaled_flips(const struct dc_ctx *c, const struct dc_knobs *k, const char *ans, struct knob kn,
                         const char *what, double base, cJSON *results)
{
    for (int d = 0; d < 2; d++) {
        double at = 0;
        char to[64];
        int found = scan(c, k, kn, d ? sqrt(0.5) : sqrt(2), d ? 1 / FLIP_MAX_VOLUME : FLIP_MAX_VOLUME, ans, 10,
                         &at, to, sizeof to);
        cJSON *r = flip_record(results, what, d ? "below" : "above", found, to);
        if (kn.kind == KNOB_SIZE)
            cJSON_AddStringToObject(r, "workload", c->cls[kn.index].workload);
        dc_num(r, "base", base);
        dc_num(r, "limit_factor", d ? 1 / FLIP_MAX_VOLUME : FLIP_MAX_VOLUME);
        if (found) {
            struct dc_knobs kk = knob_at(k, kn, at);
            dc_num(r, "factor", at);
            dc_num(r, "value", base * at);
            if (kn.kind == KNOB_SIZE_ALL) {
                cJSON *jobs = cJSON_AddArrayToObject(r, "jobs_at_flip");
                for (int i = 0; i < c->nteam; i++) {
                    cJSON *e = cJSON_CreateObject();
                    cJSON_AddStringToObject(e, "workload", c->cls[i].workload);
                    dc_num(e, "tokens", c->cls[i].tokens * kk.size[i]);
                    cJSON_AddItemToArray(jobs, e);
                }
            }
            flip_costs(c, &kk, ans, r);
        }
    }
}

/* Every job on the compiled stack on both sides (where its stack is an eager one and the projection set
 * the compiled stack beside it): the answer then, and for each such job on a Spark its eager stack's speed
 * against the compiled one's (what the page says of Hugging Face's stack on a GB10). A flip record whether
 * or not the answer moves, since the page says either. */
static void compiled_flip(const struct dc_ctx *c, const struct dc_knobs *k, const char *ans, cJSON *results)
{
    struct dc_knobs comp = *k;
    char to[64];
    int any = 0;
    comp.compiled = 1;
    cJSON *jobs = cJSON_CreateArray();
    for (int i = 0; i < c->nteam; i++) {
        for (int s = 0; s < c->nsys; s++) {
            const struct dc_run *r = &c->cls[i].on[s].base;
            if (r->devices == 0 || !(r->compiled_h > 0))
                continue;
            any = 1;
            if (s != c->spark)
                continue;
            cJSON *e = cJSON_CreateObject();
            cJSON_AddStringToObject(e, "workload", c->cls[i].workload);
            dc_stack_json(e, r->rec, "");
            dc_copy_str(e, cJSON_GetObjectItemCaseSensitive(r->rec, "compiled"), "stack_name", "compiled_stack_name");
            dc_copy_str(e, cJSON_GetObjectItemCaseSensitive(r->rec, "compiled"), "stack_era", "compiled_stack_era");
            dc_num(e, "spark_h", dc_hours(k, i, r->h));
            dc_num(e, "spark_compiled_h", dc_hours(k, i, r->compiled_h));
            dc_num(e, "speed_of_compiled", r->compiled_h / r->h);
            cJSON_AddItemToArray(jobs, e);
        }
    }
    if (!any) {
        cJSON_Delete(jobs);
        return;
    }
    dc_answer_at(c, &comp, to, sizeof to, NULL);
    cJSON *r = flip_record(results, "compiled_stack", "both", strcmp(to, ans) != 0, to);
    cJSON_AddStringToObject(r, "answer_there", to);
    cJSON_AddItemToObject(r, "jobs", jobs);
    flip_costs(c, &comp, ans, r);
}

void dc_flips(const struct dc_ctx *c, const struct dc_knobs *k, const char *ans, cJSON *results)
{
    double jobs = 0;
    char to[64];
    for (int i = 0; i < c->nteam; i++)
        jobs += c->cls[i].per_month;
    rent_flips(c, k, ans, results);
    scaled_flips(c, k, ans, (struct knob){ KNOB_VOLUME, 0 }, "volume", jobs, results);
    scaled_flips(c, k, ans, (struct knob){ KNOB_SIZE_ALL, 0 }, "tokens_all", 1, results);
    for (int i = 0; i < c->nteam && c->nteam > 1; i++)
        scaled_flips(c, k, ans, (struct knob){ KNOB_SIZE, i }, "tokens", c->cls[i].tokens * k->size[i], results);
    scaled_flips(c, k, ans, (struct knob){ KNOB_DEADLINE, 0 }, "deadline", k->deadline_h, results);
    struct dc_knobs fast = *k;
    fast.spark_fast = 1;        /* the fastest a GB10 is projected to run: the fast end of its band */
    dc_answer_at(c, &fast, to, sizeof to, NULL);
    cJSON *r = flip_record(results, "spark_speed", "faster", strcmp(to, ans) != 0, to);
    if (strcmp(to, ans) != 0)
        flip_costs(c, &fast, ans, r);
    compiled_flip(c, k, ans, results);
}
