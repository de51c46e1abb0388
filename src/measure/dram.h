/* dram.h: this machine's one DRAM bandwidth, a measuring service for every family that divides
 * by it (the model's calibration, compression's read fraction, the precision roofline): chosen
 * by MEASURE_DRAM_RULE from the bandwidth experiment's records when it ran in this process,
 * else measured the same way for the family that asks first (the bandwidth family's
 * measure_dram_ops, found through backend_for("dram", "cpu")), and kept for the rest of the
 * run. Dividing by it is the asking family's job. */
#ifndef SR_MEASURE_DRAM_H
#define SR_MEASURE_DRAM_H

#include <stddef.h>

#include <cjson/cJSON.h>

#define MEASURE_DRAM_RULE "this machine's DRAM bandwidth is the highest best-repetition rate, in bytes actually " \
    "moved (the write-allocate view for kernels whose stores are cached; STREAM's count for non-temporal " \
    "stores and for read), among the bandwidth kernels in every precision measured at the DRAM-sized " \
    "working set (the largest the experiment reached), all threads, both store kinds"

struct measure_dram {
    double gbps;                /* 1e9 bytes/s, best repetition, bytes actually moved */
    const char *kernel;         /* "copy", "read", ... */
    const char *precision;      /* "fp64" */
    const char *stores;         /* "cached" or "non-temporal" */
    double working_set_bytes;   /* the arrays the kernel names, bytes */
    int threads;
    const char *source;         /* "bandwidth experiment" or "measured by <family>" */
};

/* How the figure is measured when no bandwidth experiment chose it: into out (its strings may
 * be the caller's to copy), with `family` named in the progress note; 0, or -1 with a message. */
struct measure_dram_ops {
    int (*measure)(const char *family, struct measure_dram *out, char *err, size_t errlen);
};

/* The run's figure: the one kept, else measured now for `family` (NULL: "another experiment"; the
 * source then says "measured by compress") and kept. 0, or -1 with a message. */
int measure_dram(const char *family, struct measure_dram *out, char *err, size_t errlen);
/* Keeps d (copies of its strings) as the run's figure; returns the kept figure, whose strings
 * are the service's. */
struct measure_dram measure_dram_set(const struct measure_dram *d);
/* The figure MEASURE_DRAM_RULE chooses from bandwidth records at their largest working set: series
 * "size" or "stores", host memory, `threads` threads, valid. 0, or -1 when none is. Its strings
 * point into results. */
int measure_dram_pick(const cJSON *results, int threads, struct measure_dram *out);
/* The results' info.dram object: {gbps, kernel, precision, stores, working_set_bytes, threads,
 * source, rule}. */
cJSON *measure_dram_json(const struct measure_dram *d);

#endif
