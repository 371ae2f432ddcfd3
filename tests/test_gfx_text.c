/* test_gfx_text: HUD text and panels, headless (SDL offscreen driver, EGL, Mesa llvmpipe). Every pixel of
 * drawn glyph cells at scales 1, 2 and 3 is compared with the font data (lit: the text colour, unlit: the
 * background, exactly); '\n', widths, blending, the replacement box, capacity, one draw call per frame,
 * GL state put back, no GL errors, no heap per frame. The font is checked for legibility in data (cap
 * heights, descenders, confusable pairs drawn apart) and a sample picture is saved as gfx_text_sample.png
 * in the build folder to be looked at. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <GL/glew.h>

#include "check.h"
#include "gfx/gfx_text.h"
#include "platform/platform.h"

enum { IMAGE_WIDTH = 1280, IMAGE_HEIGHT = 720, CELL_W = GFX_TEXT_CELL_WIDTH, CELL_H = GFX_TEXT_CELL_HEIGHT };

/* Multiples of 1/255, so the clear colour and the text colour land on exact bytes. */
static const float BACKGROUND[4] = {20 / 255.0f, 40 / 255.0f, 80 / 255.0f, 1.0f};
static const uint8_t BACKGROUND_BYTES[3] = {20, 40, 80};
static const float TEXT_COLOR[4] = {250 / 255.0f, 200 / 255.0f, 60 / 255.0f, 1.0f};
static const uint8_t TEXT_BYTES[3] = {250, 200, 60};

static uint8_t *pixels; /* the last frame read back, top row first */

/* ---- Heap calls, counted (linked with -Wl,--wrap=...): gfx_text must make none per frame -------------- */

#include "heap_counter.h"

/* ---- Frames and pixels --------------------------------------------------------------------------------- */

static void begin_frame(void)
{
    platform_begin_frame();
    glClearColor(BACKGROUND[0], BACKGROUND[1], BACKGROUND[2], BACKGROUND[3]);
    glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
    gfx_text_begin(IMAGE_WIDTH, IMAGE_HEIGHT);
}

/* End the text frame, check GL reported nothing, read the picture back. */
static void end_frame(void)
{
    gfx_text_end();
    GLenum error = glGetError();
    CHECK(error == GL_NO_ERROR);
    if (error != GL_NO_ERROR)
        fprintf(stderr, "  GL error 0x%04x after a text frame\n", (unsigned)error);
    CHECK(platform_read_pixels(pixels));
}

static const uint8_t *pixel_at(int x, int y)
{
    return pixels + 4 * ((size_t)y * IMAGE_WIDTH + (size_t)x);
}

static bool pixel_is(int x, int y, const uint8_t rgb[3])
{
    const uint8_t *p = pixel_at(x, y);
    return p[0] == rgb[0] && p[1] == rgb[1] && p[2] == rgb[2];
}

/* Pixels of the cell at (x, y) that differ from the font: lit must be `ink`, unlit `paper`. Prints the
 * first difference. */
static int cell_mismatches(int x, int y, int scale, int character, const uint8_t ink[3], const uint8_t paper[3])
{
    int mismatches = 0;
    for (int row = 0; row < CELL_H * scale; ++row)
        for (int column = 0; column < CELL_W * scale; ++column) {
            bool lit = gfx_text_font_pixel(character, column / scale, row / scale);
            if (!pixel_is(x + column, y + row, lit ? ink : paper)) {
                if (mismatches++ == 0) {
                    const uint8_t *p = pixel_at(x + column, y + row);
                    fprintf(stderr, "  character %d at scale %d: pixel (%d, %d) is %d %d %d, font says %s\n",
                            character, scale, x + column, y + row, p[0], p[1], p[2], lit ? "lit" : "unlit");
                }
            }
        }
    return mismatches;
}

/* Every cell of a one-line ASCII string drawn at (x, y). */
static int line_mismatches(int x, int y, int scale, const char *line)
{
    int mismatches = 0;
    for (int i = 0; line[i] && line[i] != '\n'; ++i)
        mismatches += cell_mismatches(x + i * CELL_W * scale, y, scale, (unsigned char)line[i], TEXT_BYTES,
                                      BACKGROUND_BYTES);
    return mismatches;
}

static void printable_ascii(char out[96])
{
    for (int c = 32; c <= 126; ++c)
        out[c - 32] = (char)c;
    out[95] = '\0';
}

