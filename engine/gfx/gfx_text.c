/* gfx_text: text and panels queued as textured quads into one CPU array, drawn with one upload and one
 * indexed draw call. The font atlas holds every glyph cell once plus a solid cell, so a rectangle is just a
 * quad that samples the solid cell and both kinds can share one draw in submit order. */
#include "gfx_text.h"

#include "gfx_program.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <GL/glew.h>

enum {
    FIRST_PRINTABLE = 32,
    LAST_PRINTABLE = 126,
    ATLAS_COLUMNS = 16,
    ATLAS_GLYPH_CELLS = 96, /* characters 32..126, then the replacement box */
    ATLAS_REPLACEMENT_CELL = 95,
    ATLAS_SOLID_CELL = 96,  /* every texel lit: rectangles sample it */
    ATLAS_ROWS = (ATLAS_SOLID_CELL + ATLAS_COLUMNS) / ATLAS_COLUMNS,
    ATLAS_WIDTH = ATLAS_COLUMNS * GFX_TEXT_CELL_WIDTH,
    ATLAS_HEIGHT = ATLAS_ROWS * GFX_TEXT_CELL_HEIGHT,
    VERTICES_PER_QUAD = 4,
    INDICES_PER_QUAD = 6,
    /* Not a printable character, so the font draws the box for it; what any byte above 127 becomes. */
    TEXT_REPLACEMENT_CHARACTER = 127,
};

/* 16 bytes: position in pixels (top-left origin), atlas texel, colour. */
typedef struct text_vertex {
    float x, y;
    uint16_t u, v;
    uint8_t rgba[4];
} text_vertex;

static struct {
    bool ready;
    bool in_frame;
    GLuint program, vertex_array, vertex_buffer, index_buffer, atlas;
    GLint framebuffer_size_location;
    text_vertex *vertices; /* capacity quads, allocated at setup */
    int capacity;
    int quads, glyphs, rectangles, dropped;
    int framebuffer_width, framebuffer_height;
    gfx_text_frame_stats last;
} text;

/* ---- Shaders ------------------------------------------------------------------------------------------- */

static const char *const VERTEX_SHADER =
    "#version 330 core\n"
    "layout(location = 0) in vec2 position; /* pixels, top-left origin */\n"
    "layout(location = 1) in vec2 texel;    /* atlas texels */\n"
    "layout(location = 2) in vec4 color;\n"
    "uniform vec2 framebuffer_size;\n"
    "uniform vec2 atlas_size;\n"
    "out vec2 atlas_uv;\n"
    "out vec4 tint;\n"
    "void main() {\n"
    "    atlas_uv = texel / atlas_size;\n"
    "    tint = color;\n"
    "    vec2 ndc = position / framebuffer_size * 2.0 - 1.0;\n"
    "    gl_Position = vec4(ndc.x, -ndc.y, 0.0, 1.0);\n"
    "}\n";

static const char *const FRAGMENT_SHADER =
    "#version 330 core\n"
    "uniform sampler2D atlas;\n"
    "in vec2 atlas_uv;\n"
    "in vec4 tint;\n"
    "out vec4 fragment_color;\n"
    "void main() {\n"
    "    fragment_color = vec4(tint.rgb, tint.a * texture(atlas, atlas_uv).r);\n"
    "}\n";

static bool make_program(diag *err)
{
    GLuint program = 0;
    if (!gfx_link_program(&program, VERTEX_SHADER, NULL, FRAGMENT_SHADER, NULL, 0, "gfx_text", err))
        return false;
    text.program = program;
    text.framebuffer_size_location = glGetUniformLocation(program, "framebuffer_size");
    GLint previous_program = 0;
    glGetIntegerv(GL_CURRENT_PROGRAM, &previous_program);
    glUseProgram(program);
    glUniform1i(glGetUniformLocation(program, "atlas"), 0);
    glUniform2f(glGetUniformLocation(program, "atlas_size"), (float)ATLAS_WIDTH, (float)ATLAS_HEIGHT);
    glUseProgram((GLuint)previous_program);
    return true;
}

/* ---- Atlas and buffers --------------------------------------------------------------------------------- */

static void cell_origin(int cell, int *u, int *v)
{
    *u = cell % ATLAS_COLUMNS * GFX_TEXT_CELL_WIDTH;
    *v = cell / ATLAS_COLUMNS * GFX_TEXT_CELL_HEIGHT;
}

