/* compare.c: the `compare` command: finds and loads the two results files, has
 * results/comparison.c build the comparison document, prints it (verdict lines or JSON) and
 * draws the regression PDF through the same render step as reports. What counts as a change
 * is decided in Lua and util/mwu.c, not here. */
#include "cmd/compare.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results/load.h"
#include "results/draw.h"
#include "util/error.h"
#include "util/fsutil.h"
#include "util/json.h"

#define MAX_LISTED 20           /* not-comparable lines printed before "... and N more" */

/* The summary, a line per result that is not unchanged, and what could not be compared. */
static void print_verdicts(const cJSON *cmp)
{
    printf("%s\n", json_str(cmp, "summary", ""));
    const cJSON *rs = cJSON_GetObjectItemCaseSensitive(cmp, "results");
    for (const cJSON *r = rs ? rs->child : NULL; r; r = r->next) {
        const char *v = json_str(r, "verdict", "?");
        if (strcmp(v, "unchanged") != 0)
            printf("%-12s %s: %s: median %+.1f %%, p = %.2g\n", v, json_str(r, "experiment", "?"),
                   json_str(r, "label", "?"), 100.0 * json_num(r, "change", NAN), json_num(r, "p", NAN));
    }
    const cJSON *pj = cJSON_GetObjectItemCaseSensitive(cmp, "projections");
    if (cJSON_GetArraySize(pj) > 0)
        printf("%s\n", json_str(cmp, "projection_summary", ""));
    int shown = 0;
    for (const cJSON *r = pj ? pj->child : NULL; r; r = r->next)
        if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "moved")) && shown++ < MAX_LISTED)
            printf("%-12s %s: %s on %s: %s\n", "moved", json_str(r, "experiment", "?"), json_str(r, "workload", "?"),
                   json_str(r, "system", "?"), json_str(r, "why", "?"));
    if (shown > MAX_LISTED)
        printf("... and %d more projected rows moved (see the report)\n", shown - MAX_LISTED);
    double nd = json_num(cmp, "derived_count", 0);
    if (nd > 0)
        printf("%.0f results without raw samples compared by value: %d changed\n", nd,
               cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(cmp, "derived")));
    const cJSON *fa = cJSON_GetObjectItemCaseSensitive(cmp, "fields_added");
    for (const cJSON *f = fa ? fa->child : NULL; f; f = f->next)
        printf("%-12s %s: %s records: %s is %s (the runs' results schema versions differ)\n", "field",
               json_str(f, "experiment", "?"), json_str(f, "series", "?"), json_str(f, "field", "?"),
               json_str(f, "side", "?"));
    const cJSON *nc = cJSON_GetObjectItemCaseSensitive(cmp, "not_comparable");
    int i = 0, total = cJSON_GetArraySize(nc);
    for (const cJSON *n = nc ? nc->child : NULL; n && i < MAX_LISTED; n = n->next, i++) {
        double count = json_num(n, "count", 1);
        char many[32] = "";
        if (count > 1)
            snprintf(many, sizeof many, " (%.0f)", count);
        printf("%-12s %s: %s%s: %s\n", "incomparable", json_str(n, "experiment", "?"), json_str(n, "label", "?"), many,
               json_str(n, "reason", "?"));
    }
    if (total > MAX_LISTED)
        printf("... and %d more not comparable (see the report)\n", total - MAX_LISTED);
}

int compare_command(const char *baseline, const char *current, const char *pdf_path, int as_json,
                    const struct comparison_opts *o)
{
    char err[SR_ERR_MAX];
    const char *out = pdf_path ? pdf_path : as_json ? NULL : "comparison.pdf";
    if (draw_check_env(err, sizeof err) != 0) {
        fprintf(stderr, "sparkreport: %s\n", err);
        return SR_EXIT_USAGE;
    }
    if (out && fs_check_output(out, 0, err, sizeof err) != 0) {      /* before the work, not after */
        fprintf(stderr, "sparkreport: %s\n", err);
        return SR_EXIT_FAILURE;
    }
    char *bp = results_path(baseline), *cp = results_path(current);
    const char *inputs[2] = { bp, cp };
    if (out && fs_check_not_input(out, inputs, 2, err, sizeof err) != 0) {  /* compare A B -o B */
        fprintf(stderr, "sparkreport: %s\n", err);
        free(bp);
        free(cp);
        return SR_EXIT_USAGE;
    }
    cJSON *b = results_load(bp, err, sizeof err), *c = b ? results_load(cp, err, sizeof err) : NULL, *cmp = NULL;
    int rc = SR_EXIT_INPUT;
    if (!b || !c) {
        fprintf(stderr, "sparkreport: %s\n", err);
        rc = errno == ENOMEM ? SR_EXIT_FAILURE : SR_EXIT_INPUT;
        goto done;
    }
    int bad;
    if (!(cmp = comparison_build(b, bp, c, cp, o, &bad, err, sizeof err))) {
        fprintf(stderr, "sparkreport: %s\n", err);
        rc = bad ? SR_EXIT_INPUT : SR_EXIT_FAILURE;
        goto done;
    }
    rc = SR_EXIT_FAILURE;
    if (out && draw_results(cmp, out, NULL, NULL, err, sizeof err) != 0) {
        fprintf(stderr, "sparkreport: %s\n", err);
        goto done;
    }
    if (as_json) {
        char *s = cJSON_Print(cmp);
        printf("%s\n", s);
        cJSON_free(s);
    } else {
        print_verdicts(cmp);
        printf("%s\n", out);
    }
    rc = comparison_slower(cmp) > 0 ? SR_EXIT_SLOWER : SR_EXIT_OK;
done:
    cJSON_Delete(cmp);
    cJSON_Delete(b);
    cJSON_Delete(c);
    free(bp);
    free(cp);
    return rc;
}
