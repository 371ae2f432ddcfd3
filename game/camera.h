/* camera: the third-person orbit camera. It follows a point on the ground (the player's feet) with smoothing
 * that does not depend on the frame rate, orbits around a point target_height above it, zooms, never goes
 * below the ground under the eye, and gives the view and projection matrices and the ground direction "forward" means.
 * Knows nothing of SDL, GL, input keys or the player: the game feeds it a target and orbit/zoom amounts.
 *
 * Conventions (shared with game/player and game/mover): world space is GL's, Y up, metres, the ground's
 * height is engine/world's ground_at (y = 0 when flat). The yaw is the heading the camera looks along on
 * the ground, in mover's convention: yaw 0 looks along +X (so a character at heading 0 is seen from
 * behind), positive yaw turns the view counter-clockwise seen from above, that is to the left. Forward on
 * the ground is (cos yaw, -sin yaw) in (x, z): away from the camera, the heading player_step walks towards
 * for move_forward. Positive pitch puts the eye above the target, looking down. A camera is a plain value the game owns; the functions take a valid one. */
#ifndef MARIONETTE_CAMERA_H
#define MARIONETTE_CAMERA_H

#include <cglm/cglm.h>

#include "world/ground.h"

typedef struct camera_params {
    float min_distance;          /* metres from the look-at point; camera_zoom clamps to these */
    float max_distance;
    float min_pitch_degrees;     /* pitch limits, within (-89, 89) so the view never looks straight up or down */
    float max_pitch_degrees;
    float target_height;         /* the look-at point above the followed point (the feet): about the chest */
    float floor_clearance;       /* the eye stays at least this high above the ground under it */
    float follow_rate;           /* 1/s: how fast the followed point catches up (0.63 of the gap in 1/rate s) */
    float vertical_fov_degrees;
    float near_plane, far_plane; /* metres */
} camera_params;

/* Distance 1.5..12 m, pitch -20..80 degrees, target 1.1 m above the feet, 0.2 m clearance, follow rate 8/s,
 * 50 degrees vertical field of view, near 0.05 m, far 200 m. */
camera_params camera_default_params(void);

typedef struct camera {
    camera_params params;
    float goal[3];       /* the point last given to camera_follow (the feet) */
    float target[3];     /* the smoothed point that follows it; the camera looks at target_height above it */
    float yaw_degrees;   /* kept in (-180, 180] */
    float pitch_degrees; /* kept within the params' limits */
    float distance;      /* kept within the params' limits */
    float subject_height; /* metres tall the followed character stands (camera_frame_subject); 0 reads as
                           * CAMERA_SUBJECT_HEIGHT */
    const ground *ground; /* what floor_clearance keeps the eye above (not owned); NULL: flat, y = 0 */
} camera;

/* The height the params are made for: a subject this tall is seen exactly as the params say; another
 * is framed the same, its look-at height and the eye's distance scaled by subject_height / this. */
#define CAMERA_SUBJECT_HEIGHT 1.8f

/* A camera looking at `target` (already caught up) from behind heading 0 (yaw 0), pitch 15 degrees,
 * distance 4 m (both clamped to the params), over flat ground (set camera->ground for another). params
 * may be NULL for the defaults; a param that is not finite, or a pair of limits out of order, gets its
 * default instead. A non-finite target reads as the origin. */
void camera_init(camera *camera, const camera_params *params, const float target[3]);

/* Turn the camera by these amounts (degrees; positive yaw: the view turns left, positive pitch: the eye
 * goes up). Pitch is clamped to the limits; yaw wraps. Non-finite amounts are ignored. */
void camera_orbit(camera *camera, float yaw_degrees, float pitch_degrees);

/* Move the eye `metres` further away (negative: closer), clamped to the distance limits. Non-finite
 * amounts are ignored. */
void camera_zoom(camera *camera, float metres);

/* Follow `target` (the feet) for dt seconds (>= 0). Treating the target as moving in a straight line from
 * the last point to this one during the step, and the followed point as chasing it exponentially at
 * follow_rate, the result is exact for any step: 30, 60 or 144 steps a second over the same second of a
 * steadily moving target end at the same place. Non-finite targets or steps are ignored. */
void camera_follow(camera *camera, const float target[3], float dt);

/* Put the followed point on `target` at once (spawning, respawning), without smoothing. */
void camera_snap(camera *camera, const float target[3]);

/* Frame a subject `metres` tall (0.05 to 100; others are ignored): the look-at point goes to target_height
 * * metres / CAMERA_SUBJECT_HEIGHT above the followed point and the eye stays that much further (or
 * nearer) than distance, so a 0.5 m and a 3 m character fill the view as a 1.8 m one does. Zoom limits
 * still apply to distance itself. */
void camera_frame_subject(camera *camera, float metres);

/* The point the camera looks at: target_height (scaled for the subject) above the followed point. */
void camera_look_at(const camera *camera, vec3 out);

/* Where the eye is. It orbits the look-at point at the distance, yaw and pitch; when that would put it
 * less than floor_clearance above the ground under it (a low target looking up from far away, a hill
 * behind the player) it is raised to floor_clearance above that ground, keeping its place on the plane, so
 * it never sees under the ground and never reaches the look-at point. */
void camera_eye(const camera *camera, vec3 out);

/* The view (look-at, Y up), the perspective projection for `aspect` (width / height; a non-finite or
 * non-positive aspect reads as 1) and the eye position (may be NULL). */
void camera_matrices(const camera *camera, float aspect, mat4 view, mat4 projection, vec3 eye);

/* The unit direction on the ground that "forward" means: away from the camera. */
void camera_ground_forward(const camera *camera, float *x, float *z);

/* The yaw in radians, as player_step takes it. */
float camera_yaw_radians(const camera *camera);

#endif
