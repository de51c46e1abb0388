/* document.c: the life of a PDF document: fonts, libharu errors, page flow (the cursor, new
 * pages), headings with their outline entries, the title page, notices, paragraphs, code
 * blocks, and the running header and page numbers drawn when the file is saved. Tables and
 * charts are table.c and chart.c; text conversion and wrapping are text.c. */
#include "report/internal.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define HEADER_SIZE 8.0
#define HEADER_BASELINE (PDF_PAGE_H - 40.0)
#define FOOTER_SIZE 8.0
#define FOOTER_TEXT_SIZE 7.0    /* the running footer's text beside the page number */
#define FOOTER_BASELINE 30.0
#define TITLE_SIZE 20.0
#define SUBTITLE_SIZE 13.0
#define TITLE_TOP (PDF_BODY_TOP - 24.0) /* the title block opens the first page: the answer follows it */
#define H1_SIZE 16.0
#define H2_SIZE 12.0
#define H1_MIN_ROOM 200.0       /* a chapter starting lower than this starts the next page */
#define PARA_GAP 0.6            /* space after a paragraph, in units of its font size */
#define NOTICE_SIZE 10.0
#define NOTICE_PAD 8.0
#define NOTICE_BAR 4.0          /* the tone-coloured bar on the notice's left edge */
#define CODE_SIZE 8.0
#define CODE_MIN 6.0            /* a code block shrinks to this before its lines wrap */
#define CODE_LEADING 1.25
#define CODE_PAD 5.0
#define TAB_STOP 8
#define OUTLINE_MAX 160         /* bookmark text, bytes (libharu refuses strings > 64 KiB) */
#define SAVE_CHUNK 65536        /* bytes copied from libharu's memory stream at a time */

static const struct pdf_rgb INK = { 0.10, 0.10, 0.10 };
static const struct pdf_rgb HEADING_INK = { 0.08, 0.20, 0.40 };
static const struct pdf_rgb SUBTLE_INK = { 0.35, 0.35, 0.35 };

/* The libharu errors a report can plausibly hit, named so a message can be looked up. */
#define E(code) { code, #code }
static const struct { HPDF_STATUS no; const char *name; } hpdf_errors[] = {
    E(HPDF_FAILD_TO_ALLOC_MEM), E(HPDF_FILE_IO_ERROR), E(HPDF_FILE_OPEN_ERROR),
    E(HPDF_FONT_EXISTS), E(HPDF_INVALID_DATE_TIME), E(HPDF_INVALID_DESTINATION),
    E(HPDF_INVALID_DOCUMENT), E(HPDF_INVALID_ENCODER), E(HPDF_INVALID_ENCODING_NAME),
    E(HPDF_INVALID_FONTDEF_DATA), E(HPDF_INVALID_FONT_NAME), E(HPDF_INVALID_OBJECT),
    E(HPDF_INVALID_OPERATION), E(HPDF_INVALID_OUTLINE), E(HPDF_INVALID_PAGE),
    E(HPDF_INVALID_PARAMETER), E(HPDF_INVALID_STREAM), E(HPDF_PAGE_CANNOT_RESTORE_GSTATE),
    E(HPDF_PAGE_FONT_NOT_FOUND), E(HPDF_PAGE_INVALID_FONT), E(HPDF_PAGE_INVALID_FONT_SIZE),
    E(HPDF_PAGE_INVALID_GMODE), E(HPDF_PAGE_INVALID_SIZE), E(HPDF_PAGE_OUT_OF_RANGE),
    E(HPDF_REAL_OUT_OF_RANGE), E(HPDF_EXCEED_GSTATE_LIMIT), E(HPDF_STRING_OUT_OF_RANGE),
    E(HPDF_TTF_CANNOT_EMBEDDING_FONT), E(HPDF_TTF_INVALID_CMAP), E(HPDF_TTF_INVALID_FOMAT),
    E(HPDF_TTF_MISSING_TABLE), E(HPDF_UNSUPPORTED_FONT_TYPE), E(HPDF_ZLIB_ERROR),
};
#undef E

static const char *error_name(HPDF_STATUS no)
{
    for (size_t i = 0; i < sizeof hpdf_errors / sizeof hpdf_errors[0]; i++)
        if (hpdf_errors[i].no == no)
            return hpdf_errors[i].name;
    return "see hpdf_error.h";
}

/* libharu calls this for every error. Only the first drawing error is kept: later ones are
 * usually its consequences. Errors while saving are kept apart so a failed save (a bad path)
 * does not poison the next one. */
static void on_error(HPDF_STATUS no, HPDF_STATUS detail, void *user)
{
    struct pdf_doc *d = user;
    if (d->saving) {
        if (!d->save_error) {
            d->save_error = no;
            d->save_detail = detail;
        }
        return;
    }
    if (d->error[0])
        return;
    sr_fmt(d->error, sizeof d->error, "libharu error 0x%04X (%s), detail %lu, in %s",
           (unsigned)no, error_name(no), (unsigned long)detail, d->where ? d->where : "?");
}

