/* .md5mesh reader: text -> model (skeleton in bind pose, skinned meshes). The format and its quirks are
 * described in docs/md5-format.md; every decision about a quirk is listed in tests/test_md5_quirks.c. */
#include "md5.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../base/file.h"
#include "../base/quat.h"
#include "md5_lexer.h"

/* The fewest bytes one item of each list can take ("vert 0(0 0)0 0" is 14): a count promising more
 * items than the rest of the file can hold is a lie we refuse before allocating for it. */
enum {
    JOINT_BYTES_MIN = 17,
    MESH_BYTES_MIN = 6,
    VERT_BYTES_MIN = 14,
    TRI_BYTES_MIN = 11,
    WEIGHT_BYTES_MIN = 19,
    JOINTS_MAX = 65535, /* skin_mesh stores joint indices as uint16 */
};

/* Biases of a vertex summing this far from 1 get a warning (all are renormalized anyway). */
#define BIAS_SUM_TOLERANCE 0.01f

/* One weight line of the mesh block. */
typedef struct weight_text {
    float position[3]; /* in its joint's space */
    float bias;
    int joint;
} weight_text;

/* What the mesh block says before it is built into a skin_mesh. */
typedef struct mesh_text {
    const char *verts_at;     /* first vert line, to find a vertex's line again for a diag */
    int vertex_count;
    int triangle_count;
    int weight_count;
    int *first_weight;        /* per vertex: startWeight */
    int *weights_used;        /* per vertex: countWeight */
    weight_text *weights;
} mesh_text;

static void mesh_text_free(mesh_text *t)
{
    free(t->first_weight);
    free(t->weights_used);
    free(t->weights);
    *t = (mesh_text){0};
}

/* malloc that never returns NULL for a zero count, so "NULL" always means out of memory. */
static void *allocate(size_t count, size_t size, size_t *bytes)
{
    size_t total = count * size;
    *bytes += total;
    return malloc(total ? total : 1);
}

static bool parse_joints(md5_lexer *lex, model *m)
{
    skeleton *s = &m->skeleton;
    if (!md5_lexer_expect(lex, "joints", 6) || !md5_lexer_punctuation(lex, '{'))
        return false;
    const char *block = lex->cursor;
    for (int i = 0; i < s->joint_count; ++i) {
        md5_lexer_skip_space(lex);
        const char *at = lex->cursor;
        const char *name;
        size_t name_length;
        int parent;
        float position[3], xyz[3];
        if (!md5_lexer_string(lex, &name, &name_length, "a joint name") ||
            !md5_lexer_int(lex, &parent, "a parent index") || !md5_lexer_punctuation(lex, '(') ||
            !md5_lexer_float(lex, &position[0], "a position") || !md5_lexer_float(lex, &position[1], "a position") ||
            !md5_lexer_float(lex, &position[2], "a position") || !md5_lexer_punctuation(lex, ')') ||
            !md5_lexer_punctuation(lex, '(') || !md5_lexer_float(lex, &xyz[0], "a quaternion x") ||
            !md5_lexer_float(lex, &xyz[1], "a quaternion y") || !md5_lexer_float(lex, &xyz[2], "a quaternion z") ||
            !md5_lexer_punctuation(lex, ')'))
            return false;
        s->names[i] = md5_copy_string(name, name_length);
        if (!s->names[i])
            return md5_lexer_fail(lex, at, "out of memory");
        m->bytes += name_length + 1;
        if (parent < -1 || parent >= s->joint_count)
            return md5_lexer_fail(lex, at, "joint %d '%s' has parent %d, out of range (numJoints %d)", i,
                                  s->names[i], parent, s->joint_count);
        if (parent >= i)
            return md5_lexer_fail(lex, at, "joint %d '%s' has parent %d: a parent must come before its child",
                                  i, s->names[i], parent);
        s->parents[i] = parent;
        joint_pose *pose = &s->bind_object[i];
        if (!quat_from_xyz(xyz[0], xyz[1], xyz[2], pose->rotation))
            md5_lexer_warn(lex, at, "joint '%s' orientation is not a unit quaternion (|xyz|^2 = %g): renormalized",
                           s->names[i], (double)(xyz[0] * xyz[0] + xyz[1] * xyz[1] + xyz[2] * xyz[2]));
        memcpy(pose->position, position, sizeof position);
        pose->unused = 0.0f;

        /* Bind matrix = translate * rotate; its inverse is rigid, so cglm's transpose-based inverse is
         * exact and cheaper than a general one. */
        mat4 *inverse = &s->inverse_bind[i];
        glm_quat_mat4(pose->rotation, *inverse);
        glm_vec3_copy(pose->position, (*inverse)[3]);
        glm_inv_tr(*inverse);
        for (int k = 0; k < 16; ++k)
            if (!isfinite((*inverse)[k / 4][k % 4]))
                return md5_lexer_fail(lex, at, "joint '%s' position is too large", s->names[i]);
    }
    if (!md5_lexer_punctuation(lex, '}'))
        return false;
    int first, second;
    if (md5_find_duplicate_name(s->names, s->joint_count, &first, &second))
        md5_lexer_warn(lex, md5_lexer_nth_string(lex, block, second), "joints %d and %d are both named '%s': a lookup by name finds the first",
                       first, second, s->names[first]);
    return true;
}

