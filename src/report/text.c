/* text.c: text for the report's single-byte fonts. UTF-8 in, CP1252 out (with ASCII stand-ins
 * for what CP1252 lacks), widths, word wrapping and drawing one line. What a line says and
 * where it goes on the page is the caller's business (document.c, table.c, chart.c). */
#include "report/internal.h"

#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MEASURE_CHUNK 32768     /* bytes measured per libharu call */
#define BAD_CP 0xFFFFFFFFu      /* decode(): the byte is not the start of valid UTF-8 */

/* Code points of CP1252 bytes 0x80..0x9F; 0 marks the five bytes CP1252 leaves unassigned. */
static const unsigned short cp1252_high[32] = {
    0x20AC, 0, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021,
    0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0, 0x017D, 0,
    0, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014,
    0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0, 0x017E, 0x0178,
};

/* Stand-ins for characters outside CP1252 that reports are likely to contain. A reader must
 * still get the meaning, so "≥" becomes ">=", not "?". Bytes >= 0x80 here are CP1252. */
static const struct { unsigned cp; const char *text; } fallbacks[] = {
    { 0x0394, "Delta" }, { 0x03A3, "Sigma" }, { 0x03A9, "Omega" }, { 0x03B1, "alpha" },
    { 0x03B2, "beta" }, { 0x03B3, "gamma" }, { 0x03B4, "delta" }, { 0x03B5, "epsilon" },
    { 0x03BB, "lambda" }, { 0x03BC, "\xB5" }, { 0x03C0, "pi" }, { 0x03C1, "rho" },
    { 0x03C3, "sigma" }, { 0x03C4, "tau" }, { 0x03C9, "omega" },
    { 0x200B, "" }, { 0x200C, "" }, { 0x200D, "" }, { 0x2060, "" }, { 0xFEFF, "" },
    { 0x2010, "-" }, { 0x2011, "-" }, { 0x2012, "\x96" }, { 0x2015, "\x97" },
    { 0x202F, " " }, { 0x205F, " " }, { 0x3000, " " },
    { 0x2032, "'" }, { 0x2033, "\"" }, { 0x2044, "/" }, { 0x207B, "^-" },
    { 0x2103, "\xB0" "C" }, { 0x2126, "Ohm" },
    { 0x2190, "<-" }, { 0x2192, "->" }, { 0x2194, "<->" }, { 0x21D0, "<=" }, { 0x21D2, "=>" },
    { 0x2211, "sum" }, { 0x2212, "-" }, { 0x2215, "/" }, { 0x2217, "*" }, { 0x2219, "\xB7" },
    { 0x221A, "sqrt" }, { 0x221E, "inf" }, { 0x223C, "~" }, { 0x2243, "~" }, { 0x2248, "~" },
    { 0x2260, "!=" }, { 0x2264, "<=" }, { 0x2265, ">=" }, { 0x226A, "<<" }, { 0x226B, ">>" },
    { 0x22C5, "\xB7" }, { 0x2713, "ok" }, { 0x2717, "x" },
};

/* Decodes one character; returns the bytes it used. Overlong forms, surrogates and stray
 * continuation bytes give BAD_CP for one byte, so every invalid byte becomes one '?'. */
static int decode(const unsigned char *s, unsigned *cp)
{
    unsigned c = s[0], min;
    int len;
    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    if (c >= 0xC2 && c <= 0xDF)
        len = 2, *cp = c & 0x1F, min = 0x80;
    else if (c >= 0xE0 && c <= 0xEF)
        len = 3, *cp = c & 0x0F, min = 0x800;
    else if (c >= 0xF0 && c <= 0xF4)
        len = 4, *cp = c & 0x07, min = 0x10000;
    else
        return *cp = BAD_CP, 1;
    for (int i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80)      /* also stops at the terminating NUL */
            return *cp = BAD_CP, 1;
        *cp = (*cp << 6) | (s[i] & 0x3Fu);
    }
    if (*cp < min || *cp > 0x10FFFF || (*cp >= 0xD800 && *cp <= 0xDFFF))
        return *cp = BAD_CP, 1;
    return len;
}

