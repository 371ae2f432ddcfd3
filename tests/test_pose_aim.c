/* pose_aim: the look-at chain. A small upper body in canonical axes (Z up, facing +X): root, hips, two
 * spine joints, neck, head and a nose above it, an arm on the chest and a leg on the hips, posed with a
 * slight stoop and a head turned a little, as an idle would. */
#include <math.h>
#include <string.h>

#include <cglm/cglm.h>

#include "check.h"
#include "heap_counter.h"
#include "pose/pose.h"
#include "pose/pose_aim.h"
#include "pose_checks.h"

enum { ROOT, HIPS, SPINE, CHEST, NECK, HEAD, NOSE, ARM, HAND, LEG, BODY_JOINTS };

static const int body_parents[BODY_JOINTS] = {-1, ROOT, HIPS, SPINE, CHEST, NECK, HEAD, CHEST, ARM, HIPS};
static const float up[3] = {0.0f, 0.0f, 1.0f};
#define DEGREES (GLM_PIf / 180.0f)

static void set_turn(joint_pose *joint, float radians, float x, float y, float z)
{
    float s = sinf(0.5f * radians);
    joint->rotation[0] = x * s;
    joint->rotation[1] = y * s;
    joint->rotation[2] = z * s;
    joint->rotation[3] = cosf(0.5f * radians);
}

static void make_body(joint_pose object[BODY_JOINTS])
{
    joint_pose local[BODY_JOINTS];
    memset(local, 0, sizeof local);
    for (int j = 0; j < BODY_JOINTS; ++j)
        local[j].rotation[3] = 1.0f;
    local[HIPS].position[2] = 0.95f;
    local[SPINE].position[2] = 0.15f;
    set_turn(&local[SPINE], 6.0f * DEGREES, 0.0f, 1.0f, 0.0f); /* a stoop: +Y turns forward down */
    local[CHEST].position[2] = 0.2f;
    local[NECK].position[2] = 0.25f;
    local[HEAD].position[2] = 0.1f;
    set_turn(&local[HEAD], 10.0f * DEGREES, 0.0f, 0.0f, 1.0f); /* looking a little left */
    local[NOSE].position[0] = 0.1f;
    local[NOSE].position[2] = 0.08f;
    local[ARM].position[1] = 0.2f;
    set_turn(&local[ARM], 70.0f * DEGREES, 1.0f, 0.0f, 0.0f);
    local[HAND].position[1] = 0.5f;
    local[LEG].position[1] = 0.1f;
    local[LEG].position[2] = -0.1f;
    CHECK(pose_to_object(body_parents, BODY_JOINTS, local, object));
}

/* Head, neck, chest, spine: head 40%, neck 30%, chest 20%, spine 10%; limits the totals times the shares. */
static pose_aim_chain make_chain(float total_yaw_degrees, float total_pitch_degrees)
{
    pose_aim_chain chain = {.joint_count = 4, .joints = {HEAD, NECK, CHEST, SPINE}, .shares = {0.4f, 0.3f, 0.2f, 0.1f},
                            .forward = {1.0f, 0.0f, 0.0f}, .up = {0.0f, 0.0f, 1.0f}};
    for (int k = 0; k < chain.joint_count; ++k) {
        chain.yaw_limits[k] = chain.shares[k] * total_yaw_degrees * DEGREES;
        chain.pitch_limits[k] = chain.shares[k] * total_pitch_degrees * DEGREES;
    }
    return chain;
}

static void head_forward(const pose_aim_chain *chain, const joint_pose *object, vec3 out)
{
    glm_quat_rotatev((float *)object[HEAD].rotation, (float *)chain->forward, out);
}

/* Degrees between the head's forward and the line from the head to target. */
static double miss_degrees(const pose_aim_chain *chain, const joint_pose *object, const float target[3])
{
    vec3 forward, to_target;
    head_forward(chain, object, forward);
    glm_vec3_sub((float *)target, (float *)object[HEAD].position, to_target);
    glm_vec3_normalize(to_target);
    return acos(fmin(1.0, fmax(-1.0, (double)glm_vec3_dot(forward, to_target)))) / DEGREES;
}

