/* gfx_program: compiles and links the renderer's programs at gfx_setup and finds their uniforms once, so
 * draws only set values. Owns the programs (gfx_programs), held by gfx.c; gfx_link_program also serves
 * gfx_debug.c and gfx_text.c. Calls nothing of gfx but the shader sources; knows nothing of meshes or
 * frames. */
#ifndef MARIONETTE_GFX_PROGRAM_H
#define MARIONETTE_GFX_PROGRAM_H

#include "gfx_internal.h"

typedef struct gfx_program {
    GLuint program;
    GLint view_projection, camera_position, light_direction, light_color, ambient_color;
    GLint first_instance, clear_color;
    GLint bones, world, instance_tint; /* the naive program's per-instance uniforms; -1 elsewhere */
    GLint light_view_projection, shadow_texel, shadow_extent, shadow_normal_offset, shadows_on;
    GLint part_first_vertex, part_vertex_count, normal_length, line_color;
    GLint captured_layout; /* the CPU-skinned programs: vertices from the skin-once capture (gfx_skin_once.c) */
    GLint use_normal_map, use_specular_map; /* the lit programs: this part's maps are bound (units 5, 6) */
    GLint tangent_frames;                   /* the normals programs: draw each vertex's tangent frame too */
} gfx_program;

/* Every program: a vertex, optional geometry and a fragment shader. */
typedef enum gfx_program_kind {
    GFX_PROGRAM_SKINNED,      /* the default: skinning in the vertex shader, lit, shadowed */
    GFX_PROGRAM_CPU_SKINNED,  /* the CPU path: vertices skinned by pose_skin_cpu */
    GFX_PROGRAM_NAIVE,        /* the benchmark baseline: per-instance uniforms (gfx_bench.c) */
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

typedef struct gfx_programs {
    gfx_program of[GFX_PROGRAM_COUNT]; /* by gfx_program_kind */
} gfx_programs;

/* Compile and link a program from its stages (geometry may be NULL). captured: output names recorded by
 * transform feedback (named before linking), or NULL. */
bool gfx_link_program(GLuint *out, const char *vertex_source, const char *geometry_source,
                      const char *fragment_source, const char *const *captured, int captured_count,
                      const char *name, diag *err);
/* The same with the vertex stage in two parts, vertex_head then vertex_source (vertex_head NULL: one). */
bool gfx_link_program_parts(GLuint *out, const char *vertex_head, const char *vertex_source,
                            const char *geometry_source, const char *fragment_source, const char *const *captured,
                            int captured_count, const char *name, diag *err);
/* Every program of gfx_program_kind; false with err naming the shader that failed (those linked before
 * it stay, for gfx_programs_delete). */
bool gfx_programs_link(gfx_programs *programs, diag *err);
/* Delete them all; programs never linked (name 0) are skipped by GL. */
void gfx_programs_delete(gfx_programs *programs);

#endif
