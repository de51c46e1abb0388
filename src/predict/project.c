/* project.c: the projection of training workloads onto the measured machine and the catalog's
 * systems: per system, what it takes to fit (fit.c), the step time op by op with a low/high
 * band (calib.c), hours for the workload's tokens, the share of time in memory-bound ops, the
 * binding resource per op class, energy at the catalog power, and the catalog price. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "predict/project.h"
#include "predict/fit.h"
#include "predict/workloads.h"
#include "util/env.h"
#include "util/param.h"
#include "util/error.h"

static cJSON *catalog_rows;

void predict_set_catalog(const cJSON *rows)
{
    cJSON_Delete(catalog_rows);
    catalog_rows = rows ? cJSON_Duplicate(rows, 1) : NULL;
}

/* Assumptions where a catalog row is silent (stated in the report's rules). */
#define PCIE_LINK_BPS 128e9     /* PCIe Gen5 x16: about 64 GB/s each way, both ways together */
#define HOST_BW_BPS 200e9       /* host memory behind a discrete GPU, when the row gives none */

/* Lists of ids may also be one keyword ("all", "none"), which the parameter layer keeps a string. */
static int listed(const cJSON *list, const char *id)
{
    const cJSON *e;
    if (cJSON_IsString(list))
        return strcmp(list->valuestring, "all") == 0 || strcmp(list->valuestring, id) == 0;
    cJSON_ArrayForEach(e, list) {
        if (cJSON_IsString(e) && (strcmp(e->valuestring, "all") == 0 || strcmp(e->valuestring, id) == 0))
            return 1;
    }
    return 0;
}

static int is_none(const cJSON *list)
{
    if (cJSON_IsString(list))
        return strcmp(list->valuestring, "none") == 0;
    return cJSON_GetArraySize(list) == 1 && cJSON_IsString(list->child) && strcmp(list->child->valuestring, "none") == 0;
}

static int named(const cJSON *params, const char *field)
{
    const char *v = param_str(params, field);
    return v && strcmp(v, "none") != 0;
}

/* The scenario's own workload (workload_* fields). */
static void custom_workload(const cJSON *params, struct predict_workload *w)
{
    int llama = strcmp(param_str(params, "workload_arch"), "llama") == 0;
    int lora = (int)param_num(params, "workload_lora_rank");
    const char *prec = param_str(params, "workload_precision");
    memset(w, 0, sizeof *w);
    w->id = "scenario";
    w->name = param_str(params, "workload_name");
    w->kind = lora == 0 ? "full training" : strcmp(param_str(params, "workload_base"), "nf4") == 0 ? "QLoRA" : "LoRA";
    w->shape = (struct net_shape){
        .layers = (int)param_num(params, "workload_layers"), .hidden = (int)param_num(params, "workload_hidden"),
        .heads = (int)param_num(params, "workload_heads"), .seq = (int)param_num(params, "workload_seq"),
        .vocab = (int)param_num(params, "workload_vocab"), .batch = (int)param_num(params, "workload_batch"),
        .accum = 1, .kv_heads = (int)param_num(params, "workload_kv_heads"),
        .ffn = (int)param_num(params, "workload_ffn"), .mlp = llama ? NET_MLP_SWIGLU : NET_MLP_GELU,
        .norm = llama ? NET_NORM_RMS : NET_NORM_LAYER, .nobias = llama, .rope = llama,
        .attention = NET_ATT_FLASH, .lora_rank = lora,
        .base_dtype = lora && strcmp(param_str(params, "workload_base"), "nf4") == 0 ? NET_DT_NF4 : 0,
        .sparse24 = strcmp(param_str(params, "workload_sparsity"), "2:4") == 0 };
    w->prec = strcmp(prec, "fp32") == 0 ? NET_FP32 : strcmp(prec, "fp8") == 0 ? NET_FP8 : NET_BF16;
    w->tokens = param_num(params, "workload_tokens");
    w->basis = "the scenario's own workload: its figures as the scenario gives them";
    w->source = "the scenario";
}

