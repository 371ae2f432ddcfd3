/* raw model -> model: inverse binds, the 4-weight cut, bind positions, normals, tangents, skin_reach, bind
 * bounds. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "build.h"
#include "build_internal.h"

/* Biases of a vertex summing this far from 1 get a warning (all are renormalized anyway). */
#define BIAS_SUM_TOLERANCE 0.01f

/* malloc that never returns NULL for a zero count, so "NULL" always means out of memory. */
static void *allocate(size_t count, size_t size, size_t *bytes)
{
    size_t total = count * size;
    *bytes += total;
    return malloc(total ? total : 1);
}

static char *copy_string(const char *text, size_t *bytes)
{
    size_t length = strlen(text) + 1;
    char *copy = malloc(length);
    if (copy)
        memcpy(copy, text, length);
    *bytes += length;
    return copy;
}

static bool build_skeleton(build_report *r, const raw_skeleton *raw, model *m)
{
    skeleton *s = &m->skeleton;
    size_t joints = (size_t)raw->joint_count;
    s->joint_count = raw->joint_count;
    s->names = calloc(joints, sizeof *s->names);
    s->parents = malloc(joints * sizeof *s->parents);
    s->bind_object = build_alloc_aligned(joints * sizeof *s->bind_object);
    s->inverse_bind = build_alloc_aligned(joints * sizeof *s->inverse_bind);
    m->bytes += joints * (sizeof *s->names + sizeof *s->parents + sizeof *s->bind_object + sizeof *s->inverse_bind);
    if (!s->names || !s->parents || !s->bind_object || !s->inverse_bind)
        return build_fail(r, BUILD_NO_POSITION, "out of memory for %d joints", raw->joint_count);
    memcpy(s->parents, raw->parents, joints * sizeof *s->parents);
    memcpy(s->bind_object, raw->bind_object, joints * sizeof *s->bind_object);
    for (int i = 0; i < s->joint_count; ++i) {
        s->names[i] = copy_string(raw->names[i], &m->bytes);
        if (!s->names[i])
            return build_fail(r, raw->joint_at[i], "out of memory");
        /* Bind matrix = translate * rotate; its inverse is rigid, so cglm's transpose-based inverse is
         * exact and cheaper than a general one. */
        const joint_pose *pose = &s->bind_object[i];
        mat4 *inverse = &s->inverse_bind[i];
        glm_quat_mat4((float *)pose->rotation, *inverse);
        glm_vec3_copy((float *)pose->position, (*inverse)[3]);
        glm_inv_tr(*inverse);
        for (int k = 0; k < 16; ++k)
            if (!isfinite((*inverse)[k / 4][k % 4]))
                return build_fail(r, raw->joint_at[i], "joint '%s' position is too large", s->names[i]);
    }
    return true;
}

/* Bind positions and skin influences from the weights: P = sum of bias * (joint.pos +
 * rotate(joint.orient, weight.pos)) over all of a vertex's weights, renormalized; the 4 largest weights go
 * to the GPU. */
