/* texture: the bodies' textures, generated and written as uncompressed 24-bit TGA. Each shows which way
 * the character faces (a face or visor and a chest mark on the front, +X). Deterministic. */
#ifndef MARIONETTE_ASSETGEN_TEXTURE_H
#define MARIONETTE_ASSETGEN_TEXTURE_H

#include <stdbool.h>
#include <stdio.h>

#include "body.h"

bool texture_write_tga(FILE *out, body_kind kind);

#endif
