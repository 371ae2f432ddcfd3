/* Scripted input: every verb, file order, tap releases one step later, the same events at any step rate,
 * every bad line reported with its line number, and a replay through the bindings as a player's keys. */
#include "check.h"
#include "test_files.h"

#include <unistd.h>

#include "controls.h"
#include "input_script.h"

static char temp_folder[512];
static char temp_path[600];

static input_script *load_text(const char *text, diag_list *errors)
{
    test_write_file(temp_path, text);
    return input_script_load(temp_path, errors);
}

static const char example[] = "# seconds  verb     argument\n"
                              "0.5        press    W\n"
                              "2.0        release  W\n"
                              "\n"
                              "2.5        tap      Space          ; press now, release one step later\n"
                              "3.0        press    Left Shift     ; SDL key names may contain spaces\n"
                              "4.0        wheel    -2             ; mouse wheel steps (zoom)\n"
                              "4.5        drag     120 -30        # mouse drag in pixels (orbit)\n"
                              "4.5        release  left shift\n";

/* An event as delivered, with the step that delivered it. */
typedef struct delivery {
    input_script_event event;
    int step;
} delivery;

enum { DELIVERIES_MAX = 64 };

/* Poll once per step of dt seconds (times summed step by step, as a game loop does, rounding and all)
 * until the script is finished. Returns how many events came. */
static int replay(input_script *script, double dt, delivery *out, int *steps_taken)
{
    int count = 0;
    double time = 0.0;
    int step = 0;
    for (; step < 100000 && !input_script_finished(script); ++step) {
        input_script_event events[8];
        int polled = input_script_poll(script, time, events, 8);
        for (int i = 0; i < polled && count < DELIVERIES_MAX; ++i)
            out[count++] = (delivery){events[i], step};
        time += dt;
    }
    *steps_taken = step;
    return count;
}

static void test_every_verb(void)
{
    diag_list errors = {0};
    input_script *script = load_text(example, &errors);
    CHECK(script != NULL);
    CHECK(errors.total == 0);
    if (!script)
        return;
    CHECK(input_script_event_count(script) == 7);
    CHECK_NEAR(input_script_duration(script), 4.5, 1e-12);
    CHECK(!input_script_finished(script));
    delivery got[DELIVERIES_MAX];
    int steps;
    int count = replay(script, 1.0 / 60.0, got, &steps);
    CHECK(count == 8); /* the tap gives two */
    if (count == 8) {
        static const struct {
            input_script_event_kind kind;
            platform_key key;
            int step, line;
        } expected[] = {
            {INPUT_SCRIPT_KEY_DOWN, PLATFORM_KEY_W, 30, 2},       {INPUT_SCRIPT_KEY_UP, PLATFORM_KEY_W, 120, 3},
            {INPUT_SCRIPT_KEY_DOWN, PLATFORM_KEY_SPACE, 150, 5},  {INPUT_SCRIPT_KEY_UP, PLATFORM_KEY_SPACE, 151, 5},
            {INPUT_SCRIPT_KEY_DOWN, PLATFORM_KEY_LSHIFT, 180, 6}, {INPUT_SCRIPT_WHEEL, PLATFORM_KEY_UNKNOWN, 240, 7},
            {INPUT_SCRIPT_DRAG, PLATFORM_KEY_UNKNOWN, 270, 8},    {INPUT_SCRIPT_KEY_UP, PLATFORM_KEY_LSHIFT, 270, 9},
        };
        for (int i = 0; i < 8; ++i) {
            CHECK(got[i].event.kind == expected[i].kind);
            CHECK(got[i].event.key == expected[i].key);
            CHECK(got[i].step == expected[i].step);
            CHECK(got[i].event.line == expected[i].line);
        }
        CHECK_NEAR(got[3].event.time, 2.5, 1e-12); /* a tap's release carries its press's time */
        CHECK_NEAR(got[5].event.wheel, -2.0, 1e-7);
        CHECK_NEAR(got[6].event.drag_x, 120.0, 1e-7);
        CHECK_NEAR(got[6].event.drag_y, -30.0, 1e-7);
    }
    CHECK(steps == 271);
    CHECK(input_script_finished(script));
    input_script_event spare[4];
    CHECK(input_script_poll(script, 100.0, spare, 4) == 0);
    input_script_free(script);
    diag_list_free(&errors);
}

