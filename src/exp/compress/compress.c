/* compress.c: the compression experiment, device-independent: which schemes, batches and size,
 * packing each matrix, checking every kernel against the plain twin before any time counts,
 * repetitions until the times settle, and the records: time, physical bytes (values + scales +
 * indices + row pointers), GB/s, and speed-ups over the dense FP32 and BF16 kernels and the
 * fraction of a plain read of the same FP32 matrix, all from this run. Errors are
 * compress_accuracy.c's; the kernels are the backends'. */
#include "exp/compress/compress.h"

#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "cuda/cuda.h"
#include "measure/dram.h"
#include "exp/experiment.h"
#include "measure/backend.h"
#include "measure/measure.h"
#include "util/machine.h"
#include "util/error.h"
#include "util/json.h"
#include "util/progress.h"
#include "util/timing.h"
#include "util/units.h"

#define MiB (1024.0 * 1024)
#define GiB (1024.0 * MiB)
#define MEM_SHARE 0.6               /* of the free memory the largest (FP32) matrix may take */
#define GPU_FLOOR (2.0 * GiB)       /* ... on a GPU, nor below 2 GiB and 16x its L2 */
#define CHECK_ROWS 64               /* rows of a product checked against the twin */
#define STREAM_SHARE 0.7            /* of the budget for the products; the rest: packing, errors */
#define SEED_W 0x5eedull            /* the streamed weights */
#define SEED_X 0x5eed2ull           /* the input vectors */
#define BOUND_MEMORY 0.7            /* speed-up over FP32 / byte ratio: the product streams */
#define BOUND_COMPUTE 0.7           /* rate from DRAM / rate from cache: the work limits it */

const struct param compress_params[] = {
    { "device", PARAM_ENUM, PARAM_NOT_KEY, NULL, "cpu|gpu", "cpu", 0, 0,
      "what runs the products: the CPU cores (OpenMP) or the first CUDA device" },
    { "schemes", PARAM_ENUM, PARAM_LIST | PARAM_NOT_KEY, "all",
      "int8|fp8|int4-g32|int4-g128|nvfp4|mxfp4|prune|2:4", "all", 0, 0,
      "compressed formats; dense FP32 and BF16 (the speed-ups' baselines) and a plain read always run" },
    { "sparsities", PARAM_NUM, PARAM_LIST | PARAM_NOT_KEY, NULL, NULL, "0.5,0.75,0.9", 0.01, 0.99,
      "prune: fractions of each row's weights removed by magnitude (CSR)" },
    { "batches", PARAM_INT, PARAM_LIST | PARAM_NOT_KEY, NULL, NULL, "1,8", 1, QUANT_MAX_BATCH,
      "vectors per product: 1 is a matrix-vector product, more a small-batch matrix product" },
    { "weights_size", PARAM_SIZE, PARAM_NOT_KEY, "auto", NULL, "auto", MiB, 1024 * GiB,
      "bytes of the FP32 weight matrix; auto: DRAM-sized, 4x all caches and 256 MiB at least (a GPU: 16x L2 and "
      "2 GiB at least), within 60 % of free memory" },
    { "cols", PARAM_INT, 0, NULL, NULL, "4096", 128, 65536,
      "columns of the weight matrix (the input width); a multiple of 128" },
    { "layer_rows", PARAM_INT, 0, NULL, NULL, "256", 8, 65536,
      "rows of the layer whose output error is measured (columns as above)" },
    { "isa", PARAM_ENUM, PARAM_NOT_KEY, NULL, "auto|avx512|avx2|portable", "auto", 0, 0,
      "CPU kernels: the widest this CPU runs, or at most those named (avx2 on an AVX-512 CPU measures the "
      "kernels a CPU without AVX-512 runs); each record's isa says what ran" },
    { "model", PARAM_ENUM, PARAM_NOT_KEY, "run|none", "tiny|small", "run", 0, 0,
      "the model whose held-out loss is measured with each scheme applied: run, the largest the run's training "
      "experiment trained on the CPU before this one (none trained: the record says so); tiny or small: that shape "
      "trained here for model_steps steps; none: skip" },
    { "model_steps", PARAM_INT, PARAM_NOT_KEY, NULL, NULL, "120", 1, 1000000,
      "training steps of a model trained here (model = tiny or small)" },
    MEASURE_PARAMS("0.025", "3", "20", "0", "0.01"),
    MEASURE_BUDGET_PARAM("seconds for this experiment; auto: its share of the scenario budget"),
    { NULL, 0, 0, NULL, NULL, NULL, 0, 0, NULL },
};

/* ---- what to measure ---- */

static void add_variant(struct compress_variant *out, int *n, int max, enum quant_id id, double sparsity)
{
    if (*n >= max)
        return;
    struct compress_variant *v = &out[(*n)++];
    v->id = id;
    v->sparsity = id == QUANT_CSR ? sparsity : id == QUANT_24 ? 0.5 : 0;
    if (id == QUANT_CSR)
        snprintf(v->name, sizeof v->name, "prune-%g", 100 * sparsity);
    else
        snprintf(v->name, sizeof v->name, "%s", quant_schemes[id].name);
}

static int wanted(const cJSON *schemes, const char *name)
{
    if (cJSON_IsString(schemes))            /* "all" */
        return 1;
    for (const cJSON *e = schemes->child; e; e = e->next)
        if (strcmp(e->valuestring, name) == 0)
            return 1;
    return 0;
}

