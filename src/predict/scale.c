/* scale.c: the scale-out projection (scale.h): per single-device projection and device count,
 * the link (measured between machines by this run's collective, else the catalog's fabric), the
 * traffic of a data-parallel step, its exposed part under the overlap assumption and the band
 * that assumption spans. The single-device step and its band are project.c's. */
#include "predict/scale.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "predict/project.h"
#include "predict/stack.h"
#include "util/json.h"

static const int scale_devices[] = { 1, 2, 4, 8 };
#define NDEV ((int)(sizeof scale_devices / sizeof scale_devices[0]))

double predict_scale_traffic(int n, double grad_bytes, double param_bytes, double zero3_micro)
{
    struct predict_comm c;      /* stack.h's traffic per ZeRO stage: 0 (all-reduce) or 3 */
    predict_comm_bytes(zero3_micro > 0 ? 3 : 0, n, param_bytes, grad_bytes, &c);
    return zero3_micro * c.micro + c.step;
}

double predict_scale_step(double compute_s, double traffic_bytes, double link_Bps, double hidden)
{
    return compute_s + (traffic_bytes > 0 ? (1 - hidden) * traffic_bytes / link_Bps : 0);
}

static const cJSON *row_of(const cJSON *rows, const char *id)
{
    const cJSON *r;
    cJSON_ArrayForEach(r, rows)
        if (strcmp(json_str(r, "id", ""), id) == 0)
            return r;
    return NULL;
}

/* The link for n devices of system id: bytes/s, with its source in src; 0 with why. */
static double link_for(const struct predict_inputs *in, const char *id, int n, char *src, size_t sn)
{
    if (strcmp(id, "this") == 0) {
        if (in->link_Bps > 0 && in->link_hosts >= 2) {
            snprintf(src, sn, "measured: this run's all-reduce bus bandwidth, %.0f ranks on %d hosts", in->link_ranks,
                     in->link_hosts);
            return in->link_Bps;
        }
        snprintf(src, sn, in->link_Bps > 0 ? "no link between machines measured: the collective ran on one host"
                                           : "no link measured: the collective did not run between machines");
        return 0;
    }
    const cJSON *r = row_of(in->catalog, id);
    double domain = json_num(r, "fabric_nvlink_domain", 0), up = json_num(r, "fabric_scaleup_gbs", 0);
    double nic = json_num(r, "fabric_nic_gbs_per_gpu", 0);
    if (n <= domain && up > 0) {
        snprintf(src, sn, "spec: %s (%.0f GB/s each way; data/fabric.csv)", json_str(r, "fabric_scaleup", "?"), up);
        return up * 1e9;
    }
    if (nic > 0) {
        snprintf(src, sn, "spec: %s (%.0f GB/s each way per GPU; data/fabric.csv)", json_str(r, "fabric_nic", "?"), nic);
        return nic * 1e9;
    }
    snprintf(src, sn, r ? "the catalog gives no link for %d devices of this system" : "the catalog has no fabric for this system", n);
    return 0;
}

static const cJSON *workload_of(const cJSON *info, const char *id)
{
    const cJSON *w;
    cJSON_ArrayForEach(w, cJSON_GetObjectItemCaseSensitive(info, "workloads"))
        if (strcmp(json_str(w, "id", ""), id) == 0)
            return w;
    return NULL;
}

static void not_projected(cJSON *list, const cJSON *p, int n, const char *why)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "workload", json_str(p, "workload", "?"));
    cJSON_AddStringToObject(o, "system", json_str(p, "system", "?"));
    cJSON_AddNumberToObject(o, "devices", n);
    cJSON_AddStringToObject(o, "reason", why);
    cJSON_AddItemToArray(list, o);
}

struct scale_one {
    double compute_s, lo, hi;       /* one device's step without offload, and its band's ratios */
    double tokens_step, tokens;     /* per optimizer step (the recipe's global batch); the workload's total */
    double grad_bytes, param_bytes; /* per device */
    double accum;                   /* micro-batches per step on one device */
    int zero3;                      /* n > 1 shards instead of offloading */
};

/* A record of the projection stage that already timed this workload on exactly n devices of this
 * system (its own count: llm.c's 8 GPUs; or the smallest count that holds it): the scale-out row takes
 * its step and band, so that one configuration has one figure everywhere. NULL: none. */
static const cJSON *same_config(const cJSON *results, const cJSON *p, int n)
{
    const cJSON *r;
    cJSON_ArrayForEach(r, results) {
        const char *se = json_str(r, "series", "");
        if ((strcmp(se, "projection") == 0 || strcmp(se, "projection_devices") == 0)
            && strcmp(json_str(r, "workload", ""), json_str(p, "workload", "?")) == 0
            && strcmp(json_str(r, "system", ""), json_str(p, "system", "?")) == 0
            && json_num(r, "gpus", 1) == n && json_num(r, "step_s", 0) > 0 && json_num(r, "hours", 0) > 0)
            return r;
    }
    return NULL;
}

