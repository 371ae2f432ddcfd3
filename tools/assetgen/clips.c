/* clips: every clip is a function of time that poses the rig, sampled at the clip's frame rate.
 *
 * How a pose is made, top to bottom of this file:
 *   1. the clip's body function sets the root, hips, spine, head and arms as local rotations (smooth
 *      curves of a phase: sines for cycles, Hermite keys for one-shots);
 *   2. the clip's footsteps say where each foot is: planted (fixed in the world, rolling on the heel as
 *      it lands and on the ball of the foot as it pushes off) or swinging between two plants;
 *   3. two-bone leg IK turns each foot target into thigh, shin, foot and toe rotations, so planted feet
 *      stay exactly where they were put.
 * In-place clips that travel (walk, run) place their footsteps in a world that moves under the
 * character at the ground speed: a planted foot slides backward (-X) at exactly that speed.
 *
 * Everything is computed in double (cglm is single precision and the output is rounded only once, when
 * printed with 6 decimals) from fixed formulas, so the bytes are the same on every run.
 *
 * The library (all Z up, facing +X, metres):
 *   idle              cyclic, 24 fps, 6 s: two breaths, one slow weight shift from foot to foot
 *   walk              cyclic, 30 fps, 1.0 s cycle, 1.4 m/s (stride 1.4 m); frame 0 = left heel strike
 *   run               cyclic, 30 fps, 0.7 s cycle, 3.5 m/s (stride 2.45 m), flight phases;
 *                     frame 0 = left foot strike
 *   walk_root_motion  the walk with the root travelling +X at 1.4 m/s (planted feet fixed in clip space)
 *   jump              once, 30 fps, 2 s: crouch, take off, 0.5 s in the air with legs tucked, land, recover
 *   wave              once, 24 fps, 3 s: the right arm rises, waves three times and comes down; every other
 *                     joint keeps its bind pose, so it can play as an upper-body layer over a walk
 *   turn_left/right   once, 30 fps, 1.2 s: a 90-degree turn on the spot in two steps; the root yaws
 *                     (+90 degrees for left, about +Z), so a game reads the new facing from the root
 *   celebrate         once, 30 fps, 2.4 s: both arms up, a small hop, two fist pumps, arms down */
#include "clips.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rig.h"

#define CLIPS_PI 3.14159265358979323846
#define DEGREES(d) ((d) * (CLIPS_PI / 180.0))
#define GRAVITY 9.81                 /* m/s^2, for the time spent in the air */
#define BOUNDS_MARGIN 0.15           /* m added around the joints so the box contains the body's flesh */

/* ---------------------------------------------------------------------------------------------------
 * Vectors and rotations in double. Quaternions are x, y, z, w like cglm's versor. */

static double vector_dot(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static void vector_cross(const double a[3], const double b[3], double out[3])
{
    double x = a[1] * b[2] - a[2] * b[1];
    double y = a[2] * b[0] - a[0] * b[2];
    double z = a[0] * b[1] - a[1] * b[0];
    out[0] = x;
    out[1] = y;
    out[2] = z;
}

/* out = a + scale * b (out may be a or b). */
static void vector_add_scaled(const double a[3], const double b[3], double scale, double out[3])
{
    for (int k = 0; k < 3; ++k)
        out[k] = a[k] + scale * b[k];
}

static double vector_length(const double v[3])
{
    return sqrt(vector_dot(v, v));
}

/* Unit vector along v; `fallback` when v is (nearly) zero. */
static void vector_normalize(const double v[3], const double fallback[3], double out[3])
{
    double length = vector_length(v);
    for (int k = 0; k < 3; ++k)
        out[k] = length > 1e-12 ? v[k] / length : fallback[k];
}

static const double axis_x[3] = {1.0, 0.0, 0.0};
static const double axis_y[3] = {0.0, 1.0, 0.0};
static const double axis_z[3] = {0.0, 0.0, 1.0};
static const double rotation_identity[4] = {0.0, 0.0, 0.0, 1.0};

/* Rotation by `angle` radians about the unit vector axis (right-handed). */
static void rotation_about(const double axis[3], double angle, double out[4])
{
    double s = sin(0.5 * angle);
    out[0] = axis[0] * s;
    out[1] = axis[1] * s;
    out[2] = axis[2] * s;
    out[3] = cos(0.5 * angle);
}

/* out = a * b: b applied first, then a. out may be a or b. */
static void rotation_multiply(const double a[4], const double b[4], double out[4])
{
    double x = a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1];
    double y = a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0];
    double z = a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3];
    double w = a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2];
    out[0] = x;
    out[1] = y;
    out[2] = z;
    out[3] = w;
}

static void rotation_inverse(const double q[4], double out[4])
{
    out[0] = -q[0];
    out[1] = -q[1];
    out[2] = -q[2];
    out[3] = q[3];
}

/* v rotated by the unit quaternion q (out may be v): v + 2w (u x v) + 2 u x (u x v), u = q.xyz. */
static void rotation_apply(const double q[4], const double v[3], double out[3])
{
    double u_cross_v[3], twice[3];
    vector_cross(q, v, u_cross_v);
    for (int k = 0; k < 3; ++k)
        twice[k] = 2.0 * u_cross_v[k];
    double u_cross_twice[3];
    vector_cross(q, twice, u_cross_twice);
    for (int k = 0; k < 3; ++k)
        out[k] = v[k] + q[3] * twice[k] + u_cross_twice[k];
}

/* Quaternion of the rotation matrix whose columns are the images of the x, y and z axes (Shepperd's
 * method: divide by the largest of the four possible pivots so no case loses precision). */
static void rotation_from_columns(const double x[3], const double y[3], const double z[3], double out[4])
{
    double trace = x[0] + y[1] + z[2];
    if (trace > 0.0) {
        double s = 2.0 * sqrt(1.0 + trace);
        out[3] = 0.25 * s;
        out[0] = (y[2] - z[1]) / s;
        out[1] = (z[0] - x[2]) / s;
        out[2] = (x[1] - y[0]) / s;
    } else if (x[0] > y[1] && x[0] > z[2]) {
        double s = 2.0 * sqrt(1.0 + x[0] - y[1] - z[2]);
        out[3] = (y[2] - z[1]) / s;
        out[0] = 0.25 * s;
        out[1] = (y[0] + x[1]) / s;
        out[2] = (z[0] + x[2]) / s;
    } else if (y[1] > z[2]) {
        double s = 2.0 * sqrt(1.0 + y[1] - x[0] - z[2]);
        out[3] = (z[0] - x[2]) / s;
        out[0] = (y[0] + x[1]) / s;
        out[1] = 0.25 * s;
        out[2] = (z[1] + y[2]) / s;
    } else {
        double s = 2.0 * sqrt(1.0 + z[2] - x[0] - y[1]);
        out[3] = (x[1] - y[0]) / s;
        out[0] = (z[0] + x[2]) / s;
        out[1] = (z[1] + y[2]) / s;
        out[2] = 0.25 * s;
    }
}

/* An orthonormal frame from a direction and a second vector roughly across it (Gram-Schmidt). */
static void frame_from(const double direction[3], const double across[3], double frame[3][3])
{
    vector_normalize(direction, axis_z, frame[0]);
    double side[3];
    vector_add_scaled(across, frame[0], -vector_dot(across, frame[0]), side);
    double fallback[3];
    vector_cross(frame[0], fabs(frame[0][2]) < 0.9 ? axis_z : axis_x, fallback);
    vector_normalize(side, fallback, frame[1]);
    vector_cross(frame[0], frame[1], frame[2]);
}