int compress_variants(const cJSON *params, struct compress_variant *out, int max)
{
    const cJSON *schemes = param_get(params, "schemes"), *sp = param_get(params, "sparsities");
    int n = 0;
    add_variant(out, &n, max, QUANT_FP32, 0);
    add_variant(out, &n, max, QUANT_BF16, 0);
    for (int id = QUANT_INT8; id < QUANT_N; id++) {
        if (!wanted(schemes, quant_schemes[id].name))
            continue;
        if (id != QUANT_CSR)
            add_variant(out, &n, max, id, 0);
        for (const cJSON *e = id == QUANT_CSR ? sp->child : NULL; e; e = e->next)
            add_variant(out, &n, max, id, e->valuedouble);
    }
    return n;
}


struct plan {
    struct compress_variant v[COMPRESS_MAX_VARIANTS];
    int nv;
    int batches[QUANT_MAX_BATCH];
    int nb, bmax;
    size_t rows, cols;
    double cache_total;             /* bytes; CPU: all caches; GPU: L2 */
    double cache_l2;                /* bytes of the CPU's level 2, all instances; 0: no in-cache runs */
    double fp32_bytes;              /* of the FP32 matrix */
    double dram_bytes;              /* a matrix of at least this many is DRAM-sized (dram_sized) */
    struct measure_rule rule;       /* budget_s set per measurement */
    cJSON *skipped;                 /* [{item, reason}] */
};

/* The FP32 matrix's bytes: as asked, or auto (`want`) within MEM_SHARE of `room` (skipped says
 * so when it limits). */
static double plan_bytes(struct plan *pl, const cJSON *params, double want, double room)
{
    if (cJSON_IsNumber(param_get(params, "weights_size")))
        return param_num(params, "weights_size");
    if (isfinite(room) && want > MEM_SHARE * room) {
        char a[32], b[32], msg[200];
        double capped = MEM_SHARE * room;
        snprintf(msg, sizeof msg, "the FP32 matrix would need %s; limited to %s by free memory",
                 units_format_bytes(want, a, sizeof a), units_format_bytes(capped, b, sizeof b));
        measure_skip(pl->skipped, "largest weight matrix", msg);
        want = capped;
    }
    return want;
}

static void plan_common(struct plan *pl, const cJSON *params)
{
    const cJSON *b = param_get(params, "batches");
    memset(pl, 0, sizeof *pl);
    pl->skipped = cJSON_CreateArray();
    pl->nv = compress_variants(params, pl->v, COMPRESS_MAX_VARIANTS);
    for (const cJSON *e = b->child; e && pl->nb < QUANT_MAX_BATCH; e = e->next) {
        pl->batches[pl->nb++] = (int)e->valuedouble;
        pl->bmax = pl->bmax > (int)e->valuedouble ? pl->bmax : (int)e->valuedouble;
    }
    pl->cols = (size_t)param_num(params, "cols") / 128 * 128;
    measure_rule_from(&pl->rule, params);
}

static void plan_rows(struct plan *pl)
{
    pl->rows = (size_t)(pl->fp32_bytes / (4.0 * (double)pl->cols));
    if (pl->rows < 8)
        pl->rows = 8;
    pl->fp32_bytes = 4.0 * (double)pl->rows * (double)pl->cols;
}

int compress_precheck(const cJSON *params, char *err, size_t errlen)
{
    char want[32], have[32];
    double avail = machine_mem_available();
    if ((int)param_num(params, "cols") % 128 != 0) {
        snprintf(err, errlen, "compress: cols = %d is not a multiple of 128 (the largest block)",
                 (int)param_num(params, "cols"));
        return -1;
    }
    if (!cJSON_IsNumber(param_get(params, "weights_size")) || !isfinite(avail))
        return 0;
    double bytes = param_num(params, "weights_size");
    if (bytes > MEM_SHARE * avail) {
        snprintf(err, errlen, "compress: an FP32 weight matrix of %s does not fit in memory: %s available "
                 "(MemAvailable), of which it may use %.0f %%", units_format_bytes(bytes, want, sizeof want),
                 units_format_bytes(avail, have, sizeof have), MEM_SHARE * 100);
        return -1;
    }
    return 0;
}

/* ---- measuring ---- */

struct timed {                      /* what one repetition runs */
    const struct compress_ops *ops;
    void *h;
    const float *x;
    float *y;
    int batch;                      /* 0: the read kernel */
    long iters;
    double sum;
    int failed;                     /* a timed run returned an error */
};

static double run_once(struct timed *t)
{
    if (t->batch == 0)
        return t->ops->read(t->h, t->iters, &t->sum);
    return t->ops->gemv(t->h, t->x, t->y, t->batch, t->iters);
}

static double run_iters(void *ud, long iters)
{
    struct timed *t = ud;
    long keep = t->iters;
    t->iters = iters;
    double s = run_once(t);
    t->iters = keep;
    return s;
}

/* Seconds of one product (or read) from a sample of t->iters; a failed run is remembered. */
static double one_sample(void *ud)
{
    struct timed *t = ud;
    double s = run_once(t);
    t->failed |= !(s >= 0);
    return s / (double)t->iters;
}

/* The harness's repetitions per sample and repetitions; returns the median seconds of one product, or -1
 * when a run failed. */
