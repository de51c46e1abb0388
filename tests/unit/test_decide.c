/* test_decide.c: the team decision's parts. The queue simulation against closed forms within its
 * statistical error (M/D/1's mean wait, a job holding the whole pool, two job sizes on one machine by
 * Pollaczek-Khinchine), reproducible from its seed; the team's fields refused where they enter, each
 * message naming the field and value; a rented job billed as the provider bills (whole hours on an
 * 8-GPU node, per second with a minimum, setup included); and the stage over a small document: every
 * option's yearly cost recomputed from its parts (idle power included), the rent that ties Sparks on
 * the offer the jobs take, people per Spark from shared-use records, a job's own size scaling its
 * hours, each row rented on its own configuration (and the cheaper configuration as a row of its
 * own), what decides the answer against the answer without a deadline, every flip naming the option
 * found there, and the per-job costs of a file without a team at the scenario's use. With a results
 * file as argument it prints the stage's output (a tool for looking at a run, not a test). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "check.h"
#include "decide/decide.h"
#include "decide/decide_int.h"
#include "decide/queue.h"
#include "decide/team.h"
#include "util/json.h"

/* The simulated mean wait within 4 standard errors of the closed form, and the error small. */
static void near_closed_form(const struct queue_result *r, double want, const char *what)
{
    double got = r->all.wait_mean_h, se = r->all.wait_se_h;
    if (!(r->keeps_up && fabs(got - want) <= 4 * se && se < 0.05 * want)) {
        check_failures++;
        printf("%s: mean wait %.4f h (se %.4f), closed form %.4f h\n", what, got, se, want);
    }
}

static void queue_closed_forms(void)
{
    struct queue_result r;
    /* M/D/1: Wq = rho D / (2 (1 - rho)) */
    for (int k = 0; k < 2; k++) {
        double rho = k ? 0.8 : 0.5;
        struct queue_class c = { rho, 1.0, 1 };
        EXPECT(queue_simulate(&c, 1, 1, 200000, 1000, 7, &r) == 0);
        near_closed_form(&r, rho / (2 * (1 - rho)), k ? "M/D/1 rho 0.8" : "M/D/1 rho 0.5");
        EXPECT_NEAR(r.busy, rho, 0.02);
        EXPECT_NEAR(r.load, rho, 1e-12);
    }
    /* a job that holds both machines of a pool of two is one server: M/D/1 again */
    struct queue_class pair = { 0.5, 1.0, 2 };
    EXPECT(queue_simulate(&pair, 1, 2, 200000, 1000, 11, &r) == 0);
    near_closed_form(&r, 0.5, "a pair on two machines");
    /* two classes on one machine (M/G/1): Wq = lambda E[S^2] / (2 (1 - rho)); 0.2/h of 1 h and 0.1/h
     * of 3 h: lambda 0.3, rho 0.5, E[S^2] = (0.2 + 0.9) / 0.3, Wq = 1.1 h */
    struct queue_class two[] = { { 0.2, 1.0, 1 }, { 0.1, 3.0, 1 } };
    EXPECT(queue_simulate(two, 2, 1, 400000, 2000, 13, &r) == 0);
    near_closed_form(&r, 1.1, "two job sizes on one machine");
    EXPECT_NEAR(r.cls[0].wait_mean_h, 1.1, 0.1);    /* FIFO: every class waits alike */
    EXPECT_NEAR(r.cls[1].wait_mean_h, 1.1, 0.1);
    /* reproducible from the seed, different from another */
    struct queue_result a, b;
    EXPECT(queue_simulate(two, 2, 1, 20000, 100, 5, &a) == 0 && queue_simulate(two, 2, 1, 20000, 100, 5, &b) == 0);
    EXPECT(a.all.n == b.all.n && a.all.wait_mean_h == b.all.wait_mean_h && a.all.result_p95_h == b.all.result_p95_h);
    EXPECT(queue_simulate(two, 2, 1, 20000, 100, 6, &b) == 0 && a.all.wait_mean_h != b.all.wait_mean_h);
    /* what cannot keep up says so; a rented job (no machine of the pool) never waits */
    struct queue_class over = { 1.2, 1.0, 1 }, big = { 0.1, 1.0, 3 }, rent = { 2.0, 1.5, 0 };
    EXPECT(queue_simulate(&over, 1, 1, 1000, 10, 1, &r) == 0 && !r.keeps_up);
    EXPECT(queue_simulate(&big, 1, 2, 1000, 10, 1, &r) == 0 && !r.keeps_up);
    EXPECT(queue_simulate(&rent, 1, 1, 1000, 10, 1, &r) == 0 && r.keeps_up && r.all.wait_mean_h == 0);
    EXPECT(r.all.result_p50_h == 1.5 && r.all.result_p95_h == 1.5);
}

/* team_parse on a JSON text: its message, or "" when it parses. */
static const char *parse_msg(const char *text, struct team *t)
{
    static char err[512];
    cJSON *j = cJSON_Parse(text);
    err[0] = '\0';
    if (!j)
        return "(bad test JSON)";
    if (team_parse(j, NULL, t, err, sizeof err) == 0)
        err[0] = '\0';
    cJSON_Delete(j);
    return err;
}

#define JOB "\"jobs\":[{\"workload\":\"llama-3.1-8b-lora\",\"per_month\":40}]"

