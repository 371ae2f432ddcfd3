/* demo_actions: what one step's key presses and clicks ask for besides moving the player (views, time,
 * the crowd, reloads, recordings), whose state machine the panel shows, and picking with the mouse. */
#include "demo_internal.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "gfx/gfx.h"
#include "pick.h"
#include "platform/platform.h"
#include "recorder.h"

/* Metres around the line from the player to the camera where a spawn puts no member (crowd_spawn_desc). */
static const float DEMO_CROWD_CLEAR_METRES = 1.5f;
static const float DEMO_TIME_SCALE_MIN = 1.0f / 16.0f, DEMO_TIME_SCALE_MAX = 4.0f;

/* ---- The state machine panel ----------------------------------------------------------------- */
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
void demo_find_tracked(demo *d)
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

bool demo_pose_bounds(demo *d, const animator *animator, float out[2][3])
{
    return scene_pose_bounds(&d->scene, animator, out);
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

void demo_click(game_input *input, float x, float y)
{
    input->clicked = true;
    input->click_x = x;
    input->click_y = y;
}

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

/* ---- Actions -------------------------------------------------------------------------------------------- */

void demo_spawn_crowd(demo *d, int count)
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
        demo_show_problems(d, &problems);
    demo_set_status(d, "crowd: %d added, %d in all", added, crowd_count(d->crowd));
    diag_list_free(&problems);
}

/* How many times the action was pressed since the last step: every tap of a slow frame counts, applied in
 * turn (a toggle pressed twice is back where it was, two taps of [ halve twice). */
static int pressed(const demo *d, int action)
{
    return d->input.pressed[action];
}

static void act_quit(demo *d, int presses)
{
    (void)presses;
    d->quit = true;
}

static void act_skin_blend(demo *d, int presses)
{
    for (int n = presses; n > 0; --n)
        d->scene.skinning = (scene_skinning)((d->scene.skinning + 1) % SCENE_SKINNING_COUNT);
}

static void act_step(demo *d, int presses)
{
    (void)presses;
    if (d->paused)
        d->step_once = true;
}

static void act_slower(demo *d, int presses)
{
    for (int n = presses; n > 0; --n)
        d->time_scale = fmaxf(d->time_scale * 0.5f, DEMO_TIME_SCALE_MIN);
}

static void act_faster(demo *d, int presses)
{
    for (int n = presses; n > 0; --n)
        d->time_scale = fminf(d->time_scale * 2.0f, DEMO_TIME_SCALE_MAX);
}

static void act_reload(demo *d, int presses)
{
    (void)presses;
    demo_load_configuration(d, true);
}

static void act_crowd_spawn(demo *d, int presses)
{
    for (int n = presses; n > 0; --n)
        demo_spawn_crowd(d, d->settings.crowd.count);
}

static void act_crowd_clear(demo *d, int presses)
{
    (void)presses;
    crowd_clear(d->crowd);
    demo_find_tracked(d);
    demo_set_status(d, "crowd cleared");
}

static void act_record(demo *d, int presses)
{
    for (int n = presses; n > 0; --n) {
        if (recorder_recording(d->recorder))
            demo_stop_recording(d);
        else /* --record's file holds the run from the start: later recordings go to recordings/ */
            demo_start_recording(d, NULL);
    }
}

static void act_screenshot(demo *d, int presses)
{
    (void)presses;
    d->screenshot_requested = true;
}

static void act_ground(demo *d, int presses)
{
    for (int n = presses; n > 0; --n) {
        /* flat -> hills -> steps -> flat: the tilted plane is the tests'. */
        ground_kind next = d->ground.kind == GROUND_FLAT ? GROUND_HILLS
                           : d->ground.kind == GROUND_HILLS ? GROUND_STEPS : GROUND_FLAT;
        if (demo_set_ground(d, next))
            demo_set_status(d, "ground: %s", ground_kind_name(next));
    }
}

/* What each of the demo's own actions does, once, in the order they are applied within a step: a switch (a
 * flag of the demo flipped by an odd number of presses; a debug view when it has a word for the HUD), or a
 * function called with the presses. The keys, names and help labels are the controls' rows (controls.c);
 * moving, running, jumping and the other player and camera actions are read where the step uses them. A
 * program's own actions (demo_options.actions) follow these. */
typedef struct demo_action_entry {
    game_action action;
    void (*run)(demo *d, int presses); /* NULL: a switch */
    size_t flag;                       /* a switch's bool: its offset in demo */
    const char *view;                  /* a switch that is a debug view: its word on the HUD while on */
    const char *legend;                /* and a line saying what it draws, or NULL */
} demo_action_entry;

#define DEMO_SWITCH(action, member) action, NULL, offsetof(demo, member)

