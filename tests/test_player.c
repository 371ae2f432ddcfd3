/* The player on the real config/: holding forward walks (the locomotion blend moves from idle to walk), run held runs, letting go stops
 * (the locomotion blend all idle); jump and wave presses reach the state machine (wave while walking: the arm waves, the legs
 * walk); directions follow the camera's yaw; a diagonal is no faster; planted feet stay put in the world
 * walking at 1.0 and 1.4 m/s and running at 3.0 and 3.5 m/s (the mover's travel and the clip's playback
 * rate cancel); 60 and 120 Hz steps end at the same place; a turn in place moved by its clip turns the
 * player by the clip's yaw, a root-motion walk moves it by the clip's stride, and the hand-over between the
 * mover and a clip does not jump; bad input is ignored; steps allocate nothing; hot reload keeps the state.
 * Strafing (held) keeps the player facing the camera while it moves where the keys say, on the strafe blend
 * (walk_right carries a strafe to the right), with planted feet; a machine without `strafe` walks as usual
 * and one without `left` is reported once. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "anim/config/anim_config.h"
#include "assetgen/clips.h"
#include "check.h"
#include "test_files.h"
#include "test_states.h"
#include "gfx/gfx.h"
#include "player.h"

#define CHARACTERS MARIONETTE_SOURCE_DIR "/config/characters.ini"
#define MANNEQUIN_MESH MARIONETTE_SOURCE_DIR "/assets/models/mannequin.md5mesh"
#define CLIPS MARIONETTE_SOURCE_DIR "/config/clips.ini"
#define PI 3.14159265358979323846

/* Heap calls, counted through the linker's --wrap (tests/CMakeLists.txt): player_step must make none. */
#include "heap_counter.h"

typedef struct fixture {
    cache *cache;
    anim_config *config;
    const anim_character *character;
    player *player;
} fixture;


static anim_config *load_config_at(cache *cache, const char *characters)
{
    diag_list errors = {0};
    anim_config *config = anim_config_load(characters, cache, &errors);
    test_print_diags(&errors);
    diag_list_free(&errors);
    CHECK(config != NULL);
    return config;
}

static anim_config *load_config(cache *cache)
{
    return load_config_at(cache, CHARACTERS);
}

/* The player on the characters of `characters` (a characters.ini). */
static bool fixture_open_at(fixture *f, const char *characters, const player_params *params)
{
    *f = (fixture){.cache = cache_create()};
    f->config = load_config_at(f->cache, characters);
    f->character = f->config ? anim_config_find_character(f->config, "mannequin") : NULL;
    CHECK(f->character != NULL);
    f->player = f->character ? player_create(f->character, params, NULL) : NULL;
    CHECK(f->player != NULL);
    return f->player != NULL;
}

static bool fixture_open(fixture *f, const player_params *params)
{
    return fixture_open_at(f, CHARACTERS, params);
}

static void fixture_close(fixture *f)
{
    player_destroy(f->player);
    anim_config_free(f->config);
    if (f->cache)
        CHECK(cache_get_stats(f->cache).users == 0);
    cache_destroy(f->cache);
}

/* Hold `intent` for `seconds` at `hz` steps a second. */
static void hold(player *p, player_intent intent, float camera_yaw, double seconds, double hz)
{
    int steps = (int)lround(seconds * hz);
    for (int i = 0; i < steps; ++i) {
        CHECK(player_step(p, &intent, camera_yaw, (float)(1.0 / hz), NULL));
        intent.jump = intent.wave = intent.hit = false; /* presses last one step */
    }
}

static bool in_state(const player *p, const char *name)
{
    return strcmp(player_state_name(p), name) == 0;
}

static const char *top_clip(const player *p, int channel)
{
    const anim_controller *controller = animator_controller(player_animator(p));
    int count = anim_controller_layer_count(controller, channel);
    anim_layer_info info = {0};
    if (count > 0)
        anim_controller_layer(controller, channel, count - 1, &info);
    return info.clip ? info.clip->name : "";
}

/* Locomotion is one blend space over the speed (config/states.ini), which every state of the body's
 * locomotion plays (standing, moving, waving, flinching): `clip` is the heaviest of its clips. */
static bool moving_as(const player *p, const char *clip)
{
    return (in_state(p, "locomotion") || in_state(p, "moving") || in_state(p, "wave") || in_state(p, "flinch")) &&
           strcmp(top_clip(p, 0), clip) == 0;
}

/* The weight of a clip of the body's top layer, when it plays a blend; -1 otherwise. */
static float blend_weight(const player *p, const char *clip)
{
    const anim_controller *controller = animator_controller(player_animator(p));
    int top = anim_controller_layer_count(controller, 0) - 1;
    anim_layer_info info = {0};
    float weights[ANIM_BLEND_MAX_CLIPS];
    int count = anim_controller_layer_blend_weights(controller, 0, top, weights);
    if (count == 0 || !anim_controller_layer(controller, 0, top, &info))
        return -1.0f;
    for (int i = 0; i < count; ++i)
        if (strcmp(info.blend->clips[i]->name, clip) == 0)
            return weights[i];
    return 0.0f;
}

static float parameter_value(const player *p, const char *name);

static const player_intent forward = {.move_forward = 1.0f};
static const player_intent forward_run = {.move_forward = 1.0f, .run = true};
static const player_intent nothing = {0};

/* ---- locomotion states ---- */

static void test_walk_run_and_stop(void)
{
    fixture f;
    if (!fixture_open(&f, NULL)) {
        fixture_close(&f);
        return;
    }
    player *p = f.player;
    CHECK(moving_as(p, "idle"));
    CHECK(player_speed(p) == 0.0f);

    /* Forward: the blend moves from idle towards walk as the speed grows (walk's weight is speed / 1.4),
     * walk speed within half a second. */
    hold(p, forward, 0.0f, 0.1, 60.0);
    CHECK(player_speed(p) > 0.2f && player_speed(p) < 1.4f);
    CHECK_NEAR(blend_weight(p, "walk"), player_speed(p) / 1.4f, 1e-5);
    CHECK_NEAR(blend_weight(p, "walk") + blend_weight(p, "idle"), 1.0, 1e-6);
    hold(p, forward, 0.0f, 0.5, 60.0);
    CHECK_NEAR(player_speed(p), 1.4, 1e-5);
    CHECK(moving_as(p, "walk"));
    CHECK_NEAR(blend_weight(p, "walk"), 1.0, 1e-6);
    float walk_speed = -1.0f;
    CHECK(animator_get(player_animator(p), "speed", &walk_speed));
    CHECK_NEAR(walk_speed, 1.4, 1e-5);

    /* Run held: run speed soon after, the blend all run. */
    hold(p, forward_run, 0.0f, 1.0, 60.0);
    CHECK_NEAR(player_speed(p), 3.5, 1e-5);
    CHECK(moving_as(p, "run"));
    CHECK_NEAR(blend_weight(p, "run"), 1.0, 1e-6);

    /* Letting go of run: back to walk. Letting go of everything: idle, standing still. */
    hold(p, forward, 0.0f, 0.5, 60.0);
    CHECK(moving_as(p, "walk"));
    CHECK_NEAR(player_speed(p), 1.4, 1e-5);
    hold(p, nothing, 0.0f, 0.5, 60.0);
    CHECK(moving_as(p, "idle"));
    CHECK(player_speed(p) == 0.0f);
    vec3 stopped, later;
    player_position(p, stopped);
    hold(p, nothing, 0.0f, 0.5, 60.0);
    player_position(p, later);
    CHECK(glm_vec3_distance(stopped, later) == 0.0f);
    CHECK(stopped[0] > 3.0f && fabsf(stopped[2]) < 1e-4f); /* all of it along +X, the camera's forward */
    fixture_close(&f);
}

static void test_jump_and_wave(void)
{
    fixture f;
    if (!fixture_open(&f, NULL)) {
        fixture_close(&f);
        return;
    }
    player *p = f.player;
    hold(p, nothing, 0.0f, 0.2, 60.0);
    hold(p, (player_intent){.jump = true}, 0.0f, 1.0 / 60.0, 60.0);
    CHECK(in_state(p, "jump"));
    CHECK(strcmp(top_clip(p, 0), "jump") == 0);
    /* Holding jump's key down does not press it again: the jump ends and lands standing. */
    hold(p, nothing, 0.0f, 3.0, 60.0);
    CHECK(moving_as(p, "idle"));

    /* Wave while walking: the wave on an overlay channel while the body channel walks. */
    hold(p, forward, 0.0f, 0.8, 60.0);
    CHECK(moving_as(p, "walk"));
    player_intent wave = forward;
    wave.wave = true;
    hold(p, wave, 0.0f, 1.0 / 60.0, 60.0);
    CHECK(in_state(p, "wave"));
    hold(p, forward, 0.0f, 0.5, 60.0);
    CHECK(in_state(p, "wave"));
    int channel = animator_overlay_channel(player_animator(p));
    CHECK(strcmp(top_clip(p, channel), "wave") == 0);
    CHECK_NEAR(anim_controller_channel_weight(animator_controller(player_animator(p)), channel), 1.0, 1e-6);
    CHECK(strcmp(top_clip(p, 0), "walk") == 0);
    CHECK_NEAR(player_speed(p), 1.4, 1e-5); /* waving does not slow the legs */
    /* The wave ends and the walk goes on, leaning into turns again. */
    hold(p, forward, 0.0f, 3.0, 60.0);
    CHECK(moving_as(p, "walk") && in_state(p, "moving"));

    /* A jump pressed while walking jumps, and lands back in the walk. */
    player_intent jump = forward;
    jump.jump = true;
    hold(p, jump, 0.0f, 1.0 / 60.0, 60.0);
    CHECK(in_state(p, "jump"));
    hold(p, forward, 0.0f, 3.0, 60.0);
    CHECK(moving_as(p, "walk"));
    fixture_close(&f);
}

