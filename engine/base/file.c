#include "file.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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
    FILE *file = fopen(path, "rb");
    if (!file)
        return false;
    fclose(file);
    return true;
}
