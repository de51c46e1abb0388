/* chart.c: pdf_chart: line charts on linear or logarithmic axes (log-log for rooflines),
 * grouped and stacked bar charts, with ticks, grid, vertical marks, a legend below the plot
 * and a caption. A chart never splits across pages. Choosing the data, its units and its
 * labels is the templates' job; this file only makes them legible. */
#include "report/internal.h"
#include "util/units.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_HEIGHT 250.0
#define MIN_HEIGHT 100.0
#define SHRINK 0.4              /* the share of its height a chart gives up to fill a page */
#define MAX_HEIGHT 600.0
#define MIN_PLOT_H 40.0         /* the plot area itself, whatever the decorations take */
#define TITLE_SIZE 10.0
#define TICK_SIZE 7.5           /* tick and category labels */
#define LABEL_SIZE 8.5          /* axis labels */
#define LEGEND_SIZE 8.0
#define MARK_SIZE 7.0
#define TOP_PAD 6.0             /* between the title and the plot (or its mark labels) */
#define TICK_LEN 3.0
#define GAP 3.0
#define RIGHT_PAD 14.0          /* half of the last x tick label hangs right of the plot */
#define SWATCH_W 18.0           /* legend line sample */
#define MARKER_R 2.3            /* point marker "radius" */
#define LINE_W 1.3
#define MAX_TICKS 160
#define CAT_MAX_W 90.0          /* rotated category labels are cut to this */
#define LEGEND_NAME_MAX 330.0   /* legend names are cut to this (room for "(overlaps NAME)") */
#define MARK_LABEL_MAX 120.0    /* and mark labels to this */
#define AFTER_CHART 12.0
#define COORD_LIMIT 10000.0     /* page coordinates are clamped here; the clip hides them */

/* Eight hues whose lightness also differs, so that neighbours stay apart in greyscale print;
 * series beyond them reuse a hue with a dash pattern and markers (pdf_series_look). */
static const struct pdf_rgb PALETTE[PDF_PALETTE] = {
    { 0.12, 0.31, 0.62 }, { 0.93, 0.55, 0.13 }, { 0.17, 0.55, 0.33 }, { 0.78, 0.17, 0.17 },
    { 0.58, 0.45, 0.80 }, { 0.45, 0.28, 0.15 }, { 0.93, 0.55, 0.78 }, { 0.30, 0.30, 0.30 },
};
#define MIN_SEGMENT 1.5         /* pt: the thinnest bar or stacked segment drawn */
#define OVERLAP_PT (2.0 * LINE_W) /* points closer than this on the page are drawn on each other:
                                   two lines this close touch */
#define WHISKER_W 0.7
#define WHISKER_CAP 2.0
#define POINT_LABEL_SIZE 6.5    /* labels written beside points, and off-scale notes */
#define POINT_LABEL_MAX 300.0   /* and the width they are cut to */
#define OUTLIER_POWERS 2.0      /* a lone point this many powers of the base beyond all the
                                   others does not set a log axis's range */
#define HIDDEN_MARK_GAP 9.0     /* pt between the markers of a line drawn on an earlier one, so
                                   that the earlier one shows between them */
#define OFF_ARROW 5.0           /* pt: the arrow of a point beyond the scale */
#define PART_SHARE 0.5          /* a line drawn over this share of an earlier one's length or
                                   more lets it show through, and says so in the legend */
#define COVER_STEP 2.0          /* pt between the samples of a line's length */
#define COVER_WORK 4e6          /* point pairs beyond which overlaps are not looked for */

struct scale {              /* one axis: a data range mapped onto a span of the page */
    double lo, hi;          /* shown data range; both > 0 on a log axis */
    int log;                /* 0, 2 or 10 */
    enum pdf_format fmt;
    double step;            /* linear axes: distance between ticks, data units */
    int auto_lo, auto_hi;   /* linear axes: ends taken from the data, rounded to a tick */
    int whole;              /* every value on the axis is a whole number (counts): no tick between */
    double a, b;            /* page coordinates of lo and hi, pt */
};

struct tick { double v; int label; };

struct plot {               /* a chart being laid out and drawn */
    struct pdf_doc *d;
    const struct pdf_chart *c;
    struct scale sx, sy;
    double top, height;     /* the chart block (title to x-axis label), pt */
    double x0, y0, x1, y1;  /* the plot area, pt */
    int bars;               /* BAR or STACKED_BAR: x is categories */
    int rotate;             /* category labels drawn at 45 degrees */
    int empty;              /* nothing to plot: frame and "no data" */
    int *hidden;            /* nseries: 1 + the earlier series a line lies on (lies_on_earlier),
                               0 for none */
    int *part;              /* nseries: 1 + the earlier series a line covers in part
                               (covers_in_part), 0 for none */
    int off_s[2], off_k[2]; /* the point left out of a log y range below [0] and above [1]
                               (series, index), -1: none */
};

struct box { double x0, y0, x1, y1; };     /* page area a label or a marker covers, pt */

static double lg(double v, int base)
{
    return log(v) / log((double)base);
}

static int usable(double v, int log_axis)
{
    return isfinite(v) && (!log_axis || v > 0);
}

static double nice_step(double raw)
{
    double p = pow(10.0, floor(log10(raw))), f = raw / p;
    return (f <= 1.0 ? 1.0 : f <= 2.0 ? 2.0 : f <= 5.0 ? 5.0 : 10.0) * p;
}

static int in_range(const struct scale *s, double v)
{
    double eps = (s->hi - s->lo) * 1e-9;
    return usable(v, s->log) && v >= s->lo - eps && v <= s->hi + eps;
}

static double map(const struct scale *s, double v)
{
    double t = s->log ? (lg(v, s->log) - lg(s->lo, s->log)) / (lg(s->hi, s->log) - lg(s->lo, s->log))
                      : (v - s->lo) / (s->hi - s->lo);
    double p = s->a + t * (s->b - s->a);
    return p < -COORD_LIMIT ? -COORD_LIMIT : p > COORD_LIMIT ? COORD_LIMIT : p;
}

struct pdf_look pdf_series_look(int i)
{
    int round = i / PDF_PALETTE;
    return (struct pdf_look){ PALETTE[i % PDF_PALETTE], round % 4, (i + round) % 4, round > 0 };
}

static struct pdf_rgb colour(int i)
{
    return pdf_series_look(i).colour;
}

/* ---- ranges ------------------------------------------------------------------------- */

/* Widens [lo, hi] to a point's band, so that error bars are not cut at the frame. */
static void band_extent(double blo, double bhi, int ylog, double *lo, double *hi)
{
    if (usable(blo, ylog))
        *lo = fmin(*lo, blo), *hi = fmax(*hi, blo);
    if (usable(bhi, ylog))
        *lo = fmin(*lo, bhi), *hi = fmax(*hi, bhi);
}

/* Whether point k of series i is the one left out of the y range below or above it. */
static int left_out(const struct plot *p, int i, int k)
{
    return (p->off_s[0] == i && p->off_k[0] == k) || (p->off_s[1] == i && p->off_k[1] == k);
}

/* Extent of usable line data: along x, or along y for points whose x is inside sx (and that
 * are not left out of the y range). */
static int line_extent(const struct plot *p, int want_y, const struct scale *sx,
                       int ylog, double *lo, double *hi)
{
    const struct pdf_chart *c = p->c;
    *lo = INFINITY, *hi = -INFINITY;
    for (int i = 0; i < c->nseries; i++) {
        const struct pdf_series *s = &c->series[i];
        for (int k = 0; k < s->n && s->x && s->y; k++) {
            double x = s->x[k], y = s->y[k];
            if (!usable(x, sx->log) || !usable(y, ylog) || (want_y && left_out(p, i, k)))
                continue;
            if (want_y && (x < sx->lo || x > sx->hi))
                continue;
            double v = want_y ? y : x;
            *lo = fmin(*lo, v), *hi = fmax(*hi, v);
            if (want_y && s->lo && s->hi)
                band_extent(s->lo[k], s->hi[k], ylog, lo, hi);
        }
    }
    return *lo <= *hi;
}

/* Whether every usable x of a line chart is a whole number (threads, devices, sizes in units). */
static int whole_x(const struct pdf_chart *c)
{
    int any = 0;
    for (int i = 0; i < c->nseries; i++)
        for (int k = 0; k < c->series[i].n && c->series[i].x; k++) {
            double x = c->series[i].x[k];
            if (!isfinite(x))
                continue;
            if (x != floor(x))
                return 0;
            any = 1;
        }
    return any;
}

/* Extent of bar data: each bar, or each stack's positive and negative sums. */
static int bar_extent(const struct pdf_chart *c, int ylog, double *lo, double *hi)
{
    int stacked = c->kind == PDF_CHART_STACKED_BAR;
    *lo = INFINITY, *hi = -INFINITY;
    for (int j = 0; j < c->ncategories; j++) {
        double pos = 0.0, neg = 0.0;
        int any = 0;
        for (int i = 0; i < c->nseries; i++) {
            const struct pdf_series *s = &c->series[i];
            double v = j < s->n && s->y ? s->y[j] : NAN;
            if (!usable(v, ylog))
                continue;
            any = 1;
            if (!stacked && s->lo && s->hi)
                band_extent(s->lo[j], s->hi[j], ylog, lo, hi);
            if (!stacked)
                *lo = fmin(*lo, v), *hi = fmax(*hi, v);
            else if (v >= 0)
                pos += v;
            else
                neg += v;
        }
        if (stacked && any)
            *lo = fmin(*lo, fmin(neg, pos)), *hi = fmax(*hi, fmax(pos, neg));
    }
    return *lo <= *hi;
}

/* The shown range: the axis's min/max where given, else the data's, widened to powers on
 * log axes and to "nice" steps on linear ones (from 0 when all data are >= 0). */
