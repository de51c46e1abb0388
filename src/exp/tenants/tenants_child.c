/* tenants_child.c: one tenant, in its own process (`sparkreport tenant SPEC`, tenants.h): its job
 * set up and its output validated, then a ready line; when the run says start, its repetitions
 * through the one harness (measure_iterations, measure_repeat) with the process's CPU time over
 * them, its record as one line; then the same job again and again, untimed, until the run says
 * stop, so that every tenant's samples are taken while all N run. Jobs are table entries: the
 * stream (the bandwidth family's kernels and backends) and the training step (the train family's
 * backends through train_stepper). What the records mean together is tenants.c's. */
#include "exp/tenants/tenants.h"
#include "exp/tenants/tenants_int.h"

#include <math.h>
#include <omp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "exp/bandwidth/bandwidth.h"
#include "exp/train/train.h"
#include "measure/backend.h"
#include "measure/measure.h"
#include "util/error.h"
#include "util/json.h"
#include "util/timing.h"

const struct param tenants_spec_params[] = {
    { "job", PARAM_ENUM, 0, NULL, "stream|train", "stream", 0, 0, "the tenant's job" },
    { "device", PARAM_ENUM, 0, NULL, "cpu|gpu", "cpu", 0, 0, "where it runs" },
    { "tenant", PARAM_INT, 0, NULL, NULL, "1", 1, 64, "this tenant's number in its pool" },
    { "threads", PARAM_INT, 0, NULL, NULL, "1", 1, 4096, "OpenMP threads while it sets up (the CPU's jobs)" },
    { "n", PARAM_NUM, 0, NULL, NULL, "16", 16, 1e12, "stream: elements of each of its three arrays" },
    { "kernel", PARAM_ENUM, 0, NULL, "triad|read", "triad", 0, 0, "stream: the bandwidth kernel" },
    { "stores", PARAM_ENUM, 0, NULL, "cached|non-temporal", "non-temporal", 0, 0,
      "stream: how the kernel writes (non-temporal where the backend has such stores)" },
    { "precision", PARAM_ENUM, 0, NULL, "fp64|fp32|bf16|fp8", "fp64", 0, 0,
      "stream: fp64 or fp32 elements; train: the step's precision" },
    { "shape", PARAM_ENUM, 0, NULL, "tiny|small|medium|gpt2-small", "small", 0, 0, "train: the model shape preset" },
    { "ref_loss", PARAM_NUM, PARAM_LIST, "none", NULL, "none", 0, 1e6,
      "train: the losses of the first steps of the same configuration run once by the experiment" },
    MEASURE_PARAMS("0.05", "3", "20", "1", "0.002"),
    { NULL, 0, 0, NULL, NULL, NULL, 0, 0, NULL },
};

struct tenant {
    const cJSON *spec;
    cJSON *rec;
    /* the stream */
    const struct bw_ops *bw;
    struct bw_arrays x;
    enum bw_kernel kernel;
    long iters;
    double first_s;
    /* the training step */
    struct train_config cfg;
    struct train_stepper *st;
    int step;
};

struct job {
    const char *name;
    /* Sets up the job into t and validates its output into t->rec ("valid", "error"); 0 when it may
     * be timed, else -1 (the record says why). */
    int (*open)(struct tenant *t);
    void (*size)(struct tenant *t, double sample_s);   /* repetitions per sample (may be NULL) */
    double (*sample)(void *t);                          /* seconds of one repetition; NAN: failed */
    void (*finish)(struct tenant *t);                   /* the record's rates */
    void (*close)(struct tenant *t);
};

static int fail(struct tenant *t, const char *why)
{
    cJSON_ReplaceItemInObjectCaseSensitive(t->rec, "valid", cJSON_CreateFalse());
    cJSON_AddStringToObject(t->rec, "error", why);
    return -1;
}

/* ---- the stream ---- */

static int bw_prec(const char *name)
{
    for (int p = 0; p < BW_NPREC; p++)
        if (strcmp(bw_prec_names[p], name) == 0)
            return p;
    return -1;
}

