#include "cache.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../build/loader.h"

/* A handle packs a slot's index (plus one, so that 0 is never a valid handle) in the low 16 bits and the
 * slot's generation in the high 16. Freeing a slot bumps its generation, so an old handle to a reused
 * slot no longer matches: it resolves to NULL instead of to someone else's data. */
enum { CACHE_INDEX_BITS = 16, CACHE_MAX_SLOTS = (1 << CACHE_INDEX_BITS) - 1 };
#define CACHE_INDEX_MASK ((uint32_t)CACHE_MAX_SLOTS)

typedef enum cache_kind { CACHE_FREE = 0, CACHE_MODEL, CACHE_CLIP } cache_kind;

typedef struct cache_entry {
    cache_kind kind;
    uint16_t generation;
    int users;
    dev_t device; /* file identity: two spellings of one path give the same device and inode */
    ino_t inode;
    /* File version: a file edited in place keeps its inode, so a changed modification time or size
     * makes it a new entry (hot reload sees the new data) while users of the old one keep theirs. */
    struct timespec modified;
    off_t size;
    union {
        model *model;
        clip *clip;
    } data;
} cache_entry;

struct cache {
    cache_entry *entries;
    int count;    /* slots in use or freed; entries[count..capacity) are untouched */
    int capacity;
};

cache *cache_create(void)
{
    return calloc(1, sizeof(cache));
}

static void cache_entry_free(cache_entry *e)
{
    if (e->kind == CACHE_MODEL)
        model_free(e->data.model);
    else if (e->kind == CACHE_CLIP)
        clip_free(e->data.clip);
    e->kind = CACHE_FREE;
    e->users = 0;
    e->data.model = NULL;
    e->generation++;
}

void cache_destroy(cache *c)
{
    if (!c)
        return;
    for (int i = 0; i < c->count; ++i)
        cache_entry_free(&c->entries[i]);
    free(c->entries);
    free(c);
}

static uint32_t cache_handle_id(const cache *c, const cache_entry *e)
{
    uint32_t index = (uint32_t)(e - c->entries);
    return ((uint32_t)e->generation << CACHE_INDEX_BITS) | (index + 1);
}

/* The live entry of the given kind a handle names, or NULL for 0, stale or wrongly typed handles. */
static cache_entry *cache_resolve(const cache *c, uint32_t id, cache_kind kind)
{
    if (!c || id == 0)
        return NULL;
    uint32_t index = (id & CACHE_INDEX_MASK) - 1;
    if (index >= (uint32_t)c->count)
        return NULL;
    cache_entry *e = &c->entries[index];
    if (e->kind != kind || e->generation != (uint16_t)(id >> CACHE_INDEX_BITS))
        return NULL;
    return e;
}

/* Linear search: a game holds tens to hundreds of assets and looks them up at load time, not per frame,
 * so a hash table would add code without a measurable gain. */
static cache_entry *cache_find(cache *c, cache_kind kind, const struct stat *identity)
{
    for (int i = 0; i < c->count; ++i) {
        cache_entry *e = &c->entries[i];
        if (e->kind == kind && e->device == identity->st_dev && e->inode == identity->st_ino &&
            e->size == identity->st_size && e->modified.tv_sec == identity->st_mtim.tv_sec &&
            e->modified.tv_nsec == identity->st_mtim.tv_nsec)
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
static void cache_entry_claim(cache_entry *e, cache_kind kind, const struct stat *identity)
{
    e->kind = kind;
    e->users = 1;
    e->device = identity->st_dev;
    e->inode = identity->st_ino;
    e->modified = identity->st_mtim;
    e->size = identity->st_size;
}

/* stat() before loading: the identity decides whether the file is already held, and a missing file or
 * one that is not a regular file is reported here with the path, before the parser is involved. */
static bool cache_identify(const char *path, struct stat *identity, diag *err)
{
    if (!path || !*path)
        return diag_set(err, path ? path : "", 0, "no file name given");
    if (stat(path, identity) != 0)
        return diag_set(err, path, 0, "cannot open: %s", strerror(errno));
    /* Refused before opening: opening a FIFO would wait for a writer forever. */
    if (S_ISDIR(identity->st_mode))
        return diag_set(err, path, 0, "is a folder, not a file");
    if (!S_ISREG(identity->st_mode))
        return diag_set(err, path, 0, "not a regular file");
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
    cache_entry_claim(e, CACHE_MODEL, &identity);
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
    cache_entry_claim(e, CACHE_CLIP, &identity);
    e->data.clip = loaded;
    return (cache_clip_handle){cache_handle_id(c, e)};
}

const model *cache_model(const cache *c, cache_model_handle h)
{
    const cache_entry *e = cache_resolve(c, h.id, CACHE_MODEL);
    return e ? e->data.model : NULL;
}

const clip *cache_clip(const cache *c, cache_clip_handle h)
{
    const cache_entry *e = cache_resolve(c, h.id, CACHE_CLIP);
    return e ? e->data.clip : NULL;
}

static void cache_release(cache *c, uint32_t id, cache_kind kind)
{
    cache_entry *e = cache_resolve(c, id, kind);
    if (e && --e->users == 0)
        cache_entry_free(e);
}

void cache_release_model(cache *c, cache_model_handle h)
{
    cache_release(c, h.id, CACHE_MODEL);
}

void cache_release_clip(cache *c, cache_clip_handle h)
{
    cache_release(c, h.id, CACHE_CLIP);
}

cache_stats cache_get_stats(const cache *c)
{
    cache_stats stats = {0};
    if (!c)
        return stats;
    for (int i = 0; i < c->count; ++i) {
        const cache_entry *e = &c->entries[i];
        if (e->kind == CACHE_FREE)
            continue;
        stats.entries++;
        stats.users += e->users;
        if (e->kind == CACHE_MODEL) {
            stats.models++;
            stats.shared_bytes += e->data.model->bytes;
        } else {
            stats.clips++;
            stats.shared_bytes += e->data.clip->bytes;
        }
    }
    return stats;
}
