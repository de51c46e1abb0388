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
#include "predict/scale.h"
#include "predict/stack.h"
#include "predict/workloads.h"
#include "util/env.h"
#include "util/param.h"
#include "util/error.h"

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
    w->shape.amp = w->shape.causal = 1;       /* mixed precision and causal attention, as run */
    w->gpus = 1;
    w->stack = "pytorch";
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
    /* memory_unit: GiB for parts built from binary-density HBM or GDDR (nvidia-smi: 81920 MiB
     * for an A100 80GB), GB where the row says so (data/README.md) */
    s->memory = predict_capacity_bytes(num(row, "memory_gb"), str(row, "memory_unit"));
    s->shared_pool = strstr(str(row, "memory"), "unified") != NULL;
    s->host_memory = num(row, "host_memory_gb") * 1e9;
    s->host_bw = num(row, "host_bw_gbs") > 0 ? num(row, "host_bw_gbs") * 1e9 : HOST_BW_BPS;
    s->link_bw = num(row, "cpu_gpu_link_gbs") > 0 ? num(row, "cpu_gpu_link_gbs") * 1e9 : PCIE_LINK_BPS;
    s->power_w = num(row, "power_w");
    s->price_usd = num(row, "price_usd");
    s->node_gpus = (int)num(row, "fabric_nvlink_domain");
    const char *field[] = { [NET_DT_F32] = "fp32_tflops", [NET_DT_BF16] = "bf16_tflops", [NET_DT_E4M3] = "fp8_tflops" };
    for (int d = 0; d <= NET_DT_E4M3; d++) {
        char name[64];
        snprintf(name, sizeof name, "%s_low", field[d]);
        s->range[d].low = num(row, name) * 1e12;
        snprintf(name, sizeof name, "%s_high", field[d]);
        s->range[d].high = num(row, name) * 1e12;
        snprintf(name, sizeof name, "%s_sustained", field[d]);
        s->range[d].sustained = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(row, name));
    }
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
static const char *system_measured_gpu(const struct predict_calib *c, const cJSON *cal, const cJSON *catalog,
                                       struct predict_system *s)
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
    cJSON_ArrayForEach(r, catalog)
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

/* Where op runs on sys at band end e (-1 the fast end, 0 central, 1 the slow end) in
 * generation gen: the dtype's peak, or the end of its recorded range (the slow end: the low
 * figure, a sustained rate when so recorded; the fast end: the high figure, a peak). */
static struct predict_target target(const struct predict_system *sys, const struct net_op *op, enum net_prec p,
                                    int gen, int e)
{
    enum net_dtype d = net_kinds[op->kind].cls == NET_ATTENTION ? (p == NET_FP32 ? NET_DT_F32 : NET_DT_BF16)
                       : op->dtype;
    double peak = predict_system_peak(sys, d);
    enum net_dtype used = d;
    while (!(sys->peak[used] > 0) && used != NET_DT_F32)     /* the dtype predict_system_peak fell back to */
        used = used == NET_DT_BF16 ? NET_DT_F32 : NET_DT_BF16;
    struct predict_target t = { peak, sys->bw, gen, sys->range[used].sustained };
    if (e < 0 && sys->range[used].high > 0) {
        t.peak = sys->range[used].high;
        t.sustained = 0;
    } else if (e > 0 && sys->range[used].low > 0) {
        t.peak = sys->range[used].low;
    }
    return t;
}

/* An op on a system under a stack: central in the system's generation (Hopper's when the
 * profiles have no runs of its own), the band ends the fastest and slowest generation at the
 * fast and slow ends of the system's ranges. */
static void stack_op(const struct predict_stack *st, const struct predict_system *sys, enum net_prec p,
                     const struct net_op *op, double t[3], int *mem_bound)
{
    int own = predict_stack_gen(sys->id);
    struct predict_target c = target(sys, op, p, own >= 0 ? own : PREDICT_HOPPER, 0);
    t[1] = predict_stack_op_seconds(st, &c, op, mem_bound);
    t[0] = t[2] = t[1];
    for (int g = 0; g < PREDICT_NGENS; g++) {
        if (own >= 0 && g != own)
            continue;
        struct predict_target fast = target(sys, op, p, g, -1), slow = target(sys, op, p, g, 1);
        t[0] = fmin(t[0], predict_stack_op_seconds(st, &fast, op, NULL));
        t[2] = fmax(t[2], predict_stack_op_seconds(st, &slow, op, NULL));
    }
}

