/* state_panel: see state_panel.h. */
#include "state_panel.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

enum {
    STATE_PANEL_BAR = 10,             /* cells of a layer's weight bar */
    STATE_PANEL_PARAMETERS_WIDTH = 50, /* parameters share a line up to this many characters */
};

/* ---- History ---------------------------------------------------------------------------------------- */

static const state_machine_definition *machine_of(const animator *animator)
{
    return &animator_character(animator)->machine;
}

/* The state the animator is in now, by name; NULL when its instance does not fit its machine. */
static const char *current_state_name(const animator *animator)
{
    const state_machine_definition *definition = machine_of(animator);
    int state = animator_instance(animator)->state;
    return state >= 0 && state < definition->state_count ? definition->states[state].name : NULL;
}

static void note_seen(state_panel_history *history, const animator *animator)
{
    const char *name = current_state_name(animator);
    snprintf(history->seen_state, sizeof history->seen_state, "%s", name ? name : "");
    history->seen_time_in_state = animator_instance(animator)->time_in_state;
}

void state_panel_start(state_panel_history *history, const animator *animator)
{
    if (!history)
        return;
    memset(history, 0, sizeof *history);
    if (animator)
        note_seen(history, animator);
}

void state_panel_follow(state_panel_history *history, const animator *animator)
{
    if (history && animator)
        note_seen(history, animator);
}

/* The newest goes in; over STATE_PANEL_HISTORY the oldest goes out. */
static void push(state_panel_history *history, const state_machine_definition *definition, const char *from,
                 const char *to, int transition, float fade, double time)
{
    int slot = (history->first + history->count) % STATE_PANEL_HISTORY;
    if (history->count < STATE_PANEL_HISTORY)
        history->count++;
    else
        history->first = (history->first + 1) % STATE_PANEL_HISTORY;
    state_panel_transition *entry = &history->transitions[slot];
    snprintf(entry->from, sizeof entry->from, "%s", from);
    snprintf(entry->to, sizeof entry->to, "%s", to);
    state_panel_condition_text(definition, transition, entry->condition, sizeof entry->condition);
    entry->fade = fade;
    entry->time = time;
}

void state_panel_record(state_panel_history *history, const animator *animator, const state_machine_result *decision,
                        double time)
{
    if (!history || !animator || !decision)
        return;
    const state_machine_definition *definition = machine_of(animator);
    if (decision->fired && decision->from >= 0 && decision->from < definition->state_count && decision->to >= 0 &&
        decision->to < definition->state_count)
        push(history, definition, definition->states[decision->from].name, definition->states[decision->to].name,
             decision->transition, decision->fade, time);
    note_seen(history, animator);
}

void state_panel_observe(state_panel_history *history, const animator *animator, double time)
{
    if (!history || !animator)
        return;
    const state_machine_definition *definition = machine_of(animator);
    const state_machine_instance *instance = animator_instance(animator);
    const char *now = current_state_name(animator);
    if (!now)
        return;
    bool changed = strcmp(now, history->seen_state) != 0;
    bool restarted = !changed && instance->time_in_state < history->seen_time_in_state;
    if (history->seen_state[0] && (changed || restarted)) {
        int from = state_machine_find_state(definition, history->seen_state);
        int transition = state_panel_guess_transition(definition, from, instance->state, instance);
        push(history, definition, history->seen_state, now, transition,
             transition >= 0 ? definition->transitions[transition].fade : -1.0f, time);
    }
    note_seen(history, animator);
}

const state_panel_transition *state_panel_transition_at(const state_panel_history *history, int newest_first)
{
    if (!history || newest_first < 0 || newest_first >= history->count)
        return NULL;
    return &history->transitions[(history->first + history->count - 1 - newest_first) % STATE_PANEL_HISTORY];
}

/* ---- Transitions: which one, and its condition in words ----------------------------------------------- */

static bool compare(float value, state_machine_comparison comparison, float reference)
{
    switch (comparison) {
    case STATE_MACHINE_LESS:
        return value < reference;
    case STATE_MACHINE_LESS_EQUAL:
        return value <= reference;
    case STATE_MACHINE_GREATER:
        return value > reference;
    case STATE_MACHINE_GREATER_EQUAL:
        return value >= reference;
    case STATE_MACHINE_EQUAL:
        return value == reference;
    case STATE_MACHINE_NOT_EQUAL:
        return value != reference;
    }
    return false;
}

static bool parameter_valid(const state_machine_definition *definition, int parameter)
{
    return parameter >= 0 && parameter < definition->parameter_count;
}

