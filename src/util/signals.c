/* signals.c: what every signal the program can receive does. SIGINT/SIGTERM: a gentle first
 * stop for a run, an immediate exit that removes the registered temporaries otherwise; every
 * other signal that would end the process (SIGHUP, SIGPIPE, SIGQUIT, SIGUSR1/2, SIGALRM,
 * SIGVTALRM, SIGXCPU, ...) ends it at once the same way, naming the signal; SIGPROF is ignored
 * unless the scenario watchdog (lua/state.c) watches; crashes (SIGSEGV, ...) remove the
 * temporaries, say so and end as the default would. The handlers only call async-signal-safe
 * functions (write, unlink, rmdir, getrlimit, signal, raise, _exit). */
#include "util/signals.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "util/fsutil.h"
#include "util/progress.h"

#if defined(__SANITIZE_ADDRESS__)
#define SR_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(undefined_behavior_sanitizer)
#define SR_SANITIZED 1
#endif
#endif

static volatile sig_atomic_t gentle;        /* a first signal may stop the run gently */
static volatile sig_atomic_t measured;      /* signals_measured: the measurements are done */
static volatile sig_atomic_t finished;      /* signals_finished: the run's folder is complete and published */
static char finished_dir[1024];             /* where, for the message */
static volatile sig_atomic_t signals_quiet;

/* The signals that end the process at once (after SIGINT/SIGTERM), and what each means. */
static const struct {
    int sig;
    const char *name, *why;
} enders[] = {
    { SIGINT, "SIGINT", "" },
    { SIGTERM, "SIGTERM", "" },
    { SIGHUP, "SIGHUP", "" },
    { SIGPIPE, "SIGPIPE", ": the output was closed (a pipe whose reader is gone)" },
    { SIGQUIT, "SIGQUIT", "" },
    { SIGUSR1, "SIGUSR1", "" },
    { SIGUSR2, "SIGUSR2", "" },
    { SIGALRM, "SIGALRM", "" },
    { SIGVTALRM, "SIGVTALRM", "" },
    { SIGXCPU, "SIGXCPU", ": the processor-time limit (ulimit -t) is spent" },
#ifdef SIGPOLL
    { SIGPOLL, "SIGPOLL", "" },
#endif
#ifdef SIGSTKFLT
    { SIGSTKFLT, "SIGSTKFLT", "" },
#endif
#ifdef SIGPWR
    { SIGPWR, "SIGPWR", ": the power is failing" },
#endif
};

#ifndef SR_SANITIZED                /* the sanitizers report faults themselves */
/* Faults: a bug of ours, or a limit (the stack); the default action still follows (a core). */
static const struct {
    int sig;
    const char *name;
} faults[] = { { SIGSEGV, "SIGSEGV" }, { SIGBUS, "SIGBUS" }, { SIGFPE, "SIGFPE" }, { SIGILL, "SIGILL" },
               { SIGSYS, "SIGSYS" } };

#endif

static void say(const char *s)
{
    ssize_t w = write(STDERR_FILENO, s, strlen(s));
    (void)w;
}

static const char *name_of(int sig)
{
    for (size_t i = 0; i < sizeof enders / sizeof enders[0]; i++)
        if (enders[i].sig == sig)
            return enders[i].name;
    return "a signal";
}

