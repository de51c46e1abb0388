/* test_text.c: UTF-8 to the report's text on hand-written vectors (the CP1252 repertoire, other
 * scripts as pairs of a shift byte and their code page's byte, checked against libharu's own
 * encoders, ASCII stand-ins, invalid bytes, truncation), which characters a field may hold (the
 * script and font package named), and word wrapping with a fixed-width measure, never inside a pair.
 * Drawing is test_pdf.c's job. */
#include "check.h"
#include "report/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *conv(const char *in)
{
    static char out[256];
    pdf_utf8_encode(in, out, sizeof out);
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
    EXPECT_STR(conv("\xC2\xB5"), "\xB5");                /* the micro sign is CP1252's */
}

static void test_fallbacks(void)
{
    EXPECT_STR(conv("\xE2\x89\xA5"), ">=");              /* ≥ */
    EXPECT_STR(conv("a ≤ b ≈ c → d ← e ≠ f"), "a <= b ~ c -> d <- e != f");
    EXPECT_STR(conv("\xE2\x88\x92" "5"), "-5");          /* minus sign */
    EXPECT_STR(conv("∞"), "inf");
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
    EXPECT(pdf_utf8_encode("abcdef", out, 4) == 3);
    EXPECT_STR(out, "abc");
    EXPECT(pdf_utf8_encode("a\xE2\x89\xA5", out, 3) == 1);  /* ">=" whole or not at all */
    EXPECT_STR(out, "a");
    EXPECT(pdf_utf8_encode("a\xE2\x89\xA5", out, 4) == 3);
    EXPECT_STR(out, "a>=");
    EXPECT(pdf_utf8_encode("\xC3\x97" "x", out, 2) == 1);
    EXPECT_STR(out, "\xD7");
    EXPECT(pdf_utf8_encode("abc", out, 1) == 0);
    EXPECT_STR(out, "");
    memcpy(out, "XYZ", 4);
    EXPECT(pdf_utf8_encode("abc", out, 0) == 0);
    EXPECT_STR(out, "XYZ");                             /* outlen 0: nothing written */
    EXPECT(pdf_utf8_encode("\xC3\x97\xE2\x80\x93", out, sizeof out) == 2);
}

static void test_copy(void)
{
    char *s = pdf_encode("a\r\nb\x01\tc \xE2\x89\xA5 \xCE\xB5");
    EXPECT_STR(s, "a\nb?\tc >= \x8D\xE5");
    free(s);
    s = pdf_encode(NULL);
    EXPECT_STR(s, "");
    free(s);
}

/* Other scripts: a pair of the page's shift byte (0x81 Cyrillic, 0x8D Greek, 0x8F Central European,
 * 0x90 Turkish, 0x9D Baltic) and the byte of its Windows code page; CP1252 first where it has it. */
static void test_scripts(void)
{
    EXPECT_STR(conv("Привет"), "\x81\xCF\x81\xF0\x81\xE8\x81\xE2\x81\xE5\x81\xF2");
    EXPECT_STR(conv("σ = 3, μ"), "\x8D\xF3 = 3, \x8D\xEC");
    EXPECT_STR(conv("łódź"), "\x8F\xB3\xF3" "d\x8F\x9F");          /* ó is CP1252's */
    EXPECT_STR(conv("ğış"), "\x90\xF0\x90\xFD\x8F\xBA");          /* ş: Central European first */
    EXPECT_STR(conv("ķ"), "\x9D\xED");
    EXPECT_STR(conv("№ «Север» — €"), "\x81\xB9 \xAB\x81\xD1\x81\xE5\x81\xE2\x81\xE5\x81\xF0\xBB \x97 \x80");
    /* a pair is one character: where a cut falls, the runs of one page */
    const char *t = "a\x81\xCF\x81\x81" "b";                      /* aПЃb: 0x81 is also Ѓ's byte */
    EXPECT(pdf_char_floor(t, 2) == 1 && pdf_char_floor(t, 3) == 3 && pdf_char_floor(t, 4) == 3);
    EXPECT(pdf_char_floor(t, 5) == 5 && pdf_char_floor(t, 6) == 6);
    char buf[16];
    size_t len;
    int page;
    EXPECT(pdf_run(t, 6, &page, buf, &len) == 1 && page == 0 && len == 1 && buf[0] == 'a');
    EXPECT(pdf_run(t + 1, 5, &page, buf, &len) == 4 && page == 1 && len == 2 && memcmp(buf, "\xCF\x81", 2) == 0);
    EXPECT(pdf_run(t + 1, 1, &page, buf, &len) == 1 && page == 0 && len == 0);   /* a pair cut short */
    /* one page for a bookmark: its first script's, '?' where that page lacks a character */
    char one[32];
    EXPECT(pdf_to_page(conv("x\xC3\x97"), one) == 0 && strcmp(one, "x\xD7") == 0);
    EXPECT(pdf_to_page(conv("Я — łaś"), one) == 1 && strcmp(one, "\xDF \x97 ?a?") == 0);
    EXPECT(pdf_exact("Привет, Ελλάδα, łódź") && !pdf_exact("a \xE2\x89\xA5 b") && !pdf_exact("中"));
}

