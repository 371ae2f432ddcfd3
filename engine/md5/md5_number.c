#include "md5_number.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* A uint64 holds any 19-digit decimal; the 20th could overflow it. */
enum { SIGNIFICANT_DIGITS_MAX = 19, EXPONENT_SATURATION = 100000, LOCAL_TOKEN_MAX = 64 };

static bool is_digit(char c)
{
    return (unsigned char)(c - '0') < 10;
}

/* The slow, always-right path: strtof on a NUL-terminated copy of the token (the text we are given may
 * end without a NUL, and may go on with characters strtof would happily read, such as "inf"). */
static bool read_float_with_strtof(const char *start, size_t length, float *value)
{
    char local[LOCAL_TOKEN_MAX];
    char *copy = local;
    if (length >= sizeof local) {
        copy = malloc(length + 1); /* only for absurdly long numbers, never on real files */
        if (!copy)
            return false;
    }
    memcpy(copy, start, length);
    copy[length] = '\0';
    char *stop = NULL;
    float result = strtof(copy, &stop);
    bool consumed = stop == copy + length;
    if (copy != local)
        free(copy);
    if (!consumed || !isfinite(result))
        return false;
    *value = result;
    return true;
}

bool md5_read_float(const char **cursor, const char *end, float *value)
{
    const char *p = *cursor;
    const char *start = p;
    bool negative = false;
    if (p < end && (*p == '-' || *p == '+')) {
        negative = *p == '-';
        ++p;
    }
    uint64_t mantissa = 0;
    int significant = 0;     /* digits accumulated in mantissa, leading zeros excluded */
    int exponent = 0;        /* value = mantissa * 10^exponent (before the written exponent) */
    int digits = 0;          /* all mantissa digits seen, to insist on at least one */
    bool dropped_nonzero = false;
    for (; p < end && is_digit(*p); ++p, ++digits) {
        if (significant < SIGNIFICANT_DIGITS_MAX) {
            mantissa = mantissa * 10 + (uint64_t)(*p - '0');
            significant += mantissa != 0;
        } else {
            ++exponent; /* an integer digit we cannot keep still scales the value */
            dropped_nonzero |= *p != '0';
        }
    }
    if (p < end && *p == '.') {
        ++p;
        for (; p < end && is_digit(*p); ++p, ++digits) {
            if (significant < SIGNIFICANT_DIGITS_MAX) {
                mantissa = mantissa * 10 + (uint64_t)(*p - '0');
                significant += mantissa != 0;
                --exponent;
            } else {
                dropped_nonzero |= *p != '0';
            }
        }
    }
    if (digits == 0)
        return false;
    if (p < end && (*p == 'e' || *p == 'E')) {
        ++p;
        bool exponent_negative = false;
        if (p < end && (*p == '-' || *p == '+')) {
            exponent_negative = *p == '-';
            ++p;
        }
        if (p == end || !is_digit(*p))
            return false; /* "1e" or "1e+": outside the grammar */
        int written = 0;
        for (; p < end && is_digit(*p); ++p)
            if (written < EXPONENT_SATURATION)
                written = written * 10 + (*p - '0');
        exponent += exponent_negative ? -written : written;
    }

    if (mantissa == 0 && !dropped_nonzero) {
        *value = negative ? -0.0f : 0.0f;
        *cursor = p;
        return true;
    }
    /* Clinger's fast path: an exact integer below 2^53 times or divided by an exact power of ten is one
     * correctly rounded double operation. */
    if (!dropped_nonzero && mantissa <= (UINT64_C(1) << 53) && exponent >= -22 && exponent <= 22) {
        double d = (double)mantissa;
        d = exponent >= 0 ? d * md5_exact_powers_of_ten[exponent] : d / md5_exact_powers_of_ten[-exponent];
        /* Rounding the double to float again is exact unless the double sits on a float midpoint (the 29
         * bits a float drops are exactly one half), where the first rounding may have decided the tie;
         * and the float must be normal, since subnormals drop more bits. */
        uint64_t bits;
        memcpy(&bits, &d, sizeof bits);
        bool on_midpoint = (bits & ((UINT64_C(1) << 29) - 1)) == (UINT64_C(1) << 28);
        if (!on_midpoint && d >= 1.17549435082228750797e-38 && d <= 3.40282346638528859812e+38) {
            float f = (float)d;
            *value = negative ? -f : f;
            *cursor = p;
            return true;
        }
    }
    /* The value is not 0 (handled above): strtof's 0 is an underflow, a different number. */
    if (!read_float_with_strtof(start, (size_t)(p - start), value) || *value == 0.0f)
        return false;
    *cursor = p;
    return true;
}

bool md5_read_int(const char **cursor, const char *end, int *value)
{
    const char *p = *cursor;
    bool negative = false;
    if (p < end && (*p == '-' || *p == '+')) {
        negative = *p == '-';
        ++p;
    }
    const char *digits_start = p;
    int64_t magnitude = 0;
    for (; p < end && is_digit(*p); ++p) {
        magnitude = magnitude * 10 + (*p - '0');
        if (magnitude > (int64_t)INT32_MAX + 1)
            return false; /* stops growing long before int64 could overflow */
    }
    if (p == digits_start)
        return false;
    int64_t signed_value = negative ? -magnitude : magnitude;
    if (signed_value > INT32_MAX || signed_value < INT32_MIN)
        return false;
    *value = (int)signed_value;
    *cursor = p;
    return true;
}
