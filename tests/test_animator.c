/* The animator: the real config/ state machine driving the controller. Locomotion transitions crossfade
 * (weights visible in the controller) and keep walk and run in step; bool, trigger and one-shot `end`
 * conditions; `any` transitions; the wave overlay leaves the legs exactly on the walk; root motion moves
 * the entity; hot reload keeps state and phase on a good edit, keeps running on a bad one and falls back
 * to the start state when the state is gone; an entity of a 33-joint character costs at most 4 KB, with a
 * 2D blend of 8 clips playing too. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "anim/config/anim_config.h"
#include "anim/animator.h"
#include "animator_fixture.h"
#include "check.h"
#include "pose/pose.h"
#include "synth.h"
#include "test_files.h"

#define CONFIG MARIONETTE_SOURCE_DIR "/config"
/* The demo's characters with idle, walk and run as crossfading states (the machine config/ had before
 * locomotion became a blend space): crossfades, sync groups and reloads in a fade are tested on it. */
#define CROSSFADE MARIONETTE_TEST_DATA "/crossfade"
#define MANNEQUIN MARIONETTE_SOURCE_DIR "/assets/models/mannequin.md5mesh"
#define STEP (1.0 / 60.0)

/* Step at 60 Hz for `seconds`; returns how many transitions fired. */
static int run_for(animator *animator, double seconds)
{
    int fired = 0;
    animator_update_result result;
    for (int i = 0; i < (int)lround(seconds / STEP); ++i) {
        CHECK(animator_update(animator, STEP, &result));
        fired += result.decision.fired;
    }
    return fired;
}

/* Step until the animator is in `state` (at most `seconds`); true if it got there. */
static bool run_until_state(animator *animator, const char *state, double seconds)
{
    for (int i = 0; i < (int)lround(seconds / STEP); ++i) {
        if (strcmp(animator_state_name(animator), state) == 0)
            return true;
        CHECK(animator_update(animator, STEP, NULL));
    }
    return strcmp(animator_state_name(animator), state) == 0;
}

static anim_layer_info layer(const animator *animator, int channel, int index)
{
    anim_layer_info info = {0};
    CHECK(anim_controller_layer(animator_controller(animator), channel, index, &info));
    return info;
}

static int layer_count(const animator *animator, int channel)
{
    return anim_controller_layer_count(animator_controller(animator), channel);
}

static const char *top_clip(const animator *animator, int channel)
{
    int count = layer_count(animator, channel);
    anim_layer_info info = count > 0 ? layer(animator, channel, count - 1) : (anim_layer_info){0};
    return info.clip ? info.clip->name : "";
}

static double phase(const anim_layer_info *info)
{
    return info->cycles - floor(info->cycles);
}

/* The controller's local pose in out (it keeps none: it samples it again). */
static const joint_pose *local_pose(const animator *animator, joint_pose out[64])
{
    CHECK(animator_character(animator)->model->skeleton.joint_count <= 64);
    CHECK(anim_controller_local_pose(animator_controller(animator), out));
    return out;
}

/* ---- locomotion ---- */

static void test_starts_in_idle(void)
{
    fixture f;
    if (fixture_open(&f, CROSSFADE "/characters.ini")) {
        CHECK(strcmp(animator_state_name(f.animator), "idle") == 0);
        CHECK(layer_count(f.animator, 0) == 1 && strcmp(top_clip(f.animator, 0), "idle") == 0);
        CHECK(layer_count(f.animator, 1) == 0 && layer_count(f.animator, 2) == 0);
        float speed = -1.0f;
        CHECK(animator_get(f.animator, "speed", &speed) && speed == 0.0f);
        CHECK(!animator_set_number(f.animator, "sped", 1.0f));   /* a typo is refused */
        CHECK(!animator_set_number(f.animator, "jump", 1.0f));   /* a trigger is not a number */
        CHECK(!animator_set_bool(f.animator, "speed", true));
        CHECK(!animator_set_number(f.animator, "speed", NAN));
        /* The pose is the idle's first frame, not the bind pose. */
        joint_pose expected[64];
        const clip *idle = f.character->clips[anim_config_find_clip(f.character, "idle")].clip;
        CHECK(idle->joint_count <= 64);
        pose_sample(idle, 0.0f, true, expected);
        joint_pose local_buffer[64];
        const joint_pose *local = local_pose(f.animator, local_buffer);
        for (int j = 1; j < idle->joint_count; ++j)
            CHECK_NEAR(local[j].rotation[3], expected[j].rotation[3], 1e-6);
        CHECK(animator_bytes(f.animator) > 0 && animator_bytes(f.animator) < 16 * 1024);
    }
    fixture_close(&f);
}