static void make_atlas(void)
{
    uint8_t pixels[ATLAS_HEIGHT][ATLAS_WIDTH];
    memset(pixels, 0, sizeof pixels);
    for (int cell = 0; cell <= ATLAS_SOLID_CELL; ++cell) {
        int u, v;
        cell_origin(cell, &u, &v);
        int character = cell == ATLAS_REPLACEMENT_CELL ? TEXT_REPLACEMENT_CHARACTER : FIRST_PRINTABLE + cell;
        for (int row = 0; row < GFX_TEXT_CELL_HEIGHT; ++row)
            for (int column = 0; column < GFX_TEXT_CELL_WIDTH; ++column)
                pixels[v + row][u + column] =
                    cell == ATLAS_SOLID_CELL || gfx_text_font_pixel(character, column, row) ? 255 : 0;
    }
    GLint previous_texture = 0, previous_alignment = 0;
    glGetIntegerv(GL_TEXTURE_BINDING_2D, &previous_texture);
    glGetIntegerv(GL_UNPACK_ALIGNMENT, &previous_alignment);
    glGenTextures(1, &text.atlas);
    glBindTexture(GL_TEXTURE_2D, text.atlas);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_R8, ATLAS_WIDTH, ATLAS_HEIGHT, 0, GL_RED, GL_UNSIGNED_BYTE, pixels);
    /* Nearest and no mipmaps: one font pixel is exactly scale x scale screen pixels, never smeared. */
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAX_LEVEL, 0);
    glPixelStorei(GL_UNPACK_ALIGNMENT, previous_alignment);
    glBindTexture(GL_TEXTURE_2D, (GLuint)previous_texture);
}

/* The index buffer never changes (two triangles per quad), so it is filled once here. */
static bool make_buffers(diag *err)
{
    size_t index_count = (size_t)text.capacity * INDICES_PER_QUAD;
    uint32_t *indices = malloc(index_count * sizeof *indices);
    if (!indices)
        return diag_set(err, "gfx_text", 0, "out of memory for %d quads of indices", text.capacity);
    for (uint32_t quad = 0; quad < (uint32_t)text.capacity; ++quad) {
        uint32_t first = quad * VERTICES_PER_QUAD, *out = indices + (size_t)quad * INDICES_PER_QUAD;
        out[0] = first, out[1] = first + 1, out[2] = first + 2;
        out[3] = first, out[4] = first + 2, out[5] = first + 3;
    }
    GLint previous_vertex_array = 0, previous_array_buffer = 0;
    glGetIntegerv(GL_VERTEX_ARRAY_BINDING, &previous_vertex_array);
    glGetIntegerv(GL_ARRAY_BUFFER_BINDING, &previous_array_buffer);
    glGenVertexArrays(1, &text.vertex_array);
    glBindVertexArray(text.vertex_array);
    glGenBuffers(1, &text.index_buffer);
    glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, text.index_buffer);
    glBufferData(GL_ELEMENT_ARRAY_BUFFER, (GLsizeiptr)(index_count * sizeof *indices), indices, GL_STATIC_DRAW);
    glGenBuffers(1, &text.vertex_buffer);
    glBindBuffer(GL_ARRAY_BUFFER, text.vertex_buffer);
    const GLsizei stride = sizeof(text_vertex);
    glEnableVertexAttribArray(0);
    glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, stride, (const void *)offsetof(text_vertex, x));
    glEnableVertexAttribArray(1);
    glVertexAttribPointer(1, 2, GL_UNSIGNED_SHORT, GL_FALSE, stride, (const void *)offsetof(text_vertex, u));
    glEnableVertexAttribArray(2);
    glVertexAttribPointer(2, 4, GL_UNSIGNED_BYTE, GL_TRUE, stride, (const void *)offsetof(text_vertex, rgba));
    glBindVertexArray((GLuint)previous_vertex_array);
    glBindBuffer(GL_ARRAY_BUFFER, (GLuint)previous_array_buffer);
    free(indices);
    return true;
}

/* ---- Setup --------------------------------------------------------------------------------------------- */

