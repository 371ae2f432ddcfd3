/* gfx_shadow: the light's shadow map and the ground it falls on. Owns the shadow map with this frame's fit
 * (gfx_shadow: a depth texture drawn from the light each frame into the part of it that the camera's view
 * needs, gfx_shadow_fit.h) and the ground (gfx_ground: flat, or gfx_set_ground's mesh in tiles, drawn with
 * the shadow lookup only where a shadow may fall). gfx.c holds both. The depth pass is a bracket: whoever
 * draws the instances (gfx.c's batched way, gfx_bench.c's naive way) draws them between
 * gfx_shadow_pass_begin and gfx_shadow_pass_end. Calls gfx_draw (the ground's uniforms) and gfx_shadow_fit;
 * knows nothing of meshes. */
#ifndef MARIONETTE_GFX_SHADOW_H
#define MARIONETTE_GFX_SHADOW_H

#include "gfx_internal.h"
#include "gfx_program.h"

typedef struct gfx_ground {
    /* The flat ground: a 3 x 3 grid of cells whose middle one is where shadows may fall. */
    GLuint vertex_array, vertex_buffer, index_buffer;
    /* Uneven ground (gfx_set_ground), when tile_count > 0: a static mesh in tiles, each tile's triangles
     * one run of the index buffer, drawn with the shadow lookup where its box meets the shadowed ground. */
    GLuint mesh_vertex_array, mesh_vertex_buffer, mesh_index_buffer;
    int tile_count;
    int *tile_first, *tile_indices;  /* per tile: its first index and how many */
    float (*tile_box)[4];            /* per tile: min x, min z, max x, max z */
    float heights[2];                /* the lowest and highest vertex (the floor shadows are pushed to) */
    /* Scratch for one frame's two multi-draws (shadowed, lit), tile_count entries each: sized at
     * gfx_set_ground so a frame allocates nothing. */
    GLsizei *draw_counts;
    const void **draw_offsets;
} gfx_ground;

typedef struct gfx_shadow {
    /* The shadow map: depth textures, each with the framebuffer that renders into it. */
    GLuint framebuffers[GFX_SHADOW_MAP_LEVELS], textures[GFX_SHADOW_MAP_LEVELS];
    int map_size;                    /* of the largest; each next one is half the last */
    int map_levels;
    vec3 casters_low, casters_high;  /* this frame's queued instances and their shadows on the ground */
    gfx_frame_shadow frame;          /* whether this frame has a shadow, and its fit */
} gfx_shadow;

/* The flat ground's buffers. */
void gfx_ground_setup(gfx_ground *ground);
void gfx_ground_shutdown(gfx_ground *ground);
/* gfx_set_ground's work, once gfx is set up (see gfx.h); false with err on misuse, the ground kept. */
bool gfx_ground_set(gfx_ground *ground, const gfx_ground_desc *desc, diag *err);
/* Draw the ground, shadowed where this frame's shadow may fall; returns its draw calls (1 or 2). */
int gfx_ground_draw(const gfx_ground *ground, const gfx_programs *programs, const gfx_lighting *lighting,
                    mat4 view_projection);

/* The depth textures and their framebuffers, map_size and the smaller ones; false with err when a
 * framebuffer is incomplete (what was made is released by gfx_shadow_shutdown). */
bool gfx_shadow_setup(gfx_shadow *shadow, int map_size, diag *err);
void gfx_shadow_shutdown(gfx_shadow *shadow);
/* A frame's casters: emptied by gfx_begin_frame (on: the frame may have shadows), grown by each queued
 * instance (bounds NULL: none), whose own box with its shadow goes to [own_low, own_high] (empty when the
 * frame has no shadows), for the sort to tell whether its shadow reaches the fitted map
 * (gfx_shadow_fit_casts). light_unit: the frame's light, normalized; floor: the ground's lowest height. */
void gfx_shadow_begin(gfx_shadow *shadow, bool on);
void gfx_shadow_add_caster(gfx_shadow *shadow, const vec3 light_unit, float floor, mat4 world,
                           const float bounds[2][3], vec3 own_low, vec3 own_high);
/* This frame's fit, when shadow->frame.on; turns it off when no shadow reaches the view. */
void gfx_shadow_fit_frame(gfx_shadow *shadow, const gfx_frame_desc *frame, const vec3 light_unit,
                          const float ground_heights[2]);
/* The shadow map this frame's picture reads; 0 without a shadow. */
GLuint gfx_shadow_map_texture(const gfx_shadow *shadow);
/* The depth pass's bracket: the fitted part of the map bound, cleared and offset (slope-scaled) for the
 * instances drawn between the two; returns the framebuffer to give back to gfx_shadow_pass_end. */
GLuint gfx_shadow_pass_begin(const gfx_shadow *shadow);
void gfx_shadow_pass_end(GLuint target);

#endif