static void test_locomotion_crossfades(void)
{
    fixture f;
    if (!fixture_open(&f, CROSSFADE "/characters.ini")) {
        fixture_close(&f);
        return;
    }
    animator *a = f.animator;
    animator_update_result result;
    CHECK(run_for(a, 0.5) == 0);

    /* idle -> walk: fade 0.25, the walk's weight rising by 1/15 per 60 Hz step. */
    animator_set_number(a, "speed", 1.4f);
    CHECK(animator_update(a, STEP, &result));
    CHECK(result.decision.fired && strcmp(animator_state_name(a), "walk") == 0);
    CHECK_NEAR(result.decision.fade, 0.25, 1e-6);
    CHECK(layer_count(a, 0) == 2);
    CHECK(strcmp(layer(a, 0, 0).clip->name, "idle") == 0 && strcmp(layer(a, 0, 1).clip->name, "walk") == 0);
    CHECK_NEAR(layer(a, 0, 1).weight, STEP / 0.25, 1e-4);
    run_for(a, 5 * STEP);
    CHECK_NEAR(layer(a, 0, 1).weight, 6 * STEP / 0.25, 1e-4);
    CHECK_NEAR(layer(a, 0, 0).weight + layer(a, 0, 1).weight, 1.0, 1e-6);
    /* At 1.4 m/s the walk plays as authored. */
    CHECK_NEAR(layer(a, 0, 1).speed, 1.0, 1e-6);
    run_for(a, 0.25);
    CHECK(layer_count(a, 0) == 1 && strcmp(top_clip(a, 0), "walk") == 0);

    /* rate_from: the speed scale follows the parameter every step, within rate_min/rate_max. */
    animator_set_number(a, "speed", 2.1f);
    run_for(a, STEP);
    CHECK(strcmp(animator_state_name(a), "walk") == 0);
    CHECK_NEAR(layer(a, 0, 0).speed, 1.5, 1e-6);
    animator_set_number(a, "speed", 2.5f); /* 1.79, clamped to 1.6; and not yet a run (> 2.6) */
    run_for(a, STEP);
    CHECK(strcmp(animator_state_name(a), "walk") == 0);
    CHECK_NEAR(layer(a, 0, 0).speed, 1.6, 1e-6);

    /* walk -> run: synced, the run starts at the walk's normalized phase. */
    run_for(a, 0.3);
    double walk_phase = phase(&(anim_layer_info){.cycles = layer(a, 0, 0).cycles});
    animator_set_number(a, "speed", 3.5f);
    CHECK(animator_update(a, STEP, &result));
    CHECK(result.decision.fired && strcmp(animator_state_name(a), "run") == 0);
    CHECK(layer_count(a, 0) == 2);
    anim_layer_info walk = layer(a, 0, 0), run = layer(a, 0, 1);
    CHECK(strcmp(walk.clip->name, "walk") == 0 && strcmp(run.clip->name, "run") == 0);
    CHECK_NEAR(phase(&walk), phase(&run), 1e-6);
    CHECK(phase(&walk) > walk_phase); /* it moved on by one step, and did not restart */
    for (int i = 0; i < 17; ++i) {
        run_for(a, STEP);
        if (layer_count(a, 0) == 2) {
            walk = layer(a, 0, 0);
            run = layer(a, 0, 1);
            CHECK_NEAR(phase(&walk), phase(&run), 1e-6);
        }
    }
    CHECK(layer_count(a, 0) == 1 && strcmp(top_clip(a, 0), "run") == 0);

    /* run -> walk, also in step; then walk -> idle. */
    run_for(a, 0.4);
    animator_set_number(a, "speed", 1.4f);
    CHECK(animator_update(a, STEP, &result) && result.decision.fired);
    CHECK(strcmp(animator_state_name(a), "walk") == 0 && layer_count(a, 0) == 2);
    run = layer(a, 0, 0);
    walk = layer(a, 0, 1);
    CHECK_NEAR(phase(&walk), phase(&run), 1e-6);
    run_for(a, 0.5);
    animator_set_number(a, "speed", 0.0f);
    CHECK(animator_update(a, STEP, &result) && result.decision.fired);
    CHECK(strcmp(animator_state_name(a), "idle") == 0);
    CHECK_NEAR(result.decision.fade, 0.3, 1e-6);
    run_for(a, 0.3);
    CHECK(layer_count(a, 0) == 1 && strcmp(top_clip(a, 0), "idle") == 0);

    /* A sudden stop from a run goes straight to idle (priority 1 over run -> walk). */
    animator_set_number(a, "speed", 3.5f);
    CHECK(run_until_state(a, "run", 1.0));
    run_for(a, 0.5);
    animator_set_number(a, "speed", 0.0f);
    CHECK(animator_update(a, STEP, &result) && result.decision.fired);
    CHECK(strcmp(animator_state_name(a), "idle") == 0);
    CHECK_NEAR(result.decision.fade, 0.35, 1e-6);
    fixture_close(&f);
}

/* ---- conditions, any, one-shots ---- */

static void test_jump_conditions(void)
{
    fixture f;
    if (!fixture_open(&f, CROSSFADE "/characters.ini")) {
        fixture_close(&f);
        return;
    }
    animator *a = f.animator;
    float value;

    /* A bool: not grounded, no jump; the trigger is dropped after trigger_hold (0.2 s). */
    animator_set_bool(a, "grounded", false);
    animator_set_trigger(a, "jump");
    CHECK(run_for(a, 0.5) == 0);
    CHECK(animator_get(a, "jump", &value) && value == 0.0f);
    animator_set_bool(a, "grounded", true);
    CHECK(run_for(a, 0.2) == 0);

    /* A trigger fires once and is consumed. */
    animator_set_trigger(a, "jump");
    animator_update_result result;
    CHECK(animator_update(a, STEP, &result) && result.decision.fired);
    CHECK(strcmp(animator_state_name(a), "jump") == 0);
    CHECK(animator_get(a, "jump", &value) && value == 0.0f);
    CHECK_NEAR(result.decision.fade, 0.1, 1e-6);

    /* The one-shot plays to its end (2.0 s), holds, and `end` lands into idle at speed 0. */
    int transitions = 0;
    int steps = 0;
    while (strcmp(animator_state_name(a), "jump") == 0 && steps < 300) {
        CHECK(animator_update(a, STEP, &result));
        transitions += result.decision.fired;
        ++steps;
    }
    CHECK(transitions == 1 && strcmp(animator_state_name(a), "idle") == 0);
    /* `end` is seen on the step after the clip reached it: 2.0 s = 120 steps, minus the first. */
    CHECK(steps >= 119 && steps <= 121);
    CHECK_NEAR(result.decision.fade, 0.25, 1e-6);

    /* Landing into a walk when the speed asks for it. */
    animator_set_number(a, "speed", 1.0f);
    CHECK(run_until_state(a, "walk", 1.0));
    run_for(a, 0.5);
    animator_set_trigger(a, "jump"); /* from walk, by the `any` transition */
    run_for(a, STEP);
    CHECK(strcmp(animator_state_name(a), "jump") == 0);
    CHECK(run_until_state(a, "walk", 2.5));
    CHECK(strcmp(top_clip(a, 0), "walk") == 0);

    /* From a run too, and a run at landing. */
    animator_set_number(a, "speed", 3.5f);
    CHECK(run_until_state(a, "run", 1.0));
    animator_set_trigger(a, "jump");
    run_for(a, STEP);
    CHECK(strcmp(animator_state_name(a), "jump") == 0);
    CHECK(run_until_state(a, "run", 2.5));

    /* A one-shot in place: celebrate from idle ends back in idle; a turn ends too. */
    animator_set_number(a, "speed", 0.0f);
    CHECK(run_until_state(a, "idle", 1.0));
    animator_set_trigger(a, "celebrate");
    run_for(a, STEP);
    CHECK(strcmp(animator_state_name(a), "celebrate") == 0);
    CHECK(run_until_state(a, "idle", 3.0));
    fixture_close(&f);
}

static void test_root_motion_turns(void)
{
    fixture f;
    if (!fixture_open(&f, CROSSFADE "/characters.ini")) {
        fixture_close(&f);
        return;
    }
    animator *a = f.animator;
    animator_set_number(a, "turn", -90.0f);
    animator_update_result result;
    double yaw = 0.0, travel = 0.0;
    bool turned = false;
    for (int i = 0; i < 120; ++i) {
        CHECK(animator_update(a, STEP, &result));
        if (result.decision.fired && strcmp(animator_state_name(a), "turn_left") == 0) {
            turned = true;
            animator_set_number(a, "turn", 0.0f); /* the game resets it once the turn started */
            /* states.ini moved_by = clip: the turn is played as moving the entity, and the state says so. */
            const anim_controller *controller = animator_controller(a);
            anim_layer_info top;
            CHECK(anim_controller_layer(controller, 0, anim_controller_layer_count(controller, 0) - 1, &top));
            CHECK(top.clip && strcmp(top.clip->name, "turn_left") == 0 && top.moves_entity);
            CHECK(animator_moved_by_clip(a));
            CHECK(result.animation.root_motion_share > 0.0f && result.animation.root_motion_share < 0.2f);
        }
        yaw += result.animation.yaw;
        travel += hypot(result.animation.translation[0], result.animation.translation[1]);
    }
    CHECK(turned);
    /* 1.2 s clip + fade: finished within 2 s; a quarter turn to the left (positive yaw), in place. */
    CHECK(strcmp(animator_state_name(a), "idle") == 0);
    printf("  turn_left: yaw %.3f degrees, travel %.4f m\n", yaw * 180.0 / GLM_PI, travel);
    CHECK_NEAR(yaw * 180.0 / GLM_PI, 90.0, 1.0);
    CHECK(travel < 0.05);
    fixture_close(&f);
}