void pdf_fail(struct pdf_doc *d, const char *fmt, ...)
{
    va_list ap;
    if (d->error[0])
        return;
    va_start(ap, fmt);
    vsnprintf(d->error, sizeof d->error, fmt, ap);
    va_end(ap);
}

void pdf_log(struct pdf_doc *d, const char *fmt, ...)
{
    va_list ap;
    if (!d->log)
        return;
    va_start(ap, fmt);
    vfprintf(d->log, fmt, ap);
    va_end(ap);
    fputc('\n', d->log);
}

void pdf_doc_log(struct pdf_doc *d, FILE *f)
{
    d->log = f;
}

void pdf_break_why(struct pdf_doc *d, const char *why, double need)
{
    d->why = why;
    d->why_need = need;
}

/* The share of the current page's body above the cursor. */
static double page_fill(const struct pdf_doc *d)
{
    return (PDF_BODY_TOP - d->y) / (PDF_BODY_TOP - PDF_BODY_BOTTOM);
}

int pdf_sparse(const struct pdf_doc *d)
{
    return d->page && !pdf_page_fresh(d) && page_fill(d) < PDF_FILL_MIN;
}

/* The page's record in the layout log, when it is closed. */
static void page_closed(struct pdf_doc *d, const char *why)
{
    pdf_log(d, "page\t%d\t%.3f\t%s\t%.1f\t%.1f", d->npages, page_fill(d), why,
            strcmp(why, "figure") == 0 ? d->why_need : 0.0, d->y - PDF_BODY_BOTTOM);
}

int pdf_enter(struct pdf_doc *d, const char *where)
{
    if (d->error[0])
        return 0;
    d->where = where;
    if (d->numbered) {
        pdf_fail(d, "%s after pdf_doc_save: the pages are numbered and final", where);
        return 0;
    }
    return 1;
}

void pdf_new_page(struct pdf_doc *d)
{
    if (d->page)
        page_closed(d, d->why ? d->why : "full");
    d->why = NULL;
    HPDF_Page p = HPDF_AddPage(d->pdf);
    d->y = PDF_BODY_TOP;        /* even on failure, so callers' page loops end */
    if (!p)
        return;                 /* the handler recorded why */
    HPDF_Page_SetSize(p, HPDF_PAGE_SIZE_A4, HPDF_PAGE_PORTRAIT);
    if (d->npages == d->cap_pages) {
        d->cap_pages = d->cap_pages ? 2 * d->cap_pages : 16;
        d->pages = xrealloc(d->pages, (size_t)d->cap_pages * sizeof *d->pages);
    }
    d->pages[d->npages++] = p;
    d->page = p;
}

int pdf_page_fresh(const struct pdf_doc *d)
{
    return d->page && d->y >= PDF_BODY_TOP;
}

void pdf_ensure(struct pdf_doc *d, double h)
{
    if (!d->page || (d->y - h < PDF_BODY_BOTTOM && !pdf_page_fresh(d)))
        pdf_new_page(d);
    d->why = NULL;
}

struct pdf_rgb pdf_tone_fill(enum pdf_tone tone)
{
    switch (tone) {
    case PDF_TONE_GOOD: return (struct pdf_rgb){ 0.84, 0.94, 0.84 };
    case PDF_TONE_BAD: return (struct pdf_rgb){ 0.98, 0.85, 0.85 };
    case PDF_TONE_NEUTRAL: return (struct pdf_rgb){ 0.91, 0.91, 0.91 };
    default: return (struct pdf_rgb){ 1.0, 1.0, 1.0 };
    }
}

static struct pdf_rgb tone_ink(enum pdf_tone tone)
{
    switch (tone) {
    case PDF_TONE_GOOD: return (struct pdf_rgb){ 0.15, 0.50, 0.20 };
    case PDF_TONE_BAD: return (struct pdf_rgb){ 0.75, 0.12, 0.12 };
    default: return (struct pdf_rgb){ 0.45, 0.45, 0.45 };
    }
}

static void set_ink(HPDF_Page page, struct pdf_rgb c)
{
    HPDF_Page_SetRGBFill(page, (HPDF_REAL)c.r, (HPDF_REAL)c.g, (HPDF_REAL)c.b);
}

/* ---- lifecycle ---------------------------------------------------------------------- */

static const char *const font_files[3] = { "DejaVuSans.ttf", "DejaVuSans-Bold.ttf", "DejaVuSansMono.ttf" };

int pdf_fonts_check(const char *font_dir, char *err, size_t errlen)
{
    char path[4096];
    for (int i = 0; i < 3; i++) {
        sr_fmt(path, sizeof path, "%s/%s", font_dir, font_files[i]);
        if (pdf_font_check(path, err, errlen) != 0)
            return -1;
    }
    return 0;
}

