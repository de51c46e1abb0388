/* calib.c: efficiency curves, the timed ops of the measured machine, and the seconds of one op
 * on the measured machine or on a system projected from its ceilings. */
#include "predict/calib.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "util/json.h"

static const cJSON *field(const cJSON *o, const char *name) { return cJSON_GetObjectItemCaseSensitive(o, name); }

double predict_curve_eval(const struct predict_curve *c, double x)
{
    if (c->n == 0)
        return NAN;
    if (x <= c->x[0])
        return c->eta[0];
    if (x >= c->x[c->n - 1])
        return c->eta[c->n - 1];
    int i = 1;
    while (c->x[i] < x)
        i++;
    double f = log(x / c->x[i - 1]) / log(c->x[i] / c->x[i - 1]);
    return exp(log(c->eta[i - 1]) + f * (log(c->eta[i]) - log(c->eta[i - 1])));
}

/* Points closer than this ratio in x are one point (their geometric mean). */
#define SAME_X 1.02

void predict_curve_add(struct predict_curve *c, double x, double eta)
{
    if (!(x > 0) || !(eta > 0))
        return;
    int i = 0;
    while (i < c->n && c->x[i] * SAME_X < x)
        i++;
    if (i < c->n && c->x[i] <= x * SAME_X) {
        c->eta[i] = sqrt(c->eta[i] * eta);
        return;
    }
    if (c->n == PREDICT_CURVE_MAX) {      /* full: merge into the nearest point instead */
        int j = i == c->n ? c->n - 1 : i;
        c->eta[j] = sqrt(c->eta[j] * eta);
        return;
    }
    memmove(&c->x[i + 1], &c->x[i], (size_t)(c->n - i) * sizeof c->x[0]);
    memmove(&c->eta[i + 1], &c->eta[i], (size_t)(c->n - i) * sizeof c->eta[0]);
    c->x[i] = x;
    c->eta[i] = eta;
    c->n++;
}

int predict_compute_class(enum net_class cls) { return cls == NET_MATMUL || cls == NET_ATTENTION; }

double predict_op_size(const struct net_op *op, int *compute)
{
    enum net_class cls = net_kinds[op->kind].cls;
    *compute = predict_compute_class(cls);
    return *compute ? op->flops : op->bytes_read + op->bytes_written;
}

/* The index of the curve of a kind and dtypes in c->kind_curve, or -1. */
static int kind_index(const struct predict_calib *c, enum net_kind kind, enum net_dtype dtype, enum net_dtype dtype_out)
{
    for (int i = 0; i < c->nkind; i++)
        if (c->kind_curve[i].kind == kind && c->kind_curve[i].dtype == dtype && c->kind_curve[i].dtype_out == dtype_out)
            return i;
    return -1;
}

const struct predict_curve *predict_op_curve(const struct predict_calib *c, enum net_kind kind, enum net_dtype dtype,
                                             enum net_dtype dtype_out)
{
    int i = !predict_compute_class(net_kinds[kind].cls) ? kind_index(c, kind, dtype, dtype_out) : -1;
    return i >= 0 ? &c->kind_curve[i].curve : &c->curve[net_kinds[kind].cls];
}

/* A timed op's point on its class's curve and, memory-bound, on its kind's and dtypes'. */
static void curve_point(struct predict_calib *c, enum net_kind kind, enum net_dtype dtype, enum net_dtype dtype_out,
                        double x, double eta)
{
    predict_curve_add(&c->curve[net_kinds[kind].cls], x, eta);
    if (predict_compute_class(net_kinds[kind].cls))
        return;
    int i = kind_index(c, kind, dtype, dtype_out);
    if (i < 0 && c->nkind < PREDICT_KIND_CURVES) {
        i = c->nkind++;
        c->kind_curve[i] = (struct predict_kind_curve){ .kind = kind, .dtype = dtype, .dtype_out = dtype_out };
    }
    if (i >= 0)
        predict_curve_add(&c->kind_curve[i].curve, x, eta);
}

double predict_mix_bw(const struct predict_calib *c, double f)
{
    int hi = -1, lo = -1;               /* the measured shares around f */
    for (int i = 0; i < c->nmix; i++) {
        if (!(c->mix_bw[i] > 0))
            continue;
        if (c->mix_share[i] >= f && (hi < 0 || c->mix_share[i] < c->mix_share[hi]))
            hi = i;
        if (c->mix_share[i] <= f && (lo < 0 || c->mix_share[i] > c->mix_share[lo]))
            lo = i;
    }
    if (hi < 0 && lo < 0)
        return c->bw;
    if (hi < 0 || lo < 0 || hi == lo)
        return c->mix_bw[hi < 0 ? lo : hi];
    double t = (f - c->mix_share[lo]) / (c->mix_share[hi] - c->mix_share[lo]);
    return c->mix_bw[lo] + t * (c->mix_bw[hi] - c->mix_bw[lo]);
}

