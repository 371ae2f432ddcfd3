/* gfx_shadow: see gfx_shadow.h. */
#include "gfx_shadow.h"

#include <float.h>
#include <math.h>

#include "gfx_bench.h"
#include "gfx_draw.h"

/* Shadows: a fitted shadow sphere reaches this far past the instances' origins (a character's height
 * and arm span), and never wider than the largest radius (beyond it the map's texels would be too coarse
 * to read; farther characters are lit). */
static const float GFX_SHADOW_CHARACTER_EXTENT = 2.0f;
/* A taller character (an import may scale one to 5 m) needs more: its bounds' top above its origin, which
 * the skin reach pads by about a quarter, times this. At the demo's light its shadow reaches about 0.7 of
 * its height away; the padding makes two thirds of the top enough, and keeps every human-sized body,
 * jumping ones included (top under 3 m), at the 2 m above. */
static const float GFX_SHADOW_HEIGHT_SHARE = 0.65f;
static const float GFX_SHADOW_MAX_RADIUS = 40.0f;

/* A depth texture compared in the shader (sampler2DShadow, bilinear: four hardware-compared taps per
 * lookup) and the framebuffer that renders into it. Outside the map counts as lit. */
bool gfx_shadow_setup(diag *err)
{
    glGenTextures(1, &gfx.shadow_texture);
    glBindTexture(GL_TEXTURE_2D, gfx.shadow_texture);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_DEPTH_COMPONENT24, gfx.shadow_map_size, gfx.shadow_map_size, 0,
                 GL_DEPTH_COMPONENT, GL_UNSIGNED_INT, NULL);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_COMPARE_MODE, GL_COMPARE_REF_TO_TEXTURE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_COMPARE_FUNC, GL_LEQUAL);
    glBindTexture(GL_TEXTURE_2D, 0);
    GLint previous = 0;
    glGetIntegerv(GL_FRAMEBUFFER_BINDING, &previous);
    glGenFramebuffers(1, &gfx.shadow_framebuffer);
    glBindFramebuffer(GL_FRAMEBUFFER, gfx.shadow_framebuffer);
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_TEXTURE_2D, gfx.shadow_texture, 0);
    glDrawBuffer(GL_NONE);
    glReadBuffer(GL_NONE);
    GLenum status = glCheckFramebufferStatus(GL_FRAMEBUFFER);
    glBindFramebuffer(GL_FRAMEBUFFER, (GLuint)previous);
    if (status != GL_FRAMEBUFFER_COMPLETE)
        return diag_set(err, "gfx", 0, "the shadow map framebuffer is incomplete (0x%04x)", (unsigned)status);
    return true;
}

void gfx_shadow_shutdown(void)
{
    glDeleteFramebuffers(1, &gfx.shadow_framebuffer);
    glDeleteTextures(1, &gfx.shadow_texture);
}

/* The light's orthographic view of a sphere around the shadowed scene: the frame's shadow_center and
 * shadow_radius, or one fitted around the frame's instances. The radius is rounded up to whole metres
 * and the projection snapped to whole texels, so the shadows of a still scene do not crawl or shimmer
 * while the crowd (and with it the fitted sphere) moves. */
void gfx_shadow_fit(void)
{
    vec3 center;
    float radius = gfx.frame.shadow_radius;
    glm_vec3_copy(gfx.frame.shadow_center, center);
    if (radius == 0.0f) {
        vec3 low = {FLT_MAX, FLT_MAX, FLT_MAX}, high = {-FLT_MAX, -FLT_MAX, -FLT_MAX};
        float tallest = 0.0f;
        for (int i = 0; i < gfx.instance_count; ++i) {
            glm_vec3_minv(low, gfx.queued[i].world[3], low);
            glm_vec3_maxv(high, gfx.queued[i].world[3], high);
            tallest = fmaxf(tallest, gfx.queued[i].height);
        }
        glm_vec3_center(low, high, center);
        radius = 0.5f * glm_vec3_distance(low, high) +
                 fmaxf(GFX_SHADOW_CHARACTER_EXTENT, GFX_SHADOW_HEIGHT_SHARE * tallest);
    }
    radius = fminf(ceilf(radius), GFX_SHADOW_MAX_RADIUS);
    const float *light = gfx.light_unit;
    vec3 eye, up = {0.0f, 1.0f, 0.0f};
    if (fabsf(light[1]) > 0.99f)
        glm_vec3_copy((vec3){1.0f, 0.0f, 0.0f}, up);
    glm_vec3_scale((float *)light, -2.0f * radius, eye);
    glm_vec3_add(eye, center, eye);
    mat4 view, projection;
    glm_lookat(eye, center, up, view);
    glm_ortho(-radius, radius, -radius, radius, 0.0f, 4.0f * radius, projection);
    glm_mat4_mul(projection, view, gfx.light_view_projection);
    vec4 origin;
    glm_mat4_mulv(gfx.light_view_projection, (vec4){0.0f, 0.0f, 0.0f, 1.0f}, origin);
    float half_size = 0.5f * (float)gfx.shadow_map_size;
    projection[3][0] += (roundf(origin[0] * half_size) - origin[0] * half_size) / half_size;
    projection[3][1] += (roundf(origin[1] * half_size) - origin[1] * half_size) / half_size;
    glm_mat4_mul(projection, view, gfx.light_view_projection);
    gfx.shadow_texel_metres = 2.0f * radius / (float)gfx.shadow_map_size;
}

/* The depth pass: the instances drawn from the light, skinned by the same path as the picture, into the
 * shadow map. Returns its draw calls. */
int gfx_shadow_draw(gfx_stats *stats)
{
    GLint target = 0;
    glGetIntegerv(GL_DRAW_FRAMEBUFFER_BINDING, &target);
    glBindFramebuffer(GL_FRAMEBUFFER, gfx.shadow_framebuffer);
    glViewport(0, 0, gfx.shadow_map_size, gfx.shadow_map_size);
    glClearDepth(1.0);
    glClear(GL_DEPTH_BUFFER_BIT);
    /* Slope-scaled offset on top of the shader's normal offset: grazing surfaces need the most. */
    glEnable(GL_POLYGON_OFFSET_FILL);
    glPolygonOffset(1.5f, 2.0f);
    gfx_set_culling(gfx.frame.culling);
    int draw_calls;
    if (gfx.naive)
        draw_calls = gfx_draw_naive(&gfx.programs[GFX_PROGRAM_NAIVE_DEPTH], gfx.light_view_projection, stats);
    else
        draw_calls = gfx_draw_batched(&gfx.programs[gfx.frame.cpu_skinning ? GFX_PROGRAM_CPU_DEPTH : GFX_PROGRAM_DEPTH],
                                  gfx.captured_vertices > 0 ? &gfx.programs[GFX_PROGRAM_CPU_DEPTH] : NULL,
                                  gfx.light_view_projection, false, true);
    glDisable(GL_POLYGON_OFFSET_FILL);
    glBindFramebuffer(GL_FRAMEBUFFER, (GLuint)target);
    return draw_calls;
}
