/* table.c: pdf_table: a ruled table across the text width whose rows grow to fit wrapped
 * cells, whose header row repeats on every page it spans, and which marks each figure with
 * its kind (m, s, p) when kinds are mixed. It fits itself to the page (figures on one line,
 * words whole, long cells as footnotes, empty columns out, too many columns split in two).
 * Which figures go in it is the templates' job. */
#include "report/internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define CELL_SIZE 8.5          /* preferred size of cell text, pt */
#define CELL_MIN 6.0            /* the floor a crowded table shrinks to */
#define CELL_STEP 0.25
#define TITLE_MIN 4.5           /* a crowded column's title shrinks to this before a word of it breaks */
#define LEAD_RATIO 1.3
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
#define TAIL_KEEP 24.0          /* of a tail taller than TAIL_MAX, what stays on the last row's page */
#define TAIL_MAX 200.0          /* a tail (legend, footnotes, caption) up to this stays whole with its rows */

static const char KIND_LETTER[] = "-mspa";      /* indexed by enum pdf_kind */
static const char *const KIND_MEANING[] = {
    NULL, "measured on this run", "spec (source given)", "projected (model, with band)",
    "assumption (the caption says why)",
};
static const struct pdf_rgb HEAD_FILL = { 0.88, 0.88, 0.88 };
static const char ABBREV_NOTE[] = "Numbers shortened to fit: k thousand, M million, G billion.";

/* A table's plan, the same on all its pages: which columns are shown (a column empty in every
 * row is left out), the font size that lets every figure stay on one line and every word
 * unbroken, column widths, and the text of each cell (shortened figures, footnote markers). */
struct grid {
    const struct pdf_table *t;
    int nshown, *col;       /* the shown columns: indices into t->cols */
    double size, lead;      /* cell text, pt */
    double x0, width;       /* the table's left edge and total width, pt */
    double *x, *w;          /* nshown: each column's left edge and width, pt */
    double *nat;            /* nshown: widths before fitting, pt */
    char **text;            /* nrows * nshown encoded cell texts, row-major */
    char **foot;            /* nfoot footnotes, encoded */
    int nfoot, abbreviated;
    int spaces;             /* figures wrap at their spaces too ("1,058 (920–1,475)") */
    int split;              /* too wide even at the floor size: drawn as two tables, the first
                               with this many columns (columns_that_fit) */
    int crowded;            /* nothing fitted: natural widths, the floor size, and every word
                               wider than its column a footnote; no word is ever broken */
    double *hsize;          /* nshown: each column title's size (smaller where a word of it is
                               wider than a crowded column) */
    unsigned kinds;         /* bit (1 << kind) for each kind present in the cells */
    int header;             /* some column has a title: draw the header row */
    int markers;            /* more than one kind: each figure gets its letter */
    double mark_w;          /* room kept at the end of every cell for a letter */
};

struct row {                /* one row, each shown cell wrapped */
    const char **cp;        /* nshown encoded texts (owned by the grid) */
    struct pdf_span **ln;   /* nshown line lists */
    int *n;                 /* nshown line counts */
    double h;               /* pt */
};

static const struct pdf_cell *cell(const struct grid *g, int r, int i)
{
    return &g->t->cells[(size_t)r * g->t->ncols + g->col[i]];
}

static char **text_at(const struct grid *g, int r, int i)
{
    return &g->text[(size_t)r * g->nshown + i];
}

static int blank(const char *s)
{
    for (; s && *s; s++)
        if (*s != ' ' && *s != '\n' && *s != '\t')
            return 0;
    return 1;
}

/* Columns with a figure or a word in some row; all of them when the table has no rows. */
static void shown_columns(struct grid *g)
{
    const struct pdf_table *t = g->t;
    g->col = xcalloc((size_t)t->ncols, sizeof *g->col);
    g->nshown = 0;
    for (int i = 0; i < t->ncols; i++) {
        int used = t->nrows == 0;
        for (int r = 0; r < t->nrows && !used; r++)
            used = !blank(t->cells[(size_t)r * t->ncols + i].text);
        if (used)
            g->col[g->nshown++] = i;
    }
    if (g->nshown == 0)                 /* every cell empty: keep the header that says so */
        for (int i = 0; i < t->ncols; i++)
            g->col[g->nshown++] = i;
}

