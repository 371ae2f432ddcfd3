/* md5tool feet: how well a state keeps a character's feet planted. It drives one state of a character (a
 * blend space, usually) at constant ground velocities, speeds evenly spaced from 0 to a top speed in evenly
 * spaced directions of the character's own frame, the way the demo drives its player: the blend's parameters
 * and the state's rate parameter get the velocity, and the entity moves over the floor at it. Each step it
 * follows the feet in the world and measures how far each one drifts while it is planted; it also checks
 * that the weights of every blend layer sum to 1 and that nothing becomes NaN. With the foot lock (--lock on,
 * the default where characters.ini turns it on) each step's pose is the locked one, as the demo draws it,
 * and it also says what the lock did to the legs: knees bent past straight, the largest correction and its
 * largest change in a step. The measuring is here, apart
 * from the printing, so tests run the very same code.
 *
 * When a foot is planted: each clip of the state says so itself, by the engine's rule (anim_feet.h, the
 * same function that stores contacts with each clip at load): low, level and still on the floor that moves
 * under the clip at its ground speed. Blended, a foot is planted while every clip that carries weight (over 0.1%
 * of the body) has it planted at the time it plays: that is when a blend of poses is meant to hold it
 * still, so any movement then is sliding. A contact is such a stretch of steps; its drift is the diagonal
 * of the box its positions fill on the floor.
 * Knows nothing of SDL, GL or the demo's player: the animation comes from the engine's animator. */
#ifndef MARIONETTE_MD5TOOL_FEET_H
#define MARIONETTE_MD5TOOL_FEET_H

#include <stdbool.h>

#include "anim/animator.h"
#include "base/diag.h"

enum {
    FEET_MAX_FEET = 4,     /* joints followed (--feet) */
    FEET_MAX_SETS = 16,    /* parameters set with --set */
};

/* A clip counts towards a blended foot's plant when it carries more than this share of the body. */
#define FEET_PLANT_WEIGHT 0.001

/* What is measured, and how. feet_settings_for fills the defaults. */
typedef struct feet_settings {
    int state;                         /* the state measured, index into the machine's states */
    /* How the velocity reaches the machine: a 2D blend's two parameters get the velocity (x forward, y left,
     * m/s); a 1D blend's parameter, and the state's rate parameter (rate_from), get the speed. -1: none. */
    int velocity_parameters[2];
    int speed_parameters[2];
    bool two_dimensional;              /* the state plays a 2D blend: directions other than forward exist */
    int set_count;                     /* --set NAME=VALUE: parameters held at a value (the way into the state) */
    int set_parameters[FEET_MAX_SETS];
    float set_values[FEET_MAX_SETS];
    int foot_count;
    int feet[FEET_MAX_FEET];           /* joint indices (default: the legs the engine found, anim_feet.h) */
    double rate_hz;                    /* steps a second (default 60) */
    double settle_seconds;             /* at the velocity before measuring: fades end, the blend settles (2) */
    double measure_seconds;            /* measured (4) */
    bool lock;                         /* hold planted feet (anim_foot_lock.h; default: the character's
                                        * characters.ini foot_lock, what the demo does) */
} feet_settings;

/* Settings for state `state_name` (NULL: the start state) of the character, with the defaults above; the
 * feet are the character's legs' (anim_character.legs; foot_count 0 when it has none: name them yourself). False with a
 * message in error when the state is unknown. */
bool feet_settings_for(const anim_character *character, const char *state_name, feet_settings *out, diag *error);

/* Where each clip of the state plants each foot: per (clip of the library, foot) a flag per frame, found for
 * the clips the state plays (others: never planted). */
typedef struct feet_plants {
    int clip_count;
    int foot_count;
    unsigned char **planted; /* [clip * foot_count + foot]: frame_count flags, or NULL */
} feet_plants;

/* False when memory runs out. */
bool feet_plants_find(const anim_character *character, const feet_settings *settings, feet_plants *out);
void feet_plants_free(feet_plants *plants);
/* Clip `clip_index` (into the library) has foot `foot` planted at `time` seconds into it: the frames on
 * either side both do. */
bool feet_plants_at(const feet_plants *plants, const anim_character *character, int clip_index, int foot,
                    double time);

/* One case: a ground velocity held. */
typedef struct feet_case {
    double speed;              /* m/s */
    double direction;          /* radians in the character's frame: 0 forward, pi/2 left */
    bool reached_state;        /* the machine was in the state for the whole measurement */
    int contacts;              /* contacts of every foot seen while measuring (one cut short by the start or
                                * the end counts for what was seen of it) */
    double worst_drift;        /* metres: the largest drift of one contact */
    int worst_foot;            /* index into settings.feet of that contact, -1 when there was none */
    double worst_time;         /* seconds into the measurement that contact began */
    double worst_height;       /* metres: the farthest a planted foot was from its bind height */
    double weight_error;       /* the largest |sum - 1| of a blend layer's weights over every step */
    bool finite;               /* every joint of every pose and every weight was a finite number */
    /* What the foot lock did to the legs (all 0 without it): */
    int knee_flips;            /* steps in which a knee bent the other way than the animation had it (past
                                * straight) */
    double worst_correction;   /* metres: the farthest it moved an ankle from where the animation had it */
    double worst_correction_step; /* metres: the largest change of that correction from one step to the
                                * next, as locks engage and let go (a pop would be a whole correction) */
} feet_case;

/* Run one case on a new animator of the character. False when the animator cannot be made. */
bool feet_measure(const anim_character *character, const feet_settings *settings, const feet_plants *plants,
                  double speed, double direction, feet_case *out);

/* `md5tool feet CONFIG_DIR [--character NAME] [--state NAME] [--set NAME=VALUE]... [--speeds N]
 * [--directions N] [--top-speed M] [--rate HZ] [--seconds S] [--feet JOINT,JOINT] [--lock on|off]
 * [--max-drift MM] [--json]`. */
int command_feet(int argc, char **argv);

#endif
