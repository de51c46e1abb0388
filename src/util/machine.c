/* machine.c: reads the machine description from sysfs and /proc.
 * Every reader tolerates absence (containers, VMs and Arm boards often hide things) and says
 * where a figure came from; nothing here aborts a run. */
#include "util/machine.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "config.h"
#include "util/error.h"

/* Where /sys, /proc and /etc are: "" on a real machine, a fixture tree in tests. */
static char root[512];

void machine_set_root(const char *dir)
{
    snprintf(root, sizeof root, "%s", dir ? dir : "");
}

static FILE *open_file(const char *path)
{
    char full[1024];
    snprintf(full, sizeof full, "%s%s", root, path);
    return fopen(full, "r");
}

/* First line of a small text file, trimmed; 0 on success. */
static int read_line(const char *path, char *buf, size_t n)
{
    FILE *f = open_file(path);
    if (!f)
        return -1;
    char *ok = fgets(buf, (int)n, f);
    fclose(f);
    if (!ok)
        return -1;
    size_t len = strlen(buf);
    while (len && isspace((unsigned char)buf[len - 1]))
        buf[--len] = '\0';
    return 0;
}

/* "key : value" from a file like /proc/cpuinfo or /proc/meminfo. */
static int read_field(const char *path, const char *key, char *buf, size_t n)
{
    FILE *f = open_file(path);
    char line[512];
    int found = -1;
    if (!f)
        return -1;
    while (found && fgets(line, sizeof line, f)) {
        size_t k = strlen(key);
        if (strncmp(line, key, k) != 0 || (line[k] != ':' && !isspace((unsigned char)line[k])))
            continue;
        char *v = strchr(line, ':');
        if (!v)
            continue;
        for (v++; isspace((unsigned char)*v); v++)
            ;
        snprintf(buf, n, "%s", v);
        buf[strcspn(buf, "\n")] = '\0';
        found = 0;
    }
    fclose(f);
    return found;
}

int machine_cpulist_count(const char *s)
{
    int count = 0;
    while (*s && *s != '\n') {
        char *end;
        long a = strtol(s, &end, 10), b;
        if (end == s || a < 0)
            return -1;
        b = a;
        if (*end == '-') {
            s = end + 1;
            b = strtol(s, &end, 10);
            if (end == s || b < a)
                return -1;
        }
        count += (int)(b - a + 1);
        s = end;
        if (*s == ',')
            s++;
        else if (*s && *s != '\n')
            return -1;
    }
    return count;
}

static double parse_cache_size(const char *s)
{
    char *end;
    double v = strtod(s, &end);
    if (*end == 'K')
        v *= 1024;
    else if (*end == 'M')
        v *= 1048576;
    return v;
}

/* Cache instances already counted, keyed by level, type and the CPUs sharing them. */
struct seen_caches {
    char key[MACHINE_MAX_CACHES * 16][160];
    int n;
};

static void add_cache(struct machine_cpu *c, struct seen_caches *seen, int level, const char *type,
                      double size, const char *shared)
{
    char key[160];
    snprintf(key, sizeof key, "%d/%s/%s", level, type, shared);
    for (int i = 0; i < seen->n; i++)
        if (strcmp(seen->key[i], key) == 0)
            return;     /* the same instance, reached through another CPU */
    if (seen->n < MACHINE_MAX_CACHES * 16)
        snprintf(seen->key[seen->n++], sizeof seen->key[0], "%s", key);
    for (int i = 0; i < c->ncaches; i++) {
        struct machine_cache *e = &c->caches[i];
        if (e->level == level && strcmp(e->type, type) == 0 && e->size_bytes == size) {
            e->instances++;
            return;
        }
    }
    if (c->ncaches == MACHINE_MAX_CACHES)
        return;
    struct machine_cache *e = &c->caches[c->ncaches++];
    e->level = level;
    snprintf(e->type, sizeof e->type, "%s", type);
    e->size_bytes = size;
    e->instances = 1;
    e->cpus_sharing = machine_cpulist_count(shared);
}

