/* quat: the quaternion helpers cglm does not have in the form animation needs. Interpolation is
 * shortest-arc (q and -q are the same rotation) and never produces NaN: equal, nearly equal and opposite
 * inputs are handled. Knows nothing of files or skeletons. */
#ifndef MARIONETTE_QUAT_H
#define MARIONETTE_QUAT_H

#include <stdbool.h>

/* w from a stored x, y, z: w = -sqrt(1 - x^2 - y^2 - z^2), the radicand clamped at 0 (docs/md5-format.md).
 * If |xyz|^2 exceeds 1 + tolerance the xyz part is renormalized (w = 0) and false is returned so the
 * caller can warn. Output always unit length and finite when the input is finite. */
bool quat_from_xyz(float x, float y, float z, float out[4]);

/* Normalized lerp along the shortest arc: a at t = 0, b at t = 1. */
void quat_nlerp(const float a[4], const float b[4], float t, float out[4]);

/* Spherical lerp along the shortest arc; falls back to nlerp when the angle is too small for sin() to
 * divide by. */
void quat_slerp(const float a[4], const float b[4], float t, float out[4]);

/* Normalize q in place; a zero or non-finite q becomes identity. */
void quat_normalize(float q[4]);

#endif
