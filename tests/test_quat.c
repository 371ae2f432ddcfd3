/* test_quat: the interpolation and reconstruction corner cases real clips hit (docs/md5-format.md): equal,
 * nearly equal, opposite and 180-degrees-apart inputs, non-unit inputs, and the w recovery of stored
 * x, y, z with rounding, |xyz| = 1, a buggy |xyz|^2 = 1.6 and NaN. */
#include <math.h>
#include <stdbool.h>

#include "base/quat.h"
#include "check.h"

typedef void (*interpolate_function)(const float a[4], const float b[4], float t, float out[4]);

static const struct {
    const char *name;
    interpolate_function interpolate;
} interpolations[] = {{"nlerp", quat_nlerp}, {"slerp", quat_slerp}};
enum { INTERPOLATION_COUNT = sizeof interpolations / sizeof interpolations[0] };

static const float sqrt_half = 0.70710678f;

/* Rotation by `degrees` about the unit axis (x, y, z). */
static void axis_angle(float x, float y, float z, float degrees, float out[4])
{
    float half = degrees * 3.14159265f / 360.0f;
    out[0] = x * sinf(half);
    out[1] = y * sinf(half);
    out[2] = z * sinf(half);
    out[3] = cosf(half);
}

static float dot4(const float a[4], const float b[4])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
}

static bool all_finite(const float q[4])
{
    return isfinite(q[0]) && isfinite(q[1]) && isfinite(q[2]) && isfinite(q[3]);
}

/* Angle in degrees of the rotation taking a to b; q and -q count as the same rotation. */
static float degrees_between(const float a[4], const float b[4])
{
    float d = fabsf(dot4(a, b)) / sqrtf(dot4(a, a) * dot4(b, b));
    if (d > 1.0f)
        d = 1.0f;
    return 2.0f * acosf(d) * 180.0f / 3.14159265f;
}

/* Every t in [0, 1] on a 1/16 grid: output finite and unit. */
static void check_finite_unit_everywhere(const float a[4], const float b[4])
{
    for (int f = 0; f < INTERPOLATION_COUNT; ++f) {
        for (int step = 0; step <= 16; ++step) {
            float out[4];
            interpolations[f].interpolate(a, b, (float)step / 16.0f, out);
            CHECK(all_finite(out));
            CHECK_NEAR(dot4(out, out), 1.0, 1e-5);
        }
    }
}

static void test_equal_inputs(void)
{
    float q[4];
    axis_angle(0.0f, 0.6f, 0.8f, 73.0f, q);
    check_finite_unit_everywhere(q, q);
    for (int f = 0; f < INTERPOLATION_COUNT; ++f) {
        float out[4];
        interpolations[f].interpolate(q, q, 0.37f, out);
        for (int k = 0; k < 4; ++k)
            CHECK_NEAR(out[k], q[k], 1e-6);
    }
}

static void test_nearly_equal_inputs(void)
{
    /* 1e-7 apart: the textbook slerp divides by sin(about 1e-7) here. */
    float a[4] = {0.0f, 0.0f, 0.0f, 1.0f};
    float b[4] = {1e-7f, 0.0f, 0.0f, 1.0f};
    check_finite_unit_everywhere(a, b);
    float c[4];
    axis_angle(0.0f, 0.0f, 1.0f, 30.0f, c);
    float d[4] = {c[0], c[1], c[2] + 1e-7f, c[3]};
    check_finite_unit_everywhere(c, d);
    for (int f = 0; f < INTERPOLATION_COUNT; ++f) {
        float out[4];
        interpolations[f].interpolate(c, d, 0.5f, out);
        for (int k = 0; k < 4; ++k)
            CHECK_NEAR(out[k], c[k], 1e-6);
    }
}

static void test_opposite_inputs(void)
{
    /* q and -q are the same rotation: every t gives that rotation, not a trip through zero. */
    float q[4];
    axis_angle(0.48f, 0.6f, 0.64f, 120.0f, q);
    float minus_q[4] = {-q[0], -q[1], -q[2], -q[3]};
    check_finite_unit_everywhere(q, minus_q);
    for (int f = 0; f < INTERPOLATION_COUNT; ++f) {
        for (int step = 0; step <= 4; ++step) {
            float out[4];
            interpolations[f].interpolate(q, minus_q, (float)step / 4.0f, out);
            CHECK_NEAR(fabsf(dot4(out, q)), 1.0, 1e-6);
        }
    }
}

