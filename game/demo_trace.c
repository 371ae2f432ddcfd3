/* demo_trace: what the demo writes: the JSON trace of every step, recordings of the player's pose
 * (.md5anim) and screenshots (PNG). */
#include "demo_internal.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "anim/anim_json.h"
#include "base/json.h"
#include "platform/platform.h"
#include "recorder.h"
#include "trace_poses.h"

/* F12's pictures go here, under the current folder (the repository's root when run.sh starts the demo;
 * .gitignore covers it), made on first use. */
static const char DEMO_SCREENSHOT_FOLDER[] = "screenshots";

/* F9's recordings go here, as screenshots go to theirs. */
static const char DEMO_RECORDING_FOLDER[] = "recordings";

/* FOLDER/marionette-NNN.EXTENSION with the next number no file has yet (an earlier run's files stay),
 * the folder made under the current one on first use; false, said on the status line after `what`, when
 * the folder cannot be made. */
static bool next_free_name(demo *d, const char *folder, const char *extension, int *count, const char *what,
                           char *out, size_t size)
{
    if (mkdir(folder, 0777) != 0 && errno != EEXIST) {
        demo_set_status(d, "%s: cannot make the folder %s/: %s", what, folder, strerror(errno));
        return false;
    }
    do
        snprintf(out, size, "%s/marionette-%03d.%s", folder, ++*count, extension);
    while (access(out, F_OK) == 0 && *count < 1000000);
    return true;
}

void demo_take_screenshot(demo *d, const char *path)
{
    char name[64];
    if (!path) {
        if (!next_free_name(d, DEMO_SCREENSHOT_FOLDER, "png", &d->screenshot_count, "screenshot failed", name,
                            sizeof name))
            return;
        path = name;
    }
    diag err;
    if (platform_save_png(path, &err))
        demo_set_status(d, "screenshot: %s", path);
    else
        demo_set_status(d, "screenshot failed: %s", err.message);
}

/* Start recording the player (into path, or the next free name in recordings/ when NULL). */
void demo_start_recording(demo *d, const char *path)
{
    if (!d->player) {
        demo_set_status(d, "nothing to record: no player (fix the config and press F5)");
        return;
    }
    if (!d->recorder)
        d->recorder = recorder_create(d->options.record_rate > 0.0f ? d->options.record_rate : RECORDER_RATE_DEFAULT,
                                      d->options.record_in_place);
    if (!path) {
        if (!next_free_name(d, DEMO_RECORDING_FOLDER, "md5anim", &d->recording_count, "cannot record", d->record_path,
                            sizeof d->record_path))
            return;
    } else {
        snprintf(d->record_path, sizeof d->record_path, "%s", path);
    }
    const animator *a = player_animator(d->player);
    if (!d->recorder || !recorder_start(d->recorder, animator_character(a), player_placement(d->player),
                                        d->simulation_time)) {
        demo_set_status(d, "cannot record: out of memory");
        return;
    }
    /* The pose now is the first frame. */
    recorder_step(d->recorder, d->simulation_time, anim_controller_object_pose(animator_controller(a)),
                  player_placement(d->player));
    demo_set_status(d, "recording the player to %s at %g frames a second (F9 stops)", d->record_path,
               (double)recorder_rate(d->recorder));
}

/* Stop and write what was recorded; false (said on the status line) when it could not be written. */
bool demo_stop_recording(demo *d)
{
    if (!recorder_recording(d->recorder))
        return true;
    recorder_stop(d->recorder);
    diag err;
    int frames = recorder_frame_count(d->recorder);
    if (!recorder_write(d->recorder, d->record_path, &err)) {
        demo_set_status(d, "recording not written: %s: %s", err.file, err.message);
        return false;
    }
    demo_set_status(d, "recorded %d frames (%.2f s) of %s to %s", frames, (double)(frames - 1) / recorder_rate(d->recorder),
               recorder_character(d->recorder)->name, d->record_path);
    return true;
}

/* After a step: the player's final pose into the recording. A reload that gives the player another character
 * ends it (the skeleton may differ). */
void demo_record_step(demo *d)
{
    if (!recorder_recording(d->recorder))
        return;
    const animator *a = d->player ? player_animator(d->player) : NULL;
    if (!a || animator_character(a) != recorder_character(d->recorder)) {
        demo_stop_recording(d);
        return;
    }
    if (!recorder_step(d->recorder, d->simulation_time, anim_controller_object_pose(animator_controller(a)),
                       player_placement(d->player))) {
        demo_set_status(d, "recording stopped: %d frames is the most kept", recorder_frame_count(d->recorder));
        demo_stop_recording(d);
    }
}

void demo_write_trace_step(demo *d, const input_script_event *applied, int applied_count,
                             const animator_update_result *update)
{
    json_writer w = json_writer_start(d->trace);
    fputs(d->trace_steps++ ? ",\n" : "[\n", d->trace);
    json_object_begin(&w);
    json_key(&w, "step");
    json_integer(&w, d->step_count);
    json_key(&w, "clock");
    json_number(&w, d->clock);
    json_key(&w, "time");
    json_number(&w, d->simulation_time);
    json_key(&w, "input");
    json_array_begin(&w);
    for (int i = 0; i < applied_count; ++i) {
        json_object_begin(&w);
        json_key(&w, "line");
        json_integer(&w, applied[i].line);
        json_key(&w, "event");
        static const char *const kinds[] = {[INPUT_SCRIPT_KEY_DOWN] = "press", [INPUT_SCRIPT_KEY_UP] = "release",
                                            [INPUT_SCRIPT_WHEEL] = "wheel", [INPUT_SCRIPT_DRAG] = "drag",
                                            [INPUT_SCRIPT_CLICK] = "click"};
        json_string(&w, kinds[applied[i].kind]);
        if (applied[i].kind == INPUT_SCRIPT_CLICK) {
            json_key(&w, "x");
            json_number(&w, applied[i].x);
            json_key(&w, "y");
            json_number(&w, applied[i].y);
        }
        if (applied[i].kind == INPUT_SCRIPT_KEY_DOWN || applied[i].kind == INPUT_SCRIPT_KEY_UP) {
            char name[CONTROLS_KEY_NAME_MAX];
            controls_key_name(applied[i].key, name, sizeof name);
            json_key(&w, "key");
            json_string(&w, name);
        }
        json_object_end(&w);
    }
    json_array_end(&w);
    json_key(&w, "actions");
    json_array_begin(&w);
    for (int a = 0; a < d->input.action_count; ++a)
        for (int n = 0; n < d->input.pressed[a] && n < 64; ++n) /* each press (64 a step is more than hands) */
            json_string(&w, controls_action(&d->controls, a)->name);
    json_array_end(&w);
    json_key(&w, "paused");
    json_bool(&w, d->paused);
    json_key(&w, "crowd");
    json_integer(&w, crowd_count(d->crowd));
    if (d->player) {
        vec3 position;
        player_position(d->player, position);
        json_key(&w, "player");
        json_object_begin(&w);
        json_key(&w, "position");
        json_array_begin(&w);
        json_number(&w, position[0]);
        json_number(&w, position[2]);
        json_array_end(&w);
        json_key(&w, "heading_degrees");
        json_number(&w, player_heading(d->player) * 180.0 / GLM_PI);
        json_key(&w, "speed");
        json_number(&w, player_speed(d->player));
        json_object_end(&w);
        if (update)
            anim_json_write_step(&w, player_animator(d->player), update);
    }
    trace_poses_write(d->trace_poses, &w, d->player, d->crowd, &d->ground);
    json_object_end(&w);
}
