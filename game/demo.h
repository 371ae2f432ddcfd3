/* demo: the program people run first. A platform event loop around a fixed-step simulation (120 Hz) of the
 * player and the crowd, rendering decoupled from it; keys through config/controls.ini; hot reload of every
 * config file; headless runs driven by an input script with a JSON trace and a screenshot, for tests.
 * The state is a plain struct tests can look at; the HUD gets a hud_view of it (demo_hud_view). */
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
} demo_options;

typedef struct demo_logged_event {
    char name[ANIM_NAME_MAX];
    float weight; /* anim_event's: one footstep per contact, as loud as the layers that share it */
    double time;
} demo_logged_event;

typedef struct demo_timings {
    double frame_ms, update_ms, draw_ms; /* smoothed over recent frames */
    double fps;
} demo_timings;

typedef struct demo {
    demo_options options;
    char characters_path[DEMO_PATH_MAX], controls_path[DEMO_PATH_MAX], settings_path[DEMO_PATH_MAX];

    cache *cache;
    anim_config *config;        /* NULL while no good config has loaded: the demo runs empty */
    demo_config settings;
    controls controls;
    game_input input;
    input_script *script;
    FILE *trace;                     /* trace_file's stream, or NULL */
    struct file_writer *trace_file;  /* written beside the target, renamed over it at the end (base/file.h) */
    long trace_steps;
    struct trace_poses *trace_poses; /* the poses the trace carries, or NULL */
    struct recorder *recorder;       /* the player's recording (record key or --record), made on first use */
    char record_path[DEMO_PATH_MAX]; /* where the recording goes when it stops */
    int recording_count;             /* recordings/marionette-NNN.md5anim numbers used */

    player *player;
    camera camera;
    crowd *crowd;
    ground ground;               /* what the player, the crowd and the camera stand on (and gfx draws) */
    ground_kind ground_setting;  /* demo.ini's [world] ground as last applied: a reload that changes it
                                  * switches the ground, one that does not leaves the ground key's choice */
    jobs *jobs;                  /* the crowd's update and palettes run on these (one per processor) */
    scene scene;
    scene_views views;
    gfx_lod_memory player_lod;   /* the player's level of detail last frame (hysteresis) */

    bool quit, paused, step_once, show_help, screenshot_requested;
    bool show_state_machine;     /* the state machine panel (F6) */
    /* Whose state machine the panel shows: a crowd member picked with the mouse, by its animator (which
     * stays while the member lives, whatever its index in the crowd), or NULL for the player. */
    const animator *tracked;
    int tracked_index;           /* where the tracked member was last found in the crowd */
    state_panel_history tracked_history; /* its transitions since it was picked */
    state_panel_lines state_panel;       /* the panel as last drawn */
    bool mouse_left_down;        /* a left click is a press and release without a drag in between */
    float mouse_left_travel;     /* pixels the pointer moved since the left button went down */
    float time_scale;
    double simulation_time;      /* seconds simulated (scaled by time_scale, stopped while paused) */
    double clock;                /* seconds of simulation steps, paused or not: the input script's time */
    long step_count;
    long frame_count;
    int screenshot_count;

    demo_logged_event events[DEMO_EVENT_LOG]; /* newest last */
    int event_count;

    char status[256];            /* the last reload or screenshot, for the HUD */
    int message_count;           /* config problems of the last failed (re)load */
    char messages[DEMO_MESSAGE_LINES][DIAG_TEXT_MAX];
    int messages_total;

    demo_timings timings;
    gfx_stats gfx;               /* last frame's */
    int gl_error_frames;         /* frames that ended with GL errors */
    watch_set watched;           /* controls.ini, demo.ini and characters.ini, for reload (base/watch) */
    double last_frame_start, last_reload_poll, step_accumulator;
} demo;

/* Run the demo to the end (quit, window closed, or options->frames). Returns the process exit status:
 * 0, or 1 when it could not start (no GL context) or a scripted run's file could not be read. */
int demo_run(const demo_options *options);

/* demo_run in pieces, for tests that look at the state between frames (d is large: make it static).
 * demo_start: false when the demo cannot run (demo_finish is still needed). demo_frame: one frame
 * (events, the simulation steps due, drawing); false once the demo is over. */
bool demo_start(demo *d, const demo_options *options);
bool demo_frame(demo *d);
void demo_finish(demo *d);

/* What the HUD shows of d now; the view points into d (valid until d changes). */
void demo_hud_view(const demo *d, hud_view *view);

/* The state machine panel of whichever d tracks (the player, or the crowd member last clicked), now. */
void demo_state_panel(const demo *d, state_panel_lines *out);

/* The crowd member under framebuffer position (x, y) (pixels from the top-left) as the camera shows it
 * now: of the entities whose box the ray through it enters (the box of the skinned mesh as posed, tried
 * where the ray enters the culling box), the nearest; -1 for none, or when the player is nearer. */
int demo_pick(demo *d, float x, float y);

#endif
