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
#include "predict/jobspec.h"
#include "predict/measured.h"
#include "predict/scale.h"
#include "predict/stack.h"
#include "predict/workloads.h"
#include "util/machine.h"
#include "util/param.h"
#include "util/error.h"

/* Assumptions where a catalog row is silent (stated in the report's rules). */
#define PCIE_LINK_BPS 128e9     /* PCIe Gen5 x16: about 64 GB/s each way, both ways together */
#define HOST_BW_BPS 200e9       /* host memory behind a discrete GPU, when the row gives none */
/* A scenario's own system gives peaks, no SM count: its matmul size term is an H100's at its BF16
 * peak (989 TFLOP/s over 132 SMs, NVIDIA H100 Tensor Core GPU Architecture whitepaper, 2022), as
 * data/systems.csv's MI300X row is sized. */
#define H100_FLOPS_PER_SM (989e12 / 132)

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

/* The model experiment's workload_* fields, the older form of sr.job (kept one release): the job they
 * describe, named by workload_name, parsed as any job is (its messages name the workload_* fields). */
static int alias_job(const cJSON *params, struct jobspec *j, char *err, size_t errlen)
{
    cJSON *given = cJSON_CreateObject();
    for (const struct param *q = jobspec_params; q->name; q++) {
        char name[64];
        snprintf(name, sizeof name, "workload_%s", q->name);
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(params, name);
        if (v)
            cJSON_AddItemToObject(given, q->name, cJSON_Duplicate(v, 1));
    }
    int rc = jobspec_parse(given, NULL, "workload_", j, err, errlen);     /* no config.json in this form */
    cJSON_Delete(given);
    return rc;
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
    s->gen = -1;
    s->sms = s->peak[NET_DT_BF16] > 0 ? fmax(1, s->peak[NET_DT_BF16] / H100_FLOPS_PER_SM) : 132;
}

/* The smallest figure of the scenario's own system that describes a machine one trains on; below
 * it (a subnormal number, a typo of units) the projection's hours and costs mean nothing. A figure
 * with none (0: none or unknown) may be 0. */
static const struct {
    const char *field;
    double min;
    int zero_ok;
    const char *unit;
} system_floors[] = {
    { "system_bw_gbs", 1, 0, "GB/s" },
    { "system_memory_gb", 1, 0, "GB" },
    { "system_fp32_tflops", 0.01, 1, "TFLOPS" },
    { "system_bf16_tflops", 0.01, 1, "TFLOPS" },
    { "system_fp8_tflops", 0.01, 1, "TFLOPS" },
    { "system_power_w", 1, 1, "W" },
    { "system_price_usd", 1, 1, "USD" },
};

static int check_system(const cJSON *params, char *err, size_t errlen)
{
    const char *name = param_str(params, "system_name");
    if (!(param_num(params, "system_bw_gbs") > 0 && param_num(params, "system_memory_gb") > 0
          && param_num(params, "system_fp32_tflops") + param_num(params, "system_bf16_tflops") > 0)) {
        snprintf(err, errlen, "model: system '%.60s' needs system_bw_gbs, system_memory_gb and system_bf16_tflops "
                 "or system_fp32_tflops above 0", name);
        return -1;
    }
    for (size_t i = 0; i < sizeof system_floors / sizeof system_floors[0]; i++) {
        double v = param_num(params, system_floors[i].field);
        if (v >= system_floors[i].min || (v == 0 && system_floors[i].zero_ok))
            continue;
        snprintf(err, errlen, "model: system '%.60s': %s = %.6g is below %g %s, less than any machine one trains on%s",
                 name, system_floors[i].field, v, system_floors[i].min, system_floors[i].unit,
                 system_floors[i].zero_ok ? " (0: none or unknown)" : "");
        return -1;
    }
    return 0;
}

int predict_check(const cJSON *params, char *err, size_t errlen)
{
    if (named(params, "workload_name")) {
        struct jobspec j;
        char why[560];
        int rc = alias_job(params, &j, why, sizeof why);
        jobspec_free(&j);
        if (rc != 0) {
            snprintf(err, errlen, "model: %s", why);
            return -1;
        }
    }
    if (named(params, "system_name") && check_system(params, err, errlen) != 0)
        return -1;
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

/* A catalog row's roles (data/systems.csv, as sparkreport.catalog lists them) on its system. */
static void system_roles(const cJSON *row, struct predict_system *s)
{
    const cJSON *r;
    s->roles = cJSON_GetObjectItemCaseSensitive(row, "roles");
    cJSON_ArrayForEach(r, s->roles)
        s->shared |= cJSON_IsString(r) && strcmp(r->valuestring, "shared") == 0;
}

static void system_from_row(const cJSON *row, struct predict_system *s)
{
    memset(s, 0, sizeof *s);
    snprintf(s->id, sizeof s->id, "%s", str(row, "id"));
    snprintf(s->name, sizeof s->name, "%s", str(row, "name"));
    snprintf(s->kind, sizeof s->kind, "catalog");
    s->own = strcmp(str(row, "kind"), "scenario") == 0;     /* sr.system's row: projected as the catalog's are */
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
    s->system_power_w = num(row, "system_power_w");
    s->price_usd = num(row, "price_usd");
    s->node_gpus = (int)num(row, "fabric_nvlink_domain");
    s->scaleup_Bps = num(row, "fabric_scaleup_gbs") * 1e9;
    s->nic_Bps = num(row, "fabric_nic_gbs_per_gpu") * 1e9;
    s->peak_fp4 = num(row, "fp4_tflops") * 1e12;
    predict_stack_row_gpu(row, &s->gen, &s->span, &s->sms);
    system_roles(row, s);
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
    s->memory = machine_mem_total();
    s->shared_pool = 1;
    s->gen = -1;
}

/* The measured machine when the calibration ran on a GPU (info.calibration: device_name,
 * memory_bytes, shared_pool, catalog_id): its peaks per dtype and its device memory. A GPU the
 * runner recognised as the report's subject (catalog_id: a GB10 is a DGX Spark's) takes that
 * system's id, name, power, price and roles: its row is this run's measurements, not the catalog's
 * figures. Returns the catalog id or "". */
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
    s->sms = num(cal, "sms");           /* its device query's */
    cJSON_ArrayForEach(r, catalog)
        if (id[0] && strcmp(str(r, "id"), id) == 0)
            row = r;
    if (!row)
        return "";
    snprintf(s->id, sizeof s->id, "%s", id);
    snprintf(s->name, sizeof s->name, "%.100s, measured here", str(row, "name"));
    s->power_w = num(row, "power_w");
    s->system_power_w = num(row, "system_power_w");
    s->price_usd = num(row, "price_usd");
    system_roles(row, s);
    if (!(s->sms > 0)) {                /* a calibration without the device query's count: the row's */
        int gen, span;
        predict_stack_row_gpu(row, &gen, &span, &s->sms);
    }
    return id;
}

struct step_time {
    double s[3];                        /* low, central, high seconds per optimizer step */
    double micro[3], update[3];         /* of which one micro-batch, and the update */
    double cls[NET_NCLASSES];         /* central seconds per class */
    double cls_mem[NET_NCLASSES];     /* of which in memory-bound ops */
    double mem_bound;                   /* central seconds in memory-bound ops */
};

