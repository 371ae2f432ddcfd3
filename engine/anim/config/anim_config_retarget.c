/* Clips made for another skeleton (clips.ini `skeleton = MESH`), played through the two skeletons' joint
 * maps (engine/build/retarget.h): the character's map from characters.ini's `map.ROLE = JOINT` keys and its
 * skeleton's structure, the source's from its skeleton; the bake is the cache's (cache_load_retargeted_clip),
 * once for every character and reload on the same files and maps. */
#include <stdio.h>
#include <string.h>

#include "../../build/loader.h"
#include "anim_config_internal.h"

/* A file-space unit vector along canonical axis k (0 forward, 2 up) of axes. */
static void axis_vector(const anim_axes *axes, int k, float out[3])
{
    out[0] = out[1] = out[2] = 0.0f;
    if (axes->sign[k] == 0)
        out[k] = 1.0f;
    else
        out[axes->from[k]] = (float)axes->sign[k];
}

void anim_config_load_map(anim_config_loader *loader, anim_character *character, anim_character_storage *storage,
                          const char *path, const ini_section *section)
{
    storage->map_given = retarget_map_empty();
    storage->map_state = 0;
    storage->map_path = path;
    storage->map_line = section ? section->line : 0;
    memset(storage->map_lines, 0, sizeof storage->map_lines);
    if (!section || !character->model)
        return;
    const skeleton *s = &character->model->skeleton;
    for (int i = 0; i < section->entry_count; ++i) {
        const ini_entry *entry = &section->entries[i];
        if (strncmp(entry->key, "map.", 4) != 0)
            continue;
        int role = retarget_role_from_name(entry->key + 4);
        if (role < 0) {
            char roles[512] = "";
            for (int r = 0; r < RETARGET_ROLE_COUNT; ++r)
                snprintf(roles + strlen(roles), sizeof roles - strlen(roles), "%s%s", r ? " " : "",
                         retarget_role_name((retarget_role)r));
            anim_config_report(loader, path, entry->line, "'%s': no role '%s'; roles: %s", entry->key, entry->key + 4,
                               roles);
            continue;
        }
        int joint = skeleton_find_joint(s, entry->value);
        if (joint < 0) {
            anim_config_report(loader, path, entry->line, "'%s': the skeleton of %s has no joint '%s'", entry->key,
                               character->mesh_path, entry->value);
            continue;
        }
        bool taken = false;
        for (int r = 0; r < RETARGET_ROLE_COUNT && !taken; ++r)
            if (storage->map_given.joints[r] == joint) {
                anim_config_report(loader, path, entry->line, "'%s': joint '%s' is map.%s already (line %d)",
                                   entry->key, entry->value, retarget_role_name((retarget_role)r),
                                   storage->map_lines[r]);
                taken = true;
            }
        if (taken)
            continue;
        storage->map_given.joints[role] = joint;
        storage->map_lines[role] = entry->line;
    }
}

/* The character's map, found once per load (when the first clip needs it); false (reported once, at its
 * section in characters.ini, or against its mesh) when it has none. */
static bool character_map(anim_config_loader *loader, anim_character *character, anim_character_storage *storage)
{
    if (storage->map_state != 0)
        return storage->map_state > 0;
    float up[3], forward[3];
    axis_vector(&character->axes, 2, up);
    axis_vector(&character->axes, 0, forward);
    diag error;
    if (retarget_map_find(character->model, up, forward, &storage->map_given, &storage->map, NULL,
                          storage->map_bind_forward, &error)) {
        storage->map_state = 1;
        return true;
    }
    storage->map_state = -1;
    anim_config_report(loader, storage->map_path ? storage->map_path : character->mesh_path, storage->map_line,
                       "character [%s] cannot play clips made for another skeleton: %s", character->name,
                       error.message);
    return false;
}

