#include "pose.h"
#include "pose_dq.h"
#include "pose_internal.h"

#include <float.h>
#include <math.h>
#include <stddef.h>
#include <string.h>

/* How this file is laid out, and why.
 * The stages run for every joint of every character every frame (a crowd of a thousand is 33,000 joints
 * per stage), so they are written for speed as well as clarity:
 * - Everything that can be checked or decided once per call (counts, parents, weights, which two frames
 *   to read) is, before the joint loop.
 * - The per-joint arithmetic lives in the "joint kernels" below, in two versions: plain scalar code, the
 *   reference that says what is computed, and where SSE2 is available (every x86_64) the same arithmetic
 *   on whole 16-byte lanes: a rotation, or a position with its zero padding. The SSE2 kernels make the
 *   whole frame about twice as fast (md5tool bench pose). Define POSE_SCALAR_ONLY to build the reference.
 * - pose_to_object keeps the work each child waits for on its parent short (see there).
 * cglm's types are used throughout (vec4, mat4, versor) but not its functions in the loops: its scalar
 *   and SIMD paths mixed on one value mean building a vector from scalar stores, and the CPU stalls until
 *   those stores land, which cost more than the arithmetic. The SSE2 kernels follow glm_quat_mul_sse2 and
 *   glm_mul_sse2. */

_Static_assert(offsetof(joint_pose, position) == 16, "position and unused form the second 16-byte lane");

#if defined(__SSE2__) && !defined(POSE_SCALAR_ONLY)
#define POSE_USE_SSE2 1
#include <emmintrin.h>
#endif

/* The stages a crowd runs for every member and step are also built for x86-64-v3 (AVX2: the same SSE2
 * arithmetic in three-operand VEX form, without the register copies two-operand SSE needs), and the
 * processor picks the build it can run when the program starts (GCC's target_clones, through glibc's
 * ifunc). No fused multiply-add is formed (ISO C builds do not contract), so both builds give the same
 * bits. Define POSE_NO_CLONES to build the SSE2 version alone. */
#if defined(POSE_USE_SSE2) && defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__GLIBC__) && \
    defined(__linux__) && !defined(POSE_NO_CLONES)
#define POSE_STAGE __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define POSE_STAGE
#endif

/* Where the processor has AVX2, sampling also takes two joints at a time in 256-bit registers
 * (sample_joints_pairs): the same SSE2 arithmetic in each 128-bit half, so the same bits. It needs AVX2's
 * instructions in code the default build also reaches, so it is a function of its own for x86-64-v3, chosen
 * at run time (GCC's __builtin_cpu_supports, which also checks that the system keeps the AVX state). Not
 * with POSE_NO_CLONES: that build is the SSE2 reference the tests compare with. */
#if defined(POSE_USE_SSE2) && defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && \
    !defined(POSE_NO_CLONES)
#define POSE_PAIRS 1
#include <immintrin.h>
#define PAIR_TARGET __attribute__((target("arch=x86-64-v3")))
#endif

/* The SSE2 joint loops the stages call, inlined into each build of them. */
#if defined(__GNUC__)
#define POSE_KERNEL inline __attribute__((always_inline))
#else
#define POSE_KERNEL inline
#endif

/* Below this squared length a rotation is treated as no rotation: only a blend of three or more
 * opposing poses, or broken data, gets there, and identity is better than NaN. */
#define POSE_TINY_LENGTH2 1e-30f

/* pose_to_object walks skeletons of up to this many joints once (the SSE2 build), larger ones in two passes. */
#define POSE_ONE_PASS_JOINTS 256

/* A rotation to unit length; near zero, identity. The scalar kernels and the additive stages use it. */
static inline void normalize_quaternion(float q[4])
{
    float length2 = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3];
    if (!(length2 > POSE_TINY_LENGTH2)) {
        q[0] = q[1] = q[2] = 0.0f;
        q[3] = 1.0f;
        return;
    }
    float inverse = 1.0f / sqrtf(length2);
    for (int k = 0; k < 4; ++k)
        q[k] *= inverse;
}

/* Hamilton product a * b in x y z w order (a applied after b). */
static inline void multiply_quaternions(const float a[4], const float b[4], float out[4])
{
    float x = a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1];
    float y = a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0];
    float z = a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3];
    float w = a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2];
    out[0] = x;
    out[1] = y;
    out[2] = z;
    out[3] = w;
}

#ifndef POSE_USE_SSE2

/* ---- joint kernels: scalar reference ---- */


/* count joints between two frames: positions linearly, rotations by nlerp along the shortest arc (q and -q
 * are the same rotation; going towards the nearer of b, -b also keeps |(1-t)a + tb| >= 1/sqrt(2), so the
 * normalization never divides by a small number). */
static void sample_joints(const joint_pose *a, const joint_pose *b, float t, int count, joint_pose *out)
{
    for (int i = 0; i < count; ++i) {
        const float *ra = a[i].rotation, *rb = b[i].rotation;
        float dot = ra[0] * rb[0] + ra[1] * rb[1] + ra[2] * rb[2] + ra[3] * rb[3];
        float b_weight = dot < 0.0f ? -t : t;
        float rotation[4];
        for (int k = 0; k < 4; ++k)
            rotation[k] = (1.0f - t) * ra[k] + b_weight * rb[k];
        normalize_quaternion(rotation);
        for (int k = 0; k < 4; ++k)
            out[i].rotation[k] = rotation[k];
        for (int k = 0; k < 3; ++k)
            out[i].position[k] = a[i].position[k] + t * (b[i].position[k] - a[i].position[k]);
        out[i].unused = 0.0f;
    }
}

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

