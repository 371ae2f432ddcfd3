/* Finding the image a mesh's shader names. Exporters write whatever the artist's tool saw: a Windows path
 * with backslashes, an absolute path on someone else's disk, a path relative to a game root, a name
 * without extension, or nothing. We try the likely places in a fixed order and give up quietly: the
 * renderer shows a placeholder texture for a mesh without one. */
#include "md5.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

enum { TEXTURE_PATH_MAX = 1024 };

static const char *const image_extensions[] = {".tga", ".png", ".jpg", ".bmp"};

static bool is_readable_file(const char *path)
{
    struct stat info;
    if (stat(path, &info) != 0 || !S_ISREG(info.st_mode))
        return false;
    FILE *f = fopen(path, "rb");
    if (!f)
        return false;
    fclose(f);
    return true;
}

static bool found(const char *candidate, char *out, size_t out_size)
{
    if (!is_readable_file(candidate))
        return false;
    if (strlen(candidate) >= out_size)
        return false; /* a path the caller cannot hold is as good as none */
    memcpy(out, candidate, strlen(candidate) + 1);
    return true;
}

/* Try `path`, then path with each image extension appended, then with its own extension (if any)
 * swapped for each. */
static bool try_with_extensions(const char *path, char *out, size_t out_size)
{
    if (found(path, out, out_size))
        return true;
    char candidate[TEXTURE_PATH_MAX + 8];
    size_t length = strlen(path);
    const char *slash = strrchr(path, '/');
    const char *dot = strrchr(path, '.');
    size_t stem = dot && (!slash || dot > slash + 1) ? (size_t)(dot - path) : length;
    for (size_t i = 0; i < sizeof image_extensions / sizeof *image_extensions; ++i) {
        snprintf(candidate, sizeof candidate, "%s%s", path, image_extensions[i]);
        if (found(candidate, out, out_size))
            return true;
        if (stem < length) {
            snprintf(candidate, sizeof candidate, "%.*s%s", (int)stem, path, image_extensions[i]);
            if (found(candidate, out, out_size))
                return true;
        }
    }
    return false;
}

bool md5_resolve_texture(const char *model_path, const char *shader, char *out, size_t out_size)
{
    if (!shader || !out || out_size == 0)
        return false;
    char path[TEXTURE_PATH_MAX];
    size_t length = strlen(shader);
    if (length == 0 || length >= sizeof path)
        return false;
    /* Backslashes only ever mean a Windows separator in these files. */
    for (size_t i = 0; i <= length; ++i)
        path[i] = shader[i] == '\\' ? '/' : shader[i];

    char folder[TEXTURE_PATH_MAX] = "";
    if (model_path) {
        const char *slash = strrchr(model_path, '/');
        if (slash && (size_t)(slash - model_path + 1) < sizeof folder)
            snprintf(folder, sizeof folder, "%.*s", (int)(slash - model_path + 1), model_path);
    }
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    if (*base == '\0')
        return false; /* a folder, not an image */

    /* An absolute path is tried as written; a relative one against the model's folder, never against
     * the working directory, so where the program was started from cannot change which image loads. */
    char candidate[2 * TEXTURE_PATH_MAX];
    if (path[0] == '/') {
        if (try_with_extensions(path, out, out_size))
            return true;
    } else {
        snprintf(candidate, sizeof candidate, "%s%s", folder, path);
        if (strlen(candidate) < TEXTURE_PATH_MAX && try_with_extensions(candidate, out, out_size))
            return true;
    }
    snprintf(candidate, sizeof candidate, "%s%s", folder, base);
    return strlen(candidate) < TEXTURE_PATH_MAX && try_with_extensions(candidate, out, out_size);
}
