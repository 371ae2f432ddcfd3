#include "model.h"

#include <float.h>
#include <stdlib.h>

void model_free(model *m)
{
    if (!m)
        return;
    skeleton *s = &m->skeleton;
    if (s->names)
        for (int i = 0; i < s->joint_count; ++i)
            free(s->names[i]);
    free(s->names);
    free(s->parents);
    free(s->bind_object);
    free(s->inverse_bind);
    for (int i = 0; i < m->mesh_count && m->meshes; ++i) {
        skin_mesh *mesh = &m->meshes[i];
        free(mesh->shader);
        free(mesh->texture_path);
        free(mesh->positions);
        free(mesh->normals);
        free(mesh->uvs);
        free(mesh->triangles);
        free(mesh->joints);
        free(mesh->weights);
    }
    free(m->meshes);
    free(m);
}

bool model_joint_boxes(const model *m, float (*boxes)[2][3])
{
    if (!m || !boxes || !m->skeleton.inverse_bind || m->skeleton.joint_count <= 0)
        return false;
    int joint_count = m->skeleton.joint_count;
    for (int j = 0; j < joint_count; ++j)
        for (int k = 0; k < 3; ++k) {
            boxes[j][0][k] = FLT_MAX;
            boxes[j][1][k] = -FLT_MAX;
        }
    for (int i = 0; i < m->mesh_count; ++i) {
        const skin_mesh *mesh = &m->meshes[i];
        for (int v = 0; v < mesh->vertex_count; ++v) {
            for (int k = 0; k < SKIN_MAX_INFLUENCES; ++k) {
                int joint = mesh->joints[v][k];
                if (mesh->weights[v][k] == 0.0f || joint >= joint_count)
                    continue;
                vec3 local;
                glm_mat4_mulv3(m->skeleton.inverse_bind[joint], (float *)mesh->positions[v], 1.0f, local);
                for (int axis = 0; axis < 3; ++axis) {
                    boxes[joint][0][axis] = glm_min(boxes[joint][0][axis], local[axis]);
                    boxes[joint][1][axis] = glm_max(boxes[joint][1][axis], local[axis]);
                }
            }
        }
    }
    return true;
}