/* palette = [R t] * B for one joint. R is the joint's unit rotation as a matrix (glm_quat_mat4's terms
 * without its normalization: pose_to_object's rotations are unit), B the inverse bind matrix, affine (last
 * row 0 0 0 1): column c of the product is R * B[c].xyz, plus t for the last one. cglm is column-major:
 * m[column][row]. Written out, a 3x3 by 3x4 product is 36 multiplies where glm_mat4_mul does 64. */
static inline void palette_joint(const joint_pose *joint, const vec4 *b, vec4 *m)
{
    float x = joint->rotation[0], y = joint->rotation[1], z = joint->rotation[2], w = joint->rotation[3];
    float xx = 2.0f * x * x, yy = 2.0f * y * y, zz = 2.0f * z * z;
    float xy = 2.0f * x * y, yz = 2.0f * y * z, xz = 2.0f * x * z;
    float wx = 2.0f * w * x, wy = 2.0f * w * y, wz = 2.0f * w * z;
    float r00 = 1.0f - yy - zz, r01 = xy + wz, r02 = xz - wy; /* column x */
    float r10 = xy - wz, r11 = 1.0f - xx - zz, r12 = yz + wx; /* column y */
    float r20 = xz + wy, r21 = yz - wx, r22 = 1.0f - xx - yy; /* column z */
    float tx = joint->position[0], ty = joint->position[1], tz = joint->position[2];

    /* Read all of B before writing: the compiler cannot know m does not alias it and would otherwise
     * reload B after every store. */
    float b00 = b[0][0], b01 = b[0][1], b02 = b[0][2];
    float b10 = b[1][0], b11 = b[1][1], b12 = b[1][2];
    float b20 = b[2][0], b21 = b[2][1], b22 = b[2][2];
    float b30 = b[3][0], b31 = b[3][1], b32 = b[3][2];

    m[0][0] = r00 * b00 + r10 * b01 + r20 * b02;
    m[0][1] = r01 * b00 + r11 * b01 + r21 * b02;
    m[0][2] = r02 * b00 + r12 * b01 + r22 * b02;
    m[0][3] = 0.0f;
    m[1][0] = r00 * b10 + r10 * b11 + r20 * b12;
    m[1][1] = r01 * b10 + r11 * b11 + r21 * b12;
    m[1][2] = r02 * b10 + r12 * b11 + r22 * b12;
    m[1][3] = 0.0f;
    m[2][0] = r00 * b20 + r10 * b21 + r20 * b22;
    m[2][1] = r01 * b20 + r11 * b21 + r21 * b22;
    m[2][2] = r02 * b20 + r12 * b21 + r22 * b22;
    m[2][3] = 0.0f;
    m[3][0] = r00 * b30 + r10 * b31 + r20 * b32 + tx;
    m[3][1] = r01 * b30 + r11 * b31 + r21 * b32 + ty;
    m[3][2] = r02 * b30 + r12 * b31 + r22 * b32 + tz;
    m[3][3] = 1.0f;
}

/* A joint's skin dual quaternion (pose_dq.h): real = q * conjugate(bind rotation), translation
 * t = position - rotate(real, bind position) (rotated as place_joint does), dual = (t, 0) * real / 2. */
