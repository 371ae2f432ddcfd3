/* pose_ik: the two-bone leg solve. A small leg in canonical axes (Z up, +X forward): pelvis, hip, knee,
 * ankle, toe, with the knee bent forward as a walk bends it. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "heap_counter.h"
#include "pose/pose.h"
#include "pose/pose_ik.h"
#include "pose_checks.h"

enum { LEG_JOINTS = 6, PELVIS = 0, HIP = 1, TWIST = 2, KNEE = 3, ANKLE = 4, TOE = 5 };

static const int leg_parents[LEG_JOINTS] = {-1, 0, 1, 2, 3, 4};
static const pose_ik_chain leg_chain = {.hip = HIP, .knee = KNEE, .ankle = ANKLE};
#define THIGH 0.45f
#define SHIN 0.42f

static void set_pitch(joint_pose *joint, float radians)
{
    /* about +Y (left): a positive pitch turns +X (forward) down towards -Z */
    joint->rotation[0] = 0.0f;
    joint->rotation[1] = sinf(0.5f * radians);
    joint->rotation[2] = 0.0f;
    joint->rotation[3] = cosf(0.5f * radians);
}

/* The leg as a walk poses it: the thigh swung forward by hip_pitch, the knee bent by knee_bend (the shin
 * goes back), thigh_length 0 for a bone of no length. */
static void make_leg(joint_pose local[LEG_JOINTS], float hip_pitch, float knee_bend, float thigh_length)
{
    memset(local, 0, sizeof(joint_pose) * LEG_JOINTS);
    for (int j = 0; j < LEG_JOINTS; ++j)
        local[j].rotation[3] = 1.0f;
    local[PELVIS].position[2] = 1.0f;
    local[HIP].position[1] = 0.1f;
    set_pitch(&local[HIP], -hip_pitch); /* negative pitch: the knee comes forward */
    local[TWIST].position[2] = -0.5f * thigh_length;
    local[KNEE].position[2] = -0.5f * thigh_length;
    set_pitch(&local[KNEE], knee_bend);
    local[ANKLE].position[2] = -SHIN;
    set_pitch(&local[ANKLE], hip_pitch - knee_bend);
    local[TOE].position[0] = 0.12f;
    local[TOE].position[2] = -0.05f;
}

static double distance3(const float a[3], const float b[3])
{
    return sqrt((double)(a[0] - b[0]) * (a[0] - b[0]) + (double)(a[1] - b[1]) * (a[1] - b[1]) +
                (double)(a[2] - b[2]) * (a[2] - b[2]));
}

/* The knee's bend as a signed angle about the leg plane's normal `normal`: positive on the animated side. */
static double knee_side(const joint_pose *object, const double normal[3])
{
    double thigh[3], shin[3];
    for (int k = 0; k < 3; ++k) {
        thigh[k] = object[HIP].position[k] - object[KNEE].position[k];
        shin[k] = object[ANKLE].position[k] - object[KNEE].position[k];
    }
    double cross[3] = {thigh[1] * shin[2] - thigh[2] * shin[1], thigh[2] * shin[0] - thigh[0] * shin[2],
                       thigh[0] * shin[1] - thigh[1] * shin[0]};
    return cross[0] * normal[0] + cross[1] * normal[1] + cross[2] * normal[2];
}

static double knee_angle(const joint_pose *object)
{
    double thigh[3], shin[3], dot = 0.0, tt = 0.0, ss = 0.0;
    for (int k = 0; k < 3; ++k) {
        thigh[k] = object[KNEE].position[k] - object[HIP].position[k];
        shin[k] = object[ANKLE].position[k] - object[KNEE].position[k];
        dot += thigh[k] * shin[k];
        tt += thigh[k] * thigh[k];
        ss += shin[k] * shin[k];
    }
    return acos(fmax(-1.0, fmin(1.0, dot / sqrt(tt * ss)))); /* 0: straight */
}

/* The object pose the stage leaves must be the one its local pose makes. */
static double object_mismatch(const joint_pose *local, const joint_pose *object)
{
    joint_pose again[LEG_JOINTS];
    pose_to_object(leg_parents, LEG_JOINTS, local, again);
    double worst = 0.0;
    for (int j = 0; j < LEG_JOINTS; ++j) {
        worst = fmax(worst, distance3(again[j].position, object[j].position));
        double dot = 0.0;
        for (int k = 0; k < 4; ++k)
            dot += (double)again[j].rotation[k] * object[j].rotation[k];
        worst = fmax(worst, 1.0 - fabs(dot));
    }
    return worst;
}

static void test_reachable_targets_are_reached(void)
{
    srand(7);
    double worst = 0.0, worst_mismatch = 0.0;
    int wrong_side = 0, tried = 0;
    for (int i = 0; i < 500; ++i) {
        joint_pose local[LEG_JOINTS], object[LEG_JOINTS];
        make_leg(local, 0.3f, 0.6f, THIGH);
        pose_to_object(leg_parents, LEG_JOINTS, local, object);
        double normal[3] = {0.0, 0.0, 0.0};
        normal[1] = knee_side(object, (double[3]){0.0, 1.0, 0.0}) > 0.0 ? 1.0 : -1.0;
        /* targets in a box under the hip, kept to where the leg reaches with room to spare */
        float target[3] = {object[HIP].position[0] - 0.4f + 0.8f * rand() / (float)RAND_MAX,
                           object[HIP].position[1],
                           object[HIP].position[2] - 0.1f - 0.8f * rand() / (float)RAND_MAX};
        double reach = distance3(target, object[HIP].position);
        if (reach > THIGH + SHIN - 1e-3 || reach < 0.1)
            continue;
        ++tried;
        CHECK(pose_ik_two_bone(leg_parents, LEG_JOINTS, &leg_chain, target, NULL, 1.0f, local, object));
        worst = fmax(worst, distance3(object[ANKLE].position, target));
        worst_mismatch = fmax(worst_mismatch, object_mismatch(local, object));
        /* in the animated plane the knee must stay on its side: forward */
        wrong_side += knee_side(object, normal) <= 0.0;
    }
    CHECK(tried > 300);
    CHECK(worst <= 1e-4);
    CHECK(worst_mismatch <= 1e-5);
    CHECK(wrong_side == 0);
}

