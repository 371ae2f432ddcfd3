/* Local to object space: each joint placed by its parent, down the hierarchy (pose.h). */
#include "pose_kernels.h"

#ifndef POSE_USE_SSE2

/* First pass of pose_to_object: object rotation = parent's object rotation * local rotation (Hamilton
 * product, x y z w order), not yet renormalized; roots copied whole. Writes only rotations of non-roots,
 * so local[i].position survives when object == local. */
static void chain_rotations(const int *parents, int joint_count, const joint_pose *local, joint_pose *object)
{
    for (int i = 0; i < joint_count; ++i) {
        if (parents[i] < 0) {
            object[i] = local[i];
            continue;
        }
        const float *p = object[parents[i]].rotation, *l = local[i].rotation;
        float x = p[3] * l[0] + p[0] * l[3] + p[1] * l[2] - p[2] * l[1];
        float y = p[3] * l[1] - p[0] * l[2] + p[1] * l[3] + p[2] * l[0];
        float z = p[3] * l[2] + p[0] * l[1] - p[1] * l[0] + p[2] * l[3];
        float w = p[3] * l[3] - p[0] * l[0] - p[1] * l[1] - p[2] * l[2];
        object[i].rotation[0] = x;
        object[i].rotation[1] = y;
        object[i].rotation[2] = z;
        object[i].rotation[3] = w;
    }
}

/* Second pass: renormalize o's rotation and place it: position = parent position + rotate(parent
 * rotation, local position). p is final; o may be l.
 * The product of unit rotations is unit but for rounding (about 1e-7 per level); one Newton step towards
 * 1/sqrt(length2), 1.5 - 0.5 * length2, leaves an error of about (length2 - 1)^2, below float precision,
 * without a sqrt and a divide.
 * The rotation uses v + w*t + u x t with t = 2 (u x v): two cross products instead of q v q*. */
static inline void place_joint(const joint_pose *p, const joint_pose *l, joint_pose *o)
{
    float x = o->rotation[0], y = o->rotation[1], z = o->rotation[2], w = o->rotation[3];
    float inverse_length = 1.5f - 0.5f * (x * x + y * y + z * z + w * w);

    float px = p->rotation[0], py = p->rotation[1], pz = p->rotation[2], pw = p->rotation[3];
    float vx = l->position[0], vy = l->position[1], vz = l->position[2];
    float tx = 2.0f * (py * vz - pz * vy);
    float ty = 2.0f * (pz * vx - px * vz);
    float tz = 2.0f * (px * vy - py * vx);
    float ox = p->position[0] + vx + pw * tx + (py * tz - pz * ty);
    float oy = p->position[1] + vy + pw * ty + (pz * tx - px * tz);
    float oz = p->position[2] + vz + pw * tz + (px * ty - py * tx);

    o->rotation[0] = x * inverse_length;
    o->rotation[1] = y * inverse_length;
    o->rotation[2] = z * inverse_length;
    o->rotation[3] = w * inverse_length;
    o->position[0] = ox;
    o->position[1] = oy;
    o->position[2] = oz;
    o->unused = 0.0f;
}

#else /* POSE_USE_SSE2 */

/* See the scalar version. Most joints come right after their parent (spine, limbs, fingers): the previous
 * joint's rotation is kept in a register for them, so the chain from parent to child does not go through
 * a store and a load. */
static void chain_rotations(const int *parents, int joint_count, const joint_pose *local, joint_pose *object)
{
    __m128 previous = _mm_setzero_ps();
    for (int i = 0; i < joint_count; ++i) {
        int parent = parents[i];
        __m128 rotation = _mm_load_ps(local[i].rotation);
        if (parent < 0) {
            store_position_lane(&object[i], load_position_lane(&local[i]));
        } else {
            __m128 parent_rotation = parent == i - 1 ? previous : _mm_load_ps(object[parent].rotation);
            rotation = multiply_rotations(parent_rotation, rotation);
        }
        _mm_store_ps(object[i].rotation, rotation);
        previous = rotation;
    }
}

/* renormalized and placed_position are written once for each register width (with that width's
 * arithmetic, in-lane permute, dot product and cross product), so the widths do the same steps. */
