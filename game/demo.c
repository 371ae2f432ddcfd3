/* demo: see demo.h. Its rooms: demo_frame.c (the frame loop), demo_reload.c (configuration), demo_actions.c
 * (what keys and clicks do), demo_trace.c (trace, recordings, screenshots); demo_internal.h holds the state
 * they share. This file starts and ends a run and answers the queries. */
#include "demo_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/file.h"
#include "base/ini_document.h"
#include "gfx/gfx_text.h"
#include "platform/platform.h"
#include "recorder.h"
#include "trace_poses.h"

/* ---- Start and end --------------------------------------------------------------------------- */
/* ---- Start and end -------------------------------------------------------------------------------------- */

bool demo_start(demo **out, const demo_options *options)
{
    demo *d = *out = calloc(1, sizeof *d);
    if (!d) {
        fprintf(stderr, "marionette: out of memory\n");
        return false;
    }
    d->options = *options;
    d->time_scale = 1.0f;
    d->show_help = options->show_help;
    d->views.cpu_skinning = options->cpu_skinning;
    const char *dir = options->config_dir;
    snprintf(d->characters_path, sizeof d->characters_path, "%s/characters.ini", dir);
    snprintf(d->controls_path, sizeof d->controls_path, "%s/controls.ini", dir);
    snprintf(d->settings_path, sizeof d->settings_path, "%s/demo.ini", dir);
    int extra = options->actions && options->action_count > 0 ? options->action_count : 0;
    d->options.action_count = extra;
    size_t views = (size_t)demo_view_capacity(extra);
    d->extra_rows = calloc(extra > 0 ? (size_t)extra : 1, sizeof *d->extra_rows);
    d->extra_on = calloc(extra > 0 ? (size_t)extra : 1, sizeof *d->extra_on);
    d->hud_views = calloc(views, sizeof *d->hud_views);
    d->hud_legends = calloc(views, sizeof *d->hud_legends);
    if (!d->extra_rows || !d->extra_on || !d->hud_views || !d->hud_legends) {
        fprintf(stderr, "marionette: out of memory\n");
        return false;
    }
    for (int i = 0; i < extra; ++i)
        d->extra_rows[i] = options->actions[i].controls;
    if (!controls_init(&d->controls, d->extra_rows, extra)) {
        fprintf(stderr, "marionette: the program's own actions cannot join the demo's: a row has no name, or a "
                        "name or default key another action has (or out of memory)\n");
        return false;
    }
    if (!game_input_init(&d->input, d->controls.action_count)) {
        fprintf(stderr, "marionette: out of memory\n");
        return false;
    }
    d->settings = demo_config_defaults();
    d->cache = cache_create();
    /* Never looked at: every file loads at the first poll. */
    watch_set_add(&d->watched, d->controls_path, INI_MAX_FILE_BYTES, false);
    watch_set_add(&d->watched, d->settings_path, INI_MAX_FILE_BYTES, false);
    watch_set_add(&d->watched, d->characters_path, INI_MAX_FILE_BYTES, false);

    /* Settings first: they say how big the window is. */
    diag_list problems = {0};
    watch_set_look(&d->watched, DEMO_WATCH_SETTINGS);
    demo_config_load(d->settings_path, &d->settings, &problems);

    diag err;
    platform_desc desc = {
        .title = "marionette",
        .width = options->width ? options->width : d->settings.window.width,
        .height = options->height ? options->height : d->settings.window.height,
        .headless = options->headless,
        .vsync = d->settings.window.vsync,
    };
    if (!platform_setup(&desc, &err)) {
        /* Suggest offscreen rendering only to a run that is not offscreen already. */
        if (options->headless || platform_environment_wants_offscreen())
            fprintf(stderr, "marionette: %s; offscreen at %d x %d: try a smaller --size, or check the OpenGL driver "
                            "(see docs/troubleshooting.md)\n", err.message, desc.width, desc.height);
        else
            fprintf(stderr, "marionette: %s; without a display: --headless (offscreen) or xvfb-run -a marionette "
                            "(see docs/troubleshooting.md)\n", err.message);
        diag_list_free(&problems);
        return false;
    }
    if (!gfx_setup(&(gfx_desc){0}, &err) || !gfx_text_setup(&(gfx_text_desc){0}, &err)) {
        fprintf(stderr, "marionette: %s: %s\n", err.file, err.message);
        diag_list_free(&problems);
        return false;
    }
    d->crowd = crowd_create(d->settings.crowd.max > 0 ? d->settings.crowd.max : 1, d->settings.crowd.seed);
    /* One thread per processor for the crowd's update and palettes; without them (NULL) it runs here. */
    d->jobs = jobs_create(jobs_processor_count());
    crowd_set_jobs(d->crowd, d->jobs);
    camera_params camera_setup = camera_default_params();
    camera_init(&d->camera, &camera_setup, (float[3]){0.0f, 0.0f, 0.0f});
    d->camera.distance = d->settings.camera.distance;
    d->camera.pitch_degrees = d->settings.camera.pitch;
    d->camera.yaw_degrees = d->settings.camera.yaw;
    camera_orbit(&d->camera, 0.0f, 0.0f); /* clamps what the settings asked */
    d->ground_setting = d->settings.world.ground;
    demo_set_ground(d, d->ground_setting);

    demo_load_configuration(d, false);
    /* demo.ini's own problems, read before the window existed, join the HUD's list. */
    demo_show_problems(d, &problems);
    diag_list_free(&problems);

    if (options->script) {
        diag_list script_problems = {0};
        d->script = input_script_load(options->script, &script_problems);
        demo_show_problems(d, &script_problems);
        diag_list_free(&script_problems);
        if (!d->script)
            return false;
    }
    if ((options->trace_joints || options->trace_members || options->trace_stages) && !options->trace) {
        fprintf(stderr, "marionette: --trace-joints, --trace-members and --trace-stages go with --trace FILE\n");
        return false;
    }
    if (options->trace && (options->trace_joints || options->trace_members || options->trace_stages)) {
        diag error = {0};
        trace_poses_options pose_options = {.joints = options->trace_joints ? options->trace_joints : "all",
                                            .members = options->trace_members, .stages = options->trace_stages};
        d->trace_poses = d->config ? trace_poses_create(&pose_options, d->config, d->settings.crowd.max, &error) : NULL;
        if (!d->trace_poses) {
            if (d->config)
                fprintf(stderr, "marionette: %s: %s\n", error.file, error.message);
            else
                fprintf(stderr, "marionette: --trace-joints: no configuration loaded to find the joints in\n");
            return false;
        }
    }
    if (options->trace) {
        diag error;
        d->trace_file = malloc(sizeof *d->trace_file);
        if (!d->trace_file || !file_writer_open(d->trace_file, options->trace, &error)) {
            if (d->trace_file)
                fprintf(stderr, "marionette: %s: %s\n", error.file, error.message);
            free(d->trace_file);
            d->trace_file = NULL;
            return false;
        }
        d->trace = d->trace_file->stream;
    }
    if (options->record) {
        if (!(options->record_rate == 0.0f || (options->record_rate >= 1.0f && options->record_rate <= RECORDER_RATE_MAX))) {
            fprintf(stderr, "marionette: --record-rate must be 1 to %d frames a second\n", RECORDER_RATE_MAX);
            return false;
        }
        /* Checked now, not after a long run: a path that cannot be written is said at once. */
        file_writer probe;
        diag error;
        if (!file_writer_open(&probe, options->record, &error)) {
            fprintf(stderr, "marionette: --record %s: %s\n", error.file, error.message);
            return false;
        }
        file_writer_abandon(&probe);
        demo_start_recording(d, options->record);
        if (!recorder_recording(d->recorder))
            return false;
    }
    if (options->crowd > 0)
        demo_spawn_crowd(d, options->crowd);
    return true;
}

