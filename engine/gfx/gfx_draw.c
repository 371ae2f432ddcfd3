/* gfx_draw: see gfx_draw.h. */
#include "gfx_draw.h"

#include <string.h>

/* Normals view: line length in metres. */
static const float GFX_NORMAL_LENGTH = 0.04f;

/* Counting sort of the frame's instances by mesh into the GPU layout, so each mesh's instances are
 * contiguous and one draw call covers them. Stable: instances keep their submit order within a mesh. */
void gfx_sort_instances_by_mesh(void)
{
    memset(gfx.mesh_instance_count, 0, (size_t)gfx.mesh_capacity * sizeof *gfx.mesh_instance_count);
    for (int i = 0; i < gfx.instance_count; ++i)
        ++gfx.mesh_instance_count[gfx.queued[i].mesh_slot];
    int first = 0;
    for (int m = 0; m < gfx.mesh_capacity; ++m) {
        gfx.mesh_first_instance[m] = first;
        first += gfx.mesh_instance_count[m];
    }
    /* mesh_first_instance is used as a cursor here and restored below. */
    for (int i = 0; i < gfx.instance_count; ++i) {
        const gfx_queued_instance *q = &gfx.queued[i];
        float *out = gfx.instance_staging + (size_t)gfx.mesh_first_instance[q->mesh_slot]++ * GFX_FLOATS_PER_INSTANCE;
        memcpy(out, q->world, sizeof(mat4));
        memcpy(out + 16, q->tint, sizeof(vec4));
        out[20] = (float)q->first_matrix; /* exact: matrices per frame stay far below 2^24 */
        /* The vertex count can pass 2^24 in a large crowd, so it travels as int bits, not as a value. */
        int32_t first_vertex = q->first_skinned_vertex;
        memcpy(&out[21], &first_vertex, sizeof first_vertex);
        out[22] = out[23] = 0.0f;
    }
    for (int m = 0; m < gfx.mesh_capacity; ++m)
        gfx.mesh_first_instance[m] -= gfx.mesh_instance_count[m];
}

void gfx_set_lighting_uniforms(const gfx_program *program, mat4 view_projection)
{
    glUniformMatrix4fv(program->view_projection, 1, GL_FALSE, (const float *)view_projection);
    glUniform3fv(program->camera_position, 1, gfx.frame.camera_position);
    glUniform3fv(program->light_direction, 1, gfx.frame.light_direction);
    glUniform3fv(program->light_color, 1, gfx.frame.light_color);
    glUniform3fv(program->ambient_color, 1, gfx.frame.ambient_color);
    if (program->clear_color >= 0)
        glUniform4fv(program->clear_color, 1, gfx.frame.clear_color);
    if (program->shadows_on >= 0) {
        glUniform1i(program->shadows_on, gfx.shadows_on ? 1 : 0);
        const gfx_shadow_fit *fit = &gfx.shadow_fit;
        glUniformMatrix4fv(program->light_view_projection, 1, GL_FALSE, (const float *)fit->light_view_projection);
        glUniform1f(program->shadow_texel, 1.0f / (float)fit->map_size);
        glUniform1f(program->shadow_normal_offset, 1.5f * fit->texel_metres);
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
void gfx_bind_frame_textures(bool shadow_map)
{
    glActiveTexture(GL_TEXTURE0 + GFX_TEXTURE_UNIT_PALETTES);
    glBindTexture(GL_TEXTURE_BUFFER, gfx.palette_texture);
    glActiveTexture(GL_TEXTURE0 + GFX_TEXTURE_UNIT_INSTANCES);
    glBindTexture(GL_TEXTURE_BUFFER, gfx.instance_texture);
    glActiveTexture(GL_TEXTURE0 + GFX_TEXTURE_UNIT_SKINNED_VERTICES);
    glBindTexture(GL_TEXTURE_BUFFER, gfx.skinned_texture);
    glActiveTexture(GL_TEXTURE0 + GFX_TEXTURE_UNIT_SHADOW_MAP);
    glBindTexture(GL_TEXTURE_2D, shadow_map && gfx.shadows_on ? gfx.shadow_textures[gfx.shadow_fit.map_level] : 0);
    glActiveTexture(GL_TEXTURE0 + GFX_TEXTURE_UNIT_ALBEDO);
}

/* The batched paths (GPU or CPU skinning): one instanced draw per skin_mesh for all its instances.
 * points: every vertex once as a point (the normals view) instead of the triangles. */
int gfx_draw_batched(const gfx_program *program, mat4 view_projection, bool points)
{
    int draw_calls = 0;
    glUseProgram(program->program);
    gfx_set_lighting_uniforms(program, view_projection);
    if (program->normal_length >= 0)
        glUniform1f(program->normal_length, GFX_NORMAL_LENGTH);
    if (program->line_color >= 0)
        glUniform4f(program->line_color, 0.2f, 0.9f, 1.0f, 1.0f);
    for (int m = 0; m < gfx.mesh_capacity; ++m) {
        if (gfx.mesh_instance_count[m] == 0)
            continue;
        const gfx_mesh_slot *slot = &gfx.meshes[m];
        glUniform1i(program->first_instance, gfx.mesh_first_instance[m]);
        for (int p = 0; p < slot->part_count; ++p) {
            const gfx_part *part = &slot->parts[p];
            if (part->index_count == 0)
                continue;
            glUniform1i(program->part_first_vertex, part->first_vertex);
            glUniform1i(program->part_vertex_count, part->vertex_count);
            glBindVertexArray(part->vertex_array);
            glBindTexture(GL_TEXTURE_2D, part->texture);
            if (points)
                glDrawArraysInstanced(GL_POINTS, 0, part->vertex_count, gfx.mesh_instance_count[m]);
            else
                glDrawElementsInstanced(GL_TRIANGLES, part->index_count, GL_UNSIGNED_INT, NULL,
                                        gfx.mesh_instance_count[m]);
            ++draw_calls;
        }
    }
    return draw_calls;
}
