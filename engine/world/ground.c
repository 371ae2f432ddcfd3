#include "ground.h"

#include <math.h>
#include <stddef.h>

#define GROUND_SLOPE_MAX_DEGREES 60.0f

static ground_sample slope_at(const ground *ground, float x, float z)
{
    float degrees = ground->slope_degrees;
    degrees = degrees > 0.0f ? (degrees < GROUND_SLOPE_MAX_DEGREES ? degrees : GROUND_SLOPE_MAX_DEGREES) : 0.0f;
    float ux = ground->uphill[0], uz = ground->uphill[1];
    float length = sqrtf(ux * ux + uz * uz);
    if (!(length > 0.0f) || !isfinite(length)) {
        ux = 1.0f;
        uz = 0.0f;
    } else {
        ux /= length;
        uz /= length;
    }
    float gradient = tanf(degrees * 3.14159265358979f / 180.0f);
    /* height = gradient * (u . p); the normal is (-dh/dx, 1, -dh/dz) made unit. */
    float nx = -gradient * ux, nz = -gradient * uz, scale = 1.0f / sqrtf(1.0f + gradient * gradient);
    return (ground_sample){.height = gradient * (ux * x + uz * z), .normal = {nx * scale, scale, nz * scale}};
}

ground_sample ground_at(const ground *ground, float x, float z)
{
    ground_sample flat = {.height = 0.0f, .normal = {0.0f, 1.0f, 0.0f}};
    if (!ground)
        return flat;
    switch (ground->kind) {
    case GROUND_SLOPE:
        return slope_at(ground, x, z);
    case GROUND_FLAT:
    case GROUND_KIND_COUNT:
        break;
    }
    return flat;
}
