/* internal.h: what the report/ files share and nobody else sees: the document struct, page
 * geometry, and the text helpers (encoded copies, measuring, wrapping, drawing one line).
 * The public drawing API is report.h; Lua sees it only through src/lua/lpdf.c. */
#ifndef SR_REPORT_INTERNAL_H
#define SR_REPORT_INTERNAL_H

#include <hpdf.h>
#include <stddef.h>
#include <stdio.h>

#include "report/report.h"
#include "util/error.h"

/* A4 portrait in points, origin bottom-left. */
#define PDF_PAGE_W 595.276
#define PDF_PAGE_H 841.89
#define PDF_MARGIN_X 56.0       /* left and right */
#define PDF_MARGIN_TOP 64.0     /* the running header sits inside it */
#define PDF_MARGIN_BOTTOM 60.0  /* the page number sits inside it */
#define PDF_TEXT_W (PDF_PAGE_W - 2.0 * PDF_MARGIN_X)
#define PDF_BODY_TOP (PDF_PAGE_H - PDF_MARGIN_TOP)
#define PDF_BODY_BOTTOM PDF_MARGIN_BOTTOM

#define PDF_BODY_SIZE 10.0      /* body text, pt */
#define PDF_LEADING 1.35        /* line pitch as a multiple of the font size */
#define PDF_ASCENT 0.76         /* DejaVu cap height-ish: baseline below a line's top */
#define PDF_CAPTION_SIZE 7.5
#define PDF_CAPTION_GAP 2.0     /* between a table or chart and its caption */

/* Longest run of bytes ever measured for one line: no line of a page holds more, and it
 * keeps wrapping linear on pathological input (a megabyte without a space). */
#define PDF_WRAP_MAX 1024

/* Headings that may wait, one after another, for their first content (H1, H2, H2...). */
#define PDF_PENDING_MAX 4

/* A page is left less full than this (a share of the body's height) only where a level-1
 * section ends or an element that cannot be split does not fit even at its smallest. */
#define PDF_FILL_MIN (2.0 / 3.0)
/* A paragraph splits between pages only with at least this many lines on each side. */
#define PDF_KEEP_LINES 3

struct pdf_rgb { double r, g, b; };

/* The code pages the report's text is drawn in: 0 CP1252, then the pages of other scripts
 * (encoding.c: Cyrillic, Greek, Central European, Turkish, Baltic), each marked in the text by its
 * shift byte before the character's byte. */
#define PDF_PAGES 6

/* One TrueType font of the report, embedded once and drawn in each code page through a font object
 * of that page's encoding, made when first used (text.c's pdf_face_font): a text of Latin only uses
 * page 0 alone, so its PDF is what it was before other scripts were drawn. */
struct pdf_face {
    HPDF_Doc pdf;
    const char *name;               /* libharu's name of the loaded font */
    HPDF_Font page[PDF_PAGES];
};

struct pdf_doc {
    HPDF_Doc pdf;
    struct pdf_face faces[3];   /* regular, bold, mono */
    struct pdf_face *regular, *bold, *mono;
    HPDF_Page page;             /* current page; NULL before the first */
    HPDF_Page *pages;           /* npages, in order, for numbering at save time */
    int npages, cap_pages;
    double y;                   /* cursor: top of the free space on the page, pt from bottom */
    char *header;               /* encoded running header, or NULL */
    char *footer;               /* encoded running footer beside the page number, or NULL */
    HPDF_Outline chapter;       /* the last level-1 outline entry: parent of level 2 */
    struct pdf_heading {        /* headings waiting for the content they keep with */
        char *cp;               /* encoded (pdf_encode) */
        int level;              /* 1, 2; 3: a run-in heading (one bold line, no outline entry) */
    } pending[PDF_PENDING_MAX];
    int npending;
    const char *where;          /* the public call in progress, named in error messages */
    int saving;                 /* libharu errors now belong to the save, not the drawing */
    int numbered;               /* page numbers drawn: the page set is final */
    FILE *log;                  /* the layout's decisions, one record a line (pdf_doc_log), or NULL */
    const char *why;            /* why the next new page is started (pdf_break_why), NULL: "full" */
    double why_need;            /* pt the element that did not fit needed */
    struct pdf_head {           /* every heading drawn, with its page: contents and citations */
        char *cp;
        int page;               /* 1-based */
    } *heads;
    int nheads, cap_heads;
    struct pdf_toc {            /* a contents line whose page number is drawn at save */
        HPDF_Page page;
        double right, baseline; /* the number's right edge and baseline, pt */
        char *cp;               /* the heading it names, encoded */
    } *toc;
    int ntoc, cap_toc;
    HPDF_STATUS save_error, save_detail;
    char error[320];            /* the first drawing error; "" while there is none */
};