/* A click: the pixel as written (decimals too), in file order with the other verbs, at its time. */
static void test_click(void)
{
    diag_list errors = {0};
    input_script *script = load_text("0.5 tap F6\n1.0 click 640 360.5 ; a character, perhaps\n1.0 click 0 0\n",
                                     &errors);
    CHECK(script != NULL && errors.total == 0);
    if (!script)
        return;
    CHECK(input_script_event_count(script) == 3);
    input_script_event events[4];
    CHECK(input_script_poll(script, 0.99, events, 4) == 1 && events[0].kind == INPUT_SCRIPT_KEY_DOWN);
    CHECK(input_script_poll(script, 1.0, events, 4) == 3);
    CHECK(events[0].kind == INPUT_SCRIPT_KEY_UP && events[0].key == PLATFORM_KEY_F6);
    CHECK(events[1].kind == INPUT_SCRIPT_CLICK && events[1].line == 2);
    CHECK_NEAR(events[1].x, 640.0, 1e-7);
    CHECK_NEAR(events[1].y, 360.5, 1e-7);
    CHECK_NEAR(events[1].time, 1.0, 1e-12);
    CHECK(events[2].kind == INPUT_SCRIPT_CLICK && events[2].x == 0.0f && events[2].y == 0.0f);
    CHECK(input_script_finished(script));
    input_script_free(script);
    diag_list_free(&errors);
}

static void test_same_time_keeps_file_order_and_max_is_respected(void)
{
    input_script *script = load_text("1.0 press B\n1.0 wheel 1\n1 press A\n0.9999 drag 1 2\n2 release A\n", NULL);
    CHECK(script == NULL); /* 0.9999 goes backwards */
    script = load_text("1.0 press B\n1.0 wheel 1\n1 press A\n1.00 drag 1 2\n2 release A\n", NULL);
    CHECK(script != NULL);
    if (!script)
        return;
    input_script_event events[8];
    CHECK(input_script_poll(script, 0.999, events, 8) == 0);
    /* max 2: the rest stays due and comes next, still in order. */
    CHECK(input_script_poll(script, 1.0, events, 2) == 2);
    CHECK(events[0].kind == INPUT_SCRIPT_KEY_DOWN && events[0].key == PLATFORM_KEY_B);
    CHECK(events[1].kind == INPUT_SCRIPT_WHEEL && events[1].line == 2);
    CHECK(input_script_poll(script, 1.0, events, 8) == 2);
    CHECK(events[0].key == PLATFORM_KEY_A && events[0].line == 3);
    CHECK(events[1].kind == INPUT_SCRIPT_DRAG);
    CHECK(!input_script_finished(script));
    /* Jumping far ahead delivers everything due at once. */
    CHECK(input_script_poll(script, 10.0, events, 8) == 1);
    CHECK(events[0].kind == INPUT_SCRIPT_KEY_UP && events[0].key == PLATFORM_KEY_A);
    CHECK(input_script_finished(script));
    CHECK(input_script_poll(script, 10.0, events, 0) == 0);
    CHECK(input_script_poll(NULL, 10.0, events, 8) == 0);
    input_script_free(script);
}

