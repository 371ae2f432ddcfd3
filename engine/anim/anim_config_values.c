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
    return diag_list_add(loader->errors, file, line, "%s", message);
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
    return count ? out : "(none)";
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

/* A finite number >= minimum, written whole ("1.5", not "1.5m"). */
bool anim_config_parse_number(anim_config_loader *loader, const char *path, const ini_entry *entry, float minimum,
                              float *out)
{
    char *end = NULL;
    float value = strtof(entry->value, &end);
    if (entry->value[0] == '\0' || *end != '\0' || !isfinite(value)) {
        anim_config_report(loader, path, entry->line, "'%s' must be a number, not '%s'", entry->key, entry->value);
        return false;
    }
    if (value < minimum) {
        anim_config_report(loader, path, entry->line, "'%s' must be at least %g, not %s", entry->key, (double)minimum,
                           entry->value);
        return false;
    }
    *out = value;
    return true;
}

bool anim_config_parse_integer(anim_config_loader *loader, const char *path, const ini_entry *entry, int *out)
{
    char *end = NULL;
    long value = strtol(entry->value, &end, 10);
    if (entry->value[0] == '\0' || *end != '\0' || value < -1000000 || value > 1000000) {
        anim_config_report(loader, path, entry->line, "'%s' must be a whole number, not '%s'", entry->key,
                           entry->value);
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