static int load_font(struct pdf_doc *d, const char *dir, const char *file, struct pdf_face *face,
                     char *err, size_t errlen)
{
    char path[4096];
    sr_fmt(path, sizeof path, "%s/%s", dir, file);
    if (pdf_font_check(path, err, errlen) != 0)     /* libharu trusts every offset in it */
        return -1;
    d->where = "HPDF_LoadTTFontFromFile";
    face->pdf = d->pdf;
    face->name = HPDF_LoadTTFontFromFile(d->pdf, path, HPDF_TRUE);
    d->where = "HPDF_GetFont";
    if (!face->name || !pdf_face_font(face, 0)) {
        sr_fmt(err, errlen, "%s: %s", path, d->error[0] ? d->error : "cannot load the font");
        return -1;
    }
    return 0;
}

struct pdf_doc *pdf_doc_new(const char *font_dir, char *err, size_t errlen)
{
    struct pdf_doc *d = xcalloc(1, sizeof *d);
    d->where = "HPDF_New";
    d->pdf = HPDF_New(on_error, d);
    if (!d->pdf) {
        sr_fmt(err, errlen, "libharu: cannot create a document (out of memory)");
        free(d);
        return NULL;
    }
    HPDF_SetCompressionMode(d->pdf, HPDF_COMP_ALL);
    HPDF_SetPageMode(d->pdf, HPDF_PAGE_MODE_USE_OUTLINE);
    d->regular = &d->faces[0], d->bold = &d->faces[1], d->mono = &d->faces[2];
    for (int i = 0; i < 3; i++)
        if (load_font(d, font_dir, font_files[i], &d->faces[i], err, errlen) != 0) {
            pdf_doc_free(d);
            return NULL;
        }
    d->where = "pdf_doc_new";
    /* Info strings are written with the current encoder: a single-byte one makes them UTF-16 in
     * the file, so a title with "×" reads right in a viewer's document properties (set_info). */
    HPDF_SetCurrentEncoder(d->pdf, "CP1252");
    HPDF_SetInfoAttr(d->pdf, HPDF_INFO_CREATOR, "sparkreport");
    if (d->error[0]) {
        sr_fmt(err, errlen, "libharu: %s", d->error);
        pdf_doc_free(d);
        return NULL;
    }
    return d;
}

void pdf_doc_free(struct pdf_doc *d)
{
    if (!d)
        return;
    if (d->pdf)
        HPDF_Free(d->pdf);
    for (int i = 0; i < d->npending; i++)
        free(d->pending[i].cp);
    for (int i = 0; i < d->nheads; i++)
        free(d->heads[i].cp);
    for (int i = 0; i < d->ntoc; i++)
        free(d->toc[i].cp);
    free(d->heads);
    free(d->toc);
    free(d->pages);
    free(d->header);
    free(d->footer);
    free(d);
}

const char *pdf_doc_error(const struct pdf_doc *d)
{
    return d->error[0] ? d->error : NULL;
}

static void set_info(struct pdf_doc *d, HPDF_InfoType type, const char *utf8)
{
    char *cp = pdf_encode(utf8), *one = xmalloc(strlen(cp) + 1);
    HPDF_SetCurrentEncoder(d->pdf, pdf_page_encoder(pdf_to_page(cp, one)));
    HPDF_SetInfoAttr(d->pdf, type, one);
    HPDF_SetCurrentEncoder(d->pdf, "CP1252");
    free(one);
    free(cp);
}

void pdf_doc_info(struct pdf_doc *d, const char *title, const char *subject, time_t date)
{
    struct tm tm;
    if (d->error[0])
        return;
    d->where = "pdf_doc_info";
    if (title)
        set_info(d, HPDF_INFO_TITLE, title);
    if (subject)
        set_info(d, HPDF_INFO_SUBJECT, subject);
    if (!gmtime_r(&date, &tm)) {
        pdf_fail(d, "pdf_doc_info: date %lld is out of range", (long long)date);
        return;
    }
    /* Both dates come from the caller and nothing else in the file depends on the clock:
     * that is what makes the output reproducible. */
    HPDF_Date hd = { .year = tm.tm_year + 1900, .month = tm.tm_mon + 1, .day = tm.tm_mday,
                     .hour = tm.tm_hour, .minutes = tm.tm_min,
                     .seconds = tm.tm_sec > 59 ? 59 : tm.tm_sec, .ind = 'Z' };
    HPDF_SetInfoDateAttr(d->pdf, HPDF_INFO_CREATION_DATE, hd);
    HPDF_SetInfoDateAttr(d->pdf, HPDF_INFO_MOD_DATE, hd);
}

void pdf_doc_header(struct pdf_doc *d, const char *utf8)
{
    if (!pdf_enter(d, "pdf_doc_header"))
        return;
    free(d->header);
    d->header = utf8 && *utf8 ? pdf_encode(utf8) : NULL;
}

void pdf_doc_footer(struct pdf_doc *d, const char *utf8)
{
    if (!pdf_enter(d, "pdf_doc_footer"))
        return;
    free(d->footer);
    d->footer = utf8 && *utf8 ? pdf_encode(utf8) : NULL;
}

/* ---- saving ------------------------------------------------------------------------- */

static int heading_page(const struct pdf_doc *d, const char *cp)
{
    for (int i = 0; i < d->nheads; i++)
        if (strcmp(d->heads[i].cp, cp) == 0)
            return d->heads[i].page;
    return 0;
}

