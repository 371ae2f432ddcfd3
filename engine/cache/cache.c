#include "cache.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../base/file.h"
#include "../build/build.h"
#include "../build/loader.h"
#include "../build/retarget.h"

/* A handle packs a slot's index (plus one, so that 0 is never a valid handle) in the low 16 bits and the
 * slot's generation in the high 16. Freeing a slot bumps its generation, so an old handle to a reused
 * slot no longer matches: it resolves to NULL instead of to someone else's data. */
enum { CACHE_INDEX_BITS = 16, CACHE_MAX_SLOTS = (1 << CACHE_INDEX_BITS) - 1 };
#define CACHE_INDEX_MASK ((uint32_t)CACHE_MAX_SLOTS)

/* CACHE_ADDITIVE, CACHE_RETARGETED and CACHE_RETIMED entries hold clips too: cache_clip and cache_release_clip
 * take them all. */
typedef enum cache_kind {
    CACHE_FREE = 0,
    CACHE_MODEL,
    CACHE_CLIP,
    CACHE_ADDITIVE,
    CACHE_DERIVED,
    CACHE_RETARGETED,
    CACHE_RETIMED,
    CACHE_LODS
} cache_kind;

/* Which file, and which version of it: two spellings of one path give the same device and inode, and a
 * file edited in place keeps its inode, so a changed modification time or size makes it a new entry (hot
 * reload sees the new data) while users of the old one keep theirs. */
typedef struct cache_file_version {
    dev_t device;
    ino_t inode;
    struct timespec modified;
    off_t size;
} cache_file_version;

typedef struct cache_entry {
    cache_kind kind;
    uint16_t generation;
    int users;
    cache_file_version file; /* the file read; for an additive, retargeted or retimed clip, its source clip's file */
    /* An additive clip: the file of the clip its reference frame was taken from, and that frame; for a
     * retargeted clip, the file of the model the clip was made for. */
    cache_file_version reference_file;
    int reference_frame;
    /* An additive or retimed clip made of retargeted or retimed clips: their handle ids (0 for a clip read from
     * a file), which tell apart two clips made from one file. A retargeted clip: the file of the model it plays
     * on. */
    uint32_t source_tag, reference_tag;
    cache_file_version target_file;
    float frame_rate; /* a retimed clip's (its source's tag in source_tag) */
    /* Derived data: the clip entry it was computed from (one user of it is held), how, and the key. Levels of
     * detail: the model entry (one user held) and the build_lod_desc they were made with, as the key. */
    uint32_t source;
    cache_derive_fn derive;
    void *key;
    size_t key_bytes;
    size_t derived_bytes;
    union {
        model *model;
        clip *clip;
        void *derived;
        model_lods *lods;
    } data;
} cache_entry;

struct cache {
    cache_entry *entries;
    int count;    /* slots in use or freed; entries[count..capacity) are untouched */
    int capacity;
    long derivations; /* derive calls made (cache_stats) */
};

cache *cache_create(void)
{
    return calloc(1, sizeof(cache));
}

static void cache_release(cache *c, cache_entry *e);
static cache_entry *cache_resolve(const cache *c, uint32_t id, cache_kind kind);
static cache_entry *cache_resolve_clip(const cache *c, uint32_t id);

/* Frees the entry's data; derived data also lets go of its clip, which may free that too. During
 * cache_destroy that clip may be gone already: its handle is stale then and resolves to NULL. */
static void cache_entry_free(cache *c, cache_entry *e)
{
    uint32_t source = 0, source_model = 0;
    if (e->kind == CACHE_MODEL) {
        model_free(e->data.model);
    } else if (e->kind == CACHE_CLIP || e->kind == CACHE_ADDITIVE || e->kind == CACHE_RETARGETED ||
               e->kind == CACHE_RETIMED) {
        clip_free(e->data.clip);
        if (e->kind == CACHE_RETARGETED)
            free(e->key);
    } else if (e->kind == CACHE_DERIVED) {
        free(e->data.derived);
        free(e->key);
        source = e->source;
    } else if (e->kind == CACHE_LODS) {
        model_lods_free(e->data.lods);
        free(e->key);
        source_model = e->source;
    }
    e->kind = CACHE_FREE;
    e->users = 0;
    e->data.model = NULL;
    e->key = NULL;
    e->derive = NULL;
    e->source = 0;
    e->generation++;
    if (source)
        cache_release(c, cache_resolve_clip(c, source));
    if (source_model)
        cache_release(c, cache_resolve(c, source_model, CACHE_MODEL));
}

