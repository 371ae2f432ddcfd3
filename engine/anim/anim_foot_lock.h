/* anim_foot_lock: planted feet stay where they planted. Blending clips whose feet plant at different
 * moments of the cycle (a walk forward and a walk to the left in a strafe blend) slides the blended foot over
 * the ground, and no playback rate mends that; so after the pose is made, each foot that the playing clips
 * plant is held at the world point where it planted, and its leg bent to reach it (pose_ik_two_bone_object).
 *
 * The rule, per foot:
 *   - planted: at least ANIM_FOOT_LOCK_PLANTED_SHARE (0.9) of the body plants it, weighing what the controller
 *     plays on the body channel: each layer's crossfade weight times, for a blend space, each clip's weight
 *     (anim_foot_lock_planted_shares; the plants are the clips' own, anim_clip.planted). In a blend the
 *     clips in phase set the pace: while any of them carries weight, a clip keeping its own time (the
 *     idle in a locomotion blend) is left out and the others' weights are taken as the whole blend's, for
 *     an idle's feet stand still under a body that walks. Overlays are not counted: they are masked to the
 *     upper body or add small leans.
 *   - it locks when it becomes planted, at the ankle's place then (so nothing moves as it locks), and is held
 *     there while planted: horizontally at that point, vertically at the height above the ground it had
 *     when animated (ground_at under the lock point, minus ground_at under the animated ankle), so on flat
 *     ground it keeps the animation's height and lifts with it. The foot keeps the animated orientation.
 *   - it lets go when the foot lifts: the correction fades out over release_seconds (smoothstep), so the
 *     foot catches up with the animation without a pop. A foot that plants again while fading locks where
 *     it is shown, not where the animation has it.
 *   - the correction shown is never more than reach metres: past it a held foot lets go with the same
 *     fade (a turn on the spot twisting the legs), and past twice reach any lock lets go at once (a
 *     teleport, a respawn); a foot let go for reach locks again only once its fade is over.
 * Where: the stage runs after the animation step and after the game has moved the entity for that step,
 * since it needs where the entity stands now (anim_placement, the mover's position and heading) to hold a
 * foot in the world. It is a pure function of its inputs and a small caller-owned state (16 bytes a foot),
 * so the animator keeps it per entity (animator_lock_feet) and the same code serves md5tool feet and tests.
 * Knows nothing of ini files, the state machine, the game's mover, SDL or GL. */
#ifndef MARIONETTE_ANIM_FOOT_LOCK_H
#define MARIONETTE_ANIM_FOOT_LOCK_H

#include <stdbool.h>
#include <stdint.h>

#include "../model/joint_pose.h"
#include "../model/model.h"
#include "../pose/pose_ik.h"
#include "../world/ground.h"
#include "anim_clip.h"
#include "anim_controller.h"
#include "anim_feet.h"

/* A foot is planted when this share of the body's weight plants it. Not a half: held while half the body
 * already swings it forward, a foot is pulled back against the animation and the leg stretches (in the
 * shipped strafe blend, locks from a share of 0.5 moved ankles up to 27 cm from the animation, from 0.9 up
 * to 8.5 cm, both keeping every contact within 2 mm). */
#define ANIM_FOOT_LOCK_PLANTED_SHARE 0.9f
/* characters.ini's defaults (foot_lock_release, foot_lock_reach) and ranges (checked at load). */
#define ANIM_FOOT_LOCK_RELEASE_DEFAULT 0.1f /* seconds */
#define ANIM_FOOT_LOCK_RELEASE_MIN 0.01f
#define ANIM_FOOT_LOCK_RELEASE_MAX 1.0f
#define ANIM_FOOT_LOCK_REACH_DEFAULT 0.25f /* metres */
#define ANIM_FOOT_LOCK_REACH_MIN 0.01f
#define ANIM_FOOT_LOCK_REACH_MAX 2.0f

/* Where an entity stands in the world, as the game's mover has it. World space is GL's (Y up, metres, as
 * ground.h); the entity's canonical frame (Z up, +X forward, +Y left, metres) stands at position, turned
 * heading radians about up (0 faces +X; positive turns counter-clockwise seen from above, toward -Z). */
typedef struct anim_placement {
    float position[3];
    float heading;
} anim_placement;

/* Per character (characters.ini foot_lock, foot_lock_release, foot_lock_reach). */
typedef struct anim_foot_lock_settings {
    bool enabled;
    float release_seconds; /* the fade out when a foot lifts */
    float reach;           /* metres: the largest correction held */
} anim_foot_lock_settings;

static inline anim_foot_lock_settings anim_foot_lock_defaults(void)
{
    return (anim_foot_lock_settings){.enabled = true, .release_seconds = ANIM_FOOT_LOCK_RELEASE_DEFAULT,
                                     .reach = ANIM_FOOT_LOCK_REACH_DEFAULT};
}

/* One foot's lock, 16 bytes. All zero: free. */
typedef struct anim_foot_lock_foot {
    float at[2];       /* world x, z the ankle is held over */
    float weight;      /* 0..1: how much of the correction shows (1 while held, falling while released) */
    uint8_t held;      /* planted and within reach: the weight stays 1 */
    uint8_t waiting;   /* let go for reach: no new lock until the fade is over */
    uint8_t unused[2];
} anim_foot_lock_foot;

typedef struct anim_foot_lock_state {
    anim_foot_lock_foot feet[ANIM_FEET_MAX];
} anim_foot_lock_state;

_Static_assert(sizeof(anim_foot_lock_state) == 32, "the foot lock's per-entity bytes, as animator.h states");

/* The share (0..1) of the body channel that plants each of foot_count feet now (see the rule above): a
 * layer playing a clip counts its weight when the clip plants the foot at its time; a blend layer counts
 * its weight times the share of its clips in phase that plant it at the blend's phase, or, when none of
 * those carries weight, the share of its clips keeping their own time that plant it at every frame (an
 * idle). Snapshot layers count as lifted. */
void anim_foot_lock_planted_shares(const anim_controller *controller, int foot_count, float *shares);

/* What the stage needs besides its state and the pose. */
typedef struct anim_foot_lock_input {
    const skeleton *skeleton;
    const pose_ik_chain *legs;   /* leg_count chains; the ankle is the foot (anim_feet_find_legs) */
    int leg_count;               /* 0..ANIM_FEET_MAX */
    const float *planted_shares; /* leg_count shares, as anim_foot_lock_planted_shares gives them */
    float scale;                 /* the character's import: file units to metres */
    anim_axes axes;              /* and file axes to canonical */
    anim_placement placement;    /* where the entity stands after this step */
    const ground *ground;        /* NULL: flat */
    float dt;                    /* seconds since the last call, >= 0 */
    anim_foot_lock_settings settings;
} anim_foot_lock_input;

/* Lock, hold and release each foot, correcting object (the pose made this step, file space) in place. Call
 * once per animation step, after it. Disabled settings clear the state and change nothing. False (nothing
 * changed) on misuse: NULL pointers, leg_count out of range, a non-finite placement or dt < 0. Allocates
 * nothing. */
bool anim_foot_lock_apply(const anim_foot_lock_input *input, anim_foot_lock_state *state, joint_pose *object);

#endif