static inline void dual_quaternion_joint(const joint_pose *joint, const joint_pose *bind, pose_dual_quaternion *out)
{
    float qx = joint->rotation[0], qy = joint->rotation[1], qz = joint->rotation[2], qw = joint->rotation[3];
    float bx = -bind->rotation[0], by = -bind->rotation[1], bz = -bind->rotation[2], bw = bind->rotation[3];
    float x = qw * bx + qx * bw + qy * bz - qz * by;
    float y = qw * by - qx * bz + qy * bw + qz * bx;
    float z = qw * bz + qx * by - qy * bx + qz * bw;
    float w = qw * bw - qx * bx - qy * by - qz * bz;
    float vx = bind->position[0], vy = bind->position[1], vz = bind->position[2];
    float tx = 2.0f * (y * vz - z * vy), ty = 2.0f * (z * vx - x * vz), tz = 2.0f * (x * vy - y * vx);
    float px = joint->position[0] - (vx + w * tx + (y * tz - z * ty));
    float py = joint->position[1] - (vy + w * ty + (z * tx - x * tz));
    float pz = joint->position[2] - (vz + w * tz + (x * ty - y * tx));
    out->real[0] = x, out->real[1] = y, out->real[2] = z, out->real[3] = w;
    out->dual[0] = 0.5f * (px * w + py * z - pz * y);
    out->dual[1] = 0.5f * (py * w + pz * x - px * z);
    out->dual[2] = 0.5f * (pz * w + px * y - py * x);
    out->dual[3] = -0.5f * (px * x + py * y + pz * z);
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

/* ---- joint kernels: SSE2, the same arithmetic four lanes at a time ---- */

/* Lane permutation, written in x y z w order (the reverse of _MM_SHUFFLE's). */
#define LANES(v, x, y, z, w) _mm_shuffle_ps((v), (v), _MM_SHUFFLE(w, z, y, x))

/* Flip the sign of the lanes whose mask entry is -0.0f. */
static inline __m128 flip_signs(__m128 v, float x, float y, float z, float w)
{
    return _mm_xor_ps(v, _mm_set_ps(w, z, y, x));
}

/* a x b in lanes x y z; lane w becomes aw * bw - aw * bw = 0. */
static inline __m128 cross(__m128 a, __m128 b)
{
    __m128 a_yzx = LANES(a, 1, 2, 0, 3), b_yzx = LANES(b, 1, 2, 0, 3);
    __m128 c_zxy = _mm_sub_ps(_mm_mul_ps(a, b_yzx), _mm_mul_ps(a_yzx, b));
    return LANES(c_zxy, 1, 2, 0, 3);
}

/* Dot product of a and b in every lane. */
static inline __m128 dot_all_lanes(__m128 a, __m128 b)
{
    __m128 products = _mm_mul_ps(a, b);
    __m128 pairs = _mm_add_ps(products, LANES(products, 1, 0, 3, 2));
    return _mm_add_ps(pairs, LANES(pairs, 2, 3, 0, 1));
}

/* The position lane (x, y, z, unused): addressed from the start of the struct, so the 16 bytes read are
 * the struct's own bytes rather than past the end of the 3-float array. */
static inline __m128 load_position_lane(const joint_pose *joint)
{
    return _mm_load_ps((const float *)((const char *)joint + offsetof(joint_pose, position)));
}

static inline void store_position_lane(joint_pose *joint, __m128 lane)
{
    _mm_store_ps((float *)((char *)joint + offsetof(joint_pose, position)), lane);
}

/* The sign bit of dot(a, b) in every lane: xor it into (a multiple of) b to take the shortest arc from a
 * without leaving the vector registers. */
static inline __m128 shortest_arc_sign(__m128 a, __m128 b)
{
    return _mm_and_ps(dot_all_lanes(a, b), _mm_set1_ps(-0.0f));
}

/* A rotation to unit length; near zero, identity (normalize_quaternion's rule). */
static inline __m128 normalized_or_identity(__m128 rotation)
{
    __m128 length2 = dot_all_lanes(rotation, rotation);
    if (_mm_cvtss_f32(length2) > POSE_TINY_LENGTH2)
        return _mm_div_ps(rotation, _mm_sqrt_ps(length2));
    return _mm_set_ps(1.0f, 0.0f, 0.0f, 0.0f);
}

/* See the scalar version. The sum's length is at least 1/sqrt(2) for unit frames, so no zero check.
 * The two weighted frames are computed while the dot product that picks b's sign is still on its way,
 * and the sign is applied last: that keeps each joint's chain of dependent steps short, which is what
 * limits this loop. */
static POSE_KERNEL void sample_joints(const joint_pose *a, const joint_pose *b, float t, int count, joint_pose *out)
{
    __m128 t4 = _mm_set1_ps(t), one_minus_t4 = _mm_set1_ps(1.0f - t);
    for (int i = 0; i < count; ++i) {
        __m128 ra = _mm_load_ps(a[i].rotation), rb = _mm_load_ps(b[i].rotation);
        __m128 rotation = _mm_add_ps(_mm_mul_ps(one_minus_t4, ra),
                                     _mm_xor_ps(_mm_mul_ps(t4, rb), shortest_arc_sign(ra, rb)));
        rotation = _mm_div_ps(rotation, _mm_sqrt_ps(dot_all_lanes(rotation, rotation)));
        __m128 pa = load_position_lane(&a[i]);
        __m128 position = _mm_add_ps(pa, _mm_mul_ps(t4, _mm_sub_ps(load_position_lane(&b[i]), pa)));
        _mm_store_ps(out[i].rotation, rotation);
        store_position_lane(&out[i], position);
    }
}

#ifdef POSE_PAIRS
/* Two joints' 16-byte lanes (first's low, second's high) as one 256-bit register, and back. */
PAIR_TARGET static inline __m256 load_pair(const float *first, const float *second)
{
    return _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_load_ps(first)), _mm_load_ps(second), 1);
}

PAIR_TARGET static inline void store_pair(__m256 pair, float *first, float *second)
{
    _mm_store_ps(first, _mm256_castps256_ps128(pair));
    _mm_store_ps(second, _mm256_extractf128_ps(pair, 1));
}

/* dot_all_lanes in each 128-bit half. */
PAIR_TARGET static inline __m256 dot_all_lanes_pairs(__m256 a, __m256 b)
{
    __m256 products = _mm256_mul_ps(a, b);
    __m256 pairs = _mm256_add_ps(products, _mm256_permute_ps(products, _MM_SHUFFLE(2, 3, 0, 1)));
    return _mm256_add_ps(pairs, _mm256_permute_ps(pairs, _MM_SHUFFLE(1, 0, 3, 2)));
}

/* sample_joints two joints at a time, each half of every register doing what sample_joints does to one
 * joint, step for step; an odd last joint goes through sample_joints. */
