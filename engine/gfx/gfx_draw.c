/* gfx_draw: see gfx_draw.h. */
#include "gfx_draw.h"

#include <stdlib.h>
#include <string.h>

#include "gfx_lod.h"
#include "gfx_palette.h"
#include "gfx_timer.h"

/* Normals view: line length in metres. */
static const float GFX_NORMAL_LENGTH = 0.04f;

/* ---- The queue ----------------------------------------------------------------------------------------- */

bool gfx_queue_setup(gfx_queue *queue, int capacity, int mesh_capacity)
{
    size_t groups = (size_t)mesh_capacity * GFX_LOD_LEVELS;
    *queue = (gfx_queue){.capacity = capacity, .group_count = (int)groups};
    queue->mesh_instance_count = calloc(groups, sizeof *queue->mesh_instance_count);
    queue->mesh_first_instance = calloc(groups, sizeof *queue->mesh_first_instance);
    queue->group_scale = calloc(groups, sizeof *queue->group_scale);
    queue->mesh_caster_count = calloc(groups, sizeof *queue->mesh_caster_count);
    queue->group_cursors = calloc(2 * groups, sizeof *queue->group_cursors);
    queue->queued = malloc((size_t)capacity * sizeof *queue->queued);
    queue->sort_order = malloc((size_t)capacity * sizeof *queue->sort_order);
    queue->sort_scratch = malloc((size_t)capacity * sizeof *queue->sort_scratch);
    queue->instance_staging = malloc((size_t)capacity * GFX_FLOATS_PER_INSTANCE * sizeof(float));
    return queue->mesh_instance_count && queue->mesh_first_instance && queue->group_scale &&
           queue->mesh_caster_count && queue->group_cursors && queue->queued && queue->sort_order &&
           queue->sort_scratch && queue->instance_staging;
}

void gfx_queue_make_buffer(gfx_queue *queue)
{
    GLuint buffer = 0;
    glGenBuffers(1, &buffer);
    queue->instance_buffer = gfx_make_texture_buffer(
        buffer, (GLsizeiptr)queue->capacity * GFX_FLOATS_PER_INSTANCE * (GLsizeiptr)sizeof(float), GL_RGBA32F,
        &queue->instance_texture);
    queue->instance_buffer_instances = queue->capacity;
}

void gfx_queue_shutdown(gfx_queue *queue)
{
    glDeleteTextures(1, &queue->instance_texture);
    glDeleteBuffers(1, &queue->instance_buffer);
    free(queue->mesh_instance_count);
    free(queue->mesh_first_instance);
    free(queue->group_scale);
    free(queue->mesh_caster_count);
    free(queue->group_cursors);
    free(queue->queued);
    free(queue->sort_order);
    free(queue->sort_scratch);
    free(queue->instance_staging);
    *queue = (gfx_queue){0};
}

bool gfx_queue_grow(gfx_queue *queue, int needed)
{
    int capacity = gfx_doubled_until(queue->capacity, needed);
    gfx_queued_instance *queued = realloc(queue->queued, (size_t)capacity * sizeof *queued);
    if (!queued)
        return false;
    queue->queued = queued;
    int *order = realloc(queue->sort_order, (size_t)capacity * sizeof *order);
    if (!order)
        return false;
    queue->sort_order = order;
    int *scratch = realloc(queue->sort_scratch, (size_t)capacity * sizeof *scratch);
    if (!scratch)
        return false;
    queue->sort_scratch = scratch;
    float *staging = realloc(queue->instance_staging, (size_t)capacity * GFX_FLOATS_PER_INSTANCE * sizeof(float));
    if (!staging)
        return false;
    queue->instance_staging = staging;
    queue->capacity = capacity;
    ++queue->grows;
    return true;
}

/* The queue's order front to back into sort_order: a radix sort of the 16-bit depth keys, two stable
 * passes of 8 bits (no allocation: both index arrays grow with the queue). */