static double repeat(cJSON *rec, const struct plan *pl, struct timed *t, double budget_s, double first)
{
    struct measure_rule rule = pl->rule;
    rule.budget_s = budget_s;
    t->iters = measure_iterations(run_iters, t, rule.sample_s, first);
    cJSON_AddNumberToObject(rec, "iters_per_sample", (double)t->iters);
    measure_repeat(rec, &rule, one_sample, t);
    return t->failed ? -1 : json_num(cJSON_GetObjectItemCaseSensitive(rec, "time_s"), "median", NAN);
}

static void add_rates(cJSON *rec, double bytes, double fp32_bytes)
{
    if (measure_rates(rec, "gbps", bytes) == 0)
        cJSON_AddNumberToObject(rec, "gbps_dense_fp32_median", fp32_bytes / measure_time(rec, "median") / 1e9);
}

/* The plain twin of the read kernel: the sum in FP64, and the sum of magnitudes. */
static double read_reference(const struct quant_matrix *m, double *abs_sum)
{
    const float *v = m->vals;
    double s = 0, a = 0;
    size_t n = m->rows * m->cols;
#pragma omp parallel for schedule(static) reduction(+:s, a)
    for (size_t i = 0; i < n; i++) {
        s += v[i];
        a += fabs((double)v[i]);
    }
    *abs_sum = a;
    return s;
}

/* ---- the streamed products ---- */

/* Whether a record's matrix is DRAM-sized, `dram_bytes` or more (MEASURE_DRAM_FACTOR x the
 * device's caches: the CPU's all, a GPU's L2): only then does its stream read from DRAM, so only
 * then is it a fraction of a read (the read of the FP32 matrix, the DRAM read ceiling) or does it
 * raise one. A smaller matrix (int8 and 4-bit ones of a DRAM-sized FP32 matrix, any of a small
 * weights_size) may stream in part from the caches. */
static int dram_sized(const cJSON *r, double dram_bytes) { return json_num(r, "bytes", 0) >= dram_bytes; }

struct stream {
    const struct compress_ops *ops;
    struct plan *pl;
    const char *device;
    float *x, *y;                   /* bmax x cols inputs; bmax x rows outputs */
    cJSON *results;
    int done, total;
    double per_point, t0, deadline; /* seconds of repetitions of the next measurement; the end */
};

static cJSON *new_record(const struct stream *st, const struct compress_variant *v, const struct quant_matrix *m,
                         const char *series, int batch, const char *isa)
{
    const struct quant_scheme *s = &quant_schemes[v->id];
    cJSON *rec = cJSON_CreateObject();
    cJSON_AddStringToObject(rec, "series", series);
    cJSON_AddStringToObject(rec, "scheme", v->name);
    cJSON_AddStringToObject(rec, "format", s->label);
    cJSON_AddStringToObject(rec, "device", st->device);
    cJSON_AddStringToObject(rec, "isa", isa);
    cJSON_AddNumberToObject(rec, "batch", batch);
    cJSON_AddNumberToObject(rec, "rows", (double)m->rows);
    cJSON_AddNumberToObject(rec, "cols", (double)m->cols);
    cJSON_AddNumberToObject(rec, "sparsity", m->sparsity);
    cJSON_AddNumberToObject(rec, "bytes_values", (double)m->bytes[0]);
    cJSON_AddNumberToObject(rec, "bytes_scales", (double)m->bytes[1]);
    cJSON_AddNumberToObject(rec, "bytes_indices", (double)m->bytes[2] + (double)m->bytes[3]);
    cJSON_AddNumberToObject(rec, "bytes", quant_bytes(m));
    cJSON_AddNumberToObject(rec, "bits_per_weight", quant_bits_per_weight(m));
    cJSON_AddNumberToObject(rec, "ideal_speedup_vs_fp32", st->pl->fp32_bytes / quant_bytes(m));
    cJSON_AddNumberToObject(rec, "bytes_io", 4.0 * batch * (double)(m->rows + m->cols));
    return rec;
}

/* The same product on the matrix's first rows, sized to half the level-2 caches: how fast the
 * kernel decodes and multiplies when the bytes come from cache. A product that runs nearly as
 * fast from DRAM is bound by that work, not by memory. Adds rec.cache {rows, bytes, time_s,
 * samples_s, ..., gweights_per_s} and rec.bound. */
static void measure_in_cache(struct stream *st, const struct quant_matrix *m, int batch, double budget_s,
                             cJSON *rec)
{
    char err[256];
    double row_bytes = quant_bytes(m) / (double)m->rows;
    size_t rows = (size_t)(0.5 * st->pl->cache_l2 / row_bytes), least = 4 * (size_t)omp_get_max_threads();
    if (st->pl->cache_l2 <= 0 || rows >= m->rows / 2)
        return;
    rows = rows < least ? least : rows;
    struct quant_matrix sub = *m;
    sub.rows = rows;
    void *h = st->ops->open(&sub, omp_get_max_threads(), err, sizeof err);
    if (!h)
        return;
    struct timed t = { st->ops, h, st->x, st->y, batch, 1, 0, 0 };
    cJSON *c = cJSON_CreateObject();
    double first = run_once(&t);
    cJSON_AddNumberToObject(c, "rows", (double)rows);
    if (first >= 0 && repeat(c, st->pl, &t, budget_s, first) > 0) {
        double tc = json_num(cJSON_GetObjectItemCaseSensitive(c, "time_s"), "median", NAN);
        double td = json_num(cJSON_GetObjectItemCaseSensitive(rec, "time_s"), "median", NAN);
        double rate_c = (double)rows * (double)m->cols / tc, rate_d = (double)m->rows * (double)m->cols / td;
        cJSON_AddNumberToObject(c, "gweights_per_s", rate_c / 1e9);
        cJSON_AddNumberToObject(rec, "gweights_per_s", rate_d / 1e9);
        cJSON_AddNumberToObject(rec, "dram_over_cache", rate_d / rate_c);
    }
    cJSON_AddItemToObject(rec, "cache", c);
    st->ops->close(h);
}

