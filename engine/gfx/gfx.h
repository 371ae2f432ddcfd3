/* gfx: the OpenGL 3.3 core renderer for skinned characters, in the shape of sokol_gfx: one setup/shutdown
 * pair, descriptors filled with designated initializers (zero means "default"), small typed handles, and
 * misuse reported in words. A mesh's geometry is uploaded once; per frame only skin matrices and instance
 * data change: every palette of the frame goes to one texture buffer (written straight into it, mapped),
 * and each mesh is drawn with one instanced draw call for all its instances, skinned in the vertex shader.
 * Knows nothing of windows, input or SDL (platform owns those), of files (it reads none: a mesh's images
 * come as pixels, gfx_image, decoded by whoever read them, engine/image for the game), nor of clips or the
 * animation controller: it takes models, pixels and palettes. Needs a current GL 3.3 core context with its
 * entry points loaded (platform_setup does that). The benchmark's naive frames are in gfx_bench.h, the
 * skinning capture check in gfx_capture.h. */
#ifndef MARIONETTE_GFX_H
#define MARIONETTE_GFX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cglm/cglm.h>

#include "../base/diag.h"
#include "../model/model.h"
#include "../model/model_lods.h"
#include "../pose/pose_dq.h"

/* ---- Setup ---------------------------------------------------------------------------------------------- */

typedef struct gfx_desc {
    int mesh_capacity;      /* meshes alive at once; 0: 64. Fixed: gfx_make_mesh fails beyond it. */
    int instance_capacity;  /* instances per frame before the buffers grow; 0: 256 */
    int palette_capacity;   /* skin matrices per frame before the buffers grow; 0: instance_capacity * 64 */
    int shadow_map_size;    /* side of the square shadow map in texels, 64..8192; 0: 2048 */
    int debug_line_capacity; /* debug lines per frame (skeletons, boxes); more are dropped and counted;
                              * 0: 65536 */
    bool no_gpu_timer;      /* no GL timer queries: gfx_stats.gpu_timed stays false (to measure their cost) */
    int gpu_timer_every;    /* time one frame in this many, 1..1000; 0: 30 (twice a second at 60 fps). A timed
                             * frame flushes after each pass, which a tiler such as llvmpipe pays for: about
                             * 6 ms at 1280x720 there, so timing every frame would slow every frame */
} gfx_desc;

bool gfx_setup(const gfx_desc *desc, diag *err);
void gfx_shutdown(void);

/* ---- Meshes --------------------------------------------------------------------------------------------- */

/* A model's skinned meshes on the GPU: static vertex buffers (bind positions, normals, uvs, 4 joint
 * indices, 4 weights), an index buffer and a texture per skin_mesh. Textures are shared: images of one
 * key are uploaded once for every mesh that uses them, and deleted with the last. id 0 is never a valid
 * mesh. */
typedef struct gfx_mesh {
    uint32_t id;
} gfx_mesh;

/* Pixels a skin_mesh is drawn with, read during gfx_make_mesh only (gfx keeps its own copy on the GPU). */
typedef struct gfx_image {
    const uint8_t *rgba; /* width * height pixels, 4 bytes each, top row first, rows packed; NULL: the
                          * placeholder (a magenta checker) */
    int width, height;   /* at least 1 each (else the placeholder, with a warning) */
    uint32_t key;        /* images of one nonzero key are the same pixels, uploaded once and shared (the
                          * image cache's image.id); 0: never shared */
} gfx_image;

typedef struct gfx_mesh_desc {
    const model *model;  /* read during gfx_make_mesh only; gfx keeps no pointer into it */
    const char *label;   /* for messages; NULL: "mesh" */
    const char *path;    /* the model's file, for messages at its shader lines; NULL: they name the label */
    /* One image per model->meshes (rgba NULL: the placeholder); NULL: every skin_mesh the placeholder. */
    const gfx_image *images;
    /* Its maps, one per model->meshes (rgba NULL: none) or NULL for none at all: a tangent-space normal map
     * (red along skin_mesh.tangents, green along the bitangent, blue out; 128 128 255 is the normal itself)
     * and a specular map (its red: how strongly the texel reflects the highlight). A map of another size
     * than its mesh's image is not used, and said in warnings at the mesh's shader line. */
    const gfx_image *normal_maps;
    const gfx_image *specular_maps;
    /* Coarser levels of the model's meshes (build_lod.h), read during gfx_make_mesh only; NULL: level 0
     * alone, the file's triangles. */
    const model_lods *lods;
} gfx_mesh_desc;

