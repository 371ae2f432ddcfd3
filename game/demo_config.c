/* demo_config: see demo_config.h. The keys are one table (section, key, kind, where the value goes and its
 * range), so reading, range checks and "known keys" messages are written once for all of them. */
#include "demo_config.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/config_values.h"
#include "base/ini_document.h"
#include "base/decimal.h"
#include "base/file.h"

demo_config demo_config_defaults(void)
{
    return (demo_config){
        .player = {.character = "mannequin", .walk_speed = 1.4f, .run_speed = 3.5f},
        .crowd = {.count = 100,
                  .spacing = 1.6f,
                  .body_count = 2,
                  .bodies = {{"mannequin", 1.0f}, {"robot", 1.0f}},
                  .wander_radius = 6.0f,
                  .wave_chance = 0.3f,
                  .celebrate_chance = 0.1f,
                  .run_chance = 0.3f,
                  .max = 20000,
                  .seed = 1,
                  .lod = true,
                  .lod_near_pixels = 90.0f,
                  .lod_far_pixels = 36.0f,
                  .lod_hysteresis = 0.15f},
        .camera = {.distance = 6.0f, .pitch = 20.0f, .yaw = 0.0f},
        .world = {.ground = GROUND_FLAT, .slope_degrees = 20.0f},
        .window = {.width = 1280, .height = 720, .vsync = true},
        .render = {.levels_of_detail = true, .lod_error_pixels = 0.5f, .stand_ins = true, .stand_in_pixels = 48.0f},
        .look = {.player = true, .crowd_distance = 5.0f},
    };
}

/* Problems are counted even when errors is NULL: any problem means the load fails. */
typedef config_errors demo_config_reader;

/* ---------------------------------------------------------------------------------------------------- */
/* The keys                                                                                              */

typedef enum demo_config_kind {
    DEMO_CONFIG_NUMBER,  /* float in [minimum, maximum] */
    DEMO_CONFIG_INTEGER, /* int in [minimum, maximum] */
    DEMO_CONFIG_BOOL,
    DEMO_CONFIG_SEED,    /* uint64_t, any whole number >= 0 */
    DEMO_CONFIG_NAME,    /* char[DEMO_CONFIG_NAME_MAX], a character name */
    DEMO_CONFIG_MIX,     /* the crowd's bodies and their count */
    DEMO_CONFIG_GROUND,  /* ground_kind: flat, hills or steps */
} demo_config_kind;

typedef struct demo_config_key {
    const char *section;
    const char *key;
    demo_config_kind kind;
    size_t offset; /* of the value in demo_config */
    double minimum, maximum;
} demo_config_key;

#define DEMO_CONFIG_AT(field) offsetof(demo_config, field)

