/* precision.c: the precision experiment, device-independent: which formats, shapes and parts
 * to measure, validation before timing, repetitions until the times settle, the roofline knee,
 * the numerics against an FP64 reference, and the records. FLOPs and bytes are counted here,
 * from the format table and precision_math.h. Kernels are the backends' (precision_cpu.c,
 * src/exp/precision/precision_cuda.cu); this file never asks which one it holds beyond choosing them. */
#include "config.h"

#include "exp/precision/precision.h"
#include "exp/precision/precision_int.h"

#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/cuda.h"
#include "measure/dram.h"
#include "exp/experiment.h"
#include "measure/backend.h"
#include "measure/measure.h"
#include "util/machine.h"
#include "util/error.h"
#include "util/progress.h"
#include "util/json.h"
#include "util/timing.h"
#include "util/units.h"

static const char *const part_names[NPARTS] = { "overhead", "peak", "gemm", "sweep", "numerics" };
static const double part_weight[NPARTS] = { 0.02, 0.08, 0.55, 0.29, 0.06 };

static int word_index(const char *w, const char *const *names, int n)
{
    for (int i = 0; i < n; i++)
        if (strcmp(w, names[i]) == 0)
            return i;
    return -1;
}

/* "all" or a list of words -> on[] flags. */
static void choose(const cJSON *v, const char *const *names, int n, int *on)
{
    for (int i = 0; i < n; i++)
        on[i] = cJSON_IsString(v);
    for (const cJSON *e = cJSON_IsArray(v) ? v->child : NULL; e; e = e->next) {
        int i = word_index(e->valuestring, names, n);
        if (i >= 0)
            on[i] = 1;
    }
}

/* ---- the plan ------------------------------------------------------------------------------- */

int prec_precheck(const cJSON *params, char *err, size_t errlen)
{
    const cJSON *ns = param_get(params, "numerics_shape");
    char want[32], have[32];
    if (cJSON_GetArraySize(ns) != 3) {
        snprintf(err, errlen, "precision: parameter 'numerics_shape' must be three integers m, n, k, got %d",
                 cJSON_GetArraySize(ns));
        return -1;
    }
    if ((int)cJSON_GetArrayItem(ns, 2)->valuedouble % 32 != 0) {
        snprintf(err, errlen, "precision: the k of 'numerics_shape' must be a multiple of 32 (the FP4 "
                 "blocks), got %.0f", cJSON_GetArrayItem(ns, 2)->valuedouble);
        return -1;
    }
    const cJSON *sz = param_get(params, "sweep_size");
    double avail = machine_mem_available();
    if (cJSON_IsNumber(sz) && isfinite(avail) && sz->valuedouble > MEM_SHARE * avail) {
        snprintf(err, errlen, "precision: a sweep array of %s does not fit in memory: %s available "
                 "(MemAvailable), of which it may use %.0f %%", units_format_bytes(sz->valuedouble, want, sizeof want),
                 units_format_bytes(avail, have, sizeof have), MEM_SHARE * 100);
        return -1;
    }
    return 0;
}

/* Square sizes: the list given, or doubling from lo to hi. */
static int squares(const cJSON *params, int lo, int hi, struct prec_shape *out, int max)
{
    const cJSON *sq = param_get(params, "square");
    int n = 0;
    if (cJSON_IsArray(sq)) {
        for (const cJSON *e = sq->child; e && n < max; e = e->next, n++)
            out[n] = (struct prec_shape){ "square", (int)e->valuedouble, (int)e->valuedouble, (int)e->valuedouble };
        return n;
    }
    for (int s = lo; s <= hi && n < max; s *= 2, n++)
        out[n] = (struct prec_shape){ "square", s, s, s };
    return n;
}

