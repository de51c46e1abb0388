/* compress.h: the compression family: quantization and pruning schemes (quant.h) measured
 * three ways: the speed of the weight-streaming products they serve at sizes far beyond the
 * caches (time, physical bytes, GB/s, speed-up over dense FP32 and BF16 in the same run), the
 * error they add to a layer's outputs against FP64, and the held-out loss of a trained model
 * with each scheme applied to its weights. compress.c plans, validates, times and writes the
 * records; compress_accuracy.c measures the errors; the kernels are compress_cpu.c's and
 * src/exp/compress/compress_cuda.cu's. */
#ifndef SR_COMPRESS_H
#define SR_COMPRESS_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "exp/compress/quant.h"
#include "util/param.h"

/* One scheme as measured: a quant_id and, for CSR, its sparsity; name "int8", "prune-50". */
struct compress_variant {
    enum quant_id id;
    double sparsity;
    char name[24];
};

#define COMPRESS_MAX_VARIANTS 32

/* The variants a parameter set asks for, dense FP32 and BF16 first (the baselines every
 * speed-up is taken from); returns the count. */
int compress_variants(const cJSON *params, struct compress_variant *out, int max);

/* The error bound of a variant's layer outputs (quant_schemes[].error_bound; CSR from its
 * sparsity: the share of a normal's energy below the pruning threshold, plus 30 %). */
double compress_error_bound(const struct compress_variant *v);

extern const struct param compress_params[];
int compress_precheck(const cJSON *params, char *err, size_t errlen);
cJSON *compress_run(const cJSON *params, double budget_s, char *err, size_t errlen);

/* The speed-ups of a run's records over dense FP32 (and BF16) of their batch, what bounds each,
 * and, for a product whose matrix is DRAM-sized (`dram_bytes` or more: it streams from DRAM; a
 * smaller one may stream in part from the caches), its fractions of the read of the FP32 matrix
 * when that read is a ceiling of them (no such product 5 % faster by median or best). */
void compress_speedups(cJSON *results, double dram_bytes);

/* The run's DRAM figure (measure_dram) in info.dram, raised by the reads of DRAM-sized matrices
 * (the read series, a product's weight stream), and each such record's best rate over its read
 * ceiling (read_fraction_dram); not measured: the reason in skipped. */
void compress_dram(cJSON *results, cJSON *info, cJSON *skipped, double dram_bytes);

/* Checks a product of ops against the plain twin on `sample` rows spread over m (all rows when
 * sample is 0): the largest |y - y_ref| / sum |w x| over those rows and the batch. */
double compress_check(const struct quant_matrix *m, const float *x, const float *y, int batch, size_t sample);

/* compress_accuracy.c. The error each variant adds to a layer's outputs: W[rows][cols] of
 * N(0, 0.02), `batch` inputs of N(0, 1), y through the CPU kernel against y = W x in FP64 on
 * the unquantized W; one record per variant (series "layer_error"). */
void compress_layer_errors(const struct compress_variant *v, int nv, size_t rows, size_t cols, int batch,
                           cJSON *results, cJSON *skipped);

/* Held-out loss of a trained model with each variant applied to the weights of its blocks'
 * linears, evaluated in FP32 on the training experiment's CPU backend; one record per variant
 * (series "model_loss", its model_source one of the two below), or the reason in skipped under
 * COMPRESS_MODEL_ITEM. The model: params.model = "run", the largest the run trained before
 * (measure/trained.h; none: COMPRESS_NO_MODEL); "tiny", "small": trained here for model_steps. */
#define COMPRESS_MODEL_ITEM "held-out loss of the trained model"
#define COMPRESS_MODEL_RUN "the training experiment of this run"
#define COMPRESS_MODEL_HERE "the compression experiment, for this measurement"
#define COMPRESS_NO_MODEL "not measured: this run trained no model before this experiment (the training " \
    "experiment, on the CPU, before the compression experiment in the scenario, trains one; model = \"tiny\" or " \
    "\"small\" trains one here)"
void compress_model_losses(const cJSON *params, const struct compress_variant *v, int nv, double budget_s,
                           cJSON *results, cJSON *skipped);

#endif
