/* demo_internal: the state the demo's rooms share (demo.c, demo_frame.c, demo_reload.c, demo_actions.c,
 * demo_trace.c) and what each offers the others; nothing outside game/demo*.c includes it (tests and tools
 * read a demo through demo.h's queries). */
#ifndef MARIONETTE_DEMO_INTERNAL_H
#define MARIONETTE_DEMO_INTERNAL_H

#include <stdio.h>

#include "anim/config/anim_config.h"
#include "base/watch.h"
#include "cache/cache.h"
#include "demo.h"

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
    /* The program's own actions (options.actions), after the demo's in the controls: their controls rows, each
     * view's switch; and the HUD's lists of the views on (demo_view_capacity each), filled every frame. */
    controls_action_row *extra_rows;
    bool *extra_on;
    const char **hud_views, **hud_legends;
    double last_frame_start, last_reload_poll, step_accumulator;
} demo;

/* d->watched: the demo's own files, in this order (watch_set_due says when one is to be read again). */
enum { DEMO_WATCH_CONTROLS, DEMO_WATCH_SETTINGS, DEMO_WATCH_CHARACTERS };

/* demo_reload.c ------------------------------------------------------------------------------------------ */

/* The status line (HUD) says this now, and stderr too. */
void demo_set_status(demo *d, const char *format, ...) __attribute__((format(printf, 2, 3)));
/* Every problem to stderr; the first few stay on the HUD until the next good (re)load. */
void demo_show_problems(demo *d, diag_list *problems);
void demo_clear_problems(demo *d);
/* Everyone stands on `kind` from now on, and gfx draws it; false (said on the status line) when it cannot
 * be drawn. */
bool demo_set_ground(demo *d, ground_kind kind);
/* Load everything at start, or reload what changed (force: everything, as F5 asks). */
void demo_load_configuration(demo *d, bool force);

/* demo_actions.c ----------------------------------------------------------------------------------------- */

/* What one step's key presses and clicks ask for, besides moving the player. */
void demo_apply_actions(demo *d);
/* How many views can be on at once: the demo's and extra_count of the program's own (the HUD's lists). */
int demo_view_capacity(int extra_count);
/* The words of the views on now into views, and their legends into legends (*legend_count of them), each
 * array of demo_view_capacity; returns how many views. */
int demo_views_on(const demo *d, const char **views, const char **legends, int *legend_count);
/* The program's own views that are on, drawn (after the scene is queued). */
void demo_draw_views(const demo *d);
/* The camera follows what the mouse and the orbit keys ask, every step. */
void demo_steer_camera(demo *d, float dt);
/* Why a key for one of the player's triggers did nothing, on the status line. */
void demo_explain_triggers(demo *d, const animator_update_result *update);
/* A left click at framebuffer position (x, y), for the next step. */
void demo_click(game_input *input, float x, float y);
/* count members more, as the spawn key does (up to demo.ini's crowd max). */
void demo_spawn_crowd(demo *d, int count);
/* After the crowd lost members or a reload moved the entities: the tracked member where it is now, or the
 * player when it is gone. */
void demo_find_tracked(demo *d);

/* demo_trace.c ------------------------------------------------------------------------------------------- */

/* A PNG of the last frame at path, or the next free name in screenshots/ when NULL. */
void demo_take_screenshot(demo *d, const char *path);
/* Start recording the player (into path, or the next free name in recordings/ when NULL). */
void demo_start_recording(demo *d, const char *path);
/* Stop and write what was recorded; false (said on the status line) when it could not be written. */
bool demo_stop_recording(demo *d);
/* After a step: the player's final pose into the recording. */
void demo_record_step(demo *d);
/* One step of the JSON trace (update: the player's, NULL when it did not move). */
void demo_write_trace_step(demo *d, const input_script_event *applied, int applied_count,
                           const animator_update_result *update);

#endif
