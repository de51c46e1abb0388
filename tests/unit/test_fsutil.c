/* test_fsutil.c: atomic writes leave the old file or the new one and never a temporary;
 * write errors name the path and the system's reason; the cleanup list removes registered
 * temporaries (files before their folder); stale run folders are told from live ones. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <utime.h>

#include "check.h"
#include "util/fsutil.h"

static char root[256];

static int entries(const char *dir)     /* files in dir, "." and ".." not counted */
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int n = 0;
    while (d && (e = readdir(d)))
        n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    if (d)
        closedir(d);
    return n;
}

static void atomic_writes(void)
{
    char path[512], err[1024], *data;
    size_t n;
    snprintf(path, sizeof path, "%s/a.txt", root);
    EXPECT(fs_write_atomic(path, "one", 3, err, sizeof err) == 0);
    EXPECT(fs_write_atomic(path, "second", 6, err, sizeof err) == 0);
    EXPECT(fs_read_file(path, 100, &data, &n, err, sizeof err) == 0 && n == 6);
    EXPECT_STR(data, "second");
    free(data);
    EXPECT(entries(root) == 1);

    /* past the file size limit: EFBIG (SIGXFSZ ignored), the old content stays, no temporary */
    struct rlimit old, small = { 4096, 4096 };
    char big[8192];
    memset(big, 'x', sizeof big);
    getrlimit(RLIMIT_FSIZE, &old);
    small.rlim_max = old.rlim_max;
    signal(SIGXFSZ, SIG_IGN);
    setrlimit(RLIMIT_FSIZE, &small);
    int rc = fs_write_atomic(path, big, sizeof big, err, sizeof err);
    setrlimit(RLIMIT_FSIZE, &old);
    char want[600];
    snprintf(want, sizeof want, "%s: cannot write: File too large", path);
    EXPECT(rc == -1);
    EXPECT_STR(err, want);
    EXPECT(fs_read_file(path, 100, &data, &n, err, sizeof err) == 0 && n == 6);
    free(data);
    EXPECT(entries(root) == 1);

    /* a file where the folder should be: the path and the reason */
    snprintf(path, sizeof path, "%s/a.txt/b.txt", root);
    EXPECT(fs_write_atomic(path, "x", 1, err, sizeof err) == -1);
    snprintf(want, sizeof want, "%s: cannot create: Not a directory", path);
    EXPECT_STR(err, want);
}

static void temporaries(void)
{
    char path[512], err[1024];
    int fd;
    snprintf(path, sizeof path, "%s/t.pdf", root);
    char *tmp = fs_temp_create(path, &fd, err, sizeof err);
    EXPECT(tmp != NULL && strncmp(tmp, path, strlen(path)) == 0 && strstr(tmp, ".tmp-") != NULL);
    EXPECT(write(fd, "pdf", 3) == 3);
    close(fd);
    EXPECT(fs_temp_commit(tmp, path, err, sizeof err) == 0);
    EXPECT(access(tmp, F_OK) != 0 && access(path, F_OK) == 0);
    struct stat st;
    mode_t um = umask(022);
    umask(um);
    EXPECT(stat(path, &st) == 0 && (st.st_mode & 0777) == (0666 & ~um));
    free(tmp);

    tmp = fs_temp_create(path, &fd, err, sizeof err);
    close(fd);
    fs_temp_discard(tmp);
    EXPECT(access(tmp, F_OK) != 0);
    free(tmp);
    fs_cleanup_now();                   /* nothing registered any more: the committed file stays */
    EXPECT(access(path, F_OK) == 0);
}

