/* rig: the one humanoid skeleton every generated body and clip is built on.
 * Conventions (also in docs/assets.md): Doom 3 space, right-handed, Z up, 1 unit = 1 metre, about 1.8 m tall,
 * the character faces +X, so its left side is +Y. The root joint sits on the floor under the hips and
 * carries root motion; every other joint hangs off it. In the bind pose every joint's object-space
 * orientation is identity (joint axes parallel to the object's), so a joint's local translation is just
 * the difference of bind positions and clip rotations read as plain object-axis rotations.
 * Arms hang 45 degrees down (an A pose), which skins shoulders better than a T pose. */
#ifndef MARIONETTE_ASSETGEN_RIG_H
#define MARIONETTE_ASSETGEN_RIG_H

enum {
    RIG_ROOT,
    RIG_HIPS,
    RIG_SPINE_1,
    RIG_SPINE_2,
    RIG_SPINE_3,
    RIG_NECK,
    RIG_HEAD,
    /* Left arm, then the same order for the right arm (RIG_RIGHT_ARM_OFFSET further on). */
    RIG_CLAVICLE_L,
    RIG_UPPERARM_L,
    RIG_FOREARM_L,
    RIG_HAND_L,
    RIG_THUMB_1_L,
    RIG_THUMB_2_L,
    RIG_FINGERS_1_L,
    RIG_FINGERS_2_L,
    RIG_CLAVICLE_R,
    RIG_UPPERARM_R,
    RIG_FOREARM_R,
    RIG_HAND_R,
    RIG_THUMB_1_R,
    RIG_THUMB_2_R,
    RIG_FINGERS_1_R,
    RIG_FINGERS_2_R,
    /* Left leg, then right. */
    RIG_THIGH_L,
    RIG_SHIN_L,
    RIG_FOOT_L,
    RIG_TOE_L,
    RIG_THIGH_R,
    RIG_SHIN_R,
    RIG_FOOT_R,
    RIG_TOE_R,
    RIG_JOINT_COUNT
};

enum { RIG_RIGHT_ARM_OFFSET = RIG_CLAVICLE_R - RIG_CLAVICLE_L, RIG_RIGHT_LEG_OFFSET = RIG_THIGH_R - RIG_THIGH_L };

typedef struct rig_joint {
    const char *name;   /* "upperarm.L" */
    int parent;         /* -1 for the root; always smaller than the joint's own index */
    double position[3]; /* bind pose, object space, metres */
} rig_joint;

/* The table, RIG_JOINT_COUNT entries in index order. */
extern const rig_joint rig_joints[RIG_JOINT_COUNT];

/* Handy measurements of the rig, derived from the table. */
#define RIG_ANKLE_HEIGHT 0.08 /* foot joint above the floor in bind pose; the sole is at z = 0 */
#define RIG_HEEL_BACK 0.06    /* heel behind the ankle (-X) */
#define RIG_TOE_TIP_FRONT 0.20 /* toe tip in front of the ankle (+X) */

/* Index of the joint called name, or -1. */
int rig_find(const char *name);

/* Local (parent-relative) bind translation of joint i: position[i] - position[parent]. */
void rig_local_offset(int joint, double out[3]);

/* The same joint on the other side: left arm and leg joints map to the right ones and back; the root,
 * spine, neck and head map to themselves. */
int rig_mirror(int joint);

#endif
