#include "pose_ik.h"

#include <limits.h>
#include <math.h>
#include <stddef.h>

/* The solve runs in double: near straight, the knee's angle turns on differences of lengths (hip to target
 * against thigh plus shin) that float would round away, and with them the millimetres the target asks for.
 * It uses no trigonometry (solve_leg). Quaternions are x y z w, as joint_pose stores them. */

/* Lengths below this (metres, or file units) are no bone, and directions this short no direction. */
#define IK_TINY 1e-9

/* The small helpers below pass quaternions and vectors of doubles by value, as structs of named scalars,
 * never as short arrays. Called out of line, each result went through memory: 32-byte structs are
 * returned through the stack, and the caller read them back with 16-byte loads over two 8-byte stores, a
 * store-forwarding stall (perf annotate put a quarter of pose_ik_two_bone_object's time on one such load
 * in the crowd). Inlined, structs of scalars stay in registers; arrays of three doubles did not (GCC kept
 * them, and the rigid motions holding them, on the stack, and the same stalls came back on the motions:
 * a fifth of the function's time in the crowd). */
#if defined(__GNUC__) || defined(__clang__)
#define IK_HOT static inline __attribute__((always_inline))
#else
#define IK_HOT static inline
#endif

typedef struct ik_quaternion {
    double x, y, z, w;
} ik_quaternion;

typedef struct ik_vector {
    double x, y, z;
} ik_vector;

IK_HOT ik_vector vector_from_floats(const float v[3])
{
    return (ik_vector){v[0], v[1], v[2]};
}

IK_HOT ik_vector vector_add(ik_vector a, ik_vector b)
{
    return (ik_vector){a.x + b.x, a.y + b.y, a.z + b.z};
}

IK_HOT ik_vector vector_subtract(ik_vector a, ik_vector b)
{
    return (ik_vector){a.x - b.x, a.y - b.y, a.z - b.z};
}

IK_HOT ik_vector vector_scale(ik_vector a, double s)
{
    return (ik_vector){a.x * s, a.y * s, a.z * s};
}

/* a / d as a times 1 / d: one division instead of three. A solve in a crowd waits on its chain of divisions
 * and roots more than on its arithmetic (left out of every other frame, as crowd_bench --alternate does with
 * the whole foot stage, the solves were 11.5% of the 10,000 crowd's update, 9.3% with this file's
 * divisions made products: docs/benchmarks.md); a product is within an ulp of the quotient in double, far
 * below the float the result ends in. */
IK_HOT ik_vector vector_divide(ik_vector a, double d)
{
    double inverse = 1.0 / d;
    return (ik_vector){a.x * inverse, a.y * inverse, a.z * inverse};
}

IK_HOT double vector_dot(ik_vector a, ik_vector b)
{
    return a.x * b.x + a.y * b.y + a.z * b.z;
}

