/* experiment.c: the rows of the experiment registry and the scenario's own parameters. */
#include "exp/experiment.h"

#include <stdio.h>
#include <string.h>

#include "exp/bandwidth/bandwidth.h"
#include "exp/collective/collective.h"
#include "exp/compress/compress.h"
#include "exp/model/model.h"
#include "exp/precision/precision.h"
#include "exp/tenants/tenants.h"
#include "exp/train/train.h"

const struct experiment experiments[] = {
    { "bandwidth", "memory bandwidth: STREAM kernels over a working-set sweep and thread counts",
      bw_params, 1.0, bw_precheck, bw_run },
    { "precision", "compute per number format: FMA peaks, GEMM sweeps, intensity sweep (roofline knee), "
      "numerical error against FP64", prec_params, 0.375, prec_precheck, prec_run },
    { "train", "a GPT-style decoder trained on a generated n-gram corpus: loss against the entropy bound, "
      "step time, tokens/s, FLOP/s and every op timed", train_params, 0.5, train_precheck, train_run },
    { "compress", "quantization and pruning: weight-streaming products per scheme (time, physical bytes, "
      "speed-up over FP32 and BF16), layer output error, held-out loss of a trained model", compress_params,
      0.25, compress_precheck, compress_run },
    { "model", "the training-time model: calibrated on microbenchmarks (ops timed on their own, GEMM peak, DRAM "
      "read, intensity sweep), validated by predicting then measuring training steps, projected onto the catalog",
      model_params, 0.2, model_precheck, model_run },
    { "collective", "point-to-point latency and bandwidth, all-reduce, all-gather and reduce-scatter across the ranks "
      "mpirun started (nccl-tests' algorithm and bus bandwidth); one rank: not measured", coll_params, 0.25,
      coll_precheck, coll_run },
    { "tenants", "shared use: 1, 2, 4 jobs at once, each a separate process (a bandwidth stream, a training step): each "
      "tenant's time, its slowdown against running alone, its share of the alone bandwidth", tenants_params, 0.15,
      tenants_precheck, tenants_run },
    { NULL, NULL, NULL, 0, NULL, NULL },
};

const struct param scenario_params[] = {
    { "title", PARAM_STR, 0, NULL, NULL, "Memory bandwidth and training time", 0, 0,
      "title of the report" },
    { "budget_s", PARAM_NUM, 0, NULL, NULL, "300", 5, 86400,
      "seconds for the whole run, measurements included" },
    { "template", PARAM_ENUM, 0, NULL, "procurement", "procurement", 0, 0,
      "report template (templates/NAME.lua): which sections, in which order" },
    { "systems", PARAM_STR, PARAM_LIST, "compared", NULL, "compared", 0, 0,
      "catalog systems whose spec figures the report shows beside this machine's (its old name, compare, is "
      "still read); compared: the report's subject and the systems it is compared with (data/systems.csv's "
      "roles)" },
    { "baseline", PARAM_STR, 0, NULL, NULL, "none", 0, 0,
      "run to compare this one with (comparison.pdf/.json in the run folder, exit 6 when slower): "
      "none; latest (DIR/latest before this run); a run folder's name in DIR; a path with a '/'" },
    { "decide", PARAM_ENUM, PARAM_LIST, NULL,
      "gpt2-124m|gpt2-355m|gpt2-774m|gpt2-1.5b|llama-3.2-1b|llama-3.2-3b|llama-3.1-8b|llama-3.1-8b-adam8|"
      "llama-3.1-8b-bf16adam|llama-3.1-8b-lora|llama-3.1-8b-qlora|llama-3.3-70b-qlora",
      "gpt2-124m,llama-3.1-8b-lora,llama-3.1-8b,llama-3.1-8b-adam8,llama-3.3-70b-qlora", 0, 0,
      "reference workloads the decision page answers for (ids of src/predict/workloads.c; sr.model must project them)" },
    { "life_years", PARAM_NUM, 0, NULL, NULL, "3", 0.25, 20,
      "years over which a purchase price is spread in the cost per job (straight-line)" },
    { "utilisation", PARAM_NUM, 0, NULL, NULL, "0.5", 0.01, 1,
      "share of the hours of that life a bought system runs jobs (the rest of its price is idle time)" },
    { "kwh_usd", PARAM_NUM, 0, NULL, NULL, "0.15", 0, 10,
      "electricity price in USD per kWh for the energy of a job on a bought system" },
    { "team_name", PARAM_STR, 0, NULL, NULL, "one ML team", 0, 0,
      "who the decision is for, as the decision report's title names them: \"DGX Spark or HBM GPUs for "
      "TEAM_NAME: training cost and time\"" },
    { NULL, 0, 0, NULL, NULL, NULL, 0, 0, NULL },
};

const struct experiment *experiment_find(const char *name)
{
    for (const struct experiment *e = experiments; e->name; e++)
        if (strcmp(e->name, name) == 0)
            return e;
    return NULL;
}

char *experiment_names(char *buf, size_t n)
{
    size_t o = 0;
    buf[0] = '\0';
    for (const struct experiment *e = experiments; e->name && o < n; e++)
        o += (size_t)snprintf(buf + o, n - o, "%s%s", o ? ", " : "", e->name);
    return buf;
}
