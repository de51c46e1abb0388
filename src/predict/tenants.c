/* tenants.c: N people sharing one DGX Spark, projected (tenants.h): the memory split (fit.c's reserve
 * once, one more runtime per tenant beyond the first), the GPU time-sliced (each step N-fold plus
 * the cost of a context switch per time slice), the bandwidth split (the memory-bound part over the
 * share this run measured), and the records and basis that say so. One tenant's step within its
 * share is the projection's, through the function it hands in. */
#include "predict/tenants.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "predict/fit.h"
#include "util/json.h"

const int predict_tenant_counts[] = { 1, 2, 3, 4, 6, 8 };
const int predict_ntenant_counts = (int)(sizeof predict_tenant_counts / sizeof predict_tenant_counts[0]);

/* What a context switch moves when the GPU time-slices (stated in info.tenants_basis):
 * - the time slice, PREDICT_TIMESLICE_S: 1024 us, the driver's default channel-group time slice on
 *   every GPU it drives but two Tegra display parts (NVIDIA open-gpu-kernel-modules 595.45.04,
 *   2026-03-05: kfifoChannelGroupGetDefaultTimeslice_GV100 returns NV_RAMRL_ENTRY_TSG_TIMESLICE_
 *   TIMEOUT_128 << NV_RAMRL_ENTRY_TSG_TIMESLICE_SCALE_3, 128 << 3 us);
 * - compute preemption swaps the running context's SM state out to memory and the next one's in
 *   (NVIDIA Pascal tuning guide, "Compute Preemption"); per SM at most its register file, 64 K
 *   32-bit registers = 256 KiB (CUDA C++ Programming Guide, technical specifications per compute
 *   capability), and its L1 / shared memory, 128 KiB on the GeForce-class Blackwell SM GB10 has
 *   (Chips and Cheese, "Blackwell: Nvidia's Massive GPU", 2025);
 * - the system's SMs (its catalog row's sms, with its source; a GPU measured here: its device query's).
 * Saved and restored at the system's bandwidth. */
#define SWITCH_SM_BYTES ((256.0 + 128.0) * 1024)

static const cJSON *item(const cJSON *o, const char *k) { return cJSON_GetObjectItemCaseSensitive(o, k); }

/* ---- the measurement ---- */

static void contention_add(struct predict_contention *m, const cJSON *e)
{
    const cJSON *t, *info = item(e, "info"), *first = NULL, *r;
    const char *device = json_str(e, "device", json_str(info, "device", "cpu"));
    char parts[200] = "", size[48] = "";
    size_t o = 0;
    m->n = 0;
    snprintf(m->device, sizeof m->device, "%s", device);
    cJSON_ArrayForEach(t, item(info, "totals")) {
        if (strcmp(json_str(t, "series", ""), "stream") != 0 || m->n == PREDICT_TENANTS_MAX
            || !(json_num(t, "share_sum", 0) > 0))
            continue;
        m->tenants[m->n] = (int)json_num(t, "tenants", 1);
        m->share[m->n] = json_num(t, "share_sum", 1);
        if (m->tenants[m->n] > 1 && o < sizeof parts)
            o += (size_t)snprintf(parts + o, sizeof parts - o, "%s%.0f %% at N = %d", o ? ", " : "",
                                  100 * m->share[m->n], m->tenants[m->n]);
        m->n++;
    }
    cJSON_ArrayForEach(r, item(e, "results"))
        if (!first && strcmp(json_str(r, "series", ""), "stream") == 0 && cJSON_IsTrue(item(r, "valid")))
            first = r;
    if (json_num(info, "working_set_bytes", 0) > 0)
        snprintf(size, sizeof size, ", %.2g GB each", json_num(info, "working_set_bytes", 0) / 1e9);
    snprintf(m->what, sizeof m->what, "this run's tenants experiment, the bandwidth stream on this machine's %s (%s, "
             "%s%s): N tenants together kept %s of the GB/s one moved alone", strcmp(device, "gpu") == 0 ? "GPU" : "CPU",
             json_str(first, "kernel", "triad"), json_str(first, "precision", "fp64"), size, parts[0] ? parts : "none");
}

void predict_contention_load(const cJSON *experiments, struct predict_contention *m)
{
    const cJSON *e;
    memset(m, 0, sizeof *m);
    for (int want_gpu = 1; want_gpu >= 0 && m->n < 2; want_gpu--)      /* a GPU's first: it is what time-slices */
        cJSON_ArrayForEach(e, experiments) {
            struct predict_contention c;
            const char *dev = json_str(e, "device", json_str(item(e, "info"), "device", "cpu"));
            if (strcmp(json_str(e, "name", ""), "tenants") != 0 || (strcmp(dev, "gpu") == 0) != want_gpu)
                continue;
            contention_add(&c, e);
            if (c.n >= 2 && m->n < 2)
                *m = c;
        }
}

double predict_contention_share(const struct predict_contention *m, int n)
{
    double s = 1;
    int at = 0;
    for (int i = 0; i < m->n; i++)
        if (m->tenants[i] <= n && m->tenants[i] > at) {
            at = m->tenants[i];
            s = m->share[i];
        }
    return s < 1 ? s : 1;
}

double predict_contention_worst(const struct predict_contention *m)
{
    double s = 1;
    for (int i = 0; i < m->n; i++)
        if (m->tenants[i] >= 2 && m->share[i] < s)
            s = m->share[i];
    return s;
}

/* ---- the formulas ---- */

