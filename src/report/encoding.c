/* encoding.c: UTF-8 into the report's single-byte text. A character of CP1252 is its byte; one of
 * another script the fonts draw (Cyrillic, Greek, Central European, Turkish, Baltic) is a pair: a shift
 * byte (one of the five CP1252 leaves unassigned) and its byte in that script's Windows code page; the
 * rest becomes a close ASCII stand-in ("≥" -> ">=") or '?'. Drawn, a text is split into runs of one code
 * page (pdf_run), each in the font embedded with that page's encoding: libharu 2.3.0's UTF-8 mode writes
 * a ToUnicode map poppler rejects, while single-byte encodings extract cleanly. Measuring, wrapping and
 * drawing are text.c's; which characters a field may hold is said here (pdf_text_check). */
#include "report/internal.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BAD_CP 0xFFFFFFFFu      /* decode(): the byte is not the start of valid UTF-8 */

/* Code points of CP1252 bytes 0x80..0x9F; 0 marks the five bytes CP1252 leaves unassigned. */
static const unsigned short cp1252_high[32] = {
    0x20AC, 0, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021,
    0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0, 0x017D, 0,
    0, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014,
    0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0, 0x017E, 0x0178,
};

/* The other code pages, tried in this order for a character CP1252 lacks: libharu's encoder name, the
 * shift byte that marks a pair of it, and the code points of its bytes 0x80..0xFF (0: unassigned), as
 * libharu's encoders have them (tests/unit/test_text.c compares the two). Page k of the report is
 * pages[k - 1]; page 0 is CP1252. */