static void team_refusals(void)
{
    static struct team t;
    EXPECT_STR(parse_msg("{\"people\":6," JOB ",\"deadline_h\":24}", &t), "");
    EXPECT(t.people == 6 && t.njobs == 1 && t.jobs[0].per_month == 40 && t.deadline_h == 24);
    EXPECT(t.pue == 1.56 && t.facility_usd_per_kw_month == 196 && t.support_share == 0.2 && t.noffers == 0);
    EXPECT_STR(parse_msg("{\"people\":0," JOB "}", &t), "team: parameter 'people' = 0 is out of range (1 .. 100000)");
    EXPECT_STR(parse_msg("{\"people\":-3," JOB "}", &t), "team: parameter 'people' = -3 is out of range (1 .. 100000)");
    EXPECT_STR(parse_msg("{\"people\":2.5," JOB "}", &t), "team: parameter 'people' must be an integer, got 2.5");
    EXPECT_STR(parse_msg("{\"deadline_h\":1e9," JOB "}", &t),
               "team: parameter 'deadline_h' = 1000000000 is out of range (0.1 .. 8766)");
    EXPECT_STR(parse_msg("{\"pue\":5e-324," JOB "}", &t),
               "team.pue = 4.9406564584124654e-324 is too small to be a real figure (a subnormal number)");
    EXPECT_STR(parse_msg("{\"colour\":1," JOB "}", &t), "team: unknown parameter 'colour' (valid: deadline_h, "
               "facility_usd_per_kw_month, kwh_usd, life_years, max_sparks, months, people, pue, seed, setup_h, "
               "support_share)");
    EXPECT_STR(parse_msg("{\"people\":2}", &t), "team.jobs must list the team's jobs, e.g. { { workload = "
               "\"llama-3.1-8b-lora\", per_month = 40 } }");
    EXPECT(strstr(parse_msg("{\"jobs\":[{\"workload\":\"llama-9\",\"per_month\":1}]}", &t),
                  "team.jobs[1]: parameter 'workload' has unknown value 'llama-9' (valid: gpt2-124m") != NULL);
    EXPECT_STR(parse_msg("{\"jobs\":[{\"workload\":\"gpt2-124m\",\"per_month\":0}]}", &t),
               "team.jobs[1]: parameter 'per_month' = 0 is out of range (0.01 .. 10000)");
    EXPECT_STR(parse_msg("{\"jobs\":[{\"workload\":\"gpt2-124m\"}]}", &t),
               "team.jobs[1] needs a workload and per_month (jobs of it a month)");
    EXPECT_STR(parse_msg("{\"jobs\":[{\"workload\":\"gpt2-124m\",\"per_month\":2},{\"workload\":\"gpt2-124m\","
                         "\"per_month\":3}]}", &t), "team.jobs[2]: workload 'gpt2-124m' is listed twice "
               "(team.jobs[1] and [2]); give it once with its jobs per month added up");
    EXPECT_STR(parse_msg("{\"jobs\":[{\"workload\":\"gpt2-124m\",\"per_month\":6000},{\"workload\":\"llama-3.1-8b\","
                         "\"per_month\":6000}]}", &t), "team.jobs add up to 12000 jobs a month; at most 10000");
    /* a job's size: tokens, samples x tokens a sample, or epochs over a data set; one form at a time */
    EXPECT_STR(parse_msg("{\"jobs\":[{\"workload\":\"gpt2-124m\",\"per_month\":1,\"tokens\":5e7}]}", &t), "");
    EXPECT(t.jobs[0].size == TEAM_SIZE_TOKENS && t.jobs[0].tokens == 5e7);
    EXPECT_STR(parse_msg("{\"jobs\":[{\"workload\":\"gpt2-124m\",\"per_month\":1,\"samples\":2e5,"
                         "\"tokens_per_sample\":500}]}", &t), "");
    EXPECT(t.jobs[0].size == TEAM_SIZE_SAMPLES && t.jobs[0].tokens == 1e8);
    EXPECT_STR(parse_msg("{\"jobs\":[{\"workload\":\"gpt2-124m\",\"per_month\":1,\"epochs\":2,"
                         "\"dataset_tokens\":5e7}]}", &t), "");
    EXPECT(t.jobs[0].size == TEAM_SIZE_EPOCHS && t.jobs[0].tokens == 1e8);
    EXPECT_STR(parse_msg("{" JOB "}", &t), "");
    EXPECT(t.jobs[0].size == TEAM_SIZE_WORKLOAD && t.jobs[0].tokens == 0);
    EXPECT_STR(parse_msg("{\"jobs\":[{\"workload\":\"gpt2-124m\",\"per_month\":1,\"tokens\":1e7,\"epochs\":2,"
                         "\"dataset_tokens\":5e7}]}", &t), "team.jobs[1] gives its size twice: give tokens, or samples "
               "with tokens_per_sample, or epochs with dataset_tokens");
    EXPECT_STR(parse_msg("{\"jobs\":[{\"workload\":\"gpt2-124m\",\"per_month\":1,\"samples\":10}]}", &t),
               "team.jobs[1] gives samples without tokens_per_sample: a job's size is samples x tokens_per_sample or "
               "epochs x dataset_tokens");
    EXPECT_STR(parse_msg("{\"jobs\":[{\"workload\":\"gpt2-124m\",\"per_month\":1,\"tokens\":10}]}", &t),
               "team.jobs[1]: parameter 'tokens' = 10 is out of range (1000 .. 1e+15)");
    EXPECT_STR(parse_msg("{\"jobs\":[{\"workload\":\"gpt2-124m\",\"per_month\":1,\"epochs\":1000,"
                         "\"dataset_tokens\":1e15}]}", &t), "team.jobs[1]: epochs x dataset_tokens make 1e+18 tokens a "
               "job; from 1000 to 1e+15");
    EXPECT_STR(parse_msg("{" JOB ",\"offers\":[{\"id\":\"x\",\"system\":\"b200\",\"provider\":\"P\","
                         "\"usd_per_gpu_hour\":4,\"date\":\"2026\"}]}", &t),
               "team.offers[1].source is missing or empty: an offer names it");
    EXPECT_STR(parse_msg("{" JOB ",\"offers\":[{\"id\":\"x\",\"system\":\"b200\",\"provider\":\"P\",\"source\":\"s\","
                         "\"date\":\"d\",\"usd_per_gpu_hour\":-4}]}", &t),
               "team.offers[1]: parameter 'usd_per_gpu_hour' = -4 is out of range (0.01 .. 10000)");
    EXPECT_STR(parse_msg("{" JOB ",\"offers\":[{\"id\":\"x\",\"system\":\"b200\",\"provider\":\"P\",\"source\":\"s\","
                         "\"date\":\"d\",\"instance_gpus\":[8,8]}]}", &t),
               "team.offers[1]: parameter 'instance_gpus' lists 8 twice (entries 1 and 2); give each once");
    EXPECT_STR(parse_msg("{" JOB ",\"offers\":[{\"id\":\"x\",\"system\":\"b200\",\"provider\":\"P\",\"source\":\"s\","
                         "\"date\":\"d\"},{\"id\":\"x\",\"system\":\"h100-sxm\",\"provider\":\"Q\",\"source\":\"s\","
                         "\"date\":\"d\"}]}", &t), "team.offers[2].id 'x' is the id of team.offers[1] too");
}

