/* pose_dq: dual-quaternion skinning, see pose_dq.h. The per-vertex arithmetic here is the vertex shader's
 * (gfx_shaders.c, skin_dual_quaternion) in the same order, so the two agree to rounding. The palette stage,
 * pose_dual_quaternion_palette, is in pose_palette.c beside pose_palette, whose SSE2 helpers it shares. */
#include "pose_dq.h"

#include <math.h>
#include <string.h>

#include "pose_internal.h"

static const char *const POSE_SKINNING_NAMES[POSE_SKINNING_COUNT] = {"linear", "dual_quaternion"};

const char *pose_skinning_name(pose_skinning skinning)
{
    return skinning >= 0 && skinning < POSE_SKINNING_COUNT ? POSE_SKINNING_NAMES[skinning] : "?";
}

bool pose_skinning_parse(const char *word, pose_skinning *out)
{
    for (int i = 0; word && i < POSE_SKINNING_COUNT; ++i) {
        if (strcmp(word, POSE_SKINNING_NAMES[i]) == 0) {
            *out = (pose_skinning)i;
            return true;
        }
    }
    return false;
}

/* dual = (t, 0) * real / 2, written out: the vector part t * r.w + t x r.xyz, the scalar -t . r.xyz. */
static void set_translation(const float t[3], pose_dual_quaternion *out)
{
    const float *r = out->real;
    out->dual[0] = 0.5f * (t[0] * r[3] + t[1] * r[2] - t[2] * r[1]);
    out->dual[1] = 0.5f * (t[1] * r[3] + t[2] * r[0] - t[0] * r[2]);
    out->dual[2] = 0.5f * (t[2] * r[3] + t[0] * r[1] - t[1] * r[0]);
    out->dual[3] = -0.5f * (t[0] * r[0] + t[1] * r[1] + t[2] * r[2]);
}

void pose_dual_quaternion_from_matrix(const mat4 rigid, pose_dual_quaternion *out)
{
    glm_mat4_quat((vec4 *)rigid, out->real);
    set_translation(rigid[3], out);
}

/* v turned by the unit quaternion q: v + 2 q.xyz x (q.xyz x v + q.w v). */
static void rotate(const float q[4], const float v[3], float out[3])
{
    float inner[3] = {q[1] * v[2] - q[2] * v[1] + q[3] * v[0], q[2] * v[0] - q[0] * v[2] + q[3] * v[1],
                      q[0] * v[1] - q[1] * v[0] + q[3] * v[2]};
    out[0] = v[0] + 2.0f * (q[1] * inner[2] - q[2] * inner[1]);
    out[1] = v[1] + 2.0f * (q[2] * inner[0] - q[0] * inner[2]);
    out[2] = v[2] + 2.0f * (q[0] * inner[1] - q[1] * inner[0]);
}

/* Vertex v's blended, normalised dual quaternion; false when its influences cancel out (broken weights),
 * for the caller to keep the bind vertex. */
static bool blend_vertex(const skin_mesh *mesh, int v, const pose_dual_quaternion *palette, float real[4],
                         float dual[4])
{
    const float *pivot = NULL;
    memset(real, 0, 4 * sizeof real[0]);
    memset(dual, 0, 4 * sizeof dual[0]);
    for (int k = 0; k < SKIN_MAX_INFLUENCES; ++k) {
        float weight = mesh->weights[v][k];
        if (weight == 0.0f)
            continue;
        const pose_dual_quaternion *q = &palette[mesh->joints[v][k]];
        if (!pivot)
            pivot = q->real;
        float dot = q->real[0] * pivot[0] + q->real[1] * pivot[1] + q->real[2] * pivot[2] + q->real[3] * pivot[3];
        if (dot < 0.0f)
            weight = -weight;
        for (int c = 0; c < 4; ++c) {
            real[c] += weight * q->real[c];
            dual[c] += weight * q->dual[c];
        }
    }
    float length2 = real[0] * real[0] + real[1] * real[1] + real[2] * real[2] + real[3] * real[3];
    if (!(length2 > 1e-12f))
        return false;
    float inverse = 1.0f / sqrtf(length2);
    for (int c = 0; c < 4; ++c) {
        real[c] *= inverse;
        dual[c] *= inverse;
    }
    return true;
}

/* The translation of a unit dual quaternion: 2 dual * conjugate(real), its vector part. */
static void move_point(const float real[4], const float dual[4], const float p[3], float out[3])
{
    float turned[3];
    rotate(real, p, turned);
    out[0] = turned[0] + 2.0f * (real[3] * dual[0] - dual[3] * real[0] + (real[1] * dual[2] - real[2] * dual[1]));
    out[1] = turned[1] + 2.0f * (real[3] * dual[1] - dual[3] * real[1] + (real[2] * dual[0] - real[0] * dual[2]));
    out[2] = turned[2] + 2.0f * (real[3] * dual[2] - dual[3] * real[2] + (real[0] * dual[1] - real[1] * dual[0]));
}

static void skin_dual_quaternion_position(const skin_mesh *mesh, int v, const void *palette, float out[3])
{
    float real[4], dual[4];
    if (blend_vertex(mesh, v, palette, real, dual))
        move_point(real, dual, mesh->positions[v], out);
    else
        memcpy(out, mesh->positions[v], sizeof(float[3]));
}

bool pose_skin_cpu_dual_quaternion(const skin_mesh *mesh, const pose_dual_quaternion *palette, int joint_count,
                                   float (*positions)[3], float (*normals)[3])
{
    if (!mesh || !palette || !positions || !normals || joint_count <= 0 || mesh->vertex_count < 0)
        return false;
    if (mesh->vertex_count > 0 && (!mesh->positions || !mesh->normals || !mesh->joints || !mesh->weights))
        return false;
    if (!pose_skin_joints_fit(mesh, joint_count))
        return false;
    for (int v = 0; v < mesh->vertex_count; ++v) {
        float real[4], dual[4];
        if (blend_vertex(mesh, v, palette, real, dual)) {
            move_point(real, dual, mesh->positions[v], positions[v]);
            rotate(real, mesh->normals[v], normals[v]);
        } else {
            /* As linear blend does when influences cancel: the bind vertex is the least surprising. */
            memcpy(positions[v], mesh->positions[v], sizeof positions[v]);
            memcpy(normals[v], mesh->normals[v], sizeof normals[v]);
        }
    }
    return true;
}

bool pose_skin_cpu_dual_quaternion_tangents(const skin_mesh *mesh, const pose_dual_quaternion *palette,
                                            int joint_count, float (*tangents)[4])
{
    if (!pose_skin_tangents_fit(mesh, palette != NULL, joint_count, tangents))
        return false;
    for (int v = 0; v < mesh->vertex_count; ++v) {
        float real[4], dual[4];
        if (blend_vertex(mesh, v, palette, real, dual))
            rotate(real, mesh->tangents[v], tangents[v]);
        else
            memcpy(tangents[v], mesh->tangents[v], sizeof(float[3]));
        tangents[v][3] = mesh->tangents[v][3];
    }
    return true;
}

bool pose_skinned_bounds_dual_quaternion(const skin_mesh *meshes, int mesh_count, const pose_dual_quaternion *palette,
                                         int joint_count, float out[2][3])
{
    return pose_skinned_box(meshes, mesh_count, joint_count, skin_dual_quaternion_position, palette, out);
}
