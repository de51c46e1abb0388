/* csv.h: results.csv, the results document as one table for spreadsheets: one row per result
 * record, columns "experiment", "device", then every scalar field in first-seen order, nested
 * objects flattened ("time_s.median"), arrays (raw samples) left out. */
#ifndef SR_RESULTS_CSV_H
#define SR_RESULTS_CSV_H

#include <cjson/cJSON.h>

/* The CSV text (RFC 4180 quoting, "\n" line ends) of a document results_check accepted.
 * Caller frees. */
char *csv_results(const cJSON *results);

#endif
