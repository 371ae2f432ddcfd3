/* engine/build: raw data -> model and clip. Building is a pure function of the raw data (the same raw
 * twice gives equal models, the raw untouched); the build step's messages keep the reader's file:line;
 * a clip without bounds gets its joints' boxes; the loader table picks a reader by extension and names
 * the supported ones for any other. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "build/build.h"
#include "build/loader.h"
#include "check.h"
#include "md5/md5.h"
#include "test_files.h"

#define MANNEQUIN MARIONETTE_SOURCE_DIR "/assets/models/mannequin.md5mesh"
#define WALK MARIONETTE_SOURCE_DIR "/assets/clips/walk.md5anim"
#define QUIRKS MARIONETTE_TEST_DATA "/quirks/"

static bool same_bytes(const void *a, const void *b, size_t size)
{
    return (a == NULL) == (b == NULL) && (!a || memcmp(a, b, size) == 0);
}

static bool same_text(const char *a, const char *b)
{
    return (a == NULL) == (b == NULL) && (!a || strcmp(a, b) == 0);
}

/* Every field and every array of two models, bit for bit. */
static bool same_model(const model *a, const model *b)
{
    const skeleton *s = &a->skeleton, *t = &b->skeleton;
    size_t joints = (size_t)s->joint_count;
    if (s->joint_count != t->joint_count || a->mesh_count != b->mesh_count || a->bytes != b->bytes ||
        memcmp(&a->skin_reach, &b->skin_reach, sizeof a->skin_reach) != 0 ||
        memcmp(a->bind_bounds, b->bind_bounds, sizeof a->bind_bounds) != 0 ||
        !same_bytes(s->parents, t->parents, joints * sizeof *s->parents) ||
        !same_bytes(s->bind_object, t->bind_object, joints * sizeof *s->bind_object) ||
        !same_bytes(s->inverse_bind, t->inverse_bind, joints * sizeof *s->inverse_bind))
        return false;
    for (int i = 0; i < s->joint_count; ++i)
        if (!same_text(s->names[i], t->names[i]))
            return false;
    for (int i = 0; i < a->mesh_count; ++i) {
        const skin_mesh *m = &a->meshes[i], *n = &b->meshes[i];
        size_t vertices = (size_t)m->vertex_count;
        if (m->vertex_count != n->vertex_count || m->triangle_count != n->triangle_count ||
            m->weight_count != n->weight_count || m->max_influences != n->max_influences ||
            m->vertices_cut != n->vertices_cut || m->largest_weight_lost != n->largest_weight_lost ||
            m->shader_line != n->shader_line || !same_text(m->shader, n->shader) ||
            !same_text(m->texture_path, n->texture_path) ||
            !same_bytes(m->positions, n->positions, vertices * sizeof *m->positions) ||
            !same_bytes(m->normals, n->normals, vertices * sizeof *m->normals) ||
            !same_bytes(m->uvs, n->uvs, vertices * sizeof *m->uvs) ||
            !same_bytes(m->joints, n->joints, vertices * sizeof *m->joints) ||
            !same_bytes(m->weights, n->weights, vertices * sizeof *m->weights) ||
            !same_bytes(m->triangles, n->triangles, (size_t)m->triangle_count * sizeof *m->triangles))
            return false;
    }
    return true;
}

static bool read_raw_model(const char *path, char **text, raw_model *raw, diag_list *warnings)
{
    size_t size = 0;
    *text = test_read_file(path, &size);
    diag err = {0};
    bool ok = *text && md5_read_model(*text, size, path, raw, &err, warnings);
    if (!ok)
        fprintf(stderr, "  %s:%d: %s\n", err.file, err.line, err.message);
    return ok;
}

/* The same raw model built twice: two equal models, the raw data as it was, and the same model the loader
 * gives. A body with cut weights, so the cut and its renormalising are part of what must repeat. */
