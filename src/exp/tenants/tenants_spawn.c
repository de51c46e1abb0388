/* tenants_spawn.c: the pool of tenant processes (tenants_int.h): started with posix_spawn (safe in
 * a process whose OpenMP and BLAS threads exist, where a plain fork would leave the child an OpenMP
 * runtime whose threads are gone), each talking to the run over one socket pair on its standard
 * input and output, so that telling a tenant that already died anything can never raise SIGPIPE in
 * the run (send with MSG_NOSIGNAL). What a tenant measures is tenants_child.c's; what the records
 * mean is tenants.c's. */
#include "exp/tenants/tenants_int.h"

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/error.h"
#include "util/json.h"
#include "util/progress.h"
#include "util/timing.h"

extern char **environ;

#define LINE_MAX_BYTES (16u << 20)      /* a record's line: samples and statistics, far below this */
#define POLL_MS 100                     /* how often a wait looks at progress_cut() */

struct tenant {
    pid_t pid;                  /* 0: never started */
    int fd;                     /* the run's end of the socket pair; -1: none */
    char *buf;                  /* what it wrote that is not yet a whole line */
    size_t len, cap;
    int ready, eof;
    int loading;                /* it said it runs its job for this round */
    int asked;                  /* rounds it was told to measure */
    cJSON *record;              /* the record of round `asked` (or its failed set-up) */
    char why[256];              /* what went wrong with it for good, "" while nothing did */
};

struct tenants_pool {
    struct tenant *t;
    int n;
    double touch_Bps;           /* the first-touch rate that was too slow; 0: none */
};

/* Bytes resident in the tenants' processes (/proc/PID/statm, pages of this machine's size). */
static double resident(const struct tenant *ts, int n)
{
    double sum = 0, page = (double)sysconf(_SC_PAGESIZE);
    for (int i = 0; i < n; i++) {
        char path[64];
        long size, rss;
        snprintf(path, sizeof path, "/proc/%d/statm", (int)ts[i].pid);
        FILE *f = ts[i].pid > 0 ? fopen(path, "r") : NULL;
        if (f && fscanf(f, "%ld %ld", &size, &rss) == 2)
            sum += (double)rss * page;
        if (f)
            fclose(f);
    }
    return sum;
}

/* Whether first-touching `total` bytes over the tenants, at the rate they touched since (t0, r0),
 * would end after `deadline`; *rate: that rate. */
static int too_slow(const struct tenant *ts, int n, double total, double t0, double r0, double deadline, double *rate)
{
    double now = timing_now(), r = resident(ts, n);
    *rate = now > t0 ? (r - r0) / (now - t0) : 0;
    return r < total && (*rate <= 0 || now + (total - r) / *rate > deadline);
}

static cJSON *failed(const char *why)
{
    cJSON *r = cJSON_CreateObject();
    cJSON_AddBoolToObject(r, "valid", 0);
    cJSON_AddStringToObject(r, "error", why);
    return r;
}

static void start(struct tenant *t, const char *exe, const cJSON *spec, int i)
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
        snprintf(t->why, sizeof t->why, "not measured: cannot make a socket pair for tenant %d: %s", i + 1,
                 strerror(errno));
        return;
    }
    cJSON *mine = cJSON_Duplicate(spec, 1);
    cJSON_ReplaceItemInObjectCaseSensitive(mine, "tenant", cJSON_CreateNumber(i + 1));
    char *text = cJSON_PrintUnformatted(mine), *argv[] = { (char *)"sparkreport", (char *)"tenant", text, NULL };
    cJSON_Delete(mine);
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t at;
    sigset_t none;
    sigemptyset(&none);
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, sv[1], STDIN_FILENO);     /* dup2 clears close-on-exec */
    posix_spawn_file_actions_adddup2(&fa, sv[1], STDOUT_FILENO);
    posix_spawnattr_init(&at);
    posix_spawnattr_setpgroup(&at, 0);
    posix_spawnattr_setsigmask(&at, &none);
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK);
    int rc = posix_spawn(&t->pid, exe, &fa, &at, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&at);
    close(sv[1]);
    free(text);
    if (rc != 0) {
        t->pid = 0;
        close(sv[0]);
        snprintf(t->why, sizeof t->why, "not measured: cannot start tenant %d (%s): %s", i + 1, exe, strerror(rc));
        return;
    }
    t->fd = sv[0];
}