static void test_targets_off_the_plane_and_a_joint_between(void)
{
    /* sideways targets (a foot placed wider) through a thigh with a twist joint between hip and knee */
    double worst = 0.0;
    for (int i = 0; i < 50; ++i) {
        joint_pose local[LEG_JOINTS], object[LEG_JOINTS];
        make_leg(local, 0.2f, 0.5f, THIGH);
        set_pitch(&local[TWIST], 0.0f);
        local[TWIST].rotation[2] = 0.2f; /* a twist about the thigh */
        float length = sqrtf(local[TWIST].rotation[2] * local[TWIST].rotation[2] + 1.0f);
        local[TWIST].rotation[2] /= length;
        local[TWIST].rotation[3] /= length;
        pose_to_object(leg_parents, LEG_JOINTS, local, object);
        float angle = 2.0f * (float)GLM_PI * (float)i / 50.0f;
        float target[3] = {object[HIP].position[0] + 0.3f * cosf(angle), object[HIP].position[1] + 0.3f * sinf(angle),
                           object[HIP].position[2] - 0.6f};
        CHECK(pose_ik_two_bone(leg_parents, LEG_JOINTS, &leg_chain, target, NULL, 1.0f, local, object));
        worst = fmax(worst, distance3(object[ANKLE].position, target));
        CHECK(object_mismatch(local, object) <= 1e-5);
    }
    CHECK(worst <= 1e-4);
}

static void test_unreachable_targets_give_a_straight_leg(void)
{
    float targets[][3] = {{0.0f, 0.1f, -2.0f}, {1.5f, 0.3f, 0.0f}, {-0.6f, 0.1f, 0.1f}, {0.0f, 0.1f, 2.5f}};
    for (size_t i = 0; i < sizeof targets / sizeof targets[0]; ++i) {
        joint_pose local[LEG_JOINTS], object[LEG_JOINTS];
        make_leg(local, 0.3f, 0.6f, THIGH);
        pose_to_object(leg_parents, LEG_JOINTS, local, object);
        CHECK(pose_ik_two_bone(leg_parents, LEG_JOINTS, &leg_chain, targets[i], NULL, 1.0f, local, object));
        CHECK(knee_angle(object) <= 1e-3); /* straight, and not past it (the angle is unsigned: see below) */
        CHECK_NEAR(distance3(object[ANKLE].position, object[HIP].position), THIGH + SHIN, 1e-5);
        /* pointing at the target: the ankle on the line from the hip to it */
        double along = distance3(object[ANKLE].position, object[HIP].position) +
                       distance3(targets[i], object[ANKLE].position);
        CHECK_NEAR(along, distance3(targets[i], object[HIP].position), 1e-5);
    }
    /* nearly straight from the far side: the knee opens to straight, it does not bend backwards */
    joint_pose local[LEG_JOINTS], object[LEG_JOINTS];
    make_leg(local, 0.3f, 0.6f, THIGH);
    pose_to_object(leg_parents, LEG_JOINTS, local, object);
    double normal[3] = {0.0, knee_side(object, (double[3]){0.0, 1.0, 0.0}) > 0.0 ? 1.0 : -1.0, 0.0};
    for (int i = 0; i <= 20; ++i) {
        make_leg(local, 0.3f, 0.6f, THIGH);
        pose_to_object(leg_parents, LEG_JOINTS, local, object);
        float target[3] = {object[HIP].position[0], object[HIP].position[1],
                           object[HIP].position[2] - (THIGH + SHIN) * (0.95f + 0.005f * (float)i)};
        pose_ik_two_bone(leg_parents, LEG_JOINTS, &leg_chain, target, NULL, 1.0f, local, object);
        CHECK(knee_side(object, normal) >= -1e-6); /* straight within rounding, or bent forward */
    }
}

static void test_weight_zero_changes_nothing(void)
{
    joint_pose local[LEG_JOINTS], object[LEG_JOINTS], local_before[LEG_JOINTS], object_before[LEG_JOINTS];
    make_leg(local, 0.3f, 0.6f, THIGH);
    pose_to_object(leg_parents, LEG_JOINTS, local, object);
    memcpy(local_before, local, sizeof local);
    memcpy(object_before, object, sizeof object);
    float target[3] = {0.2f, 0.1f, 0.3f};
    float flat[4] = {0.0f, 0.0f, 0.0f, 1.0f};
    CHECK(pose_ik_two_bone(leg_parents, LEG_JOINTS, &leg_chain, target, flat, 0.0f, local, object));
    CHECK(memcmp(local, local_before, sizeof local) == 0);
    CHECK(memcmp(object, object_before, sizeof object) == 0);
}