void cache_destroy(cache *c)
{
    if (!c)
        return;
    for (int i = 0; i < c->count; ++i)
        cache_entry_free(c, &c->entries[i]);
    free(c->entries);
    free(c);
}

static uint32_t cache_handle_id(const cache *c, const cache_entry *e)
{
    uint32_t index = (uint32_t)(e - c->entries);
    return ((uint32_t)e->generation << CACHE_INDEX_BITS) | (index + 1);
}

/* The live entry a handle names, or NULL for 0 or stale handles. */
static cache_entry *cache_resolve_any(const cache *c, uint32_t id)
{
    if (!c || id == 0)
        return NULL;
    uint32_t index = (id & CACHE_INDEX_MASK) - 1;
    if (index >= (uint32_t)c->count)
        return NULL;
    cache_entry *e = &c->entries[index];
    if (e->kind == CACHE_FREE || e->generation != (uint16_t)(id >> CACHE_INDEX_BITS))
        return NULL;
    return e;
}

/* The live entry of the given kind a handle names, or NULL for 0, stale or wrongly typed handles. */
static cache_entry *cache_resolve(const cache *c, uint32_t id, cache_kind kind)
{
    cache_entry *e = cache_resolve_any(c, id);
    return e && e->kind == kind ? e : NULL;
}

/* A clip's entry, read from a file, additive, retargeted or retimed. */
static cache_entry *cache_resolve_clip(const cache *c, uint32_t id)
{
    cache_entry *e = cache_resolve_any(c, id);
    return e && (e->kind == CACHE_CLIP || e->kind == CACHE_ADDITIVE || e->kind == CACHE_RETARGETED ||
                 e->kind == CACHE_RETIMED)
               ? e
               : NULL;
}

/* A clip of poses (an additive clip or a retimed one may be made of it): read from a file, retargeted or
 * retimed. */
static cache_entry *cache_resolve_pose_clip(const cache *c, uint32_t id)
{
    cache_entry *e = cache_resolve_any(c, id);
    return e && (e->kind == CACHE_CLIP || e->kind == CACHE_RETARGETED || e->kind == CACHE_RETIMED) ? e : NULL;
}

static cache_file_version cache_version_of(const struct stat *identity)
{
    return (cache_file_version){.device = identity->st_dev, .inode = identity->st_ino,
                                .modified = identity->st_mtim, .size = identity->st_size};
}

static bool cache_same_version(const cache_file_version *a, const cache_file_version *b)
{
    return a->device == b->device && a->inode == b->inode && a->size == b->size &&
           a->modified.tv_sec == b->modified.tv_sec && a->modified.tv_nsec == b->modified.tv_nsec;
}

/* Linear search: a game holds tens to hundreds of assets and looks them up at load time, not per frame,
 * so a hash table would add code without a measurable gain. */
static cache_entry *cache_find(cache *c, cache_kind kind, const struct stat *identity)
{
    cache_file_version version = cache_version_of(identity);
    for (int i = 0; i < c->count; ++i) {
        cache_entry *e = &c->entries[i];
        if (e->kind == kind && cache_same_version(&e->file, &version))
            return e;
    }
    return NULL;
}

/* A free slot (reusing freed ones first, keeping their generation), or NULL with err set. */
static cache_entry *cache_new_entry(cache *c, const char *path, diag *err)
{
    for (int i = 0; i < c->count; ++i)
        if (c->entries[i].kind == CACHE_FREE)
            return &c->entries[i];
    if (c->count == CACHE_MAX_SLOTS) {
        diag_set(err, path, 0, "asset cache is full (%d entries)", CACHE_MAX_SLOTS);
        return NULL;
    }
    if (c->count == c->capacity) {
        int capacity = c->capacity ? c->capacity * 2 : 16;
        if (capacity > CACHE_MAX_SLOTS)
            capacity = CACHE_MAX_SLOTS;
        cache_entry *entries = realloc(c->entries, (size_t)capacity * sizeof *entries);
        if (!entries) {
            diag_set(err, path, 0, "out of memory growing the asset cache");
            return NULL;
        }
        c->entries = entries;
        c->capacity = capacity;
    }
    cache_entry *e = &c->entries[c->count++];
    *e = (cache_entry){.generation = 1};
    return e;
}

/* A new entry's first user and the identity and version of the file it was loaded from. */
static void cache_entry_claim(cache_entry *e, cache_kind kind, cache_file_version file)
{
    e->kind = kind;
    e->users = 1;
    e->file = file;
}

