#include "ground.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

#define GROUND_SLOPE_MAX_DEGREES 60.0f
#define GROUND_PI 3.14159265358979f
/* Points farther out are held here: beyond it a float's steps (6 cm) are coarser than a stair's tread. */
#define GROUND_EXTENT_MAX 1e6f

/* The hills' second, finer grid: its spacing and its height against the first's. */
#define GROUND_HILLS_FINE_SPACING 0.6f
#define GROUND_HILLS_FINE_HEIGHT 0.2f

static float clamp_or_default(float value, float minimum, float maximum, float fallback)
{
    if (value == 0.0f || !isfinite(value))
        return fallback;
    return value < minimum ? minimum : value > maximum ? maximum : value;
}

static float held(float coordinate)
{
    if (!isfinite(coordinate))
        return 0.0f;
    return coordinate < -GROUND_EXTENT_MAX ? -GROUND_EXTENT_MAX
                                           : coordinate > GROUND_EXTENT_MAX ? GROUND_EXTENT_MAX : coordinate;
}

/* The sample of a surface whose height changes by (dx, dz) per metre along x and z: the normal is
 * (-dh/dx, 1, -dh/dz) made unit. */
static ground_sample sample_of(float height, float dx, float dz)
{
    float scale = 1.0f / sqrtf(1.0f + dx * dx + dz * dz);
    return (ground_sample){.height = height, .normal = {-dx * scale, scale, -dz * scale}};
}

/* ---- Slope ---------------------------------------------------------------------------------------------- */

static void slope_direction(const ground *ground, float *ux, float *uz, float *gradient)
{
    float degrees = ground->slope_degrees;
    degrees = degrees > 0.0f ? (degrees < GROUND_SLOPE_MAX_DEGREES ? degrees : GROUND_SLOPE_MAX_DEGREES) : 0.0f;
    *ux = ground->uphill[0];
    *uz = ground->uphill[1];
    float length = sqrtf(*ux * *ux + *uz * *uz);
    if (!(length > 0.0f) || !isfinite(length)) {
        *ux = 1.0f;
        *uz = 0.0f;
    } else {
        *ux /= length;
        *uz /= length;
    }
    *gradient = tanf(degrees * GROUND_PI / 180.0f);
}

static ground_sample slope_at(const ground *ground, float x, float z)
{
    float ux, uz, gradient;
    slope_direction(ground, &ux, &uz, &gradient);
    return sample_of(gradient * (ux * x + uz * z), gradient * ux, gradient * uz);
}

/* ---- Hills ---------------------------------------------------------------------------------------------- */

/* The steepest slope grids of heights in [-height, height] can give, per (height / spacing): a uniform
 * cubic B-spline's slope is its four derivative weights times the heights, and their absolute sum,
 * 1 + 2t - 2t^2, is at most 1.5 (mid-cell); across the axes it is no more (checked numerically over every
 * direction: the largest is along an axis). The two grids add. */
static float hills_slope_per_height(void)
{
    return 1.5f * (1.0f + GROUND_HILLS_FINE_HEIGHT / GROUND_HILLS_FINE_SPACING);
}

ground_hills ground_hills_used(const ground_hills *hills)
{
    ground_hills used = {
        .height = clamp_or_default(hills ? hills->height : 0.0f, 0.05f, 4.0f, 2.4f),
        .spacing = clamp_or_default(hills ? hills->spacing : 0.0f, 4.0f, 50.0f, 10.0f),
        .seed = hills ? hills->seed : 0u,
    };
    float tallest = tanf(GROUND_HILLS_MAX_DEGREES * GROUND_PI / 180.0f) * used.spacing / hills_slope_per_height();
    if (used.height > tallest)
        used.height = tallest;
    return used;
}

/* A grid point's height in [-1, 1]: a hash of its coordinates, the seed and the grid. */
static float grid_value(int32_t i, int32_t j, uint32_t seed, uint32_t grid)
{
    uint32_t h = (uint32_t)i * 0x85EBCA6Bu ^ (uint32_t)j * 0xC2B2AE35u ^ (seed + grid * 0x9E3779B9u) * 0x27D4EB2Fu;
    h ^= h >> 16;
    h *= 0x7FEB352Du;
    h ^= h >> 15;
    h *= 0x846CA68Bu;
    h ^= h >> 16;
    return (float)(h >> 8) * (2.0f / 16777215.0f) - 1.0f;
}

/* The uniform cubic B-spline's four weights at t in [0, 1) and their derivatives. */
static void spline_weights(float t, float weight[4], float slope[4])
{
    float s = 1.0f - t, t2 = t * t, t3 = t2 * t;
    weight[0] = s * s * s / 6.0f;
    weight[1] = (3.0f * t3 - 6.0f * t2 + 4.0f) / 6.0f;
    weight[2] = (-3.0f * t3 + 3.0f * t2 + 3.0f * t + 1.0f) / 6.0f;
    weight[3] = t3 / 6.0f;
    slope[0] = -s * s / 2.0f;
    slope[1] = (3.0f * t2 - 4.0f * t) / 2.0f;
    slope[2] = (-3.0f * t2 + 2.0f * t + 1.0f) / 2.0f;
    slope[3] = t2 / 2.0f;
}

