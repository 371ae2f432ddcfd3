/* The config and its lifetime: characters.ini (or one character's files), each character's model, clips
 * (anim_config_clips.c) and state machine (anim_config_states.c), the files a load read and hot reload. */
#include "anim_config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../base/file.h"
#include "../../base/watch.h"
#include "../../build/loader.h"
#include "anim_config_internal.h"

/* Loading happens in two steps per file. First the ini text becomes sections of `key = value` entries that
 * remember their line numbers (ini_document). Then each file's meaning is checked against what it refers
 * to, reporting at the line of the offending entry. */

struct anim_config {
    cache *cache;
    /* How it was loaded, so a reload can do the same: a characters.ini, or one character's files. */
    char *characters_path;
    char *character_name, *mesh_path, *clips_path, *states_path;
    int character_count;
    anim_character *characters;
    anim_character_storage *storage;
    watch_set watched; /* every file the load read or tried to: base/watch decides what is a change */
    int stand_in_count; /* problems a partial load worked around */
    int warning_count;  /* warnings that are not problems */
};

/* ---------------------------------------------------------------------------------------------------- */
/* Watched files, and reading them                                                                      */

/* Remember a file the load read (or tried to read: a missing file that appears is an edit too). */
void anim_config_watch(anim_config *config, const char *path, size_t max_bytes)
{
    watch_set_add(&config->watched, path, max_bytes, true); /* before the caller reads it: see watch_stamp_take */
}

bool anim_config_read_document(anim_config_loader *loader, const char *path, const char *referrer,
                               int referrer_line, const char *what, ini_document *document)
{
    *document = (ini_document){.path = path};
    anim_config_watch(loader->config, path, INI_MAX_FILE_BYTES);
    char *text = NULL;
    size_t size = 0;
    diag error;
    if (!file_read_all(path, INI_MAX_FILE_BYTES, &text, &size, &error)) {
        if (referrer)
            anim_config_report(loader, referrer, referrer_line, "cannot read %s '%s': %s", what, path,
                               error.message);
        else
            anim_config_report(loader, path, 0, "cannot read %s: %s", what, error.message);
        return false;
    }
    ini_document_parse(document, path, text, size, anim_config_reporter(loader));
    free(text);
    return true;
}

/* ---------------------------------------------------------------------------------------------------- */
/* Characters and the config                                                                             */

/* Where a character's files were named, so problems with them are reported there. */
typedef struct anim_character_source {
    const char *name;
    const char *mesh_path, *clips_path, *states_path; /* resolved; states_path may be NULL */
    const char *referrer;                             /* characters.ini, or NULL when given directly */
    const ini_section *section;                       /* its section there (texture keys), or NULL */
    int name_line, mesh_line, clips_line, states_line;
    const anim_config_import *import;                 /* scale, height and axes; NULL: as the files are */
    pose_skinning skinning;                           /* its `skinning`; linear when not given */
} anim_character_source;

static void anim_config_load_one(anim_config_loader *loader, const anim_character_source *source,
                                 anim_character *character, anim_character_storage *storage)
{
    snprintf(character->name, sizeof character->name, "%s", source->name);
    character->skinning = source->skinning;
    storage->mesh_path = strdup(source->mesh_path);
    character->mesh_path = storage->mesh_path;
    anim_config_watch(loader->config, source->mesh_path, LOADER_MAX_FILE_BYTES);
    diag error;
    character->model_handle = cache_load_model(loader->cache, source->mesh_path, &error, NULL);
    character->model = cache_model(loader->cache, character->model_handle);
    if (!character->model) {
        char inner[DIAG_TEXT_MAX];
        diag_format(&error, inner, sizeof inner);
        if (loader->partial) {
            /* Left out whole: without a skeleton its clips and states cannot be checked. */
            anim_config_report_stand_in(loader, source->referrer ? source->referrer : source->mesh_path,
                                        source->referrer ? source->mesh_line : error.line,
                                        "mesh of '%s': %s; the character is left out", source->name, inner);
            return;
        }
        if (source->referrer)
            anim_config_report(loader, source->referrer, source->mesh_line, "mesh of '%s': %s", source->name, inner);
        else
            anim_config_report(loader, source->mesh_path, error.line, "%s", error.message);
    }
    if (character->model)
        anim_config_load_textures(loader, character, storage, source->mesh_path, source->referrer, source->section);
    /* Before the clips: each clip entry carries the import, and rate_from turns clip speeds into m/s. */
    anim_config_resolve_import(loader, source->import, character);
    if (character->model) {
        anim_config_load_look(loader, character, source->referrer, source->section);
        anim_config_load_legs(loader, character, source->referrer, source->section);
        anim_config_load_map(loader, character, storage, source->referrer, source->section);
    }
    anim_config_load_clips(loader, character, storage, source->clips_path, source->referrer, source->clips_line);
    if (source->states_path)
        anim_config_load_states(loader, character, storage, source->states_path, source->referrer,
                                source->states_line);
    if (loader->partial && character->model && anim_config_first_loaded_clip(character) < 0)
        anim_config_report_stand_in(loader, source->referrer ? source->referrer : source->clips_path,
                                    source->referrer ? source->clips_line : 0,
                                    "none of the clips of '%s' loaded; the character is left out", source->name);
}

