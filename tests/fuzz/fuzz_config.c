/* fuzz_config: any bytes as the animation config a user edits. The input is cut at record-separator bytes
 * (0x1e) into characters.ini, clips.ini and states.ini, written into a folder of this process's own beside
 * a link to the real assets/, so the ini files can name the generated meshes and clips as config/ does
 * (a missing part means a missing file). anim_config_load must give a complete config with no errors, or
 * NULL with at least one one-line error; a config it gives must keep its promises (every index in range,
 * clip data present, finite numbers), and its state machine is stepped with its parameters moved. The
 * same files are loaded again as a partial load (the demo's start), which must keep the same promises. The
 * generated models and clips are held in one cache for the whole run, so a load finds them there instead
 * of parsing them again every time; so is the shipped config, whose foot contacts (derived data the cache
 * keeps while a user holds it) every input naming the same clips for the same characters then finds
 * instead of working them out again: they were a third of an execution. */
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include "anim/config/anim_config.h"
#include "anim/anim_controller.h"
#include "fuzz_check.h"
#include "fuzz_parts.h"
#include "md5/md5.h"

enum { FUZZ_PART_COUNT = 3 };
static const char *const fuzz_part_names[FUZZ_PART_COUNT] = {"characters.ini", "clips.ini", "states.ini"};

static char fuzz_folder[FUZZ_PATH_MAX];
static char fuzz_config_folder[FUZZ_PATH_MAX];
static char fuzz_assets_link[FUZZ_PATH_MAX];
static char fuzz_part_paths[FUZZ_PART_COUNT][FUZZ_PATH_MAX];
static cache *fuzz_cache;
static anim_config *fuzz_shipped_config; /* held for the whole run: see the top */

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fuzz_remove_folder(void)
{
    for (int i = 0; i < FUZZ_PART_COUNT; ++i)
        unlink(fuzz_part_paths[i]);
    rmdir(fuzz_config_folder);
    unlink(fuzz_assets_link);
    rmdir(fuzz_folder);
}

/* Hold every generated model and every clip of assets/clips (read from the folder, so a clip added to
 * clips.ini is never parsed again per execution: with a fixed list, ten new clips halved the rate). */
static void fuzz_hold_assets(void)
{
    static const char *const models[] = {"mannequin", "robot"};
    char folder[FUZZ_PATH_MAX];
    snprintf(folder, sizeof folder, "%s/clips", fuzz_assets_link);
    for (size_t m = 0; m < sizeof models / sizeof *models; ++m) {
        char path[FUZZ_PATH_MAX];
        diag err;
        snprintf(path, sizeof path, "%s/models/%s.md5mesh", fuzz_assets_link, models[m]);
        cache_model_handle model = cache_load_model(fuzz_cache, path, &err, NULL);
        if (!model.id) {
            fprintf(stderr, "fuzz_config: %s: %s\n", path, err.message);
            continue;
        }
        DIR *clips = opendir(folder);
        FUZZ_REQUIRE(clips != NULL);
        int held = 0;
        for (struct dirent *entry; (entry = readdir(clips)) != NULL;) {
            size_t length = strlen(entry->d_name);
            if (length <= 8 || strcmp(entry->d_name + length - 8, ".md5anim") != 0)
                continue;
            snprintf(path, sizeof path, "%s/%s", folder, entry->d_name);
            if (cache_load_clip(fuzz_cache, path, model, &err, NULL).id)
                ++held;
            else
                fprintf(stderr, "fuzz_config: %s: %s\n", path, err.message);
        }
        closedir(clips);
        FUZZ_REQUIRE(held > 0);
    }
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fuzz_make_folder(fuzz_folder, "config");
    snprintf(fuzz_config_folder, sizeof fuzz_config_folder, "%s/config", fuzz_folder);
    snprintf(fuzz_assets_link, sizeof fuzz_assets_link, "%s/assets", fuzz_folder);
    for (int i = 0; i < FUZZ_PART_COUNT; ++i)
        snprintf(fuzz_part_paths[i], sizeof fuzz_part_paths[i], "%s/%s", fuzz_config_folder, fuzz_part_names[i]);
    FUZZ_REQUIRE(mkdir(fuzz_config_folder, 0700) == 0);
    FUZZ_REQUIRE(symlink(MARIONETTE_SOURCE_DIR "/assets", fuzz_assets_link) == 0);
    atexit(fuzz_remove_folder);
    fuzz_cache = cache_create();
    FUZZ_REQUIRE(fuzz_cache != NULL);
    fuzz_hold_assets();
    diag_list errors = {0};
    fuzz_shipped_config = anim_config_load(MARIONETTE_SOURCE_DIR "/config/characters.ini", fuzz_cache, &errors);
    if (!fuzz_shipped_config)
        fprintf(stderr, "fuzz_config: the shipped config did not load (%d errors): inputs find no contacts held\n",
                errors.total);
    diag_list_free(&errors);
    return 0;
}