static bool glyph_equal(int a, int b)
{
    for (int row = 0; row < CELL_H; ++row)
        for (int column = 0; column < CELL_W; ++column)
            if (gfx_text_font_pixel(a, column, row) != gfx_text_font_pixel(b, column, row))
                return false;
    return true;
}

static int glyph_difference(int a, int b)
{
    int different = 0;
    for (int row = 0; row < CELL_H; ++row)
        for (int column = 0; column < CELL_W; ++column)
            different += gfx_text_font_pixel(a, column, row) != gfx_text_font_pixel(b, column, row);
    return different;
}

static bool row_has_ink(int character, int row)
{
    for (int column = 0; column < CELL_W; ++column)
        if (gfx_text_font_pixel(character, column, row))
            return true;
    return false;
}

/* ---- The font as data ---------------------------------------------------------------------------------- */

static void test_font_data(void)
{
    diag err;
    CHECK(gfx_text_font_check(&err));

    for (int c = 32; c <= 127; ++c) {
        int lit = 0;
        for (int row = 0; row < CELL_H; ++row) {
            for (int column = 0; column < CELL_W; ++column)
                lit += gfx_text_font_pixel(c, column, row);
            CHECK(!gfx_text_font_pixel(c, CELL_W - 1, row)); /* the space between characters */
        }
        CHECK(c == ' ' ? lit == 0 : lit > 0);
        CHECK(!row_has_ink(c, 0) && !row_has_ink(c, CELL_H - 1)); /* the space between lines */
    }
    CHECK(!gfx_text_font_pixel('A', -1, 5) && !gfx_text_font_pixel('A', 2, CELL_H));

    /* Capitals and digits stand on the baseline from the cap line; only the five letters descend. */
    for (int c = 'A'; c <= 'Z'; ++c)
        CHECK(row_has_ink(c, 1) && row_has_ink(c, 8) && !row_has_ink(c, 9) && !row_has_ink(c, 10));
    for (int c = '0'; c <= '9'; ++c)
        CHECK(row_has_ink(c, 1) && row_has_ink(c, 8) && !row_has_ink(c, 9));
    for (int c = 'a'; c <= 'z'; ++c) {
        bool descends = strchr("gjpqy", c) != NULL;
        CHECK(row_has_ink(c, 10) == descends);
        CHECK(row_has_ink(c, 8));
    }
    CHECK(!row_has_ink('a', 2) && !row_has_ink('x', 2) && row_has_ink('b', 1) && row_has_ink('h', 1));

    /* Every glyph distinct, the replacement box too; anything outside ASCII draws that box. */
    int duplicates = 0;
    for (int a = 32; a <= 127; ++a)
        for (int b = a + 1; b <= 127; ++b)
            duplicates += glyph_equal(a, b);
    CHECK(duplicates == 0);
    CHECK(glyph_equal(127, 0) && glyph_equal(127, 200) && glyph_equal(127, '\t') && glyph_equal(127, -3));

    /* Pairs a reader confuses in small fonts differ in at least 3 pixels (punctuation, whose glyphs are
     * a few pixels in all, in 2). */
    static const char *const confusable[] = {"0O", "0D", "OD", "1l", "1I", "lI", "l|", "I|", "1|", "il",
                                             "5S", "8B", "2Z", "gq", "g9", "qp", "rn", "vy", "uv", "()",
                                             "[]", "{}", "-_", ".,", ":;", "'`", "'\"", "!|", "!i"};
    for (size_t i = 0; i < sizeof confusable / sizeof confusable[0]; ++i) {
        int different = glyph_difference(confusable[i][0], confusable[i][1]);
        int least = strchr(".:'!", confusable[i][0]) ? 2 : 3;
        CHECK(different >= least);
        if (different < least)
            fprintf(stderr, "  '%c' and '%c' differ in %d pixels only\n", confusable[i][0], confusable[i][1],
                    different);
    }
    CHECK(glyph_difference(127, 'O') >= 4 && glyph_difference(127, '0') >= 4);
}

/* ---- Pixels against the font --------------------------------------------------------------------------- */

