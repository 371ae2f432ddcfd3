/* gfx: the renderer's one instance and its frame: setup, the entry points of gfx.h (and of gfx_capture.h),
 * begin, queue (checks, culling, room in the upload buffers), end (upload, shadow pass, instances, ground,
 * debug lines). The renderer is a file-static made of one state per concern, each owned by its own file
 * (gfx_internal.h lists them): this file holds them, passes each part pointers to what it needs, and owns
 * the frame's description, its stats and the error texts. The benchmark's naive frames end through
 * gfx_frame.h (gfx_bench.c).
 * See gfx.h. */
#include "gfx.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gfx_capture_internal.h"
#include "gfx_cpu_skin.h"
#include "gfx_debug.h"
#include "gfx_draw.h"
#include "gfx_frame.h"
#include "gfx_internal.h"
#include "gfx_lod.h"
#include "gfx_mesh.h"
#include "gfx_palette.h"
#include "gfx_program.h"
#include "gfx_shadow.h"
#include "gfx_skin_once.h"
#include "gfx_texture.h"
#include "gfx_timer.h"

/* The default budget of a level's simplification error on screen (gfx_frame_desc.lod_error_pixels). */
static const float GFX_DEFAULT_LOD_ERROR_PIXELS = 0.5f;
/* The default height on screen below which a character may be the stand-in (gfx_frame_desc.stand_in_pixels). */
static const float GFX_DEFAULT_STAND_IN_PIXELS = 48.0f;
/* Frames between two timed ones (gfx_desc.gpu_timer_every): the figures refresh twice a second at 60 fps. */
enum { GFX_DEFAULT_GPU_TIMER_EVERY = 30 };

/* gfx_begin_frame's frames: anything may be submitted; gfx_end_frame ends them. */
static const gfx_frame_rules default_rules = {.begin = "gfx_begin_frame", .end = "gfx_end_frame"};

/* The renderer: the parts, each owned by its file, and what is this file's own. */
typedef struct gfx_renderer {
    bool ready;
    bool in_frame;
    const gfx_frame_rules *rules;    /* the frame's, set by its begin */

    gfx_meshes meshes;               /* gfx_mesh.c */
    gfx_programs programs;           /* gfx_program.c */
    gfx_queue queue;                 /* gfx_draw.c */
    gfx_palettes palettes;           /* gfx_palette.c */
    gfx_skinned_vertices skinned;    /* gfx_cpu_skin.c */
    gfx_skin_once skin_once;         /* gfx_skin_once.c */
    gfx_shadow shadow;               /* gfx_shadow.c */
    gfx_ground ground;               /* gfx_shadow.c */

    gfx_frame_desc frame;            /* defaults filled in */
    mat4 view_projection;
    vec3 light_unit;                 /* the frame's light direction, normalized */
    gfx_stats stats;                 /* the last frame's; culled counts the frame being queued */
    char last_error[GFX_ERROR_TEXT_MAX];
    char gl_errors[GFX_ERROR_TEXT_MAX];
} gfx_renderer;

static gfx_renderer gfx;

/* ---- Messages ------------------------------------------------------------------------------------------ */

bool gfx_misuse(const char *format, ...)
{
    va_list arguments;
    va_start(arguments, format);
    vsnprintf(gfx.last_error, sizeof gfx.last_error, format, arguments);
    va_end(arguments);
    return false;
}

const char *gfx_last_error(void)
{
    return gfx.last_error;
}

void gfx_finish(void)
{
    glFinish();
}

const char *gfx_renderer_name(void)
{
    static char name[256];
    const char *renderer = (const char *)glGetString(GL_RENDERER);
    const char *version = (const char *)glGetString(GL_VERSION);
    if (!renderer || !version)
        return "no GL context";
    snprintf(name, sizeof name, "%s, %s", renderer, version);
    return name;
}

static const char *gl_error_name(GLenum error)
{
    switch (error) {
    case GL_INVALID_ENUM: return "GL_INVALID_ENUM";
    case GL_INVALID_VALUE: return "GL_INVALID_VALUE";
    case GL_INVALID_OPERATION: return "GL_INVALID_OPERATION";
    case GL_INVALID_FRAMEBUFFER_OPERATION: return "GL_INVALID_FRAMEBUFFER_OPERATION";
    case GL_OUT_OF_MEMORY: return "GL_OUT_OF_MEMORY";
    default: return "unknown GL error";
    }
}

