/* pose_kernels: what the pose stages (pose_sample.c, pose_blend.c, pose_object.c, pose_palette.c,
 * pose_skin.c) share and nobody else sees: the build choices (SSE2, the x86-64-v3 clones, the AVX2 pairs,
 * the AVX-512 quads), the quaternion helpers, the SSE2 lane helpers, and the one joint kernel two stages use
 * (sample_joints: sampling and the masked blend). Each stage's own kernels live beside it, in its file.
 * Every function here is static inline (but pose_has_quads, which pose_sample.c defines): each stage file
 * gets its own copy, and the tests can build all the stage files as one translation unit
 * (tests/pose_sse2_copy.c). */
#ifndef MARIONETTE_POSE_KERNELS_H
#define MARIONETTE_POSE_KERNELS_H

#include "pose.h"

#include <math.h>
#include <stdbool.h>
#include <stddef.h>

/* How the pose stages are laid out, and why.
 * The stages run for every joint of every character every frame (a crowd of a thousand is 33,000 joints
 * per stage), so they are written for speed as well as clarity:
 * - Everything that can be checked or decided once per call (counts, parents, weights, which two frames
 *   to read) is, before the joint loop.
 * - The per-joint arithmetic lives in "joint kernels", in two versions: plain scalar code, the
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

/* count joints between two frames: positions linearly, rotations by nlerp along the shortest arc (q and -q
 * are the same rotation; going towards the nearer of b, -b also keeps |(1-t)a + tb| >= 1/sqrt(2), so the
 * normalization never divides by a small number). */
static inline void sample_joints(const joint_pose *a, const joint_pose *b, float t, int count, joint_pose *out)
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

#else /* POSE_USE_SSE2 */

/* ---- SSE2 lane helpers, the same arithmetic four lanes at a time ---- */

/* Lane permutation, written in x y z w order (the reverse of _MM_SHUFFLE's). */
#define LANES(v, x, y, z, w) _mm_shuffle_ps((v), (v), _MM_SHUFFLE(w, z, y, x))

/* Flip the sign of the lanes whose mask entry is -0.0f. */
static inline __m128 flip_signs(__m128 v, float x, float y, float z, float w)
{
    return _mm_xor_ps(v, _mm_set_ps(w, z, y, x));
}

/* a x b in lanes x, y, z (a * b.yzx - a.yzx * b, turned back), written once for each register width with
 * that width's multiply, subtract and in-lane permute. */
#define CROSS(MUL, SUB, LANES_OF, a, b) \
    LANES_OF(SUB(MUL((a), LANES_OF((b), 1, 2, 0, 3)), MUL(LANES_OF((a), 1, 2, 0, 3), (b))), 1, 2, 0, 3)

