/* test_tangents: the tangent frames the build step makes for normal maps (skin_mesh.tangents) and their
 * skinning on the CPU. On small meshes whose answer is known: a quad mapped straight (the tangent along the
 * direction u grows, the handedness from the winding), one mapped mirrored, one without UV area, a vertex on
 * a mirror seam; then on every vertex of every level of detail of the shipped bodies (and of boneman and
 * assimp's cube with `--boneman`, `--assimp`): unit, at right angles to the normal within 1e-4, w +1 or -1;
 * and skinned by linear blend and by dual quaternions, still a frame with the skinned normal. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "build/build_lod.h"
#include "build/loader.h"
#include "check.h"
#include "pose/pose.h"
#include "pose/pose_dq.h"
#include "test_data.h"

#define ASSETS MARIONETTE_SOURCE_DIR "/assets/models/"

/* A one-joint mesh of `count` vertices at `positions` with `uvs`, and `triangles` as written in the file. */
static model *mesh_of(int count, const float (*positions)[3], const float (*uvs)[2], int triangle_count,
                      const int (*triangles)[3])
{
    char text[8192];
    int used = snprintf(text, sizeof text,
                        "MD5Version 10\ncommandline \"\"\nnumJoints 1\nnumMeshes 1\n"
                        "joints {\n\t\"root\"\t-1 ( 0 0 0 ) ( 0 0 0 )\n}\nmesh {\n\tshader \"\"\n\tnumverts %d\n",
                        count);
    for (int v = 0; v < count; ++v)
        used += snprintf(text + used, sizeof text - (size_t)used, "\tvert %d ( %g %g ) %d 1\n", v, (double)uvs[v][0],
                         (double)uvs[v][1], v);
    used += snprintf(text + used, sizeof text - (size_t)used, "\tnumtris %d\n", triangle_count);
    for (int t = 0; t < triangle_count; ++t)
        used += snprintf(text + used, sizeof text - (size_t)used, "\ttri %d %d %d %d\n", t, triangles[t][0],
                         triangles[t][1], triangles[t][2]);
    used += snprintf(text + used, sizeof text - (size_t)used, "\tnumweights %d\n", count);
    for (int v = 0; v < count; ++v)
        used += snprintf(text + used, sizeof text - (size_t)used, "\tweight %d 0 1 ( %g %g %g )\n", v,
                         (double)positions[v][0], (double)positions[v][1], (double)positions[v][2]);
    snprintf(text + used, sizeof text - (size_t)used, "}\n");
    model *m = NULL;
    diag err;
    CHECK(loader_parse_md5_model(text, strlen(text), "quad.md5mesh", &m, &err, NULL));
    return m;
}

static float dot3(const float *a, const float *b)
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* Unit, at right angles to the normal, w +1 or -1: how far the worst vertex of the mesh is from that. */
static double frame_error(const float (*normals)[3], const float (*tangents)[4], int count)
{
    double worst = 0.0;
    for (int v = 0; v < count; ++v) {
        worst = fmax(worst, fabs(sqrt(dot3(tangents[v], tangents[v])) - 1.0));
        worst = fmax(worst, fabs(dot3(tangents[v], normals[v])));
        if (tangents[v][3] != 1.0f && tangents[v][3] != -1.0f)
            worst = 1.0;
    }
    return worst;
}

static const float quad_positions[4][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}};

