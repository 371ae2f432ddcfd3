/* gfx: the renderer's setup and its frame: begin, queue (checks, culling, room in the upload buffers), end
 * (upload, shadow pass, ground, instances, debug lines). Meshes, textures, upload buffers, the shadow
 * pass, the CPU skinning path, the capture check, the benchmark's naive path and the frame budget each have
 * their own file (gfx_mesh.c, gfx_texture.c, gfx_palette.c, gfx_shadow.c, gfx_cpu_skin.c, gfx_capture.c,
 * gfx_bench.c, gfx_timer.c).
 * See gfx.h. */
#include "gfx.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gfx_bench.h"
#include "gfx_cpu_skin.h"
#include "gfx_draw.h"
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

gfx_state gfx;

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
    gfx.mesh_capacity = d.mesh_capacity ? d.mesh_capacity : GFX_DEFAULT_MESH_CAPACITY;
    gfx.instance_capacity = d.instance_capacity ? d.instance_capacity : GFX_DEFAULT_INSTANCE_CAPACITY;
    gfx.palette_capacity =
        d.palette_capacity ? d.palette_capacity : gfx.instance_capacity * GFX_DEFAULT_JOINTS_PER_INSTANCE;
    gfx.shadow_map_size = d.shadow_map_size ? d.shadow_map_size : GFX_DEFAULT_SHADOW_MAP_SIZE;

    gfx.meshes = calloc((size_t)gfx.mesh_capacity, sizeof *gfx.meshes);
    size_t groups = (size_t)gfx.mesh_capacity * GFX_LOD_LEVELS;
    gfx.mesh_instance_count = calloc(groups, sizeof *gfx.mesh_instance_count);
    gfx.mesh_first_instance = calloc(groups, sizeof *gfx.mesh_first_instance);
    gfx.group_scale = calloc(groups, sizeof *gfx.group_scale);
    gfx.mesh_caster_count = calloc(groups, sizeof *gfx.mesh_caster_count);
    gfx.group_cursors = calloc(2 * groups, sizeof *gfx.group_cursors);
    gfx.queued = malloc((size_t)gfx.instance_capacity * sizeof *gfx.queued);
    gfx.sort_order = malloc((size_t)gfx.instance_capacity * sizeof *gfx.sort_order);
    gfx.sort_scratch = malloc((size_t)gfx.instance_capacity * sizeof *gfx.sort_scratch);
    gfx.instance_staging = malloc((size_t)gfx.instance_capacity * GFX_FLOATS_PER_INSTANCE * sizeof(float));
    gfx.palette_staging = malloc((size_t)gfx.palette_capacity * GFX_FLOATS_PER_MATRIX * sizeof(float));
    if (!gfx.meshes || !gfx.mesh_instance_count || !gfx.mesh_first_instance || !gfx.group_scale || !gfx.mesh_caster_count || !gfx.group_cursors || !gfx.queued || !gfx.sort_order ||
        !gfx.sort_scratch ||
        !gfx.instance_staging || !gfx.palette_staging) {
        gfx.ready = true;
        gfx_shutdown();
        return diag_set(err, "gfx", 0, "out of memory for the per-frame buffers");
    }

    if (!gfx_link_programs(err) ||
        !gfx_debug_setup(d.debug_line_capacity ? d.debug_line_capacity : GFX_DEFAULT_DEBUG_LINES, err)) {
        gfx.ready = true;
        gfx_shutdown();
        return false;
    }

    gfx_texture_setup();
    gfx_timer_setup(d.no_gpu_timer, d.gpu_timer_every ? d.gpu_timer_every : GFX_DEFAULT_GPU_TIMER_EVERY);
    if (!gfx_skin_once_setup()) {
        gfx.ready = true;
        gfx_shutdown();
        return diag_set(err, "gfx", 0, "out of memory for the per-frame buffers");
    }
    if (!gfx_shadow_setup(err)) {
        gfx.ready = true;
        gfx_shutdown();
        return false;
    }
    GLuint buffers[3];
    glGenBuffers(3, buffers);
    /* The CPU path's buffer starts empty and grows on its first use. */
    gfx.skinned_buffer = gfx_make_texture_buffer(buffers[2], 0, GL_R32F, &gfx.skinned_texture);
    GLint texels = 0;
    glGetIntegerv(GL_MAX_TEXTURE_BUFFER_SIZE, &texels);
    gfx.max_skinned_vertices = texels / GFX_FLOATS_PER_SKINNED_VERTEX;
    gfx.palette_buffer = gfx_make_texture_buffer(
        buffers[0], (GLsizeiptr)gfx.palette_capacity * GFX_FLOATS_PER_MATRIX * (GLsizeiptr)sizeof(float),
        GL_RGBA32F, &gfx.palette_texture);
    gfx.instance_buffer = gfx_make_texture_buffer(
        buffers[1], (GLsizeiptr)gfx.instance_capacity * GFX_FLOATS_PER_INSTANCE * (GLsizeiptr)sizeof(float),
        GL_RGBA32F, &gfx.instance_texture);
    gfx.palette_buffer_matrices = gfx.palette_capacity;
    gfx.instance_buffer_instances = gfx.instance_capacity;

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
    gfx_meshes_release_all();
    /* Deleting name 0 is a no-op in GL, so a half-finished setup is released the same way. */
    for (int k = 0; k < GFX_PROGRAM_COUNT; ++k)
        glDeleteProgram(gfx.programs[k].program);
    gfx_debug_shutdown();
    gfx_shadow_shutdown();
    gfx_skin_once_shutdown();
    gfx_timer_shutdown();
    glDeleteTextures(1, &gfx.skinned_texture);
    glDeleteBuffers(1, &gfx.skinned_buffer);
    free(gfx.skinned_staging);
    gfx_texture_shutdown();
    glDeleteTextures(1, &gfx.palette_texture);
    glDeleteTextures(1, &gfx.instance_texture);
    glDeleteBuffers(1, &gfx.palette_buffer);
    glDeleteBuffers(1, &gfx.instance_buffer);
    free(gfx.meshes);
    free(gfx.mesh_instance_count);
    free(gfx.mesh_first_instance);
    free(gfx.group_scale);
    free(gfx.mesh_caster_count);
    free(gfx.group_cursors);
    free(gfx.queued);
    free(gfx.sort_order);
    free(gfx.sort_scratch);
    free(gfx.instance_staging);
    free(gfx.palette_staging);
    memset(&gfx, 0, sizeof gfx);
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

