/* Every quirk of real MD5 files (docs/md5-format.md, "Real files' quirks") has a small file in
 * tests/data/quirks/ and a row below saying what the reader does with it.
 *
 * Decisions, quirk by quirk:
 *   CRLF / LF / lone CR (old Mac), tabs or spaces, trailing white space, no final newline, NUL byte at the end
 *       accepted silently: every byte <= ' ' (NUL and CR included) is white space; LF, CR LF and a lone CR
 *       each end one line (a // comment too), so line numbers are right in all three.
 *   a UTF-8 byte-order mark before MD5Version
 *       accepted silently (skipped), as the ini reader does.
 *   comments after joint lines, whole-line comments inside mesh {}, on the MD5Version line, between
 *   MD5Version and commandline, block comments
 *       accepted silently; an unterminated block comment is an error at its start.
 *   strings holding //, backslashes, absolute paths, or nothing (shader "")
 *       accepted silently and kept verbatim in skin_mesh.shader; strings have no escapes; the texture is
 *       looked up by md5_resolve_texture (NULL texture_path when nothing is found). An unterminated
 *       string (no closing quote on its line) is an error.
 *   integers where floats are expected ( 0 0 1 ), frameRate 1
 *       accepted silently: every float slot reads integers.
 *   1 - x^2 - y^2 - z^2 slightly negative, or |xyz| = 1 exactly
 *       accepted silently: radicand clamped, w = 0.
 *   |xyz|^2 about 1.6
 *       accepted with a warning (one per joint in a mesh, one per clip for frames, naming the first);
 *       renormalized, never NaN.
 *   several roots, roots last
 *       accepted silently. A parent that is not before its child (or out of range) is an error.
 *   5 weights on a vertex
 *       accepted with one warning per mesh: the 4 largest kept and renormalized; vertices_cut and
 *       largest_weight_lost say how much was dropped. Bind positions use all the weights.
 *   biases not summing to 1
 *       renormalized; a warning per mesh (naming the worst vertex) when a sum is off by more than 1%.
 *       A sum of 0 or a negative bias is an error.
 *   weights shared by several vertices (overlapping ranges, numweights < numverts)
 *       accepted silently: it is legal.
 *   20+ meshes, meshes with 0 vertices, one joint, one frame, 500+ frames, frame rates 1..60
 *       accepted silently. numJoints 0, numFrames 0 and frameRate <= 0 are errors.
 *   numMeshes 2 with one mesh block
 *       accepted with a warning at the end of the file: the meshes that are there are whole.
 *   more mesh blocks than numMeshes, text after the last frame
 *       accepted with a warning; the extra text is ignored.
 *   bounds with more lines than numFrames
 *       accepted with a warning; the extra lines are ignored.
 *   numverts / numFrames promising more items than follow
 *       error where the next item was expected (a truncated file looks the same).
 *   a count larger than the rest of the file could hold (numJoints 1000000 in a small file)
 *       error before anything is allocated.
 *   indices 999, 1000000, 4294967295 (vertex in a tri, joint in a weight, startWeight, parent,
 *   startIndex, frame number)
 *       error naming the index and the count it exceeds; 4294967295 does not fit an int and is
 *       reported as out of range where it was read.
 *   NaN, inf, 1e39, 1e-300 in number slots
 *       error: the number reader accepts only finite decimal numbers a float can hold; 1e39 and 1e-300
 *       (nonzero, yet 0 as a float) are named as written: "1e-300 is out of range for a frame rate".
 *   a 0-byte file
 *       error "empty file" (line 0); white space only is "expected 'MD5Version'".
 *   not MD5Version 10 (version 11, an .md5camera, an image)
 *       error naming what was found instead.
 *   a clip with one renamed joint, or with a duplicated joint name in its hierarchy
 *       the clip loads (a duplicated name gets a warning); clip_fits_skeleton refuses it naming the first
 *       differing joint (and the earlier joint it duplicates).
 *   duplicated joint names inside one mesh's joints
 *       accepted with a warning at the second joint: skinning, clips and poses match joints by index, so
 *       only a lookup by name is ambiguous (it finds the first). A clip with the same duplicated names
 *       has the same hierarchy and fits.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "build/loader.h"
#include "md5/md5.h"
#include "test_data.h"

#define QUIRKS MARIONETTE_TEST_DATA "/quirks/"

typedef enum { MESH, ANIM, FIT } quirk_kind; /* FIT: the clip must fit base.md5mesh */

