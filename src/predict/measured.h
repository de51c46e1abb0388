/* measured.h: a rate a team measured itself (sr.measured { job = ..., system = ..., ... }): a job's
 * tokens per second on one system and stack, given as a figure or read from what a trainer leaves
 * behind (a Hugging Face Trainer's trainer_state.json, or the final metrics line a Trainer, TRL or
 * torchtune prints), with its source; parsed once where it enters. How the projection uses it (its
 * job's rows calibrated on it) is project.c's. */
#ifndef SR_PREDICT_MEASURED_H
#define SR_PREDICT_MEASURED_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "net/plan.h"
#include "util/param.h"

extern const struct param measured_params[];

struct measured {
    char job[96], system[48], stack[32], source[400];
    char from[300];             /* how the rate was had: "given", or the file and what it held */
    double tokens_per_s;        /* per GPU, on every GPU the job ran on */
    double spread;              /* the rate is known to within this share either way */
};

/* Parses `given` into m. The rate is tokens_per_s; or from a trainer_state.json (its log_history's
 * last train_runtime with num_input_tokens_seen, or train_samples_per_second x tokens_per_sample, or
 * total_flos over the 6 x parameters transformers counts (the embedding left out) of `shape`, the
 * job's); or from a log's last metrics line (train_runtime and train_samples_per_second with
 * tokens_per_sample; torchtune's tokens_per_second_per_gpu). Files are relative to base_dir. 0, or -1
 * with err = "measured[JOB on SYSTEM]: ..." naming the field, file or key. */
int measured_parse(const cJSON *given, const char *base_dir, const struct net_shape *shape, struct measured *m,
                   char *err, size_t errlen);

/* The rate as plain data (its fields, the rate in tokens_per_s, and `from`): what a results file keeps
 * and measured_parse reads back the same. */
cJSON *measured_json(const struct measured *m);

/* The parameters transformers' num_parameters(exclude_embeddings=True) counts for a shape: every weight
 * but the token (and GPT-2's position) embedding, an untied head included, LoRA's adapters too. */
double measured_hf_params(const struct net_shape *s);

#endif