/* The walk state remapped to the root-motion walk and moved by it (a fixture's clip library and states):
 * the entity travels at the walk's 1.4 m/s while the pose stays in place; idle is the game's to move. */
static void test_root_motion_travels(void)
{
    fixture f;
    if (!fixture_open(&f, MARIONETTE_TEST_DATA "/trace/root_motion/characters.ini")) {
        fixture_close(&f);
        return;
    }
    animator *a = f.animator;
    CHECK(!animator_moved_by_clip(a)); /* idle */
    animator_set_number(a, "speed", 1.4f);
    CHECK(run_until_state(a, "walk", 0.1));
    CHECK(animator_moved_by_clip(a));
    run_for(a, 0.5); /* past the fade */
    animator_update_result result;
    double forward = 0.0, sideways = 0.0;
    for (int i = 0; i < 120; ++i) {
        CHECK(animator_update(a, STEP, &result));
        forward += result.animation.translation[0];
        sideways += result.animation.translation[1];
        CHECK(result.animation.root_motion_share == 1.0f);
    }
    printf("  walk_root_motion: %.4f m forward, %.4f m sideways in 2 s\n", forward, sideways);
    CHECK_NEAR(forward, 2.8, 0.05);
    CHECK(fabs(sideways) < 0.05);
    /* The pose itself stays over the entity's origin: the root's travel went to the entity. */
    joint_pose local[64];
    local_pose(a, local);
    CHECK(local[0].position[0] == 0.0f && local[0].position[1] == 0.0f);
    fixture_close(&f);
}

/* ---- overlays ---- */

/* Is joint in the branch under root (root included)? */
static bool in_branch(const skeleton *skeleton, int joint, int root)
{
    while (joint > root)
        joint = skeleton->parents[joint];
    return joint == root;
}

static void test_wave_over_walk(void)
{
    fixture f;
    if (!fixture_open(&f, CROSSFADE "/characters.ini")) {
        fixture_close(&f);
        return;
    }
    animator *a = f.animator;
    const skeleton *skeleton = &f.character->model->skeleton;
    int clavicle = -1;
    for (int j = 0; j < skeleton->joint_count; ++j)
        if (strcmp(skeleton->names[j], "clavicle.R") == 0)
            clavicle = j;
    CHECK(clavicle > 0);

    animator_set_number(a, "speed", 1.4f);
    CHECK(run_until_state(a, "walk", 0.1));
    run_for(a, 0.5);
    animator_set_trigger(a, "wave");
    run_for(a, STEP);
    CHECK(strcmp(animator_state_name(a), "walk_wave") == 0);
    int channel = animator_overlay_channel(a);
    CHECK(channel == 1 || channel == 2);
    CHECK(strcmp(top_clip(a, channel), "wave") == 0);
    run_for(a, 0.5);
    CHECK_NEAR(anim_controller_channel_weight(animator_controller(a), channel), 1.0, 1e-6);

    /* Legs (and everything outside the right arm) are exactly the walk at the walk layer's time. */
    const clip *walk = f.character->clips[anim_config_find_clip(f.character, "walk")].clip;
    joint_pose expected[64];
    CHECK(skeleton->joint_count <= 64);
    anim_layer_info body = layer(a, 0, 0);
    CHECK(layer_count(a, 0) == 1 && strcmp(body.clip->name, "walk") == 0);
    pose_sample(walk, (float)body.time, true, expected);
    joint_pose local[64];
    local_pose(a, local);
    double largest_leg_difference = 0.0, largest_arm_difference = 0.0;
    for (int j = 1; j < skeleton->joint_count; ++j) {
        double difference = 0.0;
        for (int k = 0; k < 4; ++k)
            difference = fmax(difference, fabs(local[j].rotation[k] - expected[j].rotation[k]));
        if (in_branch(skeleton, j, clavicle))
            largest_arm_difference = fmax(largest_arm_difference, difference);
        else
            largest_leg_difference = fmax(largest_leg_difference, difference);
    }
    printf("  wave over walk: body differs from the walk by %.3g, the right arm by %.3g\n", largest_leg_difference,
           largest_arm_difference);
    CHECK(largest_leg_difference < 1e-6);
    CHECK(largest_arm_difference > 0.05);

    /* Stopping keeps the wave going over the idle (walk_wave -> wave, same overlay, not restarted). */
    double wave_cycles = layer(a, channel, layer_count(a, channel) - 1).cycles;
    animator_set_number(a, "speed", 0.0f);
    run_for(a, STEP);
    CHECK(strcmp(animator_state_name(a), "wave") == 0);
    CHECK(animator_overlay_channel(a) == channel);
    CHECK(layer(a, channel, layer_count(a, channel) - 1).cycles > wave_cycles);

    /* The one-shot wave ends; the state machine leaves on overlay_end and the overlay fades out. */
    CHECK(run_until_state(a, "idle", 3.0));
    run_for(a, 0.35);
    CHECK(anim_controller_channel_weight(animator_controller(a), channel) == 0.0f);
    CHECK(layer_count(a, channel) == 0);
    fixture_close(&f);
}

/* The overlay masks the character shares (anim_character.branch_masks) give the entity exactly what masks of
 * its own give: a character copied without them plays the same walk, waves and crossfades bit for bit; the
 * shared one's controller holds no mask, and its overlay channels point at the character's. */
