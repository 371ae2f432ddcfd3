#include "shape_math.h"

#include <math.h>

const double shape_axis_x[3] = {1.0, 0.0, 0.0};
const double shape_axis_y[3] = {0.0, 1.0, 0.0};
const double shape_axis_z[3] = {0.0, 0.0, 1.0};
const double shape_rotation_identity[4] = {0.0, 0.0, 0.0, 1.0};

double shape_dot(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

void shape_cross(const double a[3], const double b[3], double out[3])
{
    double x = a[1] * b[2] - a[2] * b[1];
    double y = a[2] * b[0] - a[0] * b[2];
    double z = a[0] * b[1] - a[1] * b[0];
    out[0] = x;
    out[1] = y;
    out[2] = z;
}

void shape_add_scaled(const double a[3], const double b[3], double scale, double out[3])
{
    for (int k = 0; k < 3; ++k)
        out[k] = a[k] + scale * b[k];
}

double shape_length(const double v[3])
{
    return sqrt(shape_dot(v, v));
}

void shape_normalize(const double v[3], const double fallback[3], double out[3])
{
    double length = shape_length(v);
    for (int k = 0; k < 3; ++k)
        out[k] = length > 1e-12 ? v[k] / length : fallback[k];
}

void shape_rotation_about(const double axis[3], double angle, double out[4])
{
    double s = sin(0.5 * angle);
    out[0] = axis[0] * s;
    out[1] = axis[1] * s;
    out[2] = axis[2] * s;
    out[3] = cos(0.5 * angle);
}

void shape_rotation_multiply(const double a[4], const double b[4], double out[4])
{
    double x = a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1];
    double y = a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0];
    double z = a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3];
    double w = a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2];
    out[0] = x;
    out[1] = y;
    out[2] = z;
    out[3] = w;
}

void shape_rotation_inverse(const double q[4], double out[4])
{
    out[0] = -q[0];
    out[1] = -q[1];
    out[2] = -q[2];
    out[3] = q[3];
}

/* v + 2w (u x v) + 2 u x (u x v), u = q.xyz: cheaper than building the matrix. */
void shape_rotation_apply(const double q[4], const double v[3], double out[3])
{
    double u_cross_v[3], twice[3];
    shape_cross(q, v, u_cross_v);
    for (int k = 0; k < 3; ++k)
        twice[k] = 2.0 * u_cross_v[k];
    double u_cross_twice[3];
    shape_cross(q, twice, u_cross_twice);
    for (int k = 0; k < 3; ++k)
        out[k] = v[k] + q[3] * twice[k] + u_cross_twice[k];
}

/* Shepperd's method: divide by the largest of the four possible pivots so no case loses precision. */
void shape_rotation_from_columns(const double x[3], const double y[3], const double z[3], double out[4])
{
    double trace = x[0] + y[1] + z[2];
    if (trace > 0.0) {
        double s = 2.0 * sqrt(1.0 + trace);
        out[3] = 0.25 * s;
        out[0] = (y[2] - z[1]) / s;
        out[1] = (z[0] - x[2]) / s;
        out[2] = (x[1] - y[0]) / s;
    } else if (x[0] > y[1] && x[0] > z[2]) {
        double s = 2.0 * sqrt(1.0 + x[0] - y[1] - z[2]);
        out[3] = (y[2] - z[1]) / s;
        out[0] = 0.25 * s;
        out[1] = (y[0] + x[1]) / s;
        out[2] = (z[0] + x[2]) / s;
    } else if (y[1] > z[2]) {
        double s = 2.0 * sqrt(1.0 + y[1] - x[0] - z[2]);
        out[3] = (z[0] - x[2]) / s;
        out[0] = (y[0] + x[1]) / s;
        out[1] = 0.25 * s;
        out[2] = (z[1] + y[2]) / s;
    } else {
        double s = 2.0 * sqrt(1.0 + z[2] - x[0] - y[1]);
        out[3] = (x[1] - y[0]) / s;
        out[0] = (z[0] + x[2]) / s;
        out[1] = (z[1] + y[2]) / s;
        out[2] = 0.25 * s;
    }
}

void shape_frame_from(const double direction[3], const double across[3], double frame[3][3])
{
    shape_normalize(direction, shape_axis_z, frame[0]);
    double side[3];
    shape_add_scaled(across, frame[0], -shape_dot(across, frame[0]), side);
    double fallback[3];
    shape_cross(frame[0], fabs(frame[0][2]) < 0.9 ? shape_axis_z : shape_axis_x, fallback);
    shape_normalize(side, fallback, frame[1]);
    shape_cross(frame[0], frame[1], frame[2]);
}

void shape_rotation_between_frames(const double from_direction[3], const double from_across[3],
                                   const double to_direction[3], const double to_across[3], double out[4])
{
    double from[3][3], to[3][3], columns[3][3];
    shape_frame_from(from_direction, from_across, from);
    shape_frame_from(to_direction, to_across, to);
    /* columns = to * transpose(from): maps from[i] to to[i]. */
    for (int column = 0; column < 3; ++column)
        for (int row = 0; row < 3; ++row)
            columns[column][row] = to[0][row] * from[0][column] + to[1][row] * from[1][column] +
                                   to[2][row] * from[2][column];
    shape_rotation_from_columns(columns[0], columns[1], columns[2], out);
}

double shape_clamp01(double x)
{
    return x < 0.0 ? 0.0 : x > 1.0 ? 1.0 : x;
}

/* The ends are compared rather than clamped so that edge0 == edge1 is a clean step, not 0 / 0. Inside
 * the edges the ratio cannot leave [0, 1], so this agrees bit for bit with clamping the ratio. */
double shape_smoothstep(double edge0, double edge1, double x)
{
    if (x <= edge0)
        return 0.0;
    if (x >= edge1)
        return 1.0;
    double t = (x - edge0) / (edge1 - edge0);
    return t * t * (3.0 - 2.0 * t);
}