/* ---- directions ---- */

/* How far the player went in the last second of `seconds` of `intent`, starting at the origin facing +X at
 * rest (the last second: after any turning on the spot). */
static void travel(player *p, player_intent intent, float camera_yaw, double seconds, vec3 out)
{
    player_place(p, 0.0f, 0.0f, 0.0f);
    hold(p, intent, camera_yaw, seconds - 1.0, 60.0);
    vec3 before;
    player_position(p, before);
    hold(p, intent, camera_yaw, 1.0, 60.0);
    player_position(p, out);
    glm_vec3_sub(out, before, out);
}

static void check_direction(const vec3 moved, float x, float z)
{
    float length = sqrtf(moved[0] * moved[0] + moved[2] * moved[2]);
    CHECK(length > 0.5f);
    CHECK_NEAR(moved[0] / length, x, 1e-3);
    CHECK_NEAR(moved[2] / length, z, 1e-3);
}

static void test_directions_follow_the_camera(void)
{
    fixture f;
    if (!fixture_open(&f, NULL)) {
        fixture_close(&f);
        return;
    }
    player *p = f.player;
    vec3 moved;
    /* Camera yaw 0 looks along +X: forward is +X, right is +Z (a quarter turn clockwise seen from above). */
    travel(p, forward, 0.0f, 2.0, moved);
    check_direction(moved, 1.0f, 0.0f);
    travel(p, (player_intent){.move_right = 1.0f}, 0.0f, 3.0, moved);
    check_direction(moved, 0.0f, 1.0f);
    travel(p, (player_intent){.move_forward = -1.0f}, 0.0f, 3.0, moved);
    check_direction(moved, -1.0f, 0.0f);
    CHECK_NEAR(fabsf(player_heading(p)), PI, 1e-4); /* turned round to walk towards the camera */

    /* The camera turned 90 degrees to the left: the same key walks towards -Z, and the body faces it. */
    travel(p, forward, (float)(PI / 2.0), 2.0, moved);
    check_direction(moved, 0.0f, -1.0f);
    CHECK_NEAR(player_heading(p), PI / 2.0, 1e-4);
    travel(p, (player_intent){.move_right = 1.0f}, (float)(PI / 2.0), 3.0, moved);
    check_direction(moved, 1.0f, 0.0f);

    /* The world matrix stands the character where the mover is, its +X (where the model faces) along the
     * heading. */
    mat4 world;
    player_world_matrix(p, world);
    vec3 position;
    player_position(p, position);
    CHECK_NEAR(world[3][0], position[0], 1e-6);
    CHECK_NEAR(world[3][2], position[2], 1e-6);
    CHECK_NEAR(world[0][0], cos(player_heading(p)), 1e-5);
    CHECK_NEAR(world[0][2], -sin(player_heading(p)), 1e-5);
    fixture_close(&f);
}

static void test_diagonal_is_not_faster(void)
{
    fixture f;
    if (!fixture_open(&f, NULL)) {
        fixture_close(&f);
        return;
    }
    player *p = f.player;
    vec3 moved;
    travel(p, (player_intent){.move_forward = 1.0f, .move_right = 1.0f}, 0.0f, 2.0, moved);
    CHECK_NEAR(player_speed(p), 1.4, 1e-5);
    check_direction(moved, (float)sqrt(0.5), (float)sqrt(0.5));
    travel(p, (player_intent){.move_forward = 1.0f, .move_right = -1.0f, .run = true}, 0.0f, 2.0, moved);
    CHECK_NEAR(player_speed(p), 3.5, 1e-5);
    check_direction(moved, (float)sqrt(0.5), -(float)sqrt(0.5));
    /* Out-of-range input is clamped, and half-way input asks for half the speed. */
    travel(p, (player_intent){.move_forward = 5.0f}, 0.0f, 1.0, moved);
    CHECK_NEAR(player_speed(p), 1.4, 1e-5);
    travel(p, (player_intent){.move_forward = 0.5f}, 0.0f, 1.0, moved);
    CHECK_NEAR(player_speed(p), 0.7, 1e-5);
    fixture_close(&f);
}

/* ---- feet ---- */

static int find_joint(const skeleton *s, const char *name)
{
    for (int j = 0; j < s->joint_count; ++j)
        if (strcmp(s->names[j], name) == 0)
            return j;
    return -1;
}

/* A foot joint in the world: the mover's world matrix, then gfx's Z-up to Y-up turn, then the joint's
 * object-space position in the pose the controller wrote. */
static void joint_world(const player *p, int joint, vec3 out)
{
    mat4 world, turn, model;
    player_world_matrix(p, world);
    gfx_z_up_to_y_up(turn);
    glm_mat4_mul(world, turn, model);
    const joint_pose *object = anim_controller_object_pose(animator_controller(player_animator(p)));
    glm_mat4_mulv3(model, (float *)object[joint].position, 1.0f, out);
}

typedef struct stance_report {
    int stances;          /* complete stances seen (begun and ended during the measurement) */
    double worst_drift;   /* m: largest horizontal spread of a planted foot in the world over one stance */
    double least_travel;  /* m: smallest spread of the same foot in object space over one stance (what the
                           * world drift would be without the mover's travel cancelling it) */
    double longest;       /* s: longest stance */
    double height_error;  /* m: farthest a planted ankle was from its bind height */
} stance_report;

/* Is `side`'s foot planted at `time` seconds into the clip, by the plants its recipe authored? */
static bool recipe_planted(const char *clip_name, int side, double time)
{
    for (int i = 0; i < clips_count(); ++i) {
        if (strcmp(clips_recipe(i)->name, clip_name) != 0)
            continue;
        clips_plant plants[CLIPS_MAX_PLANTS];
        int count = clips_plants(i, plants);
        for (int k = 0; k < count; ++k)
            if (plants[k].side == side && time >= plants[k].begin && time <= plants[k].end)
                return true;
    }
    return false;
}

/* Hold `intent` until the speed and the animation have settled, then watch both feet for `seconds` at `hz`.
 * A foot is planted while the body layer's time is inside one of the plants the clip's recipe authored
 * (tools/assetgen/clips.h); it must then be the lower foot with its ankle near its bind height (the sole on
 * the floor). Over each stance, the spread of its world position is the drift. */