typedef struct quirk {
    const char *file;
    quirk_kind kind;
    bool ok;
    const char *text; /* substring of the error, or of the first warning; NULL: ok with no warning */
    int line;
} quirk;

static const quirk quirks[] = {
    {"base.md5mesh", MESH, true, NULL, 0},
    {"base.md5anim", FIT, true, NULL, 0},
    {"crlf.md5mesh", MESH, true, NULL, 0},
    {"crlf.md5anim", ANIM, true, NULL, 0},
    {"spaces_trailing_white.md5mesh", MESH, true, NULL, 0},
    {"no_final_newline.md5anim", ANIM, true, NULL, 0},
    {"nul_at_end.md5mesh", MESH, true, NULL, 0},
    {"comments_everywhere.md5mesh", MESH, true, NULL, 0},
    {"unterminated_comment.md5anim", ANIM, false, "unterminated /* comment", 31},
    {"shader_with_slashes.md5mesh", MESH, true, NULL, 0},
    {"shader_backslashes.md5mesh", MESH, true, NULL, 0},
    {"shader_absolute.md5mesh", MESH, true, NULL, 0},
    {"shader_empty.md5mesh", MESH, true, NULL, 0},
    {"unterminated_string.md5mesh", MESH, false, "unterminated string", 13},
    {"integer_floats.md5anim", ANIM, true, NULL, 0},
    {"quat_radicand_negative.md5mesh", MESH, true, NULL, 0},
    {"quat_exactly_unit.md5mesh", MESH, true, NULL, 0},
    {"quat_too_long.md5mesh", MESH, true, "joint 'arm' orientation is not a unit quaternion", 9},
    {"quat_too_long.md5anim", ANIM, true, "frame 1 joint 'arm', |xyz|^2 = 1.64): renormalized", 28},
    {"several_roots.md5mesh", MESH, true, NULL, 0},
    {"parent_after_child.md5mesh", MESH, false, "a parent must come before its child", 9},
    {"five_weights.md5mesh", MESH, true, "1 vertices have more than 4 weights", 16},
    {"bias_sum_off.md5mesh", MESH, true, "biases do not sum to 1 (worst: vert 1, sum 0.5)", 16},
    {"negative_bias.md5mesh", MESH, false, "weight 1 has a negative bias", 25},
    {"shared_weights.md5mesh", MESH, true, NULL, 0},
    {"twenty_one_meshes.md5mesh", MESH, true, NULL, 0},
    {"zero_vertices.md5mesh", MESH, true, NULL, 0},
    {"one_joint.md5mesh", MESH, true, NULL, 0},
    {"one_frame.md5anim", ANIM, true, NULL, 0},
    {"frames_501_rate_60.md5anim", ANIM, true, NULL, 0},
    {"num_meshes_lies.md5mesh", MESH, true, "numMeshes 2 but only 1 mesh blocks", 28},
    {"more_meshes_than_header.md5mesh", MESH, true, "another mesh block after the last of numMeshes 1", 26},
    {"bounds_extra_lines.md5anim", ANIM, true, "bounds has 2 more lines than numFrames 2", 17},
    {"tokens_after_last_frame.md5anim", ANIM, true, "text after the last frame", 32},
    {"numverts_lies.md5mesh", MESH, false, "expected 'vert', found 'numtris'", 20},
    {"num_frames_lies.md5anim", ANIM, false, "expected 'frame', found end of file", 32},
    {"truncated.md5anim", ANIM, false, "expected a frame component, found end of file", 29},
    {"numjoints_huge.md5mesh", MESH, false, "numJoints 1000000 cannot be right", 4},
    {"tri_vertex_999.md5mesh", MESH, false, "tri 0 uses vertex 999, out of range (numverts 3)", 21},
    {"weight_joint_1000000.md5mesh", MESH, false, "weight 1 uses joint 1000000, out of range", 25},
    {"start_weight_4294967295.md5mesh", MESH, false, "found '4294967295' (out of range)", 17},
    {"start_weight_999.md5mesh", MESH, false, "vert 1 uses weights 999..999, out of range (numweights 3)", 17},
    {"parent_999.md5anim", ANIM, false, "has parent 999, out of range", 11},
    {"start_index_1000000.md5anim", ANIM, false, "reads components 1000000..1000005", 11},
    {"frame_number_999.md5anim", ANIM, false, "frame 999 where frame 1 was expected", 28},
    {"nan_in_position.md5mesh", MESH, false, "expected a position, found 'nan'", 9},
    {"inf_in_frame.md5anim", ANIM, false, "expected a frame component, found 'inf'", 29},
    {"overflow_number.md5anim", ANIM, false, "1e39 is out of range for a frame component: a float's largest magnitude is about 3.4e38", 29},
    {"empty.md5mesh", MESH, false, "empty file", 0},
    {"white_space_only.md5anim", ANIM, false, "expected 'MD5Version'", 4},
    {"version_11.md5mesh", MESH, false, "unsupported MD5Version 11", 1},
    {"camera.md5camera", ANIM, false, "says .md5camera", 5},
    {"camera.md5camera", MESH, false, "not an .md5mesh", 4},
    {"image.png", MESH, false, "expected 'MD5Version' (this is not an MD5 .md5mesh file)", 1},
    {"base.md5mesh", ANIM, false, "not an .md5anim", 4},
    {"renamed_joint.md5anim", FIT, false, "joint 1: clip has 'forearm', skeleton has 'arm'", 0},
    {"duplicated_name.md5anim", ANIM, true, "joints 0 and 1 are both named 'root'", 11},
    {"duplicated_name.md5anim", FIT, false, "clip has 'root' (a duplicate of joint 0), skeleton has 'arm'", 0},
    {"duplicated_name.md5mesh", MESH, true, "joints 0 and 1 are both named 'root'", 9},
};

