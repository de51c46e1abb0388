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

/* The annex's default path: annex.pdf in the report's folder when the report is report.pdf there,
 * else the report's name with "-annex" before its ".pdf" ("a.pdf" -> "a-annex.pdf"). */
static char *annex_beside(const char *pdf_path, int is_default)
{
    size_t n = strlen(pdf_path);
    char *out = xmalloc(n + 16);
    if (is_default) {
        snprintf(out, n + 16, "%.*sannex.pdf", (int)(n - strlen("report.pdf")), pdf_path);
        return out;
    }
    int pdf = n >= 4 && strcmp(pdf_path + n - 4, ".pdf") == 0;
    snprintf(out, n + 16, "%.*s-annex.pdf", (int)(pdf ? n - 4 : n), pdf_path);
    return out;
}

int render_command(const char *results_path, const char *pdf_path, const char *annex_path)
{
    char err[SR_ERR_MAX];
    if (draw_check_env(err, sizeof err) != 0) {
        fprintf(stderr, "sparkreport: %s\n", err);
        return SR_EXIT_USAGE;
    }
    char *def = NULL, *adef = NULL;
    int is_default = !pdf_path;
    if (!pdf_path) {
        const char *slash = strrchr(results_path, '/');
        size_t dir = slash ? (size_t)(slash - results_path) + 1 : 0;
        def = xmalloc(dir + 16);
        snprintf(def, dir + 16, "%.*sreport.pdf", (int)dir, results_path);
        pdf_path = def;
    }
    if (!annex_path)
        annex_path = adef = annex_beside(pdf_path, is_default);
    if (strcmp(pdf_path, annex_path) == 0)
        snprintf(err, sizeof err, "%s: the report and the annex cannot be one file; nothing was written", pdf_path);
    if (strcmp(pdf_path, annex_path) == 0 || fs_check_not_input(pdf_path, &results_path, 1, err, sizeof err) != 0 ||
        fs_check_not_input(annex_path, &results_path, 1, err, sizeof err) != 0) {     /* render X -o X */
        fprintf(stderr, "sparkreport: %s\n", err);
        free(def);
        free(adef);
        return SR_EXIT_USAGE;
    }
    cJSON *r = results_load(results_path, err, sizeof err);
    if (!r) {
        fprintf(stderr, "sparkreport: %s\n", err);
        free(def);
        free(adef);
        return errno == ENOMEM ? SR_EXIT_FAILURE : SR_EXIT_INPUT;
    }
    int annexed = 0, rc = draw_results(r, pdf_path, annex_path, &annexed, err, sizeof err);
    cJSON_Delete(r);
    if (rc == DRAW_INVALID)
        fprintf(stderr, "sparkreport: %s: %s\n", results_path, err);
    else if (rc != 0)
        fprintf(stderr, "sparkreport: %s\n", err);
    else if (annexed)
        printf("%s\n%s\n", pdf_path, annex_path);
    else
        printf("%s\n", pdf_path);
    free(def);
    free(adef);
    return rc == 0 ? SR_EXIT_OK : rc == DRAW_INVALID ? SR_EXIT_INPUT : SR_EXIT_FAILURE;
}