static void test_180_degrees_apart(void)
{
    /* Identity and a half turn about x: dot 0, the widest gap shortest-arc interpolation ever sees. */
    float identity[4] = {0.0f, 0.0f, 0.0f, 1.0f};
    float half_turn[4] = {1.0f, 0.0f, 0.0f, 0.0f};
    check_finite_unit_everywhere(identity, half_turn);
    for (int f = 0; f < INTERPOLATION_COUNT; ++f) {
        float out[4];
        interpolations[f].interpolate(identity, half_turn, 0.5f, out);
        /* Quarter turn about x. */
        CHECK_NEAR(out[0], sqrt_half, 1e-6);
        CHECK_NEAR(out[1], 0.0, 1e-6);
        CHECK_NEAR(out[2], 0.0, 1e-6);
        CHECK_NEAR(out[3], sqrt_half, 1e-6);
    }
}

static void test_endpoints(void)
{
    float a[4], b[4];
    axis_angle(0.0f, 0.0f, 1.0f, 10.0f, a);
    axis_angle(0.6f, 0.0f, 0.8f, 150.0f, b);
    for (int f = 0; f < INTERPOLATION_COUNT; ++f) {
        float out[4];
        interpolations[f].interpolate(a, b, 0.0f, out);
        for (int k = 0; k < 4; ++k)
            CHECK_NEAR(out[k], a[k], 1e-6);
        interpolations[f].interpolate(a, b, 1.0f, out);
        for (int k = 0; k < 4; ++k)
            CHECK_NEAR(out[k], b[k], 1e-6);
    }
}

static void test_shortest_arc(void)
{
    /* b stored with the opposite sign (as Doom 3's positive-w convention would give): the midpoint of
     * 0 and 90 degrees about z is 45 degrees, not the 135 degrees of the long way round. */
    float identity[4] = {0.0f, 0.0f, 0.0f, 1.0f};
    float quarter[4];
    axis_angle(0.0f, 0.0f, 1.0f, 90.0f, quarter);
    float minus_quarter[4] = {-quarter[0], -quarter[1], -quarter[2], -quarter[3]};
    for (int f = 0; f < INTERPOLATION_COUNT; ++f) {
        float out[4];
        interpolations[f].interpolate(identity, minus_quarter, 0.5f, out);
        CHECK_NEAR(degrees_between(identity, out), 45.0, 1e-3);
        CHECK_NEAR(degrees_between(out, quarter), 45.0, 1e-3);
        CHECK_NEAR(out[3], cosf(22.5f * 3.14159265f / 180.0f), 1e-6); /* towards identity, not -identity */
        interpolations[f].interpolate(identity, minus_quarter, 1.0f, out);
        CHECK_NEAR(degrees_between(out, quarter), 0.0, 1e-2);
    }
}

