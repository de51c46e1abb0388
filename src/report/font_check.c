/* font_check.c: a TrueType file checked before libharu reads it, which trusts every offset and
 * count in it (a damaged header or table directory crashes it: SIGFPE, SIGSEGV, heap abort).
 * Checks the sfnt header, the table directory (bounds, checksums), the tables libharu reads and
 * the fields it divides by or indexes with. Loading and embedding stay document.c's. */
#include "report/report.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/error.h"

#define MAX_TABLES 64

struct font {
    const uint8_t *p;
    size_t size;
    struct { uint32_t tag, sum, off, len; } t[MAX_TABLES];
    int n;
};

static uint32_t u16(const uint8_t *p) { return (uint32_t)p[0] << 8 | p[1]; }
static uint32_t u32(const uint8_t *p) { return u16(p) << 16 | u16(p + 2); }
static uint32_t tag_of(const char *s) { return u32((const uint8_t *)s); }

/* The table `name`, at least `min` bytes long: its bytes and length, or NULL. */
static const uint8_t *table(const struct font *f, const char *name, uint32_t min, uint32_t *len)
{
    for (int i = 0; i < f->n; i++)
        if (f->t[i].tag == tag_of(name) && f->t[i].len >= min) {
            *len = f->t[i].len;
            return f->p + f->t[i].off;
        }
    return NULL;
}

/* The sum of a table's big-endian words, the last padded with zeros; head without its
 * checksumAdjustment (bytes 8..11), as the format defines it. */
static uint32_t checksum(const struct font *f, int i)
{
    uint32_t s = 0, len = f->t[i].len;
    const uint8_t *p = f->p + f->t[i].off;
    for (uint32_t o = 0; o < len; o += 4) {
        uint8_t w[4] = { 0, 0, 0, 0 };
        memcpy(w, p + o, len - o < 4 ? len - o : 4);
        if (!(f->t[i].tag == tag_of("head") && o == 8))
            s += u32(w);
    }
    return s;
}

static const char *directory(struct font *f)
{
    static const char *const need[] = { "head", "hhea", "maxp", "cmap", "hmtx", "loca", "glyf", "name", "post", "OS/2" };
    static char why[96];
    uint32_t ver = f->size >= 12 ? u32(f->p) : 0, len;
    if (ver != 0x00010000 && ver != tag_of("true"))
        return ver == tag_of("OTTO") ? "it is an OpenType font with CFF outlines; libharu reads TrueType outlines only"
                                     : "its header is not a TrueType header (sfnt version 0x00010000 or 'true')";
    f->n = (int)u16(f->p + 4);
    if (f->n < 1 || f->n > MAX_TABLES || 12 + 16 * (size_t)f->n > f->size)
        return "its table count (numTables) is zero, above 64, or runs past the end of the file";
    for (int i = 0; i < f->n; i++) {
        const uint8_t *r = f->p + 12 + 16 * i;
        f->t[i].tag = u32(r), f->t[i].sum = u32(r + 4), f->t[i].off = u32(r + 8), f->t[i].len = u32(r + 12);
        if ((uint64_t)f->t[i].off + f->t[i].len > f->size || f->t[i].off < 12 + 16 * (uint32_t)f->n)
            return sr_fmt(why, sizeof why, "table %d of its directory lies outside the file", i + 1);
        if (checksum(f, i) != f->t[i].sum)
            return sr_fmt(why, sizeof why, "table '%.4s' does not match its checksum (the file is damaged)", r);
    }
    for (size_t i = 0; i < sizeof need / sizeof *need; i++)
        if (!table(f, need[i], 1, &len))
            return sr_fmt(why, sizeof why, "it has no '%s' table, which libharu needs", need[i]);
    return NULL;
}

/* head, maxp, hhea, hmtx, loca, glyf: the fields libharu divides by and indexes with. */
static const char *metrics(const struct font *f)
{
    uint32_t hl, ml, hhl, hmx, ll, gl, ol, pl;
    const uint8_t *head = table(f, "head", 54, &hl), *maxp = table(f, "maxp", 6, &ml);
    const uint8_t *hhea = table(f, "hhea", 36, &hhl), *loca = table(f, "loca", 1, &ll);
    if (!head || u32(head + 12) != 0x5F0F3CF5)
        return "its 'head' table is short or lacks the magic number";
    if (u16(head + 18) < 16 || u16(head + 18) > 16384)
        return "its unitsPerEm ('head') is outside 16 .. 16384";
    if (u16(head + 50) > 1)
        return "its indexToLocFormat ('head') is neither 0 nor 1";
    if (!maxp || u16(maxp + 4) == 0 || !hhea)
        return "its 'maxp' or 'hhea' table is short, or it has no glyphs";
    uint32_t glyphs = u16(maxp + 4), hm = u16(hhea + 34), wide = u16(head + 50);
    if (hm == 0 || hm > glyphs || !table(f, "hmtx", 1, &hmx) || hmx < 4 * hm + 2 * (glyphs - hm))
        return "its horizontal metrics (numberOfHMetrics, 'hmtx') do not cover its glyphs";
    if (!table(f, "glyf", 0, &gl) || !loca || ll < (glyphs + 1) * (wide ? 4 : 2))
        return "its 'loca' table is shorter than its glyph count needs";
    for (uint32_t g = 0, prev = 0; g <= glyphs; g++) {
        uint32_t at = wide ? u32(loca + 4 * g) : 2 * u16(loca + 2 * g);
        if (at < prev || at > gl)
            return "its 'loca' table points outside the 'glyf' table";
        prev = at;
    }
    if (!table(f, "OS/2", 78, &ol) || !table(f, "post", 32, &pl))
        return "its 'OS/2' or 'post' table is shorter than their first version";
    return NULL;
}