static bool build_vertices(build_report *r, const raw_mesh *t, const skeleton *s, int mesh_index,
                           skin_mesh *mesh, size_t *bytes, float *skin_reach)
{
    size_t vertices = (size_t)t->vertex_count;
    mesh->positions = allocate(vertices, sizeof *mesh->positions, bytes);
    mesh->joints = allocate(vertices, sizeof *mesh->joints, bytes);
    mesh->weights = allocate(vertices, sizeof *mesh->weights, bytes);
    if (!mesh->positions || !mesh->joints || !mesh->weights)
        return build_fail(r, BUILD_NO_POSITION, "out of memory for %d vertices", t->vertex_count);
    int off_sum_count = 0, off_sum_worst = -1;
    float off_sum_worst_sum = 1.0f;
    int first_cut = -1;
    for (int v = 0; v < t->vertex_count; ++v) {
        int first = t->first_weight[v], used = t->weights_used[v];
        if (used <= 0)
            return build_fail(r, t->vertex_at[v], "vert %d has countWeight %d: at least 1 needed", v, used);
        if (first < 0 || (int64_t)first + used > t->weight_count)
            return build_fail(r, t->vertex_at[v], "vert %d uses weights %d..%lld, out of range (numweights %d)",
                              v, first, (long long)first + used - 1, t->weight_count);
        if (used > mesh->max_influences)
            mesh->max_influences = used;

        /* Keep the SKIN_MAX_INFLUENCES largest by insertion, ties in file order. */
        int kept_index[SKIN_MAX_INFLUENCES];
        float kept_bias[SKIN_MAX_INFLUENCES];
        int kept = 0;
        double sum = 0.0, position[3] = {0.0, 0.0, 0.0};
        for (int w = first; w < first + used; ++w) {
            float bias = t->weights[w].bias;
            const joint_pose *joint = &s->bind_object[t->weights[w].joint];
            vec3 rotated;
            glm_quat_rotatev((float *)joint->rotation, (float *)t->weights[w].position, rotated);
            for (int k = 0; k < 3; ++k)
                position[k] += (double)bias * ((double)joint->position[k] + (double)rotated[k]);
            sum += bias;
            int slot = kept < SKIN_MAX_INFLUENCES ? kept++ : SKIN_MAX_INFLUENCES;
            if (slot == SKIN_MAX_INFLUENCES && bias <= kept_bias[SKIN_MAX_INFLUENCES - 1])
                continue;
            if (slot == SKIN_MAX_INFLUENCES)
                slot = SKIN_MAX_INFLUENCES - 1;
            while (slot > 0 && kept_bias[slot - 1] < bias) {
                kept_bias[slot] = kept_bias[slot - 1];
                kept_index[slot] = kept_index[slot - 1];
                --slot;
            }
            kept_bias[slot] = bias;
            kept_index[slot] = w;
        }
        if (!(sum > 0.0) || !isfinite(sum))
            return build_fail(r, t->vertex_at[v], "vert %d: its weights' biases sum to %g", v, sum);
        if (fabs(sum - 1.0) > BIAS_SUM_TOLERANCE) {
            if (off_sum_worst < 0 || fabs(sum - 1.0) > fabs((double)off_sum_worst_sum - 1.0)) {
                off_sum_worst = v;
                off_sum_worst_sum = (float)sum;
            }
            ++off_sum_count;
        }
        double kept_sum = 0.0;
        for (int k = 0; k < kept; ++k)
            kept_sum += kept_bias[k];
        if (used > SKIN_MAX_INFLUENCES) {
            float lost = (float)(1.0 - kept_sum / sum);
            if (first_cut < 0)
                first_cut = v;
            ++mesh->vertices_cut;
            if (lost > mesh->largest_weight_lost)
                mesh->largest_weight_lost = lost;
        }
        if (!(kept_sum > 0.0)) /* four zero biases and a positive fifth cannot happen: kept are the largest */
            kept_sum = 1.0;
        for (int k = 0; k < SKIN_MAX_INFLUENCES; ++k) {
            mesh->joints[v][k] = k < kept ? (uint16_t)t->weights[kept_index[k]].joint : 0;
            mesh->weights[v][k] = k < kept ? (float)(kept_bias[k] / kept_sum) : 0.0f;
        }
        for (int k = 0; k < 3; ++k) {
            mesh->positions[v][k] = (float)(position[k] / sum);
            if (!isfinite(mesh->positions[v][k]))
                return build_fail(r, t->vertex_at[v], "vert %d: bind position is too large", v);
        }
        for (int k = 0; k < kept; ++k) {
            const float *joint = s->bind_object[t->weights[kept_index[k]].joint].position;
            /* In double: two finite float positions can be further apart than a float can say. */
            double distance2 = 0.0;
            for (int axis = 0; axis < 3; ++axis)
                distance2 += ((double)mesh->positions[v][axis] - joint[axis]) *
                             ((double)mesh->positions[v][axis] - joint[axis]);
            float reach = (float)sqrt(distance2);
            if (!isfinite(reach))
                return build_fail(r, t->vertex_at[v], "vert %d: bind position is too large", v);
            if (reach > *skin_reach)
                *skin_reach = reach;
        }
    }
    if (off_sum_count > 0)
        build_warn(r, t->vertex_at[off_sum_worst],
                   "mesh %d: %d vertices whose biases do not sum to 1 (worst: vert %d, sum %g): renormalized",
                   mesh_index, off_sum_count, off_sum_worst, (double)off_sum_worst_sum);
    if (mesh->vertices_cut > 0)
        build_warn(r, t->vertex_at[first_cut],
                   "mesh %d: %d vertices have more than %d weights (at most %d): kept the %d largest, "
                   "losing up to %.1f%% of a vertex's weight",
                   mesh_index, mesh->vertices_cut, SKIN_MAX_INFLUENCES, mesh->max_influences,
                   SKIN_MAX_INFLUENCES, 100.0 * (double)mesh->largest_weight_lost);
    return true;
}