/* Upload the model's meshes. An image that cannot be a texture is replaced by the placeholder and
 * reported in `warnings` (may be NULL), never an error. Returns {0} with err filled in on failure. */
gfx_mesh gfx_make_mesh(const gfx_mesh_desc *desc, diag *err, diag_list *warnings);
void gfx_destroy_mesh(gfx_mesh mesh);
/* Joints a palette for this mesh must have; 0 for an invalid handle. */
int gfx_mesh_joint_count(gfx_mesh mesh);

/* ---- The ground ----------------------------------------------------------------------------------------- */

/* The ground is flat (y = 0, a 1 m grid) until given a mesh: uneven ground, drawn with the same look (the
 * grid seen from above, lit by its normals) and receiving the characters' shadows. gfx knows nothing of
 * how the heights were made: whoever has them (the game, from engine/world's ground_at) gives vertices. */
typedef struct gfx_ground_vertex {
    float position[3]; /* world space, Y up, metres */
    float normal[3];   /* unit */
} gfx_ground_vertex;

/* A run of the index buffer that is drawn whole, with or without the shadow lookup: a patch of the ground
 * (a few metres square is right: the lookup costs where it is drawn, so the patches where shadows fall
 * should not be much larger than the shadows). */
typedef struct gfx_ground_tile {
    int first_index, index_count; /* whole triangles: multiples of 3 */
} gfx_ground_tile;

typedef struct gfx_ground_desc {
    const gfx_ground_vertex *vertices; /* read during gfx_set_ground only */
    int vertex_count;
    const uint32_t *indices;           /* triangles, counter-clockwise seen from above */
    int index_count;
    const gfx_ground_tile *tiles;      /* the index buffer cut into patches, in any order, every triangle in one */
    int tile_count;
} gfx_ground_desc;

/* Upload the ground once (static buffers: call it when the ground changes, not per frame); NULL or no
 * vertices: back to the flat ground. The shadow fit then reaches down to the mesh's lowest vertex. False
 * with a message (gfx_last_error) on misuse: indices out of range or not whole triangles, a tile outside
 * the indices, a position that is not finite; the ground drawn before is kept then. Allocates here. */
bool gfx_set_ground(const gfx_ground_desc *desc);

/* ---- Frames --------------------------------------------------------------------------------------------- */

typedef enum gfx_culling {
    GFX_CULLING_BACK_FACES = 0, /* default: the MD5 winding (clockwise seen from the front) is front-facing */
    GFX_CULLING_NONE,           /* both sides drawn */
    GFX_CULLING_FRONT_FACES,    /* debug: cull what should be seen, so a model looks inside-out */
} gfx_culling;

