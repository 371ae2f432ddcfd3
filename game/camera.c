/* camera: see camera.h. */
#include "camera.h"

#include <math.h>
#include <stdbool.h>

/* Pitch never reaches +-90 degrees: the eye would be straight above or below the look-at point and the
 * view's up vector (Y) would be parallel to the line of sight. */
#define CAMERA_PITCH_LIMIT_DEGREES 89.0f
#define CAMERA_START_PITCH_DEGREES 15.0f
#define CAMERA_START_DISTANCE 4.0f

camera_params camera_default_params(void)
{
    return (camera_params){
        .min_distance = 1.5f,
        .max_distance = 12.0f,
        .min_pitch_degrees = -20.0f,
        .max_pitch_degrees = 80.0f,
        .target_height = 1.1f,
        .floor_clearance = 0.2f,
        .follow_rate = 8.0f,
        .vertical_fov_degrees = 50.0f,
        .near_plane = 0.05f,
        .far_plane = 200.0f,
    };
}

static bool finite_pair_in_order(float low, float high)
{
    return isfinite(low) && isfinite(high) && low <= high;
}

/* Every param usable: a bad one (or a bad pair of limits) falls back to its default, so a mistake in a
 * settings file shows a default camera rather than NaN matrices. */
static camera_params sanitized(const camera_params *given)
{
    camera_params defaults = camera_default_params();
    if (!given)
        return defaults;
    camera_params p = *given;
    if (!finite_pair_in_order(p.min_distance, p.max_distance) || !(p.min_distance > 0.0f)) {
        p.min_distance = defaults.min_distance;
        p.max_distance = defaults.max_distance;
    }
    if (!finite_pair_in_order(p.min_pitch_degrees, p.max_pitch_degrees)) {
        p.min_pitch_degrees = defaults.min_pitch_degrees;
        p.max_pitch_degrees = defaults.max_pitch_degrees;
    }
    p.min_pitch_degrees = glm_clamp(p.min_pitch_degrees, -CAMERA_PITCH_LIMIT_DEGREES, CAMERA_PITCH_LIMIT_DEGREES);
    p.max_pitch_degrees = glm_clamp(p.max_pitch_degrees, -CAMERA_PITCH_LIMIT_DEGREES, CAMERA_PITCH_LIMIT_DEGREES);
    if (!isfinite(p.target_height))
        p.target_height = defaults.target_height;
    if (!isfinite(p.floor_clearance))
        p.floor_clearance = defaults.floor_clearance;
    if (!(p.follow_rate > 0.0f) || !isfinite(p.follow_rate))
        p.follow_rate = defaults.follow_rate;
    if (!(p.vertical_fov_degrees > 1.0f && p.vertical_fov_degrees < 179.0f))
        p.vertical_fov_degrees = defaults.vertical_fov_degrees;
    if (!finite_pair_in_order(p.near_plane, p.far_plane) || !(p.near_plane > 0.0f) || p.near_plane == p.far_plane) {
        p.near_plane = defaults.near_plane;
        p.far_plane = defaults.far_plane;
    }
    return p;
}

static bool finite3(const float v[3])
{
    return v && isfinite(v[0]) && isfinite(v[1]) && isfinite(v[2]);
}

void camera_init(camera *camera, const camera_params *params, const float target[3])
{
    if (!camera)
        return;
    camera->params = sanitized(params);
    camera->subject_height = 0.0f;
    camera->ground = NULL;
    camera->yaw_degrees = 0.0f;
    camera->pitch_degrees = glm_clamp(CAMERA_START_PITCH_DEGREES, camera->params.min_pitch_degrees,
                                      camera->params.max_pitch_degrees);
    camera->distance = glm_clamp(CAMERA_START_DISTANCE, camera->params.min_distance, camera->params.max_distance);
    camera_snap(camera, finite3(target) ? target : (const float[3]){0.0f, 0.0f, 0.0f});
}

/* (-180, 180] */
static float wrap_degrees(float angle)
{
    angle = fmodf(angle + 180.0f, 360.0f);
    if (angle <= 0.0f)
        angle += 360.0f;
    return angle - 180.0f;
}

