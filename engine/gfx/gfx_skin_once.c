/* gfx_skin_once: see gfx_skin_once.h. */
#include "gfx_skin_once.h"

#include <stdlib.h>

/* A group is skinned once when its picture level uses at least this share of the mesh's vertices: the
 * capture skins all of them, so below it the two passes' own skinning of the used ones costs less. */
static const float GFX_SKIN_ONCE_MIN_SHARE = 0.6f;

bool gfx_skin_once_setup(gfx_skin_once *once, int group_count)
{
    *once = (gfx_skin_once){0};
    once->group_captured_first = malloc((size_t)group_count * sizeof *once->group_captured_first);
    if (!once->group_captured_first)
        return false;
    once->group_count = group_count;
    gfx_skin_once_none(once);
    return true;
}

void gfx_skin_once_shutdown(gfx_skin_once *once)
{
    free(once->group_captured_first);
    *once = (gfx_skin_once){0};
}

void gfx_skin_once_none(gfx_skin_once *once)
{
    once->captured_vertices = 0;
    for (int g = 0; g < once->group_count; ++g)
        once->group_captured_first[g] = -1;
}

/* Where each group's captured vertices go: every part of the mesh for each of its instances, part by part
 * (part p of the group's instances from first + instances * p's first vertex on). */
static int choose_groups(gfx_skin_once *once, const gfx_skin_once_frame *frame)
{
    int total = 0;
    for (int g = 0; g < once->group_count; ++g) {
        once->group_captured_first[g] = -1;
        int instances = frame->queue->mesh_instance_count[g];
        if (instances == 0)
            continue;
        const gfx_mesh_slot *slot = &frame->meshes[g / GFX_LOD_LEVELS];
        int level = g % GFX_LOD_LEVELS;
        if ((float)slot->level_vertices[level] < GFX_SKIN_ONCE_MIN_SHARE * (float)slot->vertex_count)
            continue;
        long long wanted = (long long)total + (long long)instances * slot->vertex_count;
        if (wanted > frame->skinned->max_vertices)
            continue; /* more than one texture buffer holds: these skin in each pass */
        once->group_captured_first[g] = total;
        total = (int)wanted;
    }
    return total;
}

int gfx_skin_once_capture(gfx_skin_once *once, const gfx_skin_once_frame *frame)
{
    once->captured_vertices = 0;
    int total = choose_groups(once, frame);
    if (total == 0)
        return 0;
    /* The buffer is orphaned every frame (the previous frame's draws may still read it) and grows to the
     * largest capture seen. */
    gfx_skinned_vertices *skinned = frame->skinned;
    GLsizeiptr vertex_bytes = GFX_FLOATS_PER_SKINNED_VERTEX * (GLsizeiptr)sizeof(float);
    if (total > skinned->buffer_vertices)
        skinned->buffer_vertices = total;
    glBindBuffer(GL_TRANSFORM_FEEDBACK_BUFFER, skinned->buffer);
    glBufferData(GL_TRANSFORM_FEEDBACK_BUFFER, skinned->buffer_vertices * vertex_bytes, NULL, GL_STREAM_COPY);

    const gfx_program *skinning = frame->skinning;
    glUseProgram(skinning->program);
    gfx_set_lighting_uniforms(skinning, frame->view_projection, frame->lighting);
    gfx_bind_frame_textures(frame->textures, false);
    glEnable(GL_RASTERIZER_DISCARD);
    for (int g = 0; g < once->group_count; ++g) {
        int first = once->group_captured_first[g];
        if (first < 0)
            continue;
        int instances = frame->queue->mesh_instance_count[g];
        const gfx_mesh_slot *slot = &frame->meshes[g / GFX_LOD_LEVELS];
        glUniform1i(skinning->first_instance, frame->queue->mesh_first_instance[g]);
        for (int p = 0; p < slot->part_count; ++p) {
            const gfx_part *part = &slot->parts[p];
            if (part->vertex_count == 0)
                continue;
            GLintptr offset = ((GLintptr)first + (GLintptr)instances * part->first_vertex) * vertex_bytes;
            glBindBufferRange(GL_TRANSFORM_FEEDBACK_BUFFER, 0, skinned->buffer, offset,
                              (GLsizeiptr)instances * part->vertex_count * vertex_bytes);
            glBindVertexArray(part->vertex_array);
            glBeginTransformFeedback(GL_POINTS);
            glDrawArraysInstanced(GL_POINTS, 0, part->vertex_count, instances);
            glEndTransformFeedback();
        }
    }
    glDisable(GL_RASTERIZER_DISCARD);
    glBindBufferBase(GL_TRANSFORM_FEEDBACK_BUFFER, 0, 0);
    glBindBuffer(GL_TRANSFORM_FEEDBACK_BUFFER, 0);
    glBindVertexArray(0);
    once->captured_vertices = total;
    return total;
}
