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
 *   celebrate         once, 30 fps, 2.4 s: both arms up, a small hop, two fist pumps, arms down
 *
 * Locomotion in other directions, for a 2D blend space: the cycle length, frame count and plant phases
 * of the forward clip of the same gait (the left foot plants at the same normalized phase), the same
 * ground speed, in place, travelling along recipe.direction:
 *   walk_left         cyclic, 1.4 m/s to the left (+Y): side steps, the trailing right leg crossing in
 *                     front; the pelvis opens 20 degrees towards the travel, the shoulders face forward
 *   walk_right        walk_left in a mirror, half a cycle on (so the left foot still plants first)
 *   walk_back         the walk played backwards (toes land first, the heel rolls off)
 *   run_left, run_right, run_back: the same for the run, 3.5 m/s
 *
 * Additive sources: frame 0 is exactly the bind pose (the reference); only the spine, neck, head and
 * arms move, so they can be added over any clip without touching the feet:
 *   lean_left         once, 30 fps, 0.5 s: the spine rolls 15 degrees to the left (into a left turn),
 *                     growing smoothly from the bind pose at frame 0 to the full lean at the last frame
 *                     (frame 15), which a one-shot holds: drive the weight by the turn rate
 *   lean_right        lean_left in a mirror
 *   breathe           cyclic, 24 fps, 4 s: one slow breath, the chest lifting and the shoulders rising
 *   flinch            once, 30 fps, 0.8 s: a hit from the front; the upper body jerks back with the
 *                     shoulders up and the arms coming up (peak at 0.1 s), then settles back to the bind
 *                     pose by the end */
#include "clips_internal.h"

#include <math.h>
#include <string.h>

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
    double pelvis_turn;  /* degrees: the pelvis held turned (left: positive) towards a sideways travel
                          * while the spine turns the shoulders back to face forward */
} gait_style;

