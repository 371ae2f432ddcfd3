/* json: the smallest JSON writer md5tool's --json and the demo's --trace need. A writer tracks nesting so
 * callers never place commas by hand; strings are escaped (quotes, backslashes, control characters);
 * numbers print with %.9g, enough for a float to read back bit for bit, and a NaN or infinity is written
 * as null, never as invalid JSON. Knows nothing of MD5 or the rest of the engine. */
#ifndef MARIONETTE_JSON_H
#define MARIONETTE_JSON_H

#include <stdbool.h>
#include <stdio.h>

enum { JSON_MAX_DEPTH = 32 };

typedef struct json_writer {
    FILE *out;
    int depth;
    bool has_items[JSON_MAX_DEPTH]; /* per open container: has a value been written (comma before the next) */
    bool after_key;                 /* the next value completes a "key": pair */
} json_writer;

json_writer json_writer_start(FILE *out);

void json_object_begin(json_writer *w);
void json_object_end(json_writer *w);
void json_array_begin(json_writer *w);
void json_array_end(json_writer *w);

/* Inside an object: the key of the next value. */
void json_key(json_writer *w, const char *key);

void json_string(json_writer *w, const char *text); /* NULL writes null */
void json_number(json_writer *w, double value);
/* value rounded to `decimals` places (0 to 9), trailing zeros dropped ("0.5", "-1.25", "3"), written with
 * integer arithmetic: about ten times faster than json_number's %.9g, for the trace's many coordinates
 * (metres to the micrometre, quaternions to 1e-6 at 6 places). A magnitude past 1e9 goes to json_number;
 * NaN or infinity writes null. */
void json_fixed(json_writer *w, double value, int decimals);
void json_integer(json_writer *w, long long value);
void json_bool(json_writer *w, bool value);
void json_null(json_writer *w);

/* Writes text as a quoted, escaped JSON string; usable without a writer. */
void json_write_escaped(FILE *out, const char *text);

#endif