/* The dense FP32 product against the read of the same matrix, interleaved: up to PAIRS pairs of one
 * read sample and one product sample (the order alternating, the read validated when it was first
 * measured), each pair's ratio of rates, their median. On a machine whose bandwidth moves within
 * seconds (a VM sharing its host's memory) a product is judged against a read of the same moment,
 * not against one taken minutes apart. `prod` is the product's timed state (iters per sample set).
 * PAIRS_LEAST pairs at least, more while a quarter of the point's time lasts.
 * Adds rec.read_adjacent {pairs, gbps_median: the reads' median, product_over_read: the ratios' median}
 * and read_fraction_adjacent, that median where the read is a ceiling (5 % for noise), else says why not. */
enum { PAIRS = 15, PAIRS_LEAST = 7 };
static void measure_read_beside(struct stream *st, void *h, const struct quant_matrix *m, struct timed *prod,
                                cJSON *rec)
{
    struct timed rd = { st->ops, h, st->x, st->y, 0, 1, 0, 0 };
    double first = run_once(&rd), ratio[PAIRS], read_s[PAIRS], until = timing_now() + 0.25 * st->per_point;
    if (!(first >= 0))
        return;
    rd.iters = measure_iterations(run_iters, &rd, st->pl->rule.sample_s, first);
    int n = 0;
    while (n < PAIRS && (n < PAIRS_LEAST || timing_now() < until) && !progress_stopping()) {
        double r = 0, p = 0;
        if (n % 2 == 0) {
            r = one_sample(&rd);
            p = one_sample(prod);
        } else {
            p = one_sample(prod);
            r = one_sample(&rd);
        }
        if (rd.failed || prod->failed || !(r > 0 && p > 0))
            return;
        ratio[n] = r / p;               /* seconds of a read over seconds of a product: the product's rate over the read's */
        read_s[n++] = r;
    }
    if (n == 0)                         /* stopped (a signal) before the first pair */
        return;
    cJSON *o = cJSON_CreateObject();
    double f = measure_median(ratio, n);
    cJSON_AddNumberToObject(o, "pairs", n);
    cJSON_AddNumberToObject(o, "gbps_median", quant_bytes(m) / measure_median(read_s, n) / 1e9);
    cJSON_AddNumberToObject(o, "product_over_read", f);
    cJSON_AddItemToObject(rec, "read_adjacent", o);
    if (f <= 1.05)
        cJSON_AddNumberToObject(rec, "read_fraction_adjacent", f);
    else                                /* the read is no ceiling of this product: no fraction of it */
        cJSON_AddStringToObject(o, "not_a_ceiling", "the product streamed the matrix faster than the read interleaved with it");
}

/* Validates one product (or the read), then times it; appends the record. */
static void measure(struct stream *st, void *h, const struct compress_variant *v, const struct quant_matrix *m,
                    int batch, double pack_s)
{
    struct timed t = { st->ops, h, st->x, st->y, batch, 1, 0, 0 };
    cJSON *rec = new_record(st, v, m, batch ? "gemv" : "read", batch, st->ops->isa(h));
    double first = run_once(&t), err, tol = quant_schemes[v->id].tolerance;
    if (batch) {
        err = first < 0 ? INFINITY : compress_check(m, st->x, st->y, batch, CHECK_ROWS);
    } else {
        double a, ref = read_reference(m, &a);
        err = first < 0 ? INFINITY : fabs(t.sum - ref) / (a > 0 ? a : 1);
    }
    cJSON_AddNumberToObject(rec, "pack_s", pack_s);
    cJSON_AddNumberToObject(rec, "first_pass_s", first);
    cJSON_AddNumberToObject(rec, "max_rel_error", isfinite(err) ? err : 1e308);
    cJSON_AddNumberToObject(rec, "tolerance", tol);
    cJSON_AddBoolToObject(rec, "valid", err <= tol);
    if (!(err <= tol)) {
        char msg[160];
        snprintf(msg, sizeof msg, first < 0 ? "the kernel failed; not timed"
                 : "validation failed: relative error %.3g exceeds %.0e; not timed", err, tol);
        cJSON_AddStringToObject(rec, "error", msg);
    } else if (repeat(rec, st->pl, &t, batch ? 0.75 * st->per_point : st->per_point, first) > 0) {
        add_rates(rec, quant_bytes(m), st->pl->fp32_bytes);
        if (batch)
            measure_in_cache(st, m, batch, 0.25 * st->per_point, rec);
        if (batch && v->id == QUANT_FP32)
            measure_read_beside(st, h, m, &t, rec);
    }
    cJSON_AddItemToArray(st->results, rec);
}

