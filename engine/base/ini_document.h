/* ini_document: an ini file's text as sections of `key = value` entries that remember their line numbers,
 * so whoever checks the meaning can report `file:line: message`. libinih splits the lines; this layer counts
 * them and catches what libinih would reject without a line or accept in a way nobody expects.
 * Knows nothing of what the keys mean, and reads no files: the caller hands it the text. */
#ifndef MARIONETTE_INI_DOCUMENT_H
#define MARIONETTE_INI_DOCUMENT_H

#include <stdbool.h>
#include <stddef.h>

#include "config_report.h"
#include "name_index.h"

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
    name_index index;   /* entries by key */
} ini_section;

typedef struct ini_document {
    const char *path; /* borrowed, for reports */
    int section_count, section_capacity;
    ini_section *sections; /* in the order written; names are unique */
    name_index index;      /* sections by name */
    int key_count;         /* all sections together */
} ini_document;

/* Limits of one ini file, so that a careless or hostile file cannot hold the thread that reads it: the
 * section or key past the limit is reported at its line and the rest of the file is not read. Checking
 * duplicates and finding a key are hash lookups, so reading is linear in the file's size. */
enum {
    INI_SECTIONS_MAX = 4096, /* sections in one file */
    INI_KEYS_MAX = 16384,    /* keys in one file, all sections together */
    INI_PROBLEMS_MAX = 100,  /* problems in one file's syntax: past them it is likely no ini file at all (a
                              * mesh named as a clip library), and naming each of its lines helps nobody */
};

/* The largest ini file a loader reads (4 MiB: INI_KEYS_MAX lines of 256 bytes); a larger one is refused
 * before it is opened (file.h). */
#define INI_MAX_FILE_BYTES ((size_t)4 << 20)

/* Fill document from text (size bytes, the contents of path). The syntax is `[section]` and `key = value`
 * lines only: a key ends at its line's first '=', so it may hold ':' ("texture.f:\\art\\body.tga =
 * body.png"), and a line without '=' (such as libinih's `key: value`) is refused. Every problem goes to
 * reporter, and reading goes on past it, so one pass names all of them; what was read well is kept; past
 * INI_SECTIONS_MAX or INI_KEYS_MAX reading stops. Free with ini_document_free even when there were problems. */
void ini_document_parse(ini_document *document, const char *path, const char *text, size_t size,
                        config_reporter reporter);

void ini_document_free(ini_document *document);

/* The longest line the reader takes, its line break not counted (libinih's INI_MAX_LINE of 200, less the
 * break and the NUL): a longer one is refused as "line is longer than 198 characters". */
enum { INI_LINE_MAX = 198 };

/* For writers of ini files (md5tool new-character): whether the line `key = value` is read back by
 * ini_document_parse as exactly this key and value. The syntax has no quoting or escapes, so a value cannot
 * hold a line break (CR or LF), a NUL, white space at either end, a ';' at its start or after white space
 * (an inline comment), and the line must fit INI_LINE_MAX. When it cannot be written, why gets the reason as
 * a phrase ("holds a line break", "has ' ;', which starts a comment") and false is returned. The verdict is
 * checked by parsing the line: what passes is read back byte for byte (fuzz_ini_writer). */
bool ini_entry_writable(const char *key, const char *value, char *why, size_t why_size);

/* The same for a section header `[name]`: no ']', line breaks, NUL or white space at either end. */
bool ini_section_writable(const char *name, char *why, size_t why_size);

/* The entry with this key, or NULL. A hash lookup. */
const ini_entry *ini_find_entry(const ini_section *section, const char *key);

/* The section with this name, or NULL. A hash lookup. */
const ini_section *ini_find_section(const ini_document *document, const char *name);

/* The length of the decimal number at the start of text, 0 when there is none: an optional sign, digits
 * with an optional '.' (at least one digit), an optional exponent ("e-3"). Hexadecimal ("0x1p3"), "inf" and
 * "nan" are not numbers in an ini file. */
size_t ini_number_length(const char *text);

/* text, all of it, as such a number within float range: false for "1.5m", "0x10", "nan", "1e39" (beyond
 * the largest float, refused rather than read as infinity). A value smaller than the smallest float
 * ("1e-50") reads as 0. base/decimal's grammar, as every config file reads numbers; a float as the animation
 * config stores them (config_values, CONFIG_RANGE_TO). */
bool ini_parse_float(const char *text, float *out);

/* Strip leading and trailing spaces and tabs in place, as libinih does to names and values. */
char *ini_trim(char *text);

#endif
