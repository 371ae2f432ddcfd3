/* The demo's settings file: the shipped config/demo.ini loads cleanly and says in its comments exactly the
 * defaults it holds; every kind of mistake is reported at its file:line, all of them in one go, and a file
 * with mistakes leaves the caller's settings untouched. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "demo_config.h"
#include "test_files.h"

#define SHIPPED MARIONETTE_SOURCE_DIR "/config/demo.ini"

static char folder[512];
static char scratch[600];


/* Load `text` from a scratch file; the errors stay in *errors for the caller to look at. */
static bool load_text(const char *text, demo_config *out, diag_list *errors)
{
    test_write_file(scratch, text);
    diag_list_clear(errors);
    return demo_config_load(scratch, out, errors);
}

/* One error, at `line` of the scratch file, whose message contains `words`. */
static void check_one_error(const char *text, int line, const char *words)
{
    demo_config config = demo_config_defaults();
    diag_list errors = {0};
    CHECK(!load_text(text, &config, &errors));
    CHECK(errors.total == 1);
    if (errors.count == 1) {
        CHECK(strcmp(errors.items[0].file, scratch) == 0);
        CHECK(errors.items[0].line == line);
        CHECK_STR_CONTAINS(errors.items[0].message, words);
    } else {
        fprintf(stderr, "  expected one error containing '%s' for:\n%s\n  got:\n", words, text);
        test_print_diags(&errors);
    }
    diag_list_free(&errors);
}

/* ---- the shipped file ---- */

/* A key's value as its comment would write it: "1.4", "100", "true", "mannequin 1, robot 1". */
static void value_text(const demo_config *c, const char *key, char *out, size_t size)
{
    out[0] = '\0';
    if (strcmp(key, "character") == 0) snprintf(out, size, "%s", c->player.character);
    if (strcmp(key, "walk_speed") == 0) snprintf(out, size, "%g", (double)c->player.walk_speed);
    if (strcmp(key, "run_speed") == 0) snprintf(out, size, "%g", (double)c->player.run_speed);
    if (strcmp(key, "count") == 0) snprintf(out, size, "%d", c->crowd.count);
    if (strcmp(key, "spacing") == 0) snprintf(out, size, "%g", (double)c->crowd.spacing);
    if (strcmp(key, "wander_radius") == 0) snprintf(out, size, "%g", (double)c->crowd.wander_radius);
    if (strcmp(key, "wave_chance") == 0) snprintf(out, size, "%g", (double)c->crowd.wave_chance);
    if (strcmp(key, "celebrate_chance") == 0) snprintf(out, size, "%g", (double)c->crowd.celebrate_chance);
    if (strcmp(key, "run_chance") == 0) snprintf(out, size, "%g", (double)c->crowd.run_chance);
    if (strcmp(key, "max") == 0) snprintf(out, size, "%d", c->crowd.max);
    if (strcmp(key, "seed") == 0) snprintf(out, size, "%llu", (unsigned long long)c->crowd.seed);
    if (strcmp(key, "distance") == 0) snprintf(out, size, "%g", (double)c->camera.distance);
    if (strcmp(key, "pitch") == 0) snprintf(out, size, "%g", (double)c->camera.pitch);
    if (strcmp(key, "yaw") == 0) snprintf(out, size, "%g", (double)c->camera.yaw);
    if (strcmp(key, "width") == 0) snprintf(out, size, "%d", c->window.width);
    if (strcmp(key, "height") == 0) snprintf(out, size, "%d", c->window.height);
    if (strcmp(key, "vsync") == 0) snprintf(out, size, "%s", c->window.vsync ? "true" : "false");
    if (strcmp(key, "levels_of_detail") == 0) snprintf(out, size, "%s", c->render.levels_of_detail ? "true" : "false");
    if (strcmp(key, "lod_error_pixels") == 0) snprintf(out, size, "%g", (double)c->render.lod_error_pixels);
    if (strcmp(key, "stand_ins") == 0) snprintf(out, size, "%s", c->render.stand_ins ? "true" : "false");
    if (strcmp(key, "stand_in_pixels") == 0) snprintf(out, size, "%g", (double)c->render.stand_in_pixels);
    if (strcmp(key, "skin_once") == 0) snprintf(out, size, "%s", c->render.skin_once ? "true" : "false");
    if (strcmp(key, "light_spin") == 0) snprintf(out, size, "%g", (double)c->render.light_spin);
    if (strcmp(key, "player") == 0) snprintf(out, size, "%s", c->look.player ? "true" : "false");
    if (strcmp(key, "crowd_distance") == 0) snprintf(out, size, "%g", (double)c->look.crowd_distance);
    if (strcmp(key, "ground") == 0) snprintf(out, size, "%s", ground_kind_name(c->world.ground));
    if (strcmp(key, "mix") == 0) {
        size_t used = 0;
        for (int b = 0; b < c->crowd.body_count && used < size; ++b)
            used += (size_t)snprintf(out + used, size - used, "%s%s %g", b ? ", " : "", c->crowd.bodies[b].character,
                                     (double)c->crowd.bodies[b].weight);
    }
}

