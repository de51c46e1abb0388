/* datadir.h: the files an installed sparkreport ships beside its program, in its data folder
 * ($(pkgdatadir), or SPARKREPORT_DATA_DIR): the scenarios `run NAME` finds and `list` shows, and
 * the templates' source to read. What the program executes (the Lua library, the templates, the
 * catalog) is embedded in it (lua/embedded.h) and never read from here. */
#ifndef SR_DATADIR_H
#define SR_DATADIR_H

#include <stddef.h>

/* The data folder: SPARKREPORT_DATA_DIR when set and not empty, else the configured one
 * (SR_PKGDATADIR, make's $(pkgdatadir): /usr/local/share/sparkreport by default). */
const char *datadir_path(void);

/* SPARKREPORT_DATA_DIR, when set and not empty, names a folder: 0, or -1 with
 * "SPARKREPORT_DATA_DIR=VALUE: not a folder (why)", checked before a run or `list` starts. */
int datadir_check_env(char *err, size_t errlen);

/* The shipped scenarios' names (DATA/scenarios/NAME.lua, NAME of letters, digits, '-' and '_'),
 * sorted and joined by sep into names; how many, or -1 with "DATA/scenarios: cannot open: why". */
int datadir_scenarios(char *names, size_t n, const char *sep, char *err, size_t errlen);

/* The file `run ARG` reads (caller frees): ARG itself when something exists at that path or ARG
 * holds a '/' (reading it then says what is wrong with it); else, for a NAME or NAME.lua, the
 * shipped DATA/scenarios/NAME.lua. NULL when neither, with "ARG: no such file, and no shipped
 * scenario has that name (shipped in DATA/scenarios: default, quick, ...)". */
char *datadir_scenario(const char *arg, char *err, size_t errlen);

#endif