/* Widths before fitting: the columns' own fractions; those left free share the rest. When
 * columns were left out, the others grow in proportion to fill what the table had. */
static void natural_widths(struct grid *g)
{
    const struct pdf_table *t = g->t;
    double fixed = 0.0, all = 0.0, share = 0.0, total = 0.0;
    int nfree = 0, anyfree = 0;
    for (int i = 0; i < t->ncols; i++)
        all += t->cols[i].width, anyfree |= t->cols[i].width <= 0;
    for (int i = 0; i < g->nshown; i++) {
        double f = t->cols[g->col[i]].width;
        fixed += f > 0 ? f * PDF_TEXT_W : 0.0;
        nfree += f <= 0;
    }
    if (nfree)
        share = fmax((PDF_TEXT_W - fixed) / nfree, MIN_COL_W);
    double grow = !nfree && fixed > 0 && g->nshown < t->ncols
                  ? (anyfree ? PDF_TEXT_W : all * PDF_TEXT_W) / fixed : 1.0;
    for (int i = 0; i < g->nshown; i++) {
        double f = t->cols[g->col[i]].width;
        g->nat[i] = f > 0 ? f * PDF_TEXT_W * grow : share;
        total += g->nat[i];
    }
    for (int i = 0; i < g->nshown && total > PDF_TEXT_W; i++)
        g->nat[i] *= PDF_TEXT_W / total;            /* over-full: shrink all */
}

/* What column i needs at CELL_SIZE, padding aside: its widest figure (one line) and its
 * widest word (text wraps only between words), header words included. `cap` limits what a
 * text word may ask: wider words go to footnotes. */
static double column_need(struct pdf_doc *d, const struct grid *g, int i, double cap)
{
    struct pdf_font reg = { d->regular, CELL_SIZE }, bold = { d->bold, CELL_SIZE };
    char *title = pdf_encode(g->t->cols[g->col[i]].title);
    double need = pdf_longest_word(title, pdf_measure_font, &bold);
    free(title);
    for (int r = 0; r < g->t->nrows; r++) {
        const char *s = *text_at(g, r, i);
        double w = pdf_numeric(s) ? g->spaces ? pdf_longest_word(s, pdf_measure_font, &reg)
                                              : pdf_widest_line(s, pdf_measure_font, &reg)
                                  : fmin(pdf_longest_word(s, pdf_measure_font, &reg), cap);
        need = fmax(need, w);
    }
    return need;
}

/* Widths at `size` when every column gets its need: the natural widths, needy columns
 * widened, the others giving up their slack in proportion. 0 when the needs do not fit. */
static int fit_widths(struct grid *g, const double *need, double size)
{
    double pad = 2 * PAD_X + g->mark_w, sum = 0.0, slack = 0.0, total = 0.0;
    for (int i = 0; i < g->nshown; i++) {
        double m = need[i] * size / CELL_SIZE + pad;
        sum += m;
        g->w[i] = fmax(g->nat[i], m);
        total += g->w[i];
        slack += g->w[i] - m;
    }
    if (sum > PDF_TEXT_W + 1e-6)
        return 0;
    double over = total - fmax(PDF_TEXT_W, 0.0);
    for (int i = 0; i < g->nshown && over > 0 && slack > 0; i++) {
        double m = need[i] * size / CELL_SIZE + pad;
        g->w[i] -= over * (g->w[i] - m) / slack;
    }
    return 1;
}

/* The largest size from CELL_SIZE down to CELL_MIN at which the needs fit; 0 when none. */
static double fit_size(struct pdf_doc *d, struct grid *g, double cap)
{
    double *need = xcalloc((size_t)g->nshown, sizeof *need), found = 0.0;
    for (int i = 0; i < g->nshown; i++)
        need[i] = column_need(d, g, i, cap);
    for (double s = CELL_SIZE; s >= CELL_MIN - 1e-9 && found == 0.0; s -= CELL_STEP)
        if (fit_widths(g, need, s))
            found = s;
    free(need);
    return found;
}

