/* compress_accuracy.c: what each compression variant costs in accuracy. A layer's outputs
 * against FP64 on the unquantized weights; and the held-out loss of a trained GPT with the variant
 * applied to the weights of its blocks' linears, against the unquantized (FP32) loss and the data's
 * entropy bound. The model is the largest the run's training experiment trained
 * (measure/trained.h), or, when the scenario asks (model = "tiny"), one trained here; its forward
 * pass is the training experiment's CPU backend (FP32), through its public interface only.
 * Speed is compress.c's. */
#include "exp/compress/compress.h"

#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measure/measure.h"
#include "measure/trained.h"
#include "exp/train/train.h"
#include "exp/train/train_data.h"
#include "util/error.h"
#include "util/progress.h"
#include "util/timing.h"

#define SEED_LW 0x1a7e5ull          /* the layer's weights */
#define SEED_LX 0x1a7e6ull          /* its inputs */
#define HELDOUT_STEP 1000000000ull  /* data steps from here on are never trained on */
#define HELDOUT_TOKENS 16384.0      /* tokens the held-out loss averages, when the time allows */
#define HELDOUT_MIN 4               /* ... batches at least; at most HELDOUT_MAX */
#define HELDOUT_MAX 64
#define HELDOUT_MARGIN 2.0          /* the time the losses are sized to take, times this, must fit */
#define TRAIN_SHARE 0.8             /* of the time left that training may use */
#define EVAL_SHARE 0.9              /* of the time left that the held-out losses may use */
#define MIN_TRAIN_S 3.0             /* less left than this: no model (its loss would mean little) */

/* ---- a layer's outputs ---- */

/* ||a - b|| / ||b|| over n (b in FP64); the weights' version reads a row at a time. */
static double rel_error(const float *a, const double *b, size_t n)
{
    double e = 0, r = 0;
    for (size_t i = 0; i < n; i++) {
        e += ((double)a[i] - b[i]) * ((double)a[i] - b[i]);
        r += b[i] * b[i];
    }
    return sqrt(e / r);
}

static double weight_error(const struct quant_matrix *m, const float *w)
{
    float *row = xmalloc(m->cols * sizeof *row);
    double e = 0, r = 0;
    for (size_t i = 0; i < m->rows; i++) {
        quant_unpack_row(m, i, row);
        for (size_t c = 0; c < m->cols; c++) {
            double d = (double)row[c] - w[i * m->cols + c];
            e += d * d;
            r += (double)w[i * m->cols + c] * w[i * m->cols + c];
        }
    }
    free(row);
    return sqrt(e / r);
}

/* One variant: pack W, one product through the CPU kernel (checked against the twin), errors. */
static void layer_variant(const struct compress_variant *v, const float *w, const float *x, const double *y64,
                          size_t rows, size_t cols, int batch, cJSON *results, cJSON *skipped)
{
    char err[256], item[96];
    snprintf(item, sizeof item, "%s layer error", v->name);
    struct quant_matrix *m = quant_new(v->id, rows, cols, v->sparsity, err, sizeof err);
    void *h = m ? compress_cpu_ops.open(m, omp_get_max_threads(), err, sizeof err) : NULL;
    if (!h) {
        measure_skip(skipped, item, err);
        quant_free(m);
        return;
    }
    quant_pack(m, w, omp_get_max_threads());
    float *y = xmalloc((size_t)batch * rows * sizeof *y);
    compress_cpu_ops.gemv(h, x, y, batch, 1);
    double check = compress_check(m, x, y, batch, 0), bound = compress_error_bound(v);
    double e = rel_error(y, y64, (size_t)batch * rows);
    cJSON *rec = cJSON_CreateObject();
    cJSON_AddStringToObject(rec, "series", "layer_error");
    cJSON_AddStringToObject(rec, "scheme", v->name);
    cJSON_AddStringToObject(rec, "format", quant_schemes[v->id].label);
    cJSON_AddNumberToObject(rec, "rows", (double)rows);
    cJSON_AddNumberToObject(rec, "cols", (double)cols);
    cJSON_AddNumberToObject(rec, "batch", batch);
    cJSON_AddNumberToObject(rec, "bits_per_weight", quant_bits_per_weight(m));
    cJSON_AddNumberToObject(rec, "max_rel_error", check);
    cJSON_AddNumberToObject(rec, "tolerance", quant_schemes[v->id].tolerance);
    cJSON_AddBoolToObject(rec, "valid", check <= quant_schemes[v->id].tolerance);
    cJSON_AddNumberToObject(rec, "rel_error", e);
    cJSON_AddNumberToObject(rec, "weight_rel_error", weight_error(m, w));
    cJSON_AddNumberToObject(rec, "error_bound", bound);
    cJSON_AddBoolToObject(rec, "within_bound", e <= bound);
    cJSON_AddItemToArray(results, rec);
    free(y);
    compress_cpu_ops.close(h);
    quant_free(m);
}