/* A new entry holding a clip built from clips already held (additive, retargeted, retimed), claimed by its
 * first user; NULL (the clip freed, err set) when the table cannot grow. */
static cache_entry *cache_adopt_clip(cache *c, const char *label, cache_kind kind, cache_file_version file,
                                     clip *made, diag *err)
{
    cache_entry *e = cache_new_entry(c, label, err);
    if (!e) {
        clip_free(made);
        return NULL;
    }
    cache_entry_claim(e, kind, file);
    e->data.clip = made;
    return e;
}

/* stat() before loading: the identity decides whether the file is already held, and a missing file or
 * one that is not a regular file is reported here with the path, before the parser is involved. */
static bool cache_identify(const char *path, struct stat *identity, diag *err)
{
    if (!path || !*path)
        return diag_set(err, path ? path : "", 0, "no file name given");
    /* The readers' check (file.h), before anything opens the file: opening a FIFO would wait for a writer
     * for ever, and a kernel file or one over the limit is refused here with the path. */
    if (!file_check(path, LOADER_MAX_FILE_BYTES, NULL, err))
        return false;
    if (stat(path, identity) != 0)
        return diag_set(err, path, 0, "cannot open: %s", strerror(errno));
    return true;
}

cache_model_handle cache_load_model(cache *c, const char *path, diag *err, diag_list *warnings)
{
    struct stat identity;
    if (!c) {
        diag_set(err, path ? path : "", 0, "no cache");
        return (cache_model_handle){0};
    }
    if (!cache_identify(path, &identity, err))
        return (cache_model_handle){0};
    cache_entry *e = cache_find(c, CACHE_MODEL, &identity);
    if (e) {
        e->users++;
        return (cache_model_handle){cache_handle_id(c, e)};
    }
    model *loaded = NULL;
    if (!loader_load_model(path, &loaded, err, warnings))
        return (cache_model_handle){0};
    e = cache_new_entry(c, path, err);
    if (!e) {
        model_free(loaded);
        return (cache_model_handle){0};
    }
    cache_entry_claim(e, CACHE_MODEL, cache_version_of(&identity));
    e->data.model = loaded;
    return (cache_model_handle){cache_handle_id(c, e)};
}

cache_clip_handle cache_load_clip(cache *c, const char *path, cache_model_handle for_model, diag *err,
                                  diag_list *warnings)
{
    struct stat identity;
    if (!c) {
        diag_set(err, path ? path : "", 0, "no cache");
        return (cache_clip_handle){0};
    }
    if (!cache_identify(path, &identity, err))
        return (cache_clip_handle){0};
    const cache_entry *owner = cache_resolve(c, for_model.id, CACHE_MODEL);
    if (!owner) {
        diag_set(err, path, 0, "the model handle is stale or was never loaded");
        return (cache_clip_handle){0};
    }
    /* The model lives on the heap, so this stays valid when a new entry below moves the entries array. */
    const skeleton *skeleton = &owner->data.model->skeleton;

    cache_entry *e = cache_find(c, CACHE_CLIP, &identity);
    if (e) {
        /* Held already (perhaps for a model with another hierarchy): check this model, add no user on
         * failure. */
        if (!clip_fits_skeleton(e->data.clip, skeleton, path, err))
            return (cache_clip_handle){0};
        e->users++;
        return (cache_clip_handle){cache_handle_id(c, e)};
    }
    clip *loaded = NULL;
    if (!loader_load_clip(path, &loaded, err, warnings))
        return (cache_clip_handle){0};
    if (!clip_fits_skeleton(loaded, skeleton, path, err)) {
        clip_free(loaded);
        return (cache_clip_handle){0};
    }
    e = cache_new_entry(c, path, err);
    if (!e) {
        clip_free(loaded);
        return (cache_clip_handle){0};
    }
    cache_entry_claim(e, CACHE_CLIP, cache_version_of(&identity));
    e->data.clip = loaded;
    return (cache_clip_handle){cache_handle_id(c, e)};
}

