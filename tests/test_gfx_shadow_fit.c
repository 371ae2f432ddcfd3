/* Tests for engine/gfx/gfx_shadow_fit: the shadow map's fit to the camera's view as pure math, no GL
 * context: a near character gets a small, fine map that holds it and its shadow; a crowd wider than the
 * view gets a map no wider than the view; small camera moves keep the texel grid; the shadowed ground
 * holds every caster's shadow. */
#include <float.h>
#include <math.h>
#include <stdio.h>

#include "check.h"
#include "gfx/gfx_shadow_fit.h"

enum { VIEW_WIDTH = 1280, VIEW_HEIGHT = 720, MAP_SIZE = 2048 };

static const float FIELD_OF_VIEW_DEGREES = 45.0f;

/* A mannequin-sized box standing at (x, z), Y up, placed by identity. */
static void character_box(float x, float z, float out[2][3])
{
    const float box[2][3] = {{x - 0.4f, 0.0f, z - 0.3f}, {x + 0.4f, 1.8f, z + 0.3f}};
    for (int i = 0; i < 6; ++i)
        out[i / 3][i % 3] = box[i / 3][i % 3];
}

static gfx_shadow_view make_view(vec3 eye, vec3 target, float distance)
{
    gfx_shadow_view view = {.viewport_height = VIEW_HEIGHT, .distance = distance, .map_size = MAP_SIZE,
                            .map_levels = GFX_SHADOW_MAP_LEVELS};
    glm_lookat(eye, target, (vec3){0.0f, 1.0f, 0.0f}, view.view);
    glm_perspective(glm_rad(FIELD_OF_VIEW_DEGREES), (float)VIEW_WIDTH / VIEW_HEIGHT, 0.1f, 200.0f, view.projection);
    glm_vec3_normalize_to((vec3){-0.45f, -1.0f, -0.35f}, view.light_unit);
    glm_vec3_copy((vec3){FLT_MAX, FLT_MAX, FLT_MAX}, view.casters_low);
    glm_vec3_copy((vec3){-FLT_MAX, -FLT_MAX, -FLT_MAX}, view.casters_high);
    return view;
}

static void add_caster(gfx_shadow_view *view, float box[2][3])
{
    mat4 identity = GLM_MAT4_IDENTITY_INIT;
    gfx_shadow_caster_box(identity, (const float(*)[3])box, view->light_unit, 0.0f, view->casters_low,
                          view->casters_high);
}

/* A world point in the map: texel coordinates (x, y) and depth 0..1. */
static void in_map(const gfx_shadow_fit *fit, const vec3 point, vec3 out)
{
    vec4 clip;
    glm_mat4_mulv((vec4 *)fit->light_view_projection, (vec4){point[0], point[1], point[2], 1.0f}, clip);
    out[0] = (clip[0] + 1.0f) * 0.5f * (float)fit->map_size;
    out[1] = (clip[1] + 1.0f) * 0.5f * (float)fit->map_size;
    out[2] = (clip[2] + 1.0f) * 0.5f;
}

/* Every corner of the box and of its shadow on the ground lies inside the drawn part of the map (two
 * texels in from its edge, where the shader stops reading) and inside the shadowed ground. Returns how
 * many corners did. */
static int corners_inside(const gfx_shadow_fit *fit, const vec3 light_unit, float box[2][3])
{
    int inside = 0;
    for (int c = 0; c < 16; ++c) {
        vec3 corner = {box[c & 1][0], box[(c >> 1) & 1][1], box[(c >> 2) & 1][2]};
        if (c >= 8) { /* the corner's shadow */
            float along = corner[1] / -light_unit[1];
            glm_vec3_muladds((float *)light_unit, along, corner);
            corner[1] = 0.0f;
        }
        vec3 map;
        in_map(fit, corner, map);
        bool in = map[0] >= 0.0f && map[1] >= 0.0f && map[0] <= (float)(fit->texels[0] - 2) &&
                  map[1] <= (float)(fit->texels[1] - 2) && map[2] >= 0.0f && map[2] <= 1.0f;
        if (c >= 8)
            in = in && corner[0] >= fit->ground[0] && corner[2] >= fit->ground[1] && corner[0] <= fit->ground[2] &&
                 corner[2] <= fit->ground[3];
        inside += in;
    }
    return inside;
}