/* A context of two systems (a Spark, 8-GPU B200 nodes) and one job class, for the billing checks. */
static void small_ctx(struct dc_ctx *c)
{
    memset(c, 0, sizeof *c);
    static const char *text = "{\"people\":4,\"deadline_h\":24,\"jobs\":[{\"workload\":\"gpt2-124m\",\"per_month\":10}]}";
    cJSON *j = cJSON_Parse(text);
    char err[256];
    EXPECT(team_parse(j, NULL, &c->t, err, sizeof err) == 0);
    cJSON_Delete(j);
    c->nsys = 2, c->spark = 0, c->nclasses = c->nteam = 1;
    c->sys[0] = (struct dc_sys){ .id = "dgx-spark", .name = "DGX Spark", .price_usd = 4699, .server_gpus = 1, .power_w = 240 };
    c->sys[1] = (struct dc_sys){ .id = "b200", .name = "B200", .price_usd = 64375, .server_gpus = 8, .power_w = 1787.5 };
    snprintf(c->cls[0].workload, sizeof c->cls[0].workload, "gpt2-124m");
    c->cls[0].per_month = 10;
    c->cls[0].on[0] = (struct dc_sysjob){ .base = { 1, 82.5, 53.7, 96.3 }, .nrun = 1, .run = { { 1, 82.5, 53.7, 96.3 } } };
    c->cls[0].on[1] = (struct dc_sysjob){ .base = { 8, 0.31, 0.27, 0.36 }, .nrun = 2,
                                          .run = { { 8, 0.31, 0.27, 0.36 }, { 1, 2.47, 2.1, 2.8 } } };
    c->noffers = 2;
    c->offers[0] = (struct team_offer){ .id = "hourly-8", .system = "b200", .provider = "H", .usd_per_gpu_hour = 4,
                                        .sizes = { 8 }, .nsizes = 1, .billing_step_h = 1, .min_billed_h = 1 };
    c->offers[1] = (struct team_offer){ .id = "second-1", .system = "b200", .provider = "S", .usd_per_gpu_hour = 6,
                                        .sizes = { 1, 2, 4, 8 }, .nsizes = 4, .billing_step_h = 1.0 / 3600,
                                        .min_billed_h = 60.0 / 3600 };
    c->offer_sys[0] = c->offer_sys[1] = 1;
}

static void billing(void)
{
    static struct dc_ctx c;
    struct dc_knobs k;
    small_ctx(&c);
    dc_knobs_default(&c, &k);
    /* an 8-GPU node billed by the whole hour: 0.31 h + 0.25 h setup is one hour of 8 GPUs at $4 */
    struct dc_bill b = dc_bill_offer(&c, 0, 0, 0, &k);
    EXPECT(b.ok && b.devices == 8 && b.instance_gpus == 8 && b.billed_h == 1 && b.usd == 32);
    EXPECT_NEAR(b.result_h, 0.56, 1e-12);
    /* per second: one GPU for 2.72 h (2.72 GPU-hours) is cheaper than 8 for 0.56 h (4.48) */
    b = dc_bill_offer(&c, 0, 1, 0, &k);
    EXPECT(b.ok && b.devices == 1 && b.instance_gpus == 1);
    EXPECT_NEAR(b.billed_h, ceil(2.72 * 3600 - 1e-9) / 3600, 1e-12);
    EXPECT_NEAR(b.usd, b.billed_h * 6, 1e-12);
    /* the cheapest of the two: the per-second GPU ($16.3) before the hourly node ($32) */
    struct dc_bill best = dc_bill_best(&c, 0, -1, 0, &k);
    EXPECT(best.offer == 1 && best.usd < 17);
    /* a deadline of 1 h: only 8 GPUs (0.56 h) meet it; by the second they cost less than the hourly node */
    k.deadline_h = 1;
    best = dc_bill_best(&c, 0, -1, 0, &k);
    EXPECT(best.offer == 1 && best.meets && best.devices == 8);
    EXPECT_NEAR(best.usd, 8 * 6 * ceil(0.56 * 3600 - 1e-9) / 3600, 1e-12);
    /* without it, the node's whole hour, however dear */
    c.noffers = 1;
    best = dc_bill_best(&c, 0, -1, 0, &k);
    EXPECT(best.offer == 0 && best.meets && best.usd == 32);
    c.noffers = 2;
    /* a minimum: 30 s billed as 60 s */
    c.t.setup_h = 0;
    c.cls[0].on[1].run[1].h = 30.0 / 3600;
    k.deadline_h = 24;
    b = dc_bill_offer(&c, 0, 1, 0, &k);
    EXPECT_NEAR(b.billed_h, 60.0 / 3600, 1e-12);
}