static void caches_from_sysfs(struct machine_cpu *c)
{
    struct seen_caches *seen = xcalloc(1, sizeof *seen);
    c->ncaches = 0;
    for (int cpu = 0; cpu < c->ncpus; cpu++) {
        for (int idx = 0; idx < 16; idx++) {
            char path[160], lvl[16], type[32] = "Unified", size[32], shared[128];
            snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/cache/index%d/", cpu, idx);
            char *tail = path + strlen(path);
            strcpy(tail, "level");
            if (read_line(path, lvl, sizeof lvl) != 0)
                break;
            strcpy(tail, "type");
            read_line(path, type, sizeof type);
            strcpy(tail, "size");
            if (read_line(path, size, sizeof size) != 0)
                continue;
            strcpy(tail, "shared_cpu_list");
            if (read_line(path, shared, sizeof shared) != 0)
                snprintf(shared, sizeof shared, "%d", cpu);
            add_cache(c, seen, atoi(lvl), type, parse_cache_size(size), shared);
        }
    }
    free(seen);
}

static void caches_from_getconf(struct machine_cpu *c)
{
    long l1 = sysconf(_SC_LEVEL1_DCACHE_SIZE), l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
    long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
    c->ncaches = 0;
    if (l1 > 0) {
        c->caches[c->ncaches] = (struct machine_cache){ 1, "Data", (double)l1, c->ncpus, 1 };
        c->ncaches++;
    }
    if (l2 > 0) {
        c->caches[c->ncaches] = (struct machine_cache){ 2, "Unified", (double)l2, c->ncpus, 1 };
        c->ncaches++;
    }
    if (l3 > 0) {
        c->caches[c->ncaches] = (struct machine_cache){ 3, "Unified", (double)l3, 1, c->ncpus };
        c->ncaches++;
    }
}

static void caches_assumed(struct machine_cpu *c)
{
    c->ncaches = 3;
    c->caches[0] = (struct machine_cache){ 1, "Data", 64 * 1024.0, c->ncpus, 1 };
    c->caches[1] = (struct machine_cache){ 2, "Unified", 1048576.0, c->ncpus, 1 };
    c->caches[2] = (struct machine_cache){ 3, "Unified", 32 * 1048576.0, 1, c->ncpus };
}

/* Arm cores are named by MIDR part number in /proc/cpuinfo ("CPU part : 0xd85"). */
static const char *arm_part_name(unsigned implementer, unsigned part)
{
    static const struct { unsigned impl, part; const char *name; } parts[] = {
        { 0x41, 0xd0c, "Neoverse-N1" }, { 0x41, 0xd40, "Neoverse-V1" }, { 0x41, 0xd49, "Neoverse-N2" },
        { 0x41, 0xd4f, "Neoverse-V2" }, { 0x41, 0xd84, "Neoverse-V3" }, { 0x41, 0xd8e, "Neoverse-N3" },
        { 0x41, 0xd85, "Cortex-X925" }, { 0x41, 0xd87, "Cortex-A725" }, { 0x41, 0xd81, "Cortex-A720" },
        { 0x41, 0xd82, "Cortex-X4" }, { 0x41, 0xd80, "Cortex-A520" }, { 0x41, 0xd0b, "Cortex-A76" },
        { 0x41, 0xd08, "Cortex-A72" }, { 0x41, 0xd03, "Cortex-A53" }, { 0x61, 0x000, "Apple" },
    };
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
        if (parts[i].impl == implementer && parts[i].part == part)
            return parts[i].name;
    return NULL;
}