static void skip_variant(struct stream *st, const struct compress_variant *v, const char *why)
{
    char item[96];
    snprintf(item, sizeof item, "%s products on the %s", v->name, st->device);
    measure_skip(st->pl->skipped, item, why);
    st->done += st->pl->nb + (v->id == QUANT_FP32);
}

static void stream_variant(struct stream *st, const struct compress_variant *v)
{
    char err[256], step[128];
    struct plan *pl = st->pl;
    if (timing_now() > st->deadline) {
        skip_variant(st, v, "the experiment's time share was spent before it");
        return;
    }
    snprintf(step, sizeof step, "pack %s", v->name);
    progress_step(st->done, step);
    struct quant_matrix *m = quant_new(v->id, pl->rows, pl->cols, v->sparsity, err, sizeof err);
    if (!m) {
        skip_variant(st, v, err);
        return;
    }
    double t0 = timing_now();
    quant_pack_gen(m, SEED_W, omp_get_max_threads());
    double pack_s = timing_now() - t0;
    void *h = st->ops->open(m, omp_get_max_threads(), err, sizeof err);
    if (!h) {
        skip_variant(st, v, err);
        quant_free(m);
        return;
    }
    for (int i = v->id == QUANT_FP32 ? -1 : 0; i < pl->nb && !progress_stopping(); i++) {
        int batch = i < 0 ? 0 : pl->batches[i];     /* 0: the read */
        snprintf(step, sizeof step, batch ? "%s, batch %d" : "read %s", v->name, batch);
        progress_step(st->done++, step);
        /* what is left, shared by what is left; 60 % of it for packing and checking */
        st->per_point = fmax(0.0, 0.4 * (st->deadline - timing_now()) / (st->total - st->done + 1));
        measure(st, h, v, m, batch, pack_s);
    }
    st->ops->close(h);
    quant_free(m);
}

/* The read of the FP32 matrix is what every product of a DRAM-sized matrix is a fraction of: such
 * a product faster than it (best or median) means the read was disturbed, so it is measured again
 * before any fraction is written, the FP32 matrix packed again when there is time for it (twice
 * its first packing left in `until`), and the record keeps the faster of its two measurements (by
 * median), saying so in `remeasured`. */
static void recheck_read(struct stream *st, double until)
{
    cJSON *rd = NULL, *r;
    double best = 0, med = 0;
    cJSON_ArrayForEach(r, st->results) {
        if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "valid")) || !cJSON_GetObjectItemCaseSensitive(r, "time_s"))
            continue;
        if (strcmp(json_str(r, "series", ""), "read") == 0)
            rd = r;
        else if (strcmp(json_str(r, "series", ""), "gemv") == 0 && dram_sized(r, st->pl->dram_bytes)) {
            best = fmax(best, json_num(r, "gbps_best", 0));
            med = fmax(med, json_num(r, "gbps_median", 0));
        }
    }
    if (!rd || (best <= json_num(rd, "gbps_best", 0) && med <= json_num(rd, "gbps_median", 0))
        || timing_now() + 2 * json_num(rd, "pack_s", 0) > until || progress_stopping())
        return;
    char err[256];
    const struct compress_variant *v = &st->pl->v[0];       /* FP32, the first variant */
    struct quant_matrix *m = quant_new(v->id, st->pl->rows, st->pl->cols, 0, err, sizeof err);
    void *h = m ? st->ops->open(m, omp_get_max_threads(), err, sizeof err) : NULL;
    if (h) {
        double t0 = timing_now();
        quant_pack_gen(m, SEED_W, omp_get_max_threads());
        progress_step(st->done, "read fp32 again: a product was faster than it");
        measure(st, h, v, m, 0, timing_now() - t0);
        cJSON *again = cJSON_DetachItemFromArray(st->results, cJSON_GetArraySize(st->results) - 1);
        int faster = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(again, "valid"))
                     && json_num(again, "gbps_median", 0) > json_num(rd, "gbps_median", 0);
        char words[200];
        snprintf(words, sizeof words, "a product ran faster than this read (best %.3g, median %.3g GB/s): measured "
                 "again, %s", best, med, faster ? "faster, this is the second measurement" : "not faster, this is the first");
        if (faster) {
            cJSON_ReplaceItemViaPointer(st->results, rd, again);
            rd = again;
        } else {
            cJSON_Delete(again);
        }
        cJSON_AddStringToObject(rd, "remeasured", words);
        st->ops->close(h);
    }
    quant_free(m);
}

/* ---- speed-ups, from this run's medians ---- */

static const cJSON *find_rec(const cJSON *results, const char *series, const char *scheme, int batch)
{
    for (const cJSON *r = results->child; r; r = r->next)
        if (strcmp(json_str(r, "series", ""), series) == 0 && strcmp(json_str(r, "scheme", ""), scheme) == 0
            && (int)json_num(r, "batch", -1) == batch && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "valid")))
            return r;
    return NULL;
}

static double median_of(const cJSON *rec) { return json_num(cJSON_GetObjectItemCaseSensitive(rec, "time_s"), "median", NAN); }

