/* md5_read_float must agree with strtof bit for bit (sign of zero included) on everything inside its
 * grammar, and refuse everything outside it; md5_read_int must agree with strtol within int range. Every
 * number of whole files too: the generated assets, and (`--boneman`, `--assimp`: test_data.h) the
 * third-party boneman and assimp cube. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "base/file.h"
#include "check.h"
#include "md5/md5_number.h"
#include "test_data.h"

static bool same_bits(float a, float b)
{
    uint32_t x, y;
    memcpy(&x, &a, sizeof x);
    memcpy(&y, &b, sizeof y);
    return x == y;
}

/* What strtof says about the whole of text[0..length): the value if it reads all of it to a finite
 * float. Hex, inf and nan are strtof's but outside our grammar: those we must refuse. */
static bool strtof_reads_all(const char *text, size_t length, float *value)
{
    for (size_t i = 0; i < length; ++i)
        if (!strchr("0123456789+-.eE", text[i]))
            return false;
    char copy[128];
    if (length >= sizeof copy)
        return false;
    memcpy(copy, text, length);
    copy[length] = '\0';
    char *stop;
    *value = strtof(copy, &stop);
    /* md5_number refuses what strtof turns into another number: infinity, and 0 for nonzero text. */
    bool nonzero = false;
    for (size_t i = 0; i < length && copy[i] != 'e' && copy[i] != 'E'; ++i)
        nonzero |= copy[i] >= '1' && copy[i] <= '9';
    return length > 0 && stop == copy + length && isfinite(*value) && (*value != 0.0f || !nonzero);
}

/* Both the public reader and the lexer's inline one, on a buffer with no NUL after the text. Returns
 * whether the check passed so callers can print the text once. */
static bool agrees_with_strtof(const char *text, size_t length)
{
    char *exact = malloc(length ? length : 1); /* no terminator: an overread is the sanitizer's to see */
    memcpy(exact, text, length);
    float expected = 0.0f, got = 0.0f, got_inline = 0.0f;
    bool want = strtof_reads_all(text, length, &expected);
    const char *cursor = exact, *cursor_inline = exact;
    bool read = md5_read_float(&cursor, exact + length, &got) && cursor == exact + length;
    bool read_inline = md5_read_float_inline(&cursor_inline, exact + length, &got_inline) &&
                       cursor_inline == exact + length;
    free(exact);
    bool agree = read == want && read_inline == want && (!want || (same_bits(got, expected) && same_bits(got_inline, expected)));
    if (!agree)
        fprintf(stderr, "  \"%.*s\": strtof %d %.9g, md5_read_float %d %.9g, inline %d %.9g\n", (int)length, text,
                want, (double)expected, read, (double)got, read_inline, (double)got_inline);
    return agree;
}

static void test_edge_cases(void)
{
    static const char *const cases[] = {
        ".5", "-.5", "5.", "-0", "0", "+0", "-0.0", "0.000000", "-0.000000", "1e-05", "-1.2E+02", "16777217",
        "16777216", "16777219", "33554435", "0.1", "0.2", "0.3", "1.17549435e-38", "1.1754942e-38", "1e-40",
        "1.4e-45", "7e-46", "1e-46", "3.4028235e38", "3.4028236e38", "1e38", "1e39", "1e-99999", "1e99999",
        "123456789012345678901234567890", "0.000000000000000000000000000000000001", "9007199254740993",
        "4294967295", "-4294967295", "1.000000000000000000000001", "0.999999970198", "1.00000005960464477539",
        "1.0000000596046447753906251", "340282356779733661637539395458142568448", "2.5e-8", "-0.500000",
        "0.707107", "123.456789", "1e", "1e+", "e5", ".", "-", "+", "", "--1", "1..2", ".e1", "0x10", "inf",
        "nan", "-inf", "1.5.", "00000000000000000000001", "0e999999999999",
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; ++i)
        CHECK(agrees_with_strtof(cases[i], strlen(cases[i])));
    /* A few values by hand, so a shared misunderstanding with strtof would still show. */
    const char *text = "-0";
    float value;
    CHECK(md5_read_float(&text, text + 2, &value) && value == 0.0f && signbit(value));
    text = "1e39";
    CHECK(!md5_read_float(&text, text + 4, &value));
    /* Out of a float's range both ways: refused, cursor unchanged; zeros and subnormals read. */
    static const char *const in_range[] = {"0e-300", "-0.000000", "1e-40", "1.4e-45", "0", "3.4028235e38"};
    for (size_t i = 0; i < sizeof in_range / sizeof *in_range; ++i) {
        text = in_range[i];
        CHECK(md5_read_float(&text, text + strlen(text), &value) && *text == '\0');
    }
    static const char *const out_of_range[] = {"1e-300", "-1e-46", "0.00000000000000000000000000000000000000000000001",
                                               "1e39"};
    for (size_t i = 0; i < sizeof out_of_range / sizeof *out_of_range; ++i) {
        const char *start = out_of_range[i];
        text = start;
        CHECK(!md5_read_float(&text, text + strlen(text), &value) && text == start);
    }
    text = "0.5)";
    CHECK(md5_read_float(&text, text + 4, &value) && value == 0.5f && *text == ')');
}

/* Random strings over the characters of the grammar: most are outside it, many are odd numbers. */
static void test_random_strings(void)
{
    static const char alphabet[] = "0123456789000111999..--++eE";
    uint64_t state = 0x9E3779B97F4A7C15u;
    int failures = 0;
    for (int i = 0; i < 1200000 && failures < 10; ++i) {
        state = state * 6364136223846793005u + 1442695040888963407u;
        uint64_t bits = state >> 11;
        char text[40];
        size_t length = 1 + bits % 24;
        bits /= 24;
        for (size_t k = 0; k < length; ++k) {
            state = state * 6364136223846793005u + 1442695040888963407u;
            text[k] = alphabet[(state >> 33) % (sizeof alphabet - 1)];
        }
        failures += !agrees_with_strtof(text, length);
    }
    CHECK(failures == 0);
}