/* document.c: page flow and errors */

/* Starts a public drawing call: 0 when it must draw nothing (an error was recorded, or the
 * document was saved and its page numbers are final). */
int pdf_enter(struct pdf_doc *d, const char *where);
/* Records an error of our own (bad argument) unless one is already recorded. */
void pdf_fail(struct pdf_doc *d, const char *fmt, ...) SR_PRINTF(2, 3);
/* Makes sure h points are free below the cursor, starting a new page if not (a fresh page
 * is used even when h does not fit on it: there is nowhere better). */
void pdf_ensure(struct pdf_doc *d, double h);
void pdf_new_page(struct pdf_doc *d);
/* Says why the next new page starts: "section" (a level-1 section ends the page), "figure" (an
 * element that cannot be split did not fit, `need` pt), "full" (the default). Logged with the
 * page's fill, so that a test can hold every page under PDF_FILL_MIN to a reason. */
void pdf_break_why(struct pdf_doc *d, const char *why, double need);
/* Points left on the page below the cursor for content, after the headings waiting for it. */
double pdf_room(struct pdf_doc *d);
/* Whether a page broken at the cursor now would be left less than PDF_FILL_MIN full. */
int pdf_sparse(const struct pdf_doc *d);
/* A record in the layout log (no-op without one); a line, fields separated by tabs. */
void pdf_log(struct pdf_doc *d, const char *fmt, ...) SR_PRINTF(2, 3);
/* Keep-with-next: every flowing element calls this before drawing, with the height of its
 * first piece that must not be split (a paragraph's first two lines, a table's header and
 * first row, a whole chart). Headings waiting for content are drawn here, on the page where
 * that piece fits with them; without waiting headings it is pdf_ensure(h). */
void pdf_place(struct pdf_doc *d, double h);
int pdf_page_fresh(const struct pdf_doc *d);
struct pdf_rgb pdf_tone_fill(enum pdf_tone tone);
/* The small grey note under a table or chart (sources, assumptions), and its height. */
void pdf_caption(struct pdf_doc *d, const char *utf8);
double pdf_caption_height(struct pdf_doc *d, const char *utf8);

/* encoding.c: the report's text, CP1252 with pairs for other scripts */

/* An encoded copy (never NULL; NULL in gives ""): "\r" dropped, other control characters but
 * "\n" and "\t" become '?'. Free with free(). */
char *pdf_encode(const char *utf8);

/* The page a shift byte marks (1 .. PDF_PAGES - 1), 0 for any other byte. */
int pdf_shift_page(unsigned char c);
/* libharu's encoder of page k ("CP1252", "CP1251", ...). */
const char *pdf_page_encoder(int page);
/* The last character boundary at or before byte i of the encoded s: a cut there splits no pair. */
size_t pdf_char_floor(const char *s, size_t i);
/* The run of one code page that s[0..n) starts with: *page, its bytes as that page's into buf (room
 * for n), *len of them; returns the bytes of s it covers (a shift byte cut from its pair, at the end
 * of s, is covered and drawn as nothing). */
size_t pdf_run(const char *s, size_t n, int *page, char *buf, size_t *len);

/* The encoded s in one code page, for strings libharu converts with one encoder (bookmarks, the
 * document's title): the page of its first pair (0: CP1252 when it has none), each character in that
 * page, '?' where the page lacks it, into out (room for strlen(s) + 1). Returns the page. */
int pdf_to_page(const char *s, char *out);

/* Adds to `font`, the report's font in code page `page` (> 0), a ToUnicode CMap saying each byte's
 * character, so that text extracts as drawn (libharu's glyph names alone read Greek mu as micro). */
void pdf_page_tounicode(HPDF_Doc pdf, HPDF_Font font, int page);

/* text.c: measuring, wrapping and drawing encoded text */

/* The face's font in code page `page`, made when first used (NULL after a libharu error, recorded
 * in the document). */
HPDF_Font pdf_face_font(struct pdf_face *f, int page);

/* Width in points of n encoded bytes at `size`. */
double pdf_width(struct pdf_face *f, double size, const char *s, size_t n);

