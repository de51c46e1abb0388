/* test_pdf.c: builds a report through the C API and the Lua binding, saves it twice with a
 * fixed date and checks the files are byte-identical, then reads the text back with
 * pdftotext (PDFTOTEXT, else on PATH; exit 77 without it). Also the error paths: a bad font
 * folder, a bad save path, a bad argument, drawing after saving, and Lua misuse messages. */
#include "check.h"
#include "lua/modules.h"
#include "report/internal.h"       /* only to provoke a libharu error on the page */
#include "report/report.h"

#include <lauxlib.h>
#include <lualib.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#define FIXED_DATE ((time_t)1700000000)     /* 2023-11-14 22:13:20 UTC */
#define TABLE_ROWS 80                       /* enough to span two pages */
#define CODE_LINES 150                      /* longer than a page */

static const char *font_dir(void)
{
    const char *dir = getenv("SR_FONT_DIR");
    return dir && *dir ? dir : "/usr/share/fonts/truetype/dejavu";
}

static void ladder_chart(struct pdf_doc *d)
{
    static double x[24], copy[24], triad[24], spec[2] = { 273, 273 }, sx[2];
    static const char *labels[] = { "L1", "L2", "L3" };
    struct pdf_mark marks[3];
    for (int i = 0; i < 24; i++) {          /* 4 KiB .. 32 GiB */
        x[i] = 4096.0 * (double)(1ull << i);
        copy[i] = i < 3 ? 900 - 40 * i : i < 8 ? 420 - 20 * i : 180 + (i % 3);
        triad[i] = i == 12 ? NAN : copy[i] * 1.1;     /* a gap */
    }
    sx[0] = x[0], sx[1] = x[23];
    for (int i = 0; i < 3; i++)
        marks[i] = (struct pdf_mark){ 65536.0 * (double)(1ull << (4 * i)), labels[i] };
    struct pdf_series s[] = {
        { "copy", x, copy, 24, 0, 1, .hollow = NULL },
        { "triad", x, triad, 24, 0, 1, .hollow = NULL },
        { "vendor spec (273 GB/s)", sx, spec, 2, 1, 0, .hollow = NULL },
    };
    struct pdf_chart c = {
        .kind = PDF_CHART_LINE, .title = "Bandwidth vs working set (CPU, 20 threads)",
        .x = { "working set", 2, PDF_FMT_BYTES, NAN, NAN },
        .y = { "bandwidth (GB/s)", 0, PDF_FMT_NUM, NAN, NAN },
        .series = s, .nseries = 3, .marks = marks, .nmarks = 3,
        .caption = "Best of 20 repetitions; caches from sysfs, marked at their sizes.",
    };
    pdf_chart(d, &c);
}

static void bar_charts(struct pdf_doc *d)
{
    static const char *cats[] = { "copy", "scale", "add", "triad", "read", "write" };
    static const char *systems[] = { "DGX Spark", "H100 SXM", "H200 SXM", "GH200 144G",
                                     "B200", "laptop" };
    double cpu[] = { 210, 205, 230, 232, 250, 150 }, gpu[] = { 240, 238, 250, 251, 260, NAN };
    double compute[] = { 3.0, 1.0, 0.8, 0.7, 0.4, 9.0 }, memory[] = { 9.0, 1.2, 0.9, 0.8, 0.5, 20.0 };
    struct pdf_series s[] = { { "CPU", NULL, cpu, 6, 0, 0, .hollow = NULL }, { "GPU", NULL, gpu, 6, 0, 0, .hollow = NULL } };
    struct pdf_chart c = {
        .kind = PDF_CHART_BAR, .title = "STREAM kernels", .y = { "GB/s", 0, 0, NAN, NAN },
        .series = s, .nseries = 2, .categories = cats, .ncategories = 6, .height = 200,
    };
    pdf_chart(d, &c);
    struct pdf_series st[] = { { "compute", NULL, compute, 6, 0, 0, .hollow = NULL },
                               { "memory", NULL, memory, 6, 0, 0, .hollow = NULL } };
    struct pdf_chart c2 = {
        .kind = PDF_CHART_STACKED_BAR, .title = "Projected step time per system",
        .y = { "hours per 1e9 tokens", 0, 0, NAN, NAN }, .series = st, .nseries = 2,
        .categories = systems, .ncategories = 6, .height = 220,
        .caption = "projected: model calibrated on this run's microbenchmarks",
    };
    pdf_chart(d, &c2);
}

