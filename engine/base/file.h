/* file: checked whole-file reads for the loaders, and writes that never lose the file they replace.
 * Knows nothing of formats. */
#ifndef MARIONETTE_FILE_H
#define MARIONETTE_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "diag.h"

struct stat;

/* Which file, and which version of it: two spellings of one file (a/../b, a hard or symbolic link) share
 * device and inode; an edit in place changes the modification time or the size. */
typedef struct file_identity {
    uint64_t device, inode;
    int64_t modified_ns;
    int64_t size;
} file_identity;

bool file_identity_equal(const file_identity *a, const file_identity *b);

/* One rule for every file a config, a script or the command line names: it is checked before anything opens,
 * hashes or stamps it, and the check is file_check's. A file passes when it is a regular file (not a
 * folder, FIFO, device or socket), not on a kernel file system (procfs, sysfs and their kind: a "regular"
 * file there says size 0 or 4096 whatever reading it gives, and reading some blocks for ever, such as
 * /proc/kmsg), and no larger than the limit its reader sets (the *_MAX_FILE_BYTES of md5.h, ini_document.h,
 * image.h, input_script.h). Then it is opened without blocking (a FIFO swapped in after the check is refused,
 * not waited on), checked again on what was opened, and read to the size the check saw and no further.
 * Where a file may come from (inside a searched folder) is the caller's part: file_is_inside. */

/* The check alone: identity (may be NULL) gets the file's. Nothing is opened. */
bool file_check(const char *path, size_t max_bytes, file_identity *identity, diag *err);

/* Open the checked file for reading without blocking; -1 with err set when the check or the open fails.
 * info gets what was opened (size: the most a caller reads). Close with close(). */
int file_open_checked(const char *path, size_t max_bytes, struct stat *info, diag *err);

/* Read the checked file at path into a new buffer with a NUL after the last byte (not counted in *size).
 * identity (may be NULL) gets the opened file's. Free with free(). */
bool file_read_bounded(const char *path, size_t max_bytes, char **data, size_t *size, file_identity *identity,
                       diag *err);

/* file_read_bounded without the identity. */
bool file_read_all(const char *path, size_t max_bytes, char **data, size_t *size, diag *err);

/* True when path passes file_check and this process can open it for reading (what a search for a file by
 * candidate names wants to know before it settles on one). */
bool file_is_readable(const char *path, size_t max_bytes);

/* True when path, every symbolic link followed, names something under folder (itself resolved the same
 * way): what a search confined to a folder checks, so a link inside it cannot lead out. */
bool file_is_inside(const char *path, const char *folder);

/* Writing a file so that the one it replaces is never lost: the bytes go to a new file beside the target
 * (same folder, so the rename cannot cross file systems), which is renamed over the target only when every
 * write, the flush and the close succeeded. A failure leaves the target as it was (or absent) and the
 * temporary file removed, with the first error in err as "path: what failed: strerror(errno)". Reading the
 * target before committing is fine (IN == OUT: convert a file in place). A symbolic link at the target is
 * replaced by the file, not written through. A new file gets the mode 0666 less the umask, a replaced one
 * keeps its mode. A target that is a device or a FIFO (/dev/null, /dev/stdout, a pipe) has no file to lose:
 * it is written straight to (a FIFO nobody reads is refused, not waited on), never renamed over. */
typedef struct file_writer {
    FILE *stream;    /* write here: the temporary file, or NULL once committed or abandoned */
    int descriptor;  /* the stream's own; the stream points at this struct, so it must not be copied */
    int failure;     /* the first failed write's errno */
    bool direct;     /* the target is a device or a FIFO: written straight to, nothing renamed */
    char path[4096]; /* the target */
    char temporary[4096 + 16];
} file_writer;

/* Create the temporary file beside path; false with err set (the folder does not exist, is not writable). */
bool file_writer_open(file_writer *writer, const char *path, diag *err);

/* Flush, close and rename over the target; false with err set (the disk is full: ENOSPC, a file size
 * limit: EFBIG), the temporary file removed and the target untouched. */
bool file_writer_commit(file_writer *writer, diag *err);

/* Remove the temporary file, leaving the target as it was (the writer found the content is wrong). */
void file_writer_abandon(file_writer *writer);

/* A file_writer for bytes already made: the target replaced by them whole, or left as it was with err set. */
bool file_write_all(const char *path, const void *bytes, size_t size, diag *err);

/* The file_writer's temporary file is committed only when ok; otherwise abandoned. For writers that fill the
 * stream with a function returning whether it could: returns whether the target was replaced. err is set
 * when the write failed, and left alone when ok was false (the caller says why its content failed). */
bool file_writer_finish(file_writer *writer, bool ok, diag *err);

#endif