/* What limits a product: memory (it reaches BOUND_MEMORY of what its bytes allow), else its own
 * decoding and arithmetic when from DRAM it runs at BOUND_COMPUTE of its speed from cache or
 * better: then the rate that binds is that from-cache rate, recorded as bound_gweights_per_s
 * and bound_gflops (2 x batch FLOPs a weight); else both share the time ("mixed"). For a product
 * judged against a read (`read_gbps`, dense FP32; NAN for the others) a mixed one also records the
 * rate that shares the time and fraction_if_serial: what it would reach of the read if its
 * arithmetic, at its rate from cache, and its DRAM stream took turns instead of overlapping (the
 * from-cache GB/s over the sum of both). Near the measured fraction, the core does not hide the one
 * behind the other. */
static void add_bound(cJSON *r, int memory, double read_gbps)
{
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(r, "cache");
    int compute = !memory && json_num(r, "dram_over_cache", 0) >= BOUND_COMPUTE;
    double g = json_num(c, "gweights_per_s", 0);
    cJSON_AddStringToObject(r, "bound", memory ? "memory" : compute ? "compute" : "mixed");
    if (g > 0 && (compute || (!memory && read_gbps > 0))) {
        cJSON_AddNumberToObject(r, "bound_gweights_per_s", g);
        cJSON_AddNumberToObject(r, "bound_gflops", 2.0 * json_num(r, "batch", 1) * g);
    }
    if (g > 0 && !memory && !compute && read_gbps > 0) {
        double cache_gbps = g * json_num(r, "bits_per_weight", 32) / 8;
        cJSON_AddNumberToObject(r, "fraction_if_serial", cache_gbps / (cache_gbps + read_gbps));
    }
}

/* Whether the read of the FP32 matrix (measured again when a product beat it, recheck_read) is a
 * ceiling of the products of DRAM-sized matrices: none streams more than 5 % faster, by median or
 * by best repetition (both fractions are written). If one still does, the read is not a ceiling
 * and no fraction of it is written: the record says so, and every such product keeps its fraction
 * of the run's DRAM read ceiling (read_fraction_dram, compress_dram). */
static int read_is_ceiling(cJSON *rd, const cJSON *results, double dram_bytes)
{
    const cJSON *r, *fast = NULL;
    double over = 1.05;
    cJSON_ArrayForEach(r, results) {
        double by = fmax(json_num(r, "gbps_median", 0) / json_num(rd, "gbps_median", INFINITY),
                         json_num(r, "gbps_best", 0) / json_num(rd, "gbps_best", INFINITY));
        if (strcmp(json_str(r, "series", ""), "gemv") == 0 && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "valid"))
            && dram_sized(r, dram_bytes) && by > over) {
            fast = r;
            over = by;
        }
    }
    if (!fast)
        return 1;
    char words[260];
    snprintf(words, sizeof words, "not a ceiling of its products: %s at batch %d streamed this matrix at %.3g GB/s "
             "median, %.3g best, %.2fx this read; products are given as fractions of the run's DRAM read ceiling only",
             json_str(fast, "scheme", "?"), (int)json_num(fast, "batch", 0), json_num(fast, "gbps_median", 0),
             json_num(fast, "gbps_best", 0), over);
    cJSON_AddStringToObject(rd, "not_a_ceiling", words);
    return 0;
}

void compress_speedups(cJSON *results, double dram_bytes)
{
    cJSON *read = (cJSON *)find_rec(results, "read", "fp32", 0);
    const cJSON *rd = read && read_is_ceiling(read, results, dram_bytes) ? read : NULL;   /* the fractions' denominator */
    for (cJSON *r = results->child; r; r = r->next) {
        if (strcmp(json_str(r, "series", ""), "gemv") != 0 || !cJSON_GetObjectItemCaseSensitive(r, "time_s"))
            continue;
        int b = (int)json_num(r, "batch", 0);
        const cJSON *f32 = find_rec(results, "gemv", "fp32", b), *b16 = find_rec(results, "gemv", "bf16", b);
        if (f32) {
            double sp = median_of(f32) / median_of(r), of_ideal = sp / json_num(r, "ideal_speedup_vs_fp32", NAN);
            cJSON_AddNumberToObject(r, "speedup_vs_fp32", sp);
            cJSON_AddNumberToObject(r, "speedup_of_ideal", of_ideal);
            /* what limits a compressed product: its bytes (the speed-up reaches BOUND_MEMORY of the
             * byte ratio), or the decoding and multiplying (from DRAM it runs at BOUND_COMPUTE of
             * its speed from cache or better); else both share the time */
            if (r != f32)
                add_bound(r, of_ideal >= BOUND_MEMORY, NAN);
        }
        if (r == f32 && read) { /* dense FP32 against the read of the same matrix, the one beside it where timed */
            const cJSON *adj = cJSON_GetObjectItemCaseSensitive(r, "read_adjacent");
            add_bound(r, json_num(adj, "product_over_read", json_num(r, "gbps_median", NAN) / json_num(read, "gbps_median", NAN))
                             >= BOUND_MEMORY, json_num(adj, "gbps_median", json_num(read, "gbps_median", NAN)));
        }
        if (b16)
            cJSON_AddNumberToObject(r, "speedup_vs_bf16", median_of(b16) / median_of(r));
        if (rd && dram_sized(r, dram_bytes)) {
            cJSON_AddNumberToObject(r, "read_fraction_median", json_num(r, "gbps_median", NAN) / json_num(rd, "gbps_median", NAN));
            cJSON_AddNumberToObject(r, "read_fraction_best", json_num(r, "gbps_best", NAN) / json_num(rd, "gbps_best", NAN));
        }
    }
}

