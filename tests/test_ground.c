/* test_ground: the ground query's heights and normals (engine/world/ground.h). */
#include <math.h>

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

int main(void)
{
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
