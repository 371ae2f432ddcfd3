/* body: see body.h. */
#include "body.h"

#include <math.h>

#include <cglm/cglm.h>

#include "parameter_binding.h"

static const parameter_binding_need body_needs[BODY_PARAMETER_COUNT] = {
    [BODY_SPEED] = {"speed", STATE_MACHINE_NUMBER, false},
    [BODY_GROUNDED] = {"grounded", STATE_MACHINE_BOOL, false},
    [BODY_STRAFE] = {"strafe", STATE_MACHINE_BOOL, true},
    [BODY_FORWARD] = {"forward", STATE_MACHINE_NUMBER, true},
    [BODY_LEFT] = {"left", STATE_MACHINE_NUMBER, true},
    [BODY_TURN] = {"turn", STATE_MACHINE_NUMBER, true},
    [BODY_TURN_RATE] = {"turn_rate", STATE_MACHINE_NUMBER, true},
};

/* A machine that strafes needs the velocity to place its blend: without `strafe` nothing strafes (no
 * mistake: not every character does), but with it, forward and left missing is one. */
static const parameter_binding_need body_strafe_needs[] = {
    {"forward", STATE_MACHINE_NUMBER, false},
    {"left", STATE_MACHINE_NUMBER, false},
};
_Static_assert(BODY_LEFT == BODY_FORWARD + 1, "body_strafe_needs fills forward and left in this order");

void body_bind(const anim_character *character, state_machine_param handles[BODY_PARAMETER_COUNT], diag_list *problems)
{
    parameter_binding_resolve(character, body_needs, BODY_PARAMETER_COUNT, handles, problems);
    if (state_machine_param_valid(handles[BODY_STRAFE]))
        parameter_binding_resolve(character, body_strafe_needs, 2, &handles[BODY_FORWARD], problems);
}

bool body_can_strafe(const state_machine_param handles[BODY_PARAMETER_COUNT])
{
    return state_machine_param_valid(handles[BODY_STRAFE]);
}

void body_move(mover *body, const mover_params *params, const body_wish *wish, bool can_strafe, float dt,
               float *turn_rate, mover *before)
{
    *before = *body;
    if (wish->strafe && can_strafe)
        mover_step_facing(body, params, wish->x, wish->z, wish->facing, dt);
    else
        mover_step(body, params, wish->x, wish->z, dt);
    *turn_rate = mover_turn_rate_follow(*turn_rate, before->heading, body->heading, dt);
}

void body_tell(animator *animator, const state_machine_param handles[BODY_PARAMETER_COUNT], const mover *before,
               const mover *after, const body_wish *wish, bool can_strafe, float turn_rate)
{
    bool strafe = wish->strafe && can_strafe;
    /* The animation follows what the body did, not what was asked: while accelerating, braking or slowed
     * by a U-turn, walk and run play at the rate of the actual ground speed. */
    animator_param_set_number(animator, handles[BODY_SPEED], after->speed);
    animator_param_set_bool(animator, handles[BODY_GROUNDED], true);
    animator_param_set_bool(animator, handles[BODY_STRAFE], strafe);
    animator_param_set_number(animator, handles[BODY_FORWARD], after->speed * cosf(after->travel));
    animator_param_set_number(animator, handles[BODY_LEFT], after->speed * sinf(after->travel));
    /* A state machine with turns in place takes them from a standstill; a strafe faces its own way. */
    bool moving_wanted = !strafe && (wish->x != 0.0f || wish->z != 0.0f);
    float turn = moving_wanted ? -glm_deg(mover_turn_between(before->heading, mover_heading_of(wish->x, wish->z)))
                               : 0.0f;
    animator_param_set_number(animator, handles[BODY_TURN], turn);
    animator_param_set_number(animator, handles[BODY_TURN_RATE], turn_rate);
}

void body_land(animator *animator, const mover *before, mover *body, const anim_update_result *animation,
               float *share, const ground *ground, bool lock_feet, float dt)
{
    mover_root_motion root = {.share = *share};
    if (animation) {
        root = (mover_root_motion){animation->translation[0], animation->translation[1], animation->yaw,
                                   animation->root_motion_share};
        *share = animation->root_motion_share;
    }
    /* Who moves the body: the mover, the clips of states with moved_by = clip, or both across a fade. */
    *body = mover_blend(before, body, &root, !animator_moved_by_clip(animator));
    mover_settle(body, ground);
    /* Planted feet stay where they planted (characters.ini foot_lock), held against where the body now is. */
    if (lock_feet) {
        anim_placement placement = mover_placement(body);
        animator_lock_feet(animator, &placement, ground, dt);
    }
}
