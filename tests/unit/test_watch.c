/* test_watch.c: the process's step deadline (util/watch.h): a step that outlives it ends the
 * process with the message, the exit code and the registered temporaries removed; a step
 * disarmed in time, or re-armed, does not. Each case runs in a child process. */
#include "check.h"
#include "child.h"
#include "util/fsutil.h"
#include "util/timing.h"
#include "util/watch.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

/* child_run, and the seconds it took. */
static int child(void (*body)(const char *), const char *arg, char *out, size_t n, double *took)
{
    double t0 = timing_now();
    int rc = child_run(body, arg, out, n);
    *took = timing_now() - t0;
    return rc;
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