static void test_weight_moves_the_ankle_continuously(void)
{
    joint_pose animated[LEG_JOINTS], animated_object[LEG_JOINTS];
    make_leg(animated, 0.3f, 0.6f, THIGH);
    pose_to_object(leg_parents, LEG_JOINTS, animated, animated_object);
    /* a target the leg reaches: behind the ankle, a little wider and higher */
    float target[3] = {animated_object[ANKLE].position[0] - 0.25f, animated_object[ANKLE].position[1] + 0.05f,
                       animated_object[ANKLE].position[2] + 0.1f};
    double total = distance3(target, animated_object[ANKLE].position), largest_step = 0.0, at_start = 0.0;
    float previous[3];
    memcpy(previous, animated_object[ANKLE].position, sizeof previous);
    enum { STEPS = 200 };
    for (int i = 1; i <= STEPS; ++i) {
        joint_pose local[LEG_JOINTS], object[LEG_JOINTS];
        memcpy(local, animated, sizeof local);
        memcpy(object, animated_object, sizeof object);
        CHECK(pose_ik_two_bone(leg_parents, LEG_JOINTS, &leg_chain, target, NULL, (float)i / STEPS, local, object));
        largest_step = fmax(largest_step, distance3(object[ANKLE].position, previous));
        if (i == 1)
            at_start = distance3(object[ANKLE].position, animated_object[ANKLE].position);
        memcpy(previous, object[ANKLE].position, sizeof previous);
    }
    CHECK(distance3(previous, target) <= 1e-4);        /* weight 1: there */
    CHECK(largest_step <= 4.0 * total / STEPS);          /* no jump anywhere on the way */
    CHECK(at_start > 0.0 && at_start <= 4.0 * total / STEPS); /* the smallest weight moves it a little */
}

static void test_ankle_rotation(void)
{
    joint_pose local[LEG_JOINTS], object[LEG_JOINTS];
    make_leg(local, 0.3f, 0.6f, THIGH);
    pose_to_object(leg_parents, LEG_JOINTS, local, object);
    float target[3] = {0.15f, 0.1f, 0.25f};
    float flat[4] = {0.0f, 0.0f, 0.0f, 1.0f}; /* the foot level, as in the bind pose */
    CHECK(pose_ik_two_bone(leg_parents, LEG_JOINTS, &leg_chain, target, flat, 1.0f, local, object));
    CHECK(distance3(object[ANKLE].position, target) <= 1e-4);
    CHECK_NEAR(fabs(object[ANKLE].rotation[3]), 1.0, 1e-6);
    /* the toe follows the foot: level, ahead of the ankle */
    CHECK_NEAR(object[TOE].position[0] - object[ANKLE].position[0], 0.12, 1e-5);
    CHECK_NEAR(object[TOE].position[2] - object[ANKLE].position[2], -0.05, 1e-5);
    CHECK(object_mismatch(local, object) <= 1e-5);
}

static void test_degenerate_inputs_stay_finite(void)
{
    joint_pose local[LEG_JOINTS], object[LEG_JOINTS];
    /* the target at the hip: the leg folds as far as it may, pointing where it pointed */
    make_leg(local, 0.3f, 0.6f, THIGH);
    pose_to_object(leg_parents, LEG_JOINTS, local, object);
    float at_hip[3] = {object[HIP].position[0], object[HIP].position[1], object[HIP].position[2]};
    CHECK(pose_ik_two_bone(leg_parents, LEG_JOINTS, &leg_chain, at_hip, NULL, 1.0f, local, object));
    CHECK(pose_finite(local, LEG_JOINTS) && pose_finite(object, LEG_JOINTS));
    CHECK(knee_angle(object) <= GLM_PI - POSE_IK_MIN_KNEE_ANGLE + 1e-4);

    /* a thigh of no length: nothing to bend */
    joint_pose before[LEG_JOINTS];
    make_leg(local, 0.3f, 0.6f, 0.0f);
    pose_to_object(leg_parents, LEG_JOINTS, local, object);
    memcpy(before, local, sizeof before);
    float below[3] = {0.1f, 0.1f, 0.4f};
    CHECK(pose_ik_two_bone(leg_parents, LEG_JOINTS, &leg_chain, below, NULL, 1.0f, local, object));
    CHECK(pose_finite(local, LEG_JOINTS) && pose_finite(object, LEG_JOINTS));
    CHECK(memcmp(before, local, sizeof before) == 0);

    /* a straight animated leg: no plane, still bends and reaches, in the plane of leg and target */
    make_leg(local, 0.0f, 0.0f, THIGH);
    pose_to_object(leg_parents, LEG_JOINTS, local, object);
    float raised[3] = {object[HIP].position[0] + 0.1f, object[HIP].position[1], object[HIP].position[2] - 0.7f};
    CHECK(pose_ik_two_bone(leg_parents, LEG_JOINTS, &leg_chain, raised, NULL, 1.0f, local, object));
    CHECK(pose_finite(local, LEG_JOINTS) && pose_finite(object, LEG_JOINTS));
    CHECK(distance3(object[ANKLE].position, raised) <= 1e-4);
    CHECK_NEAR(object[KNEE].position[1], object[HIP].position[1], 1e-5); /* it stayed in that plane */
    /* ... and straight down, where leg and target make no plane either */
    make_leg(local, 0.0f, 0.0f, THIGH);
    pose_to_object(leg_parents, LEG_JOINTS, local, object);
    float straight_below[3] = {object[HIP].position[0], object[HIP].position[1], object[HIP].position[2] - 0.7f};
    CHECK(pose_ik_two_bone(leg_parents, LEG_JOINTS, &leg_chain, straight_below, NULL, 1.0f, local, object));
    CHECK(pose_finite(local, LEG_JOINTS) && pose_finite(object, LEG_JOINTS));
    CHECK(distance3(object[ANKLE].position, straight_below) <= 1e-4);
}

