/* state_machine's parameter handles on a definition built by hand (no ini file): a handle is found by name
 * and type once, setting through it is the same as setting by name, and a handle that does not fit the
 * definition (none, out of range, another type after a reload) changes nothing. The transition index
 * (state_machine_index): it lists exactly each state's candidate transitions in priority order, and a step
 * through it decides exactly what a step trying every transition decides, on the shipped machines and on
 * one made by hand with the awkward cases. The machine's decisions on the real config are tested in
 * test_anim_config. */
#include <math.h>
#include <string.h>

#include <stdint.h>
#include <stdlib.h>

#include "anim/config/anim_config.h"
#include "anim/state_machine.h"
#include "check.h"
#include "test_files.h"

/* speed (number), grounded (bool), jump (trigger), turn (number). */
static state_machine_definition make_definition(void)
{
    static const state_machine_state states[] = {{.name = "idle", .clip = 0, .loop = true, .rate = 1.0f,
                                                  .rate_parameter = -1, .rate_min = 1.0f, .rate_max = 1.0f,
                                                  .overlay_clip = -1, .overlay_root_joint = -1}};
    state_machine_definition definition = {
        .parameter_count = 4,
        .parameters = {{"speed", STATE_MACHINE_NUMBER, 0.0f},
                       {"grounded", STATE_MACHINE_BOOL, 1.0f},
                       {"jump", STATE_MACHINE_TRIGGER, 0.0f},
                       {"turn", STATE_MACHINE_NUMBER, 0.0f}},
        .state_count = 1,
        .states = states,
        .trigger_hold = 0.2f,
    };
    return definition;
}

static void test_find_gives_the_index_of_the_name_and_type(void)
{
    state_machine_definition definition = make_definition();
    CHECK(state_machine_param_find(&definition, "speed", STATE_MACHINE_NUMBER).index == 0);
    CHECK(state_machine_param_find(&definition, "grounded", STATE_MACHINE_BOOL).index == 1);
    CHECK(state_machine_param_find(&definition, "jump", STATE_MACHINE_TRIGGER).index == 2);
    CHECK(state_machine_param_find(&definition, "turn", STATE_MACHINE_NUMBER).index == 3);
    CHECK(state_machine_param_valid(state_machine_param_find(&definition, "turn", STATE_MACHINE_NUMBER)));
    /* Another type: none, as a typo would be. */
    CHECK(state_machine_param_find(&definition, "speed", STATE_MACHINE_BOOL).index == -1);
    CHECK(state_machine_param_find(&definition, "grounded", STATE_MACHINE_NUMBER).index == -1);
    CHECK(state_machine_param_find(&definition, "jump", STATE_MACHINE_BOOL).index == -1);
    /* Unknown names, a prefix, NULL. */
    CHECK(state_machine_param_find(&definition, "velocity", STATE_MACHINE_NUMBER).index == -1);
    CHECK(state_machine_param_find(&definition, "spee", STATE_MACHINE_NUMBER).index == -1);
    CHECK(state_machine_param_find(&definition, "", STATE_MACHINE_NUMBER).index == -1);
    CHECK(state_machine_param_find(&definition, NULL, STATE_MACHINE_NUMBER).index == -1);
    CHECK(state_machine_param_find(NULL, "speed", STATE_MACHINE_NUMBER).index == -1);
    CHECK(!state_machine_param_valid(STATE_MACHINE_PARAM_NONE));
}

static bool same_instance(const state_machine_instance *a, const state_machine_instance *b)
{
    return memcmp(a, b, sizeof *a) == 0;
}

