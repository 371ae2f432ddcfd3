/* The demo's key bindings: defaults, config/controls.ini, remapping, every kind of mistake (reported with
 * file:line, nothing half-applied), the help text, and the per-step input state. No SDL_Init anywhere: key
 * names must work without it. */
#include "check.h"
#include "test_files.h"

#include <SDL.h>
#include <unistd.h>

#include "controls.h"

static char temp_folder[512];
static char temp_path[600];

static bool controls_equal(const controls *a, const controls *b)
{
    if (a->action_count != b->action_count)
        return false;
    for (int action = 0; action < a->action_count; ++action) {
        if (a->bindings[action].key_count != b->bindings[action].key_count)
            return false;
        for (int k = 0; k < a->bindings[action].key_count; ++k)
            if (a->bindings[action].keys[k] != b->bindings[action].keys[k])
                return false;
    }
    return a->orbit_degrees_per_pixel == b->orbit_degrees_per_pixel &&
           a->zoom_per_wheel_step == b->zoom_per_wheel_step && a->invert_y == b->invert_y &&
           a->orbit_keys_degrees_per_second == b->orbit_keys_degrees_per_second;
}

/* The single action key drives, or GAME_ACTION_COUNT for none (and a check that it is never two). */
static game_action action_of(const controls *c, platform_key key)
{
    int actions[2];
    int count = controls_actions_for_key(c, key, actions, 2);
    CHECK(count <= 1);
    return count == 1 ? (game_action)actions[0] : GAME_ACTION_COUNT;
}

static bool load_text(const char *text, controls *c, diag_list *errors)
{
    test_write_file(temp_path, text);
    return controls_load(temp_path, c, errors);
}

static void test_key_names_work_without_sdl_init(void)
{
    CHECK(SDL_WasInit(0) == 0);
    CHECK(controls_key_from_name("W") == PLATFORM_KEY_W);
    CHECK(controls_key_from_name("w") == PLATFORM_KEY_W);
    CHECK(controls_key_from_name("Up") == PLATFORM_KEY_UP);
    CHECK(controls_key_from_name("left shift") == PLATFORM_KEY_LSHIFT);
    CHECK(controls_key_from_name("Space") == PLATFORM_KEY_SPACE);
    CHECK(controls_key_from_name("F1") == PLATFORM_KEY_F1);
    CHECK(controls_key_from_name("escape") == PLATFORM_KEY_ESCAPE);
    CHECK(controls_key_from_name("[") == PLATFORM_KEY_LEFTBRACKET);
    CHECK(controls_key_from_name(".") == PLATFORM_KEY_PERIOD);
    CHECK(controls_key_from_name("Comma") == PLATFORM_KEY_COMMA);
    CHECK(controls_key_from_name("SEMICOLON") == PLATFORM_KEY_SEMICOLON);
    CHECK(controls_key_from_name("Hash") == PLATFORM_KEY_HASH);
    /* platform_key_from_name reads one UTF-8 character as the key that types it; files use ASCII names. */
    CHECK(platform_key_from_name("\xC3\xA9") != PLATFORM_KEY_UNKNOWN);
    CHECK(controls_key_from_name("\xC3\xA9") == PLATFORM_KEY_UNKNOWN);
    CHECK(controls_key_from_name("W\t") == PLATFORM_KEY_UNKNOWN);
    CHECK(controls_name_odd_byte("Left Shift") == -1 && controls_name_odd_byte("a\x7f") == 1);
    char printable[16];
    CHECK(strcmp(controls_name_printable("a\x1b[2J", printable, sizeof printable), "a\\x1B[2J") == 0);
    CHECK(strcmp(controls_name_printable("\x01\x02\x03\x04", printable, 10), "\\x01\\x02") == 0);
    CHECK(controls_key_from_name("Keypad 8") == PLATFORM_KEY_KP_8);
    CHECK(controls_key_from_name("Spcae") == PLATFORM_KEY_UNKNOWN);
    CHECK(controls_key_from_name("") == PLATFORM_KEY_UNKNOWN);
    CHECK(controls_key_from_name(NULL) == PLATFORM_KEY_UNKNOWN);
    char name[CONTROLS_KEY_NAME_MAX];
    controls_key_name(PLATFORM_KEY_COMMA, name, sizeof name);
    CHECK(strcmp(name, "Comma") == 0);
    controls_key_name(PLATFORM_KEY_W, name, sizeof name);
    CHECK(strcmp(name, "W") == 0);
    controls_key_name(PLATFORM_KEY_RSHIFT, name, sizeof name);
    CHECK(strcmp(name, "Right Shift") == 0);
    controls_key_name(PLATFORM_KEY_UNKNOWN, name, sizeof name);
    CHECK(strcmp(name, "?") == 0);
    controls_key_name(PLATFORM_KEY_RSHIFT, name, 4);
    CHECK(strcmp(name, "Rig") == 0);
    /* Every name the help prints reads back as the same key, so a player can copy it into controls.ini. */
    controls defaults = controls_defaults();
    for (int action = 0; action < GAME_ACTION_COUNT; ++action) {
        for (int k = 0; k < defaults.bindings[action].key_count; ++k) {
            controls_key_name(defaults.bindings[action].keys[k], name, sizeof name);
            CHECK(controls_key_from_name(name) == defaults.bindings[action].keys[k]);
        }
    }
    controls_free(&defaults);
    CHECK(SDL_WasInit(0) == 0);
}

