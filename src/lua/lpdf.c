/* lpdf.c: the Lua module `pdf`. A document created and owned by C is handed to Lua as an
 * object whose methods check every argument (misuse is a Lua error naming the argument and
 * the value) and draw through report.h. Temporaries live in Lua memory (userdata and an
 * anchor table), so an error half-way through a table leaks nothing. What to draw, and in
 * which order, is the templates' business; opening the document and saving it is C's. */
#include "lua/modules.h"
#include "report/report.h"

#include <lauxlib.h>
#include <lua.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define META "sparkreport.pdf_doc"
#define MAX_COLUMNS 64
#define MAX_ROWS 100000
#define MAX_SERIES 32
#define MAX_POINTS 100000
#define MAX_MARKS 64
#define MAX_CATEGORIES 1000
#define MAX_SPACE 800
#define MIN_CHART_HEIGHT 100        /* report.h clamps to the same range */
#define MAX_CHART_HEIGHT 600
#define SHOW_MAX 40                 /* longest string quoted back in an error message */

struct ldoc { struct pdf_doc *d; }; /* NULL once detached */

static const char *const TONES[] = { "good", "bad", "neutral", NULL };          /* from 1 */
static const char *const KINDS[] = { "measured", "spec", "projected", "assumed", NULL };   /* from 1 */
static const char *const STYLES[] = { "body", "bold", "small", "mono", "note", NULL };
static const char *const ALIGNS[] = { "left", "right", "center", NULL };
static const char *const CHART_KINDS[] = { "line", "bar", "stacked_bar", NULL };
static const char *const FORMATS[] = { "num", "bytes", NULL };

static const char *const TABLE_FIELDS[] = { "columns", "rows", "caption", "groups", NULL };
static const char *const COLUMN_FIELDS[] = { "title", "width", "align", NULL };
static const char *const CELL_FIELDS[] = { "text", "kind", "tone", NULL };
static const char *const CHART_FIELDS[] = { "kind", "title", "height", "caption", "x", "y",
                                            "series", "marks", "categories", NULL };
static const char *const AXIS_FIELDS[] = { "label", "log", "format", "min", "max", NULL };
static const char *const SERIES_FIELDS[] = { "name", "x", "y", "dashed", "points", "hollow",
                                             "lo", "hi", "labels", NULL };
static const char *const MARK_FIELDS[] = { "x", "label", NULL };

/* ---- checking helpers --------------------------------------------------------------- */

static struct pdf_doc *checkdoc(lua_State *L)
{
    struct ldoc *u = luaL_checkudata(L, 1, META);
    if (!u->d)
        luaL_error(L, "pdf: document is closed");
    return u->d;
}

/* The value at idx as an error message shows it: 'text', 5, true, or its type. Pushes. */
static const char *show(lua_State *L, int idx)
{
    size_t len;
    idx = lua_absindex(L, idx);
    if (lua_type(L, idx) == LUA_TSTRING) {
        const char *s = lua_tolstring(L, idx, &len);
        luaL_Buffer b;
        luaL_buffinit(L, &b);
        luaL_addchar(&b, '\'');
        luaL_addlstring(&b, s, len > SHOW_MAX ? SHOW_MAX : len);
        luaL_addstring(&b, len > SHOW_MAX ? "...'" : "'");
        luaL_pushresult(&b);
        return lua_tostring(L, -1);
    }
    if (lua_type(L, idx) == LUA_TNUMBER || lua_type(L, idx) == LUA_TBOOLEAN)
        return luaL_tolstring(L, idx, NULL);
    return lua_pushstring(L, luaL_typename(L, idx));
}

/* A number as a person wrote it: 900, not 900.0. Pushes. */
static const char *num(lua_State *L, double v)
{
    if (v == floor(v) && fabs(v) < 1e15)
        return lua_pushfstring(L, "%I", (LUAI_UACINT)v);
    return lua_pushfstring(L, "%f", (lua_Number)v);
}

/* "a|b|c", pushed. */
static const char *joined(lua_State *L, const char *const names[])
{
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    for (int i = 0; names[i]; i++) {
        if (i)
            luaL_addchar(&b, '|');
        luaL_addstring(&b, names[i]);
    }
    luaL_pushresult(&b);
    return lua_tostring(L, -1);
}