static void arm_model(struct machine_cpu *c)
{
    FILE *f = open_file("/proc/cpuinfo");
    char line[256], names[8][48];
    int counts[8] = { 0 }, nn = 0;
    unsigned impl = 0;
    if (!f)
        return;
    while (fgets(line, sizeof line, f)) {
        char *v = strchr(line, ':');
        if (!v)
            continue;
        if (strncmp(line, "CPU implementer", 15) == 0)
            impl = (unsigned)strtoul(v + 1, NULL, 0);
        if (strncmp(line, "CPU part", 8) != 0)
            continue;
        unsigned part = (unsigned)strtoul(v + 1, NULL, 0);
        const char *nm = arm_part_name(impl, part);
        char buf[48];
        snprintf(buf, sizeof buf, "%s", nm ? nm : "Arm core");
        if (!nm)
            snprintf(buf, sizeof buf, "part 0x%x/0x%x", impl, part);
        int k = 0;
        while (k < nn && strcmp(names[k], buf) != 0)
            k++;
        if (k == nn && nn < 8)
            snprintf(names[nn++], sizeof names[0], "%s", buf);
        if (k < 8)
            counts[k]++;
    }
    fclose(f);
    size_t o = 0;
    for (int k = 0; k < nn && o < sizeof c->model; k++)
        o += (size_t)snprintf(c->model + o, sizeof c->model - o, "%s%dx %s", k ? " + " : "", counts[k], names[k]);
}

/* Where a core's class puts it when sysfs gives no capacity: 3 the performance cores (Cortex-X,
 * Neoverse-V), 2 the mid cores, 1 the efficiency cores, 0 unknown. */
static int arm_class(const char *name)
{
    static const char *const big[] = { "Cortex-X", "Neoverse-V" }, *const small[] = { "Cortex-A5", "Cortex-A3" };
    for (size_t i = 0; i < 2; i++)
        if (strncmp(name, big[i], strlen(big[i])) == 0)
            return 3;
    for (size_t i = 0; i < 2; i++)
        if (strncmp(name, small[i], strlen(small[i])) == 0)
            return 1;
    return strncmp(name, "Cortex-", 7) == 0 || strncmp(name, "Neoverse-", 9) == 0 ? 2 : 0;
}

void machine_cpulist_format(const int *cpus, int n, char *out, size_t len)
{
    size_t o = 0;
    out[0] = '\0';
    for (int i = 0; i < n && o < len; ) {
        int j = i;
        while (j + 1 < n && cpus[j + 1] == cpus[j] + 1)
            j++;
        o += (size_t)(j > i ? snprintf(out + o, len - o, "%s%d-%d", o ? "," : "", cpus[i], cpus[j])
                            : snprintf(out + o, len - o, "%s%d", o ? "," : "", cpus[i]));
        i = j + 1;
    }
}

/* The kind of each CPU from /proc/cpuinfo ("processor : N" then its "CPU part"); -1 unnamed. */
static int cpu_kinds(struct machine_cpu *c, int *kind_of, int ncpu)
{
    FILE *f = open_file("/proc/cpuinfo");
    char line[256];
    int cpu = -1, named = 0;
    unsigned impl = 0;
    for (int i = 0; i < ncpu; i++)
        kind_of[i] = -1;
    if (!f)
        return 0;
    while (fgets(line, sizeof line, f)) {
        char *v = strchr(line, ':');
        if (!v)
            continue;
        if (strncmp(line, "processor", 9) == 0)
            cpu = atoi(v + 1);
        if (strncmp(line, "CPU implementer", 15) == 0)
            impl = (unsigned)strtoul(v + 1, NULL, 0);
        if (strncmp(line, "CPU part", 8) != 0 || cpu < 0 || cpu >= ncpu)
            continue;
        unsigned part = (unsigned)strtoul(v + 1, NULL, 0);
        const char *nm = arm_part_name(impl, part);
        char buf[48];
        if (nm)
            snprintf(buf, sizeof buf, "%s", nm);
        else
            snprintf(buf, sizeof buf, "part 0x%x/0x%x", impl, part);
        int k = 0;
        while (k < c->nkinds && strcmp(c->kinds[k].name, buf) != 0)
            k++;
        if (k == c->nkinds && c->nkinds < MACHINE_MAX_KINDS)
            snprintf(c->kinds[c->nkinds++].name, sizeof c->kinds[0].name, "%s", buf);
        kind_of[cpu] = k < c->nkinds ? k : -1;
        named++;
    }
    fclose(f);
    return named;
}