/* engine/platform's names for the keys the engine names: each reads back as itself, and the names the
 * files have always used give the same codes (values written down, so a change of table shows). */
static void test_platform_key_names(void)
{
    static const platform_key named[] = {
        PLATFORM_KEY_A, PLATFORM_KEY_Z, PLATFORM_KEY_0, PLATFORM_KEY_9, PLATFORM_KEY_SPACE, PLATFORM_KEY_ESCAPE,
        PLATFORM_KEY_RETURN, PLATFORM_KEY_TAB, PLATFORM_KEY_F1, PLATFORM_KEY_F12, PLATFORM_KEY_UP,
        PLATFORM_KEY_LEFT, PLATFORM_KEY_PAGEDOWN, PLATFORM_KEY_KP_0, PLATFORM_KEY_KP_8, PLATFORM_KEY_KP_ENTER,
        PLATFORM_KEY_LSHIFT, PLATFORM_KEY_RGUI, PLATFORM_KEY_LEFTBRACKET, PLATFORM_KEY_PERIOD,
        PLATFORM_KEY_DELETE, PLATFORM_KEY_NUMLOCK,
    };
    for (size_t i = 0; i < sizeof named / sizeof named[0]; ++i) {
        const char *name = platform_key_name(named[i]);
        CHECK(name[0] != '\0');
        CHECK(platform_key_from_name(name) == named[i]);
    }
    CHECK(strcmp(platform_key_name(PLATFORM_KEY_A), "A") == 0);
    CHECK(strcmp(platform_key_name(PLATFORM_KEY_LSHIFT), "Left Shift") == 0);
    CHECK(strcmp(platform_key_name(PLATFORM_KEY_KP_8), "Keypad 8") == 0);
    CHECK(strcmp(platform_key_name(PLATFORM_KEY_UNKNOWN), "") == 0);
    CHECK(platform_key_from_name("Keypad 8") == (1 << 30 | 96));
    CHECK(platform_key_from_name("F1") == (1 << 30 | 58));
    CHECK(platform_key_from_name("q") == 'q' && platform_key_from_name("Q") == 'q');
    CHECK(platform_key_from_name("") == PLATFORM_KEY_UNKNOWN && platform_key_from_name(NULL) == PLATFORM_KEY_UNKNOWN);
    CHECK(platform_key_from_name("Spcae") == PLATFORM_KEY_UNKNOWN);
}

static void test_action_names(void)
{
    CHECK(strcmp(game_action_name(GAME_ACTION_MOVE_FORWARD), "move_forward") == 0);
    CHECK(strcmp(game_action_name(GAME_ACTION_CROWD_SPAWN), "crowd_spawn") == 0);
    CHECK(strcmp(game_action_name(GAME_ACTION_QUIT), "quit") == 0);
    CHECK(strcmp(game_action_name(GAME_ACTION_STATE_MACHINE), "state_machine") == 0);
    CHECK(game_action_from_name("state_machine") == GAME_ACTION_STATE_MACHINE);
    CHECK(strcmp(game_action_name(GAME_ACTION_COUNT), "unknown") == 0);
    CHECK(strcmp(game_action_name((game_action)-1), "unknown") == 0);
    for (int action = 0; action < GAME_ACTION_COUNT; ++action)
        CHECK(game_action_from_name(game_action_name((game_action)action)) == (game_action)action);
    CHECK(game_action_from_name("jmp") == GAME_ACTION_COUNT);
    CHECK(game_action_from_name("Jump") == GAME_ACTION_COUNT);
}

