/* test_stats.c: summary statistics against hand-computed values, the t table, and the stop
 * rule's four outcomes. */
#include "check.h"
#include "util/stats.h"

int main(void)
{
    const double x[] = { 9, 2, 4, 4, 5, 4, 7, 5 };     /* sorted: 2 4 4 4 5 5 7 9 */
    struct stats s;
    stats_compute(x, 8, &s);
    EXPECT(s.n == 8);
    EXPECT_NEAR(s.min, 2, 0);
    EXPECT_NEAR(s.max, 9, 0);
    EXPECT_NEAR(s.median, 4.5, 0);
    EXPECT_NEAR(s.mean, 5, 1e-15);
    EXPECT_NEAR(s.sd, sqrt(32.0 / 7.0), 1e-14);         /* sum of squares 32, n - 1 = 7 */
    EXPECT_NEAR(s.cv, sqrt(32.0 / 7.0) / 5.0, 1e-14);
    EXPECT_NEAR(s.ci_lo, 5 - 2.365 * sqrt(32.0 / 7.0) / sqrt(8.0), 1e-12);
    EXPECT_NEAR(s.ci_hi, 5 + 2.365 * sqrt(32.0 / 7.0) / sqrt(8.0), 1e-12);

    stats_compute(x, 3, &s);                             /* 9 2 4: odd count */
    EXPECT_NEAR(s.median, 4, 0);
    stats_compute(x, 1, &s);
    EXPECT(s.cv == 0 && s.sd == 0 && s.ci_lo == 9 && s.ci_hi == 9);
    stats_compute(x, 0, &s);
    EXPECT(isnan(s.median));
    /* issue 28: two noisy times (t = 12.706 for n = 2): the interval of the mean would start below
     * 0; a time or a rate cannot, so ci_lo is clamped at 0. Signed data keep theirs. */
    const double two_times[] = { 1e-6, 9e-6 }, signed_x[] = { -1, 9 };
    stats_compute(two_times, 2, &s);
    EXPECT(s.ci_lo == 0 && s.ci_hi > 9e-6);
    stats_compute(signed_x, 2, &s);
    EXPECT_NEAR(s.ci_lo, 4 - 12.706 * sqrt(50.0) / sqrt(2.0), 1e-9);

    EXPECT_NEAR(stats_t95(1), 12.706, 0);
    EXPECT_NEAR(stats_t95(30), 2.042, 0);
    EXPECT_NEAR(stats_t95(60), 2.0003, 2e-4);          /* tables: 2.000 */
    EXPECT_NEAR(stats_t95(120), 1.9799, 2e-4);         /* tables: 1.980 */
    EXPECT(isnan(stats_t95(0)));

    struct stats_rule r = { 3, 6, 0.025, 1.0 };
    const double flat[] = { 1.0, 1.001, 0.999, 1.0, 1.0, 1.0 };
    const double noisy[] = { 1.0, 2.0, 1.0, 2.0, 1.0, 2.0 };
    EXPECT(stats_should_stop(&r, flat, 2, 0) == STATS_GO_ON);          /* below min_reps */
    EXPECT(stats_should_stop(&r, flat, 3, 0) == STATS_STOP_CV);
    EXPECT(stats_should_stop(&r, noisy, 3, 0.5) == STATS_GO_ON);
    EXPECT(stats_should_stop(&r, noisy, 3, 1.5) == STATS_STOP_BUDGET);
    EXPECT(stats_should_stop(&r, noisy, 6, 0) == STATS_STOP_MAX_REPS);
    EXPECT_STR(stats_stop_name(STATS_STOP_CV), "cv");
    return CHECK_DONE();
}