static int lookup(const char *s, const char *const names[])
{
    for (int i = 0; names[i]; i++)
        if (strcmp(s, names[i]) == 0)
            return i;
    return -1;
}

/* Argument arg: one of names (its index + first), or def when absent. */
static int checkname(lua_State *L, int arg, const char *what, const char *const names[],
                     int first, int def)
{
    int i;
    if (lua_isnoneornil(L, arg))
        return def;
    if (lua_type(L, arg) == LUA_TSTRING && (i = lookup(lua_tostring(L, arg), names)) >= 0)
        return first + i;
    const char *list = joined(L, names);
    return luaL_argerror(L, arg, lua_pushfstring(L, "%s must be one of %s, got %s", what, list,
                                                 show(L, arg)));
}

/* Pushes t[k] without metamethods (no user code runs while C holds pointers); its type. */
static int rawfield(lua_State *L, int t, const char *k)
{
    lua_pushstring(L, k);
    return lua_rawget(L, t);
}

/* Every key of table t must be one of allowed. */
static void check_fields(lua_State *L, int t, const char *const allowed[], const char *ctx)
{
    t = lua_absindex(L, t);
    lua_pushnil(L);
    while (lua_next(L, t)) {
        lua_pop(L, 1);
        if (lua_type(L, -1) != LUA_TSTRING)
            luaL_error(L, "%s: unknown field [%s]", ctx, show(L, -1));
        if (lookup(lua_tostring(L, -1), allowed) < 0)
            luaL_error(L, "%s: unknown field '%s'", ctx, lua_tostring(L, -1));
    }
}

/* The value at idx as text: strings as they are, integers as %d, floats as %.4g (kept alive
 * in the anchor table). NULL for other types. */
static const char *as_text(lua_State *L, int idx, int anchor)
{
    char buf[64];
    if (lua_type(L, idx) == LUA_TSTRING)
        return lua_tostring(L, idx);
    if (lua_type(L, idx) != LUA_TNUMBER)
        return NULL;
    if (lua_isinteger(L, idx))
        snprintf(buf, sizeof buf, LUA_INTEGER_FMT, (LUAI_UACINT)lua_tointeger(L, idx));
    else
        snprintf(buf, sizeof buf, "%.4g", (double)lua_tonumber(L, idx));
    const char *s = lua_pushstring(L, buf);
    lua_rawseti(L, anchor, (lua_Integer)lua_rawlen(L, anchor) + 1);
    return s;
}

/* Optional text field: NULL when absent. */
static const char *opt_text(lua_State *L, int t, const char *k, int anchor, const char *ctx)
{
    int ty = rawfield(L, t, k);
    const char *s = as_text(L, -1, anchor);
    if (!s && ty != LUA_TNIL)
        luaL_error(L, "%s: %s must be a string, got %s", ctx, k, show(L, -1));
    lua_pop(L, 1);
    return s;
}

static double opt_number(lua_State *L, int t, const char *k, double def, const char *ctx)
{
    int ty = rawfield(L, t, k);
    double v = ty == LUA_TNUMBER ? (double)lua_tonumber(L, -1) : def;
    if (ty != LUA_TNUMBER && ty != LUA_TNIL)
        luaL_error(L, "%s: %s must be a number, got %s", ctx, k, show(L, -1));
    lua_pop(L, 1);
    return v;
}

static int opt_bool(lua_State *L, int t, const char *k, const char *ctx)
{
    int ty = rawfield(L, t, k), v = lua_toboolean(L, -1);
    if (ty != LUA_TBOOLEAN && ty != LUA_TNIL)
        luaL_error(L, "%s: %s must be a boolean, got %s", ctx, k, show(L, -1));
    lua_pop(L, 1);
    return v;
}

static int opt_enum(lua_State *L, int t, const char *k, const char *const names[], int first,
                    int def, const char *ctx)
{
    int ty = rawfield(L, t, k), i = -1;
    if (ty == LUA_TNIL) {
        lua_pop(L, 1);
        return def;
    }
    if (ty != LUA_TSTRING || (i = lookup(lua_tostring(L, -1), names)) < 0) {
        const char *got = show(L, -1), *list = joined(L, names);
        luaL_error(L, "%s: %s must be one of %s, got %s", ctx, k, list, got);
    }
    lua_pop(L, 1);
    return first + i;
}

