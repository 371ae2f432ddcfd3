/* gfx_cpu_skin: see gfx_cpu_skin.h. */
#include "gfx_cpu_skin.h"

#include <stdlib.h>
#include <string.h>

#include "../pose/pose.h"
#include "gfx_palette.h"

void gfx_cpu_skin_setup(gfx_skinned_vertices *skinned)
{
    *skinned = (gfx_skinned_vertices){0};
    GLuint buffer = 0;
    glGenBuffers(1, &buffer);
    skinned->buffer = gfx_make_texture_buffer(buffer, 0, GL_R32F, &skinned->texture);
    GLint texels = 0;
    glGetIntegerv(GL_MAX_TEXTURE_BUFFER_SIZE, &texels);
    skinned->max_vertices = texels / GFX_FLOATS_PER_SKINNED_VERTEX;
}

void gfx_cpu_skin_shutdown(gfx_skinned_vertices *skinned)
{
    glDeleteTextures(1, &skinned->texture);
    glDeleteBuffers(1, &skinned->buffer);
    free(skinned->staging);
    *skinned = (gfx_skinned_vertices){0};
}

bool gfx_cpu_skin_grow(gfx_skinned_vertices *skinned, int needed)
{
    int capacity = gfx_doubled_until(skinned->capacity > 0 ? skinned->capacity : 4096, needed);
    float *staging = realloc(skinned->staging, (size_t)capacity * GFX_FLOATS_PER_SKINNED_VERTEX * sizeof(float));
    if (!staging)
        return false;
    skinned->staging = staging;
    skinned->capacity = capacity;
    ++skinned->grows;
    return true;
}

/* The CPU path: every instance's vertices skinned by the reference straight into the upload staging, a
 * block per instance and skin_mesh: its positions, then its normals, then its tangent frames (the layout the
 * shader reads; zero frames for a mesh without tangents: drawn without its normal map). */
void gfx_cpu_skin_frame(gfx_skinned_vertices *skinned, const gfx_queued_instance *queued, int count,
                        const gfx_mesh_slot *meshes, const float *palettes)
{
    for (int i = 0; i < count; ++i) {
        const gfx_queued_instance *q = &queued[i];
        const gfx_mesh_slot *slot = &meshes[q->mesh_slot];
        const float *palette = palettes + (size_t)q->first_matrix * GFX_FLOATS_PER_MATRIX;
        for (int p = 0; p < slot->part_count; ++p) {
            const gfx_part *part = &slot->parts[p];
            float (*positions)[3] = (float (*)[3])(skinned->staging + (size_t)(q->first_skinned_vertex +
                                                   part->first_vertex) * GFX_FLOATS_PER_SKINNED_VERTEX);
            float (*normals)[3] = positions + part->vertex_count;
            float (*tangents)[4] = (float (*)[4])(normals + part->vertex_count);
            bool dual = q->skinning == POSE_SKINNING_DUAL_QUATERNION;
            if (dual)
                pose_skin_cpu_dual_quaternion(&part->bind, (const pose_dual_quaternion *)palette, slot->joint_count,
                                              positions, normals);
            else
                pose_skin_cpu(&part->bind, (const mat4 *)palette, slot->joint_count, positions, normals);
            if (!part->bind.tangents)
                memset(tangents, 0, (size_t)part->vertex_count * sizeof tangents[0]);
            else if (dual)
                pose_skin_cpu_dual_quaternion_tangents(&part->bind, (const pose_dual_quaternion *)palette,
                                                       slot->joint_count, tangents);
            else
                pose_skin_cpu_tangents(&part->bind, (const mat4 *)palette, slot->joint_count,
                                       (const float (*)[3])normals, tangents);
        }
    }
    gfx_upload_stream(skinned->buffer, &skinned->buffer_vertices, skinned->capacity,
                      GFX_FLOATS_PER_SKINNED_VERTEX * sizeof(float), skinned->staging, skinned->count);
}