/* The rotation that takes from_direction to to_direction and from_across (as far as it is across the
 * direction) to to_across: how a bone is aimed without leaving its twist to chance. */
static void rotation_between_frames(const double from_direction[3], const double from_across[3],
                                    const double to_direction[3], const double to_across[3], double out[4])
{
    double from[3][3], to[3][3], columns[3][3];
    frame_from(from_direction, from_across, from);
    frame_from(to_direction, to_across, to);
    /* columns = to * transpose(from): maps from[i] to to[i]. */
    for (int column = 0; column < 3; ++column)
        for (int row = 0; row < 3; ++row)
            columns[column][row] = to[0][row] * from[0][column] + to[1][row] * from[1][column] +
                                   to[2][row] * from[2][column];
    rotation_from_columns(columns[0], columns[1], columns[2], out);
}

/* ---------------------------------------------------------------------------------------------------
 * Curves of time. */

static double clamp01(double x)
{
    return x < 0.0 ? 0.0 : x > 1.0 ? 1.0 : x;
}

/* 0 before begin, 1 after end, a cubic with flat ends in between. */
static double smooth_step(double begin, double end, double t)
{
    double s = clamp01((t - begin) / (end - begin));
    return s * s * (3.0 - 2.0 * s);
}

/* Cubic Hermite: value p0 with slope v0 (per second) at s = 0, p1 with slope v1 at s = 1, over a span of
 * `duration` seconds. Matching values and slopes is what keeps joined pieces free of visible kinks. */
static double hermite(double p0, double v0, double p1, double v1, double duration, double s)
{
    double s2 = s * s, s3 = s2 * s;
    return (2.0 * s3 - 3.0 * s2 + 1.0) * p0 + (s3 - 2.0 * s2 + s) * duration * v0 + (-2.0 * s3 + 3.0 * s2) * p1 +
           (s3 - s2) * duration * v1;
}

/* A key of a one-shot curve: at `time` the curve has `value` and `slope` (per second). */
typedef struct curve_key {
    double time;
    double value;
    double slope;
} curve_key;

/* The curve through keys (sorted by time) at t, holding the first and last values outside them. Two keys
 * with equal values and opposite slopes make a parabola: exactly a ballistic flight. */
static double curve_at(const curve_key *keys, int count, double t)
{
    if (t <= keys[0].time)
        return keys[0].value;
    for (int i = 0; i + 1 < count; ++i)
        if (t <= keys[i + 1].time) {
            double duration = keys[i + 1].time - keys[i].time;
            return hermite(keys[i].value, keys[i].slope, keys[i + 1].value, keys[i + 1].slope, duration,
                           (t - keys[i].time) / duration);
        }
    return keys[count - 1].value;
}

#define CURVE_AT(keys, t) curve_at((keys), (int)(sizeof(keys) / sizeof((keys)[0])), (t))

/* A sine of a cycle's phase (0..1), shifted by `offset` cycles. */
static double cycle_sine(double phase, double offset)
{
    return sin(2.0 * CLIPS_PI * (phase - offset));
}

static double cycle_cosine(double phase, double offset)
{
    return cos(2.0 * CLIPS_PI * (phase - offset));
}

/* ---------------------------------------------------------------------------------------------------
 * A pose of the rig: every joint's local (parent-relative) rotation and translation. */

typedef struct frame_pose {
    double rotation[RIG_JOINT_COUNT][4];
    double translation[RIG_JOINT_COUNT][3];
} frame_pose;

static void pose_set_bind(frame_pose *pose)
{
    for (int j = 0; j < RIG_JOINT_COUNT; ++j) {
        memcpy(pose->rotation[j], rotation_identity, sizeof pose->rotation[j]);
        rig_local_offset(j, pose->translation[j]);
    }
}

/* Object-space rotation and position of joint: compose the locals from the root down. */
static void pose_object(const frame_pose *pose, int joint, double rotation[4], double position[3])
{
    int chain[RIG_JOINT_COUNT], depth = 0;
    for (int j = joint; j >= 0; j = rig_joints[j].parent)
        chain[depth++] = j;
    memcpy(rotation, rotation_identity, 4 * sizeof(double));
    position[0] = position[1] = position[2] = 0.0;
    for (int i = depth - 1; i >= 0; --i) {
        double offset[3];
        rotation_apply(rotation, pose->translation[chain[i]], offset);
        vector_add_scaled(position, offset, 1.0, position);
        rotation_multiply(rotation, pose->rotation[chain[i]], rotation);
    }
}

/* Give joint the object-space rotation `object_rotation`, whatever its parents do. */
static void pose_set_object_rotation(frame_pose *pose, int joint, const double object_rotation[4])
{
    double parent_rotation[4], parent_position[3], parent_inverse[4];
    pose_object(pose, rig_joints[joint].parent, parent_rotation, parent_position);
    rotation_inverse(parent_rotation, parent_inverse);
    rotation_multiply(parent_inverse, object_rotation, pose->rotation[joint]);
}

/* Left joints map to right ones and back; the spine maps to itself. */
static int mirror_joint(int joint)
{
    if (joint >= RIG_CLAVICLE_L && joint < RIG_CLAVICLE_R)
        return joint + RIG_RIGHT_ARM_OFFSET;
    if (joint >= RIG_CLAVICLE_R && joint < RIG_THIGH_L)
        return joint - RIG_RIGHT_ARM_OFFSET;
    if (joint >= RIG_THIGH_L && joint < RIG_THIGH_R)
        return joint + RIG_RIGHT_LEG_OFFSET;
    if (joint >= RIG_THIGH_R)
        return joint - RIG_RIGHT_LEG_OFFSET;
    return joint;
}

/* The pose seen in a mirror standing in the XZ plane (left becomes right). A reflection flips y of
 * positions and, since rotation axes are pseudo-vectors, x and z of rotation axes. The rig is symmetric,
 * so mirrored bind offsets are the other side's bind offsets. */
static void pose_mirror(frame_pose *pose)
{
    frame_pose original = *pose;
    for (int j = 0; j < RIG_JOINT_COUNT; ++j) {
        int m = mirror_joint(j);
        const double *q = original.rotation[j], *t = original.translation[j];
        pose->rotation[m][0] = -q[0];
        pose->rotation[m][1] = q[1];
        pose->rotation[m][2] = -q[2];
        pose->rotation[m][3] = q[3];
        pose->translation[m][0] = t[0];
        pose->translation[m][1] = -t[1];
        pose->translation[m][2] = t[2];
    }
}

/* ---------------------------------------------------------------------------------------------------
 * Upper body: the spine, head and arms, posed by a few angles in degrees. */

static void set_local_rotation(frame_pose *pose, int joint, const double axis[3], double degrees)
{
    rotation_about(axis, DEGREES(degrees), pose->rotation[joint]);
}

/* Hips relative to the root: where they are and how the pelvis turns (degrees: yaw about Z, positive
 * to the left; roll about X, positive lifts the left hip; pitch about Y, positive tips it forward). */
