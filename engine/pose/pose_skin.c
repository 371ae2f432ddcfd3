/* Skinning on the CPU, the reference the GPU is checked against, and the skinned box (pose.h). */
#include "pose_kernels.h"
#include "pose_internal.h"

#include <float.h>
#include <string.h>

/* ---- CPU skinning ---- */

/* See pose_internal.h. */
bool pose_skin_joints_fit(const skin_mesh *mesh, int joint_count)
{
    for (int v = 0; v < mesh->vertex_count; ++v)
        for (int k = 0; k < SKIN_MAX_INFLUENCES; ++k)
            if (mesh->weights[v][k] != 0.0f && mesh->joints[v][k] >= joint_count)
                return false;
    return true;
}

/* Linear blend skinning of vertex v: blend its palette matrices (3x4, column-major), then transform once.
 * The palette matrices are rigid, so their 3x3 part is a rotation and transforms normals directly (no
 * inverse transpose). */
static void skin_blend(const skin_mesh *mesh, int v, const mat4 *palette, float blended[4][3])
{
    memset(blended, 0, 4 * sizeof blended[0]);
    for (int k = 0; k < SKIN_MAX_INFLUENCES; ++k) {
        float weight = mesh->weights[v][k];
        if (weight == 0.0f)
            continue;
        const vec4 *m = palette[mesh->joints[v][k]];
        for (int column = 0; column < 4; ++column)
            for (int row = 0; row < 3; ++row)
                blended[column][row] += weight * m[column][row];
    }
}

static void skin_position(float blended[4][3], const float p[3], float out[3])
{
    for (int row = 0; row < 3; ++row)
        out[row] = blended[0][row] * p[0] + blended[1][row] * p[1] + blended[2][row] * p[2] + blended[3][row];
}

bool pose_skin_cpu(const skin_mesh *mesh, const mat4 *palette, int joint_count, float (*positions)[3],
                   float (*normals)[3])
{
    if (!mesh || !palette || !positions || !normals || joint_count <= 0 || mesh->vertex_count < 0)
        return false;
    int vertex_count = mesh->vertex_count;
    if (vertex_count > 0 && (!mesh->positions || !mesh->normals || !mesh->joints || !mesh->weights))
        return false;
    if (!pose_skin_joints_fit(mesh, joint_count))
        return false;

    for (int v = 0; v < vertex_count; ++v) {
        float blended[4][3];
        skin_blend(mesh, v, palette, blended);
        skin_position(blended, mesh->positions[v], positions[v]);
        const float *n = mesh->normals[v];
        float normal[3];
        for (int row = 0; row < 3; ++row)
            normal[row] = blended[0][row] * n[0] + blended[1][row] * n[1] + blended[2][row] * n[2];
        float length2 = normal[0] * normal[0] + normal[1] * normal[1] + normal[2] * normal[2];
        if (length2 > 1e-20f) {
            float inverse = 1.0f / sqrtf(length2);
            for (int row = 0; row < 3; ++row)
                normals[v][row] = normal[row] * inverse;
        } else {
            /* Opposing influences can cancel a normal out; the bind normal is the least surprising. */
            for (int row = 0; row < 3; ++row)
                normals[v][row] = n[row];
        }
    }
    return true;
}

/* See pose_internal.h. */
bool pose_skin_tangents_fit(const skin_mesh *mesh, bool palette_given, int joint_count, const void *tangents)
{
    return mesh && palette_given && tangents && joint_count > 0 && mesh->vertex_count >= 0 &&
           (mesh->vertex_count == 0 || (mesh->tangents && mesh->joints && mesh->weights)) &&
           pose_skin_joints_fit(mesh, joint_count);
}

bool pose_skin_cpu_tangents(const skin_mesh *mesh, const mat4 *palette, int joint_count, const float (*normals)[3],
                            float (*tangents)[4])
{
    if (!normals || !pose_skin_tangents_fit(mesh, palette != NULL, joint_count, tangents))
        return false;
    for (int v = 0; v < mesh->vertex_count; ++v) {
        float blended[4][3];
        skin_blend(mesh, v, palette, blended);
        const float *t = mesh->tangents[v], *n = normals[v];
        float turned[3];
        for (int row = 0; row < 3; ++row)
            turned[row] = blended[0][row] * t[0] + blended[1][row] * t[1] + blended[2][row] * t[2];
        /* At right angles to the skinned normal (Gram-Schmidt), then unit; a tangent that vanishes there (it
         * turned onto the normal, or the influences cancelled) falls back to the bind tangent's. */
        float along = turned[0] * n[0] + turned[1] * n[1] + turned[2] * n[2];
        for (int row = 0; row < 3; ++row)
            turned[row] -= along * n[row];
        float length2 = turned[0] * turned[0] + turned[1] * turned[1] + turned[2] * turned[2];
        if (!(length2 > 1e-20f)) {
            along = t[0] * n[0] + t[1] * n[1] + t[2] * n[2];
            for (int row = 0; row < 3; ++row)
                turned[row] = t[row] - along * n[row];
            length2 = turned[0] * turned[0] + turned[1] * turned[1] + turned[2] * turned[2];
        }
        float inverse = length2 > 1e-20f ? 1.0f / sqrtf(length2) : 0.0f;
        for (int row = 0; row < 3; ++row)
            tangents[v][row] = inverse > 0.0f ? turned[row] * inverse : t[row];
        tangents[v][3] = t[3];
    }
    return true;
}

/* ---- Skinned bounds ---- */

bool pose_skinned_box(const skin_mesh *meshes, int mesh_count, int joint_count, pose_skin_vertex_position *skin,
                      const void *palette, float out[2][3])
{
    if (!meshes || !palette || !out || mesh_count < 0 || joint_count <= 0)
        return false;
    for (int i = 0; i < mesh_count; ++i)
        if (meshes[i].vertex_count < 0 || (meshes[i].vertex_count > 0 &&
                                           (!meshes[i].positions || !meshes[i].joints || !meshes[i].weights)) ||
            !pose_skin_joints_fit(&meshes[i], joint_count))
            return false;
    float box[2][3] = {{FLT_MAX, FLT_MAX, FLT_MAX}, {-FLT_MAX, -FLT_MAX, -FLT_MAX}};
    bool any = false;
    for (int i = 0; i < mesh_count; ++i) {
        const skin_mesh *mesh = &meshes[i];
        for (int v = 0; v < mesh->vertex_count; ++v) {
            float position[3];
            skin(mesh, v, palette, position);
            for (int axis = 0; axis < 3; ++axis) {
                box[0][axis] = fminf(box[0][axis], position[axis]);
                box[1][axis] = fmaxf(box[1][axis], position[axis]);
            }
            any = true;
        }
    }
    if (!any)
        return false;
    memcpy(out, box, sizeof box);
    return true;
}

/* The very arithmetic of pose_skin_cpu, so the box holds its positions exactly. */
static void skin_linear_position(const skin_mesh *mesh, int v, const void *palette, float out[3])
{
    float blended[4][3];
    skin_blend(mesh, v, (const mat4 *)palette, blended);
    skin_position(blended, mesh->positions[v], out);
}

bool pose_skinned_bounds(const skin_mesh *meshes, int mesh_count, const mat4 *palette, int joint_count,
                         float out[2][3])
{
    return pose_skinned_box(meshes, mesh_count, joint_count, skin_linear_position, palette, out);
}
