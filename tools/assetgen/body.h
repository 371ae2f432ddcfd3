/* body: the generated character meshes on the rig (rig.h), written as .md5mesh text. Each body is a set
 * of closed, smooth-shaded parts (every edge shared by exactly two triangles), weighted to 1-4 joints
 * with smooth falloff across the elbows and knees (2 weights) and the shoulders and hips, where limb and
 * torso blend (3 or 4: clavicle, upper arm, spine.03, neck; hips and both thighs at the crotch).
 * Deterministic: same bytes every run. */
#ifndef MARIONETTE_ASSETGEN_BODY_H
#define MARIONETTE_ASSETGEN_BODY_H

#include <stdbool.h>
#include <stdio.h>

typedef enum body_kind {
    BODY_MANNEQUIN, /* slim artist's mannequin: smooth ellipsoidal segments, ball joints */
    BODY_ROBOT,     /* broad, heavy robot: boxy armour, wide shoulders, thick limbs */
    BODY_KIND_COUNT
} body_kind;

/* "mannequin", "robot": the file stem used for the mesh and its texture. */
const char *body_name(body_kind kind);

/* Write the .md5mesh text; `shader` is the texture path written in the mesh block (relative to the mesh's
 * folder, e.g. "../textures/robot.tga"). */
bool body_write_mesh(FILE *out, body_kind kind, const char *shader);

#endif
