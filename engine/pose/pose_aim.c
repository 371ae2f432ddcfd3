#include "pose_aim.h"

#include <math.h>
#include <stddef.h>

#include <cglm/cglm.h>

/* Directions shorter than this (after removing their part along up) have no heading. */
#define AIM_TINY 1e-6f

/* A rigid turn of object space: x -> rotation * x + translation. */
typedef struct aim_turn {
    versor rotation;
    vec3 translation;
} aim_turn;

static bool finite_floats(const float *values, int count)
{
    for (int k = 0; k < count; ++k)
        if (!isfinite(values[k]))
            return false;
    return true;
}

static float clamp_magnitude(float value, float limit)
{
    return fminf(fmaxf(value, -limit), limit);
}

/* v turned by the unit quaternion q: v + 2w (r x v) + 2 r x (r x v), r its vector part. Unlike
 * glm_quat_rotatev it does not normalize q first: the pose's rotations are unit already. */
static void rotate(const versor q, const vec3 v, vec3 out)
{
    vec3 r = {q[0], q[1], q[2]}, t, u;
    glm_vec3_cross(r, (float *)v, t);
    glm_vec3_scale(t, 2.0f, t);
    glm_vec3_cross(r, t, u);
    for (int k = 0; k < 3; ++k)
        out[k] = v[k] + q[3] * t[k] + u[k];
}

/* v without its part along up. */
static void horizontal(const vec3 v, const vec3 up, vec3 out)
{
    glm_vec3_scale((float *)up, glm_vec3_dot((float *)v, (float *)up), out);
    glm_vec3_sub((float *)v, out, out);
}

/* The yaw and pitch taking direction `from` (unit) to `to` (any length), as pose_aim_measure. False when
 * `to` is no direction or `from` has no heading (it points along up). */
static bool turn_between(const vec3 from, const vec3 to, const vec3 up, float *yaw, float *pitch)
{
    float length = glm_vec3_norm((float *)to);
    vec3 flat_from, flat_to, cross;
    horizontal(from, up, flat_from);
    if (!(length > AIM_TINY) || !(glm_vec3_norm(flat_from) > AIM_TINY))
        return false;
    horizontal(to, up, flat_to);
    *yaw = 0.0f;
    if (glm_vec3_norm(flat_to) > AIM_TINY * length) {
        glm_vec3_cross(flat_from, flat_to, cross);
        *yaw = atan2f(glm_vec3_dot(cross, (float *)up), glm_vec3_dot(flat_from, flat_to));
    }
    float to_up = glm_vec3_dot((float *)to, (float *)up) / length;
    float from_up = glm_vec3_dot((float *)from, (float *)up);
    *pitch = asinf(fminf(fmaxf(to_up, -1.0f), 1.0f)) - asinf(fminf(fmaxf(from_up, -1.0f), 1.0f));
    return true;
}

/* The head's forward in object space, and where the head is, after `turn`. */
static void head_after(const pose_aim_chain *chain, const joint_pose *object, const aim_turn *turn, vec3 position,
                       vec3 forward)
{
    const joint_pose *head = &object[chain->joints[0]];
    vec3 animated;
    rotate(head->rotation, chain->forward, animated);
    rotate(turn->rotation, animated, forward);
    rotate(turn->rotation, head->position, position);
    glm_vec3_add(position, (float *)turn->translation, position);
}

static bool chain_usable(const pose_aim_chain *chain, int joint_count)
{
    if (chain->joint_count < 1 || chain->joint_count > POSE_AIM_JOINTS_MAX || !finite_floats(chain->forward, 3) ||
        !finite_floats(chain->up, 3))
        return false;
    for (int k = 0; k < chain->joint_count; ++k)
        if (chain->joints[k] < 0 || chain->joints[k] >= joint_count || !(chain->shares[k] >= 0.0f) ||
            !(chain->yaw_limits[k] >= 0.0f) || !(chain->pitch_limits[k] >= 0.0f) || !isfinite(chain->shares[k]) ||
            !isfinite(chain->yaw_limits[k]) || !isfinite(chain->pitch_limits[k]))
            return false;
    return true;
}

