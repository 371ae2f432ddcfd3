/* gfx_bench: see gfx_bench.h. */
#include "gfx_bench.h"

#include "gfx_draw.h"
#include "gfx_internal.h"
#include "gfx_palette.h"
#include "gfx_timer.h"

_Static_assert(GFX_NAIVE_MAX_JOINTS == GFX_NAIVE_MAX_JOINTS_TEXT, "the naive shader's palette array size");

void gfx_bench_begin_naive_frame(const gfx_frame_desc *desc)
{
    gfx_begin_frame(desc);
    if (!gfx.in_frame)
        return;
    gfx.naive = true;
    gfx.frame.cpu_skinning = false;
}

/* The naive path: per instance, in submit order, its own uniform uploads and one draw per skin_mesh. */
int gfx_draw_naive(const gfx_program *program, mat4 view_projection, gfx_stats *stats)
{
    int draw_calls = 0;
    glUseProgram(program->program);
    gfx_set_lighting_uniforms(program, view_projection);
    for (int i = 0; i < gfx.instance_count; ++i) {
        const gfx_queued_instance *q = &gfx.queued[i];
        const gfx_mesh_slot *slot = &gfx.meshes[q->mesh_slot];
        glUniformMatrix4fv(program->bones, slot->joint_count, GL_FALSE,
                           gfx.palette_staging + (size_t)q->first_matrix * GFX_FLOATS_PER_MATRIX);
        glUniformMatrix4fv(program->world, 1, GL_FALSE, (const float *)q->world);
        glUniform4fv(program->instance_tint, 1, q->tint);
        ++stats->palette_uploads;
        /* The naive baseline draws every instance whole (level 0), as before levels of detail. */
        gfx_timer_count_instances(0, 1);
        stats->palette_bytes_copied += gfx_palette_bytes(slot->joint_count);
        for (int p = 0; p < slot->part_count; ++p) {
            const gfx_part *part = &slot->parts[p];
            if (part->index_count == 0)
                continue;
            glBindVertexArray(part->vertex_array);
            glBindTexture(GL_TEXTURE_2D, part->texture);
            glDrawElements(GL_TRIANGLES, part->index_count, GL_UNSIGNED_INT, NULL);
            gfx_timer_count_triangles(1, part->index_count);
            ++draw_calls;
        }
    }
    return draw_calls;
}
