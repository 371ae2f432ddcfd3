#include "ini_document.h"

#include <float.h>
#include <ini.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decimal.h"
#include "text_line.h"
#include "diag.h"
#include "name_index.h"

_Static_assert(INI_LINE_MAX == INI_MAX_LINE - 2, "INI_LINE_MAX follows libinih's INI_MAX_LINE");

/* Debian's libinih does not pass line numbers to the handler, so the reader callback counts the lines it
 * hands over, and the handler, called right after, takes the count as its key's line. */

enum { INI_NO_SECTION = -1, INI_IGNORED_SECTION = -2, INI_SECTION_NAME_MAX = 1024 };

/* libinih ends a key at the first '=' or ':'. A key may need a ':' (characters.ini's texture override for the
 * shader "f:\md5viewer\body.tga"), so in a line that has a '=' the key ends there: the ':' before it are
 * handed to libinih as this byte and turned back in ini_take_key. */
static const char INI_HIDDEN_COLON = '\x1f';

typedef struct ini_reading {
    config_reporter reporter;
    int report_count;
    ini_document *document;
    const char *cursor, *end;
    int line;
    int section; /* index into document->sections, or INI_NO_SECTION / INI_IGNORED_SECTION */
    bool stopped; /* a limit was passed: the rest of the file is not read */
} ini_reading;

static void ini_report(ini_reading *reading, int line, const char *format, ...) __attribute__((format(printf, 3, 4)));

static void ini_report(ini_reading *reading, int line, const char *format, ...)
{
    if (reading->stopped)
        return; /* past a limit: its own report was the last */
    reading->report_count++;
    if (reading->report_count > INI_PROBLEMS_MAX) {
        config_report(reading->reporter, reading->document->path, line,
                      "more than %d problems: the rest of the file is not read (is it an ini file?)", INI_PROBLEMS_MAX);
        reading->stopped = true;
        return;
    }
    va_list args;
    va_start(args, format);
    config_vreport(reading->reporter, reading->document->path, line, format, args);
    va_end(args);
}

char *ini_trim(char *text)
{
    while (*text == ' ' || *text == '\t')
        ++text;
    size_t length = strlen(text);
    while (length > 0 && (text[length - 1] == ' ' || text[length - 1] == '\t'))
        text[--length] = '\0';
    return text;
}

/* ---- names to indices (name_index): duplicates and lookups in constant time, so reading is linear ---- */

static const char *ini_entry_key(const void *items, int i)
{
    return ((const ini_entry *)items)[i].key;
}

static const char *ini_section_name(const void *items, int i)
{
    return ((const ini_section *)items)[i].name;
}

static void ini_begin_section(ini_reading *reading, char *name)
{
    ini_document *document = reading->document;
    int seen = name_index_find(&document->index, document->sections, ini_section_name, name);
    if (seen >= 0) {
        ini_report(reading, reading->line, "duplicate section [%s]; the first is at line %d", name,
                   document->sections[seen].line);
        reading->section = INI_IGNORED_SECTION; /* its keys would otherwise be reported as duplicates too */
        return;
    }
    if (document->section_count == INI_SECTIONS_MAX) {
        ini_report(reading, reading->line, "more than %d sections in one file: the rest of the file is not read",
                   INI_SECTIONS_MAX);
        reading->section = INI_IGNORED_SECTION;
        reading->stopped = true;
        return;
    }
    if (document->section_count == document->section_capacity) {
        int capacity = document->section_capacity ? document->section_capacity * 2 : 16;
        ini_section *sections = realloc(document->sections, (size_t)capacity * sizeof *sections);
        if (!sections) {
            ini_report(reading, reading->line, "out of memory");
            reading->section = INI_IGNORED_SECTION;
            return;
        }
        document->sections = sections;
        document->section_capacity = capacity;
    }
    document->sections[document->section_count] = (ini_section){.name = strdup(name), .line = reading->line};
    if (!document->sections[document->section_count].name ||
        !name_index_add(&document->index, document->sections, ini_section_name, document->section_count + 1)) {
        free(document->sections[document->section_count].name);
        ini_report(reading, reading->line, "out of memory");
        reading->section = INI_IGNORED_SECTION;
        return;
    }
    reading->section = document->section_count++;
}

