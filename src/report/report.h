/* report.h: the PDF drawing layer over libharu. A document flows content down A4 pages
 * (headings with outline entries, paragraphs, tables, charts, code blocks) and numbers its
 * pages when saved. It draws what it is given; what to draw, and from which results, is the
 * templates' job (lua/sparkreport/sections), and writing the file atomically is the caller's. */
#ifndef SR_REPORT_H
#define SR_REPORT_H

#include <stddef.h>
#include <stdio.h>
#include <time.h>

struct pdf_doc;

/* The kind of a figure (DESIGN.md, "Three kinds of numbers"). */
enum pdf_kind {
    PDF_KIND_NONE = 0,      /* text, labels: no marker */
    PDF_KIND_MEASURED,      /* measured on this run */
    PDF_KIND_SPEC,          /* vendor or published figure, source in the table's note */
    PDF_KIND_PROJECTED,     /* output of the model, with its band */
    PDF_KIND_ASSUMED,       /* an assumption: a figure the report chooses (a round figure), said so */
};

/* Colour of a table cell's background, for verdicts. */
enum pdf_tone { PDF_TONE_NONE = 0, PDF_TONE_GOOD, PDF_TONE_BAD, PDF_TONE_NEUTRAL };

enum pdf_align { PDF_ALIGN_LEFT = 0, PDF_ALIGN_RIGHT, PDF_ALIGN_CENTER };

/* Text styles for paragraphs. */
enum pdf_style { PDF_STYLE_BODY = 0, PDF_STYLE_BOLD, PDF_STYLE_SMALL, PDF_STYLE_MONO, PDF_STYLE_NOTE };

/* Formats of axis tick labels. */
enum pdf_format { PDF_FMT_NUM = 0, PDF_FMT_BYTES };

enum pdf_chart_kind { PDF_CHART_LINE = 0, PDF_CHART_BAR, PDF_CHART_STACKED_BAR };

/* Creates a document whose fonts (DejaVuSans.ttf, DejaVuSans-Bold.ttf, DejaVuSansMono.ttf)
 * are loaded from font_dir and embedded. NULL and a message in err on failure. */
struct pdf_doc *pdf_doc_new(const char *font_dir, char *err, size_t errlen);
void pdf_doc_free(struct pdf_doc *d);

/* Whether the TrueType file at path is safe to give libharu (font_check.c): a regular file, its
 * table directory inside the file with matching checksums, the tables libharu reads present and
 * their counts and offsets consistent. 0, or -1 with "PATH: not a usable TrueType font: why". */
int pdf_font_check(const char *path, char *err, size_t errlen);

/* pdf_font_check on each font pdf_doc_new would load from font_dir: what a run checks before
 * it measures, so that a damaged font cannot fail it after the measurements. */
int pdf_fonts_check(const char *font_dir, char *err, size_t errlen);

/* Info dictionary. `date` becomes CreationDate and ModDate (UTC); the same inputs and date
 * give byte-identical files. */
void pdf_doc_info(struct pdf_doc *d, const char *title, const char *subject, time_t date);

/* Writes the layout's decisions to f (NULL: none), one record a line, fields separated by tabs,
 * for tests to hold the PDF to its rules: "page N FILL WHY NEED" when page N is closed (FILL its
 * used share of the body, WHY section|figure|full|last), "label N x0 y0 x1 y1 LEADER TEXT" for a
 * point label a chart placed (page coordinates, pt; LEADER 1 when a line joins it to its point),
 * "marker N x0 y0 x1 y1" for a labelled point's marker, "legend N COUNTS" (entries per row,
 * comma-separated), "overflow N TEXT" for a table line wider than its column. */
void pdf_doc_log(struct pdf_doc *d, FILE *f);

/* Running header text printed on every page but the first (e.g. the report title). */
void pdf_doc_header(struct pdf_doc *d, const char *utf8);

/* Running footer text printed on every page, left of the page number (who the document is for,
 * which run, which tool): shortened with an ellipsis to fit beside "Page N of M". */
void pdf_doc_footer(struct pdf_doc *d, const char *utf8);

/* Draws the page numbers ("Page N of M"), then writes the file at path. Returns 0, or -1
 * with a message naming the path and the reason (including any libharu error recorded while
 * drawing). The caller writes to a temporary name and renames. */
int pdf_doc_save(struct pdf_doc *d, const char *path, char *err, size_t errlen);

/* The first libharu error recorded while drawing, or NULL. Drawing calls after an error are
 * harmless no-ops as far as the caller is concerned; save reports the error. */
const char *pdf_doc_error(const struct pdf_doc *d);

/* Title page content: a large title, a subtitle, then lines of small text. Starts page 1. The
 * title is also the document's (its Info dictionary's) title. */
void pdf_title(struct pdf_doc *d, const char *title, const char *subtitle);

/* A boxed notice across the text width (e.g. "PARTIAL RUN: interrupted"), tone colours it. */
void pdf_notice(struct pdf_doc *d, const char *utf8, enum pdf_tone tone);

/* A heading with an outline (bookmark) entry. Level 1 starts a new page and a top-level
 * outline entry; level 2 is a sub-heading whose outline entry is a child of the last level 1. */
void pdf_section(struct pdf_doc *d, const char *utf8, int level);

