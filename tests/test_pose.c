/* test_pose: each stage against numbers worked out by hand on tiny skeletons and clips built in memory:
 * sampling at exact frames, midpoints and across the wrap of both loop conventions, one-shot clamping,
 * blend weights and signs, a chain to object space, the bind-pose palette, CPU skinning; and every stage
 * refusing bad arguments without touching its outputs. */
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "check.h"
#include "pose/pose.h"
#include "pose/pose_dq.h"

#define PI_F 3.14159265f

enum { MAX_TEST_JOINTS = 4, MAX_TEST_FRAMES = 8 };

/* Rotation by `degrees` about z, the axis every hand computation below uses. */
static void about_z(float degrees, float out[4])
{
    float half = degrees * PI_F / 360.0f;
    out[0] = 0.0f;
    out[1] = 0.0f;
    out[2] = sinf(half);
    out[3] = cosf(half);
}

static joint_pose make_joint(float degrees_about_z, float x, float y, float z)
{
    joint_pose joint;
    memset(&joint, 0, sizeof joint);
    about_z(degrees_about_z, joint.rotation);
    joint.position[0] = x;
    joint.position[1] = y;
    joint.position[2] = z;
    return joint;
}

static void check_rotation_about_z(const joint_pose *joint, float degrees)
{
    float expected[4];
    about_z(degrees, expected);
    for (int k = 0; k < 4; ++k)
        CHECK_NEAR(joint->rotation[k], expected[k], 1e-5);
}

static void check_position(const joint_pose *joint, float x, float y, float z)
{
    CHECK_NEAR(joint->position[0], x, 1e-5);
    CHECK_NEAR(joint->position[1], y, 1e-5);
    CHECK_NEAR(joint->position[2], z, 1e-5);
}

/* A clip whose frames the test fills in; joint_count * frame_count <= the array sizes. */
typedef struct test_clip {
    clip clip;
    joint_pose frames[MAX_TEST_JOINTS * MAX_TEST_FRAMES];
    int parents[MAX_TEST_JOINTS];
} test_clip;

static void init_clip(test_clip *t, int joint_count, int frame_count, float frame_rate, bool last_frame_is_first)
{
    memset(t, 0, sizeof *t);
    for (int j = 0; j < joint_count; ++j)
        t->parents[j] = j - 1;
    t->clip.joint_count = joint_count;
    t->clip.frame_count = frame_count;
    t->clip.frame_rate = frame_rate;
    t->clip.last_frame_is_first = last_frame_is_first;
    t->clip.loop_duration = (float)(last_frame_is_first ? frame_count - 1 : frame_count) / frame_rate;
    t->clip.once_duration = (float)(frame_count - 1) / frame_rate;
    t->clip.parents = t->parents;
    t->clip.frames = t->frames;
}

/* One joint, 4 frames at 10 fps (tutorials' convention: the cycle is 0.4 s and ends by interpolating
 * frame 3 back to frame 0). Frame k: k * 30 degrees about z, position (k, 2k, 0). */
static void make_turning_clip(test_clip *t)
{
    init_clip(t, 1, 4, 10.0f, false);
    for (int k = 0; k < 4; ++k)
        t->frames[k] = make_joint(30.0f * (float)k, (float)k, 2.0f * (float)k, 0.0f);
}

/* The same motion in Doom 3's convention: a fifth frame repeats frame 0; the cycle is still 0.4 s. */
static void make_turning_clip_doom3(test_clip *t)
{
    init_clip(t, 1, 5, 10.0f, true);
    for (int k = 0; k < 4; ++k)
        t->frames[k] = make_joint(30.0f * (float)k, (float)k, 2.0f * (float)k, 0.0f);
    t->frames[4] = t->frames[0];
}

static void test_sample_exact_frames_and_midpoints(void)
{
    test_clip t;
    make_turning_clip(&t);
    joint_pose out;
    for (int k = 0; k < 4; ++k) {
        CHECK(pose_sample(&t.clip, 0.1f * (float)k, true, &out));
        check_rotation_about_z(&out, 30.0f * (float)k);
        check_position(&out, (float)k, 2.0f * (float)k, 0.0f);
    }
    /* Halfway between 30 and 60 degrees: nlerp's midpoint is the exact bisector. */
    CHECK(pose_sample(&t.clip, 0.15f, true, &out));
    check_rotation_about_z(&out, 45.0f);
    check_position(&out, 1.5f, 3.0f, 0.0f);
    CHECK(out.unused == 0.0f);
    /* A quarter of the way: lerp positions; nlerp is normalize(0.75 q1 + 0.25 q2), which about one axis
     * is the rotation whose half-angle tangent is (0.75 sin 15 + 0.25 sin 30) / (0.75 cos 15 + 0.25 cos 30). */
    CHECK(pose_sample(&t.clip, 0.125f, false, &out));
    check_position(&out, 1.25f, 2.5f, 0.0f);
    float half = atan2f(0.75f * sinf(15.0f * PI_F / 180.0f) + 0.25f * sinf(30.0f * PI_F / 180.0f),
                        0.75f * cosf(15.0f * PI_F / 180.0f) + 0.25f * cosf(30.0f * PI_F / 180.0f));
    check_rotation_about_z(&out, 2.0f * half * 180.0f / PI_F);
}

static void test_sample_wraps_tutorial_convention(void)
{
    test_clip t;
    make_turning_clip(&t);
    joint_pose out;
    /* 0.35 s: halfway from frame 3 (90 degrees, (3, 6)) back to frame 0 (0 degrees, (0, 0)). */
    CHECK(pose_sample(&t.clip, 0.35f, true, &out));
    check_rotation_about_z(&out, 45.0f);
    check_position(&out, 1.5f, 3.0f, 0.0f);
    /* 0.4 s is frame 0 again; 0.45 s halfway from frame 0 to frame 1. */
    CHECK(pose_sample(&t.clip, 0.4f, true, &out));
    check_rotation_about_z(&out, 0.0f);
    check_position(&out, 0.0f, 0.0f, 0.0f);
    CHECK(pose_sample(&t.clip, 0.45f, true, &out));
    check_rotation_about_z(&out, 15.0f);
    check_position(&out, 0.5f, 1.0f, 0.0f);
    /* Many cycles later. */
    CHECK(pose_sample(&t.clip, 4.0f + 0.15f, true, &out));
    check_rotation_about_z(&out, 45.0f);
    check_position(&out, 1.5f, 3.0f, 0.0f);
}

static void test_sample_wraps_doom3_convention(void)
{
    test_clip t;
    make_turning_clip_doom3(&t);
    joint_pose out;
    /* Same 0.4 s cycle as the tutorial clip: 0.35 s halfway from frame 3 to frame 4 (= frame 0). */
    CHECK(pose_sample(&t.clip, 0.35f, true, &out));
    check_rotation_about_z(&out, 45.0f);
    check_position(&out, 1.5f, 3.0f, 0.0f);
    /* 0.45 s: halfway from frame 0 to frame 1. A loader that wrapped after all 5 frames would still be
     * on the copy of frame 0 here: the one-frame hitch. */
    CHECK(pose_sample(&t.clip, 0.45f, true, &out));
    check_rotation_about_z(&out, 15.0f);
    check_position(&out, 0.5f, 1.0f, 0.0f);
    CHECK(pose_sample(&t.clip, 0.8f + 0.1f, true, &out));
    check_rotation_about_z(&out, 30.0f);
    check_position(&out, 1.0f, 2.0f, 0.0f);

    /* The same 5 frames flagged with the tutorials' rule last 0.5 s and pass through frame 4. */
    t.clip.last_frame_is_first = false;
    t.clip.loop_duration = 0.5f;
    CHECK(pose_sample(&t.clip, 0.45f, true, &out));
    check_rotation_about_z(&out, 0.0f);
    check_position(&out, 0.0f, 0.0f, 0.0f);
}

static void test_sample_two_frame_doom3_clip_is_still(void)
{
    /* Two frames, the second a copy of the first: a one-step cycle that never leaves frame 0. */
    test_clip t;
    init_clip(&t, 1, 2, 30.0f, true);
    t.frames[0] = t.frames[1] = make_joint(25.0f, 1.0f, 1.0f, 1.0f);
    const float times[] = {0.0f, 0.01f, 1.0f / 30.0f, 0.05f, -0.02f, 12.34f};
    for (int i = 0; i < 6; ++i) {
        joint_pose out;
        CHECK(pose_sample(&t.clip, times[i], true, &out));
        check_rotation_about_z(&out, 25.0f);
        check_position(&out, 1.0f, 1.0f, 1.0f);
    }
}

