/* Whole files: the generated assets (assets/), and the third-party boneman (Blender, 40 joints, 6 clips;
 * `--boneman`) and assimp's Maya cube (`--assimp`), see test_data.h. They load, the clips fit the skeleton,
 * nothing is NaN; and every truncation and many corruptions of them are either refused with a diag or
 * loaded clean, never a crash or an out-of-bounds read (run under sanitizers). */
#include <stdint.h>
#include <stdlib.h>

#include "base/file.h"
#include "check.h"
#include "build/loader.h"
#include "md5/md5.h"
#include "test_data.h"

#define ASSETS MARIONETTE_SOURCE_DIR "/assets/"

static const char *const clips[] = {
    "boneman_attack.md5anim", "boneman_dead.md5anim", "boneman_dying.md5anim",
    "boneman_idle.md5anim", "boneman_pain.md5anim", "boneman_running.md5anim",
};

static bool all_finite(const float *values, size_t count)
{
    for (size_t i = 0; i < count; ++i)
        if (!isfinite(values[i]))
            return false;
    return true;
}

static bool model_is_clean(const model *m)
{
    const skeleton *s = &m->skeleton;
    bool clean = all_finite(&s->bind_object[0].rotation[0], (size_t)s->joint_count * 8) &&
                 all_finite(&s->inverse_bind[0][0][0], (size_t)s->joint_count * 16);
    for (int i = 0; i < s->joint_count; ++i)
        clean &= s->parents[i] >= -1 && s->parents[i] < i;
    for (int i = 0; i < m->mesh_count; ++i) {
        const skin_mesh *mesh = &m->meshes[i];
        size_t v = (size_t)mesh->vertex_count;
        clean &= all_finite(&mesh->positions[0][0], v * 3) && all_finite(&mesh->normals[0][0], v * 3) &&
                 all_finite(&mesh->uvs[0][0], v * 2) && all_finite(&mesh->weights[0][0], v * 4);
        for (int t = 0; t < mesh->triangle_count; ++t)
            for (int k = 0; k < 3; ++k)
                clean &= mesh->triangles[t][k] < (uint32_t)mesh->vertex_count;
        for (size_t j = 0; j < v; ++j)
            for (int k = 0; k < SKIN_MAX_INFLUENCES; ++k)
                clean &= mesh->joints[j][k] < s->joint_count;
    }
    return clean;
}

static bool clip_is_clean(const clip *c)
{
    size_t poses = (size_t)c->frame_count * (size_t)c->joint_count;
    bool clean = all_finite(&c->frames[0].rotation[0], poses * 8) &&
                 all_finite(&c->bounds[0][0][0], (size_t)c->frame_count * 6) && isfinite(c->loop_duration) &&
                 isfinite(c->once_duration) && c->frame_rate > 0.0f && c->frame_count >= 1;
    for (size_t i = 0; i < poses; ++i) {
        const float *q = c->frames[i].rotation;
        clean &= fabsf(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3] - 1.0f) < 1e-5f;
    }
    return clean;
}

static void test_boneman_loads_and_clips_fit(void)
{
    model *m = NULL;
    diag err = {0};
    diag_list warnings = {0};
    CHECK(loader_load_md5_model(BONEMAN "boneman.md5mesh", &m, &err, &warnings));
    if (!m)
        return;
    CHECK(warnings.total == 0);
    CHECK(m->skeleton.joint_count == 40 && m->mesh_count == 1);
    CHECK(strcmp(m->skeleton.names[0], "Main") == 0);
    CHECK(strcmp(m->meshes[0].shader, "skin.png") == 0); /* not the commented-out second shader line */
    CHECK(m->meshes[0].vertex_count == 2203 && m->meshes[0].triangle_count == 2848);
    CHECK(model_is_clean(m));
    for (size_t i = 0; i < sizeof clips / sizeof *clips; ++i) {
        char path[512];
        snprintf(path, sizeof path, BONEMAN "%s", clips[i]);
        clip *c = NULL;
        CHECK(loader_load_md5_clip(path, &c, &err, &warnings));
        if (!c)
            continue;
        CHECK(c->frame_rate == 24.0f);
        CHECK(clip_is_clean(c));
        CHECK(clip_fits_skeleton(c, &m->skeleton, path, &err));
        clip_free(c);
    }
    CHECK(warnings.total == 0);
    diag_list_free(&warnings);
    model_free(m);
}

