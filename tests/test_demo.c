/* test_demo: the demo end to end, headless (SDL offscreen, Mesa llvmpipe), driven in-process by an input
 * script exactly as `marionette --headless --script` drives it:
 *   - the issue's scripted run (idle -> walk -> run -> jump -> wave while walking -> spawn 100 -> clear),
 *     checked through the states seen frame by frame, the JSON trace (transitions and footsteps in order)
 *     and pictures (the player is on screen where the camera says; the crowd fills the screen; clearing
 *     empties it);
 *   - a config edit during a run is applied by hot reload (the walk state remapped to the run clip);
 *   - a broken config is reported with file:line on the HUD while the demo keeps running on the last good
 *     one, and a fix clears the report.
 * Pictures are saved under the build folder as demo_*.png to be looked at. */
#include <malloc.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <SDL.h>

#include "build/loader.h"
#include "check.h"
#include "demo.h"
#include "heap_counter.h"
#include "test_files.h"
#include "hud.h"
#include "platform/platform.h"
#include "pick.h"
#include "pose/pose.h"
#include "trace_poses.h"

enum { WIDTH = 480, HEIGHT = 270 };

static demo *d;

/* What the HUD shows of d now, as text. */
static void demo_hud_text(char *text, size_t size)
{
    hud_view view;
    demo_hud_view(d, &view);
    hud_text(&view, text, size);
}

static void save_picture(const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", MARIONETTE_BUILD_DIR, name);
    diag err;
    CHECK(platform_save_png(path, &err));
    printf("  picture: %s\n", path);
}

/* Mannequin wood: clearly warmer than the grey ground and the blue-grey sky. */
static bool is_mannequin(const uint8_t *p)
{
    return p[0] > 120 && (int)p[0] - (int)p[2] > 45 && p[0] >= p[1];
}

/* Robot armour: orange. */
static bool is_robot_orange(const uint8_t *p)
{
    return p[0] > 180 && p[1] > 70 && p[1] < 170 && p[2] < 90;
}

typedef struct picture_figures {
    int mannequin, robot;  /* pixels */
    bool player_seen;      /* mannequin pixels around the player's projected chest */
} picture_figures;

static picture_figures look(void)
{
    static uint8_t rgba[WIDTH * HEIGHT * 4];
    picture_figures out = {0};
    CHECK(platform_read_pixels(rgba));
    for (int i = 0; i < WIDTH * HEIGHT; ++i) {
        out.mannequin += is_mannequin(rgba + 4 * i);
        out.robot += is_robot_orange(rgba + 4 * i);
    }
    if (demo_player(d)) {
        mat4 view, projection, view_projection;
        vec3 eye, chest;
        camera_matrices(demo_camera(d), (float)WIDTH / (float)HEIGHT, view, projection, eye);
        glm_mat4_mul(projection, view, view_projection);
        player_position(demo_player(d), chest);
        chest[1] += 1.2f;
        vec4 clip_space;
        glm_mat4_mulv(view_projection, (vec4){chest[0], chest[1], chest[2], 1.0f}, clip_space);
        int x = (int)((clip_space[0] / clip_space[3] * 0.5f + 0.5f) * WIDTH);
        int y = (int)((1.0f - (clip_space[1] / clip_space[3] * 0.5f + 0.5f)) * HEIGHT);
        for (int dy = -6; dy <= 6; ++dy)
            for (int dx = -6; dx <= 6; ++dx)
                if (x + dx >= 0 && x + dx < WIDTH && y + dy >= 0 && y + dy < HEIGHT)
                    out.player_seen |= is_mannequin(rgba + 4 * ((y + dy) * WIDTH + x + dx));
    }
    return out;
}

static demo_options options_for(const char *config_dir, const char *script, const char *trace, int frames)
{
    return (demo_options){.headless = true, .frames = frames, .script = script, .trace = trace,
                          .config_dir = config_dir, .width = WIDTH, .height = HEIGHT};
}

/* ---- The scripted run ----------------------------------------------------------------------------------- */

static void test_scripted_run(void)
{
    char trace_path[512];
    snprintf(trace_path, sizeof trace_path, "%s/demo_full_run.json", MARIONETTE_BUILD_DIR);
    demo_options options = options_for(MARIONETTE_SOURCE_DIR "/config", MARIONETTE_TEST_DATA "/demo/full_run.txt",
                                       trace_path, 13 * 60);
    CHECK(demo_start(&d, &options));
    CHECK(demo_player(d) != NULL && demo_message_count(d) == 0);

    /* The states the player passes through, each once per visit, in order. */
    char visited[32][ANIM_NAME_MAX];
    int visits = 0, most_crowd = 0, footsteps = 0;
    bool overlay_while_walking = false, walked = false, ran = false;
    picture_figures alone = {0}, crowded = {0}, cleared = {0};
    while (demo_frame(d)) {
        const char *state = player_state_name(demo_player(d));
        if (visits == 0 || strcmp(visited[visits - 1], state) != 0) {
            if (visits < 32)
                snprintf(visited[visits++], ANIM_NAME_MAX, "%s", state);
        }
        most_crowd = crowd_count(demo_crowd(d)) > most_crowd ? crowd_count(demo_crowd(d)) : most_crowd;
        const anim_controller *controller = animator_controller(player_animator(demo_player(d)));
        if (strcmp(state, "wave") == 0 && player_speed(demo_player(d)) > 1.0f &&
            anim_controller_channel_weight(controller, 1) + anim_controller_channel_weight(controller, 2) > 0.9f)
            overlay_while_walking = true;
        /* The locomotion blend's heaviest clip: the body walks and runs through it. */
        anim_layer_info body = {0};
        if (anim_controller_layer(controller, 0, anim_controller_layer_count(controller, 0) - 1, &body) &&
            body.blend && body.clip) {
            walked = walked || strcmp(body.clip->name, "walk") == 0;
            ran = ran || strcmp(body.clip->name, "run") == 0;
        }
        if (demo_progress_of(d).frames == 10 * 60) {
            alone = look();
            save_picture("demo_walking.png");
        } else if (demo_progress_of(d).frames == 12 * 60) {
            crowded = look();
            save_picture("demo_crowd.png");
        }
    }
    cleared = look();
    save_picture("demo_cleared.png");
    for (int i = 0; i < demo_event_count(d); ++i)
        footsteps += strncmp(demo_event(d, i)->name, "footstep", 8) == 0;
    char hud[4096];
    demo_hud_text(hud, sizeof hud);
    printf("%s", hud);
    printf("  states:");
    for (int i = 0; i < visits; ++i)
        printf(" %s", visited[i]);
    printf("\n  crowd at most %d; mannequin pixels alone %d, with the crowd %d (robot orange %d), cleared %d\n",
           most_crowd, alone.mannequin, crowded.mannequin, crowded.robot, cleared.mannequin);

    /* locomotion (the blend: idle, walk, run; standing) -> moving (the same blend, leaning into turns) ->
     * jump -> (locomotion for a step) -> moving -> wave -> ... -> locomotion */
    static const char *const expected[] = {"locomotion", "moving", "jump", "moving", "wave"};
    int matched = 0;
    for (int i = 0; i < visits && matched < 5; ++i)
        if (strcmp(visited[i], expected[matched]) == 0)
            ++matched;
    CHECK(matched == 5);
    CHECK(visits <= 8); /* no flickering between states */
    CHECK(strcmp(visited[visits - 1], "locomotion") == 0);
    CHECK(walked && ran);
    CHECK(overlay_while_walking);
    CHECK(footsteps > 0 || demo_event_count(d) == 0); /* the log holds the latest events; the trace has them all */
    /* The HUD gives each event's weight: footstep.L (1.00), one per contact however many layers carry it. */
    for (int i = 0; i < demo_event_count(d); ++i) {
        char shown[ANIM_NAME_MAX + 16];
        snprintf(shown, sizeof shown, " %s (%.2f) ", demo_event(d, i)->name, (double)demo_event(d, i)->weight);
        CHECK_STR_CONTAINS(hud, shown);
        CHECK(demo_event(d, i)->weight >= 0.0f && demo_event(d, i)->weight <= 1.0f + 1e-5f);
    }
    CHECK(most_crowd == 100 && crowd_count(demo_crowd(d)) == 0);
    CHECK(demo_progress_of(d).steps == 13 * 120);
    CHECK(demo_progress_of(d).gl_error_frames == 0);
    /* Pictures: the player is where the camera says; the crowd fills the screen; clearing empties it. */
    /* About 70 pixels tall, the player is drawn at a coarser level of detail: ~180 warm pixels (~250 whole). */
    CHECK(alone.player_seen && alone.mannequin > 120);
    /* The spawn keeps the line from the player to the camera clear: the player is still seen (before, the
     * camera sat inside the crowd and nearby robots filled the picture: robot orange 200 and more). */
    CHECK(crowded.mannequin > 4 * alone.mannequin && crowded.robot > 40 && crowded.player_seen);
    CHECK(cleared.player_seen && cleared.mannequin < 2 * alone.mannequin);
    demo_finish(d);

    /* The trace: every transition in order, footsteps while walking and running, the keys that caused them. */
    char *trace = test_read_file(trace_path, NULL);
    CHECK(trace != NULL);
    if (trace) {
        static const char *const transitions[] = {
            "\"transition\":{\"from\":\"locomotion\",\"to\":\"moving\"",
            "\"transition\":{\"from\":\"moving\",\"to\":\"jump\"",
            "\"transition\":{\"from\":\"jump\",\"to\":\"locomotion\"",
            "\"transition\":{\"from\":\"locomotion\",\"to\":\"moving\"",
            "\"transition\":{\"from\":\"moving\",\"to\":\"wave\"",
        };
        const char *cursor = trace;
        for (int i = 0; i < 5; ++i) {
            const char *found = strstr(cursor, transitions[i]);
            CHECK(found != NULL);
            if (!found)
                fprintf(stderr, "  trace lacks (in order) %s\n", transitions[i]);
            else
                cursor = found;
        }
        CHECK(strstr(trace, "\"name\":\"footstep.L\"") && strstr(trace, "\"name\":\"footstep.R\""));
        CHECK(strstr(trace, "\"event\":\"press\",\"key\":\"W\""));
        CHECK(strstr(trace, "\"actions\":[\"crowd_spawn\"]") && strstr(trace, "\"crowd\":100"));
        CHECK(trace[0] == '[' && strstr(trace, "\n]\n") != NULL);
        size_t steps = 0;
        for (const char *c = trace; (c = strstr(c, "\"step\":")) != NULL; ++c)
            ++steps;
        CHECK(steps == 13 * 120);
        free(trace);
    }
}

/* ---- Hot reload ---------------------------------------------------------------------------------------- */

/* A scratch copy of config/ beside a link to assets/, so the test can edit files the demo watches. Its
 * states.ini is the crossfading machine of tests/data/crossfade (idle, walk and run as states), whose text
 * the reload tests edit. */
static void make_scratch_config(char *config_dir, size_t size)
{
    char root[400], command[4096];
    snprintf(root, sizeof root, "%s/demo_reload", MARIONETTE_BUILD_DIR);
    snprintf(command, sizeof command,
             "rm -rf '%s' && mkdir -p '%s' && cp -r '%s/config' '%s/config' && ln -s '%s/assets' '%s/assets' && "
             "cp '%s/crossfade/states.ini' '%s/config/states.ini'",
             root, root, MARIONETTE_SOURCE_DIR, root, MARIONETTE_SOURCE_DIR, root, MARIONETTE_TEST_DATA, root);
    CHECK(system(command) == 0);
    int wrote = snprintf(config_dir, size, "%s/config", root);
    CHECK(wrote > 0 && (size_t)wrote < size);
}