/* The CP1252 text for one code point: a byte written into one[], or a stand-in. */
static const char *encode(unsigned cp, char one[2])
{
    one[1] = '\0';
    if (cp < 0x80 || (cp >= 0xA1 && cp <= 0xFF && cp != 0xAD)) {
        one[0] = (char)cp;
        return one;
    }
    if (cp == 0xA0 || (cp >= 0x2000 && cp <= 0x200A))
        return " ";                     /* nbsp and the typographic spaces */
    if (cp == 0xAD)
        return "";                      /* soft hyphen: invisible unless the line breaks */
    if (cp >= 0x2080 && cp <= 0x2089) { /* subscript digits: "log₂" reads as "log2" */
        one[0] = (char)('0' + (cp - 0x2080));
        return one;
    }
    for (int i = 0; i < 32; i++) {
        if (cp1252_high[i] && cp1252_high[i] == cp) {
            one[0] = (char)(0x80 + i);
            return one;
        }
    }
    for (size_t i = 0; i < sizeof fallbacks / sizeof fallbacks[0]; i++)
        if (fallbacks[i].cp == cp)
            return fallbacks[i].text;
    return "?";
}

size_t pdf_utf8_to_cp1252(const char *utf8, char *out, size_t outlen)
{
    const unsigned char *s = (const unsigned char *)(utf8 ? utf8 : "");
    size_t n = 0;
    if (!out || outlen == 0)
        return 0;
    while (*s) {
        unsigned cp;
        char one[2];
        int used = decode(s, &cp);
        const char *rep = cp == BAD_CP ? "?" : encode(cp, one);
        size_t m = strlen(rep);
        if (n + m >= outlen)            /* a stand-in is written whole or not at all */
            break;
        memcpy(out + n, rep, m);
        n += m;
        s += used;
    }
    out[n] = '\0';
    return n;
}

char *pdf_cp1252(const char *utf8)
{
    size_t len = utf8 ? strlen(utf8) : 0, j = 0;
    /* The longest stand-in ("epsilon", 7 bytes) replaces 2 bytes of UTF-8: 4x always fits. */
    CHECK(len < SIZE_MAX / 4 - 1);
    char *out = xmalloc(4 * len + 1);
    size_t n = pdf_utf8_to_cp1252(utf8, out, 4 * len + 1);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)out[i];
        if (c == '\r')
            continue;
        out[j++] = (c < 0x20 && c != '\n' && c != '\t') || c == 0x7F ? '?' : (char)c;
    }
    out[j] = '\0';
    return out;
}

double pdf_width(HPDF_Font f, double size, const char *s, size_t n)
{
    double units = 0.0;             /* libharu measures in 1/1000 of the font size */
    while (n > 0) {                 /* in pieces: it refuses strings over 64 KiB */
        size_t k = n < MEASURE_CHUNK ? n : MEASURE_CHUNK;
        units += HPDF_Font_TextWidth(f, (const HPDF_BYTE *)s, (HPDF_UINT)k).width;
        s += k, n -= k;
    }
    return units * size / 1000.0;
}

double pdf_measure_font(void *font, const char *s, size_t n)
{
    const struct pdf_font *pf = font;
    return pdf_width(pf->font, pf->size, s, n);
}

static void push_line(struct pdf_span **lines, int *n, int *cap, size_t off, size_t len)
{
    if (*n == *cap) {
        *cap = *cap ? 2 * *cap : 8;
        *lines = xrealloc(*lines, (size_t)*cap * sizeof **lines);
    }
    (*lines)[(*n)++] = (struct pdf_span){ off, len };
}

/* A word as wide as its line fits: a width planned at one size and scaled to another (a
 * table's columns) differs from the word measured at that size only by rounding, and a word
 * must never break over a millionth of a point. */
#define FIT_SLACK 1e-6

/* The longest prefix of s[0..n) that fits in width, at least one byte so wrapping advances;
 * measuring is monotonic in the prefix length, so bisect. */