static const struct page {
    const char *encoder;
    unsigned char shift;
    unsigned short high[128];
} pages[PDF_PAGES - 1] = {
    { "CP1251", 0x81, {  /* Cyrillic */
        0x0402, 0x0403, 0x201A, 0x0453, 0x201E, 0x2026, 0x2020, 0x2021,
        0x20AC, 0x2030, 0x0409, 0x2039, 0x040A, 0x040C, 0x040B, 0x040F,
        0x0452, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014,
        0x0000, 0x2122, 0x0459, 0x203A, 0x045A, 0x045C, 0x045B, 0x045F,
        0x00A0, 0x040E, 0x045E, 0x0408, 0x00A4, 0x0490, 0x00A6, 0x00A7,
        0x0401, 0x00A9, 0x0404, 0x00AB, 0x00AC, 0x00AD, 0x00AE, 0x0407,
        0x00B0, 0x00B1, 0x0406, 0x0456, 0x0491, 0x00B5, 0x00B6, 0x00B7,
        0x0451, 0x2116, 0x0454, 0x00BB, 0x0458, 0x0405, 0x0455, 0x0457,
        0x0410, 0x0411, 0x0412, 0x0413, 0x0414, 0x0415, 0x0416, 0x0417,
        0x0418, 0x0419, 0x041A, 0x041B, 0x041C, 0x041D, 0x041E, 0x041F,
        0x0420, 0x0421, 0x0422, 0x0423, 0x0424, 0x0425, 0x0426, 0x0427,
        0x0428, 0x0429, 0x042A, 0x042B, 0x042C, 0x042D, 0x042E, 0x042F,
        0x0430, 0x0431, 0x0432, 0x0433, 0x0434, 0x0435, 0x0436, 0x0437,
        0x0438, 0x0439, 0x043A, 0x043B, 0x043C, 0x043D, 0x043E, 0x043F,
        0x0440, 0x0441, 0x0442, 0x0443, 0x0444, 0x0445, 0x0446, 0x0447,
        0x0448, 0x0449, 0x044A, 0x044B, 0x044C, 0x044D, 0x044E, 0x044F,
    } },
    { "CP1253", 0x8D, {  /* Greek */
        0x20AC, 0x0000, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021,
        0x0000, 0x2030, 0x0000, 0x2039, 0x0000, 0x0000, 0x0000, 0x0000,
        0x0000, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014,
        0x0000, 0x2122, 0x0000, 0x203A, 0x0000, 0x0000, 0x0000, 0x0000,
        0x00A0, 0x0385, 0x0386, 0x00A3, 0x00A4, 0x00A5, 0x00A6, 0x00A7,
        0x00A8, 0x00A9, 0x0000, 0x00AB, 0x00AC, 0x00AD, 0x00AE, 0x2015,
        0x00B0, 0x00B1, 0x00B2, 0x00B3, 0x0384, 0x00B5, 0x00B6, 0x00B7,
        0x0388, 0x0389, 0x038A, 0x00BB, 0x038C, 0x00BD, 0x038E, 0x038F,
        0x0390, 0x0391, 0x0392, 0x0393, 0x0394, 0x0395, 0x0396, 0x0397,
        0x0398, 0x0399, 0x039A, 0x039B, 0x039C, 0x039D, 0x039E, 0x039F,
        0x03A0, 0x03A1, 0x0000, 0x03A3, 0x03A4, 0x03A5, 0x03A6, 0x03A7,
        0x03A8, 0x03A9, 0x03AA, 0x03AB, 0x03AC, 0x03AD, 0x03AE, 0x03AF,
        0x03B0, 0x03B1, 0x03B2, 0x03B3, 0x03B4, 0x03B5, 0x03B6, 0x03B7,
        0x03B8, 0x03B9, 0x03BA, 0x03BB, 0x03BC, 0x03BD, 0x03BE, 0x03BF,
        0x03C0, 0x03C1, 0x03C2, 0x03C3, 0x03C4, 0x03C5, 0x03C6, 0x03C7,
        0x03C8, 0x03C9, 0x03CA, 0x03CB, 0x03CC, 0x03CD, 0x03CE, 0x0000,
    } },
    { "CP1250", 0x8F, {  /* Central European Latin */
        0x20AC, 0x0000, 0x201A, 0x0000, 0x201E, 0x2026, 0x2020, 0x2021,
        0x0000, 0x2030, 0x0160, 0x2039, 0x015A, 0x0164, 0x017D, 0x0179,
        0x0000, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014,
        0x0000, 0x2122, 0x0161, 0x203A, 0x015B, 0x0165, 0x017E, 0x017A,
        0x00A0, 0x02C7, 0x02D8, 0x0141, 0x00A4, 0x0104, 0x00A6, 0x00A7,
        0x00A8, 0x00A9, 0x015E, 0x00AB, 0x00AC, 0x00AD, 0x00AE, 0x017B,
        0x00B0, 0x00B1, 0x02DB, 0x0142, 0x00B4, 0x00B5, 0x00B6, 0x00B7,
        0x00B8, 0x0105, 0x015F, 0x00BB, 0x013D, 0x02DD, 0x013E, 0x017C,
        0x0154, 0x00C1, 0x00C2, 0x0102, 0x00C4, 0x0139, 0x0106, 0x00C7,
        0x010C, 0x00C9, 0x0118, 0x00CB, 0x011A, 0x00CD, 0x00CE, 0x010E,
        0x0110, 0x0143, 0x0147, 0x00D3, 0x00D4, 0x0150, 0x00D6, 0x00D7,
        0x0158, 0x016E, 0x00DA, 0x0170, 0x00DC, 0x00DD, 0x0162, 0x00DF,
        0x0155, 0x00E1, 0x00E2, 0x0103, 0x00E4, 0x013A, 0x0107, 0x00E7,
        0x010D, 0x00E9, 0x0119, 0x00EB, 0x011B, 0x00ED, 0x00EE, 0x010F,
        0x0111, 0x0144, 0x0148, 0x00F3, 0x00F4, 0x0151, 0x00F6, 0x00F7,
        0x0159, 0x016F, 0x00FA, 0x0171, 0x00FC, 0x00FD, 0x0163, 0x02D9,
    } },
    { "CP1254", 0x90, {  /* Turkish */
        0x20AC, 0x0000, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021,
        0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0x0000, 0x0000, 0x0000,
        0x0000, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014,
        0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x0000, 0x0000, 0x0178,
        0x00A0, 0x00A1, 0x00A2, 0x00A3, 0x00A4, 0x00A5, 0x00A6, 0x00A7,
        0x00A8, 0x00A9, 0x00AA, 0x00AB, 0x00AC, 0x00AD, 0x00AE, 0x00AF,
        0x00B0, 0x00B1, 0x00B2, 0x00B3, 0x00B4, 0x00B5, 0x00B6, 0x00B7,
        0x00B8, 0x00B9, 0x00BA, 0x00BB, 0x00BC, 0x00BD, 0x00BE, 0x00BF,
        0x00C0, 0x00C1, 0x00C2, 0x00C3, 0x00C4, 0x00C5, 0x00C6, 0x00C7,
        0x00C8, 0x00C9, 0x00CA, 0x00CB, 0x00CC, 0x00CD, 0x00CE, 0x00CF,
        0x011E, 0x00D1, 0x00D2, 0x00D3, 0x00D4, 0x00D5, 0x00D6, 0x00D7,
        0x00D8, 0x00D9, 0x00DA, 0x00DB, 0x00DC, 0x0130, 0x015E, 0x00DF,
        0x00E0, 0x00E1, 0x00E2, 0x00E3, 0x00E4, 0x00E5, 0x00E6, 0x00E7,
        0x00E8, 0x00E9, 0x00EA, 0x00EB, 0x00EC, 0x00ED, 0x00EE, 0x00EF,
        0x011F, 0x00F1, 0x00F2, 0x00F3, 0x00F4, 0x00F5, 0x00F6, 0x00F7,
        0x00F8, 0x00F9, 0x00FA, 0x00FB, 0x00FC, 0x0131, 0x015F, 0x00FF,
    } },
    { "CP1257", 0x9D, {  /* Baltic */
        0x20AC, 0x0000, 0x201A, 0x0000, 0x201E, 0x2026, 0x2020, 0x2021,
        0x0000, 0x2030, 0x0000, 0x2039, 0x0000, 0x00A8, 0x02C7, 0x00B8,
        0x0000, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014,
        0x0000, 0x2122, 0x0000, 0x203A, 0x0000, 0x00AF, 0x02DB, 0x0000,
        0x00A0, 0x0000, 0x00A2, 0x00A3, 0x00A4, 0x0000, 0x00A6, 0x00A7,
        0x00D8, 0x00A9, 0x0156, 0x00AB, 0x00AC, 0x00AD, 0x00AE, 0x00C6,
        0x00B0, 0x00B1, 0x00B2, 0x00B3, 0x00B4, 0x00B5, 0x00B6, 0x00B7,
        0x00F8, 0x00B9, 0x0157, 0x00BB, 0x00BC, 0x00BD, 0x00BE, 0x00E6,
        0x0104, 0x012E, 0x0100, 0x0106, 0x00C4, 0x00C5, 0x0118, 0x0112,
        0x010C, 0x00C9, 0x0179, 0x0116, 0x0122, 0x0136, 0x012A, 0x013B,
        0x0160, 0x0143, 0x0145, 0x00D3, 0x014C, 0x00D5, 0x00D6, 0x00D7,
        0x0172, 0x0141, 0x015A, 0x016A, 0x00DC, 0x017B, 0x017D, 0x00DF,
        0x0105, 0x012F, 0x0101, 0x0107, 0x00E4, 0x00E5, 0x0119, 0x0113,
        0x010D, 0x00E9, 0x017A, 0x0117, 0x0123, 0x0137, 0x012B, 0x013C,
        0x0161, 0x0144, 0x0146, 0x00F3, 0x014D, 0x00F5, 0x00F6, 0x00F7,
        0x0173, 0x0142, 0x015B, 0x016B, 0x00FC, 0x017C, 0x017E, 0x02D9,
    } },
};

