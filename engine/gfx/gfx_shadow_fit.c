/* gfx_shadow_fit: see gfx_shadow_fit.h. */
#include "gfx_shadow_fit.h"

#include <float.h>
#include <math.h>

/* Depth the light's view keeps beyond the casters and the covered view, metres: the polygon offset and
 * the normal offset push depths a little either way. */
static const float GFX_SHADOW_DEPTH_MARGIN = 1.0f;
/* The map's texel sizes form a ladder of steps of the square root of two: fine enough to stay near the
 * wanted texel size, coarse enough that a camera moving a little keeps the same texel size (and with it
 * the same texel grid on the ground). */
static const float GFX_SHADOW_TEXEL_STEPS_PER_OCTAVE = 2.0f;
/* Texels of margin on each side of the fitted window: bilinear taps half a texel beyond the last caster
 * texel read the margin's cleared depth (lit), not an old frame's. */
enum { GFX_SHADOW_MARGIN_TEXELS = 2 };

int gfx_shadow_map_side(int largest, int level)
{
    return (int)floorf((float)largest * exp2f(-0.5f * (float)level));
}

void gfx_shadow_caster_box(mat4 world, const float bounds[2][3], const vec3 light_unit, float floor, vec3 low,
                           vec3 high)
{
    const float e = GFX_SHADOW_UNBOUNDED_EXTENT;
    const float unbounded[2][3] = {{-e, -e, -e}, {e, e, e}};
    /* Without bounds the box is around the world origin, not turned with the model. */
    mat4 place;
    if (bounds) {
        glm_mat4_copy(world, place);
    } else {
        glm_mat4_identity(place);
        glm_vec3_copy(world[3], place[3]);
        bounds = unbounded;
    }
    for (int c = 0; c < 8; ++c) {
        vec4 corner = {bounds[c & 1][0], bounds[(c >> 1) & 1][1], bounds[(c >> 2) & 1][2], 1.0f}, at;
        glm_mat4_mulv(place, corner, at);
        glm_vec3_minv(low, at, low);
        glm_vec3_maxv(high, at, high);
        if (at[1] <= floor)
            continue;
        if (light_unit[1] > -1e-3f) {
            /* A light at (or above) the horizon: the shadow runs on without end. */
            glm_vec3_minv(low, (vec3){-FLT_MAX, floor, -FLT_MAX}, low);
            glm_vec3_maxv(high, (vec3){FLT_MAX, floor, FLT_MAX}, high);
            continue;
        }
        float along = (at[1] - floor) / -light_unit[1];
        vec3 on_ground = {at[0] + light_unit[0] * along, floor, at[2] + light_unit[2] * along};
        glm_vec3_minv(low, on_ground, low);
        glm_vec3_maxv(high, on_ground, high);
    }
}

/* The light's view: a turn only (its eye at the world origin), so light space is fixed in the world
 * and a texel grid snapped in it stays put under a moving camera. */
static void light_view(const vec3 light_unit, mat4 out)
{
    vec3 up = {0.0f, 1.0f, 0.0f};
    if (fabsf(light_unit[1]) > 0.99f)
        glm_vec3_copy((vec3){1.0f, 0.0f, 0.0f}, up);
    glm_lookat((vec3){0.0f, 0.0f, 0.0f}, (float *)light_unit, up, out);
}

static void grow(const vec4 point, vec3 low, vec3 high)
{
    glm_vec3_minv(low, (float *)point, low);
    glm_vec3_maxv(high, (float *)point, high);
}

/* The light-space box of the camera's frustum cut at `distance` metres from the eye (along its view),
 * and the nearest depth the frustum starts at. */
static float covered_view_box(const gfx_shadow_view *view, mat4 light, vec3 low, vec3 high)
{
    mat4 inverse_projection, inverse_view, view_to_light;
    glm_mat4_inv((vec4 *)view->projection, inverse_projection);
    glm_mat4_inv((vec4 *)view->view, inverse_view);
    glm_mat4_mul(light, inverse_view, view_to_light);
    float near_depth = FLT_MAX;
    for (int c = 0; c < 4; ++c) {
        vec4 ends[2];
        for (int e = 0; e < 2; ++e) {
            vec4 clip = {c & 1 ? 1.0f : -1.0f, c & 2 ? 1.0f : -1.0f, e ? 1.0f : -1.0f, 1.0f};
            glm_mat4_mulv(inverse_projection, clip, ends[e]);
            glm_vec4_scale(ends[e], 1.0f / ends[e][3], ends[e]);
        }
        float near = -ends[0][2], far = -ends[1][2];
        near_depth = fminf(near_depth, near);
        if (far > view->distance && far > near) {
            float t = (fmaxf(view->distance, near) - near) / (far - near);
            glm_vec4_lerp(ends[0], ends[1], t, ends[1]);
        }
        for (int e = 0; e < 2; ++e) {
            vec4 in_light;
            ends[e][3] = 1.0f;
            glm_mat4_mulv(view_to_light, ends[e], in_light);
            grow(in_light, low, high);
        }
    }
    return fmaxf(near_depth, 1e-3f);
}

