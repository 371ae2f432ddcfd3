/* demo: see demo.h. One frame: platform events -> input (controls.ini) -> fixed simulation steps (script
 * events, actions, player, crowd, trace) -> camera -> draw (player, crowd, debug views) -> HUD. */
#include "demo.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "anim/anim_json.h"
#include "gfx/gfx_text.h"
#include "ground_mesh.h"
#include "hud.h"
#include "base/file.h"
#include "base/ini_document.h"
#include "base/json.h"
#include "recorder.h"
#include "trace_poses.h"
#include "look.h"
#include "pick.h"
#include "platform/platform.h"

static const double DEMO_HEADLESS_FRAME_SECONDS = 1.0 / 60.0; /* a headless frame shows this much time */
static const double DEMO_MAX_FRAME_SECONDS = 0.25;            /* a stall is not caught up beyond this */
static const double DEMO_RELOAD_POLL_SECONDS = 0.5;
static const float DEMO_LOD_FULL_RATE_METRES = 12.0f, DEMO_LOD_HALF_RATE_METRES = 30.0f;
/* Metres around the line from the player to the camera where a spawn puts no member (crowd_spawn_desc). */
static const float DEMO_CROWD_CLEAR_METRES = 1.5f;
static const float DEMO_TIME_SCALE_MIN = 1.0f / 16.0f, DEMO_TIME_SCALE_MAX = 4.0f;
/* A left press and release with the pointer moved less than this in between is a click (it picks whose
 * state machine the panel shows); more is a drag, which orbits the camera. */
static const float DEMO_CLICK_TRAVEL_PIXELS = 4.0f;

static double now_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* ---- Messages (HUD and stderr) ---------------------------------------------------------------------- */

static void set_status(demo *d, const char *format, ...) __attribute__((format(printf, 2, 3)));
static void set_status(demo *d, const char *format, ...)
{
    va_list arguments;
    va_start(arguments, format);
    vsnprintf(d->status, sizeof d->status, format, arguments);
    va_end(arguments);
    fprintf(stderr, "marionette: %s\n", d->status);
}

/* Every problem to stderr; the first few stay on the HUD until the next good (re)load. Both list them by
 * file and line, whichever file was read first and in how many passes. */
static void show_problems(demo *d, diag_list *problems)
{
    diag_list_sort(problems, 0);
    for (int i = 0; i < problems->count; ++i) {
        char line[DIAG_TEXT_MAX];
        diag_format(&problems->items[i], line, sizeof line);
        fprintf(stderr, "%s\n", line);
        if (d->message_count < DEMO_MESSAGE_LINES)
            snprintf(d->messages[d->message_count++], sizeof d->messages[0], "%s", line);
    }
    d->messages_total += problems->total;
}

static void clear_problems(demo *d)
{
    d->message_count = 0;
    d->messages_total = 0;
}

/* ---- Configuration ---------------------------------------------------------------------------------- */

/* d->watched: the demo's own files, in this order (watch_set_due says when one is to be read again). */
enum { DEMO_WATCH_CONTROLS, DEMO_WATCH_SETTINGS, DEMO_WATCH_CHARACTERS };

/* The bodies of the crowd mix, looked up in the running config; unknown names are reported. */
static int crowd_bodies(demo *d, crowd_body *bodies, diag_list *problems)
{
    int count = 0;
    for (int i = 0; i < d->settings.crowd.body_count && count < CROWD_BODIES_MAX; ++i) {
        const demo_config_body *body = &d->settings.crowd.bodies[i];
        const anim_character *character = anim_config_find_character(d->config, body->character);
        if (!character) {
            diag_list_add(problems, d->settings_path, d->settings.crowd.mix_line,
                          "crowd mix names \"%s\", which characters.ini does not have",
                          body->character);
            continue;
        }
        bodies[count++] = (crowd_body){.character = character, .weight = body->weight};
    }
    return count;
}

/* [player] character names no character: say so at demo.ini's line, naming those there are; the first
 * plays instead. */
static void report_unknown_player(demo *d, diag_list *problems)
{
    const char *name = d->settings.player.character;
    int count = anim_config_character_count(d->config);
    if (count == 0 || anim_config_find_character(d->config, name))
        return;
    char known[DIAG_MESSAGE_MAX] = "";
    size_t used = 0;
    for (int i = 0; i < count && used < sizeof known; ++i) {
        int wrote = snprintf(known + used, sizeof known - used, "%s%s", i ? ", " : "",
                             anim_config_character(d->config, i)->name);
        used += wrote > 0 ? (size_t)wrote : 0;
    }
    diag_list_add(problems, d->settings_path, d->settings.player.character_line,
                  "warning: [player] character '%s' is not in characters.ini (it has %s): playing '%s'", name,
                  known, anim_config_character(d->config, 0)->name);
}

static const anim_character *player_character(demo *d)
{
    const anim_character *character = anim_config_find_character(d->config, d->settings.player.character);
    if (!character && anim_config_character_count(d->config) > 0)
        character = anim_config_character(d->config, 0);
    return character;
}

/* What demo.ini says about the player's motion. */
static player_params player_params_of(const demo_config *settings)
{
    player_params params = player_default_params();
    params.walk_speed = settings->player.walk_speed;
    params.run_speed = settings->player.run_speed;
    return params;
}

