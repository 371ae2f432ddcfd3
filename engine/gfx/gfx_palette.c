/* gfx_palette: the frame's upload buffers, see gfx_palette.h. */
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

bool gfx_grow_instances(int needed)
{
    int capacity = gfx_doubled_until(gfx.instance_capacity, needed);
    gfx_queued_instance *queued = realloc(gfx.queued, (size_t)capacity * sizeof *queued);
    if (!queued)
        return false;
    gfx.queued = queued;
    int *order = realloc(gfx.sort_order, (size_t)capacity * sizeof *order);
    if (!order)
        return false;
    gfx.sort_order = order;
    int *scratch = realloc(gfx.sort_scratch, (size_t)capacity * sizeof *scratch);
    if (!scratch)
        return false;
    gfx.sort_scratch = scratch;
    float *staging = realloc(gfx.instance_staging, (size_t)capacity * GFX_FLOATS_PER_INSTANCE * sizeof(float));
    if (!staging)
        return false;
    gfx.instance_staging = staging;
    gfx.instance_capacity = capacity;
    ++gfx.stats.buffer_grows;
    return true;
}

bool gfx_grow_palettes(int needed)
{
    int capacity = gfx_doubled_until(gfx.palette_capacity, needed);
    float *staging = realloc(gfx.palette_staging, (size_t)capacity * GFX_FLOATS_PER_MATRIX * sizeof(float));
    if (!staging)
        return false;
    gfx.palette_staging = staging;
    gfx.palette_capacity = capacity;
    ++gfx.stats.buffer_grows;
    return true;
}

/* ---- The frame's palettes ------------------------------------------------------------------------------ */
/* On the default path a frame's palettes are written straight into palette_buffer, mapped for writing
 * from the frame's first need of room until gfx_end_frame: the crowd's workers write there, and no copy
 * of a frame's worth of matrices follows. The naive and CPU skinning paths read the palettes on the CPU,
 * and a write-only mapping must never be read, so they keep the staging; so does a frame whose mapping
 * fails or is not 16-byte aligned (cglm's mat4 must be). */

size_t gfx_palette_bytes(int matrices)
{
    return (size_t)matrices * GFX_FLOATS_PER_MATRIX * sizeof(float);
}

/* Map palette_buffer from matrix `first` to its end. At 0 the whole store is invalidated, which orphans
 * it (the previous frame's draws may still read the old one; a glBufferData orphan as well cost llvmpipe
 * ~10 ms a frame for a 20 MB buffer, for nothing); past 0 the matrices before `first` are kept and only
 * the rest is invalidated. false, with nothing left mapped, when the driver gives no usable pointer. */
static bool map_palettes(int first)
{
    glBindBuffer(GL_TEXTURE_BUFFER, gfx.palette_buffer);
    GLbitfield access = GL_MAP_WRITE_BIT | (first == 0 ? GL_MAP_INVALIDATE_BUFFER_BIT : GL_MAP_INVALIDATE_RANGE_BIT);
    float *mapped = glMapBufferRange(GL_TEXTURE_BUFFER, (GLintptr)gfx_palette_bytes(first),
                                     (GLsizeiptr)gfx_palette_bytes(gfx.palette_buffer_matrices - first), access);
    if (mapped && (uintptr_t)mapped % 16 != 0) {
        glUnmapBuffer(GL_TEXTURE_BUFFER); /* nothing was written: whether the driver kept it does not matter */
        mapped = NULL;
    }
    glBindBuffer(GL_TEXTURE_BUFFER, 0);
    gfx.palette_mapping = mapped;
    gfx.palette_mapping_first = first;
    return mapped != NULL;
}

/* Hand the mapping back to GL. The driver may have lost what was written (glUnmapBuffer gives GL_FALSE,
 * after a display mode change for instance): the frame then draws no instances rather than garbage, and
 * says so. */
static void unmap_palettes(void)
{
    glBindBuffer(GL_TEXTURE_BUFFER, gfx.palette_buffer);
    if (glUnmapBuffer(GL_TEXTURE_BUFFER) == GL_FALSE && !gfx.palettes_lost) {
        gfx.palettes_lost = true;
        gfx_misuse("the driver lost the contents of the mapped palette buffer (glUnmapBuffer gave GL_FALSE): this "
               "frame's instances are not drawn");
    }
    glBindBuffer(GL_TEXTURE_BUFFER, 0);
    gfx.palette_mapping = NULL;
}

/* The frame's first need of room, for `needed` matrices, picks its store. The GPU buffer grows before it
 * is mapped, while it holds nothing to keep. */
static void open_palettes(int needed)
{
    gfx.palette_store = GFX_PALETTES_STAGED;
    if (gfx.naive || gfx.frame.cpu_skinning)
        return;
    if (needed > gfx.palette_buffer_matrices) {
        gfx.palette_buffer_matrices = gfx_doubled_until(gfx.palette_buffer_matrices, needed);
        ++gfx.stats.buffer_grows;
        glBindBuffer(GL_TEXTURE_BUFFER, gfx.palette_buffer);
        glBufferData(GL_TEXTURE_BUFFER, (GLsizeiptr)gfx_palette_bytes(gfx.palette_buffer_matrices), NULL,
                     GL_STREAM_DRAW);
        glBindBuffer(GL_TEXTURE_BUFFER, 0);
    }
    if (map_palettes(0))
        gfx.palette_store = GFX_PALETTES_MAPPED;
}