/* What a partial load can play: a model and at least one clip. */
static bool anim_config_playable(const anim_character *character)
{
    return character->model && anim_config_first_loaded_clip(character) >= 0;
}

static anim_config *anim_config_new(cache *cache, int character_count)
{
    anim_config *config = calloc(1, sizeof *config);
    if (!config)
        return NULL;
    config->cache = cache;
    config->characters = calloc((size_t)(character_count ? character_count : 1), sizeof *config->characters);
    config->storage = calloc((size_t)(character_count ? character_count : 1), sizeof *config->storage);
    if (!config->characters || !config->storage) {
        free(config->characters);
        free(config->storage);
        free(config);
        return NULL;
    }
    return config;
}

static void anim_config_release_character(cache *cache, anim_character *character, anim_character_storage *storage)
{
    for (int i = 0; i < character->clip_count; ++i) {
        if (storage->clip_handles)
            cache_release_clip(cache, storage->clip_handles[i]);
        if (storage->events)
            free(storage->events[i]);
        if (storage->additive_handles)
            cache_release_clip(cache, storage->additive_handles[i]);
        if (storage->contact_handles)
            cache_release_derived(cache, storage->contact_handles[i]);
        if (storage->retarget_raw) { /* with retarget_models and retime_sources (anim_config_load_clips) */
            cache_release_clip(cache, storage->retarget_raw[i]);
            cache_release_model(cache, storage->retarget_models[i]);
            cache_release_clip(cache, storage->retime_sources[i]);
        }
    }
    free(storage->retarget_raw);
    free(storage->retarget_models);
    free(storage->retime_sources);
    free(storage->additive_handles);
    free(storage->contact_handles);
    cache_release_model(cache, character->model_handle);
    free(storage->mesh_path);
    anim_config_free_textures(storage);
    free(storage->clips);
    free(storage->events);
    free(storage->clip_handles);
    free(storage->sync_group_names);
    free(storage->states);
    free(storage->branch_masks);
    free(storage->branch_mask_block);
    free(storage->blends);
    free(storage->transitions);
    free(storage->transition_index);
    *character = (anim_character){0};
    *storage = (anim_character_storage){0};
}

void anim_config_free(anim_config *config)
{
    if (!config)
        return;
    for (int c = 0; c < config->character_count; ++c)
        anim_config_release_character(config->cache, &config->characters[c], &config->storage[c]);
    free(config->characters);
    free(config->storage);
    watch_set_free(&config->watched);
    free(config->characters_path);
    free(config->character_name);
    free(config->mesh_path);
    free(config->clips_path);
    free(config->states_path);
    free(config);
}

/* Load one character into the next slot; a partial load leaves out one it cannot play. */
static void anim_config_add_character(anim_config_loader *loader, const anim_character_source *source)
{
    anim_config *config = loader->config;
    anim_character *character = &config->characters[config->character_count];
    anim_character_storage *storage = &config->storage[config->character_count];
    anim_config_load_one(loader, source, character, storage);
    if (loader->partial && !anim_config_playable(character))
        anim_config_release_character(config->cache, character, storage);
    else
        config->character_count++;
}

/* A load that found any problem hands its watch list to `keep_watching` (a reload's old config) and
 * frees everything else: nothing half-built ever reaches the caller. */
