/* gfx_capture: see gfx_capture.h; run by gfx.c on the parts gfx_capture_internal.h names. */
#include "gfx_capture_internal.h"

#include <stdlib.h>
#include <string.h>

bool gfx_capture_run(const gfx_capture_parts *parts, gfx_mesh mesh, int mesh_index, const void *palette,
                     int joint_count, int matrices, pose_skinning skinning, float (*positions)[3],
                     float (*normals)[3], float (*tangents)[4], diag *err)
{
    const gfx_mesh_slot *slot = gfx_meshes_find(parts->meshes, mesh);
    if (!slot)
        return diag_set(err, "gfx", 0, "gfx_capture_skinning: mesh %u is not alive", (unsigned)mesh.id);
    if (parts->in_frame)
        return diag_set(err, slot->label, 0, "gfx_capture_skinning inside a frame would overwrite its palettes");
    if (mesh_index < 0 || mesh_index >= slot->part_count)
        return diag_set(err, slot->label, 0, "gfx_capture_skinning: mesh index %d of %d", mesh_index,
                        slot->part_count);
    if (!palette || joint_count != slot->joint_count || (!positions && !tangents))
        return diag_set(err, slot->label, 0, "gfx_capture_skinning: needs a palette of %d joints and an output",
                        slot->joint_count);
    const gfx_part *part = &slot->parts[mesh_index];
    if (part->vertex_count == 0)
        return true;

    /* The frame's own path: palette and one identity instance through the same texture buffers. */
    gfx_palettes *palettes = parts->palettes;
    if (matrices > palettes->capacity && !gfx_palettes_grow_staging(palettes, matrices))
        return diag_set(err, slot->label, 0, "out of memory");
    memset(palettes->staging, 0, gfx_palette_bytes(matrices));
    memcpy(palettes->staging, palette,
           skinning == POSE_SKINNING_DUAL_QUATERNION ? (size_t)joint_count * sizeof(pose_dual_quaternion)
                                                     : (size_t)joint_count * sizeof(mat4));
    float identity_instance[GFX_FLOATS_PER_INSTANCE] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1,
                                                        1, 1, 1, 1, 0, 0, 0, 0};
    identity_instance[22] = skinning == POSE_SKINNING_DUAL_QUATERNION ? 1.0f : 0.0f; /* as gfx_draw.c writes it */
    gfx_upload_stream(palettes->buffer, &palettes->buffer_matrices, palettes->capacity,
                      GFX_FLOATS_PER_MATRIX * sizeof(float), palettes->staging, matrices);
    gfx_queue *queue = parts->queue;
    gfx_upload_stream(queue->instance_buffer, &queue->instance_buffer_instances, queue->capacity,
                      GFX_FLOATS_PER_INSTANCE * sizeof(float), identity_instance, 1);

    size_t floats_per_vertex = 10; /* position, normal, tangent frame, interleaved */
    size_t bytes = (size_t)part->vertex_count * floats_per_vertex * sizeof(float);
    float *captured = malloc(bytes);
    if (!captured)
        return diag_set(err, slot->label, 0, "out of memory for %d captured vertices", part->vertex_count);
    GLuint feedback_buffer = 0;
    glGenBuffers(1, &feedback_buffer);
    glBindBuffer(GL_TRANSFORM_FEEDBACK_BUFFER, feedback_buffer);
    glBufferData(GL_TRANSFORM_FEEDBACK_BUFFER, (GLsizeiptr)bytes, NULL, GL_STATIC_READ);
    glBindBufferBase(GL_TRANSFORM_FEEDBACK_BUFFER, 0, feedback_buffer);

    const gfx_program *skinned = parts->skinning;
    glUseProgram(skinned->program);
    gfx_set_lighting_uniforms(skinned, parts->view_projection, parts->lighting);
    glUniform1i(skinned->first_instance, 0);
    gfx_bind_frame_textures(parts->textures, false);
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
        if (positions)
            memcpy(positions[v], vertex, 3 * sizeof(float));
        if (normals)
            memcpy(normals[v], vertex + 3, 3 * sizeof(float));
        if (tangents)
            memcpy(tangents[v], vertex + 6, 4 * sizeof(float));
    }
    free(captured);
    const char *errors = gfx_check_errors();
    if (errors)
        return diag_set(err, slot->label, 0, "GL errors while capturing skinning: %s", errors);
    return true;
}
