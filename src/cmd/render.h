/* render.h: the `render` command: a results.json drawn again to a PDF, by the same render
 * step a run uses (results/draw.h). */
#ifndef SR_CMD_RENDER_H
#define SR_CMD_RENDER_H

/* `sparkreport render RESULTS [-o PDF]`: pdf_path NULL means report.pdf beside the results
 * file. Prints the PDF's path; returns an exit code: SR_EXIT_INPUT when the file is unreadable
 * or lacks the shape the report reads (the message names the file), SR_EXIT_FAILURE when
 * the PDF cannot be written. */
int render_command(const char *results_path, const char *pdf_path);

#endif