static double read_share(const struct net_op *op)
{
    double total = op->bytes_read + op->bytes_written;
    return total > 0 ? op->bytes_read / total : 1;
}

/* An op's ceiling: its dtype's matmul peak (or the one peak) when compute-bound, else the DRAM
 * ceiling of its mix of reads and writes. */
static double ceiling(const struct predict_calib *c, enum net_dtype dt, int compute, double share)
{
    if (!compute)
        return predict_mix_bw(c, share);
    return c->peak_dtype[dt] > 0 ? c->peak_dtype[dt] : c->peak;
}

void predict_calib_add(struct predict_calib *c, const struct net_op *op, double seconds)
{
    if (c->ntimed == c->captimed) {
        c->captimed = c->captimed ? 2 * c->captimed : 64;
        c->timed = xrealloc(c->timed, (size_t)c->captimed * sizeof *c->timed);
    }
    int compute;
    double x = predict_op_size(op, &compute);
    c->timed[c->ntimed++] = (struct predict_timed){ op->kind, op->which, op->dtype, op->dtype_out, op->m, op->n, op->k, op->flops,
                                                  op->bytes_read + op->bytes_written, op->bytes_read, seconds, x };
    curve_point(c, op->kind, op->dtype, op->dtype_out, x, x / seconds / ceiling(c, op->dtype, compute, read_share(op)));
}

double predict_calib_lookup(const struct predict_calib *c, const struct net_op *op)
{
    for (int i = 0; i < c->ntimed; i++) {
        const struct predict_timed *t = &c->timed[i];
        if (t->kind == op->kind && t->which == op->which && t->dtype == op->dtype && t->dtype_out == op->dtype_out && t->m == op->m
            && t->n == op->n && t->k == op->k && t->flops == op->flops && t->bytes == op->bytes_read + op->bytes_written)
            return t->seconds;
    }
    return -1;
}

static double curve_seconds(const struct predict_calib *c, const struct net_op *op)
{
    int compute;
    double x = predict_op_size(op, &compute);
    double eta = predict_curve_eval(predict_op_curve(c, op->kind, op->dtype, op->dtype_out), x);
    if (!(x > 0))
        return c->overhead_s;
    if (!isfinite(eta))         /* a class the calibration never timed: its ceiling, and the other */
        return predict_combine(op->flops / ceiling(c, op->dtype, 1, 1),
                               (op->bytes_read + op->bytes_written) / predict_mix_bw(c, read_share(op)), c->q)
               + c->overhead_s;
    return x / (eta * ceiling(c, op->dtype, compute, read_share(op)));
}

/* The ceiling a timed op's efficiency is taken against. */
static double timed_ceiling(const struct predict_calib *c, const struct predict_timed *t)
{
    return ceiling(c, t->dtype, predict_compute_class(net_kinds[t->kind].cls), t->bytes > 0 ? t->bytes_read / t->bytes : 1);
}

void predict_calib_rebuild(struct predict_calib *c)
{
    memset(c->curve, 0, sizeof c->curve);
    c->nkind = 0;
    predict_curve_add(&c->curve[NET_MATMUL], c->anchor_flops, 1.0);
    for (int i = 0; i < c->ntimed; i++) {
        const struct predict_timed *t = &c->timed[i];
        curve_point(c, t->kind, t->dtype, t->dtype_out, t->x, t->x / t->seconds / timed_ceiling(c, t));
    }
}

void predict_calib_finish(struct predict_calib *c)
{
    double s = 0, s2 = 0;
    int n = 0;
    for (int i = 0; i < c->ntimed; i++) {
        const struct predict_timed *t = &c->timed[i];
        double eta = predict_curve_eval(predict_op_curve(c, t->kind, t->dtype, t->dtype_out), t->x);
        if (!(t->x > 0) || !(eta > 0) || !(t->seconds > 0))
            continue;
        double r = log(t->seconds / (t->x / (eta * timed_ceiling(c, t))));
        s += r;
        s2 += r * r;
        n++;
    }
    c->spread = n > 1 ? sqrt(fmax(0, (s2 - s * s / n) / (n - 1))) : 0;
}

void predict_calib_free(struct predict_calib *c)
{
    free(c->timed);
    c->timed = NULL;
    c->ntimed = c->captimed = 0;
}

double predict_combine(double tc, double tm, double q)
{
    if (q >= 64)
        return fmax(tc, tm);
    double hi = fmax(tc, tm);
    if (!(hi > 0))
        return 0;
    return hi * pow(pow(tc / hi, q) + pow(tm / hi, q), 1 / q);
}

/* ---- systems ---- */

double predict_system_peak(const struct predict_system *s, enum net_dtype d)
{
    const enum net_dtype order[] = { d, NET_DT_BF16, NET_DT_F32, NET_DT_E4M3 };
    for (int i = 0; i < 4; i++)
        if (s->peak[order[i]] > 0)
            return s->peak[order[i]];
    return NAN;
}

