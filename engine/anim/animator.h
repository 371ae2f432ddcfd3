/* animator: one animated entity, the glue between its state machine and its animation controller. Each
 * update steps the state machine (telling it whether the playing clips have finished), turns a fired
 * transition into crossfades on the controller, then advances the controller. It also moves an entity
 * over to a reloaded configuration. The character (model, clips, state machine) is shared and immutable;
 * per entity there is only the state machine instance, the controller and a few bytes of bookkeeping.
 * Knows nothing of SDL, GL or ini files: anim_config reads the files, the game sets the parameters. */
#ifndef MARIONETTE_ANIMATOR_H
#define MARIONETTE_ANIMATOR_H

#include <stdbool.h>
#include <stddef.h>

#include "anim_character.h"
#include "../world/ground.h"
#include "anim_controller.h"
#include "anim_foot_lock.h"
#include "state_machine.h"

/* How a state's clips map onto the controller's channels:
 *   channel 0                 the state's clip (full body); a transition crossfades to the new state's clip
 *                             with the transition's fade and the state's speed scale, played as moving the
 *                             entity when the state says moved_by = clip (its root motion and share then
 *                             come back in the update's result, anim_update_result). A state whose rate
 *                             follows a parameter (rate_from) has its speed refreshed every update; the
 *                             speed applies to every layer of the body channel, so a walk fading out under
 *                             a run plays at the run's rate (the sync group keeps their feet in step).
 *   channel 1 or 2            the state's overlay, masked to overlay_root's branch. A transition between two
 *                             states with the same overlay clip and root leaves it playing (a wave carries on
 *                             from standing to walking); any other overlay change fades the old one out on
 *                             its channel while the new one fades in on the other, so masks never switch
 *                             under a visible overlay.
 * A one-shot overlay that has finished is faded out by the animator (the controller holds its last frame
 * for ever), over the transition's fade if the state machine leaves the state on overlay_end, otherwise
 * over the fade it came in with (ANIMATOR_OVERLAY_FADE_OUT_SECONDS if it came in with a cut). An additive
 * one-shot overlay (a clip or blend of additive clips) is not: its last frame is a difference added to a
 * body that keeps moving, and it holds it while the state lasts (a lean grown to its full angle). The state
 * machine keeps seeing overlay_end while the state lasts. */
enum { ANIMATOR_BODY_CHANNEL = 0 };
#define ANIMATOR_OVERLAY_FADE_OUT_SECONDS 0.2f

typedef struct animator animator;

/* A new entity of the character, in its machine's start state with every parameter at its default, the
 * start state's clip (and overlay) already playing at time 0. The character must outlive the animator,
 * or until animator_rebind moves it to another one. NULL when the character has no state machine, its
 * clips do not fit its skeleton, or memory runs out. Allocates here, never in animator_update. */
animator *animator_create(const anim_character *character);
void animator_destroy(animator *animator);
/* The object poses of count animators into poses (NULL for a NULL animator), in order: for a loop that then
 * reads them all (a crowd's palettes). Each animator keeps its pose behind two pointers in an allocation of
 * its own; walking them here asks the processor for the next ones' lines as it goes, so the pointers and
 * the poses arrive together instead of one wait each. Changes nothing. */
void animator_object_poses(const animator *const *animators, int count, const joint_pose **poses);
/* Per-entity memory: the animator and its controller. */
size_t animator_bytes(const animator *animator);
/* The same by part: the animator's own record (state machine values, overlay, look-at, foot lock) and its
 * controller's parts (anim_controller_memory_parts); they add up to animator_bytes. */
typedef struct animator_memory {
    size_t record;
    anim_controller_memory controller;
} animator_memory;
animator_memory animator_memory_parts(const animator *animator);

/* Parameters by name, as state_machine_set_*: false (nothing changes) for an unknown name, a parameter
 * of another type, or a non-finite number, so a typo shows up instead of silently doing nothing. */
bool animator_set_number(animator *animator, const char *name, float value);
bool animator_set_bool(animator *animator, const char *name, bool value);
bool animator_set_trigger(animator *animator, const char *name);
bool animator_get(const animator *animator, const char *name, float *value);
/* Parameters through handles, for what sets them every step: find a handle once (again after every
 * animator_rebind, as indices can change) and set it in constant time, as state_machine_param_set_*. */
state_machine_param animator_param_find(const animator *animator, const char *name,
                                        state_machine_parameter_type type);
