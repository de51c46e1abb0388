/* signals.c: the SIGINT/SIGTERM/SIGPIPE/SIGHUP handlers of every command: a gentle first stop
 * for a run, an immediate exit that removes the registered temporaries otherwise. The handler
 * only calls async-signal-safe functions (write, unlink, rmdir, _exit). */
#include "util/signals.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/fsutil.h"
#include "util/progress.h"

static volatile sig_atomic_t gentle;        /* a first signal may stop the run gently */
static volatile sig_atomic_t signals_quiet;

static void say(const char *s)
{
    ssize_t w = write(STDERR_FILENO, s, strlen(s));
    (void)w;
}

static void on_signal(int sig)
{
    const char *name = sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : sig == SIGPIPE ? "SIGPIPE" : "SIGHUP";
    /* SIGPIPE and SIGHUP: whoever reads the progress is gone, so nobody would see a gentle stop */
    if (gentle && !progress_stopping() && (sig == SIGINT || sig == SIGTERM)) {
        progress_request_stop(sig);
        if (!signals_quiet) {
            say("\nsparkreport: ");
            say(name);
            say(": stopping after the current measurement; the report will say the run is partial "
                "(a second signal stops at once)\n");
        }
        return;
    }
    fs_cleanup_now();
    say("sparkreport: ");
    say(name);
    if (sig == SIGPIPE)
        say(": the output was closed (a pipe whose reader is gone)");
    say(gentle ? ": stopped at once; the unfinished run was removed\n" : ": stopped; nothing was written\n");
    _exit(128 + sig);
}

void signals_catch(int first_is_gentle, int quiet)
{
    static int at_exit;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaddset(&sa.sa_mask, SIGINT);
    sigaddset(&sa.sa_mask, SIGTERM);
    sigaddset(&sa.sa_mask, SIGPIPE);
    sigaddset(&sa.sa_mask, SIGHUP);
    gentle = first_is_gentle;
    signals_quiet = quiet;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGPIPE, &sa, NULL);      /* `sparkreport run ... 2>&1 | head -1` */
    sigaction(SIGHUP, &sa, NULL);
    if (!at_exit++)
        atexit(fs_cleanup_now);         /* DIE() and other exits leave no temporaries either */
}
