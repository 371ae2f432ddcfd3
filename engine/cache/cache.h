/* cache: loads models and clips by path once (with the reader the file's extension names and the build
 * step: engine/build/loader.h) and shares them. Entries are deduplicated by the file's
 * identity (device + inode, so "a/../b.md5mesh" and "b.md5mesh" are one entry) and version
 * (modification time + size: a file edited in place loads again as a new entry, for hot reload, while
 * users of the old version keep it), refcounted, and freed when the last user releases them. A clip is stored once however many models use it; each request
 * checks the clip's hierarchy against the requesting model's skeleton. An additive clip (a clip's frames
 * as differences from a reference frame, engine/build's build_additive_clip) is baked once per (clip file,
 * reference file, reference frame), whatever asks for it, and shared the same way.
 * Handles are small typed values (sokol style); a released or stale handle resolves to NULL.
 * Knows nothing of GL; the renderer keeps its own buffers per model. */
#ifndef MARIONETTE_CACHE_H
#define MARIONETTE_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../base/diag.h"
#include "../model/clip.h"
#include "../model/model.h"

typedef struct cache cache;
typedef struct cache_model_handle { uint32_t id; } cache_model_handle; /* 0: none */
typedef struct cache_clip_handle { uint32_t id; } cache_clip_handle;   /* 0: none */

typedef struct cache_stats {
    int entries;           /* distinct files and additive bakes held */
    int models;
    int clips;             /* clips read from files */
    int additive_clips;    /* additive clips baked from them (cache_load_additive_clip) */
    size_t shared_bytes;   /* heap bytes of all held models and clips, additive ones included */
    size_t additive_bytes; /* of those, the additive clips' */
    int users;             /* sum of reference counts */
} cache_stats;

cache *cache_create(void);
void cache_destroy(cache *c);

/* Load (or find) a model; adds one user. On failure returns {0} and fills err. warnings may be NULL and
 * only receives warnings on the first load of a file. */
cache_model_handle cache_load_model(cache *c, const char *path, diag *err, diag_list *warnings);

/* Load (or find) a clip and check that it fits the model's skeleton; adds one user on success. */
cache_clip_handle cache_load_clip(cache *c, const char *path, cache_model_handle for_model, diag *err,
                                  diag_list *warnings);

/* The additive clip made of clip `source`'s frames as their differences from frame reference_frame of clip
 * `reference` (build_additive_clip; reference may be source: "its own first frame"), both handles of
 * clips read from files (cache_load_clip). Baked on the first request for that (source file, reference
 * file, reference_frame), with the files' versions as cache_load_clip tells them apart, and shared after
 * that: every character on one clip library, and all their entities, play one copy of the deltas. Adds one
 * user on success; cache_clip gives the clip and cache_release_clip drops the user. It needs neither
 * handle once made (they may be released). A file edited in place loads again as a new clip, so its
 * additive clip is baked again for whoever asks with the new handle, while users of the old one keep it.
 * On failure returns {0} and err says why: a handle that is stale, was never loaded or is itself an
 * additive clip, or what build_additive_clip refuses (another hierarchy, a frame out of range). */
cache_clip_handle cache_load_additive_clip(cache *c, cache_clip_handle source, cache_clip_handle reference,
                                           int reference_frame, diag *err);

const model *cache_model(const cache *c, cache_model_handle h);
const clip *cache_clip(const cache *c, cache_clip_handle h);

/* Drop one user (of a model, a clip or an additive clip); the data is freed when none are left. Releasing
 * {0} or a stale handle does nothing. */
void cache_release_model(cache *c, cache_model_handle h);
void cache_release_clip(cache *c, cache_clip_handle h);

cache_stats cache_get_stats(const cache *c);

#endif