/* u along +x, v along +y: the tangent is +x whichever way the quad faces; the handedness follows the facing. */
static void test_a_straight_quad(void)
{
    static const float uvs[4][2] = {{0, 0}, {1, 0}, {1, 1}, {0, 1}};
    /* md5 winds clockwise seen from the front: (0 1 2) faces -z, (0 2 1) faces +z. */
    static const int facing_down[2][3] = {{0, 1, 2}, {0, 2, 3}}, facing_up[2][3] = {{0, 2, 1}, {0, 3, 2}};
    for (int up = 0; up < 2; ++up) {
        model *m = mesh_of(4, quad_positions, uvs, 2, up ? facing_up : facing_down);
        if (!m)
            continue;
        const skin_mesh *mesh = &m->meshes[0];
        CHECK(mesh->tangents != NULL);
        for (int v = 0; v < 4 && mesh->tangents; ++v) {
            CHECK_NEAR(mesh->normals[v][2], up ? 1.0 : -1.0, 1e-6);
            CHECK_NEAR(mesh->tangents[v][0], 1.0, 1e-6);
            CHECK_NEAR(mesh->tangents[v][1], 0.0, 1e-6);
            CHECK_NEAR(mesh->tangents[v][2], 0.0, 1e-6);
            /* The bitangent w * cross(n, t) is the direction v grows, +y. */
            const float *n = mesh->normals[v], *t = mesh->tangents[v];
            float bitangent_y = t[3] * (n[2] * t[0] - n[0] * t[2]);
            CHECK_NEAR(bitangent_y, 1.0, 1e-6);
            CHECK(t[3] == (up ? 1.0f : -1.0f));
        }
        model_free(m);
    }
}

/* The same quad with u mirrored (growing towards -x): the tangent turns round and the handedness flips, so
 * the bitangent still points where v grows. */
static void test_a_mirrored_quad(void)
{
    static const float uvs[4][2] = {{1, 0}, {0, 0}, {0, 1}, {1, 1}};
    static const int facing_up[2][3] = {{0, 2, 1}, {0, 3, 2}};
    model *m = mesh_of(4, quad_positions, uvs, 2, facing_up);
    if (!m)
        return;
    const skin_mesh *mesh = &m->meshes[0];
    for (int v = 0; v < 4; ++v) {
        CHECK_NEAR(mesh->tangents[v][0], -1.0, 1e-6);
        CHECK(mesh->tangents[v][3] == -1.0f);
        const float *n = mesh->normals[v], *t = mesh->tangents[v];
        CHECK_NEAR(t[3] * (n[2] * t[0] - n[0] * t[2]), 1.0, 1e-6);
    }
    model_free(m);
}

/* No UV area (every vertex at one texel, or a line): some tangent at right angles to the normal, w +1, never
 * NaN. */
static void test_no_uv_area(void)
{
    static const float point[4][2] = {{0.5f, 0.5f}, {0.5f, 0.5f}, {0.5f, 0.5f}, {0.5f, 0.5f}};
    static const float line[4][2] = {{0, 0}, {1, 0}, {2, 0}, {3, 0}};
    static const int facing_up[2][3] = {{0, 2, 1}, {0, 3, 2}};
    for (int k = 0; k < 2; ++k) {
        model *m = mesh_of(4, quad_positions, k ? line : point, 2, facing_up);
        if (!m)
            continue;
        const skin_mesh *mesh = &m->meshes[0];
        CHECK(frame_error((const float(*)[3])mesh->normals, (const float(*)[4])mesh->tangents, 4) < 1e-6);
        for (int v = 0; v < 4; ++v)
            CHECK(mesh->tangents[v][3] == 1.0f);
        model_free(m);
    }
}

/* A strip of two quads sharing their middle edge, the texture mirrored there (u runs 0 -> 1 on the left,
 * back to 0.75 on the right), so the left quad has four times the right one's UV area: the shared vertices
 * take the left side's direction and handedness, which outweighs the right's even where two right triangles
 * meet one left one. */
static void test_a_mirror_seam(void)
{
    static const float positions[6][3] = {{0, 0, 0}, {2, 0, 0}, {3, 0, 0}, {0, 1, 0}, {2, 1, 0}, {3, 1, 0}};
    static const float uvs[6][2] = {{0, 0}, {1, 0}, {0.75f, 0}, {0, 1}, {1, 1}, {0.75f, 1}};
    static const int triangles[4][3] = {{0, 4, 1}, {0, 3, 4}, {1, 5, 2}, {1, 4, 5}};
    model *m = mesh_of(6, positions, uvs, 4, triangles);
    if (!m)
        return;
    const skin_mesh *mesh = &m->meshes[0];
    /* Left quad: u grows along +x, w +1 (facing +z); right quad: u grows along -x, w -1. */
    CHECK_NEAR(mesh->tangents[0][0], 1.0, 1e-6);
    CHECK_NEAR(mesh->tangents[2][0], -1.0, 1e-6);
    CHECK(mesh->tangents[0][3] == 1.0f && mesh->tangents[2][3] == -1.0f);
    for (int v = 1; v <= 4; v += 3) { /* the seam: vertices 1 and 4 */
        CHECK_NEAR(mesh->tangents[v][0], 1.0, 1e-6);
        CHECK(mesh->tangents[v][3] == 1.0f);
    }
    model_free(m);
}

