/* file: whole-file reads for the loaders. Knows nothing of formats. */
#ifndef MARIONETTE_FILE_H
#define MARIONETTE_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"

/* Read the regular file at path into a new buffer with a NUL after the last byte (not counted in *size).
 * Folders, devices and unreadable files fail with a diag naming path. Free with free(). */
bool file_read_all(const char *path, char **data, size_t *size, diag *err);

/* True when path is a regular file this process can open for reading (what a search for a file by
 * candidate names wants to know before it settles on one). */
bool file_is_readable(const char *path);

/* Which file, and which version of it: two spellings of one file (a/../b, a hard or symbolic link) share
 * device and inode; an edit in place changes the modification time or the size. */
typedef struct file_identity {
    uint64_t device, inode;
    int64_t modified_ns;
    int64_t size;
} file_identity;

bool file_identity_equal(const file_identity *a, const file_identity *b);

/* The identity of the regular file at path, without opening it. Folders, FIFOs, devices and sockets are
 * refused here, before anything opens them (opening a FIFO blocks until a writer comes). */
bool file_identify(const char *path, file_identity *identity, diag *err);

/* file_read_all for files a folder of downloaded assets names: refused before opening unless regular,
 * opened without blocking (a FIFO swapped in after the check is refused, not waited on), checked again on
 * what was opened, and refused without reading when larger than max_bytes. identity (may be NULL) gets
 * the opened file's. */
bool file_read_bounded(const char *path, size_t max_bytes, char **data, size_t *size, file_identity *identity,
                       diag *err);

/* True when path, every symbolic link followed, names something under folder (itself resolved the same
 * way): what a search confined to a folder checks, so a link inside it cannot lead out. */
bool file_is_inside(const char *path, const char *folder);

#endif
