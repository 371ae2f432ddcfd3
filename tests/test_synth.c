/* synth: the generator is deterministic, writes what it was asked for, and what it writes is valid MD5
 * that the parser reads back with the requested counts. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "build/loader.h"
#include "md5/md5.h"
#include "model/clip.h"
#include "synth.h"

static const synth_params small = {
    .joints = 12, .vertices = 300, .triangles = 500, .weights_per_vertex = 3, .frames = 20, .frame_rate = 30,
    .seed = 42};

static void test_same_seed_same_bytes(void)
{
    size_t size_a = 0, size_b = 0;
    char *a = synth_mesh_text(&small, &size_a);
    char *b = synth_mesh_text(&small, &size_b);
    CHECK(a && b);
    CHECK(size_a == size_b && size_a > 0);
    CHECK(a && b && memcmp(a, b, size_a) == 0);
    free(a);
    free(b);

    a = synth_anim_text(&small, &size_a);
    b = synth_anim_text(&small, &size_b);
    CHECK(a && b && size_a == size_b && memcmp(a, b, size_a) == 0);
    free(a);
    free(b);

    synth_params other = small;
    other.seed = 43;
    a = synth_mesh_text(&small, &size_a);
    b = synth_mesh_text(&other, &size_b);
    CHECK(a && b && (size_a != size_b || memcmp(a, b, size_a) != 0));
    free(a);
    free(b);
}

static void test_file_matches_memory(void)
{
    size_t size = 0;
    char *text = synth_anim_text(&small, &size);
    FILE *f = tmpfile();
    CHECK(f != NULL);
    if (!f || !text) {
        free(text);
        return;
    }
    CHECK(synth_write_anim(f, &small));
    long length = ftell(f);
    CHECK(length == (long)size);
    rewind(f);
    char *read_back = malloc(size + 1);
    CHECK(read_back && fread(read_back, 1, size, f) == size);
    CHECK(read_back && memcmp(read_back, text, size) == 0);
    free(read_back);
    fclose(f);
    free(text);
}

static void test_defaults(void)
{
    synth_params p = synth_resolve(&(synth_params){0});
    CHECK(p.joints == 33);
    CHECK(p.vertices == 6000);
    CHECK(p.triangles == 10000);
    CHECK(p.weights_per_vertex == 4);
    CHECK(p.frames == 300);
    CHECK(p.frame_rate == 24);
    CHECK(p.meshes == 1);
    /* Asking for more influences than there are joints cannot be written with distinct joints. */
    p = synth_resolve(&(synth_params){.joints = 2, .weights_per_vertex = 4});
    CHECK(p.weights_per_vertex == 2);
}

/* Reads the text as a checker independent of the engine's parser would: line by line, with sscanf. */
static void test_text_is_well_formed(void)
{
    size_t size = 0;
    char *text = synth_mesh_text(&small, &size);
    CHECK(text != NULL);
    if (!text)
        return;
    int vertices = 0, triangles = 0, weights = 0, joints = 0, bad_triangles = 0, bad_parents = 0;
    int bad_quaternions = 0, bad_sums = 0, in_joints = 0;
    long bias_sum = 0; /* millionths, per vertex */
    int weights_in_vertex = 0;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        int index, a, b, c, joint, whole, millionths, parent;
        float x, y, z, qx, qy, qz;
        char name[64];
        if (strcmp(line, "joints {") == 0) {
            in_joints = 1;
        } else if (in_joints && strcmp(line, "}") == 0) {
            in_joints = 0;
        } else if (in_joints && sscanf(line, " \"%63[^\"]\" %d ( %f %f %f ) ( %f %f %f )", name, &parent, &x,
                                       &y, &z, &qx, &qy, &qz) == 8) {
            bad_parents += !(parent < joints && parent >= -1);
            bad_quaternions += qx * qx + qy * qy + qz * qz > 1.0f + 1e-5f;
            joints++;
        } else if (sscanf(line, "\tvert %d", &index) == 1) {
            vertices++;
        } else if (sscanf(line, "\ttri %d %d %d %d", &index, &a, &b, &c) == 4) {
            triangles++;
            bad_triangles += !(a >= 0 && a < small.vertices && b >= 0 && b < small.vertices && c >= 0 &&
                               c < small.vertices && a != b && b != c && a != c);
        } else if (sscanf(line, "\tweight %d %d %d.%d", &index, &joint, &whole, &millionths) == 4) {
            weights++;
            bias_sum += whole * 1000000L + millionths;
            if (++weights_in_vertex == small.weights_per_vertex) {
                bad_sums += bias_sum != 1000000L;
                bias_sum = 0;
                weights_in_vertex = 0;
            }
        }
    }
    CHECK(joints == small.joints);
    CHECK(vertices == small.vertices);
    CHECK(triangles == small.triangles);
    CHECK(weights == small.vertices * small.weights_per_vertex);
    CHECK(bad_triangles == 0);
    CHECK(bad_parents == 0);
    CHECK(bad_quaternions == 0);
    CHECK(bad_sums == 0);
    free(text);
}

