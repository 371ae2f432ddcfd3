/* anim_clip: how the animation layer plays one clip: the baked clip itself plus the settings a user
 * gives it in config/clips.ini (loop, ground speed, sync group, root motion, events). Shared and
 * immutable like the clip; the config loader fills these, the controller reads them.
 * Knows nothing of ini files, SDL or GL. */
#ifndef MARIONETTE_ANIM_CLIP_H
#define MARIONETTE_ANIM_CLIP_H

#include <stdbool.h>

#include "../model/clip.h"

enum { ANIM_NAME_MAX = 64 };

/* A named event on a clip's timeline, fired when playback crosses it. Frames may be fractional
 * (footstep.R@10.5): time = frame / frame_rate. */
typedef struct anim_event_mark {
    float frame;
    char name[ANIM_NAME_MAX]; /* "footstep.L" */
} anim_event_mark;

typedef enum anim_root_mode {
    ANIM_ROOT_IN_PLACE,  /* the root's horizontal travel is stripped from the pose */
    ANIM_ROOT_MOTION,    /* the root's horizontal travel and turn are extracted and handed to the entity */
} anim_root_mode;

/* A change of axes from a file's convention to the engine's canonical MD5 space (Z up, facing +X, +Y to
 * the character's left): canonical axis i (0 forward, 1 left, 2 up) is file axis from[i] times sign[i].
 * Only whole axes are swapped and negated, so a point goes across and back exactly, bit for bit. All
 * zero (sign 0) means the file already is canonical. */
typedef struct anim_axes {
    signed char from[3]; /* 0..2: X, Y, Z of the file */
    signed char sign[3]; /* +1 or -1; 0: no change of axes at all */
} anim_axes;

/* The canonical axes: forward +X, left +Y, up +Z. */
static inline anim_axes anim_axes_canonical(void)
{
    return (anim_axes){.from = {0, 1, 2}, .sign = {1, 1, 1}};
}

/* A file-space vector (position, or the x, y, z of a quaternion: turning a rotation into other axes
 * turns its axis) into canonical space, and back. in and out may be the same. */
static inline void anim_axes_to_canonical(const anim_axes *axes, const float in[3], float out[3])
{
    float copy[3] = {in[0], in[1], in[2]};
    for (int i = 0; i < 3; ++i)
        out[i] = axes->sign[0] == 0 ? copy[i] : axes->sign[i] < 0 ? -copy[axes->from[i]] : copy[axes->from[i]];
}

static inline void anim_axes_from_canonical(const anim_axes *axes, const float in[3], float out[3])
{
    float copy[3] = {in[0], in[1], in[2]};
    for (int i = 0; i < 3; ++i) {
        if (axes->sign[0] == 0)
            out[i] = copy[i];
        else
            out[axes->from[i]] = axes->sign[i] < 0 ? -copy[i] : copy[i];
    }
}

typedef struct anim_clip {
    char name[ANIM_NAME_MAX];   /* logical name, the section in clips.ini: "walk" */
    const clip *clip;           /* baked data, owned by the asset cache */
    bool loop;                  /* cycle, or one-shot that holds its last frame */
    float ground_speed;         /* the speed the clip was made for, in the clip file's units per second (m/s
                                 * for files in metres); 0 when it does not travel. Times import_scale: m/s */
    int sync_group;             /* clips with the same group >= 0 keep their normalized phase; -1 none */
    anim_root_mode root_mode;
    int event_count;
    const anim_event_mark *events; /* event_count marks sorted by frame */
    /* The import of the character this entry belongs to (characters.ini scale or height, up, forward),
     * so the controller finds the floor in the clip's own axes and gives root motion in metres: */
    float import_scale;         /* file units to metres; 0 reads as 1 */
    anim_axes import_axes;      /* file axes to canonical; all zero: the file is canonical */
    /* clips.ini `additive`: clip holds deltas from a reference pose (build.h's build_additive_clip, baked
     * once and shared through the cache), not poses; it is played on an overlay channel, added on top of
     * what is below (anim_controller.h, "Additive"). */
    bool additive;
    /* When its character's feet (anim_character.legs) are planted, found from the data at load by
     * anim_feet_find_contacts: planted[foot * clip->frame_count + frame] is 1 or 0. NULL for a character
     * without feet, an additive clip or a clip that did not load. */
    const unsigned char *planted;
    /* Bit f set: foot f is planted at every frame (anim_feet_planted_always of planted), so a clip keeping
     * its own time in a blend can be asked without reading every frame's flag each step. */
    unsigned char planted_always;
} anim_clip;

/* ground_speed in m/s: times the character's scale. */
static inline float anim_clip_ground_speed_metres(const anim_clip *clip)
{
    return clip->import_scale > 0.0f ? clip->ground_speed * clip->import_scale : clip->ground_speed;
}

#endif
