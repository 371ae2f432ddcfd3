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
 * Foot placement (foot IK, characters.ini foot_ik) is part of the same stage, not a stage after it: the lock
 * and the placement both decide where one ankle goes, and the leg is solved once for both (two solves in a
 * row would each bend the knee, and the second would undo the first's height). Per foot:
 *   - strength: 1 while the foot is planted (the lock's rule: ANIM_FOOT_LOCK_PLANTED_SHARE of the body
 *     plants it) or is to be planted ANIM_FOOT_IK_FADE_SECONDS ahead (the shares looked ahead, so the fade
 *     in ends as the foot lands), 0 while it swings, moving between them over ANIM_FOOT_IK_FADE_SECONDS
 *     (smoothstep), and falling to 0 the same way when foot_ik is turned off, so nothing pops.
 *   - height: the ankle is put as far from the ground under it (ground_at at the ankle's held point, not
 *     under the body) as the animation has it above flat ground (its height over the entity's position),
 *     measured along the ground's normal: height / normal.y above the ground there. On a slope the foot
 *     then neither sinks in nor floats, and on a step each foot stands on its own tread.
 *   - slope: the ankle's animated rotation is turned by the shortest arc from up to the ground's normal
 *     (as far as the strength), so the sole lies on the slope; the knee keeps bending in the plane the
 *     animation gave it (pose_ik_two_bone_object).
 * The pelvis is the deepest joint both legs' hip joints descend from (one leg: the hip's parent; ours:
 * `hips`). It and its branch (the spine, arms and head with it) are lowered, never raised: toward the
 * largest drop a foot being placed (strength above 0) asks for at full strength (how far its target is
 * below where the animation has it, or more where the leg at ANIM_FOOT_IK_STRETCH of its length would not
 * reach it from the hip), moving at most ANIM_FOOT_IK_PELVIS_SPEED, and at once at least as far as a foot
 * needs to reach the target it has now (its strength's share of the placement). The drop kept
 * is 4 bytes of state; with it the stage keeps 44 bytes an entity.
 * A foot on an IK target (a detached ankle, pose_ik_chain) is solved on every step while the lock or the
 * placement is on, even with nothing to correct: its leg is bent for the shin to end at the foot, which
 * blending clips does not keep.
 * Where: the stage runs after the animation step and after the game has moved the entity for that step,
 * since it needs where the entity stands now (anim_placement, the mover's position and heading) to hold a
 * foot in the world. It is a pure function of its inputs and a small caller-owned state (20 bytes a foot
 * and the pelvis's 4), so the animator keeps it per entity (animator_lock_feet) and the same code serves
 * md5tool feet and tests.
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
/* Foot placement: the fade of a foot's strength, the pelvis's speed (metres a second its drop follows
 * what the feet ask), and the most of its length a leg is stretched to before the pelvis drops. */
#define ANIM_FOOT_IK_FADE_SECONDS 0.15f
#define ANIM_FOOT_IK_PELVIS_SPEED 1.0f
#define ANIM_FOOT_IK_STRETCH 0.995f

/* Where an entity stands in the world, as the game's mover has it. World space is GL's (Y up, metres, as
 * ground.h); the entity's canonical frame (Z up, +X forward, +Y left, metres) stands at position, turned
 * heading radians about up (0 faces +X; positive turns counter-clockwise seen from above, toward -Z). */
typedef struct anim_placement {
    float position[3];
    float heading;
} anim_placement;

/* The entity's whole world transform: a point of its object pose (the file's units and axes) times out is
 * the point in the world (Y up, metres), as the foot lock places feet and the renderer draws: the import's
 * axes turned to canonical, scaled to metres, turned by heading, moved to position. scale 0 means 1; axes
 * all zero mean none. Its upper 3x3 is a rotation times the scale. */
void anim_placement_world(const anim_placement *placement, const anim_axes *axes, float scale, mat4 out);

/* Per character (characters.ini foot_lock, foot_lock_release, foot_lock_reach, foot_ik). */
typedef struct anim_foot_lock_settings {
    bool enabled;
    bool ik;               /* foot placement on the ground (foot IK); off unless the character asks */
    float release_seconds; /* the fade out when a foot lifts */
    float reach;           /* metres: the largest correction held */
} anim_foot_lock_settings;

static inline anim_foot_lock_settings anim_foot_lock_defaults(void)
{
    return (anim_foot_lock_settings){.enabled = true, .ik = false, .release_seconds = ANIM_FOOT_LOCK_RELEASE_DEFAULT,
                                     .reach = ANIM_FOOT_LOCK_REACH_DEFAULT};
}

/* One foot's lock and placement, 20 bytes. All zero: free. */
typedef struct anim_foot_lock_foot {
    float at[2];       /* world x, z the ankle is held over */
    float weight;      /* 0..1: how much of the correction shows (1 while held, falling while released) */
    float ik;          /* 0..1: the placement's strength, before its smoothstep */
    uint8_t held;      /* planted and within reach: the weight stays 1 */
    uint8_t waiting;   /* let go for reach: no new lock until the fade is over */
    uint8_t unused[2];
} anim_foot_lock_foot;

typedef struct anim_foot_lock_state {
    anim_foot_lock_foot feet[ANIM_FEET_MAX];
    float pelvis_drop; /* metres the pelvis is lowered now, >= 0 */
} anim_foot_lock_state;

/* The share (0..1) of the body channel that plants each of foot_count feet now (see the rule above): a
 * layer playing a clip counts its weight when the clip plants the foot at its time; a blend layer counts
 * its weight times the share of its clips in phase that plant it at the blend's phase, or, when none of
 * those carries weight, the share of its clips keeping their own time that plant it at every frame (an
 * idle). Snapshot layers count as lifted. */
void anim_foot_lock_planted_shares(const anim_controller *controller, int foot_count, float *shares);
/* The same, and into ahead (may be NULL) the same `seconds` later: each layer's time moved on at its speed
 * (a blend's phase at its clips' mean cycle), for a placement that is to be at full strength when the foot
 * lands. One pass over the layers for both. */
void anim_foot_lock_planted_shares_ahead(const anim_controller *controller, int foot_count, float seconds,
                                         float *shares, float *ahead);

/* What the stage needs besides its state and the pose. */
typedef struct anim_foot_lock_input {
    const skeleton *skeleton;
    const pose_ik_chain *legs;   /* leg_count chains; the ankle is the foot (anim_feet_find_legs) */
    const pose_ik_leg *prepared; /* the same legs made ready for the skeleton (pose_ik_leg_prepare), or
                                  * NULL; a leg that is not (all zero) is bent the general way */
    int leg_count;               /* 0..ANIM_FEET_MAX */
    const float *planted_shares; /* leg_count shares, as anim_foot_lock_planted_shares gives them */
    const float *planted_soon;   /* the same ANIM_FOOT_IK_FADE_SECONDS ahead, or NULL (settings.ik only) */
    bool pelvis_known;           /* pelvis is anim_foot_lock_pelvis of these legs, found once (the
                                  * character's); false: found here on every call */
    int pelvis;
    float scale;                 /* the character's import: file units to metres */
    anim_axes axes;              /* and file axes to canonical */
    anim_placement placement;    /* where the entity stands after this step */
    const ground *ground;        /* NULL: flat */
    float dt;                    /* seconds since the last call, >= 0 */
    anim_foot_lock_settings settings;
} anim_foot_lock_input;

/* The pelvis joint by the rule above: -1 with no legs or legs out of range. */
int anim_foot_lock_pelvis(const skeleton *skeleton, const pose_ik_chain *legs, int leg_count);

/* Lock, hold and release each foot, and place it on the ground (settings.ik), correcting object (the pose
 * made this step, file space) in place. Call
 * once per animation step, after it. A disabled lock clears its part of the state. False (nothing
 * changed) on misuse: NULL pointers, leg_count out of range, a non-finite placement or dt < 0. Placement
 * off with nothing left to fade, and the lock off, change nothing. Allocates nothing. */
bool anim_foot_lock_apply(const anim_foot_lock_input *input, anim_foot_lock_state *state, joint_pose *object);

#endif
