/* gfx_texture: the images meshes are drawn with, shared by file. One image file is read, decoded and
 * uploaded once however many skin_meshes, models and characters name it (by whatever spelling): entries
 * are keyed by the file's identity and version (device, inode, modification time, size: the asset
 * cache's key), refcounted, and deleted with the last part that uses them. An image is measured from its
 * header before it is decoded, so a small file that claims a huge picture costs nothing: see gfx.h for
 * the limits. Runs at mesh creation only; nothing here is touched per frame. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <SDL_image.h>

#include "../base/file.h"
#include "gfx.h"
#include "gfx_internal.h"

typedef struct gfx_texture_entry {
    GLuint texture;    /* 0: a free entry */
    file_identity identity;
    int users;
    size_t bytes;      /* decoded RGBA bytes of the base level */
} gfx_texture_entry;

static struct {
    gfx_texture_entry *entries;
    int count, capacity;
    int textures_loaded; /* decodes and uploads since setup */
    size_t bytes;        /* decoded bytes of the entries held */
    size_t budget;       /* most bytes held at once */
} table;

typedef enum image_format { IMAGE_UNKNOWN, IMAGE_PNG, IMAGE_JPEG, IMAGE_BMP, IMAGE_TGA } image_format;

static const char *const format_names[] = {"", "PNG", "JPEG", "BMP", "TGA"};

static uint32_t big_endian_16(const uint8_t *p) { return (uint32_t)p[0] << 8 | p[1]; }
static uint32_t big_endian_32(const uint8_t *p) { return big_endian_16(p) << 16 | big_endian_16(p + 2); }
static uint32_t little_endian_16(const uint8_t *p) { return (uint32_t)p[1] << 8 | p[0]; }
static uint32_t little_endian_32(const uint8_t *p) { return little_endian_16(p + 2) << 16 | little_endian_16(p); }

/* A JPEG's size is in its first start-of-frame segment, after any number of other segments. */
static bool jpeg_size(const uint8_t *data, size_t size, uint32_t *width, uint32_t *height)
{
    size_t at = 2;
    while (at + 4 <= size) {
        if (data[at] != 0xff)
            return false;
        uint8_t marker = data[at + 1];
        if (marker == 0xff) { /* fill byte */
            ++at;
            continue;
        }
        if (marker == 0x01 || (marker >= 0xd0 && marker <= 0xd8)) { /* no length */
            at += 2;
            continue;
        }
        if (marker == 0xd9 || marker == 0xda) /* end of image, start of scan: no frame before the data */
            return false;
        size_t length = big_endian_16(data + at + 2);
        bool frame = marker >= 0xc0 && marker <= 0xcf && marker != 0xc4 && marker != 0xc8 && marker != 0xcc;
        if (frame) {
            if (length < 7 || at + 9 > size)
                return false;
            *height = big_endian_16(data + at + 5);
            *width = big_endian_16(data + at + 7);
            return true;
        }
        at += 2 + length;
    }
    return false;
}

/* The format and size the file's header declares. TGA has no signature: it is the format of a file that
 * ends in .tga and is none of the others. */
static image_format image_header(const char *path, const uint8_t *data, size_t size, uint32_t *width,
                                 uint32_t *height)
{
    static const uint8_t png_signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    if (size >= 24 && memcmp(data, png_signature, 8) == 0 && memcmp(data + 12, "IHDR", 4) == 0) {
        *width = big_endian_32(data + 16);
        *height = big_endian_32(data + 20);
        return IMAGE_PNG;
    }
    if (size >= 4 && data[0] == 0xff && data[1] == 0xd8)
        return jpeg_size(data, size, width, height) ? IMAGE_JPEG : IMAGE_UNKNOWN;
    if (size >= 26 && data[0] == 'B' && data[1] == 'M') {
        if (little_endian_32(data + 14) == 12) { /* OS/2 core header: 16-bit sizes */
            *width = little_endian_16(data + 18);
            *height = little_endian_16(data + 20);
        } else {
            int32_t w = (int32_t)little_endian_32(data + 18), h = (int32_t)little_endian_32(data + 22);
            /* A negative height is a top-down image; the magnitude is still its size. */
            *width = w < 0 ? (w == INT32_MIN ? UINT32_MAX : (uint32_t)-w) : (uint32_t)w;
            *height = h < 0 ? (h == INT32_MIN ? UINT32_MAX : (uint32_t)-h) : (uint32_t)h;
        }
        return IMAGE_BMP;
    }
    size_t length = strlen(path);
    if (size >= 18 && length >= 4 && strcasecmp(path + length - 4, ".tga") == 0) {
        *width = little_endian_16(data + 12);
        *height = little_endian_16(data + 14);
        return IMAGE_TGA;
    }
    return IMAGE_UNKNOWN;
}