/* The camera 5 m from one character: the map holds the character and its shadow, at about a screen
 * pixel a texel, in a small part of the map. */
static void test_near_character(void)
{
    gfx_shadow_view view = make_view((vec3){0.0f, 1.6f, 5.0f}, (vec3){0.0f, 0.9f, 0.0f}, 0.0f);
    view.distance = GFX_SHADOW_DEFAULT_DISTANCE;
    float box[2][3];
    character_box(0.0f, 0.0f, box);
    add_caster(&view, box);
    gfx_shadow_fit fit;
    gfx_shadow_fit_view(&view, &fit);
    /* A pixel's side at the character's nearest corner, 4.7 m away. */
    float pixel = 2.0f * 4.7f * tanf(glm_rad(FIELD_OF_VIEW_DEGREES) / 2.0f) / (float)VIEW_HEIGHT;
    printf("  near character: %d x %d texels of a %d map, %.2f mm (a pixel %.2f mm), ground x %.2f..%.2f z %.2f..%.2f\n",
           fit.texels[0], fit.texels[1], fit.map_size, 1000.0 * fit.texel_metres, 1000.0 * pixel, fit.ground[0], fit.ground[2],
           fit.ground[1], fit.ground[3]);
    CHECK(!fit.empty);
    CHECK(corners_inside(&fit, view.light_unit, box) == 16);
    CHECK(fit.texel_metres <= GFX_SHADOW_PIXELS_PER_TEXEL * pixel * 1.05f &&
          fit.texel_metres >= GFX_SHADOW_PIXELS_PER_TEXEL * pixel / 2.0f);
    CHECK(fit.texels[0] * fit.texels[1] < MAP_SIZE * MAP_SIZE / 8); /* not 4 million texels */
    /* Drawn into the smallest map that holds it. */
    CHECK(fit.map_size >= fit.texels[0] && fit.map_size >= fit.texels[1] && fit.map_size < MAP_SIZE);
    CHECK(gfx_shadow_map_side(MAP_SIZE, fit.map_level + 1) < fit.texels[0] ||
          gfx_shadow_map_side(MAP_SIZE, fit.map_level + 1) < fit.texels[1]);
    CHECK(gfx_shadow_map_side(2048, 1) == 1448 && gfx_shadow_map_side(2048, 2) == 1024 &&
          gfx_shadow_map_side(2048, 6) == 256);
    /* The shadowed ground is the character's shadow, not the whole ground. */
    CHECK(fit.ground[2] - fit.ground[0] < 3.0f && fit.ground[3] - fit.ground[1] < 3.0f);
}