#define RENORMALIZED(MUL, SUB, SET1, DOT_ALL, rotation) \
    MUL((rotation), SUB(SET1(1.5f), MUL(SET1(0.5f), DOT_ALL((rotation), (rotation)))))

#define PLACED_POSITION_BODY(V, ADD, MUL, LANES_OF, CROSS_OF)                                    \
    V t = CROSS_OF(parent_rotation, local_position);                                           \
    t = ADD(t, t);                                                                             \
    V rotated = ADD(local_position, MUL(LANES_OF(parent_rotation, 3, 3, 3, 3), t));            \
    rotated = ADD(rotated, CROSS_OF(parent_rotation, t));                                      \
    return ADD(parent_position, rotated)

/* A product of unit rotations back to unit length: one Newton step (see the scalar place_joint). */
static inline __m128 renormalized(__m128 rotation)
{
    return RENORMALIZED(_mm_mul_ps, _mm_sub_ps, _mm_set1_ps, dot_all_lanes, rotation);
}

/* A child's object position: parent position + rotate(parent rotation, local position). The local position
 * lane has w = 0 (unused), so every term keeps lane w at 0 and the parent's unused 0 passes through. */
static inline __m128 placed_position(__m128 parent_rotation, __m128 parent_position, __m128 local_position)
{
    PLACED_POSITION_BODY(__m128, _mm_add_ps, _mm_mul_ps, LANES, cross);
}

/* See the scalar version. */
static inline void place_joint(const joint_pose *p, const joint_pose *l, joint_pose *o)
{
    __m128 rotation = renormalized(_mm_load_ps(o->rotation));
    __m128 position = placed_position(_mm_load_ps(p->rotation), load_position_lane(p), load_position_lane(l));
    _mm_store_ps(o->rotation, rotation);
    store_position_lane(o, position);
}

/* Both passes in one walk down the list, for skeletons of up to POSE_ONE_PASS_JOINTS joints: each joint's
 * unnormalized product goes to raw[] (its children chain from it, exactly as from pass one's), its final
 * rotation and position to object. The previous joint's three values stay in registers for the children
 * that come right after their parent. The arithmetic and its order are the two passes', so the result is
 * the same bits; each joint is loaded and stored once instead of twice. */
static POSE_KERNEL void to_object_one_pass(const int *parents, int joint_count, const joint_pose *local,
                                           joint_pose *object, __m128 *raw)
{
    __m128 previous_raw = _mm_setzero_ps(), previous_rotation = previous_raw, previous_position = previous_raw;
    for (int i = 0; i < joint_count; ++i) {
        int parent = parents[i];
        __m128 rotation = _mm_load_ps(local[i].rotation);
        __m128 position = load_position_lane(&local[i]);
        __m128 product = rotation;
        if (parent >= 0) {
            __m128 parent_raw = previous_raw, parent_rotation = previous_rotation, parent_position = previous_position;
            if (parent != i - 1) {
                parent_raw = raw[parent];
                parent_rotation = _mm_load_ps(object[parent].rotation);
                parent_position = load_position_lane(&object[parent]);
            }
            product = multiply_rotations(parent_raw, rotation);
            rotation = renormalized(product);
            position = placed_position(parent_rotation, parent_position, position);
        }
        raw[i] = product;
        _mm_store_ps(object[i].rotation, rotation);
        store_position_lane(&object[i], position);
        previous_raw = product;
        previous_rotation = rotation;
        previous_position = position;
    }
}

#ifdef POSE_PAIRS
PAIR_TARGET static inline __m256 renormalized_pairs(__m256 rotation)
{
    return RENORMALIZED(_mm256_mul_ps, _mm256_sub_ps, _mm256_set1_ps, dot_all_lanes_pairs, rotation);
}

PAIR_TARGET static inline __m256 placed_position_pairs(__m256 parent_rotation, __m256 parent_position,
                                                       __m256 local_position)
{
    PLACED_POSITION_BODY(__m256, _mm256_add_ps, _mm256_mul_ps, LANES_PAIRS, cross_pairs);
}

/* Whether parents[i] is in [-1, i) for every joint, eight joints a compare: the same answer as the loop
 * pose_to_object checks with, for a fraction of its instructions (the crowd checks once per pair). */
