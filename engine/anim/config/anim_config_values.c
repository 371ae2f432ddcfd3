#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "anim_config_internal.h"

/* ---------------------------------------------------------------------------------------------------- */
/* Reporting                                                                                             */

/* False when this load already reported the same problem (or there is no list to add to). */
static bool anim_config_add(anim_config_loader *loader, const char *file, int line, const char *message)
{
    if (!loader->errors)
        return false;
    /* Two characters sharing one clips.ini would otherwise report each of its mistakes twice. */
    diag probe;
    diag_set(&probe, file, line, "%s", message);
    for (int i = loader->errors_before; i < loader->errors->count; ++i) {
        const diag *seen = &loader->errors->items[i];
        if (seen->line == probe.line && strcmp(seen->file, probe.file) == 0 &&
            strcmp(seen->message, probe.message) == 0)
            return false;
    }
    return diag_list_add_copy(loader->errors, &probe);
}

void anim_config_report_message(void *context, const char *file, int line, const char *message)
{
    anim_config_loader *loader = context;
    loader->error_count++;
    anim_config_add(loader, file, line, message);
}

/* A problem as an error, or as a stand-in: counted once, like the report (two characters sharing a
 * clips.ini share its problems). */
static void anim_config_vreport(anim_config_loader *loader, bool stand_in, const char *file, int line,
                                const char *format, va_list args)
{
    char message[DIAG_MESSAGE_MAX];
    vsnprintf(message, sizeof message, format, args);
    if (!stand_in)
        anim_config_report_message(loader, file, line, message);
    else if (anim_config_add(loader, file, line, message) || !loader->errors)
        loader->stand_in_count++;
}

void anim_config_report(anim_config_loader *loader, const char *file, int line, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    anim_config_vreport(loader, false, file, line, format, args);
    va_end(args);
}

void anim_config_report_stand_in(anim_config_loader *loader, const char *file, int line, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    anim_config_vreport(loader, true, file, line, format, args);
    va_end(args);
}

void anim_config_warn(anim_config_loader *loader, const char *file, int line, const char *format, ...)
{
    static const char prefix[] = "warning: ";
    char message[DIAG_MESSAGE_MAX];
    memcpy(message, prefix, sizeof prefix);
    va_list args;
    va_start(args, format);
    vsnprintf(message + sizeof prefix - 1, sizeof message - (sizeof prefix - 1), format, args);
    va_end(args);
    if (anim_config_add(loader, file, line, message))
        loader->warning_count++;
}

/* "a, b, c" from the name fields of an array of structs (stride apart), cut to fit out. */
const char *anim_config_join_names(char *out, size_t size, const char *first_name, size_t stride, int count)
{
    out[0] = '\0';
    size_t used = 0;
    for (int i = 0; i < count && used + 1 < size; ++i) {
        int written = snprintf(out + used, size - used, "%s%s", i ? ", " : "", first_name + (size_t)i * stride);
        if (written < 0)
            break;
        used += (size_t)written;
    }
    if (count <= 0) /* in out too, for a caller that prints out: never an empty list */
        snprintf(out, size, "(none)");
    return out;
}

/* "texture.*" matches "texture.anything"; any other known key only itself. */
static bool anim_config_key_matches(const char *key, const char *known)
{
    size_t length = strlen(known);
    if (length >= 2 && strcmp(known + length - 2, ".*") == 0)
        return strncmp(key, known, length - 1) == 0;
    return strcmp(key, known) == 0;
}

/* known is NULL-terminated. */
void anim_config_check_keys(anim_config_loader *loader, const char *path, const ini_section *section,
                            const char *const *known)
{
    for (int e = 0; e < section->entry_count; ++e) {
        bool found = false;
        char list[DIAG_MESSAGE_MAX] = "";
        size_t used = 0;
        for (int k = 0; known[k]; ++k) {
            found = found || anim_config_key_matches(section->entries[e].key, known[k]);
            int written = snprintf(list + used, sizeof list - used, "%s%s", k ? ", " : "", known[k]);
            if (written > 0 && used + (size_t)written < sizeof list)
                used += (size_t)written;
        }
        if (!found)
            anim_config_report(loader, path, section->entries[e].line, "unknown key '%s' in [%s] (known keys: %s)",
                               section->entries[e].key, section->name, list);
    }
}

/* ---------------------------------------------------------------------------------------------------- */
/* Values                                                                                                */

bool anim_config_parse_bool(anim_config_loader *loader, const char *path, const ini_entry *entry, bool *out)
{
    if (strcmp(entry->value, "true") == 0 || strcmp(entry->value, "false") == 0) {
        *out = entry->value[0] == 't';
        return true;
    }
    anim_config_report(loader, path, entry->line, "'%s' must be true or false, not '%s'", entry->key, entry->value);
    return false;
}