/* Stand-ins for characters no page has that reports are likely to contain. A reader must still get
 * the meaning, so "≥" becomes ">=", not "?". Bytes >= 0x80 here are CP1252. */
static const struct { unsigned cp; const char *text; } fallbacks[] = {
    { 0x200B, "" }, { 0x200C, "" }, { 0x200D, "" }, { 0x2060, "" }, { 0xFEFF, "" },
    { 0x2010, "-" }, { 0x2011, "-" }, { 0x2012, "\x96" }, { 0x2015, "\x97" },
    { 0x202F, " " }, { 0x205F, " " }, { 0x3000, " " },
    { 0x2032, "'" }, { 0x2033, "\"" }, { 0x2044, "/" }, { 0x207B, "^-" },
    { 0x2103, "\xB0" "C" }, { 0x2126, "Ohm" },
    { 0x2190, "<-" }, { 0x2192, "->" }, { 0x2194, "<->" }, { 0x21D0, "<=" }, { 0x21D2, "=>" },
    { 0x2211, "sum" }, { 0x2212, "-" }, { 0x2215, "/" }, { 0x2217, "*" }, { 0x2219, "\xB7" },
    { 0x221A, "sqrt" }, { 0x221E, "inf" }, { 0x223C, "~" }, { 0x2243, "~" }, { 0x2248, "~" },
    { 0x2260, "!=" }, { 0x2264, "<=" }, { 0x2265, ">=" }, { 0x226A, "<<" }, { 0x226B, ">>" },
    { 0x22C5, "\xB7" }, { 0x2713, "ok" }, { 0x2717, "x" },
};

