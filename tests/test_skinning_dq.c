/* test_skinning_dq: dual-quaternion skinning on the CPU (engine/pose/pose_dq), the reference the vertex
 * shader is held to (test_gfx checks the GPU against it). A rigid matrix and its dual quaternion move
 * points alike; with every vertex weighted to one joint dual quaternions skin exactly as linear blend
 * does; a joint's dual quaternion negated changes nothing (antipodality); the box matches the skinned
 * positions; misuse is refused; and the twisting limb (tests/test_limb.h): turned 90 and 150 degrees about
 * its own axis, linear blend loses most of the cross-section at the joint and dual quaternions keep it. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "test_limb.h"
#include "build/loader.h"
#include "model/clip.h"
#include "pose/pose.h"
#include "pose/pose_dq.h"

enum { MAX_JOINTS = 64 };

static model *load_model(const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/assets/models/%s.md5mesh", MARIONETTE_SOURCE_DIR, name);
    model *m = NULL;
    diag err;
    if (!loader_load_md5_model(path, &m, &err, NULL))
        fprintf(stderr, "%s:%d: %s\n", err.file, err.line, err.message);
    return m;
}

static clip *load_clip(const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/assets/clips/%s.md5anim", MARIONETTE_SOURCE_DIR, name);
    clip *c = NULL;
    diag err;
    if (!loader_load_md5_clip(path, &c, &err, NULL))
        fprintf(stderr, "%s:%d: %s\n", err.file, err.line, err.message);
    return c;
}

/* A rigid matrix from an axis, an angle and a translation. */
static void rigid(vec3 axis, float degrees, vec3 translation, mat4 out)
{
    glm_rotate_make(out, glm_rad(degrees), axis);
    glm_vec3_copy(translation, out[3]);
}

static void test_names_parse_back(void)
{
    pose_skinning skinning = POSE_SKINNING_LINEAR;
    CHECK(pose_skinning_parse("dual_quaternion", &skinning) && skinning == POSE_SKINNING_DUAL_QUATERNION);
    CHECK(pose_skinning_parse("linear", &skinning) && skinning == POSE_SKINNING_LINEAR);
    CHECK(!pose_skinning_parse("Linear", &skinning) && !pose_skinning_parse("dq", &skinning));
    CHECK(!pose_skinning_parse("", &skinning) && !pose_skinning_parse(NULL, &skinning));
    CHECK(strcmp(pose_skinning_name(POSE_SKINNING_DUAL_QUATERNION), "dual_quaternion") == 0);
    CHECK(strcmp(pose_skinning_name(POSE_SKINNING_COUNT), "?") == 0);
}

/* One vertex at p weighted wholly to joint 0 of a one-joint palette. */
static void skin_one_point(const pose_dual_quaternion *q, const float p[3], const float n[3], float out[3],
                           float out_normal[3])
{
    float positions[1][3] = {{p[0], p[1], p[2]}}, normals[1][3] = {{n[0], n[1], n[2]}};
    uint16_t joints[1][SKIN_MAX_INFLUENCES] = {{0}};
    float weights[1][SKIN_MAX_INFLUENCES] = {{1.0f}};
    skin_mesh mesh = {.vertex_count = 1, .positions = positions, .normals = normals, .joints = joints,
                      .weights = weights};
    float skinned[1][3], skinned_normal[1][3];
    CHECK(pose_skin_cpu_dual_quaternion(&mesh, q, 1, skinned, skinned_normal));
    memcpy(out, skinned[0], sizeof skinned[0]);
    memcpy(out_normal, skinned_normal[0], sizeof skinned_normal[0]);
}