/* A results document with a team, two systems, their costs and offers, projection records and
 * shared-use records of the Spark (the fixture the share branch's records are written like). */
static cJSON *document(void)
{
    const char *text =
        "{\"scenario\":{\"systems\":[\"dgx-spark\",\"b200\"],\"team\":{\"people\":6,\"deadline_h\":24,"
        "\"jobs\":[{\"workload\":\"llama-3.1-8b-lora\",\"per_month\":40},{\"workload\":\"gpt2-124m\",\"per_month\":1}]}},"
        "\"catalog\":{\"rows\":[{\"id\":\"dgx-spark\",\"name\":\"NVIDIA DGX Spark\",\"roles\":[\"subject\"]},"
        "{\"id\":\"b200\",\"name\":\"B200\"}],"
        "\"costs\":{\"rows\":[{\"id\":\"dgx-spark\",\"purchase_usd\":4699,\"server_gpus\":1,\"system_power_w\":240,"
        "\"idle_power_w\":25},"
        "{\"id\":\"b200\",\"purchase_usd\":64375,\"server_gpus\":8,\"system_power_w\":1787.5}]},"
        "\"offers\":{\"rows\":[{\"id\":\"node\",\"system\":\"b200\",\"provider\":\"N\",\"usd_per_gpu_hour\":8.6,"
        "\"instance_gpus\":[8],\"billing_step_s\":3600,\"min_billed_s\":3600,\"source\":\"s\",\"date\":\"d\"},"
        "{\"id\":\"pod\",\"system\":\"b200\",\"provider\":\"P\",\"usd_per_gpu_hour\":6.79,\"instance_gpus\":[1,2,4,8],"
        "\"billing_step_s\":1,\"min_billed_s\":1,\"source\":\"s\",\"date\":\"d\"}]}},"
        "\"experiments\":[{\"name\":\"model\",\"status\":\"complete\",\"info\":{\"calibration\":{\"device\":\"cpu\"},"
        "\"workloads\":[{\"id\":\"llama-3.1-8b-lora\",\"name\":\"Llama LoRA\",\"tokens\":1e8},{\"id\":\"gpt2-124m\",\"name\":\"GPT-2\",\"tokens\":9.89e9}]},"
        "\"results\":["
        "{\"series\":\"projection\",\"workload\":\"llama-3.1-8b-lora\",\"system\":\"dgx-spark\",\"fits\":true,\"gpus\":1,"
        "\"hours\":41.9,\"hours_low\":28.2,\"hours_high\":48.5},"
        "{\"series\":\"projection\",\"workload\":\"llama-3.1-8b-lora\",\"system\":\"b200\",\"fits\":true,\"gpus\":1,"
        "\"hours\":1.23,\"hours_low\":1.07,\"hours_high\":1.42},"
        "{\"series\":\"projection\",\"workload\":\"gpt2-124m\",\"system\":\"dgx-spark\",\"fits\":true,\"gpus\":1,"
        "\"hours\":82.5,\"hours_low\":53.7,\"hours_high\":96.3},"
        "{\"series\":\"projection\",\"workload\":\"gpt2-124m\",\"system\":\"b200\",\"fits\":true,\"gpus\":8,"
        "\"hours\":0.31,\"hours_low\":0.27,\"hours_high\":0.36},"
        "{\"series\":\"scaleout\",\"workload\":\"gpt2-124m\",\"system\":\"b200\",\"devices\":1,\"hours\":2.47},"
        "{\"series\":\"tenants\",\"workload\":\"llama-3.1-8b-lora\",\"system\":\"dgx-spark\",\"tenants\":1,\"fits\":true,"
        "\"hours\":20},"
        "{\"series\":\"tenants\",\"workload\":\"llama-3.1-8b-lora\",\"system\":\"dgx-spark\",\"tenants\":2,\"fits\":true,"
        "\"hours\":21},"
        "{\"series\":\"tenants\",\"workload\":\"llama-3.1-8b-lora\",\"system\":\"dgx-spark\",\"tenants\":3,\"fits\":false,"
        "\"hours\":0},"
        "{\"series\":\"tenants\",\"workload\":\"gpt2-124m\",\"system\":\"dgx-spark\",\"tenants\":1,\"fits\":true,"
        "\"hours\":82.5}]}]}";
    return cJSON_Parse(text);
}

