/* One character's texture paths. Models are shared in the cache by file, but which image a mesh is drawn with
 * belongs to the character: two characters may dress one body differently (their own `textures` folder, their
 * own `texture.SHADER` overrides). So the model keeps only what its own folder gives (skin_mesh.texture_path,
 * for tools) and the search with a character's keys happens here, once per load. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../base/file.h"
#include "../../image/image.h"
#include "../../build/loader.h"
#include "anim_config_internal.h"

static const char texture_key_prefix[] = "texture.";

static bool anim_config_is_texture_key(const char *key)
{
    return strncmp(key, texture_key_prefix, sizeof texture_key_prefix - 1) == 0;
}

/* The override entry for this shader, or NULL. */
static const ini_entry *anim_config_find_override(const ini_section *section, const char *shader)
{
    for (int e = 0; section && e < section->entry_count; ++e) {
        const char *key = section->entries[e].key;
        if (anim_config_is_texture_key(key) && strcmp(key + sizeof texture_key_prefix - 1, shader) == 0)
            return &section->entries[e];
    }
    return NULL;
}

/* The `textures` folder as a path, "" when there is none or it is not a folder (warned at its line). */
static void anim_config_textures_folder(anim_config_loader *loader, const char *characters_path,
                                        const ini_section *section, char *folder, size_t size)
{
    folder[0] = '\0';
    const ini_entry *entry = section ? ini_find_entry(section, "textures") : NULL;
    if (!entry)
        return;
    if (entry->value[0] == '\0' || !anim_config_resolve_path(characters_path, entry->value, folder, size)) {
        folder[0] = '\0';
        anim_config_warn(loader, characters_path, entry->line, "'textures' must name a folder (not too long)");
        return;
    }
    /* A folder's time changes when an image is added, removed or renamed in it: one that appears is found. */
    anim_config_watch(loader->config, folder, 0);
    struct stat info;
    if (stat(folder, &info) != 0 || !S_ISDIR(info.st_mode)) {
        anim_config_warn(loader, characters_path, entry->line, "textures folder '%s' of [%s] is not a folder",
                         folder, section->name);
        folder[0] = '\0';
    }
}

/* Every override is checked once, whether or not a mesh uses it: a file it names must be readable, and its
 * shader must be one of the model's (a misspelt shader would otherwise be ignored without a word). */
static void anim_config_check_overrides(anim_config_loader *loader, const char *characters_path,
                                        const ini_section *section, const model *model, const char *mesh_path)
{
    for (int e = 0; section && e < section->entry_count; ++e) {
        const ini_entry *entry = &section->entries[e];
        if (!anim_config_is_texture_key(entry->key))
            continue;
        const char *shader = entry->key + sizeof texture_key_prefix - 1;
        char path[ANIM_CONFIG_PATH_MAX];
        if (entry->value[0] == '\0' || !anim_config_resolve_path(characters_path, entry->value, path, sizeof path)) {
            anim_config_warn(loader, characters_path, entry->line, "'%s' must name an image file (not too long)",
                             entry->key);
            continue;
        }
        anim_config_watch(loader->config, path, IMAGE_MAX_FILE_BYTES);
        diag refusal = {0};
        struct stat opened;
        int descriptor = file_open_checked(path, IMAGE_MAX_FILE_BYTES, &opened, &refusal);
        if (descriptor >= 0)
            close(descriptor);
        else
            anim_config_warn(loader, characters_path, entry->line,
                             "texture override for shader \"%s\": cannot read '%s' (%s); searching as if it were not "
                             "there", shader, path, refusal.message);
        bool used = false;
        for (int m = 0; m < model->mesh_count && !used; ++m)
            used = strcmp(model->meshes[m].shader, shader) == 0;
        if (!used)
            anim_config_warn(loader, characters_path, entry->line, "no mesh of %s has the shader \"%s\"", mesh_path,
                             shader);
    }
}

/* The image for one shader: the override, then the mesh's folder, then the textures folder. A candidate
 * the search refuses (a symbolic link leading out of its folder) is a warning at the mesh's shader line. */
static bool anim_config_find_texture(anim_config_loader *loader, const char *characters_path,
                                     const ini_section *section, const char *mesh_path, const skin_mesh *mesh,
                                     const char *textures_folder, char *out, size_t size)
{
    const char *shader = mesh->shader;
    const ini_entry *entry = anim_config_find_override(section, shader);
    if (entry && entry->value[0] != '\0' && anim_config_resolve_path(characters_path, entry->value, out, size) &&
        file_is_readable(out, IMAGE_MAX_FILE_BYTES))
        return true;
    diag_list refusals = {0};
    bool ok = loader_find_texture(mesh_path, shader, textures_folder, out, size, &refusals);
    for (int r = 0; r < refusals.count; ++r)
        anim_config_warn(loader, mesh_path, mesh->shader_line, "texture for shader \"%s\": %s %s", shader,
                         refusals.items[r].file, refusals.items[r].message);
    diag_list_free(&refusals);
    return ok;
}

void anim_config_load_textures(anim_config_loader *loader, anim_character *character, anim_character_storage *storage,
                               const char *mesh_path, const char *characters_path, const ini_section *section)
{
    const model *model = character->model;
    if (!model || model->mesh_count <= 0)
        return;
    storage->texture_paths = calloc((size_t)model->mesh_count, sizeof *storage->texture_paths);
    if (!storage->texture_paths)
        return; /* every mesh a placeholder is better than failing the load */
    storage->texture_count = model->mesh_count;
    character->texture_paths = (const char *const *)storage->texture_paths;
    char textures_folder[ANIM_CONFIG_PATH_MAX];
    anim_config_textures_folder(loader, characters_path, section, textures_folder, sizeof textures_folder);
    anim_config_check_overrides(loader, characters_path, section, model, mesh_path);
    for (int m = 0; m < model->mesh_count; ++m) {
        const char *shader = model->meshes[m].shader;
        /* Meshes with one shader share its image (a body split by material count often repeats one). */
        int same = 0;
        while (same < m && strcmp(model->meshes[same].shader, shader) != 0)
            ++same;
        char path[ANIM_CONFIG_PATH_MAX];
        if (same < m)
            storage->texture_paths[m] = storage->texture_paths[same] ? strdup(storage->texture_paths[same]) : NULL;
        else if (anim_config_find_texture(loader, characters_path, section, mesh_path, &model->meshes[m],
                                          textures_folder, path, sizeof path)) {
            anim_config_watch(loader->config, path, IMAGE_MAX_FILE_BYTES); /* an image edited on disk is a reload */
            storage->texture_paths[m] = strdup(path);
        }
    }
}

void anim_config_free_textures(anim_character_storage *storage)
{
    for (int m = 0; m < storage->texture_count; ++m)
        free(storage->texture_paths[m]);
    free(storage->texture_paths);
    storage->texture_paths = NULL;
    storage->texture_count = 0;
}
