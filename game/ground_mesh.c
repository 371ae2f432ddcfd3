/* ground_mesh: see ground_mesh.h. */
#include "ground_mesh.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A break becomes two grid lines this far either side of it, so a riser is a (nearly) vertical face
 * between the tread below and the tread above. */
#define GROUND_MESH_BREAK_GAP 0.001f
/* Lines closer than this are one. */
#define GROUND_MESH_SAME_LINE 1e-4f
/* A cell steeper than this (60 degrees) is a wall: it gets vertices of its own, lit by its own face, not
 * the treads' upward normals it would share with its neighbours. */
#define GROUND_MESH_WALL_GRADIENT 1.7320508f

/* The grid's own lines from the origin outward, fine, then middle, then far (far only on a planar
 * ground); returns how many, written to out when it is not NULL. */
static int outward_lines(bool planar, float *out)
{
    int count = 0;
    float at = 0.0f;
    while (at < GROUND_MESH_HALF_SIZE - GROUND_MESH_SAME_LINE) {
        float step = planar                                                  ? GROUND_MESH_PLANAR_STEP
                     : at < GROUND_MESH_FINE_REACH - GROUND_MESH_SAME_LINE   ? GROUND_MESH_FINE_STEP
                     : at < GROUND_MESH_MIDDLE_REACH - GROUND_MESH_SAME_LINE ? GROUND_MESH_MIDDLE_STEP
                                                                              : GROUND_MESH_FAR_STEP;
        at = fminf(at + step, GROUND_MESH_HALF_SIZE);
        if (out)
            out[count] = at;
        ++count;
    }
    return count;
}