static void test_misuse_is_refused_untouched(void)
{
    joint_pose local[LEG_JOINTS], object[LEG_JOINTS], local_before[LEG_JOINTS], object_before[LEG_JOINTS];
    make_leg(local, 0.3f, 0.6f, THIGH);
    pose_to_object(leg_parents, LEG_JOINTS, local, object);
    memcpy(local_before, local, sizeof local);
    memcpy(object_before, object, sizeof object);
    float target[3] = {0.1f, 0.1f, 0.3f}, not_a_number[3] = {NAN, 0.0f, 0.0f};
    float bad_rotation[4] = {0.0f, INFINITY, 0.0f, 1.0f};
    pose_ik_chain backwards = {.hip = KNEE, .knee = HIP, .ankle = ANKLE};
    pose_ik_chain out_of_range = {.hip = HIP, .knee = KNEE, .ankle = LEG_JOINTS};
    int branched_parents[LEG_JOINTS] = {-1, 0, 1, 2, 1, 4}; /* the "ankle" hangs from the twist, not the knee */
    int bad_parents[LEG_JOINTS] = {-1, 0, 1, 3, 3, 4};
    CHECK(!pose_ik_two_bone(leg_parents, LEG_JOINTS, &leg_chain, not_a_number, NULL, 1.0f, local, object));
    CHECK(!pose_ik_two_bone(leg_parents, LEG_JOINTS, &leg_chain, target, bad_rotation, 1.0f, local, object));
    CHECK(!pose_ik_two_bone(leg_parents, LEG_JOINTS, &leg_chain, target, NULL, 1.5f, local, object));
    CHECK(!pose_ik_two_bone(leg_parents, LEG_JOINTS, &leg_chain, target, NULL, -0.1f, local, object));
    CHECK(!pose_ik_two_bone(leg_parents, LEG_JOINTS, &leg_chain, target, NULL, NAN, local, object));
    CHECK(!pose_ik_two_bone(leg_parents, LEG_JOINTS, &backwards, target, NULL, 1.0f, local, object));
    CHECK(!pose_ik_two_bone(leg_parents, LEG_JOINTS, &out_of_range, target, NULL, 1.0f, local, object));
    CHECK(!pose_ik_two_bone(branched_parents, LEG_JOINTS, &leg_chain, target, NULL, 1.0f, local, object));
    CHECK(!pose_ik_two_bone(bad_parents, LEG_JOINTS, &leg_chain, target, NULL, 1.0f, local, object));
    CHECK(!pose_ik_two_bone(NULL, LEG_JOINTS, &leg_chain, target, NULL, 1.0f, local, object));
    CHECK(!pose_ik_two_bone(leg_parents, LEG_JOINTS, NULL, target, NULL, 1.0f, local, object));
    CHECK(memcmp(local, local_before, sizeof local) == 0);
    CHECK(memcmp(object, object_before, sizeof object) == 0);
}

/* The object-space variant (for stages with no local pose) gives pose_ik_two_bone's result: every joint,
 * the toe below the ankle and the twist between hip and knee included, with and without an ankle rotation,
 * at part weights, reachable targets and not; misuse is refused untouched. */
static void test_object_variant_matches(void)
{
    srand(11);
    double worst_position = 0.0, worst_rotation = 0.0;
    float flat[4] = {0.0f, 0.0f, 0.0f, 1.0f};
    for (int i = 0; i < 300; ++i) {
        joint_pose local[LEG_JOINTS], object[LEG_JOINTS], alone[LEG_JOINTS];
        make_leg(local, 0.3f, 0.6f, THIGH);
        pose_to_object(leg_parents, LEG_JOINTS, local, object);
        memcpy(alone, object, sizeof object);
        float target[3] = {object[HIP].position[0] - 0.5f + 1.0f * rand() / (float)RAND_MAX,
                           object[HIP].position[1] - 0.3f + 0.6f * rand() / (float)RAND_MAX,
                           object[HIP].position[2] - 1.0f * rand() / (float)RAND_MAX};
        float weight = (float)(i % 5) / 4.0f;
        const float *rotation = i % 2 ? flat : NULL;
        CHECK(pose_ik_two_bone(leg_parents, LEG_JOINTS, &leg_chain, target, rotation, weight, local, object));
        CHECK(pose_ik_two_bone_object(leg_parents, LEG_JOINTS, &leg_chain, target, rotation, weight, alone));
        for (int j = 0; j < LEG_JOINTS; ++j) {
            worst_position = fmax(worst_position, distance3(object[j].position, alone[j].position));
            double dot = 0.0;
            for (int k = 0; k < 4; ++k)
                dot += (double)object[j].rotation[k] * alone[j].rotation[k];
            worst_rotation = fmax(worst_rotation, 2.0 * acos(fmin(1.0, fabs(dot))));
        }
    }
    printf("  object variant against local: %.2g m, %.2g rad at worst\n", worst_position, worst_rotation);
    CHECK(worst_position <= 1e-5);
    CHECK(worst_rotation <= 1e-3);

    joint_pose local[LEG_JOINTS], object[LEG_JOINTS], before[LEG_JOINTS];
    make_leg(local, 0.3f, 0.6f, THIGH);
    pose_to_object(leg_parents, LEG_JOINTS, local, object);
    memcpy(before, object, sizeof object);
    float target[3] = {0.1f, 0.1f, 0.3f}, not_a_number[3] = {NAN, 0.0f, 0.0f};
    pose_ik_chain backwards = {.hip = KNEE, .knee = HIP, .ankle = ANKLE};
    CHECK(!pose_ik_two_bone_object(leg_parents, LEG_JOINTS, &leg_chain, not_a_number, NULL, 1.0f, object));
    CHECK(!pose_ik_two_bone_object(leg_parents, LEG_JOINTS, &backwards, target, NULL, 1.0f, object));
    int bad_parents[LEG_JOINTS] = {-1, 0, 1, 2, 3, 7}, bad_hip_parent[LEG_JOINTS] = {-1, 1, 1, 2, 3, 4};
    CHECK(!pose_ik_two_bone_object(bad_parents, LEG_JOINTS, &leg_chain, target, NULL, 1.0f, object)); /* the toe's */
    CHECK(!pose_ik_two_bone_object(bad_hip_parent, LEG_JOINTS, &leg_chain, target, NULL, 1.0f, object));
    CHECK(!pose_ik_two_bone_object(leg_parents, LEG_JOINTS, &leg_chain, target, NULL, 2.0f, object));
    CHECK(!pose_ik_two_bone_object(leg_parents, LEG_JOINTS, &leg_chain, target, NULL, 1.0f, NULL));
    CHECK(pose_ik_two_bone_object(leg_parents, LEG_JOINTS, &leg_chain, target, flat, 0.0f, object));
    CHECK(memcmp(object, before, sizeof object) == 0);
}