static void set_hips(frame_pose *pose, double x, double y, double z, double yaw, double roll, double pitch)
{
    double yaw_rotation[4], roll_rotation[4], pitch_rotation[4];
    rotation_about(axis_z, DEGREES(yaw), yaw_rotation);
    rotation_about(axis_x, DEGREES(roll), roll_rotation);
    rotation_about(axis_y, DEGREES(pitch), pitch_rotation);
    rotation_multiply(yaw_rotation, roll_rotation, pose->rotation[RIG_HIPS]);
    rotation_multiply(pose->rotation[RIG_HIPS], pitch_rotation, pose->rotation[RIG_HIPS]);
    pose->translation[RIG_HIPS][0] = x;
    pose->translation[RIG_HIPS][1] = y;
    pose->translation[RIG_HIPS][2] = z;
}

/* Bend the spine (the three spine joints share it) and turn the head back by `head_yaw` against it.
 * Degrees: yaw to the left, pitch forward, roll lifting the left shoulder. */
static void set_spine(frame_pose *pose, double yaw, double pitch, double roll, double head_yaw, double head_pitch)
{
    for (int j = RIG_SPINE_1; j <= RIG_SPINE_3; ++j) {
        double yaw_rotation[4], pitch_rotation[4], roll_rotation[4];
        rotation_about(axis_z, DEGREES(yaw / 3.0), yaw_rotation);
        rotation_about(axis_y, DEGREES(pitch / 3.0), pitch_rotation);
        rotation_about(axis_x, DEGREES(roll / 3.0), roll_rotation);
        rotation_multiply(yaw_rotation, pitch_rotation, pose->rotation[j]);
        rotation_multiply(pose->rotation[j], roll_rotation, pose->rotation[j]);
    }
    double yaw_rotation[4], pitch_rotation[4];
    rotation_about(axis_z, DEGREES(0.5 * head_yaw), yaw_rotation);
    rotation_about(axis_y, DEGREES(0.5 * head_pitch), pitch_rotation);
    rotation_multiply(yaw_rotation, pitch_rotation, pose->rotation[RIG_NECK]);
    memcpy(pose->rotation[RIG_HEAD], pose->rotation[RIG_NECK], sizeof pose->rotation[RIG_HEAD]);
}

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

static const arm_angles arms_relaxed = {.abduction = 12.0, .flexion = 4.0, .elbow = 14.0, .fingers = 15.0};

/* Blend of two arm poses, weight 0 = a, 1 = b. */
static arm_angles arm_blend(const arm_angles *a, const arm_angles *b, double weight)
{
    arm_angles out;
    out.shrug = a->shrug + (b->shrug - a->shrug) * weight;
    out.abduction = a->abduction + (b->abduction - a->abduction) * weight;
    out.flexion = a->flexion + (b->flexion - a->flexion) * weight;
    out.twist = a->twist + (b->twist - a->twist) * weight;
    out.elbow = a->elbow + (b->elbow - a->elbow) * weight;
    out.wrist = a->wrist + (b->wrist - a->wrist) * weight;
    out.fingers = a->fingers + (b->fingers - a->fingers) * weight;
    return out;
}

/* Pose the left (side = CLIPS_LEFT) or right arm. The rotations are local, so the arm moves with the
 * chest. Angles are given for either side and mirrored here: `sign` is +1 on the left (+Y) side. */
static void set_arm(frame_pose *pose, int side, const arm_angles *arm)
{
    int offset = side == CLIPS_LEFT ? 0 : RIG_RIGHT_ARM_OFFSET;
    double sign = side == CLIPS_LEFT ? 1.0 : -1.0;
    /* The bind arm points 45 degrees down and out; the elbow, wrist and knuckles bend forward (+X) about
     * the axis across the arm, and the fingers curl towards the palm, which faces the body. */
    double bind_direction[3] = {0.0, sign * sqrt(0.5), -sqrt(0.5)};
    double hinge[3], curl_axis[3] = {-sign, 0.0, 0.0};
    vector_cross(bind_direction, axis_x, hinge);

    set_local_rotation(pose, RIG_CLAVICLE_L + offset, axis_x, sign * arm->shrug);

    double twist[4], raise[4], swing[4];
    rotation_about(bind_direction, DEGREES(-sign * arm->twist), twist);
    rotation_about(axis_x, DEGREES(sign * (arm->abduction - 45.0)), raise);
    rotation_about(axis_y, DEGREES(-arm->flexion), swing);
    double *upper = pose->rotation[RIG_UPPERARM_L + offset];
    rotation_multiply(raise, twist, upper);
    rotation_multiply(swing, upper, upper);

    set_local_rotation(pose, RIG_FOREARM_L + offset, hinge, arm->elbow);
    set_local_rotation(pose, RIG_HAND_L + offset, hinge, arm->wrist);
    set_local_rotation(pose, RIG_FINGERS_1_L + offset, curl_axis, 0.5 * arm->fingers);
    set_local_rotation(pose, RIG_FINGERS_2_L + offset, curl_axis, 0.5 * arm->fingers);
    set_local_rotation(pose, RIG_THUMB_1_L + offset, curl_axis, 0.3 * arm->fingers);
    set_local_rotation(pose, RIG_THUMB_2_L + offset, curl_axis, 0.3 * arm->fingers);
}

/* ---------------------------------------------------------------------------------------------------
 * Feet: footsteps and the foot's path between them. */

/* Where a foot is: the ankle (foot joint) position and the foot's direction and tilt. */
typedef struct foot_state {
    double ankle[3];
    double yaw;       /* radians about Z: where the toes point, 0 = +X */
    double pitch;     /* radians about the foot's side axis: positive lifts the heel, negative the toes */
    double toe_bend;  /* radians: the toe joint's local pitch (negative bends the toes up) */
} foot_state;

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

/* Ankle and toe of a foot tilted by pitch while touching the floor at the point it pivots on. */
static foot_state foot_rolled(const double flat_ankle[3], double yaw, double pitch)
{
    foot_state foot = {.yaw = yaw, .pitch = pitch};
    double toe_offset[3];
    rig_local_offset(RIG_TOE_L, toe_offset);
    toe_offset[1] = 0.0;
    /* Heel up: pivot on the toe joint (the ball of the foot), whose toes stay flat on the floor. Toes
     * up: pivot on the back of the heel, on the floor. */
    double heel[3] = {-RIG_HEEL_BACK, 0.0, -RIG_ANKLE_HEIGHT};
    const double *pivot = pitch > 0.0 ? toe_offset : heel;
    double yaw_rotation[4], pitch_rotation[4], foot_rotation[4];
    rotation_about(axis_z, yaw, yaw_rotation);
    rotation_about(axis_y, pitch, pitch_rotation);
    rotation_multiply(yaw_rotation, pitch_rotation, foot_rotation);
    double pivot_world[3], back_to_ankle[3] = {-pivot[0], -pivot[1], -pivot[2]};
    rotation_apply(yaw_rotation, pivot, pivot_world);
    vector_add_scaled(flat_ankle, pivot_world, 1.0, pivot_world);
    rotation_apply(foot_rotation, back_to_ankle, back_to_ankle);
    vector_add_scaled(pivot_world, back_to_ankle, 1.0, foot.ankle);
    foot.toe_bend = pitch > 0.0 ? -pitch : 0.0;
    return foot;
}

