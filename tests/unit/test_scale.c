/* test_scale.c: the scale-out projection's arithmetic against hand-computed step times (N = 2
 * and 8 devices of GPT-2 124M's FP32 gradients over a Spark's 200 Gb/s ConnectX-7; ZeRO-3 over
 * NVLink), and the records predict_scale appends: link source, band, efficiency, what it refuses. */
#include <stdlib.h>

#include <cjson/cJSON.h>

#include "check.h"
#include "predict/project.h"
#include "predict/scale.h"
#include "util/json.h"

static void arithmetic(void)
{
    double g = 4.0 * 124e6;                                 /* FP32 gradients of 124M parameters, bytes */
    EXPECT(predict_scale_traffic(1, g, 0, 0) == 0);
    EXPECT_NEAR(predict_scale_traffic(2, g, 0, 0), 496e6, 1e-12);          /* 2 x 1/2 x G */
    EXPECT_NEAR(predict_scale_traffic(8, g, 0, 0), 868e6, 1e-12);          /* 2 x 7/8 x G */
    EXPECT_NEAR(predict_scale_traffic(4, 4e9, 2e9, 1), 6e9, 1e-12);        /* 3/4 x (4e9 + 2 x 2e9) */
    EXPECT_NEAR(predict_scale_traffic(4, 4e9, 2e9, 3), 18e9, 1e-12);       /* per micro-batch, 3 of them */
    /* 0.5 s of compute; 496 MB at 25 GB/s is 19.84 ms, half of it hidden */
    EXPECT_NEAR(predict_scale_step(0.5, 496e6, 25e9, 0.5), 0.50992, 1e-12);
    EXPECT_NEAR(predict_scale_step(0.5, 868e6, 25e9, 0.5), 0.51736, 1e-12);  /* 34.72 ms, half hidden */
    EXPECT_NEAR(predict_scale_step(0.5, 868e6, 25e9, 0.0), 0.53472, 1e-12);
    EXPECT_NEAR(predict_scale_step(1.0, 6e9, 450e9, 0.0), 1.0 + 6e9 / 450e9, 1e-12);
    EXPECT(predict_scale_step(0.5, 0, 0, 0.5) == 0.5);
}

static cJSON *projection(const char *system)
{
    cJSON *p = cJSON_CreateObject();
    cJSON_AddStringToObject(p, "series", "projection");
    cJSON_AddStringToObject(p, "workload", "gpt2-124m");
    cJSON_AddStringToObject(p, "system", system);
    cJSON_AddStringToObject(p, "system_kind", "catalog");
    cJSON_AddStringToObject(p, "offload", "none");
    cJSON_AddNumberToObject(p, "step_s", 0.5);
    cJSON_AddNumberToObject(p, "tokens_per_s", 1000);     /* 500 tokens per step */
    cJSON_AddNumberToObject(p, "hours", 10);
    cJSON_AddNumberToObject(p, "hours_low", 8);
    cJSON_AddNumberToObject(p, "hours_high", 12);
    return p;
}

static const cJSON *find(const cJSON *results, const char *system, int devices)
{
    const cJSON *r;
    cJSON_ArrayForEach(r, results)
        if (strcmp(json_str(r, "series", ""), "scaleout") == 0 && strcmp(json_str(r, "system", ""), system) == 0
            && json_num(r, "devices", 0) == devices)
            return r;
    return NULL;
}

