/* test_env.c: the machine description read from a fixture tree shaped like a GB10 (two
 * clusters of five Cortex-X925 and five Cortex-A725 cores, private L1/L2, one L3 per
 * cluster): core names, cache instances counted once, totals, clusters; the kinds of core,
 * fastest first, and the order threads are pinned in, and the bandwidth family's thread-scaling
 * plan on it (issue 26: thread placement and per-cluster rates on GB10); and the fallback
 * when sysfs lists no caches; the free memory a GPU is sized from (integrated: the larger of
 * cudaMemGetInfo and MemAvailable). */
#include <math.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "check.h"
#include "exp/bandwidth/bandwidth_int.h"
#include "util/machine.h"
#include "util/param.h"
#include "util/fsutil.h"

static void put(const char *root, const char *rel, const char *text)
{
    char path[1024], err[256], dir[1024];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    snprintf(dir, sizeof dir, "%s", path);
    *strrchr(dir, '/') = '\0';
    if (fs_mkdir_p(dir, err, sizeof err) != 0 || fs_write_atomic(path, text, strlen(text), err, sizeof err) != 0)
        printf("fixture: %s\n", err);
}

static void gb10_tree(const char *root, int capacity)
{
    char rel[256], cpuinfo[8192] = "";
    put(root, "sys/devices/system/cpu/online", "0-19\n");
    for (int cpu = 0; cpu < 20; cpu++) {
        int big = cpu % 10 < 5, cluster = cpu / 10;
        char self[8];
        snprintf(self, sizeof self, "%d\n", cpu);
        const char *l3list = cluster ? "10-19\n" : "0-9\n";
        static const char *files[4][3] = { { "1", "Data", "64K" }, { "1", "Instruction", "64K" },
                                           { "2", "Unified", NULL }, { "3", "Unified", NULL } };
        for (int i = 0; i < 4; i++) {
            const char *size = files[i][2] ? files[i][2] : i == 2 ? (big ? "2048K" : "512K") : (cluster ? "8192K" : "16384K");
            snprintf(rel, sizeof rel, "sys/devices/system/cpu/cpu%d/cache/index%d/level", cpu, i);
            put(root, rel, files[i][0]);
            snprintf(rel, sizeof rel, "sys/devices/system/cpu/cpu%d/cache/index%d/type", cpu, i);
            put(root, rel, files[i][1]);
            snprintf(rel, sizeof rel, "sys/devices/system/cpu/cpu%d/cache/index%d/size", cpu, i);
            put(root, rel, size);
            snprintf(rel, sizeof rel, "sys/devices/system/cpu/cpu%d/cache/index%d/shared_cpu_list", cpu, i);
            put(root, rel, i == 3 ? l3list : self);
        }
        snprintf(rel, sizeof rel, "sys/devices/system/cpu/cpu%d/topology/cluster_cpus_list", cpu);
        put(root, rel, l3list);
        if (capacity) {
            snprintf(rel, sizeof rel, "sys/devices/system/cpu/cpu%d/cpu_capacity", cpu);
            put(root, rel, big ? "1024\n" : "681\n");
        }
        snprintf(cpuinfo + strlen(cpuinfo), sizeof cpuinfo - strlen(cpuinfo),
                 "processor\t: %d\nCPU implementer\t: 0x41\nCPU part\t: %s\n\n", cpu, big ? "0xd85" : "0xd87");
    }
    put(root, "proc/cpuinfo", cpuinfo);
}