/* Bind normals: the sum of the faces' normals around each vertex, area-weighted (the unnormalized cross
 * product), so slivers and degenerate triangles count for little or nothing. Each face normal is
 * computed in double, where the differences of finite floats cannot overflow; a sum that still overflows
 * a float (absurd coordinates) falls back to the lone-vertex normal rather than a NaN. */
static bool build_normals(build_report *r, skin_mesh *mesh, size_t *bytes)
{
    size_t vertices = (size_t)mesh->vertex_count;
    mesh->normals = allocate(vertices, sizeof *mesh->normals, bytes);
    if (!mesh->normals)
        return build_fail(r, BUILD_NO_POSITION, "out of memory for %d normals", mesh->vertex_count);
    memset(mesh->normals, 0, vertices * sizeof *mesh->normals);
    for (int i = 0; i < mesh->triangle_count; ++i) {
        const uint32_t *tri = mesh->triangles[i];
        const float *a = mesh->positions[tri[0]], *b = mesh->positions[tri[1]], *c = mesh->positions[tri[2]];
        double ab[3], ac[3];
        for (int k = 0; k < 3; ++k) {
            ab[k] = (double)b[k] - a[k];
            ac[k] = (double)c[k] - a[k];
        }
        /* md5 triangles are wound clockwise seen from the front (id Tech 4 culls the other way round from
         * OpenGL's default), so the outward normal is ac x ab. tests/test_md5_mesh.c checks it on a cube.
         * A reader of a format wound the other way turns its triangles round (raw.h). */
        float normal[3] = {
            (float)(ac[1] * ab[2] - ac[2] * ab[1]),
            (float)(ac[2] * ab[0] - ac[0] * ab[2]),
            (float)(ac[0] * ab[1] - ac[1] * ab[0]),
        };
        for (int corner = 0; corner < 3; ++corner)
            for (int k = 0; k < 3; ++k)
                mesh->normals[tri[corner]][k] += normal[k];
    }
    for (size_t v = 0; v < vertices; ++v) {
        float *n = mesh->normals[v];
        double length = sqrt((double)n[0] * n[0] + (double)n[1] * n[1] + (double)n[2] * n[2]);
        if (length > 0.0 && isfinite(length)) {
            for (int k = 0; k < 3; ++k)
                n[k] = (float)(n[k] / length);
        } else {
            n[0] = 0.0f;
            n[1] = 0.0f;
            n[2] = 1.0f;
        }
    }
    return true;
}

/* A unit vector at right angles to the unit vector n: n crossed with the axis it leans on least. */
static void some_perpendicular(const float n[3], float out[3])
{
    float axis[3] = {0.0f, 0.0f, 0.0f};
    int least = fabsf(n[0]) <= fabsf(n[1]) && fabsf(n[0]) <= fabsf(n[2]) ? 0 : fabsf(n[1]) <= fabsf(n[2]) ? 1 : 2;
    axis[least] = 1.0f;
    float c[3] = {n[1] * axis[2] - n[2] * axis[1], n[2] * axis[0] - n[0] * axis[2], n[0] * axis[1] - n[1] * axis[0]};
    float length = sqrtf(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]);
    for (int k = 0; k < 3; ++k)
        out[k] = length > 0.0f ? c[k] / length : (k == 0 ? 1.0f : 0.0f);
}

