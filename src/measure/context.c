/* context.c: what a run was measured on, for the results document's context block: the host,
 * this tool's version, the machine (util/machine.h: CPU, caches, memory, OS), the build (compiler,
 * flags, OpenMP, the libraries' versions, the BLAS) and CUDA (cuda_probe's answer). */
#include "measure/context.h"

#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cblas.h>
#include <hpdf.h>
#include <lua.h>

#include "config.h"
#include "cuda/cuda.h"
#include "gitrev.h"
#include "util/isa.h"
#include "util/machine.h"

static cJSON *blas_json(void)
{
    cJSON *o = cJSON_CreateObject();
#ifdef HAVE_OPENBLAS_GET_CONFIG
    cJSON_AddStringToObject(o, "name", "OpenBLAS");
    cJSON_AddStringToObject(o, "config", openblas_get_config());
#else
    cJSON_AddStringToObject(o, "name", "CBLAS (unknown implementation)");
#endif
#ifdef HAVE_OPENBLAS_GET_PARALLEL
    static const char *models[] = { "sequential", "pthreads", "openmp" };
    int p = openblas_get_parallel();
    cJSON_AddStringToObject(o, "threading", p >= 0 && p <= 2 ? models[p] : "unknown");
#endif
#ifdef HAVE_OPENBLAS_GET_NUM_THREADS
    cJSON_AddNumberToObject(o, "threads", openblas_get_num_threads());
#endif
    return o;
}

static cJSON *cuda_json(void)
{
    struct cuda_info ci;
    cuda_probe(&ci);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddBoolToObject(o, "built", ci.built);
    /* what a reader must not confuse, in one word; versions 13000 = 13.0, driver 0 = none loaded */
    cJSON_AddStringToObject(o, "status", !ci.built ? "built without CUDA" : ci.ndev > 0 ? "device"
                            : strncmp(ci.reason, "CUDA driver too old", 19) == 0 ? "driver too old" : "no CUDA device");
    if (ci.built)
        cJSON_AddNumberToObject(o, "driver_version", ci.driver_version);
    if (ci.runtime_version)
        cJSON_AddNumberToObject(o, "runtime_version", ci.runtime_version);
    if (ci.cublaslt_version)
        cJSON_AddNumberToObject(o, "cublaslt_version", (double)ci.cublaslt_version);
    cJSON *devs = cJSON_AddArrayToObject(o, "devices");
    for (int i = 0; i < ci.ndev; i++) {
        const struct cuda_device *d = &ci.dev[i];
        cJSON *j = cJSON_CreateObject();
        char cc[16];
        cJSON_AddStringToObject(j, "name", d->name);
        snprintf(cc, sizeof cc, "%d.%d", d->major, d->minor);
        cJSON_AddStringToObject(j, "compute_capability", cc);
        cJSON_AddNumberToObject(j, "sms", d->sms);
        cJSON_AddNumberToObject(j, "clock_khz", d->clock_khz);
        cJSON_AddNumberToObject(j, "mem_clock_khz", d->mem_clock_khz);
        cJSON_AddNumberToObject(j, "bus_width_bits", d->bus_width_bits);
        cJSON_AddNumberToObject(j, "l2_bytes", d->l2_bytes);
        if (!isnan(d->mem_total_bytes))
            cJSON_AddNumberToObject(j, "mem_total_bytes", d->mem_total_bytes);
        if (!isnan(d->mem_free_bytes) && d->mem_free_source) {
            cJSON_AddNumberToObject(j, "mem_free_bytes", d->mem_free_bytes);
            cJSON_AddStringToObject(j, "mem_free_source", d->mem_free_source);
        }
        cJSON_AddBoolToObject(j, "pageable_memory_access", d->pageable_access);
        cJSON_AddBoolToObject(j, "integrated", d->integrated);
        cJSON_AddItemToArray(devs, j);
    }
    if (ci.ndev == 0)
        cJSON_AddStringToObject(o, "reason", ci.reason);
    return o;
}

static cJSON *build_json(void)
{
    cJSON *o = cJSON_CreateObject();
    char omp[64];
    const char *e;
    cJSON_AddStringToObject(o, "compiler", SR_CC " " __VERSION__);
    cJSON_AddStringToObject(o, "cflags", SR_CFLAGS);
    cJSON_AddStringToObject(o, "isa", ISA_BUILD_WORDS);
    snprintf(omp, sizeof omp, "%d", _OPENMP);
    cJSON_AddStringToObject(o, "openmp_version", omp);
    cJSON_AddNumberToObject(o, "openmp_max_threads", omp_get_max_threads());
    cJSON *envs = cJSON_AddObjectToObject(o, "openmp_env");
    static const char *names[] = { "OMP_NUM_THREADS", "OMP_PROC_BIND", "OMP_PLACES", "OPENBLAS_NUM_THREADS" };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if ((e = getenv(names[i])) != NULL)
            cJSON_AddStringToObject(envs, names[i], e);
    cJSON *lib = cJSON_AddObjectToObject(o, "libraries");
    cJSON_AddStringToObject(lib, "lua", LUA_RELEASE);
    cJSON_AddStringToObject(lib, "libharu", HPDF_VERSION_TEXT);
    cJSON_AddStringToObject(lib, "cjson", cJSON_Version());
    cJSON_AddItemToObject(o, "blas", blas_json());
    return o;
}

cJSON *measure_context(void)
{
    struct machine_cpu cpu;
    char host[256] = "unknown";
    machine_cpu(&cpu);
    gethostname(host, sizeof host - 1);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "host", host);
    cJSON *tool = cJSON_AddObjectToObject(o, "tool");
    cJSON_AddStringToObject(tool, "name", PACKAGE_NAME);
    cJSON_AddStringToObject(tool, "version", PACKAGE_VERSION);
    cJSON_AddStringToObject(tool, "git", SR_GIT_REV);
    cJSON_AddItemToObject(o, "cpu", machine_cpu_json(&cpu));
    cJSON *mem = cJSON_AddObjectToObject(o, "memory");
    cJSON_AddNumberToObject(mem, "total_bytes", machine_mem_total());
    cJSON_AddNumberToObject(mem, "available_bytes", machine_mem_available());
    cJSON_AddItemToObject(o, "os", machine_os_json());
    cJSON_AddItemToObject(o, "build", build_json());
    cJSON_AddItemToObject(o, "cuda", cuda_json());
    return o;
}
