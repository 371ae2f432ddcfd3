/* test_ground_mesh: the ground's mesh (game/ground_mesh.h) against the query it is made from: every vertex
 * at ground_at's height with its normal, the triangles within a centimetre of the surface where the
 * characters stand, risers as walls, every triangle in exactly one tile, the square gfx's flat ground
 * covers. No GL: gfx_set_ground's checks are tested in test_gfx. */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

#include "check.h"
#include "ground_mesh.h"

static bool vertex_on_grid(const gfx_ground_vertex *v, const ground *ground)
{
    ground_sample at = ground_at(ground, v->position[0], v->position[2]);
    return v->position[1] == at.height;
}

/* Tiles: each a run of whole triangles, together every index exactly once. */
static void check_tiles(const ground_mesh *mesh)
{
    int *covered = calloc((size_t)mesh->index_count, sizeof *covered);
    for (int t = 0; covered && t < mesh->tile_count; ++t) {
        const gfx_ground_tile *tile = &mesh->tiles[t];
        CHECK(tile->first_index % 3 == 0 && tile->index_count % 3 == 0 && tile->index_count > 0);
        CHECK(tile->first_index >= 0 && tile->first_index + tile->index_count <= mesh->index_count);
        for (int i = tile->first_index; i < tile->first_index + tile->index_count && i < mesh->index_count; ++i)
            ++covered[i];
    }
    bool once = covered != NULL;
    for (int i = 0; covered && i < mesh->index_count; ++i)
        once = once && covered[i] == 1;
    CHECK(once);
    free(covered);
    bool in_range = true;
    for (int i = 0; i < mesh->index_count; ++i)
        in_range = in_range && mesh->indices[i] < (uint32_t)mesh->vertex_count;
    CHECK(in_range);
}

/* The mesh's height at (x, z): the triangle of the cell holding it, or NAN when none does. */
static float mesh_height(const ground_mesh *mesh, float x, float z)
{
    for (int i = 0; i < mesh->index_count; i += 3) {
        const float *a = mesh->vertices[mesh->indices[i]].position, *b = mesh->vertices[mesh->indices[i + 1]].position,
                    *c = mesh->vertices[mesh->indices[i + 2]].position;
        float d = (b[2] - c[2]) * (a[0] - c[0]) + (c[0] - b[0]) * (a[2] - c[2]);
        if (fabsf(d) < 1e-9f)
            continue;
        float wa = ((b[2] - c[2]) * (x - c[0]) + (c[0] - b[0]) * (z - c[2])) / d;
        float wb = ((c[2] - a[2]) * (x - c[0]) + (a[0] - c[0]) * (z - c[2])) / d;
        float wc = 1.0f - wa - wb;
        if (wa >= -1e-6f && wb >= -1e-6f && wc >= -1e-6f)
            return wa * a[1] + wb * b[1] + wc * c[1];
    }
    return NAN;
}

static void test_hills_mesh(void)
{
    ground hills = {.kind = GROUND_HILLS};
    ground_mesh mesh;
    CHECK(ground_mesh_build(&mesh, &hills));
    printf("hills: %d vertices, %d triangles, %d tiles\n", mesh.vertex_count, mesh.index_count / 3, mesh.tile_count);
    CHECK(mesh.index_count / 3 < 10000); /* what a CPU rasterizer can afford each frame */
    float low = 1e9f, high = -1e9f;
    bool on_query = true, unit = true;
    for (int v = 0; v < mesh.vertex_count; ++v) {
        const gfx_ground_vertex *vertex = &mesh.vertices[v];
        on_query = on_query && vertex_on_grid(vertex, &hills);
        ground_sample at = ground_at(&hills, vertex->position[0], vertex->position[2]);
        for (int k = 0; k < 3; ++k)
            unit = unit && vertex->normal[k] == at.normal[k];
        low = fminf(low, fminf(vertex->position[0], vertex->position[2]));
        high = fmaxf(high, fmaxf(vertex->position[0], vertex->position[2]));
    }
    CHECK(on_query && unit);
    CHECK(low == -GROUND_MESH_HALF_SIZE && high == GROUND_MESH_HALF_SIZE);
    check_tiles(&mesh);

    /* Where the characters stand (the fine part), the triangles follow the surface within about a
     * centimetre: feet at ground_at's height are neither visibly in the mesh nor above it. */
    float worst = 0.0f;
    for (float z = -15.7f; z < 15.7f; z += 0.83f)
        for (float x = -15.6f; x < 15.6f; x += 0.71f) {
            float drawn = mesh_height(&mesh, x, z);
            CHECK(isfinite(drawn));
            worst = fmaxf(worst, fabsf(drawn - ground_at(&hills, x, z).height));
        }
    printf("hills: the mesh is within %.1f mm of the query in the middle 32 m\n", (double)worst * 1000.0);
    CHECK(worst < 0.012f);
    ground_mesh_free(&mesh);
    CHECK(mesh.vertices == NULL && mesh.vertex_count == 0);
}

