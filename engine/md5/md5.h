/* md5: reads Doom 3 .md5mesh and .md5anim text (docs/md5-format.md) into raw data (engine/build/raw.h):
 * a skeleton in bind pose, meshes with their weight lists as written, a clip's local joint poses per
 * frame. It bakes nothing (inverse binds, the 4-weight cut, normals, loops are engine/build's); the
 * loader table (engine/build/loader.h) pairs it with the build step. Every quirk of real exported files
 * is either accepted with a warning or refused with a diag naming file:line; no byte sequence makes it crash, read out of bounds, or put a NaN in its output.
 * Knows nothing of GL, SDL, the cache, the pose stages or the runtime model and clip.
 *
 * Memory is bounded by the bytes read, before anything is allocated: every count a file gives (numJoints,
 * numFrames, numAnimatedComponents, numMeshes, numverts, numtris, numweights) is refused with file:line
 * unless count x the fewest bytes one item can be written in fits in the text after it
 * (md5_lexer_can_hold; frames count their block, bounds line and 2 bytes per animated component). The one
 * product of counts, a clip's baked frames (numFrames x numJoints poses of 32 bytes), must also fit in
 * MD5_DERIVED_BYTES_PER_BYTE x the file's size + MD5_DERIVED_BYTES_SLACK (real clips need under 1 x).
 * Everything else a reader holds is at most a few times the bytes its items take, so a parse's peak heap
 * stays below MD5_HEAP_BYTES_PER_BYTE x the file's size + MD5_HEAP_BYTES_SLACK whatever the counts
 * claim (tests/test_malformed.c measures lying counts, fuzz_md5mesh and fuzz_md5anim every input). A
 * count that lies is refused before its allocation, never after. Time grows with the file's size, not
 * with what its counts claim.
 * Numbers: a float must be finite and within a float's range as written ("1e39", "1e-300" are refused
 * naming the text); an integer must fit an int. The build step refuses what no reader can see alone (a
 * clip whose joints could get further than BUILD_REACH_MAX from the origin, a mesh whose bind pose
 * overflows: engine/build/build.h), naming the file:line the raw data carries. A UTF-8 byte-order mark
 * is skipped; LF, CR LF and a lone CR all end a line. */
#ifndef MARIONETTE_MD5_H
#define MARIONETTE_MD5_H

#include <stdbool.h>
#include <stddef.h>

#include <stdio.h>

#include "../base/diag.h"
#include "../build/raw.h"

/* The budget for data derived from a whole file (see above), and the bound on a parse's peak heap that
 * follows from it and from the per-item minimum sizes (the fuzz harnesses check the latter). */
#define MD5_DERIVED_BYTES_PER_BYTE 64u
#define MD5_DERIVED_BYTES_SLACK (1024u * 1024u)
#define MD5_HEAP_BYTES_PER_BYTE 96u
#define MD5_HEAP_BYTES_SLACK (2u * 1024u * 1024u)

/* Read text (size bytes, need not be NUL-terminated) named `name` in diags into *out, which refers to
 * the text (raw_source) until the build step is done with it. On failure *out is left empty. `warnings`
 * may be NULL. Shader paths are resolved relative to the folder of `name` (raw_mesh.texture_path). */
bool md5_read_model(const char *text, size_t size, const char *name, raw_model *out, diag *err,
                    diag_list *warnings);
bool md5_read_clip(const char *text, size_t size, const char *name, raw_clip *out, diag *err,
                   diag_list *warnings);

/* Write clip as .md5anim text (version 10), every joint's six components animated (flags 63) in each frame,
 * the first frame as the baseframe, each rotation written with w <= 0 (the readers recover w as
 * -sqrt(1 - x^2 - y^2 - z^2)), numbers in nine significant digits (a float read back is the float written),
 * commandline as given (a string without quotes or line breaks; NULL: empty). What md5_read_clip reads back
 * is clip again, to those digits, and other MD5 readers (Doom 3's, assimp's) read it. Joint names must hold no
 * '"' or line break (false, nothing written, for one that does). False when out reports an error. */
bool md5_write_clip(FILE *out, const raw_clip *clip, const char *commandline);

/* Texture search. A shader string names an image however the exporter saw it: "models/players/dretch"
 * (game-relative, no extension), "guard1_body.png", "f:\\md5viewer\\guard1_body.tga" (Windows),
 * "//bope.tga", "/home/artist/x.tga" or "". Backslashes are read as folder separators. A character's image
 * for a mesh is the first of:
 *   1. an override in characters.ini, `texture.SHADER = file` (anim_config; SHADER as written here);
 *   2. the shader as a path relative to the mesh's folder: only when it stays inside that folder, so never
 *      an absolute path ("/x", "//x"), a drive letter ("f:") or a path with a ".." component;
 *   3. the shader's file name (what follows its last separator) in the mesh's folder, then in the
 *      character's `textures` folder (characters.ini, anim_config);
 * where each candidate in 2 and 3 is tried as written, then with .tga .png .jpg .bmp appended, then with its
 * own extension swapped for each. Nothing found: the renderer warns at the shader's line and draws a
 * magenta checker. The working directory is never searched, and no file outside those folders is opened:
 * a candidate that is a symbolic link (or lies under one) leading out of the folder it was searched in is
 * not used, and is reported in warnings (may be NULL) as "PATH: leads out of the folder searched ...",
 * once a path.
 *
 * md5_resolve_texture does steps 2 and 3 in the mesh's folder (what a model knows alone: its
 * skin_mesh.texture_path, for tools without a character). Returns true and writes the path to out if a
 * readable file is found. */
/* The largest candidate image the search settles on: the image reader's limit (image.h's
 * IMAGE_MAX_FILE_BYTES; md5 knows nothing of image, so test_md5_mesh checks the two agree). A larger file,
 * a FIFO or a kernel file is passed over as if it were not there (file.h's check). */
#define MD5_TEXTURE_MAX_FILE_BYTES ((size_t)65 << 20)

bool md5_resolve_texture(const char *model_path, const char *shader, char *out, size_t out_size,
                         diag_list *warnings);
/* Step 3 in another folder: the shader's file name in `folder` (not "": the working directory is never
 * searched), with the extensions as above. */
bool md5_find_texture_in_folder(const char *folder, const char *shader, char *out, size_t out_size,
                                diag_list *warnings);

#endif
