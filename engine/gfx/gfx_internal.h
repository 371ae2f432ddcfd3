/* gfx_internal: what the files of engine/gfx share and nobody else sees. */
#ifndef MARIONETTE_GFX_INTERNAL_H
#define MARIONETTE_GFX_INTERNAL_H

#include <stdbool.h>

#include <GL/glew.h>
#include <cglm/cglm.h>

#include "../base/diag.h"

/* Compile and link a program from its stages (geometry may be NULL). captured: output names recorded by
 * transform feedback (named before linking), or NULL. */
bool gfx_link_program(GLuint *out, const char *vertex_source, const char *geometry_source,
                      const char *fragment_source, const char *const *captured, int captured_count,
                      const char *name, diag *err);

/* Debug lines (gfx_debug.c): set up with gfx_setup, emptied by gfx_begin_frame, drawn last by
 * gfx_end_frame into the bound framebuffer. gfx_debug_draw returns its draw calls (0 or 1). */
bool gfx_debug_setup(int line_capacity, diag *err);
void gfx_debug_shutdown(void);
void gfx_debug_begin(void);
int gfx_debug_draw(mat4 view_projection, int *lines, int *dropped);

/* Textures shared by file (gfx_texture.c). gfx_texture_acquire adds a user to the image at path, loading
 * it on its first use; -1 when it is refused or unreadable (warned at where:line, naming label): the caller
 * draws the placeholder. gfx_texture_sampling sets the bound GL_TEXTURE_2D's mipmaps and filters. */
void gfx_texture_setup(size_t budget_bytes);
void gfx_texture_shutdown(void);
int gfx_texture_acquire(const char *path, const char *where, int line, const char *label, diag_list *warnings);
GLuint gfx_texture_name(int index);
void gfx_texture_release(int index);
void gfx_texture_stats(int *held, int *loaded, size_t *bytes);
void gfx_texture_sampling(void);

#endif