/* ---- info ---- */

static cJSON *schemes_json(const struct plan *pl)
{
    cJSON *a = cJSON_CreateArray();
    for (int i = 0; i < pl->nv; i++) {
        const struct compress_variant *v = &pl->v[i];
        const struct quant_scheme *s = &quant_schemes[v->id];
        double density = s->density > 0 ? s->density : 1 - v->sparsity;
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "scheme", v->name);
        cJSON_AddStringToObject(o, "label", s->label);
        cJSON_AddStringToObject(o, "value_format", s->value_format);
        cJSON_AddNumberToObject(o, "value_bits", s->value_bits);
        cJSON_AddNumberToObject(o, "index_bits", s->index_bits);
        cJSON_AddNumberToObject(o, "block", s->block);
        cJSON_AddStringToObject(o, "scale_format", s->scale_format);
        cJSON_AddNumberToObject(o, "scale_bits", s->scale_bits);
        cJSON_AddNumberToObject(o, "density", density);
        cJSON_AddNumberToObject(o, "bits_per_weight", s->density > 0 ? s->bits_per_weight : density * s->bits_per_weight);
        cJSON_AddNumberToObject(o, "tolerance", s->tolerance);
        cJSON_AddNumberToObject(o, "error_bound", compress_error_bound(v));
        cJSON_AddItemToArray(a, o);
    }
    return a;
}

static cJSON *info_json(const struct plan *pl, const char *device, const char *cache_what, const char *cache_source)
{
    cJSON *info = cJSON_CreateObject();
    cJSON_AddStringToObject(info, "device", device);
    cJSON_AddNumberToObject(info, "threads", omp_get_max_threads());
    cJSON_AddNumberToObject(info, "rows", (double)pl->rows);
    cJSON_AddNumberToObject(info, "cols", (double)pl->cols);
    cJSON_AddNumberToObject(info, "fp32_bytes", pl->fp32_bytes);
    cJSON_AddNumberToObject(info, "caches_total_bytes", pl->cache_total);
    cJSON_AddStringToObject(info, "caches_what", cache_what);
    cJSON_AddStringToObject(info, "caches_source", cache_source);
    cJSON_AddStringToObject(info, "byte_convention",
        "what one product reads of the compressed matrix, values + scales + indices (CSR also its row "
        "pointers); the input and output vectors (bytes_io) stay in cache and are not counted");
    cJSON_AddStringToObject(info, "read_convention",
        "a plain sum of the same FP32 matrix (the bandwidth experiment's read kernel), measured in the same run");
    if (pl->dram_bytes > 0) {
        cJSON_AddNumberToObject(info, "dram_sized_bytes", pl->dram_bytes);
        cJSON_AddStringToObject(info, "fraction_rule", "a product is given as a fraction of a read (the read of the FP32 "
                                "matrix, the DRAM read ceiling) only when its matrix is DRAM-sized, dram_sized_bytes or "
                                "more (4x the caches): a smaller one may stream in part from the caches");
    }
    cJSON_AddStringToObject(info, "rounding",
        "round to nearest, ties to even; saturation to the largest finite code; scales from the largest finite "
        "magnitude; a NaN makes its row's or block's scale NaN (E4M3 keeps it in its own code)");
    cJSON_AddStringToObject(info, "weights", "streamed: Irwin-Hall(4) values with standard deviation 0.02; "
        "layer errors: N(0, 0.02) weights and N(0, 1) inputs");
    cJSON_AddItemToObject(info, "schemes", schemes_json(pl));
    return info;
}

/* ---- the run ---- */

static void stream_all(struct stream *st, double budget_s, int recheck)
{
    struct plan *pl = st->pl;
    st->total = pl->nv * pl->nb + 1;
    st->t0 = timing_now();
    st->deadline = st->t0 + STREAM_SHARE * budget_s;
    st->x = xmalloc((size_t)pl->bmax * pl->cols * sizeof *st->x);
    st->y = xcalloc((size_t)pl->bmax * pl->rows, sizeof *st->y);
    for (size_t i = 0; i < (size_t)pl->bmax * pl->cols; i++)
        st->x[i] = (float)quant_gauss(SEED_X, i);
    for (int i = 0; i < pl->nv && !progress_stopping(); i++)
        stream_variant(st, &pl->v[i]);
    if (recheck)
        recheck_read(st, st->t0 + budget_s);
    compress_speedups(st->results, st->pl->dram_bytes);
    free(st->x);
    free(st->y);
}

void compress_dram(cJSON *results, cJSON *info, cJSON *skipped, double dram_bytes)
{
    struct measure_dram d;
    char why[256], what[160];
    if (measure_dram("compress", &d, why, sizeof why) != 0) {
        measure_skip(skipped, "fractions of the DRAM read ceiling", why);
        return;
    }
    cJSON *r;
    /* a read of a DRAM-sized matrix (the read series, a product streaming its weights) is a read
     * of bytes known to move: the run's read ceiling is at least its rate */
    cJSON_ArrayForEach(r, results)
        if (cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(r, "gbps_best")) && dram_sized(r, dram_bytes)) {
            snprintf(what, sizeof what, "the compression experiment's %s of its %s matrix%s", json_str(r, "series", "?"),
                     json_str(r, "scheme", "?"), strcmp(json_str(r, "series", ""), "gemv") == 0 ? " (its weight stream)" : "");
            measure_dram_offer_read(json_num(r, "gbps_best", 0), "fp32", what);
        }
    measure_dram("compress", &d, why, sizeof why);
    double read = measure_dram_ceiling(&d, 1, 0);
    cJSON_ArrayForEach(r, results)
        if (cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(r, "gbps_best")) && dram_sized(r, dram_bytes))
            cJSON_AddNumberToObject(r, "read_fraction_dram", json_num(r, "gbps_best", NAN) / read);
    cJSON_AddItemToObject(info, "dram", measure_dram_json(&d));
}