/* World space is GL's: Y up, metres. */
typedef struct gfx_frame_desc {
    int width, height;            /* viewport in pixels (required) */
    mat4 view, projection;        /* camera */
    vec3 camera_position;         /* world space, for specular highlights */
    vec3 light_direction;         /* direction the light travels, world space; zero: down and forward */
    vec3 light_color;             /* zero: white */
    vec3 ambient_color;           /* zero: a dim blue-grey */
    vec4 clear_color;             /* zero alpha: a light sky grey */
    bool hide_ground;             /* the ground (flat, or gfx_set_ground's) and its 1 m grid are drawn unless
                                   * this is set */
    gfx_culling culling;
    bool no_shadows;              /* the light casts shadows (a skinned depth pass) unless this is set */
    vec3 shadow_center;           /* the shadow map covers a sphere of shadow_radius metres around this */
    float shadow_radius;          /* point (cut to what the camera sees); 0: the frame's (visible) instances */
    float shadow_distance;        /* shadows fall on what the camera sees up to this far, metres, 0..1000;
                                   * 0 (or out of range): 40 */
    bool cpu_skinning;            /* skin on the CPU (pose_skin_cpu, the reference) and draw the result,
                                   * instead of skinning in the vertex shader: same batching, same picture */
    bool debug_normals;           /* draw each skinned vertex's normal as a short line */
    bool debug_tangents;          /* and its tangent frame: the tangent red, the bitangent green (the mesh's
                                   * skin_mesh.tangents, skinned; the GPU path) */
    bool no_maps;                 /* the meshes' normal and specular maps are used unless this is set: then
                                   * every mesh is drawn as one without them (flat, the default highlight) */
    /* Level of detail (meshes made with lods): each instance is drawn at the coarsest mesh level whose
     * simplification error, projected at its distance, stays within lod_error_pixels, or as the stand-in
     * when it stands at most stand_in_pixels tall; the shadow pass one level coarser where the shadow map
     * cannot tell the difference. */
    float lod_error_pixels;       /* 0: half a pixel; negative: level 0 always (level of detail off) */
    float stand_in_pixels;        /* the far stand-in is drawn for characters at most this tall on screen (its
                                   * bind box's largest side), pixels; 0: 48; negative: never */
    int lod_force_level;          /* N > 0: every instance at level N - 1 (clamped to its mesh's levels) */
    bool no_stand_ins;            /* never the far stand-in level: the last mesh level is as coarse as it gets */
    bool lod_colors;              /* debug: tint each instance by the level it is drawn at */
    /* Skin once (with shadows): the characters whose level uses most of their mesh are skinned by one
     * transform-feedback pass and both the shadow and the picture drawn from the result, instead of each
     * pass skinning them again. */
    bool skin_once;
} gfx_frame_desc;

enum { GFX_LOD_LEVELS = LOD_LEVELS_MAX };

/* What gfx remembers of one instance between frames for its level of detail (hysteresis: a character
 * near a switching distance does not flicker between two levels). Kept by the caller, one per entity,
 * zero-initialised; read and written by gfx_submit and gfx_submit_palette. */
typedef struct gfx_lod_memory {
    uint8_t level;  /* the level drawn last time */
    uint8_t known;  /* 0 until the first submit */
} gfx_lod_memory;

/* One character to draw this frame. The palette is copied at submit, so it may change right after. */
typedef struct gfx_instance {
    gfx_mesh mesh;
    mat4 world;            /* placement in the Y-up world, rigid with optional uniform scale; the Z-up to
                            * Y-up turn of MD5 data is applied after it by gfx, so identity stands the
                            * character on the origin facing +X */
    const mat4 *palette;   /* gfx_mesh_joint_count(mesh) skin matrices, as pose_palette writes them */
    int joint_count;       /* must equal gfx_mesh_joint_count(mesh) */
    /* How its vertices follow its joints: linear blend (zero, the default) skins with `palette`, dual
     * quaternions with `dual_quaternions`, joint_count of them as pose_dual_quaternion_palette writes them
     * (8 floats a joint where a matrix is 16: half the upload). Every pass follows it: the picture, the
     * shadow, skin once and the CPU path (pose_skin_cpu_dual_quaternion); the naive frames of gfx_bench.h
     * skin linearly only and refuse it. */
    pose_skinning skinning;
    const pose_dual_quaternion *dual_quaternions;
    vec4 tint;             /* multiplies the texture; zero: white (no tint) */
    float bounds[2][3];    /* min and max corners of a box, in the model's MD5 space (as world places it),
                            * that holds the skinned mesh: anim_controller_bounds grown by the model's
                            * skin_reach. An instance is culled when neither the box nor its shadow on
                            * the ground can be seen. All zero: never culled. */
    gfx_lod_memory *lod;   /* this entity's level memory; NULL: chosen afresh each frame (no hysteresis) */
} gfx_instance;

void gfx_begin_frame(const gfx_frame_desc *desc);
/* Queue an instance (or cull it: then true, and counted in gfx_stats.culled). false with a message (see
 * gfx_last_error) on misuse: invalid mesh, wrong joint count, no palette, or outside a frame. Over capacity the CPU and GPU buffers grow (doubling, counted in
 * gfx_stats.buffer_grows); otherwise a frame allocates nothing. */