static const demo_config_key demo_config_keys[] = {
    {"player", "character", DEMO_CONFIG_NAME, DEMO_CONFIG_AT(player.character), 0, 0},
    {"player", "walk_speed", DEMO_CONFIG_NUMBER, DEMO_CONFIG_AT(player.walk_speed), 0.1, 20},
    {"player", "run_speed", DEMO_CONFIG_NUMBER, DEMO_CONFIG_AT(player.run_speed), 0.1, 20},
    {"crowd", "count", DEMO_CONFIG_INTEGER, DEMO_CONFIG_AT(crowd.count), 1, 100000},
    {"crowd", "spacing", DEMO_CONFIG_NUMBER, DEMO_CONFIG_AT(crowd.spacing), 0.5, 100},
    {"crowd", "mix", DEMO_CONFIG_MIX, DEMO_CONFIG_AT(crowd.body_count), 0, 1000000},
    {"crowd", "wander_radius", DEMO_CONFIG_NUMBER, DEMO_CONFIG_AT(crowd.wander_radius), 0, 1000},
    {"crowd", "wave_chance", DEMO_CONFIG_NUMBER, DEMO_CONFIG_AT(crowd.wave_chance), 0, 1},
    {"crowd", "celebrate_chance", DEMO_CONFIG_NUMBER, DEMO_CONFIG_AT(crowd.celebrate_chance), 0, 1},
    {"crowd", "run_chance", DEMO_CONFIG_NUMBER, DEMO_CONFIG_AT(crowd.run_chance), 0, 1},
    {"crowd", "max", DEMO_CONFIG_INTEGER, DEMO_CONFIG_AT(crowd.max), 1, 100000},
    {"crowd", "seed", DEMO_CONFIG_SEED, DEMO_CONFIG_AT(crowd.seed), 0, 0},
    {"crowd", "lod", DEMO_CONFIG_BOOL, DEMO_CONFIG_AT(crowd.lod), 0, 0},
    {"crowd", "lod_near_pixels", DEMO_CONFIG_NUMBER, DEMO_CONFIG_AT(crowd.lod_near_pixels), 1, 10000},
    {"crowd", "lod_far_pixels", DEMO_CONFIG_NUMBER, DEMO_CONFIG_AT(crowd.lod_far_pixels), 0, 10000},
    {"crowd", "lod_hysteresis", DEMO_CONFIG_NUMBER, DEMO_CONFIG_AT(crowd.lod_hysteresis), 0, 0.5},
    {"camera", "distance", DEMO_CONFIG_NUMBER, DEMO_CONFIG_AT(camera.distance), 0.5, 1000},
    {"camera", "pitch", DEMO_CONFIG_NUMBER, DEMO_CONFIG_AT(camera.pitch), -89, 89},
    {"camera", "yaw", DEMO_CONFIG_NUMBER, DEMO_CONFIG_AT(camera.yaw), -360, 360},
    {"world", "ground", DEMO_CONFIG_GROUND, DEMO_CONFIG_AT(world.ground), 0, 0},
    {"world", "slope_degrees", DEMO_CONFIG_NUMBER, DEMO_CONFIG_AT(world.slope_degrees), 0, 45},
    {"window", "width", DEMO_CONFIG_INTEGER, DEMO_CONFIG_AT(window.width), 64, 16384},
    {"window", "height", DEMO_CONFIG_INTEGER, DEMO_CONFIG_AT(window.height), 64, 16384},
    {"window", "vsync", DEMO_CONFIG_BOOL, DEMO_CONFIG_AT(window.vsync), 0, 0},
    {"render", "levels_of_detail", DEMO_CONFIG_BOOL, DEMO_CONFIG_AT(render.levels_of_detail), 0, 0},
    {"render", "lod_error_pixels", DEMO_CONFIG_NUMBER, DEMO_CONFIG_AT(render.lod_error_pixels), 0.1, 100},
    {"render", "stand_ins", DEMO_CONFIG_BOOL, DEMO_CONFIG_AT(render.stand_ins), 0, 0},
    {"render", "stand_in_pixels", DEMO_CONFIG_NUMBER, DEMO_CONFIG_AT(render.stand_in_pixels), 1, 10000},
    {"render", "skin_once", DEMO_CONFIG_BOOL, DEMO_CONFIG_AT(render.skin_once), 0, 0},
    {"render", "light_spin", DEMO_CONFIG_NUMBER, DEMO_CONFIG_AT(render.light_spin), 0, 360},
    {"look", "player", DEMO_CONFIG_BOOL, DEMO_CONFIG_AT(look.player), 0, 0},
    {"look", "crowd_distance", DEMO_CONFIG_NUMBER, DEMO_CONFIG_AT(look.crowd_distance), 0, 100},
};
enum { DEMO_CONFIG_KEY_COUNT = (int)(sizeof demo_config_keys / sizeof demo_config_keys[0]) };

static const char *const demo_config_sections[] = {"player", "crowd", "camera", "world", "window", "render", "look",
                                                   NULL};

/* The known keys of a section, NULL-terminated in known (DEMO_CONFIG_KEY_COUNT + 1), for an unknown key's message. */
static const char *const *demo_config_known_keys(const char *section, const char *known[])
{
    int count = 0;
    for (int k = 0; k < DEMO_CONFIG_KEY_COUNT; ++k)
        if (strcmp(demo_config_keys[k].section, section) == 0)
            known[count++] = demo_config_keys[k].key;
    known[count] = NULL;
    return known;
}

/* ---------------------------------------------------------------------------------------------------- */
/* Values                                                                                                */

/* Names as characters.ini allows them: letters, digits, '_', '.', '-'. */
static bool demo_config_valid_name(const char *name, size_t length)
{
    return config_valid_name(name, length, DEMO_CONFIG_NAME_MAX);
}

