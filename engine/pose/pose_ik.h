/* pose_ik: two-bone inverse kinematics, a pose stage in the shape of pose.h's jobs (validated inputs,
 * caller-owned buffers, no allocation, no globals). It bends a leg (hip, knee, ankle) so the ankle reaches
 * a target: foot placement on the ground, foot locking while a foot is planted.
 * Knows nothing of clips, entities, the ground or the animation controller: it is given a pose and a
 * target, and rewrites that pose. */
#ifndef MARIONETTE_POSE_IK_H
#define MARIONETTE_POSE_IK_H

#include <stdbool.h>

#include "../model/joint_pose.h"

/* The three joints of a leg. knee must descend from hip, and ankle from knee (joints between them, a thigh
 * twist, are allowed: they turn with the joint above them) or from neither hip nor knee: a foot that hangs
 * elsewhere, from an IK target under the root as some exporters rig it (the ankle detached). A detached
 * ankle is the leg's target, as in the rig it came from: the solve moves its branch (translated, turned to
 * the rotation asked for) and bends the leg for the shin's end to meet it. */
typedef struct pose_ik_chain {
    int hip;
    int knee;
    int ankle;
    float end[3]; /* a detached ankle's: where the shin ends, in the knee's frame (pose_ik_chain_set_end);
                   * all zero: where the ankle is posed */
} pose_ik_chain;

/* A detached ankle's end from the bind pose (object space, as skeleton.bind_object): the ankle's bind place
 * relative to the knee, in the knee's bind axes, so the solve bends the leg until the shin's mesh ends at
 * the foot however the clips' blend has moved the two apart. Leaves an attached leg's end zero. */
void pose_ik_chain_set_end(const int *parents, int joint_count, const joint_pose *bind_object, pose_ik_chain *chain);

/* The leg is never bent tighter than this (radians between thigh and shin): a target closer to the hip
 * than the folded leg reaches is met as near as it can be without folding the knee flat. */
#define POSE_IK_MIN_KNEE_ANGLE 0.01f

/* Bend the chain so its ankle reaches `target` (object space), as far as weight (0..1) asks.
 * - The knee turns about the axis of the plane the animation gave the leg (hip, knee, ankle), so it keeps
 *   bending to the side it bent in the animation and never backwards; the hip then turns the leg, by the
 *   shortest arc, to point at the target. A target beyond the leg's length gives a straight leg pointing at
 *   it (never past straight); one nearer than the folded leg, a leg folded to POSE_IK_MIN_KNEE_ANGLE
 *   pointing at it. An animated leg with no plane (straight) bends in the plane of the leg and the target;
 *   a target at the hip leaves the leg's direction as it was. Zero-length bones leave the pose unchanged.
 * - ankle_rotation, when not NULL, is the ankle's object-space rotation wanted (a unit quaternion, x y z w):
 *   the ankle turns to it by the same weight (a foot kept flat on the ground).
 * - weight scales the corrections (each a rotation, taken from none by slerp), so the result moves
 *   continuously from the animated pose (0) to the solved one (1). weight 0 changes nothing, bit for bit.
 *   A detached ankle instead goes weight of the way to the target (and its rotation), and the leg is bent
 *   all the way to meet it there: at weight 0 the leg is bent to the animated foot, which blending clips
 *   in local space (the foot's and the leg's rotations each interpolated on their own) parts from it.
 * local and object are the same pose in local and object space (pose_to_object's result): local gets the
 * new rotations of hip, knee (and ankle), object the new poses of hip and every joint below it. Joints
 * elsewhere are not written. False, and nothing written, on misuse: NULL pointers, a joint out of range,
 * parents[i] >= i (or < -1) for the hip or a joint after it (the only parents read), a chain that is not
 * one leg, a non-finite target or rotation, weight outside [0, 1]. */
bool pose_ik_two_bone(const int *parents, int joint_count, const pose_ik_chain *chain, const float target[3],
                      const float *ankle_rotation, float weight, joint_pose *local, joint_pose *object);

/* The same solve and result on an object pose alone, for a stage that runs after the pose is made and has
 * no local pose to hand (the animation controller keeps none per entity): hip, knee and every joint below
 * them turn as rigid branches, which is what new local rotations of hip, knee (and ankle) would give. The
 * object poses of the hip's branch (and a detached ankle's) are rewritten; equal to pose_ik_two_bone's within
 * float rounding. Same misuse rules, false and nothing written. */
bool pose_ik_two_bone_object(const int *parents, int joint_count, const pose_ik_chain *chain, const float target[3],
                             const float *ankle_rotation, float weight, joint_pose *object);

/* Is the chain a leg whose ankle hangs elsewhere (see pose_ik_chain)? False for a leg whose ankle descends
 * from its knee, and for any chain the solve refuses. */
bool pose_ik_ankle_detached(const int *parents, int joint_count, const pose_ik_chain *chain);

/* A leg made ready once for a skeleton (pose_ik_leg_prepare), for a caller that bends the same leg of many
 * poses of it (a crowd's foot lock): the chain and the skeleton's parents are checked once, and the joints
 * the solve moves (the hip's branch, a detached ankle's) are listed with the part each goes with, so pose_ik_two_bone_leg walks
 * neither the skeleton's parents nor its joints below the hip on every call. */
enum { POSE_IK_LEG_JOINTS = 32 }; /* the most joints a prepared leg's branch may hold (hip included) */

typedef struct pose_ik_leg {
    pose_ik_chain chain;
    int joint_count;                         /* the skeleton's */
    int moved_count;                         /* joints moved, 3 to POSE_IK_LEG_JOINTS */
    short moved[POSE_IK_LEG_JOINTS];         /* in increasing order (the hip's branch and a detached
                                              * ankle's) */
    unsigned char part[POSE_IK_LEG_JOINTS];  /* each one's part of the leg: 1 thigh, 2 shin, 3 foot */
    bool detached;                           /* the ankle hangs elsewhere (see pose_ik_chain) */
} pose_ik_leg;

/* Make leg ready for the skeleton (parents of joint_count joints): false (leg left as it was) where
 * pose_ik_two_bone_object would refuse the chain, or the joints it moves are more than POSE_IK_LEG_JOINTS
 * (pose_ik_two_bone_object still bends such a leg). */
bool pose_ik_leg_prepare(const int *parents, int joint_count, const pose_ik_chain *chain, pose_ik_leg *leg);

/* pose_ik_two_bone_object for a prepared leg: the same result, bit for bit. object is a pose of the
 * skeleton the leg was prepared for (leg->joint_count joints). False, nothing written, on a NULL pointer, a
 * leg not prepared, a non-finite target or rotation, weight outside [0, 1]. */
bool pose_ik_two_bone_leg(const pose_ik_leg *leg, const float target[3], const float *ankle_rotation, float weight,
                          joint_pose *object);

#endif