const char *gfx_check_errors(void)
{
    size_t used = 0;
    gfx.gl_errors[0] = '\0';
    /* A lost context can report errors forever; a handful says enough. */
    for (int i = 0; i < 8; ++i) {
        GLenum error = glGetError();
        if (error == GL_NO_ERROR)
            break;
        int wrote = snprintf(gfx.gl_errors + used, sizeof gfx.gl_errors - used, "%s%s (0x%04x)",
                             used ? ", " : "", gl_error_name(error), (unsigned)error);
        if (wrote > 0)
            used += (size_t)wrote < sizeof gfx.gl_errors - used ? (size_t)wrote : sizeof gfx.gl_errors - used - 1;
    }
    return used ? gfx.gl_errors : NULL;
}

/* ---- Setup --------------------------------------------------------------------------------------------- */

/* The per-frame buffers grew this many times since setup, all parts together. */
static int buffer_grows(void)
{
    return gfx.queue.grows + gfx.palettes.grows + gfx.skinned.grows;
}

/* What the programs read this frame through texture units: the shadow map once the frame has one. */
static gfx_frame_textures frame_textures(void)
{
    return (gfx_frame_textures){.palettes = gfx.palettes.texture,
                                .instances = gfx.queue.instance_texture,
                                .skinned_vertices = gfx.skinned.texture,
                                .shadow_map = gfx_shadow_map_texture(&gfx.shadow)};
}

static gfx_lighting frame_lighting(void)
{
    return (gfx_lighting){.frame = &gfx.frame, .shadow = &gfx.shadow.frame};
}

bool gfx_setup(const gfx_desc *desc, diag *err)
{
    if (gfx.ready)
        return diag_set(err, "gfx", 0, "gfx_setup called twice without gfx_shutdown");
    gfx_desc d = desc ? *desc : (gfx_desc){0};
    if (d.mesh_capacity < 0 || d.instance_capacity < 0 || d.palette_capacity < 0 || d.debug_line_capacity < 0)
        return diag_set(err, "gfx", 0, "capacities must not be negative");
    if (d.gpu_timer_every < 0 || d.gpu_timer_every > 1000)
        return diag_set(err, "gfx", 0, "gpu_timer_every %d is outside 1..1000", d.gpu_timer_every);
    if (d.shadow_map_size != 0 && (d.shadow_map_size < 64 || d.shadow_map_size > 8192))
        return diag_set(err, "gfx", 0, "shadow_map_size %d is outside 64..8192", d.shadow_map_size);
    memset(&gfx, 0, sizeof gfx);
    gfx.rules = &default_rules;
    int mesh_capacity = d.mesh_capacity ? d.mesh_capacity : GFX_DEFAULT_MESH_CAPACITY;
    int instance_capacity = d.instance_capacity ? d.instance_capacity : GFX_DEFAULT_INSTANCE_CAPACITY;
    int palette_capacity =
        d.palette_capacity ? d.palette_capacity : instance_capacity * GFX_DEFAULT_JOINTS_PER_INSTANCE;

    bool made = gfx_meshes_setup(&gfx.meshes, mesh_capacity);
    made = gfx_queue_setup(&gfx.queue, instance_capacity, mesh_capacity) && made;
    made = gfx_palettes_setup(&gfx.palettes, palette_capacity) && made;
    if (!made) {
        gfx.ready = true;
        gfx_shutdown();
        return diag_set(err, "gfx", 0, "out of memory for the per-frame buffers");
    }

    if (!gfx_programs_link(&gfx.programs, err) ||
        !gfx_debug_setup(d.debug_line_capacity ? d.debug_line_capacity : GFX_DEFAULT_DEBUG_LINES, err)) {
        gfx.ready = true;
        gfx_shutdown();
        return false;
    }

    gfx_texture_setup();
    gfx_timer_setup(d.no_gpu_timer, d.gpu_timer_every ? d.gpu_timer_every : GFX_DEFAULT_GPU_TIMER_EVERY);
    if (!gfx_skin_once_setup(&gfx.skin_once, gfx.queue.group_count)) {
        gfx.ready = true;
        gfx_shutdown();
        return diag_set(err, "gfx", 0, "out of memory for the per-frame buffers");
    }
    gfx_ground_setup(&gfx.ground);
    if (!gfx_shadow_setup(&gfx.shadow, d.shadow_map_size ? d.shadow_map_size : GFX_DEFAULT_SHADOW_MAP_SIZE, err)) {
        gfx.ready = true;
        gfx_shutdown();
        return false;
    }
    gfx_cpu_skin_setup(&gfx.skinned);
    gfx_palettes_make_buffer(&gfx.palettes);
    gfx_queue_make_buffer(&gfx.queue);

    gfx.ready = true;
    const char *errors = gfx_check_errors();
    if (errors) {
        diag_set(err, "gfx", 0, "GL errors during setup: %s", errors);
        gfx_shutdown();
        return false;
    }
    return true;
}

