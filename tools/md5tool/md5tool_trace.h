/* md5tool trace: runs one character of a config through its state machine with a timeline of parameter
 * changes read from a script, and reports every step (state, layers, events, transitions, root motion and
 * the largest joint rotation change between consecutive poses). The script reader, the stepping and the
 * rotation measure are here apart from the printing so tests can use the very same code.
 * Knows nothing of SDL or GL; the animation comes from the engine's animator.
 *
 * Script format, one command per line, times in seconds from the start, never going backwards:
 *   0.50 set speed 1.4        a number parameter
 *   0.50 set grounded false   a bool parameter (true or false)
 *   1.20 trigger jump         a trigger
 *   3.00 end                  the trace stops at this time (required, the last command)
 * Times run from 0 to TRACE_TIME_MAX (an hour: at the highest --rate, 10,000 Hz, 36 million steps); a script
 * file is at most TRACE_SCRIPT_MAX_FILE_BYTES. `#` starts a comment; blank lines are fine. Names are checked against the character's state machine,
 * so a typo is an error with its file:line, not a silent no-op. A command at time t applies before the
 * first step that starts at or after t. */
#ifndef MARIONETTE_MD5TOOL_TRACE_H
#define MARIONETTE_MD5TOOL_TRACE_H

#include <stdbool.h>

#include "anim/animator.h"
#include "base/diag.h"

#define TRACE_TIME_MAX 3600.0
#define TRACE_SCRIPT_MAX_FILE_BYTES ((size_t)4 << 20)

typedef enum trace_command_kind { TRACE_SET_NUMBER, TRACE_SET_BOOL, TRACE_TRIGGER, TRACE_END } trace_command_kind;

typedef struct trace_command {
    double time;
    trace_command_kind kind;
    char name[ANIM_NAME_MAX];
    float value; /* numbers; bools are 0 or 1 */
    int line;
} trace_command;

typedef struct trace_script {
    trace_command *commands; /* in time order, the last one TRACE_END */
    int count;
    double end_time;
} trace_script;

/* Read and check a script against the machine. False with the first problem in error (file:line). */
bool trace_script_load(const char *path, const state_machine_definition *machine, trace_script *script, diag *error);
void trace_script_free(trace_script *script);

/* The largest rotation, in degrees, that any joint turns between two object-space poses. */
double trace_largest_rotation_change(const joint_pose *before, const joint_pose *after, int joint_count);

/* Steps an animator through a script at a fixed rate. */
typedef struct trace_run {
    animator *animator;
    const trace_script *script;
    double step_seconds;
    int step;          /* steps taken */
    int next_command;  /* the first command not applied yet */
    joint_pose *previous_pose; /* the object pose before the step, joint_count entries */
} trace_run;

/* What one step did, beside what the animator reports. */
typedef struct trace_step {
    double time;                     /* at the end of the step */
    int applied_first, applied_count; /* script commands applied before the step */
    animator_update_result update;
    double largest_rotation_change;  /* degrees, between the object poses before and after the step */
} trace_step;

bool trace_run_start(trace_run *run, animator *animator, const trace_script *script, double rate_hz);
/* One step; false once the script's end time is reached (or on failure). */
bool trace_run_step(trace_run *run, trace_step *step);
void trace_run_finish(trace_run *run);

/* `md5tool trace CONFIG_DIR --script FILE [--json] [--character NAME] [--rate HZ]`. */
int command_trace(int argc, char **argv);

#endif
