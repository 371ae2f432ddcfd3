/* clips.ini: one character's clip library, a [NAME] section per clip. The clips are loaded through the
 * cache against the character's model, so a clip made for another skeleton is reported where it is named. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "anim_config_internal.h"

static void find_contacts(anim_config_loader *loader, anim_character *character, anim_character_storage *storage,
                          const char *path);

static const char *const anim_config_clip_keys[] = {"file", "loop", "speed", "root_motion", "sync", "events", "additive", NULL};

static int anim_config_sync_group(anim_character *character, anim_character_storage *storage, const char *name)
{
    for (int i = 0; i < character->sync_group_count; ++i)
        if (strcmp(storage->sync_group_names[i], name) == 0)
            return i;
    snprintf(storage->sync_group_names[character->sync_group_count], ANIM_NAME_MAX, "%s", name);
    return character->sync_group_count++;
}

/* "footstep.L@0 footstep.R@15" into sorted marks; frames checked against the clip when it loaded. */
static void anim_config_parse_events(anim_config_loader *loader, const char *path, const ini_entry *entry,
                                     anim_clip *clip, anim_event_mark **events_out)
{
    char *text = strdup(entry->value);
    if (!text)
        return;
    int capacity = 0;
    for (char *c = text; *c; ++c)
        capacity += *c == '@';
    anim_event_mark *events = calloc((size_t)(capacity > 0 ? capacity : 1), sizeof *events);
    int count = 0;
    char *save = NULL;
    for (char *token = strtok_r(text, " \t", &save); token && events; token = strtok_r(NULL, " \t", &save)) {
        char *at = strrchr(token, '@');
        if (!at || at == token || at[1] == '\0') {
            anim_config_report(loader, path, entry->line, "event '%s' must be NAME@FRAME, e.g. footstep.L@12", token);
            continue;
        }
        *at = '\0';
        float frame = 0.0f;
        if (!ini_parse_float(at + 1, &frame) || frame < 0.0f) {
            anim_config_report(loader, path, entry->line, "event '%s': frame '%s' must be a number >= 0", token,
                               at + 1);
            continue;
        }
        if (!anim_config_in_range(ANIM_RANGE_EVENT_FRAME, frame)) {
            char range[64];
            anim_config_report(loader, path, entry->line, "event '%s': frame %s must be %s", token, at + 1,
                               anim_config_range_text(ANIM_RANGE_EVENT_FRAME, range, sizeof range));
            continue;
        }
        if (!anim_config_check_name(loader, path, entry->line, "event", token))
            continue;
        if (clip->clip && frame > (float)(clip->clip->frame_count - 1)) {
            anim_config_report(loader, path, entry->line, "event '%s' at frame %g is past the clip's last frame %d",
                               token, (double)frame, clip->clip->frame_count - 1);
            continue;
        }
        /* Insertion keeps marks sorted by frame, equal frames in the order written. */
        int slot = count++;
        while (slot > 0 && events[slot - 1].frame > frame) {
            events[slot] = events[slot - 1];
            --slot;
        }
        events[slot].frame = frame;
        snprintf(events[slot].name, sizeof events[slot].name, "%s", token);
    }
    free(text);
    *events_out = events;
    clip->events = events;
    clip->event_count = count;
}

/* The raw frames of clip s as its file has them (the cache's), whatever `additive` did to its entry; NULL
 * when its file did not load. */
static const clip *anim_config_raw_clip(anim_config_loader *loader, const anim_character_storage *storage, int s)
{
    return storage->clip_handles[s].id != 0 ? cache_clip(loader->cache, storage->clip_handles[s]) : NULL;
}

/* `additive = first_frame` or `additive = CLIP FRAME`: replace clip s's frames by their deltas from the
 * reference pose, baked by the cache once for every character (and reload) on the same files. Every
 * mistake is reported at the entry's line; the clip then stays as it was. */
