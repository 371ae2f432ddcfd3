/* mover: a character's feet on the ground plane, as a kinematic body steered by a wanted velocity. The
 * player and every crowd member move through it, so both accelerate, brake and turn the same way, and the
 * animation gets a ground speed that changes smoothly (the state machine's `speed` parameter).
 * World space is GL's (Y up, metres); the ground is the XZ plane. A heading of 0 faces +X, as the MD5
 * models do after gfx's Z-up to Y-up turn; positive headings turn counter-clockwise seen from above.
 * Knows nothing of SDL, GL or animation. */
#ifndef MARIONETTE_MOVER_H
#define MARIONETTE_MOVER_H

#include <cglm/cglm.h>

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
    float heading;    /* radians, kept in (-pi, pi] */
    float speed;      /* m/s along the heading, >= 0 */
} mover;

/* Advance by dt seconds (>= 0) towards the wanted velocity (wanted_x, wanted_z) in m/s; zero stops.
 * The heading turns towards the wanted direction at most turn_rate * dt; the speed moves towards the
 * wanted speed (scaled down while facing away) at most acceleration or deceleration * dt; the position
 * moves along the new heading. */
void mover_step(mover *m, const mover_params *params, float wanted_x, float wanted_z, float dt);

/* The model matrix that stands a character at the mover's place, facing its heading (for gfx_instance). */
void mover_world(const mover *m, mat4 out);

/* Heading of a direction on the ground (x, z): atan2(-z, x). */
float mover_heading_of(float x, float z);

/* The shortest signed turn from heading a to heading b, in (-pi, pi]. */
float mover_turn_between(float a, float b);

#endif