/* How a workload computes, for the ops of its plan: its stack (NULL on the measured machine),
 * recipe, and whether the FP8 GEMMs run at the FP4 peak. */
struct recipe {
    const struct predict_stack *st;
    enum net_prec p;
    int fp4;
    int tp;                             /* tensor parallelism: each op's FLOPs and bytes over tp devices */
};

/* Where op runs on sys at band end e (-1 the fast end, 0 central, 1 the slow end) in
 * generation gen: the peak of the dtype its stack runs it in (FP4's for an FP8 GEMM of the FP4
 * recipe), or the end of its recorded range (the slow end: the low figure, a sustained rate when
 * so recorded; the fast end: the high figure, a peak). */
static struct predict_target target(const struct predict_system *sys, const struct net_op *op, const struct recipe *rc,
                                    int gen, int e)
{
    enum net_dtype d = predict_stack_op_dtype(rc->st, rc->p, op);
    if (rc->fp4 && d == NET_DT_E4M3 && sys->peak_fp4 > 0)
        return (struct predict_target){ sys->peak_fp4, sys->bw, gen, 0, sys->sms };
    double peak = predict_system_peak(sys, d);
    enum net_dtype used = d;
    while (!(sys->peak[used] > 0) && used != NET_DT_F32)     /* the dtype predict_system_peak fell back to */
        used = used == NET_DT_BF16 ? NET_DT_F32 : NET_DT_BF16;
    struct predict_target t = { peak, sys->bw, gen, sys->range[used].sustained, sys->sms };
    if (e < 0 && sys->range[used].high > 0) {
        t.peak = sys->range[used].high;
        t.sustained = 0;
    } else if (e > 0 && sys->range[used].low > 0) {
        t.peak = sys->range[used].low;
    }
    return t;
}

/* An op on a system under a stack: central with the efficiencies of the system's generation
 * (Hopper's for a system the profiles know nothing of); the band's ends at the fast and slow ends
 * of the system's ranges with that generation's efficiencies moved by its spread (a generation
 * borrowed by rule), and over every generation's for a system whose efficiencies are less
 * certain than its generation's runs (its row's span: the cards of the DGX Spark's GeForce-class GB10). */
static void stack_op(const struct recipe *rc, const struct predict_system *sys, const struct net_op *op, double t[3],
                     int *mem_bound)
{
    int span = sys->span || sys->gen < 0, g0 = sys->gen >= 0 ? sys->gen : PREDICT_HOPPER;
    struct predict_target c = target(sys, op, rc, g0, 0);
    t[1] = predict_stack_op_seconds(rc->st, &c, op, mem_bound);
    t[0] = t[2] = t[1];
    for (int g = 0; g < PREDICT_NGENS; g++) {
        if (!span && g != g0)
            continue;
        struct predict_target fast = target(sys, op, rc, g, -1), slow = target(sys, op, rc, g, 1);
        t[0] = fmin(t[0], predict_stack_op_seconds_at(rc->st, &fast, op, -1));
        t[2] = fmax(t[2], predict_stack_op_seconds_at(rc->st, &slow, op, 1));
    }
}

/* One optimizer step of shape s: ops of a micro-batch count accum times, the update once; on
 * the measured machine (rc->st NULL) from its calibration, else from the stack's profile, the band
 * widened by the profile's leave-one-out errors. */
static void step_time(const struct predict_calib *c, const struct recipe *rc, const struct predict_system *sys,
                      const struct net_shape *s, struct step_time *t)
{
    struct net_shape one = *s;
    one.accum = 1;
    int nops;
    struct net_op *plan = net_plan_new(&one, rc->p, &nops);
    memset(t, 0, sizeof *t);
    for (int i = 0; i < nops; i++) {
        double times = plan[i].micro < 0 ? 1 : s->accum, x[3];
        int mb;
        if (rc->st) {
            struct net_op op = plan[i];
            if (rc->tp > 1) {           /* Megatron's split with sequence parallelism: 1/tp of every op */
                op.flops /= rc->tp;
                op.bytes_read /= rc->tp;
                op.bytes_written /= rc->tp;
            }
            stack_op(rc, sys, &op, x, &mb);
        } else {
            x[0] = x[1] = x[2] = predict_op_seconds(c, &plan[i], &mb);
        }
        for (int b = 0; b < 3; b++) {
            t->s[b] += times * x[b];
            *(plan[i].micro < 0 ? &t->update[b] : &t->micro[b]) += x[b];
        }
        enum net_class cls = net_kinds[plan[i].kind].cls;
        t->cls[cls] += times * x[1];
        if (mb) {
            t->cls_mem[cls] += times * x[1];
            t->mem_bound += times * x[1];
        }
    }
    if (rc->st) {
        double ms = predict_stack_micro_seconds(rc->st), lo = fmin(1, exp(rc->st->loo_lo)), hi = fmax(1, exp(rc->st->loo_hi));
        for (int b = 0; b < 3; b++) {       /* the trainer's cost per micro-batch, hidden by nothing */
            t->micro[b] += ms;
            t->s[b] += s->accum * ms;
        }
        t->cls[NET_OTHER] += s->accum * ms;
        t->s[0] *= lo;
        t->s[2] *= hi;
        t->micro[0] *= lo;
        t->micro[2] *= hi;
        t->update[0] *= lo;
        t->update[2] *= hi;
    }
    free(plan);
}

double predict_step_seconds(const struct predict_calib *c, const struct net_shape *s, enum net_prec p,
                            double *by_class)
{
    struct step_time t;
    struct recipe rc = { NULL, p, 0, 1 };
    step_time(c, &rc, NULL, s, &t);
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
    return predict_stack_fitted(st) ? st : NULL;
}

/* Devices a workload runs on here: the scenario's own job its gpus x nodes on every catalog system
 * (Sparks too, one GPU each); a reference workload its published count, at most one node of the
 * catalog part (the NVLink domain of data/fabric.csv; a part without one: one GPU); one on this
 * machine, a scenario system and a shared-pool system. */
static int system_gpus(const struct predict_system *sys, const struct predict_workload *w)
{
    int node = sys->node_gpus > 1 ? sys->node_gpus : 1;     /* one node of the part (data/fabric.csv) */
    if (strcmp(sys->kind, "catalog") != 0)
        return 1;
    if (w->nodes > 0)
        return w->gpus * w->nodes;
    return !sys->shared_pool && w->gpus > 1 ? (w->gpus < node ? w->gpus : node) : 1;
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
    if (f->tp > 1)
        cJSON_AddNumberToObject(r, "tp", f->tp);
    if (f->offload != PREDICT_OFFLOAD_NONE) {
        cJSON_AddNumberToObject(r, "host_bytes", f->host_bytes);
        cJSON_AddNumberToObject(r, "offload_traffic_bytes", f->offload_traffic_bytes);
        cJSON_AddNumberToObject(r, "host_optimizer_bytes", f->host_optimizer_bytes);
    }
    if (f->fits)
        cJSON_AddBoolToObject(r, "marginal", f->marginal);
}

/* Model FLOPs one token of a workload needs at sequence length seq: the plan's matmuls and attention at
 * micro-batch 1, no recomputation (LoRA: no weight gradients of the frozen base). */