static void test_raw_model_built_twice_is_identical(void)
{
    const char *paths[] = {MANNEQUIN, QUIRKS "five_weights.md5mesh"};
    for (size_t p = 0; p < sizeof paths / sizeof paths[0]; ++p) {
        char *text = NULL;
        raw_model raw = {0};
        diag_list read_warnings = {0}, first_warnings = {0}, second_warnings = {0};
        CHECK(read_raw_model(paths[p], &text, &raw, &read_warnings));
        CHECK(raw.mesh_count > 0 && raw.meshes[0].vertex_count > 0);
        raw_weight weight0 = raw.meshes[0].weights[0];
        int used0 = raw.meshes[0].weights_used[0];

        model *first = NULL, *second = NULL, *loaded = NULL;
        diag err = {0};
        CHECK(build_model(&raw, &first, &err, &first_warnings));
        CHECK(build_model(&raw, &second, &err, &second_warnings));
        CHECK(first && second && first != second && same_model(first, second));
        /* Nothing shared: the second build owns its arrays. */
        CHECK(first && second && first->meshes[0].positions != second->meshes[0].positions);
        CHECK(memcmp(&raw.meshes[0].weights[0], &weight0, sizeof weight0) == 0 &&
              raw.meshes[0].weights_used[0] == used0);
        CHECK(first_warnings.total == second_warnings.total);
        for (int i = 0; i < first_warnings.count && i < second_warnings.count; ++i)
            CHECK(strcmp(first_warnings.items[i].message, second_warnings.items[i].message) == 0 &&
                  first_warnings.items[i].line == second_warnings.items[i].line);
        diag_list load_warnings = {0};
        CHECK(loader_load_model(paths[p], &loaded, &err, &load_warnings));
        CHECK(loaded && first && same_model(first, loaded));
        CHECK(load_warnings.total == read_warnings.total + first_warnings.total);
        if (p == 1) {
            /* five_weights: the reader has nothing to say, the build step cuts and says so at the vertex. */
            CHECK(read_warnings.total == 0 && first_warnings.total == 1);
            CHECK(first && first->meshes[0].vertices_cut == 1 && first->meshes[0].max_influences == 5);
            CHECK_STR_CONTAINS(first_warnings.count ? first_warnings.items[0].message : "",
                               "vertices have more than 4 weights");
            CHECK(first_warnings.count && first_warnings.items[0].line > 0 &&
                  strcmp(first_warnings.items[0].file, paths[p]) == 0);
        }
        model_free(first);
        model_free(second);
        model_free(loaded);
        raw_model_free(&raw);
        diag_list_free(&read_warnings);
        diag_list_free(&first_warnings);
        diag_list_free(&second_warnings);
        diag_list_free(&load_warnings);
        free(text);
    }
}

/* A build-step refusal names the line the raw data says the vertex is on. */
static void test_build_error_names_the_vertex_line(void)
{
    const char *text = "MD5Version 10\ncommandline \"\"\nnumJoints 1\nnumMeshes 1\n"
                       "joints {\n\t\"root\" -1 ( 0 0 0 ) ( 0 0 0 )\n}\n"
                       "mesh {\n\tshader \"\"\n\tnumverts 2\n\tvert 0 ( 0 0 ) 0 1\n\n\tvert 1 ( 0 0 ) 0 0\n"
                       "\tnumtris 0\n\tnumweights 1\n\tweight 0 0 1 ( 0 0 0 )\n}\n";
    raw_model raw = {0};
    diag err = {0};
    CHECK(md5_read_model(text, strlen(text), "line.md5mesh", &raw, &err, NULL));
    model *m = (model *)1;
    CHECK(!build_model(&raw, &m, &err, NULL) && m == NULL);
    CHECK(err.line == 13 && strcmp(err.file, "line.md5mesh") == 0);
    CHECK(strcmp(err.message, "vert 1 has countWeight 0: at least 1 needed") == 0);
    raw_model_free(&raw);
    CHECK(raw.meshes == NULL && raw.mesh_count == 0);
}

/* Clips: the build step takes the frames over (raw keeps no second copy), and without bounds from the
 * file each frame's box is its joints' box in object space. */
