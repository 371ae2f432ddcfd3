/* Skin palettes from object poses: matrices (pose.h) and dual quaternions (pose_dq.h). */
#include "pose_kernels.h"
#include "pose_dq.h"

#ifndef POSE_USE_SSE2

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

#else /* POSE_USE_SSE2 */

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

/* Four rows of four 16-byte lanes transposed: lane k of row r to lane r of row k (four matrices to their
 * columns side by side, and back). */
QUAD_TARGET static inline void transpose_lanes_quads(__m512 rows[4])
{
    __m512 t0 = _mm512_shuffle_f32x4(rows[0], rows[1], _MM_SHUFFLE(1, 0, 1, 0));
    __m512 t1 = _mm512_shuffle_f32x4(rows[2], rows[3], _MM_SHUFFLE(1, 0, 1, 0));
    __m512 t2 = _mm512_shuffle_f32x4(rows[0], rows[1], _MM_SHUFFLE(3, 2, 3, 2));
    __m512 t3 = _mm512_shuffle_f32x4(rows[2], rows[3], _MM_SHUFFLE(3, 2, 3, 2));
    rows[0] = _mm512_shuffle_f32x4(t0, t1, _MM_SHUFFLE(2, 0, 2, 0));
    rows[1] = _mm512_shuffle_f32x4(t0, t1, _MM_SHUFFLE(3, 1, 3, 1));
    rows[2] = _mm512_shuffle_f32x4(t2, t3, _MM_SHUFFLE(2, 0, 2, 0));
    rows[3] = _mm512_shuffle_f32x4(t2, t3, _MM_SHUFFLE(3, 1, 3, 1));
}

/* palette_joint for joints i..i+3 at once, one in each 128-bit lane, step for step: the four inverse binds
 * are read whole and turned into their columns side by side, and the four products back into matrices. */
QUAD_TARGET static void palette_joints_quads(const joint_pose *joints, const mat4 *inverse_bind, int count,
                                             mat4 *palette)
{
    const __m512 one_w = _mm512_set_ps(1.0f, 0.0f, 0.0f, 0.0f, 1.0f, 0.0f, 0.0f, 0.0f, 1.0f, 0.0f, 0.0f, 0.0f, 1.0f,
                                       0.0f, 0.0f, 0.0f);
    const __m512 one_x = _mm512_set_ps(0.0f, 0.0f, 0.0f, 1.0f, 0.0f, 0.0f, 0.0f, 1.0f, 0.0f, 0.0f, 0.0f, 1.0f, 0.0f,
                                       0.0f, 0.0f, 1.0f);
    const __m512 one_y = _mm512_set_ps(0.0f, 0.0f, 1.0f, 0.0f, 0.0f, 0.0f, 1.0f, 0.0f, 0.0f, 0.0f, 1.0f, 0.0f, 0.0f,
                                       0.0f, 1.0f, 0.0f);
    const __m512 one_z = _mm512_set_ps(0.0f, 1.0f, 0.0f, 0.0f, 0.0f, 1.0f, 0.0f, 0.0f, 0.0f, 1.0f, 0.0f, 0.0f, 0.0f,
                                       1.0f, 0.0f, 0.0f);
    int i = 0;
    for (; i + 3 < count; i += 4) {
        __m512 q, translation;
        load_joints_quad(&joints[i], &q, &translation);
        translation = _mm512_add_ps(translation, one_w);
        __m512 column_x, column_y, column_z;
        ROTATION_COLUMNS(__m512, _mm512_mul_ps, _mm512_add_ps, _mm512_sub_ps, LANES_QUADS, flip_signs_quads, q,
                         one_x, one_y, one_z, column_x, column_y, column_z);
        __m512 columns[4];
        for (int k = 0; k < 4; ++k)
            columns[k] = _mm512_loadu_ps(inverse_bind[i + k]);
        transpose_lanes_quads(columns);
        for (int c = 0; c < 4; ++c) {
            __m512 bc = columns[c];
            __m512 column = _mm512_mul_ps(column_x, LANES_QUADS(bc, 0, 0, 0, 0));
            column = _mm512_add_ps(column, _mm512_mul_ps(column_y, LANES_QUADS(bc, 1, 1, 1, 1)));
            column = _mm512_add_ps(column, _mm512_mul_ps(column_z, LANES_QUADS(bc, 2, 2, 2, 2)));
            if (c == 3)
                column = _mm512_add_ps(column, translation);
            columns[c] = column;
        }
        transpose_lanes_quads(columns);
        for (int k = 0; k < 4; ++k)
            _mm512_storeu_ps(palette[i + k], columns[k]);
    }
    if (i < count)
        palette_joints_pairs(joints + i, inverse_bind + i, count - i, palette + i);
}

/* dual_quaternion_joint for joints i..i+3 at once, one in each 128-bit lane, step for step; a dual quaternion
 * is laid out as a joint (two 16-byte lanes), so it goes back as the joints came. */
_Static_assert(sizeof(pose_dual_quaternion) == sizeof(joint_pose), "a dual quaternion has a joint's two lanes");
QUAD_TARGET static void dual_quaternion_joints_quads(const joint_pose *joints, const joint_pose *bind, int count,
                                                     pose_dual_quaternion *out)
{
    int i = 0;
    for (; i + 3 < count; i += 4) {
        __m512 bind_rotation, bind_position, rotation, position;
        load_joints_quad(&bind[i], &bind_rotation, &bind_position);
        load_joints_quad(&joints[i], &rotation, &position);
        bind_rotation = flip_signs_quads(bind_rotation, -0.0f, -0.0f, -0.0f, 0.0f);
        __m512 real = multiply_rotations_quads(rotation, bind_rotation);
        __m512 t = cross_quads(real, bind_position);
        t = _mm512_add_ps(t, t);
        __m512 turned = _mm512_add_ps(bind_position, _mm512_mul_ps(LANES_QUADS(real, 3, 3, 3, 3), t));
        turned = _mm512_add_ps(turned, cross_quads(real, t));
        __m512 translation = _mm512_sub_ps(position, turned);
        __m512 dual = _mm512_mul_ps(_mm512_set1_ps(0.5f), multiply_rotations_quads(translation, real));
        store_joints_quad(&out[i], real, dual);
    }
    if (i < count)
        dual_quaternion_joints_pairs(joints + i, bind + i, count - i, out + i);
}
#endif

#endif /* POSE_USE_SSE2 */

/* ---- palette ---- */

POSE_STAGE bool pose_palette(const joint_pose *object, const mat4 *inverse_bind, int joint_count, mat4 *palette)
{
    if (!object || !inverse_bind || !palette || joint_count <= 0)
        return false;
#ifdef POSE_PAIRS
    if (joint_count > 3 && pose_has_quads()) {
        palette_joints_quads(object, inverse_bind, joint_count, palette);
        return true;
    }
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
    if (joint_count > 3 && pose_has_quads()) {
        dual_quaternion_joints_quads(object, bind_object, joint_count, out);
        return true;
    }
    if (pose_has_pairs()) {
        dual_quaternion_joints_pairs(object, bind_object, joint_count, out);
        return true;
    }
#endif
    for (int i = 0; i < joint_count; ++i)
        dual_quaternion_joint(&object[i], &bind_object[i], &out[i]);
    return true;
}
