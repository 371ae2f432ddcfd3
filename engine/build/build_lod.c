/* model -> model_lods with meshoptimizer (Debian's libmeshoptimizer-dev, 0.18; a C++ library with a C API,
 * linked as a shared library that brings its own C++ runtime). */
#include "build_lod.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <meshoptimizer.h>

/* meshoptimizer's own advice: a triangle order that costs at most 5% more vertex-cache misses for less
 * overdraw. */
#define OVERDRAW_THRESHOLD 1.05f
/* The stand-in's error limit, relative to a mesh's extent: 1 (the whole extent) leaves its triangle
 * budget alone to decide; a stand-in is for characters a few pixels tall. */
#define STAND_IN_ERROR_LIMIT 1.0f
/* The coarser levels' default limit (build_lod_desc.max_error). Boneman (a real export with thin parts)
 * jumps from 1% to 10% of its height between 712 and 396 triangles; stopping at 2% keeps its third level
 * at 510 triangles and 1.9%, and leaves the demo's bodies, under 1% at every level, untouched. */
#define DEFAULT_MAX_ERROR 0.02f

static const float default_ratios[BUILD_LOD_COARSER_MAX] = {0.5f, 0.25f, 0.12f};

typedef struct lod_settings {
    float ratios[BUILD_LOD_COARSER_MAX];
    int coarser_count;
    int stand_in_triangles; /* 0: no stand-in */
    unsigned options;       /* meshopt_Simplify* flags */
    float max_error;        /* relative to a mesh's extent */
} lod_settings;

static bool resolve_desc(const build_lod_desc *desc, lod_settings *s, diag *err)
{
    build_lod_desc zero = {0};
    const build_lod_desc *d = desc ? desc : &zero;
    *s = (lod_settings){0};
    bool any_ratio = false;
    for (int i = 0; i < BUILD_LOD_COARSER_MAX; ++i)
        any_ratio = any_ratio || d->ratios[i] != 0.0f;
    if (!any_ratio) {
        memcpy(s->ratios, default_ratios, sizeof s->ratios);
        s->coarser_count = BUILD_LOD_COARSER_MAX;
    } else {
        for (int i = 0; i < BUILD_LOD_COARSER_MAX && d->ratios[i] != 0.0f; ++i) {
            float r = d->ratios[i];
            /* The negated test also refuses NaN. */
            if (!(r > 0.0f && r < 1.0f))
                return diag_set(err, "build_lods", 0, "ratios[%d] = %g: must be in (0, 1)", i, (double)r);
            if (i > 0 && !(r < s->ratios[i - 1]))
                return diag_set(err, "build_lods", 0, "ratios[%d] = %g: must be below ratios[%d] = %g", i,
                                (double)r, i - 1, (double)s->ratios[i - 1]);
            s->ratios[s->coarser_count++] = r;
        }
    }
    if (d->stand_in_triangles < 0 || d->stand_in_triangles > BUILD_LOD_STAND_IN_TRIANGLES_MAX)
        return diag_set(err, "build_lods", 0, "stand_in_triangles = %d: must be 1..%d (0: default %d)",
                        d->stand_in_triangles, BUILD_LOD_STAND_IN_TRIANGLES_MAX, BUILD_LOD_STAND_IN_TRIANGLES);
    if (d->max_error != 0.0f && !(d->max_error > 0.0f && d->max_error <= 1.0f))
        return diag_set(err, "build_lods", 0, "max_error = %g: must be in (0, 1] (0: default %g)",
                        (double)d->max_error, (double)DEFAULT_MAX_ERROR);
    s->max_error = d->max_error != 0.0f ? d->max_error : DEFAULT_MAX_ERROR;
    if (!d->no_stand_in)
        s->stand_in_triangles = d->stand_in_triangles ? d->stand_in_triangles : BUILD_LOD_STAND_IN_TRIANGLES;
    switch (d->borders) {
    case BUILD_LOD_BORDERS_DEFAULT:
    case BUILD_LOD_BORDERS_FREE:
        s->options = 0;
        break;
    case BUILD_LOD_BORDERS_LOCKED:
        s->options = meshopt_SimplifyLockBorder;
        break;
    default:
        return diag_set(err, "build_lods", 0, "borders = %d: not a build_lod_borders value", (int)d->borders);
    }
    return true;
}

/* A triangle array of count triangles, never NULL (at least one element) so a caller may copy from it
 * whatever the count. */
static uint32_t (*allocate_triangles(size_t count, size_t *bytes))[3]
{
    size_t size = (count ? count : 1) * sizeof(uint32_t[3]);
    uint32_t (*t)[3] = malloc(size);
    if (t)
        *bytes += size;
    return t;
}

/* src (index_count indices) reordered for the vertex cache, then for overdraw, into dst; scratch holds
 * index_count indices. */
