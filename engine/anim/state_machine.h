/* state_machine: decides which animation state an entity is in. The definition (parameters, states,
 * transitions with conditions, crossfade times, priorities, the start state) is shared and immutable; each
 * entity keeps a small instance (current state, time in it, parameter values). A step is a pure decision:
 * given the definition, the instance, the time step and whether the playing clips have finished, it says
 * which transition fires and what to play. It allocates nothing and never touches clip data.
 * Knows nothing of ini files (anim_config fills definitions), the animation controller, SDL or GL. */
#ifndef MARIONETTE_STATE_MACHINE_H
#define MARIONETTE_STATE_MACHINE_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

#include "anim_clip.h"

enum {
    STATE_MACHINE_MAX_PARAMETERS = 16, /* per-entity values live in a fixed array: no allocation per entity */
    STATE_MACHINE_MAX_TERMS = 8,       /* conditions joined by `and` in one transition */
    STATE_MACHINE_ANY = -1,            /* a transition's `from` that matches every state */
};

typedef enum state_machine_parameter_type {
    STATE_MACHINE_NUMBER,  /* a float the game sets every frame: speed in m/s, turn angle in degrees */
    STATE_MACHINE_BOOL,    /* stored as 0 or 1 */
    STATE_MACHINE_TRIGGER, /* set once by the game, cleared when a transition uses it or when it gets old */
} state_machine_parameter_type;

typedef struct state_machine_parameter {
    char name[ANIM_NAME_MAX];
    state_machine_parameter_type type;
    float default_value;
} state_machine_parameter;

typedef enum state_machine_term_kind {
    STATE_MACHINE_TERM_ALWAYS,            /* `true` */
    STATE_MACHINE_TERM_COMPARE_PARAMETER, /* number or bool parameter compared with a value */
    STATE_MACHINE_TERM_COMPARE_TIME,      /* seconds spent in the current state compared with a value */
    STATE_MACHINE_TERM_TRIGGER,           /* the trigger is set; consumed when the transition fires */
    STATE_MACHINE_TERM_CLIP_END,          /* the state's one-shot clip has reached its end */
    STATE_MACHINE_TERM_OVERLAY_END,       /* the state's one-shot overlay clip has reached its end */
} state_machine_term_kind;

typedef enum state_machine_comparison {
    STATE_MACHINE_LESS,
    STATE_MACHINE_LESS_EQUAL,
    STATE_MACHINE_GREATER,
    STATE_MACHINE_GREATER_EQUAL,
    STATE_MACHINE_EQUAL,
    STATE_MACHINE_NOT_EQUAL,
} state_machine_comparison;

typedef struct state_machine_term {
    state_machine_term_kind kind;
    int parameter;                       /* for COMPARE_PARAMETER and TRIGGER; -1 otherwise */
    state_machine_comparison comparison; /* for the COMPARE kinds */
    float value;                         /* bools compare with 0 or 1 */
} state_machine_term;

typedef struct state_machine_transition {
    int from;       /* state index, or STATE_MACHINE_ANY */
    int to;         /* state index */
    float fade;     /* crossfade seconds */
    int priority;   /* higher is tried first */
    bool restart;   /* an `any` transition may fire while already in its target state */
    int term_count; /* all terms must hold; 0 terms never happens (`true` is a term) */
    state_machine_term terms[STATE_MACHINE_MAX_TERMS];
} state_machine_transition;

typedef struct state_machine_state {
    char name[ANIM_NAME_MAX];
    int clip;           /* index into the character's clip library; for a blend, its first clip */
    int blend;          /* index into the character's blend spaces when the state plays one, else -1 */
    bool loop;
    /* Playback rate: rate, times (parameter value / rate_reference) when rate_parameter >= 0, clamped to
     * [rate_min, rate_max]. With rate_reference the clip's ground speed in m/s (its clips.ini speed times the
     * character's scale) this keeps feet from sliding. A blend state's rate_reference is 0: its reference
     * moves with the blend's point (state_machine_state_rate). */
    float rate;
    int rate_parameter; /* number parameter index, or -1 */
    float rate_reference;
    float rate_min, rate_max;
    int overlay_clip;       /* clip layered over the upper body (or any branch); -1 for none; for a blend,
                             * its first clip */
    int overlay_blend;      /* the overlay's blend space, or -1 */
    int overlay_root_joint; /* the overlay plays on this joint and its descendants; -1 for none */
    /* states.ini overlay_weight: how much of the overlay shows (an additive lean by the turn rate), from a
     * number parameter mapped from [low, high] to [0, 1] and clamped (low > high maps downwards). false: 1. */
    bool overlay_weighted;
    int overlay_weight_parameter; /* number parameter index, when overlay_weighted */
    float overlay_weight_low, overlay_weight_high; /* never equal */
    /* states.ini moved_by: true (`clip`) when the clip's root motion moves the entity (the clip is a
     * root-motion one); false (`mover`, the default) when the game does and the clip plays in place. */
    bool moved_by_clip;
} state_machine_state;

