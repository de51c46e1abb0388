/* job.c: the MPI job a launcher started (job.h): joining it, this process's rank among the
 * ranks, the hosts they run on, and leaving it. What the ranks do in it is the collective
 * experiment's (src/exp/collective): rank 0 runs the scenario, the others serve its collectives. */
#include "job/job.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "util/env.h"
#include "util/error.h"
#include "util/watch.h"

#ifdef HAVE_MPI

#include <ifaddrs.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <net/if.h>

#include <mpi.h>

#define DESC_BYTES 512              /* one rank's "host\tinterfaces" at init */
#define JOIN_S 60.0                 /* joining the job (MPI_Init_thread and the first gather) */

static int joined, rank, nranks;
static char *descs;                 /* rank 0: nranks x DESC_BYTES */

int job_launched(void)
{
    return joined;
}

int job_nranks(void)
{
    return joined ? nranks : 1;
}

int job_rank(void)
{
    return joined ? rank : 0;
}

/* "lo 127.0.0.1, eth0 10.0.0.2": the IPv4 interfaces of this host. */
static void interfaces(char *out, size_t n)
{
    struct ifaddrs *ifs, *a;
    size_t o = 0;
    out[0] = '\0';
    if (getifaddrs(&ifs) != 0)
        return;
    for (a = ifs; a && o + 1 < n; a = a->ifa_next) {
        char ip[INET_ADDRSTRLEN];
        if (!a->ifa_addr || a->ifa_addr->sa_family != AF_INET || !(a->ifa_flags & IFF_UP))
            continue;
        inet_ntop(AF_INET, &((struct sockaddr_in *)(void *)a->ifa_addr)->sin_addr, ip, sizeof ip);
        o += (size_t)snprintf(out + o, n - o, "%s%s %s", o ? ", " : "", a->ifa_name, ip);
    }
    freeifaddrs(ifs);
}

/* Every rank's host name and interfaces, gathered on rank 0 once, at init. */
static int gather_descs(void)
{
    char mine[DESC_BYTES] = "", host[MPI_MAX_PROCESSOR_NAME] = "", ifs[DESC_BYTES - 64];
    int len = 0;
    MPI_Get_processor_name(host, &len);
    interfaces(ifs, sizeof ifs);
    snprintf(mine, sizeof mine, "%.60s\t%s", host, ifs);
    if (rank == 0)
        descs = calloc((size_t)nranks, DESC_BYTES);
    if (rank == 0 && !descs)
        return -1;
    return MPI_Gather(mine, DESC_BYTES, MPI_CHAR, descs, DESC_BYTES, MPI_CHAR, 0, MPI_COMM_WORLD) == MPI_SUCCESS ? 0 : -1;
}

