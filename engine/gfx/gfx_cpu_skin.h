/* gfx_cpu_skin: the CPU skinning path (gfx_frame_desc.cpu_skinning): every queued instance skinned by
 * pose_skin_cpu, the reference, into a staging buffer the CPU-skinned shaders fetch from a texture buffer.
 * Private to engine/gfx; the same batching and picture as skinning in the vertex shader. */
#ifndef MARIONETTE_GFX_CPU_SKIN_H
#define MARIONETTE_GFX_CPU_SKIN_H

#include "gfx_internal.h"

/* Room in the staging for `needed` skinned vertices (doubling); false when memory runs out. */
bool gfx_cpu_skin_grow(int needed);
/* Skin every queued instance from the staged palettes into the skinned staging. */
void gfx_cpu_skin_frame(void);

#endif