static const cJSON *find(const cJSON *results, const char *series, const char *key, const char *value)
{
    const cJSON *r;
    cJSON_ArrayForEach(r, results)
        if (strcmp(json_str(r, "series", ""), series) == 0 && strcmp(json_str(r, key, ""), value) == 0)
            return r;
    return NULL;
}

static void stage(void)
{
    cJSON *doc = document(), *out = cJSON_CreateObject();
    char err[512] = "";
    int rc = decide_stage(doc, out, err, sizeof err);
    EXPECT(rc == 0);
    if (rc != 0) {
        printf("decide_stage: %s\n", err);
        goto done;
    }
    const cJSON *res = cJSON_GetObjectItemCaseSensitive(out, "results");
    const cJSON *spark = find(res, "option", "option", "spark"), *rent = find(res, "option", "option", "rent");
    const cJSON *server = find(res, "option", "option", "server:b200");
    EXPECT(spark && rent && server);
    if (!spark || !rent || !server)
        goto done;
    /* Sparks: capital over 3 years, energy of the hours they train at 240 W and of the hours they idle
     * at 25 W, at $0.15/kWh */
    double k = json_num(spark, "count", 0), busy = 12 * (40 * 41.9 + 1 * 82.5);
    EXPECT_NEAR(json_num(spark, "outlay_usd", 0), k * 4699, 1e-12);
    EXPECT_NEAR(json_num(spark, "busy_unit_hours_per_year", 0), busy, 1e-9);
    EXPECT_NEAR(json_num(spark, "idle_usd_per_year", 0), (k * 8766 - busy) * 0.025 * 0.15, 1e-9);
    EXPECT_NEAR(json_num(spark, "usd_per_year", 0), k * 4699 / 3 + busy * 0.240 * 0.15 + (k * 8766 - busy) * 0.025 * 0.15,
                1e-9);
    EXPECT_NEAR(json_num(spark, "utilisation", 0), busy / (k * 8766), 1e-9);
    EXPECT(!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(spark, "meets_deadline")));    /* 41.9 h > 24 h */
    /* one server: capital, support 20 %, room at $196/kW-month for 14.3 kW, energy at PUE 1.56 */
    double srv = 8 * 64375, gh = 12 * (40 * 1.23 + 1 * 8 * 0.31);
    EXPECT_NEAR(json_num(server, "usd_per_year", 0),
                srv / 3 + 0.2 * srv + 14.3 * 196 * 12 + gh * 1.7875 * 1.56 * 0.15, 1e-9);
    /* renting: each job on its cheapest bill; the LoRA job on one GPU by the second */
    const cJSON *lora = NULL, *r;
    cJSON_ArrayForEach(r, res)
        if (strcmp(json_str(r, "series", ""), "option_job") == 0 && strcmp(json_str(r, "option", ""), "rent") == 0
            && strcmp(json_str(r, "workload", ""), "llama-3.1-8b-lora") == 0)
            lora = r;
    EXPECT(lora && strcmp(json_str(lora, "offer", ""), "pod") == 0);
    EXPECT_NEAR(json_num(lora, "usd", 0), ceil((1.23 + 0.25) * 3600 - 1e-9) / 3600 * 6.79, 1e-9);
    /* tying rent at 100 %: the rent per GPU-hour at which renting B200s costs what a busy Spark does */
    const cJSON *tie = NULL;
    cJSON_ArrayForEach(r, res)
        if (strcmp(json_str(r, "series", ""), "tying_rent") == 0 && json_num(r, "utilisation", 0) == 1)
            tie = r;
    EXPECT(tie != NULL);
    if (tie) {
        double hour = 4699 / (3 * 8766.0) + 0.240 * 0.15;        /* busy all the time: no idle hour */
        EXPECT_NEAR(json_num(tie, "usd_per_gpu_hour", 0),
                    6.79 * busy * hour / json_num(tie, "rent_usd_per_year", 0), 1e-9);
    }
    /* people per Spark: two tenants each 21 h fit the day; a third does not fit in memory */
    const cJSON *pp = find(res, "people_per_spark", "workload", "llama-3.1-8b-lora");
    EXPECT(pp && json_num(pp, "people", -1) == 2 && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(pp, "projected")));
    pp = find(res, "people_per_spark", "workload", "gpt2-124m");
    EXPECT(pp && json_num(pp, "people", -1) == 0);
    EXPECT_STR(json_str(pp, "reason", ""), "one job alone takes longer than the deadline");
    /* the answer: renting meets the deadline and costs least of those that do */
    const cJSON *ans = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(out, "info"), "answer");
    EXPECT_STR(json_str(ans, "option", ""), "rent");
    EXPECT_STR(json_str(ans, "alternative", ""), "spark");
done:
    cJSON_Delete(doc);
    cJSON_Delete(out);
}

/* The stage on document d (consumed): its output, or NULL with the reason printed. */
static cJSON *stage_of(cJSON *d)
{
    char err[512] = "";
    cJSON *out = cJSON_CreateObject();
    if (decide_stage(d, out, err, sizeof err) != 0) {
        printf("decide_stage: %s\n", err);
        check_failures++;
        cJSON_Delete(out);
        out = NULL;
    }
    cJSON_Delete(d);
    return out;
}

static const cJSON *row_of(const cJSON *out, const char *workload, const char *system, int gpus)
{
    const cJSON *r;
    cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(out, "results"))
        if (strcmp(json_str(r, "series", ""), "job_row") == 0 && strcmp(json_str(r, "workload", ""), workload) == 0
            && strcmp(json_str(r, "system", ""), system) == 0 && json_num(r, "gpus", 0) == gpus)
            return r;
    return NULL;
}

