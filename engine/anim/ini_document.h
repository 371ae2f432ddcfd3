/* ini_document: an ini file's text as sections of `key = value` entries that remember their line numbers,
 * so whoever checks the meaning can report `file:line: message`. libinih splits the lines; this layer counts
 * them and catches what libinih would reject without a line or accept in a way nobody expects.
 * Knows nothing of what the keys mean, and reads no files: the caller hands it the text. */
#ifndef MARIONETTE_INI_DOCUMENT_H
#define MARIONETTE_INI_DOCUMENT_H

#include <stddef.h>

typedef struct ini_entry {
    char *key;
    char *value;
    int line;
} ini_entry;

typedef struct ini_section {
    char *name;
    int line;
    int entry_count, entry_capacity;
    ini_entry *entries; /* in the order written; keys are unique within a section */
} ini_section;

typedef struct ini_document {
    const char *path; /* borrowed, for reports */
    int section_count, section_capacity;
    ini_section *sections; /* in the order written; names are unique */
} ini_document;

/* Where the reader's complaints go, one finished message at a time. */
typedef struct ini_reporter {
    void (*report)(void *context, const char *file, int line, const char *message);
    void *context;
} ini_reporter;

/* Fill document from text (size bytes, the contents of path). A key ends at its line's first '=', so it may
 * hold ':' ("texture.f:\\art\\body.tga = body.png"); only a line without '=' is split at ':'. Every problem
 * goes to reporter, and reading goes on past it, so one pass names all of them; what was read well is kept.
 * Free with ini_document_free even when there were problems. */
void ini_document_parse(ini_document *document, const char *path, const char *text, size_t size,
                        ini_reporter reporter);

void ini_document_free(ini_document *document);

/* The entry with this key, or NULL. */
const ini_entry *ini_find_entry(const ini_section *section, const char *key);

/* Strip leading and trailing spaces and tabs in place, as libinih does to names and values. */
char *ini_trim(char *text);

#endif