static void test_glyphs_match_font(void)
{
    char all[96];
    printable_ascii(all);
    char split[100];
    snprintf(split, sizeof split, "%.48s\n%s", all, all + 48);

    begin_frame();
    gfx_text_draw(10.3f, 20.6f, 1, TEXT_COLOR, all); /* snaps to (10, 21) */
    gfx_text_draw(10.0f, 50.0f, 2, TEXT_COLOR, all);
    gfx_text_draw(7.0f, 100.0f, 3, TEXT_COLOR, split);
    end_frame();

    CHECK(line_mismatches(10, 21, 1, all) == 0);
    CHECK(line_mismatches(10, 50, 2, all) == 0);
    CHECK(line_mismatches(7, 100, 3, split) == 0);
    CHECK(line_mismatches(7, 100 + gfx_text_line_height(3), 3, all + 48) == 0);
    /* Nothing spilled outside the cells: the rows just above and below the scale-1 line are background. */
    int spilled = 0;
    for (int x = 0; x < IMAGE_WIDTH; ++x)
        spilled += !pixel_is(x, 20, BACKGROUND_BYTES) + !pixel_is(x, 21 + CELL_H, BACKGROUND_BYTES);
    CHECK(spilled == 0);
    CHECK(gfx_text_stats().glyphs == 3 * 94 && gfx_text_stats().draw_calls == 1);
}

static void test_newline_moves_down_one_line(void)
{
    CHECK(gfx_text_line_height(1) == CELL_H && gfx_text_line_height(2) == 2 * CELL_H);
    CHECK(gfx_text_line_height(0) == CELL_H); /* scale below 1 draws at 1 */

    begin_frame();
    gfx_text_draw(100.0f, 300.0f, 2, TEXT_COLOR, "AB\nCD\n\nE");
    end_frame();
    int line = gfx_text_line_height(2), advance = 2 * CELL_W;
    CHECK(cell_mismatches(100, 300, 2, 'A', TEXT_BYTES, BACKGROUND_BYTES) == 0);
    CHECK(cell_mismatches(100 + advance, 300, 2, 'B', TEXT_BYTES, BACKGROUND_BYTES) == 0);
    CHECK(cell_mismatches(100, 300 + line, 2, 'C', TEXT_BYTES, BACKGROUND_BYTES) == 0);
    CHECK(cell_mismatches(100 + advance, 300 + line, 2, 'D', TEXT_BYTES, BACKGROUND_BYTES) == 0);
    CHECK(cell_mismatches(100, 300 + 2 * line, 2, ' ', TEXT_BYTES, BACKGROUND_BYTES) == 0); /* empty line */
    CHECK(cell_mismatches(100, 300 + 3 * line, 2, 'E', TEXT_BYTES, BACKGROUND_BYTES) == 0);
}

/* Rightmost and leftmost non-background pixel in a band of rows; -1 when the band is empty. */
static void ink_extent(int top, int bottom, int *leftmost, int *rightmost)
{
    *leftmost = -1, *rightmost = -1;
    for (int y = top; y < bottom; ++y)
        for (int x = 0; x < IMAGE_WIDTH; ++x)
            if (!pixel_is(x, y, BACKGROUND_BYTES)) {
                if (*leftmost < 0 || x < *leftmost)
                    *leftmost = x;
                if (x > *rightmost)
                    *rightmost = x;
            }
}

static void test_width_matches_what_is_drawn(void)
{
    CHECK(gfx_text_width(NULL, 1) == 0 && gfx_text_width("", 2) == 0);
    CHECK(gfx_text_width("M", 1) == CELL_W - 1 && gfx_text_width("M", 2) == 2 * (CELL_W - 1));
    CHECK(gfx_text_width("\xC3\xA9", 1) == gfx_text_width("e", 1)); /* one cell per UTF-8 sequence */
    CHECK(gfx_text_width("ab\nabcd\nabc", 1) == gfx_text_width("abcd", 1));

    /* Strings that end in a glyph whose ink reaches the last ink column: the rightmost lit pixel is the
     * last pixel of the width; the first glyph's ink starts at x. */
    static const struct {
        const char *text;
        int scale;
    } cases[] = {
        {"HUD", 1}, {"entities: 1000 M", 1}, {"frame 16.7 ms # H", 2}, {"short\na much longer line W\nmid", 3},
        {"Hello, world #", 2},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        const int x = 40 + (int)i, y = 200;
        begin_frame();
        gfx_text_draw((float)x, (float)y, cases[i].scale, TEXT_COLOR, cases[i].text);
        end_frame();
        int leftmost, rightmost;
        ink_extent(y, y + 4 * gfx_text_line_height(cases[i].scale), &leftmost, &rightmost);
        int width = gfx_text_width(cases[i].text, cases[i].scale);
        CHECK(leftmost == x);
        CHECK(rightmost == x + width - 1);
        if (rightmost != x + width - 1)
            fprintf(stderr, "  \"%s\": drawn to x = %d, width says %d\n", cases[i].text, rightmost, x + width - 1);
    }
}