static void order_front_to_back(gfx_queue *queue)
{
    const gfx_queued_instance *queued = queue->queued;
    const int count = queue->count;
    int *from = queue->sort_scratch, *to = queue->sort_order;
    for (int i = 0; i < count; ++i)
        from[i] = i;
    for (int shift = 0; shift < 16; shift += 8) {
        int counts[257] = {0};
        for (int i = 0; i < count; ++i)
            ++counts[((queued[from[i]].depth_key >> shift) & 0xff) + 1];
        for (int b = 0; b < 256; ++b)
            counts[b + 1] += counts[b];
        for (int i = 0; i < count; ++i)
            to[counts[(queued[from[i]].depth_key >> shift) & 0xff]++] = from[i];
        int *swap = from;
        from = to;
        to = swap;
    }
    /* After an even number of passes the result is where it started. */
    if (from != queue->sort_order)
        memcpy(queue->sort_order, from, (size_t)count * sizeof *from);
}

/* Counting sort of the frame's instances by (mesh, level) into the GPU layout, so each group's instances
 * are contiguous and one draw call covers them; within a group, on shadow frames, first those whose shadow
 * reaches the fitted map (the shadow pass draws only them), and front to back within both, so the nearest
 * characters hide the ones behind before those are shaded (early depth rejection). */
void gfx_queue_sort(gfx_queue *queue, const gfx_shadow_fit *fit)
{
    order_front_to_back(queue);
    const int groups = queue->group_count, count = queue->count;
    int *instance_count = queue->mesh_instance_count, *caster_count = queue->mesh_caster_count;
    int *first_instance = queue->mesh_first_instance;
    float *group_scale = queue->group_scale;
    memset(instance_count, 0, (size_t)groups * sizeof *instance_count);
    memset(caster_count, 0, (size_t)groups * sizeof *caster_count);
    memset(group_scale, 0, (size_t)groups * sizeof *group_scale);
    for (int i = 0; i < count; ++i) {
        gfx_queued_instance *q = &queue->queued[i];
        int group = q->mesh_slot * GFX_LOD_LEVELS + q->level;
        ++instance_count[group];
        /* Rigid with uniform scale: any column's length is the scale (the Z-up turn keeps it). */
        float scale = glm_vec3_norm(q->world[0]);
        group_scale[group] = scale > group_scale[group] ? scale : group_scale[group];
        q->casts = fit && gfx_shadow_fit_casts(fit, q->caster_low, q->caster_high);
        caster_count[group] += q->casts;
    }
    int first = 0;
    for (int g = 0; g < groups; ++g) {
        first_instance[g] = first;
        first += instance_count[g];
    }
    /* Two cursors per group: casters from the group's start, the others after its casters. */
    int *placed_casters = queue->group_cursors, *placed_others = queue->group_cursors + groups;
    memset(queue->group_cursors, 0, 2 * (size_t)groups * sizeof *queue->group_cursors);
    for (int k = 0; k < count; ++k) {
        const gfx_queued_instance *q = &queue->queued[queue->sort_order[k]];
        int group = q->mesh_slot * GFX_LOD_LEVELS + q->level;
        int slot = first_instance[group] + (q->casts ? placed_casters[group]++
                                                     : caster_count[group] + placed_others[group]++);
        float *out = queue->instance_staging + (size_t)slot * GFX_FLOATS_PER_INSTANCE;
        memcpy(out, q->world, sizeof(mat4));
        memcpy(out + 16, q->tint, sizeof(vec4));
        out[20] = (float)q->first_matrix; /* exact: matrices per frame stay far below 2^24 */
        /* The vertex count can pass 2^24 in a large crowd, so it travels as int bits, not as a value. */
        int32_t first_vertex = q->first_skinned_vertex;
        memcpy(&out[21], &first_vertex, sizeof first_vertex);
        out[22] = q->skinning == POSE_SKINNING_DUAL_QUATERNION ? 1.0f : 0.0f;
        out[23] = 0.0f;
    }
}

void gfx_queue_upload(gfx_queue *queue)
{
    gfx_upload_stream(queue->instance_buffer, &queue->instance_buffer_instances, queue->capacity,
                      GFX_FLOATS_PER_INSTANCE * sizeof(float), queue->instance_staging, queue->count);
}

/* ---- Draws --------------------------------------------------------------------------------------------- */

