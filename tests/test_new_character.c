/* md5tool new-character: the role table, the measurements (speed, loops, axes, overlay branch) on the
 * generated clips whose true values are known (tools/assetgen makes walk at 1.4 m/s and run at 3.5 m/s in
 * place, walk_root_motion travelling at 1.4 m/s, wave on the right arm), and the files it writes for the
 * mannequin loading through the engine and the demo's own readers. The built tool runs as a user runs it.
 * The part run as `test_new_character --boneman` does the same on a real third-party character (boneman,
 * from MARIONETTE_REAL_MD5; skipped when that is absent, see test_data.h). */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "anim/config/anim_config.h"
#include "anim/state_machine.h"
#include "check.h"
#include "controls.h"
#include "demo_config.h"
#include "build/loader.h"
#include "md5/md5.h"
#include "md5tool_new_character.h"
#include "synth.h"
#include "test_data.h"
#include "test_files.h"

#define ASSETS MARIONETTE_SOURCE_DIR "/assets/"
#define MANNEQUIN ASSETS "models/mannequin.md5mesh"

static char folder[512];

/* ---- running the tool ---- */

typedef struct tool_run {
    int status;   /* exit status, -1 when it did not exit */
    char *output; /* stdout and stderr */
} tool_run;

static tool_run run_tool(const char *arguments)
{
    char output_path[600], command[4096];
    snprintf(output_path, sizeof output_path, "%s/tool_output.txt", folder);
    snprintf(command, sizeof command, "'%s' %s > '%s' 2>&1", MARIONETTE_MD5TOOL, arguments, output_path);
    int status = system(command);
    tool_run run = {.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1};
    run.output = test_read_file(output_path, NULL);
    if (!run.output)
        run.output = calloc(1, 1);
    return run;
}

static void load_clip_or_fail(const char *name, clip **out)
{
    char path[512];
    snprintf(path, sizeof path, ASSETS "clips/%s.md5anim", name);
    diag err = {0};
    *out = NULL;
    CHECK(loader_load_md5_clip(path, out, &err, NULL));
}

/* ---- roles ---- */

static void test_roles_from_file_names(void)
{
    static const struct {
        const char *clip, *mesh;
        new_character_role role;
    } cases[] = {
        {"a/idle.md5anim", NULL, NEW_CHARACTER_ROLE_IDLE},
        {"Stand_Breathing.md5anim", NULL, NEW_CHARACTER_ROLE_IDLE},
        {"WALK_fwd.md5anim", NULL, NEW_CHARACTER_ROLE_WALK},
        {"running.md5anim", NULL, NEW_CHARACTER_ROLE_RUN},
        {"sprint.md5anim", NULL, NEW_CHARACTER_ROLE_RUN},
        {"jog2.md5anim", NULL, NEW_CHARACTER_ROLE_RUN},
        {"jump_up.md5anim", NULL, NEW_CHARACTER_ROLE_JUMP},
        {"turn_left.md5anim", NULL, NEW_CHARACTER_ROLE_TURN_LEFT},
        {"TurnRight90.md5anim", NULL, NEW_CHARACTER_ROLE_TURN_RIGHT},
        {"turn_r.md5anim", NULL, NEW_CHARACTER_ROLE_TURN_RIGHT},
        {"turn.md5anim", NULL, NEW_CHARACTER_ROLE_UNKNOWN}, /* no side */
        {"wave.md5anim", NULL, NEW_CHARACTER_ROLE_OVERLAY},
        {"attack2.md5anim", NULL, NEW_CHARACTER_ROLE_OVERLAY},
        {"shoot.md5anim", NULL, NEW_CHARACTER_ROLE_OVERLAY},
        {"throw_grenade.md5anim", NULL, NEW_CHARACTER_ROLE_OVERLAY},
        {"pain_chest.md5anim", NULL, NEW_CHARACTER_ROLE_PAIN},
        {"hit.md5anim", NULL, NEW_CHARACTER_ROLE_PAIN},
        {"flinch.md5anim", NULL, NEW_CHARACTER_ROLE_PAIN},
        {"death1.md5anim", NULL, NEW_CHARACTER_ROLE_DEATH},
        {"dying.md5anim", NULL, NEW_CHARACTER_ROLE_DEATH},
        {"die.md5anim", NULL, NEW_CHARACTER_ROLE_DEATH},
        {"dead.md5anim", NULL, NEW_CHARACTER_ROLE_DEAD},
        {"celebrate.md5anim", NULL, NEW_CHARACTER_ROLE_UNKNOWN},
        {"dance.md5anim", NULL, NEW_CHARACTER_ROLE_UNKNOWN},
        /* The mesh's name in front is ignored: "soldier" holds "die". */
        {"soldier_salute.md5anim", NULL, NEW_CHARACTER_ROLE_DEATH},
        {"soldier_salute.md5anim", "m/soldier.md5mesh", NEW_CHARACTER_ROLE_UNKNOWN},
        {"boneman_dying.md5anim", "boneman.md5mesh", NEW_CHARACTER_ROLE_DEATH},
        /* Earlier rows win: idle before death. */
        {"soldier_idle.md5anim", NULL, NEW_CHARACTER_ROLE_IDLE},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        new_character_role role = new_character_guess_role(cases[i].clip, cases[i].mesh);
        if (role != cases[i].role)
            fprintf(stderr, "  %s: %s, expected %s\n", cases[i].clip, new_character_role_name(role),
                    new_character_role_name(cases[i].role));
        CHECK(role == cases[i].role);
    }
    CHECK(strcmp(new_character_role_name(NEW_CHARACTER_ROLE_OVERLAY), "overlay") == 0);
    CHECK(strcmp(new_character_role_name(NEW_CHARACTER_ROLE_COUNT), "unknown") == 0);
}

/* ---- measurements on the mannequin ---- */

typedef struct mannequin {
    model *model;
    clip *idle;
    new_character_body body;
} mannequin;

static bool mannequin_load(mannequin *m)
{
    diag err = {0};
    *m = (mannequin){0};
    if (!loader_load_md5_model(MANNEQUIN, &m->model, &err, NULL))
        return false;
    load_clip_or_fail("idle", &m->idle);
    return m->idle && new_character_study_body(m->model, m->idle, NULL, &m->body);
}

static void mannequin_free(mannequin *m)
{
    new_character_body_free(&m->body);
    clip_free(m->idle);
    model_free(m->model);
}

static void test_body_axes_feet_and_scale(void)
{
    mannequin m;
    CHECK(mannequin_load(&m));
    if (!m.model)
        return;
    const skeleton *s = &m.model->skeleton;
    CHECK(m.body.from_clip);
    CHECK(m.body.up_axis == 2 && m.body.up_sign > 0.0f);          /* +Z, as assetgen writes it */
    CHECK(m.body.forward_axis == 0 && m.body.forward_sign > 0.0f); /* +X: the toes are ahead of the ankles */
    CHECK(m.body.forward_from_feet);
    CHECK(m.body.feet_by_name && m.body.foot_count == 2);
    if (m.body.foot_count == 2) {
        CHECK(strcmp(s->names[m.body.foot_root[0]], "foot.L") == 0 || strcmp(s->names[m.body.foot_root[0]], "foot.R") == 0);
        CHECK(strcmp(s->names[m.body.foot_root[1]], "foot.L") == 0 || strcmp(s->names[m.body.foot_root[1]], "foot.R") == 0);
        CHECK(m.body.foot_root[0] != m.body.foot_root[1]);
    }
    /* The mannequin is about 1.8 m tall in metres: a scale near 1 that makes it exactly 1.8. */
    CHECK(m.body.height > 1.6f && m.body.height < 1.95f);
    CHECK_NEAR(m.body.scale * m.body.height, 1.8, 1e-5);
    mannequin_free(&m);
}