/* Bind tangents (skin_mesh.tangents). Each triangle's edges against its UV edges give the directions u and v
 * grow along it, dP/du and dP/dv, scaled by its UV area (the unnormalized solution), so a triangle counts by
 * its size in the texture and a sliver for little. A vertex sums them apart by the triangle's handedness
 * (the sign of its UV area: a mirrored half of a texture has the other), takes the side with more area,
 * makes the tangent a unit vector at right angles to its normal (Gram-Schmidt) and records the handedness
 * the bitangent needs. Sums in double, as the normals. Needs the normals. */
static bool build_tangents(build_report *r, skin_mesh *mesh, size_t *bytes)
{
    size_t vertices = (size_t)mesh->vertex_count;
    mesh->tangents = allocate(vertices, sizeof *mesh->tangents, bytes);
    /* Per vertex and handedness: the sum of dP/du, of dP/dv, and the UV area behind them. */
    double (*sums)[2][7] = vertices ? calloc(vertices, sizeof *sums) : NULL;
    if (!mesh->tangents || (vertices && !sums)) {
        free(sums);
        return build_fail(r, BUILD_NO_POSITION, "out of memory for %d tangents", mesh->vertex_count);
    }
    for (int i = 0; i < mesh->triangle_count; ++i) {
        const uint32_t *tri = mesh->triangles[i];
        const float *a = mesh->positions[tri[0]], *b = mesh->positions[tri[1]], *c = mesh->positions[tri[2]];
        const float *ta = mesh->uvs[tri[0]], *tb = mesh->uvs[tri[1]], *tc = mesh->uvs[tri[2]];
        double e1[3], e2[3];
        for (int k = 0; k < 3; ++k) {
            e1[k] = (double)b[k] - a[k];
            e2[k] = (double)c[k] - a[k];
        }
        double du1 = (double)tb[0] - ta[0], dv1 = (double)tb[1] - ta[1];
        double du2 = (double)tc[0] - ta[0], dv2 = (double)tc[1] - ta[1];
        double area = du1 * dv2 - du2 * dv1; /* twice the signed UV area */
        if (!(fabs(area) > 1e-20) || !isfinite(area))
            continue; /* no UV area: says nothing about the directions */
        /* dP/du * area and dP/dv * area: the edges solved for the UV directions, left unnormalized. */
        double u_dir[3], v_dir[3];
        for (int k = 0; k < 3; ++k) {
            u_dir[k] = dv2 * e1[k] - dv1 * e2[k];
            v_dir[k] = du1 * e2[k] - du2 * e1[k];
        }
        int side = area > 0.0 ? 0 : 1;
        double sign = area > 0.0 ? 1.0 : -1.0; /* the sums are of the scaled directions, kept pointing along u, v */
        for (int corner = 0; corner < 3; ++corner) {
            double *sum = sums[tri[corner]][side];
            for (int k = 0; k < 3; ++k) {
                sum[k] += sign * u_dir[k];
                sum[3 + k] += sign * v_dir[k];
            }
            sum[6] += fabs(area);
        }
    }
    for (size_t v = 0; v < vertices; ++v) {
        const float *n = mesh->normals[v];
        int side = sums[v][1][6] > sums[v][0][6] ? 1 : 0;
        const double *sum = sums[v][side];
        double dot = sum[0] * n[0] + sum[1] * n[1] + sum[2] * n[2];
        double t[3] = {sum[0] - dot * n[0], sum[1] - dot * n[1], sum[2] - dot * n[2]};
        double length = sqrt(t[0] * t[0] + t[1] * t[1] + t[2] * t[2]);
        float *out = mesh->tangents[v];
        if (sum[6] > 0.0 && length > 1e-12 * sum[6] && isfinite(length)) {
            for (int k = 0; k < 3; ++k)
                out[k] = (float)(t[k] / length);
            /* Renormalized in float: the tangent the GPU gets is unit to float precision. */
            float l = sqrtf(out[0] * out[0] + out[1] * out[1] + out[2] * out[2]);
            for (int k = 0; k < 3; ++k)
                out[k] /= l;
            /* The handedness: does cross(n, t) point along the summed v direction, or against it? */
            double b[3] = {n[1] * t[2] - n[2] * t[1], n[2] * t[0] - n[0] * t[2], n[0] * t[1] - n[1] * t[0]};
            out[3] = b[0] * sum[3] + b[1] * sum[4] + b[2] * sum[5] < 0.0 ? -1.0f : 1.0f;
        } else {
            some_perpendicular(n, out);
            out[3] = 1.0f;
        }
    }
    free(sums);
    return true;
}