static void resolve(struct scale *s, const struct pdf_axis *a, double dlo, double dhi)
{
    double lo = a->min, hi = a->max;
    int auto_lo = !isfinite(lo) || (s->log && lo <= 0), auto_hi = !isfinite(hi) || (s->log && hi <= 0);
    if (s->log) {
        if (auto_lo)
            lo = pow(s->log, floor(lg(dlo, s->log) + 1e-9));
        if (auto_hi)
            hi = pow(s->log, ceil(lg(dhi, s->log) - 1e-9));
        if (!(hi > lo) && auto_lo && auto_hi)     /* one value: in the middle, not on the frame */
            lo /= s->log, hi *= s->log;
        else if (!(hi > lo) && auto_hi)
            hi = lo * s->log;
        else if (!(hi > lo))
            lo = hi / s->log;
    } else {
        if (auto_lo)
            lo = dlo >= 0 ? 0.0 : dlo;
        if (auto_hi)
            hi = dhi;
        if (!(hi > lo)) {
            double pad = lo != 0 ? fabs(lo) * 0.5 : 1.0;
            if (auto_hi)
                hi = lo + pad;
            else
                lo = hi - pad;
        }
        s->step = nice_step((hi - lo) / 5.0);     /* refined by linear_ticks() */
        if (auto_lo)
            lo = floor(lo / s->step + 1e-9) * s->step;
        if (auto_hi)
            hi = ceil(hi / s->step - 1e-9) * s->step;
    }
    s->lo = lo, s->hi = hi;
    s->auto_lo = auto_lo, s->auto_hi = auto_hi;
}

/* On a log y axis taken from the data, one point more than OUTLIER_POWERS beyond every other
 * (its value alone, the lowest or the highest) would stretch the axis over powers holding nothing:
 * it is left out of the range and drawn at the frame instead (off_scale). */
static void find_outliers(struct plot *p)
{
    const struct pdf_chart *c = p->c;
    double v[2][2] = { { INFINITY, INFINITY }, { -INFINITY, -INFINITY } };  /* [low/high][1st/2nd] */
    int at[2][2] = { { -1, -1 }, { -1, -1 } }, n = 0;
    p->off_s[0] = p->off_s[1] = p->off_k[0] = p->off_k[1] = -1;
    if (!p->sy.log)
        return;
    for (int i = 0; i < c->nseries; i++) {
        const struct pdf_series *s = &c->series[i];
        for (int k = 0; k < s->n && s->x && s->y; k++) {
            double y = s->y[k];
            if (!in_range(&p->sx, s->x[k]) || !usable(y, p->sy.log))
                continue;
            n++;
            if (y < v[0][0])
                v[0][1] = v[0][0], v[0][0] = y, at[0][0] = i, at[0][1] = k;
            else if (y < v[0][1])
                v[0][1] = y;
            if (y > v[1][0])
                v[1][1] = v[1][0], v[1][0] = y, at[1][0] = i, at[1][1] = k;
            else if (y > v[1][1])
                v[1][1] = y;
        }
    }
    int auto_end[2] = { !isfinite(c->y.min) || c->y.min <= 0, !isfinite(c->y.max) || c->y.max <= 0 };
    for (int e = 0; e < 2 && n >= 3; e++) {
        double gap = fabs(lg(v[e][0], p->sy.log) - lg(v[e][1], p->sy.log));
        if (auto_end[e] && gap > OUTLIER_POWERS)
            p->off_s[e] = at[e][0], p->off_k[e] = at[e][1];
    }
}

static void ranges(struct plot *p)
{
    const struct pdf_chart *c = p->c;
    double lo, hi;
    p->sx.log = p->bars ? 0 : c->x.log == 2 || c->x.log == 10 ? c->x.log : 0;
    p->sy.log = c->y.log == 2 || c->y.log == 10 ? c->y.log : 0;
    p->sx.fmt = c->x.format, p->sy.fmt = c->y.format;
    if (p->bars) {
        p->sx.lo = 0.0, p->sx.hi = c->ncategories > 0 ? c->ncategories : 1;
        p->empty = c->ncategories < 1 || !bar_extent(c, p->sy.log, &lo, &hi);
    } else {
        struct scale any = { .lo = -INFINITY, .hi = INFINITY, .log = p->sx.log };
        p->empty = !line_extent(p, 0, &any, p->sy.log, &lo, &hi);
        if (!p->empty)
            resolve(&p->sx, &c->x, lo, hi);
        p->sx.whole = !p->sx.log && whole_x(c);
        if (!p->empty)
            find_outliers(p);
        p->empty = p->empty || !line_extent(p, 1, &p->sx, p->sy.log, &lo, &hi);
    }
    if (!p->empty)
        resolve(&p->sy, &c->y, lo, hi);
}

/* ---- ticks -------------------------------------------------------------------------- */

/* "4e+07" -> "4e7", "1.5e-05" -> "1.5e-5": axis labels are read, not parsed. */
static void tidy_exponent(char *buf)
{
    char *e = strchr(buf, 'e'), *src, *dst;
    if (!e)
        return;
    dst = e + 1;
    src = *dst == '+' ? dst + 1 : dst;
    if (*src == '-')
        *dst++ = *src++;
    while (*src == '0' && src[1])
        src++;
    memmove(dst, src, strlen(src) + 1);
}

/* "2.50e+07" -> "2.5e7": three significant digits at most, no trailing zeros. */
static void sci_label(double v, char *buf, size_t n)
{
    char m[48], *e;
    snprintf(m, sizeof m, "%.2e", v);
    e = strchr(m, 'e');
    if (e) {
        char *z = e;
        while (z > m && z[-1] == '0')
            z--;
        if (z > m && z[-1] == '.')
            z--;
        memmove(z, e, strlen(e) + 1);
    }
    sr_fmt(buf, n, "%s", m);
    tidy_exponent(buf);
}

/* Thousands separators in the whole part of a plain decimal, from 1,000 up ("12500.5" ->
 * "12,500.5"): the report writes every count and amount that way (sparkreport.format). */
static void group_thousands(char *buf, size_t n)
{
    char *digits = buf + (*buf == '-'), out[64];
    size_t whole = strspn(digits, "0123456789"), j = 0;
    if (whole < 4 || strlen(buf) + whole / 3 + 1 > sizeof out || strlen(buf) + whole / 3 + 1 > n)
        return;
    for (char *q = buf; q < digits; q++)
        out[j++] = *q;
    for (size_t i = 0; i < whole; i++) {
        if (i > 0 && (whole - i) % 3 == 0)
            out[j++] = ',';
        out[j++] = digits[i];
    }
    sr_fmt(out + j, sizeof out - j, "%s", digits + whole);
    sr_fmt(buf, n, "%s", out);
}

/* Plain decimals, three significant digits below 100: "2,500", "12.5", "0.0025". */
static void plain_label(double v, char *buf, size_t n)
{
    double a = fabs(v);
    int dec = a >= 100.0 ? 0 : (int)fmin(6.0, 2.0 - floor(log10(a) + 1e-9));
    sr_fmt(buf, n, "%.*f", dec < 0 ? 0 : dec, v);
    if (strchr(buf, '.')) {
        char *z = buf + strlen(buf);
        while (z[-1] == '0')
            *--z = '\0';
        if (z[-1] == '.')
            z[-1] = '\0';
    }
    group_thousands(buf, n);
}

/* One format per axis, chosen from its range: exponents ("1e7", "2^24") for every label when
 * any would need one, plain decimals for all otherwise. */
static int axis_sci(const struct scale *s)
{
    double top = fmax(fabs(s->lo), fabs(s->hi));
    if (s->log == 10)
        return s->lo < 1e-3 * (1 - 1e-9) || s->hi > 1e5 * (1 + 1e-9);
    if (s->log == 2)
        return s->lo < pow(2.0, -6) * (1 - 1e-9) || s->hi > pow(2.0, 20) * (1 + 1e-9);
    return top >= 1e7 || (s->step < 1.0 && ceil(-log10(s->step) - 1e-9) > 6);
}

static void tick_label(const struct scale *s, double v, char *buf, size_t n)
{
    int sci = axis_sci(s);
    if (v == 0.0 || (!s->log && fabs(v) < s->step * 1e-6)) {
        sr_fmt(buf, n, "0");                /* not "0.0000", "-0" or "1e-17" */
    } else if (s->fmt == PDF_FMT_BYTES) {
        units_format_bytes(v, buf, n);
    } else if (s->log) {
        double e = lg(v, s->log), r = round(e);
        int power = fabs(e - r) <= 1e-9;    /* else an end of an explicit range */
        if (sci && power && s->log == 10)
            sr_fmt(buf, n, "1e%d", (int)r);
        else if (sci && power)
            sr_fmt(buf, n, "2^%d", (int)r);
        else if (sci)
            sci_label(v, buf, n);
        else
            plain_label(v, buf, n);
    } else {
        int dec = s->step >= 1.0 ? 0 : (int)ceil(-log10(s->step) - 1e-9);
        if (sci)
            sci_label(v, buf, n);
        else
            sr_fmt(buf, n, "%.*f", dec, v), group_thousands(buf, n);
    }
}

/* Widest label among the labelled ticks, pt. */
static double widest(const struct plot *p, const struct scale *s, const struct tick *t, int n)
{
    double w = 0.0;
    char buf[48];
    for (int i = 0; i < n; i++) {
        if (!t[i].label)
            continue;
        tick_label(s, t[i].v, buf, sizeof buf);
        w = fmax(w, pdf_width(p->d->regular, TICK_SIZE, buf, strlen(buf)));
    }
    return w;
}

static int fill_linear(const struct scale *s, struct tick *t)
{
    int n = 0;
    for (double k = ceil(s->lo / s->step - 1e-9); k * s->step <= s->hi + s->step * 1e-9 &&
         n < MAX_TICKS; k++)
        t[n++] = (struct tick){ k * s->step, 1 };
    return n;
}

/* 1-2-5 steps, coarsened until x labels do not touch; ends taken from the data are then
 * moved out to the next tick so the axis closes on a label. */
