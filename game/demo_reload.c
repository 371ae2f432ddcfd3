/* demo_reload: the demo's configuration, loaded at the start and again whenever a file changes (or F5): a
 * file with errors keeps its last good version running; entities move over to a new config; what went wrong
 * goes to the HUD and stderr, by file and line. */
#include "demo_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "ground_mesh.h"

/* ---- Messages (HUD and stderr) ---------------------------------------------------------------------- */

void demo_set_status(demo *d, const char *format, ...)
{
    va_list arguments;
    va_start(arguments, format);
    vsnprintf(d->status, sizeof d->status, format, arguments);
    va_end(arguments);
    fprintf(stderr, "marionette: %s\n", d->status);
}

/* Every problem to stderr; the first few stay on the HUD until the next good (re)load. Both list them by
 * file and line, whichever file was read first and in how many passes. */
void demo_show_problems(demo *d, diag_list *problems)
{
    diag_list_sort(problems, 0);
    for (int i = 0; i < problems->count; ++i) {
        char line[DIAG_TEXT_MAX];
        diag_format(&problems->items[i], line, sizeof line);
        fprintf(stderr, "%s\n", line);
        if (d->message_count < DEMO_MESSAGE_LINES)
            snprintf(d->messages[d->message_count++], sizeof d->messages[0], "%s", line);
    }
    d->messages_total += problems->total;
}

void demo_clear_problems(demo *d)
{
    d->message_count = 0;
    d->messages_total = 0;
}

/* ---- Configuration ---------------------------------------------------------------------------------- */

/* [player] character names no character: say so at demo.ini's line, naming those there are; the first
 * plays instead. */
static void report_unknown_player(demo *d, diag_list *problems)
{
    const char *name = d->settings.player.character;
    int count = anim_config_character_count(d->config);
    if (count == 0 || anim_config_find_character(d->config, name))
        return;
    char known[DIAG_MESSAGE_MAX] = "";
    size_t used = 0;
    for (int i = 0; i < count && used < sizeof known; ++i) {
        int wrote = snprintf(known + used, sizeof known - used, "%s%s", i ? ", " : "",
                             anim_config_character(d->config, i)->name);
        used += wrote > 0 ? (size_t)wrote : 0;
    }
    diag_list_add(problems, d->settings_path, d->settings.player.character_line,
                  "warning: [player] character '%s' is not in characters.ini (it has %s): playing '%s'", name,
                  known, anim_config_character(d->config, 0)->name);
}

static const anim_character *player_character(demo *d)
{
    const anim_character *character = anim_config_find_character(d->config, d->settings.player.character);
    if (!character && anim_config_character_count(d->config) > 0)
        character = anim_config_character(d->config, 0);
    return character;
}

/* What demo.ini says about the player's motion. */
static player_params player_params_of(const demo_config *settings)
{
    player_params params = player_default_params();
    params.walk_speed = settings->player.walk_speed;
    params.run_speed = settings->player.run_speed;
    return params;
}

/* A player for the current config, standing where the old one stood. */
static void make_player(demo *d, diag_list *problems)
{
    const anim_character *character = player_character(d);
    if (!character) {
        diag_list_add(problems, d->characters_path, 0, "no character to play");
        return;
    }
    player_params params = player_params_of(&d->settings);
    vec3 position = {0};
    float heading = 0.0f;
    if (d->player) {
        player_position(d->player, position);
        heading = player_heading(d->player);
        player_destroy(d->player);
    }
    d->player = player_create(character, &params, problems);
    if (!d->player) {
        diag_list_add(problems, d->characters_path, 0, "character \"%s\" cannot be played (no state machine?)",
                      character->name);
        return;
    }
    player_set_ground(d->player, &d->ground);
    player_place(d->player, position[0], position[2], heading);
    /* A character with nothing that walks (no clip with a ground speed, none moving by its root) would
     * slide across the floor in its idle when moved: said on the HUD rather than left to surprise. */
    bool walks = false;
    for (int c = 0; c < character->clip_count && !walks; ++c)
        walks = character->clips[c].clip && !character->clips[c].additive &&
                (character->clips[c].ground_speed > 0.0f || character->clips[c].root_mode != ANIM_ROOT_IN_PLACE);
    if (!walks)
        diag_list_add(problems, d->characters_path, 0,
                      "warning: '%s' has no walk or run (no clip with a ground speed or root motion): moving it "
                      "slides it in place", character->name);
}

/* Everyone stands on `kind` from now on, and gfx draws it (its mesh made now, once). False, said on the
 * status line, when it cannot be drawn (no memory): it is walked on all the same. */
bool demo_set_ground(demo *d, ground_kind kind)
{
    d->ground = (ground){.kind = kind, .slope_degrees = d->settings.world.slope_degrees, .uphill = {1.0f, 0.0f}};
    bool drawn = ground_mesh_upload(&d->ground);
    if (!drawn)
        demo_set_status(d, "the %s ground cannot be drawn (%s): it is walked on, not shown", ground_kind_name(kind),
                   gfx_last_error());
    player_set_ground(d->player, &d->ground);
    crowd_set_ground(d->crowd, &d->ground);
    d->camera.ground = &d->ground;
    d->views.ground = &d->ground;
    return drawn;
}

/* Swap in a freshly loaded config: entities move over (keeping their state where it still exists), meshes
 * follow the models, the old config goes. */