void gfx_shutdown(void)
{
    if (!gfx.ready)
        return;
    gfx_meshes_shutdown(&gfx.meshes);
    gfx_programs_delete(&gfx.programs);
    gfx_debug_shutdown();
    gfx_shadow_shutdown(&gfx.shadow);
    gfx_ground_shutdown(&gfx.ground);
    gfx_skin_once_shutdown(&gfx.skin_once);
    gfx_timer_shutdown();
    gfx_cpu_skin_shutdown(&gfx.skinned);
    gfx_texture_shutdown();
    gfx_palettes_shutdown(&gfx.palettes);
    gfx_queue_shutdown(&gfx.queue);
    memset(&gfx, 0, sizeof gfx);
}

/* ---- Meshes, the ground, the capture check: the parts' work on the renderer's parts -------------------- */

gfx_mesh gfx_make_mesh(const gfx_mesh_desc *desc, diag *err, diag_list *warnings)
{
    if (!gfx.ready) {
        diag_set(err, desc && desc->label ? desc->label : "mesh", 0, "gfx_make_mesh before gfx_setup");
        return (gfx_mesh){0};
    }
    return gfx_meshes_make(&gfx.meshes, desc, err, warnings);
}

void gfx_destroy_mesh(gfx_mesh mesh)
{
    if (!gfx_meshes_destroy(&gfx.meshes, mesh))
        gfx_misuse("gfx_destroy_mesh: mesh %u is not alive", (unsigned)mesh.id);
}

int gfx_mesh_joint_count(gfx_mesh mesh)
{
    gfx_mesh_slot *slot = gfx_meshes_find(&gfx.meshes, mesh);
    return slot ? slot->joint_count : 0;
}

bool gfx_set_ground(const gfx_ground_desc *desc)
{
    if (!gfx.ready)
        return gfx_misuse("gfx_set_ground before gfx_setup");
    diag err;
    if (!gfx_ground_set(&gfx.ground, desc, &err))
        return gfx_misuse("%s: %s", err.file, err.message);
    return true;
}

/* The capture borrows the frame's palette and instance buffers and the skinning program, outside frames,
 * lit without a shadow (it captures object space, so the lighting is only what the program expects). */
static bool capture(gfx_mesh mesh, int mesh_index, const void *palette, int joint_count, int matrices,
                    pose_skinning skinning, float (*positions)[3], float (*normals)[3], float (*tangents)[4],
                    diag *err)
{
    gfx_frame_shadow no_shadow = {.on = false, .fit = gfx.shadow.frame.fit};
    gfx_lighting lighting = {.frame = &gfx.frame, .shadow = &no_shadow};
    gfx_frame_textures textures = frame_textures();
    gfx_capture_parts parts = {.meshes = &gfx.meshes,
                               .in_frame = gfx.in_frame,
                               .palettes = &gfx.palettes,
                               .queue = &gfx.queue,
                               .skinning = &gfx.programs.of[GFX_PROGRAM_SKINNED],
                               .lighting = &lighting,
                               .textures = &textures,
                               .view_projection = gfx.view_projection};
    return gfx_capture_run(&parts, mesh, mesh_index, palette, joint_count, matrices, skinning, positions, normals,
                           tangents, err);
}

bool gfx_capture_skinning(gfx_mesh mesh, int mesh_index, const mat4 *palette, int joint_count,
                          float (*positions)[3], float (*normals)[3], diag *err)
{
    return capture(mesh, mesh_index, palette, joint_count, joint_count, POSE_SKINNING_LINEAR, positions, normals,
                   NULL, err);
}

bool gfx_capture_tangents(gfx_mesh mesh, int mesh_index, const void *palette, pose_skinning skinning,
                          int joint_count, float (*tangents)[4], diag *err)
{
    bool dual = skinning == POSE_SKINNING_DUAL_QUATERNION;
    return tangents && capture(mesh, mesh_index, palette, joint_count, dual ? (joint_count + 1) / 2 : joint_count,
                               skinning, NULL, NULL, tangents, err);
}

bool gfx_capture_dual_quaternion_skinning(gfx_mesh mesh, int mesh_index, const pose_dual_quaternion *palette,
                                          int joint_count, float (*positions)[3], float (*normals)[3], diag *err)
{
    return capture(mesh, mesh_index, palette, joint_count, (joint_count + 1) / 2, POSE_SKINNING_DUAL_QUATERNION,
                   positions, normals, NULL, err);
}

/* ---- Frames -------------------------------------------------------------------------------------------- */

void gfx_z_up_to_y_up(mat4 out)
{
    glm_mat4_identity(out);
    glm_rotate_x(out, -GLM_PI_2f, out);
}

static bool is_zero3(const vec3 v)
{
    return v[0] == 0.0f && v[1] == 0.0f && v[2] == 0.0f;
}

