/* test_files: the small file chores the tests share: a fresh folder under the build tree, writing and reading
 * whole files, printing diags, moving a file's time forward, and capturing what a writer puts on a FILE * in memory. */
#ifndef MARIONETTE_TEST_FILES_H
#define MARIONETTE_TEST_FILES_H

#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/diag.h"
#include "check.h"

/* Every diag of a list on stderr, one `file:line: message` a line: what a failed load said. */
static inline void test_print_diags(const diag_list *errors)
{
    for (int i = 0; i < errors->count; ++i) {
        char text[DIAG_TEXT_MAX];
        diag_format(&errors->items[i], text, sizeof text);
        fprintf(stderr, "  %s\n", text);
    }
}

/* A new empty folder MARIONETTE_BUILD_DIR/<prefix>_XXXXXX; its path goes to `out`. */
static inline bool test_make_temp_folder(char *out, size_t size, const char *prefix)
{
    int length = snprintf(out, size, "%s/%s_XXXXXX", MARIONETTE_BUILD_DIR, prefix);
    return length > 0 && (size_t)length < size && mkdtemp(out) != NULL;
}

/* Fills in paths inside `folder`: after `size` come pairs of a char[size] to fill and a file name, then NULL.
 * False if a path does not fit. */
static inline bool test_paths_in(const char *folder, size_t size, ...)
{
    bool fits = true;
    va_list pairs;
    va_start(pairs, size);
    for (char *path = va_arg(pairs, char *); path; path = va_arg(pairs, char *)) {
        int length = snprintf(path, size, "%s/%s", folder, va_arg(pairs, const char *));
        fits = fits && length > 0 && (size_t)length < size;
    }
    va_end(pairs);
    return fits;
}

/* Writes exactly `size` bytes; false if the file cannot be opened, written or closed. */
static inline bool test_write_bytes(const char *path, const void *data, size_t size)
{
    FILE *file = fopen(path, "wb");
    if (!file)
        return false;
    bool written = fwrite(data, 1, size, file) == size;
    return fclose(file) == 0 && written;
}

static inline void test_write_file(const char *path, const char *text)
{
    CHECK(test_write_bytes(path, text, strlen(text)));
}

/* The whole file with a '\0' after it, to free(); NULL if it cannot be read. `size` may be NULL. */
static inline char *test_read_file(const char *path, size_t *size)
{
    FILE *file = fopen(path, "rb");
    if (!file)
        return NULL;
    char *text = NULL;
    long length = fseek(file, 0, SEEK_END) == 0 ? ftell(file) : -1;
    if (length >= 0 && fseek(file, 0, SEEK_SET) == 0 && (text = malloc((size_t)length + 1)) != NULL) {
        if (fread(text, 1, (size_t)length, file) == (size_t)length) {
            text[length] = '\0';
            if (size)
                *size = (size_t)length;
        } else {
            free(text);
            text = NULL;
        }
    }
    fclose(file);
    return text;
}

/* Editors and fast tests can write twice within one timestamp tick: move the time clearly forward. */
static inline void test_touch_forward(const char *path, int seconds)
{
    struct stat status;
    CHECK(stat(path, &status) == 0);
    struct timespec times[2] = {status.st_atim, status.st_mtim};
    times[1].tv_sec += seconds;
    CHECK(utimensat(AT_FDCWD, path, times, 0) == 0);
}

/* What a writer puts on a FILE *, kept in memory:
 *   test_buffer b; FILE *f = test_memory_open(&b); return test_memory_close(f, f && write_something(f), &b); */
typedef struct test_buffer {
    char *bytes;
    size_t size;
} test_buffer;

static inline FILE *test_memory_open(test_buffer *buffer)
{
    *buffer = (test_buffer){NULL, 0};
    FILE *stream = open_memstream(&buffer->bytes, &buffer->size);
    CHECK(stream != NULL);
    return stream;
}

/* Closing settles the buffer's bytes and size; the buffer is returned for the caller to free its bytes.
 * Nothing to check when the stream never opened. */
static inline test_buffer test_memory_close(FILE *stream, bool written, const test_buffer *buffer)
{
    if (stream) {
        fclose(stream);
        CHECK(written);
    }
    return *buffer;
}

#endif
