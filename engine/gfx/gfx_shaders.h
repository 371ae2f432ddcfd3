/* gfx_shaders: the GLSL 330 core sources of the renderer, kept apart from the C that drives them so each
 * reads top to bottom. Private to engine/gfx. Knows nothing of the C side beyond the names gfx.c binds:
 * attribute locations, uniform names and the texel layouts described below. */
#ifndef MARIONETTE_GFX_SHADERS_H
#define MARIONETTE_GFX_SHADERS_H

/* Attribute locations of the skinned vertex shader, shared with the vertex array setup in gfx.c. */
enum {
    GFX_ATTRIBUTE_POSITION = 0,
    GFX_ATTRIBUTE_NORMAL = 1,
    GFX_ATTRIBUTE_UV = 2,
    GFX_ATTRIBUTE_JOINTS = 3,
    GFX_ATTRIBUTE_WEIGHTS = 4,
    GFX_ATTRIBUTE_TANGENT = 5, /* skin_mesh.tangents: xyz along u, w the handedness */
};

/* Texels (RGBA32F) per instance in the instance texture buffer: the world matrix's four columns, the tint,
 * then (first palette matrix, first CPU-skinned vertex as int bits, 1 for dual-quaternion skinning or 0 for
 * linear, unused). */
enum { GFX_INSTANCE_TEXELS = 6 };

/* The skinning vertex shader also writes its object-space result to these outputs, which the fragment
 * shader ignores; gfx_capture_skinning records them by transform feedback. */
#define GFX_CAPTURED_POSITION "skinned_object_position"
#define GFX_CAPTURED_NORMAL "skinned_object_normal"
#define GFX_CAPTURED_TANGENT "skinned_object_tangent" /* xyz the skinned tangent, w its handedness */

/* The header and vertex inputs every skinned vertex shader starts with (locations as above). */
#define GFX_SKINNED_VERTEX_INPUTS                          \
    "#version 330 core\n"                                  \
    "layout(location = 0) in vec3 bind_position;\n"        \
    "layout(location = 1) in vec3 bind_normal;\n"          \
    "layout(location = 2) in vec2 uv;\n"                   \
    "layout(location = 3) in ivec4 joints;\n"              \
    "layout(location = 4) in vec4 weights;\n"                \
    "layout(location = 5) in vec4 bind_tangent;\n"

/* The skinning vertex shader in two parts, given to GL one after the other (gfx_link_program_parts): its
 * head (version, inputs, placement, the instance fetch) and the skinning itself. */
extern const char gfx_skinned_vertex_head[];
extern const char gfx_skinned_vertex_source[];
/* GFX_NAIVE_MAX_JOINTS (gfx_bench.h) as a literal the shader text can hold; gfx_bench.c asserts they agree. */
#define GFX_NAIVE_MAX_JOINTS_TEXT 128
/* The naive path's shader (gfx_bench.h): palette, world and tint as per-instance uniforms. */
extern const char gfx_naive_vertex_source[];
extern const char gfx_skinned_fragment_source[];
/* The CPU skinning path's vertex shader: fetches vertices pose_skin_cpu skinned instead of skinning them.
 * Texture buffer skinned_vertices (R32F) holds a block per instance and skin_mesh, starting at float
 * 6 * (instance's first vertex + part_first_vertex): the part's positions (xyz each), then its normals. The instance's texel 5 holds, in .y,
 * the first skinned vertex of the instance as int bits (floatBitsToInt: exact for any count). */
extern const char gfx_cpu_skinned_vertex_source[];
extern const char gfx_depth_fragment_source[];
extern const char gfx_normals_geometry_source[];
extern const char gfx_normals_fragment_source[];
extern const char gfx_lines_vertex_source[];
extern const char gfx_lines_fragment_source[];
extern const char gfx_ground_vertex_source[];
extern const char gfx_ground_mesh_vertex_source[]; /* uneven ground: positions and normals given */
extern const char gfx_ground_fragment_source[];
extern const char gfx_ground_lit_fragment_source[]; /* the ground where no shadow falls: no lookup */

#endif