/* A player for the current config, standing where the old one stood. */
static void make_player(demo *d, diag_list *problems)
{
    const anim_character *character = player_character(d);
    if (!character) {
        diag_list_add(problems, d->characters_path, 0, "no character to play");
        return;
    }
    player_params params = player_params_of(&d->settings);
    vec3 position = {0};
    float heading = 0.0f;
    if (d->player) {
        player_position(d->player, position);
        heading = player_heading(d->player);
        player_destroy(d->player);
    }
    d->player = player_create(character, &params, problems);
    if (!d->player) {
        diag_list_add(problems, d->characters_path, 0, "character \"%s\" cannot be played (no state machine?)",
                      character->name);
        return;
    }
    player_set_ground(d->player, &d->ground);
    player_place(d->player, position[0], position[2], heading);
    /* A character with nothing that walks (no clip with a ground speed, none moving by its root) would
     * slide across the floor in its idle when moved: said on the HUD rather than left to surprise. */
    bool walks = false;
    for (int c = 0; c < character->clip_count && !walks; ++c)
        walks = character->clips[c].clip && !character->clips[c].additive &&
                (character->clips[c].ground_speed > 0.0f || character->clips[c].root_mode != ANIM_ROOT_IN_PLACE);
    if (!walks)
        diag_list_add(problems, d->characters_path, 0,
                      "warning: '%s' has no walk or run (no clip with a ground speed or root motion): moving it "
                      "slides it in place", character->name);
}

/* Everyone stands on `kind` from now on, and gfx draws it (its mesh made now, once). False, said on the
 * status line, when it cannot be drawn (no memory): it is walked on all the same. */
static bool set_ground(demo *d, ground_kind kind)
{
    d->ground = (ground){.kind = kind, .slope_degrees = d->settings.world.slope_degrees, .uphill = {1.0f, 0.0f}};
    bool drawn = ground_mesh_upload(&d->ground);
    if (!drawn)
        set_status(d, "the %s ground cannot be drawn (%s): it is walked on, not shown", ground_kind_name(kind),
                   gfx_last_error());
    player_set_ground(d->player, &d->ground);
    crowd_set_ground(d->crowd, &d->ground);
    d->camera.ground = &d->ground;
    d->views.ground = &d->ground;
    return drawn;
}

static void find_tracked(demo *d);

/* Swap in a freshly loaded config: entities move over (keeping their state where it still exists), meshes
 * follow the models, the old config goes. */
static void adopt_config(demo *d, anim_config *config, diag_list *problems)
{
    anim_config *old = d->config;
    d->config = config;
    diag err = {0};
    if (!scene_sync(&d->scene, config, &err, problems)) {
        diag_list_add(problems, err.file, err.line, "%s", err.message);
    }
    if (d->player) {
        const anim_character *character = player_character(d);
        if (!character || strcmp(character->name, animator_character(player_animator(d->player))->name) != 0 ||
            !player_rebind(d->player, character, problems))
            make_player(d, problems);
    } else {
        make_player(d, problems);
    }
    int removed = crowd_rebind(d->crowd, config, problems);
    if (removed > 0)
        diag_list_add(problems, d->characters_path, 0, "%d crowd members lost their character and were removed",
                      removed);
    find_tracked(d);
    anim_config_free(old);
}

/* Problems a step added: errors when the step was refused (its file's last good version keeps running),
 * warnings when it was adopted anyway (a missing texture, an implausible height). */
static void count_problems(const diag_list *problems, int total_before, bool adopted, int *errors, int *warnings)
{
    *(adopted ? warnings : errors) += problems->total - total_before;
}

/* Load everything at start, or reload what changed (force: everything, as F5 asks). A file with errors
 * keeps its last good version running; its problems and any warnings go to the HUD and stderr, and the
 * status line says which happened. */
static void load_configuration(demo *d, bool force)
{
    diag_list problems = {0};
    bool any = false, failed = false;
    bool check_player = false; /* demo.ini or characters.ini adopted: does the player's name still exist? */
    int errors = 0, warnings = 0, before;
    if (watch_set_due(&d->watched, DEMO_WATCH_CONTROLS, force)) {
        any = true;
        before = problems.total;
        bool adopted = controls_load(d->controls_path, &d->controls, &problems);
        failed |= !adopted;
        count_problems(&problems, before, adopted, &errors, &warnings);
    }
    if (watch_set_due(&d->watched, DEMO_WATCH_SETTINGS, force)) {
        any = true;
        before = problems.total;
        bool adopted = demo_config_load(d->settings_path, &d->settings, &problems);
        if (adopted) {
            /* The running player takes the new speeds now, not only when it is next re-created. */
            player_params params = player_params_of(&d->settings);
            if (d->player && !player_set_params(d->player, &params))
                diag_list_add(&problems, d->settings_path, 0, "the player cannot take these speeds");
            if (d->settings.world.ground != d->ground_setting ||
                (d->ground.kind == GROUND_SLOPE && d->ground.slope_degrees != d->settings.world.slope_degrees)) {
                d->ground_setting = d->settings.world.ground;
                set_ground(d, d->ground_setting);
            }
            check_player = true;
        } else {
            failed = true;
        }
        count_problems(&problems, before, adopted, &errors, &warnings);
    }
    /* Without a good config there is nothing to ask reload_due: try again when characters.ini changes
     * (or on F5), not every poll, so a broken start says so once. */
    bool first_try = !d->config && watch_set_due(&d->watched, DEMO_WATCH_CHARACTERS, false);
    /* With nothing complete running yet (the start, or a start that had to leave things out), a load keeps
     * going past assets that fail: the rest plays, stand-ins fill in and the problems are shown. Once a
     * complete config runs, a reload with problems keeps it instead. */
    bool partial = !d->config || anim_config_stand_in_count(d->config) > 0;
    bool config_loaded_now = false;
    if (first_try || force || (d->config && anim_config_reload_due(d->config))) {
        any = true;
        config_loaded_now = true;
        before = problems.total;
        anim_config *config = !d->config ? anim_config_load_partial(d->characters_path, d->cache, &problems)
                              : partial  ? anim_config_reload_partial(d->config, &problems)
                                         : anim_config_reload(d->config, &problems);
        if (config) {
            /* Adopted: what the load and the swap (textures that failed, a player that cannot play) found
             * are warnings, unless the load had to put in stand-ins (below). */
            adopt_config(d, config, &problems);
            check_player = true;
        } else {
            failed = true;
        }
        count_problems(&problems, before, config != NULL, &errors, &warnings);
    }
    if (check_player && d->config) {
        before = problems.total;
        report_unknown_player(d, &problems);
        count_problems(&problems, before, true, &errors, &warnings);
    }
    if (any) {
        clear_problems(d);
        show_problems(d, &problems);
        int stand_ins = anim_config_stand_in_count(d->config);
        const char *verb = d->frame_count > 0 ? "reloaded" : "loaded";
        if ((failed || problems.total > 0) && !d->config)
            set_status(d, "%d problem%s and no configuration has loaded yet: fix it and press F5", problems.total,
                       problems.total == 1 ? "" : "s");
        else if (!failed && stand_ins > 0 && config_loaded_now)
            set_status(d, "%d problem%s: the rest runs, with stand-ins for what failed to load; fix and save (or "
                       "press F5)", problems.total, problems.total == 1 ? "" : "s");
        else if (!failed && stand_ins > 0 && problems.total == 0)
            /* Another file reloaded; the config's own problems still stand (F5 lists them again). */
            set_status(d, "reloaded; %d stand-in%s still play for what failed to load (F5 lists them)", stand_ins,
                       stand_ins == 1 ? "" : "s");
        else if (errors > 0 && warnings > 0)
            set_status(d, "refused: %d error%s, the last good configuration keeps running (and %d warning%s)",
                       errors, errors == 1 ? "" : "s", warnings, warnings == 1 ? "" : "s");
        else if (errors > 0)
            set_status(d, "refused: %d error%s, the last good configuration keeps running", errors,
                       errors == 1 ? "" : "s");
        else if (warnings > 0)
            set_status(d, "%s, with %d warning%s (each listed with its file:line)", verb, warnings, warnings == 1 ? "" : "s");
        else if (d->frame_count > 0)
            set_status(d, "reloaded the configuration");
    }
    diag_list_free(&problems);
}