/* The one table of ranges (anim_config_internal.h); the header comments of config/clips.ini, states.ini and characters.ini document the same. Rates stop at
 * ANIM_CONFIG_RATE_MAX, the rate the animation controller is tested with; seconds at a minute, where a
 * longer fade or hold is a typo; condition numbers and defaults at a million, beyond any speed in m/s or
 * angle in degrees a game sets. */
static const struct {
    double minimum, maximum;
} anim_config_ranges[ANIM_RANGE_COUNT] = {
    [ANIM_RANGE_CLIP_SPEED] = {0.0, 1.0e6},
    [ANIM_RANGE_EVENT_FRAME] = {0.0, 1.0e6},
    [ANIM_RANGE_RATE] = {0.0, ANIM_CONFIG_RATE_MAX},
    [ANIM_RANGE_FADE] = {0.0, 60.0},
    [ANIM_RANGE_TRIGGER_HOLD] = {0.0, 60.0},
    [ANIM_RANGE_PRIORITY] = {-1000.0, 1000.0},
    [ANIM_RANGE_PARAMETER_DEFAULT] = {-1.0e6, 1.0e6},
    [ANIM_RANGE_CONDITION] = {-1.0e6, 1.0e6},
    [ANIM_RANGE_SCALE] = {0.0001, 10000.0},
    [ANIM_RANGE_HEIGHT] = {0.05, 100.0},
};

bool anim_config_in_range(anim_config_range range, double value)
{
    return value >= anim_config_ranges[range].minimum && value <= anim_config_ranges[range].maximum;
}

const char *anim_config_range_text(anim_config_range range, char *out, size_t size)
{
    snprintf(out, size, "%g to %g", anim_config_ranges[range].minimum, anim_config_ranges[range].maximum);
    return out;
}

/* A number written whole in decimal ("1.5", not "1.5m" or "0x1p3"), within its range. */
bool anim_config_parse_number(anim_config_loader *loader, const char *path, const ini_entry *entry,
                              anim_config_range range, float *out)
{
    float value;
    if (!ini_parse_float(entry->value, &value)) {
        anim_config_report(loader, path, entry->line, "'%s' must be a number, not '%s'", entry->key, entry->value);
        return false;
    }
    if (!anim_config_in_range(range, value)) {
        char text[64];
        anim_config_report(loader, path, entry->line, "'%s' must be %s, not %s", entry->key,
                           anim_config_range_text(range, text, sizeof text), entry->value);
        return false;
    }
    *out = value;
    return true;
}

bool anim_config_parse_integer(anim_config_loader *loader, const char *path, const ini_entry *entry,
                               anim_config_range range, int *out)
{
    const char *digits = entry->value + (entry->value[0] == '-' || entry->value[0] == '+');
    size_t length = strlen(digits);
    if (length == 0 || strspn(digits, "0123456789") != length) {
        anim_config_report(loader, path, entry->line, "'%s' must be a whole number, not '%s'", entry->key,
                           entry->value);
        return false;
    }
    errno = 0;
    long value = strtol(entry->value, NULL, 10); /* ERANGE saturates, and the range refuses it */
    if (errno == ERANGE || !anim_config_in_range(range, (double)value)) {
        char text[64];
        anim_config_report(loader, path, entry->line, "'%s' must be a whole number %s, not %s", entry->key,
                           anim_config_range_text(range, text, sizeof text), entry->value);
        return false;
    }
    *out = (int)value;
    return true;
}

/* Names of clips, states, parameters, characters and sync groups: letters, digits, '_', '.', '-'. */
static bool anim_config_valid_name(const char *name)
{
    size_t length = strlen(name);
    if (length == 0 || length >= ANIM_NAME_MAX)
        return false;
    for (const char *c = name; *c; ++c)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '_' ||
              *c == '.' || *c == '-'))
            return false;
    return true;
}

bool anim_config_check_name(anim_config_loader *loader, const char *path, int line, const char *what,
                            const char *name)
{
    if (anim_config_valid_name(name))
        return true;
    anim_config_report(loader, path, line,
                       "%s name '%s' must be 1 to %d letters, digits, '_', '.' or '-'", what, name, ANIM_NAME_MAX - 1);
    return false;
}

/* A path written in an ini file is relative to that file's folder, unless absolute. */
bool anim_config_resolve_path(const char *ini_path, const char *written, char *out, size_t size)
{
    if (written[0] == '/')
        return (size_t)snprintf(out, size, "%s", written) < size;
    const char *slash = strrchr(ini_path, '/');
    int folder_length = slash ? (int)(slash - ini_path) + 1 : 0;
    return (size_t)snprintf(out, size, "%.*s%s", folder_length, ini_path, written) < size;
}
