/* The third-person orbit camera: where the eye is for a yaw, pitch and distance; forward on the ground points
 * from the eye to the target; orbiting wraps; pitch and distance limits; the eye never goes under the floor
 * for any input; follow smoothing that does not depend on the frame rate; the view puts the target in the
 * middle of the screen; bad params and inputs are shrugged off. */
#include <math.h>
#include <stdio.h>

#include "camera.h"
#include "check.h"

static const float origin[3] = {0.0f, 0.0f, 0.0f};

/* A camera at (yaw, pitch, distance) exactly, from the defaults. */
static camera posed(float yaw_degrees, float pitch_degrees, float distance, const float target[3])
{
    camera c;
    camera_init(&c, NULL, target);
    camera_orbit(&c, yaw_degrees, pitch_degrees - c.pitch_degrees);
    camera_zoom(&c, distance - c.distance);
    return c;
}

static void test_eye_for_known_angles(void)
{
    camera c;
    camera_init(&c, NULL, origin);
    CHECK(c.yaw_degrees == 0.0f);
    CHECK_NEAR(c.pitch_degrees, 15.0, 1e-6);
    CHECK_NEAR(c.distance, 4.0, 1e-6);

    /* Yaw 0 looks along +X: the eye is behind a character facing heading 0, at the look-at height. */
    vec3 eye;
    c = posed(0.0f, 0.0f, 4.0f, origin);
    camera_eye(&c, eye);
    CHECK_NEAR(eye[0], -4.0, 1e-5);
    CHECK_NEAR(eye[1], 1.1, 1e-5);
    CHECK_NEAR(eye[2], 0.0, 1e-5);

    /* Yaw 90 looks along heading 90 degrees, -Z: the eye is on +Z. */
    c = posed(90.0f, 0.0f, 4.0f, origin);
    camera_eye(&c, eye);
    CHECK_NEAR(eye[0], 0.0, 1e-5);
    CHECK_NEAR(eye[2], 4.0, 1e-5);

    /* Pitch 30 from a moved target: up by d sin 30, back by d cos 30. */
    const float target[3] = {2.0f, 0.0f, -1.0f};
    c = posed(0.0f, 30.0f, 6.0f, target);
    camera_eye(&c, eye);
    CHECK_NEAR(eye[0], 2.0 - 6.0 * cos(30.0 * GLM_PI / 180.0), 1e-5);
    CHECK_NEAR(eye[1], 1.1 + 3.0, 1e-5);
    CHECK_NEAR(eye[2], -1.0, 1e-5);
    CHECK_NEAR(glm_vec3_distance(eye, (vec3){2.0f, 1.1f, -1.0f}), 6.0, 1e-5);

    vec3 look_at;
    camera_look_at(&c, look_at);
    CHECK_NEAR(look_at[0], 2.0, 1e-6);
    CHECK_NEAR(look_at[1], 1.1, 1e-6);
    CHECK_NEAR(look_at[2], -1.0, 1e-6);
}

static void test_forward_points_away_from_the_camera(void)
{
    float yaws[] = {0.0f, 37.0f, 90.0f, -120.0f, 179.0f};
    for (int i = 0; i < 5; ++i) {
        camera c = posed(yaws[i], 25.0f, 5.0f, origin);
        vec3 eye, look_at;
        camera_eye(&c, eye);
        camera_look_at(&c, look_at);
        float x, z;
        camera_ground_forward(&c, &x, &z);
        CHECK_NEAR(x * x + z * z, 1.0, 1e-5);
        /* The eye-to-target direction on the ground, normalized, is forward. */
        float dx = look_at[0] - eye[0], dz = look_at[2] - eye[2], length = sqrtf(dx * dx + dz * dz);
        CHECK_NEAR(dx / length, x, 1e-5);
        CHECK_NEAR(dz / length, z, 1e-5);
        /* And it is the heading the yaw names, in mover's convention (atan2(-z, x)). */
        CHECK_NEAR(atan2f(-z, x), camera_yaw_radians(&c), 1e-5);
    }
}