static void test_defaults_bind_what_the_issue_says(void)
{
    controls c = controls_defaults();
    static const struct {
        platform_key key;
        game_action action;
    } expected[] = {
        {PLATFORM_KEY_W, GAME_ACTION_MOVE_FORWARD},   {PLATFORM_KEY_UP, GAME_ACTION_MOVE_FORWARD},
        {PLATFORM_KEY_S, GAME_ACTION_MOVE_BACK},      {PLATFORM_KEY_DOWN, GAME_ACTION_MOVE_BACK},
        {PLATFORM_KEY_A, GAME_ACTION_MOVE_LEFT},      {PLATFORM_KEY_LEFT, GAME_ACTION_MOVE_LEFT},
        {PLATFORM_KEY_D, GAME_ACTION_MOVE_RIGHT},     {PLATFORM_KEY_RIGHT, GAME_ACTION_MOVE_RIGHT},
        {PLATFORM_KEY_LSHIFT, GAME_ACTION_RUN},       {PLATFORM_KEY_RSHIFT, GAME_ACTION_RUN},
        {PLATFORM_KEY_LCTRL, GAME_ACTION_STRAFE},     {PLATFORM_KEY_RCTRL, GAME_ACTION_STRAFE},
        {PLATFORM_KEY_SPACE, GAME_ACTION_JUMP},       {PLATFORM_KEY_E, GAME_ACTION_WAVE},
        {PLATFORM_KEY_H, GAME_ACTION_HIT},            {PLATFORM_KEY_K, GAME_ACTION_DIE},
        {PLATFORM_KEY_Q, GAME_ACTION_ORBIT_LEFT},     {PLATFORM_KEY_R, GAME_ACTION_ORBIT_RIGHT},
        {PLATFORM_KEY_F1, GAME_ACTION_HELP},          {PLATFORM_KEY_F2, GAME_ACTION_SKELETON},
        {PLATFORM_KEY_F3, GAME_ACTION_BOUNDS},        {PLATFORM_KEY_F4, GAME_ACTION_NORMALS},
        {PLATFORM_KEY_F7, GAME_ACTION_LEVELS},        {PLATFORM_KEY_F6, GAME_ACTION_STATE_MACHINE},
        {PLATFORM_KEY_T, GAME_ACTION_LOOK_AT},
        {PLATFORM_KEY_G, GAME_ACTION_SKINNING},       {PLATFORM_KEY_P, GAME_ACTION_PAUSE},
        {PLATFORM_KEY_PERIOD, GAME_ACTION_STEP},      {PLATFORM_KEY_LEFTBRACKET, GAME_ACTION_SLOWER},
        {PLATFORM_KEY_RIGHTBRACKET, GAME_ACTION_FASTER}, {PLATFORM_KEY_F5, GAME_ACTION_RELOAD},
        {PLATFORM_KEY_C, GAME_ACTION_CROWD_SPAWN},    {PLATFORM_KEY_X, GAME_ACTION_CROWD_CLEAR},
        {PLATFORM_KEY_F12, GAME_ACTION_SCREENSHOT},   {PLATFORM_KEY_ESCAPE, GAME_ACTION_QUIT},
        {PLATFORM_KEY_B, GAME_ACTION_SKIN_BLEND},
        {PLATFORM_KEY_U, GAME_ACTION_GROUND},         {PLATFORM_KEY_I, GAME_ACTION_FOOT_IK},
        {PLATFORM_KEY_F9, GAME_ACTION_RECORD},        {PLATFORM_KEY_N, GAME_ACTION_TANGENTS},
        {PLATFORM_KEY_M, GAME_ACTION_MAPS},
    };
    int expected_count = (int)(sizeof expected / sizeof expected[0]);
    for (int i = 0; i < expected_count; ++i)
        CHECK(action_of(&c, expected[i].key) == expected[i].action);
    /* Nothing else is bound: the key counts add up to the list above. */
    int total = 0;
    for (int action = 0; action < GAME_ACTION_COUNT; ++action) {
        CHECK(c.bindings[action].key_count >= 1);
        total += c.bindings[action].key_count;
    }
    CHECK(total == expected_count);
    CHECK(action_of(&c, PLATFORM_KEY_J) == GAME_ACTION_COUNT);
    CHECK(action_of(&c, PLATFORM_KEY_UNKNOWN) == GAME_ACTION_COUNT);
    CHECK_NEAR(c.orbit_degrees_per_pixel, 0.3, 1e-7);
    CHECK_NEAR(c.zoom_per_wheel_step, 0.5, 1e-7);
    CHECK(!c.invert_y);
    CHECK_NEAR(c.orbit_keys_degrees_per_second, 90.0, 1e-7);
    /* max limits what is written. */
    int actions[1] = {GAME_ACTION_COUNT};
    CHECK(controls_actions_for_key(&c, PLATFORM_KEY_SPACE, actions, 0) == 0);
    CHECK(actions[0] == GAME_ACTION_COUNT);
    controls_free(&c);
}

static void test_shipped_file_gives_the_defaults(void)
{
    controls loaded = controls_defaults();
    loaded.bindings[GAME_ACTION_JUMP].key_count = 0; /* something the file must put back */
    loaded.invert_y = true;
    diag_list errors = {0};
    CHECK(controls_load(MARIONETTE_SOURCE_DIR "/config/controls.ini", &loaded, &errors));
    CHECK(errors.total == 0);
    for (int i = 0; i < errors.count; ++i)
        fprintf(stderr, "  %s:%d: %s\n", errors.items[i].file, errors.items[i].line, errors.items[i].message);
    controls defaults = controls_defaults();
    CHECK(controls_equal(&loaded, &defaults));
    controls_free(&defaults);
    controls_free(&loaded);
    diag_list_free(&errors);
}