static void custom_system(const cJSON *params, struct predict_system *s)
{
    memset(s, 0, sizeof *s);
    snprintf(s->id, sizeof s->id, "scenario");
    snprintf(s->name, sizeof s->name, "%s", param_str(params, "system_name"));
    snprintf(s->kind, sizeof s->kind, "scenario");
    s->bw = param_num(params, "system_bw_gbs") * 1e9;
    s->memory = param_num(params, "system_memory_gb") * 1e9;
    s->peak[NET_DT_F32] = param_num(params, "system_fp32_tflops") * 1e12;
    s->peak[NET_DT_BF16] = param_num(params, "system_bf16_tflops") * 1e12;
    s->peak[NET_DT_E4M3] = param_num(params, "system_fp8_tflops") * 1e12;
    s->shared_pool = param_bool(params, "system_unified");
    s->host_bw = HOST_BW_BPS;
    s->link_bw = PCIE_LINK_BPS;
    s->power_w = param_num(params, "system_power_w");
    s->price_usd = param_num(params, "system_price_usd");
}

int predict_check(const cJSON *params, char *err, size_t errlen)
{
    if (named(params, "workload_name")) {
        struct predict_workload w;
        custom_workload(params, &w);
        const char *why = net_shape_problem(&w.shape);
        if (why) {
            snprintf(err, errlen, "model: workload '%.60s': %s", w.name, why);
            return -1;
        }
    }
    if (named(params, "system_name") && !(param_num(params, "system_bw_gbs") > 0
                                          && param_num(params, "system_memory_gb") > 0
                                          && param_num(params, "system_fp32_tflops")
                                             + param_num(params, "system_bf16_tflops") > 0)) {
        snprintf(err, errlen, "model: system '%.60s' needs system_bw_gbs, system_memory_gb and system_bf16_tflops "
                 "or system_fp32_tflops above 0", param_str(params, "system_name"));
        return -1;
    }
    const cJSON *e, *w = param_get(params, "workloads");
    if (is_none(w))
        return 0;
    if (cJSON_IsString(w))
        return 0;
    cJSON_ArrayForEach(e, w) {
        if (strcmp(e->valuestring, "all") != 0 && !predict_workload_find(e->valuestring)) {
            char ids[1024];
            size_t o = 0;
            ids[0] = '\0';
            for (int i = 0; i < predict_nworkloads && o < sizeof ids; i++)
                o += (size_t)snprintf(ids + o, sizeof ids - o, "%s%s", i ? ", " : "", predict_workloads[i].id);
            snprintf(err, errlen, "model: parameter 'workloads' has unknown workload '%.60s' (valid: all, none, %s)",
                     e->valuestring, ids);
            return -1;
        }
    }
    return 0;
}