/* Decodes one character; returns the bytes it used. Overlong forms, surrogates and stray
 * continuation bytes give BAD_CP for one byte, so every invalid byte becomes one '?'. */
static int decode(const unsigned char *s, unsigned *cp)
{
    unsigned c = s[0], min;
    int len;
    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    if (c >= 0xC2 && c <= 0xDF)
        len = 2, *cp = c & 0x1F, min = 0x80;
    else if (c >= 0xE0 && c <= 0xEF)
        len = 3, *cp = c & 0x0F, min = 0x800;
    else if (c >= 0xF0 && c <= 0xF4)
        len = 4, *cp = c & 0x07, min = 0x10000;
    else
        return *cp = BAD_CP, 1;
    for (int i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80)      /* also stops at the terminating NUL */
            return *cp = BAD_CP, 1;
        *cp = (*cp << 6) | (s[i] & 0x3Fu);
    }
    if (*cp < min || *cp > 0x10FFFF || (*cp >= 0xD800 && *cp <= 0xDFFF))
        return *cp = BAD_CP, 1;
    return len;
}

/* The report's text for one code point: a CP1252 byte or a page's pair written into one[], or a
 * stand-in. */
static const char *encode(unsigned cp, char one[3])
{
    one[1] = one[2] = '\0';
    if (cp < 0x80 || (cp >= 0xA1 && cp <= 0xFF && cp != 0xAD)) {
        one[0] = (char)cp;
        return one;
    }
    if (cp == 0xA0 || (cp >= 0x2000 && cp <= 0x200A))
        return " ";                     /* nbsp and the typographic spaces */
    if (cp == 0xAD)
        return "";                      /* soft hyphen: invisible unless the line breaks */
    if (cp >= 0x2080 && cp <= 0x2089) { /* subscript digits: "log₂" reads as "log2" */
        one[0] = (char)('0' + (cp - 0x2080));
        return one;
    }
    for (int i = 0; i < 32; i++)
        if (cp1252_high[i] && cp1252_high[i] == cp) {
            one[0] = (char)(0x80 + i);
            return one;
        }
    for (int k = 0; k < PDF_PAGES - 1; k++)
        for (int i = 0; i < 128; i++)
            if (pages[k].high[i] == cp) {
                one[0] = (char)pages[k].shift;
                one[1] = (char)(0x80 + i);
                return one;
            }
    for (size_t i = 0; i < sizeof fallbacks / sizeof fallbacks[0]; i++)
        if (fallbacks[i].cp == cp)
            return fallbacks[i].text;
    return "?";
}

size_t pdf_utf8_encode(const char *utf8, char *out, size_t outlen)
{
    const unsigned char *s = (const unsigned char *)(utf8 ? utf8 : "");
    size_t n = 0;
    if (!out || outlen == 0)
        return 0;
    while (*s) {
        unsigned cp;
        char one[3];
        int used = decode(s, &cp);
        const char *rep = cp == BAD_CP ? "?" : encode(cp, one);
        size_t m = strlen(rep);
        if (n + m >= outlen)            /* a stand-in or a pair is written whole or not at all */
            break;
        memcpy(out + n, rep, m);
        n += m;
        s += used;
    }
    out[n] = '\0';
    return n;
}

char *pdf_encode(const char *utf8)
{
    size_t len = utf8 ? strlen(utf8) : 0, j = 0;
    /* The longest stand-in ("sqrt", 4 bytes) replaces 3 bytes of UTF-8, a pair 2: 4x always fits. */
    CHECK(len < SIZE_MAX / 4 - 1);
    char *out = xmalloc(4 * len + 1);
    size_t n = pdf_utf8_encode(utf8, out, 4 * len + 1);
    for (size_t i = 0; i < n; i++) {    /* a pair's second byte is >= 0x80: never touched here */
        unsigned char c = (unsigned char)out[i];
        if (c == '\r')
            continue;
        out[j++] = (c < 0x20 && c != '\n' && c != '\t') || c == 0x7F ? '?' : (char)c;
    }
    out[j] = '\0';
    return out;
}

