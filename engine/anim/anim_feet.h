/* anim_feet: where a character's feet are and when a clip plants them, found from the data once at load
 * (config loading stores the result with each clip, md5tool feet measures with the same function), for
 * foot locking and foot IK. A foot is planted at a frame of a clip when its joint is
 *   - low: at most ANIM_FEET_PLANT_HEIGHT above the lowest it gets in the clip (the clip's floor: a run
 *     may never bring an ankle down to its standing height),
 *   - level: tilted at most ANIM_FEET_PLANT_TILT degrees from the bind pose (turning about up is no tilt),
 *   - still on the clip's floor: moving under ANIM_FEET_PLANT_SPEED over the frames either side (across the
 *     seam of a cycle), relative to a floor that moves under an in-place clip at its ground speed (clips.ini
 *     speed) in the direction its feet move while low and level (backwards for a walk, right for a walk to
 *     the left); a clip with no speed, or with root motion, has a still floor.
 * All in metres and canonical axes, through the character's import (scale, up).
 * Which joints are feet (anim_feet_find_legs): the joints named foot.L and foot.R when the skeleton has both;
 * otherwise the first two joints, in skeleton order, whose name contains "foot" or "ankle" (any case), that
 * have at least two ancestors and no ancestor that is itself such a joint (a toe named "foot_toe" under a
 * "foot" is not another foot). A foot's leg is its parent (the knee) and grandparent (the hip).
 * Knows nothing of ini files, entities, SDL or GL. */
#ifndef MARIONETTE_ANIM_FEET_H
#define MARIONETTE_ANIM_FEET_H

#include <stdbool.h>

#include "../model/model.h"
#include "../pose/pose_ik.h"
#include "anim_clip.h"

enum { ANIM_FEET_MAX = 2 };

#define ANIM_FEET_PLANT_HEIGHT 0.005f /* metres above the foot's lowest in the clip */
#define ANIM_FEET_PLANT_TILT 1.0f     /* degrees from the bind pose's orientation */
#define ANIM_FEET_PLANT_SPEED 0.05f   /* m/s over the clip's floor */

/* Is chain a leg the foot lock and foot IK bend: the knee the hip's child, and the ankle the knee's child or
 * a foot that follows an IK target: outside the hip's branch (pose_ik_chain) and, in the bind pose, beyond
 * the knee as seen from the hip (the knee bent less than a right angle), so a joint of another limb (a hand)
 * is no foot. False for NULL or joints out of range. */
bool anim_feet_leg_fits(const skeleton *s, const pose_ik_chain *chain);

/* The skeleton's legs by the rule above: 0, 1 or 2 of them, written to legs (hip, knee, ankle = the foot). */
int anim_feet_find_legs(const skeleton *s, pose_ik_chain legs[ANIM_FEET_MAX]);

/* Which frames of entry's clip plant each of foot_count joints (feet[i], joints of s, the skeleton the clip
 * fits): planted[i * frame_count + frame] is 1 or 0. Load-time work: it allocates a pose and frees it. False
 * on misuse (a joint out of range, a clip that does not fit s's joint count) or when memory runs out. */
bool anim_feet_find_contacts(const anim_clip *entry, const skeleton *s, const int *feet, int foot_count,
                             unsigned char *planted);

/* Is foot `foot` planted `time` seconds into the clip (played looping or once as entry->loop says): the
 * frames on either side both are. planted as anim_feet_find_contacts writes it; false for NULL. */
bool anim_feet_planted_at(const anim_clip *entry, const unsigned char *planted, int foot, double time);

/* The same for every foot at once: bit f set when foot f (of foot_count, at most ANIM_FEET_MAX) is planted
 * `time` seconds into the clip; 0 for NULL. What a caller asking about each foot every step wants: the
 * frames are found once. */
unsigned anim_feet_planted_mask_at(const anim_clip *entry, const unsigned char *planted, int foot_count, double time);

/* Bit f set when foot f (of foot_count, at most ANIM_FEET_MAX) is planted at every one of frame_count frames
 * of planted (as anim_feet_find_contacts writes it); 0 for NULL or no frames. */
unsigned char anim_feet_planted_always(const unsigned char *planted, int frame_count, int foot_count);

#endif