/* What a step would otherwise search for. A step takes the first transition that applies, and in a
 * states.ini most transitions leave some other state: trying them all and rejecting them by their `from`
 * was most of the cost of a step in a crowd; ageing the triggers went through every parameter. For state
 * s, candidates[candidate_first[s]] up to (not including) candidates[candidate_first[s + 1]] are the
 * indices into transitions of those whose `from` is s or STATE_MACHINE_ANY, ascending, so in priority
 * order; triggers lists the parameters of type trigger. Derived and optional: a definition made by hand
 * may leave it zeroed, and a step then tries every transition and looks at every parameter, with the same
 * result. state_machine_index_build fills it, and it must describe the definition's transitions and
 * parameters as they are. A step uses it only while the definition's transitions pointer, state_count,
 * transition_count and parameter_count are the ones it was built for, so a copy of the definition that
 * drops its transitions (transition_count 0) or replaces its states falls back to the full search. */
typedef struct state_machine_index {
    const state_machine_transition *transitions; /* the transitions it was built for */
    int state_count;                             /* the counts it was built for */
    int transition_count;
    int parameter_count;
    const int *candidate_first; /* state_count + 1 offsets into candidates; NULL: no index */
    const int *candidates;      /* indices into transitions */
    int trigger_count;
    int triggers[STATE_MACHINE_MAX_PARAMETERS]; /* indices into parameters, ascending */
} state_machine_index;

typedef struct state_machine_definition {
    int parameter_count;
    state_machine_parameter parameters[STATE_MACHINE_MAX_PARAMETERS];
    int state_count;
    const state_machine_state *states;
    /* Sorted by priority, highest first; equal priorities keep the order they were written in. A step takes
     * the first one that applies, so no sorting or searching happens per step. */
    int transition_count;
    const state_machine_transition *transitions;
    int start_state;
    float trigger_hold; /* seconds an unused trigger stays set; 0: only the next step sees it */
    state_machine_index index; /* zeroed: a step tries every transition */
} state_machine_definition;

/* Per entity: about 140 bytes, no pointers, so entities can be stored in plain arrays and copied. */
typedef struct state_machine_instance {
    int state;
    float time_in_state; /* seconds since the state was entered */
    float values[STATE_MACHINE_MAX_PARAMETERS];
    float trigger_age[STATE_MACHINE_MAX_PARAMETERS]; /* seconds a set trigger has waited */
} state_machine_instance;

/* What the animation controller reports back about the clips of the current state. */
typedef struct state_machine_clip_status {
    bool clip_finished;    /* the state's one-shot clip reached its last frame */
    bool overlay_finished; /* the state's one-shot overlay reached its last frame */
} state_machine_clip_status;

typedef struct state_machine_result {
    bool fired;
    int from, to;       /* state indices; both the current state when nothing fired */
    int transition;     /* index into the definition's transitions, -1 when nothing fired */
    float fade;         /* crossfade seconds when fired */
    /* The (new) current state's playback, filled every step so the caller can follow parameter changes. */
    int clip;
    int blend;          /* the state's blend space (then clip is its first clip), or -1 */
    bool loop;
    float speed_scale;
    int overlay_clip;
    int overlay_blend;
    int overlay_root_joint;
    float overlay_weight; /* 0..1: the state's overlay_weight now (1 without one) */
    /* Bit p: the trigger at parameter p was dropped this step, unused for trigger_hold seconds (no
     * transition from the states it waited in takes it), so a game can say why a key did nothing. */
    uint32_t triggers_dropped;
} state_machine_result;
_Static_assert(STATE_MACHINE_MAX_PARAMETERS <= 32, "state_machine_result.triggers_dropped: a bit per parameter");

/* Start state, time 0, every parameter at its default, no trigger set. */
void state_machine_instance_init(const state_machine_definition *definition, state_machine_instance *instance);

/* -1 when there is no such name. */
int state_machine_find_state(const state_machine_definition *definition, const char *name);
int state_machine_find_parameter(const state_machine_definition *definition, const char *name);

/* A parameter resolved once from its name and type, so that setting it every step is an array store and
 * no name is compared. index -1 (STATE_MACHINE_PARAM_NONE): the machine has no parameter of that name and
 * type; setting through it changes nothing and answers false. A handle belongs to the definition it was
 * found in: after a hot reload find it again, as states.ini may have reordered its parameters. */
