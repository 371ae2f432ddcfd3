/* controls: the demo's key bindings (actions such as jump or pause, each bound to up to four keys) read
 * from config/controls.ini so a player can remap them without rebuilding, the mouse settings, the help
 * text built from the actual bindings, and the per-step input state the fixed-step simulation reads.
 * Knows the engine's key codes and key names only (platform_keys.h: no window, no events); knows nothing of
 * what an action does to the player, the camera or the renderer. */
#ifndef MARIONETTE_CONTROLS_H
#define MARIONETTE_CONTROLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/diag.h"
#include "platform/platform_keys.h"

typedef enum game_action {
    GAME_ACTION_MOVE_FORWARD,
    GAME_ACTION_MOVE_BACK,
    GAME_ACTION_MOVE_LEFT,
    GAME_ACTION_MOVE_RIGHT,
    GAME_ACTION_RUN,
    GAME_ACTION_STRAFE,
    GAME_ACTION_JUMP,
    GAME_ACTION_WAVE,
    GAME_ACTION_HIT,
    GAME_ACTION_DIE,
    GAME_ACTION_ORBIT_LEFT,
    GAME_ACTION_ORBIT_RIGHT,
    GAME_ACTION_HELP,
    GAME_ACTION_SKELETON,
    GAME_ACTION_BOUNDS,
    GAME_ACTION_NORMALS,
    GAME_ACTION_LEVELS,
    GAME_ACTION_LOOK_AT,
    GAME_ACTION_FOOT_IK,
    GAME_ACTION_STATE_MACHINE,
    GAME_ACTION_SKINNING,
    GAME_ACTION_SKIN_BLEND,
    GAME_ACTION_PAUSE,
    GAME_ACTION_STEP,
    GAME_ACTION_SLOWER,
    GAME_ACTION_FASTER,
    GAME_ACTION_RELOAD,
    GAME_ACTION_CROWD_SPAWN,
    GAME_ACTION_CROWD_CLEAR,
    GAME_ACTION_GROUND,
    GAME_ACTION_SCREENSHOT,
    GAME_ACTION_RECORD,
    GAME_ACTION_QUIT,
    GAME_ACTION_COUNT
} game_action;

enum {
    CONTROLS_KEYS_PER_ACTION = 4,
    CONTROLS_HELP_LINE_MAX = 60,    /* characters per help line, newline not counted */
    CONTROLS_HELP_TEXT_MAX = 1024,  /* a buffer this size holds the help for any bindings */
    CONTROLS_KEY_NAME_MAX = 64,     /* a buffer this size holds any key's name */
};

/* A plain value: copying it copies the bindings, so a failed reload can leave the last good one alone. */
typedef struct controls {
    platform_key keys[GAME_ACTION_COUNT][CONTROLS_KEYS_PER_ACTION];
    int key_count[GAME_ACTION_COUNT]; /* 0: the action is unbound */
    float orbit_degrees_per_pixel;       /* camera turn per pixel of mouse drag */
    float zoom_per_wheel_step;           /* metres the camera moves in or out per wheel step */
    bool invert_y;                       /* dragging up tilts the camera down instead of up */
    float orbit_keys_degrees_per_second; /* camera turn while an orbit key is held */
} controls;

/* WASD and the arrows move, both Shifts run, both Ctrls strafe, Space jumps, E waves, H hits, K dies, Q/R orbit,
 * F1-F7, G, T, P, '.', '[', ']', C, X, F12 and Escape for the rest (config/controls.ini lists the same). */
controls controls_defaults(void);

/* Read path's [keys] and [mouse] into out. An action or setting the file leaves out keeps its default.
 * Every problem goes to errors (may be NULL) as file:line; on any problem out is left exactly as it was
 * and false is returned, so the demo keeps its last good bindings. */
bool controls_load(const char *path, controls *out, diag_list *errors);

/* The actions bound to key (at most max written to actions, in action order); returns how many. */
int controls_actions_for_key(const controls *c, platform_key key, game_action *actions, int max);

/* The action's name as written in controls.ini ("move_forward"); "unknown" outside the enum. */
const char *game_action_name(game_action action);

/* The action named name, or GAME_ACTION_COUNT when there is none. */
game_action game_action_from_name(const char *name);

/* A key from its name as controls.ini and input scripts write it: platform_key_from_name's names,
 * case-insensitive ("W", "Left Shift", "F1", "["), plus Comma, Semicolon and Hash for the keys that are
 * separators or comments in those files. PLATFORM_KEY_UNKNOWN (0) for a name that is no key, and for any name
 * with a byte outside printable ASCII (a control character, UTF-8 text: platform_key_from_name would take "é"
 * as a key no keyboard layout here names). Needs no window. */
platform_key controls_key_from_name(const char *name);

/* The byte offset of the first byte of name outside printable ASCII (' ' to '~'); -1 when there is none. */
int controls_name_odd_byte(const char *name);

/* name for a message: bytes outside printable ASCII written as \xNN, so a file's control characters never
 * reach the terminal raw. Always NUL-terminated; returns out. */
const char *controls_name_printable(const char *name, char *out, size_t size);

/* The name controls_key_from_name reads back as key ("W", "Left Shift", "Comma"); "?" for a key that has no
 * name. Always NUL-terminated. */
void controls_key_name(platform_key key, char *out, size_t size);

/* The on-screen help from the actual bindings (a remapped jump shows its new key): lines of at most
 * CONTROLS_HELP_LINE_MAX characters separated by '\n', no newline after the last. Cut short (still
 * terminated) if size is smaller than CONTROLS_HELP_TEXT_MAX. */
void controls_help_text(const controls *c, char *buffer, size_t size);

/* ---- Input state, per fixed simulation step ------------------------------------------------------- */

enum { GAME_INPUT_KEYS_DOWN_MAX = 16 }; /* more keys than any keyboard reports at once */

typedef struct game_input_key_down {
    platform_key key;
    uint64_t actions; /* bit per game_action: what the key held when it went down, so a reload of the
                       * bindings while it is held still releases exactly what it pressed */
} game_input_key_down;

/* Zero-initialised is "nothing held". The loop feeds it keys (and adds wheel and drag); each simulation
 * step reads it and ends with game_input_end_step. */
typedef struct game_input {
    int held[GAME_ACTION_COUNT];      /* keys holding the action down now; > 0 means held */
    int pressed[GAME_ACTION_COUNT];   /* times it went from not held to held since the last step ended: a slow
                                       * frame's quick taps each count (four taps of C spawn four times) */
    int released[GAME_ACTION_COUNT];  /* times it went from held to not held since the last step ended */
    float wheel_steps;                /* mouse wheel steps since the last step (positive: away from you) */
    float drag_x, drag_y;             /* mouse drag in pixels since the last step */
    bool clicked;                     /* a left click (no drag between press and release) since the last step */
    float click_x, click_y;           /* where the last one was: framebuffer pixels from the top-left */
    int key_down_count;
    game_input_key_down keys_down[GAME_INPUT_KEYS_DOWN_MAX];
} game_input;

/* A key went down or up. A down for a key already down (key repeat) and an up for a key not down (pressed
 * before the window had focus) change nothing; keys bound to no action are not tracked. */
void game_input_key(game_input *input, const controls *c, platform_key key, bool down);

/* Let go of every key (the window lost focus, so the ups will never come): held actions get released. */
void game_input_release_all(game_input *input);

/* Clear the per-step edges, wheel, drag and click; held keys stay held. */
void game_input_end_step(game_input *input);

#endif