static void test_speeds_from_feet_and_root(void)
{
    mannequin m;
    CHECK(mannequin_load(&m));
    if (!m.model)
        return;
    static const struct {
        const char *clip;
        new_character_speed_method method;
        double speed;
    } cases[] = {
        {"walk", NEW_CHARACTER_SPEED_PLANTED_FOOT, 1.4},
        {"run", NEW_CHARACTER_SPEED_PLANTED_FOOT, 3.5},
        {"walk_root_motion", NEW_CHARACTER_SPEED_ROOT_MOTION, 1.4},
        {"idle", NEW_CHARACTER_SPEED_NONE, 0.0},
        {"wave", NEW_CHARACTER_SPEED_NONE, 0.0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        clip *c = NULL;
        load_clip_or_fail(cases[i].clip, &c);
        if (!c)
            continue;
        new_character_speed speed;
        CHECK(new_character_measure_speed(m.model, &m.body, c, &speed));
        printf("  %s: %.4f units/s, method %d, %d samples, root travel %.3f\n", cases[i].clip, (double)speed.speed,
               (int)speed.method, speed.samples, (double)speed.root_travel);
        CHECK(speed.method == cases[i].method);
        CHECK_NEAR(speed.speed, cases[i].speed, 0.05 * cases[i].speed);
        clip_free(c);
    }
    /* Walk and run both start at the left foot's heel strike, so they may share a sync group. */
    clip *walk = NULL, *run = NULL;
    load_clip_or_fail("walk", &walk);
    load_clip_or_fail("run", &run);
    new_character_speed walk_speed, run_speed;
    if (walk && run && new_character_measure_speed(m.model, &m.body, walk, &walk_speed) &&
        new_character_measure_speed(m.model, &m.body, run, &run_speed)) {
        CHECK(walk_speed.foot_down_at_start >= 0);
        CHECK(walk_speed.foot_down_at_start == run_speed.foot_down_at_start);
        CHECK(strcmp(m.model->skeleton.names[m.body.foot_root[walk_speed.foot_down_at_start]], "foot.L") == 0);
    }
    clip_free(walk);
    clip_free(run);
    mannequin_free(&m);
}

static void test_overlay_root_of_the_wave(void)
{
    mannequin m;
    CHECK(mannequin_load(&m));
    if (!m.model)
        return;
    clip *wave = NULL;
    load_clip_or_fail("wave", &wave);
    if (wave) {
        int root = new_character_overlay_root(m.model, &m.body, wave, m.idle);
        CHECK(root >= 0);
        if (root >= 0)
            CHECK(strcmp(m.model->skeleton.names[root], "clavicle.R") == 0);
        /* Against its own first frame too. */
        root = new_character_overlay_root(m.model, &m.body, wave, NULL);
        CHECK(root >= 0 && strcmp(m.model->skeleton.names[root], "clavicle.R") == 0);
    }
    clip_free(wave);
    mannequin_free(&m);
}

/* ---- the files it writes ---- */

/* The section [name] of an ini text and the value of key in it, or "" (first line only). */
static void ini_value(const char *text, const char *section, const char *key, char *out, size_t size)
{
    out[0] = '\0';
    char header[128];
    snprintf(header, sizeof header, "\n[%s]\n", section);
    const char *at = text ? strstr(text, header) : NULL;
    if (!at)
        return;
    at += strlen(header);
    size_t key_length = strlen(key);
    while (*at && *at != '[') {
        const char *end = strchr(at, '\n');
        size_t length = end ? (size_t)(end - at) : strlen(at);
        if (strncmp(at, key, key_length) == 0 && strncmp(at + key_length, " = ", 3) == 0) {
            size_t value = length - key_length - 3;
            snprintf(out, size, "%.*s", (int)(value < size ? value : size - 1), at + key_length + 3);
            return;
        }
        if (!end)
            return;
        at = end + 1;
    }
}

/* Loads DIR/characters.ini through the engine, as the demo does, exactly as written: no error and no warning.
 * Returns the config (NULL after printing its errors). */
static anim_config *load_written_config(const char *dir, cache *cache)
{
    char path[800];
    snprintf(path, sizeof path, "%s/characters.ini", dir);
    diag_list errors = {0};
    anim_config *config = anim_config_load(path, cache, &errors);
    test_print_diags(&errors);
    CHECK(errors.count == 0);
    diag_list_free(&errors);
    return config;
}

static void test_written_files_for_the_mannequin_load(void)
{
    char dir[700], arguments[3000];
    snprintf(dir, sizeof dir, "%s/mannequin", folder);
    snprintf(arguments, sizeof arguments,
             "new-character mannequin '%s' '%sclips/'*.md5anim '%s/bad/garbage.md5anim' '%s/synth/synth.md5anim' --out '%s'",
             MANNEQUIN, ASSETS, folder, folder, dir);
    /* A clip that does not parse and one made for another skeleton are reported, not fatal. */
    char bad[700];
    snprintf(bad, sizeof bad, "%s/bad", folder);
    mkdir(bad, 0777);
    snprintf(bad, sizeof bad, "%s/bad/garbage.md5anim", folder);
    test_write_file(bad, "MD5Version 10\ncommandline \"\"\nnumFrames x\n");
    snprintf(bad, sizeof bad, "%s/synth", folder);
    CHECK(system(NULL) != 0);
    char synth_command[1200];
    snprintf(synth_command, sizeof synth_command, "'%s' synth '%s' > /dev/null", MARIONETTE_MD5TOOL, bad);
    CHECK(system(synth_command) == 0);

    tool_run run = run_tool(arguments);
    printf("%s", run.output);
    CHECK(run.status == 0);
    CHECK_STR_CONTAINS(run.output, "garbage.md5anim:3:");  /* file:line of the parse error */
    CHECK_STR_CONTAINS(run.output, "synth.md5anim: clip has 33 joints, skeleton has 31");
    /* breathe sorts before idle and has an idle word in its name; idle, named for the role, plays it. */
    CHECK_STR_CONTAINS(run.output, "left out: idle already plays idle");
    free(run.output);

    char path[800];
    snprintf(path, sizeof path, "%s/clips.ini", dir);
    char *clips = test_read_file(path, NULL);
    snprintf(path, sizeof path, "%s/states.ini", dir);
    char *states = test_read_file(path, NULL);
    snprintf(path, sizeof path, "%s/characters.ini", dir);
    char *characters = test_read_file(path, NULL);
    CHECK(clips && states && characters);
    char value[256];
    /* Paths relative to DIR, which sits two folders below the build tree. */
    ini_value(characters, "mannequin", "mesh", value, sizeof value);
    CHECK(value[0] != '/' && strstr(value, "../") == value);
    CHECK_STR_CONTAINS(value, "assets/models/mannequin.md5mesh");
    ini_value(characters, "mannequin", "up", value, sizeof value);
    CHECK(strcmp(value, "+Z") == 0);
    ini_value(characters, "mannequin", "forward", value, sizeof value);
    CHECK(strcmp(value, "+X") == 0);
    ini_value(characters, "mannequin", "scale", value, sizeof value);
    CHECK(atof(value) > 0.9 && atof(value) < 1.1);
    /* Every guess carries a comment. */
    CHECK_STR_CONTAINS(characters, "; guess: the toes are ahead of the ankles along +X");
    /* Loops as the engine decides; idle, walk, run are cycles; the one-shots hold. */
    ini_value(clips, "walk", "loop", value, sizeof value);
    CHECK(strcmp(value, "true") == 0);
    ini_value(clips, "idle", "loop", value, sizeof value);
    CHECK(strcmp(value, "true") == 0);
    ini_value(clips, "jump", "loop", value, sizeof value);
    CHECK(strcmp(value, "false") == 0);
    ini_value(clips, "wave", "loop", value, sizeof value);
    CHECK(strcmp(value, "false") == 0);
    /* The engine's loop detection in the comments: walk's last frame repeats its first (a 1 s cycle at 30 fps
     * over 31 frames), celebrate's does not (assetgen writes it as a one-shot). */
    CHECK_STR_CONTAINS(clips, "; the last frame repeats the first: a seamless cycle of 1.000 s\nloop = true\n"
                              "; measured from the planted foot's backward slide: 1.4 file units/s");
    CHECK_STR_CONTAINS(clips, "; [celebrate]\n; file = ");
    CHECK_STR_CONTAINS(clips, "celebrate.md5anim\n; plays once (2.400 s) and holds its last frame\n; loop = false\n");
    ini_value(clips, "walk", "speed", value, sizeof value);
    CHECK_NEAR(atof(value), 1.4, 0.07);
    ini_value(clips, "run", "speed", value, sizeof value);
    CHECK_NEAR(atof(value), 3.5, 0.175);
    ini_value(clips, "walk", "sync", value, sizeof value);
    CHECK(strcmp(value, "locomotion") == 0);
    ini_value(clips, "turn_left", "root_motion", value, sizeof value);
    CHECK(strcmp(value, "true") == 0);
    /* Unknown role and the second walk: commented out, with a word on how to use them. */
    CHECK_STR_CONTAINS(clips, "\n; [celebrate]\n");
    CHECK_STR_CONTAINS(clips, "To use it, uncomment this section");
    CHECK_STR_CONTAINS(clips, "\n; [walk_root_motion]\n");
    CHECK_STR_CONTAINS(clips, "its name says walk, but");
    CHECK_STR_CONTAINS(clips, "\n; [garbage]\n");
    CHECK_STR_CONTAINS(clips, "\n; [synth]\n");
    /* The overlay on the wave's arm; the demo's triggers declared. */
    ini_value(states, "state idle_gesture", "overlay_root", value, sizeof value);
    CHECK(strcmp(value, "clavicle.R") == 0);
    CHECK_STR_CONTAINS(states, "\nhit = trigger");
    CHECK_STR_CONTAINS(states, "\ndie = trigger");
    CHECK_STR_CONTAINS(states, "\ncelebrate = trigger");

    cache *cache = cache_create();
    anim_config *config = load_written_config(dir, cache);
    CHECK(config != NULL);
    const anim_character *character = config ? anim_config_find_character(config, "mannequin") : NULL;
    CHECK(character != NULL);
    if (character) {
        const state_machine_definition *machine = &character->machine;
        static const char *const expected_states[] = {"idle", "walk", "run", "idle_gesture", "walk_gesture",
                                                      "run_gesture", "turn_left", "turn_right", "jump"};
        for (size_t i = 0; i < sizeof expected_states / sizeof expected_states[0]; ++i) {
            bool found = false;
            for (int s = 0; s < machine->state_count; ++s)
                found = found || strcmp(machine->states[s].name, expected_states[i]) == 0;
            CHECK(found);
        }
        CHECK(strcmp(machine->states[machine->start_state].name, "idle") == 0);
        /* The scale written makes the loaded character 1.8 m tall, and the walk's speed is 1.4 m/s in metres. */
        CHECK_NEAR(character->height_m, 1.8, 1e-3);
        int walk = anim_config_find_clip(character, "walk");
        CHECK(walk >= 0);
        if (walk >= 0) {
            CHECK_NEAR(character->clips[walk].ground_speed, 1.4, 0.07);
            CHECK_NEAR(anim_clip_ground_speed_metres(&character->clips[walk]), 1.4, 0.07);
        }
        CHECK(anim_config_find_clip(character, "celebrate") < 0);
    }
    anim_config_free(config);
    cache_destroy(cache);

    /* The demo's own readers take demo.ini and controls.ini: the mannequin as the player and the crowd, the
     * measured speeds, and every default key (hit and die included). */
    snprintf(path, sizeof path, "%s/demo.ini", dir);
    demo_config settings = demo_config_defaults();
    diag_list errors = {0};
    CHECK(demo_config_load(path, &settings, &errors));
    test_print_diags(&errors);
    CHECK(strcmp(settings.player.character, "mannequin") == 0);
    CHECK_NEAR(settings.player.walk_speed, 1.4 * 1.8 / 1.792, 0.08);
    CHECK_NEAR(settings.player.run_speed, 3.5 * 1.8 / 1.792, 0.18);
    CHECK(settings.crowd.body_count == 1 && strcmp(settings.crowd.bodies[0].character, "mannequin") == 0);
    snprintf(path, sizeof path, "%s/controls.ini", dir);
    controls loaded = {0}, defaults = controls_defaults();
    diag_list_clear(&errors);
    CHECK(controls_load(path, &loaded, &errors));
    test_print_diags(&errors);
    CHECK(loaded.action_count == defaults.action_count && loaded.invert_y == defaults.invert_y &&
          loaded.orbit_degrees_per_pixel == defaults.orbit_degrees_per_pixel &&
          memcmp(loaded.bindings, defaults.bindings, (size_t)loaded.action_count * sizeof *loaded.bindings) == 0);
    CHECK(loaded.bindings[GAME_ACTION_HIT].key_count == 1 && loaded.bindings[GAME_ACTION_HIT].keys[0] == PLATFORM_KEY_H);
    CHECK(loaded.bindings[GAME_ACTION_DIE].key_count == 1 && loaded.bindings[GAME_ACTION_DIE].keys[0] == PLATFORM_KEY_K);
    controls_free(&loaded);
    controls_free(&defaults);
    diag_list_free(&errors);
    free(clips);
    free(states);
    free(characters);

    /* A second run keeps the user's files unless --force. */
    run = run_tool(arguments);
    CHECK(run.status == 1);
    CHECK_STR_CONTAINS(run.output, "characters.ini exists");
    free(run.output);
    /* --force replaces each file whole: a symbolic link planted at one is replaced by the file, and what it
     * pointed at is left as it was (it was written through). */
    char planted[800], victim[800];
    snprintf(planted, sizeof planted, "%s/clips.ini", dir);
    snprintf(victim, sizeof victim, "%s/victim.txt", folder);
    test_write_file(victim, "keep me\n");
    CHECK(unlink(planted) == 0 && symlink(victim, planted) == 0);
    char forced[3100];
    snprintf(forced, sizeof forced, "%s --force", arguments);
    run = run_tool(forced);
    CHECK(run.status == 0);
    free(run.output);
    struct stat link_info;
    CHECK(lstat(planted, &link_info) == 0 && S_ISREG(link_info.st_mode));
    char *kept = test_read_file(victim, NULL);
    CHECK(kept && strcmp(kept, "keep me\n") == 0);
    free(kept);
}

/* `'text'` for sh, with each ' inside written as '\''. */
static void shell_quote(const char *text, char *out, size_t size)
{
    size_t used = 0;
    out[used++] = '\'';
    for (const char *c = text; *c && used + 6 < size; ++c) {
        if (*c == '\'') {
            memcpy(out + used, "'\\''", 4);
            used += 4;
        } else {
            out[used++] = *c;
        }
    }
    out[used++] = '\'';
    out[used] = '\0';
}

/* Every special character of an ini file in the folder and file names new-character is given: each run either
 * refuses at the command line (exit 2, one line saying why, nothing written) or writes files that load with
 * the very files given (the same inode as the mesh and clip named). Before, ' ;' was written as is and read
 * back cut at the comment, and a newline in a file name wrote a line of its own into clips.ini (both exit 0). */
static void test_paths_with_special_characters(void)
{
    static const struct {
        const char *text;
        bool writable;
    } specials[] = {
        {" ;", false}, {"\n", false}, {"\r", false}, {"x ", true},  {" x", true}, {";", true}, {"#", true},
        {"=", true},   {"[", true},   {"]", true},   {"\"", true},  {"'", true},  {"\\", true}, {":", true},
        {"\t", true},  {"\xc3\xa9", true}, {"$HOME", true}, {"%s", true}, {"\x1f", true}, {"a;b", true},
        {"\t;", false},
    };
    for (size_t i = 0; i < sizeof specials / sizeof specials[0]; ++i) {
        const char *special = specials[i].text;
        char base[700], files[900], mesh[1000], clip[1000], out[800];
        snprintf(base, sizeof base, "%s/special_%zu", folder, i);
        snprintf(files, sizeof files, "%s/d%s", base, special);
        snprintf(mesh, sizeof mesh, "%s/m%s.md5mesh", files, special);
        snprintf(clip, sizeof clip, "%s/m%s_idle.md5anim", files, special);
        snprintf(out, sizeof out, "%s/out", base);
        CHECK(mkdir(base, 0777) == 0 && mkdir(files, 0777) == 0);
        char *mesh_text = test_read_file(MANNEQUIN, NULL), *clip_text = test_read_file(ASSETS "clips/idle.md5anim", NULL);
        CHECK(mesh_text && clip_text);
        test_write_file(mesh, mesh_text ? mesh_text : "");
        test_write_file(clip, clip_text ? clip_text : "");
        free(mesh_text);
        free(clip_text);
        char quoted_mesh[2200], quoted_clip[2200], quoted_out[1700], arguments[7000];
        shell_quote(mesh, quoted_mesh, sizeof quoted_mesh);
        shell_quote(clip, quoted_clip, sizeof quoted_clip);
        shell_quote(out, quoted_out, sizeof quoted_out);
        snprintf(arguments, sizeof arguments, "new-character hero %s %s --out %s", quoted_mesh, quoted_clip, quoted_out);
        tool_run run = run_tool(arguments);
        char shown[64];
        diag_escape(special, shown, sizeof shown);
        struct stat info;
        if (!specials[i].writable) {
            if (run.status != 2)
                fprintf(stderr, "  '%s': exit %d\n%s", shown, run.status, run.output);
            CHECK(run.status == 2);
            CHECK_STR_CONTAINS(run.output, "cannot name it");
            CHECK(strchr(run.output, '\n') == strrchr(run.output, '\n')); /* one line */
            CHECK(stat(out, &info) != 0);                                  /* nothing written, no folder left */
        } else {
            if (run.status != 0)
                fprintf(stderr, "  '%s': exit %d\n%s", shown, run.status, run.output);
            CHECK(run.status == 0);
            cache *cache = cache_create();
            anim_config *config = load_written_config(out, cache);
            const anim_character *hero = config ? anim_config_find_character(config, "hero") : NULL;
            struct stat given, read_back;
            CHECK(hero && stat(mesh, &given) == 0 && stat(hero->mesh_path, &read_back) == 0 &&
                  given.st_ino == read_back.st_ino);
            /* Its one clip is its idle; with no walk or run it borrows the library's (retargeted). */
            CHECK(hero && hero->clip_count >= 1 && hero->clips[0].clip != NULL && strcmp(hero->clips[0].name, "idle") == 0);
            anim_config_free(config);
            cache_destroy(cache);
        }
        free(run.output);
    }
}

/* Joint names in another language, its own walk and no idle: the walk stands in for the idle, nothing is
 * borrowed (it walks), and the legs come from the skeleton's shape (no joint is called foot or ankle: the
 * lowest leaves are toes, whose parent and grandparent would be a foot and a shin). */
static void test_legs_from_shape(void)
{
    char base[600], command[4000], arguments[4000], path[700];
    snprintf(base, sizeof base, "%s/fremd", folder);
    static const char german[] = "sed -e 's/\"thigh\\./\"oberschenkel./; s/\"shin\\./\"schienbein./; "
                                 "s/\"foot\\./\"fuss./; s/\"toe\\./\"zeh./; s/\\.L\"/.links\"/; s/\\.R\"/.rechts\"/'";
    snprintf(command, sizeof command, "mkdir -p '%s' && %s '%s' > '%s/koerper.md5mesh' && %s '%sclips/walk.md5anim' > "
             "'%s/koerper_walk.md5anim'", base, german, MANNEQUIN, base, german, ASSETS, base);
    CHECK(system(command) == 0);
    snprintf(arguments, sizeof arguments, "new-character koerper '%s/koerper.md5mesh' '%s/koerper_walk.md5anim' --out '%s/out'",
             base, base, base);
    tool_run run = run_tool(arguments);
    CHECK(run.status == 0);
    CHECK(run.output && !strstr(run.output, "borrowed"));
    free(run.output);
    snprintf(path, sizeof path, "%s/out/characters.ini", base);
    char *characters = test_read_file(path, NULL);
    CHECK_STR_CONTAINS(characters, "; guess: the legs from the skeleton's shape");
    CHECK_STR_CONTAINS(characters, "legs = oberschenkel.links schienbein.links fuss.links oberschenkel.rechts "
                                   "schienbein.rechts fuss.rechts\nfoot_ik = true\n");
    free(characters);
}

/* Turns and jumps whose names say nothing: the root's turn and the feet leaving the ground say it. */
static void test_turns_and_jumps_from_motion(void)
{
    char base[600], command[4000], arguments[4000], path[700];
    snprintf(base, sizeof base, "%s/moves", folder);
    snprintf(command, sizeof command,
             "mkdir -p '%s' && cp '%sclips/turn_left.md5anim' '%s/spin_a.md5anim' && cp '%sclips/jump.md5anim' "
             "'%s/hop_b.md5anim' && cp '%sclips/turn_right.md5anim' '%s/spin_c.md5anim'",
             base, ASSETS, base, ASSETS, base, ASSETS, base);
    CHECK(system(command) == 0);
    snprintf(arguments, sizeof arguments,
             "new-character hero '%s' '%sclips/idle.md5anim' '%s/spin_a.md5anim' '%s/hop_b.md5anim' '%s/spin_c.md5anim' "
             "--out '%s/out' --no-borrow", MANNEQUIN, ASSETS, base, base, base, base);
    tool_run run = run_tool(arguments);
    CHECK(run.status == 0);
    free(run.output);
    snprintf(path, sizeof path, "%s/out/clips.ini", base);
    char *clips = test_read_file(path, NULL);
    CHECK_STR_CONTAINS(clips, "; guess: turn_left, from its motion (its name says no role): its root ends turned 90 "
                              "degrees left\n[spin_a]");
    CHECK_STR_CONTAINS(clips, "; guess: turn_right, from its motion (its name says no role): its root ends turned 90 "
                              "degrees right\n[spin_c]");
    CHECK_STR_CONTAINS(clips, "; guess: jump, from its motion (its name says no role): its lowest joint rises ");
    free(clips);
    snprintf(path, sizeof path, "%s/out/states.ini", base);
    char *states = test_read_file(path, NULL);
    CHECK_STR_CONTAINS(states, "[state jump]\nclip = hop_b");
    CHECK_STR_CONTAINS(states, "[state turn_left]\nclip = spin_a");
    free(states);
}

/* What the files cannot tell, given: a lone clip whose name says no role (Bob's Bob.md5anim beside Bob.md5mesh)
 * is the idle; --role names a clip's role, --up and --forward the axes, each marked `; given`; `forward` in a
 * name is a walk; when no clip has a role the message says to use --role; a --role naming no ANIM, an unknown
 * role, a bad axis and axes that are not perpendicular are one-line usage errors. */
static void test_given_roles_and_axes(void)
{
    char base[600], bob_mesh[700], bob_clip[700], odd[700], forward[700], command[6000];
    snprintf(base, sizeof base, "%s/given", folder);
    snprintf(bob_mesh, sizeof bob_mesh, "%s/Bob.md5mesh", base);
    snprintf(bob_clip, sizeof bob_clip, "%s/Bob.md5anim", base);
    snprintf(odd, sizeof odd, "%s/strange.md5anim", base);
    snprintf(forward, sizeof forward, "%s/snout_forward.md5anim", base);
    snprintf(command, sizeof command, "mkdir -p '%s' && cp '%s' '%s' && cp '%sclips/idle.md5anim' '%s' && "
             "cp '%sclips/walk.md5anim' '%s' && cp '%sclips/walk.md5anim' '%s'", base, MANNEQUIN, bob_mesh, ASSETS,
             bob_clip, ASSETS, odd, ASSETS, forward);
    CHECK(system(command) == 0);

    char arguments[6000], path[900];
    snprintf(arguments, sizeof arguments, "new-character bob '%s' '%s' --out '%s/bob'", bob_mesh, bob_clip, base);
    tool_run run = run_tool(arguments);
    CHECK(run.status == 0);
    free(run.output);
    snprintf(path, sizeof path, "%s/bob/clips.ini", base);
    char *clips = test_read_file(path, NULL);
    CHECK_STR_CONTAINS(clips, "; guess: the only clip, and its name says nothing of a role: it plays as the idle");
    /* No walk, no run: the shipped library is borrowed, Bob's own clip playing the idle. */
    CHECK_STR_CONTAINS(clips, "[idle]\nfile = ../Bob.md5anim");
    CHECK_STR_CONTAINS(clips, "[walk]\nfile = ");
    CHECK_STR_CONTAINS(clips, "assets/clips/walk.md5anim\nskeleton = ");
    free(clips);
    snprintf(path, sizeof path, "%s/bob/characters.ini", base);
    char *characters = test_read_file(path, NULL);
    CHECK_STR_CONTAINS(characters, "map.hips = hips");
    CHECK_STR_CONTAINS(characters, "map.foot.L = foot.L");
    CHECK_STR_CONTAINS(characters, "legs = thigh.L shin.L foot.L thigh.R shin.R foot.R\nfoot_ik = true");
    free(characters);
    snprintf(path, sizeof path, "%s/bob", base);
    cache *cache = cache_create();
    anim_config *config = load_written_config(path, cache);
    CHECK(config != NULL);
    const anim_character *bob = config ? anim_config_find_character(config, "bob") : NULL;
    int walk = bob ? anim_config_find_clip(bob, "walk") : -1, run_clip = bob ? anim_config_find_clip(bob, "run") : -1;
    CHECK(walk >= 0 && run_clip >= 0 && bob->clips[walk].clip && bob->clips[run_clip].clip);
    /* The same skeleton: the walk retargeted onto it is the walk (the bake's own test checks 1 mm). */
    CHECK(walk >= 0 && bob->clips[walk].clip->joint_count == bob->model->skeleton.joint_count);
    CHECK(walk >= 0 && fabsf(bob->clips[walk].ground_speed - 1.4f) < 1e-4f);
    CHECK(cache_get_stats(cache).retargeted_clips >= 14); /* 18 borrowed; the additive ones keep only their deltas */
    anim_config_free(config);
    /* --no-borrow: the old starter, its one clip as [Bob], and the note says why there is no walk. */
    snprintf(arguments, sizeof arguments, "new-character bob '%s' '%s' --out '%s/bob_alone' --no-borrow", bob_mesh,
             bob_clip, base);
    run = run_tool(arguments);
    CHECK(run.status == 0);
    free(run.output);
    snprintf(path, sizeof path, "%s/bob_alone/clips.ini", base);
    clips = test_read_file(path, NULL);
    CHECK_STR_CONTAINS(clips, "[Bob]\nfile = ");
    CHECK(clips && !strstr(clips, "skeleton ="));
    free(clips);

    snprintf(arguments, sizeof arguments,
             "new-character hero '%s' '%s' '%s' '%s' --role strange.md5anim=run --up +Z --forward +X --out '%s/hero' "
             "--rate strange.md5anim=60",
             MANNEQUIN, bob_clip, odd, forward, base);
    run = run_tool(arguments);
    CHECK(run.status == 0);
    free(run.output);
    snprintf(path, sizeof path, "%s/hero/clips.ini", base);
    clips = test_read_file(path, NULL);
    CHECK_STR_CONTAINS(clips, "; given: run (--role)\n[strange]");
    CHECK_STR_CONTAINS(clips, "; given: played at 60 frames a second (--rate), where the file says 30\nframe_rate = 60\n");
    /* Measured at that rate: the walk file played as a run at twice its pace, 2.8 units/s. */
    CHECK_STR_CONTAINS(clips, "speed = 2.8");
    CHECK_STR_CONTAINS(clips, "; guess: walk, and no idle clip: it also stands in for idle\n[snout_forward]");
    free(clips);
    snprintf(path, sizeof path, "%s/hero/characters.ini", base);
    characters = test_read_file(path, NULL);
    CHECK_STR_CONTAINS(characters, "; given: --up\nup = +Z");
    CHECK_STR_CONTAINS(characters, "; given: --forward\nforward = +X");
    free(characters);
    snprintf(path, sizeof path, "%s/hero", base);
    config = load_written_config(path, cache);
    const anim_character *hero = config ? anim_config_find_character(config, "hero") : NULL;
    CHECK(hero && anim_config_find_clip(hero, "strange") >= 0 && anim_config_find_clip(hero, "snout_forward") >= 0);
    int strange = hero ? anim_config_find_clip(hero, "strange") : -1, walked = hero ? anim_config_find_clip(hero, "snout_forward") : -1;
    CHECK(strange >= 0 && walked >= 0 && hero->clips[strange].clip->frame_rate == 60.0f &&
          fabsf(hero->clips[strange].clip->loop_duration * 2.0f - hero->clips[walked].clip->loop_duration) < 1e-5f);
    CHECK(cache_get_stats(cache).retimed_clips == 1);
    anim_config_free(config);
    cache_destroy(cache);

    /* Two clips of no role that do not travel: nothing written, and the way out named. */
    snprintf(command, sizeof command, "cp '%sclips/idle.md5anim' '%s/still.md5anim'", ASSETS, base);
    CHECK(system(command) == 0);
    snprintf(arguments, sizeof arguments,
             "new-character hero '%s' '%s/still.md5anim' '%s/Bob.md5anim' --out '%s/none' --no-borrow", MANNEQUIN, base,
             base, base);
    run = run_tool(arguments);
    CHECK(run.status == 1);
    CHECK_STR_CONTAINS(run.output, "no clip fits this mesh with a role it can play; nothing written (name a clip's role "
                                   "with --role FILE=ROLE");
    free(run.output);
    /* --borrow on a body that is no humanoid (the six-legged creature): one line saying why, nothing written. */
    char creature_folder[700], error[256];
    snprintf(creature_folder, sizeof creature_folder, "%s/beast", base);
    CHECK(mkdir(creature_folder, 0777) == 0 && synth_write_creature(creature_folder, error, sizeof error));
    snprintf(arguments, sizeof arguments,
             "new-character beast '%s/creature.md5mesh' '%s/creature_idle.md5anim' --out '%s/beast_config' --borrow mannequin",
             creature_folder, creature_folder, base);
    run = run_tool(arguments);
    CHECK(run.status == 1);
    CHECK_STR_CONTAINS(run.output, "cannot borrow [mannequin]'s clips: no hips found");
    CHECK(strchr(run.output, '\n') == strrchr(run.output, '\n'));
    snprintf(path, sizeof path, "%s/beast_config", base);
    struct stat none;
    CHECK(stat(path, &none) != 0);
    free(run.output);
    /* Borrowing (the default): the library plays, its own two clips kept for states a user adds. */
    snprintf(arguments, sizeof arguments, "new-character hero '%s' '%s/still.md5anim' '%s/Bob.md5anim' --out '%s/none'",
             MANNEQUIN, base, base, base);
    run = run_tool(arguments);
    CHECK(run.status == 0);
    CHECK_STR_CONTAINS(run.output, "borrowed: [mannequin]'s 19 clips");
    free(run.output);
    static const struct {
        const char *options, *said;
    } refused[] = {
        {"--role missing.md5anim=walk", "--role names 'missing.md5anim', which is none of the ANIM files given"},
        {"--role strange.md5anim=fly", "--role takes FILE=ROLE"},
        {"--role walk", "--role takes FILE=ROLE"},
        {"--up +Q", "--up takes +X -X +Y -Y +Z -Z, not '+Q'"},
        {"--up +Z --forward -Z", "--forward must be perpendicular to --up"},
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; ++i) {
        snprintf(arguments, sizeof arguments, "new-character hero '%s' '%s' %s --out '%s/refused'", MANNEQUIN, odd,
                 refused[i].options, base);
        run = run_tool(arguments);
        CHECK(run.status == 2);
        CHECK_STR_CONTAINS(run.output, refused[i].said);
        free(run.output);
    }
    struct stat info;
    snprintf(path, sizeof path, "%s/refused", base);
    CHECK(stat(path, &info) != 0);
}

/* A long, low, six-legged creature (md5tool synth --creature: Z up, 2.5 long along Y, 0.6 high, claws named
 * neither foot nor ankle) stands on its feet: up from where its leaf joints lie (the bottom of Z), not from
 * its box's longer extent (Y, which stood such a creature on its side), and forward from its head (+Y). */
static void test_creature_stands_on_its_feet(void)
{
    char dir[700], command[2200], path[800];
    snprintf(dir, sizeof dir, "%s/creature", folder);
    snprintf(command, sizeof command, "'%s' synth '%s' --creature > /dev/null", MARIONETTE_MD5TOOL, dir);
    CHECK(system(command) == 0);
    snprintf(command, sizeof command, "new-character crawler '%s/creature.md5mesh' '%s/creature_idle.md5anim' --out '%s/config'",
             dir, dir, dir);
    tool_run run = run_tool(command);
    CHECK(run.status == 0);
    free(run.output);
    snprintf(path, sizeof path, "%s/config/characters.ini", dir);
    char *characters = test_read_file(path, NULL);
    CHECK_STR_CONTAINS(characters, "which lie at one end of its Z extent\nup = +Z\n");
    CHECK_STR_CONTAINS(characters, "; guess: the head is ahead of the root along +Y (no toes tell)\nforward = +Y\n");
    /* Two legs locked and placed, the other four said plainly. */
    CHECK_STR_CONTAINS(characters, "legs = thigh0 shin0 claw0 thigh1 shin1 claw1\nfoot_ik = true\n");
    CHECK_STR_CONTAINS(characters, "; not handled: 4 more legs ending at claw2, claw3, claw4, claw5");
    free(characters);
    snprintf(path, sizeof path, "%s/config", dir);
    cache *cache = cache_create();
    anim_config *config = load_written_config(path, cache);
    const anim_character *crawler = config ? anim_config_find_character(config, "crawler") : NULL;
    CHECK(crawler && crawler->axes.from[2] == 2 && crawler->axes.sign[2] > 0 && crawler->axes.from[0] == 1);
    anim_config_free(config);
    cache_destroy(cache);
}

/* A biped whose feet hang from IK targets under the root (md5tool synth --ik-feet, as boneman is rigged):
 * the legs written are thigh, shin and the foot on its target, not the lever and target above the foot (the
 * name rule's parent and grandparent), with the foot lock and foot IK on; the engine loads them as legs whose
 * foot is detached, with the shin's end from the bind pose (where the foot sits, 0.42 below the knee). */
static void test_feet_on_ik_targets(void)
{
    char dir[700], command[2200], path[800];
    snprintf(dir, sizeof dir, "%s/ikfeet", folder);
    snprintf(command, sizeof command, "'%s' synth '%s' --ik-feet > /dev/null", MARIONETTE_MD5TOOL, dir);
    CHECK(system(command) == 0);
    snprintf(command, sizeof command, "new-character ikfeet '%s/ikbiped.md5mesh' '%s/ikbiped_idle.md5anim' --out '%s/config'",
             dir, dir, dir);
    tool_run run = run_tool(command);
    CHECK(run.status == 0);
    CHECK_STR_CONTAINS(run.output, "borrowed: [mannequin]");
    free(run.output);
    snprintf(path, sizeof path, "%s/config/characters.ini", dir);
    char *characters = test_read_file(path, NULL);
    CHECK_STR_CONTAINS(characters, "(the feet hang from IK targets: they are carried\n; with the lower legs when the legs bend)\n"
                                   "legs = Femur_L IKLeg_L Foot_L Femur_R IKLeg_R Foot_R\nfoot_ik = true\n");
    CHECK(characters && !strstr(characters, "foot_lock = false"));
    free(characters);
    snprintf(path, sizeof path, "%s/config", dir);
    cache *cache = cache_create();
    anim_config *config = load_written_config(path, cache);
    const anim_character *biped = config ? anim_config_find_character(config, "ikfeet") : NULL;
    CHECK(biped && biped->leg_count == 2 && biped->foot_lock.enabled);
    for (int f = 0; biped && f < biped->leg_count; ++f) {
        const skeleton *s = &biped->model->skeleton;
        const pose_ik_chain *leg = &biped->legs[f];
        CHECK(strncmp(s->names[leg->knee], "IKLeg_", 6) == 0 && strncmp(s->names[leg->ankle], "Foot_", 5) == 0);
        CHECK(biped->ik_legs[f].detached && biped->ik_legs[f].moved_count == 4); /* femur, shin, foot, toe */
        CHECK_NEAR(sqrtf(leg->end[0] * leg->end[0] + leg->end[1] * leg->end[1] + leg->end[2] * leg->end[2]), 0.4205, 1e-3);
    }
    anim_config_free(config);
    cache_destroy(cache);
}

/* Roles from motion where names say none: copies of our clips under names of no role: the walk (1.4 m/s
 * forward) and the run (3.5) take those roles from how they travel, the walk to the left is the strafe left,
 * and the strafe blend is written as ours; clips named forward, backward, left and right (a Sauerbraten
 * model's) walk and strafe by their names; a lone clip that walks is the walk and stands in for the idle. */
static void test_roles_from_motion(void)
{
    char base[600], command[6000], path[800], arguments[6000];
    snprintf(base, sizeof base, "%s/motion", folder);
    snprintf(command, sizeof command, "mkdir -p '%s' && cd '%s' && cp '%s' hero.md5mesh && cp '%sclips/idle.md5anim' stand.md5anim && "
             "cp '%sclips/walk.md5anim' moving.md5anim && cp '%sclips/run.md5anim' quick.md5anim && "
             "cp '%sclips/walk_left.md5anim' drift.md5anim && cp '%sclips/walk.md5anim' hero.md5anim",
             base, base, MANNEQUIN, ASSETS, ASSETS, ASSETS, ASSETS, ASSETS);
    CHECK(system(command) == 0);
    snprintf(arguments, sizeof arguments, "new-character hero '%s/hero.md5mesh' '%s/stand.md5anim' '%s/moving.md5anim' "
             "'%s/quick.md5anim' '%s/drift.md5anim' --out '%s/all'", base, base, base, base, base, base);
    tool_run run = run_tool(arguments);
    CHECK(run.status == 0);
    free(run.output);
    snprintf(path, sizeof path, "%s/all/clips.ini", base);
    char *clips = test_read_file(path, NULL);
    CHECK_STR_CONTAINS(clips, "; guess: walk, from its motion (its name says no role): 1.4 m/s forward\n[moving]");
    CHECK_STR_CONTAINS(clips, "; guess: run, from its motion (its name says no role): 3.5 m/s forward\n[quick]");
    CHECK_STR_CONTAINS(clips, "; guess: strafe_left, from its motion (its name says no role): 1.4 m/s left\n[drift]");
    free(clips);
    /* The strafe blend, as ours: the idle at the centre, the walk and run ahead, the strafe to the left. */
    snprintf(path, sizeof path, "%s/all/states.ini", base);
    char *states = test_read_file(path, NULL);
    CHECK_STR_CONTAINS(states, "strafe = bool false");
    CHECK_STR_CONTAINS(states, "[blend strafe]\nparameters = forward left\nclip.stand = 0 0\nclip.moving = 1.4 0\n"
                               "clip.quick = 3.5 0\nclip.drift = 0 1.4\n");
    CHECK_STR_CONTAINS(states, "[walk -> strafe]\nwhen = strafe");
    free(states);
    /* Two idles: the one named for the role plays, and the other's note says so (it said "came first in name
     * order", which chainsaw_idle did). */
    snprintf(command, sizeof command, "cd '%s' && cp stand.md5anim chainsaw_idle.md5anim && cp stand.md5anim idle.md5anim",
             base);
    CHECK(system(command) == 0);
    snprintf(arguments, sizeof arguments, "new-character hero '%s/hero.md5mesh' '%s/chainsaw_idle.md5anim' '%s/idle.md5anim' "
             "--out '%s/idles'", base, base, base, base);
    run = run_tool(arguments);
    CHECK(run.status == 0);
    free(run.output);
    snprintf(path, sizeof path, "%s/idles/clips.ini", base);
    clips = test_read_file(path, NULL);
    /* The comment is wrapped at spaces where the path falls: joined back into one line. */
    for (char *wrap = clips ? strstr(clips, "\n; ") : NULL; wrap; wrap = strstr(wrap, "\n; "))
        memmove(wrap, wrap + 2, strlen(wrap + 2) + 1), *wrap = ' ';
    CHECK_STR_CONTAINS(clips, "Left out: its name says idle, but ");
    CHECK_STR_CONTAINS(clips, "is named for the role. To use this one instead");
    CHECK(strstr(clips, "came first in name order") == NULL);
    free(clips);
    /* Named so (a Sauerbraten model's forward, backward, left and right). */
    snprintf(command, sizeof command, "cd '%s' && cp '%sclips/walk.md5anim' snout_forward.md5anim && "
             "cp '%sclips/walk_back.md5anim' snout_backward.md5anim && cp '%sclips/walk_left.md5anim' snout_left.md5anim && "
             "cp '%sclips/walk_right.md5anim' snout_right.md5anim", base, ASSETS, ASSETS, ASSETS, ASSETS);
    CHECK(system(command) == 0);
    snprintf(arguments, sizeof arguments, "new-character hero '%s/hero.md5mesh' '%s/stand.md5anim' '%s/snout_forward.md5anim' "
             "'%s/snout_backward.md5anim' '%s/snout_left.md5anim' '%s/snout_right.md5anim' --out '%s/named'",
             base, base, base, base, base, base, base);
    run = run_tool(arguments);
    CHECK(run.status == 0);
    free(run.output);
    snprintf(path, sizeof path, "%s/named/states.ini", base);
    states = test_read_file(path, NULL);
    CHECK_STR_CONTAINS(states, "clip.snout_forward = 1.4 0\nclip.snout_backward = -1.4 0\nclip.snout_left = 0 1.4\n"
                               "clip.snout_right = 0 -1.4\n");
    free(states);
    cache *cache = cache_create();
    static const char *const written[] = {"all", "named"};
    for (int w = 0; w < 2; ++w) {
        snprintf(path, sizeof path, "%s/%s", base, written[w]);
        anim_config *config = load_written_config(path, cache);
        const anim_character *hero = config ? anim_config_find_character(config, "hero") : NULL;
        CHECK(hero && state_machine_find_parameter(&hero->machine, "strafe") >= 0 &&
              anim_config_find_blend(hero, "strafe") >= 0);
        anim_config_free(config);
    }
    anim_config *config = NULL;

    snprintf(arguments, sizeof arguments, "new-character hero '%s/hero.md5mesh' '%s/hero.md5anim' --out '%s/lone'", base,
             base, base);
    run = run_tool(arguments);
    CHECK(run.status == 0);
    free(run.output);
    snprintf(path, sizeof path, "%s/lone/clips.ini", base);
    clips = test_read_file(path, NULL);
    CHECK_STR_CONTAINS(clips, "; guess: walk, from its motion (its name says no role): 1.4 m/s forward; no idle clip: it "
                              "also stands in for idle\n[hero]");
    free(clips);
    snprintf(path, sizeof path, "%s/lone", base);
    config = load_written_config(path, cache);
    CHECK(config != NULL);
    anim_config_free(config);
    cache_destroy(cache);
}

static void test_help_and_bad_arguments(void)
{
    tool_run run = run_tool("new-character --help");
    CHECK(run.status == 0);
    CHECK_STR_CONTAINS(run.output, "usage: md5tool new-character NAME MESH ANIM... --out DIR");
    CHECK_STR_CONTAINS(run.output, "run, sprint, jog -> run");
    free(run.output);
    static const struct {
        const char *arguments, *message;
    } cases[] = {
        {"new-character", "needs NAME MESH ANIM... --out DIR"},
        {"new-character hero " MANNEQUIN " " ASSETS "clips/idle.md5anim", "needs --out DIR"},
        {"new-character hero " MANNEQUIN " --out x", "needs NAME MESH ANIM"},
        {"new-character 'bad name' " MANNEQUIN " " ASSETS "clips/idle.md5anim --out x", "NAME must be 1 to 63"},
        {"new-character hero " ASSETS "clips/idle.md5anim " ASSETS "clips/idle.md5anim --out x", "MESH must be an .md5mesh"},
        {"new-character hero " MANNEQUIN " " MANNEQUIN " --out x", "every ANIM must be an .md5anim"},
        {"new-character hero " MANNEQUIN " " ASSETS "clips/idle.md5anim --out", "--out needs a folder"},
        {"new-character hero " MANNEQUIN " " ASSETS "clips/idle.md5anim --out x --scale 2", "unknown option '--scale'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        run = run_tool(cases[i].arguments);
        CHECK(run.status == 2);
        CHECK_STR_CONTAINS(run.output, cases[i].message);
        free(run.output);
    }
    /* A mesh that cannot be read: exit 1 with file:line, nothing written. */
    char dir[700], arguments[1500];
    snprintf(dir, sizeof dir, "%s/no_mesh", folder);
    snprintf(arguments, sizeof arguments, "new-character hero '%s/missing.md5mesh' '%sclips/idle.md5anim' --out '%s'",
             folder, ASSETS, dir);
    run = run_tool(arguments);
    CHECK(run.status == 1);
    CHECK_STR_CONTAINS(run.output, "missing.md5mesh: cannot open");
    free(run.output);
    struct stat info;
    CHECK(stat(dir, &info) != 0);
}

/* ---- boneman (MARIONETTE_REAL_MD5) ---- */

static char *ini_after(char *text, const char *header)
{
    char *at = text ? strstr(text, header) : NULL;
    return at ? at + strlen(header) : NULL;
}

static void test_boneman_starter_config(void)
{
    char dir[700], command[3000], output[800];
    snprintf(dir, sizeof dir, "%s/boneman", folder);
    snprintf(output, sizeof output, "%s/output.txt", folder);
    snprintf(command, sizeof command, "'%s' new-character boneman '%s'boneman.md5mesh '%s'*.md5anim --out '%s' > '%s' 2>&1",
             MARIONETTE_MD5TOOL, BONEMAN, BONEMAN, dir, output);
    int status = system(command);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    char *summary = test_read_file(output, NULL);
    printf("%s", summary ? summary : "");
    CHECK_STR_CONTAINS(summary, "along +Z, facing +X (toes ahead of ankles)");
    CHECK_STR_CONTAINS(summary, "feet: RightFoot and LeftFoot");
    CHECK_STR_CONTAINS(summary, "  attack       overlay");
    CHECK_STR_CONTAINS(summary, "  dead         dead");
    CHECK_STR_CONTAINS(summary, "  dying        death      plays once");
    CHECK_STR_CONTAINS(summary, "  idle         idle       loops");
    CHECK_STR_CONTAINS(summary, "  pain         pain       plays once");
    CHECK_STR_CONTAINS(summary, "  running      run        loops, ");
    CHECK_STR_CONTAINS(summary, "(the planted foot's backward slide)");
    free(summary);

    char path[800];
    snprintf(path, sizeof path, "%s/clips.ini", dir);
    char *clips = test_read_file(path, NULL);
    /* The run's planted foot slides back about 3.9 units/s (measured by hand from md5tool pose: the left
     * toe goes from x 0.97 to -2.17 in 20 frames at 24 fps, 3.8 units/s). */
    char *running = ini_after(clips, "\n[running]\n");
    char *speed = running ? strstr(running, "\nspeed = ") : NULL;
    CHECK(speed != NULL);
    if (speed)
        CHECK_NEAR(atof(speed + 9), 3.9, 0.3);
    char *dying = ini_after(clips, "\n[dying]\n");
    CHECK(dying && strstr(dying, "loop = false") && strstr(dying, "loop = false") < strstr(dying, "\n["));
    free(clips);
    snprintf(path, sizeof path, "%s/states.ini", dir);
    char *states = test_read_file(path, NULL);
    CHECK_STR_CONTAINS(states, "\n[state idle_gesture]\nclip = idle\noverlay = attack\noverlay_root = UpperSpine\n");
    CHECK_STR_CONTAINS(states, "\n[run -> death]\nwhen = die\n");
    CHECK_STR_CONTAINS(states, "\n[death -> dead]\nwhen = end\n");
    CHECK_STR_CONTAINS(states, "\n[run -> pain]\nwhen = hit\n");
    free(states);

    /* Through the engine, as the demo loads it: exactly as written, 1.8 m tall. */
    snprintf(path, sizeof path, "%s/characters.ini", dir);
    cache *cache = cache_create();
    diag_list errors = {0};
    anim_config *config = anim_config_load(path, cache, &errors);
    test_print_diags(&errors);
    CHECK(config != NULL);
    const anim_character *boneman = config ? anim_config_find_character(config, "boneman") : NULL;
    CHECK(errors.count == 0);
    CHECK(boneman && boneman->machine.state_count == 7); /* idle, run, 2 overlay, pain, death, dead */
    if (boneman)
        CHECK_NEAR(boneman->height_m, 1.8, 1e-3);
    /* Its feet found by name (anim_feet.h), and the run's contacts stored at load: each foot planted for a
     * part of the cycle, as a run plants it. */
    CHECK(boneman && boneman->leg_count == 2);
    if (boneman && boneman->leg_count == 2) {
        const skeleton *s = &boneman->model->skeleton;
        CHECK(strcmp(s->names[boneman->legs[0].ankle], "LeftFoot") == 0);
        CHECK(strcmp(s->names[boneman->legs[1].ankle], "RightFoot") == 0);
        /* The legs from its shape: thigh and shin, the foot on its IK target (not the lever and target the
         * foot hangs from, which the name rule's parent and grandparent were). */
        CHECK(strcmp(s->names[boneman->legs[0].knee], "IKLeftLeg") == 0 &&
              strcmp(s->names[boneman->legs[0].hip], "LeftFemur") == 0 && boneman->ik_legs[0].detached);
        int running = anim_config_find_clip(boneman, "running");
        const anim_clip *run = running >= 0 ? &boneman->clips[running] : NULL;
        CHECK(run && run->planted);
        for (int foot = 0; run && run->planted && foot < 2; ++foot) {
            int planted = 0, frames = run->clip->frame_count;
            for (int f = 0; f < frames; ++f)
                planted += run->planted[foot * frames + f];
            printf("  running: %s planted %d of %d frames\n", s->names[boneman->legs[foot].ankle], planted, frames);
            CHECK(planted >= 2 && planted <= frames / 2);
        }
    }
    diag_list_free(&errors);
    anim_config_free(config);
    cache_destroy(cache);
}

int main(int argc, char **argv)
{
    test_part part;
    int skip = test_data_start(argc, argv, &part);
    if (skip)
        return skip;
    if (!test_make_temp_folder(folder, sizeof folder, part == TEST_PART_BONEMAN ? "new_character_boneman" : "new_character")) {
        fprintf(stderr, "cannot make a temporary folder\n");
        return 1;
    }
    if (part == TEST_PART_OWN) {
        RUN(test_roles_from_file_names);
        RUN(test_body_axes_feet_and_scale);
        RUN(test_speeds_from_feet_and_root);
        RUN(test_overlay_root_of_the_wave);
        RUN(test_written_files_for_the_mannequin_load);
        RUN(test_help_and_bad_arguments);
        RUN(test_paths_with_special_characters);
        RUN(test_given_roles_and_axes);
        RUN(test_turns_and_jumps_from_motion);
        RUN(test_legs_from_shape);
        RUN(test_creature_stands_on_its_feet);
        RUN(test_feet_on_ik_targets);
        RUN(test_roles_from_motion);
    }
    if (part == TEST_PART_BONEMAN)
        RUN(test_boneman_starter_config);
    return check_report();
}
