/* player: the character the keyboard drives. It turns an intent (move relative to the camera, run, jump,
 * wave) into a wanted velocity for its mover, then tells its animator what actually happened (the ground
 * speed the mover reached), so walk and run play at the rate that keeps planted feet still.
 * Knows nothing of SDL, keys, GL or the camera module: the game maps keys to an intent and passes the
 * camera's yaw (see camera.h for the convention: the heading the camera looks along, mover's convention,
 * so move_forward walks away from the camera). */
#ifndef MARIONETTE_PLAYER_H
#define MARIONETTE_PLAYER_H

#include <stdbool.h>

#include <cglm/cglm.h>

#include "anim/animator.h"
#include "base/diag.h"
#include "mover.h"

/* What the player asks for this step. */
typedef struct player_intent {
    float move_forward; /* -1..1: away from the camera (negative: towards it); values outside are clamped */
    float move_right;   /* -1..1: to the camera's right (negative: left) */
    bool run;           /* held: run_speed instead of walk_speed */
    bool strafe;        /* held: face the camera's forward and move in any direction (see player_step) */
    bool jump;          /* pressed this step */
    bool wave;          /* pressed this step */
    bool hit;           /* pressed this step: the `hit` trigger (a pain reaction), if the states have it */
    bool die;           /* pressed this step: the `die` trigger (death, or getting up), if the states have it */
} player_intent;

typedef struct player_params {
    float walk_speed;   /* m/s at full input: the walk clip's speed, so the walk plays as authored */
    float run_speed;    /* m/s at full input with run held: the run clip's speed */
    mover_params mover;
} player_params;

/* Walk 1.4 m/s and run 3.5 m/s (the speeds of the walk and run clips in config/clips.ini), and
 * mover_default_params(). */
player_params player_default_params(void);

typedef struct player player;

/* A player of `character` standing at the origin facing +X (heading 0), idle. params may be NULL for the
 * defaults. The character must outlive the player, or until player_rebind. NULL when a speed is negative
 * or not finite, a mover rate is not positive, the animator cannot be made (see animator_create) or memory
 * runs out. Allocates here only. The parameters player_step sets (speed, grounded, jump, wave, and hit, die,
 * turn, turn_rate and strafe where the character has them; forward and left where it has strafe) are found here
 * once; one the state machine lacks or has with another type is reported to problems (may be NULL), see
 * parameter_binding.h, and ignored by every step. */
player *player_create(const anim_character *character, const player_params *params, diag_list *problems);
void player_destroy(player *player);

/* Stand the player at (x, z) facing `heading` (radians, mover's convention), at rest. False (nothing
 * changes) for non-finite values. The animation carries on; with speed 0 it settles into idle. */
bool player_place(player *player, float x, float z, float heading);

/* Stand the player on `ground` from now on (NULL: flat): its feet at the ground's height under it, now and
 * after every step, the body upright. The ground must outlive the player or be replaced. */
void player_set_ground(player *player, const ground *ground);

/* Advance by dt seconds (>= 0):
 *   1. the intent becomes a wanted velocity on the ground: (move_right, move_forward) turned by the camera's
 *      yaw, its length capped at 1 (a diagonal is no faster than straight on), times walk_speed or, with
 *      run held, run_speed; half-way input asks for half the speed;
 *   2. the mover steps towards it (acceleration, braking, turning as mover.h says); with strafe held, and a
 *      state machine that has the `strafe` parameter, it keeps turning the body towards the camera's yaw
 *      instead, while the velocity goes where the input asks (mover_step_facing): sideways, backwards,
 *      anything in between;
 *   3. the animator gets speed = the mover's ground speed after the step, grounded = true (the mover keeps
 *      the feet on the floor; a jump's air time is the clip's own), turn = how far the wanted direction
 *      is from the heading (degrees, negative left, as states.ini's `turn`; 0 without input or while
 *      strafing), turn_rate = how fast the mover turned the heading this step (degrees per second, positive
 *      left; its changes limited to MOVER_TURN_RATE_CHANGE, mover_turn_rate_follow), strafe = whether it
 *      strafes, forward and left = its velocity in its own frame (m/s; +left is its left), the jump, wave,
 *      hit and die triggers when pressed (a state machine without one ignores it), and is updated by dt;
 *   4. the body moves as the states say (states.ini moved_by, mover_blend): by the mover's step times
 *      (1 - the clips' share) plus the root motion of the clips that move it. In a state moved by its clip
 *      (the shipped turns in place) the mover does not turn the body, so a turn turns it by exactly the
 *      clip's yaw; the mover's speed still follows the input, so moving off cuts a turn short. The
 *      heading a clip leaves is the player's heading: nothing turns it back, and the input keeps its
 *      meaning (relative to the camera, which follows the feet and keeps its own yaw). The feet then
 *      stand at the ground's height where the body ended (player_set_ground).
 * intent may be NULL (no input). Non-finite intent values read as 0. result (may be NULL) gets the
 * animator's update result (events such as footsteps). False (nothing changes) when player is NULL or dt
 * or camera_yaw_radians is not finite, or dt is negative. Allocates nothing. */
bool player_step(player *player, const player_intent *intent, float camera_yaw_radians, float dt,
                 animator_update_result *result);

/* Hot reload: move the animator to `character` (usually the same-named one of a reloaded config), as
 * animator_rebind does; the mover and its motion are kept. The parameters are found again in the new
 * state machine (it may have reordered them) and reported to problems as player_create does. False when
 * the animator refused (it then keeps the old character and its parameters). */
bool player_rebind(player *player, const anim_character *character, diag_list *problems);

/* Hot reload of the settings: new speeds and mover rates, taken from the next step on (the current
 * motion carries on from where it is, so a faster run_speed accelerates into it). False (nothing changes)
 * when player or params is NULL or params is unusable (as player_create refuses). */
bool player_set_params(player *player, const player_params *params);
/* The params in use. */
player_params player_get_params(const player *player);

/* Look-at: from the next step on the player turns its head towards target, a world point (the camera,
 * in the demo), within its character's limits (anim_look.h); NULL: it looks where the animation does.
 * Set it before every step the target or the player moves. */
void player_look_at(player *player, const float *target);

/* The model matrix for gfx_instance: stands the character at its place facing its heading. */
void player_world_matrix(const player *player, mat4 out);
/* Position of the feet: on the ground, at its height (y = 0 on flat ground). */
void player_position(const player *player, vec3 out);
float player_heading(const player *player); /* radians, mover's convention */
float player_speed(const player *player);   /* m/s on the ground */
const char *player_state_name(const player *player);
/* The animator, for poses (animator_controller), a HUD and tests. */
const animator *player_animator(const player *player);
/* The stages of every step from now on (animator_capture_stages), NULL to stop; for the trace. */
void player_capture_stages(player *player, const animator_stages *stages);
/* Where the player stands: its mover's position and heading. */
anim_placement player_placement(const player *player);
/* The ground it stands on (player_set_ground), NULL for flat. */
const ground *player_ground(const player *player);

#endif
