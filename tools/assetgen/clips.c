/* clips: the clip library, one body function, footstep table and recipe per clip; the machinery that
 * turns them into poses is in clips_motion.c (see clips_internal.h).
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
#include "clips_internal.h"

#include <math.h>

#define GRAVITY 9.81 /* m/s^2, for the time spent in the air */

/* ---------------------------------------------------------------------------------------------------
 * The clips' bodies and footsteps. */

/* 0 outside [begin, end], rising to 1 in the middle and back with flat ends: a single smooth bump. */
static double bump(double begin, double end, double t)
{
    if (t <= begin || t >= end)
        return 0.0;
    double s = sin(SHAPE_PI * (t - begin) / (end - begin));
    return s * s;
}

/* Idle: 6 s, one weight shift (left foot, then right) and two breaths; feet planted where they stand. */
#define IDLE_DURATION 6.0

static void idle_body(double t, frame_pose *pose)
{
    double shift = clips_cycle_sine(t / IDLE_DURATION, 0.0); /* +1: weight over the left foot */
    double breath = 0.5 - 0.5 * clips_cycle_cosine(2.0 * t / IDLE_DURATION, 0.0); /* 0 out, 1 in */
    double look = clips_cycle_sine(t / IDLE_DURATION, 0.2);
    /* The hips drift over the foot taking the weight, that hip rises and the whole pelvis sinks a
     * little; the spine leans back against it to keep the head over the feet. */
    clips_set_hips(pose, 0.0, 0.022 * shift, 0.952 - 0.008 * shift * shift, 2.0 * look, 2.5 * shift, 0.0);
    clips_set_spine(pose, -1.5 * look, 1.0 - 2.0 * breath, -3.5 * shift, 4.0 * look, -1.0 + 1.5 * breath);
    for (int side = CLIPS_LEFT; side <= CLIPS_RIGHT; ++side) {
        double sign = side == CLIPS_LEFT ? 1.0 : -1.0;
        arm_angles arm = clips_arms_relaxed;
        arm.shrug = 2.0 * breath;
        arm.abduction += 1.5 * breath + 2.0 * sign * shift;
        arm.flexion += 1.5 * clips_cycle_sine(t / IDLE_DURATION, 0.4);
        clips_set_arm(pose, side, &arm);
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
    double pelvis_yaw = -gait->pelvis_yaw * clips_cycle_cosine(phase, 0.0); /* left hip forward at phase 0 */
    double height = gait->hips_height - gait->bob * clips_cycle_cosine(2.0 * phase, 2.0 * gait->lowest);
    double roll = gait->pelvis_roll * clips_cycle_sine(phase, 0.0);         /* left hip up while left stands */
    clips_set_hips(pose, 0.0, gait->sway * clips_cycle_sine(phase, 0.05), height, pelvis_yaw, roll, 0.4 * gait->lean);
    double chest_yaw = gait->chest_twist * clips_cycle_cosine(phase, gait->arm_lag);
    clips_set_spine(pose, chest_yaw - pelvis_yaw, 0.6 * gait->lean, -roll, -chest_yaw, -gait->lean);
    for (int side = CLIPS_LEFT; side <= CLIPS_RIGHT; ++side) {
        double swing = (side == CLIPS_LEFT ? -1.0 : 1.0) * clips_cycle_cosine(phase, gait->arm_lag);
        arm_angles arm = clips_arms_relaxed;
        arm.abduction = gait->arm_abduction;
        arm.flexion = gait->arm_swing * swing;
        arm.elbow = gait->elbow + gait->elbow_swing * swing;
        clips_set_arm(pose, side, &arm);
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
    clips_set_hips(pose, CURVE_AT(forward, t), 0.0, CURVE_AT(height, t), 0.0, 0.0, CURVE_AT(pelvis_tilt, t));
    clips_set_spine(pose, 0.0, bend, 0.0, 0.0, -0.7 * (bend + CURVE_AT(pelvis_tilt, t)));
    arm_angles arm = clips_arms_relaxed;
    arm.flexion = CURVE_AT(arm_swing, t);
    arm.abduction += 10.0 * shape_smoothstep(0.55, 0.85, t) * (1.0 - shape_smoothstep(1.3, 1.8, t));
    arm.elbow += 15.0 * shape_smoothstep(0.55, 0.85, t) * (1.0 - shape_smoothstep(1.3, 1.8, t));
    clips_set_arm(pose, CLIPS_LEFT, &arm);
    clips_set_arm(pose, CLIPS_RIGHT, &arm);
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
    double raising = shape_smoothstep(0.0, 0.7, t) * (1.0 - shape_smoothstep(2.3, 3.0, t));
    arm_angles arm = clips_arm_blend(&bind, &raised, raising);
    double waving = shape_smoothstep(0.45, 0.75, t) * (1.0 - shape_smoothstep(2.15, 2.45, t));
    double side_to_side = sin(2.0 * SHAPE_PI * (t - 0.6) / 0.6);
    arm.twist += 22.0 * waving * side_to_side;
    arm.wrist += 12.0 * waving * side_to_side;
    clips_set_arm(pose, CLIPS_RIGHT, &arm);
}

/* Turn left: 1.2 s, 90 degrees on the spot. The root yaws (0.15-1.05 s) while the left foot steps round
 * (0.25-0.55 s) and the right foot follows (0.53-0.85 s); the pelvis and head lead the turn. */
#define TURN_DURATION 1.2

static void turn_body(double t, frame_pose *pose)
{
    clips_set_local_rotation(pose, RIG_ROOT, shape_axis_z, 90.0 * shape_smoothstep(0.15, 1.05, t));
    /* Weight over the right foot while the left one steps, then over the left. */
    double sway = -0.025 * bump(0.0, 0.6, t) + 0.025 * bump(0.4, 1.0, t);
    clips_set_hips(pose, 0.0, sway, 0.935 - 0.012 * bump(0.1, 1.1, t), 14.0 * bump(0.0, 0.9, t), 0.0, 0.0);
    clips_set_spine(pose, 6.0 * bump(0.0, 0.8, t), 2.0, 0.0, 10.0 * bump(0.0, 0.75, t), 0.0);
    for (int side = CLIPS_LEFT; side <= CLIPS_RIGHT; ++side) {
        arm_angles arm = clips_arms_relaxed;
        arm.flexion += (side == CLIPS_LEFT ? -8.0 : 8.0) * bump(0.1, 1.1, t);
        clips_set_arm(pose, side, &arm);
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
    double raised = shape_smoothstep(0.25, 0.6, t) * (1.0 - shape_smoothstep(2.0, 2.4, t));
    double pump = t > 1.2 && t < 2.0 ? bump(0.0, 0.4, fmod(t - 1.2, 0.4)) : 0.0;
    double crouch = bump(0.15, 0.6, t) + bump(0.88, 1.4, t);
    clips_set_hips(pose, 0.0, 0.0, CURVE_AT(height, t), 0.0, 0.0, 10.0 * crouch);
    clips_set_spine(pose, 0.0, 10.0 * crouch - 8.0 * raised + 4.0 * pump, 0.0, 0.0, -12.0 * raised - 10.0 * crouch);
    arm_angles arm = clips_arm_blend(&clips_arms_relaxed, &up, raised);
    arm.abduction -= 35.0 * pump;
    arm.elbow += 75.0 * pump;
    clips_set_arm(pose, CLIPS_LEFT, &arm);
    clips_set_arm(pose, CLIPS_RIGHT, &arm);
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
    double duration = clips_plan_duration(plan);
    int count = 0;
    for (int side = CLIPS_LEFT; side <= CLIPS_RIGHT; ++side) {
        footstep steps[CLIPS_STEP_COPIES_MAX];
        int step_count = clips_side_footsteps(plan, side, steps);
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

bool clips_write(FILE *out, int index)
{
    if (!out || index < 0 || index >= PLAN_COUNT)
        return false;
    return clips_write_plan(out, &plans[index]);
}