static void test_non_unit_inputs(void)
{
    float a[4], b[4];
    axis_angle(0.0f, 1.0f, 0.0f, 20.0f, a);
    axis_angle(0.0f, 1.0f, 0.0f, 100.0f, b);
    float long_a[4] = {3.0f * a[0], 3.0f * a[1], 3.0f * a[2], 3.0f * a[3]};
    float short_b[4] = {0.25f * b[0], 0.25f * b[1], 0.25f * b[2], 0.25f * b[3]};
    check_finite_unit_everywhere(long_a, short_b);
    for (int f = 0; f < INTERPOLATION_COUNT; ++f) {
        float out[4];
        interpolations[f].interpolate(long_a, short_b, 0.0f, out);
        for (int k = 0; k < 4; ++k)
            CHECK_NEAR(out[k], a[k], 1e-6);
        interpolations[f].interpolate(long_a, short_b, 1.0f, out);
        for (int k = 0; k < 4; ++k)
            CHECK_NEAR(out[k], b[k], 1e-6);
        /* Magnitudes must not bias the blend: the midpoint of 20 and 100 degrees is 60. */
        interpolations[f].interpolate(long_a, short_b, 0.5f, out);
        CHECK_NEAR(degrees_between(out, a), 40.0, 1e-2);
    }
    /* A zero quaternion is no rotation at all; the result must still be a finite unit quaternion. */
    float zero[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    check_finite_unit_everywhere(zero, b);
}

static void test_slerp_constant_angular_velocity(void)
{
    float a[4], b[4];
    axis_angle(1.0f, 0.0f, 0.0f, 10.0f, a);
    axis_angle(0.0f, 0.6f, 0.8f, 130.0f, b);
    float total = degrees_between(a, b);
    for (int step = 0; step <= 10; ++step) {
        float t = (float)step / 10.0f;
        float out[4];
        quat_slerp(a, b, t, out);
        CHECK_NEAR(degrees_between(a, out), t * total, 2e-2);
        CHECK_NEAR(degrees_between(out, b), (1.0f - t) * total, 2e-2);
    }
}

static void test_nlerp_stays_on_the_arc(void)
{
    /* nlerp trades constant speed for cheapness, but it still moves along the same great arc,
     * monotonically: angles from a and to b add up to the whole. */
    float a[4], b[4];
    axis_angle(0.0f, 0.0f, 1.0f, 0.0f, a);
    axis_angle(0.0f, 0.0f, 1.0f, 160.0f, b);
    float previous = -1.0f;
    for (int step = 0; step <= 10; ++step) {
        float out[4];
        quat_nlerp(a, b, (float)step / 10.0f, out);
        float from_a = degrees_between(a, out);
        CHECK_NEAR(from_a + degrees_between(out, b), 160.0, 2e-2);
        CHECK(from_a > previous);
        previous = from_a;
    }
}

static void test_from_xyz_ordinary(void)
{
    float out[4];
    CHECK(quat_from_xyz(0.0f, 0.0f, 0.0f, out));
    CHECK_NEAR(out[3], -1.0, 0.0);
    CHECK(quat_from_xyz(0.5f, 0.5f, 0.5f, out));
    CHECK_NEAR(out[0], 0.5, 0.0);
    CHECK_NEAR(out[3], -0.5, 1e-7); /* the tutorials' negative sign */
    CHECK_NEAR(dot4(out, out), 1.0, 1e-6);
}

static void test_from_xyz_slightly_negative_radicand(void)
{
    /* 0.36 + 0.64 + 1e-6: 1 - |xyz|^2 is about -1e-6, as 6-decimal files often write. */
    float out[4];
    CHECK(quat_from_xyz(0.6f, 0.8f, 0.001f, out));
    CHECK(all_finite(out));
    CHECK_NEAR(dot4(out, out), 1.0, 1e-6);
    CHECK_NEAR(out[0], 0.6, 1e-6);
    CHECK_NEAR(out[1], 0.8, 1e-6);
    CHECK_NEAR(out[3], 0.0, 1e-6);
}

static void test_from_xyz_unit_xyz(void)
{
    float out[4];
    CHECK(quat_from_xyz(1.0f, 0.0f, 0.0f, out));
    CHECK(all_finite(out));
    CHECK_NEAR(out[0], 1.0, 0.0);
    CHECK_NEAR(out[3], 0.0, 0.0);
    CHECK(quat_from_xyz(0.6f, 0.0f, 0.8f, out));
    CHECK(all_finite(out));
    CHECK_NEAR(dot4(out, out), 1.0, 1e-6);
    CHECK_NEAR(out[3], 0.0, 1e-3);
}

static void test_from_xyz_buggy_exporter(void)
{
    /* |xyz|^2 = 1 + 0.6: renormalized, w = 0, and false so the loader can warn. */
    float out[4];
    CHECK(!quat_from_xyz(1.0f, sqrtf(0.6f), 0.0f, out));
    CHECK(all_finite(out));
    CHECK_NEAR(dot4(out, out), 1.0, 1e-6);
    CHECK_NEAR(out[0], 1.0 / sqrt(1.6), 1e-6);
    CHECK_NEAR(out[3], 0.0, 0.0);
}

static void test_from_xyz_not_a_number(void)
{
    float out[4];
    CHECK(!quat_from_xyz(NAN, 0.0f, 0.0f, out));
    CHECK(all_finite(out));
    CHECK_NEAR(dot4(out, out), 1.0, 1e-6);
    CHECK(!quat_from_xyz(0.0f, INFINITY, 0.0f, out));
    CHECK(all_finite(out));
    CHECK_NEAR(dot4(out, out), 1.0, 1e-6);
}

static void test_normalize(void)
{
    float q[4] = {0.0f, 0.0f, 0.0f, 2.0f};
    quat_normalize(q);
    CHECK_NEAR(q[3], 1.0, 0.0);
    float zero[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    quat_normalize(zero);
    CHECK(zero[0] == 0.0f && zero[1] == 0.0f && zero[2] == 0.0f && zero[3] == 1.0f);
    float broken[4] = {NAN, 1.0f, 0.0f, 0.0f};
    quat_normalize(broken);
    CHECK(broken[0] == 0.0f && broken[1] == 0.0f && broken[2] == 0.0f && broken[3] == 1.0f);
}

int main(void)
{
    RUN(test_equal_inputs);
    RUN(test_nearly_equal_inputs);
    RUN(test_opposite_inputs);
    RUN(test_180_degrees_apart);
    RUN(test_endpoints);
    RUN(test_shortest_arc);
    RUN(test_non_unit_inputs);
    RUN(test_slerp_constant_angular_velocity);
    RUN(test_nlerp_stays_on_the_arc);
    RUN(test_from_xyz_ordinary);
    RUN(test_from_xyz_slightly_negative_radicand);
    RUN(test_from_xyz_unit_xyz);
    RUN(test_from_xyz_buggy_exporter);
    RUN(test_from_xyz_not_a_number);
    RUN(test_normalize);
    return check_report();
}