bool gfx_text_setup(const gfx_text_desc *desc, diag *err)
{
    if (text.ready)
        return diag_set(err, "gfx_text", 0, "gfx_text_setup called twice without gfx_text_shutdown");
    gfx_text_desc d = desc ? *desc : (gfx_text_desc){0};
    if (d.capacity < 0 || d.capacity > GFX_TEXT_MAX_CAPACITY)
        return diag_set(err, "gfx_text", 0, "capacity %d is outside 0..%d", d.capacity, GFX_TEXT_MAX_CAPACITY);
    /* GLEW's entry points are NULL until platform_setup has made a context and loaded them. */
    if (glCreateProgram == NULL || glGetString(GL_VERSION) == NULL)
        return diag_set(err, "gfx_text", 0, "no current OpenGL context (call platform_setup first)");
    if (!gfx_text_font_check(err))
        return false;
    memset(&text, 0, sizeof text);
    text.capacity = d.capacity ? d.capacity : GFX_TEXT_DEFAULT_CAPACITY;
    text.vertices = malloc((size_t)text.capacity * VERTICES_PER_QUAD * sizeof *text.vertices);
    if (!text.vertices)
        return diag_set(err, "gfx_text", 0, "out of memory for %d quads of vertices", text.capacity);
    text.ready = true;
    if (!make_program(err) || !make_buffers(err)) {
        gfx_text_shutdown();
        return false;
    }
    make_atlas();
    return true;
}

void gfx_text_shutdown(void)
{
    if (!text.ready)
        return;
    glDeleteProgram(text.program);
    glDeleteVertexArrays(1, &text.vertex_array);
    glDeleteBuffers(1, &text.vertex_buffer);
    glDeleteBuffers(1, &text.index_buffer);
    glDeleteTextures(1, &text.atlas);
    free(text.vertices);
    memset(&text, 0, sizeof text);
}

/* ---- Queueing ------------------------------------------------------------------------------------------ */

void gfx_text_begin(int framebuffer_width, int framebuffer_height)
{
    if (!text.ready)
        return;
    text.in_frame = framebuffer_width > 0 && framebuffer_height > 0;
    text.framebuffer_width = framebuffer_width;
    text.framebuffer_height = framebuffer_height;
    text.quads = text.glyphs = text.rectangles = text.dropped = 0;
}

static int clamp_scale(int scale)
{
    return scale < 1 ? 1 : scale > GFX_TEXT_MAX_SCALE ? GFX_TEXT_MAX_SCALE : scale;
}

/* Whole pixels: quad edges on pixel edges are what makes every font pixel exactly scale x scale. */
static float snap(float coordinate)
{
    return floorf(coordinate + 0.5f);
}

static void pack_color(const float color[4], uint8_t rgba[4])
{
    for (int c = 0; c < 4; ++c) {
        float value = color ? color[c] : 1.0f;
        value = value >= 0.0f ? (value <= 1.0f ? value : 1.0f) : 0.0f; /* NaN fails both: 0 */
        rgba[c] = (uint8_t)(value * 255.0f + 0.5f);
    }
}

/* The next character to lay out: its code (a byte; TEXT_REPLACEMENT_CHARACTER for a whole UTF-8 sequence,
 * so "é" takes one cell like any letter), or 0 at the end. width and draw both walk text through it. */
static int next_character(const char **cursor)
{
    const unsigned char *bytes = (const unsigned char *)*cursor;
    int character = *bytes;
    if (character == 0)
        return 0;
    ++bytes;
    if (character >= 0x80) {
        for (int continuation = 0; continuation < 3 && (*bytes & 0xC0) == 0x80; ++continuation)
            ++bytes;
        character = TEXT_REPLACEMENT_CHARACTER;
    }
    *cursor = (const char *)bytes;
    return character;
}

static bool push_quad(float x, float y, float width, float height, int u, int v, int texel_width,
                      int texel_height, const uint8_t rgba[4])
{
    if (text.quads >= text.capacity) {
        ++text.dropped;
        return false;
    }
    text_vertex *out = text.vertices + (size_t)text.quads * VERTICES_PER_QUAD;
    const float xs[4] = {x, x + width, x + width, x};
    const float ys[4] = {y, y, y + height, y + height};
    const int us[4] = {u, u + texel_width, u + texel_width, u};
    const int vs[4] = {v, v, v + texel_height, v + texel_height};
    for (int corner = 0; corner < VERTICES_PER_QUAD; ++corner) {
        out[corner] = (text_vertex){.x = xs[corner], .y = ys[corner], .u = (uint16_t)us[corner],
                                    .v = (uint16_t)vs[corner]};
        memcpy(out[corner].rgba, rgba, 4);
    }
    ++text.quads;
    return true;
}