static double flops_per_token(const struct predict_workload *w, int seq)
{
    struct net_shape s = w->shape;
    s.seq = seq;
    s.batch = s.accum = 1;
    s.checkpoint = 0;
    int n;
    struct net_op *plan = net_plan_new(&s, w->prec, &n);
    double f = 0;
    for (int i = 0; i < n; i++)
        f += plan[i].flops;
    free(plan);
    return f / s.seq;
}

/* The dense peak of a workload's recipe on a system, what its implied MFU divides by: FP4's for
 * the FP4 recipe, E4M3's for FP8, BF16's, FP32's. */
static double recipe_peak(const struct predict_system *sys, const struct predict_workload *w)
{
    if (w->fp4 && sys->peak_fp4 > 0)
        return sys->peak_fp4;
    return predict_system_peak(sys, w->prec == NET_FP8 ? NET_DT_E4M3 : w->prec == NET_FP32 ? NET_DT_F32 : NET_DT_BF16);
}

/* The data-parallel traffic of fit f (bytes per device: the weights at their matmul dtype, all
 * of them, the frozen base too; the trained parameters' gradients at the recipe's reduce width)
 * and the link it runs over (data/fabric.csv on a catalog row; none elsewhere). */
static double traffic(const struct predict_system *sys, const struct predict_workload *w, const struct predict_fit *f,
                      struct predict_comm *comm)
{
    int tp = f->tp > 1 ? f->tp : 1;             /* data parallelism over the tensor-parallel groups' slices */
    double n = (double)net_param_count(&w->shape) / tp, trained = (double)net_trainable_count(&w->shape) / tp;
    predict_comm_bytes(f->zero, f->gpus / tp, (w->prec == NET_FP32 ? 4 : 2) * n, predict_grad_bytes(w->prec) * trained,
                       comm);
    return predict_link_Bps(sys->node_gpus, sys->scaleup_Bps, sys->nic_Bps, f->gpus);
}

/* Bus bytes one device moves per micro-batch for tensor parallelism with sequence parallelism
 * (Korthikanti et al. 2022, section 4.2.2): per layer, two all-gathers and two reduce-scatters of the
 * [tokens, hidden] activations in the forward, as many in the backward, and the forward's again when
 * the layer is recomputed, each (tp - 1) / tp of the tensor at 2 bytes (4 under FP32). */
static double tp_bytes(const struct net_shape *s, enum net_prec p, int tp)
{
    if (tp <= 1)
        return 0;
    double T = (double)s->batch * s->seq, per = (double)(tp - 1) / tp * T * s->hidden * (p == NET_FP32 ? 4 : 2);
    return (s->checkpoint ? 12 : 8) * per * s->layers;
}

/* Time, hours, energy and MFU of a fitted configuration f into r. */
/* The positions a sample takes in a micro-batch of b samples, and the tokens it holds: packed, seq and
 * seq; padded to the sequence, seq of which fill x seq (or sample_tokens) are tokens; padded to the
 * longest of the b samples (predict_padded_positions), whole positions. */
static void sample_positions(const struct predict_workload *w, int b, double *pos, double *tok)
{
    *pos = w->shape.seq;
    *tok = w->fill > 0 ? w->fill * w->shape.seq : w->shape.seq;
    if (!(w->sample_tokens > 0))
        return;
    *tok = w->sample_tokens;
    if (w->padding != PREDICT_PAD_MAX_LENGTH)
        *pos = ceil(predict_padded_positions(w->sample_tokens, b, w->shape.seq));
}

/* A job calibrated on the team's own measured rate: its step on every system divided by the measured rate
 * over the projected one there (the model's ratios between systems kept), the measured system's band the
 * measurement's own spread; r.calibrated says on what. */
static void calibrate(cJSON *r, const struct predict_workload *w, const struct predict_system *sys, double *lo,
                      double *mid, double *hi)
{
    int here = strcmp(sys->id, w->calibrated_on) == 0;
    *lo /= w->speed;
    *mid /= w->speed;
    *hi /= w->speed;
    if (here) {
        *lo = *mid / (1 + w->calibrated_spread);
        *hi = *mid / (1 - w->calibrated_spread);
    }
    cJSON *o = cJSON_AddObjectToObject(r, "calibrated");
    cJSON_AddStringToObject(o, "on", w->calibrated_on);
    cJSON_AddBoolToObject(o, "here", here);
    cJSON_AddNumberToObject(o, "ratio", w->speed);
    cJSON_AddNumberToObject(o, "measured_tokens_per_s", w->calibrated_rate);
    cJSON_AddNumberToObject(o, "spread", w->calibrated_spread);
    cJSON_AddStringToObject(o, "source", w->calibrated_source);
    cJSON_AddStringToObject(o, "from", w->calibrated_from);
}

static void timing_json(cJSON *r, const struct predict_calib *c, const struct recipe *rc, const struct predict_system *sys,
                        const struct predict_workload *w, const struct predict_fit *f, double band_measured)
{
    struct net_shape s = w->shape;
    double pos, tok;
    s.batch = f->micro_batch;
    s.accum = f->accum;
    s.checkpoint = f->checkpoint;
    sample_positions(w, s.batch, &pos, &tok);
    s.seq = (int)pos;                   /* memory was fitted at the cutoff; time is spent on the padded length */
    struct step_time t;
    struct predict_comm comm = { 0, 0 };
    step_time(c, rc, sys, &s, &t);
    int tp = f->tp > 1 ? f->tp : 1, dp = f->gpus / tp;
    double link = dp > 1 ? traffic(sys, w, f, &comm) : 0, step[3];
    /* tensor parallelism's activations over the node's scale-up link each layer: exposed, not overlapped
       (Megatron's TP communication sits between a layer's GEMMs) */
    double tpb = tp_bytes(&s, w->prec, tp), tpl = predict_link_Bps(sys->node_gpus, sys->scaleup_Bps, sys->nic_Bps, tp);
    double tps = tpb > 0 && tpl > 0 ? tpb / tpl : 0;
    for (int b = 0; b < 3; b++) {   /* a sharded optimizer: each device updates its share */
        t.micro[b] += tps;
        step[b] = predict_dp_step_seconds(t.micro[b], s.accum, t.update[b] / (f->zero >= 1 ? dp : 1), &comm, link);
    }
    if (tp > 1) {
        cJSON_AddNumberToObject(r, "tp", tp);
        cJSON_AddNumberToObject(r, "tp_bytes_per_micro", tpb);
        cJSON_AddNumberToObject(r, "tp_link_Bps", tpl);
        cJSON_AddNumberToObject(r, "tp_comm_s", s.accum * tps);
    }
    double lo = step[0], mid = step[1], hi = step[2];
    if (!rc->st) {
        lo = mid / (1 + band_measured);     /* a factor each way: never below zero */
        hi = mid * (1 + band_measured);
    }
    if (f->offload != PREDICT_OFFLOAD_NONE) {      /* the link and the host's AdamW, not overlapped */
        double extra = f->offload_traffic_bytes / sys->link_bw + f->host_optimizer_bytes / sys->host_bw;
        mid += extra;
        hi += extra;
        cJSON_AddNumberToObject(r, "offload_s_per_step", extra);
    }
    if (w->speed > 0)
        calibrate(r, w, sys, &lo, &mid, &hi);
    if (dp > 1) {
        cJSON_AddNumberToObject(r, "traffic_bytes_per_micro", comm.micro);
        cJSON_AddNumberToObject(r, "traffic_bytes_per_step", comm.step);
        cJSON_AddNumberToObject(r, "link_Bps", link);
        cJSON_AddNumberToObject(r, "comm_s", link > 0 ? (s.accum * comm.micro + comm.step) / link : 0);
    }
    /* each device times its own share of the global batch; without packing only a share of the
       positions are tokens */
    double tokens_group = (double)s.batch * s.accum * tok;  /* a data-parallel rank's */
    double tokens_dev = tokens_group / tp, tokens_step = tokens_group * dp;      /* a tensor-parallel group shares them */
    double steps = ceil(w->tokens / tokens_step), peak = recipe_peak(sys, w);
    if (pos < w->shape.seq || tok < pos) {      /* samples one by one: what a step computes and what it trains */
        cJSON_AddNumberToObject(r, "positions_per_sample", pos);
        cJSON_AddNumberToObject(r, "tokens_per_sample", tok);
    }
    cJSON_AddNumberToObject(r, "step_s", mid);
    cJSON_AddNumberToObject(r, "steps", steps);
    cJSON_AddNumberToObject(r, "tokens_per_s", tokens_step / mid);
    cJSON_AddNumberToObject(r, "tokens_per_s_per_gpu", tokens_dev / mid);
    cJSON_AddNumberToObject(r, "hours", steps * mid / 3600);
    cJSON_AddNumberToObject(r, "hours_low", steps * lo / 3600);
    cJSON_AddNumberToObject(r, "hours_high", steps * hi / 3600);
    if (peak > 0)
        cJSON_AddNumberToObject(r, "mfu", flops_per_token(w, s.seq) * tokens_dev / mid / peak);
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
    /* energy on the decision pages' basis: the whole system's power per device (data/costs.csv, host
       included), else the chip's (the catalog's board or module power), which the record names */
    double watts = sys->system_power_w > 0 ? sys->system_power_w : sys->power_w;
    if (watts > 0) {
        cJSON_AddNumberToObject(r, "energy_kwh", steps * mid / 3600 * watts * f->gpus / 1000);
        cJSON_AddStringToObject(r, "energy_basis", sys->system_power_w > 0 ? "system" : "chip");
    }
    if (sys->price_usd > 0)
        cJSON_AddNumberToObject(r, "price_usd", sys->price_usd);
}

