/* fuzz_settings: any bytes as the other files a user writes for the demo: controls.ini, demo.ini and an
 * input script (`--script`). The input is cut at record-separator bytes (0x1e) into the three, written
 * into a folder of this process's own (a missing part means a missing file). Each loader must either take
 * its file with no errors (the script: warnings only) or refuse it with at least one one-line file:line
 * error and leave what it was given exactly as it was; what it takes must keep the headers' promises
 * (bindings in range and one action per key, settings within their documented ranges, script events in
 * time order with finite numbers), and the script is replayed to its end the way the demo polls it. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "controls.h"
#include "demo_config.h"
#include "fuzz_check.h"
#include "fuzz_parts.h"
#include "fuzz_input_script.h"
#include "input_script.h"

enum { FUZZ_PART_COUNT = 3 };
static const char *const fuzz_part_names[FUZZ_PART_COUNT] = {"controls.ini", "demo.ini", "script.txt"};

static char fuzz_folder[FUZZ_PATH_MAX];
static char fuzz_part_paths[FUZZ_PART_COUNT][FUZZ_PATH_MAX];

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fuzz_remove_folder(void)
{
    for (int i = 0; i < FUZZ_PART_COUNT; ++i)
        unlink(fuzz_part_paths[i]);
    rmdir(fuzz_folder);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fuzz_make_folder(fuzz_folder, "settings");
    for (int i = 0; i < FUZZ_PART_COUNT; ++i)
        snprintf(fuzz_part_paths[i], sizeof fuzz_part_paths[i], "%s/%s", fuzz_folder, fuzz_part_names[i]);
    atexit(fuzz_remove_folder);
    return 0;
}

/* A load either took the file without a word or refused it, said why and touched nothing. */
static void fuzz_check_outcome(bool loaded, const diag_list *errors, const void *before, const void *after,
                               size_t size)
{
    FUZZ_REQUIRE(fuzz_diag_list_ok(errors));
    if (loaded)
        FUZZ_REQUIRE(errors->total == 0);
    else
        FUZZ_REQUIRE(errors->total > 0 && memcmp(before, after, size) == 0);
}

/* ---- controls.ini ---- */

static void fuzz_check_controls(const controls *c)
{
    /* controls.ini's documented ranges. */
    FUZZ_REQUIRE(c->orbit_degrees_per_pixel >= 0.001f && c->orbit_degrees_per_pixel <= 10.0f);
    FUZZ_REQUIRE(c->zoom_per_wheel_step >= 0.01f && c->zoom_per_wheel_step <= 100.0f);
    FUZZ_REQUIRE(c->orbit_keys_degrees_per_second >= 1.0f && c->orbit_keys_degrees_per_second <= 3600.0f);
    for (int a = 0; a < GAME_ACTION_COUNT; ++a) {
        FUZZ_REQUIRE(c->bindings[a].key_count >= 0 && c->bindings[a].key_count <= CONTROLS_KEYS_PER_ACTION);
        for (int k = 0; k < c->bindings[a].key_count; ++k) {
            platform_key key = c->bindings[a].keys[k];
            FUZZ_REQUIRE(key != PLATFORM_KEY_UNKNOWN);
            /* A key drives one action only, and its name reads back as the key (the help shows it). */
            int actions[2];
            FUZZ_REQUIRE(controls_actions_for_key(c, key, actions, 2) == 1 && actions[0] == a);
            char name[CONTROLS_KEY_NAME_MAX];
            controls_key_name(key, name, sizeof name);
            FUZZ_REQUIRE(strcmp(name, "?") == 0 || controls_key_from_name(name) == key);
            FUZZ_REQUIRE(controls_name_odd_byte(name) < 0); /* bound from a printable ASCII name */
        }
    }
    /* The help fits its promised buffer, in lines of the promised length; a short buffer still ends. */
    char help[CONTROLS_HELP_TEXT_MAX + 1];
    memset(help, 'x', sizeof help);
    controls_help_text(c, help, CONTROLS_HELP_TEXT_MAX);
    size_t length = strnlen(help, CONTROLS_HELP_TEXT_MAX);
    FUZZ_REQUIRE(length < CONTROLS_HELP_TEXT_MAX && help[CONTROLS_HELP_TEXT_MAX] == 'x');
    for (const char *line = help; *line;) {
        const char *end = strchr(line, '\n');
        size_t line_length = end ? (size_t)(end - line) : strlen(line);
        FUZZ_REQUIRE(line_length <= CONTROLS_HELP_LINE_MAX);
        line += line_length + (end ? 1 : 0);
    }
    char small[17];
    memset(small, 'x', sizeof small);
    controls_help_text(c, small, 16);
    FUZZ_REQUIRE(memchr(small, '\0', 16) != NULL && small[16] == 'x');
}

/* Every bound key goes down and up through the input state: each action is held exactly while one of its
 * keys is, and released with the last. */