static void cleanup_list(void)
{
    char dir[512], file[600], tmpfile[600], err[256];
    int fd;
    snprintf(dir, sizeof dir, "%s/run", root);
    EXPECT(mkdir(dir, 0777) == 0);
    snprintf(file, sizeof file, "%s/results.json", dir);
    EXPECT(fs_write_atomic(file, "{}", 2, err, sizeof err) == 0);
    EXPECT(fs_cleanup_add(dir, 1) == 0);            /* the folder first: removed after its files */
    EXPECT(fs_cleanup_add(file, 0) == 0);
    snprintf(tmpfile, sizeof tmpfile, "%s/report.pdf", dir);
    char *tmp = fs_temp_create(tmpfile, &fd, err, sizeof err);
    close(fd);
    fs_cleanup_now();
    EXPECT(access(tmp, F_OK) != 0 && access(file, F_OK) != 0 && access(dir, F_OK) != 0);
    free(tmp);

    char longpath[FS_CLEANUP_PATH + 8];
    memset(longpath, 'a', sizeof longpath - 1);
    longpath[sizeof longpath - 1] = '\0';
    EXPECT(fs_cleanup_add(longpath, 0) == -1);
    int added = 0;
    while (fs_cleanup_add("/nonexistent/x", 0) == 0 && added < 100)
        added++;
    EXPECT(added == FS_CLEANUP_MAX);
    fs_cleanup_forget("/nonexistent/x");
    EXPECT(fs_cleanup_add("/nonexistent/x", 0) == 0);
    fs_cleanup_now();
}

static char last_removed[64];
static void removed(const char *path) { snprintf(last_removed, sizeof last_removed, "%s", strrchr(path, '/') + 1); }

static void stale_folders(void)
{
    char err[256], old[512], inner[600], marker[600];
    char *mine = fs_mkdtemp(root, ".tmp-", err, sizeof err);       /* locked by this process */
    EXPECT(mine != NULL);
    snprintf(marker, sizeof marker, "%s/%s", mine, FS_TMP_MARKER);
    EXPECT(access(marker, F_OK) == 0);
    snprintf(old, sizeof old, "%s/.tmp-gone12", root);               /* a dead run's, unlocked */
    EXPECT(mkdir(old, 0777) == 0);
    snprintf(inner, sizeof inner, "%s/run.log", old);
    EXPECT(fs_write_atomic(inner, "log", 3, err, sizeof err) == 0);
    snprintf(inner, sizeof inner, "%s/%s", old, FS_TMP_MARKER);     /* the words fs_mkdtemp writes */
    char *words = NULL;
    EXPECT(fs_read_file(marker, 1000, &words, NULL, err, sizeof err) == 0);
    EXPECT(fs_write_atomic(inner, words, strlen(words), err, sizeof err) == 0);
    free(words);
    /* Issue 28: what a user made with our prefix is never removed: no marker, a marker with other
     * words, a marker that is a link, a name that is not the prefix and six letters or digits */
    static const char *const users[] = { ".tmp-mine12", ".tmp-other1", ".tmp-linked", ".tmp-backup-2024", NULL };
    char user[600], f[700];
    for (int i = 0; users[i]; i++) {
        snprintf(user, sizeof user, "%s/%s", root, users[i]);
        EXPECT(mkdir(user, 0777) == 0);
        snprintf(f, sizeof f, "%s/%s", user, FS_TMP_MARKER);
        if (i == 1)
            EXPECT(fs_write_atomic(f, "mine\n", 5, err, sizeof err) == 0);
        if (i == 2)
            EXPECT(symlink(marker, f) == 0);
        if (i == 3) {                   /* a copy of a real marker */
            char *data;
            size_t n;
            EXPECT(fs_read_file(inner, 4096, &data, &n, err, sizeof err) == 0
                   && fs_write_atomic(f, data, n, err, sizeof err) == 0);
            free(data);
        }
    }
    EXPECT(fs_clean_stale(root, ".tmp-", removed) == 0);             /* all younger than FS_STALE_S */
    struct utimbuf t = { time(NULL) - 2 * FS_STALE_S, time(NULL) - 2 * FS_STALE_S };
    EXPECT(utime(old, &t) == 0 && utime(mine, &t) == 0);
    for (int i = 0; users[i]; i++) {
        snprintf(user, sizeof user, "%s/%s", root, users[i]);
        EXPECT(utime(user, &t) == 0);
    }
    EXPECT(fs_clean_stale(root, ".tmp-", removed) == 1);             /* the locked one and the user's stay */
    EXPECT_STR(last_removed, ".tmp-gone12");
    EXPECT(access(old, F_OK) != 0 && access(mine, F_OK) == 0);
    for (int i = 0; users[i]; i++) {
        snprintf(user, sizeof user, "%s/%s", root, users[i]);
        EXPECT(access(user, F_OK) == 0);
        fs_rm_rf(user);
    }
    fs_rm_rf(mine);
    free(mine);
}