static void test_dual_quaternion_moves_points_as_its_matrix(void)
{
    struct {
        vec3 axis;
        float degrees;
        vec3 translation;
    } cases[] = {{{0, 0, 1}, 0.0f, {0, 0, 0}},      {{0, 0, 1}, 90.0f, {1, 2, 3}},
                 {{1, 1, 0}, 179.0f, {-4, 0.5f, 2}}, {{0.3f, -1, 0.2f}, 250.0f, {0, -7, 0.25f}},
                 {{1, 0, 0}, 180.0f, {0.1f, 0, 0}}};
    const float p[3] = {0.3f, -1.2f, 0.7f}, n[3] = {0.0f, 0.6f, 0.8f};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        mat4 m;
        glm_vec3_normalize(cases[i].axis);
        rigid(cases[i].axis, cases[i].degrees, cases[i].translation, m);
        pose_dual_quaternion q;
        pose_dual_quaternion_from_matrix((const vec4 *)m, &q);
        CHECK_NEAR(glm_vec4_norm(q.real), 1.0, 1e-6);
        /* A unit dual quaternion's parts are orthogonal. */
        CHECK_NEAR(glm_vec4_dot(q.real, q.dual), 0.0, 1e-5);
        float moved[3], turned[3];
        skin_one_point(&q, p, n, moved, turned);
        vec3 expected, expected_normal;
        glm_mat4_mulv3(m, (float *)p, 1.0f, expected);
        glm_mat4_mulv3(m, (float *)n, 0.0f, expected_normal);
        for (int k = 0; k < 3; ++k) {
            CHECK_NEAR(moved[k], expected[k], 1e-5);
            CHECK_NEAR(turned[k], expected_normal[k], 1e-5);
        }
    }
}

/* A copy of a mesh with every vertex weighted wholly to its largest influence's joint. */
static skin_mesh single_joint_copy(const skin_mesh *s)
{
    skin_mesh copy = *s;
    copy.joints = malloc((size_t)s->vertex_count * sizeof *copy.joints);
    copy.weights = calloc((size_t)s->vertex_count, sizeof *copy.weights);
    for (int v = 0; v < s->vertex_count; ++v) {
        memset(copy.joints[v], 0, sizeof copy.joints[v]);
        copy.joints[v][0] = s->joints[v][0];
        copy.weights[v][0] = 1.0f;
    }
    return copy;
}

/* Both bodies in poses of two clips, every vertex wholly on one joint: dual quaternions and linear blend
 * put it in the same place, within 1e-5 m (float rounding of two ways of one rigid motion). Then the real
 * weights: the two differ, but stay close (the bodies bend, they do not twist far), and the dual
 * quaternions' box is the box of their positions. */
static void test_one_joint_per_vertex_equals_linear(void)
{
    const char *bodies[] = {"mannequin", "robot"}, *clips[] = {"walk", "celebrate"};
    for (int b = 0; b < 2; ++b) {
        model *m = load_model(bodies[b]);
        clip *c = load_clip(clips[b]);
        CHECK(m && c);
        if (!m || !c)
            continue;
        int joints = m->skeleton.joint_count;
        CHECK(joints <= MAX_JOINTS);
        joint_pose object[MAX_JOINTS];
        mat4 palette[MAX_JOINTS];
        pose_dual_quaternion dual_quaternions[MAX_JOINTS];
        CHECK(pose_sample(c, 0.7f, true, object));
        CHECK(pose_to_object(m->skeleton.parents, joints, object, object));
        CHECK(pose_palette(object, (const mat4 *)m->skeleton.inverse_bind, joints, palette));
        CHECK(pose_dual_quaternion_palette(object, m->skeleton.bind_object, joints, dual_quaternions));
        double largest_single = 0.0, largest_normal = 0.0, largest_blended = 0.0, largest_moved = 0.0;
        for (int p = 0; p < m->mesh_count; ++p) {
            const skin_mesh *s = &m->meshes[p];
            size_t bytes = (size_t)s->vertex_count * sizeof(float[3]);
            float(*linear)[3] = malloc(bytes), (*linear_normals)[3] = malloc(bytes);
            float(*dual)[3] = malloc(bytes), (*dual_normals)[3] = malloc(bytes);
            skin_mesh single = single_joint_copy(s);
            CHECK(pose_skin_cpu(&single, (const mat4 *)palette, joints, linear, linear_normals));
            CHECK(pose_skin_cpu_dual_quaternion(&single, dual_quaternions, joints, dual, dual_normals));
            for (int v = 0; v < s->vertex_count; ++v)
                for (int k = 0; k < 3; ++k) {
                    largest_single = fmax(largest_single, fabs((double)linear[v][k] - dual[v][k]));
                    largest_normal = fmax(largest_normal, fabs((double)linear_normals[v][k] - dual_normals[v][k]));
                    largest_moved = fmax(largest_moved, fabs((double)dual[v][k] - s->positions[v][k]));
                }
            CHECK(pose_skin_cpu(s, (const mat4 *)palette, joints, linear, linear_normals));
            CHECK(pose_skin_cpu_dual_quaternion(s, dual_quaternions, joints, dual, dual_normals));
            float box[2][3] = {{INFINITY, INFINITY, INFINITY}, {-INFINITY, -INFINITY, -INFINITY}}, bounds[2][3];
            for (int v = 0; v < s->vertex_count; ++v)
                for (int k = 0; k < 3; ++k) {
                    largest_blended = fmax(largest_blended, fabs((double)linear[v][k] - dual[v][k]));
                    box[0][k] = fminf(box[0][k], dual[v][k]);
                    box[1][k] = fmaxf(box[1][k], dual[v][k]);
                }
            CHECK(pose_skinned_bounds_dual_quaternion(s, 1, dual_quaternions, joints, bounds));
            CHECK(memcmp(box, bounds, sizeof box) == 0);
            free(single.joints);
            free(single.weights);
            free(linear);
            free(linear_normals);
            free(dual);
            free(dual_normals);
        }
        printf("  %s, %s at 0.7 s: one joint per vertex, dual quaternion vs linear differ by %.3g m (normals %.3g), "
               "the pose moves vertices up to %.3g m; with the real weights they differ by %.3g m\n",
               bodies[b], clips[b], largest_single, largest_normal, largest_moved, largest_blended);
        CHECK(largest_single <= 1e-5);
        CHECK(largest_normal <= 1e-5);
        CHECK(largest_moved > 0.05); /* the pose really moves the mesh */
        CHECK(largest_blended > 0.0 && largest_blended < 0.05);
        model_free(m);
        clip_free(c);
    }
}

