/* test_gfx_lod: choosing a level of detail without GL: the pixels a model unit covers at a distance (scale,
 * orthographic cameras, behind the camera), the coarsest level within the error budget, hysteresis at a
 * switching distance in both directions, a sweep away from the camera never going finer, the stand-in
 * excluded when not usable, and the shadow pass one level coarser where the shadow map cannot tell. */
#include <math.h>

#include "check.h"
#include "gfx/gfx_lod.h"

/* A camera at the origin looking down -Z, 60 degrees vertical field, 16:9, and its view_projection. */
static void perspective_camera(mat4 view_projection)
{
    mat4 projection, view;
    glm_perspective(glm_rad(60.0f), 16.0f / 9.0f, 0.1f, 500.0f, projection);
    glm_lookat((vec3){0.0f, 0.0f, 0.0f}, (vec3){0.0f, 0.0f, -1.0f}, (vec3){0.0f, 1.0f, 0.0f}, view);
    glm_mat4_mul(projection, view, view_projection);
}

static void test_pixels_per_unit(void)
{
    mat4 view_projection, world;
    perspective_camera(view_projection);
    glm_mat4_identity(world);
    /* One metre at 10 m fills 1 / (2 * 10 * tan 30deg) of a 720-pixel-high viewport. */
    float expected = 720.0f / (2.0f * 10.0f * tanf(glm_rad(30.0f)));
    CHECK_NEAR(gfx_lod_pixels_per_unit(view_projection, 720, world, (vec3){0.0f, 0.0f, -10.0f}), expected, 0.01f);
    /* Twice as far: half; off to the side at the same depth: the same. */
    CHECK_NEAR(gfx_lod_pixels_per_unit(view_projection, 720, world, (vec3){0.0f, 0.0f, -20.0f}), expected / 2.0f, 0.01f);
    CHECK_NEAR(gfx_lod_pixels_per_unit(view_projection, 720, world, (vec3){4.0f, 1.0f, -10.0f}), expected, 0.01f);
    /* A taller viewport, a model scaled by 2 (an import from centimetres is scaled by 0.01): more pixels
     * per model unit in proportion. */
    CHECK_NEAR(gfx_lod_pixels_per_unit(view_projection, 1440, world, (vec3){0.0f, 0.0f, -10.0f}), 2.0f * expected, 0.02f);
    glm_scale_uni(world, 2.0f);
    CHECK_NEAR(gfx_lod_pixels_per_unit(view_projection, 720, world, (vec3){0.0f, 0.0f, -10.0f}), 2.0f * expected, 0.02f);
    /* Behind the camera (seen only through its shadow): 0, the coarsest. */
    CHECK(gfx_lod_pixels_per_unit(view_projection, 720, world, (vec3){0.0f, 0.0f, 5.0f}) == 0.0f);
    /* Orthographic, 20 m tall view: 36 pixels a metre anywhere. */
    mat4 ortho;
    glm_ortho(-17.8f, 17.8f, -10.0f, 10.0f, 0.1f, 100.0f, ortho);
    glm_mat4_identity(world);
    CHECK_NEAR(gfx_lod_pixels_per_unit(ortho, 720, world, (vec3){0.0f, 0.0f, -3.0f}), 36.0f, 0.01f);
    CHECK_NEAR(gfx_lod_pixels_per_unit(ortho, 720, world, (vec3){0.0f, 0.0f, -90.0f}), 36.0f, 0.01f);
}

static const float errors[4] = {0.0f, 0.01f, 0.03f, 0.1f};

static void test_select_by_error(void)
{
    /* 1 pixel budget. 50 px/unit: level 1 (0.5 px) fits, level 2 (1.5 px) does not. */
    CHECK(gfx_lod_select(errors, 4, 50.0f, 1.0f, -1) == 1);
    CHECK(gfx_lod_select(errors, 4, 500.0f, 1.0f, -1) == 0);  /* near: every coarser level too coarse */
    CHECK(gfx_lod_select(errors, 4, 30.0f, 1.0f, -1) == 2);   /* 0.9 px */
    CHECK(gfx_lod_select(errors, 4, 5.0f, 1.0f, -1) == 3);    /* far: the coarsest */
    CHECK(gfx_lod_select(errors, 4, 0.0f, 1.0f, -1) == 3);    /* behind the camera */
    /* A bigger budget picks coarser levels at the same distance. */
    CHECK(gfx_lod_select(errors, 4, 50.0f, 2.0f, -1) == 2);
    /* Only 3 usable (the stand-in excluded): never level 3. */
    CHECK(gfx_lod_select(errors, 3, 5.0f, 1.0f, -1) == 2);
    CHECK(gfx_lod_select(errors, 3, 0.0f, 1.0f, -1) == 2);
    /* One level: always 0. */
    CHECK(gfx_lod_select(errors, 1, 5.0f, 1.0f, -1) == 0);
}