static void test_a_handle_sets_what_the_name_sets(void)
{
    state_machine_definition definition = make_definition();
    state_machine_instance by_name, by_handle;
    state_machine_instance_init(&definition, &by_name);
    state_machine_instance_init(&definition, &by_handle);
    state_machine_param speed = state_machine_param_find(&definition, "speed", STATE_MACHINE_NUMBER);
    state_machine_param turn = state_machine_param_find(&definition, "turn", STATE_MACHINE_NUMBER);
    state_machine_param grounded = state_machine_param_find(&definition, "grounded", STATE_MACHINE_BOOL);
    state_machine_param jump = state_machine_param_find(&definition, "jump", STATE_MACHINE_TRIGGER);

    CHECK(state_machine_set_number(&definition, &by_name, "speed", 1.25f));
    CHECK(state_machine_param_set_number(&definition, &by_handle, speed, 1.25f));
    CHECK(state_machine_set_number(&definition, &by_name, "turn", -90.0f));
    CHECK(state_machine_param_set_number(&definition, &by_handle, turn, -90.0f));
    CHECK(state_machine_set_bool(&definition, &by_name, "grounded", false));
    CHECK(state_machine_param_set_bool(&definition, &by_handle, grounded, false));
    CHECK(same_instance(&by_name, &by_handle));
    CHECK(by_handle.values[0] == 1.25f && by_handle.values[3] == -90.0f && by_handle.values[1] == 0.0f);

    /* A trigger set again restarts its wait, both ways. */
    CHECK(state_machine_set_trigger(&definition, &by_name, "jump"));
    CHECK(state_machine_param_set_trigger(&definition, &by_handle, jump));
    state_machine_result result;
    state_machine_step(&definition, &by_name, 0.1f, (state_machine_clip_status){0}, &result);
    state_machine_step(&definition, &by_handle, 0.1f, (state_machine_clip_status){0}, &result);
    CHECK(by_handle.trigger_age[2] > 0.0f);
    CHECK(state_machine_set_trigger(&definition, &by_name, "jump"));
    CHECK(state_machine_param_set_trigger(&definition, &by_handle, jump));
    CHECK(by_handle.values[2] == 1.0f && by_handle.trigger_age[2] == 0.0f);
    CHECK(same_instance(&by_name, &by_handle));

    /* What one refuses the other refuses, and nothing changes. */
    state_machine_instance before = by_handle;
    CHECK(!state_machine_set_number(&definition, &by_name, "speed", NAN));
    CHECK(!state_machine_param_set_number(&definition, &by_handle, speed, NAN));
    CHECK(!state_machine_param_set_number(&definition, &by_handle, speed, INFINITY));
    CHECK(!state_machine_param_set_number(&definition, NULL, speed, 1.0f));
    CHECK(!state_machine_param_set_number(&definition, &by_handle, STATE_MACHINE_PARAM_NONE, 1.0f));
    CHECK(!state_machine_param_set_bool(&definition, &by_handle, STATE_MACHINE_PARAM_NONE, true));
    CHECK(!state_machine_param_set_trigger(&definition, &by_handle, STATE_MACHINE_PARAM_NONE));
    /* A handle of another type (kept across a reload that retyped the parameter), or past the end. */
    CHECK(!state_machine_param_set_number(&definition, &by_handle, grounded, 5.0f));
    CHECK(!state_machine_param_set_bool(&definition, &by_handle, speed, true));
    CHECK(!state_machine_param_set_trigger(&definition, &by_handle, speed));
    CHECK(!state_machine_param_set_number(&definition, &by_handle, (state_machine_param){4}, 5.0f));
    CHECK(!state_machine_param_set_number(&definition, &by_handle, (state_machine_param){STATE_MACHINE_MAX_PARAMETERS}, 5.0f));
    CHECK(!state_machine_param_set_number(NULL, &by_handle, speed, 5.0f));
    CHECK(same_instance(&before, &by_handle));
}

/* A reload that reorders the parameters: the handles found in the new definition land where the names are. */
static void test_handles_found_again_follow_a_reorder(void)
{
    state_machine_definition old_definition = make_definition();
    state_machine_definition new_definition = old_definition;
    new_definition.parameters[0] = old_definition.parameters[3]; /* turn, grounded, jump, speed */
    new_definition.parameters[3] = old_definition.parameters[0];
    state_machine_param old_speed = state_machine_param_find(&old_definition, "speed", STATE_MACHINE_NUMBER);
    state_machine_param new_speed = state_machine_param_find(&new_definition, "speed", STATE_MACHINE_NUMBER);
    CHECK(old_speed.index == 0 && new_speed.index == 3);
    state_machine_instance instance;
    state_machine_instance_init(&new_definition, &instance);
    CHECK(state_machine_param_set_number(&new_definition, &instance, new_speed, 2.5f));
    float value = 0.0f;
    CHECK(state_machine_get(&new_definition, &instance, "speed", &value) && value == 2.5f);
    CHECK(state_machine_get(&new_definition, &instance, "turn", &value) && value == 0.0f);
}