bool gfx_submit(const gfx_instance *instance);
/* gfx_submit without the copy: queue the instance (instance->palette is not read; NULL is fine) and
 * return where its joint_count skin matrices go in the frame's upload buffer, for the caller to write
 * (pose_palette straight into it, on any thread) before gfx_end_frame. On the default path that is the
 * GPU buffer itself, mapped for writing: write the slot, never read it (reading a write-only mapping is
 * undefined, and slow where it is GPU memory). On naive and cpu_skinning frames, which read the palettes
 * on the CPU, and when the driver gives no usable mapping, it is CPU staging copied at gfx_end_frame.
 * NULL when culled (counted in gfx_stats.culled) or on misuse (gfx_last_error). The matrices must all be
 * written: the slot holds whatever was there before. The address moves when a later submit grows the
 * buffer (what was written is kept): to keep several, make room for all of them first with gfx_reserve. */
mat4 *gfx_submit_palette(const gfx_instance *instance);
/* gfx_submit_palette for an instance skinned with dual quaternions (instance->skinning): where its
 * joint_count dual quaternions go, for pose_dual_quaternion_palette to write, on the same terms. Each kind
 * of slot is refused for the other kind of instance (the sizes differ). */
pose_dual_quaternion *gfx_submit_dual_quaternions(const gfx_instance *instance);
/* Make room this frame for `instances` more instances with `matrices` more skin matrices (a dual-quaternion
 * instance takes half its joint count, rounded up), so the submits
 * that follow within those counts never grow (move) the buffers. Like the frame's first submit, the first
 * reserve with matrices picks where the frame's palettes go, mapping the palette buffer on the default
 * path. false with a message on misuse (outside a frame, negative or absurd counts) or when memory runs
 * out. */
bool gfx_reserve(int instances, int matrices);
/* Draw everything queued into the currently bound framebuffer: the palette buffer unmapped (or, off the
 * mapped path, every palette copied in one upload), one upload of the instance data (sorted by mesh
 * here), the shadow pass, clear, one instanced draw call per (mesh, level) group, then the ground (where
 * no character stands, so its pixels behind them are not shaded). Should the driver have lost
 * the mapped palettes (glUnmapBuffer's GL_FALSE), the frame is drawn without its instances and says so
 * in gfx_stats.palettes_lost and gfx_last_error. Ends gfx_begin_frame's frames only: a naive frame
 * (gfx_bench.h) is refused, with a message, and ends with gfx_bench_end_naive_frame. */
void gfx_end_frame(void);