static cJSON *record(const cJSON *p, const struct scale_one *s, double step1, int n, double link, const char *src,
                     const cJSON *rows, const cJSON *same)
{
    double micro = s->zero3 ? fmax(1, ceil(s->accum / n)) : 0;     /* each device's share of the micro-batches */
    double traffic = n > 1 ? predict_scale_traffic(n, s->grad_bytes, s->param_bytes, micro) : 0, c = s->compute_s / n;
    double mid = n > 1 ? predict_scale_step(c, traffic, link, SCALE_OVERLAP) : step1;
    double fast = n > 1 ? predict_scale_step(c * s->lo, traffic, link, SCALE_OVERLAP_HI) : step1 * s->lo;
    double slow = n > 1 ? predict_scale_step(c * s->hi, traffic, link, SCALE_OVERLAP_LO) : step1 * s->hi;
    double tok = s->tokens_step, alone = mid;     /* the scale model's step, before any projection's own */
    if (same && n > 1) {        /* the projection's own timing of this configuration, band included */
        double h = json_num(same, "hours", 0);
        mid = s->tokens_step / json_num(same, "tokens_per_s", s->tokens_step / mid);
        fast = mid * json_num(same, "hours_low", h) / h;
        slow = mid * json_num(same, "hours_high", h) / h;
    }
    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "series", "scaleout");
    cJSON_AddStringToObject(r, "workload", json_str(p, "workload", "?"));
    cJSON_AddStringToObject(r, "system", json_str(p, "system", "?"));
    cJSON_AddStringToObject(r, "system_kind", json_str(p, "system_kind", "catalog"));
    cJSON_AddNumberToObject(r, "devices", n);
    cJSON_AddStringToObject(r, "sharding", n > 1 && s->zero3 ? "ZeRO-3" : n > 1 ? "data parallel" : "one device");
    cJSON_AddNumberToObject(r, "link_Bps", n > 1 ? link : 0);
    cJSON_AddStringToObject(r, "link_source", n > 1 ? src : "one device: no link");
    const char *cite = json_str(row_of(rows, json_str(p, "system", "")), "fabric_sources", NULL);
    if (n > 1 && cite && strncmp(src, "spec", 4) == 0)
        cJSON_AddStringToObject(r, "link_sources", cite);
    if (same && n > 1)
        cJSON_AddStringToObject(r, "from", json_str(same, "series", "projection"));
    cJSON_AddNumberToObject(r, "traffic_bytes", traffic);
    cJSON_AddNumberToObject(r, "comm_s", n > 1 ? traffic / link : 0);
    cJSON_AddNumberToObject(r, "exposed_s", n > 1 ? mid - c : 0);
    cJSON_AddNumberToObject(r, "step_s", mid);
    cJSON_AddNumberToObject(r, "step_s_low", fast);
    cJSON_AddNumberToObject(r, "step_s_high", slow);
    cJSON_AddNumberToObject(r, "tokens_per_s", tok / mid);
    cJSON_AddNumberToObject(r, "tokens_per_s_low", tok / slow);
    cJSON_AddNumberToObject(r, "tokens_per_s_high", tok / fast);
    int own = same && n > 1;        /* the projection's hours as it printed them (whole steps) */
    cJSON_AddNumberToObject(r, "hours", own ? json_num(same, "hours", 0) : s->tokens / (tok / mid) / 3600);
    cJSON_AddNumberToObject(r, "hours_low", own ? json_num(same, "hours_low", 0) : s->tokens / (tok / fast) / 3600);
    cJSON_AddNumberToObject(r, "hours_high", own ? json_num(same, "hours_high", 0) : s->tokens / (tok / slow) / 3600);
    /* like with like: one device's step in the configuration the N run (its compute, without the
     * offload it may need alone, which sharding removes: that shows in the hours), over the scale
     * model's step of the same compute with its traffic, so the efficiency is what the traffic
     * costs and never above 1 (the projection's own timing of N devices, when used for the hours,
     * may run another configuration: no recompute where one device needs it) */
    cJSON_AddNumberToObject(r, "scaling_efficiency", n > 1 ? s->compute_s / (n * alone) : 1);
    cJSON_AddNumberToObject(r, "scaling_efficiency_low",
                            n > 1 ? s->compute_s / (n * predict_scale_step(c, traffic, link, SCALE_OVERLAP_LO)) : 1);
    cJSON_AddNumberToObject(r, "scaling_efficiency_high",
                            n > 1 ? s->compute_s / (n * predict_scale_step(c, traffic, link, SCALE_OVERLAP_HI)) : 1);
    return r;
}