/* An input script beside the scratch config: path gets its name. */
static void write_script(char *path, size_t size, const char *config_dir, const char *name, const char *text)
{
    snprintf(path, size, "%s/../%s.txt", config_dir, name);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

/* Replace the first occurrence of `from` in a file by `to`. */
static bool edit_file(const char *path, const char *from, const char *to)
{
    char *text = test_read_file(path, NULL);
    if (!text)
        return false;
    char *at = strstr(text, from);
    bool ok = at != NULL;
    if (ok) {
        FILE *f = fopen(path, "wb");
        fwrite(text, 1, (size_t)(at - text), f);
        fputs(to, f);
        fputs(at + strlen(from), f);
        fclose(f);
    }
    free(text);
    return ok;
}

static const char *body_clip(void)
{
    anim_layer_info layer = {0};
    const anim_controller *controller = animator_controller(player_animator(demo_player(d)));
    int top = anim_controller_layer_count(controller, 0) - 1;
    if (top < 0 || !anim_controller_layer(controller, 0, top, &layer) || !layer.clip)
        return "";
    return layer.clip->name;
}

static void test_hot_reload_and_broken_config(void)
{
    char config_dir[512], states[600], script[600];
    make_scratch_config(config_dir, sizeof config_dir);
    snprintf(states, sizeof states, "%s/states.ini", config_dir);
    write_script(script, sizeof script, config_dir, "walk", "0.2 press W\n");
    demo_options options = options_for(config_dir, script, NULL, 0);
    CHECK(demo_start(&d, &options));
    for (int i = 0; i < 90; ++i)
        demo_frame(d);
    CHECK(strcmp(player_state_name(demo_player(d)), "walk") == 0);
    CHECK(strcmp(body_clip(), "walk") == 0);

    /* Remap the walk state's clip while walking: the next frame's reload applies it, and the player stays
     * in the walk state, now playing the run clip. */
    CHECK(edit_file(states, "[state walk]\nclip = walk", "[state walk]\nclip = run   ; remapped by test_demo"));
    for (int i = 0; i < 30; ++i)
        demo_frame(d);
    printf("  after the edit: state %s, clip %s, status \"%s\"\n", player_state_name(demo_player(d)), body_clip(), demo_status(d));
    CHECK(strcmp(player_state_name(demo_player(d)), "walk") == 0);
    CHECK(strcmp(body_clip(), "run") == 0);
    CHECK(strstr(demo_status(d), "reloaded") != NULL && demo_message_count(d) == 0);

    /* A broken line: reported with its file:line on the HUD; the last good machine keeps running. */
    CHECK(edit_file(states, "[walk -> run]\nwhen = speed > 2.6", "[walk -> run]\nwhen = speed >> 2.6"));
    long frames_before = demo_progress_of(d).frames;
    double time_before = demo_progress_of(d).simulation_time;
    for (int i = 0; i < 30; ++i)
        demo_frame(d);
    char hud[4096];
    demo_hud_text(hud, sizeof hud);
    printf("  broken: %d message(s): %s\n", demo_message_count(d), demo_message_count(d) ? demo_message(d, 0) : "");
    CHECK(demo_message_count(d) >= 1);
    CHECK(demo_message_count(d) >= 1 && strstr(demo_message(d, 0), "states.ini:") != NULL);
    CHECK(strstr(demo_status(d), "last good") != NULL && strstr(hud, "last good") != NULL);
    CHECK(demo_progress_of(d).frames == frames_before + 30 && demo_progress_of(d).simulation_time > time_before + 0.4);
    CHECK(strcmp(player_state_name(demo_player(d)), "walk") == 0 && strcmp(body_clip(), "run") == 0);

    /* Fixed: the report goes away. */
    CHECK(edit_file(states, "speed >> 2.6", "speed > 2.6"));
    for (int i = 0; i < 5; ++i)
        demo_frame(d);
    CHECK(demo_message_count(d) == 0 && strstr(demo_status(d), "reloaded") != NULL);
    CHECK(demo_progress_of(d).gl_error_frames == 0);
    demo_finish(d);
}

/* demo.ini's player speeds apply to the running player when the file is saved; they used to wait for the
 * player to be re-created (a restart) while the demo said it had reloaded. */
static void test_speed_edit_applies_at_once(void)
{
    char config_dir[512], settings[600], script[600];
    make_scratch_config(config_dir, sizeof config_dir);
    snprintf(settings, sizeof settings, "%s/demo.ini", config_dir);
    write_script(script, sizeof script, config_dir, "run", "0.1 press W\n0.1 press Left Shift\n");
    demo_options options = options_for(config_dir, script, NULL, 0);
    CHECK(demo_start(&d, &options));
    for (int i = 0; i < 120; ++i)
        demo_frame(d);
    const player *before = demo_player(d);
    float first_speed = player_speed(demo_player(d));
    CHECK_NEAR(first_speed, 3.5, 0.01);

    CHECK(edit_file(settings, "run_speed = 3.5", "run_speed = 6.0"));
    test_touch_forward(settings, 5);
    for (int i = 0; i < 90; ++i)
        demo_frame(d);
    printf("  running at %.2f m/s, after run_speed = 6.0: %.2f m/s (status \"%s\")\n", (double)first_speed,
           (double)player_speed(demo_player(d)), demo_status(d));
    CHECK(strstr(demo_status(d), "reloaded") != NULL && demo_message_count(d) == 0);
    CHECK(demo_player(d) == before); /* the same player, not a new one */
    CHECK_NEAR(player_get_params(demo_player(d)).run_speed, 6.0, 1e-6);
    CHECK_NEAR(player_speed(demo_player(d)), 6.0, 0.01);

    /* An out-of-range speed is refused with its line; the last good speed stays. */
    CHECK(edit_file(settings, "run_speed = 6.0", "run_speed = 60"));
    test_touch_forward(settings, 10);
    for (int i = 0; i < 5; ++i)
        demo_frame(d);
    CHECK(demo_message_count(d) == 1 && strstr(demo_message(d, 0), "demo.ini:") != NULL);
    CHECK_NEAR(player_get_params(demo_player(d)).run_speed, 6.0, 1e-6);
    CHECK(demo_progress_of(d).gl_error_frames == 0);
    demo_finish(d);
}

/* Start the demo on the shipped config/ with a script of `text`, written into a fresh folder `name` under
 * the build (the path stays valid while the demo runs). */
static bool start_with_script(const char *name, const char *text)
{
    static char script[600];
    char folder[512], command[1200];
    snprintf(folder, sizeof folder, "%s/%s", MARIONETTE_BUILD_DIR, name);
    snprintf(command, sizeof command, "rm -rf '%s' && mkdir -p '%s'", folder, folder);
    CHECK(system(command) == 0);
    snprintf(script, sizeof script, "%s/script.txt", folder);
    FILE *f = fopen(script, "w");
    CHECK(f != NULL);
    if (!f)
        return false;
    fputs(text, f);
    fclose(f);
    demo_options options = options_for(MARIONETTE_SOURCE_DIR "/config", script, NULL, 0);
    return demo_start(&d, &options);
}

/* ---- The tests' own view and action: one table row each, plus its drawing or doing ------------------------ */

/* The view: a cross on the ground under the player (gfx_debug_cross: three lines), counted. */
static void draw_cross_under_player(const demo *shown, void *user)
{
    vec3 position;
    player_position(demo_player(shown), position);
    gfx_debug_cross(position, 0.3f, (vec4){0.2f, 0.9f, 1.0f, 1.0f});
    ++*(int *)user;
}

/* The action: presses counted. */
static void count_presses(demo *pressed_on, int presses, void *user)
{
    (void)pressed_on;
    *(int *)user += presses;
}

static int fixture_crosses, fixture_presses;
static const demo_action_row fixture_rows[] = {
    {.controls = {"crosses", "Crosses", {"F8"}}, .view = "crosses", .legend = "crosses  a cross under the player",
     .draw = draw_cross_under_player, .user = &fixture_crosses},
    {.controls = {"count", "Count", {"J"}}, .run = count_presses, .user = &fixture_presses},
};

static void test_a_new_view_and_action_are_one_row_each(void)
{
    char config_dir[512], script[600];
    make_scratch_config(config_dir, sizeof config_dir);
    /* The view on and off again, on once more; the action tapped three times, then rebound in controls.ini
     * by its name (J freed, L instead) and tapped once more on its new key and once on the old. */
    write_script(script, sizeof script, config_dir, "fixture",
                 "0.2 tap F8\n0.3 tap J\n0.4 tap F8\n0.5 tap J\n0.6 tap F8\n0.7 tap J\n1.5 tap L\n1.6 tap J\n");
    demo_options options = options_for(config_dir, script, NULL, 0);
    options.actions = fixture_rows;
    options.action_count = 2;
    fixture_crosses = fixture_presses = 0;
    bool started = demo_start(&d, &options);
    CHECK(started);
    if (!started) {
        demo_finish(d);
        return;
    }
    int lines_before = 0, lines_on = 0, crosses_on = 0;
    bool seen_off_again = false;
    char text[4096];
    while (demo_progress_of(d).clock < 1.0) {
        demo_frame(d);
        if (demo_progress_of(d).clock < 0.2)
            lines_before = demo_gfx_stats(d)->debug_lines;
        if (demo_view_on(d, 0)) {
            lines_on = demo_gfx_stats(d)->debug_lines;
            crosses_on = fixture_crosses;
            demo_hud_text(text, sizeof text);
            CHECK(strstr(text, "  crosses\n") != NULL && strstr(text, "crosses  a cross under the player\n"));
        } else if (fixture_crosses > 0) {
            seen_off_again = true;
            demo_hud_text(text, sizeof text);
            CHECK(strstr(text, "crosses") == NULL);
        }
    }
    printf("  the fixture's view: %d debug lines before, %d while on (%d crosses drawn); its action: %d presses\n",
           lines_before, lines_on, crosses_on, fixture_presses);
    CHECK(demo_view_on(d, 0) && seen_off_again && crosses_on > 0);
    CHECK(lines_on == lines_before + 3);
    CHECK(fixture_presses == 3 && !demo_view_on(d, 1) && !demo_view_on(d, 2));
    /* The help names both, with their keys. */
    char help[CONTROLS_HELP_TEXT_MAX * 2];
    hud_view view;
    demo_hud_view(d, &view);
    controls_help_text(view.controls, help, sizeof help);
    CHECK_STR_CONTAINS(help, "Crosses: F8");
    CHECK_STR_CONTAINS(help, "Count: J");
    /* controls.ini binds the action by its name, like the demo's own. */
    char controls_path[600];
    snprintf(controls_path, sizeof controls_path, "%s/controls.ini", config_dir);
    CHECK(edit_file(controls_path, "[keys]\n", "[keys]\ncount = L\n"));
    while (demo_progress_of(d).clock < 2.0)
        demo_frame(d);
    CHECK(demo_message_count(d) == 0);
    CHECK(fixture_presses == 4); /* L counted, J no longer */
    CHECK(demo_progress_of(d).gl_error_frames == 0);
    demo_finish(d);

    /* A row that would clash with the demo's own (a name it has) is refused at the start, said on stderr. */
    static const demo_action_row clash[] = {{.controls = {"jump", "Jump again", {"F8"}}, .run = count_presses,
                                              .user = &fixture_presses}};
    options.actions = clash;
    options.action_count = 1;
    CHECK(!demo_start(&d, &options));
    demo_finish(d);
}

/* Taps closer than a step (a slow frame: at 2 fps, a half second of keys arrives at once) each count:
 * four taps of C spawn four times (400, not 100), two of [ halve twice, a toggle tapped twice is back. */
static void test_quick_taps_each_count(void)
{
    /* Presses and releases at one time: what one step sees of a slow frame's taps (a script's `tap`
     * releases a step later). */
    char text[512] = "";
    for (int k = 0; k < 4; ++k)
        strcat(text, "0.3 press C\n0.3 release C\n");
    strcat(text, "0.4 press [\n0.4 release [\n0.4 press [\n0.4 release [\n0.5 press F3\n0.5 release F3\n"
                 "0.5 press F3\n0.5 release F3\n");
    CHECK(start_with_script("demo_quick_taps", text));
    bool bounds_before = demo_views(d)->bounds;
    for (int i = 0; i < 60; ++i)
        demo_frame(d);
    printf("  four taps of C in one step: %d members; two of [: x%.2f\n", crowd_count(demo_crowd(d)), (double)demo_progress_of(d).time_scale);
    CHECK(crowd_count(demo_crowd(d)) == 4 * demo_settings(d)->crowd.count);
    /* None of them stands between the player and the camera (the spawn keeps that corridor clear). */
    vec3 player_at, eye;
    player_position(demo_player(d), player_at);
    camera_eye(demo_camera(d), eye);
    int in_view_line = 0;
    float dx = eye[0] - player_at[0], dz = eye[2] - player_at[2], length2 = dx * dx + dz * dz;
    for (int i = 0; i < crowd_count(demo_crowd(d)); ++i) {
        float x, z;
        crowd_home(demo_crowd(d), i, &x, &z);
        float t = length2 > 0.0f ? fminf(1.0f, fmaxf(0.0f, ((x - player_at[0]) * dx + (z - player_at[2]) * dz) / length2))
                                 : 0.0f;
        in_view_line += hypotf(player_at[0] + t * dx - x, player_at[2] + t * dz - z) < 1.4f;
    }
    CHECK(in_view_line == 0);
    CHECK(demo_progress_of(d).time_scale == 0.25f);
    CHECK(demo_views(d)->bounds == bounds_before);
    demo_finish(d);
}

/* A key whose trigger does nothing says why on the status line: K on the shipped characters (their states
 * have no `die`), H during a wave (no transition from the wave takes `hit`). */
static void test_keys_that_do_nothing_say_why(void)
{
    CHECK(start_with_script("demo_silent_keys", "0.2 tap K\n1.0 tap E\n1.3 tap H\n"));
    for (int i = 0; i < 30; ++i) /* 0.5 s */
        demo_frame(d);
    printf("  after K: %s\n", demo_status(d));
    CHECK(strstr(demo_status(d), "K does nothing") && strstr(demo_status(d), "has no 'die' trigger"));
    bool said = false;
    for (int i = 0; i < 90 && !said; ++i) { /* to 2 s: the wave plays, H waits and is dropped */
        demo_frame(d);
        said = strstr(demo_status(d), "'hit' did nothing: no transition from state") != NULL;
    }
    printf("  after H during the wave: %s\n", demo_status(d));
    CHECK(said);
    demo_finish(d);
}

/* The controls panel (F1) and its hint never cover the HUD's lines: in a narrow window they go below the
 * main block (they covered its right end at 960 px), in a wide one they keep the top right corner. */
static bool rects_overlap(hud_rect a, hud_rect b)
{
    return a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
}

static void test_help_panel_never_covers_the_hud(void)
{
    demo_options options = options_for(MARIONETTE_SOURCE_DIR "/config", NULL, NULL, 0);
    CHECK(demo_start(&d, &options));
    demo_frame(d);
    hud_view view;
    const int sizes[][2] = {{640, 360}, {960, 540}, {1280, 720}, {1920, 1080}, {3840, 2160}};
    int covered = 0, corner = 0;
    for (int help = 0; help < 2; ++help) {
        if (help) {
            demo_press(d, GAME_ACTION_HELP);
            demo_frame(d);
        }
        CHECK(demo_help_shown(d) == help);
        demo_hud_view(d, &view);
        for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; ++k) {
            hud_layout l = hud_layout_of(&view, sizes[k][0], sizes[k][1]);
            covered += rects_overlap(l.main, l.right);
            corner += l.right.top == l.main.top;
        }
    }
    hud_layout narrow = hud_layout_of(&view, 960, 540);
    printf("  help panel: %d of 10 layouts cover the HUD, %d in the top corner; at 960x540 it starts at y %.0f "
           "(the HUD ends at %.0f)\n", covered, corner, (double)narrow.right.top, (double)narrow.main.bottom);
    CHECK(covered == 0);
    CHECK(corner >= 4); /* the wide windows keep the corner */
    CHECK(narrow.right.top > narrow.main.bottom);
    demo_finish(d);
}

/* F12 writes screenshots/marionette-NNN.png under the current folder (made on first use; .gitignore covers
 * it), skipping numbers that exist, and the HUD says where. It used to write into the current folder. */
static void test_screenshots_go_to_their_folder(void)
{
    char folder[512], script[600], cwd[1024], command[1200];
    snprintf(folder, sizeof folder, "%s/demo_screenshots", MARIONETTE_BUILD_DIR);
    snprintf(command, sizeof command, "rm -rf '%s' && mkdir -p '%s'", folder, folder);
    CHECK(system(command) == 0);
    snprintf(script, sizeof script, "%s/shots.txt", folder);
    FILE *f = fopen(script, "w");
    CHECK(f != NULL);
    if (!f)
        return;
    fputs("0.2 tap F12\n0.5 tap F12\n", f);
    fclose(f);
    CHECK(getcwd(cwd, sizeof cwd) != NULL);
    CHECK(chdir(folder) == 0);
    demo_options options = options_for(MARIONETTE_SOURCE_DIR "/config", script, NULL, 0);
    CHECK(demo_start(&d, &options));
    for (int i = 0; i < 20; ++i)
        demo_frame(d);
    struct stat info;
    CHECK(stat("screenshots/marionette-001.png", &info) == 0 && S_ISREG(info.st_mode) && info.st_size > 1000);
    CHECK(strstr(demo_status(d), "screenshot: screenshots/marionette-001.png") != NULL);
    printf("  status after the first F12: %s\n", demo_status(d));
    /* A picture already there (an earlier run's) keeps its number. */
    f = fopen("screenshots/marionette-002.png", "w");
    CHECK(f != NULL);
    if (f) {
        fputs("kept", f);
        fclose(f);
    }
    for (int i = 0; i < 30; ++i)
        demo_frame(d);
    CHECK(stat("screenshots/marionette-002.png", &info) == 0 && info.st_size == 4);
    CHECK(stat("screenshots/marionette-003.png", &info) == 0 && info.st_size > 1000);
    CHECK(strstr(demo_status(d), "screenshot: screenshots/marionette-003.png") != NULL);
    CHECK(stat("marionette-001.png", &info) != 0); /* nothing in the current folder itself */
    demo_finish(d);
    CHECK(chdir(cwd) == 0);
    char *ignore = test_read_file(MARIONETTE_SOURCE_DIR "/.gitignore", NULL);
    CHECK(ignore && strstr(ignore, "/screenshots/\n") != NULL);
    free(ignore);
}

/* ---- The bounds view ------------------------------------------------------------------------------------ */

static double test_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

typedef struct box_check {
    int entities, vertices, outside_pose, outside_culling;
    float most_slack;   /* largest gap, on any side, between the pose box and the vertices' extent */
    float lowest_standing; /* lowest z of a standing (speed 0) entity's pose box; the floor is z = 0 */
    bool bodies[2];     /* mannequin, robot seen */
    int dual_quaternion_bodies; /* meshes skinned with dual quaternions (the robot's, as characters.ini says) */
} box_check;

/* One entity: CPU-skin its pose and compare with the box F3 draws bright (scene_pose_bounds) and with the
 * culling box (anim_controller_bounds grown by the skin reach, as scene.c gives gfx). */