/* GB10's kinds of core and the pinning order; then the bandwidth family's scaling series on it. */
static void gb10_kinds(const struct machine_cpu *c, double capacity)
{
    static const int order[20] = { 0, 10, 1, 11, 2, 12, 3, 13, 4, 14, 5, 15, 6, 16, 7, 17, 8, 18, 9, 19 };
    char err[256], first[128];
    EXPECT(c->nkinds == 2);
    EXPECT_STR(c->kinds[0].name, "Cortex-X925");        /* the fast cores first */
    EXPECT_STR(c->kinds[0].cpus, "0-4,10-14");
    EXPECT_STR(c->kinds[1].name, "Cortex-A725");
    EXPECT_STR(c->kinds[1].cpus, "5-9,15-19");
    EXPECT(c->kinds[0].count == 10 && c->kinds[1].count == 10);
    EXPECT_NEAR(c->kinds[0].capacity, capacity, 0);
    EXPECT(c->nplace == 20);
    for (int i = 0; i < 20 && c->nplace == 20; i++)
        EXPECT(c->place[i] == order[i]);

    cJSON *g = cJSON_Parse("{\"threads\": \"sweep\"}");
    cJSON *params = param_check("bandwidth", bw_params, g, err, sizeof err);
    struct bw_plan *pl = calloc(1, sizeof *pl);
    EXPECT(params && pl);
    pl->tmax = 20;
    pl->skipped = cJSON_CreateArray();
    bw_plan_threads(pl, params, c);
    EXPECT(pl->nscale == 5);                        /* threads, X925, A725, two sysfs clusters */
    const struct bw_scaling *s = pl->scale;
    EXPECT_STR(s[0].series, "threads");
    EXPECT(s[0].pinned == 20 && s[0].cpus[0] == 0 && s[0].cpus[1] == 10 && s[0].cpus[9] == 14 && s[0].cpus[10] == 5);
    EXPECT_STR(bw_first_cpus(s[0].cpus, 1, first, sizeof first), "0");          /* one thread: a fast core */
    EXPECT_STR(bw_first_cpus(s[0].cpus, 4, first, sizeof first), "0-1,10-11");  /* both clusters */
    EXPECT_STR(bw_first_cpus(s[0].cpus, 10, first, sizeof first), "0-4,10-14"); /* every fast core */
    EXPECT(s[0].ncounts == 6 && s[0].counts[0] == 1 && s[0].counts[5] == 20);
    EXPECT_STR(s[1].series, "cluster");
    EXPECT_STR(s[1].cpulist, "0-4,10-14");
    EXPECT(s[1].cpus[0] == 0 && s[1].cpus[1] == 10 && s[1].ncounts == 5 && s[1].counts[4] == 10);
    EXPECT_STR(s[2].cpulist, "5-9,15-19");
    EXPECT(s[2].cpus[0] == 5 && s[2].cpus[1] == 15);
    EXPECT_STR(s[3].cpulist, "0-9");                  /* a mixed cluster: its X925s first */
    EXPECT(s[3].cpus[0] == 0 && s[3].cpus[4] == 4 && s[3].cpus[5] == 5);
    EXPECT_STR(s[4].cpulist, "10-19");
    EXPECT(cJSON_GetArraySize(pl->skipped) == 0);
    cJSON_Delete(pl->skipped);
    free(pl);
    cJSON_Delete(params);
    cJSON_Delete(g);
}

static const struct machine_cache *find(const struct machine_cpu *c, int level, const char *type, double size)
{
    for (int i = 0; i < c->ncaches; i++)
        if (c->caches[i].level == level && !strcmp(c->caches[i].type, type) && c->caches[i].size_bytes == size)
            return &c->caches[i];
    return NULL;
}