static void roofline_and_empty(struct pdf_doc *d)
{
    double ai[] = { 0.125, 0.25, 1, 4, 16, 64, 256 }, perf[7], roof[7];
    for (int i = 0; i < 7; i++) {
        roof[i] = ai[i] * 273 < 31000 ? ai[i] * 273 : 31000;
        perf[i] = roof[i] * 0.7;
    }
    struct pdf_series s[] = { { "roof", ai, roof, 7, 1, 0, .hollow = NULL }, { "GEMM", ai, perf, 7, 0, 1, .hollow = NULL } };
    struct pdf_chart c = {
        .kind = PDF_CHART_LINE, .title = "Roofline (BF16)",
        .x = { "arithmetic intensity (FLOP/byte)", 10, 0, NAN, NAN },
        .y = { "GFLOP/s", 10, 0, NAN, NAN }, .series = s, .nseries = 2, .height = 220,
    };
    pdf_chart(d, &c);
    struct pdf_chart empty = { .title = "GPU bandwidth", .x = { "size", 2, 1, NAN, NAN },
                               .y = { "GB/s", 0, 0, NAN, NAN }, .height = 120 };
    pdf_chart(d, &empty);
}

/* TABLE_ROWS rows, the three kinds in turn, with tones and a note long enough to wrap. */
static void kinds_table(struct pdf_doc *d)
{
    static const struct pdf_column cols[] = {
        { "system", 0.18, PDF_ALIGN_LEFT }, { "bandwidth\n(GB/s)", 0.14, PDF_ALIGN_RIGHT },
        { "step time (s)", 0.14, PDF_ALIGN_RIGHT }, { "note", 0, PDF_ALIGN_LEFT },
    };
    static char text[TABLE_ROWS][4][96];
    static struct pdf_cell cells[TABLE_ROWS * 4];
    for (int r = 0; r < TABLE_ROWS; r++) {
        enum pdf_kind k = (enum pdf_kind)(PDF_KIND_MEASURED + r % 3);
        snprintf(text[r][0], 96, "sys-%03d", r + 1);
        snprintf(text[r][1], 96, "%.1f", 100.0 + r * 3.5);
        snprintf(text[r][2], 96, "%.3g", 0.25 * (r + 1));
        snprintf(text[r][3], 96, r % 7 == 0 ? "a longer note that has to wrap inside its cell "
                 "because it is wider than the column" : "ok");
        for (int c = 0; c < 4; c++)
            cells[r * 4 + c] = (struct pdf_cell){ text[r][c], c == 1 || c == 2 ? k : PDF_KIND_NONE,
                                                  c == 2 ? (enum pdf_tone)(r % 4) : PDF_TONE_NONE };
    }
    struct pdf_table t = { cols, 4, cells, TABLE_ROWS,
                           "Sources: catalog rows 3-7 (vendor data sheets).", NULL };
    pdf_table(d, &t);
}

static void code_block(struct pdf_doc *d)
{
    char *src = malloc(CODE_LINES * 64 + 1), *p = src;
    for (int i = 1; i <= CODE_LINES; i++)
        p += sprintf(p, "%sline %03d = { size = \"%d KiB\", reps = %d },\n",
                     i % 10 == 0 ? "\t" : "", i, 4 << (i % 12), i);
    pdf_code(d, src);
    free(src);
}