/* One optimizer step of shape s: ops of a micro-batch count accum times, the update once; on
 * the measured machine (st NULL) from its calibration, else from the stack's profile, the band
 * widened by the profile's leave-one-out errors. */
static void step_time(const struct predict_calib *c, const struct predict_stack *st, const struct predict_system *sys,
                      const struct net_shape *s, enum net_prec p, struct step_time *t)
{
    struct net_shape one = *s;
    one.accum = 1;
    int nops = net_plan(&one, p, NULL, 0);
    struct net_op *plan = xmalloc((size_t)nops * sizeof *plan);
    net_plan(&one, p, plan, nops);
    memset(t, 0, sizeof *t);
    for (int i = 0; i < nops; i++) {
        double times = plan[i].micro < 0 ? 1 : s->accum, x[3];
        int mb;
        if (st) {
            stack_op(st, sys, p, &plan[i], x, &mb);
        } else {
            x[0] = x[1] = x[2] = predict_op_seconds(c, &plan[i], &mb);
        }
        for (int b = 0; b < 3; b++)
            t->s[b] += times * x[b];
        enum net_class cls = net_kinds[plan[i].kind].cls;
        t->cls[cls] += times * x[1];
        if (mb) {
            t->cls_mem[cls] += times * x[1];
            t->mem_bound += times * x[1];
        }
    }
    if (st) {
        t->s[0] *= fmin(1, exp(st->loo_lo));
        t->s[2] *= fmax(1, exp(st->loo_hi));
    }
    free(plan);
}

double predict_step_seconds(const struct predict_calib *c, const struct net_shape *s, enum net_prec p,
                            double *by_class)
{
    struct step_time t;
    step_time(c, NULL, NULL, s, p, &t);
    for (int k = 0; by_class && k < NET_NCLASSES; k++)
        by_class[k] = t.cls[k];
    return t.s[1];
}

static char *gb(double bytes, char *buf, size_t n)
{
    snprintf(buf, n, bytes >= 1e12 ? "%.2f TB" : "%.1f GB", bytes >= 1e12 ? bytes / 1e12 : bytes / 1e9);
    return buf;
}

/* The software stack a workload's hardware is projected with; NULL when no profile was fitted. */
static const struct predict_stack *workload_stack(const struct predict_workload *w)
{
    const struct predict_stack *st = predict_stack_find(w->stack ? w->stack : "pytorch");
    return st && st->p[PREDICT_MEM_ETA] > 0 ? st : NULL;
}

/* GPUs a workload runs on here: its published count, at most one node of the catalog part (the
 * NVLink domain of data/fabric.csv; a part without one: one GPU); one on this machine, a scenario
 * system and a shared-pool system (one device each). */
static int system_gpus(const struct predict_system *sys, const struct predict_workload *w)
{
    int node = sys->node_gpus > 1 ? sys->node_gpus : 1;     /* one node of the part (data/fabric.csv) */
    return strcmp(sys->kind, "catalog") == 0 && !sys->shared_pool && w->gpus > 1 ? (w->gpus < node ? w->gpus : node) : 1;
}

/* The fit block of a projection record: what it takes to fit, per device. */
static void fit_json(cJSON *r, const struct predict_system *sys, const struct predict_fit *f)
{
    cJSON_AddBoolToObject(r, "fits", f->fits);
    cJSON_AddStringToObject(r, "fit", f->reason);
    cJSON_AddNumberToObject(r, "memory_bytes", f->device_bytes);
    cJSON_AddNumberToObject(r, "capacity_bytes", sys->memory);
    cJSON_AddNumberToObject(r, "reserve_bytes", f->reserve_bytes);
    cJSON_AddNumberToObject(r, "micro_batch", f->micro_batch);
    cJSON_AddNumberToObject(r, "accum", f->accum);
    cJSON_AddBoolToObject(r, "checkpoint", f->checkpoint);
    cJSON_AddStringToObject(r, "offload", f->offload == PREDICT_OFFLOAD_NONE ? "none"
                            : f->offload == PREDICT_OFFLOAD_OPTIMIZER ? "optimizer" : "optimizer and gradients");
    cJSON_AddNumberToObject(r, "gpus", f->gpus);
    cJSON_AddNumberToObject(r, "zero", f->zero);
}

