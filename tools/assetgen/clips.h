/* clips: the generated clip library for the rig (rig.h), written as .md5anim text. Deterministic: the
 * same bytes on every run. Cyclic clips follow the Doom 3 loop convention (their last frame repeats the
 * first). In-place clips keep the root at the origin; walk_root_motion moves the root forward (+X).
 * Locomotion cycles of one gait (walk, walk_left, walk_right, walk_back; run, run_left, ...) share the
 * cycle length and the phase of every foot plant, so a blend between them keeps the feet in step.
 * Additive sources (lean_left, lean_right, breathe, flinch): frame 0 is exactly the bind pose, the
 * reference their difference is taken against; they move nothing below the spine.
 * Knows nothing of the engine: the tests read what it writes through the engine's parser. */
#ifndef MARIONETTE_ASSETGEN_CLIPS_H
#define MARIONETTE_ASSETGEN_CLIPS_H

#include <stdbool.h>
#include <stdio.h>

typedef struct clip_recipe {
    const char *name;    /* file stem: "walk" -> walk.md5anim */
    bool cyclic;         /* loops (idle, walk, run, walk_root_motion) or plays once (the others) */
    bool root_motion;    /* the root travels along `direction` at ground_speed; otherwise it stays put */
    double ground_speed; /* m/s the clip is made for (0 for clips that do not travel) */
    int frame_rate;      /* 24 or 30 */
    int frame_count;     /* frames written; (frame_count - 1) / frame_rate seconds is one cycle of a
                          * cyclic clip (its last frame repeats the first) or the whole of a one-shot */
    double direction[2]; /* unit vector in the character's frame (x forward, y left) it travels along:
                          * {1, 0} walk, {0, 1} walk_left, {0, -1} walk_right, {-1, 0} walk_back;
                          * {1, 0} for clips that do not travel */
} clip_recipe;

/* The library, in a fixed order. */
int clips_count(void);
const clip_recipe *clips_recipe(int index);

/* Write clip `index` as .md5anim text. False if index is out of range or writing failed. */
bool clips_write(FILE *out, int index);

/* Where the feet are meant to be planted, for tests and for a game that wants to sync footsteps.
 * A plant is a stretch of time in [0, duration] during which one foot is flat on the floor (sole at
 * z = 0) and does not move in the world. The world is clip space, except in in-place clips with a
 * ground speed (walk, run, walk_left, ...), whose world slides under the character: a planted foot's
 * clip-space position plus ground_speed * time * direction stays put. */
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
