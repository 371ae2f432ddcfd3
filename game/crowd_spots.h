/* crowd_spots: where a spawn puts its members. The free spots of a square spiral around a centre, each at
 * least `spacing` from every spot already taken, found through a grid of cells `spacing` wide (a spot
 * closer than spacing to a candidate lies in the 3 x 3 cells around it), so a test looks at a handful of
 * spots however large the crowd. Used by crowd_spawn (crowd.c); knows nothing of members or animation. */
#ifndef MARIONETTE_GAME_CROWD_SPOTS_H
#define MARIONETTE_GAME_CROWD_SPOTS_H

#include <stdbool.h>

/* The spots already taken (living members' homes, the center, spots chosen in this spawn), bucketed by a
 * grid of cells `spacing` wide: a spot closer than spacing to a candidate lies in the 3 x 3 cells around
 * the candidate's, so each test looks at a handful of spots however large the crowd. Built per spawn. */
typedef struct crowd_spot_index {
    float cell;
    int bucket_mask;
    int *heads;          /* per bucket: first spot, or -1 */
    int *next;           /* per spot: the next spot in its bucket, or -1 */
    float (*spots)[2];
    int count, allocated;
} crowd_spot_index;

/* Room for `allocated` spots (at least 1), cells `spacing` wide (> 0). False when memory ran out; free it
 * either way. */
bool crowd_spot_index_create(crowd_spot_index *index, float spacing, int allocated);
void crowd_spot_index_free(crowd_spot_index *index);
/* Take (x, z); once the index holds `allocated` spots, further ones are not kept. */
void crowd_spot_index_add(crowd_spot_index *index, float x, float z);
/* Is any taken spot closer than spacing to (x, z)? (A hair less: neighbouring grid spots are exactly
 * spacing apart.) */
bool crowd_spot_taken(const crowd_spot_index *index, float x, float z);
/* The n-th cell (n >= 0) of a square spiral: 0 is the middle, then ring r (8r cells, from its +X side
 * counter-clockwise) for r = 1, 2, ... */
void crowd_spiral_cell(long long n, long long *cell_x, long long *cell_z);

#endif
