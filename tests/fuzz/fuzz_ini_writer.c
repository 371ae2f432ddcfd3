/* fuzz_ini_writer: any bytes as the names and paths a writer of ini files is given (md5tool new-character
 * writes the paths of a stranger's files into characters.ini and clips.ini). The input is cut at 0x1e into
 * pieces; each becomes a section name (ini_section_writable) or a value (ini_entry_writable, under keys of
 * every length a writer uses). What the checks accept is written the way new-character writes it, `[name]`
 * and `key = value` lines, all pieces into one file; the file is read back with ini_document_parse, which
 * must report nothing and give back exactly the sections, keys and values written, in order. What the checks
 * refuse must have a reason. So "writable" is a promise about the reader, whatever the bytes. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/ini_document.h"
#include "fuzz_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { FUZZ_PIECES_MAX = 64 };

/* new-character's keys, and one as long as a texture override's can be. */
static const char *const fuzz_keys[] = {"mesh", "file", "clips", "texture.models/characters/body_diffuse"};

static void fuzz_count_report(void *context, const char *file, int line, const char *message)
{
    (void)file, (void)line, (void)message;
    ++*(int *)context;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *copy = malloc(size + 1);
    FUZZ_REQUIRE(copy != NULL);
    memcpy(copy, data, size);
    copy[size] = '\0';

    const char *names[FUZZ_PIECES_MAX], *sections[FUZZ_PIECES_MAX], *keys[FUZZ_PIECES_MAX], *values[FUZZ_PIECES_MAX];
    int written = 0, section_count = 0;
    size_t text_size = 64;
    char *pieces[FUZZ_PIECES_MAX];
    int piece_count = 0;
    /* Cut at 0x1e; a NUL ends a piece early (argv and file names cannot hold one). */
    for (char *cursor = copy; piece_count < FUZZ_PIECES_MAX && cursor <= copy + size;) {
        char *end = memchr(cursor, '\x1e', (size_t)(copy + size - cursor));
        if (end)
            *end = '\0';
        pieces[piece_count++] = cursor;
        if (!end)
            break;
        cursor = end + 1;
    }
    /* Piece 0 names the first section when writable (else "s"), the others are values under it; a piece
     * starting with 0x1d opens a new section. */
    const char *current = "s";
    for (int i = 0; i < piece_count; ++i) {
        char why[200] = "";
        const char *piece = pieces[i];
        if (i == 0 || piece[0] == '\x1d') {
            const char *name = i == 0 ? piece : piece + 1;
            bool writable = ini_section_writable(name, why, sizeof why);
            FUZZ_REQUIRE(writable || (why[0] && !strchr(why, '\n')));
            if (writable && !(section_count > 0 && strcmp(name, current) == 0)) {
                bool seen = false;
                for (int s = 0; s < section_count; ++s)
                    seen = seen || strcmp(names[s], name) == 0;
                if (!seen) { /* a section written twice is a duplicate the reader reports */
                    current = name;
                    names[section_count++] = name;
                    text_size += strlen(name) + 4;
                }
            }
            continue;
        }
        const char *key = fuzz_keys[i % (int)(sizeof fuzz_keys / sizeof fuzz_keys[0])];
        bool writable = ini_entry_writable(key, piece, why, sizeof why);
        FUZZ_REQUIRE(writable || (why[0] && !strchr(why, '\n')));
        if (!writable)
            continue;
        FUZZ_REQUIRE(strlen(key) + 3 + strlen(piece) <= INI_LINE_MAX);
        if (section_count == 0) {
            names[section_count++] = current;
            text_size += strlen(current) + 4;
        }
        /* One entry per key in a section (a second would be a duplicate): a new section when needed. */
        bool duplicate = false;
        for (int w = 0; w < written; ++w)
            duplicate = duplicate || (sections[w] == current && strcmp(keys[w], key) == 0);
        if (duplicate)
            continue;
        sections[written] = current, keys[written] = key, values[written] = piece;
        ++written;
        text_size += strlen(key) + strlen(piece) + 4;
    }

    /* Written as new-character writes: a header, then its entries. */
    char *text = malloc(text_size + (size_t)section_count * 4 + 16);
    FUZZ_REQUIRE(text != NULL);
    size_t used = 0;
    const char *open = NULL;
    for (int w = 0; w < written; ++w) {
        if (sections[w] != open) {
            used += (size_t)sprintf(text + used, "[%s]\n", sections[w]);
            open = sections[w];
        }
        used += (size_t)sprintf(text + used, "%s = %s\n", keys[w], values[w]);
    }
    int reports = 0;
    ini_document document;
    ini_document_parse(&document, "written.ini", text, used,
                       (config_reporter){.report = fuzz_count_report, .context = &reports});
    FUZZ_REQUIRE(reports == 0);
    int read_back = 0;
    for (int s = 0; s < document.section_count; ++s)
        for (int e = 0; e < document.sections[s].entry_count; ++e, ++read_back) {
            FUZZ_REQUIRE(read_back < written);
            FUZZ_REQUIRE(strcmp(document.sections[s].name, sections[read_back]) == 0);
            FUZZ_REQUIRE(strcmp(document.sections[s].entries[e].key, keys[read_back]) == 0);
            FUZZ_REQUIRE(strcmp(document.sections[s].entries[e].value, values[read_back]) == 0);
        }
    FUZZ_REQUIRE(read_back == written);
    ini_document_free(&document);
    free(text);
    free(copy);
    return 0;
}