static int stream_open(struct tenant *t)
{
    char why[300];
    const char *device = param_str(t->spec, "device");
    int p = bw_prec(param_str(t->spec, "precision"));
    if (p < 0)
        return fail(t, "the stream's precision is fp64 or fp32");
    if (!(t->bw = backend_for("bandwidth", device, why, sizeof why)))
        return fail(t, why);
    t->kernel = strcmp(param_str(t->spec, "kernel"), "read") == 0 ? BW_READ : BW_TRIAD;
    struct bw_layout l = { (size_t)param_num(t->spec, "n"), p, strcmp(device, "gpu") == 0 ? BW_PATH_DEVICE : BW_PATH_HOST,
                           (int)param_num(t->spec, "threads"), NULL, 1 };
    const struct bw_kernel_info *ki = &bw_kernels[t->kernel];
    double es = (double)bw_prec_size[p], n = (double)l.n;
    cJSON_AddStringToObject(t->rec, "kernel", ki->name);
    cJSON_AddStringToObject(t->rec, "precision", bw_prec_names[p]);
    cJSON_AddNumberToObject(t->rec, "n", n);
    cJSON_AddNumberToObject(t->rec, "array_bytes", n * es);
    cJSON_AddNumberToObject(t->rec, "working_set_bytes", 3 * n * es);   /* the three arrays it holds */
    cJSON_AddNumberToObject(t->rec, "bytes_per_pass", (ki->reads + ki->writes) * n * es);
    if (t->bw->alloc(&t->x, &l, why, sizeof why) != 0) {
        t->bw = NULL;
        return fail(t, why);
    }
    int nt = strcmp(param_str(t->spec, "stores"), "non-temporal") == 0 && t->x.nontemporal;
    t->x.stores = nt ? BW_STORES_NT : BW_STORES_CACHED;
    cJSON_AddStringToObject(t->rec, "stores", ki->writes == 0 ? "none" : bw_store_names[t->x.stores]);
    t->first_s = t->bw->run(&t->x, t->kernel, 1);
    double err = t->bw->check(&t->x, t->kernel), tol = bw_tolerance(p);
    cJSON_AddNumberToObject(t->rec, "max_rel_error", isfinite(err) ? err : 1e308);
    cJSON_AddNumberToObject(t->rec, "tolerance", tol);
    if (!(t->first_s >= 0))
        return fail(t, "the first pass failed");
    if (!(err <= tol)) {
        snprintf(why, sizeof why, "validation failed: relative error %.3g exceeds %.0e; not timed", err, tol);
        return fail(t, why);
    }
    cJSON_AddNumberToObject(t->rec, "first_pass_s", t->first_s);
    return 0;
}

static double stream_passes(void *ud, long iters)
{
    struct tenant *t = ud;
    return t->bw->run(&t->x, t->kernel, iters);
}

static void stream_size(struct tenant *t, double sample_s)
{
    t->iters = measure_iterations(stream_passes, t, sample_s, t->first_s);
    cJSON_AddNumberToObject(t->rec, "iters_per_sample", (double)t->iters);
}

static double stream_sample(void *ud)
{
    struct tenant *t = ud;
    double s = stream_passes(t, t->iters);
    return s >= 0 ? s / (double)t->iters : NAN;
}

static void stream_finish(struct tenant *t)
{
    const cJSON *b = cJSON_GetObjectItemCaseSensitive(t->rec, "bytes_per_pass");
    measure_rates(t->rec, "gbps", b->valuedouble);
}

static void stream_close(struct tenant *t)
{
    if (t->bw)
        t->bw->release(&t->x);
}

/* ---- the training step ---- */