static void test_hysteresis(void)
{
    /* Level 1's error projects to 0.9 px: within the budget, not within 0.75 of it. */
    float pixels_per_unit = 90.0f;
    CHECK(gfx_lod_select(errors, 4, pixels_per_unit, 1.0f, -1) == 1); /* first frame: plain choice */
    CHECK(gfx_lod_select(errors, 4, pixels_per_unit, 1.0f, 0) == 0);  /* coming closer... stays at 0 */
    CHECK(gfx_lod_select(errors, 4, pixels_per_unit, 1.0f, 1) == 1);  /* ...or at 1 */
    /* Clearly within (0.7 px): goes coarser. */
    CHECK(gfx_lod_select(errors, 4, 70.0f, 1.0f, 0) == 1);
    /* Over the budget (1.1 px): goes finer at once. */
    CHECK(gfx_lod_select(errors, 4, 110.0f, 1.0f, 1) == 0);
    /* A previous level that is not usable any more (stand-ins turned off) is not kept. */
    CHECK(gfx_lod_select(errors, 3, 5.0f, 1.0f, 3) == 2);

    /* Walking away and back over the same distances: the walk back switches later (closer) than the walk
     * out, and both are monotonic, so a character pacing across one distance keeps one level. */
    int level = -1, out_switch = -1, back_switch = -1;
    for (int step = 0; step <= 200; ++step) {
        float distance = 1.0f + 0.5f * (float)step;
        int next = gfx_lod_select(errors, 4, 1000.0f / distance, 1.0f, level);
        CHECK(level < 0 || next >= level);
        if (level == 0 && next == 1)
            out_switch = step;
        level = next;
    }
    for (int step = 200; step >= 0; --step) {
        float distance = 1.0f + 0.5f * (float)step;
        int next = gfx_lod_select(errors, 4, 1000.0f / distance, 1.0f, level);
        CHECK(next <= level);
        if (level == 1 && next == 0)
            back_switch = step;
        level = next;
    }
    CHECK(out_switch > 0 && back_switch > 0);
    CHECK(back_switch < out_switch);
    CHECK(level == 0);
}

static void test_stand_in(void)
{
    /* Becomes the stand-in at 0.75 of the limit, stays one up to the limit. */
    CHECK(gfx_lod_use_stand_in(30.0f, 48.0f, false));
    CHECK(!gfx_lod_use_stand_in(40.0f, 48.0f, false));
    CHECK(gfx_lod_use_stand_in(40.0f, 48.0f, true));
    CHECK(!gfx_lod_use_stand_in(50.0f, 48.0f, true));
    /* A limit of 0 or below: never. */
    CHECK(!gfx_lod_use_stand_in(1.0f, 0.0f, false));
    CHECK(!gfx_lod_use_stand_in(1.0f, -1.0f, true));
}

static void test_shadow_level(void)
{
    /* errors {0, 1 cm, 3 cm, 10 cm}; a shadow texel of a few cm lets a coarser caster stand in. */
    CHECK(gfx_lod_shadow_level(errors, 0, 4, 1.0f, 0.02f) == 1);
    CHECK(gfx_lod_shadow_level(errors, 1, 4, 1.0f, 0.02f) == 1); /* level 2's 3 cm would shadow level 1 */
    CHECK(gfx_lod_shadow_level(errors, 1, 4, 1.0f, 0.05f) == 2);
    CHECK(gfx_lod_shadow_level(errors, 2, 4, 1.0f, 0.5f) == 3);
    CHECK(gfx_lod_shadow_level(errors, 3, 4, 1.0f, 0.5f) == 3);  /* already the coarsest */
    CHECK(gfx_lod_shadow_level(errors, 2, 3, 1.0f, 0.5f) == 2);  /* the stand-in not usable */
    /* A fine shadow map (a millimetre texel near one character) keeps the picture's level. */
    CHECK(gfx_lod_shadow_level(errors, 0, 4, 1.0f, 0.003f) == 0);
    /* The instances' scale counts: a model in centimetres scaled by 0.01 strays 100 times less. */
    const float centimetre_errors[4] = {0.0f, 1.0f, 3.0f, 10.0f};
    CHECK(gfx_lod_shadow_level(centimetre_errors, 0, 4, 0.01f, 0.02f) == 1);
    CHECK(gfx_lod_shadow_level(centimetre_errors, 0, 4, 1.0f, 0.02f) == 0);
    CHECK(gfx_lod_shadow_level(errors, 0, 1, 1.0f, 1.0f) == 0);  /* one level */
}

int main(void)
{
    RUN(test_pixels_per_unit);
    RUN(test_select_by_error);
    RUN(test_hysteresis);
    RUN(test_stand_in);
    RUN(test_shadow_level);
    return check_report();
}
