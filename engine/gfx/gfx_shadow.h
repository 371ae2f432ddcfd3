/* gfx_shadow: the light's shadow map: a depth texture drawn from the light each frame (the instances
 * skinned by the picture's own path), fitted around the frame's instances and snapped to whole texels.
 * Private to engine/gfx; knows nothing of meshes beyond drawing them through gfx_draw. */
#ifndef MARIONETTE_GFX_SHADOW_H
#define MARIONETTE_GFX_SHADOW_H

#include "gfx_internal.h"

/* The depth texture and its framebuffer, at gfx.shadow_map_size; false with err when incomplete. */
bool gfx_shadow_setup(diag *err);
void gfx_shadow_shutdown(void);
/* gfx.light_view_projection and gfx.shadow_texel_metres for this frame. */
void gfx_shadow_fit(void);
/* The depth pass into the shadow map; returns its draw calls. */
int gfx_shadow_draw(gfx_stats *stats);

#endif