static void reorder(uint32_t *dst, const uint32_t *src, size_t index_count, const skin_mesh *mesh, uint32_t *scratch)
{
    if (index_count == 0)
        return;
    meshopt_optimizeVertexCache(scratch, src, index_count, (size_t)mesh->vertex_count);
    meshopt_optimizeOverdraw(dst, scratch, index_count, &mesh->positions[0][0], (size_t)mesh->vertex_count,
                             sizeof mesh->positions[0], OVERDRAW_THRESHOLD);
}

/* The triangles a mesh keeps in the stand-in: its share of the budget by triangle count, at least the
 * minimum (or all it has). */
static size_t stand_in_share(int budget, int mesh_triangles, long long model_triangles)
{
    if (mesh_triangles <= 0 || model_triangles <= 0)
        return 0;
    long long share = (long long)budget * mesh_triangles / model_triangles;
    if (share < BUILD_LOD_STAND_IN_MESH_MINIMUM)
        share = BUILD_LOD_STAND_IN_MESH_MINIMUM;
    return (size_t)(share < mesh_triangles ? share : mesh_triangles);
}

typedef struct lod_work {
    const model *m;
    const lod_settings *s;
    model_lods *lods;
    uint32_t *simplified, *scratch; /* the largest mesh's index count each */
    float *scale;                   /* per mesh: meshopt_simplifyScale of its positions */
    long long model_triangles;
} lod_work;

/* Level 0's `full` triangles simplified towards `target` into w->simplified; returns the triangles made and
 * their relative error. The stand-in is meant to keep the body's shape, not just its size, and is made by
 * meshopt_simplify too, with no error limit: meshopt_simplifySloppy merges whatever shares a grid cell,
 * and on the mannequin that joins the legs (and the arms to the hips) in bind pose, which stretches into
 * sheets between them once a clip moves them apart; simplify stays at 1.33% of its height for 300
 * triangles against sloppy's 3.07%. On boneman (thin separate bones) sloppy gets to 260 triangles and
 * drops the thighs and spine (holes in the body) where simplify stops at 396 with a pointed skull, which
 * reads better from afar. Sloppy takes over only where topology keeps more than twice the budget (many
 * separate pieces), as a stand-in that is not coarser would be no stand-in at all. */
static size_t simplify(lod_work *w, const skin_mesh *mesh, const uint32_t *source, size_t full, size_t target,
                       bool stand_in, float *relative)
{
    const float *positions = &mesh->positions[0][0];
    size_t vertices = (size_t)mesh->vertex_count, stride = sizeof mesh->positions[0];
    float limit = stand_in ? STAND_IN_ERROR_LIMIT : w->s->max_error;
    size_t got = meshopt_simplify(w->simplified, source, full * 3, positions, vertices, stride, target * 3, limit,
                                  w->s->options, relative) / 3;
    if (!stand_in || got <= 2 * target)
        return got;
    float sloppy_error = 0.0f;
    size_t sloppy = meshopt_simplifySloppy(w->scratch, source, full * 3, positions, vertices, stride, target * 3,
                                           STAND_IN_ERROR_LIMIT, &sloppy_error) / 3;
    if (sloppy == 0 || sloppy >= got)
        return got;
    memcpy(w->simplified, w->scratch, sloppy * 3 * sizeof *w->simplified);
    *relative = sloppy_error;
    return sloppy;
}

/* Makes level `level` of every mesh (1.. coarser, or the stand-in) and its error. A mesh that does not get
 * coarser than level-1 keeps level-1's triangles. False only when out of memory. *coarser: some mesh got
 * coarser. */
static bool make_level(lod_work *w, int level, bool stand_in, float ratio, bool *coarser, diag *err)
{
    model_lods *lods = w->lods;
    *coarser = false;
    lods->error[level] = lods->error[level - 1];
    lods->triangles[level] = 0;
    for (int i = 0; i < w->m->mesh_count; ++i) {
        const skin_mesh *mesh = &w->m->meshes[i];
        mesh_lod *ml = &lods->meshes[i];
        size_t full = (size_t)ml->triangle_count[0], previous = (size_t)ml->triangle_count[level - 1];
        size_t target = stand_in ? stand_in_share(w->s->stand_in_triangles, mesh->triangle_count, w->model_triangles)
                                 : (size_t)ceil((double)ratio * (double)full);
        size_t got = previous;
        float relative = 0.0f;
        if (target < previous)
            got = simplify(w, mesh, &ml->triangles[0][0][0], full, target, stand_in, &relative);
        /* A mesh with triangles never vanishes at a distance (a level of nothing but slivers could). */
        if (got == 0)
            got = previous;
        size_t kept = got < previous ? got : previous;
        ml->triangles[level] = allocate_triangles(kept, &lods->bytes);
        if (!ml->triangles[level])
            return diag_set(err, "build_lods", 0, "out of memory for %zu triangles of mesh %d", kept, i);
        ml->triangle_count[level] = (int)kept;
        lods->triangles[level] += (int)kept;
        if (got < previous) {
            *coarser = true;
            reorder(&ml->triangles[level][0][0], w->simplified, kept * 3, mesh, w->scratch);
            float absolute = relative * w->scale[i];
            if (absolute > lods->error[level])
                lods->error[level] = absolute;
        } else if (previous > 0) {
            memcpy(ml->triangles[level], ml->triangles[level - 1], previous * sizeof *ml->triangles[level]);
        }
    }
    return true;
}

