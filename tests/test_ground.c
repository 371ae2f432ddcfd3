/* test_ground: the ground query's heights and normals (engine/world/ground.h): the flat floor, the tilted
 * plane, the hills (smooth, finite, no steeper than documented, the same for the same seed) and the steps
 * (each riser the documented rise, each ramp the documented angle, level and continuous elsewhere). */
#include <math.h>
#include <stdbool.h>

#include "check.h"
#include "world/ground.h"

/* The normal is the surface's: perpendicular to the height's change along x and along z. */
static void check_normal_matches_heights(const ground *g, float x, float z)
{
    const float step = 1e-3f;
    ground_sample at = ground_at(g, x, z);
    float dx = (ground_at(g, x + step, z).height - ground_at(g, x - step, z).height) / (2.0f * step);
    float dz = (ground_at(g, x, z + step).height - ground_at(g, x, z - step).height) / (2.0f * step);
    float length = sqrtf(dx * dx + 1.0f + dz * dz);
    CHECK_NEAR(at.normal[0], -dx / length, 1e-3);
    CHECK_NEAR(at.normal[1], 1.0f / length, 1e-3);
    CHECK_NEAR(at.normal[2], -dz / length, 1e-3);
}

static float degrees_of_normal(ground_sample sample)
{
    return acosf(sample.normal[1]) * 180.0f / 3.14159265f;
}

static void test_hills(void)
{
    ground hills = {.kind = GROUND_HILLS};
    ground_hills used = ground_hills_used(&hills.hills);
    CHECK_NEAR(used.height, 2.4f, 1e-6);
    CHECK_NEAR(used.spacing, 10.0f, 1e-6);
    float low, high;
    ground_height_range(&hills, 60.0f, &low, &high);
    CHECK_NEAR(high, 2.4f * 1.2f, 1e-5);
    CHECK_NEAR(low, -high, 1e-6);

    /* The whole field over the demo's 120 m square, every 10 cm: finite, within the range, no jump between
     * neighbours a smooth surface of at most 30 degrees could not make, and really hilly (not flat). */
    const float step = 0.1f;
    float lowest = 1e9f, highest = -1e9f, steepest = 0.0f, largest_jump = 0.0f;
    bool finite = true;
    for (float z = -60.0f; z <= 60.0f; z += 1.3f) {
        float previous = ground_at(&hills, -60.0f, z).height;
        for (float x = -60.0f + step; x <= 60.0f; x += step) {
            ground_sample at = ground_at(&hills, x, z);
            finite = finite && isfinite(at.height) && isfinite(at.normal[0]) && isfinite(at.normal[1]) &&
                     isfinite(at.normal[2]);
            lowest = fminf(lowest, at.height);
            highest = fmaxf(highest, at.height);
            steepest = fmaxf(steepest, degrees_of_normal(at));
            largest_jump = fmaxf(largest_jump, fabsf(at.height - previous));
            previous = at.height;
        }
    }
    CHECK(finite);
    CHECK(lowest >= low && highest <= high);
    CHECK(highest - lowest > 1.5f);
    CHECK(steepest <= GROUND_HILLS_MAX_DEGREES);
    CHECK(steepest > 8.0f);
    CHECK(largest_jump <= step * tanf(GROUND_HILLS_MAX_DEGREES * 3.14159265f / 180.0f) * 1.01f);
    printf("hills: heights %.2f to %.2f m, steepest %.1f degrees\n", (double)lowest, (double)highest,
           (double)steepest);

    /* The normal is the heights' own, on and between grid points. */
    for (int i = 0; i < 40; ++i)
        check_normal_matches_heights(&hills, -37.0f + 1.93f * (float)i, 23.0f - 1.37f * (float)i);
    check_normal_matches_heights(&hills, 12.0f, 24.0f);

    /* The same settings give the same hills; another seed other hills; a height too tall for its
     * spacing is lowered to keep the documented slope. */
    ground again = {.kind = GROUND_HILLS};
    CHECK(ground_at(&again, 7.3f, -2.1f).height == ground_at(&hills, 7.3f, -2.1f).height);
    ground other = {.kind = GROUND_HILLS, .hills = {.seed = 7}};
    float difference = 0.0f;
    for (int i = 0; i < 20; ++i)
        difference += fabsf(ground_at(&other, (float)i * 3.0f, 1.0f).height -
                            ground_at(&hills, (float)i * 3.0f, 1.0f).height);
    CHECK(difference > 1.0f);
    ground tall = {.kind = GROUND_HILLS, .hills = {.height = 4.0f, .spacing = 4.0f}};
    CHECK(ground_hills_used(&tall.hills).height < 1.2f);
    float tall_steepest = 0.0f;
    for (float x = -10.0f; x < 10.0f; x += 0.05f)
        for (float z = -10.0f; z < 10.0f; z += 0.5f)
            tall_steepest = fmaxf(tall_steepest, degrees_of_normal(ground_at(&tall, x, z)));
    CHECK(tall_steepest <= GROUND_HILLS_MAX_DEGREES);
    /* The bound is tight enough to matter: the tallest allowed hills over a short spacing come near it. */
    CHECK(tall_steepest > 12.0f);
    /* Far out and at absurd points it stays finite. */
    CHECK(isfinite(ground_at(&hills, 1e30f, -1e30f).height));
    CHECK(isfinite(ground_at(&hills, NAN, INFINITY).height));
}