static void test_shared_masks_change_nothing(void)
{
    fixture f;
    if (!fixture_open(&f, CROSSFADE "/characters.ini")) {
        fixture_close(&f);
        return;
    }
    anim_character own_masks = *f.character;
    own_masks.branch_masks = NULL;
    animator *shared = f.animator, *own = animator_create(&own_masks);
    CHECK(own != NULL && f.character->branch_masks != NULL);
    if (!own) {
        fixture_close(&f);
        return;
    }
    CHECK(anim_controller_masks_shared(animator_controller(shared)));
    CHECK(!anim_controller_masks_shared(animator_controller(own)));
    int joints = f.character->model->skeleton.joint_count;
    size_t saved = anim_controller_bytes(animator_controller(own)) - anim_controller_bytes(animator_controller(shared));
    CHECK(saved + 32u > 2u * (size_t)joints * sizeof(float) && saved <= 2u * (size_t)joints * sizeof(float) + 32u);
    animator *both[2] = {shared, own};
    int differing_steps = 0, waving_steps = 0;
    for (int step = 0; step < 10 * 60; ++step) {
        for (int k = 0; k < 2; ++k) {
            animator_set_number(both[k], "speed", step % 240 < 150 ? 1.4f : 0.0f);
            if (step % 90 == 30)
                animator_set_trigger(both[k], "wave");
            CHECK(animator_update(both[k], STEP, NULL));
        }
        const joint_pose *a = anim_controller_object_pose(animator_controller(shared));
        const joint_pose *b = anim_controller_object_pose(animator_controller(own));
        differing_steps += memcmp(a, b, sizeof(joint_pose) * (size_t)joints) != 0;
        int channel = animator_overlay_channel(shared);
        if (channel > 0 && layer_count(shared, channel) > 0) {
            ++waving_steps;
            const float *mask = anim_controller_mask(animator_controller(shared), channel);
            bool the_characters = false;
            for (int j = 0; j < joints && !the_characters; ++j)
                the_characters = mask && mask == f.character->branch_masks[j];
            CHECK(the_characters);
        }
    }
    printf("  shared masks: %d of 600 steps differ from own masks, %d steps with an overlay\n", differing_steps,
           waving_steps);
    CHECK(differing_steps == 0 && waving_steps > 100);
    animator_destroy(own);
    fixture_close(&f);
}

/* ---- hot reload ---- */