/* The comment block of `key` in the file's header: from ";   key " to the next documented key or blank
 * comment line. */
static bool documented_default(const char *text, const char *key, char *out, size_t size)
{
    char start[80];
    snprintf(start, sizeof start, "\n;   %s ", key);
    const char *block = strstr(text, start);
    if (!block)
        return false;
    const char *end = block + strlen(start);
    while (*end && !(end[0] == '\n' && end[1] == ';' &&
                     (end[2] == '\n' || (strncmp(end + 2, "   ", 3) == 0 && end[5] != ' '))))
        ++end;
    const char *found = NULL;
    for (const char *p = block; p && p < end; p = strstr(p + 1, "(default "))
        if (strncmp(p, "(default ", 9) == 0)
            found = p;
    if (!found || found >= end)
        return false;
    found += 9;
    const char *close = strchr(found, ')');
    if (!close || close > end)
        return false;
    snprintf(out, size, "%.*s", (int)(close - found), found);
    return true;
}

static void test_shipped_file_loads_and_says_its_defaults(void)
{
    demo_config config;
    memset(&config, 0, sizeof config);
    diag_list errors = {0};
    CHECK(demo_config_load(SHIPPED, &config, &errors));
    CHECK(errors.total == 0);
    test_print_diags(&errors);
    diag_list_free(&errors);

    /* What the brief and the comments promise. */
    CHECK(strcmp(config.player.character, "mannequin") == 0);
    CHECK_NEAR(config.player.walk_speed, 1.4, 1e-6);
    CHECK_NEAR(config.player.run_speed, 3.5, 1e-6);
    CHECK(config.crowd.count == 100);
    CHECK_NEAR(config.crowd.spacing, 1.6, 1e-6);
    CHECK(config.crowd.body_count == 2);
    CHECK(strcmp(config.crowd.bodies[0].character, "mannequin") == 0 && config.crowd.bodies[0].weight == 1.0f);
    CHECK(strcmp(config.crowd.bodies[1].character, "robot") == 0 && config.crowd.bodies[1].weight == 1.0f);
    CHECK_NEAR(config.crowd.wander_radius, 6.0, 1e-6);
    CHECK_NEAR(config.crowd.wave_chance, 0.3, 1e-6);
    CHECK_NEAR(config.crowd.run_chance, 0.3, 1e-6);
    CHECK(config.crowd.max == 20000);
    CHECK(config.crowd.seed == 1);
    CHECK(config.window.vsync);

    /* Every key is documented with a default, the shipped value is that default, and so is
     * demo_config_defaults() (a file left empty behaves like the shipped one). */
    char *text = test_read_file(SHIPPED, NULL);
    CHECK(text != NULL);
    demo_config defaults = demo_config_defaults();
    static const char *const keys[] = {"character", "walk_speed", "run_speed", "count", "spacing", "mix",
                                       "wander_radius", "wave_chance", "celebrate_chance", "run_chance", "max",
                                       "seed", "distance", "pitch", "yaw", "width", "height", "vsync",
                                       "levels_of_detail", "lod_error_pixels", "stand_ins", "stand_in_pixels",
                                       "skin_once", "light_spin", "player", "crowd_distance",
                                       "ground"};
    for (size_t k = 0; text && k < sizeof keys / sizeof keys[0]; ++k) {
        char documented[128] = "", loaded[128], default_value[128];
        bool found = documented_default(text, keys[k], documented, sizeof documented);
        if (!found)
            fprintf(stderr, "  no '(default ...)' in the comment of '%s'\n", keys[k]);
        CHECK(found);
        value_text(&config, keys[k], loaded, sizeof loaded);
        value_text(&defaults, keys[k], default_value, sizeof default_value);
        if (strcmp(documented, loaded) != 0 || strcmp(loaded, default_value) != 0)
            fprintf(stderr, "  %s: comment says '%s', file gives '%s', defaults give '%s'\n", keys[k], documented,
                    loaded, default_value);
        CHECK(strcmp(documented, loaded) == 0);
        CHECK(strcmp(loaded, default_value) == 0);
    }
    free(text);

    demo_config empty;
    memset(&empty, 0, sizeof empty);
    errors = (diag_list){0};
    CHECK(load_text("; nothing but a comment\n", &empty, &errors));
    CHECK(empty.crowd.count == 100 && empty.crowd.body_count == 2 && empty.window.width == 1280);
    diag_list_free(&errors);
}

