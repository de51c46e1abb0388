/* measured.c: a team's own measured rate, checked against measured_params and taken from a figure or
 * read from a trainer's trainer_state.json or metrics line; the file's numbers, not guesses, or a
 * refusal naming what is missing. */
#include "predict/measured.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "predict/stack.h"
#include "util/fsutil.h"
#include "util/json.h"

const struct param measured_params[] = {
    { "job", PARAM_STR, 0, NULL, NULL, "none", 0, 0, "the sr.job (or reference workload) the rate is of" },
    { "system", PARAM_STR, 0, NULL, NULL, "none", 0, 0, "the catalog system it ran on" },
    { "stack", PARAM_ENUM, 0, NULL, "auto|" PREDICT_STACK_IDS, "auto", 0, 0, "the stack it ran on (auto: the job's)" },
    { "tokens_per_s", PARAM_NUM, 0, NULL, NULL, "0", 0, 1e9,
      "tokens per second per GPU it trained at (0: read from trainer_state or log)" },
    { "trainer_state", PARAM_STR, 0, "none", NULL, "none", 0, 0,
      "a Hugging Face Trainer's trainer_state.json: its log_history's last train_runtime, with num_input_tokens_seen, "
      "train_samples_per_second and tokens_per_sample, or total_flos" },
    { "log", PARAM_STR, 0, "none", NULL, "none", 0, 0,
      "a training log: its last metrics line (the Trainer's and TRL's {'train_runtime': ..., "
      "'train_samples_per_second': ...}, with tokens_per_sample; torchtune's tokens_per_second_per_gpu)" },
    { "tokens_per_sample", PARAM_NUM, 0, NULL, NULL, "0", 0, 1e7,
      "tokens a sample held, padding included (what a rate in samples per second is turned into tokens with)" },
    { "spread", PARAM_NUM, 0, NULL, NULL, "0.03", 0.001, 0.5,
      "the rate is known to within this share either way (run to run; 3 %: the repeats of one configuration)" },
    { "source", PARAM_STR, 0, NULL, NULL, "none", 0, 0, "where the figure comes from (\"our run of 2026-11-20\")" },
    { NULL, 0, 0, NULL, NULL, NULL, 0, 0, NULL },
};

double measured_hf_params(const struct net_shape *s)
{
    size_t r, c, n = net_param_count(s);
    net_param_dims(s, NET_P_WTE, &r, &c);
    n -= r * c;
    net_param_dims(s, NET_P_WPE, &r, &c);
    n -= r * c;
    return (double)n + (s->lora_rank > 0 ? (double)net_lora_count(s) : 0);
}

/* The last number a text gives after `key` (quoted or not, then ':' or '=' and spaces), or NAN. */
static double last_number(const char *text, const char *key)
{
    double v = NAN;
    size_t k = strlen(key);
    for (const char *p = strstr(text, key); p; p = strstr(p + k, key)) {
        const char *q = p + k;
        q += *q == '\'' || *q == '"';
        q += strspn(q, " ");
        if (*q != ':' && *q != '=')
            continue;
        q += 1 + strspn(q + 1, " ");
        char *end;
        double x = strtod(q, &end);
        if (end != q && isfinite(x))
            v = x;
    }
    return v;
}

/* A file relative to base_dir, read whole (at most 64 MiB: a log). */
static char *read_rel(const char *base_dir, const char *file, char *path, size_t pn, size_t *n, char *err, size_t errlen)
{
    char *text = NULL;
    snprintf(path, pn, "%s%s%s", file[0] == '/' || !base_dir ? "" : base_dir, file[0] == '/' || !base_dir ? "" : "/",
             file);
    return fs_read_file(path, 64u << 20, &text, n, err, errlen) == 0 ? text : NULL;
}

/* The rate in a trainer_state.json: tokens over the last train_runtime of its log_history. */
static int from_state(const cJSON *doc, const char *path, double tps, const struct net_shape *shape, struct measured *m,
                      char *err, size_t errlen)
{
    const cJSON *h = cJSON_GetObjectItemCaseSensitive(doc, "log_history"), *e, *last = NULL;
    cJSON_ArrayForEach(e, h) {
        if (cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(e, "train_runtime")))
            last = e;
    }
    double rt = json_num(last, "train_runtime", NAN), seen = json_num(doc, "num_input_tokens_seen", NAN);
    double sps = json_num(last, "train_samples_per_second", NAN), flos = json_num(last, "total_flos", NAN);
    if (!(rt > 0)) {
        snprintf(err, errlen, "%.300s: no train_runtime in its log_history (a run that finished writes one)", path);
        return -1;
    }
    double hf = measured_hf_params(shape);
    if (seen > 0) {
        m->tokens_per_s = seen / rt;
        snprintf(m->from, sizeof m->from, "%.160s: num_input_tokens_seen %.0f over train_runtime %.2f s", path, seen, rt);
    } else if (sps > 0 && tps > 0) {
        m->tokens_per_s = sps * tps;
        snprintf(m->from, sizeof m->from, "%.160s: train_samples_per_second %g x %g tokens a sample", path, sps, tps);
    } else if (flos > 0 && hf > 0) {    /* transformers' total_flos: 6 x tokens x parameters without the embedding */
        m->tokens_per_s = flos / (6 * hf) / rt;
        snprintf(m->from, sizeof m->from, "%.160s: total_flos %.6g / (6 x %.6g parameters) over train_runtime %.2f s", path,
                 flos, hf, rt);
    } else {
        snprintf(err, errlen, "%.300s: neither num_input_tokens_seen, nor train_samples_per_second with tokens_per_sample, "
                 "nor total_flos: its tokens cannot be told", path);
        return -1;
    }
    return 0;
}

