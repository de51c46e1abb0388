/* compute.h: this machine's sustained GEMM rate per precision and device, a measuring service as
 * dram.h is for bandwidth: every family that times a GEMM offers its best repetition (the
 * precision experiment's sizes, the model calibration's training shapes), the service keeps the
 * fastest, and every family that quotes the idea takes it from here: the model's matmul
 * ceiling is never below a GEMM measured before it in the same run. The FMA peak per precision
 * is the precision experiment's (its series "peak"), the one figure MFU is taken against. */
#ifndef SR_MEASURE_COMPUTE_H
#define SR_MEASURE_COMPUTE_H

#include <cjson/cJSON.h>

struct measure_gemm {
    double gflops;              /* 1e9 FLOP/s, best repetition */
    int m, n, k;
    char routine[96];           /* "cblas_sgemm", "cuBLASLt algo 21 tile 13" */
    char family[24];            /* who measured it: "precision", "model" */
};

/* Offers a GEMM measured on `device` ("cpu", "gpu") in `precision` ("fp32", ...); kept when it is
 * the fastest offered so far. Returns 1 when kept. */
int measure_gemm_offer(const char *device, const char *precision, const struct measure_gemm *g);

/* The fastest GEMM offered so far for device and precision: 0, or -1 when none was. */
int measure_gemm_best(const char *device, const char *precision, struct measure_gemm *out);

/* {gflops, m, n, k, routine, family}: how a record names it. */
cJSON *measure_gemm_json(const struct measure_gemm *g);

/* Forgets every offer (tests). */
void measure_gemm_clear(void);

#endif
