#include "state_machine.h"

#include <limits.h>
#include <math.h>
#include <string.h>

void state_machine_instance_init(const state_machine_definition *definition, state_machine_instance *instance)
{
    *instance = (state_machine_instance){0};
    if (!definition)
        return;
    instance->state = definition->start_state;
    for (int i = 0; i < definition->parameter_count; ++i)
        instance->values[i] = definition->parameters[i].type == STATE_MACHINE_TRIGGER
                                  ? 0.0f
                                  : definition->parameters[i].default_value;
}

int state_machine_find_state(const state_machine_definition *definition, const char *name)
{
    for (int i = 0; definition && name && i < definition->state_count; ++i)
        if (strcmp(definition->states[i].name, name) == 0)
            return i;
    return -1;
}

int state_machine_find_parameter(const state_machine_definition *definition, const char *name)
{
    for (int i = 0; definition && name && i < definition->parameter_count; ++i)
        if (strcmp(definition->parameters[i].name, name) == 0)
            return i;
    return -1;
}

state_machine_param state_machine_param_find(const state_machine_definition *definition, const char *name,
                                             state_machine_parameter_type type)
{
    int index = state_machine_find_parameter(definition, name);
    return index >= 0 && definition->parameters[index].type == type ? (state_machine_param){index}
                                                                    : STATE_MACHINE_PARAM_NONE;
}

bool state_machine_param_valid(state_machine_param param)
{
    return param.index >= 0;
}

/* The handle's index when it names a parameter of this type in this definition, else -1. Constant time:
 * the type check is what catches a handle found in another (an older) definition. */
static int state_machine_param_index(const state_machine_definition *definition, state_machine_param param,
                                     state_machine_parameter_type type)
{
    if (!definition || param.index < 0 || param.index >= definition->parameter_count ||
        param.index >= STATE_MACHINE_MAX_PARAMETERS || definition->parameters[param.index].type != type)
        return -1;
    return param.index;
}

bool state_machine_param_set_number(const state_machine_definition *definition, state_machine_instance *instance,
                                    state_machine_param param, float value)
{
    int index = state_machine_param_index(definition, param, STATE_MACHINE_NUMBER);
    if (index < 0 || !instance || !isfinite(value))
        return false;
    instance->values[index] = value;
    return true;
}

bool state_machine_param_set_bool(const state_machine_definition *definition, state_machine_instance *instance,
                                  state_machine_param param, bool value)
{
    int index = state_machine_param_index(definition, param, STATE_MACHINE_BOOL);
    if (index < 0 || !instance)
        return false;
    instance->values[index] = value ? 1.0f : 0.0f;
    return true;
}

bool state_machine_param_set_trigger(const state_machine_definition *definition, state_machine_instance *instance,
                                     state_machine_param param)
{
    int index = state_machine_param_index(definition, param, STATE_MACHINE_TRIGGER);
    if (index < 0 || !instance)
        return false;
    /* Setting it again restarts its wait: the player pressed the key again. */
    instance->values[index] = 1.0f;
    instance->trigger_age[index] = 0.0f;
    return true;
}

bool state_machine_set_number(const state_machine_definition *definition, state_machine_instance *instance,
                              const char *name, float value)
{
    return state_machine_param_set_number(definition, instance,
                                          state_machine_param_find(definition, name, STATE_MACHINE_NUMBER), value);
}

bool state_machine_set_bool(const state_machine_definition *definition, state_machine_instance *instance,
                            const char *name, bool value)
{
    return state_machine_param_set_bool(definition, instance,
                                        state_machine_param_find(definition, name, STATE_MACHINE_BOOL), value);
}

bool state_machine_set_trigger(const state_machine_definition *definition, state_machine_instance *instance,
                               const char *name)
{
    return state_machine_param_set_trigger(definition, instance,
                                           state_machine_param_find(definition, name, STATE_MACHINE_TRIGGER));
}

bool state_machine_get(const state_machine_definition *definition, const state_machine_instance *instance,
                       const char *name, float *value)
{
    int index = state_machine_find_parameter(definition, name);
    if (index < 0 || !instance)
        return false;
    if (value)
        *value = instance->values[index];
    return true;
}