static int train_open(struct tenant *t)
{
    char why[512];
    const char *device = param_str(t->spec, "device");
    cJSON *given = cJSON_CreateObject();
    cJSON_AddStringToObject(given, "device", device);
    cJSON_AddStringToObject(given, "shapes", param_str(t->spec, "shape"));
    cJSON_AddStringToObject(given, "precisions", param_str(t->spec, "precision"));
    cJSON *norm = param_check("train", train_params, given, why, sizeof why);
    cJSON_Delete(given);
    int n = norm ? train_configs(norm, &t->cfg, 1, why, sizeof why) : -1;
    cJSON_Delete(norm);
    if (n != 1)
        return fail(t, why);
    const struct train_ops *ops = backend_for("train", device, why, sizeof why);
    const struct net_shape *s = &t->cfg.shape;
    cJSON_AddStringToObject(t->rec, "shape", t->cfg.shape_name);
    cJSON_AddStringToObject(t->rec, "precision", net_prec_names[t->cfg.prec]);
    cJSON_AddNumberToObject(t->rec, "params", (double)net_param_count(s));
    cJSON_AddNumberToObject(t->rec, "tokens_per_step", (double)s->batch * s->seq * s->accum);
    if (!ops)
        return fail(t, why);
    if (!ops->supports(s, t->cfg.prec, why, sizeof why))
        return fail(t, why);
    if (!(t->st = train_stepper_open(ops, &t->cfg, why, sizeof why)))
        return fail(t, why);
    /* the first steps' losses against the experiment's own run of the same configuration */
    const cJSON *ref = param_get(t->spec, "ref_loss");
    int nref = cJSON_IsArray(ref) ? cJSON_GetArraySize(ref) : 0, ok = nref >= TRAIN_REF_STEPS;
    double worst = 0;
    cJSON *losses = cJSON_AddArrayToObject(t->rec, "loss_first_steps");
    for (int k = 0; k < TRAIN_REF_STEPS; k++, t->step++) {
        double s_k = train_stepper_step(t->st, t->step), loss = train_stepper_loss(t->st);
        if (isnan(s_k))
            return fail(t, train_stepper_error(t->st));
        cJSON_AddItemToArray(losses, cJSON_CreateNumber(isfinite(loss) ? loss : 1e308));
        if (k >= nref)
            continue;
        double want = cJSON_GetArrayItem(ref, k)->valuedouble, e = fabs(loss - want) / fmax(fabs(want), 1e-30);
        if (!(e <= worst))
            worst = isnan(e) ? INFINITY : e;
        ok &= e <= train_ref_tolerance(t->cfg.prec, k);
    }
    cJSON_AddNumberToObject(t->rec, "max_rel_error", isfinite(worst) ? worst : 1e308);
    cJSON_AddNumberToObject(t->rec, "tolerance", train_ref_tolerance(t->cfg.prec, TRAIN_REF_STEPS - 1));
    if (nref < TRAIN_REF_STEPS)
        return fail(t, "validation failed: no reference losses to check the first steps against; not timed");
    if (!ok) {
        snprintf(why, sizeof why, "validation failed: a first step's loss is %.3g away from the reference run's, "
                 "relative (allowed %g, then %g); not timed", worst, train_ref_tolerance(t->cfg.prec, 0),
                 train_ref_tolerance(t->cfg.prec, 1));
        return fail(t, why);
    }
    return 0;
}

static double train_sample(void *ud)
{
    struct tenant *t = ud;
    /* the schedule's steps over again: the learning rate and the batch of a real step */
    return train_stepper_step(t->st, t->step++ % t->cfg.steps);
}

static void train_finish(struct tenant *t)
{
    double med = measure_time(t->rec, "median");
    const cJSON *tok = cJSON_GetObjectItemCaseSensitive(t->rec, "tokens_per_step");
    if (isfinite(med))
        cJSON_AddNumberToObject(t->rec, "tokens_per_s", tok->valuedouble / med);
    if (train_stepper_error(t->st)) {
        cJSON_ReplaceItemInObjectCaseSensitive(t->rec, "valid", cJSON_CreateFalse());
        cJSON_AddStringToObject(t->rec, "error", train_stepper_error(t->st));
    }
}

static void train_close(struct tenant *t) { train_stepper_close(t->st); }

static const struct job jobs[] = {
    { "stream", stream_open, stream_size, stream_sample, stream_finish, stream_close },
    { "train", train_open, NULL, train_sample, train_finish, train_close },
};

/* ---- the tenant's life ---- */

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void say(const cJSON *j)
{
    char *text = cJSON_PrintUnformatted(j);
    printf("%s\n", text);
    fflush(stdout);
    free(text);
}

/* 1 when the run has written to us or closed our input (stop), without waiting. */
static int told_to_stop(void)
{
    struct pollfd p = { STDIN_FILENO, POLLIN, 0 };
    return poll(&p, 1, 0) != 0;
}

static void measure(const struct job *j, struct tenant *t, double repeat_s)
{
    struct measure_rule rule;
    measure_rule_from(&rule, t->spec);
    rule.budget_s = repeat_s;
    double w0 = timing_now(), c0 = cpu_now();
    if (j->size)
        j->size(t, rule.sample_s);
    measure_repeat(t->rec, &rule, j->sample, t);
    double w1 = timing_now(), cpu = cpu_now() - c0;
    cJSON_AddNumberToObject(t->rec, "started_s", w0);      /* CLOCK_MONOTONIC: one clock for all tenants */
    cJSON_AddNumberToObject(t->rec, "ended_s", w1);
    if (strcmp(param_str(t->spec, "device"), "cpu") == 0) {
        cJSON_AddNumberToObject(t->rec, "window_s", w1 - w0);
        cJSON_AddNumberToObject(t->rec, "cpu_s", cpu);
    }
    j->finish(t);
}