/* Swaps each figure with a long number for its shortened form (k, M, G) and back: the
 * texts not in use wait in `other`. Whether any figure has a shortened form. */
static int swap_short(struct grid *g, char **other)
{
    int any = 0;
    for (size_t k = 0; k < (size_t)g->t->nrows * g->nshown; k++) {
        if (!other[k])
            continue;
        char *t = g->text[k];
        g->text[k] = other[k];
        other[k] = t;
        any = 1;
    }
    return any;
}

static char **shortened(const struct grid *g)
{
    size_t n = (size_t)g->t->nrows * g->nshown;
    char **other = xcalloc(n + 1, sizeof *other);
    for (size_t k = 0; k < n; k++)
        other[k] = pdf_numeric(g->text[k]) ? pdf_abbreviate(g->text[k]) : NULL;
    return other;
}

/* The footnote number of text cp (encoded): an existing one with the same text, else a new one.
 * A list ("a\nb\nc") becomes one line: "a; b; c". */
static int footnote(struct grid *g, const char *cp)
{
    size_t n = strlen(cp), j = 0;
    char *text = xmalloc(2 * n + 1);
    for (size_t i = 0; i < n; i++) {
        text[j++] = cp[i] == '\n' ? ';' : cp[i];
        if (cp[i] == '\n')
            text[j++] = ' ';
    }
    text[j] = '\0';
    for (int i = 0; i < g->nfoot; i++) {
        if (strcmp(strchr(g->foot[i], ' ') + 1, text) == 0) {
            free(text);
            return i + 1;
        }
    }
    g->foot = xrealloc(g->foot, (size_t)(g->nfoot + 1) * sizeof *g->foot);
    g->foot[g->nfoot] = xmalloc(j + 16);
    sr_fmt(g->foot[g->nfoot], j + 16, "[%d] %s", g->nfoot + 1, text);
    free(text);
    return ++g->nfoot;
}

/* Text cells too long for their column (more than PDF_CELL_LINES lines, or a word wider than
 * it) keep a short head and a marker; their text becomes a numbered footnote, one per text. */
static void spill_long_cells(struct pdf_doc *d, struct grid *g)
{
    struct pdf_font pf = { d->regular, g->size };
    for (int r = 0; r < g->t->nrows; r++) {
        for (int i = 0; i < g->nshown; i++) {
            char **s = text_at(g, r, i);
            double inner = g->w[i] - 2 * PAD_X - g->mark_w;
            if (pdf_numeric(*s) && !g->crowded)
                continue;               /* planned to fit (crowded: a figure too may not) */
            int fresh = g->nfoot + 1;
            char *head = pdf_spill(*s, inner, pdf_measure_font, &pf, fresh);
            if (!head)
                continue;
            int mark = footnote(g, *s);
            if (mark != fresh) {        /* the same text as an earlier footnote: its number */
                free(head);
                head = pdf_spill(*s, inner, pdf_measure_font, &pf, mark);
            }
            free(*s);
            *s = head;
        }
    }
}

/* Width column i uses at most: its widest cell on one line (header words aside), padding in. */
static double column_use(struct pdf_doc *d, const struct grid *g, int i)
{
    struct pdf_font reg = { d->regular, g->size }, bold = { d->bold, g->size };
    char *title = pdf_encode(g->t->cols[g->col[i]].title);
    double use = pdf_longest_word(title, pdf_measure_font, &bold);
    free(title);
    for (int r = 0; r < g->t->nrows; r++)
        use = fmax(use, pdf_widest_line(*text_at(g, r, i), pdf_measure_font, &reg));
    return use + 2 * PAD_X + g->mark_w + 0.5;
}