/* height_tolerance: how far from its bind height a planted ankle may be, metres. */
static stance_report measure_stances(player *p, player_intent intent, double seconds, double hz, double height_tolerance)
{
    const skeleton *s = &animator_character(player_animator(p))->model->skeleton;
    const anim_controller *controller = animator_controller(player_animator(p));
    int feet[2] = {find_joint(s, "foot.L"), find_joint(s, "foot.R")};
    CHECK(feet[0] >= 0 && feet[1] >= 0);
    stance_report report = {.least_travel = INFINITY};
    if (feet[0] < 0 || feet[1] < 0)
        return report;
    float ankle_height = s->bind_object[feet[0]].position[2];
    player_place(p, 0.0f, 0.0f, 0.0f);
    hold(p, intent, 0.0f, 2.0, hz);
    CHECK(anim_controller_layer_count(controller, 0) == 1); /* the crossfade into the gait is over */

    bool planted[2] = {false, false}, seen_lift[2] = {false, false};
    double world_low[2][2], world_high[2][2], object_low[2][2], object_high[2][2], began[2] = {0, 0};
    int steps = (int)lround(seconds * hz);
    for (int i = 0; i < steps; ++i) {
        CHECK(player_step(p, &intent, 0.0f, (float)(1.0 / hz), NULL));
        const joint_pose *object = anim_controller_object_pose(controller);
        anim_layer_info body = {0};
        CHECK(anim_controller_layer(controller, 0, 0, &body) && body.clip);
        float height[2] = {object[feet[0]].position[2], object[feet[1]].position[2]};
        for (int side = 0; side < 2; ++side) {
            /* A blend's clips play at its phase, each over its own cycle: the heaviest one's time. */
            double clip_time = body.blend ? (body.cycles - floor(body.cycles)) * body.clip->clip->loop_duration
                                          : body.time;
            bool now = body.clip && recipe_planted(body.clip->name, side == 0 ? CLIPS_LEFT : CLIPS_RIGHT, clip_time);
            vec3 world;
            joint_world(p, feet[side], world);
            double w[2] = {world[0], world[2]}, o[2] = {object[feet[side]].position[0], object[feet[side]].position[1]};
            if (now && !planted[side]) {
                began[side] = i / hz;
                for (int k = 0; k < 2; ++k) {
                    world_low[side][k] = world_high[side][k] = w[k];
                    object_low[side][k] = object_high[side][k] = o[k];
                }
            }
            if (now) {
                /* The lowest foot, near the ground; in the world, Z up became Y up. */
                CHECK(height[side] <= height[1 - side] + 1e-4f);
                CHECK_NEAR(height[side], ankle_height, height_tolerance);
                CHECK_NEAR(world[1], height[side], 1e-5);
                report.height_error = fmax(report.height_error, fabs(height[side] - ankle_height));
                for (int k = 0; k < 2; ++k) {
                    world_low[side][k] = fmin(world_low[side][k], w[k]);
                    world_high[side][k] = fmax(world_high[side][k], w[k]);
                    object_low[side][k] = fmin(object_low[side][k], o[k]);
                    object_high[side][k] = fmax(object_high[side][k], o[k]);
                }
            }
            /* A stance counts once it has ended, and only if it began after the foot was first seen lifted
             * (the measurement may start half-way through one). */
            if (!now && planted[side] && seen_lift[side]) {
                double drift = hypot(world_high[side][0] - world_low[side][0],
                                     world_high[side][1] - world_low[side][1]);
                double travel = hypot(object_high[side][0] - object_low[side][0],
                                      object_high[side][1] - object_low[side][1]);
                ++report.stances;
                report.worst_drift = fmax(report.worst_drift, drift);
                report.least_travel = fmin(report.least_travel, travel);
                report.longest = fmax(report.longest, i / hz - began[side]);
            }
            if (!now)
                seen_lift[side] = true;
            planted[side] = now;
        }
    }
    return report;
}

typedef struct gait {
    const char *name;
    player_intent intent;
    float speed;
    const char *clip; /* the state machine plays this clip (the heaviest of a blend) */
    double drift;     /* the largest drift a stance may have, metres */
    double travel;    /* the planted foot moves at least this many times its drift in the body */
    double height;    /* a planted ankle is within this of its bind height, metres */
} gait;

static void check_gaits(const char *characters, const gait *gaits, int count)
{
    fixture f;
    if (!fixture_open_at(&f, characters, NULL)) {
        fixture_close(&f);
        return;
    }
    player *p = f.player;
    double hz[] = {60.0, 144.0};
    for (int g = 0; g < count; ++g) {
        for (int r = 0; r < 2; ++r) {
            stance_report report = measure_stances(p, gaits[g].intent, 4.0, hz[r], gaits[g].height);
            CHECK(strcmp(top_clip(p, 0), gaits[g].clip) == 0);
            CHECK_NEAR(player_speed(p), gaits[g].speed, 1e-4);
            printf("  %-9s %.1f m/s at %3.0f Hz: %2d stances (longest %.3f s), worst drift %.5f m; the foot moved "
                   "%.3f m or more in the body; ankle within %.4f m of its bind height\n",
                   gaits[g].name, gaits[g].speed, hz[r], report.stances, report.longest, report.worst_drift,
                   report.least_travel, report.height_error);
            CHECK(report.stances >= 4);
            CHECK(report.worst_drift < gaits[g].drift);
            /* Without the player moving, the same planted foot would have slid this far. */
            CHECK(report.least_travel > gaits[g].travel * report.worst_drift);
        }
    }
    fixture_close(&f);
}

/* Walking and running at the clips' own speeds, on the shipped locomotion blend: one clip has all the
 * weight and plays at the rate that matches the mover. Between the clip's frames the ankle follows the
 * interpolated joint rotations rather than a straight line: a few millimetres in the run's short stances.
 * Slower than the clips, the crossfading machine (tests/data/crossfade) plays walk or run alone at a
 * slower rate: no sliding either. In between, the blend mixes the poses of two clips whose feet are not
 * planted for the same part of the cycle (a walk's stance is most of its cycle, a run's a third), which
 * no rate can undo: measured here so that it does not grow unnoticed (foot locking is the cure). */
static void test_planted_feet_do_not_slide(void)
{
    const gait shipped[] = {
        {"walk", {.move_forward = 1.0f}, 1.4f, "walk", 0.006, 10.0, 0.005},
        {"run", {.move_forward = 1.0f, .run = true}, 3.5f, "run", 0.006, 10.0, 0.005},
    };
    check_gaits(CHARACTERS, shipped, 2);
    const gait crossfading[] = {
        {"slow walk", {.move_forward = 1.0f / 1.4f}, 1.0f, "walk", 0.006, 10.0, 0.005},
        {"slow run", {.move_forward = 3.0f / 3.5f, .run = true}, 3.0f, "run", 0.006, 10.0, 0.005},
    };
    check_gaits(MARIONETTE_TEST_DATA "/crossfade/characters.ini", crossfading, 2);
    const gait blended[] = {
        {"idle+walk", {.move_forward = 1.0f / 1.4f}, 1.0f, "walk", 0.010, 10.0, 0.010},
        {"walk+run", {.move_forward = 3.0f / 3.5f, .run = true}, 3.0f, "run", 0.005, 10.0, 0.020},
    };
    check_gaits(CHARACTERS, blended, 2);
    /* Strafing, facing +X (the camera's forward): each direction's clip alone on the strafe blend. */
    const gait strafing[] = {
        {"strafe R", {.move_right = 1.0f, .strafe = true}, 1.4f, "walk_right", 0.006, 10.0, 0.005},
        {"strafe L", {.move_right = -1.0f, .run = true, .strafe = true}, 3.5f, "run_left", 0.006, 10.0, 0.005},
        {"strafe B", {.move_forward = -1.0f, .strafe = true}, 1.4f, "walk_back", 0.006, 10.0, 0.005},
    };
    check_gaits(CHARACTERS, strafing, 3);
}

/* ---- time steps ---- */

/* A few scripted seconds of play at `hz`: walk, run under a turning camera, strafe, U-turn, stop. */
static void play_script(player *p, double hz, vec3 position, float *heading)
{
    player_place(p, 1.0f, -2.0f, 0.5f);
    hold(p, forward, 0.0f, 1.0, hz);
    int steps = (int)lround(1.5 * hz);
    for (int i = 0; i < steps; ++i)
        CHECK(player_step(p, &forward_run, (float)(0.6 * i / hz), (float)(1.0 / hz), NULL));
    hold(p, (player_intent){.move_right = 1.0f, .move_forward = 0.3f}, 0.9f, 1.0, hz);
    hold(p, (player_intent){.move_forward = -1.0f}, 0.9f, 1.25, hz);
    hold(p, nothing, 0.9f, 1.0, hz);
    player_position(p, position);
    *heading = player_heading(p);
}

static void test_step_rate_does_not_change_the_path(void)
{
    fixture f;
    if (!fixture_open(&f, NULL)) {
        fixture_close(&f);
        return;
    }
    vec3 at60, at120;
    float heading60, heading120;
    play_script(f.player, 60.0, at60, &heading60);
    CHECK(moving_as(f.player, "idle"));
    /* Standing, its feet are locked; placed elsewhere, none is (a foot left behind would be dragged over). */
    const anim_foot_lock_state *lock = animator_foot_lock(player_animator(f.player));
    CHECK(lock->feet[0].held && lock->feet[1].held);
    CHECK(player_place(f.player, 1.0f, -2.0f, 0.5f));
    CHECK(lock->feet[0].weight == 0.0f && lock->feet[1].weight == 0.0f && !lock->feet[0].held);
    play_script(f.player, 120.0, at120, &heading120);
    float apart = glm_vec3_distance(at60, at120);
    printf("  scripted path: ends (%.3f, %.3f) at 60 Hz, (%.3f, %.3f) at 120 Hz: %.4f m apart, headings %.4f / %.4f\n",
           at60[0], at60[2], at120[0], at120[2], apart, heading60, heading120);
    CHECK(glm_vec3_distance(at60, (vec3){1.0f, 0.0f, -2.0f}) > 3.0f); /* it went somewhere */
    CHECK(apart < 0.05f);
    CHECK_NEAR(mover_turn_between(heading60, heading120), 0.0, 0.01);
    CHECK(moving_as(f.player, "idle"));
    fixture_close(&f);
}

/* ---- bad input and reload ---- */