/* A skeleton whose leg is not in one run: joints of the body come between the leg's, and the foot has two
 * toes. */
enum { WIDE_JOINTS = 10 };
static const int wide_parents[WIDE_JOINTS] = {-1, 0, 0, 1, 2, 3, 2, 5, 7, 7};
static const pose_ik_chain wide_chain = {.hip = 1, .knee = 5, .ankle = 7}; /* 3: a twist; 8, 9: toes */

static void random_joint(joint_pose *joint)
{
    float length = 0.0f;
    for (int k = 0; k < 4; ++k) {
        joint->rotation[k] = 2.0f * rand() / (float)RAND_MAX - 1.0f;
        length += joint->rotation[k] * joint->rotation[k];
    }
    for (int k = 0; k < 4; ++k)
        joint->rotation[k] /= sqrtf(length);
    for (int k = 0; k < 3; ++k)
        joint->position[k] = 0.4f * rand() / (float)RAND_MAX - 0.2f;
    joint->position[2] -= 0.3f;
    joint->unused = 0.0f;
}

/* A prepared leg bends a pose as pose_ik_two_bone_object does, bit for bit, on the small leg and on one whose
 * branch is not in one run, at every weight, with and without an ankle rotation; joints outside the leg are
 * left alone. Preparing refuses what the solve refuses, and a branch over POSE_IK_LEG_JOINTS joints; a leg
 * not prepared, and misuse, write nothing. */
static void test_prepared_leg_matches(void)
{
    srand(23);
    pose_ik_leg small, wide;
    CHECK(pose_ik_leg_prepare(leg_parents, LEG_JOINTS, &leg_chain, &small));
    CHECK(pose_ik_leg_prepare(wide_parents, WIDE_JOINTS, &wide_chain, &wide));
    CHECK(small.moved_count == 5 && wide.moved_count == 6); /* the pelvis, and the body's 2, 4, 6, are not */
    CHECK(wide.moved[0] == 1 && wide.part[0] == 1 && wide.moved[2] == 5 && wide.part[2] == 2 && wide.moved[3] == 7 &&
          wide.part[3] == 3 && wide.moved[5] == 9 && wide.part[5] == 3);
    float flat[4] = {0.0f, 0.0f, 0.0f, 1.0f};
    int differences = 0, bent = 0;
    for (int i = 0; i < 400; ++i) {
        bool use_wide = i % 2;
        int count = use_wide ? WIDE_JOINTS : LEG_JOINTS;
        const int *parents = use_wide ? wide_parents : leg_parents;
        joint_pose local[WIDE_JOINTS], object[WIDE_JOINTS], general[WIDE_JOINTS], prepared[WIDE_JOINTS];
        for (int j = 0; j < count; ++j)
            random_joint(&local[j]);
        pose_to_object(parents, count, local, object);
        memcpy(general, object, sizeof object);
        memcpy(prepared, object, sizeof object);
        const pose_ik_chain *chain = use_wide ? &wide_chain : &leg_chain;
        float target[3] = {object[chain->hip].position[0] + 0.6f * rand() / (float)RAND_MAX - 0.3f,
                           object[chain->hip].position[1] + 0.6f * rand() / (float)RAND_MAX - 0.3f,
                           object[chain->hip].position[2] - 0.6f * rand() / (float)RAND_MAX};
        float weight = (float)(i % 5) / 4.0f;
        const float *rotation = i % 3 ? flat : NULL;
        CHECK(pose_ik_two_bone_object(parents, count, chain, target, rotation, weight, general));
        CHECK(pose_ik_two_bone_leg(use_wide ? &wide : &small, target, rotation, weight, prepared));
        differences += memcmp(general, prepared, sizeof(joint_pose) * (size_t)count) != 0;
        bent += memcmp(general, object, sizeof(joint_pose) * (size_t)count) != 0;
        if (use_wide)
            for (int j = 0; j < count; ++j)
                if (j == 0 || j == 2 || j == 4 || j == 6)
                    differences += memcmp(&prepared[j], &object[j], sizeof object[j]) != 0;
    }
    CHECK(differences == 0);
    CHECK(bent >= 300); /* weight 0 (a fifth) changes nothing; the rest bend */

    /* Refused: what the solve refuses, and a foot of more joints than a prepared leg lists. */
    pose_ik_leg untouched;
    memset(&untouched, 0x5a, sizeof untouched);
    pose_ik_leg leg = untouched;
    pose_ik_chain backwards = {.hip = KNEE, .knee = HIP, .ankle = ANKLE};
    int bad_parents[LEG_JOINTS] = {-1, 0, 1, 2, 3, 7};
    CHECK(!pose_ik_leg_prepare(leg_parents, LEG_JOINTS, &backwards, &leg));
    CHECK(!pose_ik_leg_prepare(bad_parents, LEG_JOINTS, &leg_chain, &leg));
    CHECK(!pose_ik_leg_prepare(leg_parents, LEG_JOINTS, &leg_chain, NULL));
    CHECK(!pose_ik_leg_prepare(NULL, LEG_JOINTS, &leg_chain, &leg));
    enum { TOES = POSE_IK_LEG_JOINTS + 4 };
    int many_parents[TOES];
    for (int j = 0; j < TOES; ++j)
        many_parents[j] = j < LEG_JOINTS ? leg_parents[j] : ANKLE; /* toes on toes' place: all under the ankle */
    CHECK(!pose_ik_leg_prepare(many_parents, TOES, &leg_chain, &leg));
    CHECK(pose_ik_leg_prepare(many_parents, POSE_IK_LEG_JOINTS + 1, &leg_chain, &leg)); /* the hip's branch: 32 */
    CHECK(leg.moved_count == POSE_IK_LEG_JOINTS);
    leg = untouched;
    CHECK(!pose_ik_leg_prepare(many_parents, TOES, &leg_chain, &leg));
    CHECK(memcmp(&leg, &untouched, sizeof leg) == 0);

    joint_pose local[LEG_JOINTS], object[LEG_JOINTS], before[LEG_JOINTS];
    make_leg(local, 0.3f, 0.6f, THIGH);
    pose_to_object(leg_parents, LEG_JOINTS, local, object);
    memcpy(before, object, sizeof object);
    float target[3] = {0.1f, 0.1f, 0.3f}, not_a_number[3] = {NAN, 0.0f, 0.0f}, broken[4] = {0.0f, INFINITY, 0.0f, 1.0f};
    pose_ik_leg not_prepared = {0};
    CHECK(!pose_ik_two_bone_leg(&not_prepared, target, NULL, 1.0f, object));
    CHECK(!pose_ik_two_bone_leg(NULL, target, NULL, 1.0f, object));
    CHECK(!pose_ik_two_bone_leg(&small, not_a_number, NULL, 1.0f, object));
    CHECK(!pose_ik_two_bone_leg(&small, target, broken, 1.0f, object));
    CHECK(!pose_ik_two_bone_leg(&small, target, NULL, 1.5f, object));
    CHECK(!pose_ik_two_bone_leg(&small, target, NULL, 1.0f, NULL));
    CHECK(memcmp(object, before, sizeof object) == 0);
}

