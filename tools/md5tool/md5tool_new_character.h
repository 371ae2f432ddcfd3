/* md5tool new-character: a starter configuration (characters.ini, clips.ini, states.ini, demo.ini,
 * controls.ini) for a user's own .md5mesh and clips, so the demo plays it as the player and as the crowd
 * without edits. What it cannot know it guesses from the files (each clip's role from its file name, loops,
 * ground speeds, up and forward axes, scale, the overlay's branch) and marks every guess in the files it
 * writes. The measuring is here apart from the writing so tests run the very same code.
 * Knows nothing of SDL, GL or the demo's code: it writes text the demo reads. */
#ifndef MARIONETTE_MD5TOOL_NEW_CHARACTER_H
#define MARIONETTE_MD5TOOL_NEW_CHARACTER_H

#include <stdbool.h>
#include <stddef.h>

#include "model/clip.h"
#include "model/model.h"

/* What a clip is for, guessed from its file name (new_character_guess_role has the table). */
typedef enum new_character_role {
    NEW_CHARACTER_ROLE_UNKNOWN,
    NEW_CHARACTER_ROLE_IDLE,
    NEW_CHARACTER_ROLE_WALK,
    NEW_CHARACTER_ROLE_RUN,
    NEW_CHARACTER_ROLE_JUMP,
    NEW_CHARACTER_ROLE_TURN_LEFT,
    NEW_CHARACTER_ROLE_TURN_RIGHT,
    NEW_CHARACTER_ROLE_OVERLAY, /* an upper-body gesture over whatever the legs do */
    NEW_CHARACTER_ROLE_PAIN,    /* a one-shot reaction */
    NEW_CHARACTER_ROLE_DEATH,   /* a one-shot that holds its last frame */
    NEW_CHARACTER_ROLE_DEAD,    /* lying dead, after the death */
    NEW_CHARACTER_ROLE_WALK_BACK,    /* walking backwards, facing forward: the strafe blend's back */
    NEW_CHARACTER_ROLE_STRAFE_LEFT,  /* walking to its left, facing forward */
    NEW_CHARACTER_ROLE_STRAFE_RIGHT, /* walking to its right, facing forward */
    NEW_CHARACTER_ROLE_COUNT
} new_character_role;

/* The role of a clip from its file name: the name without folder and extension, lower-cased, with the
 * mesh's own file name taken off its front ("boneman_running" beside boneman.md5mesh reads "running",
 * so a character called "soldier" is not taken for a death by its "die"). The first row of this table
 * with a word found anywhere in the name wins:
 *   idle, stand, breath                     idle
 *   walk, forward                           walk
 *   run, sprint, jog                        run
 *   jump                                    jump
 *   turn + left (or _l, .l)                 turn_left;  turn + right (or _r, .r): turn_right
 *   wave, attack, gesture, shoot, punch, throw   overlay
 *   pain, hit, flinch                       pain
 *   death, dying, die                       death
 *   dead                                    dead
 *   backward, back                          walk_back (strafe blend)
 *   left; right (without turn)              strafe_left; strafe_right (strafe blend)
 * anything else (a turn without a side included) is unknown. mesh_path may be NULL. When several clips
 * get one role, the first in file-name order plays it, unless another is named exactly for the role
 * ("idle" beats "breathe"). */
new_character_role new_character_guess_role(const char *clip_path, const char *mesh_path);

/* The clip's name as the tool uses it: the file name without folder and extension, the mesh's file name
 * (and the separators after it) taken off its front unless nothing else is left. */
void new_character_clip_name(const char *clip_path, const char *mesh_path, char *out, size_t size);

/* "idle", "walk", ..., "unknown". */
const char *new_character_role_name(new_character_role role);

/* The body's axes and size, read from a pose: the first frame of a clip (as it plays: some files' bind
 * pose faces another way than their clips) or the bind pose. */
