/* error.h: fatal errors, checked allocation and check macros that carry file, line and
 * the failing expression. Errors a caller can recover from are returned, not raised here. */
#ifndef SR_ERROR_H
#define SR_ERROR_H

#include <stddef.h>

#if defined(__GNUC__)
#define SR_NORETURN __attribute__((noreturn))
#define SR_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define SR_NORETURN
#define SR_PRINTF(a, b)
#endif

/* Exit codes of the program, documented in --help and sparkreport.1. */
enum {
    SR_EXIT_OK = 0,
    SR_EXIT_FAILURE = 1,     /* the environment failed: I/O, memory, a library */
    SR_EXIT_USAGE = 2,       /* bad command line */
    SR_EXIT_SCENARIO = 3,    /* the scenario has an error: nothing was measured or written */
    SR_EXIT_INPUT = 4,       /* a results file is unreadable or invalid */
    SR_EXIT_INVALID = 5,     /* the run finished but a kernel failed validation */
    SR_EXIT_SLOWER = 6,      /* compare (or a run with a baseline): some result is slower */
};

/* Room for any message a command prints: two paths of the system's longest (4096 bytes) and their
 * words, so no message is ever cut. */
#define SR_ERR_MAX 16384

void sr_die(const char *file, int line, const char *fmt, ...) SR_NORETURN SR_PRINTF(3, 4);
void *sr_xmalloc(size_t n, const char *file, int line);
void *sr_xcalloc(size_t n, size_t size, const char *file, int line);
void *sr_xrealloc(void *p, size_t n, const char *file, int line);
char *sr_xstrdup(const char *s, const char *file, int line);

#define DIE(...) sr_die(__FILE__, __LINE__, __VA_ARGS__)
#define xmalloc(n) sr_xmalloc((n), __FILE__, __LINE__)
#define xcalloc(n, s) sr_xcalloc((n), (s), __FILE__, __LINE__)
#define xrealloc(p, n) sr_xrealloc((p), (n), __FILE__, __LINE__)
#define xstrdup(s) sr_xstrdup((s), __FILE__, __LINE__)

/* CHECK(expr): a broken invariant of our own code, not bad input. */
#define CHECK(expr) \
    do { if (!(expr)) sr_die(__FILE__, __LINE__, "check failed: %s", #expr); } while (0)

/* snprintf into a fixed buffer, truncating; returns buf. */
char *sr_fmt(char *buf, size_t n, const char *fmt, ...) SR_PRINTF(3, 4);

#endif