static void fuzz_press_every_key(const controls *c)
{
    game_input input;
    FUZZ_REQUIRE(game_input_init(&input, c->action_count));
    for (int a = 0; a < GAME_ACTION_COUNT; ++a)
        for (int k = 0; k < c->bindings[a].key_count; ++k)
            game_input_key(&input, c, c->bindings[a].keys[k], true);
    for (int a = 0; a < GAME_ACTION_COUNT; ++a) {
        int expected = c->bindings[a].key_count;
        if (input.key_down_count == GAME_INPUT_KEYS_DOWN_MAX) /* more keys than are tracked: some dropped */
            FUZZ_REQUIRE(input.held[a] <= expected);
        else
            FUZZ_REQUIRE(input.held[a] == expected && input.pressed[a] == (expected > 0));
    }
    game_input_end_step(&input);
    for (int a = 0; a < GAME_ACTION_COUNT; ++a)
        for (int k = 0; k < c->bindings[a].key_count; ++k)
            game_input_key(&input, c, c->bindings[a].keys[k], false);
    for (int a = 0; a < GAME_ACTION_COUNT; ++a)
        FUZZ_REQUIRE(input.held[a] == 0 && !input.pressed[a]);
    FUZZ_REQUIRE(input.key_down_count == 0);
    game_input_free(&input);
}

static void fuzz_controls(void)
{
    controls before = controls_defaults(), c = {0};
    FUZZ_REQUIRE(before.bindings && controls_copy(&c, &before));
    diag_list errors = {0};
    bool loaded = controls_load(fuzz_part_paths[0], &c, &errors);
    /* Refused: not a byte of the bindings or the settings changed (c's bindings are its own copy). */
    FUZZ_REQUIRE(c.action_count == before.action_count);
    size_t binding_bytes = (size_t)c.action_count * sizeof *c.bindings;
    fuzz_check_outcome(loaded, &errors, before.bindings, c.bindings, binding_bytes);
    if (!loaded)
        FUZZ_REQUIRE(c.orbit_degrees_per_pixel == before.orbit_degrees_per_pixel &&
                     c.zoom_per_wheel_step == before.zoom_per_wheel_step && c.invert_y == before.invert_y &&
                     c.orbit_keys_degrees_per_second == before.orbit_keys_degrees_per_second);
    fuzz_check_controls(&c);
    fuzz_press_every_key(&c);
    controls_free(&c);
    controls_free(&before);
    diag_list_free(&errors);
}

/* ---- demo.ini ---- */

static bool fuzz_between(float value, float minimum, float maximum)
{
    return isfinite(value) && value >= minimum && value <= maximum;
}

/* A character name as characters.ini writes it: terminated within its buffer, not empty. */
static bool fuzz_name_ok(const char *name)
{
    size_t length = strnlen(name, DEMO_CONFIG_NAME_MAX);
    return length > 0 && length < DEMO_CONFIG_NAME_MAX;
}

static void fuzz_check_demo_config(const demo_config *d)
{
    FUZZ_REQUIRE(fuzz_name_ok(d->player.character));
    FUZZ_REQUIRE(fuzz_between(d->player.walk_speed, 0.1f, 20.0f) && fuzz_between(d->player.run_speed, 0.1f, 20.0f));
    FUZZ_REQUIRE(d->player.run_speed >= d->player.walk_speed);
    FUZZ_REQUIRE(d->crowd.count >= 1 && d->crowd.count <= 100000 && d->crowd.max >= 1 && d->crowd.max <= 100000);
    FUZZ_REQUIRE(fuzz_between(d->crowd.spacing, 0.5f, 100.0f) && fuzz_between(d->crowd.wander_radius, 0.0f, 1000.0f));
    FUZZ_REQUIRE(fuzz_between(d->crowd.wave_chance, 0.0f, 1.0f) && fuzz_between(d->crowd.celebrate_chance, 0.0f, 1.0f) &&
                 fuzz_between(d->crowd.run_chance, 0.0f, 1.0f));
    FUZZ_REQUIRE(d->crowd.body_count >= 1 && d->crowd.body_count <= DEMO_CONFIG_BODIES_MAX);
    float weights = 0.0f;
    for (int b = 0; b < d->crowd.body_count; ++b) {
        const demo_config_body *body = &d->crowd.bodies[b];
        FUZZ_REQUIRE(fuzz_name_ok(body->character) && fuzz_between(body->weight, 0.0f, 1e6f));
        for (int other = 0; other < b; ++other)
            FUZZ_REQUIRE(strcmp(d->crowd.bodies[other].character, body->character) != 0);
        weights += body->weight;
    }
    FUZZ_REQUIRE(weights > 0.0f); /* a body can be drawn */
    FUZZ_REQUIRE(fuzz_between(d->camera.distance, 0.5f, 1000.0f) && fuzz_between(d->camera.pitch, -89.0f, 89.0f) &&
                 fuzz_between(d->camera.yaw, -360.0f, 360.0f));
    FUZZ_REQUIRE(d->window.width >= 64 && d->window.width <= 16384 && d->window.height >= 64 &&
                 d->window.height <= 16384);
}

static void fuzz_demo_config(void)
{
    demo_config before = demo_config_defaults(), d;
    memcpy(&d, &before, sizeof d);
    diag_list errors = {0};
    bool loaded = demo_config_load(fuzz_part_paths[1], &d, &errors);
    fuzz_check_outcome(loaded, &errors, &before, &d, sizeof d);
    fuzz_check_demo_config(&d);
    diag_list_free(&errors);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_write_parts(fuzz_part_paths, FUZZ_PART_COUNT, data, size);
    fuzz_controls();
    fuzz_demo_config();
    fuzz_input_script(fuzz_part_paths[2], fuzz_hash(data, size));
    return 0;
}
