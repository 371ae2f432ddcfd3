/* gfx_internal: the state the files of engine/gfx share and nobody else sees: the mesh slots, the frame's
 * queue and upload buffers, the programs and the shadow map. Each file owns one concern of it (gfx.c the
 * frame, gfx_mesh.c the meshes, gfx_palette.c the upload buffers, gfx_shadow.c the shadow pass, ...). */
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
    GFX_DEFAULT_SHADOW_MAP_SIZE = 2048,
    GFX_DEFAULT_DEBUG_LINES = 65536,
    GFX_FLOATS_PER_SKINNED_VERTEX = 6, /* position and normal, R32F texels (see gfx_shaders.h) */
    GFX_ERROR_TEXT_MAX = 512,
    GFX_LABEL_MAX = 64,
};

/* One skin_mesh on the GPU. */
typedef struct gfx_part {
    GLuint vertex_array;
    GLuint vertex_buffer;
    GLuint index_buffer;
    GLuint texture;
    int texture_entry;  /* in the shared texture table (gfx_texture.c); -1 for the placeholder */
    int vertex_count;
    int index_count;    /* level 0's (the whole mesh), at the start of the index buffer */
    /* Each level's triangles lie one after the other in the index buffer. */
    int level_first_index[GFX_LOD_LEVELS];
    int level_index_count[GFX_LOD_LEVELS];
    int level_vertex_count[GFX_LOD_LEVELS]; /* distinct vertices each level's triangles use */
    skin_mesh bind;     /* a copy of the bind-pose data the CPU skinning path needs (no uvs, triangles) */
    int first_vertex;   /* of this part among its mesh's vertices, for the CPU path's skinned buffer */
} gfx_part;

typedef struct gfx_mesh_slot {
    bool alive;
    uint16_t generation;  /* bumped on destroy so a stale handle is refused, not silently reused */
    int joint_count;
    int part_count;
    int vertex_count;  /* all parts together */
    gfx_part *parts;
    int level_count;   /* 1..GFX_LOD_LEVELS */
    bool last_is_stand_in;
    float bind_size;   /* the largest side of the model's bind box, model units: its height on screen decides
                        * the stand-in */
    float level_error[GFX_LOD_LEVELS];    /* model units, non-decreasing (model_lods.error) */
    int level_triangles[GFX_LOD_LEVELS];  /* every part together */
    int level_vertices[GFX_LOD_LEVELS];   /* distinct vertices used, every part together */
    char label[GFX_LABEL_MAX];
} gfx_mesh_slot;

/* An instance as submitted, before sorting by mesh. */
typedef struct gfx_queued_instance {
    int mesh_slot;
    int level;          /* of detail, in the picture; the shadow pass draws gfx_lod_shadow_level of it */
    int first_matrix;   /* into the frame's palette staging */
    pose_skinning skinning; /* how its palette is written there: matrices, or dual quaternions two a matrix */
    int first_skinned_vertex; /* into the CPU path's skinned vertices */
    mat4 world;         /* already including the Z-up to Y-up turn */
    vec4 tint;
    bool casts;         /* this frame, its shadow reaches the fitted shadow map (set by the sort) */
    uint16_t depth_key; /* its centre's distance from the camera, ordered like the distance (front to back) */
    vec3 caster_low, caster_high; /* its box with its shadow on the ground, world space (shadow frames) */
} gfx_queued_instance;

typedef struct gfx_program {
    GLuint program;
    GLint view_projection, camera_position, light_direction, light_color, ambient_color;
    GLint first_instance, clear_color;
    GLint bones, world, instance_tint; /* the naive program's per-instance uniforms; -1 elsewhere */
    GLint light_view_projection, shadow_texel, shadow_extent, shadow_normal_offset, shadows_on;
    GLint part_first_vertex, part_vertex_count, normal_length, line_color;
    GLint captured_layout; /* the CPU-skinned programs: vertices from the skin-once capture (gfx_skin_once.c) */
} gfx_program;

