#include <stdarg.h>
#include <stdio.h>
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

config_reporter anim_config_reporter(anim_config_loader *loader)
{
    return (config_reporter){anim_config_report_message, loader};
}

/* A stand-in is counted once, like the report (two characters sharing a clips.ini share its problems). */
static void anim_config_stand_in_message(void *context, const char *file, int line, const char *message)
{
    anim_config_loader *loader = context;
    if (anim_config_add(loader, file, line, message) || !loader->errors)
        loader->stand_in_count++;
}

static void anim_config_warning_message(void *context, const char *file, int line, const char *message)
{
    anim_config_loader *loader = context;
    char warning[DIAG_MESSAGE_MAX];
    snprintf(warning, sizeof warning, "warning: %s", message);
    if (anim_config_add(loader, file, line, warning))
        loader->warning_count++;
}

void anim_config_report(anim_config_loader *loader, const char *file, int line, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    config_vreport(anim_config_reporter(loader), file, line, format, args);
    va_end(args);
}

void anim_config_report_stand_in(anim_config_loader *loader, const char *file, int line, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    config_vreport((config_reporter){anim_config_stand_in_message, loader}, file, line, format, args);
    va_end(args);
}

void anim_config_warn(anim_config_loader *loader, const char *file, int line, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    config_vreport((config_reporter){anim_config_warning_message, loader}, file, line, format, args);
    va_end(args);
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

/* known is NULL-terminated. */
void anim_config_check_keys(anim_config_loader *loader, const char *path, const ini_section *section,
                            const char *const *known)
{
    config_check_keys(anim_config_reporter(loader), path, section, known);
}

/* ---------------------------------------------------------------------------------------------------- */
/* Values                                                                                                */

bool anim_config_parse_bool(anim_config_loader *loader, const char *path, const ini_entry *entry, bool *out)
{
    return config_parse_bool(anim_config_reporter(loader), path, entry, out);
}

/* The one table of ranges (anim_config_internal.h); the header comments of config/clips.ini, states.ini and characters.ini document the same. Rates stop at
 * ANIM_CONFIG_RATE_MAX, the rate the animation controller is tested with; seconds at a minute, where a
 * longer fade or hold is a typo; condition numbers and defaults at a million, beyond any speed in m/s or
 * angle in degrees a game sets. */
static const config_range anim_config_ranges[ANIM_RANGE_COUNT] = {
    [ANIM_RANGE_CLIP_SPEED] = {0.0, 1.0e6, CONFIG_RANGE_TO},
    [ANIM_RANGE_EVENT_FRAME] = {0.0, 1.0e6, CONFIG_RANGE_TO},
    [ANIM_RANGE_FRAME_RATE] = {1.0, 1000.0, CONFIG_RANGE_TO},
    [ANIM_RANGE_RATE] = {0.0, ANIM_CONFIG_RATE_MAX, CONFIG_RANGE_TO},
    [ANIM_RANGE_FADE] = {0.0, 60.0, CONFIG_RANGE_TO},
    [ANIM_RANGE_TRIGGER_HOLD] = {0.0, 60.0, CONFIG_RANGE_TO},
    [ANIM_RANGE_PRIORITY] = {-1000.0, 1000.0, CONFIG_RANGE_TO},
    [ANIM_RANGE_PARAMETER_DEFAULT] = {-1.0e6, 1.0e6, CONFIG_RANGE_TO},
    [ANIM_RANGE_CONDITION] = {-1.0e6, 1.0e6, CONFIG_RANGE_TO},
    [ANIM_RANGE_BLEND_POINT] = {-1000.0, 1000.0, CONFIG_RANGE_TO},
    [ANIM_RANGE_SCALE] = {0.0001, 10000.0, CONFIG_RANGE_TO},
    [ANIM_RANGE_HEIGHT] = {0.05, 100.0, CONFIG_RANGE_TO},
    [ANIM_RANGE_LOOK_YAW] = {0.0, 170.0, CONFIG_RANGE_TO},
    [ANIM_RANGE_LOOK_PITCH] = {0.0, 80.0, CONFIG_RANGE_TO},
    [ANIM_RANGE_LOOK_SPEED] = {0.1, 50.0, CONFIG_RANGE_TO},
    [ANIM_RANGE_LOOK_SHARE] = {0.0, 1.0, CONFIG_RANGE_TO},
    [ANIM_RANGE_FOOT_LOCK_RELEASE] = {ANIM_FOOT_LOCK_RELEASE_MIN, ANIM_FOOT_LOCK_RELEASE_MAX, CONFIG_RANGE_TO},
    [ANIM_RANGE_FOOT_LOCK_REACH] = {ANIM_FOOT_LOCK_REACH_MIN, ANIM_FOOT_LOCK_REACH_MAX, CONFIG_RANGE_TO},
};

bool anim_config_in_range(anim_config_range range, double value)
{
    return config_in_range(anim_config_ranges[range], value);
}

const char *anim_config_range_text(anim_config_range range, char *out, size_t size)
{
    return config_range_text(anim_config_ranges[range], out, size);
}

/* A number written whole in decimal ("1.5", not "1.5m" or "0x1p3"), within its range. */
bool anim_config_parse_number(anim_config_loader *loader, const char *path, const ini_entry *entry,
                              anim_config_range range, float *out)
{
    return config_parse_number(anim_config_reporter(loader), path, entry, anim_config_ranges[range], out);
}

bool anim_config_parse_integer(anim_config_loader *loader, const char *path, const ini_entry *entry,
                               anim_config_range range, int *out)
{
    return config_parse_integer(anim_config_reporter(loader), path, entry, anim_config_ranges[range], out);
}

/* Names of clips, states, parameters, characters and sync groups: letters, digits, '_', '.', '-'. */
bool anim_config_check_name(anim_config_loader *loader, const char *path, int line, const char *what,
                            const char *name)
{
    if (config_valid_name(name, strlen(name), ANIM_NAME_MAX))
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