static bool descends_from(const int *parents, int joint, int ancestor)
{
    while (joint > ancestor)
        joint = parents[joint];
    return joint == ancestor;
}

static bool chain_valid(const int *parents, int joint_count, const pose_aim_chain *chain)
{
    for (int j = 0; j < joint_count; ++j)
        if (parents[j] >= j || parents[j] < -1)
            return false;
    if (!chain_usable(chain, joint_count))
        return false;
    for (int k = 0; k + 1 < chain->joint_count; ++k)
        if (chain->joints[k + 1] >= chain->joints[k] || !descends_from(parents, chain->joints[k], chain->joints[k + 1]))
            return false;
    return true;
}

/* Joints after the chain's lowest whose levels pose_aim keeps on the stack (every humanoid's). */
enum { AIM_LEVELS_KEPT = 256 };

/* k when joint is chain->joints[k], else -1. */
static int chain_index(const pose_aim_chain *chain, int joint)
{
    for (int k = 0; k < chain->joint_count; ++k)
        if (chain->joints[k] == joint)
            return k;
    return -1;
}

/* The level of a joint found by walking up to the nearest chain joint: for joints past AIM_LEVELS_KEPT. */
static int level_by_walking(const int *parents, const pose_aim_chain *chain, int joint)
{
    int lowest = chain->joints[chain->joint_count - 1];
    for (; joint >= lowest; joint = parents[joint]) {
        int level = chain_index(chain, joint);
        if (level >= 0)
            return level;
    }
    return -1;
}

bool pose_aim_head_forward(const skeleton *s, int head, const float facing[3], float forward[3])
{
    if (!s || !s->bind_object || !facing || !forward || head < 0 || head >= s->joint_count ||
        !finite_floats(facing, 3) || !(glm_vec3_norm((float *)facing) > AIM_TINY))
        return false;
    versor inverse;
    glm_quat_inv(s->bind_object[head].rotation, inverse);
    vec3 unit;
    glm_vec3_normalize_to((float *)facing, unit);
    glm_quat_rotatev(inverse, unit, forward);
    glm_vec3_normalize(forward);
    return true;
}

bool pose_aim_measure(const pose_aim_chain *chain, int joint_count, const joint_pose *object, const float target[3],
                      float *yaw, float *pitch)
{
    if (yaw)
        *yaw = 0.0f;
    if (pitch)
        *pitch = 0.0f;
    if (!chain || !object || !target || !yaw || !pitch || !chain_usable(chain, joint_count) ||
        !finite_floats(target, 3))
        return false;
    aim_turn none = {.rotation = GLM_QUAT_IDENTITY_INIT};
    vec3 position, forward, to_target;
    head_after(chain, object, &none, position, forward);
    glm_vec3_sub((float *)target, position, to_target);
    if (!turn_between(forward, to_target, chain->up, yaw, pitch))
        *yaw = *pitch = 0.0f;
    return true;
}