static void fuzz_check_character(const anim_character *character)
{
    FUZZ_REQUIRE(character->model != NULL && character->clip_count >= 1 && character->clips != NULL);
    /* The import (characters.ini scale or height, up, forward): a scale in its documented range, a finite
     * standing height, a finite matrix, and a rotation part that is a rotation (columns of unit length). */
    FUZZ_REQUIRE(character->scale >= 0.0001f * 0.999f && character->scale <= 10000.0f * 1.001f &&
                 isfinite(character->height_m) && character->height_m >= 0.0f);
    for (int column = 0; column < 4; ++column)
        for (int row = 0; row < 4; ++row)
            FUZZ_REQUIRE(isfinite(character->import[column][row]));
    for (int column = 0; column < 3; ++column) {
        float length = sqrtf(character->rotation[column][0] * character->rotation[column][0] +
                             character->rotation[column][1] * character->rotation[column][1] +
                             character->rotation[column][2] * character->rotation[column][2]);
        FUZZ_REQUIRE(fabsf(length - 1.0f) < 1e-5f);
    }
    int joint_count = character->model->skeleton.joint_count;
    for (int i = 0; i < character->clip_count; ++i) {
        const anim_clip *clip = &character->clips[i];
        FUZZ_REQUIRE(clip->clip != NULL && clip->clip->joint_count == joint_count);
        FUZZ_REQUIRE(clip->ground_speed >= 0.0f && clip->ground_speed <= 1.0e6f && clip->sync_group >= -1 &&
                     clip->sync_group < character->sync_group_count);
        FUZZ_REQUIRE(clip->event_count >= 0 && (clip->event_count == 0 || clip->events != NULL));
        /* An additive clip holds its own baked deltas, plays in place and is never a state's body. */
        FUZZ_REQUIRE(!clip->additive || (clip->root_mode == ANIM_ROOT_IN_PLACE && clip->clip->frames != NULL));
        for (int e = 0; e < clip->event_count; ++e)
            FUZZ_REQUIRE(isfinite(clip->events[e].frame) &&
                         (e == 0 || clip->events[e - 1].frame <= clip->events[e].frame));
    }
    const state_machine_definition *machine = &character->machine;
    /* Blends: in range, valid (sorted or apart, loop and additive agreeing with every clip), their clips of
     * this character, their parameters number parameters of its machine. */
    FUZZ_REQUIRE(character->blend_count >= 0 && character->blend_count <= ANIM_CONFIG_BLENDS_MAX);
    for (int b = 0; b < character->blend_count; ++b) {
        const anim_blend *blend = &character->blends[b];
        if (blend->count == 0)
            continue; /* a blend with a mistake, which no state plays */
        FUZZ_REQUIRE(anim_blend_valid(blend));
        for (int i = 0; i < blend->count; ++i)
            FUZZ_REQUIRE(blend->clips[i] >= character->clips && blend->clips[i] < character->clips + character->clip_count &&
                         fabsf(blend->points[i][0]) <= 1000.0f && fabsf(blend->points[i][1]) <= 1000.0f);
        for (int axis = 0; axis < blend->dimensions; ++axis)
            FUZZ_REQUIRE(blend->parameters[axis] >= 0 && blend->parameters[axis] < machine->parameter_count &&
                         machine->parameters[blend->parameters[axis]].type == STATE_MACHINE_NUMBER);
    }
    FUZZ_REQUIRE(machine->parameter_count >= 0 && machine->parameter_count <= STATE_MACHINE_MAX_PARAMETERS);
    if (machine->state_count == 0)
        return;
    FUZZ_REQUIRE(machine->start_state >= 0 && machine->start_state < machine->state_count);
    for (int s = 0; s < machine->state_count; ++s) {
        const state_machine_state *state = &machine->states[s];
        FUZZ_REQUIRE(state->clip >= 0 && state->clip < character->clip_count);
        FUZZ_REQUIRE(state->overlay_clip >= -1 && state->overlay_clip < character->clip_count);
        FUZZ_REQUIRE(state->overlay_root_joint >= -1 && state->overlay_root_joint < joint_count);
        FUZZ_REQUIRE(state->rate_parameter >= -1 && state->rate_parameter < machine->parameter_count);
        FUZZ_REQUIRE(state->blend >= -1 && state->blend < character->blend_count &&
                     state->overlay_blend >= -1 && state->overlay_blend < character->blend_count);
        FUZZ_REQUIRE(state->blend < 0 || (character->blends[state->blend].count > 0 &&
                                          !character->blends[state->blend].additive &&
                                          state->loop == character->blends[state->blend].loop));
        FUZZ_REQUIRE(!character->clips[state->clip].additive);
        FUZZ_REQUIRE(!state->overlay_weighted ||
                     (state->overlay_clip >= 0 && state->overlay_weight_parameter >= 0 &&
                      state->overlay_weight_parameter < machine->parameter_count &&
                      machine->parameters[state->overlay_weight_parameter].type == STATE_MACHINE_NUMBER &&
                      fabsf(state->overlay_weight_low) <= 1.0e6f && fabsf(state->overlay_weight_high) <= 1.0e6f &&
                      state->overlay_weight_low != state->overlay_weight_high));
        /* rate_max is +inf when a state sets no limit; what a file sets is within 0 to ANIM_CONFIG_RATE_MAX. */
        FUZZ_REQUIRE(isfinite(state->rate) && isfinite(state->rate_min) && !isnan(state->rate_max) &&
                     state->rate_min <= state->rate_max);
        FUZZ_REQUIRE(state->rate >= 0.0f && state->rate <= ANIM_CONFIG_RATE_MAX && state->rate_min >= 0.0f &&
                     state->rate_min <= ANIM_CONFIG_RATE_MAX &&
                     (state->rate_parameter < 0 || state->rate_max <= ANIM_CONFIG_RATE_MAX));
    }
    FUZZ_REQUIRE(machine->state_count <= ANIM_CONFIG_STATES_MAX &&
                 machine->transition_count <= ANIM_CONFIG_TRANSITIONS_MAX);
    FUZZ_REQUIRE(machine->trigger_hold >= 0.0f && machine->trigger_hold <= 60.0f);
    for (int p = 0; p < machine->parameter_count; ++p)
        FUZZ_REQUIRE(fabsf(machine->parameters[p].default_value) <= 1.0e6f);
    for (int t = 0; t < machine->transition_count; ++t) {
        const state_machine_transition *transition = &machine->transitions[t];
        FUZZ_REQUIRE(transition->from == STATE_MACHINE_ANY ||
                     (transition->from >= 0 && transition->from < machine->state_count));
        FUZZ_REQUIRE(transition->to >= 0 && transition->to < machine->state_count);
        FUZZ_REQUIRE(isfinite(transition->fade) && transition->fade >= 0.0f && transition->fade <= 60.0f);
        FUZZ_REQUIRE(transition->priority >= -1000 && transition->priority <= 1000);
        FUZZ_REQUIRE(transition->term_count >= 1 && transition->term_count <= STATE_MACHINE_MAX_TERMS);
        for (int k = 0; k < transition->term_count; ++k)
            FUZZ_REQUIRE(transition->terms[k].parameter >= -1 &&
                         transition->terms[k].parameter < machine->parameter_count &&
                         fabsf(transition->terms[k].value) <= 1.0e6f);
        FUZZ_REQUIRE(t == 0 || machine->transitions[t - 1].priority >= transition->priority);
    }
}

