/* body: one step of a walking body, the same for the player and every crowd member (the player is a body
 * whose wanted velocity comes from the keyboard and the camera, a member one whose wanted velocity comes
 * from its wandering). A step is three parts, so a caller may animate less often than it moves (the crowd's
 * level of detail) and update several animators together between them:
 *   1. body_move: the mover steps towards the wanted velocity (mover_step, or mover_step_facing while
 *      strafing) and the turn rate given to the animation follows the heading (mover_turn_rate_follow);
 *   2. body_tell: the animation is told what the body did: speed (the mover's ground speed after the step),
 *      grounded, strafe, forward and left (the velocity in the body's own frame, m/s, +left its left), turn
 *      (how far the wanted direction is from the heading, degrees, negative left; 0 standing or strafing)
 *      and turn_rate (degrees per second, positive left), each where the character's state machine has it;
 *   3. body_land, after the animator's update: the body moves as the states say (mover_blend: the mover's
 *      step times one less the clips' share plus the clips' root motion), stands on the ground
 *      (mover_settle), and the feet are locked against where it now stands (animator_lock_feet).
 * Knows nothing of SDL, keys, GL, the camera or the crowd's wandering. */
#ifndef MARIONETTE_BODY_H
#define MARIONETTE_BODY_H

#include <stdbool.h>

#include "anim/animator.h"
#include "base/diag.h"
#include "mover.h"

/* The state-machine parameters a body sets, found once per character (body_bind). */
typedef enum body_parameter {
    BODY_SPEED,
    BODY_GROUNDED,
    BODY_STRAFE,
    BODY_FORWARD,
    BODY_LEFT,
    BODY_TURN,
    BODY_TURN_RATE,
    BODY_PARAMETER_COUNT,
} body_parameter;

/* Handles of the body's parameters in character's state machine: speed and grounded are needed; strafe,
 * turn, turn_rate optional; forward and left needed where the machine has strafe (its blend is placed by them),
 * optional otherwise. Each one missing where needed, or of another type, goes to problems (may be NULL),
 * once (parameter_binding.h). */
void body_bind(const anim_character *character, state_machine_param handles[BODY_PARAMETER_COUNT], diag_list *problems);

/* What the body wants this step. */
typedef struct body_wish {
    float x, z;    /* the wanted velocity on the ground, m/s (world x and z) */
    bool strafe;   /* face `facing` while moving as wanted (only where the machine has strafe: body_can_strafe) */
    float facing;  /* radians, mover's convention */
} body_wish;

/* Whether the bound machine shows strafing (has the strafe parameter). */
bool body_can_strafe(const state_machine_param handles[BODY_PARAMETER_COUNT]);

/* Part 1: the mover steps (strafing only when the wish asks and the machine can show it); *turn_rate
 * follows. *before gets the mover as it was. */
void body_move(mover *body, const mover_params *params, const body_wish *wish, bool can_strafe, float dt,
               float *turn_rate, mover *before);

/* Part 2: the parameters from what the body did (before and after part 1) and what it wished. */
void body_tell(animator *animator, const state_machine_param handles[BODY_PARAMETER_COUNT], const mover *before,
               const mover *after, const body_wish *wish, bool can_strafe, float turn_rate);

/* Part 3: animation is the update's result, or NULL when the animator was not updated this step (the
 * crowd's level of detail: the clips' share of the move is then *share as last given, and nothing comes of
 * root motion); *share is kept up to date. lock_feet: lock the feet (animator_lock_feet over dt). */
void body_land(animator *animator, const mover *before, mover *body, const anim_update_result *animation,
               float *share, const ground *ground, bool lock_feet, float dt);

#endif