static void test_sample_negative_times_wrap(void)
{
    test_clip tutorial, doom3;
    make_turning_clip(&tutorial);
    make_turning_clip_doom3(&doom3);
    const clip *clips[2] = {&tutorial.clip, &doom3.clip};
    for (int c = 0; c < 2; ++c) {
        joint_pose out;
        /* -0.05 s is 0.35 s of the previous cycle. */
        CHECK(pose_sample(clips[c], -0.05f, true, &out));
        check_rotation_about_z(&out, 45.0f);
        check_position(&out, 1.5f, 3.0f, 0.0f);
        CHECK(pose_sample(clips[c], -0.4f, true, &out));
        check_rotation_about_z(&out, 0.0f);
        check_position(&out, 0.0f, 0.0f, 0.0f);
        /* -1.25 s = -3 cycles + 0.35 s. */
        CHECK(pose_sample(clips[c], -1.25f, true, &out));
        check_rotation_about_z(&out, 45.0f);
        check_position(&out, 1.5f, 3.0f, 0.0f);
        /* Just below zero must not read frame -1 or frame frame_count. */
        CHECK(pose_sample(clips[c], -1e-9f, true, &out));
        check_rotation_about_z(&out, 0.0f);
        check_position(&out, 0.0f, 0.0f, 0.0f);
    }
}

static void test_sample_once_clamps(void)
{
    test_clip t;
    make_turning_clip(&t);
    joint_pose out;
    /* Played once the clip lasts 0.3 s and holds frame 3: no interpolation back to frame 0. */
    CHECK(pose_sample(&t.clip, 0.3f, false, &out));
    check_rotation_about_z(&out, 90.0f);
    check_position(&out, 3.0f, 6.0f, 0.0f);
    CHECK(pose_sample(&t.clip, 0.35f, false, &out));
    check_rotation_about_z(&out, 90.0f);
    check_position(&out, 3.0f, 6.0f, 0.0f);
    CHECK(pose_sample(&t.clip, 1000.0f, false, &out));
    check_position(&out, 3.0f, 6.0f, 0.0f);
    CHECK(pose_sample(&t.clip, -2.0f, false, &out));
    check_rotation_about_z(&out, 0.0f);
    check_position(&out, 0.0f, 0.0f, 0.0f);
    CHECK(pose_sample(&t.clip, 0.25f, false, &out));
    check_rotation_about_z(&out, 75.0f);
    check_position(&out, 2.5f, 5.0f, 0.0f);
}

static void test_sample_single_frame_clip(void)
{
    test_clip t;
    init_clip(&t, 2, 1, 24.0f, false);
    t.frames[0] = make_joint(40.0f, 1.0f, 2.0f, 3.0f);
    t.frames[1] = make_joint(-20.0f, 0.0f, 0.0f, 5.0f);
    const float times[] = {0.0f, 0.01f, 7.5f, -3.0f};
    for (int i = 0; i < 4; ++i) {
        for (int loop = 0; loop < 2; ++loop) {
            joint_pose out[2];
            CHECK(pose_sample(&t.clip, times[i], loop != 0, out));
            check_rotation_about_z(&out[0], 40.0f);
            check_position(&out[0], 1.0f, 2.0f, 3.0f);
            check_rotation_about_z(&out[1], -20.0f);
            check_position(&out[1], 0.0f, 0.0f, 5.0f);
        }
    }
}

static void test_sample_shortest_arc_and_joints(void)
{
    /* Two joints, two frames; joint 1's second frame is stored with the opposite sign. */
    test_clip t;
    init_clip(&t, 2, 2, 1.0f, false);
    t.frames[0] = make_joint(0.0f, 0.0f, 0.0f, 0.0f);
    t.frames[1] = make_joint(10.0f, 1.0f, 0.0f, 0.0f);
    t.frames[2] = make_joint(90.0f, 2.0f, 0.0f, 0.0f);
    t.frames[3] = make_joint(50.0f, 1.0f, 4.0f, 0.0f);
    for (int k = 0; k < 4; ++k)
        t.frames[3].rotation[k] = -t.frames[3].rotation[k];
    joint_pose out[2];
    CHECK(pose_sample(&t.clip, 0.5f, false, out));
    check_rotation_about_z(&out[0], 45.0f);
    check_position(&out[0], 1.0f, 0.0f, 0.0f);
    check_rotation_about_z(&out[1], 30.0f); /* 10 and 50 degrees, not the long way round */
    check_position(&out[1], 1.0f, 2.0f, 0.0f);
    for (int j = 0; j < 2; ++j) {
        const float *q = out[j].rotation;
        CHECK_NEAR(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3], 1.0, 1e-6);
    }
}

static bool untouched(const joint_pose *joint, unsigned char fill)
{
    const unsigned char *bytes = (const unsigned char *)joint;
    for (size_t i = 0; i < sizeof *joint; ++i)
        if (bytes[i] != fill)
            return false;
    return true;
}

static void test_sample_rejects_bad_arguments(void)
{
    test_clip t;
    make_turning_clip(&t);
    joint_pose out;
    memset(&out, 0xAB, sizeof out);
    CHECK(!pose_sample(NULL, 0.0f, true, &out));
    CHECK(!pose_sample(&t.clip, 0.0f, true, NULL));
    CHECK(!pose_sample(&t.clip, NAN, true, &out));
    CHECK(!pose_sample(&t.clip, INFINITY, false, &out));
    CHECK(!pose_sample(&t.clip, -INFINITY, true, &out));
    clip broken = t.clip;
    broken.frame_rate = 0.0f;
    CHECK(!pose_sample(&broken, 0.0f, true, &out));
    broken = t.clip;
    broken.frame_rate = NAN;
    CHECK(!pose_sample(&broken, 0.0f, true, &out));
    broken = t.clip;
    broken.frame_count = 0;
    CHECK(!pose_sample(&broken, 0.0f, true, &out));
    broken = t.clip;
    broken.joint_count = 0;
    CHECK(!pose_sample(&broken, 0.0f, true, &out));
    broken = t.clip;
    broken.frames = NULL;
    CHECK(!pose_sample(&broken, 0.0f, true, &out));
    CHECK(untouched(&out, 0xAB));
}

/* ---- blend ---- */

static void test_blend_single_weights_reproduce_inputs(void)
{
    joint_pose a[2] = {make_joint(20.0f, 1.0f, 2.0f, 3.0f), make_joint(-60.0f, 0.0f, 1.0f, 0.0f)};
    joint_pose b[2] = {make_joint(80.0f, -1.0f, 0.0f, 7.0f), make_joint(170.0f, 4.0f, 4.0f, 4.0f)};
    const joint_pose *poses[2] = {a, b};
    joint_pose out[2];
    float only_a[2] = {1.0f, 0.0f};
    CHECK(pose_blend(poses, only_a, 2, 2, out));
    for (int j = 0; j < 2; ++j) {
        for (int k = 0; k < 4; ++k)
            CHECK_NEAR(out[j].rotation[k], a[j].rotation[k], 1e-6);
        check_position(&out[j], a[j].position[0], a[j].position[1], a[j].position[2]);
    }
    float only_b[2] = {0.0f, 1.0f};
    CHECK(pose_blend(poses, only_b, 2, 2, out));
    for (int j = 0; j < 2; ++j) {
        for (int k = 0; k < 4; ++k)
            CHECK_NEAR(out[j].rotation[k], b[j].rotation[k], 1e-6);
        check_position(&out[j], b[j].position[0], b[j].position[1], b[j].position[2]);
    }
}

static void test_blend_half_and_half(void)
{
    joint_pose a = make_joint(0.0f, 0.0f, 0.0f, 0.0f);
    joint_pose b = make_joint(90.0f, 2.0f, 4.0f, -6.0f);
    const joint_pose *poses[2] = {&a, &b};
    joint_pose out;
    float halves[2] = {0.5f, 0.5f};
    CHECK(pose_blend(poses, halves, 2, 1, &out));
    check_rotation_about_z(&out, 45.0f);
    check_position(&out, 1.0f, 2.0f, -3.0f);
    CHECK(out.unused == 0.0f);
    /* Weights are normalized: 3 and 3 is the same blend. */
    float threes[2] = {3.0f, 3.0f};
    CHECK(pose_blend(poses, threes, 2, 1, &out));
    check_rotation_about_z(&out, 45.0f);
    check_position(&out, 1.0f, 2.0f, -3.0f);
    /* 0.25 / 0.75 of positions. */
    float quarter[2] = {0.25f, 0.75f};
    CHECK(pose_blend(poses, quarter, 2, 1, &out));
    check_position(&out, 1.5f, 3.0f, -4.5f);
}

