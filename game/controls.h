/* controls: the demo's key bindings (actions such as jump or pause, each bound to up to four keys) read
 * from config/controls.ini so a player can remap them without rebuilding, the mouse settings, the help
 * text built from the actual bindings, and the per-step input state the fixed-step simulation reads.
 * Knows the engine's key codes and key names only (platform_keys.h: no window, no events); knows nothing of
 * what an action does to the player, the camera or the renderer. */
#ifndef MARIONETTE_CONTROLS_H
#define MARIONETTE_CONTROLS_H

#include <stdbool.h>
#include <stddef.h>

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
    GAME_ACTION_TANGENTS,
    GAME_ACTION_MAPS,
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

/* An action's row: its name in controls.ini, its label in the help text, its default keys by name
 * (controls_key_from_name's names; the unused ones NULL). game_action's rows are built in; a program adds its
 * own after them (controls_init), each then the action GAME_ACTION_COUNT + its index: there is no cap. */
typedef struct controls_action_row {
    const char *name;
    const char *help;
    const char *keys[CONTROLS_KEYS_PER_ACTION];
} controls_action_row;

/* The keys bound to one action. */
typedef struct controls_binding {
    platform_key keys[CONTROLS_KEYS_PER_ACTION];
    int key_count; /* 0: the action is unbound */
} controls_binding;

/* The actions and their bindings. Made by controls_init or controls_defaults and freed by controls_free;
 * controls_load replaces them only when a whole file is good, so a failed reload leaves the last good ones. */
typedef struct controls {
    int action_count;                 /* GAME_ACTION_COUNT built in, then the program's own */
    const controls_action_row *extra; /* the program's rows (action GAME_ACTION_COUNT + i): they outlive c */
    controls_binding *bindings;       /* action_count of them */
    float orbit_degrees_per_pixel;       /* camera turn per pixel of mouse drag */
    float zoom_per_wheel_step;           /* metres the camera moves in or out per wheel step */
    bool invert_y;                       /* dragging up tilts the camera down instead of up */
    float orbit_keys_degrees_per_second; /* camera turn while an orbit key is held */
} controls;

/* The default bindings of the built-in actions and of extra_count more (extra: NULL, 0 for none) into *c:
 * WASD and the arrows move, both Shifts run, both Ctrls strafe, Space jumps, E waves, H hits, K dies, Q/R orbit,
 * F1-F7, G, T, P, '.', '[', ']', C, X, F12 and Escape for the rest (config/controls.ini lists the same).
 * False (c empty: action_count 0) when out of memory, or when an extra row has no name, a name another action
 * has, or a default key another action has (a key drives one action). */
bool controls_init(controls *c, const controls_action_row *extra, int extra_count);
/* controls_init with the built-in actions alone (empty when out of memory); free with controls_free. */
controls controls_defaults(void);
void controls_free(controls *c);
/* to (freed first) becomes a copy of from with bindings of its own; false, to empty, when out of memory. */
bool controls_copy(controls *to, const controls *from);

/* Read path's [keys] and [mouse] into out (made by controls_init: its actions, the program's own included,
 * are the ones the file may bind). An action or setting the file leaves out keeps its default. Every problem
 * goes to errors (may be NULL) as file:line; on any problem out is left exactly as it was and false is
 * returned, so the demo keeps its last good bindings. */
bool controls_load(const char *path, controls *out, diag_list *errors);

/* The actions bound to key (at most max written to actions, in action order); returns how many. */
int controls_actions_for_key(const controls *c, platform_key key, int *actions, int max);
/* A built-in action's name as written in controls.ini ("move_forward"); "unknown" outside the enum. */
const char *game_action_name(game_action action);
/* The built-in action named name, or GAME_ACTION_COUNT when there is none. */
game_action game_action_from_name(const char *name);
/* Any action of c (the program's own too): its row, NULL outside 0..action_count-1; the action named name, -1
 * for none. */
const controls_action_row *controls_action(const controls *c, int action);
int controls_action_from_name(const controls *c, const char *name);

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
    int action; /* what the key drove when it went down (a key drives one action: controls_load and
                 * controls_init refuse a key bound twice), so a reload of the bindings while it is held still
                 * releases exactly what it pressed */
} game_input_key_down;

/* Made by game_input_init, for a controls' action_count, with nothing held; freed by game_input_free. The
 * loop feeds it keys (and adds wheel and drag); each simulation step reads it and ends with
 * game_input_end_step. */
typedef struct game_input {
    int action_count;
    int *held;                        /* per action: keys holding it down now; > 0 means held */
    int *pressed;                     /* per action: times it went from not held to held since the last step
                                       * ended: a slow frame's quick taps each count (four taps of C spawn four
                                       * times) */
    int *released;                    /* per action: times it went from held to not held since the last step */
    float wheel_steps;                /* mouse wheel steps since the last step (positive: away from you) */
    float drag_x, drag_y;             /* mouse drag in pixels since the last step */
    bool clicked;                     /* a left click (no drag between press and release) since the last step */
    float click_x, click_y;           /* where the last one was: framebuffer pixels from the top-left */
    int key_down_count;
    game_input_key_down keys_down[GAME_INPUT_KEYS_DOWN_MAX];
} game_input;

/* Nothing held, for action_count actions; false (input empty) when out of memory. */
bool game_input_init(game_input *input, int action_count);
void game_input_free(game_input *input);

/* A key went down or up. A down for a key already down (key repeat) and an up for a key not down (pressed
 * before the window had focus) change nothing; keys bound to no action, or to one input does not count
 * (c has more actions than input), are not tracked. */
void game_input_key(game_input *input, const controls *c, platform_key key, bool down);

/* Let go of every key (the window lost focus, so the ups will never come): held actions get released. */
void game_input_release_all(game_input *input);

/* Clear the per-step edges, wheel, drag and click; held keys stay held. */
void game_input_end_step(game_input *input);

#endif
