/* tests/unit/child.h: a unit test's body run in a child process, its stderr captured (for the
 * tests of what a process says and how it ends: signals, the watchdog). */
#ifndef SR_TEST_CHILD_H
#define SR_TEST_CHILD_H

#include <stddef.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

/* Runs body(arg) in a child with stderr into a pipe; its exit status (128 + the signal that ended
 * it) and what it wrote, NUL-terminated in out (n bytes at most). */
static int child_run(void (*body)(const char *), const char *arg, char *out, size_t n)
{
    int p[2], status = -1;
    if (pipe(p) != 0)
        return -1;
    pid_t pid = fork();
    if (pid == 0) {
        dup2(p[1], STDERR_FILENO);
        close(p[0]);
        body(arg);
        _exit(0);
    }
    close(p[1]);
    ssize_t got = read(p[0], out, n - 1), r;
    while (got >= 0 && (r = read(p[0], out + got, n - 1 - (size_t)got)) > 0)
        got += r;
    out[got > 0 ? got : 0] = '\0';
    close(p[0]);
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

#endif