static void test_blend_sign_flipped_input(void)
{
    /* b is 90 degrees stored as -q: the blend must align it to a before summing. */
    joint_pose a = make_joint(0.0f, 0.0f, 0.0f, 0.0f);
    joint_pose b = make_joint(90.0f, 0.0f, 0.0f, 0.0f);
    for (int k = 0; k < 4; ++k)
        b.rotation[k] = -b.rotation[k];
    const joint_pose *poses[2] = {&a, &b};
    joint_pose out;
    float halves[2] = {0.5f, 0.5f};
    CHECK(pose_blend(poses, halves, 2, 1, &out));
    check_rotation_about_z(&out, 45.0f);
    /* Exactly opposite quaternions (the same rotation) blend to that rotation, not to zero. */
    joint_pose c = make_joint(30.0f, 0.0f, 0.0f, 0.0f), minus_c = c;
    for (int k = 0; k < 4; ++k)
        minus_c.rotation[k] = -c.rotation[k];
    const joint_pose *opposite[2] = {&c, &minus_c};
    CHECK(pose_blend(opposite, halves, 2, 1, &out));
    check_rotation_about_z(&out, 30.0f);
}

static void test_blend_three_poses_in_place(void)
{
    joint_pose a = make_joint(0.0f, 3.0f, 0.0f, 0.0f);
    joint_pose b = make_joint(60.0f, 0.0f, 3.0f, 0.0f);
    joint_pose c = make_joint(30.0f, 0.0f, 0.0f, 3.0f);
    const joint_pose *poses[3] = {&a, &b, &c};
    float weights[3] = {1.0f, 1.0f, 1.0f};
    /* out may be one of the inputs. Rotations 0, 60, 30 about z blend symmetrically to 30. */
    CHECK(pose_blend(poses, weights, 3, 1, &a));
    check_rotation_about_z(&a, 30.0f);
    check_position(&a, 1.0f, 1.0f, 1.0f);
}

static void test_blend_cancelling_poses_give_identity(void)
{
    /* Three poses can cancel where two cannot: a half turn about x and its negation, each aligned to an
     * identity reference that has almost no weight. The result must be a unit rotation, not NaN. */
    joint_pose reference = make_joint(0.0f, 0.0f, 0.0f, 0.0f);
    joint_pose half_turn, minus_half_turn;
    memset(&half_turn, 0, sizeof half_turn);
    half_turn.rotation[0] = 1.0f;
    minus_half_turn = half_turn;
    minus_half_turn.rotation[0] = -1.0f;
    const joint_pose *poses[3] = {&reference, &half_turn, &minus_half_turn};
    float weights[3] = {1e-20f, 0.5f, 0.5f};
    joint_pose out;
    CHECK(pose_blend(poses, weights, 3, 1, &out));
    check_rotation_about_z(&out, 0.0f);
}

static void test_blend_does_not_read_zero_weight_poses(void)
{
    /* A layer faded out to 0 may hold anything, even NaN: it must not leak into the result. */
    joint_pose a = make_joint(40.0f, 1.0f, 2.0f, 3.0f);
    joint_pose broken;
    for (int k = 0; k < 4; ++k)
        broken.rotation[k] = NAN;
    for (int k = 0; k < 3; ++k)
        broken.position[k] = NAN;
    broken.unused = 0.0f;
    const joint_pose *poses[3] = {&broken, &a, &broken};
    float weights[3] = {0.0f, 2.0f, 0.0f};
    joint_pose out;
    CHECK(pose_blend(poses, weights, 3, 1, &out));
    check_rotation_about_z(&out, 40.0f);
    check_position(&out, 1.0f, 2.0f, 3.0f);
}

static void test_blend_rejects_bad_arguments(void)
{
    joint_pose a = make_joint(0.0f, 0.0f, 0.0f, 0.0f), b = make_joint(10.0f, 0.0f, 0.0f, 0.0f);
    const joint_pose *poses[2] = {&a, &b};
    const joint_pose *with_null[2] = {&a, NULL};
    joint_pose out;
    memset(&out, 0xAB, sizeof out);
    float good[2] = {0.5f, 0.5f};
    float negative[2] = {1.5f, -0.5f};
    float zero[2] = {0.0f, 0.0f};
    float not_a_number[2] = {NAN, 1.0f};
    float infinite[2] = {INFINITY, 1.0f};
    CHECK(!pose_blend(poses, negative, 2, 1, &out));
    CHECK(!pose_blend(poses, zero, 2, 1, &out));
    CHECK(!pose_blend(poses, not_a_number, 2, 1, &out));
    CHECK(!pose_blend(poses, infinite, 2, 1, &out));
    CHECK(!pose_blend(with_null, good, 2, 1, &out));
    CHECK(!pose_blend(NULL, good, 2, 1, &out));
    CHECK(!pose_blend(poses, NULL, 2, 1, &out));
    CHECK(!pose_blend(poses, good, 0, 1, &out));
    CHECK(!pose_blend(poses, good, 2, 0, &out));
    CHECK(!pose_blend(poses, good, 2, 1, NULL));
    CHECK(untouched(&out, 0xAB));
}

/* ---- masked blend ---- */

static void test_blend_masked_weights_per_joint(void)
{
    /* Joint 0 outside the mask keeps the base bit for bit, joint 1 inside takes the layer bit for bit,
     * joint 2 on the mask's soft edge goes half way (and the channel weight scales all of it). */
    joint_pose base[3] = {make_joint(10.0f, 1.0f, 2.0f, 3.0f), make_joint(20.0f, 0.0f, 0.0f, 0.0f),
                          make_joint(0.0f, 0.0f, 0.0f, 0.0f)};
    joint_pose layer[3] = {make_joint(80.0f, 9.0f, 9.0f, 9.0f), make_joint(-30.0f, 4.0f, 5.0f, 6.0f),
                           make_joint(60.0f, 2.0f, 0.0f, 0.0f)};
    float mask[3] = {0.0f, 1.0f, 0.5f};
    joint_pose out[3];
    CHECK(pose_blend_masked(base, layer, mask, 1.0f, 3, out));
    CHECK(memcmp(&out[0], &base[0], sizeof out[0]) == 0);
    CHECK(memcmp(&out[1], &layer[1], sizeof out[1]) == 0);
    check_rotation_about_z(&out[2], 30.0f);
    check_position(&out[2], 1.0f, 0.0f, 0.0f);

    CHECK(pose_blend_masked(base, layer, mask, 0.5f, 3, out));
    CHECK(memcmp(&out[0], &base[0], sizeof out[0]) == 0);
    check_rotation_about_z(&out[1], -5.0f);
    check_position(&out[1], 2.0f, 2.5f, 3.0f);
    /* A quarter of the way is nlerp's, not quite a quarter of the angle. */
    float a[4], b[4], expected[4], length = 0.0f;
    about_z(0.0f, a);
    about_z(60.0f, b);
    for (int k = 0; k < 4; ++k) {
        expected[k] = 0.75f * a[k] + 0.25f * b[k];
        length += expected[k] * expected[k];
    }
    for (int k = 0; k < 4; ++k)
        CHECK_NEAR(out[2].rotation[k], expected[k] / sqrtf(length), 1e-6);

    /* Weight 0 is the base everywhere, and out may be the base itself. */
    joint_pose copy[3];
    memcpy(copy, base, sizeof copy);
    CHECK(pose_blend_masked(copy, layer, mask, 0.0f, 3, copy));
    CHECK(memcmp(copy, base, sizeof copy) == 0);
}

static void test_blend_masked_shortest_arc_in_place(void)
{
    /* The layer stored with the opposite sign is the same rotation: half way stays a small turn. */
    joint_pose base = make_joint(0.0f, 0.0f, 0.0f, 0.0f);
    joint_pose layer = make_joint(40.0f, 0.0f, 0.0f, 0.0f);
    for (int k = 0; k < 4; ++k)
        layer.rotation[k] = -layer.rotation[k];
    float mask[1] = {0.5f};
    CHECK(pose_blend_masked(&base, &layer, mask, 1.0f, 1, &layer));
    float q[4];
    about_z(20.0f, q);
    float dot = 0.0f;
    for (int k = 0; k < 4; ++k)
        dot += q[k] * layer.rotation[k];
    CHECK_NEAR(fabsf(dot), 1.0f, 1e-6);
}

static void test_blend_masked_rejects_bad_arguments(void)
{
    joint_pose a = make_joint(0.0f, 0.0f, 0.0f, 0.0f), b = make_joint(10.0f, 0.0f, 0.0f, 0.0f);
    joint_pose out;
    memset(&out, 0xAB, sizeof out);
    float good[1] = {1.0f}, above[1] = {1.5f}, negative[1] = {-0.1f}, not_a_number[1] = {NAN};
    CHECK(!pose_blend_masked(NULL, &b, good, 1.0f, 1, &out));
    CHECK(!pose_blend_masked(&a, NULL, good, 1.0f, 1, &out));
    CHECK(!pose_blend_masked(&a, &b, NULL, 1.0f, 1, &out));
    CHECK(!pose_blend_masked(&a, &b, good, 1.0f, 1, NULL));
    CHECK(!pose_blend_masked(&a, &b, good, 1.0f, 0, &out));
    CHECK(!pose_blend_masked(&a, &b, good, 1.5f, 1, &out));
    CHECK(!pose_blend_masked(&a, &b, good, NAN, 1, &out));
    CHECK(!pose_blend_masked(&a, &b, above, 1.0f, 1, &out));
    CHECK(!pose_blend_masked(&a, &b, negative, 1.0f, 1, &out));
    CHECK(!pose_blend_masked(&a, &b, not_a_number, 1.0f, 1, &out));
    CHECK(untouched(&out, 0xAB));
}


