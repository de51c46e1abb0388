/* fsutil.c: atomic writes, bounded reads and run-folder housekeeping on POSIX. Callers
 * decide what to write; this file only makes sure it is all or nothing. */
#include "util/fsutil.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

int fs_write_atomic(const char *path, const void *data, size_t n, char *err, size_t errlen)
{
    size_t len = strlen(path) + 16;
    char *tmp = xmalloc(len);
    snprintf(tmp, len, "%s.tmp-XXXXXX", path);
    errno = 0;
    int fd = mkstemp(tmp);
    if (fd < 0) {
        fail(err, errlen, path, "cannot create");
        free(tmp);
        return -1;
    }
    int ok = write_all(fd, data, n) == 0 && fchmod(fd, (mode_t)default_mode()) == 0
             && fsync(fd) == 0;
    int e = errno;
    if (close(fd) != 0 && ok) {
        ok = 0;
        e = errno;
    }
    if (ok && rename(tmp, path) != 0) {
        ok = 0;
        e = errno;
    }
    if (!ok)
        unlink(tmp);
    free(tmp);
    if (!ok) {
        errno = e;
        return fail(err, errlen, path, "cannot write");
    }
    return 0;
}

int fs_read_file(const char *path, size_t max, char **data, size_t *n, char *err, size_t errlen)
{
    struct stat st;
    errno = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return fail(err, errlen, path, "cannot open");
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        if (!errno)
            errno = EISDIR;
        fail(err, errlen, path, "not a regular file");
        close(fd);
        return -1;
    }
    if ((size_t)st.st_size > max) {
        errno = 0;
        char what[96];
        snprintf(what, sizeof what, "too large (%lld bytes, at most %zu)", (long long)st.st_size, max);
        close(fd);
        return fail(err, errlen, path, what);
    }
    char *buf = xmalloc((size_t)st.st_size + 1);
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

int fs_mkdir_p(const char *path, char *err, size_t errlen)
{
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
    return p;
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

int fs_symlink_replace(const char *target, const char *linkpath, char *err, size_t errlen)
{
    size_t len = strlen(linkpath) + 16;
    char *tmp = xmalloc(len);
    snprintf(tmp, len, "%s.tmp-%ld", linkpath, (long)getpid());
    unlink(tmp);
    errno = 0;
    int rc = 0;
    if (symlink(target, tmp) != 0 || rename(tmp, linkpath) != 0) {
        int e = errno;
        unlink(tmp);
        errno = e;
        rc = fail(err, errlen, linkpath, "cannot update link");
    }
    free(tmp);
    return rc;
}

int fs_copy_file(const char *src, const char *dst, char *err, size_t errlen)
{
    char *data;
    size_t n;
    if (fs_read_file(src, (size_t)1 << 30, &data, &n, err, errlen) != 0)
        return -1;
    int rc = fs_write_atomic(dst, data, n, err, errlen);
    free(data);
    return rc;
}

int fs_exists(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0;
}
