/* bench_budget: the frame budget as render_bench and crowd_bench print it, in the HUD's words
 * (hud_budget_text): GPU time per pass as medians over the timed frames (the figures seen then, which
 * lag the frames by a few), and the draw calls, triangles and instances per level of the last timed frame.
 * Knows nothing of what the benchmark draws. */
#ifndef MARIONETTE_BENCH_BUDGET_H
#define MARIONETTE_BENCH_BUDGET_H

#include <stdbool.h>
#include <stddef.h>

#include "gfx/gfx.h"

enum { BENCH_BUDGET_FIGURES = 5 }; /* shadow, ground, characters, overlay, frame */

typedef struct bench_budget {
    int capacity;                          /* frames */
    int timed;                             /* frames whose stats had GPU figures */
    double *gpu[BENCH_BUDGET_FIGURES];     /* capacity each */
    gfx_stats last;
    bool any;                              /* a frame was added since bench_budget_start */
} bench_budget;

/* Room for `frames` frames (allocated here, once); false when memory runs out. */
bool bench_budget_create(bench_budget *budget, int frames);
void bench_budget_free(bench_budget *budget);
/* Forget the frames added so far (a new run). */
void bench_budget_start(bench_budget *budget);
/* One timed frame's stats (gfx_frame_stats after gfx_end_frame); allocates nothing. Frames past the
 * capacity are not added. */
void bench_budget_add(bench_budget *budget, const gfx_stats *stats);
/* One line, no newline: "budget: <label>, N draw calls; gpu ...; triangles ..." (the summary lines come
 * first, so the benchmarks keep it until then). */
void bench_budget_line(bench_budget *budget, const char *label, char *buffer, size_t size);

#endif
