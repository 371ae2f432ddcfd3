/* platform: SDL window or offscreen EGL context, GLEW, offscreen framebuffer, read-back. See platform.h. */
#include "platform.h"

#include <stdlib.h>
#include <string.h>

#include <GL/glew.h>
#include <SDL.h>
#include <SDL_image.h>

#include "../base/file.h"

enum { PLATFORM_DEFAULT_WIDTH = 1280, PLATFORM_DEFAULT_HEIGHT = 720 };

/* GLEW built for GLX (as Debian ships it) returns this from glewInit under EGL, after loading every
 * function pointer anyway; GLEW 2.2 names it GLEW_ERROR_NO_GLX_DISPLAY. */
enum { PLATFORM_GLEW_NO_GLX_DISPLAY = 4 };

static struct {
    bool ready;
    bool headless;
    int width, height;
    SDL_Window *window;
    SDL_GLContext context;
    GLuint framebuffer, color_buffer, depth_buffer;
} platform;

bool platform_environment_wants_offscreen(void)
{
    const char *driver = getenv("SDL_VIDEODRIVER");
    return driver && strcmp(driver, "offscreen") == 0;
}

static void release_everything(void)
{
    if (platform.framebuffer) {
        glDeleteFramebuffers(1, &platform.framebuffer);
        glDeleteRenderbuffers(1, &platform.color_buffer);
        glDeleteRenderbuffers(1, &platform.depth_buffer);
    }
    if (platform.context)
        SDL_GL_DeleteContext(platform.context);
    if (platform.window)
        SDL_DestroyWindow(platform.window);
    IMG_Quit();
    SDL_Quit();
    memset(&platform, 0, sizeof platform);
}

static bool fail(diag *err, const char *what, const char *detail)
{
    diag_set(err, "platform", 0, "%s: %s", what, detail ? detail : "unknown reason");
    release_everything();
    return false;
}

/* Headless frames go into a framebuffer object of exactly the requested size, whatever the (hidden)
 * offscreen window is, so read-back and PNGs have the size the caller asked for. */
static bool create_offscreen_framebuffer(diag *err)
{
    glGenRenderbuffers(1, &platform.color_buffer);
    glBindRenderbuffer(GL_RENDERBUFFER, platform.color_buffer);
    glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, platform.width, platform.height);
    glGenRenderbuffers(1, &platform.depth_buffer);
    glBindRenderbuffer(GL_RENDERBUFFER, platform.depth_buffer);
    glRenderbufferStorage(GL_RENDERBUFFER, GL_DEPTH_COMPONENT24, platform.width, platform.height);
    glBindRenderbuffer(GL_RENDERBUFFER, 0);
    glGenFramebuffers(1, &platform.framebuffer);
    glBindFramebuffer(GL_FRAMEBUFFER, platform.framebuffer);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, platform.color_buffer);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_RENDERBUFFER, platform.depth_buffer);
    GLenum status = glCheckFramebufferStatus(GL_FRAMEBUFFER);
    if (status != GL_FRAMEBUFFER_COMPLETE) {
        diag_set(err, "platform", 0, "offscreen framebuffer of %d x %d is incomplete (status 0x%04x)",
                 platform.width, platform.height, (unsigned)status);
        release_everything();
        return false;
    }
    return true;
}

