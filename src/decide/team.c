/* team.c: the team's fields checked where they enter and turned into struct team: the scalars
 * through one parameter table (limits, defaults, help), each job and offer through its own, the
 * lists for duplicates and size. The defaults of the ownership terms carry their sources here,
 * once; the report prints them from the results. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decide/team.h"
#include "predict/workloads.h"
#include "util/param.h"

const struct param team_params[] = {
    { "people", PARAM_INT, 0, NULL, NULL, "1", 1, 100000, "people who share the machines" },
    { "deadline_h", PARAM_NUM, 0, NULL, NULL, "24", 0.1, 8766,
      "hours a result may take, from asking to result (queue wait included)" },
    { "life_years", PARAM_NUM, 0, NULL, NULL, "3", 0.25, 20, "years a purchase is spread over (straight-line)" },
    { "kwh_usd", PARAM_NUM, 0, NULL, NULL, "0.15", 0.001, 10, "electricity price, USD per kWh" },
    { "pue", PARAM_NUM, 0, NULL, NULL, "1.56", 1, 3, "power usage effectiveness of the room a server stands in" },
    { "facility_usd_per_kw_month", PARAM_NUM, 0, NULL, NULL, "196", 0, 5000,
      "rack space and power capacity for a server, USD per kW of its maximum power per month" },
    { "support_share", PARAM_NUM, 0, NULL, NULL, "0.2", 0, 1,
      "a server's support contract per year, as a share of its price" },
    { "setup_h", PARAM_NUM, 0, NULL, NULL, "0.25", 0, 48,
      "hours a rented instance runs before the job starts (start-up, copying the model and data)" },
    { "seed", PARAM_INT, 0, NULL, NULL, "1", 0, 2147483647, "seed of the simulated arrivals" },
    { "months", PARAM_INT, 0, NULL, NULL, "240", 12, 1200, "months of arrivals simulated" },
    { "max_sparks", PARAM_INT, 0, NULL, NULL, "64", 1, 256, "the most Sparks an option may have" },
    { NULL, 0, 0, NULL, NULL, NULL, 0, 0, NULL },
};

/* Where each cited default comes from; a term without a row is the team's own or an assumption
 * that says so. */
static const struct { const char *field; double value; const char *source; } defaults[] = {
    { "kwh_usd", 0.15, "within the range of US commercial electricity prices by state in EIA's Electric Power "
      "Monthly, Table 5.6.A (April 2025: from under 10 to over 24 cents per kWh)" },
    { "pue", 1.56, "Uptime Institute Global Data Center Survey 2024: average annual power usage effectiveness "
      "operators report for their largest data center" },
    { "facility_usd_per_kw_month", 196, "Encor Advisors, 'Data Center Colocation Pricing: 2026 Cost Per Rack & kW': "
      "250-500 kW deployments in primary North American markets approaching about $196 per kW per month "
      "in H2 2025 (smaller deployments pay more)" },
    { "support_share", 0.2, "supercluster.blog, 'AI Supercluster: NVIDIA DGX Platform': DGX H100 list price "
      "$199,000, one year of support about $39,800 (20 % of the base price)" },
    { "setup_h", 0.25, "an assumption of this report (an instance starting and the model and data copied to it), "
      "not a measurement: give your own" },
    { "life_years", 3, "an assumption of this report (the scenario's life_years): give your own" },
};

const char *team_default_source(const char *field, double *value)
{
    for (size_t i = 0; i < sizeof defaults / sizeof defaults[0]; i++)
        if (strcmp(defaults[i].field, field) == 0) {
            if (value)
                *value = defaults[i].value;
            return defaults[i].source;
        }
    return NULL;
}

/* "gpt2-124m|gpt2-355m|...": the choices of a job's workload, built once. */
static const char *workload_choices(void)
{
    static char buf[2048];
    if (!buf[0]) {
        size_t o = 0;
        for (int i = 0; i < predict_nworkloads && o < sizeof buf; i++)
            o += (size_t)snprintf(buf + o, sizeof buf - o, "%s%s", i ? "|" : "", predict_workloads[i].id);
    }
    return buf;
}

