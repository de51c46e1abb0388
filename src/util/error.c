/* error.c: fatal errors and checked allocation. The message names where it came from and,
 * for allocation, how much was asked for. */
#include "util/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sr_die(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "sparkreport: %s:%d: ", file, line);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(SR_EXIT_FAILURE);
}

void *sr_xmalloc(size_t n, const char *file, int line)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        sr_die(file, line, "out of memory allocating %zu bytes", n);
    return p;
}

void *sr_xcalloc(size_t n, size_t size, const char *file, int line)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p)
        sr_die(file, line, "out of memory allocating %zu x %zu bytes", n, size);
    return p;
}

void *sr_xrealloc(void *p, size_t n, const char *file, int line)
{
    void *q = realloc(p, n ? n : 1);
    if (!q)
        sr_die(file, line, "out of memory reallocating to %zu bytes", n);
    return q;
}

char *sr_xstrdup(const char *s, const char *file, int line)
{
    size_t n = strlen(s) + 1;
    char *p = sr_xmalloc(n, file, line);
    memcpy(p, s, n);
    return p;
}

char *sr_fmt(char *buf, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, n, fmt, ap);
    va_end(ap);
    return buf;
}