static bool state_machine_compare(float left, state_machine_comparison comparison, float right)
{
    switch (comparison) {
    case STATE_MACHINE_LESS: return left < right;
    case STATE_MACHINE_LESS_EQUAL: return left <= right;
    case STATE_MACHINE_GREATER: return left > right;
    case STATE_MACHINE_GREATER_EQUAL: return left >= right;
    case STATE_MACHINE_EQUAL: return left == right;
    case STATE_MACHINE_NOT_EQUAL: return left != right;
    }
    return false;
}

static bool state_machine_term_holds(const state_machine_definition *definition,
                                     const state_machine_instance *instance, const state_machine_term *term,
                                     state_machine_clip_status status)
{
    /* One unsigned comparison: a negative index wraps to a large one. */
    bool parameter_valid = (unsigned)term->parameter < (unsigned)definition->parameter_count;
    float left; /* what a COMPARE kind compares: one comparison below, so the compiler inlines it */
    switch (term->kind) {
    case STATE_MACHINE_TERM_ALWAYS: return true;
    case STATE_MACHINE_TERM_COMPARE_PARAMETER:
        if (!parameter_valid)
            return false;
        left = instance->values[term->parameter];
        break;
    case STATE_MACHINE_TERM_COMPARE_TIME: left = instance->time_in_state; break;
    case STATE_MACHINE_TERM_TRIGGER: return parameter_valid && instance->values[term->parameter] != 0.0f;
    case STATE_MACHINE_TERM_CLIP_END: return status.clip_finished;
    case STATE_MACHINE_TERM_OVERLAY_END: return status.overlay_finished;
    default: return false;
    }
    return state_machine_compare(left, term->comparison, term->value);
}

static bool state_machine_transition_applies(const state_machine_definition *definition,
                                             const state_machine_instance *instance,
                                             const state_machine_transition *transition,
                                             state_machine_clip_status status)
{
    if (transition->to < 0 || transition->to >= definition->state_count)
        return false;
    if (transition->from == STATE_MACHINE_ANY) {
        /* Without this an `any -> jump` would restart the jump every step while its trigger is held. */
        if (transition->to == instance->state && !transition->restart)
            return false;
    } else if (transition->from != instance->state) {
        return false;
    }
    if (transition->term_count <= 0)
        return false;
    for (int i = 0; i < transition->term_count && i < STATE_MACHINE_MAX_TERMS; ++i)
        if (!state_machine_term_holds(definition, instance, &transition->terms[i], status))
            return false;
    return true;
}

float state_machine_state_rate(const state_machine_definition *definition, const state_machine_instance *instance,
                               const state_machine_state *state, float rate_reference)
{
    float scale = state->rate;
    if (state->rate_parameter >= 0 && state->rate_parameter < definition->parameter_count && rate_reference > 0.0f)
        scale *= instance->values[state->rate_parameter] / rate_reference;
    if (!(scale >= state->rate_min)) /* also catches NaN */
        scale = state->rate_min;
    if (scale > state->rate_max)
        scale = state->rate_max;
    return scale;
}

/* The parameter's place between low (0) and high (1), clamped; NaN and a bad index give 0. */
static float state_machine_overlay_weight(const state_machine_definition *definition,
                                          const state_machine_instance *instance, const state_machine_state *state)
{
    if (!state->overlay_weighted)
        return 1.0f;
    int parameter = state->overlay_weight_parameter;
    float span = state->overlay_weight_high - state->overlay_weight_low;
    if (parameter < 0 || parameter >= definition->parameter_count || span == 0.0f)
        return 0.0f;
    float weight = (instance->values[parameter] - state->overlay_weight_low) / span;
    if (!(weight > 0.0f)) /* also catches NaN */
        return 0.0f;
    return weight < 1.0f ? weight : 1.0f;
}

/* A set trigger waits a little for a transition that can use it, so a jump pressed just before landing
 * still happens; after trigger_hold seconds it is dropped so it cannot fire long after the key press. */
static void state_machine_age_trigger(const state_machine_definition *definition, state_machine_instance *instance,
                                      int parameter, float dt, uint32_t *dropped)
{
    if (instance->values[parameter] == 0.0f)
        return;
    instance->trigger_age[parameter] += dt;
    if (instance->trigger_age[parameter] > definition->trigger_hold) {
        instance->values[parameter] = 0.0f; /* a paused step (dt 0) drops nothing */
        *dropped |= UINT32_C(1) << parameter;
    }
}

