/* pose_dq: dual-quaternion skinning, the stages beside pose.h's linear blend. Linear blend averages skin
 * matrices, and an average of rotations is no rotation: a joint twisted about its bone pinches its
 * vertices toward the bone (a wrist turned 150 degrees keeps 7% of its cross-section). Blending dual
 * quaternions (a rotation and a translation as one unit quantity) and normalising the blend gives a rigid
 * motion again, so the flesh turns instead of collapsing; what it costs is a little more arithmetic per
 * vertex and a slight bulge at joints that bend far. Same shape as pose.h: pure stages, caller-owned
 * buffers, no allocation, arguments validated (false on misuse, outputs untouched).
 * Knows nothing of files, GL, the cache or the animation controller. */
#ifndef MARIONETTE_POSE_DQ_H
#define MARIONETTE_POSE_DQ_H

#include <stdbool.h>

#include <cglm/cglm.h>

#include "../model/joint_pose.h"
#include "../model/model.h"

/* How a character's vertices follow its joints. Zero is linear blend, the default everywhere. */
typedef enum pose_skinning {
    POSE_SKINNING_LINEAR = 0,      /* pose_palette + pose_skin_cpu: matrices, averaged */
    POSE_SKINNING_DUAL_QUATERNION, /* pose_dual_quaternion_palette + pose_skin_cpu_dual_quaternion */
    POSE_SKINNING_COUNT
} pose_skinning;

/* "linear" or "dual_quaternion", as characters.ini writes them; "?" out of range. */
const char *pose_skinning_name(pose_skinning skinning);
/* The word back; false for anything else. */
bool pose_skinning_parse(const char *word, pose_skinning *out);

/* A rigid motion as a unit dual quaternion: real is the rotation (x, y, z, w, cglm's versor order), dual is
 * half the translation times it, t * real / 2 with t the pure quaternion (tx, ty, tz, 0). 8 floats, half a
 * skin matrix: a texel pair on the GPU. */
typedef struct pose_dual_quaternion {
    versor real;
    vec4 dual;
} pose_dual_quaternion;

/* Skin dual quaternions: out[i] is the rigid motion of pose_palette's matrix for joint i, object[i]
 * times the inverse of bind_object[i] (the skeleton's bind pose, whose inverse is the model's inverse_bind),
 * worked out on quaternions: no matrix is made. Rotations must be unit, as pose_to_object and the build
 * step write them. A character's scale is not in the skeleton but in its world matrix, applied after
 * skinning, so it stays outside the dual quaternion. */
bool pose_dual_quaternion_palette(const joint_pose *object, const joint_pose *bind_object, int joint_count,
                                  pose_dual_quaternion *out);

/* The dual quaternion of one rigid matrix (rotation columns and translation; no scale). */
void pose_dual_quaternion_from_matrix(const mat4 rigid, pose_dual_quaternion *out);

/* CPU dual-quaternion skinning of one mesh, the reference the vertex shader is tested against. Per vertex:
 * each influence's dual quaternion, negated when its real part points away from the first weighted
 * influence's (q and -q are one rotation, but their sum would cancel: antipodality), summed by weight,
 * normalised; the position moved by the result, the normal turned by its real part. Influences with weight
 * 0 are ignored whatever joint they name; any other joint index >= joint_count is refused. */
bool pose_skin_cpu_dual_quaternion(const skin_mesh *mesh, const pose_dual_quaternion *palette, int joint_count,
                                   float (*positions)[3], float (*normals)[3]);
/* The tangent frames the same way: each tangent turned by the vertex's blended real part (a rotation, so it
 * stays at right angles to the normal turned by it), w copied; the bind tangent where the influences
 * cancel. False as pose_skin_cpu_dual_quaternion, or for a mesh without tangents. */
bool pose_skin_cpu_dual_quaternion_tangents(const skin_mesh *mesh, const pose_dual_quaternion *palette,
                                            int joint_count, float (*tangents)[4]);

/* pose_skinned_bounds for dual-quaternion skinning: the box of the positions
 * pose_skin_cpu_dual_quaternion would write, exactly. */
bool pose_skinned_bounds_dual_quaternion(const skin_mesh *meshes, int mesh_count, const pose_dual_quaternion *palette,
                                         int joint_count, float out[2][3]);

#endif