void camera_orbit(camera *camera, float yaw_degrees, float pitch_degrees)
{
    if (!camera)
        return;
    if (isfinite(yaw_degrees))
        camera->yaw_degrees = wrap_degrees(camera->yaw_degrees + yaw_degrees);
    if (isfinite(pitch_degrees))
        camera->pitch_degrees = glm_clamp(camera->pitch_degrees + pitch_degrees, camera->params.min_pitch_degrees,
                                          camera->params.max_pitch_degrees);
}

void camera_zoom(camera *camera, float metres)
{
    if (!camera || !isfinite(metres))
        return;
    camera->distance = glm_clamp(camera->distance + metres, camera->params.min_distance, camera->params.max_distance);
}

void camera_follow(camera *camera, const float target[3], float dt)
{
    if (!camera || !finite3(target) || !(dt >= 0.0f) || !isfinite(dt))
        return;
    /* The goal moves from `goal` to `target` during the step at a steady velocity v, and the followed point
     * p chases it: p' = rate * (goal(t) - p). Solved over the step:
     *   p(dt) = target - (target - goal) * s + (p - goal) * e,  e = exp(-rate dt), s = (1 - e) / (rate dt)
     * (s -> 1 as rate dt -> 0; expm1 keeps it accurate there). Plain 1 - exp(-rate dt) smoothing towards
     * the new target would lag a walking player by about half a step more at a low frame rate. */
    float x = camera->params.follow_rate * dt;
    float e = expf(-x);
    float s = x > 1e-6f ? -expm1f(-x) / x : 1.0f;
    for (int k = 0; k < 3; ++k) {
        camera->target[k] = target[k] - (target[k] - camera->goal[k]) * s + (camera->target[k] - camera->goal[k]) * e;
        camera->goal[k] = target[k];
    }
}

void camera_snap(camera *camera, const float target[3])
{
    if (!camera || !finite3(target))
        return;
    for (int k = 0; k < 3; ++k)
        camera->goal[k] = camera->target[k] = target[k];
}

void camera_frame_subject(camera *camera, float metres)
{
    if (camera && metres >= 0.05f && metres <= 100.0f)
        camera->subject_height = metres;
}

/* 1 (exactly) for a subject of the height the params are made for. */
static float subject_scale(const camera *camera)
{
    return camera->subject_height > 0.0f ? camera->subject_height / CAMERA_SUBJECT_HEIGHT : 1.0f;
}

void camera_look_at(const camera *camera, vec3 out)
{
    glm_vec3_copy((float *)camera->target, out);
    out[1] += camera->params.target_height * subject_scale(camera);
}

void camera_eye(const camera *camera, vec3 out)
{
    float yaw = glm_rad(camera->yaw_degrees), pitch = glm_rad(camera->pitch_degrees);
    vec3 look_at;
    camera_look_at(camera, look_at);
    /* Behind the look-at point along the ground forward (cos yaw, -sin yaw), up by the pitch. */
    float distance = camera->distance * subject_scale(camera);
    float ground = distance * cosf(pitch);
    out[0] = look_at[0] - ground * cosf(yaw);
    out[1] = look_at[1] + distance * sinf(pitch);
    out[2] = look_at[2] + ground * sinf(yaw);
    /* Raising the eye, rather than pulling it in along the line of sight, keeps it at least
     * min_distance * cos(pitch limit) away from the look-at point on the ground, so it can never land on it
     * however low the target is. */
    out[1] = fmaxf(out[1], ground_at(camera->ground, out[0], out[2]).height + camera->params.floor_clearance);
}

void camera_matrices(const camera *camera, float aspect, mat4 view, mat4 projection, vec3 eye)
{
    vec3 eye_position, look_at;
    camera_eye(camera, eye_position);
    camera_look_at(camera, look_at);
    glm_lookat(eye_position, look_at, (vec3){0.0f, 1.0f, 0.0f}, view);
    if (!(aspect > 0.0f) || !isfinite(aspect))
        aspect = 1.0f;
    glm_perspective(glm_rad(camera->params.vertical_fov_degrees), aspect, camera->params.near_plane,
                    camera->params.far_plane, projection);
    if (eye)
        glm_vec3_copy(eye_position, eye);
}

void camera_ground_forward(const camera *camera, float *x, float *z)
{
    float yaw = camera_yaw_radians(camera);
    *x = cosf(yaw);
    *z = -sinf(yaw);
}

float camera_yaw_radians(const camera *camera)
{
    return glm_rad(camera->yaw_degrees);
}