static void test_orbiting_a_full_turn_returns(void)
{
    camera c = posed(30.0f, 20.0f, 5.0f, origin);
    vec3 start, eye;
    camera_eye(&c, start);
    for (int i = 0; i < 36; ++i)
        camera_orbit(&c, 10.0f, 0.0f);
    camera_eye(&c, eye);
    CHECK(glm_vec3_distance(start, eye) < 1e-4f);
    CHECK_NEAR(c.yaw_degrees, 30.0, 1e-3);
    /* Yaw stays wrapped however far it is turned. */
    for (int i = 0; i < 100; ++i)
        camera_orbit(&c, -77.0f, 0.0f);
    CHECK(c.yaw_degrees > -180.0f && c.yaw_degrees <= 180.0f);
    CHECK_NEAR(c.yaw_degrees, -110.0, 1e-2); /* 30 - 7700 = -7670 = -110 - 21 * 360 */
}

static void test_pitch_and_zoom_limits(void)
{
    camera_params params = camera_default_params();
    camera c;
    camera_init(&c, NULL, origin);
    camera_orbit(&c, 0.0f, 500.0f);
    CHECK(c.pitch_degrees == params.max_pitch_degrees);
    camera_orbit(&c, 0.0f, -500.0f);
    CHECK(c.pitch_degrees == params.min_pitch_degrees);
    camera_zoom(&c, 100.0f);
    CHECK(c.distance == params.max_distance);
    camera_zoom(&c, -100.0f);
    CHECK(c.distance == params.min_distance);
    camera_zoom(&c, 1.0f);
    CHECK_NEAR(c.distance, params.min_distance + 1.0f, 1e-6);
    /* Non-finite input changes nothing. */
    camera before = c;
    camera_orbit(&c, NAN, INFINITY);
    camera_zoom(&c, NAN);
    CHECK(c.yaw_degrees == before.yaw_degrees && c.pitch_degrees == before.pitch_degrees);
    CHECK(c.distance == before.distance);
}

static void test_bad_params_fall_back_to_defaults(void)
{
    camera_params defaults = camera_default_params();
    camera_params bad = defaults;
    bad.min_distance = 8.0f;
    bad.max_distance = 2.0f;                 /* out of order */
    bad.min_pitch_degrees = NAN;
    bad.max_pitch_degrees = 95.0f;           /* past straight down: clamped below 90 */
    bad.follow_rate = -1.0f;
    bad.vertical_fov_degrees = 0.0f;
    bad.near_plane = 0.0f;
    camera c;
    camera_init(&c, &bad, (const float[3]){NAN, 0.0f, 0.0f});
    CHECK(c.params.min_distance == defaults.min_distance && c.params.max_distance == defaults.max_distance);
    CHECK(c.params.min_pitch_degrees == defaults.min_pitch_degrees);
    CHECK(c.params.max_pitch_degrees == defaults.max_pitch_degrees);
    CHECK(c.params.follow_rate == defaults.follow_rate);
    CHECK(c.params.vertical_fov_degrees == defaults.vertical_fov_degrees);
    CHECK(c.params.near_plane == defaults.near_plane && c.params.far_plane == defaults.far_plane);
    CHECK(c.target[0] == 0.0f); /* a non-finite target reads as the origin */

    camera_params steep = defaults;
    steep.max_pitch_degrees = 120.0f;
    camera_init(&c, &steep, origin);
    CHECK(c.params.max_pitch_degrees < 90.0f);
    camera_orbit(&c, 0.0f, 1000.0f);
    mat4 view, projection;
    camera_matrices(&c, NAN, view, projection, NULL);
    for (int i = 0; i < 4; ++i)
        for (int k = 0; k < 4; ++k)
            CHECK(isfinite(view[i][k]) && isfinite(projection[i][k]));
}

/* Every yaw, pitch and distance the input can reach, with the target on the floor, above it and below it
 * (a bad target): the eye is never lower than the clearance, never on the look-at point, and the matrices
 * stay finite. */