static void test_values_are_read(void)
{
    demo_config config = demo_config_defaults();
    diag_list errors = {0};
    CHECK(load_text("[player]\ncharacter = robot\nwalk_speed = 1.2\nrun_speed = 4 ; faster\n"
                    "[crowd]\ncount = 250\nspacing = 2.5\nmix = robot 3, mannequin 1, giant-2 0\nwander_radius = 0\n"
                    "wave_chance = 1\ncelebrate_chance = 0\nrun_chance = 0.5\nmax = 500\nseed = 18446744073709551615\n"
                    "[camera]\ndistance = 12.5\npitch = -10\nyaw = 270\n"
                    "[window]\nwidth = 640\nheight = 480\nvsync = false\n",
                    &config, &errors));
    test_print_diags(&errors);
    CHECK(strcmp(config.player.character, "robot") == 0);
    CHECK_NEAR(config.player.walk_speed, 1.2, 1e-6);
    CHECK_NEAR(config.player.run_speed, 4.0, 1e-6);
    CHECK(config.crowd.count == 250 && config.crowd.max == 500);
    CHECK_NEAR(config.crowd.spacing, 2.5, 1e-6);
    CHECK(config.crowd.body_count == 3);
    CHECK(strcmp(config.crowd.bodies[0].character, "robot") == 0 && config.crowd.bodies[0].weight == 3.0f);
    CHECK(strcmp(config.crowd.bodies[1].character, "mannequin") == 0 && config.crowd.bodies[1].weight == 1.0f);
    CHECK(strcmp(config.crowd.bodies[2].character, "giant-2") == 0 && config.crowd.bodies[2].weight == 0.0f);
    CHECK(config.crowd.wander_radius == 0.0f && config.crowd.wave_chance == 1.0f);
    CHECK(config.crowd.celebrate_chance == 0.0f);
    CHECK_NEAR(config.crowd.run_chance, 0.5, 1e-6);
    CHECK(config.crowd.seed == UINT64_MAX);
    CHECK_NEAR(config.camera.distance, 12.5, 1e-6);
    CHECK(config.camera.pitch == -10.0f && config.camera.yaw == 270.0f);
    CHECK(config.window.width == 640 && config.window.height == 480 && !config.window.vsync);

    CHECK(config.world.ground == GROUND_FLAT);
    CHECK(load_text("[world]\nground = hills\n", &config, &errors));
    CHECK(config.world.ground == GROUND_HILLS);
    CHECK(load_text("[world]\nground = steps ; stairs and ramps\n", &config, &errors));
    CHECK(config.world.ground == GROUND_STEPS);
    CHECK(load_text("[world]\nground = flat\n", &config, &errors));
    CHECK(config.world.ground == GROUND_FLAT && config.world.slope_degrees == 20.0f);
    /* The tilted plane, to measure the feet on a known incline (docs/trace.md). */
    CHECK(load_text("[world]\nground = slope\nslope_degrees = 30\n", &config, &errors));
    CHECK(config.world.ground == GROUND_SLOPE && config.world.slope_degrees == 30.0f);

    /* A key taken out of the file goes back to its default, not to the last load's value. */
    CHECK(load_text("[crowd]\nspacing = 3\n", &config, &errors));
    CHECK(config.crowd.count == 100 && config.crowd.spacing == 3.0f && config.window.vsync);
    CHECK(strcmp(config.player.character, "mannequin") == 0);
    diag_list_free(&errors);
}

/* ---- mistakes ---- */

