/* ground_mesh: the demo's ground as triangles for gfx (gfx_set_ground), made from engine/world's query
 * alone: every vertex stands at ground_at's height with its normal, on a grid fine near the middle and
 * coarse far out (and coarse everywhere where the ground is planes between its breaks), with lines at every
 * break ground_breaks names (a riser gets a vertical face of its own, lit as the wall it is), cut into
 * square tiles so gfx looks shadows up only where they fall. Built when the ground changes, never per frame. Knows nothing of GL (gfx uploads), of who stands on the ground, nor of
 * how the heights are made. */
#ifndef MARIONETTE_GROUND_MESH_H
#define MARIONETTE_GROUND_MESH_H

#include <stdbool.h>
#include <stdint.h>

#include "gfx/gfx.h"
#include "world/ground.h"

/* The square the mesh covers, metres either side of the origin: gfx's flat ground's, whose grid fades
 * into the sky well before its edge. */
#define GROUND_MESH_HALF_SIZE 60.0f
/* Grid spacing on a bending ground (the hills): GROUND_MESH_FINE_STEP within GROUND_MESH_FINE_REACH of the
 * origin on both axes (where the demo's characters stand and the camera looks closely: the shipped hills'
 * triangles there stay within about a centimetre of ground_at, tests/test_ground_mesh.c measures it),
 * GROUND_MESH_MIDDLE_STEP out to GROUND_MESH_MIDDLE_REACH, GROUND_MESH_FAR_STEP beyond (faded into the
 * sky there). A CPU rasterizer pays for every triangle: this is about 6,300 of them. On planes between
 * breaks (ground_planar_between_breaks: the steps) GROUND_MESH_PLANAR_STEP everywhere, plus the breaks. */
#define GROUND_MESH_FINE_STEP 1.0f
#define GROUND_MESH_FINE_REACH 16.0f
#define GROUND_MESH_MIDDLE_STEP 2.0f
#define GROUND_MESH_MIDDLE_REACH 32.0f
#define GROUND_MESH_FAR_STEP 8.0f
#define GROUND_MESH_PLANAR_STEP 8.0f
/* A tile's side, metres: the cells (by their centre) in each square of this side are one run of the index
 * buffer; smaller than a shadow, so the lookup is paid on little more ground than the shadows need. */
#define GROUND_MESH_TILE_SIZE 2.0f

typedef struct ground_mesh {
    gfx_ground_vertex *vertices;
    int vertex_count;
    uint32_t *indices;
    int index_count;
    gfx_ground_tile *tiles;
    int tile_count;
} ground_mesh;

/* Build the mesh of `ground` (NULL: flat) into *mesh (its old contents are not freed: start from {0} or
 * ground_mesh_free). False when memory runs out (*mesh is then empty). */
bool ground_mesh_build(ground_mesh *mesh, const ground *ground);
void ground_mesh_free(ground_mesh *mesh);

/* What gfx_set_ground takes: the mesh's arrays. */
gfx_ground_desc ground_mesh_desc(const ground_mesh *mesh);

/* Give gfx the ground: flat ground as gfx's own flat floor (gfx_set_ground(NULL)), any other as its mesh,
 * built, uploaded and freed here. False when memory runs out or gfx refuses (gfx_last_error); the ground
 * drawn before stays then. */
bool ground_mesh_upload(const ground *ground);

#endif