/* The foot of `step` at time t in [touch_down, lift_off], in the world, for a world moving on at speed. */
static foot_state footstep_state(const footstep *step, double speed, double t)
{
    double flat_ankle[3] = {step->x + speed * step->flat_begin, step->y, RIG_ANKLE_HEIGHT};
    double pitch = 0.0;
    if (t < step->flat_begin) {
        /* Fastest right at contact, settling gently: (1 - s)^2. */
        double remaining = 1.0 - clamp01((t - step->touch_down) / (step->flat_begin - step->touch_down));
        pitch = DEGREES(step->landing_pitch) * remaining * remaining;
    } else if (t > step->flat_end) {
        double s = clamp01((t - step->flat_end) / (step->lift_off - step->flat_end));
        pitch = DEGREES(step->push_pitch) * s * s;
    }
    return foot_rolled(flat_ankle, DEGREES(step->yaw), pitch);
}

/* What a clip is made of: its recipe, a body function for everything above the legs, and footsteps. */
typedef struct clip_plan {
    clip_recipe recipe;
    void (*pose_body)(double time, frame_pose *pose);
    const footstep *steps; /* NULL: the legs keep their bind pose */
    int step_count;
    double swing_lift;     /* m: how much higher than a straight path a swinging ankle goes */
    bool swing_under_hips; /* in the air (jumps) a swinging foot hangs from the hips, not over the floor */
    bool mirrored;         /* the clip is another clip's plan seen in a mirror (turn_right) */
} clip_plan;

static double plan_duration(const clip_plan *plan)
{
    return (double)(plan->recipe.frame_count - 1) / plan->recipe.frame_rate;
}

/* The body's hips height at t (the reference a swinging foot hangs from in the air). */
static double plan_hips_height(const clip_plan *plan, double t)
{
    frame_pose pose;
    pose_set_bind(&pose);
    plan->pose_body(t, &pose);
    return pose.translation[RIG_HIPS][2];
}

enum { STEP_COPIES_MAX = 24 };

/* The plan's footsteps of one side, with the previous and next cycle's copies for cyclic clips, sorted by
 * touch_down. Returns how many. */
static int side_footsteps(const clip_plan *plan, int side, footstep out[STEP_COPIES_MAX])
{
    int count = 0;
    int cycles = plan->recipe.cyclic ? 1 : 0;
    double cycle = plan_duration(plan);
    for (int k = -cycles; k <= cycles; ++k)
        for (int i = 0; i < plan->step_count && count < STEP_COPIES_MAX; ++i) {
            if (plan->steps[i].side != side)
                continue;
            footstep step = plan->steps[i];
            step.touch_down += k * cycle;
            step.flat_begin += k * cycle;
            step.flat_end += k * cycle;
            step.lift_off += k * cycle;
            out[count++] = step;
        }
    for (int i = 1; i < count; ++i)
        for (int j = i; j > 0 && out[j].touch_down < out[j - 1].touch_down; --j) {
            footstep swap = out[j];
            out[j] = out[j - 1];
            out[j - 1] = swap;
        }
    return count;
}

/* Between lifting off from `from` and touching down on `to`: Hermite curves that leave and arrive with
 * the plants' own velocities (no jerk at either end), raised in the middle to clear the floor. */
static foot_state foot_swing(const clip_plan *plan, const footstep *from, const footstep *to, double t)
{
    const double step = 1e-4; /* seconds, for the plants' velocities by finite differences */
    double speed = plan->recipe.ground_speed;
    double t0 = from->lift_off, t1 = to->touch_down, duration = t1 - t0;
    foot_state start = footstep_state(from, speed, t0), before = footstep_state(from, speed, t0 - step);
    foot_state end = footstep_state(to, speed, t1), after = footstep_state(to, speed, t1 + step);
    /* Heights are measured from the hips while in the air, so the legs tuck relative to the body. */
    double reference[4] = {0.0, 0.0, 0.0, 0.0};
    if (plan->swing_under_hips) {
        reference[0] = plan_hips_height(plan, t0);
        reference[1] = plan_hips_height(plan, t0 - step);
        reference[2] = plan_hips_height(plan, t1);
        reference[3] = plan_hips_height(plan, t1 + step);
    }
    start.ankle[2] -= reference[0];
    before.ankle[2] -= reference[1];
    end.ankle[2] -= reference[2];
    after.ankle[2] -= reference[3];
    double s = (t - t0) / duration;
    foot_state foot;
    for (int k = 0; k < 3; ++k)
        foot.ankle[k] = hermite(start.ankle[k], (start.ankle[k] - before.ankle[k]) / step, end.ankle[k],
                                (after.ankle[k] - end.ankle[k]) / step, duration, s);
    foot.yaw = hermite(start.yaw, (start.yaw - before.yaw) / step, end.yaw, (after.yaw - end.yaw) / step, duration, s);
    foot.pitch = hermite(start.pitch, (start.pitch - before.pitch) / step, end.pitch, (after.pitch - end.pitch) / step,
                         duration, s);
    foot.toe_bend = hermite(start.toe_bend, (start.toe_bend - before.toe_bend) / step, end.toe_bend,
                            (after.toe_bend - end.toe_bend) / step, duration, s);
    double lift = sin(CLIPS_PI * s);
    foot.ankle[2] += plan->swing_lift * lift * lift;
    if (plan->swing_under_hips)
        foot.ankle[2] += plan_hips_height(plan, t);
    return foot;
}

/* Where the foot of `side` is at time t, in the world (see footstep.x). */
static foot_state plan_foot(const clip_plan *plan, int side, double t)
{
    footstep steps[STEP_COPIES_MAX];
    int count = side_footsteps(plan, side, steps);
    for (int i = 0; i < count; ++i)
        if (t >= steps[i].touch_down && t <= steps[i].lift_off)
            return footstep_state(&steps[i], plan->recipe.ground_speed, t);
    for (int i = 0; i + 1 < count; ++i)
        if (t > steps[i].lift_off && t < steps[i + 1].touch_down)
            return foot_swing(plan, &steps[i], &steps[i + 1], t);
    /* Before the first or after the last footstep: stand on the nearest one. */
    const footstep *nearest = t < steps[0].touch_down ? &steps[0] : &steps[count - 1];
    return footstep_state(nearest, plan->recipe.ground_speed, t < nearest->touch_down ? nearest->touch_down
                                                                                      : nearest->lift_off);
}

/* ---------------------------------------------------------------------------------------------------
 * Leg IK: thigh, shin, foot and toe rotations that put the ankle on its target with the knee bending
 * towards knee_forward. Analytic two-bone solution: the triangle hip-knee-ankle has known sides, so the
 * knee lies on a circle about the hip-ankle line, and knee_forward picks the point on that circle. A
 * target out of reach straightens the leg towards it (the foot then misses it, which the tests see as
 * a drifting foot). */
