/* check: the smallest test harness that says what failed and where. Each test file is one executable:
 *   static void test_something(void) { CHECK(x == 1); CHECK_NEAR(a, b, 1e-6); }
 *   int main(void) { RUN(test_something); return check_report(); }
 * A failed CHECK prints file:line and the expression and the test goes on, so one run shows every
 * failure. */
#ifndef MARIONETTE_CHECK_H
#define MARIONETTE_CHECK_H

#include <math.h>
#include <stdio.h>
#include <string.h>

static int check_failures;
static int check_count;

#define CHECK(expr)                                                                       \
    do {                                                                                  \
        ++check_count;                                                                    \
        if (!(expr)) {                                                                    \
            ++check_failures;                                                             \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #expr);      \
        }                                                                                 \
    } while (0)

#define CHECK_NEAR(a, b, tolerance)                                                       \
    do {                                                                                  \
        ++check_count;                                                                    \
        double check_a_ = (double)(a), check_b_ = (double)(b);                            \
        if (!(fabs(check_a_ - check_b_) <= (double)(tolerance))) {                        \
            ++check_failures;                                                             \
            fprintf(stderr, "%s:%d: CHECK_NEAR failed: %s = %.9g, %s = %.9g (tolerance %g)\n", \
                    __FILE__, __LINE__, #a, check_a_, #b, check_b_, (double)(tolerance)); \
        }                                                                                 \
    } while (0)

#define CHECK_STR_CONTAINS(haystack, needle)                                              \
    do {                                                                                  \
        ++check_count;                                                                    \
        const char *check_h_ = (haystack), *check_n_ = (needle);                          \
        if (!check_h_ || !strstr(check_h_, check_n_)) {                                   \
            ++check_failures;                                                             \
            fprintf(stderr, "%s:%d: CHECK_STR_CONTAINS failed: \"%s\" does not contain \"%s\"\n", \
                    __FILE__, __LINE__, check_h_ ? check_h_ : "(null)", check_n_);        \
        }                                                                                 \
    } while (0)

#define RUN(test)                                                                         \
    do {                                                                                  \
        int check_before_ = check_failures;                                               \
        test();                                                                           \
        printf("%s %s\n", check_failures == check_before_ ? "ok  " : "FAIL", #test);      \
    } while (0)

static inline int check_report(void)
{
    printf("%d checks, %d failed\n", check_count, check_failures);
    return check_failures ? 1 : 0;
}

#endif