static int linear_ticks(const struct plot *p, struct scale *s, int vertical, struct tick *t)
{
    double span = fabs(s->b - s->a), range = s->hi - s->lo;
    int want = (int)(span / (vertical ? 30.0 : 60.0));
    want = want < 2 ? 2 : want > 10 ? 10 : want;
    s->step = nice_step(range / want);
    if (s->whole && s->step < 1.0)      /* counts: a tick at every whole number, none between */
        s->step = 1.0;
    for (int tries = 0; tries < 8; tries++, s->step = nice_step(s->step * 1.5)) {
        int n = fill_linear(s, t);
        if (vertical || widest(p, s, t, n) + 8.0 <= span * s->step / range)
            break;
    }
    if (s->auto_lo)
        s->lo = floor(s->lo / s->step + 1e-9) * s->step;
    if (s->auto_hi)
        s->hi = ceil(s->hi / s->step - 1e-9) * s->step;
    return fill_linear(s, t);
}

/* Ticks at powers of the base; labels on every k-th power (k = 1, 2, 4, ...) so they never
 * overlap; minor ticks at 2..9 x 10^e where a decade is wide enough. */
static int log_ticks(const struct plot *p, struct scale *s, int vertical, struct tick *t)
{
    double span = fabs(s->b - s->a), per = span / (lg(s->hi, s->log) - lg(s->lo, s->log));
    int e0 = (int)ceil(lg(s->lo, s->log) - 1e-9), e1 = (int)floor(lg(s->hi, s->log) + 1e-9);
    int n = 0, k = 1;
    for (int e = e0; e <= e1 && n < MAX_TICKS; e++)
        t[n++] = (struct tick){ pow(s->log, e), 1 };
    double need = vertical ? TICK_SIZE * 1.8 : widest(p, s, t, n) + 8.0;
    while (k * per < need && k < 64)
        k = s->log == 2 ? 2 * k : k + 1;
    n = 0;
    for (int e = e0; e <= e1 && n < MAX_TICKS; e++) {
        int lab = ((e % k) + k) % k == 0;
        if (lab || e1 - e0 < MAX_TICKS / 2)
            t[n++] = (struct tick){ pow(s->log, e), lab };
        for (int m = 2; s->log == 10 && per >= 40.0 && m <= 9 && n < MAX_TICKS; m++)
            if (m * pow(10.0, e) <= s->hi)
                t[n++] = (struct tick){ m * pow(10.0, e), 0 };
    }
    if (e1 - e0 < 1 && n < MAX_TICKS - 2) {     /* less than a power shown: label the ends */
        t[n++] = (struct tick){ s->lo, 1 };
        t[n++] = (struct tick){ s->hi, 1 };
    }
    return n;
}

static int ticks(const struct plot *p, struct scale *s, int vertical, struct tick *t)
{
    return s->log ? log_ticks(p, s, vertical, t) : linear_ticks(p, s, vertical, t);
}

/* ---- layout ------------------------------------------------------------------------- */

#define CAT_LINES 6             /* a category name wraps onto at most this many lines */

/* The widest word of any category name, and in *lines the most lines one wraps onto at its
 * spaces ("\n" breaks a line too) in width cw. */
static double widest_category(const struct plot *p, double cw, int *lines)
{
    double w = 0.0;
    struct pdf_font pf = { p->d->regular, TICK_SIZE };
    *lines = 1;
    for (int j = 0; j < p->c->ncategories; j++) {
        char *cp = pdf_encode(p->c->categories ? p->c->categories[j] : "");
        struct pdf_span *ln;
        int n = pdf_wrap_words(cp, cw, pdf_measure_font, &pf, &ln);
        free(ln);
        *lines = n > *lines ? n : *lines;
        w = fmax(w, pdf_longest_word(cp, pdf_measure_font, &pf));
        free(cp);
    }
    return w;
}

/* Places the plot area inside the chart block whose top is p->top. */
static void layout(struct plot *p)
{
    const struct pdf_chart *c = p->c;
    struct tick t[MAX_TICKS];
    double title_h = c->title && *c->title ? TITLE_SIZE * 1.4 + TOP_PAD : TOP_PAD;
    double marks_h = c->nmarks > 0 && !p->bars ? (MARK_SIZE + 2.0) * (c->nmarks > 1 ? 2 : 1) + 3.0 : 0.0;
    double xlabel_h = c->x.label && *c->x.label ? GAP + LABEL_SIZE * 1.3 : 0.0;
    double bottom = TICK_LEN + GAP + TICK_SIZE * 1.2 + xlabel_h;
    double left = PDF_MARGIN_X + (c->y.label && *c->y.label ? LABEL_SIZE * 1.6 : 0.0);
    p->y1 = p->top - title_h - marks_h;
    p->sy.a = p->top - p->height + bottom, p->sy.b = p->y1;     /* provisional */
    if (!p->empty)
        left += widest(p, &p->sy, t, ticks(p, &p->sy, 1, t)) + TICK_LEN + GAP;
    p->x0 = left;
    p->x1 = PDF_MARGIN_X + PDF_TEXT_W - (p->bars ? 4.0 : RIGHT_PAD);
    if (p->bars && c->ncategories > 0) {
        int lines;
        double cw = (p->x1 - p->x0) / c->ncategories, w = widest_category(p, cw - 4.0, &lines);
        p->rotate = w > cw - 4.0 || lines > CAT_LINES;   /* a name wraps at its spaces under its bars */
        if (p->rotate) {
            struct pdf_font pf = { p->d->regular, TICK_SIZE };
            double longest = 0.0;
            for (int j = 0; j < c->ncategories; j++) {
                char *cp = pdf_encode(c->categories ? c->categories[j] : "");
                for (char *q = cp; *q; q++)
                    *q = *q == '\n' ? ' ' : *q;
                longest = fmax(longest, pdf_widest_line(cp, pdf_measure_font, &pf));
                free(cp);
            }
            bottom += fmin(longest, CAT_MAX_W) * 0.71 - TICK_SIZE * 0.5;
        } else {
            bottom += (lines - 1) * TICK_SIZE * 1.2;
        }
    }
    p->y0 = p->top - p->height + bottom;
    if (p->y1 - p->y0 < MIN_PLOT_H) {   /* a cramped chart grows rather than overlap */
        p->y0 = p->y1 - MIN_PLOT_H;
        p->height = p->top - p->y0 + bottom;
    }
    p->sx.a = p->x0, p->sx.b = p->x1;
    p->sy.a = p->y0, p->sy.b = p->y1;
}

/* ---- drawing helpers ---------------------------------------------------------------- */

static void set_stroke(HPDF_Page pg, struct pdf_rgb c)
{
    HPDF_Page_SetRGBStroke(pg, (HPDF_REAL)c.r, (HPDF_REAL)c.g, (HPDF_REAL)c.b);
}

static void set_fill(HPDF_Page pg, struct pdf_rgb c)
{
    HPDF_Page_SetRGBFill(pg, (HPDF_REAL)c.r, (HPDF_REAL)c.g, (HPDF_REAL)c.b);
}

/* Colour, width and dash of series i: dashed for ceilings and ideals and for a line drawn
 * on an earlier one (`hidden`), else the pattern of its look (solid for the first eight). */
static void line_style(HPDF_Page pg, int i, int dashed, int hidden)
{
    static const HPDF_UINT16 dash[] = { 5, 3 }, dot[] = { 1, 2 }, dashdot[] = { 5, 2, 1, 2 },
                             over[] = { 3, 3 };
    struct pdf_look lk = pdf_series_look(i);
    set_stroke(pg, lk.colour);
    HPDF_Page_SetLineWidth(pg, LINE_W);
    HPDF_Page_SetLineJoin(pg, HPDF_ROUND_JOIN);
    if (hidden)
        HPDF_Page_SetDash(pg, over, 2, 3);
    else if (dashed || lk.dash == 1)
        HPDF_Page_SetDash(pg, dash, 2, 0);
    else if (lk.dash == 2)
        HPDF_Page_SetDash(pg, dot, 2, 0);
    else if (lk.dash == 3)
        HPDF_Page_SetDash(pg, dashdot, 4, 0);
    else
        HPDF_Page_SetDash(pg, NULL, 0, 0);
}

/* A marker whose shape follows the series index: circle, square, triangle, diamond; filled,
 * or hollow (a white inside, the series' colour as its outline) for a point to doubt. */
static void point_marker(HPDF_Page pg, int i, double x, double y, int hollow)
{
    double r = MARKER_R;
    set_fill(pg, hollow ? (struct pdf_rgb){ 1.0, 1.0, 1.0 } : colour(i));
    if (hollow) {
        set_stroke(pg, colour(i));
        HPDF_Page_SetLineWidth(pg, 0.9);
        HPDF_Page_SetDash(pg, NULL, 0, 0);
    }
    switch (pdf_series_look(i).marker) {
    case 0: HPDF_Page_Circle(pg, (HPDF_REAL)x, (HPDF_REAL)y, (HPDF_REAL)r); break;
    case 1: HPDF_Page_Rectangle(pg, (HPDF_REAL)(x - r * 0.9), (HPDF_REAL)(y - r * 0.9),
                                (HPDF_REAL)(1.8 * r), (HPDF_REAL)(1.8 * r)); break;
    case 2:
        HPDF_Page_MoveTo(pg, (HPDF_REAL)x, (HPDF_REAL)(y + 1.2 * r));
        HPDF_Page_LineTo(pg, (HPDF_REAL)(x - 1.1 * r), (HPDF_REAL)(y - 0.8 * r));
        HPDF_Page_LineTo(pg, (HPDF_REAL)(x + 1.1 * r), (HPDF_REAL)(y - 0.8 * r));
        HPDF_Page_ClosePath(pg);
        break;
    default:
        HPDF_Page_MoveTo(pg, (HPDF_REAL)x, (HPDF_REAL)(y + 1.3 * r));
        HPDF_Page_LineTo(pg, (HPDF_REAL)(x - 1.3 * r), (HPDF_REAL)y);
        HPDF_Page_LineTo(pg, (HPDF_REAL)x, (HPDF_REAL)(y - 1.3 * r));
        HPDF_Page_LineTo(pg, (HPDF_REAL)(x + 1.3 * r), (HPDF_REAL)y);
        HPDF_Page_ClosePath(pg);
        break;
    }
    if (hollow)
        HPDF_Page_FillStroke(pg);
    else
        HPDF_Page_Fill(pg);
}

