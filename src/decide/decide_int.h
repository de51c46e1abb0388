/* decide_int.h: what the team decision's files share (read.c, options.c, rows.c, flips.c, records.c,
 * decide.c) and no one outside src/decide includes: the typed inputs read once from the results
 * document, the cost terms of owning and renting, an option costed for a year, and the figures the
 * answer and its flips compare. */
#ifndef SR_DECIDE_INT_H
#define SR_DECIDE_INT_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "decide/queue.h"
#include "decide/team.h"

#define DC_MAX_SYS 16           /* compared systems */
#define DC_MAX_RUNS 8           /* configurations of one job on one system */
#define DC_MAX_CLASSES (2 * TEAM_MAX_JOBS)      /* the team's jobs and the decide list's */
#define DC_MAX_TENANTS 8
#define DC_HOURS_PER_YEAR 8766.0                /* 365.25 days */
#define DC_HOURS_PER_MONTH (DC_HOURS_PER_YEAR / 12)
#define DC_MAX_SIM_JOBS 40000                   /* arrivals one simulation draws at most */
#define DC_MIN_SIM_JOBS 1000                    /* jobs it counts at least, where the cap allows */
#define DC_MAX_OPTIONS (DC_MAX_SYS + 2)
#define DC_MARGINAL 0.10        /* one more Spark is not worth it when it shortens the 95th percentile
                                   time to result by less than this share */

/* One way to run a job on a system: on `devices` of its GPUs, hours central and band, for the job's
 * own size (the projection's hours scaled by the job's tokens over the workload's); rec: the record
 * it came from (projection, projection_devices or scaleout), whose fit and stack a row copies. */
struct dc_run {
    int devices;
    double h, lo, hi;
    const cJSON *rec;
    double compiled_h;          /* the same configuration on the compiled stack (the record's compiled, scaled
                                   as h); 0: none (the job is on a compiled stack already, or it does not fit) */
};

/* A job on a system: the projection's own configuration (base; devices 0: none that runs), the
 * fewest devices that hold a job one cannot (more), every configuration known (the scale-out's N),
 * and the projection's record even where it does not fit (fit, needs). */
struct dc_sysjob {
    struct dc_run base, more;
    int nrun;
    struct dc_run run[DC_MAX_RUNS];
    const cJSON *proj;
    int own;                    /* base is this machine's own projection (it is that system, calibrated on its GPU) */
};

/* A system the scenario compares, with what owning it costs (the cost file's row). */
struct dc_sys {
    char id[48], name[96];
    double price_usd;           /* the cost file's price per device, host included; 0: none cited */
    int server_gpus;            /* devices a server holds (the smallest purchase); 1: a desk-side box */
    double power_w;             /* whole-system power per device at its maximum */
    double idle_w;              /* whole-system power per device idling; 0: none cited */
    double bf16_tflops, mem_bw_gbs;     /* catalog spec figures (0: none) */
    const cJSON *cost_row;      /* the cost file's row (sources, dates), or NULL */
};

/* Shared use of one Spark: a tenants record (branch share's projection). */
struct dc_tenant {
    int n, fits;
    double h;                   /* hours of one tenant's job with n at once */
};

struct dc_class {
    char workload[48], name[96];
    double per_month;           /* 0: a decide-list workload priced per job only */
    double tokens;              /* tokens of one job: the team's, else the workload's */
    double workload_tokens;     /* the projection's tokens of the workload (its hours are for them) */
    const char *tokens_basis;   /* "given", or the workload's ("published", "assumed") */
    int job;                    /* index into the team's jobs, -1 for a decide-list workload */
    struct dc_sysjob on[DC_MAX_SYS];
    int ntenants;
    struct dc_tenant tenants[DC_MAX_TENANTS];
};