static void records(void)
{
    cJSON *rows = cJSON_Parse("[{\"id\":\"dgx-spark\",\"fabric_nvlink_domain\":1,\"fabric_nic\":\"ConnectX-7\","
                              "\"fabric_nic_gbs_per_gpu\":25}]");
    cJSON *info = cJSON_Parse("{\"workloads\":[{\"id\":\"gpt2-124m\",\"params\":124e6,\"tokens\":1.8e6}]}");
    cJSON *results = cJSON_CreateArray();
    cJSON_AddItemToArray(results, projection("dgx-spark"));
    cJSON_AddItemToArray(results, projection("this"));
    struct predict_inputs in = { .catalog = rows };
    predict_scale(&in, results, info);
    const cJSON *one = find(results, "dgx-spark", 1), *two = find(results, "dgx-spark", 2), *r8 = find(results, "dgx-spark", 8);
    EXPECT(one && two && r8);
    if (!one || !two || !r8)
        return;
    EXPECT_NEAR(json_num(one, "step_s", 0), 0.5, 1e-12);
    /* the global batch (500 tokens) split in two: 0.25 s of compute + half of 19.84 ms */
    EXPECT_NEAR(json_num(two, "step_s", 0), 0.25992, 1e-12);
    EXPECT_NEAR(json_num(two, "tokens_per_s", 0), 500 / 0.25992, 1e-12);
    EXPECT_NEAR(json_num(two, "scaling_efficiency", 0), 0.5 / (2 * 0.25992), 1e-12);
    EXPECT_NEAR(json_num(two, "scaling_efficiency_low", 0), 0.5 / (2 * 0.26984), 1e-12);     /* nothing hidden */
    EXPECT_NEAR(json_num(two, "step_s_high", 0), 0.3 + 0.01984, 1e-12);      /* slow compute, nothing hidden */
    EXPECT_NEAR(json_num(two, "step_s_low", 0), 0.2 + 0.1 * 0.01984, 1e-12); /* fast compute, 90 % hidden */
    EXPECT_NEAR(json_num(r8, "step_s", 0), 0.0625 + 0.01736, 1e-12);
    EXPECT_NEAR(json_num(r8, "hours", 0), 1.8e6 / (500 / 0.07986) / 3600, 1e-12);
    EXPECT(strstr(json_str(two, "link_source", ""), "spec: ConnectX-7 (25 GB/s") != NULL);
    EXPECT(find(results, "this", 2) == NULL);       /* no link between machines measured */
    EXPECT_STR(json_str(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(info, "scaleout_not_projected"), 0), "reason", ""),
               "no link measured: the collective did not run between machines");
    EXPECT(cJSON_GetObjectItemCaseSensitive(info, "scaleout_rules") != NULL);
    cJSON_Delete(results);
    cJSON_Delete(info);
    /* measured across two hosts: this machine scales over that link */
    info = cJSON_Parse("{\"workloads\":[{\"id\":\"gpt2-124m\",\"params\":124e6,\"tokens\":1.8e6}]}");
    results = cJSON_CreateArray();
    cJSON_AddItemToArray(results, projection("this"));
    in.link_Bps = 10e9;
    in.link_ranks = 2;
    in.link_hosts = 2;
    predict_scale(&in, results, info);
    two = find(results, "this", 2);
    EXPECT(two && strstr(json_str(two, "link_source", ""), "measured") != NULL);
    EXPECT(two && fabs(json_num(two, "step_s", 0) - (0.25 + 0.5 * 496e6 / 10e9)) < 1e-12);
    cJSON_Delete(results);
    cJSON_Delete(info);
    /* a BF16 recipe reduces BF16 gradients: half the traffic, 248 MB at 25 GB/s over two Sparks */
    info = cJSON_Parse("{\"workloads\":[{\"id\":\"gpt2-124m\",\"params\":124e6,\"tokens\":1.8e6,\"precision\":\"bf16\"}]}");
    results = cJSON_CreateArray();
    cJSON_AddItemToArray(results, projection("dgx-spark"));
    in.link_Bps = 0;
    predict_scale(&in, results, info);
    two = find(results, "dgx-spark", 2);
    EXPECT(two && fabs(json_num(two, "traffic_bytes", 0) - 248e6) < 1e-3);
    EXPECT(two && fabs(json_num(two, "step_s", 0) - (0.25 + 0.5 * 248e6 / 25e9)) < 1e-12);
    cJSON_Delete(results);
    cJSON_Delete(info);
    cJSON_Delete(rows);
}

/* One device had to offload: N devices shard instead (ZeRO-3), the offload's time gone, the
 * weights gathered twice and the gradients reduce-scattered per micro-batch; the efficiency
 * compares like with like, never above 1. */