static size_t fit_chars(const char *s, size_t n, double width, pdf_measure_fn m, void *ctx)
{
    size_t lo = 1, hi = n < PDF_WRAP_MAX ? n : PDF_WRAP_MAX;
    while (lo < hi) {
        size_t mid = lo + (hi - lo + 1) / 2;
        if (m(ctx, s, mid) <= width + FIT_SLACK)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

/* Characters a figure is written with besides digits (CP1252): signs and ranges (- + en dash
 * ±), separators, %, ×, currency ($ €), approximations, brackets, exponents. */
static int figure_char(unsigned char c)
{
    return (c >= '0' && c <= '9') || strchr(".,+-%/:()[]<>~=*x^eE$", c) ||
           c == 0x96 || c == 0xB1 || c == 0xD7 || c == 0x80 || c == 0xB0 || c == 0xB5;
}

/* A token of a figure: a digit after signs, currency or brackets, then digits with figure
 * characters and at most two letters (a k/M suffix, "1e+06", "x10", "2^20", "64x64x64"). */
static int number_token(const char *s, size_t n)
{
    size_t digits = 0, letters = 0, i = 0;
    while (i < n && (strchr("+-~<>$([=", s[i]) || (unsigned char)s[i] == 0x96 ||
                     (unsigned char)s[i] == 0xB1 || (unsigned char)s[i] == 0x80 ||
                     ((s[i] == 'x' || s[i] == 'X') && i + 1 < n)))
        i++;
    if (i == n || !isdigit((unsigned char)s[i]))
        return 0;                       /* "v8", "fp32": a name, not a figure */
    for (; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        digits += c >= '0' && c <= '9';
        if (!figure_char(c)) {
            if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')))
                return 0;
            letters++;
        }
    }
    return digits > 0 && letters <= 2;
}

/* A figure keeps its unit on its line: when the word ending at j is a number and the next
 * word is a unit ("GB", "h", "GB/s", "%", "TFLOPS"; not "of", "to"...), the end of
 * the pair; else j. */
static size_t unit_after(const char *s, size_t j, size_t e)
{
    static const char *const joins[] = { "of", "at", "to", "and", "on", "in", "or", "is",
                                         "as", "by", "vs", "per", "for", "the", "x", NULL };
    if (j == 0 || j >= e || !isdigit((unsigned char)s[j - 1]))
        return j;
    size_t k = j, n, w = j;
    while (w > 0 && s[w - 1] != ' ')
        w--;
    if (!number_token(s + w, j - w))
        return j;                       /* "H100 PCIe": a name, not a figure */
    while (k < e && s[k] == ' ')
        k++;
    n = strcspn(s + k, " ");
    n = k + n > e ? e - k : n;
    if (n == 0 || n > 6 || !(isalpha((unsigned char)s[k]) || s[k] == '%' || s[k] == '\xB5'))
        return j;
    for (size_t i = 0; i < n; i++)
        if (!(isalpha((unsigned char)s[k + i]) || strchr("%/^23\xB5\xB2\xB3", s[k + i])))
            return j;                  /* "GB," ends a clause: may wrap after */
    for (int i = 0; joins[i]; i++)
        if (strlen(joins[i]) == n && strncmp(joins[i], s + k, n) == 0)
            return j;
    return k + n;
}

/* Wraps the hard line s[p..e) (no "\n" inside), appending its lines; a word wider than the line
 * is broken inside, or, with `whole`, takes a line of its own. */
static void wrap_hard_line(const char *s, size_t p, size_t e, double width, pdf_measure_fn m,
                           void *ctx, struct pdf_span **lines, int *n, int *cap, int whole)
{
    do {
        size_t fit = p, i = p;
        while (i < e) {                 /* grow by whole words while the line fits */
            size_t j = i;
            while (j < e && s[j] == ' ')
                j++;
            while (j < e && s[j] != ' ')
                j++;
            j = unit_after(s, j, e);
            if (j - p > PDF_WRAP_MAX || m(ctx, s + p, j - p) > width + FIT_SLACK)
                break;
            fit = i = j;
        }
        if (fit == p && whole) {        /* one word wider than the line: whole, on its own */
            fit = p;
            while (fit < e && s[fit] == ' ')
                fit++;
            while (fit < e && s[fit] != ' ')
                fit++;
        } else if (fit == p) {          /* one word wider than the line: break inside it */
            fit = p + fit_chars(s + p, e - p, width, m, ctx);
        }
        size_t len = fit - p;
        while (len > 0 && s[p + len - 1] == ' ')
            len--;
        push_line(lines, n, cap, p, len);
        p = fit;
        while (p < e && s[p] == ' ')    /* a soft break eats the spaces it broke at */
            p++;
    } while (p < e);
}

static int wrap(const char *s, double width, pdf_measure_fn measure, void *ctx,
                struct pdf_span **lines, int whole)
{
    int n = 0, cap = 0;
    size_t p = 0, len = strlen(s);
    *lines = NULL;
    for (;;) {
        const char *nl = memchr(s + p, '\n', len - p);
        size_t e = nl ? (size_t)(nl - s) : len;
        if (e == p)
            push_line(lines, &n, &cap, p, 0);
        else
            wrap_hard_line(s, p, e, width, measure, ctx, lines, &n, &cap, whole);
        if (!nl)
            break;
        p = e + 1;
    }
    return n;
}

int pdf_wrap(const char *s, double width, pdf_measure_fn measure, void *ctx,
             struct pdf_span **lines)
{
    return wrap(s, width, measure, ctx, lines, 0);
}

int pdf_wrap_words(const char *s, double width, pdf_measure_fn measure, void *ctx,
                   struct pdf_span **lines)
{
    return wrap(s, width, measure, ctx, lines, 1);
}

void pdf_text(HPDF_Page page, HPDF_Font f, double size, double x, double y,
              const char *s, size_t n)
{
    char small[256], *buf = n < sizeof small ? small : xmalloc(n + 1);
    memcpy(buf, s, n);
    buf[n] = '\0';
    HPDF_Page_BeginText(page);
    HPDF_Page_SetFontAndSize(page, f, (HPDF_REAL)size);
    HPDF_Page_TextOut(page, (HPDF_REAL)x, (HPDF_REAL)y, buf);
    HPDF_Page_EndText(page);
    if (buf != small)
        free(buf);
}

void pdf_text_in(HPDF_Page page, HPDF_Font f, double size, double x, double w, double y,
                 const char *s, size_t n, enum pdf_align align)
{
    double tw = align == PDF_ALIGN_LEFT ? 0.0 : pdf_width(f, size, s, n);
    if (align == PDF_ALIGN_RIGHT)
        x += w - tw;
    else if (align == PDF_ALIGN_CENTER)
        x += (w - tw) / 2.0;
    pdf_text(page, f, size, x, y, s, n);
}

void pdf_ellipsize(char *s, HPDF_Font f, double size, double w)
{
    size_t n = strlen(s);
    if (n <= PDF_WRAP_MAX && pdf_width(f, size, s, n) <= w)
        return;
    /* The longest prefix that fits with "..." after it, found by bisection (labels can be
     * megabytes long by mistake); "..." goes where cut bytes were, so it always fits. */
    int dots = n >= 3;
    double dw = dots ? pdf_width(f, size, "...", 3) : 0.0;
    size_t lo = 0, hi = dots ? n - 3 : n;
    hi = hi < PDF_WRAP_MAX ? hi : PDF_WRAP_MAX;
    while (lo < hi) {
        size_t mid = lo + (hi - lo + 1) / 2;
        if (pdf_width(f, size, s, mid) + dw <= w)
            lo = mid;
        else
            hi = mid - 1;
    }
    if (dots)
        memcpy(s + lo, "...", 4);
    else
        s[lo] = '\0';
}

void pdf_fill_rect(HPDF_Page page, double x, double y, double w, double h, struct pdf_rgb c)
{
    HPDF_Page_SetRGBFill(page, (HPDF_REAL)c.r, (HPDF_REAL)c.g, (HPDF_REAL)c.b);
    HPDF_Page_Rectangle(page, (HPDF_REAL)x, (HPDF_REAL)y, (HPDF_REAL)w, (HPDF_REAL)h);
    HPDF_Page_Fill(page);
}

void pdf_hline(HPDF_Page page, double x0, double x1, double y, double width, double grey)
{
    HPDF_Page_SetGrayStroke(page, (HPDF_REAL)grey);
    HPDF_Page_SetLineWidth(page, (HPDF_REAL)width);
    HPDF_Page_MoveTo(page, (HPDF_REAL)x0, (HPDF_REAL)y);
    HPDF_Page_LineTo(page, (HPDF_REAL)x1, (HPDF_REAL)y);
    HPDF_Page_Stroke(page);
}

/* ---- table cells: numbers, abbreviations, footnotes ---------------------------------- */

/* A unit or joining word beside figures: "h", "GB/s", "TFLOPS", "%", "of", "at", "to". */
static int unit_token(const char *s, size_t n)
{
    if (n > 8)
        return 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || figure_char(c) || c >= 0x80))
            return 0;
    }
    return 1;
}

