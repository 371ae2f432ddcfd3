#include "anim_config.h"

#include <ini.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../base/file.h"

/* Loading happens in two steps per file. First the ini text becomes sections of `key = value` entries that
 * remember their line numbers (libinih splits the lines; our reader counts them, since Debian's libinih
 * does not pass line numbers to the handler). Then each file's meaning is checked against what it refers
 * to, reporting at the line of the offending entry. */

enum { ANIM_CONFIG_PATH_MAX = 1024, ANIM_CONFIG_MAX_OR = 8 };

typedef struct watched_file_stamp {
    char *path;
    bool exists;
    long long modified_seconds;
    long modified_nanoseconds;
    long long size;
    unsigned long long inode; /* an editor that saves by renaming a new file over the old changes it */
} watched_file_stamp;

/* What one character owns, kept apart from the const view in anim_character. */
typedef struct anim_character_storage {
    anim_clip *clips;
    anim_event_mark **events; /* per clip */
    cache_clip_handle *clip_handles;
    char (*sync_group_names)[ANIM_NAME_MAX];
    state_machine_state *states;
    state_machine_transition *transitions;
    int transition_capacity;
} anim_character_storage;

struct anim_config {
    cache *cache;
    /* How it was loaded, so a reload can do the same: a characters.ini, or one character's files. */
    char *characters_path;
    char *character_name, *mesh_path, *clips_path, *states_path;
    int character_count;
    anim_character *characters;
    anim_character_storage *storage;
    int watched_count, watched_capacity;
    watched_file_stamp *watched;
};

typedef struct anim_config_loader {
    cache *cache;
    anim_config *config;
    diag_list *errors;
    int errors_before; /* errors->count when this load started: only this load's diags are deduplicated */
    int error_count;
} anim_config_loader;

/* ---------------------------------------------------------------------------------------------------- */
/* Reporting                                                                                             */

static void anim_config_report(anim_config_loader *loader, const char *file, int line, const char *format, ...)
    __attribute__((format(printf, 4, 5)));

static void anim_config_report(anim_config_loader *loader, const char *file, int line, const char *format, ...)
{
    char message[DIAG_MESSAGE_MAX];
    va_list args;
    va_start(args, format);
    vsnprintf(message, sizeof message, format, args);
    va_end(args);
    loader->error_count++;
    if (!loader->errors)
        return;
    /* Two characters sharing one clips.ini would otherwise report each of its mistakes twice. */
    diag probe;
    diag_set(&probe, file, line, "%s", message);
    for (int i = loader->errors_before; i < loader->errors->count; ++i) {
        const diag *seen = &loader->errors->items[i];
        if (seen->line == probe.line && strcmp(seen->file, probe.file) == 0 &&
            strcmp(seen->message, probe.message) == 0)
            return;
    }
    diag_list_add(loader->errors, file, line, "%s", message);
}

/* "a, b, c" from the name fields of an array of structs (stride apart), cut to fit out. */
static const char *anim_config_join_names(char *out, size_t size, const char *first_name, size_t stride, int count)
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

/* ---------------------------------------------------------------------------------------------------- */
/* Watched files                                                                                         */

static void anim_config_stamp(watched_file_stamp *file)
{
    struct stat status;
    file->exists = stat(file->path, &status) == 0;
    file->modified_seconds = file->exists ? (long long)status.st_mtim.tv_sec : 0;
    file->modified_nanoseconds = file->exists ? status.st_mtim.tv_nsec : 0;
    file->size = file->exists ? (long long)status.st_size : -1;
    file->inode = file->exists ? (unsigned long long)status.st_ino : 0;
}

/* Remember a file the load read (or tried to read: a missing file that appears is an edit too). */
static void anim_config_watch(anim_config *config, const char *path)
{
    for (int i = 0; i < config->watched_count; ++i)
        if (strcmp(config->watched[i].path, path) == 0)
            return;
    if (config->watched_count == config->watched_capacity) {
        int capacity = config->watched_capacity ? config->watched_capacity * 2 : 16;
        watched_file_stamp *watched = realloc(config->watched, (size_t)capacity * sizeof *watched);
        if (!watched)
            return; /* not watching one file is better than failing the load */
        config->watched = watched;
        config->watched_capacity = capacity;
    }
    watched_file_stamp *file = &config->watched[config->watched_count];
    *file = (watched_file_stamp){.path = strdup(path)};
    if (!file->path)
        return;
    anim_config_stamp(file);
    config->watched_count++;
}

static void anim_config_free_watched(anim_config *config)
{
    for (int i = 0; i < config->watched_count; ++i)
        free(config->watched[i].path);
    free(config->watched);
    config->watched = NULL;
    config->watched_count = config->watched_capacity = 0;
}

/* ---------------------------------------------------------------------------------------------------- */
/* Reading an ini file into sections of entries with line numbers                                       */

typedef struct ini_entry {
    char *key;
    char *value;
    int line;
} ini_entry;

typedef struct ini_section {
    char *name;
    int line;
    int entry_count, entry_capacity;
    ini_entry *entries;
} ini_section;

typedef struct ini_document {
    const char *path;
    int section_count, section_capacity;
    ini_section *sections;
} ini_document;

enum { INI_NO_SECTION = -1, INI_IGNORED_SECTION = -2 };

typedef struct ini_reading {
    anim_config_loader *loader;
    ini_document *document;
    const char *cursor, *end;
    int line;
    int section; /* index into document->sections, or INI_NO_SECTION / INI_IGNORED_SECTION */
} ini_reading;

static char *anim_config_trim(char *text)
{
    while (*text == ' ' || *text == '\t')
        ++text;
    size_t length = strlen(text);
    while (length > 0 && (text[length - 1] == ' ' || text[length - 1] == '\t'))
        text[--length] = '\0';
    return text;
}

static void anim_config_begin_section(ini_reading *reading, char *name)
{
    ini_document *document = reading->document;
    for (int i = 0; i < document->section_count; ++i) {
        if (strcmp(document->sections[i].name, name) == 0) {
            anim_config_report(reading->loader, document->path, reading->line,
                               "duplicate section [%s]; the first is at line %d", name, document->sections[i].line);
            reading->section = INI_IGNORED_SECTION; /* its keys would otherwise be reported as duplicates too */
            return;
        }
    }
    if (document->section_count == document->section_capacity) {
        int capacity = document->section_capacity ? document->section_capacity * 2 : 16;
        ini_section *sections = realloc(document->sections, (size_t)capacity * sizeof *sections);
        if (!sections) {
            anim_config_report(reading->loader, document->path, reading->line, "out of memory");
            reading->section = INI_IGNORED_SECTION;
            return;
        }
        document->sections = sections;
        document->section_capacity = capacity;
    }
    document->sections[document->section_count] = (ini_section){.name = strdup(name), .line = reading->line};
    reading->section = document->section_count++;
}

/* Is there a '=' or ':' (libinih's separators) before an inline comment? */
static bool anim_config_has_separator(const char *text)
{
    for (const char *c = text; *c; ++c) {
        if (*c == '=' || *c == ':')
            return true;
        if (*c == ';' && c > text && (c[-1] == ' ' || c[-1] == '\t'))
            return false;
    }
    return false;
}

/* Look at a line before libinih does, to keep the count and to catch what libinih would either reject
 * without a line number reaching us, or accept in a way nobody editing by hand expects. A line reported
 * here is handed on blank. */