bool platform_setup(const platform_desc *desc, diag *err)
{
    if (platform.ready)
        return diag_set(err, "platform", 0, "platform_setup called twice without platform_shutdown");
    platform_desc d = desc ? *desc : (platform_desc){0};
    if (d.width < 0 || d.height < 0)
        return diag_set(err, "platform", 0, "size %d x %d: width and height must be positive", d.width,
                        d.height);
    platform.width = d.width ? d.width : PLATFORM_DEFAULT_WIDTH;
    platform.height = d.height ? d.height : PLATFORM_DEFAULT_HEIGHT;
    platform.headless = d.headless || platform_environment_wants_offscreen();

    /* SDL's offscreen driver creates EGL contexts without any X server: the same path a headless GPU
     * machine uses. The hint must be set before SDL_Init. */
    if (platform.headless)
        SDL_SetHint(SDL_HINT_VIDEODRIVER, "offscreen");
    if (SDL_Init(SDL_INIT_VIDEO) != 0)
        return fail(err, "SDL_Init(SDL_INIT_VIDEO) failed", SDL_GetError());
    /* With no window system SDL falls back to its offscreen (or dummy) driver: a window nobody sees and a
     * core spinning at full speed until Ctrl+C. Better to say so and stop. */
    const char *driver = SDL_GetCurrentVideoDriver();
    if (!platform.headless && driver && (strcmp(driver, "offscreen") == 0 || strcmp(driver, "dummy") == 0)) {
        diag_set(err, "platform", 0, "no display to open a window on (DISPLAY and WAYLAND_DISPLAY are %s)",
                 getenv("DISPLAY") || getenv("WAYLAND_DISPLAY") ? "set but unusable" : "unset");
        release_everything();
        return false;
    }
    if ((IMG_Init(IMG_INIT_PNG) & IMG_INIT_PNG) == 0)
        return fail(err, "IMG_Init(IMG_INIT_PNG) failed", IMG_GetError());

    SDL_GL_SetAttribute(SDL_GL_CONTEXT_PROFILE_MASK, SDL_GL_CONTEXT_PROFILE_CORE);
    SDL_GL_SetAttribute(SDL_GL_CONTEXT_MAJOR_VERSION, 3);
    SDL_GL_SetAttribute(SDL_GL_CONTEXT_MINOR_VERSION, 3);
    SDL_GL_SetAttribute(SDL_GL_DOUBLEBUFFER, 1);
    SDL_GL_SetAttribute(SDL_GL_DEPTH_SIZE, 24);

    Uint32 flags = SDL_WINDOW_OPENGL | (platform.headless ? SDL_WINDOW_HIDDEN : SDL_WINDOW_RESIZABLE |
                                                                                 SDL_WINDOW_ALLOW_HIGHDPI);
    platform.window = SDL_CreateWindow(d.title ? d.title : "marionette", SDL_WINDOWPOS_CENTERED,
                                       SDL_WINDOWPOS_CENTERED, platform.width, platform.height, flags);
    if (!platform.window)
        return fail(err, "SDL_CreateWindow failed", SDL_GetError());
    platform.context = SDL_GL_CreateContext(platform.window);
    if (!platform.context)
        return fail(err, "no OpenGL 3.3 core context", SDL_GetError());
    if (!platform.headless)
        SDL_GL_SetSwapInterval(d.vsync ? 1 : 0);

    /* Core profiles need glewExperimental, or GLEW skips entry points it looks up through the extension
     * string that core contexts no longer have. */
    glewExperimental = GL_TRUE;
    GLenum glew = glewInit();
    if (glew != GLEW_OK && glew != PLATFORM_GLEW_NO_GLX_DISPLAY)
        return fail(err, "glewInit failed", (const char *)glewGetErrorString(glew));
    /* glewInit itself can leave GL_INVALID_ENUM behind (it asks for the core-removed extension string). */
    while (glGetError() != GL_NO_ERROR)
        continue;
    if (!glGenVertexArrays || !glTexBuffer || !glTransformFeedbackVaryings)
        return fail(err, "GL entry points missing after glewInit", NULL);
    GLint major = 0, minor = 0;
    glGetIntegerv(GL_MAJOR_VERSION, &major);
    glGetIntegerv(GL_MINOR_VERSION, &minor);
    if (major < 3 || (major == 3 && minor < 3)) {
        diag_set(err, "platform", 0, "OpenGL %d.%d (%s) is older than the 3.3 core this renderer needs",
                 (int)major, (int)minor, (const char *)glGetString(GL_VERSION));
        release_everything();
        return false;
    }

    if (platform.headless) {
        if (!create_offscreen_framebuffer(err))
            return false;
    } else {
        SDL_GL_GetDrawableSize(platform.window, &platform.width, &platform.height);
    }
    platform.ready = true;
    return true;
}

void platform_shutdown(void)
{
    if (platform.ready)
        release_everything();
}

bool platform_is_headless(void)
{
    return platform.headless;
}

void platform_framebuffer_size(int *width, int *height)
{
    if (platform.ready && !platform.headless)
        SDL_GL_GetDrawableSize(platform.window, &platform.width, &platform.height);
    if (width)
        *width = platform.width;
    if (height)
        *height = platform.height;
}

