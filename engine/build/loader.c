#include "loader.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../base/file.h"
#include "../md5/md5.h"
#include "build.h"

typedef bool (*loader_read_model_fn)(const char *text, size_t size, const char *name, raw_model *out,
                                     diag *err, diag_list *warnings);
typedef bool (*loader_read_clip_fn)(const char *text, size_t size, const char *name, raw_clip *out,
                                    diag *err, diag_list *warnings);

typedef bool (*loader_write_clip_fn)(FILE *out, const raw_clip *clip, const char *note);
typedef bool (*loader_find_texture_fn)(const char *model_path, const char *shader, const char *folder, char *out,
                                       size_t size, diag_list *refusals);

/* MD5's convention: the shader's name beside the mesh, then in the folder given (md5.h). */
static bool md5_find_texture(const char *model_path, const char *shader, const char *folder, char *out, size_t size,
                             diag_list *refusals)
{
    return md5_resolve_texture(model_path, shader, out, size, refusals) ||
           (folder && folder[0] != '\0' && md5_find_texture_in_folder(folder, shader, out, size, refusals));
}

/* One row per file type: its extension, the reader for the kind it holds (the other is NULL), for a model
 * how its texture names are searched, and for a clip its writer (NULL: the format is read only). The build
 * step is the kind's, whatever the format. */
typedef struct loader_format {
    const char *extension;
    loader_read_model_fn read_model;
    loader_read_clip_fn read_clip;
    loader_find_texture_fn find_texture;
    loader_write_clip_fn write_clip;
} loader_format;

static const loader_format loader_formats[] = {
    {".md5mesh", md5_read_model, NULL, md5_find_texture, NULL},
    {".md5anim", NULL, md5_read_clip, NULL, md5_write_clip},
};

/* What a caller wants of a file type. */
typedef enum loader_want { LOADER_WANT_MODEL, LOADER_WANT_CLIP, LOADER_WANT_CLIP_WRITER } loader_want;
enum { LOADER_FORMAT_COUNT = sizeof loader_formats / sizeof loader_formats[0] };

/* The row for path's extension that does what is wanted, or NULL with err naming the supported ones. */
static const loader_format *loader_find(const char *path, loader_want want, diag *err)
{
    const char *slash = strrchr(path, '/');
    const char *dot = strrchr(slash ? slash + 1 : path, '.');
    char supported[128] = "";
    for (int i = 0; i < LOADER_FORMAT_COUNT; ++i) {
        const loader_format *row = &loader_formats[i];
        if (want == LOADER_WANT_MODEL ? !row->read_model
            : want == LOADER_WANT_CLIP ? !row->read_clip
                                       : !row->write_clip)
            continue;
        if (dot && strcasecmp(dot, row->extension) == 0)
            return row;
        size_t used = strlen(supported);
        snprintf(supported + used, sizeof supported - used, "%s%s", used ? ", " : "", row->extension);
    }
    const char *kind = want == LOADER_WANT_MODEL ? "a model" : "an animation";
    const char *verb = want == LOADER_WANT_CLIP_WRITER ? "write" : "read";
    if (!dot)
        diag_set(err, path, 0, "no file extension to tell how to %s %s (supported: %s)", verb, kind, supported);
    else
        diag_set(err, path, 0, "'%s' files cannot be %s as %s (supported: %s)", dot,
                 want == LOADER_WANT_CLIP_WRITER ? "written" : "read", kind, supported);
    return NULL;
}

static bool loader_build_model(loader_read_model_fn read, const char *text, size_t size, const char *name,
                               model **out, diag *err, diag_list *warnings)
{
    *out = NULL;
    raw_model raw;
    bool ok = read(text, size, name, &raw, err, warnings) && build_model(&raw, out, err, warnings);
    raw_model_free(&raw);
    return ok;
}

static bool loader_build_clip(loader_read_clip_fn read, const char *text, size_t size, const char *name,
                              clip **out, diag *err, diag_list *warnings)
{
    *out = NULL;
    raw_clip raw;
    bool ok = read(text, size, name, &raw, err, warnings) && build_clip(&raw, out, err, warnings);
    raw_clip_free(&raw);
    return ok;
}

static bool loader_file_model(loader_read_model_fn read, const char *path, model **out, diag *err,
                              diag_list *warnings)
{
    *out = NULL;
    char *text;
    size_t size;
    if (!file_read_all(path, LOADER_MAX_FILE_BYTES, &text, &size, err))
        return false;
    bool ok = loader_build_model(read, text, size, path, out, err, warnings);
    free(text);
    return ok;
}

static bool loader_file_clip(loader_read_clip_fn read, const char *path, clip **out, diag *err,
                             diag_list *warnings)
{
    *out = NULL;
    char *text;
    size_t size;
    if (!file_read_all(path, LOADER_MAX_FILE_BYTES, &text, &size, err))
        return false;
    bool ok = loader_build_clip(read, text, size, path, out, err, warnings);
    free(text);
    return ok;
}

bool loader_load_model(const char *path, model **out, diag *err, diag_list *warnings)
{
    *out = NULL;
    const loader_format *row = loader_find(path, LOADER_WANT_MODEL, err);
    return row && loader_file_model(row->read_model, path, out, err, warnings);
}