static const char *kind_name(quirk_kind kind)
{
    return kind == MESH ? "mesh" : kind == ANIM ? "anim" : "fit";
}

static void run_quirk(const quirk *q)
{
    char path[512];
    snprintf(path, sizeof path, QUIRKS "%s", q->file);
    diag err = {0};
    diag_list warnings = {0};
    bool ok;
    if (q->kind == MESH) {
        model *m = NULL;
        ok = loader_load_md5_model(path, &m, &err, &warnings);
        CHECK(ok == (m != NULL));
        model_free(m);
    } else {
        clip *c = NULL;
        ok = loader_load_md5_clip(path, &c, &err, &warnings);
        CHECK(ok == (c != NULL));
        if (ok && q->kind == FIT) {
            model *m = NULL;
            CHECK(loader_load_md5_model(QUIRKS "base.md5mesh", &m, &err, NULL));
            ok = m && clip_fits_skeleton(c, &m->skeleton, q->file, &err);
            model_free(m);
        }
        clip_free(c);
    }
    int failures = check_failures;
    CHECK(ok == q->ok);
    if (!q->ok) {
        CHECK_STR_CONTAINS(err.message, q->text);
        CHECK(err.line == q->line);
        CHECK_STR_CONTAINS(err.file, q->file);
    } else if (q->text) {
        CHECK(warnings.count >= 1);
        CHECK_STR_CONTAINS(warnings.count ? warnings.items[0].message : "", q->text);
        CHECK(warnings.count && warnings.items[0].line == q->line);
    } else {
        CHECK(warnings.total == 0);
    }
    if (check_failures != failures) {
        char text[DIAG_TEXT_MAX];
        diag_format(&err, text, sizeof text);
        fprintf(stderr, "  in quirk %s (%s): ok %d, error \"%s\", %d warnings%s%s\n", q->file, kind_name(q->kind),
                ok, ok ? "" : text, warnings.total, warnings.count ? ", first: " : "",
                warnings.count ? warnings.items[0].message : "");
    }
    diag_list_free(&warnings);
}

static void test_quirk_table(void)
{
    for (size_t i = 0; i < sizeof quirks / sizeof *quirks; ++i)
        run_quirk(&quirks[i]);
}