/* Whether a text cell of column i wraps into more than PDF_CELL_LINES lines at its width. */
static int column_spills(struct pdf_doc *d, const struct grid *g, int i)
{
    struct pdf_font pf = { d->regular, g->size };
    for (int r = 0; r < g->t->nrows; r++) {
        const char *s = *text_at(g, r, i);
        struct pdf_span *ln;
        if (pdf_numeric(s))
            continue;
        int n = pdf_wrap_words(s, g->w[i] - 2 * PAD_X - g->mark_w, pdf_measure_font, &pf, &ln);
        free(ln);
        if (n > PDF_CELL_LINES)
            return 1;
    }
    return 0;
}

/* Width that columns never use goes to columns whose long texts would otherwise become
 * footnotes, in equal parts, so that a footnote is the last resort. */
static void lend_slack(struct pdf_doc *d, struct grid *g)
{
    double slack = 0.0;
    int needy = 0, *spills = xcalloc((size_t)g->nshown, sizeof *spills);
    for (int i = 0; i < g->nshown; i++)
        needy += spills[i] = column_spills(d, g, i);
    for (int i = 0; i < g->nshown && needy; i++) {
        double use = column_use(d, g, i);
        if (!spills[i] && g->w[i] > use) {
            slack += g->w[i] - use;
            g->w[i] = use;
        }
    }
    for (int i = 0; i < g->nshown && needy; i++)
        g->w[i] += spills[i] ? slack / needy : 0.0;
    free(spills);
}

static int columns_that_fit(struct pdf_doc *d, const struct grid *g);

/* fit_size at `cap`, then with long numbers shortened (kept only when that made it fit). */
static double fit_or_shorten(struct pdf_doc *d, struct grid *g, double cap, char **other)
{
    double size = fit_size(d, g, cap);
    if (size == 0.0 && swap_short(g, other)) {
        size = fit_size(d, g, cap);
        g->abbreviated = size > 0.0;
        if (!g->abbreviated)
            swap_short(g, other);
    }
    return size;
}

/* Column titles of a crowded table: a title word wider than its column is drawn a step smaller
 * (down to TITLE_MIN) rather than broken. */
static void title_sizes(struct pdf_doc *d, struct grid *g)
{
    for (int i = 0; i < g->nshown; i++) {
        char *title = pdf_encode(g->t->cols[g->col[i]].title);
        double inner = g->w[i] - 2 * PAD_X - g->mark_w;
        g->hsize[i] = g->size;
        for (;;) {
            struct pdf_font bold = { d->bold, g->hsize[i] };
            if (g->hsize[i] <= TITLE_MIN || pdf_longest_word(title, pdf_measure_font, &bold) <= inner)
                break;
            g->hsize[i] -= CELL_STEP;
        }
        free(title);
    }
}

/* Font size and widths: shrink; then shorten numbers, if that alone makes it fit; then send
 * words wider than a column to footnotes (with numbers shortened only if still needed); then split
 * the table's columns in two where that fits (split_columns); then let figures wrap at their
 * spaces. When even that fails the table is crowded: natural widths at the floor size, every word
 * wider than its column a footnote. A word is never broken. */
static void plan(struct pdf_doc *d, struct grid *g)
{
    double cap = 12.0 * CELL_SIZE;      /* a text word wider than this may be a footnote */
    char **other = shortened(g);
    g->size = fit_or_shorten(d, g, INFINITY, other);
    if (g->size == 0.0)
        g->size = fit_or_shorten(d, g, cap, other);
    if (g->size == 0.0 && (g->split = columns_that_fit(d, g)) > 0) {
        for (size_t k = 0; k < (size_t)g->t->nrows * g->nshown; k++)
            free(other[k]);
        free(other);
        return;                         /* drawn as two tables, each planned on its own */
    }
    if (g->size == 0.0) {
        g->spaces = 1;
        g->size = fit_or_shorten(d, g, cap, other);
    }
    for (size_t k = 0; k < (size_t)g->t->nrows * g->nshown; k++)
        free(other[k]);
    free(other);
    for (int i = 0; i < g->nshown; i++)
        g->hsize[i] = g->size;
    if (g->size == 0.0) {
        g->size = CELL_MIN;
        g->crowded = g->spaces = 1;
        for (int i = 0; i < g->nshown; i++)
            g->w[i] = g->nat[i];
        title_sizes(d, g);
    }
    if (!g->crowded)
        lend_slack(d, g);
    g->lead = g->size * LEAD_RATIO;
    g->x0 = PDF_MARGIN_X;
    g->width = 0.0;
    for (int i = 0; i < g->nshown; i++) {
        g->x[i] = g->x0 + g->width;
        g->width += g->w[i];
    }
    spill_long_cells(d, g);
}

