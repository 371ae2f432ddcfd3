/* .md5anim -> clip: baked local poses (flags and start indices applied), bounds, timing and the two loop
 * conventions, and clip_fits_skeleton; and the example pair of docs/md5-format.md says what it claims. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>

#include "check.h"
#include "build/loader.h"
#include "md5/md5.h"
#include "pose/pose.h"
#include "test_files.h"

/* Two joints; the root animates nothing, the arm animates pos.y (2) and quat.z (32), reading components
 * 0 and 1 of each frame. `last` is the text of the last frame's two components. */
static clip *parse_clip(int frames, const char *rate, const char *last, diag_list *warnings)
{
    char text[8192];
    int length = snprintf(text, sizeof text,
                          "MD5Version 10\ncommandline \"\"\nnumFrames %d\nnumJoints 2\nframeRate %s\n"
                          "numAnimatedComponents 2\nhierarchy {\n\t\"root\" -1 0 0\n\t\"arm\" 0 34 0\n}\nbounds {\n",
                          frames, rate);
    for (int f = 0; f < frames; ++f)
        length += snprintf(text + length, sizeof text - (size_t)length, "\t( -1 -2 -3 ) ( %d 2 3 )\n", f);
    length += snprintf(text + length, sizeof text - (size_t)length,
                       "}\nbaseframe {\n\t( 0 0 1 ) ( 0 0 0 )\n\t( 5 6 7 ) ( 0.5 0 0 )\n}\n");
    for (int f = 0; f < frames; ++f)
        length += snprintf(text + length, sizeof text - (size_t)length, "frame %d {\n\t%s\n}\n", f,
                           f == frames - 1 && last ? last : f == 0 ? "0 0" : "1 0.5");
    clip *c = NULL;
    diag err = {0};
    bool ok = loader_parse_md5_clip(text, (size_t)length, "memory/test.md5anim", &c, &err, warnings);
    if (!ok)
        fprintf(stderr, "  %d: %s\n", err.line, err.message);
    CHECK(ok);
    return c;
}

static void test_frames_are_baked(void)
{
    diag_list warnings = {0};
    clip *c = parse_clip(3, "24", NULL, &warnings);
    if (!c)
        return;
    CHECK(warnings.total == 0);
    CHECK(c->joint_count == 2 && c->frame_count == 3 && c->frame_rate == 24.0f);
    CHECK(((uintptr_t)c->frames % 16) == 0);
    CHECK(strcmp(c->names[1], "arm") == 0 && c->parents[1] == 0);
    const joint_pose *root = &c->frames[2 * 2 + 0], *arm = &c->frames[2 * 2 + 1];
    CHECK(root->position[2] == 1.0f && root->rotation[3] == -1.0f);
    /* pos.x and pos.z from the baseframe, pos.y from component 0; quat.x from the baseframe, quat.z from
     * component 1. */
    CHECK(arm->position[0] == 5.0f && arm->position[1] == 1.0f && arm->position[2] == 7.0f);
    CHECK(arm->rotation[0] == 0.5f && arm->rotation[1] == 0.0f && arm->rotation[2] == 0.5f);
    CHECK_NEAR(arm->rotation[3], -sqrt(0.5), 1e-6);
    for (int i = 0; i < c->frame_count * c->joint_count; ++i) {
        const float *q = c->frames[i].rotation;
        CHECK_NEAR(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3], 1.0, 1e-6);
    }
    CHECK(c->bounds[2][0][0] == -1.0f && c->bounds[2][1][0] == 2.0f);
    CHECK(c->bytes >= sizeof *c + 6 * sizeof(joint_pose));
    diag_list_free(&warnings);
    clip_free(c);
}