/* A rig whose feet follow IK targets, as some exporters make it (boneman's): the ankle hangs from a target
 * under the root, not from the shin, and the shin is a leaf. Two orders of the same rig: the leg first
 * (root, pelvis, hip, knee, lever, target, ankle, toe) and the target's branch first. */
enum { DETACHED_JOINTS = 8 };
static const int detached_parents[2][DETACHED_JOINTS] = {{-1, 0, 1, 2, 0, 4, 5, 6}, {-1, 0, 1, 2, 3, 0, 5, 6}};
static const pose_ik_chain detached_chains[2] = {{.hip = 2, .knee = 3, .ankle = 6}, {.hip = 6, .knee = 7, .ankle = 3}};
/* Each order's joint for the small leg's PELVIS, HIP, KNEE, ANKLE, TOE, and the lever and target. */
static const int detached_joint[2][7] = {{1, 2, 3, 6, 7, 4, 5}, {5, 6, 7, 3, 4, 1, 2}};

/* The small leg's pose (make_leg) on the detached rig: every joint's object pose the same as the leg's, the
 * lever and target where the ankle is; local poses made from the object ones. */
static void make_detached(int order, float hip_pitch, float knee_bend, joint_pose *local, joint_pose *object)
{
    joint_pose leg_local[LEG_JOINTS], leg_object[LEG_JOINTS];
    make_leg(leg_local, hip_pitch, knee_bend, THIGH);
    pose_to_object(leg_parents, LEG_JOINTS, leg_local, leg_object);
    const int *at = detached_joint[order];
    memset(object, 0, sizeof(joint_pose) * DETACHED_JOINTS);
    object[0].rotation[3] = 1.0f;
    const int from[7] = {PELVIS, HIP, KNEE, ANKLE, TOE, ANKLE, ANKLE};
    for (int k = 0; k < 7; ++k)
        object[at[k]] = leg_object[from[k]];
    object[at[5]].rotation[0] = object[at[5]].rotation[1] = object[at[5]].rotation[2] = 0.0f; /* the lever */
    object[at[5]].rotation[3] = 1.0f;
    const int *parents = detached_parents[order];
    for (int j = 0; j < DETACHED_JOINTS; ++j) {
        versor inverse, rotation;
        vec3 offset;
        int parent = parents[j];
        if (parent < 0) {
            local[j] = object[j];
            continue;
        }
        glm_quat_inv(object[parent].rotation, inverse);
        glm_vec3_sub(object[j].position, object[parent].position, offset);
        glm_quat_rotatev(inverse, offset, local[j].position);
        glm_quat_mul(inverse, object[j].rotation, rotation);
        glm_quat_normalize_to(rotation, local[j].rotation);
        local[j].unused = 0.0f;
    }
    pose_to_object(parents, DETACHED_JOINTS, local, object);
}

