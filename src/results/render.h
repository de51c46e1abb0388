/* render.h: the render step, a results document (or a comparison document) drawn to a PDF by
 * the Lua report (sparkreport.report: report.check, then the template the document names),
 * written atomically. Loading the document is results/load.h's; choosing the path and the
 * exit code is the command's. */
#ifndef SR_RESULTS_RENDER_H
#define SR_RESULTS_RENDER_H

#include <cjson/cJSON.h>
#include <stddef.h>

/* Renders results (already loaded and checked) to pdf_path atomically. Returns 0, -1 (err:
 * what failed, with the path), or RENDER_INVALID when the results lack the shape the templates
 * read (err: "experiments[1].results[3].gbps_best must be a number, ..."). The PDF's date is
 * SOURCE_DATE_EPOCH when set, else the document's finished_epoch: the same input gives the
 * same bytes. Fonts from SPARKREPORT_FONT_DIR, else the configured folder. */
#define RENDER_INVALID (-2)
int render_results(const cJSON *results, const char *pdf_path, char *err, size_t errlen);

#endif