/* ---- the transition index ---- */

/* Four states and awkward transitions, already in priority order (highest first, equal ones as written):
 * `any` with and without restart, equal priorities from one state and across states, a self-transition
 * from a state, an `any` of low priority below ordinary ones, and two that can never fire (a `from` and a
 * `to` outside the states), which both ways must reject. */
enum { HAND_A, HAND_B, HAND_C, HAND_D, HAND_STATES };
enum { HAND_X, HAND_FLAG, HAND_T1, HAND_T2, HAND_PARAMETERS };

/* A term comparing parameter (or, with -1, the time in the state) with value. */
static state_machine_term hand_compare(int parameter, state_machine_comparison comparison, float value)
{
    return (state_machine_term){.kind = parameter < 0 ? STATE_MACHINE_TERM_COMPARE_TIME
                                                      : STATE_MACHINE_TERM_COMPARE_PARAMETER,
                                .parameter = parameter, .comparison = comparison, .value = value};
}

/* A term without a comparison: `true`, a trigger (parameter), the clip's or the overlay's end. */
static state_machine_term hand_term(state_machine_term_kind kind, int parameter)
{
    return (state_machine_term){.kind = kind, .parameter = parameter};
}

static state_machine_definition hand_definition(void)
{
    static state_machine_state states[HAND_STATES];
    static const char *names[HAND_STATES] = {"a", "b", "c", "d"};
    for (int s = 0; s < HAND_STATES; ++s) {
        states[s] = (state_machine_state){.clip = s, .blend = -1, .loop = s != HAND_C, .rate = 1.0f,
                                          .rate_parameter = -1, .rate_min = 0.5f, .rate_max = 2.0f,
                                          .overlay_clip = s == HAND_D ? 7 : -1, .overlay_blend = -1,
                                          .overlay_root_joint = -1};
        snprintf(states[s].name, ANIM_NAME_MAX, "%s", names[s]);
    }
    states[HAND_B].rate_parameter = HAND_X; /* the rate follows x, so the speed scale is compared too */
    states[HAND_B].rate_reference = 1.0f;

    const state_machine_term t1 = hand_term(STATE_MACHINE_TERM_TRIGGER, HAND_T1);
    const state_machine_term t2 = hand_term(STATE_MACHINE_TERM_TRIGGER, HAND_T2);
    const state_machine_term always = hand_term(STATE_MACHINE_TERM_ALWAYS, -1);
    const int any = STATE_MACHINE_ANY;
    static state_machine_transition transitions[14];
    int n = 0;
    /* 0, 1: `any` at the top, without and with restart, equal priority. */
    transitions[n++] = (state_machine_transition){any, HAND_C, 0.1f, 10, false, 1, {t1}};
    transitions[n++] = (state_machine_transition){any, HAND_D, 0.2f, 10, true, 1, {t2}};
    /* 2, 3: equal priority from two states; 4: an `any` at that priority, with two terms. */
    transitions[n++] = (state_machine_transition){HAND_A, HAND_B, 0.3f, 5, false, 1,
                                                  {hand_compare(HAND_X, STATE_MACHINE_GREATER, 0.5f)}};
    transitions[n++] = (state_machine_transition){HAND_B, HAND_A, 0.4f, 5, false, 1,
                                                  {hand_compare(HAND_X, STATE_MACHINE_LESS, -0.5f)}};
    transitions[n++] = (state_machine_transition){any, HAND_A, 0.5f, 5, false, 2,
                                                  {hand_compare(HAND_FLAG, STATE_MACHINE_EQUAL, 1.0f),
                                                   hand_compare(-1, STATE_MACHINE_GREATER_EQUAL, 1.0f)}};
    /* 5, 6: equal priority from one state (the clip's end and a comparison), 7: d -> d, 8: a `from` outside. */
    transitions[n++] = (state_machine_transition){HAND_C, HAND_A, 0.6f, 0, false, 1,
                                                  {hand_term(STATE_MACHINE_TERM_CLIP_END, -1)}};
    transitions[n++] = (state_machine_transition){HAND_C, HAND_B, 0.7f, 0, false, 1,
                                                  {hand_compare(HAND_X, STATE_MACHINE_GREATER, 0.0f)}};
    transitions[n++] = (state_machine_transition){HAND_D, HAND_D, 0.8f, 0, false, 1,
                                                  {hand_term(STATE_MACHINE_TERM_OVERLAY_END, -1)}};
    transitions[n++] = (state_machine_transition){HAND_STATES, HAND_A, 0.9f, 0, false, 1, {always}};
    /* 9: a low `any` with restart below ordinary ones; 10: an ordinary one at its priority. */
    transitions[n++] = (state_machine_transition){any, HAND_B, 1.0f, -1, true, 1,
                                                  {hand_compare(HAND_X, STATE_MACHINE_GREATER, 2.0f)}};
    transitions[n++] = (state_machine_transition){HAND_A, HAND_C, 1.1f, -1, false, 2,
                                                  {hand_compare(-1, STATE_MACHINE_GREATER, 0.5f),
                                                   hand_compare(HAND_X, STATE_MACHINE_LESS_EQUAL, 0.0f)}};
    /* 11: a `to` outside the states; 12, 13: the lowest, both after a while in their state. */
    transitions[n++] = (state_machine_transition){any, -3, 1.2f, -2, true, 1, {always}};
    transitions[n++] = (state_machine_transition){HAND_B, HAND_D, 1.3f, -5, false, 2,
                                                  {hand_compare(HAND_FLAG, STATE_MACHINE_EQUAL, 0.0f),
                                                   hand_compare(-1, STATE_MACHINE_GREATER, 3.0f)}};
    transitions[n++] = (state_machine_transition){HAND_D, HAND_A, 1.4f, -5, false, 2,
                                                  {always, hand_compare(-1, STATE_MACHINE_GREATER, 2.0f)}};

    state_machine_definition definition = {
        .parameter_count = HAND_PARAMETERS,
        .parameters = {{"x", STATE_MACHINE_NUMBER, 0.0f},
                       {"flag", STATE_MACHINE_BOOL, 0.0f},
                       {"t1", STATE_MACHINE_TRIGGER, 0.0f},
                       {"t2", STATE_MACHINE_TRIGGER, 0.0f}},
        .state_count = HAND_STATES,
        .states = states,
        .transition_count = n,
        .transitions = transitions,
        .start_state = HAND_A,
        .trigger_hold = 0.25f,
    };
    return definition;
}