/* ---- additive ---- */

/* A general rotation (axis not along z) of `degrees` about (x, y, z), normalized. */
static joint_pose make_tilted_joint(float degrees, float x, float y, float z, float px, float py, float pz)
{
    joint_pose joint;
    memset(&joint, 0, sizeof joint);
    float length = sqrtf(x * x + y * y + z * z), half = degrees * PI_F / 360.0f;
    joint.rotation[0] = sinf(half) * x / length;
    joint.rotation[1] = sinf(half) * y / length;
    joint.rotation[2] = sinf(half) * z / length;
    joint.rotation[3] = cosf(half);
    joint.position[0] = px;
    joint.position[1] = py;
    joint.position[2] = pz;
    return joint;
}

/* Largest difference of two poses: rotation components (q and -q the same) and positions. */
static float pose_difference(const joint_pose *a, const joint_pose *b, int count)
{
    float largest = 0.0f;
    for (int i = 0; i < count; ++i) {
        float dot = 0.0f;
        for (int k = 0; k < 4; ++k)
            dot += a[i].rotation[k] * b[i].rotation[k];
        float sign = dot < 0.0f ? -1.0f : 1.0f;
        for (int k = 0; k < 4; ++k)
            largest = fmaxf(largest, fabsf(a[i].rotation[k] - sign * b[i].rotation[k]));
        for (int k = 0; k < 3; ++k)
            largest = fmaxf(largest, fabsf(a[i].position[k] - b[i].position[k]));
    }
    return largest;
}

static void test_additive_delta_by_hand(void)
{
    /* Reference 30 degrees about z at (1, 2, 3), frame 100 degrees at (1.5, 2, 2): the delta is 70 degrees
     * about z and (0.5, 0, -1); a frame equal to its reference gives (almost) identity with w >= 0. */
    joint_pose reference[2] = {make_joint(30.0f, 1.0f, 2.0f, 3.0f), make_joint(-40.0f, 0.0f, 0.0f, 0.0f)};
    joint_pose frame[2] = {make_joint(100.0f, 1.5f, 2.0f, 2.0f), reference[1]};
    for (int k = 0; k < 4; ++k)
        frame[1].rotation[k] = -frame[1].rotation[k]; /* the same rotation, stored with the other sign */
    joint_pose delta[2];
    CHECK(pose_additive_delta(reference, frame, 2, delta));
    check_rotation_about_z(&delta[0], 70.0f);
    check_position(&delta[0], 0.5f, 0.0f, -1.0f);
    CHECK(delta[1].rotation[3] > 0.0f);
    check_rotation_about_z(&delta[1], 0.0f);
    CHECK(delta[0].unused == 0.0f && delta[1].unused == 0.0f);
    CHECK(!pose_additive_delta(NULL, frame, 2, delta));
    CHECK(!pose_additive_delta(reference, frame, 0, delta));
}

static void test_additive_weight_zero_is_bit_exact(void)
{
    joint_pose base[3] = {make_tilted_joint(33.0f, 1.0f, 2.0f, 3.0f, 0.1f, 0.2f, 0.3f),
                          make_tilted_joint(-71.0f, 0.0f, 1.0f, 0.5f, 1.0f, -2.0f, 3.0f),
                          make_joint(170.0f, 4.0f, 5.0f, 6.0f)};
    joint_pose delta[3] = {make_tilted_joint(50.0f, 1.0f, 0.0f, 0.0f, 1.0f, 1.0f, 1.0f),
                           make_joint(90.0f, -1.0f, 0.0f, 0.0f), make_tilted_joint(20.0f, 0.0f, 0.0f, 1.0f, 0, 0, 1)};
    joint_pose out[3];
    memset(out, 0xAB, sizeof out);
    CHECK(pose_add(base, delta, 0.0f, NULL, 3, out));
    CHECK(memcmp(out, base, sizeof out) == 0);
    /* Weight 1 with a mask of 0 everywhere is the base too, and in place. */
    float nothing[3] = {0.0f, 0.0f, 0.0f};
    joint_pose copy[3];
    memcpy(copy, base, sizeof copy);
    CHECK(pose_add(copy, delta, 1.0f, nothing, 3, copy));
    CHECK(memcmp(copy, base, sizeof copy) == 0);
}

static void test_additive_identity_changes_nothing(void)
{
    /* An identity clip: every frame equal to its reference. Its deltas are identity only to rounding
     * (inverse(q) * q in floats leaves ~1e-8 in x, y, z), and the base goes through a product and a
     * normalization, so the result is the base within 1e-6, not bit for bit. */
    joint_pose reference[3] = {make_tilted_joint(123.0f, 0.3f, -0.8f, 0.5f, 0.0f, 0.0f, 0.9f),
                               make_tilted_joint(-17.0f, 1.0f, 1.0f, 0.0f, 0.0f, 0.3f, 0.0f),
                               make_joint(179.0f, 0.25f, 0.0f, 0.0f)};
    joint_pose delta[3];
    CHECK(pose_additive_delta(reference, reference, 3, delta));
    joint_pose base[3] = {make_tilted_joint(40.0f, 0.0f, 1.0f, 0.0f, 0.0f, 0.1f, 1.0f),
                          make_tilted_joint(-150.0f, 1.0f, -1.0f, 2.0f, 0.5f, 0.0f, 0.0f),
                          make_joint(-60.0f, 0.0f, 0.3f, 0.0f)};
    for (float weight = 0.25f; weight <= 1.0f; weight += 0.25f) {
        joint_pose out[3];
        CHECK(pose_add(base, delta, weight, NULL, 3, out));
        CHECK(pose_difference(out, base, 3) <= 1e-6f);
    }
}

static void test_additive_on_its_reference_reproduces_the_clip(void)
{
    /* Deltas of four frames from a reference, added back to that reference: the frames, within 1e-5. */
    joint_pose reference[2] = {make_tilted_joint(25.0f, 1.0f, 2.0f, 0.5f, 0.0f, 0.0f, 1.0f),
                               make_tilted_joint(-80.0f, 0.0f, 1.0f, 1.0f, 0.0f, 0.4f, 0.0f)};
    for (int f = 0; f < 4; ++f) {
        float a = 47.0f * (float)f - 60.0f;
        joint_pose frame[2] = {make_tilted_joint(a, 0.2f, 1.0f, 0.1f, 0.1f * (float)f, 0.0f, 1.0f),
                               make_tilted_joint(170.0f - a, 1.0f, 0.0f, 0.3f, 0.0f, 0.4f, -0.2f * (float)f)};
        joint_pose delta[2], out[2];
        CHECK(pose_additive_delta(reference, frame, 2, delta));
        CHECK(pose_add(reference, delta, 1.0f, NULL, 2, out));
        CHECK(pose_difference(out, frame, 2) <= 1e-5f);
    }
}

static void test_additive_weights_interpolate_continuously(void)
{
    /* Base 10 degrees about z, delta 120 degrees about z and (2, 0, 0): as the weight goes 0 -> 1 the
     * angle from the base and the offset grow monotonically, in small steps, with no jump at either end
     * (weight 1e-6 is next to the base, 1 - 1e-6 next to the whole delta). */
    joint_pose base = make_joint(10.0f, 1.0f, 0.0f, 0.0f);
    joint_pose delta = make_joint(120.0f, 2.0f, 0.0f, 0.0f);
    float previous_angle = 0.0f, previous_x = 1.0f;
    enum { STEPS = 1000 };
    for (int i = 0; i <= STEPS; ++i) {
        float weight = (float)i / STEPS;
        joint_pose out;
        CHECK(pose_add(&base, &delta, weight, NULL, 1, &out));
        float angle = 2.0f * atan2f(out.rotation[2], out.rotation[3]) * 180.0f / PI_F - 10.0f;
        CHECK(angle >= previous_angle - 1e-4f);
        CHECK(angle - previous_angle < 0.5f); /* 120 degrees over 1000 steps: nlerp's fastest is ~0.16 */
        CHECK(out.position[0] >= previous_x && out.position[0] - previous_x <= 2.0f / STEPS + 1e-5f);
        previous_angle = angle;
        previous_x = out.position[0];
    }
    CHECK_NEAR(previous_angle, 120.0f, 1e-3);
    joint_pose near_zero, near_one, one;
    CHECK(pose_add(&base, &delta, 1e-6f, NULL, 1, &near_zero));
    CHECK(pose_add(&base, &delta, 1.0f - 1e-6f, NULL, 1, &near_one));
    CHECK(pose_add(&base, &delta, 1.0f, NULL, 1, &one));
    CHECK(pose_difference(&near_zero, &base, 1) < 1e-5f);
    CHECK(pose_difference(&near_one, &one, 1) < 1e-5f);
}

