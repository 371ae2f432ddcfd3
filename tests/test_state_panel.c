/* The state machine panel's text and history (game/state_panel), on the demo's own characters with no
 * window: the transitions an entity takes, handed over step by step and guessed from looks after each step,
 * give the same history (names, condition, fade), newest first, the oldest dropped past eight; conditions
 * read as states.ini writes them; the panel marks the current state, shows a window around it in a big
 * machine and counts the rest, lists layers with their fades, every parameter and the transitions with
 * their age; and none of it touches the heap. */
#include "check.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "anim/config/anim_config.h"
#include "state_panel.h"

#include "heap_counter.h"

static cache *assets;
static anim_config *config;

static const anim_character *mannequin(void)
{
    return anim_config_find_character(config, "mannequin");
}

/* The first line of the panel that contains text, or -1. */
static int find_line(const state_panel_lines *lines, const char *text)
{
    for (int i = 0; i < lines->count; ++i)
        if (strstr(lines->text[i], text))
            return i;
    return -1;
}

static void print_lines(const state_panel_lines *lines)
{
    for (int i = 0; i < lines->count; ++i)
        printf("  |%s\n", lines->text[i]);
}

/* A timeline that takes the demo's machine through idle, walk, run, waves, a jump, a turn and a
 * celebration: the parameters an entity is given at a step of 1/60 s. */
static void drive(animator *a, int step)
{
    double time = step / 60.0;
    float speed = time < 2 ? 0.0f : time < 5 ? 1.4f : time < 8 ? 3.5f : time < 10 ? 1.4f : 0.0f;
    animator_set_number(a, "speed", speed);
    if (step == 60 * 3 || step == 60 * 11)
        animator_set_trigger(a, "wave");
    if (step == 60 * 6)
        animator_set_trigger(a, "jump");
    if (step == 60 * 14)
        animator_set_number(a, "turn", -90.0f);
    if (step == 60 * 15)
        animator_set_number(a, "turn", 0.0f);
    if (step == 60 * 17)
        animator_set_trigger(a, "celebrate");
}

/* Two entities on the same timeline: one's decisions are handed over, the other is only looked at after
 * each step (as a crowd member is). Both histories must read the same, and match what fired. */
static void test_handed_over_and_guessed_agree(void)
{
    animator *told = animator_create(mannequin()), *seen = animator_create(mannequin());
    CHECK(told && seen);
    if (!told || !seen)
        return;
    state_panel_history exact, guessed;
    state_panel_start(&exact, told);
    state_panel_start(&guessed, seen);
    CHECK(exact.count == 0 && strcmp(exact.seen_state, "idle") == 0);

    char fired[32][2][ANIM_NAME_MAX];
    float fades[32];
    int fired_count = 0;
    long heap_before = heap_calls;
    for (int step = 0; step < 60 * 20; ++step) {
        drive(told, step);
        drive(seen, step);
        animator_update_result result;
        CHECK(animator_update(told, 1.0 / 60.0, &result));
        CHECK(animator_update(seen, 1.0 / 60.0, NULL));
        double time = (step + 1) / 60.0;
        state_panel_record(&exact, told, &result.decision, time);
        state_panel_observe(&guessed, seen, time);
        if (result.decision.fired && fired_count < 32) {
            const state_machine_definition *m = &mannequin()->machine;
            snprintf(fired[fired_count][0], ANIM_NAME_MAX, "%s", m->states[result.decision.from].name);
            snprintf(fired[fired_count][1], ANIM_NAME_MAX, "%s", m->states[result.decision.to].name);
            fades[fired_count++] = result.decision.fade;
        }
    }
    CHECK(heap_calls == heap_before); /* recording, looking and guessing allocate nothing */
    printf("  %d transitions fired; kept, newest first:\n", fired_count);
    CHECK(fired_count > STATE_PANEL_HISTORY); /* the ring went round */
    CHECK(exact.count == STATE_PANEL_HISTORY && guessed.count == STATE_PANEL_HISTORY);
    for (int i = 0; i < STATE_PANEL_HISTORY; ++i) {
        const state_panel_transition *a = state_panel_transition_at(&exact, i), *b = state_panel_transition_at(&guessed, i);
        int k = fired_count - 1 - i;
        CHECK(a && b && k >= 0);
        if (!a || !b || k < 0)
            continue;
        printf("    %s -> %s (%s) fade %.2f at %.3f s | guessed: %s -> %s (%s) fade %.2f at %.3f s\n", a->from, a->to,
               a->condition, (double)a->fade, a->time, b->from, b->to, b->condition, (double)b->fade, b->time);
        CHECK(strcmp(a->from, fired[k][0]) == 0 && strcmp(a->to, fired[k][1]) == 0 && a->fade == fades[k]);
        CHECK(strcmp(a->from, b->from) == 0 && strcmp(a->to, b->to) == 0);
        CHECK(strcmp(a->condition, b->condition) == 0 && a->fade == b->fade && a->time == b->time);
    }
    CHECK(state_panel_transition_at(&exact, STATE_PANEL_HISTORY) == NULL);
    CHECK(state_panel_transition_at(&exact, -1) == NULL);
    /* The last of them: the celebration ended (its clip's end), back to idle. */
    const state_panel_transition *newest = state_panel_transition_at(&exact, 0);
    CHECK(newest && strcmp(newest->from, "celebrate") == 0 && strcmp(newest->to, "idle") == 0);
    CHECK(newest && strcmp(newest->condition, "end") == 0);

    /* Starting again forgets what was taken. */
    state_panel_start(&guessed, seen);
    CHECK(guessed.count == 0 && strcmp(guessed.seen_state, "idle") == 0);
    animator_destroy(told);
    animator_destroy(seen);
}