struct dc_ctx {
    struct team t;
    int has_team;               /* 0: the results have no team: per-job costs at the scenario's use */
    double utilisation;         /* without a team: the share of a bought system's hours it runs jobs */
    int nsys, spark;            /* spark: index of the subject (the DGX Spark) among sys, -1 when not compared */
    int this_sys;               /* the compared system this machine is, when its GPU calibrated the model; -1 */
    struct dc_sys sys[DC_MAX_SYS];
    int nclasses, nteam;        /* the first nteam classes are the team's jobs */
    struct dc_class cls[DC_MAX_CLASSES];
    int noffers;
    struct team_offer offers[TEAM_MAX_OFFERS];
    int offer_sys[TEAM_MAX_OFFERS];     /* index into sys, -1: a system not compared */
    int tenants_known;          /* the run projected shared use (any tenants record) */
};

/* What renting one job costs on one offer: the configuration, the bill, the time to result. */
struct dc_bill {
    int ok;                     /* a configuration of the job fits an instance of the offer */
    int offer, devices, instance_gpus;
    double run_h, billed_h, usd, result_h;
    int meets;                  /* result_h within the deadline */
    const struct dc_run *run;   /* the configuration billed */
};

/* The knobs a sensitivity turns; all 1 is the run as projected. */
struct dc_knobs {
    double volume;              /* jobs per month multiplied by this */
    double rent[DC_MAX_SYS];    /* each system's rental rates multiplied by this */
    double size[DC_MAX_CLASSES];        /* each job's tokens (so its hours) multiplied by this */
    int spark_fast;             /* the Spark's hours at the fast end of their band */
    int compiled;               /* every job on the compiled stack on every system, where it was projected there */
    int drop_unheld;            /* leave out the team's jobs no single Spark holds (the memory counterfactual) */
    double deadline_h;
};

enum dc_where { DC_RENT = 0, DC_SPARK_ON, DC_SERVER_ON, DC_DROPPED };

struct dc_classfig {
    enum dc_where where;
    int units;                  /* machines (Sparks, GPUs) one job holds; 0 rented */
    double run_h;               /* on the option's machines, or setup + run rented */
    double fast_h;              /* on a Spark: the fast end of its projected band */
    const struct dc_run *run;   /* the configuration it runs as, on the option's machines */
    struct dc_bill bill;        /* when rented */
    struct queue_stats q;
};

enum dc_kind { DC_OPT_SPARK = 0, DC_OPT_RENT, DC_OPT_SERVER };

/* The cost terms of an option, each a function of the option (owned terms scale with the machines
 * it owns and their use): what a year of it costs. Adding a term is one enum entry, one row of
 * dc_terms (options.c) and its function; every option, per-job cost, tie and break-even takes it. */
enum dc_term_id { DC_T_CAPITAL = 0, DC_T_ENERGY, DC_T_IDLE, DC_T_FACILITY, DC_T_SUPPORT, DC_T_RENT, DC_NTERMS };

struct dc_option;
struct dc_term {
    const char *field;          /* the option record's field: "capital_usd_per_year" */
    const char *words;          /* what it is, as the page lists it */
    int owned;                  /* a cost of owning machines (divided over their busy hours per job) */
    double (*usd_per_year)(const struct dc_ctx *c, const struct dc_option *o);
};
extern const struct dc_term dc_terms[DC_NTERMS];

struct dc_option {
    enum dc_kind kind;
    int sys;                    /* the server's system; the Spark's for Sparks; -1 rent */
    int count;                  /* Sparks or servers */
    int units;                  /* devices owned: Sparks, or the servers' GPUs; 0 renting */
    double outlay_usd, term[DC_NTERMS], usd_per_year;
    double jobs_per_year, usd_per_job;
    double rent_usd;            /* bills of the jobs it rents, a year (the rent term's) */
    double busy_unit_h;         /* unit-hours a year the option's own machines run jobs */
    double utilisation;         /* of the machines owned; rented: the share of billed GPU-hours used */
    int keeps_up, meets;
    struct queue_result q;
    struct dc_classfig cf[TEAM_MAX_JOBS];
};

/* read.c: the typed inputs from a results document; -1 with err naming what is missing. */
int dc_read(const cJSON *doc, struct dc_ctx *c, char *err, size_t errlen);