void gfx_set_lighting_uniforms(const gfx_program *program, mat4 view_projection, const gfx_lighting *lighting)
{
    const gfx_frame_desc *frame = lighting->frame;
    glUniformMatrix4fv(program->view_projection, 1, GL_FALSE, (const float *)view_projection);
    glUniform3fv(program->camera_position, 1, frame->camera_position);
    glUniform3fv(program->light_direction, 1, frame->light_direction);
    glUniform3fv(program->light_color, 1, frame->light_color);
    glUniform3fv(program->ambient_color, 1, frame->ambient_color);
    if (program->clear_color >= 0)
        glUniform4fv(program->clear_color, 1, frame->clear_color);
    if (program->shadows_on >= 0) {
        glUniform1i(program->shadows_on, lighting->shadow->on ? 1 : 0);
        const gfx_shadow_fit *fit = &lighting->shadow->fit;
        glUniformMatrix4fv(program->light_view_projection, 1, GL_FALSE, (const float *)fit->light_view_projection);
        glUniform1f(program->shadow_texel, 1.0f / (float)fit->map_size);
        glUniform1f(program->shadow_normal_offset, GFX_SHADOW_NORMAL_OFFSET_TEXELS * fit->texel_metres);
        /* The drawn part less the two texels a tap can read beyond it (the fit's margin holds every
         * caster inside that). */
        glUniform2f(program->shadow_extent, (float)(fit->texels[0] - 2) / (float)fit->map_size,
                    (float)(fit->texels[1] - 2) / (float)fit->map_size);
    }
}

/* MD5 triangles are clockwise seen from the front (docs/md5-format.md); the Z-up turn and rigid world
 * matrices keep that on screen, so clockwise is GL's front face here. */
void gfx_set_culling(gfx_culling culling)
{
    glFrontFace(GL_CW);
    if (culling == GFX_CULLING_NONE) {
        glDisable(GL_CULL_FACE);
        return;
    }
    glEnable(GL_CULL_FACE);
    glCullFace(culling == GFX_CULLING_FRONT_FACES ? GL_FRONT : GL_BACK);
}

/* shadow_map: false while the shadow map is being drawn (a texture must not be read while written). */
void gfx_bind_frame_textures(const gfx_frame_textures *textures, bool shadow_map)
{
    glActiveTexture(GL_TEXTURE0 + GFX_TEXTURE_UNIT_PALETTES);
    glBindTexture(GL_TEXTURE_BUFFER, textures->palettes);
    glActiveTexture(GL_TEXTURE0 + GFX_TEXTURE_UNIT_INSTANCES);
    glBindTexture(GL_TEXTURE_BUFFER, textures->instances);
    glActiveTexture(GL_TEXTURE0 + GFX_TEXTURE_UNIT_SKINNED_VERTICES);
    glBindTexture(GL_TEXTURE_BUFFER, textures->skinned_vertices);
    glActiveTexture(GL_TEXTURE0 + GFX_TEXTURE_UNIT_SHADOW_MAP);
    glBindTexture(GL_TEXTURE_2D, shadow_map ? textures->shadow_map : 0);
    glActiveTexture(GL_TEXTURE0 + GFX_TEXTURE_UNIT_ALBEDO);
}

int gfx_usable_levels(const gfx_mesh_slot *slot, bool no_stand_ins)
{
    if (slot->last_is_stand_in && no_stand_ins && slot->level_count > 1)
        return slot->level_count - 1;
    return slot->level_count;
}

/* The batched paths (GPU or CPU skinning): one instanced draw per skin_mesh and level for all its
 * instances. shadow: each group drawn at its shadow level (gfx_lod_shadow_level: one coarser where the
 * shadow map cannot tell). points:
 * every vertex once as a point (the normals view) instead of the triangles. captured: the program that
 * draws groups skinned once this frame (gfx_skin_once.c) from the capture, or NULL. Tells gfx_timer the
 * triangles and the instances per level drawn. */