/* A detached ankle is the leg's target: it reaches the target, both bones and the foot keep their lengths,
 * the foot turns to the rotation asked for, the lever and target stay; the local variant's pose is the one
 * its local rotations make, and matches the object variant; a prepared leg matches it bit for bit and lists
 * the ankle's branch. A foot beside the knee under the hip is still refused. */
static void test_detached_ankle(void)
{
    srand(41);
    float flat[4] = {0.0f, 0.0f, 0.0f, 1.0f};
    double worst_reach = 0.0, worst_length = 0.0, worst_local = 0.0, worst_turn = 0.0;
    int differences = 0, tried = 0;
    for (int order = 0; order < 2; ++order) {
        const int *parents = detached_parents[order], *at = detached_joint[order];
        const pose_ik_chain *chain = &detached_chains[order];
        CHECK(pose_ik_ankle_detached(parents, DETACHED_JOINTS, chain));
        pose_ik_leg leg;
        CHECK(pose_ik_leg_prepare(parents, DETACHED_JOINTS, chain, &leg));
        CHECK(leg.moved_count == 4);
        for (int i = 0; i < leg.moved_count; ++i) {
            int expected_part = leg.moved[i] == at[1] ? 1 : leg.moved[i] == at[2] ? 2 : 3;
            CHECK(leg.part[i] == expected_part && (i == 0 || leg.moved[i] > leg.moved[i - 1]));
        }
        for (int i = 0; i < 200; ++i) {
            joint_pose local[DETACHED_JOINTS], object[DETACHED_JOINTS], before[DETACHED_JOINTS];
            joint_pose general[DETACHED_JOINTS], prepared[DETACHED_JOINTS];
            make_detached(order, 0.3f, 0.6f, local, object);
            memcpy(before, object, sizeof object);
            float target[3] = {object[at[1]].position[0] - 0.4f + 0.8f * rand() / (float)RAND_MAX,
                               object[at[1]].position[1] + 0.1f * rand() / (float)RAND_MAX,
                               object[at[1]].position[2] - 0.1f - 0.8f * rand() / (float)RAND_MAX};
            double reach = distance3(target, object[at[1]].position);
            if (reach > THIGH + SHIN - 1e-3 || reach < 0.1)
                continue;
            ++tried;
            const float *rotation = i % 2 ? flat : NULL;
            memcpy(general, object, sizeof object);
            memcpy(prepared, object, sizeof object);
            CHECK(pose_ik_two_bone_object(parents, DETACHED_JOINTS, chain, target, rotation, 1.0f, general));
            CHECK(pose_ik_two_bone_leg(&leg, target, rotation, 1.0f, prepared));
            differences += memcmp(general, prepared, sizeof general) != 0;
            CHECK(pose_ik_two_bone(parents, DETACHED_JOINTS, chain, target, rotation, 1.0f, local, object));
            joint_pose again[DETACHED_JOINTS];
            pose_to_object(parents, DETACHED_JOINTS, local, again);
            for (int j = 0; j < DETACHED_JOINTS; ++j) {
                worst_local = fmax(worst_local, distance3(again[j].position, object[j].position));
                worst_local = fmax(worst_local, distance3(general[j].position, object[j].position));
            }
            worst_reach = fmax(worst_reach, distance3(general[at[3]].position, target));
            const int bones[3][2] = {{1, 2}, {2, 3}, {3, 4}}; /* thigh, shin (knee to ankle), foot */
            for (int b = 0; b < 3; ++b)
                worst_length = fmax(worst_length, fabs(distance3(general[at[bones[b][0]]].position,
                                                                 general[at[bones[b][1]]].position) -
                                                       distance3(before[at[bones[b][0]]].position,
                                                                 before[at[bones[b][1]]].position)));
            if (rotation) {
                double dot = 0.0;
                for (int k = 0; k < 4; ++k)
                    dot += (double)general[at[3]].rotation[k] * flat[k];
                worst_turn = fmax(worst_turn, 1.0 - fabs(dot));
            }
            for (int k = 5; k < 7; ++k) /* the lever and target are not the leg's */
                differences += memcmp(&general[at[k]], &before[at[k]], sizeof before[0]) != 0;
            differences += memcmp(&general[0], &before[0], sizeof before[0]) != 0;
        }
    }
    CHECK(tried > 200);
    CHECK(differences == 0);
    CHECK(worst_reach <= 1e-4);
    CHECK(worst_length <= 1e-5);
    CHECK(worst_local <= 1e-5);
    CHECK(worst_turn <= 1e-6);
    CHECK(!pose_ik_ankle_detached(leg_parents, LEG_JOINTS, &leg_chain));

    /* The shin's end from the bind pose: the leg is bent for it to meet the foot at any weight, also where
     * the foot was posed away from it (as blending clips parts them); the foot goes weight of the way to the
     * target, and at weight 0 stays where it was. */
    double worst_meet = 0.0, worst_goal = 0.0, worst_end = 0.0;
    int foot_moved_at_zero = 0, beyond = 0;
    for (int order = 0; order < 2; ++order) {
        const int *parents = detached_parents[order], *at = detached_joint[order];
        joint_pose bind_local[DETACHED_JOINTS], bind[DETACHED_JOINTS];
        make_detached(order, 0.0f, 0.0f, bind_local, bind);
        pose_ik_chain chain = detached_chains[order];
        pose_ik_chain_set_end(parents, DETACHED_JOINTS, bind, &chain);
        worst_end = fmax(worst_end, fabs(sqrt((double)chain.end[0] * chain.end[0] + (double)chain.end[1] * chain.end[1] +
                                              (double)chain.end[2] * chain.end[2]) -
                                         distance3(bind[at[2]].position, bind[at[3]].position)));
        pose_ik_chain attached = leg_chain;
        pose_ik_chain_set_end(leg_parents, LEG_JOINTS, bind, &attached);
        CHECK(attached.end[0] == 0.0f && attached.end[1] == 0.0f && attached.end[2] == 0.0f);
        pose_ik_leg leg;
        CHECK(pose_ik_leg_prepare(parents, DETACHED_JOINTS, &chain, &leg) && leg.detached);
        for (int i = 0; i < 100; ++i) {
            joint_pose local[DETACHED_JOINTS], object[DETACHED_JOINTS], before[DETACHED_JOINTS];
            make_detached(order, 0.6f * rand() / (float)RAND_MAX - 0.3f, 0.2f + 0.8f * rand() / (float)RAND_MAX, local,
                          object);
            for (int k = 0; k < 3; ++k) /* the foot parted from the shin by up to 4 cm */
                local[at[6]].position[k] += 0.08f * rand() / (float)RAND_MAX - 0.04f;
            pose_to_object(parents, DETACHED_JOINTS, local, object);
            memcpy(before, object, sizeof object);
            float weight = (float)(i % 5) / 4.0f;
            float target[3] = {object[at[3]].position[0] + 0.2f * rand() / (float)RAND_MAX - 0.1f,
                               object[at[3]].position[1] + 0.2f * rand() / (float)RAND_MAX - 0.1f,
                               object[at[3]].position[2] + 0.1f * rand() / (float)RAND_MAX};
            joint_pose prepared[DETACHED_JOINTS];
            memcpy(prepared, object, sizeof object);
            CHECK(pose_ik_two_bone_object(parents, DETACHED_JOINTS, &chain, target, NULL, weight, object));
            CHECK(pose_ik_two_bone_leg(&leg, target, NULL, weight, prepared));
            differences += memcmp(prepared, object, sizeof object) != 0;
            float goal[3], end[3];
            for (int k = 0; k < 3; ++k)
                goal[k] = before[at[3]].position[k] + weight * (target[k] - before[at[3]].position[k]);
            glm_quat_rotatev(object[at[2]].rotation, chain.end, end);
            glm_vec3_add(end, object[at[2]].position, end);
            worst_goal = fmax(worst_goal, distance3(object[at[3]].position, goal));
            double reach = distance3(before[at[1]].position, goal);
            if (reach < THIGH + SHIN - 1e-3) /* beyond, the leg points at the foot as straight as it goes */
                worst_meet = fmax(worst_meet, distance3(end, object[at[3]].position));
            else
                ++beyond;
            if (weight == 0.0f)
                foot_moved_at_zero += memcmp(&object[at[3]], &before[at[3]], sizeof before[0]) != 0 ||
                                      memcmp(&object[at[4]], &before[at[4]], sizeof before[0]) != 0;
        }
    }
    printf("  detached foot: shin's end to the foot %.2g, foot to its goal %.2g at worst; %d of 200 out of reach\n",
           worst_meet, worst_goal, beyond);
    CHECK(beyond < 100);
    CHECK(worst_end <= 1e-6);
    CHECK(worst_meet <= 1e-5);
    CHECK(worst_goal <= 1e-5);
    CHECK(foot_moved_at_zero == 0);
    CHECK(differences == 0);

    /* The foot beside the knee, both under the hip: the thigh would carry it; refused. */
    const int beside[6] = {-1, 0, 1, 2, 1, 4};
    pose_ik_chain beside_chain = {.hip = 1, .knee = 3, .ankle = 4};
    joint_pose object[6];
    for (int j = 0; j < 6; ++j)
        random_joint(&object[j]);
    float target[3] = {0.0f, 0.0f, -0.5f};
    pose_ik_leg leg;
    CHECK(!pose_ik_two_bone_object(beside, 6, &beside_chain, target, NULL, 1.0f, object));
    CHECK(!pose_ik_leg_prepare(beside, 6, &beside_chain, &leg));
    CHECK(!pose_ik_ankle_detached(beside, 6, &beside_chain));
}

