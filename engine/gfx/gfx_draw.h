/* gfx_draw: the draws the frame is made of: the queued instances sorted by mesh into the instance buffer,
 * the uniforms every program shares, face culling, the frame's texture units, and the batched draw (one
 * instanced call per skin_mesh). Private to engine/gfx. */
#ifndef MARIONETTE_GFX_DRAW_H
#define MARIONETTE_GFX_DRAW_H

#include "gfx_internal.h"

/* Counting sort of the frame's instances by mesh into the instance staging (stable). */
void gfx_sort_instances_by_mesh(void);
void gfx_set_lighting_uniforms(const gfx_program *program, mat4 view_projection);
void gfx_set_culling(gfx_culling culling);
/* shadow_map: false while the shadow map is being drawn (a texture must not be read while written). */
void gfx_bind_frame_textures(bool shadow_map);
/* One instanced draw per skin_mesh and level with instances; shadow: at the shadow pass's levels; points:
 * every vertex once as a point; captured: the program for groups skinned once (NULL: none). Tells gfx_timer
 * what it drew. Returns the draw calls. */
int gfx_draw_batched(const gfx_program *program, const gfx_program *captured, mat4 view_projection, bool points,
                     bool shadow);
/* The levels a mesh's instances may be drawn at this frame: the stand-in only when the frame allows it. */
int gfx_usable_levels(const gfx_mesh_slot *slot);

#endif