static int kind_faster(const struct machine_kind *a, const struct machine_kind *b)
{
    if (a->capacity != b->capacity)
        return a->capacity > b->capacity;
    return arm_class(a->name) > arm_class(b->name);
}

/* Core kinds (fastest first) with their CPUs, and on a heterogeneous CPU the pinning order:
 * the fastest kind's CPUs first, one per cluster in turn (so two threads use two clusters'
 * caches), then the next kind's. One thread then runs on a fast core, not where the scheduler
 * happens to put it. */
static void core_kinds(struct machine_cpu *c)
{
    static int kind_of[MACHINE_MAX_CPUS], cluster_of[MACHINE_MAX_CPUS];
    int n = c->ncpus < MACHINE_MAX_CPUS ? c->ncpus : MACHINE_MAX_CPUS;
    c->nkinds = c->nplace = 0;
    if (cpu_kinds(c, kind_of, n) == 0)
        return;
    for (int k = 0; k < c->nkinds; k++) {
        int list[MACHINE_MAX_CPUS], m = 0;
        for (int cpu = 0; cpu < n; cpu++) {
            char path[128], buf[64];
            if (kind_of[cpu] != k)
                continue;
            list[m++] = cpu;
            snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/cpu_capacity", cpu);
            if (read_line(path, buf, sizeof buf) == 0)
                c->kinds[k].capacity = fmax(c->kinds[k].capacity, strtod(buf, NULL));
        }
        c->kinds[k].count = m;
        machine_cpulist_format(list, m, c->kinds[k].cpus, sizeof c->kinds[k].cpus);
    }
    for (int i = 1; i < c->nkinds; i++)             /* insertion sort, fastest first */
        for (int j = i; j > 0 && kind_faster(&c->kinds[j], &c->kinds[j - 1]); j--) {
            struct machine_kind t = c->kinds[j];
            c->kinds[j] = c->kinds[j - 1];
            c->kinds[j - 1] = t;
            for (int cpu = 0; cpu < n; cpu++)
                kind_of[cpu] = kind_of[cpu] == j ? j - 1 : kind_of[cpu] == j - 1 ? j : kind_of[cpu];
        }
    if (c->nkinds < 2)
        return;
    for (int cpu = 0; cpu < n; cpu++) {
        char path[128], list[128];
        cluster_of[cpu] = 0;
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/topology/cluster_cpus_list", cpu);
        for (int q = 0; read_line(path, list, sizeof list) == 0 && q < c->nclusters; q++)
            if (strcmp(c->clusters[q], list) == 0)
                cluster_of[cpu] = q;
    }
    for (int k = 0; k < c->nkinds; k++) {
        int taken = 0;
        for (int round = 0; taken < c->kinds[k].count && round < n; round++)   /* the round-th CPU of each cluster */
            for (int q = 0; q < (c->nclusters ? c->nclusters : 1); q++) {
                int seen = 0;
                for (int cpu = 0; cpu < n; cpu++) {
                    if (kind_of[cpu] != k || cluster_of[cpu] != q || seen++ != round)
                        continue;
                    c->place[c->nplace++] = cpu;
                    taken++;
                    break;
                }
            }
    }
}

static void clusters(struct machine_cpu *c)
{
    c->nclusters = 0;
    for (int cpu = 0; cpu < c->ncpus; cpu++) {
        char path[128], list[128];
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/topology/cluster_cpus_list", cpu);
        if (read_line(path, list, sizeof list) != 0)
            return;
        int k = 0;
        while (k < c->nclusters && strcmp(c->clusters[k], list) != 0)
            k++;
        if (k == c->nclusters && c->nclusters < MACHINE_MAX_CLUSTERS)
            snprintf(c->clusters[c->nclusters++], sizeof c->clusters[0], "%s", list);
    }
}