/* ---- Rectangles, submit order, blending ---------------------------------------------------------------- */

static int blend(float source, float alpha_byte, int destination)
{
    float alpha = alpha_byte / 255.0f;
    return (int)(source * 255.0f * alpha + (float)destination * (1.0f - alpha) + 0.5f);
}

static bool near_color(int x, int y, const int expected[3], int tolerance)
{
    const uint8_t *p = pixel_at(x, y);
    for (int c = 0; c < 3; ++c)
        if (abs((int)p[c] - expected[c]) > tolerance)
            return false;
    return true;
}

static void test_rectangles_blend_in_submit_order(void)
{
    const float panel[4] = {1.0f, 0.5f, 0.0f, 0.5f};
    const float opaque[4] = {0.0f, 1.0f, 0.0f, 1.0f};
    begin_frame();
    gfx_text_rect(200.4f, 400.6f, 50.0f, 30.0f, panel); /* snaps to x 200..249, y 401..430 */
    gfx_text_draw(204.0f, 405.0f, 1, TEXT_COLOR, "Hi");
    gfx_text_rect(230.0f, 405.0f, 10.0f, 10.0f, opaque); /* after the text: over it */
    gfx_text_draw(232.0f, 405.0f, 1, TEXT_COLOR, "M");   /* after that rectangle: over it */
    gfx_text_rect(300.0f, 400.0f, -5.0f, 10.0f, opaque); /* negative: nothing */
    gfx_text_rect(300.0f, 400.0f, 0.2f, 10.0f, opaque);  /* thinner than half a pixel: nothing */
    end_frame();

    const int blended[3] = {blend(1.0f, 128, 20), blend(0.5f, 128, 40), blend(0.0f, 128, 80)};
    CHECK(near_color(200, 401, blended, 2));
    CHECK(near_color(249, 430, blended, 2));
    CHECK(near_color(220, 420, blended, 2));
    CHECK(pixel_is(199, 401, BACKGROUND_BYTES) && pixel_is(250, 401, BACKGROUND_BYTES));
    CHECK(pixel_is(200, 400, BACKGROUND_BYTES) && pixel_is(200, 431, BACKGROUND_BYTES));
    CHECK(pixel_is(300, 405, BACKGROUND_BYTES));

    /* Text over the panel: opaque ink exactly, the panel's colour between strokes. */
    uint8_t blended_bytes[3];
    for (int c = 0; c < 3; ++c)
        blended_bytes[c] = pixel_at(220, 420)[c];
    CHECK(cell_mismatches(204, 405, 1, 'H', TEXT_BYTES, blended_bytes) == 0);
    CHECK(cell_mismatches(204 + CELL_W, 405, 1, 'i', TEXT_BYTES, blended_bytes) == 0);
    /* The opaque rectangle covers what came before it and lies under what came after. */
    const uint8_t green[3] = {0, 255, 0};
    CHECK(pixel_is(230, 405, green) && pixel_is(239, 414, green));
    CHECK(pixel_is(232, 406, TEXT_BYTES));  /* 'M' row 1, column 0 */
    CHECK(pixel_is(233, 406, green));       /* 'M' row 1, column 1 is unlit */
    gfx_text_frame_stats stats = gfx_text_stats();
    CHECK(stats.rectangles == 2 && stats.glyphs == 3 && stats.dropped == 0 && stats.draw_calls == 1);
}

/* ---- Replacement, capacity, batching ------------------------------------------------------------------- */

