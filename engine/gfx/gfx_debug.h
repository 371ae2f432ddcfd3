/* gfx_debug: the debug views' lines (gfx.h's gfx_debug_*), kept in gfx_debug.c's own file-static buffer:
 * set up with gfx_setup, emptied by gfx_begin_frame, drawn last by the frame's end into the bound
 * framebuffer. Calls gfx_program (gfx_link_program) only. */
#ifndef MARIONETTE_GFX_DEBUG_H
#define MARIONETTE_GFX_DEBUG_H

#include "gfx_internal.h"

bool gfx_debug_setup(int line_capacity, diag *err);
void gfx_debug_shutdown(void);
void gfx_debug_begin(void);
/* Returns its draw calls (0 or 1), and the lines drawn and dropped. */
int gfx_debug_draw(mat4 view_projection, int *lines, int *dropped);

#endif