static void test_frames_animate_every_component(void)
{
    size_t size = 0;
    char *text = synth_anim_text(&small, &size);
    CHECK(text != NULL);
    if (!text)
        return;
    /* Frame 0 and frame 5 of every joint differ in all six numbers. */
    const char *frame0 = strstr(text, "frame 0 {\n");
    const char *frame5 = strstr(text, "frame 5 {\n");
    CHECK(frame0 && frame5);
    if (frame0 && frame5) {
        frame0 = strchr(frame0, '\n') + 1;
        frame5 = strchr(frame5, '\n') + 1;
        int unchanged = 0;
        for (int j = 0; j < small.joints; ++j) {
            float a[6], b[6];
            int read_a = sscanf(frame0, "%f %f %f %f %f %f", &a[0], &a[1], &a[2], &a[3], &a[4], &a[5]);
            int read_b = sscanf(frame5, "%f %f %f %f %f %f", &b[0], &b[1], &b[2], &b[3], &b[4], &b[5]);
            CHECK(read_a == 6 && read_b == 6);
            for (int i = 0; i < 6; ++i)
                unchanged += a[i] == b[i];
            frame0 = strchr(frame0, '\n') + 1;
            frame5 = strchr(frame5, '\n') + 1;
        }
        CHECK(unchanged == 0);
    }
    free(text);
}

static void test_parser_reads_requested_counts(void)
{
    synth_params p = small;
    p.meshes = 2;
    size_t mesh_size = 0, anim_size = 0;
    char *mesh_text = synth_mesh_text(&p, &mesh_size);
    char *anim_text = synth_anim_text(&p, &anim_size);
    CHECK(mesh_text && anim_text);
    model *m = NULL;
    clip *c = NULL;
    diag err = {0};
    diag_list warnings = {0};
    bool model_ok = mesh_text && loader_parse_md5_model(mesh_text, mesh_size, "synth.md5mesh", &m, &err, &warnings);
    if (!model_ok)
        fprintf(stderr, "model: %s:%d: %s\n", err.file, err.line, err.message);
    CHECK(model_ok);
    if (model_ok) {
        CHECK(m->skeleton.joint_count == p.joints);
        CHECK(m->mesh_count == 2);
        int vertices = 0, triangles = 0, weights = 0, bad_indices = 0;
        for (int i = 0; i < m->mesh_count; ++i) {
            const skin_mesh *mesh = &m->meshes[i];
            vertices += mesh->vertex_count;
            triangles += mesh->triangle_count;
            weights += mesh->weight_count;
            CHECK(mesh->max_influences == p.weights_per_vertex);
            for (int t = 0; t < mesh->triangle_count; ++t)
                for (int k = 0; k < 3; ++k)
                    bad_indices += mesh->triangles[t][k] >= (uint32_t)mesh->vertex_count;
        }
        CHECK(vertices == p.vertices);
        CHECK(triangles == p.triangles);
        CHECK(weights == p.vertices * p.weights_per_vertex);
        CHECK(bad_indices == 0);
    }
    bool clip_ok = anim_text && loader_parse_md5_clip(anim_text, anim_size, "synth.md5anim", &c, &err, &warnings);
    if (!clip_ok)
        fprintf(stderr, "clip: %s:%d: %s\n", err.file, err.line, err.message);
    CHECK(clip_ok);
    if (clip_ok) {
        CHECK(c->joint_count == p.joints);
        CHECK(c->frame_count == p.frames);
        CHECK_NEAR(c->frame_rate, p.frame_rate, 0);
        CHECK(!c->last_frame_is_first);
    }
    if (model_ok && clip_ok)
        CHECK(clip_fits_skeleton(c, &m->skeleton, "synth.md5anim", &err));
    /* Synthetic data is clean: a parser warning here means the generator or the parser is wrong. */
    for (int i = 0; i < warnings.count; ++i)
        fprintf(stderr, "warning: %s:%d: %s\n", warnings.items[i].file, warnings.items[i].line,
                warnings.items[i].message);
    CHECK(warnings.total == 0);
    if (m)
        model_free(m);
    if (c)
        clip_free(c);
    diag_list_free(&warnings);
    free(mesh_text);
    free(anim_text);
}