static void check_boxes(const animator *animator, box_check *c)
{
    const model *m = animator_character(animator)->model;
    const anim_controller *controller = animator_controller(animator);
    int joints = m->skeleton.joint_count;
    float pose_box[2][3], culling[2][3];
    CHECK(demo_pose_bounds(d, animator, pose_box));
    CHECK(anim_controller_bounds(controller, culling));
    for (int k = 0; k < 3; ++k) {
        culling[0][k] -= m->skin_reach;
        culling[1][k] += m->skin_reach;
    }
    /* Skinned the way the scene skins this body (characters.ini's `skinning`, or the skin_blend key). */
    bool dual = scene_character_skinning(demo_scene(d), animator_character(animator)) == POSE_SKINNING_DUAL_QUATERNION;
    const joint_pose *object = anim_controller_object_pose(controller);
    mat4 *palette = malloc((size_t)joints * sizeof *palette);
    pose_dual_quaternion *dual_quaternions = malloc((size_t)joints * sizeof *dual_quaternions);
    CHECK(palette && dual_quaternions &&
          pose_palette(object, (const mat4 *)m->skeleton.inverse_bind, joints, palette) &&
          pose_dual_quaternion_palette(object, m->skeleton.bind_object, joints, dual_quaternions));
    float extent[2][3] = {{1e30f, 1e30f, 1e30f}, {-1e30f, -1e30f, -1e30f}};
    for (int i = 0; palette && dual_quaternions && i < m->mesh_count; ++i) {
        const skin_mesh *mesh = &m->meshes[i];
        float (*positions)[3] = malloc((size_t)mesh->vertex_count * sizeof *positions);
        float (*normals)[3] = malloc((size_t)mesh->vertex_count * sizeof *normals);
        CHECK(positions && normals &&
              (dual ? pose_skin_cpu_dual_quaternion(mesh, dual_quaternions, joints, positions, normals)
                    : pose_skin_cpu(mesh, (const mat4 *)palette, joints, positions, normals)));
        c->dual_quaternion_bodies += dual;
        for (int v = 0; positions && normals && v < mesh->vertex_count; ++v) {
            bool in_pose = true, in_culling = true;
            for (int k = 0; k < 3; ++k) {
                float p = positions[v][k];
                in_pose &= p >= pose_box[0][k] - 1e-4f && p <= pose_box[1][k] + 1e-4f;
                in_culling &= p >= culling[0][k] && p <= culling[1][k];
                extent[0][k] = fminf(extent[0][k], p);
                extent[1][k] = fmaxf(extent[1][k], p);
            }
            c->outside_pose += !in_pose;
            c->outside_culling += !in_culling;
            ++c->vertices;
        }
        free(positions);
        free(normals);
    }
    free(palette);
    free(dual_quaternions);
    for (int k = 0; k < 3; ++k)
        c->most_slack = fmaxf(c->most_slack, fmaxf(extent[0][k] - pose_box[0][k], pose_box[1][k] - extent[1][k]));
    float speed = -1.0f;
    if (strcmp(animator_state_name(animator), "locomotion") == 0 && animator_get(animator, "speed", &speed) &&
        speed == 0.0f) /* the locomotion blend all idle */
        c->lowest_standing = fminf(c->lowest_standing, pose_box[0][2]);
    c->bodies[strcmp(animator_character(animator)->name, "mannequin") != 0] = true;
    ++c->entities;
}

/* F3's bright box is the pose's skinned mesh, tight: it holds every CPU-skinned vertex of the player and
 * crowd members of both bodies (standing, walking, running, jumping, waving) and is no more than 10 cm
 * larger on any side; a standing body's box stays above the floor. It used to be the culling box, about
 * three times the body's width and reaching below the floor; that one, drawn dim, still holds every
 * vertex. */
static void test_bounds_view_boxes(void)
{
    demo_options options = options_for(MARIONETTE_SOURCE_DIR "/config", MARIONETTE_TEST_DATA "/demo/full_run.txt",
                                       NULL, 0);
    options.crowd = 12;
    CHECK(demo_start(&d, &options));
    demo_press(d, GAME_ACTION_BOUNDS);
    box_check c = {.lowest_standing = 1e30f};
    for (int frame = 1; frame <= 10 * 60; ++frame) {
        demo_frame(d);
        if (frame % 20 != 0)
            continue;
        check_boxes(player_animator(demo_player(d)), &c);
        for (int i = 0; i < crowd_count(demo_crowd(d)); i += 3)
            check_boxes(crowd_animator(demo_crowd(d), i), &c);
    }
    save_picture("demo_bounds.png");
    /* What the exact box costs per entity while the view is on (it is CPU skinning without the writes). */
    float timed[2][3];
    double start = test_seconds();
    for (int i = 0; i < 200; ++i)
        demo_pose_bounds(d, player_animator(demo_player(d)), timed);
    printf("  pose box of the player: %.1f us\n", (test_seconds() - start) / 200.0 * 1e6);
    printf("  %d entities, %d vertices: %d outside the pose box, %d outside the culling box; pose box at most "
           "%.3f m larger than the mesh on a side; standing, its bottom at z = %.3f m\n",
           c.entities, c.vertices, c.outside_pose, c.outside_culling, (double)c.most_slack,
           (double)c.lowest_standing);
    CHECK(c.bodies[0] && c.bodies[1]);
    CHECK(c.dual_quaternion_bodies > 0); /* the robots, as characters.ini says */
    CHECK(c.outside_pose == 0 && c.outside_culling == 0);
    CHECK(c.most_slack <= 0.10f);
    CHECK(c.lowest_standing < 1e29f && c.lowest_standing >= -0.05f);
    CHECK(demo_progress_of(d).gl_error_frames == 0);
    demo_finish(d);
}

/* ---- A start with nothing valid ---------------------------------------------------------------------------- */

/* No assets/ folder: every model and clip is missing. The demo still runs (ground, HUD), says what is
 * missing with file:line, and once the folder is back an F5 (here from the script) brings the player. */
/* The skin_blend key (B) switches every character in turn: as characters.ini says (the robot with dual
 * quaternions, the mannequin linear), all linear, all dual quaternions, and round again; the HUD says
 * which, the palettes uploaded follow (a dual-quaternion body's is half a linear one's, rounded up), the
 * bounds view's box and the picture follow too (the player's box holds its dual-quaternion vertices). */
static void push_key(SDL_Keycode key, bool down, bool repeat);

static void test_skin_blend_key(void)
{
    demo_options options = options_for(MARIONETTE_SOURCE_DIR "/config", NULL, NULL, 0);
    options.crowd = 6;
    CHECK(demo_start(&d, &options));
    for (int i = 0; i < 5; ++i)
        demo_frame(d);
    const char *expected[SCENE_SKINNING_COUNT + 1] = {"as characters.ini says", "linear", "dual quaternion",
                                                      "as characters.ini says"};
    int matrices[SCENE_SKINNING_COUNT + 1] = {0};
    for (int mode = 0; mode <= SCENE_SKINNING_COUNT; ++mode) {
        if (mode > 0) {
            push_key(SDLK_b, true, false);
            push_key(SDLK_b, false, false);
        }
        demo_frame(d);
        demo_frame(d);
        CHECK(demo_scene(d)->skinning == (scene_skinning)(mode % SCENE_SKINNING_COUNT));
        char text[8192], wanted[128];
        demo_hud_text(text, sizeof text);
        snprintf(wanted, sizeof wanted, "GPU skinning, blend %s", expected[mode]);
        CHECK_STR_CONTAINS(text, wanted);
        /* Every entity drawn (none culled in the default view): its palette's room, as gfx counts it. */
        int expected_matrices = 0;
        const animator *entities[1 + 6];
        int count = 0;
        entities[count++] = player_animator(demo_player(d));
        for (int i = 0; i < crowd_count(demo_crowd(d)); ++i)
            entities[count++] = crowd_animator(demo_crowd(d), i);
        for (int i = 0; i < count; ++i) {
            const anim_character *character = animator_character(entities[i]);
            int joints = character->model->skeleton.joint_count;
            bool dual = scene_character_skinning(demo_scene(d), character) == POSE_SKINNING_DUAL_QUATERNION;
            CHECK(dual == (mode % SCENE_SKINNING_COUNT == SCENE_SKINNING_DUAL_QUATERNION ||
                           (mode % SCENE_SKINNING_COUNT == SCENE_SKINNING_AS_CHARACTERS &&
                            strcmp(character->name, "robot") == 0)));
            expected_matrices += dual ? (joints + 1) / 2 : joints;
        }
        matrices[mode] = demo_gfx_stats(d)->palette_matrices;
        printf("  skin blend %s: %d entities drawn, %d palette matrices (%zu bytes)\n", expected[mode], demo_gfx_stats(d)->instances,
               demo_gfx_stats(d)->palette_matrices, demo_gfx_stats(d)->palette_bytes);
        if (demo_gfx_stats(d)->instances == count)
            CHECK(demo_gfx_stats(d)->palette_matrices == expected_matrices);
        CHECK(demo_gfx_stats(d)->instances > 0);
    }
    CHECK(matrices[2] < matrices[0] && matrices[0] < matrices[1]);
    CHECK(matrices[3] == matrices[0]);
    /* All dual quaternions: the player's bounds box holds its dual-quaternion vertices. */
    while (demo_scene(d)->skinning != SCENE_SKINNING_DUAL_QUATERNION) {
        demo_press(d, GAME_ACTION_SKIN_BLEND);
        demo_frame(d);
    }
    box_check c = {.lowest_standing = 1e30f};
    check_boxes(player_animator(demo_player(d)), &c);
    CHECK(c.dual_quaternion_bodies > 0 && c.outside_pose == 0 && c.most_slack <= 0.10f);
    CHECK(demo_progress_of(d).gl_error_frames == 0);
    demo_finish(d);
}

static void test_missing_assets_then_fixed(void)
{
    char config_dir[512], assets[600], script[600], command[1400];
    make_scratch_config(config_dir, sizeof config_dir);
    snprintf(assets, sizeof assets, "%s/../assets", config_dir);
    CHECK(unlink(assets) == 0);
    write_script(script, sizeof script, config_dir, "reload", "1.0 tap F5\n1.5 press W\n");
    demo_options options = options_for(config_dir, script, NULL, 0);
    CHECK(demo_start(&d, &options));
    for (int i = 0; i < 30; ++i)
        CHECK(demo_frame(d));
    printf("  without assets: player %s, %d message(s), first: %s\n  status: %s\n", demo_player(d) ? "present" : "none",
           demo_messages_total(d), demo_message_count(d) ? demo_message(d, 0) : "", demo_status(d));
    CHECK(demo_player(d) == NULL && demo_anim_config(d) == NULL);
    CHECK(demo_message_count(d) >= 1 && strstr(demo_message(d, 0), ".md5") != NULL);
    CHECK(strstr(demo_status(d), "no configuration") != NULL);
    /* Back in place before the scripted F5 at 1 s. */
    snprintf(command, sizeof command, "ln -s '%s/assets' '%s'", MARIONETTE_SOURCE_DIR, assets);
    CHECK(system(command) == 0);
    for (int i = 0; i < 90; ++i)
        CHECK(demo_frame(d));
    CHECK(demo_player(d) != NULL && demo_anim_config(d) != NULL && demo_message_count(d) == 0);
    CHECK(demo_player(d) && strcmp(player_state_name(demo_player(d)), "walk") == 0);
    CHECK(demo_progress_of(d).gl_error_frames == 0);
    demo_finish(d);
}

/* Clips that fail at the start (a missing file, a clip made for another skeleton): the rest runs with the
 * first good clip standing in, the HUD and stderr say what and where, and each fix is taken as it is saved.
 * Once everything has loaded, the same mistake made by an edit keeps the last good config instead. */
static void test_broken_clips_at_start_then_fixed(void)
{
    char config_dir[512], clips[600], script[600], other_skeleton[600];
    make_scratch_config(config_dir, sizeof config_dir);
    snprintf(clips, sizeof clips, "%s/clips.ini", config_dir);
    /* A clip made for a skeleton of two joints. */
    snprintf(other_skeleton, sizeof other_skeleton, "file = %s/quirks/base.md5anim", MARIONETTE_TEST_DATA);
    CHECK(edit_file(clips, "file = ../assets/clips/walk.md5anim", "file = ../assets/clips/walkk.md5anim"));
    CHECK(edit_file(clips, "file = ../assets/clips/run.md5anim", other_skeleton));
    write_script(script, sizeof script, config_dir, "walk", "0.2 press W\n");
    demo_options options = options_for(config_dir, script, NULL, 0);
    CHECK(demo_start(&d, &options));
    for (int i = 0; i < 90; ++i)
        CHECK(demo_frame(d));
    picture_figures seen = look();
    save_picture("demo_stand_in.png");
    printf("  broken clips at the start: %d message(s): %s | %s\n  status: %s\n", demo_message_count(d),
           demo_message_count(d) > 0 ? demo_message(d, 0) : "", demo_message_count(d) > 1 ? demo_message(d, 1) : "", demo_status(d));
    CHECK(demo_anim_config(d) != NULL && demo_player(d) != NULL && anim_config_stand_in_count(demo_anim_config(d)) == 2);
    CHECK(demo_message_count(d) == 2 && strstr(demo_status(d), "stand-ins") != NULL);
    CHECK(demo_message_count(d) == 2 && strstr(demo_message(d, 0), "clips.ini:") && strstr(demo_message(d, 0), "walkk.md5anim") &&
          strstr(demo_message(d, 0), "[idle] plays in its place"));
    CHECK(demo_message_count(d) == 2 && strstr(demo_message(d, 1), "clips.ini:") && strstr(demo_message(d, 1), "skeleton has 31"));
    if (!demo_player(d) || !demo_anim_config(d)) {
        demo_finish(d);
        return;
    }
    const anim_character *character = animator_character(player_animator(demo_player(d)));
    const clip *idle = character->clips[anim_config_find_clip(character, "idle")].clip;
    anim_layer_info layer = {0};
    const anim_controller *controller = animator_controller(player_animator(demo_player(d)));
    CHECK(anim_controller_layer(controller, 0, anim_controller_layer_count(controller, 0) - 1, &layer));
    vec3 position;
    player_position(demo_player(d), position);
    CHECK(strcmp(player_state_name(demo_player(d)), "walk") == 0 && layer.clip && layer.clip->clip == idle);
    CHECK(glm_vec3_norm(position) > 0.5f); /* the player walks (on the stand-in) */
    CHECK(seen.player_seen && seen.mannequin > 300);

    /* Another file saved meanwhile: its reload does not pretend the stand-ins are gone. */
    char controls[600];
    snprintf(controls, sizeof controls, "%s/controls.ini", config_dir);
    CHECK(edit_file(controls, "; ", ";  "));
    test_touch_forward(controls, 5);
    for (int i = 0; i < 45; ++i)
        demo_frame(d);
    printf("  after a controls edit: %s\n", demo_status(d));
    CHECK(strstr(demo_status(d), "2 stand-ins still play") != NULL);

    /* The walk's file is fixed: taken at the next poll, the run's problem stays. */
    CHECK(edit_file(clips, "walkk.md5anim", "walk.md5anim"));
    for (int i = 0; i < 45; ++i)
        demo_frame(d);
    CHECK(anim_config_stand_in_count(demo_anim_config(d)) == 1 && demo_message_count(d) == 1);
    CHECK(strcmp(body_clip(), "walk") == 0);
    controller = animator_controller(player_animator(demo_player(d)));
    CHECK(anim_controller_layer(controller, 0, anim_controller_layer_count(controller, 0) - 1, &layer));
    CHECK(layer.clip && layer.clip->clip && layer.clip->clip->frame_count == 31);

    /* The run fixed too: a complete config, no messages. */
    CHECK(edit_file(clips, other_skeleton, "file = ../assets/clips/run.md5anim"));
    for (int i = 0; i < 45; ++i)
        demo_frame(d);
    CHECK(anim_config_stand_in_count(demo_anim_config(d)) == 0 && demo_message_count(d) == 0 && strstr(demo_status(d), "reloaded"));

    /* The same mistake made while the complete config runs: reported, the last good config keeps running. */
    const anim_config *good = demo_anim_config(d);
    CHECK(edit_file(clips, "file = ../assets/clips/run.md5anim", other_skeleton));
    for (int i = 0; i < 45; ++i)
        demo_frame(d);
    printf("  broken clip while running: %s\n  status: %s\n", demo_message_count(d) ? demo_message(d, 0) : "", demo_status(d));
    CHECK(demo_anim_config(d) == good && demo_message_count(d) == 1 && strstr(demo_status(d), "last good") != NULL);
    CHECK(demo_message_count(d) == 1 && strstr(demo_message(d, 0), "skeleton has 31") && !strstr(demo_message(d, 0), "in its place"));
    CHECK(demo_progress_of(d).gl_error_frames == 0);
    demo_finish(d);
}

