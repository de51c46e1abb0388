/* test_units.c: size parsing (binary and decimal prefixes, refusals) and the formats people
 * read in reports. */
#include "check.h"
#include "util/units.h"

static double size_of(const char *s)
{
    double b = -42;
    return units_parse_size(s, &b) == 0 ? b : -1;
}

int main(void)
{
    char buf[32];
    EXPECT_NEAR(size_of("4096"), 4096, 0);
    EXPECT_NEAR(size_of("64K"), 65536, 0);
    EXPECT_NEAR(size_of("64KiB"), 65536, 0);
    EXPECT_NEAR(size_of("2 MiB"), 2097152, 0);
    EXPECT_NEAR(size_of("1.5GB"), 1.5e9, 0);
    EXPECT_NEAR(size_of("1G"), 1073741824.0, 0);
    EXPECT_NEAR(size_of("1TiB"), 1099511627776.0, 0);
    EXPECT_NEAR(size_of("10 B"), 10, 0);
    EXPECT(size_of("-1") == -1);
    EXPECT(size_of("-1K") == -1);
    EXPECT(size_of("") == -1);
    EXPECT(size_of("abc") == -1);
    EXPECT(size_of("inf") == -1);
    EXPECT(size_of("nan") == -1);
    EXPECT(size_of("12XB") == -1);
    EXPECT(size_of("1e999") == -1);

    EXPECT_STR(units_format_bytes(512, buf, sizeof buf), "512 B");
    EXPECT_STR(units_format_bytes(65536, buf, sizeof buf), "64 KiB");
    EXPECT_STR(units_format_bytes(1536, buf, sizeof buf), "1.5 KiB");
    EXPECT_STR(units_format_bytes(150.0 * 1048576, buf, sizeof buf), "150 MiB");
    EXPECT_STR(units_format_bytes(3.5 * 1073741824.0, buf, sizeof buf), "3.5 GiB");
    /* issue 28: past PiB a short number, so a small buffer never cuts the unit off */
    EXPECT_STR(units_format_bytes(1.5e300, buf, sizeof buf), "1.33e+285 PiB");
    EXPECT_STR(units_format_bytes(2e21, buf, sizeof buf), "1.78e+06 PiB");
    EXPECT_STR(units_format_bytes(1e20, buf, sizeof buf), "88818 PiB");
    EXPECT_STR(units_format_bytes(12.25 * 1048576, buf, sizeof buf), "12.2 MiB");

    EXPECT_STR(units_format_duration(0.85, buf, sizeof buf), "850 ms");
    EXPECT_STR(units_format_duration(12.34, buf, sizeof buf), "12.3 s");
    EXPECT_STR(units_format_duration(245, buf, sizeof buf), "4m05s");
    EXPECT_STR(units_format_duration(3725, buf, sizeof buf), "1h02m");
    EXPECT_STR(units_format_duration(-1, buf, sizeof buf), "?");
    EXPECT_STR(units_format_duration(1e300, buf, sizeof buf), "2.78e+296 h");   /* no int overflow */
    return CHECK_DONE();
}
