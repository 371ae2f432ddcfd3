/* mover: a character's feet on the ground, as a kinematic body steered by a wanted velocity. The
 * player and every crowd member move through it, so both accelerate, brake and turn the same way, and the
 * animation gets a ground speed that changes smoothly (the state machine's `speed` parameter).
 * World space is GL's (Y up, metres); the mover steers on the XZ plane and stands on the ground's height
 * there (mover_settle: engine/world's ground_at), staying upright whatever the slope. A heading of 0 faces
 * +X, as the MD5 models do after gfx's Z-up to Y-up turn; positive headings turn counter-clockwise seen
 * from above. Knows nothing of SDL, GL or animation: root motion comes in as plain numbers (mover_blend). */
#ifndef MARIONETTE_MOVER_H
#define MARIONETTE_MOVER_H

#include <stdbool.h>

#include <cglm/cglm.h>

#include "anim/anim_foot_lock.h"
#include "world/ground.h"

typedef struct mover_params {
    float acceleration;      /* m/s^2 towards a faster wanted speed */
    float deceleration;      /* m/s^2 towards a slower one (braking) */
    float turn_rate;         /* radians per second the heading turns towards the wanted direction */
    float turn_slowdown;     /* 0..1: how much the speed is held back while facing away from the wanted
                              * direction (1: no speed gained facing backwards), so a U-turn slows down
                              * instead of sliding sideways */
} mover_params;

/* Defaults that suit a 1.8 m character walking at 1.4 m/s and running at 3.5 m/s. */
mover_params mover_default_params(void);

typedef struct mover {
    float x, z;       /* position on the ground */
    float y;          /* the feet's height: the ground's under (x, z) after mover_settle; 0 on flat ground */
    float heading;    /* radians, kept in (-pi, pi] */
    float speed;      /* m/s along the direction of travel, >= 0 */
    float travel;     /* radians, the direction of travel from the heading (positive left), in (-pi, pi]: 0
                       * when walking where it faces; while strafing (mover_step_facing) it moves in any
                       * direction while facing one way */
} mover;

/* Advance by dt seconds (>= 0) towards the wanted velocity (wanted_x, wanted_z) in m/s; zero stops.
 * The heading turns towards the wanted direction at most turn_rate * dt; the speed moves towards the
 * wanted speed (scaled down while facing away) at most acceleration or deceleration * dt; the position
 * moves along the new heading. Travel left from strafing turns back to 0 at turn_rate as the heading turns
 * towards the wanted direction, so a character that stops strafing keeps moving the way it was and turns
 * its body into that direction. */
void mover_step(mover *m, const mover_params *params, float wanted_x, float wanted_z, float dt);

/* Strafing: advance by dt seconds (>= 0) towards the wanted velocity while facing `facing` (a heading).
 * The heading turns towards facing at most turn_rate * dt; the velocity, in any direction from it, moves
 * towards the wanted one by at most acceleration (speeding up) or deceleration (slowing down) * dt; the
 * position moves along it. speed and travel say where it goes, in the mover's own frame. */
void mover_step_facing(mover *m, const mover_params *params, float wanted_x, float wanted_z, float facing, float dt);

/* How the animation moves the body in one step, as the animator reports it (anim_update_result): the root
 * motion of the clips that move the body, in the body's own frame (forward along its heading, left, in
 * metres; yaw in radians, positive to the left as headings are), and the share of the body those clips
 * move: 0 the mover alone, 1 the clips alone, in between while a crossfade hands the body over. */
typedef struct mover_root_motion {
    float forward, left;
    float yaw;
    float share;
} mover_root_motion;

/* The body after a step in which the mover and the clips move it together. `before` is the body at the
 * start of the step and `stepped` what mover_step (or mover_step_facing) made of it; the result is before
 * moved by the mover's own displacement times (1 - share), then by the root motion turned by before's
 * heading, then turned by the root motion's yaw. Its speed and travel are stepped's: the mover's speed
 * keeps following what is wanted, so the animation's `speed` parameter still works while a clip moves the
 * body. With steer false (the clip's
 * state moves the body, turns included) the mover's turn is dropped and its displacement goes along
 * before's heading: a turn in place then turns by exactly the clip's yaw, whatever the input asks. */
mover mover_blend(const mover *before, const mover *stepped, const mover_root_motion *root, bool steer);

/* Stand the mover on the ground under it: y = ground_at(ground, x, z).height (NULL: flat, y = 0). The
 * movers' steps and mover_blend keep the last y; whoever steps a mover settles it after. */
void mover_settle(mover *m, const ground *ground);

/* The model matrix that stands a character at the mover's place (its feet at y), upright, facing its
 * heading (for gfx_instance). */
void mover_world(const mover *m, mat4 out);

/* Where the mover stands, as the animation's stages after the pose want it (the foot lock, a trace). */
anim_placement mover_placement(const mover *m);

/* How fast the turn rate given to the animation (mover_turn_rate_follow) may change, in degrees per second
 * per second: from going straight to turning at 90 degrees a second (the shipped `lean` blend's full lean,
 * config/states.ini) in a quarter second. The mover turns at a constant rate until it faces the wanted way,
 * so its own rate jumps (0 to a full turn a second and back, for a quarter turn in a quarter second); a lean
 * following that would snap to full in one frame. */
#define MOVER_TURN_RATE_CHANGE 360.0f

/* The turn rate for the animation (states.ini `turn_rate`: degrees per second, positive turning left as
 * headings and root yaw are) after a step of dt seconds that turned the heading from heading_before to
 * heading_after: `previous` (the last step's result; 0 at rest) moved towards the step's own rate by at
 * most MOVER_TURN_RATE_CHANGE * dt, so a steady turn is followed exactly and the same at any step rate,
 * and a quick one leans in and out over a few frames. dt not above 0, or a heading not finite: previous
 * (0 when previous is not finite). */
float mover_turn_rate_follow(float previous, float heading_before, float heading_after, float dt);

/* Heading of a direction on the ground (x, z): atan2(-z, x). */
float mover_heading_of(float x, float z);

/* The shortest signed turn from heading a to heading b, in (-pi, pi]. */
float mover_turn_between(float a, float b);

#endif