/* A demo with nothing loaded (no assets/) still ends every frame: headless, the offscreen frames used to
 * pile up inside the software renderer (~50 KB a frame) since nothing submitted them. Memory in use by
 * malloc (ours and the driver's) must not grow over hundreds of such frames. */
static void test_nothing_loaded_stays_flat(void)
{
    char config_dir[512], assets[600];
    make_scratch_config(config_dir, sizeof config_dir);
    snprintf(assets, sizeof assets, "%s/../assets", config_dir);
    CHECK(unlink(assets) == 0);
    demo_options options = options_for(config_dir, NULL, NULL, 0);
    CHECK(demo_start(&d, &options));
    for (int i = 0; i < 200; ++i)
        demo_frame(d);
    struct mallinfo2 before = mallinfo2();
    for (int i = 0; i < 600; ++i)
        demo_frame(d);
    struct mallinfo2 after = mallinfo2();
    long growth = (long)(after.uordblks + after.hblkhd) - (long)(before.uordblks + before.hblkhd);
    printf("  nothing loaded: malloc in use grew by %ld KB over 600 frames\n", growth / 1024);
    CHECK(demo_anim_config(d) == NULL && demo_progress_of(d).frames == 800);
#if !defined(__SANITIZE_ADDRESS__) /* AddressSanitizer's own allocator: mallinfo2 does not see it */
    CHECK(growth < 2 * 1024 * 1024);
#endif
    CHECK(demo_progress_of(d).gl_error_frames == 0);
    demo_finish(d);
}

/* make_scratch_config with a copy of assets/ of its own beside it (in place of the link), for tests that break
 * an asset file; assets gets its path. */
static void make_scratch_config_and_assets(char *config_dir, size_t config_size, char *assets, size_t assets_size)
{
    char command[1600];
    make_scratch_config(config_dir, config_size);
    snprintf(assets, assets_size, "%s/../assets", config_dir);
    snprintf(command, sizeof command, "rm '%s' && cp -r '%s/assets' '%s'", assets, MARIONETTE_SOURCE_DIR, assets);
    CHECK(system(command) == 0);
}

/* A missing texture: said on the HUD and stderr with its path; the body draws with the magenta checker. */
static void test_missing_texture(void)
{
    char config_dir[512], assets[600], texture[700];
    make_scratch_config_and_assets(config_dir, sizeof config_dir, assets, sizeof assets);
    snprintf(texture, sizeof texture, "%s/textures/mannequin.tga", assets);
    CHECK(unlink(texture) == 0);
    demo_options options = options_for(config_dir, NULL, NULL, 20);
    CHECK(demo_start(&d, &options));
    while (demo_frame(d))
        continue;
    static uint8_t rgba[WIDTH * HEIGHT * 4];
    CHECK(platform_read_pixels(rgba));
    save_picture("demo_missing_texture.png");
    int magenta = 0;
    for (int i = 0; i < WIDTH * HEIGHT; ++i)
        magenta += rgba[4 * i] > 150 && rgba[4 * i + 1] < 80 && rgba[4 * i + 2] > 120;
    printf("  missing texture: %d message(s): %s; %d magenta pixels\n", demo_message_count(d),
           demo_message_count(d) ? demo_message(d, 0) : "", magenta);
    CHECK(demo_player(d) != NULL && demo_message_count(d) == 1);
    CHECK(demo_message_count(d) == 1 && strstr(demo_message(d, 0), "mannequin.tga") && strstr(demo_message(d, 0), "placeholder"));
    /* Said at the mesh's shader statement: models/mannequin.md5mesh:LINE. */
    char *mesh_text = test_read_file(MARIONETTE_SOURCE_DIR "/assets/models/mannequin.md5mesh", NULL);
    int shader_line = 1;
    for (const char *c = mesh_text; c && *c && strncmp(c, "\tshader", 7) != 0; ++c)
        shader_line += *c == '\n';
    free(mesh_text);
    char where[64];
    snprintf(where, sizeof where, "mannequin.md5mesh:%d: ", shader_line);
    CHECK(shader_line > 1 && demo_message_count(d) == 1 && strstr(demo_message(d, 0), where) != NULL);
    /* It loaded: the status says so, not that a last good configuration keeps running. */
    printf("  status: %s\n", demo_status(d));
    CHECK(strcmp(demo_status(d), "loaded, with 1 warning (each listed with its file:line)") == 0);
    CHECK(magenta > 100);
    CHECK(demo_progress_of(d).gl_error_frames == 0);
    demo_finish(d);
}

/* The characters' maps when they go wrong: a missing one says nothing (drawn without it); a broken file is
 * one warning at the mesh's shader line, naming the file; one of another size than its texture is one
 * warning there too; the rest plays. */
static void test_broken_and_missing_maps(void)
{
    char config_dir[512], assets[600], path[700];
    make_scratch_config_and_assets(config_dir, sizeof config_dir, assets, sizeof assets);
    snprintf(path, sizeof path, "%s/textures/mannequin_s.tga", assets);
    CHECK(unlink(path) == 0);
    snprintf(path, sizeof path, "%s/textures/robot_local.tga", assets);
    CHECK(test_write_bytes(path, "not a targa file at all", 23));
    /* A valid 8 x 8 TGA where the 256 x 256 normal map was. */
    uint8_t small[18 + 8 * 8 * 3] = {0, 0, 2};
    small[12] = small[14] = 8;
    small[16] = 24;
    memset(small + 18, 128, sizeof small - 18);
    snprintf(path, sizeof path, "%s/textures/mannequin_local.tga", assets);
    CHECK(test_write_bytes(path, small, sizeof small));
    demo_options options = options_for(config_dir, NULL, NULL, 20);
    options.crowd = 4;
    CHECK(demo_start(&d, &options));
    while (demo_frame(d))
        continue;
    int count = demo_message_count(d);
    for (int i = 0; i < count; ++i)
        printf("  %s\n", demo_message(d, i));
    CHECK(count == 2);
    bool broken = false, sized = false;
    for (int i = 0; i < count; ++i) {
        broken = broken || (strstr(demo_message(d, i), "robot.md5mesh:") &&
                            strstr(demo_message(d, i), "robot: normal map ") &&
                            strstr(demo_message(d, i), "robot_local.tga") && strstr(demo_message(d, i), "drawn without it"));
        sized = sized || (strstr(demo_message(d, i), "mannequin.md5mesh:") &&
                          strstr(demo_message(d, i), "its normal map is 8 x 8 pixels, its image 256 x 256"));
    }
    CHECK(broken && sized);
    CHECK(demo_player(d) != NULL && crowd_count(demo_crowd(d)) == 4);
    CHECK(demo_progress_of(d).gl_error_frames == 0);
    demo_finish(d);
}

/* A mesh whose shader is a Windows path from the exporter's disk: its file name is found in the character's
 * textures folder, nothing is reported, nothing is magenta. A second character on the same mesh, dressed by
 * an override in another image, gets a GPU mesh of its own (the first keeps its own). */
static void test_windows_shader_and_per_character_textures(void)
{
    char config_dir[512], assets[600], from[700], to[700];
    make_scratch_config_and_assets(config_dir, sizeof config_dir, assets, sizeof assets);
    snprintf(from, sizeof from, "%s/models/mannequin.md5mesh", assets);
    CHECK(edit_file(from, "shader \"../textures/mannequin.tga\"",
                    "shader \"f:\\md5viewer\\models\\mannequin_body.tga\""));
    snprintf(from, sizeof from, "%s/textures/mannequin.tga", assets);
    snprintf(to, sizeof to, "%s/textures/mannequin_body.tga", assets);
    CHECK(rename(from, to) == 0);
    snprintf(from, sizeof from, "%s/characters.ini", config_dir);
    FILE *ini = fopen(from, "a");
    CHECK(ini != NULL);
    if (ini) {
        fputs("\n[painted]\nmesh = ../assets/models/mannequin.md5mesh\nclips = clips.ini\nstates = states.ini\n"
              "texture.f:\\md5viewer\\models\\mannequin_body.tga = ../assets/textures/robot.tga\n", ini);
        fclose(ini);
    }
    demo_options options = options_for(config_dir, NULL, NULL, 0);
    CHECK(demo_start(&d, &options));
    for (int i = 0; i < 20; ++i)
        demo_frame(d);
    static uint8_t rgba[WIDTH * HEIGHT * 4];
    CHECK(platform_read_pixels(rgba));
    save_picture("demo_windows_shader.png");
    int magenta = 0, mannequin = 0;
    for (int i = 0; i < WIDTH * HEIGHT; ++i) {
        magenta += rgba[4 * i] > 150 && rgba[4 * i + 1] < 80 && rgba[4 * i + 2] > 120;
        mannequin += is_mannequin(&rgba[4 * i]);
    }
    printf("  Windows shader path: %d message(s)%s%s; %d mannequin pixels, %d magenta\n", demo_message_count(d),
           demo_message_count(d) ? ": " : "", demo_message_count(d) ? demo_message(d, 0) : "", mannequin, magenta);
    CHECK(demo_player(d) != NULL && demo_message_count(d) == 0);
    CHECK(mannequin > 200 && magenta == 0); /* the placeholder leaves next to no wood colour */
    const anim_character *plain = anim_config_find_character(demo_anim_config(d), "mannequin");
    const anim_character *painted = anim_config_find_character(demo_anim_config(d), "painted");
    CHECK(plain && painted && plain->model == painted->model);
    if (plain && painted) {
        CHECK_STR_CONTAINS(plain->texture_paths[0], "textures/mannequin_body.tga");
        CHECK_STR_CONTAINS(painted->texture_paths[0], "textures/robot.tga");
        gfx_mesh plain_mesh = scene_mesh(demo_scene(d), plain), painted_mesh = scene_mesh(demo_scene(d), painted);
        CHECK(plain_mesh.id != 0 && painted_mesh.id != 0 && plain_mesh.id != painted_mesh.id);
        CHECK(demo_scene(d)->model_count == 3); /* mannequin twice, robot once */
        /* The image edited on disk: the config reloads and the mesh drawn with it is made again (the
         * painted one, whose image did not change, is kept). */
        test_touch_forward(to, 5);
        for (int i = 0; i < 5; ++i)
            demo_frame(d);
        plain = anim_config_find_character(demo_anim_config(d), "mannequin");
        painted = anim_config_find_character(demo_anim_config(d), "painted");
        CHECK(plain && painted && demo_scene(d)->model_count == 3);
        if (plain && painted) {
            CHECK(scene_mesh(demo_scene(d), plain).id != 0 && scene_mesh(demo_scene(d), plain).id != plain_mesh.id);
            CHECK(scene_mesh(demo_scene(d), painted).id == painted_mesh.id);
        }
    }
    CHECK(demo_progress_of(d).gl_error_frames == 0);
    demo_finish(d);
}

/* Edit `path` in place (same size, same inode) replacing `from` by `to` (as long), then put the file's
 * modification time back: the second half of a save landing in the tick of the first, which a watcher of
 * times (and of milliseconds in particular) cannot see. */
static void edit_in_same_tick(const char *path, const char *from, const char *to)
{
    CHECK(strlen(from) == strlen(to));
    struct stat before;
    CHECK(stat(path, &before) == 0);
    char *text = test_read_file(path, NULL);
    char *at = text ? strstr(text, from) : NULL;
    CHECK(at != NULL);
    if (at) {
        memcpy(at, to, strlen(to));
        FILE *f = fopen(path, "r+b");
        CHECK(f != NULL && fwrite(text, 1, strlen(text), f) == strlen(text));
        if (f)
            fclose(f);
    }
    free(text);
    struct timespec times[2] = {{0, UTIME_OMIT}, before.st_mtim};
    CHECK(utimensat(AT_FDCWD, path, times, 0) == 0);
    struct stat after;
    CHECK(stat(path, &after) == 0 && after.st_size == before.st_size && after.st_ino == before.st_ino &&
          after.st_mtim.tv_sec == before.st_mtim.tv_sec && after.st_mtim.tv_nsec == before.st_mtim.tv_nsec);
}

/* The line (1-based) of the first line of a file that starts with `start`; 0 if none. */
static int line_starting(const char *path, const char *start)
{
    char *text = test_read_file(path, NULL);
    int line = 1, found = 0;
    for (const char *c = text; c && *c && !found; ++c) {
        if ((c == text || c[-1] == '\n') && strncmp(c, start, strlen(start)) == 0)
            found = line;
        line += *c == '\n';
    }
    free(text);
    return found;
}

/* A save in two steps inside one time tick is reloaded (demo.ini, and a character's states.ini), and the
 * status line says what each reload did: adopted clean, adopted with warnings (an image that cannot be
 * decoded, a [player] character that does not exist), or refused with errors. */
static void test_reload_split_saves_and_status(void)
{
    char config_dir[512], settings[600], states[600], characters[600], bad_image[600];
    make_scratch_config(config_dir, sizeof config_dir);
    snprintf(settings, sizeof settings, "%s/demo.ini", config_dir);
    snprintf(states, sizeof states, "%s/states.ini", config_dir);
    snprintf(characters, sizeof characters, "%s/characters.ini", config_dir);
    snprintf(bad_image, sizeof bad_image, "%s/bad.tga", config_dir);
    demo_options options = options_for(config_dir, NULL, NULL, 0);
    CHECK(demo_start(&d, &options));
    for (int i = 0; i < 5; ++i)
        demo_frame(d);
    CHECK(demo_message_count(d) == 0 && demo_settings(d)->player.walk_speed == 1.4f);

    /* demo.ini: same size, same time, other bytes. */
    edit_in_same_tick(settings, "walk_speed = 1.4", "walk_speed = 1.9");
    for (int i = 0; i < 3; ++i)
        demo_frame(d);
    printf("  demo.ini saved within one tick: walk_speed %.1f, status \"%s\"\n", (double)demo_settings(d)->player.walk_speed,
           demo_status(d));
    CHECK(demo_settings(d)->player.walk_speed == 1.9f);
    CHECK(strcmp(demo_status(d), "reloaded the configuration") == 0 && demo_message_count(d) == 0);

    /* states.ini, watched by the character config: the same. */
    const anim_config *before = demo_anim_config(d);
    edit_in_same_tick(states, "[state walk]\nclip = walk", "[state walk]\nclip = run ");
    for (int i = 0; i < 3; ++i)
        demo_frame(d);
    const anim_character *mannequin = anim_config_find_character(demo_anim_config(d), "mannequin");
    int walk = mannequin ? state_machine_find_state(&mannequin->machine, "walk") : -1;
    printf("  states.ini saved within one tick: config %s, status \"%s\"\n", demo_anim_config(d) != before ? "new" : "old",
           demo_status(d));
    CHECK(demo_anim_config(d) != before && walk >= 0);
    CHECK(walk >= 0 && strcmp(mannequin->clips[mannequin->machine.states[walk].clip].name, "run") == 0);
    CHECK(strcmp(demo_status(d), "reloaded the configuration") == 0 && demo_message_count(d) == 0);

    /* Adopted with a warning: an image that is there but cannot be decoded (the placeholder is drawn). */
    test_write_file(bad_image, "not an image");
    CHECK(edit_file(characters, "[robot]\n", "[robot]\ntexture.../textures/robot.tga = bad.tga\n"));
    before = demo_anim_config(d);
    for (int i = 0; i < 3; ++i)
        demo_frame(d);
    printf("  undecodable image: %s\n  status: %s\n", demo_message_count(d) ? demo_message(d, 0) : "(none)", demo_status(d));
    CHECK(demo_anim_config(d) != before && demo_message_count(d) == 1);
    CHECK(demo_message_count(d) == 1 && strstr(demo_message(d, 0), "bad.tga") && strstr(demo_message(d, 0), "placeholder"));
    CHECK(strcmp(demo_status(d), "reloaded, with 1 warning (each listed with its file:line)") == 0);

    /* Adopted with a warning: [player] names no character; the first plays. */
    CHECK(edit_file(settings, "character = mannequin", "character = nobody"));
    for (int i = 0; i < 3; ++i)
        demo_frame(d);
    char expected[1024];
    snprintf(expected, sizeof expected,
             "%s:%d: warning: [player] character 'nobody' is not in characters.ini (it has mannequin, robot): "
             "playing 'mannequin'", settings, line_starting(settings, "character = nobody"));
    printf("  unknown player: %s\n  status: %s\n", demo_message_count(d) ? demo_message(d, 0) : "(none)", demo_status(d));
    CHECK(demo_message_count(d) == 1 && strcmp(demo_message(d, 0), expected) == 0);
    CHECK(strcmp(demo_status(d), "reloaded, with 1 warning (each listed with its file:line)") == 0);
    CHECK(demo_player(d) && strcmp(animator_character(player_animator(demo_player(d)))->name, "mannequin") == 0);

    /* Refused: an error in states.ini; the last good configuration keeps running. */
    before = demo_anim_config(d);
    CHECK(edit_file(states, "[walk -> run]\nwhen = speed > 2.6", "[walk -> run]\nwhen = speed >> 2.6"));
    for (int i = 0; i < 3; ++i)
        demo_frame(d);
    printf("  broken states.ini: %s\n  status: %s\n", demo_message_count(d) ? demo_message(d, 0) : "(none)", demo_status(d));
    CHECK(demo_anim_config(d) == before && demo_message_count(d) == 1 && strstr(demo_message(d, 0), "states.ini:"));
    CHECK(strcmp(demo_status(d), "refused: 1 error, the last good configuration keeps running") == 0);
    CHECK(demo_progress_of(d).gl_error_frames == 0);
    demo_finish(d);
}

