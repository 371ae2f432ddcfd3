/* player: see player.h. */
#include "player.h"

#include <math.h>
#include <stdlib.h>

#include "body.h"
#include "look.h"
#include "parameter_binding.h"

/* The triggers the player pulls, in the order of player_needs; the body's parameters are body.h's. */
typedef enum player_parameter {
    PLAYER_JUMP,
    PLAYER_WAVE,
    PLAYER_HIT,
    PLAYER_DIE,
    PLAYER_PARAMETER_COUNT,
} player_parameter;

/* Only characters made for them (md5tool new-character) declare hit and die; for the others the key just
 * does nothing, which is no mistake. */
static const parameter_binding_need player_needs[PLAYER_PARAMETER_COUNT] = {
    [PLAYER_JUMP] = {"jump", STATE_MACHINE_TRIGGER, false},
    [PLAYER_WAVE] = {"wave", STATE_MACHINE_TRIGGER, false},
    [PLAYER_HIT] = {"hit", STATE_MACHINE_TRIGGER, true},
    [PLAYER_DIE] = {"die", STATE_MACHINE_TRIGGER, true},
};

struct player {
    player_params params;
    mover mover;
    animator *animator;
    state_machine_param body[BODY_PARAMETER_COUNT];         /* in the animator's character's machine */
    state_machine_param parameters[PLAYER_PARAMETER_COUNT]; /* the triggers, the same */
    float turn_rate; /* degrees per second, as the animation was last given it (mover_turn_rate_follow) */
    const ground *ground; /* what the feet stand on (player_set_ground); NULL: flat */
};

/* Find the handles in the animator's (new) character; called on create and on every rebind. */
static void player_bind_parameters(player *player, diag_list *problems)
{
    const anim_character *character = animator_character(player->animator);
    body_bind(character, player->body, problems);
    parameter_binding_resolve(character, player_needs, PLAYER_PARAMETER_COUNT, player->parameters, problems);
}

player_params player_default_params(void)
{
    return (player_params){
        .walk_speed = 1.4f,
        .run_speed = 3.5f,
        .mover = mover_default_params(),
    };
}

static bool usable_speed(float speed)
{
    return isfinite(speed) && speed >= 0.0f;
}

static bool usable_rate(float rate)
{
    return isfinite(rate) && rate > 0.0f;
}

static bool params_usable(const player_params *p)
{
    return usable_speed(p->walk_speed) && usable_speed(p->run_speed) && usable_rate(p->mover.acceleration) &&
           usable_rate(p->mover.deceleration) && usable_rate(p->mover.turn_rate) &&
           isfinite(p->mover.turn_slowdown) && p->mover.turn_slowdown >= 0.0f && p->mover.turn_slowdown <= 1.0f;
}

player *player_create(const anim_character *character, const player_params *params, diag_list *problems)
{
    player_params chosen = params ? *params : player_default_params();
    if (!params_usable(&chosen))
        return NULL;
    player *created = calloc(1, sizeof *created);
    if (!created)
        return NULL;
    created->params = chosen;
    created->animator = animator_create(character);
    if (!created->animator) {
        free(created);
        return NULL;
    }
    player_bind_parameters(created, problems);
    return created;
}

void player_destroy(player *player)
{
    if (!player)
        return;
    animator_destroy(player->animator);
    free(player);
}

bool player_place(player *player, float x, float z, float heading)
{
    if (!player || !isfinite(x) || !isfinite(z) || !isfinite(heading))
        return false;
    player->mover = (mover){.x = x, .z = z, .heading = mover_turn_between(0.0f, heading)};
    mover_settle(&player->mover, player->ground);
    player->turn_rate = 0.0f;
    animator_unlock_feet(player->animator); /* placed elsewhere: no foot stays behind */
    return true;
}

void player_set_ground(player *player, const ground *ground)
{
    if (!player)
        return;
    player->ground = ground;
    mover_settle(&player->mover, ground);
}

/* -1..1, with anything not finite read as no input: a broken gamepad axis must not send the player off. */
static float axis(float value)
{
    return isfinite(value) ? glm_clamp(value, -1.0f, 1.0f) : 0.0f;
}

