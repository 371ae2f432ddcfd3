/* controls: see controls.h. */
#include "controls.h"

#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/config_values.h"
#include "base/ini_document.h"
#include "base/file.h"

static const controls_action_row action_infos[GAME_ACTION_COUNT] = {
    [GAME_ACTION_MOVE_FORWARD] = {"move_forward", "Forward", {"W", "Up"}},
    [GAME_ACTION_MOVE_BACK] = {"move_back", "Back", {"S", "Down"}},
    [GAME_ACTION_MOVE_LEFT] = {"move_left", "Left", {"A", "Left"}},
    [GAME_ACTION_MOVE_RIGHT] = {"move_right", "Right", {"D", "Right"}},
    [GAME_ACTION_RUN] = {"run", "Run", {"Left Shift", "Right Shift"}},
    [GAME_ACTION_STRAFE] = {"strafe", "Strafe", {"Left Ctrl", "Right Ctrl"}},
    [GAME_ACTION_JUMP] = {"jump", "Jump", {"Space"}},
    [GAME_ACTION_WAVE] = {"wave", "Wave", {"E"}},
    [GAME_ACTION_HIT] = {"hit", "Hit", {"H"}},
    [GAME_ACTION_DIE] = {"die", "Die", {"K"}},
    [GAME_ACTION_ORBIT_LEFT] = {"orbit_left", "Orbit left", {"Q"}},
    [GAME_ACTION_ORBIT_RIGHT] = {"orbit_right", "Orbit right", {"R"}},
    [GAME_ACTION_HELP] = {"help", "Help", {"F1"}},
    [GAME_ACTION_SKELETON] = {"skeleton", "Skeleton", {"F2"}},
    [GAME_ACTION_BOUNDS] = {"bounds", "Bounds", {"F3"}},
    [GAME_ACTION_NORMALS] = {"normals", "Normals", {"F4"}},
    [GAME_ACTION_TANGENTS] = {"tangents", "Tangent frames", {"N"}},
    [GAME_ACTION_MAPS] = {"maps", "Normal/specular maps", {"M"}},
    [GAME_ACTION_LEVELS] = {"levels", "Level colours", {"F7"}},
    [GAME_ACTION_LOOK_AT] = {"look_at", "Look-at view", {"T"}},
    [GAME_ACTION_FOOT_IK] = {"foot_ik", "Foot IK view", {"I"}},
    [GAME_ACTION_STATE_MACHINE] = {"state_machine", "State machine", {"F6"}},
    [GAME_ACTION_SKINNING] = {"skinning", "GPU/CPU skinning", {"G"}},
    [GAME_ACTION_SKIN_BLEND] = {"skin_blend", "Linear/dual-quaternion skinning", {"B"}},
    [GAME_ACTION_PAUSE] = {"pause", "Pause", {"P"}},
    [GAME_ACTION_STEP] = {"step", "Step", {"."}},
    [GAME_ACTION_SLOWER] = {"slower", "Slower", {"["}},
    [GAME_ACTION_FASTER] = {"faster", "Faster", {"]"}},
    [GAME_ACTION_RELOAD] = {"reload", "Reload config", {"F5"}},
    [GAME_ACTION_CROWD_SPAWN] = {"crowd_spawn", "Add crowd", {"C"}},
    [GAME_ACTION_CROWD_CLEAR] = {"crowd_clear", "Clear crowd", {"X"}},
    [GAME_ACTION_GROUND] = {"ground", "Ground: flat/hills/steps", {"U"}},
    [GAME_ACTION_SCREENSHOT] = {"screenshot", "Screenshot", {"F12"}},
    [GAME_ACTION_RECORD] = {"record", "Record the player (.md5anim)", {"F9"}},
    [GAME_ACTION_QUIT] = {"quit", "Quit", {"Escape"}},
};

const char *game_action_name(game_action action)
{
    if ((int)action < 0 || action >= GAME_ACTION_COUNT)
        return "unknown";
    return action_infos[action].name;
}

game_action game_action_from_name(const char *name)
{
    for (int a = 0; a < GAME_ACTION_COUNT; ++a)
        if (strcmp(action_infos[a].name, name) == 0)
            return (game_action)a;
    return GAME_ACTION_COUNT;
}

const controls_action_row *controls_action(const controls *c, int action)
{
    if (!c || action < 0 || action >= c->action_count)
        return NULL;
    return action < GAME_ACTION_COUNT ? &action_infos[action] : &c->extra[action - GAME_ACTION_COUNT];
}

