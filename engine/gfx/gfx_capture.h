/* gfx_capture: the reference check of GPU skinning against pose_skin_cpu, for tests: the frame's own
 * skinning vertex shader run on one skin_mesh, either way it skins, and its output captured by transform feedback. Not for the
 * game; knows nothing of files or windows. */
#ifndef MARIONETTE_GFX_CAPTURE_H
#define MARIONETTE_GFX_CAPTURE_H

#include "gfx.h"

/* Run the frame's own skinning vertex shader on one skin_mesh (index within the model) with a palette
 * and capture its object-space output (MD5 space, before any world transform) by transform feedback.
 * positions and normals hold the mesh's vertex_count entries; normals may be NULL. Outside a frame only. */
bool gfx_capture_skinning(gfx_mesh mesh, int mesh_index, const mat4 *palette, int joint_count,
                          float (*positions)[3], float (*normals)[3], diag *err);
/* The skinned tangent frames of the same run (xyz the tangent, w its handedness), for pose_skin_cpu_tangents or
 * pose_skin_cpu_dual_quaternion_tangents: palette is mat4 (linear) or pose_dual_quaternion as skinning says. */
bool gfx_capture_tangents(gfx_mesh mesh, int mesh_index, const void *palette, pose_skinning skinning,
                          int joint_count, float (*tangents)[4], diag *err);
/* The same with dual-quaternion skinning (gfx_instance.skinning), for pose_skin_cpu_dual_quaternion. */
bool gfx_capture_dual_quaternion_skinning(gfx_mesh mesh, int mesh_index, const pose_dual_quaternion *palette,
                                          int joint_count, float (*positions)[3], float (*normals)[3], diag *err);

#endif