/* Whether point k (0-based) of s is one the caller listed as hollow. */
static int is_hollow(const struct pdf_series *s, int k)
{
    for (int j = 0; j < s->nhollow && s->hollow; j++)
        if ((int)s->hollow[j] == k + 1)
            return 1;
    return 0;
}

/* ---- the plot ----------------------------------------------------------------------- */

/* Grid lines at the labelled ticks, under everything else. */
static void grid(const struct plot *p, const struct tick *tx, int nx, const struct tick *ty, int ny)
{
    HPDF_Page pg = p->d->page;
    int any = 0;                /* stroking an empty path is a libharu error */
    HPDF_Page_SetGrayStroke(pg, 0.88);
    HPDF_Page_SetLineWidth(pg, 0.4);
    for (int i = 0; i < ny; i++) {
        double y = map(&p->sy, ty[i].v);
        if (ty[i].label && y > p->y0 + 0.5 && y < p->y1 - 0.5) {
            HPDF_Page_MoveTo(pg, (HPDF_REAL)p->x0, (HPDF_REAL)y);
            HPDF_Page_LineTo(pg, (HPDF_REAL)p->x1, (HPDF_REAL)y);
            any = 1;
        }
    }
    for (int i = 0; i < nx; i++) {
        double x = map(&p->sx, tx[i].v);
        if (tx[i].label && x > p->x0 + 0.5 && x < p->x1 - 0.5) {
            HPDF_Page_MoveTo(pg, (HPDF_REAL)x, (HPDF_REAL)p->y0);
            HPDF_Page_LineTo(pg, (HPDF_REAL)x, (HPDF_REAL)p->y1);
            any = 1;
        }
    }
    if (any)
        HPDF_Page_Stroke(pg);
}

/* Whether point (x, y) of the page has a point of series j within OVERLAP_PT. */
static int near_series(const struct plot *p, int j, double x, double y)
{
    const struct pdf_series *o = &p->c->series[j];
    for (int m = 0; m < o->n && o->x && o->y; m++)
        if (in_range(&p->sx, o->x[m]) && in_range(&p->sy, o->y[m]) &&
            fabs(map(&p->sx, o->x[m]) - x) < OVERLAP_PT && fabs(map(&p->sy, o->y[m]) - y) < OVERLAP_PT)
            return 1;
    return 0;
}

/* The earlier series line series i lies on, plus one (0: none): one that has a point within
 * OVERLAP_PT of three quarters or more of i's usable points. Drawn as it is, one would hide the
 * other; it is drawn dashed with spaced markers instead, and its legend entry says which it
 * overlaps. */
static int lies_on_earlier(const struct plot *p, int i)
{
    const struct pdf_series *s = &p->c->series[i];
    int used = 0, best = 0, on_best = 0;
    for (int k = 0; k < s->n && s->x && s->y; k++)
        used += in_range(&p->sx, s->x[k]) && in_range(&p->sy, s->y[k]);
    for (int j = 0; j < i && used > 0; j++) {
        int on = 0;
        for (int k = 0; k < s->n && s->x && s->y; k++)
            on += in_range(&p->sx, s->x[k]) && in_range(&p->sy, s->y[k]) &&
                  near_series(p, j, map(&p->sx, s->x[k]), map(&p->sy, s->y[k]));
        if (on > on_best)
            best = j + 1, on_best = on;
    }
    return used > 0 && 4 * on_best >= 3 * used ? best : 0;
}

/* Distance on the page from (x, y) to the segment a-b, pt. */
static double seg_dist(double x, double y, double ax, double ay, double bx, double by)
{
    double dx = bx - ax, dy = by - ay, l2 = dx * dx + dy * dy;
    double t = l2 > 0 ? fmax(0.0, fmin(1.0, ((x - ax) * dx + (y - ay) * dy) / l2)) : 0.0;
    return hypot(x - ax - t * dx, y - ay - t * dy);
}

/* Point k of s on the page; 0 when it is not drawn. */
static int page_point(const struct plot *p, const struct pdf_series *s, int k, double *x, double *y)
{
    if (!s->x || !s->y || k < 0 || k >= s->n || !usable(s->x[k], p->sx.log) || !usable(s->y[k], p->sy.log))
        return 0;
    *x = map(&p->sx, s->x[k]), *y = map(&p->sy, s->y[k]);
    return 1;
}

/* Whether the page point (x, y) lies within OVERLAP_PT of the line series i draws. */
static int on_line(const struct plot *p, int i, double x, double y)
{
    const struct pdf_series *s = &p->c->series[i];
    double ax, ay, bx, by;
    for (int k = 0; k + 1 < s->n; k++)
        if (page_point(p, s, k, &ax, &ay) && page_point(p, s, k + 1, &bx, &by) &&
            seg_dist(x, y, ax, ay, bx, by) < OVERLAP_PT)
            return 1;
    return 0;
}

/* The share of line series j's length inside the plot that series i's line covers. */
static double covered(const struct plot *p, int j, int i)
{
    const struct pdf_series *s = &p->c->series[j];
    double total = 0.0, on = 0.0, ax, ay, bx, by;
    if ((double)s->n * p->c->series[i].n > COVER_WORK)
        return 0.0;
    for (int k = 0; k + 1 < s->n; k++) {
        if (!page_point(p, s, k, &ax, &ay) || !page_point(p, s, k + 1, &bx, &by))
            continue;
        double len = hypot(bx - ax, by - ay);
        int m = (int)ceil(len / COVER_STEP);
        for (int t = 0; t < m; t++) {
            double f = (t + 0.5) / m, x = ax + f * (bx - ax), y = ay + f * (by - ay);
            if (x < p->x0 || x > p->x1 || y < p->y0 || y > p->y1)
                continue;
            total += len / m;
            on += on_line(p, i, x, y) ? len / m : 0.0;
        }
    }
    return total > 0.0 ? on / total : 0.0;
}

/* The earlier series whose line series i covers over PART_SHARE of its length or more, plus one
 * (0: none), when i does not lie on one as a whole (two roofs sharing their bandwidth slope): i
 * is drawn with gaps the earlier one shows through, and its legend entry says so. */
static int covers_in_part(const struct plot *p, int i)
{
    double best = PART_SHARE;
    int which = 0;
    if (p->hidden[i])
        return 0;
    for (int j = 0; j < i; j++) {
        double share = covered(p, j, i);
        if (share >= best)
            best = share, which = j + 1;
    }
    return which;
}

/* One line series, drawn inside the clip: NAN (or non-positive on a log axis) breaks it. */
static void series(const struct plot *p, int i)
{
    const struct pdf_series *s = &p->c->series[i];
    HPDF_Page pg = p->d->page;
    int pen = 0, drew = 0;
    if (!s->x || !s->y || s->n < 1)
        return;
    line_style(pg, i, s->dashed, p->hidden[i] || p->part[i]);
    for (int k = 0; k < s->n; k++) {
        if (!usable(s->x[k], p->sx.log) || !usable(s->y[k], p->sy.log)) {
            pen = 0;
            continue;
        }
        HPDF_REAL x = (HPDF_REAL)map(&p->sx, s->x[k]), y = (HPDF_REAL)map(&p->sy, s->y[k]);
        if (pen)
            HPDF_Page_LineTo(pg, x, y);
        else
            HPDF_Page_MoveTo(pg, x, y);
        pen = drew = 1;
    }
    if (drew)
        HPDF_Page_Stroke(pg);
}

/* A vertical error bar with caps at x from lo to hi (data), in the series' colour. */
static void whisker(const struct plot *p, int i, double x, double lo, double hi)
{
    HPDF_Page pg = p->d->page;
    if (!usable(lo, p->sy.log) || !usable(hi, p->sy.log))
        return;
    double a = map(&p->sy, lo), b = map(&p->sy, hi);
    struct pdf_rgb c = colour(i);
    set_stroke(pg, (struct pdf_rgb){ c.r * 0.6, c.g * 0.6, c.b * 0.6 });
    HPDF_Page_SetLineWidth(pg, WHISKER_W);
    HPDF_Page_SetDash(pg, NULL, 0, 0);
    HPDF_Page_MoveTo(pg, (HPDF_REAL)x, (HPDF_REAL)a);
    HPDF_Page_LineTo(pg, (HPDF_REAL)x, (HPDF_REAL)b);
    for (int e = 0; e < 2; e++) {
        double y = e ? b : a;
        HPDF_Page_MoveTo(pg, (HPDF_REAL)(x - WHISKER_CAP), (HPDF_REAL)y);
        HPDF_Page_LineTo(pg, (HPDF_REAL)(x + WHISKER_CAP), (HPDF_REAL)y);
    }
    HPDF_Page_Stroke(pg);
}

/* Error bars of line series i where it gives a band. */
static void series_band(const struct plot *p, int i)
{
    const struct pdf_series *s = &p->c->series[i];
    for (int k = 0; k < s->n && s->x && s->lo && s->hi; k++)
        if (in_range(&p->sx, s->x[k]))
            whisker(p, i, map(&p->sx, s->x[k]), s->lo[k], s->hi[k]);
}

/* Whether a line joins point k of s to its neighbour j: j is usable and lies elsewhere on the
 * page (a line of two points at one x, a ceiling over a single size, has no length to see). */
static int joined(const struct plot *p, const struct pdf_series *s, int k, int j)
{
    if (j < 0 || j >= s->n || !usable(s->x[j], p->sx.log) || !usable(s->y[j], p->sy.log))
        return 0;
    return fabs(map(&p->sx, s->x[j]) - map(&p->sx, s->x[k])) > 0.5 ||
           fabs(map(&p->sy, s->y[j]) - map(&p->sy, s->y[k])) > 0.5;
}

/* Whether point k of series i gets a marker: every point of a series with `points` or `labels`
 * (or beyond the palette), a hollow one, one no line joins to a neighbour (a line needs two
 * points and a length, and no value may silently disappear), and on a line drawn on an earlier
 * one, points HIDDEN_MARK_GAP apart (`last`: the page x of the last one drawn). */
