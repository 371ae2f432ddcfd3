/* file: whole-file reads for the loaders. Knows nothing of formats. */
#ifndef MARIONETTE_FILE_H
#define MARIONETTE_FILE_H

#include <stdbool.h>
#include <stddef.h>

#include "diag.h"

/* Read the regular file at path into a new buffer with a NUL after the last byte (not counted in *size).
 * Folders, devices and unreadable files fail with a diag naming path. Free with free(). */
bool file_read_all(const char *path, char **data, size_t *size, diag *err);

/* True when path is a regular file this process can open for reading (what a search for a file by
 * candidate names wants to know before it settles on one). */
bool file_is_readable(const char *path);

#endif