/* q and -q are one motion; blending them as they come would cancel them. Negating a joint's dual
 * quaternion must not move a vertex that the joint shares with another. */
static void test_antipodal_joints_are_flipped(void)
{
    limb l;
    limb_make(&l);
    joint_pose object[2];
    limb_twist(&l, 120.0f, object);
    pose_dual_quaternion palette[2];
    CHECK(pose_dual_quaternion_palette(object, l.bind_object, 2, palette));
    static float before[LIMB_VERTICES][3], after[LIMB_VERTICES][3], normals[LIMB_VERTICES][3];
    CHECK(pose_skin_cpu_dual_quaternion(&l.mesh, palette, 2, before, normals));
    for (int j = 0; j < 2; ++j) {
        pose_dual_quaternion flipped[2];
        memcpy(flipped, palette, sizeof flipped);
        glm_vec4_negate(flipped[j].real);
        glm_vec4_negate(flipped[j].dual);
        CHECK(pose_skin_cpu_dual_quaternion(&l.mesh, flipped, 2, after, normals));
        double largest = 0.0;
        for (int v = 0; v < LIMB_VERTICES; ++v)
            for (int k = 0; k < 3; ++k)
                largest = fmax(largest, fabs((double)after[v][k] - before[v][k]));
        CHECK(largest <= 1e-5);
    }
}

static void test_misuse_is_refused(void)
{
    limb l;
    limb_make(&l);
    joint_pose object[2];
    limb_twist(&l, 30.0f, object);
    pose_dual_quaternion palette[2];
    static float positions[LIMB_VERTICES][3], normals[LIMB_VERTICES][3];
    float box[2][3];
    CHECK(!pose_dual_quaternion_palette(NULL, l.bind_object, 2, palette));
    CHECK(!pose_dual_quaternion_palette(object, NULL, 2, palette));
    CHECK(!pose_dual_quaternion_palette(object, l.bind_object, 0, palette));
    CHECK(pose_dual_quaternion_palette(object, l.bind_object, 2, palette));
    CHECK(!pose_skin_cpu_dual_quaternion(NULL, palette, 2, positions, normals));
    CHECK(!pose_skin_cpu_dual_quaternion(&l.mesh, NULL, 2, positions, normals));
    CHECK(!pose_skin_cpu_dual_quaternion(&l.mesh, palette, 2, NULL, normals));
    /* The limb names joint 1: a palette of one joint is refused before anything is written. */
    positions[0][0] = 42.0f;
    CHECK(!pose_skin_cpu_dual_quaternion(&l.mesh, palette, 1, positions, normals));
    CHECK(positions[0][0] == 42.0f);
    CHECK(!pose_skinned_bounds_dual_quaternion(&l.mesh, 1, palette, 1, box));
    CHECK(!pose_skinned_bounds_dual_quaternion(&l.mesh, 1, NULL, 2, box));
    /* A joint named with weight 0 is ignored, whatever it is. */
    skin_mesh mesh = l.mesh;
    uint16_t joints[LIMB_VERTICES][SKIN_MAX_INFLUENCES];
    memcpy(joints, l.joints, sizeof joints);
    for (int v = 0; v < LIMB_VERTICES; ++v)
        for (int k = 0; k < SKIN_MAX_INFLUENCES; ++k)
            if (l.weights[v][k] == 0.0f)
                joints[v][k] = 999;
    mesh.joints = joints;
    CHECK(pose_skin_cpu_dual_quaternion(&mesh, palette, 2, positions, normals));
}