/* A state left and entered again between two looks reads as a restart only when time in state went back;
 * the states' names are what the history keeps. A guess among transitions that share their target takes
 * the first (by priority) that the values now agree with. */
static void test_guesses(void)
{
    const state_machine_definition *m = &mannequin()->machine;
    int idle = state_machine_find_state(m, "idle"), walk = state_machine_find_state(m, "walk");
    int run = state_machine_find_state(m, "run"), jump = state_machine_find_state(m, "jump");
    state_machine_instance instance;
    state_machine_instance_init(m, &instance);
    int speed = state_machine_find_parameter(m, "speed");

    /* Landing: run (end and speed > 2.4) before walk (end and speed > 0.15) before idle (end). */
    char text[STATE_PANEL_CONDITION_MAX];
    instance.values[speed] = 3.0f;
    int t = state_panel_guess_transition(m, jump, run, &instance);
    state_panel_condition_text(m, t, text, sizeof text);
    CHECK(strcmp(text, "end and speed > 2.4") == 0);
    instance.values[speed] = 1.0f;
    t = state_panel_guess_transition(m, jump, walk, &instance);
    state_panel_condition_text(m, t, text, sizeof text);
    CHECK(strcmp(text, "end and speed > 0.15") == 0);
    /* run -> idle (speed < 0.15) agrees with speed 0.1; with speed 1 nothing agrees: the first that leads
     * there is still the answer. */
    instance.values[speed] = 0.1f;
    t = state_panel_guess_transition(m, run, idle, &instance);
    state_panel_condition_text(m, t, text, sizeof text);
    CHECK(strcmp(text, "speed < 0.15") == 0 && m->transitions[t].fade == 0.35f);
    instance.values[speed] = 1.0f;
    CHECK(state_panel_guess_transition(m, run, idle, &instance) == t);
    /* A jump comes from any state while grounded, and its trigger has been used up. */
    t = state_panel_guess_transition(m, walk, jump, &instance);
    state_panel_condition_text(m, t, text, sizeof text);
    CHECK(strcmp(text, "jump and grounded") == 0 && m->transitions[t].from == STATE_MACHINE_ANY);
    /* Nothing leads from idle back into idle (no restart); from a state not known, anything leading there. */
    CHECK(state_panel_guess_transition(m, idle, idle, &instance) == -1);
    CHECK(state_panel_guess_transition(m, -1, run, &instance) >= 0);
    CHECK(state_panel_guess_transition(NULL, 0, run, &instance) == -1);

    /* A look that sees the same state with its time gone back counts a restart. */
    animator *a = animator_create(mannequin());
    state_panel_history history;
    state_panel_start(&history, a);
    history.seen_time_in_state = 5.0f; /* as if the last look had seen idle 5 s in */
    state_panel_observe(&history, a, 1.0);
    CHECK(history.count == 1);
    const state_panel_transition *restart = state_panel_transition_at(&history, 0);
    CHECK(restart && strcmp(restart->from, "idle") == 0 && strcmp(restart->to, "idle") == 0);
    CHECK(restart && strcmp(restart->condition, "?") == 0 && restart->fade < 0.0f); /* nothing leads there */
    state_panel_observe(&history, a, 2.0); /* nothing changed since */
    CHECK(history.count == 1);
    animator_destroy(a);
}

