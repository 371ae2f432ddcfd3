/* fuzz_md5mesh: any bytes as an .md5mesh. The parser must refuse with a one-line diag or give a model that
 * keeps model.h's promises (parents before children, indices in range, finite numbers, unit rotations,
 * weights sorted and summing to 1); then the bind pose goes through the palette and CPU skinning stages,
 * whose output must be finite, and a model of up to FUZZ_LOD_MAX_TRIANGLES triangles gets its levels of
 * detail (build_lods, as the demo makes them), which must index its vertices and keep their promises. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "fuzz_check.h"
#include "build/build_lod.h"
#include "build/loader.h"
#include "md5/md5.h"
#include "pose/pose.h"

/* A folder that does not exist: relative shader paths resolve to nothing without touching the disk much. */
#define FUZZ_MESH_NAME "/nonexistent-marionette-fuzz/fuzz.md5mesh"

static void fuzz_check_skeleton(const skeleton *s)
{
    FUZZ_REQUIRE(s->joint_count >= 1 && s->names && s->parents && s->bind_object && s->inverse_bind);
    for (int i = 0; i < s->joint_count; ++i) {
        FUZZ_REQUIRE(s->names[i] != NULL);
        FUZZ_REQUIRE(s->parents[i] >= -1 && s->parents[i] < i);
        FUZZ_REQUIRE(fuzz_joint_pose_ok(&s->bind_object[i]));
        FUZZ_REQUIRE(fuzz_finite(&s->inverse_bind[i][0][0], 16));
    }
}

static void fuzz_check_mesh(const skin_mesh *mesh, int joint_count)
{
    FUZZ_REQUIRE(mesh->shader != NULL && mesh->vertex_count >= 0 && mesh->triangle_count >= 0);
    for (int t = 0; t < mesh->triangle_count; ++t)
        for (int k = 0; k < 3; ++k)
            FUZZ_REQUIRE(mesh->triangles[t][k] < (uint32_t)mesh->vertex_count);
    for (int v = 0; v < mesh->vertex_count; ++v) {
        FUZZ_REQUIRE(fuzz_finite(mesh->positions[v], 3) && fuzz_finite(mesh->normals[v], 3) &&
                     fuzz_finite(mesh->uvs[v], 2) && fuzz_finite(mesh->weights[v], SKIN_MAX_INFLUENCES));
        const float *n = mesh->normals[v];
        FUZZ_REQUIRE(fabsf(n[0] * n[0] + n[1] * n[1] + n[2] * n[2] - 1.0f) < 1e-3f);
        float sum = 0.0f;
        for (int k = 0; k < SKIN_MAX_INFLUENCES; ++k) {
            FUZZ_REQUIRE(mesh->weights[v][k] >= 0.0f && mesh->joints[v][k] < joint_count);
            FUZZ_REQUIRE(k == 0 || mesh->weights[v][k] <= mesh->weights[v][k - 1]);
            sum += mesh->weights[v][k];
        }
        FUZZ_REQUIRE(fabsf(sum - 1.0f) < 1e-3f);
    }
}

/* The bind pose through the skinning stages: palette (about identity) and CPU skinning. */
static void fuzz_skin_bind_pose(const model *m)
{
    const skeleton *s = &m->skeleton;
    mat4 *palette = aligned_alloc(16, (size_t)s->joint_count * sizeof *palette);
    FUZZ_REQUIRE(palette != NULL);
    FUZZ_REQUIRE(pose_palette(s->bind_object, (const mat4 *)s->inverse_bind, s->joint_count, palette));
    FUZZ_REQUIRE(fuzz_finite(&palette[0][0][0], 16 * s->joint_count));
    for (int i = 0; i < m->mesh_count; ++i) {
        const skin_mesh *mesh = &m->meshes[i];
        size_t count = mesh->vertex_count ? (size_t)mesh->vertex_count : 1;
        float(*positions)[3] = malloc(count * sizeof *positions);
        float(*normals)[3] = malloc(count * sizeof *normals);
        FUZZ_REQUIRE(positions && normals);
        if (mesh->vertex_count > 0) {
            FUZZ_REQUIRE(pose_skin_cpu(mesh, (const mat4 *)palette, s->joint_count, positions, normals));
            FUZZ_REQUIRE(fuzz_finite(&positions[0][0], 3 * mesh->vertex_count));
            FUZZ_REQUIRE(fuzz_finite(&normals[0][0], 3 * mesh->vertex_count));
        }
        free(positions);
        free(normals);
    }
    free(palette);
}