static void test_non_ascii_draws_the_box(void)
{
    begin_frame();
    /* a, é (two bytes, one box), b, a tab, a stray continuation byte, z */
    gfx_text_draw(50.0f, 500.0f, 2, TEXT_COLOR, "a\xC3\xA9" "b\t\x80z");
    end_frame();
    static const int expected[] = {'a', 127, 'b', 127, 127, 'z'};
    for (int i = 0; i < 6; ++i)
        CHECK(cell_mismatches(50 + i * 2 * CELL_W, 500, 2, expected[i], TEXT_BYTES, BACKGROUND_BYTES) == 0);
    CHECK(pixel_is(50 + 6 * 2 * CELL_W + 1, 502 + 2, BACKGROUND_BYTES)); /* nothing after z */
    CHECK(gfx_text_stats().glyphs == 6);
    CHECK(gfx_text_width("a\xC3\xA9" "b\t\x80z", 2) == 2 * (6 * CELL_W - 1));
}

static void test_capacity_drops_and_counts(void)
{
    diag err;
    gfx_text_shutdown();
    CHECK(!gfx_text_setup(&(gfx_text_desc){.capacity = -1}, &err));
    CHECK_STR_CONTAINS(err.message, "capacity");
    CHECK(gfx_text_setup(&(gfx_text_desc){.capacity = 8}, &err));
    CHECK(!gfx_text_setup(NULL, &err));
    CHECK_STR_CONTAINS(err.message, "twice");

    begin_frame();
    gfx_text_draw(20.0f, 600.0f, 1, TEXT_COLOR, "ABCD EFGHIJKL"); /* 12 glyphs, the space takes none */
    gfx_text_rect(0.0f, 0.0f, 10.0f, 10.0f, TEXT_COLOR);
    end_frame();
    gfx_text_frame_stats stats = gfx_text_stats();
    CHECK(stats.glyphs == 8 && stats.rectangles == 0 && stats.dropped == 5 && stats.draw_calls == 1);
    CHECK(line_mismatches(20, 600, 1, "ABCD EFGH    ") == 0); /* dropped cells stay background */
    CHECK(pixel_is(5, 5, BACKGROUND_BYTES));

    /* The next frame starts empty again. */
    begin_frame();
    gfx_text_rect(0.0f, 0.0f, 10.0f, 10.0f, TEXT_COLOR);
    gfx_text_draw(20.0f, 600.0f, 1, TEXT_COLOR, "AB");
    end_frame();
    stats = gfx_text_stats();
    CHECK(stats.glyphs == 2 && stats.rectangles == 1 && stats.dropped == 0);
    CHECK(pixel_is(5, 5, TEXT_BYTES));

    gfx_text_shutdown();
    CHECK(gfx_text_setup(NULL, &err));
}

static void test_one_draw_call_for_a_busy_frame(void)
{
    long heap_before = heap_calls;
    begin_frame();
    int expected_glyphs = 0;
    for (int i = 0; i < 300; ++i) {
        char line[64];
        snprintf(line, sizeof line, "entity %d: %.2f ms", i, (double)i * 0.37);
        for (const char *c = line; *c; ++c)
            expected_glyphs += *c != ' ';
        gfx_text_drawf((float)(i / 50 * 210), (float)(i % 50 * 14), 1, TEXT_COLOR, "entity %d: %.2f ms", i,
                       (double)i * 0.37);
    }
    for (int i = 0; i < 100; ++i)
        gfx_text_rect((float)(i * 12), 700.0f, 10.0f, 10.0f, (const float[4]){0.0f, 0.0f, 0.0f, 0.5f});
    gfx_text_end();
    CHECK(heap_calls == heap_before); /* begin, draw, drawf, rect, end: no heap */
    CHECK(heap_before > 0);           /* the wrapping works: setup did allocate */
    CHECK(glGetError() == GL_NO_ERROR);
    gfx_text_frame_stats stats = gfx_text_stats();
    CHECK(stats.glyphs == expected_glyphs && stats.rectangles == 100 && stats.dropped == 0);
    CHECK(stats.draw_calls == 1);

    begin_frame();
    end_frame();
    CHECK(gfx_text_stats().draw_calls == 0 && gfx_text_stats().glyphs == 0);
}

