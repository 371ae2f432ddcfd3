/* ground: the surface characters stand on, as a query: its height and its normal under a point of the
 * horizontal plane. The game (movers, camera), the animation (foot IK) and the drawing each ask it, so the
 * animation never knows how the ground is drawn and the drawing never knows who stands on it.
 * World space is GL's: Y up, metres; a point on the plane is (x, z). Pure functions of a small plain
 * struct: knows nothing of files, GL, SDL or entities. */
#ifndef MARIONETTE_GROUND_H
#define MARIONETTE_GROUND_H

typedef enum ground_kind {
    GROUND_FLAT,  /* the plane y = 0 */
    GROUND_SLOPE, /* a plane through the origin rising slope_degrees toward uphill (tests, a ramp's face) */
    GROUND_KIND_COUNT
} ground_kind;

typedef struct ground {
    ground_kind kind;
    float slope_degrees; /* GROUND_SLOPE: 0 to 60 (ground_at clamps) */
    float uphill[2];     /* GROUND_SLOPE: the direction (x, z) it rises toward; need not be unit, (0, 0) is +x */
} ground;

typedef struct ground_sample {
    float height;    /* y of the surface under (x, z) */
    float normal[3]; /* unit, pointing up (normal[1] > 0) */
} ground_sample;

/* The surface under (x, z). Defined for every finite point; a NULL ground is flat. */
ground_sample ground_at(const ground *ground, float x, float z);

#endif