static cJSON *new_record(const cJSON *spec)
{
    cJSON *rec = cJSON_CreateObject();
    cJSON_AddStringToObject(rec, "series", param_str(spec, "job"));
    cJSON_AddStringToObject(rec, "device", param_str(spec, "device"));
    cJSON_AddNumberToObject(rec, "tenant", param_num(spec, "tenant"));
    cJSON_AddBoolToObject(rec, "valid", 1);
    return rec;
}

/* The run's next line into buf (its newline dropped); 0 at end of file. */
static int command(char *buf, size_t n)
{
    size_t len = 0;
    char c;
    while (read(STDIN_FILENO, &c, 1) == 1) {
        if (c == '\n') {
            buf[len] = '\0';
            return 1;
        }
        if (len + 1 < n)
            buf[len++] = c;
    }
    return 0;
}

/* The job untimed until the run writes anything (0), or until it failed (-1). */
static int load(const struct job *j, struct tenant *t)
{
    while (!told_to_stop())
        if (isnan(j->sample(t)))
            return -1;
    return 0;
}

/* Each round the run asks for: its job untimed until every tenant of the round runs, then a record
 * (the set-up's fields and this round's measurement), then the job untimed until the run says more. */
static void rounds(const struct job *j, struct tenant *t)
{
    char cmd[64];
    cJSON *setup = t->rec;
    for (int round = 1; command(cmd, sizeof cmd);) {
        int threads = 0;
        double repeat_s = 0;
        if (cmd[0] != TENANTS_MEASURE || sscanf(cmd + 1, "%d %lf", &threads, &repeat_s) != 2 || threads < 1
            || !(repeat_s > 0))
            continue;
        if (strcmp(param_str(t->spec, "device"), "cpu") == 0)
            omp_set_num_threads(threads);
        cJSON *loading = cJSON_CreateObject();
        cJSON_AddBoolToObject(loading, TENANTS_LOADING, 1);
        cJSON_AddNumberToObject(loading, "round", round);
        say(loading);
        cJSON_Delete(loading);
        t->rec = cJSON_Duplicate(setup, 1);
        cJSON_AddNumberToObject(t->rec, "round", round++);
        if (load(j, t) != 0) {              /* its record says so at once */
            fail(t, "the job failed while it ran untimed before the round's measurement");
            say(t->rec);
        }
        if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(t->rec, "valid")) || !command(cmd, sizeof cmd)
            || cmd[0] != TENANTS_TIME) {
            cJSON_Delete(t->rec);
            continue;                       /* failed, or the run gave the round up */
        }
        if (strcmp(param_str(t->spec, "device"), "cpu") == 0)
            cJSON_AddNumberToObject(t->rec, "threads", threads);
        measure(j, t, repeat_s);
        say(t->rec);
        int ok = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(t->rec, "valid"));
        cJSON_Delete(t->rec);
        if (ok)
            load(j, t);                     /* while the other tenants measure */
    }
    t->rec = setup;
}

int tenants_serve(int argc, char **argv)
{
    char err[512];
    if (argc != 3) {
        fprintf(stderr, "sparkreport: tenant takes one argument, the tenant's JSON spec; the tenants experiment "
                "runs it, not a user (see sparkreport --help)\n");
        return SR_EXIT_USAGE;
    }
    cJSON *given = json_parse("the tenant's spec", argv[2], strlen(argv[2]), err, sizeof err);
    cJSON *spec = given ? param_check("tenant", tenants_spec_params, given, err, sizeof err) : NULL;
    cJSON_Delete(given);
    if (!spec) {
        fprintf(stderr, "sparkreport: %s\n", err);
        return SR_EXIT_USAGE;
    }
    const struct job *j = &jobs[strcmp(param_str(spec, "job"), "train") == 0];
    struct tenant t = { .spec = spec, .rec = new_record(spec) };
    if (strcmp(param_str(spec, "device"), "cpu") == 0)
        omp_set_num_threads((int)param_num(spec, "threads"));
    if (j->open(&t) != 0) {
        say(t.rec);                         /* its record, failed: the run reads why */
    } else {
        cJSON *ready = cJSON_CreateObject();
        cJSON_AddBoolToObject(ready, TENANTS_READY, 1);
        say(ready);
        cJSON_Delete(ready);
        rounds(j, &t);                      /* until end of file: the run is done with us */
    }
    j->close(&t);
    cJSON_Delete(t.rec);
    cJSON_Delete(spec);
    return SR_EXIT_OK;
}