static void test_remap_through_a_file(void)
{
    controls c = controls_defaults();
    diag_list errors = {0};
    CHECK(load_text("; a player's remap\n"
                    "[keys]\n"
                    "jump = J ; inline comment\n"
                    "wave = comma, Semicolon, Keypad 8, left ctrl\n"
                    "run = none\n"
                    "strafe = Tab ; Left Ctrl is the wave's now\n"
                    "quit = Hash\n"
                    "[mouse]\n"
                    "invert_y = true\n"
                    "zoom_per_wheel_step = 1.5\n"
                    "orbit_degrees_per_pixel = 0.125\n",
                    &c, &errors));
    CHECK(errors.total == 0);
    CHECK(action_of(&c, PLATFORM_KEY_J) == GAME_ACTION_JUMP);
    CHECK(action_of(&c, PLATFORM_KEY_SPACE) == GAME_ACTION_COUNT);
    CHECK(c.bindings[GAME_ACTION_WAVE].key_count == 4);
    CHECK(c.bindings[GAME_ACTION_WAVE].keys[0] == PLATFORM_KEY_COMMA);
    CHECK(c.bindings[GAME_ACTION_WAVE].keys[1] == PLATFORM_KEY_SEMICOLON);
    CHECK(c.bindings[GAME_ACTION_WAVE].keys[2] == PLATFORM_KEY_KP_8);
    CHECK(c.bindings[GAME_ACTION_WAVE].keys[3] == PLATFORM_KEY_LCTRL);
    CHECK(action_of(&c, PLATFORM_KEY_E) == GAME_ACTION_COUNT);
    CHECK(c.bindings[GAME_ACTION_RUN].key_count == 0);
    CHECK(action_of(&c, PLATFORM_KEY_LSHIFT) == GAME_ACTION_COUNT);
    CHECK(action_of(&c, PLATFORM_KEY_TAB) == GAME_ACTION_STRAFE);
    CHECK(action_of(&c, PLATFORM_KEY_RCTRL) == GAME_ACTION_COUNT);
    CHECK(action_of(&c, PLATFORM_KEY_HASH) == GAME_ACTION_QUIT);
    CHECK(action_of(&c, PLATFORM_KEY_ESCAPE) == GAME_ACTION_COUNT);
    /* What the file leaves out keeps its default. */
    CHECK(action_of(&c, PLATFORM_KEY_W) == GAME_ACTION_MOVE_FORWARD);
    CHECK(action_of(&c, PLATFORM_KEY_F5) == GAME_ACTION_RELOAD);
    CHECK(c.invert_y);
    CHECK_NEAR(c.zoom_per_wheel_step, 1.5, 1e-7);
    CHECK_NEAR(c.orbit_degrees_per_pixel, 0.125, 1e-7);
    CHECK_NEAR(c.orbit_keys_degrees_per_second, 90.0, 1e-7);

    /* A second load starts from the defaults, not from the previous file: jump is back on Space. */
    CHECK(load_text("[keys]\nwave = F8\n", &c, &errors));
    CHECK(action_of(&c, PLATFORM_KEY_SPACE) == GAME_ACTION_JUMP);
    CHECK(action_of(&c, PLATFORM_KEY_F8) == GAME_ACTION_WAVE);
    CHECK(!c.invert_y);
    /* The state machine's panel moves off F6 like any other action. */
    CHECK(load_text("[keys]\nstate_machine = F10\n", &c, &errors));
    CHECK(action_of(&c, PLATFORM_KEY_F10) == GAME_ACTION_STATE_MACHINE);
    CHECK(action_of(&c, PLATFORM_KEY_F6) == GAME_ACTION_COUNT);
    /* A key freed by a remap can go to another action in the same file. */
    CHECK(load_text("[keys]\nwave = Space\njump = E\n", &c, &errors));
    CHECK(action_of(&c, PLATFORM_KEY_SPACE) == GAME_ACTION_WAVE);
    CHECK(action_of(&c, PLATFORM_KEY_E) == GAME_ACTION_JUMP);
    CHECK(errors.total == 0);
    controls_free(&c);
    diag_list_free(&errors);
}