cache_clip_handle cache_load_additive_clip(cache *c, cache_clip_handle source, cache_clip_handle reference,
                                           int reference_frame, diag *err)
{
    const cache_entry *source_entry = cache_resolve_pose_clip(c, source.id);
    const cache_entry *reference_entry = cache_resolve_pose_clip(c, reference.id);
    if (!c) {
        diag_set(err, "additive", 0, "no cache");
        return (cache_clip_handle){0};
    }
    if (!source_entry || !reference_entry) {
        /* An additive clip is refused as either: deltas of deltas mean nothing. */
        diag_set(err, "additive", 0, "the %s handle is stale, was never loaded or is an additive clip",
                 source_entry ? "reference" : "clip");
        return (cache_clip_handle){0};
    }
    /* Copied now: a new entry below may move the entries array. */
    cache_file_version source_file = source_entry->file, reference_file = reference_entry->file;
    uint32_t source_tag = source_entry->kind != CACHE_CLIP ? source.id : 0;
    uint32_t reference_tag = reference_entry->kind != CACHE_CLIP ? reference.id : 0;
    for (int i = 0; i < c->count; ++i) {
        cache_entry *e = &c->entries[i];
        if (e->kind == CACHE_ADDITIVE && e->reference_frame == reference_frame && e->source_tag == source_tag &&
            e->reference_tag == reference_tag &&
            cache_same_version(&e->file, &source_file) && cache_same_version(&e->reference_file, &reference_file)) {
            e->users++;
            return (cache_clip_handle){cache_handle_id(c, e)};
        }
    }
    clip *baked = NULL;
    if (!build_additive_clip(source_entry->data.clip, reference_entry->data.clip, reference_frame, &baked, err))
        return (cache_clip_handle){0};
    cache_entry *e = cache_adopt_clip(c, "additive", CACHE_ADDITIVE, source_file, baked, err);
    if (!e)
        return (cache_clip_handle){0};
    e->reference_file = reference_file;
    e->reference_frame = reference_frame;
    e->source_tag = source_tag;
    e->reference_tag = reference_tag;
    return (cache_clip_handle){cache_handle_id(c, e)};
}

cache_clip_handle cache_load_retargeted_clip(cache *c, cache_clip_handle source, cache_model_handle made_for,
                                             cache_model_handle plays_on, const retarget_spec *spec, diag *err)
{
    const cache_entry *source_entry = cache_resolve(c, source.id, CACHE_CLIP);
    const cache_entry *from_entry = cache_resolve(c, made_for.id, CACHE_MODEL);
    const cache_entry *to_entry = cache_resolve(c, plays_on.id, CACHE_MODEL);
    if (!c || !spec) {
        diag_set(err, "retarget", 0, "no cache or no maps");
        return (cache_clip_handle){0};
    }
    if (!source_entry || !from_entry || !to_entry) {
        diag_set(err, "retarget", 0, "the %s handle is stale, was never loaded or is not of a clip read from a file",
                 !source_entry ? "clip" : !from_entry ? "source model" : "target model");
        return (cache_clip_handle){0};
    }
    /* Copied now: a new entry below may move the entries array. */
    cache_file_version source_file = source_entry->file, from_file = from_entry->file, to_file = to_entry->file;
    for (int i = 0; i < c->count; ++i) {
        cache_entry *e = &c->entries[i];
        if (e->kind == CACHE_RETARGETED && cache_same_version(&e->file, &source_file) &&
            cache_same_version(&e->reference_file, &from_file) && cache_same_version(&e->target_file, &to_file) &&
            memcmp(e->key, spec, sizeof *spec) == 0) {
            e->users++;
            return (cache_clip_handle){cache_handle_id(c, e)};
        }
    }
    retarget_spec *key = malloc(sizeof *key);
    clip *baked = NULL;
    if (!key) {
        diag_set(err, "retarget", 0, "out of memory");
        return (cache_clip_handle){0};
    }
    memcpy(key, spec, sizeof *key);
    if (!build_retargeted_clip(source_entry->data.clip, &from_entry->data.model->skeleton,
                               &to_entry->data.model->skeleton, spec, &baked, err)) {
        free(key);
        return (cache_clip_handle){0};
    }
    cache_entry *e = cache_adopt_clip(c, "retarget", CACHE_RETARGETED, source_file, baked, err);
    if (!e) {
        free(key);
        return (cache_clip_handle){0};
    }
    e->reference_file = from_file;
    e->target_file = to_file;
    e->key = key;
    e->key_bytes = sizeof *key;
    return (cache_clip_handle){cache_handle_id(c, e)};
}