static int compare_floats(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

/* Every line across `axis`: the grid's, mirrored about the origin, one on each crease and two either side
 * of each riser (ground_breaks); sorted, no two the same. NULL when memory runs out. */
static float *axis_lines(const ground *ground, int axis, int *count)
{
    const float half = GROUND_MESH_HALF_SIZE;
    bool planar = ground_planar_between_breaks(ground);
    int outward = outward_lines(planar, NULL);
    int breaks = ground_breaks(ground, axis, -half + GROUND_MESH_BREAK_GAP, half - GROUND_MESH_BREAK_GAP, NULL, 0);
    int capacity = 2 * outward + 1 + 2 * breaks;
    float *lines = malloc((size_t)capacity * sizeof *lines);
    if (!lines)
        return NULL;
    int n = 0;
    lines[n++] = 0.0f;
    outward_lines(planar, lines + n);
    for (int i = 0; i < outward; ++i)
        lines[n + outward + i] = -lines[n + i];
    n += 2 * outward;
    /* The breaks at the end: the lines made of break i go at or before where break i sits, so they never
     * overwrite a break not yet read. */
    float *break_at = lines + capacity - breaks;
    ground_breaks(ground, axis, -half + GROUND_MESH_BREAK_GAP, half - GROUND_MESH_BREAK_GAP, break_at, breaks);
    /* A crease (a ramp's foot or top: the height goes on, the slope changes) needs one line; a riser two. */
    int added = 0;
    for (int i = 0; i < breaks; ++i) {
        float at = break_at[i], before = at - GROUND_MESH_BREAK_GAP, after = at + GROUND_MESH_BREAK_GAP;
        float probe_before = axis == 0 ? ground_at(ground, before, 0.0f).height : ground_at(ground, 0.0f, before).height;
        float probe_after = axis == 0 ? ground_at(ground, after, 0.0f).height : ground_at(ground, 0.0f, after).height;
        if (fabsf(probe_after - probe_before) > GROUND_MESH_WALL_GRADIENT * 2.0f * GROUND_MESH_BREAK_GAP) {
            lines[n + added++] = before;
            lines[n + added++] = after;
        } else {
            lines[n + added++] = at;
        }
    }
    n += added;
    qsort(lines, (size_t)n, sizeof *lines, compare_floats);
    int kept = 0;
    for (int i = 0; i < n; ++i)
        if (kept == 0 || lines[i] - lines[kept - 1] > GROUND_MESH_SAME_LINE)
            lines[kept++] = lines[i];
    *count = kept;
    return lines;
}

static bool is_wall(const gfx_ground_vertex *corner[4], float width, float depth)
{
    float across_x = fmaxf(fabsf(corner[1]->position[1] - corner[0]->position[1]),
                           fabsf(corner[3]->position[1] - corner[2]->position[1]));
    float across_z = fmaxf(fabsf(corner[2]->position[1] - corner[0]->position[1]),
                           fabsf(corner[3]->position[1] - corner[1]->position[1]));
    return across_x > GROUND_MESH_WALL_GRADIENT * width || across_z > GROUND_MESH_WALL_GRADIENT * depth;
}

/* A wall's normal: its two diagonals crossed (corners 0 (x0, z0), 1 (x1, z0), 2 (x0, z1), 3 (x1, z1)). */
static void wall_normal(const gfx_ground_vertex *corner[4], float normal[3])
{
    float up[3], across[3];
    for (int k = 0; k < 3; ++k) {
        up[k] = corner[3]->position[k] - corner[0]->position[k];
        across[k] = corner[2]->position[k] - corner[1]->position[k];
    }
    normal[0] = across[1] * up[2] - across[2] * up[1];
    normal[1] = across[2] * up[0] - across[0] * up[2];
    normal[2] = across[0] * up[1] - across[1] * up[0];
    float length = sqrtf(normal[0] * normal[0] + normal[1] * normal[1] + normal[2] * normal[2]);
    if (!(length > 0.0f)) {
        normal[0] = normal[2] = 0.0f;
        normal[1] = 1.0f;
        return;
    }
    for (int k = 0; k < 3; ++k)
        normal[k] /= length;
}

void ground_mesh_free(ground_mesh *mesh)
{
    free(mesh->vertices);
    free(mesh->indices);
    free(mesh->tiles);
    *mesh = (ground_mesh){0};
}

static int tile_of(float low, float high, int tiles_across)
{
    int tile = (int)floorf((0.5f * (low + high) + GROUND_MESH_HALF_SIZE) / GROUND_MESH_TILE_SIZE);
    return tile < 0 ? 0 : tile >= tiles_across ? tiles_across - 1 : tile;
}

/* The tile of the cell between lines i, i + 1 (x) and j, j + 1 (z), row by row. */
static int cell_tile(const float *xs, const float *zs, int i, int j, int tiles_across)
{
    return tile_of(zs[j], zs[j + 1], tiles_across) * tiles_across + tile_of(xs[i], xs[i + 1], tiles_across);
}

bool ground_mesh_build(ground_mesh *mesh, const ground *ground)
{
    *mesh = (ground_mesh){0};
    int nx = 0, nz = 0;
    float *xs = axis_lines(ground, 0, &nx), *zs = axis_lines(ground, 1, &nz);
    int cells = (nx - 1) * (nz - 1);
    int tiles_across = (int)ceilf(2.0f * GROUND_MESH_HALF_SIZE / GROUND_MESH_TILE_SIZE);
    int tile_slots = tiles_across * tiles_across;
    unsigned char *walls = xs && zs ? calloc((size_t)cells, 1) : NULL;
    int *tile_cells = walls ? calloc((size_t)tile_slots + 1, sizeof *tile_cells) : NULL;
    mesh->vertices = tile_cells ? malloc((size_t)nx * (size_t)nz * sizeof *mesh->vertices) : NULL;
    if (!mesh->vertices) {
        free(xs);
        free(zs);
        free(walls);
        free(tile_cells);
        return false;
    }
    for (int j = 0; j < nz; ++j)
        for (int i = 0; i < nx; ++i) {
            ground_sample at = ground_at(ground, xs[i], zs[j]);
            gfx_ground_vertex *v = &mesh->vertices[j * nx + i];
            *v = (gfx_ground_vertex){.position = {xs[i], at.height, zs[j]},
                                     .normal = {at.normal[0], at.normal[1], at.normal[2]}};
        }

    /* Walls first (they need vertices of their own), and how many cells each tile holds. */
    int wall_count = 0;
    for (int j = 0; j + 1 < nz; ++j)
        for (int i = 0; i + 1 < nx; ++i) {
            const gfx_ground_vertex *corner[4] = {&mesh->vertices[j * nx + i], &mesh->vertices[j * nx + i + 1],
                                                  &mesh->vertices[(j + 1) * nx + i],
                                                  &mesh->vertices[(j + 1) * nx + i + 1]};
            int cell = j * (nx - 1) + i;
            walls[cell] = is_wall(corner, xs[i + 1] - xs[i], zs[j + 1] - zs[j]);
            wall_count += walls[cell];
            ++tile_cells[cell_tile(xs, zs, i, j, tiles_across) + 1];
        }
    int grid_vertices = nx * nz;
    gfx_ground_vertex *grown = realloc(mesh->vertices, ((size_t)grid_vertices + 4 * (size_t)wall_count) *
                                                           sizeof *mesh->vertices);
    mesh->indices = malloc((size_t)cells * 6 * sizeof *mesh->indices);
    mesh->tiles = malloc((size_t)tile_slots * sizeof *mesh->tiles);
    if (grown)
        mesh->vertices = grown;
    if (!grown || !mesh->indices || !mesh->tiles) {
        ground_mesh_free(mesh);
        free(xs);
        free(zs);
        free(walls);
        free(tile_cells);
        return false;
    }
    /* Each tile's cells one run of the index buffer: tile_cells becomes each tile's first cell. */
    for (int t = 0; t < tile_slots; ++t)
        tile_cells[t + 1] += tile_cells[t];
    for (int t = 0; t < tile_slots; ++t)
        if (tile_cells[t + 1] > tile_cells[t])
            mesh->tiles[mesh->tile_count++] =
                (gfx_ground_tile){6 * tile_cells[t], 6 * (tile_cells[t + 1] - tile_cells[t])};
    int next_vertex = grid_vertices;
    for (int j = 0; j + 1 < nz; ++j)
        for (int i = 0; i + 1 < nx; ++i) {
            uint32_t corner[4] = {(uint32_t)(j * nx + i), (uint32_t)(j * nx + i + 1), (uint32_t)((j + 1) * nx + i),
                                  (uint32_t)((j + 1) * nx + i + 1)};
            if (walls[j * (nx - 1) + i]) {
                const gfx_ground_vertex *shared[4] = {&mesh->vertices[corner[0]], &mesh->vertices[corner[1]],
                                                      &mesh->vertices[corner[2]], &mesh->vertices[corner[3]]};
                float normal[3];
                wall_normal(shared, normal);
                for (int k = 0; k < 4; ++k) {
                    gfx_ground_vertex *own = &mesh->vertices[next_vertex + k];
                    memcpy(own->position, shared[k]->position, sizeof own->position);
                    memcpy(own->normal, normal, sizeof own->normal);
                    corner[k] = (uint32_t)(next_vertex + k);
                }
                next_vertex += 4;
            }
            int tile = cell_tile(xs, zs, i, j, tiles_across);
            uint32_t *out = &mesh->indices[6 * tile_cells[tile]++];
            /* Counter-clockwise seen from above: (x0, z0), (x0, z1), (x1, z0), then (x1, z0), (x0, z1), (x1, z1). */
            const uint32_t triangles[6] = {corner[0], corner[2], corner[1], corner[1], corner[2], corner[3]};
            memcpy(out, triangles, sizeof triangles);
        }
    mesh->vertex_count = next_vertex;
    mesh->index_count = 6 * cells;
    free(xs);
    free(zs);
    free(walls);
    free(tile_cells);
    return true;
}

gfx_ground_desc ground_mesh_desc(const ground_mesh *mesh)
{
    return (gfx_ground_desc){.vertices = mesh->vertices,
                             .vertex_count = mesh->vertex_count,
                             .indices = mesh->indices,
                             .index_count = mesh->index_count,
                             .tiles = mesh->tiles,
                             .tile_count = mesh->tile_count};
}

bool ground_mesh_upload(const ground *ground)
{
    if (!ground || ground->kind == GROUND_FLAT)
        return gfx_set_ground(NULL);
    ground_mesh mesh;
    if (!ground_mesh_build(&mesh, ground))
        return false;
    gfx_ground_desc desc = ground_mesh_desc(&mesh);
    bool uploaded = gfx_set_ground(&desc);
    ground_mesh_free(&mesh);
    return uploaded;
}