/* GB10 reports ~20 GB free through cudaMemGetInfo with 100 GB of page cache it could drop. */
static void gpu_mem_free(const char *root)
{
    const char *src = NULL;
    put(root, "proc/meminfo", "MemTotal:       128000000 kB\nMemAvailable:   100000000 kB\n");
    double avail = machine_mem_available();
    EXPECT_NEAR(avail, 100000000 * 1024.0, 0);
    EXPECT_NEAR(machine_gpu_mem_free(20e9, 1, avail, &src), avail, 0);
    EXPECT(src && strstr(src, "MemAvailable") == src);
    EXPECT_NEAR(machine_gpu_mem_free(120e9, 1, avail, &src), 120e9, 0);   /* the larger wins */
    EXPECT_STR(src, "cudaMemGetInfo");
    EXPECT_NEAR(machine_gpu_mem_free(20e9, 0, avail, &src), 20e9, 0);     /* discrete: its own memory */
    EXPECT_STR(src, "cudaMemGetInfo");
    EXPECT_NEAR(machine_gpu_mem_free(NAN, 1, avail, &src), avail, 0);     /* refused: MemAvailable */
    EXPECT(strstr(src, "integrated") != NULL);
    EXPECT_NEAR(machine_gpu_mem_free(20e9, 1, NAN, &src), 20e9, 0);       /* no /proc/meminfo */
    EXPECT_STR(src, "cudaMemGetInfo");
    EXPECT(isnan(machine_gpu_mem_free(NAN, 0, avail, &src)));
}

int main(void)
{
    char tmpl[] = "/tmp/sr-env-XXXXXX";
    const char *root = mkdtemp(tmpl);
    struct machine_cpu c;
    double levels[8];
    EXPECT(machine_cpulist_count("0-3,8") == 5);
    EXPECT(machine_cpulist_count("7\n") == 1);
    EXPECT(machine_cpulist_count("3-1") == -1);
    EXPECT(machine_cpulist_count("x") == -1);

    gb10_tree(root, 0);
    machine_set_root(root);
    machine_cpu(&c);
    gb10_kinds(&c, 0);                                  /* no cpu_capacity: the cores' classes order them */
    gb10_tree(root, 1);
    machine_cpu(&c);
    gb10_kinds(&c, 1024);
    EXPECT(c.ncpus == 20);
    EXPECT_STR(c.model, "10x Cortex-X925 + 10x Cortex-A725");
    EXPECT_STR(c.cache_source, "sysfs");
    EXPECT(c.ncaches == 6);
    const struct machine_cache *e;
    EXPECT((e = find(&c, 1, "Data", 65536)) && e->instances == 20 && e->cpus_sharing == 1);
    EXPECT((e = find(&c, 2, "Unified", 2097152)) && e->instances == 10);
    EXPECT((e = find(&c, 2, "Unified", 524288)) && e->instances == 10);
    EXPECT((e = find(&c, 3, "Unified", 16777216)) && e->instances == 1 && e->cpus_sharing == 10);
    EXPECT((e = find(&c, 3, "Unified", 8388608)) && e->instances == 1);
    EXPECT_NEAR(machine_cache_total(&c), 20 * 65536.0 + 10 * 2097152.0 + 10 * 524288.0 + 16777216.0 + 8388608.0, 0);
    EXPECT(machine_cache_levels(&c, levels) == 3);
    EXPECT_NEAR(levels[0], 20 * 65536.0, 0);            /* instruction caches are not counted */
    EXPECT_NEAR(levels[2], 25165824.0, 0);
    EXPECT(c.nclusters == 2);
    EXPECT_STR(c.clusters[0], "0-9");
    EXPECT_STR(c.clusters[1], "10-19");
    gpu_mem_free(root);

    char cmd[600];
    snprintf(cmd, sizeof cmd, "%s/sys/devices/system/cpu", root);
    fs_rm_rf(cmd);
    put(root, "sys/devices/system/cpu/online", "0-3\n");
    machine_cpu(&c);                                         /* no caches in sysfs: a fallback says so */
    EXPECT(c.ncpus == 4 && c.ncaches > 0 && strcmp(c.cache_source, "sysfs") != 0);
    EXPECT(c.nclusters == 0);
    EXPECT(c.nplace == 0);                               /* homogeneous (here: cpuinfo lists 20 CPUs, 4 online) */
    machine_set_root(NULL);
    fs_rm_rf(root);
    return CHECK_DONE();
}
