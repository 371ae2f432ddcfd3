/* gfx_internal: what the files of engine/gfx share and nobody else sees: the limits and texture units every
 * part agrees on, the view of a frame's lighting the lit programs read, and the one error sink. There is no
 * renderer-wide struct here: the one renderer is a file-static in gfx.c made of one state per concern, each
 * owned (defined, made, changed) by one file, and each part's functions take pointers to the states they
 * read or write:
 *   gfx.c           the renderer: setup, gfx.h's (and gfx_capture.h's) entry points, the frame's description,
 *                   its rules, stats and error texts, and the frame's end (gfx_end_frame); gfx_frame.h lends
 *                   the benchmark's naive end the steps every end shares
 *   gfx_mesh.c      the mesh slots (gfx_meshes)
 *   gfx_program.c   the programs (gfx_programs)
 *   gfx_draw.c      the frame's queue, its sort by (mesh, level) and the instance buffer (gfx_queue); the
 *                   uniforms every lit program shares, the frame's texture units and the batched draw
 *   gfx_palette.c   the frame's palettes: staging, mapping, the palette buffer (gfx_palettes)
 *   gfx_cpu_skin.c  the skinned-vertex buffer and its staging (gfx_skinned_vertices)
 *   gfx_skin_once.c which groups the frame skins once into that buffer (gfx_skin_once)
 *   gfx_shadow.c    the shadow map with this frame's fit (gfx_shadow) and the ground (gfx_ground)
 *   gfx_capture.c   nothing: the skinning capture check, run by gfx.c on the parts it borrows
 *   gfx_bench.c     nothing but its frames' rules: the naive frames (gfx_bench.h), drawn beside gfx_end_frame
 *   gfx_debug.c, gfx_timer.c, gfx_texture.c and gfx_text.c keep file-static state of their own.
 * Who calls whom: gfx.c calls every part. gfx_bench.c calls gfx.c (gfx_frame.h: begin, close, picture,
 * finish), gfx_draw.c, gfx_shadow.c (the depth pass's bracket), gfx_timer.c and gfx_palette.c. gfx_capture.c
 * calls gfx_mesh.c, gfx_palette.c and gfx_draw.c. gfx_shadow.c and gfx_skin_once.c call gfx_draw.c; gfx_draw.c
 * and gfx_cpu_skin.c call gfx_palette.c's buffer helpers; gfx_draw.c calls gfx_timer.c and gfx_lod.c;
 * gfx_mesh.c calls gfx_texture.c; gfx_debug.c and gfx_text.c call gfx_program.c. Nothing calls gfx_bench.c,
 * and the parts call back into gfx.c only for three leaves that touch no part: gfx_misuse (gfx_palette.c,
 * when the driver loses the mapped palettes), gfx_check_errors (gfx_capture.c) and gfx_z_up_to_y_up
 * (gfx_debug.c). */
#ifndef MARIONETTE_GFX_INTERNAL_H
#define MARIONETTE_GFX_INTERNAL_H

#include <stdbool.h>

#include <GL/glew.h>
#include <cglm/cglm.h>

#include "../base/diag.h"
#include "gfx.h"
#include "gfx_shaders.h"
#include "gfx_shadow_fit.h"

/* How far the shadow lookup pushes a point out along its normal, in shadow-map texels (normal offset). */
#define GFX_SHADOW_NORMAL_OFFSET_TEXELS 1.5f

enum {
    GFX_DEFAULT_MESH_CAPACITY = 64,
    GFX_DEFAULT_INSTANCE_CAPACITY = 256,
    GFX_DEFAULT_JOINTS_PER_INSTANCE = 64,
    GFX_FLOATS_PER_MATRIX = 16,
    GFX_FLOATS_PER_INSTANCE = 4 * GFX_INSTANCE_TEXELS,
    GFX_TEXTURE_UNIT_ALBEDO = 0,
    GFX_TEXTURE_UNIT_PALETTES = 1,
    GFX_TEXTURE_UNIT_INSTANCES = 2,
    GFX_TEXTURE_UNIT_SKINNED_VERTICES = 3,
    GFX_TEXTURE_UNIT_SHADOW_MAP = 4,
    GFX_TEXTURE_UNIT_NORMAL_MAP = 5,
    GFX_TEXTURE_UNIT_SPECULAR_MAP = 6,
    GFX_DEFAULT_SHADOW_MAP_SIZE = 2048,
    GFX_DEFAULT_DEBUG_LINES = 65536,
    GFX_FLOATS_PER_SKINNED_VERTEX = 10, /* position, normal and tangent frame, R32F texels (see gfx_shaders.h) */
    GFX_ERROR_TEXT_MAX = 512,
    GFX_LABEL_MAX = 64,
};

/* This frame's shadow (gfx_shadow.c owns it): whether there is one, and the part of the map it uses. */
typedef struct gfx_frame_shadow {
    bool on;
    gfx_shadow_fit fit; /* light_view_projection, the used texels, the shadowed ground */
} gfx_frame_shadow;

/* What the uniforms every lit program shares are set from (gfx_set_lighting_uniforms): the frame's
 * description (gfx.c) and its shadow (gfx_shadow.c). */
typedef struct gfx_lighting {
    const gfx_frame_desc *frame;
    const gfx_frame_shadow *shadow;
} gfx_lighting;

/* Record a misuse in words for gfx_last_error (gfx.c); returns false for the caller to pass on. */
bool gfx_misuse(const char *format, ...) __attribute__((format(printf, 1, 2)));

#endif
