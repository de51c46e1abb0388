/* vmlimit.c: the address-space limit's headroom, read from getrlimit and /proc/self/statm, and
 * the start-up check for OpenBLAS's load-time buffers. Runs before the C library's constructors,
 * so it reads with open/read and writes nothing itself; main.c prints what it returns. */
#include "util/vmlimit.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/resource.h>
#include <unistd.h>

#define MIB (1024.0 * 1024)

static int blas_called;    /* a CBLAS level-3 call returned: its buffer stays mapped */

static double mapped_bytes(void)
{
    char buf[128];
    int fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return 0;
    buf[n] = '\0';
    return strtod(buf, NULL) * (double)sysconf(_SC_PAGESIZE);
}

static double vmlimit_headroom(void)
{
    struct rlimit r;
    if (getrlimit(RLIMIT_AS, &r) != 0 || r.rlim_cur == RLIM_INFINITY)
        return -1;
    double left = (double)r.rlim_cur - mapped_bytes();
    return left > 0 ? left : 0;
}

int vmlimit_prepare_blas(char *msg, size_t len)
{
    double left = vmlimit_headroom(), used = mapped_bytes();
    double need = used + 2 * VMLIMIT_BLAS_BUFFER + VMLIMIT_RESERVE;
    msg[0] = '\0';
    if (left < 0)
        return 0;
    if (left >= 2 * VMLIMIT_BLAS_BUFFER + VMLIMIT_RESERVE) {
        snprintf(msg, len, "sparkreport: OpenBLAS could not map its buffers (%.0f MiB each, one per thread) under "
                 "the virtual memory limit (ulimit -v %.0f, in KiB) and was still retrying after %d s: raise the "
                 "limit, or set OMP_NUM_THREADS lower\n", VMLIMIT_BLAS_BUFFER / MIB, (used + left) / 1024,
                 VMLIMIT_WATCH_S);
        return 1;
    }
    snprintf(msg, len, "sparkreport: the virtual memory limit (ulimit -v %.0f, in KiB) is too low to start: the "
             "libraries take %.0f MiB and OpenBLAS maps at least %.0f MiB more when it loads; raise it to at least "
             "ulimit -v %.0f\n", (used + left) / 1024, used / MIB, 2 * VMLIMIT_BLAS_BUFFER / MIB, need / 1024);
    return -1;
}

static const char *watch_msg;

static void on_watch(int sig, siginfo_t *info, void *ctx)
{
    (void)sig, (void)ctx;
    if (info && info->si_code != SI_KERNEL)     /* someone's SIGPROF, not our timer's */
        return;
    ssize_t w = write(STDERR_FILENO, watch_msg, strlen(watch_msg));
    (void)w;
    _exit(1);
}

void vmlimit_watch_start(const char *msg, int seconds)
{
    struct itimerval t = { { 0, 0 }, { seconds, 0 } };
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_watch;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    watch_msg = msg;
    sigaction(SIGPROF, &sa, NULL);
    setitimer(ITIMER_PROF, &t, NULL);
}

void vmlimit_watch_stop(void)
{
    struct itimerval t = { { 0, 0 }, { 0, 0 } };
    if (!watch_msg)
        return;
    setitimer(ITIMER_PROF, &t, NULL);
    signal(SIGPROF, SIG_IGN);           /* a stray one means nothing (util/signals.c) */
    watch_msg = NULL;
}

const char *vmlimit_blas_refusal(void)
{
    double left = vmlimit_headroom();
    if (blas_called || left < 0 || left >= VMLIMIT_BLAS_BUFFER + VMLIMIT_RESERVE)
        return NULL;
    return "not run: the virtual memory limit (ulimit -v) leaves no room for the 128 MiB buffer OpenBLAS maps "
           "at its first call (it would wait for ever)";
}

void vmlimit_blas_done(void) { blas_called = 1; }