static double num(const cJSON *row, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(row, name);
    return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

static const char *str(const cJSON *row, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(row, name);
    return cJSON_IsString(v) ? v->valuestring : "";
}

static void system_from_row(const cJSON *row, struct predict_system *s)
{
    memset(s, 0, sizeof *s);
    snprintf(s->id, sizeof s->id, "%s", str(row, "id"));
    snprintf(s->name, sizeof s->name, "%s", str(row, "name"));
    snprintf(s->kind, sizeof s->kind, "catalog");
    s->bw = num(row, "mem_bw_gbs") * 1e9;
    s->peak[NET_DT_F32] = num(row, "fp32_tflops") * 1e12;
    s->peak[NET_DT_BF16] = num(row, "bf16_tflops") * 1e12;
    s->peak[NET_DT_E4M3] = num(row, "fp8_tflops") * 1e12;
    s->memory = num(row, "memory_gb") * 1e9;
    s->shared_pool = strstr(str(row, "memory"), "unified") != NULL;
    s->host_memory = num(row, "host_memory_gb") * 1e9;
    s->host_bw = num(row, "host_bw_gbs") > 0 ? num(row, "host_bw_gbs") * 1e9 : HOST_BW_BPS;
    s->link_bw = num(row, "cpu_gpu_link_gbs") > 0 ? num(row, "cpu_gpu_link_gbs") * 1e9 : PCIE_LINK_BPS;
    s->power_w = num(row, "power_w");
    s->price_usd = num(row, "price_usd");
}

static void system_measured(const struct predict_calib *c, struct predict_system *s)
{
    memset(s, 0, sizeof *s);
    snprintf(s->id, sizeof s->id, "this");
    snprintf(s->name, sizeof s->name, "this machine (CPU, measured)");
    snprintf(s->kind, sizeof s->kind, "measured");
    s->bw = c->bw;
    s->peak[NET_DT_F32] = s->peak[NET_DT_BF16] = c->peak;
    s->memory = env_mem_total();
    s->shared_pool = 1;
}

/* The measured machine when the calibration ran on a GPU (info.calibration: device_name,
 * memory_bytes, shared_pool, catalog_id): its peaks per dtype and its device memory. A GPU that
 * is a catalog system's (a GB10 is a DGX Spark's) takes that system's id, name, power and price:
 * its row is this run's measurements, not the catalog's figures. Returns the catalog id or "". */
static const char *system_measured_gpu(const struct predict_calib *c, const cJSON *cal, struct predict_system *s)
{
    const char *id = str(cal, "catalog_id");
    const cJSON *row = NULL, *r;
    system_measured(c, s);
    for (int d = 0; d < NET_NDTYPES; d++)
        if (c->peak_dtype[d] > 0)
            s->peak[d] = c->peak_dtype[d];
    s->memory = num(cal, "memory_bytes") > 0 ? num(cal, "memory_bytes") : s->memory;
    s->shared_pool = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(cal, "shared_pool"));
    snprintf(s->name, sizeof s->name, "this machine (%.100s, measured)", str(cal, "device_name"));
    cJSON_ArrayForEach(r, catalog_rows)
        if (id[0] && strcmp(str(r, "id"), id) == 0)
            row = r;
    if (!row)
        return "";
    snprintf(s->id, sizeof s->id, "%s", id);
    snprintf(s->name, sizeof s->name, "%.100s, measured here", str(row, "name"));
    s->power_w = num(row, "power_w");
    s->price_usd = num(row, "price_usd");
    return id;
}

struct step_time {
    double s[3];                        /* low, central, high seconds per optimizer step */
    double cls[NET_NCLASSES];         /* central seconds per class */
    double cls_mem[NET_NCLASSES];     /* of which in memory-bound ops */
    double mem_bound;                   /* central seconds in memory-bound ops */
};

/* One optimizer step of shape s: ops of a micro-batch count accum times, the update once. */
static void step_time(const struct predict_calib *c, const struct predict_carry *k, const struct predict_system *sys,
                      const struct net_shape *s, enum net_prec p, struct step_time *t)
{
    struct net_shape one = *s;
    one.accum = 1;
    int nops = net_plan(&one, p, NULL, 0);
    struct net_op *plan = xmalloc((size_t)nops * sizeof *plan);
    net_plan(&one, p, plan, nops);
    memset(t, 0, sizeof *t);
    for (int i = 0; i < nops; i++) {
        double times = plan[i].micro < 0 ? 1 : s->accum;
        for (int b = 0; b < 3; b++) {
            int mb;
            double x = times * predict_op_seconds(c, k, sys, b, p, &plan[i], &mb);
            t->s[b] += x;
            if (b == 1) {
                enum net_class cls = net_kinds[plan[i].kind].cls;
                t->cls[cls] += x;
                if (mb) {
                    t->cls_mem[cls] += x;
                    t->mem_bound += x;
                }
            }
        }
    }
    free(plan);
}

static char *gb(double bytes, char *buf, size_t n)
{
    snprintf(buf, n, bytes >= 1e12 ? "%.2f TB" : "%.1f GB", bytes >= 1e12 ? bytes / 1e12 : bytes / 1e9);
    return buf;
}

