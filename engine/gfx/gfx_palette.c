/* gfx_palette: the frame's palettes and the upload buffers' helpers, see gfx_palette.h. */
#include "gfx_palette.h"

#include <stdlib.h>

GLuint gfx_make_texture_buffer(GLuint buffer, GLsizeiptr bytes, GLenum format, GLuint *texture)
{
    glBindBuffer(GL_TEXTURE_BUFFER, buffer);
    glBufferData(GL_TEXTURE_BUFFER, bytes, NULL, GL_STREAM_DRAW);
    glGenTextures(1, texture);
    glBindTexture(GL_TEXTURE_BUFFER, *texture);
    glTexBuffer(GL_TEXTURE_BUFFER, format, buffer);
    glBindTexture(GL_TEXTURE_BUFFER, 0);
    glBindBuffer(GL_TEXTURE_BUFFER, 0);
    return buffer;
}

/* One upload per buffer per frame. Orphaning (glBufferData with NULL at the same size) hands the old
 * store to the driver, still in use by the previous frame's draws, instead of waiting for them; a buffer
 * that must grow is simply re-specified, and its texture buffer follows the buffer object. */
void gfx_upload_stream(GLuint buffer, int *gpu_items, int cpu_items, size_t item_bytes, const float *data,
                          int used_items)
{
    glBindBuffer(GL_TEXTURE_BUFFER, buffer);
    if (*gpu_items < cpu_items) {
        *gpu_items = cpu_items;
    }
    glBufferData(GL_TEXTURE_BUFFER, (GLsizeiptr)((size_t)*gpu_items * item_bytes), NULL, GL_STREAM_DRAW);
    if (used_items > 0)
        glBufferSubData(GL_TEXTURE_BUFFER, 0, (GLsizeiptr)((size_t)used_items * item_bytes), data);
    glBindBuffer(GL_TEXTURE_BUFFER, 0);
}

/* Capacity doubled until it holds `needed`: growth is rare and amortized. */
int gfx_doubled_until(int capacity, int needed)
{
    while (capacity < needed)
        capacity *= 2;
    return capacity;
}

bool gfx_palettes_setup(gfx_palettes *palettes, int capacity)
{
    *palettes = (gfx_palettes){.capacity = capacity};
    palettes->staging = malloc((size_t)capacity * GFX_FLOATS_PER_MATRIX * sizeof(float));
    return palettes->staging != NULL;
}

void gfx_palettes_make_buffer(gfx_palettes *palettes)
{
    GLuint buffer = 0;
    glGenBuffers(1, &buffer);
    palettes->buffer = gfx_make_texture_buffer(buffer, (GLsizeiptr)gfx_palette_bytes(palettes->capacity), GL_RGBA32F,
                                               &palettes->texture);
    palettes->buffer_matrices = palettes->capacity;
}

void gfx_palettes_shutdown(gfx_palettes *palettes)
{
    /* A mapping left by a frame that was never ended goes with its buffer. */
    glDeleteTextures(1, &palettes->texture);
    glDeleteBuffers(1, &palettes->buffer);
    free(palettes->staging);
    *palettes = (gfx_palettes){0};
}

void gfx_palettes_begin(gfx_palettes *palettes, bool on_cpu)
{
    palettes->count = 0;
    palettes->on_cpu = on_cpu;
}

bool gfx_palettes_grow_staging(gfx_palettes *palettes, int needed)
{
    int capacity = gfx_doubled_until(palettes->capacity, needed);
    float *staging = realloc(palettes->staging, (size_t)capacity * GFX_FLOATS_PER_MATRIX * sizeof(float));
    if (!staging)
        return false;
    palettes->staging = staging;
    palettes->capacity = capacity;
    ++palettes->grows;
    return true;
}

/* ---- The frame's palettes ------------------------------------------------------------------------------ */
/* On the default path a frame's palettes are written straight into the buffer, mapped for writing from
 * the frame's first need of room until gfx_end_frame: the crowd's workers write there, and no copy of a
 * frame's worth of matrices follows. Frames begun on_cpu (the CPU skinning path, the benchmark's naive
 * frames) read the palettes on the CPU, and a write-only mapping must never be read, so they keep the
 * staging; so does a frame whose mapping fails or is not 16-byte aligned (cglm's mat4 must be). */

