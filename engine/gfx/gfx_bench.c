/* gfx_bench: see gfx_bench.h. The naive frame is one of gfx.c's frames under rules of its own
 * (gfx_frame.h): its palettes stay in memory, where this file reads them, and its end draws the queue here,
 * in submit order, between the steps every frame's end shares. */
#include "gfx_bench.h"

#include "gfx_draw.h"
#include "gfx_frame.h"
#include "gfx_internal.h"
#include "gfx_palette.h"
#include "gfx_shadow.h"
#include "gfx_timer.h"

_Static_assert(GFX_NAIVE_MAX_JOINTS == GFX_NAIVE_MAX_JOINTS_TEXT, "the naive shader's palette array size");

static const gfx_frame_rules naive_rules = {
    .begin = "gfx_bench_begin_naive_frame",
    .end = "gfx_bench_end_naive_frame",
    .path = "the naive path",
    .max_joints = GFX_NAIVE_MAX_JOINTS,
    .linear_only = true,
    .whole_meshes = true,
    .palettes_on_cpu = true,
};

void gfx_bench_begin_naive_frame(const gfx_frame_desc *desc)
{
    gfx_frame_desc naive;
    if (desc) {
        naive = *desc;
        naive.cpu_skinning = false;
    }
    gfx_frame_begin(desc ? &naive : NULL, &naive_rules);
}

/* Per instance, in submit order, its own uniform uploads and one draw per skin_mesh. */
static int draw_naive(gfx_frame_end *end, const gfx_program *program, mat4 view_projection)
{
    int draw_calls = 0;
    glUseProgram(program->program);
    gfx_set_lighting_uniforms(program, view_projection, &end->lighting);
    for (int i = 0; i < end->count; ++i) {
        const gfx_queued_instance *q = &end->queued[i];
        const gfx_mesh_slot *slot = &end->meshes[q->mesh_slot];
        glUniformMatrix4fv(program->bones, slot->joint_count, GL_FALSE,
                           end->palettes + (size_t)q->first_matrix * GFX_FLOATS_PER_MATRIX);
        glUniformMatrix4fv(program->world, 1, GL_FALSE, (const float *)q->world);
        glUniform4fv(program->instance_tint, 1, q->tint);
        ++end->stats.palette_uploads;
        /* The naive baseline draws every instance whole (level 0), as before levels of detail. */
        gfx_timer_count_instances(0, 1);
        end->stats.palette_bytes_copied += gfx_palette_bytes(slot->joint_count);
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

void gfx_bench_end_naive_frame(void)
{
    gfx_frame_end end;
    if (!gfx_frame_close(&naive_rules, &end))
        return;
    /* Nothing to upload: the palettes stay in memory until each is sent as its instance's uniforms, and the
     * instances are drawn as queued. The shadow pass draws each instance into the fitted shadow map. */
    if (end.lighting.shadow->on) {
        gfx_timer_pass(GFX_PASS_SHADOW);
        gfx_bind_frame_textures(&end.textures, false);
        GLuint target = gfx_shadow_pass_begin(end.shadow);
        gfx_set_culling(end.frame->culling);
        end.stats.shadow_draw_calls =
            draw_naive(&end, &end.programs->of[GFX_PROGRAM_NAIVE_DEPTH], end.light_view_projection);
        gfx_shadow_pass_end(target);
        end.stats.draw_calls += end.stats.shadow_draw_calls;
    }
    gfx_frame_picture(&end);
    if (end.stats.instances > 0) {
        gfx_set_culling(end.frame->culling);
        end.stats.draw_calls += draw_naive(&end, &end.programs->of[GFX_PROGRAM_NAIVE], end.view_projection);
    }
    gfx_frame_finish(&end);
}
