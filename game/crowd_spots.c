/* crowd_spots: see crowd_spots.h. */
#include "crowd_spots.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

static int crowd_spot_bucket(const crowd_spot_index *index, long long cell_x, long long cell_z)
{
    uint64_t key = (uint64_t)cell_x * 0x9E3779B97F4A7C15ull ^ (uint64_t)cell_z * 0xC2B2AE3D27D4EB4Full;
    key ^= key >> 29;
    return (int)(key & (uint64_t)index->bucket_mask);
}

static long long crowd_spot_cell(const crowd_spot_index *index, float coordinate)
{
    return (long long)floorf(coordinate / index->cell);
}

bool crowd_spot_index_create(crowd_spot_index *index, float spacing, int allocated)
{
    int buckets = 64;
    while (buckets < 2 * allocated && buckets < (1 << 24))
        buckets *= 2;
    *index = (crowd_spot_index){.cell = spacing, .bucket_mask = buckets - 1, .allocated = allocated};
    index->heads = malloc((size_t)buckets * sizeof *index->heads);
    index->next = malloc((size_t)allocated * sizeof *index->next);
    index->spots = malloc((size_t)allocated * sizeof *index->spots);
    if (!index->heads || !index->next || !index->spots)
        return false;
    for (int b = 0; b < buckets; ++b)
        index->heads[b] = -1;
    return true;
}

void crowd_spot_index_free(crowd_spot_index *index)
{
    free(index->heads);
    free(index->next);
    free(index->spots);
}

void crowd_spot_index_add(crowd_spot_index *index, float x, float z)
{
    if (index->count == index->allocated)
        return;
    int bucket = crowd_spot_bucket(index, crowd_spot_cell(index, x), crowd_spot_cell(index, z));
    index->spots[index->count][0] = x;
    index->spots[index->count][1] = z;
    index->next[index->count] = index->heads[bucket];
    index->heads[bucket] = index->count++;
}

bool crowd_spot_taken(const crowd_spot_index *index, float x, float z)
{
    float reach = index->cell * 0.999f;
    long long cell_x = crowd_spot_cell(index, x), cell_z = crowd_spot_cell(index, z);
    for (long long dx = -1; dx <= 1; ++dx) {
        for (long long dz = -1; dz <= 1; ++dz) {
            for (int s = index->heads[crowd_spot_bucket(index, cell_x + dx, cell_z + dz)]; s >= 0; s = index->next[s]) {
                float ox = index->spots[s][0] - x, oz = index->spots[s][1] - z;
                if (ox * ox + oz * oz < reach * reach)
                    return true;
            }
        }
    }
    return false;
}

void crowd_spiral_cell(long long n, long long *cell_x, long long *cell_z)
{
    if (n == 0) {
        *cell_x = *cell_z = 0;
        return;
    }
    long long ring = (long long)ceil((sqrt((double)n + 1.0) - 1.0) / 2.0);
    while ((2 * ring - 1) * (2 * ring - 1) > n) /* floating point at ring edges */
        --ring;
    while ((2 * ring + 1) * (2 * ring + 1) <= n)
        ++ring;
    long long along = n - (2 * ring - 1) * (2 * ring - 1); /* 0 .. 8 ring - 1 */
    long long side = along / (2 * ring), step = along % (2 * ring) + 1;
    switch (side) {
    case 0: *cell_x = ring; *cell_z = -ring + step; break;
    case 1: *cell_x = ring - step; *cell_z = ring; break;
    case 2: *cell_x = -ring; *cell_z = ring - step; break;
    default: *cell_x = -ring + step; *cell_z = -ring; break;
    }
}