/* A few steps with every parameter pushed somewhere: whatever fires must lead to a state that exists. */
static void fuzz_step_machine(const anim_character *character, unsigned hash)
{
    const state_machine_definition *machine = &character->machine;
    if (machine->state_count == 0)
        return;
    state_machine_instance instance;
    state_machine_instance_init(machine, &instance);
    anim_controller *controller = anim_controller_create(&(anim_controller_desc){.skeleton = &character->model->skeleton});
    for (int step = 0; step < 8; ++step) {
        for (int p = 0; p < machine->parameter_count; ++p) {
            hash = hash * 1103515245u + 12345u;
            const char *name = machine->parameters[p].name;
            float value = (float)((hash >> 8) % 2001u) / 100.0f - 10.0f;
            if (!state_machine_set_number(machine, &instance, name, value) &&
                !state_machine_set_bool(machine, &instance, name, (hash >> 4) & 1u) && ((hash >> 5) & 1u))
                state_machine_set_trigger(machine, &instance, name);
        }
        state_machine_result result;
        state_machine_clip_status status = {.clip_finished = (hash >> 6) & 1u, .overlay_finished = (hash >> 7) & 1u};
        state_machine_step(machine, &instance, 0.1f, status, &result);
        FUZZ_REQUIRE(instance.state >= 0 && instance.state < machine->state_count);
        FUZZ_REQUIRE(result.clip >= 0 && result.clip < character->clip_count);
        FUZZ_REQUIRE(isfinite(result.speed_scale) && isfinite(result.fade));
        /* What the state plays, as the demo plays it: a frame and one long step, at the state's rate (the
         * controller's arithmetic must hold for every rate a file allows; a sanitizer build checks it). */
        const anim_blend *blend = result.blend >= 0 ? &character->blends[result.blend] : NULL;
        float point[2] = {0.0f, 0.0f};
        for (int axis = 0; blend && axis < blend->dimensions; ++axis)
            point[axis] = instance.values[blend->parameters[axis]];
        anim_play_options options = {.speed = result.speed_scale};
        bool playing = controller && (blend ? anim_controller_play_blend(controller, 0, blend, point, result.fade, &options)
                                            : anim_controller_play(controller, 0, &character->clips[result.clip],
                                                                   result.fade, &options));
        if (playing) {
            anim_update_result update;
            FUZZ_REQUIRE(anim_controller_update(controller, 1.0 / 60.0, &update));
            FUZZ_REQUIRE(update.event_count >= 0 && update.event_count <= ANIM_EVENTS_MAX &&
                         update.events_dropped >= 0);
            FUZZ_REQUIRE(anim_controller_update(controller, step == 7 ? 1.0e6 : 0.5, &update));
            FUZZ_REQUIRE(update.events_dropped >= 0 && isfinite(update.translation[0]));
        }
    }
    anim_controller_destroy(controller);
}