int pdf_numeric(const char *cp)
{
    int numbers = 0, units = 0, first = 1;
    for (const char *p = cp ? cp : ""; *p;) {
        while (*p == ' ' || *p == '\n' || *p == '\t')
            p++;
        size_t n = strcspn(p, " \n\t");
        if (n == 0)
            break;
        if (number_token(p, n))
            numbers++;
        else if (!first && unit_token(p, n))
            units++;
        else
            return 0;                   /* a word: the cell is text */
        first = 0;
        p += n;
    }
    return numbers > 0 && numbers + units <= PDF_FIGURE_TOKENS && units <= numbers + 1;
}

/* Writes v (>= 10000) with 3 significant digits and a k, M or G suffix. */
static size_t short_number(double v, char *out, size_t outlen)
{
    static const char suffix[] = "kMG";
    int i = 0;
    v /= 1000.0;
    while (v >= 999.5 && i < 2)
        v /= 1000.0, i++;
    int len = snprintf(out, outlen, v >= 99.95 ? "%.0f%c" : v >= 9.995 ? "%.1f%c" : "%.2f%c",
                       v, suffix[i]);
    return len > 0 ? (size_t)len : 0;
}

char *pdf_abbreviate(const char *cp)
{
    size_t len = strlen(cp), j = 0;
    char *out = xmalloc(len + 1);
    int changed = 0;
    for (size_t i = 0; i < len;) {
        size_t k = i, digits = 0;
        int starts = (i == 0 || !isalnum((unsigned char)cp[i - 1]) || cp[i - 1] == 'x') &&
                     isdigit((unsigned char)cp[i]);
        while (starts && k < len && (isdigit((unsigned char)cp[k]) ||
                                     (cp[k] == ',' && k + 3 < len + 1 && isdigit((unsigned char)cp[k + 1]))))
            digits += isdigit((unsigned char)cp[k++]) != 0;
        if (k < len && cp[k] == '.')    /* a decimal part goes with its number */
            for (k++; k < len && isdigit((unsigned char)cp[k]); k++)
                ;
        int exponent = k < len && (cp[k] == 'e' || cp[k] == 'E');
        if (digits >= 5 && !exponent && (k == len || !isalpha((unsigned char)cp[k]))) {
            char num[64], tmp[16];
            size_t m = 0;
            for (size_t q = i; q < k && m + 1 < sizeof num; q++)
                if (cp[q] != ',')
                    num[m++] = cp[q];
            num[m] = '\0';
            size_t w = short_number(strtod(num, NULL), tmp, sizeof tmp);
            if (w <= k - i) {           /* never longer than what it replaces */
                memcpy(out + j, tmp, w);
                j += w;
                i = k;
                changed = 1;
                continue;
            }
        }
        if (k == i)
            k = i + 1;
        memcpy(out + j, cp + i, k - i);
        j += k - i;
        i = k;
    }
    out[j] = '\0';
    if (!changed) {
        free(out);
        return NULL;
    }
    return out;
}