IK_HOT ik_vector vector_cross(ik_vector a, ik_vector b)
{
    return (ik_vector){a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}

IK_HOT double vector_length(ik_vector a)
{
    return sqrt(vector_dot(a, a));
}

IK_HOT ik_quaternion quaternion_from_floats(const float q[4])
{
    return (ik_quaternion){q[0], q[1], q[2], q[3]};
}

IK_HOT ik_quaternion quaternion_multiply(ik_quaternion a, ik_quaternion b)
{
    return (ik_quaternion){
        a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
        a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
        a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w,
        a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z,
    };
}

IK_HOT ik_quaternion quaternion_conjugate(ik_quaternion q)
{
    return (ik_quaternion){-q.x, -q.y, -q.z, q.w};
}

IK_HOT ik_quaternion quaternion_normalize(ik_quaternion q)
{
    double length = sqrt(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w);
    if (!(length > IK_TINY))
        return (ik_quaternion){0.0, 0.0, 0.0, 1.0};
    double inverse = 1.0 / length;
    return (ik_quaternion){q.x * inverse, q.y * inverse, q.z * inverse, q.w * inverse};
}

IK_HOT ik_vector quaternion_rotate(ik_quaternion q, ik_vector v)
{
    /* v + 2w (r x v) + 2 r x (r x v), r the vector part */
    ik_vector r = {q.x, q.y, q.z};
    ik_vector t = vector_scale(vector_cross(r, v), 2.0);
    ik_vector u = vector_cross(r, t);
    return (ik_vector){v.x + q.w * t.x + u.x, v.y + q.w * t.y + u.y, v.z + q.w * t.z + u.z};
}

/* The shortest-arc rotation taking direction `from` to direction `to` (neither zero). Opposite directions
 * turn half a turn about an axis perpendicular to `from`. */
IK_HOT ik_quaternion quaternion_between(ik_vector from, ik_vector to)
{
    /* (a x b, 1 + a . b) for the unit directions a and b, scaled by |from| |to|: the same rotation once
     * normalized, with one root before it instead of two roots and their divisions. */
    double lengths = sqrt(vector_dot(from, from) * vector_dot(to, to));
    double dot = vector_dot(from, to);
    if (dot < (-1.0 + 1e-12) * lengths) {
        /* Any perpendicular will do: the one nearest to no rotation about the largest other axis. */
        ik_vector a = vector_divide(from, vector_length(from));
        ik_vector other = {fabs(a.x) < 0.9 ? 1.0 : 0.0, fabs(a.x) < 0.9 ? 0.0 : 1.0, 0.0};
        ik_vector axis = vector_cross(a, other);
        axis = vector_divide(axis, vector_length(axis));
        return (ik_quaternion){axis.x, axis.y, axis.z, 0.0};
    }
    ik_vector axis = vector_cross(from, to);
    return quaternion_normalize((ik_quaternion){axis.x, axis.y, axis.z, lengths + dot});
}

/* t of rotation q, taken from none along the shortest arc (slerp from identity): t = 0 no rotation, t = 1
 * q; continuous in t and in q. */
IK_HOT ik_quaternion quaternion_scale(ik_quaternion q, double t)
{
    if (t == 1.0)
        return q; /* the whole of it: no trigonometry (a held foot lock is at weight 1) */
    if (q.w < 0.0)
        q = (ik_quaternion){-q.x, -q.y, -q.z, -q.w};
    double sine = sqrt(q.x * q.x + q.y * q.y + q.z * q.z);
    if (!(sine > IK_TINY))
        return (ik_quaternion){0.0, 0.0, 0.0, 1.0};
    double half = atan2(sine, q.w) * t;
    double s = sin(half) / sine;
    return (ik_quaternion){q.x * s, q.y * s, q.z * s, cos(half)};
}

/* Slerp from a to b by t, along the shortest arc. */
IK_HOT ik_quaternion quaternion_slerp(ik_quaternion a, ik_quaternion b, double t)
{
    if (t == 1.0)
        return quaternion_normalize(b);
    return quaternion_normalize(quaternion_multiply(a, quaternion_scale(quaternion_multiply(quaternion_conjugate(a), b), t)));
}

IK_HOT void store_rotation(ik_quaternion q, float out[4])
{
    q = quaternion_normalize(q);
    out[0] = (float)q.x;
    out[1] = (float)q.y;
    out[2] = (float)q.z;
    out[3] = (float)q.w;
}

IK_HOT void store_position(ik_vector v, float out[3])
{
    out[0] = (float)v.x;
    out[1] = (float)v.y;
    out[2] = (float)v.z;
}

static bool descends_from(const int *parents, int joint, int ancestor)
{
    while (joint > ancestor)
        joint = parents[joint];
    return joint == ancestor;
}

/* Object pose of joint j from its parent's object pose and its own local pose, as pose_to_object makes it. */
static void object_from_parent(const int *parents, int j, const joint_pose *local, joint_pose *object)
{
    int parent = parents[j];
    if (parent < 0) {
        object[j] = local[j];
        return;
    }
    ik_quaternion p = quaternion_from_floats(object[parent].rotation);
    ik_vector turned = quaternion_rotate(p, vector_from_floats(local[j].position));
    store_position(vector_add(vector_from_floats(object[parent].position), turned), object[j].position);
    object[j].unused = 0.0f;
    store_rotation(quaternion_multiply(p, quaternion_from_floats(local[j].rotation)), object[j].rotation);
}

/* Object poses of `top` and every joint below it, after top's local pose changed. */
static void refresh_below(const int *parents, int joint_count, int top, const joint_pose *local, joint_pose *object)
{
    object_from_parent(parents, top, local, object);
    for (int j = top + 1; j < joint_count; ++j)
        if (descends_from(parents, j, top))
            object_from_parent(parents, j, local, object);
}

/* Turn joint j by `correction` (object space, about the joint itself): its local rotation becomes
 * inverse(parent) * correction * object rotation, with the object rotations as they were. */
static void turn_joint(const int *parents, int j, ik_quaternion correction, joint_pose *local, const joint_pose *object)
{
    ik_quaternion parent = parents[j] >= 0 ? quaternion_from_floats(object[parents[j]].rotation)
                                           : (ik_quaternion){0.0, 0.0, 0.0, 1.0};
    ik_quaternion turned = quaternion_multiply(correction, quaternion_from_floats(object[j].rotation));
    store_rotation(quaternion_multiply(quaternion_conjugate(parent), turned), local[j].rotation);
}

static bool finite_floats(const float *values, int count)
{
    for (int k = 0; k < count; ++k)
        if (!isfinite(values[k]))
            return false;
    return true;
}

/* The first joint the solve reads or moves: the hip, or a detached ankle listed before it. */
static inline int leg_first(const pose_ik_chain *chain)
{
    return chain->ankle < chain->hip ? chain->ankle : chain->hip;
}

/* The stage reads the parents of the leg's first joint and of the joints after it only (the branches it
 * moves come after their tops in parents-first order): those are checked, not the whole skeleton's on every
 * call (the crowd's foot lock solves a leg for many members a step). */
static bool chain_valid(const int *parents, int joint_count, const pose_ik_chain *chain)
{
    int joints[3] = {chain->hip, chain->knee, chain->ankle};
    for (int k = 0; k < 3; ++k)
        if (joints[k] < 0 || joints[k] >= joint_count)
            return false;
    for (int j = leg_first(chain); j < joint_count; ++j)
        if (parents[j] >= j || parents[j] < -1)
            return false;
    if (!(chain->hip < chain->knee && descends_from(parents, chain->knee, chain->hip)))
        return false;
    if (chain->knee < chain->ankle && descends_from(parents, chain->ankle, chain->knee))
        return true;
    return !descends_from(parents, chain->ankle, chain->hip) && !descends_from(parents, chain->hip, chain->ankle);
}

void pose_ik_chain_set_end(const int *parents, int joint_count, const joint_pose *bind_object, pose_ik_chain *chain)
{
    if (!chain)
        return;
    chain->end[0] = chain->end[1] = chain->end[2] = 0.0f;
    if (!bind_object || !pose_ik_ankle_detached(parents, joint_count, chain))
        return;
    ik_quaternion inverse = quaternion_conjugate(quaternion_normalize(quaternion_from_floats(bind_object[chain->knee].rotation)));
    ik_vector offset = vector_subtract(vector_from_floats(bind_object[chain->ankle].position),
                                       vector_from_floats(bind_object[chain->knee].position));
    store_position(quaternion_rotate(inverse, offset), chain->end);
}

bool pose_ik_ankle_detached(const int *parents, int joint_count, const pose_ik_chain *chain)
{
    return parents && chain && chain_valid(parents, joint_count, chain) &&
           !descends_from(parents, chain->ankle, chain->knee);
}

/* The corrections that bend a leg (hip, knee and the shin's end: the ankle) so its ankle reaches goal: the
 * knee's turn about its hinge and then the hip's, both in object space as the pose is (the knee's applied
 * inside the hip's). False when the pose gives no leg to bend (zero-length bones, no hinge): then nothing is
 * to change. */
IK_HOT bool solve_leg(ik_vector hip, ik_vector knee, ik_vector ankle, ik_vector goal, ik_quaternion *hip_out,
                      ik_quaternion *knee_out)
{
    ik_vector to_hip = vector_subtract(hip, knee), to_ankle = vector_subtract(ankle, knee);
    double upper = vector_length(to_hip), lower = vector_length(to_ankle);
    if (!(upper > IK_TINY && lower > IK_TINY && isfinite(upper) && isfinite(lower)))
        return false;

    /* The knee's hinge: the normal of the animated leg's plane, oriented so that turning the shin about it
     * by a positive angle opens the knee. Keeping it keeps the knee on the side the animation bent it. */
    ik_vector hinge = vector_cross(to_hip, to_ankle);
    double hinge_length = vector_length(hinge);
    if (!(hinge_length > 1e-6 * upper * lower)) {
        /* A straight (or folded) leg has no plane: bend it in the plane of the leg and the target, or failing
         * that about any axis across the thigh. */
        ik_vector leg = vector_subtract(ankle, hip), wanted = vector_subtract(goal, hip);
        ik_vector across = vector_cross(leg, wanted);
        if (!(vector_length(across) > 1e-6 * vector_length(leg) * vector_length(wanted))) {
            ik_vector other = {fabs(to_hip.x) < 0.9 * upper ? 1.0 : 0.0, fabs(to_hip.x) < 0.9 * upper ? 0.0 : 1.0, 0.0};
            across = vector_cross(to_hip, other);
        }
        hinge = across;
        hinge_length = vector_length(hinge);
        if (!(hinge_length > IK_TINY))
            return false;
    }
    hinge = vector_divide(hinge, hinge_length);

    /* The knee angle that puts the ankle at the target's distance from the hip, within what the leg
     * reaches: straight at most, folded to POSE_IK_MIN_KNEE_ANGLE at least. */
    ik_vector to_goal = vector_subtract(goal, hip);
    double distance = vector_length(to_goal);
    /* The knee turns by the wanted angle less the animated one, each found by its half with no
     * trigonometry, in forms where no term cancels near straight or near folded:
     * - animated, between the thigh's and the shin's unit directions h and s:
     *   cos(a/2) = |h + s| / 2, sin(a/2) = |h - s| / 2;
     * - wanted, from the three lengths (the law of cosines):
     *   cos^2(b/2) = (u + l - d)(u + l + d) / 4ul, sin^2(b/2) = (d - u + l)(d + u - l) / 4ul,
     *   each clamped at 0 where the target is out of reach (straight) or too near (folded).
     * The turn's half angle is then (b - a) / 2. */
    ik_vector thigh_direction = vector_divide(to_hip, upper), shin_direction = vector_divide(to_ankle, lower);
    /* Each pair is normalized through its squares: c2 = |h + s|^2 and s2 = |h - s|^2 (summing to 4 for
     * unit h and s, to rounding) give cos = sqrt(c2 / (c2 + s2)), sin = sqrt(s2 / (c2 + s2)); for the
     * wanted angle the 4ul cancels the same way (and the sum, 4ul before the clamps, stays above 0 after
     * them: at most one is clamped). One division, then both roots side by side: the solve is a chain
     * of divisions and roots, and each link is a wait. */
    ik_vector sum = vector_add(thigh_direction, shin_direction);
    ik_vector difference = vector_subtract(thigh_direction, shin_direction);
    double animated_cos2 = vector_dot(sum, sum), animated_sin2 = vector_dot(difference, difference);
    double animated_inverse = 1.0 / (animated_cos2 + animated_sin2);
    double animated_cos = sqrt(animated_cos2 * animated_inverse), animated_sin = sqrt(animated_sin2 * animated_inverse);
    double wanted_cos2 = fmax(0.0, (upper + lower - distance) * (upper + lower + distance));
    double wanted_sin2 = fmax(0.0, (distance - upper + lower) * (distance + upper - lower));
    double wanted_inverse = 1.0 / (wanted_cos2 + wanted_sin2);
    double wanted_cos = sqrt(wanted_cos2 * wanted_inverse), wanted_sin = sqrt(wanted_sin2 * wanted_inverse);
    if (!(wanted_sin >= sin(0.5 * (double)POSE_IK_MIN_KNEE_ANGLE))) { /* folded past the least angle */
        wanted_cos = cos(0.5 * (double)POSE_IK_MIN_KNEE_ANGLE);
        wanted_sin = sin(0.5 * (double)POSE_IK_MIN_KNEE_ANGLE);
    }
    double half_cos = wanted_cos * animated_cos + wanted_sin * animated_sin;
    double half_sin = wanted_sin * animated_cos - wanted_cos * animated_sin;
    ik_quaternion knee_turn = {hinge.x * half_sin, hinge.y * half_sin, hinge.z * half_sin, half_cos};

    /* The hip then points the bent leg at the target. */
    ik_vector new_ankle = vector_add(knee, quaternion_rotate(knee_turn, to_ankle));
    ik_vector reach = vector_subtract(new_ankle, hip);
    ik_quaternion hip_turn = {0.0, 0.0, 0.0, 1.0};
    if (distance > IK_TINY && vector_length(reach) > IK_TINY)
        hip_turn = quaternion_between(reach, to_goal);
    *hip_out = hip_turn;
    *knee_out = knee_turn;
    return true;
}

static bool arguments_valid(const int *parents, int joint_count, const pose_ik_chain *chain, const float target[3],
                            const float *ankle_rotation, float weight, const void *pose)
{
    return parents && chain && target && pose && joint_count > 0 && weight >= 0.0f && weight <= 1.0f &&
           finite_floats(target, 3) && (!ankle_rotation || finite_floats(ankle_rotation, 4)) &&
           chain_valid(parents, joint_count, chain);
}

static bool two_bone_detached(const int *parents, int joint_count, const pose_ik_chain *chain, const float target[3],
                              const float *ankle_rotation, float weight, joint_pose *local, joint_pose *object);

bool pose_ik_two_bone(const int *parents, int joint_count, const pose_ik_chain *chain, const float target[3],
                      const float *ankle_rotation, float weight, joint_pose *local, joint_pose *object)
{
    if (!local || !arguments_valid(parents, joint_count, chain, target, ankle_rotation, weight, object))
        return false;
    if (!descends_from(parents, chain->ankle, chain->knee))
        return two_bone_detached(parents, joint_count, chain, target, ankle_rotation, weight, local, object);
    ik_quaternion hip_turn, knee_turn;
    if (weight == 0.0f || !solve_leg(vector_from_floats(object[chain->hip].position),
                                     vector_from_floats(object[chain->knee].position),
                                     vector_from_floats(object[chain->ankle].position), vector_from_floats(target),
                                     &hip_turn, &knee_turn))
        return true;

    /* Both corrections are in object space as the pose was: the knee's is applied inside the hip's, so
     * both local rotations come from the object rotations before either changed. */
    turn_joint(parents, chain->hip, quaternion_scale(hip_turn, weight), local, object);
    turn_joint(parents, chain->knee, quaternion_scale(knee_turn, weight), local, object);
    refresh_below(parents, joint_count, chain->hip, local, object);

    if (ankle_rotation) {
        ik_quaternion now = quaternion_from_floats(object[chain->ankle].rotation);
        ik_quaternion wanted = quaternion_normalize(quaternion_from_floats(ankle_rotation));
        ik_quaternion turned = quaternion_slerp(now, wanted, weight);
        int parent = parents[chain->ankle];
        store_rotation(quaternion_multiply(quaternion_conjugate(quaternion_from_floats(object[parent].rotation)), turned),
                       local[chain->ankle].rotation);
        refresh_below(parents, joint_count, chain->ankle, local, object);
    }
    return true;
}

/* A rigid motion of object space: a point p goes to turn p + shift, a rotation r to turn r. */
typedef struct ik_motion {
    ik_quaternion turn;
    ik_vector shift;
} ik_motion;

/* The motion that turns by `turn` about the point `pivot`. */
IK_HOT ik_motion motion_about(ik_quaternion turn, ik_vector pivot)
{
    return (ik_motion){.turn = turn, .shift = vector_subtract(pivot, quaternion_rotate(turn, pivot))};
}

/* first, then second. */
IK_HOT ik_motion motion_then(ik_motion first, ik_motion second)
{
    return (ik_motion){.turn = quaternion_multiply(second.turn, first.turn),
                       .shift = vector_add(quaternion_rotate(second.turn, first.shift), second.shift)};
}

/* Move one joint's object pose. The rotation is a product of unit quaternions, kept without normalizing:
 * poses are made again from the clips every frame, so the rounding never piles up. */
IK_HOT void move_joint(joint_pose *pose, ik_motion motion)
{
    ik_vector moved = vector_add(quaternion_rotate(motion.turn, vector_from_floats(pose->position)), motion.shift);
    ik_quaternion rotation = quaternion_multiply(motion.turn, quaternion_from_floats(pose->rotation));
    store_position(moved, pose->position);
    pose->rotation[0] = (float)rotation.x;
    pose->rotation[1] = (float)rotation.y;
    pose->rotation[2] = (float)rotation.z;
    pose->rotation[3] = (float)rotation.w;
}

/* The parts of a leg the solve moves, each as one rigid motion. */
enum { LEG_OUTSIDE = 0, LEG_THIGH = 1, LEG_SHIN = 2, LEG_FOOT = 3 };

typedef struct leg_motions {
    ik_motion part[4]; /* indexed by LEG_THIGH .. LEG_FOOT */
} leg_motions;

/* The solve for a checked chain, as rigid motions of its parts: false when nothing is to change (weight 0,
 * or no leg to bend). What pose_ik_two_bone does through local rotations, done to the object poses: the
 * thigh's branch turns about the hip; the shin's about the knee, then with the thigh; the foot's then
 * about the ankle where it has gone. A detached ankle (see pose_ik_chain) instead goes to its goal, the
 * animated ankle moved toward the target by weight, turned toward ankle_rotation by weight, and the leg is
 * bent all the way for the shin's end to meet it. */
static bool solve_motions(const pose_ik_chain *chain, bool detached, const float target[3],
                          const float *ankle_rotation, float weight, const joint_pose *object, leg_motions *motions)
{
    ik_quaternion hip_turn, knee_turn;
    ik_vector hip = vector_from_floats(object[chain->hip].position);
    ik_vector knee = vector_from_floats(object[chain->knee].position);
    ik_vector ankle = vector_from_floats(object[chain->ankle].position);
    if (detached) {
        ik_vector goal = vector_add(ankle, vector_scale(vector_subtract(vector_from_floats(target), ankle), weight));
        ik_vector end = ankle;
        if (chain->end[0] != 0.0f || chain->end[1] != 0.0f || chain->end[2] != 0.0f)
            end = vector_add(knee, quaternion_rotate(quaternion_from_floats(object[chain->knee].rotation),
                                                     vector_from_floats(chain->end)));
        ik_quaternion none = {0.0, 0.0, 0.0, 1.0};
        if (!solve_leg(hip, knee, end, goal, &hip_turn, &knee_turn))
            hip_turn = knee_turn = none;
        ik_quaternion foot_turn = none;
        if (ankle_rotation) {
            ik_quaternion now = quaternion_from_floats(object[chain->ankle].rotation);
            ik_quaternion wanted = quaternion_normalize(quaternion_from_floats(ankle_rotation));
            foot_turn = quaternion_multiply(quaternion_slerp(now, wanted, weight), quaternion_conjugate(now));
        }
        motions->part[LEG_THIGH] = motion_about(hip_turn, hip);
        motions->part[LEG_SHIN] = motion_then(motion_about(knee_turn, knee), motions->part[LEG_THIGH]);
        ik_motion foot = motion_about(foot_turn, ankle);
        foot.shift = vector_add(foot.shift, vector_subtract(goal, ankle));
        motions->part[LEG_FOOT] = foot;
        return true;
    }
    if (weight == 0.0f || !solve_leg(hip, knee, ankle, vector_from_floats(target), &hip_turn, &knee_turn))
        return false;
    hip_turn = quaternion_scale(hip_turn, weight);
    knee_turn = quaternion_scale(knee_turn, weight);
    ik_quaternion ankle_turn = {0.0, 0.0, 0.0, 1.0};
    if (ankle_rotation) {
        /* The ankle's rotation after the leg's turns, and the turn that takes it to the wanted one. */
        ik_quaternion now = quaternion_multiply(quaternion_multiply(hip_turn, knee_turn),
                                                quaternion_from_floats(object[chain->ankle].rotation));
        ik_quaternion wanted = quaternion_normalize(quaternion_from_floats(ankle_rotation));
        ankle_turn = quaternion_multiply(quaternion_slerp(now, wanted, weight), quaternion_conjugate(now));
    }
    ik_motion thigh = motion_about(hip_turn, hip);
    ik_motion shin = motion_then(motion_about(knee_turn, knee), thigh);
    ik_motion foot = shin;
    if (ankle_rotation) {
        ik_vector moved = vector_add(quaternion_rotate(shin.turn, ankle), shin.shift);
        foot = motion_then(shin, motion_about(ankle_turn, moved));
    }
    motions->part[LEG_THIGH] = thigh;
    motions->part[LEG_SHIN] = shin;
    motions->part[LEG_FOOT] = foot;
    return true;
}

/* Which part of the leg each joint the solve moves belongs to, in one pass over the joints from the leg's
 * first (parents come first, so each joint's part follows from its parent's): the hip's branch, and the
 * ankle's where it hangs elsewhere (a foot that follows an IK target). visit(joint, part, context) for each,
 * in order. Joints more than 255 past the first are placed by walking up. False when visit does (it stops
 * there). */
typedef bool leg_visit(int joint, int part, void *context);

IK_HOT bool walk_leg(const int *parents, int joint_count, const pose_ik_chain *chain, leg_visit *visit, void *context)
{
    enum { MARKED = 256 };
    unsigned char part[MARKED];
    int first = leg_first(chain);
    for (int j = first; j < joint_count; ++j) {
        int kind;
        if (j - first < MARKED) {
            int parent = parents[j];
            int above = parent >= first ? part[parent - first] : LEG_OUTSIDE;
            kind = j == chain->ankle ? LEG_FOOT
                   : j == chain->hip ? LEG_THIGH
                   : above == LEG_OUTSIDE ? LEG_OUTSIDE
                   : j == chain->knee ? LEG_SHIN
                                      : above;
            part[j - first] = (unsigned char)kind;
        } else {
            kind = descends_from(parents, j, chain->ankle) ? LEG_FOOT
                   : descends_from(parents, j, chain->knee) ? LEG_SHIN
                   : descends_from(parents, j, chain->hip)  ? LEG_THIGH
                                                            : LEG_OUTSIDE;
        }
        if (kind != LEG_OUTSIDE && !visit(j, kind, context))
            return false;
    }
    return true;
}

/* pose_ik_two_bone for a leg whose ankle hangs elsewhere (checked): hip and knee turn through their local
 * rotations as for any leg; the ankle's object pose moves as the shin's end does (and turns to
 * ankle_rotation), its local pose is made from its parent's (outside the leg, unchanged), and its branch
 * follows. */
static bool two_bone_detached(const int *parents, int joint_count, const pose_ik_chain *chain, const float target[3],
                              const float *ankle_rotation, float weight, joint_pose *local, joint_pose *object)
{
    leg_motions motions;
    solve_motions(chain, true, target, ankle_rotation, weight, object, &motions);
    ik_quaternion hip_turn = motions.part[LEG_THIGH].turn;
    ik_quaternion knee_turn = quaternion_multiply(quaternion_conjugate(hip_turn), motions.part[LEG_SHIN].turn);
    joint_pose ankle = object[chain->ankle];
    move_joint(&ankle, motions.part[LEG_FOOT]);
    turn_joint(parents, chain->hip, hip_turn, local, object);
    turn_joint(parents, chain->knee, knee_turn, local, object);
    refresh_below(parents, joint_count, chain->hip, local, object);
    int parent = parents[chain->ankle];
    ik_quaternion parent_rotation = parent >= 0 ? quaternion_from_floats(object[parent].rotation)
                                                : (ik_quaternion){0.0, 0.0, 0.0, 1.0};
    ik_vector offset = vector_from_floats(ankle.position);
    if (parent >= 0)
        offset = vector_subtract(offset, vector_from_floats(object[parent].position));
    ik_quaternion inverse = quaternion_conjugate(parent_rotation);
    store_position(quaternion_rotate(inverse, offset), local[chain->ankle].position);
    store_rotation(quaternion_multiply(inverse, quaternion_from_floats(ankle.rotation)), local[chain->ankle].rotation);
    refresh_below(parents, joint_count, chain->ankle, local, object);
    return true;
}

typedef struct move_context {
    const leg_motions *motions;
    joint_pose *object;
} move_context;

static bool move_visit(int joint, int part, void *context)
{
    move_context *move = context;
    move_joint(&move->object[joint], move->motions->part[part]);
    return true;
}

bool pose_ik_two_bone_object(const int *parents, int joint_count, const pose_ik_chain *chain, const float target[3],
                             const float *ankle_rotation, float weight, joint_pose *object)
{
    if (!arguments_valid(parents, joint_count, chain, target, ankle_rotation, weight, object))
        return false;
    leg_motions motions;
    if (!solve_motions(chain, !descends_from(parents, chain->ankle, chain->knee), target, ankle_rotation, weight, object,
                       &motions))
        return true;
    walk_leg(parents, joint_count, chain, move_visit, &(move_context){&motions, object});
    return true;
}

static bool list_visit(int joint, int part, void *context)
{
    pose_ik_leg *leg = context;
    if (leg->moved_count >= POSE_IK_LEG_JOINTS)
        return false;
    leg->moved[leg->moved_count] = (short)joint;
    leg->part[leg->moved_count++] = (unsigned char)part;
    return true;
}

bool pose_ik_leg_prepare(const int *parents, int joint_count, const pose_ik_chain *chain, pose_ik_leg *leg)
{
    if (!parents || !chain || !leg || joint_count <= 0 || joint_count > SHRT_MAX + 1 ||
        !chain_valid(parents, joint_count, chain))
        return false;
    pose_ik_leg ready = {.chain = *chain, .joint_count = joint_count,
                         .detached = !descends_from(parents, chain->ankle, chain->knee)};
    if (!walk_leg(parents, joint_count, chain, list_visit, &ready))
        return false;
    *leg = ready;
    return true;
}

bool pose_ik_two_bone_leg(const pose_ik_leg *leg, const float target[3], const float *ankle_rotation, float weight,
                          joint_pose *object)
{
    if (!leg || !target || !object || leg->moved_count < 3 || !(weight >= 0.0f && weight <= 1.0f) ||
        !finite_floats(target, 3) || (ankle_rotation && !finite_floats(ankle_rotation, 4)))
        return false;
    leg_motions motions;
    if (!solve_motions(&leg->chain, leg->detached, target, ankle_rotation, weight, object, &motions))
        return true;
    for (int i = 0; i < leg->moved_count; ++i)
        move_joint(&object[leg->moved[i]], motions.part[leg->part[i]]);
    return true;
}