static void test_additive_mask_limits_it_to_the_branch(void)
{
    /* Joint 0 outside the mask keeps the base bit for bit, joint 1 takes the whole delta, joint 2 on the
     * mask's soft edge half of it; the weight scales all of it. */
    joint_pose base[3] = {make_joint(10.0f, 1.0f, 2.0f, 3.0f), make_joint(20.0f, 0.0f, 0.0f, 0.0f),
                          make_joint(0.0f, 0.0f, 0.0f, 0.0f)};
    joint_pose delta[3] = {make_joint(80.0f, 9.0f, 9.0f, 9.0f), make_joint(-30.0f, 4.0f, 5.0f, 6.0f),
                           make_joint(60.0f, 2.0f, 0.0f, 0.0f)};
    float mask[3] = {0.0f, 1.0f, 0.5f};
    joint_pose out[3];
    CHECK(pose_add(base, delta, 1.0f, mask, 3, out));
    CHECK(memcmp(&out[0], &base[0], sizeof out[0]) == 0);
    check_rotation_about_z(&out[1], -10.0f);
    check_position(&out[1], 4.0f, 5.0f, 6.0f);
    check_rotation_about_z(&out[2], 30.0f); /* nlerp half way is exactly half the angle */
    check_position(&out[2], 1.0f, 0.0f, 0.0f);
    CHECK(pose_add(base, delta, 0.5f, mask, 3, out));
    CHECK(memcmp(&out[0], &base[0], sizeof out[0]) == 0);
    check_rotation_about_z(&out[1], 5.0f);
    check_position(&out[1], 2.0f, 2.5f, 3.0f);
    /* A delta stored with the other sign is the same rotation: half of it is still +30 degrees. */
    joint_pose flipped = delta[2];
    for (int k = 0; k < 4; ++k)
        flipped.rotation[k] = -flipped.rotation[k];
    CHECK(pose_add(&base[2], &flipped, 0.5f, NULL, 1, &out[2]));
    check_rotation_about_z(&out[2], 30.0f);
}

static void test_additive_rejects_bad_arguments(void)
{
    joint_pose a = make_joint(0.0f, 0.0f, 0.0f, 0.0f), b = a, out;
    float above[1] = {1.5f}, not_a_number[1] = {NAN};
    memset(&out, 0xAB, sizeof out);
    CHECK(!pose_add(NULL, &b, 1.0f, NULL, 1, &out));
    CHECK(!pose_add(&a, NULL, 1.0f, NULL, 1, &out));
    CHECK(!pose_add(&a, &b, 1.0f, NULL, 1, NULL));
    CHECK(!pose_add(&a, &b, 1.0f, NULL, 0, &out));
    CHECK(!pose_add(&a, &b, -0.1f, NULL, 1, &out));
    CHECK(!pose_add(&a, &b, NAN, NULL, 1, &out));
    CHECK(!pose_add(&a, &b, 1.0f, above, 1, &out));
    CHECK(!pose_add(&a, &b, 1.0f, not_a_number, 1, &out));
    CHECK(untouched(&out, 0xAB));
}


/* ---- local to object ---- */

/* A 3-joint chain: the root at (1, 0, 0) turned 90 degrees about z; each child one unit along its
 * parent's x axis, the middle one turned another 90 degrees. */
static void make_chain(joint_pose local[3], int parents[3])
{
    local[0] = make_joint(90.0f, 1.0f, 0.0f, 0.0f);
    local[1] = make_joint(90.0f, 1.0f, 0.0f, 0.0f);
    local[2] = make_joint(0.0f, 1.0f, 0.0f, 0.0f);
    parents[0] = -1;
    parents[1] = 0;
    parents[2] = 1;
}

static void test_to_object_chain(void)
{
    joint_pose local[3], object[3];
    int parents[3];
    make_chain(local, parents);
    CHECK(pose_to_object(parents, 3, local, object));
    /* Root as it is. Joint 1: (1,0,0) + rotate 90 (1,0,0) = (1,1,0), turned 180. Joint 2:
     * (1,1,0) + rotate 180 (1,0,0) = (0,1,0), turned 180. */
    check_rotation_about_z(&object[0], 90.0f);
    check_position(&object[0], 1.0f, 0.0f, 0.0f);
    check_rotation_about_z(&object[1], 180.0f);
    check_position(&object[1], 1.0f, 1.0f, 0.0f);
    check_rotation_about_z(&object[2], 180.0f);
    check_position(&object[2], 0.0f, 1.0f, 0.0f);

    /* In place gives the same result. */
    CHECK(pose_to_object(parents, 3, local, local));
    for (int j = 0; j < 3; ++j)
        CHECK(memcmp(&local[j], &object[j], sizeof local[j]) == 0);
}

static void test_to_object_general_rotation(void)
{
    /* A parent turned 90 degrees about x carries its child's offset (0, 1, 0) to (0, 0, 1). */
    joint_pose local[2];
    memset(local, 0, sizeof local);
    float s = sinf(PI_F / 4.0f);
    local[0].rotation[0] = s;
    local[0].rotation[3] = s;
    local[0].position[2] = 5.0f;
    local[1] = make_joint(0.0f, 0.0f, 1.0f, 0.0f);
    int parents[2] = {-1, 0};
    joint_pose object[2];
    CHECK(pose_to_object(parents, 2, local, object));
    check_position(&object[1], 0.0f, 0.0f, 6.0f);
    for (int k = 0; k < 4; ++k)
        CHECK_NEAR(object[1].rotation[k], local[0].rotation[k], 1e-6);
}

/* An arbitrary-looking unit rotation (oblique axis, odd angle), so no component of a formula is
 * multiplied by zero as it is in the about-z cases. */
static void oblique_rotation(float seed, float out[4])
{
    vec3 axis = {sinf(seed * 1.3f) + 0.2f, cosf(seed * 0.7f), 0.5f + 0.4f * sinf(seed)};
    glm_quatv(out, 0.4f + seed, axis);
}

static void test_to_object_matches_cglm(void)
{
    /* A branching tree (siblings, a parent two and three places back, a second root) of oblique
     * rotations and offsets, against glm_quat_mul and glm_quat_rotatev joint by joint. */
    enum { TREE = 8 };
    const int parents[TREE] = {-1, 0, 0, 1, 2, -1, 5, 3};
    joint_pose local[TREE], object[TREE];
    for (int j = 0; j < TREE; ++j) {
        memset(&local[j], 0, sizeof local[j]);
        oblique_rotation((float)j + 0.5f, local[j].rotation);
        local[j].position[0] = 0.3f + (float)j;
        local[j].position[1] = -1.7f * (float)j + 0.4f;
        local[j].position[2] = 2.1f - 0.5f * (float)j;
    }
    CHECK(pose_to_object(parents, TREE, local, object));
    versor expected_rotation[TREE];
    vec3 expected_position[TREE];
    for (int j = 0; j < TREE; ++j) {
        int p = parents[j];
        if (p < 0) {
            glm_vec4_copy(local[j].rotation, expected_rotation[j]);
            glm_vec3_copy(local[j].position, expected_position[j]);
        } else {
            vec3 offset;
            glm_quat_rotatev(expected_rotation[p], local[j].position, offset);
            glm_vec3_add(expected_position[p], offset, expected_position[j]);
            glm_quat_mul(expected_rotation[p], local[j].rotation, expected_rotation[j]);
        }
        for (int k = 0; k < 4; ++k)
            CHECK_NEAR(object[j].rotation[k], expected_rotation[j][k], 1e-5);
        check_position(&object[j], expected_position[j][0], expected_position[j][1], expected_position[j][2]);
        CHECK(object[j].unused == 0.0f);
    }
}

static void test_to_object_several_roots_and_long_chain(void)
{
    /* Roots anywhere in the list; a 64-joint chain of 5.625 degree turns ends 360 degrees round,
     * unit length despite 63 products. */
    enum { CHAIN = 64 };
    joint_pose local[CHAIN], object[CHAIN];
    int parents[CHAIN];
    for (int j = 0; j < CHAIN; ++j) {
        local[j] = make_joint(360.0f / CHAIN, 1.0f, 0.0f, 0.0f);
        parents[j] = j - 1;
    }
    parents[10] = -1;
    CHECK(pose_to_object(parents, CHAIN, local, object));
    check_position(&object[10], 1.0f, 0.0f, 0.0f);
    check_rotation_about_z(&object[10], 360.0f / CHAIN);
    float last_degrees = 360.0f / CHAIN * (float)(CHAIN - 10);
    check_rotation_about_z(&object[CHAIN - 1], last_degrees);
    const float *q = object[CHAIN - 1].rotation;
    CHECK_NEAR(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3], 1.0, 1e-6);
}