/* Every vertex of every level of detail of a model: the levels are index lists over the same vertices, so
 * each level's triangles are checked corner by corner. Returns the worst error. */
static double model_frame_error(const model *m)
{
    model_lods *lods = NULL;
    diag err;
    CHECK(build_lods(m, NULL, &lods, &err));
    double worst = 0.0;
    int corners = 0;
    for (int i = 0; i < m->mesh_count; ++i) {
        const skin_mesh *mesh = &m->meshes[i];
        CHECK(mesh->vertex_count == 0 || mesh->tangents != NULL);
        worst = fmax(worst, frame_error((const float(*)[3])mesh->normals, (const float(*)[4])mesh->tangents,
                                        mesh->vertex_count));
        for (int level = 0; lods && level < lods->level_count; ++level) {
            const mesh_lod *lod = &lods->meshes[i];
            for (int t = 0; t < lod->triangle_count[level]; ++t)
                for (int corner = 0; corner < 3; ++corner) {
                    uint32_t v = lod->triangles[level][t][corner];
                    CHECK(v < (uint32_t)mesh->vertex_count);
                    if (v < (uint32_t)mesh->vertex_count)
                        worst = fmax(worst, frame_error((const float(*)[3])&mesh->normals[v],
                                                        (const float(*)[4])&mesh->tangents[v], 1));
                    ++corners;
                }
        }
    }
    CHECK(corners > 0);
    model_lods_free(lods);
    return worst;
}

/* The frames skinned: a pose of the model's first clip-less kind (every joint turned a little, so the blend
 * of four rotations is not one), by linear blend and by dual quaternions: still unit and at right angles to
 * the skinned normals, the handedness kept. */
static double skinned_frame_error(const model *m, bool dual_quaternions)
{
    const skeleton *s = &m->skeleton;
    int joints = s->joint_count;
    joint_pose *local = calloc((size_t)joints, sizeof *local), *object = calloc((size_t)joints, sizeof *object);
    mat4 *palette = calloc((size_t)joints, sizeof *palette);
    pose_dual_quaternion *dq = calloc((size_t)joints, sizeof *dq);
    double worst = 0.0;
    /* Each joint's bind pose in its parent's space, turned by up to half a radian about a joint-dependent axis. */
    for (int j = 0; j < joints; ++j) {
        joint_pose bind = s->bind_object[j];
        if (s->parents[j] >= 0) {
            versor inverse_parent;
            glm_quat_inv((float *)s->bind_object[s->parents[j]].rotation, inverse_parent);
            glm_quat_mul(inverse_parent, bind.rotation, local[j].rotation);
            vec3 offset;
            glm_vec3_sub(bind.position, (float *)s->bind_object[s->parents[j]].position, offset);
            glm_quat_rotatev(inverse_parent, offset, local[j].position);
        } else {
            local[j] = bind;
        }
        versor turn;
        vec3 axis = {sinf((float)j), cosf(1.7f * (float)j), 0.5f};
        glm_vec3_normalize(axis);
        glm_quatv(turn, 0.5f * sinf(0.9f * (float)j + 0.3f), axis);
        glm_quat_mul(local[j].rotation, turn, local[j].rotation);
        glm_quat_normalize(local[j].rotation);
    }
    CHECK(pose_to_object(s->parents, joints, local, object));
    CHECK(pose_palette(object, (const mat4 *)s->inverse_bind, joints, palette));
    CHECK(pose_dual_quaternion_palette(object, s->bind_object, joints, dq));
    for (int i = 0; i < m->mesh_count; ++i) {
        const skin_mesh *mesh = &m->meshes[i];
        int count = mesh->vertex_count;
        float(*positions)[3] = calloc((size_t)(count ? count : 1), sizeof *positions);
        float(*normals)[3] = calloc((size_t)(count ? count : 1), sizeof *normals);
        float(*tangents)[4] = calloc((size_t)(count ? count : 1), sizeof *tangents);
        bool ok = dual_quaternions
                      ? pose_skin_cpu_dual_quaternion(mesh, dq, joints, positions, normals) &&
                            pose_skin_cpu_dual_quaternion_tangents(mesh, dq, joints, tangents)
                      : pose_skin_cpu(mesh, (const mat4 *)palette, joints, positions, normals) &&
                            pose_skin_cpu_tangents(mesh, (const mat4 *)palette, joints, (const float(*)[3])normals,
                                                   tangents);
        CHECK(ok);
        worst = fmax(worst, frame_error((const float(*)[3])normals, (const float(*)[4])tangents, count));
        for (int v = 0; v < count; ++v)
            CHECK(tangents[v][3] == mesh->tangents[v][3]);
        free(positions);
        free(normals);
        free(tangents);
    }
    free(local);
    free(object);
    free(palette);
    free(dq);
    return worst;
}