/* One grid's height and its slopes along x and z at (x, z), for heights in [-height, height]. */
static void grid_add(float x, float z, float spacing, float height, uint32_t seed, uint32_t grid, float *h,
                     float *dx, float *dz)
{
    float gx = x / spacing, gz = z / spacing;
    float cell_x = floorf(gx), cell_z = floorf(gz);
    float wx[4], sx[4], wz[4], sz[4];
    spline_weights(gx - cell_x, wx, sx);
    spline_weights(gz - cell_z, wz, sz);
    int32_t i0 = (int32_t)cell_x - 1, j0 = (int32_t)cell_z - 1;
    float value = 0.0f, along_x = 0.0f, along_z = 0.0f;
    for (int b = 0; b < 4; ++b)
        for (int a = 0; a < 4; ++a) {
            float v = grid_value(i0 + a, j0 + b, seed, grid);
            value += wx[a] * wz[b] * v;
            along_x += sx[a] * wz[b] * v;
            along_z += wx[a] * sz[b] * v;
        }
    *h += height * value;
    *dx += height * along_x / spacing;
    *dz += height * along_z / spacing;
}

static ground_sample hills_at(const ground *ground, float x, float z)
{
    ground_hills hills = ground_hills_used(&ground->hills);
    float h = 0.0f, dx = 0.0f, dz = 0.0f;
    grid_add(x, z, hills.spacing, hills.height, hills.seed, 0u, &h, &dx, &dz);
    grid_add(x, z, hills.spacing * GROUND_HILLS_FINE_SPACING, hills.height * GROUND_HILLS_FINE_HEIGHT, hills.seed,
             1u, &h, &dx, &dz);
    return sample_of(h, dx, dz);
}

/* ---- Steps ---------------------------------------------------------------------------------------------- */

ground_steps ground_steps_used(const ground_steps *steps)
{
    int count = steps ? steps->count : 0;
    return (ground_steps){
        .rise = clamp_or_default(steps ? steps->rise : 0.0f, 0.02f, 0.25f, 0.15f),
        .run = clamp_or_default(steps ? steps->run : 0.0f, 0.2f, 1.0f, 0.35f),
        .count = count == 0 ? 6 : count < 1 ? 1 : count > 12 ? 12 : count,
        .ramp_degrees = clamp_or_default(steps ? steps->ramp_degrees : 0.0f, 5.0f, 30.0f, 20.0f),
        .landing = clamp_or_default(steps ? steps->landing : 0.0f, 1.0f, 20.0f, 3.0f),
    };
}

/* One repeat of the course, from the start of a floor: where each part starts (metres along it), the
 * landing's height and the ramps' length. */
typedef struct steps_course {
    ground_steps used;
    float top;            /* count * rise */
    float ramp_length;    /* top / tan(ramp) */
    float ramp_gradient;  /* tan(ramp) */
    float stair_up, landing_up, ramp_down, floor, ramp_up, landing_down, stair_down, period;
} steps_course;

static steps_course course_of(const ground_steps *steps)
{
    steps_course c = {.used = ground_steps_used(steps)};
    const ground_steps *u = &c.used;
    c.top = (float)u->count * u->rise;
    c.ramp_gradient = tanf(u->ramp_degrees * GROUND_PI / 180.0f);
    c.ramp_length = c.top / c.ramp_gradient;
    float stair = (float)u->count * u->run;
    c.stair_up = u->landing;
    c.landing_up = c.stair_up + stair;
    c.ramp_down = c.landing_up + u->landing;
    c.floor = c.ramp_down + c.ramp_length;
    c.ramp_up = c.floor + u->landing;
    c.landing_down = c.ramp_up + c.ramp_length;
    c.stair_down = c.landing_down + u->landing;
    c.period = c.stair_down + stair;
    return c;
}

float ground_steps_period(const ground_steps *steps)
{
    return course_of(steps).period;
}

/* Where x lies along the course (0 at the start of a floor): the origin is in the middle of a floor. */
static double course_offset(const steps_course *c)
{
    return 0.5 * (double)c->used.landing;
}