static void test_to_object_large_skeleton_same_bits(void)
{
    /* Skeletons of up to 256 joints are walked once, larger ones in two passes (pose_object.c): both must give
     * the same bits. A joint depends only on those before it, so the first 200 joints of a 300-joint
     * branching tree are also a 200-joint skeleton of their own. */
    enum { BIG = 300, SMALL = 200 };
    static joint_pose local[BIG], big[BIG], small[SMALL];
    int parents[BIG];
    for (int j = 0; j < BIG; ++j) {
        memset(&local[j], 0, sizeof local[j]);
        oblique_rotation(0.37f * (float)j, local[j].rotation);
        local[j].position[0] = 0.1f + 0.01f * (float)j;
        local[j].position[1] = 0.2f - 0.003f * (float)j;
        local[j].position[2] = 0.05f * (float)(j % 7);
        /* the previous joint, a sibling's parent further back, or a new root */
        parents[j] = j == 0 || j % 97 == 0 ? -1 : j % 3 == 0 ? j / 2 : j - 1;
    }
    CHECK(pose_to_object(parents, BIG, local, big));
    CHECK(pose_to_object(parents, SMALL, local, small));
    CHECK(memcmp(big, small, sizeof small) == 0);
    /* and in place */
    static joint_pose in_place[BIG];
    memcpy(in_place, local, sizeof local);
    CHECK(pose_to_object(parents, BIG, in_place, in_place));
    CHECK(memcmp(in_place, big, sizeof big) == 0);
    memcpy(in_place, local, sizeof local);
    CHECK(pose_to_object(parents, SMALL, in_place, in_place));
    CHECK(memcmp(in_place, small, sizeof small) == 0);
}

static void test_to_object_rejects_bad_hierarchy(void)
{
    joint_pose local[3], object[3];
    int parents[3];
    make_chain(local, parents);
    memset(object, 0xAB, sizeof object);
    int forward[3] = {-1, 2, 1};
    int self[3] = {-1, 1, 1};
    int below[3] = {-1, 0, -2};
    CHECK(!pose_to_object(forward, 3, local, object));
    CHECK(!pose_to_object(self, 3, local, object));
    CHECK(!pose_to_object(below, 3, local, object));
    CHECK(!pose_to_object(NULL, 3, local, object));
    CHECK(!pose_to_object(parents, 0, local, object));
    CHECK(!pose_to_object(parents, 3, NULL, object));
    CHECK(!pose_to_object(parents, 3, local, NULL));
    for (int j = 0; j < 3; ++j)
        CHECK(untouched(&object[j], 0xAB));
}

/* ---- palette ---- */

/* Inverse bind matrices of an object-space pose, computed with cglm independently of pose_palette. */
static void inverse_bind_of(const joint_pose *object, int joint_count, mat4 *inverse_bind)
{
    for (int j = 0; j < joint_count; ++j) {
        versor q = {object[j].rotation[0], object[j].rotation[1], object[j].rotation[2], object[j].rotation[3]};
        mat4 m;
        glm_quat_mat4(q, m);
        m[3][0] = object[j].position[0];
        m[3][1] = object[j].position[1];
        m[3][2] = object[j].position[2];
        glm_mat4_inv(m, inverse_bind[j]);
    }
}

static void test_palette_of_bind_pose_is_identity(void)
{
    joint_pose local[3], bind[3];
    int parents[3];
    make_chain(local, parents);
    CHECK(pose_to_object(parents, 3, local, bind));
    mat4 inverse_bind[3], palette[3];
    inverse_bind_of(bind, 3, inverse_bind);
    CHECK(pose_palette(bind, (const mat4 *)inverse_bind, 3, palette));
    for (int j = 0; j < 3; ++j)
        for (int c = 0; c < 4; ++c)
            for (int r = 0; r < 4; ++r)
                CHECK_NEAR(palette[j][c][r], c == r ? 1.0 : 0.0, 1e-5);
}

static void test_palette_moves_bind_points_with_their_joint(void)
{
    /* Bind: the chain. Posed: the middle joint turned 90 degrees more. A point one unit along joint 2's
     * x axis sits at bind (-1, 1, 0); posed, joint 2 is at (1, 1, 0) + rotate 270 (1, 0, 0) = (1, 0, 0)
     * turned 270, so the point is at (1, -1, 0). */
    joint_pose local[3], bind[3], posed[3];
    int parents[3];
    make_chain(local, parents);
    CHECK(pose_to_object(parents, 3, local, bind));
    local[1] = make_joint(180.0f, 1.0f, 0.0f, 0.0f);
    CHECK(pose_to_object(parents, 3, local, posed));
    mat4 inverse_bind[3], palette[3];
    inverse_bind_of(bind, 3, inverse_bind);
    CHECK(pose_palette(posed, (const mat4 *)inverse_bind, 3, palette));
    vec4 point = {-1.0f, 1.0f, 0.0f, 1.0f}, moved;
    glm_mat4_mulv(palette[2], point, moved);
    CHECK_NEAR(moved[0], 1.0, 1e-5);
    CHECK_NEAR(moved[1], -1.0, 1e-5);
    CHECK_NEAR(moved[2], 0.0, 1e-5);
    CHECK_NEAR(moved[3], 1.0, 1e-6);
    /* Joint 0 did not move: its palette entry is still identity. */
    for (int c = 0; c < 4; ++c)
        for (int r = 0; r < 4; ++r)
            CHECK_NEAR(palette[0][c][r], c == r ? 1.0 : 0.0, 1e-5);
}

static void test_palette_matches_cglm(void)
{
    /* matrix(object) * inverse_bind against glm_quat_mat4 and glm_mat4_mul, with an inverse bind that is
     * a general rigid transform. */
    joint_pose object[2];
    mat4 inverse_bind[2], palette[2];
    for (int j = 0; j < 2; ++j) {
        memset(&object[j], 0, sizeof object[j]);
        oblique_rotation(1.1f + (float)j, object[j].rotation);
        object[j].position[0] = 1.5f;
        object[j].position[1] = -2.0f + (float)j;
        object[j].position[2] = 0.25f;
        versor bind_rotation;
        oblique_rotation(2.9f - (float)j, bind_rotation);
        glm_quat_mat4(bind_rotation, inverse_bind[j]);
        inverse_bind[j][3][0] = 0.7f;
        inverse_bind[j][3][1] = -3.0f;
        inverse_bind[j][3][2] = 1.0f + (float)j;
    }
    CHECK(pose_palette(object, (const mat4 *)inverse_bind, 2, palette));
    for (int j = 0; j < 2; ++j) {
        mat4 joint, expected;
        glm_quat_mat4(object[j].rotation, joint);
        joint[3][0] = object[j].position[0];
        joint[3][1] = object[j].position[1];
        joint[3][2] = object[j].position[2];
        glm_mat4_mul(joint, inverse_bind[j], expected);
        for (int c = 0; c < 4; ++c)
            for (int r = 0; r < 4; ++r)
                CHECK_NEAR(palette[j][c][r], expected[c][r], 1e-5);
    }
}

/* pose_dual_quaternion_palette (its SSE2 and scalar kernels: this file also builds as test_pose_scalar)
 * against the dual quaternion of pose_palette's matrix, joint for joint, up to the sign (q and -q are one
 * motion): object poses and bind poses at oblique rotations. */
static void test_dual_quaternion_palette_matches_the_matrix(void)
{
    joint_pose object[3], bind[3];
    mat4 inverse_bind[3], palette[3];
    pose_dual_quaternion dual_quaternions[3];
    for (int j = 0; j < 3; ++j) {
        memset(&object[j], 0, sizeof object[j]);
        memset(&bind[j], 0, sizeof bind[j]);
        oblique_rotation(0.7f + 1.3f * (float)j, object[j].rotation);
        oblique_rotation(2.9f - (float)j, bind[j].rotation);
        for (int k = 0; k < 3; ++k) {
            object[j].position[k] = 0.5f * (float)(k + 1) - (float)j;
            bind[j].position[k] = 0.25f * (float)(j - k) + 0.1f;
        }
        glm_quat_mat4(bind[j].rotation, inverse_bind[j]);
        glm_vec3_copy(bind[j].position, inverse_bind[j][3]);
        glm_inv_tr(inverse_bind[j]);
    }
    CHECK(pose_palette(object, (const mat4 *)inverse_bind, 3, palette));
    CHECK(pose_dual_quaternion_palette(object, bind, 3, dual_quaternions));
    for (int j = 0; j < 3; ++j) {
        pose_dual_quaternion expected;
        pose_dual_quaternion_from_matrix((const vec4 *)palette[j], &expected);
        float sign = glm_vec4_dot(expected.real, dual_quaternions[j].real) < 0.0f ? -1.0f : 1.0f;
        for (int c = 0; c < 4; ++c) {
            CHECK_NEAR(dual_quaternions[j].real[c], sign * expected.real[c], 1e-5);
            CHECK_NEAR(dual_quaternions[j].dual[c], sign * expected.dual[c], 1e-5);
        }
    }
    CHECK(!pose_dual_quaternion_palette(object, NULL, 3, dual_quaternions));
    CHECK(!pose_dual_quaternion_palette(object, bind, 0, dual_quaternions));
}

