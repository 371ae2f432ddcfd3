/* Blending: weighted poses into one, additive deltas made and added, masked overlays (pose.h). */
#include "pose_kernels.h"

#include <string.h>

#ifndef POSE_USE_SSE2

/* Joint i of out = normalized sum over poses of weights[k] * poses[k][i], rotations sign-aligned to
 * poses[reference][i], the first pose with a weight. Weights are scaled by inverse_total so they sum to
 * 1; zero weights are skipped (a pose that does not count is not read). Each joint reads all its inputs
 * before writing, so out may be one of the poses. */
static void blend_joints(const joint_pose *const *poses, const float *weights, int pose_count, int reference,
                         float inverse_total, int joint_count, joint_pose *out)
{
    for (int i = 0; i < joint_count; ++i) {
        const float *reference_rotation = poses[reference][i].rotation;
        float rotation[4] = {0.0f, 0.0f, 0.0f, 0.0f}, position[3] = {0.0f, 0.0f, 0.0f};
        for (int k = reference; k < pose_count; ++k) {
            if (weights[k] == 0.0f)
                continue;
            float weight = weights[k] * inverse_total;
            const joint_pose *joint = &poses[k][i];
            const float *q = joint->rotation;
            float dot = reference_rotation[0] * q[0] + reference_rotation[1] * q[1] +
                        reference_rotation[2] * q[2] + reference_rotation[3] * q[3];
            float rotation_weight = dot < 0.0f ? -weight : weight;
            for (int j = 0; j < 4; ++j)
                rotation[j] += rotation_weight * q[j];
            for (int j = 0; j < 3; ++j)
                position[j] += weight * joint->position[j];
        }
        normalize_quaternion(rotation);
        for (int j = 0; j < 4; ++j)
            out[i].rotation[j] = rotation[j];
        for (int j = 0; j < 3; ++j)
            out[i].position[j] = position[j];
        out[i].unused = 0.0f;
    }
}

/* base * (the delta taken by t: nlerp from identity), positions base + t * delta; t in (0, 1]. All of the
 * joint is read before it is written: out may be base or delta. */
static inline void add_joint(const joint_pose *base, const joint_pose *delta, float t, joint_pose *out)
{
    const float *d = delta->rotation;
    float scaled[4];
    if (t == 1.0f) {
        for (int k = 0; k < 4; ++k)
            scaled[k] = d[k];
    } else {
        /* nlerp from identity towards the nearer of d, -d: identity's dot with d is d's w. */
        float toward = d[3] < 0.0f ? -t : t;
        for (int k = 0; k < 4; ++k)
            scaled[k] = toward * d[k];
        scaled[3] += 1.0f - t;
        normalize_quaternion(scaled);
    }
    float rotation[4];
    multiply_quaternions(base->rotation, scaled, rotation);
    normalize_quaternion(rotation);
    /* The position in three named scalars, not a small array: the compiler kept an array on the stack
     * and read it back as one 8-byte load after 4-byte stores, a store-forwarding stall that was a
     * third of pose_add's time in the crowd (perf annotate). */
    float x = base->position[0] + t * delta->position[0];
    float y = base->position[1] + t * delta->position[1];
    float z = base->position[2] + t * delta->position[2];
    for (int k = 0; k < 4; ++k)
        out->rotation[k] = rotation[k];
    out->position[0] = x;
    out->position[1] = y;
    out->position[2] = z;
    out->unused = 0.0f;
}

#else /* POSE_USE_SSE2 */

