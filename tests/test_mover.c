/* The kinematic body the player and crowd walk with: acceleration limits, turning, heading conventions;
 * strafing (facing one way, moving any way) and turning back out of it without changing course; the turn
 * rate the animation leans by. */
#include "check.h"

#include "mover.h"

static void test_heading_convention_matches_the_world_matrix(void)
{
    /* A mover facing heading h walks along the world matrix's +X axis (where the models face). */
    float headings[] = {0.0f, 0.7f, -2.0f, 3.0f};
    for (int i = 0; i < 4; ++i) {
        mover m = {.heading = headings[i], .speed = 2.0f};
        mover_params params = mover_default_params();
        mat4 world;
        mover_world(&m, world);
        float wanted_x = 2.0f * world[0][0], wanted_z = 2.0f * world[0][2];
        mover_step(&m, &params, wanted_x, wanted_z, 0.5f);
        CHECK_NEAR(m.x, world[0][0] * 1.0f, 1e-5);
        CHECK_NEAR(m.z, world[0][2] * 1.0f, 1e-5);
        CHECK_NEAR(m.heading, headings[i], 1e-5);
        CHECK_NEAR(mover_heading_of(world[0][0], world[0][2]), headings[i], 1e-5);
    }
}

static void test_speed_changes_at_the_limits(void)
{
    mover m = {0};
    mover_params params = mover_default_params();
    float dt = 1.0f / 120.0f;
    float previous = 0.0f, largest_step = 0.0f;
    for (int i = 0; i < 240; ++i) {
        mover_step(&m, &params, 3.5f, 0.0f, dt);
        largest_step = fmaxf(largest_step, fabsf(m.speed - previous));
        previous = m.speed;
    }
    CHECK_NEAR(m.speed, 3.5f, 1e-5);
    CHECK(largest_step <= params.acceleration * dt + 1e-5f);
    /* Reaching 3.5 m/s at 6 m/s^2 takes 0.583 s: after 0.25 s it is still on its way. */
    mover slow = {0};
    for (int i = 0; i < 30; ++i)
        mover_step(&slow, &params, 3.5f, 0.0f, dt);
    CHECK_NEAR(slow.speed, 0.25f * params.acceleration, 1e-3);
    /* Braking is quicker than speeding up, and stops exactly. */
    int steps = 0;
    while (m.speed > 0.0f && steps < 1000) {
        mover_step(&m, &params, 0.0f, 0.0f, dt);
        ++steps;
    }
    CHECK_NEAR(steps * dt, 3.5f / params.deceleration, 2.0f * dt);
    CHECK(m.speed == 0.0f);
}

static void test_turning_is_rate_limited_and_slows_u_turns(void)
{
    mover m = {.speed = 3.5f};
    mover_params params = mover_default_params();
    float dt = 1.0f / 120.0f;
    /* Wanting to go -X (a U-turn): heading turns by at most turn_rate * dt per step, speed drops. */
    float lowest = m.speed;
    int steps = 0;
    while (fabsf(mover_turn_between(m.heading, GLM_PIf)) > 1e-4f && steps < 1000) {
        float before = m.heading;
        mover_step(&m, &params, -3.5f, 0.0f, dt);
        CHECK(fabsf(mover_turn_between(before, m.heading)) <= params.turn_rate * dt + 1e-5f);
        lowest = fminf(lowest, m.speed);
        ++steps;
    }
    CHECK_NEAR(steps * dt, GLM_PIf / params.turn_rate, 2.0f * dt);
    CHECK(lowest < 0.8f * 3.5f); /* slowed down to turn (about 2.5 m/s with the defaults) */
    CHECK_NEAR(fabsf(m.heading), GLM_PIf, 1e-4);
}

static void test_bad_input_changes_nothing_harmful(void)
{
    mover m = {.x = 1.0f, .z = 2.0f, .heading = 0.5f, .speed = 1.0f};
    mover_params params = mover_default_params();
    mover_step(&m, &params, NAN, 1.0f, 0.1f);
    CHECK(isfinite(m.x) && isfinite(m.z) && isfinite(m.heading) && isfinite(m.speed));
    mover before = m;
    mover_step(&m, &params, 1.0f, 0.0f, -1.0f);
    mover_step(&m, &params, 1.0f, 0.0f, NAN);
    mover_step(&m, &params, 1.0f, 0.0f, INFINITY);
    CHECK(memcmp(&before, &m, sizeof m) == 0);
    CHECK_NEAR(mover_turn_between(3.0f, -3.0f), 2.0f * GLM_PIf - 6.0f, 1e-5);
    CHECK_NEAR(mover_turn_between(-3.0f, 3.0f), -(2.0f * GLM_PIf - 6.0f), 1e-5);
}