static void anim_config_make_additive(anim_config_loader *loader, anim_character *character,
                                      anim_character_storage *storage, const char *path, int s,
                                      const ini_entry *entry)
{
    anim_clip *playable = &storage->clips[s];
    char reference_name[ANIM_NAME_MAX] = "";
    char frame_text[32] = "";
    char extra[2] = "";
    int words = sscanf(entry->value, "%63s %31s %1s", reference_name, frame_text, extra);
    int reference = s;
    float frame = 0.0f;
    if (words == 1 && strcmp(reference_name, "first_frame") == 0) {
        reference = s;
    } else if (words == 2) {
        reference = anim_config_find_clip(character, reference_name);
        if (reference < 0) {
            char names[256];
            anim_config_report(loader, path, entry->line, "additive: no clip [%s] to take the reference from; clips: %s",
                               reference_name,
                               anim_config_join_names(names, sizeof names, storage->clips[0].name, sizeof *storage->clips,
                                                      character->clip_count));
            return;
        }
        if (!ini_parse_float(frame_text, &frame) || frame < 0.0f || frame != floorf(frame) || frame > 1000000.0f) {
            anim_config_report(loader, path, entry->line,
                               "additive: reference frame '%s' must be a whole number from 0 to 1000000", frame_text);
            return;
        }
    } else {
        anim_config_report(loader, path, entry->line,
                           "additive must be `first_frame` or `CLIP FRAME` (a clip of this file and its frame), "
                           "not '%s'", entry->value);
        return;
    }
    if (playable->root_mode == ANIM_ROOT_MOTION) {
        anim_config_report(loader, path, entry->line,
                           "additive clip [%s] cannot have root_motion = true: a delta carries no travel", playable->name);
        return;
    }
    const clip *source = anim_config_raw_clip(loader, storage, s);
    const clip *reference_clip = anim_config_raw_clip(loader, storage, reference);
    if (!source)
        return; /* its file's failure is reported where the file is named (or there is no model to load on) */
    if (!reference_clip) {
        anim_config_report(loader, path, entry->line, "additive: reference clip [%s] did not load",
                           storage->clips[reference].name);
        return;
    }
    if (frame > (float)(reference_clip->frame_count - 1)) {
        anim_config_report(loader, path, entry->line, "additive: reference frame %d is past clip [%s]'s last frame %d",
                           (int)frame, storage->clips[reference].name, reference_clip->frame_count - 1);
        return;
    }
    diag error;
    cache_clip_handle baked = cache_load_additive_clip(loader->cache, storage->clip_handles[s],
                                                       storage->clip_handles[reference], (int)frame, &error);
    if (baked.id == 0) {
        anim_config_report(loader, path, entry->line, "additive: clip [%s] against [%s]: %s", playable->name,
                           storage->clips[reference].name, error.message);
        return;
    }
    storage->additive_handles[s] = baked;
    playable->clip = cache_clip(loader->cache, baked);
    playable->additive = true;
}

void anim_config_load_clips(anim_config_loader *loader, anim_character *character, anim_character_storage *storage,
                            const char *path, const char *referrer, int referrer_line)
{
    ini_document document;
    if (!anim_config_read_document(loader, path, referrer, referrer_line, "clips file", &document))
        return;
    int count = document.section_count;
    storage->clips = calloc((size_t)(count ? count : 1), sizeof *storage->clips);
    storage->events = calloc((size_t)(count ? count : 1), sizeof *storage->events);
    storage->clip_handles = calloc((size_t)(count ? count : 1), sizeof *storage->clip_handles);
    storage->sync_group_names = calloc((size_t)(count ? count : 1), sizeof *storage->sync_group_names);
    storage->additive_handles = calloc((size_t)(count ? count : 1), sizeof *storage->additive_handles);
    storage->planted = calloc((size_t)(count ? count : 1), sizeof *storage->planted);
    if (!storage->clips || !storage->additive_handles || !storage->planted || !storage->events || !storage->clip_handles ||
        !storage->sync_group_names) {
        anim_config_report(loader, path, 0, "out of memory");
        ini_document_free(&document);
        return;
    }
    if (count == 0)
        anim_config_report(loader, path, 0, "no clips: expected a [NAME] section per clip");
    character->clips = storage->clips;
    character->sync_group_names = (const char(*)[ANIM_NAME_MAX])storage->sync_group_names;
    /* Clips whose file failed, reported once the stand-in (the first clip that loaded) is known. */
    struct clip_failure {
        int line;
        char text[DIAG_TEXT_MAX];
    } *failures = calloc((size_t)(count ? count : 1), sizeof *failures);
    if (!failures)
        anim_config_report(loader, path, 0, "out of memory");

    for (int s = 0; s < count; ++s) {
        const ini_section *section = &document.sections[s];
        anim_clip *clip = &storage->clips[s];
        *clip = (anim_clip){.sync_group = -1, .root_mode = ANIM_ROOT_IN_PLACE, .import_scale = character->scale,
                            .import_axes = character->axes};
        character->clip_count = s + 1;
        anim_config_check_name(loader, path, section->line, "clip", section->name);
        snprintf(clip->name, sizeof clip->name, "%s", section->name);
        anim_config_check_keys(loader, path, section, anim_config_clip_keys);

        const ini_entry *file = ini_find_entry(section, "file");
        char clip_path[ANIM_CONFIG_PATH_MAX];
        if (!file) {
            anim_config_report(loader, path, section->line, "clip [%s] has no 'file'", section->name);
        } else if (!anim_config_resolve_path(path, file->value, clip_path, sizeof clip_path)) {
            anim_config_report(loader, path, file->line, "path is too long");
        } else {
            anim_config_watch(loader->config, clip_path);
            if (character->model_handle.id != 0) { /* without a model there is no hierarchy to check against */
                diag error;
                storage->clip_handles[s] =
                    cache_load_clip(loader->cache, clip_path, character->model_handle, &error, NULL);
                if (storage->clip_handles[s].id == 0 && failures) {
                    diag_format(&error, failures[s].text, sizeof failures[s].text);
                    failures[s].line = file->line;
                }
                clip->clip = cache_clip(loader->cache, storage->clip_handles[s]);
            }
        }
        const ini_entry *entry;
        bool flag = false;
        if ((entry = ini_find_entry(section, "loop")) && anim_config_parse_bool(loader, path, entry, &flag))
            clip->loop = flag;
        if ((entry = ini_find_entry(section, "speed")))
            anim_config_parse_number(loader, path, entry, ANIM_RANGE_CLIP_SPEED, &clip->ground_speed);
        if ((entry = ini_find_entry(section, "root_motion")) &&
            anim_config_parse_bool(loader, path, entry, &flag))
            clip->root_mode = flag ? ANIM_ROOT_MOTION : ANIM_ROOT_IN_PLACE;
        if ((entry = ini_find_entry(section, "sync")) &&
            anim_config_check_name(loader, path, entry->line, "sync group", entry->value))
            clip->sync_group = anim_config_sync_group(character, storage, entry->value);
        if ((entry = ini_find_entry(section, "events")))
            anim_config_parse_events(loader, path, entry, clip, &storage->events[s]);
    }
    int stand_in = anim_config_first_loaded_clip(character);
    for (int s = 0; s < count && failures; ++s) {
        if (failures[s].line == 0)
            continue;
        anim_clip *clip = &storage->clips[s];
        if (!loader->partial) {
            anim_config_report(loader, path, failures[s].line, "clip [%s]: %s", clip->name, failures[s].text);
            continue;
        }
        if (stand_in < 0) { /* nothing to play: the character is left out (anim_config.c says so) */
            anim_config_report_stand_in(loader, path, failures[s].line, "clip [%s]: %s", clip->name, failures[s].text);
            continue;
        }
        anim_config_report_stand_in(loader, path, failures[s].line, "clip [%s]: %s; [%s] plays in its place",
                                    clip->name, failures[s].text, storage->clips[stand_in].name);
        clip->clip = storage->clips[stand_in].clip;
        clip->event_count = 0; /* its events were marked on the frames of the clip that failed */
    }
    free(failures);
    /* After every clip has loaded: a reference may be named before or after the clip that uses it. */
    for (int s = 0; s < count; ++s) {
        const ini_entry *entry = ini_find_entry(&document.sections[s], "additive");
        if (entry)
            anim_config_make_additive(loader, character, storage, path, s, entry);
    }
    find_contacts(loader, character, storage, path);
    ini_document_free(&document);
}