/* The GEMMs of a GPT-style training step: m = tokens, k = hidden, n = output features. */
static int plan_shapes(const cJSON *params, int gpu, struct prec_shape *out, int max)
{
    int n = 0;
    if (param_bool(params, "model_shapes")) {       /* first: what a training step runs */
        int t = (int)param_num(params, "tokens"), h = (int)param_num(params, "hidden"), v = (int)param_num(params, "vocab");
        out[n++] = (struct prec_shape){ "attn-proj", t, h, h };
        out[n++] = (struct prec_shape){ "mlp-up", t, 4 * h, h };
        out[n++] = (struct prec_shape){ "lm-head", t, v, h };
    }
    return n + squares(params, gpu ? 256 : 64, (int)param_num(params, gpu ? "gpu_max_square" : "cpu_max_square"),
                       out + n, max - n);
}

/* One sweep array: the size given, or DRAM-sized (measure_dram_bytes), within memory. */
static double cpu_sweep_bytes(struct prec_run *r)
{
    const cJSON *sz = param_get(r->params, "sweep_size");
    if (cJSON_IsNumber(sz))
        return sz->valuedouble;
    struct machine_cpu cpu;
    machine_cpu(&cpu);
    double want = measure_dram_bytes(machine_cache_total(&cpu)), avail = machine_mem_available();
    if (isfinite(avail) && want > MEM_SHARE * avail) {
        char a[32], b[32], msg[256];
        double capped = pow(2.0, floor(log2(MEM_SHARE * avail)));
        snprintf(msg, sizeof msg, "a DRAM-sized array (4x all caches) needs %s; limited to %s by available memory",
                 units_format_bytes(want, a, sizeof a), units_format_bytes(capped, b, sizeof b));
        measure_skip(r->skipped, "CPU sweep array of 4x all caches", msg);
        want = capped;
    }
    return want;
}

static void setup_run(struct prec_run *r, const cJSON *params, double budget_s)
{
    memset(r, 0, sizeof *r);
    r->params = params;
    r->results = cJSON_CreateArray();
    r->skipped = cJSON_CreateArray();
    r->info = cJSON_CreateObject();
    const char *fnames[PREC_NFMT];
    for (int f = 0; f < PREC_NFMT; f++)
        fnames[f] = prec_fmts[f].name;
    choose(param_get(params, "formats"), fnames, PREC_NFMT, r->fmt_on);
    choose(param_get(params, "parts"), part_names, NPARTS, r->part_on);
    measure_rule_from(&r->rule, params);
    r->seed = (uint64_t)param_num(params, "seed");
    r->tmax = omp_get_max_threads();
    budget_s = measure_budget(params, budget_s);
    r->t0 = timing_now();
    r->end = r->deadline = r->t0 + budget_s;
    cJSON_AddNumberToObject(r->info, "budget_s", budget_s);
}

/* ---- info: how the numbers were made, for the report's method text --------------------- */

static void info_formats(cJSON *info)
{
    cJSON *fs = cJSON_AddArrayToObject(info, "formats");
    for (int f = 0; f < PREC_NFMT; f++) {
        const struct prec_fmt_info *fi = &prec_fmts[f];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "name", fi->name);
        cJSON_AddStringToObject(o, "label", fi->label);
        if (fi->catalog)
            cJSON_AddStringToObject(o, "catalog_column", fi->catalog);
        cJSON_AddNumberToObject(o, "input_bytes", fi->in_bytes);
        cJSON_AddNumberToObject(o, "output_bytes", fi->out_bytes);
        cJSON_AddNumberToObject(o, "tolerance", fi->tolerance);
        cJSON_AddNumberToObject(o, "error_bound", fi->error_bound);
        cJSON_AddStringToObject(o, "scaling", fi->scaling);
        cJSON_AddItemToArray(fs, o);
    }
}

static void info_cpu(struct prec_run *r, double sweep_bytes)
{
    cJSON *c = cJSON_AddObjectToObject(r->info, "cpu");
    char why[256] = "";
    cJSON_AddNumberToObject(c, "threads", r->tmax);
    cJSON_AddNumberToObject(c, "sweep_array_bytes", sweep_bytes);
    cJSON *ks = cJSON_AddArrayToObject(c, "kernels");
    for (int f = PREC_FP64; f <= PREC_FP32; f++) {
        const struct prec_kernel *pk = prec_kernel_find(f);
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "precision", prec_fmts[f].name);
        cJSON_AddStringToObject(o, "isa", pk->isa);
        cJSON_AddNumberToObject(o, "vector_bytes", pk->vector_bytes);
        cJSON_AddNumberToObject(o, "chains", pk->chains);
        cJSON_AddItemToArray(ks, o);
    }
    cJSON_AddBoolToObject(c, "sbgemm", prec_cpu_has_sbgemm(why, sizeof why));
    if (why[0])
        cJSON_AddStringToObject(c, "sbgemm_reason", why);
}