static void test_doom3_loop_convention(void)
{
    synth_params p = small;
    p.last_frame_is_first = true;
    size_t size = 0;
    char *text = synth_anim_text(&p, &size);
    CHECK(text != NULL);
    clip *c = NULL;
    diag err = {0};
    bool ok = text && loader_parse_md5_clip(text, size, "loop.md5anim", &c, &err, NULL);
    CHECK(ok);
    if (ok) {
        CHECK(c->last_frame_is_first);
        CHECK_NEAR(c->loop_duration, (p.frames - 1) / (float)p.frame_rate, 1e-5);
        clip_free(c);
    }
    free(text);
}

static void test_default_workload_parses(void)
{
    size_t size = 0;
    char *text = synth_mesh_text(&(synth_params){0}, &size);
    model *m = NULL;
    diag err = {0};
    bool ok = text && loader_parse_md5_model(text, size, "default.md5mesh", &m, &err, NULL);
    CHECK(ok);
    if (ok) {
        CHECK(m->skeleton.joint_count == 33);
        CHECK(m->meshes[0].vertex_count == 6000);
        CHECK(m->meshes[0].triangle_count == 10000);
        CHECK(m->meshes[0].weight_count == 24000);
        /* Bind-pose positions rebuilt from the weights stay near the 1.8 m humanoid. */
        int outside = 0;
        for (int v = 0; v < m->meshes[0].vertex_count; ++v) {
            const float *position = m->meshes[0].positions[v];
            outside += !(fabsf(position[0]) < 1.5f && fabsf(position[1]) < 1.5f && position[2] > -0.5f &&
                         position[2] < 2.5f);
        }
        CHECK(outside == 0);
        model_free(m);
    }
    free(text);
}

/* Small, odd and large parameter sets all give files the parser reads with the resolved counts. */
static void test_unusual_parameters(void)
{
    const synth_params cases[] = {
        {.joints = 1, .vertices = 3, .triangles = 1, .frames = 1},
        {.joints = 1, .vertices = 1, .frames = 2, .last_frame_is_first = true},
        {.joints = 2, .weights_per_vertex = 8, .vertices = 7, .triangles = 3, .frames = 1},
        {.joints = 100, .vertices = 50, .triangles = 400, .meshes = 5, .frames = 2, .last_frame_is_first = true},
        {.joints = 33, .weights_per_vertex = 6, .vertices = 100, .triangles = 10, .meshes = 100, .frames = 3},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        synth_params p = synth_resolve(&cases[i]);
        size_t mesh_size = 0, anim_size = 0;
        char *mesh_text = synth_mesh_text(&cases[i], &mesh_size);
        char *anim_text = synth_anim_text(&cases[i], &anim_size);
        model *m = NULL;
        clip *c = NULL;
        diag err = {0};
        bool ok = mesh_text && loader_parse_md5_model(mesh_text, mesh_size, "case.md5mesh", &m, &err, NULL);
        if (!ok)
            fprintf(stderr, "case %zu: %s:%d: %s\n", i, err.file, err.line, err.message);
        CHECK(ok);
        if (ok) {
            int vertices = 0, triangles = 0;
            for (int k = 0; k < m->mesh_count; ++k) {
                vertices += m->meshes[k].vertex_count;
                triangles += m->meshes[k].triangle_count;
            }
            CHECK(m->skeleton.joint_count == p.joints);
            CHECK(m->mesh_count == p.meshes);
            CHECK(vertices == p.vertices);
            CHECK(triangles == p.triangles);
        }
        ok = anim_text && loader_parse_md5_clip(anim_text, anim_size, "case.md5anim", &c, &err, NULL);
        if (!ok)
            fprintf(stderr, "case %zu: %s:%d: %s\n", i, err.file, err.line, err.message);
        CHECK(ok);
        if (ok) {
            CHECK(c->frame_count == p.frames);
            CHECK(c->joint_count == p.joints);
        }
        model_free(m);
        clip_free(c);
        free(mesh_text);
        free(anim_text);
    }
}

int main(void)
{
    RUN(test_same_seed_same_bytes);
    RUN(test_file_matches_memory);
    RUN(test_defaults);
    RUN(test_text_is_well_formed);
    RUN(test_frames_animate_every_component);
    RUN(test_parser_reads_requested_counts);
    RUN(test_doom3_loop_convention);
    RUN(test_default_workload_parses);
    RUN(test_unusual_parameters);
    return check_report();
}