static void test_clip_takes_frames_and_measures_missing_bounds(void)
{
    /* Root at the origin turned about z (quat z = sqrt(0.5), w = -sqrt(0.5) as md5 rebuilds it: -90
     * degrees); the child 2 units along the root's x, so at (0, -2, 0) in object space; frame 1 moves the
     * root to x = 3 (root travel: the clip still counts as looping). */
    const char *text = "MD5Version 10\ncommandline \"\"\nnumFrames 2\nnumJoints 2\nframeRate 10\n"
                       "numAnimatedComponents 1\nhierarchy {\n\t\"root\" -1 1 0\n\t\"child\" 0 0 0\n}\n"
                       "bounds {\n\t( 0 0 0 ) ( 1 1 1 )\n\t( 0 0 0 ) ( 1 1 1 )\n}\n"
                       "baseframe {\n\t( 0 0 0 ) ( 0 0 0.70710678 )\n\t( 2 0 0 ) ( 0 0 0 )\n}\n"
                       "frame 0 {\n\t0\n}\nframe 1 {\n\t3\n}\n";
    raw_clip raw = {0};
    diag err = {0};
    CHECK(md5_read_clip(text, strlen(text), "box.md5anim", &raw, &err, NULL));
    free(raw.bounds);
    raw.bounds = NULL;
    const joint_pose *frames = raw.frames;
    clip *c = NULL;
    CHECK(build_clip(&raw, &c, &err, NULL));
    CHECK(c && c->frames == frames && raw.frames == NULL);
    if (c) {
        CHECK(c->bounds != NULL);
        CHECK_NEAR(c->bounds[0][0][0], 0.0, 1e-5);
        CHECK_NEAR(c->bounds[0][1][0], 0.0, 1e-5);
        CHECK_NEAR(c->bounds[0][0][1], -2.0, 1e-5);
        CHECK_NEAR(c->bounds[0][1][1], 0.0, 1e-5);
        CHECK_NEAR(c->bounds[1][0][0], 3.0, 1e-5);
        CHECK_NEAR(c->bounds[1][1][0], 3.0, 1e-5);
        CHECK_NEAR(c->bounds[1][0][1], -2.0, 1e-5);
        CHECK(c->last_frame_is_first && c->loop_duration == 0.1f && c->once_duration == 0.1f);
    }
    clip_free(c);
    raw_clip_free(&raw);
}

/* The loader table: a reader by extension, case ignored; any other extension (or the other kind's) is
 * refused in one line naming the file and the supported extensions, before the file is opened. */
static void test_loader_picks_reader_by_extension(void)
{
    char folder[512], upper[600];
    CHECK(test_make_temp_folder(folder, sizeof folder, "loader"));
    snprintf(upper, sizeof upper, "%s/MANNEQUIN.MD5MESH", folder);
    size_t size = 0;
    char *text = test_read_file(MANNEQUIN, &size);
    CHECK(text && test_write_bytes(upper, text, size));
    free(text);

    model *m = NULL, *reference = NULL;
    clip *c = NULL;
    diag err = {0};
    CHECK(loader_load_model(upper, &m, &err, NULL));
    CHECK(loader_load_md5_model(MANNEQUIN, &reference, &err, NULL));
    CHECK(m && reference && same_model(m, reference));
    model_free(m);
    model_free(reference);
    CHECK(loader_load_clip(WALK, &c, &err, NULL) && c && c->frame_count > 1);
    clip_free(c);

    m = (model *)1;
    CHECK(!loader_load_model("props/crate.obj", &m, &err, NULL) && m == NULL);
    CHECK(strcmp(err.file, "props/crate.obj") == 0 && err.line == 0);
    CHECK(strcmp(err.message, "'.obj' files cannot be read as a model (supported: .md5mesh)") == 0);
    CHECK(strchr(err.message, '\n') == NULL);

    CHECK(!loader_load_model("models/body", &m, &err, NULL));
    CHECK(strcmp(err.message, "no file extension to tell how to read a model (supported: .md5mesh)") == 0);
    /* A directory with a dot does not lend its name an extension. */
    CHECK(!loader_load_model("v1.5/body", &m, &err, NULL));
    CHECK_STR_CONTAINS(err.message, "no file extension");

    /* The other kind's extension: an animation is not a model, and the reverse. */
    CHECK(!loader_load_model(WALK, &m, &err, NULL));
    CHECK(strcmp(err.message, "'.md5anim' files cannot be read as a model (supported: .md5mesh)") == 0);
    c = (clip *)1;
    CHECK(!loader_load_clip(MANNEQUIN, &c, &err, NULL) && c == NULL);
    CHECK(strcmp(err.message, "'.md5mesh' files cannot be read as an animation (supported: .md5anim)") == 0);
    remove(upper);
    rmdir(folder);
}