/* The machine's one DRAM figure, the memory roof of the CPU intensity sweep. */
static void info_dram(struct prec_run *r)
{
    struct measure_dram d;
    char why[256];
    if (measure_dram("precision", &d, why, sizeof why) == 0)
        cJSON_AddItemToObject(r->info, "dram", measure_dram_json(&d));
    else
        measure_skip(r->skipped, "the DRAM bandwidth (the CPU roofline's memory roof)", why);
}

static void info_conventions(struct prec_run *r)
{
    cJSON *i = r->info;
    cJSON_AddStringToObject(i, "flop_convention",
        "GEMM: 2 m n k; FMA kernels: 2 per lane and round; sweep: 2k + 1 per element (k FMAs and the sum)");
    cJSON_AddStringToObject(i, "byte_convention",
        "GEMM: A and B once (block scales included) and D once, C not read (beta = 0); "
        "sweep: each element read once");
    cJSON_AddStringToObject(i, "gemm_layout", "D = A^T B, A stored k x m, B stored k x n (TN), column-major");
    cJSON_AddStringToObject(i, "inputs", "uniform in (-1, 1), never zero, from a counter-based generator "
                            "(splitmix64), the same values on every device");
    cJSON_AddStringToObject(i, "model", "GPT-2 small: m = tokens, k = hidden, n = hidden (attn-proj), "
                            "4 hidden (mlp-up), vocab (lm-head)");
    cJSON_AddNumberToObject(i, "tokens", param_num(r->params, "tokens"));
    cJSON_AddNumberToObject(i, "hidden", param_num(r->params, "hidden"));
    cJSON_AddNumberToObject(i, "vocab", param_num(r->params, "vocab"));
    info_formats(i);
}

/* ---- the run ---------------------------------------------------------------------------------- */

/* Without a device, every GPU item this run would have measured, with the one reason. */
static void skip_gpu(struct prec_run *r, const char *reason)
{
    char item[96];
    cJSON_AddStringToObject(cJSON_AddObjectToObject(r->info, "gpu"), "reason", reason);
    if (r->part_on[PART_OVERHEAD])
        measure_skip(r->skipped, "GPU kernel launch cost", reason);
    for (int f = 0; f < PREC_NFMT; f++) {
        if (!r->fmt_on[f])
            continue;
        snprintf(item, sizeof item, "GPU GEMM %s", prec_fmts[f].name);
        if (r->part_on[PART_GEMM])
            measure_skip(r->skipped, item, reason);
        snprintf(item, sizeof item, "GPU numerics %s", prec_fmts[f].name);
        if (r->part_on[PART_NUMERICS])
            measure_skip(r->skipped, item, reason);
    }
    if (r->part_on[PART_SWEEP])
        measure_skip(r->skipped, "GPU intensity sweep", reason);
}