/* Pushes t[k], which must be a list (table) of at most max entries; returns its length. */
static int list_field(lua_State *L, int t, const char *k, int max, const char *ctx, int required)
{
    int ty = rawfield(L, t, k);
    if (ty == LUA_TNIL && !required) {
        lua_pop(L, 1);
        lua_newtable(L);
        return 0;
    }
    if (ty != LUA_TTABLE)
        luaL_error(L, "%s: %s must be a list, got %s", ctx, k, show(L, -1));
    lua_Unsigned n = lua_rawlen(L, -1);
    if (n > (lua_Unsigned)max)
        luaL_error(L, "%s: %s has %I entries, at most %d", ctx, k, (LUAI_UACINT)n, max);
    return (int)n;
}

/* ---- simple methods ----------------------------------------------------------------- */

static int l_title(lua_State *L)
{
    struct pdf_doc *d = checkdoc(L);
    pdf_title(d, luaL_checkstring(L, 2), luaL_optstring(L, 3, ""));
    return 0;
}

static int l_notice(lua_State *L)
{
    struct pdf_doc *d = checkdoc(L);
    const char *text = luaL_checkstring(L, 2);
    pdf_notice(d, text, (enum pdf_tone)checkname(L, 3, "tone", TONES, PDF_TONE_GOOD,
                                                 PDF_TONE_NEUTRAL));
    return 0;
}

static int l_header(lua_State *L)
{
    struct pdf_doc *d = checkdoc(L);
    pdf_doc_header(d, luaL_checkstring(L, 2));
    return 0;
}

static int l_footer(lua_State *L)
{
    struct pdf_doc *d = checkdoc(L);
    pdf_doc_footer(d, luaL_checkstring(L, 2));
    return 0;
}

static int l_section(lua_State *L)
{
    struct pdf_doc *d = checkdoc(L);
    const char *title = luaL_checkstring(L, 2);
    lua_Integer level = luaL_optinteger(L, 3, 1);
    if (level != 1 && level != 2)
        return luaL_argerror(L, 3, lua_pushfstring(L, "level must be 1 or 2, got %I",
                                                   (LUAI_UACINT)level));
    pdf_section(d, title, (int)level);
    return 0;
}

static int l_paragraph(lua_State *L)
{
    struct pdf_doc *d = checkdoc(L);
    const char *text = luaL_checkstring(L, 2);
    pdf_paragraph(d, text, (enum pdf_style)checkname(L, 3, "style", STYLES, 0, PDF_STYLE_BODY));
    return 0;
}

static int l_code(lua_State *L)
{
    struct pdf_doc *d = checkdoc(L);
    pdf_code(d, luaL_checkstring(L, 2));
    return 0;
}

static int l_space(lua_State *L)
{
    struct pdf_doc *d = checkdoc(L);
    lua_Number pt = luaL_checknumber(L, 2);
    if (!(pt >= 0 && pt <= MAX_SPACE))
        return luaL_argerror(L, 2, lua_pushfstring(L, "points must be in 0..%d, got %s",
                                                   MAX_SPACE, num(L, (double)pt)));
    pdf_space(d, (double)pt);
    return 0;
}

static int l_page_break(lua_State *L)
{
    pdf_page_break(checkdoc(L));
    return 0;
}

/* doc:contents { title, ... }: the titles of headings, each with the page it is on (at save). */
static int l_contents(lua_State *L)
{
    struct pdf_doc *d = checkdoc(L);
    luaL_checktype(L, 2, LUA_TTABLE);
    lua_Unsigned n = lua_rawlen(L, 2);
    if (n > MAX_ROWS)
        return luaL_argerror(L, 2, lua_pushfstring(L, "at most %d titles, got %I", MAX_ROWS, (LUAI_UACINT)n));
    const char **titles = lua_newuserdatauv(L, (n ? n : 1) * sizeof *titles, 0);
    for (lua_Unsigned i = 0; i < n; i++) {
        if (lua_rawgeti(L, 2, (lua_Integer)i + 1) != LUA_TSTRING)
            return luaL_argerror(L, 2, lua_pushfstring(L, "title %I must be a string, got %s",
                                                       (LUAI_UACINT)i + 1, show(L, -1)));
        titles[i] = lua_tostring(L, -1);    /* kept alive by the list at 2 */
        lua_pop(L, 1);
    }
    pdf_contents(d, titles, (int)n);
    return 0;
}