static void test_bad_input_is_ignored(void)
{
    fixture f;
    if (!fixture_open(&f, NULL)) {
        fixture_close(&f);
        return;
    }
    player *p = f.player;
    player_intent broken = {.move_forward = NAN, .move_right = INFINITY};
    hold(p, broken, 0.0f, 0.5, 60.0);
    vec3 position;
    player_position(p, position);
    CHECK(position[0] == 0.0f && position[2] == 0.0f && moving_as(p, "idle"));
    CHECK(player_step(p, NULL, 0.0f, 1.0f / 60.0f, NULL)); /* no intent: standing */
    CHECK(!player_step(p, &forward, NAN, 1.0f / 60.0f, NULL));
    CHECK(!player_step(p, &forward, 0.0f, NAN, NULL));
    CHECK(!player_step(p, &forward, 0.0f, -0.1f, NULL));
    CHECK(!player_step(NULL, &forward, 0.0f, 0.1f, NULL));
    CHECK(player_speed(p) == 0.0f);
    CHECK(!player_place(p, NAN, 0.0f, 0.0f));
    CHECK(player_place(p, 2.0f, 3.0f, 7.0f));
    player_position(p, position);
    CHECK(position[0] == 2.0f && position[2] == 3.0f);
    CHECK_NEAR(player_heading(p), 7.0 - 2.0 * PI, 1e-5); /* kept in (-pi, pi] */

    player_params bad = player_default_params();
    bad.run_speed = NAN;
    CHECK(player_create(f.character, &bad, NULL) == NULL);
    bad = player_default_params();
    bad.mover.acceleration = 0.0f;
    CHECK(player_create(f.character, &bad, NULL) == NULL);
    CHECK(player_create(NULL, NULL, NULL) == NULL);
    /* A slower walk by params: the locomotion blend mixes in the idle's standing legs (walk weight 1.0 / 1.4)
     * and keeps the walk's cadence (rate 1: the blend's ground speed is then 1.0 m/s). */
    player_params slow = player_default_params();
    slow.walk_speed = 1.0f;
    player *slow_player = player_create(f.character, &slow, NULL);
    CHECK(slow_player != NULL);
    if (slow_player) {
        hold(slow_player, forward, 0.0f, 1.0, 60.0);
        CHECK_NEAR(player_speed(slow_player), 1.0, 1e-5);
        const anim_controller *controller = animator_controller(player_animator(slow_player));
        anim_layer_info walk = {0};
        CHECK(anim_controller_layer(controller, 0, anim_controller_layer_count(controller, 0) - 1, &walk));
        CHECK_NEAR(walk.speed, 1.0, 1e-4);
        CHECK_NEAR(blend_weight(slow_player, "walk"), 1.0 / 1.4, 1e-4);
    }
    player_destroy(slow_player);
    player_destroy(NULL);
    fixture_close(&f);
}

/* New params (a settings reload) take effect on the running player from the next step: it walks on into
 * the new speed, the state it is in stays; unusable params change nothing. */
static void test_new_params_while_walking(void)
{
    fixture f;
    if (!fixture_open(&f, NULL)) {
        fixture_close(&f);
        return;
    }
    player *p = f.player;
    hold(p, forward, 0.0f, 1.5, 60.0);
    CHECK_NEAR(player_speed(p), 1.4, 1e-5);
    player_params faster = player_default_params();
    faster.walk_speed = 2.0f;
    CHECK(player_set_params(p, &faster));
    hold(p, forward, 0.0f, 1.0, 60.0);
    CHECK_NEAR(player_speed(p), 2.0, 1e-5);
    CHECK(moving_as(p, "walk"));
    player_params bad = faster;
    bad.walk_speed = -1.0f;
    CHECK(!player_set_params(p, &bad));
    CHECK(!player_set_params(p, NULL) && !player_set_params(NULL, &faster));
    CHECK_NEAR(player_get_params(p).walk_speed, 2.0, 1e-6);
    fixture_close(&f);
}

/* ---- root motion: who moves the body ---- */

#define ROOT_MOTION_CHARACTERS MARIONETTE_TEST_DATA "/trace/root_motion/characters.ini"

/* The heading (about the up axis, positive left) of a clip's root at one frame, in the character's
 * canonical axes. */
static double root_heading(const anim_clip *clip, int frame)
{
    const float *q = clip->clip->frames[(size_t)frame * (size_t)clip->clip->joint_count].rotation;
    float axis[3];
    anim_axes_to_canonical(&clip->import_axes, q, axis);
    double x = axis[0], y = axis[1], z = axis[2], w = q[3];
    return atan2(2.0 * (x * y + w * z), 1.0 - 2.0 * (y * y + z * z));
}

/* The turn a one-shot's root makes from its first frame to its last, from the clip data. */
static double clip_yaw(const anim_clip *clip)
{
    double yaw = root_heading(clip, clip->clip->frame_count - 1) - root_heading(clip, 0);
    return atan2(sin(yaw), cos(yaw));
}

/* The shipped turns in place are moved by their clip (states.ini moved_by = clip): a tap of a key a
 * quarter turn to the side starts one from a standstill, and when it is over the heading has changed by
 * the clip's own yaw (the mover added nothing), the feet stayed where they were, and the heading stays
 * there: nothing turns it back. */
static void test_a_turn_in_place_turns_by_the_clip_yaw(void)
{
    fixture f;
    if (!fixture_open(&f, NULL)) {
        fixture_close(&f);
        return;
    }
    player *p = f.player;
    const char *states[2] = {"turn_left", "turn_right"};
    float sides[2] = {-1.0f, 1.0f}; /* move_right: left, then right of a camera behind the player */
    for (int t = 0; t < 2; ++t) {
        int clip_index = anim_config_find_clip(f.character, states[t]);
        CHECK(clip_index >= 0);
        if (clip_index < 0)
            break;
        double expected = clip_yaw(&f.character->clips[clip_index]);
        CHECK(fabs(expected) > 1.0); /* a real turn, whichever way */
        player_place(p, 2.0f, 3.0f, 0.5f);
        hold(p, nothing, 0.5f, 1.0, 60.0);
        CHECK(moving_as(p, "idle"));
        float heading = player_heading(p);
        vec3 start, end;
        player_position(p, start);
        hold(p, (player_intent){.move_right = sides[t]}, 0.5f, 1.0 / 60.0, 60.0);
        CHECK(in_state(p, states[t]));
        hold(p, nothing, 0.5f, 2.5, 60.0); /* the 1.2 s clip and the fade back to idle */
        CHECK(moving_as(p, "idle"));
        CHECK(anim_controller_layer_count(animator_controller(player_animator(p)), 0) == 1);
        double turned = mover_turn_between(heading, player_heading(p));
        player_position(p, end);
        printf("  %s: heading changed %.3f degrees, the clip turns %.3f; the feet moved %.2f mm\n", states[t],
               glm_deg(turned), glm_deg(expected), 1000.0 * glm_vec3_distance(start, end));
        CHECK_NEAR(glm_deg(turned), glm_deg(expected), 0.5);
        CHECK(glm_vec3_distance(start, end) < 0.005f); /* the step of the tap, faded out */
        float settled = player_heading(p);
        hold(p, nothing, 0.5f, 1.0, 60.0);
        CHECK(player_heading(p) == settled);
    }
    fixture_close(&f);
}

/* Holding a key a quarter turn to the side from a standstill: the turn in place starts, moving off cuts it
 * short (turn_left -> walk), and the mover takes the body on to the wanted heading. The heading only ever
 * turns towards it, and ends there, walking that way. */
static void test_holding_a_turn_walks_off_that_way(void)
{
    fixture f;
    if (!fixture_open(&f, NULL)) {
        fixture_close(&f);
        return;
    }
    player *p = f.player;
    player_intent left = {.move_right = -1.0f};
    bool turned_in_place = false;
    float previous = player_heading(p), backwards = 0.0f;
    for (int step = 0; step < 120; ++step) {
        CHECK(player_step(p, &left, 0.0f, 1.0f / 60.0f, NULL));
        turned_in_place |= in_state(p, "turn_left");
        backwards = fmaxf(backwards, -mover_turn_between(previous, player_heading(p)));
        previous = player_heading(p);
    }
    CHECK(turned_in_place);
    CHECK(moving_as(p, "walk"));
    CHECK(backwards < 1e-6f);
    CHECK_NEAR(player_heading(p), PI / 2.0, 1e-4);
    vec3 moved;
    travel(p, left, 0.0f, 2.0, moved);
    check_direction(moved, 0.0f, -1.0f);
    fixture_close(&f);
}

/* A walk state moved by its clip (the root-motion walk, in a fixture's states.ini): once it is all that
 * plays, a whole cycle moves the player by the clip's own stride (its root from the first frame to the
 * last), along its heading, within a millimetre; the mover's own travel counts for nothing. */
