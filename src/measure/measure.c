/* measure.c: the one measuring harness (measure.h): the DRAM-sized working set, the timing
 * parameters, the repetitions per sample (measure_iterations), the repetition loop and the records it writes. What is
 * measured, and whether it is right, stays with the families. */
#include "measure/measure.h"

#include <math.h>
#include <stdlib.h>

#include "cuda/cuda_words.h"
#include "net/plan.h"
#include "util/error.h"
#include "util/progress.h"
#include "util/stats.h"
#include "util/timing.h"

double measure_dram_bytes(double cache_total_bytes)
{
    double s = MEASURE_DRAM_FACTOR * (cache_total_bytes > 0 ? cache_total_bytes : 0);
    return s > MEASURE_DRAM_FLOOR ? s : MEASURE_DRAM_FLOOR;
}

void measure_rule_from(struct measure_rule *r, const cJSON *params)
{
    r->warmup = (int)param_num(params, "warmup");
    r->min_reps = (int)param_num(params, "min_reps");
    r->max_reps = (int)param_num(params, "max_reps");
    if (r->max_reps < r->min_reps)
        r->max_reps = r->min_reps;
    r->cv = param_num(params, "cv");
    r->sample_s = fmax(param_num(params, "sample_s"), 20.0 * timing_tick());
    r->budget_s = 0;
}

double measure_budget(const cJSON *params, double share_s)
{
    const cJSON *b = cJSON_GetObjectItemCaseSensitive(params, "budget_s");
    return cJSON_IsNumber(b) ? b->valuedouble : share_s;
}

long measure_iterations(double (*run)(void *ud, long iters), void *ud, double sample_s, double first_s)
{
    double prev = INFINITY, spent = 0;
    long iters = 1;
    if (first_s >= 4 * sample_s)            /* long enough that a fixed cost hardly matters */
        return 1;
    for (int round = 0; round < 60 && iters < 1000000000L && spent < 40 * sample_s; round++) {
        double t1 = run(ud, iters), t2 = run(ud, iters), t = fmin(t1, t2);
        double per = t / (double)iters;
        spent += fmax(t1, 0) + fmax(t2, 0);
        if (!(t >= 0) || progress_cut())    /* a failed or abandoned run: the samples will say so */
            break;
        if (t >= sample_s && (per > 0.9 * prev || t >= 20 * sample_s))
            break;
        prev = t >= sample_s ? per : INFINITY;
        double grow = t >= sample_s ? 2.0 : t > 0 ? 1.2 * sample_s / t : 10.0;
        iters = (long)ceil((double)iters * fmin(fmax(grow, 1.5), 1000.0));
    }
    return iters;
}

int measure_repeat(cJSON *rec, const struct measure_rule *r, double (*sample)(void *ud), void *ud)
{
    struct stats_rule rule = { r->min_reps, r->max_reps > r->min_reps ? r->max_reps : r->min_reps, r->cv,
                               r->budget_s };
    for (int w = 0; w < r->warmup && !progress_cut(); w++)
        sample(ud);
    double *x = xmalloc((size_t)rule.max_reps * sizeof *x), t0 = timing_now();
    int n = 0, cut;
    enum stats_stop stop = STATS_GO_ON;
    do {                                /* one sample at least: a kernel that gave up returns NAN */
        x[n] = sample(ud);
        cut = progress_cut();
        n += !cut || isfinite(x[n]);
    } while (!cut && (stop = stats_should_stop(&rule, x, n, timing_now() - t0)) == STATS_GO_ON);
    if (n == 0) {
        free(x);
        return 0;
    }
    cJSON_AddNumberToObject(rec, "warmup", r->warmup);
    cJSON_AddStringToObject(rec, "stop", !cut ? stats_stop_name(stop) : progress_stopping() ? "signal" : "deadline");
    cJSON_AddItemToObject(rec, "samples_s", cJSON_CreateDoubleArray(x, n));
    cJSON *t = measure_stats(x, n);
    cJSON_AddItemToObject(rec, "time_s", t);
    cJSON_AddNumberToObject(rec, "cv_target", r->cv);
    double cv = cJSON_GetObjectItemCaseSensitive(t, "cv")->valuedouble;
    cJSON_AddBoolToObject(rec, "settled", stop == STATS_STOP_CV || cv < r->cv);
    free(x);
    return n;
}

cJSON *measure_stats(const double *x, int n)
{
    struct stats s;
    stats_compute(x, n, &s);
    cJSON *t = cJSON_CreateObject();
    cJSON_AddNumberToObject(t, "min", s.min);
    cJSON_AddNumberToObject(t, "median", s.median);
    cJSON_AddNumberToObject(t, "max", s.max);
    cJSON_AddNumberToObject(t, "mean", s.mean);
    cJSON_AddNumberToObject(t, "sd", s.sd);
    cJSON_AddNumberToObject(t, "cv", s.cv);
    cJSON_AddNumberToObject(t, "ci95_lo", s.ci_lo);
    cJSON_AddNumberToObject(t, "ci95_hi", s.ci_hi);
    return t;
}

double measure_median(const double *x, int n)
{
    struct stats s;
    stats_compute(x, n, &s);
    return s.median;
}

double measure_time(const cJSON *rec, const char *stat)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(rec, "time_s"), stat);
    return cJSON_IsNumber(v) && v->valuedouble > 0 ? v->valuedouble : NAN;
}

int measure_rates(cJSON *rec, const char *name, double amount)
{
    double tmin = measure_time(rec, "min"), tmed = measure_time(rec, "median");
    char key[64];
    if (isnan(tmin) || isnan(tmed))
        return -1;
    snprintf(key, sizeof key, "%s_best", name);
    cJSON_AddNumberToObject(rec, key, amount / tmin / 1e9);
    snprintf(key, sizeof key, "%s_median", name);
    cJSON_AddNumberToObject(rec, key, amount / tmed / 1e9);
    return 0;
}

cJSON *measure_class_medians(const struct net_op *plan, int nops, const double *op_s, int n)
{
    cJSON *bc = cJSON_CreateObject();
    double *col = xmalloc((size_t)(n > 0 ? n : 1) * sizeof *col);
    for (int c = 0; c < NET_NCLASSES && n > 0; c++) {
        for (int k = 0; k < n; k++) {
            col[k] = 0;
            for (int i = 0; i < nops; i++)
                if ((int)net_kinds[plan[i].kind].cls == c)
                    col[k] += op_s[(size_t)k * nops + i];
        }
        cJSON_AddNumberToObject(bc, net_class_names[c], measure_median(col, n));
    }
    free(col);
    return bc;
}

void measure_skip(cJSON *skipped, const char *item, const char *reason)
{
    cJSON *s = cJSON_CreateObject();
    cJSON_AddStringToObject(s, "item", item);
    cJSON_AddStringToObject(s, "reason", cuda_words_once(reason));     /* a lost GPU context told once */
    cJSON_AddItemToArray(skipped, s);
}
