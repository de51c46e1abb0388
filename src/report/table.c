/* table.c: pdf_table: a ruled table across the text width whose rows grow to fit wrapped
 * cells, whose header row repeats on every page it spans, and which marks each figure with
 * its kind (m, s, p) when kinds are mixed. Which figures go in it is the templates' job. */
#include "report/internal.h"

#include <stdlib.h>
#include <string.h>

#define CELL_SIZE 8.5
#define CELL_LEAD (CELL_SIZE * 1.3)
#define PAD_X 4.0
#define PAD_Y 3.0
#define MIN_COL_W 24.0          /* a shared column never gets less than this */
#define MARK_SIZE 6.0           /* the raised kind letter */
#define MARK_RISE 3.0
#define MARK_GAP 1.0
#define LEGEND_SIZE 7.5
#define RULE_STRONG 0.7
#define RULE_THIN 0.25
#define AFTER_TABLE 10.0

static const char KIND_LETTER[] = "-msp";       /* indexed by enum pdf_kind */
static const char *const KIND_MEANING[] = {
    NULL, "measured on this run", "spec (source given)", "projected (model, with band)",
};
static const struct pdf_rgb HEAD_FILL = { 0.88, 0.88, 0.88 };

struct grid {               /* a table's geometry, the same on all its pages */
    const struct pdf_table *t;
    double x0, width;       /* the table's left edge and total width, pt */
    double *x, *w;          /* ncols: each column's left edge and width, pt */
    unsigned kinds;         /* bit (1 << kind) for each kind present in the cells */
    int header;             /* some column has a title: draw the header row */
    int markers;            /* more than one kind: each figure gets its letter */
    double mark_w;          /* room kept at the end of every cell for a letter */
};

struct row {                /* one row, each cell converted and wrapped */
    char **cp;              /* ncols CP1252 copies */
    struct pdf_span **ln;   /* ncols line lists */
    int *n;                 /* ncols line counts */
    double h;               /* pt */
};

static void column_widths(struct grid *g)
{
    const struct pdf_table *t = g->t;
    double fixed = 0.0, share = 0.0, total, scale;
    int nfree = 0;
    for (int i = 0; i < t->ncols; i++) {
        if (t->cols[i].width > 0)
            fixed += t->cols[i].width * PDF_TEXT_W;
        else
            nfree++;
    }
    if (nfree) {
        share = (PDF_TEXT_W - fixed) / nfree;
        share = share < MIN_COL_W ? MIN_COL_W : share;
    }
    total = fixed + nfree * share;
    scale = total > PDF_TEXT_W ? PDF_TEXT_W / total : 1.0;  /* over-full: shrink all */
    g->x0 = PDF_MARGIN_X;
    g->width = 0.0;
    for (int i = 0; i < t->ncols; i++) {
        g->w[i] = (t->cols[i].width > 0 ? t->cols[i].width * PDF_TEXT_W : share) * scale;
        g->x[i] = g->x0 + g->width;
        g->width += g->w[i];
    }
}

static void grid_init(struct grid *g, struct pdf_doc *d, const struct pdf_table *t)
{
    int distinct = 0;
    g->t = t;
    g->x = xcalloc((size_t)t->ncols, sizeof *g->x);
    g->w = xcalloc((size_t)t->ncols, sizeof *g->w);
    column_widths(g);
    g->header = 0;
    for (int i = 0; i < t->ncols; i++)
        g->header |= t->cols[i].title && *t->cols[i].title;
    g->kinds = 0;
    for (size_t i = 0; i < (size_t)t->nrows * (size_t)t->ncols; i++) {
        enum pdf_kind k = t->cells[i].kind;
        if (k >= PDF_KIND_MEASURED && k <= PDF_KIND_PROJECTED)
            g->kinds |= 1u << k;
    }
    for (int k = PDF_KIND_MEASURED; k <= PDF_KIND_PROJECTED; k++)
        distinct += (g->kinds >> k) & 1u;
    g->markers = distinct > 1;
    g->mark_w = g->markers ? MARK_GAP + pdf_width(d->regular, MARK_SIZE, "m", 1) + 0.5 : 0.0;
}