/* The definition with its index built into storage (to free()), or NULL when building failed. */
static int *build_index(state_machine_definition *definition)
{
    size_t ints = state_machine_index_ints(definition);
    CHECK(ints >= (size_t)definition->state_count + 1);
    int *storage = malloc(ints * sizeof *storage);
    CHECK(storage != NULL);
    bool built = storage && state_machine_index_build(definition, storage, ints);
    CHECK(built);
    if (!built) {
        free(storage);
        return NULL;
    }
    return storage;
}

/* Every state's candidates are exactly the transitions from it or from `any`, ascending (so by priority,
 * highest first), with the offsets filling the storage that state_machine_index_ints asked for. */
static void check_index_lists(const state_machine_definition *definition)
{
    const state_machine_index *index = &definition->index;
    CHECK(index->candidate_first != NULL && index->candidates != NULL);
    if (!index->candidate_first || !index->candidates)
        return;
    CHECK(index->transitions == definition->transitions && index->state_count == definition->state_count &&
          index->transition_count == definition->transition_count &&
          index->parameter_count == definition->parameter_count);
    CHECK(index->candidate_first[0] == 0);
    CHECK((size_t)index->candidate_first[definition->state_count] + (size_t)definition->state_count + 1 ==
          state_machine_index_ints(definition));
    int mismatched = 0;
    for (int s = 0; s < definition->state_count; ++s) {
        int k = index->candidate_first[s], end = index->candidate_first[s + 1];
        for (int i = 0; i < definition->transition_count; ++i) {
            int from = definition->transitions[i].from;
            if (from != s && from != STATE_MACHINE_ANY)
                continue;
            if (k >= end || index->candidates[k] != i)
                ++mismatched;
            ++k;
        }
        if (k != end)
            ++mismatched;
        for (int j = index->candidate_first[s] + 1; j < end; ++j)
            if (definition->transitions[index->candidates[j - 1]].priority <
                definition->transitions[index->candidates[j]].priority)
                ++mismatched;
    }
    CHECK(mismatched == 0);
    int triggers = 0;
    for (int i = 0; i < definition->parameter_count; ++i)
        if (definition->parameters[i].type == STATE_MACHINE_TRIGGER)
            CHECK(triggers < index->trigger_count && index->triggers[triggers++] == i);
    CHECK(triggers == index->trigger_count);
}