static double distance3(const float a[3], const float b[3])
{
    return sqrt((double)(a[0] - b[0]) * (a[0] - b[0]) + (double)(a[1] - b[1]) * (a[1] - b[1]) +
                (double)(a[2] - b[2]) * (a[2] - b[2]));
}

/* A target within the limits is met: in front and to the side, up, down, near and far. */
static void test_reachable_targets_are_faced(void)
{
    const float offsets[][3] = {{2.0f, 1.0f, 0.3f}, {1.0f, -1.2f, -0.4f}, {0.6f, 0.5f, 0.2f},
                                {10.0f, 3.0f, -2.0f}, {0.3f, 0.25f, 0.0f}, {3.0f, 0.0f, 0.0f}};
    for (size_t t = 0; t < sizeof offsets / sizeof offsets[0]; ++t) {
        joint_pose object[BODY_JOINTS];
        make_body(object);
        pose_aim_chain chain = make_chain(120.0f, 60.0f);
        float target[3];
        for (int k = 0; k < 3; ++k)
            target[k] = object[HEAD].position[k] + offsets[t][k];
        CHECK(pose_aim(body_parents, BODY_JOINTS, &chain, target, 1.0f, object));
        CHECK(pose_finite(object, BODY_JOINTS));
        CHECK(miss_degrees(&chain, object, target) < 0.05);
    }
}

/* The joints below the chain's lowest one move as a rigid body with the joint they hang from; those outside
 * its branch not at all. */
static void test_the_branch_turns_rigidly(void)
{
    joint_pose before[BODY_JOINTS], object[BODY_JOINTS];
    make_body(before);
    memcpy(object, before, sizeof object);
    pose_aim_chain chain = make_chain(120.0f, 60.0f);
    float target[3] = {before[HEAD].position[0] + 1.0f, before[HEAD].position[1] - 1.0f, before[HEAD].position[2]};
    CHECK(pose_aim(body_parents, BODY_JOINTS, &chain, target, 1.0f, object));
    CHECK(memcmp(&object[ROOT], &before[ROOT], sizeof object[ROOT]) == 0);
    CHECK(memcmp(&object[HIPS], &before[HIPS], sizeof object[HIPS]) == 0);
    CHECK(memcmp(&object[LEG], &before[LEG], sizeof object[LEG]) == 0);
    CHECK(distance3(object[SPINE].position, before[SPINE].position) < 1e-6);
    CHECK_NEAR(distance3(object[HAND].position, object[ARM].position),
               distance3(before[HAND].position, before[ARM].position), 1e-5);
    CHECK_NEAR(distance3(object[ARM].position, object[CHEST].position),
               distance3(before[ARM].position, before[CHEST].position), 1e-5);
    CHECK_NEAR(distance3(object[NOSE].position, object[HEAD].position),
               distance3(before[NOSE].position, before[HEAD].position), 1e-5);
    /* The arm keeps its place on the chest: its offset in the chest's frame is unchanged. */
    vec3 offset_before, offset_after;
    versor inverse;
    glm_vec3_sub(before[ARM].position, before[CHEST].position, offset_before);
    glm_quat_inv(before[CHEST].rotation, inverse);
    glm_quat_rotatev(inverse, offset_before, offset_before);
    glm_vec3_sub(object[ARM].position, object[CHEST].position, offset_after);
    glm_quat_inv(object[CHEST].rotation, inverse);
    glm_quat_rotatev(inverse, offset_after, offset_after);
    for (int k = 0; k < 3; ++k)
        CHECK_NEAR(offset_after[k], offset_before[k], 1e-5);
    /* The head stays level: its side axis (+Y in its frame) has no part along up beyond what the animated
     * pose gave it. */
    vec3 side = {0.0f, 1.0f, 0.0f}, side_before;
    glm_quat_rotatev(object[HEAD].rotation, side, side);
    glm_quat_rotatev(before[HEAD].rotation, (vec3){0.0f, 1.0f, 0.0f}, side_before);
    CHECK(fabsf(glm_vec3_dot(side, (float *)up)) <= fabsf(glm_vec3_dot(side_before, (float *)up)) + 0.02f);
}

