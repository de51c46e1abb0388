/* test_text.c: UTF-8 to CP1252 conversion on hand-written vectors (the CP1252 repertoire,
 * ASCII stand-ins, invalid bytes, truncation) and word wrapping with a fixed-width measure.
 * Drawing is test_pdf.c's job. */
#include "check.h"
#include "report/internal.h"

#include <stdlib.h>

static const char *conv(const char *in)
{
    static char out[256];
    pdf_utf8_to_cp1252(in, out, sizeof out);
    return out;
}

static void test_repertoire(void)
{
    EXPECT_STR(conv("plain ASCII 0-9 ~"), "plain ASCII 0-9 ~");
    EXPECT_STR(conv("\xC3\x97"), "\xD7");                /* × */
    EXPECT_STR(conv("\xE2\x80\x93"), "\x96");            /* – */
    EXPECT_STR(conv("\xE2\x82\xAC"), "\x80");            /* € */
    EXPECT_STR(conv("\xC3\xA9t\xC3\xA9"), "\xE9t\xE9");  /* été */
    /* € ‚ ƒ „ … † ‡ ˆ ‰ Š ‹ Œ Ž ‘ ’ “ ” • – — ˜ ™ š › œ ž Ÿ */
    EXPECT_STR(conv("€‚ƒ„…†‡ˆ‰Š‹ŒŽ‘’“”•–—˜™š›œžŸ"),
               "\x80\x82\x83\x84\x85\x86\x87\x88\x89\x8A\x8B\x8C\x8E"
               "\x91\x92\x93\x94\x95\x96\x97\x98\x99\x9A\x9B\x9C\x9E\x9F");
    EXPECT_STR(conv("×±µ·°²³½"), "\xD7\xB1\xB5\xB7\xB0\xB2\xB3\xBD");
    EXPECT_STR(conv("\xCE\xBC"), "\xB5");                /* Greek mu reads as micro */
}

static void test_fallbacks(void)
{
    EXPECT_STR(conv("\xE2\x89\xA5"), ">=");              /* ≥ */
    EXPECT_STR(conv("a ≤ b ≈ c → d ← e ≠ f"), "a <= b ~ c -> d <- e != f");
    EXPECT_STR(conv("\xE2\x88\x92" "5"), "-5");          /* minus sign */
    EXPECT_STR(conv("∞"), "inf");
    EXPECT_STR(conv("σ = 3"), "sigma = 3");
    EXPECT_STR(conv("1\xE2\x80\x89" "000\xC2\xA0kB"), "1 000 kB");  /* thin space, nbsp */
    EXPECT_STR(conv("log₂"), "log2");
    EXPECT_STR(conv("\xE4\xB8\xAD"), "?");               /* outside CP1252, no stand-in */
    EXPECT_STR(conv("\xF0\x9F\x98\x80!"), "?!");         /* 4-byte sequence */
    EXPECT_STR(conv("\xC2\x85"), "?");                   /* C1 control, not CP1252 0x85 */
}

static void test_invalid(void)
{
    EXPECT_STR(conv("\xFF"), "?");
    EXPECT_STR(conv("a\x80" "b"), "a?b");                /* stray continuation byte */
    EXPECT_STR(conv("\xE2\x82"), "??");                  /* truncated sequence */
    EXPECT_STR(conv("\xC0\xAF"), "??");                  /* overlong '/' */
    EXPECT_STR(conv("\xED\xA0\x80"), "???");             /* surrogate */
    EXPECT_STR(conv("\xF4\x90\x80\x80"), "????");        /* above U+10FFFF */
    EXPECT_STR(conv(NULL), "");
}

static void test_truncation(void)
{
    char out[8];
    EXPECT(pdf_utf8_to_cp1252("abcdef", out, 4) == 3);
    EXPECT_STR(out, "abc");
    EXPECT(pdf_utf8_to_cp1252("a\xE2\x89\xA5", out, 3) == 1);  /* ">=" whole or not at all */
    EXPECT_STR(out, "a");
    EXPECT(pdf_utf8_to_cp1252("a\xE2\x89\xA5", out, 4) == 3);
    EXPECT_STR(out, "a>=");
    EXPECT(pdf_utf8_to_cp1252("\xC3\x97" "x", out, 2) == 1);
    EXPECT_STR(out, "\xD7");
    EXPECT(pdf_utf8_to_cp1252("abc", out, 1) == 0);
    EXPECT_STR(out, "");
    memcpy(out, "XYZ", 4);
    EXPECT(pdf_utf8_to_cp1252("abc", out, 0) == 0);
    EXPECT_STR(out, "XYZ");                             /* outlen 0: nothing written */
    EXPECT(pdf_utf8_to_cp1252("\xC3\x97\xE2\x80\x93", out, sizeof out) == 2);
}