/* Random numbers in the shapes exporters write and around float precision: %.6f, %.9g, %e, long
 * mantissas, exponents near the limits of the fast path. */
static void test_random_numbers(void)
{
    uint64_t state = 12345;
    int failures = 0;
    for (int i = 0; i < 400000 && failures < 10; ++i) {
        state = state * 6364136223846793005u + 1442695040888963407u;
        uint32_t raw = (uint32_t)(state >> 32);
        float f;
        memcpy(&f, &raw, sizeof f);
        if (!isfinite(f))
            continue;
        char text[64];
        int length;
        switch (i % 5) {
        case 0: length = snprintf(text, sizeof text, "%.6f", (double)f * 1e-30); break;
        case 1: length = snprintf(text, sizeof text, "%.9g", (double)f); break;
        case 2: length = snprintf(text, sizeof text, "%e", (double)f); break;
        case 3: length = snprintf(text, sizeof text, "%.17g", (double)(raw % 100000000) * 1e-8); break;
        default: length = snprintf(text, sizeof text, "%llue%d", (unsigned long long)(state % 100000000000000000ull),
                                   (int)(raw % 90) - 45);
        }
        if (length > 0 && (size_t)length < sizeof text)
            failures += !agrees_with_strtof(text, (size_t)length);
    }
    CHECK(failures == 0);
}

static bool is_number_start(char c)
{
    return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.';
}

/* Every number token of the real files, as floats (and as ints where they are integers). */
static void scan_file_numbers(const char *path)
{
    char *text;
    size_t size;
    CHECK(file_read_all(path, (size_t)1 << 30, &text, &size, NULL));
    if (!text)
        return;
    int numbers = 0, failures = 0;
    for (size_t i = 0; i < size;) {
        bool boundary = i == 0 || strchr(" \t\r\n()", text[i - 1]);
        if (!boundary || !is_number_start(text[i])) {
            ++i;
            continue;
        }
        size_t end = i;
        while (end < size && !strchr(" \t\r\n()", text[end]))
            ++end;
        ++numbers;
        failures += !agrees_with_strtof(text + i, end - i);
        bool integer = true;
        for (size_t k = i; k < end; ++k)
            integer &= (text[k] >= '0' && text[k] <= '9') || (k == i && text[k] == '-');
        if (integer && end - i < 10) {
            const char *cursor = text + i;
            int value;
            failures += !(md5_read_int(&cursor, text + end, &value) && cursor == text + end &&
                          value == (int)strtol(text + i, NULL, 10));
        }
        i = end;
    }
    free(text);
    CHECK(numbers > 0);
    CHECK(failures == 0);
}

static void test_asset_file_numbers(void)
{
    scan_file_numbers(MARIONETTE_SOURCE_DIR "/assets/models/mannequin.md5mesh");
    scan_file_numbers(MARIONETTE_SOURCE_DIR "/assets/clips/walk.md5anim");
}

static void test_boneman_file_numbers(void)
{
    static const char *const files[] = {
        "boneman.md5mesh", "boneman_attack.md5anim", "boneman_dead.md5anim", "boneman_dying.md5anim",
        "boneman_idle.md5anim", "boneman_pain.md5anim", "boneman_running.md5anim",
    };
    for (size_t i = 0; i < sizeof files / sizeof *files; ++i) {
        char path[512];
        snprintf(path, sizeof path, BONEMAN "%s", files[i]);
        scan_file_numbers(path);
    }
}

static void test_cube_file_numbers(void)
{
    scan_file_numbers(ASSIMP_CUBE);
}

static void test_ints(void)
{
    static const struct {
        const char *text;
        bool ok;
        int value;
    } cases[] = {
        {"0", true, 0}, {"-1", true, -1}, {"+7", true, 7}, {"007", true, 7}, {"2147483647", true, 2147483647},
        {"-2147483648", true, -2147483647 - 1}, {"2147483648", false, 0}, {"4294967295", false, 0},
        {"99999999999999999999999", false, 0}, {"", false, 0}, {"-", false, 0}, {"x", false, 0},
        {"0000000000012", true, 12},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; ++i) {
        size_t length = strlen(cases[i].text);
        const char *cursor = cases[i].text;
        int value = -99;
        bool ok = md5_read_int(&cursor, cursor + length, &value);
        CHECK(ok == cases[i].ok);
        CHECK(!ok || (value == cases[i].value && cursor == cases[i].text + length));
        CHECK(ok || cursor == cases[i].text);
        cursor = cases[i].text;
        int inline_value = -99;
        CHECK(md5_read_int_inline(&cursor, cursor + length, &inline_value) == cases[i].ok);
        CHECK(!ok || inline_value == cases[i].value);
    }
}

int main(int argc, char **argv)
{
    test_part part;
    int skip = test_data_start(argc, argv, &part);
    if (skip)
        return skip;
    if (part == TEST_PART_OWN) {
        RUN(test_edge_cases);
        RUN(test_ints);
        RUN(test_asset_file_numbers);
        RUN(test_random_strings);
        RUN(test_random_numbers);
    }
    if (part == TEST_PART_BONEMAN)
        RUN(test_boneman_file_numbers);
    if (part == TEST_PART_ASSIMP)
        RUN(test_cube_file_numbers);
    return check_report();
}