static bool build_mesh(build_report *r, const raw_mesh *raw, int mesh_index, model *m)
{
    skin_mesh *mesh = &m->meshes[mesh_index];
    mesh->shader = copy_string(raw->shader ? raw->shader : "", &m->bytes);
    mesh->shader_line = raw->shader_line;
    if (!mesh->shader)
        return build_fail(r, BUILD_NO_POSITION, "out of memory");
    if (raw->texture_path) {
        mesh->texture_path = copy_string(raw->texture_path, &m->bytes);
        if (!mesh->texture_path)
            return build_fail(r, BUILD_NO_POSITION, "out of memory");
    }
    build_pass_notes(r, &raw->notes);
    size_t vertices = (size_t)raw->vertex_count, triangles = (size_t)raw->triangle_count;
    mesh->vertex_count = raw->vertex_count;
    mesh->triangle_count = raw->triangle_count;
    mesh->weight_count = raw->weight_count;
    mesh->uvs = allocate(vertices, sizeof *mesh->uvs, &m->bytes);
    mesh->triangles = allocate(triangles, sizeof *mesh->triangles, &m->bytes);
    if (!mesh->uvs || !mesh->triangles)
        return build_fail(r, BUILD_NO_POSITION, "out of memory for %d vertices", raw->vertex_count);
    memcpy(mesh->uvs, raw->uvs, vertices * sizeof *mesh->uvs);
    memcpy(mesh->triangles, raw->triangles, triangles * sizeof *mesh->triangles);
    return build_vertices(r, raw, &m->skeleton, mesh_index, mesh, &m->bytes, &m->skin_reach) &&
           build_normals(r, mesh, &m->bytes) && build_tangents(r, mesh, &m->bytes);
}

/* The box of every vertex in bind pose; all zero without vertices. */
static void measure_bind_bounds(model *m)
{
    float low[3] = {INFINITY, INFINITY, INFINITY}, high[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (int i = 0; i < m->mesh_count; ++i)
        for (int v = 0; v < m->meshes[i].vertex_count; ++v)
            for (int axis = 0; axis < 3; ++axis) {
                low[axis] = fminf(low[axis], m->meshes[i].positions[v][axis]);
                high[axis] = fmaxf(high[axis], m->meshes[i].positions[v][axis]);
            }
    memset(m->bind_bounds, 0, sizeof m->bind_bounds);
    if (low[0] > high[0])
        return; /* no vertices */
    memcpy(m->bind_bounds[0], low, sizeof low);
    memcpy(m->bind_bounds[1], high, sizeof high);
}

bool build_model(const raw_model *raw, model **out, diag *err, diag_list *warnings)
{
    *out = NULL;
    build_report r = build_report_start(&raw->source, err, warnings);
    model *m = calloc(1, sizeof *m);
    if (!m)
        return build_fail(&r, BUILD_NO_POSITION, "out of memory");
    m->bytes = sizeof *m;
    m->meshes = calloc(raw->mesh_count ? (size_t)raw->mesh_count : 1, sizeof *m->meshes);
    m->mesh_count = raw->mesh_count;
    m->bytes += (size_t)raw->mesh_count * sizeof *m->meshes;
    if (!m->meshes) {
        m->mesh_count = 0;
        build_fail(&r, BUILD_NO_POSITION, "out of memory for %d joints", raw->skeleton.joint_count);
        goto fail;
    }
    if (!build_skeleton(&r, &raw->skeleton, m))
        goto fail;
    for (int i = 0; i < raw->mesh_count; ++i)
        if (!build_mesh(&r, &raw->meshes[i], i, m))
            goto fail;
    measure_bind_bounds(m);
    build_pass_notes(&r, &raw->trailing_notes);
    *out = m;
    return true;
fail:
    model_free(m);
    return false;
}
