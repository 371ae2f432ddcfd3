/* gfx_palette: the frame's upload buffers: the palette buffer (every skin matrix of the frame, written
 * straight into its mapping on the default path, or staged and copied once) and the instance buffer, both
 * read by the shaders as texture buffers, and how they grow. Private to engine/gfx; knows nothing of
 * meshes, shaders or drawing. */
#ifndef MARIONETTE_GFX_PALETTE_H
#define MARIONETTE_GFX_PALETTE_H

#include "gfx_internal.h"

/* A texture buffer of `format` over `buffer`, its store specified at `bytes`; returns buffer. */
GLuint gfx_make_texture_buffer(GLuint buffer, GLsizeiptr bytes, GLenum format, GLuint *texture);
/* One upload per buffer per frame (orphaning the old store), grown to cpu_items when smaller. */
void gfx_upload_stream(GLuint buffer, int *gpu_items, int cpu_items, size_t item_bytes, const float *data,
                       int used_items);
int gfx_doubled_until(int capacity, int needed);
bool gfx_grow_instances(int needed);
bool gfx_grow_palettes(int needed);

size_t gfx_palette_bytes(int matrices);
/* Room in the frame's palette store for `needed` matrices in all. Growing moves the slots handed out. */
bool gfx_palette_room(int needed);
/* Where the frame's matrix `first` is written. */
mat4 *gfx_palette_destination(int first);
/* gfx_end_frame, before any draw: the mapping goes back to GL, or the staging is copied in. */
void gfx_palettes_close(gfx_stats *stats);
/* gfx_begin_frame: a previous frame that was not ended leaves its mapping behind, dropped here. */
void gfx_palettes_drop(void);

#endif
