/* input_script: timed key presses, wheel steps, mouse drags and clicks read from a text file (`marionette --script
 * FILE`) and handed out by simulation time, so a test drives the demo as a player would and a headless run
 * replays identically at any frame rate. The events go through the same bindings as real keys.
 * Knows key names (through controls_key_from_name) but nothing of the bindings, windows or the simulation.
 *
 * The file: one event a line, `#` or `;` starts a comment (at a line's start or after a space), blank lines
 * are fine:
 *     # seconds  verb     argument
 *     0.5        press    W
 *     2.0        release  W
 *     2.5        tap      Space        ; press now, release one simulation step later
 *     3.0        press    Left Shift   ; key names, as in controls.ini (may contain spaces)
 *     4.0        wheel    -2           ; mouse wheel steps (zoom)
 *     4.5        drag     120 -30      ; mouse drag in pixels (orbit)
 *     5.0        click    640 360      ; left click on a pixel, from the top-left (picks a character)
 * Times are simulation seconds (not wall clock), never decreasing, 0 to INPUT_SCRIPT_TIME_MAX. Wheel steps
 * and drag pixels lie within -1e6..1e6, click pixels within 0..1e6 (one outside the picture hits nothing).
 * Numbers are plain decimals (base/decimal: no hexadecimal). */
#ifndef MARIONETTE_INPUT_SCRIPT_H
#define MARIONETTE_INPUT_SCRIPT_H

#include <stdbool.h>

#include "base/diag.h"
#include "platform/platform_keys.h"

/* About 116 days of simulation: a double adds a 1/144 s step to it with sub-microsecond error. */
#define INPUT_SCRIPT_TIME_MAX 1e7
/* The largest script file read (4 MiB: about 100,000 timed events); a larger one is refused unopened. */
#define INPUT_SCRIPT_MAX_FILE_BYTES ((size_t)4 << 20)

typedef enum input_script_event_kind {
    INPUT_SCRIPT_KEY_DOWN,
    INPUT_SCRIPT_KEY_UP,
    INPUT_SCRIPT_WHEEL,
    INPUT_SCRIPT_DRAG,
    INPUT_SCRIPT_CLICK,
} input_script_event_kind;

typedef struct input_script_event {
    input_script_event_kind kind;
    platform_key key;     /* KEY_DOWN, KEY_UP */
    float wheel;          /* WHEEL: steps, positive away from the user (as platform_event.wheel_y) */
    float drag_x, drag_y; /* DRAG: pixels, x right, y down (as platform_event.dx, dy) */
    float x, y;           /* CLICK: the framebuffer pixel, x right and y down from the top-left */
    double time;          /* the time the file gave the event (a tap's release: its press's time) */
    int line;             /* the file's line, for traces */
} input_script_event;

typedef struct input_script input_script;

/* Read the script at path. Every bad line goes to errors (may be NULL) as file:line (bad time, time going
 * backwards, unknown verb, unknown key name, missing or extra arguments) and NULL is returned. Lines that
 * are suspicious but harmless (releasing a key that is not pressed, pressing one already pressed) are added
 * to errors as "warning: ..." and the script still loads. All memory is allocated here. */
input_script *input_script_load(const char *path, diag_list *errors);

void input_script_free(input_script *script);

/* Call once per fixed simulation step with the step's time: writes the events due (time <= simulation_time,
 * give or take a microsecond of rounding in the step times) in file order, at most max, and returns how
 * many. A tap's release comes first at the next poll with a later time. Events beyond max stay due and come
 * at the next poll. Allocates nothing. */
int input_script_poll(input_script *script, double simulation_time, input_script_event *out, int max);

/* Every event (tap releases included) has been handed out. */
bool input_script_finished(const input_script *script);

/* The time of the last event in the file; 0 for an empty script. */
double input_script_duration(const input_script *script);

/* How many events the file holds (a tap counts once). */
int input_script_event_count(const input_script *script);

#endif