void platform_window_size(int *width, int *height)
{
    int w = platform.width, h = platform.height;
    if (platform.ready && !platform.headless)
        SDL_GetWindowSize(platform.window, &w, &h);
    if (width)
        *width = w;
    if (height)
        *height = h;
}

void platform_begin_frame(void)
{
    if (!platform.ready)
        return;
    glBindFramebuffer(GL_FRAMEBUFFER, platform.headless ? platform.framebuffer : 0);
}

/* A window's swap submits the frame; headless, glFinish ends it: the frame is drawn when this returns, as a
 * presented frame would be. Without it nothing ends a frame drawn into the offscreen framebuffer: a software
 * driver (llvmpipe) kept binning frame after frame into one growing scene (a demo with nothing loaded grew
 * ~50 KB a frame) until something read the pixels back. glFinish rather than glFlush: with only a flush, the
 * next frame is binned while the last is still drawn, and the driver holds a second frame's worth of memory
 * at times of its choosing (a 10-minute soak saw 24 MB come and stay at a random cycle). */
void platform_end_frame(void)
{
    if (!platform.ready)
        return;
    if (platform.headless)
        glFinish();
    else
        SDL_GL_SwapWindow(platform.window);
}

static unsigned modifiers_of(Uint16 mod)
{
    return ((mod & KMOD_SHIFT) ? PLATFORM_MOD_SHIFT : 0u) | ((mod & KMOD_CTRL) ? PLATFORM_MOD_CTRL : 0u) |
           ((mod & KMOD_ALT) ? PLATFORM_MOD_ALT : 0u) | ((mod & KMOD_GUI) ? PLATFORM_MOD_GUI : 0u);
}

static unsigned buttons_of(Uint32 state)
{
    return ((state & SDL_BUTTON_LMASK) ? PLATFORM_MOUSE_LEFT : 0u) |
           ((state & SDL_BUTTON_MMASK) ? PLATFORM_MOUSE_MIDDLE : 0u) |
           ((state & SDL_BUTTON_RMASK) ? PLATFORM_MOUSE_RIGHT : 0u);
}

/* One SDL event in the engine's terms; false for an event the engine has no use for. */
static bool translate_event(const SDL_Event *in, platform_event *out)
{
    *out = (platform_event){0};
    switch (in->type) {
    case SDL_QUIT:
        out->type = PLATFORM_EVENT_QUIT;
        return true;
    case SDL_KEYDOWN:
    case SDL_KEYUP:
        out->type = in->type == SDL_KEYDOWN ? PLATFORM_EVENT_KEY_DOWN : PLATFORM_EVENT_KEY_UP;
        out->key = (platform_key)in->key.keysym.sym; /* the same code space: see platform_keys.c */
        out->modifiers = modifiers_of(in->key.keysym.mod);
        out->repeat = in->key.repeat != 0;
        return true;
    case SDL_MOUSEMOTION:
        out->type = PLATFORM_EVENT_MOUSE_MOTION;
        out->x = in->motion.x;
        out->y = in->motion.y;
        out->dx = in->motion.xrel;
        out->dy = in->motion.yrel;
        out->buttons = buttons_of(in->motion.state);
        return true;
    case SDL_MOUSEBUTTONDOWN:
    case SDL_MOUSEBUTTONUP:
        out->type = in->type == SDL_MOUSEBUTTONDOWN ? PLATFORM_EVENT_MOUSE_BUTTON_DOWN : PLATFORM_EVENT_MOUSE_BUTTON_UP;
        out->x = in->button.x;
        out->y = in->button.y;
        out->buttons = buttons_of(SDL_BUTTON(in->button.button));
        return true;
    case SDL_MOUSEWHEEL:
        out->type = PLATFORM_EVENT_MOUSE_WHEEL;
        out->wheel_x = in->wheel.x;
        out->wheel_y = in->wheel.y;
        return true;
    case SDL_WINDOWEVENT:
        switch (in->window.event) {
        case SDL_WINDOWEVENT_SIZE_CHANGED:
            out->type = PLATFORM_EVENT_WINDOW_RESIZED;
            out->width = in->window.data1;
            out->height = in->window.data2;
            return true;
        case SDL_WINDOWEVENT_FOCUS_GAINED:
            out->type = PLATFORM_EVENT_FOCUS_GAINED;
            return true;
        case SDL_WINDOWEVENT_FOCUS_LOST:
            out->type = PLATFORM_EVENT_FOCUS_LOST;
            return true;
        default:
            return false;
        }
    default:
        return false;
    }
}