static void gait_body(const gait_style *gait, double t, frame_pose *pose)
{
    double phase = t / gait->cycle;
    /* Left hip forward at phase 0. */
    double pelvis_yaw = gait->pelvis_turn - gait->pelvis_yaw * clips_cycle_cosine(phase, 0.0);
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

/* Side steps to the left. The world slides right (-Y) under the feet; each foot lands on the left of its
 * hip and slides to the right of it, so the feet pass each other every step: the trailing right foot
 * crosses in front (+X), the left one behind. The hips sit lower than in the forward gaits, which
 * lengthens the legs' sideways reach, and plants keep the forward clip's phases (left flat from 0.10 s
 * in the walk, 0.025 s in the run). Each foot stands 0.52 s of the walk (0.73 m of floor under it) and
 * 0.20 s of the run (0.70 m); a step's y at flat_begin is its hip's y plus half that, less the floor
 * that went by since touch-down. */
static const gait_style walk_left_style = {
    .cycle = WALK_CYCLE, .hips_height = 0.87, .bob = 0.02, .lowest = 0.04, .sway = 0.015,
    .pelvis_yaw = 2.0, .pelvis_roll = 3.0, .lean = 2.0, .chest_twist = 1.0, .arm_swing = 8.0, .arm_lag = 0.04,
    .arm_abduction = 16.0, .elbow = 20.0, .elbow_swing = 5.0, .pelvis_turn = 20.0,
};

static void walk_left_body(double t, frame_pose *pose)
{
    gait_body(&walk_left_style, t, pose);
}

static const footstep walk_left_steps[] = {
    {CLIPS_LEFT, 0.00, 0.10, 0.38, 0.52, -0.07, 0.318, 10.0, 5.0, 25.0},
    {CLIPS_RIGHT, 0.50, 0.60, 0.88, 1.02, 0.07, 0.130, 10.0, 5.0, 25.0},
};

static const gait_style run_left_style = {
    .cycle = RUN_CYCLE, .hips_height = 0.80, .bob = 0.03, .lowest = 0.107, .sway = 0.01,
    .pelvis_yaw = 3.0, .pelvis_roll = 3.0, .lean = 5.0, .chest_twist = 2.0, .arm_swing = 15.0, .arm_lag = 0.03,
    .arm_abduction = 18.0, .elbow = 80.0, .elbow_swing = 8.0, .pelvis_turn = 20.0,
};

static void run_left_body(double t, frame_pose *pose)
{
    gait_body(&run_left_style, t, pose);
}

static const footstep run_left_steps[] = {
    {CLIPS_LEFT, 0.000, 0.025, 0.115, 0.200, -0.08, 0.357, 10.0, 0.0, 40.0},
    {CLIPS_RIGHT, 0.350, 0.375, 0.465, 0.550, 0.08, 0.169, 10.0, 0.0, 40.0},
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

/* ---- Additive sources: frame 0 is the bind pose; nothing below the spine moves. ---- */

/* The bind pose's arm (every angle of clips_set_arm at its bind value). */
static const arm_angles bind_arm = {.abduction = 45.0};

/* Lean: the spine rolls into a left turn, the head keeping a third of it back towards upright. */
#define LEAN_DURATION 0.5
#define LEAN_DEGREES 15.0

static void lean_body(double t, frame_pose *pose)
{
    double lean = -LEAN_DEGREES * shape_smoothstep(0.0, LEAN_DURATION, t); /* negative roll: left shoulder down */
    clips_set_spine(pose, 0.0, 0.0, lean, 0.0, 0.0);
    clips_set_local_rotation(pose, RIG_NECK, shape_axis_x, -lean / 3.0);
    /* The arms hang from the tilted chest; the clavicles let them swing out a little with it. */
    arm_angles arm = bind_arm;
    arm.shrug = lean / 6.0;
    clips_set_arm(pose, CLIPS_LEFT, &arm);
    arm.shrug = -lean / 6.0;
    clips_set_arm(pose, CLIPS_RIGHT, &arm);
}

/* Breathe: 4 s, one breath in and out; the chest rises (the spine straightens back), the shoulders lift,
 * the head keeps its gaze level. */
#define BREATHE_DURATION 4.0

static void breathe_body(double t, frame_pose *pose)
{
    double breath = 0.5 - 0.5 * clips_cycle_cosine(t / BREATHE_DURATION, 0.0); /* 0 out, 1 in */
    clips_set_spine(pose, 0.0, -2.0 * breath, 0.0, 0.0, 2.0 * breath);
    arm_angles arm = bind_arm;
    arm.shrug = 3.0 * breath;
    arm.abduction += 1.5 * breath;
    clips_set_arm(pose, CLIPS_LEFT, &arm);
    clips_set_arm(pose, CLIPS_RIGHT, &arm);
}

/* Flinch: 0.8 s, hit in the chest from the front. A fast jerk back (peak at 0.1 s) with the shoulders up,
 * the head ducking and the arms coming up to guard, then a slower settle back to the bind pose. */
#define FLINCH_DURATION 0.8

static void flinch_body(double t, frame_pose *pose)
{
    static const curve_key amount[] = {{0.0, 0.0, 0.0}, {0.1, 1.0, 0.0}, {0.3, 0.55, -2.0}, {FLINCH_DURATION, 0.0, 0.0}};
    static const arm_angles guard = {.shrug = 12.0, .abduction = 30.0, .flexion = 35.0, .elbow = 70.0,
                                     .wrist = 10.0, .fingers = 40.0};
    double hit = CURVE_AT(amount, t);
    clips_set_spine(pose, 8.0 * hit, -14.0 * hit, 3.0 * hit, -4.0 * hit, 18.0 * hit);
    arm_angles arm = clips_arm_blend(&bind_arm, &guard, hit);
    clips_set_arm(pose, CLIPS_LEFT, &arm);
    arm = clips_arm_blend(&bind_arm, &guard, 0.8 * hit);
    clips_set_arm(pose, CLIPS_RIGHT, &arm);
}

#define STEPS(array) (array), (int)(sizeof(array) / sizeof((array)[0]))
#define FORWARD {1.0, 0.0}
#define NOT_DERIVED {NULL, 0.0, 0.0}

/* frame_count = duration * frame_rate + 1: the last frame is the end of a one-shot or, for a cycle, the
 * copy of the first frame the Doom 3 convention asks for. */
/* Derived clips: walk_back is walk reversed about 0.25 s (left plant [0.10, 0.40] maps onto itself),
 * run_back run reversed about 0.075 s ([0.025, 0.125] onto itself); the strafes to the right are the
 * left ones in a mirror, half a cycle on, so the left foot plants where the mirrored right foot did. */
static const clip_plan plans[] = {
    {{"idle", true, false, 0.0, 24, 145, FORWARD}, idle_body, STEPS(idle_steps), 0.0, false, false, NOT_DERIVED},
    {{"walk", true, false, WALK_SPEED, 30, 31, FORWARD}, walk_body, STEPS(walk_steps), 0.055, false, false, NOT_DERIVED},
    {{"run", true, false, RUN_SPEED, 30, 22, FORWARD}, run_body, STEPS(run_steps), 0.10, false, false, NOT_DERIVED},
    {{"walk_root_motion", true, true, WALK_SPEED, 30, 31, FORWARD}, walk_body, STEPS(walk_steps), 0.055, false, false,
     NOT_DERIVED},
    {{"jump", false, false, 0.0, 30, 61, FORWARD}, jump_body, STEPS(jump_steps), 0.22, true, false, NOT_DERIVED},
    {{"wave", false, false, 0.0, 24, 73, FORWARD}, wave_body, NULL, 0, 0.0, false, false, NOT_DERIVED},
    {{"turn_left", false, false, 0.0, 30, 37, FORWARD}, turn_body, STEPS(turn_steps), 0.05, false, false, NOT_DERIVED},
    {{"turn_right", false, false, 0.0, 30, 37, FORWARD}, turn_body, STEPS(turn_steps), 0.05, false, true, NOT_DERIVED},
    {{"celebrate", false, false, 0.0, 30, 73, FORWARD}, celebrate_body, STEPS(celebrate_steps), 0.10, true, false,
     NOT_DERIVED},
    {{"walk_left", true, false, WALK_SPEED, 30, 31, {0.0, 1.0}}, walk_left_body, STEPS(walk_left_steps), 0.08, false,
     false, NOT_DERIVED},
    {{"walk_right", true, false, WALK_SPEED, 30, 31, {0.0, -1.0}}, NULL, NULL, 0, 0.0, false, true,
     {"walk_left", 1.0, 0.5 * WALK_CYCLE}},
    {{"walk_back", true, false, WALK_SPEED, 30, 31, {-1.0, 0.0}}, NULL, NULL, 0, 0.0, false, false,
     {"walk", -1.0, 0.5}},
    {{"run_left", true, false, RUN_SPEED, 30, 22, {0.0, 1.0}}, run_left_body, STEPS(run_left_steps), 0.10, false,
     false, NOT_DERIVED},
    {{"run_right", true, false, RUN_SPEED, 30, 22, {0.0, -1.0}}, NULL, NULL, 0, 0.0, false, true,
     {"run_left", 1.0, 0.5 * RUN_CYCLE}},
    {{"run_back", true, false, RUN_SPEED, 30, 22, {-1.0, 0.0}}, NULL, NULL, 0, 0.0, false, false,
     {"run", -1.0, 0.15}},
    {{"lean_left", false, false, 0.0, 30, 16, FORWARD}, lean_body, NULL, 0, 0.0, false, false, NOT_DERIVED},
    {{"lean_right", false, false, 0.0, 30, 16, FORWARD}, lean_body, NULL, 0, 0.0, false, true, NOT_DERIVED},
    {{"breathe", true, false, 0.0, 24, 97, FORWARD}, breathe_body, NULL, 0, 0.0, false, false, NOT_DERIVED},
    {{"flinch", false, false, 0.0, 30, 25, FORWARD}, flinch_body, NULL, 0, 0.0, false, false, NOT_DERIVED},
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

const clip_plan *clips_find_plan(const char *name)
{
    for (int i = 0; i < PLAN_COUNT; ++i)
        if (strcmp(plans[i].recipe.name, name) == 0)
            return &plans[i];
    return NULL;
}

static void sort_plants(clips_plant *plants, int count)
{
    for (int i = 1; i < count; ++i)
        for (int j = i; j > 0 && plants[j].begin < plants[j - 1].begin; --j) {
            clips_plant swap = plants[j];
            plants[j] = plants[j - 1];
            plants[j - 1] = swap;
        }
}

static int plan_plants(const clip_plan *plan, clips_plant out[CLIPS_MAX_PLANTS]);

/* A derived plan's plants: the source's, mapped through the change of time, wrapped into the cycle (a
 * plant crossing the wrap is split in two, as in any cycle), mirrored sides swapped, and the pieces the
 * source had split at its own wrap joined again. */
static int derived_plants(const clip_plan *plan, clips_plant out[CLIPS_MAX_PLANTS])
{
    clips_plant source[CLIPS_MAX_PLANTS], pieces[2 * CLIPS_MAX_PLANTS];
    int source_count = plan_plants(clips_find_plan(plan->derived.source), source), piece_count = 0;
    double cycle = clips_plan_duration(plan);
    for (int i = 0; i < source_count; ++i) {
        double a = (source[i].begin - plan->derived.time_offset) / plan->derived.time_scale;
        double b = (source[i].end - plan->derived.time_offset) / plan->derived.time_scale;
        double begin = fmin(a, b), end = fmax(a, b), shift = floor(begin / cycle) * cycle;
        begin -= shift;
        end -= shift;
        int side = plan->mirrored ? CLIPS_RIGHT - source[i].side : source[i].side;
        pieces[piece_count++] = (clips_plant){side, begin, fmin(end, cycle)};
        if (end > cycle + 1e-9)
            pieces[piece_count++] = (clips_plant){side, 0.0, end - cycle};
    }
    sort_plants(pieces, piece_count);
    int count = 0;
    for (int i = 0; i < piece_count; ++i) {
        bool joined = false;
        for (int k = 0; k < count && !joined; ++k)
            if (out[k].side == pieces[i].side && fabs(out[k].end - pieces[i].begin) < 1e-9 && out[k].end < cycle - 1e-9) {
                out[k].end = pieces[i].end;
                joined = true;
            }
        if (!joined && pieces[i].end - pieces[i].begin > 1e-9 && count < CLIPS_MAX_PLANTS)
            out[count++] = pieces[i];
    }
    return count;
}

int clips_plants(int index, clips_plant out[CLIPS_MAX_PLANTS])
{
    if (index < 0 || index >= PLAN_COUNT)
        return 0;
    return plan_plants(&plans[index], out);
}

static int plan_plants(const clip_plan *plan, clips_plant out[CLIPS_MAX_PLANTS])
{
    if (plan->derived.source)
        return derived_plants(plan, out);
    if (!plan->steps)
        return 0;
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
    sort_plants(out, count);
    return count;
}

bool clips_write(FILE *out, int index)
{
    if (!out || index < 0 || index >= PLAN_COUNT)
        return false;
    return clips_write_plan(out, &plans[index]);
}
