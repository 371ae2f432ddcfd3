/* test_bodies: both generated bodies (tools/assetgen/body.c) and their textures, generated into memory and
 * read back through the engine's own loader: no warnings, a sane triangle budget, closed parts whose
 * normals point outward, standing on the floor at about 1.8 m, 1 to 4 weights (all four counts used, 3
 * and 4 where the limbs meet the torso) summing to exactly 1 as written, blended elbows and knees that
 * do not collapse when bent 90 degrees, a robot clearly broader than the mannequin, and textures whose
 * front differs from their back. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "assetgen/body.h"
#include "assetgen/rig.h"
#include "assetgen/texture.h"
#include "check.h"
#include "build/loader.h"
#include "md5/md5.h"
#include "pose/pose.h"
#include "test_files.h"

#define PI 3.14159265358979323846

/* ---- Generating into memory ------------------------------------------------------------------------- */

static test_buffer generate_mesh_text(body_kind kind)
{
    test_buffer b;
    FILE *f = test_memory_open(&b);
    return test_memory_close(f, f && body_write_mesh(f, kind, "../textures/body.tga"), &b);
}

static test_buffer generate_texture(body_kind kind)
{
    test_buffer b;
    FILE *f = test_memory_open(&b);
    return test_memory_close(f, f && texture_write_tga(f, kind), &b);
}

/* Parse with the engine's loader; any warning fails the test and is printed. */
static model *load_body(body_kind kind)
{
    test_buffer text = generate_mesh_text(kind);
    model *m = NULL;
    diag err;
    diag_list warnings = {0};
    bool parsed = text.bytes && loader_parse_md5_model(text.bytes, text.size, body_name(kind), &m, &err, &warnings);
    CHECK(parsed);
    if (!parsed && text.bytes) {
        char message[DIAG_TEXT_MAX];
        diag_format(&err, message, sizeof message);
        fprintf(stderr, "%s\n", message);
    }
    CHECK(warnings.total == 0);
    for (int i = 0; i < warnings.count; ++i) {
        char message[DIAG_TEXT_MAX];
        diag_format(&warnings.items[i], message, sizeof message);
        fprintf(stderr, "warning: %s\n", message);
    }
    diag_list_free(&warnings);
    free(text.bytes);
    return parsed ? m : NULL;
}

/* ---- Geometry helpers ---------------------------------------------------------------------------------- */

static double distance3(const float a[3], const double b[3])
{
    double d[3] = {a[0] - b[0], a[1] - b[1], a[2] - b[2]};
    return sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
}

/* Parts share no vertices, so a part is a connected component of the triangle graph. */
static int find_root(int *parent, int v)
{
    while (parent[v] != v) {
        parent[v] = parent[parent[v]];
        v = parent[v];
    }
    return v;
}

/* component[v] = a dense part number for every vertex; returns the number of parts. */
static int label_parts(const skin_mesh *mesh, int *component)
{
    int *parent = malloc((size_t)mesh->vertex_count * sizeof *parent);
    for (int v = 0; v < mesh->vertex_count; ++v)
        parent[v] = v;
    for (int t = 0; t < mesh->triangle_count; ++t)
        for (int corner = 1; corner < 3; ++corner) {
            int a = find_root(parent, (int)mesh->triangles[t][0]);
            int b = find_root(parent, (int)mesh->triangles[t][corner]);
            if (a != b)
                parent[a] = b;
        }
    int count = 0;
    for (int v = 0; v < mesh->vertex_count; ++v)
        component[v] = -1;
    for (int v = 0; v < mesh->vertex_count; ++v) {
        int root = find_root(parent, v);
        if (component[root] < 0)
            component[root] = count++;
        component[v] = component[root];
    }
    free(parent);
    return count;
}

/* Enclosed volume of each part, positive when its triangles face outward. MD5 lists a triangle (a, b, c)
 * clockwise seen from outside, so (a, c, b) is the counter-clockwise order the usual formula wants. */