void gfx_texture_setup(size_t budget_bytes)
{
    memset(&table, 0, sizeof table);
    table.budget = budget_bytes;
}

void gfx_texture_shutdown(void)
{
    for (int i = 0; i < table.count; ++i)
        glDeleteTextures(1, &table.entries[i].texture); /* 0 (a free entry) is ignored by GL */
    free(table.entries);
    memset(&table, 0, sizeof table);
}

static int find_entry(const file_identity *identity)
{
    for (int i = 0; i < table.count; ++i)
        if (table.entries[i].texture && file_identity_equal(&table.entries[i].identity, identity))
            return i;
    return -1;
}

static int free_entry(void)
{
    for (int i = 0; i < table.count; ++i)
        if (!table.entries[i].texture)
            return i;
    if (table.count == table.capacity) {
        int capacity = table.capacity ? 2 * table.capacity : 16;
        gfx_texture_entry *grown = realloc(table.entries, (size_t)capacity * sizeof *grown);
        if (!grown)
            return -1;
        table.entries = grown;
        table.capacity = capacity;
    }
    table.entries[table.count] = (gfx_texture_entry){0};
    return table.count++;
}

/* Rows go up as stored (top row first): MD5 uvs have v = 0 at the top of the image, and GL's t = 0 is the
 * first row uploaded, so no flip is needed. */
static GLuint upload(const SDL_Surface *rgba)
{
    GLuint texture = 0;
    glGenTextures(1, &texture);
    glBindTexture(GL_TEXTURE_2D, texture);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    glPixelStorei(GL_UNPACK_ROW_LENGTH, rgba->pitch / 4);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, rgba->w, rgba->h, 0, GL_RGBA, GL_UNSIGNED_BYTE, rgba->pixels);
    glPixelStorei(GL_UNPACK_ROW_LENGTH, 0);
    gfx_texture_sampling();
    glBindTexture(GL_TEXTURE_2D, 0);
    return texture;
}

static SDL_Surface *decode(image_format format, const char *data, size_t size)
{
    SDL_RWops *stream = SDL_RWFromConstMem(data, (int)size);
    if (!stream)
        return NULL;
    SDL_Surface *loaded = NULL;
    /* The decoder of the format the header was read for, never a guess of SDL_image's. */
    switch (format) {
    case IMAGE_PNG: loaded = IMG_LoadPNG_RW(stream); break;
    case IMAGE_JPEG: loaded = IMG_LoadJPG_RW(stream); break;
    case IMAGE_BMP: loaded = IMG_LoadBMP_RW(stream); break;
    case IMAGE_TGA: loaded = IMG_LoadTGA_RW(stream); break;
    case IMAGE_UNKNOWN: break;
    }
    SDL_RWclose(stream);
    return loaded;
}

/* "12 MiB", "3 KiB" or "100 bytes": a size in a message, never rounded to 0. */
static const char *size_text(uint64_t bytes, char *text, size_t size)
{
    if (bytes >= (1u << 20))
        snprintf(text, size, "%llu MiB", (unsigned long long)(bytes >> 20));
    else if (bytes >= (1u << 10))
        snprintf(text, size, "%llu KiB", (unsigned long long)(bytes >> 10));
    else
        snprintf(text, size, "%llu bytes", (unsigned long long)bytes);
    return text;
}

