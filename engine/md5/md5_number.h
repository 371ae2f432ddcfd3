/* md5_number: the number reader behind the md5 lexer. Every float it returns equals what strtof
 * returns for the same text; it is only faster for the short decimals exporters write. It refuses what
 * strtof would turn into another number (infinity, or 0 for nonzero text).
 * Grammar (no hex, inf or nan): [+-] digits [. digits] [(e|E) [+-] digits], at least one digit before
 * the exponent. */
#ifndef MARIONETTE_MD5_NUMBER_H
#define MARIONETTE_MD5_NUMBER_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* Read a float starting at *cursor, not past end. On success sets *value, moves *cursor past the number
 * and returns true. Fails (cursor unchanged) on text outside the grammar and on values out of a float's
 * range: those that overflow to infinity and nonzero ones that round to 0 ("1e-300", "1e-46"; subnormals
 * read). Does not check what follows the number. */
bool md5_read_float(const char **cursor, const char *end, float *value);

/* Read a decimal integer [+-]digits within [INT32_MIN, INT32_MAX]. */
bool md5_read_int(const char **cursor, const char *end, int *value);

/* The inline fast paths below take the shapes exporters write ("-0.123456", "12"), where the answer is
 * one exact division; anything else goes to the functions above, which start again from *cursor. */

/* Inlined into the lexer's loops even where the compiler's size heuristics would not: a call per number
 * costs a good share of the parse time. */
#define MD5_NUMBER_HOT static inline __attribute__((always_inline))

/* Powers of ten a double holds exactly: 10^22 is the largest (5^22 < 2^53). */
static const double md5_exact_powers_of_ten[23] = {
    1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
};

MD5_NUMBER_HOT bool md5_read_float_inline(const char **cursor, const char *end, float *value)
{
    const char *p = *cursor;
    bool negative = p < end && *p == '-';
    p += negative;
    const char *integer = p;
    uint64_t mantissa = 0;
    unsigned digit;
    while (p < end && (digit = (unsigned)(unsigned char)*p - '0') < 10) {
        mantissa = mantissa * 10 + digit;
        ++p;
    }
    long digits = p - integer;
    long fraction_digits = 0;
    if (p < end && *p == '.') {
        const char *fraction = ++p;
        while (p < end && (digit = (unsigned)(unsigned char)*p - '0') < 10) {
            mantissa = mantissa * 10 + digit;
            ++p;
        }
        fraction_digits = p - fraction;
        digits += fraction_digits;
    }
    /* At most 15 digits: the mantissa is below 2^53, so it and the power of ten are exact doubles and the
     * division is correctly rounded (Clinger). */
    if (digits == 0 || digits > 15 || (p < end && (*p == 'e' || *p == 'E')))
        return md5_read_float(cursor, end, value);
    double d = (double)mantissa / md5_exact_powers_of_ten[fraction_digits];
    /* Rounding that double to float is exact unless it sits on a float midpoint (the 29 bits a float
     * drops are exactly one half): then the first rounding may have decided the tie. A nonzero d is
     * between 1e-15 and 1e15 here, always a normal float. */
    uint64_t bits;
    memcpy(&bits, &d, sizeof bits);
    if ((bits & ((UINT64_C(1) << 29) - 1)) == (UINT64_C(1) << 28))
        return md5_read_float(cursor, end, value);
    float f = (float)d;
    *value = negative ? -f : f;
    *cursor = p;
    return true;
}

MD5_NUMBER_HOT bool md5_read_int_inline(const char **cursor, const char *end, int *value)
{
    const char *p = *cursor;
    bool negative = p < end && *p == '-';
    p += negative;
    const char *digits = p;
    int magnitude = 0;
    unsigned digit;
    /* Nine digits cannot overflow an int; longer numbers take the careful path. */
    while (p < end && p - digits < 9 && (digit = (unsigned)(unsigned char)*p - '0') < 10) {
        magnitude = magnitude * 10 + (int)digit;
        ++p;
    }
    if (p == digits || (p < end && (unsigned)(unsigned char)*p - '0' < 10))
        return md5_read_int(cursor, end, value);
    *value = negative ? -magnitude : magnitude;
    *cursor = p;
    return true;
}

#endif
