/* md5_text: how the generators print numbers in .md5mesh and .md5anim text: 6 decimals, never
 * "-0.000000". A writer that must compare values exactly as they will be written (the clip writer, to
 * find which components are animated) keeps them as whole millionths and prints those; the digits are
 * then exactly the integer's. Knows nothing of what the numbers mean. */
#ifndef MARIONETTE_ASSETGEN_MD5_TEXT_H
#define MARIONETTE_ASSETGEN_MD5_TEXT_H

#include <stdio.h>

/* The one number printer: %.6f (the exact binary value rounded, ties to even), with values that would
 * print as -0.000000 written as 0.000000. */
void md5_text_print_number(FILE *out, double value);

/* "( x y z )", each number as above. */
void md5_text_print_vector(FILE *out, const double v[3]);

/* value rounded to whole millionths, halves away from zero. Not always what md5_text_print_number
 * prints for value itself (0.5078125 prints as 0.507812): a writer uses one or the other for a value. */
long long md5_text_millionths(double value);

/* A count of millionths: -1250000 prints as -1.250000. */
void md5_text_print_millionths(FILE *out, long long millionths);
void md5_text_print_millionths_triple(FILE *out, const long long millionths[3]);

/* The first lines of every generated file: the version and the commandline line that names assetgen. */
void md5_text_print_header(FILE *out);

#endif
