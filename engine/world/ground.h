/* ground: the surface characters stand on, as a query: its height and its normal under a point of the
 * horizontal plane. The game (movers, camera), the animation (foot IK) and the drawing each ask it, so the
 * animation never knows how the ground is drawn and the drawing never knows who stands on it.
 * World space is GL's: Y up, metres; a point on the plane is (x, z). Pure functions of a small plain
 * struct: knows nothing of files, GL, SDL or entities. */
#ifndef MARIONETTE_GROUND_H
#define MARIONETTE_GROUND_H

#include <stdbool.h>
#include <stdint.h>

typedef enum ground_kind {
    GROUND_FLAT,  /* the plane y = 0 */
    GROUND_SLOPE, /* a plane through the origin rising slope_degrees toward uphill (tests, a ramp's face) */
    GROUND_HILLS, /* rolling hills: a height field, smooth everywhere (see ground_hills) */
    GROUND_STEPS, /* stairs and ramps across x, level floors between them (see ground_steps) */
    GROUND_KIND_COUNT
} ground_kind;

/* GROUND_HILLS: a grid of heights `spacing` apart, each drawn from a hash of its grid point and the seed
 * in [-height, height], joined by a uniform cubic B-spline (smooth: the height, the slope and the bend are
 * continuous), plus a second grid with 0.6 x the spacing and 0.2 x the height for smaller bumps. Heights lie
 * within 1.2 x height of y = 0. The steepest slope is at most GROUND_HILLS_MAX_DEGREES: a height too
 * tall for its spacing is lowered to keep it so. A field, not a table: nothing is stored, the same
 * settings give the same hills anywhere. Zero reads as the default. */
typedef struct ground_hills {
    float height;  /* metres, 0.05 to 4 (default 2.4) */
    float spacing; /* metres between grid points, 4 to 50 (default 10) */
    uint32_t seed; /* any (default 0: the shipped hills) */
} ground_hills;

/* GROUND_STEPS: a course across x, the same for every z and repeated every ground_steps_period metres:
 * a level floor (y = 0) `landing` long, a stair of `count` steps up (each `rise` high and `run` deep), a
 * landing on top (count * rise high), a ramp down at ramp_degrees, a floor, a ramp up, a landing, a stair
 * down, and so on. The origin is in the middle of a floor, the first stair up starts landing / 2 further
 * along +x. Zero reads as the default; other values are held within the ranges. */
typedef struct ground_steps {
    float rise;         /* metres, 0.02 to 0.25 (default 0.15) */
    float run;          /* metres, 0.2 to 1 (default 0.35) */
    int count;          /* steps in each stair, 1 to 12 (default 6) */
    float ramp_degrees; /* 5 to 30 (default 20) */
    float landing;      /* metres of level floor between the stairs and ramps, 1 to 20 (default 3) */
} ground_steps;

#define GROUND_HILLS_MAX_DEGREES 30.0f

typedef struct ground {
    ground_kind kind;
    float slope_degrees; /* GROUND_SLOPE: 0 to 60 (ground_at clamps) */
    float uphill[2];     /* GROUND_SLOPE: the direction (x, z) it rises toward; need not be unit, (0, 0) is +x */
    ground_hills hills;  /* GROUND_HILLS */
    ground_steps steps;  /* GROUND_STEPS */
} ground;

typedef struct ground_sample {
    float height;    /* y of the surface under (x, z) */
    float normal[3]; /* unit, pointing up (normal[1] > 0) */
} ground_sample;

/* ground_at for the kinds that are not flat (flat or NULL: the plane, as ground_at answers it). */
ground_sample ground_at_shaped(const ground *ground, float x, float z);

/* The surface under (x, z). Defined for every finite point (a coordinate beyond 1e6 m reads as 1e6 m);
 * a NULL ground is flat. Across a stair's riser the height jumps by the rise: exactly on it, the step
 * on its +x side is returned. Flat ground is answered here, without a call: the foot lock asks two or
 * three times for each planted foot of a crowd's every member and step. */
static inline ground_sample ground_at(const ground *ground, float x, float z)
{
    if (!ground || ground->kind == GROUND_FLAT)
        return (ground_sample){.height = 0.0f, .normal = {0.0f, 1.0f, 0.0f}};
    return ground_at_shaped(ground, x, z);
}

/* Where the surface's height or slope changes abruptly along an axis (0: x, 1: z), for a mesh that must
 * put its vertices there: the coordinates in [from, to], ascending, of every riser and every ramp's foot
 * and top. Writes at most capacity of them into out (may be NULL with capacity 0) and returns how many
 * there are. 0 for the smooth kinds (flat, slope, hills), and for GROUND_STEPS along z. */
int ground_breaks(const ground *ground, int axis, float from, float to, float *out, int capacity);

/* Whether the surface is flat planes between its breaks (flat, slope, steps): a mesh then needs vertices
 * at the breaks alone; false for the hills, which bend everywhere. */
bool ground_planar_between_breaks(const ground *ground);

/* The lowest and highest heights the ground reaches within [-extent, extent] on both axes (a bound:
 * the hills' is their 1.2 x height). */
void ground_height_range(const ground *ground, float extent, float *low, float *high);

/* The settings ground_at uses: the zeros replaced by their defaults, the rest held in their ranges. */
ground_hills ground_hills_used(const ground_hills *hills);
ground_steps ground_steps_used(const ground_steps *steps);
/* The length of one repeat of the steps' course, metres. */
float ground_steps_period(const ground_steps *steps);

/* "flat", "slope", "hills", "steps"; NULL for a kind out of range. */
const char *ground_kind_name(ground_kind kind);
/* The kind of a name ground_kind_name gives; GROUND_KIND_COUNT for any other text. */
ground_kind ground_kind_from_name(const char *name);

#endif