/* Every program: a vertex, optional geometry and a fragment shader. */
typedef enum gfx_program_kind {
    GFX_PROGRAM_SKINNED,      /* the default: skinning in the vertex shader, lit, shadowed */
    GFX_PROGRAM_CPU_SKINNED,  /* the CPU path: vertices skinned by pose_skin_cpu */
    GFX_PROGRAM_NAIVE,        /* the benchmark baseline: per-instance uniforms */
    GFX_PROGRAM_GROUND,       /* where a shadow may fall */
    GFX_PROGRAM_GROUND_LIT,   /* the rest of the ground: no shadow lookup */
    GFX_PROGRAM_GROUND_MESH,  /* the same two for uneven ground (gfx_set_ground) */
    GFX_PROGRAM_GROUND_MESH_LIT,
    GFX_PROGRAM_DEPTH,        /* shadow map depth passes of the three paths above */
    GFX_PROGRAM_CPU_DEPTH,
    GFX_PROGRAM_NAIVE_DEPTH,
    GFX_PROGRAM_NORMALS,      /* normals view of the two batched paths */
    GFX_PROGRAM_CPU_NORMALS,
    GFX_PROGRAM_COUNT
} gfx_program_kind;

/* Where a frame's palettes go. */
typedef enum gfx_palette_store {
    GFX_PALETTES_UNOPENED,  /* the frame has needed no room yet */
    GFX_PALETTES_STAGED,    /* palette_staging, copied into palette_buffer at gfx_end_frame */
    GFX_PALETTES_MAPPED,    /* palette_buffer itself, mapped for writing until gfx_end_frame */
} gfx_palette_store;