/* ---- The state machine panel ---------------------------------------------------------------------------- */

static const animator *tracked_animator(const demo *d)
{
    if (d->tracked)
        return d->tracked;
    return d->player ? player_animator(d->player) : NULL;
}

/* The panel shows member's machine (-1: the player's) from now on, with a history that starts now. */
static void track(demo *d, int member)
{
    d->tracked = member >= 0 ? crowd_animator(d->crowd, member) : NULL;
    d->tracked_index = d->tracked ? member : -1;
    state_panel_start(&d->tracked_history, tracked_animator(d));
}

/* After the crowd lost members (cleared, or a reload took their character) or a reload moved the entities:
 * the tracked member where it is now, or the player when it is gone; its state as a reload left it, with
 * no transition. Members that stay keep their animator, so it finds them; none is made in between. */
static void find_tracked(demo *d)
{
    if (d->tracked) {
        int found = -1;
        for (int i = 0; i < crowd_count(d->crowd) && found < 0; ++i)
            if (crowd_animator(d->crowd, i) == d->tracked)
                found = i;
        if (found < 0) {
            track(d, -1);
            return;
        }
        d->tracked_index = found;
    }
    state_panel_follow(&d->tracked_history, tracked_animator(d));
}

void demo_state_panel(const demo *d, state_panel_lines *out)
{
    char who[48];
    if (d->tracked)
        snprintf(who, sizeof who, "crowd #%d", d->tracked_index);
    else
        snprintf(who, sizeof who, "the player");
    state_panel_build(tracked_animator(d), who, &d->tracked_history, d->simulation_time, out);
}

/* How far along the ray the entity is, if the ray meets it: where it enters the box of the entity's skinned
 * mesh as posed now (scene_pose_bounds: a CPU skinning of the body), tried only when the ray enters the
 * culling box first (a matrix inverse). The culling box alone would be too loose: it holds every pose of
 * the clips on any body, so a member near the camera covers much of the picture and would win clicks
 * aimed at those behind it. A body with no mesh here is taken at its culling box. */
static bool ray_meets(demo *d, const pick_ray *ray, const animator *animator, mat4 placement, float *distance)
{
    mat4 world, turn, model;
    float bounds[2][3], pose_box[2][3];
    if (!animator || !scene_culling_box(animator, placement, world, bounds))
        return false;
    gfx_z_up_to_y_up(turn); /* gfx places MD5 space this way after world */
    glm_mat4_mul(world, turn, model);
    if (!pick_ray_box(ray, model, (const float(*)[3])bounds, distance))
        return false;
    if (!scene_pose_bounds(&d->scene, animator, pose_box))
        return true;
    return pick_ray_box(ray, model, (const float(*)[3])pose_box, distance);
}

int demo_pick(demo *d, float x, float y)
{
    int width = 0, height = 0;
    platform_framebuffer_size(&width, &height);
    if (width <= 0 || height <= 0)
        return -1;
    mat4 view, projection;
    vec3 eye;
    camera_matrices(&d->camera, (float)width / (float)height, view, projection, eye);
    pick_ray ray;
    if (!pick_ray_through(view, projection, width, height, x, y, &ray))
        return -1;
    float nearest = INFINITY, distance;
    int picked = -1;
    mat4 placement;
    if (d->player) {
        player_world_matrix(d->player, placement);
        if (ray_meets(d, &ray, player_animator(d->player), placement, &distance))
            nearest = distance;
    }
    for (int i = 0; i < crowd_count(d->crowd); ++i) {
        crowd_world(d->crowd, i, placement);
        if (ray_meets(d, &ray, crowd_animator(d->crowd, i), placement, &distance) && distance < nearest) {
            nearest = distance;
            picked = i;
        }
    }
    return picked;
}

static void click(game_input *input, float x, float y)
{
    input->clicked = true;
    input->click_x = x;
    input->click_y = y;
}

/* ---- Actions -------------------------------------------------------------------------------------------- */