typedef struct new_character_body {
    int up_axis;            /* 0 X, 1 Y, 2 Z: away from the feet where they lie at one end of Y or Z
                             * (up_from_feet), else the longer of the mesh's Y and Z extents */
    float up_sign;          /* +1 or -1: -1 when the feet are at the top end of that extent */
    int forward_axis;       /* perpendicular to up_axis */
    float forward_sign;
    bool forward_from_feet; /* true: toes found ahead of ankles; false: the default +X (or +Y when X is up) */
    bool up_given, forward_given; /* from --up, --forward */
    bool up_from_feet;            /* up is where the feet (or the leaves) are not: up_from_feet in measure.c */
    bool up_from_humanoid;        /* the one up along which the bind pose maps as a humanoid (retarget.h) */
    bool forward_from_head;       /* no toes to tell: the head lies ahead of the root along the ground */
    bool forward_from_humanoid;   /* neither: the way the humanoid's bind pose faces (its toes, retarget.h) */
    float height;           /* file units: the skinned mesh's extent along up in that pose */
    float scale;            /* metres per file unit making height 1.8 m, within 0.0001..10000 */
    int foot_count;         /* 0 or 2 */
    int foot_root[2];       /* each foot's top joint (an ankle or foot) */
    bool feet_by_name;      /* true: joints named foot, ankle, toe or heel; false: the lowest leaves */
    bool from_clip;         /* true: measured on the reference clip's first frame; false: the bind pose */
    int joint_count;
    int *foot_of;           /* per joint: 0 or 1 for the foot it belongs to, -1 for none */
} new_character_body;

/* Axes the user gave (new-character --up, --forward); an axis of -1 is guessed. */
typedef struct new_character_axes {
    int up_axis, forward_axis; /* 0 X, 1 Y, 2 Z, or -1 */
    float up_sign, forward_sign;
} new_character_axes;

/* Study the model in the first frame of `reference` (a clip that fits it, best the idle; NULL or a clip
 * that does not fit: the bind pose). given (may be NULL) fixes the up or forward axis instead of guessing
 * it; the height and scale are then measured along the given up. False only when memory runs out. Free
 * with new_character_body_free. */
bool new_character_study_body(const model *m, const clip *reference, const new_character_axes *given,
                              new_character_body *out);
void new_character_body_free(new_character_body *body);

typedef enum new_character_speed_method {
    NEW_CHARACTER_SPEED_NONE,          /* neither the root nor a planted foot travels */
    NEW_CHARACTER_SPEED_ROOT_MOTION,   /* the root travels: its horizontal travel / the clip's duration */
    NEW_CHARACTER_SPEED_PLANTED_FOOT,  /* in place: the median speed of the planted foot sliding back */
} new_character_speed_method;

typedef struct new_character_speed {
    new_character_speed_method method;
    float speed;            /* file units per second along the ground */
    float root_travel;      /* file units the root travels from the first frame to the last */
    int samples;            /* planted-foot frames measured */
    int foot_down_at_start; /* the foot lower 15% into the clip (0 or 1), -1 without feet: for sync groups */
    float direction[3];     /* the way it travels, along the ground, unit (file axes): the root's travel, or
                             * against the planted foot's slide; zero without a speed */
} new_character_speed;

/* Ground speed of a clip that fits m's skeleton. The root travels when it moves horizontally more than
 * 10% of the body's height from the first frame to the last; otherwise the planted foot (the lower foot
 * while it is within 4% of the height of the lowest any foot gets) is measured frame to frame. False
 * when memory runs out or the clip does not fit. */
bool new_character_measure_speed(const model *m, const new_character_body *body, const clip *c,
                                 new_character_speed *out);

/* The joint whose branch an upper-body overlay should drive: the deepest joint above no foot whose branch
 * holds 60% of the overlay's rotation away from `reference` (the idle's first frame; NULL: the overlay's
 * own first frame), moved up to where its branch leaves the body (the clavicle rather than the upper
 * arm), and to the top of a shoulder/clavicle/upperarm/humerus/arm-named chain. -1 when the clip does
 * not fit or memory runs out. */
int new_character_overlay_root(const model *m, const new_character_body *body, const clip *overlay,
                               const clip *reference);

/* `md5tool new-character NAME MESH ANIM... --out DIR [--force]`. */
int command_new_character(int argc, char **argv);

#endif