/* The renderer's one state, shared by the files of engine/gfx (defined in gfx.c). */
typedef struct gfx_state {
    bool ready;
    bool in_frame;
    bool naive;                      /* this frame is drawn the benchmark's naive way (gfx_bench.h) */

    gfx_mesh_slot *meshes;
    int mesh_capacity;

    gfx_program programs[GFX_PROGRAM_COUNT];
    /* The ground (gfx_shadow.c): a 3 x 3 grid of cells whose middle one is where shadows may fall. */
    GLuint ground_vertex_array, ground_vertex_buffer, ground_index_buffer;
    /* Uneven ground (gfx_set_ground), when tile_count > 0: a static mesh in tiles, each tile's triangles
     * one run of the index buffer, drawn with the shadow lookup where its box meets the shadowed ground. */
    GLuint ground_mesh_vertex_array, ground_mesh_vertex_buffer, ground_mesh_index_buffer;
    int ground_tile_count;
    int *ground_tile_first, *ground_tile_indices; /* per tile: its first index and how many */
    float (*ground_tile_box)[4];     /* per tile: min x, min z, max x, max z */
    float ground_heights[2];         /* the lowest and highest vertex (the floor shadows are pushed to) */
    /* Scratch for one frame's two multi-draws (shadowed, lit), tile_count entries each: sized at
     * gfx_set_ground so a frame allocates nothing. */
    GLsizei *ground_draw_counts;
    const void **ground_draw_offsets;

    /* Per-frame data: CPU staging and the GPU buffers behind the two texture buffers. Sized at setup;
     * grown (doubling) only when a frame submits more. */
    gfx_queued_instance *queued;
    int *sort_order, *sort_scratch; /* instance_capacity each: the queue's order front to back (gfx_draw.c) */
    float *instance_staging;     /* sorted by mesh, GFX_FLOATS_PER_INSTANCE each */
    int instance_capacity;
    int instance_count;
    float *palette_staging;      /* GFX_FLOATS_PER_MATRIX per matrix */
    int palette_capacity;        /* of the staging */
    int palette_count;
    /* Where this frame's palettes are written (see open_palettes): the mapped GPU buffer on the default
     * path, saving the copy from staging, or the staging. */
    gfx_palette_store palette_store;
    float *palette_mapping;      /* the mapped part of palette_buffer, from matrix palette_mapping_first on */
    int palette_mapping_first;
    bool palettes_lost;          /* this frame: the driver lost the mapped buffer's contents */
    /* Instances are grouped by (mesh, level): group g = slot * GFX_LOD_LEVELS + level. */
    int *mesh_instance_count;    /* mesh_capacity * GFX_LOD_LEVELS entries: instances per group this frame */
    int *mesh_first_instance;    /* mesh_capacity * GFX_LOD_LEVELS entries: where each group's instances start */
    int *group_cursors;          /* 2 * mesh_capacity * GFX_LOD_LEVELS entries: the sort's scratch */
    int *mesh_caster_count;      /* mesh_capacity * GFX_LOD_LEVELS entries: of a group's instances, how many
                                  * (the first ones) cast into the shadow map: the shadow pass draws those */
    float *group_scale;          /* mesh_capacity * GFX_LOD_LEVELS entries: the largest world scale in the group */
    GLuint palette_buffer, palette_texture;
    GLuint instance_buffer, instance_texture;
    int palette_buffer_matrices;    /* size of the GPU buffers, apart from the staging's capacity: an upload
                                     * grows them to it; a mapped frame grows the palette buffer alone */
    int instance_buffer_instances;
    /* The CPU skinning path's output, GFX_FLOATS_PER_SKINNED_VERTEX per vertex, and its texture buffer. */
    float *skinned_staging;
    int skinned_capacity;            /* vertices */
    int skinned_count;
    GLuint skinned_buffer, skinned_texture;
    int skinned_buffer_vertices;
    /* Skin once (gfx_skin_once.c): per (mesh, level) group, where its captured vertices start in
     * skinned_buffer (-1: skinned in the vertex shader by each pass); mesh_capacity * GFX_LOD_LEVELS. */
    int *group_captured_first;
    int captured_vertices;           /* this frame */
    int max_skinned_vertices;        /* what one texture buffer can hold (GL_MAX_TEXTURE_BUFFER_SIZE) */

    /* The shadow map: a depth texture rendered from the light each frame, into the part of it the
     * frame's fit uses. */
    GLuint shadow_framebuffers[GFX_SHADOW_MAP_LEVELS], shadow_textures[GFX_SHADOW_MAP_LEVELS];
    int shadow_map_size;             /* of the largest; each next one is half the last */
    int shadow_map_levels;
    bool shadows_on;                 /* this frame */
    vec3 casters_low, casters_high;  /* this frame's queued instances and their shadows on the ground */
    gfx_shadow_fit shadow_fit;       /* light_view_projection, the used texels, the shadowed ground */

    gfx_frame_desc frame;
    mat4 view_projection;
    vec3 light_unit;                 /* the frame's light direction, normalized */
    gfx_stats stats;
    char last_error[GFX_ERROR_TEXT_MAX];
    char gl_errors[GFX_ERROR_TEXT_MAX];
} gfx_state;

extern gfx_state gfx;

/* Record a misuse in words for gfx_last_error; returns false for the caller to pass on. */
bool gfx_misuse(const char *format, ...) __attribute__((format(printf, 1, 2)));

/* The live slot a handle names, or NULL (stale, never made, or before gfx_setup). */
gfx_mesh_slot *gfx_find_mesh(gfx_mesh mesh);

/* Compile and link a program from its stages (geometry may be NULL). captured: output names recorded by
 * transform feedback (named before linking), or NULL. */
bool gfx_link_program(GLuint *out, const char *vertex_source, const char *geometry_source,
                      const char *fragment_source, const char *const *captured, int captured_count,
                      const char *name, diag *err);

/* Debug lines (gfx_debug.c): set up with gfx_setup, emptied by gfx_begin_frame, drawn last by
 * gfx_end_frame into the bound framebuffer. gfx_debug_draw returns its draw calls (0 or 1). */
bool gfx_debug_setup(int line_capacity, diag *err);
void gfx_debug_shutdown(void);
void gfx_debug_begin(void);
int gfx_debug_draw(mat4 view_projection, int *lines, int *dropped);

#endif
