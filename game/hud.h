/* hud: the demo's text overlay, drawn with gfx_text after the scene: frame figures, the player's state,
 * layers and last events, the crowd's shared and per-entity memory, draw calls, the views switched on,
 * the frame budget (GPU time per pass, triangles, instances per level of detail), the last reload and any
 * config problem with its file:line, the controls (F1) and the state machine panel (F6, its lines made by
 * state_panel) on the right.
 * Reads a hud_view (what it shows, filled by the demo every frame) and changes nothing; knows nothing of the
 * demo's state, the player, the crowd or the cache. */
#ifndef MARIONETTE_HUD_H
#define MARIONETTE_HUD_H

#include <stdbool.h>
#include <stddef.h>

#include "anim/anim_controller.h"
#include "controls.h"
#include "gfx/gfx.h"
#include "state_panel.h"

enum {
    HUD_EVENTS_MAX = 6,   /* the player's last events listed */
    HUD_MESSAGES_MAX = 6, /* config problems listed (the rest: "... and N more on stderr") */
};

typedef struct hud_event {
    const char *name;
    float weight;
    double seconds_ago; /* simulation seconds */
} hud_event;

/* The frame budget: a frame's gfx_stats figures (or a benchmark's medians of them). */
typedef struct hud_budget {
    bool gpu_timed;                       /* false: "GPU time not available" */
    float gpu_shadow_ms, gpu_ground_ms, gpu_characters_ms, gpu_overlay_ms, gpu_frame_ms;
    long long triangles, shadow_triangles; /* every pass, and of them the shadow pass */
    int lod_instances[GFX_LOD_LEVELS], shadow_lod_instances[GFX_LOD_LEVELS];
} hud_budget;

hud_budget hud_budget_from_stats(const gfx_stats *stats);
/* The budget in words: GPU time per pass, then triangles with the level histograms, joined by `between`
 * (the benchmarks: "; "), without a final newline. The HUD shows the same two parts: the GPU's under the
 * CPU's figures, the triangles on the draw line. */
void hud_budget_text(const hud_budget *budget, const char *between, char *buffer, size_t size);

/* Everything the HUD shows; the strings and the controller belong to the caller and must outlive the call. */
typedef struct hud_view {
    double fps, frame_ms, update_ms, draw_ms;

    const anim_controller *player_layers; /* the player's channels and layers; NULL: no player */
    const char *player_state;
    float player_speed;                   /* m/s */
    float time_scale;
    bool paused;
    bool recording;          /* the player's pose is being recorded (recorder.h) */
    float recording_seconds; /* how long, while recording */
    hud_event events[HUD_EVENTS_MAX];     /* newest last */
    int event_count;

    int crowd_entities, crowd_poses_per_step;
    int crowd_tiers[4];                   /* members near, middle, far, hidden (crowd.h: significance) */
    size_t crowd_bytes_per_entity, crowd_entity_bytes;
    size_t shared_bytes;                  /* models and clips in the asset cache */
    int shared_models, shared_clips;

    int draw_calls, drawn, culled;        /* the last frame's */
    hud_budget budget;                    /* the last frame's (its GPU figures a few frames older) */
    bool cpu_skinning;
    const char *skin_blend;               /* how characters are skinned (scene_skinning_name); NULL: not shown */
    const char *const *views;             /* the debug views switched on, each its word ("skeleton"), in order */
    int view_count;
    const char *const *legends;           /* a line each for the views on that explain what they draw */
    int legend_count;
    bool foot_ik_on;                      /* the player's character places its feet (characters.ini foot_ik) */
    float pelvis_drop;                    /* metres its pelvis is lowered now; on the player's line */
    bool look_player;                     /* the player looks at the camera (demo.ini [look]); on its line */
    float look_weight;                    /* how far it turns to it now, 0..1 */
    float look_crowd_distance;            /* metres; 0: the crowd does not look */
    const char *ground;                   /* what everyone walks on: "flat", "hills", "steps", shown on the
                                           * player's line; NULL: not shown */

    const char *status;                   /* the last reload or screenshot; "" or NULL: none */
    const char *messages[HUD_MESSAGES_MAX];
    int message_count;                    /* config problems of the last failed (re)load shown */
    int messages_total;                   /* all of them, shown or not */

    bool show_help;
    const controls *controls;             /* the bindings, for the help and the help key's name; NULL: F1 */

    const state_panel_lines *state_machine; /* the state machine panel; NULL: not shown */
} hud_view;

void hud_draw(const hud_view *view, int width, int height);

/* Where hud_draw puts its two top panels, in pixels from the top left: the main block (the text of
 * hud_text) and the right panel (the controls when show_help, else the hint naming their key). The right
 * panel sits in the top right corner, or below the main block where the main block reaches that far right
 * (a narrow window), so it never covers the main block's lines. */
typedef struct hud_rect {
    float left, top, right, bottom;
} hud_rect;
typedef struct hud_layout {
    hud_rect main, right;
    int scale, line; /* text scale and line height */
} hud_layout;
hud_layout hud_layout_of(const hud_view *view, int width, int height);

/* The HUD's lines as plain text (what hud_draw shows, the help and the state machine panel excluded: the
 * panel's lines are text already), for tests and logs. */
void hud_text(const hud_view *view, char *buffer, size_t size);

#endif