/* The details behind a few "accepted" rows. */
static void test_accepted_quirks_keep_their_data(void)
{
    model *m = NULL;
    CHECK(loader_load_md5_model(QUIRKS "shader_backslashes.md5mesh", &m, NULL, NULL));
    CHECK(m && strcmp(m->meshes[0].shader, "C:\\models\\guard.tga") == 0);
    model_free(m);
    CHECK(loader_load_md5_model(QUIRKS "shader_with_slashes.md5mesh", &m, NULL, NULL));
    CHECK(m && strcmp(m->meshes[0].shader, "models//guard//skin.tga") == 0);
    model_free(m);
    CHECK(loader_load_md5_model(QUIRKS "shader_empty.md5mesh", &m, NULL, NULL));
    CHECK(m && m->meshes[0].shader[0] == '\0' && m->meshes[0].texture_path == NULL);
    model_free(m);
    CHECK(loader_load_md5_model(QUIRKS "comments_everywhere.md5mesh", &m, NULL, NULL));
    CHECK(m && m->skeleton.joint_count == 2 && m->meshes[0].vertex_count == 3 &&
          strcmp(m->meshes[0].shader, "skin.tga") == 0);
    model_free(m);
    CHECK(loader_load_md5_model(QUIRKS "quat_exactly_unit.md5mesh", &m, NULL, NULL));
    CHECK(m && m->skeleton.bind_object[1].rotation[3] == 0.0f);
    CHECK_NEAR(m ? m->skeleton.bind_object[1].rotation[0] : 0, 0.6, 1e-6);
    model_free(m);
    CHECK(loader_load_md5_model(QUIRKS "quat_too_long.md5mesh", &m, NULL, NULL));
    if (m) {
        const float *q = m->skeleton.bind_object[1].rotation;
        CHECK_NEAR(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3], 1.0, 1e-5);
    }
    model_free(m);
    CHECK(loader_load_md5_model(QUIRKS "several_roots.md5mesh", &m, NULL, NULL));
    CHECK(m && m->skeleton.parents[4] == -1 && m->skeleton.parents[3] == 2);
    model_free(m);
    CHECK(loader_load_md5_model(QUIRKS "five_weights.md5mesh", &m, NULL, NULL));
    if (m) {
        const skin_mesh *mesh = &m->meshes[0];
        CHECK(mesh->vertices_cut == 1 && mesh->max_influences == 5);
        CHECK_NEAR(mesh->largest_weight_lost, 0.1, 1e-6);
        CHECK_NEAR(mesh->weights[1][0], 0.3 / 0.9, 1e-6); /* 0.3 0.25 0.2 0.15 kept, 0.1 dropped */
        CHECK_NEAR(mesh->weights[1][3], 0.15 / 0.9, 1e-6);
        CHECK(mesh->joints[1][0] == 1 && mesh->joints[1][1] == 1 && mesh->joints[1][2] == 0);
    }
    model_free(m);
    CHECK(loader_load_md5_model(QUIRKS "twenty_one_meshes.md5mesh", &m, NULL, NULL));
    CHECK(m && m->mesh_count == 21);
    model_free(m);
    CHECK(loader_load_md5_model(QUIRKS "num_meshes_lies.md5mesh", &m, NULL, NULL));
    CHECK(m && m->mesh_count == 1);
    model_free(m);
    CHECK(loader_load_md5_model(QUIRKS "zero_vertices.md5mesh", &m, NULL, NULL));
    CHECK(m && m->mesh_count == 2 && m->meshes[1].vertex_count == 0 && m->meshes[1].triangle_count == 0);
    model_free(m);

    clip *c = NULL;
    CHECK(loader_load_md5_clip(QUIRKS "integer_floats.md5anim", &c, NULL, NULL));
    CHECK(c && c->frame_rate == 1.0f && c->frames[1 * 2 + 1].position[2] == 3.0f);
    clip_free(c);
    CHECK(loader_load_md5_clip(QUIRKS "frames_501_rate_60.md5anim", &c, NULL, NULL));
    CHECK(c && c->frame_count == 501 && c->frame_rate == 60.0f);
    clip_free(c);
    CHECK(loader_load_md5_clip(QUIRKS "bounds_extra_lines.md5anim", &c, NULL, NULL));
    CHECK(c && c->frame_count == 2);
    clip_free(c);
    CHECK(loader_load_md5_clip(QUIRKS "quat_too_long.md5anim", &c, NULL, NULL));
    if (c) {
        const float *q = c->frames[1 * 2 + 1].rotation;
        CHECK_NEAR(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3], 1.0, 1e-5);
        CHECK(q[3] == 0.0f);
    }
    clip_free(c);
}

