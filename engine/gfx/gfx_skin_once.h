/* gfx_skin_once: skinning each vertex once a frame for both passes (gfx_frame_desc.skin_once). The
 * groups (mesh, level) whose picture level uses most of the mesh's vertices are run through the skinning
 * vertex shader once, with transform feedback capturing the object-space positions and normals into the
 * skinned-vertex buffer (gfx_cpu_skin.h's); the shadow pass and the picture then fetch them (the
 * CPU-skinned programs in their captured layout) instead of skinning again. Coarser groups, whose levels
 * use a fraction of the vertices, skin in each pass as usual. Owns which groups are captured this frame
 * (gfx_skin_once); gfx.c holds it and says when to capture. Calls gfx_draw (uniforms, texture units). */
#ifndef MARIONETTE_GFX_SKIN_ONCE_H
#define MARIONETTE_GFX_SKIN_ONCE_H

#include "gfx_cpu_skin.h"
#include "gfx_draw.h"
#include "gfx_internal.h"

typedef struct gfx_skin_once {
    /* Per (mesh, level) group, where its captured vertices start in the skinned-vertex buffer (-1: skinned
     * in the vertex shader by each pass); group_count entries. */
    int *group_captured_first;
    int group_count;
    int captured_vertices;       /* this frame */
} gfx_skin_once;

/* What a capture reads and where it writes. */
typedef struct gfx_skin_once_frame {
    const gfx_queue *queue;           /* sorted and uploaded */
    const gfx_mesh_slot *meshes;
    gfx_skinned_vertices *skinned;    /* the buffer captured into (grown to the capture) */
    const gfx_program *skinning;      /* GFX_PROGRAM_SKINNED, linked to capture its outputs */
    const gfx_lighting *lighting;
    const gfx_frame_textures *textures;
    vec4 *view_projection;            /* the picture's (a mat4) */
} gfx_skin_once_frame;

/* group_count groups, none captured; false when memory runs out. */
bool gfx_skin_once_setup(gfx_skin_once *once, int group_count);
void gfx_skin_once_shutdown(gfx_skin_once *once);
/* A frame that skins nothing once: every group skins in each pass. */
void gfx_skin_once_none(gfx_skin_once *once);
/* After the instances are sorted and uploaded, before the shadow pass: choose the groups, make room and
 * capture. Returns the vertices captured (0: none, every group skins in each pass). */
int gfx_skin_once_capture(gfx_skin_once *once, const gfx_skin_once_frame *frame);

#endif