bool loader_load_clip(const char *path, clip **out, diag *err, diag_list *warnings)
{
    *out = NULL;
    const loader_format *row = loader_find(path, LOADER_WANT_CLIP, err);
    return row && loader_file_clip(row->read_clip, path, out, err, warnings);
}

bool loader_parse_md5_model(const char *text, size_t size, const char *name, model **out, diag *err,
                            diag_list *warnings)
{
    return loader_build_model(md5_read_model, text, size, name, out, err, warnings);
}

bool loader_parse_md5_clip(const char *text, size_t size, const char *name, clip **out, diag *err,
                           diag_list *warnings)
{
    return loader_build_clip(md5_read_clip, text, size, name, out, err, warnings);
}

bool loader_load_md5_model(const char *path, model **out, diag *err, diag_list *warnings)
{
    return loader_file_model(md5_read_model, path, out, err, warnings);
}

bool loader_load_md5_clip(const char *path, clip **out, diag *err, diag_list *warnings)
{
    return loader_file_clip(md5_read_clip, path, out, err, warnings);
}

bool loader_find_texture(const char *model_path, const char *shader, const char *folder, char *out, size_t size,
                         diag_list *refusals)
{
    if (!model_path || !shader || !out || size == 0)
        return false;
    diag ignored;
    const loader_format *row = loader_find(model_path, LOADER_WANT_MODEL, &ignored);
    return row && row->find_texture && row->find_texture(model_path, shader, folder, out, size, refusals);
}

bool loader_write_clip(const char *path, const raw_clip *clip, const char *note, diag *err)
{
    if (!path || !clip)
        return diag_set(err, path ? path : "(clip)", 0, "nothing to write");
    const loader_format *row = loader_find(path, LOADER_WANT_CLIP_WRITER, err);
    if (!row)
        return false;
    file_writer writer;
    if (!file_writer_open(&writer, path, err))
        return false;
    if (!row->write_clip(writer.stream, clip, note)) {
        file_writer_abandon(&writer);
        return diag_set(err, path, 0, "cannot write the clip as %s (a joint name holds a quote or a line break, or "
                        "the disk refused)", row->extension);
    }
    return file_writer_commit(&writer, err);
}

const char *const *loader_map_suffixes(loader_map kind)
{
    static const char *const normal[] = {"_local", "_n", "_normal", "_nm", NULL};
    static const char *const specular[] = {"_s", "_spec", "_specular", NULL};
    static const char *const none[] = {NULL};
    return kind == LOADER_MAP_NORMAL ? normal : kind == LOADER_MAP_SPECULAR ? specular : none;
}

/* name's file-name part without its extension, then suffix: "a/b/guard.png" + "_s" -> "a/b/guard_s". False
 * when it does not fit. */
static bool suffixed(const char *name, const char *suffix, char *out, size_t size)
{
    const char *slash = strrchr(name, '/'), *backslash = strrchr(name, '\\');
    const char *file = slash && (!backslash || slash > backslash) ? slash + 1 : backslash ? backslash + 1 : name;
    const char *dot = strrchr(file, '.');
    size_t length = dot && dot != file ? (size_t)(dot - name) : strlen(name);
    int wrote = snprintf(out, size, "%.*s%s", (int)length, name, suffix);
    return wrote > 0 && (size_t)wrote < size;
}

bool loader_find_map(const char *model_path, const char *shader, const char *folder, const char *image,
                     loader_map kind, char *out, size_t size, diag_list *refusals)
{
    if (!model_path || !shader || !out || size == 0)
        return false;
    const char *const *suffixes = loader_map_suffixes(kind);
    char name[1024], image_folder[1024];
    diag ignored;
    const loader_format *row = loader_find(model_path, LOADER_WANT_MODEL, &ignored);
    if (!row || !row->find_texture)
        return false;
    /* Beside the image: its name in its folder (the format's search, with the folder to look in; never the
     * working directory, so an image named without a folder has no beside). */
    const char *slash = image ? strrchr(image, '/') : NULL;
    int wrote = slash ? snprintf(image_folder, sizeof image_folder, "%.*s", (int)(slash - image), image) : 0;
    for (int i = 0; slash && wrote > 0 && (size_t)wrote < sizeof image_folder && suffixes[i]; ++i)
        if (suffixed(slash + 1, suffixes[i], name, sizeof name) &&
            row->find_texture(model_path, name, image_folder, out, size, refusals))
            return true;
    /* Where the model's convention finds its images. */
    for (int i = 0; suffixes[i]; ++i)
        if (suffixed(shader, suffixes[i], name, sizeof name) &&
            loader_find_texture(model_path, name, folder, out, size, refusals))
            return true;
    return false;
}

void loader_find_images(const char *model_path, const char *shader, const char *folder, loader_images *out)
{
    memset(out, 0, sizeof *out);
    if (!loader_find_texture(model_path, shader, folder, out->texture, sizeof out->texture, NULL))
        out->texture[0] = '\0';
    if (!loader_find_map(model_path, shader, folder, out->texture, LOADER_MAP_NORMAL, out->normal_map,
                         sizeof out->normal_map, NULL))
        out->normal_map[0] = '\0';
    if (!loader_find_map(model_path, shader, folder, out->texture, LOADER_MAP_SPECULAR, out->specular_map,
                         sizeof out->specular_map, NULL))
        out->specular_map[0] = '\0';
}