/* Wrapped text across the text width; breaks pages as needed. */
void pdf_paragraph(struct pdf_doc *d, const char *utf8, enum pdf_style style);

/* A monospace block (scenario source, environment dumps): keeps line breaks, wraps long
 * lines, breaks pages as needed. */
void pdf_code(struct pdf_doc *d, const char *utf8);

/* A list of contents: each title (UTF-8, the exact text of a heading drawn anywhere in the
 * document) on a line with a dotted leader, and at save time the page that heading is on ("?"
 * for a title no heading has). */
void pdf_contents(struct pdf_doc *d, const char *const *titles, int n);

/* The page (1-based) of the first heading drawn so far whose text is utf8; 0 when none is. */
int pdf_heading_page(struct pdf_doc *d, const char *utf8);

void pdf_space(struct pdf_doc *d, double points);
void pdf_page_break(struct pdf_doc *d);

struct pdf_cell {
    const char *text;       /* UTF-8 */
    enum pdf_kind kind;
    enum pdf_tone tone;
};

struct pdf_column {
    const char *title;      /* UTF-8; may contain "\n" for a two-line header */
    double width;           /* fraction of the text width; 0 = share what is left equally */
    enum pdf_align align;
};

/* A table with a header row repeated on each page it spans. When its cells carry more than one
 * kind, each figure gets a small raised marker (m, s, p) and a legend line is drawn beneath.
 * No page holds a single row of a table that has more than one: the table neither starts nor
 * ends a page with one row. */
struct pdf_table {
    const struct pdf_column *cols;
    int ncols;
    const struct pdf_cell *cells;   /* nrows * ncols, row-major */
    int nrows;
    const char *caption;            /* optional, drawn beneath (sources, notes) */
    const int *group;               /* nrows group numbers, or NULL: consecutive rows with one
                                       number stay on one page when they fit on one (a workload
                                       and its systems) */
};
void pdf_table(struct pdf_doc *d, const struct pdf_table *t);

struct pdf_axis {
    const char *label;      /* with its unit, e.g. "bandwidth (GB/s)" */
    int log;                /* 0 linear, 2 or 10: logarithmic with ticks at powers of that base */
    enum pdf_format format; /* tick labels */
    double min, max;        /* NAN: from the data (linear axes start at 0 when all data >= 0) */
};

struct pdf_series {
    const char *name;       /* legend entry */
    const double *x, *y;    /* n points; NAN y leaves a gap */
    int n;
    int dashed;             /* spec ceilings, ideal lines */
    int points;             /* draw a marker at each point */
    const double *hollow;   /* nhollow 1-based point indices drawn as outlines (statistics
                               that did not settle); NULL: none */
    int nhollow;
    const double *lo, *hi;  /* n values each, or NULL: a band drawn as an error bar at each
                               point (bar) whose lo and hi are finite */
    const char *const *labels;  /* n texts (NULL entries: none), or NULL: each written beside
                                   its point (LINE charts), where it hides no other label */
};

struct pdf_mark {           /* a vertical dashed line across the plot with a label */
    double x;
    const char *label;
};

/* A chart of `height` points across the text width. LINE: series of (x, y). BAR and
 * STACKED_BAR: categories along x (x values ignored; y[i] belongs to categories[i]).
 * Legibility is the layer's: 8 colours, then the same colours with dash patterns and point
 * markers; a line hidden under an earlier one of the same values is drawn dashed with
 * markers and its legend entry names the one it lies on; a stacked segment is never thinner
 * than a hairline; every tick label of an axis has one format (all plain or all "1e7"); a
 * log axis taken from the data leaves out one point more than two powers of ten beyond all the
 * others, which is drawn at the frame as an arrow with its name and value. */
struct pdf_chart {
    enum pdf_chart_kind kind;
    const char *title;
    struct pdf_axis x, y;
    const struct pdf_series *series;
    int nseries;
    const struct pdf_mark *marks;
    int nmarks;
    const char *const *categories;  /* BAR kinds: ncategories names */
    int ncategories;
    double height;                  /* points; 0 = default (250) */
    const char *caption;            /* optional, drawn beneath */
};
void pdf_chart(struct pdf_doc *d, const struct pdf_chart *c);

/* UTF-8 to the report's text (encoding.c): CP1252, a character of Cyrillic, Greek or the Latin
 * of Central Europe, Turkey or the Baltic as a shift byte and its byte in that script's Windows
 * code page, the fonts' single-byte encodings; other characters become close ASCII ("≥" -> ">=",
 * "→" -> "->") or '?'. Returns bytes written (excluding the NUL); out is always NUL-terminated,
 * a pair or a stand-in written whole or not at all. */
size_t pdf_utf8_encode(const char *utf8, char *out, size_t outlen);

/* Whether the report draws every character of the UTF-8 text (no control character, none that
 * becomes '?'): 0, or -1 with *at the 1-based character that it cannot draw and why its words
 * after "character N " ("('中', U+4E2D) cannot be drawn: it is CJK, ... (Debian fonts-noto-cjk)
 * ..."), naming the script and the Debian font package that has it. */
int pdf_text_check(const char *utf8, size_t *at, char *why, size_t whylen);

/* Whether the report draws the UTF-8 text character for character: none '?', a stand-in
 * ("epsilon", ">=") or dropped. */
int pdf_exact(const char *utf8);

#endif