/* Could the transition have fired, judged by what is left to see after the step? */
static bool terms_agree(const state_machine_definition *definition, const state_machine_transition *transition,
                        const state_machine_instance *instance)
{
    for (int k = 0; k < transition->term_count; ++k) {
        const state_machine_term *term = &transition->terms[k];
        if (term->kind == STATE_MACHINE_TERM_COMPARE_PARAMETER &&
            (!parameter_valid(definition, term->parameter) ||
             !compare(instance->values[term->parameter], term->comparison, term->value)))
            return false;
        if (term->kind == STATE_MACHINE_TERM_TRIGGER &&
            (!parameter_valid(definition, term->parameter) || instance->values[term->parameter] != 0.0f))
            return false; /* firing clears the triggers it used */
    }
    return true;
}

int state_panel_guess_transition(const state_machine_definition *definition, int from, int to,
                                 const state_machine_instance *instance)
{
    if (!definition || !instance)
        return -1;
    int first_leading_there = -1;
    for (int t = 0; t < definition->transition_count; ++t) {
        const state_machine_transition *transition = &definition->transitions[t];
        if (transition->to != to)
            continue;
        /* As state_machine_step chooses: from the state it was in, or from any unless back into that
         * state without a restart. Coming from a state not known, anything leading there will do. */
        bool could = from < 0 || transition->from == from ||
                     (transition->from == STATE_MACHINE_ANY && (to != from || transition->restart));
        if (!could)
            continue;
        if (first_leading_there < 0)
            first_leading_there = t;
        if (terms_agree(definition, transition, instance))
            return t; /* the transitions are sorted by priority: the first that could have is the one */
    }
    return first_leading_there;
}

static const char *comparison_text(state_machine_comparison comparison)
{
    static const char *const words[] = {
        [STATE_MACHINE_LESS] = "<",   [STATE_MACHINE_LESS_EQUAL] = "<=", [STATE_MACHINE_GREATER] = ">",
        [STATE_MACHINE_GREATER_EQUAL] = ">=", [STATE_MACHINE_EQUAL] = "==", [STATE_MACHINE_NOT_EQUAL] = "!=",
    };
    return (int)comparison >= 0 && (int)comparison < (int)(sizeof words / sizeof words[0]) ? words[comparison]
                                                                                            : NULL;
}

/* One term as states.ini writes it; false for a term that cannot be written (a bad index or kind). */
static bool term_text(const state_machine_definition *definition, const state_machine_term *term, char *out,
                      size_t size)
{
    const char *comparison = comparison_text(term->comparison);
    switch (term->kind) {
    case STATE_MACHINE_TERM_ALWAYS:
        snprintf(out, size, "true");
        return true;
    case STATE_MACHINE_TERM_CLIP_END:
        snprintf(out, size, "end");
        return true;
    case STATE_MACHINE_TERM_OVERLAY_END:
        snprintf(out, size, "overlay_end");
        return true;
    case STATE_MACHINE_TERM_COMPARE_TIME:
        if (!comparison)
            return false;
        snprintf(out, size, "time %s %g", comparison, (double)term->value);
        return true;
    case STATE_MACHINE_TERM_TRIGGER:
        if (!parameter_valid(definition, term->parameter))
            return false;
        snprintf(out, size, "%s", definition->parameters[term->parameter].name);
        return true;
    case STATE_MACHINE_TERM_COMPARE_PARAMETER: {
        if (!parameter_valid(definition, term->parameter) || !comparison)
            return false;
        const state_machine_parameter *parameter = &definition->parameters[term->parameter];
        bool equality = term->comparison == STATE_MACHINE_EQUAL || term->comparison == STATE_MACHINE_NOT_EQUAL;
        if (parameter->type == STATE_MACHINE_BOOL && equality && (term->value == 0.0f || term->value == 1.0f)) {
            bool wants_true = (term->comparison == STATE_MACHINE_EQUAL) == (term->value == 1.0f);
            snprintf(out, size, "%s%s", wants_true ? "" : "not ", parameter->name);
        } else {
            snprintf(out, size, "%s %s %g", parameter->name, comparison, (double)term->value);
        }
        return true;
    }
    }
    return false;
}

void state_panel_condition_text(const state_machine_definition *definition, int transition, char *out,
                                size_t size)
{
    if (!out || size == 0)
        return;
    out[0] = '\0';
    if (!definition || transition < 0 || transition >= definition->transition_count) {
        snprintf(out, size, "?");
        return;
    }
    const state_machine_transition *t = &definition->transitions[transition];
    size_t used = 0;
    for (int k = 0; k < t->term_count && used + 1 < size; ++k) {
        char term[ANIM_NAME_MAX + 48];
        if (!term_text(definition, &t->terms[k], term, sizeof term)) {
            snprintf(out, size, "transition %d", transition);
            return;
        }
        int wrote = snprintf(out + used, size - used, "%s%s", k ? " and " : "", term);
        used += wrote > 0 ? (size_t)wrote : 0;
    }
}