static void spawn_crowd(demo *d, int count)
{
    if (!d->config || count <= 0)
        return;
    diag_list problems = {0};
    crowd_spawn_desc desc = {
        .spacing = d->settings.crowd.spacing,
        .wander_radius = d->settings.crowd.wander_radius,
        .wave_chance = d->settings.crowd.wave_chance,
        .celebrate_chance = d->settings.crowd.celebrate_chance,
        .run_chance = d->settings.crowd.run_chance,
        /* The player's speeds are the clips' speeds (md5tool new-character measures them for a new body),
         * so the crowd walks and runs at them too and its feet do not slide. */
        .walk_speed = d->settings.player.walk_speed,
        .run_speed = d->settings.player.run_speed,
        .problems = &problems,
    };
    desc.body_count = crowd_bodies(d, desc.bodies, &problems);
    if (d->player) {
        vec3 position;
        player_position(d->player, position);
        desc.center_x = position[0];
        desc.center_z = position[2];
        /* The ground between the player and the camera stays clear, so the camera is not left inside the
         * crowd with members hiding the player. */
        vec3 eye;
        camera_eye(&d->camera, eye);
        desc.clear_x = eye[0];
        desc.clear_z = eye[2];
        desc.clear_radius = DEMO_CROWD_CLEAR_METRES;
    }
    int room = d->settings.crowd.max - crowd_count(d->crowd);
    int added = crowd_spawn(d->crowd, count < room ? count : room, &desc);
    if (problems.total > 0)
        show_problems(d, &problems);
    set_status(d, "crowd: %d added, %d in all", added, crowd_count(d->crowd));
    diag_list_free(&problems);
}

/* F12's pictures go here, under the current folder (the repository's root when run.sh starts the demo;
 * .gitignore covers it), made on first use. */
static const char DEMO_SCREENSHOT_FOLDER[] = "screenshots";

/* FOLDER/marionette-NNN.EXTENSION with the next number no file has yet (an earlier run's files stay),
 * the folder made under the current one on first use; false, said on the status line after `what`, when
 * the folder cannot be made. */
static bool next_free_name(demo *d, const char *folder, const char *extension, int *count, const char *what,
                           char *out, size_t size)
{
    if (mkdir(folder, 0777) != 0 && errno != EEXIST) {
        set_status(d, "%s: cannot make the folder %s/: %s", what, folder, strerror(errno));
        return false;
    }
    do
        snprintf(out, size, "%s/marionette-%03d.%s", folder, ++*count, extension);
    while (access(out, F_OK) == 0 && *count < 1000000);
    return true;
}

static void take_screenshot(demo *d, const char *path)
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
        set_status(d, "screenshot: %s", path);
    else
        set_status(d, "screenshot failed: %s", err.message);
}

/* F9's recordings go here, as screenshots go to theirs. */
static const char DEMO_RECORDING_FOLDER[] = "recordings";

/* Start recording the player (into path, or the next free name in recordings/ when NULL). */
static void start_recording(demo *d, const char *path)
{
    if (!d->player) {
        set_status(d, "nothing to record: no player (fix the config and press F5)");
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
        set_status(d, "cannot record: out of memory");
        return;
    }
    /* The pose now is the first frame. */
    recorder_step(d->recorder, d->simulation_time, anim_controller_object_pose(animator_controller(a)),
                  player_placement(d->player));
    set_status(d, "recording the player to %s at %g frames a second (F9 stops)", d->record_path,
               (double)recorder_rate(d->recorder));
}

/* Stop and write what was recorded; false (said on the status line) when it could not be written. */
static bool stop_recording(demo *d)
{
    if (!recorder_recording(d->recorder))
        return true;
    recorder_stop(d->recorder);
    diag err;
    int frames = recorder_frame_count(d->recorder);
    if (!recorder_write(d->recorder, d->record_path, &err)) {
        set_status(d, "recording not written: %s: %s", err.file, err.message);
        return false;
    }
    set_status(d, "recorded %d frames (%.2f s) of %s to %s", frames, (double)(frames - 1) / recorder_rate(d->recorder),
               recorder_character(d->recorder)->name, d->record_path);
    return true;
}

/* After a step: the player's final pose into the recording. A reload that gives the player another character
 * ends it (the skeleton may differ). */
static void record_step(demo *d)
{
    if (!recorder_recording(d->recorder))
        return;
    const animator *a = d->player ? player_animator(d->player) : NULL;
    if (!a || animator_character(a) != recorder_character(d->recorder)) {
        stop_recording(d);
        return;
    }
    if (!recorder_step(d->recorder, d->simulation_time, anim_controller_object_pose(animator_controller(a)),
                       player_placement(d->player))) {
        set_status(d, "recording stopped: %d frames is the most kept", recorder_frame_count(d->recorder));
        stop_recording(d);
    }
}

/* How many times the action was pressed since the last step: every tap of a slow frame counts, applied in
 * turn (a toggle pressed twice is back where it was, two taps of [ halve twice). */
static int pressed(const demo *d, game_action action)
{
    return d->input.pressed[action];
}

/* A toggle pressed n times: flipped when n is odd. */
static void toggle(bool *flag, int n)
{
    if (n % 2)
        *flag = !*flag;
}