static void test_no_allocation(void)
{
    joint_pose local[LEG_JOINTS], object[LEG_JOINTS];
    float flat[4] = {0.0f, 0.0f, 0.0f, 1.0f};
    long before = heap_calls;
    for (int i = 0; i < 100; ++i) {
        make_leg(local, 0.3f, 0.6f, THIGH);
        pose_to_object(leg_parents, LEG_JOINTS, local, object);
        float target[3] = {0.01f * (float)i - 0.5f, 0.1f, 0.2f};
        CHECK(pose_ik_two_bone(leg_parents, LEG_JOINTS, &leg_chain, target, i % 2 ? flat : NULL, 0.01f * (float)i,
                               local, object));
    }
    CHECK(heap_calls == before);
}

int main(void)
{
    RUN(test_reachable_targets_are_reached);
    RUN(test_targets_off_the_plane_and_a_joint_between);
    RUN(test_unreachable_targets_give_a_straight_leg);
    RUN(test_weight_zero_changes_nothing);
    RUN(test_weight_moves_the_ankle_continuously);
    RUN(test_ankle_rotation);
    RUN(test_degenerate_inputs_stay_finite);
    RUN(test_misuse_is_refused_untouched);
    RUN(test_object_variant_matches);
    RUN(test_prepared_leg_matches);
    RUN(test_detached_ankle);
    RUN(test_no_allocation);
    return check_report();
}