static void test_every_mistake_is_reported_and_changes_nothing(void)
{
    static const struct {
        const char *text;
        int line;
        const char *message;
    } cases[] = {
        {"[keyz]\njump = J\n", 1, "unknown section [keyz]"},
        {"[keys]\njmp = Space\n", 2, "unknown action 'jmp'"},
        {"[keys]\n\njump = Spcae\n", 3, "jump: unknown key name 'Spcae'"},
        {"[keys]\njump = J, L, O, V, Y\n", 2, "jump has 5 keys; at most 4"},
        {"[keys]\njump = J, , L\n", 2, "a key name is missing between commas"},
        {"[keys]\njump = J, j\n", 2, "jump lists 'j' twice"},
        {"[keys]\njump =\n", 2, "jump has no keys; write 'none'"},
        {"[keys]\njump = E\n", 2, "'E' is bound to both wave (its default"},
        {"[keys]\njump = J\nwave = j\n", 3, "'J' is bound to both jump (line 2) and wave"},
        {"[keys]\nwave = J\njump = J\n", 3, "'J' is bound to both wave (line 2) and jump"},
        {"[mouse]\norbit_degrees_per_pixel = fast\n", 2,
         "'orbit_degrees_per_pixel' must be a number from 0.001 to 10, not 'fast'"},
        {"[mouse]\nzoom_per_wheel_step = -1\n", 2, "'zoom_per_wheel_step' must be a number from 0.01 to 100, not '-1'"},
        /* Ranges: a drag of one pixel could turn the camera 1e30 degrees (infinity and NaN after a few). */
        {"[mouse]\norbit_degrees_per_pixel = 1e30\n", 2, "from 0.001 to 10, not '1e30'"},
        {"[mouse]\nzoom_per_wheel_step = 101\n", 2, "from 0.01 to 100, not '101'"},
        {"[mouse]\norbit_keys_degrees_per_second = 3601\n", 2, "from 1 to 3600, not '3601'"},
        {"[mouse]\norbit_keys_degrees_per_second = 0x5A\n", 2, "not '0x5A'"}, /* no hexadecimal */
        {"[mouse]\nzoom_per_wheel_step = 1e-400\n", 2, "not '1e-400'"},        /* not read as 0 */
        /* Key names are printable ASCII: a control character or UTF-8 text is named, escaped, with its byte. */
        {"[keys]\njump = J\x01\n", 2, "jump: key name 'J\\x01' has a control character or non-ASCII text (byte 2)"},
        {"[keys]\njump = \xC3\xA9\n", 2, "jump: key name '\\xC3\\xA9' has a control character or non-ASCII text (byte 1)"},
        {"[keys]\nj\x1bump = J\n", 2, "unknown action 'j\\x1Bump'"},
        {"[mouse]\norbit_keys_degrees_per_second = 90deg\n", 2, "not '90deg'"},
        {"[mouse]\norbit_keys_degrees_per_second = nan\n", 2, "not 'nan'"},
        {"[mouse]\norbit_keys_degrees_per_second = 0x1p3\n", 2, "not '0x1p3'"}, /* decimal only */
        {"[keys]\njump: J\n", 2, "(':' does not separate a key from its value: write '=')"},
        {"[mouse]\ninvert_y = yes\n", 2, "'invert_y' must be true or false, not 'yes'"},
        {"[mouse]\nsensitivity = 2\n", 2, "unknown key 'sensitivity' in [mouse]"},
        {"[keys]\njump Space\n", 2, "expected 'key = value'"},
        {"[keys]\njump = J\njump = L\n", 3, "duplicate key 'jump'"},
    };
    controls before = controls_defaults();
    diag_list errors = {0};
    CHECK(load_text("[keys]\njump = J\n[mouse]\ninvert_y = true\n", &before, &errors)); /* not the defaults */
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        controls c = {0}; /* a copy of its own: a load that wrote into it would show */
        CHECK(controls_copy(&c, &before) && c.bindings != before.bindings);
        diag_list_clear(&errors);
        CHECK(!load_text(cases[i].text, &c, &errors));
        CHECK(errors.total == 1);
        if (errors.count < 1)
            continue;
        CHECK(strcmp(errors.items[0].file, temp_path) == 0);
        CHECK(errors.items[0].line == cases[i].line);
        CHECK_STR_CONTAINS(errors.items[0].message, cases[i].message);
        CHECK(controls_equal(&c, &before));
        controls_free(&c);
    }

    /* One pass names every mistake, each at its own line, and still applies nothing. */
    controls c = {0};
    CHECK(controls_copy(&c, &before));
    diag_list_clear(&errors);
    CHECK(!load_text("[keys]\n"
                     "jump = L\n"
                     "wave = Nope\n"
                     "step = Comma\n"
                     "dance = D\n"
                     "[mouse]\n"
                     "invert_y = 1\n",
                     &c, &errors));
    CHECK(errors.total == 3);
    if (errors.count == 3) {
        CHECK(errors.items[0].line == 3);
        CHECK(errors.items[1].line == 5);
        CHECK(errors.items[2].line == 7);
    }
    CHECK(controls_equal(&c, &before));

    /* A missing file: reported, nothing changed. */
    diag_list_clear(&errors);
    CHECK(!controls_load(MARIONETTE_BUILD_DIR "/no-such-controls.ini", &c, &errors));
    CHECK(errors.total == 1);
    if (errors.count == 1)
        CHECK_STR_CONTAINS(errors.items[0].file, "no-such-controls.ini");
    CHECK(controls_equal(&c, &before));
    /* NULL errors list: still refused. */
    CHECK(!load_text("[keys]\njump = Spcae\n", &c, NULL));
    CHECK(controls_equal(&c, &before));
    controls_free(&c);
    controls_free(&before);
    diag_list_free(&errors);
}

