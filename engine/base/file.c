/* realpath and mkstemp are X/Open; fopencookie (a stream whose writes keep their errno) is GNU's. */
#define _GNU_SOURCE

#include "file.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#ifdef __linux__
#include <linux/magic.h>
#endif

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

/* The kernel's file systems whose "regular" files are interfaces, not stored bytes: their size says nothing
 * of what a read gives (0 for /proc/self/pagemap, which reads about 256 GB), and some block a reader for
 * ever (/proc/kmsg). NULL for a file system that stores files. */
static const char *kernel_file_system(const struct statfs *system)
{
#ifdef __linux__
    static const struct {
        unsigned long magic;
        const char *name;
    } kinds[] = {
        {PROC_SUPER_MAGIC, "procfs"},     {SYSFS_MAGIC, "sysfs"},           {DEBUGFS_MAGIC, "debugfs"},
        {TRACEFS_MAGIC, "tracefs"},       {SECURITYFS_MAGIC, "securityfs"}, {CGROUP_SUPER_MAGIC, "cgroupfs"},
        {CGROUP2_SUPER_MAGIC, "cgroup2"}, {BPF_FS_MAGIC, "bpffs"},          {PSTOREFS_MAGIC, "pstore"},
        {EFIVARFS_MAGIC, "efivarfs"},     {0x62656570UL, "configfs"},
    };
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; ++i)
        if ((unsigned long)system->f_type == kinds[i].magic)
            return kinds[i].name;
#else
    (void)system;
#endif
    return NULL;
}

/* The rule of file.h on what stat and statfs said (of the path, or of what was opened). */
static bool check_status(const char *path, const struct stat *info, const struct statfs *system, size_t max_bytes,
                         const char *not_done, diag *err)
{
    if (S_ISDIR(info->st_mode))
        return diag_set(err, path, 0, "is a folder, not a file");
    if (!S_ISREG(info->st_mode))
        return diag_set(err, path, 0, "not a regular file (a device, FIFO or socket); not %s", not_done);
    const char *kernel = kernel_file_system(system);
    if (kernel)
        return diag_set(err, path, 0, "a kernel file on %s, not stored bytes (its size says nothing of what it holds); "
                                      "not %s", kernel, not_done);
    if ((uint64_t)info->st_size > (uint64_t)max_bytes)
        return diag_set(err, path, 0, "%lld bytes, more than the %zu allowed; not %s", (long long)info->st_size,
                        max_bytes, not_done);
    return true;
}

bool file_check(const char *path, size_t max_bytes, file_identity *identity, diag *err)
{
    struct stat info;
    struct statfs system;
    if (!path || !path[0])
        return diag_set(err, path ? path : "(null)", 0, "cannot open: no path");
    if (stat(path, &info) != 0 || statfs(path, &system) != 0)
        return diag_set(err, path, 0, "cannot open: %s", strerror(errno));
    if (!check_status(path, &info, &system, max_bytes, "opened", err))
        return false;
    if (identity)
        *identity = identity_of(&info);
    return true;
}

int file_open_checked(const char *path, size_t max_bytes, struct stat *info, diag *err)
{
    if (!file_check(path, max_bytes, NULL, err))
        return -1;
    /* O_NONBLOCK: a FIFO put in the file's place after the check is refused below, not waited on. */
    int descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (descriptor < 0) {
        diag_set(err, path, 0, "cannot open: %s", strerror(errno));
        return -1;
    }
    struct statfs system;
    if (fstat(descriptor, info) != 0 || fstatfs(descriptor, &system) != 0 ||
        !check_status(path, info, &system, max_bytes, "read", err)) {
        if (err && !err->message[0])
            diag_set(err, path, 0, "cannot look at what was opened: %s", strerror(errno));
        close(descriptor);
        return -1;
    }
    return descriptor;
}