static void adopt_config(demo *d, anim_config *config, diag_list *problems)
{
    anim_config *old = d->config;
    d->config = config;
    diag err = {0};
    if (!scene_sync(&d->scene, config, &err, problems)) {
        diag_list_add(problems, err.file, err.line, "%s", err.message);
    }
    if (d->player) {
        const anim_character *character = player_character(d);
        if (!character || strcmp(character->name, animator_character(player_animator(d->player))->name) != 0 ||
            !player_rebind(d->player, character, problems))
            make_player(d, problems);
    } else {
        make_player(d, problems);
    }
    int removed = crowd_rebind(d->crowd, config, problems);
    if (removed > 0)
        diag_list_add(problems, d->characters_path, 0, "%d crowd members lost their character and were removed",
                      removed);
    demo_find_tracked(d);
    anim_config_free(old);
}

/* Problems a step added: errors when the step was refused (its file's last good version keeps running),
 * warnings when it was adopted anyway (a missing texture, an implausible height). */
static void count_problems(const diag_list *problems, int total_before, bool adopted, int *errors, int *warnings)
{
    *(adopted ? warnings : errors) += problems->total - total_before;
}

/* Load everything at start, or reload what changed (force: everything, as F5 asks). A file with errors
 * keeps its last good version running; its problems and any warnings go to the HUD and stderr, and the
 * status line says which happened. */
void demo_load_configuration(demo *d, bool force)
{
    diag_list problems = {0};
    bool any = false, failed = false;
    bool check_player = false; /* demo.ini or characters.ini adopted: does the player's name still exist? */
    int errors = 0, warnings = 0, before;
    if (watch_set_due(&d->watched, DEMO_WATCH_CONTROLS, force)) {
        any = true;
        before = problems.total;
        bool adopted = controls_load(d->controls_path, &d->controls, &problems);
        failed |= !adopted;
        count_problems(&problems, before, adopted, &errors, &warnings);
    }
    if (watch_set_due(&d->watched, DEMO_WATCH_SETTINGS, force)) {
        any = true;
        before = problems.total;
        bool adopted = demo_config_load(d->settings_path, &d->settings, &problems);
        if (adopted) {
            /* The running player takes the new speeds now, not only when it is next re-created. */
            player_params params = player_params_of(&d->settings);
            if (d->player && !player_set_params(d->player, &params))
                diag_list_add(&problems, d->settings_path, 0, "the player cannot take these speeds");
            if (d->settings.world.ground != d->ground_setting ||
                (d->ground.kind == GROUND_SLOPE && d->ground.slope_degrees != d->settings.world.slope_degrees)) {
                d->ground_setting = d->settings.world.ground;
                demo_set_ground(d, d->ground_setting);
            }
            check_player = true;
        } else {
            failed = true;
        }
        count_problems(&problems, before, adopted, &errors, &warnings);
    }
    /* Without a good config there is nothing to ask reload_due: try again when characters.ini changes
     * (or on F5), not every poll, so a broken start says so once. */
    bool first_try = !d->config && watch_set_due(&d->watched, DEMO_WATCH_CHARACTERS, false);
    /* With nothing complete running yet (the start, or a start that had to leave things out), a load keeps
     * going past assets that fail: the rest plays, stand-ins fill in and the problems are shown. Once a
     * complete config runs, a reload with problems keeps it instead. */
    bool partial = !d->config || anim_config_stand_in_count(d->config) > 0;
    bool config_loaded_now = false;
    if (first_try || force || (d->config && anim_config_reload_due(d->config))) {
        any = true;
        config_loaded_now = true;
        before = problems.total;
        anim_config *config = !d->config ? anim_config_load_partial(d->characters_path, d->cache, &problems)
                              : partial  ? anim_config_reload_partial(d->config, &problems)
                                         : anim_config_reload(d->config, &problems);
        if (config) {
            /* Adopted: what the load and the swap (textures that failed, a player that cannot play) found
             * are warnings, unless the load had to put in stand-ins (below). */
            adopt_config(d, config, &problems);
            check_player = true;
        } else {
            failed = true;
        }
        count_problems(&problems, before, config != NULL, &errors, &warnings);
    }
    if (check_player && d->config) {
        before = problems.total;
        report_unknown_player(d, &problems);
        count_problems(&problems, before, true, &errors, &warnings);
    }
    if (any) {
        demo_clear_problems(d);
        demo_show_problems(d, &problems);
        int stand_ins = anim_config_stand_in_count(d->config);
        const char *verb = d->frame_count > 0 ? "reloaded" : "loaded";
        if ((failed || problems.total > 0) && !d->config)
            demo_set_status(d, "%d problem%s and no configuration has loaded yet: fix it and press F5", problems.total,
                       problems.total == 1 ? "" : "s");
        else if (!failed && stand_ins > 0 && config_loaded_now)
            demo_set_status(d, "%d problem%s: the rest runs, with stand-ins for what failed to load; fix and save (or "
                       "press F5)", problems.total, problems.total == 1 ? "" : "s");
        else if (!failed && stand_ins > 0 && problems.total == 0)
            /* Another file reloaded; the config's own problems still stand (F5 lists them again). */
            demo_set_status(d, "reloaded; %d stand-in%s still play for what failed to load (F5 lists them)", stand_ins,
                       stand_ins == 1 ? "" : "s");
        else if (errors > 0 && warnings > 0)
            demo_set_status(d, "refused: %d error%s, the last good configuration keeps running (and %d warning%s)",
                       errors, errors == 1 ? "" : "s", warnings, warnings == 1 ? "" : "s");
        else if (errors > 0)
            demo_set_status(d, "refused: %d error%s, the last good configuration keeps running", errors,
                       errors == 1 ? "" : "s");
        else if (warnings > 0)
            demo_set_status(d, "%s, with %d warning%s (each listed with its file:line)", verb, warnings, warnings == 1 ? "" : "s");
        else if (d->frame_count > 0)
            demo_set_status(d, "reloaded the configuration");
    }
    diag_list_free(&problems);
}
