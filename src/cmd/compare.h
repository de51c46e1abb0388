/* compare.h: the `compare` command: two runs in, verdicts (or the comparison document) out,
 * and the regression PDF. Building the comparison is results/comparison.h's. */
#ifndef SR_CMD_COMPARE_H
#define SR_CMD_COMPARE_H

#include "results/comparison.h"

/* `sparkreport compare BASELINE CURRENT`: prints the verdicts (or, with as_json, the comparison
 * document) and writes pdf_path when given (or when not as_json: ./comparison.pdf). Returns an
 * exit code: SR_EXIT_SLOWER when some result is slower, else SR_EXIT_OK or an error code. */
int compare_command(const char *baseline, const char *current, const char *pdf_path, int as_json,
                    const struct comparison_opts *o);

#endif