/* Converts and wraps row r (-1: the header) into ro. */
static void wrap_row(struct pdf_doc *d, const struct grid *g, int r, struct row *ro)
{
    const struct pdf_table *t = g->t;
    struct pdf_font pf = { r < 0 ? d->bold : d->regular, CELL_SIZE };
    int most = 1;
    for (int i = 0; i < t->ncols; i++) {
        const char *utf8 = r < 0 ? t->cols[i].title : t->cells[(size_t)r * t->ncols + i].text;
        double inner = g->w[i] - 2 * PAD_X - g->mark_w;
        ro->cp[i] = pdf_cp1252(utf8);
        ro->n[i] = pdf_wrap(ro->cp[i], inner > 4.0 ? inner : 4.0, pdf_measure_font, &pf,
                            &ro->ln[i]);
        most = ro->n[i] > most ? ro->n[i] : most;
    }
    ro->h = r < 0 && !g->header ? 0.0 : most * CELL_LEAD + 2 * PAD_Y;
}

static void free_row(const struct grid *g, struct row *ro)
{
    for (int i = 0; i < g->t->ncols; i++) {
        free(ro->cp[i]);
        free(ro->ln[i]);
    }
}

/* The kind letter, raised, just after the end of a cell's last line. */
static void marker(struct pdf_doc *d, double x_end, double baseline, enum pdf_kind kind)
{
    HPDF_Page_SetGrayFill(d->page, 0.30);
    pdf_text(d->page, d->regular, MARK_SIZE, x_end + MARK_GAP, baseline + MARK_RISE,
             &KIND_LETTER[kind], 1);
}

/* Draws one cell's lines inside column i of a row whose top is at `top`. */
static void cell_text(struct pdf_doc *d, const struct grid *g, const struct row *ro, int i,
                      double top, HPDF_Font f, enum pdf_kind kind)
{
    double inner = g->w[i] - 2 * PAD_X - g->mark_w;
    enum pdf_align align = g->t->cols[i].align;
    for (int k = 0; k < ro->n[i]; k++) {
        const char *s = ro->cp[i] + ro->ln[i][k].off;
        size_t n = ro->ln[i][k].len;
        double tw = pdf_width(f, CELL_SIZE, s, n), x = g->x[i] + PAD_X;
        double base = pdf_baseline(top - PAD_Y - k * CELL_LEAD, CELL_SIZE, CELL_LEAD);
        x += align == PDF_ALIGN_RIGHT ? inner - tw : align == PDF_ALIGN_CENTER ? (inner - tw) / 2 : 0;
        HPDF_Page_SetGrayFill(d->page, 0.08);
        pdf_text(d->page, f, CELL_SIZE, x, base, s, n);
        if (g->markers && kind >= PDF_KIND_MEASURED && kind <= PDF_KIND_PROJECTED &&
            k == ro->n[i] - 1 && ro->cp[i][0])
            marker(d, x + tw, base, kind);
    }
}

/* Draws row r (-1: the header) at the cursor and moves the cursor below it. */
static void draw_row(struct pdf_doc *d, const struct grid *g, const struct row *ro, int r)
{
    const struct pdf_table *t = g->t;
    double top = d->y;
    if (r < 0 && !g->header) {      /* untitled columns (key-value lists): a rule only */
        pdf_hline(d->page, g->x0, g->x0 + g->width, top, RULE_STRONG, 0.25);
        return;
    }
    if (r < 0) {
        pdf_fill_rect(d->page, g->x0, top - ro->h, g->width, ro->h, HEAD_FILL);
        pdf_hline(d->page, g->x0, g->x0 + g->width, top, RULE_STRONG, 0.25);
    }
    for (int i = 0; i < t->ncols; i++) {
        const struct pdf_cell *c = r < 0 ? NULL : &t->cells[(size_t)r * t->ncols + i];
        if (c && c->tone != PDF_TONE_NONE)
            pdf_fill_rect(d->page, g->x[i], top - ro->h, g->w[i], ro->h, pdf_tone_fill(c->tone));
        cell_text(d, g, ro, i, top, c ? d->regular : d->bold, c ? c->kind : PDF_KIND_NONE);
    }
    d->y -= ro->h;
    if (r < 0)
        pdf_hline(d->page, g->x0, g->x0 + g->width, d->y, RULE_STRONG, 0.25);
    else
        pdf_hline(d->page, g->x0, g->x0 + g->width, d->y, RULE_THIN, 0.70);
}