/* What one step's key presses ask for, besides moving the player. */
static void apply_actions(demo *d)
{
    if (pressed(d, GAME_ACTION_QUIT))
        d->quit = true;
    toggle(&d->show_help, pressed(d, GAME_ACTION_HELP));
    toggle(&d->views.skeleton, pressed(d, GAME_ACTION_SKELETON));
    toggle(&d->views.look_at, pressed(d, GAME_ACTION_LOOK_AT));
    toggle(&d->views.foot_ik, pressed(d, GAME_ACTION_FOOT_IK));
    toggle(&d->views.bounds, pressed(d, GAME_ACTION_BOUNDS));
    toggle(&d->views.lod_colors, pressed(d, GAME_ACTION_LEVELS));
    toggle(&d->show_state_machine, pressed(d, GAME_ACTION_STATE_MACHINE));
    /* While the panel shows, a click says whose machine: a crowd member, or the player (clicked, or nothing
     * clicked). Clicking the one shown keeps its history. */
    if (d->input.clicked && d->show_state_machine) {
        int member = demo_pick(d, d->input.click_x, d->input.click_y);
        const animator *picked = member >= 0 ? crowd_animator(d->crowd, member) : NULL;
        if (picked != d->tracked)
            track(d, member);
    }
    toggle(&d->views.normals, pressed(d, GAME_ACTION_NORMALS));
    toggle(&d->views.cpu_skinning, pressed(d, GAME_ACTION_SKINNING));
    for (int n = pressed(d, GAME_ACTION_SKIN_BLEND); n > 0; --n)
        d->scene.skinning = (scene_skinning)((d->scene.skinning + 1) % SCENE_SKINNING_COUNT);
    toggle(&d->paused, pressed(d, GAME_ACTION_PAUSE));
    if (pressed(d, GAME_ACTION_STEP) && d->paused)
        d->step_once = true;
    for (int n = pressed(d, GAME_ACTION_SLOWER); n > 0; --n)
        d->time_scale = fmaxf(d->time_scale * 0.5f, DEMO_TIME_SCALE_MIN);
    for (int n = pressed(d, GAME_ACTION_FASTER); n > 0; --n)
        d->time_scale = fminf(d->time_scale * 2.0f, DEMO_TIME_SCALE_MAX);
    if (pressed(d, GAME_ACTION_RELOAD))
        load_configuration(d, true);
    for (int n = pressed(d, GAME_ACTION_CROWD_SPAWN); n > 0; --n)
        spawn_crowd(d, d->settings.crowd.count);
    if (pressed(d, GAME_ACTION_CROWD_CLEAR)) {
        crowd_clear(d->crowd);
        find_tracked(d);
        set_status(d, "crowd cleared");
    }
    for (int n = pressed(d, GAME_ACTION_RECORD); n > 0; --n) {
        if (recorder_recording(d->recorder))
            stop_recording(d);
        else /* --record's file holds the run from the start: later recordings go to recordings/ */
            start_recording(d, NULL);
    }
    if (pressed(d, GAME_ACTION_SCREENSHOT))
        d->screenshot_requested = true;
    for (int n = pressed(d, GAME_ACTION_GROUND); n > 0; --n) {
        /* flat -> hills -> steps -> flat: the tilted plane is the tests'. */
        ground_kind next = d->ground.kind == GROUND_FLAT ? GROUND_HILLS
                           : d->ground.kind == GROUND_HILLS ? GROUND_STEPS : GROUND_FLAT;
        if (set_ground(d, next))
            set_status(d, "ground: %s", ground_kind_name(next));
    }
}

/* The camera follows what the mouse and the orbit keys ask, every step (so a script's drag is exact). */
static void steer_camera(demo *d, float dt)
{
    const controls *c = &d->controls;
    float orbit = 0.0f;
    if (d->input.held[GAME_ACTION_ORBIT_LEFT] > 0)
        orbit -= c->orbit_keys_degrees_per_second * dt;
    if (d->input.held[GAME_ACTION_ORBIT_RIGHT] > 0)
        orbit += c->orbit_keys_degrees_per_second * dt;
    float pitch = d->input.drag_y * c->orbit_degrees_per_pixel * (c->invert_y ? -1.0f : 1.0f);
    camera_orbit(&d->camera, orbit + d->input.drag_x * c->orbit_degrees_per_pixel, pitch);
    if (d->input.wheel_steps != 0.0f)
        camera_zoom(&d->camera, -d->input.wheel_steps * c->zoom_per_wheel_step);
}

/* ---- Simulation ----------------------------------------------------------------------------------------- */

static void log_events(demo *d, const anim_update_result *animation)
{
    for (int i = 0; i < animation->event_count; ++i) {
        if (d->event_count == DEMO_EVENT_LOG) {
            memmove(d->events, d->events + 1, (DEMO_EVENT_LOG - 1) * sizeof d->events[0]);
            --d->event_count;
        }
        demo_logged_event *logged = &d->events[d->event_count++];
        snprintf(logged->name, sizeof logged->name, "%s", animation->events[i].name);
        logged->weight = animation->events[i].weight;
        logged->time = d->simulation_time;
    }
}

static void write_trace_step(demo *d, const input_script_event *applied, int applied_count,
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
    for (int a = 0; a < GAME_ACTION_COUNT; ++a)
        for (int n = 0; n < d->input.pressed[a] && n < 64; ++n) /* each press (64 a step is more than hands) */
            json_string(&w, game_action_name((game_action)a));
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

/* Crowd members get features by significance (crowd.h): far and unseen ones animate less often and leave
 * out what their size would not show; those near the camera, and the player, get everything. */
static void set_crowd_lod(demo *d)
{
    int width = 0, height = 0;
    platform_framebuffer_size(&width, &height);
    crowd_lod lod = {.full_rate_distance = DEMO_LOD_FULL_RATE_METRES, .half_rate_distance = DEMO_LOD_HALF_RATE_METRES,
                     .has_view = width > 0 && height > 0, .viewport_height = (float)height,
                     .near_pixels = d->settings.crowd.lod_near_pixels, .far_pixels = d->settings.crowd.lod_far_pixels,
                     .hysteresis = d->settings.crowd.lod_hysteresis};
    mat4 view, projection;
    vec3 eye;
    camera_matrices(&d->camera, lod.has_view ? (float)width / (float)height : 1.0f, view, projection, eye);
    glm_mat4_mul(projection, view, lod.view_projection);
    lod.viewer_x = eye[0];
    lod.viewer_z = eye[2];
    crowd_set_lod(d->crowd, d->settings.crowd.lod ? &lod : NULL);
}

/* Look-at (demo.ini [look]): the player at the camera, the crowd near the player at the player's head. */
static void aim_player(demo *d)
{
    vec3 eye;
    camera_eye(&d->camera, eye);
    player_look_at(d->player, d->settings.look.player ? eye : NULL);
}

static void aim_crowd(demo *d)
{
    mat4 placement;
    crowd_look look = {.distance = d->settings.look.crowd_distance};
    if (d->player)
        player_world_matrix(d->player, placement);
    bool looking = d->player && look.distance > 0.0f &&
                   look_head_world(player_animator(d->player), placement, look.target);
    crowd_set_look(d->crowd, looking ? &look : NULL);
}

/* Why a key for one of the player's triggers did nothing, on the status line: the character's states have
 * no such trigger (the shipped characters have no hit or die), or it waited trigger_hold seconds in states
 * no transition from which takes it (a hit during a wave). */
static void explain_triggers(demo *d, const animator_update_result *update)
{
    static const struct {
        game_action action;
        const char *trigger;
    } keys[] = {{GAME_ACTION_JUMP, "jump"}, {GAME_ACTION_WAVE, "wave"}, {GAME_ACTION_HIT, "hit"}, {GAME_ACTION_DIE, "die"}};
    const animator *a = player_animator(d->player);
    const anim_character *character = animator_character(a);
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; ++k) {
        if (!pressed(d, keys[k].action) ||
            state_machine_param_valid(animator_param_find(a, keys[k].trigger, STATE_MACHINE_TRIGGER)))
            continue;
        char key[CONTROLS_KEY_NAME_MAX] = "its key";
        if (d->controls.key_count[keys[k].action] > 0)
            controls_key_name(d->controls.keys[keys[k].action][0], key, sizeof key);
        set_status(d, "%s does nothing: %s's states.ini has no '%s' trigger (md5tool new-character writes hit and die "
                   "for the clips it finds)", key, character->name, keys[k].trigger);
    }
    if (!update || !update->decision.triggers_dropped)
        return;
    const state_machine_definition *machine = &character->machine;
    for (int p = 0; p < machine->parameter_count; ++p)
        if ((update->decision.triggers_dropped >> p) & 1u)
            set_status(d, "'%s' did nothing: no transition from state '%s' takes it (states.ini)",
                       machine->parameters[p].name, animator_state_name(a));
}