static void leg_solve(frame_pose *pose, int side, const foot_state *foot, const double knee_forward[3])
{
    int offset = side == CLIPS_LEFT ? 0 : RIG_RIGHT_LEG_OFFSET;
    int thigh = RIG_THIGH_L + offset, shin = RIG_SHIN_L + offset;
    int ankle_joint = RIG_FOOT_L + offset, toe = RIG_TOE_L + offset;
    double thigh_length = vector_length(pose->translation[shin]);
    double shin_length = vector_length(pose->translation[ankle_joint]);

    /* A joint's own rotation does not move it: the hip is where the parents put it. */
    double unused_rotation[4], hip[3];
    pose_object(pose, thigh, unused_rotation, hip);

    double to_ankle[3], line[3][3];
    vector_add_scaled(foot->ankle, hip, -1.0, to_ankle);
    frame_from(to_ankle, knee_forward, line); /* line[0]: hip to ankle; line[1]: the knee's side of it */
    double reach = vector_length(to_ankle);
    double longest = thigh_length + shin_length, shortest = fabs(thigh_length - shin_length) + 1e-6;
    reach = reach > longest ? longest : reach < shortest ? shortest : reach;

    /* Law of cosines: how far along the hip-ankle line the knee is, and how far off it. */
    double along = (thigh_length * thigh_length - shin_length * shin_length + reach * reach) / (2.0 * reach);
    double off_squared = thigh_length * thigh_length - along * along;
    double off = off_squared > 0.0 ? sqrt(off_squared) : 0.0;
    double knee[3], ankle[3], thigh_direction[3], shin_direction[3];
    vector_add_scaled(hip, line[0], along, knee);
    vector_add_scaled(knee, line[1], off, knee);
    vector_add_scaled(hip, line[0], reach, ankle);
    vector_add_scaled(knee, hip, -1.0, thigh_direction);
    vector_add_scaled(ankle, knee, -1.0, shin_direction);

    /* In bind pose both bones point straight down with the knee's bend forward (+X). */
    const double down[3] = {0.0, 0.0, -1.0};
    double thigh_object[4], shin_object[4];
    rotation_between_frames(down, axis_x, thigh_direction, line[1], thigh_object);
    rotation_between_frames(down, axis_x, shin_direction, line[1], shin_object);
    pose_set_object_rotation(pose, thigh, thigh_object);
    pose_set_object_rotation(pose, shin, shin_object);

    double yaw_rotation[4], pitch_rotation[4], foot_object[4];
    rotation_about(axis_z, foot->yaw, yaw_rotation);
    rotation_about(axis_y, foot->pitch, pitch_rotation);
    rotation_multiply(yaw_rotation, pitch_rotation, foot_object);
    pose_set_object_rotation(pose, ankle_joint, foot_object);
    rotation_about(axis_y, foot->toe_bend, pose->rotation[toe]);
}

/* The full pose of a plan at time t: body, then feet placed in the world, then the legs solved. */
static void plan_pose(const clip_plan *plan, double t, frame_pose *pose)
{
    pose_set_bind(pose);
    plan->pose_body(t, pose);
    double travel = plan->recipe.ground_speed * t;
    if (plan->recipe.root_motion)
        pose->translation[RIG_ROOT][0] += travel;
    for (int side = CLIPS_LEFT; side <= CLIPS_RIGHT && plan->steps; ++side) {
        foot_state foot = plan_foot(plan, side, t);
        /* The world moves on by `travel` while the root stays behind (in place) or keeps up (root
         * motion): object space = world - travel + root. */
        foot.ankle[0] += pose->translation[RIG_ROOT][0] - travel;
        /* Knees point between where the pelvis and the foot face, so turning feet do not twist them. */
        double hips_rotation[4], hips_position[3], hips_forward[3], knee_forward[3];
        pose_object(pose, RIG_HIPS, hips_rotation, hips_position);
        rotation_apply(hips_rotation, axis_x, hips_forward);
        hips_forward[2] = 0.0;
        vector_normalize(hips_forward, axis_x, hips_forward);
        double foot_forward[3] = {cos(foot.yaw), sin(foot.yaw), 0.0};
        vector_add_scaled(hips_forward, foot_forward, 1.0, knee_forward);
        vector_normalize(knee_forward, hips_forward, knee_forward);
        leg_solve(pose, side, &foot, knee_forward);
    }
    if (plan->mirrored)
        pose_mirror(pose);
}

/* ---------------------------------------------------------------------------------------------------
 * The clips' bodies and footsteps. */

/* 0 outside [begin, end], rising to 1 in the middle and back with flat ends: a single smooth bump. */
static double bump(double begin, double end, double t)
{
    if (t <= begin || t >= end)
        return 0.0;
    double s = sin(CLIPS_PI * (t - begin) / (end - begin));
    return s * s;
}

/* Idle: 6 s, one weight shift (left foot, then right) and two breaths; feet planted where they stand. */
#define IDLE_DURATION 6.0

static void idle_body(double t, frame_pose *pose)
{
    double shift = cycle_sine(t / IDLE_DURATION, 0.0);            /* +1: weight over the left foot */
    double breath = 0.5 - 0.5 * cycle_cosine(2.0 * t / IDLE_DURATION, 0.0); /* 0 out, 1 in */
    double look = cycle_sine(t / IDLE_DURATION, 0.2);
    /* The hips drift over the foot taking the weight, that hip rises and the whole pelvis sinks a
     * little; the spine leans back against it to keep the head over the feet. */
    set_hips(pose, 0.0, 0.022 * shift, 0.952 - 0.008 * shift * shift, 2.0 * look, 2.5 * shift, 0.0);
    set_spine(pose, -1.5 * look, 1.0 - 2.0 * breath, -3.5 * shift, 4.0 * look, -1.0 + 1.5 * breath);
    for (int side = CLIPS_LEFT; side <= CLIPS_RIGHT; ++side) {
        double sign = side == CLIPS_LEFT ? 1.0 : -1.0;
        arm_angles arm = arms_relaxed;
        arm.shrug = 2.0 * breath;
        arm.abduction += 1.5 * breath + 2.0 * sign * shift;
        arm.flexion += 1.5 * cycle_sine(t / IDLE_DURATION, 0.4);
        set_arm(pose, side, &arm);
    }
}

static const footstep idle_steps[] = {
    {CLIPS_LEFT, 0.0, 0.0, IDLE_DURATION, IDLE_DURATION, 0.0, 0.10, 0.0, 0.0, 0.0},
    {CLIPS_RIGHT, 0.0, 0.0, IDLE_DURATION, IDLE_DURATION, 0.0, -0.10, 0.0, 0.0, 0.0},
};

/* Walk and run share one body: a cycle starting at the left heel strike. */
typedef struct gait_style {
    double cycle;        /* seconds */
    double hips_height;  /* m, mean */
    double bob;          /* m: the hips rise and fall this much about their mean, twice a cycle */
    double lowest;       /* cycle phase where the hips are lowest (again half a cycle later) */
    double sway;         /* m: the hips move sideways over the foot on the floor */
    double pelvis_yaw;   /* degrees: the pelvis turns the forward leg's hip forward */
    double pelvis_roll;  /* degrees: the swinging leg's hip drops */
    double lean;         /* degrees: the trunk leans forward */
    double chest_twist;  /* degrees: the shoulders turn against the pelvis */
    double arm_swing;    /* degrees forward and back; each arm goes forward with the opposite leg */
    double arm_lag;      /* cycle phase the arms trail the legs by */
    double arm_abduction;
    double elbow;        /* degrees with the arm hanging at the middle of its swing */
    double elbow_swing;  /* degrees more as the arm swings forward, less as it goes back */
} gait_style;

