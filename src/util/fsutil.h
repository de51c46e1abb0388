/* fsutil.h: files written so that nobody ever sees half of one (temporary name, fsync,
 * rename), bounded reads, run folders made under a temporary name and removed on failure.
 * Every error message names the path and the system's reason. */
#ifndef SR_FSUTIL_H
#define SR_FSUTIL_H

#include <stddef.h>

/* Writes data to path through "path.tmp-XXXXXX" in the same folder, then renames. */
int fs_write_atomic(const char *path, const void *data, size_t n, char *err, size_t errlen);

/* Reads a whole regular file of at most max bytes; *data is NUL-terminated, caller frees. */
int fs_read_file(const char *path, size_t max, char **data, size_t *n, char *err, size_t errlen);

int fs_mkdir_p(const char *path, char *err, size_t errlen);

/* Creates a new empty folder "parent/prefixXXXXXX"; returns its path (caller frees) or NULL. */
char *fs_mkdtemp(const char *parent, const char *prefix, char *err, size_t errlen);

/* Removes a folder tree this program made (no symlinks are followed). */
int fs_rm_rf(const char *path);

/* Points linkpath at target, replacing any old link atomically. */
int fs_symlink_replace(const char *target, const char *linkpath, char *err, size_t errlen);

/* Copies src to dst atomically (small files). */
int fs_copy_file(const char *src, const char *dst, char *err, size_t errlen);

int fs_exists(const char *path);

#endif
