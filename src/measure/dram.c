/* dram.c: the run's DRAM ceilings (dram.h): kept once chosen or measured, picked from bandwidth
 * records by the one rule (bytes known to move; the write-allocate view only where the machine
 * shows it), the ceiling of an op's mix, written as info.dram. */
#include "measure/dram.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measure/backend.h"
#include "util/json.h"

static struct {
    int set;
    struct measure_dram d;
} kept;

struct measure_dram measure_dram_set(const struct measure_dram *d)
{
    kept.d = *d;
    kept.set = 1;
    return kept.d;
}

static int candidate(const cJSON *r, int threads)
{
    const char *series = json_str(r, "series", "");
    return (strcmp(series, "size") == 0 || strcmp(series, "stores") == 0)    /* both store kinds */
           && strcmp(json_str(r, "alloc", ""), "host") == 0
           && (int)json_num(r, "threads", -1) == threads
           && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "valid"))
           && isfinite(json_num(r, "gbps_best", NAN));
}

/* The record's store kind: "none" for a kernel that writes nothing, else as recorded (older
 * records without the field: cached). */
static const char *stores_of(const cJSON *r)
{
    return strcmp(json_str(r, "kernel", ""), "read") == 0 ? "none" : json_str(r, "stores", "cached");
}

/* The kernels by what they write: reads + writes arrays named, as bandwidth.c's table. */
static const struct { const char *kernel; int reads, writes; } kernel_mix[] = {
    { "read", 1, 0 }, { "add", 2, 1 }, { "triad", 2, 1 }, { "copy", 1, 1 }, { "scale", 1, 1 }, { "fill", 0, 1 },
};

static int mix_of(const char *kernel, double *share)
{
    for (size_t i = 0; i < sizeof kernel_mix / sizeof kernel_mix[0]; i++)
        if (strcmp(kernel, kernel_mix[i].kernel) == 0) {
            *share = (double)kernel_mix[i].reads / (kernel_mix[i].reads + kernel_mix[i].writes);
            return kernel_mix[i].writes;
        }
    return -1;
}

/* The time ratio a read for ownership of every stored line would give a cached kernel over its
 * non-temporal twin: (reads + 2 writes) / (reads + writes). */