static void check_model_file(const char *path)
{
    model *m = NULL;
    diag err;
    CHECK(loader_load_model(path, &m, &err, NULL));
    if (!m)
        return;
    double bind = model_frame_error(m);
    double linear = skinned_frame_error(m, false), dual = skinned_frame_error(m, true);
    printf("  %s: frames off unit or right angles by at most %.2g (bind, every level), %.2g skinned linear, %.2g "
           "dual quaternions\n", strrchr(path, '/') + 1, bind, linear, dual);
    CHECK(bind < 1e-4 && linear < 1e-4 && dual < 1e-4);
    model_free(m);
}

static void test_shipped_bodies(void)
{
    check_model_file(ASSETS "mannequin.md5mesh");
    check_model_file(ASSETS "robot.md5mesh");
}

static void test_boneman(void)
{
    check_model_file(BONEMAN "boneman.md5mesh");
}

static void test_assimp_cube(void)
{
    check_model_file(ASSIMP_CUBE);
}

/* Misuse: a mesh without tangents, or no output, is refused. */
static void test_refusals(void)
{
    model *m = NULL;
    diag err;
    CHECK(loader_load_model(ASSETS "mannequin.md5mesh", &m, &err, NULL));
    if (!m)
        return;
    skin_mesh bare = m->meshes[0];
    bare.tangents = NULL;
    mat4 *palette = calloc((size_t)m->skeleton.joint_count, sizeof *palette);
    pose_dual_quaternion *dq = calloc((size_t)m->skeleton.joint_count, sizeof *dq);
    float(*normals)[3] = calloc((size_t)bare.vertex_count, sizeof *normals);
    float(*tangents)[4] = calloc((size_t)bare.vertex_count, sizeof *tangents);
    CHECK(!pose_skin_cpu_tangents(&bare, (const mat4 *)palette, m->skeleton.joint_count,
                                  (const float(*)[3])normals, tangents));
    CHECK(!pose_skin_cpu_dual_quaternion_tangents(&bare, dq, m->skeleton.joint_count, tangents));
    CHECK(!pose_skin_cpu_tangents(&m->meshes[0], (const mat4 *)palette, m->skeleton.joint_count, NULL, tangents));
    CHECK(!pose_skin_cpu_dual_quaternion_tangents(&m->meshes[0], dq, m->skeleton.joint_count, NULL));
    free(palette);
    free(dq);
    free(normals);
    free(tangents);
    model_free(m);
}

int main(int argc, char **argv)
{
    test_part part;
    int skip = test_data_start(argc, argv, &part);
    if (skip)
        return skip;
    if (part == TEST_PART_OWN) {
        RUN(test_a_straight_quad);
        RUN(test_a_mirrored_quad);
        RUN(test_no_uv_area);
        RUN(test_a_mirror_seam);
        RUN(test_shipped_bodies);
        RUN(test_refusals);
    }
    if (part == TEST_PART_BONEMAN)
        RUN(test_boneman);
    if (part == TEST_PART_ASSIMP)
        RUN(test_assimp_cube);
    return check_report();
}