bool player_step(player *player, const player_intent *intent, float camera_yaw_radians, float dt,
                 animator_update_result *result)
{
    if (!player || !isfinite(dt) || dt < 0.0f || !isfinite(camera_yaw_radians))
        return false;
    player_intent wanted = intent ? *intent : (player_intent){0};
    float forward = axis(wanted.move_forward), right = axis(wanted.move_right);
    /* Capping the input's length, not each axis, is what keeps a diagonal from being faster. */
    float amount = sqrtf(forward * forward + right * right);
    if (amount > 1.0f) {
        forward /= amount;
        right /= amount;
    }
    float top_speed = wanted.run ? player->params.run_speed : player->params.walk_speed;
    /* The camera's ground forward is (cos yaw, -sin yaw) in (x, z); its right, a quarter turn clockwise seen
     * from above, is (sin yaw, cos yaw). */
    float forward_x = cosf(camera_yaw_radians), forward_z = -sinf(camera_yaw_radians);
    float right_x = -forward_z, right_z = forward_x;
    body_wish wish = {.x = (forward * forward_x + right * right_x) * top_speed,
                      .z = (forward * forward_z + right * right_z) * top_speed,
                      .strafe = wanted.strafe,
                      .facing = camera_yaw_radians};
    /* Strafing needs a machine that can show it; without one the key does nothing. */
    bool can_strafe = body_can_strafe(player->body);
    mover before;
    body_move(&player->mover, &player->params.mover, &wish, can_strafe, dt, &player->turn_rate, &before);
    animator *animator = player->animator;
    body_tell(animator, player->body, &before, &player->mover, &wish, can_strafe, player->turn_rate);
    /* A trigger the character lacks was reported when it was bound; pressing its key does nothing. */
    const state_machine_param *parameters = player->parameters;
    if (wanted.jump)
        animator_param_set_trigger(animator, parameters[PLAYER_JUMP]);
    if (wanted.wave)
        animator_param_set_trigger(animator, parameters[PLAYER_WAVE]);
    if (wanted.hit)
        animator_param_set_trigger(animator, parameters[PLAYER_HIT]);
    if (wanted.die)
        animator_param_set_trigger(animator, parameters[PLAYER_DIE]);
    animator_update_result local;
    if (!result)
        result = &local;
    if (!animator_update(animator, dt, result)) {
        player->mover = before;
        return false;
    }
    float share = 0.0f;
    body_land(animator, &before, &player->mover, &result->animation, &share, player->ground, true, dt);
    return true;
}

bool player_rebind(player *player, const anim_character *character, diag_list *problems)
{
    if (!player || !animator_rebind(player->animator, character, NULL))
        return false;
    player_bind_parameters(player, problems);
    return true;
}

bool player_set_params(player *player, const player_params *params)
{
    if (!player || !params || !params_usable(params))
        return false;
    player->params = *params;
    return true;
}

player_params player_get_params(const player *player)
{
    return player ? player->params : player_default_params();
}

void player_look_at(player *player, const float *target)
{
    if (!player)
        return;
    float object[3];
    mat4 placement;
    if (target) {
        mover_world(&player->mover, placement);
        look_world_to_object(animator_character(player->animator), placement, target, object);
    }
    animator_look_at(player->animator, target ? object : NULL);
}

void player_world_matrix(const player *player, mat4 out)
{
    if (!player) {
        glm_mat4_identity(out);
        return;
    }
    mover_world(&player->mover, out);
}

void player_position(const player *player, vec3 out)
{
    out[0] = player ? player->mover.x : 0.0f;
    out[1] = player ? player->mover.y : 0.0f;
    out[2] = player ? player->mover.z : 0.0f;
}

float player_heading(const player *player)
{
    return player ? player->mover.heading : 0.0f;
}

float player_speed(const player *player)
{
    return player ? player->mover.speed : 0.0f;
}

const char *player_state_name(const player *player)
{
    return player ? animator_state_name(player->animator) : "";
}

const animator *player_animator(const player *player)
{
    return player ? player->animator : NULL;
}

void player_capture_stages(player *player, const animator_stages *stages)
{
    if (player)
        animator_capture_stages(player->animator, stages);
}

anim_placement player_placement(const player *player)
{
    return mover_placement(&player->mover);
}

const ground *player_ground(const player *player)
{
    return player ? player->ground : NULL;
}
