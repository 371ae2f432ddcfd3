/* clips_motion: every clip is a function of time that poses the rig, sampled at the clip's frame rate.
 *
 * How a pose is made, top to bottom of this file:
 *   1. the clip's body function sets the root, hips, spine, head and arms as local rotations (smooth
 *      curves of a phase: sines for cycles, Hermite keys for one-shots);
 *   2. the clip's footsteps say where each foot is: planted (fixed in the world, rolling on the heel as
 *      it lands and on the ball of the foot as it pushes off) or swinging between two plants;
 *   3. two-bone leg IK turns each foot target into thigh, shin, foot and toe rotations, so planted feet
 *      stay exactly where they were put.
 * In-place clips that travel (walk, run, walk_left, ...) place their footsteps in a world that moves
 * under the character at the ground speed: a planted foot slides against the direction of travel at
 * exactly that speed. A derived plan (walk_back, walk_right, ...) is another plan's pose at a mapped
 * time, mirrored or not (clip_derivation). */
#include "clips_internal.h"

#include <math.h>
#include <string.h>

/* ---------------------------------------------------------------------------------------------------
 * Curves of time. */

/* Cubic Hermite: value p0 with slope v0 (per second) at s = 0, p1 with slope v1 at s = 1, over a span of
 * `duration` seconds. Matching values and slopes is what keeps joined pieces free of visible kinks. */
static double hermite(double p0, double v0, double p1, double v1, double duration, double s)
{
    double s2 = s * s, s3 = s2 * s;
    return (2.0 * s3 - 3.0 * s2 + 1.0) * p0 + (s3 - 2.0 * s2 + s) * duration * v0 + (-2.0 * s3 + 3.0 * s2) * p1 +
           (s3 - s2) * duration * v1;
}

double clips_curve_at(const curve_key *keys, int count, double t)
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

double clips_cycle_sine(double phase, double offset)
{
    return sin(2.0 * SHAPE_PI * (phase - offset));
}

double clips_cycle_cosine(double phase, double offset)
{
    return cos(2.0 * SHAPE_PI * (phase - offset));
}

/* ---------------------------------------------------------------------------------------------------
 * A pose of the rig: every joint's local (parent-relative) rotation and translation. */

void clips_pose_bind(frame_pose *pose)
{
    for (int j = 0; j < RIG_JOINT_COUNT; ++j) {
        memcpy(pose->rotation[j], shape_rotation_identity, sizeof pose->rotation[j]);
        rig_local_offset(j, pose->translation[j]);
    }
}

void clips_pose_object(const frame_pose *pose, int joint, double rotation[4], double position[3])
{
    int chain[RIG_JOINT_COUNT], depth = 0;
    for (int j = joint; j >= 0; j = rig_joints[j].parent)
        chain[depth++] = j;
    memcpy(rotation, shape_rotation_identity, 4 * sizeof(double));
    position[0] = position[1] = position[2] = 0.0;
    for (int i = depth - 1; i >= 0; --i) {
        double offset[3];
        shape_rotation_apply(rotation, pose->translation[chain[i]], offset);
        shape_add_scaled(position, offset, 1.0, position);
        shape_rotation_multiply(rotation, pose->rotation[chain[i]], rotation);
    }
}

/* Give joint the object-space rotation `object_rotation`, whatever its parents do. */
static void pose_set_object_rotation(frame_pose *pose, int joint, const double object_rotation[4])
{
    double parent_rotation[4], parent_position[3], parent_inverse[4];
    clips_pose_object(pose, rig_joints[joint].parent, parent_rotation, parent_position);
    shape_rotation_inverse(parent_rotation, parent_inverse);
    shape_rotation_multiply(parent_inverse, object_rotation, pose->rotation[joint]);
}

/* The pose seen in a mirror standing in the XZ plane (left becomes right). A reflection flips y of
 * positions and, since rotation axes are pseudo-vectors, x and z of rotation axes. The rig is symmetric,
 * so mirrored bind offsets are the other side's bind offsets. */
