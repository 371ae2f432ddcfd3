/* png: writes 8-bit RGB PNG images (what md5tool render and sheet save), compressed with zlib. Every row
 * uses filter 0 ("none"): simple, and small enough for pictures of characters on flat backgrounds.
 * Knows nothing of what the pixels show. */
#ifndef MARIONETTE_PNG_H
#define MARIONETTE_PNG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/diag.h"

/* Encode width * height RGB pixels (3 bytes each, top row first) as a complete PNG file in memory. On
 * success *out is a new buffer of *size bytes (free with free()); on failure err names `name`. */
bool png_encode_rgb(const uint8_t *pixels, int width, int height, const char *name, uint8_t **out, size_t *size,
                    diag *err);

/* Encode and write to path (replacing it). */
bool png_write_rgb(const char *path, const uint8_t *pixels, int width, int height, diag *err);

#endif
