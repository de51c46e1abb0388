/* render.c: the `render` command: loads and checks a results file, picks the PDF's path, and
 * turns the render step's outcome into a message and an exit code. Drawing is
 * results/draw.c's. */
#include "cmd/render.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results/load.h"
#include "results/draw.h"
#include "util/error.h"
#include "util/fsutil.h"

int render_command(const char *results_path, const char *pdf_path)
{
    char err[SR_ERR_MAX];
    if (draw_check_env(err, sizeof err) != 0) {
        fprintf(stderr, "sparkreport: %s\n", err);
        return SR_EXIT_USAGE;
    }
    char *def = NULL;
    if (!pdf_path) {
        const char *slash = strrchr(results_path, '/');
        size_t dir = slash ? (size_t)(slash - results_path) + 1 : 0;
        def = xmalloc(dir + 16);
        snprintf(def, dir + 16, "%.*sreport.pdf", (int)dir, results_path);
        pdf_path = def;
    }
    if (fs_check_not_input(pdf_path, &results_path, 1, err, sizeof err) != 0) {    /* render X -o X */
        fprintf(stderr, "sparkreport: %s\n", err);
        free(def);
        return SR_EXIT_USAGE;
    }
    cJSON *r = results_load(results_path, err, sizeof err);
    if (!r) {
        fprintf(stderr, "sparkreport: %s\n", err);
        free(def);
        return errno == ENOMEM ? SR_EXIT_FAILURE : SR_EXIT_INPUT;
    }
    int rc = draw_results(r, pdf_path, err, sizeof err);
    cJSON_Delete(r);
    if (rc == DRAW_INVALID)
        fprintf(stderr, "sparkreport: %s: %s\n", results_path, err);
    else if (rc != 0)
        fprintf(stderr, "sparkreport: %s\n", err);
    else
        printf("%s\n", pdf_path);
    free(def);
    return rc == 0 ? SR_EXIT_OK : rc == DRAW_INVALID ? SR_EXIT_INPUT : SR_EXIT_FAILURE;
}