bool platform_next_event(platform_event *event)
{
    SDL_Event sdl_event;
    while (platform.ready && SDL_PollEvent(&sdl_event))
        if (translate_event(&sdl_event, event))
            return true;
    return false;
}

/* GL counts rows from the bottom; images (and PNG) from the top. Swap rows in place. */
static void flip_rows(uint8_t *pixels, size_t row_bytes, int rows)
{
    for (int top = 0, bottom = rows - 1; top < bottom; ++top, --bottom) {
        uint8_t *a = pixels + (size_t)top * row_bytes, *b = pixels + (size_t)bottom * row_bytes;
        for (size_t i = 0; i < row_bytes; ++i) {
            uint8_t t = a[i];
            a[i] = b[i];
            b[i] = t;
        }
    }
}

static void bind_for_reading(void)
{
    glBindFramebuffer(GL_READ_FRAMEBUFFER, platform.headless ? platform.framebuffer : 0);
    if (!platform.headless)
        glReadBuffer(GL_BACK);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
}

bool platform_read_pixels(uint8_t *rgba)
{
    if (!platform.ready || !rgba)
        return false;
    bind_for_reading();
    glReadPixels(0, 0, platform.width, platform.height, GL_RGBA, GL_UNSIGNED_BYTE, rgba);
    flip_rows(rgba, (size_t)platform.width * 4, platform.height);
    return glGetError() == GL_NO_ERROR;
}

bool platform_read_depth(float *depth)
{
    if (!platform.ready || !depth)
        return false;
    bind_for_reading();
    glReadPixels(0, 0, platform.width, platform.height, GL_DEPTH_COMPONENT, GL_FLOAT, depth);
    flip_rows((uint8_t *)depth, (size_t)platform.width * sizeof(float), platform.height);
    return glGetError() == GL_NO_ERROR;
}

bool platform_write_png(const char *path, const uint8_t *rgba, int width, int height, diag *err)
{
    if (!path || !rgba || width <= 0 || height <= 0)
        return diag_set(err, path ? path : "platform", 0, "nothing to write: no pixels or an empty image");
    /* SDL names packed formats by bit order; RGBA32 is its alias for R, G, B, A in memory order on any
     * host, which is how glReadPixels wrote them. */
    SDL_Surface *surface = SDL_CreateRGBSurfaceWithFormatFrom((void *)rgba, width, height, 32, width * 4,
                                                              SDL_PIXELFORMAT_RGBA32);
    if (!surface)
        return diag_set(err, path, 0, "cannot wrap the pixels in an SDL surface: %s", SDL_GetError());
    /* Beside the target, renamed over it when whole (base/file.h): a failed write keeps the old picture. */
    file_writer writer;
    if (!file_writer_open(&writer, path, err)) {
        SDL_FreeSurface(surface);
        return false;
    }
    SDL_RWops *stream = SDL_RWFromFP(writer.stream, SDL_FALSE);
    bool encoded = stream && IMG_SavePNG_RW(surface, stream, 1) == 0;
    SDL_FreeSurface(surface);
    if (!encoded) {
        file_writer_abandon(&writer);
        return diag_set(err, path, 0, "cannot write the PNG: %s", IMG_GetError());
    }
    return file_writer_commit(&writer, err);
}

bool platform_save_png(const char *path, diag *err)
{
    if (!platform.ready)
        return diag_set(err, path ? path : "platform", 0, "platform_save_png before platform_setup");
    uint8_t *rgba = malloc((size_t)platform.width * (size_t)platform.height * 4);
    if (!rgba)
        return diag_set(err, path, 0, "out of memory for a %d x %d read-back", platform.width, platform.height);
    bool ok = platform_read_pixels(rgba);
    if (!ok)
        diag_set(err, path, 0, "reading the framebuffer back failed");
    else
        ok = platform_write_png(path, rgba, platform.width, platform.height, err);
    free(rgba);
    return ok;
}