void compress_layer_errors(const struct compress_variant *v, int nv, size_t rows, size_t cols, int batch,
                           cJSON *results, cJSON *skipped)
{
    float *w = xmalloc(rows * cols * sizeof *w), *x = xmalloc((size_t)batch * cols * sizeof *x);
    double *y64 = xmalloc((size_t)batch * rows * sizeof *y64);
    for (size_t i = 0; i < rows * cols; i++)
        w[i] = (float)(QUANT_WEIGHT_STD * quant_gauss(SEED_LW, i));
    for (size_t i = 0; i < (size_t)batch * cols; i++)
        x[i] = (float)quant_gauss(SEED_LX, i);
#pragma omp parallel for schedule(static)
    for (size_t r = 0; r < rows; r++)
        for (int b = 0; b < batch; b++) {
            double s = 0;
            for (size_t c = 0; c < cols; c++)
                s += (double)w[r * cols + c] * (double)x[(size_t)b * cols + c];
            y64[(size_t)b * rows + r] = s;
        }
    for (int i = 0; i < nv; i++)
        layer_variant(&v[i], w, x, y64, rows, cols, batch, results, skipped);
    free(w);
    free(x);
    free(y64);
}

/* ---- the trained model ---- */

struct trained_net {
    struct train_config cfg;
    const struct train_ops *ops;
    struct train_ctx *c;
    struct train_data data;
    struct net_op *plan;
    int nops, steps_done;
    int heldout;                    /* batches (of batch x seq x accum tokens) the held-out loss averages */
    int32_t *tok, *tgt;             /* [accum][batch][seq] */
    double loss_final;              /* the training's final loss (mean of its last 10 % of steps) */
    const char *source;             /* COMPRESS_MODEL_RUN or COMPRESS_MODEL_HERE */
    const char *precision;          /* what it trained in */
};

static void load_batch(struct trained_net *mr, uint64_t step)
{
    const struct net_shape *s = &mr->cfg.shape;
    size_t T = (size_t)s->batch * s->seq;
    for (int mb = 0; mb < s->accum; mb++)
        train_data_batch(&mr->data, step, mb, s->batch, s->seq, mr->tok + mb * T, mr->tgt + mb * T);
    mr->ops->load(mr->c, mr->tok, mr->tgt);
}

/* Trains step after step (the training experiment's schedule) until cfg.steps or the time;
 * loss_final: the mean training loss of the last tenth of the steps done (one at least). */
static void train(struct trained_net *mr, double budget_s)
{
    double t0 = timing_now(), *loss = xmalloc((size_t)mr->cfg.steps * sizeof *loss), sum = 0;
    for (int t = 0; t < mr->cfg.steps && timing_now() - t0 < budget_s && !progress_stopping(); t++) {
        struct train_adam a = { (float)train_lr(&mr->cfg, t), (float)TRAIN_BETA1, (float)TRAIN_BETA2,
                                (float)TRAIN_EPS, (float)mr->cfg.weight_decay, (float)(1 - pow(TRAIN_BETA1, t + 1)),
                                (float)(1 - pow(TRAIN_BETA2, t + 1)), 1.0f };
        load_batch(mr, (uint64_t)t);
        mr->ops->set_step(mr->c, &a, (float)mr->cfg.clip);
        for (int i = 0; i < mr->nops; i++)
            mr->ops->run(mr->c, &mr->plan[i]);
        loss[t] = mr->ops->loss(mr->c);
        mr->steps_done = t + 1;
    }
    int tail = mr->steps_done / 10 > 0 ? mr->steps_done / 10 : 1;
    for (int t = mr->steps_done - tail; t < mr->steps_done; t++)
        sum += loss[t];
    mr->loss_final = mr->steps_done > 0 ? sum / tail : NAN;
    free(loss);
}

