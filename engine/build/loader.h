/* loader: a character file -> runtime model or clip, the reader chosen by the file's extension through
 * one table (loader.c): a reader turns text into raw data (raw.h), build.h bakes it, and a model's texture
 * names are searched by its format's convention; a clip may be written back in a format that has a writer.
 * A second format is one reader and one row. Also the md5 entry points that tests and tools use on text or on a file
 * whatever its name.
 * Knows nothing of the cache, GL or what a format's text looks like. */
#ifndef MARIONETTE_LOADER_H
#define MARIONETTE_LOADER_H

#include <stdbool.h>
#include <stddef.h>

#include "../base/diag.h"
#include "../model/clip.h"
#include "../model/model.h"
#include "raw.h"

/* The largest model or clip file a reader takes (64 MiB): the biggest real MD5 files are a few MB, and
 * a reader's memory is bounded by its file's size (docs/md5-format.md, "Limits checked at load"), so this
 * bounds a load's memory too. A larger file is refused before it is opened. */
#define LOADER_MAX_FILE_BYTES ((size_t)64 << 20)

/* Read the file at path with the reader its extension names (case ignored) and build it. An extension
 * no reader has (or one for the other kind) fails with a one-line err naming the supported ones.
 * `warnings` may be NULL. */
bool loader_load_model(const char *path, model **out, diag *err, diag_list *warnings);
bool loader_load_clip(const char *path, clip **out, diag *err, diag_list *warnings);

/* The image a model file's shader (skin_mesh.shader) names, by its format's convention (the loader
 * table's texture column; MD5: md5.h's search, beside the mesh, then in `folder`, which may be NULL or ""):
 * true with the path in out. A candidate the search refuses (a link leading out of its folder) goes to
 * refusals (may be NULL). A model file of no known format, or a format without a convention, finds none. */
bool loader_find_texture(const char *model_path, const char *shader, const char *folder, char *out, size_t size,
                         diag_list *refusals);

/* The maps a material has beside its image (its colour): a normal map in tangent space, a specular map. */
typedef enum loader_map { LOADER_MAP_NORMAL, LOADER_MAP_SPECULAR, LOADER_MAP_COUNT } loader_map;

/* The suffixes a map of `kind` is found by, in the order tried, NULL-terminated: the names Doom 3 and the
 * exporters people bring use. Normal maps: _local, _n, _normal, _nm; specular maps: _s, _spec, _specular. */
const char *const *loader_map_suffixes(loader_map kind);

/* A map of `kind` for a model file's shader, by convention: for each suffix in turn, the image's own name
 * with it beside `image` (the colour image the mesh is drawn with, found by any means; NULL or "" for none),
 * then the shader's name with it where loader_find_texture searches (its folders, its limits, its
 * extensions). True with the path in out; refusals as loader_find_texture's. */
bool loader_find_map(const char *model_path, const char *shader, const char *folder, const char *image,
                     loader_map kind, char *out, size_t size, diag_list *refusals);

/* A mesh's images by the format's conventions alone, as a tool without a character finds them: its texture
 * (loader_find_texture in its model's folder, then in `folder`, which may be NULL), then its maps beside that
 * texture and where the texture search looks (loader_find_map); "" for each one not found. */
typedef struct loader_images {
    char texture[4096], normal_map[4096], specular_map[4096];
} loader_images;
void loader_find_images(const char *model_path, const char *shader, const char *folder, loader_images *out);

/* Write clip to path in the format its extension names (the loader table's writer column; .md5anim: md5.h's
 * writer, note as its commandline: no quotes or line breaks), beside path and renamed over it once whole
 * (base/file.h), so a failed write leaves any file there as it was; false with err saying why (an extension
 * no writer has, naming those that have one; a joint name the format cannot hold; the disk). */
bool loader_write_clip(const char *path, const raw_clip *clip, const char *note, diag *err);

/* .md5mesh / .md5anim text (size bytes, need not be NUL-terminated) named `name` in diags, read and
 * built. */
bool loader_parse_md5_model(const char *text, size_t size, const char *name, model **out, diag *err,
                            diag_list *warnings);
bool loader_parse_md5_clip(const char *text, size_t size, const char *name, clip **out, diag *err,
                           diag_list *warnings);

/* The file at path read as md5 whatever its extension (tests of files named for another type). */
bool loader_load_md5_model(const char *path, model **out, diag *err, diag_list *warnings);
bool loader_load_md5_clip(const char *path, clip **out, diag *err, diag_list *warnings);

#endif
