/* demo: the program people run first. A platform event loop around a fixed-step simulation (120 Hz) of the
 * player and the crowd, rendering decoupled from it; keys through config/controls.ini; hot reload of every
 * config file; headless runs driven by an input script with a JSON trace and a screenshot, for tests.
 * The demo is opaque: tests and tools read it through the queries below; the HUD gets a hud_view of it
 * (demo_hud_view). Its rooms are game/demo*.c (see demo.c). */
#ifndef MARIONETTE_DEMO_H
#define MARIONETTE_DEMO_H

#include <stdbool.h>
#include <stdio.h>

#include "anim/config/anim_config.h"
#include "base/diag.h"
#include "base/watch.h"
#include "cache/cache.h"
#include "camera.h"
#include "controls.h"
#include "crowd.h"
#include "demo_config.h"
#include "hud.h"
#include "input_script.h"
#include "player.h"
#include "scene.h"
#include "state_panel.h"

enum {
    DEMO_STEP_HZ = 120,
    DEMO_EVENT_LOG = 6,          /* the player's last events the HUD lists */
    DEMO_MESSAGE_LINES = 6,      /* config problems the HUD shows (the rest go to stderr) */
    DEMO_PATH_MAX = 1024,
};

/* The demo, opaque: tests and tools look at it through the queries below. */
typedef struct demo demo;

/* A program's own action, added to the demo's (demo_options.actions): its row in the controls (its name in
 * controls.ini, its label in the help, its default keys), and what it does. Either a debug view: `view` is
 * its word on the HUD while it is on, its key switches it, `draw` draws it every frame while it is on (with
 * gfx's debug lines and boxes) and `legend`, when not NULL, is a HUD line saying what it shows; or an action:
 * `run` is called every step its key was pressed in, with the number of presses. The demo's own views and
 * actions are rows of the same tables (demo_actions.c). */
typedef struct demo_action_row {
    controls_action_row controls;
    const char *view;
    const char *legend;
    void (*draw)(const demo *d, void *user);
    void (*run)(demo *d, int presses, void *user);
    void *user;
} demo_action_row;

typedef struct demo_options {
    bool headless;             /* offscreen rendering, no window (also when SDL_VIDEODRIVER=offscreen) */
    int frames;                /* stop after this many frames; 0: run until quit */
    const char *screenshot;    /* PNG written after the last frame; NULL: none */
    int crowd;                 /* crowd members spawned at start */
    const char *script;        /* input script replayed as the player's keys; NULL: none */
    const char *trace;         /* JSON trace of every simulation step; NULL: none */
    const char *trace_joints;  /* poses in the trace: "all" or NAME,NAME (trace_poses.h); NULL: none */
    const char *trace_members; /* crowd members whose poses the trace carries besides the player's */
    bool trace_stages;         /* every stage's pose in the trace, not only the last */
    const char *record;        /* the player's pose recorded from the start into this .md5anim; NULL: not
                                * (the record key, F9, starts and stops one in recordings/ at any time) */
    float record_rate;         /* frames a second of a recording, 1 to 120; 0: 30 */
    bool record_in_place;      /* the recording's root stays where it is instead of moving with the body */
    const char *config_dir;    /* folder of characters.ini, controls.ini, demo.ini */
    int width, height;         /* 0: demo.ini's window size */
    bool cpu_skinning;         /* start on the CPU skinning path */
    bool show_help;            /* start with the help shown */
    const demo_action_row *actions; /* the program's own actions and views (the rows outlive the demo); */
    int action_count;               /* their rows' names and default keys must not clash with the demo's */
} demo_options;

typedef struct demo_logged_event {
    char name[ANIM_NAME_MAX];
    float weight; /* anim_event's: one footstep per contact, as loud as the layers that share it */
    double time;
} demo_logged_event;

/* Run the demo to the end (quit, window closed, or options->frames). Returns the process exit status:
 * 0, or 1 when it could not start (no GL context) or a scripted run's file could not be read. */
int demo_run(const demo_options *options);

