/* check.h: the few macros the C unit tests share. A test program prints one line per failed
 * check (file:line, the expression, the values) and exits 1 if any failed, 77 to skip, else 0. */
#ifndef SR_TEST_CHECK_H
#define SR_TEST_CHECK_H

#include <math.h>
#include <stdio.h>
#include <string.h>

static int check_failures;

#define EXPECT(cond) \
    do { if (!(cond)) { check_failures++; \
        printf("%s:%d: expected %s\n", __FILE__, __LINE__, #cond); } } while (0)

#define EXPECT_NEAR(a, b, rel) \
    do { double a_ = (a), b_ = (b); \
        if (!(fabs(a_ - b_) <= (rel) * fmax(fabs(b_), 1e-300))) { check_failures++; \
            printf("%s:%d: %s = %.17g, expected %.17g (rel %g)\n", __FILE__, __LINE__, \
                   #a, a_, b_, (double)(rel)); } } while (0)

#define EXPECT_STR(a, b) \
    do { const char *a_ = (a), *b_ = (b); \
        if (!a_ || strcmp(a_, b_) != 0) { check_failures++; \
            printf("%s:%d: %s = \"%s\", expected \"%s\"\n", __FILE__, __LINE__, #a, \
                   a_ ? a_ : "(null)", b_); } } while (0)

#define CHECK_DONE() (check_failures ? (printf("%d check(s) failed\n", check_failures), 1) : 0)

#endif