cache_clip_handle cache_load_retimed_clip(cache *c, cache_clip_handle source, float frame_rate, diag *err)
{
    const cache_entry *source_entry = cache_resolve_pose_clip(c, source.id);
    if (!c || !source_entry) {
        diag_set(err, "frame_rate", 0, "the clip handle is stale, was never loaded or is an additive clip");
        return (cache_clip_handle){0};
    }
    /* Copied now: a new entry below may move the entries array. */
    cache_file_version source_file = source_entry->file;
    uint32_t source_tag = source_entry->kind != CACHE_CLIP ? source.id : 0;
    for (int i = 0; i < c->count; ++i) {
        cache_entry *e = &c->entries[i];
        if (e->kind == CACHE_RETIMED && e->source_tag == source_tag && e->frame_rate == frame_rate &&
            cache_same_version(&e->file, &source_file)) {
            e->users++;
            return (cache_clip_handle){cache_handle_id(c, e)};
        }
    }
    clip *made = NULL;
    if (!build_retimed_clip(source_entry->data.clip, frame_rate, &made, err))
        return (cache_clip_handle){0};
    cache_entry *e = cache_adopt_clip(c, "frame_rate", CACHE_RETIMED, source_file, made, err);
    if (!e)
        return (cache_clip_handle){0};
    e->source_tag = source_tag;
    e->frame_rate = frame_rate;
    return (cache_clip_handle){cache_handle_id(c, e)};
}

cache_derived_handle cache_load_derived(cache *c, cache_clip_handle source, cache_derive_fn derive, const void *key,
                                        size_t key_bytes, diag *err)
{
    cache_entry *source_entry = cache_resolve_clip(c, source.id);
    if (!c || !source_entry || !derive || !key || key_bytes == 0) {
        const char *why = !c              ? "no cache"
                          : !source_entry ? "the clip handle is stale or was never loaded"
                          : !derive       ? "nothing to derive it with"
                                          : "an empty key";
        diag_set(err, "derived", 0, "%s", why);
        return (cache_derived_handle){0};
    }
    for (int i = 0; i < c->count; ++i) {
        cache_entry *e = &c->entries[i];
        if (e->kind == CACHE_DERIVED && e->source == source.id && e->derive == derive && e->key_bytes == key_bytes &&
            memcmp(e->key, key, key_bytes) == 0) {
            e->users++;
            return (cache_derived_handle){cache_handle_id(c, e)};
        }
    }
    void *key_copy = malloc(key_bytes);
    if (!key_copy) {
        diag_set(err, "derived", 0, "out of memory copying a key of %zu bytes", key_bytes);
        return (cache_derived_handle){0};
    }
    memcpy(key_copy, key, key_bytes);
    void *derived = NULL;
    size_t derived_bytes = 0;
    c->derivations++;
    /* The clip lives on the heap, so this stays valid when a new entry below moves the entries array. */
    if (!derive(source_entry->data.clip, key, key_bytes, &derived, &derived_bytes, err)) {
        free(derived);
        free(key_copy);
        return (cache_derived_handle){0};
    }
    cache_entry *e = cache_new_entry(c, "derived", err);
    if (!e) {
        free(derived);
        free(key_copy);
        return (cache_derived_handle){0};
    }
    cache_entry_claim(e, CACHE_DERIVED, (cache_file_version){0});
    e->source = source.id;
    e->derive = derive;
    e->key = key_copy;
    e->key_bytes = key_bytes;
    e->data.derived = derived;
    e->derived_bytes = derived_bytes;
    /* Resolved again: cache_new_entry may have moved the entries array. */
    cache_resolve_clip(c, source.id)->users++;
    return (cache_derived_handle){cache_handle_id(c, e)};
}

/* desc's settings, field by field into zeroed bytes (no padding compared); NULL: all zero, the defaults. */
static build_lod_desc cache_lod_key(const build_lod_desc *desc)
{
    build_lod_desc key;
    memset(&key, 0, sizeof key);
    if (desc) {
        memcpy(key.ratios, desc->ratios, sizeof key.ratios);
        key.stand_in_triangles = desc->stand_in_triangles;
        key.max_error = desc->max_error;
        key.no_stand_in = desc->no_stand_in;
        key.borders = desc->borders;
    }
    return key;
}

