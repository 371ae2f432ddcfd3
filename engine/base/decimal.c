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

bool decimal_read(const char *text, double *out)
{
    if (!text)
        return false;
    const char *c = text;
    if (*c == '+' || *c == '-')
        ++c;
    int whole = 0, fraction = 0, exponent = 0;
    c = decimal_digits(c, &whole);
    if (*c == '.')
        c = decimal_digits(c + 1, &fraction);
    if (whole + fraction == 0)
        return false;
    if (*c == 'e' || *c == 'E') {
        ++c;
        if (*c == '+' || *c == '-')
            ++c;
        c = decimal_digits(c, &exponent);
        if (exponent == 0)
            return false;
    }
    if (*c != '\0')
        return false;
    char *end = NULL;
    errno = 0;
    double value = strtod(text, &end);
    if (*end != '\0' || errno == ERANGE || !isfinite(value))
        return false;
    *out = value;
    return true;
}