static cJSON *projection_json(const struct predict_calib *c, const struct predict_system *sys,
                              const struct predict_workload *w, double band_measured)
{
    int measured = strcmp(sys->kind, "measured") == 0;
    const struct predict_stack *st = measured ? NULL : workload_stack(w);
    struct predict_fit f;
    struct predict_fit_target tg;
    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "series", "projection");
    cJSON_AddStringToObject(r, "workload", w->id);
    cJSON_AddStringToObject(r, "system", sys->id);
    cJSON_AddStringToObject(r, "system_kind", sys->kind);
    predict_fit_target_for(sys->memory, sys->host_memory, sys->shared_pool, system_gpus(sys, w), &tg);
    predict_fit(&w->shape, w->prec, &tg, &f);
    fit_json(r, sys, &f);
    if (!f.fits)
        return r;
    const char *why = !(sys->peak[NET_DT_F32] + sys->peak[NET_DT_BF16] > 0)
                      ? "the catalog gives no dense FP32 or BF16 peak"
                      : !measured && !st ? "no GPU software-stack profile was fitted (no published runs given)" : NULL;
    if (why) {
        char fit[sizeof f.reason + 96];
        snprintf(fit, sizeof fit, "%s; not projected: %s", f.reason, why);
        cJSON_ReplaceItemInObject(r, "fit", cJSON_CreateString(fit));
        return r;
    }
    if (st)
        cJSON_AddStringToObject(r, "stack", st->id);
    struct net_shape s = w->shape;
    s.batch = f.micro_batch;
    s.accum = f.accum;
    s.checkpoint = f.checkpoint;
    struct step_time t;
    step_time(c, st, sys, &s, w->prec, &t);
    double lo = t.s[0], mid = t.s[1], hi = t.s[2];
    if (measured) {
        lo = mid * (1 - band_measured);
        hi = mid * (1 + band_measured);
    }
    if (f.offload != PREDICT_OFFLOAD_NONE) {      /* the link and the host's AdamW, not overlapped */
        double extra = f.offload_traffic_bytes / sys->link_bw + f.host_optimizer_bytes / sys->host_bw;
        mid += extra;
        hi += extra;
        cJSON_AddNumberToObject(r, "offload_s_per_step", extra);
    }
    /* each device times its own share of the global batch; gradient traffic is overlapped */
    double tokens_dev = (double)s.batch * s.accum * s.seq, tokens_step = tokens_dev * f.gpus;
    double steps = ceil(w->tokens / tokens_step);
    cJSON_AddNumberToObject(r, "step_s", mid);
    cJSON_AddNumberToObject(r, "steps", steps);
    cJSON_AddNumberToObject(r, "tokens_per_s", tokens_step / mid);
    cJSON_AddNumberToObject(r, "tokens_per_s_per_gpu", tokens_dev / mid);
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
        cJSON_AddNumberToObject(r, "energy_kwh", steps * mid / 3600 * sys->power_w * f.gpus / 1000);
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
    cJSON_AddNumberToObject(o, "gpus", w->gpus > 0 ? w->gpus : 1);
    cJSON_AddStringToObject(o, "stack", w->stack ? w->stack : "pytorch");
    cJSON_AddStringToObject(o, "optimizer", net_optims[net_optim_of(s, w->prec)].name);
    cJSON_AddBoolToObject(o, "amp", s->amp && w->prec != NET_FP32);
    cJSON_AddBoolToObject(o, "causal", s->causal);
    cJSON_AddBoolToObject(o, "fused_loss", s->fused_loss);
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

/* The GPU stack profiles fitted on the published runs (each left out in turn): their records
 * and info.stack_profiles; a data file that cannot be read is info.stack_error. */
static void fit_profiles(const struct predict_inputs *in, cJSON *results, cJSON *info)
{
    struct predict_run *runs = NULL;
    char err[300];
    int n = in->runs ? predict_runs_load(in->runs, in->catalog, &runs, err, sizeof err) : 0;
    if (n < 0) {
        cJSON_AddStringToObject(info, "stack_error", err);
        return;
    }
    predict_stacks_fit(runs, n);
    if (n > 0)
        predict_stacks_json(runs, n, results, info);
    predict_runs_free(runs, n);
}

/* FLOPs per token of a workload's step (micro-batch 1, no recomputation): what a claimed rate
 * needs. */
static double flops_per_token(const struct predict_workload *w)
{
    struct net_shape s = w->shape;
    s.batch = s.accum = 1;
    s.checkpoint = 0;
    int n = net_plan(&s, w->prec, NULL, 0);
    struct net_op *plan = xmalloc((size_t)n * sizeof *plan);
    net_plan(&s, w->prec, plan, n);
    double f = 0;
    for (int i = 0; i < n; i++)
        f += plan[i].flops;
    free(plan);
    return f / s.seq;
}