/* Read, measure, decode and upload: 0 with a warning when the image is refused or cannot be read. */
static GLuint load_image(const char *path, file_identity *identity, size_t *bytes, const char *where, int line,
                         const char *label, diag_list *warnings)
{
    char *data = NULL;
    size_t size = 0;
    diag err;
    if (!file_read_bounded(path, GFX_TEXTURE_MAX_FILE_BYTES, &data, &size, identity, &err)) {
        diag_list_add(warnings, where, line, "%s: texture %s: %s; using the placeholder", label, path,
                      err.message);
        return 0;
    }
    uint32_t width = 0, height = 0;
    image_format format = image_header(path, (const uint8_t *)data, size, &width, &height);
    uint64_t decoded = (uint64_t)width * height * 4u;
    const char *refusal = NULL;
    char reason[200], decoded_text[32], limit_text[32];
    if (format == IMAGE_UNKNOWN) {
        refusal = "is not a PNG, JPEG, BMP or .tga image (or its header is cut short)";
    } else if (width == 0 || height == 0) {
        snprintf(reason, sizeof reason, "is a %s of %u x %u pixels: no pixels", format_names[format],
                 (unsigned)width, (unsigned)height);
        refusal = reason;
    } else if (width > GFX_TEXTURE_MAX_SIDE || height > GFX_TEXTURE_MAX_SIDE) {
        snprintf(reason, sizeof reason, "is a %s of %u x %u pixels, beyond the %d x %d limit", format_names[format],
                 (unsigned)width, (unsigned)height, GFX_TEXTURE_MAX_SIDE, GFX_TEXTURE_MAX_SIDE);
        refusal = reason;
    } else if (decoded > GFX_TEXTURE_MAX_BYTES) {
        snprintf(reason, sizeof reason, "is a %s of %u x %u pixels, %s decoded, beyond the %s an image may take",
                 format_names[format], (unsigned)width, (unsigned)height,
                 size_text(decoded, decoded_text, sizeof decoded_text),
                 size_text(GFX_TEXTURE_MAX_BYTES, limit_text, sizeof limit_text));
        refusal = reason;
    } else if (table.bytes + decoded > table.budget) {
        snprintf(reason, sizeof reason, "(%s decoded) would take the textures held past their budget of %s",
                 size_text(decoded, decoded_text, sizeof decoded_text),
                 size_text(table.budget, limit_text, sizeof limit_text));
        refusal = reason;
    }
    if (refusal) {
        free(data);
        diag_list_add(warnings, where, line, "%s: texture %s %s; not decoded, using the placeholder", label, path,
                      refusal);
        return 0;
    }
    SDL_Surface *loaded = decode(format, data, size);
    free(data);
    if (!loaded) {
        diag_list_add(warnings, where, line, "%s: cannot decode the texture %s (%s); using the placeholder", label,
                      path, IMG_GetError());
        return 0;
    }
    /* A decoder that disagrees with the header it was chosen by would break the budget's arithmetic. */
    if ((uint32_t)loaded->w != width || (uint32_t)loaded->h != height) {
        diag_list_add(warnings, where, line, "%s: texture %s decoded to %d x %d, not the %u x %u of its header; "
                      "using the placeholder", label, path, loaded->w, loaded->h, (unsigned)width, (unsigned)height);
        SDL_FreeSurface(loaded);
        return 0;
    }
    SDL_Surface *rgba = SDL_ConvertSurfaceFormat(loaded, SDL_PIXELFORMAT_RGBA32, 0);
    SDL_FreeSurface(loaded);
    if (!rgba) {
        diag_list_add(warnings, where, line, "%s: cannot convert the texture %s to RGBA (%s); using the placeholder",
                      label, path, SDL_GetError());
        return 0;
    }
    GLuint texture = upload(rgba);
    SDL_FreeSurface(rgba);
    *bytes = (size_t)decoded;
    return texture;
}

int gfx_texture_acquire(const char *path, const char *where, int line, const char *label, diag_list *warnings)
{
    file_identity identity;
    diag err;
    if (!file_identify(path, &identity, &err)) {
        diag_list_add(warnings, where, line, "%s: texture %s: %s; using the placeholder", label, path,
                      err.message);
        return -1;
    }
    int index = find_entry(&identity);
    if (index >= 0) {
        table.entries[index].users++;
        return index;
    }
    size_t bytes = 0;
    /* The identity of what was read (the file may have been replaced since the stat above). */
    GLuint texture = load_image(path, &identity, &bytes, where, line, label, warnings);
    if (!texture)
        return -1;
    index = find_entry(&identity);
    if (index >= 0) { /* replaced by a file already held: keep the one upload */
        glDeleteTextures(1, &texture);
        table.entries[index].users++;
        return index;
    }
    index = free_entry();
    if (index < 0) {
        glDeleteTextures(1, &texture);
        diag_list_add(warnings, where, line, "%s: out of memory for the texture table; using the placeholder",
                      label);
        return -1;
    }
    table.entries[index] = (gfx_texture_entry){.texture = texture, .identity = identity, .users = 1, .bytes = bytes};
    table.textures_loaded++;
    table.bytes += bytes;
    return index;
}

GLuint gfx_texture_name(int index)
{
    return index >= 0 && index < table.count ? table.entries[index].texture : 0;
}

void gfx_texture_release(int index)
{
    if (index < 0 || index >= table.count || !table.entries[index].texture)
        return;
    gfx_texture_entry *entry = &table.entries[index];
    if (--entry->users > 0)
        return;
    glDeleteTextures(1, &entry->texture);
    table.bytes -= entry->bytes;
    *entry = (gfx_texture_entry){0};
}

void gfx_texture_stats(int *held, int *loaded, size_t *bytes)
{
    *held = 0;
    for (int i = 0; i < table.count; ++i)
        *held += table.entries[i].texture != 0;
    *loaded = table.textures_loaded;
    *bytes = table.bytes;
}
