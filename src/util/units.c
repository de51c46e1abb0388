/* units.c: parsing and formatting of sizes and durations. Rounding of formatted values is
 * for people; results keep full precision elsewhere. */
#include "util/units.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const struct { const char *suffix; double factor; } size_suffixes[] = {
    { "", 1.0 }, { "B", 1.0 },
    { "K", 1024.0 }, { "KiB", 1024.0 }, { "KB", 1e3 }, { "k", 1024.0 },
    { "M", 1048576.0 }, { "MiB", 1048576.0 }, { "MB", 1e6 },
    { "G", 1073741824.0 }, { "GiB", 1073741824.0 }, { "GB", 1e9 },
    { "T", 1099511627776.0 }, { "TiB", 1099511627776.0 }, { "TB", 1e12 },
};

int units_parse_size(const char *s, double *bytes)
{
    char *end;
    double v;
    while (isspace((unsigned char)*s))
        s++;
    if (!isdigit((unsigned char)*s) && *s != '.')
        return -1;            /* refuses signs, "inf", "nan" and hex */
    v = strtod(s, &end);
    if (end == s || !isfinite(v))
        return -1;
    while (isspace((unsigned char)*end))
        end++;
    for (size_t i = 0; i < sizeof size_suffixes / sizeof size_suffixes[0]; i++) {
        if (strcmp(end, size_suffixes[i].suffix) == 0) {
            *bytes = v * size_suffixes[i].factor;
            return 0;
        }
    }
    return -1;
}

char *units_format_bytes(double b, char *buf, size_t n)
{
    static const char *names[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
    int i = 0;
    while (fabs(b) >= 1024.0 && i < 5) {
        b /= 1024.0;
        i++;
    }
    if (fabs(b) >= 1e6 || !isfinite(b))    /* beyond PiB: a short number, so no buffer cuts the unit off */
        snprintf(buf, n, "%.3g %s", b, names[i]);
    else if (i == 0 || b == floor(b) || fabs(b) >= 100.0)
        snprintf(buf, n, "%.0f %s", b, names[i]);
    else if (fabs(b) >= 10.0)
        snprintf(buf, n, "%.1f %s", b, names[i]);
    else
        snprintf(buf, n, "%.2g %s", b, names[i]);
    return buf;
}

char *units_format_duration(double s, char *buf, size_t n)
{
    if (s < 0 || !isfinite(s))
        snprintf(buf, n, "?");
    else if (s < 1.0)
        snprintf(buf, n, "%.0f ms", s * 1e3);
    else if (s < 60.0)
        snprintf(buf, n, "%.1f s", s);
    else if (s < 3600.0)
        snprintf(buf, n, "%dm%02ds", (int)(s / 60), (int)fmod(s, 60.0));
    else if (s < 3600.0 * 1e6)         /* beyond, hours do not fit an int */
        snprintf(buf, n, "%dh%02dm", (int)(s / 3600), (int)fmod(s / 60.0, 60.0));
    else
        snprintf(buf, n, "%.3g h", s / 3600);
    return buf;
}