/* Larger models simplify for longer than a fuzzer's execution should take; the parser is what meets them. */
enum { FUZZ_LOD_MAX_TRIANGLES = 4096 };

/* The levels the demo would draw: built for any model (build_lods fails only on a bad desc or no memory),
 * every level indexing the mesh's own vertices, never more triangles than the file's, errors finite and
 * non-decreasing from 0. */
static void fuzz_check_levels(const model *m)
{
    long long triangles = 0;
    for (int i = 0; i < m->mesh_count; ++i)
        triangles += m->meshes[i].triangle_count;
    if (triangles > FUZZ_LOD_MAX_TRIANGLES)
        return;
    model_lods *lods = NULL;
    diag err = {0};
    FUZZ_REQUIRE(build_lods(m, NULL, &lods, &err) && lods != NULL);
    FUZZ_REQUIRE(lods->level_count >= 1 && lods->level_count <= LOD_LEVELS_MAX && lods->mesh_count == m->mesh_count);
    FUZZ_REQUIRE(lods->error[0] == 0.0f);
    for (int l = 0; l < lods->level_count; ++l) {
        FUZZ_REQUIRE(isfinite(lods->error[l]) && (l == 0 || lods->error[l] >= lods->error[l - 1]));
        for (int i = 0; i < m->mesh_count; ++i) {
            const skin_mesh *mesh = &m->meshes[i];
            int count = lods->meshes[i].triangle_count[l];
            FUZZ_REQUIRE(count >= 0 && count <= mesh->triangle_count && lods->meshes[i].triangles[l] != NULL);
            FUZZ_REQUIRE(l > 0 || count == mesh->triangle_count);
            for (int t = 0; t < count; ++t)
                for (int k = 0; k < 3; ++k)
                    FUZZ_REQUIRE(lods->meshes[i].triangles[l][t][k] < (uint32_t)mesh->vertex_count);
        }
    }
    model_lods_free(lods);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    model *m = NULL;
    diag err = {0};
    diag_list warnings = {0};
    fuzz_heap_start();
    bool ok = loader_parse_md5_model((const char *)data, size, FUZZ_MESH_NAME, &m, &err, &warnings);
    /* md5.h's memory promise: the parse's peak heap is bounded by the input's size, whatever it claims. */
    FUZZ_REQUIRE(fuzz_heap_peak() <= MD5_HEAP_BYTES_PER_BYTE * size + MD5_HEAP_BYTES_SLACK);
    FUZZ_REQUIRE(ok == (m != NULL));
    FUZZ_REQUIRE(fuzz_diag_list_ok(&warnings));
    if (!ok) {
        FUZZ_REQUIRE(fuzz_diag_ok(&err));
    } else {
        fuzz_check_skeleton(&m->skeleton);
        FUZZ_REQUIRE(m->mesh_count >= 0 && (m->mesh_count == 0 || m->meshes));
        for (int i = 0; i < m->mesh_count; ++i)
            fuzz_check_mesh(&m->meshes[i], m->skeleton.joint_count);
        FUZZ_REQUIRE(isfinite(m->skin_reach) && m->skin_reach >= 0.0f);
        fuzz_skin_bind_pose(m);
        fuzz_check_levels(m);
    }
    model_free(m);
    diag_list_free(&warnings);
    return 0;
}