static ground_sample steps_at(const ground *ground, float x)
{
    steps_course c = course_of(&ground->steps);
    double along = fmod((double)x + course_offset(&c), (double)c.period);
    if (along < 0.0)
        along += (double)c.period;
    float u = (float)along;
    const ground_steps *s = &c.used;
    if (u < c.stair_up)
        return sample_of(0.0f, 0.0f, 0.0f);
    if (u < c.landing_up) {
        int step = (int)floorf((u - c.stair_up) / s->run);
        step = step < 0 ? 0 : step >= s->count ? s->count - 1 : step;
        return sample_of((float)(step + 1) * s->rise, 0.0f, 0.0f);
    }
    if (u < c.ramp_down)
        return sample_of(c.top, 0.0f, 0.0f);
    if (u < c.floor)
        return sample_of(fmaxf(c.top - (u - c.ramp_down) * c.ramp_gradient, 0.0f), -c.ramp_gradient, 0.0f);
    if (u < c.ramp_up)
        return sample_of(0.0f, 0.0f, 0.0f);
    if (u < c.landing_down)
        return sample_of(fminf((u - c.ramp_up) * c.ramp_gradient, c.top), c.ramp_gradient, 0.0f);
    if (u < c.stair_down)
        return sample_of(c.top, 0.0f, 0.0f);
    int step = (int)floorf((u - c.stair_down) / s->run);
    step = step < 0 ? 0 : step >= s->count ? s->count - 1 : step;
    return sample_of(c.top - (float)(step + 1) * s->rise, 0.0f, 0.0f);
}

/* The breaks of one repeat, ascending, from the start of a floor; returns how many (at most 2 * 12 + 4). */
static int course_breaks(const steps_course *c, float out[28])
{
    int n = 0;
    for (int k = 0; k < c->used.count; ++k)
        out[n++] = c->stair_up + (float)k * c->used.run;
    out[n++] = c->ramp_down;
    out[n++] = c->floor;
    out[n++] = c->ramp_up;
    out[n++] = c->landing_down;
    for (int k = 0; k < c->used.count; ++k)
        out[n++] = c->stair_down + (float)k * c->used.run;
    return n;
}

int ground_breaks(const ground *ground, int axis, float from, float to, float *out, int capacity)
{
    if (!ground || ground->kind != GROUND_STEPS || axis != 0 || !(from <= to))
        return 0;
    from = held(from);
    to = held(to);
    steps_course c = course_of(&ground->steps);
    float offsets[28];
    int per_period = course_breaks(&c, offsets);
    double offset = course_offset(&c), period = (double)c.period;
    long long first = (long long)floor(((double)from + offset) / period) - 1;
    long long last = (long long)floor(((double)to + offset) / period) + 1;
    int found = 0;
    for (long long repeat = first; repeat <= last; ++repeat)
        for (int k = 0; k < per_period; ++k) {
            double at = (double)repeat * period + (double)offsets[k] - offset;
            if (at < (double)from || at > (double)to)
                continue;
            if (out && found < capacity)
                out[found] = (float)at;
            ++found;
        }
    return found;
}

/* ---- The query ------------------------------------------------------------------------------------------ */

ground_sample ground_at_shaped(const ground *ground, float x, float z)
{
    ground_sample flat = {.height = 0.0f, .normal = {0.0f, 1.0f, 0.0f}};
    if (!ground)
        return flat;
    switch (ground->kind) {
    case GROUND_SLOPE:
        return slope_at(ground, x, z);
    case GROUND_HILLS:
        return hills_at(ground, held(x), held(z));
    case GROUND_STEPS:
        return steps_at(ground, held(x));
    case GROUND_FLAT:
    case GROUND_KIND_COUNT:
        break;
    }
    return flat;
}

bool ground_planar_between_breaks(const ground *ground)
{
    return !ground || ground->kind != GROUND_HILLS;
}

void ground_height_range(const ground *ground, float extent, float *low, float *high)
{
    *low = *high = 0.0f;
    if (!ground)
        return;
    extent = fabsf(held(extent));
    switch (ground->kind) {
    case GROUND_SLOPE: {
        float ux, uz, gradient;
        slope_direction(ground, &ux, &uz, &gradient);
        *high = gradient * extent * (fabsf(ux) + fabsf(uz));
        *low = -*high;
        break;
    }
    case GROUND_HILLS: {
        ground_hills used = ground_hills_used(&ground->hills);
        *high = used.height * (1.0f + GROUND_HILLS_FINE_HEIGHT);
        *low = -*high;
        break;
    }
    case GROUND_STEPS:
        *high = course_of(&ground->steps).top;
        break;
    case GROUND_FLAT:
    case GROUND_KIND_COUNT:
        break;
    }
}

static const char *const ground_kind_names[GROUND_KIND_COUNT] = {
    [GROUND_FLAT] = "flat", [GROUND_SLOPE] = "slope", [GROUND_HILLS] = "hills", [GROUND_STEPS] = "steps"};

const char *ground_kind_name(ground_kind kind)
{
    return (int)kind >= 0 && kind < GROUND_KIND_COUNT ? ground_kind_names[kind] : NULL;
}

ground_kind ground_kind_from_name(const char *name)
{
    for (int k = 0; name && k < GROUND_KIND_COUNT; ++k)
        if (strcmp(name, ground_kind_names[k]) == 0)
            return (ground_kind)k;
    return GROUND_KIND_COUNT;
}