/* The job as its stack runs it: its "auto" settings made the stack's (checkpointing as its trainers do by
 * default, predict_stack's ckpt_default), eager attention as unfused, the loss fused or not, and the
 * optimizer recipe every profile's trainers keep (FP32 master weights and moments); on the measured
 * machine (no stack) the settings as given. */
static void job_on_stack(const struct predict_workload *w, const struct predict_stack *st, struct predict_workload *j)
{
    *j = *w;
    if (w->ckpt == PREDICT_CKPT_AUTO && st && st->ckpt_default)
        j->shape.checkpoint = 1;
    if (w->attention == PREDICT_ATT_EAGER)
        j->shape.attention = NET_ATT_UNFUSED;
    if (w->loss != PREDICT_LOSS_AUTO)
        j->shape.fused_loss = w->loss == PREDICT_LOSS_FUSED;
    if (w->optimizer_auto)
        j->shape.optimizer = NET_OPT_ADAMW;
}

static void compiled_json(cJSON *r, const struct predict_calib *c, const struct predict_system *sys,
                          const struct predict_workload *given, double band, const int *counts, int n);

/* Device counts the smallest-fit rows try (Sparks over ConnectX-7, HBM GPUs over their node's link). */
static const int more_devices[] = { 2, 4, 8 };

/* The profile a projection was timed with, as the decision page names it: its stack, the runs it
 * was fitted on and their era, and whether the system's generation is among them or extrapolated
 * (its efficiencies borrowed by the profile's stated rule, the band widened by the rule's spread). */
static void stack_json(cJSON *r, const struct predict_stack *st, const struct predict_system *sys)
{
    const struct predict_stack *fitted = predict_stack_find(st->fitted_on);
    int own = sys->gen, gen = own >= 0 ? own : PREDICT_HOPPER;
    cJSON_AddStringToObject(r, "stack", st->id);
    cJSON_AddStringToObject(r, "stack_name", st->short_name);
    cJSON_AddStringToObject(r, "stack_era", st->era);
    cJSON_AddStringToObject(r, "stack_fitted_on", fitted ? fitted->short_name : st->short_name);
    cJSON_AddNumberToObject(r, "stack_runs", fitted ? fitted->nfit : 0);
    cJSON_AddBoolToObject(r, "extrapolated", own < 0 || !predict_stack_gen_fitted(st, gen));
    cJSON_AddStringToObject(r, "extrapolation", own < 0 ? "a system the profiles know nothing of: Hopper's "
                            "efficiencies, the band spanning every generation's" : st->gen_rule[gen]);
    cJSON_AddNumberToObject(r, "extrapolation_spread", own < 0 ? 0 : st->gen_spread[gen]);
}

/* A marginal fit (less than PREDICT_MARGINAL of the usable memory left): what the job becomes if it
 * does not fit after all: the same devices with that much more held back (smaller micro-batches,
 * checkpointing, offload), else the next device count that holds it (catalog systems), as
 * r.if_not_fit with its fit, devices and hours. */
static void marginal_json(cJSON *r, const struct predict_calib *c, const struct recipe *rc,
                          const struct predict_system *sys, const struct predict_workload *w,
                          const struct predict_fit_target *tg, const struct predict_fit *f)
{
    struct predict_fit_target t = *tg;
    struct predict_fit g;
    t.reserve = tg->reserve + PREDICT_MARGINAL * (tg->capacity - tg->reserve);
    t.gpus = f->gpus;
    int ok = predict_fit(&w->shape, w->prec, &t, &g);
    if (!ok && strcmp(sys->kind, "catalog") == 0) {
        int counts[8], n = 0;
        for (size_t i = 0; i < sizeof more_devices / sizeof more_devices[0]; i++)
            if (more_devices[i] > f->gpus && (sys->shared_pool || sys->node_gpus <= 1 || more_devices[i] <= sys->node_gpus))
                counts[n++] = more_devices[i];
        ok = n > 0 && predict_fit_devices(&w->shape, w->prec, &t, counts, n, &g) > 0;
    }
    cJSON *a = cJSON_AddObjectToObject(r, "if_not_fit");
    fit_json(a, sys, &g);
    if (!ok)
        return;
    timing_json(a, c, rc, sys, w, &g, 0);
    cJSON_DeleteItemFromObject(a, "by_class");
}

/* One projection record of series `series`: on the workload's own device count, or (counts
 * given) the smallest of counts[0..n) on which it fits. */
