/* info.c: the `info` command: what a run would record about this machine (the context block,
 * src/measure/context.h), as a few lines or as JSON. */
#include "cmd/info.h"

#include <stdio.h>
#include <string.h>

#include "config.h"
#include "gitrev.h"
#include "measure/context.h"
#include "util/env.h"
#include "util/error.h"
#include "util/json.h"
#include "util/units.h"

static const cJSON *at(const cJSON *o, const char *path)
{
    char key[64];
    while (o && *path) {
        size_t n = strcspn(path, ".");
        snprintf(key, sizeof key, "%.*s", (int)n, path);
        o = cJSON_GetObjectItemCaseSensitive(o, key);
        path += n + (path[n] == '.');
    }
    return o;
}

static const char *s_at(const cJSON *o, const char *path)
{
    const cJSON *v = at(o, path);
    return cJSON_IsString(v) ? v->valuestring : "unknown";
}

static void print_caches(const cJSON *cpu)
{
    char b[32];
    printf("%-10s", "caches");
    for (const cJSON *c = at(cpu, "caches") ? at(cpu, "caches")->child : NULL; c; c = c->next)
        printf(" L%.0f %s %s x%.0f;", json_num(c, "level", 0), json_str(c, "type", ""),
               units_format_bytes(json_num(c, "size_bytes", 0), b, sizeof b), json_num(c, "instances", 0));
    printf(" total %s (source: %s)\n", units_format_bytes(json_num(cpu, "caches_total_bytes", 0), b, sizeof b),
           json_str(cpu, "caches_source", "?"));
}

static void print_cuda(const cJSON *cu)
{
    const cJSON *devs = at(cu, "devices");
    char b[32];
    if (!devs || !devs->child) {
        printf("%-10s %s\n", "CUDA", s_at(cu, "reason"));
        return;
    }
    printf("%-10s driver %.0f, runtime %.0f\n", "CUDA", json_num(cu, "driver_version", 0), json_num(cu, "runtime_version", 0));
    for (const cJSON *d = devs->child; d; d = d->next)
        printf("%-10s %s, compute capability %s, %.0f SMs, %s memory\n", "  device", json_str(d, "name", "?"),
               json_str(d, "compute_capability", "?"), json_num(d, "sms", 0),
               units_format_bytes(json_num(d, "mem_total_bytes", 0), b, sizeof b));
}

int info_command(int as_json)
{
    char err[512];
    if (env_check_threads(err, sizeof err) != 0) {     /* before OpenMP starts a thread */
        fprintf(stderr, "sparkreport: %s\n", err);
        return SR_EXIT_USAGE;
    }
    cJSON *c = measure_context();
    if (as_json) {
        char *s = cJSON_Print(c);
        printf("%s\n", s);
        cJSON_free(s);
        cJSON_Delete(c);
        return SR_EXIT_OK;
    }
    char a[32], b[32];
    const cJSON *cpu = at(c, "cpu");
    printf("%-10s %s\n", "host", s_at(c, "host"));
    printf("%-10s %s (%s), %.0f logical CPUs\n", "CPU", s_at(cpu, "model"), s_at(cpu, "arch"), json_num(cpu, "logical_cpus", 0));
    print_caches(cpu);
    printf("%-10s", "clusters");
    for (const cJSON *k = at(cpu, "clusters") ? at(cpu, "clusters")->child : NULL; k; k = k->next)
        printf(" [%s]", k->valuestring);
    printf("\n%-10s %s total, %s available\n", "memory",
           units_format_bytes(json_num(at(c, "memory"), "total_bytes", 0), a, sizeof a),
           units_format_bytes(json_num(at(c, "memory"), "available_bytes", 0), b, sizeof b));
    printf("%-10s %s, kernel %s\n", "OS", s_at(c, "os.name"), s_at(c, "os.kernel"));
    printf("%-10s %s; flags %s\n", "compiler", s_at(c, "build.compiler"), s_at(c, "build.cflags"));
    printf("%-10s version %s, %.0f threads\n", "OpenMP", s_at(c, "build.openmp_version"),
           json_num(at(c, "build"), "openmp_max_threads", 0));
    printf("%-10s %s (%s threading, %.0f threads)\n", "BLAS", s_at(c, "build.blas.config"),
           s_at(c, "build.blas.threading"), json_num(at(c, "build.blas"), "threads", 0));
    print_cuda(at(c, "cuda"));
    printf("%-10s sparkreport %s (git %s)\n", "tool", PACKAGE_VERSION, SR_GIT_REV);
    cJSON_Delete(c);
    return SR_EXIT_OK;
}

