/* fsutil.c: atomic writes, bounded reads and run-folder housekeeping on POSIX, and the list
 * of temporaries a sudden exit removes. Callers decide what to write; this file only makes
 * sure it is all or nothing. */
#include "util/fsutil.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util/error.h"

static int fail(char *err, size_t errlen, const char *path, const char *what)
{
    if (errno)
        snprintf(err, errlen, "%s: %s: %s", path, what, strerror(errno));
    else
        snprintf(err, errlen, "%s: %s", path, what);
    return -1;
}

static int write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* mkstemp makes 0600 files; reports are meant to be shared like any file the user makes. */
static int default_mode(void)
{
    mode_t m = umask(022);
    umask(m);
    return 0666 & ~m;
}

/* ---- cleanup on a sudden exit ---- */

static struct {
    volatile sig_atomic_t used;     /* 0 free, 1 a file, 2 a folder */
    char path[FS_CLEANUP_PATH];
} cleanup[FS_CLEANUP_MAX];

int fs_cleanup_add(const char *path, int is_dir)
{
    if (strlen(path) >= FS_CLEANUP_PATH)
        return -1;
    for (int i = 0; i < FS_CLEANUP_MAX; i++) {
        if (!cleanup[i].used) {
            memcpy(cleanup[i].path, path, strlen(path) + 1);
            atomic_signal_fence(memory_order_seq_cst);
            cleanup[i].used = is_dir ? 2 : 1;   /* set last: a handler sees a whole path or none */
            return 0;
        }
    }
    return -1;
}

void fs_cleanup_forget(const char *path)
{
    for (int i = 0; i < FS_CLEANUP_MAX; i++)
        if (cleanup[i].used && strcmp(cleanup[i].path, path) == 0)
            cleanup[i].used = 0;
}

void fs_cleanup_now(void)
{
    int e = errno;                  /* a signal handler must leave errno as it found it */
    for (int pass = 1; pass <= 2; pass++) {
        for (int i = 0; i < FS_CLEANUP_MAX; i++) {
            if (cleanup[i].used != pass)
                continue;
            if (pass == 1)
                unlink(cleanup[i].path);
            else
                rmdir(cleanup[i].path);
            cleanup[i].used = 0;
        }
    }
    errno = e;
}

/* The signals that end the process (util/signals.c) wait while a temporary is created and registered, or renamed and
 * forgotten, so their handler never finds one it does not know of. */
static void hold_signals(sigset_t *old)
{
    sigset_t s;
    sigemptyset(&s);
    sigaddset(&s, SIGINT);
    sigaddset(&s, SIGTERM);
    sigaddset(&s, SIGPIPE);
    sigaddset(&s, SIGHUP);
    sigaddset(&s, SIGQUIT);
    sigaddset(&s, SIGUSR1);
    sigaddset(&s, SIGUSR2);
    sigaddset(&s, SIGALRM);
    sigaddset(&s, SIGVTALRM);
    sigaddset(&s, SIGXCPU);
    sigprocmask(SIG_BLOCK, &s, old);
}

static void release_signals(const sigset_t *old)
{
    sigprocmask(SIG_SETMASK, old, NULL);
}

/* ---- atomic files ---- */

char *fs_temp_create(const char *path, int *fd, char *err, size_t errlen)
{
    size_t len = strlen(path) + 16;
    char *tmp = xmalloc(len);
    sigset_t old;
    snprintf(tmp, len, "%s.tmp-XXXXXX", path);
    hold_signals(&old);
    errno = 0;
    *fd = mkostemp(tmp, O_CLOEXEC);
    int e = errno;
    if (*fd >= 0)
        fs_cleanup_add(tmp, 0);
    release_signals(&old);
    if (*fd < 0) {
        errno = e;
        fail(err, errlen, path, "cannot create");
        free(tmp);
        return NULL;
    }
    return tmp;
}

int fs_temp_commit(const char *tmp, const char *path, char *err, size_t errlen)
{
    sigset_t old;
    int rc = 0;
    hold_signals(&old);
    if (chmod(tmp, (mode_t)default_mode()) != 0 || rename(tmp, path) != 0) {
        int e = errno;
        unlink(tmp);
        errno = e;
        rc = fail(err, errlen, path, "cannot write");
    }
    fs_cleanup_forget(tmp);
    release_signals(&old);
    return rc;
}