/* ---- The panel -------------------------------------------------------------------------------------- */

static void add_line(state_panel_lines *out, state_panel_style style, const char *format, ...)
    __attribute__((format(printf, 3, 4)));
static void add_line(state_panel_lines *out, state_panel_style style, const char *format, ...)
{
    if (out->count == STATE_PANEL_LINES_MAX)
        return;
    va_list arguments;
    va_start(arguments, format);
    vsnprintf(out->text[out->count], sizeof out->text[0], format, arguments);
    va_end(arguments);
    out->styles[out->count++] = style;
}

/* Every state, or a window of STATE_PANEL_STATES_SHOWN around the current one with the rest counted. */
static void add_states(state_panel_lines *out, const state_machine_definition *definition,
                       const state_machine_instance *instance)
{
    add_line(out, STATE_PANEL_TITLE, "states (%d)", definition->state_count);
    int shown = definition->state_count < STATE_PANEL_STATES_SHOWN ? definition->state_count : STATE_PANEL_STATES_SHOWN;
    int first = instance->state - shown / 2;
    first = first > definition->state_count - shown ? definition->state_count - shown : first;
    first = first < 0 ? 0 : first;
    if (first > 0)
        add_line(out, STATE_PANEL_QUIET, "  ... %d more above", first);
    for (int s = first; s < first + shown; ++s) {
        if (s == instance->state)
            add_line(out, STATE_PANEL_CURRENT, "> %-16s for %.2f s", definition->states[s].name,
                     (double)instance->time_in_state);
        else
            add_line(out, STATE_PANEL_PLAIN, "  %s", definition->states[s].name);
    }
    if (first + shown < definition->state_count)
        add_line(out, STATE_PANEL_QUIET, "  ... %d more below", definition->state_count - first - shown);
}

/* One layer of a channel: its clip, its share of the channel (a number and a bar), its fade-in while it
 * rises (the bottom layer counts as faded in), where it is in its cycle, its speed. The one place a layer
 * becomes text: a blend space's clips and their weights go here once layers carry them. */
/* One layer: its clip (or blend), weight, fade and time; a blend adds a line with its point and the
 * weight of each of its clips that shows. */
static void add_layer(state_panel_lines *out, const anim_controller *controller, int channel, int index, bool bottom)
{
    anim_layer_info info;
    if (!anim_controller_layer(controller, channel, index, &info))
        return;
    const anim_layer_info *layer = &info;
    char bar[STATE_PANEL_BAR + 1];
    int filled = (int)(layer->weight * STATE_PANEL_BAR + 0.5f);
    for (int i = 0; i < STATE_PANEL_BAR; ++i)
        bar[i] = i < filled ? '#' : '.';
    bar[STATE_PANEL_BAR] = '\0';
    if (!layer->clip) {
        add_line(out, STATE_PANEL_PLAIN, "  %-12s %.2f [%s]  (a frozen snapshot)", "(held pose)",
                 (double)layer->weight, bar);
        return;
    }
    char fade[24] = "";
    if (!bottom && layer->fade < 1.0f)
        snprintf(fade, sizeof fade, "fade in %3.0f%%", (double)(layer->fade * 100.0f));
    char speed[16] = "";
    if (layer->speed != 1.0f)
        snprintf(speed, sizeof speed, "  x%.2f", (double)layer->speed);
    float weights[ANIM_BLEND_MAX_CLIPS];
    int count = anim_controller_layer_blend_weights(controller, channel, index, weights);
    const clip *clip = layer->clip->clip;
    double duration = layer->blend ? anim_blend_duration(layer->blend, weights)
                      : clip      ? (layer->clip->loop ? clip->loop_duration : clip->once_duration)
                                  : 0.0;
    add_line(out, STATE_PANEL_PLAIN, "  %-12s %.2f [%s] %-12s %.2f/%.2f s%s",
             layer->blend ? layer->blend->name : layer->clip->name, (double)layer->weight, bar, fade, layer->time,
             duration, speed);
    if (!layer->blend)
        return;
    char clips[STATE_PANEL_LINE_MAX] = "";
    size_t used = 0;
    for (int i = 0; i < count && used < sizeof clips; ++i) {
        if (!(weights[i] > 0.0f))
            continue;
        int wrote = snprintf(clips + used, sizeof clips - used, " %s %.2f", layer->blend->clips[i]->name,
                             (double)weights[i]);
        used += wrote > 0 ? (size_t)wrote : 0;
    }
    if (layer->blend->has_rest && used < sizeof clips) { /* what the clips leave: no change */
        float rest = 1.0f;
        for (int i = 0; i < count; ++i)
            rest -= weights[i];
        if (rest > 0.005f)
            snprintf(clips + used, sizeof clips - used, " rest %.2f", (double)rest);
    }
    if (layer->blend->dimensions == 1)
        add_line(out, STATE_PANEL_PLAIN, "    at %.2f:%s", (double)layer->point[0], clips);
    else
        add_line(out, STATE_PANEL_PLAIN, "    at (%.2f, %.2f):%s", (double)layer->point[0],
                 (double)layer->point[1], clips);
}