/* ---- No heap allocation per frame ------------------------------------------------------------------------ */

/* ---- The state machine panel (F6) and picking --------------------------------------------------------- */

static state_panel_lines panel;

/* The panel as the demo would draw it now; the first line containing text, or -1. */
static int panel_line(const char *text)
{
    demo_state_panel(d, &panel);
    for (int i = 0; i < panel.count; ++i)
        if (strstr(panel.text[i], text))
            return i;
    return -1;
}

static void print_panel(void)
{
    demo_state_panel(d, &panel);
    for (int i = 0; i < panel.count; ++i)
        printf("  |%s\n", panel.text[i]);
}

static void run_until(double clock)
{
    while (demo_progress_of(d).clock < clock - 1e-9 && demo_frame(d))
        continue;
}

/* Where an entity's box as picking sees it (its skinned mesh as posed) shows in the picture: the rectangle
 * around its corners and its centre (pixels from the top-left) and the centre's depth. A box reaching
 * behind the eye covers the whole picture. */
typedef struct screen_box {
    float left, top, right, bottom;
    float x, y, depth;
} screen_box;

static bool project_box(const animator *animator, mat4 placement, screen_box *out)
{
    mat4 world, turn, model, view, projection, view_projection, to_screen;
    float bounds[2][3];
    vec3 eye;
    if (!scene_culling_box(animator, placement, world, bounds) || !demo_pose_bounds(d, animator, bounds))
        return false;
    gfx_z_up_to_y_up(turn);
    glm_mat4_mul(world, turn, model);
    camera_matrices(demo_camera(d), (float)WIDTH / (float)HEIGHT, view, projection, eye);
    glm_mat4_mul(projection, view, view_projection);
    glm_mat4_mul(view_projection, model, to_screen);
    *out = (screen_box){INFINITY, INFINITY, -INFINITY, -INFINITY, 0, 0, 0};
    int behind = 0;
    for (int c = 0; c < 9; ++c) {
        /* The eight corners, then the centre. */
        vec4 point = {bounds[c & 1][0], bounds[(c >> 1) & 1][1], bounds[(c >> 2) & 1][2], 1.0f}, clip;
        if (c == 8)
            for (int k = 0; k < 3; ++k)
                point[k] = 0.5f * (bounds[0][k] + bounds[1][k]);
        glm_mat4_mulv(to_screen, point, clip);
        if (clip[3] <= 0.0f) {
            behind++;
            continue;
        }
        float x = (clip[0] / clip[3] * 0.5f + 0.5f) * (float)WIDTH, y = (0.5f - clip[1] / clip[3] * 0.5f) * (float)HEIGHT;
        if (c == 8) {
            out->x = x, out->y = y, out->depth = clip[3];
        } else {
            out->left = fminf(out->left, x), out->right = fmaxf(out->right, x);
            out->top = fminf(out->top, y), out->bottom = fmaxf(out->bottom, y);
        }
    }
    if (behind == 9)
        return false; /* all of it behind the eye: nowhere in the picture */
    if (behind > 0)
        *out = (screen_box){-INFINITY, -INFINITY, INFINITY, INFINITY, NAN, NAN, NAN};
    return true;
}

static bool box_covers(const screen_box *box, float x, float y)
{
    return x >= box->left && x <= box->right && y >= box->top && y <= box->bottom;
}

/* A crowd member nothing else stands in front of: its box's centre is in the picture and in no other
 * entity's box as the picture shows it (the player's included), so the ray through that pixel meets its
 * box alone. The nearest such member after `skip` nearer ones, with the pixel; -1 when there is none. */
static int clear_member_on_screen(int *x, int *y, int skip)
{
    enum { MEMBERS_MAX = 64 };
    screen_box boxes[MEMBERS_MAX + 1];
    bool known[MEMBERS_MAX + 1] = {0};
    int count = crowd_count(demo_crowd(d)) < MEMBERS_MAX ? crowd_count(demo_crowd(d)) : MEMBERS_MAX;
    mat4 placement;
    for (int i = 0; i < count; ++i) {
        crowd_world(demo_crowd(d), i, placement);
        known[i] = project_box(crowd_animator(demo_crowd(d), i), placement, &boxes[i]);
    }
    player_world_matrix(demo_player(d), placement);
    known[count] = project_box(player_animator(demo_player(d)), placement, &boxes[count]);
    int chosen = -1;
    float after_depth = -INFINITY; /* the depth of the last one skipped */
    for (int pass = 0; pass <= skip; ++pass) {
        if (pass > 0) {
            if (chosen < 0)
                return -1;
            after_depth = boxes[chosen].depth;
            chosen = -1;
        }
        for (int i = 0; i < count; ++i) {
            float px = floorf(boxes[i].x) + 0.5f, py = floorf(boxes[i].y) + 0.5f; /* the pixel's centre */
            if (!known[i] || !(px >= 0.0f && px < (float)WIDTH && py >= 0.0f && py < (float)HEIGHT) ||
                !(boxes[i].depth > after_depth))
                continue;
            bool clear = true;
            for (int j = 0; j <= count && clear; ++j)
                clear = j == i || !known[j] || !box_covers(&boxes[j], px, py);
            if (clear && (chosen < 0 || boxes[i].depth < boxes[chosen].depth)) {
                chosen = i;
                *x = (int)px;
                *y = (int)py;
            }
        }
    }
    return chosen;
}

/* A crowd member whose box's centre is in the picture and not where the player's box is: a click there
 * picks a member (that one, or another in front of it). -1 when there is none. */
static int member_in_front_of_the_player(int *x, int *y)
{
    screen_box player, member;
    mat4 placement;
    player_world_matrix(demo_player(d), placement);
    bool player_known = project_box(player_animator(demo_player(d)), placement, &player);
    for (int i = 0; i < crowd_count(demo_crowd(d)); ++i) {
        crowd_world(demo_crowd(d), i, placement);
        if (!project_box(crowd_animator(demo_crowd(d), i), placement, &member) || !(member.x >= 0.0f && member.x < WIDTH) ||
            !(member.y >= 0.0f && member.y < HEIGHT) || (player_known && box_covers(&player, member.x, member.y)))
            continue;
        *x = (int)member.x;
        *y = (int)member.y;
        return i;
    }
    return -1;
}

/* The left button down at (x, y), moved by travel pixels with it held, and up: a click when travel is
 * small, a drag (orbiting the camera) otherwise. */
static void push_left_button(int x, int y, int travel)
{
    SDL_Event down = {.type = SDL_MOUSEBUTTONDOWN};
    down.button.button = SDL_BUTTON_LEFT;
    down.button.x = x, down.button.y = y;
    CHECK(SDL_PushEvent(&down) == 1);
    if (travel) {
        SDL_Event motion = {.type = SDL_MOUSEMOTION};
        motion.motion.xrel = travel;
        motion.motion.x = x + travel, motion.motion.y = y;
        motion.motion.state = SDL_BUTTON_LMASK;
        CHECK(SDL_PushEvent(&motion) == 1);
    }
    SDL_Event up = down;
    up.type = SDL_MOUSEBUTTONUP;
    up.button.x = x + travel;
    CHECK(SDL_PushEvent(&up) == 1);
}

/* A scratch config whose crowd stands apart (members 3.5 m apart, straying 1 m) and a camera far enough
 * back to have all of them in front of it (and the sky at the top): some members stand clear of the others
 * in the picture. */
static void make_sparse_crowd_config(char *config_dir, size_t size)
{
    char settings[600];
    make_scratch_config(config_dir, size);
    snprintf(settings, sizeof settings, "%s/demo.ini", config_dir);
    CHECK(edit_file(settings, "\nspacing = 1.6\n", "\nspacing = 3.5\n"));
    CHECK(edit_file(settings, "\nwander_radius = 6\n", "\nwander_radius = 1\n"));
    CHECK(edit_file(settings, "\ndistance = 6\n", "\ndistance = 12\n"));
}

/* F6 shows the player's machine: the state it is in marked, the speed parameter's value, the transitions
 * taken (walking, then stopping). A click on a crowd member shows its machine instead, from then on, with
 * its transitions as they come; a drag is no click; a click on the sky (an input script's `click`) goes
 * back to the player, and so does clearing the crowd. */
static void test_state_machine_panel(void)
{
    char config_dir[512], script[600];
    make_sparse_crowd_config(config_dir, sizeof config_dir);
    write_script(script, sizeof script, config_dir, "panel",
                 "0.1 tap F6\n0.5 press W\n2.0 release W\n12.0 click 240 0 ; the sky\n13.0 tap X\n");
    demo_options options = options_for(config_dir, script, NULL, 0);
    options.crowd = 8;
    CHECK(demo_start(&d, &options));
    CHECK(!demo_state_machine_shown(d) && demo_tracked(d) == NULL);
    hud_view view;
    demo_hud_view(d, &view);
    CHECK(view.state_machine == NULL);

    run_until(1.5);
    CHECK(demo_state_machine_shown(d));
    demo_hud_view(d, &view);
    CHECK(view.state_machine == demo_shown_state_panel(d) && demo_shown_state_panel(d)->count > 0);
    print_panel();
    CHECK(panel_line("state machine: the player (mannequin)") == 0);
    int current = panel_line("> walk ");
    CHECK(current >= 0 && panel.styles[current] == STATE_PANEL_CURRENT);
    CHECK(panel_line("  idle") >= 0 && panel.styles[panel_line("  idle")] == STATE_PANEL_PLAIN);
    float speed = -1.0f;
    CHECK(animator_get(player_animator(demo_player(d)), "speed", &speed) && speed > 1.0f);
    char expected[2 * ANIM_NAME_MAX + 16];
    snprintf(expected, sizeof expected, "speed %.2f", (double)speed);
    CHECK(panel_line(expected) >= 0);
    int history = panel_line("last transitions");
    CHECK(history >= 0 && strncmp(panel.text[history + 1], "  idle -> walk (speed > 0.2) fade 0.25 s, ", 42) == 0);

    run_until(2.8); /* stopped */
    print_panel();
    history = panel_line("last transitions");
    CHECK(history >= 0 && strncmp(panel.text[history + 1], "  walk -> idle (speed < 0.15) fade 0.30 s, ", 43) == 0);
    CHECK(history >= 0 && strncmp(panel.text[history + 2], "  idle -> walk (speed > 0.2)", 28) == 0);
    CHECK(panel_line("> idle ") >= 0);

    /* A drag from a member orbits and picks nothing; a click on it picks it. */
    int x = 0, y = 0, member = clear_member_on_screen(&x, &y, 0);
    CHECK(member >= 0);
    if (member < 0) {
        demo_finish(d);
        return;
    }
    printf("  clicking crowd member %d at (%d, %d)\n", member, x, y);
    push_left_button(x, y, 30);
    demo_frame(d);
    CHECK(demo_tracked(d) == NULL);
    member = clear_member_on_screen(&x, &y, 0); /* the drag turned the camera */
    push_left_button(x, y, 0);
    demo_frame(d);
    CHECK(member >= 0 && demo_tracked(d) == crowd_animator(demo_crowd(d), member) && demo_tracked_index(d) == member);
    char title[96];
    snprintf(title, sizeof title, "state machine: crowd #%d (%s)", member, crowd_character(demo_crowd(d), member)->name);
    CHECK(panel_line(title) == 0);
    CHECK(panel_line("  none yet") >= 0); /* its history starts now */
    print_panel();
    save_picture("demo_state_panel.png");

    /* Its transitions, as they come (the crowd steps it; the panel sees it after). */
    char before[ANIM_NAME_MAX], after[ANIM_NAME_MAX] = "";
    snprintf(before, sizeof before, "%s", animator_state_name(demo_tracked(d)));
    while (demo_progress_of(d).clock < 11.9 && !after[0] && demo_frame(d))
        if (strcmp(animator_state_name(demo_tracked(d)), before) != 0)
            snprintf(after, sizeof after, "%s", animator_state_name(demo_tracked(d)));
    printf("  member %d went from %s to %s at %.2f s\n", member, before, after, demo_progress_of(d).clock);
    CHECK(after[0] != '\0');
    snprintf(expected, sizeof expected, "  %s -> %s (", before, after);
    history = panel_line("last transitions");
    CHECK(history >= 0 && strncmp(panel.text[history + 1], expected, strlen(expected)) == 0);
    CHECK(history >= 0 && !strstr(panel.text[history + 1], "(?)") && !strstr(panel.text[history + 1], "fade ?"));
    snprintf(expected, sizeof expected, "> %s ", after);
    CHECK(panel_line(expected) >= 0 && panel.styles[panel_line(expected)] == STATE_PANEL_CURRENT);
    print_panel();

    /* The script clicks the sky at 12 s: the player again, with a new history. */
    run_until(12.2);
    CHECK(demo_tracked(d) == NULL);
    CHECK(panel_line("state machine: the player (mannequin)") == 0 && panel_line("  none yet") >= 0);

    /* Picked again, then the crowd is cleared (13 s): back to the player. */
    member = clear_member_on_screen(&x, &y, 0);
    push_left_button(x, y, 0);
    demo_frame(d);
    CHECK(member >= 0 && demo_tracked(d) == crowd_animator(demo_crowd(d), member));
    run_until(13.2);
    CHECK(crowd_count(demo_crowd(d)) == 0 && demo_tracked(d) == NULL && panel_line("the player") == 0);
    CHECK(demo_progress_of(d).gl_error_frames == 0);
    demo_finish(d);
}

