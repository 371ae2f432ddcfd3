/* watch: see watch.h. Why a hash as well as the times: a file's modification time ticks coarser than
 * writes can come (whole seconds on some file systems, the kernel's clock tick on others), so a save in
 * two steps inside one tick leaves time, size and inode as they were after the first step. The bytes are
 * the only witness that cannot miss it. Reading them costs little for config files (a few KB, twice a
 * second), so small files are always hashed; a large file (a model) is hashed only while its time is
 * recent enough that another write could still share it. */
#include "watch.h"

#include "file.h"

#define XXH_STATIC_LINKING_ONLY /* XXH3_state_t's layout, so the state lives on the stack */
#include <xxhash.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

bool watch_hash_file(const char *path, size_t max_bytes, uint64_t *hash)
{
    /* The readers' rule (file.h): checked, opened without blocking, read to the size the check saw and no
     * further; a kernel file, a FIFO or a file over the limit is never opened here. open and read, not
     * fopen: a FILE is a heap block, and headless runs look at their files every frame. XXH3 (libxxhash)
     * reads 8 bytes at a step: a config load stamps every model, clip and texture it names, about 0.7 MB
     * for ours. */
    struct stat info;
    int file = file_open_checked(path, max_bytes, &info, NULL);
    if (file < 0)
        return false;
    XXH3_state_t state;
    XXH3_64bits_reset(&state);
    unsigned char buffer[16384];
    long long left = (long long)info.st_size;
    ssize_t got = 0;
    while (left > 0) {
        size_t want = left < (long long)sizeof buffer ? (size_t)left : sizeof buffer;
        got = read(file, buffer, want);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            break;
        XXH3_64bits_update(&state, buffer, (size_t)got);
        left -= got;
    }
    close(file);
    *hash = XXH3_64bits_digest(&state);
    return left == 0;
}

/* Whether a write could still land in the same time tick as the file's modification time: the time is
 * less than WATCH_SETTLE_SECONDS old, or in the future (a clock set back, a network file system's clock). */
static bool watch_time_recent(const watch_stamp *stamp)
{
    struct timespec now;
    if (clock_gettime(CLOCK_REALTIME, &now) != 0)
        return true;
    double age = (double)((long long)now.tv_sec - stamp->modified_seconds) +
                 1e-9 * (double)(now.tv_nsec - stamp->modified_nanoseconds);
    return age < WATCH_SETTLE_SECONDS;
}

/* stat, and the hash when the rules above want it. */
static void watch_look(const char *path, size_t max_bytes, watch_stamp *stamp, bool hash_anyway)
{
    struct stat status;
    *stamp = (watch_stamp){.taken = true, .max_bytes = max_bytes};
    if (!path || stat(path, &status) != 0)
        return;
    stamp->exists = true;
    stamp->size = (long long)status.st_size;
    stamp->modified_seconds = (long long)status.st_mtim.tv_sec;
    stamp->modified_nanoseconds = status.st_mtim.tv_nsec;
    stamp->inode = (unsigned long long)status.st_ino;
    stamp->device = (unsigned long long)status.st_dev;
    if (S_ISREG(status.st_mode) &&
        (hash_anyway || stamp->size <= WATCH_ALWAYS_HASH_BYTES || watch_time_recent(stamp)))
        stamp->hashed = watch_hash_file(path, max_bytes, &stamp->content_hash);
}

void watch_stamp_take(const char *path, size_t max_bytes, watch_stamp *stamp)
{
    watch_look(path, max_bytes, stamp, false);
}

bool watch_changed(const char *path, watch_stamp *stamp)
{
    if (!stamp->taken)
        return true;
    watch_stamp now;
    watch_look(path, stamp->max_bytes, &now, stamp->hashed);
    if (now.exists != stamp->exists || now.size != stamp->size || now.modified_seconds != stamp->modified_seconds ||
        now.modified_nanoseconds != stamp->modified_nanoseconds || now.inode != stamp->inode ||
        now.device != stamp->device)
        return true;
    if (stamp->hashed && (!now.hashed || now.content_hash != stamp->content_hash))
        return true;
    /* Same bytes: a large file whose time has settled need not be read again until its times move. */
    if (stamp->hashed && stamp->size > WATCH_ALWAYS_HASH_BYTES && !watch_time_recent(stamp))
        stamp->hashed = false;
    return false;
}

/* ---- watch sets ---- */

int watch_set_add(watch_set *set, const char *path, size_t max_bytes, bool take_stamp)
{
    for (int i = 0; i < set->count; ++i)
        if (strcmp(set->files[i].path, path) == 0)
            return i;
    if (set->count == set->capacity) {
        int capacity = set->capacity ? set->capacity * 2 : 16;
        watch_set_file *files = realloc(set->files, (size_t)capacity * sizeof *files);
        if (!files)
            return -1;
        set->files = files;
        set->capacity = capacity;
    }
    watch_set_file *file = &set->files[set->count];
    *file = (watch_set_file){.path = strdup(path)};
    if (!file->path)
        return -1;
    file->stamp.max_bytes = max_bytes;
    if (take_stamp)
        watch_stamp_take(file->path, max_bytes, &file->stamp);
    return set->count++;
}

bool watch_set_changed(const watch_set *set)
{
    for (int i = 0; i < set->count; ++i)
        if (watch_changed(set->files[i].path, &set->files[i].stamp))
            return true;
    return false;
}

bool watch_set_due(watch_set *set, int index, bool force)
{
    if (index < 0 || index >= set->count)
        return false;
    watch_set_file *file = &set->files[index];
    if (!force && !watch_changed(file->path, &file->stamp))
        return false;
    watch_stamp_take(file->path, file->stamp.max_bytes, &file->stamp);
    return true;
}

void watch_set_look(watch_set *set, int index)
{
    if (index >= 0 && index < set->count)
        watch_stamp_take(set->files[index].path, set->files[index].stamp.max_bytes, &set->files[index].stamp);
}

void watch_set_move(watch_set *to, watch_set *from)
{
    watch_set_free(to);
    *to = *from;
    *from = (watch_set){0};
}

void watch_set_free(watch_set *set)
{
    for (int i = 0; i < set->count; ++i)
        free(set->files[i].path);
    free(set->files);
    *set = (watch_set){0};
}