cache_lods_handle cache_load_lods(cache *c, cache_model_handle model, const build_lod_desc *desc, diag *err)
{
    cache_entry *model_entry = cache_resolve(c, model.id, CACHE_MODEL);
    if (!c || !model_entry) {
        diag_set(err, "levels of detail", 0, "%s", !c ? "no cache" : "the model handle is stale or was never loaded");
        return (cache_lods_handle){0};
    }
    build_lod_desc key = cache_lod_key(desc);
    for (int i = 0; i < c->count; ++i) {
        cache_entry *e = &c->entries[i];
        if (e->kind == CACHE_LODS && e->source == model.id && memcmp(e->key, &key, sizeof key) == 0) {
            e->users++;
            return (cache_lods_handle){cache_handle_id(c, e)};
        }
    }
    build_lod_desc *key_copy = malloc(sizeof *key_copy);
    if (!key_copy) {
        diag_set(err, "levels of detail", 0, "out of memory");
        return (cache_lods_handle){0};
    }
    *key_copy = key;
    model_lods *lods = NULL;
    c->derivations++;
    /* The model lives on the heap, so this stays valid when a new entry below moves the entries array. */
    if (!build_lods(model_entry->data.model, desc, &lods, err)) {
        free(key_copy);
        return (cache_lods_handle){0};
    }
    cache_entry *e = cache_new_entry(c, "levels of detail", err);
    if (!e) {
        model_lods_free(lods);
        free(key_copy);
        return (cache_lods_handle){0};
    }
    cache_entry_claim(e, CACHE_LODS, (cache_file_version){0});
    e->source = model.id;
    e->key = key_copy;
    e->key_bytes = sizeof *key_copy;
    e->data.lods = lods;
    /* Resolved again: cache_new_entry may have moved the entries array. */
    cache_resolve(c, model.id, CACHE_MODEL)->users++;
    return (cache_lods_handle){cache_handle_id(c, e)};
}

const model_lods *cache_lods(const cache *c, cache_lods_handle h)
{
    const cache_entry *e = cache_resolve(c, h.id, CACHE_LODS);
    return e ? e->data.lods : NULL;
}

const void *cache_derived(const cache *c, cache_derived_handle h, size_t *bytes)
{
    const cache_entry *e = cache_resolve(c, h.id, CACHE_DERIVED);
    if (bytes)
        *bytes = e ? e->derived_bytes : 0;
    return e ? e->data.derived : NULL;
}

const model *cache_model(const cache *c, cache_model_handle h)
{
    const cache_entry *e = cache_resolve(c, h.id, CACHE_MODEL);
    return e ? e->data.model : NULL;
}

const clip *cache_clip(const cache *c, cache_clip_handle h)
{
    const cache_entry *e = cache_resolve_clip(c, h.id);
    return e ? e->data.clip : NULL;
}

static void cache_release(cache *c, cache_entry *e)
{
    if (e && --e->users == 0)
        cache_entry_free(c, e);
}

void cache_release_model(cache *c, cache_model_handle h)
{
    cache_release(c, cache_resolve(c, h.id, CACHE_MODEL));
}

void cache_release_clip(cache *c, cache_clip_handle h)
{
    cache_release(c, cache_resolve_clip(c, h.id));
}

void cache_release_derived(cache *c, cache_derived_handle h)
{
    cache_release(c, cache_resolve(c, h.id, CACHE_DERIVED));
}

void cache_release_lods(cache *c, cache_lods_handle h)
{
    cache_release(c, cache_resolve(c, h.id, CACHE_LODS));
}

cache_stats cache_get_stats(const cache *c)
{
    cache_stats stats = {0};
    if (!c)
        return stats;
    stats.derivations = c->derivations;
    for (int i = 0; i < c->count; ++i) {
        const cache_entry *e = &c->entries[i];
        if (e->kind == CACHE_FREE)
            continue;
        stats.entries++;
        stats.users += e->users;
        if (e->kind == CACHE_MODEL) {
            stats.models++;
            stats.shared_bytes += e->data.model->bytes;
        } else if (e->kind == CACHE_CLIP) {
            stats.clips++;
            stats.shared_bytes += e->data.clip->bytes;
        } else if (e->kind == CACHE_DERIVED) {
            stats.derived++;
            stats.derived_bytes += e->derived_bytes + e->key_bytes;
        } else if (e->kind == CACHE_LODS) {
            stats.lods++;
            stats.lods_bytes += e->data.lods->bytes + e->key_bytes;
        } else if (e->kind == CACHE_RETARGETED || e->kind == CACHE_RETIMED) {
            *(e->kind == CACHE_RETARGETED ? &stats.retargeted_clips : &stats.retimed_clips) += 1;
            stats.shared_bytes += e->data.clip->bytes;
        } else {
            stats.additive_clips++;
            stats.additive_bytes += e->data.clip->bytes;
            stats.shared_bytes += e->data.clip->bytes;
        }
    }
    stats.all_clips = stats.clips + stats.additive_clips + stats.retargeted_clips + stats.retimed_clips;
    return stats;
}