static void test_condition_words(void)
{
    const state_machine_definition *m = &mannequin()->machine;
    static const char *const expected[] = {"speed > 0.2", "speed < 0.15", "jump and grounded", "end and speed > 2.4",
                                           "turn < -45", "speed > 0.2 and time > 0.3", "celebrate", "end",
                                           "overlay_end", "wave"};
    for (size_t e = 0; e < sizeof expected / sizeof expected[0]; ++e) {
        bool found = false;
        for (int t = 0; t < m->transition_count && !found; ++t) {
            char text[STATE_PANEL_CONDITION_MAX];
            state_panel_condition_text(m, t, text, sizeof text);
            found = strcmp(text, expected[e]) == 0;
        }
        if (!found)
            printf("  no transition reads \"%s\"\n", expected[e]);
        CHECK(found);
    }

    /* Bools both ways, other comparisons, `true`, a term that cannot be written, a short buffer. */
    state_machine_definition made = {.parameter_count = 2};
    snprintf(made.parameters[0].name, ANIM_NAME_MAX, "grounded");
    made.parameters[0].type = STATE_MACHINE_BOOL;
    snprintf(made.parameters[1].name, ANIM_NAME_MAX, "height");
    made.parameters[1].type = STATE_MACHINE_NUMBER;
    state_machine_transition transitions[4] = {
        {.term_count = 3,
         .terms = {{STATE_MACHINE_TERM_COMPARE_PARAMETER, 0, STATE_MACHINE_EQUAL, 0.0f},
                   {STATE_MACHINE_TERM_COMPARE_PARAMETER, 0, STATE_MACHINE_NOT_EQUAL, 0.0f},
                   {STATE_MACHINE_TERM_COMPARE_PARAMETER, 1, STATE_MACHINE_GREATER_EQUAL, -1.5f}}},
        {.term_count = 2,
         .terms = {{STATE_MACHINE_TERM_ALWAYS, -1, 0, 0.0f},
                   {STATE_MACHINE_TERM_COMPARE_TIME, -1, STATE_MACHINE_LESS_EQUAL, 2.0f}}},
        {.term_count = 1, .terms = {{STATE_MACHINE_TERM_TRIGGER, 7, 0, 0.0f}}},
        {.term_count = 2,
         .terms = {{STATE_MACHINE_TERM_COMPARE_PARAMETER, 1, STATE_MACHINE_NOT_EQUAL, 3.0f},
                   {STATE_MACHINE_TERM_COMPARE_PARAMETER, 0, STATE_MACHINE_EQUAL, 1.0f}}},
    };
    made.transition_count = 4;
    made.transitions = transitions;
    char text[STATE_PANEL_CONDITION_MAX];
    state_panel_condition_text(&made, 0, text, sizeof text);
    CHECK(strcmp(text, "not grounded and grounded and height >= -1.5") == 0);
    state_panel_condition_text(&made, 1, text, sizeof text);
    CHECK(strcmp(text, "true and time <= 2") == 0);
    state_panel_condition_text(&made, 2, text, sizeof text);
    CHECK(strcmp(text, "transition 2") == 0); /* a trigger that is not there */
    state_panel_condition_text(&made, 3, text, sizeof text);
    CHECK(strcmp(text, "height != 3 and grounded") == 0);
    state_panel_condition_text(&made, 4, text, sizeof text);
    CHECK(strcmp(text, "?") == 0);
    char small[8];
    state_panel_condition_text(&made, 0, small, sizeof small);
    CHECK(strcmp(small, "not gro") == 0);
}