const char *machine_emulated(void)
{
    static char why[160];
    const char *e = getenv("SR_EMULATED");
    if (e && *e) {
        snprintf(why, sizeof why, "running under emulation (SR_EMULATED=%.100s)", e);
        return why;
    }
    FILE *f = fopen("/proc/cpuinfo", "r");      /* the machine's own, never a fixture's */
    char line[256];
    int x86 = 0, arm = 0;
    while (f && fgets(line, sizeof line, f) && !(x86 || arm)) {
        x86 |= strncmp(line, "vendor_id", 9) == 0;
        arm |= strncmp(line, "CPU implementer", 15) == 0;
    }
    if (f)
        fclose(f);
#if defined(__aarch64__)
    if (x86) {
        snprintf(why, sizeof why, "running under emulation: this aarch64 program sees an x86 host's /proc/cpuinfo");
        return why;
    }
#elif defined(__x86_64__)
    if (arm) {
        snprintf(why, sizeof why, "running under emulation: this x86-64 program sees an Arm host's /proc/cpuinfo");
        return why;
    }
#endif
    (void)x86;
    (void)arm;
    return NULL;
}

void machine_cpu(struct machine_cpu *c)
{
    struct utsname u;
    char online[256];
    memset(c, 0, sizeof *c);
    if (read_line("/sys/devices/system/cpu/online", online, sizeof online) == 0)
        c->ncpus = machine_cpulist_count(online);
    else
        c->ncpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
    if (c->ncpus < 1)
        c->ncpus = 1;
    if (uname(&u) == 0)
        snprintf(c->arch, sizeof c->arch, "%.31s", u.machine);
    if (read_field("/proc/cpuinfo", "model name", c->model, sizeof c->model) != 0)
        arm_model(c);
    if (!c->model[0])
        snprintf(c->model, sizeof c->model, "unknown %s CPU", c->arch);
    caches_from_sysfs(c);
    c->cache_source = "sysfs";
    if (c->ncaches == 0) {
        caches_from_getconf(c);
        c->cache_source = "getconf (CPUID; in a VM it may describe the host)";
    }
    if (c->ncaches == 0) {
        caches_assumed(c);
        c->cache_source = "assumed (neither sysfs nor getconf report caches)";
    }
    clusters(c);
    core_kinds(c);
}

double machine_cache_total(const struct machine_cpu *c)
{
    double t = 0;
    for (int i = 0; i < c->ncaches; i++)
        if (strcmp(c->caches[i].type, "Instruction") != 0)
            t += c->caches[i].size_bytes * c->caches[i].instances;
    return t;
}

int machine_cache_levels(const struct machine_cpu *c, double per_level[8])
{
    int top = 0;
    for (int l = 0; l < 8; l++)
        per_level[l] = 0;
    for (int i = 0; i < c->ncaches; i++) {
        const struct machine_cache *e = &c->caches[i];
        if (strcmp(e->type, "Instruction") == 0 || e->level < 1 || e->level > 8)
            continue;
        per_level[e->level - 1] += e->size_bytes * e->instances;
        if (e->level > top)
            top = e->level;
    }
    return top;
}

static double meminfo(const char *key)
{
    char buf[64];
    if (read_field("/proc/meminfo", key, buf, sizeof buf) != 0)
        return NAN;
    return strtod(buf, NULL) * 1024.0;
}

double machine_mem_total(void) { return meminfo("MemTotal"); }
double machine_mem_available(void) { return meminfo("MemAvailable"); }

double machine_gpu_mem_free(double cuda_free, int integrated, double mem_available, const char **source)
{
    *source = "cudaMemGetInfo";
    if (integrated && isfinite(mem_available) && !(cuda_free >= mem_available)) {
        *source = "MemAvailable (integrated device: cudaMemGetInfo counts the page cache as used)";
        return mem_available;
    }
    return cuda_free;
}