static void test_index_lists_each_states_candidates_in_priority_order(void)
{
    state_machine_definition definition = hand_definition();
    /* 5 offsets; a: 2, 10 and the 5 `any` ones; b: 3, 12; c: 5, 6; d: 7, 13 (8's `from` is no state). */
    CHECK(state_machine_index_ints(&definition) == 5 + 4 * 5 + 2 + 2 + 2 + 2);
    int *storage = build_index(&definition);
    if (!storage)
        return;
    static const int expected[HAND_STATES][8] = {
        {0, 1, 2, 4, 9, 10, 11, -1},
        {0, 1, 3, 4, 9, 11, 12, -1},
        {0, 1, 4, 5, 6, 9, 11, -1},
        {0, 1, 4, 7, 9, 11, 13, -1},
    };
    for (int s = 0; s < HAND_STATES; ++s) {
        int k = definition.index.candidate_first[s], end = definition.index.candidate_first[s + 1];
        int count = 0;
        while (expected[s][count] >= 0)
            ++count;
        CHECK(end - k == count);
        for (int j = 0; j < count && k + j < end; ++j)
            CHECK(definition.index.candidates[k + j] == expected[s][j]);
    }
    CHECK(definition.index.trigger_count == 2 && definition.index.triggers[0] == HAND_T1 &&
          definition.index.triggers[1] == HAND_T2);
    check_index_lists(&definition);
    free(storage);
}

/* Too little storage, no storage, a bad definition: nothing is built and the index stays zeroed; a count
 * that does not fit in an int is refused without touching the states. */
static void test_index_build_refuses_what_it_cannot_hold(void)
{
    state_machine_definition definition = hand_definition();
    size_t ints = state_machine_index_ints(&definition);
    int storage[64];
    CHECK(ints <= sizeof storage / sizeof storage[0]);
    CHECK(!state_machine_index_build(&definition, storage, ints - 1));
    CHECK(definition.index.candidate_first == NULL && definition.index.candidates == NULL);
    CHECK(!state_machine_index_build(&definition, NULL, ints));
    CHECK(definition.index.candidate_first == NULL);
    CHECK(!state_machine_index_build(NULL, storage, ints));
    CHECK(state_machine_index_ints(NULL) == 0);

    /* Built, then built again into too little: the old index does not survive half-described. */
    CHECK(state_machine_index_build(&definition, storage, ints));
    CHECK(definition.index.candidate_first == storage);
    CHECK(!state_machine_index_build(&definition, storage, 3));
    CHECK(definition.index.candidate_first == NULL);

    state_machine_definition bad = definition;
    bad.parameter_count = STATE_MACHINE_MAX_PARAMETERS + 1;
    CHECK(state_machine_index_ints(&bad) == 0);
    bad = definition;
    bad.state_count = -1;
    CHECK(state_machine_index_ints(&bad) == 0);

    /* 2^30 states and two `any` transitions: 2^31 + 2^30 + 1 ints, past INT_MAX. The states are never read. */
    state_machine_transition any[2] = {{.from = STATE_MACHINE_ANY, .to = 0, .term_count = 1},
                                       {.from = STATE_MACHINE_ANY, .to = 0, .term_count = 1}};
    state_machine_definition huge = {.state_count = 1 << 30, .transition_count = 2, .transitions = any};
    CHECK(state_machine_index_ints(&huge) == 0);
    huge.transition_count = 1; /* 2^31 + 1: still one past */
    CHECK(state_machine_index_ints(&huge) == 0);
    huge.state_count = (1 << 30) - 1; /* 2^31 - 1 ints: fits */
    CHECK(state_machine_index_ints(&huge) == (size_t)INT32_MAX);
}

static uint32_t random_next(uint32_t *seed)
{
    /* xorshift32: the same sequence on every machine, so a failure can be replayed. */
    uint32_t x = *seed;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return *seed = x;
}

static float random_unit(uint32_t *seed)
{
    return (float)(random_next(seed) >> 8) / (float)(1u << 24);
}