int pdf_heading_page(struct pdf_doc *d, const char *utf8)
{
    char *cp = pdf_encode(utf8);
    int page = heading_page(d, cp);
    free(cp);
    return page;
}

/* The contents' page numbers, now that every heading has its page. */
static void number_contents(struct pdf_doc *d)
{
    char buf[32];
    d->where = "pdf_doc_save (contents)";
    for (int i = 0; i < d->ntoc; i++) {
        const struct pdf_toc *t = &d->toc[i];
        int page = heading_page(d, t->cp);
        if (page > 0)
            sr_fmt(buf, sizeof buf, "%d", page);
        else
            sr_fmt(buf, sizeof buf, "?");
        if (page == 0)
            pdf_log(d, "contents-missing\t%s", t->cp);
        set_ink(t->page, INK);
        pdf_text_in(t->page, d->regular, PDF_BODY_SIZE, t->right - 40.0, 40.0, t->baseline, buf,
                    strlen(buf), PDF_ALIGN_RIGHT);
    }
}

/* The running header and "Page N of M" go on at save time, when M is known. */
static void number_pages(struct pdf_doc *d)
{
    char buf[64];
    number_contents(d);
    d->where = "pdf_doc_save (page numbers)";
    for (int i = 0; i < d->npages; i++) {
        HPDF_Page p = d->pages[i];
        set_ink(p, SUBTLE_INK);
        sr_fmt(buf, sizeof buf, "Page %d of %d", i + 1, d->npages);
        pdf_text_in(p, d->regular, FOOTER_SIZE, PDF_MARGIN_X, PDF_TEXT_W, FOOTER_BASELINE,
                    buf, strlen(buf), d->footer ? PDF_ALIGN_RIGHT : PDF_ALIGN_CENTER);
        if (d->footer) {
            char *f = xstrdup(d->footer);
            double room = PDF_TEXT_W - pdf_width(d->regular, FOOTER_SIZE, buf, strlen(buf)) - 12.0;
            pdf_ellipsize(f, d->regular, FOOTER_TEXT_SIZE, room);
            set_ink(p, SUBTLE_INK);
            pdf_text(p, d->regular, FOOTER_TEXT_SIZE, PDF_MARGIN_X, FOOTER_BASELINE, f, strlen(f));
            free(f);
        }
        if (i == 0 || !d->header)
            continue;
        char *h = xstrdup(d->header);
        pdf_ellipsize(h, d->regular, HEADER_SIZE, PDF_TEXT_W);
        set_ink(p, SUBTLE_INK);
        pdf_text(p, d->regular, HEADER_SIZE, PDF_MARGIN_X, HEADER_BASELINE, h, strlen(h));
        pdf_hline(p, PDF_MARGIN_X, PDF_MARGIN_X + PDF_TEXT_W, HEADER_BASELINE - 5.0, 0.4, 0.7);
        free(h);
    }
}

/* Copies libharu's in-memory file out with checked stdio, so a full disk or a bad path
 * comes back as errno text (libharu's own file writer ignores fclose failures). */
static int write_file(struct pdf_doc *d, const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return sr_fmt(err, errlen, "%s: %s", path, strerror(errno)), -1;
    HPDF_UINT32 left = HPDF_GetStreamSize(d->pdf);
    HPDF_BYTE *buf = xmalloc(SAVE_CHUNK);
    int e = 0;
    HPDF_ResetStream(d->pdf);
    while (left > 0 && !e) {
        HPDF_UINT32 n = left < SAVE_CHUNK ? left : SAVE_CHUNK;  /* never read past the end */
        errno = 0;
        if (HPDF_ReadFromStream(d->pdf, buf, &n) != HPDF_OK || n == 0)
            e = EIO;
        else if (fwrite(buf, 1, n, f) != n)
            e = errno ? errno : EIO;
        left -= n;
    }
    free(buf);
    if (!e && fflush(f) != 0)
        e = errno;
    if (fclose(f) != 0 && !e)
        e = errno;
    if (e)
        sr_fmt(err, errlen, "%s: %s", path, strerror(e));
    return e ? -1 : 0;
}

int pdf_doc_save(struct pdf_doc *d, const char *path, char *err, size_t errlen)
{
    if (!d->numbered && !d->error[0]) {
        d->where = "pdf_doc_save";
        pdf_place(d, 0.0);      /* headings with nothing after them still appear */
        if (!d->page)
            pdf_new_page(d);    /* a PDF needs a page; an empty report gets a blank one */
        page_closed(d, "last");
        number_pages(d);
        d->numbered = 1;        /* drawn once: saving again writes the same bytes */
    }
    if (d->error[0])
        return sr_fmt(err, errlen, "%s: %s", path, d->error), -1;
    d->saving = 1;
    d->save_error = d->save_detail = 0;
    HPDF_STATUS st = HPDF_SaveToStream(d->pdf);
    int rc = 0;
    if (st != HPDF_OK || d->save_error) {
        HPDF_STATUS no = d->save_error ? d->save_error : st;
        sr_fmt(err, errlen, "%s: libharu error 0x%04X (%s), detail %lu, in HPDF_SaveToStream",
               path, (unsigned)no, error_name(no), (unsigned long)d->save_detail);
        rc = -1;
    } else {
        rc = write_file(d, path, err, errlen);
    }
    HPDF_ResetError(d->pdf);    /* a failed save leaves the document as it was */
    d->saving = 0;
    return rc;
}