void gfx_frame_begin(const gfx_frame_desc *desc, const gfx_frame_rules *rules)
{
    if (!gfx.ready) {
        gfx_misuse("%s before gfx_setup", rules->begin);
        return;
    }
    gfx_palettes_drop(&gfx.palettes);
    if (gfx.in_frame)
        gfx_misuse("%s: the previous frame was not ended; its instances are dropped", rules->begin);
    if (!desc || desc->width <= 0 || desc->height <= 0) {
        gfx.in_frame = false;
        gfx_misuse("%s needs a frame desc with a positive width and height", rules->begin);
        return;
    }
    gfx.frame = *desc;
    gfx.rules = rules;
    /* Zero means default, as in every descriptor. */
    if (is_zero3(gfx.frame.light_direction))
        glm_vec3_copy((vec3){-0.45f, -1.0f, -0.35f}, gfx.frame.light_direction);
    if (is_zero3(gfx.frame.light_color))
        glm_vec3_copy((vec3){0.85f, 0.85f, 0.8f}, gfx.frame.light_color);
    if (is_zero3(gfx.frame.ambient_color))
        glm_vec3_copy((vec3){0.28f, 0.3f, 0.34f}, gfx.frame.ambient_color);
    if (gfx.frame.clear_color[3] == 0.0f)
        glm_vec4_copy((vec4){0.72f, 0.78f, 0.85f, 1.0f}, gfx.frame.clear_color);
    if (!(gfx.frame.shadow_radius >= 0.0f))
        gfx.frame.shadow_radius = 0.0f;
    if (gfx.frame.lod_error_pixels == 0.0f || isnan(gfx.frame.lod_error_pixels))
        gfx.frame.lod_error_pixels = GFX_DEFAULT_LOD_ERROR_PIXELS;
    if (gfx.frame.stand_in_pixels == 0.0f || isnan(gfx.frame.stand_in_pixels))
        gfx.frame.stand_in_pixels = GFX_DEFAULT_STAND_IN_PIXELS;
    if (!(gfx.frame.shadow_distance >= 0.0f && gfx.frame.shadow_distance <= GFX_SHADOW_MAX_DISTANCE))
        gfx.frame.shadow_distance = 0.0f;
    glm_vec3_normalize_to(gfx.frame.light_direction, gfx.light_unit);
    glm_mat4_mul(gfx.frame.projection, gfx.frame.view, gfx.view_projection);
    gfx.queue.count = 0;
    gfx_palettes_begin(&gfx.palettes, gfx.frame.cpu_skinning || rules->palettes_on_cpu);
    gfx.skinned.count = 0;
    gfx.stats.culled = 0;
    gfx_shadow_begin(&gfx.shadow, !gfx.frame.no_shadows); /* instance_visible needs to know */
    gfx_debug_begin();
    gfx.in_frame = true;
}

void gfx_begin_frame(const gfx_frame_desc *desc)
{
    gfx_frame_begin(desc, &default_rules);
}

/* Whether anything of an instance can be seen: its box, or (with shadows) the box's shadow on the ground,
 * which lies within the box's corners pushed along the light down to y = 0. Culled when all of those
 * points are outside one plane of the camera's frustum (tested in clip space). Conservative: a box
 * straddling a frustum corner is kept. */
static bool instance_visible(mat4 world, float bounds[2][3])
{
    enum { CORNERS = 8 };
    vec4 points[2 * CORNERS];
    int point_count = 0;
    for (int c = 0; c < CORNERS; ++c) {
        vec4 corner = {bounds[c & 1][0], bounds[(c >> 1) & 1][1], bounds[(c >> 2) & 1][2], 1.0f};
        vec4 world_corner;
        glm_mat4_mulv((vec4 *)world, corner, world_corner);
        glm_mat4_mulv(gfx.view_projection, world_corner, points[point_count++]);
        const float *light = gfx.light_unit;
        if (gfx.shadow.frame.on && light[1] < -1e-3f && world_corner[1] > 0.0f) {
            float along = world_corner[1] / -light[1];
            vec4 on_ground = {world_corner[0] + light[0] * along, 0.0f, world_corner[2] + light[2] * along, 1.0f};
            glm_mat4_mulv(gfx.view_projection, on_ground, points[point_count++]);
        }
    }
    for (int plane = 0; plane < 6; ++plane) {
        int axis = plane / 2;
        float sign = plane % 2 ? -1.0f : 1.0f;
        bool all_outside = true;
        for (int i = 0; i < point_count && all_outside; ++i)
            all_outside = sign * points[i][axis] < -points[i][3];
        if (all_outside)
            return false;
    }
    return true;
}

static bool has_bounds(float bounds[2][3])
{
    for (int i = 0; i < 6; ++i)
        if (bounds[i / 3][i % 3] != 0.0f)
            return true;
    return false;
}