double predict_op_seconds(const struct predict_calib *c, const struct net_op *op, int *mem_bound)
{
    double t = predict_calib_lookup(c, op);
    if (!(t >= 0))
        t = curve_seconds(c, op);
    if (mem_bound)
        *mem_bound = (op->bytes_read + op->bytes_written) / predict_mix_bw(c, read_share(op)) > op->flops / c->peak;
    return t;
}

/* ---- a calibration as a results file carries it ---- */

int predict_calib_ceilings(const cJSON *ci, struct predict_calib *c, char *err, size_t errlen)
{
    const cJSON *pk = field(ci, "peak_flops");
    static const char *const need[] = { "bandwidth_Bps", "op_overhead_s" };
    for (int i = 0; i < 2; i++)
        if (!cJSON_IsNumber(field(ci, need[i]))) {
            snprintf(err, errlen, "info.calibration.%s is missing", need[i]);
            return -1;
        }
    if (!cJSON_IsNumber(field(pk, "fp32"))) {
        snprintf(err, errlen, "info.calibration.peak_flops.fp32 is missing");
        return -1;
    }
    c->peak = field(pk, "fp32")->valuedouble;
    for (int d = 0; d < NET_NDTYPES; d++)
        c->peak_dtype[d] = json_num(pk, net_dtype_names[d], 0);
    c->bw = field(ci, "bandwidth_Bps")->valuedouble;
    c->nmix = 0;
    const cJSON *m;
    cJSON_ArrayForEach(m, field(ci, "bandwidth_mix"))
        if (c->nmix < PREDICT_MIXES && json_num(m, "Bps", 0) > 0) {
            c->mix_share[c->nmix] = json_num(m, "read_share", 1);
            c->mix_bw[c->nmix++] = json_num(m, "Bps", 0);
        }
    c->overhead_s = field(ci, "op_overhead_s")->valuedouble;
    c->q = json_num(field(ci, "combine"), "q", 1);
    /* the matmul curve ends at the sustained peak: larger GEMMs reach it */
    c->anchor_flops = json_num(ci, "peak_gemm_flops", 0);
    predict_curve_add(&c->curve[NET_MATMUL], c->anchor_flops, 1.0);
    return 0;
}

/* The op a calibration record describes (timed_json's fields); 0, or -1 when a name is unknown. */
static int record_op(const cJSON *r, struct net_op *op)
{
    const char *kind = json_str(r, "kind", ""), *dt = json_str(r, "dtype", ""), *dto = json_str(r, "dtype_out", "");
    memset(op, 0, sizeof *op);
    op->kind = NET_NKINDS;
    op->dtype = op->dtype_out = NET_NDTYPES;
    for (int k = 0; k < NET_NKINDS; k++)
        if (strcmp(net_kinds[k].name, kind) == 0)
            op->kind = k;
    for (int d = 0; d < NET_NDTYPES; d++) {
        if (strcmp(net_dtype_names[d], dt) == 0)
            op->dtype = d;
        if (strcmp(net_dtype_names[d], dto) == 0)
            op->dtype_out = d;
    }
    op->which = (int)json_num(r, "which", 0);
    op->m = json_num(r, "m", 0);
    op->n = json_num(r, "n", 0);
    op->k = json_num(r, "k", 0);
    op->flops = json_num(r, "flops", 0);
    op->bytes_read = json_num(r, "bytes_read", json_num(r, "bytes", 0));    /* older files: all read */
    op->bytes_written = json_num(r, "bytes", 0) - op->bytes_read;
    return op->kind == NET_NKINDS || op->dtype == NET_NDTYPES || op->dtype_out == NET_NDTYPES ? -1 : 0;
}

/* Every op keeps its first time, as the run's calibration does (the model experiment, src/exp/model). */
int predict_calib_load(const cJSON *e, struct predict_calib *c, char *err, size_t errlen)
{
    const cJSON *r;
    memset(c, 0, sizeof *c);
    if (predict_calib_ceilings(field(field(e, "info"), "calibration"), c, err, errlen) != 0)
        return -1;
    cJSON_ArrayForEach(r, field(e, "results")) {
        struct net_op op;
        if (strcmp(json_str(r, "series", ""), "calibration") != 0)
            continue;
        if (record_op(r, &op) != 0 || !(json_num(r, "median_s", 0) > 0)) {
            snprintf(err, errlen, "a calibration record names an unknown op (kind '%.40s', dtype '%.20s') or has no "
                     "median_s", json_str(r, "kind", "?"), json_str(r, "dtype", "?"));
            predict_calib_free(c);
            return -1;
        }
        if (predict_calib_lookup(c, &op) < 0)
            predict_calib_add(c, &op, json_num(r, "median_s", 0));
    }
    predict_calib_finish(c);
    return 0;
}