size_t gfx_palette_bytes(int matrices)
{
    return (size_t)matrices * GFX_FLOATS_PER_MATRIX * sizeof(float);
}

/* Map palette_buffer from matrix `first` to its end. At 0 the whole store is invalidated, which orphans
 * it (the previous frame's draws may still read the old one; a glBufferData orphan as well cost llvmpipe
 * ~10 ms a frame for a 20 MB buffer, for nothing); past 0 the matrices before `first` are kept and only
 * the rest is invalidated. false, with nothing left mapped, when the driver gives no usable pointer. */
static bool map_palettes(gfx_palettes *palettes, int first)
{
    glBindBuffer(GL_TEXTURE_BUFFER, palettes->buffer);
    GLbitfield access = GL_MAP_WRITE_BIT | (first == 0 ? GL_MAP_INVALIDATE_BUFFER_BIT : GL_MAP_INVALIDATE_RANGE_BIT);
    float *mapped = glMapBufferRange(GL_TEXTURE_BUFFER, (GLintptr)gfx_palette_bytes(first),
                                     (GLsizeiptr)gfx_palette_bytes(palettes->buffer_matrices - first), access);
    if (mapped && (uintptr_t)mapped % 16 != 0) {
        glUnmapBuffer(GL_TEXTURE_BUFFER); /* nothing was written: whether the driver kept it does not matter */
        mapped = NULL;
    }
    glBindBuffer(GL_TEXTURE_BUFFER, 0);
    palettes->mapping = mapped;
    palettes->mapping_first = first;
    return mapped != NULL;
}

/* Hand the mapping back to GL. The driver may have lost what was written (glUnmapBuffer gives GL_FALSE,
 * after a display mode change for instance): the frame then draws no instances rather than garbage, and
 * says so. */
static void unmap_palettes(gfx_palettes *palettes)
{
    glBindBuffer(GL_TEXTURE_BUFFER, palettes->buffer);
    if (glUnmapBuffer(GL_TEXTURE_BUFFER) == GL_FALSE && !palettes->lost) {
        palettes->lost = true;
        gfx_misuse("the driver lost the contents of the mapped palette buffer (glUnmapBuffer gave GL_FALSE): this "
               "frame's instances are not drawn");
    }
    glBindBuffer(GL_TEXTURE_BUFFER, 0);
    palettes->mapping = NULL;
}

/* The frame's first need of room, for `needed` matrices, picks its store. The GPU buffer grows before it
 * is mapped, while it holds nothing to keep. */
static void open_palettes(gfx_palettes *palettes, int needed)
{
    palettes->store = GFX_PALETTES_STAGED;
    if (palettes->on_cpu)
        return;
    if (needed > palettes->buffer_matrices) {
        palettes->buffer_matrices = gfx_doubled_until(palettes->buffer_matrices, needed);
        ++palettes->grows;
        glBindBuffer(GL_TEXTURE_BUFFER, palettes->buffer);
        glBufferData(GL_TEXTURE_BUFFER, (GLsizeiptr)gfx_palette_bytes(palettes->buffer_matrices), NULL,
                     GL_STREAM_DRAW);
        glBindBuffer(GL_TEXTURE_BUFFER, 0);
    }
    if (map_palettes(palettes, 0))
        palettes->store = GFX_PALETTES_MAPPED;
}

/* A bigger palette_buffer holding the first `kept` matrices of the old one, copied on the GPU (the old
 * one's mapping is write-only: never read). The texture buffer follows the new buffer object. */