/* One whole line from t: its ready mark, or a record. */
static void line(struct tenant *t, const char *text, size_t n)
{
    char err[160];
    cJSON *j = json_parse("a tenant's line", text, n, err, sizeof err);
    if (!j || !cJSON_IsObject(j)) {
        snprintf(t->why, sizeof t->why, "the tenant wrote what is not a JSON object: %s", j ? "not an object" : err);
        cJSON_Delete(j);
        return;
    }
    if (!t->ready && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j, TENANTS_READY))) {
        t->ready = 1;
        cJSON_Delete(j);
        return;
    }
    if (t->ready && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j, TENANTS_LOADING))) {
        t->loading = json_num(j, "round", 0) == t->asked;
        cJSON_Delete(j);
        return;
    }
    if (t->ready && json_num(j, "round", 0) != t->asked) {     /* a late record of a round given up on */
        cJSON_Delete(j);
        return;
    }
    cJSON_DeleteItemFromObjectCaseSensitive(j, "round");
    cJSON_Delete(t->record);
    t->record = j;
}

/* Reads what t wrote; whole lines become its ready mark or its record. */
static void drain(struct tenant *t)
{
    char chunk[65536];
    ssize_t got = read(t->fd, chunk, sizeof chunk);
    if (got <= 0) {
        if (got == 0 || (errno != EINTR && errno != EAGAIN))
            t->eof = 1;
        return;
    }
    if (t->len + (size_t)got > LINE_MAX_BYTES) {
        snprintf(t->why, sizeof t->why, "the tenant wrote a line longer than %u bytes", LINE_MAX_BYTES);
        t->eof = 1;
        return;
    }
    if (t->len + (size_t)got > t->cap) {
        t->cap = 2 * (t->len + (size_t)got);
        t->buf = xrealloc(t->buf, t->cap);
    }
    memcpy(t->buf + t->len, chunk, (size_t)got);
    t->len += (size_t)got;
    char *nl;
    while ((nl = memchr(t->buf, '\n', t->len))) {
        size_t n = (size_t)(nl - t->buf);
        line(t, t->buf, n);
        memmove(t->buf, nl + 1, t->len - n - 1);
        t->len -= n + 1;
    }
}

/* Whether t can give nothing more: it failed, ended, or wrote its failed set-up. */
static int gone(const struct tenant *t)
{
    return t->fd < 0 || t->eof || t->why[0] || (!t->ready && t->record);
}

/* Whether t has what a wait is for: want 0 its ready mark, 1 a record, 2 its word that it is loading. */
static int has(const struct tenant *t, int want)
{
    return gone(t) || (want == 0 ? t->ready : want == 1 ? t->record != NULL : t->loading);
}

/* Reads from tenants [0, n) until each has what `want` waits for, the deadline passes or a stop
 * is asked; returns 1 when all have it. */
static int wait_all(struct tenant *ts, int n, int want, double deadline)
{
    struct pollfd *p = xcalloc((size_t)n, sizeof *p);
    int *who = xcalloc((size_t)n, sizeof *who), all = 0;
    while (!progress_cut() && timing_now() < deadline) {
        int k = 0;
        for (int i = 0; i < n; i++)
            if (!has(&ts[i], want)) {
                p[k] = (struct pollfd){ ts[i].fd, POLLIN, 0 };
                who[k++] = i;
            }
        if (k == 0) {
            all = 1;
            break;
        }
        if (poll(p, (nfds_t)k, POLL_MS) > 0)
            for (int j = 0; j < k; j++)
                if (p[j].revents)
                    drain(&ts[who[j]]);
    }
    free(p);
    free(who);
    return all;
}

static void tell(struct tenant *t, int i, const char *what)
{
    size_t n = strlen(what);
    if (!gone(t) && send(t->fd, what, n, MSG_NOSIGNAL) != (ssize_t)n)
        snprintf(t->why, sizeof t->why, "tenant %d could not be told to go on: %s", i + 1, strerror(errno));
}

struct tenants_pool *tenants_pool_start(const char *exe, const cJSON *spec, int n, double setup_s, double touch_bytes)
{
    struct tenants_pool *p = xcalloc(1, sizeof *p);
    p->t = xcalloc((size_t)n, sizeof *p->t);
    p->n = n;
    for (int i = 0; i < n; i++) {
        p->t[i].fd = -1;
        start(&p->t[i], exe, spec, i);
    }
    double begin = timing_now(), deadline = begin + setup_s, t0 = 0, r0 = 0, rate = 0;
    int ready = 0;
    while (!ready && !progress_cut() && timing_now() < deadline) {
        double step = touch_bytes > 0 ? fmin(deadline, timing_now() + TENANTS_TOUCH_S) : deadline;
        ready = wait_all(p->t, n, 0, step);
        if (ready || touch_bytes <= 0)
            continue;
        if (t0 == 0) {                      /* past the processes' start: the touching from here on */
            t0 = timing_now();
            r0 = resident(p->t, n);
        } else if (too_slow(p->t, n, n * touch_bytes, t0, r0, deadline, &rate)) {
            p->touch_Bps = rate > 0 ? rate : 1;
            break;
        }
    }
    for (int i = 0; i < n && !ready; i++) {
        struct tenant *t = &p->t[i];
        if (has(t, 0))
            continue;
        if (progress_cut())
            snprintf(t->why, sizeof t->why, "the run was stopped while tenant %d was set up", i + 1);
        else
            snprintf(t->why, sizeof t->why, p->touch_Bps > 0 ? "not timed: tenant %d was given up: its arrays would not "
                     "be first-touched within %.0f s" : "not timed: tenant %d was not set up and validated within %.0f s",
                     i + 1, setup_s);
    }
    return p;
}

