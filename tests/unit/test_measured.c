/* test_measured.c: a team's own rate read as a trainer leaves it: the trainer_state.json NVIDIA's
 * LLaMA-Factory playbook run wrote on a DGX Spark (its printed metrics: total_flos 22851591 x 2^30,
 * train_runtime 1341.99 s, 2.437 samples/s; Llama-3 8B with LoRA rank 8 on every linear) gives 404.9
 * tok/s from total_flos over transformers' 7,525,896,192 parameters, 405.0 from samples x 166.2
 * tokens, and num_input_tokens_seen when the Trainer counted it; a TRL metrics line and torchtune's
 * log line; refusals naming the file, the key or the field. The files are written here. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "predict/measured.h"

static char dir[64];

static void put(const char *name, const char *text)
{
    char path[128];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    fputs(text, f);
    fclose(f);
}

static cJSON *given(const char *json)
{
    cJSON *g = cJSON_Parse(json);
    if (!g)
        printf("bad fixture json: %s\n", json);
    return g;
}

static const struct net_shape llama3_8b_lora8 = { .layers = 32, .hidden = 4096, .heads = 32, .seq = 2048, .vocab = 128256,
    .batch = 1, .accum = 8, .kv_heads = 8, .ffn = 14336, .mlp = NET_MLP_SWIGLU, .norm = NET_NORM_RMS, .nobias = 1,
    .rope = 1, .lora_rank = 8 };

static double rate(const char *json, char *err, size_t n)
{
    struct measured m;
    cJSON *g = given(json);
    int rc = measured_parse(g, dir, &llama3_8b_lora8, &m, err, n);
    cJSON_Delete(g);
    return rc == 0 ? m.tokens_per_s : -1;
}

int main(void)
{
    char err[512];
    snprintf(dir, sizeof dir, "/tmp/test_measured.XXXXXX");
    if (!mkdtemp(dir))
        return 1;
    EXPECT(measured_hf_params(&llama3_8b_lora8) == 7525896192.0);
    put("trainer_state.json", "{\"global_step\": 411, \"log_history\": [{\"epoch\": 0.07, \"loss\": 1.83, \"step\": 10}, "
        "{\"epoch\": 3.0, \"step\": 411, \"total_flos\": 24536709001641984, \"train_loss\": 0.9113, "
        "\"train_runtime\": 1341.99, \"train_samples_per_second\": 2.437, \"train_steps_per_second\": 0.306}]}");
    double r = rate("{\"job\": \"lf\", \"system\": \"dgx-spark\", \"trainer_state\": \"trainer_state.json\", "
                    "\"source\": \"the playbook's output\"}", err, sizeof err);
    EXPECT(fabs(r - 404.9) < 0.1);          /* 543,384 tokens over 1341.99 s */
    r = rate("{\"job\": \"lf\", \"system\": \"dgx-spark\", \"trainer_state\": \"trainer_state.json\", "
             "\"tokens_per_sample\": 166.2, \"source\": \"ours\"}", err, sizeof err);
    EXPECT(fabs(r - 2.437 * 166.2) < 1e-9);
    put("seen.json", "{\"num_input_tokens_seen\": 543384, \"log_history\": [{\"train_runtime\": 1341.99, "
        "\"train_samples_per_second\": 2.437}]}");
    r = rate("{\"job\": \"lf\", \"system\": \"dgx-spark\", \"trainer_state\": \"seen.json\", \"source\": \"ours\"}",
             err, sizeof err);
    EXPECT(fabs(r - 543384 / 1341.99) < 1e-9);
    /* the dict a Trainer or TRL prints at the end, in a log with other numbers before it */
    put("trl.log", "{'loss': 1.2, 'grad_norm': 0.5, 'learning_rate': 2e-05, 'epoch': 1.0}\n"
        "{'train_runtime': 872.12, 'train_samples_per_second': 3.749, 'train_steps_per_second': 0.471, "
        "'train_loss': 0.9993, 'epoch': 3.0}\n");
    r = rate("{\"job\": \"lf\", \"system\": \"dgx-spark\", \"log\": \"trl.log\", \"tokens_per_sample\": 166.1, "
             "\"source\": \"ours\"}", err, sizeof err);
    EXPECT(fabs(r - 3.749 * 166.1) < 1e-9);
    put("tt.log", "Step 9 | loss:1.30 lr:2e-05 tokens_per_second_per_gpu:2101.5\n"
        "Step 10 | loss:1.21 lr:2e-05 tokens_per_second_per_gpu:2091.0 peak_memory_active:25.5\n");
    r = rate("{\"job\": \"lf\", \"system\": \"a100-80g-sxm\", \"log\": \"tt.log\", \"source\": \"ours\"}", err, sizeof err);
    EXPECT(r == 2091.0);
    r = rate("{\"job\": \"lf\", \"system\": \"dgx-spark\", \"tokens_per_s\": 405, \"source\": \"ours\"}", err, sizeof err);
    EXPECT(r == 405);

    static const struct { const char *json, *want; } bad[] = {
        { "{\"job\": \"lf\", \"system\": \"dgx-spark\", \"tokens_per_s\": 405}",
          "measured[lf on dgx-spark]: job, system and source are needed (the source says whose run, and when)" },
        { "{\"job\": \"lf\", \"system\": \"dgx-spark\", \"tokens_per_s\": 405, \"log\": \"tt.log\", \"source\": \"s\"}",
          "measured[lf on dgx-spark]: give the rate one way: tokens_per_s, trainer_state or log (2 given)" },
        { "{\"job\": \"lf\", \"system\": \"dgx-spark\", \"log\": \"trl.log\", \"source\": \"s\"}",
          "measured[lf on dgx-spark]: DIR/trl.log: train_samples_per_second without tokens_per_sample: give the tokens a "
          "sample held" },
        { "{\"job\": \"lf\", \"system\": \"dgx-spark\", \"trainer_state\": \"empty.json\", \"source\": \"s\"}",
          "measured[lf on dgx-spark]: DIR/empty.json: no train_runtime in its log_history (a run that finished writes "
          "one)" },
        { "{\"job\": \"lf\", \"system\": \"dgx-spark\", \"tokens_per_s\": 405, \"source\": \"s\", \"speed\": 1}",
          "measured[lf on dgx-spark]: unknown parameter 'speed' (valid: job, log, source, spread, stack, system, "
          "tokens_per_s, tokens_per_sample, trainer_state)" },
    };
    put("empty.json", "{\"log_history\": [{\"loss\": 1.0}]}");
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char want[512], *d;
        snprintf(want, sizeof want, "%s", bad[i].want);
        if ((d = strstr(want, "DIR"))) {        /* the folder of this run's files */
            char rest[400];
            snprintf(rest, sizeof rest, "%s", d + 3);
            snprintf(d, sizeof want - (size_t)(d - want), "%s%s", dir, rest);
        }
        EXPECT(rate(bad[i].json, err, sizeof err) == -1);
        EXPECT_STR(err, want);
    }
    EXPECT(rate("{\"job\": \"lf\", \"system\": \"dgx-spark\", \"log\": \"missing.log\", \"source\": \"s\"}", err,
                sizeof err) == -1 && strstr(err, "missing.log") != NULL);
    char cmd[160];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        return 1;
    return CHECK_DONE();
}