/* The rate in a log: torchtune's last tokens_per_second_per_gpu, or the Trainer's last train_runtime line's
 * train_samples_per_second x tokens a sample. */
static int from_log(const char *text, const char *path, double tps, struct measured *m, char *err, size_t errlen)
{
    double tt = last_number(text, "tokens_per_second_per_gpu"), sps = last_number(text, "train_samples_per_second");
    if (tt > 0) {
        m->tokens_per_s = tt;
        snprintf(m->from, sizeof m->from, "%.160s: tokens_per_second_per_gpu %g", path, tt);
    } else if (sps > 0 && tps > 0) {
        m->tokens_per_s = sps * tps;
        snprintf(m->from, sizeof m->from, "%.160s: train_samples_per_second %g x %g tokens a sample", path, sps, tps);
    } else {
        snprintf(err, errlen, sps > 0 ? "%.300s: train_samples_per_second without tokens_per_sample: give the tokens a "
                 "sample held" : "%.300s: no metrics line (tokens_per_second_per_gpu, or train_samples_per_second)", path);
        return -1;
    }
    return 0;
}

int measured_parse(const cJSON *given, const char *base_dir, const struct net_shape *shape, struct measured *m,
                   char *err, size_t errlen)
{
    char what[200], why[480], path[600];
    memset(m, 0, sizeof *m);
    snprintf(what, sizeof what, "measured[%.60s on %.40s]", json_str(given, "job", "?"), json_str(given, "system", "?"));
    cJSON *g = cJSON_Duplicate(given, 1);             /* a results file's copy says how the rate was had */
    if (cJSON_IsObject(g))
        cJSON_DeleteItemFromObjectCaseSensitive(g, "from");
    cJSON *p = param_check(what, measured_params, g, err, errlen);
    cJSON_Delete(g);
    if (!p)
        return -1;
    snprintf(m->job, sizeof m->job, "%s", param_str(p, "job"));
    snprintf(m->system, sizeof m->system, "%s", param_str(p, "system"));
    snprintf(m->stack, sizeof m->stack, "%s", param_str(p, "stack"));
    snprintf(m->source, sizeof m->source, "%s", param_str(p, "source"));
    m->spread = param_num(p, "spread");
    double tps = param_num(p, "tokens_per_sample");
    const char *state = param_str(p, "trainer_state"), *log = param_str(p, "log");
    int forms = (param_num(p, "tokens_per_s") > 0) + (strcmp(state, "none") != 0) + (strcmp(log, "none") != 0);
    int rc = -1;
    if (strcmp(m->job, "none") == 0 || strcmp(m->system, "none") == 0 || strcmp(m->source, "none") == 0) {
        snprintf(err, errlen, "%s: job, system and source are needed (the source says whose run, and when)", what);
    } else if (forms != 1) {
        snprintf(err, errlen, "%s: give the rate one way: tokens_per_s, trainer_state or log (%d given)", what, forms);
    } else if (param_num(p, "tokens_per_s") > 0) {
        m->tokens_per_s = param_num(p, "tokens_per_s");
        snprintf(m->from, sizeof m->from, "%s", json_str(given, "from", "given"));
        rc = 0;
    } else {
        size_t n;
        char *text = read_rel(base_dir, strcmp(state, "none") != 0 ? state : log, path, sizeof path, &n, why, sizeof why);
        cJSON *doc = text && strcmp(state, "none") != 0 ? json_parse(path, text, n, why, sizeof why) : NULL;
        if (text && strcmp(state, "none") != 0)
            rc = doc ? from_state(doc, path, tps, shape, m, why, sizeof why) : -1;
        else if (text)
            rc = from_log(text, path, tps, m, why, sizeof why);
        if (rc != 0)
            snprintf(err, errlen, "%s: %s", what, why);
        cJSON_Delete(doc);
        free(text);
    }
    cJSON_Delete(p);
    return rc;
}

cJSON *measured_json(const struct measured *m)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "job", m->job);
    cJSON_AddStringToObject(o, "system", m->system);
    cJSON_AddStringToObject(o, "stack", m->stack);
    cJSON_AddNumberToObject(o, "tokens_per_s", m->tokens_per_s);
    cJSON_AddNumberToObject(o, "spread", m->spread);
    cJSON_AddStringToObject(o, "source", m->source);
    cJSON_AddStringToObject(o, "from", m->from);
    return o;
}
