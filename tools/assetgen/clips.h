/* clips: the generated clip library for the rig (rig.h), written as .md5anim text. Deterministic: the
 * same bytes on every run. Cyclic clips follow the Doom 3 loop convention (their last frame repeats the
 * first). In-place clips keep the root at the origin; walk_root_motion moves the root forward (+X).
 * Knows nothing of the engine: the tests read what it writes through the engine's parser. */
#ifndef MARIONETTE_ASSETGEN_CLIPS_H
#define MARIONETTE_ASSETGEN_CLIPS_H

#include <stdbool.h>
#include <stdio.h>

typedef struct clip_recipe {
    const char *name;    /* file stem: "walk" -> walk.md5anim */
    bool cyclic;         /* loops (idle, walk, run, walk_root_motion) or plays once (the others) */
    bool root_motion;    /* the root travels +X at ground_speed; otherwise it stays at the origin */
    double ground_speed; /* m/s the clip is made for (0 for clips that do not travel) */
    int frame_rate;      /* 24 or 30 */
    int frame_count;     /* frames written; (frame_count - 1) / frame_rate seconds is one cycle of a
                          * cyclic clip (its last frame repeats the first) or the whole of a one-shot */
} clip_recipe;

/* The library, in a fixed order. */
int clips_count(void);
const clip_recipe *clips_recipe(int index);

/* Write clip `index` as .md5anim text. False if index is out of range or writing failed. */
bool clips_write(FILE *out, int index);

/* Where the feet are meant to be planted, for tests and for a game that wants to sync footsteps.
 * A plant is a stretch of time in [0, duration] during which one foot is flat on the floor (sole at
 * z = 0) and does not move in the world. The world is clip space, except in in-place clips with a
 * ground speed (walk, run), whose world slides by ground_speed * time along +X: a planted foot's
 * clip-space position plus that distance stays put. */
enum { CLIPS_LEFT, CLIPS_RIGHT };
enum { CLIPS_MAX_PLANTS = 8 };

typedef struct clips_plant {
    int side;     /* CLIPS_LEFT or CLIPS_RIGHT */
    double begin; /* seconds */
    double end;
} clips_plant;

/* Fills out with clip `index`'s plants in time order of their beginnings; returns how many (0 for an
 * index out of range or a clip that never plants its feet, like wave, whose legs stay in bind pose). */
int clips_plants(int index, clips_plant out[CLIPS_MAX_PLANTS]);

#endif