static cJSON *team_of(cJSON *d) { return cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(d, "scenario"), "team"); }

/* Each row its own configuration: GPT-2 on 8 B200s is billed as 8 GPUs on its cheapest offer (per
 * second: 8 x $6.79 for 0.56 h, not the hourly node's $68.80), and renting it on one GPU (2.47 h,
 * cheaper) is a row of its own; a job's own size scales its hours; the Spark bought per job is an
 * hour of the team's Sparks (their terms over their busy hours) times its hours. */
static void rows(void)
{
    cJSON *out = stage_of(document());
    if (!out)
        return;
    const cJSON *g8 = row_of(out, "gpt2-124m", "b200", 8), *g1 = row_of(out, "gpt2-124m", "b200", 1);
    EXPECT(g8 && g1);
    if (g8 && g1) {
        EXPECT_STR(json_str(g8, "role", ""), "projection");
        EXPECT_STR(json_str(g8, "rent_offer", ""), "pod");
        EXPECT_NEAR(json_num(g8, "rent_usd", 0), 8 * 6.79 * ceil(0.56 * 3600 - 1e-9) / 3600, 1e-9);
        EXPECT_STR(json_str(g1, "role", ""), "rent");
        EXPECT_NEAR(json_num(g1, "rent_usd", 0), 6.79 * ceil(2.72 * 3600 - 1e-9) / 3600, 1e-9);
        EXPECT_NEAR(json_num(g8, "faster_per_job", 0), 82.5 / 0.31, 1e-12);
        EXPECT_NEAR(json_num(g1, "kwh", 0), 2.47 * 1.7875, 1e-12);
    }
    const cJSON *res = cJSON_GetObjectItemCaseSensitive(out, "results"), *sp = find(res, "option", "option", "spark");
    const cJSON *lora = row_of(out, "llama-3.1-8b-lora", "dgx-spark", 1);
    EXPECT(sp && lora);
    if (sp && lora)
        EXPECT_NEAR(json_num(lora, "buy_usd", 0), 41.9 * (json_num(sp, "usd_per_year", 0)
                    / json_num(sp, "busy_unit_hours_per_year", 1)), 1e-9);
    cJSON_Delete(out);
    /* half the tokens: half the hours, on every row and option */
    cJSON *d = document(), *job = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(team_of(d), "jobs"), 0);
    cJSON_AddNumberToObject(job, "tokens", 5e7);
    out = stage_of(d);
    if (!out)
        return;
    lora = row_of(out, "llama-3.1-8b-lora", "dgx-spark", 1);
    EXPECT(lora && json_num(lora, "hours", 0) == 41.9 * 0.5 && json_num(lora, "hours_high", 0) == 48.5 * 0.5);
    const cJSON *oj = NULL, *r;
    cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(out, "results"))
        if (strcmp(json_str(r, "series", ""), "option_job") == 0 && strcmp(json_str(r, "option", ""), "spark") == 0
            && strcmp(json_str(r, "workload", ""), "llama-3.1-8b-lora") == 0)
            oj = r;
    EXPECT(oj && json_num(oj, "run_h", 0) == 41.9 * 0.5);
    cJSON_Delete(out);
}

/* A team's offers: only the 8-GPU node billed by the hour (renting a LoRA job costs 2 h x 8 GPUs). */
static void node_only(cJSON *d)
{
    cJSON *offers = cJSON_Parse("[{\"id\":\"node\",\"system\":\"b200\",\"provider\":\"N\",\"usd_per_gpu_hour\":8.6,"
                                "\"instance_gpus\":[8],\"billing_step_s\":3600,\"min_billed_s\":3600,\"source\":\"s\","
                                "\"date\":\"d\"}]");
    cJSON_AddItemToObject(team_of(d), "offers", offers);
}

/* Every flip names the option the stage finds there: the cheapest that meets the deadline at that
 * point, its count and cost as every option's cost there says, below the answer's own there. */
static void check_flips(const cJSON *res)
{
    const cJSON *r;
    int flips = 0;
    cJSON_ArrayForEach(r, res) {
        if (strcmp(json_str(r, "series", ""), "flip") != 0 || !cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "found")))
            continue;
        const cJSON *o, *best = NULL;
        cJSON_ArrayForEach(o, cJSON_GetObjectItemCaseSensitive(r, "options_at_flip"))
            if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "meets_deadline"))
                && (!best || json_num(o, "usd_per_year", 0) < json_num(best, "usd_per_year", 0)))
                best = o;
        EXPECT(best != NULL);
        if (!best)
            continue;
        EXPECT_STR(json_str(r, "to", ""), json_str(best, "option", "?"));
        EXPECT(json_num(r, "to_count", -1) == json_num(best, "count", -2));
        EXPECT(json_num(r, "to_usd_per_year", -1) == json_num(best, "usd_per_year", -2));
        if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "answer_meets_at")))
            EXPECT(json_num(r, "to_usd_per_year", 0) < json_num(r, "answer_usd_per_year_at", 0));
        flips++;
    }
    EXPECT(flips > 0);
}