/* A clip written through the loader table's writer column reads back as the same clip; a format with no writer
 * and a joint name the format cannot hold are refused with the path, and the file already there is kept. */
static void test_loader_writes_clips_by_format(void)
{
    size_t size = 0;
    char *text = test_read_file(WALK, &size);
    raw_clip raw = {0};
    diag err = {0};
    CHECK(text && md5_read_clip(text, size, WALK, &raw, &err, NULL));
    const char *written = MARIONETTE_BUILD_DIR "/test_build_written.md5anim";
    CHECK(loader_write_clip(written, &raw, "test_build", &err));
    clip *original = NULL, *again = NULL;
    CHECK(loader_load_clip(WALK, &original, &err, NULL) && loader_load_clip(written, &again, &err, NULL));
    if (original && again) {
        CHECK(again->frame_count == original->frame_count && again->joint_count == original->joint_count &&
              again->frame_rate == original->frame_rate);
        float worst = 0.0f;
        for (size_t i = 0; i < (size_t)original->frame_count * (size_t)original->joint_count; ++i)
            for (int k = 0; k < 3; ++k)
                worst = fmaxf(worst, fabsf(again->frames[i].position[k] - original->frames[i].position[k]));
        CHECK(worst < 1e-5f);
    }
    clip_free(again);

    CHECK(!loader_write_clip(MARIONETTE_BUILD_DIR "/test_build_written.bvh", &raw, NULL, &err));
    CHECK(strcmp(err.message, "'.bvh' files cannot be written as an animation (supported: .md5anim)") == 0);
    CHECK(!loader_write_clip(MARIONETTE_BUILD_DIR "/test_build_written.md5mesh", &raw, NULL, &err));
    char *name = raw.joint_count > 0 ? raw.names[0] : NULL;
    char quoted[] = "a \"quoted\" joint";
    if (name)
        raw.names[0] = quoted;
    CHECK(!loader_write_clip(written, &raw, NULL, &err));
    CHECK_STR_CONTAINS(err.message, "cannot write the clip as .md5anim");
    CHECK(strcmp(err.file, written) == 0);
    if (name)
        raw.names[0] = name;
    CHECK(loader_load_clip(written, &again, &err, NULL) && again && original &&
          again->frame_count == original->frame_count);
    clip_free(again);
    clip_free(original);
    raw_clip_free(&raw);
    free(text);
    remove(written);
}

/* The texture search is the loader table's column too: a model file's shaders are searched by its format's
 * convention (MD5: beside the mesh, then in the folder given), and a file of no model format finds none. */
static void test_loader_finds_textures_by_format(void)
{
    char path[4096];
    /* The mannequin's shader leads out of the mesh's folder: not followed there; found by its file name in
     * the folder given, as characters.ini's `textures` gives it. */
    CHECK(!loader_find_texture(MANNEQUIN, "../textures/mannequin.tga", NULL, path, sizeof path, NULL));
    CHECK(loader_find_texture(MANNEQUIN, "../textures/mannequin.tga", MARIONETTE_SOURCE_DIR "/assets/textures", path,
                              sizeof path, NULL));
    CHECK(strstr(path, "textures/mannequin.tga") != NULL);
    /* By its name alone, in the folder given (the mesh's folder has no robot.tga beside it). */
    CHECK(loader_find_texture(MANNEQUIN, "robot", MARIONETTE_SOURCE_DIR "/assets/textures", path, sizeof path, NULL));
    CHECK(strstr(path, "robot.tga") != NULL);
    CHECK(!loader_find_texture(MANNEQUIN, "nothing_called_this", MARIONETTE_SOURCE_DIR "/assets/textures", path,
                               sizeof path, NULL));
    CHECK(!loader_find_texture(WALK, "../textures/mannequin.tga", NULL, path, sizeof path, NULL)); /* a clip */
    CHECK(!loader_find_texture(MARIONETTE_SOURCE_DIR "/assets/models/mannequin.obj", "../textures/mannequin.tga", NULL,
                               path, sizeof path, NULL));
    CHECK(!loader_find_texture(NULL, "x", NULL, path, sizeof path, NULL));
}

