/* clips_internal: what the three files of the clip library share; private to tools/assetgen/clips*.c.
 *   clips_motion.c  the machinery: curves of time, poses of the rig, the upper-body setters, footsteps
 *                   and the feet's paths between them, two-bone leg IK; a clip_plan in, a pose out
 *   clips.c         the library: each clip's body function, footsteps and recipe, and the public API
 *   clips_writer.c  the .md5anim writer: samples a plan frame by frame and prints it
 * Everything is computed in double (see shape_math.h) from fixed formulas, so the bytes are the same on
 * every run. */
#ifndef MARIONETTE_ASSETGEN_CLIPS_INTERNAL_H
#define MARIONETTE_ASSETGEN_CLIPS_INTERNAL_H

#include <stdbool.h>
#include <stdio.h>

#include "clips.h"
#include "rig.h"
#include "shape_math.h"

#define DEGREES(d) ((d) * (SHAPE_PI / 180.0))

/* ---- Curves of time ------------------------------------------------------------------------------- */

/* A key of a one-shot curve: at `time` the curve has `value` and `slope` (per second). */
typedef struct curve_key {
    double time;
    double value;
    double slope;
} curve_key;

/* The curve through keys (sorted by time) at t, holding the first and last values outside them. Two keys
 * with equal values and opposite slopes make a parabola: exactly a ballistic flight. */
double clips_curve_at(const curve_key *keys, int count, double t);

#define CURVE_AT(keys, t) clips_curve_at((keys), (int)(sizeof(keys) / sizeof((keys)[0])), (t))

/* A sine or cosine of a cycle's phase (0..1), shifted by `offset` cycles. */
double clips_cycle_sine(double phase, double offset);
double clips_cycle_cosine(double phase, double offset);

/* ---- A pose of the rig: every joint's local (parent-relative) rotation and translation ------------ */

typedef struct frame_pose {
    double rotation[RIG_JOINT_COUNT][4];
    double translation[RIG_JOINT_COUNT][3];
} frame_pose;

void clips_pose_bind(frame_pose *pose);

/* Object-space rotation and position of joint: compose the locals from the root down. */
void clips_pose_object(const frame_pose *pose, int joint, double rotation[4], double position[3]);

/* ---- Upper body: the spine, head and arms, posed by a few angles in degrees ----------------------- */

/* Joint's local rotation: `degrees` about axis. */
void clips_set_local_rotation(frame_pose *pose, int joint, const double axis[3], double degrees);

/* Hips relative to the root: where they are and how the pelvis turns (degrees: yaw about Z, positive
 * to the left; roll about X, positive lifts the left hip; pitch about Y, positive tips it forward). */
void clips_set_hips(frame_pose *pose, double x, double y, double z, double yaw, double roll, double pitch);

/* Bend the spine (the three spine joints share it) and turn the head back by `head_yaw` against it.
 * Degrees: yaw to the left, pitch forward, roll lifting the left shoulder. */
void clips_set_spine(frame_pose *pose, double yaw, double pitch, double roll, double head_yaw, double head_pitch);

/* One arm, in degrees. Zero everywhere is the bind A pose except abduction, which is measured from
 * straight down: 45 is the bind pose, 0 along the body, 90 sideways, 180 straight up. */
typedef struct arm_angles {
    double shrug;       /* the clavicle lifts the shoulder */
    double abduction;   /* upper arm out to the side, from straight down */
    double flexion;     /* upper arm swung forward (negative: backward) */
    double twist;       /* upper arm turned about its own axis; positive turns the elbow's bend upward
                         * when the arm is out to the side (the waving arm) */
    double elbow;       /* forearm bent forward, 0 = straight */
    double wrist;       /* hand bent forward */
    double fingers;     /* fingers curled towards the palm, 90 = a fist */
} arm_angles;

/* Arms hanging loosely at the sides, elbows and fingers a little bent. */
extern const arm_angles clips_arms_relaxed;

/* Blend of two arm poses, weight 0 = a, 1 = b. */
arm_angles clips_arm_blend(const arm_angles *a, const arm_angles *b, double weight);

/* Pose the left (side = CLIPS_LEFT) or right arm. The rotations are local, so the arm moves with the
 * chest. Angles are given for either side and mirrored here: `sign` is +1 on the left (+Y) side. */
void clips_set_arm(frame_pose *pose, int side, const arm_angles *arm);

/* ---- Clip plans: a body function and footsteps, posed at any time --------------------------------- */

/* One foot on the floor. While the foot comes down it rolls onto the floor about its heel (landing
 * pitch < 0) or about the ball of the foot (> 0); from flat_begin to flat_end it is flat and still; then
 * it rolls up onto the ball of the foot until it leaves the floor. A roll pivots on the point touching
 * the floor, which stays still, so feet do not skate even while they roll. */
typedef struct footstep {
    int side;             /* CLIPS_LEFT or CLIPS_RIGHT */
    double touch_down;    /* seconds */
    double flat_begin;
    double flat_end;
    double lift_off;
    double x, y;          /* the ankle when flat, relative to the root at flat_begin: for travelling clips
                           * the world moves on under the root, so the foot then slides back */
    double yaw;           /* degrees: where the toes point (0 = +X, 90 = +Y) */
    double landing_pitch; /* degrees at touch_down: < 0 heel strike (toes up), > 0 landing on the toes */
    double push_pitch;    /* degrees at lift_off: the heel raised, > 0 */
} footstep;

/* A clip made from another cyclic clip of the library by a change of time and, with clip_plan.mirrored,
 * a mirror: its pose at t is the source's at (time_offset + time_scale * t) wrapped into the cycle.
 * time_scale -1 plays the source backwards (walk_back is walk reversed: backward walking is close to
 * forward walking played in reverse); time_offset shifts it so the left foot plants when the forward
 * clip's does. Its footsteps and body are the source's; steps of the plan are then unused. */
typedef struct clip_derivation {
    const char *source; /* name of the source plan; NULL for a clip made from its own body and steps */
    double time_scale;  /* +1 or -1 */
    double time_offset; /* seconds */
} clip_derivation;

/* What a clip is made of: its recipe, a body function for everything above the legs, and footsteps. */
typedef struct clip_plan {
    clip_recipe recipe;
    void (*pose_body)(double time, frame_pose *pose);
    const footstep *steps; /* NULL: the legs keep their bind pose */
    int step_count;
    double swing_lift;     /* m: how much higher than a straight path a swinging ankle goes */
    bool swing_under_hips; /* in the air (jumps) a swinging foot hangs from the hips, not over the floor */
    bool mirrored;         /* the clip is another clip's plan seen in a mirror (turn_right) */
    clip_derivation derived;
} clip_plan;

/* The library's plan called name, or NULL (clips.c). */
const clip_plan *clips_find_plan(const char *name);

/* Seconds from the first frame to the last. */
double clips_plan_duration(const clip_plan *plan);

enum { CLIPS_STEP_COPIES_MAX = 24 };

/* The plan's footsteps of one side, with the previous and next cycle's copies for cyclic clips, sorted by
 * touch_down. Returns how many. */
int clips_side_footsteps(const clip_plan *plan, int side, footstep out[CLIPS_STEP_COPIES_MAX]);

/* The full pose of a plan at time t: body, then feet placed in the world, then the legs solved. */
void clips_plan_pose(const clip_plan *plan, double t, frame_pose *pose);

/* ---- Writing ---------------------------------------------------------------------------------------- */

/* Write the plan as .md5anim text; false if out of memory or writing failed. */
bool clips_write_plan(FILE *out, const clip_plan *plan);

#endif
