/* gfx_cpu_skin: see gfx_cpu_skin.h. */
#include "gfx_cpu_skin.h"

#include <stdlib.h>

#include "../pose/pose.h"
#include "gfx_palette.h"

bool gfx_cpu_skin_grow(int needed)
{
    int capacity = gfx_doubled_until(gfx.skinned_capacity > 0 ? gfx.skinned_capacity : 4096, needed);
    float *staging = realloc(gfx.skinned_staging, (size_t)capacity * GFX_FLOATS_PER_SKINNED_VERTEX * sizeof(float));
    if (!staging)
        return false;
    gfx.skinned_staging = staging;
    gfx.skinned_capacity = capacity;
    ++gfx.stats.buffer_grows;
    return true;
}
/* The CPU path: every instance's vertices skinned by the reference straight into the upload staging, a
 * block per instance and skin_mesh: its positions, then its normals (the layout the shader reads). */
void gfx_cpu_skin_frame(void)
{
    for (int i = 0; i < gfx.instance_count; ++i) {
        const gfx_queued_instance *q = &gfx.queued[i];
        const gfx_mesh_slot *slot = &gfx.meshes[q->mesh_slot];
        const float *palette = gfx.palette_staging + (size_t)q->first_matrix * GFX_FLOATS_PER_MATRIX;
        for (int p = 0; p < slot->part_count; ++p) {
            const gfx_part *part = &slot->parts[p];
            float (*positions)[3] = (float (*)[3])(gfx.skinned_staging + (size_t)(q->first_skinned_vertex +
                                                   part->first_vertex) * GFX_FLOATS_PER_SKINNED_VERTEX);
            if (q->skinning == POSE_SKINNING_DUAL_QUATERNION)
                pose_skin_cpu_dual_quaternion(&part->bind, (const pose_dual_quaternion *)palette, slot->joint_count,
                                              positions, positions + part->vertex_count);
            else
                pose_skin_cpu(&part->bind, (const mat4 *)palette, slot->joint_count, positions,
                              positions + part->vertex_count);
        }
    }
}