void gfx_text_draw(float x, float y, int scale, const float color[4], const char *string)
{
    if (!text.in_frame || !string || !isfinite(x) || !isfinite(y))
        return;
    scale = clamp_scale(scale);
    uint8_t rgba[4];
    pack_color(color, rgba);
    const float advance = (float)(GFX_TEXT_CELL_WIDTH * scale), line = (float)(GFX_TEXT_CELL_HEIGHT * scale);
    const float left = snap(x);
    float pen_x = left, pen_y = snap(y);
    for (const char *cursor = string;;) {
        int character = next_character(&cursor);
        if (character == 0)
            break;
        if (character == '\n') {
            pen_x = left;
            pen_y += line;
            continue;
        }
        if (character != ' ') {
            int cell = character >= FIRST_PRINTABLE && character <= LAST_PRINTABLE ? character - FIRST_PRINTABLE
                                                                                   : ATLAS_REPLACEMENT_CELL;
            int u, v;
            cell_origin(cell, &u, &v);
            if (push_quad(pen_x, pen_y, advance, line, u, v, GFX_TEXT_CELL_WIDTH, GFX_TEXT_CELL_HEIGHT, rgba))
                ++text.glyphs;
        }
        pen_x += advance;
    }
}

void gfx_text_drawf(float x, float y, int scale, const float color[4], const char *format, ...)
{
    if (!text.in_frame || !format)
        return;
    char buffer[GFX_TEXT_FORMAT_MAX];
    va_list arguments;
    va_start(arguments, format);
    int wrote = vsnprintf(buffer, sizeof buffer, format, arguments);
    va_end(arguments);
    if (wrote >= 0)
        gfx_text_draw(x, y, scale, color, buffer);
}

void gfx_text_rect(float x, float y, float width, float height, const float color[4])
{
    if (!text.in_frame || !isfinite(x) || !isfinite(y) || !isfinite(width) || !isfinite(height) ||
        !(width > 0.0f) || !(height > 0.0f))
        return;
    float left = snap(x), top = snap(y), right = snap(x + width), bottom = snap(y + height);
    if (right <= left || bottom <= top) /* thinner than half a pixel */
        return;
    uint8_t rgba[4];
    pack_color(color, rgba);
    int u, v;
    cell_origin(ATLAS_SOLID_CELL, &u, &v);
    /* All four corners on one texel inside the solid cell: the whole quad samples "lit". */
    u += GFX_TEXT_CELL_WIDTH / 2, v += GFX_TEXT_CELL_HEIGHT / 2;
    if (push_quad(left, top, right - left, bottom - top, u, v, 0, 0, rgba))
        ++text.rectangles;
}

/* ---- Layout -------------------------------------------------------------------------------------------- */

int gfx_text_width(const char *string, int scale)
{
    if (!string)
        return 0;
    long widest = 0, columns = 0;
    for (const char *cursor = string;;) {
        int character = next_character(&cursor);
        if (character == 0 || character == '\n') {
            widest = columns > widest ? columns : widest;
            columns = 0;
            if (character == 0)
                break;
        } else {
            ++columns;
        }
    }
    if (widest == 0)
        return 0;
    long width = (widest * GFX_TEXT_CELL_WIDTH - 1) * clamp_scale(scale);
    return width < INT_MAX ? (int)width : INT_MAX;
}

int gfx_text_line_height(int scale)
{
    return GFX_TEXT_CELL_HEIGHT * clamp_scale(scale);
}

/* ---- Drawing ------------------------------------------------------------------------------------------- */

/* What gfx_text_end changes, read before and put back after, so the 3D renderer (or anyone) drawing next
 * finds GL as it left it. */
typedef struct saved_gl_state {
    GLboolean blend, depth_test, cull_face, scissor_test;
    GLint blend_source_rgb, blend_destination_rgb, blend_source_alpha, blend_destination_alpha;
    GLint blend_equation_rgb, blend_equation_alpha;
    GLint program, vertex_array, array_buffer, active_texture, texture, sampler;
    GLint viewport[4];
} saved_gl_state;