static void test_every_kind_of_mistake_names_its_line(void)
{
    check_one_error("[player]\nwalk_speed = 1\n[sound]\nvolume = 3\n", 3, "unknown section [sound]");
    check_one_error("[crowd]\ncount = 10\ncolour = red\n", 3, "unknown key 'colour' in [crowd]");
    check_one_error("[crowd]\ncolour = red\n", 2, "known keys: count, spacing, mix");
    check_one_error("[crowd]\nspacing = wide\n", 2, "'spacing' must be a number, not 'wide'");
    check_one_error("[crowd]\nspacing = 1.6m\n", 2, "must be a number");
    check_one_error("[camera]\n\npitch = nan\n", 3, "must be a number");
    check_one_error("[crowd]\nspacing = 0x1p1\n", 2, "'spacing' must be a number, not '0x1p1'"); /* no hex */
    check_one_error("[camera]\npitch: 10\n", 2, "(':' does not separate a key from its value: write '=')");
    /* Plain decimals only: strtod would read these as 16, 8 and 0. */
    check_one_error("[camera]\npitch = 0x10\n", 2, "'pitch' must be a number, not '0x10'");
    check_one_error("[camera]\npitch = 0x1p3\n", 2, "must be a number");
    check_one_error("[player]\nwalk_speed = 1e-400\n", 2, "must be a number");
    check_one_error("[player]\nwalk_speed = 1e39\n", 2, "'walk_speed' must be between 0.1 and 20, not 1e39");
    check_one_error("[crowd]\ncount = 1.5\n", 2, "'count' must be a whole number");
    check_one_error("[crowd]\nseed = -1\n", 2, "'seed' must be a whole number");
    check_one_error("[crowd]\nseed = 99999999999999999999999\n", 2, "'seed' must be a whole number");
    check_one_error("[window]\nvsync = yes\n", 2, "'vsync' must be true or false");
    check_one_error("[player]\ncharacter = big guy\n", 2, "character name 'big guy'");
    /* Out of range, at both ends. */
    check_one_error("[crowd]\nwave_chance = 1.5\n", 2, "'wave_chance' must be between 0 and 1, not 1.5");
    check_one_error("[crowd]\nrun_chance = -0.1\n", 2, "'run_chance' must be between 0 and 1");
    check_one_error("[crowd]\nspacing = 0\n", 2, "'spacing' must be between 0.5 and 100");
    check_one_error("[crowd]\ncount = 0\n", 2, "'count' must be between 1 and 100000");
    /* A cap of a million needed about 8 GB (8.3 KB a member): 100000 is the most, and is accepted. */
    check_one_error("[crowd]\nmax = 1000000\n", 2, "'max' must be between 1 and 100000, not 1000000");
    check_one_error("[look]\ncrowd_distance = 150\n", 2, "'crowd_distance' must be between 0 and 100, not 150");
    check_one_error("[look]\nplayer = yes\n", 2, "'player' must be true or false");
    check_one_error("[window]\nwidth = 10\n", 2, "'width' must be between 64 and 16384");
    check_one_error("[render]\nlod_error_pixels = 0\n", 2, "'lod_error_pixels' must be between 0.1 and 100");
    /* The ground is one of three words; the tests' tilted plane is not among them, nor another case. */
    check_one_error("[world]\n\nground = mountains\n", 3, "'ground' must be flat, slope, hills or steps, not 'mountains'");
    check_one_error("[world]\nground = Hills\n", 2, "'ground' must be flat, slope, hills or steps");
    check_one_error("[world]\nground =\n", 2, "'ground' must be flat, slope, hills or steps");
    check_one_error("[world]\nslope_degrees = 46\n", 2, "'slope_degrees' must be between 0 and 45, not 46");
    check_one_error("[world]\nterrain = hills\n", 2, "unknown key 'terrain' in [world]");
    check_one_error("[render]\nstand_in_pixels = 20000\n", 2, "'stand_in_pixels' must be between 1 and 10000");
    check_one_error("[render]\nskin_once = yes\n", 2, "'skin_once' must be true or false");
    check_one_error("[render]\nlight_spin = 400\n", 2, "'light_spin' must be between 0 and 360");
    check_one_error("[camera]\npitch = 90\n", 2, "'pitch' must be between -89 and 89");
    check_one_error("[player]\nwalk_speed = 2\nrun_speed = 1.5\n", 3,
                    "'run_speed' (1.5) must be at least 'walk_speed'");
    check_one_error("[player]\nwalk_speed = 5\n", 2, "must be at least 'walk_speed' (5)");
    check_one_error("[crowd]\ncount = 300\nmax = 200\n", 2, "'count' (300) must not be more than 'max' (200)");
    /* Features by significance: the tiers' pixels and hysteresis in range, far at most near. */
    check_one_error("[crowd]\nlod_near_pixels = 0\n", 2, "'lod_near_pixels' must be between 1 and 10000");
    check_one_error("[crowd]\nlod_hysteresis = 0.6\n", 2, "'lod_hysteresis' must be between 0 and 0.5");
    check_one_error("[crowd]\nlod_far_pixels = 100\n", 2, "'lod_far_pixels' (100) must not be more than 'lod_near_pixels' (90)");
    check_one_error("[crowd]\nlod_far_pixels = 20\nlod_near_pixels = 10\n", 2,
                    "'lod_far_pixels' (20) must not be more than 'lod_near_pixels' (10)");
    /* The mix. */
    check_one_error("[crowd]\nmix =\n", 2, "'mix' is empty");
    check_one_error("[crowd]\nmix = mannequin 1,\n", 2, "'mix' has an empty entry");
    check_one_error("[crowd]\nmix = mannequin 1, robot\n", 2, "'robot' needs a weight");
    check_one_error("[crowd]\nmix = mannequin one\n", 2, "the weight of 'mannequin' must be a number, not 'one'");
    check_one_error("[crowd]\nmix = mannequin -1\n", 2, "the weight of 'mannequin' must be between 0");
    check_one_error("[crowd]\nmix = mannequin 0, robot 0\n", 2, "'mix' weights must not all be 0");
    check_one_error("[crowd]\nmix = robot 1, robot 2\n", 2, "'mix' names 'robot' twice");
    check_one_error("[crowd]\nmix = rob*t 1\n", 2, "character name 'rob*t'");
    check_one_error("[crowd]\nmix = a 1, b 1, c 1, d 1, e 1, f 1, g 1, h 1, i 1\n", 2, "more than 8 characters");
    /* What the ini reader itself rejects comes through with its line too. */
    check_one_error("[crowd\ncount = 5\n", 1, "no closing ']'");
    check_one_error("[crowd]\ncount = 5\ncount = 6\n", 3, "duplicate key 'count'");
    check_one_error("[crowd]\nthis line has no equals sign\n", 2, "expected 'key = value'");

    /* A file that cannot be read. */
    demo_config config = demo_config_defaults();
    diag_list errors = {0};
    CHECK(!demo_config_load(MARIONETTE_BUILD_DIR "/no_such_demo.ini", &config, &errors));
    CHECK(errors.count == 1);
    if (errors.count == 1) {
        CHECK_STR_CONTAINS(errors.items[0].file, "no_such_demo.ini");
        CHECK_STR_CONTAINS(errors.items[0].message, "cannot read");
    }
    diag_list_free(&errors);
}

