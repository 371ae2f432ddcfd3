/* build_lod: a model's skinned meshes -> their levels of detail (model_lods.h), once per model when it is
 * loaded: the full mesh reordered for the GPU's caches, up to three coarser levels made by meshoptimizer's
 * simplifier, and a far stand-in of a few hundred triangles. Every level indexes the model's own vertices
 * in the file's winding, so weights and joints stay valid at every level.
 * Knows nothing of file formats, GL, the cache or how a level is chosen at draw time. */
#ifndef MARIONETTE_BUILD_LOD_H
#define MARIONETTE_BUILD_LOD_H

#include <stdbool.h>

#include "../base/diag.h"
#include "../model/model.h"
#include "../model/model_lods.h"

enum {
    BUILD_LOD_COARSER_MAX = 3,              /* coarser levels between the full mesh and the stand-in */
    BUILD_LOD_STAND_IN_TRIANGLES = 100,     /* the stand-in's default budget, the whole model together */
    BUILD_LOD_STAND_IN_TRIANGLES_MAX = 100000,
    BUILD_LOD_STAND_IN_MESH_MINIMUM = 8     /* triangles each mesh keeps in the stand-in (when it has them) */
};

/* How the simplifier treats a mesh's open borders (edges with a triangle on one side only). MD5 meshes
 * split vertices at UV seams; meshoptimizer welds those by position itself, so seams are not borders. */
typedef enum build_lod_borders {
    BUILD_LOD_BORDERS_DEFAULT = 0, /* BUILD_LOD_BORDERS_FREE (measured: docs/levels-of-detail.md) */
    BUILD_LOD_BORDERS_FREE,        /* borders may move and collapse like any edge */
    BUILD_LOD_BORDERS_LOCKED       /* meshopt_SimplifyLockBorder: border vertices never move */
} build_lod_borders;

/* Zero in any field means its default (sokol style); a NULL desc is all defaults. */
typedef struct build_lod_desc {
    /* Each coarser level's target, as a share of the full mesh's triangles, in (0, 1), decreasing; default
     * 0.5, 0.25, 0.12. A level ends early where a zero follows a given value: {0.4f, 0.1f} makes two
     * coarser levels. A level no mesh could make coarser than the one before is dropped. */
    float ratios[BUILD_LOD_COARSER_MAX];
    /* The stand-in's triangles for the whole model, shared among the meshes by their triangle counts
     * (each keeps at least BUILD_LOD_STAND_IN_MESH_MINIMUM), 1..BUILD_LOD_STAND_IN_TRIANGLES_MAX; default
     * BUILD_LOD_STAND_IN_TRIANGLES. */
    int stand_in_triangles;
    /* A coarser level stops short of its triangle target rather than stray further from the full mesh
     * than this share of the mesh's extent (meshopt_simplify's target_error), in (0, 1]; default 0.02. */
    float max_error;
    bool no_stand_in;              /* no stand-in level at all */
    build_lod_borders borders;
} build_lod_desc;

/* The levels of m's meshes into a new *out (free with model_lods_free). Level 0 holds every triangle of
 * each mesh, reordered (meshopt_optimizeVertexCache, then meshopt_optimizeOverdraw at 1.05); each coarser
 * level is simplified from level 0 (meshopt_simplify; from level 0 rather than from the level before: the
 * mannequin's third level strays 0.013 from the full mesh that way, 0.024 chained) towards its ratio, no
 * further than max_error, and reordered the same way; the stand-in, unless desc turns it off, is
 * meshopt_simplify of level 0 with no error limit, or meshopt_simplifySloppy's (topology ignored) where
 * the first keeps more than twice the mesh's share of the budget (build_lod.c says why). A mesh that
 * cannot get coarser keeps the previous level's triangles (its real count is stored). error[l] is
 * meshoptimizer's relative error times meshopt_simplifyScale of the mesh's positions, the largest over
 * the meshes, never decreasing. Every triangle array is allocated (at least one element), even empty.
 * Fails only on a desc out of range, out of memory, or more than INT_MAX triangles in all; any model a
 * reader builds is fine otherwise, meshes with no triangles included. Time and memory grow with the
 * triangle counts: 9-20 ms for the demo's 5,300-triangle bodies (docs/levels-of-detail.md). */
bool build_lods(const model *m, const build_lod_desc *desc, model_lods **out, diag *err);

#endif