static cJSON *projection_json(const struct predict_calib *c, const struct predict_carry *k, const struct predict_system *sys,
                              const struct predict_workload *w, double band_measured)
{
    struct predict_fit f;
    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "series", "projection");
    cJSON_AddStringToObject(r, "workload", w->id);
    cJSON_AddStringToObject(r, "system", sys->id);
    cJSON_AddStringToObject(r, "system_kind", sys->kind);
    predict_fit(&w->shape, w->prec, sys->memory, sys->host_memory, sys->shared_pool, &f);
    cJSON_AddBoolToObject(r, "fits", f.fits);
    cJSON_AddStringToObject(r, "fit", f.reason);
    cJSON_AddNumberToObject(r, "memory_bytes", f.device_bytes);
    cJSON_AddNumberToObject(r, "capacity_bytes", sys->memory);
    cJSON_AddNumberToObject(r, "micro_batch", f.micro_batch);
    cJSON_AddNumberToObject(r, "accum", f.accum);
    cJSON_AddBoolToObject(r, "checkpoint", f.checkpoint);
    cJSON_AddStringToObject(r, "offload", f.offload == PREDICT_OFFLOAD_NONE ? "none"
                            : f.offload == PREDICT_OFFLOAD_OPTIMIZER ? "optimizer" : "optimizer and gradients");
    if (!f.fits)
        return r;
    if (!(sys->peak[NET_DT_F32] + sys->peak[NET_DT_BF16] > 0)) {
        char fit[sizeof f.reason + 96];
        snprintf(fit, sizeof fit, "%s; not projected: the catalog gives no dense FP32 or BF16 peak", f.reason);
        cJSON_ReplaceItemInObject(r, "fit", cJSON_CreateString(fit));
        return r;
    }
    struct net_shape s = w->shape;
    s.batch = f.micro_batch;
    s.accum = f.accum;
    s.checkpoint = f.checkpoint;
    struct step_time t;
    step_time(c, k, strcmp(sys->kind, "measured") == 0 ? NULL : sys, &s, w->prec, &t);
    double lo = t.s[0], mid = t.s[1], hi = t.s[2];
    if (strcmp(sys->kind, "measured") == 0) {
        lo = mid * (1 - band_measured);
        hi = mid * (1 + band_measured);
    }
    if (f.offload != PREDICT_OFFLOAD_NONE) {      /* the link and the host's AdamW, not overlapped */
        double extra = f.offload_traffic_bytes / sys->link_bw + f.host_optimizer_bytes / sys->host_bw;
        mid += extra;
        hi += extra;
        cJSON_AddNumberToObject(r, "offload_s_per_step", extra);
    }
    double tokens_step = (double)s.batch * s.accum * s.seq, steps = ceil(w->tokens / tokens_step);
    cJSON_AddNumberToObject(r, "step_s", mid);
    cJSON_AddNumberToObject(r, "steps", steps);
    cJSON_AddNumberToObject(r, "tokens_per_s", tokens_step / mid);
    cJSON_AddNumberToObject(r, "hours", steps * mid / 3600);
    cJSON_AddNumberToObject(r, "hours_low", steps * lo / 3600);
    cJSON_AddNumberToObject(r, "hours_high", steps * hi / 3600);
    cJSON_AddNumberToObject(r, "memory_bound_share", t.mem_bound / t.s[1]);
    cJSON *bc = cJSON_AddArrayToObject(r, "by_class");
    for (int i = 0; i < NET_NCLASSES; i++) {
        if (!(t.cls[i] > 0))
            continue;
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "class", net_class_names[i]);
        cJSON_AddNumberToObject(o, "share", t.cls[i] / t.s[1]);
        cJSON_AddStringToObject(o, "bound", t.cls_mem[i] * 2 > t.cls[i] ? "memory" : "compute");
        cJSON_AddItemToArray(bc, o);
    }
    if (sys->power_w > 0)
        cJSON_AddNumberToObject(r, "energy_kwh", steps * mid / 3600 * sys->power_w / 1000);
    if (sys->price_usd > 0)
        cJSON_AddNumberToObject(r, "price_usd", sys->price_usd);
    return r;
}