static cJSON *finish(struct plan *pl, cJSON *results, cJSON *info)
{
    cJSON *out = cJSON_CreateObject();
    cJSON_AddItemToObject(out, "results", results);
    cJSON_AddItemToObject(out, "skipped", pl->skipped);
    cJSON_AddItemToObject(out, "info", info);
    return out;
}

static cJSON *cpu_run(const cJSON *params, double budget_s)
{
    struct machine_cpu cpu;
    struct plan pl;
    machine_cpu(&cpu);
    plan_common(&pl, params);
    pl.cache_total = machine_cache_total(&cpu);
    double levels[8];
    pl.cache_l2 = machine_cache_levels(&cpu, levels) >= 2 ? levels[1] : 0;
    pl.dram_bytes = 0.999 * measure_dram_bytes(pl.cache_total);     /* the FP32 matrix's rows round it down */
    pl.fp32_bytes = plan_bytes(&pl, params, measure_dram_bytes(pl.cache_total), machine_mem_available());
    plan_rows(&pl);
    struct stream st = { backend_for("compress", "cpu", NULL, 0), &pl, "cpu", NULL, NULL, cJSON_CreateArray(), 0, 0, 0, 0, 0 };
    double t0 = timing_now();
    if (quant_cpu_isa(param_str(params, "isa")) != 0) {
        char why[128];
        snprintf(why, sizeof why, "this CPU has no %s; the widest kernels it has ran", param_str(params, "isa"));
        measure_skip(pl.skipped, "isa", why);
    }
    progress_begin("compress cpu", pl.nv * pl.nb + 3, budget_s);
    stream_all(&st, budget_s, 1);
    if (!progress_stopping()) {
        progress_step(st.done++, "layer errors");
        compress_layer_errors(pl.v, pl.nv, (size_t)param_num(params, "layer_rows"), pl.cols, pl.bmax, st.results,
                              pl.skipped);
    }
    if (!progress_stopping()) {
        progress_step(st.done++, "trained model with each scheme");
        compress_model_losses(params, pl.v, pl.nv, budget_s - (timing_now() - t0), st.results, pl.skipped);
    }
    quant_cpu_isa("auto");
    progress_step(st.done, "done");
    progress_end();
    cJSON *info = info_json(&pl, "cpu", "all caches", cpu.cache_source);
    compress_dram(st.results, info, pl.skipped, pl.dram_bytes);
    return finish(&pl, st.results, info);
}

/* Without a GPU backend (no device, or no CUDA in this build) every GPU item is skipped with
 * the reason backend_for() gives. */
static cJSON *gpu_run(const cJSON *params, double budget_s)
{
    struct cuda_info ci;
    struct plan pl;
    char why[256];
    plan_common(&pl, params);
    const struct compress_ops *ops = backend_for("compress", "gpu", why, sizeof why);
    if (!ops) {
        for (int i = 0; i < pl.nv; i++) {
            char item[96];
            snprintf(item, sizeof item, "%s products on the gpu", pl.v[i].name);
            measure_skip(pl.skipped, item, why);
        }
        cJSON *info = info_json(&pl, "gpu", "the L2 cache", "cudaGetDeviceProperties");
        cJSON_AddStringToObject(info, "reason", why);
        return finish(&pl, cJSON_CreateArray(), info);
    }
    cuda_probe(&ci);                /* the device's caches and free memory size the plan */
    const struct cuda_device *d = &ci.dev[0];
    pl.cache_total = d->l2_bytes;
    pl.dram_bytes = 0.999 * MEASURE_DRAM_FACTOR * pl.cache_total;
    pl.fp32_bytes = plan_bytes(&pl, params, fmax(16.0 * pl.cache_total, GPU_FLOOR),
                               fmin(d->mem_free_bytes, machine_mem_available()));
    plan_rows(&pl);
    struct stream st = { ops, &pl, "gpu", NULL, NULL, cJSON_CreateArray(), 0, 0, 0, 0, 0 };
    progress_begin("compress gpu", pl.nv * pl.nb + 1, budget_s);
    stream_all(&st, budget_s / STREAM_SHARE, 0);
    progress_step(st.done, "done");
    progress_end();
    cJSON *info = info_json(&pl, "gpu", "the L2 cache", "cudaGetDeviceProperties");
    cJSON_AddStringToObject(info, "gpu_name", d->name);
    return finish(&pl, st.results, info);
}

cJSON *compress_run(const cJSON *params, double budget_s, char *err, size_t errlen)
{
    budget_s = measure_budget(params, budget_s);
    cJSON *out = strcmp(param_str(params, "device"), "gpu") == 0 ? gpu_run(params, budget_s) : cpu_run(params, budget_s);
    if (!out)
        snprintf(err, errlen, "compress: no result");
    return out;
}