/* A value for a number parameter: often exactly a value some condition compares it with, or just beside
 * it, so every comparison is seen on both sides and at equality; otherwise anywhere in a wide range. */
static float random_number(const state_machine_definition *definition, int parameter, uint32_t *seed)
{
    float values[64];
    int count = 0;
    for (int i = 0; i < definition->transition_count && count < 64; ++i)
        for (int t = 0; t < definition->transitions[i].term_count && count < 64; ++t) {
            const state_machine_term *term = &definition->transitions[i].terms[t];
            if (term->kind == STATE_MACHINE_TERM_COMPARE_PARAMETER && term->parameter == parameter)
                values[count++] = term->value;
        }
    uint32_t pick = random_next(seed) % 4;
    if (count == 0 || pick == 0)
        return (random_unit(seed) - 0.5f) * 400.0f;
    float value = values[random_next(seed) % (uint32_t)count];
    return pick == 1 ? value : pick == 2 ? value + 0.01f : value - 0.01f;
}

typedef struct step_comparison {
    int steps, fired, mismatched;
    int states_seen;   /* how many states were current at some step */
    int fired_kinds;   /* how many transitions fired at least once */
    int triggers_used; /* steps where a fired transition consumed a trigger */
} step_comparison;

/* The definition's index is built; the same definition with the index zeroed tries every transition. Both
 * get the same long random sequence of parameter values, triggers, clip statuses, time steps and, now and
 * then, a state set from outside (as a reload or the state panel would); the results (state, transition,
 * fade, playback) and the whole instances (trigger consumption and ageing included) must stay equal. */
static step_comparison compare_indexed_with_full_scan(const state_machine_definition *indexed, int steps,
                                                      uint32_t seed)
{
    step_comparison comparison = {0};
    state_machine_definition scan = *indexed;
    scan.index = (state_machine_index){0};
    state_machine_instance fast, slow;
    state_machine_instance_init(indexed, &fast);
    state_machine_instance_init(&scan, &slow);
    bool seen[ANIM_CONFIG_STATES_MAX] = {0};
    static bool fired_once[ANIM_CONFIG_TRANSITIONS_MAX];
    memset(fired_once, 0, sizeof fired_once);
    static const float dts[] = {0.0f, 1.0f / 60.0f, 1.0f / 30.0f, 0.1f, 0.3f, 1.5f};
    for (int step = 0; step < steps; ++step) {
        for (int p = 0; p < indexed->parameter_count; ++p) {
            uint32_t roll = random_next(&seed) % 8;
            switch (indexed->parameters[p].type) {
            case STATE_MACHINE_NUMBER:
                if (roll < 3) {
                    float value = random_number(indexed, p, &seed);
                    state_machine_param_set_number(indexed, &fast, (state_machine_param){p}, value);
                    state_machine_param_set_number(&scan, &slow, (state_machine_param){p}, value);
                }
                break;
            case STATE_MACHINE_BOOL:
                if (roll < 2) {
                    bool value = random_next(&seed) & 1;
                    state_machine_param_set_bool(indexed, &fast, (state_machine_param){p}, value);
                    state_machine_param_set_bool(&scan, &slow, (state_machine_param){p}, value);
                }
                break;
            case STATE_MACHINE_TRIGGER:
                if (roll == 0) {
                    state_machine_param_set_trigger(indexed, &fast, (state_machine_param){p});
                    state_machine_param_set_trigger(&scan, &slow, (state_machine_param){p});
                }
                break;
            }
        }
        if (random_next(&seed) % 50 == 0) {
            fast.state = slow.state = (int)(random_next(&seed) % (uint32_t)indexed->state_count);
            fast.time_in_state = slow.time_in_state = 0.0f;
        }
        float dt = dts[random_next(&seed) % (sizeof dts / sizeof dts[0])];
        state_machine_clip_status status = {.clip_finished = random_next(&seed) % 4 == 0,
                                            .overlay_finished = random_next(&seed) % 4 == 0};
        float before[STATE_MACHINE_MAX_PARAMETERS];
        memcpy(before, fast.values, sizeof before);
        state_machine_result fast_result, slow_result;
        bool fast_fired = state_machine_step(indexed, &fast, dt, status, &fast_result);
        bool slow_fired = state_machine_step(&scan, &slow, dt, status, &slow_result);
        bool same = fast_fired == slow_fired && fast_result.fired == slow_result.fired &&
                    fast_result.from == slow_result.from && fast_result.to == slow_result.to &&
                    fast_result.transition == slow_result.transition && fast_result.fade == slow_result.fade &&
                    fast_result.clip == slow_result.clip && fast_result.blend == slow_result.blend &&
                    fast_result.loop == slow_result.loop && fast_result.speed_scale == slow_result.speed_scale &&
                    fast_result.overlay_clip == slow_result.overlay_clip &&
                    fast_result.overlay_blend == slow_result.overlay_blend &&
                    fast_result.overlay_root_joint == slow_result.overlay_root_joint &&
                    fast_result.overlay_weight == slow_result.overlay_weight && same_instance(&fast, &slow);
        if (!same && comparison.mismatched++ == 0)
            printf("  first difference at step %d: transition %d to state %d (indexed) vs %d to %d (every "
                   "transition)\n", step, fast_result.transition, fast.state, slow_result.transition, slow.state);
        comparison.steps++;
        if (fast.state >= 0 && fast.state < ANIM_CONFIG_STATES_MAX)
            seen[fast.state] = true;
        if (fast_fired && fast_result.transition >= 0 && fast_result.transition < ANIM_CONFIG_TRANSITIONS_MAX) {
            comparison.fired++;
            fired_once[fast_result.transition] = true;
            const state_machine_transition *transition = &indexed->transitions[fast_result.transition];
            for (int t = 0; t < transition->term_count; ++t)
                if (transition->terms[t].kind == STATE_MACHINE_TERM_TRIGGER &&
                    before[transition->terms[t].parameter] != 0.0f &&
                    fast.values[transition->terms[t].parameter] == 0.0f) {
                    comparison.triggers_used++;
                    break;
                }
        }
    }
    for (int s = 0; s < indexed->state_count && s < ANIM_CONFIG_STATES_MAX; ++s)
        comparison.states_seen += seen[s];
    for (int i = 0; i < indexed->transition_count && i < ANIM_CONFIG_TRANSITIONS_MAX; ++i)
        comparison.fired_kinds += fired_once[i];
    return comparison;
}

