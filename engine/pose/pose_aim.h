/* pose_aim: look-at, a pose stage in the shape of pose.h's jobs (validated inputs, caller-owned buffers, no
 * allocation, no globals). It turns a chain of joints (a head, its neck, a spine joint or two) so the head
 * faces a target point, the turn spread over the chain and limited per joint.
 * Knows nothing of clips, entities, cameras or the animation controller: it is given an object-space pose
 * and a target, and rewrites that pose. */
#ifndef MARIONETTE_POSE_AIM_H
#define MARIONETTE_POSE_AIM_H

#include <stdbool.h>

#include "../model/joint_pose.h"
#include "../model/model.h"

enum { POSE_AIM_JOINTS_MAX = 4 };

/* A look-at chain. Angles are in radians, directions unit vectors.
 * - joints[0] is the head; joints[k + 1] is an ancestor of joints[k] (the neck, then the spine below it).
 * - shares: each joint's part of the turn, summing to 1. The turn is worked out from the lowest joint up:
 *   each takes its share of what is still left (share / the shares of it and the joints above it), so the
 *   head, last, takes whatever its limits allow of the rest.
 * - yaw_limits, pitch_limits: the most each joint turns from where the animation put it, about up (yaw,
 *   either way) and about the head's side axis (pitch, up or down).
 * - forward: the way the face looks, in the head joint's own frame (pose_aim_head_forward finds it).
 * - up: object space's up (the file's up axis, anim_axes), the axis yaw turns about. */
typedef struct pose_aim_chain {
    int joint_count; /* 1..POSE_AIM_JOINTS_MAX */
    int joints[POSE_AIM_JOINTS_MAX];
    float shares[POSE_AIM_JOINTS_MAX];
    float yaw_limits[POSE_AIM_JOINTS_MAX];
    float pitch_limits[POSE_AIM_JOINTS_MAX];
    float forward[3];
    float up[3];
} pose_aim_chain;

/* The head's forward in its own frame, from the bind pose: the object-space direction the character faces
 * (`facing`, unit, as its import says) brought into the head joint's bind frame. False for a joint out of
 * range or a facing that is not a direction. */
bool pose_aim_head_forward(const skeleton *s, int head, const float facing[3], float forward[3]);

/* The turn the head needs to face target (object space) from the pose as it is: yaw (-pi..pi, positive
 * turning left about up) and pitch (positive up), radians. A target at the head's position, or straight
 * above or below it, needs no yaw (and none at all at the head). False on misuse (as pose_aim); then the
 * angles are 0. */
bool pose_aim_measure(const pose_aim_chain *chain, int joint_count, const joint_pose *object, const float target[3],
                      float *yaw, float *pitch);

/* Turn the chain so the head faces target (object space), as far as weight (0..1) asks and the limits allow.
 * - Each joint turns about up by its yaw, then about the head's side axis by its pitch, about its own
 *   position, and every joint below it turns with it. The turns are worked out joint by joint from the
 *   lowest, measured from where the head is after the joints below have turned, so the head's forward ends
 *   on the target exactly (within float rounding) when the target is within the limits.
 * - weight w turns the head to w of the way in yaw and pitch from the animated pose towards the target
 *   (continuous in w and in the target); 0 changes nothing, bit for bit. A target outside the limits gives
 *   every joint its limit on that side and no more.
 * - A target at the head's position, or a head looking straight up or down, leaves the pose as it was.
 * object is the pose in object space (pose_to_object's result, joint_count joints): the chain's joints and
 * every joint below the lowest get their new rotations and positions; nothing else is written. The local
 * pose it came from is not kept in step: what comes after (the palette) reads object space.
 * False, and nothing written, on misuse: NULL pointers, a chain that is not a line of ancestors up from the
 * head, parents[i] >= i, a non-finite target, a weight outside [0, 1], a share or limit negative or not
 * finite. */
bool pose_aim(const int *parents, int joint_count, const pose_aim_chain *chain, const float target[3], float weight,
              joint_pose *object);

#endif
