#include "config_values.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decimal.h"

bool config_in_range(config_range range, double value)
{
    return value >= range.minimum && value <= range.maximum;
}

const char *config_range_text(config_range range, char *out, size_t size)
{
    snprintf(out, size, "%g to %g", range.minimum, range.maximum);
    return out;
}

bool config_parse_bool(config_reporter reporter, const char *path, const ini_entry *entry, bool *out)
{
    if (strcmp(entry->value, "true") == 0 || strcmp(entry->value, "false") == 0) {
        *out = entry->value[0] == 't';
        return true;
    }
    config_report(reporter, path, entry->line, "'%s' must be true or false, not '%s'", entry->key, entry->value);
    return false;
}

/* value out of range, in range's words; integer: a whole number was asked for. */
static void config_report_range(config_reporter reporter, const char *path, const ini_entry *entry,
                                config_range range, bool integer)
{
    char text[64];
    switch (range.wording) {
    case CONFIG_RANGE_TO:
        config_report(reporter, path, entry->line, "'%s' must be %s%s, not %s", entry->key,
                      integer ? "a whole number " : "", config_range_text(range, text, sizeof text), entry->value);
        break;
    case CONFIG_RANGE_BETWEEN:
        config_report(reporter, path, entry->line, "'%s' must be between %.10g and %.10g, not %s", entry->key,
                      range.minimum, range.maximum, entry->value);
        break;
    case CONFIG_RANGE_FROM:
        config_report(reporter, path, entry->line, "'%s' must be a number from %g to %g, not '%s'", entry->key,
                      range.minimum, range.maximum, entry->value);
        break;
    }
}

bool config_parse_number(config_reporter reporter, const char *path, const ini_entry *entry, config_range range,
                         float *out)
{
    double value = 0.0;
    float single = 0.0f;
    /* CONFIG_RANGE_TO also reads a float (ini_parse_float: beyond the largest float is not a number, rather
     * than infinity). Every wording checks the number as written, not its float: the documented minimum and
     * maximum are always accepted even where the float rounds past them (0.0001 is 0.000099999997f). */
    bool number = decimal_read(entry->value, &value) &&
                  (range.wording != CONFIG_RANGE_TO || ini_parse_float(entry->value, &single));
    if (!number && range.wording != CONFIG_RANGE_FROM) {
        config_report(reporter, path, entry->line, "'%s' must be a number, not '%s'", entry->key, entry->value);
        return false;
    }
    if (!number || !config_in_range(range, value)) {
        config_report_range(reporter, path, entry, range, false);
        return false;
    }
    *out = (float)value;
    return true;
}

bool config_parse_integer(config_reporter reporter, const char *path, const ini_entry *entry, config_range range,
                          int *out)
{
    const char *digits = entry->value + (entry->value[0] == '-' || entry->value[0] == '+');
    size_t length = strlen(digits);
    errno = 0;
    long long value = length > 0 && strspn(digits, "0123456789") == length ? strtoll(entry->value, NULL, 10) : 0;
    /* demo.ini has always called a number past long long's range not a whole number; the animation files
     * call it out of range. */
    bool whole = length > 0 && strspn(digits, "0123456789") == length &&
                 (errno != ERANGE || range.wording == CONFIG_RANGE_TO);
    if (!whole) {
        config_report(reporter, path, entry->line, "'%s' must be a whole number, not '%s'", entry->key, entry->value);
        return false;
    }
    if (errno == ERANGE || !config_in_range(range, (double)value)) {
        config_report_range(reporter, path, entry, range, true);
        return false;
    }
    *out = (int)value;
    return true;
}

bool config_valid_name(const char *name, size_t length, size_t maximum)
{
    if (length == 0 || length >= maximum)
        return false;
    for (size_t i = 0; i < length; ++i) {
        char c = name[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
              c == '-'))
            return false;
    }
    return true;
}

/* "a, b, c" from known (NULL-terminated) into out; a name that does not fit is left out. */
static const char *config_join(const char *const *known, char *out, size_t size)
{
    out[0] = '\0';
    size_t used = 0;
    for (int k = 0; known[k]; ++k) {
        int written = snprintf(out + used, size - used, "%s%s", k ? ", " : "", known[k]);
        if (written > 0 && used + (size_t)written < size)
            used += (size_t)written;
    }
    return out;
}

void config_report_unknown_key(config_reporter reporter, const char *path, const ini_section *section,
                               const ini_entry *entry, const char *const *known)
{
    char list[DIAG_MESSAGE_MAX];
    config_report(reporter, path, entry->line, "unknown key '%s' in [%s] (known keys: %s)", entry->key,
                  section->name, config_join(known, list, sizeof list));
}

/* "texture.*" matches "texture.anything"; any other known key only itself. */
static bool config_key_matches(const char *key, const char *known)
{
    size_t length = strlen(known);
    if (length >= 2 && strcmp(known + length - 2, ".*") == 0)
        return strncmp(key, known, length - 1) == 0;
    return strcmp(key, known) == 0;
}

void config_check_keys(config_reporter reporter, const char *path, const ini_section *section,
                       const char *const *known)
{
    for (int e = 0; e < section->entry_count; ++e) {
        bool found = false;
        for (int k = 0; known[k] && !found; ++k)
            found = config_key_matches(section->entries[e].key, known[k]);
        if (!found)
            config_report_unknown_key(reporter, path, section, &section->entries[e], known);
    }
}

bool config_check_section(config_reporter reporter, const char *path, const ini_section *section,
                          const char *const *known)
{
    for (int k = 0; known[k]; ++k)
        if (strcmp(section->name, known[k]) == 0)
            return true;
    char list[DIAG_MESSAGE_MAX];
    config_report(reporter, path, section->line, "unknown section [%s] (known sections: %s)", section->name,
                  config_join(known, list, sizeof list));
    return false;
}