void fs_temp_discard(const char *tmp)
{
    sigset_t old;
    hold_signals(&old);
    unlink(tmp);
    fs_cleanup_forget(tmp);
    release_signals(&old);
}

int fs_write_atomic(const char *path, const void *data, size_t n, char *err, size_t errlen)
{
    int fd;
    char *tmp = fs_temp_create(path, &fd, err, errlen);
    if (!tmp)
        return -1;
    errno = 0;
    int ok = write_all(fd, data, n) == 0 && fsync(fd) == 0;
    int e = errno;
    if (close(fd) != 0 && ok) {
        ok = 0;
        e = errno;
    }
    int rc = 0;
    if (!ok) {
        fs_temp_discard(tmp);
        errno = e;
        rc = fail(err, errlen, path, "cannot write");
    } else {
        rc = fs_temp_commit(tmp, path, err, errlen);
    }
    free(tmp);
    return rc;
}

const char *fs_kind(unsigned mode)
{
    mode_t m = (mode_t)mode;
    return S_ISREG(m) ? "a regular file" : S_ISDIR(m) ? "a directory" : S_ISFIFO(m) ? "a FIFO"
         : S_ISCHR(m) ? "a character device" : S_ISBLK(m) ? "a block device" : S_ISSOCK(m) ? "a socket"
         : S_ISLNK(m) ? "a symbolic link" : "not a file";
}

/* Opens path for reading without blocking (a FIFO with no writer, a device) and checks it is a
 * regular file; -1 with "PATH: not a regular file (a FIFO)" or the open error. */
static int open_regular(const char *path, struct stat *st, char *err, size_t errlen)
{
    errno = 0;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0)
        return fail(err, errlen, path, "cannot open");
    if (fstat(fd, st) != 0) {
        fail(err, errlen, path, "cannot open");
        close(fd);
        return -1;
    }
    if (!S_ISREG(st->st_mode)) {
        char what[64];
        errno = S_ISDIR(st->st_mode) ? EISDIR : 0;
        snprintf(what, sizeof what, "not a regular file (%s)", fs_kind(st->st_mode));
        fail(err, errlen, path, errno ? "not a regular file" : what);
        close(fd);
        return -1;
    }
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    return fd;
}

