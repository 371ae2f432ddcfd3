/* gfx_palette: the frame's palettes (gfx_palettes): every skin matrix of the frame in the palette buffer,
 * written straight into its mapping on the default path, or staged in memory and copied once, read by the
 * shaders as a texture buffer; and how it grows. Also the buffer helpers the other upload buffers use
 * (gfx_make_texture_buffer, gfx_upload_stream, gfx_doubled_until). gfx.c holds the state; gfx_capture.c
 * borrows the staging and the buffer outside frames. Calls nothing of gfx but gfx_misuse (lost palettes);
 * knows nothing of meshes, shaders or drawing. */
#ifndef MARIONETTE_GFX_PALETTE_H
#define MARIONETTE_GFX_PALETTE_H

#include "gfx_internal.h"

/* A texture buffer of `format` over `buffer`, its store specified at `bytes`; returns buffer. */
GLuint gfx_make_texture_buffer(GLuint buffer, GLsizeiptr bytes, GLenum format, GLuint *texture);
/* One upload per buffer per frame (orphaning the old store), grown to cpu_items when smaller. */
void gfx_upload_stream(GLuint buffer, int *gpu_items, int cpu_items, size_t item_bytes, const float *data,
                       int used_items);
/* Capacity doubled until it holds `needed`: growth is rare and amortized. */
int gfx_doubled_until(int capacity, int needed);

/* Where a frame's palettes go. */
typedef enum gfx_palette_store {
    GFX_PALETTES_UNOPENED,  /* the frame has needed no room yet */
    GFX_PALETTES_STAGED,    /* staging, copied into the buffer at gfx_palettes_close */
    GFX_PALETTES_MAPPED,    /* the buffer itself, mapped for writing until gfx_palettes_close */
} gfx_palette_store;

typedef struct gfx_palettes {
    float *staging;              /* GFX_FLOATS_PER_MATRIX per matrix */
    int capacity;                /* of the staging */
    int count;                   /* this frame's matrices */
    bool on_cpu;                 /* this frame reads its palettes on the CPU: staged, never mapped */
    /* Where this frame's palettes are written (see open_palettes): the mapped GPU buffer on the default
     * path, saving the copy from staging, or the staging. */
    gfx_palette_store store;
    float *mapping;              /* the mapped part of the buffer, from matrix mapping_first on */
    int mapping_first;
    bool lost;                   /* this frame: the driver lost the mapped buffer's contents */
    GLuint buffer, texture;
    int buffer_matrices;         /* size of the GPU buffer, apart from the staging's capacity: an upload grows
                                  * it to that; a mapped frame grows the buffer alone */
    int grows;                   /* times the staging or the buffer grew (gfx_stats.buffer_grows) */
} gfx_palettes;

/* The staging for `capacity` matrices; false when memory runs out. */
bool gfx_palettes_setup(gfx_palettes *palettes, int capacity);
/* The GPU buffer and its texture, as large as the staging. */
void gfx_palettes_make_buffer(gfx_palettes *palettes);
void gfx_palettes_shutdown(gfx_palettes *palettes);
/* A frame starts: no matrices yet; on_cpu: its palettes are read on the CPU (the CPU skinning path, the
 * benchmark's naive frames), so they are staged and never mapped. */
void gfx_palettes_begin(gfx_palettes *palettes, bool on_cpu);
/* Room in the staging for `needed` matrices (doubling); false when memory runs out. */
bool gfx_palettes_grow_staging(gfx_palettes *palettes, int needed);

size_t gfx_palette_bytes(int matrices);
/* Room in the frame's palette store for `needed` matrices in all. Growing moves the slots handed out. */
bool gfx_palettes_room(gfx_palettes *palettes, int needed);
/* Where the frame's matrix `first` is written. */
mat4 *gfx_palettes_destination(const gfx_palettes *palettes, int first);
/* The frame's matrices in memory, from matrix 0, for a frame begun on_cpu; NULL when they are not staged. */
const float *gfx_palettes_staged(const gfx_palettes *palettes);
/* gfx_end_frame, before any draw: the mapping goes back to GL, or the staging is copied in. */
void gfx_palettes_close(gfx_palettes *palettes, gfx_stats *stats);
/* gfx_begin_frame: a previous frame that was not ended leaves its mapping behind, dropped here. */
void gfx_palettes_drop(gfx_palettes *palettes);

#endif
