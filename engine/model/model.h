/* model: a skeleton in bind pose and the skinned meshes on it, built from a character file by
 * engine/build and immutable after load so any number of entities can share one copy. The inverse bind
 * matrices belong here, not to clips: that is what lets bodies of different shape share the same
 * animation data.
 * Knows nothing of files, GL or the clips that animate it. */
#ifndef MARIONETTE_MODEL_H
#define MARIONETTE_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include <cglm/cglm.h>

#include "joint_pose.h"

enum { SKIN_MAX_INFLUENCES = 4 };

typedef struct skeleton {
    int joint_count;
    char **names;             /* joint_count NUL-terminated names */
    int *parents;             /* -1 for a root; otherwise parents[i] < i */
    joint_pose *bind_object;  /* bind pose in object space (as the .md5mesh joints section stores it) */
    mat4 *inverse_bind;       /* inverse of each joint's bind matrix in object space */
} skeleton;

typedef struct skin_mesh {
    char *shader;             /* as written in the file (may be "", absolute, extension-less) */
    int shader_line;          /* the line of the shader statement in the file; 0 when there is none */
    char *texture_path;       /* resolved image path, or NULL: use a placeholder texture */
    int vertex_count;
    int triangle_count;
    float (*positions)[3];    /* bind pose, object space */
    float (*normals)[3];      /* bind pose, from triangle faces, unit length (0,0,1 for lone vertices) */
    /* Bind-pose tangent frames for normal maps: xyz the unit tangent, at right angles to the normal, along
     * which the texture's u grows; w the handedness, +1 or -1, so that the bitangent, the direction v grows,
     * is w * cross(normal, tangent). From the UVs of the triangles around each vertex, area-weighted (a vertex
     * on a mirror seam takes the side with more UV area); a vertex whose triangles have no UV area gets some
     * tangent at right angles to its normal, w +1. */
    float (*tangents)[4];
    float (*uvs)[2];
    uint32_t (*triangles)[3]; /* indices < vertex_count, winding as in the file */
    uint16_t (*joints)[SKIN_MAX_INFLUENCES];  /* unused slots: joint 0 with weight 0 */
    float (*weights)[SKIN_MAX_INFLUENCES];    /* sorted largest first, sum to 1 */
    int weight_count;         /* weights in the file's mesh block */
    int max_influences;       /* largest countWeight of any vertex in the file */
    int vertices_cut;         /* vertices that had more than SKIN_MAX_INFLUENCES weights */
    float largest_weight_lost;/* largest share of a vertex's total weight dropped by that cut */
} skin_mesh;

typedef struct model {
    skeleton skeleton;
    int mesh_count;
    skin_mesh *meshes;
    size_t bytes;             /* heap bytes this model owns, for the cache's statistics */
    /* How far any vertex sits from a joint that moves it (bind pose, the 4 kept influences). Skinning
     * blends rigid copies of a vertex around those joints, so however the skeleton is posed every vertex
     * stays within this distance of the box of its joints: a clip's joint bounds grown by skin_reach hold
     * this body, whichever body the clip was made for. */
    float skin_reach;
    /* The box of every vertex in bind pose, object space (min xyz, max xyz); all zero with no vertices.
     * A character's height along any axis is read from it without walking the vertices. */
    float bind_bounds[2][3];
} model;

void model_free(model *m);

/* The first joint named name (exactly), or -1. */
int skeleton_find_joint(const skeleton *s, const char *name);

#endif