/* See the scalar version. */
/* See the scalar version: joints start .. joint_count - 1. */
static POSE_KERNEL void blend_joints_from(const joint_pose *const *poses, const float *weights, int pose_count,
                                          int reference, float inverse_total, int start, int joint_count,
                                          joint_pose *out)
{
    __m128 reference_weight = _mm_set1_ps(weights[reference] * inverse_total);
    for (int i = start; i < joint_count; ++i) {
        const joint_pose *first = &poses[reference][i];
        __m128 reference_rotation = _mm_load_ps(first->rotation);
        __m128 rotation = _mm_mul_ps(reference_weight, reference_rotation);
        __m128 position = _mm_mul_ps(reference_weight, load_position_lane(first));
        for (int k = reference + 1; k < pose_count; ++k) {
            if (weights[k] == 0.0f)
                continue;
            __m128 weight = _mm_set1_ps(weights[k] * inverse_total);
            const joint_pose *joint = &poses[k][i];
            __m128 q = _mm_load_ps(joint->rotation);
            __m128 sign = shortest_arc_sign(reference_rotation, q);
            rotation = _mm_add_ps(rotation, _mm_xor_ps(_mm_mul_ps(weight, q), sign));
            position = _mm_add_ps(position, _mm_mul_ps(weight, load_position_lane(joint)));
        }
        _mm_store_ps(out[i].rotation, normalized_or_identity(rotation));
        store_position_lane(&out[i], position);
    }
}

static POSE_KERNEL void blend_joints(const joint_pose *const *poses, const float *weights, int pose_count,
                                     int reference, float inverse_total, int joint_count, joint_pose *out)
{
    blend_joints_from(poses, weights, pose_count, reference, inverse_total, 0, joint_count, out);
}

#ifdef POSE_PAIRS
/* blend_joints two joints at a time, from joint `first`: each half as blend_joints does one joint,
 * normalized_or_identity's choice made per half (both results computed, the tiny half's replaced by
 * identity). */
PAIR_TARGET static void blend_joints_pairs(const joint_pose *const *poses, const float *weights, int pose_count,
                                           int reference, float inverse_total, int first, int joint_count,
                                           joint_pose *out)
{
    __m256 reference_weight = _mm256_set1_ps(weights[reference] * inverse_total), sign_bit = _mm256_set1_ps(-0.0f);
    __m256 tiny = _mm256_set1_ps(POSE_TINY_LENGTH2);
    __m256 identity = _mm256_set_ps(1.0f, 0.0f, 0.0f, 0.0f, 1.0f, 0.0f, 0.0f, 0.0f);
    int i = first;
    for (; i + 1 < joint_count; i += 2) {
        const joint_pose *first = &poses[reference][i];
        __m256 reference_rotation = load_pair(first[0].rotation, first[1].rotation);
        __m256 rotation = _mm256_mul_ps(reference_weight, reference_rotation);
        __m256 position = _mm256_mul_ps(reference_weight, load_pair(first[0].position, first[1].position));
        for (int k = reference + 1; k < pose_count; ++k) {
            if (weights[k] == 0.0f)
                continue;
            __m256 weight = _mm256_set1_ps(weights[k] * inverse_total);
            const joint_pose *joint = &poses[k][i];
            __m256 q = load_pair(joint[0].rotation, joint[1].rotation);
            __m256 sign = _mm256_and_ps(dot_all_lanes_pairs(reference_rotation, q), sign_bit);
            rotation = _mm256_add_ps(rotation, _mm256_xor_ps(_mm256_mul_ps(weight, q), sign));
            position = _mm256_add_ps(position, _mm256_mul_ps(weight, load_pair(joint[0].position, joint[1].position)));
        }
        __m256 length2 = dot_all_lanes_pairs(rotation, rotation);
        __m256 normalized = _mm256_div_ps(rotation, _mm256_sqrt_ps(length2));
        rotation = _mm256_blendv_ps(identity, normalized, _mm256_cmp_ps(length2, tiny, _CMP_GT_OQ));
        store_pair(rotation, out[i].rotation, out[i + 1].rotation);
        store_pair(position, out[i].position, out[i + 1].position);
    }
    if (i < joint_count)
        blend_joints_from(poses, weights, pose_count, reference, inverse_total, i, joint_count, out);
}