static void test_indexed_step_decides_as_the_full_scan_on_a_hand_made_machine(void)
{
    state_machine_definition definition = hand_definition();
    int *storage = build_index(&definition);
    if (!storage)
        return;
    step_comparison comparison = compare_indexed_with_full_scan(&definition, 200000, 12345u);
    printf("  %d steps, %d fired, %d transitions of %d fired, %d states seen, %d fired on a trigger\n",
           comparison.steps, comparison.fired, comparison.fired_kinds, definition.transition_count,
           comparison.states_seen, comparison.triggers_used);
    CHECK(comparison.mismatched == 0);
    CHECK(comparison.states_seen == HAND_STATES);
    /* Every transition but the two that cannot fire (8: `from` no state, 11: `to` no state). */
    CHECK(comparison.fired_kinds == definition.transition_count - 2);
    CHECK(comparison.triggers_used > 100);
    free(storage);
}

/* A copy of an indexed definition with fewer transitions (the animator's probe sets transition_count to
 * 0) or other states (the state panel's test machine) must not use an index built for the original. */
static void test_a_changed_copy_does_not_use_the_index(void)
{
    state_machine_definition definition = hand_definition();
    int *storage = build_index(&definition);
    if (!storage)
        return;
    state_machine_definition probe = definition;
    probe.transition_count = 0;
    state_machine_instance instance;
    state_machine_instance_init(&probe, &instance);
    CHECK(state_machine_set_trigger(&probe, &instance, "t1")); /* would fire transition 0 through the index */
    state_machine_result result;
    CHECK(!state_machine_step(&probe, &instance, 0.0f, (state_machine_clip_status){0}, &result));
    CHECK(result.transition == -1 && result.to == HAND_A && instance.state == HAND_A);

    /* More states than the index knows: state 5's candidates would be read past the offsets. */
    static state_machine_state more_states[8];
    for (int s = 0; s < 8; ++s)
        more_states[s] = definition.states[s % HAND_STATES];
    state_machine_definition bigger = definition;
    bigger.states = more_states;
    bigger.state_count = 8;
    state_machine_instance_init(&bigger, &instance);
    instance.state = 5;
    CHECK(state_machine_set_trigger(&bigger, &instance, "t2"));
    CHECK(state_machine_step(&bigger, &instance, 0.1f, (state_machine_clip_status){0}, &result));
    CHECK(result.transition == 1 && result.from == 5 && result.to == HAND_D);
    free(storage);
}

