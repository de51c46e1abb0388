/* env.c: the check of the variables that reach the OpenMP and BLAS libraries, and the reading of
 * our own variables that set a time (env.h). */
#include "util/env.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the variables that reach the libraries ---- */

/* A whole number lo .. hi, all of text. */
static int whole(const char *text, long lo, long hi)
{
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    return *text && *end == '\0' && errno == 0 && v >= lo && v <= hi;
}

/* OMP_NUM_THREADS: a whole number, or a comma list of them (one per nesting level). */
static int thread_list(const char *text)
{
    char item[32];
    for (const char *p = text;; p++) {
        size_t n = strcspn(p, ",");
        if (n == 0 || n >= sizeof item)
            return 0;
        snprintf(item, sizeof item, "%.*s", (int)n, p);
        if (!whole(item, 1, ENV_MAX_THREADS))
            return 0;
        p += n;
        if (!*p)
            return 1;
    }
}

/* OMP_STACKSIZE: a size, B, K (the default), M or G, at most ENV_MAX_STACKSIZE bytes. */
static int stack_size(const char *text)
{
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (end == text || errno != 0 || v < 1 || v != floor(v))
        return 0;
    while (*end == ' ')
        end++;
    const char *units = "BKMG";
    const char *u = *end ? strchr(units, toupper((unsigned char)*end)) : units + 1;
    if (!u || (*end && end[1] != '\0'))
        return 0;
    return ldexp(v, 10 * (int)(u - units)) <= ENV_MAX_STACKSIZE;
}

int env_check_threads(char *err, size_t errlen)
{
    static const struct {
        const char *name;
        int kind;                   /* 0 thread list, 1 limit, 2 BLAS threads, 3 stack size */
        const char *want;
    } vars[] = {
        { "OMP_NUM_THREADS", 0, "a whole number of threads from 1 to 4096, or a comma list of them" },
        { "OMP_THREAD_LIMIT", 1, "a whole number from 1" },
        { "OPENBLAS_NUM_THREADS", 2, "a whole number of threads from 1 to 4096" },
        { "GOTO_NUM_THREADS", 2, "a whole number of threads from 1 to 4096" },
        { "OMP_STACKSIZE", 3, "a size per thread such as 512K, 8M or 1G, at most 1G" },
    };
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        const char *v = getenv(vars[i].name);
        if (!v)
            continue;
        int ok = vars[i].kind == 0 ? thread_list(v) : vars[i].kind == 1 ? whole(v, 1, LONG_MAX)
               : vars[i].kind == 2 ? whole(v, 1, ENV_MAX_THREADS) : stack_size(v);
        if (!ok) {
            snprintf(err, errlen, "%s=%.64s%s: the OpenMP and BLAS libraries read it; it must be %s (unset it, or "
                     "set it within that)", vars[i].name, v, strlen(v) > 64 ? "..." : "", vars[i].want);
            return -1;
        }
    }
    return 0;
}

/* ---- our own variables that set a time ---- */

static const struct {
    const char *name;
    double lo, hi;                  /* seconds */
} times[] = {
    { "SPARKREPORT_MPI_JOIN_S", 1, 86400 },
    { "SPARKREPORT_SCENARIO_TIME_S", 0.1, 3600 },
};

int env_seconds(const char *name, double def, double *seconds, char *err, size_t errlen)
{
    const char *v = getenv(name);
    *seconds = def;
    for (size_t i = 0; i < sizeof times / sizeof times[0]; i++) {
        if (strcmp(times[i].name, name) != 0)
            continue;
        if (!v || !*v)
            return 0;
        char *end;
        errno = 0;
        double t = strtod(v, &end);
        if (*end == '\0' && errno == 0 && t >= times[i].lo && t <= times[i].hi) {  /* nan fails both */
            *seconds = t;
            return 0;
        }
        snprintf(err, errlen, "%s=%.64s%s: must be a number of seconds from %g to %g (unset it, or set it within that)",
                 name, v, strlen(v) > 64 ? "..." : "", times[i].lo, times[i].hi);
        return -1;
    }
    snprintf(err, errlen, "%s: not a variable sparkreport reads (a bug)", name);
    return -1;
}

int env_check_seconds(char *err, size_t errlen)
{
    double t;
    for (size_t i = 0; i < sizeof times / sizeof times[0]; i++)
        if (env_seconds(times[i].name, 0, &t, err, errlen) != 0)
            return -1;
    return 0;
}
