#include "quat.h"

#include <math.h>

/* |xyz|^2 above 1 by more than rounding in 6-decimal files (about 1e-6) means the exporter wrote a
 * non-unit quaternion; a little slack keeps real files quiet. */
#define QUAT_XYZ_SLACK 1e-3f

bool quat_from_xyz(float x, float y, float z, float out[4])
{
    float length2 = x * x + y * y + z * z;
    if (!isfinite(length2)) {
        out[0] = out[1] = out[2] = 0.0f;
        out[3] = 1.0f;
        return false;
    }
    if (length2 > 1.0f) {
        float inverse = 1.0f / sqrtf(length2);
        out[0] = x * inverse;
        out[1] = y * inverse;
        out[2] = z * inverse;
        out[3] = 0.0f;
        return length2 <= 1.0f + QUAT_XYZ_SLACK;
    }
    out[0] = x;
    out[1] = y;
    out[2] = z;
    out[3] = -sqrtf(1.0f - length2);
    return true;
}

void quat_normalize(float q[4])
{
    float length2 = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3];
    if (!(length2 > 1e-30f) || !isfinite(length2)) {
        q[0] = q[1] = q[2] = 0.0f;
        q[3] = 1.0f;
        return;
    }
    float inverse = 1.0f / sqrtf(length2);
    for (int i = 0; i < 4; ++i)
        q[i] *= inverse;
}

/* Copy q scaled to unit length, so the interpolations below weigh both ends equally whatever their
 * magnitude (non-unit input is a caller's rounding, not a request for a bias towards one end). */
static void unit_copy(const float q[4], float out[4])
{
    for (int i = 0; i < 4; ++i)
        out[i] = q[i];
    quat_normalize(out);
}

static float dot4(const float a[4], const float b[4])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
}

void quat_nlerp(const float a[4], const float b[4], float t, float out[4])
{
    float ua[4], ub[4];
    unit_copy(a, ua);
    unit_copy(b, ub);
    /* Shortest arc: q and -q are the same rotation, so go towards whichever of b, -b is nearer a. With
     * that sign the sum cannot cancel: |(1-t)a + tb|^2 >= 1/2 for unit a, b and t in [0, 1]. */
    float tb = dot4(ua, ub) < 0.0f ? -t : t;
    float ta = 1.0f - t;
    for (int i = 0; i < 4; ++i)
        out[i] = ta * ua[i] + tb * ub[i];
    quat_normalize(out);
}

void quat_slerp(const float a[4], const float b[4], float t, float out[4])
{
    float ua[4], ub[4];
    unit_copy(a, ua);
    unit_copy(b, ub);
    float dot = dot4(ua, ub);
    float sign = 1.0f;
    if (dot < 0.0f) {
        dot = -dot;
        sign = -1.0f;
    }
    /* Near dot = 1 the angle is tiny and sin(angle) loses all precision. Above 0.9995 (half-angles under
     * 0.032 radians) nlerp strays from slerp's constant speed by at most 5e-7 radians: use it there. */
    if (dot > 0.9995f) {
        quat_nlerp(ua, ub, t, out);
        return;
    }
    float angle = acosf(dot);
    float inverse_sin = 1.0f / sinf(angle);
    float wa = sinf((1.0f - t) * angle) * inverse_sin;
    float wb = sign * sinf(t * angle) * inverse_sin;
    for (int i = 0; i < 4; ++i)
        out[i] = wa * ua[i] + wb * ub[i];
    quat_normalize(out);
}
