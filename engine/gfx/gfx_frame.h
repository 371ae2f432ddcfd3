/* gfx_frame: the opening and the close of gfx.c's frames, for a frame whose instances are drawn another
 * way than gfx_end_frame's: the benchmark's naive frames (gfx_bench.c). gfx.c implements it and ends its
 * own frames with the same steps; nothing else includes it. A frame's rules are set when it begins and say
 * what may be submitted into it and which end it needs: gfx_end_frame ends gfx_begin_frame's frames,
 * gfx_bench_end_naive_frame the naive ones, and each refuses the other's. */
#ifndef MARIONETTE_GFX_FRAME_H
#define MARIONETTE_GFX_FRAME_H

#include "gfx_draw.h"
#include "gfx_internal.h"
#include "gfx_mesh.h"
#include "gfx_program.h"
#include "gfx_shadow.h"

typedef struct gfx_frame_rules {
    const char *begin, *end;   /* the functions that begin and end such a frame, for the messages */
    const char *path;          /* how it is drawn, for the messages ("the naive path") */
    int max_joints;            /* the most joints an instance's mesh may have; 0: any */
    bool linear_only;          /* instances skinned with dual quaternions are refused */
    bool whole_meshes;         /* every instance at level 0: no level of detail, its lod memory untouched */
    bool palettes_on_cpu;      /* the palettes stay in memory for the drawer to read, never mapped */
} gfx_frame_rules;

/* gfx_begin_frame under `rules` (they must outlive the frame: the end compares them). */
void gfx_frame_begin(const gfx_frame_desc *desc, const gfx_frame_rules *rules);

/* A frame being ended: its figures, and what its passes read (the parts of the renderer, read only). */
typedef struct gfx_frame_end {
    gfx_stats stats;                    /* filled in by the passes; the frame's stats at gfx_frame_finish */
    const gfx_frame_desc *frame;        /* defaults filled in */
    mat4 view_projection;
    mat4 light_view_projection;         /* the shadow map's, when lighting.shadow->on */
    gfx_lighting lighting;
    const gfx_queued_instance *queued;  /* the frame's instances in submit order */
    int count;
    const gfx_mesh_slot *meshes;
    const float *palettes;              /* the frame's matrices when its rules keep them on the CPU; else NULL */
    const gfx_programs *programs;
    const gfx_shadow *shadow;           /* for gfx_shadow_pass_begin */
    gfx_frame_textures textures;
} gfx_frame_end;

/* The end's opening: refused (false, with a message) outside a frame or when the frame was begun under
 * other rules; else the frame is closed, the stats started, the GPU timer's frame opened, the shadow map
 * fitted (end->lighting.shadow->on says whether there is a shadow) and the passes' depth state set. */
bool gfx_frame_close(const gfx_frame_rules *rules, gfx_frame_end *end);
/* The picture's pass begins: the viewport cleared, the frame's textures bound, shadow map included. */
void gfx_frame_picture(const gfx_frame_end *end);
/* The end's close: the ground, the debug lines, the GPU timer's marks; end->stats become the frame's. */
void gfx_frame_finish(gfx_frame_end *end);

#endif