static void test_steps(void)
{
    ground steps = {.kind = GROUND_STEPS};
    ground_steps used = ground_steps_used(&steps.steps);
    CHECK_NEAR(used.rise, 0.15f, 1e-6);
    CHECK(used.count == 6);
    CHECK_NEAR(used.ramp_degrees, 20.0f, 1e-6);
    float period = ground_steps_period(&steps.steps);
    CHECK_NEAR(period, 4.0f * 3.0f + 2.0f * 6.0f * 0.35f + 2.0f * 0.9f / tanf(20.0f * 3.14159265f / 180.0f), 1e-3);

    /* The origin stands on a level floor; the first stair starts half a landing ahead. */
    CHECK(ground_at(&steps, 0.0f, 0.0f).height == 0.0f);
    CHECK(ground_at(&steps, 1.49f, 5.0f).height == 0.0f);
    CHECK_NEAR(ground_at(&steps, 1.51f, -5.0f).height, 0.15f, 1e-6);

    float breaks[64];
    int count = ground_breaks(&steps, 0, -0.5f * period, 1.5f * period, breaks, 64);
    CHECK(count == 2 * (2 * 6 + 4)); /* two repeats: 6 risers up, 6 down, each ramp's foot and top */
    CHECK(ground_breaks(&steps, 0, -0.5f * period, 1.5f * period, NULL, 0) == count);
    CHECK(ground_breaks(&steps, 1, -100.0f, 100.0f, NULL, 0) == 0);
    int risers = 0, ramp_ends = 0;
    for (int i = 0; i < count; ++i) {
        if (i > 0)
            CHECK(breaks[i] > breaks[i - 1]);
        float before = ground_at(&steps, breaks[i] - 0.01f, 0.0f).height;
        float after = ground_at(&steps, breaks[i] + 0.01f, 0.0f).height;
        if (fabsf(after - before) > 0.05f) {
            /* A riser: exactly the documented rise, level on both sides. */
            CHECK_NEAR(fabsf(after - before), used.rise, 1e-5);
            CHECK(ground_at(&steps, breaks[i] - 0.01f, 0.0f).normal[1] == 1.0f);
            CHECK(ground_at(&steps, breaks[i] + 0.01f, 0.0f).normal[1] == 1.0f);
            ++risers;
        } else {
            ++ramp_ends;
        }
    }
    CHECK(risers == 2 * 12 && ramp_ends == 2 * 4);

    /* Every ramp: the documented angle, by its normal and by its heights, from the floor to the top. */
    int ramps = 0;
    for (int i = 0; i + 1 < count; ++i) {
        float middle = 0.5f * (breaks[i] + breaks[i + 1]);
        ground_sample at = ground_at(&steps, middle, 3.0f);
        if (at.normal[1] == 1.0f)
            continue;
        CHECK_NEAR(degrees_of_normal(at), 20.0f, 1e-3);
        float climb = ground_at(&steps, breaks[i + 1] - 1e-3f, 3.0f).height -
                      ground_at(&steps, breaks[i] + 1e-3f, 3.0f).height;
        CHECK_NEAR(fabsf(climb), 0.9f, 2e-3);
        CHECK_NEAR(atanf(fabsf(climb) / (breaks[i + 1] - breaks[i] - 2e-3f)) * 180.0f / 3.14159265f, 20.0f, 0.05);
        check_normal_matches_heights(&steps, middle, 3.0f);
        ++ramps;
    }
    CHECK(ramps == 4);

    /* Between breaks the surface is continuous (no jump larger than a 30 degree climb over the sample
     * step), and finite everywhere. */
    const float step = 0.01f;
    int next = 0;
    bool continuous = true, finite = true;
    for (float x = breaks[0] + step; x < breaks[count - 1]; x += step) {
        while (next < count && breaks[next] <= x)
            ++next;
        ground_sample at = ground_at(&steps, x, 1.0f), before = ground_at(&steps, x - step, 1.0f);
        finite = finite && isfinite(at.height);
        bool crosses = next > 0 && breaks[next - 1] > x - step;
        if (!crosses && fabsf(at.height - before.height) > step * 0.58f)
            continuous = false;
    }
    CHECK(continuous);
    CHECK(finite);
    float low, high;
    ground_height_range(&steps, 60.0f, &low, &high);
    CHECK(low == 0.0f);
    CHECK_NEAR(high, 0.9f, 1e-6);

    /* The documented limits hold: a 40 cm rise is 25 cm, a 50 degree ramp 30. */
    ground steep = {.kind = GROUND_STEPS, .steps = {.rise = 0.4f, .ramp_degrees = 50.0f, .count = 99}};
    ground_steps held = ground_steps_used(&steep.steps);
    CHECK(held.rise == 0.25f && held.ramp_degrees == 30.0f && held.count == 12);
}

