/* clips.ini: one character's clip library, a [NAME] section per clip. The clips are loaded through the
 * cache against the character's model, so a clip made for another skeleton is reported where it is named. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../build/loader.h"
#include "anim_config_internal.h"

static void find_contacts(anim_config_loader *loader, anim_character *character, anim_character_storage *storage,
                          const char *path);

static const char *const anim_config_clip_keys[] = {"file",     "loop",     "speed",      "root_motion", "sync", "events",
                                                    "additive", "skeleton", "frame_rate", NULL};

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
    storage->contact_handles = calloc((size_t)(count ? count : 1), sizeof *storage->contact_handles);
    storage->retarget_raw = calloc((size_t)(count ? count : 1), sizeof *storage->retarget_raw);
    storage->retarget_models = calloc((size_t)(count ? count : 1), sizeof *storage->retarget_models);
    storage->retime_sources = calloc((size_t)(count ? count : 1), sizeof *storage->retime_sources);
    if (!storage->clips || !storage->additive_handles || !storage->contact_handles || !storage->events ||
        !storage->clip_handles || !storage->sync_group_names || !storage->retarget_raw || !storage->retarget_models ||
        !storage->retime_sources) {
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
        float travel_scale = 1.0f; /* a retargeted clip's speeds are its source's times the legs' ratio */
        if (!file) {
            anim_config_report(loader, path, section->line, "clip [%s] has no 'file'", section->name);
        } else if (!anim_config_resolve_path(path, file->value, clip_path, sizeof clip_path)) {
            anim_config_report(loader, path, file->line, "path is too long");
        } else {
            anim_config_watch(loader->config, clip_path, LOADER_MAX_FILE_BYTES);
            const ini_entry *made_for = ini_find_entry(section, "skeleton");
            if (character->model_handle.id != 0) { /* without a model there is no hierarchy to check against */
                diag error;
                int error_line = file->line;
                if (made_for)
                    storage->clip_handles[s] =
                        anim_config_retarget_clip(loader, character, storage, path, s, file, made_for, clip_path,
                                                  &travel_scale, &error, &error_line);
                else
                    storage->clip_handles[s] =
                        cache_load_clip(loader->cache, clip_path, character->model_handle, &error, NULL);
                if (storage->clip_handles[s].id == 0 && failures) {
                    if (error.file[0]) /* a file's own problem, at its line */
                        diag_format(&error, failures[s].text, sizeof failures[s].text);
                    else /* the retargeting's, at this file's line */
                        snprintf(failures[s].text, sizeof failures[s].text, "%s", error.message);
                    failures[s].line = error_line;
                }
                clip->clip = cache_clip(loader->cache, storage->clip_handles[s]);
            }
        }
        const ini_entry *entry;
        bool flag = false;
        float rate = 0.0f;
        if ((entry = ini_find_entry(section, "frame_rate")) &&
            anim_config_parse_number(loader, path, entry, ANIM_RANGE_FRAME_RATE, &rate) && clip->clip) {
            /* The same frames at the rate its game plays them: a copy the cache shares, for every character. */
            diag error;
            cache_clip_handle retimed = cache_load_retimed_clip(loader->cache, storage->clip_handles[s], rate, &error);
            if (retimed.id == 0) {
                anim_config_report(loader, path, entry->line, "frame_rate: %s", error.message);
            } else {
                /* Held to the end of the load, as a retargeting's sources are: another character on this
                 * library finds the clip it was made from (a retargeted one is not baked twice). */
                storage->retime_sources[s] = storage->clip_handles[s];
                storage->clip_handles[s] = retimed;
                clip->clip = cache_clip(loader->cache, retimed);
            }
        }
        if ((entry = ini_find_entry(section, "loop")) && anim_config_parse_bool(loader, path, entry, &flag))
            clip->loop = flag;
        if ((entry = ini_find_entry(section, "speed")) &&
            anim_config_parse_number(loader, path, entry, ANIM_RANGE_CLIP_SPEED, &clip->ground_speed))
            clip->ground_speed *= travel_scale;
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

/* Everything anim_feet_find_contacts reads besides the clip's data, as the key of the contacts in the
 * cache (cache_load_derived): a reload, or a second config on the same cache, finds them there unless one
 * of these changed. Only 4-byte members, so there is no padding to leave unset; joint_count parents (the
 * skeleton's, as int32_t) follow it. */
typedef struct anim_config_contacts_key {
    int32_t joint_count;
    int32_t foot_count;
    int32_t feet[ANIM_FEET_MAX];
    float foot_bind_rotation[ANIM_FEET_MAX][4]; /* skeleton.bind_object[feet[f]].rotation */
    int32_t axes_from[3];
    int32_t axes_sign[3];
    float import_scale;
    float ground_speed;
    int32_t loop;
    int32_t root_mode;
} anim_config_contacts_key;

/* cache_derive_fn: the contacts of one clip from the key alone, through a skeleton rebuilt from it with
 * only what anim_feet_find_contacts reads (parents, the feet's bind rotations), so that nothing the key
 * lacks can change the result. */