void gfx_begin_frame(const gfx_frame_desc *desc)
{
    if (!gfx.ready) {
        gfx_misuse("gfx_begin_frame before gfx_setup");
        return;
    }
    gfx_palettes_drop();
    if (gfx.in_frame)
        gfx_misuse("gfx_begin_frame: the previous frame was not ended; its instances are dropped");
    if (!desc || desc->width <= 0 || desc->height <= 0) {
        gfx.in_frame = false;
        gfx_misuse("gfx_begin_frame needs a frame desc with a positive width and height");
        return;
    }
    gfx.frame = *desc;
    gfx.naive = false; /* gfx_bench_begin_naive_frame sets it after this */
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
    gfx.instance_count = 0;
    gfx.palette_count = 0;
    gfx.skinned_count = 0;
    gfx.stats.culled = 0;
    gfx.shadows_on = !gfx.frame.no_shadows; /* instance_visible needs to know */
    gfx_shadow_begin();
    gfx_debug_begin();
    gfx.in_frame = true;
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
        if (gfx.shadows_on && light[1] < -1e-3f && world_corner[1] > 0.0f) {
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
    int usable = gfx_usable_levels(slot);
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
    gfx_mesh_slot *slot = gfx_find_mesh(instance->mesh);
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
    if (gfx.naive && dual_quaternions)
        return gfx_misuse("%s: %s: the naive path skins linearly only", caller, slot->label);
    /* Two dual quaternions fill one matrix's room. */
    int matrices = dual_quaternions ? (slot->joint_count + 1) / 2 : slot->joint_count;
    if (instance->joint_count != slot->joint_count)
        return gfx_misuse("%s: %s: palette has %d joints, the mesh's skeleton %d", caller, slot->label,
                      instance->joint_count, slot->joint_count);
    if (gfx.naive && slot->joint_count > GFX_NAIVE_MAX_JOINTS)
        return gfx_misuse("%s: %s: %d joints, more than the naive path's %d", caller, slot->label,
                      slot->joint_count, GFX_NAIVE_MAX_JOINTS);

    mat4 turn, world;
    gfx_z_up_to_y_up(turn);
    glm_mat4_mul((vec4 *)instance->world, turn, world);
    float bounds[2][3];
    memcpy(bounds, instance->bounds, sizeof bounds);
    if (has_bounds(bounds) && !instance_visible(world, bounds)) {
        ++gfx.stats.culled;
        return true;
    }

    if (gfx.instance_count == gfx.instance_capacity && !gfx_grow_instances(gfx.instance_count + 1))
        return gfx_misuse("%s: out of memory growing the instance buffer past %d", caller, gfx.instance_capacity);
    if (!gfx_palette_room(gfx.palette_count + matrices))
        return gfx_misuse("%s: out of memory growing the palette buffer past %d matrices", caller,
                      gfx.palette_capacity);
    if (gfx.frame.cpu_skinning && gfx.skinned_count + slot->vertex_count > gfx.max_skinned_vertices)
        return gfx_misuse("%s: %s: the CPU skinning path holds %d vertices a frame (this GL's texture "
                      "buffer limit); %d are queued", caller, slot->label, gfx.max_skinned_vertices,
                      gfx.skinned_count);
    if (gfx.frame.cpu_skinning && gfx.skinned_count + slot->vertex_count > gfx.skinned_capacity &&
        !gfx_cpu_skin_grow(gfx.skinned_count + slot->vertex_count))
        return gfx_misuse("%s: out of memory growing the CPU skinning buffer past %d vertices", caller,
                      gfx.skinned_capacity);

    gfx_queued_instance *queued = &gfx.queued[gfx.instance_count++];
    queued->mesh_slot = (int)(slot - gfx.meshes);
    queued->first_matrix = gfx.palette_count;
    queued->skinning = instance->skinning;
    queued->first_skinned_vertex = gfx.skinned_count;
    glm_mat4_copy(world, queued->world);
    gfx_shadow_add_caster(world, has_bounds(bounds) ? (const float (*)[3])bounds : NULL, queued->caster_low,
                          queued->caster_high);
    bool no_tint = instance->tint[0] == 0.0f && instance->tint[1] == 0.0f && instance->tint[2] == 0.0f &&
                   instance->tint[3] == 0.0f;
    glm_vec4_copy(no_tint ? (vec4){1.0f, 1.0f, 1.0f, 1.0f} : (float *)instance->tint, queued->tint);
    vec4 center = {0.0f, 0.0f, 0.0f, 1.0f}, world_center, clip_center;
    if (has_bounds(bounds))
        for (int k = 0; k < 3; ++k)
            center[k] = 0.5f * (bounds[0][k] + bounds[1][k]);
    glm_mat4_mulv(world, center, world_center);
    queued->level = gfx.naive ? 0 : choose_level(slot, world, world_center, instance->lod);
    /* Front to back: a positive float's bits grow with it, so their top 16 order distances (coarsely, which
     * is all early depth rejection needs); behind the camera first. */
    glm_mat4_mulv(gfx.view_projection, world_center, clip_center);
    uint32_t bits = 0;
    float distance = clip_center[3] > 0.0f ? clip_center[3] : 0.0f;
    memcpy(&bits, &distance, sizeof bits);
    queued->depth_key = (uint16_t)(bits >> 16);
    if (gfx.frame.lod_colors)
        glm_vec4_mul(queued->tint, (float *)GFX_LOD_COLORS[queued->level], queued->tint);
    *destination = gfx_palette_destination(gfx.palette_count);
    gfx.palette_count += matrices;
    if (gfx.frame.cpu_skinning)
        gfx.skinned_count += slot->vertex_count;
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
    if (instances < 0 || matrices < 0)
        return gfx_misuse("gfx_reserve: %d instances and %d matrices: negative", instances, matrices);
    long long wanted_instances = (long long)gfx.instance_count + instances,
              wanted_matrices = (long long)gfx.palette_count + matrices;
    if (wanted_instances > INT_MAX / 2 || wanted_matrices > INT_MAX / (2 * GFX_FLOATS_PER_MATRIX))
        return gfx_misuse("gfx_reserve: %lld instances and %lld matrices in one frame: too many", wanted_instances,
                      wanted_matrices);
    if (wanted_instances > gfx.instance_capacity && !gfx_grow_instances((int)wanted_instances))
        return gfx_misuse("gfx_reserve: out of memory growing the instance buffer past %d", gfx.instance_capacity);
    if (wanted_matrices > 0 && !gfx_palette_room((int)wanted_matrices))
        return gfx_misuse("gfx_reserve: out of memory growing the palette buffer past %d matrices",
                      gfx.palette_capacity);
    return true;
}

void gfx_end_frame(void)
{
    if (!gfx.in_frame) {
        gfx_misuse("gfx_end_frame without gfx_begin_frame");
        return;
    }
    gfx.in_frame = false;
    gfx_stats stats = {.buffer_grows = gfx.stats.buffer_grows,
                       .instances = gfx.instance_count,
                       .palette_matrices = gfx.palette_count,
                       .palette_bytes = gfx_palette_bytes(gfx.palette_count),
                       .culled = gfx.stats.culled};
    gfx_timer_frame_begin();

    /* The shadow's fit first: the sort puts the instances whose shadow reaches it first in each group. */
    gfx.shadows_on = !gfx.frame.no_shadows && gfx.instance_count > 0;
    if (gfx.shadows_on)
        gfx_shadow_fit_frame(); /* turns shadows off when nothing casts into the view */
    if (!gfx.naive) {
        gfx_sort_instances_by_mesh();
        gfx_palettes_close(&stats);
        gfx_upload_stream(gfx.instance_buffer, &gfx.instance_buffer_instances, gfx.instance_capacity,
                      GFX_FLOATS_PER_INSTANCE * sizeof(float), gfx.instance_staging, gfx.instance_count);
        stats.palette_uploads = gfx.instance_count > 0 ? 1 : 0;
    }
    /* Matrices the driver lost would throw vertices anywhere: better a frame without the characters. */
    stats.palettes_lost = gfx.palettes_lost;
    if (gfx.palettes_lost)
        stats.instances = 0;
    gfx.shadows_on = gfx.shadows_on && stats.instances > 0;
    gfx.captured_vertices = 0;
    if (gfx.frame.cpu_skinning && gfx.instance_count > 0) {
        gfx_cpu_skin_frame();
        gfx_upload_stream(gfx.skinned_buffer, &gfx.skinned_buffer_vertices, gfx.skinned_capacity,
                      GFX_FLOATS_PER_SKINNED_VERTEX * sizeof(float), gfx.skinned_staging, gfx.skinned_count);
        stats.cpu_skinned_vertices = gfx.skinned_count;
    }

    glEnable(GL_DEPTH_TEST);
    glDepthFunc(GL_LESS);
    glDepthMask(GL_TRUE);
    glDisable(GL_BLEND);
    if (gfx.shadows_on) {
        gfx_timer_pass(GFX_PASS_SHADOW);
        stats.skinned_once_vertices = gfx_skin_once_capture();
        gfx_bind_frame_textures(false);
        stats.shadow_draw_calls = gfx_shadow_draw(&stats);
        stats.draw_calls += stats.shadow_draw_calls;
    }

    /* The characters before the ground: where they stand, the ground's pixels fail the depth test before
     * they are shaded (a software rasterizer shades nothing it has rejected). */
    gfx_timer_pass(GFX_PASS_CHARACTERS);
    glViewport(0, 0, gfx.frame.width, gfx.frame.height);
    const float *clear = gfx.frame.clear_color;
    glClearColor(clear[0], clear[1], clear[2], clear[3]);
    glClearDepth(1.0);
    glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
    gfx_bind_frame_textures(true);

    if (stats.instances > 0) {
        gfx_set_culling(gfx.frame.culling);
        if (gfx.naive)
            stats.draw_calls += gfx_draw_naive(&gfx.programs[GFX_PROGRAM_NAIVE], gfx.view_projection, &stats);
        else
            stats.draw_calls += gfx_draw_batched(
                &gfx.programs[gfx.frame.cpu_skinning ? GFX_PROGRAM_CPU_SKINNED : GFX_PROGRAM_SKINNED],
                gfx.captured_vertices > 0 ? &gfx.programs[GFX_PROGRAM_CPU_SKINNED] : NULL, gfx.view_projection,
                false, false);
        if (gfx.frame.debug_normals && !gfx.naive)
            stats.draw_calls += gfx_draw_batched(
                &gfx.programs[gfx.frame.cpu_skinning ? GFX_PROGRAM_CPU_NORMALS : GFX_PROGRAM_NORMALS], NULL,
                gfx.view_projection, true, false);
    }
    gfx_timer_pass(GFX_PASS_GROUND);
    if (!gfx.frame.hide_ground)
        stats.draw_calls += gfx_shadow_draw_ground();
    glBindVertexArray(0);
    glUseProgram(0);
    gfx_timer_pass(GFX_PASS_OVERLAY);
    int debug_draw_calls = gfx_debug_draw(gfx.view_projection, &stats.debug_lines, &stats.debug_lines_dropped);
    stats.draw_calls += debug_draw_calls;
    gfx_timer_frame_end(&stats);
    gfx.stats = stats;
}

gfx_stats gfx_frame_stats(void)
{
    gfx_stats stats = gfx.stats;
    gfx_texture_stats(&stats.textures, &stats.textures_loaded, &stats.texture_bytes);
    return stats;
}