/* A bigger palette_buffer holding the first `kept` matrices of the old one, copied on the GPU (the old
 * one's mapping is write-only: never read). The texture buffer follows the new buffer object. */
static void move_palettes_to_bigger_buffer(int kept)
{
    GLuint bigger = 0;
    glGenBuffers(1, &bigger);
    glBindBuffer(GL_COPY_WRITE_BUFFER, bigger);
    glBufferData(GL_COPY_WRITE_BUFFER, (GLsizeiptr)gfx_palette_bytes(gfx.palette_buffer_matrices), NULL, GL_STREAM_DRAW);
    glBindBuffer(GL_COPY_READ_BUFFER, gfx.palette_buffer);
    glCopyBufferSubData(GL_COPY_READ_BUFFER, GL_COPY_WRITE_BUFFER, 0, 0, (GLsizeiptr)gfx_palette_bytes(kept));
    glBindBuffer(GL_COPY_READ_BUFFER, 0);
    glBindBuffer(GL_COPY_WRITE_BUFFER, 0);
    glBindTexture(GL_TEXTURE_BUFFER, gfx.palette_texture);
    glTexBuffer(GL_TEXTURE_BUFFER, GL_RGBA32F, bigger);
    glBindTexture(GL_TEXTURE_BUFFER, 0);
    glDeleteBuffers(1, &gfx.palette_buffer);
    gfx.palette_buffer = bigger;
}

/* Growth while mapped (a submit past what was reserved): every palette written so far is kept, and the
 * rest of the bigger buffer mapped. Should that mapping fail, the written palettes are read back from
 * the buffer (no longer mapped) into the staging and the frame goes on there. false when the staging
 * cannot grow. */
static bool grow_mapped_palettes(int needed)
{
    int kept = gfx.palette_count;
    unmap_palettes();
    gfx.palette_buffer_matrices = gfx_doubled_until(gfx.palette_buffer_matrices, needed);
    ++gfx.stats.buffer_grows;
    if (kept > 0)
        move_palettes_to_bigger_buffer(kept);
    if (map_palettes(kept))
        return true;
    gfx.palette_store = GFX_PALETTES_STAGED;
    if (needed > gfx.palette_capacity && !gfx_grow_palettes(needed))
        return false;
    glBindBuffer(GL_TEXTURE_BUFFER, gfx.palette_buffer);
    glGetBufferSubData(GL_TEXTURE_BUFFER, 0, (GLsizeiptr)gfx_palette_bytes(kept), gfx.palette_staging);
    glBindBuffer(GL_TEXTURE_BUFFER, 0);
    return true;
}

/* Room in the frame's palette store for `needed` matrices in all. Growing moves the slots handed out. */
bool gfx_palette_room(int needed)
{
    if (gfx.palette_store == GFX_PALETTES_UNOPENED)
        open_palettes(needed);
    if (gfx.palette_store == GFX_PALETTES_MAPPED)
        return needed <= gfx.palette_buffer_matrices || grow_mapped_palettes(needed);
    return needed <= gfx.palette_capacity || gfx_grow_palettes(needed);
}

/* Where the frame's matrix `first` is written. */
mat4 *gfx_palette_destination(int first)
{
    if (gfx.palette_store == GFX_PALETTES_MAPPED)
        return (mat4 *)(gfx.palette_mapping + (size_t)(first - gfx.palette_mapping_first) * GFX_FLOATS_PER_MATRIX);
    return (mat4 *)(gfx.palette_staging + (size_t)first * GFX_FLOATS_PER_MATRIX);
}

/* gfx_end_frame, before any draw: the mapping goes back to GL, or the staging is copied in. */
void gfx_palettes_close(gfx_stats *stats)
{
    if (gfx.palette_store == GFX_PALETTES_MAPPED) {
        unmap_palettes();
        stats->palettes_mapped = true;
    } else {
        gfx_upload_stream(gfx.palette_buffer, &gfx.palette_buffer_matrices, gfx.palette_capacity,
                      GFX_FLOATS_PER_MATRIX * sizeof(float), gfx.palette_staging, gfx.palette_count);
        stats->palette_bytes_copied += gfx_palette_bytes(gfx.palette_count);
    }
    gfx.palette_store = GFX_PALETTES_UNOPENED;
}

/* gfx_begin_frame: a previous frame that was not ended leaves its mapping behind, dropped here. */
void gfx_palettes_drop(void)
{
    if (gfx.palette_store == GFX_PALETTES_MAPPED)
        unmap_palettes();
    gfx.palette_store = GFX_PALETTES_UNOPENED;
    gfx.palettes_lost = false;
}