/* Is there a '=' before an inline comment? (libinih also splits at ':', which the syntax does not have.) */
static bool ini_has_separator(const char *text)
{
    for (const char *c = text; *c; ++c) {
        if (*c == '=')
            return true;
        if (*c == ';' && c > text && (c[-1] == ' ' || c[-1] == '\t'))
            return false;
    }
    return false;
}

/* The ':' before a line's first '=' (not in an inline comment) become INI_HIDDEN_COLON. */
static void ini_hide_key_colons(char *text)
{
    char *equals = NULL;
    for (char *c = text; *c && !equals; ++c) {
        if (*c == ';' && c > text && (c[-1] == ' ' || c[-1] == '\t'))
            return;
        if (*c == '=')
            equals = c;
    }
    for (char *c = text; equals && c < equals; ++c)
        if (*c == ':')
            *c = INI_HIDDEN_COLON;
}

/* Look at a line before libinih does, to keep the count and to catch what libinih would either reject
 * without a line number reaching us, or accept in a way nobody editing by hand expects. A line reported
 * here is handed on blank. */
static void ini_inspect_line(ini_reading *reading, char *buffer)
{
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
            ini_report(reading, reading->line, "section header has no closing ']'");
            reading->section = INI_IGNORED_SECTION;
            buffer[0] = '\0';
            return;
        }
        *close = '\0';
        char name[INI_SECTION_NAME_MAX];
        snprintf(name, sizeof name, "%s", text + 1);
        *close = ']';
        ini_begin_section(reading, ini_trim(name));
        return;
    }
    /* libinih reads an indented line after a key as more of that key's value: "  loop = true" under
     * "file = x" would silently make the file "x loop = true". */
    if (text > line_start && reading->section >= 0) {
        const ini_section *section = &reading->document->sections[reading->section];
        if (section->entry_count > 0) {
            const ini_entry *previous = &section->entries[section->entry_count - 1];
            ini_report(reading, reading->line,
                       "indented line would continue '%s' from line %d; remove the indentation "
                       "(values cannot span lines)",
                       previous->key, previous->line);
            buffer[0] = '\0';
            return;
        }
    }
    if (!ini_has_separator(text)) {
        bool colon = strchr(text, ':') != NULL;
        ini_report(reading, reading->line, "expected 'key = value' or '[section]', not '%s'%s", ini_trim(text),
                   colon ? " (':' does not separate a key from its value: write '=')" : "");
        buffer[0] = '\0';
        return;
    }
    ini_hide_key_colons(text);
}

/* libinih's reader callback: one line from memory per call, counted. */
static char *ini_read_line(char *buffer, int size, void *stream)
{
    ini_reading *reading = stream;
    if (reading->cursor >= reading->end || reading->stopped)
        return NULL;
    const char *start = reading->cursor;
    size_t length = text_line(start, reading->end, &reading->cursor);
    reading->line++;
    buffer[0] = '\0';
    if (size < 2)
        return buffer;
    if (length >= (size_t)size - 1) {
        /* Cut lines would be read as two: say so instead. (-1: libinih wants room for its newline.) */
        ini_report(reading, reading->line, "line is longer than %d characters", size - 2);
        return buffer;
    }
    if (memchr(start, '\0', length)) {
        ini_report(reading, reading->line, "line contains a NUL byte");
        return buffer;
    }
    memcpy(buffer, start, length);
    buffer[length] = '\0';
    ini_inspect_line(reading, buffer);
    return buffer;
}

static bool ini_add_entry(ini_section *section, const char *key, const char *value, int line)
{
    if (section->entry_count >= INT32_MAX / 4)
        return false;
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
    if (!name_index_add(&section->index, section->entries, ini_entry_key, section->entry_count + 1)) {
        free(entry->key);
        free(entry->value);
        return false;
    }
    section->entry_count++;
    return true;
}