/* A crowd 200 m across, the camera seeing 20 m of it: the map covers the seen part, not the crowd. */
static void test_crowd_wider_than_the_view(void)
{
    gfx_shadow_view view = make_view((vec3){0.0f, 1.7f, 0.0f}, (vec3){0.0f, 0.5f, -10.0f}, 20.0f);
    for (int i = 0; i < 100; ++i) {
        float box[2][3];
        character_box(-100.0f + 200.0f * (float)(i % 10) / 9.0f, -100.0f + 200.0f * (float)(i / 10) / 9.0f, box);
        add_caster(&view, box);
    }
    gfx_shadow_fit fit;
    gfx_shadow_fit_view(&view, &fit);
    /* The seen part: the frustum up to 20 m fits in a ball around its middle; its diameter bounds any
     * extent of it. */
    float tangent = tanf(glm_rad(FIELD_OF_VIEW_DEGREES) / 2.0f);
    float half_width = 20.0f * tangent * (float)VIEW_WIDTH / VIEW_HEIGHT, half_height = 20.0f * tangent;
    float diameter = sqrtf(20.0f * 20.0f + 4.0f * half_width * half_width + 4.0f * half_height * half_height);
    float covered[2] = {(float)fit.texels[0] * fit.texel_metres, (float)fit.texels[1] * fit.texel_metres};
    printf("  crowd 200 m wide, 20 m seen: %.1f x %.1f m in %d x %d texels of %.1f mm (seen part under %.1f m)\n",
           covered[0], covered[1], fit.texels[0], fit.texels[1], 1000.0 * fit.texel_metres, diameter);
    CHECK(!fit.empty);
    CHECK(covered[0] <= diameter + 6.0f * fit.texel_metres && covered[1] <= diameter + 6.0f * fit.texel_metres);
    CHECK(fit.texels[0] <= MAP_SIZE && fit.texels[1] <= MAP_SIZE && fit.map_size == MAP_SIZE);
    /* The casters in front of the camera, within 15 m, are in the map with their shadows. */
    for (int z = 1; z <= 3; ++z) {
        float box[2][3];
        character_box(0.0f, -5.0f * (float)z, box);
        CHECK(corners_inside(&fit, view.light_unit, box) == 16);
    }
    /* A depth pass may leave out the casters whose shadows fall outside the window: of the crowd's 100,
     * those near the camera's view cast into it. */
    int casting = 0;
    bool near_ones_cast = true;
    for (int i = 0; i < 100; ++i) {
        float box[2][3];
        float x = -100.0f + 200.0f * (float)(i % 10) / 9.0f, z = -100.0f + 200.0f * (float)(i / 10) / 9.0f;
        character_box(x, z, box);
        vec3 low = {FLT_MAX, FLT_MAX, FLT_MAX}, high = {-FLT_MAX, -FLT_MAX, -FLT_MAX};
        mat4 identity = GLM_MAT4_IDENTITY_INIT;
        gfx_shadow_caster_box(identity, (const float(*)[3])box, view.light_unit, 0.0f, low, high);
        bool casts = gfx_shadow_fit_casts(&fit, low, high);
        casting += casts;
        if (fabsf(x) < 15.0f && z < 0.0f && z > -15.0f)
            near_ones_cast = near_ones_cast && casts;
    }
    printf("  %d of the crowd's 100 cast into the window\n", casting);
    CHECK(near_ones_cast);
    CHECK(casting > 0 && casting <= 9);
    /* Nothing seen casts no shadow: casters far to the side leave the map empty. */
    gfx_shadow_view aside = make_view((vec3){0.0f, 1.7f, 0.0f}, (vec3){0.0f, 0.5f, -10.0f}, 20.0f);
    float far_box[2][3];
    character_box(150.0f, 150.0f, far_box);
    add_caster(&aside, far_box);
    gfx_shadow_fit_view(&aside, &fit);
    CHECK(fit.empty);
}

/* Moving the camera a little (and the character with it) keeps the texel size, and the light matrix puts
 * the world's origin on a whole texel: the texel grid stays fixed on the ground, so no shimmer. */
static void test_texel_snapping(void)
{
    float first_texel = 0.0f;
    int same_size = 0, whole = 0;
    const int moves = 12;
    for (int m = 0; m < moves; ++m) {
        float shift = 0.037f * (float)m;
        gfx_shadow_view view =
            make_view((vec3){shift, 1.6f, 5.0f + 0.5f * shift}, (vec3){shift, 0.9f, 0.5f * shift}, 40.0f);
        float box[2][3];
        character_box(shift, 0.5f * shift, box);
        add_caster(&view, box);
        gfx_shadow_fit fit;
        gfx_shadow_fit_view(&view, &fit);
        if (m == 0)
            first_texel = fit.texel_metres;
        same_size += fit.texel_metres == first_texel;
        vec3 origin;
        in_map(&fit, (vec3){0.0f, 0.0f, 0.0f}, origin);
        /* In texels the origin lands on an integer, to float rounding of coordinates of up to 2048. */
        whole += fabsf(origin[0] - roundf(origin[0])) < 2e-3f && fabsf(origin[1] - roundf(origin[1])) < 2e-3f;
        CHECK(corners_inside(&fit, view.light_unit, box) == 16);
    }
    printf("  %d small camera moves: texel size kept %d times, origin on a whole texel %d times\n", moves,
           same_size, whole);
    CHECK(same_size == moves);
    CHECK(whole == moves);
}