/* The body channel, then each overlay channel that shows, newest layer first. */
static void add_channels(state_panel_lines *out, const anim_controller *controller)
{
    for (int channel = 0; channel < ANIM_CHANNEL_COUNT; ++channel) {
        int layers = anim_controller_layer_count(controller, channel);
        float weight = anim_controller_channel_weight(controller, channel);
        if (channel == ANIMATOR_BODY_CHANNEL) {
            add_line(out, STATE_PANEL_TITLE, "body: clip, weight, fade, time in cycle");
        } else if (layers > 0 && weight > 0.0f) {
            float amount = anim_controller_overlay_weight(controller, channel);
            char shown[32] = "";
            if (amount < 1.0f)
                snprintf(shown, sizeof shown, ", shows %.2f of it", (double)amount);
            add_line(out, STATE_PANEL_TITLE, "overlay %d: weight %.2f%s", channel, (double)weight, shown);
        } else {
            continue;
        }
        for (int k = layers - 1; k >= 0; --k) {
            add_layer(out, controller, channel, k, k == 0);
        }
    }
}

/* Every parameter, several to a line: numbers to 2 decimals, bools true or false, triggers set or -. */
static void add_parameters(state_panel_lines *out, const state_machine_definition *definition,
                           const state_machine_instance *instance)
{
    add_line(out, STATE_PANEL_TITLE, "parameters (%d)", definition->parameter_count);
    char line[STATE_PANEL_LINE_MAX] = "";
    size_t used = 0;
    for (int p = 0; p < definition->parameter_count; ++p) {
        const state_machine_parameter *parameter = &definition->parameters[p];
        float value = instance->values[p];
        char item[ANIM_NAME_MAX + 24];
        if (parameter->type == STATE_MACHINE_NUMBER)
            snprintf(item, sizeof item, "%s %.2f", parameter->name, (double)value);
        else if (parameter->type == STATE_MACHINE_BOOL)
            snprintf(item, sizeof item, "%s %s", parameter->name, value != 0.0f ? "true" : "false");
        else
            snprintf(item, sizeof item, "%s %s", parameter->name, value != 0.0f ? "set" : "-");
        if (used > 0 && used + 2 + strlen(item) > STATE_PANEL_PARAMETERS_WIDTH) {
            add_line(out, STATE_PANEL_PLAIN, "  %s", line);
            used = 0;
        }
        int wrote = snprintf(line + used, sizeof line - used, "%s%s", used ? "  " : "", item);
        used += wrote > 0 ? (size_t)wrote : 0;
        used = used < sizeof line ? used : sizeof line - 1;
    }
    if (used > 0)
        add_line(out, STATE_PANEL_PLAIN, "  %s", line);
}

static void add_history(state_panel_lines *out, const state_panel_history *history, double now)
{
    add_line(out, STATE_PANEL_TITLE, "last transitions, newest first");
    if (!history || history->count == 0) {
        add_line(out, STATE_PANEL_QUIET, "  none yet");
        return;
    }
    for (int i = 0; i < history->count; ++i) {
        const state_panel_transition *t = state_panel_transition_at(history, i);
        char fade[24];
        if (t->fade >= 0.0f)
            snprintf(fade, sizeof fade, "%.2f s", (double)t->fade);
        else
            snprintf(fade, sizeof fade, "?");
        add_line(out, STATE_PANEL_PLAIN, "  %s -> %s (%s) fade %s, %.1f s ago", t->from, t->to, t->condition, fade,
                 now - t->time);
    }
}

void state_panel_build(const animator *animator, const char *who, const state_panel_history *history, double now,
                       state_panel_lines *out)
{
    if (!out)
        return;
    out->count = 0;
    if (!animator) {
        add_line(out, STATE_PANEL_TITLE, "state machine: %s: nothing plays", who ? who : "?");
        return;
    }
    const anim_character *character = animator_character(animator);
    const state_machine_instance *instance = animator_instance(animator);
    add_line(out, STATE_PANEL_TITLE, "state machine: %s (%s)", who ? who : "?", character->name);
    add_line(out, STATE_PANEL_QUIET, "click a character to show its machine, elsewhere: the player");
    if (instance->state >= 0 && instance->state < character->machine.state_count)
        add_states(out, &character->machine, instance);
    add_channels(out, animator_controller(animator));
    add_parameters(out, &character->machine, instance);
    add_history(out, history, now);
}
