/* platform: the one place that talks to the operating system's windowing: an SDL window with an OpenGL 3.3
 * core context, or (headless, for tests, CI and screenshots) an offscreen EGL context rendering into a
 * framebuffer object of a chosen size, with read-back of colour and depth and PNG output.
 * Like sokol_app there is one platform per process, so the state is internal and there are no handles.
 * Knows nothing of models, animation or how frames are drawn (that is gfx); gfx knows nothing of windows. */
#ifndef MARIONETTE_PLATFORM_H
#define MARIONETTE_PLATFORM_H

#include <stdbool.h>
#include <stdint.h>

#include "../base/diag.h"

typedef struct platform_desc {
    const char *title;  /* window title; NULL: "marionette" */
    int width, height;  /* window or offscreen framebuffer size in pixels; 0: 1280 x 720 */
    bool headless;      /* no window: offscreen context and framebuffer object (also chosen whenever the
                         * environment says SDL_VIDEODRIVER=offscreen) */
    bool vsync;         /* windowed only: wait for the display between frames */
} platform_desc;

/* Create the window (or offscreen context) and load the GL entry points. false with err filled in when no
 * GL 3.3 core context can be had (no display, no driver, a GL that is too old); nothing is left open. Not
 * headless, a window system is needed: where SDL finds none and falls back to its offscreen or dummy
 * driver, that is "no display to open a window on", not a window nobody sees. */
bool platform_setup(const platform_desc *desc, diag *err);
void platform_shutdown(void);

bool platform_is_headless(void);

/* Size of what frames are drawn into, in pixels (the drawable size of a high-DPI window). */
void platform_framebuffer_size(int *width, int *height);

/* Bind what this frame draws into (the offscreen framebuffer object, or the window's own framebuffer);
 * call before gfx_end_frame. platform_end_frame presents the window (nothing to do headless). */
void platform_begin_frame(void);
void platform_end_frame(void);

/* Handle pending window events. false once the user asked to close the window (never when headless).
 * Input handling proper belongs to the game and comes later. */
bool platform_poll_events(void);

/* Read back the last frame drawn, top row first (as images are stored, not as GL counts rows).
 * rgba holds width * height * 4 bytes; depth holds width * height window-space depths in [0, 1]
 * (1 is the far plane, where nothing was drawn). */
bool platform_read_pixels(uint8_t *rgba);
bool platform_read_depth(float *depth);

/* Read back the last frame and write it to a PNG file (through SDL_image). */
bool platform_save_png(const char *path, diag *err);

/* Write any top-row-first RGBA image of width x height to a PNG file. */
bool platform_write_png(const char *path, const uint8_t *rgba, int width, int height, diag *err);

#endif