static const char *const LUA_DRAW =
    "doc:section('From Lua')\n"
    "doc:paragraph('Drawn by a template.', 'note')\n"
    "doc:table{ columns = { {title='name'}, {title='GB/s', align='right', width=0.2} },\n"
    "  rows = { {'lua-cell', {text=12.5, kind='measured'}}, {'lua-spec', {text=273, kind='spec', tone='good'}} },\n"
    "  caption = 'Lua caption' }\n"
    "doc:chart{ kind='line', title='Lua chart', x={label='size', log=2, format='bytes'},\n"
    "  y={label='GB/s'}, series={ {name='copy', x={4096, 65536, 1048576}, y={100, 80, false}, points=true} },\n"
    "  marks={ {x=32768, label='L1'} } }\n"
    "doc:chart{ kind='stacked_bar', title='Lua stacked', categories={'a','b'}, y={label='s'},\n"
    "  series={ {name='compute', y={1,2}}, {name='memory', y={3,false}} } }\n";

static int run_lua(lua_State *L, const char *code, char *msg, size_t n)
{
    msg[0] = '\0';
    if (luaL_loadbuffer(L, code, strlen(code), "=test") == LUA_OK &&
        lua_pcall(L, 0, 0, 0) == LUA_OK)
        return 0;
    snprintf(msg, n, "%s", lua_tostring(L, -1));
    lua_pop(L, 1);
    return -1;
}

#define EXPECT_LUA_ERROR(L, code, want) \
    do { char m_[512]; EXPECT(run_lua((L), (code), m_, sizeof m_) == -1); \
         EXPECT_STR(m_, (want)); } while (0)

static void lua_misuse(lua_State *L)
{
    EXPECT_LUA_ERROR(L, "doc:section('x', 5)",
                     "test:1: bad argument #2 to 'section' (level must be 1 or 2, got 5)");
    EXPECT_LUA_ERROR(L, "doc:table{ columns={'a','b'}, rows={ {'1','2'}, {'1','2'}, {'1'} } }",
                     "test:1: pdf.table: row 3 has 1 cells, expected 2");
    EXPECT_LUA_ERROR(L, "doc:chart{ serie = {} }", "test:1: pdf.chart: unknown field 'serie'");
    EXPECT_LUA_ERROR(L, "doc:chart{ series = { {name='copy', x={1}, y={1}}, "
                        "{name='triad', x={1,2,3}, y={1,2}} } }",
                     "test:1: pdf.chart: series 2 'triad': x has 3 values, y has 2");
    EXPECT_LUA_ERROR(L, "doc:notice('x', 'great')",
                     "test:1: bad argument #2 to 'notice' (tone must be one of "
                     "good|bad|neutral, got 'great')");
    EXPECT_LUA_ERROR(L, "doc:paragraph('x', 'italic')",
                     "test:1: bad argument #2 to 'paragraph' (style must be one of "
                     "body|bold|small|mono|note, got 'italic')");
    EXPECT_LUA_ERROR(L, "doc:table{ columns={'a'}, rows={ { {text='1', kind='guess'} } } }",
                     "test:1: pdf.table: row 1 cell 1: kind must be one of "
                     "measured|spec|projected|assumed, got 'guess'");
    EXPECT_LUA_ERROR(L, "doc:table{ colums={} }", "test:1: pdf.table: unknown field 'colums'");
    EXPECT_LUA_ERROR(L, "doc:space(900)",
                     "test:1: bad argument #1 to 'space' (points must be in 0..800, got 900)");
    EXPECT_LUA_ERROR(L, "doc:chart{ x = {log=3} }",
                     "test:1: pdf.chart: x: log must be 2 or 10, got 3");
    EXPECT_LUA_ERROR(L, "doc:chart{ kind='bar', categories={'a'}, series={ {name='s', y={1,2}} } }",
                     "test:1: pdf.chart: series 1 's': y has 2 values, categories has 1");
    EXPECT_LUA_ERROR(L, "doc:chart{ series = { {name='s', x={1}, y={'a'}} } }",
                     "test:1: pdf.chart: series 1 's': y[1] must be a number, got 'a'");
    EXPECT_LUA_ERROR(L, "doc:chart{ series = { {name='s', x={1}, y={1}, lo={0.5}} } }",
                     "test:1: pdf.chart: series 1 's': lo and hi go together, got only lo");
    EXPECT_LUA_ERROR(L, "doc:chart{ series = { {name='s', x={1,2}, y={1,2}, lo={0.5}, hi={2,3}} } }",
                     "test:1: pdf.chart: series 1 's': lo has 1 values, hi 2, y 2");
}