static int marked(const struct plot *p, int i, int k, double *last)
{
    const struct pdf_series *s = &p->c->series[i];
    int prev = joined(p, s, k, k - 1), next = joined(p, s, k, k + 1);
    double x = map(&p->sx, s->x[k]);
    if (s->points || pdf_series_look(i).points || is_hollow(s, k) || (!prev && !next) || s->labels)
        return 1;
    if (p->hidden[i] && fabs(x - *last) >= HIDDEN_MARK_GAP) {
        *last = x;
        return 1;
    }
    return 0;
}

/* Point markers of series i, outside the clip so that points on the frame stay whole (points
 * outside the shown range are left out). */
static void series_points(const struct plot *p, int i)
{
    const struct pdf_series *s = &p->c->series[i];
    double last = -INFINITY;
    for (int k = 0; k < s->n && s->x && s->y; k++)
        if (in_range(&p->sx, s->x[k]) && in_range(&p->sy, s->y[k]) && marked(p, i, k, &last))
            point_marker(p->d->page, i, map(&p->sx, s->x[k]), map(&p->sy, s->y[k]), is_hollow(s, k));
}

/* ---- labels beside points ----------------------------------------------------------- */

/* Where a label may go: one of 8 places touching its point, else, set off with a leader line, at
 * LEADER_DIRS directions on LEADER_RINGS rings around it. Every label takes the least costly
 * place (what it covers of markers and other labels, a place outside the plot, a leader crossing
 * a label; then a preference for the nearer places), hardest first, and is placed again while
 * that frees the others (LABEL_PASSES): not the first place that fits in reading order. */
#define LEADER_RINGS 3
#define LEADER_DIRS 16
#define LABEL_CANDIDATES (8 + LEADER_RINGS * LEADER_DIRS)
#define LABEL_PASSES 8
#define LABEL_SAME_PT 4.0       /* two points this close with one text share a label */
#define CROWD_PT 40.0           /* points this close make a label harder to place */
static const double RING_PT[LEADER_RINGS] = { 12.0, 22.0, 36.0 };

struct label {
    double x, y;            /* the point it names, page pt */
    char *cp;               /* encoded (pdf_encode) */
    double w;               /* text width at POINT_LABEL_SIZE, pt */
    struct box b;           /* where it is */
    int leader;             /* placed off its point, a line joining them */
    double ax, ay;          /* the leader's end at the label */
    int c;                  /* the place it took (candidate()) */
    double cost;            /* what that place cost when it took it */
    int crowd;              /* labelled points within CROWD_PT */
};

static double overlap(struct box a, struct box b)
{
    double w = fmin(a.x1, b.x1) - fmax(a.x0, b.x0), h = fmin(a.y1, b.y1) - fmax(a.y0, b.y0);
    return w > 0 && h > 0 ? w * h : 0.0;
}

static int inside(struct box b, double x, double y)
{
    return x > b.x0 && x < b.x1 && y > b.y0 && y < b.y1;
}

/* Place c of label l: its box, and for c >= 8 the leader's end. Returns whether it has a leader. */
static int candidate(const struct label *l, int c, struct box *b, double *ax, double *ay)
{
    double h = POINT_LABEL_SIZE, w = l->w, g = MARKER_R + 1.5, x = l->x, y = l->y;
    if (c < 8) {                /* left and baseline: right, left, above, below, then the corners */
        const double at[8][2] = {
            { x + g, y - h * 0.35 }, { x - g - w, y - h * 0.35 }, { x - w / 2, y + g + h * 0.25 },
            { x - w / 2, y - g - h * 0.8 }, { x + g, y + g }, { x + g, y - g - h * 0.8 },
            { x - g - w, y + g }, { x - g - w, y - g - h * 0.8 },
        };
        *b = (struct box){ at[c][0], at[c][1] - h * 0.25, at[c][0] + w, at[c][1] + h * 0.8 };
        return 0;
    }
    c -= 8;
    double a = 2.0 * M_PI * (c % LEADER_DIRS) / LEADER_DIRS, d = RING_PT[c / LEADER_DIRS];
    double co = cos(a), si = sin(a), bh = 1.05 * h, left, bottom;
    *ax = x + d * co, *ay = y + d * si;
    if (fabs(co) >= fabs(si)) {     /* the label's near side faces the point */
        left = co > 0 ? *ax : *ax - w;
        bottom = *ay - bh / 2;
    } else {
        left = *ax - w / 2;
        bottom = si > 0 ? *ay : *ay - bh;
    }
    *b = (struct box){ left, bottom, left + w, bottom + bh };
    return 1;
}

/* What placing label i at place c costs: area covered of the markers and of the other labels
 * (weighted: nothing may be hidden), a place outside the plot, a leader through another label; then
 * a small preference for touching places, nearer rings, reading order. */
static double label_cost(const struct plot *p, const struct label *ls, int n, int i, int c,
                         const struct box *obst, int nobst, struct box *b, double *ax, double *ay, int *leader)
{
    const struct label *l = &ls[i];
    *leader = candidate(l, c, b, ax, ay);
    double cover = 0.0, pref = c < 8 ? c * 0.01 : 1.0 + (c - 8) / LEADER_DIRS + (c - 8) % LEADER_DIRS * 0.001;
    for (int k = 0; k < nobst; k++)
        cover += overlap(*b, obst[k]);
    for (int k = 0; k < n; k++) {
        if (k == i || !ls[k].cp)
            continue;
        cover += overlap(*b, ls[k].b);
        for (int t = 1; *leader && t < 6; t++)   /* a leader through a label hides a piece of it */
            cover += inside(ls[k].b, l->x + (*ax - l->x) * t / 6.0, l->y + (*ay - l->y) * t / 6.0) ? 4.0 : 0.0;
        if (ls[k].leader)                        /* and this label on another's leader */
            for (int t = 1; t < 6; t++)
                cover += inside(*b, ls[k].x + (ls[k].ax - ls[k].x) * t / 6.0, ls[k].y + (ls[k].ay - ls[k].y) * t / 6.0)
                         ? 4.0 : 0.0;
    }
    if (b->x0 < p->x0 || b->x1 > p->x1 + RIGHT_PAD || b->y0 < p->y0 || b->y1 > p->y1)
        cover += l->w * POINT_LABEL_SIZE;       /* outside the plot: only when nothing inside is free */
    return 1000.0 * cover + pref;
}

/* Moves label i to its least costly place given the others; whether it moved. */
static int place_best(const struct plot *p, struct label *ls, int n, int i, const struct box *obst, int nobst)
{
    struct label *l = &ls[i];
    double best = INFINITY, ax = 0, ay = 0, bax = 0, bay = 0;
    struct box b, bb = l->b;
    int leader, bl = 0, bc = 0;
    for (int c = 0; c < LABEL_CANDIDATES; c++) {
        double cost = label_cost(p, ls, n, i, c, obst, nobst, &b, &ax, &ay, &leader);
        if (cost < best)
            best = cost, bb = b, bl = leader, bax = ax, bay = ay, bc = c;
    }
    if (!(best < l->cost - 1e-9))
        return 0;
    l->b = bb, l->leader = bl, l->ax = bax, l->ay = bay, l->cost = best, l->c = bc;
    return 1;
}

static int harder(const void *a, const void *b)
{
    const struct label *x = *(const struct label *const *)a, *y = *(const struct label *const *)b;
    return x->crowd != y->crowd ? y->crowd - x->crowd : x < y ? -1 : x > y;
}

/* Places every label (see LEADER_RINGS), then draws them and their leaders and logs their boxes. */
static void place_labels(const struct plot *p, struct label *ls, int n, const struct box *obst, int nobst)
{
    struct label **order = xcalloc((size_t)n + 1, sizeof *order);
    for (int i = 0; i < n; i++) {
        order[i] = &ls[i];
        for (int k = 0; k < n; k++)
            ls[i].crowd += k != i && hypot(ls[k].x - ls[i].x, ls[k].y - ls[i].y) < CROWD_PT;
    }
    qsort(order, (size_t)n, sizeof *order, harder);
    for (int i = 0; i < n; i++)
        order[i]->b = (struct box){ -COORD_LIMIT, -COORD_LIMIT, -COORD_LIMIT, -COORD_LIMIT };
    for (int pass = 0, moved = 1; pass < LABEL_PASSES && moved; pass++) {
        moved = 0;                  /* pass 0 places each; the others move those a better place frees */
        for (int i = 0; i < n; i++) {
            int at = (int)(order[i] - ls), leader;
            struct box b;
            double ax, ay;
            order[i]->cost = pass == 0 ? INFINITY   /* else what its place costs among the others now */
                           : label_cost(p, ls, n, at, order[i]->c, obst, nobst, &b, &ax, &ay, &leader);
            moved |= place_best(p, ls, n, at, obst, nobst);
        }
    }
    free(order);
    HPDF_Page pg = p->d->page;
    for (int i = 0; i < n; i++) {
        const struct label *l = &ls[i];
        if (l->leader) {
            double dx = l->ax - l->x, dy = l->ay - l->y, len = hypot(dx, dy), r = MARKER_R * 1.4;
            HPDF_Page_SetGrayStroke(pg, 0.45);
            HPDF_Page_SetLineWidth(pg, 0.4);
            HPDF_Page_SetDash(pg, NULL, 0, 0);
            HPDF_Page_MoveTo(pg, (HPDF_REAL)(l->x + dx * r / len), (HPDF_REAL)(l->y + dy * r / len));
            HPDF_Page_LineTo(pg, (HPDF_REAL)l->ax, (HPDF_REAL)l->ay);
            HPDF_Page_Stroke(pg);
        }
        HPDF_Page_SetGrayFill(pg, 0.20);
        pdf_text(pg, p->d->regular, POINT_LABEL_SIZE, l->b.x0, l->b.y0 + POINT_LABEL_SIZE * 0.25, l->cp, strlen(l->cp));
        pdf_log(p->d, "label\t%d\t%.2f\t%.2f\t%.2f\t%.2f\t%d\t%s", p->d->npages, l->b.x0, l->b.y0, l->b.x1, l->b.y1,
                l->leader, l->cp);
    }
    for (int k = 0; k < nobst; k++)
        pdf_log(p->d, "marker\t%d\t%.2f\t%.2f\t%.2f\t%.2f", p->d->npages, obst[k].x0, obst[k].y0, obst[k].x1, obst[k].y1);
}