/* Through the index's list of triggers when it fits, else looking at every parameter's type. */
static void state_machine_age_triggers(const state_machine_definition *definition, state_machine_instance *instance,
                                       float dt, bool indexed, uint32_t *dropped)
{
    if (indexed) {
        for (int k = 0; k < definition->index.trigger_count; ++k)
            state_machine_age_trigger(definition, instance, definition->index.triggers[k], dt, dropped);
        return;
    }
    for (int i = 0; i < definition->parameter_count; ++i)
        if (definition->parameters[i].type == STATE_MACHINE_TRIGGER)
            state_machine_age_trigger(definition, instance, i, dt, dropped);
}

size_t state_machine_index_ints(const state_machine_definition *definition)
{
    if (!definition || definition->state_count < 0 || definition->transition_count < 0 ||
        (definition->transition_count > 0 && !definition->transitions) || definition->parameter_count < 0 ||
        definition->parameter_count > STATE_MACHINE_MAX_PARAMETERS)
        return 0;
    size_t states = (size_t)definition->state_count, total = states + 1;
    for (int i = 0; i < definition->transition_count; ++i) {
        int from = definition->transitions[i].from;
        size_t entries = from == STATE_MACHINE_ANY ? states : (from >= 0 && from < definition->state_count ? 1 : 0);
        /* Checked per transition, so the total never wraps before the test: at most INT_MAX + states. */
        total += entries;
        if (total > (size_t)INT_MAX)
            return 0;
    }
    return total;
}

bool state_machine_index_build(state_machine_definition *definition, int *storage, size_t storage_ints)
{
    if (!definition)
        return false;
    definition->index = (state_machine_index){0};
    size_t needed = state_machine_index_ints(definition);
    if (needed == 0 || !storage || storage_ints < needed)
        return false;
    int state_count = definition->state_count;
    int *first = storage, *candidates = storage + state_count + 1;
    /* A counting sort: first[s + 1] counts state s's candidates, the prefix sums make first[s] where its
     * candidates start, filling in transition order advances first[s] to where state s + 1's start, and a
     * shift by one puts every offset back in its place. Transitions in ascending order keep priority order. */
    for (int s = 0; s <= state_count; ++s)
        first[s] = 0;
    for (int i = 0; i < definition->transition_count; ++i) {
        int from = definition->transitions[i].from;
        if (from == STATE_MACHINE_ANY)
            for (int s = 0; s < state_count; ++s)
                ++first[s + 1];
        else if (from >= 0 && from < state_count)
            ++first[from + 1];
    }
    for (int s = 0; s < state_count; ++s)
        first[s + 1] += first[s];
    for (int i = 0; i < definition->transition_count; ++i) {
        int from = definition->transitions[i].from;
        if (from == STATE_MACHINE_ANY)
            for (int s = 0; s < state_count; ++s)
                candidates[first[s]++] = i;
        else if (from >= 0 && from < state_count)
            candidates[first[from]++] = i;
    }
    for (int s = state_count; s > 0; --s)
        first[s] = first[s - 1];
    first[0] = 0;
    state_machine_index index = {.transitions = definition->transitions,
                                 .state_count = state_count,
                                 .transition_count = definition->transition_count,
                                 .parameter_count = definition->parameter_count,
                                 .candidate_first = first,
                                 .candidates = candidates};
    for (int i = 0; i < definition->parameter_count; ++i)
        if (definition->parameters[i].type == STATE_MACHINE_TRIGGER)
            index.triggers[index.trigger_count++] = i;
    definition->index = index;
    return true;
}

/* Whether the index was built for this definition (a copy may have changed it: see state_machine_index). */
static bool state_machine_index_fits(const state_machine_definition *definition)
{
    const state_machine_index *index = &definition->index;
    return index->candidate_first && index->candidates && index->transitions == definition->transitions &&
           index->state_count == definition->state_count && index->transition_count == definition->transition_count &&
           index->parameter_count == definition->parameter_count;
}

/* The index of the first transition (highest priority) that applies now, or -1. Through the index when it
 * fits: only the current state's candidates, the same transitions in the same order minus those whose
 * `from` rules them out, so the same answer as trying every transition. One loop serves both ways, so
 * state_machine_transition_applies has one caller and is inlined. */
