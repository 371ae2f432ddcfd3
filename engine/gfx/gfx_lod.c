/* gfx_lod: see gfx_lod.h. */
#include "gfx_lod.h"

#include <math.h>

float gfx_lod_pixels_per_unit(mat4 view_projection, int viewport_height, mat4 world, const vec3 center)
{
    /* Clip w at the centre: the distance along the view direction for a perspective camera, 1 for an
     * orthographic one. A world-space length L spans about L * P[1][1] / w of clip space's height of 2. */
    float w = view_projection[0][3] * center[0] + view_projection[1][3] * center[1] +
              view_projection[2][3] * center[2] + view_projection[3][3];
    if (!(w > 1e-6f))
        return 0.0f;
    /* The vertical extent of one world metre in clip space: the length of the projected unit Y vector
     * is P[1][1] for the cameras we use; read it from view_projection's rows so any view works. */
    float clip_per_metre = sqrtf(view_projection[0][1] * view_projection[0][1] +
                                 view_projection[1][1] * view_projection[1][1] +
                                 view_projection[2][1] * view_projection[2][1]);
    float scale = glm_vec3_norm(world[0]); /* rigid with uniform scale: any column's length */
    float pixels = clip_per_metre / w * 0.5f * (float)viewport_height * scale;
    return isfinite(pixels) ? pixels : 0.0f;
}

/* The coarsest usable level whose error projects within `pixels`. Level 0 always qualifies. */
static int coarsest_within(const float *errors, int usable, float pixels_per_unit, float pixels)
{
    int level = 0;
    for (int l = 1; l < usable; ++l)
        if (errors[l] * pixels_per_unit <= pixels)
            level = l;
    return level;
}

int gfx_lod_select(const float *errors, int usable, float pixels_per_unit, float error_pixels, int previous)
{
    if (usable <= 1)
        return 0;
    if (!(pixels_per_unit > 0.0f))
        return usable - 1;
    if (previous < 0 || previous >= usable || errors[previous] * pixels_per_unit > error_pixels)
        return coarsest_within(errors, usable, pixels_per_unit, error_pixels);
    /* The previous level is still good enough: keep it unless a coarser one is clearly good enough. */
    int coarser = coarsest_within(errors, usable, pixels_per_unit, GFX_LOD_HYSTERESIS * error_pixels);
    return coarser > previous ? coarser : previous;
}

bool gfx_lod_use_stand_in(float size_pixels, float limit_pixels, bool was_stand_in)
{
    if (!(limit_pixels > 0.0f) || !(size_pixels >= 0.0f))
        return false;
    return size_pixels <= (was_stand_in ? limit_pixels : GFX_LOD_HYSTERESIS * limit_pixels);
}

int gfx_lod_shadow_level(const float *errors, int level, int usable, float scale, float tolerance)
{
    if (usable <= 1)
        return 0;
    if (level >= usable)
        return usable - 1;
    if (level + 1 < usable && errors[level + 1] * scale <= tolerance)
        return level + 1;
    return level;
}