/* "m measured on this run · s spec (source given) · ...", for the kinds present only. */
static void kind_legend(struct pdf_doc *d, unsigned kinds)
{
    double lead = LEGEND_SIZE * PDF_LEADING, x = PDF_MARGIN_X;
    int first = 1;
    pdf_ensure(d, lead + 3.0);
    double base = pdf_baseline(d->y - 3.0, LEGEND_SIZE, lead);
    HPDF_Page_SetGrayFill(d->page, 0.30);
    for (int k = PDF_KIND_MEASURED; k <= PDF_KIND_PROJECTED; k++) {
        char text[64];
        if (!((kinds >> k) & 1u))
            continue;
        if (!first) {
            pdf_text(d->page, d->regular, LEGEND_SIZE, x, base, " \xB7 ", 3);
            x += pdf_width(d->regular, LEGEND_SIZE, " \xB7 ", 3);
        }
        first = 0;
        pdf_text(d->page, d->bold, LEGEND_SIZE, x, base, &KIND_LETTER[k], 1);
        x += pdf_width(d->bold, LEGEND_SIZE, &KIND_LETTER[k], 1);
        sr_fmt(text, sizeof text, " %s", KIND_MEANING[k]);
        pdf_text(d->page, d->regular, LEGEND_SIZE, x, base, text, strlen(text));
        x += pdf_width(d->regular, LEGEND_SIZE, text, strlen(text));
    }
    d->y -= lead + 3.0;
}

/* Body rows, with a new page (and the header again) where the next row does not fit. */
static void body(struct pdf_doc *d, const struct grid *g, struct row *head, struct row *ro)
{
    int header_drawn = 0, rows_here = 0;
    for (int r = 0; r < g->t->nrows; r++) {
        wrap_row(d, g, r, ro);
        double need = ro->h + (header_drawn ? 0.0 : head->h);
        if (d->y - need < PDF_BODY_BOTTOM && (header_drawn ? rows_here > 0 : !pdf_page_fresh(d))) {
            if (header_drawn)       /* close the part on this page */
                pdf_hline(d->page, g->x0, g->x0 + g->width, d->y, RULE_STRONG, 0.25);
            pdf_new_page(d);
            header_drawn = rows_here = 0;
        }
        if (!header_drawn) {
            draw_row(d, g, head, -1);
            header_drawn = 1;
        }
        draw_row(d, g, ro, r);
        rows_here++;
        free_row(g, ro);
    }
    if (!header_drawn) {            /* no rows: the header alone says what is missing */
        pdf_ensure(d, head->h);
        draw_row(d, g, head, -1);
    }
}

void pdf_table(struct pdf_doc *d, const struct pdf_table *t)
{
    if (!pdf_enter(d, "pdf_table"))
        return;
    if (!t || !t->cols || t->ncols < 1 || t->nrows < 0 || (t->nrows > 0 && !t->cells)) {
        pdf_fail(d, "pdf_table: needs at least one column and cells for every row");
        return;
    }
    struct grid g;
    struct row head, ro;
    size_t nc = (size_t)t->ncols;
    grid_init(&g, d, t);
    head.cp = xcalloc(nc, sizeof *head.cp), ro.cp = xcalloc(nc, sizeof *ro.cp);
    head.ln = xcalloc(nc, sizeof *head.ln), ro.ln = xcalloc(nc, sizeof *ro.ln);
    head.n = xcalloc(nc, sizeof *head.n), ro.n = xcalloc(nc, sizeof *ro.n);
    pdf_ensure(d, 0.0);
    wrap_row(d, &g, -1, &head);
    body(d, &g, &head, &ro);
    pdf_hline(d->page, g.x0, g.x0 + g.width, d->y, RULE_STRONG, 0.25);
    if (g.markers)
        kind_legend(d, g.kinds);
    if (t->caption && *t->caption)
        pdf_caption(d, t->caption);
    d->y -= AFTER_TABLE;
    free_row(&g, &head);
    free(head.cp), free(ro.cp), free(head.ln), free(ro.ln), free(head.n), free(ro.n);
    free(g.x);
    free(g.w);
}
