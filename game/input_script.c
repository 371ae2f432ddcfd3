/* input_script: see input_script.h. */
#include "input_script.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/config_report.h"
#include "base/decimal.h"
#include "base/ini_document.h"
#include "base/file.h"
#include "base/text_line.h"
#include "controls.h"

/* Step times are sums or products of a step size that does not divide a second exactly (1/60, 1/144):
 * an event at 0.5 s must come at the 60 Hz step whose time is 0.5 give or take rounding, or a replay at one
 * rate would differ from another by a step. A microsecond is far below any step and far above rounding. */
static const double input_script_time_tolerance = 1e-6;

/* Wheel steps, drag and click pixels are stored as floats: a number past float's range would arrive as infinity
 * (the camera ignores it, so a script would silently do nothing). A million is more than any mouse gives. */
static const double input_script_motion_limit = 1e6;

typedef struct input_script_entry {
    input_script_event event; /* a tap is stored as its KEY_DOWN */
    bool tap;
    double delivered_at; /* a tap: the poll time that delivered its press */
} input_script_entry;

struct input_script {
    int count;
    input_script_entry *entries;
    int next;         /* first entry not yet delivered */
    int release_scan; /* entries before it have had their tap releases delivered */
    double duration;
};

/* ---------------------------------------------------------------------------------------------------- */
/* Loading                                                                                               */

typedef struct held_key {
    platform_key key;
    int line;
} held_key;

typedef struct script_loader {
    config_errors errors; /* counted: any error fails the load (warnings go to errors.list uncounted) */
    held_key *held; /* keys pressed and not yet released, for the warnings */
    int held_count;
} script_loader;

static bool is_blank(char c)
{
    return c == ' ' || c == '\t';
}

/* Cut the line at a comment: '#' or ';' at its start or after a blank, so "press ;" is a comment (the key
 * is written Semicolon) but a name containing those characters elsewhere is not cut. */
static void strip_comment(char *line)
{
    for (char *c = line; *c; ++c) {
        if ((*c == '#' || *c == ';') && (c == line || is_blank(c[-1]))) {
            *c = '\0';
            return;
        }
    }
}

/* The next blank-separated word of *cursor (NUL-terminated in place), or NULL at the end. */
static char *next_word(char **cursor)
{
    char *start = *cursor;
    while (is_blank(*start))
        ++start;
    if (*start == '\0')
        return NULL;
    char *end = start;
    while (*end && !is_blank(*end))
        ++end;
    if (*end)
        *end++ = '\0';
    *cursor = end;
    return start;
}

/* wheel's, drag's or click's numbers: exactly count of them in arguments, each from low to the motion
 * limit. */
static bool parse_numbers(script_loader *loader, int line, const char *verb, char *arguments, int count,
                          double *values, const char *what, double low)
{
    char *words[3];
    int found = 0;
    char *cursor = arguments, *word;
    while (found < 3 && (word = next_word(&cursor)))
        words[found++] = word;
    if (found < count) {
        config_error(&loader->errors, line, "%s needs %s", verb, what);
        return false;
    }
    if (found > count) {
        config_error(&loader->errors, line, "%s takes %s; '%s' is one argument too many", verb, what, words[count]);
        return false;
    }
    for (int i = 0; i < count; ++i) {
        if (!decimal_read(words[i], &values[i])) {
            config_error(&loader->errors, line, "%s: '%s' is not a number", verb, words[i]);
            return false;
        }
        if (values[i] < low || values[i] > input_script_motion_limit) {
            config_error(&loader->errors, line, "%s: %s is out of range (%g to %g)", verb, words[i], low,
                         input_script_motion_limit);
            return false;
        }
    }
    return true;
}

static int find_held(const script_loader *loader, platform_key key)
{
    for (int i = 0; i < loader->held_count; ++i)
        if (loader->held[i].key == key)
            return i;
    return -1;
}