double tenants_pool_touch_Bps(const struct tenants_pool *p) { return p->touch_Bps; }

/* Why tenant i has no record in a round of k, when it has none. */
static void no_record(const struct tenants_pool *p, int i, int k, double run_s, char *why, size_t n)
{
    const struct tenant *t = &p->t[i];
    if (t->why[0])
        snprintf(why, n, "%s", t->why);
    else if (!t->ready && t->record)
        snprintf(why, n, "%s", json_str(t->record, "error", "its set-up failed"));
    else if (t->eof)
        snprintf(why, n, "tenant %d ended before it wrote its record (its process exited)", i + 1);
    else if (progress_cut())
        snprintf(why, n, "the run was stopped before tenant %d wrote its record", i + 1);
    else
        snprintf(why, n, "no record from tenant %d within %.0f s of the start of the round of %d", i + 1, run_s, k);
}

cJSON *tenants_pool_round(struct tenants_pool *p, int k, int threads, double repeat_s, double run_s)
{
    cJSON *out = cJSON_CreateArray();
    char why[300], theirs[340], go[64], stop[3] = { TENANTS_WAIT, '\n', 0 }, time[3] = { TENANTS_TIME, '\n', 0 };
    snprintf(go, sizeof go, "%c %d %.6g\n", TENANTS_MEASURE, threads, repeat_s);
    int first_gone = -1;
    for (int i = k - 1; i >= 0; i--)
        first_gone = gone(&p->t[i]) ? i : first_gone;
    if (first_gone < 0) {           /* a group with a tenant missing is not a group of k: not run */
        double until = timing_now() + run_s;
        for (int i = 0; i < k; i++) {
            cJSON_Delete(p->t[i].record);
            p->t[i].record = NULL;
            p->t[i].loading = 0;
            p->t[i].asked++;
            tell(&p->t[i], i, go);
        }
        if (wait_all(p->t, k, 2, until))        /* every one busy before any is timed */
            for (int i = 0; i < k; i++)
                tell(&p->t[i], i, time);
        wait_all(p->t, k, 1, until);
        for (int i = 0; i < k; i++)
            tell(&p->t[i], i, stop);
    }
    for (int i = 0; i < k; i++) {
        struct tenant *t = &p->t[i];
        if (first_gone < 0 && t->record && !t->why[0]) {
            cJSON_AddItemToArray(out, t->record);
            t->record = NULL;
        } else if (first_gone >= 0 && first_gone != i) {
            no_record(p, first_gone, k, run_s, why, sizeof why);
            snprintf(theirs, sizeof theirs, "%s%s", strncmp(why, "not timed: ", 11) == 0 ? "" : "not timed: ", why);
            cJSON_AddItemToArray(out, failed(theirs));
        } else {
            no_record(p, i, k, run_s, why, sizeof why);
            cJSON_AddItemToArray(out, failed(why));
        }
    }
    return out;
}

void tenants_pool_stop(struct tenants_pool *p)
{
    struct tenant *ts = p->t;
    int status;
    for (int i = 0; i < p->n; i++)
        if (ts[i].fd >= 0)
            shutdown(ts[i].fd, SHUT_WR);
    double until = timing_now() + TENANTS_GRACE_S;
    for (int left = p->n; left > 0 && timing_now() < until;) {
        left = 0;
        for (int i = 0; i < p->n; i++)
            if (ts[i].pid > 0) {
                if (waitpid(ts[i].pid, &status, WNOHANG) == ts[i].pid)
                    ts[i].pid = 0;
                else
                    left++;
            }
        if (left > 0)
            usleep(20000);
    }
    for (int i = 0; i < p->n; i++) {
        if (ts[i].pid > 0) {
            kill(ts[i].pid, SIGKILL);                   /* our own child, by its id */
            waitpid(ts[i].pid, &status, 0);
        }
        if (ts[i].fd >= 0)
            close(ts[i].fd);
        cJSON_Delete(ts[i].record);
        free(ts[i].buf);
    }
    free(ts);
    free(p);
}