/* The twisting joint: the limb's second joint turned about the limb's own axis. At the joint's ring
 * (weights half and half) linear blend averages two copies of the ring turned apart, a ring of
 * cos(angle / 2) the radius: half the area at 90 degrees, 7% at 150. Dual quaternions turn the ring half
 * way instead, and keep it. The same limb is drawn by test_gfx (docs/skinning_twist_*.png). */
static void test_twisting_limb_keeps_its_volume(void)
{
    static limb l;
    limb_make(&l);
    double rest = limb_ring_area((const float(*)[3])l.positions, LIMB_JOINT_RING);
    CHECK(rest > 0.9 * GLM_PI * LIMB_RADIUS * LIMB_RADIUS);
    const float angles[2] = {90.0f, 150.0f};
    for (int a = 0; a < 2; ++a) {
        joint_pose object[2];
        limb_twist(&l, angles[a], object);
        mat4 palette[2];
        pose_dual_quaternion dual_quaternions[2];
        CHECK(pose_palette(object, (const mat4 *)l.inverse_bind, 2, palette));
        CHECK(pose_dual_quaternion_palette(object, l.bind_object, 2, dual_quaternions));
        static float linear[LIMB_VERTICES][3], dual[LIMB_VERTICES][3], normals[LIMB_VERTICES][3];
        CHECK(pose_skin_cpu(&l.mesh, (const mat4 *)palette, 2, linear, normals));
        CHECK(pose_skin_cpu_dual_quaternion(&l.mesh, dual_quaternions, 2, dual, normals));
        double linear_share = limb_ring_area((const float(*)[3])linear, LIMB_JOINT_RING) / rest;
        double dual_share = limb_ring_area((const float(*)[3])dual, LIMB_JOINT_RING) / rest;
        double half = 0.5 * glm_rad(angles[a]);
        printf("  limb twisted %.0f degrees: the joint's cross-section keeps %.1f%% of its area with linear blend "
               "(cos^2 of half the angle: %.1f%%), %.1f%% with dual quaternions\n",
               (double)angles[a], 100.0 * linear_share, 100.0 * cos(half) * cos(half), 100.0 * dual_share);
        CHECK(fabs(dual_share - 1.0) <= 0.05);
        CHECK_NEAR(linear_share, cos(half) * cos(half), 0.01);
        CHECK(linear_share < (angles[a] < 100.0f ? 0.6 : 0.1));
        /* Away from the blend, both skin alike: the far end turned whole, the near end not at all. */
        for (int k = 0; k < 3; ++k) {
            CHECK_NEAR(linear[LIMB_VERTICES - 1][k], dual[LIMB_VERTICES - 1][k], 1e-5);
            CHECK_NEAR(linear[0][k], dual[0][k], 1e-6);
        }
        /* Dual quaternions keep every vertex at the limb's radius from its axis. */
        double worst = 0.0;
        for (int v = 0; v < LIMB_VERTICES; ++v)
            worst = fmax(worst, fabs(hypot(dual[v][1], dual[v][2] - LIMB_HEIGHT) - LIMB_RADIUS));
        CHECK(worst < 1e-4);
    }
}

int main(void)
{
    RUN(test_names_parse_back);
    RUN(test_dual_quaternion_moves_points_as_its_matrix);
    RUN(test_one_joint_per_vertex_equals_linear);
    RUN(test_antipodal_joints_are_flipped);
    RUN(test_misuse_is_refused);
    RUN(test_twisting_limb_keeps_its_volume);
    return check_report();
}