static int state_machine_first_applying(const state_machine_definition *definition,
                                        const state_machine_instance *instance, state_machine_clip_status status,
                                        bool indexed)
{
    const int *candidates = NULL; /* NULL: try transitions 0 to transition_count - 1 */
    int begin = 0, end = definition->transition_count;
    if (indexed) {
        candidates = definition->index.candidates;
        begin = definition->index.candidate_first[instance->state];
        end = definition->index.candidate_first[instance->state + 1];
    }
    for (int k = begin; k < end; ++k) {
        int i = candidates ? candidates[k] : k;
        /* One unsigned comparison keeps an index filled by hand with a bad entry from reading outside. */
        if ((unsigned)i < (unsigned)definition->transition_count &&
            state_machine_transition_applies(definition, instance, &definition->transitions[i], status))
            return i;
    }
    return -1;
}

bool state_machine_step(const state_machine_definition *definition, state_machine_instance *instance, float dt,
                        state_machine_clip_status status, state_machine_result *result)
{
    state_machine_result none = {.transition = -1, .from = -1, .to = -1, .clip = -1, .blend = -1, .overlay_clip = -1,
                                 .overlay_blend = -1, .overlay_root_joint = -1};
    if (result)
        *result = none;
    if (!definition || !instance || !result || instance->state < 0 || instance->state >= definition->state_count ||
        definition->parameter_count > STATE_MACHINE_MAX_PARAMETERS)
        return false;
    if (!(dt >= 0.0f) || !isfinite(dt))
        dt = 0.0f;

    instance->time_in_state += dt;
    result->from = result->to = instance->state;
    bool indexed = state_machine_index_fits(definition);
    int fired = state_machine_first_applying(definition, instance, status, indexed);
    if (fired >= 0) {
        const state_machine_transition *transition = &definition->transitions[fired];
        /* The terms the transition was judged by: a hand-made count past the array reads no further. */
        for (int t = 0; t < transition->term_count && t < STATE_MACHINE_MAX_TERMS; ++t) {
            int parameter = transition->terms[t].parameter;
            if (transition->terms[t].kind == STATE_MACHINE_TERM_TRIGGER && parameter >= 0 &&
                parameter < definition->parameter_count)
                instance->values[parameter] = 0.0f;
        }
        result->fired = true;
        result->transition = fired;
        result->to = transition->to;
        result->fade = transition->fade;
        instance->state = transition->to;
        instance->time_in_state = 0.0f;
    }
    state_machine_age_triggers(definition, instance, dt, indexed, &result->triggers_dropped);

    const state_machine_state *state = &definition->states[instance->state];
    result->clip = state->clip;
    result->blend = state->blend;
    result->loop = state->loop;
    result->speed_scale = state_machine_state_rate(definition, instance, state, state->rate_reference);
    result->overlay_clip = state->overlay_clip;
    result->overlay_blend = state->overlay_blend;
    result->overlay_root_joint = state->overlay_root_joint;
    result->overlay_weight = state_machine_overlay_weight(definition, instance, state);
    return result->fired;
}

bool state_machine_instance_remap(const state_machine_definition *old_definition,
                                  const state_machine_instance *old_instance,
                                  const state_machine_definition *new_definition,
                                  state_machine_instance *new_instance)
{
    state_machine_instance_init(new_definition, new_instance);
    if (!old_definition || !old_instance || !new_definition)
        return false;
    for (int i = 0; i < new_definition->parameter_count; ++i) {
        const state_machine_parameter *parameter = &new_definition->parameters[i];
        int old_index = state_machine_find_parameter(old_definition, parameter->name);
        if (old_index < 0 || old_definition->parameters[old_index].type != parameter->type)
            continue;
        new_instance->values[i] = old_instance->values[old_index];
        new_instance->trigger_age[i] = old_instance->trigger_age[old_index];
    }
    if (old_instance->state < 0 || old_instance->state >= old_definition->state_count)
        return false;
    int state = state_machine_find_state(new_definition, old_definition->states[old_instance->state].name);
    if (state < 0)
        return false;
    new_instance->state = state;
    new_instance->time_in_state = old_instance->time_in_state;
    return true;
}