/* Issue 18: inputs that are not regular files are refused without blocking; a finished run
 * takes a free name without replacing one; latest is replaced only when it is our link. */
static void not_files(void)
{
    char fifo[512], err[512], *data = NULL, *a, *b, *taken, link[600], mine[512];
    snprintf(fifo, sizeof fifo, "%s/fifo", root);
    EXPECT(mkfifo(fifo, 0600) == 0);
    EXPECT(fs_read_file(fifo, 100, &data, NULL, err, sizeof err) == -1);     /* returns at once */
    EXPECT(strstr(err, "/fifo: not a regular file (a FIFO)") != NULL);
    EXPECT(fs_read_file("/dev/null", 100, &data, NULL, err, sizeof err) == -1);
    EXPECT_STR(err, "/dev/null: not a regular file (a character device)");
    EXPECT(fs_read_file(root, 100, &data, NULL, err, sizeof err) == -1);
    EXPECT(strstr(err, ": not a regular file: Is a directory") != NULL);
    EXPECT(fs_check_output(fifo, 0, err, sizeof err) == -1 && strstr(err, "cannot write a file there: it is a FIFO"));
    EXPECT(fs_check_output(root, 1, err, sizeof err) == 0 && fs_check_output(fifo, 1, err, sizeof err) == -1);
    unlink(fifo);

    a = fs_mkdtemp(root, ".tmp-", err, sizeof err);
    b = fs_mkdtemp(root, ".tmp-", err, sizeof err);
    snprintf(mine, sizeof mine, "%s/run", root);
    char *first = fs_rename_unique(a, mine, err, sizeof err), *second = fs_rename_unique(b, mine, err, sizeof err);
    EXPECT(first && strcmp(first, mine) == 0);
    EXPECT(second && strstr(second, "/run-2") != NULL);
    EXPECT(entries(first) == 1 && entries(second) == 1);    /* the marker fs_mkdtemp writes; run.c removes it */
    taken = fs_mkdtemp(root, ".tmp-", err, sizeof err);
    snprintf(link, sizeof link, "%s-3", mine);
    EXPECT(mkdir(link, 0700) == 0);                    /* an empty folder by that name is not replaced either */
    free(a);
    a = fs_rename_unique(taken, mine, err, sizeof err);
    EXPECT(a && strstr(a, "/run-4") != NULL);
    EXPECT(rmdir(link) == 0);

    snprintf(link, sizeof link, "%s/latest", root);
    EXPECT(fs_symlink_replace("run", link, err, sizeof err) == 0);
    EXPECT(fs_symlink_replace("run-2", link, err, sizeof err) == 0);       /* ours: replaced */
    unlink(link);
    EXPECT(fs_write_atomic(link, "notes", 5, err, sizeof err) == 0);
    EXPECT(fs_symlink_replace("run", link, err, sizeof err) == -1);
    EXPECT(strstr(err, "/latest: left as it is: it is a regular file that sparkreport did not make") != NULL);
    EXPECT(fs_read_file(link, 100, &data, NULL, err, sizeof err) == 0 && strcmp(data, "notes") == 0);
    free(data);
    unlink(link);
    EXPECT(symlink("/tmp", link) == 0 && fs_symlink_replace("run", link, err, sizeof err) == -1);
    unlink(link);
    fs_rm_rf(first);
    fs_rm_rf(second);
    fs_rm_rf(a);
    free(first);
    free(second);
    free(a);
    free(b);
    free(taken);
}

int main(void)
{
    snprintf(root, sizeof root, "%s/sparkreport-fsutil-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(root)) {
        printf("cannot make a temporary folder: %s\n", strerror(errno));
        return 1;
    }
    atomic_writes();
    temporaries();
    cleanup_list();
    stale_folders();
    not_files();
    fs_rm_rf(root);
    return CHECK_DONE();
}