static double wa_ratio(const char *kernel)
{
    double share;
    int w = mix_of(kernel, &share);
    return w > 0 ? 1 + (1 - share) : NAN;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The timing evidence: for each kernel that writes, cached against non-temporal at the same
 * point, the share of the extra time a read for ownership needs that the cached one took;
 * their median (NAN: no pair), each pair's ratios into words[len]. */
static double wa_share(const cJSON *results, int threads, double top, char *words, size_t wlen)
{
    double shares[32];
    int n = 0;
    size_t len = 0;
    const cJSON *c, *t;
    words[0] = 0;
    cJSON_ArrayForEach(c, results) {
        if (!candidate(c, threads) || json_num(c, "array_bytes", 0) < top || strcmp(stores_of(c), "cached") != 0)
            continue;
        cJSON_ArrayForEach(t, results) {
            if (!candidate(t, threads) || json_num(t, "array_bytes", 0) < top
                || strcmp(stores_of(t), "non-temporal") != 0
                || strcmp(json_str(t, "kernel", ""), json_str(c, "kernel", "")) != 0
                || strcmp(json_str(t, "precision", ""), json_str(c, "precision", "")) != 0 || n == 32)
                continue;
            double ratio = json_num(t, "gbps_best", NAN) / json_num(c, "gbps_best", NAN);
            double need = wa_ratio(json_str(c, "kernel", ""));
            shares[n++] = (ratio - 1) / (need - 1);
            if (len < wlen)
                len += (size_t)snprintf(words + len, wlen - len, "%s%s %s %.2f of %.2f",
                                        len ? ", " : "", json_str(c, "kernel", "?"), json_str(c, "precision", "?"),
                                        ratio, need);
        }
    }
    if (n == 0)
        return NAN;
    qsort(shares, (size_t)n, sizeof *shares, cmp_double);
    return n % 2 ? shares[n / 2] : (shares[n / 2 - 1] + shares[n / 2]) / 2;
}

/* Whether cached stores read each line first (d->write_allocate), with the evidence in words. */
static void decide_wa(const cJSON *results, int threads, double top, const struct measure_counters *hw,
                      struct measure_dram *d)
{
    char timing[256];
    double share = wa_share(results, threads, top, timing, sizeof timing);
    d->write_allocate = isfinite(share) ? share >= MEASURE_WA_SHOWN : -1;
    if (isfinite(share))
        snprintf(d->wa_evidence, sizeof d->wa_evidence, "time of each cached kernel over its non-temporal twin, "
                 "against the ratio a read for ownership would give: %s; median %.0f %% of the extra time (%s %.0f %%)",
                 timing, 100 * share, d->write_allocate ? "shown: at least" : "not shown: under", 100 * MEASURE_WA_SHOWN);
    else
        snprintf(d->wa_evidence, sizeof d->wa_evidence, "no cached kernel was timed beside its non-temporal twin at "
                 "this point: cached stores are counted as STREAM counts them");
    if (!hw) {
        snprintf(d->counters, sizeof d->counters, "not tried");
        return;
    }
    if (!hw->readable) {
        snprintf(d->counters, sizeof d->counters, "not readable: %s", hw->why);
        return;
    }
    int unread = hw->fill_per_line < 0.5 * hw->read_per_line;
    snprintf(d->counters, sizeof d->counters, "last-level misses per line: cached fill %.2f, read %.2f%s",
             hw->fill_per_line, hw->read_per_line, unread ? " (the fill did not read its lines)" : "");
    if (unread && d->write_allocate == 1)
        d->write_allocate = 0;              /* the counters take it back */
}

/* Bytes known to move per second, best repetition: cached stores also read each written line
 * first where the machine shows it does (the write-allocate view); else STREAM's count. */
static double moved_gbps(const cJSON *r, int write_allocate)
{
    double wa = json_num(r, "gbps_best_wa", NAN);
    return strcmp(stores_of(r), "cached") == 0 && write_allocate == 1 && isfinite(wa) ? wa : json_num(r, "gbps_best", NAN);
}

static void name(struct measure_dram_ceiling *c, const cJSON *r, double share, double g)
{
    c->read_share = share;
    c->gbps = g;
    snprintf(c->kernel, sizeof c->kernel, "%s", json_str(r, "kernel", "?"));
    snprintf(c->precision, sizeof c->precision, "%s", json_str(r, "precision", "?"));
    snprintf(c->stores, sizeof c->stores, "%s", stores_of(r));
}

int measure_dram_pick(const cJSON *results, int threads, const struct measure_counters *hw, struct measure_dram *out)
{
    static const double shares[MEASURE_DRAM_MIXES] = { 1, 2.0 / 3, 0.5, 0 };
    double top = 0;
    const cJSON *r, *best = NULL;
    struct measure_dram d;
    memset(&d, 0, sizeof d);
    cJSON_ArrayForEach(r, results)
        if (candidate(r, threads))
            top = fmax(top, json_num(r, "array_bytes", 0));
    decide_wa(results, threads, top, hw, &d);
    for (int i = 0; i < MEASURE_DRAM_MIXES; i++)
        d.mix[i].read_share = shares[i];
    cJSON_ArrayForEach(r, results) {
        double share, g = moved_gbps(r, d.write_allocate);
        if (!candidate(r, threads) || json_num(r, "array_bytes", 0) < top || mix_of(json_str(r, "kernel", ""), &share) < 0)
            continue;
        for (int i = 0; i < MEASURE_DRAM_MIXES; i++)
            if (fabs(shares[i] - share) < 1e-9 && g > d.mix[i].gbps)
                name(&d.mix[i], r, share, g);
        if (share > 0 && share < 1)
            d.mix_gbps = fmax(d.mix_gbps, g);
        if (!(g > d.gbps))
            continue;
        d.gbps = g;
        best = r;
    }
    if (!best)
        return -1;
    d.read_gbps = d.mix[0].gbps;
    d.write_gbps = d.mix[MEASURE_DRAM_MIXES - 1].gbps;
    snprintf(d.kernel, sizeof d.kernel, "%s", json_str(best, "kernel", "?"));
    snprintf(d.precision, sizeof d.precision, "%s", json_str(best, "precision", "?"));
    snprintf(d.stores, sizeof d.stores, "%s", stores_of(best));
    snprintf(d.source, sizeof d.source, "bandwidth experiment");
    d.working_set_bytes = json_num(best, "working_set_bytes", NAN);
    d.threads = threads;
    *out = d;
    return 0;
}

int measure_dram_offer_read(double gbps, const char *precision, const char *what)
{
    struct measure_dram *d = &kept.d;
    if (!kept.set || !(gbps > d->mix[0].gbps))
        return 0;
    snprintf(d->raised, sizeof d->raised, "raised from %.3g to %.3g GB/s by %s", d->mix[0].gbps, gbps, what);
    d->mix[0].read_share = 1;
    d->mix[0].gbps = d->read_gbps = gbps;
    snprintf(d->mix[0].kernel, sizeof d->mix[0].kernel, "read");
    snprintf(d->mix[0].precision, sizeof d->mix[0].precision, "%s", precision);
    snprintf(d->mix[0].stores, sizeof d->mix[0].stores, "none");
    if (gbps > d->gbps) {
        d->gbps = gbps;
        snprintf(d->kernel, sizeof d->kernel, "read");
        snprintf(d->precision, sizeof d->precision, "%s", precision);
        snprintf(d->stores, sizeof d->stores, "none");
    }
    return 1;
}

double measure_dram_ceiling(const struct measure_dram *d, double bytes_read, double bytes_written)
{
    double total = bytes_read + bytes_written, f = total > 0 ? bytes_read / total : 1;
    const struct measure_dram_ceiling *hi = NULL, *lo = NULL;      /* the measured mixes around f */
    for (int i = 0; i < MEASURE_DRAM_MIXES; i++) {
        const struct measure_dram_ceiling *c = &d->mix[i];
        if (!(c->gbps > 0))
            continue;
        if (c->read_share >= f && (!hi || c->read_share < hi->read_share))
            hi = c;
        if (c->read_share <= f && (!lo || c->read_share > lo->read_share))
            lo = c;
    }
    if (!hi && !lo)
        return d->gbps;
    if (!hi || !lo || hi == lo)
        return (hi ? hi : lo)->gbps;
    double t = (f - lo->read_share) / (hi->read_share - lo->read_share);
    return lo->gbps + t * (hi->gbps - lo->gbps);
}

static cJSON *ceiling_json(const struct measure_dram_ceiling *c)
{
    static const char *const mixes[] = { "read", "read 2 : write 1", "read 1 : write 1", "write" };
    cJSON *o = cJSON_CreateObject();
    int i = c->read_share > 0.99 ? 0 : c->read_share > 0.6 ? 1 : c->read_share > 0.4 ? 2 : 3;
    cJSON_AddStringToObject(o, "mix", mixes[i]);
    cJSON_AddNumberToObject(o, "read_share", c->read_share);
    cJSON_AddNumberToObject(o, "gbps", c->gbps);
    cJSON_AddStringToObject(o, "kernel", c->kernel);
    cJSON_AddStringToObject(o, "precision", c->precision);
    cJSON_AddStringToObject(o, "stores", c->stores);
    return o;
}

cJSON *measure_dram_json(const struct measure_dram *d)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "gbps", d->gbps);
    cJSON_AddStringToObject(o, "kernel", d->kernel);
    cJSON_AddStringToObject(o, "precision", d->precision);
    cJSON_AddStringToObject(o, "stores", d->stores);
    cJSON_AddNumberToObject(o, "working_set_bytes", d->working_set_bytes);
    cJSON_AddNumberToObject(o, "threads", d->threads);
    cJSON_AddStringToObject(o, "source", d->source);
    cJSON_AddStringToObject(o, "rule", MEASURE_DRAM_RULE);
    if (d->read_gbps > 0)
        cJSON_AddNumberToObject(o, "read_gbps", d->read_gbps);
    if (d->raised[0])
        cJSON_AddStringToObject(o, "read_raised", d->raised);
    if (d->write_gbps > 0)
        cJSON_AddNumberToObject(o, "write_gbps", d->write_gbps);
    if (d->mix_gbps > 0)
        cJSON_AddNumberToObject(o, "mix_gbps", d->mix_gbps);
    cJSON *cs = cJSON_AddArrayToObject(o, "ceilings");
    for (int i = 0; i < MEASURE_DRAM_MIXES; i++)
        if (d->mix[i].gbps > 0)
            cJSON_AddItemToArray(cs, ceiling_json(&d->mix[i]));
    cJSON *wa = cJSON_AddObjectToObject(o, "write_allocate");
    if (d->write_allocate >= 0)
        cJSON_AddBoolToObject(wa, "shown", d->write_allocate);
    cJSON_AddStringToObject(wa, "counted", d->write_allocate == 1
        ? "cached stores count each line twice (read for ownership, then write): the machine showed it"
        : "cached stores count each line once, as STREAM does: the machine did not show a read for ownership");
    cJSON_AddStringToObject(wa, "evidence", d->wa_evidence[0] ? d->wa_evidence : "none");
    cJSON_AddStringToObject(wa, "counters", d->counters[0] ? d->counters : "not tried");
    return o;
}

int measure_dram(const char *family, struct measure_dram *out, char *err, size_t errlen)
{
    if (kept.set) {
        *out = kept.d;
        return 0;
    }
    char why[256];
    const struct measure_dram_ops *ops = backend_for("dram", "cpu", why, sizeof why);
    if (!ops) {
        snprintf(err, errlen, "the DRAM bandwidth could not be measured: %s", why);
        return -1;
    }
    return ops->measure(family ? family : "another experiment", out, err, errlen);
}
