/* gfx_text: screen-space text and filled panels for a HUD, OpenGL 3.3 core, with a bitmap font of our own
 * (gfx_font.c, printable ASCII plus a box for anything else). Everything queued between begin and end is
 * drawn with one upload and one draw call, in submit order, crisp at whole pixels; no heap after setup.
 * Knows nothing of windows, SDL or the 3D renderer (gfx): it has its own program, buffers and texture, and
 * needs only a current GL 3.3 core context with its entry points loaded (platform_setup does that). */
#ifndef MARIONETTE_GFX_TEXT_H
#define MARIONETTE_GFX_TEXT_H

#include <stdbool.h>

#include "../base/diag.h"

/* One font pixel is scale x scale screen pixels. Every character takes one cell; its ink never reaches the
 * last column (the space between characters). Rows: 0 blank, 1..8 capitals and ascenders (baseline under
 * row 8), 3..8 lowercase, 9..10 descenders, 11 blank (the space between lines). */
enum {
    GFX_TEXT_CELL_WIDTH = 6,
    GFX_TEXT_CELL_HEIGHT = 12,
    GFX_TEXT_DEFAULT_CAPACITY = 16384, /* glyphs + rectangles per frame */
    GFX_TEXT_MAX_CAPACITY = 1 << 20,
    GFX_TEXT_MAX_SCALE = 64,
    GFX_TEXT_FORMAT_MAX = 1024,        /* gfx_text_drawf formats into a stack buffer this big (truncates) */
};

typedef struct gfx_text_desc {
    int capacity; /* glyphs + rectangles per frame; 0: GFX_TEXT_DEFAULT_CAPACITY. Fixed: more are dropped. */
} gfx_text_desc;

/* Compile the program, upload the font atlas once (GL_R8, nearest) and make the buffers. false with err
 * filled in on misuse (called twice, capacity out of range), without a GL context, or when GL fails. */
bool gfx_text_setup(const gfx_text_desc *desc, diag *err);
void gfx_text_shutdown(void);

/* Start a frame for a framebuffer of this size in pixels; forgets what the last frame queued. */
void gfx_text_begin(int framebuffer_width, int framebuffer_height);

/* Queue text with its top-left corner at (x, y) in pixels from the framebuffer's top-left, snapped to the
 * nearest whole pixel. scale (1..GFX_TEXT_MAX_SCALE; below 1: 1) multiplies the font's pixels. color is
 * RGBA in 0..1 (NULL: opaque white). '\n' starts a new line under x; a space takes a cell but no glyph;
 * other bytes outside 32..126 draw a box, one per UTF-8 sequence. Outside begin/end, with NULL text or a
 * coordinate that is not finite, nothing is queued. */
void gfx_text_draw(float x, float y, int scale, const float color[4], const char *text);
void gfx_text_drawf(float x, float y, int scale, const float color[4], const char *format, ...)
    __attribute__((format(printf, 5, 6)));

/* Queue a filled rectangle (a panel behind text: queue it first), edges snapped to whole pixels, blended
 * with the colour's alpha. An empty or negative size, or a coordinate that is not finite, queues nothing. */
void gfx_text_rect(float x, float y, float width, float height, const float color[4]);

/* Width in pixels of the widest line as drawn: from the left edge to the end of the last character's ink
 * column (no trailing space between characters), so right-aligned text ends exactly at x + width; text
 * that goes on along the same line starts at x + width + scale. 0 for NULL or "". gfx_text_line_height is
 * the distance '\n' moves down. */
int gfx_text_width(const char *text, int scale);
int gfx_text_line_height(int scale);

/* Draw everything queued since begin into the currently bound framebuffer: one buffer upload, one draw
 * call, alpha blending, no depth test, no culling, no scissor, viewport set to the frame's size. The GL
 * state it changes is put back afterwards (blend enable, function and equation, depth test, culling,
 * scissor test, viewport, program, vertex array, array buffer, active texture and its binding). */
void gfx_text_end(void);

typedef struct gfx_text_frame_stats {
    int glyphs;      /* glyph quads drawn (spaces take none) */
    int rectangles;  /* rectangles drawn */
    int dropped;     /* glyphs and rectangles over capacity, not drawn */
    int draw_calls;  /* 1 when anything was drawn, else 0 */
} gfx_text_frame_stats;

/* Figures of the last frame ended. */
gfx_text_frame_stats gfx_text_stats(void);

/* The font itself (gfx_font.c), for tests and anyone who draws it elsewhere: whether the pixel at column
 * (0..GFX_TEXT_CELL_WIDTH-1) and row (0..GFX_TEXT_CELL_HEIGHT-1) of a character's cell is lit. A character
 * outside 32..126 gives the replacement box; a pixel outside the cell is unlit. */
bool gfx_text_font_pixel(int character, int column, int row);

/* Whether the font's picture is well formed (every row the right length, only '#' and '.' in glyphs, a
 * space between them); false with the gfx_font.c line of the first bad row. gfx_text_setup calls it. */
bool gfx_text_font_check(diag *err);

#endif