/* A point left out of a log y range: an arrow at the frame, pointing the way it lies, and a label
 * with the series' name and the value, so that no value disappears and none stretches the axis. */
static void off_scale(const struct plot *p, int e, struct box *obst, int *nobst, struct label *ls, int *n)
{
    int i = p->off_s[e], k = p->off_k[e];
    if (i < 0 || !in_range(&p->sx, p->c->series[i].x[k]))
        return;
    const struct pdf_series *s = &p->c->series[i];
    double x = map(&p->sx, s->x[k]), edge = e ? p->y1 : p->y0, dir = e ? 1.0 : -1.0;
    double tip = edge + dir * 0.5, base = edge - dir * OFF_ARROW * 1.4;
    char value[48], text[160];
    HPDF_Page pg = p->d->page;
    set_fill(pg, colour(i));
    HPDF_Page_MoveTo(pg, (HPDF_REAL)x, (HPDF_REAL)tip);
    HPDF_Page_LineTo(pg, (HPDF_REAL)(x - OFF_ARROW * 0.7), (HPDF_REAL)base);
    HPDF_Page_LineTo(pg, (HPDF_REAL)(x + OFF_ARROW * 0.7), (HPDF_REAL)base);
    HPDF_Page_ClosePath(pg);
    HPDF_Page_Fill(pg);
    if (fabs(s->y[k]) >= 1e-3 && fabs(s->y[k]) < 1e5)
        plain_label(s->y[k], value, sizeof value);
    else
        sci_label(s->y[k], value, sizeof value);
    sr_fmt(text, sizeof text, "%s%s%s %s the scale", s->name && *s->name ? s->name : "",
           s->name && *s->name ? ": " : "", value, e ? "above" : "below");
    obst[(*nobst)++] = (struct box){ x - OFF_ARROW, fmin(tip, base), x + OFF_ARROW, fmax(tip, base) };
    ls[*n] = (struct label){ .x = x, .y = (tip + base) / 2, .cp = pdf_encode(text) };
    (*n)++;
}

/* Whether an earlier label has this text at a point within LABEL_SAME_PT (two series on one point
 * with one name: "fp32" at batch 1 and at batch 4): it names both. */
static int said(const struct label *ls, int n, const char *cp, double x, double y)
{
    for (int k = 0; k < n; k++)
        if (strcmp(ls[k].cp, cp) == 0 && hypot(ls[k].x - x, ls[k].y - y) <= LABEL_SAME_PT)
            return 1;
    return 0;
}

/* Labels of labelled points and notes of points beyond the scale, placed around every marker. */
static void point_labels(const struct plot *p)
{
    int cap = 4 + 2, nobst = 0, n = 0;
    for (int i = 0; i < p->c->nseries; i++)
        cap += p->c->series[i].x && p->c->series[i].y ? p->c->series[i].n : 0;
    struct box *obst = xcalloc((size_t)cap, sizeof *obst);
    struct label *ls = xcalloc((size_t)cap, sizeof *ls);
    for (int i = 0; i < p->c->nseries; i++) {  /* every marker drawn: no text on one */
        const struct pdf_series *s = &p->c->series[i];
        double last = -INFINITY;
        for (int k = 0; k < s->n && s->x && s->y; k++)
            if (in_range(&p->sx, s->x[k]) && in_range(&p->sy, s->y[k]) && marked(p, i, k, &last)) {
                double x = map(&p->sx, s->x[k]), y = map(&p->sy, s->y[k]), r = MARKER_R * 1.3;
                obst[nobst++] = (struct box){ x - r, y - r, x + r, y + r };
            }
    }
    for (int e = 0; e < 2; e++)
        off_scale(p, e, obst, &nobst, ls, &n);
    for (int i = 0; i < p->c->nseries; i++)
        for (int k = 0; p->c->series[i].labels && k < p->c->series[i].n; k++) {
            const struct pdf_series *s = &p->c->series[i];
            if (!(s->labels[k] && *s->labels[k] && in_range(&p->sx, s->x[k]) && in_range(&p->sy, s->y[k])))
                continue;
            char *cp = pdf_encode(s->labels[k]);
            double x = map(&p->sx, s->x[k]), y = map(&p->sy, s->y[k]);
            if (said(ls, n, cp, x, y)) {
                free(cp);
                continue;
            }
            ls[n++] = (struct label){ .x = x, .y = y, .cp = cp };
        }
    for (int i = 0; i < n; i++) {
        pdf_ellipsize(ls[i].cp, p->d->regular, POINT_LABEL_SIZE, POINT_LABEL_MAX);
        ls[i].w = pdf_width(p->d->regular, POINT_LABEL_SIZE, ls[i].cp, strlen(ls[i].cp));
    }
    place_labels(p, ls, n, obst, nobst);
    for (int i = 0; i < n; i++)
        free(ls[i].cp);
    free(ls);
    free(obst);
}

/* A bar from ya to yb (page), never thinner than MIN_SEGMENT: a value too small to see still
 * shows. Returns the far end drawn. Series beyond the palette carry their marker on top. */
static double bar(HPDF_Page pg, int i, double x, double w, double ya, double yb)
{
    if (fabs(yb - ya) < MIN_SEGMENT)
        yb = ya + (yb < ya ? -MIN_SEGMENT : MIN_SEGMENT);
    HPDF_Page_SetGrayStroke(pg, 1.0);
    set_fill(pg, colour(i));
    HPDF_Page_Rectangle(pg, (HPDF_REAL)x, (HPDF_REAL)fmin(ya, yb), (HPDF_REAL)w,
                        (HPDF_REAL)fabs(yb - ya));
    HPDF_Page_FillStroke(pg);       /* the white edge separates stacked segments */
    if (pdf_series_look(i).points && w >= 2 * MARKER_R) {
        if (fabs(yb - ya) >= 3.0 * MARKER_R)    /* inside its bar or segment */
            point_marker(pg, i, x + w / 2, (ya + yb) / 2, 1);
        else                                    /* too thin: just beyond its end */
            point_marker(pg, i, x + w / 2, yb + (yb < ya ? -MARKER_R : MARKER_R) * 1.6, 1);
    }
    return yb;
}

/* Grouped bars (one per series inside each category, with their error bars) or stacks (one
 * per category, each segment drawn from where the one below ended). */
static void bars(const struct plot *p)
{
    const struct pdf_chart *c = p->c;
    HPDF_Page pg = p->d->page;
    double cw = (p->x1 - p->x0) / c->ncategories, base = p->sy.log ? p->sy.lo : 0.0;
    int stacked = c->kind == PDF_CHART_STACKED_BAR;
    for (int j = 0; j < c->ncategories; j++) {
        double pos = base, neg = base, left = p->x0 + j * cw;
        double up = map(&p->sy, base), down = up;       /* page ends of the stack so far */
        for (int i = 0; i < c->nseries; i++) {
            const struct pdf_series *s = &c->series[i];
            double v = j < s->n && s->y ? s->y[j] : NAN;
            if (!usable(v, p->sy.log))
                continue;
            HPDF_Page_SetLineWidth(pg, stacked ? 0.6 : 0.3);
            if (!stacked) {
                double gw = cw * 0.8 / c->nseries, x = left + cw * 0.1 + i * gw;
                bar(pg, i, x, gw, map(&p->sy, base), map(&p->sy, v));
                if (s->lo && s->hi)
                    whisker(p, i, x + gw / 2, s->lo[j], s->hi[j]);
            } else if (v >= 0) {
                pos += v;
                up = bar(pg, i, left + cw * 0.2, cw * 0.6, up, fmax(map(&p->sy, pos), up));
            } else {
                neg += v;
                down = bar(pg, i, left + cw * 0.2, cw * 0.6, down, fmin(map(&p->sy, neg), down));
            }
        }
    }
}

/* Data drawn clipped to the plot area: values outside a given min/max are cut at the frame. */
static void data(const struct plot *p)
{
    HPDF_Page pg = p->d->page;
    HPDF_Page_GSave(pg);
    HPDF_Page_Rectangle(pg, (HPDF_REAL)p->x0, (HPDF_REAL)p->y0, (HPDF_REAL)(p->x1 - p->x0),
                        (HPDF_REAL)(p->y1 - p->y0));
    HPDF_Page_Clip(pg);
    HPDF_Page_EndPath(pg);
    if (p->bars)
        bars(p);
    else
        for (int i = 0; i < p->c->nseries; i++)
            series(p, i), series_band(p, i);
    HPDF_Page_GRestore(pg);
}

/* Vertical dashed lines (cache sizes...) with their labels above the plot, staggered onto a
 * second row when two would touch. */
static void marks(const struct plot *p)
{
    static const HPDF_UINT16 dash[] = { 3, 2 };
    HPDF_Page pg = p->d->page;
    double right[2] = { -INFINITY, -INFINITY };
    HPDF_Page_GSave(pg);
    HPDF_Page_SetGrayStroke(pg, 0.45);
    HPDF_Page_SetLineWidth(pg, 0.7);
    HPDF_Page_SetDash(pg, dash, 2, 0);
    HPDF_Page_SetGrayFill(pg, 0.30);
    for (int i = 0; i < p->c->nmarks; i++) {
        const struct pdf_mark *m = &p->c->marks[i];
        if (!usable(m->x, p->sx.log) || m->x < p->sx.lo || m->x > p->sx.hi)
            continue;
        double x = map(&p->sx, m->x);
        HPDF_Page_MoveTo(pg, (HPDF_REAL)x, (HPDF_REAL)p->y0);
        HPDF_Page_LineTo(pg, (HPDF_REAL)x, (HPDF_REAL)p->y1);
        HPDF_Page_Stroke(pg);
        char *cp = pdf_encode(m->label);
        pdf_ellipsize(cp, p->d->regular, MARK_SIZE, MARK_LABEL_MAX);
        double w = pdf_width(p->d->regular, MARK_SIZE, cp, strlen(cp));
        double lx = fmin(fmax(x - w / 2, p->x0 - 8.0), PDF_MARGIN_X + PDF_TEXT_W - w);
        int row = lx > right[0] + 3.0 ? 0 : lx > right[1] + 3.0 ? 1 : 0;
        right[row] = lx + w;
        pdf_text(pg, p->d->regular, MARK_SIZE, lx, p->y1 + 3.0 + row * (MARK_SIZE + 2.0), cp,
                 strlen(cp));
        free(cp);
    }
    HPDF_Page_GRestore(pg);
}