static anim_config *anim_config_finish(anim_config_loader *loader, anim_config *keep_watching)
{
    anim_config *config = loader->config;
    for (int c = 0; c < config->character_count; ++c) {
        anim_config_release_additive_sources(loader, &config->characters[c], &config->storage[c]);
        anim_config_release_retarget_sources(loader, &config->characters[c], &config->storage[c]);
    }
    if (loader->partial && loader->error_count == 0 && config->character_count == 0)
        anim_config_report(loader, config->characters_path ? config->characters_path : config->clips_path, 0,
                           "no character could be loaded");
    /* A file is read in passes (a states file: sections, then states, the machine, transitions), and the
     * files of several characters interleave: the reader wants them by file and line. */
    diag_list_sort(loader->errors, loader->errors_before);
    if (loader->error_count == 0) {
        config->stand_in_count = loader->stand_in_count;
        config->warning_count = loader->warning_count;
        return config;
    }
    if (keep_watching) {
        watch_set_move(&keep_watching->watched, &config->watched);
    }
    anim_config_free(config);
    return NULL;
}

static char *anim_config_copy(const char *text)
{
    return text ? strdup(text) : NULL;
}

static anim_config *anim_config_load_files(const char *characters_path, cache *cache, diag_list *errors,
                                           anim_config *keep_watching, bool partial)
{
    anim_config_loader loader = {
        .cache = cache, .errors = errors, .errors_before = errors ? errors->count : 0, .partial = partial};
    ini_document document = {.path = characters_path};
    loader.config = anim_config_new(cache, 0);
    if (!loader.config || !cache || !characters_path) {
        anim_config_free(loader.config);
        diag_list_add(errors, characters_path ? characters_path : "", 0, "out of memory or no cache");
        return NULL;
    }
    loader.config->characters_path = anim_config_copy(characters_path);
    if (anim_config_read_document(&loader, characters_path, NULL, 0, "characters file", &document)) {
        int count = document.section_count;
        anim_character *characters = calloc((size_t)(count ? count : 1), sizeof *characters);
        anim_character_storage *storage = calloc((size_t)(count ? count : 1), sizeof *storage);
        if (!characters || !storage) {
            free(characters);
            free(storage);
            anim_config_report(&loader, characters_path, 0, "out of memory");
            count = 0;
        } else {
            free(loader.config->characters);
            free(loader.config->storage);
            loader.config->characters = characters;
            loader.config->storage = storage;
        }
        if (document.section_count == 0)
            anim_config_report(&loader, characters_path, 0, "no characters: expected a [NAME] section per character");
        static const char *const keys[] = {"mesh",     "clips",         "states",         "textures", "texture.*",
                                           "normal_map.*", "specular_map.*", "skinning", "map.*",    NULL};
        const char *known[32];
        int known_count = 0;
        for (int k = 0; keys[k]; ++k)
            known[known_count++] = keys[k];
        for (int k = 0; anim_config_import_keys[k]; ++k)
            known[known_count++] = anim_config_import_keys[k];
        for (int k = 0; anim_config_look_keys[k]; ++k)
            known[known_count++] = anim_config_look_keys[k];
        known[known_count] = NULL;
        for (int s = 0; s < count; ++s) {
            const ini_section *section = &document.sections[s];
            anim_config_check_keys(&loader, characters_path, section, known);
            anim_config_import import;
            anim_config_parse_import(&loader, characters_path, section, &import);
            pose_skinning skinning = POSE_SKINNING_LINEAR;
            const ini_entry *skinning_entry = ini_find_entry(section, "skinning");
            if (skinning_entry && !pose_skinning_parse(skinning_entry->value, &skinning))
                anim_config_report(&loader, characters_path, skinning_entry->line,
                                   "'skinning' must be linear or dual_quaternion, not '%s'", skinning_entry->value);
            anim_config_check_name(&loader, characters_path, section->line, "character", section->name);
            const ini_entry *found[3];
            char paths[3][ANIM_CONFIG_PATH_MAX];
            bool complete = true;
            for (int k = 0; k < 3; ++k) {
                found[k] = ini_find_entry(section, keys[k]);
                if (!found[k]) {
                    anim_config_report(&loader, characters_path, section->line, "character [%s] has no '%s'",
                                       section->name, keys[k]);
                    complete = false;
                } else if (!anim_config_resolve_path(characters_path, found[k]->value, paths[k], sizeof paths[k])) {
                    anim_config_report(&loader, characters_path, found[k]->line, "path is too long");
                    complete = false;
                }
            }
            if (!complete)
                continue;
            anim_character_source source = {
                .name = section->name, .mesh_path = paths[0], .clips_path = paths[1], .states_path = paths[2],
                .referrer = characters_path, .name_line = section->line, .mesh_line = found[0]->line,
                .clips_line = found[1]->line, .states_line = found[2]->line, .section = section,
                .import = &import, .skinning = skinning};
            anim_config_add_character(&loader, &source);
        }
    }
    ini_document_free(&document);
    return anim_config_finish(&loader, keep_watching);
}

