/* platform: the one place that talks to the operating system's windowing: an SDL window with an OpenGL 3.3
 * core context, or (headless, for tests, CI and screenshots) an offscreen EGL context rendering into a
 * framebuffer object of a chosen size, with read-back of colour and depth and PNG output; and the window's
 * input, handed out as the engine's own events (platform_keys.h names the keys). No SDL type leaves it.
 * Like sokol_app there is one platform per process, so the state is internal and there are no handles.
 * Knows nothing of models, animation or how frames are drawn (that is gfx); gfx knows nothing of windows. */
#ifndef MARIONETTE_PLATFORM_H
#define MARIONETTE_PLATFORM_H

#include <stdbool.h>
#include <stdint.h>

#include "../base/diag.h"
#include "platform_keys.h"

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

/* Whether the environment asks for offscreen rendering (SDL_VIDEODRIVER=offscreen), before or without setup. */
bool platform_environment_wants_offscreen(void);

/* Size of what frames are drawn into, in pixels (the drawable size of a high-DPI window). */
void platform_framebuffer_size(int *width, int *height);
/* Size of the window in the units mouse events use (platform_event.x, y): on a high-DPI screen smaller
 * than the framebuffer, so a pointer at (x, y) is on framebuffer pixel (x * fb_width / width, ...).
 * Headless: the framebuffer's size. */
void platform_window_size(int *width, int *height);

/* Bind what this frame draws into (the offscreen framebuffer object, or the window's own framebuffer);
 * call before gfx_end_frame. platform_end_frame presents the window (nothing to do headless). */
void platform_begin_frame(void);
void platform_end_frame(void);

/* What the window reports, in the engine's terms. Mouse coordinates are window pixels, x right, y down. */
typedef enum platform_event_type {
    PLATFORM_EVENT_QUIT,              /* the user asked to close the window */
    PLATFORM_EVENT_KEY_DOWN,          /* key, modifiers, repeat */
    PLATFORM_EVENT_KEY_UP,            /* key, modifiers */
    PLATFORM_EVENT_MOUSE_MOTION,      /* x, y, dx, dy, buttons (held) */
    PLATFORM_EVENT_MOUSE_BUTTON_DOWN, /* x, y, buttons (the one button) */
    PLATFORM_EVENT_MOUSE_BUTTON_UP,   /* x, y, buttons (the one button) */
    PLATFORM_EVENT_MOUSE_WHEEL,       /* wheel_x, wheel_y */
    PLATFORM_EVENT_WINDOW_RESIZED,    /* width, height: the window's new size */
    PLATFORM_EVENT_FOCUS_GAINED,
    PLATFORM_EVENT_FOCUS_LOST,        /* key ups for keys held now will not come */
} platform_event_type;

/* Mouse buttons, as bits of platform_event.buttons. */
enum { PLATFORM_MOUSE_LEFT = 1 << 0, PLATFORM_MOUSE_MIDDLE = 1 << 1, PLATFORM_MOUSE_RIGHT = 1 << 2 };

typedef struct platform_event {
    platform_event_type type;
    platform_key key;       /* KEY_*: the key, by what it types (platform_keys.h) */
    unsigned modifiers;     /* KEY_*: PLATFORM_MOD_* held */
    bool repeat;            /* KEY_DOWN: the key is held and the system repeats it */
    int x, y;               /* MOUSE_*: the pointer in the window */
    int dx, dy;             /* MOUSE_MOTION: pixels moved since the last motion */
    unsigned buttons;       /* MOUSE_MOTION: PLATFORM_MOUSE_* held; MOUSE_BUTTON_*: the button */
    int wheel_x, wheel_y;   /* MOUSE_WHEEL: steps; y positive away from the user, x positive right, as the
                             * system reports them (a "natural scrolling" setting is not undone) */
    int width, height;      /* WINDOW_RESIZED: the window's size (platform_framebuffer_size has the pixels) */
} platform_event;

/* The next pending event into event, oldest first; false when none is left (and before platform_setup).
 * Events the engine has no use for are skipped. Headless there are none, unless a test queues some. */
bool platform_next_event(platform_event *event);

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
