/* gfx_mesh: a model's skinned meshes on the GPU (gfx_make_mesh): per skin_mesh its static vertex and index
 * buffers, its texture (shared through gfx_texture) and the bind-pose copy the CPU skinning path reads, in
 * slots named by generation-checked handles. Private to engine/gfx beyond gfx.h's functions; knows nothing
 * of files or frames. */
#ifndef MARIONETTE_GFX_MESH_H
#define MARIONETTE_GFX_MESH_H

#include "gfx_internal.h"

/* Release every live mesh (gfx_shutdown). */
void gfx_meshes_release_all(void);

#endif
