#include "rig.h"

#include <string.h>

/* Arms: shoulder at 0.19 m from the middle, upper arm 0.29 m and forearm 0.26 m long, pointing 45 degrees
 * down and out (direction (0, 0.7071, -0.7071)); fingers continue the forearm's line, the thumb sits
 * forward (+X) of the hand. Legs: hip joints 0.10 m apart from the middle, thigh and shin 0.42 m each,
 * straight down; ankle 0.08 m above the floor, the ball of the foot 0.14 m forward of it. */
const rig_joint rig_joints[RIG_JOINT_COUNT] = {
    [RIG_ROOT] = {"root", -1, {0.0, 0.0, 0.0}},
    [RIG_HIPS] = {"hips", RIG_ROOT, {0.0, 0.0, 0.96}},
    [RIG_SPINE_1] = {"spine.01", RIG_HIPS, {0.0, 0.0, 1.06}},
    [RIG_SPINE_2] = {"spine.02", RIG_SPINE_1, {0.0, 0.0, 1.19}},
    [RIG_SPINE_3] = {"spine.03", RIG_SPINE_2, {0.0, 0.0, 1.33}},
    [RIG_NECK] = {"neck", RIG_SPINE_3, {0.0, 0.0, 1.50}},
    [RIG_HEAD] = {"head", RIG_NECK, {0.0, 0.0, 1.60}},

    [RIG_CLAVICLE_L] = {"clavicle.L", RIG_SPINE_3, {0.02, 0.04, 1.45}},
    [RIG_UPPERARM_L] = {"upperarm.L", RIG_CLAVICLE_L, {0.0, 0.19, 1.45}},
    [RIG_FOREARM_L] = {"forearm.L", RIG_UPPERARM_L, {0.0, 0.395061, 1.244939}},
    [RIG_HAND_L] = {"hand.L", RIG_FOREARM_L, {0.0, 0.578909, 1.061091}},
    [RIG_THUMB_1_L] = {"thumb.01.L", RIG_HAND_L, {0.025, 0.595, 1.035}},
    [RIG_THUMB_2_L] = {"thumb.02.L", RIG_THUMB_1_L, {0.045, 0.615, 1.005}},
    [RIG_FINGERS_1_L] = {"fingers.01.L", RIG_HAND_L, {0.0, 0.649620, 0.990380}},
    [RIG_FINGERS_2_L] = {"fingers.02.L", RIG_FINGERS_1_L, {0.0, 0.684975, 0.955025}},

    [RIG_CLAVICLE_R] = {"clavicle.R", RIG_SPINE_3, {0.02, -0.04, 1.45}},
    [RIG_UPPERARM_R] = {"upperarm.R", RIG_CLAVICLE_R, {0.0, -0.19, 1.45}},
    [RIG_FOREARM_R] = {"forearm.R", RIG_UPPERARM_R, {0.0, -0.395061, 1.244939}},
    [RIG_HAND_R] = {"hand.R", RIG_FOREARM_R, {0.0, -0.578909, 1.061091}},
    [RIG_THUMB_1_R] = {"thumb.01.R", RIG_HAND_R, {0.025, -0.595, 1.035}},
    [RIG_THUMB_2_R] = {"thumb.02.R", RIG_THUMB_1_R, {0.045, -0.615, 1.005}},
    [RIG_FINGERS_1_R] = {"fingers.01.R", RIG_HAND_R, {0.0, -0.649620, 0.990380}},
    [RIG_FINGERS_2_R] = {"fingers.02.R", RIG_FINGERS_1_R, {0.0, -0.684975, 0.955025}},

    [RIG_THIGH_L] = {"thigh.L", RIG_HIPS, {0.0, 0.10, 0.92}},
    [RIG_SHIN_L] = {"shin.L", RIG_THIGH_L, {0.0, 0.10, 0.50}},
    [RIG_FOOT_L] = {"foot.L", RIG_SHIN_L, {0.0, 0.10, RIG_ANKLE_HEIGHT}},
    [RIG_TOE_L] = {"toe.L", RIG_FOOT_L, {0.14, 0.10, 0.025}},

    [RIG_THIGH_R] = {"thigh.R", RIG_HIPS, {0.0, -0.10, 0.92}},
    [RIG_SHIN_R] = {"shin.R", RIG_THIGH_R, {0.0, -0.10, 0.50}},
    [RIG_FOOT_R] = {"foot.R", RIG_SHIN_R, {0.0, -0.10, RIG_ANKLE_HEIGHT}},
    [RIG_TOE_R] = {"toe.R", RIG_FOOT_R, {0.14, -0.10, 0.025}},
};

int rig_find(const char *name)
{
    for (int i = 0; i < RIG_JOINT_COUNT; ++i)
        if (strcmp(rig_joints[i].name, name) == 0)
            return i;
    return -1;
}

void rig_local_offset(int joint, double out[3])
{
    int parent = rig_joints[joint].parent;
    for (int k = 0; k < 3; ++k)
        out[k] = rig_joints[joint].position[k] - (parent >= 0 ? rig_joints[parent].position[k] : 0.0);
}

int rig_mirror(int joint)
{
    if (joint >= RIG_CLAVICLE_L && joint < RIG_CLAVICLE_R)
        return joint + RIG_RIGHT_ARM_OFFSET;
    if (joint >= RIG_CLAVICLE_R && joint < RIG_THIGH_L)
        return joint - RIG_RIGHT_ARM_OFFSET;
    if (joint >= RIG_THIGH_L && joint < RIG_THIGH_R)
        return joint + RIG_RIGHT_LEG_OFFSET;
    if (joint >= RIG_THIGH_R)
        return joint - RIG_RIGHT_LEG_OFFSET;
    return joint;
}