/* Whether the ray through pixel (x, y) enters an entity's culling box, and how far along. */
static bool ray_meets_culling_box(const animator *animator, mat4 placement, int x, int y, float *distance)
{
    mat4 world, turn, model, view, projection;
    float bounds[2][3];
    vec3 eye;
    pick_ray ray;
    camera_matrices(demo_camera(d), (float)WIDTH / (float)HEIGHT, view, projection, eye);
    if (!pick_ray_through(view, projection, WIDTH, HEIGHT, (float)x + 0.5f, (float)y + 0.5f, &ray) ||
        !scene_culling_box(animator, placement, world, bounds))
        return false;
    gfx_z_up_to_y_up(turn);
    glm_mat4_mul(world, turn, model);
    return pick_ray_box(&ray, model, (const float(*)[3])bounds, distance);
}

/* In a dense crowd a member's culling box (every pose of its clips, on any body) reaches over its
 * neighbours, and one near the camera covers much of the picture: a click on a member standing clear
 * behind such a box picks that member, not the box in front (the culling box alone picked the one in
 * front). */
static void test_click_picks_the_body_not_its_loose_box(void)
{
    char script[512];
    snprintf(script, sizeof script, "%s/demo_pick_dense.txt", MARIONETTE_BUILD_DIR);
    FILE *f = fopen(script, "w");
    CHECK(f != NULL);
    if (!f)
        return;
    fputs("0.1 tap F6\n", f);
    fclose(f);
    demo_options options = options_for(MARIONETTE_SOURCE_DIR "/config", script, NULL, 0);
    options.crowd = 40;
    CHECK(demo_start(&d, &options));
    run_until(1.0);
    /* A member clear of the others' bodies whose pixel some other box, entered nearer, covers. */
    int behind = -1, in_front = -1, x = 0, y = 0;
    for (int tries = 0; tries < 40 && behind < 0; ++tries) {
        int member = clear_member_on_screen(&x, &y, tries);
        if (member < 0)
            break;
        mat4 placement;
        float own = 0.0f, other = 0.0f;
        crowd_world(demo_crowd(d), member, placement);
        if (!ray_meets_culling_box(crowd_animator(demo_crowd(d), member), placement, x, y, &own))
            continue;
        for (int i = 0; i < crowd_count(demo_crowd(d)) && behind < 0; ++i) {
            crowd_world(demo_crowd(d), i, placement);
            if (i != member && ray_meets_culling_box(crowd_animator(demo_crowd(d), i), placement, x, y, &other) &&
                other < own) {
                behind = member;
                in_front = i;
            }
        }
    }
    printf("  member %d at (%d, %d), behind the culling box of member %d\n", behind, x, y, in_front);
    CHECK(behind >= 0);
    double start = test_seconds();
    for (int i = 0; i < 20; ++i)
        CHECK(demo_pick(d, (float)x + 0.5f, (float)y + 0.5f) == behind);
    printf("  a click among %d members and the player: %.0f us\n", crowd_count(demo_crowd(d)),
           (test_seconds() - start) / 20.0 * 1e6);
    push_left_button(x, y, 0);
    demo_frame(d);
    CHECK(behind >= 0 && demo_tracked(d) == crowd_animator(demo_crowd(d), behind));
    CHECK(demo_progress_of(d).gl_error_frames == 0);
    demo_finish(d);
}

/* Replace every occurrence of from in a file by to; false when there was none. */
static bool edit_file_everywhere(const char *path, const char *from, const char *to)
{
    bool any = false;
    while (edit_file(path, from, to))
        any = true;
    return any;
}

/* A hot reload of states.ini renumbers states and parameters and removes the state the entities stand in:
 * the panel keeps the transitions taken before by name, marks where each entity is now, and records no
 * transition for the move the reload made (not for the player, whose decisions it is handed, nor for a
 * crowd member, which it only looks at). */
static void test_state_machine_panel_follows_reloads(void)
{
    char config_dir[512], states[600], script[600];
    make_sparse_crowd_config(config_dir, sizeof config_dir);
    snprintf(states, sizeof states, "%s/states.ini", config_dir);
    write_script(script, sizeof script, config_dir, "panel_reload",
                 "0.1 tap F6\n0.3 press W\n1.2 release W\n2.6 tap P\n");
    demo_options options = options_for(config_dir, script, NULL, 0);
    options.crowd = 8;
    CHECK(demo_start(&d, &options));
    run_until(2.7);
    CHECK(demo_progress_of(d).paused && demo_state_machine_shown(d));
    int history = panel_line("last transitions");
    CHECK(history >= 0 && strncmp(panel.text[history + 1], "  walk -> idle (speed < 0.15) fade 0.30 s", 41) == 0);
    CHECK(strcmp(player_state_name(demo_player(d)), "idle") == 0);

    /* idle becomes `standing`; a state and a parameter are put before all the others. */
    CHECK(edit_file_everywhere(states, "start = idle", "start = standing"));
    CHECK(edit_file_everywhere(states, "[state idle]", "[state standing]"));
    CHECK(edit_file_everywhere(states, "[idle ->", "[standing ->"));
    CHECK(edit_file_everywhere(states, "-> idle]", "-> standing]"));
    CHECK(edit_file(states, "\n[state standing]\n",
                    "\n[state aaa_first]\nclip = idle\n[standing -> aaa_first]\nwhen = time < 0\n\n[state standing]\n"));
    CHECK(edit_file(states, "\n[parameters]\n", "\n[parameters]\nalpha = number 0.5\n"));
    for (int i = 0; i < 5; ++i)
        demo_frame(d);
    printf("  after the reload: %s; player in %s\n", demo_status(d), player_state_name(demo_player(d)));
    CHECK(demo_message_count(d) == 0 && strstr(demo_status(d), "reloaded") != NULL);
    print_panel();
    CHECK(strcmp(player_state_name(demo_player(d)), "standing") == 0);
    CHECK(panel_line("states (10)") >= 0 && panel_line("alpha 0.50") >= 0);
    int current = panel_line("> standing ");
    CHECK(current >= 0 && panel.styles[current] == STATE_PANEL_CURRENT);
    history = panel_line("last transitions");
    CHECK(history >= 0 && strncmp(panel.text[history + 1], "  walk -> idle (speed < 0.15) fade 0.30 s", 41) == 0);
    CHECK(history >= 0 && strncmp(panel.text[history + 2], "  idle -> walk (speed > 0.2) fade 0.25 s", 40) == 0);
    CHECK(history >= 0 && history + 3 == panel.count);

    /* A crowd member picked while paused, then its state renamed under it: nothing taken, before or after
     * the pause ends. */
    int x = 0, y = 0, member = clear_member_on_screen(&x, &y, 0);
    push_left_button(x, y, 0);
    demo_frame(d);
    CHECK(member >= 0 && demo_tracked(d) == crowd_animator(demo_crowd(d), member));
    char was[ANIM_NAME_MAX];
    snprintf(was, sizeof was, "%s", demo_tracked(d) ? animator_state_name(demo_tracked(d)) : "");
    printf("  member %d is in %s\n", member, was);
    CHECK(edit_file_everywhere(states, "standing", "resting"));
    for (int i = 0; i < 5; ++i)
        demo_frame(d);
    CHECK(demo_message_count(d) == 0 && demo_tracked(d) == crowd_animator(demo_crowd(d), member));
    CHECK(demo_tracked_history(d)->count == 0);
    demo_press(d, GAME_ACTION_PAUSE);
    for (int i = 0; i < 3; ++i)
        demo_frame(d);
    print_panel();
    for (int i = 0; i < demo_tracked_history(d)->count; ++i)
        CHECK(strcmp(state_panel_transition_at(demo_tracked_history(d), i)->from, "standing") != 0);
    char marked[ANIM_NAME_MAX + 4];
    snprintf(marked, sizeof marked, "> %s ", animator_state_name(demo_tracked(d)));
    CHECK(panel_line(marked) >= 0);
    CHECK(demo_progress_of(d).gl_error_frames == 0);
    demo_finish(d);
}

static void test_steady_frames_allocate_nothing(void)
{
    char script[512];
    snprintf(script, sizeof script, "%s/demo_steady.txt", MARIONETTE_BUILD_DIR);
    FILE *f = fopen(script, "w");
    fputs("0.1 press W\n0.5 press Left Shift\n1.0 release Left Shift\n1.2 tap E\n1.5 drag 40 5\n1.6 wheel 1\n", f);
    fclose(f);
    demo_options options = options_for(MARIONETTE_SOURCE_DIR "/config", script, NULL, 0);
    options.crowd = 40;
    CHECK(demo_start(&d, &options));
    CHECK(heap_calls > 0); /* the counter sees our code: starting up allocates */
    for (int i = 0; i < 30; ++i)
        demo_frame(d);
    /* Every view on, then the CPU path: the first frame of each may size its buffers once. The state
     * machine panel on too, following a crowd member. */
    demo_press(d, GAME_ACTION_SKELETON);
    demo_press(d, GAME_ACTION_BOUNDS);
    demo_press(d, GAME_ACTION_NORMALS);
    demo_press(d, GAME_ACTION_STATE_MACHINE);
    int x = 0, y = 0;
    CHECK(member_in_front_of_the_player(&x, &y) >= 0);
    push_left_button(x, y, 0);
    demo_frame(d);
    CHECK(demo_tracked(d) != NULL); /* that member, or one in front of it */
    demo_press(d, GAME_ACTION_SKINNING);
    demo_frame(d);
    CHECK(demo_views(d)->cpu_skinning);
    long before = heap_calls;
    for (int i = 0; i < 90; ++i) {
        if (i == 45)
            demo_press(d, GAME_ACTION_SKINNING); /* back to the GPU */
        if (i == 30 || i == 60)
            demo_press(d, GAME_ACTION_SKIN_BLEND); /* as characters -> linear -> dual quaternions */
        demo_frame(d);
    }
    long calls = heap_calls - before;
    printf("  90 frames (player walking, running, waving; 40 wandering; every view and the state machine's; "
           "both skinning paths, linear and dual quaternions): "
           "%ld heap calls from our code\n", calls);
    CHECK(calls == 0);
    CHECK(demo_progress_of(d).gl_error_frames == 0 && crowd_count(demo_crowd(d)) == 40);
    demo_finish(d);
}

/* ---- Look-at ---------------------------------------------------------------------------------------------- */

/* The player turns its head to the camera once the camera is in front of it, the crowd around it watches
 * it, the view draws their lines and the HUD says the player's weight; with the camera behind again the
 * player's head fades back to its animation. */
static void test_look_at(void)
{
    char script[512];
    snprintf(script, sizeof script, "%s/demo_look_script.txt", MARIONETTE_BUILD_DIR);
    FILE *f = fopen(script, "w");
    CHECK(f != NULL);
    if (!f)
        return;
    /* 0.3 degrees a pixel: 540 pixels take the camera 162 degrees round, in front of the player and a
     * little to its side; at 3 s it goes back behind. */
    fputs("0.1 drag 540 0\n0.2 tap T\n3.0 drag -540 0\n", f);
    fclose(f);
    demo_options options = options_for(MARIONETTE_SOURCE_DIR "/config", script, NULL, 0);
    options.crowd = 12;
    CHECK(demo_start(&d, &options));
    if (!demo_player(d)) {
        demo_finish(d);
        return;
    }
    while (demo_progress_of(d).simulation_time < 2.5)
        demo_frame(d);
    float in_front = animator_look_weight(player_animator(demo_player(d)));
    int watching = 0;
    for (int i = 0; i < crowd_count(demo_crowd(d)); ++i)
        watching += animator_look_weight(crowd_animator(demo_crowd(d), i)) > 0.5f;
    char hud[4096];
    demo_hud_text(hud, sizeof hud);
    gfx_stats stats = gfx_frame_stats();
    save_picture("demo_look_at.png");
    printf("  camera in front: player's look-at weight %.2f, %d of %d crowd members watching, %d debug lines\n",
           (double)in_front, watching, crowd_count(demo_crowd(d)), stats.debug_lines);
    CHECK(in_front == 1.0f);
    CHECK(watching >= 2);
    CHECK(demo_views(d)->look_at && stats.debug_lines >= 5 * (1 + watching)); /* a facing line, a sight line, a cross */
    CHECK_STR_CONTAINS(hud, "look-at 1.00 (crowd 5 m)");
    CHECK_STR_CONTAINS(hud, "  look-at\n");
    while (demo_progress_of(d).simulation_time < 4.0)
        demo_frame(d);
    float behind = animator_look_weight(player_animator(demo_player(d)));
    printf("  camera behind again: player's weight %.2f\n", (double)behind);
    CHECK(behind == 0.0f);
    CHECK(demo_progress_of(d).gl_error_frames == 0);
    demo_finish(d);
}

/* The ground: demo.ini's [world] ground at start, the ground key cycling flat -> hills -> steps, a reload
 * with another value switching to it (a bad one refused at its line): the player, the crowd and the camera
 * on its height, the HUD naming it, and steady frames on it allocating nothing. */
static void check_everyone_on_the_ground(void)
{
    vec3 feet;
    player_position(demo_player(d), feet);
    CHECK(feet[1] == ground_at(demo_ground(d), feet[0], feet[2]).height);
    for (int i = 0; i < crowd_count(demo_crowd(d)); ++i) {
        const mover *m = crowd_mover(demo_crowd(d), i);
        CHECK(m->y == ground_at(demo_ground(d), m->x, m->z).height);
    }
    CHECK(demo_camera(d)->ground == demo_ground(d));
    vec3 eye;
    camera_eye(demo_camera(d), eye);
    CHECK(eye[1] >= ground_at(demo_ground(d), eye[0], eye[2]).height + demo_camera(d)->params.floor_clearance - 1e-5f);
    char hud[4096], named[32];
    demo_hud_text(hud, sizeof hud);
    snprintf(named, sizeof named, "  ground %s", ground_kind_name(demo_ground(d)->kind));
    CHECK_STR_CONTAINS(hud, named);
}

static void test_ground_setting_and_key(void)
{
    char config_dir[512], settings[600], script[600];
    make_scratch_config(config_dir, sizeof config_dir);
    snprintf(settings, sizeof settings, "%s/demo.ini", config_dir);
    CHECK(edit_file(settings, "ground = flat", "ground = hills"));
    write_script(script, sizeof script, config_dir, "ground", "0.1 press W\n2.0 tap U\n3.0 tap U\n4.0 tap U\n");
    demo_options options = options_for(config_dir, script, NULL, 0);
    options.crowd = 20;
    CHECK(demo_start(&d, &options));
    CHECK(demo_ground(d)->kind == GROUND_HILLS);
    /* Walking over the hills for a second and a half (frames of 1/60 s): not on y = 0. */
    float lowest = 1e9f, highest = -1e9f;
    for (int i = 0; i < 90; ++i) {
        demo_frame(d);
        vec3 feet;
        player_position(demo_player(d), feet);
        lowest = fminf(lowest, feet[1]);
        highest = fmaxf(highest, feet[1]);
    }
    check_everyone_on_the_ground();
    printf("  on the hills the player's feet went from %.3f to %.3f m\n", (double)lowest, (double)highest);
    CHECK(highest - lowest > 0.02f);
    long before = heap_calls;
    for (int i = 0; i < 20; ++i)
        demo_frame(d);
    CHECK(heap_calls == before); /* the mesh was made once, at the switch */
    for (int i = 0; i < 40; ++i)
        demo_frame(d);
    CHECK(demo_ground(d)->kind == GROUND_STEPS); /* the key, at 2 s */
    check_everyone_on_the_ground();
    CHECK(strstr(demo_status(d), "ground: steps") != NULL);
    for (int i = 0; i < 60; ++i)
        demo_frame(d);
    CHECK(demo_ground(d)->kind == GROUND_FLAT);
    check_everyone_on_the_ground();
    for (int i = 0; i < 60; ++i)
        demo_frame(d);
    CHECK(demo_ground(d)->kind == GROUND_HILLS); /* round again */

    /* demo.ini says steps: a reload switches; a word it does not know is refused at its line. */
    CHECK(edit_file(settings, "ground = hills", "ground = steps"));
    test_touch_forward(settings, 5);
    for (int i = 0; i < 5; ++i)
        demo_frame(d);
    CHECK(demo_ground(d)->kind == GROUND_STEPS);
    check_everyone_on_the_ground();
    CHECK(edit_file(settings, "ground = steps", "ground = lava"));
    test_touch_forward(settings, 10);
    for (int i = 0; i < 5; ++i)
        demo_frame(d);
    CHECK(demo_message_count(d) == 1 && strstr(demo_message(d, 0), "demo.ini:") != NULL &&
          strstr(demo_message(d, 0), "'ground' must be flat, slope, hills or steps, not 'lava'") != NULL);
    CHECK(demo_ground(d)->kind == GROUND_STEPS);
    CHECK(demo_progress_of(d).gl_error_frames == 0);
    demo_finish(d);
}