int fs_read_file(const char *path, size_t max, char **data, size_t *n, char *err, size_t errlen)
{
    struct stat st;
    int fd = open_regular(path, &st, err, errlen);
    if (fd < 0)
        return -1;
    if ((size_t)st.st_size > max) {
        errno = 0;
        char what[96];
        snprintf(what, sizeof what, "too large (%lld bytes, at most %zu)", (long long)st.st_size, max);
        close(fd);
        return fail(err, errlen, path, what);
    }
    char *buf = malloc((size_t)st.st_size + 1);
    if (!buf) {
        char what[96];
        snprintf(what, sizeof what, "out of memory reading it (%lld bytes)", (long long)st.st_size);
        close(fd);
        errno = 0;
        fail(err, errlen, path, what);
        errno = ENOMEM;
        return -1;
    }
    size_t got = 0;
    while (got < (size_t)st.st_size) {
        ssize_t r = read(fd, buf + got, (size_t)st.st_size - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    int e = errno;
    close(fd);
    if (got != (size_t)st.st_size) {
        free(buf);
        errno = e;
        return fail(err, errlen, path, "cannot read");
    }
    buf[got] = '\0';
    *data = buf;
    if (n)
        *n = got;
    return 0;
}

/* The folder a file path is in must exist for the file to be written: "dir/x.pdf" -> "dir". */
static int parent_is_folder(const char *path, char *err, size_t errlen)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return 0;
    size_t n = slash == path ? 1 : (size_t)(slash - path);
    char *dir = xmalloc(n + 1);
    struct stat st;
    memcpy(dir, path, n);
    dir[n] = '\0';
    errno = 0;
    int rc = stat(dir, &st) == 0 && S_ISDIR(st.st_mode) ? 0 : -1;
    if (rc != 0) {
        if (!errno)
            errno = ENOTDIR;
        fail(err, errlen, path, "cannot write: its folder");
    }
    free(dir);
    return rc;
}

/* Whether what will be written under path fits the system's limits: the whole path (with room for
 * a run folder's name and its files, or a temporary's suffix) under PATH_MAX, every name under
 * NAME_MAX. Said now, before the work, rather than by a failed create after it. */
static int fits_limits(const char *path, int want_dir, char *err, size_t errlen)
{
    size_t len = strlen(path), room = want_dir ? FS_OUTPUT_ROOM : FS_TEMP_SUFFIX;
    errno = 0;
    if (len + room >= FS_PATH_MAX) {
        snprintf(err, errlen, "%s: the path is %zu bytes long; the system takes at most %d and what is written %s "
                 "needs %zu more, so at most %zu here", path, len, FS_PATH_MAX - 1,
                 want_dir ? "inside (a run folder and its files)" : "beside it (a temporary name)", room,
                 (size_t)FS_PATH_MAX - 1 - room);
        return -1;
    }
    for (const char *p = path; *p;) {
        size_t n = strcspn(p, "/");
        int last = p[n + strspn(p + n, "/")] == '\0';
        size_t extra = last && !want_dir ? FS_TEMP_SUFFIX : 0;
        if (n + extra > FS_NAME_MAX) {
            snprintf(err, errlen, "%s: the name '%.*s' is %zu bytes long; a name takes at most %d bytes%s", path, (int)n,
                     p, n, FS_NAME_MAX - (int)extra, extra ? " (a temporary name beside it adds the rest)" : "");
            return -1;
        }
        p += n;
        p += strspn(p, "/");
    }
    return 0;
}

int fs_check_output(const char *path, int want_dir, char *err, size_t errlen)
{
    struct stat st;
    if (!*path) {
        snprintf(err, errlen, "'': an empty path cannot take %s", want_dir ? "run folders" : "a file");
        return -1;
    }
    if (fits_limits(path, want_dir, err, errlen) != 0)
        return -1;
    errno = 0;
    if (stat(path, &st) != 0) {
        if (want_dir)
            return 0;                   /* fs_mkdir_p makes it, or says why it cannot */
        if (errno == ENOENT)
            return parent_is_folder(path, err, errlen);
        return fail(err, errlen, path, "cannot write");
    }
    if (want_dir ? S_ISDIR(st.st_mode) : S_ISREG(st.st_mode))
        return 0;
    errno = 0;
    snprintf(err, errlen, "%s: cannot write %s there: it is %s", path, want_dir ? "run folders" : "a file",
             fs_kind(st.st_mode));
    return -1;
}

int fs_mkdir_p(const char *path, char *err, size_t errlen)
{
    if (!*path) {
        snprintf(err, errlen, "'': an empty path is no folder");
        return -1;
    }
    char *p = xstrdup(path);
    for (char *s = p + 1; ; s++) {
        if (*s == '/' || *s == '\0') {
            char c = *s;
            *s = '\0';
            errno = 0;
            if (mkdir(p, 0777) != 0 && errno != EEXIST) {
                fail(err, errlen, p, "cannot create folder");
                free(p);
                return -1;
            }
            *s = c;
            if (!c)
                break;
        }
    }
    struct stat st;
    errno = 0;
    int ok = stat(path, &st) == 0 && S_ISDIR(st.st_mode);
    if (!ok) {
        if (!errno)
            errno = ENOTDIR;
        fail(err, errlen, path, "cannot create folder");
    }
    free(p);
    return ok ? 0 : -1;
}

static const char marker_text[] = "made by sparkreport: a run folder not finished yet; removed with it\n";

char *fs_mkdtemp(const char *parent, const char *prefix, char *err, size_t errlen)
{
    size_t len = strlen(parent) + strlen(prefix) + 16;
    char *p = xmalloc(len);
    snprintf(p, len, "%s/%sXXXXXX", parent, prefix);
    errno = 0;
    if (!mkdtemp(p)) {
        fail(err, errlen, parent, "cannot create a folder in");
        free(p);
        return NULL;
    }
    chmod(p, (mode_t)(default_mode() | 0111));
    size_t mlen = strlen(p) + sizeof FS_TMP_MARKER + 1;
    char *marker = xmalloc(mlen);
    snprintf(marker, mlen, "%s/%s", p, FS_TMP_MARKER);
    int mfd = open(marker, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    int ok = mfd >= 0 && write_all(mfd, marker_text, sizeof marker_text - 1) == 0;
    if (mfd >= 0 && close(mfd) != 0)
        ok = 0;
    if (!ok) {
        fail(err, errlen, marker, "cannot create");
        unlink(marker);
        rmdir(p);
        free(marker);
        free(p);
        return NULL;
    }
    free(marker);
    int fd = open(p, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) != 0) {
        close(fd);                  /* no locks here (some network file systems): never stale */
    }
    return p;                       /* fd stays open, and the lock held, until exit */
}

/* Whether the folder open as fd, named name, is one fs_mkdtemp made with prefix: the name is the
 * prefix and mkdtemp's six letters or digits, it belongs to this user, and it holds our marker (a
 * regular file, not a link, with our words). A folder of the user's own that happens to start with
 * the prefix is none of these. */
static int made_by_us(int fd, const char *name, const char *prefix, const struct stat *st)
{
    const char *tail = name + strlen(prefix);
    char text[sizeof marker_text];
    if (strlen(tail) != 6 || strspn(tail, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789") != 6
        || st->st_uid != geteuid())
        return 0;
    int m = openat(fd, FS_TMP_MARKER, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    struct stat ms;
    ssize_t n = m >= 0 && fstat(m, &ms) == 0 && S_ISREG(ms.st_mode) ? read(m, text, sizeof text) : -1;
    if (m >= 0)
        close(m);
    return n == (ssize_t)sizeof marker_text - 1 && memcmp(text, marker_text, (size_t)n) == 0;
}

int fs_clean_stale(const char *parent, const char *prefix, void (*removed)(const char *path))
{
    DIR *d = opendir(parent);
    struct dirent *e;
    int n = 0;
    if (!d)
        return 0;
    while ((e = readdir(d)) != NULL) {
        if (strncmp(e->d_name, prefix, strlen(prefix)) != 0)
            continue;
        size_t len = strlen(parent) + strlen(e->d_name) + 2;
        char *path = xmalloc(len);
        struct stat st;
        snprintf(path, len, "%s/%s", parent, e->d_name);
        int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd >= 0 && fstat(fd, &st) == 0 && time(NULL) - st.st_mtime > FS_STALE_S
            && made_by_us(fd, e->d_name, prefix, &st) && flock(fd, LOCK_EX | LOCK_NB) == 0 && fs_rm_rf(path) == 0) {
            n++;
            if (removed)
                removed(path);
        }
        if (fd >= 0)
            close(fd);
        free(path);
    }
    closedir(d);
    return n;
}

int fs_rm_rf(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return errno == ENOENT ? 0 : -1;
    if (!S_ISDIR(st.st_mode))
        return unlink(path);
    DIR *d = opendir(path);
    if (!d)
        return -1;
    struct dirent *e;
    int rc = 0;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        size_t len = strlen(path) + strlen(e->d_name) + 2;
        char *child = xmalloc(len);
        snprintf(child, len, "%s/%s", path, e->d_name);
        if (fs_rm_rf(child) != 0)
            rc = -1;
        free(child);
    }
    closedir(d);
    return rmdir(path) == 0 ? rc : -1;
}

/* Whether linkpath may be replaced: absent, or a link to a plain name (what we make). */
static int link_is_ours(const char *linkpath, char *err, size_t errlen)
{
    struct stat st;
    char target[4096];
    if (lstat(linkpath, &st) != 0)
        return errno == ENOENT ? 1 : fail(err, errlen, linkpath, "cannot update link") + 1;
    ssize_t n = S_ISLNK(st.st_mode) ? readlink(linkpath, target, sizeof target - 1) : -1;
    if (n > 0) {
        target[n] = '\0';
        if (!strchr(target, '/') && strcmp(target, "..") != 0 && strcmp(target, ".") != 0)
            return 1;
    }
    errno = 0;
    snprintf(err, errlen, "%s: left as it is: it is %s that sparkreport did not make", linkpath,
             n > 0 ? "a link to another place" : fs_kind(st.st_mode));
    return 0;
}

int fs_symlink_replace(const char *target, const char *linkpath, char *err, size_t errlen)
{
    if (!link_is_ours(linkpath, err, errlen))
        return -1;
    size_t len = strlen(linkpath) + 32;
    char *tmp = xmalloc(len);
    sigset_t old;
    snprintf(tmp, len, "%s.tmp-%ld", linkpath, (long)getpid());
    hold_signals(&old);
    unlink(tmp);
    errno = 0;
    int rc = 0;
    if (symlink(target, tmp) != 0 || rename(tmp, linkpath) != 0) {
        int e = errno;
        unlink(tmp);
        errno = e;
        rc = fail(err, errlen, linkpath, "cannot update link");
    }
    release_signals(&old);
    free(tmp);
    return rc;
}

/* The real path an output would have: realpath of path, or for one that does not exist yet, of
 * its folder plus its name. NULL when neither resolves. Caller frees. */
static char *real_output(const char *path)
{
    char *r = realpath(path, NULL);
    if (r || errno != ENOENT)
        return r;
    const char *slash = strrchr(path, '/');
    char *dir = slash ? xstrdup(path) : xstrdup(".");
    if (slash)
        dir[slash == path ? 1 : slash - path] = '\0';
    char *rd = realpath(dir, NULL);
    free(dir);
    if (!rd)
        return NULL;
    const char *name = slash ? slash + 1 : path;
    size_t len = strlen(rd) + strlen(name) + 2;
    r = xmalloc(len);
    snprintf(r, len, "%s/%s", strcmp(rd, "/") == 0 ? "" : rd, name);
    free(rd);
    return r;
}

int fs_check_not_input(const char *out, const char *const *inputs, int n, char *err, size_t errlen)
{
    struct stat so, si;
    int have_out = stat(out, &so) == 0;     /* follows links: a link to an input is that input */
    char *ro = real_output(out);
    for (int i = 0; i < n; i++) {
        char *ri = inputs[i] ? realpath(inputs[i], NULL) : NULL;
        int same = inputs[i] && ((have_out && stat(inputs[i], &si) == 0 && so.st_dev == si.st_dev && so.st_ino == si.st_ino)
                                 || (ro && ri && strcmp(ro, ri) == 0));
        free(ri);
        if (same) {
            errno = 0;
            snprintf(err, errlen, "%s: the output is the input %s (the same file, a link to it or a hard link); "
                     "refusing to write over it; nothing was written", out, inputs[i]);
            free(ro);
            return -1;
        }
    }
    free(ro);
    return 0;
}

/* rename(from, to) that never replaces: renameat2's RENAME_NOREPLACE, or where the file system
 * lacks it, an empty folder made first as a claim (mkdir is atomic), then renamed over. */
static int rename_noreplace(const char *from, const char *to)
{
#ifdef RENAME_NOREPLACE
    if (renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE) == 0)
        return 0;
    if (errno != EINVAL && errno != ENOSYS)
        return -1;
#endif
    if (mkdir(to, 0700) != 0)
        return -1;
    if (rename(from, to) == 0)
        return 0;
    int e = errno;
    rmdir(to);
    errno = e;
    return -1;
}

char *fs_rename_unique(const char *from, const char *to, char *err, size_t errlen)
{
    size_t len = strlen(to) + 16;
    char *p = xmalloc(len);
    snprintf(p, len, "%s", to);
    for (int i = 2; i <= FS_UNIQUE_MAX; i++) {
        errno = 0;
        if (rename_noreplace(from, p) == 0)
            return p;
        if (errno != EEXIST && errno != ENOTEMPTY)
            break;
        snprintf(p, len, "%s-%d", to, i);
    }
    if (errno == EEXIST || errno == ENOTEMPTY)
        snprintf(err, errlen, "%s: cannot rename the finished run to %s: %d names taken", from, to, FS_UNIQUE_MAX);
    else
        snprintf(err, errlen, "%s: cannot rename the finished run to %s: %s", from, p, strerror(errno));
    free(p);
    return NULL;
}

int fs_exists(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0;
}