static void test_tap_releases_at_the_next_step(void)
{
    input_script *script = load_text("1.0 tap Space\n1.0 press X\n1.01 press C\n1.2 tap E\n1.2 tap Q\n", NULL);
    CHECK(script != NULL);
    if (!script)
        return;
    input_script_event events[8];
    CHECK(input_script_poll(script, 1.0, events, 8) == 2);
    CHECK(events[0].kind == INPUT_SCRIPT_KEY_DOWN && events[0].key == PLATFORM_KEY_SPACE);
    CHECK(events[1].kind == INPUT_SCRIPT_KEY_DOWN && events[1].key == PLATFORM_KEY_X);
    /* A second poll within the same step: the tap is still down. */
    CHECK(input_script_poll(script, 1.0, events, 8) == 0);
    CHECK(!input_script_finished(script));
    /* The next step: the release first (it belongs to the earlier time), then what is due now. */
    CHECK(input_script_poll(script, 1.0 + 1.0 / 60.0, events, 8) == 2);
    CHECK(events[0].kind == INPUT_SCRIPT_KEY_UP && events[0].key == PLATFORM_KEY_SPACE && events[0].line == 1);
    CHECK(events[1].kind == INPUT_SCRIPT_KEY_DOWN && events[1].key == PLATFORM_KEY_C);
    /* Two taps at once: both down together, both up at the next step, in file order. */
    CHECK(input_script_poll(script, 1.2, events, 8) == 2);
    CHECK(events[0].key == PLATFORM_KEY_E && events[1].key == PLATFORM_KEY_Q);
    CHECK(events[0].kind == INPUT_SCRIPT_KEY_DOWN && events[1].kind == INPUT_SCRIPT_KEY_DOWN);
    CHECK(!input_script_finished(script)); /* every event handed out, but the releases are pending */
    /* max 1: one release per poll, the second still comes before anything else. */
    CHECK(input_script_poll(script, 1.25, events, 1) == 1);
    CHECK(events[0].kind == INPUT_SCRIPT_KEY_UP && events[0].key == PLATFORM_KEY_E);
    CHECK(input_script_poll(script, 1.25, events, 1) == 1);
    CHECK(events[0].kind == INPUT_SCRIPT_KEY_UP && events[0].key == PLATFORM_KEY_Q);
    CHECK(input_script_finished(script));
    input_script_free(script);
}

static void test_same_events_at_any_step_rate(void)
{
    static const double rates[] = {30.0, 60.0, 144.0};
    delivery reference[DELIVERIES_MAX];
    int reference_count = 0;
    for (int r = 0; r < 3; ++r) {
        input_script *script = load_text(example, NULL);
        CHECK(script != NULL);
        if (!script)
            return;
        double dt = 1.0 / rates[r];
        delivery got[DELIVERIES_MAX];
        int steps;
        int count = replay(script, dt, got, &steps);
        CHECK(count == 8);
        for (int i = 0; i < count; ++i) {
            /* Each event comes at the first step whose time reaches it; a tap's release one step later. */
            bool tap_release = got[i].event.kind == INPUT_SCRIPT_KEY_UP && got[i].event.key == PLATFORM_KEY_SPACE;
            int expected_step = (int)ceil(got[i].event.time * rates[r] - 1e-6) + (tap_release ? 1 : 0);
            CHECK(got[i].step == expected_step);
        }
        if (r == 0) {
            memcpy(reference, got, sizeof got);
            reference_count = count;
        } else {
            CHECK(count == reference_count);
            for (int i = 0; i < count && i < reference_count; ++i) {
                CHECK(got[i].event.kind == reference[i].event.kind);
                CHECK(got[i].event.key == reference[i].event.key);
                CHECK(got[i].event.line == reference[i].event.line);
                CHECK(got[i].event.wheel == reference[i].event.wheel);
                CHECK(got[i].event.drag_x == reference[i].event.drag_x);
                CHECK(got[i].event.drag_y == reference[i].event.drag_y);
                CHECK_NEAR(got[i].step * (1.0 / rates[r]), got[i].event.time, 1.0 / rates[r] + 1e-6);
            }
        }
        input_script_free(script);
    }
    /* At 30 Hz, 2.5 s is step 75 exactly and the tap's release is step 76. */
    CHECK(reference[2].step == 75 && reference[3].step == 76);
}

