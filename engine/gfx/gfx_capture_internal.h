/* gfx_capture_internal: the skinning capture check's work (gfx_capture.h), on the parts of the renderer it
 * borrows outside frames: gfx.c's gfx_capture_skinning and gfx_capture_dual_quaternion_skinning hand them
 * to gfx_capture_run. Calls gfx_mesh (the slot), gfx_palette (staging and buffer) and gfx_draw (uniforms,
 * texture units). */
#ifndef MARIONETTE_GFX_CAPTURE_INTERNAL_H
#define MARIONETTE_GFX_CAPTURE_INTERNAL_H

#include "gfx_capture.h"
#include "gfx_draw.h"
#include "gfx_internal.h"
#include "gfx_mesh.h"
#include "gfx_palette.h"
#include "gfx_program.h"

typedef struct gfx_capture_parts {
    const gfx_meshes *meshes;
    bool in_frame;                      /* a capture inside a frame would overwrite its palettes: refused */
    gfx_palettes *palettes;             /* the palette goes through the frame's staging and buffer */
    gfx_queue *queue;                   /* and one identity instance through its instance buffer */
    const gfx_program *skinning;        /* GFX_PROGRAM_SKINNED, linked to capture its outputs */
    const gfx_lighting *lighting;       /* without a shadow */
    const gfx_frame_textures *textures;
    vec4 *view_projection;              /* a mat4; the capture is in object space, so any */
} gfx_capture_parts;

/* Either kind of palette: `matrices` matrices' room of floats at `palette`, skinned as `skinning` says;
 * see gfx_capture.h. */
bool gfx_capture_run(const gfx_capture_parts *parts, gfx_mesh mesh, int mesh_index, const void *palette,
                     int joint_count, int matrices, pose_skinning skinning, float (*positions)[3],
                     float (*normals)[3], float (*tangents)[4], diag *err);

#endif