/* The shadowed ground holds the shadow of every caster in view, wherever it stands. */
static void test_ground_holds_every_shadow(void)
{
    gfx_shadow_view view = make_view((vec3){0.0f, 3.0f, 9.0f}, (vec3){0.0f, 0.5f, 0.0f}, 40.0f);
    enum { CASTERS = 7 };
    float boxes[CASTERS][2][3];
    for (int i = 0; i < CASTERS; ++i) {
        character_box(-4.5f + 1.5f * (float)i, -3.0f + (float)((i * 5) % 7), boxes[i]);
        add_caster(&view, boxes[i]);
    }
    /* A giant (5 m) casts far. */
    boxes[CASTERS - 1][1][1] = 5.0f;
    add_caster(&view, boxes[CASTERS - 1]);
    gfx_shadow_fit fit;
    gfx_shadow_fit_view(&view, &fit);
    int inside = 0;
    for (int i = 0; i < CASTERS; ++i)
        inside += corners_inside(&fit, view.light_unit, boxes[i]);
    printf("  %d casters: %d of %d corners and shadow corners in the map and the shadowed ground\n", CASTERS,
           inside, 16 * CASTERS);
    CHECK(!fit.empty);
    CHECK(inside == 16 * CASTERS);
}

/* Uneven ground between -2 m and 1.5 m: characters standing at heights across it, their shadows falling
 * on any height between (the hills' troughs and crests) stay in the map and in the shadowed ground. */
static void test_uneven_ground_holds_every_shadow(void)
{
    gfx_shadow_view view = make_view((vec3){0.0f, 4.0f, 10.0f}, (vec3){0.0f, 0.5f, 0.0f}, 40.0f);
    view.ground_heights[0] = -2.0f;
    view.ground_heights[1] = 1.5f;
    enum { CASTERS = 6 };
    float boxes[CASTERS][2][3];
    mat4 identity = GLM_MAT4_IDENTITY_INIT;
    for (int i = 0; i < CASTERS; ++i) {
        character_box(-4.0f + 1.6f * (float)i, -2.0f + (float)((i * 3) % 5), boxes[i]);
        float stands = -2.0f + 0.7f * (float)i; /* -2 to 1.5 */
        boxes[i][0][1] += stands;
        boxes[i][1][1] += stands;
        gfx_shadow_caster_box(identity, (const float(*)[3])boxes[i], view.light_unit, view.ground_heights[0],
                              view.casters_low, view.casters_high);
    }
    CHECK_NEAR(view.casters_low[1], -2.0f, 1e-6); /* the shadows reach down to the lowest ground */
    gfx_shadow_fit fit;
    gfx_shadow_fit_view(&view, &fit);
    CHECK(!fit.empty);
    int inside = 0, tried = 0;
    for (int i = 0; i < CASTERS; ++i)
        for (int c = 0; c < 8; ++c)
            for (int level = 0; level <= 7; ++level) {
                vec3 corner = {boxes[i][c & 1][0], boxes[i][(c >> 1) & 1][1], boxes[i][(c >> 2) & 1][2]};
                float height = -2.0f + 0.5f * (float)level;
                if (corner[1] <= height)
                    continue;
                glm_vec3_muladds(view.light_unit, (corner[1] - height) / -view.light_unit[1], corner);
                vec3 map;
                in_map(&fit, corner, map);
                ++tried;
                inside += map[0] >= 0.0f && map[1] >= 0.0f && map[0] <= (float)(fit.texels[0] - 2) &&
                          map[1] <= (float)(fit.texels[1] - 2) && map[2] >= 0.0f && map[2] <= 1.0f &&
                          corner[0] >= fit.ground[0] && corner[2] >= fit.ground[1] && corner[0] <= fit.ground[2] &&
                          corner[2] <= fit.ground[3];
            }
    printf("  uneven ground: %d of %d shadow points (every caster corner onto heights -2 to 1.5 m) covered\n",
           inside, tried);
    CHECK(tried > 200);
    CHECK(inside == tried);
}