/* doc:page_of(title): the page of the heading drawn so far with that text, or nil. */
static int l_page_of(lua_State *L)
{
    struct pdf_doc *d = checkdoc(L);
    int page = pdf_heading_page(d, luaL_checkstring(L, 2));
    if (page > 0)
        lua_pushinteger(L, page);
    else
        lua_pushnil(L);
    return 1;
}

/* ---- tables ------------------------------------------------------------------------- */

static void read_column(lua_State *L, int idx, int i, int anchor, struct pdf_column *col)
{
    char ctx[48];
    snprintf(ctx, sizeof ctx, "pdf.table: column %d", i);
    idx = lua_absindex(L, idx);
    col->width = 0.0;
    col->align = PDF_ALIGN_LEFT;
    if ((col->title = as_text(L, idx, anchor)))
        return;                         /* a bare string is a title */
    if (lua_type(L, idx) != LUA_TTABLE)
        luaL_error(L, "%s must be a table or a string, got %s", ctx, show(L, idx));
    check_fields(L, idx, COLUMN_FIELDS, ctx);
    col->title = opt_text(L, idx, "title", anchor, ctx);
    col->width = opt_number(L, idx, "width", 0.0, ctx);
    if (!(col->width >= 0.0 && col->width <= 1.0))
        luaL_error(L, "%s: width must be in 0..1, got %s", ctx, num(L, col->width));
    col->align = (enum pdf_align)opt_enum(L, idx, "align", ALIGNS, 0, PDF_ALIGN_LEFT, ctx);
}

/* Pushes the columns array (userdata) and fills t->cols, t->ncols. */
static void read_columns(lua_State *L, int t, int anchor, struct pdf_table *out)
{
    int n = list_field(L, t, "columns", MAX_COLUMNS, "pdf.table", 1);
    double sum = 0.0;
    if (n < 1)
        luaL_error(L, "pdf.table: columns must have 1..%d entries, got 0", MAX_COLUMNS);
    struct pdf_column *cols = lua_newuserdatauv(L, (size_t)n * sizeof *cols, 0);
    for (int i = 0; i < n; i++) {
        lua_rawgeti(L, -2, i + 1);
        read_column(L, -1, i + 1, anchor, &cols[i]);
        lua_pop(L, 1);
        sum += cols[i].width;
    }
    if (sum > 1.0 + 1e-9)
        luaL_error(L, "pdf.table: column widths add up to %s, more than 1", num(L, sum));
    lua_remove(L, -2);                  /* the list; arg 2 keeps its strings alive */
    out->cols = cols;
    out->ncols = n;
}

static void read_cell(lua_State *L, int idx, int r, int c, int anchor, struct pdf_cell *cell)
{
    char ctx[64];
    idx = lua_absindex(L, idx);
    cell->kind = PDF_KIND_NONE;
    cell->tone = PDF_TONE_NONE;
    if ((cell->text = as_text(L, idx, anchor)))
        return;
    if (lua_type(L, idx) != LUA_TTABLE)
        luaL_error(L, "pdf.table: row %d cell %d must be a string, number or table, got %s",
                   r, c, show(L, idx));
    snprintf(ctx, sizeof ctx, "pdf.table: row %d cell %d", r, c);
    check_fields(L, idx, CELL_FIELDS, ctx);
    cell->text = opt_text(L, idx, "text", anchor, ctx);
    cell->kind = (enum pdf_kind)opt_enum(L, idx, "kind", KINDS, PDF_KIND_MEASURED,
                                         PDF_KIND_NONE, ctx);
    cell->tone = (enum pdf_tone)opt_enum(L, idx, "tone", TONES, PDF_TONE_GOOD,
                                         PDF_TONE_NONE, ctx);
}

