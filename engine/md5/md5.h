/* md5: reads Doom 3 .md5mesh and .md5anim text (docs/md5-format.md) into models and clips.
 * Every quirk of real exported files is either accepted with a warning or refused with a diag naming
 * file:line; no byte sequence makes it crash, read out of bounds, or put a NaN in its output.
 * Knows nothing of GL, SDL, the cache or the pose stages. */
#ifndef MARIONETTE_MD5_H
#define MARIONETTE_MD5_H

#include <stdbool.h>
#include <stddef.h>

#include "../base/diag.h"
#include "../model/clip.h"
#include "../model/model.h"

/* Parse text (size bytes, need not be NUL-terminated) named `name` in diags. On success *out is a new
 * model (free with model_free). `warnings` may be NULL. Shader paths are resolved relative to the folder
 * of `name`. */
bool md5_parse_model(const char *text, size_t size, const char *name, model **out, diag *err,
                     diag_list *warnings);
bool md5_parse_clip(const char *text, size_t size, const char *name, clip **out, diag *err,
                    diag_list *warnings);

/* Read the file at path and parse it. */
bool md5_load_model(const char *path, model **out, diag *err, diag_list *warnings);
bool md5_load_clip(const char *path, clip **out, diag *err, diag_list *warnings);

/* Find the image a mesh's shader names: an absolute path as written or a relative one against the
 * model's folder, then just its file name in the model's folder, each also with .tga .png .jpg .bmp
 * appended or swapped in. Backslashes are read as folder separators.
 * Returns true and writes the path to out if a readable file is found. */
bool md5_resolve_texture(const char *model_path, const char *shader, char *out, size_t out_size);

#endif
