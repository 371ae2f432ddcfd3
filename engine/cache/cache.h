/* cache: loads models and clips by path once (with the reader the file's extension names and the build
 * step: engine/build/loader.h) and shares them. Entries are deduplicated by the file's
 * identity (device + inode, so "a/../b.md5mesh" and "b.md5mesh" are one entry) and version
 * (modification time + size: a file edited in place loads again as a new entry, for hot reload, while
 * users of the old version keep it), refcounted, and freed when the last user releases them. A clip is stored once however many models use it; each request
 * checks the clip's hierarchy against the requesting model's skeleton. An additive clip (a clip's frames
 * as differences from a reference frame, engine/build's build_additive_clip) is baked once per (clip file,
 * reference file, reference frame), whatever asks for it, and shared the same way; so is any other data
 * derived from a held clip (cache_load_derived: a memo keyed by the clip and the caller's key bytes), and a
 * model's levels of detail (cache_load_lods: the mesh simplifier run once per model and settings).
 * Handles are small typed values (sokol style); a released or stale handle resolves to NULL.
 * Knows nothing of GL; the renderer keeps its own buffers per model. */
#ifndef MARIONETTE_CACHE_H
#define MARIONETTE_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../base/diag.h"
#include "../build/build_lod.h"
#include "../build/retarget.h"
#include "../model/clip.h"
#include "../model/model.h"

typedef struct cache cache;
typedef struct cache_model_handle { uint32_t id; } cache_model_handle; /* 0: none */
typedef struct cache_clip_handle { uint32_t id; } cache_clip_handle;   /* 0: none */
typedef struct cache_derived_handle { uint32_t id; } cache_derived_handle; /* 0: none */
typedef struct cache_lods_handle { uint32_t id; } cache_lods_handle;       /* 0: none */

