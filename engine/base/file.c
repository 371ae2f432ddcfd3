/* realpath is X/Open (the build defines only POSIX 2008). */
#define _XOPEN_SOURCE 700

#include "file.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

bool file_read_all(const char *path, char **data, size_t *size, diag *err)
{
    *data = NULL;
    *size = 0;
    /* Refuse folders, FIFOs and devices before opening: opening a FIFO blocks until a writer comes. */
    struct stat info;
    if (stat(path, &info) != 0)
        return diag_set(err, path, 0, "cannot open: %s", strerror(errno));
    if (!S_ISREG(info.st_mode))
        return diag_set(err, path, 0, "not a regular file");
    FILE *f = fopen(path, "rb");
    if (!f)
        return diag_set(err, path, 0, "cannot open: %s", strerror(errno));
    /* The file may have been replaced between stat and open: size it from what was opened. */
    if (fstat(fileno(f), &info) != 0 || !S_ISREG(info.st_mode)) {
        fclose(f);
        return diag_set(err, path, 0, "not a regular file");
    }
    size_t length = (size_t)info.st_size;
    char *buffer = malloc(length + 1);
    if (!buffer) {
        fclose(f);
        return diag_set(err, path, 0, "out of memory reading %zu bytes", length);
    }
    size_t got = fread(buffer, 1, length, f);
    bool failed = ferror(f) != 0;
    fclose(f);
    if (failed || got != length) {
        free(buffer);
        return diag_set(err, path, 0, "read error (%zu of %zu bytes)", got, length);
    }
    buffer[length] = '\0';
    *data = buffer;
    *size = length;
    return true;
}

bool file_is_readable(const char *path)
{
    struct stat info;
    if (!path || stat(path, &info) != 0 || !S_ISREG(info.st_mode))
        return false;
    /* Without blocking: a FIFO put in the file's place after the stat is refused, not waited on. */
    int descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (descriptor < 0)
        return false;
    bool regular = fstat(descriptor, &info) == 0 && S_ISREG(info.st_mode);
    close(descriptor);
    return regular;
}

static file_identity identity_of(const struct stat *info)
{
    return (file_identity){.device = (uint64_t)info->st_dev,
                           .inode = (uint64_t)info->st_ino,
                           .modified_ns = (int64_t)info->st_mtim.tv_sec * 1000000000 + info->st_mtim.tv_nsec,
                           .size = (int64_t)info->st_size};
}

bool file_identity_equal(const file_identity *a, const file_identity *b)
{
    return a->device == b->device && a->inode == b->inode && a->modified_ns == b->modified_ns &&
           a->size == b->size;
}

bool file_identify(const char *path, file_identity *identity, diag *err)
{
    struct stat info;
    if (!path || stat(path, &info) != 0)
        return diag_set(err, path ? path : "(null)", 0, "cannot open: %s", path ? strerror(errno) : "no path");
    if (!S_ISREG(info.st_mode))
        return diag_set(err, path, 0, "not a regular file (a folder, device, FIFO or socket); not opened");
    *identity = identity_of(&info);
    return true;
}

bool file_read_bounded(const char *path, size_t max_bytes, char **data, size_t *size, file_identity *identity,
                       diag *err)
{
    *data = NULL;
    *size = 0;
    file_identity checked;
    if (!file_identify(path, &checked, err))
        return false;
    int descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (descriptor < 0)
        return diag_set(err, path, 0, "cannot open: %s", strerror(errno));
    struct stat info;
    if (fstat(descriptor, &info) != 0 || !S_ISREG(info.st_mode)) {
        close(descriptor);
        return diag_set(err, path, 0, "not a regular file (a folder, device, FIFO or socket); not read");
    }
    if ((uint64_t)info.st_size > (uint64_t)max_bytes) {
        close(descriptor);
        return diag_set(err, path, 0, "%lld bytes, more than the %zu allowed; not read", (long long)info.st_size,
                        max_bytes);
    }
    size_t length = (size_t)info.st_size;
    char *buffer = malloc(length + 1);
    if (!buffer) {
        close(descriptor);
        return diag_set(err, path, 0, "out of memory reading %zu bytes", length);
    }
    size_t got = 0;
    while (got < length) {
        ssize_t n = read(descriptor, buffer + got, length - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    close(descriptor);
    if (got != length) {
        free(buffer);
        return diag_set(err, path, 0, "read error (%zu of %zu bytes)", got, length);
    }
    buffer[length] = '\0';
    *data = buffer;
    *size = length;
    if (identity)
        *identity = identity_of(&info);
    return true;
}

bool file_is_inside(const char *path, const char *folder)
{
    char real_path[PATH_MAX], real_folder[PATH_MAX];
    if (!path || !folder || !realpath(path, real_path) || !realpath(folder[0] ? folder : ".", real_folder))
        return false;
    size_t length = strlen(real_folder);
    if (length == 1 && real_folder[0] == '/')
        return true;
    return strncmp(real_path, real_folder, length) == 0 && (real_path[length] == '/' || real_path[length] == '\0');
}