/* The loss of held-out batch k (data steps the training never reached): forward ops only. */
static double batch_loss(struct trained_net *mr, int k)
{
    load_batch(mr, HELDOUT_STEP + (uint64_t)k);
    for (int i = 0; i < mr->nops; i++)
        if (mr->plan[i].phase == NET_FWD)
            mr->ops->run(mr->c, &mr->plan[i]);
    return mr->ops->loss(mr->c);
}

/* Mean loss over mr->heldout held-out batches; each batch's into per[]. */
static double heldout_loss(struct trained_net *mr, double *per)
{
    double sum = 0;
    for (int k = 0; k < mr->heldout; k++)
        sum += per[k] = batch_loss(mr, k);
    return sum / mr->heldout;
}

/* The standard error of the mean of per-batch differences a - b: the noise of a loss change. */
static double change_se(const double *a, const double *b, int n)
{
    double m = 0, v = 0;
    for (int k = 0; k < n; k++)
        m += (a[k] - b[k]) / n;
    for (int k = 0; k < n; k++)
        v += (a[k] - b[k] - m) * (a[k] - b[k] - m);
    return n > 1 ? sqrt(v / (n - 1) / n) : NAN;
}

/* Held-out batches: HELDOUT_TOKENS worth, within [HELDOUT_MIN, HELDOUT_MAX], fewer (one at least)
 * when nv + 1 losses of that many batches of one_s seconds each would not fit in left_s with
 * HELDOUT_MARGIN to spare (packing each variant, a busy machine): every variant on fewer tokens
 * rather than the first few on many. */
static int heldout_batches(const struct net_shape *s, int nv, double one_s, double left_s)
{
    double per = (double)s->batch * s->seq * s->accum, want = ceil(HELDOUT_TOKENS / per);
    want = fmin(fmax(want, HELDOUT_MIN), HELDOUT_MAX);
    if (one_s > 0 && HELDOUT_MARGIN * want * one_s * (nv + 1) > left_s)
        want = floor(left_s / (HELDOUT_MARGIN * one_s * (nv + 1)));
    return want < 1 ? 1 : (int)want;
}

static const enum net_param LINEARS[] = { NET_P_QKVW, NET_P_ATTPROJW, NET_P_FCW, NET_P_FCPROJW };
#define NLINEARS ((int)(sizeof LINEARS / sizeof LINEARS[0]))

/* Replaces one tensor w[rows][cols] by its variant, unpacked. A block longer than a row runs
 * over consecutive rows (the tensor viewed as rows x cols / block rows of `block`). Adds the
 * bytes it takes; 0, or -1 with a message. */
static int apply_tensor(const struct compress_variant *v, float *w, size_t rows, size_t cols, double *bytes,
                        char *err, size_t errlen)
{
    int block = quant_schemes[v->id].block;
    if (block > 0 && cols % (size_t)block != 0 && (rows * cols) % (size_t)block == 0) {
        rows = rows * cols / (size_t)block;
        cols = (size_t)block;
    }
    struct quant_matrix *m = quant_new(v->id, rows, cols, v->sparsity, err, errlen);
    if (!m)
        return -1;
    quant_pack(m, w, omp_get_max_threads());
    for (size_t r = 0; r < rows; r++)
        quant_unpack_row(m, r, w + r * cols);
    *bytes += quant_bytes(m) + (v->id == QUANT_FP8 || v->id == QUANT_NVFP4 ? 4 : 0);
    quant_free(m);
    return 0;
}

/* Applies v to every block linear of a copy of the trained weights; bits per weight of them. */
static int apply_variant(struct trained_net *mr, const struct compress_variant *v, const float *trained,
                         double *bits, double *count, char *err, size_t errlen)
{
    const struct net_shape *s = &mr->cfg.shape;
    float *p = train_cpu_params(mr->c);
    double bytes = 0;
    memcpy(p, trained, net_param_count(s) * sizeof *p);
    *count = 0;
    for (int l = 0; l < s->layers; l++)
        for (int k = 0; k < NLINEARS; k++) {
            size_t rows, cols;
            net_param_dims(s, LINEARS[k], &rows, &cols);
            if (apply_tensor(v, p + net_param_offset(s, LINEARS[k], l), rows, cols, &bytes, err, errlen) != 0)
                return -1;
            *count += (double)(rows * cols);
        }
    train_cpu_refresh(mr->c);
    *bits = 8 * bytes / *count;
    return 0;
}

/* The record of one variant: format, the held-out loss of the quantized weights, the FP32 loss,
 * the entropy bound, the increase; the model it was measured on (size, shape, how trained). */