PAIR_TARGET static void sample_joints_pairs(const joint_pose *a, const joint_pose *b, float t, int count,
                                            joint_pose *out)
{
    __m256 t8 = _mm256_set1_ps(t), one_minus_t8 = _mm256_set1_ps(1.0f - t), sign_bit = _mm256_set1_ps(-0.0f);
    int i = 0;
    for (; i + 1 < count; i += 2) {
        __m256 ra = load_pair(a[i].rotation, a[i + 1].rotation), rb = load_pair(b[i].rotation, b[i + 1].rotation);
        __m256 sign = _mm256_and_ps(dot_all_lanes_pairs(ra, rb), sign_bit);
        __m256 rotation = _mm256_add_ps(_mm256_mul_ps(one_minus_t8, ra), _mm256_xor_ps(_mm256_mul_ps(t8, rb), sign));
        rotation = _mm256_div_ps(rotation, _mm256_sqrt_ps(dot_all_lanes_pairs(rotation, rotation)));
        __m256 pa = load_pair(a[i].position, a[i + 1].position), pb = load_pair(b[i].position, b[i + 1].position);
        __m256 position = _mm256_add_ps(pa, _mm256_mul_ps(t8, _mm256_sub_ps(pb, pa)));
        store_pair(rotation, out[i].rotation, out[i + 1].rotation);
        store_pair(position, out[i].position, out[i + 1].position);
    }
    if (i < count)
        sample_joints(a + i, b + i, t, 1, out + i);
}

/* Whether this processor runs the pair kernels: libgcc finds the features once, before main, and each
 * question reads its answer (no state of ours for threads to race on). */
static bool pose_has_pairs(void)
{
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("avx");
}
#endif

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
/* blend_joints two joints at a time: each half as blend_joints does one joint, normalized_or_identity's
 * choice made per half (both results computed, the tiny half's replaced by identity). */
