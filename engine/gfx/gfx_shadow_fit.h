/* gfx_shadow_fit: where the shadow map looks and how fine its texels are, as pure math: the light's
 * orthographic view of what the camera sees up to a shadow distance, cut to the casters, at about one
 * texel per two screen pixels. Knows nothing of GL (it is unit-tested without a context) nor of meshes. */
#ifndef MARIONETTE_GFX_SHADOW_FIT_H
#define MARIONETTE_GFX_SHADOW_FIT_H

#include <stdbool.h>

#include <cglm/cglm.h>

/* How far from the camera shadows fall when the frame does not say (gfx_frame_desc.shadow_distance),
 * metres: the ground's grid has faded into the sky by 40 m. */
#define GFX_SHADOW_DEFAULT_DISTANCE 40.0f
#define GFX_SHADOW_MAX_DISTANCE 1000.0f
/* Shadow maps kept: the largest and up to six smaller ones, each side the last's over the square root of
 * two (gfx_shadow_map_side), none under 64 texels: a CPU rasterizer pays for a map's whole area each frame
 * it is drawn into and read, so the fit picks the smallest that holds its window. All of them together
 * take about twice the largest's memory. */
#define GFX_SHADOW_MAP_LEVELS 7
/* A shadow texel spans about this many screen pixels where the nearest caster stands. Four bilinear
 * compared taps keep a 2-pixel texel's edge soft, and the map has a quarter of the texels of a 1-pixel
 * one: render_bench's character, 6.3 -> 1.65 ms for the shadow on llvmpipe (its map drops a size). */
#define GFX_SHADOW_PIXELS_PER_TEXEL 2.0f

/* An instance without bounds casts from a box this far around its origin, metres: a character's height
 * and arm span. */
#define GFX_SHADOW_UNBOUNDED_EXTENT 2.0f

/* What the fit needs to know of a frame. */
typedef struct gfx_shadow_view {
    mat4 view, projection;   /* the camera's */
    int viewport_height;     /* pixels */
    vec3 light_unit;         /* the direction light travels, unit length */
    float distance;          /* metres of the camera's view that shadows cover, > 0 */
    vec3 casters_low, casters_high; /* a world box holding every caster and its shadow on the ground's
                                     * lowest height (gfx_shadow_caster_box with ground_heights[0]) */
    float ground_heights[2];        /* the lowest and highest the ground reaches, metres (both 0: flat) */
    int map_size;            /* the largest shadow map's side, texels */
    int map_levels;          /* maps to pick from, 1..GFX_SHADOW_MAP_LEVELS (see gfx_shadow_map_side) */
} gfx_shadow_view;

/* The fitted shadow map. */
typedef struct gfx_shadow_fit {
    bool empty;                /* no caster's shadow reaches the covered view: no depth pass is needed */
    int map_level;             /* the smallest map that holds the window (gfx_shadow_map_side) */
    int map_size;              /* its side, texels */
    mat4 light_view_projection; /* world to that map's clip space; the fitted window fills texels
                                * [0, texels[0]) x [0, texels[1]) of it, the rest is unused */
    int texels[2];             /* the used part of the map, 1..map_size each */
    float texel_metres;        /* one texel's side on the light's view */
    float ground[4];           /* min x, min z, max x, max z: where on the ground (between its heights) a
                                * shadow may fall */
} gfx_shadow_fit;

/* The side of shadow map `level`, texels: the largest's over the square root of two `level` times. */
int gfx_shadow_map_side(int largest, int level);

/* The world box (Y up) of a box placed by `world` (bounds in its own space, min and max corners; NULL:
 * GFX_SHADOW_UNBOUNDED_EXTENT around the origin) together with its shadow on y = floor along light_unit:
 * the box's corners above it pushed down to it. On uneven ground the floor is the ground's lowest height,
 * so the box holds the shadow wherever the ground above that catches it. A light at the horizon casts
 * endless shadows: the box then reaches FLT_MAX across. Grows [low, high]; start them at +FLT_MAX and
 * -FLT_MAX. */
void gfx_shadow_caster_box(mat4 world, const float bounds[2][3], const vec3 light_unit, float floor, vec3 low,
                           vec3 high);

/* The light's view of the part of the camera's frustum nearer than view->distance, intersected with the
 * casters' box, at the texel size of GFX_SHADOW_PIXELS_PER_TEXEL screen pixels at the nearest caster (a step of a fixed ladder, so
 * a moving camera does not change it every frame), coarser where the largest map would not hold it; drawn
 * into the smallest map that holds it. The window is snapped to whole texels of a light space fixed in the world, so shadows do not
 * crawl or shimmer as the camera and the casters move. */
void gfx_shadow_fit_view(const gfx_shadow_view *view, gfx_shadow_fit *fit);

/* Whether a caster whose box (with its shadow: gfx_shadow_caster_box of that caster alone) is [low, high]
 * can cast into the fitted window: false lets a depth pass leave it out (its shadow falls on nothing the
 * camera sees within the shadow distance). */
bool gfx_shadow_fit_casts(const gfx_shadow_fit *fit, const vec3 low, const vec3 high);

#endif
