/* test_lua.c: runs each .lua file of tests/lua inside the same sandbox scenarios get, with the
 * embedded library; a test file passes when it runs to the end without an error. */
#include <dirent.h>
#include <stdlib.h>

#include <lauxlib.h>

#include "check.h"
#include "lua/state.h"
#include "util/fsutil.h"

static int cmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

int main(void)
{
    const char *src = getenv("SR_SRCDIR");
    char dirpath[2048], err[2048];
    snprintf(dirpath, sizeof dirpath, "%s/tests/lua", src ? src : ".");
    DIR *d = opendir(dirpath);
    if (!d) {
        printf("cannot open %s\n", dirpath);
        return 1;
    }
    char *names[256];
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) && n < 256)
        if (strlen(e->d_name) > 4 && !strcmp(e->d_name + strlen(e->d_name) - 4, ".lua"))
            names[n++] = strdup(e->d_name);
    closedir(d);
    qsort(names, (size_t)n, sizeof names[0], cmp);
    for (int i = 0; i < n; i++) {
        char path[1400], *text, *trace = NULL, chunk[1500];
        size_t len;
        snprintf(path, sizeof path, "tests/lua/%s", names[i]);
        snprintf(chunk, sizeof chunk, "@%s", path);
        snprintf(dirpath, sizeof dirpath, "%s/%s", src ? src : ".", path);
        EXPECT(fs_read_file(dirpath, 1 << 20, &text, &len, err, sizeof err) == 0);
        lua_State *L = sr_lua_new(SR_LUA_MEM_LIMIT);
        if (luaL_loadbufferx(L, text, len, chunk, "t") != LUA_OK) {
            printf("%s\n", lua_tostring(L, -1));
            check_failures++;
        } else if (sr_lua_pcall(L, 0, 0, err, sizeof err, &trace) != 0) {
            printf("%s\n", trace);
            check_failures++;
        } else {
            printf("ok %s\n", path);
        }
        free(trace);
        free(text);
        free(names[i]);
        sr_lua_close(L);
    }
    return CHECK_DONE();
}
