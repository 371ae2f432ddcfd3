/* pose_internal: what pose_skin.c shares with pose_dq.c and nobody else sees: the check both skinnings make
 * before writing anything, and the skinned box, whichever way a vertex is skinned. */
#ifndef MARIONETTE_POSE_INTERNAL_H
#define MARIONETTE_POSE_INTERNAL_H

#include <stdbool.h>

#include "../model/model.h"

/* A palette index a weighted influence names that the palette does not have would read out of bounds:
 * every skinning stage refuses such a mesh before writing anything. */
bool pose_skin_joints_fit(const skin_mesh *mesh, int joint_count);

/* The check both tangent skinnings make before writing anything: a mesh with tangents, joints and weights
 * for its vertices, a palette (given: not NULL) of joint_count joints its weighted influences fit, room. */
bool pose_skin_tangents_fit(const skin_mesh *mesh, bool palette_given, int joint_count, const void *tangents);

/* Vertex v of mesh skinned by palette (whatever its kind), its position only. */
typedef void pose_skin_vertex_position(const skin_mesh *mesh, int v, const void *palette, float out[3]);

/* The box of every vertex of the meshes as `skin` places them; false (out untouched) on misuse, a weighted
 * joint index >= joint_count, or no vertices. */
bool pose_skinned_box(const skin_mesh *meshes, int mesh_count, int joint_count, pose_skin_vertex_position *skin,
                      const void *palette, float out[2][3]);

#endif