typedef struct state_machine_param {
    int index; /* into definition->parameters, or -1 */
} state_machine_param;
#define STATE_MACHINE_PARAM_NONE ((state_machine_param){-1})

/* The handle of the parameter called name if it has the wanted type; STATE_MACHINE_PARAM_NONE for an
 * unknown name, a parameter of another type or a NULL argument. Compares names: call it at load time. */
state_machine_param state_machine_param_find(const state_machine_definition *definition, const char *name,
                                             state_machine_parameter_type type);
bool state_machine_param_valid(state_machine_param param);

/* Set a parameter through its handle, in constant time. False (and nothing changes) for a none handle, one
 * outside the definition or naming a parameter of another type (a handle kept across a reload by mistake),
 * and for a non-finite number. */
bool state_machine_param_set_number(const state_machine_definition *definition, state_machine_instance *instance,
                                    state_machine_param param, float value);
bool state_machine_param_set_bool(const state_machine_definition *definition, state_machine_instance *instance,
                                  state_machine_param param, bool value);
bool state_machine_param_set_trigger(const state_machine_definition *definition, state_machine_instance *instance,
                                     state_machine_param param);

/* Set a parameter by name: state_machine_param_find, then the handle's setter (for tools and tests; a game
 * that sets parameters every step keeps handles). False (and nothing changes) for an unknown name or a
 * parameter of another type, so a typo in game code shows up instead of silently doing nothing. Non-finite
 * numbers are refused too. */
bool state_machine_set_number(const state_machine_definition *definition, state_machine_instance *instance,
                              const char *name, float value);
bool state_machine_set_bool(const state_machine_definition *definition, state_machine_instance *instance,
                            const char *name, bool value);
bool state_machine_set_trigger(const state_machine_definition *definition, state_machine_instance *instance,
                               const char *name);
/* The parameter's current value (bools and triggers: 0 or 1); false for an unknown name. */
bool state_machine_get(const state_machine_definition *definition, const state_machine_instance *instance,
                       const char *name, float *value);

/* Advance time in the state by dt, then fire the first transition (highest priority) whose conditions all
 * hold: a transition from the current state, or from `any` unless it leads to the current state and does
 * not allow a restart. At most one transition fires per step. Triggers the fired transition used are
 * cleared; other triggers age and are cleared after trigger_hold seconds. Returns result->fired.
 * Allocates nothing; a bad definition or instance fires nothing. */
bool state_machine_step(const state_machine_definition *definition, state_machine_instance *instance, float dt,
                        state_machine_clip_status status, state_machine_result *result);

/* How many ints state_machine_index_build needs for this definition: state_count + 1 offsets, then one
 * per candidate (a transition from a state counts once, an `any` transition once per state), so at most
 * state_count + 1 + state_count * transition_count. 0 for a NULL definition, negative counts, more than
 * STATE_MACHINE_MAX_PARAMETERS parameters or a total that does not fit in an int (the offsets are ints). */
size_t state_machine_index_ints(const state_machine_definition *definition);

/* Fill definition->index from its transitions and parameters, in storage (storage_ints ints, at least
 * state_machine_index_ints), which the caller owns and keeps as long as the definition. Call it once the
 * transitions (sorted) and parameters are final; the definition is then shared and immutable as before.
 * False, and the index left zeroed, when storage is missing or too small or the definition is bad: steps
 * then try every transition. Linear in the index's size; allocates nothing. */
bool state_machine_index_build(state_machine_definition *definition, int *storage, size_t storage_ints);

/* A state's playback rate: rate, times the rate parameter's value / rate_reference when it has rate_from
 * and rate_reference > 0, clamped to [rate_min, rate_max] (NaN gives rate_min). state_machine_step uses
 * the state's own rate_reference; a blend state's reference is its blend's ground speed at the point the
 * parameters give, which the animator knows (anim_blend_ground_speed). */
float state_machine_state_rate(const state_machine_definition *definition, const state_machine_instance *instance,
                               const state_machine_state *state, float rate_reference);

/* Hot reload: carry an entity over to a new definition. The same-named state is kept with its time in state
 * (so the clip keeps its phase) and parameters keep their values where the new definition has the same
 * name and type; anything else starts fresh. Returns true when the state was found. */
bool state_machine_instance_remap(const state_machine_definition *old_definition,
                                  const state_machine_instance *old_instance,
                                  const state_machine_definition *new_definition,
                                  state_machine_instance *new_instance);

#endif