/* options.c */
void dc_knobs_default(const struct dc_ctx *c, struct dc_knobs *k);
/* The cheapest configuration of class i on offer o that meets the deadline, else the fastest; with
 * devices > 0, only that configuration (a row's own). */
struct dc_bill dc_bill_offer(const struct dc_ctx *c, int i, int o, int devices, const struct dc_knobs *k);
/* The best rental of class i over the offers of system s (-1: every compared system); devices as above. */
struct dc_bill dc_bill_best(const struct dc_ctx *c, int i, int s, int devices, const struct dc_knobs *k);
int dc_spark_option(const struct dc_ctx *c, int count, const struct dc_knobs *k, struct dc_option *o);
int dc_spark_choose(const struct dc_ctx *c, const struct dc_knobs *k, struct dc_option *o);
int dc_server_option(const struct dc_ctx *c, int s, int count, const struct dc_knobs *k, struct dc_option *o);
int dc_server_choose(const struct dc_ctx *c, int s, const struct dc_knobs *k, struct dc_option *o);
int dc_rent_option(const struct dc_ctx *c, const struct dc_knobs *k, struct dc_option *o);
/* Every option (Sparks, renting, each system's server) into opts; their count. */
int dc_options(const struct dc_ctx *c, const struct dc_knobs *k, struct dc_option *opts, int max);
/* The answer among n options: the cheapest a year of those that meet the deadline, else the
 * fastest at the 95th percentile; its index. */
int dc_answer(const struct dc_option *opts, int n);
/* "spark", "rent", "server:ID" (a server of catalog system ID): what an answer is, whatever its count. */
void dc_option_id(const struct dc_ctx *c, const struct dc_option *o, char *buf, size_t n);
/* One device of system s bought and busy a share u of its hours: its terms a year (an option of one
 * unit), for the per-job cost, the tie and the break-even. -1 when s has no price. */
int dc_unit_option(const struct dc_ctx *c, int s, double u, struct dc_option *o);
/* What one busy device-hour of an owned option costs: its owned terms over its busy unit-hours. */
double dc_busy_hour_usd(const struct dc_option *o);
/* The hours of run r of class i under knobs k (the job's size scaled). */
double dc_hours(const struct dc_knobs *k, int i, double h);
/* The central hours of configuration r of class i under knobs k: on the compiled stack when k asks it
 * and r has them. */
double dc_run_hours(const struct dc_knobs *k, int i, const struct dc_run *r);

/* rows.c: the per-job records (job_row, verdict) on the decision's basis. */
void dc_rows(const struct dc_ctx *c, const struct dc_knobs *k, const struct dc_option *opts, int n, cJSON *results);

/* flips.c: what flips the answer (flip records), each naming the option found there and its cost. */
void dc_flips(const struct dc_ctx *c, const struct dc_knobs *k, const char *ans, cJSON *results);
/* The answer's id under knobs k (and its option, and every option, when wanted). */
void dc_answer_at(const struct dc_ctx *c, const struct dc_knobs *k, char *id, size_t n, struct dc_option *best);

/* records.c: a record of `series` appended to results; a number written only where it is a figure; a
 * string field of a projection record copied under another name; the stack fields of a projection
 * record (stack, stack_name, stack_era, stack_fitted_on) with `prefix`: every row names both sides'. */
cJSON *dc_record(cJSON *results, const char *series);
void dc_num(cJSON *r, const char *k, double v);
void dc_copy_str(cJSON *r, const cJSON *rec, const char *from, const char *to);
void dc_stack_json(cJSON *r, const cJSON *rec, const char *prefix);
/* Months of arrivals to simulate for `per_month` jobs a month: the team's months, more where its jobs
 * are so rare that fewer than DC_MIN_SIM_JOBS would be counted after the warm-up (a job a century has
 * no 95th percentile in 20 years), never more than DC_MAX_SIM_JOBS arrivals. */
double dc_sim_months(const struct dc_ctx *c, double per_month);

#endif