static cJSON *loss_record(const struct trained_net *mr, const struct compress_variant *v, double loss, double base,
                          double se, double bits, double count)
{
    const struct net_shape *s = &mr->cfg.shape;
    cJSON *rec = cJSON_CreateObject();
    cJSON_AddStringToObject(rec, "series", "model_loss");
    cJSON_AddStringToObject(rec, "scheme", v->name);
    cJSON_AddStringToObject(rec, "format", quant_schemes[v->id].label);
    cJSON_AddStringToObject(rec, "model_source", mr->source);
    cJSON_AddStringToObject(rec, "shape", mr->cfg.shape_name);
    cJSON_AddNumberToObject(rec, "params", (double)net_param_count(s));
    cJSON_AddNumberToObject(rec, "layers", s->layers);
    cJSON_AddNumberToObject(rec, "hidden", s->hidden);
    cJSON_AddNumberToObject(rec, "seq", s->seq);
    cJSON_AddNumberToObject(rec, "vocab", s->vocab);
    cJSON_AddStringToObject(rec, "model_precision", mr->precision);
    cJSON_AddNumberToObject(rec, "steps", mr->cfg.steps);
    cJSON_AddNumberToObject(rec, "steps_done", mr->steps_done);
    cJSON_AddNumberToObject(rec, "quantized_weights", count);
    cJSON_AddNumberToObject(rec, "bits_per_weight", bits);
    cJSON_AddNumberToObject(rec, "eval_tokens", (double)mr->heldout * s->batch * s->seq * s->accum);
    cJSON_AddNumberToObject(rec, "eval_batches", mr->heldout);
    cJSON_AddNumberToObject(rec, "loss_train_final", mr->loss_final);
    cJSON_AddNumberToObject(rec, "loss_heldout", loss);
    cJSON_AddNumberToObject(rec, "loss_unquantized", base);
    cJSON_AddNumberToObject(rec, "loss_change", loss - base);
    if (isfinite(se))
        cJSON_AddNumberToObject(rec, "loss_change_se", se);
    cJSON_AddNumberToObject(rec, "loss_entropy_bound", mr->data.entropy);
    cJSON_AddNumberToObject(rec, "loss_over_bound", loss - mr->data.entropy);
    cJSON_AddBoolToObject(rec, "valid", isfinite(loss));
    return rec;
}

/* The configuration the training experiment builds for this shape, FP32, these steps. */
static int net_config(const char *shape, int steps, struct train_config *cfg, char *err, size_t errlen)
{
    cJSON *given = cJSON_CreateObject();
    cJSON_AddStringToObject(given, "shapes", shape);
    cJSON_AddStringToObject(given, "precisions", "fp32");
    cJSON_AddNumberToObject(given, "steps", steps);
    cJSON *tp = param_check("train", train_params, given, err, errlen);
    int n = tp ? train_configs(tp, cfg, 1, err, errlen) : -1;
    cJSON_Delete(given);
    cJSON_Delete(tp);
    return n == 1 ? 0 : -1;
}

/* Opens the CPU backend on mr->cfg (FP32) with its data source. */
static int net_open(struct trained_net *mr, char *err, size_t errlen)
{
    const struct net_shape *s = &mr->cfg.shape;
    mr->ops = &train_cpu_ops;
    if (train_data_init(&mr->data, s->vocab, mr->cfg.order, mr->cfg.branching, mr->cfg.seed, err, errlen) != 0)
        return -1;
    if (!(mr->c = mr->ops->open(s, NET_FP32, mr->cfg.seed, err, errlen)))
        return -1;
    mr->plan = net_plan_new(s, NET_FP32, &mr->nops);
    size_t n = (size_t)s->batch * s->seq * s->accum;
    mr->tok = xmalloc(n * sizeof *mr->tok);
    mr->tgt = xmalloc(n * sizeof *mr->tgt);
    return 0;
}

/* The run's largest trained model, its weights in the backend: 0, or -1 with a message. */
static int open_kept(struct trained_net *mr, const struct measure_trained *k, char *err, size_t errlen)
{
    memset(mr, 0, sizeof *mr);
    mr->cfg.shape = k->shape;
    mr->cfg.shape_name = k->shape_name;
    mr->cfg.steps = k->steps;
    mr->cfg.seed = k->seed;
    mr->cfg.order = k->order;
    mr->cfg.branching = k->branching;
    mr->cfg.prec = NET_FP32;
    mr->source = COMPRESS_MODEL_RUN;
    mr->precision = k->precision;
    mr->steps_done = k->steps_done;
    mr->loss_final = k->loss_final;
    if (net_open(mr, err, errlen) != 0)
        return -1;
    memcpy(train_cpu_params(mr->c), k->weights, net_param_count(&k->shape) * sizeof(float));
    train_cpu_refresh(mr->c);
    return 0;
}

