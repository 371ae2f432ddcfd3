/* gfx_lod: which level of a mesh an instance is drawn at, as pure functions of numbers (no GL, no state):
 * the coarsest level whose simplification error, projected at the instance's distance, stays within a
 * budget of pixels, with hysteresis so an instance near a switching distance keeps its level; and the
 * shadow pass's level, one coarser. Unit-tested apart from any GL. */
#ifndef MARIONETTE_GFX_LOD_H
#define MARIONETTE_GFX_LOD_H

#include <stdbool.h>

#include <cglm/cglm.h>

/* Going coarser needs the coarser level's projected error within this share of the budget; staying needs
 * only the budget. Between the two an instance keeps the level it has (no flicker). */
#define GFX_LOD_HYSTERESIS 0.75f

/* Pixels one model unit covers on screen at a point, from the frame's view_projection and viewport
 * height, for an instance placed by `world` (its uniform scale counts) whose centre is `center` (world
 * space). 0 behind the camera (w <= 0); an orthographic projection gives the same figure everywhere. */
float gfx_lod_pixels_per_unit(mat4 view_projection, int viewport_height, mat4 world, const vec3 center);

/* The level to draw. errors: level_count errors in model units, non-decreasing; usable: levels 0..usable-1
 * may be chosen (the stand-in excluded by passing level_count - 1); pixels_per_unit as above (0: the
 * coarsest usable); error_pixels the budget (> 0); previous: the level drawn last frame, or -1. */
int gfx_lod_select(const float *errors, int usable, float pixels_per_unit, float error_pixels, int previous);

/* Whether a character `size_pixels` tall on screen is drawn as the far stand-in: at most limit_pixels
 * tall to stay one (was_stand_in), at most GFX_LOD_HYSTERESIS of it to become one; never with a limit <= 0. */
bool gfx_lod_use_stand_in(float size_pixels, float limit_pixels, bool was_stand_in);

/* The shadow pass's level for a picture level: one coarser, within the usable levels, where the shadow
 * map cannot tell the two apart: the coarser level's error (errors[] in model units times `scale`, the
 * instances' world scale) within `tolerance`, the lookup's normal offset in metres. A caster that strays
 * further from the surface that receives its shadow shadows that surface itself (dark stripes on a
 * character drawn finer than its shadow), so otherwise the shadow keeps the picture's level. */
int gfx_lod_shadow_level(const float *errors, int level, int usable, float scale, float tolerance);

#endif