static void test_eye_never_below_the_floor(void)
{
    camera_params params = camera_default_params();
    float heights[] = {0.0f, 0.3f, 1.0f, -0.5f, -3.0f};
    float lowest = INFINITY, closest = INFINITY;
    int raised = 0, poses = 0;
    for (int h = 0; h < 5; ++h) {
        const float target[3] = {1.0f, heights[h], -2.0f};
        camera c;
        camera_init(&c, NULL, target);
        for (int zoom = 0; zoom <= 24; ++zoom) {
            camera_zoom(&c, -100.0f);
            camera_zoom(&c, 0.5f * (float)zoom);
            for (int pitch = 0; pitch <= 40; ++pitch) {
                camera_orbit(&c, 0.0f, -500.0f);
                camera_orbit(&c, 0.0f, 2.5f * (float)pitch + 0.3f);
                for (int yaw = 0; yaw < 12; ++yaw) {
                    camera_orbit(&c, 31.0f, 0.0f);
                    vec3 eye, look_at;
                    camera_eye(&c, eye);
                    camera_look_at(&c, look_at);
                    lowest = fminf(lowest, eye[1]);
                    closest = fminf(closest, glm_vec3_distance(eye, look_at));
                    raised += eye[1] == params.floor_clearance;
                    ++poses;
                    CHECK(eye[1] >= params.floor_clearance);
                }
            }
        }
        /* Matrices at the worst corner: lowest pitch, farthest away. */
        camera_orbit(&c, 0.0f, -500.0f);
        camera_zoom(&c, 100.0f);
        mat4 view, projection;
        vec3 eye;
        camera_matrices(&c, 16.0f / 9.0f, view, projection, eye);
        CHECK(eye[1] >= params.floor_clearance);
        for (int i = 0; i < 4; ++i)
            for (int k = 0; k < 4; ++k)
                CHECK(isfinite(view[i][k]));
    }
    printf("  floor rule: %d poses, lowest eye %.3f m, %d raised to the clearance, closest to the look-at %.3f m\n",
           poses, lowest, raised, closest);
    CHECK(raised > 0); /* the pitch limit alone would have gone under */
    CHECK(closest > 0.2f);
}

/* Followed point after `seconds` of following a target that walks at 1.4 m/s along +X and then stops, at
 * `hz` steps a second. */
static void follow_walker(float hz, float seconds, vec3 out)
{
    camera c;
    camera_init(&c, NULL, origin);
    int steps = (int)lroundf(seconds * hz);
    for (int i = 1; i <= steps; ++i) {
        float t = (float)i / hz;
        float target[3] = {1.4f * fminf(t, 1.0f), 0.0f, 0.3f * fminf(t, 1.0f)};
        camera_follow(&c, target, 1.0f / hz);
    }
    glm_vec3_copy(c.target, out);
}

static void test_follow_is_frame_rate_independent(void)
{
    /* A jump of the target: the gap shrinks by exp(-rate t) whatever the step. */
    float rates[] = {30.0f, 60.0f, 144.0f};
    float gap[3];
    for (int r = 0; r < 3; ++r) {
        camera c;
        camera_init(&c, NULL, origin);
        camera_follow(&c, (const float[3]){10.0f, 0.0f, 0.0f}, 0.0f); /* the target jumps, no time passes */
        CHECK(c.target[0] == 0.0f);
        for (int i = 0; i < (int)rates[r] / 2; ++i)
            camera_follow(&c, (const float[3]){10.0f, 0.0f, 0.0f}, 1.0f / rates[r]);
        gap[r] = 10.0f - c.target[0];
        CHECK_NEAR(gap[r], 10.0 * exp(-8.0 * 0.5), 1e-3);
    }

    /* A walking target: the same place after 0.5 s (still walking) and 1.5 s (stopped) at every rate. */
    float times[] = {0.5f, 1.5f};
    for (int t = 0; t < 2; ++t) {
        vec3 at[3];
        for (int r = 0; r < 3; ++r)
            follow_walker(rates[r], times[t], at[r]);
        float spread = fmaxf(glm_vec3_distance(at[0], at[1]), glm_vec3_distance(at[1], at[2]));
        printf("  follow after %.1f s: x %.4f (30 Hz) %.4f (60 Hz) %.4f (144 Hz), spread %.2g m\n", times[t],
               at[0][0], at[1][0], at[2][0], spread);
        CHECK(spread < 1e-3f);
        /* It lags behind while the target walks (about speed / rate), and catches up once it stops. */
        if (t == 0)
            CHECK(at[1][0] < 0.7f - 0.1f && at[1][0] > 0.7f - 0.25f);
        else
            CHECK_NEAR(at[1][0], 1.4, 0.02);
    }

    /* Non-finite targets and steps are ignored. */
    camera c;
    camera_init(&c, NULL, origin);
    camera_follow(&c, (const float[3]){NAN, 1.0f, 1.0f}, 0.1f);
    camera_follow(&c, (const float[3]){1.0f, 1.0f, 1.0f}, NAN);
    camera_follow(&c, (const float[3]){1.0f, 1.0f, 1.0f}, -0.1f);
    CHECK(c.target[0] == 0.0f && c.target[1] == 0.0f && c.goal[0] == 0.0f);
    camera_snap(&c, (const float[3]){3.0f, 0.0f, 4.0f});
    CHECK(c.target[0] == 3.0f && c.target[2] == 4.0f);
}