static void simulate_step(demo *d, float dt)
{
    input_script_event applied[32];
    int applied_count = 0;
    if (d->script) {
        applied_count = input_script_poll(d->script, d->clock, applied, 32);
        for (int i = 0; i < applied_count; ++i) {
            const input_script_event *event = &applied[i];
            if (event->kind == INPUT_SCRIPT_KEY_DOWN || event->kind == INPUT_SCRIPT_KEY_UP)
                game_input_key(&d->input, &d->controls, event->key, event->kind == INPUT_SCRIPT_KEY_DOWN);
            else if (event->kind == INPUT_SCRIPT_WHEEL)
                d->input.wheel_steps += event->wheel;
            else if (event->kind == INPUT_SCRIPT_DRAG)
                d->input.drag_x += event->drag_x, d->input.drag_y += event->drag_y;
            else if (event->kind == INPUT_SCRIPT_CLICK)
                click(&d->input, event->x + 0.5f, event->y + 0.5f); /* the pixel's centre */
        }
    }
    apply_actions(d);
    steer_camera(d, dt);

    bool advance = !d->paused || d->step_once;
    d->step_once = false;
    animator_update_result update;
    bool updated = false;
    if (advance) {
        float scaled = dt * d->time_scale;
        if (d->player) {
            const game_input *in = &d->input;
            player_intent intent = {
                .move_forward = (float)((in->held[GAME_ACTION_MOVE_FORWARD] > 0) - (in->held[GAME_ACTION_MOVE_BACK] > 0)),
                .move_right = (float)((in->held[GAME_ACTION_MOVE_RIGHT] > 0) - (in->held[GAME_ACTION_MOVE_LEFT] > 0)),
                .run = in->held[GAME_ACTION_RUN] > 0,
                .strafe = in->held[GAME_ACTION_STRAFE] > 0,
                .jump = in->pressed[GAME_ACTION_JUMP] > 0,
                .wave = in->pressed[GAME_ACTION_WAVE] > 0,
                .hit = in->pressed[GAME_ACTION_HIT] > 0,
                .die = in->pressed[GAME_ACTION_DIE] > 0,
            };
            aim_player(d);
            trace_poses_attach(d->trace_poses, d->player, d->crowd);
            updated = player_step(d->player, &intent, camera_yaw_radians(&d->camera), scaled, &update);
            explain_triggers(d, updated ? &update : NULL);
            if (updated)
                log_events(d, &update.animation);
        }
        set_crowd_lod(d);
        aim_crowd(d);
        crowd_update(d->crowd, scaled);
        d->simulation_time += scaled;
        record_step(d);
        /* The panel's history: the player's decisions as they are made, a crowd member's as seen after. */
        if (d->tracked)
            state_panel_observe(&d->tracked_history, d->tracked, d->simulation_time);
        else if (updated)
            state_panel_record(&d->tracked_history, player_animator(d->player), &update.decision,
                               d->simulation_time);
    }
    /* Every step goes into the trace, paused ones too, so each scripted key shows up where it was used. */
    if (d->trace)
        write_trace_step(d, applied, applied_count, updated ? &update : NULL);
    ++d->step_count;
    game_input_end_step(&d->input);
    d->clock += dt;
}

/* ---- Events --------------------------------------------------------------------------------------------- */

/* A click at a pixel of the window, as a position in the framebuffer (the pixel's centre): a high-DPI
 * window has more framebuffer pixels than the window units mouse events come in. */
static void click_window_pixel(demo *d, int x, int y)
{
    int window_width = 0, window_height = 0, width = 0, height = 0;
    platform_window_size(&window_width, &window_height);
    platform_framebuffer_size(&width, &height);
    float scale_x = window_width > 0 ? (float)width / (float)window_width : 1.0f;
    float scale_y = window_height > 0 ? (float)height / (float)window_height : 1.0f;
    click(&d->input, ((float)x + 0.5f) * scale_x, ((float)y + 0.5f) * scale_y);
}