static void anim_config_inspect_line(ini_reading *reading, char *buffer)
{
    const char *path = reading->document->path;
    char *text = buffer;
    if (reading->line == 1 && (unsigned char)text[0] == 0xEF && (unsigned char)text[1] == 0xBB &&
        (unsigned char)text[2] == 0xBF)
        text += 3;
    const char *line_start = text;
    while (*text == ' ' || *text == '\t')
        ++text;
    if (*text == '\0' || *text == ';' || *text == '#')
        return;
    if (*text == '[') {
        char *close = strchr(text, ']');
        if (!close) {
            anim_config_report(reading->loader, path, reading->line, "section header has no closing ']'");
            reading->section = INI_IGNORED_SECTION;
            buffer[0] = '\0';
            return;
        }
        *close = '\0';
        char name[ANIM_CONFIG_PATH_MAX];
        snprintf(name, sizeof name, "%s", text + 1);
        *close = ']';
        anim_config_begin_section(reading, anim_config_trim(name));
        return;
    }
    /* libinih reads an indented line after a key as more of that key's value: "  loop = true" under
     * "file = x" would silently make the file "x loop = true". */
    if (text > line_start && reading->section >= 0) {
        const ini_section *section = &reading->document->sections[reading->section];
        if (section->entry_count > 0) {
            const ini_entry *previous = &section->entries[section->entry_count - 1];
            anim_config_report(reading->loader, path, reading->line,
                               "indented line would continue '%s' from line %d; remove the indentation "
                               "(values cannot span lines)",
                               previous->key, previous->line);
            buffer[0] = '\0';
            return;
        }
    }
    if (!anim_config_has_separator(text)) {
        anim_config_report(reading->loader, path, reading->line, "expected 'key = value' or '[section]', not '%s'",
                           anim_config_trim(text));
        buffer[0] = '\0';
    }
}

/* libinih's reader callback: one line from memory per call, counted. */
static char *anim_config_read_line(char *buffer, int size, void *stream)
{
    ini_reading *reading = stream;
    if (reading->cursor >= reading->end)
        return NULL;
    const char *start = reading->cursor;
    const char *newline = memchr(start, '\n', (size_t)(reading->end - start));
    const char *stop = newline ? newline : reading->end;
    reading->cursor = newline ? newline + 1 : reading->end;
    reading->line++;
    size_t length = (size_t)(stop - start);
    if (length > 0 && start[length - 1] == '\r')
        --length;
    buffer[0] = '\0';
    if (size < 2)
        return buffer;
    if (length >= (size_t)size - 1) {
        /* Cut lines would be read as two: say so instead. (-1: libinih wants room for its newline.) */
        anim_config_report(reading->loader, reading->document->path, reading->line,
                           "line is longer than %d characters", size - 2);
        return buffer;
    }
    if (memchr(start, '\0', length)) {
        anim_config_report(reading->loader, reading->document->path, reading->line, "line contains a NUL byte");
        return buffer;
    }
    memcpy(buffer, start, length);
    buffer[length] = '\0';
    anim_config_inspect_line(reading, buffer);
    return buffer;
}

static bool anim_config_add_entry(ini_section *section, const char *key, const char *value, int line)
{
    if (section->entry_count == section->entry_capacity) {
        int capacity = section->entry_capacity ? section->entry_capacity * 2 : 8;
        ini_entry *entries = realloc(section->entries, (size_t)capacity * sizeof *entries);
        if (!entries)
            return false;
        section->entries = entries;
        section->entry_capacity = capacity;
    }
    ini_entry *entry = &section->entries[section->entry_count];
    *entry = (ini_entry){.key = strdup(key), .value = strdup(value), .line = line};
    if (!entry->key || !entry->value) {
        free(entry->key);
        free(entry->value);
        return false;
    }
    section->entry_count++;
    return true;
}

/* libinih's handler: called right after the line was read, so reading->line is this key's line. */
static int anim_config_take_key(void *user, const char *section_name, const char *key, const char *value)
{
    (void)section_name; /* the reader tracks sections itself, empty ones included */
    ini_reading *reading = user;
    const char *path = reading->document->path;
    if (reading->section == INI_IGNORED_SECTION)
        return 1;
    if (key[0] == '\0') {
        anim_config_report(reading->loader, path, reading->line, "a key name is missing before '='");
        return 1;
    }
    if (reading->section == INI_NO_SECTION) {
        anim_config_report(reading->loader, path, reading->line, "'%s' is outside any [section]", key);
        return 1;
    }
    ini_section *section = &reading->document->sections[reading->section];
    for (int i = 0; i < section->entry_count; ++i) {
        if (strcmp(section->entries[i].key, key) == 0) {
            anim_config_report(reading->loader, path, reading->line, "duplicate key '%s' in [%s]; the first is at line %d",
                               key, section->name, section->entries[i].line);
            return 1;
        }
    }
    if (!anim_config_add_entry(section, key, value, reading->line))
        anim_config_report(reading->loader, path, reading->line, "out of memory");
    return 1; /* go on: every mistake in the file is reported, not just the first */
}

static void anim_config_free_document(ini_document *document)
{
    for (int s = 0; s < document->section_count; ++s) {
        ini_section *section = &document->sections[s];
        for (int e = 0; e < section->entry_count; ++e) {
            free(section->entries[e].key);
            free(section->entries[e].value);
        }
        free(section->entries);
        free(section->name);
    }
    free(document->sections);
    *document = (ini_document){0};
}

/* Read path into document. A file that cannot be read is reported where it was named (referrer, line), or
 * against the path itself when nothing named it. The path is watched either way. */
static bool anim_config_read_document(anim_config_loader *loader, const char *path, const char *referrer,
                                      int referrer_line, const char *what, ini_document *document)
{
    *document = (ini_document){.path = path};
    anim_config_watch(loader->config, path);
    char *text = NULL;
    size_t size = 0;
    diag error;
    if (!file_read_all(path, &text, &size, &error)) {
        if (referrer)
            anim_config_report(loader, referrer, referrer_line, "cannot read %s '%s': %s", what, path, error.message);
        else
            anim_config_report(loader, path, 0, "cannot read %s: %s", what, error.message);
        return false;
    }
    int errors_before = loader->error_count;
    ini_reading reading = {.loader = loader, .document = document, .cursor = text, .end = text + size,
                           .section = INI_NO_SECTION};
    int result = ini_parse_stream(anim_config_read_line, &reading, anim_config_take_key, &reading);
    free(text);
    if (result < 0)
        anim_config_report(loader, path, 0, "out of memory while reading");
    else if (result > 0 && loader->error_count == errors_before)
        anim_config_report(loader, path, result, "cannot read this line"); /* a case inspect_line missed */
    return true;
}

static const ini_entry *anim_config_find_entry(const ini_section *section, const char *key)
{
    for (int i = 0; i < section->entry_count; ++i)
        if (strcmp(section->entries[i].key, key) == 0)
            return &section->entries[i];
    return NULL;
}