int pdf_shift_page(unsigned char c)
{
    for (int k = 0; k < PDF_PAGES - 1; k++)
        if (pages[k].shift == c)
            return k + 1;
    return 0;
}

const char *pdf_page_encoder(int page)
{
    return page > 0 && page < PDF_PAGES ? pages[page - 1].encoder : "CP1252";
}

size_t pdf_char_floor(const char *s, size_t i)
{
    size_t j = 0;
    while (j < i) {
        size_t step = pdf_shift_page((unsigned char)s[j]) && s[j + 1] ? 2 : 1;
        if (j + step > i)
            break;
        j += step;
    }
    return j;
}

/* The page of the character at s[i] of s[0..n): a pair's, or 0 (a shift byte cut from its pair too). */
static int unit_page(const char *s, size_t n, size_t i)
{
    int k = pdf_shift_page((unsigned char)s[i]);
    return k && i + 1 < n ? k : 0;
}

size_t pdf_run(const char *s, size_t n, int *page, char *buf, size_t *len)
{
    size_t i = 0;
    *len = 0;
    *page = n ? unit_page(s, n, 0) : 0;
    while (i < n && unit_page(s, n, i) == *page) {
        if (*page) {                    /* a pair: its byte in the page */
            buf[(*len)++] = s[i + 1];
            i += 2;
        } else {
            if (!pdf_shift_page((unsigned char)s[i]))   /* a shift byte cut from its pair: nothing */
                buf[(*len)++] = s[i];
            i++;
        }
    }
    return i;
}

/* The code point of the character at s (encoded), and its bytes in *used. */
static unsigned unit_cp(const unsigned char *s, size_t *used)
{
    int k = pdf_shift_page(s[0]);
    *used = k && s[1] ? 2 : 1;
    if (*used == 2)
        return pages[k - 1].high[s[1] - 0x80];
    return s[0] >= 0x80 && s[0] < 0xA0 ? cp1252_high[s[0] - 0x80] : s[0];
}

int pdf_to_page(const char *s, char *out)
{
    int page = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p && !page; p++)
        page = p[1] ? pdf_shift_page(*p) : 0;
    size_t j = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        size_t used;
        unsigned cp = unit_cp(p, &used);
        char c = '?';
        if (cp < 0x80 || page == 0)
            c = used == 1 ? (char)p[0] : '?';
        else
            for (int i = 0; i < 128; i++)
                if (pages[page - 1].high[i] == cp)
                    c = (char)(0x80 + i);
        out[j++] = c;
        p += used;
    }
    out[j] = '\0';
    return page;
}

int pdf_exact(const char *utf8)
{
    const unsigned char *s = (const unsigned char *)utf8;
    while (*s) {
        unsigned cp;
        char one[3];
        int used = decode(s, &cp);
        const char *rep = cp == BAD_CP || cp < 0x20 || cp == 0x7F ? "" : encode(cp, one);
        if (!(rep == one && (one[0] != '?' || cp == '?')))
            return 0;                   /* a stand-in, nothing, or '?' */
        s += used;
    }
    return 1;
}

/* libharu names each byte of a single-byte encoding's glyphs, and poppler reads text from the names:
 * that works for every page but one name, Greek mu's "mu", which the Adobe Glyph List gives the micro
 * sign (a Greek word with a mu would extract with U+00B5). A ToUnicode CMap, which a reader prefers to
 * names, says each byte's character outright; libharu writes none for a single-byte TrueType font, so
 * this adds one to a page's font (pages other than CP1252, whose names all read right: its PDFs stay as
 * they were). libharu's own object API (hpdf_objects.h), as libharu builds its streams. */