/* Debug colours of the levels (gfx_frame_desc.lod_colors): full, then coarser and warmer; the stand-in red. */
static const float GFX_LOD_COLORS[GFX_LOD_LEVELS][4] = {
    {1.0f, 1.0f, 1.0f, 1.0f}, {0.45f, 1.0f, 0.45f, 1.0f}, {1.0f, 0.45f, 1.0f, 1.0f},
    {1.0f, 0.85f, 0.3f, 1.0f}, {1.0f, 0.35f, 0.3f, 1.0f},
};

/* The level an instance is drawn at this frame (gfx_lod.h), remembered in its lod memory for next time. */
static int choose_level(const gfx_mesh_slot *slot, mat4 world, vec4 world_center, gfx_lod_memory *memory)
{
    int usable = gfx_usable_levels(slot, gfx.frame.no_stand_ins);
    int level;
    if (gfx.frame.lod_force_level > 0) {
        level = gfx.frame.lod_force_level - 1 < usable ? gfx.frame.lod_force_level - 1 : usable - 1;
    } else if (gfx.frame.lod_error_pixels < 0.0f || usable <= 1) {
        level = 0;
    } else {
        float pixels_per_unit = gfx_lod_pixels_per_unit(gfx.view_projection, gfx.frame.height, world, world_center);
        int previous = memory && memory->known ? memory->level : -1;
        /* The mesh levels by their error; the stand-in, coarser than any error budget a near character
         * could take, by how tall the character stands on screen. */
        bool stand_in = slot->last_is_stand_in && usable == slot->level_count;
        int mesh_levels = stand_in ? usable - 1 : usable;
        level = gfx_lod_select(slot->level_error, mesh_levels, pixels_per_unit, gfx.frame.lod_error_pixels, previous);
        if (stand_in && pixels_per_unit > 0.0f &&
            gfx_lod_use_stand_in(slot->bind_size * pixels_per_unit, gfx.frame.stand_in_pixels, previous == usable - 1))
            level = usable - 1;
        if (stand_in && pixels_per_unit == 0.0f)
            level = usable - 1; /* behind the camera: only its shadow can show */
    }
    if (memory) {
        memory->level = (uint8_t)level;
        memory->known = 1;
    }
    return level;
}

/* What gfx_submit, gfx_submit_palette and gfx_submit_dual_quaternions share: the checks, culling, room in
 * the buffers (grown when needed) and the queued entry. slot_kind: the palette the caller will write, which
 * the instance's skinning must be. *destination is where the instance's palette goes (joint_count matrices,
 * or joint_count dual quaternions in half the room), NULL when it was culled. false on misuse (reported
 * under `caller`'s name). */
