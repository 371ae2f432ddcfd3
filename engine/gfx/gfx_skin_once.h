/* gfx_skin_once: skinning each vertex once a frame for both passes (gfx_frame_desc.skin_once). The
 * groups (mesh, level) whose picture level uses most of the mesh's vertices are run through the skinning
 * vertex shader once, with transform feedback capturing the object-space positions and normals into the
 * skinned-vertex buffer; the shadow pass and the picture then fetch them (the CPU-skinned programs in
 * their captured layout) instead of skinning again. Coarser groups, whose levels use a fraction of the
 * vertices, skin in each pass as usual. Private to engine/gfx. */
#ifndef MARIONETTE_GFX_SKIN_ONCE_H
#define MARIONETTE_GFX_SKIN_ONCE_H

#include "gfx_internal.h"

bool gfx_skin_once_setup(void);
void gfx_skin_once_shutdown(void);
/* After the instances are sorted and uploaded, before the shadow pass: choose the groups, make room and
 * capture. Returns the vertices captured (0: none, every group skins in each pass). */
int gfx_skin_once_capture(void);

#endif
