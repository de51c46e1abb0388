/* datadir.c: where an installed sparkreport's shipped files are, the names of its shipped
 * scenarios, and a scenario argument turned into the file to read. Reading the file is
 * fsutil's; what `run` and `list` print around these is theirs. */
#include "util/datadir.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/error.h"
#include "util/fsutil.h"

#ifndef SR_PKGDATADIR                   /* Makefile.am defines it from $(pkgdatadir) */
#define SR_PKGDATADIR "/usr/local/share/sparkreport"
#endif

#define NAME_MAX_CHARS 64               /* a shipped scenario's name, ".lua" left out */

const char *datadir_path(void)
{
    const char *d = getenv("SPARKREPORT_DATA_DIR");
    return d && *d ? d : SR_PKGDATADIR;
}

int datadir_check_env(char *err, size_t errlen)
{
    const char *d = getenv("SPARKREPORT_DATA_DIR");
    struct stat st;
    if (!d || !*d)
        return 0;
    if (stat(d, &st) != 0) {
        snprintf(err, errlen, "SPARKREPORT_DATA_DIR=%.512s: not a folder (%s)", d, strerror(errno));
        return -1;
    }
    if (!S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "SPARKREPORT_DATA_DIR=%.512s: not a folder (%s)", d, fs_kind(st.st_mode));
        return -1;
    }
    return 0;
}

/* The length of the scenario name in s ("quick" or "quick.lua": 5), or 0 when s is no such name. */
static size_t name_length(const char *s)
{
    size_t n = strlen(s);
    if (n > 4 && strcmp(s + n - 4, ".lua") == 0)
        n -= 4;
    if (n == 0 || n > NAME_MAX_CHARS)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= '0' && s[i] <= '9')
              || s[i] == '-' || s[i] == '_'))
            return 0;
    return n;
}

/* A file name of a shipped scenario: NAME.lua. */
static int is_scenario_file(const struct dirent *d)
{
    size_t n = strlen(d->d_name);
    return n > 4 && strcmp(d->d_name + n - 4, ".lua") == 0 && name_length(d->d_name) == n - 4;
}

int datadir_scenarios(char *names, size_t n, const char *sep, char *err, size_t errlen)
{
    char dir[FS_PATH_MAX];
    struct dirent **list;
    snprintf(dir, sizeof dir, "%s/scenarios", datadir_path());
    int count = scandir(dir, &list, is_scenario_file, alphasort);
    if (count < 0) {
        snprintf(err, errlen, "%s: cannot open: %s", dir, strerror(errno));
        return -1;
    }
    size_t used = 0;
    if (n > 0)
        names[0] = '\0';
    for (int i = 0; i < count; i++) {
        if (used < n)
            used += (size_t)snprintf(names + used, n - used, "%s%.*s", i ? sep : "",
                                     (int)strlen(list[i]->d_name) - 4, list[i]->d_name);
        free(list[i]);
    }
    free(list);
    return count;
}

char *datadir_scenario(const char *arg, char *err, size_t errlen)
{
    struct stat st;
    if (lstat(arg, &st) == 0 || errno != ENOENT || strchr(arg, '/'))
        return xstrdup(arg);
    char path[FS_PATH_MAX], names[1024], why[FS_PATH_MAX + 64];
    size_t n = name_length(arg);
    snprintf(path, sizeof path, "%s/scenarios/%.*s.lua", datadir_path(), (int)n, arg);
    if (n > 0 && stat(path, &st) == 0 && S_ISREG(st.st_mode))
        return xstrdup(path);
    int count = datadir_scenarios(names, sizeof names, ", ", why, sizeof why);
    if (count > 0)
        snprintf(err, errlen, "%.512s: no such file, and no shipped scenario has that name (shipped in %s/scenarios: "
                 "%s)", arg, datadir_path(), names);
    else if (count == 0)
        snprintf(err, errlen, "%.512s: no such file, and no shipped scenario has that name (%s/scenarios holds "
                 "none)", arg, datadir_path());
    else
        snprintf(err, errlen, "%.512s: no such file, and no shipped scenario has that name (%s; `make install` "
                 "puts them there)", arg, why);
    return NULL;
}
