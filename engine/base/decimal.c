/* decimal: see decimal.h. strtod alone reads more than the files document (hexadecimal, "infinity", leading
 * spaces) and turns 1e-400 into 0 and 1e400 into infinity: the grammar is checked first, the range after. */
#include "decimal.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

static const char *decimal_digits(const char *c, int *count)
{
    *count = 0;
    while (*c >= '0' && *c <= '9') {
        ++c;
        ++*count;
    }
    return c;
}

size_t decimal_length(const char *text)
{
    if (!text)
        return 0;
    const char *c = text;
    if (*c == '+' || *c == '-')
        ++c;
    int whole = 0, fraction = 0, exponent = 0;
    c = decimal_digits(c, &whole);
    if (*c == '.') {
        const char *after = decimal_digits(c + 1, &fraction);
        if (whole + fraction > 0)
            c = after;
    }
    if (whole + fraction == 0)
        return 0;
    if (*c == 'e' || *c == 'E') {
        const char *sign = c + 1;
        if (*sign == '+' || *sign == '-')
            ++sign;
        const char *after = decimal_digits(sign, &exponent);
        if (exponent > 0)
            c = after;
    }
    return (size_t)(c - text);
}

bool decimal_read(const char *text, double *out)
{
    size_t length = decimal_length(text);
    if (length == 0 || text[length] != '\0')
        return false;
    char *end = NULL;
    errno = 0;
    double value = strtod(text, &end);
    if (*end != '\0' || errno == ERANGE || !isfinite(value))
        return false;
    *out = value;
    return true;
}