/* ---- flowing content ---------------------------------------------------------------- */

static HPDF_Outline outline(struct pdf_doc *d, HPDF_Outline parent, const char *cp, double top)
{
    char title[OUTLINE_MAX + 1], *one = xmalloc(strlen(cp) + 1);
    int page = pdf_to_page(cp, one);    /* one encoder per bookmark: its first script's */
    size_t n = strlen(one);
    if (n > OUTLINE_MAX) {
        memcpy(title, one, OUTLINE_MAX - 3);
        memcpy(title + OUTLINE_MAX - 3, "...", 4);
    } else {
        memcpy(title, one, n + 1);
    }
    free(one);
    for (char *p = title; *p; p++)
        if (*p == '\n' || *p == '\t')
            *p = ' ';                   /* a bookmark is one line */
    HPDF_Outline o = HPDF_CreateOutline(d->pdf, parent, title, HPDF_GetEncoder(d->pdf, pdf_page_encoder(page)));
    HPDF_Destination dst = o ? HPDF_Page_CreateDestination(d->page) : NULL;
    if (!dst)
        return o;
    HPDF_Destination_SetFitH(dst, (HPDF_REAL)top);  /* land on the heading, keep the width */
    HPDF_Outline_SetDestination(o, dst);
    HPDF_Outline_SetOpened(o, HPDF_TRUE);
    return o;
}

/* Of `left` lines still to draw, how many go on a page with room for `room`: all that fit, but a
 * split leaves PDF_KEEP_LINES lines or more on each side; 0: none (the page ends here). On a fresh
 * page as many as fit, at least one (there is nowhere better). */
static int lines_here(int left, int room, int fresh)
{
    if (left <= room)
        return left;
    int k = room < left - PDF_KEEP_LINES ? room : left - PDF_KEEP_LINES;
    if (k >= PDF_KEEP_LINES)
        return k;
    return fresh ? (room > 1 ? room : 1) : 0;
}

/* The first piece of n lines that must not be split from what is above it: the whole text when
 * it cannot split (fewer than twice PDF_KEEP_LINES lines), else its first PDF_KEEP_LINES. */
static int first_piece(int n)
{
    return n < 2 * PDF_KEEP_LINES ? n : PDF_KEEP_LINES;
}

/* Draws wrapped CP1252 text across the text width at the cursor, breaking pages between lines as
 * needed, never leaving fewer than PDF_KEEP_LINES lines of it on either side of a break. */
static void pdf_flow(struct pdf_doc *d, const char *cp, struct pdf_face *f, double size, struct pdf_rgb ink)
{
    struct pdf_font pf = { f, size };
    struct pdf_span *ln;
    double lead = size * PDF_LEADING;
    int n = pdf_wrap(cp, PDF_TEXT_W, pdf_measure_font, &pf, &ln);
    for (int i = 0; i < n;) {
        if (!d->page)
            pdf_new_page(d);
        int room = (int)floor((d->y - PDF_BODY_BOTTOM) / lead + 1e-9);
        int k = lines_here(n - i, room < 0 ? 0 : room, pdf_page_fresh(d));
        if (k == 0) {
            pdf_new_page(d);
            continue;
        }
        set_ink(d->page, ink);
        for (int j = 0; j < k; j++, i++) {
            pdf_text(d->page, f, size, PDF_MARGIN_X, pdf_baseline(d->y, size, lead),
                     cp + ln[i].off, ln[i].len);
            d->y -= lead;
        }
        if (i < n)
            pdf_new_page(d);
    }
    free(ln);
}

void pdf_caption(struct pdf_doc *d, const char *utf8)
{
    char *cp = pdf_encode(utf8);
    d->y -= PDF_CAPTION_GAP;
    pdf_flow(d, cp, d->regular, PDF_CAPTION_SIZE, SUBTLE_INK);
    free(cp);
}

double pdf_caption_height(struct pdf_doc *d, const char *utf8)
{
    char *cp = pdf_encode(utf8);
    struct pdf_font pf = { d->regular, PDF_CAPTION_SIZE };
    struct pdf_span *ln;
    int n = pdf_wrap(cp, PDF_TEXT_W, pdf_measure_font, &pf, &ln);
    free(ln);
    free(cp);
    return PDF_CAPTION_GAP + n * PDF_CAPTION_SIZE * PDF_LEADING;
}

/* Height of the first `most` lines of wrapped text (all of them when it has fewer; most < 0: its
 * first piece, first_piece()). */
static double flow_height(const char *cp, struct pdf_face *f, double size, int most)
{
    struct pdf_font pf = { f, size };
    struct pdf_span *ln;
    int n = pdf_wrap(cp, PDF_TEXT_W, pdf_measure_font, &pf, &ln);
    free(ln);
    if (most < 0)
        most = first_piece(n);
    return (n < most ? n : most) * size * PDF_LEADING;
}