/* `text` with `from` replaced by `to` once, in a new buffer. */
static char *replace_once(const char *text, const char *from, const char *to)
{
    const char *at = strstr(text, from);
    CHECK(at != NULL);
    if (!at)
        return NULL;
    size_t size = strlen(text) - strlen(from) + strlen(to) + 1;
    char *out = malloc(size);
    snprintf(out, size, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
    return out;
}

/* A reload in the middle of a crossfade carries the fade on: the reloaded entity shows exactly what an
 * entity that never reloaded shows, step after step. */
static void test_hot_reload_keeps_a_fade_in_flight(void)
{
    fixture reloading, control;
    bool opened = fixture_open(&reloading, CROSSFADE "/characters.ini");
    opened = fixture_open(&control, CROSSFADE "/characters.ini") && opened;
    if (opened) {
        animator *entities[2] = {reloading.animator, control.animator};
        for (int e = 0; e < 2; ++e) {
            animator_set_number(entities[e], "speed", 1.4f);
            run_for(entities[e], 1.0);
            animator_set_number(entities[e], "speed", 3.5f);
            run_for(entities[e], 0.1); /* walk -> run is 0.3 s: a third of the way */
        }
        CHECK(layer_count(reloading.animator, 0) == 2);
        anim_layer_info walk = layer(reloading.animator, 0, 0), run = layer(reloading.animator, 0, 1);

        /* The same files loaded again: a new config, new clip descriptions, the same clip data. */
        diag_list errors = {0};
        anim_config *again = anim_config_load(CROSSFADE "/characters.ini", reloading.cache, &errors);
        test_print_diags(&errors);
        CHECK(again != NULL);
        if (again) {
            const anim_character *character = anim_config_find_character(again, "mannequin");
            bool kept = false;
            CHECK(animator_rebind(reloading.animator, character, &kept) && kept);
            anim_config_free(reloading.config);
            reloading.config = again;
            reloading.character = character;
            CHECK(layer_count(reloading.animator, 0) == 2);
            anim_layer_info new_walk = layer(reloading.animator, 0, 0), new_run = layer(reloading.animator, 0, 1);
            CHECK(new_walk.clip == &character->clips[anim_config_find_clip(character, "walk")]);
            CHECK(new_run.clip == &character->clips[anim_config_find_clip(character, "run")]);
            CHECK(new_walk.weight == walk.weight && new_run.weight == run.weight);
            CHECK(new_walk.cycles == walk.cycles && new_run.cycles == run.cycles);
            float worst = 0.0f;
            for (int step = 0; step < 30; ++step) {
                animator_update_result result;
                animator_update(reloading.animator, 1.0 / 60.0, &result);
                animator_update(control.animator, 1.0 / 60.0, &result);
                joint_pose a[64], b[64];
                local_pose(reloading.animator, a);
                local_pose(control.animator, b);
                for (int j = 0; j < character->model->skeleton.joint_count; ++j)
                    for (int k = 0; k < 4; ++k)
                        worst = fmaxf(worst, fabsf(a[j].rotation[k] - b[j].rotation[k]));
            }
            CHECK(worst == 0.0f);
            CHECK(layer_count(reloading.animator, 0) == 1); /* the fade finished on time */
        }
        diag_list_free(&errors);
    }
    fixture_close(&reloading);
    fixture_close(&control);
}

static void test_hot_reload(void)
{
    char folder[512], characters[600], states[600], text[2048];
    CHECK(test_make_temp_folder(folder, sizeof folder, "test_animator"));
    snprintf(characters, sizeof characters, "%s/characters.ini", folder);
    snprintf(states, sizeof states, "%s/states.ini", folder);
    snprintf(text, sizeof text,
             "[mannequin]\nmesh = %s\nclips = %s/config/clips.ini\nstates = states.ini\n", MANNEQUIN,
             MARIONETTE_SOURCE_DIR);
    test_write_file(characters, text);
    char *original_states = test_read_file(CROSSFADE "/states.ini", NULL);
    CHECK(original_states != NULL);
    if (!original_states)
        return;
    test_write_file(states, original_states);

    fixture f;
    if (!fixture_open(&f, characters)) {
        fixture_close(&f);
        free(original_states);
        return;
    }
    animator *a = f.animator;
    animator_set_number(a, "speed", 1.4f);
    run_for(a, 0.1);
    animator_set_trigger(a, "wave");
    run_for(a, 0.9);
    CHECK(strcmp(animator_state_name(a), "walk_wave") == 0);
    int channel = animator_overlay_channel(a);
    double time_in_state = animator_instance(a)->time_in_state;
    anim_layer_info walk = layer(a, 0, 0), wave = layer(a, channel, 0);
    CHECK(layer_count(a, 0) == 1 && layer_count(a, channel) == 1);

    /* A good edit (a fade changed): same state, time in state, walk and wave phases. */
    char *edited = replace_once(original_states, "when = speed < 0.15\nfade = 0.3", "when = speed < 0.15\nfade = 0.5");
    test_write_file(states, edited);
    test_touch_forward(states, 10);
    CHECK(anim_config_reload_due(f.config));
    diag_list errors = {0};
    anim_config *reloaded = anim_config_reload(f.config, &errors);
    test_print_diags(&errors);
    CHECK(reloaded != NULL);
    if (reloaded) {
        bool kept = false;
        const anim_character *character = anim_config_find_character(reloaded, "mannequin");
        CHECK(animator_rebind(a, character, &kept) && kept);
        anim_config_free(f.config);
        f.config = reloaded;
        f.character = character;
        CHECK(animator_character(a) == character);
        CHECK(strcmp(animator_state_name(a), "walk_wave") == 0);
        CHECK_NEAR(animator_instance(a)->time_in_state, time_in_state, 1e-6);
        float speed = 0.0f;
        CHECK(animator_get(a, "speed", &speed) && speed == 1.4f);
        channel = animator_overlay_channel(a);
        CHECK(layer_count(a, 0) == 1 && layer_count(a, channel) == 1);
        anim_layer_info new_walk = layer(a, 0, 0), new_wave = layer(a, channel, 0);
        CHECK(new_walk.clip == &character->clips[anim_config_find_clip(character, "walk")]);
        CHECK_NEAR(phase(&new_walk), phase(&walk), 1e-5);
        CHECK_NEAR(new_wave.cycles, wave.cycles, 1e-5);
        CHECK_NEAR(new_walk.speed, walk.speed, 1e-6);
        /* It goes on from there, and the edit is in force: walk -> idle now fades over 0.5 s. */
        run_for(a, 0.1);
        CHECK_NEAR(phase(&(anim_layer_info){.cycles = layer(a, 0, 0).cycles}), phase(&walk) + 0.1, 1e-4);
        CHECK(run_until_state(a, "walk", 3.0)); /* the wave ended */
        animator_set_number(a, "speed", 0.0f);
        animator_update_result result;
        CHECK(animator_update(a, STEP, &result) && result.decision.fired);
        CHECK_NEAR(result.decision.fade, 0.5, 1e-6);
    }

    /* A bad edit: the reload fails with file:line and the entity keeps running on the old config. */
    diag_list_clear(&errors);
    char *broken = replace_once(original_states, "fade = 0.25", "fade = slow");
    test_write_file(states, broken);
    test_touch_forward(states, 20);
    CHECK(anim_config_reload_due(f.config));
    CHECK(anim_config_reload(f.config, &errors) == NULL);
    CHECK(errors.count >= 1 && errors.items[0].line > 0 && strstr(errors.items[0].file, "states.ini"));
    animator_set_number(a, "speed", 1.4f);
    CHECK(run_until_state(a, "walk", 1.0));
    CHECK(animator_character(a) == f.character);

    /* The state the entity is in is gone: it starts over in the start state; parameters keep their values. */
    diag_list_clear(&errors);
    test_write_file(states, "[machine]\nstart = idle\n[parameters]\nspeed = number\n[state idle]\nclip = idle\n");
    test_touch_forward(states, 30);
    reloaded = anim_config_reload(f.config, &errors);
    test_print_diags(&errors);
    CHECK(reloaded != NULL);
    if (reloaded) {
        bool kept = true;
        const anim_character *character = anim_config_find_character(reloaded, "mannequin");
        CHECK(animator_rebind(a, character, &kept) && !kept);
        anim_config_free(f.config);
        f.config = reloaded;
        f.character = character;
        CHECK(strcmp(animator_state_name(a), "idle") == 0);
        CHECK(animator_instance(a)->time_in_state == 0.0f);
        CHECK(layer_count(a, 0) == 1 && strcmp(top_clip(a, 0), "idle") == 0);
        CHECK(layer(a, 0, 0).cycles == 0.0);
        float speed = 0.0f;
        CHECK(animator_get(a, "speed", &speed) && speed == 1.4f);
        CHECK(!animator_set_trigger(a, "wave")); /* gone with the old machine */
        CHECK(run_for(a, 0.5) == 0);
    }
    free(edited);
    free(broken);
    free(original_states);
    diag_list_free(&errors);
    fixture_close(&f);
    snprintf(text, sizeof text, "rm -rf '%s'", folder);
    CHECK(system(text) == 0);
}

/* A state with an overlay and no transition on overlay_end: the animator fades the finished one-shot out
 * itself, over the fade it came in with, and the state machine keeps seeing overlay_end. An additive
 * one-shot (lean_left, clips.ini `additive`) is not faded: its last frame is a lean held over the body. */
static void test_finished_overlay_fades_out(void)
{
    char folder[512], states[600];
    CHECK(test_make_temp_folder(folder, sizeof folder, "test_animator"));
    snprintf(states, sizeof states, "%s/states.ini", folder);
    test_write_file(states, "[machine]\nstart = idle\n[parameters]\nwave = trigger\nlean = trigger\n"
                       "[state idle]\nclip = idle\n"
                       "[state wave]\nclip = idle\noverlay = wave\noverlay_root = clavicle.R\n"
                       "[state lean]\nclip = idle\noverlay = lean_left\noverlay_root = spine.01\n"
                       "[idle -> wave]\nwhen = wave\nfade = 0.4\n[idle -> lean]\nwhen = lean\nfade = 0.4\n");
    cache *cache = cache_create();
    diag_list errors = {0};
    anim_config *config = anim_config_load_character("mannequin", MANNEQUIN, CONFIG "/clips.ini", states, cache,
                                                     &errors);
    test_print_diags(&errors);
    animator *a = config ? animator_create(anim_config_character(config, 0)) : NULL;
    CHECK(a != NULL);
    if (a) {
        animator_set_trigger(a, "wave");
        run_for(a, STEP);
        int channel = animator_overlay_channel(a);
        CHECK(strcmp(animator_state_name(a), "wave") == 0 && strcmp(top_clip(a, channel), "wave") == 0);
        run_for(a, 3.0 - STEP); /* the 3 s wave has just ended, holding its last frame */
        CHECK_NEAR(anim_controller_channel_weight(animator_controller(a), channel), 1.0, 1e-6);
        run_for(a, 0.2);
        float weight = anim_controller_channel_weight(animator_controller(a), channel);
        CHECK(weight > 0.4f && weight < 0.6f); /* half way through its 0.4 s fade out */
        run_for(a, 0.25);
        CHECK(anim_controller_channel_weight(animator_controller(a), channel) == 0.0f);
        CHECK(layer_count(a, channel) == 0 && strcmp(animator_state_name(a), "wave") == 0);
    }
    animator_destroy(a);
    a = config ? animator_create(anim_config_character(config, 0)) : NULL;
    if (a) {
        animator_set_trigger(a, "lean");
        run_for(a, 2.0); /* the 0.5 s lean has long ended */
        int channel = animator_overlay_channel(a);
        CHECK(strcmp(animator_state_name(a), "lean") == 0 && strcmp(top_clip(a, channel), "lean_left") == 0);
        CHECK(anim_controller_finished(animator_controller(a), channel));
        CHECK(anim_controller_channel_weight(animator_controller(a), channel) == 1.0f);
    }
    animator_destroy(a);
    anim_config_free(config);
    cache_destroy(cache);
    diag_list_free(&errors);
    remove(states);
    remove(folder);
}

/* Writes a 33-joint synthetic body (FOLDER/synth.md5mesh) and `clip_count` clips of it (FOLDER/clipN.md5anim,
 * each from its own seed) and loads them as character "synth" with the given clips.ini and states.ini text.
 * NULL (and a CHECK failed) when anything fails. */
static anim_config *load_synth_character(const char *folder, int clip_count, const char *clips_text,
                                         const char *states_text, cache *cache)
{
    char mesh[600], clips[600], states[600], clip[600];
    CHECK(test_paths_in(folder, 600, mesh, "synth.md5mesh", clips, "clips.ini", states, "states.ini", NULL));
    synth_params body = {.joints = 33, .vertices = 200, .triangles = 300, .frames = 48, .seed = 3};
    size_t size = 0;
    char *text = synth_mesh_text(&body, &size);
    CHECK(text && test_write_bytes(mesh, text, size));
    free(text);
    for (int k = 0; k < clip_count; ++k) {
        char name[32];
        snprintf(name, sizeof name, "clip%d.md5anim", k);
        CHECK(test_paths_in(folder, 600, clip, name, NULL));
        synth_params motion = body;
        motion.seed = 3 + (unsigned)k;
        text = synth_anim_text(&motion, &size);
        CHECK(text && test_write_bytes(clip, text, size));
        free(text);
    }
    test_write_file(clips, clips_text);
    test_write_file(states, states_text);
    diag_list errors = {0};
    anim_config *config = anim_config_load_character("synth", mesh, clips, states, cache, &errors);
    test_print_diags(&errors);
    diag_list_free(&errors);
    const anim_character *character = config ? anim_config_character(config, 0) : NULL;
    CHECK(character && character->model->skeleton.joint_count == 33);
    return config;
}

static void remove_folder(const char *folder)
{
    char command[600];
    snprintf(command, sizeof command, "rm -rf '%s'", folder);
    CHECK(system(command) == 0);
}

/* Per-entity memory (controller, pose and bookkeeping; gfx copies the palette at submit) for a
 * 33-joint character made by the synthetic generator, with two clips and an overlay state, through
 * crossfades, the overlay and a burst of interrupts: at most 4 KB, all of it allocated at creation. */
static void test_entity_of_33_joints_fits_in_4_kb(void)
{
    char folder[512];
    CHECK(test_make_temp_folder(folder, sizeof folder, "test_animator"));
    cache *cache = cache_create();
    anim_config *config = load_synth_character(
        folder, 2, "[walk]\nfile = clip0.md5anim\nloop = true\n[wave]\nfile = clip1.md5anim\n",
        "[machine]\nstart = idle\n[parameters]\ngo = bool\n[state idle]\nclip = walk\n"
        "[state busy]\nclip = wave\noverlay = walk\noverlay_root = clavicle_right\n"
        "[idle -> busy]\nwhen = go\nfade = 0.5\n[busy -> idle]\nwhen = not go\nfade = 0.5\n",
        cache);
    const anim_character *character = config ? anim_config_character(config, 0) : NULL;
    animator *a = character ? animator_create(character) : NULL;
    CHECK(a != NULL);
    if (a) {
        size_t bytes = animator_bytes(a);
        printf("  per entity, 33 joints: %zu bytes (controller %zu, foot lock %zu)\n", bytes,
               anim_controller_bytes(animator_controller(a)), sizeof(anim_foot_lock_state));
        /* The look-at (36 bytes) and the foot lock with foot placement (44) are in it. */
        CHECK(bytes <= 4096);
        /* Flip the state every few steps so fades interrupt each other and overflow into snapshots. */
        int fired = 0, snapshot_steps = 0;
        animator_update_result result;
        for (int step = 0; step < 120; ++step) {
            animator_set_bool(a, "go", (step / 4) % 2 == 1);
            CHECK(animator_update(a, STEP, &result));
            fired += result.decision.fired;
            snapshot_steps += layer(a, 0, 0).clip == NULL;
        }
        CHECK(fired > 20);
        CHECK(snapshot_steps > 30);
        CHECK(animator_bytes(a) == bytes);
    }
    animator_destroy(a);
    anim_config_free(config);
    cache_destroy(cache);
    remove_folder(folder);
}

/* The same with a 2D blend of 8 clips playing (the shipped strafe's layout: four directions, two speeds),
 * crossfading with itself under an overlay while the point circles the plane: still at most 4 KB, the
 * same bytes all along (a blend layer keeps its point, not its clips' weights or times). */
static void test_entity_of_33_joints_with_a_2d_blend_fits_in_4_kb(void)
{
    char folder[512];
    CHECK(test_make_temp_folder(folder, sizeof folder, "test_animator_2d"));
    char clips[2048] = "", states[2048];
    static const float points[8][2] = {{1.4f, 0}, {3.5f, 0}, {-1.4f, 0}, {-3.5f, 0},
                                       {0, 1.4f}, {0, 3.5f}, {0, -1.4f}, {0, -3.5f}};
    int used = snprintf(states, sizeof states, "[machine]\nstart = move\n[parameters]\nforward = number\n"
                                               "left = number\nspeed = number\nwave = bool\n[blend plane]\n"
                                               "parameters = forward left\n");
    for (int k = 0; k < 8; ++k) {
        size_t length = strlen(clips);
        snprintf(clips + length, sizeof clips - length, "[c%d]\nfile = clip%d.md5anim\nloop = true\nspeed = %g\n"
                 "sync = feet\n", k, k, (double)hypotf(points[k][0], points[k][1]));
        used += snprintf(states + used, sizeof states - (size_t)used, "clip.c%d = %g %g\n", k, (double)points[k][0],
                         (double)points[k][1]);
    }
    snprintf(states + used, sizeof states - (size_t)used,
             "[state move]\nclip = plane\nrate_from = speed\n"
             "[state move_wave]\nclip = plane\nrate_from = speed\noverlay = c0\noverlay_root = clavicle_right\n"
             "[move -> move_wave]\nwhen = wave\nfade = 0.5\n[move_wave -> move]\nwhen = not wave\nfade = 0.5\n");
    cache *cache = cache_create();
    anim_config *config = load_synth_character(folder, 8, clips, states, cache);
    const anim_character *character = config ? anim_config_character(config, 0) : NULL;
    CHECK(character && character->blend_count == 1 && character->blends[0].dimensions == 2 &&
          character->blends[0].count == 8);
    animator *a = character ? animator_create(character) : NULL;
    CHECK(a != NULL);
    if (a) {
        size_t bytes = animator_bytes(a);
        printf("  per entity, 33 joints, a 2D blend of 8 clips playing: %zu bytes (controller %zu)\n", bytes,
               anim_controller_bytes(animator_controller(a)));
        CHECK(bytes <= 4096);
        int fired = 0, weighted_most = 0;
        animator_update_result result;
        for (int step = 0; step < 240; ++step) {
            float angle = step * 0.05f, speed = 2.0f + sinf(step * 0.03f);
            animator_set_number(a, "forward", speed * cosf(angle));
            animator_set_number(a, "left", speed * sinf(angle));
            animator_set_number(a, "speed", speed);
            animator_set_bool(a, "wave", (step / 20) % 2 == 1);
            CHECK(animator_update(a, STEP, &result));
            fired += result.decision.fired;
            float weights[ANIM_BLEND_MAX_CLIPS];
            const anim_controller *controller = animator_controller(a);
            int top = anim_controller_layer_count(controller, 0) - 1;
            int count = anim_controller_layer_blend_weights(controller, 0, top, weights);
            int weighted = 0;
            for (int i = 0; i < count; ++i)
                weighted += weights[i] > 0.0f;
            weighted_most = weighted > weighted_most ? weighted : weighted_most;
        }
        CHECK(fired >= 10);
        CHECK(weighted_most >= 3); /* between the rings and the directions, several clips at once */
        CHECK(animator_bytes(a) == bytes);
    }
    animator_destroy(a);
    anim_config_free(config);
    cache_destroy(cache);
    remove_folder(folder);
}

/* The memory hints change nothing: an animator updated with others asked for ahead (animator_update_group's
 * `ahead`, the group alone with no one to update) poses bit for bit as one that is not, through a walk, a run
 * and a stop; animator_object_poses gives each animator's object pose, NULL for NULL. */
static void test_hints_change_nothing(void)
{
    CHECK(animator_update_group(NULL, NULL, NULL, 0, NULL, 0) == 0);
    fixture hinted, plain;
    bool opened = fixture_open(&hinted, MARIONETTE_SOURCE_DIR "/config/characters.ini");
    opened = fixture_open(&plain, MARIONETTE_SOURCE_DIR "/config/characters.ini") && opened;
    if (opened) {
        int joints = hinted.character->model->skeleton.joint_count;
        bool same = true;
        const animator *ahead[3] = {plain.animator, NULL, hinted.animator};
        for (int step = 0; step < 240; ++step) {
            float speed = step < 80 ? 1.4f : step < 160 ? 3.5f : 0.0f;
            CHECK(animator_set_number(hinted.animator, "speed", speed) && animator_set_number(plain.animator, "speed", speed));
            double dt = STEP;
            animator *group[1] = {hinted.animator};
            CHECK(animator_update_group(group, &dt, NULL, 1, ahead, 3) == 1u);
            CHECK(animator_update_group(NULL, NULL, NULL, 0, ahead, 3) == 0); /* hints alone */
            CHECK(animator_update(plain.animator, STEP, NULL));
            same = same && memcmp(anim_controller_object_pose(animator_controller(hinted.animator)),
                                  anim_controller_object_pose(animator_controller(plain.animator)),
                                  sizeof(joint_pose) * (size_t)joints) == 0;
        }
        CHECK(same);
        const joint_pose *poses[3] = {NULL, NULL, NULL};
        animator_object_poses(ahead, 3, poses);
        CHECK(poses[0] == anim_controller_object_pose(animator_controller(plain.animator)) && poses[1] == NULL &&
              poses[2] == anim_controller_object_pose(animator_controller(hinted.animator)));
    }
    fixture_close(&hinted);
    fixture_close(&plain);
}

/* animator_update_pair is two animator_updates, bit for bit: a mannequin and a robot (two skeletons, one
 * hierarchy: the pair path) and two mannequins at different steps, walking, running, turning, waving,
 * flinching and looking about, against twins updated one at a time. */
static void test_update_pair_is_two_updates(void)
{
    cache *c = cache_create();
    diag_list errors = {0};
    anim_config *config = anim_config_load(MARIONETTE_SOURCE_DIR "/config/characters.ini", c, &errors);
    test_print_diags(&errors);
    diag_list_free(&errors);
    const anim_character *mannequin = config ? anim_config_find_character(config, "mannequin") : NULL;
    const anim_character *robot = config ? anim_config_find_character(config, "robot") : NULL;
    CHECK(mannequin && robot && &mannequin->model->skeleton != &robot->model->skeleton);
    for (int which = 0; mannequin && robot && which < 2; ++which) {
        const anim_character *second = which == 0 ? robot : mannequin;
        animator *paired[2] = {animator_create(mannequin), animator_create(second)};
        animator *alone[2] = {animator_create(mannequin), animator_create(second)};
        int joints = mannequin->model->skeleton.joint_count;
        bool same_poses = true, same_results = true;
        int fired = 0, events = 0;
        for (int step = 0; step < 400; ++step) {
            for (int k = 0; k < 2; ++k) {
                float speed = (float)((step / 50 + k) % 4) * 1.2f, turn = (float)((step / 30 + k) % 3 - 1) * 60.0f;
                CHECK(animator_set_number(paired[k], "speed", speed) && animator_set_number(alone[k], "speed", speed));
                animator_set_number(paired[k], "turn_rate", turn);
                animator_set_number(alone[k], "turn_rate", turn);
                if (step % 97 == 13 + k) {
                    animator_set_trigger(paired[k], step % 2 ? "wave" : "hit");
                    animator_set_trigger(alone[k], step % 2 ? "wave" : "hit");
                }
                float target[3] = {0.5f * (float)(step % 7) - 1.5f, 1.6f, 1.0f};
                animator_look_at(paired[k], step % 120 < 60 ? target : NULL);
                animator_look_at(alone[k], step % 120 < 60 ? target : NULL);
            }
            double dt_a = STEP, dt_b = which == 0 ? STEP : 2.0 * STEP;
            animator_update_result pair_results[2], alone_results[2];
            CHECK(animator_update_pair(paired[0], dt_a, &pair_results[0], paired[1], dt_b, &pair_results[1]) == 3u);
            CHECK(animator_update(alone[0], dt_a, &alone_results[0]));
            CHECK(animator_update(alone[1], dt_b, &alone_results[1]));
            for (int k = 0; k < 2; ++k) {
                same_poses = same_poses && memcmp(anim_controller_object_pose(animator_controller(paired[k])),
                                                  anim_controller_object_pose(animator_controller(alone[k])),
                                                  sizeof(joint_pose) * (size_t)joints) == 0;
                const animator_update_result *p = &pair_results[k], *q = &alone_results[k];
                same_results = same_results && p->decision.fired == q->decision.fired &&
                               p->decision.to == q->decision.to && p->animation.event_count == q->animation.event_count &&
                               memcmp(p->animation.translation, q->animation.translation,
                                      sizeof p->animation.translation) == 0 &&
                               p->animation.yaw == q->animation.yaw;
                fired += p->decision.fired;
                events += p->animation.event_count;
            }
        }
        printf("  %s and %s two by two: %d transitions, %d events; poses %s, results %s one by one\n",
               mannequin->name, second->name, fired, events, same_poses ? "as" : "NOT as",
               same_results ? "as" : "NOT as");
        CHECK(same_poses && same_results && fired > 4 && events > 10);
        /* Not a pair: a NULL partner, the same animator twice, bad steps: one update after the other. */
        CHECK(animator_update_pair(paired[0], STEP, NULL, NULL, STEP, NULL) == 1u);
        CHECK(animator_update_pair(paired[0], STEP, NULL, paired[1], -1.0, NULL) == 1u);
        CHECK(animator_update_pair(paired[0], NAN, NULL, paired[1], STEP, NULL) == 2u);
        for (int k = 0; k < 2; ++k) {
            animator_destroy(paired[k]);
            animator_destroy(alone[k]);
        }
    }
    anim_config_free(config);
    cache_destroy(c);
}

/* animator_update_group is animator_update on each, bit for bit: five animators (mannequins and robots, one
 * hierarchy; different steps, one of them refused) against twins updated one at a time; a group of one, and
 * bad arguments. */
static void test_update_group_is_each_update(void)
{
    cache *c = cache_create();
    diag_list errors = {0};
    anim_config *config = anim_config_load(MARIONETTE_SOURCE_DIR "/config/characters.ini", c, &errors);
    test_print_diags(&errors);
    diag_list_free(&errors);
    const anim_character *mannequin = config ? anim_config_find_character(config, "mannequin") : NULL;
    const anim_character *robot = config ? anim_config_find_character(config, "robot") : NULL;
    CHECK(mannequin && robot);
    enum { N = 5 };
    animator *grouped[N], *alone[N];
    for (int k = 0; mannequin && robot && k < N; ++k) {
        grouped[k] = animator_create(k % 2 ? robot : mannequin);
        alone[k] = animator_create(k % 2 ? robot : mannequin);
    }
    bool same_poses = true, same_results = true, same_updated = true;
    int fired = 0, events = 0;
    for (int step = 0; mannequin && robot && step < 400; ++step) {
        double dt[N];
        for (int k = 0; k < N; ++k) {
            float speed = (float)((step / 50 + k) % 4) * 1.2f;
            animator_set_number(grouped[k], "speed", speed);
            animator_set_number(alone[k], "speed", speed);
            if (step % 97 == 13 + k) {
                animator_set_trigger(grouped[k], "wave");
                animator_set_trigger(alone[k], "wave");
            }
            float target[3] = {0.5f * (float)(step % 7) - 1.5f, 1.6f, 1.0f};
            animator_look_at(grouped[k], step % 120 < 60 ? target : NULL);
            animator_look_at(alone[k], step % 120 < 60 ? target : NULL);
            dt[k] = k == 3 && step % 50 == 7 ? -1.0 : STEP * (double)(1 + k % 3); /* one refused now and then */
        }
        animator_update_result group_results[N], alone_results[N];
        unsigned updated = animator_update_group(grouped, dt, group_results, N, NULL, 0), expected = 0;
        for (int k = 0; k < N; ++k)
            expected |= (unsigned)animator_update(alone[k], dt[k], &alone_results[k]) << k;
        same_updated = same_updated && updated == expected;
        for (int k = 0; k < N; ++k) {
            int joints = animator_character(grouped[k])->model->skeleton.joint_count;
            same_poses = same_poses && memcmp(anim_controller_object_pose(animator_controller(grouped[k])),
                                              anim_controller_object_pose(animator_controller(alone[k])),
                                              sizeof(joint_pose) * (size_t)joints) == 0;
            if (!((expected >> k) & 1u))
                continue;
            const animator_update_result *p = &group_results[k], *q = &alone_results[k];
            same_results = same_results && p->decision.fired == q->decision.fired && p->decision.to == q->decision.to &&
                           p->animation.event_count == q->animation.event_count &&
                           memcmp(p->animation.translation, q->animation.translation, sizeof p->animation.translation) == 0;
            fired += p->decision.fired;
            events += p->animation.event_count;
        }
    }
    printf("  five animators as a group: %d transitions, %d events; poses %s, results %s one by one\n", fired, events,
           same_poses ? "as" : "NOT as", same_results ? "as" : "NOT as");
    CHECK(same_poses && same_results && same_updated && fired > 4 && events > 10);
    if (mannequin && robot) {
        double one = STEP;
        CHECK(animator_update_group(grouped, &one, NULL, 1, NULL, 0) == 1u);
        CHECK(animator_update_group(NULL, &one, NULL, 1, NULL, 0) == 0u);
        CHECK(animator_update_group(grouped, NULL, NULL, 1, NULL, 0) == 0u);
        CHECK(animator_update_group(grouped, &one, NULL, 0, NULL, 0) == 0u);
        CHECK(animator_update_group(grouped, &one, NULL, ANIMATOR_GROUP_MAX + 1, NULL, 0) == 0u);
        for (int k = 0; k < N; ++k) {
            animator_destroy(grouped[k]);
            animator_destroy(alone[k]);
        }
    }
    anim_config_free(config);
    cache_destroy(c);
}

static void test_bad_arguments(void)
{
    CHECK(animator_create(NULL) == NULL);
    CHECK(!animator_update(NULL, STEP, NULL));
    CHECK(animator_state_name(NULL) == NULL);
    animator_destroy(NULL);
    fixture f;
    if (fixture_open(&f, CROSSFADE "/characters.ini")) {
        CHECK(!animator_update(f.animator, -1.0, NULL));
        CHECK(!animator_update(f.animator, NAN, NULL));
        CHECK(!animator_rebind(f.animator, NULL, NULL));
        CHECK(strcmp(animator_state_name(f.animator), "idle") == 0);
        /* Paused: nothing moves, no transition fires... until the time scale is back. */
        animator_set_time_scale(f.animator, 0.0f);
        animator_set_number(f.animator, "speed", 1.4f);
        double before = layer(f.animator, 0, 0).cycles;
        run_for(f.animator, 0.5);
        CHECK(layer(f.animator, 0, 0).cycles == before);
        CHECK(strcmp(animator_state_name(f.animator), "walk") == 0); /* conditions are checked, time stands */
        CHECK(animator_instance(f.animator)->time_in_state == 0.0f);
        animator_set_time_scale(f.animator, 1.0f);
        run_for(f.animator, 0.5);
        CHECK(layer_count(f.animator, 0) == 1 && strcmp(top_clip(f.animator, 0), "walk") == 0);
    }
    fixture_close(&f);
}

int main(void)
{
    RUN(test_starts_in_idle);
    RUN(test_locomotion_crossfades);
    RUN(test_jump_conditions);
    RUN(test_root_motion_turns);
    RUN(test_root_motion_travels);
    RUN(test_wave_over_walk);
    RUN(test_shared_masks_change_nothing);
    RUN(test_hot_reload);
    RUN(test_hot_reload_keeps_a_fade_in_flight);
    RUN(test_finished_overlay_fades_out);
    RUN(test_entity_of_33_joints_fits_in_4_kb);
    RUN(test_entity_of_33_joints_with_a_2d_blend_fits_in_4_kb);
    RUN(test_hints_change_nothing);
    RUN(test_update_pair_is_two_updates);
    RUN(test_update_group_is_each_update);
    RUN(test_bad_arguments);
    return check_report();
}
