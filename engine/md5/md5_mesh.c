/* .md5mesh reader: text -> raw model (skeleton in bind pose, meshes with their weight lists as written).
 * The format and its quirks are described in docs/md5-format.md; every decision about a quirk is listed in
 * tests/test_md5_quirks.c. Baking the runtime model is engine/build's (build_model). */
#include "md5.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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

/* malloc that never returns NULL for a zero count, so "NULL" always means out of memory. */
static void *allocate(size_t count, size_t size)
{
    size_t total = count * size;
    return malloc(total ? total : 1);
}

static bool parse_joints(md5_lexer *lex, raw_skeleton *s)
{
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
        if (parent < -1 || parent >= s->joint_count)
            return md5_lexer_fail(lex, at, "joint %d '%s' has parent %d, out of range (numJoints %d)", i,
                                  s->names[i], parent, s->joint_count);
        if (parent >= i)
            return md5_lexer_fail(lex, at, "joint %d '%s' has parent %d: a parent must come before its child",
                                  i, s->names[i], parent);
        s->parents[i] = parent;
        s->joint_at[i] = (size_t)(at - lex->begin);
        joint_pose *pose = &s->bind_object[i];
        if (!quat_from_xyz(xyz[0], xyz[1], xyz[2], pose->rotation))
            md5_lexer_warn(lex, at, "joint '%s' orientation is not a unit quaternion (|xyz|^2 = %g): renormalized",
                           s->names[i], (double)(xyz[0] * xyz[0] + xyz[1] * xyz[1] + xyz[2] * xyz[2]));
        memcpy(pose->position, position, sizeof position);
        pose->unused = 0.0f;
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

static bool parse_mesh_text(md5_lexer *lex, raw_mesh *mesh, int joint_count)
{
    if (!md5_lexer_count(lex, "numverts", 0, VERT_BYTES_MIN, &mesh->vertex_count))
        return false;
    size_t vertices = (size_t)mesh->vertex_count;
    mesh->uvs = allocate(vertices, sizeof *mesh->uvs);
    mesh->first_weight = allocate(vertices, sizeof *mesh->first_weight);
    mesh->weights_used = allocate(vertices, sizeof *mesh->weights_used);
    mesh->vertex_at = allocate(vertices, sizeof *mesh->vertex_at);
    if (!mesh->uvs || !mesh->first_weight || !mesh->weights_used || !mesh->vertex_at)
        return md5_lexer_fail(lex, lex->cursor, "out of memory for %d vertices", mesh->vertex_count);
    for (int i = 0; i < mesh->vertex_count; ++i) {
        md5_lexer_skip_space(lex);
        mesh->vertex_at[i] = (size_t)(lex->cursor - lex->begin);
        if (!parse_vertex(lex, i, mesh->uvs[i], &mesh->first_weight[i], &mesh->weights_used[i]))
            return false;
    }

    if (!md5_lexer_count(lex, "numtris", 0, TRI_BYTES_MIN, &mesh->triangle_count))
        return false;
    mesh->triangles = allocate((size_t)mesh->triangle_count, sizeof *mesh->triangles);
    if (!mesh->triangles)
        return md5_lexer_fail(lex, lex->cursor, "out of memory for %d triangles", mesh->triangle_count);
    for (int i = 0; i < mesh->triangle_count; ++i) {
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
            if (vertex < 0 || vertex >= mesh->vertex_count)
                return md5_lexer_fail(lex, at, "tri %d uses vertex %d, out of range (numverts %d)", i, vertex,
                                      mesh->vertex_count);
            mesh->triangles[i][k] = (uint32_t)vertex;
        }
    }

    if (!md5_lexer_count(lex, "numweights", 0, WEIGHT_BYTES_MIN, &mesh->weight_count))
        return false;
    mesh->weights = allocate((size_t)mesh->weight_count, sizeof *mesh->weights);
    if (!mesh->weights)
        return md5_lexer_fail(lex, lex->cursor, "out of memory for %d weights", mesh->weight_count);
    for (int i = 0; i < mesh->weight_count; ++i) {
        md5_lexer_skip_space(lex);
        const char *at = lex->cursor;
        int index;
        raw_weight *weight = &mesh->weights[i];
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

static bool parse_mesh(md5_lexer *lex, raw_mesh *mesh, int joint_count)
{
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
    char texture[1024];
    /* A candidate refused (a link out of the folder) is reported at the shader's line, by the build step
     * just before the mesh's own warnings. */
    diag_list refusals = {0};
    bool texture_found = md5_resolve_texture(lex->name, mesh->shader, texture, sizeof texture, &refusals);
    for (int r = 0; r < refusals.count; ++r)
        diag_list_add(&mesh->notes, lex->name, mesh->shader_line, "texture for shader \"%s\": %s %s", mesh->shader,
                      refusals.items[r].file, refusals.items[r].message);
    diag_list_free(&refusals);
    if (texture_found) {
        mesh->texture_path = md5_copy_string(texture, strlen(texture));
        if (!mesh->texture_path)
            return md5_lexer_fail(lex, lex->cursor, "out of memory");
    }
    return parse_mesh_text(lex, mesh, joint_count) && md5_lexer_punctuation(lex, '}');
}

bool md5_read_model(const char *text, size_t size, const char *name, raw_model *out, diag *err,
                    diag_list *warnings)
{
    *out = (raw_model){0};
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

    raw_model *m = out;
    m->source = (raw_source){.name = lex.name, .text = text, .size = size};
    raw_skeleton *s = &m->skeleton;
    size_t joints = (size_t)joint_count;
    s->joint_count = joint_count;
    s->names = calloc(joints, sizeof *s->names);
    s->parents = malloc(joints * sizeof *s->parents);
    s->bind_object = md5_alloc_aligned(joints * sizeof *s->bind_object);
    s->joint_at = malloc(joints * sizeof *s->joint_at);
    m->meshes = calloc(mesh_count ? (size_t)mesh_count : 1, sizeof *m->meshes);
    m->mesh_count = mesh_count;
    if (!s->names || !s->parents || !s->bind_object || !s->joint_at || !m->meshes) {
        md5_lexer_fail(&lex, NULL, "out of memory for %d joints", joint_count);
        goto fail;
    }
    if (!parse_joints(&lex, s))
        goto fail;
    for (int i = 0; i < mesh_count; ++i) {
        md5_lexer_skip_space(&lex);
        if (lex.cursor == lex.end) {
            /* A header promising more meshes than the file has: the ones that are there are whole. */
            lex.warnings = &m->trailing_notes;
            md5_lexer_warn(&lex, lex.cursor, "numMeshes %d but only %d mesh blocks: using those", mesh_count, i);
            m->mesh_count = i;
            break;
        }
        if (!md5_lexer_expect(&lex, "mesh", 4) || !parse_mesh(&lex, &m->meshes[i], joint_count))
            goto fail;
    }
    if (!md5_lexer_at_end(&lex)) {
        if (lex.failed)
            goto fail;
        lex.warnings = &m->trailing_notes;
        md5_lexer_warn(&lex, lex.cursor, "%s after the last of numMeshes %d meshes: ignored",
                       MD5_ACCEPT(&lex, "mesh") ? "another mesh block" : "text", mesh_count);
    }
    if (lex.failed)
        goto fail;
    return true;
fail:
    raw_model_free(m);
    return false;
}