static void test_palette_rejects_bad_arguments(void)
{
    joint_pose object = make_joint(0.0f, 0.0f, 0.0f, 0.0f);
    mat4 inverse_bind[1], palette[1];
    glm_mat4_identity(inverse_bind[0]);
    memset(palette, 0xAB, sizeof palette);
    CHECK(!pose_palette(NULL, (const mat4 *)inverse_bind, 1, palette));
    CHECK(!pose_palette(&object, NULL, 1, palette));
    CHECK(!pose_palette(&object, (const mat4 *)inverse_bind, 0, palette));
    CHECK(!pose_palette(&object, (const mat4 *)inverse_bind, 1, NULL));
    const unsigned char *bytes = (const unsigned char *)palette;
    bool all_fill = true;
    for (size_t i = 0; i < sizeof palette; ++i)
        all_fill = all_fill && bytes[i] == 0xAB;
    CHECK(all_fill);
}

/* ---- CPU skinning ---- */

enum { TEST_VERTICES = 3 };

typedef struct test_mesh {
    skin_mesh mesh;
    float positions[TEST_VERTICES][3];
    float normals[TEST_VERTICES][3];
    uint16_t joints[TEST_VERTICES][SKIN_MAX_INFLUENCES];
    float weights[TEST_VERTICES][SKIN_MAX_INFLUENCES];
} test_mesh;

/* Vertex 0 on joint 0 only, vertex 1 on joint 1 only, vertex 2 half and half. */
static void make_mesh(test_mesh *t)
{
    memset(t, 0, sizeof *t);
    const float positions[TEST_VERTICES][3] = {{1.0f, 0.0f, 0.0f}, {0.0f, 2.0f, 1.0f}, {1.0f, 0.0f, 0.0f}};
    const float normals[TEST_VERTICES][3] = {{1.0f, 0.0f, 0.0f}, {0.0f, 0.6f, 0.8f}, {1.0f, 0.0f, 0.0f}};
    memcpy(t->positions, positions, sizeof positions);
    memcpy(t->normals, normals, sizeof normals);
    t->joints[1][0] = 1;
    t->joints[2][0] = 0;
    t->joints[2][1] = 1;
    t->weights[0][0] = 1.0f;
    t->weights[1][0] = 1.0f;
    t->weights[2][0] = 0.5f;
    t->weights[2][1] = 0.5f;
    t->mesh.vertex_count = TEST_VERTICES;
    t->mesh.positions = t->positions;
    t->mesh.normals = t->normals;
    t->mesh.joints = t->joints;
    t->mesh.weights = t->weights;
}

static void test_skin_identity_palette_reproduces_bind(void)
{
    test_mesh t;
    make_mesh(&t);
    mat4 palette[2];
    glm_mat4_identity(palette[0]);
    glm_mat4_identity(palette[1]);
    float positions[TEST_VERTICES][3], normals[TEST_VERTICES][3];
    CHECK(pose_skin_cpu(&t.mesh, (const mat4 *)palette, 2, positions, normals));
    for (int v = 0; v < TEST_VERTICES; ++v)
        for (int k = 0; k < 3; ++k) {
            CHECK_NEAR(positions[v][k], t.positions[v][k], 1e-6);
            CHECK_NEAR(normals[v][k], t.normals[v][k], 1e-6);
        }
}

/* Joint 0 stays; joint 1 turns 90 degrees about z around the origin and moves up 1 in z. */
static void rotated_joint_palette(mat4 palette[2])
{
    glm_mat4_identity(palette[0]);
    glm_rotate_make(palette[1], PI_F / 2.0f, (vec3){0.0f, 0.0f, 1.0f});
    palette[1][3][2] = 1.0f;
}

static void test_skin_rotated_joint(void)
{
    test_mesh t;
    make_mesh(&t);
    mat4 palette[2];
    rotated_joint_palette(palette);
    float positions[TEST_VERTICES][3], normals[TEST_VERTICES][3];
    CHECK(pose_skin_cpu(&t.mesh, (const mat4 *)palette, 2, positions, normals));
    /* Vertex 0 on the still joint. */
    CHECK_NEAR(positions[0][0], 1.0, 1e-6);
    CHECK_NEAR(positions[0][1], 0.0, 1e-6);
    /* Vertex 1: (0, 2, 1) turned to (-2, 0, 1), moved to (-2, 0, 2); normal (0, .6, .8) to (-.6, 0, .8). */
    CHECK_NEAR(positions[1][0], -2.0, 1e-5);
    CHECK_NEAR(positions[1][1], 0.0, 1e-5);
    CHECK_NEAR(positions[1][2], 2.0, 1e-5);
    CHECK_NEAR(normals[1][0], -0.6, 1e-5);
    CHECK_NEAR(normals[1][1], 0.0, 1e-5);
    CHECK_NEAR(normals[1][2], 0.8, 1e-5);
    /* Vertex 2: half of (1, 0, 0) and half of (0, 1, 1): (0.5, 0.5, 0.5); its normal half (1, 0, 0)
     * and half (0, 1, 0), renormalized to unit length. */
    CHECK_NEAR(positions[2][0], 0.5, 1e-5);
    CHECK_NEAR(positions[2][1], 0.5, 1e-5);
    CHECK_NEAR(positions[2][2], 0.5, 1e-5);
    CHECK_NEAR(normals[2][0], 0.70710678, 1e-5);
    CHECK_NEAR(normals[2][1], 0.70710678, 1e-5);
    CHECK_NEAR(normals[2][2], 0.0, 1e-5);
    for (int v = 0; v < TEST_VERTICES; ++v)
        CHECK_NEAR(normals[v][0] * normals[v][0] + normals[v][1] * normals[v][1] + normals[v][2] * normals[v][2],
                   1.0, 1e-5);
}

static void test_whole_frame_moves_a_vertex(void)
{
    /* sample -> blend -> to_object -> palette -> skin on the 3-joint chain: a vertex bound to joint 2
     * follows the blended pose. Clip A holds the bind pose, clip B turns joint 1 by a further 90 degrees;
     * blended 0.5 / 0.5, joint 1 turns 45 degrees more than bind. */
    joint_pose local[3], bind[3];
    int parents[3];
    make_chain(local, parents);
    CHECK(pose_to_object(parents, 3, local, bind));
    mat4 inverse_bind[3];
    inverse_bind_of(bind, 3, inverse_bind);

    test_clip a, b;
    init_clip(&a, 3, 1, 30.0f, false);
    init_clip(&b, 3, 1, 30.0f, false);
    memcpy(a.frames, local, sizeof local);
    memcpy(b.frames, local, sizeof local);
    b.frames[1] = make_joint(180.0f, 1.0f, 0.0f, 0.0f);

    joint_pose sampled_a[3], sampled_b[3], blended[3], object[3];
    CHECK(pose_sample(&a.clip, 0.0f, true, sampled_a));
    CHECK(pose_sample(&b.clip, 0.0f, true, sampled_b));
    const joint_pose *layers[2] = {sampled_a, sampled_b};
    float weights[2] = {0.5f, 0.5f};
    CHECK(pose_blend(layers, weights, 2, 3, blended));
    CHECK(pose_to_object(parents, 3, blended, object));
    mat4 palette[3];
    CHECK(pose_palette(object, (const mat4 *)inverse_bind, 3, palette));

    /* Joint 2 now sits at (1, 1, 0) + rotate 225 (1, 0, 0), turned 225 degrees. The vertex one unit along
     * its x axis (bind (-1, 1, 0)) is at joint 2 + 2 * (cos 225, sin 225, 0). */
    test_mesh t;
    make_mesh(&t);
    t.mesh.vertex_count = 1;
    t.positions[0][0] = -1.0f;
    t.positions[0][1] = 1.0f;
    t.joints[0][0] = 2;
    float positions[1][3], normals[1][3];
    CHECK(pose_skin_cpu(&t.mesh, (const mat4 *)palette, 3, positions, normals));
    float c = cosf(225.0f * PI_F / 180.0f), s = sinf(225.0f * PI_F / 180.0f);
    CHECK_NEAR(positions[0][0], 1.0f + 2.0f * c, 1e-5);
    CHECK_NEAR(positions[0][1], 1.0f + 2.0f * s, 1e-5);
    CHECK_NEAR(positions[0][2], 0.0, 1e-5);
    /* Bind normal (1, 0, 0) is along joint 2's -x axis (joint 2 is turned 180 at bind); now turned 45 more. */
    CHECK_NEAR(normals[0][0], cosf(45.0f * PI_F / 180.0f), 1e-5);
    CHECK_NEAR(normals[0][1], sinf(45.0f * PI_F / 180.0f), 1e-5);
}