/* cmap: the subtable directory, and the Unicode BMP subtable (3, 1, format 4) libharu maps
 * characters with, its segment arrays inside it. */
static const char *cmap(const struct font *f)
{
    uint32_t cl;
    const uint8_t *c = table(f, "cmap", 4, &cl);
    uint32_t n = c ? u16(c + 2) : 0;
    if (!c || 4 + 8 * n > cl)
        return "its 'cmap' table directory runs past the table";
    for (uint32_t i = 0; i < n; i++) {
        const uint8_t *e = c + 4 + 8 * i;
        uint32_t off = u32(e + 4);
        if (u16(e) != 3 || u16(e + 2) != 1)
            continue;
        if ((uint64_t)off + 14 > cl || u16(c + off) != 4)
            return "its Unicode 'cmap' subtable (3, 1) is outside the table or not format 4";
        uint32_t len = u16(c + off + 2), segs2 = u16(c + off + 6);
        if ((uint64_t)off + len > cl || segs2 == 0 || segs2 % 2 || 16 + 4 * segs2 > len)
            return "its Unicode 'cmap' subtable has a length or segment count that does not fit";
        return NULL;
    }
    return "it has no Unicode 'cmap' subtable (platform 3, encoding 1)";
}

/* name: its records and their strings inside the table. */
static const char *names(const struct font *f)
{
    uint32_t nl;
    const uint8_t *t = table(f, "name", 6, &nl);
    uint32_t n = t ? u16(t + 2) : 0, strings = t ? u16(t + 4) : 0;
    if (!t || 6 + 12 * n > nl || strings > nl)
        return "its 'name' table is shorter than its records";
    for (uint32_t i = 0; i < n; i++) {
        const uint8_t *r = t + 6 + 12 * i;
        if (strings + u16(r + 10) + u16(r + 8) > nl)
            return "a string of its 'name' table lies outside the table";
    }
    return NULL;
}

#define FONT_MAX_BYTES (64u << 20)

/* The whole file, opened without blocking and checked to be a regular file of sane size. */
static uint8_t *slurp(const char *path, size_t *size, char *err, size_t errlen)
{
    struct stat st;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    uint8_t *p = NULL;
    if (fd < 0 || fstat(fd, &st) != 0)
        sr_fmt(err, errlen, "%s: %s", path, strerror(errno));
    else if (!S_ISREG(st.st_mode))
        sr_fmt(err, errlen, "%s: not a regular file (a font must be a TrueType file)", path);
    else if (st.st_size < 12 || st.st_size > (off_t)FONT_MAX_BYTES)
        sr_fmt(err, errlen, "%s: %lld bytes; a TrueType font here is 12 bytes to 64 MiB", path, (long long)st.st_size);
    else if (!(p = malloc((size_t)st.st_size)))
        sr_fmt(err, errlen, "%s: out of memory reading %lld bytes", path, (long long)st.st_size);
    else if (read(fd, p, (size_t)st.st_size) != (ssize_t)st.st_size) {
        sr_fmt(err, errlen, "%s: cannot read: %s", path, errno ? strerror(errno) : "short read");
        free(p);
        p = NULL;
    }
    *size = p ? (size_t)st.st_size : 0;
    if (fd >= 0)
        close(fd);
    return p;
}

int pdf_font_check(const char *path, char *err, size_t errlen)
{
    struct font f = { 0 };
    uint8_t *p = slurp(path, &f.size, err, errlen);
    if (!p)
        return -1;
    f.p = p;
    const char *why = directory(&f);
    if (!why)
        why = metrics(&f);
    if (!why)
        why = cmap(&f);
    if (!why)
        why = names(&f);
    if (why)
        sr_fmt(err, errlen, "%s: not a usable TrueType font: %s", path, why);
    free(p);
    return why ? -1 : 0;
}
