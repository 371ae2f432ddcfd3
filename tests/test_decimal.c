/* base/decimal: the numbers the files document, and nothing strtod reads beyond them. */
#include "base/decimal.h"
#include "check.h"

#include <string.h>

static void test_plain_decimals(void)
{
    static const struct {
        const char *text;
        double value;
    } good[] = {{"0", 0.0}, {"1.5", 1.5}, {"-2", -2.0}, {"+3", 3.0}, {".5", 0.5}, {"5.", 5.0},
                {"2e3", 2000.0}, {"1.5E-2", 0.015}, {"1e38", 1e38}, {"1e39", 1e39}, {"0e999", 0.0}};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; ++i) {
        double value = -1.0;
        CHECK(decimal_read(good[i].text, &value));
        CHECK(value == good[i].value);
    }
}

static void test_what_strtod_reads_and_the_files_do_not(void)
{
    static const char *const bad[] = {"", " 1", "1 ", "0x10", "0x1p3", "inf", "-infinity", "nan", "1e", "1e+",
                                      ".", "-", "e5", "1.5m", "1,5", "1e400", "-1e400", "1e-400", "1e-310", NULL};
    for (int i = 0; bad[i]; ++i) {
        double value = 42.0;
        bool read = decimal_read(bad[i], &value);
        if (read)
            fprintf(stderr, "  read '%s' as %g\n", bad[i], value);
        CHECK(!read && value == 42.0);
    }
    double value = 0.0;
    CHECK(!decimal_read(NULL, &value));
}

/* The number at the start of a longer text (a condition's constant): its length, and decimal_read agreeing on
 * exactly those characters. */
static void test_length_inside_text(void)
{
    static const struct {
        const char *text;
        size_t length;
    } cases[] = {{"1.5 and", 3}, {"-2e3)", 4}, {"1e", 1}, {"1e+", 1}, {"1.", 2}, {".5x", 2}, {"0x10", 1},
                 {"+", 0}, {".", 0}, {"e5", 0}, {"", 0}, {"12abc", 2}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        size_t length = decimal_length(cases[i].text);
        if (length != cases[i].length)
            fprintf(stderr, "decimal_length(\"%s\") = %zu, want %zu\n", cases[i].text, length, cases[i].length);
        CHECK(length == cases[i].length);
    }
    CHECK(decimal_length(NULL) == 0);
    double value = 0.0;
    CHECK(decimal_read("1.", &value) && value == 1.0);
}

int main(void)
{
    RUN(test_length_inside_text);
    RUN(test_plain_decimals);
    RUN(test_what_strtod_reads_and_the_files_do_not);
    return check_report();
}