/* Bounds are interpolated like the pose (wrapping at the loop, holding at the end of a one-shot), and one
 * sampled joint is exactly that joint of the whole sample. */
static void test_sample_bounds_and_one_joint(void)
{
    test_clip t;
    make_turning_clip(&t);
    float bounds[4][2][3];
    for (int f = 0; f < 4; ++f)
        for (int k = 0; k < 3; ++k) {
            bounds[f][0][k] = -(float)f - 1.0f;
            bounds[f][1][k] = 2.0f * (float)f + 1.0f;
        }
    t.clip.bounds = bounds;
    float box[2][3];
    CHECK(pose_sample_bounds(&t.clip, 0.1f, true, box));
    CHECK(box[0][0] == -2.0f && box[1][2] == 3.0f);
    CHECK(pose_sample_bounds(&t.clip, 0.15f, false, box)); /* halfway from frame 1 to frame 2 */
    CHECK_NEAR(box[0][1], -2.5, 1e-6);
    CHECK_NEAR(box[1][1], 4.0, 1e-6);
    CHECK(pose_sample_bounds(&t.clip, 0.35f, true, box)); /* looping: halfway from frame 3 back to frame 0 */
    CHECK_NEAR(box[0][0], -2.5, 1e-6);
    CHECK_NEAR(box[1][0], 4.0, 1e-6);
    CHECK(pose_sample_bounds(&t.clip, 9.0f, false, box)); /* one-shot: holds the last frame */
    CHECK(box[0][0] == -4.0f && box[1][0] == 7.0f);
    t.clip.bounds = NULL;
    CHECK(!pose_sample_bounds(&t.clip, 0.1f, true, box));

    test_clip chain;
    init_clip(&chain, 3, 3, 24.0f, false);
    for (int i = 0; i < 9; ++i) {
        versor q;
        glm_quatv(q, 0.3f * (float)i, (vec3){0.0f, 0.6f, 0.8f});
        glm_vec4_copy(q, chain.frames[i].rotation);
        chain.frames[i].position[0] = (float)i;
    }
    const float times[] = {0.0f, 0.01f, 0.05f, 0.1f, 0.2f, -0.3f};
    for (size_t n = 0; n < sizeof times / sizeof times[0]; ++n)
        for (int loop = 0; loop < 2; ++loop) {
            joint_pose all[3], one;
            CHECK(pose_sample(&chain.clip, times[n], loop, all));
            for (int j = 0; j < 3; ++j) {
                CHECK(pose_sample_joint(&chain.clip, times[n], loop, j, &one));
                CHECK(memcmp(&one, &all[j], sizeof one) == 0);
            }
        }
    joint_pose one;
    CHECK(!pose_sample_joint(&chain.clip, 0.0f, true, 3, &one));
    CHECK(!pose_sample_joint(&chain.clip, 0.0f, true, -1, &one));
}

static void test_skin_rejects_bad_arguments(void)
{
    test_mesh t;
    make_mesh(&t);
    mat4 palette[2];
    glm_mat4_identity(palette[0]);
    glm_mat4_identity(palette[1]);
    float positions[TEST_VERTICES][3], normals[TEST_VERTICES][3];
    memset(positions, 0xAB, sizeof positions);
    /* Vertex 1 uses joint 1: a one-matrix palette is too short. */
    CHECK(!pose_skin_cpu(&t.mesh, (const mat4 *)palette, 1, positions, normals));
    CHECK(!pose_skin_cpu(NULL, (const mat4 *)palette, 2, positions, normals));
    CHECK(!pose_skin_cpu(&t.mesh, NULL, 2, positions, normals));
    CHECK(!pose_skin_cpu(&t.mesh, (const mat4 *)palette, 2, NULL, normals));
    CHECK(!pose_skin_cpu(&t.mesh, (const mat4 *)palette, 2, positions, NULL));
    CHECK(!pose_skin_cpu(&t.mesh, (const mat4 *)palette, 0, positions, normals));
    skin_mesh no_weights = t.mesh;
    no_weights.weights = NULL;
    CHECK(!pose_skin_cpu(&no_weights, (const mat4 *)palette, 2, positions, normals));
    const unsigned char *bytes = (const unsigned char *)positions;
    bool all_fill = true;
    for (size_t i = 0; i < sizeof positions; ++i)
        all_fill = all_fill && bytes[i] == 0xAB;
    CHECK(all_fill);
    /* An unused slot may name any joint: weight 0 means it is never read. */
    t.joints[0][3] = 999;
    CHECK(pose_skin_cpu(&t.mesh, (const mat4 *)palette, 2, positions, normals));
}

/* The skinned mesh's box: exactly the extent of pose_skin_cpu's positions (the rotated joint's vertex 1 at
 * (-2, 0, 2), the blended vertex 2 at (0.5, 0.5, 0.5)); misuse refused with out untouched. */
static void test_skinned_bounds(void)
{
    test_mesh t;
    make_mesh(&t);
    mat4 palette[2];
    rotated_joint_palette(palette);
    float box[2][3];
    CHECK(pose_skinned_bounds(&t.mesh, 1, (const mat4 *)palette, 2, box));
    static const float expected[2][3] = {{-2.0f, 0.0f, 0.0f}, {1.0f, 0.5f, 2.0f}};
    for (int c = 0; c < 2; ++c)
        for (int k = 0; k < 3; ++k)
            CHECK_NEAR(box[c][k], expected[c][k], 1e-5);
    float untouched[2][3] = {{7.0f, 7.0f, 7.0f}, {7.0f, 7.0f, 7.0f}};
    CHECK(!pose_skinned_bounds(&t.mesh, 1, (const mat4 *)palette, 1, untouched)); /* vertex 1 uses joint 1 */
    CHECK(!pose_skinned_bounds(NULL, 1, (const mat4 *)palette, 2, untouched));
    CHECK(!pose_skinned_bounds(&t.mesh, 1, NULL, 2, untouched));
    CHECK(!pose_skinned_bounds(&t.mesh, 0, (const mat4 *)palette, 2, untouched)); /* no vertices */
    CHECK(untouched[0][0] == 7.0f && untouched[1][2] == 7.0f);
}

int main(void)
{
    RUN(test_sample_exact_frames_and_midpoints);
    RUN(test_sample_wraps_tutorial_convention);
    RUN(test_sample_wraps_doom3_convention);
    RUN(test_sample_two_frame_doom3_clip_is_still);
    RUN(test_sample_negative_times_wrap);
    RUN(test_sample_once_clamps);
    RUN(test_sample_single_frame_clip);
    RUN(test_sample_shortest_arc_and_joints);
    RUN(test_sample_rejects_bad_arguments);
    RUN(test_blend_single_weights_reproduce_inputs);
    RUN(test_blend_half_and_half);
    RUN(test_blend_sign_flipped_input);
    RUN(test_blend_three_poses_in_place);
    RUN(test_blend_cancelling_poses_give_identity);
    RUN(test_blend_does_not_read_zero_weight_poses);
    RUN(test_blend_rejects_bad_arguments);
    RUN(test_blend_masked_weights_per_joint);
    RUN(test_blend_masked_shortest_arc_in_place);
    RUN(test_blend_masked_rejects_bad_arguments);
    RUN(test_additive_delta_by_hand);
    RUN(test_additive_weight_zero_is_bit_exact);
    RUN(test_additive_identity_changes_nothing);
    RUN(test_additive_on_its_reference_reproduces_the_clip);
    RUN(test_additive_weights_interpolate_continuously);
    RUN(test_additive_mask_limits_it_to_the_branch);
    RUN(test_additive_rejects_bad_arguments);
    RUN(test_to_object_chain);
    RUN(test_to_object_general_rotation);
    RUN(test_to_object_matches_cglm);
    RUN(test_to_object_several_roots_and_long_chain);
    RUN(test_to_object_large_skeleton_same_bits);
    RUN(test_to_object_rejects_bad_hierarchy);
    RUN(test_palette_of_bind_pose_is_identity);
    RUN(test_palette_moves_bind_points_with_their_joint);
    RUN(test_palette_matches_cglm);
    RUN(test_palette_rejects_bad_arguments);
    RUN(test_dual_quaternion_palette_matches_the_matrix);
    RUN(test_skin_identity_palette_reproduces_bind);
    RUN(test_skin_rotated_joint);
    RUN(test_whole_frame_moves_a_vertex);
    RUN(test_skin_rejects_bad_arguments);
    RUN(test_skinned_bounds);
    RUN(test_sample_bounds_and_one_joint);
    return check_report();
}