static void test_steps_mesh(void)
{
    ground steps = {.kind = GROUND_STEPS};
    ground_mesh mesh;
    CHECK(ground_mesh_build(&mesh, &steps));
    printf("steps: %d vertices, %d triangles, %d tiles\n", mesh.vertex_count, mesh.index_count / 3, mesh.tile_count);
    CHECK(mesh.index_count / 3 < 20000);
    check_tiles(&mesh);
    /* The grid's vertices are the query's; the risers' own vertices face along x, level. */
    int walls_facing_back = 0, walls_facing_ahead = 0;
    bool on_query = true;
    for (int v = 0; v < mesh.vertex_count; ++v) {
        const gfx_ground_vertex *vertex = &mesh.vertices[v];
        on_query = on_query && vertex_on_grid(vertex, &steps);
        if (vertex->normal[1] < 0.1f) {
            CHECK(fabsf(vertex->normal[0]) > 0.99f && fabsf(vertex->normal[2]) < 1e-3f);
            walls_facing_back += vertex->normal[0] < 0.0f;
            walls_facing_ahead += vertex->normal[0] > 0.0f;
        }
    }
    CHECK(on_query);
    /* Stairs up face back (-x), stairs down ahead: both, four vertices each. */
    CHECK(walls_facing_back > 0 && walls_facing_back % 4 == 0);
    CHECK(walls_facing_ahead > 0 && walls_facing_ahead % 4 == 0);
    /* Off the risers the mesh is the surface: planes between breaks, exactly. */
    float worst = 0.0f;
    float breaks[256];
    int count = ground_breaks(&steps, 0, -20.0f, 20.0f, breaks, 256);
    for (float x = -19.9f; x < 19.9f; x += 0.037f) {
        bool near_break = false;
        for (int b = 0; b < count; ++b)
            near_break = near_break || fabsf(x - breaks[b]) < 0.005f;
        if (near_break)
            continue;
        worst = fmaxf(worst, fabsf(mesh_height(&mesh, x, 1.3f) - ground_at(&steps, x, 1.3f).height));
    }
    CHECK(worst < 1e-4f);
    ground_mesh_free(&mesh);
}

static void test_flat_and_descriptor(void)
{
    ground_mesh mesh;
    CHECK(ground_mesh_build(&mesh, NULL));
    bool level = true;
    for (int v = 0; v < mesh.vertex_count; ++v)
        level = level && mesh.vertices[v].position[1] == 0.0f && mesh.vertices[v].normal[1] == 1.0f;
    CHECK(level);
    gfx_ground_desc desc = ground_mesh_desc(&mesh);
    CHECK(desc.vertices == mesh.vertices && desc.vertex_count == mesh.vertex_count);
    CHECK(desc.indices == mesh.indices && desc.index_count == mesh.index_count);
    CHECK(desc.tiles == mesh.tiles && desc.tile_count == mesh.tile_count);
    ground_mesh_free(&mesh);
}

int main(void)
{
    RUN(test_hills_mesh);
    RUN(test_steps_mesh);
    RUN(test_flat_and_descriptor);
    return check_report();
}