/* The turn each chain joint took, from its object rotations before and after and those of the chain joint
 * below it: yaw and pitch magnitudes in radians (the turn is a yaw about up then a pitch about a level
 * axis, so the pitch is how far it tilts up, and the yaw follows from the whole angle). */
static void joint_turn(const joint_pose *before, const joint_pose *after, int joint, int below, float *yaw,
                       float *pitch)
{
    versor inverse, own, under = GLM_QUAT_IDENTITY_INIT, under_inverse, turn;
    glm_quat_inv((float *)before[joint].rotation, inverse);
    glm_quat_mul((float *)after[joint].rotation, inverse, own);
    if (below >= 0) {
        glm_quat_inv((float *)before[below].rotation, inverse);
        glm_quat_mul((float *)after[below].rotation, inverse, under);
    }
    glm_quat_inv(under, under_inverse);
    glm_quat_mul(own, under_inverse, turn);
    vec3 tilted;
    glm_quat_rotatev(turn, (float *)up, tilted);
    *pitch = acosf(fminf(1.0f, glm_vec3_dot(tilted, (float *)up)));
    float half_whole = acosf(fminf(1.0f, fabsf(turn[3])));
    *yaw = 2.0f * acosf(fminf(1.0f, cosf(half_whole) / cosf(0.5f * *pitch)));
}

/* Targets behind, far above and below: every joint stops at its limits, the head turned as far as the
 * chain allows on the target's side. */
static void test_limits_hold_for_unreachable_targets(void)
{
    const float offsets[][3] = {{-2.0f, 0.3f, 0.0f}, {-2.0f, -0.3f, 0.5f}, {-0.5f, 2.0f, -1.0f}, {0.2f, 0.0f, 5.0f},
                                {0.5f, 0.1f, -4.0f}, {-3.0f, 0.0f, 0.0f}};
    for (size_t t = 0; t < sizeof offsets / sizeof offsets[0]; ++t) {
        joint_pose before[BODY_JOINTS], object[BODY_JOINTS];
        make_body(before);
        memcpy(object, before, sizeof object);
        pose_aim_chain chain = make_chain(80.0f, 40.0f);
        float target[3];
        for (int k = 0; k < 3; ++k)
            target[k] = before[HEAD].position[k] + offsets[t][k];
        CHECK(pose_aim(body_parents, BODY_JOINTS, &chain, target, 1.0f, object));
        CHECK(pose_finite(object, BODY_JOINTS));
        for (int k = 0; k < chain.joint_count; ++k) {
            float yaw, pitch;
            joint_turn(before, object, chain.joints[k], k + 1 < chain.joint_count ? chain.joints[k + 1] : -1, &yaw,
                       &pitch);
            CHECK(yaw <= chain.yaw_limits[k] + 0.2f * DEGREES);
            CHECK(pitch <= chain.pitch_limits[k] + 0.2f * DEGREES);
        }
    }
    /* Straight behind but a little to the left: the head ends turned the whole 80 degrees left. */
    joint_pose before[BODY_JOINTS], object[BODY_JOINTS];
    make_body(before);
    memcpy(object, before, sizeof object);
    pose_aim_chain chain = make_chain(80.0f, 40.0f);
    float yaw_before, pitch_before, yaw_after, pitch_after;
    float target[3] = {before[HEAD].position[0] - 2.0f, before[HEAD].position[1] + 0.5f, before[HEAD].position[2]};
    CHECK(pose_aim_measure(&chain, BODY_JOINTS, before, target, &yaw_before, &pitch_before));
    CHECK(yaw_before > 150.0f * DEGREES);
    CHECK(pose_aim(body_parents, BODY_JOINTS, &chain, target, 1.0f, object));
    CHECK(pose_aim_measure(&chain, BODY_JOINTS, object, target, &yaw_after, &pitch_after));
    CHECK_NEAR(yaw_before - yaw_after, 80.0f * DEGREES, 1.0f * DEGREES);
}

