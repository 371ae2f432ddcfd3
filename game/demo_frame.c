/* demo_frame: one frame of the demo: platform events -> input (controls.ini) -> fixed simulation steps
 * (script events, actions, player, crowd, trace) -> camera -> draw (player, crowd, debug views) -> HUD. */
#include "demo_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "gfx/gfx_text.h"
#include "look.h"
#include "platform/platform.h"
#include "recorder.h"
#include "trace_poses.h"

static const double DEMO_HEADLESS_FRAME_SECONDS = 1.0 / 60.0; /* a headless frame shows this much time */
static const double DEMO_MAX_FRAME_SECONDS = 0.25;            /* a stall is not caught up beyond this */
static const double DEMO_RELOAD_POLL_SECONDS = 0.5;
static const float DEMO_LOD_FULL_RATE_METRES = 12.0f, DEMO_LOD_HALF_RATE_METRES = 30.0f;
/* A left press and release with the pointer moved less than this in between is a click (it picks whose
 * state machine the panel shows); more is a drag, which orbits the camera. */
static const float DEMO_CLICK_TRAVEL_PIXELS = 4.0f;

static double now_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
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
                demo_click(&d->input, event->x + 0.5f, event->y + 0.5f); /* the pixel's centre */
        }
    }
    demo_apply_actions(d);
    demo_steer_camera(d, dt);

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
            demo_explain_triggers(d, updated ? &update : NULL);
            if (updated)
                log_events(d, &update.animation);
        }
        set_crowd_lod(d);
        aim_crowd(d);
        crowd_update(d->crowd, scaled);
        d->simulation_time += scaled;
        demo_record_step(d);
        /* The panel's history: the player's decisions as they are made, a crowd member's as seen after. */
        if (d->tracked)
            state_panel_observe(&d->tracked_history, d->tracked, d->simulation_time);
        else if (updated)
            state_panel_record(&d->tracked_history, player_animator(d->player), &update.decision,
                               d->simulation_time);
    }
    /* Every step goes into the trace, paused ones too, so each scripted key shows up where it was used. */
    if (d->trace)
        demo_write_trace_step(d, applied, applied_count, updated ? &update : NULL);
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
    demo_click(&d->input, ((float)x + 0.5f) * scale_x, ((float)y + 0.5f) * scale_y);
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

void demo_press(demo *d, game_action action)
{
    if ((int)action >= 0 && (int)action < d->input.action_count)
        ++d->input.pressed[action];
}

void demo_key(demo *d, platform_key key, bool down)
{
    game_input_key(&d->input, &d->controls, key, down);
}

void demo_click_at(demo *d, float x, float y)
{
    demo_click(&d->input, x, y);
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
        .views = d->hud_views,
        .legends = d->hud_legends,
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
    view->view_count = demo_views_on(d, d->hud_views, d->hud_legends, &view->legend_count);
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
        .debug_tangents = d->views.tangents,
        .no_maps = d->views.no_maps,
        .lod_colors = d->views.lod_colors,
        .lod_error_pixels = d->settings.render.levels_of_detail ? d->settings.render.lod_error_pixels : -1.0f,
        .no_stand_ins = !d->settings.render.stand_ins,
        .stand_in_pixels = d->settings.render.stand_in_pixels,
        .skin_once = d->settings.render.skin_once,
        /* Light from the front left of the default camera, so shadows fall where the player sees them. */
        .light_direction = {0.55f, -1.0f, -0.45f},
    };
    /* demo.ini's light_spin turns it about the vertical with the simulated time (paused: it holds still). */
    float turn = glm_rad((float)fmod((double)d->settings.render.light_spin * d->simulation_time, 360.0));
    float x = frame.light_direction[0], z = frame.light_direction[2];
    frame.light_direction[0] = x * cosf(turn) - z * sinf(turn);
    frame.light_direction[2] = x * sinf(turn) + z * cosf(turn);
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
    demo_draw_views(d); /* the program's own views that are on */
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
        demo_take_screenshot(d, NULL);
    }
    if (last_frame && d->options.screenshot)
        demo_take_screenshot(d, d->options.screenshot);
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
        demo_load_configuration(d, false);
    }
    smooth(&d->timings.update_ms, 1000.0 * (draw_start - update_start));
    smooth(&d->timings.draw_ms, 1000.0 * (draw_end - draw_start));
    smooth(&d->timings.frame_ms, 1000.0 * (now_seconds() - frame_start));
    d->timings.fps = d->timings.frame_ms > 0.0 ? 1000.0 / d->timings.frame_ms : 0.0;
    if (last_frame)
        d->quit = true;
    return !d->quit;
}