PAIR_TARGET static bool parents_ordered_pairs(const int *parents, int joint_count)
{
    __m256i below = _mm256_setr_epi32(-1, 0, 1, 2, 3, 4, 5, 6); /* i - 1 for the eight joints */
    __m256i minus_one = _mm256_set1_epi32(-1), bad = _mm256_setzero_si256();
    int i = 0;
    for (; i + 8 <= joint_count; i += 8) {
        __m256i p = _mm256_loadu_si256((const __m256i *)(parents + i));
        bad = _mm256_or_si256(bad, _mm256_or_si256(_mm256_cmpgt_epi32(p, below), _mm256_cmpgt_epi32(minus_one, p)));
        below = _mm256_add_epi32(below, _mm256_set1_epi32(8));
    }
    if (!_mm256_testz_si256(bad, bad))
        return false;
    for (; i < joint_count; ++i)
        if (parents[i] < -1 || parents[i] >= i)
            return false;
    return true;
}

/* to_object_one_pass for two poses at once, a in the low halves, b in the high. */
PAIR_TARGET static void to_object_one_pass_pairs(const int *parents, int joint_count, const joint_pose *local_a,
                                                 const joint_pose *local_b, joint_pose *object_a,
                                                 joint_pose *object_b)
{
    __m256 raw[POSE_ONE_PASS_JOINTS];
    __m256 previous_raw = _mm256_setzero_ps(), previous_rotation = previous_raw, previous_position = previous_raw;
    for (int i = 0; i < joint_count; ++i) {
        int parent = parents[i];
        __m256 rotation = load_pair(local_a[i].rotation, local_b[i].rotation);
        __m256 position = load_pair(local_a[i].position, local_b[i].position);
        __m256 product = rotation;
        if (parent >= 0) {
            __m256 parent_raw = previous_raw, parent_rotation = previous_rotation, parent_position = previous_position;
            if (parent != i - 1) {
                parent_raw = raw[parent];
                parent_rotation = load_pair(object_a[parent].rotation, object_b[parent].rotation);
                parent_position = load_pair(object_a[parent].position, object_b[parent].position);
            }
            product = multiply_rotations_pairs(parent_raw, rotation);
            rotation = renormalized_pairs(product);
            position = placed_position_pairs(parent_rotation, parent_position, position);
        }
        raw[i] = product;
        store_pair(rotation, object_a[i].rotation, object_b[i].rotation);
        store_pair(position, object_a[i].position, object_b[i].position);
        previous_raw = product;
        previous_rotation = rotation;
        previous_position = position;
    }
}

QUAD_TARGET static inline __m512 renormalized_quads(__m512 rotation)
{
    return RENORMALIZED(_mm512_mul_ps, _mm512_sub_ps, _mm512_set1_ps, dot_all_lanes_quads, rotation);
}

QUAD_TARGET static inline __m512 placed_position_quads(__m512 parent_rotation, __m512 parent_position,
                                                       __m512 local_position)
{
    PLACED_POSITION_BODY(__m512, _mm512_add_ps, _mm512_mul_ps, LANES_QUADS, cross_quads);
}

/* to_object_one_pass for four poses at once, pose k in 128-bit lane k. */
QUAD_TARGET static void to_object_one_pass_quads(const int *parents, int joint_count, const joint_pose *const local[4],
                                                 joint_pose *const object[4])
{
    __m512 raw[POSE_ONE_PASS_JOINTS];
    __m512 previous_raw = _mm512_setzero_ps(), previous_rotation = previous_raw, previous_position = previous_raw;
    for (int i = 0; i < joint_count; ++i) {
        int parent = parents[i];
        __m512 rotation = load_quad(local[0][i].rotation, local[1][i].rotation, local[2][i].rotation,
                                    local[3][i].rotation);
        __m512 position = load_quad(local[0][i].position, local[1][i].position, local[2][i].position,
                                    local[3][i].position);
        __m512 product = rotation;
        if (parent >= 0) {
            __m512 parent_raw = previous_raw, parent_rotation = previous_rotation, parent_position = previous_position;
            if (parent != i - 1) {
                parent_raw = raw[parent];
                parent_rotation = load_quad(object[0][parent].rotation, object[1][parent].rotation,
                                            object[2][parent].rotation, object[3][parent].rotation);
                parent_position = load_quad(object[0][parent].position, object[1][parent].position,
                                            object[2][parent].position, object[3][parent].position);
            }
            product = multiply_rotations_quads(parent_raw, rotation);
            rotation = renormalized_quads(product);
            position = placed_position_quads(parent_rotation, parent_position, position);
        }
        raw[i] = product;
        store_quad(rotation, object[0][i].rotation, object[1][i].rotation, object[2][i].rotation,
                   object[3][i].rotation);
        store_quad(position, object[0][i].position, object[1][i].position, object[2][i].position,
                   object[3][i].position);
        previous_raw = product;
        previous_rotation = rotation;
        previous_position = position;
    }
}
#endif