static int line_count_of(const char *text, size_t *longest)
{
    int lines = 1;
    size_t length = 0;
    *longest = 0;
    for (const char *c = text; *c; ++c) {
        if (*c == '\n') {
            ++lines;
            length = 0;
            continue;
        }
        if (++length > *longest)
            *longest = length;
    }
    return lines;
}

static void test_help_text_shows_the_actual_bindings(void)
{
    controls c = controls_defaults();
    char help[CONTROLS_HELP_TEXT_MAX];
    controls_help_text(&c, help, sizeof help);
    printf("default help:\n%s\n", help);
    size_t longest;
    int lines = line_count_of(help, &longest);
    CHECK(lines >= 3);
    CHECK(longest <= CONTROLS_HELP_LINE_MAX);
    CHECK(help[strlen(help) - 1] != '\n');
    CHECK_STR_CONTAINS(help, "Move: W/Up, A/Left, S/Down, D/Right");
    CHECK_STR_CONTAINS(help, "Run: Left Shift/Right Shift");
    CHECK_STR_CONTAINS(help, "Jump: Space");
    CHECK_STR_CONTAINS(help, "Wave: E");
    CHECK_STR_CONTAINS(help, "Orbit: Q, R or drag");
    CHECK_STR_CONTAINS(help, "Zoom: wheel");
    CHECK_STR_CONTAINS(help, "Help: F1");
    CHECK_STR_CONTAINS(help, "GPU/CPU skinning: G");
    CHECK_STR_CONTAINS(help, "Step: .");
    CHECK_STR_CONTAINS(help, "Slower: [");
    CHECK_STR_CONTAINS(help, "Quit: Escape");

    diag_list errors = {0};
    CHECK(load_text("[keys]\njump = J\nwave = none\nstep = Comma\n"
                    "run = Keypad Enter, Right Shift, Left Shift, Keypad 0\n"
                    "orbit_left = none\norbit_right = none\n",
                    &c, &errors));
    controls_help_text(&c, help, sizeof help);
    printf("remapped help:\n%s\n", help);
    line_count_of(help, &longest);
    CHECK(longest <= CONTROLS_HELP_LINE_MAX);
    CHECK_STR_CONTAINS(help, "Jump: J");
    CHECK(strstr(help, "Space") == NULL);
    CHECK(strstr(help, "Wave") == NULL); /* unbound: not shown */
    CHECK_STR_CONTAINS(help, "Step: Comma");
    CHECK_STR_CONTAINS(help, "Run: Keypad Enter/Right Shift/Left Shift/Keypad 0");
    CHECK_STR_CONTAINS(help, "Orbit: drag");

    /* A small buffer: cut short, still terminated. */
    char small[16];
    memset(small, 'x', sizeof small);
    controls_help_text(&c, small, sizeof small);
    CHECK(strlen(small) == sizeof small - 1);
    CHECK(strncmp(small, help, sizeof small - 1) == 0);
    controls_free(&c);
    diag_list_free(&errors);
}