/* True when a message of the list is not a warning, or when the list kept fewer than it counted (an error
 * may be among those not kept). */
static bool fuzz_has_error(const diag_list *list)
{
    if (list->total > list->count)
        return true;
    for (int i = 0; i < list->count; ++i)
        if (strncmp(list->items[i].message, "warning: ", 9) != 0)
            return true;
    return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_write_parts(fuzz_part_paths, FUZZ_PART_COUNT, data, size);
    diag_list errors = {0};
    anim_config *config = anim_config_load(fuzz_part_paths[0], fuzz_cache, &errors);
    FUZZ_REQUIRE(fuzz_diag_list_ok(&errors));
    /* Loaded: every message was a warning (an image override that cannot be read, a character far from
     * human height), counted as such; refused: at least one was not. */
    if (config)
        FUZZ_REQUIRE(errors.total == anim_config_warning_count(config));
    else
        FUZZ_REQUIRE(errors.total > 0 && fuzz_has_error(&errors));
    unsigned hash = fuzz_hash(data, size);
    for (int i = 0; i < anim_config_character_count(config); ++i) {
        const anim_character *character = anim_config_character(config, i);
        fuzz_check_character(character);
        fuzz_step_machine(character, hash);
    }

    /* The same files loaded as the demo starts (partial): whatever a strict load accepts, it accepts as is;
     * what it gives keeps the same promises (stand-ins included), and every problem it reports is one it
     * worked around. */
    diag_list partial_errors = {0};
    anim_config *partial = anim_config_load_partial(fuzz_part_paths[0], fuzz_cache, &partial_errors);
    FUZZ_REQUIRE(fuzz_diag_list_ok(&partial_errors));
    if (config)
        FUZZ_REQUIRE(partial != NULL && anim_config_stand_in_count(partial) == 0 &&
                     anim_config_character_count(partial) == anim_config_character_count(config));
    if (partial) {
        FUZZ_REQUIRE(partial_errors.total == anim_config_stand_in_count(partial) + anim_config_warning_count(partial));
        FUZZ_REQUIRE(anim_config_character_count(partial) >= 1);
    } else {
        FUZZ_REQUIRE(partial_errors.total > 0);
    }
    for (int i = 0; i < anim_config_character_count(partial); ++i) {
        const anim_character *character = anim_config_character(partial, i);
        fuzz_check_character(character);
        fuzz_step_machine(character, hash);
    }
    anim_config_free(partial);
    diag_list_free(&partial_errors);
    anim_config_free(config);
    diag_list_free(&errors);
    return 0;
}
