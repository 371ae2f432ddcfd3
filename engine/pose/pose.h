/* pose: the per-frame stages, in the shape of ozz-animation's jobs. Each is a pure function of its
 * inputs: caller-owned output buffers, no allocation, no globals, arguments validated (false on misuse,
 * outputs untouched). A character's frame is
 *   sample (per clip) -> blend -> to_object -> palette -> (GPU or skin_cpu).
 * Buffers must be aligned as their types say (joint_pose and mat4: 16 bytes; malloc does that).
 * C11 does not convert mat4 * to const mat4 * by itself: pass a mutable palette or inverse-bind array as
 * (const mat4 *)array.
 * Knows nothing of files, GL, the cache or the animation controller. */
#ifndef MARIONETTE_POSE_H
#define MARIONETTE_POSE_H

#include <stdbool.h>

#include <cglm/cglm.h>

#include "../model/clip.h"
#include "../model/joint_pose.h"
#include "../model/model.h"

/* Local pose of clip c at `time` seconds: lerp positions and nlerp rotations between the two frames
 * around it. loop: wrap by the clip's loop_duration (either loop convention, see clip.h); otherwise clamp
 * to [0, once_duration] and hold the last frame. out has c->joint_count entries. */
bool pose_sample(const clip *c, float time, bool loop, joint_pose *out);

/* One joint of pose_sample's result (the same numbers), without sampling the others. */
bool pose_sample_joint(const clip *c, float time, bool loop, int joint, joint_pose *out);

/* Joints first_joint .. first_joint + joint_count - 1 of pose_sample's result (the same numbers) into
 * out[0 .. joint_count - 1]: for callers that work through a skeleton a slice at a time in a small buffer
 * (the animation controller keeps no whole-pose scratch per entity). */
bool pose_sample_range(const clip *c, float time, bool loop, int first_joint, int joint_count, joint_pose *out);

/* The clip's object-space bounding box at `time` (min xyz, max xyz), interpolated between the two frames
 * around it exactly as pose_sample interpolates the pose: for culling without sampling joints. */
bool pose_sample_bounds(const clip *c, float time, bool loop, float out[2][3]);

/* Weighted blend of pose_count local poses of joint_count joints. Weights need not sum to 1 (they are
 * normalized) but must be >= 0 with a positive sum. Rotations are sign-aligned to the first pose with
 * non-zero weight, summed and renormalized. Poses with weight 0 are not read. out may be one of the
 * poses. */
bool pose_blend(const joint_pose *const *poses, const float *weights, int pose_count, int joint_count,
                joint_pose *out);

/* Masked blend for overlay layers (an upper-body wave over a walk): joint i of out moves from base
 * towards layer by t = weight * joint_weights[i], positions by lerp and rotations by nlerp along the
 * shortest arc. t = 0 copies base's joint and t = 1 layer's, bit for bit, so joints outside a mask keep the
 * base pose exactly. weight and every joint weight must be finite and in [0, 1]. out may be base or
 * layer. */
bool pose_blend_masked(const joint_pose *base, const joint_pose *layer, const float *joint_weights, float weight,
                       int joint_count, joint_pose *out);

/* Additive layers (a lean or a breath on top of whatever plays), in local (parent) space.
 * The delta of a frame from a reference pose: rotation inverse(reference) * frame (normalized, w >= 0),
 * translation frame - reference. Computed once when an additive clip loads, so sampling it gives deltas.
 * out may be reference or frame. */
bool pose_additive_delta(const joint_pose *reference, const joint_pose *frame, int joint_count, joint_pose *out);

/* Add a delta pose to base: joint i gets t = weight * joint_weights[i] (joint_weights NULL: all 1) of its
 * delta: translation base + t * delta, rotation base * nlerp(identity, delta, t) along the shortest arc,
 * normalized. t = 0 copies base's joint bit for bit (weight 0, or outside the mask); t = 1 adds the whole
 * delta, so adding a clip's deltas to its reference gives back the clip (to rounding). weight and every
 * joint weight must be finite and in [0, 1]. out may be base or delta. */
bool pose_add(const joint_pose *base, const joint_pose *delta, float weight, const float *joint_weights,
              int joint_count, joint_pose *out);

/* Local to object space: roots as they are; otherwise pos = parent.pos + rotate(parent.rot, local.pos),
 * rot = normalize(parent.rot * local.rot). parents[i] < i is required (checked). Local rotations must be
 * unit, as pose_sample and pose_blend write them: the normalization only removes rounding. object may be
 * local (in place). */
bool pose_to_object(const int *parents, int joint_count, const joint_pose *local, joint_pose *object);

/* Two poses of one skeleton to object space at once: the same as pose_to_object on each, bit for bit. Where
 * the processor has AVX2 the two go through 256-bit registers together, one in each half (a crowd turns
 * its members two by two); elsewhere, and past 256 joints, one after the other. Each object may be its
 * local (in place); the two poses must not overlap each other. False, and nothing written, as
 * pose_to_object. */
bool pose_to_object_pair(const int *parents, int joint_count, const joint_pose *local_a, const joint_pose *local_b,
                         joint_pose *object_a, joint_pose *object_b);
/* Four at once: where the processor has AVX-512 in 512-bit registers, one pose in each quarter; elsewhere two
 * pairs. The same bits as pose_to_object on each; the same rules as pose_to_object_pair for the four. */
bool pose_to_object_quad(const int *parents, int joint_count, const joint_pose *const local[4],
                         joint_pose *const object[4]);

/* Skin matrices: palette[i] = matrix(object[i]) * inverse_bind[i], for unit object rotations (as
 * pose_to_object writes them) and affine inverse bind matrices (last row 0 0 0 1). */
bool pose_palette(const joint_pose *object, const mat4 *inverse_bind, int joint_count, mat4 *palette);

/* CPU skinning of one mesh with a palette of joint_count matrices: positions and unit normals, the
 * reference the GPU path is tested against. Linear blend skinning: each vertex's weighted sum of its
 * palette matrices transforms it; influences with weight 0 are ignored whatever joint they name; any
 * other joint index >= joint_count is refused. */
bool pose_skin_cpu(const skin_mesh *mesh, const mat4 *palette, int joint_count, float (*positions)[3],
                   float (*normals)[3]);

/* The mesh's tangent frames (skin_mesh.tangents) skinned as pose_skin_cpu skins its normals: each tangent
 * turned by the vertex's blended matrix, then made a unit vector at right angles to the vertex's skinned
 * normal (`normals`, as pose_skin_cpu wrote them: a blend of rotations is not one, so the turned tangent can
 * lean a little off it), the handedness w copied. What the vertex shader does, the reference it is tested
 * against. False as pose_skin_cpu, or for a mesh without tangents. */
bool pose_skin_cpu_tangents(const skin_mesh *mesh, const mat4 *palette, int joint_count, const float (*normals)[3],
                            float (*tangents)[4]);

/* The box (min xyz, max xyz, object space) of a model's meshes skinned by a palette, exactly: the
 * positions pose_skin_cpu would write, without writing them (no normals, no buffers), for a bounds view
 * that must show where the mesh is. Costs about what skinning on the CPU costs. False (out untouched) on
 * misuse, a weighted joint index >= joint_count, or no vertices. */
bool pose_skinned_bounds(const skin_mesh *meshes, int mesh_count, const mat4 *palette, int joint_count,
                         float out[2][3]);

#endif
