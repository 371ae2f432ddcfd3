/* gfx_shadow: the light's shadow map and the ground it falls on: a depth texture drawn from the light
 * each frame (the instances skinned by the picture's own path) into the part of it that the camera's
 * view needs (gfx_shadow_fit.h), and the ground drawn with the shadow lookup only where a shadow may fall.
 * Private to engine/gfx; knows nothing of meshes beyond drawing them through gfx_draw. */
#ifndef MARIONETTE_GFX_SHADOW_H
#define MARIONETTE_GFX_SHADOW_H

#include "gfx_internal.h"

/* The depth textures and their framebuffers, gfx.shadow_map_size and the smaller ones, and the ground's
 * buffers; false with err when a framebuffer is incomplete. */
bool gfx_shadow_setup(diag *err);
void gfx_shadow_shutdown(void);
/* A frame's casters: emptied by gfx_begin_frame, grown by each queued instance (bounds NULL: none), whose
 * own box with its shadow goes to [own_low, own_high] (empty when the frame has no shadows), for the sort
 * to tell whether its shadow reaches the fitted map (gfx_shadow_fit_casts). */
void gfx_shadow_begin(void);
void gfx_shadow_add_caster(mat4 world, const float bounds[2][3], vec3 own_low, vec3 own_high);
/* gfx.shadow_fit for this frame; turns gfx.shadows_on off when no shadow reaches the view. */
void gfx_shadow_fit_frame(void);
/* The depth pass into the shadow map; returns its draw calls. */
int gfx_shadow_draw(gfx_stats *stats);
/* The ground, shadowed where shadows may fall; returns its draw calls (1 or 2). */
int gfx_shadow_draw_ground(void);

#endif