static void test_input_two_keys_for_one_action(void)
{
    controls c = controls_defaults();
    game_input input;
    CHECK(game_input_init(&input, c.action_count) && input.action_count == GAME_ACTION_COUNT);
    game_input_key(&input, &c, PLATFORM_KEY_W, true);
    CHECK(input.held[GAME_ACTION_MOVE_FORWARD] == 1);
    CHECK(input.pressed[GAME_ACTION_MOVE_FORWARD]);
    game_input_end_step(&input);
    CHECK(!input.pressed[GAME_ACTION_MOVE_FORWARD]);
    game_input_key(&input, &c, PLATFORM_KEY_UP, true);
    CHECK(input.held[GAME_ACTION_MOVE_FORWARD] == 2);
    CHECK(!input.pressed[GAME_ACTION_MOVE_FORWARD]); /* already held: no second press */
    game_input_key(&input, &c, PLATFORM_KEY_W, true);          /* key repeat */
    CHECK(input.held[GAME_ACTION_MOVE_FORWARD] == 2);
    game_input_key(&input, &c, PLATFORM_KEY_W, false);
    CHECK(input.held[GAME_ACTION_MOVE_FORWARD] == 1); /* Up still holds it */
    CHECK(!input.released[GAME_ACTION_MOVE_FORWARD]);
    game_input_key(&input, &c, PLATFORM_KEY_W, false); /* a second up for the same key changes nothing */
    CHECK(input.held[GAME_ACTION_MOVE_FORWARD] == 1);
    game_input_key(&input, &c, PLATFORM_KEY_UP, false);
    CHECK(input.held[GAME_ACTION_MOVE_FORWARD] == 0);
    CHECK(input.released[GAME_ACTION_MOVE_FORWARD]);
    /* A key pressed before the window had focus, or bound to nothing: nothing happens. */
    game_input_key(&input, &c, PLATFORM_KEY_S, false);
    CHECK(input.held[GAME_ACTION_MOVE_BACK] == 0 && !input.released[GAME_ACTION_MOVE_BACK]);
    game_input_key(&input, &c, PLATFORM_KEY_J, true);
    CHECK(input.key_down_count == 0);

    /* A press and release within one step: both edges are seen, the action is not held. */
    game_input_end_step(&input);
    game_input_key(&input, &c, PLATFORM_KEY_SPACE, true);
    game_input_key(&input, &c, PLATFORM_KEY_SPACE, false);
    CHECK(input.pressed[GAME_ACTION_JUMP] == 1 && input.released[GAME_ACTION_JUMP] == 1);
    CHECK(input.held[GAME_ACTION_JUMP] == 0);
    /* Four taps within one step (a slow frame): each counts (they were one before). */
    for (int tap = 0; tap < 3; ++tap) {
        game_input_key(&input, &c, PLATFORM_KEY_SPACE, true);
        game_input_key(&input, &c, PLATFORM_KEY_SPACE, false);
    }
    CHECK(input.pressed[GAME_ACTION_JUMP] == 4 && input.released[GAME_ACTION_JUMP] == 4);

    /* Focus lost: everything held is released, with its edge. */
    game_input_end_step(&input);
    game_input_key(&input, &c, PLATFORM_KEY_LSHIFT, true);
    game_input_key(&input, &c, PLATFORM_KEY_RSHIFT, true);
    game_input_key(&input, &c, PLATFORM_KEY_D, true);
    input.wheel_steps = 2.0f;
    input.drag_x = 5.0f;
    input.clicked = true;
    game_input_end_step(&input);
    CHECK(input.wheel_steps == 0.0f && input.drag_x == 0.0f && input.drag_y == 0.0f && !input.clicked);
    CHECK(input.held[GAME_ACTION_RUN] == 2 && input.held[GAME_ACTION_MOVE_RIGHT] == 1);
    game_input_release_all(&input);
    CHECK(input.held[GAME_ACTION_RUN] == 0 && input.released[GAME_ACTION_RUN]);
    CHECK(input.held[GAME_ACTION_MOVE_RIGHT] == 0 && input.released[GAME_ACTION_MOVE_RIGHT]);
    CHECK(input.key_down_count == 0);
    game_input_key(&input, &c, PLATFORM_KEY_LSHIFT, false); /* the up arriving after all: ignored */
    CHECK(input.held[GAME_ACTION_RUN] == 0);

    /* Bindings reloaded while a key is held: its release undoes what its press did. */
    game_input_end_step(&input);
    controls remapped = {0};
    CHECK(controls_copy(&remapped, &c));
    diag_list errors = {0};
    CHECK(load_text("[keys]\njump = J\n", &remapped, &errors));
    game_input_key(&input, &remapped, PLATFORM_KEY_J, true);
    CHECK(input.held[GAME_ACTION_JUMP] == 1);
    game_input_key(&input, &c, PLATFORM_KEY_J, false);
    CHECK(input.held[GAME_ACTION_JUMP] == 0 && input.released[GAME_ACTION_JUMP]);

    /* More keys at once than tracked: the extra ones are ignored, never written past the array. */
    game_input crowded;
    CHECK(game_input_init(&crowded, c.action_count));
    controls many = c;
    for (int a = 0; a < GAME_ACTION_COUNT; ++a)
        for (int k = 0; k < many.bindings[a].key_count; ++k)
            game_input_key(&crowded, &many, many.bindings[a].keys[k], true);
    CHECK(crowded.key_down_count == GAME_INPUT_KEYS_DOWN_MAX);
    game_input_release_all(&crowded);
    for (int a = 0; a < GAME_ACTION_COUNT; ++a)
        CHECK(crowded.held[a] == 0);
    game_input_free(&crowded);
    game_input_free(&input);
    controls_free(&remapped);
    controls_free(&c);
    diag_list_free(&errors);
}

/* A program's own actions after the built-in ones (no cap: forty here, more than the 33 built in): their
 * default keys, their names in controls.ini, the help, the input counts; rows that would clash are refused. */