/* The parts in order, each with its share of the device's time plus what earlier ones left. */
static void device_parts(struct prec_run *r, const struct prec_ops *ops, double seconds, double sweep_bytes)
{
    struct prec_shape shapes[40];
    int gpu = strcmp(ops->device, "gpu") == 0;
    int ns = plan_shapes(r->params, gpu, shapes, 40);
    double until = fmin(timing_now() + seconds, r->end), weights = 0;
    char step[64];
    cJSON *took = cJSON_GetObjectItemCaseSensitive(r->info, "elapsed_s");
    if (!took)
        took = cJSON_AddObjectToObject(r->info, "elapsed_s");
    took = cJSON_AddObjectToObject(took, ops->device);      /* seconds per part, for the budget */
    for (int p = 0; p < NPARTS; p++)
        weights += r->part_on[p] && (p != PART_PEAK || !gpu) ? part_weight[p] : 0;
    for (int p = 0; p < NPARTS; p++) {
        if (!r->part_on[p] || (p == PART_PEAK && gpu))
            continue;
        double now = timing_now(), left = until - now;
        r->deadline = fmin(until, now + (left > 0 ? left : 0) * part_weight[p] / weights);
        weights -= part_weight[p];
        snprintf(step, sizeof step, "%s %s", ops->device, part_names[p]);
        progress_step(p + (gpu ? NPARTS : 0), step);
        switch (p) {
        case PART_OVERHEAD: prec_overheads(r, ops); break;
        case PART_PEAK: prec_peaks(r); break;
        case PART_GEMM: prec_gemms(r, ops, shapes, ns); break;
        case PART_SWEEP: prec_sweeps(r, ops, sweep_bytes); break;
        case PART_NUMERICS: prec_numerics(r, ops); break;
        }
        cJSON_AddNumberToObject(took, part_names[p], timing_now() - now);
    }
    r->deadline = r->end;
}

static void gpu_run(struct prec_run *r, double seconds)
{
    struct cuda_info ci;
    char why[256];
    const struct prec_ops *ops = backend_for("precision", "gpu", why, sizeof why);
    if (!ops) {
        skip_gpu(r, why);
        return;
    }
    cuda_probe(&ci);                /* the device's name, caches and free memory for the plan */
    cJSON *g = cJSON_AddObjectToObject(r->info, "gpu");
    cJSON_AddStringToObject(g, "name", ci.dev[0].name);
    cJSON_AddNumberToObject(g, "compute_capability", ci.dev[0].major + ci.dev[0].minor / 10.0);
    cJSON_AddNumberToObject(g, "l2_bytes", ci.dev[0].l2_bytes);
    if (ops->select && ops->select(0, why, sizeof why) != 0) {
        skip_gpu(r, why);
        return;
    }
    const cJSON *sz = param_get(r->params, "gpu_sweep_size");
    double bytes = cJSON_IsNumber(sz) ? sz->valuedouble : fmax(1024 * MiB, 8.0 * ci.dev[0].l2_bytes);
    if (isfinite(ci.dev[0].mem_free_bytes))
        bytes = fmin(bytes, pow(2.0, floor(log2(0.5 * ci.dev[0].mem_free_bytes))));
    cJSON_AddNumberToObject(g, "sweep_array_bytes", bytes);
    device_parts(r, ops, seconds, bytes);
}

cJSON *prec_run(const cJSON *params, double budget_s, char *err, size_t errlen)
{
    struct prec_run r;
    (void)err;
    (void)errlen;
    setup_run(&r, params, budget_s);
    const char *dev = param_str(params, "device");
    int cpu = strcmp(dev, "gpu") != 0, gpu = strcmp(dev, "cpu") != 0;
    char why[256];
    double per_device = r.end - r.t0;         /* the budget is per device measured */
    if (cpu && gpu && backend_for("precision", "gpu", why, sizeof why))
        r.end += per_device;
    info_conventions(&r);
    progress_deadline(r.end + CUT_GRACE_S);     /* a kernel whose estimate was short stops there */
    progress_begin("precision", 2 * NPARTS, r.end - r.t0);
    if (cpu) {
        double bytes = cpu_sweep_bytes(&r);
        info_cpu(&r, bytes);
        device_parts(&r, backend_for("precision", "cpu", NULL, 0), per_device, bytes);
        if (r.part_on[PART_SWEEP])      /* after the parts: measuring it here must not eat their time */
            info_dram(&r);
    }
    if (gpu)
        gpu_run(&r, r.end - timing_now());
    progress_step(2 * NPARTS, "done");
    progress_end();
    progress_deadline(0);
    prec_free_reference(&r);
    cJSON *out = cJSON_CreateObject();
    cJSON_AddItemToObject(out, "results", r.results);
    cJSON_AddItemToObject(out, "skipped", r.skipped);
    cJSON_AddItemToObject(out, "info", r.info);
    return out;
}