/* ---- axes --------------------------------------------------------------------------- */

static void axis_x(const struct plot *p, const struct tick *t, int n)
{
    HPDF_Page pg = p->d->page;
    char buf[48];
    HPDF_Page_SetGrayStroke(pg, 0.25);
    HPDF_Page_SetLineWidth(pg, 0.6);
    HPDF_Page_SetGrayFill(pg, 0.15);
    for (int i = 0; i < n; i++) {
        double x = map(&p->sx, t[i].v), len = t[i].label ? TICK_LEN : TICK_LEN * 0.6;
        if (x < p->x0 - 0.01 || x > p->x1 + 0.01)
            continue;
        HPDF_Page_MoveTo(pg, (HPDF_REAL)x, (HPDF_REAL)p->y0);
        HPDF_Page_LineTo(pg, (HPDF_REAL)x, (HPDF_REAL)(p->y0 - len));
        HPDF_Page_Stroke(pg);
        if (!t[i].label)
            continue;
        tick_label(&p->sx, t[i].v, buf, sizeof buf);
        pdf_text_in(pg, p->d->regular, TICK_SIZE, x - 50.0, 100.0,
                    p->y0 - TICK_LEN - GAP - TICK_SIZE * 0.8, buf, strlen(buf), PDF_ALIGN_CENTER);
    }
}

static void axis_y(const struct plot *p, const struct tick *t, int n)
{
    HPDF_Page pg = p->d->page;
    char buf[48];
    HPDF_Page_SetGrayStroke(pg, 0.25);
    HPDF_Page_SetLineWidth(pg, 0.6);
    HPDF_Page_SetGrayFill(pg, 0.15);
    for (int i = 0; i < n; i++) {
        double y = map(&p->sy, t[i].v), len = t[i].label ? TICK_LEN : TICK_LEN * 0.6;
        if (y < p->y0 - 0.01 || y > p->y1 + 0.01)
            continue;
        HPDF_Page_MoveTo(pg, (HPDF_REAL)p->x0, (HPDF_REAL)y);
        HPDF_Page_LineTo(pg, (HPDF_REAL)(p->x0 - len), (HPDF_REAL)y);
        HPDF_Page_Stroke(pg);
        if (!t[i].label)
            continue;
        tick_label(&p->sy, t[i].v, buf, sizeof buf);
        pdf_text_in(pg, p->d->regular, TICK_SIZE, p->x0 - TICK_LEN - GAP - 200.0, 200.0,
                    y - TICK_SIZE * 0.35, buf, strlen(buf), PDF_ALIGN_RIGHT);
    }
}

/* Category names under bar groups, at 45 degrees (and thinned) when they do not fit. */
static void category_labels(const struct plot *p)
{
    const struct pdf_chart *c = p->c;
    double cw = (p->x1 - p->x0) / c->ncategories, y = p->y0 - TICK_LEN - GAP;
    int every = p->rotate && cw < TICK_SIZE * 1.3 ? (int)ceil(TICK_SIZE * 1.3 / cw) : 1;
    HPDF_Page_SetGrayFill(p->d->page, 0.15);
    for (int j = 0; j < c->ncategories; j += every) {
        char *cp = pdf_encode(c->categories ? c->categories[j] : "");
        double xc = p->x0 + (j + 0.5) * cw;
        if (p->rotate) {        /* one line, ending at its category, running up to the right */
            for (char *q = cp; *q; q++)
                *q = *q == '\n' ? ' ' : *q;
            pdf_ellipsize(cp, p->d->regular, TICK_SIZE, CAT_MAX_W);
            double w = pdf_width(p->d->regular, TICK_SIZE, cp, strlen(cp));
            pdf_text_rotated(p->d->page, p->d->regular, TICK_SIZE, xc + TICK_SIZE * 0.3 - w * 0.707,
                         y - w * 0.707, 45.0, cp);
        } else {                /* wrapped at its spaces, each line centred under its category */
            struct pdf_font pf = { p->d->regular, TICK_SIZE };
            struct pdf_span *ln;
            int n = pdf_wrap_words(cp, cw - 4.0, pdf_measure_font, &pf, &ln);
            for (int k = 0; k < n; k++)
                pdf_text_in(p->d->page, p->d->regular, TICK_SIZE, xc - cw / 2, cw,
                            y - TICK_SIZE * 0.8 - k * TICK_SIZE * 1.2, cp + ln[k].off, ln[k].len, PDF_ALIGN_CENTER);
            free(ln);
        }
        free(cp);
    }
}

/* Axis titles: x centred under everything, y turned 90 degrees at the left edge. */
static void axis_labels(const struct plot *p)
{
    HPDF_Page pg = p->d->page;
    double bottom = p->top - p->height;
    HPDF_Page_SetGrayFill(pg, 0.10);
    if (p->c->x.label && *p->c->x.label) {
        char *cp = pdf_encode(p->c->x.label);
        pdf_ellipsize(cp, p->d->regular, LABEL_SIZE, p->x1 - p->x0);
        pdf_text_in(pg, p->d->regular, LABEL_SIZE, p->x0, p->x1 - p->x0,
                    bottom + LABEL_SIZE * 0.3, cp, strlen(cp), PDF_ALIGN_CENTER);
        free(cp);
    }
    if (p->c->y.label && *p->c->y.label) {
        char *cp = pdf_encode(p->c->y.label);
        pdf_ellipsize(cp, p->d->regular, LABEL_SIZE, p->y1 - p->y0);
        double w = pdf_width(p->d->regular, LABEL_SIZE, cp, strlen(cp));
        pdf_text_rotated(pg, p->d->regular, LABEL_SIZE, PDF_MARGIN_X + LABEL_SIZE * 0.9,
                     (p->y0 + p->y1 - w) / 2, 90.0, cp);
        free(cp);
    }
}

static void frame(const struct plot *p)
{
    HPDF_Page pg = p->d->page;
    HPDF_Page_SetGrayStroke(pg, 0.25);
    HPDF_Page_SetLineWidth(pg, 0.6);
    HPDF_Page_Rectangle(pg, (HPDF_REAL)p->x0, (HPDF_REAL)p->y0, (HPDF_REAL)(p->x1 - p->x0),
                        (HPDF_REAL)(p->y1 - p->y0));
    HPDF_Page_Stroke(pg);
    if (p->empty) {
        HPDF_Page_SetGrayFill(pg, 0.45);
        pdf_text_in(pg, p->d->regular, LABEL_SIZE + 1.5, p->x0, p->x1 - p->x0,
                    (p->y0 + p->y1) / 2 - 3.0, "no data", 7, PDF_ALIGN_CENTER);
    }
}

/* ---- legend ------------------------------------------------------------------------- */

static void swatch(const struct plot *p, int i, double x, double y)
{
    HPDF_Page pg = p->d->page;
    if (p->bars) {
        set_fill(pg, colour(i));
        HPDF_Page_Rectangle(pg, (HPDF_REAL)(x + 4.0), (HPDF_REAL)(y - 4.0), 9.0f, 8.0f);
        HPDF_Page_Fill(pg);
        if (pdf_series_look(i).points)
            point_marker(pg, i, x + 8.5, y, 1);
        return;
    }
    HPDF_Page_GSave(pg);
    line_style(pg, i, p->c->series[i].dashed, p->hidden[i] || p->part[i]);
    HPDF_Page_MoveTo(pg, (HPDF_REAL)x, (HPDF_REAL)y);
    HPDF_Page_LineTo(pg, (HPDF_REAL)(x + SWATCH_W), (HPDF_REAL)y);
    HPDF_Page_Stroke(pg);
    if (p->c->series[i].points || p->hidden[i] || pdf_series_look(i).points)
        point_marker(pg, i, x + SWATCH_W / 2, y, 0);
    HPDF_Page_GRestore(pg);
}

/* Series i's legend entry (encoded, to free): its name, and the series it is drawn on. */
static char *legend_name(const struct plot *p, int i)
{
    int j = p->hidden[i] ? p->hidden[i] : p->part[i];
    const char *on = j ? p->c->series[j - 1].name : NULL;
    char *out, *cp;
    if (!on || !*on)
        return pdf_encode(p->c->series[i].name);
    size_t n = strlen(p->c->series[i].name) + strlen(on) + 24;
    out = xmalloc(n);
    sr_fmt(out, n, "%s (overlaps %s%s)", p->c->series[i].name, on, p->hidden[i] ? "" : " in part");
    cp = pdf_encode(out);
    free(out);
    return cp;
}

#define LEGEND_GAP 14.0         /* pt between two entries of a legend row */

#define LEGEND_COLUMNS 6        /* at most this many entries side by side in a grid */

/* Whole legend entries (widths w, in order) in rows that fit the width `avail`: as few entries alone
 * on a row as can be, then as few rows as can be, each as long as that allows (dynamic programming
 * over where rows end). Fills count[] with the entries of each row; returns the rows, and in *lone the
 * rows holding one entry of several. */