typedef struct cache_stats {
    int entries;           /* distinct files, additive bakes and derived data held */
    int models;
    int clips;             /* clips read from files */
    int additive_clips;    /* additive clips baked from them (cache_load_additive_clip) */
    int retargeted_clips;  /* clips baked for another skeleton (cache_load_retargeted_clip) */
    int retimed_clips;     /* clips played at another frame rate (cache_load_retimed_clip) */
    int all_clips;         /* every clip held, however it was made: the four counts above together */
    int derived;           /* data derived from clips (cache_load_derived) */
    int lods;              /* models' levels of detail (cache_load_lods) */
    size_t shared_bytes;   /* heap bytes of all held models and clips, additive ones included */
    size_t additive_bytes; /* of those, the additive clips' */
    size_t derived_bytes;  /* heap bytes of the derived data, their keys included (not in shared_bytes) */
    size_t lods_bytes;     /* heap bytes of the levels of detail held (not in shared_bytes: a renderer copies
                            * them to the GPU and lets go) */
    long derivations;      /* derive and build_lods calls made since cache_create, failed ones included: how often a
                            * memo missed */
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
 * clips read from files (cache_load_clip) or retargeted (cache_load_retargeted_clip). Baked on the first
 * request for that (source file, reference file, reference_frame; and which retargeted clips), with the files' versions as cache_load_clip tells them apart, and shared after
 * that: every character on one clip library, and all their entities, play one copy of the deltas. Adds one
 * user on success; cache_clip gives the clip and cache_release_clip drops the user. It needs neither
 * handle once made (they may be released). A file edited in place loads again as a new clip, so its
 * additive clip is baked again for whoever asks with the new handle, while users of the old one keep it.
 * On failure returns {0} and err says why: a handle that is stale, was never loaded or is itself an
 * additive clip, or what build_additive_clip refuses (another hierarchy, a frame out of range). */
cache_clip_handle cache_load_additive_clip(cache *c, cache_clip_handle source, cache_clip_handle reference,
                                           int reference_frame, diag *err);

/* Clip `source` (read from a file for model made_for) baked for model plays_on's skeleton through spec's two
 * joint maps (build_retargeted_clip, engine/build/retarget.h): once per (clip file, made_for's file,
 * plays_on's file, spec), with the files' versions as cache_load_clip tells them apart, and shared after
 * that, as additive clips are; it needs none of the three handles once made. The result is a clip of
 * plays_on's hierarchy: cache_clip gives it, cache_load_additive_clip may take it as source or reference, and
 * cache_release_clip drops the user. On failure returns {0} and err says why: a stale handle, a clip that is
 * not one read from a file, or what build_retargeted_clip refuses (a clip that does not fit made_for, a map
 * without legs). */
cache_clip_handle cache_load_retargeted_clip(cache *c, cache_clip_handle source, cache_model_handle made_for,
                                             cache_model_handle plays_on, const retarget_spec *spec, diag *err);

/* Clip `source` (read from a file, retargeted or retimed) played at frame_rate frames a second
 * (build_retimed_clip), made once per (its entry's file, which retargeting, frame_rate) and shared after that,
 * as additive clips are; it holds no user of source. cache_load_additive_clip may take it. {0} with err set
 * for a stale or additive handle or what build_retimed_clip refuses. */
cache_clip_handle cache_load_retimed_clip(cache *c, cache_clip_handle source, float frame_rate, diag *err);

/* Computes data from a clip and the key alone: it must read nothing else (no globals, no pointers
 * smuggled in the key), since its result is given to anyone asking with the same clip and key bytes. On
 * success it sets *out to a malloc'd block of *out_bytes bytes (the cache owns it then and frees it with
 * free) and returns true; on failure it returns false with err set and *out NULL. */
typedef bool (*cache_derive_fn)(const clip *source, const void *key, size_t key_bytes, void **out,
                                size_t *out_bytes, diag *err);

/* A memo of data derived from a held clip (file or additive): derive(clip, key) is called on the first
 * request for that (clip entry, derive, exact key bytes) and its result shared after that, read-only.
 * The entry is the clip entry's: the clip's file version, as cache_load_clip tells them apart, so a file
 * edited in place gives a new clip handle, and a request with it computes again, while users of the old
 * result keep theirs. The key must hold everything the result depends on besides the clip's data (it is
 * compared byte for byte, so zero any padding; keys differing in anything, even -0 against 0, are
 * different entries). The derived entry holds one user of its clip until it is freed, so the clip handle
 * may be released once this returns. Adds one user on success; cache_release_derived drops it, and the
 * data (and key copy) are freed with the last user. On failure returns {0} and err says why: a stale or
 * never loaded clip handle, no derive, a key of 0 bytes, or what derive reports (not memoised). */
cache_derived_handle cache_load_derived(cache *c, cache_clip_handle source, cache_derive_fn derive, const void *key,
                                        size_t key_bytes, diag *err);

/* A held model's levels of detail, build_lods(model, desc) (desc NULL: its defaults), made on the first request
 * for that model entry and those settings and shared after that, read-only; a model file edited in place
 * loads as a new model entry, whose levels are made again. The settings are compared field by field (a desc
 * spelling out a default value is another entry than one leaving it 0). The entry holds one user of its model
 * until it is freed, so the model handle may be released once this returns. Adds one user on success;
 * cache_release_lods drops it, and the levels are freed with the last user. On failure returns {0} and err
 * says why: a stale or never loaded model handle, or what build_lods reports (not memoised). */
cache_lods_handle cache_load_lods(cache *c, cache_model_handle model, const build_lod_desc *desc, diag *err);
const model_lods *cache_lods(const cache *c, cache_lods_handle h);

/* The derived bytes (NULL for {0} or a stale handle); bytes, when not NULL, gets their count. */
const void *cache_derived(const cache *c, cache_derived_handle h, size_t *bytes);

const model *cache_model(const cache *c, cache_model_handle h);
const clip *cache_clip(const cache *c, cache_clip_handle h);

/* Drop one user (of a model, a clip, an additive clip, derived data or levels of detail); the data is freed when none are left. Releasing
 * {0} or a stale handle does nothing. */
void cache_release_model(cache *c, cache_model_handle h);
void cache_release_clip(cache *c, cache_clip_handle h);
void cache_release_derived(cache *c, cache_derived_handle h);
void cache_release_lods(cache *c, cache_lods_handle h);

cache_stats cache_get_stats(const cache *c);

#endif
