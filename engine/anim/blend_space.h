/* blend_space: the weights of a blend space's clips at a point of its parameter space, as pure functions of
 * numbers (no clips, no allocation): 1D (clips placed on a line, neighbours blended linearly, the ends held
 * outside) and 2D (clips placed on a plane, gradient band interpolation: Johansen, "Automated
 * Semi-Procedural Animation for Character Locomotion", 2009, the scheme behind Unity's freeform cartesian
 * blend). Weights are >= 0, sum to 1, are continuous in the point, and give a sample point's clip alone
 * at that point. Issue 19's state-machine blend spaces are built on these.
 * Knows nothing of clips, the controller or config files. */
#ifndef MARIONETTE_BLEND_SPACE_H
#define MARIONETTE_BLEND_SPACE_H

#include <stdbool.h>

enum { BLEND_SPACE_MAX_POINTS = 16 };

/* 1D: positions sorted increasing, distinct, count 1..BLEND_SPACE_MAX_POINTS (blend_space_1d_valid says
 * whether they are). At x: the two neighbours around it, linearly; beyond either end, that end alone. */
bool blend_space_1d_valid(const float *positions, int count);
void blend_space_1d_weights(const float *positions, int count, float x, float *weights);

/* 2D: count points (x, y), 1..BLEND_SPACE_MAX_POINTS, no two closer than 1e-6 (blend_space_2d_valid). */
bool blend_space_2d_valid(const float (*points)[2], int count);
void blend_space_2d_weights(const float (*points)[2], int count, float x, float y, float *weights);

#endif