static cJSON *workload_json(const struct predict_workload *w)
{
    const struct net_shape *s = &w->shape;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "id", w->id);
    cJSON_AddStringToObject(o, "name", w->name);
    cJSON_AddStringToObject(o, "kind", w->kind);
    cJSON_AddNumberToObject(o, "params", (double)net_param_count(s));
    if (s->lora_rank > 0)
        cJSON_AddNumberToObject(o, "trainable_params", (double)net_lora_count(s));
    cJSON_AddNumberToObject(o, "tokens", w->tokens);
    cJSON_AddNumberToObject(o, "seq", s->seq);
    cJSON_AddNumberToObject(o, "micro_batch", s->batch);
    cJSON_AddNumberToObject(o, "global_batch", (double)s->batch * s->accum);
    cJSON_AddStringToObject(o, "precision", net_prec_names[w->prec]);
    cJSON_AddNumberToObject(o, "layers", s->layers);
    cJSON_AddNumberToObject(o, "hidden", s->hidden);
    cJSON_AddNumberToObject(o, "heads", s->heads);
    cJSON_AddNumberToObject(o, "kv_heads", net_kv_heads(s));
    cJSON_AddNumberToObject(o, "vocab", s->vocab);
    cJSON_AddStringToObject(o, "note", w->basis);
    cJSON_AddStringToObject(o, "source", w->source);
    return o;
}

static cJSON *system_json(const struct predict_system *s)
{
    char mem[32];
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "id", s->id);
    cJSON_AddStringToObject(o, "name", s->name);
    cJSON_AddStringToObject(o, "kind", s->kind);
    cJSON_AddNumberToObject(o, "bandwidth_Bps", s->bw);
    cJSON_AddNumberToObject(o, "peak_fp32", s->peak[NET_DT_F32]);
    cJSON_AddNumberToObject(o, "peak_bf16", s->peak[NET_DT_BF16]);
    if (s->peak[NET_DT_E4M3] > 0)
        cJSON_AddNumberToObject(o, "peak_fp8", s->peak[NET_DT_E4M3]);
    cJSON_AddNumberToObject(o, "memory_bytes", s->memory);
    cJSON_AddStringToObject(o, "memory", gb(s->memory, mem, sizeof mem));
    cJSON_AddBoolToObject(o, "shared_pool", s->shared_pool);
    if (s->power_w > 0)
        cJSON_AddNumberToObject(o, "power_w", s->power_w);
    if (s->price_usd > 0)
        cJSON_AddNumberToObject(o, "price_usd", s->price_usd);
    return o;
}

/* The rule for a measured GPU, and for the catalog row it replaces. */
static void measured_gpu_rule(cJSON *rules, const cJSON *cal, const char *replaced)
{
    char text[512];
    snprintf(text, sizeof text, "this machine's GPU (%.100s): every op from this GPU's own calibration (cuBLASLt GEMM "
             "peaks per dtype, its device-memory bandwidth, an empty kernel launch, the trainer's ops timed on their "
             "own), not from the CPU's and not from a software-stack profile; band as for the measured machine",
             str(cal, "device_name"));
    cJSON_AddStringToObject(rules, "measured_gpu", text);
    if (!replaced[0])
        return;
    snprintf(text, sizeof text, "the %s row is this run's measurements of its GPU (%.100s): system_kind \"measured\", "
             "its peaks, bandwidth and per-op costs measured here instead of the catalog's figures; power and price "
             "stay the catalog's", replaced, str(cal, "device_name"));
    cJSON_AddStringToObject(rules, "measured_catalog_row", text);
}