int gfx_draw_batched(const gfx_batch *batch, const gfx_program *program, const gfx_program *captured,
                     mat4 view_projection, bool points, bool shadow)
{
    const gfx_queue *queue = batch->queue;
    const bool no_stand_ins = batch->lighting->frame->no_stand_ins;
    const bool maps = !batch->lighting->frame->no_maps && !points;
    const float shadow_tolerance = GFX_SHADOW_NORMAL_OFFSET_TEXELS * batch->lighting->shadow->fit.texel_metres;
    int draw_calls = 0;
    if (captured) {
        glUseProgram(captured->program);
        gfx_set_lighting_uniforms(captured, view_projection, batch->lighting);
        glUniform1i(captured->captured_layout, 1);
    }
    glUseProgram(program->program);
    gfx_set_lighting_uniforms(program, view_projection, batch->lighting);
    if (program->captured_layout >= 0)
        glUniform1i(program->captured_layout, 0);
    if (program->normal_length >= 0)
        glUniform1f(program->normal_length, GFX_NORMAL_LENGTH);
    if (program->line_color >= 0)
        glUniform4f(program->line_color, 0.2f, 0.9f, 1.0f, 1.0f);
    if (program->tangent_frames >= 0)
        glUniform1i(program->tangent_frames, batch->lighting->frame->debug_tangents);
    const gfx_program *current = program;
    for (int g = 0; g < queue->group_count; ++g) {
        /* The shadow pass draws a group's casters, which the sort put first. */
        int instances = shadow ? queue->mesh_caster_count[g] : queue->mesh_instance_count[g];
        if (instances == 0)
            continue;
        const gfx_mesh_slot *slot = &batch->meshes[g / GFX_LOD_LEVELS];
        int level = g % GFX_LOD_LEVELS;
        if (shadow)
            level = gfx_lod_shadow_level(slot->level_error, level, gfx_usable_levels(slot, no_stand_ins),
                                         queue->group_scale[g], shadow_tolerance);
        if (!points)
            gfx_timer_count_instances(level, instances);
        int captured_first = captured && !points ? batch->group_captured_first[g] : -1;
        const gfx_program *wanted = captured_first >= 0 ? captured : program;
        if (wanted != current) {
            glUseProgram(wanted->program);
            current = wanted;
        }
        glUniform1i(current->first_instance, queue->mesh_first_instance[g]);
        for (int p = 0; p < slot->part_count; ++p) {
            const gfx_part *part = &slot->parts[p];
            if (points ? part->vertex_count == 0 : part->level_index_count[level] == 0)
                continue;
            /* Captured: this group's part p starts after all its instances' earlier parts. */
            glUniform1i(current->part_first_vertex,
                        captured_first >= 0 ? captured_first + instances * part->first_vertex : part->first_vertex);
            glUniform1i(current->part_vertex_count, part->vertex_count);
            glBindVertexArray(part->vertex_array);
            if (current->use_normal_map >= 0) {
                /* The part's maps on their units, the albedo's unit left active for the texture below. */
                bool normal_map = maps && part->normal_map != 0, specular_map = maps && part->specular_map != 0;
                glUniform1i(current->use_normal_map, normal_map);
                glUniform1i(current->use_specular_map, specular_map);
                glActiveTexture(GL_TEXTURE0 + GFX_TEXTURE_UNIT_NORMAL_MAP);
                glBindTexture(GL_TEXTURE_2D, normal_map ? part->normal_map : 0);
                glActiveTexture(GL_TEXTURE0 + GFX_TEXTURE_UNIT_SPECULAR_MAP);
                glBindTexture(GL_TEXTURE_2D, specular_map ? part->specular_map : 0);
                glActiveTexture(GL_TEXTURE0 + GFX_TEXTURE_UNIT_ALBEDO);
            }
            glBindTexture(GL_TEXTURE_2D, part->texture);
            if (points)
                glDrawArraysInstanced(GL_POINTS, 0, part->vertex_count, instances);
            else {
                glDrawElementsInstanced(GL_TRIANGLES, part->level_index_count[level], GL_UNSIGNED_INT,
                                        (const void *)((size_t)part->level_first_index[level] * sizeof(uint32_t)),
                                        instances);
                gfx_timer_count_triangles(instances, part->level_index_count[level]);
            }
            ++draw_calls;
        }
    }
    return draw_calls;
}