static bool parse_vertex(md5_lexer *lex, int index, float uv[2], int *first_weight, int *weights_used)
{
    md5_lexer_skip_space(lex);
    const char *at = lex->cursor;
    int written;
    if (!md5_lexer_expect(lex, "vert", 4) || !md5_lexer_int(lex, &written, "a vertex index"))
        return false;
    if (written != index)
        return md5_lexer_fail(lex, at, "vert %d where vert %d was expected", written, index);
    return md5_lexer_punctuation(lex, '(') && md5_lexer_float(lex, &uv[0], "a texture s") &&
           md5_lexer_float(lex, &uv[1], "a texture t") && md5_lexer_punctuation(lex, ')') &&
           md5_lexer_int(lex, first_weight, "startWeight") && md5_lexer_int(lex, weights_used, "countWeight");
}

/* Where vertex `index`'s line starts. Only diags need it, so rather than remember every vertex's position
 * we read the vert lines again (they parsed once, so they parse the same way now). */
static const char *vertex_line(const md5_lexer *lex, const mesh_text *t, int index)
{
    md5_lexer scan = *lex;
    scan.cursor = t->verts_at;
    scan.err = NULL;
    scan.warnings = NULL;
    scan.failed = false;
    float uv[2];
    int first, used;
    for (int i = 0; i < index; ++i)
        if (!parse_vertex(&scan, i, uv, &first, &used))
            return NULL;
    md5_lexer_skip_space(&scan);
    return scan.cursor;
}