static void grid_init(struct grid *g, struct pdf_doc *d, const struct pdf_table *t)
{
    int distinct = 0;
    memset(g, 0, sizeof *g);
    g->t = t;
    shown_columns(g);
    g->x = xcalloc((size_t)g->nshown, sizeof *g->x);
    g->w = xcalloc((size_t)g->nshown, sizeof *g->w);
    g->nat = xcalloc((size_t)g->nshown, sizeof *g->nat);
    g->hsize = xcalloc((size_t)g->nshown, sizeof *g->hsize);
    g->text = xcalloc((size_t)t->nrows * g->nshown + 1, sizeof *g->text);
    for (int r = 0; r < t->nrows; r++)
        for (int i = 0; i < g->nshown; i++)
            *text_at(g, r, i) = pdf_encode(cell(g, r, i)->text);
    natural_widths(g);
    for (int i = 0; i < t->ncols; i++)
        g->header |= t->cols[i].title && *t->cols[i].title;
    for (int r = 0; r < t->nrows; r++) {
        for (int i = 0; i < g->nshown; i++) {
            enum pdf_kind k = cell(g, r, i)->kind;
            if (k >= PDF_KIND_MEASURED && k <= PDF_KIND_ASSUMED)
                g->kinds |= 1u << k;
        }
    }
    for (int k = PDF_KIND_MEASURED; k <= PDF_KIND_ASSUMED; k++)
        distinct += (g->kinds >> k) & 1u;
    g->markers = distinct > 1;
    g->mark_w = g->markers ? MARK_GAP + pdf_width(d->regular, MARK_SIZE, "m", 1) + 0.5 : 0.0;
    plan(d, g);
}

static void grid_free(struct grid *g)
{
    for (size_t k = 0; k < (size_t)g->t->nrows * g->nshown; k++)
        free(g->text[k]);
    for (int i = 0; i < g->nfoot; i++)
        free(g->foot[i]);
    free(g->text), free(g->foot), free(g->col), free(g->x), free(g->w), free(g->nat), free(g->hsize);
}

/* Wraps row r (-1: the header) into ro: words at spaces, never inside a word; figures not at
 * all, unless the plan lets them wrap at their spaces. */
static void wrap_row(struct pdf_doc *d, const struct grid *g, int r, struct row *ro)
{
    int most = 1;
    for (int i = 0; i < g->nshown; i++) {
        struct pdf_font pf = { r < 0 ? d->bold : d->regular, r < 0 ? g->hsize[i] : g->size };
        const char *s = r < 0 ? NULL : *text_at(g, r, i);
        double inner = g->w[i] - 2 * PAD_X - g->mark_w;
        if (r < 0)
            s = g->t->cols[g->col[i]].title;
        ro->cp[i] = r < 0 ? pdf_encode(s) : s;
        if (r >= 0 && !g->spaces && pdf_numeric(s))
            inner = INFINITY;           /* planned to fit: never wrap a figure */
        ro->n[i] = pdf_wrap_words(ro->cp[i], inner > 4.0 ? inner : 4.0, pdf_measure_font, &pf,
                                  &ro->ln[i]);
        most = ro->n[i] > most ? ro->n[i] : most;
    }
    ro->h = r < 0 && !g->header ? 0.0 : most * g->lead + 2 * PAD_Y;
}