/* A model of the scenario's shape, trained here for its steps within the time. */
static int open_here(struct trained_net *mr, const cJSON *params, double budget_s, char *err, size_t errlen)
{
    memset(mr, 0, sizeof *mr);
    mr->source = COMPRESS_MODEL_HERE;
    mr->precision = "fp32";
    if (net_config(param_str(params, "model"), (int)param_num(params, "model_steps"), &mr->cfg, err, errlen) != 0
        || net_open(mr, err, errlen) != 0)
        return -1;
    train(mr, TRAIN_SHARE * budget_s);
    if (mr->steps_done == 0) {
        snprintf(err, errlen, "no training step fitted in the time left");
        return -1;
    }
    return 0;
}

static void net_close(struct trained_net *mr)
{
    if (mr->c)
        mr->ops->close(mr->c);
    free(mr->plan);
    free(mr->tok);
    free(mr->tgt);
}

/* The model the parameters ask for, open: 0, or -1 with the reason (none asked: empty). */
static int model_open(struct trained_net *mr, const cJSON *params, double budget_s, char *err, size_t errlen)
{
    const char *want = param_str(params, "model");
    struct measure_trained k;
    memset(mr, 0, sizeof *mr);
    err[0] = 0;
    if (strcmp(want, "none") == 0)
        return -1;
    if (strcmp(want, "run") == 0) {
        if (measure_trained(&k) != 0) {
            snprintf(err, errlen, "%s", COMPRESS_NO_MODEL);
            return -1;
        }
        return open_kept(mr, &k, err, errlen);
    }
    if (budget_s < MIN_TRAIN_S) {
        snprintf(err, errlen, "the experiment's time share was spent before the model could train "
                 "(%.1f s left, %.0f s at least)", budget_s, MIN_TRAIN_S);
        return -1;
    }
    return open_here(mr, params, budget_s, err, errlen);
}

void compress_model_losses(const cJSON *params, const struct compress_variant *v, int nv, double budget_s,
                           cJSON *results, cJSON *skipped)
{
    char err[512];
    struct trained_net mr;
    double t0 = timing_now();
    if (model_open(&mr, params, budget_s, err, sizeof err) != 0) {
        if (err[0])
            measure_skip(skipped, COMPRESS_MODEL_ITEM, err);
        net_close(&mr);
        return;
    }
    size_t np = net_param_count(&mr.cfg.shape);
    float *trained = xmalloc(np * sizeof *trained);
    memcpy(trained, train_cpu_params(mr.c), np * sizeof *trained);
    double te = timing_now();
    batch_loss(&mr, 0);                     /* times one batch: how many the time allows */
    double one = timing_now() - te, deadline = t0 + EVAL_SHARE * budget_s;
    mr.heldout = heldout_batches(&mr.cfg.shape, nv, one, deadline - timing_now());
    double *base_per = xmalloc((size_t)mr.heldout * sizeof *base_per), *per = xmalloc((size_t)mr.heldout * sizeof *per);
    double base = heldout_loss(&mr, base_per);
    for (int i = 0; i < nv && !progress_stopping(); i++) {
        double bits, count;
        char item[96];
        snprintf(item, sizeof item, "%s held-out loss", v[i].name);
        if (timing_now() + one * mr.heldout > deadline) {
            snprintf(err, sizeof err, "the experiment's time share was spent before it (one held-out loss of this "
                     "model takes %.2f s)", one * mr.heldout);
            measure_skip(skipped, item, err);
            continue;
        }
        if (apply_variant(&mr, &v[i], trained, &bits, &count, err, sizeof err) != 0) {
            measure_skip(skipped, item, err);
            continue;
        }
        double loss = heldout_loss(&mr, per);
        cJSON_AddItemToArray(results, loss_record(&mr, &v[i], loss, base, change_se(per, base_per, mr.heldout), bits,
                                                  count));
    }
    free(base_per);
    free(per);
    free(trained);
    net_close(&mr);
}
