/* test_blend_space: the weights of 1D and 2D blend spaces (engine/anim/blend_space.c) over a fine grid:
 * never negative, summing to 1 within 1e-6, a sample's clip alone at its point, continuous (a small step
 * moves every weight a little), the ends of a line held beyond them, the invalid layouts refused, NaN
 * input held at the first clip. The 2D layout is a locomotion one: idle at the origin, walk and run
 * forward, back, left and right. */
#include <math.h>

#include "anim/blend_space.h"
#include "check.h"

static void test_1d(void)
{
    const float speeds[3] = {0.0f, 1.4f, 3.5f};
    float w[3];
    CHECK(blend_space_1d_valid(speeds, 3));
    blend_space_1d_weights(speeds, 3, 0.7f, w);
    CHECK_NEAR(w[0], 0.5, 1e-6);
    CHECK_NEAR(w[1], 0.5, 1e-6);
    CHECK(w[2] == 0.0f);
    blend_space_1d_weights(speeds, 3, 1.4f, w); /* at a sample: that clip alone */
    CHECK(w[0] == 0.0f && w[1] == 1.0f && w[2] == 0.0f);
    blend_space_1d_weights(speeds, 3, 2.45f, w);
    CHECK_NEAR(w[1], 0.5, 1e-6);
    CHECK_NEAR(w[2], 0.5, 1e-6);
    blend_space_1d_weights(speeds, 3, -1.0f, w); /* beyond the ends: the end held */
    CHECK(w[0] == 1.0f && w[1] == 0.0f);
    blend_space_1d_weights(speeds, 3, 9.0f, w);
    CHECK(w[2] == 1.0f && w[1] == 0.0f);
    blend_space_1d_weights(speeds, 3, NAN, w);
    CHECK(w[0] == 1.0f);
    /* Sum 1 and continuity over a sweep. */
    float previous[3];
    blend_space_1d_weights(speeds, 3, -0.5f, previous);
    float largest_step = 0.0f;
    for (int s = 1; s <= 5000; ++s) {
        float x = -0.5f + 0.001f * (float)s;
        blend_space_1d_weights(speeds, 3, x, w);
        CHECK_NEAR(w[0] + w[1] + w[2], 1.0, 1e-6);
        for (int k = 0; k < 3; ++k) {
            CHECK(w[k] >= 0.0f);
            largest_step = fmaxf(largest_step, fabsf(w[k] - previous[k]));
            previous[k] = w[k];
        }
    }
    CHECK(largest_step < 0.002f); /* 1 mm/s moves a weight by at most 1/1.4 of a thousandth */
    /* Refused: unsorted, repeated, too many, none, not finite. */
    const float unsorted[3] = {0.0f, 3.5f, 1.4f}, repeated[2] = {1.0f, 1.0f}, infinite[2] = {0.0f, INFINITY};
    CHECK(!blend_space_1d_valid(unsorted, 3));
    CHECK(!blend_space_1d_valid(repeated, 2));
    CHECK(!blend_space_1d_valid(infinite, 2));
    CHECK(!blend_space_1d_valid(speeds, 0));
    CHECK(!blend_space_1d_valid(speeds, BLEND_SPACE_MAX_POINTS + 1));
    const float one[1] = {2.0f};
    CHECK(blend_space_1d_valid(one, 1));
    blend_space_1d_weights(one, 1, 5.0f, w);
    CHECK(w[0] == 1.0f);
}

/* Forward is +x, left is +y (the character's frame, m/s). */
static const float locomotion[9][2] = {
    {0.0f, 0.0f},                                                /* idle */
    {1.4f, 0.0f}, {-1.4f, 0.0f}, {0.0f, 1.4f}, {0.0f, -1.4f},    /* walk forward, back, left, right */
    {3.5f, 0.0f}, {-3.5f, 0.0f}, {0.0f, 3.5f}, {0.0f, -3.5f},    /* run */
};

static void test_2d_at_samples_and_sums(void)
{
    CHECK(blend_space_2d_valid(locomotion, 9));
    float w[9];
    for (int i = 0; i < 9; ++i) {
        blend_space_2d_weights(locomotion, 9, locomotion[i][0], locomotion[i][1], w);
        for (int k = 0; k < 9; ++k)
            CHECK_NEAR(w[k], k == i ? 1.0 : 0.0, 1e-6);
    }
    /* Halfway between idle and walk forward: those two, evenly. */
    blend_space_2d_weights(locomotion, 9, 0.7f, 0.0f, w);
    CHECK_NEAR(w[0], 0.5, 1e-6);
    CHECK_NEAR(w[1], 0.5, 1e-6);
    /* Diagonal walk forward-left: forward and left walks share it. */
    blend_space_2d_weights(locomotion, 9, 1.0f, 1.0f, w);
    CHECK(w[1] > 0.2f && w[3] > 0.2f);
    CHECK_NEAR(w[1], w[3], 1e-5);
    CHECK(w[2] < 1e-6f && w[4] < 1e-6f); /* nothing backward or rightward */
    /* Over a fine grid, inside and well outside the hull: never negative, sum 1, finite. */
    double worst_sum = 0.0;
    for (int gy = -60; gy <= 60; ++gy)
        for (int gx = -60; gx <= 60; ++gx) {
            blend_space_2d_weights(locomotion, 9, 0.1f * (float)gx, 0.1f * (float)gy, w);
            double sum = 0.0;
            for (int k = 0; k < 9; ++k) {
                CHECK(w[k] >= 0.0f && isfinite(w[k]));
                sum += w[k];
            }
            worst_sum = fmax(worst_sum, fabs(sum - 1.0));
        }
    CHECK(worst_sum <= 1e-6);
    /* NaN: the first clip. */
    blend_space_2d_weights(locomotion, 9, NAN, 0.0f, w);
    CHECK(w[0] == 1.0f);
}

static void test_2d_continuity_and_outside(void)
{
    /* A circle of radius 2.5 m/s walked in small steps: no weight jumps. */
    float w[9], previous[9];
    blend_space_2d_weights(locomotion, 9, 2.5f, 0.0f, previous);
    float largest_step = 0.0f;
    for (int s = 1; s <= 3600; ++s) {
        float angle = (float)s * 3.14159265f / 1800.0f;
        blend_space_2d_weights(locomotion, 9, 2.5f * cosf(angle), 2.5f * sinf(angle), w);
        for (int k = 0; k < 9; ++k) {
            largest_step = fmaxf(largest_step, fabsf(w[k] - previous[k]));
            previous[k] = w[k];
        }
    }
    CHECK(largest_step < 0.02f);
    /* Beyond the fastest forward clip the run forward holds alone. */
    blend_space_2d_weights(locomotion, 9, 6.0f, 0.0f, w);
    CHECK_NEAR(w[5], 1.0, 1e-6);
    /* Refused layouts. */
    const float twice[2][2] = {{1.0f, 1.0f}, {1.0f, 1.0f}};
    CHECK(!blend_space_2d_valid(twice, 2));
    CHECK(!blend_space_2d_valid(locomotion, 0));
    const float one[1][2] = {{0.5f, 0.5f}};
    CHECK(blend_space_2d_valid(one, 1));
    blend_space_2d_weights(one, 1, 9.0f, -3.0f, w);
    CHECK(w[0] == 1.0f);
}

int main(void)
{
    RUN(test_1d);
    RUN(test_2d_at_samples_and_sums);
    RUN(test_2d_continuity_and_outside);
    return check_report();
}