static void drop_level(model_lods *lods, int level)
{
    for (int i = 0; i < lods->mesh_count; ++i) {
        free(lods->meshes[i].triangles[level]);
        lods->meshes[i].triangles[level] = NULL;
        lods->meshes[i].triangle_count[level] = 0;
    }
    lods->error[level] = 0.0f;
    lods->triangles[level] = 0;
}

static bool make_levels(lod_work *w, diag *err)
{
    const model *m = w->m;
    model_lods *lods = w->lods;
    size_t largest = 0;
    for (int i = 0; i < m->mesh_count; ++i) {
        size_t triangles = (size_t)m->meshes[i].triangle_count;
        largest = triangles > largest ? triangles : largest;
        w->model_triangles += m->meshes[i].triangle_count;
    }
    /* Each mesh's count fits an int (the readers hold it in one); their sum need not. */
    if (w->model_triangles > INT_MAX)
        return diag_set(err, "build_lods", 0, "%lld triangles in all: at most %d (model_lods counts them in an int)",
                        w->model_triangles, INT_MAX);
    w->simplified = malloc((largest ? largest : 1) * 3 * sizeof *w->simplified);
    w->scratch = malloc((largest ? largest : 1) * 3 * sizeof *w->scratch);
    if (!w->simplified || !w->scratch)
        return diag_set(err, "build_lods", 0, "out of memory for %zu triangles", largest);

    for (int i = 0; i < m->mesh_count; ++i) {
        const skin_mesh *mesh = &m->meshes[i];
        mesh_lod *ml = &lods->meshes[i];
        size_t triangles = (size_t)mesh->triangle_count;
        ml->triangles[0] = allocate_triangles(triangles, &lods->bytes);
        if (!ml->triangles[0])
            return diag_set(err, "build_lods", 0, "out of memory for %zu triangles of mesh %d", triangles, i);
        ml->triangle_count[0] = mesh->triangle_count;
        lods->triangles[0] += mesh->triangle_count;
        reorder(&ml->triangles[0][0][0], &mesh->triangles[0][0], triangles * 3, mesh, w->scratch);
        w->scale[i] = mesh->vertex_count > 0 ? meshopt_simplifyScale(&mesh->positions[0][0], (size_t)mesh->vertex_count,
                                                                     sizeof mesh->positions[0])
                                             : 0.0f;
    }
    lods->level_count = 1;

    int passes = w->s->coarser_count + (w->s->stand_in_triangles > 0);
    for (int pass = 0; pass < passes; ++pass) {
        bool stand_in = pass == w->s->coarser_count;
        int level = lods->level_count;
        bool coarser;
        if (!make_level(w, level, stand_in, stand_in ? 0.0f : w->s->ratios[pass], &coarser, err)) {
            drop_level(lods, level);
            return false;
        }
        /* A level no mesh made coarser would only cost memory and a choice at draw time. */
        if (!coarser) {
            drop_level(lods, level);
            continue;
        }
        lods->level_count++;
        lods->last_is_stand_in = stand_in;
    }
    return true;
}

bool build_lods(const model *m, const build_lod_desc *desc, model_lods **out, diag *err)
{
    *out = NULL;
    lod_settings settings;
    if (!resolve_desc(desc, &settings, err))
        return false;
    model_lods *lods = calloc(1, sizeof *lods);
    size_t meshes = (size_t)(m->mesh_count > 0 ? m->mesh_count : 1);
    if (lods) {
        lods->meshes = calloc(meshes, sizeof *lods->meshes);
        lods->mesh_count = m->mesh_count;
    }
    lod_work w = {.m = m, .s = &settings, .lods = lods, .scale = calloc(meshes, sizeof *w.scale)};
    bool ok = lods && lods->meshes && w.scale;
    if (!ok)
        diag_set(err, "build_lods", 0, "out of memory for the levels of %d meshes", m->mesh_count);
    else
        ok = make_levels(&w, err);
    free(w.simplified);
    free(w.scratch);
    free(w.scale);
    if (!ok) {
        model_lods_free(lods);
        return false;
    }
    lods->bytes += sizeof *lods + meshes * sizeof *lods->meshes;
    *out = lods;
    return true;
}
