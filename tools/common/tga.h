/* tga: reads Truevision TGA images, the texture format of Doom 3 era models: 24- and 32-bit true colour,
 * uncompressed (image type 2) or run-length encoded (type 10), stored either bottom row first (the
 * default) or top row first (descriptor bit 5). Colour-mapped and grey images are refused with a message.
 * Alpha is dropped: the software rasterizer draws opaque surfaces only.
 * Knows nothing of models or of how the image is used. */
#ifndef MARIONETTE_TGA_H
#define MARIONETTE_TGA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/diag.h"

/* Pixels as R, G, B bytes, top row first whatever the file's row order, so texture coordinate t = 0 is
 * the top row. */
typedef struct tga_image {
    int width, height;
    uint8_t *pixels; /* width * height * 3 bytes */
} tga_image;

/* Decode size bytes of TGA data named `name` in messages. On success *image owns new pixels. */
bool tga_decode(const uint8_t *data, size_t size, const char *name, tga_image *image, diag *err);

/* Read the file at path and decode it. */
bool tga_load(const char *path, tga_image *image, diag *err);

void tga_image_free(tga_image *image);

#endif