/* Warn about key verbs that do nothing or undo a press, as a player's keyboard would act on them. */
static void track_held_keys(script_loader *loader, int line, const char *verb, const char *name, platform_key key)
{
    int held = find_held(loader, key);
    if (strcmp(verb, "press") == 0) {
        if (held >= 0)
            diag_list_add(loader->errors.list, loader->errors.path, line,
                          "warning: %s is already pressed (line %d); this press does nothing", name,
                          loader->held[held].line);
        else
            loader->held[loader->held_count++] = (held_key){key, line};
        return;
    }
    if (held < 0 && strcmp(verb, "release") == 0)
        diag_list_add(loader->errors.list, loader->errors.path, line, "warning: release of %s, which is not pressed",
                      name);
    if (held >= 0 && strcmp(verb, "tap") == 0)
        diag_list_add(loader->errors.list, loader->errors.path, line,
                      "warning: tap of %s while it is pressed (line %d); its release ends that press", name,
                      loader->held[held].line);
    if (held >= 0)
        loader->held[held] = loader->held[--loader->held_count];
}

/* One line without its comment; adds at most one entry. */
static void parse_line(script_loader *loader, int line, char *text, double *previous_time, int *previous_line,
                       input_script *script)
{
    char *cursor = text;
    char *time_word = next_word(&cursor);
    if (!time_word)
        return;
    double time;
    if (!decimal_read(time_word, &time) || time < 0.0 || time > INPUT_SCRIPT_TIME_MAX) {
        config_error(&loader->errors, line, "bad time '%s': seconds of simulation time, a number from 0 to %g",
                     time_word, INPUT_SCRIPT_TIME_MAX);
        return;
    }
    if (time < *previous_time) {
        config_error(&loader->errors, line, "time %g goes backwards: the event at line %d is at %g", time,
                     *previous_line, *previous_time);
        return;
    }
    char *verb = next_word(&cursor);
    if (!verb) {
        config_error(&loader->errors, line, "missing verb after the time (press, release, tap, wheel, drag or click)");
        return;
    }
    char *arguments = ini_trim(cursor);
    input_script_entry entry = {.event = {.time = time, .line = line}};
    if (strcmp(verb, "press") == 0 || strcmp(verb, "release") == 0 || strcmp(verb, "tap") == 0) {
        if (arguments[0] == '\0') {
            config_error(&loader->errors, line, "%s needs a key name", verb);
            return;
        }
        platform_key key = controls_key_from_name(arguments);
        if (key == PLATFORM_KEY_UNKNOWN) {
            char printable[DIAG_MESSAGE_MAX / 2];
            config_error(&loader->errors, line,
                         "unknown key name '%s' (SDL key names in printable ASCII, as in controls.ini)",
                         controls_name_printable(arguments, printable, sizeof printable));
            return;
        }
        track_held_keys(loader, line, verb, arguments, key);
        entry.event.kind = verb[0] == 'r' ? INPUT_SCRIPT_KEY_UP : INPUT_SCRIPT_KEY_DOWN;
        entry.event.key = key;
        entry.tap = verb[0] == 't';
    } else if (strcmp(verb, "wheel") == 0) {
        double steps;
        if (!parse_numbers(loader, line, verb, arguments, 1, &steps, "one number (steps)", -input_script_motion_limit))
            return;
        entry.event.kind = INPUT_SCRIPT_WHEEL;
        entry.event.wheel = (float)steps;
    } else if (strcmp(verb, "drag") == 0) {
        double pixels[2];
        if (!parse_numbers(loader, line, verb, arguments, 2, pixels, "two numbers (pixels x y)",
                           -input_script_motion_limit))
            return;
        entry.event.kind = INPUT_SCRIPT_DRAG;
        entry.event.drag_x = (float)pixels[0];
        entry.event.drag_y = (float)pixels[1];
    } else if (strcmp(verb, "click") == 0) {
        double pixel[2];
        if (!parse_numbers(loader, line, verb, arguments, 2, pixel, "two numbers (pixel x y)", 0.0))
            return;
        entry.event.kind = INPUT_SCRIPT_CLICK;
        entry.event.x = (float)pixel[0];
        entry.event.y = (float)pixel[1];
    } else {
        config_error(&loader->errors, line, "unknown verb '%s' (press, release, tap, wheel, drag or click)", verb);
        return;
    }
    *previous_time = time;
    *previous_line = line;
    script->entries[script->count++] = entry;
    script->duration = time;
}