static bool queue_instance(const gfx_instance *instance, const char *caller, bool palette_given,
                           pose_skinning slot_kind, mat4 **destination)
{
    *destination = NULL;
    if (!gfx.in_frame)
        return gfx_misuse("%s outside gfx_begin_frame/gfx_end_frame", caller);
    if (!instance)
        return gfx_misuse("%s: no instance", caller);
    gfx_mesh_slot *slot = gfx_meshes_find(&gfx.meshes, instance->mesh);
    if (!slot)
        return gfx_misuse("%s: mesh %u is not alive (destroyed, never made, or from before gfx_setup)", caller,
                      (unsigned)instance->mesh.id);
    if ((unsigned)instance->skinning >= POSE_SKINNING_COUNT)
        return gfx_misuse("%s: %s: skinning %d is neither linear nor dual quaternion", caller, slot->label,
                          (int)instance->skinning);
    if (instance->skinning != slot_kind)
        return gfx_misuse("%s: %s: the instance is skinned %s, not %s", caller, slot->label,
                          pose_skinning_name(instance->skinning), pose_skinning_name(slot_kind));
    bool dual_quaternions = instance->skinning == POSE_SKINNING_DUAL_QUATERNION;
    if (palette_given && !(dual_quaternions ? (const void *)instance->dual_quaternions : (const void *)instance->palette))
        return gfx_misuse("%s: %s: no palette", caller, slot->label);
    const gfx_frame_rules *rules = gfx.rules;
    if (rules->linear_only && dual_quaternions)
        return gfx_misuse("%s: %s: %s skins linearly only", caller, slot->label, rules->path);
    /* Two dual quaternions fill one matrix's room. */
    int matrices = dual_quaternions ? (slot->joint_count + 1) / 2 : slot->joint_count;
    if (instance->joint_count != slot->joint_count)
        return gfx_misuse("%s: %s: palette has %d joints, the mesh's skeleton %d", caller, slot->label,
                      instance->joint_count, slot->joint_count);
    if (rules->max_joints > 0 && slot->joint_count > rules->max_joints)
        return gfx_misuse("%s: %s: %d joints, more than %s's %d", caller, slot->label, slot->joint_count,
                          rules->path, rules->max_joints);

    mat4 turn, world;
    gfx_z_up_to_y_up(turn);
    glm_mat4_mul((vec4 *)instance->world, turn, world);
    float bounds[2][3];
    memcpy(bounds, instance->bounds, sizeof bounds);
    if (has_bounds(bounds) && !instance_visible(world, bounds)) {
        ++gfx.stats.culled;
        return true;
    }

    gfx_queue *queue = &gfx.queue;
    gfx_palettes *palettes = &gfx.palettes;
    gfx_skinned_vertices *skinned = &gfx.skinned;
    if (queue->count == queue->capacity && !gfx_queue_grow(queue, queue->count + 1))
        return gfx_misuse("%s: out of memory growing the instance buffer past %d", caller, queue->capacity);
    if (!gfx_palettes_room(palettes, palettes->count + matrices))
        return gfx_misuse("%s: out of memory growing the palette buffer past %d matrices", caller,
                          palettes->capacity);
    if (gfx.frame.cpu_skinning && skinned->count + slot->vertex_count > skinned->max_vertices)
        return gfx_misuse("%s: %s: the CPU skinning path holds %d vertices a frame (this GL's texture "
                          "buffer limit); %d are queued", caller, slot->label, skinned->max_vertices,
                          skinned->count);
    if (gfx.frame.cpu_skinning && skinned->count + slot->vertex_count > skinned->capacity &&
        !gfx_cpu_skin_grow(skinned, skinned->count + slot->vertex_count))
        return gfx_misuse("%s: out of memory growing the CPU skinning buffer past %d vertices", caller,
                          skinned->capacity);

    gfx_queued_instance *queued = &queue->queued[queue->count++];
    queued->mesh_slot = (int)(slot - gfx.meshes.slots);
    queued->first_matrix = palettes->count;
    queued->skinning = instance->skinning;
    queued->first_skinned_vertex = skinned->count;
    glm_mat4_copy(world, queued->world);
    gfx_shadow_add_caster(&gfx.shadow, gfx.light_unit, gfx.ground.heights[0], world,
                          has_bounds(bounds) ? (const float (*)[3])bounds : NULL, queued->caster_low,
                          queued->caster_high);
    bool no_tint = instance->tint[0] == 0.0f && instance->tint[1] == 0.0f && instance->tint[2] == 0.0f &&
                   instance->tint[3] == 0.0f;
    glm_vec4_copy(no_tint ? (vec4){1.0f, 1.0f, 1.0f, 1.0f} : (float *)instance->tint, queued->tint);
    vec4 center = {0.0f, 0.0f, 0.0f, 1.0f}, world_center, clip_center;
    if (has_bounds(bounds))
        for (int k = 0; k < 3; ++k)
            center[k] = 0.5f * (bounds[0][k] + bounds[1][k]);
    glm_mat4_mulv(world, center, world_center);
    queued->level = rules->whole_meshes ? 0 : choose_level(slot, world, world_center, instance->lod);
    /* Front to back: a positive float's bits grow with it, so their top 16 order distances (coarsely, which
     * is all early depth rejection needs); behind the camera first. */
    glm_mat4_mulv(gfx.view_projection, world_center, clip_center);
    uint32_t bits = 0;
    float distance = clip_center[3] > 0.0f ? clip_center[3] : 0.0f;
    memcpy(&bits, &distance, sizeof bits);
    queued->depth_key = (uint16_t)(bits >> 16);
    if (gfx.frame.lod_colors)
        glm_vec4_mul(queued->tint, (float *)GFX_LOD_COLORS[queued->level], queued->tint);
    *destination = gfx_palettes_destination(palettes, palettes->count);
    palettes->count += matrices;
    if (gfx.frame.cpu_skinning)
        skinned->count += slot->vertex_count;
    return true;
}

bool gfx_submit(const gfx_instance *instance)
{
    mat4 *destination;
    if (!queue_instance(instance, "gfx_submit", true, instance ? instance->skinning : POSE_SKINNING_LINEAR,
                        &destination))
        return false;
    if (destination && instance->skinning == POSE_SKINNING_DUAL_QUATERNION)
        memcpy(destination, instance->dual_quaternions,
               (size_t)instance->joint_count * sizeof(pose_dual_quaternion));
    else if (destination)
        memcpy(destination, instance->palette, (size_t)instance->joint_count * sizeof(mat4));
    return true;
}

mat4 *gfx_submit_palette(const gfx_instance *instance)
{
    mat4 *destination;
    return queue_instance(instance, "gfx_submit_palette", false, POSE_SKINNING_LINEAR, &destination) ? destination
                                                                                                      : NULL;
}