static struct param job_params[] = {
    { "workload", PARAM_ENUM, 0, NULL, NULL, "gpt2-124m", 0, 0, "the reference workload the job runs" },
    { "per_month", PARAM_NUM, 0, NULL, NULL, "1", 0.01, TEAM_MAX_JOBS_PER_MONTH, "jobs of it a month" },
    { "tokens", PARAM_NUM, 0, "workload", NULL, "workload", 1e3, TEAM_MAX_TOKENS,
      "tokens one job trains on (workload: the workload's own figure, the projection's)" },
    { "samples", PARAM_NUM, 0, "none", NULL, "none", 1, 1e12, "samples one job trains on (with tokens_per_sample)" },
    { "tokens_per_sample", PARAM_NUM, 0, "none", NULL, "none", 1, 1e7, "tokens of a sample, padding included" },
    { "epochs", PARAM_NUM, 0, "none", NULL, "none", 0.01, 1000, "passes over the data set (with dataset_tokens)" },
    { "dataset_tokens", PARAM_NUM, 0, "none", NULL, "none", 1e3, TEAM_MAX_TOKENS, "tokens of the data set" },
    { NULL, 0, 0, NULL, NULL, NULL, 0, 0, NULL },
};

const struct param *team_job_params(void)
{
    job_params[0].choices = workload_choices();
    return job_params;
}

const char *team_size_name(const struct team_job *j)
{
    static const char *const names[] = { "workload", "tokens", "samples", "epochs" };
    return names[j->size];
}

