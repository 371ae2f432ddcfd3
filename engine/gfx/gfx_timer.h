/* gfx_timer: the frame budget. Which pass gfx_end_frame is drawing (shadow, ground, characters, overlay),
 * the triangles and instances per level each pass draws, and the GPU time of each pass from GL timestamp
 * queries read a few frames later from a small ring, so nothing ever waits for the GPU. Private to
 * engine/gfx, apart from gfx_overlay_begin/end in gfx.h. Knows nothing of what a pass draws: the draw code
 * tells it what it drew (gfx_timer_count_*), gfx.c when a pass starts (gfx_timer_pass). */
#ifndef MARIONETTE_GFX_TIMER_H
#define MARIONETTE_GFX_TIMER_H

#include <stdbool.h>

#include "gfx.h"

typedef enum gfx_pass {
    GFX_PASS_SHADOW,      /* the shadow map's depth pass (with the frame's uploads before it) */
    GFX_PASS_CHARACTERS,  /* clearing the picture, and the instances (and the normals view) */
    GFX_PASS_GROUND,      /* the ground, drawn after the characters so it is not shaded behind them */
    GFX_PASS_OVERLAY,     /* debug lines, then whatever the caller brackets with gfx_overlay_begin/end */
    GFX_PASS_COUNT
} gfx_pass;

/* Query objects made once (none where the driver has no timer queries, or with off set); no allocation
 * afterwards. One frame in `every` is timed: its marks flush the GPU's queue after each pass, which costs
 * a tiler (llvmpipe) about 6 ms at 1280x720; the frames between issue no query and no flush. */
void gfx_timer_setup(bool off, int every);
void gfx_timer_shutdown(void);
/* At the start of gfx_end_frame: reads whatever results have arrived (never waiting), zeroes the counts
 * and stamps the frame's start. */
void gfx_timer_frame_begin(void);
/* A pass starts here (passes come in gfx_pass order; one may be skipped). */
void gfx_timer_pass(gfx_pass pass);
/* At the end of gfx_end_frame: stamps it and writes the frame budget into stats (triangles, levels,
 * the latest GPU figures). */
void gfx_timer_frame_end(gfx_stats *stats);

/* What the draw code drew in the current pass: `instances` instances of `index_count` triangle indices
 * each (one draw), and `instances` instances of one mesh drawn at `level` (once per mesh and level, not
 * per part). */
void gfx_timer_count_triangles(int instances, int index_count);
void gfx_timer_count_instances(int level, int instances);

#endif
