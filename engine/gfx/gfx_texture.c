/* gfx_texture: see gfx_texture.h. Runs at mesh creation only; nothing here is touched per frame. */
#include "gfx_texture.h"

#include <stdlib.h>
#include <string.h>

enum { GFX_PLACEHOLDER_SIZE = 64, GFX_PLACEHOLDER_SQUARE = 8 };

typedef struct gfx_texture_entry {
    GLuint texture;    /* 0: a free entry */
    uint32_t key;      /* gfx_image.key; 0: never shared */
    int users;
    size_t bytes;      /* RGBA bytes of the base level */
} gfx_texture_entry;

static struct {
    gfx_texture_entry *entries;
    int count, capacity;
    int textures_loaded; /* uploads since setup */
    size_t bytes;        /* base-level bytes of the entries held */
    GLuint placeholder;
} table;

void gfx_texture_sampling(void)
{
    glGenerateMipmap(GL_TEXTURE_2D);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR_MIPMAP_LINEAR);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_REPEAT);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_REPEAT);
}

/* Magenta and dark grey squares: impossible to mistake for a real texture, yet the shape, shading and
 * uv layout of the mesh stay readable. */
static GLuint make_placeholder_texture(void)
{
    static uint8_t pixels[GFX_PLACEHOLDER_SIZE * GFX_PLACEHOLDER_SIZE * 4];
    for (int y = 0; y < GFX_PLACEHOLDER_SIZE; ++y) {
        for (int x = 0; x < GFX_PLACEHOLDER_SIZE; ++x) {
            bool light = ((x / GFX_PLACEHOLDER_SQUARE) + (y / GFX_PLACEHOLDER_SQUARE)) % 2 == 0;
            uint8_t *p = pixels + 4 * (y * GFX_PLACEHOLDER_SIZE + x);
            p[0] = light ? 230 : 60;
            p[1] = light ? 40 : 60;
            p[2] = light ? 200 : 60;
            p[3] = 255;
        }
    }
    GLuint texture = 0;
    glGenTextures(1, &texture);
    glBindTexture(GL_TEXTURE_2D, texture);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    glPixelStorei(GL_UNPACK_ROW_LENGTH, 0);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, GFX_PLACEHOLDER_SIZE, GFX_PLACEHOLDER_SIZE, 0, GL_RGBA,
                 GL_UNSIGNED_BYTE, pixels);
    gfx_texture_sampling();
    glBindTexture(GL_TEXTURE_2D, 0);
    return texture;
}

void gfx_texture_setup(void)
{
    memset(&table, 0, sizeof table);
    table.placeholder = make_placeholder_texture();
}

void gfx_texture_shutdown(void)
{
    for (int i = 0; i < table.count; ++i)
        glDeleteTextures(1, &table.entries[i].texture); /* 0 (a free entry) is ignored by GL */
    glDeleteTextures(1, &table.placeholder);
    free(table.entries);
    memset(&table, 0, sizeof table);
}

static int find_entry(uint32_t key)
{
    for (int i = 0; key != 0 && i < table.count; ++i)
        if (table.entries[i].texture && table.entries[i].key == key)
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

/* Rows go up as given (top row first): MD5 uvs have v = 0 at the top of the image, and GL's t = 0 is the
 * first row uploaded, so no flip is needed. */
static GLuint upload(const gfx_image *image)
{
    GLuint texture = 0;
    glGenTextures(1, &texture);
    glBindTexture(GL_TEXTURE_2D, texture);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    glPixelStorei(GL_UNPACK_ROW_LENGTH, 0);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, image->width, image->height, 0, GL_RGBA, GL_UNSIGNED_BYTE,
                 image->rgba);
    gfx_texture_sampling();
    glBindTexture(GL_TEXTURE_2D, 0);
    return texture;
}

int gfx_texture_acquire(const gfx_image *image)
{
    if (!image || !image->rgba || image->width <= 0 || image->height <= 0)
        return -1;
    int index = find_entry(image->key);
    if (index >= 0) {
        table.entries[index].users++;
        return index;
    }
    index = free_entry();
    if (index < 0)
        return -1; /* no memory for the table: the placeholder */
    size_t bytes = (size_t)image->width * (size_t)image->height * 4u;
    table.entries[index] = (gfx_texture_entry){.texture = upload(image), .key = image->key, .users = 1,
                                               .bytes = bytes};
    table.textures_loaded++;
    table.bytes += bytes;
    return index;
}

GLuint gfx_texture_name(int index)
{
    return index >= 0 && index < table.count ? table.entries[index].texture : table.placeholder;
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