int job_join(int *argc, char ***argv)
{
    if (!getenv("OMPI_COMM_WORLD_SIZE") && !getenv("PMIX_RANK") && !getenv("PMI_RANK"))
        return 0;                   /* not started by a launcher: one rank, no MPI */
    int provided;
    double join_s;
    char msg[512];
    const char *me = getenv("OMPI_COMM_WORLD_RANK") ? getenv("OMPI_COMM_WORLD_RANK") : getenv("PMIX_RANK");
    if (env_seconds("SPARKREPORT_MPI_JOIN_S", JOIN_S, &join_s, msg, sizeof msg) != 0) {   /* every rank, before joining */
        if (!me || strcmp(me, "0") == 0)
            fprintf(stderr, "sparkreport: %s\n", msg);
        return JOB_REFUSED;
    }
    snprintf(msg, sizeof msg, "sparkreport: rank %.20s: the MPI job did not start within %g s (a rank never joined: it "
             "exited, was stopped or never started before MPI_Init; SPARKREPORT_MPI_JOIN_S sets this deadline); "
             "stopped, nothing was written", me ? me : "?", join_s);
    watch_arm(join_s, msg, SR_EXIT_FAILURE);    /* MPI_Init_thread waits for every rank, for ever */
    if (MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
        fprintf(stderr, "sparkreport: MPI_Init_thread failed: cannot join the job mpirun started\n");
        return -1;
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    joined = nranks > 1;
    if (gather_descs() != 0) {
        fprintf(stderr, "sparkreport: rank %d: cannot gather the ranks' host names at start\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    watch_disarm();
    return rank;
}


void job_leave(void)
{
    int initialized = 0, finalized = 0;
    MPI_Initialized(&initialized);
    MPI_Finalized(&finalized);
    free(descs);
    descs = NULL;
    if (initialized && !finalized)
        MPI_Finalize();
}

static void add_env(cJSON *o, const char *name)
{
    const char *v = getenv(name);
    if (v)
        cJSON_AddStringToObject(o, name, v);
}

static const char *transport(int hosts)
{
    const char *btl = getenv("OMPI_MCA_btl"), *pml = getenv("OMPI_MCA_pml");
    static char t[512];
    if (hosts == 1)
        snprintf(t, sizeof t, "one host: shared memory (Open MPI's vader BTL is its default between ranks of a host)%s%s%s%s",
                 btl ? "; OMPI_MCA_btl=" : "", btl ? btl : "", pml ? "; OMPI_MCA_pml=" : "", pml ? pml : "");
    else
        snprintf(t, sizeof t, "%d hosts: Open MPI's choice between them (TCP, or UCX on InfiniBand/RoCE), not reported by "
                 "the library%s%s%s%s", hosts, btl ? "; OMPI_MCA_btl=" : "", btl ? btl : "",
                 pml ? "; OMPI_MCA_pml=" : "", pml ? pml : "");
    return t;
}

cJSON *job_context(const char *transport_device)
{
    if (!joined || rank != 0)
        return NULL;
    char lib[MPI_MAX_LIBRARY_VERSION_STRING] = "";
    int len = 0, nhosts = 0;
    MPI_Get_library_version(lib, &len);
    lib[strcspn(lib, "\n,")] = '\0';
    cJSON *o = cJSON_CreateObject(), *hosts = cJSON_CreateArray(), *env = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "ranks", nranks);
    cJSON_AddStringToObject(o, "launcher", lib);
    for (int r = 0; r < nranks; r++) {
        const char *d = descs + (size_t)r * DESC_BYTES, *tab = strchr(d, '\t');
        int hl = tab ? (int)(tab - d) : (int)strlen(d), seen = 0;
        for (int q = 0; q < r && !seen; q++) {
            const char *e = descs + (size_t)q * DESC_BYTES;
            seen = strncmp(e, d, (size_t)hl) == 0 && (e[hl] == '\t' || e[hl] == '\0');
        }
        nhosts += !seen;
        cJSON *h = cJSON_CreateObject();
        char host[DESC_BYTES];
        snprintf(host, sizeof host, "%.*s", hl, d);
        cJSON_AddNumberToObject(h, "rank", r);
        cJSON_AddStringToObject(h, "host", host);
        cJSON_AddStringToObject(h, "interfaces", tab ? tab + 1 : "");
        cJSON_AddItemToArray(hosts, h);
    }
    cJSON_AddNumberToObject(o, "hosts_count", nhosts);
    cJSON_AddItemToObject(o, "hosts", hosts);
    cJSON_AddStringToObject(o, "transport", transport(nhosts));
    if (transport_device)           /* device buffers: NCCL chooses its own transport (NCCL_DEBUG=INFO says which) */
        cJSON_AddStringToObject(o, "transport_device", transport_device);
    add_env(env, "OMPI_COMM_WORLD_SIZE");
    add_env(env, "OMPI_COMM_WORLD_LOCAL_SIZE");
    add_env(env, "OMPI_MCA_btl");
    add_env(env, "OMPI_MCA_pml");
    add_env(env, "OMPI_MCA_btl_tcp_if_include");
    cJSON_AddItemToObject(o, "env", env);
    return o;
}

#else /* no MPI in this build: one rank, always */

int job_join(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    if (getenv("OMPI_COMM_WORLD_SIZE") && atoi(getenv("OMPI_COMM_WORLD_SIZE")) > 1)
        fprintf(stderr, "sparkreport: started by mpirun, but this build has no MPI (%s); every rank would run "
                "the scenario alone\n", SR_NO_MPI_REASON);
    return getenv("OMPI_COMM_WORLD_SIZE") && atoi(getenv("OMPI_COMM_WORLD_SIZE")) > 1 ? -1 : 0;
}
int job_launched(void) { return 0; }
int job_nranks(void) { return 1; }
int job_rank(void) { return 0; }
void job_leave(void) { }
cJSON *job_context(const char *transport_device) { (void)transport_device; return NULL; }

#endif