static void test_view_centres_the_target(void)
{
    float yaws[] = {0.0f, 45.0f, -100.0f};
    float pitches[] = {-20.0f, 10.0f, 60.0f};
    for (int i = 0; i < 3; ++i) {
        const float target[3] = {3.0f, 0.0f, -7.0f};
        camera c = posed(yaws[i], pitches[i], 12.0f, target); /* -20 at 12 m is raised by the floor rule */
        mat4 view, projection, view_projection;
        vec3 eye, look_at;
        camera_matrices(&c, 16.0f / 9.0f, view, projection, eye);
        camera_look_at(&c, look_at);
        glm_mat4_mul(projection, view, view_projection);
        vec4 clip;
        glm_mat4_mulv(view_projection, (vec4){look_at[0], look_at[1], look_at[2], 1.0f}, clip);
        CHECK(clip[3] > 0.0f);
        CHECK_NEAR(clip[0] / clip[3], 0.0, 1e-5);
        CHECK_NEAR(clip[1] / clip[3], 0.0, 1e-5);
        CHECK(clip[2] / clip[3] > -1.0f && clip[2] / clip[3] < 1.0f);
        /* A point a metre above the target is higher on screen; one to the camera's right is right. */
        vec4 above;
        glm_mat4_mulv(view_projection, (vec4){look_at[0], look_at[1] + 1.0f, look_at[2], 1.0f}, above);
        CHECK(above[1] / above[3] > 0.05f);
        float fx, fz;
        camera_ground_forward(&c, &fx, &fz);
        vec4 right;
        glm_mat4_mulv(view_projection, (vec4){look_at[0] - fz, look_at[1], look_at[2] + fx, 1.0f}, right);
        CHECK(right[0] / right[3] > 0.05f);
        /* The eye itself is at the view's origin. */
        vec4 eye_in_view;
        glm_mat4_mulv(view, (vec4){eye[0], eye[1], eye[2], 1.0f}, eye_in_view);
        CHECK(glm_vec3_norm(eye_in_view) < 1e-4f);
    }
    /* Projection: 50 degrees vertical, near 0.05 and far 200. */
    camera c;
    camera_init(&c, NULL, origin);
    mat4 view, projection;
    camera_matrices(&c, 2.0f, view, projection, NULL);
    CHECK_NEAR(projection[1][1], 1.0 / tan(25.0 * GLM_PI / 180.0), 1e-4);
    CHECK_NEAR(projection[0][0], projection[1][1] / 2.0, 1e-4);
    vec4 near_point;
    glm_mat4_mulv(projection, (vec4){0.0f, 0.0f, -0.05f, 1.0f}, near_point);
    CHECK_NEAR(near_point[2] / near_point[3], -1.0, 1e-4);
}

/* A subject's height frames it: 1.8 m is exactly the params' view; 0.5 m and 3 m scale the look-at height and
 * the eye's distance, so each fills the view the same; heights out of range are ignored. */