static void part_volumes(const skin_mesh *mesh, const int *component, int part_count, double *volume)
{
    for (int p = 0; p < part_count; ++p)
        volume[p] = 0.0;
    for (int t = 0; t < mesh->triangle_count; ++t) {
        const float *a = mesh->positions[mesh->triangles[t][0]], *b = mesh->positions[mesh->triangles[t][1]],
                    *c = mesh->positions[mesh->triangles[t][2]];
        double cross[3] = {(double)c[1] * b[2] - (double)c[2] * b[1], (double)c[2] * b[0] - (double)c[0] * b[2],
                           (double)c[0] * b[1] - (double)c[1] * b[0]};
        volume[component[mesh->triangles[t][0]]] += (a[0] * cross[0] + a[1] * cross[1] + a[2] * cross[2]) / 6.0;
    }
}

static int compare_keys(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Closed and consistently wound: every directed edge a->b occurs once and its reverse b->a once, so
 * every edge is shared by exactly two triangles that agree on which side is out. */
static void check_closed(const skin_mesh *mesh)
{
    size_t edge_count = (size_t)mesh->triangle_count * 3;
    uint64_t *edges = malloc(edge_count * sizeof *edges);
    for (int t = 0; t < mesh->triangle_count; ++t)
        for (int corner = 0; corner < 3; ++corner) {
            uint64_t from = mesh->triangles[t][corner], to = mesh->triangles[t][(corner + 1) % 3];
            edges[(size_t)t * 3 + (size_t)corner] = from << 32 | to;
        }
    qsort(edges, edge_count, sizeof *edges, compare_keys);
    int duplicated = 0, unmatched = 0;
    for (size_t i = 0; i < edge_count; ++i) {
        if (i > 0 && edges[i] == edges[i - 1])
            ++duplicated;
        uint64_t reverse = (edges[i] & 0xffffffffu) << 32 | edges[i] >> 32;
        if (!bsearch(&reverse, edges, edge_count, sizeof *edges, compare_keys))
            ++unmatched;
    }
    CHECK(duplicated == 0);
    CHECK(unmatched == 0);
    free(edges);
}

/* ---- Mesh checks --------------------------------------------------------------------------------------- */

/* What the file says, read as text: at most 4 weights per vertex and biases that add up to exactly
 * 1.000000 in the 6 decimals written (the loader only warns beyond 1%). */
static void check_written_biases(body_kind kind)
{
    test_buffer text = generate_mesh_text(kind);
    test_buffer again = generate_mesh_text(kind);
    CHECK(text.size == again.size && memcmp(text.bytes, again.bytes, text.size) == 0); /* deterministic */
    CHECK(strncmp(text.bytes, "MD5Version 10\ncommandline \"generated by marionette assetgen\"\n", 60) == 0);
    CHECK_STR_CONTAINS(text.bytes, "numJoints 31\nnumMeshes 1\n");
    CHECK(strstr(text.bytes, "-0.000000") == NULL);

    int vertex_count = 0, weight_count = 0, *first = NULL, *count = NULL;
    long *millionths = NULL;
    int bad_lines = 0;
    for (char *line = text.bytes; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
        while (*line == '\t' || *line == ' ')
            ++line;
        int index, a, b;
        long whole, fraction;
        double s, t;
        if (sscanf(line, "numverts %d", &a) == 1) {
            first = calloc((size_t)a, sizeof *first);
            count = calloc((size_t)a, sizeof *count);
            vertex_count = a;
        } else if (sscanf(line, "numweights %d", &a) == 1) {
            millionths = calloc((size_t)a, sizeof *millionths);
            weight_count = a;
        } else if (sscanf(line, "vert %d ( %lf %lf ) %d %d", &index, &s, &t, &a, &b) == 5) {
            bad_lines += index < 0 || index >= vertex_count || !(s >= 0.0 && s <= 1.0 && t >= 0.0 && t <= 1.0);
            if (index >= 0 && index < vertex_count) {
                first[index] = a;
                count[index] = b;
            }
        } else if (sscanf(line, "weight %d %d %ld.%6ld", &index, &a, &whole, &fraction) == 4) {
            bad_lines += index < 0 || index >= weight_count || a < 0 || a >= RIG_JOINT_COUNT;
            if (index >= 0 && index < weight_count)
                millionths[index] = whole * 1000000 + fraction;
        }
    }
    CHECK(bad_lines == 0);
    CHECK(vertex_count > 0 && weight_count > 0);
    int too_many = 0, off_sum = 0, zero_bias = 0, by_count[5] = {0};
    for (int v = 0; v < vertex_count && millionths; ++v) {
        too_many += count[v] < 1 || count[v] > 4;
        if (count[v] >= 1 && count[v] <= 4)
            ++by_count[count[v]];
        long sum = 0;
        for (int w = first[v]; w < first[v] + count[v] && w < weight_count; ++w) {
            sum += millionths[w];
            zero_bias += millionths[w] <= 0;
        }
        off_sum += sum != 1000000;
    }
    /* 1 to 4 weights, and all four counts used: 3 and 4 around the shoulders (clavicle, upper arm,
     * spine.03, the neck at the top) and the crotch (hips and both thighs). */
    printf("  %s: weights per vertex 1 x %d, 2 x %d, 3 x %d, 4 x %d\n", body_name(kind), by_count[1], by_count[2],
           by_count[3], by_count[4]);
    CHECK(too_many == 0);
    CHECK(off_sum == 0);
    CHECK(zero_bias == 0);
    CHECK(by_count[1] > 0 && by_count[2] > 0);
    CHECK(by_count[3] >= 50 && by_count[4] >= 50);
    free(first);
    free(count);
    free(millionths);
    free(text.bytes);
    free(again.bytes);
}

/* The skeleton is the rig, joint for joint, with identity bind orientations. */
static void check_skeleton(const model *m)
{
    CHECK(m->skeleton.joint_count == RIG_JOINT_COUNT);
    for (int j = 0; j < RIG_JOINT_COUNT && j < m->skeleton.joint_count; ++j) {
        CHECK(strcmp(m->skeleton.names[j], rig_joints[j].name) == 0);
        CHECK(m->skeleton.parents[j] == rig_joints[j].parent);
        CHECK(distance3(m->skeleton.bind_object[j].position, rig_joints[j].position) < 1e-6);
        CHECK(fabs(fabs(m->skeleton.bind_object[j].rotation[3]) - 1.0) < 1e-6);
    }
}

typedef struct body_measures {
    double total_volume;
    double torso_volume; /* parts on the middle line: pelvis, torso, neck, head */
    double torso_half_width;
} body_measures;

static body_measures check_mesh(const model *m, body_kind kind)
{
    body_measures measures = {0};
    CHECK(m->mesh_count == 1);
    int triangles = 0;
    for (int i = 0; i < m->mesh_count; ++i)
        triangles += m->meshes[i].triangle_count;
    printf("  %s: %d triangles, %d vertices\n", body_name(kind), triangles, m->meshes[0].vertex_count);
    CHECK(triangles >= 1500 && triangles <= 6000);

    const skin_mesh *mesh = &m->meshes[0];
    check_closed(mesh);

    float lowest = 1e9f, highest = -1e9f;
    int heavy = 0, off_sum = 0;
    for (int v = 0; v < mesh->vertex_count; ++v) {
        lowest = fminf(lowest, mesh->positions[v][2]);
        highest = fmaxf(highest, mesh->positions[v][2]);
        double sum = 0.0;
        for (int k = 0; k < SKIN_MAX_INFLUENCES; ++k)
            sum += mesh->weights[v][k];
        off_sum += fabs(sum - 1.0) > 1e-5;
    }
    heavy = mesh->max_influences > 4 || mesh->vertices_cut > 0;
    CHECK(heavy == 0);
    CHECK(off_sum == 0);
    CHECK(lowest >= -1e-6f);
    CHECK(lowest <= 1e-6f); /* the soles stand on the floor */
    CHECK(highest >= 1.7f && highest <= 1.9f);

    /* Every part closed and facing out: positive volume, and nearly every normal pointing away from
     * the part's centre (a flat sole or a waist can turn a few). */
    int *component = malloc((size_t)mesh->vertex_count * sizeof *component);
    int part_count = label_parts(mesh, component);
    CHECK(part_count >= 10);
    double *volume = calloc((size_t)part_count, sizeof *volume);
    double (*centre)[3] = calloc((size_t)part_count, sizeof *centre);
    int *members = calloc((size_t)part_count, sizeof *members), *outward = calloc((size_t)part_count, sizeof *outward);
    part_volumes(mesh, component, part_count, volume);
    for (int v = 0; v < mesh->vertex_count; ++v) {
        for (int k = 0; k < 3; ++k)
            centre[component[v]][k] += mesh->positions[v][k];
        ++members[component[v]];
    }
    for (int p = 0; p < part_count; ++p)
        for (int k = 0; k < 3; ++k)
            centre[p][k] /= members[p];
    for (int v = 0; v < mesh->vertex_count; ++v) {
        const double *c = centre[component[v]];
        double d = 0.0;
        for (int k = 0; k < 3; ++k)
            d += mesh->normals[v][k] * (mesh->positions[v][k] - c[k]);
        outward[component[v]] += d > 0.0;
    }
    int inside_out = 0, inward_normals = 0;
    for (int p = 0; p < part_count; ++p) {
        inside_out += !(volume[p] > 0.0);
        inward_normals += outward[p] < 0.95 * members[p];
        measures.total_volume += volume[p];
        if (fabs(centre[p][1]) < 0.03) {
            measures.torso_volume += volume[p];
        }
    }
    for (int v = 0; v < mesh->vertex_count; ++v)
        if (fabs(centre[component[v]][1]) < 0.03 && mesh->positions[v][2] > 1.0f)
            measures.torso_half_width = fmax(measures.torso_half_width, fabs(mesh->positions[v][1]));
    CHECK(inside_out == 0);
    CHECK(inward_normals == 0);
    free(component);
    free(volume);
    free(centre);
    free(members);
    free(outward);
    return measures;
}

/* Unit direction from joint a to joint b in the bind pose. */
static void bone_direction(int a, int b, double out[3])
{
    double length = 0.0;
    for (int k = 0; k < 3; ++k) {
        out[k] = rig_joints[b].position[k] - rig_joints[a].position[k];
        length += out[k] * out[k];
    }
    for (int k = 0; k < 3; ++k)
        out[k] /= sqrt(length);
}

/* Vertices in the cross-section through `joint` (within 1 cm along the bone from `from` to `joint`,
 * within 15 cm of the joint) all blend two or more joints. Returns how many there are. */
static int check_blended_ring(const skin_mesh *mesh, int from, int joint)
{
    double direction[3];
    bone_direction(from, joint, direction);
    const double *centre = rig_joints[joint].position;
    int ring = 0, single = 0;
    for (int v = 0; v < mesh->vertex_count; ++v) {
        double along = 0.0;
        for (int k = 0; k < 3; ++k)
            along += (mesh->positions[v][k] - centre[k]) * direction[k];
        if (fabs(along) > 0.01 || distance3(mesh->positions[v], centre) > 0.15)
            continue;
        ++ring;
        single += !(mesh->weights[v][1] > 0.0f);
    }
    CHECK(ring >= 8);
    CHECK(single == 0);
    return ring;
}

static bool moved_by(const skin_mesh *mesh, int v, int joint)
{
    for (int k = 0; k < SKIN_MAX_INFLUENCES; ++k)
        if (mesh->weights[v][k] > 0.0f && mesh->joints[v][k] == joint)
            return true;
    return false;
}

/* Where a limb meets the torso both blend: every vertex with 3 or 4 weights is within 15 cm of a
 * shoulder or hip joint; the skin within 6 cm of a shoulder joint follows the upper arm and the chest
 * both, and the crotch (the pelvis between the legs, below the hip joints) both thighs and the hips. */
static void check_attachments(const skin_mesh *mesh, body_kind kind)
{
    static const int limb_roots[] = {RIG_UPPERARM_L, RIG_UPPERARM_R, RIG_THIGH_L, RIG_THIGH_R};
    int stray = 0, shoulder_skin = 0, shoulder_blended = 0, crotch = 0, crotch_blended = 0;
    for (int v = 0; v < mesh->vertex_count; ++v) {
        int used = 0;
        for (int k = 0; k < SKIN_MAX_INFLUENCES; ++k)
            used += mesh->weights[v][k] > 0.0f;
        double nearest = 1e9;
        for (int i = 0; i < 4; ++i)
            nearest = fmin(nearest, distance3(mesh->positions[v], rig_joints[limb_roots[i]].position));
        stray += used >= 3 && nearest > 0.15;
        for (int side = 0; side < 2; ++side) {
            int upperarm = side ? RIG_UPPERARM_R : RIG_UPPERARM_L;
            if (distance3(mesh->positions[v], rig_joints[upperarm].position) < 0.06) {
                ++shoulder_skin;
                shoulder_blended += moved_by(mesh, v, upperarm) && moved_by(mesh, v, RIG_SPINE_3);
            }
        }
        const float *p = mesh->positions[v];
        bool between_legs = fabsf(p[0]) < 0.06f && fabsf(p[1]) < 0.02f && p[2] > 0.8f && p[2] < 0.9f;
        if (between_legs && mesh->joints[v][0] == RIG_HIPS) {
            ++crotch;
            crotch_blended += moved_by(mesh, v, RIG_HIPS) && moved_by(mesh, v, RIG_THIGH_L) &&
                              moved_by(mesh, v, RIG_THIGH_R);
        }
    }
    printf("  %s: shoulder skin %d vertices, %d blending arm and chest; crotch %d, %d blending hips and both "
           "thighs\n", body_name(kind), shoulder_skin, shoulder_blended, crotch, crotch_blended);
    CHECK(stray == 0);
    CHECK(shoulder_skin >= 20 && shoulder_blended == shoulder_skin);
    CHECK(crotch >= 2 && crotch_blended == crotch);
}

/* Every joint but the root moves some part of the body on its own: fingers and thumbs move the hands,
 * toes the feet, clavicles the shoulders. */
static void check_every_joint_leads(const skin_mesh *mesh)
{
    int leads[RIG_JOINT_COUNT] = {0};
    for (int v = 0; v < mesh->vertex_count; ++v)
        if (mesh->weights[v][0] > 0.5f && mesh->joints[v][0] < RIG_JOINT_COUNT)
            ++leads[mesh->joints[v][0]];
    for (int j = RIG_ROOT + 1; j < RIG_JOINT_COUNT; ++j) {
        CHECK(leads[j] > 0);
        if (leads[j] == 0)
            fprintf(stderr, "  no vertex follows mostly %s\n", rig_joints[j].name);
    }
}

/* Bend forearm.L 90 degrees (forward, as an elbow bends) through the engine's own pose stages and CPU
 * skinning. Linear blend skinning pulls a half-and-half vertex toward the joint by cos(45 degrees) at
 * worst; a body whose elbow collapsed (one narrow blend, too few rings) falls far below that. */
static void check_elbow_bend(const model *m, body_kind kind)
{
    const skeleton *s = &m->skeleton;
    int n = s->joint_count;
    joint_pose *local = malloc((size_t)n * sizeof *local), *object = malloc((size_t)n * sizeof *object);
    mat4 *palette = malloc((size_t)n * sizeof *palette);
    const skin_mesh *mesh = &m->meshes[0];
    float(*positions)[3] = malloc((size_t)mesh->vertex_count * sizeof *positions);
    float(*normals)[3] = malloc((size_t)mesh->vertex_count * sizeof *normals);

    /* Identity bind orientations: a joint's local pose is its offset from its parent, no rotation. */
    for (int j = 0; j < n; ++j) {
        memset(&local[j], 0, sizeof local[j]);
        local[j].rotation[3] = 1.0f;
        for (int k = 0; k < 3; ++k)
            local[j].position[k] = s->bind_object[j].position[k] -
                                   (s->parents[j] >= 0 ? s->bind_object[s->parents[j]].position[k] : 0.0f);
    }
    /* The axis that turns the forearm's direction toward +X: arm direction x (1, 0, 0). */
    double arm[3];
    bone_direction(RIG_FOREARM_L, RIG_HAND_L, arm);
    double axis[3] = {0.0, arm[2], -arm[1]};
    double axis_length = sqrt(axis[1] * axis[1] + axis[2] * axis[2]);
    double half = PI / 4.0;
    for (int k = 0; k < 3; ++k)
        local[RIG_FOREARM_L].rotation[k] = (float)(sin(half) * axis[k] / axis_length);
    local[RIG_FOREARM_L].rotation[3] = (float)cos(half);

    bool posed = pose_to_object(s->parents, n, local, object) &&
                 pose_palette(object, (const mat4 *)s->inverse_bind, n, palette) &&
                 pose_skin_cpu(mesh, (const mat4 *)palette, n, positions, normals);
    CHECK(posed);

    /* The hand really went forward. */
    CHECK(object[RIG_HAND_L].position[0] > 0.2f);

    const double *elbow = rig_joints[RIG_FOREARM_L].position;
    double posed_elbow[3] = {object[RIG_FOREARM_L].position[0], object[RIG_FOREARM_L].position[1],
                             object[RIG_FOREARM_L].position[2]};
    double bind_sum = 0.0, posed_sum = 0.0, worst = 1e9;
    int ring = 0;
    for (int v = 0; v < mesh->vertex_count && posed; ++v) {
        double along = 0.0;
        for (int k = 0; k < 3; ++k)
            along += (mesh->positions[v][k] - elbow[k]) * arm[k];
        double bind_radius = distance3(mesh->positions[v], elbow);
        if (fabs(along) > 0.012 || bind_radius > 0.15)
            continue;
        double posed_radius = distance3(positions[v], posed_elbow);
        bind_sum += bind_radius;
        posed_sum += posed_radius;
        worst = fmin(worst, posed_radius / bind_radius);
        ++ring;
    }
    printf("  %s elbow bent 90 degrees: %d ring vertices keep %.0f%% of their mean radius (worst vertex %.0f%%)\n",
           body_name(kind), ring, 100.0 * posed_sum / bind_sum, 100.0 * worst);
    CHECK(ring >= 8);
    CHECK(posed_sum >= 0.6 * bind_sum);
    CHECK(worst >= 0.5);
    free(local);
    free(object);
    free(palette);
    free(positions);
    free(normals);
}

static void test_bodies(void)
{
    body_measures measures[BODY_KIND_COUNT];
    for (int kind = 0; kind < BODY_KIND_COUNT; ++kind) {
        check_written_biases((body_kind)kind);
        model *m = load_body((body_kind)kind);
        if (!m)
            continue;
        check_skeleton(m);
        measures[kind] = check_mesh(m, (body_kind)kind);
        const skin_mesh *mesh = &m->meshes[0];
        check_blended_ring(mesh, RIG_UPPERARM_L, RIG_FOREARM_L);
        check_blended_ring(mesh, RIG_UPPERARM_R, RIG_FOREARM_R);
        check_blended_ring(mesh, RIG_THIGH_L, RIG_SHIN_L);
        check_blended_ring(mesh, RIG_THIGH_R, RIG_SHIN_R);
        check_every_joint_leads(mesh);
        check_attachments(mesh, (body_kind)kind);
        check_elbow_bend(m, (body_kind)kind);
        model_free(m);
    }
    const body_measures *mannequin = &measures[BODY_MANNEQUIN], *robot = &measures[BODY_ROBOT];
    printf("  volume robot/mannequin %.2f, torso volume %.2f, torso width %.2f\n",
           robot->total_volume / mannequin->total_volume, robot->torso_volume / mannequin->torso_volume,
           robot->torso_half_width / mannequin->torso_half_width);
    CHECK(robot->total_volume > 1.3 * mannequin->total_volume);
    CHECK(robot->torso_volume > 1.3 * mannequin->torso_volume);
    CHECK(robot->torso_half_width > 1.3 * mannequin->torso_half_width);
}

/* ---- Textures ------------------------------------------------------------------------------------------ */

/* The pixel under a point of a part (texture.h): s right, t down from the top row; the file stores the
 * bottom row first. */
static const unsigned char *texel_at(const test_buffer *tga, texture_region region, double around, double along)
{
    double uv[2];
    texture_atlas_uv(region, around, along, uv);
    int x = (int)(uv[0] * TEXTURE_SIZE), y = (int)(uv[1] * TEXTURE_SIZE);
    int row = TEXTURE_SIZE - 1 - y;
    return (const unsigned char *)tga->bytes + TEXTURE_TGA_HEADER_BYTES + ((size_t)row * TEXTURE_SIZE + (size_t)x) * 3;
}

static int color_difference(const unsigned char *a, const unsigned char *b)
{
    return abs(a[0] - b[0]) + abs(a[1] - b[1]) + abs(a[2] - b[2]);
}

/* Largest difference between front (around = 0.03..0.15) and back (0.85..0.97) along a band of a part. */
static int front_back_difference(const test_buffer *tga, texture_region region, double along_from, double along_to)
{
    int largest = 0;
    for (double along = along_from; along <= along_to; along += 0.02)
        for (double around = 0.03; around <= 0.15; around += 0.03) {
            int d = color_difference(texel_at(tga, region, around, along), texel_at(tga, region, 1.0 - around, along));
            largest = d > largest ? d : largest;
        }
    return largest;
}

static void test_textures(void)
{
    for (int kind = 0; kind < BODY_KIND_COUNT; ++kind) {
        test_buffer tga = generate_texture((body_kind)kind);
        test_buffer again = generate_texture((body_kind)kind);
        CHECK(tga.size == (size_t)TEXTURE_TGA_HEADER_BYTES + (size_t)TEXTURE_SIZE * TEXTURE_SIZE * 3);
        CHECK(again.size == tga.size && memcmp(tga.bytes, again.bytes, tga.size) == 0);
        if (tga.size != (size_t)TEXTURE_TGA_HEADER_BYTES + (size_t)TEXTURE_SIZE * TEXTURE_SIZE * 3) {
            free(tga.bytes);
            free(again.bytes);
            continue;
        }
        const unsigned char *h = (const unsigned char *)tga.bytes;
        CHECK(h[0] == 0 && h[1] == 0 && h[2] == 2); /* no id, no colour map, uncompressed true colour */
        CHECK(h[12] + 256 * h[13] == TEXTURE_SIZE && h[14] + 256 * h[15] == TEXTURE_SIZE);
        CHECK(h[16] == 24);
        CHECK((h[17] & 0x0f) == 0); /* no alpha bits */
        /* The face (eyes or visor) and the chest mark are on the front only. */
        CHECK(front_back_difference(&tga, TEXTURE_REGION_HEAD, 0.35, 0.7) > 60);
        CHECK(front_back_difference(&tga, TEXTURE_REGION_TORSO, 0.5, 0.9) > 60);
        /* Not one flat colour: wood grain or metal plates. */
        const unsigned char *a = texel_at(&tga, TEXTURE_REGION_LEG, 0.3, 0.3);
        const unsigned char *b = texel_at(&tga, TEXTURE_REGION_LEG, 0.5, 0.6);
        const unsigned char *c = texel_at(&tga, TEXTURE_REGION_LEG, 0.7, 0.4);
        CHECK(color_difference(a, b) > 0 || color_difference(b, c) > 0);
        free(tga.bytes);
        free(again.bytes);
    }
    /* The two bodies look different. */
    test_buffer mannequin = generate_texture(BODY_MANNEQUIN), robot = generate_texture(BODY_ROBOT);
    CHECK(mannequin.size == robot.size);
    if (mannequin.size == robot.size && mannequin.size > TEXTURE_TGA_HEADER_BYTES)
        CHECK(color_difference(texel_at(&mannequin, TEXTURE_REGION_TORSO, 0.5, 0.3),
                               texel_at(&robot, TEXTURE_REGION_TORSO, 0.5, 0.3)) > 60);
    free(mannequin.bytes);
    free(robot.bytes);
}

static void test_refuses_bad_arguments(void)
{
    CHECK(!body_write_mesh(NULL, BODY_ROBOT, "x.tga"));
    CHECK(!body_write_mesh(stdout, BODY_KIND_COUNT, "x.tga"));
    CHECK(!texture_write_tga(NULL, BODY_ROBOT));
    CHECK(strcmp(body_name(BODY_MANNEQUIN), "mannequin") == 0);
    CHECK(strcmp(body_name(BODY_ROBOT), "robot") == 0);
}

int main(void)
{
    RUN(test_bodies);
    RUN(test_textures);
    RUN(test_refuses_bad_arguments);
    return check_report();
}