static void test_bad_lines_are_reported_with_their_line(void)
{
    static const struct {
        int line;
        const char *message;
    } expected[] = {
        {1, "bad time 'soon'"},
        {2, "bad time '-1'"},
        {4, "time 0.5 goes backwards: the event at line 3 is at 1"},
        {5, "unknown verb 'hold'"},
        {6, "unknown key name 'Spcae'"},
        {7, "press needs a key name"},
        {8, "wheel needs one number"},
        {9, "wheel takes one number (steps); '2' is one argument too many"},
        {10, "drag needs two numbers"},
        {11, "drag: 'up' is not a number"},
        {12, "missing verb"},
        {14, "tap needs a key name"},
        {15, "bad time 'inf'"},
        {16, "drag takes two numbers (pixels x y); '3' is one argument too many"},
        /* Past float's range these were stored as infinity (fuzz_settings' finite-number check). */
        {17, "wheel: 1e300 is out of range (-1e+06 to 1e+06)"},
        {18, "drag: -2e6 is out of range (-1e+06 to 1e+06)"},
        /* Times have a range too, and numbers are decimals: hexadecimal is not read. */
        {19, "bad time '1e300': seconds of simulation time, a number from 0 to 1e+07"},
        {20, "bad time '0x10'"},
        {21, "unknown key name '\\xC3\\xA9' (SDL key names in printable ASCII"},
        {22, "click needs two numbers (pixel x y)"},
        {23, "click: -1 is out of range (0 to 1e+06)"},
        {24, "unknown verb 'rightclick' (press, release, tap, wheel, drag or click)"},
    };
    diag_list errors = {0};
    input_script *script = load_text("soon press W\n"
                                     "-1 press W\n"
                                     "1.0 press W\n"
                                     "0.5 release W\n"
                                     "1.0 hold W\n"
                                     "1.0 press Spcae\n"
                                     "1.0 press\n"
                                     "1.0 wheel\n"
                                     "1.0 wheel 1 2\n"
                                     "1.0 drag 5\n"
                                     "1.0 drag 5 up\n"
                                     "1.0\n"
                                     "1.5 release W\n"
                                     "2 tap ; a comment is no key: write Semicolon\n"
                                     "inf tap W\n"
                                     "3 drag 1 2 3\n"
                                     "3 wheel 1e300\n"
                                     "3 drag 5 -2e6\n"
                                     "1e300 tap W\n"
                                     "0x10 tap W\n"
                                     "4 tap \xC3\xA9\n"
                                     "4 click 5\n"
                                     "4 click -1 5\n"
                                     "4 rightclick 5 5\n",
                                     &errors);
    CHECK(script == NULL);
    int expected_count = (int)(sizeof expected / sizeof expected[0]);
    CHECK(errors.total == expected_count);
    for (int i = 0; i < expected_count && i < errors.count; ++i) {
        CHECK(strcmp(errors.items[i].file, temp_path) == 0);
        CHECK(errors.items[i].line == expected[i].line);
        CHECK_STR_CONTAINS(errors.items[i].message, expected[i].message);
    }
    input_script_free(script);

    diag_list_clear(&errors);
    CHECK(input_script_load(MARIONETTE_BUILD_DIR "/no-such-script.txt", &errors) == NULL);
    CHECK(errors.total == 1);
    if (errors.count == 1)
        CHECK_STR_CONTAINS(errors.items[0].file, "no-such-script.txt");
    diag_list_clear(&errors);
    CHECK(load_text("1 press W\n2 press\x01\n", &errors) == NULL);
    CHECK(errors.total == 1 && errors.count == 1 && errors.items[0].line == 2);
    diag_list_clear(&errors);
    test_write_bytes(temp_path, "1 press W\n2 rel\0ease W\n", 23);
    CHECK(input_script_load(temp_path, &errors) == NULL);
    CHECK(errors.count == 1 && errors.items[0].line == 2);
    if (errors.count == 1)
        CHECK_STR_CONTAINS(errors.items[0].message, "NUL");
    diag_list_free(&errors);
}