static void gait_body(const gait_style *gait, double t, frame_pose *pose)
{
    double phase = t / gait->cycle;
    double pelvis_yaw = -gait->pelvis_yaw * cycle_cosine(phase, 0.0); /* left hip forward at phase 0 */
    double height = gait->hips_height - gait->bob * cycle_cosine(2.0 * phase, 2.0 * gait->lowest);
    double roll = gait->pelvis_roll * cycle_sine(phase, 0.0);         /* left hip up while left stands */
    set_hips(pose, 0.0, gait->sway * cycle_sine(phase, 0.05), height, pelvis_yaw, roll, 0.4 * gait->lean);
    double chest_yaw = gait->chest_twist * cycle_cosine(phase, gait->arm_lag);
    set_spine(pose, chest_yaw - pelvis_yaw, 0.6 * gait->lean, -roll, -chest_yaw, -gait->lean);
    for (int side = CLIPS_LEFT; side <= CLIPS_RIGHT; ++side) {
        double swing = (side == CLIPS_LEFT ? -1.0 : 1.0) * cycle_cosine(phase, gait->arm_lag);
        arm_angles arm = arms_relaxed;
        arm.abduction = gait->arm_abduction;
        arm.flexion = gait->arm_swing * swing;
        arm.elbow = gait->elbow + gait->elbow_swing * swing;
        set_arm(pose, side, &arm);
    }
}

/* Walk: 1.4 m/s, 1 s a cycle (two 0.7 m steps). Each foot stands 64% of the cycle: heel strike, flat
 * from 0.10 to 0.40 s, heel off, toes off at 0.64 s while the other heel came down at 0.50 s. */
#define WALK_CYCLE 1.0
#define WALK_SPEED 1.4

static const gait_style walk_style = {
    .cycle = WALK_CYCLE, .hips_height = 0.905, .bob = 0.016, .lowest = 0.04, .sway = 0.025,
    .pelvis_yaw = 6.0, .pelvis_roll = 4.0, .lean = 3.0, .chest_twist = 4.0, .arm_swing = 20.0, .arm_lag = 0.04,
    .arm_abduction = 11.0, .elbow = 18.0, .elbow_swing = 10.0,
};

static void walk_body(double t, frame_pose *pose)
{
    gait_body(&walk_style, t, pose);
}

static const footstep walk_steps[] = {
    /* side, touch down, flat from, flat to, lift off, x, y, yaw, landing pitch, push pitch */
    {CLIPS_LEFT, 0.00, 0.10, 0.40, 0.64, 0.22, 0.09, 0.0, -20.0, 55.0},
    {CLIPS_RIGHT, 0.50, 0.60, 0.90, 1.14, 0.22, -0.09, 0.0, -20.0, 55.0},
};

/* Run: 3.5 m/s, 0.7 s a cycle (two 1.225 m strides). Each foot stands 0.23 s, landing nearly flat;
 * both feet are off the floor for 0.12 s after each push. */
#define RUN_CYCLE 0.7
#define RUN_SPEED 3.5

static const gait_style run_style = {
    .cycle = RUN_CYCLE, .hips_height = 0.87, .bob = 0.03, .lowest = 0.107, .sway = 0.012,
    .pelvis_yaw = 9.0, .pelvis_roll = 4.0, .lean = 10.0, .chest_twist = 8.0, .arm_swing = 35.0, .arm_lag = 0.03,
    .arm_abduction = 14.0, .elbow = 80.0, .elbow_swing = 15.0,
};

static void run_body(double t, frame_pose *pose)
{
    gait_body(&run_style, t, pose);
}

static const footstep run_steps[] = {
    {CLIPS_LEFT, 0.000, 0.025, 0.125, 0.230, 0.16, 0.06, 0.0, -8.0, 50.0},
    {CLIPS_RIGHT, 0.350, 0.375, 0.475, 0.580, 0.16, -0.06, 0.0, -8.0, 50.0},
};

/* Jump: 2 s. Crouch (0.15-0.55 s), push off the toes (0.80 s), 0.5 s in the air with the legs tucked,
 * land on the toes (1.30 s) and sink, stand back up (by 2 s). The take-off speed gives the air time:
 * v = g * t / 2. */
#define JUMP_AIR_SPEED (GRAVITY * 0.5 / 2.0)

static void jump_body(double t, frame_pose *pose)
{
    static const curve_key height[] = {{0.00, 0.94, 0.0}, {0.15, 0.94, 0.0}, {0.55, 0.70, 0.0},
                                       {0.80, 0.98, JUMP_AIR_SPEED}, {1.30, 0.98, -JUMP_AIR_SPEED},
                                       {1.50, 0.72, 0.0}, {2.00, 0.94, 0.0}};
    static const curve_key forward[] = {{0.15, 0.0, 0.0}, {0.55, -0.08, 0.0}, {0.80, 0.0, 0.2},
                                        {1.30, 0.0, 0.0}, {1.50, -0.06, 0.0}, {2.00, 0.0, 0.0}};
    static const curve_key pelvis_tilt[] = {{0.15, 0.0, 0.0}, {0.55, 22.0, 0.0}, {0.80, 0.0, 0.0},
                                            {1.30, 0.0, 0.0}, {1.50, 18.0, 0.0}, {2.00, 0.0, 0.0}};
    static const curve_key spine_bend[] = {{0.15, 0.0, 0.0}, {0.55, 22.0, 0.0}, {0.80, -6.0, 0.0},
                                           {1.05, 0.0, 0.0}, {1.30, 6.0, 0.0}, {1.50, 18.0, 0.0},
                                           {2.00, 0.0, 0.0}};
    /* Arms swing back in the crouch and throw forward and up for the take-off. */
    static const curve_key arm_swing[] = {{0.15, 4.0, 0.0}, {0.55, -50.0, 0.0}, {0.85, 150.0, 0.0},
                                          {1.10, 120.0, 0.0}, {1.30, 60.0, -200.0}, {1.50, 25.0, 0.0},
                                          {2.00, 4.0, 0.0}};
    double bend = CURVE_AT(spine_bend, t);
    set_hips(pose, CURVE_AT(forward, t), 0.0, CURVE_AT(height, t), 0.0, 0.0, CURVE_AT(pelvis_tilt, t));
    set_spine(pose, 0.0, bend, 0.0, 0.0, -0.7 * (bend + CURVE_AT(pelvis_tilt, t)));
    arm_angles arm = arms_relaxed;
    arm.flexion = CURVE_AT(arm_swing, t);
    arm.abduction += 10.0 * smooth_step(0.55, 0.85, t) * (1.0 - smooth_step(1.3, 1.8, t));
    arm.elbow += 15.0 * smooth_step(0.55, 0.85, t) * (1.0 - smooth_step(1.3, 1.8, t));
    set_arm(pose, CLIPS_LEFT, &arm);
    set_arm(pose, CLIPS_RIGHT, &arm);
}

static const footstep jump_steps[] = {
    {CLIPS_LEFT, 0.00, 0.00, 0.62, 0.80, 0.0, 0.10, 0.0, 0.0, 45.0},
    {CLIPS_RIGHT, 0.00, 0.00, 0.62, 0.80, 0.0, -0.10, 0.0, 0.0, 45.0},
    {CLIPS_LEFT, 1.30, 1.42, 2.00, 2.00, 0.0, 0.10, 0.0, 35.0, 0.0},
    {CLIPS_RIGHT, 1.30, 1.42, 2.00, 2.00, 0.0, -0.10, 0.0, 35.0, 0.0},
};