static void test_loop_conventions(void)
{
    /* Tutorials: last frame differs from the first, a cycle lasts N / rate. */
    clip *c = parse_clip(4, "24", NULL, NULL);
    if (c) {
        CHECK(!c->last_frame_is_first);
        CHECK_NEAR(c->loop_duration, 4.0 / 24.0, 1e-7);
        CHECK_NEAR(c->once_duration, 3.0 / 24.0, 1e-7);
    }
    clip_free(c);
    /* Doom 3: last frame repeats the first, a cycle lasts (N - 1) / rate. */
    c = parse_clip(4, "30", "0 0", NULL);
    if (c) {
        CHECK(c->last_frame_is_first);
        CHECK_NEAR(c->loop_duration, 3.0 / 30.0, 1e-7);
        CHECK_NEAR(c->once_duration, 3.0 / 30.0, 1e-7);
    }
    clip_free(c);
    /* Within the tolerance counts as equal... */
    c = parse_clip(4, "30", "0.00005 0", NULL);
    CHECK(c && c->last_frame_is_first);
    clip_free(c);
    /* ...beyond it does not. */
    c = parse_clip(4, "30", "0.001 0", NULL);
    CHECK(c && !c->last_frame_is_first);
    clip_free(c);
    /* One frame: nothing to cycle through. */
    c = parse_clip(1, "60", NULL, NULL);
    if (c) {
        CHECK(c->loop_duration == 0.0f && c->once_duration == 0.0f);
    }
    clip_free(c);
}

/* q and -q are the same rotation: a last frame whose quaternion has the other sign still repeats the
 * first. Stored xyz (0,0,1) has w = 0; xyz (0,0,-1) is its negation. */
static void test_loop_ignores_quaternion_sign(void)
{
    char text[2048];
    int length = snprintf(text, sizeof text,
                          "MD5Version 10\nnumFrames 2\nnumJoints 1\nframeRate 24\nnumAnimatedComponents 1\n"
                          "hierarchy {\n\"root\" -1 32 0\n}\nbounds {\n( 0 0 0 ) ( 1 1 1 )\n( 0 0 0 ) ( 1 1 1 )\n}\n"
                          "baseframe {\n( 0 0 0 ) ( 0 0 0 )\n}\nframe 0 {\n1\n}\nframe 1 {\n-1\n}\n");
    clip *c = NULL;
    CHECK(loader_parse_md5_clip(text, (size_t)length, "sign.md5anim", &c, NULL, NULL));
    CHECK(c && c->last_frame_is_first);
    clip_free(c);
}

/* A root-motion cycle: the root travels +X through the clip (pos.x, flag 1) while the arm (quat.z, flag 32)
 * comes back to where it started. The last frame repeats the first but for the root's travel: that is the
 * Doom 3 rule, and the root must not hide it. With the arm's last frame different it is the tutorials'
 * rule again. */
static clip *parse_root_motion_clip(const char *last_arm)
{
    char text[2048];
    int length = snprintf(text, sizeof text,
                          "MD5Version 10\nnumFrames 3\nnumJoints 2\nframeRate 24\nnumAnimatedComponents 2\n"
                          "hierarchy {\n\"root\" -1 1 0\n\"arm\" 0 32 1\n}\nbounds {\n"
                          "( 0 0 0 ) ( 1 1 1 )\n( 0 0 0 ) ( 1 1 1 )\n( 0 0 0 ) ( 1 1 1 )\n}\n"
                          "baseframe {\n( 0 0 0 ) ( 0 0 0 )\n( 0 1 0 ) ( 0 0 0 )\n}\n"
                          "frame 0 {\n0 0\n}\nframe 1 {\n0.7 0.3\n}\nframe 2 {\n1.4 %s\n}\n",
                          last_arm);
    clip *c = NULL;
    diag err = {0};
    CHECK(loader_parse_md5_clip(text, (size_t)length, "root_motion.md5anim", &c, &err, NULL));
    return c;
}

static void test_loop_ignores_root_travel(void)
{
    clip *c = parse_root_motion_clip("0");
    CHECK(c && c->last_frame_is_first);
    if (c)
        CHECK_NEAR(c->loop_duration, 2.0 / 24.0, 1e-7);
    clip_free(c);
    c = parse_root_motion_clip("0.3");
    CHECK(c && !c->last_frame_is_first);
    clip_free(c);
}