bool animator_param_set_number(animator *animator, state_machine_param param, float value);
bool animator_param_set_bool(animator *animator, state_machine_param param, bool value);
bool animator_param_set_trigger(animator *animator, state_machine_param param);

/* Scales every update's dt, for the state machine (time in state, trigger ages) and the controller alike:
 * 1 normal, 0.25 slow motion, 0 paused. Negative or non-finite values are ignored. */
void animator_set_time_scale(animator *animator, float time_scale);

/* Whether the additive overlays (leans, breath) are added to the pose: anim_controller_set_additive. */
void animator_set_additive(animator *animator, bool on);

typedef struct animator_update_result {
    /* What the state machine decided this step: fired, from, to, transition, fade, and the current
     * state's clip, speed scale and overlay. */
    state_machine_result decision;
    /* What the controller did: root motion, events (in order), finished flags. */
    anim_update_result animation;
} animator_update_result;

/* Advance by dt seconds (>= 0): step the state machine, apply a fired transition, advance the controller
 * and write its poses. result may be NULL. False on bad arguments (nothing changes). Allocates nothing. */
bool animator_update(animator *animator, double dt, animator_update_result *result);

/* animator_update(a, dt_a, result_a) and animator_update(b, dt_b, result_b), bit for bit, with the two poses
 * turned to object space together (pose_to_object_pair: one in each half of 256-bit registers where the
 * processor has AVX2) when their skeletons have the same hierarchy of up to ANIMATOR_PAIR_JOINTS joints;
 * otherwise one update after the other. a and b must be different animators. Returns which were updated:
 * bit 0 a, bit 1 b (each as animator_update would return). For a crowd, which updates its members two by
 * two. */
enum { ANIMATOR_PAIR_JOINTS = 64 };
unsigned animator_update_pair(animator *a, double dt_a, animator_update_result *result_a, animator *b, double dt_b,
                              animator_update_result *result_b);

/* animator_update for each of count animators (0 to ANIMATOR_GROUP_MAX, all different), bit for bit, stage
 * by stage across them: every state machine steps, then every controller updates, then the poses turn to
 * object space four by four where neighbours in the list share a hierarchy of up to ANIMATOR_PAIR_JOINTS
 * joints (pose_to_object_quad), what is left two by two (as animator_update_pair) and alone, then every
 * look-at. A stage's code and tables stay in the caches across
 * the group. results may be NULL, or count entries. Returns which were updated: bit k for animators[k]. For
 * a crowd, which updates its members a group at a time: `ahead` (ahead_count of them, NULL for none) are the
 * animators it goes on with, in order; each sits in an allocation of its own, so the next
 * ANIMATOR_GROUP_MAX of them are asked for while this group works (their state and the pose their update
 * writes) and the ANIMATOR_GROUP_MAX after those their first line, so that they are in the caches when their
 * turn comes. Nothing of them is read beyond that or changed. */
enum { ANIMATOR_GROUP_MAX = 16 };
unsigned animator_update_group(animator *const *animators, const double *dt, animator_update_result *results, int count,
                               const animator *const *ahead, int ahead_count);

/* Look-at (anim_look.h): from the next update on, the entity turns its head (and the chain its character
 * gives, characters.ini look_*) towards target, a point in its object space (the pose's: file units and
 * axes), fading in while the target is within the chain's limits and out when it leaves them; NULL drops
 * the target and the head fades back to the animation. Set it before every update the target moves. The
 * turn is applied to the object pose after the animation and before the palette; it costs nothing while
 * the entity has no target and its weight has fallen to 0. */
void animator_look_at(animator *animator, const float *target);
/* The weight the head turns with now, 0..1. */
float animator_look_weight(const animator *animator);
/* The target animator_look_at last set (object space), for a debug view: false while it has none. */
bool animator_look_target(const animator *animator, float target[3]);
/* Foot locking and placement (anim_foot_lock.h): hold the feet the body plants where they planted and put
 * them on the ground under them (lowering the pelvis so they reach), bending the legs of the pose the last
 * update made. Call it once after each animator_update, when the game has moved the entity
 * for that step: placement is where it stands now, dt the update's (the time scale applies, as to the
 * update). Does nothing (and lets every foot go) when the character's foot_lock and foot_ik are off (foot_ik
 * fades out first). The animator keeps the stage's state, 44 bytes. False on bad arguments. Allocates nothing. */
