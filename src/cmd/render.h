/* render.h: the `render` command: a results.json drawn again to its PDFs (the decision report and
 * the technical annex), by the same render step a run uses (results/draw.h). */
#ifndef SR_CMD_RENDER_H
#define SR_CMD_RENDER_H

/* `sparkreport render RESULTS [-o PDF] [--annex PDF]`: pdf_path NULL means report.pdf beside the
 * results file, annex_path NULL annex.pdf beside it (without -o) or PDF's name with "-annex" before
 * its ".pdf" (with -o). Prints the path of each PDF written; returns an exit code: SR_EXIT_INPUT
 * when the file is unreadable or lacks the shape the report reads (the message names the file),
 * SR_EXIT_FAILURE when a PDF cannot be written. */
int render_command(const char *results_path, const char *pdf_path, const char *annex_path);

#endif