void pdf_title(struct pdf_doc *d, const char *title, const char *subtitle)
{
    if (!pdf_enter(d, "pdf_title"))
        return;
    char *t = pdf_encode(title), *s = pdf_encode(subtitle);
    set_info(d, HPDF_INFO_TITLE, title);    /* the title page's title is the file's */
    pdf_place(d, 0.0);
    if (!pdf_page_fresh(d))
        pdf_new_page(d);
    d->chapter = NULL;
    outline(d, NULL, t, PDF_PAGE_H);
    pdf_fill_rect(d->page, PDF_MARGIN_X, TITLE_TOP + 14.0, 72.0, 5.0, HEADING_INK);
    d->y = TITLE_TOP;
    pdf_flow(d, t, d->bold, TITLE_SIZE, HEADING_INK);
    if (*s) {
        d->y -= 4.0;
        pdf_flow(d, s, d->regular, SUBTITLE_SIZE, SUBTLE_INK);
    }
    d->y -= 10.0;
    pdf_hline(d->page, PDF_MARGIN_X, PDF_MARGIN_X + PDF_TEXT_W, d->y, 0.8, 0.6);
    d->y -= 14.0;
    free(t);
    free(s);
}

void pdf_notice(struct pdf_doc *d, const char *utf8, enum pdf_tone tone)
{
    if (!pdf_enter(d, "pdf_notice"))
        return;
    char *cp = pdf_encode(utf8);
    struct pdf_font pf = { d->bold, NOTICE_SIZE };
    struct pdf_span *ln;
    double lead = NOTICE_SIZE * PDF_LEADING, inner = PDF_TEXT_W - 2 * NOTICE_PAD - NOTICE_BAR;
    int n = pdf_wrap(cp, inner, pdf_measure_font, &pf, &ln);
    double h = n * lead + 2 * NOTICE_PAD;
    pdf_place(d, h + 8.0);
    double y0 = d->y - h;
    pdf_fill_rect(d->page, PDF_MARGIN_X, y0, PDF_TEXT_W, h, pdf_tone_fill(tone));
    pdf_fill_rect(d->page, PDF_MARGIN_X, y0, NOTICE_BAR, h, tone_ink(tone));
    set_ink(d->page, INK);
    for (int i = 0; i < n; i++)
        pdf_text(d->page, d->bold, NOTICE_SIZE, PDF_MARGIN_X + NOTICE_BAR + NOTICE_PAD,
                 pdf_baseline(d->y - NOTICE_PAD - i * lead, NOTICE_SIZE, lead),
                 cp + ln[i].off, ln[i].len);
    d->y = y0 - 8.0;
    free(ln);
    free(cp);
}

/* Height of a waiting heading drawn at the cursor (air above it, its lines, the gap below). */
static double heading_height(const struct pdf_doc *d, const struct pdf_heading *h, int first,
                             int fresh)
{
    if (h->level == 3)                  /* a run-in heading: a bold paragraph of one line */
        return flow_height(h->cp, d->bold, PDF_BODY_SIZE, 1) + PARA_GAP * PDF_BODY_SIZE;
    double size = h->level == 1 ? H1_SIZE : H2_SIZE;
    struct pdf_font pf = { d->bold, size };
    struct pdf_span *ln;
    int n = pdf_wrap(h->cp, PDF_TEXT_W, pdf_measure_font, &pf, &ln);
    free(ln);
    double above = first && fresh ? 0.0 : (h->level == 1 ? 1.2 : 0.8) * size;
    return above + n * size * PDF_LEADING + (h->level == 1 ? 12.0 : 4.0);
}

static void draw_heading(struct pdf_doc *d, const struct pdf_heading *h, int first)
{
    if (h->level == 3) {
        pdf_flow(d, h->cp, d->bold, PDF_BODY_SIZE, INK);
        d->y -= PARA_GAP * PDF_BODY_SIZE;
        return;
    }
    double size = h->level == 1 ? H1_SIZE : H2_SIZE;
    if (!(first && pdf_page_fresh(d)))
        d->y -= (h->level == 1 ? 1.2 : 0.8) * size;     /* air above, not at a page top */
    HPDF_Outline o = outline(d, h->level == 1 ? NULL : d->chapter, h->cp, d->y);
    if (h->level == 1)
        d->chapter = o;
    if (d->nheads == d->cap_heads) {
        d->cap_heads = d->cap_heads ? 2 * d->cap_heads : 32;
        d->heads = xrealloc(d->heads, (size_t)d->cap_heads * sizeof *d->heads);
    }
    d->heads[d->nheads++] = (struct pdf_head){ xstrdup(h->cp), d->npages };
    pdf_flow(d, h->cp, d->bold, size, HEADING_INK);
    if (h->level == 1) {
        pdf_hline(d->page, PDF_MARGIN_X, PDF_MARGIN_X + PDF_TEXT_W, d->y - 2.0, 0.8, 0.6);
        d->y -= 12.0;
    } else {
        d->y -= 4.0;
    }
}