static void on_signal(int sig)
{
    /* only SIGINT and SIGTERM are gentle: after the others nobody would see a gentle stop, or
     * the system ends the process soon anyway (SIGXCPU, then SIGKILL at the hard limit) */
    if (gentle && !progress_stopping() && (sig == SIGINT || sig == SIGTERM)) {
        progress_request_stop(sig);
        if (!signals_quiet) {
            say("\nsparkreport: ");
            say(name_of(sig));
            say(measured || progress_measured()    /* after the last experiment's phase ended, too */
                ? ": the measurements are done; stopping once results.json and the PDFs are written "
                  "(complete), without the comparison with a baseline (a second signal stops at once)\n"
                : ": stopping after the current measurement; the report will say the run is partial "
                  "(a second signal stops at once)\n");
        }
        return;
    }
    if (finished) {                     /* nothing is left to cut, nothing to remove */
        say("sparkreport: ");
        say(name_of(sig));
        say(": the run had finished: kept ");
        say(finished_dir);
        say(progress_stopping() ? " (its files complete)\n" : " (its files complete); nothing was cut\n");
        _exit(128 + sig);
    }
    fs_cleanup_now();
    say("sparkreport: ");
    say(name_of(sig));
    for (size_t i = 0; i < sizeof enders / sizeof enders[0]; i++)
        if (enders[i].sig == sig)
            say(enders[i].why);
    say(gentle ? ": stopped at once; the unfinished run was removed\n" : ": stopped; nothing was written\n");
    if (sig == SIGQUIT) {               /* its default leaves a core: keep that */
        signal(sig, SIG_DFL);
        raise(sig);
    }
    _exit(128 + sig);
}

#ifndef SR_SANITIZED
static void on_fault(int sig)
{
    struct rlimit r;
    fs_cleanup_now();
    say("sparkreport: ");
    for (size_t i = 0; i < sizeof faults / sizeof faults[0]; i++)
        if (faults[i].sig == sig)
            say(faults[i].name);
    say(": the program crashed (a bug; or, for SIGSEGV, the stack limit: ulimit -s");
    if (getrlimit(RLIMIT_STACK, &r) == 0 && r.rlim_cur != RLIM_INFINITY) {
        char n[32];
        int k = 0;
        unsigned long long v = (unsigned long long)r.rlim_cur / 1024;
        do
            n[k++] = (char)('0' + v % 10);
        while ((v /= 10) && k < 30);
        say(" is ");
        while (k > 0) {
            char c[2] = { n[--k], '\0' };
            say(c);
        }
        say(" KiB");
    }
    say("); nothing unfinished was left\n");
    signal(sig, SIG_DFL);
    raise(sig);
}
#endif

/* The fault handler runs on a stack of its own: a stack overflow leaves none to run on. */
static void catch_faults(void)
{
#ifndef SR_SANITIZED
    static char alt[64 * 1024];
    stack_t ss = { .ss_sp = alt, .ss_size = sizeof alt, .ss_flags = 0 };
    struct sigaction sa;
    if (sigaltstack(&ss, NULL) != 0)
        return;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_fault;
    sa.sa_flags = SA_ONSTACK | SA_RESETHAND;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof faults / sizeof faults[0]; i++)
        sigaction(faults[i].sig, &sa, NULL);
#endif
}

void signals_catch(int first_is_gentle, int quiet)
{
    static int at_exit;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof enders / sizeof enders[0]; i++)
        sigaddset(&sa.sa_mask, enders[i].sig);
    gentle = first_is_gentle;
    measured = finished = 0;
    signals_quiet = quiet;
    for (size_t i = 0; i < sizeof enders / sizeof enders[0]; i++)
        sigaction(enders[i].sig, &sa, NULL);
    signal(SIGPROF, SIG_IGN);           /* a profiler's stray one; the watchdog installs its own while it watches */
    if (!at_exit++) {
        atexit(fs_cleanup_now);         /* DIE() and other exits leave no temporaries either */
        catch_faults();
    }
}

void signals_measured(void)
{
    measured = 1;
}

void signals_finished(const char *dir)
{
    snprintf(finished_dir, sizeof finished_dir, "%s", dir);
    gentle = 0;                         /* a signal from now on ends the process at once, saying so */
    finished = 1;
}

const char *signals_stopped_by(int sig)
{
    return sig == SIGINT ? "interrupted by SIGINT" : sig == SIGTERM ? "stopped by SIGTERM" : "stopped by a signal";
}