pose_dual_quaternion *gfx_submit_dual_quaternions(const gfx_instance *instance)
{
    mat4 *destination;
    if (!queue_instance(instance, "gfx_submit_dual_quaternions", false, POSE_SKINNING_DUAL_QUATERNION,
                        &destination))
        return NULL;
    _Static_assert(2 * sizeof(pose_dual_quaternion) == sizeof(mat4), "two dual quaternions fill a matrix's room");
    return (pose_dual_quaternion *)destination;
}

bool gfx_reserve(int instances, int matrices)
{
    if (!gfx.in_frame)
        return gfx_misuse("gfx_reserve outside gfx_begin_frame/gfx_end_frame");
    gfx_queue *queue = &gfx.queue;
    gfx_palettes *palettes = &gfx.palettes;
    if (instances < 0 || matrices < 0)
        return gfx_misuse("gfx_reserve: %d instances and %d matrices: negative", instances, matrices);
    long long wanted_instances = (long long)queue->count + instances,
              wanted_matrices = (long long)palettes->count + matrices;
    if (wanted_instances > INT_MAX / 2 || wanted_matrices > INT_MAX / (2 * GFX_FLOATS_PER_MATRIX))
        return gfx_misuse("gfx_reserve: %lld instances and %lld matrices in one frame: too many", wanted_instances,
                      wanted_matrices);
    if (wanted_instances > queue->capacity && !gfx_queue_grow(queue, (int)wanted_instances))
        return gfx_misuse("gfx_reserve: out of memory growing the instance buffer past %d", queue->capacity);
    if (wanted_matrices > 0 && !gfx_palettes_room(palettes, (int)wanted_matrices))
        return gfx_misuse("gfx_reserve: out of memory growing the palette buffer past %d matrices",
                          palettes->capacity);
    return true;
}

/* ---- The frame's end ---------------------------------------------------------------------------------- */

bool gfx_frame_close(const gfx_frame_rules *rules, gfx_frame_end *end)
{
    if (!gfx.in_frame)
        return gfx_misuse("%s without %s", rules->end, rules->begin);
    if (gfx.rules != rules)
        return gfx_misuse("%s: the frame was begun by %s: end it with %s", rules->end, gfx.rules->begin,
                          gfx.rules->end);
    gfx.in_frame = false;
    *end = (gfx_frame_end){.stats = {.buffer_grows = buffer_grows(),
                                     .instances = gfx.queue.count,
                                     .palette_matrices = gfx.palettes.count,
                                     .palette_bytes = gfx_palette_bytes(gfx.palettes.count),
                                     .culled = gfx.stats.culled},
                           .frame = &gfx.frame,
                           .lighting = frame_lighting(),
                           .queued = gfx.queue.queued,
                           .count = gfx.queue.count,
                           .meshes = gfx.meshes.slots,
                           .palettes = rules->palettes_on_cpu ? gfx_palettes_staged(&gfx.palettes) : NULL,
                           .programs = &gfx.programs,
                           .shadow = &gfx.shadow};
    gfx_timer_frame_begin();

    /* The shadow's fit first: the sort puts the instances whose shadow reaches it first in each group. */
    gfx.shadow.frame.on = !gfx.frame.no_shadows && gfx.queue.count > 0;
    if (gfx.shadow.frame.on) /* turned off when nothing casts into the view */
        gfx_shadow_fit_frame(&gfx.shadow, &gfx.frame, gfx.light_unit, gfx.ground.heights);
    glm_mat4_copy(gfx.view_projection, end->view_projection);
    glm_mat4_copy(gfx.shadow.frame.fit.light_view_projection, end->light_view_projection);
    end->textures = frame_textures();

    glEnable(GL_DEPTH_TEST);
    glDepthFunc(GL_LESS);
    glDepthMask(GL_TRUE);
    glDisable(GL_BLEND);
    return true;
}

/* The characters before the ground: where they stand, the ground's pixels fail the depth test before
 * they are shaded (a software rasterizer shades nothing it has rejected). */
void gfx_frame_picture(const gfx_frame_end *end)
{
    gfx_timer_pass(GFX_PASS_CHARACTERS);
    glViewport(0, 0, gfx.frame.width, gfx.frame.height);
    const float *clear = gfx.frame.clear_color;
    glClearColor(clear[0], clear[1], clear[2], clear[3]);
    glClearDepth(1.0);
    glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
    gfx_bind_frame_textures(&end->textures, true);
}