int controls_action_from_name(const controls *c, const char *name)
{
    for (int a = 0; c && name && a < c->action_count; ++a)
        if (strcmp(controls_action(c, a)->name, name) == 0)
            return a;
    return -1;
}

/* ---------------------------------------------------------------------------------------------------- */
/* Key names                                                                                             */

/* Keys whose platform name is a character the files use as a separator or a comment. */
static const struct {
    const char *name;
    platform_key key;
} key_aliases[] = {{"Comma", PLATFORM_KEY_COMMA}, {"Semicolon", PLATFORM_KEY_SEMICOLON},
                   {"Hash", PLATFORM_KEY_HASH}};

int controls_name_odd_byte(const char *name)
{
    for (int i = 0; name && name[i]; ++i)
        if ((unsigned char)name[i] < 0x20 || (unsigned char)name[i] > 0x7e)
            return i;
    return -1;
}

const char *controls_name_printable(const char *name, char *out, size_t size)
{
    size_t used = 0;
    if (size == 0)
        return out;
    for (const unsigned char *c = (const unsigned char *)(name ? name : ""); *c && used + 1 < size; ++c) {
        if (*c >= 0x20 && *c <= 0x7e) {
            out[used++] = (char)*c;
        } else {
            if (used + 5 > size)
                break;
            snprintf(out + used, size - used, "\\x%02X", *c);
            used += 4;
        }
    }
    out[used] = '\0';
    return out;
}

platform_key controls_key_from_name(const char *name)
{
    if (!name || !name[0] || controls_name_odd_byte(name) >= 0)
        return PLATFORM_KEY_UNKNOWN;
    for (size_t i = 0; i < sizeof key_aliases / sizeof key_aliases[0]; ++i)
        if (strcasecmp(name, key_aliases[i].name) == 0)
            return key_aliases[i].key;
    return platform_key_from_name(name);
}

void controls_key_name(platform_key key, char *out, size_t size)
{
    if (size == 0)
        return;
    for (size_t i = 0; i < sizeof key_aliases / sizeof key_aliases[0]; ++i) {
        if (key == key_aliases[i].key) {
            snprintf(out, size, "%s", key_aliases[i].name);
            return;
        }
    }
    const char *name = platform_key_name(key);
    snprintf(out, size, "%s", name[0] ? name : "?");
}

/* ---------------------------------------------------------------------------------------------------- */
/* Defaults and lookup                                                                                   */

bool controls_init(controls *c, const controls_action_row *extra, int extra_count)
{
    *c = (controls){
        .orbit_degrees_per_pixel = 0.3f,
        .zoom_per_wheel_step = 0.5f,
        .invert_y = false,
        .orbit_keys_degrees_per_second = 90.0f,
    };
    if (extra_count < 0 || (extra_count > 0 && !extra) || extra_count > INT_MAX - GAME_ACTION_COUNT)
        return false;
    int count = GAME_ACTION_COUNT + extra_count;
    c->extra = extra;
    c->action_count = count;
    for (int a = GAME_ACTION_COUNT; a < count; ++a) {
        const char *name = extra[a - GAME_ACTION_COUNT].name;
        if (!name || !name[0] || controls_action_from_name(c, name) != a) {
            *c = (controls){0};
            return false;
        }
    }
    c->bindings = calloc((size_t)count, sizeof *c->bindings);
    if (!c->bindings) {
        *c = (controls){0};
        return false;
    }
    for (int a = 0; a < count; ++a) {
        const controls_action_row *row = controls_action(c, a);
        controls_binding *binding = &c->bindings[a];
        for (int k = 0; k < CONTROLS_KEYS_PER_ACTION && row->keys[k]; ++k) {
            platform_key key = controls_key_from_name(row->keys[k]);
            int taken[1];
            /* A key drives one action: an extra row's default that another action has already is refused. */
            if (key == PLATFORM_KEY_UNKNOWN || controls_actions_for_key(c, key, taken, 1) > 0) {
                controls_free(c);
                return false;
            }
            binding->keys[binding->key_count++] = key;
        }
    }
    return true;
}

controls controls_defaults(void)
{
    controls c;
    controls_init(&c, NULL, 0);
    return c;
}

void controls_free(controls *c)
{
    if (!c)
        return;
    free(c->bindings);
    *c = (controls){0};
}