/* Maps by convention: for each suffix in turn, beside the image the mesh is drawn with, then where the texture
 * search looks; _local before _n before _normal before _nm, _s before _spec before _specular; never through
 * a link that leads out of the folder searched. */
static void test_loader_finds_maps_by_convention(void)
{
    char folder[512], command[4096], mesh[600], path[4096];
    CHECK(test_make_temp_folder(folder, sizeof folder, "test_build_maps"));
    snprintf(command, sizeof command,
             "mkdir -p '%s/models' '%s/art' '%s/outside' && cd '%s' && touch models/body.tga models/body_nm.tga "
             "models/body_specular.png art/skin.png art/skin_n.tga art/skin_local.png outside/secret_s.tga && "
             "ln -s ../outside/secret_s.tga models/secret_s.tga && touch models/secret.tga",
             folder, folder, folder, folder);
    CHECK(system(command) == 0);
    snprintf(mesh, sizeof mesh, "%s/models/body.md5mesh", folder);
    CHECK(test_write_bytes(mesh, "x", 1)); /* the search looks at its folder, not its text */
    /* Where the texture search looks: the shader's name with each suffix. */
    CHECK(loader_find_map(mesh, "models/characters/body", NULL, NULL, LOADER_MAP_NORMAL, path, sizeof path, NULL));
    CHECK_STR_CONTAINS(path, "models/body_nm.tga");
    CHECK(loader_find_map(mesh, "body.tga", NULL, NULL, LOADER_MAP_SPECULAR, path, sizeof path, NULL));
    CHECK_STR_CONTAINS(path, "models/body_specular.png");
    /* Beside the image found elsewhere (an override, the textures folder): _local wins over _n. */
    char image[700];
    snprintf(image, sizeof image, "%s/art/skin.png", folder);
    CHECK(loader_find_map(mesh, "body", NULL, image, LOADER_MAP_NORMAL, path, sizeof path, NULL));
    CHECK_STR_CONTAINS(path, "art/skin_local.png");
    /* Nothing there: not found, and nothing to say (a body without maps is lit without them). */
    diag_list refusals = {0};
    CHECK(!loader_find_map(mesh, "body", NULL, image, LOADER_MAP_SPECULAR, path, sizeof path, &refusals) ||
          strstr(path, "body_specular") != NULL);
    CHECK(!loader_find_map(mesh, "nothing", NULL, NULL, LOADER_MAP_NORMAL, path, sizeof path, &refusals));
    CHECK(refusals.total == 0);
    /* A link leading out of the folder searched is not used, and is said. */
    CHECK(!loader_find_map(mesh, "secret", NULL, NULL, LOADER_MAP_SPECULAR, path, sizeof path, &refusals));
    CHECK(refusals.total == 1);
    if (refusals.count == 1)
        CHECK_STR_CONTAINS(refusals.items[0].message, "leads out of the folder");
    diag_list_free(&refusals);
    const char *const *suffixes = loader_map_suffixes(LOADER_MAP_NORMAL);
    CHECK(strcmp(suffixes[0], "_local") == 0 && strcmp(suffixes[3], "_nm") == 0 && suffixes[4] == NULL);
    CHECK(loader_map_suffixes(LOADER_MAP_COUNT)[0] == NULL);
    snprintf(command, sizeof command, "rm -rf '%s'", folder);
    CHECK(system(command) == 0);
}

int main(void)
{
    RUN(test_raw_model_built_twice_is_identical);
    RUN(test_build_error_names_the_vertex_line);
    RUN(test_clip_takes_frames_and_measures_missing_bounds);
    RUN(test_loader_picks_reader_by_extension);
    RUN(test_loader_finds_textures_by_format);
    RUN(test_loader_writes_clips_by_format);
    RUN(test_loader_finds_maps_by_convention);
    return check_report();
}
