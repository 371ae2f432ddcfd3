/* assetgen: writes every generated asset of the demo.
 *   assetgen OUTDIR      -> OUTDIR/models/<body>.md5mesh, OUTDIR/textures/<body>.tga (and its maps,
 *                           <body>_local.tga and <body>_s.tga),
 *                           OUTDIR/clips/<clip>.md5anim
 * Output is byte-for-byte deterministic; tests/test_assets.c regenerates into a temporary folder and
 * compares with the committed assets/. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "assetgen/body.h"
#include "base/file.h"
#include "assetgen/clips.h"
#include "assetgen/texture.h"

static int make_folder(const char *path)
{
    if (mkdir(path, 0755) != 0 && errno != EEXIST) {
        fprintf(stderr, "assetgen: cannot create %s: %s\n", path, strerror(errno));
        return 1;
    }
    return 0;
}

/* Open path, let write() fill it, close; report failures with the path. */
static int write_file(const char *path, bool (*write)(FILE *, int), int argument)
{
    file_writer out;
    diag failure = {0};
    bool ok = file_writer_open(&out, path, &failure);
    bool made = ok && write(out.stream, argument);
    ok = ok && file_writer_finish(&out, made, &failure);
    if (!ok) {
        char line[DIAG_TEXT_MAX];
        if (failure.message[0])
            diag_format(&failure, line, sizeof line);
        else
            snprintf(line, sizeof line, "%s: the generator could not write it; the file is left as it was", path);
        fprintf(stderr, "assetgen: %s\n", line);
        return 1;
    }
    return 0;
}

static bool write_mesh(FILE *out, int kind)
{
    char shader[256];
    snprintf(shader, sizeof shader, "../textures/%s.tga", body_name((body_kind)kind));
    return body_write_mesh(out, (body_kind)kind, shader);
}

static bool write_texture(FILE *out, int kind)
{
    return texture_write_tga(out, (body_kind)kind);
}

static bool write_normal_map(FILE *out, int kind)
{
    return texture_write_normal_tga(out, (body_kind)kind);
}

static bool write_specular_map(FILE *out, int kind)
{
    return texture_write_specular_tga(out, (body_kind)kind);
}

int main(int argc, char **argv)
{
    if (argc != 2 || argv[1][0] == '-') {
        fprintf(stderr, "usage: assetgen OUTDIR   (writes OUTDIR/models, OUTDIR/textures, OUTDIR/clips)\n");
        return 2;
    }
    const char *root = argv[1];
    char path[4096];
    int failures = make_folder(root);
    const char *folders[] = {"models", "textures", "clips"};
    for (int i = 0; i < 3; ++i) {
        snprintf(path, sizeof path, "%s/%s", root, folders[i]);
        failures += make_folder(path);
    }
    if (failures)
        return 1;
    for (int kind = 0; kind < BODY_KIND_COUNT; ++kind) {
        snprintf(path, sizeof path, "%s/models/%s.md5mesh", root, body_name((body_kind)kind));
        failures += write_file(path, write_mesh, kind);
        snprintf(path, sizeof path, "%s/textures/%s.tga", root, body_name((body_kind)kind));
        failures += write_file(path, write_texture, kind);
        /* Its maps, named so that the texture search's convention finds them beside it. */
        snprintf(path, sizeof path, "%s/textures/%s_local.tga", root, body_name((body_kind)kind));
        failures += write_file(path, write_normal_map, kind);
        snprintf(path, sizeof path, "%s/textures/%s_s.tga", root, body_name((body_kind)kind));
        failures += write_file(path, write_specular_map, kind);
    }
    for (int i = 0; i < clips_count(); ++i) {
        snprintf(path, sizeof path, "%s/clips/%s.md5anim", root, clips_recipe(i)->name);
        failures += write_file(path, clips_write, i);
    }
    return failures ? 1 : 0;
}