static void test_a_root_motion_walk_moves_by_the_clip(void)
{
    fixture f;
    if (!fixture_open_at(&f, ROOT_MOTION_CHARACTERS, NULL)) {
        fixture_close(&f);
        return;
    }
    player *p = f.player;
    const anim_clip *walk = &f.character->clips[anim_config_find_clip(f.character, "walk")];
    CHECK(walk->root_mode == ANIM_ROOT_MOTION && walk->clip->last_frame_is_first);
    const clip *c = walk->clip;
    const float *first = c->frames[0].position, *last = c->frames[(size_t)(c->frame_count - 1) * (size_t)c->joint_count].position;
    double stride = hypot(last[0] - first[0], last[1] - first[1]) * (walk->import_scale > 0.0f ? walk->import_scale : 1.0f);
    CHECK(stride > 1.0);

    float heading = 0.3f;
    player_place(p, 0.0f, 0.0f, heading);
    player_intent ahead = {.move_forward = 1.0f}; /* the camera behind: walk_speed, the clip's speed */
    hold(p, ahead, heading, 1.5, 60.0);
    CHECK(in_state(p, "walk") && anim_controller_layer_count(animator_controller(player_animator(p)), 0) == 1);
    CHECK(player_speed(p) == 1.4f); /* the state plays the walk at rate 1: a cycle a loop_duration */
    vec3 start, end;
    player_position(p, start);
    int steps = (int)lround(c->loop_duration * 60.0);
    hold(p, ahead, heading, steps / 60.0, 60.0);
    player_position(p, end);
    vec3 moved;
    glm_vec3_sub(end, start, moved);
    double travelled = hypot(moved[0], moved[2]);
    printf("  a root-motion walk cycle: moved %.5f m, the clip's stride %.5f m\n", travelled, stride);
    CHECK_NEAR(travelled, stride, 0.001);
    CHECK_NEAR(moved[0] / travelled, cos(heading), 1e-3);
    CHECK_NEAR(moved[2] / travelled, -sin(heading), 1e-3);
    CHECK_NEAR(player_heading(p), heading, 1e-4);
    fixture_close(&f);
}

/* Crossfades between a state the mover moves (idle) and the walk its clip moves: the body is handed over
 * without a jump, either way. Walking off and stopping again, the step-to-step change of the distance
 * covered in a step stays within what accelerating and braking alone make (at most 9 m/s^2, 2.5 mm a
 * 60 Hz step) with a margin for the clip's own unevenness; a step's travel dropped or doubled at a hand-over
 * would be 20 mm. */
static void test_handing_the_body_over_does_not_jump(void)
{
    fixture f;
    if (!fixture_open_at(&f, ROOT_MOTION_CHARACTERS, NULL)) {
        fixture_close(&f);
        return;
    }
    player *p = f.player;
    const char *visited[] = {"idle", "walk", "idle"};
    int reached = 0;
    vec3 previous;
    player_position(p, previous);
    float previous_step = 0.0f, worst = 0.0f, fastest = 0.0f;
    for (int step = 0; step < 60 * 4; ++step) {
        CHECK(player_step(p, step < 60 * 2 ? &forward : &nothing, 0.0f, 1.0f / 60.0f, NULL));
        if (reached + 1 < 3 && in_state(p, visited[reached + 1]))
            ++reached;
        vec3 now;
        player_position(p, now);
        float covered = glm_vec3_distance(previous, now);
        worst = fmaxf(worst, fabsf(covered - previous_step));
        fastest = fmaxf(fastest, covered);
        previous_step = covered;
        glm_vec3_copy(now, previous);
    }
    printf("  idle -> walk (moved by its clip) -> idle: %.1f mm a step at most; a step's travel changes by at most "
           "%.2f mm a step\n", 1000.0 * fastest, 1000.0 * worst);
    CHECK(reached == 2);
    CHECK(fastest > 0.02f); /* it did walk: 1.4 m/s */
    CHECK(worst < 0.003f);
    fixture_close(&f);
}

static void test_steps_allocate_nothing(void)
{
    fixture f;
    if (!fixture_open(&f, NULL)) {
        fixture_close(&f);
        return;
    }
    player *p = f.player;
    long before = heap_calls;
    hold(p, forward, 0.3f, 1.0, 60.0);
    hold(p, (player_intent){.move_forward = 1.0f, .wave = true}, 0.3f, 1.0, 60.0);
    hold(p, (player_intent){.move_forward = 1.0f, .move_right = -1.0f, .strafe = true, .wave = true}, 0.3f, 2.0, 60.0);
    hold(p, (player_intent){.move_right = -1.0f, .run = true, .jump = true}, 0.3f, 2.0, 60.0);
    hold(p, nothing, 0.3f, 2.0, 60.0);
    CHECK(moving_as(p, "idle"));
    /* Facing the camera's left: a tap to its forward is a quarter turn to the right, moved by the clip. */
    hold(p, forward, 0.3f, 1.0 / 60.0, 60.0);
    CHECK(in_state(p, "turn_right"));
    hold(p, nothing, 0.3f, 2.0, 60.0);
    /* The additive layers: a flinch standing and walking, a lean while the camera turns the walk. */
    hold(p, (player_intent){.hit = true}, 0.3f, 1.5, 60.0);
    for (int i = 0; i < 120; ++i)
        CHECK(player_step(p, &(player_intent){.move_forward = 1.0f, .hit = i == 60}, 0.3f + 0.025f * (float)i,
                          1.0f / 60.0f, NULL));
    CHECK(parameter_value(p, "turn_rate") > 45.0f);
    CHECK(heap_calls == before);
    player *another = player_create(f.character, NULL, NULL);
    CHECK(heap_calls > before); /* the wrapping works: creating does allocate */
    player_destroy(another);
    fixture_close(&f);
}

static void test_rebind_keeps_the_state(void)
{
    fixture f;
    if (!fixture_open(&f, NULL)) {
        fixture_close(&f);
        return;
    }
    player *p = f.player;
    hold(p, forward, 0.0f, 1.0, 60.0);
    CHECK(moving_as(p, "walk"));
    vec3 before, after;
    player_position(p, before);

    anim_config *reloaded = load_config(f.cache);
    const anim_character *character = reloaded ? anim_config_find_character(reloaded, "mannequin") : NULL;
    CHECK(character != NULL);
    CHECK(!player_rebind(p, NULL, NULL));
    CHECK(player_rebind(p, character, NULL));
    CHECK(animator_character(player_animator(p)) == character);
    CHECK(moving_as(p, "walk"));
    player_position(p, after);
    CHECK(glm_vec3_distance(before, after) == 0.0f);
    CHECK_NEAR(player_speed(p), 1.4, 1e-5);
    /* The old config can go; the player walks on with the new one. */
    anim_config_free(f.config);
    f.config = reloaded;
    f.character = character;
    hold(p, forward, 0.0f, 0.5, 60.0);
    CHECK(moving_as(p, "walk"));
    player_position(p, after);
    CHECK_NEAR(glm_vec3_distance(before, after), 0.7, 0.02);
    fixture_close(&f);
}

/* ---- the parameters the player drives ---- */

/* The mannequin with config/states.ini changed by `replacements` (see test_states.h), from a fresh folder. */
static anim_config *load_variant(cache *cache, const char *prefix, const char *const *replacements)
{
    char folder[512], states[600];
    CHECK(test_make_temp_folder(folder, sizeof folder, prefix));
    snprintf(states, sizeof states, "%s/states.ini", folder);
    CHECK(test_states_write_variant(states, replacements));
    diag_list errors = {0};
    anim_config *config = anim_config_load_character("mannequin", MANNEQUIN_MESH, CLIPS, states, cache, &errors);
    test_print_diags(&errors);
    CHECK(config != NULL && errors.total == 0);
    diag_list_free(&errors);
    return config;
}

static float parameter_value(const player *p, const char *name)
{
    float value = NAN;
    CHECK(animator_get(player_animator(p), name, &value));
    return value;
}

/* A reload whose states.ini lists the parameters in another order: the player finds them again, so speed,
 * grounded and the triggers land in the parameters of those names (handles kept from the old machine would
 * hit celebrate, jump and grounded, be refused as another type, and the player would stop animating). */
