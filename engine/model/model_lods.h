/* model_lods: coarser versions of a model's skinned meshes for characters seen from afar, made by
 * engine/build (build_lod.h) from a model and kept beside it (never inside it: the model stays what the
 * file said, shared and immutable). Every level indexes the model's own vertices, so it keeps the
 * vertices' skinning weights and joints as they are; only the triangle lists differ.
 * Knows nothing of files, GL or how the levels were simplified. */
#ifndef MARIONETTE_MODEL_LODS_H
#define MARIONETTE_MODEL_LODS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum { LOD_LEVELS_MAX = 5 }; /* the full mesh, up to three coarser levels, and the far stand-in */

/* One skin_mesh's triangles at each level. */
typedef struct mesh_lod {
    int triangle_count[LOD_LEVELS_MAX];
    uint32_t (*triangles[LOD_LEVELS_MAX])[3]; /* indices < the skin_mesh's vertex_count, the file's winding */
} mesh_lod;

typedef struct model_lods {
    int level_count;              /* 1..LOD_LEVELS_MAX levels, the same for every mesh; level 0 is the full
                                   * mesh (every triangle of the file, reordered for the GPU's caches) */
    bool last_is_stand_in;        /* the last level is the far stand-in: a few hundred triangles in all,
                                   * simplified with no error limit (build_lod.h says how; drawn only when
                                   * the frame asks for stand-ins) */
    float error[LOD_LEVELS_MAX];  /* how far a level's surface may stray from the full mesh, in the model's
                                   * units (before any world scale); error[0] is 0; never decreasing */
    int triangles[LOD_LEVELS_MAX];/* triangles of every mesh together, per level */
    int mesh_count;               /* the model's mesh_count */
    mesh_lod *meshes;
    size_t bytes;                 /* heap bytes owned, for statistics */
} model_lods;

void model_lods_free(model_lods *lods);

#endif