PAIR_TARGET static void blend_joints_pairs(const joint_pose *const *poses, const float *weights, int pose_count,
                                           int reference, float inverse_total, int joint_count, joint_pose *out)
{
    __m256 reference_weight = _mm256_set1_ps(weights[reference] * inverse_total), sign_bit = _mm256_set1_ps(-0.0f);
    __m256 tiny = _mm256_set1_ps(POSE_TINY_LENGTH2);
    __m256 identity = _mm256_set_ps(1.0f, 0.0f, 0.0f, 0.0f, 1.0f, 0.0f, 0.0f, 0.0f);
    int i = 0;
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
#endif

/* parent * local, as glm_quat_mul_sse2: pw * l + px * (lw, -lz, ly, -lx) + py * (lz, lw, -lx, -ly)
 * + pz * (-ly, lx, lw, -lz), summed as a tree to keep the chain from parent to child short. Written once
 * for one rotation in a 128-bit register and for two in a 256-bit one (multiply_rotations_pairs), with
 * that register's multiply, add, in-lane permute and sign flip. */
#define MULTIPLY_ROTATIONS(MUL, ADD, LANES_OF, FLIP, parent, local)                                            \
    ADD(ADD(MUL(LANES_OF(parent, 3, 3, 3, 3), local),                                                          \
            MUL(LANES_OF(parent, 0, 0, 0, 0), FLIP(LANES_OF(local, 3, 2, 1, 0), 0.0f, -0.0f, 0.0f, -0.0f))),  \
        ADD(MUL(LANES_OF(parent, 1, 1, 1, 1), FLIP(LANES_OF(local, 2, 3, 0, 1), 0.0f, 0.0f, -0.0f, -0.0f)),   \
            MUL(LANES_OF(parent, 2, 2, 2, 2), FLIP(LANES_OF(local, 1, 0, 3, 2), -0.0f, 0.0f, 0.0f, -0.0f))))

static inline __m128 multiply_rotations(__m128 parent, __m128 local)
{
    return MULTIPLY_ROTATIONS(_mm_mul_ps, _mm_add_ps, LANES, flip_signs, parent, local);
}

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

/* A product of unit rotations back to unit length: one Newton step (see the scalar place_joint). */
static inline __m128 renormalized(__m128 rotation)
{
    __m128 length2 = dot_all_lanes(rotation, rotation);
    return _mm_mul_ps(rotation, _mm_sub_ps(_mm_set1_ps(1.5f), _mm_mul_ps(_mm_set1_ps(0.5f), length2)));
}

/* A child's object position: parent position + rotate(parent rotation, local position). The local position
 * lane has w = 0 (unused), so every term keeps lane w at 0 and the parent's unused 0 passes through. */
static inline __m128 placed_position(__m128 parent_rotation, __m128 parent_position, __m128 local_position)
{
    __m128 t = cross(parent_rotation, local_position);
    t = _mm_add_ps(t, t);
    __m128 rotated = _mm_add_ps(local_position, _mm_mul_ps(LANES(parent_rotation, 3, 3, 3, 3), t));
    rotated = _mm_add_ps(rotated, cross(parent_rotation, t));
    return _mm_add_ps(parent_position, rotated);
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
/* The one walk's helpers in 256-bit registers: two poses, one in each 128-bit half, each half computed
 * step for step as the 128-bit helper computes its one pose (in-lane permutes only), so the same bits. */
#define LANES_PAIRS(v, x, y, z, w) _mm256_permute_ps((v), _MM_SHUFFLE(w, z, y, x))

PAIR_TARGET static inline __m256 flip_signs_pairs(__m256 v, float x, float y, float z, float w)
{
    return _mm256_xor_ps(v, _mm256_set_ps(w, z, y, x, w, z, y, x));
}

PAIR_TARGET static inline __m256 cross_pairs(__m256 a, __m256 b)
{
    __m256 a_yzx = LANES_PAIRS(a, 1, 2, 0, 3), b_yzx = LANES_PAIRS(b, 1, 2, 0, 3);
    __m256 c_zxy = _mm256_sub_ps(_mm256_mul_ps(a, b_yzx), _mm256_mul_ps(a_yzx, b));
    return LANES_PAIRS(c_zxy, 1, 2, 0, 3);
}

PAIR_TARGET static inline __m256 multiply_rotations_pairs(__m256 parent, __m256 local)
{
    return MULTIPLY_ROTATIONS(_mm256_mul_ps, _mm256_add_ps, LANES_PAIRS, flip_signs_pairs, parent, local);
}

PAIR_TARGET static inline __m256 renormalized_pairs(__m256 rotation)
{
    __m256 length2 = dot_all_lanes_pairs(rotation, rotation);
    return _mm256_mul_ps(rotation, _mm256_sub_ps(_mm256_set1_ps(1.5f), _mm256_mul_ps(_mm256_set1_ps(0.5f), length2)));
}

PAIR_TARGET static inline __m256 placed_position_pairs(__m256 parent_rotation, __m256 parent_position,
                                                       __m256 local_position)
{
    __m256 t = cross_pairs(parent_rotation, local_position);
    t = _mm256_add_ps(t, t);
    __m256 rotated = _mm256_add_ps(local_position, _mm256_mul_ps(LANES_PAIRS(parent_rotation, 3, 3, 3, 3), t));
    rotated = _mm256_add_ps(rotated, cross_pairs(parent_rotation, t));
    return _mm256_add_ps(parent_position, rotated);
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
#endif

/* The rotation matrix columns of q as palette_joint explains them, written once for one rotation in a
 * 128-bit register and for two in a 256-bit one (palette_joints_pairs); one_x, one_y, one_z hold the 1 each
 * column loses. */
#define ROTATION_COLUMNS(V, MUL, ADD, SUB, LANES_OF, FLIP, q, one_x, one_y, one_z, column_x, column_y, column_z) \
    do {                                                                                                         \
        V q2_ = ADD(q, q);                                                                                       \
        V x2_ = MUL(LANES_OF(q, 0, 0, 0, 0), q2_), y2_ = MUL(LANES_OF(q, 1, 1, 1, 1), q2_);                      \
        V z2_ = MUL(LANES_OF(q, 2, 2, 2, 2), q2_), w2_ = MUL(LANES_OF(q, 3, 3, 3, 3), q2_);                      \
        column_x = SUB(ADD(x2_, FLIP(LANES_OF(w2_, 3, 2, 1, 0), 0.0f, 0.0f, -0.0f, -0.0f)), one_x);              \
        column_y = SUB(ADD(y2_, FLIP(LANES_OF(w2_, 2, 3, 0, 1), -0.0f, 0.0f, 0.0f, -0.0f)), one_y);              \
        column_z = SUB(ADD(z2_, FLIP(LANES_OF(w2_, 1, 0, 3, 2), 0.0f, -0.0f, 0.0f, -0.0f)), one_z);              \
    } while (0)

/* See the scalar version. */
static inline void palette_joint(const joint_pose *joint, const vec4 *b, vec4 *m)
{
    __m128 q = _mm_load_ps(joint->rotation);
    __m128 translation = load_position_lane(joint);
    translation = _mm_add_ps(translation, _mm_set_ps(1.0f, 0.0f, 0.0f, 0.0f)); /* unused 0 -> w 1 */

    /* Rotation matrix columns. With q2 = 2q, x2 = x * q2 = (2xx, 2xy, 2xz, 2xw) and so on, and for unit q
     * 1 - 2yy - 2zz = 2xx + 2ww - 1:
     *   column x = x2 + (2ww, 2wz, -2wy, -2wx) - (1, 0, 0, 0)
     *   column y = y2 + (-2wz, 2ww, 2wx, -2wy) - (0, 1, 0, 0)
     *   column z = z2 + (2wy, -2wx, 2ww, -2wz) - (0, 0, 1, 0)
     * Lane w cancels exactly (2xw - 2wx), giving the 0 the matrix needs there. */
    __m128 column_x, column_y, column_z;
    ROTATION_COLUMNS(__m128, _mm_mul_ps, _mm_add_ps, _mm_sub_ps, LANES, flip_signs, q,
                     _mm_set_ps(0.0f, 0.0f, 0.0f, 1.0f), _mm_set_ps(0.0f, 0.0f, 1.0f, 0.0f),
                     _mm_set_ps(0.0f, 1.0f, 0.0f, 0.0f), column_x, column_y, column_z);

    /* Column c of the product: R * B[c].xyz (+ t for the last), as glm_mul_sse2 does it. */
    for (int c = 0; c < 4; ++c) {
        __m128 bc = _mm_load_ps(b[c]);
        __m128 column = _mm_mul_ps(column_x, LANES(bc, 0, 0, 0, 0));
        column = _mm_add_ps(column, _mm_mul_ps(column_y, LANES(bc, 1, 1, 1, 1)));
        column = _mm_add_ps(column, _mm_mul_ps(column_z, LANES(bc, 2, 2, 2, 2)));
        if (c == 3)
            column = _mm_add_ps(column, translation);
        _mm_store_ps(m[c], column);
    }
}

/* See the scalar version. Position lanes carry unused = 0 in lane w, which every term keeps at 0, so the
 * translation is the pure quaternion (t, 0) that multiply_rotations takes. */
static inline void dual_quaternion_joint(const joint_pose *joint, const joint_pose *bind, pose_dual_quaternion *out)
{
    __m128 bind_rotation = flip_signs(_mm_load_ps(bind->rotation), -0.0f, -0.0f, -0.0f, 0.0f);
    __m128 real = multiply_rotations(_mm_load_ps(joint->rotation), bind_rotation);
    __m128 bind_position = load_position_lane(bind);
    __m128 t = cross(real, bind_position);
    t = _mm_add_ps(t, t);
    __m128 turned = _mm_add_ps(bind_position, _mm_mul_ps(LANES(real, 3, 3, 3, 3), t));
    turned = _mm_add_ps(turned, cross(real, t));
    __m128 translation = _mm_sub_ps(load_position_lane(joint), turned);
    _mm_store_ps(out->real, real);
    _mm_store_ps(out->dual, _mm_mul_ps(_mm_set1_ps(0.5f), multiply_rotations(translation, real)));
}

#ifdef POSE_PAIRS
/* palette_joint for joints i and i + 1 at once, one in each half, step for step. */
PAIR_TARGET static void palette_joints_pairs(const joint_pose *joints, const mat4 *inverse_bind, int count,
                                             mat4 *palette)
{
    const __m256 one_w = _mm256_set_ps(1.0f, 0.0f, 0.0f, 0.0f, 1.0f, 0.0f, 0.0f, 0.0f);
    const __m256 one_x = _mm256_set_ps(0.0f, 0.0f, 0.0f, 1.0f, 0.0f, 0.0f, 0.0f, 1.0f);
    const __m256 one_y = _mm256_set_ps(0.0f, 0.0f, 1.0f, 0.0f, 0.0f, 0.0f, 1.0f, 0.0f);
    const __m256 one_z = _mm256_set_ps(0.0f, 1.0f, 0.0f, 0.0f, 0.0f, 1.0f, 0.0f, 0.0f);
    int i = 0;
    for (; i + 1 < count; i += 2) {
        __m256 q = load_pair(joints[i].rotation, joints[i + 1].rotation);
        __m256 translation = _mm256_add_ps(load_pair(joints[i].position, joints[i + 1].position), one_w);
        __m256 column_x, column_y, column_z;
        ROTATION_COLUMNS(__m256, _mm256_mul_ps, _mm256_add_ps, _mm256_sub_ps, LANES_PAIRS, flip_signs_pairs, q,
                         one_x, one_y, one_z, column_x, column_y, column_z);
        for (int c = 0; c < 4; ++c) {
            __m256 bc = load_pair(inverse_bind[i][c], inverse_bind[i + 1][c]);
            __m256 column = _mm256_mul_ps(column_x, LANES_PAIRS(bc, 0, 0, 0, 0));
            column = _mm256_add_ps(column, _mm256_mul_ps(column_y, LANES_PAIRS(bc, 1, 1, 1, 1)));
            column = _mm256_add_ps(column, _mm256_mul_ps(column_z, LANES_PAIRS(bc, 2, 2, 2, 2)));
            if (c == 3)
                column = _mm256_add_ps(column, translation);
            store_pair(column, palette[i][c], palette[i + 1][c]);
        }
    }
    if (i < count)
        palette_joint(&joints[i], inverse_bind[i], palette[i]);
}

/* dual_quaternion_joint for joints i and i + 1 at once, one in each half, step for step. */
PAIR_TARGET static void dual_quaternion_joints_pairs(const joint_pose *joints, const joint_pose *bind, int count,
                                                     pose_dual_quaternion *out)
{
    int i = 0;
    for (; i + 1 < count; i += 2) {
        __m256 bind_rotation = flip_signs_pairs(load_pair(bind[i].rotation, bind[i + 1].rotation), -0.0f, -0.0f,
                                                -0.0f, 0.0f);
        __m256 real = multiply_rotations_pairs(load_pair(joints[i].rotation, joints[i + 1].rotation), bind_rotation);
        __m256 bind_position = load_pair(bind[i].position, bind[i + 1].position);
        __m256 t = cross_pairs(real, bind_position);
        t = _mm256_add_ps(t, t);
        __m256 turned = _mm256_add_ps(bind_position, _mm256_mul_ps(LANES_PAIRS(real, 3, 3, 3, 3), t));
        turned = _mm256_add_ps(turned, cross_pairs(real, t));
        __m256 translation = _mm256_sub_ps(load_pair(joints[i].position, joints[i + 1].position), turned);
        store_pair(real, out[i].real, out[i + 1].real);
        store_pair(_mm256_mul_ps(_mm256_set1_ps(0.5f), multiply_rotations_pairs(translation, real)), out[i].dual,
                   out[i + 1].dual);
    }
    if (i < count)
        dual_quaternion_joint(&joints[i], &bind[i], &out[i]);
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

#undef LANES

#endif /* POSE_USE_SSE2 */

/* ---- sample ---- */

/* Which two stored frames surround `time`, and how far between them it lies. Both loop conventions and
 * the one-shot clamp reduce to this; the joint loop then never looks at time again. */
typedef struct frame_pair {
    int first;
    int second;
    float alpha; /* 0 at first, 1 at second */
} frame_pair;

static inline frame_pair find_frames(const clip *c, float time, bool loop)
{
    frame_pair pair = {0, 0, 0.0f};
    int last = c->frame_count - 1;
    if (last == 0)
        return pair; /* one frame: a still pose whatever the time */

    float frame = time * c->frame_rate;
    if (loop) {
        /* Doom 3 rule: frame `last` repeats frame 0, so the cycle has `last` steps and wraps onto frame 0
         * when it reaches it. Tutorials' rule: `last + 1` steps, the final one from frame `last` back to 0. */
        int steps = c->last_frame_is_first ? last : last + 1;
        /* fmodf is exact and keeps the sign of time. A time already inside the cycle, as the controller
         * gives it, is its own remainder: skipping the call there saves a tenth of a sample's cost. */
        if (!(frame >= 0.0f && frame < (float)steps))
            frame = fmodf(frame, (float)steps);
        if (frame < 0.0f)
            frame += (float)steps;
        /* -tiny + steps rounds to steps itself; that is the start of the next cycle. */
        if (!(frame < (float)steps))
            frame = 0.0f;
        pair.first = (int)frame;
        pair.alpha = frame - (float)pair.first;
        pair.second = pair.first + 1 > last ? 0 : pair.first + 1;
        return pair;
    }

    if (!(frame > 0.0f))
        return pair; /* before the start: hold frame 0 */
    if (!(frame < (float)last)) {
        pair.first = pair.second = last; /* played once: hold the last frame */
        return pair;
    }
    pair.first = (int)frame;
    pair.second = pair.first + 1;
    pair.alpha = frame - (float)pair.first;
    return pair;
}

POSE_STAGE bool pose_sample_range(const clip *c, float time, bool loop, int first_joint, int joint_count,
                                  joint_pose *out)
{
    if (!c || !out || !c->frames || first_joint < 0 || joint_count <= 0 || first_joint >= c->joint_count ||
        joint_count > c->joint_count - first_joint || c->frame_count <= 0 || !(c->frame_rate > 0.0f) ||
        !isfinite(c->frame_rate) || !isfinite(time))
        return false;
    frame_pair pair = find_frames(c, time, loop);
    const joint_pose *a = c->frames + (ptrdiff_t)pair.first * c->joint_count + first_joint;
    const joint_pose *b = c->frames + (ptrdiff_t)pair.second * c->joint_count + first_joint;
#ifdef POSE_PAIRS
    if (joint_count > 1 && pose_has_pairs()) {
        sample_joints_pairs(a, b, pair.alpha, joint_count, out);
        return true;
    }
#endif
    sample_joints(a, b, pair.alpha, joint_count, out);
    return true;
}

bool pose_sample(const clip *c, float time, bool loop, joint_pose *out)
{
    return c && pose_sample_range(c, time, loop, 0, c->joint_count, out);
}

bool pose_sample_joint(const clip *c, float time, bool loop, int joint, joint_pose *out)
{
    return pose_sample_range(c, time, loop, joint, 1, out);
}

bool pose_sample_bounds(const clip *c, float time, bool loop, float out[2][3])
{
    if (!c || !out || !c->bounds || c->frame_count <= 0 || !(c->frame_rate > 0.0f) || !isfinite(c->frame_rate) ||
        !isfinite(time))
        return false;
    frame_pair pair = find_frames(c, time, loop);
    for (int corner = 0; corner < 2; ++corner)
        for (int k = 0; k < 3; ++k) {
            float a = c->bounds[pair.first][corner][k], b = c->bounds[pair.second][corner][k];
            out[corner][k] = a + pair.alpha * (b - a);
        }
    return true;
}

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
    if (joint_count > 1 && pose_has_pairs()) {
        blend_joints_pairs(poses, weights, pose_count, reference, 1.0f / total, joint_count, out);
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

    for (int i = 0; i < joint_count; ++i) {
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

/* ---- palette ---- */

POSE_STAGE bool pose_palette(const joint_pose *object, const mat4 *inverse_bind, int joint_count, mat4 *palette)
{
    if (!object || !inverse_bind || !palette || joint_count <= 0)
        return false;
#ifdef POSE_PAIRS
    if (pose_has_pairs()) {
        palette_joints_pairs(object, inverse_bind, joint_count, palette);
        return true;
    }
#endif
    for (int i = 0; i < joint_count; ++i)
        palette_joint(&object[i], inverse_bind[i], palette[i]);
    return true;
}

/* pose_dq.h's stage, here beside pose_palette for the joint kernels it shares the SSE2 helpers with. The
 * real part is q * conjugate(bind), unit as both are to rounding (the per-vertex normalisation removes
 * it): no matrix is made and converted back. */
POSE_STAGE bool pose_dual_quaternion_palette(const joint_pose *object, const joint_pose *bind_object,
                                             int joint_count, pose_dual_quaternion *out)
{
    if (!object || !bind_object || !out || joint_count <= 0)
        return false;
#ifdef POSE_PAIRS
    if (pose_has_pairs()) {
        dual_quaternion_joints_pairs(object, bind_object, joint_count, out);
        return true;
    }
#endif
    for (int i = 0; i < joint_count; ++i)
        dual_quaternion_joint(&object[i], &bind_object[i], &out[i]);
    return true;
}

/* ---- CPU skinning ---- */

/* See pose_internal.h. */
bool pose_skin_joints_fit(const skin_mesh *mesh, int joint_count)
{
    for (int v = 0; v < mesh->vertex_count; ++v)
        for (int k = 0; k < SKIN_MAX_INFLUENCES; ++k)
            if (mesh->weights[v][k] != 0.0f && mesh->joints[v][k] >= joint_count)
                return false;
    return true;
}

/* Linear blend skinning of vertex v: blend its palette matrices (3x4, column-major), then transform once.
 * The palette matrices are rigid, so their 3x3 part is a rotation and transforms normals directly (no
 * inverse transpose). */
static void skin_blend(const skin_mesh *mesh, int v, const mat4 *palette, float blended[4][3])
{
    memset(blended, 0, 4 * sizeof blended[0]);
    for (int k = 0; k < SKIN_MAX_INFLUENCES; ++k) {
        float weight = mesh->weights[v][k];
        if (weight == 0.0f)
            continue;
        const vec4 *m = palette[mesh->joints[v][k]];
        for (int column = 0; column < 4; ++column)
            for (int row = 0; row < 3; ++row)
                blended[column][row] += weight * m[column][row];
    }
}

static void skin_position(float blended[4][3], const float p[3], float out[3])
{
    for (int row = 0; row < 3; ++row)
        out[row] = blended[0][row] * p[0] + blended[1][row] * p[1] + blended[2][row] * p[2] + blended[3][row];
}

bool pose_skin_cpu(const skin_mesh *mesh, const mat4 *palette, int joint_count, float (*positions)[3],
                   float (*normals)[3])
{
    if (!mesh || !palette || !positions || !normals || joint_count <= 0 || mesh->vertex_count < 0)
        return false;
    int vertex_count = mesh->vertex_count;
    if (vertex_count > 0 && (!mesh->positions || !mesh->normals || !mesh->joints || !mesh->weights))
        return false;
    if (!pose_skin_joints_fit(mesh, joint_count))
        return false;

    for (int v = 0; v < vertex_count; ++v) {
        float blended[4][3];
        skin_blend(mesh, v, palette, blended);
        skin_position(blended, mesh->positions[v], positions[v]);
        const float *n = mesh->normals[v];
        float normal[3];
        for (int row = 0; row < 3; ++row)
            normal[row] = blended[0][row] * n[0] + blended[1][row] * n[1] + blended[2][row] * n[2];
        float length2 = normal[0] * normal[0] + normal[1] * normal[1] + normal[2] * normal[2];
        if (length2 > 1e-20f) {
            float inverse = 1.0f / sqrtf(length2);
            for (int row = 0; row < 3; ++row)
                normals[v][row] = normal[row] * inverse;
        } else {
            /* Opposing influences can cancel a normal out; the bind normal is the least surprising. */
            for (int row = 0; row < 3; ++row)
                normals[v][row] = n[row];
        }
    }
    return true;
}

/* ---- Skinned bounds ---- */

bool pose_skinned_box(const skin_mesh *meshes, int mesh_count, int joint_count, pose_skin_vertex_position *skin,
                      const void *palette, float out[2][3])
{
    if (!meshes || !palette || !out || mesh_count < 0 || joint_count <= 0)
        return false;
    for (int i = 0; i < mesh_count; ++i)
        if (meshes[i].vertex_count < 0 || (meshes[i].vertex_count > 0 &&
                                           (!meshes[i].positions || !meshes[i].joints || !meshes[i].weights)) ||
            !pose_skin_joints_fit(&meshes[i], joint_count))
            return false;
    float box[2][3] = {{FLT_MAX, FLT_MAX, FLT_MAX}, {-FLT_MAX, -FLT_MAX, -FLT_MAX}};
    bool any = false;
    for (int i = 0; i < mesh_count; ++i) {
        const skin_mesh *mesh = &meshes[i];
        for (int v = 0; v < mesh->vertex_count; ++v) {
            float position[3];
            skin(mesh, v, palette, position);
            for (int axis = 0; axis < 3; ++axis) {
                box[0][axis] = fminf(box[0][axis], position[axis]);
                box[1][axis] = fmaxf(box[1][axis], position[axis]);
            }
            any = true;
        }
    }
    if (!any)
        return false;
    memcpy(out, box, sizeof box);
    return true;
}

/* The very arithmetic of pose_skin_cpu, so the box holds its positions exactly. */
static void skin_linear_position(const skin_mesh *mesh, int v, const void *palette, float out[3])
{
    float blended[4][3];
    skin_blend(mesh, v, (const mat4 *)palette, blended);
    skin_position(blended, mesh->positions[v], out);
}

bool pose_skinned_bounds(const skin_mesh *meshes, int mesh_count, const mat4 *palette, int joint_count,
                         float out[2][3])
{
    return pose_skinned_box(meshes, mesh_count, joint_count, skin_linear_position, palette, out);
}