static void handle_events(demo *d)
{
    platform_event event;
    while (platform_next_event(&event)) {
        switch (event.type) {
        case PLATFORM_EVENT_QUIT:
            d->quit = true;
            break;
        case PLATFORM_EVENT_KEY_DOWN:
        case PLATFORM_EVENT_KEY_UP:
            if (!event.repeat)
                game_input_key(&d->input, &d->controls, event.key, event.type == PLATFORM_EVENT_KEY_DOWN);
            break;
        case PLATFORM_EVENT_MOUSE_MOTION:
            if (event.buttons & (PLATFORM_MOUSE_LEFT | PLATFORM_MOUSE_RIGHT)) {
                d->input.drag_x += (float)event.dx;
                d->input.drag_y += (float)event.dy;
            }
            if (d->mouse_left_down)
                d->mouse_left_travel += fabsf((float)event.dx) + fabsf((float)event.dy);
            break;
        case PLATFORM_EVENT_MOUSE_BUTTON_DOWN:
            if (event.buttons & PLATFORM_MOUSE_LEFT) {
                d->mouse_left_down = true;
                d->mouse_left_travel = 0.0f;
            }
            break;
        case PLATFORM_EVENT_MOUSE_BUTTON_UP:
            if ((event.buttons & PLATFORM_MOUSE_LEFT) && d->mouse_left_down) {
                d->mouse_left_down = false;
                if (d->mouse_left_travel < DEMO_CLICK_TRAVEL_PIXELS)
                    click_window_pixel(d, event.x, event.y);
            }
            break;
        case PLATFORM_EVENT_MOUSE_WHEEL:
            d->input.wheel_steps += (float)event.wheel_y;
            break;
        case PLATFORM_EVENT_FOCUS_LOST:
            game_input_release_all(&d->input);
            d->mouse_left_down = false;
            break;
        default:
            break;
        }
    }
}

/* ---- Drawing -------------------------------------------------------------------------------------------- */

_Static_assert((int)DEMO_EVENT_LOG <= (int)HUD_EVENTS_MAX && (int)DEMO_MESSAGE_LINES <= (int)HUD_MESSAGES_MAX,
               "the HUD's view holds every logged event and shown message");

void demo_hud_view(const demo *d, hud_view *view)
{
    crowd_memory_figures memory = crowd_memory(d->crowd);
    cache_stats shared = cache_get_stats(d->cache);
    *view = (hud_view){
        .fps = d->timings.fps,
        .frame_ms = d->timings.frame_ms,
        .update_ms = d->timings.update_ms,
        .draw_ms = d->timings.draw_ms,
        .player_layers = d->player ? animator_controller(player_animator(d->player)) : NULL,
        .player_state = d->player ? player_state_name(d->player) : "",
        .player_speed = d->player ? player_speed(d->player) : 0.0f,
        .time_scale = d->time_scale,
        .paused = d->paused,
        .recording = recorder_recording(d->recorder),
        .recording_seconds = (float)recorder_frame_count(d->recorder) / (d->recorder ? recorder_rate(d->recorder) : 1.0f),
        .event_count = d->event_count,
        .crowd_entities = memory.entity_count,
        .crowd_poses_per_step = crowd_poses_updated(d->crowd),
        .crowd_bytes_per_entity = memory.bytes_per_entity,
        .crowd_entity_bytes = memory.entity_bytes,
        .shared_bytes = shared.shared_bytes,
        .shared_models = shared.models,
        .shared_clips = shared.all_clips, /* every clip held, however it was made */
        .draw_calls = d->gfx.draw_calls,
        .drawn = d->gfx.instances,
        .culled = d->gfx.culled,
        .budget = hud_budget_from_stats(&d->gfx),
        .cpu_skinning = d->views.cpu_skinning,
        .skin_blend = scene_skinning_name(d->scene.skinning),
        .skeleton = d->views.skeleton,
        .bounds = d->views.bounds,
        .normals = d->views.normals,
        .look_at = d->views.look_at,
        .foot_ik = d->views.foot_ik,
        .foot_ik_on = d->player && animator_character(player_animator(d->player))->foot_lock.ik,
        .pelvis_drop = d->player ? animator_foot_lock(player_animator(d->player))->pelvis_drop : 0.0f,
        .look_player = d->player && d->settings.look.player,
        .look_weight = d->player ? animator_look_weight(player_animator(d->player)) : 0.0f,
        .look_crowd_distance = d->settings.look.crowd_distance,
        .ground = ground_kind_name(d->ground.kind),
        .status = d->status,
        .message_count = d->message_count,
        .messages_total = d->messages_total,
        .show_help = d->show_help,
        .controls = &d->controls,
        .state_machine = d->show_state_machine ? &d->state_panel : NULL,
    };
    for (int i = 0; i < d->event_count; ++i)
        view->events[i] = (hud_event){d->events[i].name, d->events[i].weight,
                                      d->simulation_time - d->events[i].time};
    for (int i = 0; i < d->message_count; ++i)
        view->messages[i] = d->messages[i];
    _Static_assert(CROWD_TIER_COUNT == sizeof view->crowd_tiers / sizeof view->crowd_tiers[0], "a count per tier");
    crowd_tier_counts(d->crowd, view->crowd_tiers);
}

