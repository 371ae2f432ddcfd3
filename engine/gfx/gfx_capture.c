/* gfx_capture: see gfx_capture.h. */
#include "gfx_capture.h"

#include <stdlib.h>
#include <string.h>

#include "gfx_draw.h"
#include "gfx_internal.h"
#include "gfx_palette.h"

/* Either kind of palette: `matrices` matrices' room of floats at `palette`, skinned as `skinning` says. */
static bool capture(gfx_mesh mesh, int mesh_index, const void *palette, int joint_count, int matrices,
                    pose_skinning skinning, float (*positions)[3], float (*normals)[3], diag *err)
{
    gfx_mesh_slot *slot = gfx_find_mesh(mesh);
    if (!slot)
        return diag_set(err, "gfx", 0, "gfx_capture_skinning: mesh %u is not alive", (unsigned)mesh.id);
    if (gfx.in_frame)
        return diag_set(err, slot->label, 0, "gfx_capture_skinning inside a frame would overwrite its palettes");
    if (mesh_index < 0 || mesh_index >= slot->part_count)
        return diag_set(err, slot->label, 0, "gfx_capture_skinning: mesh index %d of %d", mesh_index,
                        slot->part_count);
    if (!palette || joint_count != slot->joint_count || !positions)
        return diag_set(err, slot->label, 0, "gfx_capture_skinning: needs a palette of %d joints and an output",
                        slot->joint_count);
    const gfx_part *part = &slot->parts[mesh_index];
    if (part->vertex_count == 0)
        return true;

    /* The frame's own path: palette and one identity instance through the same texture buffers. */
    if (matrices > gfx.palette_capacity && !gfx_grow_palettes(matrices))
        return diag_set(err, slot->label, 0, "out of memory");
    memset(gfx.palette_staging, 0, gfx_palette_bytes(matrices));
    memcpy(gfx.palette_staging, palette,
           skinning == POSE_SKINNING_DUAL_QUATERNION ? (size_t)joint_count * sizeof(pose_dual_quaternion)
                                                     : (size_t)joint_count * sizeof(mat4));
    float identity_instance[GFX_FLOATS_PER_INSTANCE] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1,
                                                        1, 1, 1, 1, 0, 0, 0, 0};
    identity_instance[22] = skinning == POSE_SKINNING_DUAL_QUATERNION ? 1.0f : 0.0f; /* as gfx_draw.c writes it */
    gfx_upload_stream(gfx.palette_buffer, &gfx.palette_buffer_matrices, gfx.palette_capacity,
                  GFX_FLOATS_PER_MATRIX * sizeof(float), gfx.palette_staging, matrices);
    gfx_upload_stream(gfx.instance_buffer, &gfx.instance_buffer_instances, gfx.instance_capacity,
                  GFX_FLOATS_PER_INSTANCE * sizeof(float), identity_instance, 1);

    size_t floats_per_vertex = 6; /* position then normal, interleaved */
    size_t bytes = (size_t)part->vertex_count * floats_per_vertex * sizeof(float);
    float *captured = malloc(bytes);
    if (!captured)
        return diag_set(err, slot->label, 0, "out of memory for %d captured vertices", part->vertex_count);
    GLuint feedback_buffer = 0;
    glGenBuffers(1, &feedback_buffer);
    glBindBuffer(GL_TRANSFORM_FEEDBACK_BUFFER, feedback_buffer);
    glBufferData(GL_TRANSFORM_FEEDBACK_BUFFER, (GLsizeiptr)bytes, NULL, GL_STATIC_READ);
    glBindBufferBase(GL_TRANSFORM_FEEDBACK_BUFFER, 0, feedback_buffer);

    const gfx_program *skinned = &gfx.programs[GFX_PROGRAM_SKINNED];
    glUseProgram(skinned->program);
    gfx.shadows_on = false;
    gfx_set_lighting_uniforms(skinned, gfx.view_projection);
    glUniform1i(skinned->first_instance, 0);
    gfx_bind_frame_textures(false);
    glBindVertexArray(part->vertex_array);
    glEnable(GL_RASTERIZER_DISCARD);
    glBeginTransformFeedback(GL_POINTS);
    glDrawArrays(GL_POINTS, 0, part->vertex_count);
    glEndTransformFeedback();
    glDisable(GL_RASTERIZER_DISCARD);
    glGetBufferSubData(GL_TRANSFORM_FEEDBACK_BUFFER, 0, (GLsizeiptr)bytes, captured);
    glBindBufferBase(GL_TRANSFORM_FEEDBACK_BUFFER, 0, 0);
    glBindBuffer(GL_TRANSFORM_FEEDBACK_BUFFER, 0);
    glDeleteBuffers(1, &feedback_buffer);
    glBindVertexArray(0);
    glUseProgram(0);

    for (int v = 0; v < part->vertex_count; ++v) {
        const float *vertex = captured + (size_t)v * floats_per_vertex;
        memcpy(positions[v], vertex, 3 * sizeof(float));
        if (normals)
            memcpy(normals[v], vertex + 3, 3 * sizeof(float));
    }
    free(captured);
    const char *errors = gfx_check_errors();
    if (errors)
        return diag_set(err, slot->label, 0, "GL errors while capturing skinning: %s", errors);
    return true;
}

bool gfx_capture_skinning(gfx_mesh mesh, int mesh_index, const mat4 *palette, int joint_count,
                          float (*positions)[3], float (*normals)[3], diag *err)
{
    return capture(mesh, mesh_index, palette, joint_count, joint_count, POSE_SKINNING_LINEAR, positions, normals,
                   err);
}

bool gfx_capture_dual_quaternion_skinning(gfx_mesh mesh, int mesh_index, const pose_dual_quaternion *palette,
                                          int joint_count, float (*positions)[3], float (*normals)[3], diag *err)
{
    return capture(mesh, mesh_index, palette, joint_count, (joint_count + 1) / 2, POSE_SKINNING_DUAL_QUATERNION,
                   positions, normals, err);
}