/* Strafing: the heading turns towards the facing at the turn rate while the velocity goes straight to the
 * wanted one at the acceleration, whatever its direction; travel and speed say where it goes. */
static void test_strafing_faces_one_way_and_moves_another(void)
{
    mover m = {0};
    mover_params params = mover_default_params();
    const float dt = 1.0f / 60.0f;
    /* Facing +X (heading 0), wanting 1.4 m/s towards +Z: its right (a heading of -pi/2). */
    for (int i = 0; i < 60; ++i) {
        float speed = m.speed;
        mover_step_facing(&m, &params, 0.0f, 1.4f, 0.0f, dt);
        CHECK(m.speed <= speed + params.acceleration * dt + 1e-5f);
        CHECK(m.heading == 0.0f);
    }
    CHECK_NEAR(m.speed, 1.4, 1e-5);
    CHECK_NEAR(m.travel, -GLM_PIf / 2.0f, 1e-5);
    float x = m.x, z = m.z;
    mover_step_facing(&m, &params, 0.0f, 1.4f, 0.0f, dt);
    CHECK_NEAR(m.x - x, 0.0, 1e-6);
    CHECK_NEAR(m.z - z, 1.4 * dt, 1e-6);

    /* A new facing: the heading turns no faster than the turn rate; the course stays. */
    for (int i = 0; i < 60; ++i) {
        float heading = m.heading;
        x = m.x;
        z = m.z;
        mover_step_facing(&m, &params, 0.0f, 1.4f, 1.0f, dt);
        CHECK(fabsf(mover_turn_between(heading, m.heading)) <= params.turn_rate * dt + 1e-5f);
        CHECK_NEAR(m.x - x, 0.0, 1e-5);
        CHECK_NEAR(m.z - z, 1.4 * dt, 1e-5);
    }
    CHECK_NEAR(m.heading, 1.0, 1e-5);
    CHECK_NEAR(m.travel, -GLM_PIf / 2.0f - 1.0f, 1e-5);

    /* Reversing: the velocity passes through zero (slowing at the deceleration), never sideways. */
    for (int i = 0; i < 60; ++i) {
        x = m.x;
        mover_step_facing(&m, &params, 0.0f, -1.4f, 1.0f, dt);
        CHECK_NEAR(m.x - x, 0.0, 1e-5);
    }
    CHECK_NEAR(m.speed, 1.4, 1e-5);
    CHECK_NEAR(m.travel, GLM_PIf / 2.0f - 1.0f, 1e-5);

    /* Out of the strafe, still wanting -Z: the heading turns to it while the travel turns back to 0 at the
     * same rate, so the course does not change on the way. */
    for (int i = 0; i < 60; ++i) {
        x = m.x;
        z = m.z;
        mover_step(&m, &params, 0.0f, -1.4f, dt);
        CHECK_NEAR(m.x - x, 0.0, 1e-5);
        CHECK_NEAR(m.z - z, -1.4 * dt, 1e-5);
    }
    CHECK_NEAR(m.heading, GLM_PIf / 2.0f, 1e-5);
    CHECK(m.travel == 0.0f);

    /* Bad input: nothing becomes NaN, a bad dt changes nothing. */
    mover_step_facing(&m, &params, NAN, 1.0f, INFINITY, dt);
    CHECK(isfinite(m.x) && isfinite(m.z) && isfinite(m.heading) && isfinite(m.speed) && isfinite(m.travel));
    mover before = m;
    mover_step_facing(&m, &params, 1.0f, 0.0f, 0.0f, -1.0f);
    mover_step_facing(&m, &params, 1.0f, 0.0f, 0.0f, NAN);
    CHECK(memcmp(&before, &m, sizeof m) == 0);
}