static void test_warnings_still_load(void)
{
    diag_list errors = {0};
    input_script *script = load_text("1 release W\n2 press W\n3 press w\n4 tap W\n5 release W\n", &errors);
    CHECK(script != NULL);
    CHECK(errors.total == 4);
    if (errors.count == 4) {
        CHECK(errors.items[0].line == 1);
        CHECK_STR_CONTAINS(errors.items[0].message, "warning: release of W, which is not pressed");
        CHECK(errors.items[1].line == 3);
        CHECK_STR_CONTAINS(errors.items[1].message, "warning: w is already pressed (line 2)");
        CHECK(errors.items[2].line == 4);
        CHECK_STR_CONTAINS(errors.items[2].message, "warning: tap of W while it is pressed (line 2)");
        CHECK(errors.items[3].line == 5);
        CHECK_STR_CONTAINS(errors.items[3].message, "warning: release of W");
    }
    CHECK(input_script_event_count(script) == 5);
    input_script_free(script);

    /* More warnings than a diag_list keeps: still only warnings, the script still loads (fuzz_settings
     * input; its check had taken the unkept ones for errors). */
    enum { RELEASES = DIAG_LIST_KEEP + 6 };
    char text[RELEASES * 16] = "";
    for (int i = 0; i < RELEASES; ++i)
        snprintf(text + strlen(text), sizeof text - strlen(text), "7.0 release X\n");
    diag_list_clear(&errors);
    script = load_text(text, &errors);
    CHECK(script != NULL && input_script_event_count(script) == RELEASES);
    CHECK(errors.total == RELEASES && errors.count == DIAG_LIST_KEEP);
    input_script_free(script);
    diag_list_free(&errors);
}

static void test_comments_names_and_line_endings(void)
{
    diag_list errors = {0};
    /* A byte order mark (some Windows editors write one) is skipped. */
    input_script *script = load_text("\xEF\xBB\xBF# a comment line\r\n"
                                     "; another\r\n"
                                     "   \r\n"
                                     "0.25\tpress\tSemicolon\r\n"
                                     "0.5 press Hash ; the '#' key\r\n"
                                     "0.75 tap Comma\r\n"
                                     "1 press Keypad 8   # spaces in the name\r\n"
                                     "1e0 press [\r\n"
                                     "2 release Keypad 8",
                                     &errors);
    CHECK(script != NULL);
    CHECK(errors.total == 0);
    if (!script)
        return;
    CHECK(input_script_event_count(script) == 6);
    CHECK_NEAR(input_script_duration(script), 2.0, 1e-12);
    input_script_event events[8];
    CHECK(input_script_poll(script, 10.0, events, 8) == 6);
    CHECK(events[0].key == PLATFORM_KEY_SEMICOLON && events[0].line == 4);
    CHECK(events[1].key == PLATFORM_KEY_HASH);
    CHECK(events[2].key == PLATFORM_KEY_COMMA);
    CHECK(events[3].key == PLATFORM_KEY_KP_8 && events[3].line == 7);
    CHECK(events[4].key == PLATFORM_KEY_LEFTBRACKET);
    CHECK(events[5].kind == INPUT_SCRIPT_KEY_UP && events[5].key == PLATFORM_KEY_KP_8 && events[5].line == 9);
    input_script_free(script);

    /* Lone CRs (old Mac editors) end lines too: the same events on the same line numbers, and a mistake is
     * reported at its own line, not at line 1 of one long line. More lines than '\n' bytes: the entries
     * are sized by the lines found, so the last events are still kept. */
    script = load_text("# cr only\r0.25 press Semicolon\r\r0.5 tap Comma\r1 press W\r2 release W", &errors);
    CHECK(script != NULL && errors.total == 0);
    if (script) {
        CHECK(input_script_event_count(script) == 4);
        CHECK(input_script_poll(script, 10.0, events, 8) == 4);
        CHECK(events[0].key == PLATFORM_KEY_SEMICOLON && events[0].line == 2);
        CHECK(events[1].key == PLATFORM_KEY_COMMA && events[1].line == 4);
        CHECK(events[3].kind == INPUT_SCRIPT_KEY_UP && events[3].line == 6);
        input_script_free(script);
    }
    script = load_text("0.25 press W\r0.5 hop W\r", &errors);
    CHECK(script == NULL && errors.count == 1 && errors.items[0].line == 2);
    diag_list_clear(&errors);

    /* An empty script is finished from the start. */
    script = load_text("# nothing to do\n", &errors);
    CHECK(script != NULL);
    CHECK(input_script_finished(script));
    CHECK(input_script_duration(script) == 0.0);
    CHECK(input_script_poll(script, 1.0, events, 8) == 0);
    input_script_free(script);
    diag_list_free(&errors);
}