/* What one device's projection gives the scale-out; 0, or -1 with why. */
static int one_device(const cJSON *p, const cJSON *info, struct scale_one *s, const char **why)
{
    const cJSON *w = workload_of(info, json_str(p, "workload", ""));
    double step = json_num(p, "step_s", 0), hours = json_num(p, "hours", 0);
    if (!(step > 0) || !(hours > 0)) {
        *why = "no single-device step time (does not fit, or no peak in the catalog)";
        return -1;
    }
    if (!w) {
        *why = "the workload's parameter count is not in the projection's info";
        return -1;
    }
    double trainable = json_num(w, "trainable_params", json_num(w, "params", 0));
    double gpus = fmax(1, json_num(p, "gpus", 1));   /* a projection of several GPUs: each ran 1/gpus of
                                                        the global batch, so one device runs it all */
    s->zero3 = strcmp(json_str(p, "offload", "none"), "none") != 0;
    s->compute_s = (step - json_num(p, "offload_s_per_step", 0)) * gpus;
    s->lo = json_num(p, "hours_low", hours) / hours;
    s->hi = json_num(p, "hours_high", hours) / hours;
    s->tokens_step = json_num(p, "tokens_per_s", 0) * step;
    s->tokens = json_num(w, "tokens", 0);
    /* the recipe's reduce width: FP32 gradients 4 bytes, BF16 (and FP8) recipes 2; unnamed: FP32 */
    const char *prec = json_str(w, "precision", "fp32");
    s->grad_bytes = (strcmp(prec, "fp32") == 0 ? SCALE_GRAD_BYTES : predict_grad_bytes(NET_BF16)) * trainable;
    s->param_bytes = SCALE_PARAM_BYTES * json_num(w, "params", 0);
    s->accum = json_num(p, "accum", 1) * gpus;
    return 0;
}

static void rules(cJSON *info)
{
    char t[1024];
    cJSON *r = cJSON_AddObjectToObject(info, "scaleout_rules");
    cJSON_AddStringToObject(r, "model",
        "data parallelism over N devices with the recipe's global batch: each device runs 1/N of the step's micro-batches "
        "(as fast as one device runs them); step = one device's step / N + the traffic not hidden, over the link's bus "
        "bandwidth; the gradients are reduced once per optimizer step (no reduction during accumulation). A projection "
        "made on several GPUs (llm.c's 8) gives one device's step as that many times its per-GPU step");
    snprintf(t, sizeof t, "all-reduce of the trainable parameters' gradients at %.0f bytes each under the FP32 recipe, "
             "2 under BF16 and FP8 (their reduce width): "
             "2(N-1)/N x bytes; where one device had to offload, ZeRO-3 instead: reduce-scatter of the gradients and "
             "two all-gathers of the %.0f-byte weights per micro-batch, (N-1)/N x (gradients + 2 x weights) each; "
             "that the sharded states then fit is assumed, not checked", SCALE_GRAD_BYTES, SCALE_PARAM_BYTES);
    cJSON_AddStringToObject(r, "traffic", t);
    snprintf(t, sizeof t, "%.0f %% of the traffic hidden behind the backward pass (central); band: %.0f %% hidden (fast "
             "end) to %.0f %% (slow end), combined with the single-device band", 100 * SCALE_OVERLAP,
             100 * SCALE_OVERLAP_HI, 100 * SCALE_OVERLAP_LO);
    cJSON_AddStringToObject(r, "overlap", t);
    cJSON_AddStringToObject(r, "link",
        "measured: this run's largest all-reduce bus bandwidth when its ranks ran on two or more hosts (applies to this "
        "machine); else the catalog's fabric (data/fabric.csv): the scale-up link (NVLink/NVSwitch, PCIe for cards) "
        "while N fits its domain, else the NIC per GPU (ConnectX-7 200 Gb/s for a Spark); bus bandwidth taken as the "
        "link's one-way rate (nccl-tests' busbw ceiling)");
    cJSON_AddStringToObject(r, "efficiency", "scaling efficiency = one device's step in the configuration the N "
                            "devices run / (N x step on N): the step's compute without the offload one device may need "
                            "alone (sharding removes it; that gain shows in the hours, never as an efficiency above "
                            "100 %), so it is what the traffic costs, at most 1");
}

void predict_scale(const struct predict_inputs *in, cJSON *results, cJSON *info)
{
    const cJSON *p;
    cJSON *add = cJSON_CreateArray(), *skip = cJSON_CreateArray();
    cJSON_ArrayForEach(p, results) {
        struct scale_one s;
        const char *why;
        char src[256];
        if (strcmp(json_str(p, "series", ""), "projection") != 0)
            continue;
        if (one_device(p, info, &s, &why) != 0) {
            not_projected(skip, p, 0, why);
            continue;
        }
        for (int i = 0; i < NDEV; i++) {
            int n = scale_devices[i];
            double link = n > 1 ? link_for(in, json_str(p, "system", ""), n, src, sizeof src) : 0;
            if (n > 1 && !(link > 0))
                not_projected(skip, p, n, src);
            else
                cJSON_AddItemToArray(add, record(p, &s, s.compute_s + json_num(p, "offload_s_per_step", 0), n, link, src,
                                                 in->catalog, same_config(results, p, n)));
        }
    }
    while (cJSON_GetArraySize(add) > 0)
        cJSON_AddItemToArray(results, cJSON_DetachItemFromArray(add, 0));
    cJSON_Delete(add);
    cJSON_AddItemToObject(info, "scaleout_not_projected", skip);
    rules(info);
}
