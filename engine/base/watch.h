/* watch: has a file changed since it was last looked at? One mechanism for every file a hot reload
 * watches (configs, and the models and clips they name). Knows nothing of what the files mean. */
#ifndef MARIONETTE_WATCH_H
#define MARIONETTE_WATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Files up to this size are compared by content (a hash of their bytes) on every look, whatever their
 * times say; larger ones only while their modification time is recent (WATCH_SETTLE_SECONDS). */
#define WATCH_ALWAYS_HASH_BYTES (256 * 1024)
/* A write cannot land in the same file-system time tick as one seen this long ago: coarse file systems
 * tick in 1 or 2 seconds (FAT: 2), most in nanoseconds or the kernel's clock tick; one more second is
 * margin for a file server's clock that runs behind ours. */
#define WATCH_SETTLE_SECONDS 3

/* What a look at a file saw. All zero is "never looked": any file differs from it. */
typedef struct watch_stamp {
    bool taken;
    bool exists;
    bool hashed; /* content_hash holds the bytes' hash: a small file, or one written recently */
    long long size;
    long long modified_seconds;
    long modified_nanoseconds;
    unsigned long long inode, device; /* an editor that saves by renaming a new file over the old changes them */
    uint64_t content_hash;            /* XXH3 64 of the bytes */
    size_t max_bytes;                 /* the file's reader's limit: larger files are never hashed */
} watch_stamp;

/* Look at the file now. Take the stamp BEFORE reading the file: a write that lands between the look and
 * the read then shows as a change at the next look (one reload too many, never one too few). The look is a
 * stat; the bytes are hashed only when the file passes its reader's check (file.h's rule with max_bytes, the
 * reader's limit), so what a reader would refuse (a FIFO, /proc/kmsg, a file over the limit) is never
 * opened: its stamp is its times and size, and it still shows as changed when those move. */
void watch_stamp_take(const char *path, size_t max_bytes, watch_stamp *stamp);

/* True when the file differs from what the stamp saw: appeared, vanished, replaced, resized, touched, or
 * the same size and time with other bytes (a save in two steps inside one time tick). It does not move
 * the stamp on, except to stop hashing a large file once its time is old enough to settle (so a big
 * model is not read twice a second for ever). */
bool watch_changed(const char *path, watch_stamp *stamp);

/* A set of watched files: the files a hot reload depends on (a config and everything it read, or the
 * demo's own settings files), each with the stamp of its last look. Paths are copied. */
typedef struct watch_set_file {
    char *path;
    watch_stamp stamp;
} watch_set_file;

typedef struct watch_set {
    int count, capacity;
    watch_set_file *files; /* in the order added */
} watch_set;

/* Add path unless the set has it already, looking at it now (take_stamp: see watch_stamp_take; call before
 * reading the file) or leaving its stamp at "never looked", so it differs at the first look. max_bytes is
 * the limit of the reader that reads it. Returns its index, or -1 when out of memory (not watching one file
 * is better than failing a load). */
int watch_set_add(watch_set *set, const char *path, size_t max_bytes, bool take_stamp);

/* True when any file of the set changed (watch_changed); stamps are not moved on, so the caller decides when
 * a reload has read them (by loading afresh into a new set). A const set still notes a large file settling. */
bool watch_set_changed(const watch_set *set);

/* The file at index changed (or force): its stamp is taken again now, before the caller reads the file (a
 * write between the two shows as a change at the next look, never as none), and true is returned. */
bool watch_set_due(watch_set *set, int index, bool force);

/* Look at the file at index now (watch_stamp_take), before reading it outside watch_set_due. */
void watch_set_look(watch_set *set, int index);

/* Free to's files and hand it from's; from is left empty. */
void watch_set_move(watch_set *to, watch_set *from);

void watch_set_free(watch_set *set);

/* XXH3 64 (libxxhash) of the file's bytes, with no heap use (not even a FILE); false when it cannot be
 * read or does not pass file.h's check with max_bytes (then nothing is opened). */
bool watch_hash_file(const char *path, size_t max_bytes, uint64_t *hash);

#endif