static const demo_action_entry demo_actions_table[] = {
    {GAME_ACTION_QUIT, act_quit, 0, NULL, NULL},
    {DEMO_SWITCH(GAME_ACTION_HELP, show_help), NULL, NULL},
    {DEMO_SWITCH(GAME_ACTION_SKELETON, views.skeleton), "skeleton", NULL},
    {DEMO_SWITCH(GAME_ACTION_BOUNDS, views.bounds), "bounds",
     "bounds  bright box: this pose's skinned mesh  dim box: culling margin (clip bounds + skin reach)"},
    {DEMO_SWITCH(GAME_ACTION_NORMALS, views.normals), "normals", NULL},
    {DEMO_SWITCH(GAME_ACTION_TANGENTS, views.tangents), "tangent frames",
     "tangent frames  red: tangent (texture u)  green: bitangent (v)  cyan: normal"},
    {DEMO_SWITCH(GAME_ACTION_MAPS, views.no_maps), "maps off", NULL},
    {DEMO_SWITCH(GAME_ACTION_LOOK_AT, views.look_at), "look-at", NULL},
    {DEMO_SWITCH(GAME_ACTION_FOOT_IK, views.foot_ik), "foot-IK", NULL},
    {DEMO_SWITCH(GAME_ACTION_LEVELS, views.lod_colors), "level colours", NULL},
    {DEMO_SWITCH(GAME_ACTION_STATE_MACHINE, show_state_machine), NULL, NULL},
    {DEMO_SWITCH(GAME_ACTION_SKINNING, views.cpu_skinning), NULL, NULL}, /* the HUD's "CPU skinning" */
    {GAME_ACTION_SKIN_BLEND, act_skin_blend, 0, NULL, NULL},
    {DEMO_SWITCH(GAME_ACTION_PAUSE, paused), NULL, NULL},
    {GAME_ACTION_STEP, act_step, 0, NULL, NULL},
    {GAME_ACTION_SLOWER, act_slower, 0, NULL, NULL},
    {GAME_ACTION_FASTER, act_faster, 0, NULL, NULL},
    {GAME_ACTION_RELOAD, act_reload, 0, NULL, NULL},
    {GAME_ACTION_CROWD_SPAWN, act_crowd_spawn, 0, NULL, NULL},
    {GAME_ACTION_CROWD_CLEAR, act_crowd_clear, 0, NULL, NULL},
    {GAME_ACTION_RECORD, act_record, 0, NULL, NULL},
    {GAME_ACTION_SCREENSHOT, act_screenshot, 0, NULL, NULL},
    {GAME_ACTION_GROUND, act_ground, 0, NULL, NULL},
};
enum { DEMO_ACTION_ENTRIES = sizeof demo_actions_table / sizeof demo_actions_table[0] };

static bool *switch_of(demo *d, const demo_action_entry *entry)
{
    return (bool *)(void *)((char *)d + entry->flag);
}

int demo_view_capacity(int extra_count)
{
    return DEMO_ACTION_ENTRIES + extra_count;
}

/* What one step's key presses ask for, besides moving the player: the table's rows, then the program's own. */
void demo_apply_actions(demo *d)
{
    for (int i = 0; i < DEMO_ACTION_ENTRIES; ++i) {
        const demo_action_entry *entry = &demo_actions_table[i];
        int presses = pressed(d, entry->action);
        if (presses == 0)
            continue;
        if (entry->run)
            entry->run(d, presses);
        else if (presses % 2)
            *switch_of(d, entry) = !*switch_of(d, entry);
    }
    for (int i = 0; i < d->options.action_count; ++i) {
        const demo_action_row *row = &d->options.actions[i];
        int presses = pressed(d, GAME_ACTION_COUNT + i);
        if (presses == 0)
            continue;
        if (row->view)
            d->extra_on[i] = d->extra_on[i] != (presses % 2 == 1);
        else if (row->run)
            row->run(d, presses, row->user);
    }
    /* While the panel shows, a click says whose machine: a crowd member, or the player (clicked, or nothing
     * clicked). Clicking the one shown keeps its history. */
    if (d->input.clicked && d->show_state_machine) {
        int member = demo_pick(d, d->input.click_x, d->input.click_y);
        const animator *picked = member >= 0 ? crowd_animator(d->crowd, member) : NULL;
        if (picked != d->tracked)
            track(d, member);
    }
}

int demo_views_on(const demo *d, const char **views, const char **legends, int *legend_count)
{
    int count = 0;
    *legend_count = 0;
    for (int i = 0; i < DEMO_ACTION_ENTRIES; ++i) {
        const demo_action_entry *entry = &demo_actions_table[i];
        if (!entry->view || !*switch_of((demo *)d, entry))
            continue;
        views[count++] = entry->view;
        if (entry->legend)
            legends[(*legend_count)++] = entry->legend;
    }
    for (int i = 0; i < d->options.action_count; ++i) {
        const demo_action_row *row = &d->options.actions[i];
        if (!row->view || !d->extra_on[i])
            continue;
        views[count++] = row->view;
        if (row->legend)
            legends[(*legend_count)++] = row->legend;
    }
    return count;
}

void demo_draw_views(const demo *d)
{
    for (int i = 0; i < d->options.action_count; ++i)
        if (d->options.actions[i].view && d->extra_on[i] && d->options.actions[i].draw)
            d->options.actions[i].draw(d, d->options.actions[i].user);
}

bool demo_view_on(const demo *d, int view)
{
    return view >= 0 && view < d->options.action_count && d->extra_on[view];
}

/* The camera follows what the mouse and the orbit keys ask, every step (so a script's drag is exact). */
void demo_steer_camera(demo *d, float dt)
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

/* Why a key for one of the player's triggers did nothing, on the status line: the character's states have
 * no such trigger (the shipped characters have no hit or die), or it waited trigger_hold seconds in states
 * no transition from which takes it (a hit during a wave). */
void demo_explain_triggers(demo *d, const animator_update_result *update)
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
        if (d->controls.bindings[keys[k].action].key_count > 0)
            controls_key_name(d->controls.bindings[keys[k].action].keys[0], key, sizeof key);
        demo_set_status(d, "%s does nothing: %s's states.ini has no '%s' trigger (md5tool new-character writes hit and die "
                   "for the clips it finds)", key, character->name, keys[k].trigger);
    }
    if (!update || !update->decision.triggers_dropped)
        return;
    const state_machine_definition *machine = &character->machine;
    for (int p = 0; p < machine->parameter_count; ++p)
        if ((update->decision.triggers_dropped >> p) & 1u)
            demo_set_status(d, "'%s' did nothing: no transition from state '%s' takes it (states.ini)",
                       machine->parameters[p].name, animator_state_name(a));
}
