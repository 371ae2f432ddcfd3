/* state_panel: one entity's state machine drawn live (the demo's F6), as lines of text for the HUD: whose
 * machine it is; every state, the current one marked (a window around it when there are many); the body
 * channel's layers and the overlay channels in flight with their weights, fades and times; every
 * parameter's value; the last transitions taken, newest first, with their condition, fade and age.
 *
 * The transitions are kept here for the one entity shown, in a fixed ring, by name: a hot reload of
 * states.ini may renumber states and transitions, and what was taken before it must still read right.
 * An entity whose steps the caller sees (the player) hands over each step's decision, exactly. One it
 * does not see stepped (a crowd member, stepped inside the crowd) is looked at after each step: a new
 * state, or the same one with its time in state gone back, is a transition, and it is put down to the
 * first transition (by priority) that leads there and agrees with the parameter values now (numbers and
 * bools are what the step saw; a trigger the transition used has been cleared). Conditions on time and
 * on a clip's end cannot be checked afterwards and count as holding.
 *
 * Fixed buffers only, no allocation. Knows nothing of the demo, the crowd, GL or SDL: the caller says
 * which animator is shown and hands the lines to the HUD. */
#ifndef MARIONETTE_STATE_PANEL_H
#define MARIONETTE_STATE_PANEL_H

#include <stdbool.h>

#include "anim/animator.h"

enum {
    STATE_PANEL_HISTORY = 8,         /* transitions kept and listed */
    STATE_PANEL_STATES_SHOWN = 12,   /* states listed at most; the rest, above and below, are counted */
    STATE_PANEL_CONDITION_MAX = 72,  /* a transition's condition as text, cut short beyond */
    STATE_PANEL_LINE_MAX = 112,      /* characters a line, its NUL included */
    STATE_PANEL_LINES_MAX = 64,
};

typedef struct state_panel_transition {
    char from[ANIM_NAME_MAX], to[ANIM_NAME_MAX];
    char condition[STATE_PANEL_CONDITION_MAX]; /* the `when` alternative taken, as states.ini writes it */
    float fade;                                /* seconds; negative: not known */
    double time;                               /* simulation seconds when it was taken */
} state_panel_transition;

typedef struct state_panel_history {
    state_panel_transition transitions[STATE_PANEL_HISTORY]; /* a ring; the oldest at `first` */
    int first, count;
    /* What the last look saw (state_panel_observe): the state's name and its time in state. */
    char seen_state[ANIM_NAME_MAX];
    float seen_time_in_state;
} state_panel_history;

/* A new history for the entity animator plays: nothing taken yet, its state as it is now. */
void state_panel_start(state_panel_history *history, const animator *animator);
/* The entity moved to another configuration (a hot reload): its state as it is now, no transition. */
void state_panel_follow(state_panel_history *history, const animator *animator);
/* A step's decision, for an entity whose steps the caller sees: a fired transition goes in. */
void state_panel_record(state_panel_history *history, const animator *animator, const state_machine_result *decision,
                        double time);
/* A look after a step the caller did not see: a transition taken since the last look goes in (see above). */
void state_panel_observe(state_panel_history *history, const animator *animator, double time);

/* The transitions kept, 0 newest; NULL past the count. */
const state_panel_transition *state_panel_transition_at(const state_panel_history *history, int newest_first);

/* The transition of definition that took an entity from state `from` (-1: not known) to `to`, as seen
 * afterwards in instance (see above); -1 when no transition leads there. */
int state_panel_guess_transition(const state_machine_definition *definition, int from, int to,
                                 const state_machine_instance *instance);

/* A transition's condition as states.ini writes it ("speed > 0.2 and time > 0.3", "not grounded",
 * "overlay_end"), cut short to fit size; "transition N" when a term cannot be written. */
void state_panel_condition_text(const state_machine_definition *definition, int transition, char *out,
                                size_t size);

typedef enum state_panel_style {
    STATE_PANEL_PLAIN,   /* a state, a layer, parameters, a transition */
    STATE_PANEL_TITLE,   /* whose machine, and each part's heading */
    STATE_PANEL_CURRENT, /* the current state */
    STATE_PANEL_QUIET,   /* what is left out, hints */
} state_panel_style;

typedef struct state_panel_lines {
    int count;
    state_panel_style styles[STATE_PANEL_LINES_MAX];
    char text[STATE_PANEL_LINES_MAX][STATE_PANEL_LINE_MAX];
} state_panel_lines;

/* The panel for the entity animator plays, titled `who` ("the player", "crowd #12"), with history's
 * transitions aged to `now` (simulation seconds). */
void state_panel_build(const animator *animator, const char *who, const state_panel_history *history, double now,
                       state_panel_lines *out);

#endif