static void test_panel_lines(void)
{
    animator *a = animator_create(mannequin());
    CHECK(a != NULL);
    if (!a)
        return;
    state_panel_history history;
    state_panel_start(&history, a);
    static state_panel_lines lines;
    long heap_before = heap_calls;
    state_panel_build(a, "the player", &history, 0.0, &lines);
    CHECK(heap_calls == heap_before);
    print_lines(&lines);
    CHECK(lines.count > 0 && strcmp(lines.text[0], "state machine: the player (mannequin)") == 0);
    CHECK(lines.styles[0] == STATE_PANEL_TITLE);
    int current = find_line(&lines, "> idle");
    CHECK(current >= 0 && lines.styles[current] == STATE_PANEL_CURRENT);
    /* Every other state plain, unmarked; the demo's 9 all listed. */
    int listed = 0;
    for (int i = 0; i < lines.count; ++i)
        listed += lines.styles[i] == STATE_PANEL_CURRENT || (lines.styles[i] == STATE_PANEL_PLAIN &&
                                                             state_machine_find_state(&mannequin()->machine,
                                                                                      lines.text[i] + 2) >= 0);
    CHECK(listed == mannequin()->machine.state_count && find_line(&lines, "states (9)") >= 0);
    CHECK(find_line(&lines, "more above") < 0 && find_line(&lines, "more below") < 0);
    CHECK(find_line(&lines, "speed 0.00  turn 0.00  grounded true  jump -") >= 0);
    int none = find_line(&lines, "  none yet");
    CHECK(none >= 0 && lines.styles[none] == STATE_PANEL_QUIET);
    int body = find_line(&lines, "body:");
    CHECK(body >= 0 && strstr(lines.text[body + 1], "idle         1.00 [##########]") != NULL);

    /* Walking, 0.18 s into the walk's 0.25 s fade over the idle; a trigger set and not yet used. */
    state_panel_start(&history, a);
    for (int step = 0; step < 12; ++step) {
        animator_set_number(a, "speed", 1.4f);
        animator_update_result result;
        animator_update(a, 1.0 / 60.0, &result);
        state_panel_record(&history, a, &result.decision, (step + 1) / 60.0);
    }
    animator_set_trigger(a, "wave");
    state_panel_build(a, "crowd #3", &history, 1.25, &lines);
    print_lines(&lines);
    CHECK(strcmp(lines.text[0], "state machine: crowd #3 (mannequin)") == 0);
    current = find_line(&lines, "> walk");
    CHECK(current >= 0 && lines.styles[current] == STATE_PANEL_CURRENT && strstr(lines.text[current], "for 0.18 s"));
    body = find_line(&lines, "body:");
    CHECK(body >= 0 && strncmp(lines.text[body + 1], "  walk ", 7) == 0 && strstr(lines.text[body + 1], "fade in"));
    CHECK(body >= 0 && strncmp(lines.text[body + 2], "  idle ", 7) == 0 && !strstr(lines.text[body + 2], "fade in"));
    CHECK(find_line(&lines, "speed 1.40") >= 0 && find_line(&lines, "wave set") >= 0);
    CHECK(find_line(&lines, "  idle -> walk (speed > 0.2) fade 0.25 s, 1.2 s ago") >= 0);
    CHECK(find_line(&lines, "none yet") < 0);

    struct timespec begin, end;
    clock_gettime(CLOCK_MONOTONIC, &begin);
    for (int i = 0; i < 1000; ++i)
        state_panel_build(a, "crowd #3", &history, 1.25, &lines);
    clock_gettime(CLOCK_MONOTONIC, &end);
    printf("  the panel built in %.1f us\n",
           ((double)(end.tv_sec - begin.tv_sec) * 1e9 + (double)(end.tv_nsec - begin.tv_nsec)) / 1000.0 / 1e3);

    /* No entity: one line that says so. */
    state_panel_build(NULL, "the player", &history, 0.0, &lines);
    CHECK(lines.count == 1 && strstr(lines.text[0], "nothing plays"));
    animator_destroy(a);
}

