/* env.h: the machine a run measures: CPU, caches, clusters, kinds of core, memory, OS, read
 * from sysfs and /proc where Linux offers them, with the source of each figure recorded (the
 * context block adds the build and CUDA: src/measure/context.h); and the check of the
 * environment variables the OpenMP and BLAS libraries read. */
#ifndef SR_ENV_H
#define SR_ENV_H

#include <cjson/cJSON.h>

#ifdef __cplusplus
extern "C" {                /* cuda_env.cu asks env_gpu_mem_free */
#endif

/* The most threads anything takes: every experiment's `threads` parameter stops here, and so
 * do the variables the OpenMP and BLAS libraries read (env_check_threads). */
#define ENV_MAX_THREADS 4096
#define ENV_MAX_STACKSIZE ((double)(1 << 30))      /* OMP_STACKSIZE: bytes per thread */

/* The variables that reach the OpenMP and BLAS libraries (OMP_NUM_THREADS, OMP_THREAD_LIMIT,
 * OMP_STACKSIZE, OPENBLAS_NUM_THREADS, GOTO_NUM_THREADS), checked before anything runs:
 * libgomp parsed them when it loaded and would start 65536 threads, or fail inside a
 * measurement. -1 with "OMP_NUM_THREADS=65536: at most 4096 threads ...", naming the variable. */
int env_check_threads(char *err, size_t errlen);

#define ENV_MAX_CACHES 16
#define ENV_MAX_CLUSTERS 64
#define ENV_MAX_KINDS 8
#define ENV_MAX_CPUS 1024

/* One kind of core of a heterogeneous CPU (GB10: Cortex-X925 and Cortex-A725). */
struct env_kind {
    char name[48];            /* "Cortex-X925", from the MIDR part in /proc/cpuinfo */
    char cpus[128];           /* its CPUs as a list, "0-4,10-14" */
    int count;
    double capacity;          /* sysfs cpu_capacity (1024 = the fastest core), 0 when not reported */
};

struct env_cache {
    int level;
    char type[16];            /* Data, Instruction, Unified */
    double size_bytes;        /* one instance */
    int instances;            /* how many of it the machine has */
    int cpus_sharing;         /* CPUs per instance */
};

struct env_cpu {
    char model[256];          /* "AMD EPYC", "10x Cortex-X925 + 10x Cortex-A725" */
    char arch[32];            /* uname machine */
    int ncpus;                /* online logical CPUs */
    struct env_cache caches[ENV_MAX_CACHES];
    int ncaches;
    const char *cache_source; /* "sysfs", "getconf", "assumed" */
    int nclusters;
    char clusters[ENV_MAX_CLUSTERS][128];   /* CPU lists, e.g. "0-9" */
    int nkinds;               /* kinds of core, fastest first (cpu_capacity, else the core's
                                 class); 0 when /proc/cpuinfo names none (x86) */
    struct env_kind kinds[ENV_MAX_KINDS];
    int nplace;               /* 2 kinds or more: every CPU, in the order threads are pinned: */
    int place[ENV_MAX_CPUS];  /* fastest kind first, within a kind one per cluster in turn */
};

void env_cpu(struct env_cpu *c);

/* Why this process runs under an emulator (qemu-user: an aarch64 build on an x86 host), or NULL
 * when it runs natively as far as can be told: SR_EMULATED in the environment (the arm64 check
 * sets it), or a /proc/cpuinfo of another architecture than the build's. Tests whose premise an
 * emulator changes (an address-space limit also counts the emulator's own mappings) skip then. */
const char *env_emulated(void);

/* "0-4,10-14" from CPU numbers in ascending order (len bytes, cut to fit). */
void env_cpulist_format(const int *cpus, int n, char *out, size_t len);

/* Sum of every cache instance that holds data (instruction caches excluded), bytes. */
double env_cache_total(const struct env_cpu *c);

/* Aggregate capacity of each data level (bytes), for chart marks; returns levels filled. */
int env_cache_levels(const struct env_cpu *c, double per_level[8]);

double env_mem_total(void);       /* bytes, /proc/meminfo MemTotal */
double env_mem_available(void);   /* bytes, /proc/meminfo MemAvailable */

/* The free memory a GPU's working sets are sized from, bytes, and in *source which figure it is.
 * On an integrated device (GB10, Jetson: one pool with the CPU) cudaMemGetInfo counts the page
 * cache as used, so the larger of it and MemAvailable; a discrete device's own figure otherwise.
 * NAN figures (refused, unreadable) count as absent. */
double env_gpu_mem_free(double cuda_free, int integrated, double mem_available, const char **source);

/* The machine's part of the context block (src/measure/context.c): the CPU as c describes it
 * (model, cores, kinds, clusters, caches, sources), and the OS (kernel, distribution). */
cJSON *env_cpu_json(const struct env_cpu *c);
cJSON *env_os_json(void);

/* Reads /sys, /proc and /etc below dir instead of / (tests use fixture trees); NULL: /. */
void env_set_root(const char *dir);

/* CPU list "0-3,8" -> count of CPUs; -1 if malformed. */
int env_cpulist_count(const char *list);

#ifdef __cplusplus
}
#endif

#endif