static void test_misuse_queues_nothing(void)
{
    begin_frame();
    end_frame();
    gfx_text_draw(10.0f, 10.0f, 1, TEXT_COLOR, "outside a frame");
    gfx_text_rect(0.0f, 0.0f, 10.0f, 10.0f, TEXT_COLOR);
    gfx_text_end(); /* no frame to end: the last frame's figures stay */
    CHECK(gfx_text_stats().glyphs == 0 && gfx_text_stats().draw_calls == 0);

    const float nan = strtof("nan", NULL), infinity = strtof("inf", NULL);
    begin_frame();
    gfx_text_draw(nan, 10.0f, 1, TEXT_COLOR, "x");
    gfx_text_draw(10.0f, infinity, 1, TEXT_COLOR, "x");
    gfx_text_draw(10.0f, 10.0f, 1, TEXT_COLOR, NULL);
    gfx_text_drawf(10.0f, 10.0f, 1, TEXT_COLOR, NULL);
    gfx_text_rect(0.0f, nan, 10.0f, 10.0f, TEXT_COLOR);
    gfx_text_rect(0.0f, 0.0f, infinity, 10.0f, TEXT_COLOR);
    gfx_text_draw(30.0f, 30.0f, 0, NULL, "Ok");                           /* scale 1, white */
    gfx_text_draw(30.0f, 60.0f, 1, (const float[4]){2.0f, -1.0f, nan, 1.0f}, "Ok"); /* clamped: red */
    end_frame();
    CHECK(gfx_text_stats().glyphs == 4 && gfx_text_stats().rectangles == 0);
    const uint8_t white[3] = {255, 255, 255}, red[3] = {255, 0, 0};
    CHECK(cell_mismatches(30, 30, 1, 'O', white, BACKGROUND_BYTES) == 0);
    CHECK(cell_mismatches(30, 60, 1, 'O', red, BACKGROUND_BYTES) == 0);

    /* drawf formats into a fixed buffer: longer text is cut, not allocated for. */
    static char long_text[3 * GFX_TEXT_FORMAT_MAX];
    memset(long_text, 'x', sizeof long_text - 1);
    begin_frame();
    gfx_text_drawf(0.0f, 0.0f, 1, TEXT_COLOR, "%s", long_text);
    end_frame();
    CHECK(gfx_text_stats().glyphs == GFX_TEXT_FORMAT_MAX - 1);

    gfx_text_begin(0, 720); /* no framebuffer size: nothing is queued */
    gfx_text_draw(30.0f, 30.0f, 1, TEXT_COLOR, "Ok");
    gfx_text_end();
    CHECK(gfx_text_stats().glyphs == GFX_TEXT_FORMAT_MAX - 1); /* the last frame's: that one never began */
}

/* ---- GL state ------------------------------------------------------------------------------------------ */

static GLint get_integer(GLenum name)
{
    GLint value = 0;
    glGetIntegerv(name, &value);
    return value;
}