/* "mannequin 1, robot 1": up to DEMO_CONFIG_BODIES_MAX distinct names, each with a weight >= 0, not all 0. */
static void demo_config_read_mix(demo_config_reader *reader, const ini_entry *entry, demo_config *config)
{
    int count = 0;
    demo_config_body bodies[DEMO_CONFIG_BODIES_MAX];
    memset(bodies, 0, sizeof bodies);
    double total = 0.0;
    int errors_before = reader->count;
    const char *cursor = entry->value;
    if (cursor[0] == '\0') {
        config_error(reader, entry->line, "'mix' is empty: write 'NAME WEIGHT, NAME WEIGHT', e.g. "
                                          "'mannequin 1, robot 1'");
        return;
    }
    for (;;) {
        const char *comma = strchr(cursor, ',');
        size_t item_length = comma ? (size_t)(comma - cursor) : strlen(cursor);
        char item[256];
        snprintf(item, sizeof item, "%.*s", (int)(item_length < sizeof item ? item_length : sizeof item - 1), cursor);
        char *text = ini_trim(item);
        size_t name_length = strcspn(text, " \t");
        char *weight_text = ini_trim(text + name_length);
        double weight = 0.0;
        if (text[0] == '\0') {
            config_error(reader, entry->line, "'mix' has an empty entry: entries are 'NAME WEIGHT' separated "
                                              "by commas");
        } else if (!demo_config_valid_name(text, name_length)) {
            config_error(reader, entry->line, "'mix': character name '%.*s' must be 1 to %d letters, digits, "
                         "'_', '.' or '-'", (int)name_length, text, DEMO_CONFIG_NAME_MAX - 1);
        } else if (weight_text[0] == '\0') {
            config_error(reader, entry->line, "'mix': '%.*s' needs a weight ('%.*s 1')", (int)name_length, text,
                         (int)name_length, text);
        } else if (!decimal_read(weight_text, &weight)) {
            config_error(reader, entry->line, "'mix': the weight of '%.*s' must be a number, not '%s'",
                         (int)name_length, text, weight_text);
        } else if (weight < 0.0 || weight > 1e6) {
            config_error(reader, entry->line, "'mix': the weight of '%.*s' must be between 0 and 1e+06, not %s",
                         (int)name_length, text, weight_text);
        } else if (count == DEMO_CONFIG_BODIES_MAX) {
            config_error(reader, entry->line, "'mix' names more than %d characters", DEMO_CONFIG_BODIES_MAX);
            return;
        } else {
            bool duplicate = false;
            for (int b = 0; b < count; ++b)
                duplicate = duplicate || (strlen(bodies[b].character) == name_length &&
                                          strncmp(bodies[b].character, text, name_length) == 0);
            if (duplicate) {
                config_error(reader, entry->line, "'mix' names '%.*s' twice", (int)name_length, text);
            } else {
                snprintf(bodies[count].character, sizeof bodies[count].character, "%.*s", (int)name_length, text);
                bodies[count].weight = (float)weight;
                total += weight;
                count++;
            }
        }
        if (!comma)
            break;
        cursor = comma + 1;
    }
    if (reader->count != errors_before)
        return;
    if (!(total > 0.0)) {
        config_error(reader, entry->line, "'mix' weights must not all be 0");
        return;
    }
    config->crowd.body_count = count;
    config->crowd.mix_line = entry->line;
    memcpy(config->crowd.bodies, bodies, sizeof bodies);
}

static void demo_config_read_value(demo_config_reader *reader, const demo_config_key *spec, const ini_entry *entry,
                                   demo_config *config)
{
    char *field = (char *)config + spec->offset;
    config_reporter reporter = config_errors_reporter(reader);
    config_range range = {spec->minimum, spec->maximum, CONFIG_RANGE_BETWEEN};
    switch (spec->kind) {
    case DEMO_CONFIG_NUMBER:
        config_parse_number(reporter, reader->path, entry, range, (float *)(void *)field);
        break;
    case DEMO_CONFIG_INTEGER:
        config_parse_integer(reporter, reader->path, entry, range, (int *)(void *)field);
        break;
    case DEMO_CONFIG_BOOL:
        config_parse_bool(reporter, reader->path, entry, (bool *)(void *)field);
        break;
    case DEMO_CONFIG_SEED: {
        char *end = NULL;
        errno = 0;
        unsigned long long seed = strtoull(entry->value, &end, 10);
        if (entry->value[0] < '0' || entry->value[0] > '9' || *end != '\0' || errno == ERANGE)
            config_error(reader, entry->line, "'%s' must be a whole number from 0 to %llu, not '%s'", spec->key,
                         (unsigned long long)UINT64_MAX, entry->value);
        else
            *(uint64_t *)(void *)field = (uint64_t)seed;
        break;
    }
    case DEMO_CONFIG_NAME:
        if (demo_config_valid_name(entry->value, strlen(entry->value))) {
            snprintf(field, DEMO_CONFIG_NAME_MAX, "%s", entry->value);
            /* The one name key is the player's: its line is kept for "no such character" at load. */
            config->player.character_line = entry->line;
        } else
            config_error(reader, entry->line, "'%s': character name '%s' must be 1 to %d letters, digits, "
                         "'_', '.' or '-'", spec->key, entry->value, DEMO_CONFIG_NAME_MAX - 1);
        break;
    case DEMO_CONFIG_MIX:
        demo_config_read_mix(reader, entry, config);
        break;
    case DEMO_CONFIG_GROUND: {
        ground_kind kind = ground_kind_from_name(entry->value);
        if (kind < GROUND_KIND_COUNT)
            *(ground_kind *)(void *)field = kind;
        else
            config_error(reader, entry->line, "'%s' must be flat, slope, hills or steps, not '%s'", spec->key,
                         entry->value);
        break;
    }
    }
}

