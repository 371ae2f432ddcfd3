/* fuzz_parts: one fuzz input as several files a loader reads. The input is cut at record-separator bytes
 * (0x1e, which no config or script needs) and part i is written to paths[i], in a folder of the process's
 * own; a part past the input's end is a missing file. Harness code only. */
#ifndef MARIONETTE_FUZZ_PARTS_H
#define MARIONETTE_FUZZ_PARTS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_check.h"

enum { FUZZ_PATH_MAX = 512 };

/* A new folder under $TMPDIR (or /tmp) named marionette_fuzz_NAME_XXXXXX, into folder. */
static inline void fuzz_make_folder(char folder[FUZZ_PATH_MAX], const char *name)
{
    const char *temporary = getenv("TMPDIR");
    snprintf(folder, FUZZ_PATH_MAX, "%s/marionette_fuzz_%s_XXXXXX", temporary ? temporary : "/tmp", name);
    FUZZ_REQUIRE(mkdtemp(folder) != NULL);
}

static inline void fuzz_write_parts(char (*paths)[FUZZ_PATH_MAX], int count, const uint8_t *data, size_t size)
{
    size_t start = 0;
    for (int i = 0; i < count; ++i) {
        if (start > size) {
            unlink(paths[i]);
            continue;
        }
        const uint8_t *end = memchr(data + start, '\x1e', size - start);
        size_t length = end ? (size_t)(end - (data + start)) : size - start;
        FILE *file = fopen(paths[i], "wb");
        FUZZ_REQUIRE(file != NULL);
        FUZZ_REQUIRE(length == 0 || fwrite(data + start, 1, length, file) == length);
        FUZZ_REQUIRE(fclose(file) == 0);
        start += length + 1; /* past the separator; past the end when there was none */
    }
}

#endif