/* demo_run in pieces, for tests that look at the state between frames.
 * demo_start: makes the demo (*out; NULL only when out of memory) and starts it; false when it cannot run
 * (demo_finish is still needed). demo_frame: one frame (events, the simulation steps due, drawing); false
 * once the demo is over. demo_finish: ends the run (the trace and a recording written) and frees d. */
bool demo_start(demo **out, const demo_options *options);
bool demo_frame(demo *d);
void demo_finish(demo *d);

/* ---- Input besides the platform's events and the input script (tests, tools) ------------------------- */

/* The action as if its key were tapped: counted for the next step, as a key event would be. */
void demo_press(demo *d, game_action action);
/* A key went down or up, as the platform says it (through controls.ini's bindings). */
void demo_key(demo *d, platform_key key, bool down);
/* A left click at framebuffer position (x, y), pixels from the top-left, for the next step. */
void demo_click_at(demo *d, float x, float y);

/* ---- Queries: what a demo holds now (pointers valid until its next frame) ---------------------------- */

/* How far the run has got. */
typedef struct demo_progress {
    long frames;            /* frames drawn */
    long steps;             /* fixed simulation steps taken (paused ones too) */
    double simulation_time; /* seconds simulated (scaled by time_scale, stopped while paused) */
    double clock;           /* seconds of simulation steps, paused or not: the input script's time */
    float time_scale;
    bool paused, quit;
    int gl_error_frames;    /* frames that ended with GL errors */
} demo_progress;
demo_progress demo_progress_of(const demo *d);

player *demo_player(const demo *d);                  /* NULL while no character plays */
crowd *demo_crowd(const demo *d);
const anim_config *demo_anim_config(const demo *d);  /* NULL while no good config has loaded */
const demo_config *demo_settings(const demo *d);     /* demo.ini as last adopted */
const camera *demo_camera(const demo *d);
const ground *demo_ground(const demo *d);
const scene *demo_scene(const demo *d);
const scene_views *demo_views(const demo *d);        /* the debug views switched on */
const game_input *demo_input(const demo *d);
const gfx_stats *demo_gfx_stats(const demo *d);      /* the last frame's */
const struct trace_poses *demo_trace_poses(const demo *d); /* the trace's poses, or NULL */

/* The status line: the last reload, screenshot or refusal ("" for none). */
const char *demo_status(const demo *d);
/* Config problems of the last (re)load on the HUD: message(i) for i < count; total counts those only on
 * stderr too. */
int demo_message_count(const demo *d);
const char *demo_message(const demo *d, int i);
int demo_messages_total(const demo *d);
/* The player's last events, oldest first: event(i) for i < count. */
int demo_event_count(const demo *d);
const demo_logged_event *demo_event(const demo *d, int i);

/* Whether the program's own view `view` (demo_options.actions' row index) is on. */
bool demo_view_on(const demo *d, int view);

/* The panels: the controls (F1) and the state machine (F6), whether they show. */
bool demo_help_shown(const demo *d);
bool demo_state_machine_shown(const demo *d);
/* Whose state machine the panel shows: the crowd member picked (its animator and index now), or NULL and -1
 * for the player; the transitions since it was picked; the panel as last drawn. */
const animator *demo_tracked(const demo *d);
int demo_tracked_index(const demo *d);
const state_panel_history *demo_tracked_history(const demo *d);
const state_panel_lines *demo_shown_state_panel(const demo *d);

/* What the HUD shows of d now; the view points into d (valid until d changes). */
void demo_hud_view(const demo *d, hud_view *view);

/* The state machine panel of whichever d tracks (the player, or the crowd member last clicked), now. */
void demo_state_panel(const demo *d, state_panel_lines *out);

/* The box of the animator's skinned mesh as posed now (scene_pose_bounds), in its model's space; false
 * when its body has no mesh here. */
bool demo_pose_bounds(demo *d, const animator *animator, float out[2][3]);

/* The crowd member under framebuffer position (x, y) (pixels from the top-left) as the camera shows it
 * now: of the entities whose box the ray through it enters (the box of the skinned mesh as posed, tried
 * where the ray enters the culling box), the nearest; -1 for none, or when the player is nearer. */
int demo_pick(demo *d, float x, float y);

#endif