static cJSON *projection_json(const struct predict_calib *c, const struct predict_system *sys,
                              const struct predict_workload *given, double band_measured, const char *series,
                              const int *counts, int n)
{
    int measured = strcmp(sys->kind, "measured") == 0;
    struct predict_workload job;
    const struct predict_workload *w = &job;
    struct recipe rc = { measured ? NULL : workload_stack(given), given->prec, given->fp4,
                         given->tp > 1 ? given->tp : 1 };
    job_on_stack(given, rc.st, &job);
    struct predict_fit f;
    struct predict_fit_target tg;
    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "series", series);
    cJSON_AddStringToObject(r, "workload", w->id);
    cJSON_AddStringToObject(r, "system", sys->id);
    cJSON_AddStringToObject(r, "system_kind", sys->kind);
    predict_fit_target_for(sys->memory, sys->host_memory, sys->shared_pool, system_gpus(sys, w), &tg);
    if (sys->tenant_usable > 0)         /* one of several tenants: its share (predict/tenants.c) */
        tg.reserve = sys->memory - sys->tenant_usable;
    tg.zero = w->zero > 0 ? w->zero - 1 : PREDICT_ZERO_AUTO;
    tg.no_checkpoint = w->ckpt == PREDICT_CKPT_NONE;
    tg.micro = w->micro;
    tg.tp = w->tp > 1 ? w->tp : 1;
    tg.host_gpus = sys->node_gpus > 1 ? sys->node_gpus : 1;     /* one host per node (data/fabric.csv) */
    if (counts) {
        predict_fit_devices(&w->shape, w->prec, &tg, counts, n, &f);
        cJSON_AddNumberToObject(r, "devices", f.gpus);
    } else {
        predict_fit(&w->shape, w->prec, &tg, &f);
    }
    fit_json(r, sys, &f);
    if (!f.fits)
        return r;
    const char *why = !(sys->peak[NET_DT_F32] + sys->peak[NET_DT_BF16] > 0)
                      ? "the catalog gives no dense FP32 or BF16 peak"
                      : !measured && !rc.st ? "no GPU software-stack profile was fitted (no published runs given)"
                      : !measured && !(sys->sms > 0) ? "the catalog gives no SM count (data/systems.csv's sms)"
                      : w->fp4 && !(sys->peak_fp4 > 0) ? "the FP4 recipe needs an FP4 peak, which this system has not"
                      : NULL;
    if (why) {
        char fit[sizeof f.reason + 96];
        snprintf(fit, sizeof fit, "%s; not projected: %s", f.reason, why);
        cJSON_ReplaceItemInObject(r, "fit", cJSON_CreateString(fit));
        return r;
    }
    if (rc.st)
        stack_json(r, rc.st, sys);
    timing_json(r, c, &rc, sys, w, &f, band_measured);
    if (f.marginal)
        marginal_json(r, c, &rc, sys, w, &tg, &f);
    if (rc.st && !rc.st->compiled && strcmp(sys->kind, "catalog") == 0)
        compiled_json(r, c, sys, given, band_measured, counts, n);
    return r;
}

/* The same job on the compiled stack (PREDICT_COMPILED_STACK) beside a projection on an eager one (the
 * Hugging Face Trainer's, PyTorch FSDP's of 2023-24), as r.compiled: its stack, fit and hours with band;
 * what the decision's "a compiled stack on both sides" and the page's ratio of the two read. Nothing
 * when it does not fit there or no compiled profile was fitted. */
static void compiled_json(cJSON *r, const struct predict_calib *c, const struct predict_system *sys,
                          const struct predict_workload *given, double band, const int *counts, int n)
{
    struct predict_workload alt = *given;
    alt.stack = PREDICT_COMPILED_STACK;
    alt.speed = 0;              /* a rate measured on the job's own stack says nothing of this one */
    if (!workload_stack(&alt))
        return;
    cJSON *a = projection_json(c, sys, &alt, band, "compiled", counts, n), *o;
    static const char *const keep[] = { "stack", "stack_name", "stack_era", "gpus", "micro_batch", "accum", "checkpoint",
                                        "hours", "hours_low", "hours_high", "tokens_per_s_per_gpu", "step_s" };
    if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(a, "fits")) && num(a, "hours") > 0) {
        o = cJSON_AddObjectToObject(r, "compiled");
        for (size_t i = 0; i < sizeof keep / sizeof keep[0]; i++) {
            cJSON *v = cJSON_GetObjectItemCaseSensitive(a, keep[i]);
            if (v)
                cJSON_AddItemToObject(o, keep[i], cJSON_Duplicate(v, 1));
        }
    }
    cJSON_Delete(a);
}

/* The smallest count of 2, 4, 8 devices of a catalog system that runs a workload one device
 * cannot hold without offload (series "projection_devices"); NULL when one device does. */
static cJSON *devices_json(const struct predict_calib *c, const struct predict_system *sys,
                           const struct predict_workload *w, const cJSON *one)
{
    const cJSON *off = cJSON_GetObjectItemCaseSensitive(one, "offload");
    if (strcmp(sys->kind, "catalog") != 0 || system_gpus(sys, w) > 1
        || (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(one, "fits")) && cJSON_IsString(off)
            && strcmp(off->valuestring, "none") == 0))
        return NULL;
    return projection_json(c, sys, w, 0, "projection_devices", more_devices,
                           (int)(sizeof more_devices / sizeof more_devices[0]));
}

/* How a job is run, in the report's words: "micro-batch 1 (as set), samples of 166 tokens one by one,
 * each micro-batch padded to its longest, activation checkpointing on (the stack's default), fused
 * attention, the cross-entropy unfused, LoRA on every block linear, AdamW with FP32 master weights". */
static void how_text(const struct predict_workload *w, char *buf, size_t n)
{
    static const char *const optim[NET_NOPTIMS] = { [NET_OPT_ADAMW] = "AdamW with FP32 master weights and moments",
        [NET_OPT_ADAMW_BF16] = "AdamW in pure BF16", [NET_OPT_ADAM8] = "8-bit AdamW" };
    const struct net_shape *s = &w->shape;
    size_t o = 0;
    if (w->micro > 0)
        o += (size_t)snprintf(buf + o, n - o, "micro-batch %d (as set), ", w->micro);
    else
        o += (size_t)snprintf(buf + o, n - o, "the largest micro-batch that fits, ");
    if (w->sample_tokens > 0)
        o += (size_t)snprintf(buf + o, n - o, "samples of %.0f tokens one by one, %s, ", w->sample_tokens,
                              w->padding == PREDICT_PAD_MAX_LENGTH ? "each padded to the sequence length"
                              : "each micro-batch padded to its longest sample");
    else if (w->fill > 0)
        o += (size_t)snprintf(buf + o, n - o, "samples one by one, %.0f %% of each sequence tokens, ", 100 * w->fill);
    else
        o += (size_t)snprintf(buf + o, n - o, "sequences packed, ");
    o += (size_t)snprintf(buf + o, n - o, "activation checkpointing %s, %s attention, the cross-entropy %s, ",
                          w->ckpt == PREDICT_CKPT_FULL ? "on (as set)" : w->ckpt == PREDICT_CKPT_NONE ? "off (as set)"
                          : s->checkpoint ? "on (the stack's default)" : "where memory needs it",
                          s->attention == NET_ATT_FLASH ? "fused" : "eager", s->fused_loss ? "fused with the head"
                          : "unfused");
    if (s->lora_rank > 0)
        o += (size_t)snprintf(buf + o, n - o, "LoRA on %s, ", s->lora_targets == NET_LORA_QV ? "the query and value "
                              "projections" : "every block linear");
    snprintf(buf + o, n - o, "%s", optim[net_optim_of(s, w->prec)]);
}

