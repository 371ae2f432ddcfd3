/* gfx_texture: the GL textures meshes are drawn with, made from pixels the caller gives (gfx_image) and
 * shared by the image's key: one upload however many skin_meshes, models and characters use an image,
 * deleted with the last part that uses it. Private to engine/gfx. Reads no files and decodes nothing:
 * where the pixels come from (engine/image, the game's scene) is not its business. */
#ifndef MARIONETTE_GFX_TEXTURE_H
#define MARIONETTE_GFX_TEXTURE_H

#include "gfx_internal.h"

/* The placeholder (magenta checker) and an empty table. */
void gfx_texture_setup(void);
void gfx_texture_shutdown(void);
/* A user more of the image's texture, uploaded on its first use; -1 (the placeholder) for no image or no
 * pixels. */
int gfx_texture_acquire(const gfx_image *image);
/* The texture of an acquired entry; the placeholder's for -1. */
GLuint gfx_texture_name(int index);
void gfx_texture_release(int index);
void gfx_texture_stats(int *held, int *loaded, size_t *bytes);
/* Mipmaps and filters of the bound GL_TEXTURE_2D. */
void gfx_texture_sampling(void);

#endif