void gfx_frame_finish(gfx_frame_end *end)
{
    gfx_stats *stats = &end->stats;
    gfx_timer_pass(GFX_PASS_GROUND);
    if (!gfx.frame.hide_ground)
        stats->draw_calls += gfx_ground_draw(&gfx.ground, &gfx.programs, &end->lighting, gfx.view_projection);
    glBindVertexArray(0);
    glUseProgram(0);
    gfx_timer_pass(GFX_PASS_OVERLAY);
    stats->draw_calls += gfx_debug_draw(gfx.view_projection, &stats->debug_lines, &stats->debug_lines_dropped);
    gfx_timer_frame_end(stats);
    gfx.stats = *stats;
}

/* The default way: every palette in the buffer, the instances sorted by (mesh, level) into the instance
 * buffer, one instanced draw per group and pass, skinned in the vertex shader, on the CPU
 * (gfx_frame_desc.cpu_skinning) or once for both passes (gfx_frame_desc.skin_once). */
void gfx_end_frame(void)
{
    gfx_frame_end end;
    if (!gfx_frame_close(&default_rules, &end))
        return;
    gfx_stats *stats = &end.stats;
    gfx_frame_shadow *shadow = &gfx.shadow.frame;
    gfx_queue_sort(&gfx.queue, shadow->on ? &shadow->fit : NULL);
    gfx_palettes_close(&gfx.palettes, stats);
    gfx_queue_upload(&gfx.queue);
    stats->palette_uploads = gfx.queue.count > 0 ? 1 : 0;
    /* Matrices the driver lost would throw vertices anywhere: better a frame without the characters. */
    stats->palettes_lost = gfx.palettes.lost;
    if (gfx.palettes.lost)
        stats->instances = 0;
    shadow->on = shadow->on && stats->instances > 0;
    end.textures.shadow_map = gfx_shadow_map_texture(&gfx.shadow);
    gfx_skin_once_none(&gfx.skin_once);
    if (gfx.frame.cpu_skinning && gfx.queue.count > 0) {
        gfx_cpu_skin_frame(&gfx.skinned, gfx.queue.queued, gfx.queue.count, gfx.meshes.slots, gfx.palettes.staging);
        stats->cpu_skinned_vertices = gfx.skinned.count;
    }

    gfx_batch batch = {.queue = &gfx.queue,
                       .meshes = gfx.meshes.slots,
                       .group_captured_first = gfx.skin_once.group_captured_first,
                       .lighting = &end.lighting};
    const gfx_program *programs = gfx.programs.of;
    const bool cpu = gfx.frame.cpu_skinning;
    if (shadow->on) {
        gfx_timer_pass(GFX_PASS_SHADOW);
        if (gfx.frame.skin_once && !cpu) {
            gfx_skin_once_frame once = {.queue = &gfx.queue,
                                        .meshes = gfx.meshes.slots,
                                        .skinned = &gfx.skinned,
                                        .skinning = &programs[GFX_PROGRAM_SKINNED],
                                        .lighting = &end.lighting,
                                        .textures = &end.textures,
                                        .view_projection = gfx.view_projection};
            stats->skinned_once_vertices = gfx_skin_once_capture(&gfx.skin_once, &once);
        }
        gfx_bind_frame_textures(&end.textures, false);
        GLuint target = gfx_shadow_pass_begin(&gfx.shadow);
        gfx_set_culling(gfx.frame.culling);
        stats->shadow_draw_calls = gfx_draw_batched(
            &batch, &programs[cpu ? GFX_PROGRAM_CPU_DEPTH : GFX_PROGRAM_DEPTH],
            gfx.skin_once.captured_vertices > 0 ? &programs[GFX_PROGRAM_CPU_DEPTH] : NULL,
            shadow->fit.light_view_projection, false, true);
        gfx_shadow_pass_end(target);
        stats->draw_calls += stats->shadow_draw_calls;
    }

    gfx_frame_picture(&end);
    if (stats->instances > 0) {
        gfx_set_culling(gfx.frame.culling);
        stats->draw_calls += gfx_draw_batched(
            &batch, &programs[cpu ? GFX_PROGRAM_CPU_SKINNED : GFX_PROGRAM_SKINNED],
            gfx.skin_once.captured_vertices > 0 ? &programs[GFX_PROGRAM_CPU_SKINNED] : NULL, gfx.view_projection,
            false, false);
        if (gfx.frame.debug_normals || gfx.frame.debug_tangents)
            stats->draw_calls += gfx_draw_batched(
                &batch, &programs[cpu ? GFX_PROGRAM_CPU_NORMALS : GFX_PROGRAM_NORMALS], NULL, gfx.view_projection,
                true, false);
    }
    gfx_frame_finish(&end);
}

gfx_stats gfx_frame_stats(void)
{
    gfx_stats stats = gfx.stats;
    stats.buffer_grows = buffer_grows();
    gfx_texture_stats(&stats.textures, &stats.textures_loaded, &stats.texture_bytes);
    return stats;
}
