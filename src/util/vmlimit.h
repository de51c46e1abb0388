/* vmlimit.h: what an address-space limit (ulimit -v, RLIMIT_AS, as a batch scheduler sets) leaves
 * this process, and the start-up check that keeps OpenBLAS from hanging under it: OpenBLAS
 * maps its buffers in its load-time constructor and retries for ever when the limit refuses one. main.c calls vmlimit_prepare_blas from .preinit_array, before any library's
 * constructor, with a watchdog for what it cannot foresee; the BLAS callers ask
 * vmlimit_blas_refusal before their first call. */
#ifndef SR_VMLIMIT_H
#define SR_VMLIMIT_H

#include <stddef.h>

/* OpenBLAS 0.3's BUFFER_SIZE (32 << 22 on x86-64 and arm64) plus its page of alignment: what it
 * maps per thread at load and once more for the calling thread at its first level-3 call. */
#define VMLIMIT_BLAS_BUFFER (128.0 * 1024 * 1024 + 4096)
/* What the program needs besides, to start and say something. */
#define VMLIMIT_RESERVE (8.0 * 1024 * 1024)

/* Bytes of address space the limit still leaves (limit minus the mapped size), or -1 when there
 * is no limit. */

/* Before OpenBLAS loads (main.c's .preinit_array): 0 when there is no limit; -1 when the limit
 * leaves less than the two buffers OpenBLAS maps at load, with msg saying which limit would do;
 * 1 when it may fit, with msg holding what the watchdog says if OpenBLAS is still retrying
 * after VMLIMIT_WATCH_S seconds of processor time (how many buffers it maps depends on its
 * build and the CPUs). Uses no stdio: it runs before the C library's constructors. */
#define VMLIMIT_WATCH_S 4
int vmlimit_prepare_blas(char *msg, size_t len);

/* The watchdog: after `seconds` of processor time, writes msg (kept, not copied) to stderr and
 * exits 1; main() stops it once the libraries have loaded. */
void vmlimit_watch_start(const char *msg, int seconds);
void vmlimit_watch_stop(void);

/* NULL when a CBLAS level-3 call can get its buffer, else why not (for a skip record).
 * vmlimit_blas_done() after a call that returned: the buffer is then OpenBLAS's for good. */
const char *vmlimit_blas_refusal(void);
void vmlimit_blas_done(void);

#endif