static void test_gl_state_is_restored(void)
{
    GLuint vertex_array, buffer, texture;
    glGenVertexArrays(1, &vertex_array);
    glGenBuffers(1, &buffer);
    glGenTextures(1, &texture);

    /* A state in which nothing would show if text used it: depth test against a depth of 0, front faces
     * culled as well as back, a one-pixel scissor box, a small viewport, blending off. */
    platform_begin_frame();
    glClearColor(BACKGROUND[0], BACKGROUND[1], BACKGROUND[2], BACKGROUND[3]);
    glClearDepth(0.0);
    glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
    glClearDepth(1.0);
    glEnable(GL_DEPTH_TEST);
    glDepthFunc(GL_LESS);
    glEnable(GL_CULL_FACE);
    glCullFace(GL_FRONT_AND_BACK);
    glEnable(GL_SCISSOR_TEST);
    glScissor(0, 0, 1, 1);
    glViewport(0, 0, 100, 100);
    glDisable(GL_BLEND);
    glBlendFunc(GL_ONE, GL_ZERO);
    glBindVertexArray(vertex_array);
    glBindBuffer(GL_ARRAY_BUFFER, buffer);
    glActiveTexture(GL_TEXTURE0);
    glBindTexture(GL_TEXTURE_2D, texture);
    glActiveTexture(GL_TEXTURE3);

    gfx_text_begin(IMAGE_WIDTH, IMAGE_HEIGHT);
    gfx_text_rect(400.0f, 400.0f, 20.0f, 20.0f, (const float[4]){1.0f, 1.0f, 1.0f, 0.5f});
    gfx_text_draw(300.0f, 300.0f, 2, TEXT_COLOR, "State");
    end_frame();
    CHECK(line_mismatches(300, 300, 2, "State") == 0);
    const int half_white[3] = {blend(1.0f, 128, 20), blend(1.0f, 128, 40), blend(1.0f, 128, 80)};
    CHECK(near_color(410, 410, half_white, 2)); /* blended although blending was off before */

    CHECK(glIsEnabled(GL_DEPTH_TEST) && glIsEnabled(GL_CULL_FACE) && glIsEnabled(GL_SCISSOR_TEST));
    CHECK(!glIsEnabled(GL_BLEND));
    CHECK(get_integer(GL_BLEND_SRC_RGB) == GL_ONE && get_integer(GL_BLEND_DST_RGB) == GL_ZERO);
    CHECK(get_integer(GL_BLEND_SRC_ALPHA) == GL_ONE && get_integer(GL_BLEND_DST_ALPHA) == GL_ZERO);
    CHECK(get_integer(GL_BLEND_EQUATION_RGB) == GL_FUNC_ADD);
    CHECK(get_integer(GL_CURRENT_PROGRAM) == 0);
    CHECK(get_integer(GL_VERTEX_ARRAY_BINDING) == (GLint)vertex_array);
    CHECK(get_integer(GL_ARRAY_BUFFER_BINDING) == (GLint)buffer);
    CHECK(get_integer(GL_ACTIVE_TEXTURE) == GL_TEXTURE3);
    GLint viewport[4];
    glGetIntegerv(GL_VIEWPORT, viewport);
    CHECK(viewport[0] == 0 && viewport[1] == 0 && viewport[2] == 100 && viewport[3] == 100);
    glActiveTexture(GL_TEXTURE0);
    CHECK(get_integer(GL_TEXTURE_BINDING_2D) == (GLint)texture);

    /* The other way round: blending on with its own function stays so; depth test off stays off. */
    glEnable(GL_BLEND);
    glBlendFuncSeparate(GL_ONE, GL_ONE, GL_ZERO, GL_ONE);
    glBlendEquation(GL_FUNC_REVERSE_SUBTRACT);
    glDisable(GL_DEPTH_TEST);
    glDisable(GL_CULL_FACE);
    glDisable(GL_SCISSOR_TEST);
    begin_frame();
    gfx_text_draw(300.0f, 300.0f, 1, TEXT_COLOR, "again");
    end_frame();
    CHECK(line_mismatches(300, 300, 1, "again") == 0);
    CHECK(glIsEnabled(GL_BLEND) && !glIsEnabled(GL_DEPTH_TEST) && !glIsEnabled(GL_CULL_FACE));
    CHECK(get_integer(GL_BLEND_SRC_RGB) == GL_ONE && get_integer(GL_BLEND_DST_ALPHA) == GL_ONE);
    CHECK(get_integer(GL_BLEND_EQUATION_RGB) == GL_FUNC_REVERSE_SUBTRACT);

    glBlendEquation(GL_FUNC_ADD);
    glBlendFunc(GL_ONE, GL_ZERO);
    glDisable(GL_BLEND);
    glCullFace(GL_BACK);
    glViewport(0, 0, IMAGE_WIDTH, IMAGE_HEIGHT);
    glBindVertexArray(0);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
    glBindTexture(GL_TEXTURE_2D, 0);
    glDeleteVertexArrays(1, &vertex_array);
    glDeleteBuffers(1, &buffer);
    glDeleteTextures(1, &texture);
    CHECK(glGetError() == GL_NO_ERROR);
}

/* ---- The sample picture -------------------------------------------------------------------------------- */