/* A number field of a checked job, or 0 when it holds its keyword (not given). */
static double given_num(const cJSON *norm, const char *field)
{
    const cJSON *v = param_get(norm, field);
    return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

/* The job's size: one of tokens, samples with tokens_per_sample, epochs with dataset_tokens, or none
 * (the workload's); a half pair or two forms at once are refused naming the fields. */
static int job_size(const cJSON *norm, const char *path, struct team_job *tj, char *err, size_t errlen)
{
    tj->tokens = given_num(norm, "tokens");
    tj->samples = given_num(norm, "samples"), tj->tokens_per_sample = given_num(norm, "tokens_per_sample");
    tj->epochs = given_num(norm, "epochs"), tj->dataset_tokens = given_num(norm, "dataset_tokens");
    int forms = (tj->tokens > 0) + (tj->samples > 0 || tj->tokens_per_sample > 0) + (tj->epochs > 0 || tj->dataset_tokens > 0);
    if (forms > 1) {
        snprintf(err, errlen, "%s gives its size twice: give tokens, or samples with tokens_per_sample, or epochs "
                 "with dataset_tokens", path);
        return -1;
    }
    if ((tj->samples > 0) != (tj->tokens_per_sample > 0) || (tj->epochs > 0) != (tj->dataset_tokens > 0)) {
        snprintf(err, errlen, "%s gives %s without %s: a job's size is samples x tokens_per_sample or epochs x "
                 "dataset_tokens", path, tj->samples > 0 ? "samples" : tj->tokens_per_sample > 0 ? "tokens_per_sample"
                 : tj->epochs > 0 ? "epochs" : "dataset_tokens", tj->samples > 0 ? "tokens_per_sample"
                 : tj->tokens_per_sample > 0 ? "samples" : tj->epochs > 0 ? "dataset_tokens" : "epochs");
        return -1;
    }
    tj->size = tj->tokens > 0 ? TEAM_SIZE_TOKENS : tj->samples > 0 ? TEAM_SIZE_SAMPLES
               : tj->epochs > 0 ? TEAM_SIZE_EPOCHS : TEAM_SIZE_WORKLOAD;
    if (tj->size == TEAM_SIZE_SAMPLES)
        tj->tokens = tj->samples * tj->tokens_per_sample;
    if (tj->size == TEAM_SIZE_EPOCHS)
        tj->tokens = tj->epochs * tj->dataset_tokens;
    if (tj->size != TEAM_SIZE_WORKLOAD && !(tj->tokens >= 1e3 && tj->tokens <= TEAM_MAX_TOKENS)) {
        snprintf(err, errlen, "%s: %s make %.6g tokens a job; from 1000 to %.0e", path,
                 tj->size == TEAM_SIZE_SAMPLES ? "samples x tokens_per_sample" : "epochs x dataset_tokens", tj->tokens,
                 TEAM_MAX_TOKENS);
        return -1;
    }
    return 0;
}

static const struct param offer_params[] = {
    { "id", PARAM_STR, 0, NULL, NULL, "", 0, 0, "the offer's name" },
    { "system", PARAM_STR, 0, NULL, NULL, "", 0, 0, "the catalog system it rents" },
    { "provider", PARAM_STR, 0, NULL, NULL, "", 0, 0, "who rents it" },
    { "product", PARAM_STR, 0, NULL, NULL, "", 0, 0, "the instance as the provider names it" },
    { "usd_per_gpu_hour", PARAM_NUM, 0, NULL, NULL, "1", 0.01, 10000, "USD per GPU-hour" },
    { "instance_gpus", PARAM_INT, PARAM_LIST, NULL, NULL, "1", 1, 64, "GPUs an instance can have" },
    { "billing_step_s", PARAM_NUM, 0, NULL, NULL, "3600", 1, 86400, "billing step, seconds" },
    { "min_billed_s", PARAM_NUM, 0, NULL, NULL, "0", 0, 86400, "least time billed, seconds" },
    { "source", PARAM_STR, 0, NULL, NULL, "", 0, 0, "where the price and terms come from" },
    { "date", PARAM_STR, 0, NULL, NULL, "", 0, 0, "when they were read" },
    { "notes", PARAM_STR, 0, NULL, NULL, "", 0, 0, "anything else" },
    { NULL, 0, 0, NULL, NULL, NULL, 0, 0, NULL },
};

/* A string field of a checked table into buf: refused when empty (if required) or too long. */
static int text(const cJSON *norm, const char *path, const char *field, char *buf, size_t n, int required,
                char *err, size_t errlen)
{
    const char *v = param_str(norm, field);
    if (required && !v[0]) {
        snprintf(err, errlen, "%s.%s is missing or empty: an offer names it", path, field);
        return -1;
    }
    if (strlen(v) >= n) {
        snprintf(err, errlen, "%s.%s is %zu characters long; at most %zu", path, field, strlen(v), n - 1);
        return -1;
    }
    snprintf(buf, n, "%s", v);
    return 0;
}

static int cmp_int(const void *a, const void *b)
{
    return *(const int *)a - *(const int *)b;
}

int team_offer_parse(const cJSON *row, const char *path, struct team_offer *o, char *err, size_t errlen)
{
    memset(o, 0, sizeof *o);
    cJSON *norm = param_check(path, offer_params, row, err, errlen);
    if (!norm)
        return -1;
    int rc = -1;
    if (text(norm, path, "id", o->id, sizeof o->id, 1, err, errlen) || text(norm, path, "system", o->system,
        sizeof o->system, 1, err, errlen) || text(norm, path, "provider", o->provider, sizeof o->provider, 1, err,
        errlen) || text(norm, path, "product", o->product, sizeof o->product, 0, err, errlen) || text(norm, path,
        "source", o->source, sizeof o->source, 1, err, errlen) || text(norm, path, "date", o->date, sizeof o->date,
        1, err, errlen))
        goto done;
    o->usd_per_gpu_hour = param_num(norm, "usd_per_gpu_hour");
    o->billing_step_h = param_num(norm, "billing_step_s") / 3600;
    o->min_billed_h = param_num(norm, "min_billed_s") / 3600;
    const cJSON *s, *sizes = param_get(norm, "instance_gpus");
    cJSON_ArrayForEach(s, sizes) {
        if (o->nsizes == TEAM_MAX_SIZES) {
            snprintf(err, errlen, "%s.instance_gpus lists more than %d sizes", path, TEAM_MAX_SIZES);
            goto done;
        }
        for (int k = 0; k < o->nsizes; k++)
            if (o->sizes[k] == (int)s->valuedouble) {
                snprintf(err, errlen, "%s.instance_gpus lists %d twice", path, o->sizes[k]);
                goto done;
            }
        o->sizes[o->nsizes++] = (int)s->valuedouble;
    }
    qsort(o->sizes, (size_t)o->nsizes, sizeof o->sizes[0], cmp_int);
    rc = 0;
done:
    cJSON_Delete(norm);
    return rc;
}

static int parse_job_list(const cJSON *jobs, struct team *t, double *sum, char *err, size_t errlen)
{
    const cJSON *j;
    double total = 0;
    if (!cJSON_IsArray(jobs) || cJSON_GetArraySize(jobs) == 0) {
        snprintf(err, errlen, "team.jobs must list the team's jobs, e.g. { { workload = \"llama-3.1-8b-lora\", "
                 "per_month = 40 } }");
        return -1;
    }
    if (cJSON_GetArraySize(jobs) > TEAM_MAX_JOBS) {
        snprintf(err, errlen, "team.jobs lists %d jobs; at most %d", cJSON_GetArraySize(jobs), TEAM_MAX_JOBS);
        return -1;
    }
    cJSON_ArrayForEach(j, jobs) {
        char path[48];
        snprintf(path, sizeof path, "team.jobs[%d]", t->njobs + 1);
        cJSON *norm = param_check(path, job_params, j, err, errlen);
        if (!norm)
            return -1;
        if (!cJSON_GetObjectItemCaseSensitive(j, "workload") || !cJSON_GetObjectItemCaseSensitive(j, "per_month")) {
            snprintf(err, errlen, "%s needs a workload and per_month (jobs of it a month)", path);
            cJSON_Delete(norm);
            return -1;
        }
        struct team_job *tj = &t->jobs[t->njobs];
        snprintf(tj->workload, sizeof tj->workload, "%s", param_str(norm, "workload"));
        tj->per_month = param_num(norm, "per_month");
        int bad = job_size(norm, path, tj, err, errlen);
        cJSON_Delete(norm);
        if (bad)
            return -1;
        for (int k = 0; k < t->njobs; k++)
            if (strcmp(t->jobs[k].workload, tj->workload) == 0) {
                snprintf(err, errlen, "%s: workload '%s' is listed twice (team.jobs[%d] and [%d]); give it once with "
                         "its jobs per month added up", path, tj->workload, k + 1, t->njobs + 1);
                return -1;
            }
        total += tj->per_month;
        t->njobs++;
    }
    *sum = total;
    return 0;
}

/* The team's jobs: each a reference workload's id or the name of one of the scenario's jobs (named). */
static int parse_jobs(const cJSON *jobs, const cJSON *named, struct team *t, char *err, size_t errlen)
{
    const cJSON *j;
    double total = 0;
    char choices[4096];
    size_t o = (size_t)snprintf(choices, sizeof choices, "%s", workload_choices());
    cJSON_ArrayForEach(j, named) {          /* the scenario's jobs (sr.job), by name, beside the workloads */
        const cJSON *nm = cJSON_GetObjectItemCaseSensitive(j, "name");
        if (cJSON_IsString(nm) && o < sizeof choices)
            o += (size_t)snprintf(choices + o, sizeof choices - o, "|%s", nm->valuestring);
    }
    team_job_params();
    job_params[0].choices = choices;
    int rc = parse_job_list(jobs, t, &total, err, errlen);
    job_params[0].choices = workload_choices();
    if (rc != 0)
        return -1;
    if (total > TEAM_MAX_JOBS_PER_MONTH) {
        snprintf(err, errlen, "team.jobs add up to %.15g jobs a month; at most %d", total, TEAM_MAX_JOBS_PER_MONTH);
        return -1;
    }
    return 0;
}


static int parse_offers(const cJSON *offers, struct team *t, char *err, size_t errlen)
{
    const cJSON *o;
    if (!offers)
        return 0;
    if (!cJSON_IsArray(offers) || cJSON_GetArraySize(offers) == 0 || cJSON_GetArraySize(offers) > TEAM_MAX_OFFERS) {
        snprintf(err, errlen, "team.offers must list 1 to %d offers (leave it out for the catalog's)", TEAM_MAX_OFFERS);
        return -1;
    }
    cJSON_ArrayForEach(o, offers) {
        char path[48];
        snprintf(path, sizeof path, "team.offers[%d]", t->noffers + 1);
        if (team_offer_parse(o, path, &t->offers[t->noffers], err, errlen) != 0)
            return -1;
        for (int k = 0; k < t->noffers; k++)
            if (strcmp(t->offers[k].id, t->offers[t->noffers].id) == 0) {
                snprintf(err, errlen, "%s.id '%s' is the id of team.offers[%d] too", path, t->offers[k].id, k + 1);
                return -1;
            }
        t->noffers++;
    }
    return 0;
}

/* A number too small to be a figure of this kind (a subnormal double) anywhere in j: refused with
 * its path, so that 1e-310 jobs a month is not read as a tiny but real workload. */
static int subnormal(const cJSON *j, const char *path, char *err, size_t errlen)
{
    if (cJSON_IsNumber(j) && j->valuedouble != 0 && fabs(j->valuedouble) < DBL_MIN) {
        snprintf(err, errlen, "%s = %.17g is too small to be a real figure (a subnormal number)", path, j->valuedouble);
        return -1;
    }
    int i = 0;
    for (const cJSON *c = j ? j->child : NULL; c; c = c->next, i++) {
        char sub[160];
        if (c->string)
            snprintf(sub, sizeof sub, "%.100s.%.40s", path, c->string);
        else
            snprintf(sub, sizeof sub, "%.100s[%d]", path, i + 1);
        if (subnormal(c, sub, err, errlen) != 0)
            return -1;
    }
    return 0;
}

/* The scalars of a checked table into t. */
static void scalars_of(const cJSON *norm, struct team *t)
{
    t->people = (int)param_num(norm, "people");
    t->deadline_h = param_num(norm, "deadline_h");
    t->life_years = param_num(norm, "life_years");
    t->kwh_usd = param_num(norm, "kwh_usd");
    t->pue = param_num(norm, "pue");
    t->facility_usd_per_kw_month = param_num(norm, "facility_usd_per_kw_month");
    t->support_share = param_num(norm, "support_share");
    t->setup_h = param_num(norm, "setup_h");
    t->seed = (unsigned long)param_num(norm, "seed");
    t->months = (int)param_num(norm, "months");
    t->max_sparks = (int)param_num(norm, "max_sparks");
}

void team_defaults(struct team *t)
{
    char err[256];
    memset(t, 0, sizeof *t);
    cJSON *norm = param_check("team", team_params, NULL, err, sizeof err);
    if (norm)
        scalars_of(norm, t);
    cJSON_Delete(norm);
}

int team_parse(const cJSON *given, const cJSON *jobs, struct team *t, char *err, size_t errlen)
{
    memset(t, 0, sizeof *t);
    if (!cJSON_IsObject(given)) {
        snprintf(err, errlen, "team must be a table (sr.team { people = ..., jobs = { ... }, deadline_h = ... })");
        return -1;
    }
    if (subnormal(given, "team", err, errlen) != 0)
        return -1;
    cJSON *scalars = cJSON_Duplicate(given, 1);
    cJSON_DeleteItemFromObjectCaseSensitive(scalars, "jobs");
    cJSON_DeleteItemFromObjectCaseSensitive(scalars, "offers");
    cJSON *norm = param_check("team", team_params, scalars, err, errlen);
    cJSON_Delete(scalars);
    if (!norm)
        return -1;
    scalars_of(norm, t);
    cJSON_Delete(norm);
    if (parse_jobs(cJSON_GetObjectItemCaseSensitive(given, "jobs"), jobs, t, err, errlen) != 0)
        return -1;
    return parse_offers(cJSON_GetObjectItemCaseSensitive(given, "offers"), t, err, errlen);
}

cJSON *team_offer_json(const struct team_offer *o)
{
    cJSON *j = cJSON_CreateObject(), *sizes = cJSON_AddArrayToObject(j, "instance_gpus");
    cJSON_AddStringToObject(j, "id", o->id);
    cJSON_AddStringToObject(j, "system", o->system);
    cJSON_AddStringToObject(j, "provider", o->provider);
    cJSON_AddStringToObject(j, "product", o->product);
    cJSON_AddNumberToObject(j, "usd_per_gpu_hour", o->usd_per_gpu_hour);
    for (int k = 0; k < o->nsizes; k++)
        cJSON_AddItemToArray(sizes, cJSON_CreateNumber(o->sizes[k]));
    cJSON_AddNumberToObject(j, "billing_step_s", o->billing_step_h * 3600);
    cJSON_AddNumberToObject(j, "min_billed_s", o->min_billed_h * 3600);
    cJSON_AddStringToObject(j, "source", o->source);
    cJSON_AddStringToObject(j, "date", o->date);
    return j;
}

cJSON *team_json(const struct team *t)
{
    cJSON *j = cJSON_CreateObject(), *jobs = cJSON_AddArrayToObject(j, "jobs");
    cJSON_AddNumberToObject(j, "people", t->people);
    cJSON_AddNumberToObject(j, "deadline_h", t->deadline_h);
    for (int i = 0; i < t->njobs; i++) {
        const struct team_job *tj = &t->jobs[i];
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "workload", tj->workload);
        cJSON_AddNumberToObject(e, "per_month", tj->per_month);
        if (tj->size == TEAM_SIZE_TOKENS)
            cJSON_AddNumberToObject(e, "tokens", tj->tokens);
        if (tj->size == TEAM_SIZE_SAMPLES) {
            cJSON_AddNumberToObject(e, "samples", tj->samples);
            cJSON_AddNumberToObject(e, "tokens_per_sample", tj->tokens_per_sample);
        }
        if (tj->size == TEAM_SIZE_EPOCHS) {
            cJSON_AddNumberToObject(e, "epochs", tj->epochs);
            cJSON_AddNumberToObject(e, "dataset_tokens", tj->dataset_tokens);
        }
        cJSON_AddItemToArray(jobs, e);
    }
    cJSON_AddNumberToObject(j, "life_years", t->life_years);
    cJSON_AddNumberToObject(j, "kwh_usd", t->kwh_usd);
    cJSON_AddNumberToObject(j, "pue", t->pue);
    cJSON_AddNumberToObject(j, "facility_usd_per_kw_month", t->facility_usd_per_kw_month);
    cJSON_AddNumberToObject(j, "support_share", t->support_share);
    cJSON_AddNumberToObject(j, "setup_h", t->setup_h);
    cJSON_AddNumberToObject(j, "seed", (double)t->seed);
    cJSON_AddNumberToObject(j, "months", t->months);
    cJSON_AddNumberToObject(j, "max_sparks", t->max_sparks);
    if (t->noffers > 0) {
        cJSON *offers = cJSON_AddArrayToObject(j, "offers");
        for (int i = 0; i < t->noffers; i++)
            cJSON_AddItemToArray(offers, team_offer_json(&t->offers[i]));
    }
    return j;
}