static void move_palettes_to_bigger_buffer(gfx_palettes *palettes, int kept)
{
    GLuint bigger = 0;
    glGenBuffers(1, &bigger);
    glBindBuffer(GL_COPY_WRITE_BUFFER, bigger);
    glBufferData(GL_COPY_WRITE_BUFFER, (GLsizeiptr)gfx_palette_bytes(palettes->buffer_matrices), NULL,
                 GL_STREAM_DRAW);
    glBindBuffer(GL_COPY_READ_BUFFER, palettes->buffer);
    glCopyBufferSubData(GL_COPY_READ_BUFFER, GL_COPY_WRITE_BUFFER, 0, 0, (GLsizeiptr)gfx_palette_bytes(kept));
    glBindBuffer(GL_COPY_READ_BUFFER, 0);
    glBindBuffer(GL_COPY_WRITE_BUFFER, 0);
    glBindTexture(GL_TEXTURE_BUFFER, palettes->texture);
    glTexBuffer(GL_TEXTURE_BUFFER, GL_RGBA32F, bigger);
    glBindTexture(GL_TEXTURE_BUFFER, 0);
    glDeleteBuffers(1, &palettes->buffer);
    palettes->buffer = bigger;
}

/* Growth while mapped (a submit past what was reserved): every palette written so far is kept, and the
 * rest of the bigger buffer mapped. Should that mapping fail, the written palettes are read back from
 * the buffer (no longer mapped) into the staging and the frame goes on there. false when the staging
 * cannot grow. */
static bool grow_mapped_palettes(gfx_palettes *palettes, int needed)
{
    int kept = palettes->count;
    unmap_palettes(palettes);
    palettes->buffer_matrices = gfx_doubled_until(palettes->buffer_matrices, needed);
    ++palettes->grows;
    if (kept > 0)
        move_palettes_to_bigger_buffer(palettes, kept);
    if (map_palettes(palettes, kept))
        return true;
    palettes->store = GFX_PALETTES_STAGED;
    if (needed > palettes->capacity && !gfx_palettes_grow_staging(palettes, needed))
        return false;
    glBindBuffer(GL_TEXTURE_BUFFER, palettes->buffer);
    glGetBufferSubData(GL_TEXTURE_BUFFER, 0, (GLsizeiptr)gfx_palette_bytes(kept), palettes->staging);
    glBindBuffer(GL_TEXTURE_BUFFER, 0);
    return true;
}

/* Room in the frame's palette store for `needed` matrices in all. Growing moves the slots handed out. */
bool gfx_palettes_room(gfx_palettes *palettes, int needed)
{
    if (palettes->store == GFX_PALETTES_UNOPENED)
        open_palettes(palettes, needed);
    if (palettes->store == GFX_PALETTES_MAPPED)
        return needed <= palettes->buffer_matrices || grow_mapped_palettes(palettes, needed);
    return needed <= palettes->capacity || gfx_palettes_grow_staging(palettes, needed);
}

/* Where the frame's matrix `first` is written. */
mat4 *gfx_palettes_destination(const gfx_palettes *palettes, int first)
{
    if (palettes->store == GFX_PALETTES_MAPPED)
        return (mat4 *)(palettes->mapping + (size_t)(first - palettes->mapping_first) * GFX_FLOATS_PER_MATRIX);
    return (mat4 *)(palettes->staging + (size_t)first * GFX_FLOATS_PER_MATRIX);
}

const float *gfx_palettes_staged(const gfx_palettes *palettes)
{
    return palettes->store == GFX_PALETTES_MAPPED ? NULL : palettes->staging;
}

/* gfx_end_frame, before any draw: the mapping goes back to GL, or the staging is copied in. */
void gfx_palettes_close(gfx_palettes *palettes, gfx_stats *stats)
{
    if (palettes->store == GFX_PALETTES_MAPPED) {
        unmap_palettes(palettes);
        stats->palettes_mapped = true;
    } else {
        gfx_upload_stream(palettes->buffer, &palettes->buffer_matrices, palettes->capacity,
                          GFX_FLOATS_PER_MATRIX * sizeof(float), palettes->staging, palettes->count);
        stats->palette_bytes_copied += gfx_palette_bytes(palettes->count);
    }
    palettes->store = GFX_PALETTES_UNOPENED;
}

/* gfx_begin_frame: a previous frame that was not ended leaves its mapping behind, dropped here. */
void gfx_palettes_drop(gfx_palettes *palettes)
{
    if (palettes->store == GFX_PALETTES_MAPPED)
        unmap_palettes(palettes);
    palettes->store = GFX_PALETTES_UNOPENED;
    palettes->lost = false;
}