static void free_row(const struct grid *g, struct row *ro, int header)
{
    for (int i = 0; i < g->nshown; i++) {
        if (header)
            free((char *)ro->cp[i]);
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
                      double top, struct pdf_face *f, enum pdf_kind kind, double size)
{
    double inner = g->w[i] - 2 * PAD_X - g->mark_w;
    enum pdf_align align = g->t->cols[g->col[i]].align;
    for (int k = 0; k < ro->n[i]; k++) {
        const char *s = ro->cp[i] + ro->ln[i][k].off;
        size_t n = ro->ln[i][k].len;
        double tw = pdf_width(f, size, s, n), x = g->x[i] + PAD_X;
        double base = pdf_baseline(top - PAD_Y - k * g->lead, size, g->lead);
        x += align == PDF_ALIGN_RIGHT ? inner - tw : align == PDF_ALIGN_CENTER ? (inner - tw) / 2 : 0;
        if (tw > inner + 0.5)
            pdf_log(d, "overflow\t%d\t%.*s", d->npages, (int)n, s);
        HPDF_Page_SetGrayFill(d->page, 0.08);
        pdf_text(d->page, f, size, x, base, s, n);
        if (g->markers && kind >= PDF_KIND_MEASURED && kind <= PDF_KIND_ASSUMED &&
            k == ro->n[i] - 1 && ro->cp[i][0])
            marker(d, x + tw, base, kind);
    }
}

/* Draws row r (-1: the header) at the cursor and moves the cursor below it. */
static void draw_row(struct pdf_doc *d, const struct grid *g, const struct row *ro, int r)
{
    double top = d->y;
    if (r < 0 && !g->header) {      /* untitled columns (key-value lists): a rule only */
        pdf_hline(d->page, g->x0, g->x0 + g->width, top, RULE_STRONG, 0.25);
        return;
    }
    if (r < 0) {
        pdf_fill_rect(d->page, g->x0, top - ro->h, g->width, ro->h, HEAD_FILL);
        pdf_hline(d->page, g->x0, g->x0 + g->width, top, RULE_STRONG, 0.25);
    }
    for (int i = 0; i < g->nshown; i++) {
        const struct pdf_cell *c = r < 0 ? NULL : cell(g, r, i);
        if (c && c->tone != PDF_TONE_NONE)
            pdf_fill_rect(d->page, g->x[i], top - ro->h, g->w[i], ro->h, pdf_tone_fill(c->tone));
        cell_text(d, g, ro, i, top, c ? d->regular : d->bold, c ? c->kind : PDF_KIND_NONE,
                  c ? g->size : g->hsize[i]);
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
    for (int k = PDF_KIND_MEASURED; k <= PDF_KIND_ASSUMED; k++) {
        char text[96];
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

/* The notes under a table (encoded lines drawn as captions: footnotes, the abbreviation key). */
static void notes(struct pdf_doc *d, const struct grid *g)
{
    struct pdf_font pf = { d->regular, PDF_CAPTION_SIZE };
    for (int i = 0; i < g->nfoot + g->abbreviated; i++) {
        const char *s = i < g->nfoot ? g->foot[i] : ABBREV_NOTE;
        struct pdf_span *ln;
        double lead = PDF_CAPTION_SIZE * PDF_LEADING;
        int n = pdf_wrap(s, PDF_TEXT_W, pdf_measure_font, &pf, &ln);
        d->y -= i == 0 ? PDF_CAPTION_GAP : 0.0;
        for (int k = 0; k < n; k++) {
            pdf_ensure(d, lead);
            HPDF_Page_SetGrayFill(d->page, 0.35);
            pdf_text(d->page, d->regular, PDF_CAPTION_SIZE, PDF_MARGIN_X,
                     pdf_baseline(d->y, PDF_CAPTION_SIZE, lead), s + ln[k].off, ln[k].len);
            d->y -= lead;
        }
        free(ln);
    }
}

/* Height of what follows the last row (legend, every footnote, caption): kept on the last
 * rows' page, so that no caption or footnote starts a page alone and footnotes are not split
 * from their table, unless it is taller than TAIL_MAX (then its first TAIL_KEEP points).
 * Without the caption: what stays with the rows when the caption may go on (the page would be
 * left too empty otherwise). */
static double tail_height(struct pdf_doc *d, const struct grid *g, int caption)
{
    double h = g->markers ? LEGEND_SIZE * PDF_LEADING + 3.0 : 0.0;
    struct pdf_font pf = { d->regular, PDF_CAPTION_SIZE };
    for (int i = 0; i < g->nfoot + g->abbreviated; i++) {
        struct pdf_span *ln;
        int n = pdf_wrap(i < g->nfoot ? g->foot[i] : ABBREV_NOTE, PDF_TEXT_W, pdf_measure_font, &pf, &ln);
        free(ln);
        h += (i == 0 ? PDF_CAPTION_GAP : 0.0) + n * PDF_CAPTION_SIZE * PDF_LEADING;
    }
    if (caption && g->t->caption && *g->t->caption)
        h += pdf_caption_height(d, g->t->caption);
    return h <= TAIL_MAX ? h : fmin(h, TAIL_KEEP);
}

/* Height of row r, wrapped as it will be drawn. */
static double row_height(struct pdf_doc *d, const struct grid *g, int r)
{
    size_t nc = (size_t)g->nshown;
    struct row x = { xcalloc(nc, sizeof *x.cp), xcalloc(nc, sizeof *x.ln), xcalloc(nc, sizeof *x.n), 0.0 };
    wrap_row(d, g, r, &x);
    free_row(g, &x, 0);
    free(x.cp), free(x.ln), free(x.n);
    return x.h;
}

/* The last row of row r's group (t->group: consecutive rows with one number; else r). */
static int group_end(const struct pdf_table *t, int r)
{
    while (t->group && r + 1 < t->nrows && t->group[r + 1] == t->group[r])
        r++;
    return r;
}

/* The rows a page break may not fall inside, from row r, the first of its group: the group and,
 * when it is one row, the next group too (a page never starts a table's part with one row);
 * when one row would be left after it, that row too (nor ends the table with one). Returns the
 * unit's last row. */
static int unit_end(const struct pdf_table *t, int r)
{
    int last = t->nrows - 1, e = group_end(t, r);
    if (e == r && e < last)
        e = group_end(t, r + 1);
    if (e == last - 1)
        e = last;
    return e;
}

static double rows_height(struct pdf_doc *d, const struct grid *g, int from, int to)
{
    double h = 0.0;
    for (int r = from; r <= to; r++)
        h += row_height(d, g, r);
    return h;
}

/* The least of the table a page must take from row r on, when its whole unit would leave the page
 * under two-thirds full: two rows where a part of the table starts (header included), one where it
 * goes on, never leaving one row alone for the next page, and with the last row the legend and
 * footnotes (the caption may go on). *k: the last row of it. */
static double least_rows(struct pdf_doc *d, const struct grid *g, int r, int starts, double head_h, int *k)
{
    int last = g->t->nrows - 1;
    *k = r + (starts ? 1 : 0);
    if (*k == last - 1)
        *k = last;
    if (*k > last)
        *k = last;
    return rows_height(d, g, r, *k) + (starts ? head_h : 0.0) + (*k == last ? tail_height(d, g, 0) : 0.0);
}

/* Body rows, with a new page (and the header again) before a unit of rows (unit_end) that does
 * not fit what is left of this one; the last unit goes with the table's tail. A unit taller
 * than a page breaks where its rows do; one that would leave the page under two-thirds full
 * breaks where least_rows allows. */
static void body(struct pdf_doc *d, const struct grid *g, struct row *head, struct row *ro)
{
    int header_drawn = 0, rows_here = 0, last = g->t->nrows - 1, end = -1;
    double tail = tail_height(d, g, 1);
    for (int r = 0; r < g->t->nrows; r++) {
        wrap_row(d, g, r, ro);
        double need = ro->h + (header_drawn ? 0.0 : head->h) + (r == last ? tail : 0.0);
        int fresh = header_drawn ? rows_here == 0 : pdf_page_fresh(d), k;
        if (r > end) {                  /* a unit starts here: it all goes on one page */
            end = unit_end(g->t, r);
            if (end > r)
                need += rows_height(d, g, r + 1, end) + (end == last ? tail : 0.0);
            double least = least_rows(d, g, r, !header_drawn, head->h, &k);
            if (need > pdf_room(d) && least <= pdf_room(d) && !fresh && pdf_sparse(d))
                need = least, end = k;  /* rather than a page left two-thirds empty */
        }
        if (need > pdf_room(d) && !fresh)
            pdf_break_why(d, pdf_sparse(d) ? "figure" : "full", need);
        if (r == 0)
            pdf_place(d, need);         /* a heading above stays with the first rows */
        fresh = header_drawn ? rows_here == 0 : pdf_page_fresh(d);
        if (d->y - need < PDF_BODY_BOTTOM && !fresh) {
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
        free_row(g, ro, 0);
    }
    if (!header_drawn) {            /* no rows: the header alone says what is missing */
        if (head->h + tail > pdf_room(d) && !pdf_page_fresh(d))
            pdf_break_why(d, pdf_sparse(d) ? "figure" : "full", head->h + tail);
        pdf_place(d, head->h + tail);
        draw_row(d, g, head, -1);
    }
}

/* How many shown columns, from the first, fit the text width at the floor size (words wider
 * than a footnote's cap aside); 0 when fewer than two do. */
static int columns_that_fit(struct pdf_doc *d, const struct grid *g)
{
    double used = 0.0, pad = 2 * PAD_X + g->mark_w;
    int k = 0;
    while (k < g->nshown) {
        double w = column_need(d, g, k, 12.0 * CELL_SIZE) * CELL_MIN / CELL_SIZE + pad;
        if (used + w > PDF_TEXT_W)
            break;
        used += w, k++;
    }
    return k >= 2 && k < g->nshown ? k : 0;
}

/* A table too wide even at the floor size is drawn as two tables: its first k shown columns,
 * then its first column again with the rest (split again if need be). */
static void split_columns(struct pdf_doc *d, const struct grid *g, int k)
{
    const struct pdf_table *t = g->t;
    int n[2] = { k, 1 + g->nshown - k };
    for (int part = 0; part < 2; part++) {
        struct pdf_column *cols = xcalloc((size_t)n[part], sizeof *cols);
        struct pdf_cell *cells = xcalloc((size_t)t->nrows * n[part] + 1, sizeof *cells);
        for (int j = 0; j < n[part]; j++) {
            int i = part == 0 || j == 0 ? j : k + j - 1;
            cols[j] = t->cols[g->col[i]];
            for (int r = 0; r < t->nrows; r++)
                cells[(size_t)r * n[part] + j] = *cell(g, r, i);
        }
        struct pdf_table sub = { cols, n[part], cells, t->nrows,
                                 part == 0 ? "Too wide for the page: the columns continue in the next table."
                                           : t->caption, t->group };
        pdf_table(d, &sub);
        free(cols);
        free(cells);
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
    int k;
    grid_init(&g, d, t);
    if ((k = g.split) > 0) {
        split_columns(d, &g, k);
        grid_free(&g);
        return;
    }
    size_t nc = (size_t)g.nshown;
    head.cp = xcalloc(nc, sizeof *head.cp), ro.cp = xcalloc(nc, sizeof *ro.cp);
    head.ln = xcalloc(nc, sizeof *head.ln), ro.ln = xcalloc(nc, sizeof *ro.ln);
    head.n = xcalloc(nc, sizeof *head.n), ro.n = xcalloc(nc, sizeof *ro.n);
    wrap_row(d, &g, -1, &head);
    body(d, &g, &head, &ro);
    pdf_hline(d->page, g.x0, g.x0 + g.width, d->y, RULE_STRONG, 0.25);
    if (g.markers)
        kind_legend(d, g.kinds);
    notes(d, &g);
    if (t->caption && *t->caption)
        pdf_caption(d, t->caption);
    d->y -= AFTER_TABLE;
    free_row(&g, &head, 1);
    free(head.cp), free(ro.cp), free(head.ln), free(ro.ln), free(head.n), free(ro.n);
    grid_free(&g);
}