/* ---- A character in other units and axes ---------------------------------------------------------------- */

enum { HUD_ROWS = 110 };

/* Our assets converted by md5tool to Doom units (x 39.37), Y up, facing +Z, and loaded with `height = 1.8`,
 * `up = +Y`, `forward = +Z` (clip speeds in the files' units): the demo must look as it does with ours. */
static void test_converted_characters_look_the_same(void)
{
    char root[400], command[8192], config_dir[512], script[600];
    snprintf(root, sizeof root, "%s/demo_import", MARIONETTE_BUILD_DIR);
    snprintf(command, sizeof command,
             "set -e; rm -rf '%s'; mkdir -p '%s/assets/models' '%s/assets/clips'; cp -r '%s/config' '%s/config'; "
             "ln -s '%s/assets/textures' '%s/assets/textures'; "
             "for f in '%s'/assets/models/*.md5mesh '%s'/assets/clips/*.md5anim; do "
             "  kind=$(basename \"$(dirname \"$f\")\"); "
             "  '%s' convert \"$f\" '%s'/assets/$kind/$(basename \"$f\") --scale 39.37 --up +Y --forward +Z; done; "
             "sed -i 's/^states = states.ini$/&\\nheight = 1.8\\nup = +Y\\nforward = +Z/' '%s/config/characters.ini'; "
             "sed -i 's/^speed = 1.4$/speed = 55.118/; s/^speed = 3.5$/speed = 137.795/' '%s/config/clips.ini'; "
             /* Both drawn whole: levels of detail simplified from the converted vertices are not bit for bit
              * those of ours (meshoptimizer's choices differ in rounding), which is not what this compares. */
             "mkdir -p '%s/original'; cp -r '%s/config' '%s/original/config'; ln -s '%s/assets' '%s/original/assets'; "
             "sed -i 's/^levels_of_detail = true$/levels_of_detail = false/' '%s/config/demo.ini' "
             "'%s/original/config/demo.ini'",
             root, root, root, MARIONETTE_SOURCE_DIR, root, MARIONETTE_SOURCE_DIR, root, MARIONETTE_SOURCE_DIR,
             MARIONETTE_SOURCE_DIR, MARIONETTE_MD5TOOL, root, root, root, root, MARIONETTE_SOURCE_DIR, root,
             MARIONETTE_SOURCE_DIR, root, root, root);
    CHECK(system(command) == 0);
    snprintf(config_dir, sizeof config_dir, "%s/config", root);
    char original_dir[512];
    snprintf(original_dir, sizeof original_dir, "%s/original/config", root);
    write_script(script, sizeof script, config_dir, "walk", "0.2 press W\n");
    static uint8_t pictures[2][WIDTH * HEIGHT * 4];
    picture_figures figures[2];
    const char *dirs[2] = {original_dir, config_dir};
    for (int run = 0; run < 2; ++run) {
        demo_options options = options_for(dirs[run], script, NULL, 0);
        options.crowd = 8;
        CHECK(demo_start(&d, &options));
        CHECK(demo_message_count(d) == 0);
        for (int i = 0; i < 100; ++i)
            demo_frame(d);
        figures[run] = look();
        CHECK(platform_read_pixels(pictures[run]));
        CHECK(strcmp(player_state_name(demo_player(d)), "moving") == 0 && player_speed(demo_player(d)) > 1.0f);
        /* Walking straight, the lean blend is at its rest: the HUD says so, not its first clip's name. */
        char hud[4096];
        demo_hud_text(hud, sizeof hud);
        CHECK_STR_CONTAINS(hud, "lean (rest)");
        /* On flat ground the foot IK lowers the pelvis by nothing, and says 0 (it once said -0). */
        CHECK_STR_CONTAINS(hud, "foot IK pelvis 0 cm");
        save_picture(run == 0 ? "demo_import_original.png" : "demo_import_converted.png");
        demo_finish(d);
    }
    /* Below the HUD panel: its figures (frame times) differ from run to run. */
    int differing = 0;
    for (int i = HUD_ROWS * WIDTH; i < WIDTH * HEIGHT; ++i) {
        int largest = 0;
        for (int k = 0; k < 3; ++k)
            largest = abs((int)pictures[0][4 * i + k] - (int)pictures[1][4 * i + k]) > largest
                          ? abs((int)pictures[0][4 * i + k] - (int)pictures[1][4 * i + k])
                          : largest;
        differing += largest > 40;
    }
    printf("  ours: %d mannequin, %d robot pixels; converted: %d, %d; %d pixels differ\n", figures[0].mannequin,
           figures[0].robot, figures[1].mannequin, figures[1].robot, differing);
    CHECK(figures[0].player_seen && figures[1].player_seen);
    CHECK(figures[0].mannequin > 500 && figures[0].robot > 100);
    CHECK(abs(figures[1].mannequin - figures[0].mannequin) <= figures[0].mannequin / 50);
    CHECK(abs(figures[1].robot - figures[0].robot) <= figures[0].robot / 50);
    CHECK(differing < WIDTH * (HEIGHT - HUD_ROWS) / 200);

    /* Without its height the converted mannequin is a 70.9 m giant: it still plays, and the HUD says so. */
    char characters[600], expected[1024];
    snprintf(characters, sizeof characters, "%s/characters.ini", config_dir);
    CHECK(edit_file(characters, "states = states.ini\nheight = 1.8\n", "states = states.ini\n"));
    demo_options options = options_for(config_dir, NULL, NULL, 0);
    CHECK(demo_start(&d, &options));
    for (int i = 0; i < 5; ++i)
        demo_frame(d);
    char *text = test_read_file(characters, NULL);
    int section_line = 1;
    for (const char *c = text; c && strncmp(c, "[mannequin]", 11) != 0 && *c; ++c)
        section_line += *c == '\n';
    free(text);
    snprintf(expected, sizeof expected,
             "%s:%d: warning: character 'mannequin' stands 70.9 m tall (bind pose); scale = 0.0254 would make it 1.8 m",
             characters, section_line);
    printf("  HUD: %s\n  status: %s\n", demo_message_count(d) ? demo_message(d, 0) : "(none)", demo_status(d));
    CHECK(demo_message_count(d) == 1 && strcmp(demo_message(d, 0), expected) == 0);
    CHECK(strstr(demo_status(d), "1 warning") != NULL);
    CHECK(demo_player(d) != NULL && strcmp(animator_character(player_animator(demo_player(d)))->name, "mannequin") == 0);
    demo_finish(d);
}

/* ---- Window events -------------------------------------------------------------------------------------- */

static void push_key(SDL_Keycode key, bool down, bool repeat)
{
    SDL_Event event = {.type = down ? SDL_KEYDOWN : SDL_KEYUP};
    event.key.state = down ? SDL_PRESSED : SDL_RELEASED;
    event.key.repeat = repeat;
    event.key.keysym.sym = key;
    CHECK(SDL_PushEvent(&event) == 1);
}

/* Events as SDL queues them for a window reach the demo through platform_next_event only: keys through the
 * bindings (a repeat is no new press), drags with a button held orbit, drags without do nothing, the wheel
 * zooms, focus loss lets go of held keys, the close button quits. */
static void test_window_events_reach_the_demo(void)
{
    demo_options options = options_for(MARIONETTE_SOURCE_DIR "/config", NULL, NULL, 0);
    CHECK(demo_start(&d, &options));
    platform_event event;
    CHECK(!platform_next_event(&event)); /* headless: nothing queued of itself */
    int window_width = 0, window_height = 0;
    platform_window_size(&window_width, &window_height); /* headless: mouse units are framebuffer pixels */
    CHECK(window_width == WIDTH && window_height == HEIGHT);

    /* The translation itself: modifiers and buttons as bits, sizes, events of no use skipped. */
    SDL_Event user = {.type = SDL_USEREVENT};
    CHECK(SDL_PushEvent(&user) == 1);
    SDL_Event key = {.type = SDL_KEYUP};
    key.key.keysym.sym = SDLK_KP_8;
    key.key.keysym.mod = KMOD_LSHIFT | KMOD_RCTRL;
    CHECK(SDL_PushEvent(&key) == 1);
    SDL_Event button = {.type = SDL_MOUSEBUTTONDOWN};
    button.button.button = SDL_BUTTON_RIGHT;
    button.button.x = 12, button.button.y = 34;
    CHECK(SDL_PushEvent(&button) == 1);
    SDL_Event resized = {.type = SDL_WINDOWEVENT};
    resized.window.event = SDL_WINDOWEVENT_SIZE_CHANGED;
    resized.window.data1 = 800, resized.window.data2 = 600;
    CHECK(SDL_PushEvent(&resized) == 1);
    CHECK(platform_next_event(&event) && event.type == PLATFORM_EVENT_KEY_UP);
    CHECK(event.key == PLATFORM_KEY_KP_8 && event.modifiers == (PLATFORM_MOD_SHIFT | PLATFORM_MOD_CTRL));
    CHECK(platform_next_event(&event) && event.type == PLATFORM_EVENT_MOUSE_BUTTON_DOWN);
    CHECK(event.buttons == PLATFORM_MOUSE_RIGHT && event.x == 12 && event.y == 34);
    CHECK(platform_next_event(&event) && event.type == PLATFORM_EVENT_WINDOW_RESIZED);
    CHECK(event.width == 800 && event.height == 600);
    CHECK(!platform_next_event(&event));

    bool help_before = demo_help_shown(d);
    push_key(SDLK_F1, true, false);
    CHECK(demo_frame(d));
    CHECK(demo_help_shown(d) == !help_before);
    push_key(SDLK_F1, true, true); /* the system repeating the held key */
    CHECK(demo_frame(d));
    CHECK(demo_help_shown(d) == !help_before);
    push_key(SDLK_F1, false, false);
    push_key(SDLK_F1, true, false);
    CHECK(demo_frame(d));
    CHECK(demo_help_shown(d) == help_before);
    push_key(SDLK_F1, false, false);

    push_key(SDLK_w, true, false);
    CHECK(demo_frame(d));
    CHECK(demo_input(d)->held[GAME_ACTION_MOVE_FORWARD] == 1);
    SDL_Event focus = {.type = SDL_WINDOWEVENT};
    focus.window.event = SDL_WINDOWEVENT_FOCUS_LOST;
    CHECK(SDL_PushEvent(&focus) == 1);
    CHECK(demo_frame(d));
    CHECK(demo_input(d)->held[GAME_ACTION_MOVE_FORWARD] == 0 && demo_input(d)->key_down_count == 0);

    float yaw = demo_camera(d)->yaw_degrees;
    SDL_Event motion = {.type = SDL_MOUSEMOTION};
    motion.motion.xrel = 40;
    CHECK(SDL_PushEvent(&motion) == 1); /* no button held: only a moving pointer */
    CHECK(demo_frame(d));
    CHECK(demo_camera(d)->yaw_degrees == yaw);
    motion.motion.state = SDL_BUTTON_LMASK;
    CHECK(SDL_PushEvent(&motion) == 1);
    CHECK(demo_frame(d));
    printf("  yaw %.2f -> %.2f after a 40 pixel drag\n", (double)yaw, (double)demo_camera(d)->yaw_degrees);
    CHECK(fabsf(demo_camera(d)->yaw_degrees - yaw) > 5.0f);

    float distance = demo_camera(d)->distance;
    SDL_Event wheel = {.type = SDL_MOUSEWHEEL};
    wheel.wheel.y = 2;
    CHECK(SDL_PushEvent(&wheel) == 1);
    CHECK(demo_frame(d));
    printf("  distance %.2f -> %.2f after 2 wheel steps\n", (double)distance, (double)demo_camera(d)->distance);
    CHECK(demo_camera(d)->distance < distance - 0.5f);

    SDL_Event quit = {.type = SDL_QUIT};
    CHECK(SDL_PushEvent(&quit) == 1);
    CHECK(!demo_frame(d));
    CHECK(demo_progress_of(d).quit && demo_progress_of(d).gl_error_frames == 0);
    demo_finish(d);
}

/* ---- The HUD's frame budget ------------------------------------------------------------------------------- */

/* A hud_view filled by hand: the frame budget says what the figures are, in the HUD's plain text (the GPU's
 * time under the CPU's, triangles and levels on the draw line) and in the benchmarks' one-line form. */
static void test_hud_frame_budget(void)
{
    hud_view view = {.fps = 40.0, .frame_ms = 25.0, .update_ms = 0.5, .draw_ms = 3.0, .draw_calls = 7,
                     .drawn = 1000, .culled = 12};
    view.budget = (hud_budget){.gpu_timed = true, .gpu_shadow_ms = 2.5f, .gpu_ground_ms = 11.25f,
                               .gpu_characters_ms = 9.0f, .gpu_overlay_ms = 0.75f, .gpu_frame_ms = 23.5f,
                               .triangles = 1234567, .shadow_triangles = 456789,
                               .lod_instances = {3, 41, 300, 600, 56}, .shadow_lod_instances = {0, 3, 41, 900, 56}};
    char text[4096];
    hud_text(&view, text, sizeof text);
    printf("%s", text);
    CHECK(strstr(text, "\ngpu  23.50 ms: shadow 2.50  ground 11.25  characters 9.00  overlay 0.75\n") != NULL);
    CHECK(strstr(text, "\ndraw  7 calls  1000 drawn  12 culled  triangles 1,234,567 (shadow 456,789)  "
                       "LOD 3/41/300/600/56  shadow LOD 0/3/41/900/56  GPU skinning\n") != NULL);
    /* The GPU's time right under the CPU's. */
    CHECK(strncmp(strchr(text, '\n'), "\ngpu  ", 6) == 0);

    view.budget.gpu_timed = false;
    view.budget.triangles = 999;
    view.budget.shadow_triangles = 0;
    hud_text(&view, text, sizeof text);
    CHECK(strstr(text, "\ngpu  time not available\n") != NULL);
    CHECK(strstr(text, "culled  triangles 999 (shadow 0)  LOD ") != NULL);

    char line[512];
    view.budget.triangles = 1000;
    hud_budget_text(&view.budget, "; ", line, sizeof line);
    CHECK(strcmp(line, "gpu  time not available; triangles 1,000 (shadow 0)  LOD 3/41/300/600/56  shadow LOD "
                       "0/3/41/900/56") == 0);

    /* From the renderer's stats, field by field. */
    gfx_stats stats = {.gpu_timed = true, .gpu_shadow_ms = 1.0f, .gpu_ground_ms = 2.0f, .gpu_characters_ms = 3.0f,
                       .gpu_overlay_ms = 4.0f, .gpu_frame_ms = 10.0f, .triangles = 20, .shadow_triangles = 10,
                       .lod_instances = {1, 2, 3, 4, 5}, .shadow_lod_instances = {5, 4, 3, 2, 1}};
    hud_budget budget = hud_budget_from_stats(&stats);
    hud_budget_text(&budget, " | ", line, sizeof line);
    CHECK(strcmp(line, "gpu  10.00 ms: shadow 1.00  ground 2.00  characters 3.00  overlay 4.00 | triangles 20 "
                       "(shadow 10)  LOD 1/2/3/4/5  shadow LOD 5/4/3/2/1") == 0);
    hud_budget_text(&budget, "\n", line, 16); /* cut short, still a string */
    CHECK(strlen(line) == 15);
}