/* ---------------------------------------------------------------------------------------------------- */
/* The file                                                                                              */

static const ini_entry *demo_config_entry(const ini_document *document, const char *section, const char *key)
{
    for (int s = 0; s < document->section_count; ++s)
        if (strcmp(document->sections[s].name, section) == 0)
            return ini_find_entry(&document->sections[s], key);
    return NULL;
}

static void demo_config_read_document(demo_config_reader *reader, const ini_document *document, demo_config *config)
{
    for (int s = 0; s < document->section_count; ++s) {
        const ini_section *section = &document->sections[s];
        if (!config_check_section(config_errors_reporter(reader), reader->path, section, demo_config_sections))
            continue;
        for (int e = 0; e < section->entry_count; ++e) {
            const ini_entry *entry = &section->entries[e];
            const demo_config_key *spec = NULL;
            for (int k = 0; k < DEMO_CONFIG_KEY_COUNT && !spec; ++k)
                if (strcmp(demo_config_keys[k].section, section->name) == 0 &&
                    strcmp(demo_config_keys[k].key, entry->key) == 0)
                    spec = &demo_config_keys[k];
            if (spec) {
                demo_config_read_value(reader, spec, entry, config);
            } else {
                const char *known[DEMO_CONFIG_KEY_COUNT + 1];
                config_report_unknown_key(config_errors_reporter(reader), reader->path, section, entry,
                                          demo_config_known_keys(section->name, known));
            }
        }
    }

    /* Limits between keys, reported at the line of the key written in the file (the second one when both are). */
    if (config->player.run_speed < config->player.walk_speed) {
        const ini_entry *run = demo_config_entry(document, "player", "run_speed");
        const ini_entry *walk = demo_config_entry(document, "player", "walk_speed");
        config_error(reader, run ? run->line : walk ? walk->line : 0,
                     "'run_speed' (%g) must be at least 'walk_speed' (%g)", (double)config->player.run_speed,
                     (double)config->player.walk_speed);
    }
    if (config->crowd.lod_far_pixels > config->crowd.lod_near_pixels) {
        const ini_entry *far = demo_config_entry(document, "crowd", "lod_far_pixels");
        const ini_entry *near = demo_config_entry(document, "crowd", "lod_near_pixels");
        config_error(reader, far ? far->line : near ? near->line : 0,
                     "'lod_far_pixels' (%g) must not be more than 'lod_near_pixels' (%g)",
                     (double)config->crowd.lod_far_pixels, (double)config->crowd.lod_near_pixels);
    }
    if (config->crowd.count > config->crowd.max) {
        const ini_entry *count = demo_config_entry(document, "crowd", "count");
        const ini_entry *max = demo_config_entry(document, "crowd", "max");
        config_error(reader, count ? count->line : max ? max->line : 0,
                     "'count' (%d) must not be more than 'max' (%d)", config->crowd.count, config->crowd.max);
    }
}

bool demo_config_load(const char *path, demo_config *out, diag_list *errors)
{
    demo_config_reader reader = {.path = path ? path : "(no path)", .list = errors};
    if (!path || !out) {
        config_error(&reader, 0, "no %s given", path ? "place for the settings" : "settings file");
        return false;
    }
    char *text = NULL;
    size_t size = 0;
    diag error;
    if (!file_read_all(path, INI_MAX_FILE_BYTES, &text, &size, &error)) {
        config_error(&reader, 0, "cannot read the demo settings: %s", error.message);
        return false;
    }
    ini_document document;
    ini_document_parse(&document, path, text, size, config_errors_reporter(&reader));
    free(text);
    /* Keys left out of the file take their defaults, not the last load's values: deleting a line undoes it. */
    demo_config config = demo_config_defaults();
    demo_config_read_document(&reader, &document, &config);
    ini_document_free(&document);
    if (reader.count > 0)
        return false;
    *out = config;
    return true;
}