/* The turn rate the animation leans by: a steady turn is followed exactly (degrees per second, positive
 * left, also across the +-180 degree seam), at the same rate whatever the step; a jump in the turn is
 * followed by at most MOVER_TURN_RATE_CHANGE a second; a step of no time or a heading that is not finite
 * changes nothing. */
static void test_turn_rate_follows_the_heading(void)
{
    const double rates[] = {30.0, 120.0};
    for (int r = 0; r < 2; ++r) {
        float followed[2] = {0.0f, 0.0f};
        const float steps[] = {1.0f / 30.0f, 1.0f / 144.0f};
        for (int k = 0; k < 2; ++k) {
            float heading = 3.0f; /* crosses pi, where headings wrap to -pi */
            for (int i = 0; i < (int)(1.0f / steps[k]); ++i) {
                float next = heading + (float)(glm_rad(rates[r])) * steps[k];
                if (next > GLM_PIf)
                    next -= 2.0f * GLM_PIf;
                followed[k] = mover_turn_rate_follow(followed[k], heading, next, steps[k]);
                heading = next;
            }
            CHECK_NEAR(followed[k], rates[r], 0.05);
        }
    }
    /* From straight to a full turn a second: 6 degrees/s more each 1/60 s step, a quarter second to 90. */
    float rate = 0.0f, heading = 0.0f;
    for (int i = 0; i < 15; ++i) {
        float before = rate;
        rate = mover_turn_rate_follow(rate, heading, heading - 2.0f * GLM_PIf / 60.0f, 1.0f / 60.0f);
        heading -= 2.0f * GLM_PIf / 60.0f;
        CHECK_NEAR(before - rate, MOVER_TURN_RATE_CHANGE / 60.0f, 1e-3);
    }
    CHECK_NEAR(rate, -90.0, 1e-2); /* turning right: negative */
    CHECK(mover_turn_rate_follow(rate, 0.0f, 1.0f, 0.0f) == rate);
    CHECK(mover_turn_rate_follow(rate, 0.0f, NAN, 1.0f / 60.0f) == rate);
    CHECK(mover_turn_rate_follow(rate, 0.0f, 1.0f, -1.0f) == rate);
    CHECK(mover_turn_rate_follow(NAN, 0.0f, 0.0f, 0.0f) == 0.0f);
}

/* The feet stand at the ground's height wherever the mover goes; the body stays upright. */
static void test_settled_on_the_ground(void)
{
    mover_params params = mover_default_params();
    ground hills = {.kind = GROUND_HILLS};
    mover m = {.x = 3.0f, .z = -7.0f};
    mover_settle(&m, &hills);
    CHECK(m.y == ground_at(&hills, 3.0f, -7.0f).height);
    CHECK(fabsf(m.y) > 0.01f); /* a place off the zero line: the test could fail */
    float lowest = 1e9f, highest = -1e9f;
    for (int i = 0; i < 600; ++i) {
        mover_step(&m, &params, 1.4f, 0.3f, 1.0f / 60.0f);
        mover_settle(&m, &hills);
        CHECK(m.y == ground_at(&hills, m.x, m.z).height);
        lowest = fminf(lowest, m.y);
        highest = fmaxf(highest, m.y);
        mat4 world;
        mover_world(&m, world);
        CHECK(world[3][1] == m.y && world[3][0] == m.x && world[3][2] == m.z);
        CHECK_NEAR(world[1][1], 1.0f, 1e-6); /* upright: its up is the world's whatever the slope */
    }
    CHECK(highest - lowest > 0.2f); /* it went up and down hills */
    /* The blend of the mover and the clips keeps the height it was given; NULL ground is flat. */
    mover stepped = m;
    stepped.x += 0.1f;
    mover blended = mover_blend(&m, &stepped, &(mover_root_motion){0}, true);
    CHECK(blended.y == stepped.y);
    mover_settle(&blended, NULL);
    CHECK(blended.y == 0.0f);
}

int main(void)
{
    RUN(test_settled_on_the_ground);
    RUN(test_heading_convention_matches_the_world_matrix);
    RUN(test_speed_changes_at_the_limits);
    RUN(test_turning_is_rate_limited_and_slows_u_turns);
    RUN(test_bad_input_changes_nothing_harmful);
    RUN(test_strafing_faces_one_way_and_moves_another);
    RUN(test_turn_rate_follows_the_heading);
    return check_report();
}
