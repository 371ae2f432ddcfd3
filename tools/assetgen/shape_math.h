/* shape_math: the double-precision vectors, rotations and easing curves the generators shape bodies and
 * clips with. Plain functions with a fixed order of operations, so every build that rounds IEEE doubles
 * the same way writes the same bytes (cglm is single precision, which is why assetgen does not use it).
 * Knows nothing of the rig, meshes or clips. Vectors are double[3]; rotations are unit quaternions
 * double[4] in x, y, z, w order like cglm's versor; outputs come last and may alias the inputs. */
#ifndef MARIONETTE_ASSETGEN_SHAPE_MATH_H
#define MARIONETTE_ASSETGEN_SHAPE_MATH_H

#define SHAPE_PI 3.14159265358979323846

extern const double shape_axis_x[3];
extern const double shape_axis_y[3];
extern const double shape_axis_z[3];
extern const double shape_rotation_identity[4];

double shape_dot(const double a[3], const double b[3]);
void shape_cross(const double a[3], const double b[3], double out[3]);

/* out = a + scale * b. */
void shape_add_scaled(const double a[3], const double b[3], double scale, double out[3]);

double shape_length(const double v[3]);

/* Unit vector along v; `fallback` when v is (nearly) zero. */
void shape_normalize(const double v[3], const double fallback[3], double out[3]);

/* Rotation by `angle` radians about the unit vector axis (right-handed). */
void shape_rotation_about(const double axis[3], double angle, double out[4]);

/* out = a * b: b applied first, then a. */
void shape_rotation_multiply(const double a[4], const double b[4], double out[4]);

void shape_rotation_inverse(const double q[4], double out[4]);

/* v rotated by the unit quaternion q. */
void shape_rotation_apply(const double q[4], const double v[3], double out[3]);

/* Quaternion of the rotation matrix whose columns are the images of the x, y and z axes. */
void shape_rotation_from_columns(const double x[3], const double y[3], const double z[3], double out[4]);

/* An orthonormal frame from a direction and a second vector roughly across it (Gram-Schmidt):
 * frame[0] along direction, frame[1] the part of `across` that is across it, frame[2] their cross. */
void shape_frame_from(const double direction[3], const double across[3], double frame[3][3]);

/* The rotation that takes from_direction to to_direction and from_across (as far as it is across the
 * direction) to to_across: how a bone is aimed without leaving its twist to chance. */
void shape_rotation_between_frames(const double from_direction[3], const double from_across[3],
                                   const double to_direction[3], const double to_across[3], double out[4]);

double shape_clamp01(double x);

/* 0 up to edge0, 1 from edge1 on, a cubic with flat ends in between. */
double shape_smoothstep(double edge0, double edge1, double x);

#endif
