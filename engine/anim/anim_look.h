/* anim_look: look-at for one entity over time: which joints turn (found in the skeleton by name and
 * hierarchy, or named in characters.ini), and per entity the weight that fades in and out and the direction
 * that follows a moving target, feeding pose_aim after the animation's pose and before the palette.
 * Knows nothing of ini files, cameras, players or crowds: the game gives a target in object space. */
#ifndef MARIONETTE_ANIM_LOOK_H
#define MARIONETTE_ANIM_LOOK_H

#include <stdbool.h>

#include "../model/model.h"
#include "../pose/pose_aim.h"

/* A character's look-at, shared by its entities (anim_character.look). chain.joint_count 0: it has none.
 * speed (per second): the weight fades in or out over 1 / speed seconds (eased at both ends), and the
 * direction follows a moving target with a lag of about 1 / speed seconds. */
typedef struct anim_look_settings {
    pose_aim_chain chain;
    float speed;
} anim_look_settings;

/* The defaults characters.ini documents (look_yaw, look_pitch, look_speed). */
#define ANIM_LOOK_DEFAULT_YAW_DEGREES 70.0f
#define ANIM_LOOK_DEFAULT_PITCH_DEGREES 30.0f
#define ANIM_LOOK_DEFAULT_SPEED 4.0f

/* The chain by name and hierarchy, head first, into joints: the head is the first joint whose name contains
 * "head" (any case) and none of whose ancestors does; then its ancestors while their names contain "neck",
 * "nek", "spine", "chest" or "torso", up to POSE_AIM_JOINTS_MAX joints in all. 0 when no joint is a head. */
int anim_look_find_chain(const skeleton *s, int joints[POSE_AIM_JOINTS_MAX]);

/* The shares characters.ini gives when look_shares is not written: joint k of n counted from the lowest
 * (k = 1..n) takes k / (1 + 2 + ... + n), so the head most and the lowest spine joint least (4 joints:
 * head 0.4, neck 0.3, spine 0.2 and 0.1). shares[0] is the head's. */
void anim_look_default_shares(int joint_count, float shares[POSE_AIM_JOINTS_MAX]);

/* Per entity: 36 bytes. */
typedef struct anim_look_state {
    float target[3];    /* object space, as the game last set it */
    float direction[3]; /* unit, object space: where the head is turned towards, following the target */
    float distance;     /* from the head to the target, when last seen */
    float fade;         /* 0..1, linear in time; the weight is its eased value */
    bool has_target;    /* the game wants the entity to look at target */
} anim_look_state;

/* Set (or with target NULL, drop) what the entity looks at, in its object space (the pose's: file units and
 * axes). A non-finite target is dropped. */
void anim_look_set_target(anim_look_state *state, const float *target);

/* The weight pose_aim turns with now, 0..1. */
float anim_look_weight(const anim_look_state *state);

/* One step of dt seconds (>= 0) on object, the entity's object-space pose as the animation left it (the
 * character's parents and joint_count): the fade rises towards 1 while the target is within the chain's
 * limits (the sum of its joints' yaw and pitch limits, from the animated pose) and falls towards 0 when it
 * is outside them or dropped; the direction follows a target within the limits and holds while the weight
 * falls; then pose_aim turns the chain. Nothing is done, and nothing costs, when the weight is 0 and there is
 * no target. Allocates nothing. */
void anim_look_step(anim_look_state *state, const anim_look_settings *settings, const int *parents, int joint_count,
                    joint_pose *object, float dt);

#endif
