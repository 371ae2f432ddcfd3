/* blend_space: see blend_space.h. */
#include "blend_space.h"

#include <math.h>

bool blend_space_1d_valid(const float *positions, int count)
{
    if (!positions || count < 1 || count > BLEND_SPACE_MAX_POINTS)
        return false;
    for (int i = 0; i < count; ++i)
        if (!isfinite(positions[i]) || (i > 0 && !(positions[i] > positions[i - 1])))
            return false;
    return true;
}

void blend_space_1d_weights(const float *positions, int count, float x, float *weights)
{
    /* Each weight written once (zeroing them all first, GCC calls memset: a call per blend and step). */
    int below = 0; /* the neighbours below and above x: below and below + 1, or one end alone */
    float t = 0.0f;
    if (!(x > positions[0])) { /* below the first, or NaN: the first alone */
        below = 0;
    } else if (x >= positions[count - 1]) {
        below = count - 1;
    } else {
        while (x >= positions[below + 1])
            ++below;
        t = (x - positions[below]) / (positions[below + 1] - positions[below]);
    }
    for (int i = 0; i < count; ++i)
        weights[i] = i == below ? 1.0f - t : i == below + 1 ? t : 0.0f;
}

bool blend_space_2d_valid(const float (*points)[2], int count)
{
    if (!points || count < 1 || count > BLEND_SPACE_MAX_POINTS)
        return false;
    for (int i = 0; i < count; ++i) {
        if (!isfinite(points[i][0]) || !isfinite(points[i][1]))
            return false;
        for (int j = 0; j < i; ++j) {
            float dx = points[i][0] - points[j][0], dy = points[i][1] - points[j][1];
            if (dx * dx + dy * dy < 1e-12f)
                return false;
        }
    }
    return true;
}

/* Gradient bands: point i's influence at p is the smallest, over every other point j, of how far p still
 * is from j's side along the line from i to j: 1 at i, 0 on the perpendicular through j (and beyond),
 * clamped to [0, 1]. The influences are normalized to sum to 1. At a sample point every other point's
 * influence is 0 (its band towards that point ends there), so the clip plays alone. */
void blend_space_2d_weights(const float (*points)[2], int count, float x, float y, float *weights)
{
    if (!isfinite(x) || !isfinite(y)) {
        x = points[0][0];
        y = points[0][1];
    }
    double total = 0.0;
    for (int i = 0; i < count; ++i) {
        double influence = 1.0;
        double px = (double)x - points[i][0], py = (double)y - points[i][1];
        for (int j = 0; j < count && influence > 0.0; ++j) {
            if (j == i)
                continue;
            double ex = (double)points[j][0] - points[i][0], ey = (double)points[j][1] - points[i][1];
            double h = 1.0 - (px * ex + py * ey) / (ex * ex + ey * ey);
            influence = h < influence ? h : influence;
        }
        influence = influence > 0.0 ? influence : 0.0;
        weights[i] = (float)influence;
        total += influence;
    }
    /* Outside every band (far beyond the points) no influence is left: the nearest point alone. */
    if (!(total > 1e-12)) {
        int nearest = 0;
        double best = INFINITY;
        for (int i = 0; i < count; ++i) {
            double dx = (double)x - points[i][0], dy = (double)y - points[i][1];
            if (dx * dx + dy * dy < best) {
                best = dx * dx + dy * dy;
                nearest = i;
            }
            weights[i] = 0.0f;
        }
        weights[nearest] = 1.0f;
        return;
    }
    for (int i = 0; i < count; ++i)
        weights[i] = (float)(weights[i] / total);
}