static void test_fits_skeleton(void)
{
    static const char mesh_text[] =
        "MD5Version 10\nnumJoints 2\nnumMeshes 0\njoints {\n\"root\" -1 ( 0 0 0 ) ( 0 0 0 )\n"
        "\"arm\" 0 ( 1 0 0 ) ( 0 0 0 )\n}\n";
    model *m = NULL;
    diag err = {0};
    CHECK(loader_parse_md5_model(mesh_text, strlen(mesh_text), "fit.md5mesh", &m, &err, NULL));
    clip *c = parse_clip(2, "24", NULL, NULL);
    if (!m || !c) {
        model_free(m);
        clip_free(c);
        return;
    }
    CHECK(clip_fits_skeleton(c, &m->skeleton, "clip.md5anim", &err));
    c->parents[1] = -1;
    CHECK(!clip_fits_skeleton(c, &m->skeleton, "clip.md5anim", &err));
    CHECK_STR_CONTAINS(err.message, "joint 1 'arm': clip's parent is -1, skeleton's is 0");
    CHECK_STR_CONTAINS(err.file, "clip.md5anim");
    c->parents[1] = 0;
    c->names[1][0] = 'A';
    CHECK(!clip_fits_skeleton(c, &m->skeleton, "clip.md5anim", &err));
    CHECK_STR_CONTAINS(err.message, "joint 1: clip has 'Arm', skeleton has 'arm'");
    c->joint_count = 1;
    CHECK(!clip_fits_skeleton(c, &m->skeleton, "clip.md5anim", &err));
    CHECK_STR_CONTAINS(err.message, "clip has 1 joints, skeleton has 2; joint 1 'arm' of the skeleton is missing");
    c->joint_count = 2;
    /* The other way round: a clip with a joint more names it. */
    m->skeleton.joint_count = 1;
    CHECK(!clip_fits_skeleton(c, &m->skeleton, "clip.md5anim", &err));
    CHECK_STR_CONTAINS(err.message, "joint 1 'Arm' of the clip is not in the skeleton");
    m->skeleton.joint_count = 2;
    /* Different counts and a differing name before the end: the name is what to look at first. */
    c->joint_count = 1;
    c->names[0][0] = 'R';
    CHECK(!clip_fits_skeleton(c, &m->skeleton, "clip.md5anim", &err));
    CHECK_STR_CONTAINS(err.message, "clip has 1 joints, skeleton has 2; joint 0: clip has 'Root', skeleton has 'root'");
    c->names[0][0] = 'r';
    c->joint_count = 2;
    model_free(m);
    clip_free(c);
}

static void test_refusals(void)
{
    diag err = {0};
    clip *c = NULL;
    CHECK(!loader_parse_md5_clip("", 0, "x.md5anim", &c, &err, NULL));
    CHECK_STR_CONTAINS(err.message, "empty file");
    const char *zero_rate = "MD5Version 10\nnumFrames 1\nnumJoints 1\nframeRate 0\nnumAnimatedComponents 0\n";
    CHECK(!loader_parse_md5_clip(zero_rate, strlen(zero_rate), "x.md5anim", &c, &err, NULL));
    CHECK_STR_CONTAINS(err.message, "frameRate 0");
    CHECK(err.line == 4);
    /* A denormal rate passed "above 0" and made the clip's durations infinite (fuzz_md5anim found it). */
    const char *tiny_rate = "MD5Version 10\nnumFrames 2\nnumJoints 1\nframeRate 241e-45\nnumAnimatedComponents 0\n";
    CHECK(!loader_parse_md5_clip(tiny_rate, strlen(tiny_rate), "x.md5anim", &c, &err, NULL));
    CHECK_STR_CONTAINS(err.message, "frameRate 2.41");
    CHECK_STR_CONTAINS(err.message, "must be at least 0.001");
    CHECK(err.line == 4 && c == NULL);
    const char *slowest_rate = "MD5Version 10\nnumFrames 1\nnumJoints 1\nframeRate 0.001\nnumAnimatedComponents 0\n"
                               "hierarchy {\n\"root\" -1 0 0\n}\nbounds {\n( 0 0 0 ) ( 0 0 0 )\n}\n"
                               "baseframe {\n( 0 0 0 ) ( 0 0 0 )\n}\nframe 0 {\n}\n";
    CHECK(loader_parse_md5_clip(slowest_rate, strlen(slowest_rate), "x.md5anim", &c, &err, NULL));
    CHECK(c && isfinite(c->loop_duration) && isfinite(c->once_duration));
    clip_free(c);
    c = NULL;
    const char *no_frames = "MD5Version 10\nnumFrames 0\n";
    CHECK(!loader_parse_md5_clip(no_frames, strlen(no_frames), "x.md5anim", &c, &err, NULL));
    CHECK_STR_CONTAINS(err.message, "numFrames 0: at least 1");
    const char *bad_flags = "MD5Version 10\nnumFrames 1\nnumJoints 1\nframeRate 24\nnumAnimatedComponents 0\n"
                            "hierarchy {\n\"root\" -1 64 0\n}\n";
    CHECK(!loader_parse_md5_clip(bad_flags, strlen(bad_flags), "x.md5anim", &c, &err, NULL));
    CHECK_STR_CONTAINS(err.message, "flags 64");
    CHECK(err.line == 7);
}

