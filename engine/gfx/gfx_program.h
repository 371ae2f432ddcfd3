/* gfx_program: compiles and links the renderer's programs at gfx_setup and finds their uniforms once, so
 * draws only set values. Private to engine/gfx; knows nothing of meshes or frames. */
#ifndef MARIONETTE_GFX_PROGRAM_H
#define MARIONETTE_GFX_PROGRAM_H

#include "gfx_internal.h"

/* Every program of gfx_program_kind into gfx.programs; false with err naming the shader that failed. */
bool gfx_link_programs(diag *err);

#endif