/* Weight 0 changes nothing, bit for bit; a weight between turns part of the way, continuously. */
static void test_weight_zero_and_continuity(void)
{
    joint_pose before[BODY_JOINTS], object[BODY_JOINTS], previous[BODY_JOINTS];
    make_body(before);
    pose_aim_chain chain = make_chain(120.0f, 60.0f);
    float target[3] = {before[HEAD].position[0] + 1.5f, before[HEAD].position[1] - 1.0f,
                       before[HEAD].position[2] + 0.5f};
    memcpy(object, before, sizeof object);
    CHECK(pose_aim(body_parents, BODY_JOINTS, &chain, target, 0.0f, object));
    CHECK(memcmp(object, before, sizeof object) == 0);

    float full_yaw, full_pitch;
    CHECK(pose_aim_measure(&chain, BODY_JOINTS, before, target, &full_yaw, &full_pitch));
    memcpy(previous, before, sizeof previous);
    double largest_step = 0.0;
    for (int step = 1; step <= 100; ++step) {
        float weight = (float)step / 100.0f;
        memcpy(object, before, sizeof object);
        CHECK(pose_aim(body_parents, BODY_JOINTS, &chain, target, weight, object));
        for (int j = 0; j < BODY_JOINTS; ++j)
            largest_step = fmax(largest_step, distance3(object[j].position, previous[j].position));
        /* The head has turned `weight` of the way, in yaw and in pitch. */
        float left_yaw, left_pitch;
        CHECK(pose_aim_measure(&chain, BODY_JOINTS, object, target, &left_yaw, &left_pitch));
        CHECK_NEAR(left_yaw, (1.0f - weight) * full_yaw, 0.5f * DEGREES);
        CHECK_NEAR(left_pitch, (1.0f - weight) * full_pitch, 0.5f * DEGREES);
        memcpy(previous, object, sizeof previous);
    }
    /* A hundredth of the weight moves no joint more than a few millimetres (the nose, 0.2 m from the turn's
     * center and turned about 80 degrees over the whole range, moves about 3 mm a step). */
    CHECK(largest_step < 0.006);

    /* Continuous in the target too: a target moved by a millimetre moves the head's forward by little. */
    joint_pose a[BODY_JOINTS], b[BODY_JOINTS];
    memcpy(a, before, sizeof a);
    memcpy(b, before, sizeof b);
    float nudged[3] = {target[0], target[1] + 0.001f, target[2]};
    CHECK(pose_aim(body_parents, BODY_JOINTS, &chain, target, 0.7f, a));
    CHECK(pose_aim(body_parents, BODY_JOINTS, &chain, nudged, 0.7f, b));
    vec3 forward_a, forward_b;
    head_forward(&chain, a, forward_a);
    head_forward(&chain, b, forward_b);
    CHECK(acos(fmin(1.0, (double)glm_vec3_dot(forward_a, forward_b))) < 0.1 * DEGREES);
}