/* blend_joints four joints at a time, one in each 128-bit lane, as blend_joints_pairs does two. */
QUAD_TARGET static void blend_joints_quads(const joint_pose *const *poses, const float *weights, int pose_count,
                                           int reference, float inverse_total, int joint_count, joint_pose *out)
{
    __m512 reference_weight = _mm512_set1_ps(weights[reference] * inverse_total), sign_bit = _mm512_set1_ps(-0.0f);
    __m512 tiny = _mm512_set1_ps(POSE_TINY_LENGTH2);
    __m512 identity = _mm512_set_ps(1.0f, 0.0f, 0.0f, 0.0f, 1.0f, 0.0f, 0.0f, 0.0f, 1.0f, 0.0f, 0.0f, 0.0f, 1.0f,
                                    0.0f, 0.0f, 0.0f);
    int i = 0;
    for (; i + 3 < joint_count; i += 4) {
        __m512 reference_rotation, reference_position;
        load_joints_quad(&poses[reference][i], &reference_rotation, &reference_position);
        __m512 rotation = _mm512_mul_ps(reference_weight, reference_rotation);
        __m512 position = _mm512_mul_ps(reference_weight, reference_position);
        for (int k = reference + 1; k < pose_count; ++k) {
            if (weights[k] == 0.0f)
                continue;
            __m512 weight = _mm512_set1_ps(weights[k] * inverse_total), q, p;
            load_joints_quad(&poses[k][i], &q, &p);
            __m512 sign = _mm512_and_ps(dot_all_lanes_quads(reference_rotation, q), sign_bit);
            rotation = _mm512_add_ps(rotation, _mm512_xor_ps(_mm512_mul_ps(weight, q), sign));
            position = _mm512_add_ps(position, _mm512_mul_ps(weight, p));
        }
        __m512 length2 = dot_all_lanes_quads(rotation, rotation);
        __m512 normalized = _mm512_div_ps(rotation, _mm512_sqrt_ps(length2));
        rotation = _mm512_mask_blend_ps(_mm512_cmp_ps_mask(length2, tiny, _CMP_GT_OQ), identity, normalized);
        store_joints_quad(out + i, rotation, position);
    }
    if (i < joint_count)
        blend_joints_pairs(poses, weights, pose_count, reference, inverse_total, i, joint_count, out);
}

/* add_joint for joints i..i+3, one in each 128-bit lane, each lane's t its own: every lane computes what
 * add_joint computes for its joint, step for step, and the lanes whose t is 1 (the whole delta: no nlerp)
 * or 0 (the base, bit for bit) take those results instead. Returns the first joint it left undone (fewer
 * than four remain). */