static char *read_quirk(const char *name, size_t *size)
{
    char path[512];
    snprintf(path, sizeof path, QUIRKS "%s", name);
    FILE *f = fopen(path, "rb");
    char *text = f ? malloc(65536) : NULL;
    *size = text ? fread(text, 1, 65535, f) : 0;
    if (f)
        fclose(f);
    CHECK(text != NULL && *size > 0);
    return text;
}

/* text with every LF replaced by `line_end` (NUL-terminated; the caller frees). */
static char *with_line_ends(const char *text, size_t size, const char *line_end, const char *prefix, size_t *out_size)
{
    char *out = malloc(size * 2 + 8);
    size_t n = strlen(prefix);
    memcpy(out, prefix, n);
    for (size_t i = 0; i < size; ++i) {
        if (text[i] == '\n') {
            memcpy(out + n, line_end, strlen(line_end));
            n += strlen(line_end);
        } else {
            out[n++] = text[i];
        }
    }
    out[n] = '\0';
    *out_size = n;
    return out;
}

/* A byte-order mark and lone-CR line ends (issue 16): base.md5anim (whose hierarchy lines end in //
 * comments, which must stop at a CR) and base.md5mesh load the same with LF, CR LF and CR, with and
 * without a BOM; an error on line 16 of each is reported on line 16. */
static void test_bom_and_line_ends(void)
{
    static const char *const line_ends[] = {"\n", "\r\n", "\r"};
    static const char *const prefixes[] = {"", "\xEF\xBB\xBF"};
    size_t anim_size, mesh_size;
    char *anim = read_quirk("base.md5anim", &anim_size);
    char *mesh = read_quirk("base.md5mesh", &mesh_size);
    for (int e = 0; e < 3 && anim && mesh; ++e) {
        for (int b = 0; b < 2; ++b) {
            size_t size;
            char *text = with_line_ends(anim, anim_size, line_ends[e], prefixes[b], &size);
            clip *c = NULL;
            diag err = {0};
            diag_list warnings = {0};
            CHECK(loader_parse_md5_clip(text, size, "x.md5anim", &c, &err, &warnings));
            CHECK(c && c->joint_count == 2 && c->frame_count == 2 && c->frames[3].position[0] == 1.0f);
            CHECK(warnings.total == 0);
            clip_free(c);
            /* line 16 is the second bounds line: break its first number */
            char *bad = strstr(text, "( -1 -1 -1 ) ( 1 1 1 )");
            bad = bad ? strstr(bad + 1, "( -1 -1 -1 )") : NULL;
            CHECK(bad != NULL);
            if (bad) {
                bad[2] = 'x';
                CHECK(!loader_parse_md5_clip(text, size, "x.md5anim", &c, &err, NULL));
                CHECK(err.line == 16);
                CHECK(strcmp(err.message, "expected a bound, found 'x1'") == 0);
            }
            free(text);

            text = with_line_ends(mesh, mesh_size, line_ends[e], prefixes[b], &size);
            model *m = NULL;
            CHECK(loader_parse_md5_model(text, size, "x.md5mesh", &m, &err, &warnings));
            CHECK(m && m->skeleton.joint_count == 2 && m->meshes[0].vertex_count == 3);
            CHECK(warnings.total == 0);
            model_free(m);
            bad = strstr(text, "vert 1 ( 1 0 )");
            CHECK(bad != NULL);
            if (bad) {
                bad[5] = '7';
                CHECK(!loader_parse_md5_model(text, size, "x.md5mesh", &m, &err, NULL));
                CHECK(err.line == 17);
                CHECK(strcmp(err.message, "vert 7 where vert 1 was expected") == 0);
            }
            free(text);
            diag_list_free(&warnings);
        }
    }
    /* An unterminated string ends at a lone CR too. */
    static const char cr_string[] = "MD5Version 10\rcommandline \"abc\rnumJoints 1\r";
    model *m = NULL;
    diag err = {0};
    CHECK(!loader_parse_md5_model(cr_string, sizeof cr_string - 1, "s.md5mesh", &m, &err, NULL));
    CHECK(strcmp(err.message, "unterminated string") == 0 && err.line == 2);
    free(anim);
    free(mesh);
}

/* Numbers a float cannot hold are named as written, never as the number they would have become
 * (issue 16: "frameRate 0" for 1e-300, "found 1" for 1e39). */
