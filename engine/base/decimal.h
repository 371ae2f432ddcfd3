/* decimal: the one way the demo's text files and command line read a number: plain decimal as the files
 * document it (`-1.5`, `2e3`), never hexadecimal, `inf`, `nan` or a value beyond a double's range (too
 * large, or so small it would read as another number). Knows nothing of what the number is for. */
#ifndef MARIONETTE_DECIMAL_H
#define MARIONETTE_DECIMAL_H

#include <stdbool.h>
#include <stddef.h>

/* The whole of text as a finite decimal number: an optional sign, digits with at most one '.', an optional
 * exponent (e or E, a sign, digits). False for anything else, including leading or trailing spaces and a
 * value whose magnitude is outside double's normal range (except 0). */
bool decimal_read(const char *text, double *out);

/* How many characters at the start of text form such a number (0: none), for readers that find a number
 * inside a longer text (a condition such as `speed > 1.5`); decimal_read then takes exactly those. "1e" and
 * "1." give 1 and 2: an exponent needs digits. */
size_t decimal_length(const char *text);

#endif
