/* mover: see mover.h. */
#include "mover.h"

#include <math.h>

mover_params mover_default_params(void)
{
    return (mover_params){
        .acceleration = 6.0f,
        .deceleration = 9.0f,
        .turn_rate = 2.0f * GLM_PIf, /* a full turn in one second: a U-turn takes half a second */
        .turn_slowdown = 0.8f,
    };
}

static float wrap_angle(float angle)
{
    /* Most angles are in range already: as they are (also keeps a small angle's low bits, which the trip
     * through + pi drops), and no fmodf, which every member paid several times a step. */
    if (angle > -GLM_PIf && angle <= GLM_PIf)
        return angle;
    angle = fmodf(angle + GLM_PIf, 2.0f * GLM_PIf);
    if (angle <= 0.0f)
        angle += 2.0f * GLM_PIf;
    return angle - GLM_PIf;
}

float mover_heading_of(float x, float z)
{
    return atan2f(-z, x);
}

float mover_turn_between(float a, float b)
{
    return wrap_angle(b - a);
}

static float approach(float value, float target, float step)
{
    if (value < target)
        return fminf(value + step, target);
    return fmaxf(value - step, target);
}

/* Turn `angle` towards `target` by at most `most` radians. */
static float turn_towards(float angle, float target, float most)
{
    float turn = mover_turn_between(angle, target);
    return wrap_angle(angle + fmaxf(-most, fminf(most, turn)));
}

float mover_turn_rate_follow(float previous, float heading_before, float heading_after, float dt)
{
    if (!isfinite(previous))
        previous = 0.0f;
    if (!(dt > 0.0f) || !isfinite(dt) || !isfinite(heading_before) || !isfinite(heading_after))
        return previous;
    float rate = glm_deg(mover_turn_between(heading_before, heading_after)) / dt;
    return approach(previous, rate, MOVER_TURN_RATE_CHANGE * dt);
}

void mover_step(mover *m, const mover_params *params, float wanted_x, float wanted_z, float dt)
{
    if (!(dt > 0.0f) || !isfinite(dt))
        return;
    float wanted_speed = sqrtf(wanted_x * wanted_x + wanted_z * wanted_z);
    if (!isfinite(wanted_speed))
        wanted_speed = 0.0f;
    float most = params->turn_rate * dt;
    if (wanted_speed > 1e-4f) {
        float wanted_heading = mover_heading_of(wanted_x, wanted_z);
        m->heading = turn_towards(m->heading, wanted_heading, most);
        /* Facing away from where it wants to go, a character slows down to turn rather than
         * gaining speed sideways: full speed within 60 degrees, less beyond. Measured from where it goes,
         * which is where it faces unless it was strafing a moment ago. */
        float remaining = fabsf(mover_turn_between(m->heading + turn_towards(m->travel, 0.0f, most), wanted_heading));
        float facing = glm_clamp((remaining - GLM_PIf / 3.0f) / (GLM_PIf - GLM_PIf / 3.0f), 0.0f, 1.0f);
        wanted_speed *= 1.0f - params->turn_slowdown * facing;
    }
    /* The travel a strafe left turns back as fast as the heading turns, so while the body turns into the
     * way it was going, it keeps going that way. */
    m->travel = turn_towards(m->travel, 0.0f, most);
    float rate = wanted_speed > m->speed ? params->acceleration : params->deceleration;
    m->speed = approach(m->speed, wanted_speed, rate * dt);
    m->x += cosf(m->heading + m->travel) * m->speed * dt;
    m->z -= sinf(m->heading + m->travel) * m->speed * dt;
}

void mover_step_facing(mover *m, const mover_params *params, float wanted_x, float wanted_z, float facing, float dt)
{
    if (!(dt > 0.0f) || !isfinite(dt))
        return;
    if (!isfinite(wanted_x) || !isfinite(wanted_z))
        wanted_x = wanted_z = 0.0f;
    float direction = m->heading + m->travel;
    float velocity_x = cosf(direction) * m->speed, velocity_z = -sinf(direction) * m->speed;
    /* The velocity goes straight towards the wanted one, as fast as the mover speeds up or slows down. */
    float change_x = wanted_x - velocity_x, change_z = wanted_z - velocity_z;
    float change = sqrtf(change_x * change_x + change_z * change_z);
    bool faster = wanted_x * wanted_x + wanted_z * wanted_z > m->speed * m->speed;
    float most = (faster ? params->acceleration : params->deceleration) * dt;
    if (change > most) {
        change_x *= most / change;
        change_z *= most / change;
    }
    velocity_x += change_x;
    velocity_z += change_z;
    if (isfinite(facing))
        m->heading = turn_towards(m->heading, facing, params->turn_rate * dt);
    m->speed = sqrtf(velocity_x * velocity_x + velocity_z * velocity_z);
    /* Standing, the travel keeps its last direction: there is none to take. */
    if (m->speed > 1e-6f)
        m->travel = mover_turn_between(m->heading, mover_heading_of(velocity_x, velocity_z));
    m->x += velocity_x * dt;
    m->z += velocity_z * dt;
}

mover mover_blend(const mover *before, const mover *stepped, const mover_root_motion *root, bool steer)
{
    float keep = 1.0f - glm_clamp(root->share, 0.0f, 1.0f);
    float turned = mover_turn_between(before->heading, stepped->heading);
    float dx = stepped->x - before->x, dz = stepped->z - before->z;
    if (!steer) {
        /* mover_step moved along its turned heading: the same distance along the unturned one. */
        float c = cosf(-turned), s = sinf(-turned);
        float x = dx * c + dz * s;
        dz = -dx * s + dz * c;
        dx = x;
        turned = 0.0f;
    }
    /* The body's forward on the ground is (cos h, -sin h) in (x, z), its left a quarter turn further,
     * (-sin h, -cos h). Without root motion (most steps of most characters) neither is needed: the terms
     * below are zeros either way. */
    float c = 0.0f, s = 0.0f;
    if (root->forward != 0.0f || root->left != 0.0f) {
        c = cosf(before->heading);
        s = sinf(before->heading);
    }
    return (mover){
        .x = before->x + keep * dx + c * root->forward - s * root->left,
        .z = before->z + keep * dz - s * root->forward - c * root->left,
        .y = stepped->y,
        .heading = wrap_angle(before->heading + keep * turned + root->yaw),
        .speed = stepped->speed,
        .travel = stepped->travel,
    };
}

void mover_settle(mover *m, const ground *ground)
{
    m->y = ground_at(ground, m->x, m->z).height;
}

anim_placement mover_placement(const mover *m)
{
    return (anim_placement){.position = {m->x, m->y, m->z}, .heading = m->heading};
}

void mover_world(const mover *m, mat4 out)
{
    glm_mat4_identity(out);
    glm_translate(out, (vec3){m->x, m->y, m->z});
    glm_rotate_y(out, m->heading, out);
}
