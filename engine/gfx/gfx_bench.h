/* gfx_bench: the benchmark's baseline, for tools/render_bench and the tests that compare against it: a
 * frame drawn the classic tutorial way, per instance its palette, world matrix and tint uploaded on their
 * own as uniforms (glUniformMatrix4fv) and one non-instanced draw per instance per skin_mesh, in submit
 * order. Same lighting and picture as gfx_begin_frame's frames; not for the game. */
#ifndef MARIONETTE_GFX_BENCH_H
#define MARIONETTE_GFX_BENCH_H

#include "gfx.h"

/* Largest palette the naive path's uniform array holds (as tutorials size theirs): meshes of more joints
 * are refused at submit. */
enum { GFX_NAIVE_MAX_JOINTS = 128 };

/* gfx_begin_frame for a naive frame: submit and end it as any other. Skins on the GPU whatever
 * desc->cpu_skinning says; gfx_stats.palette_uploads counts one upload per instance. */
void gfx_bench_begin_naive_frame(const gfx_frame_desc *desc);

/* For gfx itself (gfx.c, gfx_shadow.c): the naive frame's instances drawn with `program`; returns the
 * draw calls and counts the uploads in stats. */
struct gfx_program;
int gfx_draw_naive(const struct gfx_program *program, mat4 view_projection, gfx_stats *stats);

#endif