int main(void)
{
    RUN(test_hills);
    RUN(test_steps);
    CHECK(ground_kind_from_name("hills") == GROUND_HILLS && ground_kind_from_name("steps") == GROUND_STEPS);
    CHECK(ground_kind_from_name("flat") == GROUND_FLAT && ground_kind_from_name("cliffs") == GROUND_KIND_COUNT);
    CHECK(ground_kind_from_name(ground_kind_name(GROUND_SLOPE)) == GROUND_SLOPE);
    ground_sample flat = ground_at(NULL, 3.0f, -2.0f);
    CHECK(flat.height == 0.0f && flat.normal[1] == 1.0f);
    ground flat_ground = {.kind = GROUND_FLAT};
    CHECK(ground_at(&flat_ground, 100.0f, 5.0f).height == 0.0f);

    /* 30 degrees rising toward +z: a metre uphill is tan 30 higher, a metre across is level. */
    ground slope = {.kind = GROUND_SLOPE, .slope_degrees = 30.0f, .uphill = {0.0f, 2.0f}};
    CHECK_NEAR(ground_at(&slope, 0.0f, 1.0f).height, tanf(30.0f * 3.14159265f / 180.0f), 1e-5);
    CHECK_NEAR(ground_at(&slope, 5.0f, 0.0f).height, 0.0f, 1e-6);
    ground_sample tilted = ground_at(&slope, 1.0f, 1.0f);
    CHECK_NEAR(acosf(tilted.normal[1]) * 180.0f / 3.14159265f, 30.0f, 1e-3);
    CHECK(tilted.normal[2] < 0.0f); /* leaning away from uphill */
    check_normal_matches_heights(&slope, 0.3f, -0.7f);

    /* Out-of-range settings are held at the documented limits, never NaN. */
    ground steep = {.kind = GROUND_SLOPE, .slope_degrees = 89.0f, .uphill = {0.0f, 0.0f}};
    ground_sample held = ground_at(&steep, 1.0f, 0.0f);
    CHECK_NEAR(held.height, tanf(60.0f * 3.14159265f / 180.0f), 1e-4);
    ground nan_slope = {.kind = GROUND_SLOPE, .slope_degrees = NAN, .uphill = {NAN, 1.0f}};
    CHECK(ground_at(&nan_slope, 1.0f, 1.0f).height == 0.0f);
    return check_report();
}