anim_config *anim_config_load(const char *characters_path, cache *cache, diag_list *errors)
{
    return anim_config_load_files(characters_path, cache, errors, NULL, false);
}

anim_config *anim_config_load_partial(const char *characters_path, cache *cache, diag_list *errors)
{
    return anim_config_load_files(characters_path, cache, errors, NULL, true);
}

int anim_config_stand_in_count(const anim_config *config)
{
    return config ? config->stand_in_count : 0;
}

cache *anim_config_cache(const anim_config *config)
{
    return config ? config->cache : NULL;
}

int anim_config_warning_count(const anim_config *config)
{
    return config ? config->warning_count : 0;
}

static anim_config *anim_config_load_single(const char *name, const char *mesh_path, const char *clips_path,
                                            const char *states_path, cache *cache, diag_list *errors,
                                            anim_config *keep_watching, bool partial)
{
    if (!name || !mesh_path || !clips_path || !cache) {
        diag_list_add(errors, "", 0, "anim_config_load_character needs a name, a mesh, a clips file and a cache");
        return NULL;
    }
    anim_config_loader loader = {
        .cache = cache, .errors = errors, .errors_before = errors ? errors->count : 0, .partial = partial};
    loader.config = anim_config_new(cache, 1);
    if (!loader.config) {
        diag_list_add(errors, clips_path, 0, "out of memory");
        return NULL;
    }
    anim_config *config = loader.config;
    config->character_name = anim_config_copy(name);
    config->mesh_path = anim_config_copy(mesh_path);
    config->clips_path = anim_config_copy(clips_path);
    config->states_path = anim_config_copy(states_path);
    anim_character_source source = {.name = name, .mesh_path = mesh_path, .clips_path = clips_path,
                                    .states_path = states_path};
    anim_config_check_name(&loader, clips_path, 0, "character", name);
    anim_config_add_character(&loader, &source);
    return anim_config_finish(&loader, keep_watching);
}

anim_config *anim_config_load_character(const char *name, const char *mesh_path, const char *clips_path,
                                        const char *states_path, cache *cache, diag_list *errors)
{
    return anim_config_load_single(name, mesh_path, clips_path, states_path, cache, errors, NULL, false);
}

int anim_config_character_count(const anim_config *config)
{
    return config ? config->character_count : 0;
}

const anim_character *anim_config_character(const anim_config *config, int index)
{
    return config && index >= 0 && index < config->character_count ? &config->characters[index] : NULL;
}

const anim_character *anim_config_find_character(const anim_config *config, const char *name)
{
    for (int i = 0; config && name && i < config->character_count; ++i)
        if (strcmp(config->characters[i].name, name) == 0)
            return &config->characters[i];
    return NULL;
}

bool anim_config_reload_due(const anim_config *config)
{
    /* The stamps are not the config's meaning: watch_changed may note that a large file has settled
     * (config is const, the watch list it points to is not). */
    return config && watch_set_changed(&config->watched);
}

static anim_config *anim_config_reload_mode(anim_config *old, diag_list *errors, bool partial)
{
    if (!old)
        return NULL;
    if (old->characters_path)
        return anim_config_load_files(old->characters_path, old->cache, errors, old, partial);
    return anim_config_load_single(old->character_name, old->mesh_path, old->clips_path, old->states_path, old->cache,
                                   errors, old, partial);
}

anim_config *anim_config_reload(anim_config *old, diag_list *errors)
{
    return anim_config_reload_mode(old, errors, false);
}

anim_config *anim_config_reload_partial(anim_config *old, diag_list *errors)
{
    return anim_config_reload_mode(old, errors, true);
}

int anim_config_watched_file_count(const anim_config *config)
{
    return config ? config->watched.count : 0;
}

const char *anim_config_watched_file(const anim_config *config, int index)
{
    return config && index >= 0 && index < config->watched.count ? config->watched.files[index].path : NULL;
}