/* The fenced block right after the line `label` in `doc`, as a heap copy; NULL if there is none. */
static char *doc_block(const char *doc, const char *label)
{
    const char *at = doc ? strstr(doc, label) : NULL;
    const char *open = at ? strstr(at, "```\n") : NULL;
    const char *close = open ? strstr(open + 4, "\n```") : NULL;
    if (!close)
        return NULL;
    size_t length = (size_t)(close - (open + 4)) + 1;
    char *block = malloc(length + 1);
    memcpy(block, open + 4, length);
    block[length] = '\0';
    return block;
}

/* docs/md5-format.md's stick: both files load without a warning, the clip fits, follows the Doom 3 loop
 * rule, its frame 1 bends "bend" by +45 degrees about +Y, and the skinned corners and normals are the ones
 * the page quotes. */
static void test_format_doc_examples(void)
{
    char *doc = test_read_file(MARIONETTE_SOURCE_DIR "/docs/md5-format.md", NULL);
    char *mesh_text = doc_block(doc, "`stick.md5mesh`:\n");
    char *anim_text = doc_block(doc, "`stick.md5anim`:\n");
    CHECK(mesh_text && anim_text);
    model *m = NULL;
    clip *c = NULL;
    diag err = {0};
    diag_list warnings = {0};
    CHECK(mesh_text && loader_parse_md5_model(mesh_text, strlen(mesh_text), "stick.md5mesh", &m, &err, &warnings));
    CHECK(anim_text && loader_parse_md5_clip(anim_text, strlen(anim_text), "stick.md5anim", &c, &err, &warnings));
    CHECK(warnings.total == 0);
    if (m && c) {
        CHECK(clip_fits_skeleton(c, &m->skeleton, "stick.md5anim", &err));
        CHECK(m->mesh_count == 1 && m->meshes[0].vertex_count == 4 && m->meshes[0].max_influences == 2);
        CHECK(c->frame_count == 3 && c->last_frame_is_first);
        CHECK_NEAR(c->loop_duration, 2.0 / 30.0, 1e-6);
        /* Stored y = -0.382683 and w = -sqrt(1 - y^2): the rotation of +45 degrees about +Y. */
        const float *q = c->frames[1 * 2 + 1].rotation;
        CHECK_NEAR(q[1], -0.382683, 1e-6);
        CHECK_NEAR(q[3], -0.923880, 1e-6);
        /* Bind normals: the clockwise triangles face +X. */
        for (int v = 0; v < 4; ++v)
            CHECK_NEAR(m->meshes[0].normals[v][0], 1.0, 1e-6);
        joint_pose local[2], object[2];
        mat4 palette[2];
        float positions[4][3], normals[4][3];
        CHECK(pose_sample(c, 1.0f / 30.0f, false, local) && pose_to_object(c->parents, 2, local, object) &&
              pose_palette(object, (const mat4 *)m->skeleton.inverse_bind, 2, palette) &&
              pose_skin_cpu(&m->meshes[0], (const mat4 *)palette, 2, positions, normals));
        const float expected[4][3] = {
            {0.0f, -0.25f, 0.0f}, {0.353553f, -0.25f, 0.853553f}, {0.265165f, 0.25f, 0.890165f}, {0.0f, 0.25f, 0.0f}};
        for (int v = 0; v < 4; ++v)
            for (int k = 0; k < 3; ++k)
                CHECK_NEAR(positions[v][k], expected[v][k], 2e-6);
        /* The frame's box in the file holds the skinned corners. */
        for (int v = 0; v < 4; ++v)
            for (int k = 0; k < 3; ++k)
                CHECK(positions[v][k] >= c->bounds[1][0][k] - 1e-6f && positions[v][k] <= c->bounds[1][1][k] + 1e-6f);
    }
    diag_list_free(&warnings);
    model_free(m);
    clip_free(c);
    free(mesh_text);
    free(anim_text);
    free(doc);
}