static void test_all_mistakes_are_reported_at_once(void)
{
    demo_config config = demo_config_defaults();
    diag_list errors = {0};
    CHECK(!load_text("[player]\nwalk_speed = fast\n[crowd]\ncount = -4\nmix =\nwobble = 1\n[camera]\nyaw = 1000\n",
                     &config, &errors));
    CHECK(errors.total == 5);
    int lines[] = {2, 4, 5, 6, 8};
    for (int i = 0; i < 5 && i < errors.count; ++i)
        CHECK(errors.items[i].line == lines[i]);
    test_print_diags(&errors);
    diag_list_free(&errors);
}

static void test_a_bad_file_leaves_the_settings_untouched(void)
{
    demo_config config;
    memset(&config, 0x5a, sizeof config);
    config.crowd.count = 7;
    demo_config before;
    memcpy(&before, &config, sizeof config);
    diag_list errors = {0};
    /* Mostly good, one mistake at the end: nothing of the good part may leak through. */
    CHECK(!load_text("[crowd]\ncount = 50\nspacing = 3\n[window]\nwidth = 800\nvsync = maybe\n", &config, &errors));
    CHECK(errors.total == 1);
    CHECK(memcmp(&config, &before, sizeof config) == 0);
    CHECK(config.crowd.count == 7);
    /* The same with no error list: still refused. */
    CHECK(!demo_config_load(scratch, &config, NULL));
    CHECK(memcmp(&config, &before, sizeof config) == 0);
    CHECK(!demo_config_load(NULL, &config, &errors));
    CHECK(!demo_config_load(scratch, NULL, &errors));
    diag_list_free(&errors);
}

int main(void)
{
    if (!test_make_temp_folder(folder, sizeof folder, "test_demo_config") ||
        !test_paths_in(folder, sizeof scratch, scratch, "demo.ini", NULL)) {
        fprintf(stderr, "cannot make a scratch folder\n");
        return 1;
    }
    RUN(test_shipped_file_loads_and_says_its_defaults);
    RUN(test_values_are_read);
    RUN(test_every_kind_of_mistake_names_its_line);
    RUN(test_all_mistakes_are_reported_at_once);
    RUN(test_a_bad_file_leaves_the_settings_untouched);
    remove(scratch);
    remove(folder);
    return check_report();
}