bool pose_aim(const int *parents, int joint_count, const pose_aim_chain *chain, const float target[3], float weight,
              joint_pose *object)
{
    if (!parents || !chain || !target || !object || joint_count <= 0 || !(weight >= 0.0f && weight <= 1.0f) ||
        !finite_floats(target, 3) || !chain_valid(parents, joint_count, chain))
        return false;
    if (weight == 0.0f)
        return true;

    /* The turn the weight leaves undone: measured once, from the animated pose, so the head stops that much
     * short of the target in yaw and pitch whatever the joints below it did. */
    float yaw, pitch;
    pose_aim_measure(chain, joint_count, object, target, &yaw, &pitch);
    float undone_yaw = (1.0f - weight) * yaw, undone_pitch = (1.0f - weight) * pitch;

    /* turns[k]: what happens to joint k of the chain and everything below it, all the joints under it
     * included (each turn taken about its joint as the turns below have placed it). */
    aim_turn turns[POSE_AIM_JOINTS_MAX];
    aim_turn so_far = {.rotation = GLM_QUAT_IDENTITY_INIT};
    float shares_left = 0.0f;
    for (int k = 0; k < chain->joint_count; ++k)
        shares_left += chain->shares[k];
    int lowest = chain->joint_count - 1;
    for (int k = lowest; k >= 0; --k) {
        vec3 head, forward, to_target, center;
        head_after(chain, object, &so_far, head, forward);
        glm_vec3_sub((float *)target, head, to_target);
        float need_yaw = 0.0f, need_pitch = 0.0f;
        if (turn_between(forward, to_target, chain->up, &need_yaw, &need_pitch)) {
            float part = shares_left > 0.0f ? chain->shares[k] / shares_left : 1.0f;
            need_yaw = clamp_magnitude(part * (need_yaw - undone_yaw), chain->yaw_limits[k]);
            need_pitch = clamp_magnitude(part * (need_pitch - undone_pitch), chain->pitch_limits[k]);
        } else {
            need_yaw = need_pitch = 0.0f;
        }
        shares_left -= chain->shares[k];

        /* Yaw about up, then pitch about the side axis of the head's heading after that yaw: the turn
         * leaves the head level (no roll) as a person turns their head. */
        versor yaw_turn, pitch_turn, turn;
        glm_quatv(yaw_turn, need_yaw, (float *)chain->up);
        vec3 turned, flat, side;
        glm_quat_rotatev(yaw_turn, forward, turned);
        horizontal(turned, chain->up, flat);
        glm_vec3_cross(flat, (float *)chain->up, side);
        if (glm_vec3_norm(side) > AIM_TINY) {
            glm_vec3_normalize(side);
            glm_quatv(pitch_turn, need_pitch, side);
        } else {
            glm_quat_identity(pitch_turn);
        }
        glm_quat_mul(pitch_turn, yaw_turn, turn);

        /* so_far becomes turn (about the joint where so_far put it) after so_far. */
        const joint_pose *joint = &object[chain->joints[k]];
        rotate(so_far.rotation, joint->position, center);
        glm_vec3_add(center, so_far.translation, center);
        vec3 offset;
        glm_vec3_sub(so_far.translation, center, offset);
        vec3 turned_offset;
        rotate(turn, offset, turned_offset);
        glm_vec3_add(turned_offset, center, so_far.translation);
        versor rotation;
        glm_quat_mul(turn, so_far.rotation, rotation);
        glm_quat_normalize_to(rotation, so_far.rotation);
        turns[k] = so_far;
    }

    /* Every joint from the lowest of the chain on takes the turn of the nearest chain joint above it (its
     * own, for a chain joint); joints outside the chain's branch keep their pose. The turns as matrices
     * for the positions, once; unit rotations times unit turns stay unit to float rounding. */
    mat3 matrices[POSE_AIM_JOINTS_MAX];
    for (int k = 0; k <= lowest; ++k)
        glm_quat_mat3(turns[k].rotation, matrices[k]);
    /* Each joint's level (the chain joint whose turn it takes, -1: none) from its parent's, in one pass
     * (parents come first); past the room kept for them, found by walking up. */
    signed char levels[AIM_LEVELS_KEPT];
    for (int j = chain->joints[lowest]; j < joint_count; ++j) {
        int level = chain_index(chain, j);
        if (level < 0) {
            int parent = parents[j], slot = parent - chain->joints[lowest];
            level = slot < 0 ? -1 : slot < AIM_LEVELS_KEPT ? levels[slot] : level_by_walking(parents, chain, parent);
        }
        if (j - chain->joints[lowest] < AIM_LEVELS_KEPT)
            levels[j - chain->joints[lowest]] = (signed char)level;
        if (level < 0)
            continue;
        const aim_turn *turn = &turns[level];
        joint_pose *pose = &object[j];
        vec3 position;
        glm_mat3_mulv(matrices[level], pose->position, position);
        glm_vec3_add(position, (float *)turn->translation, pose->position);
        versor rotation;
        glm_quat_mul((float *)turn->rotation, pose->rotation, rotation);
        glm_vec4_copy(rotation, pose->rotation);
    }
    return true;
}