static void test_rebind_finds_reordered_parameters(void)
{
    fixture f;
    if (!fixture_open(&f, NULL)) {
        fixture_close(&f);
        return;
    }
    player *p = f.player;
    hold(p, forward, 0.0f, 1.0, 60.0);
    CHECK(moving_as(p, "walk"));
    const char *const reverse[] = {TEST_STATES_PARAMETERS, TEST_STATES_PARAMETERS_REVERSED, NULL};
    anim_config *reordered = load_variant(f.cache, "player_reorder", reverse);
    const anim_character *character = reordered ? anim_config_character(reordered, 0) : NULL;
    if (!character) {
        anim_config_free(reordered);
        fixture_close(&f);
        return;
    }
    CHECK(state_machine_find_parameter(&character->machine, "speed") == 5);
    CHECK(state_machine_find_parameter(&character->machine, "celebrate") == 0);
    diag_list problems = {0};
    CHECK(player_rebind(p, character, &problems));
    CHECK(problems.total == 0);
    anim_config_free(f.config);
    f.config = reordered;
    f.character = character;

    hold(p, nothing, 0.0f, 1.5, 60.0);
    CHECK(player_speed(p) < 0.1f);
    CHECK(parameter_value(p, "speed") == player_speed(p));
    CHECK(moving_as(p, "idle"));
    hold(p, forward_run, 0.0f, 2.0, 60.0);
    CHECK_NEAR(player_speed(p), 3.5, 1e-4);
    CHECK(parameter_value(p, "speed") == player_speed(p));
    CHECK(moving_as(p, "run"));
    CHECK(parameter_value(p, "turn") == 0.0f);     /* nothing meant for another index landed here */
    CHECK(parameter_value(p, "grounded") == 1.0f);
    player_intent jump = {.move_forward = 1.0f, .run = true, .jump = true};
    CHECK(player_step(p, &jump, 0.0f, 1.0f / 60.0f, NULL));
    CHECK(in_state(p, "jump"));
    diag_list_free(&problems);
    fixture_close(&f);
}

/* A states.ini that calls the speed `velocity` and makes grounded a number: each is reported once, when the
 * player is made (and again when it is bound to a reloaded machine), in words that name the parameter, its
 * type and the character; the steps in between report nothing, allocate nothing and leave velocity alone. */
static void test_a_missing_parameter_is_reported_once(void)
{
    cache *shared = cache_create();
    const char *const rename[] = {"speed", "velocity", "grounded = bool true", "grounded = number 1",
                                  "jump and grounded", "jump and grounded > 0.5", NULL};
    anim_config *config = load_variant(shared, "player_missing", rename);
    const anim_character *character = config ? anim_config_character(config, 0) : NULL;
    diag_list problems = {0};
    player *p = character ? player_create(character, NULL, &problems) : NULL;
    CHECK(p != NULL);
    if (!p) {
        anim_config_free(config);
        cache_destroy(shared);
        return;
    }
    CHECK(problems.total == 2);
    char text[DIAG_TEXT_MAX] = "";
    diag_format(&problems.items[0], text, sizeof text);
    CHECK(strcmp(text, "states.ini: warning: the demo sets parameter 'speed' (number), which the state machine of "
                       "'mannequin' does not have; it is ignored") == 0);
    diag_format(&problems.items[1], text, sizeof text);
    CHECK(strcmp(text, "states.ini: warning: the demo sets parameter 'grounded' (bool), which the state machine of "
                       "'mannequin' declares as a number; it is ignored") == 0);
    /* hit and die are for characters made for them: missing, they are no mistake. */
    for (int i = 0; i < problems.count; ++i)
        CHECK(!strstr(problems.items[i].message, "'hit'") && !strstr(problems.items[i].message, "'die'"));

    long before = heap_calls;
    for (int i = 0; i < 600; ++i) {
        player_intent intent = {.move_forward = 1.0f, .jump = i % 50 == 0, .wave = i % 70 == 0,
                                .hit = i % 90 == 0, .die = i % 110 == 0};
        CHECK(player_step(p, &intent, 0.0f, 1.0f / 60.0f, NULL));
    }
    CHECK(heap_calls == before);
    CHECK(problems.total == 2);
    CHECK(player_speed(p) > 1.0f);
    CHECK(parameter_value(p, "velocity") == 0.0f); /* the game's speed went nowhere */
    CHECK(parameter_value(p, "grounded") == 1.0f); /* its default: the bool was refused */

    /* Bound again (a reload): reported again, once, in a new list; into the same list, not repeated. */
    diag_list again = {0};
    CHECK(player_rebind(p, character, &again));
    CHECK(again.total == 2);
    CHECK(player_rebind(p, character, &again));
    CHECK(again.total == 2);
    diag_list_free(&again);
    diag_list_free(&problems);
    player_destroy(p);
    anim_config_free(config);
    cache_destroy(shared);
}

/* ---- strafe ---- */

/* The clip with the largest weight in the body's blend, and that weight. */
static const char *heaviest_clip(const player *p, float *weight)
{
    const anim_controller *controller = animator_controller(player_animator(p));
    int top = anim_controller_layer_count(controller, 0) - 1;
    anim_layer_info info = {0};
    float weights[ANIM_BLEND_MAX_CLIPS];
    int count = anim_controller_layer_blend_weights(controller, 0, top, weights);
    *weight = 0.0f;
    if (count == 0 || !anim_controller_layer(controller, 0, top, &info))
        return "";
    int best = anim_blend_heaviest(info.blend, weights);
    *weight = weights[best];
    return info.blend->clips[best]->name;
}

/* Holding strafe, the player keeps facing the camera's forward and moves where the keys say: to its right
 * with the right key, the strafe blend showing the walk to the right; backward at a run; turning with the
 * camera; and letting go of strafe turns the body into the way it goes without changing course. */
static void test_strafe_keeps_facing_the_camera(void)
{
    fixture f;
    if (!fixture_open(&f, NULL)) {
        fixture_close(&f);
        return;
    }
    player *p = f.player;
    const player_intent right = {.move_right = 1.0f, .strafe = true};
    vec3 moved;
    travel(p, right, 0.0f, 2.0, moved);
    /* Camera yaw 0 looks along +X: its right, and the player's, is +Z. */
    check_direction(moved, 0.0f, 1.0f);
    CHECK(in_state(p, "strafe"));
    CHECK(player_heading(p) == 0.0f);
    CHECK_NEAR(player_speed(p), 1.4, 1e-5);
    CHECK_NEAR(parameter_value(p, "forward"), 0.0, 1e-5);
    CHECK_NEAR(parameter_value(p, "left"), -1.4, 1e-5); /* its right */
    CHECK(parameter_value(p, "strafe") == 1.0f);
    float weight;
    CHECK(strcmp(heaviest_clip(p, &weight), "walk_right") == 0);
    CHECK_NEAR(weight, 1.0, 1e-5);
    printf("  strafe right: moved (%.3f, %.3f) m in the last second, heading %.4f, walk_right %.3f\n", moved[0],
           moved[2], player_heading(p), weight);

    /* Backward at a run: run_back; forward and to the right at a walk: walk and walk_right share the most. */
    travel(p, (player_intent){.move_forward = -1.0f, .run = true, .strafe = true}, 0.0f, 2.0, moved);
    check_direction(moved, -1.0f, 0.0f);
    CHECK(player_heading(p) == 0.0f);
    CHECK(strcmp(heaviest_clip(p, &weight), "run_back") == 0);
    CHECK_NEAR(weight, 1.0, 1e-5);
    travel(p, (player_intent){.move_forward = 1.0f, .move_right = 1.0f, .strafe = true}, 0.0f, 2.0, moved);
    check_direction(moved, (float)sqrt(0.5), (float)sqrt(0.5));
    CHECK_NEAR(blend_weight(p, "walk"), blend_weight(p, "walk_right"), 1e-5);
    CHECK(blend_weight(p, "walk") > 0.35f && blend_weight(p, "walk") > blend_weight(p, "idle"));

    /* The camera turns a radian to the left: the body follows it no faster than the mover turns, and the
     * right key moves it to the camera's new right, (sin 1, cos 1). */
    player_place(p, 0.0f, 0.0f, 0.0f);
    hold(p, right, 0.0f, 1.0, 60.0);
    mover_params rates = mover_default_params();
    float before = player_heading(p);
    for (int i = 0; i < 60; ++i) {
        CHECK(player_step(p, &right, 1.0f, 1.0f / 60.0f, NULL));
        CHECK(fabsf(mover_turn_between(before, player_heading(p))) <= rates.turn_rate / 60.0f + 1e-5f);
        before = player_heading(p);
    }
    CHECK_NEAR(player_heading(p), 1.0, 1e-5);
    travel(p, right, 1.0f, 2.0, moved);
    check_direction(moved, sinf(1.0f), cosf(1.0f));

    /* Letting go of strafe with the key still held: the body turns to face its right (-pi/2) while it keeps
     * going the same way, and the machine goes back to the locomotion blend. */
    player_place(p, 0.0f, 0.0f, 0.0f);
    hold(p, right, 0.0f, 2.0, 60.0);
    const player_intent plain_right = {.move_right = 1.0f};
    vec3 was, now;
    player_position(p, was);
    for (int i = 0; i < 60; ++i) {
        CHECK(player_step(p, &plain_right, 0.0f, 1.0f / 60.0f, NULL));
        player_position(p, now);
        CHECK(now[2] - was[2] > 1.3f / 60.0f); /* still going +Z at (nearly) its speed */
        CHECK(fabsf(now[0] - was[0]) < 1e-4f);
        glm_vec3_copy(now, was);
    }
    CHECK_NEAR(player_heading(p), -PI / 2.0, 1e-5);
    CHECK(moving_as(p, "walk"));
    fixture_close(&f);
}