/* What decides the answer. With renting by the hour on 8-GPU nodes only, Sparks are far cheaper but
 * a Spark's LoRA job alone takes 41.9 h against 24 h: the deadline decides, and without it the
 * answer is the stage's own answer for a team that waits a year. With the per-second offer back,
 * renting is the cheapest either way: cost decides, by its margin over the next option that meets
 * the deadline. */
static void binding_and_flips(void)
{
    cJSON *d = document(), *lax_d = document();
    node_only(d);
    node_only(lax_d);
    cJSON_ReplaceItemInObject(team_of(lax_d), "deadline_h", cJSON_CreateNumber(8766));
    cJSON *out = stage_of(d), *lax = stage_of(lax_d), *cheap = stage_of(document());
    if (out && lax && cheap) {
        const cJSON *res = cJSON_GetObjectItemCaseSensitive(out, "results");
        const cJSON *b = find(res, "binding", "constraint", "deadline");
        const cJSON *ans = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(lax, "info"), "answer");
        EXPECT(b != NULL);
        EXPECT_STR(json_str(ans, "option", ""), "spark");
        EXPECT_STR(json_str(b, "without", ""), json_str(ans, "option", "?"));
        EXPECT(json_num(b, "margin_h", 0) > 0 && json_num(b, "job_result_p95_h", 0) > 24);
        check_flips(res);
        res = cJSON_GetObjectItemCaseSensitive(cheap, "results");
        b = find(res, "binding", "constraint", "cost");
        const cJSON *next = b ? find(res, "option", "option", json_str(b, "without", "?")) : NULL;
        const cJSON *a = find(res, "option", "option", "rent");
        EXPECT(b && next && a);
        if (b && next && a)
            EXPECT_NEAR(json_num(b, "margin_usd_per_year", 0),
                        json_num(next, "usd_per_year", 0) - json_num(a, "usd_per_year", 0), 1e-12);
        check_flips(res);
    }
    cJSON_Delete(out);
    cJSON_Delete(lax);
    cJSON_Delete(cheap);
}

/* The LoRA job's projection records of document d given a compiled stack beside them (issue 47: the
 * projection's r.compiled), or their central hours replaced by those (the same job on that stack alone). */
static void compiled_lora(cJSON *d, int replace)
{
    cJSON *r;
    cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(
                       cJSON_GetObjectItemCaseSensitive(d, "experiments"), 0), "results")) {
        if (strcmp(json_str(r, "series", ""), "projection") != 0 || strcmp(json_str(r, "workload", ""), "llama-3.1-8b-lora"))
            continue;
        double h = strcmp(json_str(r, "system", ""), "dgx-spark") == 0 ? 16.3 : 0.62;
        if (replace) {
            cJSON_ReplaceItemInObject(r, "hours", cJSON_CreateNumber(h));
            cJSON_ReplaceItemInObject(r, "hours_low", cJSON_CreateNumber(h));
            cJSON_ReplaceItemInObject(r, "hours_high", cJSON_CreateNumber(h));
            continue;
        }
        cJSON_AddStringToObject(r, "stack_name", "Hugging Face Trainer");
        cJSON *c = cJSON_AddObjectToObject(r, "compiled");
        cJSON_AddStringToObject(c, "stack_name", "PyTorch + torch.compile");
        cJSON_AddNumberToObject(c, "gpus", 1);
        cJSON_AddNumberToObject(c, "hours", h);
    }
}

/* A compiled stack on both sides (the LoRA job alone, hourly 8-GPU nodes only): the Spark's LoRA job takes
 * 16.3 h instead of 41.9, so the Sparks meet the 24 h deadline and the answer flips to them; the flip names the option the
 * stage finds for a document whose LoRA hours are the compiled ones, with its count and cost, and says the
 * Hugging Face Trainer runs the job on a GB10 at 16.3 / 41.9 of the compiled stack's speed. Without the
 * compiled records, no such flip. */
static void compiled_stack(void)
{
    cJSON *d = document(), *alone = document(), *plain = document();
    cJSON *docs[] = { d, alone, plain };
    for (int i = 0; i < 3; i++) {           /* the LoRA job alone: GPT-2 takes 82.5 h on a Spark whatever its stack */
        node_only(docs[i]);
        cJSON_DeleteItemFromArray(cJSON_GetObjectItemCaseSensitive(team_of(docs[i]), "jobs"), 1);
    }
    compiled_lora(d, 0);
    compiled_lora(alone, 1);
    cJSON *out = stage_of(d), *ref = stage_of(alone), *none = stage_of(plain);
    if (out && ref && none) {
        const cJSON *f = find(cJSON_GetObjectItemCaseSensitive(out, "results"), "flip", "what", "compiled_stack");
        const cJSON *ans = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(ref, "info"), "answer");
        const cJSON *a = find(cJSON_GetObjectItemCaseSensitive(ref, "results"), "option", "option",
                              json_str(ans, "option", "?"));
        EXPECT(f && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(f, "found")));
        EXPECT_STR(json_str(f, "to", ""), "spark");
        EXPECT_STR(json_str(ans, "option", ""), "spark");
        EXPECT(a && json_num(f, "to_count", -1) == json_num(a, "count", -2)
               && json_num(f, "to_usd_per_year", -1) == json_num(a, "usd_per_year", -2));
        const cJSON *j = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(f, "jobs"), 0);
        EXPECT(j && json_num(j, "speed_of_compiled", 0) == 16.3 / 41.9 && json_num(j, "spark_compiled_h", 0) == 16.3);
        EXPECT_STR(json_str(j, "compiled_stack_name", ""), "PyTorch + torch.compile");
        EXPECT(!find(cJSON_GetObjectItemCaseSensitive(none, "results"), "flip", "what", "compiled_stack"));
    }
    cJSON_Delete(out);
    cJSON_Delete(ref);
    cJSON_Delete(none);
}

