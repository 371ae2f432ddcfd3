/* md5_number: the number reader behind the md5 lexer. Every float it returns equals what strtof
 * returns for the same text; it is only faster for the short decimals exporters write.
 * Grammar (no hex, inf or nan): [+-] digits [. digits] [(e|E) [+-] digits], at least one digit before
 * the exponent. */
#ifndef MARIONETTE_MD5_NUMBER_H
#define MARIONETTE_MD5_NUMBER_H

#include <stdbool.h>

/* Read a float starting at *cursor, not past end. On success sets *value, moves *cursor past the number
 * and returns true. Fails (cursor unchanged) on text outside the grammar and on values that overflow to
 * infinity; does not check what follows the number. */
bool md5_read_float(const char **cursor, const char *end, float *value);

/* Read a decimal integer [+-]digits within [INT32_MIN, INT32_MAX]. */
bool md5_read_int(const char **cursor, const char *end, int *value);

#endif