cache_clip_handle anim_config_retarget_clip(anim_config_loader *loader, anim_character *character,
                                            anim_character_storage *storage, const char *clips_path, int s,
                                            const ini_entry *file_entry, const ini_entry *skeleton_entry,
                                            const char *clip_path, float *travel_scale, diag *failure,
                                            int *failure_line)
{
    cache_clip_handle none = {0};
    char mesh_path[ANIM_CONFIG_PATH_MAX];
    *failure_line = skeleton_entry->line;
    if (!anim_config_resolve_path(clips_path, skeleton_entry->value, mesh_path, sizeof mesh_path)) {
        diag_set(failure, "", 0, "skeleton: path is too long");
        return none;
    }
    anim_config_watch(loader->config, mesh_path, LOADER_MAX_FILE_BYTES);
    diag error;
    storage->retarget_models[s] = cache_load_model(loader->cache, mesh_path, &error, NULL);
    if (storage->retarget_models[s].id == 0) {
        char inner[DIAG_TEXT_MAX];
        diag_format(&error, inner, sizeof inner);
        diag_set(failure, "", 0, "skeleton: %s", inner);
        return none;
    }
    /* The clip must fit the skeleton it says it was made for: reported at its `file` line, as any clip. */
    storage->retarget_raw[s] = cache_load_clip(loader->cache, clip_path, storage->retarget_models[s], failure, NULL);
    if (storage->retarget_raw[s].id == 0) {
        *failure_line = file_entry->line;
        return none;
    }
    if (!character_map(loader, character, storage)) {
        diag_set(failure, "", 0,
                 "made for another skeleton, and [%s] has no joint map to play it with (%s:%d says why)",
                 character->name, storage->map_path ? storage->map_path : character->mesh_path, storage->map_line);
        return none;
    }
    const model *from = cache_model(loader->cache, storage->retarget_models[s]);
    retarget_spec spec = {.target_map = storage->map};
    anim_axes ours = anim_axes_canonical();
    axis_vector(&ours, 2, spec.source_up);
    axis_vector(&ours, 0, spec.source_forward);
    axis_vector(&character->axes, 2, spec.target_up);
    axis_vector(&character->axes, 0, spec.target_forward);
    memcpy(spec.target_bind_forward, storage->map_bind_forward, sizeof spec.target_bind_forward);
    /* The library's clips name one skeleton: its map is found once, for the first of them. */
    if (storage->source_map_model != storage->retarget_models[s].id) {
        storage->source_map_model = 0;
        if (!retarget_map_find(from, spec.source_up, spec.source_forward, NULL, &storage->source_map, NULL,
                               storage->source_bind_forward, &error)) {
            diag_set(failure, "", 0, "skeleton %s: %s", mesh_path, error.message);
            return none;
        }
        storage->source_map_model = storage->retarget_models[s].id;
    }
    spec.source_map = storage->source_map;
    memcpy(spec.source_bind_forward, storage->source_bind_forward, sizeof spec.source_bind_forward);
    cache_clip_handle baked = cache_load_retargeted_clip(loader->cache, storage->retarget_raw[s],
                                                         storage->retarget_models[s], character->model_handle, &spec,
                                                         &error);
    if (baked.id == 0) {
        diag_set(failure, "", 0, "%s", error.message);
        return none;
    }
    *travel_scale = retarget_travel_scale(&from->skeleton, &character->model->skeleton, &spec);
    return baked;
}

void anim_config_release_retarget_sources(anim_config_loader *loader, const anim_character *character,
                                          anim_character_storage *storage)
{
    /* clip_count > 0 only when anim_config_load_clips made all three arrays. */
    for (int s = 0; s < character->clip_count; ++s) {
        cache_release_clip(loader->cache, storage->retarget_raw[s]);
        cache_release_model(loader->cache, storage->retarget_models[s]);
        cache_release_clip(loader->cache, storage->retime_sources[s]);
        storage->retime_sources[s] = (cache_clip_handle){0};
        storage->retarget_raw[s] = (cache_clip_handle){0};
        storage->retarget_models[s] = (cache_model_handle){0};
    }
}
