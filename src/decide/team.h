/* team.h: the team a decision is made for, parsed once where it enters (a scenario's sr.team {...},
 * or the copy a results file holds) into a typed struct: who they are, the jobs they run per month,
 * how long a result may take, the terms of owning a machine and the rental offers they may take.
 * Every field is checked here and a bad one refused naming its path and value; nothing downstream
 * looks a field up by name again. What the team costs is decide.c's. */
#ifndef SR_DECIDE_TEAM_H
#define SR_DECIDE_TEAM_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "util/param.h"

#define TEAM_MAX_JOBS 32
#define TEAM_MAX_OFFERS 64
#define TEAM_MAX_SIZES 8
#define TEAM_MAX_JOBS_PER_MONTH 10000   /* all jobs together: the simulation's size bound */
#define TEAM_MAX_TOKENS 1e15            /* tokens of one job (the results' limit on a workload's) */

/* A job's size, as its owner gives it: tokens a job, samples x tokens a sample, or epochs over a data
 * set; none: the workload's own tokens (the projection's). */
enum team_size { TEAM_SIZE_WORKLOAD = 0, TEAM_SIZE_TOKENS, TEAM_SIZE_SAMPLES, TEAM_SIZE_EPOCHS };

struct team_job {
    char workload[48];          /* a reference workload id (src/predict/workloads.c) */
    double per_month;           /* jobs of it a month, > 0 */
    enum team_size size;        /* how its size was given */
    double tokens;              /* tokens one job trains on; 0: the workload's (TEAM_SIZE_WORKLOAD) */
    double samples, tokens_per_sample;  /* TEAM_SIZE_SAMPLES: tokens = samples x tokens_per_sample */
    double epochs, dataset_tokens;      /* TEAM_SIZE_EPOCHS: tokens = epochs x dataset_tokens */
};

/* A way to rent GPUs: a provider's instance of one catalog system, its price and billing terms. */
struct team_offer {
    char id[48], system[48];    /* offer id, catalog system id */
    char provider[64], product[96], source[600], date[32];
    double usd_per_gpu_hour;    /* what one GPU of the instance costs an hour */
    int sizes[TEAM_MAX_SIZES];  /* GPUs an instance can have, ascending ("1|2|4|8" or "8") */
    int nsizes;
    double billing_step_h;      /* billed time is rounded up to whole steps */
    double min_billed_h;        /* and is at least this */
};

struct team {
    int people;                 /* who share the machines */
    double deadline_h;          /* a result may take this long, arrival to result */
    int njobs;
    struct team_job jobs[TEAM_MAX_JOBS];
    /* owning a machine */
    double life_years;          /* a purchase spread over this many years, straight-line */
    double kwh_usd;             /* electricity, USD per kWh */
    double pue;                 /* facility power over IT power of a server room (>= 1) */
    double facility_usd_per_kw_month;   /* rack space and power capacity, per kW of a server's maximum */
    double support_share;       /* a server's support contract a year, as a share of its price */
    /* renting */
    double setup_h;             /* hours an instance runs before the job: start, staging data */
    int noffers;                /* 0: the catalog's offers (data/offers.csv) */
    struct team_offer offers[TEAM_MAX_OFFERS];
    /* the simulation */
    unsigned long seed;
    int months;                 /* months of arrivals simulated */
    int max_sparks;             /* the most Sparks an option may have */
};

/* The team's scalar fields (limits, defaults, help), for sparkreport list; jobs and offers are
 * lists checked entry by entry, a job against team_job_params. */
extern const struct param team_params[];
const struct param *team_job_params(void);

/* Parses `given` (a table: people, jobs = { { workload = ID, per_month = N }, ... }, deadline_h,
 * the terms, offers) into t, defaults filled. 0, or -1 with err = "team.FIELD: why (value)". The
 * workload ids are checked against the reference workloads; offer systems are the caller's to
 * check against its catalog. */
int team_parse(const cJSON *given, const cJSON *jobs, struct team *t, char *err, size_t errlen);

/* The team of a results file that has none: every term at its default, no jobs (the decision then
 * costs the scenario's decide list per job, on the scenario's own life, electricity and use). */
void team_defaults(struct team *t);

/* "samples", "epochs", "tokens", "workload": how job j's size was given, as its record says it. */
const char *team_size_name(const struct team_job *j);

/* One offer row (a scenario's, or a data/offers.csv row as the catalog block carries it, numbers
 * as numbers) into o; `path` names it in messages ("team.offers[2]", "catalog.offers.rows[3]"). */
int team_offer_parse(const cJSON *row, const char *path, struct team_offer *o, char *err, size_t errlen);

/* An offer as a table again (the form team_offer_parse reads). */
cJSON *team_offer_json(const struct team_offer *o);

/* The team as a table again, every default filled in: what a results file records. */
cJSON *team_json(const struct team *t);

/* The default of a term and the source it comes from ("pue" -> 1.56, "Uptime Institute ..."), or
 * NULL for a field without a cited default; the page says which terms the scenario changed. */
const char *team_default_source(const char *field, double *value);

#endif