/* A machine of 30 states: twelve around the current one, and how many are left out above and below. */
static void test_big_machine_window(void)
{
    enum { STATES = 30 };
    static state_machine_state states[STATES];
    anim_character big = *mannequin();
    for (int s = 0; s < STATES; ++s) {
        states[s] = big.machine.states[state_machine_find_state(&big.machine, "idle")];
        snprintf(states[s].name, ANIM_NAME_MAX, "state%02d", s);
    }
    big.machine.states = states;
    big.machine.state_count = STATES;
    big.machine.transition_count = 0;
    static const struct {
        int start;
        const char *first, *last, *above, *below;
    } cases[] = {
        {20, "state14", "state25", "  ... 14 more above", "  ... 4 more below"},
        {0, "state00", "state11", NULL, "  ... 18 more below"},
        {29, "state18", "state29", "  ... 18 more above", NULL},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        big.machine.start_state = cases[c].start;
        animator *a = animator_create(&big);
        CHECK(a != NULL);
        if (!a)
            continue;
        static state_panel_lines lines;
        state_panel_build(a, "the player", NULL, 0.0, &lines);
        int heading = find_line(&lines, "states (30)");
        CHECK(heading >= 0);
        int at = heading + 1;
        if (cases[c].above) {
            CHECK(strcmp(lines.text[at], cases[c].above) == 0 && lines.styles[at] == STATE_PANEL_QUIET);
            ++at;
        }
        CHECK(strstr(lines.text[at], cases[c].first) != NULL);
        CHECK(strstr(lines.text[at + STATE_PANEL_STATES_SHOWN - 1], cases[c].last) != NULL);
        char marked[32];
        snprintf(marked, sizeof marked, "> state%02d", cases[c].start);
        int current = find_line(&lines, marked);
        CHECK(current > heading && current < at + STATE_PANEL_STATES_SHOWN);
        int after = at + STATE_PANEL_STATES_SHOWN;
        if (cases[c].below)
            CHECK(strcmp(lines.text[after], cases[c].below) == 0);
        else
            CHECK(strncmp(lines.text[after], "body:", 5) == 0);
        animator_destroy(a);
    }
}

/* The shipped machine's locomotion blend: its layer line names the blend, and a line below gives its point
 * and the weight of each clip that shows. */
static void test_blend_lines(void)
{
    cache *shipped_assets = cache_create();
    diag_list errors = {0};
    anim_config *shipped = anim_config_load(MARIONETTE_SOURCE_DIR "/config/characters.ini", shipped_assets, &errors);
    const anim_character *character = shipped ? anim_config_find_character(shipped, "mannequin") : NULL;
    animator *a = character ? animator_create(character) : NULL;
    CHECK(a != NULL);
    if (a) {
        CHECK(animator_set_number(a, "speed", 2.45f));
        CHECK(animator_update(a, 1.0 / 60.0, NULL));
        state_panel_history history;
        state_panel_start(&history, a);
        static state_panel_lines lines;
        long heap_before = heap_calls;
        state_panel_build(a, "the player", &history, 0.0, &lines);
        CHECK(heap_calls == heap_before);
        print_lines(&lines);
        int body = find_line(&lines, "body:");
        CHECK(body >= 0 && strncmp(lines.text[body + 1], "  locomotion ", 13) == 0);
        CHECK(body >= 0 && strcmp(lines.text[body + 2], "    at 2.45: walk 0.50 run 0.50") == 0);
    }
    animator_destroy(a);
    anim_config_free(shipped);
    cache_destroy(shipped_assets);
    diag_list_free(&errors);
}

int main(void)
{
    RUN(test_blend_lines);
    assets = cache_create();
    diag_list errors = {0};
    config = anim_config_load(MARIONETTE_TEST_DATA "/crossfade/characters.ini", assets, &errors); /* idle, walk, run as states: many transitions to follow */
    CHECK(config != NULL && mannequin() != NULL);
    if (config && mannequin()) {
        RUN(test_handed_over_and_guessed_agree);
        RUN(test_guesses);
        RUN(test_condition_words);
        RUN(test_panel_lines);
        RUN(test_big_machine_window);
    }
    anim_config_free(config);
    cache_destroy(assets);
    diag_list_free(&errors);
    return check_report();
}