/* a x b in lanes x y z; lane w becomes aw * bw - aw * bw = 0. */
static inline __m128 cross(__m128 a, __m128 b)
{
    return CROSS(_mm_mul_ps, _mm_sub_ps, LANES, a, b);
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

/* Whether this processor runs the pair kernels: libgcc finds the features once, before main, and each
 * question reads its answer (no state of ours for threads to race on). */
static inline bool pose_has_pairs(void)
{
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("avx");
}

/* Where the processor has AVX-512 (x86-64-v4, which also asks that the system keeps its state), the stages
 * that dominate a crowd's step take four joints, or four poses, in 512-bit registers: each 128-bit lane
 * computed step for step as the 128-bit kernels compute one joint (in-lane permutes only), so the same bits
 * again. Setting MARIONETTE_POSE_NO_QUADS in the environment (read once) keeps them to the pairs, for a
 * benchmark to compare the two. */
#define QUAD_TARGET __attribute__((target("arch=x86-64-v4")))

bool pose_has_quads(void);

/* Joints i..i+3, 128 contiguous bytes: their rotations in one register and their position lanes in another
 * (two loads and two permutes), and back. */
QUAD_TARGET static inline void load_joints_quad(const joint_pose *joints, __m512 *rotations, __m512 *positions)
{
    const __m512i rotation_lanes = _mm512_setr_epi32(0, 1, 2, 3, 8, 9, 10, 11, 16, 17, 18, 19, 24, 25, 26, 27);
    const __m512i position_lanes = _mm512_setr_epi32(4, 5, 6, 7, 12, 13, 14, 15, 20, 21, 22, 23, 28, 29, 30, 31);
    __m512 first = _mm512_loadu_ps(&joints[0]), second = _mm512_loadu_ps(&joints[2]);
    *rotations = _mm512_permutex2var_ps(first, rotation_lanes, second);
    *positions = _mm512_permutex2var_ps(first, position_lanes, second);
}

/* Back to four joints (or anything laid out as four joints: two 16-byte lanes each), 128 bytes at `to`. */
QUAD_TARGET static inline void store_joints_quad(void *to, __m512 rotations, __m512 positions)
{
    const __m512i low = _mm512_setr_epi32(0, 1, 2, 3, 16, 17, 18, 19, 4, 5, 6, 7, 20, 21, 22, 23);
    const __m512i high = _mm512_setr_epi32(8, 9, 10, 11, 24, 25, 26, 27, 12, 13, 14, 15, 28, 29, 30, 31);
    _mm512_storeu_ps((float *)to, _mm512_permutex2var_ps(rotations, low, positions));
    _mm512_storeu_ps((float *)to + 16, _mm512_permutex2var_ps(rotations, high, positions));
}

QUAD_TARGET static inline __m512 dot_all_lanes_quads(__m512 a, __m512 b)
{
    __m512 products = _mm512_mul_ps(a, b);
    __m512 pairs = _mm512_add_ps(products, _mm512_permute_ps(products, _MM_SHUFFLE(2, 3, 0, 1)));
    return _mm512_add_ps(pairs, _mm512_permute_ps(pairs, _MM_SHUFFLE(1, 0, 3, 2)));
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
    return CROSS(_mm256_mul_ps, _mm256_sub_ps, LANES_PAIRS, a, b);
}

PAIR_TARGET static inline __m256 multiply_rotations_pairs(__m256 parent, __m256 local)
{
    return MULTIPLY_ROTATIONS(_mm256_mul_ps, _mm256_add_ps, LANES_PAIRS, flip_signs_pairs, parent, local);
}

/* The same in 512-bit registers: four poses, one in each 128-bit lane. */
#define LANES_QUADS(v, x, y, z, w) _mm512_permute_ps((v), _MM_SHUFFLE(w, z, y, x))

QUAD_TARGET static inline __m512 load_quad(const float *first, const float *second, const float *third,
                                           const float *fourth)
{
    __m512 v = _mm512_castps128_ps512(_mm_load_ps(first));
    v = _mm512_insertf32x4(v, _mm_load_ps(second), 1);
    v = _mm512_insertf32x4(v, _mm_load_ps(third), 2);
    return _mm512_insertf32x4(v, _mm_load_ps(fourth), 3);
}

QUAD_TARGET static inline void store_quad(__m512 v, float *first, float *second, float *third, float *fourth)
{
    _mm_store_ps(first, _mm512_castps512_ps128(v));
    _mm_store_ps(second, _mm512_extractf32x4_ps(v, 1));
    _mm_store_ps(third, _mm512_extractf32x4_ps(v, 2));
    _mm_store_ps(fourth, _mm512_extractf32x4_ps(v, 3));
}

QUAD_TARGET static inline __m512 flip_signs_quads(__m512 v, float x, float y, float z, float w)
{
    return _mm512_xor_ps(v, _mm512_set_ps(w, z, y, x, w, z, y, x, w, z, y, x, w, z, y, x));
}

QUAD_TARGET static inline __m512 cross_quads(__m512 a, __m512 b)
{
    return CROSS(_mm512_mul_ps, _mm512_sub_ps, LANES_QUADS, a, b);
}

QUAD_TARGET static inline __m512 multiply_rotations_quads(__m512 parent, __m512 local)
{
    return MULTIPLY_ROTATIONS(_mm512_mul_ps, _mm512_add_ps, LANES_QUADS, flip_signs_quads, parent, local);
}
#endif

#endif /* POSE_USE_SSE2 */

#endif