/* A target at the head itself, or straight above it: no NaN, the head keeps the way it faced. */
static void test_degenerate_targets(void)
{
    joint_pose before[BODY_JOINTS], object[BODY_JOINTS];
    make_body(before);
    pose_aim_chain chain = make_chain(120.0f, 60.0f);
    memcpy(object, before, sizeof object);
    CHECK(pose_aim(body_parents, BODY_JOINTS, &chain, before[HEAD].position, 1.0f, object));
    CHECK(pose_finite(object, BODY_JOINTS));
    for (int j = 0; j < BODY_JOINTS; ++j)
        CHECK(distance3(object[j].position, before[j].position) < 1e-5);
    float yaw, pitch;
    CHECK(pose_aim_measure(&chain, BODY_JOINTS, before, before[HEAD].position, &yaw, &pitch));
    CHECK(yaw == 0.0f && pitch == 0.0f);

    float above[3] = {before[HEAD].position[0], before[HEAD].position[1], before[HEAD].position[2] + 2.0f};
    memcpy(object, before, sizeof object);
    CHECK(pose_aim(body_parents, BODY_JOINTS, &chain, above, 1.0f, object));
    CHECK(pose_finite(object, BODY_JOINTS));

    /* A chain whose limits are all zero turns nothing. */
    pose_aim_chain stiff = make_chain(0.0f, 0.0f);
    float aside[3] = {before[HEAD].position[0] + 1.0f, before[HEAD].position[1] + 1.0f, before[HEAD].position[2]};
    memcpy(object, before, sizeof object);
    CHECK(pose_aim(body_parents, BODY_JOINTS, &stiff, aside, 1.0f, object));
    for (int j = 0; j < BODY_JOINTS; ++j)
        CHECK(distance3(object[j].position, before[j].position) < 1e-6);
}

/* Misuse is refused and writes nothing. */
static void test_misuse(void)
{
    joint_pose before[BODY_JOINTS], object[BODY_JOINTS];
    make_body(before);
    memcpy(object, before, sizeof object);
    pose_aim_chain chain = make_chain(120.0f, 60.0f);
    float target[3] = {2.0f, 1.0f, 1.5f}, bad[3] = {NAN, 0.0f, 0.0f};
    CHECK(!pose_aim(NULL, BODY_JOINTS, &chain, target, 1.0f, object));
    CHECK(!pose_aim(body_parents, BODY_JOINTS, NULL, target, 1.0f, object));
    CHECK(!pose_aim(body_parents, BODY_JOINTS, &chain, bad, 1.0f, object));
    CHECK(!pose_aim(body_parents, BODY_JOINTS, &chain, target, 1.5f, object));
    CHECK(!pose_aim(body_parents, BODY_JOINTS, &chain, target, -0.1f, object));
    CHECK(!pose_aim(body_parents, BODY_JOINTS, &chain, target, NAN, object));
    pose_aim_chain broken = chain;
    broken.joints[1] = ARM; /* the arm is no ancestor of the head */
    CHECK(!pose_aim(body_parents, BODY_JOINTS, &broken, target, 1.0f, object));
    broken = chain;
    broken.joints[0] = BODY_JOINTS;
    CHECK(!pose_aim(body_parents, BODY_JOINTS, &broken, target, 1.0f, object));
    broken = chain;
    broken.joint_count = POSE_AIM_JOINTS_MAX + 1;
    CHECK(!pose_aim(body_parents, BODY_JOINTS, &broken, target, 1.0f, object));
    broken = chain;
    broken.yaw_limits[2] = -1.0f;
    CHECK(!pose_aim(body_parents, BODY_JOINTS, &broken, target, 1.0f, object));
    CHECK(memcmp(object, before, sizeof object) == 0);
}

/* The head's forward from the bind pose: a head joint turned a quarter left in its bind frame faces the
 * character's +X along its own -Y. */
static void test_head_forward_from_bind(void)
{
    joint_pose bind[2];
    memset(bind, 0, sizeof bind);
    bind[0].rotation[3] = 1.0f;
    set_turn(&bind[1], 90.0f * DEGREES, 0.0f, 0.0f, 1.0f);
    int parents[2] = {-1, 0};
    char *names[2] = {"neck", "head"};
    skeleton s = {.joint_count = 2, .names = names, .parents = parents, .bind_object = bind};
    float facing[3] = {1.0f, 0.0f, 0.0f}, forward[3];
    CHECK(pose_aim_head_forward(&s, 1, facing, forward));
    CHECK_NEAR(forward[0], 0.0f, 1e-6);
    CHECK_NEAR(forward[1], -1.0f, 1e-6);
    CHECK_NEAR(forward[2], 0.0f, 1e-6);
    CHECK(!pose_aim_head_forward(&s, 2, facing, forward));
    CHECK(!pose_aim_head_forward(&s, 1, (float[3]){0.0f, 0.0f, 0.0f}, forward));
}

