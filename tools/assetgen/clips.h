/* clips: the generated clip library for the rig (rig.h), written as .md5anim text. Deterministic.
 * All in-place clips keep the root at the origin; walk_root_motion moves the root forward (+X). */
#ifndef MARIONETTE_ASSETGEN_CLIPS_H
#define MARIONETTE_ASSETGEN_CLIPS_H

#include <stdbool.h>
#include <stdio.h>

typedef struct clip_recipe {
    const char *name;      /* file stem: "walk" -> walk.md5anim */
    bool cyclic;           /* loops (idle, walk, run, turns) or plays once (jump, wave?, celebrate) */
    double ground_speed;   /* m/s the clip is made for (0 for in-place clips that do not travel) */
    int frame_rate;        /* 24 or 30 */
} clip_recipe;

/* The library, in a fixed order. */
int clips_count(void);
const clip_recipe *clips_recipe(int index);

/* Write clip `index` as .md5anim text. */
bool clips_write(FILE *out, int index);

#endif
