/* text.c: the report's encoded text (encoding.c) measured, wrapped and drawn one line at a time,
 * each run of one code page in the font of that page's encoding. What a line says and where it goes
 * on the page is the caller's business (document.c, table.c, chart.c). */
#include "report/internal.h"

#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MEASURE_CHUNK 32768     /* bytes measured per libharu call */
HPDF_Font pdf_face_font(struct pdf_face *f, int page)
{
    if (!f->page[page]) {
        f->page[page] = HPDF_GetFont(f->pdf, f->name, pdf_page_encoder(page));
        if (f->page[page] && page > 0)
            pdf_page_tounicode(f->pdf, f->page[page], page);
    }
    return f->page[page];
}

/* libharu measures in 1/1000 of the font size, and in pieces: it refuses strings over 64 KiB. */
static double run_width(HPDF_Font f, double size, const char *s, size_t n)
{
    double units = 0.0;
    while (f && n > 0) {
        size_t k = n < MEASURE_CHUNK ? n : MEASURE_CHUNK;
        units += HPDF_Font_TextWidth(f, (const HPDF_BYTE *)s, (HPDF_UINT)k).width;
        s += k, n -= k;
    }
    return units * size / 1000.0;
}

/* Calls fn on each run of one code page of s[0..n) (pdf_run), with the run's bytes in that page. */
static void each_run(struct pdf_face *f, const char *s, size_t n,
                     void (*fn)(HPDF_Font font, const char *run, size_t len, void *ctx), void *ctx)
{
    char small[256], *buf = n < sizeof small ? small : xmalloc(n + 1);
    while (n > 0) {
        int page;
        size_t len, used = pdf_run(s, n, &page, buf, &len);
        buf[len] = '\0';
        if (len > 0)
            fn(pdf_face_font(f, page), buf, len, ctx);
        s += used, n -= used;
    }
    if (buf != small)
        free(buf);
}

struct width_sum { double size, w; };

static void add_width(HPDF_Font font, const char *run, size_t len, void *ctx)
{
    struct width_sum *ws = ctx;
    ws->w += run_width(font, ws->size, run, len);
}

double pdf_width(struct pdf_face *f, double size, const char *s, size_t n)
{
    struct width_sum ws = { size, 0.0 };
    each_run(f, s, n, add_width, &ws);
    return ws.w;
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

/* The longest prefix of s[0..n) that fits in width, at least one character so wrapping advances,
 * never ending inside a pair; measuring is monotonic in the prefix length, so bisect. */
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
    size_t cut = pdf_char_floor(s, lo);
    return cut > 0 ? cut : pdf_char_floor(s, lo + 1) > 0 ? pdf_char_floor(s, lo + 1) : lo;
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

/* Where a line's runs go: the first at (x, y) when `at` (else where the text matrix is), each next one
 * where the one before it ended (Tj moves the text position on by the run's width). */
struct text_at { HPDF_Page page; double size, x, y; int at; };

static void show_run(HPDF_Font font, const char *run, size_t len, void *ctx)
{
    struct text_at *t = ctx;
    HPDF_Page_SetFontAndSize(t->page, font, (HPDF_REAL)t->size);
    if (t->at)
        HPDF_Page_TextOut(t->page, (HPDF_REAL)t->x, (HPDF_REAL)t->y, run);
    else
        HPDF_Page_ShowText(t->page, run);
    t->at = 0;
    (void)len;
}

void pdf_text(HPDF_Page page, struct pdf_face *f, double size, double x, double y,
              const char *s, size_t n)
{
    struct text_at t = { page, size, x, y, 1 };
    HPDF_Page_BeginText(page);
    each_run(f, s, n, show_run, &t);
    HPDF_Page_EndText(page);
}

void pdf_text_rotated(HPDF_Page page, struct pdf_face *f, double size, double x, double y, double degrees,
                      const char *s)
{
    double r = degrees * M_PI / 180.0, co = cos(r), si = sin(r);
    struct text_at t = { page, size, x, y, 0 };
    HPDF_Page_BeginText(page);
    HPDF_Page_SetTextMatrix(page, (HPDF_REAL)co, (HPDF_REAL)si, (HPDF_REAL)-si, (HPDF_REAL)co,
                            (HPDF_REAL)x, (HPDF_REAL)y);
    each_run(f, s, strlen(s), show_run, &t);
    HPDF_Page_EndText(page);
}

void pdf_text_in(HPDF_Page page, struct pdf_face *f, double size, double x, double w, double y,
                 const char *s, size_t n, enum pdf_align align)
{
    double tw = align == PDF_ALIGN_LEFT ? 0.0 : pdf_width(f, size, s, n);
    if (align == PDF_ALIGN_RIGHT)
        x += w - tw;
    else if (align == PDF_ALIGN_CENTER)
        x += (w - tw) / 2.0;
    pdf_text(page, f, size, x, y, s, n);
}

void pdf_ellipsize(char *s, struct pdf_face *f, double size, double w)
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
    lo = pdf_char_floor(s, lo);         /* never half a pair */
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