/* The script's keys go through the same bindings as a player's: a tapped Space is one jump press seen by
 * exactly one step, a held W holds move_forward, and a remapped key follows the remap. */
static void test_replay_through_the_bindings(void)
{
    input_script *script = load_text("0.1 press W\n0.2 tap Space\n0.3 release W\n0.4 tap J\n", NULL);
    CHECK(script != NULL);
    if (!script)
        return;
    controls c = controls_defaults();
    c.bindings[GAME_ACTION_WAVE].keys[0] = PLATFORM_KEY_J;
    game_input input;
    CHECK(game_input_init(&input, c.action_count));
    int jump_presses = 0, jump_held_steps = 0, forward_steps = 0, wave_presses = 0;
    double dt = 1.0 / 60.0;
    for (int step = 0; step < 60; ++step) {
        input_script_event events[8];
        int count = input_script_poll(script, step * dt, events, 8);
        for (int i = 0; i < count; ++i)
            if (events[i].kind == INPUT_SCRIPT_KEY_DOWN || events[i].kind == INPUT_SCRIPT_KEY_UP)
                game_input_key(&input, &c, events[i].key, events[i].kind == INPUT_SCRIPT_KEY_DOWN);
        jump_presses += input.pressed[GAME_ACTION_JUMP];
        jump_held_steps += input.held[GAME_ACTION_JUMP] > 0;
        forward_steps += input.held[GAME_ACTION_MOVE_FORWARD] > 0;
        wave_presses += input.pressed[GAME_ACTION_WAVE];
        game_input_end_step(&input);
    }
    CHECK(jump_presses == 1);
    CHECK(jump_held_steps == 1);
    CHECK(forward_steps == 12); /* steps 6 to 17: 0.1 s to just before 0.3 s */
    CHECK(wave_presses == 1);
    CHECK(input_script_finished(script));
    input_script_free(script);
    game_input_free(&input);
    controls_free(&c);
}

int main(void)
{
    if (!test_make_temp_folder(temp_folder, sizeof temp_folder, "input_script") ||
        !test_paths_in(temp_folder, sizeof temp_path, temp_path, "script.txt", NULL)) {
        fprintf(stderr, "cannot make a temporary folder\n");
        return 1;
    }
    RUN(test_every_verb);
    RUN(test_click);
    RUN(test_same_time_keeps_file_order_and_max_is_respected);
    RUN(test_tap_releases_at_the_next_step);
    RUN(test_same_events_at_any_step_rate);
    RUN(test_bad_lines_are_reported_with_their_line);
    RUN(test_warnings_still_load);
    RUN(test_comments_names_and_line_endings);
    RUN(test_replay_through_the_bindings);
    remove(temp_path);
    rmdir(temp_folder);
    return check_report();
}
