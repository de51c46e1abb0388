/* test_watch.c: the process's step deadline (util/watch.h): a step that outlives it ends the
 * process with the message, the exit code and the registered temporaries removed; a step
 * disarmed in time, or re-armed, does not. Each case runs in a child process. */
#include "check.h"
#include "util/fsutil.h"
#include "util/timing.h"
#include "util/watch.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

/* Runs body in a child with stderr into a pipe; its exit status, what it wrote, and the seconds. */
static int child(void (*body)(const char *), const char *arg, char *out, size_t n, double *took)
{
    int p[2], status = -1;
    if (pipe(p) != 0)
        return -1;
    double t0 = timing_now();
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
    *took = timing_now() - t0;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static void blocked_past(const char *tmp)
{
    int fd = open(tmp, O_CREAT | O_WRONLY, 0600);
    close(fd);
    fs_cleanup_add(tmp, 0);
    watch_arm(0.2, "sparkreport: the step missed its deadline", 7);
    sleep(10);                          /* a step that never returns */
}

static void finished_in_time(const char *arg)
{
    (void)arg;
    watch_arm(0.2, "never said", 7);
    watch_disarm();
    usleep(500000);
    watch_arm(0.3, "never said either", 7);
    watch_arm(5, "re-armed: the later deadline counts", 7);
    usleep(500000);
}

int main(void)
{
    char out[512], tmp[] = "/tmp/sparkreport-test-watch-XXXXXX";
    double took;
    int fd = mkstemp(tmp);
    EXPECT(fd >= 0);
    close(fd);
    EXPECT(child(blocked_past, tmp, out, sizeof out, &took) == 7);
    EXPECT_STR(out, "sparkreport: the step missed its deadline\n");
    EXPECT(took < 3);
    EXPECT(access(tmp, F_OK) != 0);     /* the temporary removed */
    unlink(tmp);
    EXPECT(child(finished_in_time, NULL, out, sizeof out, &took) == 0);
    EXPECT_STR(out, "");
    return CHECK_DONE();
}