/* md5_write_clip: every shipped clip read, written and read again gives the same frames (positions and the
 * rotations' x, y, z to the float, w as the reader rebuilds it within 1e-6, each rotation the same turn
 * whatever its sign), bounds, rate, names and parents; a name with a quote is refused with nothing written. */
static void test_written_clips_read_back(void)
{
    static const char *const clips[] = {"walk", "run", "idle", "wave", "jump", "lean_left"};
    for (size_t c = 0; c < sizeof clips / sizeof clips[0]; ++c) {
        char path[512];
        snprintf(path, sizeof path, "%s/assets/clips/%s.md5anim", MARIONETTE_SOURCE_DIR, clips[c]);
        char *text = test_read_file(path, NULL);
        raw_clip first = {0}, again = {0};
        diag err;
        CHECK(text && md5_read_clip(text, strlen(text), path, &first, &err, NULL));
        char *written = NULL;
        size_t size = 0;
        FILE *out = open_memstream(&written, &size);
        CHECK(md5_write_clip(out, &first, "test_md5_anim"));
        fclose(out);
        CHECK(md5_read_clip(written, size, "written.md5anim", &again, &err, NULL));
        CHECK(again.joint_count == first.joint_count && again.frame_count == first.frame_count &&
              again.frame_rate == first.frame_rate);
        float worst = 0.0f;
        int differ = 0;
        for (int j = 0; j < first.joint_count && again.names; ++j)
            differ += strcmp(first.names[j], again.names[j]) != 0 || first.parents[j] != again.parents[j];
        for (int i = 0; again.frames && i < first.frame_count * first.joint_count; ++i) {
            const joint_pose *a = &first.frames[i], *b = &again.frames[i];
            float dot = 0.0f;
            for (int k = 0; k < 4; ++k)
                dot += a->rotation[k] * b->rotation[k];
            worst = fmaxf(worst, 1.0f - fabsf(dot));
            for (int k = 0; k < 3; ++k)
                differ += a->position[k] != b->position[k];
        }
        for (int f = 0; again.bounds && f < first.frame_count; ++f)
            differ += memcmp(first.bounds[f], again.bounds[f], sizeof first.bounds[f]) != 0;
        CHECK(differ == 0 && worst < 1e-6f);
        free(written);
        free(text);
        raw_clip_free(&first);
        raw_clip_free(&again);
    }
    raw_clip bad = {.joint_count = 1, .frame_count = 1, .frame_rate = 24};
    char *names[] = {"say \"hi\""};
    int parents[] = {-1};
    joint_pose frames[1] = {{.rotation = {0, 0, 0, 1}}};
    float bounds[1][2][3] = {{{0, 0, 0}, {1, 1, 1}}};
    bad.names = names, bad.parents = parents, bad.frames = frames, bad.bounds = bounds;
    char *written = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&written, &size);
    CHECK(!md5_write_clip(out, &bad, NULL));
    fclose(out);
    CHECK(size == 0);
    free(written);
}

int main(void)
{
    RUN(test_frames_are_baked);
    RUN(test_loop_conventions);
    RUN(test_loop_ignores_quaternion_sign);
    RUN(test_loop_ignores_root_travel);
    RUN(test_fits_skeleton);
    RUN(test_refusals);
    RUN(test_format_doc_examples);
    RUN(test_written_clips_read_back);
    return check_report();
}