/* Height of the headings waiting, drawn at the cursor. */
static double pending_height(const struct pdf_doc *d)
{
    double h = 0.0;
    for (int i = 0; i < d->npending; i++)
        h += heading_height(d, &d->pending[i], i == 0, pdf_page_fresh(d));
    return h;
}

double pdf_room(struct pdf_doc *d)
{
    return (d->page ? d->y : PDF_BODY_TOP) - PDF_BODY_BOTTOM - pending_height(d);
}

void pdf_place(struct pdf_doc *d, double h)
{
    if (d->npending == 0) {
        pdf_ensure(d, h);
        return;
    }
    int chapter = 0, fresh = pdf_page_fresh(d);
    double need = h + pending_height(d);
    for (int i = 0; i < d->npending; i++)
        chapter |= d->pending[i].level == 1;
    /* A chapter opens with room to read, not in the last lines of a page. */
    if (chapter)
        pdf_break_why(d, "section", 0.0);
    if (!d->page || (!fresh && d->y - fmax(need, chapter ? H1_MIN_ROOM : 0.0) < PDF_BODY_BOTTOM))
        pdf_new_page(d);
    d->why = NULL;
    for (int i = 0; i < d->npending; i++) {
        draw_heading(d, &d->pending[i], i == 0);
        free(d->pending[i].cp);
    }
    d->npending = 0;
}

void pdf_section(struct pdf_doc *d, const char *utf8, int level)
{
    if (!pdf_enter(d, "pdf_section"))
        return;
    if (level != 1 && level != 2) {
        pdf_fail(d, "pdf_section: level must be 1 or 2, got %d", level);
        return;
    }
    if (d->npending == PDF_PENDING_MAX)
        pdf_place(d, 0.0);              /* headings with nothing between: draw the oldest */
    d->pending[d->npending++] = (struct pdf_heading){ pdf_encode(utf8), level };
}

static void style_of(const struct pdf_doc *d, enum pdf_style style, struct pdf_face **f,
                     double *size, struct pdf_rgb *ink)
{
    *f = d->regular;
    *size = PDF_BODY_SIZE;
    *ink = INK;
    switch (style) {
    case PDF_STYLE_BOLD: *f = d->bold; break;
    case PDF_STYLE_SMALL: *size = 8.5; break;
    case PDF_STYLE_MONO: *f = d->mono; *size = 9.0; break;
    case PDF_STYLE_NOTE: *size = 8.5; *ink = SUBTLE_INK; break;
    default: break;
    }
}

/* Tabs to spaces at every TAB_STOP columns; a character is one column, a byte or a pair. */
static char *expand_tabs(const char *s)
{
    size_t tabs = 0, col = 0, j = 0;
    for (const char *p = s; *p; p++)
        tabs += *p == '\t';
    char *out = xmalloc(strlen(s) + tabs * TAB_STOP + 1);
    for (; *s; s++) {
        if (*s == '\t') {
            do
                out[j++] = ' ';
            while (++col % TAB_STOP);
        } else {
            if (pdf_shift_page((unsigned char)*s) && s[1])
                out[j++] = *s++;        /* a pair: one character */
            out[j++] = *s;
            col = *s == '\n' ? 0 : col + 1;
        }
    }
    out[j] = '\0';
    return out;
}

void pdf_paragraph(struct pdf_doc *d, const char *utf8, enum pdf_style style)
{
    struct pdf_face *f;
    double size;
    struct pdf_rgb ink;
    if (!pdf_enter(d, "pdf_paragraph"))
        return;
    char *cp = pdf_encode(utf8), *text = expand_tabs(cp);
    style_of(d, style, &f, &size, &ink);
    if (style == PDF_STYLE_BOLD && !strchr(text, '\n') && flow_height(text, f, size, 2) <= size * PDF_LEADING) {
        /* one bold line names what follows: it waits for it, as a heading does (no outline entry) */
        if (d->npending == PDF_PENDING_MAX)
            pdf_place(d, 0.0);
        d->pending[d->npending++] = (struct pdf_heading){ text, 3 };
        free(cp);
        return;
    }
    pdf_place(d, flow_height(text, f, size, -1));
    pdf_flow(d, text, f, size, ink);
    d->y -= PARA_GAP * size;
    free(text);
    free(cp);
}

/* Draws lines [0, k) of a code block as one shaded box at the cursor. */
static void code_chunk(struct pdf_doc *d, const char *text, const struct pdf_span *ln, int k,
                       double size)
{
    double lead = size * CODE_LEADING, h = k * lead + 2 * CODE_PAD;
    pdf_fill_rect(d->page, PDF_MARGIN_X, d->y - h, PDF_TEXT_W, h, (struct pdf_rgb){ 0.955, 0.955, 0.955 });
    pdf_fill_rect(d->page, PDF_MARGIN_X, d->y - h, 1.5, h, (struct pdf_rgb){ 0.70, 0.70, 0.70 });
    set_ink(d->page, INK);
    for (int i = 0; i < k; i++)
        pdf_text(d->page, d->mono, size, PDF_MARGIN_X + CODE_PAD + 2.0,
                 pdf_baseline(d->y - CODE_PAD - i * lead, size, lead),
                 text + ln[i].off, ln[i].len);
    d->y -= h;
}