input_script *input_script_load(const char *path, diag_list *errors)
{
    script_loader loader = {.errors = {.path = path ? path : "", .list = errors}};
    if (!path) {
        diag_list_add(errors, "", 0, "input_script_load needs a path");
        return NULL;
    }
    char *text = NULL;
    size_t size = 0;
    diag error;
    if (!file_read_all(path, INPUT_SCRIPT_MAX_FILE_BYTES, &text, &size, &error)) {
        diag_list_add(errors, error.file, error.line, "%s", error.message);
        return NULL;
    }
    /* Every line holds at most one event, so the line count bounds the entries and held keys. */
    size_t line_count = text_line_count(text, text + size);
    input_script *script = calloc(1, sizeof *script);
    if (script)
        script->entries = calloc(line_count, sizeof *script->entries);
    loader.held = calloc(line_count, sizeof *loader.held);
    if (!script || !script->entries || !loader.held) {
        diag_list_add(errors, path, 0, "out of memory");
        free(loader.held);
        input_script_free(script);
        free(text);
        return NULL;
    }
    double previous_time = 0.0;
    int previous_line = 0;
    char *cursor = text, *end = text + size;
    if (size >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0)
        cursor += 3; /* the byte order mark some Windows editors write first */
    for (int line = 1; cursor < end || line == 1; ++line) {
        const char *next = end;
        size_t length = cursor < end ? text_line(cursor, end, &next) : 0;
        if (memchr(cursor, '\0', length)) {
            config_error(&loader.errors, line, "line contains a NUL byte");
        } else {
            cursor[length] = '\0';
            strip_comment(cursor);
            parse_line(&loader, line, cursor, &previous_time, &previous_line, script);
        }
        cursor = (char *)next;
        if (cursor >= end)
            break;
    }
    free(loader.held);
    free(text);
    if (loader.errors.count > 0) {
        input_script_free(script);
        return NULL;
    }
    return script;
}

void input_script_free(input_script *script)
{
    if (!script)
        return;
    free(script->entries);
    free(script);
}

/* ---------------------------------------------------------------------------------------------------- */
/* Replay                                                                                                */

int input_script_poll(input_script *script, double simulation_time, input_script_event *out, int max)
{
    if (!script || !out || max <= 0)
        return 0;
    int count = 0;
    /* Releases of taps pressed at earlier steps come first: they belong to an earlier time than anything
     * due now. A tap pressed at this same time (a second poll for one step) waits for the next step. */
    int boundary = script->next;
    while (script->release_scan < boundary) {
        const input_script_entry *entry = &script->entries[script->release_scan];
        if (entry->tap) {
            if (!(entry->delivered_at < simulation_time))
                break;
            if (count == max)
                return count;
            out[count] = entry->event;
            out[count++].kind = INPUT_SCRIPT_KEY_UP;
        }
        script->release_scan++;
    }
    while (script->next < script->count &&
           script->entries[script->next].event.time <= simulation_time + input_script_time_tolerance) {
        if (count == max)
            return count;
        input_script_entry *entry = &script->entries[script->next++];
        entry->delivered_at = simulation_time;
        out[count++] = entry->event;
    }
    return count;
}

bool input_script_finished(const input_script *script)
{
    if (!script)
        return true;
    if (script->next < script->count)
        return false;
    for (int i = script->release_scan; i < script->count; ++i)
        if (script->entries[i].tap)
            return false; /* its release is still to come */
    return true;
}

double input_script_duration(const input_script *script)
{
    return script ? script->duration : 0.0;
}

int input_script_event_count(const input_script *script)
{
    return script ? script->count : 0;
}