/* When each clip plants the feet of the character's legs (characters.ini `legs`, or found by name:
 * anim_config_load_legs): found once here, so that whatever plays the clips (foot locking, md5tool feet)
 * reads the same contacts. */
static void find_contacts(anim_config_loader *loader, anim_character *character, anim_character_storage *storage,
                          const char *path)
{
    if (!character->model)
        return;
    int feet[ANIM_FEET_MAX];
    for (int i = 0; i < character->leg_count; ++i)
        feet[i] = character->legs[i].ankle;
    for (int s = 0; s < character->clip_count && character->leg_count > 0; ++s) {
        anim_clip *clip = &storage->clips[s];
        if (!clip->clip || clip->additive)
            continue;
        storage->planted[s] = malloc((size_t)clip->clip->frame_count * (size_t)character->leg_count);
        if (!storage->planted[s] ||
            !anim_feet_find_contacts(clip, &character->model->skeleton, feet, character->leg_count, storage->planted[s])) {
            anim_config_report(loader, path, 0, "out of memory");
            return;
        }
        clip->planted = storage->planted[s];
        clip->planted_always = anim_feet_planted_always(clip->planted, clip->clip->frame_count, character->leg_count);
    }
}

void anim_config_release_additive_sources(anim_config_loader *loader, const anim_character *character,
                                          anim_character_storage *storage)
{
    for (int s = 0; storage->additive_handles && s < character->clip_count; ++s) {
        if (storage->additive_handles[s].id == 0)
            continue;
        cache_release_clip(loader->cache, storage->clip_handles[s]);
        storage->clip_handles[s] = (cache_clip_handle){0};
    }
}

int anim_config_first_loaded_clip(const anim_character *character)
{
    for (int i = 0; character && i < character->clip_count; ++i)
        if (character->clips[i].clip)
            return i;
    return -1;
}

int anim_config_find_blend(const anim_character *character, const char *name)
{
    for (int i = 0; character && name && i < character->blend_count; ++i)
        if (strcmp(character->blends[i].name, name) == 0)
            return i;
    return -1;
}

int anim_config_find_clip(const anim_character *character, const char *name)
{
    for (int i = 0; character && name && i < character->clip_count; ++i)
        if (strcmp(character->clips[i].name, name) == 0)
            return i;
    return -1;
}