void demo_finish(demo *d)
{
    if (!d)
        return;
    if (d->trace_file) {
        fputs(d->trace_steps ? "\n]\n" : "[]\n", d->trace);
        diag error;
        if (!file_writer_commit(d->trace_file, &error))
            fprintf(stderr, "marionette: %s: %s\n", error.file, error.message);
        free(d->trace_file);
        d->trace_file = NULL;
        d->trace = NULL;
    }
    trace_poses_destroy(d->trace_poses);
    d->trace_poses = NULL;
    demo_stop_recording(d);
    recorder_destroy(d->recorder);
    d->recorder = NULL;
    input_script_free(d->script);
    player_destroy(d->player);
    crowd_destroy(d->crowd);
    jobs_destroy(d->jobs);
    scene_free(&d->scene);
    anim_config_free(d->config);
    cache_destroy(d->cache);
    watch_set_free(&d->watched);
    game_input_free(&d->input);
    controls_free(&d->controls);
    free(d->extra_rows);
    free(d->extra_on);
    free(d->hud_views);
    free(d->hud_legends);
    gfx_text_shutdown();
    gfx_shutdown();
    platform_shutdown();
    free(d);
}

int demo_run(const demo_options *options)
{
    demo *d = NULL;
    bool started = demo_start(&d, options);
    while (started && demo_frame(d))
        continue;
    demo_finish(d);
    return started ? 0 : 1;
}