/* A skeleton with more joints below the chain than pose_aim keeps levels for on the stack (a braid of 300
 * joints hanging from the head, and a hand on the spine after it): the far ones still turn with the head,
 * rigidly, and the hand with the spine. */
static void test_long_skeleton(void)
{
    enum { BRAID = 300, JOINTS = 4 + BRAID + 1, HAND_JOINT = JOINTS - 1 };
    static int parents[JOINTS];
    static joint_pose local[JOINTS], before[JOINTS], object[JOINTS];
    memset(local, 0, sizeof local);
    for (int j = 0; j < JOINTS; ++j) {
        parents[j] = j - 1;
        local[j].rotation[3] = 1.0f;
        local[j].position[2] = 0.1f;
    }
    for (int j = 4; j < 4 + BRAID; ++j) {
        local[j].position[0] = -0.01f; /* down the back */
        local[j].position[2] = -0.005f;
    }
    parents[HAND_JOINT] = 1;
    local[HAND_JOINT].position[1] = 0.3f;
    CHECK(pose_to_object(parents, JOINTS, local, before));
    memcpy(object, before, sizeof object);
    pose_aim_chain chain = {.joint_count = 3, .joints = {3, 2, 1}, .shares = {0.5f, 0.3f, 0.2f},
                            .yaw_limits = {1.0f, 1.0f, 1.0f}, .pitch_limits = {1.0f, 1.0f, 1.0f},
                            .forward = {1.0f, 0.0f, 0.0f}, .up = {0.0f, 0.0f, 1.0f}};
    float target[3] = {1.0f, 1.5f, 0.5f};
    CHECK(pose_aim(parents, JOINTS, &chain, target, 1.0f, object));
    int ends[] = {4, 4 + BRAID - 1};
    for (int e = 0; e < 2; ++e) {
        vec3 offset_before, offset_after;
        versor inverse;
        glm_vec3_sub(before[ends[e]].position, before[3].position, offset_before);
        glm_quat_inv(before[3].rotation, inverse);
        glm_quat_rotatev(inverse, offset_before, offset_before);
        glm_vec3_sub(object[ends[e]].position, object[3].position, offset_after);
        glm_quat_inv(object[3].rotation, inverse);
        glm_quat_rotatev(inverse, offset_after, offset_after);
        for (int k = 0; k < 3; ++k)
            CHECK_NEAR(offset_after[k], offset_before[k], 1e-4);
    }
    CHECK(distance3(object[4 + BRAID - 1].position, before[4 + BRAID - 1].position) > 0.1);
    /* The hand hangs from joint 1, the chain's lowest: it turns with it. */
    CHECK(distance3(object[HAND_JOINT].position, before[HAND_JOINT].position) > 0.01);
    CHECK_NEAR(distance3(object[HAND_JOINT].position, object[1].position),
               distance3(before[HAND_JOINT].position, before[1].position), 1e-5);
}

static void test_no_allocation(void)
{
    joint_pose object[BODY_JOINTS];
    make_body(object);
    pose_aim_chain chain = make_chain(120.0f, 60.0f);
    float target[3] = {2.0f, 1.0f, 1.5f}, yaw, pitch;
    long before = heap_calls;
    for (int i = 0; i < 100; ++i) {
        pose_aim_measure(&chain, BODY_JOINTS, object, target, &yaw, &pitch);
        pose_aim(body_parents, BODY_JOINTS, &chain, target, 0.5f, object);
    }
    CHECK(heap_calls == before);
}

int main(void)
{
    RUN(test_reachable_targets_are_faced);
    RUN(test_the_branch_turns_rigidly);
    RUN(test_limits_hold_for_unreachable_targets);
    RUN(test_weight_zero_and_continuity);
    RUN(test_degenerate_targets);
    RUN(test_misuse);
    RUN(test_head_forward_from_bind);
    RUN(test_long_skeleton);
    RUN(test_no_allocation);
    return check_report();
}
