/* joint_pose: one joint's rotation and translation, the unit every pose stage reads and writes.
 * 32 bytes, 16-byte aligned so cglm's SSE paths can load the quaternion directly. */
#ifndef MARIONETTE_JOINT_POSE_H
#define MARIONETTE_JOINT_POSE_H

typedef struct joint_pose {
    _Alignas(16) float rotation[4]; /* unit quaternion x, y, z, w (cglm's versor order) */
    float position[3];
    float unused; /* padding to 32 bytes; always 0 */
} joint_pose;

_Static_assert(sizeof(joint_pose) == 32, "joint_pose is two 16-byte lanes");

#endif