static void add_str_if(cJSON *o, const char *key, const char *path)
{
    char buf[256];
    if (read_line(path, buf, sizeof buf) == 0 && buf[0])
        cJSON_AddStringToObject(o, key, buf);
}

cJSON *machine_cpu_json(const struct machine_cpu *c)
{
    cJSON *o = cJSON_CreateObject();
    char buf[128];
    cJSON_AddStringToObject(o, "model", c->model);
    cJSON_AddStringToObject(o, "arch", c->arch);
    cJSON_AddNumberToObject(o, "logical_cpus", c->ncpus);
    cJSON *caches = cJSON_AddArrayToObject(o, "caches");
    for (int i = 0; i < c->ncaches; i++) {
        const struct machine_cache *e = &c->caches[i];
        cJSON *ce = cJSON_CreateObject();
        cJSON_AddNumberToObject(ce, "level", e->level);
        cJSON_AddStringToObject(ce, "type", e->type);
        cJSON_AddNumberToObject(ce, "size_bytes", e->size_bytes);
        cJSON_AddNumberToObject(ce, "instances", e->instances);
        cJSON_AddNumberToObject(ce, "cpus_sharing", e->cpus_sharing);
        cJSON_AddItemToArray(caches, ce);
    }
    cJSON_AddStringToObject(o, "caches_source", c->cache_source);
    cJSON_AddNumberToObject(o, "caches_total_bytes", machine_cache_total(c));
    cJSON *cl = cJSON_AddArrayToObject(o, "clusters");
    for (int i = 0; i < c->nclusters; i++)
        cJSON_AddItemToArray(cl, cJSON_CreateString(c->clusters[i]));
    if (c->nkinds >= 2) {                       /* heterogeneous: which cores are which, fastest first */
        cJSON *ks = cJSON_AddArrayToObject(o, "core_kinds");
        for (int i = 0; i < c->nkinds; i++) {
            cJSON *k = cJSON_CreateObject();
            cJSON_AddStringToObject(k, "name", c->kinds[i].name);
            cJSON_AddStringToObject(k, "cpus", c->kinds[i].cpus);
            if (c->kinds[i].capacity > 0)
                cJSON_AddNumberToObject(k, "capacity", c->kinds[i].capacity);
            cJSON_AddItemToArray(ks, k);
        }
    }
    add_str_if(o, "governor", "/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor");
    if (read_line("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq", buf, sizeof buf) == 0)
        cJSON_AddNumberToObject(o, "max_mhz", strtod(buf, NULL) / 1000.0);
    return o;
}

cJSON *machine_os_json(void)
{
    cJSON *o = cJSON_CreateObject();
    struct utsname u;
    FILE *f = open_file("/etc/os-release");
    char line[256];
    while (f && fgets(line, sizeof line, f)) {
        if (strncmp(line, "PRETTY_NAME=", 12) != 0)
            continue;
        char *v = line + 12;
        v[strcspn(v, "\n")] = '\0';
        if (*v == '"') {
            v++;
            v[strcspn(v, "\"")] = '\0';
        }
        cJSON_AddStringToObject(o, "name", v);
    }
    if (f)
        fclose(f);
    if (uname(&u) == 0) {
        cJSON_AddStringToObject(o, "kernel", u.release);
        cJSON_AddStringToObject(o, "kernel_build", u.version);
    }
    cJSON *dmi = cJSON_AddObjectToObject(o, "board");
    add_str_if(dmi, "vendor", "/sys/class/dmi/id/sys_vendor");
    add_str_if(dmi, "product", "/sys/class/dmi/id/product_name");
    add_str_if(dmi, "firmware", "/sys/class/dmi/id/bios_version");
    add_str_if(dmi, "model", "/sys/firmware/devicetree/base/model");
    return o;
}