typedef struct gfx_stats {
    int draw_calls;         /* GL draw calls of the last frame, ground included */
    int instances;          /* instances drawn in the last frame */
    int palette_matrices;   /* skin matrices' room given to the GPU in the last frame: a linear instance's
                             * joint takes one, a dual-quaternion instance's two joints one */
    size_t palette_bytes;   /* the last frame's palette upload: palette_matrices of 64 bytes */
    int buffer_grows;       /* times the per-frame buffers grew since setup */
    int palette_uploads;    /* separate palette uploads in the last frame: 1 when instances were drawn the
                             * default way (every palette in one mapped buffer or one copy), one per
                             * instance on gfx_bench.h's naive frames */
    size_t palette_bytes_copied; /* bytes of palettes copied into GL in the last frame after they were
                                  * written: 0 when they were written straight into the mapped buffer
                                  * (through gfx_submit_palette, or by gfx_submit's own copy); the staging's
                                  * upload on cpu_skinning frames (or when mapping failed); every uniform
                                  * upload naive */
    bool palettes_mapped;   /* the last frame's palettes were written straight into the mapped buffer */
    bool palettes_lost;     /* the driver lost them (glUnmapBuffer gave GL_FALSE): instances not drawn */
    int culled;             /* instances submitted but culled (out of view, shadow too) */
    int shadow_draw_calls;  /* draw calls of the shadow map's depth pass (included in draw_calls) */
    int cpu_skinned_vertices; /* vertices pose_skin_cpu skinned (cpu_skinning frames) */
    int skinned_once_vertices; /* vertices skinned once for both passes (gfx_frame_desc.skin_once) */
    int debug_lines;        /* debug lines drawn */
    int debug_lines_dropped;/* debug lines over gfx_desc.debug_line_capacity, not drawn */
    /* Textures, as of the gfx_frame_stats call (not of a frame): */
    int textures;           /* distinct images held (the placeholder not counted) */
    int textures_loaded;    /* images uploaded since setup */
    size_t texture_bytes;   /* RGBA bytes of the images held (base level, no mipmaps) */
    /* The frame budget of the last frame: */
    int64_t triangles;      /* triangles drawn by instanced draws, every pass (instances x their level's) */
    int64_t shadow_triangles; /* of which the shadow pass */
    int lod_instances[GFX_LOD_LEVELS];        /* instances drawn at each level in the picture */
    int shadow_lod_instances[GFX_LOD_LEVELS]; /* and in the shadow pass */
    /* GPU time per pass in milliseconds, from GL timer queries read a few frames later (so nothing waits
     * for them): the figures lag the frame by that much. gpu_timed is false where the driver has no timer
     * queries, or before the first results arrive (one frame in gfx_desc.gpu_timer_every is timed).
     * Shadow includes the frame's uploads before it, characters the clear; overlay is the debug lines plus what the caller drew between gfx_overlay_begin and
     * gfx_overlay_end (the HUD's text), and frame all of gfx_end_frame plus that. */
    bool gpu_timed;
    float gpu_shadow_ms, gpu_ground_ms, gpu_characters_ms, gpu_overlay_ms, gpu_frame_ms;
} gfx_stats;

gfx_stats gfx_frame_stats(void);

/* Bracket what is drawn over the frame after gfx_end_frame (the HUD's text, with gfx_text), so its GPU
 * time counts in gfx_stats.gpu_overlay_ms and gpu_frame_ms. Optional; once per frame; no-ops elsewhere. */
void gfx_overlay_begin(void);
void gfx_overlay_end(void);

/* NULL when GL reports no error since the last call; otherwise every pending GL error in words (the
 * text stays valid until the next call). Tests and debug builds call it after each frame. */
const char *gfx_check_errors(void);

/* The last misuse reported by gfx_submit or gfx_begin_frame, or lost palettes (gfx_end_frame), or "". */
const char *gfx_last_error(void);

/* Wait until the GPU has done every command given so far (glFinish): a benchmark's point of measurement. */
void gfx_finish(void);
/* The GL renderer and version in words ("llvmpipe (LLVM 15.0.6, 256 bits), 4.5 (Core Profile) Mesa ..."),
 * for a benchmark's header; "no GL context" before gfx_setup. The text stays valid until gfx_shutdown. */
const char *gfx_renderer_name(void);

/* ---- Debug views ---------------------------------------------------------------------------------------- */
/* Lines queued between gfx_begin_frame and gfx_end_frame and drawn over the scene (no depth test, so a
 * skeleton shows through its mesh) with one draw call. Over capacity they are dropped and counted. */

/* A world-space segment. */
void gfx_debug_line(vec3 from, vec3 to, vec4 color);
/* A world-space point as three segments along the axes, half_size either side of it. */
void gfx_debug_cross(vec3 center, float half_size, vec4 color);
/* A box given in a model's MD5 space (as gfx_instance.bounds) placed by a world matrix (as
 * gfx_instance.world): 12 edges. */
void gfx_debug_box(mat4 world, float bounds[2][3], vec4 color);
/* A skeleton's bones from an object-space pose (pose_to_object's output) placed by a world matrix: a
 * line from each joint to its parent and a small cross at every joint. */
void gfx_debug_skeleton(mat4 world, const skeleton *skeleton, const joint_pose *object_pose, vec4 color);

/* The turn from MD5 space (Z up) to GL world space (Y up): -90 degrees about X, (x, y, z) -> (x, z, -y). */
void gfx_z_up_to_y_up(mat4 out);

#endif
