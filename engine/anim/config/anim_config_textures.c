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

/* The images a mesh is drawn with: its colour (the texture), its normal map, its specular map. Each kind has
 * its override key (`texture.SHADER`, `normal_map.SHADER`, `specular_map.SHADER`, the same rules); the maps
 * are otherwise found by convention beside the texture (loader_find_map). */
enum { IMAGE_KINDS = 1 + LOADER_MAP_COUNT };
static const char *const image_key_prefixes[IMAGE_KINDS] = {"texture.", "normal_map.", "specular_map."};
static const char *const image_kind_names[IMAGE_KINDS] = {"texture", "normal map", "specular map"};

/* The shader an override key names (what follows its prefix), or NULL when key is no override of kind. */
static const char *override_shader(const char *key, int kind)
{
    size_t length = strlen(image_key_prefixes[kind]);
    return strncmp(key, image_key_prefixes[kind], length) == 0 ? key + length : NULL;
}

/* The override entry of kind for this shader, or NULL. */
static const ini_entry *anim_config_find_override(const ini_section *section, int kind, const char *shader)
{
    for (int e = 0; section && e < section->entry_count; ++e) {
        const char *named = override_shader(section->entries[e].key, kind);
        if (named && strcmp(named, shader) == 0)
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
        for (int kind = 0; kind < IMAGE_KINDS; ++kind) {
            const char *shader = override_shader(entry->key, kind);
            if (!shader)
                continue;
            char path[ANIM_CONFIG_PATH_MAX];
            if (entry->value[0] == '\0' ||
                !anim_config_resolve_path(characters_path, entry->value, path, sizeof path)) {
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
                                 "%s override for shader \"%s\": cannot read '%s' (%s); searching as if it were not "
                                 "there", image_kind_names[kind], shader, path, refusal.message);
            bool used = false;
            for (int m = 0; m < model->mesh_count && !used; ++m)
                used = strcmp(model->meshes[m].shader, shader) == 0;
            if (!used)
                anim_config_warn(loader, characters_path, entry->line, "no mesh of %s has the shader \"%s\"",
                                 mesh_path, shader);
        }
    }
}

/* The image of kind for one shader: the override, then the search (the texture: the mesh's folder, then the
 * textures folder; a map: beside the texture found, then the same folders, by the suffixes of its kind). A
 * candidate the search refuses (a symbolic link leading out of its folder) is a warning at the mesh's shader
 * line. A map found nowhere is no warning: the mesh is lit without it. */
static bool anim_config_find_image(anim_config_loader *loader, const char *characters_path,
                                   const ini_section *section, const char *mesh_path, const skin_mesh *mesh,
                                   const char *textures_folder, int kind, const char *texture, char *out,
                                   size_t size)
{
    const char *shader = mesh->shader;
    const ini_entry *entry = anim_config_find_override(section, kind, shader);
    if (entry && entry->value[0] != '\0' && anim_config_resolve_path(characters_path, entry->value, out, size) &&
        file_is_readable(out, IMAGE_MAX_FILE_BYTES))
        return true;
    diag_list refusals = {0};
    bool ok = kind == 0 ? loader_find_texture(mesh_path, shader, textures_folder, out, size, &refusals)
                        : loader_find_map(mesh_path, shader, textures_folder, texture, (loader_map)(kind - 1), out,
                                          size, &refusals);
    for (int r = 0; r < refusals.count; ++r)
        anim_config_warn(loader, mesh_path, mesh->shader_line, "%s for shader \"%s\": %s %s", image_kind_names[kind],
                         shader, refusals.items[r].file, refusals.items[r].message);
    diag_list_free(&refusals);
    return ok;
}

void anim_config_load_textures(anim_config_loader *loader, anim_character *character, anim_character_storage *storage,
                               const char *mesh_path, const char *characters_path, const ini_section *section)
{
    const model *model = character->model;
    if (!model || model->mesh_count <= 0)
        return;
    char **lists[IMAGE_KINDS] = {NULL};
    for (int kind = 0; kind < IMAGE_KINDS; ++kind) {
        lists[kind] = calloc((size_t)model->mesh_count, sizeof *lists[kind]);
        if (!lists[kind]) {
            for (int k = 0; k < kind; ++k)
                free(lists[k]);
            return; /* every mesh a placeholder is better than failing the load */
        }
    }
    storage->texture_paths = lists[0];
    storage->normal_map_paths = lists[1];
    storage->specular_map_paths = lists[2];
    storage->texture_count = model->mesh_count;
    character->texture_paths = (const char *const *)lists[0];
    character->normal_map_paths = (const char *const *)lists[1];
    character->specular_map_paths = (const char *const *)lists[2];
    char textures_folder[ANIM_CONFIG_PATH_MAX];
    anim_config_textures_folder(loader, characters_path, section, textures_folder, sizeof textures_folder);
    anim_config_check_overrides(loader, characters_path, section, model, mesh_path);
    for (int m = 0; m < model->mesh_count; ++m) {
        const char *shader = model->meshes[m].shader;
        /* Meshes with one shader share its images (a body split by material count often repeats one). */
        int same = 0;
        while (same < m && strcmp(model->meshes[same].shader, shader) != 0)
            ++same;
        for (int kind = 0; kind < IMAGE_KINDS; ++kind) {
            char path[ANIM_CONFIG_PATH_MAX];
            if (same < m)
                lists[kind][m] = lists[kind][same] ? strdup(lists[kind][same]) : NULL;
            else if (anim_config_find_image(loader, characters_path, section, mesh_path, &model->meshes[m],
                                            textures_folder, kind, lists[0][m], path, sizeof path)) {
                anim_config_watch(loader->config, path, IMAGE_MAX_FILE_BYTES); /* edited on disk: a reload */
                lists[kind][m] = strdup(path);
            }
        }
    }
}

void anim_config_free_textures(anim_character_storage *storage)
{
    for (int m = 0; m < storage->texture_count; ++m) {
        free(storage->texture_paths ? storage->texture_paths[m] : NULL);
        free(storage->normal_map_paths ? storage->normal_map_paths[m] : NULL);
        free(storage->specular_map_paths ? storage->specular_map_paths[m] : NULL);
    }
    free(storage->texture_paths);
    free(storage->normal_map_paths);
    free(storage->specular_map_paths);
    storage->texture_paths = storage->normal_map_paths = storage->specular_map_paths = NULL;
    storage->texture_count = 0;
}