/* A font at a size: the measuring context pdf_measure_font expects. */
struct pdf_font { struct pdf_face *font; double size; };
typedef double (*pdf_measure_fn)(void *ctx, const char *s, size_t n);
double pdf_measure_font(void *font, const char *s, size_t n);

/* One line of wrapped text: s[off .. off+len). */
struct pdf_span { size_t off, len; };

/* Breaks s (encoded, NUL-terminated) into lines no wider than width: at "\n", else at the last
 * space that fits, else inside a word. Leading spaces of a line are kept (code indentation),
 * trailing spaces dropped. Returns the number of lines (>= 1); *lines is xmalloc'd. */
int pdf_wrap(const char *s, double width, pdf_measure_fn measure, void *ctx,
             struct pdf_span **lines);
/* The same, never inside a word: a word wider than the line takes a line of its own (table cells:
 * the plan gives every word room, or sends it to a footnote, so none is ever cut). */
int pdf_wrap_words(const char *s, double width, pdf_measure_fn measure, void *ctx,
                   struct pdf_span **lines);

/* Table cells (text.c). A cell of more than PDF_CELL_LINES lines, or with a word wider than
 * its column, becomes a footnote; a figure has at most PDF_FIGURE_TOKENS tokens. */
#define PDF_CELL_LINES 4
#define PDF_FIGURE_TOKENS 8

/* Whether encoded text is a figure, which must never wrap: its first token is a number
 * ("187375\x9626835", "+4.0", "$3999", "~1e+06", "x1.5"), every other token a number or a
 * short unit or joining word ("h", "GB/s", "%", "of"), with no more words than figures + 1.
 * "fits: 38 GB of 80 GB", "v8", "fp32" and "cudaErrorInsufficientDriver" are text. */
int pdf_numeric(const char *cp);

/* A copy of cp with every number of five or more digits (before the decimal point, thousands
 * separators allowed) written with 3 significant digits and k, M or G: "187375\x9626835 h"
 * -> "187k\x9626.8k h". NULL when no number was long enough. Free with free(). */
char *pdf_abbreviate(const char *cp);

/* The widest word (between spaces and line breaks), and the widest hard line, of cp. */
double pdf_longest_word(const char *cp, pdf_measure_fn measure, void *ctx);
double pdf_widest_line(const char *cp, pdf_measure_fn measure, void *ctx);

/* NULL when cp wraps in width into at most PDF_CELL_LINES lines with no word broken; else
 * the text the cell shows instead: its first two lines (cut after their last "; " clause, else
 * before a colon), " \x85 [mark]" (an ellipsis and the footnote's number), or "[mark]" alone
 * when a word of cp is wider than width. The caller prints cp whole as footnote `mark`.
 * Free with free(). */
char *pdf_spill(const char *cp, double width, pdf_measure_fn measure, void *ctx, int mark);

/* Draws n bytes of s with its baseline at y: left-aligned at x, or aligned inside [x, x+w]. */
void pdf_text(HPDF_Page page, struct pdf_face *f, double size, double x, double y,
              const char *s, size_t n);
void pdf_text_in(HPDF_Page page, struct pdf_face *f, double size, double x, double w, double y,
                 const char *s, size_t n, enum pdf_align align);
/* Draws s from (x, y) along a baseline turned by `degrees`. */
void pdf_text_rotated(HPDF_Page page, struct pdf_face *f, double size, double x, double y, double degrees,
                      const char *s);

/* Shortens s in place (appending "...") until it is at most w points wide. */
void pdf_ellipsize(char *s, struct pdf_face *f, double size, double w);

/* The baseline of a line of text at `size` whose line box of height `lead` starts at top. */
static inline double pdf_baseline(double top, double size, double lead)
{
    return top - (lead - size) / 2.0 - PDF_ASCENT * size;
}

/* How series i of a chart is told apart (chart.c): PDF_PALETTE colours; series beyond them
 * reuse the colours with a dash pattern (1 dashed, 2 dotted, 3 dash-dot) and always carry
 * point markers, whose shape (0 circle, 1 square, 2 triangle, 3 diamond) also changes. */
#define PDF_PALETTE 8
struct pdf_look {
    struct pdf_rgb colour;
    int dash;               /* 0 solid */
    int marker;             /* shape */
    int points;             /* markers drawn whatever the series asks */
};
struct pdf_look pdf_series_look(int i);

void pdf_fill_rect(HPDF_Page page, double x, double y, double w, double h, struct pdf_rgb c);
void pdf_hline(HPDF_Page page, double x0, double x1, double y, double width, double grey);

#endif