static int legend_rows(const double *w, int n, double avail, int *count, int *lone_rows)
{
    int *lone = xcalloc((size_t)n + 1, sizeof *lone), *rows = xcalloc((size_t)n + 1, sizeof *rows);
    int *next = xcalloc((size_t)n + 1, sizeof *next), out = 0;
    for (int i = n - 1; i >= 0; i--) {         /* the best rows for entries i..n-1 */
        double used = 0.0;
        lone[i] = rows[i] = n + 1;
        for (int j = i; j < n; j++) {           /* a row of entries i..j */
            used += (j > i ? LEGEND_GAP : 0.0) + w[j];
            if (used > avail && j > i)
                break;
            int l = lone[j + 1] + (j == i && n > 1), r = rows[j + 1] + 1;
            if (l < lone[i] || (l == lone[i] && r <= rows[i]))
                lone[i] = l, rows[i] = r, next[i] = j + 1;
        }
    }
    for (int i = 0; i < n; i = next[i])
        count[out++] = next[i] - i;
    *lone_rows = n > 0 ? lone[0] : 0;
    free(lone), free(rows), free(next);
    return out;
}

/* A legend as a grid of k equal columns, each name wrapped at its spaces inside its column: the
 * height of the whole, pt, or INFINITY when a word of a name is wider than a column. */
static double legend_grid(const struct plot *p, char *const *name, int n, int k, double avail)
{
    struct pdf_font pf = { p->d->regular, LEGEND_SIZE };
    double colw = (avail - (k - 1) * LEGEND_GAP) / k, text = colw - SWATCH_W - 4.0, h = 0.0;
    for (int r = 0; r * k < n; r++) {
        int most = 1;
        for (int i = r * k; i < n && i < (r + 1) * k; i++) {
            struct pdf_span *ln;
            if (pdf_longest_word(name[i], pdf_measure_font, &pf) > text)
                return INFINITY;
            int lines = pdf_wrap_words(name[i], text, pdf_measure_font, &pf, &ln);
            free(ln);
            most = lines > most ? lines : most;
        }
        h += LEGEND_SIZE * (1.7 + (most - 1) * 1.25);
    }
    return h;
}

/* The columns of a grid of n entries: the lowest (legend_grid) among those whose last row holds no
 * single entry below fuller rows, the most columns on a tie. */
static int legend_columns(const struct plot *p, char *const *name, int n, double avail)
{
    int best = 1;
    double least = legend_grid(p, name, n, 1, avail);
    for (int k = 2; k <= n && k <= LEGEND_COLUMNS; k++) {
        if (n > k && n % k == 1)
            continue;               /* an entry alone on the last line */
        double h = legend_grid(p, name, n, k, avail);
        if (h <= least + 1e-9)
            least = h, best = k;
    }
    return best;
}

/* Entries under the plot, where they hide no data: whole, in rows of two or more (legend_rows); where
 * an entry would be left alone on a row, in a grid whose names wrap in their columns (legend_columns).
 * Logs the entries of each row. Measures when !draw. */
static double legend(const struct plot *p, double top, int draw)
{
    double avail = PDF_TEXT_W, y = top;
    int n = 0, lone = 0, *idx = xcalloc((size_t)p->c->nseries + 1, sizeof *idx);
    int *count = xcalloc((size_t)p->c->nseries + 1, sizeof *count);
    char **name = xcalloc((size_t)p->c->nseries + 1, sizeof *name);
    double *w = xcalloc((size_t)p->c->nseries + 1, sizeof *w);
    for (int i = 0; i < p->c->nseries; i++) {
        if (!p->c->series[i].name || !*p->c->series[i].name)
            continue;
        name[n] = legend_name(p, i);
        pdf_ellipsize(name[n], p->d->regular, LEGEND_SIZE, LEGEND_NAME_MAX);
        w[n] = SWATCH_W + 4.0 + pdf_width(p->d->regular, LEGEND_SIZE, name[n], strlen(name[n]));
        idx[n++] = i;
    }
    int rows = n ? legend_rows(w, n, avail, count, &lone) : 0, k = 0;
    if (lone > 0) {                 /* a grid instead: k entries a row, the last row two or more */
        k = legend_columns(p, name, n, avail);
        for (rows = 0; rows * k < n; rows++)
            count[rows] = n - rows * k < k ? n - rows * k : k;
    }
    double colw = k ? (avail - (k - 1) * LEGEND_GAP) / k : INFINITY;
    struct pdf_font pf = { p->d->regular, LEGEND_SIZE };
    char counts[256] = "";
    for (int r = 0, at = 0; r < rows; r++) {
        double x = PDF_MARGIN_X, mid = y - LEGEND_SIZE * 0.85;
        int most = 1;
        size_t len = strlen(counts);
        sr_fmt(counts + len, sizeof counts - len, "%s%d", r ? "," : "", count[r]);
        for (int c = 0; c < count[r]; c++, at++) {
            struct pdf_span *ln;
            int lines = pdf_wrap_words(name[at], k ? colw - SWATCH_W - 4.0 : INFINITY, pdf_measure_font, &pf, &ln);
            most = lines > most ? lines : most;
            for (int j = 0; j < lines && draw; j++) {
                if (j == 0)
                    swatch(p, idx[at], x, mid);
                HPDF_Page_SetGrayFill(p->d->page, 0.10);
                pdf_text(p->d->page, p->d->regular, LEGEND_SIZE, x + SWATCH_W + 4.0,
                         mid - LEGEND_SIZE * 0.35 - j * LEGEND_SIZE * 1.25, name[at] + ln[j].off, ln[j].len);
            }
            free(ln);
            x += (k ? colw : w[at]) + LEGEND_GAP;
        }
        y -= LEGEND_SIZE * (1.7 + (most - 1) * 1.25);
    }
    if (draw && n > 0)
        pdf_log(p->d, "legend\t%d\t%s", p->d->npages, counts);
    for (int i = 0; i < n; i++)
        free(name[i]);
    free(idx), free(count), free(name), free(w);
    return n ? top - y + 4.0 : 0.0;
}

/* ---- the chart ---------------------------------------------------------------------- */

static void draw(struct plot *p)
{
    struct tick tx[MAX_TICKS], ty[MAX_TICKS];
    int nx = 0, ny = 0;
    if (p->c->title && *p->c->title) {
        char *cp = pdf_encode(p->c->title);
        HPDF_Page_SetGrayFill(p->d->page, 0.05);
        pdf_ellipsize(cp, p->d->bold, TITLE_SIZE, PDF_TEXT_W);
        pdf_text(p->d->page, p->d->bold, TITLE_SIZE, PDF_MARGIN_X, p->top - TITLE_SIZE, cp, strlen(cp));
        free(cp);
    }
    if (!p->empty) {
        if (!p->bars)
            nx = ticks(p, &p->sx, 0, tx);
        ny = ticks(p, &p->sy, 1, ty);
        grid(p, tx, nx, ty, ny);
        if (p->c->nmarks > 0 && !p->bars)
            marks(p);
        data(p);
    }
    frame(p);
    for (int i = 0; i < p->c->nseries && !p->empty && !p->bars; i++)
        series_points(p, i);
    if (!p->empty && !p->bars)
        point_labels(p);
    if (!p->empty) {
        axis_x(p, tx, nx);
        axis_y(p, ty, ny);
        if (p->bars)
            category_labels(p);
    }
    axis_labels(p);
}

/* Which lines lie on earlier ones, wholly or in part (moving the plot keeps its distances;
 * changing its height does not). */
static void overlaps(struct plot *p)
{
    for (int i = 0; i < p->c->nseries; i++) {
        p->hidden[i] = p->part[i] = 0;
        if (p->bars || p->empty)
            continue;
        p->hidden[i] = lies_on_earlier(p, i);
        p->part[i] = covers_in_part(p, i);
    }
}

void pdf_chart(struct pdf_doc *d, const struct pdf_chart *c)
{
    if (!pdf_enter(d, "pdf_chart"))
        return;
    if (!c || c->nseries < 0 || (c->nseries > 0 && !c->series) || c->nmarks < 0 ||
        (c->nmarks > 0 && !c->marks) || c->ncategories < 0) {
        pdf_fail(d, "pdf_chart: series, marks or categories are inconsistent");
        return;
    }
    struct plot p = { .d = d, .c = c, .off_s = { -1, -1 }, .off_k = { -1, -1 } };
    p.bars = c->kind == PDF_CHART_BAR || c->kind == PDF_CHART_STACKED_BAR;
    p.height = c->height > 0 ? fmin(fmax(c->height, MIN_HEIGHT), MAX_HEIGHT) : DEFAULT_HEIGHT;
    ranges(&p);
    p.top = PDF_BODY_TOP;               /* provisional, to measure the legend */
    layout(&p);
    p.hidden = xcalloc((size_t)(c->nseries > 0 ? c->nseries : 1), sizeof *p.hidden);
    p.part = xcalloc((size_t)(c->nseries > 0 ? c->nseries : 1), sizeof *p.part);
    overlaps(&p);
    double leg = legend(&p, 0.0, 0);
    double cap = c->caption && *c->caption ? pdf_caption_height(d, c->caption) : 0.0;
    double room = pdf_room(d), over = p.height + leg + cap + 4.0 - room;
    if (over > 0 && d->page && !pdf_page_fresh(d)) {
        /* rather than leave the page under two-thirds full, the plot gives up to SHRINK of its
         * height; what cannot fit even so starts the next page, and says why */
        if (pdf_sparse(d) && p.height - over >= fmax(MIN_HEIGHT, p.height * (1.0 - SHRINK))) {
            p.height -= over;
            layout(&p);
            overlaps(&p);           /* on the plot as it will be drawn; a longer legend takes */
            double more = legend(&p, 0.0, 0) - leg;     /* its room from the plot too */
            p.height -= fmax(more, 0.0);
            leg += fmax(more, 0.0);
        } else
            pdf_break_why(d, pdf_sparse(d) ? "figure" : "full", p.height + leg + cap + 4.0);
    }
    pdf_place(d, p.height + leg + cap + 4.0);
    p.top = d->y - 4.0;
    layout(&p);
    draw(&p);
    d->y = p.top - p.height;
    legend(&p, d->y - 2.0, 1);
    d->y -= leg + 2.0;
    if (cap > 0)
        pdf_caption(d, c->caption);
    d->y -= AFTER_CHART;
    free(p.hidden);
    free(p.part);
}