/* Draws through Lua; checks misuse messages the first time (they draw nothing). */
static void lua_part(struct pdf_doc *d, int check_errors)
{
    char msg[512];
    lua_State *L = luaL_newstate();
    luaL_openlibs(L);
    luaL_requiref(L, "pdf", luaopen_pdf, 1);
    lua_pop(L, 1);
    lpdf_push_doc(L, d);
    lua_setglobal(L, "doc");
    EXPECT(run_lua(L, LUA_DRAW, msg, sizeof msg) == 0);
    if (msg[0])
        printf("lua: %s\n", msg);
    EXPECT(run_lua(L, "assert(pdf.limits.rows == 100000)", msg, sizeof msg) == 0);
    if (check_errors)
        lua_misuse(L);
    lua_getglobal(L, "doc");
    lpdf_detach(L, -1);
    lua_pop(L, 1);
    EXPECT_LUA_ERROR(L, "doc:paragraph('late')", "test:1: pdf: document is closed");
    lua_close(L);
}

static void build(struct pdf_doc *d, int check_errors)
{
    pdf_doc_info(d, "Memory bandwidth \xC3\x97 training time", "unit test", FIXED_DATE);
    pdf_doc_header(d, "sparkreport \xE2\x80\x94 unit test report");
    pdf_title(d, "Memory bandwidth and training time", "DGX Spark vs HBM systems \xE2\x80\x94 test run");
    pdf_paragraph(d, "Host: test-host \xC2\xB7 scenario: tests/unit/test_pdf.c", PDF_STYLE_SMALL);
    pdf_notice(d, "PARTIAL RUN: interrupted after 3 of 5 experiments", PDF_TONE_BAD);
    pdf_section(d, "Memory bandwidth", 1);
    pdf_paragraph(d, "Triad \xE2\x89\xA5 4\xC3\x97 caches \xE2\x80\x93 12.5 GB/s \xC2\xB5s",
                  PDF_STYLE_BODY);
    pdf_paragraph(d, "Working sets sweep from the L1 cache to well past the last-level cache "
                  "(at least four times all caches together, including the 16 MB system cache "
                  "of GB10), so that the plateau on the right is DRAM bandwidth and nothing "
                  "else. Each point is the best of its repetitions; the median is in the "
                  "tables.", PDF_STYLE_BODY);
    pdf_section(d, "Cache ladder", 2);
    ladder_chart(d);
    pdf_notice(d, "Verdict: the sustained bandwidth is within 10% of the vendor figure.",
               PDF_TONE_GOOD);
    kinds_table(d);
    pdf_section(d, "Compute", 1);
    bar_charts(d);
    roofline_and_empty(d);
    pdf_paragraph(d, "A note in the note style, for assumptions.", PDF_STYLE_NOTE);
    pdf_section(d, "Scenario source", 2);
    code_block(d);
    pdf_space(d, 12);
    lua_part(d, check_errors);
}

static int files_equal(const char *a, const char *b)
{
    FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
    int same = fa && fb;
    while (same) {
        int ca = getc(fa), cb = getc(fb);
        same = ca == cb;
        if (ca == EOF || cb == EOF)
            break;
    }
    if (fa)
        fclose(fa);
    if (fb)
        fclose(fb);
    return same;
}

/* pdftotext's UTF-8 output, or NULL when the tool is missing. */
static char *extract_text(const char *pdf)
{
    const char *tool = getenv("PDFTOTEXT");
    char cmd[1024];
    tool = tool && *tool ? tool : "pdftotext";
    snprintf(cmd, sizeof cmd, "'%s' -v >/dev/null 2>&1", tool);
    int st = system(cmd);
    if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
        return NULL;
    snprintf(cmd, sizeof cmd, "'%s' -enc UTF-8 '%s' -", tool, pdf);
    FILE *p = popen(cmd, "r");
    size_t cap = 1 << 16, n = 0, got;
    char *buf = malloc(cap);
    while (p && (got = fread(buf + n, 1, cap - n - 1, p)) > 0)
        if ((n += got) + 1 == cap)
            buf = realloc(buf, cap *= 2);
    buf[n] = '\0';
    if (p)
        pclose(p);
    return buf;
}