bool file_read_bounded(const char *path, size_t max_bytes, char **data, size_t *size, file_identity *identity,
                       diag *err)
{
    *data = NULL;
    *size = 0;
    if (err)
        err->message[0] = '\0';
    struct stat info;
    int descriptor = file_open_checked(path, max_bytes, &info, err);
    if (descriptor < 0)
        return false;
    size_t length = (size_t)info.st_size;
    char *buffer = malloc(length + 1);
    if (!buffer) {
        close(descriptor);
        return diag_set(err, path, 0, "out of memory reading %zu bytes", length);
    }
    /* The size fstat gave and no further: a file that grows while it is read is read as it was. */
    size_t got = 0;
    int failure = 0;
    while (got < length) {
        ssize_t n = read(descriptor, buffer + got, length - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            failure = errno;
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    close(descriptor);
    if (got != length) {
        free(buffer);
        if (failure)
            return diag_set(err, path, 0, "read error after %zu of %zu bytes: %s", got, length, strerror(failure));
        return diag_set(err, path, 0, "read error: the file ended after %zu of %zu bytes", got, length);
    }
    buffer[length] = '\0';
    *data = buffer;
    *size = length;
    if (identity)
        *identity = identity_of(&info);
    return true;
}

bool file_read_all(const char *path, size_t max_bytes, char **data, size_t *size, diag *err)
{
    return file_read_bounded(path, max_bytes, data, size, NULL, err);
}

bool file_is_readable(const char *path, size_t max_bytes)
{
    struct stat info;
    diag ignored;
    int descriptor = file_open_checked(path, max_bytes, &info, &ignored);
    if (descriptor < 0)
        return false;
    close(descriptor);
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

/* ---- writing ---- */

/* The stream's writes, so the first failure's errno is kept: stdio keeps only an error flag, and the errno
 * of a failed buffered write is gone by the time anyone asks (a full disk would say nothing). */
static ssize_t writer_write(void *cookie, const char *bytes, size_t size)
{
    file_writer *writer = cookie;
    size_t done = 0;
    while (done < size) {
        ssize_t n = write(writer->descriptor, bytes + done, size - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            if (!writer->failure)
                writer->failure = n < 0 ? errno : ENOSPC;
            return done ? (ssize_t)done : -1;
        }
        done += (size_t)n;
    }
    return (ssize_t)done;
}

static int writer_close(void *cookie)
{
    file_writer *writer = cookie;
    int status = 0;
    /* fsync: the rename must not land before the bytes do (a crash would leave an empty file in its place).
     * EINVAL: the file is on something that cannot sync (a pipe-like target); the bytes went anyway. */
    if (!writer->failure && !writer->direct && fsync(writer->descriptor) != 0 && errno != EINVAL)
        writer->failure = errno;
    if (close(writer->descriptor) != 0 && !writer->failure)
        writer->failure = errno;
    writer->descriptor = -1;
    if (writer->failure)
        status = -1;
    return status;
}

bool file_writer_open(file_writer *writer, const char *path, diag *err)
{
    *writer = (file_writer){.descriptor = -1};
    if (!path || !path[0])
        return diag_set(err, "(null)", 0, "cannot write: no path");
    size_t length = strlen(path);
    if (length >= sizeof writer->path)
        return diag_set(err, path, 0, "cannot write: the path is longer than %zu bytes", sizeof writer->path - 1);
    struct stat info;
    if (stat(path, &info) == 0 && S_ISDIR(info.st_mode))
        return diag_set(err, path, 0, "cannot write: it is a folder");
    memcpy(writer->path, path, length + 1);
    if (stat(path, &info) == 0 && !S_ISREG(info.st_mode)) {
        /* A device or a FIFO (/dev/null, /dev/stdout, a pipe): there is no file to lose, and renaming over
         * it would replace the device itself. Written straight to, without blocking on a FIFO nobody reads. */
        writer->direct = true;
        writer->descriptor = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
        if (writer->descriptor < 0)
            return diag_set(err, path, 0, "cannot write: %s", strerror(errno));
        int flags = fcntl(writer->descriptor, F_GETFL);
        if (flags >= 0)
            (void)fcntl(writer->descriptor, F_SETFL, flags & ~O_NONBLOCK);
    } else {
        /* Beside the target, named after it, so a crash leaves an obvious leftover next to it. */
        snprintf(writer->temporary, sizeof writer->temporary, "%s.XXXXXX", path);
        writer->descriptor = mkostemp(writer->temporary, O_CLOEXEC);
        if (writer->descriptor < 0)
            return diag_set(err, path, 0, "cannot write: %s", strerror(errno));
        /* mkstemp makes 0600; a replaced file keeps its mode, a new one gets what open(O_CREAT, 0666) gives. */
        mode_t mode;
        if (stat(path, &info) == 0 && S_ISREG(info.st_mode)) {
            mode = info.st_mode & 07777;
        } else {
            mode_t mask = umask(0);
            umask(mask);
            mode = 0666 & ~mask;
        }
        (void)!fchmod(writer->descriptor, mode); /* not fatal: the bytes are what matters */
    }
    writer->stream = fopencookie(writer, "wb", (cookie_io_functions_t){.write = writer_write, .close = writer_close});
    if (!writer->stream) {
        int failure = errno;
        close(writer->descriptor);
        if (!writer->direct)
            unlink(writer->temporary);
        return diag_set(err, path, 0, "cannot write: %s", strerror(failure));
    }
    return true;
}

bool file_writer_commit(file_writer *writer, diag *err)
{
    if (!writer->stream)
        return diag_set(err, writer->path, 0, "cannot write: the file was not opened");
    FILE *stream = writer->stream;
    writer->stream = NULL;
    bool wrote = !ferror(stream) && fflush(stream) == 0;
    wrote = fclose(stream) == 0 && wrote && !writer->failure;
    if (writer->direct)
        return wrote || diag_set(err, writer->path, 0, "cannot write: %s",
                                 strerror(writer->failure ? writer->failure : EIO));
    if (!wrote) {
        unlink(writer->temporary);
        return diag_set(err, writer->path, 0, "cannot write: %s; the file is left as it was",
                        strerror(writer->failure ? writer->failure : EIO));
    }
    if (rename(writer->temporary, writer->path) != 0) {
        int failure = errno;
        unlink(writer->temporary);
        return diag_set(err, writer->path, 0, "cannot replace it: %s; the file is left as it was", strerror(failure));
    }
    return true;
}

void file_writer_abandon(file_writer *writer)
{
    if (!writer->stream)
        return;
    writer->failure = ECANCELED; /* no fsync for bytes about to be removed */
    fclose(writer->stream);
    writer->stream = NULL;
    if (!writer->direct)
        unlink(writer->temporary);
}

bool file_writer_finish(file_writer *writer, bool ok, diag *err)
{
    if (!ok) {
        file_writer_abandon(writer);
        return false;
    }
    return file_writer_commit(writer, err);
}

bool file_write_all(const char *path, const void *bytes, size_t size, diag *err)
{
    file_writer writer;
    if (!file_writer_open(&writer, path, err))
        return false;
    fwrite(bytes, 1, size, writer.stream);
    return file_writer_commit(&writer, err);
}