/* Reads from text the first `count` joints after `"joints":[`: each object's position and rotation. */
static int read_trace_joints(const char *text, float (*positions)[3], float (*rotations)[4], int count)
{
    const char *at = text ? strstr(text, "\"joints\":[") : NULL;
    int read = 0;
    while (at && read < count) {
        const char *position = strstr(at, "\"position\":[");
        const char *rotation = position ? strstr(position, "\"rotation\":[") : NULL;
        if (!rotation)
            break;
        char *end = (char *)position + strlen("\"position\":[");
        for (int k = 0; k < 3; ++k)
            positions[read][k] = strtof(end, &end), end += *end == ',' ? 1 : 0;
        end = (char *)rotation + strlen("\"rotation\":[");
        for (int k = 0; k < 4; ++k)
            rotations[read][k] = strtof(end, &end), end += *end == ',' ? 1 : 0;
        at = end;
        ++read;
    }
    return read;
}

/* The trace's poses against what is drawn: for the player and a crowd member, every joint the trace
 * exports equals the drawn transform (the instance's world matrix, as the scene makes it, times gfx's turn to
 * Y up) applied to the pose the skin palette is made from (palette x the inverse of the inverse bind), within
 * 1e-4, at three moments of a walk and a run. */
static void test_trace_poses_match_the_palette(void)
{
    char trace_path[512];
    snprintf(trace_path, sizeof trace_path, "%s/demo_poses.json", MARIONETTE_BUILD_DIR);
    demo_options options = options_for(MARIONETTE_SOURCE_DIR "/config", MARIONETTE_TEST_DATA "/demo/walk_and_run.txt",
                                       trace_path, 0);
    options.trace_joints = "all";
    options.trace_members = "0";
    options.trace_stages = true;
    options.crowd = 2;
    CHECK(demo_start(&d, &options));
    CHECK(demo_trace_poses(d) != NULL);
    int checked = 0;
    float worst = 0.0f;
    for (int frame = 1; frame <= 300 && demo_trace_poses(d); ++frame) {
        demo_frame(d);
        if (frame % 100 != 0)
            continue;
        char *text = NULL;
        size_t size = 0;
        FILE *memory = open_memstream(&text, &size);
        json_writer w = json_writer_start(memory);
        json_object_begin(&w);
        trace_poses_write(demo_trace_poses(d), &w, demo_player(d), demo_crowd(d), demo_ground(d));
        json_object_end(&w);
        fclose(memory);
        for (int e = 0; e < 2; ++e) {
            const animator *a = e == 0 ? player_animator(demo_player(d)) : crowd_animator(demo_crowd(d), 0);
            const skeleton *s = &animator_character(a)->model->skeleton;
            enum { MOST = 64 };
            float positions[MOST][3], rotations[MOST][4];
            const char *entity = e == 0 ? strstr(text, "\"entity\":\"player\"") : strstr(text, "\"index\":0");
            CHECK(s->joint_count <= MOST && read_trace_joints(entity, positions, rotations, s->joint_count) == s->joint_count);
            mat4 placement, world, turn, drawn;
            if (e == 0)
                player_world_matrix(demo_player(d), placement);
            else
                crowd_world(demo_crowd(d), 0, placement);
            scene_model_world(animator_character(a), placement, world);
            gfx_z_up_to_y_up(turn);
            glm_mat4_mul(world, turn, drawn);
            mat4 palette[MOST];
            CHECK(pose_palette(anim_controller_object_pose(animator_controller(a)), (const mat4 *)s->inverse_bind,
                               s->joint_count, palette));
            for (int j = 0; j < s->joint_count && j < MOST; ++j) {
                mat4 bind, object, expected, exported;
                glm_mat4_inv((vec4 *)s->inverse_bind[j], bind);
                glm_mat4_mul(palette[j], bind, object);
                glm_mat4_mul(drawn, object, expected);
                glm_quat_mat4(rotations[j], exported);
                for (int k = 0; k < 3; ++k) {
                    worst = fmaxf(worst, fabsf(expected[3][k] - positions[j][k]));
                    for (int r = 0; r < 3; ++r)
                        worst = fmaxf(worst, fabsf(expected[k][r] - exported[k][r]));
                }
                ++checked;
            }
        }
        free(text);
    }
    printf("  trace poses: %d joints checked against the drawn pose, largest difference %.2g\n", checked,
           (double)worst);
    CHECK(checked >= 6 * 31);
    CHECK(worst < 1e-4f);
    demo_finish(d);
    struct stat info;
    CHECK(stat(trace_path, &info) == 0 && info.st_size > 100000);
    remove(trace_path);
}

/* Recording (recorder.h): --record writes the player's final pose from the start; the clip fits the
 * skeleton (md5tool check's test: loader and clip_fits_skeleton), and played back it puts every joint, every
 * frame, where the demo had it in the world (the root carries the body's motion from the start) within 1e-4 of
 * the character's height; Debian's assimp reads it (an animation of one channel per joint). F9 stops it (the
 * HUD shows REC while it runs) and starts a new one in recordings/. A path that cannot be written is said at
 * the start, in one line, and nothing is left behind. */
static void test_recording_plays_back(void)
{
    char folder[512], clip_path[600], cwd[1024], command[1400], script[600];
    snprintf(folder, sizeof folder, "%s/demo_recording", MARIONETTE_BUILD_DIR);
    snprintf(command, sizeof command, "rm -rf '%s' && mkdir -p '%s'", folder, folder);
    CHECK(system(command) == 0);
    snprintf(clip_path, sizeof clip_path, "%s/walk.md5anim", folder);
    snprintf(script, sizeof script, "%s/script.txt", folder);
    test_write_file(script, "0.3 press W\n1.5 press Left Shift\n2.5 release Left Shift\n3.0 release W\n"
                            "3.5 tap F9\n3.6 tap F9\n4.0 tap F9\n");
    enum { FRAMES = 200, JOINTS = 64 };
    static joint_pose seen[FRAMES + 1][JOINTS];
    static mat4 seen_world[FRAMES + 1];
    CHECK(getcwd(cwd, sizeof cwd) != NULL);
    CHECK(chdir(folder) == 0);
    demo_options options = options_for(MARIONETTE_SOURCE_DIR "/config", script, NULL, 0);
    options.record = clip_path;
    options.record_rate = 60.0f;
    CHECK(demo_start(&d, &options));
    const anim_character *character = animator_character(player_animator(demo_player(d)));
    const skeleton *s = &character->model->skeleton;
    CHECK(s->joint_count <= JOINTS);
    char hud[8192];
    bool showed_rec = false;
    for (int frame = 0; frame <= FRAMES; ++frame) {
        if (frame > 0)
            demo_frame(d);
        anim_placement placement = player_placement(demo_player(d));
        anim_placement_world(&placement, &character->axes, character->scale, seen_world[frame]);
        memcpy(seen[frame], anim_controller_object_pose(animator_controller(player_animator(demo_player(d)))),
               (size_t)s->joint_count * sizeof seen[frame][0]);
        if (frame == 100) {
            demo_hud_text(hud, sizeof hud);
            showed_rec = strstr(hud, "REC 1.") != NULL;
        }
    }
    CHECK(showed_rec);
    /* 3.5 s: F9 stops the --record run (211 frames at 60 a second: 0 to 3.5 s); 3.6 s starts one in
     * recordings/, 4.0 s stops it. */
    for (int i = 0; i < 60; ++i) {
        demo_frame(d);
        if (i == 12)
            CHECK_STR_CONTAINS(demo_status(d), "recorded 211 frames (3.50 s) of mannequin to ");
    }
    CHECK_STR_CONTAINS(demo_status(d), "recorded 25 frames (0.40 s) of mannequin to recordings/marionette-001.md5anim");
    demo_finish(d); /* the config goes: the skeleton is read again from its file */
    CHECK(chdir(cwd) == 0);
    model *mannequin = NULL;
    diag err;
    CHECK(loader_load_model(MARIONETTE_SOURCE_DIR "/assets/models/mannequin.md5mesh", &mannequin, &err, NULL));
    if (!mannequin)
        return;
    s = &mannequin->skeleton;

    clip *recorded = NULL;
    CHECK(loader_load_clip(clip_path, &recorded, &err, NULL));
    CHECK(recorded && clip_fits_skeleton(recorded, s, clip_path, &err));
    float worst = 0.0f;
    int compared = 0;
    joint_pose played[JOINTS];
    mat4 start;
    glm_mat4_copy(seen_world[0], start);
    for (int frame = 0; recorded && frame <= FRAMES && frame < recorded->frame_count; ++frame) {
        CHECK(pose_sample(recorded, (float)frame / 60.0f, false, played) &&
              pose_to_object(s->parents, s->joint_count, played, played));
        for (int j = 0; j < s->joint_count; ++j) {
            vec3 from_clip, from_demo;
            glm_mat4_mulv3(start, played[j].position, 1.0f, from_clip);
            glm_mat4_mulv3(seen_world[frame], seen[frame][j].position, 1.0f, from_demo);
            worst = fmaxf(worst, glm_vec3_distance(from_clip, from_demo));
            ++compared;
        }
    }
    float height = 1.8f;
    printf("  recorded %d frames: played back, every joint within %.3g mm of where the demo drew it (%d compared)\n",
           recorded ? recorded->frame_count : 0, (double)worst * 1000.0, compared);
    CHECK(recorded && recorded->frame_count >= 200 && recorded->frame_count <= 215);
    CHECK(compared >= 200 * s->joint_count && worst < 1e-4f * height);
    clip_free(recorded);
    /* F9 at 3.6 s started recordings/marionette-001.md5anim, F9 at 4.0 s stopped it. */
    char second[700];
    snprintf(second, sizeof second, "%s/recordings/marionette-001.md5anim", folder);
    CHECK(loader_load_clip(second, &recorded, &err, NULL) && recorded->frame_count >= 20 && recorded->frame_count <= 30);
    clip_free(recorded);
    /* An ordinary clip to the demo's config: a library and a state that plays it load without a word. */
    char clips_ini[700], states_ini[700], text[1600];
    snprintf(clips_ini, sizeof clips_ini, "%s/clips.ini", folder);
    snprintf(states_ini, sizeof states_ini, "%s/states.ini", folder);
    snprintf(text, sizeof text, "[recorded]\nfile = %s\nloop = true\n", clip_path);
    test_write_file(clips_ini, text);
    test_write_file(states_ini, "[machine]\nstart = replay\n[state replay]\nclip = recorded\n");
    cache *replay_cache = cache_create();
    diag_list problems = {0};
    anim_config *replay = anim_config_load_character("mannequin", MARIONETTE_SOURCE_DIR "/assets/models/mannequin.md5mesh",
                                                     clips_ini, states_ini, replay_cache, &problems);
    CHECK(replay != NULL && problems.total == 0);
    animator *player = replay ? animator_create(anim_config_character(replay, 0)) : NULL;
    CHECK(player && animator_update(player, 1.0, NULL) && strcmp(animator_state_name(player), "replay") == 0);
    animator_destroy(player);
    anim_config_free(replay);
    cache_destroy(replay_cache);
    diag_list_free(&problems);
    /* Another MD5 reader. */
    snprintf(command, sizeof command, "assimp info '%s' > '%s/assimp.txt' 2>&1", clip_path, folder);
    CHECK(system(command) == 0);
    snprintf(command, sizeof command, "%s/assimp.txt", folder);
    char *said = test_read_file(command, NULL);
    char channels[64];
    snprintf(channels, sizeof channels, "Animation Channels: %d", s->joint_count);
    CHECK(said && strstr(said, "Animations:         1") && strstr(said, channels));
    free(said);

    /* An unwritable path: one line at the start, no file. */
    char unwritable[700];
    snprintf(unwritable, sizeof unwritable, "%s/no-such-folder/x.md5anim", folder);
    options.record = unwritable;
    options.script = NULL;
    CHECK(!demo_start(&d, &options));
    demo_finish(d);
    struct stat info;
    CHECK(stat(unwritable, &info) != 0);
    model_free(mannequin);
}

/* A character with no walk or run (Bob with his one clip) says so on the HUD, rather than sliding in its idle
 * without a word; the shipped characters say nothing of the kind. */
static void test_no_walk_is_said(void)
{
    char folder[512], path[700], command[1400];
    snprintf(folder, sizeof folder, "%s/demo_no_walk", MARIONETTE_BUILD_DIR);
    snprintf(command, sizeof command, "rm -rf '%s' && mkdir -p '%s'", folder, folder);
    CHECK(system(command) == 0);
    char text[1200];
    snprintf(path, sizeof path, "%s/characters.ini", folder);
    snprintf(text, sizeof text, "[mannequin]\nmesh = %s/assets/models/mannequin.md5mesh\nclips = clips.ini\nstates = states.ini\n",
             MARIONETTE_SOURCE_DIR);
    test_write_file(path, text);
    snprintf(path, sizeof path, "%s/clips.ini", folder);
    snprintf(text, sizeof text, "[idle]\nfile = %s/assets/clips/idle.md5anim\nloop = true\n", MARIONETTE_SOURCE_DIR);
    test_write_file(path, text);
    snprintf(path, sizeof path, "%s/states.ini", folder);
    test_write_file(path, "[machine]\nstart = idle\n[parameters]\nspeed = number\n[state idle]\nclip = idle\n");
    snprintf(path, sizeof path, "%s/demo.ini", folder);
    test_write_file(path, "[crowd]\nmix = mannequin 1\n");
    snprintf(path, sizeof path, "%s/controls.ini", folder);
    test_write_file(path, "");
    demo_options options = options_for(folder, NULL, NULL, 0);
    CHECK(demo_start(&d, &options));
    bool said = false;
    for (int i = 0; i < demo_message_count(d); ++i)
        said = said || strstr(demo_message(d, i), "'mannequin' has no walk or run") != NULL;
    CHECK(said);
    demo_finish(d);
    options = options_for(MARIONETTE_SOURCE_DIR "/config", NULL, NULL, 0);
    CHECK(demo_start(&d, &options));
    CHECK(demo_message_count(d) == 0);
    demo_finish(d);
}

int main(void)
{
    RUN(test_hud_frame_budget);
    RUN(test_steady_frames_allocate_nothing);
    RUN(test_scripted_run);
    RUN(test_hot_reload_and_broken_config);
    RUN(test_reload_split_saves_and_status);
    RUN(test_speed_edit_applies_at_once);
    RUN(test_ground_setting_and_key);
    RUN(test_quick_taps_each_count);
    RUN(test_keys_that_do_nothing_say_why);
    RUN(test_help_panel_never_covers_the_hud);
    RUN(test_screenshots_go_to_their_folder);
    RUN(test_bounds_view_boxes);
    RUN(test_skin_blend_key);
    RUN(test_trace_poses_match_the_palette);
    RUN(test_recording_plays_back);
    RUN(test_no_walk_is_said);
    RUN(test_missing_assets_then_fixed);
    RUN(test_nothing_loaded_stays_flat);
    RUN(test_missing_texture);
    RUN(test_broken_and_missing_maps);
    RUN(test_windows_shader_and_per_character_textures);
    RUN(test_broken_clips_at_start_then_fixed);
    RUN(test_converted_characters_look_the_same);
    RUN(test_window_events_reach_the_demo);
    RUN(test_state_machine_panel);
    RUN(test_click_picks_the_body_not_its_loose_box);
    RUN(test_state_machine_panel_follows_reloads);
    RUN(test_look_at);
    RUN(test_a_new_view_and_action_are_one_row_each);
    return check_report();
}