static void test_copy(void)
{
    char *s = pdf_cp1252("a\r\nb\x01\tc \xE2\x89\xA5 \xCE\xB5");
    EXPECT_STR(s, "a\nb?\tc >= epsilon");
    free(s);
    s = pdf_cp1252(NULL);
    EXPECT_STR(s, "");
    free(s);
}

/* One unit per byte: wrapping is then checkable by counting characters. */
static double unit_width(void *ctx, const char *s, size_t n)
{
    (void)ctx;
    (void)s;
    return (double)n;
}

/* The wrapped lines of s joined with '|'. */
static const char *wrapped(const char *s, double width)
{
    static char out[512];
    struct pdf_span *ln;
    int n = pdf_wrap(s, width, unit_width, NULL, &ln);
    out[0] = '\0';
    for (int i = 0; i < n; i++) {
        size_t len = strlen(out);
        snprintf(out + len, sizeof out - len, "%s%.*s", i ? "|" : "", (int)ln[i].len,
                 s + ln[i].off);
    }
    free(ln);
    return out;
}

static void test_wrap(void)
{
    EXPECT_STR(wrapped("aaa bbb ccc", 7), "aaa bbb|ccc");
    EXPECT_STR(wrapped("aaa bbb ccc", 100), "aaa bbb ccc");
    EXPECT_STR(wrapped("hello\n\nworld", 100), "hello||world");
    EXPECT_STR(wrapped("abcdefghij", 4), "abcd|efgh|ij");
    EXPECT_STR(wrapped("    indented code", 100), "    indented code");
    EXPECT_STR(wrapped("    if x then y end", 12), "    if x|then y end");
    EXPECT_STR(wrapped("word   ", 100), "word");
    EXPECT_STR(wrapped("a  b", 1), "a|b");
    EXPECT_STR(wrapped("", 10), "");
    EXPECT_STR(wrapped("ab cdefghijk l", 5), "ab|cdefg|hijk|l");
    /* a column planned at one size and drawn at another is as wide as its longest word, give or
     * take rounding: "Held" stays whole (the validation table's header read "Hel d out") */
    EXPECT_STR(wrapped("Held\nout", 4.0 * (8.25 / 8.5) / (8.25 / 8.5) - 1e-12), "Held|out");
    EXPECT_STR(wrapped("Held out", 4.0 - 1e-9), "Held|out");

    /* A megabyte without a space wraps in linear time into full lines. */
    size_t big = 1 << 20;
    char *s = malloc(big + 1);
    memset(s, 'x', big);
    s[big] = '\0';
    struct pdf_span *ln;
    int n = pdf_wrap(s, 100, unit_width, NULL, &ln);
    EXPECT(n == (int)((big + 99) / 100));
    EXPECT(ln[0].len == 100 && ln[n - 1].off + ln[n - 1].len == big);
    free(ln);
    free(s);
}

/* A figure keeps its unit on its line; joining words are not units. */
static void test_units_stay(void)
{
    EXPECT_STR(wrapped("needs 48 GB of memory", 9), "needs|48 GB of|memory");
    EXPECT_STR(wrapped("takes 95.8 h here", 10), "takes|95.8 h|here");
    EXPECT_STR(wrapped("up 12.3 % now", 8), "up|12.3 %|now");
    EXPECT_STR(wrapped("38 GB of 80 GB", 8), "38 GB of|80 GB");
    EXPECT_STR(wrapped("v8 and more", 6), "v8 and|more");
    EXPECT_STR(wrapped("NVIDIA H100 PCIe", 12), "NVIDIA H100|PCIe");      /* a name, not a figure */
}

int main(void)
{
    test_repertoire();
    test_fallbacks();
    test_invalid();
    test_truncation();
    test_copy();
    test_wrap();
    test_units_stay();
    return CHECK_DONE();
}