/* A box's shadow on the ground: the top corners pushed along the light. */
static void test_caster_box(void)
{
    vec3 light;
    glm_vec3_normalize_to((vec3){-1.0f, -1.0f, 0.0f}, light);
    vec3 low = {FLT_MAX, FLT_MAX, FLT_MAX}, high = {-FLT_MAX, -FLT_MAX, -FLT_MAX};
    mat4 world = GLM_MAT4_IDENTITY_INIT;
    const float box[2][3] = {{-0.3f, 0.0f, -0.2f}, {0.3f, 2.0f, 0.2f}};
    gfx_shadow_caster_box(world, box, light, 0.0f, low, high);
    CHECK_NEAR(low[0], -2.3f, 1e-5);  /* the top's left edge, 2 m up at 45 degrees */
    CHECK_NEAR(high[0], 0.3f, 1e-5);
    CHECK_NEAR(low[1], 0.0f, 1e-6);
    CHECK_NEAR(high[1], 2.0f, 1e-6);
    CHECK_NEAR(low[2], -0.2f, 1e-6);
    /* No bounds: 2 m around the origin, wherever world turns. */
    vec3 low2 = {FLT_MAX, FLT_MAX, FLT_MAX}, high2 = {-FLT_MAX, -FLT_MAX, -FLT_MAX};
    glm_translate_make(world, (vec3){10.0f, 0.0f, 0.0f});
    glm_rotate_y(world, 0.7f, world);
    gfx_shadow_caster_box(world, NULL, light, 0.0f, low2, high2);
    CHECK_NEAR(high2[0], 10.0f + GFX_SHADOW_UNBOUNDED_EXTENT, 1e-5);
    CHECK_NEAR(low2[0], 10.0f - 2.0f * GFX_SHADOW_UNBOUNDED_EXTENT, 1e-5);
    /* A light at the horizon: an endless shadow. */
    vec3 low3 = {FLT_MAX, FLT_MAX, FLT_MAX}, high3 = {-FLT_MAX, -FLT_MAX, -FLT_MAX};
    gfx_shadow_caster_box(world, box, (vec3){1.0f, 0.0f, 0.0f}, 0.0f, low3, high3);
    CHECK(low3[0] == -FLT_MAX && high3[2] == FLT_MAX);
    /* On a floor 1 m down the shadow reaches 1 m further at 45 degrees, and the box goes down to it. */
    vec3 low4 = {FLT_MAX, FLT_MAX, FLT_MAX}, high4 = {-FLT_MAX, -FLT_MAX, -FLT_MAX};
    glm_mat4_identity(world);
    gfx_shadow_caster_box(world, box, light, -1.0f, low4, high4);
    CHECK_NEAR(low4[0], -3.3f, 1e-5);
    CHECK_NEAR(low4[1], -1.0f, 1e-6);
}

int main(void)
{
    RUN(test_near_character);
    RUN(test_crowd_wider_than_the_view);
    RUN(test_texel_snapping);
    RUN(test_ground_holds_every_shadow);
    RUN(test_caster_box);
    RUN(test_uneven_ground_holds_every_shadow);
    return check_report();
}