static void pose_mirror(frame_pose *pose)
{
    frame_pose original = *pose;
    for (int j = 0; j < RIG_JOINT_COUNT; ++j) {
        int m = rig_mirror(j);
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

void clips_set_local_rotation(frame_pose *pose, int joint, const double axis[3], double degrees)
{
    shape_rotation_about(axis, DEGREES(degrees), pose->rotation[joint]);
}

void clips_set_hips(frame_pose *pose, double x, double y, double z, double yaw, double roll, double pitch)
{
    double yaw_rotation[4], roll_rotation[4], pitch_rotation[4];
    shape_rotation_about(shape_axis_z, DEGREES(yaw), yaw_rotation);
    shape_rotation_about(shape_axis_x, DEGREES(roll), roll_rotation);
    shape_rotation_about(shape_axis_y, DEGREES(pitch), pitch_rotation);
    shape_rotation_multiply(yaw_rotation, roll_rotation, pose->rotation[RIG_HIPS]);
    shape_rotation_multiply(pose->rotation[RIG_HIPS], pitch_rotation, pose->rotation[RIG_HIPS]);
    pose->translation[RIG_HIPS][0] = x;
    pose->translation[RIG_HIPS][1] = y;
    pose->translation[RIG_HIPS][2] = z;
}

void clips_set_spine(frame_pose *pose, double yaw, double pitch, double roll, double head_yaw, double head_pitch)
{
    for (int j = RIG_SPINE_1; j <= RIG_SPINE_3; ++j) {
        double yaw_rotation[4], pitch_rotation[4], roll_rotation[4];
        shape_rotation_about(shape_axis_z, DEGREES(yaw / 3.0), yaw_rotation);
        shape_rotation_about(shape_axis_y, DEGREES(pitch / 3.0), pitch_rotation);
        shape_rotation_about(shape_axis_x, DEGREES(roll / 3.0), roll_rotation);
        shape_rotation_multiply(yaw_rotation, pitch_rotation, pose->rotation[j]);
        shape_rotation_multiply(pose->rotation[j], roll_rotation, pose->rotation[j]);
    }
    double yaw_rotation[4], pitch_rotation[4];
    shape_rotation_about(shape_axis_z, DEGREES(0.5 * head_yaw), yaw_rotation);
    shape_rotation_about(shape_axis_y, DEGREES(0.5 * head_pitch), pitch_rotation);
    shape_rotation_multiply(yaw_rotation, pitch_rotation, pose->rotation[RIG_NECK]);
    memcpy(pose->rotation[RIG_HEAD], pose->rotation[RIG_NECK], sizeof pose->rotation[RIG_HEAD]);
}

const arm_angles clips_arms_relaxed = {.abduction = 12.0, .flexion = 4.0, .elbow = 14.0, .fingers = 15.0};

arm_angles clips_arm_blend(const arm_angles *a, const arm_angles *b, double weight)
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

void clips_set_arm(frame_pose *pose, int side, const arm_angles *arm)
{
    int offset = side == CLIPS_LEFT ? 0 : RIG_RIGHT_ARM_OFFSET;
    double sign = side == CLIPS_LEFT ? 1.0 : -1.0;
    /* The bind arm points 45 degrees down and out; the elbow, wrist and knuckles bend forward (+X) about
     * the axis across the arm, and the fingers curl towards the palm, which faces the body. */
    double bind_direction[3] = {0.0, sign * sqrt(0.5), -sqrt(0.5)};
    double hinge[3], curl_axis[3] = {-sign, 0.0, 0.0};
    shape_cross(bind_direction, shape_axis_x, hinge);

    clips_set_local_rotation(pose, RIG_CLAVICLE_L + offset, shape_axis_x, sign * arm->shrug);

    double twist[4], raise[4], swing[4];
    shape_rotation_about(bind_direction, DEGREES(-sign * arm->twist), twist);
    shape_rotation_about(shape_axis_x, DEGREES(sign * (arm->abduction - 45.0)), raise);
    shape_rotation_about(shape_axis_y, DEGREES(-arm->flexion), swing);
    double *upper = pose->rotation[RIG_UPPERARM_L + offset];
    shape_rotation_multiply(raise, twist, upper);
    shape_rotation_multiply(swing, upper, upper);

    clips_set_local_rotation(pose, RIG_FOREARM_L + offset, hinge, arm->elbow);
    clips_set_local_rotation(pose, RIG_HAND_L + offset, hinge, arm->wrist);
    clips_set_local_rotation(pose, RIG_FINGERS_1_L + offset, curl_axis, 0.5 * arm->fingers);
    clips_set_local_rotation(pose, RIG_FINGERS_2_L + offset, curl_axis, 0.5 * arm->fingers);
    clips_set_local_rotation(pose, RIG_THUMB_1_L + offset, curl_axis, 0.3 * arm->fingers);
    clips_set_local_rotation(pose, RIG_THUMB_2_L + offset, curl_axis, 0.3 * arm->fingers);
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
    shape_rotation_about(shape_axis_z, yaw, yaw_rotation);
    shape_rotation_about(shape_axis_y, pitch, pitch_rotation);
    shape_rotation_multiply(yaw_rotation, pitch_rotation, foot_rotation);
    double pivot_world[3], back_to_ankle[3] = {-pivot[0], -pivot[1], -pivot[2]};
    shape_rotation_apply(yaw_rotation, pivot, pivot_world);
    shape_add_scaled(flat_ankle, pivot_world, 1.0, pivot_world);
    shape_rotation_apply(foot_rotation, back_to_ankle, back_to_ankle);
    shape_add_scaled(pivot_world, back_to_ankle, 1.0, foot.ankle);
    foot.toe_bend = pitch > 0.0 ? -pitch : 0.0;
    return foot;
}

/* The foot of `step` at time t in [touch_down, lift_off], in the world, for a world moving on at
 * velocity (m/s, x and y). */
static foot_state footstep_state(const footstep *step, const double velocity[2], double t)
{
    double flat_ankle[3] = {step->x + velocity[0] * step->flat_begin, step->y + velocity[1] * step->flat_begin,
                            RIG_ANKLE_HEIGHT};
    double pitch = 0.0;
    if (t < step->flat_begin) {
        /* Fastest right at contact, settling gently: (1 - s)^2. */
        double remaining = 1.0 - shape_clamp01((t - step->touch_down) / (step->flat_begin - step->touch_down));
        pitch = DEGREES(step->landing_pitch) * remaining * remaining;
    } else if (t > step->flat_end) {
        double s = shape_clamp01((t - step->flat_end) / (step->lift_off - step->flat_end));
        pitch = DEGREES(step->push_pitch) * s * s;
    }
    return foot_rolled(flat_ankle, DEGREES(step->yaw), pitch);
}

double clips_plan_duration(const clip_plan *plan)
{
    return (double)(plan->recipe.frame_count - 1) / plan->recipe.frame_rate;
}

/* How fast the world moves on under an in-place clip (the character's velocity over the floor). */
static void plan_velocity(const clip_plan *plan, double velocity[2])
{
    velocity[0] = plan->recipe.ground_speed * plan->recipe.direction[0];
    velocity[1] = plan->recipe.ground_speed * plan->recipe.direction[1];
}

/* The body's hips height at t (the reference a swinging foot hangs from in the air). */
static double plan_hips_height(const clip_plan *plan, double t)
{
    frame_pose pose;
    clips_pose_bind(&pose);
    plan->pose_body(t, &pose);
    return pose.translation[RIG_HIPS][2];
}

int clips_side_footsteps(const clip_plan *plan, int side, footstep out[CLIPS_STEP_COPIES_MAX])
{
    int count = 0;
    int cycles = plan->recipe.cyclic ? 1 : 0;
    double cycle = clips_plan_duration(plan);
    for (int k = -cycles; k <= cycles; ++k)
        for (int i = 0; i < plan->step_count && count < CLIPS_STEP_COPIES_MAX; ++i) {
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
    double speed[2];
    plan_velocity(plan, speed);
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
    double lift = sin(SHAPE_PI * s);
    foot.ankle[2] += plan->swing_lift * lift * lift;
    if (plan->swing_under_hips)
        foot.ankle[2] += plan_hips_height(plan, t);
    return foot;
}

/* Where the foot of `side` is at time t, in the world (see footstep.x). */
static foot_state plan_foot(const clip_plan *plan, int side, double t)
{
    footstep steps[CLIPS_STEP_COPIES_MAX];
    int count = clips_side_footsteps(plan, side, steps);
    double velocity[2];
    plan_velocity(plan, velocity);
    for (int i = 0; i < count; ++i)
        if (t >= steps[i].touch_down && t <= steps[i].lift_off)
            return footstep_state(&steps[i], velocity, t);
    for (int i = 0; i + 1 < count; ++i)
        if (t > steps[i].lift_off && t < steps[i + 1].touch_down)
            return foot_swing(plan, &steps[i], &steps[i + 1], t);
    /* Before the first or after the last footstep: stand on the nearest one. */
    const footstep *nearest = t < steps[0].touch_down ? &steps[0] : &steps[count - 1];
    return footstep_state(nearest, velocity, t < nearest->touch_down ? nearest->touch_down
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
    double thigh_length = shape_length(pose->translation[shin]);
    double shin_length = shape_length(pose->translation[ankle_joint]);

    /* A joint's own rotation does not move it: the hip is where the parents put it. */
    double unused_rotation[4], hip[3];
    clips_pose_object(pose, thigh, unused_rotation, hip);

    double to_ankle[3], line[3][3];
    shape_add_scaled(foot->ankle, hip, -1.0, to_ankle);
    shape_frame_from(to_ankle, knee_forward, line); /* line[0]: hip to ankle; line[1]: the knee's side of it */
    double reach = shape_length(to_ankle);
    double longest = thigh_length + shin_length, shortest = fabs(thigh_length - shin_length) + 1e-6;
    reach = reach > longest ? longest : reach < shortest ? shortest : reach;

    /* Law of cosines: how far along the hip-ankle line the knee is, and how far off it. */
    double along = (thigh_length * thigh_length - shin_length * shin_length + reach * reach) / (2.0 * reach);
    double off_squared = thigh_length * thigh_length - along * along;
    double off = off_squared > 0.0 ? sqrt(off_squared) : 0.0;
    double knee[3], ankle[3], thigh_direction[3], shin_direction[3];
    shape_add_scaled(hip, line[0], along, knee);
    shape_add_scaled(knee, line[1], off, knee);
    shape_add_scaled(hip, line[0], reach, ankle);
    shape_add_scaled(knee, hip, -1.0, thigh_direction);
    shape_add_scaled(ankle, knee, -1.0, shin_direction);

    /* In bind pose both bones point straight down with the knee's bend forward (+X). */
    const double down[3] = {0.0, 0.0, -1.0};
    double thigh_object[4], shin_object[4];
    shape_rotation_between_frames(down, shape_axis_x, thigh_direction, line[1], thigh_object);
    shape_rotation_between_frames(down, shape_axis_x, shin_direction, line[1], shin_object);
    pose_set_object_rotation(pose, thigh, thigh_object);
    pose_set_object_rotation(pose, shin, shin_object);

    double yaw_rotation[4], pitch_rotation[4], foot_object[4];
    shape_rotation_about(shape_axis_z, foot->yaw, yaw_rotation);
    shape_rotation_about(shape_axis_y, foot->pitch, pitch_rotation);
    shape_rotation_multiply(yaw_rotation, pitch_rotation, foot_object);
    pose_set_object_rotation(pose, ankle_joint, foot_object);
    shape_rotation_about(shape_axis_y, foot->toe_bend, pose->rotation[toe]);
}

/* A derived plan's pose: its source's at the mapped time, mirrored if asked. */
static void derived_plan_pose(const clip_plan *plan, double t, frame_pose *pose)
{
    const clip_plan *source = clips_find_plan(plan->derived.source);
    double cycle = clips_plan_duration(source);
    double source_time = fmod(plan->derived.time_offset + plan->derived.time_scale * t, cycle);
    if (source_time < 0.0)
        source_time += cycle;
    clips_plan_pose(source, source_time, pose);
    if (plan->mirrored)
        pose_mirror(pose);
}

void clips_plan_pose(const clip_plan *plan, double t, frame_pose *pose)
{
    if (plan->derived.source) {
        derived_plan_pose(plan, t, pose);
        return;
    }
    clips_pose_bind(pose);
    plan->pose_body(t, pose);
    double velocity[2];
    plan_velocity(plan, velocity);
    double travel[2] = {velocity[0] * t, velocity[1] * t};
    if (plan->recipe.root_motion) {
        pose->translation[RIG_ROOT][0] += travel[0];
        pose->translation[RIG_ROOT][1] += travel[1];
    }
    for (int side = CLIPS_LEFT; side <= CLIPS_RIGHT && plan->steps; ++side) {
        foot_state foot = plan_foot(plan, side, t);
        /* The world moves on by `travel` while the root stays behind (in place) or keeps up (root
         * motion): object space = world - travel + root. */
        foot.ankle[0] += pose->translation[RIG_ROOT][0] - travel[0];
        foot.ankle[1] += pose->translation[RIG_ROOT][1] - travel[1];
        /* Knees point between where the pelvis and the foot face, so turning feet do not twist them. */
        double hips_rotation[4], hips_position[3], hips_forward[3], knee_forward[3];
        clips_pose_object(pose, RIG_HIPS, hips_rotation, hips_position);
        shape_rotation_apply(hips_rotation, shape_axis_x, hips_forward);
        hips_forward[2] = 0.0;
        shape_normalize(hips_forward, shape_axis_x, hips_forward);
        double foot_forward[3] = {cos(foot.yaw), sin(foot.yaw), 0.0};
        shape_add_scaled(hips_forward, foot_forward, 1.0, knee_forward);
        shape_normalize(knee_forward, hips_forward, knee_forward);
        leg_solve(pose, side, &foot, knee_forward);
    }
    if (plan->mirrored)
        pose_mirror(pose);
}