static void test_sample_picture(void)
{
    static const float white[4] = {0.92f, 0.94f, 0.96f, 1.0f}, dim[4] = {0.6f, 0.66f, 0.72f, 1.0f};
    static const float accent[4] = {1.0f, 0.78f, 0.25f, 1.0f}, panel[4] = {0.0f, 0.0f, 0.0f, 0.55f};
    char all[96];
    printable_ascii(all);

    begin_frame();
    /* A HUD panel as the demo would draw it: measured, then drawn behind its lines. */
    const char *hud = "marionette        entities\n" /* the count goes in the gap, in the accent colour */
                      "frame  16.67 ms   update 2.10 ms   draw 3.45 ms\n"
                      "shared 1.21 MB    per entity 3.1 KB";
    int hud_width = gfx_text_width(hud, 1), hud_height = 3 * gfx_text_line_height(1);
    gfx_text_rect(8.0f, 8.0f, (float)(hud_width + 16), (float)(hud_height + 12), panel);
    gfx_text_draw(16.0f, 14.0f, 1, white, hud);
    /* Text that goes on along a line starts one blank font column after the width. */
    gfx_text_drawf(16.0f + (float)(gfx_text_width("marionette   ", 1) + 1), 14.0f, 1, accent, "%4d", 1000);

    int y = 80;
    gfx_text_draw(16.0f, (float)y, 1, dim, "scale 1");
    gfx_text_draw(80.0f, (float)y, 1, white, all);
    y += 24;
    gfx_text_draw(16.0f, (float)y, 1, dim, "scale 2");
    gfx_text_draw(80.0f, (float)y, 2, white, all);
    y += 40;
    char split[100];
    snprintf(split, sizeof split, "%.48s\n%s", all, all + 48);
    gfx_text_draw(16.0f, (float)y, 1, dim, "scale 3");
    gfx_text_draw(80.0f, (float)y, 3, white, split);
    y += 2 * gfx_text_line_height(3) + 16;
    gfx_text_draw(16.0f, (float)y, 1, dim, "pairs");
    gfx_text_draw(80.0f, (float)y, 3, accent, "0O0 1lI| 5S5 8B8 2Z2 gq9 rnm vy il .,:; '`");
    y += gfx_text_line_height(3) + 12;
    gfx_text_draw(80.0f, (float)y, 2, white,
                  "The quick brown fox jumps over the lazy dog.\nPACK MY BOX WITH FIVE DOZEN LIQUOR JUGS!");
    y += 2 * gfx_text_line_height(2) + 12;
    gfx_text_draw(80.0f, (float)y, 1, white,
                  "The quick brown fox jumps over the lazy dog. 0123456789 (x + y) * 2 = {a[i] | b}; ~/_`^@#$%&\n"
                  "Not ASCII draws a box: Gr\xC3\xBC\xC3\x9F" "e \xE2\x86\x92 done");

    /* The help line at the bottom, centred on a full-width strip. */
    const char *help = "WASD move   Shift run   Space jump   E wave   Q/R orbit   wheel zoom   F1 help";
    int help_width = gfx_text_width(help, 2);
    gfx_text_rect(0.0f, (float)(IMAGE_HEIGHT - 40), (float)IMAGE_WIDTH, 40.0f, panel);
    gfx_text_draw((float)((IMAGE_WIDTH - help_width) / 2), (float)(IMAGE_HEIGHT - 32), 2, white, help);
    end_frame();
    CHECK(gfx_text_stats().draw_calls == 1 && gfx_text_stats().dropped == 0);
    const int under_panel[3] = {blend(0.0f, 140, 20), blend(0.0f, 140, 40), blend(0.0f, 140, 80)};
    CHECK(near_color(9, 9, under_panel, 2)); /* 0.55 alpha is byte 140 */

    char path[512];
    snprintf(path, sizeof path, "%s/gfx_text_sample.png", MARIONETTE_BUILD_DIR);
    diag err;
    bool saved = platform_save_png(path, &err);
    CHECK(saved);
    if (saved)
        printf("  picture: %s\n", path);
    else
        fprintf(stderr, "%s: %s\n", err.file, err.message);
}

int main(void)
{
    diag err;
    RUN(test_font_data);
    /* Before a context: a clear error, not a crash. */
    CHECK(!gfx_text_setup(NULL, &err));
    CHECK_STR_CONTAINS(err.message, "OpenGL context");

    if (!platform_setup(&(platform_desc){.width = IMAGE_WIDTH, .height = IMAGE_HEIGHT, .headless = true}, &err)) {
        fprintf(stderr, "test_gfx_text: no OpenGL 3.3 context: %s\n", err.message);
        return 1;
    }
    pixels = malloc((size_t)IMAGE_WIDTH * IMAGE_HEIGHT * 4);
    bool ready = pixels && gfx_text_setup(NULL, &err);
    CHECK(ready);
    if (ready) {
        RUN(test_glyphs_match_font);
        RUN(test_newline_moves_down_one_line);
        RUN(test_width_matches_what_is_drawn);
        RUN(test_rectangles_blend_in_submit_order);
        RUN(test_non_ascii_draws_the_box);
        RUN(test_capacity_drops_and_counts);
        RUN(test_one_draw_call_for_a_busy_frame);
        RUN(test_misuse_queues_nothing);
        RUN(test_gl_state_is_restored);
        RUN(test_sample_picture);
        gfx_text_shutdown();
    }
    free(pixels);
    platform_shutdown();
    return check_report();
}
