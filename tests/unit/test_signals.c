/* test_signals.c: what a SIGTERM says and does once a run's measurements are done (issue 38,
 * class 8): after the last measurement the first one says the results are complete and only
 * what follows them is cut; once the run folder is published one ends the process at once
 * (143), saying the folder was kept whole and nothing was cut, and removes nothing. A stop that
 * comes once the last experiment's phase ended (its "done in" said) cuts nothing measured, one
 * during a phase cuts it short (src/util/progress.h). Each case
 * runs in a child process, its stderr read back. */
#include "check.h"
#include "child.h"
#include "util/fsutil.h"
#include "util/progress.h"
#include "util/signals.h"

#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* measured, not yet written: the first SIGTERM asks for a stop and says only the comparison goes */
static void after_measuring(const char *arg)
{
    (void)arg;
    signals_catch(1, 0);
    signals_measured();
    raise(SIGTERM);
    _exit(progress_stopping() == SIGTERM ? 42 : 1);
}

/* One experiment's phase and a SIGTERM: "after" its end, in the last experiment (what a user who
 * waits for its "done in" sends, before the runner has its record back): the measurements are done
 * and the stop cut none of them; "during" it, in one that is not the last: stopping after the
 * current measurement, as before, and the phase ended cut short. */
static void one_phase(const char *when)
{
    int after = strcmp(when, "after") == 0;
    signals_catch(1, 0);
    progress_quiet(1);
    progress_expect(after);
    progress_begin(when, 2, 1.0);
    if (!after)
        raise(SIGTERM);
    progress_end();
    if (after)
        raise(SIGTERM);
    _exit(progress_stopping() == SIGTERM && progress_ended() == after && progress_measured() == after ? 42 : 1);
}

/* published: a SIGTERM ends the process at once, says what was kept, removes nothing */
static void after_publishing(const char *dir)
{
    char file[256];
    snprintf(file, sizeof file, "%s/report.pdf", dir);
    signals_catch(1, 1);
    fs_cleanup_add(file, 0);            /* a file it still knows of: kept, not removed */
    signals_finished(dir);
    raise(SIGTERM);
    _exit(0);                           /* not reached: the handler exits */
}

/* published after a first signal had already cut the comparison: the second says the files are
 * complete, without claiming that nothing was cut */
static void after_a_first(const char *dir)
{
    signals_catch(1, 1);
    signals_measured();
    raise(SIGTERM);
    signals_finished(dir);
    raise(SIGTERM);
    _exit(0);
}

int main(void)
{
    char out[4096], dir[] = "/tmp/test_signals.XXXXXX", file[256];
    EXPECT(mkdtemp(dir) != NULL);
    snprintf(file, sizeof file, "%s/report.pdf", dir);
    int fd = open(file, O_CREAT | O_WRONLY, 0644);
    EXPECT(fd >= 0);
    close(fd);

    EXPECT(child_run(after_measuring, NULL, out, sizeof out) == 42);
    EXPECT_STR(out, "\nsparkreport: SIGTERM: the measurements are done; stopping once results.json and the PDFs are "
                    "written (complete), without the comparison with a baseline (a second signal stops at once)\n");

    EXPECT(child_run(one_phase, "after", out, sizeof out) == 42);
    EXPECT_STR(out, "\nsparkreport: SIGTERM: the measurements are done; stopping once results.json and the PDFs are "
                    "written (complete), without the comparison with a baseline (a second signal stops at once)\n");
    EXPECT(child_run(one_phase, "during", out, sizeof out) == 42);
    EXPECT_STR(out, "\nsparkreport: SIGTERM: stopping after the current measurement; the report will say the run is "
                    "partial (a second signal stops at once)\n");

    char want[1024];
    EXPECT(child_run(after_publishing, dir, out, sizeof out) == 128 + SIGTERM);
    snprintf(want, sizeof want, "sparkreport: SIGTERM: the run had finished: kept %s (its files complete); nothing was "
             "cut\n", dir);
    EXPECT_STR(out, want);
    EXPECT(access(file, F_OK) == 0);

    EXPECT(child_run(after_a_first, dir, out, sizeof out) == 128 + SIGTERM);
    snprintf(want, sizeof want, "sparkreport: SIGTERM: the run had finished: kept %s (its files complete)\n", dir);
    EXPECT_STR(out, want);
    EXPECT(access(file, F_OK) == 0);

    unlink(file);
    rmdir(dir);
    return CHECK_DONE();
}