/* Pushes the cells array (userdata) and fills t->cells, t->nrows. */
static void read_rows(lua_State *L, int t, int anchor, struct pdf_table *out)
{
    int n = list_field(L, t, "rows", MAX_ROWS, "pdf.table", 1), nc = out->ncols;
    size_t ncells = (size_t)n * (size_t)nc;
    struct pdf_cell *cells = lua_newuserdatauv(L, (ncells ? ncells : 1) * sizeof *cells, 0);
    for (int r = 0; r < n; r++) {
        if (lua_rawgeti(L, -2, r + 1) != LUA_TTABLE)
            luaL_error(L, "pdf.table: row %d must be a list of cells, got %s", r + 1,
                       show(L, -1));
        lua_Unsigned len = lua_rawlen(L, -1);
        if (len != (lua_Unsigned)nc)
            luaL_error(L, "pdf.table: row %d has %I cells, expected %d", r + 1,
                       (LUAI_UACINT)len, nc);
        for (int c = 0; c < nc; c++) {
            lua_rawgeti(L, -1, c + 1);
            read_cell(L, -1, r + 1, c + 1, anchor, &cells[(size_t)r * nc + c]);
            lua_pop(L, 1);
        }
        lua_pop(L, 1);
    }
    lua_remove(L, -2);
    out->cells = cells;
    out->nrows = n;
}

/* groups = { n1, n2, ... }: rows kept on one page, n1 rows, then n2, ... (whole numbers adding
 * up to the row count). Pushes the group numbers (userdata) and returns them, or NULL. */
static const int *read_groups(lua_State *L, int t, int nrows)
{
    int n = list_field(L, t, "groups", MAX_ROWS, "pdf.table", 0), at = 0;
    if (n == 0) {
        lua_pop(L, 1);
        return NULL;
    }
    int *group = lua_newuserdatauv(L, (size_t)(nrows > 0 ? nrows : 1) * sizeof *group, 0);
    for (int i = 0; i < n; i++) {
        lua_rawgeti(L, -2, i + 1);
        lua_Integer k = lua_isinteger(L, -1) ? lua_tointeger(L, -1) : 0;
        if (k < 1 || k > nrows - at)
            luaL_error(L, "pdf.table: groups[%d] must be a whole number of rows in 1..%d, got %s",
                       i + 1, nrows - at, show(L, -1));
        lua_pop(L, 1);
        for (lua_Integer j = 0; j < k; j++)
            group[at++] = i;
    }
    if (at != nrows)
        luaL_error(L, "pdf.table: groups add up to %d rows, the table has %d", at, nrows);
    lua_remove(L, -2);                  /* the list */
    return group;
}

static int l_table(lua_State *L)
{
    struct pdf_doc *d = checkdoc(L);
    struct pdf_table t = { 0 };
    luaL_checktype(L, 2, LUA_TTABLE);
    lua_settop(L, 2);
    check_fields(L, 2, TABLE_FIELDS, "pdf.table");
    lua_newtable(L);                    /* 3: anchor for strings made here */
    read_columns(L, 2, 3, &t);          /* 4 */
    read_rows(L, 2, 3, &t);             /* 5 */
    t.caption = opt_text(L, 2, "caption", 3, "pdf.table");
    t.group = read_groups(L, 2, t.nrows);   /* 6 */
    pdf_table(d, &t);
    return 0;
}

/* ---- charts ------------------------------------------------------------------------- */

static void read_axis(lua_State *L, int t, const char *k, int anchor, struct pdf_axis *a)
{
    char ctx[32];
    snprintf(ctx, sizeof ctx, "pdf.chart: %s", k);
    *a = (struct pdf_axis){ .min = NAN, .max = NAN };
    int ty = rawfield(L, t, k), idx = lua_gettop(L);
    if (ty == LUA_TNIL) {
        lua_pop(L, 1);
        return;
    }
    if (ty != LUA_TTABLE)
        luaL_error(L, "pdf.chart: %s must be a table, got %s", k, show(L, -1));
    check_fields(L, idx, AXIS_FIELDS, ctx);
    a->label = opt_text(L, idx, "label", anchor, ctx);
    a->format = (enum pdf_format)opt_enum(L, idx, "format", FORMATS, 0, PDF_FMT_NUM, ctx);
    a->min = opt_number(L, idx, "min", NAN, ctx);
    a->max = opt_number(L, idx, "max", NAN, ctx);
    ty = rawfield(L, idx, "log");
    if (ty == LUA_TNUMBER && (lua_tonumber(L, -1) == 2 || lua_tonumber(L, -1) == 10))
        a->log = (int)lua_tonumber(L, -1);
    else if (ty != LUA_TNIL && !(ty == LUA_TBOOLEAN && !lua_toboolean(L, -1)))
        luaL_error(L, "%s: log must be 2 or 10, got %s", ctx, show(L, -1));
    lua_pop(L, 2);
}

