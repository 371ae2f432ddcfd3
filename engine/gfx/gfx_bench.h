/* gfx_bench: the benchmark's baseline, for tools/render_bench and the tests that compare against it: a
 * frame drawn the classic tutorial way, per instance its palette, world matrix and tint uploaded on their
 * own as uniforms (glUniformMatrix4fv) and one non-instanced draw per instance per skin_mesh, in submit
 * order. Same lighting and picture as gfx_begin_frame's frames; not for the game. It lies beside the
 * renderer's own frames, not inside them: its frame begins and ends with its own two functions, and
 * gfx_submit queues into it as into any frame. */
#ifndef MARIONETTE_GFX_BENCH_H
#define MARIONETTE_GFX_BENCH_H

#include "gfx.h"

/* Largest palette the naive path's uniform array holds (as tutorials size theirs): meshes of more joints
 * are refused at submit. */
enum { GFX_NAIVE_MAX_JOINTS = 128 };

/* gfx_begin_frame for a naive frame: submit into it as into any frame (gfx_submit, gfx_submit_palette,
 * gfx_reserve), then end it with gfx_bench_end_naive_frame (gfx_end_frame refuses it). Skins on the GPU
 * whatever desc->cpu_skinning says, linearly only (dual-quaternion instances are refused at submit), and
 * draws every instance whole (level 0) whatever the levels of detail say. */
void gfx_bench_begin_naive_frame(const gfx_frame_desc *desc);
/* gfx_end_frame for a naive frame: the shadow pass and the picture draw each instance on its own, its
 * palette, world matrix and tint uploaded as uniforms; then the ground and the debug lines as on any frame.
 * gfx_stats.palette_uploads counts one upload per instance and pass. Refused (a message in gfx_last_error,
 * the frame left open) on a frame gfx_begin_frame began. */
void gfx_bench_end_naive_frame(void);

#endif
