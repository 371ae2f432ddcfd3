/* gfx_skin_once: see gfx_skin_once.h. */
#include "gfx_skin_once.h"

#include <stdlib.h>

#include "gfx_draw.h"

/* A group is skinned once when its picture level uses at least this share of the mesh's vertices: the
 * capture skins all of them, so below it the two passes' own skinning of the used ones costs less. */
static const float GFX_SKIN_ONCE_MIN_SHARE = 0.6f;

bool gfx_skin_once_setup(void)
{
    gfx.group_captured_first = malloc((size_t)gfx.mesh_capacity * GFX_LOD_LEVELS * sizeof *gfx.group_captured_first);
    if (!gfx.group_captured_first)
        return false;
    for (int g = 0; g < gfx.mesh_capacity * GFX_LOD_LEVELS; ++g)
        gfx.group_captured_first[g] = -1;
    return true;
}

void gfx_skin_once_shutdown(void)
{
    free(gfx.group_captured_first);
    gfx.group_captured_first = NULL;
}

/* Where each group's captured vertices go: every part of the mesh for each of its instances, part by part
 * (part p of the group's instances from first + instances * p's first vertex on). */
static int choose_groups(void)
{
    int total = 0;
    for (int g = 0; g < gfx.mesh_capacity * GFX_LOD_LEVELS; ++g) {
        gfx.group_captured_first[g] = -1;
        int instances = gfx.mesh_instance_count[g];
        if (instances == 0)
            continue;
        const gfx_mesh_slot *slot = &gfx.meshes[g / GFX_LOD_LEVELS];
        int level = g % GFX_LOD_LEVELS;
        if ((float)slot->level_vertices[level] < GFX_SKIN_ONCE_MIN_SHARE * (float)slot->vertex_count)
            continue;
        long long wanted = (long long)total + (long long)instances * slot->vertex_count;
        if (wanted > gfx.max_skinned_vertices)
            continue; /* more than one texture buffer holds: these skin in each pass */
        gfx.group_captured_first[g] = total;
        total = (int)wanted;
    }
    return total;
}

int gfx_skin_once_capture(void)
{
    gfx.captured_vertices = 0;
    if (!gfx.frame.skin_once || !gfx.shadows_on || gfx.naive || gfx.frame.cpu_skinning) {
        for (int g = 0; g < gfx.mesh_capacity * GFX_LOD_LEVELS; ++g)
            gfx.group_captured_first[g] = -1;
        return 0;
    }
    int total = choose_groups();
    if (total == 0)
        return 0;
    /* The buffer is orphaned every frame (the previous frame's draws may still read it) and grows to the
     * largest capture seen. */
    GLsizeiptr vertex_bytes = GFX_FLOATS_PER_SKINNED_VERTEX * (GLsizeiptr)sizeof(float);
    if (total > gfx.skinned_buffer_vertices)
        gfx.skinned_buffer_vertices = total;
    glBindBuffer(GL_TRANSFORM_FEEDBACK_BUFFER, gfx.skinned_buffer);
    glBufferData(GL_TRANSFORM_FEEDBACK_BUFFER, gfx.skinned_buffer_vertices * vertex_bytes, NULL, GL_STREAM_COPY);

    const gfx_program *skinned = &gfx.programs[GFX_PROGRAM_SKINNED];
    glUseProgram(skinned->program);
    gfx_set_lighting_uniforms(skinned, gfx.view_projection);
    gfx_bind_frame_textures(false);
    glEnable(GL_RASTERIZER_DISCARD);
    for (int g = 0; g < gfx.mesh_capacity * GFX_LOD_LEVELS; ++g) {
        int first = gfx.group_captured_first[g];
        if (first < 0)
            continue;
        int instances = gfx.mesh_instance_count[g];
        const gfx_mesh_slot *slot = &gfx.meshes[g / GFX_LOD_LEVELS];
        glUniform1i(skinned->first_instance, gfx.mesh_first_instance[g]);
        for (int p = 0; p < slot->part_count; ++p) {
            const gfx_part *part = &slot->parts[p];
            if (part->vertex_count == 0)
                continue;
            GLintptr offset = ((GLintptr)first + (GLintptr)instances * part->first_vertex) * vertex_bytes;
            glBindBufferRange(GL_TRANSFORM_FEEDBACK_BUFFER, 0, gfx.skinned_buffer, offset,
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
    gfx.captured_vertices = total;
    return total;
}