/* A vendor's published training rate beside the FLOP arithmetic: what it needs per second
 * against the system's dense peaks, and our projection of the same workload. */
static void vendor_claims_json(const struct predict_inputs *in, cJSON *results)
{
    const cJSON *c;
    cJSON_ArrayForEach(c, in->claims) {
        const struct predict_workload *w = predict_workload_find(str(c, "workload"));
        const cJSON *row = NULL, *p, *x;
        cJSON_ArrayForEach(x, in->catalog) {
            if (strcmp(str(x, "id"), str(c, "system")) == 0)
                row = x;
        }
        double rate = strtod(str(c, "tokens_per_s"), NULL);
        if (!w || !row || !(rate > 0))
            continue;
        cJSON *r = cJSON_CreateObject();
        cJSON_AddStringToObject(r, "series", "vendor_claim");
        cJSON_AddStringToObject(r, "claim", str(c, "id"));
        cJSON_AddStringToObject(r, "system", str(c, "system"));
        cJSON_AddStringToObject(r, "workload", w->id);
        cJSON_AddStringToObject(r, "what", str(c, "what"));
        cJSON_AddStringToObject(r, "precision", str(c, "precision"));
        cJSON_AddStringToObject(r, "source", str(c, "source"));
        cJSON_AddNumberToObject(r, "claimed_tokens_per_s", rate);
        cJSON_AddNumberToObject(r, "flops_per_token", flops_per_token(w));
        cJSON_AddNumberToObject(r, "needed_flops", rate * flops_per_token(w));
        const char *peaks[] = { "bf16_tflops", "fp8_tflops", "fp4_tflops" };
        for (int i = 0; i < 3; i++)
            if (num(row, peaks[i]) > 0)
                cJSON_AddNumberToObject(r, peaks[i], num(row, peaks[i]));
        cJSON_ArrayForEach(p, results) {
            if (strcmp(str(p, "series"), "projection") == 0 && strcmp(str(p, "workload"), w->id) == 0
                && strcmp(str(p, "system"), str(c, "system")) == 0 && num(p, "tokens_per_s") > 0)
                cJSON_AddNumberToObject(r, "projected_tokens_per_s", num(p, "tokens_per_s"));
        }
        cJSON_AddItemToArray(results, r);
    }
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

void predict_project(const cJSON *params, const struct predict_calib *c, const char *device, const cJSON *measured,
                     const struct predict_inputs *in, cJSON *results, cJSON *info)
{
    const cJSON *wl = param_get(params, "workloads"), *sl = param_get(params, "systems"), *row;
    struct predict_workload own;
    int has_own = named(params, "workload_name");
    if (has_own)
        custom_workload(params, &own);
    if (is_none(wl) && !has_own)
        return;
    fit_profiles(in, results, info);
    /* the measured machine's band: the validation's largest error (at least 5 %), and 10 % more
     * because the reference workloads' ops are larger than any the calibration timed */
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(measured, "validation"),
                                                      "max_abs_error");
    double band = fmax(0.05, cJSON_IsNumber(v) ? v->valuedouble : 0.5) + 0.10;
    int nsys = 2 + cJSON_GetArraySize(in->catalog);
    struct predict_system *sys = xmalloc((size_t)nsys * sizeof *sys);
    const cJSON *cal = cJSON_GetObjectItemCaseSensitive(measured, "calibration");
    int gpu = device && strcmp(device, "gpu") == 0;
    const char *mine = gpu ? system_measured_gpu(c, cal, in->catalog, &sys[0]) : "";
    if (!gpu)
        system_measured(c, &sys[0]);
    nsys = 1;
    cJSON_ArrayForEach(row, in->catalog) {
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
            cJSON_AddItemToArray(results, projection_json(c, &sys[j], w, band));
    }
    vendor_claims_json(in, results);
    cJSON *rules = cJSON_AddObjectToObject(info, "projection_rules");
    cJSON_AddStringToObject(rules, "measured",
        "this machine: every op from its own calibration (curves of efficiency against size, extended to the "
        "sustained GEMM peak and the DRAM read); band: the validation's largest error (at least 5 %) plus 10 % for "
        "ops larger than any timed");
    cJSON_AddStringToObject(rules, "catalog",
        "catalog rows: every op of the workload's plan timed with its software stack's profile (info.stack_profiles: "
        "efficiency per op class against size, fitted on the published GPU training runs of data/gpu-runs.csv, "
        "nothing from the machine that ran this report) on the row's spec dense peak for the op's dtype and its "
        "bandwidth; a row whose figure is a measured sustained rate (data/spec-ranges.csv) gets no matmul "
        "efficiency on top. Band: the 10th to 90th percentile of the profile's leave-one-out errors, widened by "
        "the recorded range of a disputed spec (DGX Spark BF16: 62-125 TFLOP/s) and, for GPU generations without "
        "published runs (Blackwell), by the spread between the Ampere and Hopper efficiencies. The CPU validation "
        "above validates the method on this machine only; it does not bound these projections");
    cJSON_AddStringToObject(rules, "offload",
        "offload (ZeRO-Offload): the link's traffic at the catalog CPU-GPU bandwidth (PCIe Gen5 x16, 128 GB/s "
        "both ways, when the row gives none) and the host's AdamW at the host bandwidth (200 GB/s when the row "
        "gives none), added without overlap; never on one shared pool");
    cJSON_AddStringToObject(rules, "memory",
        "memory fit, per device: the plan's tensors at their dtypes (BF16 activations and matmul outputs, FP32 "
        "master weights and AdamW state unless the workload's optimizer recipe says otherwise) against the "
        "capacity in the unit the vendor means (GiB for HBM and GDDR parts: 80 GB = 85.9e9 bytes) less a reserve "
        "no tensor may use: 2 GB for the CUDA context, library workspaces and communication buffers (the top "
        "of the 0.3-2 GB reported for PyTorch's context), 16 % instead on a shared pool for the OS, its "
        "services and the runtime (a headless DGX Spark shows 19.5 of 121.7 GiB not free to CUDA at boot), and "
        "5 % of the capacity for the allocator's fragmentation (an assumption, not a measurement)");
    cJSON_AddStringToObject(rules, "fit",
        "what it takes to fit, tried in order: the workload as given; smaller micro-batches with gradient "
        "accumulation keeping the global batch; activation checkpointing with the largest micro-batch that "
        "fits; on one GPU, offload of the optimizer (then the gradients) to host memory last, never on a "
        "shared pool. A workload published on several GPUs runs on as many of a catalog part, at most one node of "
        "it (data/fabric.csv's NVLink domain; one GPU for a part without one; one on this "
        "machine and on shared-pool systems), its global batch split over them, at the lowest ZeRO stage that "
        "fits (0: plain data parallelism; 1, 2, 3 shard the optimizer state, the gradients, the weights); "
        "gradient and ZeRO traffic is assumed overlapped with compute here (scale-out is not modelled), "
        "hours are for the whole configuration and energy counts every GPU's power");
    if (gpu)
        measured_gpu_rule(rules, cal, mine);
    cJSON_AddStringToObject(rules, "energy", "hours x the catalog power of every GPU used (board or module power, "
                            "not the whole server's; the decision pages count the whole system's power per GPU instead, "
                            "host included, from data/costs.csv); price: the catalog's purchase price, not a rental cost");
    free(sys);
    predict_scale(in, results, info);   /* N = 1, 2, 4, 8 devices of each projection above */
}

void predict_inputs_link(const cJSON *experiments, struct predict_inputs *in)
{
    const cJSON *e;
    cJSON_ArrayForEach(e, experiments) {
        const cJSON *info = cJSON_GetObjectItemCaseSensitive(e, "info");
        if (strcmp(str(e, "name"), "collective") == 0 && num(info, "link_gbps_bus") > 0) {
            in->link_Bps = num(info, "link_gbps_bus") * 1e9;
            in->link_ranks = num(info, "link_ranks");
            in->link_hosts = (int)num(info, "link_hosts");
        }
    }
}

int predict_stage(const cJSON *e, const cJSON *params, const struct predict_inputs *in, cJSON *out, char *err,
                  size_t errlen)
{
    const cJSON *info = cJSON_GetObjectItemCaseSensitive(e, "info");
    struct predict_calib c;
    if (!cJSON_GetObjectItemCaseSensitive(info, "calibration"))
        return 1;
    if (predict_calib_load(e, &c, err, errlen) != 0)
        return -1;
    predict_project(params, &c, str(e, "device"), info, in, cJSON_AddArrayToObject(out, "results"),
                    cJSON_AddObjectToObject(out, "info"));
    predict_calib_free(&c);
    return 0;
}
