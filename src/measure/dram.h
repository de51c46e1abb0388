/* dram.h: this machine's DRAM ceilings, a measuring service for every family that divides by
 * them (the model's calibration, compression's read fraction, the precision roofline): chosen
 * by MEASURE_DRAM_RULE from the bandwidth experiment's records when it ran in this process,
 * else measured the same way for the family that asks first (the bandwidth family's
 * measure_dram_ops, found through backend_for("dram", "cpu")), and kept for the rest of the
 * run. Every rate counts bytes known to move: what a read reads, what a non-temporal store
 * writes, and a cached store's read for ownership only where this machine shows it makes one.
 * Dividing by them is the asking family's job; measure_dram_ceiling gives the ceiling of an
 * op's own mix of reads and writes. */
#ifndef SR_MEASURE_DRAM_H
#define SR_MEASURE_DRAM_H

#include <stddef.h>

#include <cjson/cJSON.h>

#define MEASURE_DRAM_RULE "this machine's DRAM bandwidth is the highest best-repetition rate, in bytes known to " \
    "move, among the bandwidth kernels in every precision at the DRAM-sized working set (the largest the " \
    "experiment reached), all threads: what the read kernel reads, what non-temporal stores write, and a cached " \
    "store's line once, or twice (the write-allocate view: a read for ownership, then the write) only where this " \
    "machine shows that it reads the line first: the cached kernels take, against their non-temporal twins, at " \
    "least 90 % of the extra time those bytes need (the median over the kernels that write), and hardware " \
    "counters, where readable, do not show the lines unread. Beside it three ceilings: " \
    "read (the read kernel), write (fill) and mix (copy, scale, add, triad); an op is judged against the ceiling " \
    "of its own mix, interpolated in its share of bytes read between the kernels' shares (read 1, add and triad " \
    "2/3, copy and scale 1/2, fill 0)"

/* The write-allocate test: a cached kernel's time over its non-temporal twin's, as a share of
 * the ratio the extra read would cause, at or above this: the machine shows it. */
#define MEASURE_WA_SHOWN 0.9
#define MEASURE_DRAM_MIXES 4        /* read 1, add/triad 2/3, copy/scale 1/2, fill 0 */

struct measure_dram_ceiling {
    double read_share;              /* of the bytes a kernel moves, the share it reads: 1, 2/3, 1/2, 0 */
    double gbps;                    /* 1e9 bytes/s, best repetition, bytes known to move; 0: none measured */
    char kernel[16], precision[8], stores[16];
};

struct measure_dram {
    double gbps;                /* 1e9 bytes/s, best repetition, bytes known to move: the highest of all */
    char kernel[16];            /* "copy", "read", ... */
    char precision[8];          /* "fp64" */
    char stores[16];            /* "cached", "non-temporal" or "none" (read) */
    double working_set_bytes;   /* the arrays the kernel names, bytes */
    int threads;
    char source[64];            /* "bandwidth experiment" or "measured by <family>" */
    double read_gbps, write_gbps, mix_gbps;     /* the ceilings of reads alone, writes alone, both; 0:
                                                   not measured (measure_dram_ceiling then gives gbps) */
    struct measure_dram_ceiling mix[MEASURE_DRAM_MIXES];    /* by read share, descending */
    int write_allocate;         /* 1: shown (cached stores count their read), 0: not shown, -1: no evidence */
    char wa_evidence[512];      /* in words: the ratios it was decided on */
    char counters[224];         /* the hardware counters: what they showed, or why they were not read */
    char raised[224];           /* "" or what raised the read ceiling after the bandwidth experiment */
};

/* What the hardware counters showed of a cached fill at the DRAM-sized point: last-level cache
 * misses per 64-byte line it wrote, against the read kernel's per line it read. They can only
 * take back what the timing shows (a fill that misses on far fewer lines than a read did not
 * read them first), never show a read for ownership on their own: what a counter calls a miss
 * differs between cores. */
struct measure_counters {
    int readable;               /* 0: why says why not */
    double fill_per_line, read_per_line;
    char why[160];
};

/* How the figure is measured when no bandwidth experiment chose it: into out, with `family`
 * named in the progress note; 0, or -1 with a message. */
struct measure_dram_ops {
    int (*measure)(const char *family, struct measure_dram *out, char *err, size_t errlen);
};

/* The run's figure: the one kept, else measured now for `family` (NULL: "another experiment"; the
 * source then says "measured by compress") and kept. 0, or -1 with a message. */
int measure_dram(const char *family, struct measure_dram *out, char *err, size_t errlen);
/* Keeps d as the run's figure; returns the kept figure. */
struct measure_dram measure_dram_set(const struct measure_dram *d);
/* The figure MEASURE_DRAM_RULE chooses from bandwidth records at their largest working set: series
 * "size" or "stores", host memory, `threads` threads, valid; hw what the counters showed (NULL:
 * none were tried). 0, or -1 when no record is. */
int measure_dram_pick(const cJSON *results, int threads, const struct measure_counters *hw,
                      struct measure_dram *out);
/* A read of bytes known to move at a DRAM-sized working set, measured by a family (its own read,
 * a product streaming its weights) in `precision` ("fp32"), 1e9 bytes/s: when faster than the kept read ceiling it
 * becomes the read ceiling (and the one figure when faster than that), `what` recorded in
 * `raised`. The machine read that fast, so nothing judged against the read ceiling later is above
 * it. Returns 1 when it raised the ceiling; 0 without a kept figure. */
int measure_dram_offer_read(double gbps, const char *precision, const char *what);

/* The ceiling, 1e9 bytes/s, of an op that reads bytes_read and writes bytes_written: the mix
 * ceilings interpolated in its read share (linear between the two measured shares around it, the
 * nearest beyond the last); d->gbps where no mix was measured. */
double measure_dram_ceiling(const struct measure_dram *d, double bytes_read, double bytes_written);
/* The results' info.dram object: {gbps, kernel, precision, stores, working_set_bytes, threads,
 * source, rule, read_gbps, write_gbps, mix_gbps, ceilings [...], write_allocate {...}}. */
cJSON *measure_dram_json(const struct measure_dram *d);

#endif