/* Parse a copy of exactly `size` bytes (no NUL after it, so an overread is caught). */
static bool parse_copy(const char *text, size_t size, bool mesh)
{
    char *copy = malloc(size ? size : 1);
    memcpy(copy, text, size);
    diag err = {0};
    diag_list warnings = {0};
    bool ok;
    if (mesh) {
        model *m = NULL;
        ok = loader_parse_md5_model(copy, size, "copy.md5mesh", &m, &err, &warnings);
        CHECK(!ok || model_is_clean(m));
        model_free(m);
    } else {
        clip *c = NULL;
        ok = loader_parse_md5_clip(copy, size, "copy.md5anim", &c, &err, &warnings);
        CHECK(!ok || clip_is_clean(c));
        clip_free(c);
    }
    CHECK(ok || (err.message[0] != '\0' && err.line >= 0));
    diag_list_free(&warnings);
    free(copy);
    return ok;
}

static void truncate_everywhere(const char *path, bool mesh)
{
    char *text;
    size_t size;
    CHECK(file_read_all(path, (size_t)1 << 30, &text, &size, NULL));
    if (!text)
        return;
    int accepted = 0, tried = 0;
    /* Every length near both ends, and a prime stride through the middle. */
    size_t edge = size < 800 ? size / 2 : 400;
    for (size_t n = 0; n < edge; ++n, ++tried)
        accepted += parse_copy(text, n, mesh);
    for (size_t n = edge; n < size - edge; n += 1021, ++tried)
        accepted += parse_copy(text, n, mesh);
    for (size_t n = size - edge; n <= size; ++n, ++tried)
        accepted += parse_copy(text, n, mesh);
    CHECK(tried > (int)(2 * edge));
    CHECK(accepted >= 1); /* the whole file, at least */
    free(text);
}

static void test_truncation_of_assets(void)
{
    truncate_everywhere(ASSETS "models/mannequin.md5mesh", true);
    truncate_everywhere(ASSETS "clips/walk.md5anim", false);
}

static void test_truncation_of_boneman(void)
{
    truncate_everywhere(BONEMAN "boneman.md5mesh", true);
    truncate_everywhere(BONEMAN "boneman_dying.md5anim", false);
}

static void test_truncation_of_cube(void)
{
    truncate_everywhere(ASSIMP_CUBE, true);
}

/* Overwrite random bytes with characters that matter to the grammar (digits, signs, quotes, braces,
 * huge numbers): whatever comes out must be a clean result or a diag. */
static void corrupt_randomly(const char *path, bool mesh, int rounds)
{
    static const char *const patches[] = {"9", "-", "\"", "{", "}", "(", ")", "/*", "//", "\n", "\0", "e",
                                          "999", "1000000", "4294967295", "1e38", "nan", ".", "-1", "0"};
    char *text;
    size_t size;
    CHECK(file_read_all(path, (size_t)1 << 30, &text, &size, NULL));
    if (!text)
        return;
    char *work = malloc(size);
    uint64_t state = 42;
    for (int round = 0; round < rounds; ++round) {
        memcpy(work, text, size);
        for (int edit = 0; edit < 3; ++edit) {
            state = state * 6364136223846793005u + 1442695040888963407u;
            size_t at = (size_t)(state >> 20) % size;
            const char *patch = patches[(state >> 8) % (sizeof patches / sizeof *patches)];
            size_t length = patch[0] ? strlen(patch) : 1;
            for (size_t k = 0; k < length && at + k < size; ++k)
                work[at + k] = patch[k];
        }
        parse_copy(work, size, mesh);
    }
    free(work);
    free(text);
}

static void test_corruption_of_assets(void)
{
    corrupt_randomly(ASSETS "clips/wave.md5anim", false, 1000);
    corrupt_randomly(ASSETS "models/robot.md5mesh", true, 60);
}

static void test_corruption_of_boneman(void)
{
    corrupt_randomly(BONEMAN "boneman_dead.md5anim", false, 2000);
    corrupt_randomly(BONEMAN "boneman.md5mesh", true, 60);
}

static void test_corruption_of_cube(void)
{
    corrupt_randomly(ASSIMP_CUBE, true, 3000);
}

int main(int argc, char **argv)
{
    test_part part;
    int skip = test_data_start(argc, argv, &part);
    if (skip)
        return skip;
    if (part == TEST_PART_OWN) {
        RUN(test_truncation_of_assets);
        RUN(test_corruption_of_assets);
    }
    if (part == TEST_PART_BONEMAN) {
        RUN(test_boneman_loads_and_clips_fit);
        RUN(test_truncation_of_boneman);
        RUN(test_corruption_of_boneman);
    }
    if (part == TEST_PART_ASSIMP) {
        RUN(test_truncation_of_cube);
        RUN(test_corruption_of_cube);
    }
    return check_report();
}
