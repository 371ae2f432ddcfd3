/* test_pose_builds: the pose stages the processor runs (pose_kernels.h's target_clones: the x86-64-v3 build where the
 * processor has AVX2, else the SSE2 one) give the same bits as the SSE2 build alone, on random skeletons,
 * clips and weights, with the AVX-512 quads where the processor has them and (entry test_pose_builds_pairs) without.
 * pose_sse2_copy.c compiles the stage files a second time, with POSE_NO_CLONES and
 * every public name prefixed sse2_, beside the engine's own copy. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "pose/pose.h"
#include "pose/pose_dq.h"

#include <cglm/cglm.h>

/* tests/pose_sse2_copy.c: the pose stages built for SSE2 alone, its names prefixed sse2_. */
bool sse2_pose_sample_range(const clip *c, float time, bool loop, int first_joint, int joint_count, joint_pose *out);
bool sse2_pose_blend(const joint_pose *const *poses, const float *weights, int pose_count, int joint_count,
                     joint_pose *out);
bool sse2_pose_add(const joint_pose *base, const joint_pose *delta, float weight, const float *joint_weights,
                   int joint_count, joint_pose *out);
bool sse2_pose_blend_masked(const joint_pose *base, const joint_pose *layer, const float *joint_weights, float weight,
                            int joint_count, joint_pose *out);
bool sse2_pose_to_object(const int *parents, int joint_count, const joint_pose *local, joint_pose *object);
bool sse2_pose_palette(const joint_pose *object, const mat4 *inverse_bind, int joint_count, mat4 *palette);
bool sse2_pose_to_object_quad(const int *parents, int joint_count, const joint_pose *const local[4],
                              joint_pose *const object[4]);
bool sse2_pose_dual_quaternion_palette(const joint_pose *object, const joint_pose *bind_object, int joint_count,
                                       pose_dual_quaternion *out);

enum { JOINTS = 67, FRAMES = 9, ROUNDS = 200 }; /* 67: more than one pass of 64, odd on purpose */

static uint32_t rng_state = 12345u;

static float random_unit(void) /* [-1, 1) */
{
    rng_state = rng_state * 1664525u + 1013904223u;
    return (float)(rng_state >> 8) / 8388608.0f - 1.0f;
}

static void random_joint(joint_pose *joint)
{
    memset(joint, 0, sizeof *joint);
    float length2 = 0.0f;
    for (int k = 0; k < 4; ++k) {
        joint->rotation[k] = random_unit();
        length2 += joint->rotation[k] * joint->rotation[k];
    }
    float inverse = 1.0f / sqrtf(length2 > 1e-6f ? length2 : 1.0f);
    for (int k = 0; k < 4; ++k)
        joint->rotation[k] *= inverse;
    for (int k = 0; k < 3; ++k)
        joint->position[k] = 2.0f * random_unit();
}

static joint_pose frames[FRAMES * JOINTS];
static int parents[JOINTS];

static void make_clip(clip *c)
{
    memset(c, 0, sizeof *c);
    for (int j = 0; j < JOINTS; ++j)
        parents[j] = j == 0 ? -1 : j % 5 == 0 ? j / 3 : j - 1; /* chains and branches */
    for (int i = 0; i < FRAMES * JOINTS; ++i)
        random_joint(&frames[i]);
    c->joint_count = JOINTS;
    c->frame_count = FRAMES;
    c->frame_rate = 24.0f;
    c->loop_duration = (float)FRAMES / 24.0f;
    c->once_duration = (float)(FRAMES - 1) / 24.0f;
    c->parents = parents;
    c->frames = frames;
}

