/* gfx_draw: the frame's queue (gfx_queue: the instances as submitted, their sort by (mesh, level) into the
 * instance staging, the instance buffer the shaders read), and the draws the frame is made of: the uniforms
 * every lit program shares, face culling, the frame's texture units, and the batched draw (one instanced
 * call per skin_mesh and level). gfx.c holds the queue and fills it; the other parts read it through the
 * pointers they are given. Calls gfx_timer (what it drew) and gfx_lod (the shadow pass's levels). */
#ifndef MARIONETTE_GFX_DRAW_H
#define MARIONETTE_GFX_DRAW_H

#include "gfx_internal.h"
#include "gfx_mesh.h"
#include "gfx_program.h"

/* An instance as submitted, before sorting by mesh. */
typedef struct gfx_queued_instance {
    int mesh_slot;
    int level;          /* of detail, in the picture; the shadow pass draws gfx_lod_shadow_level of it */
    int first_matrix;   /* into the frame's palettes */
    pose_skinning skinning; /* how its palette is written there: matrices, or dual quaternions two a matrix */
    int first_skinned_vertex; /* into the CPU path's skinned vertices */
    mat4 world;         /* already including the Z-up to Y-up turn */
    vec4 tint;
    bool casts;         /* this frame, its shadow reaches the fitted shadow map (set by the sort) */
    uint16_t depth_key; /* its centre's distance from the camera, ordered like the distance (front to back) */
    vec3 caster_low, caster_high; /* its box with its shadow on the ground, world space (shadow frames) */
} gfx_queued_instance;

/* The frame's queue and the per-group tables of its sort. Sized at setup; grown (doubling) only when a
 * frame submits more. Instances are grouped by (mesh, level): group g = slot * GFX_LOD_LEVELS + level. */
typedef struct gfx_queue {
    gfx_queued_instance *queued;
    int *sort_order, *sort_scratch; /* capacity each: the queue's order front to back */
    float *instance_staging;     /* sorted by mesh, GFX_FLOATS_PER_INSTANCE each */
    int capacity;
    int count;
    int group_count;             /* mesh capacity * GFX_LOD_LEVELS */
    int *mesh_instance_count;    /* group_count entries: instances per group this frame */
    int *mesh_first_instance;    /* group_count entries: where each group's instances start */
    int *group_cursors;          /* 2 * group_count entries: the sort's scratch */
    int *mesh_caster_count;      /* group_count entries: of a group's instances, how many (the first ones)
                                  * cast into the shadow map: the shadow pass draws those */
    float *group_scale;          /* group_count entries: the largest world scale in the group */
    GLuint instance_buffer, instance_texture;
    int instance_buffer_instances; /* size of the GPU buffer: an upload grows it to the staging's capacity */
    int grows;                   /* times the queue grew (gfx_stats.buffer_grows) */
} gfx_queue;

/* Room for `capacity` instances of meshes in `mesh_capacity` slots; false when memory runs out (what was
 * made is released by gfx_queue_shutdown). */
bool gfx_queue_setup(gfx_queue *queue, int capacity, int mesh_capacity);
/* The GPU buffer and its texture, as large as the staging. */
void gfx_queue_make_buffer(gfx_queue *queue);
void gfx_queue_shutdown(gfx_queue *queue);
/* Room for `needed` instances (doubling); false when memory runs out. */
bool gfx_queue_grow(gfx_queue *queue, int needed);
/* Counting sort of the frame's instances by (mesh, level) into the instance staging; fit: this frame's
 * shadow map, whose casters go first in each group, or NULL without shadows. */
void gfx_queue_sort(gfx_queue *queue, const gfx_shadow_fit *fit);
/* The sorted instances into the instance buffer, one upload. */
void gfx_queue_upload(gfx_queue *queue);

void gfx_set_lighting_uniforms(const gfx_program *program, mat4 view_projection, const gfx_lighting *lighting);
void gfx_set_culling(gfx_culling culling);

/* The texture buffers the programs read, and this frame's shadow map (0: none). */
typedef struct gfx_frame_textures {
    GLuint palettes, instances, skinned_vertices, shadow_map;
} gfx_frame_textures;
/* shadow_map: false while the shadow map is being drawn (a texture must not be read while written). */
void gfx_bind_frame_textures(const gfx_frame_textures *textures, bool shadow_map);

/* The levels a mesh's instances may be drawn at this frame: the stand-in only when the frame allows it. */
int gfx_usable_levels(const gfx_mesh_slot *slot, bool no_stand_ins);

/* What the batched draws read: the sorted queue, the meshes, the groups skinned once (NULL: none), and the
 * frame's lighting (its shadow fit picks the shadow pass's levels). */
typedef struct gfx_batch {
    const gfx_queue *queue;
    const gfx_mesh_slot *meshes;
    const int *group_captured_first;
    const gfx_lighting *lighting;
} gfx_batch;
/* One instanced draw per skin_mesh and level with instances; shadow: at the shadow pass's levels; points:
 * every vertex once as a point; captured: the program for groups skinned once (NULL: none). Tells gfx_timer
 * what it drew. Returns the draw calls. */
int gfx_draw_batched(const gfx_batch *batch, const gfx_program *program, const gfx_program *captured,
                     mat4 view_projection, bool points, bool shadow);

#endif