static void check_text(const char *text)
{
    static const char *const want[] = {
        "Memory bandwidth and training", "DGX Spark vs HBM systems — test run", "Memory bandwidth", "Cache ladder", "Compute",
        "Scenario source", "PARTIAL RUN: interrupted", "Triad >= 4× caches – 12.5 GB/s µs",
        "sys-001", "sys-080", "100.0", "376.5", "a longer note that has to wrap",
        "m measured on this run · s spec (source given) · p projected (model, with band)",
        "Sources: catalog rows 3-7", "Bandwidth vs working set", "MiB", "L1", "L2", "L3",
        "vendor spec (273 GB/s)", "STREAM kernels", "Projected step time per system",
        "Roofline (BF16)", "no data", "line 001", "line 150", "sparkreport — unit test report",
        "From Lua", "lua-cell", "lua-spec", "Lua caption", "Lua chart", "Lua stacked",
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        if (!strstr(text, want[i])) {
            check_failures++;
            printf("%s:%d: extracted text lacks \"%s\"\n", __FILE__, __LINE__, want[i]);
        }
    int pages = 0;
    char first[64], last[64], beyond[64];
    for (const char *p = text; *p; p++)
        pages += *p == '\f';
    snprintf(first, sizeof first, "Page 1 of %d", pages);
    snprintf(last, sizeof last, "Page %d of %d", pages, pages);
    snprintf(beyond, sizeof beyond, "Page %d of", pages + 1);
    EXPECT(pages >= 6);
    EXPECT(strstr(text, first) != NULL);
    EXPECT(strstr(text, last) != NULL);
    EXPECT(strstr(text, beyond) == NULL);
}

static void check_errors(const char *dir)
{
    char err[512], path[512];
    EXPECT(pdf_doc_new("/nonexistent-fonts", err, sizeof err) == NULL);
    EXPECT(strstr(err, "/nonexistent-fonts/DejaVuSans.ttf") != NULL);

    struct pdf_doc *d = pdf_doc_new(font_dir(), err, sizeof err);
    EXPECT(d != NULL);
    pdf_paragraph(d, "x", PDF_STYLE_BODY);
    EXPECT(pdf_doc_save(d, "/nonexistent-sparkreport/x.pdf", err, sizeof err) == -1);
    EXPECT_STR(err, "/nonexistent-sparkreport/x.pdf: No such file or directory");
    if (access("/dev/full", W_OK) == 0) {                   /* a full disk is reported too */
        EXPECT(pdf_doc_save(d, "/dev/full", err, sizeof err) == -1);
        EXPECT_STR(err, "/dev/full: No space left on device");
    }
    snprintf(path, sizeof path, "%s/ok.pdf", dir);
    EXPECT(pdf_doc_save(d, path, err, sizeof err) == 0);    /* a bad path does not stick */
    unlink(path);
    pdf_paragraph(d, "after saving", PDF_STYLE_BODY);
    EXPECT(pdf_doc_error(d) && strstr(pdf_doc_error(d), "pdf_paragraph after pdf_doc_save"));
    pdf_doc_free(d);

    d = pdf_doc_new(font_dir(), err, sizeof err);
    pdf_paragraph(d, "x", PDF_STYLE_BODY);
    HPDF_Page_SetLineWidth(d->page, -1.0f);                 /* libharu refuses it */
    EXPECT_STR(pdf_doc_error(d),
               "libharu error 0x1056 (HPDF_PAGE_OUT_OF_RANGE), detail 0, in pdf_paragraph");
    pdf_doc_free(d);

    d = pdf_doc_new(font_dir(), err, sizeof err);
    pdf_section(d, "first", 5);
    pdf_section(d, "second", 7);                            /* only the first is kept */
    EXPECT(pdf_doc_save(d, path, err, sizeof err) == -1);
    snprintf(path, sizeof path, "%s/ok.pdf: pdf_section: level must be 1 or 2, got 5", dir);
    EXPECT_STR(err, path);
    pdf_doc_free(d);
}

/* Megabyte strings everywhere a string goes, and empty ones: no overflow, no libharu
 * error (bookmarks and labels are cut), and no quadratic time. */
static void check_huge(const char *dir)
{
    size_t big = 1 << 20;
    char *s = malloc(big + 1), err[512], path[512];
    for (size_t i = 0; i < big; i++)
        s[i] = i % 7 == 6 ? ' ' : "ab\xC3\x97"[i % 4 == 3 ? 0 : i % 4];
    s[big] = '\0';
    struct pdf_doc *d = pdf_doc_new(font_dir(), err, sizeof err);
    pdf_doc_header(d, s);
    pdf_section(d, s, 1);
    pdf_notice(d, "", PDF_TONE_NONE);
    pdf_paragraph(d, "a\n\nb", PDF_STYLE_BODY);
    struct pdf_column cols[] = { { s, 0.5, PDF_ALIGN_RIGHT }, { "", 0, PDF_ALIGN_CENTER } };
    struct pdf_cell cells[] = { { "", PDF_KIND_MEASURED, 0 }, { s, PDF_KIND_SPEC, 1 } };
    struct pdf_table t = { cols, 2, cells, 1, s, NULL };
    pdf_table(d, &t);
    double x[] = { 1, 2 }, y[] = { 1, 2 };
    struct pdf_series ser = { s, x, y, 2, 0, 1, .hollow = NULL };
    struct pdf_mark mark = { 1.5, s };
    const char *cats[] = { s, "" };
    struct pdf_chart c = { .title = s, .x = { s, 0, 0, NAN, NAN }, .y = { s, 0, 0, NAN, NAN },
                           .series = &ser, .nseries = 1, .marks = &mark, .nmarks = 1,
                           .caption = "short" };
    pdf_chart(d, &c);
    c.kind = PDF_CHART_BAR, c.categories = cats, c.ncategories = 2;
    pdf_chart(d, &c);
    snprintf(path, sizeof path, "%s/huge.pdf", dir);
    EXPECT(pdf_doc_save(d, path, err, sizeof err) == 0);
    if (pdf_doc_error(d))
        printf("huge: %s\n", pdf_doc_error(d));
    unlink(path);
    pdf_doc_free(d);
    free(s);
}

int main(void)
{
    char dir[] = "/tmp/test_pdf.XXXXXX", a[64], b[64], c[64], err[512];
    struct pdf_doc *d = pdf_doc_new(font_dir(), err, sizeof err);
    if (!d) {
        printf("skip: %s\n", err);
        return 77;
    }
    if (!mkdtemp(dir))
        return perror("mkdtemp"), 1;
    snprintf(a, sizeof a, "%s/a.pdf", dir);
    snprintf(b, sizeof b, "%s/b.pdf", dir);
    snprintf(c, sizeof c, "%s/c.pdf", dir);
    build(d, 1);
    EXPECT(pdf_doc_error(d) == NULL);
    EXPECT(pdf_doc_save(d, a, err, sizeof err) == 0);
    EXPECT(pdf_doc_save(d, b, err, sizeof err) == 0);       /* the same document again */
    pdf_doc_free(d);
    d = pdf_doc_new(font_dir(), err, sizeof err);           /* the same calls again */
    build(d, 0);
    EXPECT(pdf_doc_save(d, c, err, sizeof err) == 0);
    pdf_doc_free(d);
    EXPECT(files_equal(a, b));
    EXPECT(files_equal(a, c));
    check_errors(dir);
    check_huge(dir);

    char *text = extract_text(a);
    if (text)
        check_text(text);
    free(text);
    if (!getenv("SR_KEEP_PDF")) {
        unlink(a), unlink(b), unlink(c);
        rmdir(dir);
    } else {
        printf("kept %s\n", a);
    }
    if (!text && !check_failures)
        return printf("skip: pdftotext not available\n"), 77;
    return CHECK_DONE();
}
