/* fsutil.h: files written so that nobody ever sees half of one (temporary name, fsync,
 * rename), bounded reads, run folders made under a temporary name and removed on failure.
 * Every error message names the path and the system's reason. */
#ifndef SR_FSUTIL_H
#define SR_FSUTIL_H

#include <stddef.h>

/* Writes data to path through "path.tmp-XXXXXX" in the same folder, then renames. */
int fs_write_atomic(const char *path, const void *data, size_t n, char *err, size_t errlen);

/* The steps of fs_write_atomic for writers that fill the file themselves: creates
 * "path.tmp-XXXXXX" (registered for fs_cleanup_now while it exists) and returns its name
 * (caller frees) and an open descriptor; commit gives it the user's umask mode and renames it
 * over path; discard removes it. Both forget the registration. */
char *fs_temp_create(const char *path, int *fd, char *err, size_t errlen);
int fs_temp_commit(const char *tmp, const char *path, char *err, size_t errlen);
void fs_temp_discard(const char *tmp);

/* What a sudden exit must not leave behind. While registered, fs_cleanup_now() removes the
 * path (a folder with rmdir, after every file). fs_cleanup_now only calls unlink and rmdir, so
 * a signal handler may call it. At most FS_CLEANUP_MAX paths of FS_CLEANUP_PATH bytes. */
#define FS_CLEANUP_MAX 16
#define FS_CLEANUP_PATH 4096
int fs_cleanup_add(const char *path, int is_dir);          /* -1 when full or too long */
void fs_cleanup_forget(const char *path);
void fs_cleanup_now(void);

/* Reads a whole regular file of at most max bytes; *data is NUL-terminated, caller frees. It is
 * opened without blocking and checked with fstat: a FIFO, a device or a socket is refused
 * ("PATH: not a regular file (a FIFO)"), never read. Out of memory: -1 with errno ENOMEM. */
int fs_read_file(const char *path, size_t max, char **data, size_t *n, char *err, size_t errlen);

int fs_mkdir_p(const char *path, char *err, size_t errlen);

/* Creates a new folder "parent/prefixXXXXXX" holding only the marker file FS_TMP_MARKER; returns
 * its path (caller frees) or NULL. The folder stays locked (flock) until this process exits, so
 * fs_clean_stale in another process can tell a folder in use from one left by a process that
 * died. The caller removes the marker with the folder (cmd/run.c's run_files[]). */
#define FS_TMP_MARKER ".sparkreport-unfinished"
char *fs_mkdtemp(const char *parent, const char *prefix, char *err, size_t errlen);

/* Removes the "parent/prefix*" folders fs_mkdtemp made for processes that are gone: provably
 * ours (the prefix and six letters or digits, this user's, holding FS_TMP_MARKER with our words),
 * unlocked and not modified for FS_STALE_S seconds (a folder younger than that may be about to be
 * locked). Anything else is left alone. Calls removed(path) for each; returns how many. */
#define FS_STALE_S 60
int fs_clean_stale(const char *parent, const char *prefix, void (*removed)(const char *path));

/* Removes a folder tree this program made (no symlinks are followed). */
int fs_rm_rf(const char *path);

/* Points linkpath at target, replacing an old link atomically; only a link to a plain name (as
 * this function makes) is replaced: anything else there is left alone (-1, err says so). */
int fs_symlink_replace(const char *target, const char *linkpath, char *err, size_t errlen);

int fs_exists(const char *path);

/* "a FIFO", "a directory", "a character device", ...: the kind of file an st_mode says. */
const char *fs_kind(unsigned mode);

/* Whether path can take an output: not empty, absent, or (want_dir) a folder, or (!want_dir) a
 * regular file; -1 with "PATH: cannot write a file here: it is a FIFO". The path must leave room
 * under the system's limits for what is written there: FS_OUTPUT_ROOM bytes inside a folder (a run
 * folder's name and its files' names), FS_TEMP_SUFFIX beside a file (fs_temp_create's
 * ".tmp-XXXXXX"), and no name longer than FS_NAME_MAX. Checked before the work starts. */
#define FS_PATH_MAX 4096            /* Linux's PATH_MAX, the terminating NUL included */
#define FS_NAME_MAX 255
#define FS_OUTPUT_ROOM 256
#define FS_TEMP_SUFFIX 11
int fs_check_output(const char *path, int want_dir, char *err, size_t errlen);

/* Whether the output path out is one of the n inputs (paths of files that exist): the same
 * device and inode after links (the same file, a hard link, a symbolic link to it), or, for an
 * output that does not exist yet, the same real path (its folder's realpath plus its name); -1
 * with "OUT: the output is the input IN ...; nothing was written". Checked before anything is
 * written. */
int fs_check_not_input(const char *out, const char *const *inputs, int n, char *err, size_t errlen);

/* Renames the folder from to `to`, or when that name is taken (by a concurrent run) to "to-2",
 * "to-3", ... up to FS_UNIQUE_MAX, never replacing anything; returns the name used (caller
 * frees) or NULL with err. */
#define FS_UNIQUE_MAX 1000
char *fs_rename_unique(const char *from, const char *to, char *err, size_t errlen);

#endif
