/* anim_blend: a blend space as the animation layer plays it: clips placed at points of a parameter space
 * (1D: a line, 2D: a plane), shared and immutable like the clips. At a point the clips play together,
 * weighted by blend_space's weights (neighbours on a line; gradient bands on a plane). The clips of the
 * blend's sync group play at one normalized phase, so a walk and a run in one blend keep their feet in
 * step at every speed; a looping clip outside that group (an idle's breathing) keeps its own time, so it
 * does not race when the blend's cycle is a walk's second rather than its own six. The
 * controller plays a blend wherever it plays a clip (anim_controller_play_blend); states.ini's [blend NAME]
 * sections make them (config/states.ini documents the keys).
 * Knows nothing of ini files, the state machine, SDL or GL. */
#ifndef MARIONETTE_ANIM_BLEND_H
#define MARIONETTE_ANIM_BLEND_H

#include <stdbool.h>

#include "anim_clip.h"
#include "blend_space.h"

enum { ANIM_BLEND_MAX_CLIPS = BLEND_SPACE_MAX_POINTS };

/* What anim_blend_prepare works out from the rest of a blend once, for the functions below that every
 * entity runs every step (each several times): they read it instead of following each clip's pointers and
 * copying the points again. */
typedef struct anim_blend_derived {
    int point_count;                         /* blend_space's points: the clips' and the rest's */
    int rest_index;                          /* where the rest is among them, or -1 */
    float points[ANIM_BLEND_MAX_CLIPS][2];   /* the clips' points with the rest in its place (1D: sorted) */
    float xs[ANIM_BLEND_MAX_CLIPS];          /* their x, as blend_space_1d_weights takes them */
    double durations[ANIM_BLEND_MAX_CLIPS];  /* each clip's cycle, or its run to its last frame (seconds) */
    double travel[ANIM_BLEND_MAX_CLIPS][2];  /* each clip's stride per unit of weight: ground speed x cycle
                                              * along its point's direction (0 for a clip out of phase or
                                              * still) */
    unsigned in_phase;                       /* bit i: anim_blend_clip_in_phase(blend, i) */
} anim_blend_derived;

typedef struct anim_blend {
    char name[ANIM_NAME_MAX];   /* the section in states.ini: [blend locomotion] -> "locomotion" */
    int dimensions;             /* 1 or 2 */
    int count;                  /* clips, 1..ANIM_BLEND_MAX_CLIPS */
    const anim_clip *clips[ANIM_BLEND_MAX_CLIPS];
    /* Where each clip sits (y is 0 in 1D); 1D points are sorted by x. For ground-speed matching a clip's
     * point is also its direction of travel (anim_blend_ground_speed): place travelling clips at their
     * velocities (forward, left) in m/s. */
    float points[ANIM_BLEND_MAX_CLIPS][2];
    /* The state-machine parameters that give the point (x, then y; -1 for y in 1D). The controller does
     * not read them: the animator does, every step. */
    int parameters[2];
    bool loop;                  /* its clips all loop (a cycle), or are all one-shots */
    bool additive;              /* its clips are all additive (then it plays only as an overlay) */
    /* An additive blend's rest: a point of the space that holds no clip and adds nothing (an aim offset's
     * or a lean's centre). It takes a weight like a clip's point, so the clips' weights sum to 1 minus
     * its weight, and at the rest nothing is sampled or added at all. Needs count + 1 points to be valid
     * (count <= ANIM_BLEND_MAX_CLIPS - 1). */
    bool has_rest;
    float rest[2];
    int sync_group;             /* the sync group its looping clips share, for phase matching with other
                                 * layers; -1 when they share none */
    /* Set by anim_blend_prepare; a blend made field by field has prepared false and the functions below
     * work the same out as they go, to the same bits. A change to any field above after preparing needs
     * anim_blend_prepare again. */
    bool prepared;
    anim_blend_derived derived;
} anim_blend;

/* Whether a blend can be played: a known dimension, 1..ANIM_BLEND_MAX_CLIPS clips with clip data, points
 * valid for blend_space (1D sorted and distinct, 2D no two closer than 1e-6), finite, and loop and
 * additive agreeing with every clip. */
bool anim_blend_valid(const anim_blend *blend);

/* Work out blend->derived from the other fields and set prepared, for a valid blend (anim_blend_valid);
 * an invalid one is left unprepared. The config loader prepares every blend it reads; its clips must
 * not change afterwards (they are loaded before the blends that name them). */
void anim_blend_prepare(anim_blend *blend);

/* The weight of each clip at point (x, y; y unused in 1D): >= 0, summing to 1 (to 1 minus the rest's
 * weight when the blend has a rest), continuous in the point; a clip's point gives that clip alone, the
 * rest no clip. A non-finite coordinate reads as 0. */
void anim_blend_weights(const anim_blend *blend, const float point[2], float weights[ANIM_BLEND_MAX_CLIPS]);

/* The clip with the largest weight (the first of equals). */
int anim_blend_heaviest(const anim_blend *blend, const float weights[ANIM_BLEND_MAX_CLIPS]);

/* Whether clip i plays at the blend's normalized phase: every clip of a one-shot blend or of a blend whose
 * clips share no sync group, and otherwise the clips of its sync group. The others keep their own time. */
bool anim_blend_clip_in_phase(const anim_blend *blend, int i);
/* The same for every clip at once: bit i set when clip i is in phase. */
unsigned anim_blend_clips_in_phase(const anim_blend *blend);

/* Seconds per cycle of the blend at these weights: the weighted mean of the cycles of its clips in phase
 * (one-shots: their runs to the last frame), or of all its clips when those have no weight (at a rest:
 * their plain mean, so a blend at its rest keeps its clock). A clip in
 * phase plays at its duration / this times its authored speed. */
double anim_blend_duration(const anim_blend *blend, const float weights[ANIM_BLEND_MAX_CLIPS]);

/* The speed (m/s) at which the feet of the blended pose move over the ground when played at rate 1: each
 * clip in phase covers its stride (ground speed in m/s x its cycle) in the direction of its point, the
 * blended stride is the weighted vector sum and takes anim_blend_duration. Playing at rate v / this keeps
 * feet from sliding at ground speed v (states.ini rate_from). 0 when nothing of the blend travels. */
float anim_blend_ground_speed(const anim_blend *blend, const float weights[ANIM_BLEND_MAX_CLIPS]);

#endif