double predict_tenant_usable(double capacity, int shared, int n)
{
    double usable = capacity - predict_fit_reserve(capacity, shared) - (n - 1) * predict_fit_runtime_reserve();
    return usable / n;
}

double predict_tenant_switch_s(const struct predict_system *sys)
{
    return sys->bw > 0 ? 2 * sys->sms * SWITCH_SM_BYTES / sys->bw : 0;
}

double predict_tenant_factor(int n, double mem, double share, double switch_s)
{
    if (n <= 1)
        return 1;
    return n * ((1 - mem) + mem / share) * (1 + switch_s / PREDICT_TIMESLICE_S);
}

/* ---- the records ---- */

void predict_tenants(const struct predict_system *sys, const char *workload, const struct predict_contention *m,
                     cJSON *(*within)(void *ud, double usable), void *ud, cJSON *results)
{
    double hours1 = NAN, device1 = 0, sw = predict_tenant_switch_s(sys), worst = predict_contention_worst(m);
    for (int k = 0; k < predict_ntenant_counts; k++) {
        int n = predict_tenant_counts[k];
        double usable = predict_tenant_usable(sys->memory, sys->shared_pool, n);
        cJSON *in = usable > 0 ? within(ud, usable) : NULL, *r = cJSON_CreateObject();
        int fits = cJSON_IsTrue(item(in, "fits"));
        double dev = json_num(in, "memory_bytes", device1);
        cJSON_AddStringToObject(r, "series", "tenants");
        cJSON_AddStringToObject(r, "workload", workload);
        cJSON_AddStringToObject(r, "system", sys->id);
        cJSON_AddNumberToObject(r, "tenants", n);
        cJSON_AddBoolToObject(r, "fits", fits);
        cJSON_AddNumberToObject(r, "device_bytes", dev);
        cJSON_AddNumberToObject(r, "usable_bytes", usable > 0 ? usable : 0);
        if (n == 1)
            device1 = dev;
        if (fits && json_num(in, "hours", 0) > 0) {
            double mem = json_num(in, "memory_bound_share", 0), share = predict_contention_share(m, n);
            double fc = predict_tenant_factor(n, mem, share, sw), lo = predict_tenant_factor(n, mem, 1, 0);
            double hi = predict_tenant_factor(n, mem, share < worst ? share : worst, sw);
            double hours = json_num(in, "hours", 0) * fc;
            if (n == 1)
                hours1 = hours;
            cJSON_AddNumberToObject(r, "step_s", json_num(in, "step_s", 0) * fc);
            cJSON_AddNumberToObject(r, "hours", hours);
            cJSON_AddNumberToObject(r, "hours_low", json_num(in, "hours_low", 0) * lo);
            cJSON_AddNumberToObject(r, "hours_high", json_num(in, "hours_high", 0) * hi);
            if (hours1 > 0)
                cJSON_AddNumberToObject(r, "slowdown", hours / hours1);
        }
        cJSON_Delete(in);
        cJSON_AddItemToArray(results, r);
        if (n == 1 && !fits)
            break;                  /* a job that does not fit alone does not fit a share */
    }
}

void predict_tenants_basis(const struct predict_system *sys, const struct predict_contention *m, cJSON *info)
{
    char text[3200], bw[900];
    double sw = predict_tenant_switch_s(sys), reserve = predict_fit_reserve(sys->memory, sys->shared_pool);
    if (m->n >= 2)
        snprintf(bw, sizeof bw, "the share of the alone bandwidth N tenants kept together in %s; capped at 100 %% "
                 "(time-slicing runs one tenant at a time), the count measured nearest below N standing for N, the "
                 "band's slow end at the worst share measured (%.0f %%), its fast end at an ideal split (100 %%)",
                 m->what, 100 * predict_contention_worst(m));
    else
        snprintf(bw, sizeof bw, "an ideal split (100 %%: the tenants together move what one moves alone), because this "
                 "run measured no bandwidth shared by several tenants (the scenario has no tenants experiment with a "
                 "stream at 2 or more tenants)");
    snprintf(text, sizeof text,
             "N tenants running one job each on one %s: memory: its %.0f GB less the fit's reserve once (%.1f GB: the "
             "OS, the runtime and the allocator), less %.0f GB for each tenant's own CUDA context and workspaces beyond "
             "the first, split evenly (%.1f GB each at N = 4), each tenant's job fitted in its share by the fit rules "
             "(smaller micro-batches, then activation checkpointing; no offload on one pool); GPU: time-sliced, one "
             "tenant's kernels at a time, so each tenant's step takes N times its step alone, plus one context switch "
             "per %.0f us time slice (the driver's default: NVIDIA open-gpu-kernel-modules 595.45.04) that saves and "
             "restores up to %.0f SMs x %.0f KiB of registers and shared memory (CUDA programming guide; Chips and "
             "Cheese on the Blackwell SM) at %.0f GB/s, %.0f us, %.1f %% of a slice (the band's fast end: none); "
             "bandwidth: the step's memory-bound part divided by %s",
             sys->name, sys->memory / 1e9, reserve / 1e9, predict_fit_runtime_reserve() / 1e9,
             predict_tenant_usable(sys->memory, sys->shared_pool, 4) / 1e9, PREDICT_TIMESLICE_S * 1e6, sys->sms,
             SWITCH_SM_BYTES / 1024, sys->bw / 1e9, sw * 1e6, 100 * sw / PREDICT_TIMESLICE_S, bw);
    cJSON_AddStringToObject(info, "tenants_basis", text);
}