/* A screen pixel's side, metres, at `depth` in front of the camera (perspective or orthographic). */
static float pixel_metres(const gfx_shadow_view *view, float depth)
{
    const float (*p)[4] = (const float (*)[4])view->projection;
    float w = p[2][3] * -depth + p[3][3];
    float scale = fabsf(p[1][1]) * (float)view->viewport_height;
    return scale > 0.0f ? 2.0f * fabsf(w) / scale : FLT_MAX;
}

static int imax(int a, int b)
{
    return a > b ? a : b;
}

/* The finest step of the ladder at or above `metres`. */
static int texel_step_at_least(float metres)
{
    return (int)ceilf(GFX_SHADOW_TEXEL_STEPS_PER_OCTAVE * log2f(metres) - 1e-4f);
}

static float texel_of_step(int step)
{
    return exp2f((float)step / GFX_SHADOW_TEXEL_STEPS_PER_OCTAVE);
}

void gfx_shadow_fit_view(const gfx_shadow_view *view, gfx_shadow_fit *fit)
{
    *fit = (gfx_shadow_fit){.empty = true};
    mat4 light;
    light_view(view->light_unit, light);

    vec3 seen_low = {FLT_MAX, FLT_MAX, FLT_MAX}, seen_high = {-FLT_MAX, -FLT_MAX, -FLT_MAX};
    float near_depth = covered_view_box(view, light, seen_low, seen_high);

    /* The casters' box in light space, and the depth of its corner nearest the camera. */
    vec3 cast_low = {FLT_MAX, FLT_MAX, FLT_MAX}, cast_high = {-FLT_MAX, -FLT_MAX, -FLT_MAX};
    float nearest = FLT_MAX;
    for (int c = 0; c < 8; ++c) {
        vec4 corner = {c & 1 ? view->casters_high[0] : view->casters_low[0],
                       c & 2 ? view->casters_high[1] : view->casters_low[1],
                       c & 4 ? view->casters_high[2] : view->casters_low[2], 1.0f};
        /* An endless shadow (a light at the horizon) is cut where the covered view ends. */
        for (int k = 0; k < 3; ++k)
            corner[k] = glm_clamp(corner[k], -1e6f, 1e6f);
        vec4 in_light, in_view;
        glm_mat4_mulv(light, corner, in_light);
        grow(in_light, cast_low, cast_high);
        glm_mat4_mulv((vec4 *)view->view, corner, in_view);
        nearest = fminf(nearest, -in_view[2]);
    }
    nearest = fmaxf(nearest, near_depth);

    /* Only casters over the covered view matter: light space's x and y run across the light, so a
     * caster's shadow lies at its own x and y. */
    float window_low[2], window_high[2];
    for (int k = 0; k < 2; ++k) {
        window_low[k] = fmaxf(seen_low[k], cast_low[k]);
        window_high[k] = fminf(seen_high[k], cast_high[k]);
        if (!(window_low[k] < window_high[k]))
            return;
    }

    /* One texel about GFX_SHADOW_PIXELS_PER_TEXEL screen pixels where the nearest caster stands, coarser
     * where the map is too small for that. */
    float widest = fmaxf(window_high[0] - window_low[0], window_high[1] - window_low[1]);
    int usable = view->map_size - 2 * GFX_SHADOW_MARGIN_TEXELS - 2;
    int step = texel_step_at_least(fmaxf(widest / (float)usable, 1e-6f));
    float wanted = GFX_SHADOW_PIXELS_PER_TEXEL * pixel_metres(view, nearest);
    if (wanted < FLT_MAX && wanted > 1e-6f)
        step = imax(step, (int)floorf(GFX_SHADOW_TEXEL_STEPS_PER_OCTAVE * log2f(wanted) + 1e-4f));
    float texel = 0.0f, first[2] = {0.0f, 0.0f};
    for (;; ++step) {
        texel = texel_of_step(step);
        bool fits = true;
        for (int k = 0; k < 2; ++k) {
            first[k] = floorf(window_low[k] / texel) - (float)GFX_SHADOW_MARGIN_TEXELS;
            float last = ceilf(window_high[k] / texel) + (float)GFX_SHADOW_MARGIN_TEXELS;
            fit->texels[k] = (int)(last - first[k]);
            fits = fits && fit->texels[k] <= view->map_size;
        }
        if (fits)
            break;
    }

    int needed = fit->texels[0] > fit->texels[1] ? fit->texels[0] : fit->texels[1];
    fit->map_level = 0;
    while (fit->map_level + 1 < view->map_levels && gfx_shadow_map_side(view->map_size, fit->map_level + 1) >= needed)
        ++fit->map_level;
    fit->map_size = gfx_shadow_map_side(view->map_size, fit->map_level);

    float nearest_light = -fminf(cast_high[2], 1e6f) - GFX_SHADOW_DEPTH_MARGIN;
    float farthest_light = -fmaxf(fminf(seen_low[2], cast_low[2]), -1e6f) + GFX_SHADOW_DEPTH_MARGIN;
    float side = (float)fit->map_size * texel;
    mat4 projection;
    glm_ortho(first[0] * texel, first[0] * texel + side, first[1] * texel, first[1] * texel + side, nearest_light,
              farthest_light, projection);
    glm_mat4_mul(projection, light, fit->light_view_projection);
    fit->texel_metres = texel;
    fit->empty = false;

    /* The ground under the window, seen along the light, cut to the casters' shadows: where the window's
     * corners meet the ground's lowest and its highest heights (on uneven ground the shadows fall in
     * between). */
    float ground_low[2] = {view->casters_low[0], view->casters_low[2]};
    float ground_high[2] = {view->casters_high[0], view->casters_high[2]};
    if (view->light_unit[1] < -1e-3f) {
        float under_low[2] = {FLT_MAX, FLT_MAX}, under_high[2] = {-FLT_MAX, -FLT_MAX};
        mat4 light_to_world;
        glm_mat4_inv(light, light_to_world);
        for (int c = 0; c < 4; ++c) {
            vec4 corner = {c & 1 ? first[0] * texel + (float)fit->texels[0] * texel : first[0] * texel,
                           c & 2 ? first[1] * texel + (float)fit->texels[1] * texel : first[1] * texel, 0.0f, 1.0f};
            vec4 at;
            glm_mat4_mulv(light_to_world, corner, at);
            for (int level = 0; level < 2; ++level) {
                float along = (at[1] - view->ground_heights[level]) / -view->light_unit[1];
                float x = at[0] + view->light_unit[0] * along, z = at[2] + view->light_unit[2] * along;
                under_low[0] = fminf(under_low[0], x);
                under_low[1] = fminf(under_low[1], z);
                under_high[0] = fmaxf(under_high[0], x);
                under_high[1] = fmaxf(under_high[1], z);
            }
        }
        for (int k = 0; k < 2; ++k) {
            ground_low[k] = fmaxf(ground_low[k], under_low[k]);
            ground_high[k] = fminf(ground_high[k], under_high[k]);
        }
    }
    float margin = 2.0f * texel;
    fit->ground[0] = ground_low[0] - margin;
    fit->ground[1] = ground_low[1] - margin;
    fit->ground[2] = ground_high[0] + margin;
    fit->ground[3] = ground_high[1] + margin;
}

bool gfx_shadow_fit_casts(const gfx_shadow_fit *fit, const vec3 low, const vec3 high)
{
    if (fit->empty)
        return false;
    float map_low[2] = {FLT_MAX, FLT_MAX}, map_high[2] = {-FLT_MAX, -FLT_MAX};
    for (int c = 0; c < 8; ++c) {
        vec4 corner = {c & 1 ? high[0] : low[0], c & 2 ? high[1] : low[1], c & 4 ? high[2] : low[2], 1.0f}, clip;
        for (int k = 0; k < 3; ++k)
            corner[k] = glm_clamp(corner[k], -1e6f, 1e6f);
        glm_mat4_mulv((vec4 *)fit->light_view_projection, corner, clip);
        for (int k = 0; k < 2; ++k) {
            float texel = (clip[k] + 1.0f) * 0.5f * (float)fit->map_size;
            map_low[k] = fminf(map_low[k], texel);
            map_high[k] = fmaxf(map_high[k], texel);
        }
    }
    return map_high[0] >= 0.0f && map_high[1] >= 0.0f && map_low[0] <= (float)fit->texels[0] &&
           map_low[1] <= (float)fit->texels[1];
}