static cJSON *workload_json(const struct predict_workload *given)
{
    struct predict_workload job;
    const struct predict_workload *w = &job;
    const struct net_shape *s = &job.shape;
    char how[512];
    job_on_stack(given, workload_stack(given), &job);
    how_text(w, how, sizeof how);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "id", w->id);
    cJSON_AddStringToObject(o, "name", w->name);
    cJSON_AddStringToObject(o, "kind", w->kind);
    cJSON_AddNumberToObject(o, "params", (double)net_param_count(s));
    if (s->lora_rank > 0)
        cJSON_AddNumberToObject(o, "trainable_params", (double)net_lora_count(s));
    cJSON_AddNumberToObject(o, "tokens", w->tokens);
    cJSON_AddStringToObject(o, "tokens_basis", w->tokens_basis ? w->tokens_basis : "published");
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
    cJSON_AddStringToObject(o, "attention", s->attention == NET_ATT_FLASH ? "fused" : "eager");
    if (w->micro > 0)
        cJSON_AddNumberToObject(o, "job_micro_batch", w->micro);
    if (w->sample_tokens > 0)
        cJSON_AddNumberToObject(o, "sample_tokens", w->sample_tokens);
    cJSON_AddStringToObject(o, "how", how);
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
    if (s->roles)
        cJSON_AddItemToObject(o, "roles", cJSON_Duplicate(s->roles, 1));
    if (s->own)
        cJSON_AddBoolToObject(o, "own", 1);
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

/* The claim's field of a catalog row's dense peak for a precision as published. */
static const char *claim_peak_field(const char *precision)
{
    return strcmp(precision, "fp4") == 0 ? "fp4_tflops" : strcmp(precision, "fp8") == 0 ? "fp8_tflops"
           : strcmp(precision, "fp32") == 0 ? "fp32_tflops" : strcmp(precision, "bf16") == 0 ? "bf16_tflops" : NULL;
}

int predict_claim_check(const cJSON *claim, char *err, size_t errlen)
{
    const char *compute = *str(claim, "compute") ? str(claim, "compute") : str(claim, "precision");
    if (!predict_workload_find(str(claim, "workload"))) {
        snprintf(err, errlen, "workload '%.60s' is not a reference workload (sparkreport list shows them)",
                 str(claim, "workload"));
        return -1;
    }
    if (!claim_peak_field(compute)) {
        snprintf(err, errlen, "%s '%.32s' is not a precision with a catalog peak (bf16, fp8, fp4, fp32)",
                 *str(claim, "compute") ? "compute" : "precision", compute);
        return -1;
    }
    return 0;
}

/* A vendor's published training rate as published (precision, sequence length, batch) beside the
 * FLOP arithmetic: what it needs per second against the dense peak of the precision it was run in,
 * and our projection of the same workload at its sequence length and batch where it states them
 * (else our workload's), in our recipe (BF16 compute; a 4-bit base as the workload stores it). */