/* libinih's handler: called right after the line was read, so reading->line is this key's line. */
static int ini_take_key(void *user, const char *section_name, const char *hidden_key, const char *value)
{
    char key[INI_SECTION_NAME_MAX]; /* longer than any line libinih hands over */
    snprintf(key, sizeof key, "%s", hidden_key);
    for (char *c = key; *c; ++c)
        if (*c == INI_HIDDEN_COLON)
            *c = ':';
    (void)section_name; /* the reader tracks sections itself, empty ones included */
    ini_reading *reading = user;
    if (reading->section == INI_IGNORED_SECTION)
        return 1;
    if (key[0] == '\0') {
        ini_report(reading, reading->line, "a key name is missing before '='");
        return 1;
    }
    if (reading->section == INI_NO_SECTION) {
        ini_report(reading, reading->line, "'%s' is outside any [section]", key);
        return 1;
    }
    ini_section *section = &reading->document->sections[reading->section];
    const ini_entry *seen = ini_find_entry(section, key);
    if (seen) {
        ini_report(reading, reading->line, "duplicate key '%s' in [%s]; the first is at line %d", key,
                   section->name, seen->line);
        return 1;
    }
    if (reading->document->key_count == INI_KEYS_MAX) {
        ini_report(reading, reading->line, "more than %d keys in one file: the rest of the file is not read",
                   INI_KEYS_MAX);
        reading->section = INI_IGNORED_SECTION;
        reading->stopped = true;
        return 1;
    }
    if (!ini_add_entry(section, key, value, reading->line))
        ini_report(reading, reading->line, "out of memory");
    else
        reading->document->key_count++;
    return 1; /* go on: every mistake in the file is reported, not just the first */
}

void ini_document_parse(ini_document *document, const char *path, const char *text, size_t size,
                        config_reporter reporter)
{
    *document = (ini_document){.path = path};
    ini_reading reading = {.reporter = reporter, .document = document, .cursor = text, .end = text + size,
                           .section = INI_NO_SECTION};
    int result = ini_parse_stream(ini_read_line, &reading, ini_take_key, &reading);
    if (result < 0)
        ini_report(&reading, 0, "out of memory while reading");
    else if (result > 0 && reading.report_count == 0)
        ini_report(&reading, result, "cannot read this line"); /* a case ini_inspect_line missed */
}

void ini_document_free(ini_document *document)
{
    for (int s = 0; s < document->section_count; ++s) {
        ini_section *section = &document->sections[s];
        for (int e = 0; e < section->entry_count; ++e) {
            free(section->entries[e].key);
            free(section->entries[e].value);
        }
        free(section->entries);
        name_index_free(&section->index);
        free(section->name);
    }
    free(document->sections);
    name_index_free(&document->index);
    *document = (ini_document){0};
}

const ini_entry *ini_find_entry(const ini_section *section, const char *key)
{
    int found = name_index_find(&section->index, section->entries, ini_entry_key, key);
    return found >= 0 ? &section->entries[found] : NULL;
}

const ini_section *ini_find_section(const ini_document *document, const char *name)
{
    int found = name_index_find(&document->index, document->sections, ini_section_name, name);
    return found >= 0 ? &document->sections[found] : NULL;
}

size_t ini_number_length(const char *text)
{
    return decimal_length(text);
}

bool ini_parse_float(const char *text, float *out)
{
    /* The demo's one decimal grammar; read as a double, so that a value beyond float range is seen as
     * such, not as infinity. */
    double value;
    if (!decimal_read(text, &value) || !(fabs(value) <= (double)FLT_MAX))
        return false;
    *out = (float)value;
    return true;
}

/* ---- writing: what the reader takes back ---- */

static bool ini_refuse(char *why, size_t why_size, const char *reason)
{
    if (why && why_size)
        snprintf(why, why_size, "%s", reason);
    return false;
}