static void draw_frame(demo *d)
{
    int width = 0, height = 0;
    platform_framebuffer_size(&width, &height);
    if (width <= 0 || height <= 0)
        return;
    gfx_frame_desc frame = {
        .width = width,
        .height = height,
        .cpu_skinning = d->views.cpu_skinning,
        .debug_normals = d->views.normals,
        .lod_colors = d->views.lod_colors,
        .lod_error_pixels = d->settings.render.levels_of_detail ? d->settings.render.lod_error_pixels : -1.0f,
        .no_stand_ins = !d->settings.render.stand_ins,
        .stand_in_pixels = d->settings.render.stand_in_pixels,
        .skin_once = d->settings.render.skin_once,
        /* Light from the front left of the default camera, so shadows fall where the player sees them. */
        .light_direction = {0.55f, -1.0f, -0.45f},
    };
    camera_matrices(&d->camera, (float)width / (float)height, frame.view, frame.projection, frame.camera_position);
    gfx_begin_frame(&frame);
    d->scene.submitted = 0;
    mat4 world;
    if (d->player) {
        player_world_matrix(d->player, world);
        scene_submit(&d->scene, player_animator(d->player), world, &d->views, NULL, &d->player_lod);
    }
    /* The crowd's palette slots are handed out in order, then filled on all cores. */
    int members = scene_queue_crowd(&d->scene, d->crowd, &d->views);
    scene_write_crowd_palettes(d->crowd, d->scene.crowd_palettes, members, d->jobs);
    if (d->show_state_machine && d->tracked) {
        /* Which member the panel shows: the box of its pose (what a click meets), in the panel's amber. */
        mat4 placement, box_world;
        float culling[2][3], pose_box[2][3];
        crowd_world(d->crowd, d->tracked_index, placement);
        if (scene_culling_box(d->tracked, placement, box_world, culling) &&
            scene_pose_bounds(&d->scene, d->tracked, pose_box))
            gfx_debug_box(box_world, pose_box, (float[4]){1.0f, 0.78f, 0.25f, 1.0f});
    }
    platform_begin_frame();
    gfx_end_frame();
    d->gfx = gfx_frame_stats();
    if (d->show_state_machine)
        demo_state_panel(d, &d->state_panel);
    hud_view hud;
    demo_hud_view(d, &hud);
    gfx_overlay_begin(); /* the HUD's GPU time counts in the overlay's */
    hud_draw(&hud, width, height);
    gfx_overlay_end();
}

/* Exponential smoothing: the HUD's figures settle over about a second without jumping every frame. */
static void smooth(double *value, double sample)
{
    *value = *value == 0.0 ? sample : *value + 0.05 * (sample - *value);
}

/* ---- Start and end -------------------------------------------------------------------------------------- */

bool demo_start(demo *d, const demo_options *options)
{
    memset(d, 0, sizeof *d);
    d->options = *options;
    d->time_scale = 1.0f;
    d->show_help = options->show_help;
    d->views.cpu_skinning = options->cpu_skinning;
    const char *dir = options->config_dir;
    snprintf(d->characters_path, sizeof d->characters_path, "%s/characters.ini", dir);
    snprintf(d->controls_path, sizeof d->controls_path, "%s/controls.ini", dir);
    snprintf(d->settings_path, sizeof d->settings_path, "%s/demo.ini", dir);
    d->controls = controls_defaults();
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
                            "(see README \"Troubleshooting\")\n", err.message, desc.width, desc.height);
        else
            fprintf(stderr, "marionette: %s; without a display: --headless (offscreen) or xvfb-run -a marionette "
                            "(see README \"Troubleshooting\")\n", err.message);
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
    set_ground(d, d->ground_setting);

    load_configuration(d, false);
    /* demo.ini's own problems, read before the window existed, join the HUD's list. */
    show_problems(d, &problems);
    diag_list_free(&problems);

    if (options->script) {
        diag_list script_problems = {0};
        d->script = input_script_load(options->script, &script_problems);
        show_problems(d, &script_problems);
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
        start_recording(d, options->record);
        if (!recorder_recording(d->recorder))
            return false;
    }
    if (options->crowd > 0)
        spawn_crowd(d, options->crowd);
    return true;
}

void demo_finish(demo *d)
{
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
    stop_recording(d);
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
    gfx_text_shutdown();
    gfx_shutdown();
    platform_shutdown();
}

bool demo_frame(demo *d)
{
    if (d->quit)
        return false;
    const double step = 1.0 / DEMO_STEP_HZ;
    double frame_start = now_seconds();
    double elapsed = platform_is_headless() ? DEMO_HEADLESS_FRAME_SECONDS
                                            : fmin(d->last_frame_start > 0.0 ? frame_start - d->last_frame_start : step,
                                                   DEMO_MAX_FRAME_SECONDS);
    d->last_frame_start = frame_start;
    handle_events(d);
    d->step_accumulator += elapsed;
    double update_start = now_seconds();
    while (d->step_accumulator >= step - 1e-9) {
        simulate_step(d, (float)step);
        d->step_accumulator -= step;
    }
    if (d->player) {
        vec3 position;
        player_position(d->player, position);
        /* Framed by the character's height in metres, so a 0.5 m or a 3 m character fills the view too. */
        camera_frame_subject(&d->camera, animator_character(player_animator(d->player))->height_m);
        camera_follow(&d->camera, position, (float)elapsed);
    }
    double draw_start = now_seconds();
    draw_frame(d);
    double draw_end = now_seconds();
    ++d->frame_count;
    bool last_frame = d->options.frames > 0 && d->frame_count >= d->options.frames;
    if (d->screenshot_requested) {
        d->screenshot_requested = false;
        take_screenshot(d, NULL);
    }
    if (last_frame && d->options.screenshot)
        take_screenshot(d, d->options.screenshot);
    const char *errors = gfx_check_errors();
    if (errors) {
        ++d->gl_error_frames;
        fprintf(stderr, "marionette: GL errors: %s\n", errors);
    }
    platform_end_frame();
    /* Windowed, files are looked at twice a second; headless runs (tests) look every frame so a scripted
     * edit is picked up at a known frame. */
    if (draw_end - d->last_reload_poll > DEMO_RELOAD_POLL_SECONDS || platform_is_headless()) {
        d->last_reload_poll = draw_end;
        load_configuration(d, false);
    }
    smooth(&d->timings.update_ms, 1000.0 * (draw_start - update_start));
    smooth(&d->timings.draw_ms, 1000.0 * (draw_end - draw_start));
    smooth(&d->timings.frame_ms, 1000.0 * (now_seconds() - frame_start));
    d->timings.fps = d->timings.frame_ms > 0.0 ? 1000.0 / d->timings.frame_ms : 0.0;
    if (last_frame)
        d->quit = true;
    return !d->quit;
}

int demo_run(const demo_options *options)
{
    static demo d; /* large; one per process */
    bool started = demo_start(&d, options);
    while (started && demo_frame(&d))
        continue;
    demo_finish(&d);
    return started ? 0 : 1;
}