static void test_numbers_out_of_range_named_as_written(void)
{
    static const struct {
        const char *number;
        const char *message;
    } cases[] = {
        {"1e-300", "1e-300 is out of range for a frame rate: a float's smallest magnitude is about 1.4e-45 (write 0 "
                   "for zero)"},
        {"1e39", "1e39 is out of range for a frame rate: a float's largest magnitude is about 3.4e38"},
        {"-1e39", "-1e39 is out of range for a frame rate: a float's largest magnitude is about 3.4e38"},
        {"0.0000000000000000000000000000000000000000000000001",
         "0.000000000000000000000000000000... is out of range for a frame rate: a float's smallest magnitude is "
         "about 1.4e-45 (write 0 for zero)"},
        {"1e-30", "frameRate 1e-30: must be at least 0.001 and at most 10000"},
        {"0e-300", "frameRate 0: must be at least 0.001 and at most 10000"},
        {"inf", "expected a frame rate, found 'inf'"},
        {"0x1p3", "expected a frame rate, found '0x1p3'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; ++i) {
        char text[256];
        int length = snprintf(text, sizeof text, "MD5Version 10\nnumFrames 1\nnumJoints 1\nframeRate %s\n// %s\n",
                              cases[i].number, "room for the counts to be believed: ................................");
        clip *c = NULL;
        diag err = {0};
        CHECK(!loader_parse_md5_clip(text, (size_t)length, "r.md5anim", &c, &err, NULL));
        CHECK(err.line == 4);
        CHECK(strcmp(err.message, cases[i].message) == 0);
        if (strcmp(err.message, cases[i].message) != 0)
            fprintf(stderr, "  %s: got \"%s\"\n", cases[i].number, err.message);
    }
    /* In a mesh, and where zero is written as zero (accepted). */
    size_t size;
    char *mesh = read_quirk("base.md5mesh", &size);
    char *at = mesh ? strstr(mesh, "( 1 0 0 )") : NULL;
    CHECK(at != NULL);
    if (at) {
        char text[4096];
        int length = snprintf(text, sizeof text, "%.*s( -1e39 0 -0.000e-999 )%s", (int)(at - mesh), mesh,
                              at + strlen("( 1 0 0 )"));
        model *m = NULL;
        diag err = {0};
        CHECK(!loader_parse_md5_model(text, (size_t)length, "m.md5mesh", &m, &err, NULL));
        CHECK(strcmp(err.message, "-1e39 is out of range for a position: a float's largest magnitude is about 3.4e38") == 0);
        CHECK(err.line == 9);
        length = snprintf(text, sizeof text, "%.*s( 1 0 -0.000e-999 )%s", (int)(at - mesh), mesh,
                          at + strlen("( 1 0 0 )"));
        CHECK(loader_parse_md5_model(text, (size_t)length, "m.md5mesh", &m, &err, NULL));
        model_free(m);
    }
    free(mesh);
}

/* An empty file read as a mesh and as a clip: refused, naming the file. */
static void check_empty_file(const char *path)
{
    model *m = NULL;
    diag err = {0};
    CHECK(!loader_load_md5_model(path, &m, &err, NULL));
    CHECK(m == NULL);
    CHECK_STR_CONTAINS(err.message, "empty file");
    CHECK_STR_CONTAINS(err.file, "empty.md5mesh");
    clip *c = NULL;
    CHECK(!loader_load_md5_clip(path, &c, &err, NULL));
    CHECK(c == NULL);
    CHECK_STR_CONTAINS(err.message, "empty file");
}

static void test_empty_file(void)
{
    check_empty_file(MARIONETTE_TEST_DATA "/quirks/empty.md5mesh");
}

/* The empty file assimp-testmodels ships (`--assimp`, test_data.h). */
static void test_assimp_empty_file(void)
{
    check_empty_file(ASSIMP_EMPTY);
}

int main(int argc, char **argv)
{
    test_part part;
    int skip = test_data_start(argc, argv, &part);
    if (skip)
        return skip;
    if (part == TEST_PART_OWN) {
        RUN(test_quirk_table);
        RUN(test_accepted_quirks_keep_their_data);
        RUN(test_empty_file);
        RUN(test_bom_and_line_ends);
        RUN(test_numbers_out_of_range_named_as_written);
    }
    if (part == TEST_PART_ASSIMP)
        RUN(test_assimp_empty_file);
    return check_report();
}
