/* tenants.h: N people sharing one DGX Spark, projected: for a workload projected on the Spark and
 * N = 1, 2, 3, 4, 6, 8 tenants each running it at once, whether each tenant's job fits in its share
 * of the pool (the fit module's rules and reserve, one more runtime per further process), and its
 * step time and hours when the GPU is time-sliced among them (every part of the step N-fold, the
 * memory-bound part over the bandwidth share the tenants experiment measured, plus the cost of a
 * context switch each time slice). Records of series "tenants" (the team stage reads them: how many
 * people one Spark serves before a job's time to result passes its deadline) and info.tenants_basis. How one tenant's step is projected
 * within its share is the projection's (project.c), handed in as a function. */
#ifndef SR_PREDICT_TENANTS_H
#define SR_PREDICT_TENANTS_H

#include <cjson/cJSON.h>

#include "predict/calib.h"

#define PREDICT_TENANTS_MAX 16

/* Tenant counts projected. */
extern const int predict_tenant_counts[];
extern const int predict_ntenant_counts;

/* The contention this run measured: the tenants experiment's stream, the shares of the alone
 * bandwidth its N tenants kept together (info.totals' share_sum), from the GPU's records when the run
 * has them, else the CPU's. n = 0: none measured. */
struct predict_contention {
    int n;
    int tenants[PREDICT_TENANTS_MAX];
    double share[PREDICT_TENANTS_MAX];  /* share_sum at tenants[i] (1: together what one moved alone) */
    char device[8];                     /* "cpu", "gpu" */
    char what[400];                     /* the measurement, in words */
};

/* From a results document's experiments (a tenants experiment's info.totals and info). */
void predict_contention_load(const cJSON *experiments, struct predict_contention *m);

/* The bandwidth share a time-sliced GPU's N tenants are given: the measured share at the largest
 * measured count not above N (none: 1), never above 1 (one tenant runs at a time: together they
 * cannot move more than one alone). The worst: the least measured over counts of 2 or more. */
double predict_contention_share(const struct predict_contention *m, int n);
double predict_contention_worst(const struct predict_contention *m);

/* Bytes each of n tenants of a device of `capacity` bytes may use: the capacity less its reserve
 * (predict_fit_reserve: one OS and pool), less one runtime per tenant beyond the first, split evenly. */
double predict_tenant_usable(double capacity, int shared, int n);

/* Seconds one context switch costs on sys when the GPU time-slices (the SMs' registers and shared
 * memory saved and restored at sys's bandwidth), and the time slice it comes with. */
double predict_tenant_switch_s(const struct predict_system *sys);
#define PREDICT_TIMESLICE_S 1024e-6

/* Each tenant's step over its step alone, n tenants time-slicing the GPU: n x ((1 - mem) + mem /
 * share) x (1 + switch_s / PREDICT_TIMESLICE_S), mem the step's memory-bound share; 1 for n = 1. */
double predict_tenant_factor(int n, double mem, double share, double switch_s);

/* The records of workload w on sys (the Spark): one per count of predict_tenant_counts (only N = 1,
 * fits false, when the job does not fit alone). within(ud, usable) is the projection record of w on
 * sys with `usable` bytes for the job (its fit: fits, memory_bytes; and when it fits and was timed:
 * step_s, hours, hours_low, hours_high, memory_bound_share), which this frees. */
void predict_tenants(const struct predict_system *sys, const char *workload, const struct predict_contention *m,
                     cJSON *(*within)(void *ud, double usable), void *ud, cJSON *results);

/* info.tenants_basis: how the GPU, the bandwidth and the memory are split, with the figures and
 * their sources, and which measurement the contention figure comes from. */
void predict_tenants_basis(const struct predict_system *sys, const struct predict_contention *m, cJSON *info);

#endif