/* ---- Queries -------------------------------------------------------------------------------------------- */

demo_progress demo_progress_of(const demo *d)
{
    return (demo_progress){.frames = d->frame_count, .steps = d->step_count, .simulation_time = d->simulation_time,
                           .clock = d->clock, .time_scale = d->time_scale, .paused = d->paused, .quit = d->quit,
                           .gl_error_frames = d->gl_error_frames};
}

player *demo_player(const demo *d)
{
    return d->player;
}

crowd *demo_crowd(const demo *d)
{
    return d->crowd;
}

const anim_config *demo_anim_config(const demo *d)
{
    return d->config;
}

const demo_config *demo_settings(const demo *d)
{
    return &d->settings;
}

const camera *demo_camera(const demo *d)
{
    return &d->camera;
}

const ground *demo_ground(const demo *d)
{
    return &d->ground;
}

const scene *demo_scene(const demo *d)
{
    return &d->scene;
}

const scene_views *demo_views(const demo *d)
{
    return &d->views;
}

const game_input *demo_input(const demo *d)
{
    return &d->input;
}

const gfx_stats *demo_gfx_stats(const demo *d)
{
    return &d->gfx;
}

const struct trace_poses *demo_trace_poses(const demo *d)
{
    return d->trace_poses;
}

const char *demo_status(const demo *d)
{
    return d->status;
}

int demo_message_count(const demo *d)
{
    return d->message_count;
}

int demo_messages_total(const demo *d)
{
    return d->messages_total;
}

bool demo_help_shown(const demo *d)
{
    return d->show_help;
}

bool demo_state_machine_shown(const demo *d)
{
    return d->show_state_machine;
}

const animator *demo_tracked(const demo *d)
{
    return d->tracked;
}

int demo_tracked_index(const demo *d)
{
    return d->tracked ? d->tracked_index : -1;
}

const state_panel_history *demo_tracked_history(const demo *d)
{
    return &d->tracked_history;
}

const state_panel_lines *demo_shown_state_panel(const demo *d)
{
    return &d->state_panel;
}

int demo_event_count(const demo *d)
{
    return d->event_count;
}

const char *demo_message(const demo *d, int i)
{
    return i >= 0 && i < d->message_count ? d->messages[i] : "";
}

const demo_logged_event *demo_event(const demo *d, int i)
{
    return i >= 0 && i < d->event_count ? &d->events[i] : NULL;
}
