/* decide_int.h: what the team decision's files share (decide.c, read.c, options.c) and no one
 * outside src/decide includes: the typed inputs read once from the results document, an option
 * costed for a year, and the figures the answer and its flips compare. */
#ifndef SR_DECIDE_INT_H
#define SR_DECIDE_INT_H

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
#define DC_SPARK "dgx-spark"

/* One way to run a job on a system: on `devices` of its GPUs, hours central and band. */
struct dc_run {
    int devices;
    double h, lo, hi;
};

/* A job on a system: the projection's own configuration (base; devices 0: none that runs), the
 * fewest devices that hold a job one cannot, and every configuration known (the scale-out's N). */
struct dc_sysjob {
    struct dc_run base, more;
    int nrun;
    struct dc_run run[DC_MAX_RUNS];
};

/* A system the scenario compares, with what owning it costs (the cost file's row). */
struct dc_sys {
    char id[48], name[96];
    double price_usd;           /* the cost file's price per device, host included; 0: none cited */
    int server_gpus;            /* devices a server holds (the smallest purchase); 1: a desk-side box */
    double power_w;             /* whole-system power per device at its maximum */
};

/* Shared use of one Spark: a tenants record (branch share's projection). */
struct dc_tenant {
    int n, fits;
    double h;                   /* hours of one tenant's job with n at once */
};

struct dc_class {
    char workload[48], name[96];
    double per_month;           /* 0: a decide-list workload priced per job only */
    struct dc_sysjob on[DC_MAX_SYS];
    int ntenants;
    struct dc_tenant tenants[DC_MAX_TENANTS];
};

struct dc_ctx {
    struct team t;
    int nsys, spark;            /* spark: index of the DGX Spark among sys, -1 when not compared */
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
};

/* The knobs a sensitivity turns; all 1 (and lo 0) is the run as projected. */
struct dc_knobs {
    double volume;              /* jobs per month multiplied by this */
    double rent[DC_MAX_SYS];    /* each system's rental rates multiplied by this */
    int spark_fast;             /* the Spark's hours at the fast end of their band */
    double deadline_h;
};

enum dc_where { DC_RENT = 0, DC_SPARK_ON, DC_SERVER_ON };

struct dc_classfig {
    enum dc_where where;
    int units;                  /* machines (Sparks, GPUs) one job holds; 0 rented */
    double run_h;               /* on the option's machines, or setup + run rented */
    double fast_h;              /* on a Spark: the fast end of its projected band */
    struct dc_bill bill;        /* when rented */
    struct queue_stats q;
};

enum dc_kind { DC_OPT_SPARK = 0, DC_OPT_RENT, DC_OPT_SERVER };

struct dc_option {
    enum dc_kind kind;
    int sys;                    /* the server's system; the Spark's for Sparks; -1 rent */
    int count;                  /* Sparks or servers */
    double outlay_usd, capital_usd, energy_usd, facility_usd, support_usd, rent_usd, usd_per_year;
    double jobs_per_year, usd_per_job;
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
/* The cheapest configuration of class i on offer o that meets the deadline, else the fastest. */
struct dc_bill dc_bill_offer(const struct dc_ctx *c, int i, int o, const struct dc_knobs *k);
/* The best rental of class i over the offers of system s (-1: every compared system). */
struct dc_bill dc_bill_best(const struct dc_ctx *c, int i, int s, const struct dc_knobs *k);
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
/* "spark", "rent", "server:b200": what an answer is, whatever its count. */
void dc_option_id(const struct dc_ctx *c, const struct dc_option *o, char *buf, size_t n);
/* Months of arrivals to simulate for `per_month` jobs a month: the team's months, more where its jobs
 * are so rare that fewer than DC_MIN_SIM_JOBS would be counted after the warm-up (a job a century has
 * no 95th percentile in 20 years), never more than DC_MAX_SIM_JOBS arrivals. */
double dc_sim_months(const struct dc_ctx *c, double per_month);
/* A Spark-hour's cost at utilisation u (capital over the hours it runs, plus its energy). */
double dc_spark_hour_usd(const struct dc_ctx *c, double u);

#endif