static void save_gl_state(saved_gl_state *saved)
{
    saved->blend = glIsEnabled(GL_BLEND);
    saved->depth_test = glIsEnabled(GL_DEPTH_TEST);
    saved->cull_face = glIsEnabled(GL_CULL_FACE);
    saved->scissor_test = glIsEnabled(GL_SCISSOR_TEST);
    glGetIntegerv(GL_BLEND_SRC_RGB, &saved->blend_source_rgb);
    glGetIntegerv(GL_BLEND_DST_RGB, &saved->blend_destination_rgb);
    glGetIntegerv(GL_BLEND_SRC_ALPHA, &saved->blend_source_alpha);
    glGetIntegerv(GL_BLEND_DST_ALPHA, &saved->blend_destination_alpha);
    glGetIntegerv(GL_BLEND_EQUATION_RGB, &saved->blend_equation_rgb);
    glGetIntegerv(GL_BLEND_EQUATION_ALPHA, &saved->blend_equation_alpha);
    glGetIntegerv(GL_CURRENT_PROGRAM, &saved->program);
    glGetIntegerv(GL_VERTEX_ARRAY_BINDING, &saved->vertex_array);
    glGetIntegerv(GL_ARRAY_BUFFER_BINDING, &saved->array_buffer);
    glGetIntegerv(GL_ACTIVE_TEXTURE, &saved->active_texture);
    glActiveTexture(GL_TEXTURE0);
    glGetIntegerv(GL_TEXTURE_BINDING_2D, &saved->texture);
    glGetIntegerv(GL_SAMPLER_BINDING, &saved->sampler);
    glGetIntegerv(GL_VIEWPORT, saved->viewport);
}

static void set_enabled(GLenum capability, GLboolean enabled)
{
    if (enabled)
        glEnable(capability);
    else
        glDisable(capability);
}

static void restore_gl_state(const saved_gl_state *saved)
{
    set_enabled(GL_BLEND, saved->blend);
    set_enabled(GL_DEPTH_TEST, saved->depth_test);
    set_enabled(GL_CULL_FACE, saved->cull_face);
    set_enabled(GL_SCISSOR_TEST, saved->scissor_test);
    glBlendFuncSeparate((GLenum)saved->blend_source_rgb, (GLenum)saved->blend_destination_rgb,
                        (GLenum)saved->blend_source_alpha, (GLenum)saved->blend_destination_alpha);
    glBlendEquationSeparate((GLenum)saved->blend_equation_rgb, (GLenum)saved->blend_equation_alpha);
    glUseProgram((GLuint)saved->program);
    glBindVertexArray((GLuint)saved->vertex_array);
    glBindBuffer(GL_ARRAY_BUFFER, (GLuint)saved->array_buffer);
    glBindTexture(GL_TEXTURE_2D, (GLuint)saved->texture); /* unit 0: still active from save_gl_state */
    glBindSampler(0, (GLuint)saved->sampler);
    glActiveTexture((GLenum)saved->active_texture);
    glViewport(saved->viewport[0], saved->viewport[1], saved->viewport[2], saved->viewport[3]);
}

void gfx_text_end(void)
{
    if (!text.in_frame)
        return;
    text.in_frame = false;
    text.last = (gfx_text_frame_stats){
        .glyphs = text.glyphs, .rectangles = text.rectangles, .dropped = text.dropped, .draw_calls = 0};
    if (text.quads == 0)
        return;

    saved_gl_state saved;
    save_gl_state(&saved); /* leaves texture unit 0 active */
    glEnable(GL_BLEND);
    glBlendEquation(GL_FUNC_ADD);
    /* Colour blends by the text's alpha; the framebuffer's alpha becomes "covered" where panels are. */
    glBlendFuncSeparate(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA, GL_ONE, GL_ONE_MINUS_SRC_ALPHA);
    glDisable(GL_DEPTH_TEST);
    glDisable(GL_CULL_FACE);
    glDisable(GL_SCISSOR_TEST);
    glViewport(0, 0, text.framebuffer_width, text.framebuffer_height);
    glUseProgram(text.program);
    glUniform2f(text.framebuffer_size_location, (float)text.framebuffer_width, (float)text.framebuffer_height);
    glBindTexture(GL_TEXTURE_2D, text.atlas);
    glBindSampler(0, 0); /* a sampler object left bound would override the atlas's nearest filtering */
    glBindVertexArray(text.vertex_array);
    glBindBuffer(GL_ARRAY_BUFFER, text.vertex_buffer);
    /* Re-specifying the store each frame lets the driver hand out fresh memory instead of waiting for the
     * GPU to finish reading last frame's vertices. */
    glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)((size_t)text.quads * VERTICES_PER_QUAD * sizeof(text_vertex)),
                 text.vertices, GL_STREAM_DRAW);
    glDrawElements(GL_TRIANGLES, text.quads * INDICES_PER_QUAD, GL_UNSIGNED_INT, NULL);
    restore_gl_state(&saved);
    text.last.draw_calls = 1;
}

gfx_text_frame_stats gfx_text_stats(void)
{
    return text.last;
}
