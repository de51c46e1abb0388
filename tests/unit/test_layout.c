/* test_layout.c: the report layer's layout rules on hand-written vectors: which cells are
 * figures (never wrapped), shortening long numbers (k, M), spilling long cells into footnotes,
 * and the series looks beyond the 8 colours (a number kept with its unit is test_text.c's).
 * Whole tables and charts are checked from rendered PDFs (tests/e2e/layout.lua), which runs
 * `test_layout --pdf OUT.pdf SCRIPT [LOG]` to draw a synthetic document through the Lua binding
 * (LOG: where the layout log goes). */
#include "check.h"
#include "lua/modules.h"
#include "report/internal.h"

#include <lauxlib.h>
#include <lualib.h>
#include <stdlib.h>

static void test_numeric(void)
{
    static const char *const figures[] = {
        "187375\x96" "26835 h", "+4.0 %", "-1.8 %", "$3999", "1.70 s", "95.8 h", "3.35 %",
        "21.0 % at 1e+06 FLOP", "6/384/6/256/4", "x1.5", "153 GB", "0.93\x96" "1.28 h",
        "64x64x64", "1.00e-12 within", "~12.3x", "2^20", "52.1",
    };
    static const char *const texts[] = {
        "fits: 38 GB of 80 GB", "v8", "fp32", "cudaErrorInsufficientDriver", "Confidence", "",
        "n/a", "not projected", "catalog spec", "fits with activation checkpointing: 46.3 GB of 128 GB",
        "NVIDIA H100 SXM5", "1 2 3 4 5 6 7 8 9", "gpt2-124m", "   ",
    };
    for (size_t i = 0; i < sizeof figures / sizeof figures[0]; i++)
        if (!pdf_numeric(figures[i]))
            printf("not a figure: \"%s\"\n", figures[i]), check_failures++;
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++)
        if (pdf_numeric(texts[i]))
            printf("taken for a figure: \"%s\"\n", texts[i]), check_failures++;
}

static void abbrev(const char *in, const char *want)
{
    char *got = pdf_abbreviate(in);
    if (want)
        EXPECT_STR(got, want);
    else if (got)
        printf("%s:%d: \"%s\" shortened to \"%s\"\n", __FILE__, __LINE__, in, got), check_failures++;
    free(got);
}

static void test_abbreviate(void)
{
    abbrev("187375\x96" "26835 h", "187k\x96" "26.8k h");
    abbrev("39234 h", "39.2k h");
    abbrev("1,234,567 tokens", "1.23M tokens");
    abbrev("2500000000", "2.50G");
    abbrev("-12345.6 %", "-12.3k %");
    abbrev("99999", "100k");
    abbrev("9999 h", NULL);                 /* four digits stay */
    abbrev("1e+06 FLOP", NULL);
    abbrev("20261203T075418Z", NULL);       /* not a number: letters run into it */
    abbrev("0.000012345", NULL);
}

static double unit_width(void *ctx, const char *s, size_t n)
{
    (void)ctx;
    (void)s;
    return (double)n;
}

static void test_spill(void)
{
    char *s;
    EXPECT(pdf_spill("short text", 20, unit_width, NULL, 1) == NULL);
    EXPECT(pdf_spill("one two three four five six seven", 10, unit_width, NULL, 1) == NULL);
    /* more than PDF_CELL_LINES lines: the first two lines, an ellipsis and the marker */
    s = pdf_spill("fits with activation checkpointing and gradient accumulation 32 (micro-batch 1)",
                  20, unit_width, NULL, 3);
    EXPECT_STR(s, "fits with activation checkpointing and \x85 [3]");
    free(s);
    /* cut after the last clause of those lines, else before a colon */
    s = pdf_spill("fits: 153 GB; not projected: the catalog gives no dense FP32 or BF16 peak", 14,
                  unit_width, NULL, 2);
    EXPECT_STR(s, "fits: 153 GB \x85 [2]");
    free(s);
    s = pdf_spill("not measured: not supported here: the CBLAS library exports no sbgemm", 16,
                  unit_width, NULL, 1);
    EXPECT_STR(s, "not measured \x85 [1]");
    free(s);
    /* a word wider than the column is never broken: the marker alone */
    s = pdf_spill("cudaErrorInsufficientDriver", 12, unit_width, NULL, 4);
    EXPECT_STR(s, "[4]");
    free(s);
}

static double distance(struct pdf_rgb a, struct pdf_rgb b)
{
    return fabs(a.r - b.r) + fabs(a.g - b.g) + fabs(a.b - b.b);
}

static void test_looks(void)
{
    for (int i = 0; i < PDF_PALETTE; i++) {
        struct pdf_look a = pdf_series_look(i);
        EXPECT(a.dash == 0 && a.points == 0);
        for (int j = 0; j < i; j++)
            EXPECT(distance(a.colour, pdf_series_look(j).colour) > 0.3);
    }
    /* beyond the palette: a colour again, but with a pattern, markers and another shape */
    for (int i = PDF_PALETTE; i < 4 * PDF_PALETTE; i++) {
        struct pdf_look a = pdf_series_look(i), b = pdf_series_look(i % PDF_PALETTE);
        EXPECT(distance(a.colour, b.colour) == 0.0);
        EXPECT(a.dash == i / PDF_PALETTE && a.points == 1);
        EXPECT(a.marker != b.marker);
    }
    EXPECT(pdf_series_look(15).dash == 1 && pdf_series_look(16).dash == 2);
}

/* Draws the Lua script at `script` (its global `doc` the document) and saves it at `out`; the layout
 * log goes to `log` when it is not NULL (pdf_doc_log). */
static int draw_document(const char *out, const char *script, const char *log)
{
    char err[512];
    const char *dir = getenv("SR_FONT_DIR");
    struct pdf_doc *d = pdf_doc_new(dir && *dir ? dir : "/usr/share/fonts/truetype/dejavu", err,
                                    sizeof err);
    if (!d)
        return fprintf(stderr, "%s\n", err), 1;
    pdf_doc_info(d, "layout check", NULL, (time_t)1700000000);
    FILE *lf = log ? fopen(log, "w") : NULL;
    if (log && !lf)
        return fprintf(stderr, "%s: cannot open\n", log), pdf_doc_free(d), 1;
    pdf_doc_log(d, lf);
    lua_State *L = luaL_newstate();
    luaL_openlibs(L);
    luaL_requiref(L, "pdf", luaopen_pdf, 1);
    lua_pop(L, 1);
    lpdf_push_doc(L, d);
    lua_setglobal(L, "doc");
    int rc = luaL_dofile(L, script) == LUA_OK ? 0 : 1;
    if (rc)
        fprintf(stderr, "%s\n", lua_tostring(L, -1));
    lua_close(L);
    if (!rc && pdf_doc_save(d, out, err, sizeof err) != 0)
        rc = 1, fprintf(stderr, "%s\n", err);
    pdf_doc_free(d);
    if (lf && fclose(lf) != 0)
        rc = 1;
    return rc;
}

int main(int argc, char **argv)
{
    if ((argc == 4 || argc == 5) && strcmp(argv[1], "--pdf") == 0)
        return draw_document(argv[2], argv[3], argc == 5 ? argv[4] : NULL);
    test_numeric();
    test_abbreviate();
    test_spill();
    test_looks();
    return CHECK_DONE();
}
