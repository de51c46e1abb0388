/* mwu.h: the two-sided Mann-Whitney U (Wilcoxon rank-sum) test on two samples, computed as R's
 * wilcox.test(x, y) does: the exact null distribution when both samples have fewer than
 * MWU_EXACT_MAX values and no ties, else the normal approximation with tie and continuity
 * correction. What counts as a significant change is the caller's decision (compare.lua). */
#ifndef SR_MWU_H
#define SR_MWU_H

#define MWU_EXACT_MAX 50        /* exact distribution when nx and ny are both below this */

struct mwu {
    double w;                   /* U of x: pairs with x > y, ties counted 1/2 (R's W) */
    double p;                   /* two-sided p-value */
    double z;                   /* standardised, continuity-corrected W; 0 when exact */
    int exact;                  /* 1: exact distribution; 0: normal approximation */
    int ties;                   /* 1 when some value occurs more than once in x and y together */
    double min_p;               /* smallest two-sided p these sample sizes can give (no ties) */
};

/* Returns 0, or -1 when a sample is empty or holds a value that is not finite. */
int mwu_test(const double *x, int nx, const double *y, int ny, struct mwu *r);

/* P(U <= u) under the null hypothesis for sample sizes m and n (R's pwilcox(u, m, n)). */
double mwu_cdf(double u, int m, int n);

/* The smallest two-sided p-value samples of m and n values can reach: 2 / C(m+n, m), at most 1.
 * Below the caller's alpha, a test on so few values cannot find any change. */
double mwu_min_p(int m, int n);

#endif
