/* machine.h: the machine a run measures: CPU, caches, clusters, kinds of core, memory, OS, read
 * from sysfs and /proc where Linux offers them, with the source of each figure recorded (the
 * context block adds the build and CUDA: src/measure/context.h). */
#ifndef SR_MACHINE_H
#define SR_MACHINE_H

#include <cjson/cJSON.h>

#ifdef __cplusplus
extern "C" {                /* cuda_env.cu asks machine_gpu_mem_free */
#endif

#define MACHINE_MAX_CACHES 16
#define MACHINE_MAX_CLUSTERS 64
#define MACHINE_MAX_KINDS 8
#define MACHINE_MAX_CPUS 1024

/* One kind of core of a heterogeneous CPU (GB10: Cortex-X925 and Cortex-A725). */
struct machine_kind {
    char name[48];            /* "Cortex-X925", from the MIDR part in /proc/cpuinfo */
    char cpus[128];           /* its CPUs as a list, "0-4,10-14" */
    int count;
    double capacity;          /* sysfs cpu_capacity (1024 = the fastest core), 0 when not reported */
};

struct machine_cache {
    int level;
    char type[16];            /* Data, Instruction, Unified */
    double size_bytes;        /* one instance */
    int instances;            /* how many of it the machine has */
    int cpus_sharing;         /* CPUs per instance */
};

struct machine_cpu {
    char model[256];          /* "AMD EPYC", "10x Cortex-X925 + 10x Cortex-A725" */
    char arch[32];            /* uname machine */
    int ncpus;                /* online logical CPUs */
    struct machine_cache caches[MACHINE_MAX_CACHES];
    int ncaches;
    const char *cache_source; /* "sysfs", "getconf", "assumed" */
    int nclusters;
    char clusters[MACHINE_MAX_CLUSTERS][128];   /* CPU lists, e.g. "0-9" */
    int nkinds;               /* kinds of core, fastest first (cpu_capacity, else the core's
                                 class); 0 when /proc/cpuinfo names none (x86) */
    struct machine_kind kinds[MACHINE_MAX_KINDS];
    int nplace;               /* 2 kinds or more: every CPU, in the order threads are pinned: */
    int place[MACHINE_MAX_CPUS];  /* fastest kind first, within a kind one per cluster in turn */
};

void machine_cpu(struct machine_cpu *c);

/* Why this process runs under an emulator (qemu-user: an aarch64 build on an x86 host), or NULL
 * when it runs natively as far as can be told: SR_EMULATED in the environment (the arm64 check
 * sets it), or a /proc/cpuinfo of another architecture than the build's. Tests whose premise an
 * emulator changes (an address-space limit also counts the emulator's own mappings) skip then. */
const char *machine_emulated(void);

/* "0-4,10-14" from CPU numbers in ascending order (len bytes, cut to fit). */
void machine_cpulist_format(const int *cpus, int n, char *out, size_t len);

/* Sum of every cache instance that holds data (instruction caches excluded), bytes. */
double machine_cache_total(const struct machine_cpu *c);

/* Aggregate capacity of each data level (bytes), for chart marks; returns levels filled. */
int machine_cache_levels(const struct machine_cpu *c, double per_level[8]);

double machine_mem_total(void);       /* bytes, /proc/meminfo MemTotal */
double machine_mem_available(void);   /* bytes, /proc/meminfo MemAvailable */

/* The free memory a GPU's working sets are sized from, bytes, and in *source which figure it is.
 * On an integrated device (GB10, Jetson: one pool with the CPU) cudaMemGetInfo counts the page
 * cache as used, so the larger of it and MemAvailable; a discrete device's own figure otherwise.
 * NAN figures (refused, unreadable) count as absent. */
double machine_gpu_mem_free(double cuda_free, int integrated, double mem_available, const char **source);

/* The machine's part of the context block (src/measure/context.c): the CPU as c describes it
 * (model, cores, kinds, clusters, caches, sources), and the OS (kernel, distribution). */
cJSON *machine_cpu_json(const struct machine_cpu *c);
cJSON *machine_os_json(void);

/* Reads /sys, /proc and /etc below dir instead of / (tests use fixture trees); NULL: /. */
void machine_set_root(const char *dir);

/* CPU list "0-3,8" -> count of CPUs; -1 if malformed. */
int machine_cpulist_count(const char *list);

#ifdef __cplusplus
}
#endif

#endif