static void test_framing_by_subject_height(void)
{
    camera plain, framed;
    camera_init(&plain, NULL, (float[3]){1.0f, 0.0f, 2.0f});
    camera_init(&framed, NULL, (float[3]){1.0f, 0.0f, 2.0f});
    camera_frame_subject(&framed, 1.8f);
    vec3 a, b;
    camera_eye(&plain, a);
    camera_eye(&framed, b);
    CHECK(a[0] == b[0] && a[1] == b[1] && a[2] == b[2]);
    camera_look_at(&plain, a);
    camera_look_at(&framed, b);
    CHECK(a[0] == b[0] && a[1] == b[1] && a[2] == b[2]);
    CHECK_NEAR(a[1], camera_default_params().target_height, 0.0);

    float heights[] = {0.5f, 3.0f};
    for (int i = 0; i < 2; ++i) {
        camera_frame_subject(&framed, heights[i]);
        float k = heights[i] / 1.8f;
        vec3 look_at, eye;
        camera_look_at(&framed, look_at);
        camera_eye(&framed, eye);
        CHECK_NEAR(look_at[1], camera_default_params().target_height * k, 1e-6);
        CHECK_NEAR(glm_vec3_distance(look_at, eye), framed.distance * k, 1e-4);
        /* Seen along the view, the subject spans the same angle: its height over the eye's distance. */
        CHECK_NEAR(heights[i] / glm_vec3_distance(look_at, eye), 1.8f / (plain.distance), 1e-4);
    }
    float before = framed.subject_height;
    camera_frame_subject(&framed, 0.0f);
    camera_frame_subject(&framed, NAN);
    camera_frame_subject(&framed, 1000.0f);
    CHECK(framed.subject_height == before);
}

/* Over hills the eye keeps its clearance above the ground under it, not above y = 0: behind a player
 * at the foot of a hill, looking up, the eye would otherwise be inside the hill. */
static void test_eye_above_uneven_ground(void)
{
    camera_params params = camera_default_params();
    ground hills = {.kind = GROUND_HILLS};
    int raised_above_zero = 0, poses = 0;
    for (int spot = 0; spot < 16; ++spot) {
        float x = -30.0f + 4.0f * (float)spot, z = 11.0f - 3.0f * (float)spot;
        const float target[3] = {x, ground_at(&hills, x, z).height, z};
        camera c;
        camera_init(&c, NULL, target);
        c.ground = &hills;
        for (int pitch = 0; pitch <= 10; ++pitch) {
            camera_orbit(&c, 0.0f, -500.0f);
            camera_orbit(&c, 0.0f, 10.0f * (float)pitch);
            for (int yaw = 0; yaw < 12; ++yaw) {
                camera_orbit(&c, 30.0f, 0.0f);
                camera_zoom(&c, 100.0f);
                vec3 eye;
                camera_eye(&c, eye);
                float under = ground_at(&hills, eye[0], eye[2]).height;
                CHECK(eye[1] >= under + params.floor_clearance - 1e-5f);
                bool raised = fabsf(eye[1] - under - params.floor_clearance) < 1e-5f;
                raised_above_zero += raised && eye[1] > params.floor_clearance;
                ++poses;
            }
        }
    }
    printf("  uneven ground: %d poses, %d raised to the clearance over the hill under the eye\n", poses,
           raised_above_zero);
    CHECK(raised_above_zero > 0); /* the old rule (y = 0) would have left those in the hill */
}

int main(void)
{
    RUN(test_eye_above_uneven_ground);
    RUN(test_framing_by_subject_height);
    RUN(test_eye_for_known_angles);
    RUN(test_forward_points_away_from_the_camera);
    RUN(test_orbiting_a_full_turn_returns);
    RUN(test_pitch_and_zoom_limits);
    RUN(test_bad_params_fall_back_to_defaults);
    RUN(test_eye_never_below_the_floor);
    RUN(test_follow_is_frame_rate_independent);
    RUN(test_view_centres_the_target);
    return check_report();
}