static bool parse_mesh_text(md5_lexer *lex, mesh_text *t, skin_mesh *mesh, int joint_count, size_t *bytes)
{
    if (!md5_lexer_count(lex, "numverts", 0, VERT_BYTES_MIN, &t->vertex_count))
        return false;
    size_t vertices = (size_t)t->vertex_count;
    mesh->vertex_count = t->vertex_count;
    mesh->uvs = allocate(vertices, sizeof *mesh->uvs, bytes);
    t->first_weight = malloc((vertices ? vertices : 1) * sizeof *t->first_weight);
    t->weights_used = malloc((vertices ? vertices : 1) * sizeof *t->weights_used);
    if (!mesh->uvs || !t->first_weight || !t->weights_used)
        return md5_lexer_fail(lex, lex->cursor, "out of memory for %d vertices", t->vertex_count);
    md5_lexer_skip_space(lex);
    t->verts_at = lex->cursor;
    for (int i = 0; i < t->vertex_count; ++i)
        if (!parse_vertex(lex, i, mesh->uvs[i], &t->first_weight[i], &t->weights_used[i]))
            return false;

    if (!md5_lexer_count(lex, "numtris", 0, TRI_BYTES_MIN, &t->triangle_count))
        return false;
    mesh->triangle_count = t->triangle_count;
    mesh->triangles = allocate((size_t)t->triangle_count, sizeof *mesh->triangles, bytes);
    if (!mesh->triangles)
        return md5_lexer_fail(lex, lex->cursor, "out of memory for %d triangles", t->triangle_count);
    for (int i = 0; i < t->triangle_count; ++i) {
        md5_lexer_skip_space(lex);
        const char *at = lex->cursor;
        int index;
        if (!md5_lexer_expect(lex, "tri", 3) || !md5_lexer_int(lex, &index, "a triangle index"))
            return false;
        if (index != i)
            return md5_lexer_fail(lex, at, "tri %d where tri %d was expected", index, i);
        for (int k = 0; k < 3; ++k) {
            int vertex;
            if (!md5_lexer_int(lex, &vertex, "a vertex index"))
                return false;
            if (vertex < 0 || vertex >= t->vertex_count)
                return md5_lexer_fail(lex, at, "tri %d uses vertex %d, out of range (numverts %d)", i, vertex,
                                      t->vertex_count);
            mesh->triangles[i][k] = (uint32_t)vertex;
        }
    }

    if (!md5_lexer_count(lex, "numweights", 0, WEIGHT_BYTES_MIN, &t->weight_count))
        return false;
    t->weights = malloc((t->weight_count ? (size_t)t->weight_count : 1) * sizeof *t->weights);
    if (!t->weights)
        return md5_lexer_fail(lex, lex->cursor, "out of memory for %d weights", t->weight_count);
    for (int i = 0; i < t->weight_count; ++i) {
        md5_lexer_skip_space(lex);
        const char *at = lex->cursor;
        int index;
        weight_text *weight = &t->weights[i];
        if (!md5_lexer_expect(lex, "weight", 6) || !md5_lexer_int(lex, &index, "a weight index"))
            return false;
        if (index != i)
            return md5_lexer_fail(lex, at, "weight %d where weight %d was expected", index, i);
        if (!md5_lexer_int(lex, &weight->joint, "a joint index") || !md5_lexer_float(lex, &weight->bias, "a bias") ||
            !md5_lexer_punctuation(lex, '(') || !md5_lexer_float(lex, &weight->position[0], "a position") ||
            !md5_lexer_float(lex, &weight->position[1], "a position") ||
            !md5_lexer_float(lex, &weight->position[2], "a position") || !md5_lexer_punctuation(lex, ')'))
            return false;
        if (weight->joint < 0 || weight->joint >= joint_count)
            return md5_lexer_fail(lex, at, "weight %d uses joint %d, out of range (numJoints %d)", i, weight->joint,
                                  joint_count);
        if (weight->bias < 0.0f)
            return md5_lexer_fail(lex, at, "weight %d has a negative bias (%g)", i, (double)weight->bias);
    }
    return true;
}

/* Bind positions and skin influences from the weights: P = sum of bias * (joint.pos +
 * rotate(joint.orient, weight.pos)) over all of a vertex's weights, renormalized; the 4 largest weights go
 * to the GPU. */