/* A list of numbers at t[k] as a double array kept alive by the anchor table; false stands
 * for NAN (a gap), since a Lua list cannot hold nil. *n = -1 when the field is absent. */
static const double *read_numbers(lua_State *L, int t, const char *k, int anchor,
                                  const char *ctx, int *n)
{
    int ty = rawfield(L, t, k);
    if (ty == LUA_TNIL) {
        lua_pop(L, 1);
        *n = -1;
        return NULL;
    }
    if (ty != LUA_TTABLE)
        luaL_error(L, "%s: %s must be a list of numbers, got %s", ctx, k, show(L, -1));
    lua_Unsigned len = lua_rawlen(L, -1);
    if (len > MAX_POINTS)
        luaL_error(L, "%s: %s has %I values, at most %d", ctx, k, (LUAI_UACINT)len, MAX_POINTS);
    double *v = lua_newuserdatauv(L, (len ? len : 1) * sizeof *v, 0);
    for (lua_Unsigned i = 0; i < len; i++) {
        int et = lua_rawgeti(L, -2, (lua_Integer)i + 1);
        if (et != LUA_TNUMBER && !(et == LUA_TBOOLEAN && !lua_toboolean(L, -1)))
            luaL_error(L, "%s: %s[%I] must be a number, got %s", ctx, k, (LUAI_UACINT)i + 1,
                       show(L, -1));
        v[i] = et == LUA_TNUMBER ? (double)lua_tonumber(L, -1) : NAN;
        lua_pop(L, 1);
    }
    lua_rawseti(L, anchor, (lua_Integer)lua_rawlen(L, anchor) + 1);
    lua_pop(L, 1);
    *n = (int)len;
    return v;
}

/* The optional band of a series: lo and hi, both or neither, as many values as y. */
static void read_band(lua_State *L, int idx, int anchor, const char *ctx, struct pdf_series *s)
{
    int nlo, nhi;
    s->lo = read_numbers(L, idx, "lo", anchor, ctx, &nlo);
    s->hi = read_numbers(L, idx, "hi", anchor, ctx, &nhi);
    if ((nlo < 0) != (nhi < 0))
        luaL_error(L, "%s: lo and hi go together, got only %s", ctx, nlo < 0 ? "hi" : "lo");
    if (nlo >= 0 && (nlo != s->n || nhi != s->n))
        luaL_error(L, "%s: lo has %d values, hi %d, y %d", ctx, nlo, nhi, s->n);
}

/* The optional point labels of a series: as many strings as y, false for a point without one. */
static void read_labels(lua_State *L, int idx, int anchor, const char *ctx, struct pdf_series *s)
{
    int ty = rawfield(L, idx, "labels");
    if (ty == LUA_TNIL) {
        lua_pop(L, 1);
        return;
    }
    if (ty != LUA_TTABLE)
        luaL_error(L, "%s: labels must be a list of strings, got %s", ctx, show(L, -1));
    if (lua_rawlen(L, -1) != (lua_Unsigned)s->n)
        luaL_error(L, "%s: labels has %I values, y %d", ctx, (LUAI_UACINT)lua_rawlen(L, -1), s->n);
    const char **v = lua_newuserdatauv(L, (size_t)(s->n ? s->n : 1) * sizeof *v, 0);
    for (int k = 0; k < s->n; k++) {
        int none = lua_rawgeti(L, -2, k + 1) == LUA_TBOOLEAN && !lua_toboolean(L, -1);
        v[k] = none ? NULL : as_text(L, -1, anchor);
        if (!none && !v[k])
            luaL_error(L, "%s: labels[%d] must be a string, got %s", ctx, k + 1, show(L, -1));
        lua_pop(L, 1);
    }
    lua_rawseti(L, anchor, (lua_Integer)lua_rawlen(L, anchor) + 1);
    lua_pop(L, 1);
    s->labels = v;
}