static bool ini_is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\v' || c == '\f' || c == '\r' || c == '\n';
}

/* A report while reading a written line back: that the reader had anything to say is enough. */
static void ini_count_report(void *context, const char *file, int line, const char *message)
{
    (void)file, (void)line, (void)message;
    ++*(int *)context;
}

/* Parse text (one section "s" written with its name, or an entry under [s]) and compare. */
static bool ini_reads_back(const char *text, const char *section, const char *key, const char *value)
{
    int reports = 0;
    ini_document document;
    ini_document_parse(&document, "(written)", text, strlen(text),
                       (config_reporter){.report = ini_count_report, .context = &reports});
    const ini_section *found = document.section_count == 1 ? &document.sections[0] : NULL;
    bool same = reports == 0 && found && strcmp(found->name, section) == 0;
    if (same && key) {
        const ini_entry *entry = found->entry_count == 1 ? &found->entries[0] : NULL;
        same = entry && strcmp(entry->key, key) == 0 && strcmp(entry->value, value) == 0;
    } else if (same) {
        same = found->entry_count == 0;
    }
    ini_document_free(&document);
    return same;
}

/* What no line of an ini file can hold, in words; NULL when none of it is there. */
static const char *ini_unwritable_bytes(const char *text)
{
    if (strchr(text, '\n') || strchr(text, '\r'))
        return "holds a line break, which no ini value can";
    if (text[0] && (ini_is_blank(text[0]) || ini_is_blank(text[strlen(text) - 1])))
        return "starts or ends with white space, which the ini reader trims";
    return NULL;
}

bool ini_entry_writable(const char *key, const char *value, char *why, size_t why_size)
{
    if (!key || !value)
        return ini_refuse(why, why_size, "is missing");
    const char *bytes = ini_unwritable_bytes(value);
    if (bytes)
        return ini_refuse(why, why_size, bytes);
    if (value[0] == ';')
        return ini_refuse(why, why_size, "starts with ';', which starts a comment in an ini file");
    for (const char *c = value; *c; ++c)
        if (*c == ';' && c > value && ini_is_blank(c[-1]))
            return ini_refuse(why, why_size, "holds white space before a ';', which starts a comment in an ini file");
    size_t length = strlen(key) + 3 + strlen(value);
    if (length > INI_LINE_MAX) {
        char reason[128];
        snprintf(reason, sizeof reason, "makes a line of %zu characters, longer than the %d an ini line may have",
                 length, INI_LINE_MAX);
        return ini_refuse(why, why_size, reason);
    }
    /* The reasons above are the ones known; the reader itself has the last word. */
    char text[INI_LINE_MAX + 8];
    size_t key_length = strlen(key), value_length = strlen(value);
    memcpy(text, "[s]\n", 4);
    memcpy(text + 4, key, key_length);
    memcpy(text + 4 + key_length, " = ", 3);
    memcpy(text + 7 + key_length, value, value_length);
    memcpy(text + 7 + key_length + value_length, "\n", 2);
    bool same = ini_reads_back(text, "s", key, value);
    return same || ini_refuse(why, why_size, "would not be read back as written by the ini reader");
}

bool ini_section_writable(const char *name, char *why, size_t why_size)
{
    if (!name || !name[0])
        return ini_refuse(why, why_size, "is empty");
    const char *bytes = ini_unwritable_bytes(name);
    if (bytes)
        return ini_refuse(why, why_size, bytes);
    if (strchr(name, ']'))
        return ini_refuse(why, why_size, "holds ']', which ends a section name");
    if (strlen(name) + 2 > INI_LINE_MAX)
        return ini_refuse(why, why_size, "is longer than an ini line may be");
    char text[INI_LINE_MAX + 8];
    size_t length = strlen(name);
    text[0] = '[';
    memcpy(text + 1, name, length);
    memcpy(text + 1 + length, "]\n", 3);
    bool same = ini_reads_back(text, name, NULL, NULL);
    return same || ini_refuse(why, why_size, "would not be read back as written by the ini reader");
}