/* Wave: 3 s, right arm only. It rises to the side with the forearm up (0-0.7 s), the upper arm rolls
 * three times to swing the hand side to side (0.6 s a wave), and it comes back down (2.3-3 s) to exactly
 * the bind pose, so the layer starts and ends on the arm of whatever plays under it. */
static void wave_body(double t, frame_pose *pose)
{
    static const arm_angles bind = {.abduction = 45.0};
    static const arm_angles raised = {.shrug = 8.0, .abduction = 100.0, .flexion = 15.0, .twist = 85.0,
                                      .elbow = 95.0, .fingers = 5.0};
    arm_angles arm = arm_blend(&bind, &raised, smooth_step(0.0, 0.7, t) * (1.0 - smooth_step(2.3, 3.0, t)));
    double waving = smooth_step(0.45, 0.75, t) * (1.0 - smooth_step(2.15, 2.45, t));
    double side_to_side = sin(2.0 * CLIPS_PI * (t - 0.6) / 0.6);
    arm.twist += 22.0 * waving * side_to_side;
    arm.wrist += 12.0 * waving * side_to_side;
    set_arm(pose, CLIPS_RIGHT, &arm);
}

/* Turn left: 1.2 s, 90 degrees on the spot. The root yaws (0.15-1.05 s) while the left foot steps round
 * (0.25-0.55 s) and the right foot follows (0.53-0.85 s); the pelvis and head lead the turn. */
#define TURN_DURATION 1.2

static void turn_body(double t, frame_pose *pose)
{
    set_local_rotation(pose, RIG_ROOT, axis_z, 90.0 * smooth_step(0.15, 1.05, t));
    /* Weight over the right foot while the left one steps, then over the left. */
    double sway = -0.025 * bump(0.0, 0.6, t) + 0.025 * bump(0.4, 1.0, t);
    set_hips(pose, 0.0, sway, 0.935 - 0.012 * bump(0.1, 1.1, t), 14.0 * bump(0.0, 0.9, t), 0.0, 0.0);
    set_spine(pose, 6.0 * bump(0.0, 0.8, t), 2.0, 0.0, 10.0 * bump(0.0, 0.75, t), 0.0);
    for (int side = CLIPS_LEFT; side <= CLIPS_RIGHT; ++side) {
        arm_angles arm = arms_relaxed;
        arm.flexion += (side == CLIPS_LEFT ? -8.0 : 8.0) * bump(0.1, 1.1, t);
        set_arm(pose, side, &arm);
    }
}

static const footstep turn_steps[] = {
    /* The feet end where the turned bind pose puts them: (0, +-0.1) rotated 90 degrees about Z. */
    {CLIPS_LEFT, 0.00, 0.00, 0.22, 0.25, 0.0, 0.10, 0.0, 0.0, 10.0},
    {CLIPS_LEFT, 0.55, 0.58, TURN_DURATION, TURN_DURATION, -0.10, 0.0, 90.0, -5.0, 0.0},
    {CLIPS_RIGHT, 0.00, 0.00, 0.50, 0.53, 0.0, -0.10, 0.0, 0.0, 10.0},
    {CLIPS_RIGHT, 0.85, 0.88, TURN_DURATION, TURN_DURATION, 0.10, 0.0, 90.0, -5.0, 0.0},
};

/* Celebrate: 2.4 s. Arms shoot up in a V with fists (0.25-0.6 s) as the body dips and hops (0.3 s in the
 * air), two fist pumps (1.2-2.0 s), arms back down. */
#define CELEBRATE_AIR_SPEED (GRAVITY * 0.3 / 2.0)

static void celebrate_body(double t, frame_pose *pose)
{
    static const curve_key height[] = {{0.00, 0.94, 0.0}, {0.15, 0.94, 0.0}, {0.42, 0.84, 0.0},
                                       {0.58, 0.97, CELEBRATE_AIR_SPEED}, {0.88, 0.97, -CELEBRATE_AIR_SPEED},
                                       {1.05, 0.86, 0.0}, {1.40, 0.945, 0.0}};
    static const arm_angles up = {.shrug = 10.0, .abduction = 150.0, .flexion = 20.0, .elbow = 20.0,
                                  .fingers = 90.0};
    double raised = smooth_step(0.25, 0.6, t) * (1.0 - smooth_step(2.0, 2.4, t));
    double pump = t > 1.2 && t < 2.0 ? bump(0.0, 0.4, fmod(t - 1.2, 0.4)) : 0.0;
    double crouch = bump(0.15, 0.6, t) + bump(0.88, 1.4, t);
    set_hips(pose, 0.0, 0.0, CURVE_AT(height, t), 0.0, 0.0, 10.0 * crouch);
    set_spine(pose, 0.0, 10.0 * crouch - 8.0 * raised + 4.0 * pump, 0.0, 0.0, -12.0 * raised - 10.0 * crouch);
    arm_angles arm = arm_blend(&arms_relaxed, &up, raised);
    arm.abduction -= 35.0 * pump;
    arm.elbow += 75.0 * pump;
    set_arm(pose, CLIPS_LEFT, &arm);
    set_arm(pose, CLIPS_RIGHT, &arm);
}

static const footstep celebrate_steps[] = {
    {CLIPS_LEFT, 0.00, 0.00, 0.45, 0.58, 0.0, 0.10, 0.0, 0.0, 35.0},
    {CLIPS_RIGHT, 0.00, 0.00, 0.45, 0.58, 0.0, -0.10, 0.0, 0.0, 35.0},
    {CLIPS_LEFT, 0.88, 0.98, 2.40, 2.40, 0.0, 0.10, 0.0, 25.0, 0.0},
    {CLIPS_RIGHT, 0.88, 0.98, 2.40, 2.40, 0.0, -0.10, 0.0, 25.0, 0.0},
};

#define STEPS(array) (array), (int)(sizeof(array) / sizeof((array)[0]))

/* frame_count = duration * frame_rate + 1: the last frame is the end of a one-shot or, for a cycle, the
 * copy of the first frame the Doom 3 convention asks for. */
static const clip_plan plans[] = {
    {{"idle", true, false, 0.0, 24, 145}, idle_body, STEPS(idle_steps), 0.0, false, false},
    {{"walk", true, false, WALK_SPEED, 30, 31}, walk_body, STEPS(walk_steps), 0.055, false, false},
    {{"run", true, false, RUN_SPEED, 30, 22}, run_body, STEPS(run_steps), 0.10, false, false},
    {{"walk_root_motion", true, true, WALK_SPEED, 30, 31}, walk_body, STEPS(walk_steps), 0.055, false, false},
    {{"jump", false, false, 0.0, 30, 61}, jump_body, STEPS(jump_steps), 0.22, true, false},
    {{"wave", false, false, 0.0, 24, 73}, wave_body, NULL, 0, 0.0, false, false},
    {{"turn_left", false, false, 0.0, 30, 37}, turn_body, STEPS(turn_steps), 0.05, false, false},
    {{"turn_right", false, false, 0.0, 30, 37}, turn_body, STEPS(turn_steps), 0.05, false, true},
    {{"celebrate", false, false, 0.0, 30, 73}, celebrate_body, STEPS(celebrate_steps), 0.10, true, false},
};

enum { PLAN_COUNT = (int)(sizeof plans / sizeof plans[0]) };

int clips_count(void)
{
    return PLAN_COUNT;
}