/* known is NULL-terminated. */
static void anim_config_check_keys(anim_config_loader *loader, const char *path, const ini_section *section,
                                   const char *const *known)
{
    for (int e = 0; e < section->entry_count; ++e) {
        bool found = false;
        char list[DIAG_MESSAGE_MAX] = "";
        size_t used = 0;
        for (int k = 0; known[k]; ++k) {
            found = found || strcmp(section->entries[e].key, known[k]) == 0;
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

static bool anim_config_parse_bool(anim_config_loader *loader, const char *path, const ini_entry *entry, bool *out)
{
    if (strcmp(entry->value, "true") == 0 || strcmp(entry->value, "false") == 0) {
        *out = entry->value[0] == 't';
        return true;
    }
    anim_config_report(loader, path, entry->line, "'%s' must be true or false, not '%s'", entry->key, entry->value);
    return false;
}

/* A finite number >= minimum, written whole ("1.5", not "1.5m"). */
static bool anim_config_parse_number(anim_config_loader *loader, const char *path, const ini_entry *entry,
                                     float minimum, float *out)
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

static bool anim_config_parse_integer(anim_config_loader *loader, const char *path, const ini_entry *entry, int *out)
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

static bool anim_config_check_name(anim_config_loader *loader, const char *path, int line, const char *what,
                                   const char *name)
{
    if (anim_config_valid_name(name))
        return true;
    anim_config_report(loader, path, line,
                       "%s name '%s' must be 1 to %d letters, digits, '_', '.' or '-'", what, name, ANIM_NAME_MAX - 1);
    return false;
}

/* A path written in an ini file is relative to that file's folder, unless absolute. */
static bool anim_config_resolve_path(const char *ini_path, const char *written, char *out, size_t size)
{
    if (written[0] == '/')
        return (size_t)snprintf(out, size, "%s", written) < size;
    const char *slash = strrchr(ini_path, '/');
    int folder_length = slash ? (int)(slash - ini_path) + 1 : 0;
    return (size_t)snprintf(out, size, "%.*s%s", folder_length, ini_path, written) < size;
}

/* ---------------------------------------------------------------------------------------------------- */
/* clips.ini                                                                                             */

static const char *const anim_config_clip_keys[] = {"file", "loop", "speed", "root_motion", "sync", "events", NULL};

static int anim_config_sync_group(anim_character *character, anim_character_storage *storage, const char *name)
{
    for (int i = 0; i < character->sync_group_count; ++i)
        if (strcmp(storage->sync_group_names[i], name) == 0)
            return i;
    snprintf(storage->sync_group_names[character->sync_group_count], ANIM_NAME_MAX, "%s", name);
    return character->sync_group_count++;
}

/* "footstep.L@0 footstep.R@15" into sorted marks; frames checked against the clip when it loaded. */
static void anim_config_parse_events(anim_config_loader *loader, const char *path, const ini_entry *entry,
                                     anim_clip *clip, anim_event_mark **events_out)
{
    char *text = strdup(entry->value);
    if (!text)
        return;
    int capacity = 0;
    for (char *c = text; *c; ++c)
        capacity += *c == '@';
    anim_event_mark *events = calloc((size_t)(capacity > 0 ? capacity : 1), sizeof *events);
    int count = 0;
    char *save = NULL;
    for (char *token = strtok_r(text, " \t", &save); token && events; token = strtok_r(NULL, " \t", &save)) {
        char *at = strrchr(token, '@');
        if (!at || at == token || at[1] == '\0') {
            anim_config_report(loader, path, entry->line, "event '%s' must be NAME@FRAME, e.g. footstep.L@12", token);
            continue;
        }
        *at = '\0';
        char *end = NULL;
        float frame = strtof(at + 1, &end);
        if (*end != '\0' || !isfinite(frame) || frame < 0.0f) {
            anim_config_report(loader, path, entry->line, "event '%s': frame '%s' must be a number >= 0", token, at + 1);
            continue;
        }
        if (!anim_config_check_name(loader, path, entry->line, "event", token))
            continue;
        if (clip->clip && frame > (float)(clip->clip->frame_count - 1)) {
            anim_config_report(loader, path, entry->line, "event '%s' at frame %g is past the clip's last frame %d",
                               token, (double)frame, clip->clip->frame_count - 1);
            continue;
        }
        /* Insertion keeps marks sorted by frame, equal frames in the order written. */
        int slot = count++;
        while (slot > 0 && events[slot - 1].frame > frame) {
            events[slot] = events[slot - 1];
            --slot;
        }
        events[slot].frame = frame;
        snprintf(events[slot].name, sizeof events[slot].name, "%s", token);
    }
    free(text);
    *events_out = events;
    clip->events = events;
    clip->event_count = count;
}

static void anim_config_load_clips(anim_config_loader *loader, anim_character *character,
                                   anim_character_storage *storage, const char *path, const char *referrer,
                                   int referrer_line)
{
    ini_document document;
    if (!anim_config_read_document(loader, path, referrer, referrer_line, "clips file", &document))
        return;
    int count = document.section_count;
    storage->clips = calloc((size_t)(count ? count : 1), sizeof *storage->clips);
    storage->events = calloc((size_t)(count ? count : 1), sizeof *storage->events);
    storage->clip_handles = calloc((size_t)(count ? count : 1), sizeof *storage->clip_handles);
    storage->sync_group_names = calloc((size_t)(count ? count : 1), sizeof *storage->sync_group_names);
    if (!storage->clips || !storage->events || !storage->clip_handles || !storage->sync_group_names) {
        anim_config_report(loader, path, 0, "out of memory");
        anim_config_free_document(&document);
        return;
    }
    if (count == 0)
        anim_config_report(loader, path, 0, "no clips: expected a [NAME] section per clip");
    character->clips = storage->clips;
    character->sync_group_names = (const char(*)[ANIM_NAME_MAX])storage->sync_group_names;

    for (int s = 0; s < count; ++s) {
        const ini_section *section = &document.sections[s];
        anim_clip *clip = &storage->clips[s];
        *clip = (anim_clip){.sync_group = -1, .root_mode = ANIM_ROOT_IN_PLACE};
        character->clip_count = s + 1;
        anim_config_check_name(loader, path, section->line, "clip", section->name);
        snprintf(clip->name, sizeof clip->name, "%s", section->name);
        anim_config_check_keys(loader, path, section, anim_config_clip_keys);

        const ini_entry *file = anim_config_find_entry(section, "file");
        char clip_path[ANIM_CONFIG_PATH_MAX];
        if (!file) {
            anim_config_report(loader, path, section->line, "clip [%s] has no 'file'", section->name);
        } else if (!anim_config_resolve_path(path, file->value, clip_path, sizeof clip_path)) {
            anim_config_report(loader, path, file->line, "path is too long");
        } else {
            anim_config_watch(loader->config, clip_path);
            if (character->model_handle.id != 0) { /* without a model there is no hierarchy to check against */
                diag error;
                storage->clip_handles[s] =
                    cache_load_clip(loader->cache, clip_path, character->model_handle, &error, NULL);
                if (storage->clip_handles[s].id == 0) {
                    char inner[DIAG_TEXT_MAX];
                    diag_format(&error, inner, sizeof inner);
                    anim_config_report(loader, path, file->line, "clip [%s]: %s", section->name, inner);
                }
                clip->clip = cache_clip(loader->cache, storage->clip_handles[s]);
            }
        }
        const ini_entry *entry;
        bool flag = false;
        if ((entry = anim_config_find_entry(section, "loop")) && anim_config_parse_bool(loader, path, entry, &flag))
            clip->loop = flag;
        if ((entry = anim_config_find_entry(section, "speed")))
            anim_config_parse_number(loader, path, entry, 0.0f, &clip->ground_speed);
        if ((entry = anim_config_find_entry(section, "root_motion")) &&
            anim_config_parse_bool(loader, path, entry, &flag))
            clip->root_mode = flag ? ANIM_ROOT_MOTION : ANIM_ROOT_IN_PLACE;
        if ((entry = anim_config_find_entry(section, "sync")) &&
            anim_config_check_name(loader, path, entry->line, "sync group", entry->value))
            clip->sync_group = anim_config_sync_group(character, storage, entry->value);
        if ((entry = anim_config_find_entry(section, "events")))
            anim_config_parse_events(loader, path, entry, clip, &storage->events[s]);
    }
    anim_config_free_document(&document);
}

int anim_config_find_clip(const anim_character *character, const char *name)
{
    for (int i = 0; character && name && i < character->clip_count; ++i)
        if (strcmp(character->clips[i].name, name) == 0)
            return i;
    return -1;
}

/* ---------------------------------------------------------------------------------------------------- */
/* Conditions: "speed > 0.2 and grounded or jump"                                                        */

typedef enum condition_token_kind {
    CONDITION_END,
    CONDITION_NAME,
    CONDITION_NUMBER,
    CONDITION_OPERATOR,
    CONDITION_BAD,
} condition_token_kind;

typedef struct condition_token {
    condition_token_kind kind;
    char text[ANIM_NAME_MAX];
    float number;
    state_machine_comparison comparison;
} condition_token;

static bool anim_config_is_name_character(char c, bool first)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (!first && ((c >= '0' && c <= '9') || c == '.'));
}

static const char *anim_config_next_token(const char *cursor, condition_token *token)
{
    while (*cursor == ' ' || *cursor == '\t')
        ++cursor;
    *token = (condition_token){.kind = CONDITION_END};
    if (*cursor == '\0')
        return cursor;
    const char *start = cursor;
    static const struct {
        const char *text;
        state_machine_comparison comparison;
    } operators[] = {{"<=", STATE_MACHINE_LESS_EQUAL}, {">=", STATE_MACHINE_GREATER_EQUAL},
                     {"==", STATE_MACHINE_EQUAL},      {"!=", STATE_MACHINE_NOT_EQUAL},
                     {"<", STATE_MACHINE_LESS},        {">", STATE_MACHINE_GREATER}};
    for (size_t i = 0; i < sizeof operators / sizeof operators[0]; ++i) {
        size_t length = strlen(operators[i].text);
        if (strncmp(cursor, operators[i].text, length) == 0) {
            token->kind = CONDITION_OPERATOR;
            token->comparison = operators[i].comparison;
            snprintf(token->text, sizeof token->text, "%s", operators[i].text);
            return cursor + length;
        }
    }
    if (anim_config_is_name_character(*cursor, true)) {
        while (anim_config_is_name_character(*cursor, false))
            ++cursor;
        token->kind = (size_t)(cursor - start) < sizeof token->text ? CONDITION_NAME : CONDITION_BAD;
        snprintf(token->text, sizeof token->text, "%.*s", (int)(cursor - start), start);
        return cursor;
    }
    char *end = NULL;
    float number = strtof(cursor, &end);
    if (end != cursor && isfinite(number)) {
        token->kind = CONDITION_NUMBER;
        token->number = number;
        snprintf(token->text, sizeof token->text, "%.*s", (int)(end - cursor), cursor);
        return end;
    }
    token->kind = CONDITION_BAD;
    snprintf(token->text, sizeof token->text, "%c", *cursor);
    return cursor + 1;
}

static bool anim_config_is_reserved(const char *name)
{
    static const char *const reserved[] = {"and", "or", "not", "true", "false", "end", "overlay_end", "time", "any"};
    for (size_t i = 0; i < sizeof reserved / sizeof reserved[0]; ++i)
        if (strcmp(name, reserved[i]) == 0)
            return true;
    return false;
}

typedef struct condition_parse {
    const state_machine_definition *machine;
    const char *cursor;
    condition_token token; /* the current, not yet used token */
    char error[DIAG_MESSAGE_MAX];
} condition_parse;

static void anim_config_advance(condition_parse *parse)
{
    parse->cursor = anim_config_next_token(parse->cursor, &parse->token);
}

static bool anim_config_condition_error(condition_parse *parse, const char *format, ...)
    __attribute__((format(printf, 2, 3)));

static bool anim_config_condition_error(condition_parse *parse, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    vsnprintf(parse->error, sizeof parse->error, format, args);
    va_end(args);
    return false;
}

static const char *anim_config_token_text(const condition_token *token)
{
    return token->kind == CONDITION_END ? "the end" : token->text;
}

/* The comparison and number after a number parameter or `time`. */
static bool anim_config_parse_comparison(condition_parse *parse, const char *subject, state_machine_term *term)
{
    if (parse->token.kind == CONDITION_BAD && strcmp(parse->token.text, "=") == 0)
        return anim_config_condition_error(parse, "'=' is not a comparison: write '=='");
    if (parse->token.kind != CONDITION_OPERATOR)
        return anim_config_condition_error(parse, "'%s' is a number: compare it, e.g. '%s > 0.5' (found %s)", subject,
                                           subject, anim_config_token_text(&parse->token));
    term->comparison = parse->token.comparison;
    anim_config_advance(parse);
    if (parse->token.kind != CONDITION_NUMBER)
        return anim_config_condition_error(parse, "expected a number after '%s', found %s", subject,
                                           anim_config_token_text(&parse->token));
    term->value = parse->token.number;
    anim_config_advance(parse);
    return true;
}

static bool anim_config_parse_term(condition_parse *parse, state_machine_term *term)
{
    *term = (state_machine_term){.parameter = -1};
    if (parse->token.kind != CONDITION_NAME)
        return anim_config_condition_error(parse, "expected a parameter, 'end', 'time' or 'true', found %s",
                                           anim_config_token_text(&parse->token));
    char name[ANIM_NAME_MAX];
    snprintf(name, sizeof name, "%s", parse->token.text);
    anim_config_advance(parse);
    if (strcmp(name, "true") == 0) {
        term->kind = STATE_MACHINE_TERM_ALWAYS;
        return true;
    }
    if (strcmp(name, "end") == 0) {
        term->kind = STATE_MACHINE_TERM_CLIP_END;
        return true;
    }
    if (strcmp(name, "overlay_end") == 0) {
        term->kind = STATE_MACHINE_TERM_OVERLAY_END;
        return true;
    }
    if (strcmp(name, "time") == 0) {
        term->kind = STATE_MACHINE_TERM_COMPARE_TIME;
        return anim_config_parse_comparison(parse, "time", term);
    }
    bool negated = strcmp(name, "not") == 0;
    if (negated) {
        if (parse->token.kind != CONDITION_NAME)
            return anim_config_condition_error(parse, "expected a bool parameter after 'not', found %s",
                                               anim_config_token_text(&parse->token));
        snprintf(name, sizeof name, "%s", parse->token.text);
        anim_config_advance(parse);
    }
    const state_machine_definition *machine = parse->machine;
    int index = state_machine_find_parameter(machine, name);
    if (index < 0) {
        char list[DIAG_MESSAGE_MAX / 2];
        return anim_config_condition_error(
            parse, "unknown parameter '%s' (declared: %s)", name,
            anim_config_join_names(list, sizeof list, machine->parameters[0].name, sizeof machine->parameters[0],
                                   machine->parameter_count));
    }
    term->parameter = index;
    state_machine_parameter_type type = machine->parameters[index].type;
    if (type == STATE_MACHINE_NUMBER) {
        if (negated)
            return anim_config_condition_error(parse, "'not' needs a bool; '%s' is a number", name);
        term->kind = STATE_MACHINE_TERM_COMPARE_PARAMETER;
        return anim_config_parse_comparison(parse, name, term);
    }
    if (type == STATE_MACHINE_TRIGGER) {
        if (negated || parse->token.kind == CONDITION_OPERATOR)
            return anim_config_condition_error(parse, "'%s' is a trigger: write just '%s' (it is set or not)", name,
                                               name);
        term->kind = STATE_MACHINE_TERM_TRIGGER;
        return true;
    }
    /* A bool: "grounded", "not grounded", "grounded == false". */
    term->kind = STATE_MACHINE_TERM_COMPARE_PARAMETER;
    term->comparison = negated ? STATE_MACHINE_EQUAL : STATE_MACHINE_NOT_EQUAL;
    term->value = 0.0f;
    if (negated || parse->token.kind != CONDITION_OPERATOR)
        return true;
    state_machine_comparison comparison = parse->token.comparison;
    if (comparison != STATE_MACHINE_EQUAL && comparison != STATE_MACHINE_NOT_EQUAL)
        return anim_config_condition_error(parse, "'%s' is a bool: compare it with == or != only", name);
    anim_config_advance(parse);
    bool is_true = parse->token.kind == CONDITION_NAME && strcmp(parse->token.text, "true") == 0;
    bool is_false = parse->token.kind == CONDITION_NAME && strcmp(parse->token.text, "false") == 0;
    if (!is_true && !is_false)
        return anim_config_condition_error(parse, "'%s' is a bool: compare it with true or false, found %s", name,
                                           anim_config_token_text(&parse->token));
    term->comparison = comparison;
    term->value = is_true ? 1.0f : 0.0f;
    anim_config_advance(parse);
    return true;
}

/* Fill clauses (each a conjunction) from "a and b or c". Returns the clause count, 0 on error. */
static int anim_config_parse_condition(condition_parse *parse, state_machine_transition clauses[ANIM_CONFIG_MAX_OR])
{
    int clause_count = 0;
    anim_config_advance(parse);
    for (;;) {
        if (clause_count == ANIM_CONFIG_MAX_OR)
            return anim_config_condition_error(parse, "more than %d alternatives joined by 'or'", ANIM_CONFIG_MAX_OR);
        state_machine_transition *clause = &clauses[clause_count++];
        clause->term_count = 0;
        for (;;) {
            if (clause->term_count == STATE_MACHINE_MAX_TERMS)
                return anim_config_condition_error(parse, "more than %d conditions joined by 'and'",
                                                   STATE_MACHINE_MAX_TERMS);
            if (!anim_config_parse_term(parse, &clause->terms[clause->term_count++]))
                return 0;
            if (parse->token.kind == CONDITION_NAME && strcmp(parse->token.text, "and") == 0) {
                anim_config_advance(parse);
                continue;
            }
            break;
        }
        if (parse->token.kind == CONDITION_NAME && strcmp(parse->token.text, "or") == 0) {
            anim_config_advance(parse);
            continue;
        }
        if (parse->token.kind == CONDITION_END)
            return clause_count;
        if (parse->token.kind == CONDITION_BAD && strcmp(parse->token.text, "=") == 0)
            return anim_config_condition_error(parse, "'=' is not a comparison: write '=='");
        return anim_config_condition_error(parse, "expected 'and', 'or' or the end, found '%s'", parse->token.text);
    }
}

/* ---------------------------------------------------------------------------------------------------- */
/* states.ini                                                                                            */

static const char *const anim_config_machine_keys[] = {"start", "fade", "trigger_hold", NULL};
static const char *const anim_config_state_keys[] = {"clip",     "loop",    "rate",         "rate_from", "rate_min",
                                                     "rate_max", "overlay", "overlay_root", NULL};
static const char *const anim_config_transition_keys[] = {"when", "fade", "priority", "restart", NULL};

typedef enum states_section_kind {
    STATES_SECTION_UNKNOWN,
    STATES_SECTION_MACHINE,
    STATES_SECTION_PARAMETERS,
    STATES_SECTION_STATE,
    STATES_SECTION_TRANSITION,
} states_section_kind;

/* "[state walk]" -> walk; "[idle -> walk]" -> idle, walk. */
static states_section_kind anim_config_states_section(const char *section_name, char *first, char *second)
{
    first[0] = second[0] = '\0';
    if (strcmp(section_name, "machine") == 0)
        return STATES_SECTION_MACHINE;
    if (strcmp(section_name, "parameters") == 0)
        return STATES_SECTION_PARAMETERS;
    char copy[ANIM_CONFIG_PATH_MAX];
    snprintf(copy, sizeof copy, "%s", section_name);
    if (strncmp(copy, "state ", 6) == 0 || strncmp(copy, "state\t", 6) == 0) {
        snprintf(first, ANIM_CONFIG_PATH_MAX, "%s", anim_config_trim(copy + 6));
        return STATES_SECTION_STATE;
    }
    char *arrow = strstr(copy, "->");
    if (arrow) {
        *arrow = '\0';
        snprintf(first, ANIM_CONFIG_PATH_MAX, "%s", anim_config_trim(copy));
        snprintf(second, ANIM_CONFIG_PATH_MAX, "%s", anim_config_trim(arrow + 2));
        return STATES_SECTION_TRANSITION;
    }
    return STATES_SECTION_UNKNOWN;
}

static void anim_config_read_parameters(anim_config_loader *loader, const char *path, const ini_section *section,
                                        state_machine_definition *machine)
{
    for (int e = 0; e < section->entry_count; ++e) {
        const ini_entry *entry = &section->entries[e];
        if (!anim_config_check_name(loader, path, entry->line, "parameter", entry->key))
            continue;
        if (anim_config_is_reserved(entry->key) || strchr(entry->key, '.') || strchr(entry->key, '-') ||
            (entry->key[0] >= '0' && entry->key[0] <= '9')) {
            anim_config_report(loader, path, entry->line,
                               "'%s' cannot name a parameter (reserved word, or not usable in a condition)",
                               entry->key);
            continue;
        }
        if (machine->parameter_count == STATE_MACHINE_MAX_PARAMETERS) {
            anim_config_report(loader, path, entry->line, "too many parameters (at most %d)",
                               STATE_MACHINE_MAX_PARAMETERS);
            return;
        }
        char type[ANIM_NAME_MAX] = "", value[ANIM_NAME_MAX] = "", extra[2] = "";
        int fields = sscanf(entry->value, "%63s %63s %1s", type, value, extra);
        state_machine_parameter parameter = {0};
        snprintf(parameter.name, sizeof parameter.name, "%s", entry->key);
        ini_entry default_entry = {.key = entry->key, .value = value, .line = entry->line};
        bool ok = fields >= 1 && fields <= 2;
        bool flag = false;
        if (ok && strcmp(type, "number") == 0) {
            parameter.type = STATE_MACHINE_NUMBER;
            ok = fields == 1 || anim_config_parse_number(loader, path, &default_entry, -INFINITY, &parameter.default_value);
            if (!ok)
                continue;
        } else if (ok && strcmp(type, "bool") == 0) {
            parameter.type = STATE_MACHINE_BOOL;
            ok = fields == 1 || anim_config_parse_bool(loader, path, &default_entry, &flag);
            if (!ok)
                continue;
            parameter.default_value = flag ? 1.0f : 0.0f;
        } else if (ok && strcmp(type, "trigger") == 0 && fields == 1) {
            parameter.type = STATE_MACHINE_TRIGGER;
        } else {
            ok = false;
        }
        if (!ok) {
            anim_config_report(loader, path, entry->line,
                               "parameter '%s' must be 'number [DEFAULT]', 'bool [true|false]' or 'trigger', not '%s'",
                               entry->key, entry->value);
            continue;
        }
        machine->parameters[machine->parameter_count++] = parameter;
    }
}

static int anim_config_find_joint(const model *model, const char *name)
{
    for (int i = 0; model && i < model->skeleton.joint_count; ++i)
        if (strcmp(model->skeleton.names[i], name) == 0)
            return i;
    return -1;
}

/* The clip named by entry, or -1 after saying which clips exist. */
static int anim_config_state_clip(anim_config_loader *loader, const char *path, const ini_entry *entry,
                                  const anim_character *character)
{
    int clip = anim_config_find_clip(character, entry->value);
    if (clip < 0) {
        char list[DIAG_MESSAGE_MAX / 2];
        anim_config_report(loader, path, entry->line, "unknown clip '%s' (the clip library has: %s)", entry->value,
                           anim_config_join_names(list, sizeof list, character->clips ? character->clips[0].name : "",
                                                  sizeof character->clips[0], character->clip_count));
    }
    return clip;
}

static void anim_config_read_state(anim_config_loader *loader, const char *path, const ini_section *section,
                                   const anim_character *character, const state_machine_definition *machine,
                                   state_machine_state *state)
{
    anim_config_check_keys(loader, path, section, anim_config_state_keys);
    state->clip = state->rate_parameter = state->overlay_clip = state->overlay_root_joint = -1;
    state->rate = 1.0f;
    state->rate_min = 0.0f;
    state->rate_max = INFINITY;
    const ini_entry *entry = anim_config_find_entry(section, "clip");
    if (!entry)
        anim_config_report(loader, path, section->line, "state '%s' has no 'clip'", state->name);
    else if ((state->clip = anim_config_state_clip(loader, path, entry, character)) >= 0)
        state->loop = character->clips[state->clip].loop;
    bool flag;
    if ((entry = anim_config_find_entry(section, "loop")) && anim_config_parse_bool(loader, path, entry, &flag))
        state->loop = flag;
    if ((entry = anim_config_find_entry(section, "rate")))
        anim_config_parse_number(loader, path, entry, 0.0f, &state->rate);

    const ini_entry *rate_from = anim_config_find_entry(section, "rate_from");
    if (rate_from) {
        state->rate_parameter = state_machine_find_parameter(machine, rate_from->value);
        state->rate_min = 0.0f;
        state->rate_max = 4.0f;
        if (state->rate_parameter < 0 || machine->parameters[state->rate_parameter].type != STATE_MACHINE_NUMBER) {
            anim_config_report(loader, path, rate_from->line, "rate_from needs a number parameter; '%s' is not one",
                               rate_from->value);
        } else if (state->clip >= 0 && !(character->clips[state->clip].ground_speed > 0.0f)) {
            anim_config_report(loader, path, rate_from->line,
                               "rate_from needs a clip that travels; clip '%s' has no speed in the clip library",
                               character->clips[state->clip].name);
        } else if (state->clip >= 0) {
            state->rate_reference = character->clips[state->clip].ground_speed;
        }
    }
    const char *limits[] = {"rate_min", "rate_max"};
    float *limit_values[] = {&state->rate_min, &state->rate_max};
    for (int i = 0; i < 2; ++i) {
        if (!(entry = anim_config_find_entry(section, limits[i])))
            continue;
        if (!rate_from)
            anim_config_report(loader, path, entry->line, "%s only applies with rate_from", limits[i]);
        else
            anim_config_parse_number(loader, path, entry, 0.0f, limit_values[i]);
    }
    if (state->rate_min > state->rate_max)
        anim_config_report(loader, path, section->line, "state '%s': rate_min %g is above rate_max %g", state->name,
                           (double)state->rate_min, (double)state->rate_max);

    const ini_entry *overlay = anim_config_find_entry(section, "overlay");
    const ini_entry *overlay_root = anim_config_find_entry(section, "overlay_root");
    if (overlay)
        state->overlay_clip = anim_config_state_clip(loader, path, overlay, character);
    if (overlay && !overlay_root)
        anim_config_report(loader, path, overlay->line,
                           "an overlay needs 'overlay_root': the joint whose branch it plays on, e.g. spine.01");
    if (overlay_root && !overlay)
        anim_config_report(loader, path, overlay_root->line, "overlay_root without an overlay clip");
    if (overlay_root && character->model) {
        state->overlay_root_joint = anim_config_find_joint(character->model, overlay_root->value);
        if (state->overlay_root_joint < 0)
            anim_config_report(loader, path, overlay_root->line,
                               "the model has no joint '%s' (names are case-sensitive, e.g. spine.01, clavicle.R)",
                               overlay_root->value);
    }
}

/* The state index a transition section names, or STATE_MACHINE_ANY for `any` (only allowed as from). */
static int anim_config_transition_end(anim_config_loader *loader, const char *path, const ini_section *section,
                                      const state_machine_definition *machine, const char *name, bool from)
{
    if (from && strcmp(name, "any") == 0)
        return STATE_MACHINE_ANY;
    int state = state_machine_find_state(machine, name);
    if (state < 0) {
        char list[DIAG_MESSAGE_MAX / 2];
        anim_config_report(loader, path, section->line, "unknown state '%s' in [%s] (states: %s%s)", name,
                           section->name, from ? "any, " : "",
                           anim_config_join_names(list, sizeof list, machine->state_count ? machine->states[0].name : "",
                                                  sizeof machine->states[0], machine->state_count));
    }
    return state;
}

static bool anim_config_push_transition(anim_character_storage *storage, state_machine_definition *machine,
                                        const state_machine_transition *transition)
{
    if (machine->transition_count == storage->transition_capacity) {
        int capacity = storage->transition_capacity ? storage->transition_capacity * 2 : 16;
        state_machine_transition *grown = realloc(storage->transitions, (size_t)capacity * sizeof *grown);
        if (!grown)
            return false;
        storage->transitions = grown;
        storage->transition_capacity = capacity;
        machine->transitions = grown;
    }
    storage->transitions[machine->transition_count++] = *transition;
    return true;
}

static void anim_config_read_transition(anim_config_loader *loader, const char *path, const ini_section *section,
                                        const char *from_name, const char *to_name, float default_fade,
                                        anim_character_storage *storage, state_machine_definition *machine)
{
    anim_config_check_keys(loader, path, section, anim_config_transition_keys);
    state_machine_transition transition = {.fade = default_fade};
    transition.from = anim_config_transition_end(loader, path, section, machine, from_name, true);
    transition.to = anim_config_transition_end(loader, path, section, machine, to_name, false);
    const ini_entry *entry;
    if ((entry = anim_config_find_entry(section, "fade")))
        anim_config_parse_number(loader, path, entry, 0.0f, &transition.fade);
    if ((entry = anim_config_find_entry(section, "priority")))
        anim_config_parse_integer(loader, path, entry, &transition.priority);
    if ((entry = anim_config_find_entry(section, "restart")) &&
        anim_config_parse_bool(loader, path, entry, &transition.restart) && transition.from != STATE_MACHINE_ANY)
        anim_config_report(loader, path, entry->line,
                           "restart only applies to [any -> ...]; a [%s -> %s] transition always restarts when from "
                           "and to are the same", from_name, to_name);

    const ini_entry *when = anim_config_find_entry(section, "when");
    if (!when) {
        anim_config_report(loader, path, section->line, "transition [%s] has no 'when' (write 'when = true' to "
                           "always take it)", section->name);
        return;
    }
    state_machine_transition clauses[ANIM_CONFIG_MAX_OR];
    condition_parse parse = {.machine = machine, .cursor = when->value};
    int clause_count = anim_config_parse_condition(&parse, clauses);
    if (clause_count == 0) {
        anim_config_report(loader, path, when->line, "bad condition '%s': %s", when->value, parse.error);
        return;
    }
    if (transition.from < 0 && transition.from != STATE_MACHINE_ANY)
        return;
    for (int c = 0; c < clause_count; ++c) {
        for (int t = 0; t < clauses[c].term_count; ++t) {
            state_machine_term_kind kind = clauses[c].terms[t].kind;
            if (transition.from == STATE_MACHINE_ANY)
                continue;
            const state_machine_state *from = &machine->states[transition.from];
            /* A condition that can never hold is a mistake worth a message, not a silent dead transition. */
            if (kind == STATE_MACHINE_TERM_CLIP_END && from->loop)
                anim_config_report(loader, path, when->line,
                                   "'end' never happens: state '%s' loops (set loop = false on it for a one-shot)",
                                   from->name);
            if (kind == STATE_MACHINE_TERM_OVERLAY_END && from->overlay_clip < 0)
                anim_config_report(loader, path, when->line, "'overlay_end' never happens: state '%s' has no overlay",
                                   from->name);
        }
        if (transition.to < 0)
            continue;
        state_machine_transition expanded = transition;
        expanded.term_count = clauses[c].term_count;
        memcpy(expanded.terms, clauses[c].terms, sizeof expanded.terms);
        if (!anim_config_push_transition(storage, machine, &expanded))
            anim_config_report(loader, path, section->line, "out of memory");
    }
}

/* Every state must be reachable from the start, or the user made a mistake (a typo in a transition's
 * section name, a forgotten transition). An `any` transition leads to its target from everywhere. */
static void anim_config_check_reachable(anim_config_loader *loader, const char *path,
                                        const state_machine_definition *machine, const int *state_lines)
{
    bool reached[256] = {false};
    if (machine->start_state < 0 || machine->state_count > 256)
        return;
    reached[machine->start_state] = true;
    for (bool changed = true; changed;) {
        changed = false;
        for (int i = 0; i < machine->transition_count; ++i) {
            const state_machine_transition *transition = &machine->transitions[i];
            bool from_reached = transition->from == STATE_MACHINE_ANY || reached[transition->from];
            if (from_reached && !reached[transition->to]) {
                reached[transition->to] = true;
                changed = true;
            }
        }
    }
    for (int s = 0; s < machine->state_count; ++s)
        if (!reached[s])
            anim_config_report(loader, path, state_lines[s],
                               "state '%s' cannot be reached from the start state '%s': no transition leads to it",
                               machine->states[s].name, machine->states[machine->start_state].name);
}

/* Highest priority first; a stable insertion sort keeps the written order among equals. */
static void anim_config_sort_transitions(anim_character_storage *storage, int count)
{
    for (int i = 1; i < count; ++i) {
        state_machine_transition moving = storage->transitions[i];
        int slot = i;
        while (slot > 0 && storage->transitions[slot - 1].priority < moving.priority) {
            storage->transitions[slot] = storage->transitions[slot - 1];
            --slot;
        }
        storage->transitions[slot] = moving;
    }
}

static void anim_config_load_states(anim_config_loader *loader, anim_character *character,
                                    anim_character_storage *storage, const char *path, const char *referrer,
                                    int referrer_line)
{
    ini_document document;
    if (!anim_config_read_document(loader, path, referrer, referrer_line, "states file", &document))
        return;
    int errors_before = loader->error_count;
    state_machine_definition *machine = &character->machine;
    *machine = (state_machine_definition){.start_state = -1, .trigger_hold = 0.2f};
    int section_count = document.section_count;
    states_section_kind *kinds = calloc((size_t)(section_count ? section_count : 1), sizeof *kinds);
    int *state_lines = calloc((size_t)(section_count ? section_count : 1), sizeof *state_lines);
    storage->states = calloc((size_t)(section_count ? section_count : 1), sizeof *storage->states);
    if (!kinds || !state_lines || !storage->states) {
        anim_config_report(loader, path, 0, "out of memory");
        goto done;
    }
    machine->states = storage->states;

    /* Parameters and state names first: sections may come in any order and refer to each other. */
    const ini_section *machine_section = NULL;
    char first[ANIM_CONFIG_PATH_MAX], second[ANIM_CONFIG_PATH_MAX];
    for (int s = 0; s < section_count; ++s) {
        const ini_section *section = &document.sections[s];
        kinds[s] = anim_config_states_section(section->name, first, second);
        if (kinds[s] == STATES_SECTION_MACHINE) {
            machine_section = section;
            anim_config_check_keys(loader, path, section, anim_config_machine_keys);
        } else if (kinds[s] == STATES_SECTION_PARAMETERS) {
            anim_config_read_parameters(loader, path, section, machine);
        } else if (kinds[s] == STATES_SECTION_STATE) {
            if (!anim_config_check_name(loader, path, section->line, "state", first))
                continue;
            if (strcmp(first, "any") == 0) {
                anim_config_report(loader, path, section->line, "'any' cannot name a state: it means every state");
                continue;
            }
            if (state_machine_find_state(machine, first) >= 0) {
                anim_config_report(loader, path, section->line, "duplicate state '%s'", first);
                continue;
            }
            snprintf(storage->states[machine->state_count].name, ANIM_NAME_MAX, "%.*s", ANIM_NAME_MAX - 1, first);
            state_lines[machine->state_count++] = section->line;
        } else if (kinds[s] == STATES_SECTION_UNKNOWN) {
            anim_config_report(loader, path, section->line,
                               "unknown section [%s]: expected [machine], [parameters], [state NAME] or [FROM -> TO]",
                               section->name);
        }
    }
    for (int s = 0, state = 0; s < section_count; ++s) {
        const ini_section *section = &document.sections[s];
        if (kinds[s] != STATES_SECTION_STATE)
            continue;
        anim_config_states_section(section->name, first, second);
        if (state < machine->state_count && strcmp(storage->states[state].name, first) == 0)
            anim_config_read_state(loader, path, section, character, machine, &storage->states[state++]);
    }

    float default_fade = 0.2f;
    const ini_entry *entry;
    if (!machine_section) {
        anim_config_report(loader, path, 0, "no [machine] section: it names the start state ('start = idle')");
    } else {
        if ((entry = anim_config_find_entry(machine_section, "fade")))
            anim_config_parse_number(loader, path, entry, 0.0f, &default_fade);
        if ((entry = anim_config_find_entry(machine_section, "trigger_hold")))
            anim_config_parse_number(loader, path, entry, 0.0f, &machine->trigger_hold);
        if (!(entry = anim_config_find_entry(machine_section, "start")))
            anim_config_report(loader, path, machine_section->line, "[machine] has no 'start' state");
        else if ((machine->start_state = state_machine_find_state(machine, entry->value)) < 0)
            anim_config_report(loader, path, entry->line, "unknown start state '%s'", entry->value);
    }
    if (machine->state_count == 0)
        anim_config_report(loader, path, 0, "no states: expected [state NAME] sections");

    for (int s = 0; s < section_count; ++s) {
        if (kinds[s] != STATES_SECTION_TRANSITION)
            continue;
        anim_config_states_section(document.sections[s].name, first, second);
        anim_config_read_transition(loader, path, &document.sections[s], first, second, default_fade, storage,
                                    machine);
    }
    anim_config_sort_transitions(storage, machine->transition_count);
    /* Only a machine without other mistakes: a misspelt transition would make every later state unreachable. */
    if (loader->error_count == errors_before)
        anim_config_check_reachable(loader, path, machine, state_lines);
done:
    free(kinds);
    free(state_lines);
    anim_config_free_document(&document);
}

/* ---------------------------------------------------------------------------------------------------- */
/* Characters and the config                                                                             */

/* Where a character's files were named, so problems with them are reported there. */
typedef struct anim_character_source {
    const char *name;
    const char *mesh_path, *clips_path, *states_path; /* resolved; states_path may be NULL */
    const char *referrer;                             /* characters.ini, or NULL when given directly */
    int name_line, mesh_line, clips_line, states_line;
} anim_character_source;

static void anim_config_load_one(anim_config_loader *loader, const anim_character_source *source,
                                 anim_character *character, anim_character_storage *storage)
{
    snprintf(character->name, sizeof character->name, "%s", source->name);
    anim_config_watch(loader->config, source->mesh_path);
    diag error;
    character->model_handle = cache_load_model(loader->cache, source->mesh_path, &error, NULL);
    character->model = cache_model(loader->cache, character->model_handle);
    if (!character->model) {
        char inner[DIAG_TEXT_MAX];
        diag_format(&error, inner, sizeof inner);
        if (source->referrer)
            anim_config_report(loader, source->referrer, source->mesh_line, "mesh of '%s': %s", source->name, inner);
        else
            anim_config_report(loader, source->mesh_path, error.line, "%s", error.message);
    }
    anim_config_load_clips(loader, character, storage, source->clips_path, source->referrer, source->clips_line);
    if (source->states_path)
        anim_config_load_states(loader, character, storage, source->states_path, source->referrer,
                                source->states_line);
}

static anim_config *anim_config_new(cache *cache, int character_count)
{
    anim_config *config = calloc(1, sizeof *config);
    if (!config)
        return NULL;
    config->cache = cache;
    config->characters = calloc((size_t)(character_count ? character_count : 1), sizeof *config->characters);
    config->storage = calloc((size_t)(character_count ? character_count : 1), sizeof *config->storage);
    if (!config->characters || !config->storage) {
        free(config->characters);
        free(config->storage);
        free(config);
        return NULL;
    }
    return config;
}

void anim_config_free(anim_config *config)
{
    if (!config)
        return;
    for (int c = 0; c < config->character_count; ++c) {
        anim_character *character = &config->characters[c];
        anim_character_storage *storage = &config->storage[c];
        for (int i = 0; i < character->clip_count; ++i) {
            if (storage->clip_handles)
                cache_release_clip(config->cache, storage->clip_handles[i]);
            if (storage->events)
                free(storage->events[i]);
        }
        cache_release_model(config->cache, character->model_handle);
        free(storage->clips);
        free(storage->events);
        free(storage->clip_handles);
        free(storage->sync_group_names);
        free(storage->states);
        free(storage->transitions);
    }
    free(config->characters);
    free(config->storage);
    anim_config_free_watched(config);
    free(config->characters_path);
    free(config->character_name);
    free(config->mesh_path);
    free(config->clips_path);
    free(config->states_path);
    free(config);
}

/* A load that found any problem hands its watch list to `keep_watching` (a reload's old config) and
 * frees everything else: nothing half-built ever reaches the caller. */
static anim_config *anim_config_finish(anim_config_loader *loader, anim_config *keep_watching)
{
    anim_config *config = loader->config;
    if (loader->error_count == 0)
        return config;
    if (keep_watching) {
        anim_config_free_watched(keep_watching);
        keep_watching->watched = config->watched;
        keep_watching->watched_count = config->watched_count;
        keep_watching->watched_capacity = config->watched_capacity;
        config->watched = NULL;
        config->watched_count = config->watched_capacity = 0;
    }
    anim_config_free(config);
    return NULL;
}

static char *anim_config_copy(const char *text)
{
    return text ? strdup(text) : NULL;
}

static anim_config *anim_config_load_files(const char *characters_path, cache *cache, diag_list *errors,
                                           anim_config *keep_watching)
{
    anim_config_loader loader = {.cache = cache, .errors = errors, .errors_before = errors ? errors->count : 0};
    ini_document document = {.path = characters_path};
    loader.config = anim_config_new(cache, 0);
    if (!loader.config || !cache || !characters_path) {
        anim_config_free(loader.config);
        diag_list_add(errors, characters_path ? characters_path : "", 0, "out of memory or no cache");
        return NULL;
    }
    loader.config->characters_path = anim_config_copy(characters_path);
    if (anim_config_read_document(&loader, characters_path, NULL, 0, "characters file", &document)) {
        int count = document.section_count;
        anim_character *characters = calloc((size_t)(count ? count : 1), sizeof *characters);
        anim_character_storage *storage = calloc((size_t)(count ? count : 1), sizeof *storage);
        if (!characters || !storage) {
            free(characters);
            free(storage);
            anim_config_report(&loader, characters_path, 0, "out of memory");
            count = 0;
        } else {
            free(loader.config->characters);
            free(loader.config->storage);
            loader.config->characters = characters;
            loader.config->storage = storage;
        }
        if (document.section_count == 0)
            anim_config_report(&loader, characters_path, 0, "no characters: expected a [NAME] section per character");
        static const char *const keys[] = {"mesh", "clips", "states", NULL};
        for (int s = 0; s < count; ++s) {
            const ini_section *section = &document.sections[s];
            anim_config_check_keys(&loader, characters_path, section, keys);
            anim_config_check_name(&loader, characters_path, section->line, "character", section->name);
            const ini_entry *found[3];
            char paths[3][ANIM_CONFIG_PATH_MAX];
            bool complete = true;
            for (int k = 0; k < 3; ++k) {
                found[k] = anim_config_find_entry(section, keys[k]);
                if (!found[k]) {
                    anim_config_report(&loader, characters_path, section->line, "character [%s] has no '%s'",
                                       section->name, keys[k]);
                    complete = false;
                } else if (!anim_config_resolve_path(characters_path, found[k]->value, paths[k], sizeof paths[k])) {
                    anim_config_report(&loader, characters_path, found[k]->line, "path is too long");
                    complete = false;
                }
            }
            if (!complete)
                continue;
            anim_character_source source = {
                .name = section->name, .mesh_path = paths[0], .clips_path = paths[1], .states_path = paths[2],
                .referrer = characters_path, .name_line = section->line, .mesh_line = found[0]->line,
                .clips_line = found[1]->line, .states_line = found[2]->line};
            anim_config_load_one(&loader, &source, &loader.config->characters[loader.config->character_count],
                                 &loader.config->storage[loader.config->character_count]);
            loader.config->character_count++;
        }
    }
    anim_config_free_document(&document);
    return anim_config_finish(&loader, keep_watching);
}

anim_config *anim_config_load(const char *characters_path, cache *cache, diag_list *errors)
{
    return anim_config_load_files(characters_path, cache, errors, NULL);
}

static anim_config *anim_config_load_single(const char *name, const char *mesh_path, const char *clips_path,
                                            const char *states_path, cache *cache, diag_list *errors,
                                            anim_config *keep_watching)
{
    if (!name || !mesh_path || !clips_path || !cache) {
        diag_list_add(errors, "", 0, "anim_config_load_character needs a name, a mesh, a clips file and a cache");
        return NULL;
    }
    anim_config_loader loader = {.cache = cache, .errors = errors, .errors_before = errors ? errors->count : 0};
    loader.config = anim_config_new(cache, 1);
    if (!loader.config) {
        diag_list_add(errors, clips_path, 0, "out of memory");
        return NULL;
    }
    anim_config *config = loader.config;
    config->character_name = anim_config_copy(name);
    config->mesh_path = anim_config_copy(mesh_path);
    config->clips_path = anim_config_copy(clips_path);
    config->states_path = anim_config_copy(states_path);
    anim_character_source source = {.name = name, .mesh_path = mesh_path, .clips_path = clips_path,
                                    .states_path = states_path};
    anim_config_check_name(&loader, clips_path, 0, "character", name);
    anim_config_load_one(&loader, &source, &config->characters[0], &config->storage[0]);
    config->character_count = 1;
    return anim_config_finish(&loader, keep_watching);
}

anim_config *anim_config_load_character(const char *name, const char *mesh_path, const char *clips_path,
                                        const char *states_path, cache *cache, diag_list *errors)
{
    return anim_config_load_single(name, mesh_path, clips_path, states_path, cache, errors, NULL);
}

int anim_config_character_count(const anim_config *config)
{
    return config ? config->character_count : 0;
}

const anim_character *anim_config_character(const anim_config *config, int index)
{
    return config && index >= 0 && index < config->character_count ? &config->characters[index] : NULL;
}

const anim_character *anim_config_find_character(const anim_config *config, const char *name)
{
    for (int i = 0; config && name && i < config->character_count; ++i)
        if (strcmp(config->characters[i].name, name) == 0)
            return &config->characters[i];
    return NULL;
}

bool anim_config_reload_due(const anim_config *config)
{
    for (int i = 0; config && i < config->watched_count; ++i) {
        watched_file_stamp now = {.path = config->watched[i].path};
        anim_config_stamp(&now);
        const watched_file_stamp *then = &config->watched[i];
        if (now.exists != then->exists || now.modified_seconds != then->modified_seconds ||
            now.modified_nanoseconds != then->modified_nanoseconds || now.size != then->size ||
            now.inode != then->inode)
            return true;
    }
    return false;
}

anim_config *anim_config_reload(anim_config *old, diag_list *errors)
{
    if (!old)
        return NULL;
    if (old->characters_path)
        return anim_config_load_files(old->characters_path, old->cache, errors, old);
    return anim_config_load_single(old->character_name, old->mesh_path, old->clips_path, old->states_path, old->cache,
                                   errors, old);
}

int anim_config_watched_file_count(const anim_config *config)
{
    return config ? config->watched_count : 0;
}

const char *anim_config_watched_file(const anim_config *config, int index)
{
    return config && index >= 0 && index < config->watched_count ? config->watched[index].path : NULL;
}