static void test_same_bits(void)
{
    clip c;
    make_clip(&c);
    static joint_pose a[JOINTS], b[JOINTS], mine[JOINTS], theirs[JOINTS], other[JOINTS];
    static mat4 palette_mine[JOINTS], palette_theirs[JOINTS], inverse_bind[JOINTS];
    static pose_dual_quaternion dq_mine[JOINTS], dq_theirs[JOINTS];
    float mask[JOINTS];
    int differences = 0;
    for (int round = 0; round < ROUNDS; ++round) {
        float time = 3.0f * (random_unit() + 1.0f);
        bool loop = round % 2 == 0;
        CHECK(pose_sample_range(&c, time, loop, 0, JOINTS, mine));
        CHECK(sse2_pose_sample_range(&c, time, loop, 0, JOINTS, theirs));
        differences += memcmp(mine, theirs, sizeof mine) != 0;

        CHECK(pose_sample_range(&c, time * 0.7f, loop, 0, JOINTS, a));
        for (int j = 0; j < JOINTS; ++j) {
            random_joint(&b[j]);
            random_joint(&other[j]);
            mask[j] = j % 4 == 0 ? 0.0f : j % 4 == 1 ? 1.0f : 0.5f * (random_unit() + 1.0f);
        }
        const joint_pose *poses[3] = {a, b, other};
        float weights[3] = {0.5f * (random_unit() + 1.0f), 0.3f, round % 3 == 0 ? 0.0f : 0.2f};
        CHECK(pose_blend(poses, weights, 3, JOINTS, mine));
        CHECK(sse2_pose_blend(poses, weights, 3, JOINTS, theirs));
        differences += memcmp(mine, theirs, sizeof mine) != 0;

        float weight = 0.5f * (random_unit() + 1.0f);
        CHECK(pose_add(a, b, weight, round % 2 ? mask : NULL, JOINTS, mine));
        CHECK(sse2_pose_add(a, b, weight, round % 2 ? mask : NULL, JOINTS, theirs));
        differences += memcmp(mine, theirs, sizeof mine) != 0;

        /* The whole delta (t = 1: no nlerp), and a mask whose inside is whole (pairs of equal t). */
        for (int j = 0; j < JOINTS; ++j)
            mask[j] = j < JOINTS / 2 ? 1.0f : mask[j];
        CHECK(pose_add(a, b, 1.0f, round % 3 ? mask : NULL, JOINTS, mine));
        CHECK(sse2_pose_add(a, b, 1.0f, round % 3 ? mask : NULL, JOINTS, theirs));
        differences += memcmp(mine, theirs, sizeof mine) != 0;

        CHECK(pose_blend_masked(a, b, mask, weight, JOINTS, mine));
        CHECK(sse2_pose_blend_masked(a, b, mask, weight, JOINTS, theirs));
        differences += memcmp(mine, theirs, sizeof mine) != 0;

        CHECK(pose_to_object(parents, JOINTS, a, mine));
        CHECK(sse2_pose_to_object(parents, JOINTS, a, theirs));
        differences += memcmp(mine, theirs, sizeof mine) != 0;

        /* Two poses at once (256-bit halves where AVX2 runs), against each alone in the SSE2 build; the
         * second in place, as the crowd does not but callers may. */
        static joint_pose pair_a[JOINTS], pair_b[JOINTS], alone_b[JOINTS];
        memcpy(pair_b, b, sizeof pair_b);
        CHECK(pose_to_object_pair(parents, JOINTS, a, pair_b, pair_a, pair_b));
        CHECK(sse2_pose_to_object(parents, JOINTS, b, alone_b));
        differences += memcmp(pair_a, theirs, sizeof pair_a) != 0 || memcmp(pair_b, alone_b, sizeof pair_b) != 0;

        /* Four at once (512-bit quarters where AVX-512 runs), each against itself alone in the SSE2 build;
         * the last in place. */
        static joint_pose quad_object[3][JOINTS], quad_last[JOINTS], quad_alone[4][JOINTS];
        const joint_pose *quad_local[4] = {a, b, other, quad_last};
        joint_pose *quad_out[4] = {quad_object[0], quad_object[1], quad_object[2], quad_last};
        memcpy(quad_last, theirs, sizeof quad_last);
        for (int k = 0; k < 4; ++k)
            CHECK(sse2_pose_to_object(parents, JOINTS, quad_local[k], quad_alone[k]));
        CHECK(pose_to_object_quad(parents, JOINTS, quad_local, quad_out));
        for (int k = 0; k < 4; ++k)
            differences += memcmp(quad_out[k], quad_alone[k], sizeof quad_alone[k]) != 0;
        joint_pose *quad_alone_out[4] = {quad_alone[0], quad_alone[1], quad_alone[2], quad_alone[3]};
        CHECK(sse2_pose_to_object_quad(parents, JOINTS, quad_local, quad_alone_out));
        differences += memcmp(quad_object[0], quad_alone[0], sizeof quad_alone[0]) != 0;

        /* Parts of the skeleton: four joints a turn where AVX-512 runs, and what is left two and one at a
         * time, at every start and length up to a dozen. */
        for (int first = 0; first < 4; ++first)
            for (int count = 1; count <= 12; ++count) {
                CHECK(pose_sample_range(&c, time, loop, first, count, mine));
                CHECK(sse2_pose_sample_range(&c, time, loop, first, count, theirs));
                differences += memcmp(mine, theirs, sizeof mine[0] * (size_t)count) != 0;
            }

        for (int j = 0; j < JOINTS; ++j) {
            glm_mat4_identity(inverse_bind[j]);
            glm_quat_mat4(b[j].rotation, inverse_bind[j]);
            glm_vec3_copy(other[j].position, inverse_bind[j][3]);
        }
        CHECK(pose_palette(mine, (const mat4 *)inverse_bind, JOINTS, palette_mine));
        CHECK(sse2_pose_palette(mine, (const mat4 *)inverse_bind, JOINTS, palette_theirs));
        differences += memcmp(palette_mine, palette_theirs, sizeof palette_mine) != 0;

        CHECK(pose_dual_quaternion_palette(mine, b, JOINTS, dq_mine));
        CHECK(sse2_pose_dual_quaternion_palette(mine, b, JOINTS, dq_theirs));
        differences += memcmp(dq_mine, dq_theirs, sizeof dq_mine) != 0;
    }
    /* Broken data: a pose whose rotations are zero at every third joint blends to identity there (a tiny
     * sum), a pair of joints of which one is tiny and one is not included. */
    static joint_pose broken[JOINTS];
    memcpy(broken, a, sizeof broken);
    for (int j = 0; j < JOINTS; j += 3)
        memset(broken[j].rotation, 0, sizeof broken[j].rotation);
    const joint_pose *alone_pose[1] = {broken};
    float alone_weight[1] = {1.0f};
    CHECK(pose_blend(alone_pose, alone_weight, 1, JOINTS, mine));
    CHECK(sse2_pose_blend(alone_pose, alone_weight, 1, JOINTS, theirs));
    CHECK(memcmp(mine, theirs, sizeof mine) == 0);
    CHECK(mine[0].rotation[3] == 1.0f && mine[3].rotation[3] == 1.0f);
    CHECK(fabsf(mine[1].rotation[3] - a[1].rotation[3]) < 1e-6f);

    /* Misuse: false, nothing written. */
    static joint_pose untouched_a[JOINTS], untouched_b[JOINTS];
    memcpy(untouched_a, mine, sizeof mine);
    memcpy(untouched_b, theirs, sizeof theirs);
    int bad_parents[JOINTS];
    memcpy(bad_parents, parents, sizeof bad_parents);
    bad_parents[JOINTS - 1] = JOINTS - 1;
    CHECK(!pose_to_object_pair(bad_parents, JOINTS, a, b, mine, theirs)); /* in the last, odd joints */
    memcpy(bad_parents, parents, sizeof bad_parents);
    bad_parents[10] = 10; /* its own parent, among the first eight-joint blocks */
    CHECK(!pose_to_object_pair(bad_parents, JOINTS, a, b, mine, theirs));
    bad_parents[10] = parents[10];
    bad_parents[5] = -2;
    CHECK(!pose_to_object_pair(bad_parents, JOINTS, a, b, mine, theirs));
    bad_parents[5] = 40; /* a parent after its child */
    CHECK(!pose_to_object_pair(bad_parents, JOINTS, a, b, mine, theirs));
    CHECK(!pose_to_object_pair(parents, JOINTS, a, NULL, mine, theirs));
    CHECK(!pose_to_object_pair(parents, 0, a, b, mine, theirs));
    static joint_pose spare[2][JOINTS];
    const joint_pose *locals[4] = {a, b, a, b};
    joint_pose *objects[4] = {mine, theirs, spare[0], spare[1]};
    memset(spare, 0, sizeof spare);
    bad_parents[5] = 40;
    CHECK(!pose_to_object_quad(bad_parents, JOINTS, locals, objects));
    memcpy(bad_parents, parents, sizeof bad_parents);
    bad_parents[JOINTS - 1] = JOINTS; /* past the joints, in the last, odd ones */
    CHECK(!pose_to_object_quad(bad_parents, JOINTS, locals, objects));
    CHECK(!pose_to_object_quad(parents, 0, locals, objects));
    locals[2] = NULL;
    CHECK(!pose_to_object_quad(parents, JOINTS, locals, objects));
    locals[2] = a;
    objects[3] = NULL;
    CHECK(!pose_to_object_quad(parents, JOINTS, locals, objects));
    CHECK(!pose_to_object_quad(parents, JOINTS, NULL, objects));
    static const joint_pose zero[2][JOINTS];
    CHECK(memcmp(spare, zero, sizeof spare) == 0);
    CHECK(memcmp(mine, untouched_a, sizeof mine) == 0 && memcmp(theirs, untouched_b, sizeof theirs) == 0);
    CHECK(differences == 0);
    if (differences)
        fprintf(stderr, "%d of %d stage results differ between the builds\n", differences, 62 * ROUNDS);
}

int main(void)
{
#if defined(__GNUC__) && defined(__x86_64__)
    __builtin_cpu_init();
    printf("this processor runs the %s build of the pose stages%s\n",
           __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") ? "x86-64-v3 (or SSE2 where not cloned)"
                                                                         : "SSE2",
           !__builtin_cpu_supports("x86-64-v4")      ? ""
           : getenv("MARIONETTE_POSE_NO_QUADS") ? ", its AVX-512 quads turned off (MARIONETTE_POSE_NO_QUADS)"
                                                : ", with its AVX-512 quads (x86-64-v4)");
#endif
    RUN(test_same_bits);
    return check_report();
}
