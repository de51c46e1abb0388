/* test_mwu.c: the Mann-Whitney U test against values R's wilcox.test documents and values
 * computed independently (Python 3: exact tails from the Gaussian binomial coefficients in
 * integer arithmetic, checked against full enumeration of C(15, 5) orderings; the normal
 * approximation from R's formula with math.erfc). */
#include "check.h"
#include "util/mwu.h"

int main(void)
{
    struct mwu r;

    /* R, ?wilcox.test (Hollander & Wolfe 1973, p. 69): wilcox.test(x, y, alternative = "g")
     * prints W = 35, p-value = 0.1272; two-sided p is twice that: 0.2544122544122544. */
    const double hx[] = { 0.80, 0.83, 1.89, 1.04, 1.45, 1.38, 1.91, 1.64, 0.73, 1.46 };
    const double hy[] = { 1.15, 0.88, 0.90, 0.74, 1.21 };
    EXPECT(mwu_test(hx, 10, hy, 5, &r) == 0);
    EXPECT_NEAR(r.w, 35, 0);
    EXPECT(r.exact && !r.ties);
    EXPECT_NEAR(r.p, 0.2544122544122544, 1e-12);
    EXPECT_NEAR(1.0 - mwu_cdf(34, 10, 5), 0.1272061272061272, 1e-12);

    /* R, ?wilcox.test: wilcox.test(Ozone ~ Month, data = airquality, subset = Month %in% c(5, 8))
     * prints W = 127.5, p-value = 0.0001208 (ties: normal approximation with corrections). */
    const double may[] = { 41, 36, 12, 18, 28, 23, 19, 8, 7, 16, 11, 14, 18, 14, 34, 6, 30, 11, 1,
                           11, 4, 32, 23, 45, 115, 37 };
    const double aug[] = { 39, 9, 16, 78, 35, 66, 122, 89, 110, 44, 28, 65, 22, 59, 23, 31, 44, 21,
                           9, 45, 168, 73, 76, 118, 84, 85 };
    EXPECT(mwu_test(may, 26, aug, 26, &r) == 0);
    EXPECT_NEAR(r.w, 127.5, 0);
    EXPECT(!r.exact && r.ties);
    EXPECT_NEAR(r.p, 0.00012080783076877465, 1e-9);

    /* Complete separation: the smallest p the sizes allow, 2 / C(10, 5) and 2 / C(20, 10). */
    const double lo5[] = { 1, 2, 3, 4, 5 }, hi5[] = { 6, 7, 8, 9, 10 };
    EXPECT(mwu_test(lo5, 5, hi5, 5, &r) == 0);
    EXPECT_NEAR(r.w, 0, 0);
    EXPECT_NEAR(r.p, 2.0 / 252.0, 1e-14);
    EXPECT_NEAR(r.min_p, 0.007936507936507936, 1e-14);
    EXPECT(mwu_test(hi5, 5, lo5, 5, &r) == 0 && r.w == 25);
    EXPECT_NEAR(r.p, 2.0 / 252.0, 1e-14);
    EXPECT_NEAR(mwu_min_p(10, 10), 1.082508822446903e-05, 1e-12);
    EXPECT_NEAR(mwu_min_p(3, 3), 0.1, 1e-14);   /* three a side can never reach p < 0.01 */

    /* 20 against 20, overlapping, no ties: x_i = 1 + 0.013 ((7i) mod 20),
     * y_i = 1.0501 + 0.013 ((11i) mod 20). Python: W = 136, p = 0.08591401998569383. */
    double x20[20], y20[20];
    for (int i = 0; i < 20; i++) {
        x20[i] = 1.00 + 0.013 * ((7 * i) % 20);
        y20[i] = 1.05 + 0.013 * ((11 * i) % 20) + 0.0001;
    }
    EXPECT(mwu_test(x20, 20, y20, 20, &r) == 0);
    EXPECT_NEAR(r.w, 136, 0);
    EXPECT(r.exact);
    EXPECT_NEAR(r.p, 0.08591401998569383, 1e-12);

    /* 60 against 55 without ties: beyond the exact range. Python: W = 1335, p = 0.07826177193711202. */
    double xa[60], ya[55];
    for (int i = 0; i < 60; i++)
        xa[i] = 2.0 + ((37 * i) % 60) / 60.0;
    for (int i = 0; i < 55; i++)
        ya[i] = 2.1 + ((23 * i) % 55) / 55.0 + 1e-4;
    EXPECT(mwu_test(xa, 60, ya, 55, &r) == 0);
    EXPECT_NEAR(r.w, 1335, 0);
    EXPECT(!r.exact && !r.ties);
    EXPECT_NEAR(r.p, 0.07826177193711202, 1e-9);

    /* pwilcox(3, 4, 5) = 7/126, pwilcox(10, 4, 5) = 69/126 (enumeration of C(9, 4) orderings). */
    EXPECT_NEAR(mwu_cdf(3, 4, 5), 0.05555555555555555, 1e-14);
    EXPECT_NEAR(mwu_cdf(10, 4, 5), 0.5476190476190477, 1e-14);
    EXPECT_NEAR(mwu_cdf(20, 4, 5), 1.0, 0);

    /* identical samples: no evidence of a change */
    EXPECT(mwu_test(hx, 10, hx, 10, &r) == 0);
    EXPECT_NEAR(r.w, 50, 0);
    EXPECT_NEAR(r.p, 1.0, 0);
    const double same[] = { 2, 2, 2 };
    EXPECT(mwu_test(same, 3, same, 3, &r) == 0 && r.p == 1.0);

    /* refused input */
    const double bad[] = { 1, NAN };
    EXPECT(mwu_test(bad, 2, hy, 5, &r) == -1);
    EXPECT(mwu_test(hx, 0, hy, 5, &r) == -1);
    return CHECK_DONE();
}
