/* draw.h: a results document (or a comparison document) drawn to a PDF (the step the `render`
 * command and every run use) by
 * the Lua report (sparkreport.report: report.check, then the template the document names),
 * written atomically. Loading the document is results/load.h's; choosing the path and the
 * exit code is the command's. */
#ifndef SR_RESULTS_DRAW_H
#define SR_RESULTS_DRAW_H

#include <cjson/cJSON.h>
#include <stddef.h>

/* Draws results (already loaded and checked) atomically: the decision report to pdf_path and,
 * when the template has one and annex_path is not NULL, the technical annex to annex_path (*annexed
 * says whether it did; a comparison has no annex); every file or none. Returns 0, -1 (err: what
 * failed, with the path), or DRAW_INVALID when the results lack the shape the templates read (err:
 * "experiments[1].results[3].gbps_best must be a number, ..."). A PDF's date is SOURCE_DATE_EPOCH
 * when set, else the document's finished_epoch: the same input gives the same bytes. Fonts from
 * SPARKREPORT_FONT_DIR, else the configured folder; SPARKREPORT_LAYOUT_LOG names a file the layout's
 * decisions are appended to (report.h, pdf_doc_log), for tests. */
#define DRAW_INVALID (-2)
int draw_results(const cJSON *results, const char *pdf_path, const char *annex_path, int *annexed,
                 char *err, size_t errlen);

/* What a render needs that can be checked before any drawing (a run checks it before measuring):
 * draw_check_env: SOURCE_DATE_EPOCH a whole number of seconds 0 .. 9999-12-31 (never a date
 * the PDF cannot hold), SPARKREPORT_FONT_DIR and SPARKREPORT_CATALOG_DIR (the catalog's data files,
 * bench.resource) folders; -1 with "VARIABLE=VALUE: why".
 * draw_check_text: text named `what` in err is valid UTF-8, every character drawable by the
 * report's fonts (report.h's pdf_text_check: Latin, Greek, Cyrillic; no control characters; a
 * refusal names the script and the Debian font package that has it) and at most max_chars long. */
#define DRAW_TITLE_MAX 200
int draw_check_env(char *err, size_t errlen);

/* The report's fonts, checked as render will load them (pdf_fonts_check): 0, or -1 and why. */
int draw_check_fonts(char *err, size_t errlen);
int draw_check_text(const char *what, const char *utf8, size_t max_chars, char *err, size_t errlen);

#endif