/* Every page's table against libharu's encoder of that page: a character's pair names the byte
 * libharu maps to that character, so what is drawn is what was written. */
static void test_pages_match_libharu(void)
{
    HPDF_Doc pdf = HPDF_New(NULL, NULL);
    int pairs = 0;
    for (unsigned cp = 0x80; cp < 0x2200; cp++) {
        char utf8[4] = { (char)(0xC0 | cp >> 6), (char)(0x80 | (cp & 0x3F)), 0, 0 }, out[8];
        if (cp >= 0x800)
            utf8[0] = (char)(0xE0 | cp >> 12), utf8[1] = (char)(0x80 | ((cp >> 6) & 0x3F)),
            utf8[2] = (char)(0x80 | (cp & 0x3F));
        if (pdf_utf8_encode(utf8, out, sizeof out) != 2 || !pdf_shift_page((unsigned char)out[0]))
            continue;
        HPDF_Encoder e = HPDF_GetEncoder(pdf, pdf_page_encoder(pdf_shift_page((unsigned char)out[0])));
        EXPECT(e && HPDF_Encoder_GetUnicode(e, (HPDF_BYTE)out[1]) == cp);
        pairs++;
    }
    EXPECT(pairs == 250);               /* Cyrillic, Greek, Latin Extended-A and some signs (the tables, today) */
    HPDF_Free(pdf);
}

static const char *check_msg(const char *utf8)
{
    static char msg[640];
    char why[600];
    size_t at;
    if (pdf_text_check(utf8, &at, why, sizeof why) == 0)
        return "ok";
    snprintf(msg, sizeof msg, "%zu %s", at, why);
    return msg;
}

static void test_check(void)
{
    EXPECT_STR(check_msg("Команда «Север», Ελλάδα, Zażółć, ≥ 5"), "ok");
    EXPECT_STR(check_msg("GPU \xE4\xB8\xAD"), "5 ('\xE4\xB8\xAD', U+4E2D) cannot be drawn: it is CJK, and the report's "
               "fonts (DejaVu, Debian fonts-dejavu-core) draw Latin, Greek and Cyrillic; a font that has it (Debian "
               "fonts-noto-cjk) is not one sparkreport can embed");
    EXPECT(strstr(check_msg("\xED\x95\x9C"), "it is Korean (Hangul)") && strstr(check_msg("\xED\x95\x9C"), "fonts-noto-cjk"));
    EXPECT(strstr(check_msg("ab\xF0\x9F\x98\x80"), "3 (") && strstr(check_msg("\xF0\x9F\x98\x80"), "fonts-noto-color-emoji"));
    EXPECT(strstr(check_msg("\xD7\x90"), "it is Hebrew") != NULL);
    EXPECT_STR(check_msg("a\tb"), "2 (U+0009) is a control character");
    EXPECT_STR(check_msg("a\xC2\x85"), "2 (U+0085) is a control character");
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
/* A word wider than its line breaks between characters, never inside a pair. */
static void test_wrap_pairs(void)
{
    char *s = pdf_encode("ПППП");       /* 8 bytes, 4 characters */
    EXPECT_STR(wrapped(s, 3), "\x81\xCF|\x81\xCF|\x81\xCF|\x81\xCF");
    free(s);
}

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
    test_scripts();
    test_pages_match_libharu();
    test_check();
    test_wrap();
    test_wrap_pairs();
    test_units_stay();
    return CHECK_DONE();
}