void predict_project(const cJSON *params, const struct predict_calib *c, const char *device, cJSON *results,
                   cJSON *info)
{
    const cJSON *wl = param_get(params, "workloads"), *sl = param_get(params, "systems"), *row;
    struct predict_carry k;
    struct predict_workload own;
    int has_own = named(params, "workload_name");
    if (has_own)
        custom_workload(params, &own);
    if (is_none(wl) && !has_own)
        return;
    predict_carry_from(c, &k);
    /* the measured machine's band: the validation's largest error (at least 5 %), and 10 % more
     * because the reference workloads' ops are larger than any the calibration timed */
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(info, "validation"),
                                                      "max_abs_error");
    double band = fmax(0.05, cJSON_IsNumber(v) ? v->valuedouble : 0.5) + 0.10;
    int nsys = 2 + cJSON_GetArraySize(catalog_rows);
    struct predict_system *sys = xmalloc((size_t)nsys * sizeof *sys);
    const cJSON *cal = cJSON_GetObjectItemCaseSensitive(info, "calibration");
    int gpu = device && strcmp(device, "gpu") == 0;
    const char *mine = gpu ? system_measured_gpu(c, cal, &sys[0]) : "";
    if (!gpu)
        system_measured(c, &sys[0]);
    nsys = 1;
    cJSON_ArrayForEach(row, catalog_rows) {
        if (listed(sl, str(row, "id")) && num(row, "mem_bw_gbs") > 0 && num(row, "memory_gb") > 0
            && strcmp(str(row, "id"), mine) != 0)
            system_from_row(row, &sys[nsys++]);
    }
    if (named(params, "system_name"))
        custom_system(params, &sys[nsys++]);
    cJSON *wj = cJSON_AddArrayToObject(info, "workloads"), *sj = cJSON_AddArrayToObject(info, "systems");
    for (int i = 0; i < nsys; i++)
        cJSON_AddItemToArray(sj, system_json(&sys[i]));
    for (int i = 0; i <= predict_nworkloads; i++) {
        const struct predict_workload *w = i < predict_nworkloads ? &predict_workloads[i] : has_own ? &own : NULL;
        if (!w || (i < predict_nworkloads && (is_none(wl) || !listed(wl, w->id))))
            continue;
        cJSON_AddItemToArray(wj, workload_json(w));
        for (int j = 0; j < nsys; j++)
            cJSON_AddItemToArray(results, projection_json(c, &k, &sys[j], w, band));
    }
    cJSON *rules = cJSON_AddObjectToObject(info, "projection_rules");
    cJSON_AddStringToObject(rules, "measured",
        "this machine: every op from its own calibration (curves of efficiency against size, extended to the "
        "sustained GEMM peak and the DRAM read); band: the validation's largest error (at least 5 %) plus 10 % for "
        "ops larger than any timed");
    cJSON_AddStringToObject(rules, "catalog",
        "catalog rows: the row's dense peak for each matmul's dtype and its bandwidth (spec figures), with "
        "efficiencies carried over: matmuls 0.70 / 0.80 / 0.90 of the peak scaled by the measured matmul curve "
        "at the same time-at-peak; fused attention 0.40 / 0.60 / 0.80; memory-bound ops 0.70 / 0.80 / 0.90 of "
        "the bandwidth; at least one kernel launch (2 / 4 / 6 us) per op; compute and memory time combined by "
        "the calibrated rule. Band: the high and low ends of those ranges");
    cJSON_AddStringToObject(rules, "offload",
        "offload (ZeRO-Offload): the link's traffic at the catalog CPU-GPU bandwidth (PCIe Gen5 x16, 128 GB/s "
        "both ways, when the row gives none) and the host's AdamW at the host bandwidth (200 GB/s when the row "
        "gives none), added without overlap; never on one shared pool");
    if (gpu)
        measured_gpu_rule(rules, cal, mine);
    cJSON_AddStringToObject(rules, "energy", "hours x the catalog power (board or module power, not the whole "
                            "server's); price: the catalog's purchase price, not a rental cost");
    free(sys);
}