static void read_one_series(lua_State *L, int idx, int i, int anchor,
                            const struct pdf_chart *c, struct pdf_series *s)
{
    char ctx[96];
    int nx, ny, line = c->kind == PDF_CHART_LINE;
    snprintf(ctx, sizeof ctx, "pdf.chart: series %d", i);
    if (lua_type(L, idx) != LUA_TTABLE)
        luaL_error(L, "%s must be a table, got %s", ctx, show(L, idx));
    check_fields(L, idx, SERIES_FIELDS, ctx);
    s->name = opt_text(L, idx, "name", anchor, ctx);
    if (s->name)
        snprintf(ctx, sizeof ctx, "pdf.chart: series %d '%s'", i, s->name);
    s->dashed = opt_bool(L, idx, "dashed", ctx);
    s->points = opt_bool(L, idx, "points", ctx);
    s->y = read_numbers(L, idx, "y", anchor, ctx, &ny);
    s->x = read_numbers(L, idx, "x", anchor, ctx, &nx);
    if (ny < 0 || (line && nx < 0))
        luaL_error(L, "%s: %s must be a list of numbers, got nil", ctx, ny < 0 ? "y" : "x");
    if (line && nx != ny)
        luaL_error(L, "%s: x has %d values, y has %d", ctx, nx, ny);
    if (!line && ny != c->ncategories)
        luaL_error(L, "%s: y has %d values, categories has %d", ctx, ny, c->ncategories);
    s->n = ny;
    s->hollow = read_numbers(L, idx, "hollow", anchor, ctx, &s->nhollow);
    read_band(L, idx, anchor, ctx, s);
    read_labels(L, idx, anchor, ctx, s);
}

static void read_series(lua_State *L, int t, int anchor, struct pdf_chart *c)
{
    int n = list_field(L, t, "series", MAX_SERIES, "pdf.chart", 0);
    struct pdf_series *s = lua_newuserdatauv(L, (size_t)(n ? n : 1) * sizeof *s, 0);
    memset(s, 0, (size_t)(n ? n : 1) * sizeof *s);
    for (int i = 0; i < n; i++) {
        lua_rawgeti(L, -2, i + 1);
        read_one_series(L, lua_gettop(L), i + 1, anchor, c, &s[i]);
        lua_pop(L, 1);
    }
    lua_rawseti(L, anchor, (lua_Integer)lua_rawlen(L, anchor) + 1);
    lua_pop(L, 1);
    c->series = s;
    c->nseries = n;
}

static void read_marks(lua_State *L, int t, int anchor, struct pdf_chart *c)
{
    int n = list_field(L, t, "marks", MAX_MARKS, "pdf.chart", 0);
    struct pdf_mark *m = lua_newuserdatauv(L, (size_t)(n ? n : 1) * sizeof *m, 0);
    for (int i = 0; i < n; i++) {
        char ctx[48];
        snprintf(ctx, sizeof ctx, "pdf.chart: mark %d", i + 1);
        if (lua_rawgeti(L, -2, i + 1) != LUA_TTABLE)
            luaL_error(L, "%s must be a table, got %s", ctx, show(L, -1));
        check_fields(L, -1, MARK_FIELDS, ctx);
        if (rawfield(L, lua_gettop(L), "x") != LUA_TNUMBER)
            luaL_error(L, "%s: x must be a number, got %s", ctx, show(L, -1));
        m[i].x = (double)lua_tonumber(L, -1);
        lua_pop(L, 1);
        m[i].label = opt_text(L, lua_gettop(L), "label", anchor, ctx);
        lua_pop(L, 1);
    }
    lua_rawseti(L, anchor, (lua_Integer)lua_rawlen(L, anchor) + 1);
    lua_pop(L, 1);
    c->marks = m;
    c->nmarks = n;
}

static void read_categories(lua_State *L, int t, int anchor, struct pdf_chart *c)
{
    int n = list_field(L, t, "categories", MAX_CATEGORIES, "pdf.chart", 0);
    const char **names = lua_newuserdatauv(L, (size_t)(n ? n : 1) * sizeof *names, 0);
    for (int i = 0; i < n; i++) {
        lua_rawgeti(L, -2, i + 1);
        if (!(names[i] = as_text(L, -1, anchor)))
            luaL_error(L, "pdf.chart: categories[%d] must be a string, got %s", i + 1,
                       show(L, -1));
        lua_pop(L, 1);
    }
    lua_rawseti(L, anchor, (lua_Integer)lua_rawlen(L, anchor) + 1);
    lua_pop(L, 1);
    c->categories = names;
    c->ncategories = n;
}