#endif /* POSE_USE_SSE2 */

/* ---- local to object ---- */

POSE_STAGE bool pose_to_object(const int *parents, int joint_count, const joint_pose *local, joint_pose *object)
{
    if (!parents || !local || !object || joint_count <= 0)
        return false;
    /* Parents before children is what lets each pass below walk the list once, front to back; check it
     * all before writing anything. */
    for (int i = 0; i < joint_count; ++i)
        if (parents[i] < -1 || parents[i] >= i)
            return false;

    /* Two passes, so that what each child waits for is short. The first chains rotations down the tree
     * with nothing but a quaternion product per joint; the second, whose joints no longer wait on each
     * other, renormalizes them and places each joint with its parent's final rotation. The SSE2 build
     * does both in one walk for skeletons of up to POSE_ONE_PASS_JOINTS joints (to_object_one_pass: the
     * same arithmetic, the same bits, each joint loaded and stored once; 10% fewer instructions).
     * object[i] reads only object[parent] (done) and local[i] (not yet overwritten, and pass one writes
     * only rotations, so local[i].position survives it), so local == object works in place. */
#ifdef POSE_USE_SSE2
    if (joint_count <= POSE_ONE_PASS_JOINTS) {
        __m128 raw[POSE_ONE_PASS_JOINTS];
        to_object_one_pass(parents, joint_count, local, object, raw);
        return true;
    }
#endif
    chain_rotations(parents, joint_count, local, object);
    for (int i = 0; i < joint_count; ++i)
        if (parents[i] >= 0)
            place_joint(&object[parents[i]], &local[i], &object[i]);
    return true;
}

bool pose_to_object_pair(const int *parents, int joint_count, const joint_pose *local_a, const joint_pose *local_b,
                         joint_pose *object_a, joint_pose *object_b)
{
    if (!parents || !local_a || !local_b || !object_a || !object_b || joint_count <= 0)
        return false;
#ifdef POSE_PAIRS
    if (joint_count <= POSE_ONE_PASS_JOINTS && pose_has_pairs()) {
        if (!parents_ordered_pairs(parents, joint_count))
            return false;
        to_object_one_pass_pairs(parents, joint_count, local_a, local_b, object_a, object_b);
        return true;
    }
#endif
    for (int i = 0; i < joint_count; ++i)
        if (parents[i] < -1 || parents[i] >= i)
            return false;
    return pose_to_object(parents, joint_count, local_a, object_a) &&
           pose_to_object(parents, joint_count, local_b, object_b);
}

bool pose_to_object_quad(const int *parents, int joint_count, const joint_pose *const local[4],
                         joint_pose *const object[4])
{
    if (!parents || !local || !object || joint_count <= 0)
        return false;
    for (int k = 0; k < 4; ++k)
        if (!local[k] || !object[k])
            return false;
#ifdef POSE_PAIRS
    if (joint_count <= POSE_ONE_PASS_JOINTS && pose_has_quads()) {
        if (!parents_ordered_pairs(parents, joint_count))
            return false;
        to_object_one_pass_quads(parents, joint_count, local, object);
        return true;
    }
#endif
    for (int i = 0; i < joint_count; ++i)
        if (parents[i] < -1 || parents[i] >= i)
            return false;
    return pose_to_object_pair(parents, joint_count, local[0], local[1], object[0], object[1]) &&
           pose_to_object_pair(parents, joint_count, local[2], local[3], object[2], object[3]);
}
