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

#endif