static int l_chart(lua_State *L)
{
    struct pdf_doc *d = checkdoc(L);
    struct pdf_chart c = { 0 };
    luaL_checktype(L, 2, LUA_TTABLE);
    lua_settop(L, 2);
    check_fields(L, 2, CHART_FIELDS, "pdf.chart");
    lua_newtable(L);                    /* 3: anchor for arrays and strings made here */
    c.kind = (enum pdf_chart_kind)opt_enum(L, 2, "kind", CHART_KINDS, 0, PDF_CHART_LINE,
                                           "pdf.chart");
    c.title = opt_text(L, 2, "title", 3, "pdf.chart");
    c.caption = opt_text(L, 2, "caption", 3, "pdf.chart");
    c.height = opt_number(L, 2, "height", 0.0, "pdf.chart");
    if (c.height != 0.0 && !(c.height >= MIN_CHART_HEIGHT && c.height <= MAX_CHART_HEIGHT))
        luaL_error(L, "pdf.chart: height must be in %d..%d, got %s", MIN_CHART_HEIGHT,
                   MAX_CHART_HEIGHT, num(L, c.height));
    read_axis(L, 2, "x", 3, &c.x);
    read_axis(L, 2, "y", 3, &c.y);
    read_categories(L, 2, 3, &c);
    read_series(L, 2, 3, &c);
    read_marks(L, 2, 3, &c);
    pdf_chart(d, &c);
    return 0;
}

/* ---- the object and the module ------------------------------------------------------ */

static int l_tostring(lua_State *L)
{
    struct ldoc *u = luaL_checkudata(L, 1, META);
    if (u->d)
        lua_pushfstring(L, "pdf_doc (%p)", (void *)u->d);
    else
        lua_pushliteral(L, "pdf_doc (closed)");
    return 1;
}

static const luaL_Reg doc_methods[] = {
    { "chart", l_chart },
    { "code", l_code },
    { "contents", l_contents },
    { "footer", l_footer },
    { "header", l_header },
    { "notice", l_notice },
    { "page_break", l_page_break },
    { "page_of", l_page_of },
    { "paragraph", l_paragraph },
    { "section", l_section },
    { "space", l_space },
    { "table", l_table },
    { "title", l_title },
    { NULL, NULL },
};

/* Pushes the documents' metatable, creating it on first use (a document may be pushed
 * before the module is required). */
static void doc_meta(lua_State *L)
{
    if (!luaL_newmetatable(L, META))
        return;
    lua_pushcfunction(L, l_tostring);
    lua_setfield(L, -2, "__tostring");
    luaL_newlib(L, doc_methods);
    lua_setfield(L, -2, "__index");
}

void lpdf_push_doc(lua_State *L, struct pdf_doc *d)
{
    struct ldoc *u = lua_newuserdatauv(L, sizeof *u, 0);
    u->d = d;
    doc_meta(L);
    lua_setmetatable(L, -2);
}

void lpdf_detach(lua_State *L, int idx)
{
    struct ldoc *u = luaL_testudata(L, idx, META);
    if (u)
        u->d = NULL;
}

/* pdf.exact(s): whether the report draws s character for character (every character in one of the
 * fonts' code pages, none replaced by '?' or a stand-in such as ">="). */
static int l_exact(lua_State *L)
{
    size_t n;
    const char *s = luaL_checklstring(L, 1, &n);
    lua_pushboolean(L, strlen(s) == n && pdf_exact(s));
    return 1;
}

int luaopen_pdf(lua_State *L)
{
    static const struct { const char *name; int value; } limits[] = {
        { "columns", MAX_COLUMNS }, { "rows", MAX_ROWS }, { "series", MAX_SERIES },
        { "points", MAX_POINTS }, { "marks", MAX_MARKS }, { "categories", MAX_CATEGORIES },
    };
    doc_meta(L);
    lua_pop(L, 1);
    lua_createtable(L, 0, 1);
    lua_createtable(L, 0, (int)(sizeof limits / sizeof limits[0]));
    for (size_t i = 0; i < sizeof limits / sizeof limits[0]; i++) {
        lua_pushinteger(L, limits[i].value);
        lua_setfield(L, -2, limits[i].name);
    }
    lua_setfield(L, -2, "limits");      /* pdf.limits.rows etc., for templates that split */
    lua_pushcfunction(L, l_exact);
    lua_setfield(L, -2, "exact");
    return 1;
}
