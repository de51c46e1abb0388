/* units.h: sizes and durations as people write them ("64KiB", "1.5 GB", "2m30s") and back.
 * Binary prefixes (K, M, G, T, KiB...) are powers of 1024; KB, MB, GB, TB are powers of 1000. */
#ifndef SR_UNITS_H
#define SR_UNITS_H

#include <stddef.h>

/* Parses "4096", "64K", "64KiB", "1.5GB", "2 MiB" into bytes; returns 0 on success,
 * -1 when the text is not a size (no partial parses). Negative sizes are refused. */
int units_parse_size(const char *s, double *bytes);

/* "64 KiB", "1.5 MiB", "2 GiB", "512 B": at most 3 significant digits. */
char *units_format_bytes(double bytes, char *buf, size_t n);

/* "850 ms", "12.3 s", "4m05s", "1h02m". */
char *units_format_duration(double seconds, char *buf, size_t n);

#endif