static void test_a_programs_own_actions(void)
{
    enum { EXTRA = 40 };
    static char names[EXTRA][16], keys[EXTRA][16];
    controls_action_row rows[EXTRA];
    static const char *const free_keys[] = {"F8", "F10", "F11", "J", "L", "F13", "F14", "O", "Y", "Z", "V", "1", "2",
                                            "3", "4", "5", "6", "7", "8", "9", "0", "Keypad 1", "Keypad 2",
                                            "Keypad 3", "Keypad 4", "Keypad 5", "Keypad 6", "Keypad 7", "Keypad 8",
                                            "Keypad 9", "Keypad 0", "Home", "End", "PageUp", "PageDown", "Insert",
                                            "Delete", "Tab", "Backspace", "Return"};
    _Static_assert(sizeof free_keys / sizeof free_keys[0] == EXTRA, "a free key per extra action");
    for (int i = 0; i < EXTRA; ++i) {
        snprintf(names[i], sizeof names[i], "extra_%02d", i);
        snprintf(keys[i], sizeof keys[i], "%s", free_keys[i]);
        rows[i] = (controls_action_row){.name = names[i], .help = names[i], .keys = {keys[i]}};
        CHECK(controls_key_from_name(keys[i]) != PLATFORM_KEY_UNKNOWN);
    }
    controls c;
    CHECK(controls_init(&c, rows, EXTRA) && c.action_count == GAME_ACTION_COUNT + EXTRA);
    if (!c.bindings)
        return;
    CHECK(controls_action_from_name(&c, "extra_39") == GAME_ACTION_COUNT + 39);
    CHECK(controls_action_from_name(&c, "jump") == GAME_ACTION_JUMP);
    CHECK(controls_action_from_name(&c, "extra_40") == -1 && controls_action(&c, c.action_count) == NULL);
    CHECK(strcmp(controls_action(&c, GAME_ACTION_COUNT + 3)->name, "extra_03") == 0);
    int action = -1;
    CHECK(controls_actions_for_key(&c, PLATFORM_KEY_F8, &action, 1) == 1 && action == GAME_ACTION_COUNT);
    char help[CONTROLS_HELP_TEXT_MAX * 2];
    controls_help_text(&c, help, sizeof help);
    CHECK_STR_CONTAINS(help, "extra_00: F8");

    /* controls.ini binds them by name; what the file leaves out keeps its default. */
    diag_list errors = {0};
    CHECK(load_text("[keys]\nextra_00 = F10\nextra_01 = F8\n", &c, &errors) && errors.total == 0);
    CHECK(controls_actions_for_key(&c, PLATFORM_KEY_F10, &action, 1) == 1 && action == GAME_ACTION_COUNT);
    CHECK(controls_actions_for_key(&c, PLATFORM_KEY_F8, &action, 1) == 1 && action == GAME_ACTION_COUNT + 1);
    CHECK(controls_actions_for_key(&c, PLATFORM_KEY_RETURN, &action, 1) == 1 && action == GAME_ACTION_COUNT + 39);
    CHECK(c.action_count == GAME_ACTION_COUNT + EXTRA && c.extra == rows);
    CHECK(!load_text("[keys]\nextra_02 = Space\n", &c, &errors));
    CHECK_STR_CONTAINS(errors.items[0].message, "'Space' is bound to both jump (its default");

    /* The input counts them like any other. */
    game_input input;
    CHECK(game_input_init(&input, c.action_count));
    game_input_key(&input, &c, PLATFORM_KEY_RETURN, true);
    game_input_key(&input, &c, PLATFORM_KEY_RETURN, false);
    game_input_key(&input, &c, PLATFORM_KEY_RETURN, true);
    CHECK(input.pressed[GAME_ACTION_COUNT + 39] == 2 && input.held[GAME_ACTION_COUNT + 39] == 1);
    /* An input made for fewer actions does not count those it has no room for. */
    game_input fewer;
    CHECK(game_input_init(&fewer, GAME_ACTION_COUNT));
    game_input_key(&fewer, &c, PLATFORM_KEY_RETURN, true);
    CHECK(fewer.key_down_count == 0);
    game_input_free(&fewer);
    game_input_free(&input);
    controls_free(&c);

    /* Refused, nothing made: a row without a name, a name taken, a default key taken. */
    controls_action_row clash[] = {{.name = "jump", .keys = {"F8"}}};
    CHECK(!controls_init(&c, clash, 1) && c.action_count == 0 && c.bindings == NULL);
    controls_action_row twice[] = {{.name = "a", .keys = {"F8"}}, {.name = "a", .keys = {"F10"}}};
    CHECK(!controls_init(&c, twice, 2));
    controls_action_row unnamed[] = {{.name = NULL, .keys = {"F8"}}};
    CHECK(!controls_init(&c, unnamed, 1));
    controls_action_row taken_key[] = {{.name = "b", .keys = {"Space"}}};
    CHECK(!controls_init(&c, taken_key, 1));
    diag_list_free(&errors);
}

int main(void)
{
    if (!test_make_temp_folder(temp_folder, sizeof temp_folder, "controls") ||
        !test_paths_in(temp_folder, sizeof temp_path, temp_path, "controls.ini", NULL)) {
        fprintf(stderr, "cannot make a temporary folder\n");
        return 1;
    }
    RUN(test_key_names_work_without_sdl_init);
    RUN(test_platform_key_names);
    RUN(test_action_names);
    RUN(test_defaults_bind_what_the_issue_says);
    RUN(test_shipped_file_gives_the_defaults);
    RUN(test_remap_through_a_file);
    RUN(test_every_mistake_is_reported_and_changes_nothing);
    RUN(test_help_text_shows_the_actual_bindings);
    RUN(test_input_two_keys_for_one_action);
    RUN(test_a_programs_own_actions);
    remove(temp_path);
    rmdir(temp_folder);
    return check_report();
}