/* Without a team: per-job rows and verdicts at the scenario's use (50 %), no options. A Spark-hour
 * bought costs its price over 3 years of hours at that use, its power training, and its idle power
 * over the hours it stands (1 - u) / u per busy hour. */
static void no_team(void)
{
    cJSON *d = document(), *scn = cJSON_GetObjectItemCaseSensitive(d, "scenario"), *list = cJSON_CreateArray();
    cJSON_DeleteItemFromObjectCaseSensitive(scn, "team");
    cJSON_AddItemToArray(list, cJSON_CreateString("gpt2-124m"));
    cJSON_AddItemToObject(scn, "decide", list);
    cJSON_AddNumberToObject(scn, "utilisation", 0.5);
    cJSON_AddNumberToObject(scn, "life_years", 3);
    cJSON_AddNumberToObject(scn, "kwh_usd", 0.15);
    cJSON *out = stage_of(d);
    if (!out)
        return;
    EXPECT(!find(cJSON_GetObjectItemCaseSensitive(out, "results"), "option", "kind", "spark"));
    const cJSON *r = row_of(out, "gpt2-124m", "dgx-spark", 1);
    double hour = 4699 / (3 * 8766 * 0.5) + 0.240 * 0.15 + 0.025 * 0.15 * (1 - 0.5) / 0.5;
    EXPECT(r && fabs(json_num(r, "buy_usd", 0) - 82.5 * hour) < 1e-9 * 82.5 * hour);
    const cJSON *v = find(cJSON_GetObjectItemCaseSensitive(out, "results"), "verdict", "workload", "gpt2-124m");
    EXPECT(v != NULL);
    if (v && r) {
        /* the break-even use: where the Spark's cost a job equals the cheapest HBM way's */
        double u = json_num(v, "break_even_utilisation", NAN), alt = json_num(v, "alt_usd", NAN);
        double at = 82.5 * (4699 / (3 * 8766 * u) + 0.240 * 0.15 + 0.025 * 0.15 * (1 - u) / u);
        EXPECT(u > 0 && fabs(at - alt) < 1e-6 * alt);
        EXPECT_STR(json_str(v, "alt_system", ""), "b200");
    }
    cJSON_Delete(out);
}

/* Jobs too rare for the simulated months (issue 50): a hundredth of a job a month alone is simulated
 * until 1000 jobs are counted, so every option has its 95th percentile; beside 9000 jobs a month (the
 * cap of 40000 arrivals: 4 months) it is drawn no time, and is judged by its run time, not left
 * without a figure that fails every option. */
static void rare_jobs(void)
{
    static const char *const teams[] = {
        "{\"people\":1,\"deadline_h\":8766,\"seed\":10,\"jobs\":[{\"workload\":\"gpt2-124m\",\"per_month\":0.01}]}",
        "{\"people\":1,\"deadline_h\":8766,\"jobs\":[{\"workload\":\"llama-3.1-8b-lora\",\"per_month\":9000},"
        "{\"workload\":\"gpt2-124m\",\"per_month\":0.01}]}",
    };
    for (int t = 0; t < 2; t++) {
        cJSON *doc = document(), *out = cJSON_CreateObject();
        cJSON *scn = cJSON_GetObjectItemCaseSensitive(doc, "scenario");
        cJSON_ReplaceItemInObjectCaseSensitive(scn, "team", cJSON_Parse(teams[t]));
        char err[512] = "";
        EXPECT(decide_stage(doc, out, err, sizeof err) == 0);
        const cJSON *r, *res = cJSON_GetObjectItemCaseSensitive(out, "results");
        int options = 0;
        cJSON_ArrayForEach(r, res) {
            if (strcmp(json_str(r, "series", ""), "option") != 0 || !cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "keeps_up")))
                continue;
            options++;
            EXPECT(json_num(r, "jobs_simulated", 0) >= (t == 0 ? 900 : 30000) && json_num(r, "result_p95_h", 0) > 0);
            EXPECT(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "meets_deadline")));   /* a year: all do */
        }
        EXPECT(options >= 2);
        cJSON_Delete(doc);
        cJSON_Delete(out);
    }
}

/* With a results file: the stage's output on it, and how long it took. */
static int run_file(const char *path)
{
    char err[512];
    cJSON *doc = json_load(path, (size_t)1 << 30, err, sizeof err), *out = cJSON_CreateObject();
    if (!doc) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    clock_t t0 = clock();
    int rc = decide_stage(doc, out, err, sizeof err);
    if (rc < 0)
        fprintf(stderr, "%s\n", err);
    char *text = cJSON_Print(out);
    printf("%s\n", text);
    fprintf(stderr, "decide_stage: %d, %.2f s of processor time\n", rc, (double)(clock() - t0) / CLOCKS_PER_SEC);
    free(text);
    cJSON_Delete(doc);
    cJSON_Delete(out);
    return rc < 0;
}

int main(int argc, char **argv)
{
    if (argc > 1)
        return run_file(argv[1]);
    queue_closed_forms();
    team_refusals();
    billing();
    stage();
    rows();
    binding_and_flips();
    compiled_stack();
    no_team();
    rare_jobs();
    return CHECK_DONE();
}