QUAD_TARGET static int add_joints_quads(const joint_pose *base, const joint_pose *delta, float weight,
                                        const float *joint_weights, int joint_count, joint_pose *out)
{
    const __m512 identity = _mm512_set_ps(1.0f, 0.0f, 0.0f, 0.0f, 1.0f, 0.0f, 0.0f, 0.0f, 1.0f, 0.0f, 0.0f, 0.0f,
                                          1.0f, 0.0f, 0.0f, 0.0f);
    const __m512 tiny = _mm512_set1_ps(POSE_TINY_LENGTH2), zero = _mm512_setzero_ps();
    const __m512 sign_bit = _mm512_set1_ps(-0.0f);
    const __mmask16 w_lanes = 0x8888, xyz_lanes = 0x7777;
    int i = 0;
    for (; i + 3 < joint_count; i += 4) {
        float t[4];
        for (int k = 0; k < 4; ++k)
            t[k] = joint_weights ? weight * joint_weights[i + k] : weight;
        if (t[0] == 0.0f && t[1] == 0.0f && t[2] == 0.0f && t[3] == 0.0f) {
            if (out != base)
                memcpy(&out[i], &base[i], 4 * sizeof *out); /* outside the mask: the base */
            continue;
        }
        __m512 t16 = _mm512_set_ps(t[3], t[3], t[3], t[3], t[2], t[2], t[2], t[2], t[1], t[1], t[1], t[1], t[0], t[0],
                                   t[0], t[0]);
        __m512 one_minus_t = _mm512_sub_ps(_mm512_set1_ps(1.0f), t16);
        __mmask16 whole = _mm512_cmp_ps_mask(t16, _mm512_set1_ps(1.0f), _CMP_EQ_OQ);
        __mmask16 none = _mm512_cmp_ps_mask(t16, zero, _CMP_EQ_OQ);
        __m512 base_rotation, base_position, d, delta_position;
        load_joints_quad(&base[i], &base_rotation, &base_position);
        load_joints_quad(&delta[i], &d, &delta_position);
        /* toward the nearer of d, -d: the sign of d's w; then identity's share in w alone (+0 elsewhere) */
        __mmask16 w_negative = _mm512_cmp_ps_mask(LANES_QUADS(d, 3, 3, 3, 3), zero, _CMP_LT_OQ);
        __m512 toward = _mm512_mask_xor_ps(t16, w_negative, t16, sign_bit);
        __m512 scaled = _mm512_add_ps(_mm512_mul_ps(toward, d), _mm512_maskz_mov_ps(w_lanes, one_minus_t));
        __m512 length2 = dot_all_lanes_quads(scaled, scaled);
        scaled = _mm512_mask_blend_ps(_mm512_cmp_ps_mask(length2, tiny, _CMP_GT_OQ), identity,
                                      _mm512_div_ps(scaled, _mm512_sqrt_ps(length2)));
        scaled = _mm512_mask_blend_ps(whole, scaled, d);
        __m512 rotation = multiply_rotations_quads(base_rotation, scaled);
        length2 = dot_all_lanes_quads(rotation, rotation);
        rotation = _mm512_mask_blend_ps(_mm512_cmp_ps_mask(length2, tiny, _CMP_GT_OQ), identity,
                                        _mm512_div_ps(rotation, _mm512_sqrt_ps(length2)));
        /* the unused lane: 0 */
        __m512 position = _mm512_maskz_mov_ps(xyz_lanes,
                                              _mm512_add_ps(base_position, _mm512_mul_ps(t16, delta_position)));
        rotation = _mm512_mask_blend_ps(none, rotation, base_rotation);
        position = _mm512_mask_blend_ps(none, position, base_position);
        store_joints_quad(out + i, rotation, position);
    }
    return i;
}
#endif

/* See the scalar version. */
static inline void add_joint(const joint_pose *base, const joint_pose *delta, float t, joint_pose *out)
{
    __m128 scaled = _mm_load_ps(delta->rotation);
    __m128 t4 = _mm_set1_ps(t);
    if (t != 1.0f) {
        /* toward the nearer of d, -d: the sign of d's w, in every lane */
        __m128 w_negative = _mm_cmplt_ps(LANES(scaled, 3, 3, 3, 3), _mm_setzero_ps());
        __m128 toward = _mm_xor_ps(t4, _mm_and_ps(w_negative, _mm_set1_ps(-0.0f)));
        scaled = _mm_add_ps(_mm_mul_ps(toward, scaled), _mm_set_ps(1.0f - t, 0.0f, 0.0f, 0.0f));
        scaled = normalized_or_identity(scaled);
    }
    __m128 rotation = normalized_or_identity(multiply_rotations(_mm_load_ps(base->rotation), scaled));
    /* the unused lane: 0 + t * 0 */
    __m128 position = _mm_add_ps(load_position_lane(base), _mm_mul_ps(t4, load_position_lane(delta)));
    position = _mm_and_ps(position, _mm_castsi128_ps(_mm_set_epi32(0, -1, -1, -1)));
    _mm_store_ps(out->rotation, rotation);
    store_position_lane(out, position);
}

#endif /* POSE_USE_SSE2 */

/* ---- blend ---- */