static bool build_vertices(md5_lexer *lex, const mesh_text *t, const skeleton *s, int mesh_index,
                           skin_mesh *mesh, size_t *bytes, float *skin_reach)
{
    size_t vertices = (size_t)t->vertex_count;
    mesh->positions = allocate(vertices, sizeof *mesh->positions, bytes);
    mesh->joints = allocate(vertices, sizeof *mesh->joints, bytes);
    mesh->weights = allocate(vertices, sizeof *mesh->weights, bytes);
    if (!mesh->positions || !mesh->joints || !mesh->weights)
        return md5_lexer_fail(lex, NULL, "out of memory for %d vertices", t->vertex_count);
    int off_sum_count = 0, off_sum_worst = -1;
    float off_sum_worst_sum = 1.0f;
    int first_cut = -1;
    for (int v = 0; v < t->vertex_count; ++v) {
        int first = t->first_weight[v], used = t->weights_used[v];
        if (used <= 0)
            return md5_lexer_fail(lex, vertex_line(lex, t, v), "vert %d has countWeight %d: at least 1 needed", v, used);
        if (first < 0 || (int64_t)first + used > t->weight_count)
            return md5_lexer_fail(lex, vertex_line(lex, t, v), "vert %d uses weights %d..%lld, out of range (numweights %d)",
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
            return md5_lexer_fail(lex, vertex_line(lex, t, v), "vert %d: its weights' biases sum to %g", v, sum);
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
                return md5_lexer_fail(lex, vertex_line(lex, t, v), "vert %d: bind position is too large", v);
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
                return md5_lexer_fail(lex, vertex_line(lex, t, v), "vert %d: bind position is too large", v);
            if (reach > *skin_reach)
                *skin_reach = reach;
        }
    }
    if (off_sum_count > 0)
        md5_lexer_warn(lex, vertex_line(lex, t, off_sum_worst),
                       "mesh %d: %d vertices whose biases do not sum to 1 (worst: vert %d, sum %g): renormalized",
                       mesh_index, off_sum_count, off_sum_worst, (double)off_sum_worst_sum);
    if (mesh->vertices_cut > 0)
        md5_lexer_warn(lex, vertex_line(lex, t, first_cut),
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
static bool build_normals(md5_lexer *lex, skin_mesh *mesh, size_t *bytes)
{
    size_t vertices = (size_t)mesh->vertex_count;
    mesh->normals = allocate(vertices, sizeof *mesh->normals, bytes);
    if (!mesh->normals)
        return md5_lexer_fail(lex, NULL, "out of memory for %d normals", mesh->vertex_count);
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
         * OpenGL's default), so the outward normal is ac x ab. tests/test_md5_mesh.c checks it on a cube. */
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

static bool parse_mesh(md5_lexer *lex, model *m, int mesh_index)
{
    skin_mesh *mesh = &m->meshes[mesh_index];
    if (!md5_lexer_punctuation(lex, '{'))
        return false;
    const char *shader = "";
    size_t shader_length = 0;
    if (MD5_ACCEPT(lex, "shader")) {
        if (!md5_lexer_string(lex, &shader, &shader_length, "a shader path"))
            return false;
        mesh->shader_line = md5_lexer_line(lex, shader);
    }
    mesh->shader = md5_copy_string(shader, shader_length);
    if (!mesh->shader)
        return md5_lexer_fail(lex, lex->cursor, "out of memory");
    m->bytes += shader_length + 1;
    char texture[1024];
    /* A candidate refused (a link out of the folder) is reported at the shader's line. */
    diag_list refusals = {0};
    bool texture_found = md5_resolve_texture(lex->name, mesh->shader, texture, sizeof texture, &refusals);
    for (int r = 0; r < refusals.count; ++r)
        diag_list_add(lex->warnings, lex->name, mesh->shader_line, "texture for shader \"%s\": %s %s", mesh->shader,
                      refusals.items[r].file, refusals.items[r].message);
    diag_list_free(&refusals);
    if (texture_found) {
        mesh->texture_path = md5_copy_string(texture, strlen(texture));
        m->bytes += strlen(texture) + 1;
    }

    mesh_text text = {0};
    bool ok = parse_mesh_text(lex, &text, mesh, m->skeleton.joint_count, &m->bytes) &&
              md5_lexer_punctuation(lex, '}') &&
              build_vertices(lex, &text, &m->skeleton, mesh_index, mesh, &m->bytes, &m->skin_reach) &&
              build_normals(lex, mesh, &m->bytes);
    mesh->weight_count = text.weight_count;
    mesh_text_free(&text);
    return ok;
}

bool md5_parse_model(const char *text, size_t size, const char *name, model **out, diag *err,
                     diag_list *warnings)
{
    *out = NULL;
    if (!text || size == 0)
        return diag_set(err, name, 0, "empty file");
    md5_lexer lex;
    md5_lexer_init(&lex, text, size, name, err, warnings);
    if (!md5_lexer_version(&lex, ".md5mesh"))
        return false;
    if (MD5_ACCEPT(&lex, "numFrames"))
        return md5_lexer_fail(&lex, lex.cursor, "not an .md5mesh: 'numFrames' starts an .md5anim or .md5camera");
    int joint_count, mesh_count;
    if (!md5_lexer_count(&lex, "numJoints", 1, JOINT_BYTES_MIN, &joint_count))
        return false;
    if (joint_count > JOINTS_MAX)
        return md5_lexer_fail(&lex, lex.cursor, "numJoints %d: at most %d supported", joint_count, JOINTS_MAX);
    if (!md5_lexer_count(&lex, "numMeshes", 0, MESH_BYTES_MIN, &mesh_count))
        return false;

    model *m = calloc(1, sizeof *m);
    if (!m)
        return md5_lexer_fail(&lex, NULL, "out of memory");
    m->bytes = sizeof *m;
    skeleton *s = &m->skeleton;
    size_t joints = (size_t)joint_count;
    s->joint_count = joint_count;
    s->names = calloc(joints, sizeof *s->names);
    s->parents = malloc(joints * sizeof *s->parents);
    s->bind_object = md5_alloc_aligned(joints * sizeof *s->bind_object);
    s->inverse_bind = md5_alloc_aligned(joints * sizeof *s->inverse_bind);
    m->meshes = calloc(mesh_count ? (size_t)mesh_count : 1, sizeof *m->meshes);
    m->mesh_count = mesh_count;
    m->bytes += joints * (sizeof *s->names + sizeof *s->parents + sizeof *s->bind_object + sizeof *s->inverse_bind) +
                (size_t)mesh_count * sizeof *m->meshes;
    if (!s->names || !s->parents || !s->bind_object || !s->inverse_bind || !m->meshes) {
        md5_lexer_fail(&lex, NULL, "out of memory for %d joints", joint_count);
        goto fail;
    }
    if (!parse_joints(&lex, m))
        goto fail;
    for (int i = 0; i < mesh_count; ++i) {
        md5_lexer_skip_space(&lex);
        if (lex.cursor == lex.end) {
            /* A header promising more meshes than the file has: the ones that are there are whole. */
            md5_lexer_warn(&lex, lex.cursor, "numMeshes %d but only %d mesh blocks: using those", mesh_count, i);
            m->mesh_count = i;
            break;
        }
        if (!md5_lexer_expect(&lex, "mesh", 4) || !parse_mesh(&lex, m, i))
            goto fail;
    }
    if (!md5_lexer_at_end(&lex)) {
        if (lex.failed)
            goto fail;
        md5_lexer_warn(&lex, lex.cursor, "%s after the last of numMeshes %d meshes: ignored",
                       MD5_ACCEPT(&lex, "mesh") ? "another mesh block" : "text", mesh_count);
    }
    if (lex.failed)
        goto fail;
    model_measure_bind_bounds(m);
    *out = m;
    return true;
fail:
    model_free(m);
    return false;
}

bool md5_load_model(const char *path, model **out, diag *err, diag_list *warnings)
{
    *out = NULL;
    char *text;
    size_t size;
    if (!file_read_all(path, &text, &size, err))
        return false;
    bool ok = md5_parse_model(text, size, path, out, err, warnings);
    free(text);
    return ok;
}
