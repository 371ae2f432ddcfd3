/* The SSE2 build of the pose stages (engine/pose/pose_*.c) alone (POSE_NO_CLONES), as one translation unit,
 * every public name prefixed sse2_, for test_pose_builds to compare with the engine's own copy. */
#define POSE_NO_CLONES
#define pose_sample_range sse2_pose_sample_range
#define pose_sample sse2_pose_sample
#define pose_sample_joint sse2_pose_sample_joint
#define pose_sample_bounds sse2_pose_sample_bounds
#define pose_blend sse2_pose_blend
#define pose_additive_delta sse2_pose_additive_delta
#define pose_add sse2_pose_add
#define pose_blend_masked sse2_pose_blend_masked
#define pose_to_object sse2_pose_to_object
#define pose_to_object_pair sse2_pose_to_object_pair
#define pose_to_object_quad sse2_pose_to_object_quad
#define pose_palette sse2_pose_palette
#define pose_dual_quaternion_palette sse2_pose_dual_quaternion_palette
#define pose_skin_joints_fit sse2_pose_skin_joints_fit
#define pose_skin_tangents_fit sse2_pose_skin_tangents_fit
#define pose_skin_cpu sse2_pose_skin_cpu
#define pose_skin_cpu_tangents sse2_pose_skin_cpu_tangents
#define pose_skinned_box sse2_pose_skinned_box
#define pose_skinned_bounds sse2_pose_skinned_bounds
#include "../engine/pose/pose_sample.c"
#include "../engine/pose/pose_blend.c"
#include "../engine/pose/pose_object.c"
#include "../engine/pose/pose_palette.c"
#include "../engine/pose/pose_skin.c"