void pdf_page_tounicode(HPDF_Doc pdf, HPDF_Font font, int page)
{
    char line[64];
    int n = 0;
    unsigned cps[256];
    for (int b = 0x20; b < 0x100; b++) {
        unsigned cp = b < 0x7F ? (unsigned)b : b >= 0x80 ? pages[page - 1].high[b - 0x80] : 0;
        if (cp)
            cps[n++] = (unsigned)b << 16 | cp;
    }
    HPDF_Dict cmap = HPDF_DictStream_New(pdf->mmgr, pdf->xref);
    if (!cmap || HPDF_Dict_Add(font, "ToUnicode", cmap) != HPDF_OK)
        return;                         /* libharu's error handler has it */
    if (pdf->compression_mode & HPDF_COMP_TEXT)
        cmap->filter = HPDF_STREAM_FILTER_FLATE_DECODE;
    HPDF_Stream st = cmap->stream;
    HPDF_Stream_WriteStr(st, "/CIDInit /ProcSet findresource begin\n12 dict begin\nbegincmap\n"
                         "/CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def\n"
                         "/CMapName /Adobe-Identity-UCS def\n/CMapType 2 def\n"
                         "1 begincodespacerange\n<00> <FF>\nendcodespacerange\n");
    for (int i = 0; i < n; i += 100) {  /* at most 100 entries a block */
        snprintf(line, sizeof line, "%d beginbfchar\n", n - i < 100 ? n - i : 100);
        HPDF_Stream_WriteStr(st, line);
        for (int j = i; j < n && j < i + 100; j++) {
            snprintf(line, sizeof line, "<%02X> <%04X>\n", cps[j] >> 16, cps[j] & 0xFFFF);
            HPDF_Stream_WriteStr(st, line);
        }
        HPDF_Stream_WriteStr(st, "endbfchar\n");
    }
    HPDF_Stream_WriteStr(st, "endcmap\nCMapName currentdict /CMap defineresource pop\nend\nend\n");
}

/* ---- which characters a text may hold ------------------------------------------------- */

/* Scripts no page has, with the Debian package of a font that draws them. */
static const struct { unsigned lo, hi; const char *script, *package; } missing[] = {
    { 0x1100, 0x11FF, "Korean (Hangul)", "fonts-noto-cjk" }, { 0x2E80, 0x2FFF, "CJK", "fonts-noto-cjk" },
    { 0x3000, 0x30FF, "CJK", "fonts-noto-cjk" }, { 0x3100, 0x9FFF, "CJK", "fonts-noto-cjk" },
    { 0xA000, 0xA4CF, "Yi", "fonts-noto-core" }, { 0xAC00, 0xD7AF, "Korean (Hangul)", "fonts-noto-cjk" },
    { 0xF900, 0xFAFF, "CJK", "fonts-noto-cjk" }, { 0xFE30, 0xFE4F, "CJK", "fonts-noto-cjk" },
    { 0xFF00, 0xFFEF, "CJK (full width)", "fonts-noto-cjk" }, { 0x20000, 0x3FFFF, "CJK", "fonts-noto-cjk" },
    { 0x1F000, 0x1FAFF, "an emoji", "fonts-noto-color-emoji" }, { 0x2600, 0x27BF, "a symbol", "fonts-noto-color-emoji" },
    { 0x0590, 0x05FF, "Hebrew", "fonts-noto-core" }, { 0x0600, 0x06FF, "Arabic", "fonts-noto-core" },
    { 0x0900, 0x097F, "Devanagari", "fonts-noto-core" }, { 0x0E00, 0x0E7F, "Thai", "fonts-noto-core" },
};

int pdf_text_check(const char *utf8, size_t *at, char *why, size_t whylen)
{
    const unsigned char *s = (const unsigned char *)utf8;
    *at = 0;
    while (*s) {
        unsigned cp;
        char one[3];
        int used = decode(s, &cp);
        ++*at;
        if (cp == BAD_CP) {
            snprintf(why, whylen, "is not valid UTF-8");
            return -1;
        }
        if (cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp < 0xA0)) {
            snprintf(why, whylen, "(U+%04X) is a control character", cp);
            return -1;
        }
        if (cp >= 0x0300 && cp <= 0x036F) {    /* text in decomposed form (NFD), as macOS may give it */
            snprintf(why, whylen, "(U+%04X) is a combining mark: write the letter it marks precomposed "
                     "(Unicode NFC: \"\xC3\xA9\", not \"e\" and U+0301)", cp);
            return -1;
        }
        if (strcmp(encode(cp, one), "?") == 0 && cp != '?') {
            const char *script = "a script", *package = "fonts-noto-core";
            for (size_t i = 0; i < sizeof missing / sizeof missing[0]; i++)
                if (cp >= missing[i].lo && cp <= missing[i].hi)
                    script = missing[i].script, package = missing[i].package;
            snprintf(why, whylen, "('%.*s', U+%04X) cannot be drawn: it is %s, and the report's fonts (DejaVu, "
                     "Debian fonts-dejavu-core) draw Latin, Greek and Cyrillic; a font that has it (Debian %s) is "
                     "not one sparkreport can embed", used, (const char *)s, cp, script, package);
            return -1;
        }
        s += used;
    }
    return 0;
}