/* A transition made by hand with more terms than the array holds fires on the terms it has, and consuming
 * its trigger reads no term past the array (the sanitizers' bounds check would stop it). */
static void test_a_term_count_past_the_array_reads_no_further(void)
{
    state_machine_definition definition = make_definition();
    state_machine_transition transition = {.from = STATE_MACHINE_ANY, .to = 0, .restart = true,
                                           .term_count = STATE_MACHINE_MAX_TERMS + 5};
    for (int t = 0; t < STATE_MACHINE_MAX_TERMS; ++t)
        transition.terms[t] = (state_machine_term){.kind = STATE_MACHINE_TERM_TRIGGER, .parameter = 2};
    definition.transitions = &transition;
    definition.transition_count = 1;
    state_machine_instance instance;
    state_machine_instance_init(&definition, &instance);
    CHECK(state_machine_set_trigger(&definition, &instance, "jump"));
    state_machine_result result;
    CHECK(state_machine_step(&definition, &instance, 0.0f, (state_machine_clip_status){0}, &result));
    CHECK(result.transition == 0 && instance.values[2] == 0.0f);
}

static void check_config_machines(const char *characters_path, int expected_characters)
{
    cache *cache = cache_create();
    diag_list errors = {0};
    anim_config *config = anim_config_load(characters_path, cache, &errors);
    test_print_diags(&errors);
    CHECK(config != NULL && errors.total == 0);
    diag_list_free(&errors);
    int count = config ? anim_config_character_count(config) : 0;
    CHECK(count == expected_characters);
    for (int c = 0; c < count; ++c) {
        const anim_character *character = anim_config_character(config, c);
        const state_machine_definition *machine = &character->machine;
        CHECK(machine->state_count > 1 && machine->transition_count > machine->state_count);
        check_index_lists(machine);
        /* The index pays off: a state tries far fewer transitions than there are. */
        int most = 0;
        for (int s = 0; s < machine->state_count && machine->index.candidate_first; ++s) {
            int candidates = machine->index.candidate_first[s + 1] - machine->index.candidate_first[s];
            most = candidates > most ? candidates : most;
        }
        printf("  %s: %d states, %d transitions, at most %d candidates in a state\n", character->name,
               machine->state_count, machine->transition_count, most);
        CHECK(most > 0 && most < machine->transition_count);
        step_comparison comparison = compare_indexed_with_full_scan(machine, 100000, 777u + (uint32_t)c);
        printf("  %d steps, %d fired, %d transitions of %d fired, %d states seen, %d fired on a trigger\n",
               comparison.steps, comparison.fired, comparison.fired_kinds, machine->transition_count,
               comparison.states_seen, comparison.triggers_used);
        CHECK(comparison.mismatched == 0);
        CHECK(comparison.states_seen == machine->state_count);
        CHECK(comparison.fired_kinds == machine->transition_count);
        CHECK(comparison.triggers_used > 100);
    }
    anim_config_free(config);
    cache_destroy(cache);
}

static void test_indexed_step_decides_as_the_full_scan_on_the_shipped_machines(void)
{
    check_config_machines(MARIONETTE_SOURCE_DIR "/config/characters.ini", 2);
    /* The older idle/walk/run machine the crossfade tests keep. */
    check_config_machines(MARIONETTE_TEST_DATA "/crossfade/characters.ini", 2);
}

int main(void)
{
    RUN(test_find_gives_the_index_of_the_name_and_type);
    RUN(test_a_handle_sets_what_the_name_sets);
    RUN(test_handles_found_again_follow_a_reorder);
    RUN(test_index_lists_each_states_candidates_in_priority_order);
    RUN(test_index_build_refuses_what_it_cannot_hold);
    RUN(test_indexed_step_decides_as_the_full_scan_on_a_hand_made_machine);
    RUN(test_a_changed_copy_does_not_use_the_index);
    RUN(test_a_term_count_past_the_array_reads_no_further);
    RUN(test_indexed_step_decides_as_the_full_scan_on_the_shipped_machines);
    return check_report();
}