bool controls_copy(controls *to, const controls *from)
{
    controls_free(to);
    controls copy = *from;
    copy.bindings = calloc(from->action_count > 0 ? (size_t)from->action_count : 1, sizeof *copy.bindings);
    if (!copy.bindings)
        return false;
    if (from->action_count > 0)
        memcpy(copy.bindings, from->bindings, (size_t)from->action_count * sizeof *copy.bindings);
    *to = copy;
    return true;
}

int controls_actions_for_key(const controls *c, platform_key key, int *actions, int max)
{
    int found = 0;
    if (key == PLATFORM_KEY_UNKNOWN || !c || !c->bindings)
        return 0;
    for (int a = 0; a < c->action_count && found < max; ++a) {
        const controls_binding *binding = &c->bindings[a];
        for (int k = 0; k < binding->key_count && k < CONTROLS_KEYS_PER_ACTION; ++k) {
            if (binding->keys[k] == key) {
                actions[found++] = a;
                break;
            }
        }
    }
    return found;
}

/* ---------------------------------------------------------------------------------------------------- */
/* Loading                                                                                               */

typedef config_errors controls_loader;

/* config_error under the name the key readers below use. */
static void controls_report(controls_loader *loader, int line, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

static void controls_report(controls_loader *loader, int line, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    config_vreport(config_errors_reporter(loader), loader->path, line, format, args);
    va_end(args);
}

/* "W, Up" into the action's keys; reports at entry's line. An action written `none` has no keys. */
static void controls_read_keys(controls_loader *loader, const ini_entry *entry, int action, controls *c)
{
    const char *name = controls_action(c, action)->name;
    if (strcasecmp(entry->value, "none") == 0) {
        c->bindings[action].key_count = 0;
        return;
    }
    if (entry->value[0] == '\0') {
        controls_report(loader, entry->line, "%s has no keys; write 'none' to leave it unbound", name);
        return;
    }
    int count = 0, listed = 0;
    platform_key keys[CONTROLS_KEYS_PER_ACTION];
    const char *cursor = entry->value;
    for (;;) {
        const char *comma = strchr(cursor, ',');
        size_t length = comma ? (size_t)(comma - cursor) : strlen(cursor);
        char key_name[CONTROLS_KEY_NAME_MAX];
        snprintf(key_name, sizeof key_name, "%.*s", (int)(length < sizeof key_name ? length : sizeof key_name - 1),
                 cursor);
        char *trimmed = ini_trim(key_name);
        char printable[4 * CONTROLS_KEY_NAME_MAX];
        ++listed;
        platform_key key = controls_key_from_name(trimmed);
        if (trimmed[0] == '\0')
            controls_report(loader, entry->line, "%s: a key name is missing between commas (the comma key is "
                            "written Comma)", name);
        else if (controls_name_odd_byte(trimmed) >= 0)
            controls_report(loader, entry->line, "%s: key name '%s' has a control character or non-ASCII text "
                            "(byte %d); key names are SDL's English names such as W, Up, Left Shift", name,
                            controls_name_printable(trimmed, printable, sizeof printable),
                            controls_name_odd_byte(trimmed) + 1);
        else if (key == PLATFORM_KEY_UNKNOWN || length >= sizeof key_name)
            controls_report(loader, entry->line, "%s: unknown key name '%s' (SDL key names such as W, Up, "
                            "Left Shift, Space, F1, Escape, [; see the top of controls.ini)", name, trimmed);
        else {
            bool repeated = false;
            for (int k = 0; k < count; ++k)
                repeated = repeated || keys[k] == key;
            if (repeated)
                controls_report(loader, entry->line, "%s lists '%s' twice", name, trimmed);
            else if (count < CONTROLS_KEYS_PER_ACTION)
                keys[count++] = key;
        }
        if (!comma)
            break;
        cursor = comma + 1;
    }
    if (listed > CONTROLS_KEYS_PER_ACTION)
        controls_report(loader, entry->line, "%s has %d keys; at most %d are allowed", name, listed,
                        CONTROLS_KEYS_PER_ACTION);
    c->bindings[action].key_count = count;
    memcpy(c->bindings[action].keys, keys, (size_t)count * sizeof keys[0]);
}

static void controls_read_keys_section(controls_loader *loader, const ini_section *section, controls *c,
                                       int *action_lines)
{
    for (int e = 0; e < section->entry_count; ++e) {
        const ini_entry *entry = &section->entries[e];
        int action = controls_action_from_name(c, entry->key);
        if (action < 0) {
            char printable[DIAG_MESSAGE_MAX / 2];
            controls_report(loader, entry->line, "unknown action '%s' in [keys] (the actions are listed at the "
                            "top of controls.ini)", controls_name_printable(entry->key, printable, sizeof printable));
            continue;
        }
        action_lines[action] = entry->line;
        controls_read_keys(loader, entry, action, c);
    }
}

/* [mouse]'s numbers and their ranges (controls.ini's header says them too): beyond these a drag or a wheel
 * step would turn the camera by thousands of turns or move it kilometres. */
static const struct {
    const char *key;
    size_t offset; /* of the float in controls */
    float minimum, maximum;
} controls_mouse_numbers[] = {
    {"orbit_degrees_per_pixel", offsetof(controls, orbit_degrees_per_pixel), 0.001f, 10.0f},
    {"zoom_per_wheel_step", offsetof(controls, zoom_per_wheel_step), 0.01f, 100.0f},
    {"orbit_keys_degrees_per_second", offsetof(controls, orbit_keys_degrees_per_second), 1.0f, 3600.0f},
};

static void controls_read_mouse_section(controls_loader *loader, const ini_section *section, controls *c)
{
    for (int e = 0; e < section->entry_count; ++e) {
        const ini_entry *entry = &section->entries[e];
        bool known = false;
        for (size_t n = 0; n < sizeof controls_mouse_numbers / sizeof controls_mouse_numbers[0]; ++n) {
            if (strcmp(entry->key, controls_mouse_numbers[n].key) != 0)
                continue;
            known = true;
            config_range range = {controls_mouse_numbers[n].minimum, controls_mouse_numbers[n].maximum,
                                  CONFIG_RANGE_FROM};
            config_parse_number(config_errors_reporter(loader), loader->path, entry, range,
                                (float *)(void *)((char *)c + controls_mouse_numbers[n].offset));
        }
        if (known)
            continue;
        if (strcmp(entry->key, "invert_y") == 0) {
            config_parse_bool(config_errors_reporter(loader), loader->path, entry, &c->invert_y);
        } else {
            static const char *const known[] = {"orbit_degrees_per_pixel", "zoom_per_wheel_step", "invert_y",
                                                 "orbit_keys_degrees_per_second", NULL};
            char printable[DIAG_MESSAGE_MAX / 2];
            controls_name_printable(entry->key, printable, sizeof printable);
            ini_entry shown = *entry; /* the key as the message may print it */
            shown.key = printable;
            config_report_unknown_key(config_errors_reporter(loader), loader->path, section, &shown, known);
        }
    }
}

/* One key may drive one action: report every key bound twice, at the line that bound it second (an action
 * the file leaves out has its default, line 0). */
static void controls_check_conflicts(controls_loader *loader, const controls *c, const int *action_lines)
{
    for (int a = 0; a < c->action_count; ++a) {
        for (int b = a + 1; b < c->action_count; ++b) {
            const controls_binding *binding_a = &c->bindings[a], *binding_b = &c->bindings[b];
            for (int ka = 0; ka < binding_a->key_count; ++ka) {
                for (int kb = 0; kb < binding_b->key_count; ++kb) {
                    if (binding_a->keys[ka] != binding_b->keys[kb])
                        continue;
                    int first = action_lines[a] <= action_lines[b] ? a : b;
                    int second = first == a ? b : a;
                    char key_name[CONTROLS_KEY_NAME_MAX];
                    controls_key_name(binding_a->keys[ka], key_name, sizeof key_name);
                    const char *first_name = controls_action(c, first)->name;
                    const char *second_name = controls_action(c, second)->name;
                    if (action_lines[first] > 0)
                        controls_report(loader, action_lines[second], "'%s' is bound to both %s (line %d) and %s",
                                        key_name, first_name, action_lines[first], second_name);
                    else
                        controls_report(loader, action_lines[second], "'%s' is bound to both %s (its default: "
                                        "the file does not set it) and %s", key_name, first_name, second_name);
                }
            }
        }
    }
}

static const char *const controls_sections[] = {"keys", "mouse", NULL};

bool controls_load(const char *path, controls *out, diag_list *errors)
{
    controls_loader loader = {.path = path ? path : "", .list = errors};
    char *text = NULL;
    size_t size = 0;
    diag error;
    if (!path || !out) {
        diag_list_add(errors, loader.path, 0, "controls_load needs a path and somewhere to put the controls");
        return false;
    }
    if (!file_read_all(path, INI_MAX_FILE_BYTES, &text, &size, &error)) {
        diag_list_add(errors, error.file, error.line, "%s", error.message);
        return false;
    }
    ini_document document;
    ini_document_parse(&document, path, text, size, config_errors_reporter(&loader));
    free(text);

    /* Built apart from out, which changes only when the whole file is good. */
    controls loaded;
    int *action_lines = NULL;
    if (!controls_init(&loaded, out->extra, out->action_count > GAME_ACTION_COUNT ? out->action_count - GAME_ACTION_COUNT
                                                                                 : 0) ||
        !(action_lines = calloc((size_t)loaded.action_count, sizeof *action_lines))) {
        controls_free(&loaded);
        diag_list_add(errors, loader.path, 0, "out of memory reading the controls");
        free(text);
        return false;
    }
    for (int s = 0; s < document.section_count; ++s) {
        const ini_section *section = &document.sections[s];
        if (strcmp(section->name, "keys") == 0)
            controls_read_keys_section(&loader, section, &loaded, action_lines);
        else if (strcmp(section->name, "mouse") == 0)
            controls_read_mouse_section(&loader, section, &loaded);
        else
            config_check_section(config_errors_reporter(&loader), loader.path, section, controls_sections);
    }
    controls_check_conflicts(&loader, &loaded, action_lines);
    ini_document_free(&document);
    free(action_lines);
    if (loader.count > 0) {
        controls_free(&loaded);
        return false;
    }
    controls_free(out);
    *out = loaded;
    return true;
}

/* ---------------------------------------------------------------------------------------------------- */
/* Help text                                                                                             */

typedef struct help_writer {
    char *buffer;
    size_t size, used;
    size_t line_length; /* characters on the current line */
} help_writer;

static void help_append(help_writer *writer, const char *text, size_t length)
{
    if (writer->size == 0)
        return;
    size_t room = writer->size - 1 - writer->used;
    if (length > room)
        length = room;
    memcpy(writer->buffer + writer->used, text, length);
    writer->used += length;
    writer->buffer[writer->used] = '\0';
}

/* Add one item ("Jump: Space"), on the current line after two spaces if it fits, else on a new line; an
 * item longer than a line is cut to fit. */
static void help_add_item(help_writer *writer, const char *item)
{
    size_t length = strlen(item);
    if (length > CONTROLS_HELP_LINE_MAX)
        length = CONTROLS_HELP_LINE_MAX;
    if (writer->line_length > 0 && writer->line_length + 2 + length <= CONTROLS_HELP_LINE_MAX) {
        help_append(writer, "  ", 2);
        writer->line_length += 2;
    } else if (writer->line_length > 0) {
        help_append(writer, "\n", 1);
        writer->line_length = 0;
    }
    help_append(writer, item, length);
    writer->line_length += length;
}

/* The action's keys joined by '/', or "-" when it has none. */
static void help_keys(const controls *c, int action, char *out, size_t size)
{
    size_t used = 0;
    out[0] = '\0';
    const controls_binding *binding = &c->bindings[action];
    for (int k = 0; k < binding->key_count && k < CONTROLS_KEYS_PER_ACTION; ++k) {
        char name[CONTROLS_KEY_NAME_MAX];
        controls_key_name(binding->keys[k], name, sizeof name);
        int written = snprintf(out + used, size - used, "%s%s", k ? "/" : "", name);
        if (written < 0 || used + (size_t)written >= size)
            break;
        used += (size_t)written;
    }
    if (used == 0)
        snprintf(out, size, "-");
}

/* "Label: keys, keys" for a group of actions shown as one item, then " or extra"; a group with no keys
 * bound shows only the extra (or nothing). */
static void help_add_group(help_writer *writer, const controls *c, const char *label, const game_action *actions,
                           int count, const char *extra)
{
    bool any = false;
    for (int i = 0; i < count; ++i)
        any = any || c->bindings[actions[i]].key_count > 0;
    if (!any && !extra)
        return;
    char item[4 * CONTROLS_HELP_LINE_MAX];
    size_t used = (size_t)snprintf(item, sizeof item, "%s:", label);
    for (int i = 0; any && i < count; ++i) {
        char keys[CONTROLS_HELP_LINE_MAX * 2];
        help_keys(c, actions[i], keys, sizeof keys);
        int written = snprintf(item + used, sizeof item - used, "%s%s", i ? ", " : " ", keys);
        if (written < 0 || used + (size_t)written >= sizeof item)
            break;
        used += (size_t)written;
    }
    if (extra && used < sizeof item)
        snprintf(item + used, sizeof item - used, "%s%s", any ? " or " : " ", extra);
    help_add_item(writer, item);
}

void controls_help_text(const controls *c, char *buffer, size_t size)
{
    if (!buffer || size == 0)
        return;
    buffer[0] = '\0';
    if (!c || !c->bindings || c->action_count < GAME_ACTION_COUNT)
        return;
    help_writer writer = {.buffer = buffer, .size = size};
    static const game_action moves[] = {GAME_ACTION_MOVE_FORWARD, GAME_ACTION_MOVE_LEFT, GAME_ACTION_MOVE_BACK,
                                        GAME_ACTION_MOVE_RIGHT};
    static const game_action orbits[] = {GAME_ACTION_ORBIT_LEFT, GAME_ACTION_ORBIT_RIGHT};
    help_add_group(&writer, c, "Move", moves, 4, NULL);
    for (int a = GAME_ACTION_RUN; a < c->action_count; ++a) {
        if (a == GAME_ACTION_ORBIT_LEFT) {
            help_add_group(&writer, c, "Orbit", orbits, 2, "drag");
            help_add_item(&writer, "Zoom: wheel");
            continue;
        }
        if (a == GAME_ACTION_ORBIT_RIGHT || c->bindings[a].key_count == 0)
            continue;
        char keys[CONTROLS_HELP_LINE_MAX * 2], item[CONTROLS_HELP_LINE_MAX * 3];
        help_keys(c, a, keys, sizeof keys);
        const controls_action_row *row = controls_action(c, a);
        snprintf(item, sizeof item, "%s: %s", row->help ? row->help : row->name, keys);
        help_add_item(&writer, item);
    }
}

/* ---------------------------------------------------------------------------------------------------- */
/* Input state                                                                                           */

bool game_input_init(game_input *input, int action_count)
{
    *input = (game_input){0};
    size_t count = action_count > 0 ? (size_t)action_count : 1;
    int *counts = calloc(3 * count, sizeof *counts);
    if (!counts || action_count < 0) {
        free(counts);
        return false;
    }
    input->action_count = action_count;
    input->held = counts;
    input->pressed = counts + count;
    input->released = counts + 2 * count;
    return true;
}

void game_input_free(game_input *input)
{
    if (!input)
        return;
    free(input->held); /* the three counts are one block */
    *input = (game_input){0};
}

static void game_input_release_action(game_input *input, int action)
{
    if (action < 0 || action >= input->action_count || input->held[action] <= 0)
        return;
    if (--input->held[action] == 0 && input->released[action] < INT_MAX)
        ++input->released[action];
}

void game_input_key(game_input *input, const controls *c, platform_key key, bool down)
{
    int slot = -1;
    for (int i = 0; i < input->key_down_count; ++i)
        if (input->keys_down[i].key == key)
            slot = i;
    if (!down) {
        if (slot < 0)
            return;
        game_input_release_action(input, input->keys_down[slot].action);
        input->keys_down[slot] = input->keys_down[--input->key_down_count];
        return;
    }
    if (slot >= 0 || input->key_down_count == GAME_INPUT_KEYS_DOWN_MAX)
        return; /* a repeat, or more keys than any keyboard reports at once */
    int action;
    if (controls_actions_for_key(c, key, &action, 1) == 0 || action >= input->action_count)
        return;
    if (input->held[action]++ == 0 && input->pressed[action] < INT_MAX)
        ++input->pressed[action];
    input->keys_down[input->key_down_count++] = (game_input_key_down){.key = key, .action = action};
}

void game_input_release_all(game_input *input)
{
    for (int i = 0; i < input->key_down_count; ++i)
        game_input_release_action(input, input->keys_down[i].action);
    input->key_down_count = 0;
}

void game_input_end_step(game_input *input)
{
    if (input->action_count > 0) {
        memset(input->pressed, 0, (size_t)input->action_count * sizeof *input->pressed);
        memset(input->released, 0, (size_t)input->action_count * sizeof *input->released);
    }
    input->wheel_steps = 0.0f;
    input->drag_x = input->drag_y = 0.0f;
    input->clicked = false;
}
