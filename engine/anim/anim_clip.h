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

typedef struct anim_clip {
    char name[ANIM_NAME_MAX];   /* logical name, the section in clips.ini: "walk" */
    const clip *clip;           /* baked data, owned by the asset cache */
    bool loop;                  /* cycle, or one-shot that holds its last frame */
    float ground_speed;         /* m/s the clip was made for; 0 when it does not travel */
    int sync_group;             /* clips with the same group >= 0 keep their normalized phase; -1 none */
    anim_root_mode root_mode;
    int event_count;
    const anim_event_mark *events; /* event_count marks sorted by frame */
} anim_clip;

#endif