static void zero3(void)
{
    cJSON *rows = cJSON_Parse("[{\"id\":\"dgx-spark\",\"fabric_nvlink_domain\":1,\"fabric_nic_gbs_per_gpu\":25}]");
    cJSON *info = cJSON_Parse("{\"workloads\":[{\"id\":\"gpt2-124m\",\"params\":124e6,\"tokens\":1.8e6}]}");
    cJSON *results = cJSON_CreateArray(), *p = projection("dgx-spark");
    cJSON_ReplaceItemInObject(p, "offload", cJSON_CreateString("optimizer"));
    cJSON_ReplaceItemInObject(p, "step_s", cJSON_CreateNumber(0.6));
    cJSON_AddNumberToObject(p, "offload_s_per_step", 0.1);
    cJSON_AddNumberToObject(p, "accum", 4);
    cJSON_AddItemToArray(results, p);
    struct predict_inputs in = { .catalog = rows };
    predict_scale(&in, results, info);
    const cJSON *two = find(results, "dgx-spark", 2);
    EXPECT(two != NULL);
    if (two) {
        /* 2 micro-batches each; per micro-batch 1/2 x (496e6 + 2 x 248e6) bytes: 992e6 at 25 GB/s, half hidden */
        EXPECT_STR(json_str(two, "sharding", ""), "ZeRO-3");
        EXPECT_NEAR(json_num(two, "traffic_bytes", 0), 992e6, 1e-12);
        EXPECT_NEAR(json_num(two, "step_s", 0), 0.25 + 0.5 * 992e6 / 25e9, 1e-12);
        /* like with like: one device's 0.5 s of compute, not its 0.6 s step with the offload that
         * sharding removed (which would read 1.11, above 100 %) */
        EXPECT_NEAR(json_num(two, "scaling_efficiency", 0), 0.5 / (2 * (0.25 + 0.5 * 992e6 / 25e9)), 1e-12);
        EXPECT(json_num(two, "scaling_efficiency", 0) <= 1 && json_num(two, "scaling_efficiency_high", 0) <= 1);
    }
    cJSON_Delete(results);
    cJSON_Delete(info);
    cJSON_Delete(rows);
}

/* One configuration, one figure: where the projection itself timed the workload on N devices (llm.c's 8
 * GPUs; the smallest count that holds a job, series projection_devices) the scale-out row of N devices
 * takes its hours and band instead of recomputing them under its own overlap rule (issue 34: 0.65 h on
 * page 1, 0.66 h in the scale-out table). */
static void same_configuration(void)
{
    cJSON *rows = cJSON_Parse("[{\"id\":\"h100-sxm\",\"fabric_nvlink_domain\":8,\"fabric_scaleup\":\"NVLink\","
                              "\"fabric_scaleup_gbs\":450}]");
    cJSON *info = cJSON_Parse("{\"workloads\":[{\"id\":\"gpt2-124m\",\"params\":124e6,\"tokens\":1.8e6}]}");
    cJSON *results = cJSON_CreateArray(), *p = projection("h100-sxm"), *d = projection("h100-sxm");
    cJSON_AddNumberToObject(p, "gpus", 8);      /* 8 GPUs: 0.5 s per step, 10 h (8-12) */
    cJSON_ReplaceItemInObject(d, "series", cJSON_CreateString("projection_devices"));
    cJSON_AddNumberToObject(d, "gpus", 2);
    cJSON_ReplaceItemInObject(d, "hours", cJSON_CreateNumber(33.3));
    cJSON_ReplaceItemInObject(d, "hours_low", cJSON_CreateNumber(30));
    cJSON_ReplaceItemInObject(d, "hours_high", cJSON_CreateNumber(40));
    cJSON_ReplaceItemInObject(d, "tokens_per_s", cJSON_CreateNumber(1000 * 10 / 33.3));
    cJSON_AddItemToArray(results, p);
    cJSON_AddItemToArray(results, d);
    struct predict_inputs in = { .catalog = rows };
    predict_scale(&in, results, info);
    const cJSON *r8 = find(results, "h100-sxm", 8), *r2 = find(results, "h100-sxm", 2), *r4 = find(results, "h100-sxm", 4);
    EXPECT(r8 && json_num(r8, "hours", 0) == 10 && json_num(r8, "hours_low", 0) == 8 && json_num(r8, "hours_high", 0) == 12);
    EXPECT(r8 && json_num(r8, "tokens_per_s", 0) == 1000 && strcmp(json_str(r8, "from", ""), "projection") == 0);
    EXPECT(r2 && json_num(r2, "hours", 0) == 33.3 && json_num(r2, "hours_high", 0) == 40
           && strcmp(json_str(r2, "from", ""), "projection_devices") == 0);
    EXPECT(r4 && !cJSON_GetObjectItemCaseSensitive(r4, "from"));     /* no projection of 4: the scale-out's own */
    cJSON_Delete(results);
    cJSON_Delete(info);
    cJSON_Delete(rows);
}

int main(void)
{
    arithmetic();
    records();
    zero3();
    same_configuration();
    return CHECK_DONE();
}