POSE_STAGE bool pose_blend(const joint_pose *const *poses, const float *weights, int pose_count, int joint_count,
                           joint_pose *out)
{
    if (!poses || !weights || !out || pose_count <= 0 || joint_count <= 0)
        return false;
    float total = 0.0f;
    int reference = -1; /* first pose with a weight: the others are sign-aligned to it */
    for (int k = 0; k < pose_count; ++k) {
        if (!poses[k] || !(weights[k] >= 0.0f) || !isfinite(weights[k]))
            return false;
        if (weights[k] > 0.0f && reference < 0)
            reference = k;
        total += weights[k];
    }
    if (reference < 0 || !(total > 0.0f) || !isfinite(total))
        return false;
#ifdef POSE_PAIRS
    if (joint_count > 3 && pose_has_quads()) {
        blend_joints_quads(poses, weights, pose_count, reference, 1.0f / total, joint_count, out);
        return true;
    }
    if (joint_count > 1 && pose_has_pairs()) {
        blend_joints_pairs(poses, weights, pose_count, reference, 1.0f / total, 0, joint_count, out);
        return true;
    }
#endif
    blend_joints(poses, weights, pose_count, reference, 1.0f / total, joint_count, out);
    return true;
}

/* ---- additive ---- */

bool pose_additive_delta(const joint_pose *reference, const joint_pose *frame, int joint_count, joint_pose *out)
{
    if (!reference || !frame || !out || joint_count <= 0)
        return false;
    for (int i = 0; i < joint_count; ++i) {
        /* The inverse of a unit quaternion is its conjugate. */
        const float *r = reference[i].rotation;
        float inverse[4] = {-r[0], -r[1], -r[2], r[3]};
        float rotation[4], position[3];
        multiply_quaternions(inverse, frame[i].rotation, rotation);
        normalize_quaternion(rotation);
        /* One sign for every delta, w >= 0, so a delta near identity reads as one (sampling nlerps between
         * frames along the shortest arc either way; this only keeps stored deltas easy to read). */
        if (rotation[3] < 0.0f)
            for (int k = 0; k < 4; ++k)
                rotation[k] = -rotation[k];
        for (int k = 0; k < 3; ++k)
            position[k] = frame[i].position[k] - reference[i].position[k];
        for (int k = 0; k < 4; ++k)
            out[i].rotation[k] = rotation[k];
        for (int k = 0; k < 3; ++k)
            out[i].position[k] = position[k];
        out[i].unused = 0.0f;
    }
    return true;
}

POSE_STAGE bool pose_add(const joint_pose *base, const joint_pose *delta, float weight, const float *joint_weights,
                         int joint_count, joint_pose *out)
{
    if (!base || !delta || !out || joint_count <= 0 || !(weight >= 0.0f && weight <= 1.0f))
        return false;
    for (int i = 0; joint_weights && i < joint_count; ++i)
        if (!(joint_weights[i] >= 0.0f && joint_weights[i] <= 1.0f))
            return false; /* also refuses NaN */

    int i = 0;
#ifdef POSE_PAIRS
    if (pose_has_quads())
        i = add_joints_quads(base, delta, weight, joint_weights, joint_count, out);
#endif
    for (; i < joint_count; ++i) {
        float t = joint_weights ? weight * joint_weights[i] : weight;
        if (t == 0.0f) { /* outside the mask or at weight 0: the base, bit for bit */
            out[i] = base[i];
            continue;
        }
        add_joint(&base[i], &delta[i], t, &out[i]);
    }
    return true;
}

/* ---- masked blend ---- */

POSE_STAGE bool pose_blend_masked(const joint_pose *base, const joint_pose *layer, const float *joint_weights,
                                  float weight, int joint_count, joint_pose *out)
{
    if (!base || !layer || !joint_weights || !out || joint_count <= 0 || !(weight >= 0.0f && weight <= 1.0f))
        return false;
    for (int i = 0; i < joint_count; ++i)
        if (!(joint_weights[i] >= 0.0f && joint_weights[i] <= 1.0f))
            return false; /* also refuses NaN */

    /* Overlays usually cover part of the body: most joints take one of the two exact copies, and only the
     * mask's soft edge and a fading channel pay for the interpolation. */
    for (int i = 0; i < joint_count; ++i) {
        float t = weight * joint_weights[i];
        if (t == 0.0f) {
            out[i] = base[i];
            continue;
        }
        if (t == 1.0f) {
            out[i] = layer[i];
            continue;
        }
        sample_joints(&base[i], &layer[i], t, 1, &out[i]);
    }
    return true;
}
