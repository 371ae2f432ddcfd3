/* gfx_cpu_skin: the CPU skinning path (gfx_frame_desc.cpu_skinning): every queued instance skinned by
 * pose_skin_cpu, the reference, into a staging buffer the CPU-skinned shaders fetch from a texture buffer.
 * Owns the skinned-vertex buffer and its staging (gfx_skinned_vertices), which skin once (gfx_skin_once.c)
 * also captures into. gfx.c holds the state. Calls gfx_palette's buffer helpers; the same batching and
 * picture as skinning in the vertex shader. */
#ifndef MARIONETTE_GFX_CPU_SKIN_H
#define MARIONETTE_GFX_CPU_SKIN_H

#include "gfx_draw.h"
#include "gfx_internal.h"
#include "gfx_mesh.h"

/* The skinned vertices, GFX_FLOATS_PER_SKINNED_VERTEX per vertex, and the texture buffer they are read
 * through. */
typedef struct gfx_skinned_vertices {
    float *staging;              /* the CPU path's output */
    int capacity;                /* of the staging, vertices */
    int count;                   /* this frame's */
    GLuint buffer, texture;
    int buffer_vertices;         /* size of the GPU buffer */
    int max_vertices;            /* what one texture buffer can hold (GL_MAX_TEXTURE_BUFFER_SIZE) */
    int grows;                   /* times the staging grew (gfx_stats.buffer_grows) */
} gfx_skinned_vertices;

/* The buffer (empty: it grows on its first use) and its texture; no staging yet. */
void gfx_cpu_skin_setup(gfx_skinned_vertices *skinned);
void gfx_cpu_skin_shutdown(gfx_skinned_vertices *skinned);
/* Room in the staging for `needed` skinned vertices (doubling); false when memory runs out. */
bool gfx_cpu_skin_grow(gfx_skinned_vertices *skinned, int needed);
/* Skin `count` queued instances from the staged palettes (palettes: the frame's matrices from matrix 0)
 * into the staging, then upload it. */
void gfx_cpu_skin_frame(gfx_skinned_vertices *skinned, const gfx_queued_instance *queued, int count,
                        const gfx_mesh_slot *meshes, const float *palettes);

#endif