/* A character whose state machine has no `strafe` parameter walks as usual with the strafe key held. */
static void test_strafe_needs_a_machine_that_strafes(void)
{
    fixture f;
    if (!fixture_open_at(&f, MARIONETTE_TEST_DATA "/crossfade/characters.ini", NULL)) {
        fixture_close(&f);
        return;
    }
    vec3 moved;
    travel(f.player, (player_intent){.move_right = 1.0f, .strafe = true}, 0.0f, 2.0, moved);
    check_direction(moved, 0.0f, 1.0f);
    CHECK_NEAR(player_heading(f.player), -PI / 2.0, 1e-5); /* it turned to walk that way */
    fixture_close(&f);
}

/* A machine with `strafe` but without `left` (renamed `sideways`): that one is reported, once, and strafing
 * still steps without allocating; `forward` still gets the velocity. */
static void test_a_strafe_without_its_velocity_is_reported(void)
{
    cache *shared = cache_create();
    const char *const rename[] = {"left = number 0", "sideways = number 0", "parameters = forward left",
                                  "parameters = forward sideways", NULL};
    anim_config *config = load_variant(shared, "player_strafe_missing", rename);
    const anim_character *character = config ? anim_config_character(config, 0) : NULL;
    diag_list problems = {0};
    player *p = character ? player_create(character, NULL, &problems) : NULL;
    CHECK(p != NULL);
    if (p) {
        CHECK(problems.total == 1);
        char text[DIAG_TEXT_MAX] = "";
        if (problems.count > 0)
            diag_format(&problems.items[0], text, sizeof text);
        CHECK(strcmp(text, "states.ini: warning: the demo sets parameter 'left' (number), which the state machine "
                           "of 'mannequin' does not have; it is ignored") == 0);
        long before = heap_calls;
        hold(p, (player_intent){.move_forward = 1.0f, .move_right = 1.0f, .strafe = true}, 0.0f, 1.0, 60.0);
        CHECK(heap_calls == before);
        CHECK(in_state(p, "strafe"));
        CHECK(parameter_value(p, "forward") > 0.9f);
        CHECK(parameter_value(p, "sideways") == 0.0f); /* the game's left went nowhere */
        CHECK(problems.total == 1);
    }
    player_destroy(p);
    diag_list_free(&problems);
    anim_config_free(config);
    cache_destroy(shared);
}


/* ---- additive layers: the lean, the breath, the flinch ------------------------------------------------ */

/* The index of a joint of the player's skeleton, or -1. */
static int joint_of(const player *p, const char *name)
{
    const skeleton *s = &animator_character(player_animator(p))->model->skeleton;
    for (int i = 0; i < s->joint_count; ++i)
        if (strcmp(s->names[i], name) == 0)
            return i;
    return -1;
}

/* How far joint `joint` of p is rolled about the body's forward axis (object X) from where `reference` has
 * it, in object space, degrees; positive to the character's left (its top towards +Y). */
static double roll_against(const player *p, const player *reference, int joint)
{
    const joint_pose *mine = &anim_controller_object_pose(animator_controller(player_animator(p)))[joint];
    const joint_pose *theirs = &anim_controller_object_pose(animator_controller(player_animator(reference)))[joint];
    versor turned, inverse;
    glm_quat_inv((float *)theirs->rotation, inverse);
    glm_quat_mul((float *)mine->rotation, inverse, turned);
    /* A turn by a about +X takes +Z (up) towards -Y: a roll to the left is a negative turn about X. */
    double sign = turned[3] < 0.0f ? -1.0 : 1.0;
    return -2.0 * asin(fmax(-1.0, fmin(1.0, sign * turned[0]))) * 180.0 / PI;
}

/* The largest angle between the object-space rotations of joint `joint` of two players, degrees. */
static double joint_angle_between(const player *a, const player *b, int joint)
{
    const joint_pose *x = &anim_controller_object_pose(animator_controller(player_animator(a)))[joint];
    const joint_pose *y = &anim_controller_object_pose(animator_controller(player_animator(b)))[joint];
    double dot = 0.0;
    for (int k = 0; k < 4; ++k)
        dot += (double)x->rotation[k] * y->rotation[k];
    return 2.0 * acos(fmin(1.0, fabs(dot))) * 180.0 / PI;
}

/* Turning while walking leans the trunk into the turn: three players walk side by side in step, one
 * straight, one with the camera (and so the way forward) turning left at 90 degrees a second, one turning
 * right as fast. Measured as the roll of spine.03 in object space against the straight walker's: to the
 * left in a left turn, as far to the right in a right one. The turn rate each sets is the heading's, and a
 * quarter turn on the keys leans in and out without a jump. */
static void test_turning_while_walking_leans_into_the_turn(void)
{
    fixture f;
    if (!fixture_open(&f, NULL)) {
        fixture_close(&f);
        return;
    }
    player *straight = f.player;
    player *left = player_create(f.character, NULL, NULL), *right = player_create(f.character, NULL, NULL);
    int spine = joint_of(straight, "spine.03");
    CHECK(left && right && spine >= 0);
    if (!left || !right || spine < 0) {
        player_destroy(left);
        player_destroy(right);
        fixture_close(&f);
        return;
    }
    double roll_left = 0.0, roll_right = 0.0;
    int measured = 0;
    for (int i = 0; i < 3 * 60; ++i) {
        float turned = (float)(0.5 * PI) * (float)i / 60.0f; /* 90 degrees a second */
        CHECK(player_step(straight, &forward, 0.0f, 1.0f / 60.0f, NULL));
        CHECK(player_step(left, &forward, turned, 1.0f / 60.0f, NULL));
        CHECK(player_step(right, &forward, -turned, 1.0f / 60.0f, NULL));
        if (i >= 90) { /* the walk and the lean have settled */
            roll_left += roll_against(left, straight, spine);
            roll_right += roll_against(right, straight, spine);
            ++measured;
        }
    }
    roll_left /= measured;
    roll_right /= measured;
    printf("  walking in a 90 degrees/s turn: spine.03 rolls %+.2f degrees (left turn), %+.2f (right turn) against "
           "a straight walk; turn_rate %+.2f / %+.2f\n",
           roll_left, roll_right, (double)parameter_value(left, "turn_rate"),
           (double)parameter_value(right, "turn_rate"));
    CHECK(in_state(straight, "moving") && in_state(left, "moving") && in_state(right, "moving"));
    CHECK_NEAR(player_speed(left), player_speed(straight), 1e-4); /* in step: the same speed, the same phase */
    CHECK_NEAR(parameter_value(left, "turn_rate"), 90.0, 1.0);
    CHECK_NEAR(parameter_value(right, "turn_rate"), -90.0, 1.0);
    CHECK(parameter_value(straight, "turn_rate") == 0.0f);
    CHECK(roll_left > 5.0 && roll_left < 20.0);
    CHECK(roll_right < -5.0 && roll_right > -20.0);
    CHECK_NEAR(roll_left, -roll_right, 1.0);

    /* A quarter turn on the keys (the mover turns a full turn a second for a quarter second): the turn rate
     * the animation gets changes by at most MOVER_TURN_RATE_CHANGE, so the lean comes and goes over a few
     * frames. Measured as the chest's turn from one step to the next, against the straight walk's own. */
    player_place(left, 0.0f, 0.0f, 0.0f);
    player_place(straight, 0.0f, 0.0f, 0.0f);
    hold(left, forward, 0.0f, 1.0, 60.0);
    hold(straight, forward, 0.0f, 1.0, 60.0);
    joint_pose was[2] = {
        anim_controller_object_pose(animator_controller(player_animator(left)))[spine],
        anim_controller_object_pose(animator_controller(player_animator(straight)))[spine]};
    double largest_roll = 0.0, largest_step[2] = {0.0, 0.0};
    for (int i = 0; i < 60; ++i) {
        CHECK(player_step(left, &(player_intent){.move_right = -1.0f}, 0.0f, 1.0f / 60.0f, NULL));
        CHECK(player_step(straight, &forward, 0.0f, 1.0f / 60.0f, NULL));
        largest_roll = fmax(largest_roll, roll_against(left, straight, spine));
        const player *both[2] = {left, straight};
        for (int k = 0; k < 2; ++k) {
            const joint_pose *now = &anim_controller_object_pose(animator_controller(player_animator(both[k])))[spine];
            double dot = 0.0;
            for (int c = 0; c < 4; ++c)
                dot += (double)now->rotation[c] * was[k].rotation[c];
            largest_step[k] = fmax(largest_step[k], 2.0 * acos(fmin(1.0, fabs(dot))) * 180.0 / PI);
            was[k] = *now;
        }
    }
    printf("  a quarter turn on the keys: the spine rolls up to %+.2f degrees; the chest turns at most %.2f degrees a "
           "step (%.2f walking straight)\n",
           largest_roll, largest_step[0], largest_step[1]);
    CHECK(largest_roll > 5.0);
    CHECK(largest_step[0] < largest_step[1] + 1.5); /* a snap would be the whole lean in one step */
    player_destroy(left);
    player_destroy(right);
    fixture_close(&f);
}