/* The widest run of cp between any of the bytes in `seps`. */
static double widest_run(const char *cp, const char *seps, pdf_measure_fn measure, void *ctx)
{
    double w = 0.0;
    for (const char *p = cp; *p;) {
        size_t n = strcspn(p, seps);
        if (n > 0)
            w = fmax(w, measure(ctx, p, n < PDF_WRAP_MAX ? n : PDF_WRAP_MAX));
        p += n;
        p += *p != '\0';
    }
    return w;
}

double pdf_longest_word(const char *cp, pdf_measure_fn measure, void *ctx)
{
    return widest_run(cp, " \n", measure, ctx);
}

double pdf_widest_line(const char *cp, pdf_measure_fn measure, void *ctx)
{
    return widest_run(cp, "\n", measure, ctx);
}

char *pdf_spill(const char *cp, double width, pdf_measure_fn measure, void *ctx, int mark)
{
    struct pdf_span *ln;
    int n = pdf_wrap(cp, width, measure, ctx, &ln);
    double longest = pdf_longest_word(cp, measure, ctx);
    if (n <= PDF_CELL_LINES && longest <= width) {
        free(ln);
        return NULL;
    }
    /* The cell keeps its first two lines when every word fits, cut after the last clause
     * ("; ") in them, else before the first colon ("not measured: why"), then an ellipsis and
     * the marker; the whole text goes to the footnote. */
    char tag[32];
    snprintf(tag, sizeof tag, "[%d]", mark);
    size_t keep = longest > width ? 0 : n > 1 ? ln[1].off + ln[1].len : ln[0].len;
    const char *cut = NULL;
    for (const char *q = cp; q && q + 1 < cp + keep; q++)
        if (q[0] == ';' && q[1] == ' ')
            cut = q;
    if (!cut)
        cut = keep ? memchr(cp, ':', keep) : NULL;
    if (cut && cut > cp)
        keep = (size_t)(cut - cp);
    char *out = xmalloc(keep + sizeof tag + 4);
    memcpy(out, cp, keep);
    snprintf(out + keep, sizeof tag + 4, keep ? " \x85 %s" : "%s", tag);
    free(ln);
    return out;
}