/* The size at which the block's longest line fits the width unwrapped: CODE_SIZE, or smaller
 * down to CODE_MIN (below that, lines wrap). */
static double code_size(struct pdf_doc *d, const char *text, double width)
{
    struct pdf_font pf = { d->mono, CODE_SIZE };
    double w = pdf_widest_line(text, pdf_measure_font, &pf);
    return w <= width ? CODE_SIZE : fmax(CODE_MIN, floor(CODE_SIZE * width / w * 4.0) / 4.0);
}

void pdf_code(struct pdf_doc *d, const char *utf8)
{
    if (!pdf_enter(d, "pdf_code"))
        return;
    char *cp = pdf_encode(utf8), *text = expand_tabs(cp);
    size_t len = strlen(text);
    while (len > 0 && text[len - 1] == '\n')
        text[--len] = '\0';             /* a final newline is not an empty last line */
    double inner = PDF_TEXT_W - 2 * CODE_PAD - 2.0, size = code_size(d, text, inner);
    struct pdf_font pf = { d->mono, size };
    struct pdf_span *ln;
    double lead = size * CODE_LEADING;
    int n = pdf_wrap(text, inner, pdf_measure_font, &pf, &ln);
    pdf_place(d, 2 * CODE_PAD + lead * (n > 1 ? 2 : 1));
    for (int i = 0; i < n;) {
        pdf_ensure(d, 2 * CODE_PAD + lead * (n - i > 1 ? 2 : 1));  /* no lone line */
        int k = (int)((d->y - PDF_BODY_BOTTOM - 2 * CODE_PAD) / lead);
        k = k < 1 ? 1 : k > n - i ? n - i : k;
        code_chunk(d, text, ln + i, k, size);
        i += k;
    }
    d->y -= PARA_GAP * PDF_BODY_SIZE;
    free(ln);
    free(text);
    free(cp);
}

void pdf_space(struct pdf_doc *d, double points)
{
    if (!pdf_enter(d, "pdf_space") || d->npending > 0)
        return;                         /* under a waiting heading: its own gap is enough */
    if (!d->page)
        pdf_new_page(d);
    if (points > 0)
        d->y -= points;
    if (d->y < PDF_BODY_BOTTOM)
        d->y = PDF_BODY_BOTTOM;         /* the next element starts a page */
}

void pdf_page_break(struct pdf_doc *d)
{
    if (!pdf_enter(d, "pdf_page_break"))
        return;
    if (!pdf_page_fresh(d)) {
        pdf_break_why(d, "section", 0.0);
        pdf_new_page(d);
    }
}

#define TOC_NUMBER_W 36.0       /* pt kept at the right of a contents line for its page number */

void pdf_contents(struct pdf_doc *d, const char *const *titles, int n)
{
    static const HPDF_UINT16 dots[] = { 1, 3 };
    if (!pdf_enter(d, "pdf_contents"))
        return;
    struct pdf_font pf = { d->regular, PDF_BODY_SIZE };
    double lead = PDF_BODY_SIZE * PDF_LEADING, width = PDF_TEXT_W - TOC_NUMBER_W;
    for (int i = 0; i < n; i++) {
        char *cp = pdf_encode(titles[i]);
        struct pdf_span *ln;
        int k = pdf_wrap(cp, width, pdf_measure_font, &pf, &ln);
        pdf_place(d, k * lead);
        set_ink(d->page, INK);
        for (int j = 0; j < k; j++) {
            double base = pdf_baseline(d->y, PDF_BODY_SIZE, lead);
            pdf_text(d->page, d->regular, PDF_BODY_SIZE, PDF_MARGIN_X, base, cp + ln[j].off, ln[j].len);
            d->y -= lead;
            if (j < k - 1)
                continue;
            double from = PDF_MARGIN_X + pdf_width(d->regular, PDF_BODY_SIZE, cp + ln[j].off, ln[j].len) + 4.0;
            HPDF_Page_GSave(d->page);
            HPDF_Page_SetDash(d->page, dots, 2, 0);
            pdf_hline(d->page, from, PDF_MARGIN_X + PDF_TEXT_W - 20.0, base + 1.0, 0.6, 0.5);
            HPDF_Page_GRestore(d->page);
            if (d->ntoc == d->cap_toc) {
                d->cap_toc = d->cap_toc ? 2 * d->cap_toc : 16;
                d->toc = xrealloc(d->toc, (size_t)d->cap_toc * sizeof *d->toc);
            }
            d->toc[d->ntoc++] = (struct pdf_toc){ d->page, PDF_MARGIN_X + PDF_TEXT_W, base, xstrdup(cp) };
        }
        free(ln);
        free(cp);
    }
    d->y -= PARA_GAP * PDF_BODY_SIZE;
}