static void vendor_claims_json(const struct predict_calib *cal, const struct predict_system *sys, int nsys,
                               const struct predict_inputs *in, cJSON *results)
{
    const cJSON *c;
    cJSON_ArrayForEach(c, in->claims) {
        const struct predict_workload *ref = predict_workload_find(str(c, "workload"));
        const struct predict_system *on = NULL;
        for (int i = 0; i < nsys; i++)
            on = strcmp(sys[i].id, str(c, "system")) == 0 && strcmp(sys[i].kind, "catalog") == 0 ? &sys[i] : on;
        double rate = strtod(str(c, "tokens_per_s"), NULL), seq = strtod(str(c, "seq"), NULL);
        double batch = strtod(str(c, "batch"), NULL);
        if (!ref || !on || !(rate > 0))
            continue;
        struct predict_workload w = *ref;
        if (seq >= 2 && batch >= 1) {
            w.shape.seq = (int)seq;
            w.shape.batch = (int)batch;
            w.shape.accum = 1;
        }
        cJSON *r = cJSON_CreateObject();
        /* the peak of the precision the arithmetic runs in: NF4 QLoRA, which the source may call FP4,
         * stores its base in 4 bits and computes in BF16 */
        const char *compute = *str(c, "compute") ? str(c, "compute") : str(c, "precision");
        const char *field = claim_peak_field(compute);
        double f = flops_per_token(&w, w.shape.seq), peak = field ? on->peak_fp4 > 0 && strcmp(field, "fp4_tflops") == 0
                   ? on->peak_fp4 : predict_system_peak(on, strcmp(field, "fp8_tflops") == 0 ? NET_DT_E4M3
                   : strcmp(field, "fp32_tflops") == 0 ? NET_DT_F32 : NET_DT_BF16) : 0;
        cJSON_AddStringToObject(r, "series", "vendor_claim");
        cJSON_AddStringToObject(r, "claim", str(c, "id"));
        cJSON_AddStringToObject(r, "system", on->id);
        cJSON_AddStringToObject(r, "workload", w.id);
        cJSON_AddStringToObject(r, "what", str(c, "what"));
        cJSON_AddStringToObject(r, "precision", str(c, "precision"));
        cJSON_AddStringToObject(r, "compute_precision", compute);
        cJSON_AddStringToObject(r, "source", str(c, "source"));
        cJSON_AddNumberToObject(r, "claimed_tokens_per_s", rate);
        if (seq >= 2 && batch >= 1) {      /* as published; else our workload's, which the claim does not state */
            cJSON_AddNumberToObject(r, "seq", w.shape.seq);
            cJSON_AddNumberToObject(r, "batch", (double)w.shape.batch * w.shape.accum);
        }
        cJSON_AddNumberToObject(r, "flops_per_token", f);
        cJSON_AddNumberToObject(r, "needed_flops", rate * f);
        if (peak > 0) {
            cJSON_AddNumberToObject(r, "peak_flops", peak);
            cJSON_AddNumberToObject(r, "share_of_peak", rate * f / peak);
        }
        cJSON_AddNumberToObject(r, "bf16_tflops", on->peak[NET_DT_BF16] / 1e12);
        if (on->peak[NET_DT_E4M3] > 0)
            cJSON_AddNumberToObject(r, "fp8_tflops", on->peak[NET_DT_E4M3] / 1e12);
        if (on->peak_fp4 > 0)
            cJSON_AddNumberToObject(r, "fp4_tflops", on->peak_fp4 / 1e12);
        cJSON *p = projection_json(cal, on, &w, 0, "vendor_claim_projection", NULL, 0);
        if (num(p, "tokens_per_s") > 0) {
            cJSON_AddNumberToObject(r, "projected_tokens_per_s", num(p, "tokens_per_s"));
            cJSON_AddNumberToObject(r, "projected_tokens_per_s_low", num(p, "tokens_per_s") * num(p, "hours") / num(p, "hours_high"));
            cJSON_AddNumberToObject(r, "projected_tokens_per_s_high", num(p, "tokens_per_s") * num(p, "hours") / num(p, "hours_low"));
            cJSON_AddStringToObject(r, "projected_precision", net_prec_names[w.prec]);
        }
        cJSON_Delete(p);
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

/* How the projections were made (info.projection_rules), the report's text. */
static void rules_json(cJSON *rules)
{
    cJSON_AddStringToObject(rules, "measured",
        "this machine: every op from its own calibration (curves of efficiency against size, extended to the "
        "sustained GEMM peak and the DRAM read); band: a factor of 1 + the validation's largest error (at least 5 %) "
        "plus 10 % for ops larger than any timed, each way (the hours divided and multiplied by it)");
    cJSON_AddStringToObject(rules, "catalog",
        "catalog rows, the DGX Spark's included: every op of the workload's plan timed with its software stack's "
        "profile (its efficiency per op class against size, fitted on the published GPU training "
        "runs of data/gpu-runs.csv, nothing from the machine that ran this report) on the row's dense peak for the "
        "dtype the stack runs the op in (the Spark's BF16 125 TFLOP/s dense with FP32 accumulation, FP8 250, FP4 500: "
        "NVIDIA's 1 PFLOP FP4 with sparsity at the datacenter ratios; matmuls measured at 92 there), each matmul's "
        "efficiency against its size in tile products per SM (a 48-SM GB10 fills with smaller matrices than a 132-SM "
        "H100) "
        "and its bandwidth: no op above its stack's efficiency on that peak; each op the longest of its compute, "
        "its memory traffic and the stack's per-op cost, which overlaps with queued kernels and binds only short "
        "ops. Band: the 10th to 90th percentile of the profile's leave-one-out errors, widened by the recorded "
        "range of a disputed spec (data/spec-ranges.csv), by the spread of a generation a profile has no runs of "
        "(its efficiencies borrowed by the ratio another profile measured between generations: the row is marked "
        "extrapolated), and for the RTX 50 and RTX PRO 6000 cards (whose generation's runs are a DGX Spark's) by every "
        "generation's efficiencies. The DGX Spark's slow end is its 62 TFLOP/s BF16 of early software: a stack "
        "without GB10-tuned kernels runs about half as fast. The CPU validation above validates the method on this "
        "machine only; it does not bound these projections");
    cJSON_AddStringToObject(rules, "offload",
        "offload (ZeRO-Offload; on several GPUs with ZeRO-3, as FSDP's CPU offload and DeepSpeed's offload_optimizer "
        "run it): each GPU's shard of the gradients down and of the updated weights up over its CPU-GPU link at the "
        "catalog bandwidth (PCIe Gen5 x16, 128 GB/s both ways, when the row gives none), and the host's AdamW over the "
        "shards of every GPU of its node at the host bandwidth (200 GB/s when the row gives none), added without "
        "overlap; never on one shared pool");
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
        "fits; offload of the optimizer (then the gradients) to host memory last, on several GPUs with ZeRO-3, never "
        "on a shared pool; tensor parallelism with sequence parallelism (the job's tp) divides every layer's weights, "
        "gradients, optimizer state, activations and FLOPs by tp (Korthikanti et al. 2022) and moves two all-gathers "
        "and two reduce-scatters of the layer's activations forward and as many backward (again when recomputed) over "
        "the node's scale-up link, not overlapped. A fit with less than a tenth of the usable memory left is marginal, "
        "with what the job takes if it does not fit (that tenth held back: more accumulation, checkpointing, offload, "
        "or the next device count). A workload published on several GPUs runs on as many of a catalog part, at most one node of "
        "it (data/fabric.csv's NVLink domain; one GPU for a part without one; one on this machine and on "
        "shared-pool systems); the scenario's own job on its GPUs x nodes; the global batch split over them at the "
        "lowest ZeRO stage that fits (0: plain data parallelism; 1, 2, 3 shard the optimizer state, the gradients, "
        "the weights) or the one the job names. A job one device cannot hold without offload also gets the "
        "smallest of 2, 4, 8 devices that holds it (series projection_devices: two Sparks over ConnectX-7, HBM GPUs "
        "over their node's link). Hours are for the whole configuration and energy counts every GPU's power");
    cJSON_AddStringToObject(rules, "samples",
        "samples one by one (not packed): memory sized for the cutoff, the longest a sample may be; time for the "
        "positions a step computes: each micro-batch padded to its longest sample (the Hugging Face collators' "
        "default), the expected longest of its samples' lengths taken as exponentially distributed about their "
        "mean (an assumption: a data set's lengths are rarely published), so micro-batch 1 pads nothing, or "
        "every sample padded to the cutoff; tokens/s counts the samples' tokens, not the padding. A job's "
        "\"auto\" settings (checkpointing, attention, loss, optimizer) are its stack's: each profile's defaults");
    cJSON_AddStringToObject(rules, "traffic",
        "data-parallel traffic on several devices, per device (bus bytes): ZeRO-0 all-reduces the gradients once "
        "per step, 2(N-1)/N G; ZeRO-1 reduce-scatters them and all-gathers the updated weights, (N-1)/N (G + W); "
        "ZeRO-2 reduce-scatters each micro-batch's gradients and all-gathers the weights once; ZeRO-3/FSDP "
        "all-gathers the weights twice and reduce-scatters the gradients each micro-batch, (N-1)/N (2W + G); W "
        "all weights at 2 bytes (4 under FP32), G the trained parameters' gradients at 2 bytes (4 under FP32). "
        "Over data/fabric.csv's link: the scale-up link within a node, else the node's NICs together (NCCL's "
        "rings each cross a node through their own NIC), at most the scale-up link. Each micro-batch's traffic "
        "overlaps its compute (the larger binds); the step's collective hides behind two thirds of the last "
        "micro-batch (its backward)");
    cJSON_AddStringToObject(rules, "mfu",
        "implied MFU: the model FLOPs a token needs x the projected tokens/s per GPU, over the dense peak of the "
        "workload's recipe (BF16, FP8, FP4, FP32); " NET_FLOP_CONVENTION);
}

/* One tenant's projection within its share of the pool (predict_tenants's `within`). */
struct tenant_ud {
    const struct predict_calib *c;
    const struct predict_system *sys;
    const struct predict_workload *w;
    double band;
};

static cJSON *tenant_within(void *ud, double usable)
{
    const struct tenant_ud *t = ud;
    struct predict_system share = *t->sys;
    share.tenant_usable = usable;
    return projection_json(t->c, &share, t->w, t->band, "projection", NULL, 0);
}

/* The team's own measured rate m of job j (on a catalog system of sys[0..n), or its catalog row): the
 * job's projection there as the model makes it, the measured rate over it as j's speed. Returns the
 * message of a rate that calibrates nothing, or NULL. */
static const char *calibrate_on(const struct predict_calib *c, const struct predict_system *sys, int n,
                                const struct predict_inputs *in, double band, const struct measured *m,
                                struct jobspec *j, char *buf, size_t bn)
{
    struct predict_system row;
    const struct predict_system *on = NULL;
    const cJSON *r;
    for (int i = 0; i < n && !on; i++)
        on = strcmp(sys[i].id, m->system) == 0 && strcmp(sys[i].kind, "measured") != 0 ? &sys[i] : NULL;
    cJSON_ArrayForEach(r, in->catalog)
        if (!on && strcmp(str(r, "id"), m->system) == 0) {
            system_from_row(r, &row);
            on = &row;
        }
    if (!on) {
        snprintf(buf, bn, "measured[%.60s on %.40s]: %.40s is not a catalog system", m->job, m->system, m->system);
        return buf;
    }
    if (strcmp(m->stack, "auto") != 0 && strcmp(m->stack, j->w.stack) != 0) {
        snprintf(buf, bn, "measured[%.60s on %.40s]: measured on stack '%.31s', and the job runs on '%.31s' (its "
                 "stack field): give the stack the team runs it on", m->job, m->system, m->stack, j->w.stack);
        return buf;
    }
    cJSON *p = projection_json(c, on, &j->w, band, "projection", NULL, 0);
    double rate = num(p, "tokens_per_s_per_gpu");
    cJSON_Delete(p);
    if (!(rate > 0)) {
        snprintf(buf, bn, "measured[%.60s on %.40s]: the job is not projected there (it does not fit, or no profile "
                 "times it), so a rate there calibrates nothing", m->job, m->system);
        return buf;
    }
    j->w.speed = m->tokens_per_s / rate;
    j->w.calibrated_on = m->system;
    j->w.calibrated_rate = m->tokens_per_s;
    j->w.calibrated_spread = m->spread;
    j->w.calibrated_source = m->source;
    j->w.calibrated_from = m->from;
    return NULL;
}

/* The scenario's jobs (in->jobs: sr.job, each parsed once more from the plain copy the scenario record
 * holds), each calibrated on the team's measured rate of it where there is one (in->measured; the
 * last one given counts); what cannot be read is info.job_errors. *n jobs in a new array. */
static struct jobspec *scenario_jobs(const struct predict_calib *c, const struct predict_system *sys, int nsys,
                                     const struct predict_inputs *in, double band, int *n, struct measured **rates_out,
                                     cJSON *info)
{
    int cap = cJSON_GetArraySize(in->jobs), nr = 0, nm = cJSON_GetArraySize(in->measured);
    struct jobspec *jobs = cap ? xmalloc((size_t)cap * sizeof *jobs) : NULL;
    struct measured *rates = nm ? xmalloc((size_t)nm * sizeof *rates) : NULL;   /* the jobs point at their texts */
    *rates_out = rates;
    const cJSON *e;
    char err[600];
    cJSON *errors = NULL;
    *n = 0;
    cJSON_ArrayForEach(e, in->jobs) {
        if (jobspec_parse(e, NULL, "", &jobs[*n], err, sizeof err) != 0) {
            cJSON_AddItemToArray(errors ? errors : (errors = cJSON_AddArrayToObject(info, "job_errors")),
                                 cJSON_CreateString(err));
            continue;
        }
        jobs[*n].w.id = jobs[*n].name;
        (*n)++;
    }
    cJSON_ArrayForEach(e, in->measured) {
        struct measured *m = &rates[nr++];
        const char *why = NULL;
        int found = 0;
        if (measured_parse(e, NULL, NULL, m, err, sizeof err) != 0)
            why = err;
        for (int i = 0; !why && i < *n; i++)
            if (strcmp(jobs[i].name, m->job) == 0 && (found = 1))
                why = calibrate_on(c, sys, nsys, in, band, m, &jobs[i], err, sizeof err);
        if (!why && !found) {
            snprintf(err, sizeof err, "measured[%.60s on %.40s]: no job of the scenario is named '%.60s' (sr.job)",
                     m->job, m->system, m->job);
            why = err;
        }
        if (why)
            cJSON_AddItemToArray(errors ? errors : (errors = cJSON_AddArrayToObject(info, "job_errors")),
                                 cJSON_CreateString(why));
    }
    return jobs;
}

void predict_project(const cJSON *params, const struct predict_calib *c, const char *device, const cJSON *measured,
                     const struct predict_inputs *in, cJSON *results, cJSON *info)
{
    const cJSON *wl = param_get(params, "workloads"), *sl = param_get(params, "systems"), *row;
    struct jobspec ownjob;
    char why[560];
    const struct predict_workload *own = &ownjob.w;
    int has_own = named(params, "workload_name") && alias_job(params, &ownjob, why, sizeof why) == 0;
    if (is_none(wl) && !has_own && cJSON_GetArraySize(in->jobs) == 0) {
        if (named(params, "workload_name"))
            jobspec_free(&ownjob);
        return;
    }
    fit_profiles(in, results, info);
    /* the measured machine's band: the validation's largest error (at least 5 %), and 10 % more
     * because the reference workloads' ops are larger than any the calibration timed */
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(measured, "validation"),
                                                      "max_abs_error");
    double band = fmax(0.05, cJSON_IsNumber(v) ? v->valuedouble : 0.5) + 0.10;
    int nsys = 2 + cJSON_GetArraySize(in->catalog);
    struct predict_system *sys = xmalloc((size_t)nsys * sizeof *sys), *shared = NULL;
    const cJSON *cal = cJSON_GetObjectItemCaseSensitive(measured, "calibration");
    int gpu = device && strcmp(device, "gpu") == 0;
    const char *mine = gpu ? system_measured_gpu(c, cal, in->catalog, &sys[0]) : "";
    if (!gpu)
        system_measured(c, &sys[0]);
    nsys = 1;
    cJSON_ArrayForEach(row, in->catalog) {
        if ((listed(sl, str(row, "id")) || strcmp(str(row, "kind"), "scenario") == 0)    /* sr.system: always */
            && num(row, "mem_bw_gbs") > 0 && num(row, "memory_gb") > 0
            && strcmp(str(row, "id"), mine) != 0)
            system_from_row(row, &sys[nsys++]);
    }
    if (named(params, "system_name"))
        custom_system(params, &sys[nsys++]);
    cJSON *wj = cJSON_AddArrayToObject(info, "workloads"), *sj = cJSON_AddArrayToObject(info, "systems");
    for (int i = 0; i < nsys; i++)
        cJSON_AddItemToArray(sj, system_json(&sys[i]));
    int njobs = 0;
    struct measured *rates;
    struct jobspec *jobs = scenario_jobs(c, sys, nsys, in, band, &njobs, &rates, info);
    for (int i = 0; i <= predict_nworkloads + njobs; i++) {
        const struct predict_workload *w = i < predict_nworkloads ? &predict_workloads[i]
                                           : i > predict_nworkloads ? &jobs[i - predict_nworkloads - 1].w
                                           : has_own ? own : NULL;
        if (!w || (i < predict_nworkloads && (is_none(wl) || !listed(wl, w->id))))
            continue;
        cJSON_AddItemToArray(wj, workload_json(w));
        for (int j = 0; j < nsys; j++) {
            cJSON *one = projection_json(c, &sys[j], w, band, "projection", NULL, 0), *more = devices_json(c, &sys[j], w, one);
            cJSON_AddItemToArray(results, one);
            if (more)
                cJSON_AddItemToArray(results, more);
            if (sys[j].shared) {        /* N people sharing it (predict/tenants.c) */
                struct tenant_ud t = { c, &sys[j], w, band };
                predict_tenants(&sys[j], w->id, &in->contention, tenant_within, &t, results);
                shared = &sys[j];
            }
        }
    }
    vendor_claims_json(c, sys, nsys, in, results);
    if (shared)
        predict_tenants_basis(shared, &in->contention, info);
    cJSON *rules = cJSON_AddObjectToObject(info, "projection_rules");
    rules_json(rules);
    if (gpu)
        measured_gpu_rule(rules, cal, mine);
    cJSON_AddStringToObject(rules, "energy", "hours x devices x the whole system's power per device, host included "
                            "(data/costs.csv, as the decision pages count it; energy_basis \"system\"), else the "
                            "catalog's board or module power (energy_basis \"chip\"); price: the catalog's purchase "
                            "price, not a rental cost");
    free(sys);
    if (named(params, "workload_name"))
        jobspec_free(&ownjob);
    for (int i = 0; i < njobs; i++)
        jobspec_free(&jobs[i]);
    free(jobs);
    free(rates);
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