static bool anim_config_derive_contacts(const clip *source, const void *key, size_t key_bytes, void **out,
                                        size_t *out_bytes, diag *err)
{
    anim_config_contacts_key header;
    if (key_bytes < sizeof header)
        return diag_set(err, "contacts", 0, "a key of %zu bytes is too short", key_bytes);
    memcpy(&header, key, sizeof header);
    if (header.joint_count != source->joint_count || header.foot_count < 1 || header.foot_count > ANIM_FEET_MAX ||
        key_bytes != sizeof header + (size_t)header.joint_count * sizeof(int32_t))
        return diag_set(err, "contacts", 0, "the key does not fit the clip");
    size_t bytes = (size_t)source->frame_count * (size_t)header.foot_count;
    int *parents = malloc(sizeof *parents * (size_t)header.joint_count);
    joint_pose *bind = calloc((size_t)header.joint_count, sizeof *bind);
    unsigned char *planted = malloc(bytes);
    bool ok = parents && bind && planted;
    for (int j = 0; ok && j < header.joint_count; ++j) {
        int32_t parent;
        memcpy(&parent, (const unsigned char *)key + sizeof header + (size_t)j * sizeof parent, sizeof parent);
        parents[j] = parent;
    }
    int feet[ANIM_FEET_MAX];
    for (int f = 0; ok && f < header.foot_count; ++f) {
        feet[f] = header.feet[f];
        if (feet[f] >= 0 && feet[f] < header.joint_count)
            memcpy(bind[feet[f]].rotation, header.foot_bind_rotation[f], sizeof bind[feet[f]].rotation);
    }
    skeleton rebuilt = {.joint_count = header.joint_count, .parents = parents, .bind_object = bind};
    anim_clip entry = {.clip = source, .import_scale = header.import_scale, .ground_speed = header.ground_speed,
                       .loop = header.loop != 0, .root_mode = (anim_root_mode)header.root_mode};
    for (int k = 0; k < 3; ++k) {
        entry.import_axes.from[k] = (signed char)header.axes_from[k];
        entry.import_axes.sign[k] = (signed char)header.axes_sign[k];
    }
    ok = ok && anim_feet_find_contacts(&entry, &rebuilt, feet, header.foot_count, planted);
    free(parents);
    free(bind);
    if (!ok) {
        free(planted);
        return diag_set(err, "contacts", 0, "out of memory finding the feet's contacts");
    }
    *out = planted;
    *out_bytes = bytes;
    return true;
}

/* The cache handle of the clip data a clip plays: its own, or for a stand-in that of the clip it stands in
 * for; {0} if none. */
static cache_clip_handle anim_config_clip_data_handle(anim_config_loader *loader, const anim_character *character,
                                                      const anim_character_storage *storage, int s)
{
    const clip *data = character->clips[s].clip;
    if (cache_clip(loader->cache, storage->clip_handles[s]) == data)
        return storage->clip_handles[s];
    for (int i = 0; i < character->clip_count; ++i)
        if (cache_clip(loader->cache, storage->clip_handles[i]) == data)
            return storage->clip_handles[i];
    return (cache_clip_handle){0};
}

/* When each clip plants the feet of the character's legs (characters.ini `legs`, or found by name:
 * anim_config_load_legs): found once here, so that whatever plays the clips (foot locking, md5tool feet)
 * reads the same contacts, and shared through the cache, so that a reload, or another config on the same
 * cache, with the same clip data, skeleton, feet, import and clip settings finds them made. */
static void find_contacts(anim_config_loader *loader, anim_character *character, anim_character_storage *storage,
                          const char *path)
{
    if (!character->model || character->leg_count <= 0)
        return;
    const skeleton *skeleton = &character->model->skeleton;
    size_t key_bytes = sizeof(anim_config_contacts_key) + (size_t)skeleton->joint_count * sizeof(int32_t);
    unsigned char *key = calloc(1, key_bytes);
    if (!key) {
        anim_config_report(loader, path, 0, "out of memory");
        return;
    }
    anim_config_contacts_key header = {.joint_count = skeleton->joint_count, .foot_count = character->leg_count};
    for (int f = 0; f < character->leg_count; ++f) {
        int foot = character->legs[f].ankle;
        header.feet[f] = foot;
        if (foot >= 0 && foot < skeleton->joint_count)
            memcpy(header.foot_bind_rotation[f], skeleton->bind_object[foot].rotation,
                   sizeof header.foot_bind_rotation[f]);
    }
    for (int j = 0; j < skeleton->joint_count; ++j) {
        int32_t parent = skeleton->parents[j];
        memcpy(key + sizeof header + (size_t)j * sizeof parent, &parent, sizeof parent);
    }
    for (int s = 0; s < character->clip_count; ++s) {
        anim_clip *clip = &storage->clips[s];
        if (!clip->clip || clip->additive)
            continue;
        header.import_scale = clip->import_scale;
        header.ground_speed = clip->ground_speed;
        header.loop = clip->loop;
        header.root_mode = (int32_t)clip->root_mode;
        for (int k = 0; k < 3; ++k) {
            header.axes_from[k] = clip->import_axes.from[k];
            header.axes_sign[k] = clip->import_axes.sign[k];
        }
        memcpy(key, &header, sizeof header);
        diag error;
        cache_clip_handle data = anim_config_clip_data_handle(loader, character, storage, s);
        storage->contact_handles[s] =
            cache_load_derived(loader->cache, data, anim_config_derive_contacts, key, key_bytes, &error);
        if (storage->contact_handles[s].id == 0) {
            anim_config_report(loader, path, 0, "clip [%s]: %s", clip->name, error.message);
            break;
        }
        clip->planted = cache_derived(loader->cache, storage->contact_handles[s], NULL);
        clip->planted_always = anim_feet_planted_always(clip->planted, clip->clip->frame_count, character->leg_count);
    }
    free(key);
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