const clip_recipe *clips_recipe(int index)
{
    return index >= 0 && index < PLAN_COUNT ? &plans[index].recipe : NULL;
}

int clips_plants(int index, clips_plant out[CLIPS_MAX_PLANTS])
{
    if (index < 0 || index >= PLAN_COUNT || !plans[index].steps)
        return 0;
    const clip_plan *plan = &plans[index];
    double duration = plan_duration(plan);
    int count = 0;
    for (int side = CLIPS_LEFT; side <= CLIPS_RIGHT; ++side) {
        footstep steps[STEP_COPIES_MAX];
        int step_count = side_footsteps(plan, side, steps);
        for (int i = 0; i < step_count && count < CLIPS_MAX_PLANTS; ++i) {
            double begin = fmax(steps[i].flat_begin, 0.0), end = fmin(steps[i].flat_end, duration);
            if (end - begin > 1e-9)
                out[count++] = (clips_plant){plan->mirrored ? CLIPS_RIGHT - side : side, begin, end};
        }
    }
    for (int i = 1; i < count; ++i)
        for (int j = i; j > 0 && out[j].begin < out[j - 1].begin; --j) {
            clips_plant swap = out[j];
            out[j] = out[j - 1];
            out[j - 1] = swap;
        }
    return count;
}

/* ---------------------------------------------------------------------------------------------------
 * Writing .md5anim text. Numbers go through integer millionths: printed exactly as %.6f would print
 * them, but never as -0.000000, and compared exactly when deciding which components are animated. */

static long long millionths(double value)
{
    return llround(value * 1e6);
}

static void print_millionths(FILE *out, long long value)
{
    unsigned long long magnitude = value < 0 ? 0ull - (unsigned long long)value : (unsigned long long)value;
    fprintf(out, "%s%llu.%06llu", value < 0 ? "-" : "", magnitude / 1000000ull, magnitude % 1000000ull);
}

static void print_triple(FILE *out, const long long values[3])
{
    fputs("( ", out);
    for (int k = 0; k < 3; ++k) {
        print_millionths(out, values[k]);
        fputc(' ', out);
    }
    fputc(')', out);
}

/* A joint's six components as written: position, then the rotation's x, y, z with w <= 0 (MD5 readers
 * recover w as -sqrt(...), so a rotation with w > 0 is written as its negation, the same rotation). */
static void joint_components(const frame_pose *pose, int joint, long long out[6])
{
    const double *q = pose->rotation[joint];
    double length = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    double sign = q[3] > 0.0 ? -1.0 : 1.0;
    for (int k = 0; k < 3; ++k) {
        out[k] = millionths(pose->translation[joint][k]);
        out[3 + k] = millionths(sign * q[k] / length);
    }
}

/* Pose of frame f: a cycle's last frame is its first again, with the root one cycle further on. */
static void plan_frame(const clip_plan *plan, int frame, frame_pose *pose)
{
    bool repeat_first = plan->recipe.cyclic && frame == plan->recipe.frame_count - 1;
    plan_pose(plan, repeat_first ? 0.0 : (double)frame / plan->recipe.frame_rate, pose);
    if (repeat_first && plan->recipe.root_motion)
        pose->translation[RIG_ROOT][0] += plan->recipe.ground_speed * plan_duration(plan);
}

typedef long long joint_values[RIG_JOINT_COUNT][6];

static void write_text(FILE *out, const clip_plan *plan, const frame_pose *poses, joint_values *values,
                       joint_values *base, const int *flags)
{
    int frame_count = plan->recipe.frame_count, component_count = 0;
    for (int j = 0; j < RIG_JOINT_COUNT; ++j)
        for (int k = 0; k < 6; ++k)
            component_count += (flags[j] >> k) & 1;
    fprintf(out, "MD5Version 10\ncommandline \"generated by marionette assetgen\"\n\n");
    fprintf(out, "numFrames %d\nnumJoints %d\nframeRate %d\nnumAnimatedComponents %d\n\n", frame_count,
            RIG_JOINT_COUNT, plan->recipe.frame_rate, component_count);

    fputs("hierarchy {\n", out);
    for (int j = 0, start = 0; j < RIG_JOINT_COUNT; ++j) {
        fprintf(out, "\t\"%s\" %d %d %d\n", rig_joints[j].name, rig_joints[j].parent, flags[j], start);
        for (int k = 0; k < 6; ++k)
            start += (flags[j] >> k) & 1;
    }
    fputs("}\n\nbounds {\n", out);
    for (int f = 0; f < frame_count; ++f) {
        long long low[3], high[3];
        for (int j = 0; j < RIG_JOINT_COUNT; ++j) {
            double rotation[4], position[3];
            pose_object(&poses[f], j, rotation, position);
            for (int k = 0; k < 3; ++k) {
                long long below = millionths(position[k] - BOUNDS_MARGIN);
                long long above = millionths(position[k] + BOUNDS_MARGIN);
                low[k] = j == 0 || below < low[k] ? below : low[k];
                high[k] = j == 0 || above > high[k] ? above : high[k];
            }
        }
        fputc('\t', out);
        print_triple(out, low);
        fputc(' ', out);
        print_triple(out, high);
        fputc('\n', out);
    }
    fputs("}\n\nbaseframe {\n", out);
    for (int j = 0; j < RIG_JOINT_COUNT; ++j) {
        fputc('\t', out);
        print_triple(out, &(*base)[j][0]);
        fputc(' ', out);
        print_triple(out, &(*base)[j][3]);
        fputc('\n', out);
    }
    fputs("}\n", out);
    for (int f = 0; f < frame_count; ++f) {
        fprintf(out, "\nframe %d {\n", f);
        for (int j = 0; j < RIG_JOINT_COUNT; ++j) {
            if (!flags[j])
                continue;
            fputc('\t', out);
            for (int k = 0; k < 6; ++k)
                if ((flags[j] >> k) & 1) {
                    print_millionths(out, values[f][j][k]);
                    fputc(' ', out);
                }
            fputc('\n', out);
        }
        fputs("}\n", out);
    }
}

bool clips_write(FILE *out, int index)
{
    if (!out || index < 0 || index >= PLAN_COUNT)
        return false;
    const clip_plan *plan = &plans[index];
    int frame_count = plan->recipe.frame_count;
    frame_pose *poses = malloc((size_t)frame_count * sizeof *poses);
    joint_values *values = malloc((size_t)frame_count * sizeof *values);
    if (!poses || !values) {
        free(poses);
        free(values);
        return false;
    }
    frame_pose bind;
    pose_set_bind(&bind);
    joint_values base;
    for (int j = 0; j < RIG_JOINT_COUNT; ++j)
        joint_components(&bind, j, base[j]);
    /* Minimal flags: a component is animated only if some frame writes something else than the base. */
    int flags[RIG_JOINT_COUNT] = {0};
    for (int f = 0; f < frame_count; ++f) {
        plan_frame(plan, f, &poses[f]);
        for (int j = 0; j < RIG_JOINT_COUNT; ++j) {
            joint_components(&poses[f], j, values[f][j]);
            for (int k = 0; k < 6; ++k)
                if (values[f][j][k] != base[j][k])
                    flags[j] |= 1 << k;
        }
    }
    write_text(out, plan, poses, values, &base, flags);
    free(poses);
    free(values);
    return !ferror(out);
}