bool animator_lock_feet(animator *animator, const anim_placement *placement, const ground *ground, float dt);
/* Let every foot go at once, with no fade: for an entity that stops calling animator_lock_feet (a crowd
 * member leaving the level of detail that locks), so that a later lock does not start from stale points. */
void animator_unlock_feet(animator *animator);
const anim_foot_lock_state *animator_foot_lock(const animator *animator); /* for a HUD, a debug view, tests */

/* The object pose after each stage of a step, for a trace (the demo's --trace, md5tool trace) and tests: each
 * stage adds one thing to the one before, so a reader sees what each changed. */
typedef enum animator_stage {
    ANIMATOR_STAGE_BLEND,     /* the state's clips blended (crossfades, blend spaces, replacing overlays
                               * masked in): the additive layers not yet added */
    ANIMATOR_STAGE_ADDITIVE,  /* + the additive layers (lean, breathe): the controller's pose */
    ANIMATOR_STAGE_LOOK,      /* + look-at */
    ANIMATOR_STAGE_FOOT_LOCK, /* + the foot lock alone: planted feet held where they planted, legs bent to
                               * hold them; nothing placed on the ground, the pelvis where it was */
    ANIMATOR_STAGE_FOOT_IK,   /* + the feet placed on the ground and the pelvis lowered: the final pose, what
                               * is drawn (the foot lock and foot IK are one solve; this is that solve) */
    ANIMATOR_STAGE_COUNT
} animator_stage;

/* Stage names as the trace writes them: "blend", "additive", "look", "foot_lock", "foot_ik". */
const char *animator_stage_name(animator_stage stage);

/* Buffers of the skeleton's joint_count joints (the caller's, kept until capture stops), one per stage, NULL
 * for a stage not wanted. While set, animator_update (and animator_update_pair) writes the blend, additive
 * and look stages, and copies the look stage into both foot stages; animator_lock_feet then writes the foot
 * stages (the foot lock stage by a second solve on copies with placement off, so it costs a solve more
 * only while captured). A member updated without the foot stage keeps its look pose there. */
typedef struct animator_stages {
    joint_pose *poses[ANIMATOR_STAGE_COUNT];
} animator_stages;

/* Capture from the next update on (stages must outlive the capture), or stop (NULL). Allocates nothing. */
void animator_capture_stages(animator *animator, const animator_stages *stages);

/* Inspection, for the game, a HUD, the trace tool and tests. */
const anim_character *animator_character(const animator *animator);
const anim_controller *animator_controller(const animator *animator); /* poses, layers, weights */
const state_machine_instance *animator_instance(const animator *animator); /* state, time in it, values */
int animator_state(const animator *animator);                              /* index into machine.states */
const char *animator_state_name(const animator *animator);
int animator_overlay_channel(const animator *animator); /* the channel the current overlay uses (1 or 2) */
/* The current state lets its clip move the entity (states.ini moved_by = clip): the game should not steer. */
bool animator_moved_by_clip(const animator *animator);

/* Hot reload: move the entity to `character`, usually the same-named character of a reloaded config,
 * before the old config is freed.
 *   - The common case changes nothing on screen: when the state still exists with the same clip and
 *     overlay (by name, and the overlay's branch), the skeleton's hierarchy is unchanged and every clip
 *     the entity is playing is still in the library, the controller keeps all its layers, times and fades
 *     (a crossfade in flight carries on) and is only pointed at the new library's clips.
 *   - Otherwise the entity gets a new controller (allocated here; a reload is rare). When its state still
 *     exists (by name) it stays in it with its time in state, and the state's clip goes on from the same
 *     normalized phase (half-way through the old walk is half-way through the new one, even if the state
 *     now names another clip); so does the overlay when the state still has one with the same clip name;
 *     a finished overlay stays finished. Only the top layer of each channel is carried over: a crossfade
 *     in flight completes at once. Loops completed restart from 0 (event cycle numbers count from there).
 *   - When the state is gone, it starts over in the new start state at time 0, as animator_create does.
 *   - Parameters keep their values where the new machine has one of the same name and type; the time
 *     scale is kept.
 * *kept_state (may be NULL) says whether the state was kept. False when the new character has no state
 * machine or memory runs out: then nothing changes and the animator still uses the old character. */
bool animator_rebind(animator *animator, const anim_character *character, bool *kept_state);

#endif
