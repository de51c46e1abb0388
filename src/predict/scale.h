/* scale.h: the scale-out projection: each single-device projection record spread over N = 1,
 * 2, 4, 8 devices with data parallelism (ZeRO-3 sharding where one device had to offload), the
 * recipe's global batch split among them: step time = compute / N + the gradient (and parameter) traffic that does not overlap, over the
 * link's bus bandwidth: the one this run's collective measured between machines, else the
 * catalog's fabric (data/fabric.csv). How one device's step is timed is project.c's. */
#ifndef SR_PREDICT_SCALE_H
#define SR_PREDICT_SCALE_H

#include <cjson/cJSON.h>

#define SCALE_OVERLAP 0.5           /* central share of the traffic hidden behind the backward pass */
#define SCALE_OVERLAP_HI 0.9        /* band: the most hidden (the fast end) ... */
#define SCALE_OVERLAP_LO 0.0        /* ... and none hidden (the slow end) */
#define SCALE_GRAD_BYTES 4.0        /* bytes per trainable parameter all-reduced under the FP32 recipe
                                       (BF16 and FP8 recipes: predict_grad_bytes, 2) */
#define SCALE_PARAM_BYTES 2.0       /* bytes per parameter all-gathered under ZeRO-3: BF16 weights */

/* Bus bytes one device moves per optimizer step on n devices (time = bytes / bus bandwidth,
 * nccl-tests' convention): once per step (DDP does not reduce during accumulation), the
 * all-reduce of the gradients, 2(n-1)/n x grad_bytes; with ZeRO-3 (zero3_micro > 0 micro-batches
 * per device and step), per micro-batch a reduce-scatter of the gradients and two all-gathers of
 * the weights (forward and backward): zero3_micro x (n-1)/n x (grad_bytes + 2 param_bytes).
 * 0 for n = 1. */
double predict_scale_traffic(int n, double grad_bytes, double param_bytes, double zero3_micro);

/* A device's compute (compute_s: its share of the step) plus the traffic's exposed part: (1 - hidden) x bytes / link_Bps. */
double predict_scale_step(double compute_s, double traffic_bytes, double link_Bps, double hidden);

struct predict_inputs;

/* Appends a "scaleout" record per projection record in results (series "projection", with a
 * step time) and device count, using info.workloads for the parameter counts and in's catalog
 * (fabric columns) and measured link; adds info.scaleout_rules and info.scaleout_not_projected. */
void predict_scale(const struct predict_inputs *in, cJSON *results, cJSON *info);

#endif