/* Standing still shows the breath: config/states.ini adds `breathe` from spine.01 while standing. Against a
 * player on the same machine without that overlay, the chest (spine.03) starts where the other's does
 * (the breath's first frame is its reference) and two seconds on, mid-breath, is turned by more than a
 * degree; walking, the breath is gone (weighted by speed to nothing from 0.3 m/s) and the two are the same
 * (within 0.01 degree). */
static void test_standing_still_breathes(void)
{
    fixture f;
    if (!fixture_open(&f, NULL)) {
        fixture_close(&f);
        return;
    }
    const char *const without_breath[] = {
        "overlay = breathe             ; additive, see \"additive layers\" below\noverlay_root = spine.01\n"
        "overlay_weight = speed 0.3 0  ; all of it standing, none from 0.3 m/s\n", "", NULL};
    anim_config *still = load_variant(f.cache, "player_no_breath", without_breath);
    const anim_character *character = still ? anim_config_character(still, 0) : NULL;
    player *other = character ? player_create(character, NULL, NULL) : NULL;
    player *p = f.player;
    int chest = joint_of(p, "spine.03");
    CHECK(other != NULL && chest >= 0);
    if (!other || chest < 0) {
        anim_config_free(still);
        fixture_close(&f);
        return;
    }
    int channel = animator_overlay_channel(player_animator(p));
    const anim_controller *controller = animator_controller(player_animator(p));
    CHECK(strcmp(top_clip(p, channel), "breathe") == 0);
    CHECK(anim_controller_overlay_weight(controller, channel) == 1.0f);
    double at_start = joint_angle_between(p, other, chest), at_two = 0.0;
    for (int i = 0; i < 2 * 60; ++i) {
        CHECK(player_step(p, &nothing, 0.0f, 1.0f / 60.0f, NULL));
        CHECK(player_step(other, &nothing, 0.0f, 1.0f / 60.0f, NULL));
        at_two = joint_angle_between(p, other, chest);
    }
    hold(p, forward, 0.0f, 1.0, 60.0);
    hold(other, forward, 0.0f, 1.0, 60.0);
    double walking = joint_angle_between(p, other, chest);
    printf("  standing: the breath turns the chest %.3f degrees at the start, %.3f two seconds on; walking %.3g\n",
           at_start, at_two, walking);
    CHECK(at_start < 0.1);
    CHECK(at_two > 1.0);
    CHECK(in_state(p, "moving") && walking < 0.01);
    player_destroy(other);
    anim_config_free(still);
    fixture_close(&f);
}

/* H flinches: `hit` takes the player from standing or moving to `flinch`, whose overlay channel plays the
 * flinch clip over the upper body while the body channel keeps the locomotion blend where it was (no new
 * layer, its cycle running on); the chest jerks back; once the flinch has played, back to moving (or
 * standing). */
static void test_h_flinches(void)
{
    fixture f;
    if (!fixture_open(&f, NULL)) {
        fixture_close(&f);
        return;
    }
    player *p = f.player, *control = player_create(f.character, NULL, NULL);
    int chest = joint_of(p, "spine.03");
    CHECK(control != NULL && chest >= 0);
    if (!control || chest < 0) {
        player_destroy(control);
        fixture_close(&f);
        return;
    }
    hold(p, forward, 0.0f, 1.0, 60.0);
    hold(control, forward, 0.0f, 1.0, 60.0);
    CHECK(in_state(p, "moving"));
    const anim_controller *controller = animator_controller(player_animator(p));
    anim_layer_info body_before = {0}, body_after = {0};
    CHECK(anim_controller_layer_count(controller, 0) == 1 && anim_controller_layer(controller, 0, 0, &body_before));
    player_intent hit = forward;
    hit.hit = true;
    CHECK(player_step(p, &hit, 0.0f, 1.0f / 60.0f, NULL) && player_step(control, &forward, 0.0f, 1.0f / 60.0f, NULL));
    CHECK(in_state(p, "flinch"));
    int channel = animator_overlay_channel(player_animator(p));
    CHECK(strcmp(top_clip(p, channel), "flinch") == 0);
    CHECK(anim_controller_layer_count(controller, 0) == 1 && anim_controller_layer(controller, 0, 0, &body_after));
    CHECK(body_after.blend == body_before.blend && body_after.blend &&
          strcmp(body_after.blend->name, "locomotion") == 0);
    CHECK(body_after.cycles > body_before.cycles && body_after.cycles - body_before.cycles < 0.05);
    double jerk = 0.0;
    for (int i = 0; i < 30; ++i) {
        CHECK(player_step(p, &forward, 0.0f, 1.0f / 60.0f, NULL));
        CHECK(player_step(control, &forward, 0.0f, 1.0f / 60.0f, NULL));
        jerk = fmax(jerk, joint_angle_between(p, control, chest));
    }
    CHECK(in_state(p, "flinch") && moving_as(p, "walk"));
    printf("  H while walking: the chest turns up to %.2f degrees from the walk's\n", jerk);
    CHECK(jerk > 5.0);
    hold(p, forward, 0.0f, 1.0, 60.0);
    CHECK(in_state(p, "moving"));
    /* Standing: flinch, then standing again. */
    hold(p, nothing, 0.0f, 2.0, 60.0);
    CHECK(in_state(p, "locomotion"));
    hold(p, (player_intent){.hit = true}, 0.0f, 0.5, 60.0);
    CHECK(in_state(p, "flinch") && moving_as(p, "idle"));
    hold(p, nothing, 0.0f, 1.0, 60.0);
    CHECK(in_state(p, "locomotion"));
    player_destroy(control);
    fixture_close(&f);
}

/* On the steps the feet stand at the ground's height all the way up a stair, the landing and down the
 * ramp: player_position gives it, and the world matrix stands the body there, upright. */
static void test_feet_follow_the_ground(void)
{
    fixture f;
    if (!fixture_open(&f, NULL)) {
        fixture_close(&f);
        return;
    }
    player *p = f.player;
    ground steps = {.kind = GROUND_STEPS};
    player_set_ground(p, &steps);
    vec3 at;
    player_position(p, at);
    CHECK(at[1] == 0.0f); /* the origin is on a floor */
    float highest = 0.0f;
    for (int i = 0; i < 8 * 60; ++i) {
        CHECK(player_step(p, &forward, 0.0f, 1.0f / 60.0f, NULL));
        player_position(p, at);
        CHECK(at[1] == ground_at(&steps, at[0], at[2]).height);
        highest = fmaxf(highest, at[1]);
        mat4 world;
        player_world_matrix(p, world);
        CHECK(world[3][1] == at[1]);
        CHECK_NEAR(world[1][1], 1.0f, 1e-6);
    }
    CHECK_NEAR(highest, 0.9f, 1e-5); /* up the whole stair to the landing */
    CHECK(at[0] > 9.0f);             /* and down the ramp beyond it */
    /* Placed elsewhere, or given flat ground again, it stands on what is under it at once. */
    CHECK(player_place(p, 2.2f, 0.0f, 0.0f));
    player_position(p, at);
    CHECK_NEAR(at[1], ground_at(&steps, 2.2f, 0.0f).height, 1e-6);
    CHECK(at[1] > 0.1f);
    player_set_ground(p, NULL);
    player_position(p, at);
    CHECK(at[1] == 0.0f);
    fixture_close(&f);
}

int main(void)
{
    RUN(test_feet_follow_the_ground);
    RUN(test_walk_run_and_stop);
    RUN(test_rebind_finds_reordered_parameters);
    RUN(test_a_missing_parameter_is_reported_once);
    RUN(test_jump_and_wave);
    RUN(test_directions_follow_the_camera);
    RUN(test_diagonal_is_not_faster);
    RUN(test_strafe_keeps_facing_the_camera);
    RUN(test_strafe_needs_a_machine_that_strafes);
    RUN(test_a_strafe_without_its_velocity_is_reported);
    RUN(test_planted_feet_do_not_slide);
    RUN(test_step_rate_does_not_change_the_path);
    RUN(test_bad_input_is_ignored);
    RUN(test_new_params_while_walking);
    RUN(test_a_turn_in_place_turns_by_the_clip_yaw);
    RUN(test_holding_a_turn_walks_off_that_way);
    RUN(test_a_root_motion_walk_moves_by_the_clip);
    RUN(test_handing_the_body_over_does_not_jump);
    RUN(test_steps_allocate_nothing);
    RUN(test_rebind_keeps_the_state);
    RUN(test_turning_while_walking_leans_into_the_turn);
    RUN(test_standing_still_breathes);
    RUN(test_h_flinches);
    return check_report();
}
