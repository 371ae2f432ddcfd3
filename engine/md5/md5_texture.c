/* Finding the image a mesh's shader names. Exporters write whatever the artist's tool saw: a Windows path
 * with backslashes and a drive letter, an absolute path on someone else's disk, a path relative to a game
 * root, a name without extension, or nothing. We try the likely places in a fixed order (md5.h) and give
 * up quietly: the renderer shows a placeholder texture for a mesh without one. Whatever the shader says,
 * only files inside the folder searched are ever looked at: a mesh file must not be able to make the
 * program open /etc/passwd or ../../secret.png, nor lead there through a symbolic link inside the folder
 * (every candidate is resolved and must stay under the resolved folder; one that leaves is a warning). */
#include "md5.h"

#include "../base/file.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

enum { TEXTURE_PATH_MAX = 1024 };

static const char *const image_extensions[] = {".tga", ".png", ".jpg", ".bmp"};

/* Where a search looks and where it reports what it refuses. */
typedef struct texture_search {
    const char *folder;   /* "" or ending in '/': the folder every candidate must stay inside */
    diag_list *warnings;  /* may be NULL */
} texture_search;

static bool found(const texture_search *search, const char *candidate, char *out, size_t out_size)
{
    if (!file_is_readable(candidate, MD5_TEXTURE_MAX_FILE_BYTES))
        return false;
    if (!file_is_inside(candidate, search->folder)) {
        /* Steps 2 and 3 can try one candidate twice: one report for it. */
        for (int i = 0; search->warnings && i < search->warnings->count; ++i)
            if (strncmp(search->warnings->items[i].file, candidate, DIAG_FILE_MAX - 1) == 0)
                return false;
        diag_list_add(search->warnings, candidate, 0,
                      "leads out of the folder searched through a symbolic link; not used");
        return false;
    }
    if (strlen(candidate) >= out_size)
        return false; /* a path the caller cannot hold is as good as none */
    memcpy(out, candidate, strlen(candidate) + 1);
    return true;
}

/* Try `path`, then path with each image extension appended, then with its own extension (if any)
 * swapped for each. */
static bool try_with_extensions(const texture_search *search, const char *path, char *out, size_t out_size)
{
    if (found(search, path, out, out_size))
        return true;
    char candidate[TEXTURE_PATH_MAX + 8];
    size_t length = strlen(path);
    const char *slash = strrchr(path, '/');
    const char *dot = strrchr(path, '.');
    size_t stem = dot && (!slash || dot > slash + 1) ? (size_t)(dot - path) : length;
    for (size_t i = 0; i < sizeof image_extensions / sizeof *image_extensions; ++i) {
        snprintf(candidate, sizeof candidate, "%s%s", path, image_extensions[i]);
        if (found(search, candidate, out, out_size))
            return true;
        if (stem < length) {
            snprintf(candidate, sizeof candidate, "%.*s%s", (int)stem, path, image_extensions[i]);
            if (found(search, candidate, out, out_size))
                return true;
        }
    }
    return false;
}

/* The shader with '/' for every '\' (backslashes only ever mean a Windows separator in these files).
 * False when it is empty or too long. */
static bool normalized_shader(const char *shader, char *path, size_t size)
{
    size_t length = shader ? strlen(shader) : 0;
    if (length == 0 || length >= size)
        return false;
    for (size_t i = 0; i <= length; ++i)
        path[i] = shader[i] == '\\' ? '/' : shader[i];
    return true;
}

/* "f:..." : a Windows drive, so a place on the exporter's disk. */
static bool has_drive_letter(const char *path)
{
    char first = path[0];
    return ((first >= 'a' && first <= 'z') || (first >= 'A' && first <= 'Z')) && path[1] == ':';
}

/* A path that stays inside whatever folder it is read against: not absolute ("/x", "//x"), no drive
 * letter, no ".." component. */
static bool stays_inside(const char *path)
{
    if (path[0] == '/' || has_drive_letter(path))
        return false;
    for (const char *part = path; *part;) {
        size_t length = strcspn(part, "/");
        if (length == 2 && part[0] == '.' && part[1] == '.')
            return false;
        part += length;
        while (*part == '/')
            ++part;
    }
    return true;
}

/* The file name at the end of a normalized shader path, or NULL for none ("sub/", "..", "f:"). */
static const char *base_name(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    if (base == path && has_drive_letter(base))
        base += 2;
    if (*base == '\0' || strcmp(base, ".") == 0 || strcmp(base, "..") == 0)
        return NULL;
    return base;
}

/* "dir/" for "dir/file" and "" for "file": the folder part with its slash. */
static void folder_of(const char *file_path, char *folder, size_t size)
{
    folder[0] = '\0';
    const char *slash = file_path ? strrchr(file_path, '/') : NULL;
    if (slash && (size_t)(slash - file_path + 1) < size)
        snprintf(folder, size, "%.*s", (int)(slash - file_path + 1), file_path);
}

/* The base name in `folder` ("" or ending in '/'), with its extensions. */
static bool try_base_name(const texture_search *search, const char *path, char *out, size_t out_size)
{
    const char *folder = search->folder;
    const char *base = base_name(path);
    if (!base)
        return false;
    char candidate[2 * TEXTURE_PATH_MAX];
    snprintf(candidate, sizeof candidate, "%s%s", folder, base);
    return strlen(candidate) < TEXTURE_PATH_MAX && try_with_extensions(search, candidate, out, out_size);
}

bool md5_resolve_texture(const char *model_path, const char *shader, char *out, size_t out_size,
                         diag_list *warnings)
{
    char path[TEXTURE_PATH_MAX];
    if (!out || out_size == 0 || !normalized_shader(shader, path, sizeof path) || !base_name(path))
        return false;
    char folder[TEXTURE_PATH_MAX];
    folder_of(model_path, folder, sizeof folder);
    texture_search search = {folder, warnings};

    /* A relative path is read against the model's folder, never against the working directory, so where
     * the program was started from cannot change which image loads. One that would leave the folder is
     * not tried as written: only its file name is. */
    if (stays_inside(path)) {
        char candidate[2 * TEXTURE_PATH_MAX];
        snprintf(candidate, sizeof candidate, "%s%s", folder, path);
        if (strlen(candidate) < TEXTURE_PATH_MAX && try_with_extensions(&search, candidate, out, out_size))
            return true;
    }
    return try_base_name(&search, path, out, out_size);
}

bool md5_find_texture_in_folder(const char *folder, const char *shader, char *out, size_t out_size,
                                diag_list *warnings)
{
    char path[TEXTURE_PATH_MAX];
    if (!folder || !out || out_size == 0 || !normalized_shader(shader, path, sizeof path))
        return false;
    size_t length = strlen(folder);
    if (length == 0 || length + 2 > TEXTURE_PATH_MAX)
        return false; /* no folder: the working directory is never searched */
    char with_slash[TEXTURE_PATH_MAX];
    snprintf(with_slash, sizeof with_slash, "%s%s", folder, folder[length - 1] == '/' ? "" : "/");
    texture_search search = {with_slash, warnings};
    return try_base_name(&search, path, out, out_size);
}
